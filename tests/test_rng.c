/* test_rng.c -- the PRNG every game and bot shares.
 *
 * Proves: maat_rng_seed is SplitMix64 seeding and maat_rng_next is
 * xoshiro256** (known answers re-derived by the independent Python below);
 * maat_rng_below stays in range (also for n = 1, 3, 2^63 + 1) and is
 * roughly uniform; the shuffles are permutations; a seed always gives the
 * same sequence, and a copied maat_rng forks the same stream.
 *
 * The expected numbers come from this Python 3 (run it to re-derive):
 *
 *   M = (1 << 64) - 1
 *   def sm(x):
 *       x = (x + 0x9e3779b97f4a7c15) & M; z = x
 *       z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M
 *       z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M
 *       return x, z ^ (z >> 31)
 *   def rotl(x, k): return ((x << k) | (x >> (64 - k))) & M
 *   def seed(v):
 *       s = []
 *       for i in range(4):
 *           v, z = sm(v); s.append(z)
 *       return s
 *   def nxt(s):
 *       r = (rotl((s[1] * 5) & M, 7) * 9) & M
 *       t = (s[1] << 17) & M
 *       s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]
 *       s[2] ^= t; s[3] = rotl(s[3], 45)
 *       return r
 *   for sd in (0, 42):
 *       s = seed(sd); print([hex(x) for x in s])
 *       print([hex(nxt(s)) for _ in range(4)])
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "maat/rng.h"

static void known_answers(void)
{
    static const struct {
        uint64_t seed, state[4], out[4];
    } kat[] = {
        {0,
         {0xe220a8397b1dcdafULL, 0x6e789e6aa1b965f4ULL, 0x06c45d188009454fULL,
          0xf88bb8a8724c81ecULL},
         {0x99ec5f36cb75f2b4ULL, 0xbf6e1f784956452aULL, 0x1a5f849d4933e6e0ULL,
          0x6aa594f1262d2d2cULL}},
        {42,
         {0xbdd732262feb6e95ULL, 0x28efe333b266f103ULL, 0x47526757130f9f52ULL,
          0x581ce1ff0e4ae394ULL},
         {0x15780b2e0c2ec716ULL, 0x6104d9866d113a7eULL, 0xae17533239e499a1ULL,
          0xecb8ad4703b360a1ULL}},
    };
    for (size_t k = 0; k < sizeof kat / sizeof kat[0]; k++) {
        maat_rng r;
        maat_rng_seed(&r, kat[k].seed);
        for (int i = 0; i < 4; i++)
            CHECK(r.s[i] == kat[k].state[i],
                  "seed %llu: state word %d is %016llx, want %016llx",
                  (unsigned long long)kat[k].seed, i,
                  (unsigned long long)r.s[i],
                  (unsigned long long)kat[k].state[i]);
        for (int i = 0; i < 4; i++) {
            uint64_t x = maat_rng_next(&r);
            CHECK(x == kat[k].out[i],
                  "seed %llu: output %d is %016llx, want %016llx",
                  (unsigned long long)kat[k].seed, i, (unsigned long long)x,
                  (unsigned long long)kat[k].out[i]);
        }
    }
}

static void below_in_range(void)
{
    static const uint64_t ns[] = {1, 2, 3, 5, 6, 7, 10, 100, 105, 1000003,
                                  (1ULL << 32) + 1, (1ULL << 63),
                                  (1ULL << 63) + 1, UINT64_MAX};
    maat_rng r;
    maat_rng_seed(&r, 7);
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        int bad = 0;
        for (int i = 0; i < 20000; i++)
            bad += maat_rng_below(&r, ns[k]) >= ns[k];
        CHECK(bad == 0, "below(%llu) gave %d values out of range",
              (unsigned long long)ns[k], bad);
    }
    /* below(1) is always 0 */
    int nonzero = 0;
    for (int i = 0; i < 1000; i++)
        nonzero += maat_rng_below(&r, 1) != 0;
    CHECK(nonzero == 0, "below(1) was not 0 %d times", nonzero);
    /* below(2^63 + 1) reaches the top of its range: about half the draws
     * are >= 2^62 */
    int high = 0;
    for (int i = 0; i < 10000; i++)
        high += maat_rng_below(&r, (1ULL << 63) + 1) >= (1ULL << 62);
    CHECK(high > 4600 && high < 5400,
          "below(2^63+1): %d of 10000 draws >= 2^62, want about 5000", high);
    /* no modulo bias: with n = 3 * 2^62 a plain x % n would put half the
     * draws below 2^62; the unbiased draw puts a third there */
    int low = 0;
    for (int i = 0; i < 10000; i++)
        low += maat_rng_below(&r, 3ULL << 62) < (1ULL << 62);
    CHECK(low > 3000 && low < 3700,
          "below(3*2^62): %d of 10000 draws < 2^62, want about 3333", low);
}

static void below_uniform(void)
{
    maat_rng r;
    maat_rng_seed(&r, 12345);
    int bucket[6] = {0};
    for (int i = 0; i < 60000; i++)
        bucket[maat_rng_below(&r, 6)]++;
    for (int b = 0; b < 6; b++)
        CHECK(bucket[b] >= 9500 && bucket[b] <= 10500,
              "below(6): bucket %d has %d of 60000, want 10000 +- 5%%", b,
              bucket[b]);
}

static void shuffle_is_permutation(void)
{
    maat_rng r;
    maat_rng_seed(&r, 99);
    int moved_total = 0;
    for (int round = 0; round < 200; round++) {
        uint8_t a[105];
        int b[105];
        for (int i = 0; i < 105; i++) {
            a[i] = (uint8_t)i;
            b[i] = 1000 + i;
        }
        maat_rng_shuffle_u8(&r, a, 105);
        maat_rng_shuffle_int(&r, b, 105);
        int seen_a[105] = {0}, seen_b[105] = {0}, ok = 1;
        for (int i = 0; i < 105; i++) {
            if (a[i] >= 105 || b[i] < 1000 || b[i] >= 1105) {
                ok = 0;
                continue;
            }
            seen_a[a[i]]++;
            seen_b[b[i] - 1000]++;
            moved_total += a[i] != i;
        }
        for (int i = 0; i < 105; i++)
            ok &= seen_a[i] == 1 && seen_b[i] == 1;
        CHECK(ok, "shuffle %d is not a permutation", round);
    }
    /* a shuffle that never moves anything is not a shuffle */
    CHECK(moved_total > 200 * 100, "shuffles moved only %d elements",
          moved_total);
    /* n = 0 and 1 are no-ops */
    uint8_t one = 5;
    maat_rng_shuffle_u8(&r, &one, 1);
    maat_rng_shuffle_u8(&r, &one, 0);
    CHECK(one == 5, "shuffle of one element changed it to %d", one);
}

static void same_seed_same_sequence(void)
{
    maat_rng a, b;
    maat_rng_seed(&a, 0xdeadbeefULL);
    maat_rng_seed(&b, 0xdeadbeefULL);
    int diff = 0;
    for (int i = 0; i < 1000; i++)
        diff += maat_rng_next(&a) != maat_rng_next(&b);
    CHECK(diff == 0, "same seed gave %d different outputs", diff);

    maat_rng c = a; /* a copy forks the same stream */
    diff = 0;
    for (int i = 0; i < 100; i++)
        diff += maat_rng_below(&a, 1000) != maat_rng_below(&c, 1000);
    CHECK(diff == 0, "a copied rng diverged %d times", diff);

    maat_rng d, e;
    maat_rng_seed(&d, 1);
    maat_rng_seed(&e, 2);
    CHECK(maat_rng_next(&d) != maat_rng_next(&e),
          "seeds 1 and 2 gave the same first output");

    uint8_t x[105], y[105];
    for (int i = 0; i < 105; i++)
        x[i] = y[i] = (uint8_t)i;
    maat_rng_seed(&d, 77);
    maat_rng_seed(&e, 77);
    maat_rng_shuffle_u8(&d, x, 105);
    maat_rng_shuffle_u8(&e, y, 105);
    CHECK(memcmp(x, y, sizeof x) == 0, "same seed, different shuffles");
}

static void seed_derive(void)
{
    /* one SplitMix64 step of seed ^ (stream * golden): for seed 0 and
     * stream 0 that is SplitMix64(0)'s first output (see the Python). */
    CHECK(maat_seed_derive(0, 0) == 0xe220a8397b1dcdafULL,
          "maat_seed_derive(0, 0) = %016llx",
          (unsigned long long)maat_seed_derive(0, 0));
    CHECK(maat_seed_derive(5, 1) != maat_seed_derive(5, 2),
          "streams 1 and 2 of seed 5 coincide");
}

int main(void)
{
    known_answers();
    below_in_range();
    below_uniform();
    shuffle_is_permutation();
    same_seed_same_sequence();
    seed_derive();
    return check_done("rng");
}
