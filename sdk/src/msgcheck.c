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

/* Decode the type byte c.  When width is nonzero the caller reads n from
 * the next `width` bytes, big-endian, as the format spec says. */
static struct head classify(unsigned char c)
{
    struct head h = { K_SCALAR, "", 0, 0 };

    if (c <= 0x7f) { h.name = "positive fixint"; return h; }
    if (c >= 0xe0) { h.name = "negative fixint"; return h; }
    if (c <= 0x8f) { h.kind = K_MAP; h.name = "fixmap"; h.n = c & 0x0f; return h; }
    if (c <= 0x9f) { h.kind = K_ARRAY; h.name = "fixarray"; h.n = c & 0x0f; return h; }
    if (c <= 0xbf) { h.kind = K_BYTES; h.name = "fixstr"; h.n = c & 0x1f; return h; }

    switch (c) {
    case 0xc0: h.name = "nil"; break;
    case 0xc1: h.kind = K_UNUSED; h.name = "never used"; break;
    case 0xc2: h.name = "false"; break;
    case 0xc3: h.name = "true"; break;
    case 0xc4: h.kind = K_BYTES; h.name = "bin8"; h.width = 1; break;
    case 0xc5: h.kind = K_BYTES; h.name = "bin16"; h.width = 2; break;
    case 0xc6: h.kind = K_BYTES; h.name = "bin32"; h.width = 4; break;
    case 0xc7: h.kind = K_EXT; h.name = "ext8"; break;
    case 0xc8: h.kind = K_EXT; h.name = "ext16"; break;
    case 0xc9: h.kind = K_EXT; h.name = "ext32"; break;
    case 0xca: h.name = "float32"; h.n = 4; break;
    case 0xcb: h.name = "float64"; h.n = 8; break;
    case 0xcc: h.name = "uint8"; h.n = 1; break;
    case 0xcd: h.name = "uint16"; h.n = 2; break;
    case 0xce: h.name = "uint32"; h.n = 4; break;
    case 0xcf: h.name = "uint64"; h.n = 8; break;
    case 0xd0: h.name = "int8"; h.n = 1; break;
    case 0xd1: h.name = "int16"; h.n = 2; break;
    case 0xd2: h.name = "int32"; h.n = 4; break;
    case 0xd3: h.name = "int64"; h.n = 8; break;
    case 0xd4: h.kind = K_EXT; h.name = "fixext1"; break;
    case 0xd5: h.kind = K_EXT; h.name = "fixext2"; break;
    case 0xd6: h.kind = K_EXT; h.name = "fixext4"; break;
    case 0xd7: h.kind = K_EXT; h.name = "fixext8"; break;
    case 0xd8: h.kind = K_EXT; h.name = "fixext16"; break;
    case 0xd9: h.kind = K_BYTES; h.name = "str8"; h.width = 1; break;
    case 0xda: h.kind = K_BYTES; h.name = "str16"; h.width = 2; break;
    case 0xdb: h.kind = K_BYTES; h.name = "str32"; h.width = 4; break;
    case 0xdc: h.kind = K_ARRAY; h.name = "array16"; h.width = 2; break;
    case 0xdd: h.kind = K_ARRAY; h.name = "array32"; h.width = 4; break;
    case 0xde: h.kind = K_MAP; h.name = "map16"; h.width = 2; break;
    default:   h.kind = K_MAP; h.name = "map32"; h.width = 4; break; /* 0xdf */
    }
    return h;
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
            /* Every element takes at least one byte, every pair two: a
             * count that cannot fit is refused before anyone allocates. */
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
