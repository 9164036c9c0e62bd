/* msgcheck.c -- the byte-level gate for msgpack from strangers, and the
 * decoder behind it.
 *
 * msgpack-c believes every length it reads and allocates for a container
 * before a single element has arrived, so five hostile bytes can ask it
 * for gigabytes.  This file walks the raw bytes once, without recursion,
 * and only lets through exactly one complete object whose every declared
 * length and count fits in the bytes that remain and whose nesting stays
 * within MAAT_MSG_MAX_DEPTH.  Ext types and the unused 0xc1 are refused
 * because no maat message uses them.  Every refusal names the byte offset
 * so that a bot author can find the bad byte in a dump.
 *
 * The same walk can also build the decoded object (maat_msg_decode): the
 * msgpack_object tree msgpack_unpack would build, its containers in a
 * msgpack-c zone, its strings pointing into the input.  Checking first and
 * then asking msgpack-c to decode read every byte twice and was half of
 * an SDK bot's time per request (docs/PERFORMANCE.md); one walk that both
 * checks and builds is one definition of what is accepted, at half the
 * cost.  Tests compare its trees with msgpack_unpack's on random and
 * mutated input (tests/test_msgcheck.c, tests/fuzz/fuzz_msgcheck.c).
 */
#include <stdint.h>
#include <string.h>

#include "maat/internal/msg.h"

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

/* Big-endian unsigned of n bytes at p. */
static uint64_t be(const unsigned char *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* The value of scalar type byte c (not a positive fixint: the walk
 * decodes those itself) with its payload at p (already checked to be
 * there), as msgpack_unpack decodes it: signed types holding a value >= 0
 * become positive integers. */
static void scalar(unsigned char c, const unsigned char *p, msgpack_object *o)
{
    int64_t i = 0;
    if (c >= 0xe0) {
        o->type = MSGPACK_OBJECT_NEGATIVE_INTEGER;
        o->via.i64 = (int8_t)c;
        return;
    }
    switch (c) {
    case 0xc0:
        o->type = MSGPACK_OBJECT_NIL;
        return;
    case 0xc2:
    case 0xc3:
        o->type = MSGPACK_OBJECT_BOOLEAN;
        o->via.boolean = c == 0xc3;
        return;
    case 0xca: {
        uint32_t bits = (uint32_t)be(p, 4);
        float f;
        memcpy(&f, &bits, sizeof f);
        o->type = MSGPACK_OBJECT_FLOAT32;
        o->via.f64 = f;
        return;
    }
    case 0xcb: {
        uint64_t bits = be(p, 8);
        memcpy(&o->via.f64, &bits, sizeof o->via.f64);
        o->type = MSGPACK_OBJECT_FLOAT64;
        return;
    }
    case 0xcc: case 0xcd: case 0xce: case 0xcf:
        o->type = MSGPACK_OBJECT_POSITIVE_INTEGER;
        o->via.u64 = be(p, 1u << (c - 0xcc));
        return;
    case 0xd0: i = (int8_t)p[0]; break;
    case 0xd1: i = (int16_t)(uint16_t)be(p, 2); break;
    case 0xd2: i = (int32_t)(uint32_t)be(p, 4); break;
    default: i = (int64_t)be(p, 8); break; /* 0xd3 */
    }
    if (i < 0) {
        o->type = MSGPACK_OBJECT_NEGATIVE_INTEGER;
        o->via.i64 = i;
    } else {
        o->type = MSGPACK_OBJECT_POSITIVE_INTEGER;
        o->via.u64 = (uint64_t)i;
    }
}

/* The walk.  With `build` (and a zone), each object is also written
 * where it belongs: the top-level one to *out, the others into the
 * element array of the container open at their depth.  Without it
 * (checking only), every object is written to one scratch object and
 * nothing is allocated, so both modes run the same code with no test per
 * object.  Inlined into each caller with `build` a constant, so that the
 * step from one object to the next is one too (a variable step cost the
 * loop a register, and a spill of the slot per object). */
static inline __attribute__((always_inline)) int
walk(const void *buf, size_t len, msgpack_zone *zone, msgpack_object *out,
     maat_error *err, const int build)
{
    const unsigned char *b = buf;
    size_t p = 0;

    if (!buf || len == 0)
        return maat_error_set(err, MAAT_EDECODE, "byte 0: empty message");

    /* left = objects still owed to the container open now, slot = where
     * the next of them goes; the containers around it wait on a stack
     * (depth of them), so hostile nesting costs no C stack.  Level 0
     * stands for the single top-level object.  A map's key and value sit
     * next to each other in msgpack_object_kv, so both kinds of container
     * are filled by stepping through consecutive objects. */
    uint64_t left_at[MAAT_MSG_MAX_DEPTH + 1];
    msgpack_object *slot_at[MAAT_MSG_MAX_DEPTH + 1];
    msgpack_object scratch;
    unsigned depth = 0;
    uint64_t left = 1;
    /* Every allocation below is a multiple of 24 bytes: when the zone's
     * next free byte is aligned (it is after msgpack_zone_clear, and our
     * allocations keep it so; a new chunk starts aligned), it stays
     * aligned without the arithmetic msgpack_zone_malloc repeats for each
     * container.  A zone someone left unaligned gets msgpack_zone_malloc. */
    _Static_assert(sizeof(msgpack_object) % MSGPACK_ZONE_ALIGN == 0,
                   "objects keep the zone aligned");
    const int aligned = build && ((uintptr_t)zone->chunk_list.ptr &
                                  (MSGPACK_ZONE_ALIGN - 1)) == 0;
    const size_t step = build ? 1 : 0; /* checking only: the scratch */
    msgpack_object *slot = build ? out : &scratch;
    _Static_assert(sizeof(msgpack_object_kv) == 2 * sizeof(msgpack_object),
                   "a map entry is a key object then a value object");

    for (;;) {
        while (left == 0) {
            if (depth == 0)
                goto done; /* the top-level object is complete */
            depth--;
            left = left_at[depth];
            slot = slot_at[depth];
        }
        left--;
        msgpack_object *o = slot;
        slot += step;

        size_t at = p;
        if (p == len)
            return maat_error_set(err, MAAT_EDECODE,
                                  "byte %zu: message ends where an object "
                                  "should start", at);
        unsigned char c = b[p++];

        /* The common objects first: small integers, short strings,
         * nil and booleans (most of a maat message). */
        if (c <= 0x7f) {
            o->type = MSGPACK_OBJECT_POSITIVE_INTEGER;
            o->via.u64 = c;
            continue;
        }
        if ((c & 0xe0) == 0xa0) {
            size_t n = c & 0x1f;
            if (n > len - p)
                return maat_error_set(err, MAAT_EDECODE,
                                      "byte %zu: fixstr declares %zu bytes "
                                      "but only %zu remain", at, n, len - p);
            o->type = MSGPACK_OBJECT_STR;
            o->via.str.size = (uint32_t)n;
            o->via.str.ptr = (const char *)b + p;
            p += n;
            continue;
        }
        uint64_t n;
        int map;
        if ((c & 0xe0) == 0x80) { /* fixmap, fixarray: the count in c */
            n = c & 0x0f;
            map = c < 0x90;
            if ((n << map) <= len - p && depth < MAAT_MSG_MAX_DEPTH)
                goto open;
            /* else the general case below refuses it, with its message */
        } else if (c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3) {
            scalar(c, NULL, o);
            continue;
        }

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
        if (h.width) {
            h.n = be(b + p, h.width);
            p += h.width;
        }

        size_t rem = len - p;
        switch (h.kind) {
        case K_SCALAR:
            if (h.n > rem)
                return maat_error_set(err, MAAT_EDECODE,
                                      "byte %zu: %s needs %u bytes but only "
                                      "%zu remain", at, h.name,
                                      (unsigned)h.n, rem);
            scalar(c, b + p, o);
            p += (size_t)h.n;
            break;
        case K_BYTES:
            if (h.n > rem)
                return maat_error_set(err, MAAT_EDECODE,
                                      "byte %zu: %s declares %llu bytes but "
                                      "only %zu remain", at, h.name,
                                      (unsigned long long)h.n, rem);
            o->type = c >= 0xc4 && c <= 0xc6 ? MSGPACK_OBJECT_BIN
                                             : MSGPACK_OBJECT_STR;
            o->via.str.size = (uint32_t)h.n; /* bin has the same shape */
            o->via.str.ptr = (const char *)b + p;
            p += (size_t)h.n;
            break;
        case K_ARRAY:
        case K_MAP: {
            /* Every element takes at least one byte, every pair two.  The
             * walk would fail at the end of the bytes anyway; refusing the
             * count here is immediate and names the lie.  It also bounds
             * what building allocates: 24 bytes per byte of input. */
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
            n = h.n;
            map = h.kind == K_MAP;
            goto open;
        }
        default:
            break; /* K_EXT and K_UNUSED returned above */
        }
        continue;

    open: { /* a container of n elements (pairs when map), checked */
            uint64_t objects = n << map;
            msgpack_object *elems = NULL;
            if (build && objects) {
                size_t bytes = (size_t)objects * sizeof(msgpack_object);
                elems = aligned ? msgpack_zone_malloc_no_align(zone, bytes)
                                : msgpack_zone_malloc(zone, bytes);
                if (!elems)
                    return maat_error_set(err, MAAT_ENOMEM,
                                          "byte %zu: out of memory for "
                                          "%llu objects", at,
                                          (unsigned long long)objects);
            }
            if (map) {
                o->type = MSGPACK_OBJECT_MAP;
                o->via.map.size = (uint32_t)n;
                o->via.map.ptr = (msgpack_object_kv *)(void *)elems;
            } else {
                o->type = MSGPACK_OBJECT_ARRAY;
                o->via.array.size = (uint32_t)n;
                o->via.array.ptr = elems;
            }
            left_at[depth] = left;
            slot_at[depth] = slot;
            depth++;
            left = objects;
            slot = build ? elems : &scratch;
        }
    }

done:
    if (p != len)
        return maat_error_set(err, MAAT_EDECODE,
                              "byte %zu: %zu trailing byte(s) after the "
                              "message", p, len - p);
    return MAAT_OK;
}

int maat_msg_check(const void *buf, size_t len, maat_error *err)
{
    return walk(buf, len, NULL, NULL, err, 0);
}

int maat_msg_decode(const void *buf, size_t len, msgpack_zone *zone,
                    msgpack_object *out, maat_error *err)
{
    int rc = zone ? walk(buf, len, zone, out, err, 1)
                  : walk(buf, len, NULL, NULL, err, 0);
    if (rc)
        out->type = MSGPACK_OBJECT_NIL;
    return rc;
}

/* ---- a bot's usual answer, in one pass --------------------------------
 * The referee reads an answer per decision, and nearly every one has the
 * shape our SDK and the example bots write: a fixmap of "type" ("action"),
 * "seq", "action" (a fixmap of scalars) and "think_us", each once, with
 * scalar values.  Walking it into a zone and then searching the map for
 * its keys cost more than a thousand instructions; this reads the same
 * bytes once, straight into the objects the walk would build for those
 * four values.  It only ever accepts bytes the walk accepts (one complete
 * object, every length inside the bytes, no ext, depth 2), and gives
 * nothing for anything else, so its caller's verdict and messages are the
 * general path's by construction (tests/test_answer_read.c and
 * tests/fuzz/fuzz_answer.c compare the two). */

/* One scalar at b[*pp] into *o, as the walk decodes it (integers, nil,
 * booleans, fixstr); 0 when the byte starts anything else or its payload
 * is not all there. */
static inline int read_scalar(const unsigned char *b, size_t len, size_t *pp,
                              msgpack_object *o)
{
    size_t p = *pp;
    if (p >= len)
        return 0;
    unsigned char c = b[p++];
    if (c <= 0x7f) {
        o->type = MSGPACK_OBJECT_POSITIVE_INTEGER;
        o->via.u64 = c;
    } else if ((c & 0xe0) == 0xa0) {
        size_t n = c & 0x1f;
        if (n > len - p)
            return 0;
        o->type = MSGPACK_OBJECT_STR;
        o->via.str.size = (uint32_t)n;
        o->via.str.ptr = (const char *)b + p;
        p += n;
    } else if (c >= 0xcc && c <= 0xcf) { /* uint8..64: seq, think_us */
        size_t n = (size_t)1 << (c - 0xcc);
        if (n > len - p)
            return 0;
        o->type = MSGPACK_OBJECT_POSITIVE_INTEGER;
        o->via.u64 = be(b + p, (unsigned)n);
        p += n;
    } else if (c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3) {
        scalar(c, NULL, o);
    } else if (c >= 0xd0 && c <= 0xd3) { /* int8..64 */
        size_t n = (size_t)1 << ((c - 0xcc) & 3);
        if (n > len - p)
            return 0;
        scalar(c, b + p, o);
        p += n;
    } else {
        return 0;
    }
    *pp = p;
    return 1;
}

int maat_msg_read_answer(const void *buf, size_t len, maat_msg_answer *store,
                         const msgpack_object *f[4])
{
    /* what our SDK writes first: {type: action, seq: (4 entries) */
    static const unsigned char usual[17] = {
        0x84, 0xa4, 't', 'y', 'p', 'e', 0xa6, 'a', 'c', 't', 'i', 'o', 'n',
        0xa3, 's', 'e', 'q'};
    const unsigned char *b = buf;
    f[0] = f[1] = f[2] = f[3] = NULL;
    if (!buf || len == 0 || (b[0] & 0xf0) != 0x80)
        return 0;
    unsigned n = b[0] & 0x0f, i = 0;
    size_t p = 1;
    if (len > sizeof usual && maat_msg_name_is((const char *)usual, 16,
                                               buf, 16) && b[16] == 'q') {
        msgpack_object *t = &store->field[0];
        t->type = MSGPACK_OBJECT_STR;
        t->via.str.size = 6;
        t->via.str.ptr = (const char *)b + 7;
        f[0] = t;
        p = sizeof usual;
        if (!read_scalar(b, len, &p, &store->field[1]))
            goto none;
        f[1] = &store->field[1];
        i = 2;
    }
    for (; i < n; i++) {
        if (p >= len || (b[p] & 0xe0) != 0xa0)
            goto none;
        size_t kl = b[p] & 0x1f;
        if (kl > len - p - 1)
            goto none;
        const char *k = (const char *)b + p + 1;
        p += 1 + kl;
        int j = maat_msg_name_is("action", 6, k, kl)     ? 2
                : maat_msg_name_is("think_us", 8, k, kl) ? 3
                : maat_msg_name_is("type", 4, k, kl)     ? 0
                : maat_msg_name_is("seq", 3, k, kl)      ? 1
                                                         : -1;
        if (j < 0 || f[j]) /* unknown or repeated: the general path */
            goto none;
        msgpack_object *v = &store->field[j];
        if (j == 2) { /* the action: a fixmap of scalars */
            if (p >= len || (b[p] & 0xf0) != 0x80)
                goto none;
            unsigned m = b[p++] & 0x0f;
            msgpack_object_kv *e = store->action;
            for (unsigned x = 0; x < m; x++)
                if (!read_scalar(b, len, &p, &e[x].key) ||
                    !read_scalar(b, len, &p, &e[x].val))
                    goto none;
            v->type = MSGPACK_OBJECT_MAP;
            v->via.map.size = m;
            /* (the walk gives an empty container no elements) */
            v->via.map.ptr = m ? e : NULL;
        } else if (!read_scalar(b, len, &p, v)) {
            goto none;
        }
        f[j] = v;
    }
    if (p == len && MAAT_MSG_STR_IS(f[0], "action"))
        return 1;
none:
    f[0] = f[1] = f[2] = f[3] = NULL;
    return 0;
}
