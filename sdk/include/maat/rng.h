/* rng.h -- the one PRNG every game and bot uses: xoshiro256** seeded
 * through SplitMix64, with unbiased bounded draws.  Portable: integer-only,
 * the same sequence on every compiler, platform and build type.  The exact
 * algorithm is in docs/RNG.md so another implementation can reproduce a deal.
 *
 * A maat_rng is a plain value: copy it to fork a stream.
 */
#ifndef MAAT_RNG_H
#define MAAT_RNG_H

#include <stdint.h>

typedef struct maat_rng {
    uint64_t s[4];
} maat_rng;

void maat_rng_seed(maat_rng *r, uint64_t seed);
uint64_t maat_rng_next(maat_rng *r);
/* Uniform in [0, n), n >= 1, without modulo bias (rejection). */
uint64_t maat_rng_below(maat_rng *r, uint64_t n);
/* Fisher-Yates shuffle of n bytes / ints, from the last index down. */
void maat_rng_shuffle_u8(maat_rng *r, uint8_t *a, int n);
void maat_rng_shuffle_int(maat_rng *r, int *a, int n);
/* Derive an independent seed from (seed, stream) -- e.g. per game of a
 * series -- by one SplitMix64 step of seed ^ (stream * golden ratio). */
uint64_t maat_seed_derive(uint64_t seed, uint64_t stream);

#endif
