/* msgcheck.c -- the byte-level gate in front of msgpack-c.
 *
 * msgpack-c believes every length it reads and allocates for a container
 * before a single element has arrived, so five hostile bytes can ask it
 * for gigabytes.  This file walks the raw bytes once, without allocating
 * and without recursion, and only lets through exactly one complete object
 * whose every declared length and count fits in the bytes that remain and
 * whose nesting stays within MAAT_MSG_MAX_DEPTH.  Ext types and the unused
 * 0xc1 are refused because no maat message uses them.  Every refusal names
 * the byte offset so that a bot author can find the bad byte in a dump.
 */
#include <stdint.h>

#include "maat/msg.h"

/* msgpack-c 4.0 refuses a 33rd nested container (its compiled-in
 * MSGPACK_EMBED_STACK_SIZE, not visible from <msgpack.h>); a deeper limit
 * here would pass messages that msgpack-c then fails to decode. */
_Static_assert(MAAT_MSG_MAX_DEPTH <= 32, "msgpack-c nests at most 32 deep");

/* What a type byte announces. */
enum kind {
    K_SCALAR, /* n payload bytes follow */
    K_BYTES,  /* str/bin: n bytes of data follow */
    K_ARRAY,  /* n elements follow */
    K_MAP,    /* n key/value pairs follow */
    K_EXT,    /* an ext type: refused */
    K_UNUSED  /* 0xc1: refused */
};

struct head {
    enum kind kind;
    const char *name;
    unsigned width; /* bytes of length/count field after the type byte */
    uint64_t n;     /* length or count when it sits in the type byte */
};

/* The type bytes 0xc0..0xdf, in the order of the format spec. */
static const struct head typed[32] = {
    { K_SCALAR, "nil", 0, 0 },      { K_UNUSED, "never used", 0, 0 },
    { K_SCALAR, "false", 0, 0 },    { K_SCALAR, "true", 0, 0 },
    { K_BYTES, "bin8", 1, 0 },      { K_BYTES, "bin16", 2, 0 },
    { K_BYTES, "bin32", 4, 0 },     { K_EXT, "ext8", 0, 0 },
    { K_EXT, "ext16", 0, 0 },       { K_EXT, "ext32", 0, 0 },
    { K_SCALAR, "float32", 0, 4 },  { K_SCALAR, "float64", 0, 8 },
    { K_SCALAR, "uint8", 0, 1 },    { K_SCALAR, "uint16", 0, 2 },
    { K_SCALAR, "uint32", 0, 4 },   { K_SCALAR, "uint64", 0, 8 },
    { K_SCALAR, "int8", 0, 1 },     { K_SCALAR, "int16", 0, 2 },
    { K_SCALAR, "int32", 0, 4 },    { K_SCALAR, "int64", 0, 8 },
    { K_EXT, "fixext1", 0, 0 },     { K_EXT, "fixext2", 0, 0 },
    { K_EXT, "fixext4", 0, 0 },     { K_EXT, "fixext8", 0, 0 },
    { K_EXT, "fixext16", 0, 0 },    { K_BYTES, "str8", 1, 0 },
    { K_BYTES, "str16", 2, 0 },     { K_BYTES, "str32", 4, 0 },
    { K_ARRAY, "array16", 2, 0 },   { K_ARRAY, "array32", 4, 0 },
    { K_MAP, "map16", 2, 0 },       { K_MAP, "map32", 4, 0 },
};

/* Decode the type byte c.  When width is nonzero the caller reads n from
 * the next `width` bytes, big-endian, as the format spec says. */
static struct head classify(unsigned char c)
{
    if (c <= 0x7f)
        return (struct head){ K_SCALAR, "positive fixint", 0, 0 };
    if (c <= 0x8f)
        return (struct head){ K_MAP, "fixmap", 0, c & 0x0f };
    if (c <= 0x9f)
        return (struct head){ K_ARRAY, "fixarray", 0, c & 0x0f };
    if (c <= 0xbf)
        return (struct head){ K_BYTES, "fixstr", 0, c & 0x1f };
    if (c <= 0xdf)
        return typed[c - 0xc0];
    return (struct head){ K_SCALAR, "negative fixint", 0, 0 };
}

int maat_msg_check(const void *buf, size_t len, maat_error *err)
{
    const unsigned char *b = buf;
    size_t p = 0;

    if (!buf || len == 0)
        return maat_error_set(err, MAAT_EDECODE, "byte 0: empty message");

    /* left[d] = objects still owed to the container open at depth d; level
     * 0 stands for the single top-level object.  The walk is a loop over
     * this array, so hostile nesting costs no C stack. */
    uint64_t left[MAAT_MSG_MAX_DEPTH + 1];
    unsigned depth = 0;
    left[0] = 1;

    for (;;) {
        while (left[depth] == 0 && depth > 0)
            depth--;
        if (left[depth] == 0)
            break; /* the top-level object is complete */
        left[depth]--;

        size_t at = p;
        if (p == len)
            return maat_error_set(err, MAAT_EDECODE,
                                  "byte %zu: message ends where an object "
                                  "should start", at);
        unsigned char c = b[p++];
        struct head h = classify(c);

        if (h.kind == K_UNUSED)
            return maat_error_set(err, MAAT_EDECODE,
                                  "byte %zu: type byte 0xc1 is never used "
                                  "in msgpack", at);
        if (h.kind == K_EXT)
            return maat_error_set(err, MAAT_EDECODE,
                                  "byte %zu: %s (0x%02x) is an ext type; "
                                  "ext types are not accepted", at, h.name, c);

        if (h.width > len - p)
            return maat_error_set(err, MAAT_EDECODE,
                                  "byte %zu: %s needs a %u-byte length but "
                                  "only %zu bytes remain", at, h.name,
                                  h.width, len - p);
        for (unsigned i = 0; i < h.width; i++)
            h.n = h.n << 8 | b[p++];

        size_t rem = len - p;
        switch (h.kind) {
        case K_SCALAR:
            if (h.n > rem)
                return maat_error_set(err, MAAT_EDECODE,
                                      "byte %zu: %s needs %u bytes but only "
                                      "%zu remain", at, h.name,
                                      (unsigned)h.n, rem);
            p += (size_t)h.n;
            break;
        case K_BYTES:
            if (h.n > rem)
                return maat_error_set(err, MAAT_EDECODE,
                                      "byte %zu: %s declares %llu bytes but "
                                      "only %zu remain", at, h.name,
                                      (unsigned long long)h.n, rem);
            p += (size_t)h.n;
            break;
        case K_ARRAY:
        case K_MAP:
            /* Every element takes at least one byte, every pair two.  The
             * walk would fail at the end of the bytes anyway; refusing the
             * count here is immediate and names the lie. */
            if (h.kind == K_ARRAY ? h.n > rem : h.n > rem / 2)
                return maat_error_set(err, MAAT_EDECODE,
                                      "byte %zu: %s declares %llu %s but "
                                      "only %zu bytes remain", at, h.name,
                                      (unsigned long long)h.n,
                                      h.kind == K_ARRAY ? "elements"
                                                        : "entries", rem);
            if (depth == MAAT_MSG_MAX_DEPTH)
                return maat_error_set(err, MAAT_EDECODE,
                                      "byte %zu: %s nests deeper than %d "
                                      "containers", at, h.name,
                                      MAAT_MSG_MAX_DEPTH);
            left[++depth] = h.kind == K_ARRAY ? h.n : 2 * h.n;
            break;
        default:
            break; /* K_EXT and K_UNUSED returned above */
        }
    }

    if (p != len)
        return maat_error_set(err, MAAT_EDECODE,
                              "byte %zu: %zu trailing byte(s) after the "
                              "message", p, len - p);
    return MAAT_OK;
}
