/* test_rng.c -- seeds and the generator every game draws its chance from.
 *
 * Proves: the stream is ChaCha20's keystream (RFC 8439's all-zero key
 * vector, and seed 42's known words from docs/RNG.md, whose Python was
 * checked against OpenSSL's ChaCha20); seeds parse, format and round-trip,
 * reject everything but a decimal 0..2^64-1 or 64 hex digits, and tell a
 * short seed; derive is keyed BLAKE2b (known answer) and separates labels
 * and keys; the OS gives different seeds; seed files are created 0600,
 * never overwritten, and read back (first line; bad ones named); maat_rng_below matches the
 * documented multiply-shift draws, stays in range for every n up to
 * 2^32 - 1, has no bias where a plain modulo would, and is uniform; the
 * shuffles are permutations; a copy forks the same stream, a fork does
 * not; the buffered stream is the same across refills.
 * docs/RNG.md's full vectors (every deal) are checked by rng_doc.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "maat/rng.h"

static void chacha20_known_answers(void)
{
    /* RFC 8439 appendix A.1, test vector #1: all-zero key, nonce and
     * counter; keystream 76 b8 e0 ad a0 f1 3d 90 ... */
    maat_rng r;
    maat_rng_seed(&r, SEED(0));
    static const uint32_t zero[4] = {0xade0b876, 0x903df1a0, 0xe56a5d40,
                                     0x28bd8653};
    for (int i = 0; i < 4; i++) {
        uint32_t w = maat_rng_next32(&r);
        CHECK(w == zero[i], "seed 0 word %d is %08x, want %08x", i, w,
              zero[i]);
    }
    static const uint32_t w42[4] = {0x26e5761f, 0x6ae30a51, 0x5c8b5c62,
                                    0xb4eb7f59};
    maat_rng_seed(&r, SEED(42));
    for (int i = 0; i < 4; i++) {
        uint32_t w = maat_rng_next32(&r);
        CHECK(w == w42[i], "seed 42 word %d is %08x, want %08x", i, w, w42[i]);
    }
    /* maat_rng_next: two words, the first low */
    maat_rng_seed(&r, SEED(42));
    uint64_t x = maat_rng_next(&r);
    CHECK(x == 0x6ae30a5126e5761fULL, "seed 42 next() is %016llx",
          (unsigned long long)x);
}

static void refills_continue_the_stream(void)
{
    /* words across many buffer refills equal a second stream read with
     * forks of copies in between (a copy must not disturb the original) */
    maat_rng a, b;
    maat_rng_seed(&a, SEED(5));
    maat_rng_seed(&b, SEED(5));
    uint32_t first[1000];
    for (int i = 0; i < 1000; i++)
        first[i] = maat_rng_next32(&a);
    int diff = 0;
    for (int i = 0; i < 1000; i++) {
        maat_rng c = b, child;
        maat_rng_fork(&c, &child);
        diff += maat_rng_next32(&b) != first[i];
    }
    CHECK(diff == 0, "the stream differed in %d of 1000 words", diff);
    /* block k of the stream is ChaCha20 block k: word 16k of seed 0 is
     * not word 0 again */
    maat_rng_seed(&a, SEED(0));
    uint32_t w0 = maat_rng_next32(&a);
    for (int i = 1; i < 16; i++)
        maat_rng_next32(&a);
    CHECK(maat_rng_next32(&a) != w0, "block 1 repeats block 0");
}

static void parse_and_format(void)
{
    maat_seed s;
    maat_error err = {0};
    char text[MAAT_SEED_TEXT];
    CHECK(maat_seed_parse(&s, "7", &err) == MAAT_OK && s.b[0] == 7 &&
              maat_seed_is_short(&s) &&
              !strcmp(maat_seed_format(&s, text), "7"),
          "'7' is the short seed 7, formatted '7' (%s)", text);
    CHECK(maat_seed_equal(&s, SEED(7)), "'7' differs from SEED(7)");
    CHECK(maat_seed_parse(&s, "18446744073709551615", &err) == MAAT_OK &&
              maat_seed_is_short(&s) &&
              !strcmp(maat_seed_format(&s, text), "18446744073709551615"),
          "2^64-1 round-trips (%s)", text);
    const char *hex =
        "00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF";
    CHECK(maat_seed_parse(&s, hex, &err) == MAAT_OK && s.b[0] == 0x00 &&
              s.b[1] == 0x11 && s.b[31] == 0xff && !maat_seed_is_short(&s),
          "64 hex digits are the key, byte 0 first");
    maat_seed_format(&s, text);
    CHECK(!strcmp(text, "00112233445566778899aabbccddeeff0011223344556677"
                        "8899aabbccddeeff"),
          "a full key formats as lowercase hex: %s", text);
    maat_seed t;
    CHECK(maat_seed_parse(&t, text, &err) == MAAT_OK &&
              maat_seed_equal(&s, &t),
          "a full key round-trips");
    /* a hex key whose bytes 8..31 are zero is short, and formats as the
     * number it equals */
    CHECK(maat_seed_parse(&s, "2a000000000000000000000000000000000000000000"
                              "00000000000000000000",
                          &err) == MAAT_OK &&
              maat_seed_is_short(&s) &&
              !strcmp(maat_seed_format(&s, text), "42"),
          "hex 2a00.. is the short seed 42 (%s)", text);
    static const char *const bad[] = {
        "", "-1", "+1", " 1", "1 ", "0x10", "18446744073709551616",
        "99999999999999999999", "123456789012345678901", "1e3", "abc",
        "00112233445566778899aabbccddeeff00112233445566778899aabbccddeef",
        "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff0",
        "00112233445566778899aabbccddeeff00112233445566778899aabbccddeefg"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.code = 0;
        err.msg[0] = 0;
        CHECK(maat_seed_parse(&s, bad[i], &err) == MAAT_EINVAL &&
                  strstr(err.msg, "64 hex digits"),
              "seed '%s' was accepted or not explained (%s)", bad[i],
              err.msg);
    }
    CHECK(maat_seed_parse(&s, NULL, &err) == MAAT_EINVAL, "NULL accepted");
}

static void derive_and_random(void)
{
    maat_seed d, e;
    char text[MAAT_SEED_TEXT];
    maat_seed_derive(&d, SEED(42), "game 1");
    CHECK(!strcmp(maat_seed_format(&d, text),
                  "c833847d460e186b5cc3105d8efaa19881998c50e72d7f9fabb6ebd8"
                  "72e77a64"),
          "derive(42, 'game 1') = %s", text);
    maat_seed_derive(&e, SEED(42), "game 2");
    CHECK(!maat_seed_equal(&d, &e), "labels game 1 and game 2 coincide");
    maat_seed_derive(&e, SEED(43), "game 1");
    CHECK(!maat_seed_equal(&d, &e), "keys 42 and 43 coincide");
    CHECK(!maat_seed_is_short(&d), "a derived seed is short");

    maat_seed a, b;
    maat_error err = {0};
    CHECK(maat_seed_random(&a, &err) == MAAT_OK &&
              maat_seed_random(&b, &err) == MAAT_OK,
          "getrandom failed: %s", err.msg);
    CHECK(!maat_seed_equal(&a, &b) && !maat_seed_is_short(&a) &&
              !maat_seed_is_short(&b),
          "two seeds from the OS are equal or short");
}

static void seed_files(void)
{
    char dir[] = "/tmp/maat-test-rng-XXXXXX", path[64], other[64];
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(path, sizeof path, "%s/key", dir);
    snprintf(other, sizeof other, "%s/other", dir);
    maat_seed a, b;
    maat_error err = {0};
    CHECK(maat_seed_random(&a, &err) == MAAT_OK, "%s", err.msg);
    CHECK(maat_seed_write_file(&a, path, &err) == MAAT_OK, "write: %s",
          err.msg);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600,
          "the seed file's mode is %o, want 600", (unsigned)st.st_mode & 0777);
    CHECK(maat_seed_read_file(&b, path, &err) == MAAT_OK &&
              maat_seed_equal(&a, &b),
          "the seed read back differs (%s)", err.msg);
    err.msg[0] = 0;
    CHECK(maat_seed_write_file(&b, path, &err) == MAAT_EIO &&
              strstr(err.msg, path),
          "an existing seed file was overwritten or not named (%s)", err.msg);
    static const struct {
        const char *text;
        int ok;
        uint64_t n;
    } cases[] = {{"7\n", 1, 7}, {"7", 1, 7}, {"7 \r\n", 1, 7},
                 {"7\nrest of the file\n", 1, 7}, {"", 0, 0}, {"\n7\n", 0, 0},
                 {"seven\n", 0, 0}, {"-7\n", 0, 0},
                 {"123456789012345678901234567890123456789012345678901234567"
                  "89012345678901234567890\n", 0, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        FILE *f = fopen(other, "w");
        if (f) {
            fputs(cases[i].text, f);
            fclose(f);
        }
        err.msg[0] = 0;
        int rc = maat_seed_read_file(&b, other, &err);
        CHECK(cases[i].ok ? rc == MAAT_OK && maat_seed_equal(&b,
                                                             SEED(cases[i].n))
                          : rc == MAAT_EINVAL && strstr(err.msg, other),
              "seed file case %zu: rc %d (%s)", i, rc, err.msg);
    }
    unlink(other);
    err.msg[0] = 0;
    CHECK(maat_seed_read_file(&b, other, &err) == MAAT_EIO &&
              strstr(err.msg, other),
          "a missing seed file: %s", err.msg);
    /* a key file: made once with a key from the OS, then read back */
    maat_seed k1, k2;
    err.msg[0] = 0;
    CHECK(maat_seed_key_file(&k1, path, &err) == MAAT_OK &&
              !maat_seed_is_short(&k1),
          "a new key file: %s", err.msg);
    CHECK(maat_seed_key_file(&k2, path, &err) == MAAT_OK &&
              maat_seed_equal(&k1, &k2),
          "the key file was not kept: %s", err.msg);
    chmod(path, 0644);
    err.msg[0] = 0;
    CHECK(maat_seed_key_file(&k2, path, &err) == MAAT_EINVAL &&
              strstr(err.msg, "chmod 600"),
          "a key file others may read was used: %s", err.msg);
    unlink(path);
    rmdir(dir);
}

static void below_known_answers(void)
{
    /* docs/RNG.md: after seeding 42, below(10, 105, 1000, 3, 2^31+1,
     * 2^32-1) */
    static const uint32_t n[6] = {10, 105, 1000, 3, 2147483649u, 4294967295u};
    static const uint32_t want[6] = {1, 43, 361, 2, 1729495563u, 3012146492u};
    maat_rng r;
    maat_rng_seed(&r, SEED(42));
    for (int i = 0; i < 6; i++) {
        uint32_t x = maat_rng_below(&r, n[i]);
        CHECK(x == want[i], "below(%u) is %u, want %u", n[i], x, want[i]);
    }
}

static void below_in_range(void)
{
    static const uint32_t ns[] = {1, 2, 3, 5, 6, 7, 10, 100, 105, 1000003,
                                  (1u << 31), (1u << 31) + 1, UINT32_MAX};
    maat_rng r;
    maat_rng_seed(&r, SEED(7));
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        int bad = 0;
        for (int i = 0; i < 20000; i++)
            bad += maat_rng_below(&r, ns[k]) >= ns[k];
        CHECK(bad == 0, "below(%u) gave %d values out of range", ns[k], bad);
    }
    int nonzero = 0;
    for (int i = 0; i < 1000; i++)
        nonzero += maat_rng_below(&r, 1) != 0 || maat_rng_below(&r, 0) != 0;
    CHECK(nonzero == 0, "below(1) or below(0) was not 0 %d times", nonzero);
    /* no bias: with n = 3 * 2^30, (x * n) >> 32 alone maps two words x to
     * every multiple of 3 and one to the other values, so half the draws
     * would be multiples of 3; the redraws make it a third */
    int threes = 0;
    for (int i = 0; i < 30000; i++)
        threes += maat_rng_below(&r, 3u << 30) % 3 == 0;
    CHECK(threes > 9500 && threes < 10500,
          "below(3*2^30): %d of 30000 draws are multiples of 3, want 10000",
          threes);
    /* below(2^31 + 1) reaches its top: about half the draws >= 2^30 */
    int half = 0;
    for (int i = 0; i < 10000; i++)
        half += maat_rng_below(&r, (1u << 31) + 1) >= (1u << 30);
    CHECK(half > 4600 && half < 5400,
          "below(2^31+1): %d of 10000 draws >= 2^30, want about 5000", half);
}

static void below_uniform(void)
{
    maat_rng r;
    maat_rng_seed(&r, SEED(12345));
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
    maat_rng_seed(&r, SEED(99));
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
    CHECK(moved_total > 200 * 100, "shuffles moved only %d elements",
          moved_total);
    uint8_t one = 5;
    maat_rng_shuffle_u8(&r, &one, 1);
    maat_rng_shuffle_u8(&r, &one, 0);
    CHECK(one == 5, "shuffle of one element changed it to %d", one);
}

/* The shuffles keep the read position in a register and redraw on their
 * own (rng.c): they must draw exactly what maat_rng_below draws, across a
 * refill and through redraws.  Zero words force the redraws (low half 0,
 * below 2^32 mod n for every n here but powers of two). */
static void shuffle_draws_like_below(void)
{
    for (int start = 100; start < 128; start += 9) {
        maat_rng r;
        maat_rng_seed(&r, SEED(7));
        maat_rng_refill(&r);
        r.pos = (uint32_t)start;
        for (int k = start; k < MAAT_RNG_WORDS; k += 5)
            r.word[k] = 0;
        maat_rng ref = r, ref2 = r, r2 = r;
        uint8_t a[105], want[105];
        int b[105], want_b[105];
        for (int i = 0; i < 105; i++) {
            a[i] = want[i] = (uint8_t)i;
            b[i] = want_b[i] = 1000 + i;
        }
        maat_rng_shuffle_u8(&r, a, 105);
        maat_rng_shuffle_int(&r2, b, 105);
        for (int i = 104; i > 0; i--) {
            uint32_t j = maat_rng_below(&ref, (uint32_t)i + 1);
            uint8_t t = want[i];
            want[i] = want[j];
            want[j] = t;
            j = maat_rng_below(&ref2, (uint32_t)i + 1);
            int u = want_b[i];
            want_b[i] = want_b[j];
            want_b[j] = u;
        }
        CHECK(memcmp(a, want, sizeof a) == 0,
              "shuffle_u8 from word %d differs from below()'s", start);
        CHECK(memcmp(b, want_b, sizeof b) == 0,
              "shuffle_int from word %d differs from below()'s", start);
        CHECK(r.pos == ref.pos && r.block == ref.block &&
                  r2.pos == ref2.pos && r2.block == ref2.block,
              "a shuffle from word %d left the stream elsewhere", start);
    }
}

static void copies_and_forks(void)
{
    maat_rng a, b;
    maat_rng_seed(&a, SEED(0xdeadbeef));
    maat_rng_seed(&b, SEED(0xdeadbeef));
    int diff = 0;
    for (int i = 0; i < 1000; i++)
        diff += maat_rng_next(&a) != maat_rng_next(&b);
    CHECK(diff == 0, "same seed gave %d different outputs", diff);

    maat_rng c = a; /* a copy forks the same stream */
    diff = 0;
    for (int i = 0; i < 100; i++)
        diff += maat_rng_below(&a, 1000) != maat_rng_below(&c, 1000);
    CHECK(diff == 0, "a copied rng diverged %d times", diff);

    /* a fork is another stream, and advances its parent by 8 words */
    maat_rng child, parent = a;
    maat_rng_fork(&a, &child);
    for (int i = 0; i < 8; i++)
        maat_rng_next32(&parent);
    int same = 0;
    diff = 0;
    for (int i = 0; i < 100; i++) {
        uint32_t x = maat_rng_next32(&child), y = maat_rng_next32(&a);
        same += x == y;
        diff += y != maat_rng_next32(&parent);
    }
    CHECK(same < 3, "a fork followed its parent %d of 100 times", same);
    CHECK(diff == 0, "a fork did not take exactly 8 words (%d)", diff);

    /* a fork is the stream seeded with the 8 words it took as its key,
     * word for word across its first refills (one block, then eight) */
    maat_rng p2 = a, kid, keyed;
    maat_rng_fork(&a, &kid);
    maat_seed key;
    for (int i = 0; i < MAAT_SEED_BYTES / 4; i++) {
        uint32_t w = maat_rng_next32(&p2);
        for (int j = 0; j < 4; j++)
            key.b[4 * i + j] = (uint8_t)(w >> (8 * j));
    }
    maat_rng_seed(&keyed, &key);
    diff = 0;
    for (int i = 0; i < 3 * MAAT_RNG_WORDS; i++)
        diff += maat_rng_next32(&kid) != maat_rng_next32(&keyed);
    CHECK(diff == 0, "a fork differs from the stream of its key in %d of "
          "%d words", diff, 3 * MAAT_RNG_WORDS);

    maat_rng d, e;
    maat_rng_seed(&d, SEED(1));
    maat_rng_seed(&e, SEED(2));
    CHECK(maat_rng_next(&d) != maat_rng_next(&e),
          "seeds 1 and 2 gave the same first output");
}

int main(void)
{
    chacha20_known_answers();
    refills_continue_the_stream();
    parse_and_format();
    derive_and_random();
    seed_files();
    below_known_answers();
    below_in_range();
    below_uniform();
    shuffle_is_permutation();
    shuffle_draws_like_below();
    copies_and_forks();
    return check_done("rng");
}
