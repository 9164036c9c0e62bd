/* testrng.h -- test helper: a small reproducible random stream
 * (xorshift64*) for tests that build many inputs, each test with its own
 * seed (test_rng_seed) so the streams differ. */
#ifndef MAAT_TEST_RNG_H
#define MAAT_TEST_RNG_H

#include <stdint.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static inline void test_rng_seed(uint64_t seed)
{
    rng_state = seed ? seed : 0x9e3779b97f4a7c15ULL;
}

static inline uint32_t rnd(uint32_t n) /* 0..n-1 */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545f4914f6cdd1dULL) >> 33) % n;
}

#endif
