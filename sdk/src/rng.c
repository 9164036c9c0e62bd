/* rng.c -- seeds (parse, format, draw from the OS, derive) and the ChaCha20
 * stream every game's chance comes from.  libsodium does the cryptography
 * (ChaCha20, BLAKE2b); docs/RNG.md is the specification. */
#include "maat/rng.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- seeds -------------------------------------------------------------- */

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int parse_hex(maat_seed *s, const char *text)
{
    for (int i = 0; i < MAAT_SEED_BYTES; i++) {
        int hi = hex_value(text[2 * i]), lo = hex_value(text[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        s->b[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

static int parse_decimal(uint64_t *n, const char *text)
{
    uint64_t v = 0;
    if (!*text)
        return -1;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9' || p - text >= 20)
            return -1;
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *n = v;
    return 0;
}

int maat_seed_parse(maat_seed *s, const char *text, maat_error *err)
{
    uint64_t n;
    if (text && strlen(text) == 2 * MAAT_SEED_BYTES && parse_hex(s, text) == 0)
        return MAAT_OK;
    if (text && strlen(text) <= 20 && parse_decimal(&n, text) == 0) {
        maat_seed_from_u64(s, n);
        return MAAT_OK;
    }
    return maat_error_set(err, MAAT_EINVAL,
                          "seed '%.80s': want a number 0..18446744073709551615 "
                          "or 64 hex digits",
                          text ? text : "");
}

const char *maat_seed_format(const maat_seed *s, char out[MAAT_SEED_TEXT])
{
    if (maat_seed_is_short(s)) {
        uint64_t n = 0;
        for (int i = 7; i >= 0; i--)
            n = n << 8 | s->b[i];
        snprintf(out, MAAT_SEED_TEXT, "%llu", (unsigned long long)n);
        return out;
    }
    static const char digit[] = "0123456789abcdef";
    for (int i = 0; i < MAAT_SEED_BYTES; i++) {
        out[2 * i] = digit[s->b[i] >> 4];
        out[2 * i + 1] = digit[s->b[i] & 15];
    }
    out[2 * MAAT_SEED_BYTES] = '\0';
    return out;
}

maat_seed *maat_seed_from_u64(maat_seed *s, uint64_t n)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < 8; i++)
        s->b[i] = (uint8_t)(n >> (8 * i));
    return s;
}

int maat_seed_is_short(const maat_seed *s)
{
    for (int i = 8; i < MAAT_SEED_BYTES; i++)
        if (s->b[i])
            return 0;
    return 1;
}

int maat_seed_random(maat_seed *s, maat_error *err)
{
    size_t got = 0;
    while (got < sizeof s->b) {
        ssize_t n = getrandom(s->b + got, sizeof s->b - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return maat_error_set(err, MAAT_EIO,
                                  "cannot draw a seed from the OS "
                                  "(getrandom: %s)",
                                  n < 0 ? strerror(errno) : "no bytes");
        got += (size_t)n;
    }
    return MAAT_OK;
}

void maat_seed_derive(maat_seed *out, const maat_seed *key, const char *label)
{
    crypto_generichash(out->b, sizeof out->b, (const unsigned char *)label,
                       strlen(label), key->b, sizeof key->b);
}

int maat_seed_equal(const maat_seed *a, const maat_seed *b)
{
    return memcmp(a->b, b->b, sizeof a->b) == 0;
}

int maat_seed_read_file(maat_seed *s, const char *path, maat_error *err)
{
    int std = !strcmp(path, "-");
    int fd = std ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return maat_error_set(err, MAAT_EIO, "cannot open the seed file %s: "
                              "%s", path, strerror(errno));
    /* one line of at most 64 characters: read a little more, up to EOF or
     * the first newline, and never block on more than that */
    char buf[2 * MAAT_SEED_BYTES + 16];
    size_t len = 0;
    while (len < sizeof buf - 1 && !memchr(buf, '\n', len)) {
        ssize_t n = read(fd, buf + len, sizeof buf - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            if (!std)
                close(fd);
            return maat_error_set(err, MAAT_EIO, "cannot read the seed file "
                                  "%s: %s", path, strerror(e));
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    if (!std)
        close(fd);
    buf[len] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    len = strlen(buf);
    while (len && (buf[len - 1] == ' ' || buf[len - 1] == '\t' ||
                   buf[len - 1] == '\r'))
        buf[--len] = '\0';
    maat_error e = {0};
    if (maat_seed_parse(s, buf, &e) != MAAT_OK)
        return maat_error_set(err, MAAT_EINVAL, "seed file %s: %s", path,
                              e.msg);
    return MAAT_OK;
}

int maat_seed_write_file(const maat_seed *s, const char *path,
                         maat_error *err)
{
    char text[MAAT_SEED_TEXT + 1];
    maat_seed_format(s, text);
    strcat(text, "\n");
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return maat_error_set(err, MAAT_EIO, "cannot create the seed file "
                              "%s: %s", path, strerror(errno));
    size_t len = strlen(text);
    ssize_t n = write(fd, text, len);
    int e = n < 0 ? errno : EIO;
    if (close(fd) != 0 && n == (ssize_t)len) {
        n = -1;
        e = errno;
    }
    if (n != (ssize_t)len) {
        unlink(path);
        return maat_error_set(err, MAAT_EIO, "cannot write the seed file %s: "
                              "%s", path, strerror(e));
    }
    return MAAT_OK;
}

int maat_seed_key_file(maat_seed *s, const char *path, maat_error *err)
{
    /* two processes may race to create it: the loser reads the winner's */
    for (int attempt = 0; attempt < 2; attempt++) {
        struct stat st;
        if (stat(path, &st) == 0) {
            if (st.st_mode & 077)
                return maat_error_set(err, MAAT_EINVAL,
                                      "the key file %s may be read by others "
                                      "(mode %03o): chmod 600 %s",
                                      path, (unsigned)st.st_mode & 0777, path);
            return maat_seed_read_file(s, path, err);
        }
        if (errno != ENOENT)
            return maat_error_set(err, MAAT_EIO, "cannot read the key file "
                                  "%s: %s", path, strerror(errno));
        int rc = maat_seed_random(s, err);
        if (rc)
            return rc;
        rc = maat_seed_write_file(s, path, err);
        if (rc == MAAT_OK || attempt == 1)
            return rc;
    }
    return MAAT_EIO;
}

/* ---- the stream --------------------------------------------------------- */

void maat_rng_seed(maat_rng *r, const maat_seed *s)
{
    /* Picks libsodium's fastest ChaCha20 for this CPU (the output is the
     * same; if it fails, the portable one stays); cheap after the first
     * call, safe from any thread. */
    int picked = sodium_init();
    (void)picked;
    memcpy(r->key, s->b, sizeof r->key);
    r->block = 0;
    r->pos = MAAT_RNG_WORDS;
}

/* The next blocks of ChaCha20 with this key and a zero 64-bit nonce:
 * the keystream XORed over a constant block of zeros (no buffer to clear
 * first); the words are little-endian.  The buffer is filled, except for
 * a forked stream's first refill (pos past the end: maat_rng_fork), which
 * makes one block into its last 16 words: a stream forked for one turn
 * that draws a few words (a random bot's choice) costs one block, not
 * eight, and a game's deal, which draws hundreds, still gets eight at
 * once.  The words drawn are the same either way. */
void maat_rng_refill(maat_rng *r)
{
    static const unsigned char nonce[crypto_stream_chacha20_NONCEBYTES];
    static const unsigned char zeros[sizeof r->word];
    uint32_t from = r->pos > MAAT_RNG_WORDS ? MAAT_RNG_WORDS - 16 : 0;
    size_t bytes = sizeof r->word - sizeof r->word[0] * from;
    crypto_stream_chacha20_xor_ic((unsigned char *)(r->word + from), zeros,
                                  bytes, nonce, r->block, r->key);
    r->block += bytes / 64;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    for (uint32_t i = from; i < MAAT_RNG_WORDS; i++)
        r->word[i] = __builtin_bswap32(r->word[i]);
#endif
    r->pos = from;
}

void maat_rng_fork(maat_rng *r, maat_rng *child)
{
    maat_seed k;
    for (int i = 0; i < MAAT_SEED_BYTES / 4; i++) {
        uint32_t w = maat_rng_next32(r);
        for (int j = 0; j < 4; j++)
            k.b[4 * i + j] = (uint8_t)(w >> (8 * j));
    }
    memcpy(child->key, k.b, sizeof child->key);
    child->block = 0;
    child->pos = MAAT_RNG_WORDS + 1; /* used up; its first refill is small */
}

uint64_t maat_rng_next(maat_rng *r)
{
    uint64_t lo = maat_rng_next32(r);
    return lo | (uint64_t)maat_rng_next32(r) << 32;
}

/* The external definition of the inline draw (rng.h). */
extern uint32_t maat_rng_below(maat_rng *r, uint32_t n);

/* Fisher-Yates from the last index down, each index drawing as
 * maat_rng_below does, for elements of `size` bytes (a constant in each
 * caller, so the swap is two loads and two stores).  The indices that the
 * buffered words can serve, one word each, run in an inner loop with no
 * refill check and the read position in a register; a redraw (rare: the
 * low word below the threshold) takes its words through maat_rng_next32
 * and ends that run. */
static inline void swap(unsigned char *x, unsigned char *y, size_t size)
{
    unsigned char t[sizeof(int)];
    memcpy(t, x, size);
    memcpy(x, y, size);
    memcpy(y, t, size);
}

static inline __attribute__((always_inline)) void
shuffle(maat_rng *r, unsigned char *a, int n, size_t size)
{
    int i = n - 1;
    while (i > 0) {
        if (r->pos >= MAAT_RNG_WORDS)
            maat_rng_refill(r);
        uint32_t p = r->pos;
        int last = i - (int)(MAAT_RNG_WORDS - p) + 1;
        if (last < 1)
            last = 1;
        /* index i draws word[p + (first - i)]: i is the only counter;
         * two indices a turn (half the loop's own instructions) */
        const uint32_t *w = r->word + p + i;
        int first = i;
#define SHUFFLE_STEP(k)                                                      \
    do {                                                                     \
        uint32_t bound = (uint32_t)(k) + 1;                                  \
        uint64_t m = (uint64_t)*(w - (k)) * bound;                           \
        unsigned char *x = a + size * (size_t)(k);                           \
        if ((uint32_t)m < bound) {                                           \
            uint32_t threshold = (uint32_t)(0u - bound) % bound;             \
            if ((uint32_t)m < threshold) { /* a redraw: ends the run */      \
                r->pos = p + (uint32_t)(first - (k)) + 1;                    \
                while ((uint32_t)m < threshold)                              \
                    m = (uint64_t)maat_rng_next32(r) * bound;                \
                swap(x, a + size * (size_t)(m >> 32), size);                 \
                i = (k) - 1;                                                 \
                goto next_run;                                               \
            }                                                                \
        }                                                                    \
        swap(x, a + size * (size_t)(m >> 32), size);                         \
    } while (0)
        for (; i - 1 >= last; i -= 2) {
            SHUFFLE_STEP(i);
            SHUFFLE_STEP(i - 1);
        }
        if (i >= last) {
            SHUFFLE_STEP(i);
            i--;
        }
#undef SHUFFLE_STEP
        r->pos = p + (uint32_t)(first - i);
    next_run:;
    }
}

void maat_rng_shuffle_u8(maat_rng *r, uint8_t *a, int n)
{
    shuffle(r, a, n, 1);
}

void maat_rng_shuffle_int(maat_rng *r, int *a, int n)
{
    shuffle(r, (unsigned char *)a, n, sizeof *a);
}
