/* rng.c -- xoshiro256** seeded by SplitMix64; unbiased bounded draws.
 * See docs/RNG.md for the algorithm as a reimplementer needs it. */
#include "maat/rng.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

void maat_rng_seed(maat_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

uint64_t maat_rng_next(maat_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Reject the lowest (2^64 mod n) values so every residue is equally likely.
 * That threshold is always below n, so a draw x >= n (nearly every draw)
 * is accepted without computing it: one 64-bit division saved per draw,
 * the same results. */
uint64_t maat_rng_below(maat_rng *r, uint64_t n)
{
    for (;;) {
        uint64_t x = maat_rng_next(r);
        if (x >= n || x >= (0 - n) % n)
            return x % n;
    }
}

void maat_rng_shuffle_u8(maat_rng *r, uint8_t *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)maat_rng_below(r, (uint64_t)i + 1);
        uint8_t t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

void maat_rng_shuffle_int(maat_rng *r, int *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)maat_rng_below(r, (uint64_t)i + 1);
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

uint64_t maat_seed_derive(uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ (stream * 0x9e3779b97f4a7c15ULL);
    return splitmix64(&x);
}
