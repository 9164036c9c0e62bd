/* rng.h -- chance: the seed and the one generator every game draws from.
 *
 * maat_seed is a 256-bit key.  Written as text it is 64 hex digits, or a
 * short decimal number (0 .. 2^64-1) for CI and bug reports: `7` is the
 * key whose first 8 bytes are 7 little-endian and whose other 24 bytes are
 * zero.  Such a "short" seed reproduces exactly but is easy to guess;
 * maat_seed_is_short tells it, so a referee can warn.  Unpredictable seeds
 * come from the OS (maat_seed_random); a competition derives each match's
 * seed from a secret key and a label (maat_seed_derive: keyed BLAKE2b).
 *
 * maat_rng is the ChaCha20 keystream of a seed (libsodium), read as
 * little-endian 32-bit words through a buffer; bounded draws
 * are unbiased (multiply-shift with rejection).  Every deal is a function
 * of the seed alone, the same on every platform; docs/RNG.md specifies all
 * of it, with test vectors, so another implementation reproduces a deal.
 *
 * A maat_rng is a plain value: copying it forks the same stream;
 * maat_rng_fork starts an independent one.  The SDK's bots use the same
 * generator for their own choices (docs/RNG.md says why).
 */
#ifndef MAAT_RNG_H
#define MAAT_RNG_H

#include <stdint.h>

#include "maat/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MAAT_SEED_BYTES 32
#define MAAT_SEED_TEXT 65 /* 64 hex digits and the NUL */

typedef struct maat_seed {
    uint8_t b[MAAT_SEED_BYTES];
} maat_seed;

/* "7" (1-20 decimal digits, at most 2^64-1) or 64 hex digits (either
 * case).  Nothing else: no sign, space or prefix.  MAAT_EINVAL with a
 * message saying what is allowed. */
int maat_seed_parse(maat_seed *s, const char *text, maat_error *err);
/* The canonical text: the decimal number of a short seed, else 64
 * lowercase hex digits.  maat_seed_parse gives the same seed back. */
const char *maat_seed_format(const maat_seed *s, char out[MAAT_SEED_TEXT]);
/* The short seed n; returns s. */
maat_seed *maat_seed_from_u64(maat_seed *s, uint64_t n);
/* 1 when bytes 8..31 are zero: a short number, at most 2^64 choices. */
int maat_seed_is_short(const maat_seed *s);
/* 32 bytes from the OS (getrandom).  MAAT_EIO if it has none to give. */
int maat_seed_random(maat_seed *s, maat_error *err);
/* out = BLAKE2b-256 keyed with `key`, of the bytes of `label` (e.g.
 * "game 3").  Knowing out and label reveals nothing of key. */
void maat_seed_derive(maat_seed *out, const maat_seed *key,
                      const char *label);
int maat_seed_equal(const maat_seed *a, const maat_seed *b);
/* The seed written on the first line of a file ("-": standard input),
 * as maat_seed_parse reads it; spaces and a CR at the end of the line
 * are ignored.  Errors name the file.  The file is read before any bot
 * exists, so a seed need not be on a command line where bots can see it. */
int maat_seed_read_file(maat_seed *s, const char *path, maat_error *err);
/* Create `path` with mode 0600 holding the seed's text and a newline;
 * MAAT_EIO naming the file if it exists or cannot be written. */
int maat_seed_write_file(const maat_seed *s, const char *path,
                         maat_error *err);
/* A secret key kept in a file (e.g. a tournament's): read it, or create
 * the file with a key from the OS if there is none.  Refuses a key file
 * that its group or others may read (MAAT_EINVAL, saying to chmod 600). */
int maat_seed_key_file(maat_seed *s, const char *path, maat_error *err);

/* Eight 64-byte ChaCha20 blocks per refill: libsodium computes eight at
 * once with AVX2, and a 4-seat Pyramids game costs 4% fewer instructions
 * than with one block (docs/PERFORMANCE.md). */
#define MAAT_RNG_WORDS 128

typedef struct maat_rng {
    uint32_t word[MAAT_RNG_WORDS]; /* keystream, read from word[pos] on */
    uint32_t pos;                  /* next unread word; >= WORDS: refill */
    uint64_t block;                /* counter of the next block */
    uint8_t key[MAAT_SEED_BYTES];
} maat_rng;

void maat_rng_seed(maat_rng *r, const maat_seed *s);
/* child = a new stream keyed by the next 8 words of r. */
void maat_rng_fork(maat_rng *r, maat_rng *child);
/* The next keystream blocks into r->word, r->pos set to the first (called
 * when they are used up; a forked stream's first refill makes one). */
void maat_rng_refill(maat_rng *r);

/* The next 32-bit word of the stream. */
static inline uint32_t maat_rng_next32(maat_rng *r)
{
    if (r->pos >= MAAT_RNG_WORDS)
        maat_rng_refill(r);
    return r->word[r->pos++];
}

/* Two words, the first one low. */
uint64_t maat_rng_next(maat_rng *r);
/* Uniform in [0, n) without bias, for 1 <= n <= 2^32 - 1; 0 when n is 0.
 * Lemire's multiply-shift: the high word of x * n is in [0, n); the low
 * word tells the (fewer than n) values of x that would make some results
 * more likely than others, which are drawn again.  The threshold 2^32 mod
 * n is below n, so it is computed only when low < n.  (An inline
 * definition, so a playout's draw costs no call; rng.c holds the
 * library's external one.) */
inline uint32_t maat_rng_below(maat_rng *r, uint32_t n)
{
    /* maat_rng_next32, spelt out: an external inline function may not
     * call a static one */
    if (r->pos >= MAAT_RNG_WORDS)
        maat_rng_refill(r);
    uint64_t m = (uint64_t)r->word[r->pos++] * n;
    if ((uint32_t)m < n) {
        uint32_t threshold = (uint32_t)(0u - n) % n;
        while ((uint32_t)m < threshold) {
            if (r->pos >= MAAT_RNG_WORDS)
                maat_rng_refill(r);
            m = (uint64_t)r->word[r->pos++] * n;
        }
    }
    return (uint32_t)(m >> 32);
}
/* Fisher-Yates shuffle of n bytes / ints, from the last index down. */
void maat_rng_shuffle_u8(maat_rng *r, uint8_t *a, int n);
void maat_rng_shuffle_int(maat_rng *r, int *a, int n);

#ifdef __cplusplus
}
#endif

#endif
