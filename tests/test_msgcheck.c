/* test_msgcheck.c -- maat_msg_check against msgpack-c's own packer and
 * against hostile bytes.
 *
 * The validator is only useful if it is exactly as strict as it claims:
 * everything msgpack-c's packer writes (without ext) must pass and decode
 * the same through maat_msg_unpack, and anything it passes must be safe to
 * hand to msgpack_unpack_next.  The second half is checked with a fixed-
 * seed mutation loop so that a failure reproduces on every machine.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "msgtree.h"
#include "maat/internal/msg.h"

/* CHECK from check.h, for helpers that report their caller's file:line
 * and for callers that need the verdict. */
static int check_at(int ok, const char *what, const char *file, int line)
{
    check_count++;
    if (!ok) {
        check_failures++;
        fprintf(stderr, "%s:%d: FAILED %s\n", file, line, what);
    }
    return ok;
}

/* ---- helpers ---- */

static msgpack_sbuffer sb;
static msgpack_packer pk;
static msgpack_unpacked up; /* result of the last decode() */

static void fresh(void)
{
    msgpack_sbuffer_clear(&sb);
}

/* What a failed lookup or decode returns: an EXT object, a type no
 * accepted message can contain, so no value check passes by accident. */
static const msgpack_object missing = { .type = MSGPACK_OBJECT_EXT };

#define EXPECT_OK(b, n) expect_ok_((b), (n), __FILE__, __LINE__)
#define EXPECT_BAD(b, n) expect_bad_((b), (n), NULL, __FILE__, __LINE__)
#define EXPECT_BAD_MSG(b, n, s) expect_bad_((b), (n), (s), __FILE__, __LINE__)

static int expect_ok_(const void *b, size_t n, const char *file, int line)
{
    maat_error e = { 0, "" };
    int ok = check_at(maat_msg_check(b, n, &e) == MAAT_OK,
                      "maat_msg_check accepts", file, line);
    if (!ok)
        fprintf(stderr, "    (%s)\n", e.msg);
    return ok;
}

/* Refused with MAAT_EDECODE, a message naming the byte offset, and (when
 * given) a message containing `want`.  Also refused when err is NULL. */
static void expect_bad_(const void *b, size_t n, const char *want,
                        const char *file, int line)
{
    maat_error e = { 0, "" };
    int rc = maat_msg_check(b, n, &e);
    check_at(rc == MAAT_EDECODE, "rc == MAAT_EDECODE", file, line);
    check_at(e.code == MAAT_EDECODE, "err.code == MAAT_EDECODE", file, line);
    check_at(strncmp(e.msg, "byte ", 5) == 0, "message names the byte",
             file, line);
    if (want && !check_at(strstr(e.msg, want) != NULL, "message has reason",
                          file, line))
        fprintf(stderr, "    wanted \"%s\" in \"%s\"\n", want, e.msg);
    check_at(maat_msg_check(b, n, NULL) == MAAT_EDECODE, "NULL err refused",
             file, line);
}

/* The packed bytes in sb start with `type`, pass the check and go through
 * maat_msg_unpack.  Returns the decoded object (it lives in `up`). */
#define DECODE(type) decode_((type), __FILE__, __LINE__)

static const msgpack_object *decode_(unsigned char type, const char *file,
                                     int line)
{
    maat_error e = { 0, "" };
    unsigned char first = sb.size ? (unsigned char)sb.data[0] : 0;

    if (!check_at(first == type, "packer wrote the expected type byte", file,
                  line))
        fprintf(stderr, "    wanted 0x%02x got 0x%02x\n", type, first);
    msgpack_unpacked_destroy(&up);
    if (!expect_ok_(sb.data, sb.size, file, line))
        return &missing;
    int ok = check_at(maat_msg_unpack(sb.data, sb.size, &up, &e) == MAAT_OK,
                      "maat_msg_unpack succeeds", file, line);
    if (!ok)
        fprintf(stderr, "    (%s)\n", e.msg);
    return ok ? &up.data : &missing;
}

static const msgpack_object *get(const msgpack_object *map, const char *key)
{
    const msgpack_object *o = maat_msg_get(map, key);
    return o ? o : &missing;
}

static int is_uint(const msgpack_object *o, uint64_t v)
{
    return o && o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 == v;
}

static int is_int(const msgpack_object *o, int64_t v)
{
    return o && o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER && o->via.i64 == v;
}

/* A deterministic byte pattern so that large str/bin bodies can be checked. */
static unsigned char pattern(size_t i)
{
    return (unsigned char)(i * 7 + i / 251);
}

static void pack_pattern_str(size_t n)
{
    msgpack_pack_str(&pk, n);
    for (size_t i = 0; i < n; i++) {
        char c = (char)('a' + pattern(i) % 26);
        msgpack_pack_str_body(&pk, &c, 1);
    }
}

static void pack_pattern_bin(size_t n)
{
    msgpack_pack_bin(&pk, n);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = pattern(i);
        msgpack_pack_bin_body(&pk, &c, 1);
    }
}

static int str_matches(const msgpack_object *o, size_t n)
{
    if (o->type != MSGPACK_OBJECT_STR || o->via.str.size != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (o->via.str.ptr[i] != (char)('a' + pattern(i) % 26))
            return 0;
    return 1;
}

static int bin_matches(const msgpack_object *o, size_t n)
{
    if (o->type != MSGPACK_OBJECT_BIN || o->via.bin.size != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)o->via.bin.ptr[i] != pattern(i))
            return 0;
    return 1;
}

/* ---- every type, one at a time ---- */

static void test_scalars(void)
{
    const msgpack_object *o;

    fresh(); msgpack_pack_int(&pk, 5);
    CHECK(is_uint(DECODE(0x05), 5), "positive fixint");
    fresh(); msgpack_pack_int(&pk, 127);
    CHECK(is_uint(DECODE(0x7f), 127), "positive fixint max");
    fresh(); msgpack_pack_int(&pk, -3);
    CHECK(is_int(DECODE(0xfd), -3), "negative fixint");
    fresh(); msgpack_pack_int(&pk, -32);
    CHECK(is_int(DECODE(0xe0), -32), "negative fixint min");

    fresh(); msgpack_pack_nil(&pk);
    CHECK(DECODE(0xc0)->type == MSGPACK_OBJECT_NIL, "nil");
    fresh(); msgpack_pack_false(&pk);
    o = DECODE(0xc2);
    CHECK(o->type == MSGPACK_OBJECT_BOOLEAN && !o->via.boolean, "false");
    fresh(); msgpack_pack_true(&pk);
    o = DECODE(0xc3);
    CHECK(o->type == MSGPACK_OBJECT_BOOLEAN && o->via.boolean, "true");

    fresh(); msgpack_pack_float(&pk, 1.5f);
    o = DECODE(0xca);
    CHECK(o->type == MSGPACK_OBJECT_FLOAT32 && o->via.f64 == 1.5, "float32");
    fresh(); msgpack_pack_double(&pk, -2.25);
    o = DECODE(0xcb);
    CHECK(o->type == MSGPACK_OBJECT_FLOAT64 && o->via.f64 == -2.25,
          "float64");

    fresh(); msgpack_pack_fix_uint8(&pk, 200);
    CHECK(is_uint(DECODE(0xcc), 200), "uint8");
    fresh(); msgpack_pack_fix_uint16(&pk, 65000);
    CHECK(is_uint(DECODE(0xcd), 65000), "uint16");
    fresh(); msgpack_pack_fix_uint32(&pk, 4000000000u);
    CHECK(is_uint(DECODE(0xce), 4000000000u), "uint32");
    fresh(); msgpack_pack_fix_uint64(&pk, UINT64_MAX);
    CHECK(is_uint(DECODE(0xcf), UINT64_MAX), "uint64");

    fresh(); msgpack_pack_fix_int8(&pk, -100);
    CHECK(is_int(DECODE(0xd0), -100), "int8");
    fresh(); msgpack_pack_fix_int16(&pk, -30000);
    CHECK(is_int(DECODE(0xd1), -30000), "int16");
    fresh(); msgpack_pack_fix_int32(&pk, INT32_MIN);
    CHECK(is_int(DECODE(0xd2), INT32_MIN), "int32");
    fresh(); msgpack_pack_fix_int64(&pk, INT64_MIN);
    CHECK(is_int(DECODE(0xd3), INT64_MIN), "int64");
    /* A non-negative value sent signed decodes as positive (see notes). */
    fresh(); msgpack_pack_fix_int64(&pk, 7);
    CHECK(is_uint(DECODE(0xd3), 7), "int64 holding 7");
}

static void test_bytes(void)
{
    static const struct {
        size_t n;
        unsigned char str_type, bin_type;
    } cases[] = {
        { 0, 0xa0, 0xc4 },      { 2, 0xa2, 0xc4 },    { 31, 0xbf, 0xc4 },
        { 40, 0xd9, 0xc4 },     { 255, 0xd9, 0xc4 },  { 300, 0xda, 0xc5 },
        { 65535, 0xda, 0xc5 },  { 70000, 0xdb, 0xc6 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fresh(); pack_pattern_str(cases[i].n);
        CHECK(str_matches(DECODE(cases[i].str_type), cases[i].n),
              "str of %zu bytes", cases[i].n);
        fresh(); pack_pattern_bin(cases[i].n);
        CHECK(bin_matches(DECODE(cases[i].bin_type), cases[i].n),
              "bin of %zu bytes", cases[i].n);
    }
}

static void test_containers(void)
{
    static const struct {
        size_t n;
        unsigned char arr_type, map_type;
    } cases[] = {
        { 0, 0x90, 0x80 },     { 3, 0x93, 0x83 },     { 15, 0x9f, 0x8f },
        { 20, 0xdc, 0xde },    { 65535, 0xdc, 0xde }, { 65536, 0xdd, 0xdf },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = cases[i].n;
        const msgpack_object *o;
        int good;

        fresh(); msgpack_pack_array(&pk, n);
        for (size_t k = 0; k < n; k++)
            msgpack_pack_uint32(&pk, (uint32_t)(k * 3));
        o = DECODE(cases[i].arr_type);
        good = o->type == MSGPACK_OBJECT_ARRAY && o->via.array.size == n;
        for (size_t k = 0; good && k < n; k++)
            good = is_uint(&o->via.array.ptr[k], k * 3);
        CHECK(good, "array of %zu", n);

        fresh(); msgpack_pack_map(&pk, n);
        for (size_t k = 0; k < n; k++) {
            msgpack_pack_uint32(&pk, (uint32_t)k);
            msgpack_pack_int64(&pk, -(int64_t)k - 1);
        }
        o = DECODE(cases[i].map_type);
        good = o->type == MSGPACK_OBJECT_MAP && o->via.map.size == n;
        for (size_t k = 0; good && k < n; k++)
            good = is_uint(&o->via.map.ptr[k].key, k) &&
                   is_int(&o->via.map.ptr[k].val, -(int64_t)k - 1);
        CHECK(good, "map of %zu", n);
    }
}

/* ---- one message with everything in it ---- */

/* Packs the mixed message into sb (also the seed for truncation and
 * mutation).  Kept under 1 KiB. */
static void pack_mixed(void)
{
    static const unsigned char raw[3] = { 0, 0xff, 0x80 };
    fresh();
    msgpack_pack_map(&pk, 13);
    maat_pack_kv_int(&pk, "seat", 3);
    maat_pack_kv_int(&pk, "neg", -40000);
    maat_pack_kv_int(&pk, "big", INT64_MAX);
    maat_pack_str(&pk, "u64"); msgpack_pack_uint64(&pk, UINT64_MAX);
    maat_pack_kv_str(&pk, "name", "pyramids");
    maat_pack_str(&pk, "nil"); msgpack_pack_nil(&pk);
    maat_pack_str(&pk, "yes"); msgpack_pack_true(&pk);
    maat_pack_str(&pk, "no"); msgpack_pack_false(&pk);
    maat_pack_str(&pk, "f32"); msgpack_pack_float(&pk, 0.5f);
    maat_pack_str(&pk, "f64"); msgpack_pack_double(&pk, 3.25);
    maat_pack_str(&pk, "bin"); msgpack_pack_bin_with_body(&pk, raw, 3);
    maat_pack_str(&pk, "long"); pack_pattern_str(40);
    maat_pack_str(&pk, "list");
    msgpack_pack_array(&pk, 4);
    msgpack_pack_int(&pk, 1);
    msgpack_pack_array(&pk, 0);
    msgpack_pack_map(&pk, 1);
    maat_pack_kv_int(&pk, "x", -1);
    maat_pack_str(&pk, "end");
}

static void test_mixed(void)
{
    maat_error e = { 0, "" };
    int64_t v = 0;
    const msgpack_object *m, *o;

    pack_mixed();
    m = DECODE(0x8d);
    if (!check_at(m->type == MSGPACK_OBJECT_MAP && m->via.map.size == 13,
                  "mixed message is a map of 13", __FILE__, __LINE__))
        return;
    CHECK(maat_msg_get_int(m, "seat", 0, 9, &v, &e) == MAAT_OK && v == 3,
          "seat");
    CHECK(maat_msg_get_int(m, "neg", INT64_MIN, 0, &v, &e) == MAAT_OK &&
          v == -40000, "neg");
    CHECK(maat_msg_get_int(m, "big", 0, INT64_MAX, &v, &e) == MAAT_OK &&
          v == INT64_MAX, "big");
    CHECK(is_uint(get(m, "u64"), UINT64_MAX), "u64");
    CHECK(maat_msg_str_eq(get(m, "name"), "pyramids"), "name");
    CHECK(get(m, "nil")->type == MSGPACK_OBJECT_NIL, "nil");
    o = get(m, "yes");
    CHECK(o->type == MSGPACK_OBJECT_BOOLEAN && o->via.boolean, "yes");
    o = get(m, "no");
    CHECK(o->type == MSGPACK_OBJECT_BOOLEAN && !o->via.boolean, "no");
    CHECK(get(m, "f32")->via.f64 == 0.5, "f32");
    CHECK(get(m, "f64")->via.f64 == 3.25, "f64");
    o = get(m, "bin");
    CHECK(o->type == MSGPACK_OBJECT_BIN && o->via.bin.size == 3 &&
          memcmp(o->via.bin.ptr, "\x00\xff\x80", 3) == 0, "bin");
    CHECK(str_matches(get(m, "long"), 40), "long");
    o = get(m, "list");
    if (check_at(o->type == MSGPACK_OBJECT_ARRAY && o->via.array.size == 4,
                 "list has 4 elements", __FILE__, __LINE__)) {
        CHECK(is_uint(&o->via.array.ptr[0], 1), "list[0]");
        CHECK(o->via.array.ptr[1].type == MSGPACK_OBJECT_ARRAY &&
              o->via.array.ptr[1].via.array.size == 0, "list[1]");
        CHECK(maat_msg_get_int(&o->via.array.ptr[2], "x", -5, 5, &v, &e) ==
                  MAAT_OK && v == -1, "list[2]");
        CHECK(maat_msg_str_eq(&o->via.array.ptr[3], "end"), "list[3]");
    }

    /* Every proper prefix is refused, and so is one byte too many. */
    char buf[1024];
    CHECK(sb.size < sizeof buf, "mixed message is %zu bytes", sb.size);
    memcpy(buf, sb.data, sb.size);
    for (size_t n = 0; n < sb.size; n++) {
        char *cut = malloc(n ? n : 1); /* exact size: ASan sees over-reads */
        memcpy(cut, buf, n);
        EXPECT_BAD(cut, n);
        free(cut);
    }
    buf[sb.size] = 0x00;
    EXPECT_BAD_MSG(buf, sb.size + 1, "trailing");
}

/* ---- depth ---- */

/* `depth` nested containers, maps at odd levels ({"k": inner, "s": d})
 * and arrays at even ones ([inner, d]), so the walk has to come back up
 * through every level.  At the bottom sits 42, or with empty_bottom the
 * deepest container is itself empty. */
static void pack_nested(int depth, int empty_bottom)
{
    fresh();
    for (int d = 1; d <= depth; d++) {
        if (d == depth && empty_bottom) {
            if (d % 2)
                msgpack_pack_map(&pk, 0);
            else
                msgpack_pack_array(&pk, 0);
            break;
        }
        if (d % 2) {
            msgpack_pack_map(&pk, 2);
            maat_pack_str(&pk, "k");
        } else {
            msgpack_pack_array(&pk, 2);
        }
        if (d == depth)
            msgpack_pack_int(&pk, 42);
    }
    for (int d = depth; d >= 1; d--) {
        if (d == depth && empty_bottom)
            continue;
        if (d % 2)
            maat_pack_str(&pk, "s");
        msgpack_pack_int(&pk, d);
    }
}

static void test_depth(void)
{
    /* Depth exactly 16 with a scalar at the bottom. */
    pack_nested(MAAT_MSG_MAX_DEPTH, 0);
    const msgpack_object *o = DECODE(0x82);
    int d = 1, good = 1;
    for (; good && d <= MAAT_MSG_MAX_DEPTH; d++) {
        const msgpack_object *next;
        if (d % 2) {
            good = o->type == MSGPACK_OBJECT_MAP &&
                   is_uint(maat_msg_get(o, "s"), (uint64_t)d);
            next = maat_msg_get(o, "k");
        } else {
            good = o->type == MSGPACK_OBJECT_ARRAY &&
                   o->via.array.size == 2 &&
                   is_uint(&o->via.array.ptr[1], (uint64_t)d);
            next = good ? &o->via.array.ptr[0] : NULL;
        }
        good = good && next;
        o = next;
    }
    CHECK(good && is_uint(o, 42), "walked down to 42, stopped at level %d", d);

    /* Depth 16 with an empty container at the bottom: still 16. */
    pack_nested(MAAT_MSG_MAX_DEPTH, 1);
    DECODE(0x82);

    /* Sixteen plain arrays around a scalar; fifteen around an empty one. */
    unsigned char a[40];
    memset(a, 0x91, MAAT_MSG_MAX_DEPTH);
    a[MAAT_MSG_MAX_DEPTH] = 0x07;
    EXPECT_OK(a, MAAT_MSG_MAX_DEPTH + 1);
    a[MAAT_MSG_MAX_DEPTH - 1] = 0x90;
    EXPECT_OK(a, MAAT_MSG_MAX_DEPTH);

    /* Seventeen refused, whatever sits at the bottom. */
    memset(a, 0x91, 17);
    a[17] = 0x07;
    EXPECT_BAD_MSG(a, 18, "byte 16: fixarray nests deeper than 16");
    a[16] = 0x90;
    EXPECT_BAD_MSG(a, 17, "deeper");
    a[16] = 0x80;
    EXPECT_BAD_MSG(a, 17, "deeper");
    pack_nested(MAAT_MSG_MAX_DEPTH + 1, 0);
    EXPECT_BAD_MSG(sb.data, sb.size, "deeper");
    pack_nested(MAAT_MSG_MAX_DEPTH + 1, 1);
    EXPECT_BAD_MSG(sb.data, sb.size, "deeper");

    /* Deep, then back up, then deep again: depth is per path, not total. */
    unsigned char w[64];
    size_t n = 0;
    w[n++] = 0x92;
    for (int i = 0; i < 2; i++) {
        memset(w + n, 0x91, MAAT_MSG_MAX_DEPTH - 1);
        n += MAAT_MSG_MAX_DEPTH - 1;
        w[n++] = 0xc0;
    }
    EXPECT_OK(w, n);

    /* A very deep hostile input is refused at level 17, not by the stack. */
    static unsigned char deep[1 << 20];
    memset(deep, 0x91, sizeof deep);
    EXPECT_BAD_MSG(deep, sizeof deep, "byte 16:");
    memset(deep, 0xdd, sizeof deep); /* each declares 0xdddddddd elements */
    EXPECT_BAD_MSG(deep, sizeof deep, "byte 0: array32 declares");
}

/* ---- hostile bytes ---- */

#define BAD(s, why) EXPECT_BAD_MSG(s, sizeof(s) - 1, why)
#define OKB(s) EXPECT_OK(s, sizeof(s) - 1)

static void test_hostile(void)
{
    EXPECT_BAD_MSG("", 0, "empty");
    EXPECT_BAD_MSG(NULL, 0, "empty");

    BAD("\x01\x02", "byte 1: 1 trailing");
    BAD("\xc0\xc0", "trailing");
    BAD("\x90\x00", "trailing");
    BAD("\x81\x01\x02\x03\x04", "byte 3: 2 trailing");

    BAD("\xdd\xff\xff\xff\xff",
        "byte 0: array32 declares 4294967295 elements but only 0 bytes "
        "remain");
    BAD("\xdd\x08\x00\x00\x00", "declares 134217728 elements");
    BAD("\xdf\xff\xff\xff\xff", "byte 0: map32 declares 4294967295 entries");
    BAD("\xdc\xff\xff", "array16 declares 65535 elements");
    BAD("\xde\xff\xff\x01\x02", "map16 declares 65535 entries");
    BAD("\x91\xdd\xff\xff\xff\xff\x01\x02\x03",
        "byte 1: array32 declares 4294967295 elements but only 3 bytes "
        "remain");
    BAD("\xdb\xff\xff\xff\xff", "byte 0: str32 declares 4294967295 bytes");
    BAD("\xdb\x80\x00\x00\x00" "abc", "str32 declares 2147483648 bytes but "
        "only 3 remain");
    BAD("\xc6\xff\xff\xff\xff", "bin32 declares 4294967295 bytes");
    BAD("\xc6\x00\x01\x00\x00xyz", "bin32 declares 65536 bytes");
    BAD("\xda\x01\x00" "a", "str16 declares 256 bytes");
    BAD("\xc5\xff\xff", "bin16");
    BAD("\xd9\x05" "abcd", "str8 declares 5 bytes but only 4 remain");
    BAD("\xc4\x05\x01", "bin8");
    BAD("\xa5" "abcd", "fixstr declares 5 bytes");

    /* Exactly enough bytes is fine; one short is not. */
    OKB("\xdd\x00\x00\x00\x03\x01\x02\x03");
    BAD("\xdd\x00\x00\x00\x04\x01\x02\x03",
        "byte 0: array32 declares 4 elements but only 3 bytes remain");
    OKB("\x81\x01\x02");
    BAD("\x81\x01", "fixmap declares 1 entries but only 1 bytes remain");
    OKB("\xdf\x00\x00\x00\x02\x01\x02\x03\x04");
    BAD("\xdf\x00\x00\x00\x02\x01\x02\x03", "map32 declares 2 entries");
    /* Counts that fit on their own but not once the elements are read. */
    BAD("\x92\x92\x01\x02", "byte 4: message ends");
    BAD("\x92\x01\xd9", "byte 2: str8 needs a 1-byte length");
    BAD("\x92\xd9\x01", "byte 1: str8 declares 1 bytes but only 0 remain");
    BAD("\xdb\x00\x00", "str32 needs a 4-byte length but only 2");

    /* Truncated fixed-size scalars. */
    BAD("\xcb\x00\x00\x00", "float64 needs 8 bytes but only 3 remain");
    BAD("\xca\x00", "float32");
    BAD("\xcf\x00\x00\x00\x00\x00\x00\x00", "uint64 needs 8 bytes");
    BAD("\xd1\x00", "int16");
    BAD("\xcc", "uint8");

    /* 0xc1 and every ext type, bare and with a well-formed body. */
    BAD("\xc1", "byte 0: type byte 0xc1 is never used");
    BAD("\x92\x01\xc1", "byte 2: type byte 0xc1");
    static const unsigned char ext_types[] = { 0xc7, 0xc8, 0xc9, 0xd4, 0xd5,
                                               0xd6, 0xd7, 0xd8 };
    for (size_t i = 0; i < sizeof ext_types; i++) {
        unsigned char one[1] = { ext_types[i] };
        EXPECT_BAD_MSG(one, 1, "ext type");
    }
    static const struct { size_t n; unsigned char type; } ext_cases[] = {
        { 1, 0xd4 },   { 2, 0xd5 },   { 4, 0xd6 },     { 8, 0xd7 },
        { 16, 0xd8 },  { 3, 0xc7 },   { 300, 0xc8 },   { 70000, 0xc9 },
    };
    static unsigned char body[70000];
    for (size_t i = 0; i < sizeof ext_cases / sizeof ext_cases[0]; i++) {
        fresh();
        msgpack_pack_ext_with_body(&pk, body, ext_cases[i].n, 5);
        CHECK((unsigned char)sb.data[0] == ext_cases[i].type,
              "packer wrote type 0x%02x", ext_cases[i].type);
        EXPECT_BAD_MSG(sb.data, sb.size, "byte 0: ");
        EXPECT_BAD_MSG(sb.data, sb.size, "ext types are not accepted");
        fresh();
        msgpack_pack_array(&pk, 2);
        msgpack_pack_nil(&pk);
        msgpack_pack_ext_with_body(&pk, body, ext_cases[i].n, -1);
        EXPECT_BAD_MSG(sb.data, sb.size, "byte 2: ");
    }

    /* maat_msg_unpack refuses the same bytes and leaves `out` destroyable. */
    maat_error e = { 0, "" };
    msgpack_unpacked u;
    CHECK(maat_msg_unpack("\xdd\xff\xff\xff\xff", 5, &u, &e) == MAAT_EDECODE,
          "unpack refuses array32 of 2^32-1");
    CHECK(e.code == MAAT_EDECODE && strstr(e.msg, "byte 0") != NULL, "%s",
          e.msg);
    msgpack_unpacked_destroy(&u);
}

/* ---- deterministic mutation ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t xorshift(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

static size_t below(size_t n)
{
    return n ? (size_t)(xorshift() % n) : 0;
}

/* Bytes that make mutations interesting: headers, extreme lengths. */
static unsigned char hot_byte(void)
{
    static const unsigned char hot[] = {
        0x00, 0x01, 0x7f, 0x80, 0x81, 0x8f, 0x90, 0x91, 0x9f, 0xa0, 0xa1,
        0xbf, 0xc0, 0xc1, 0xc4, 0xc5, 0xc6, 0xc7, 0xca, 0xcb, 0xcf, 0xd3,
        0xd4, 0xd8, 0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf, 0xe0, 0xff,
    };
    return xorshift() & 1 ? hot[below(sizeof hot)] : (unsigned char)xorshift();
}

#define SEEDS 6
#define MAXBUF 2048

static void test_mutation(long rounds)
{
    unsigned char seeds[SEEDS][MAXBUF];
    size_t seed_len[SEEDS];
    long accepted = 0, refused = 0, lost = 0;

    for (int k = 0; k < 4; k++) {
        if (k == 0)
            pack_mixed();
        else if (k < 3)
            pack_nested(MAAT_MSG_MAX_DEPTH, k == 2);
        else {
            fresh();
            msgpack_pack_array(&pk, 3);
            pack_pattern_str(300);
            pack_pattern_bin(20);
            msgpack_pack_fix_uint16(&pk, 9);
        }
        CHECK(sb.size <= MAXBUF / 2, "seed %d is %zu bytes", k, sb.size);
        seed_len[k] = sb.size <= MAXBUF / 2 ? sb.size : MAXBUF / 2;
        memcpy(seeds[k], sb.data, seed_len[k]);
    }
    memcpy(seeds[4], "\xde\x00\x02\xa1k\xdc\x00\x01\x90\xc3\xcb"
                     "\x00\x00\x00\x00\x00\x00\x00\x00", 19);
    seed_len[4] = 19;
    memcpy(seeds[5], "\x93\x01\x91\x02\x80", 5);
    seed_len[5] = 5;

    for (long r = 0; r < rounds; r++) {
        unsigned char tmp[MAXBUF];
        size_t s = below(SEEDS), n = seed_len[s], at;
        memcpy(tmp, seeds[s], n);

        switch (below(5)) {
        case 0: /* overwrite a few bytes */
            for (size_t k = 1 + below(4); k > 0; k--) {
                at = below(n); /* its own statement: evaluation order */
                tmp[at] = hot_byte();
            }
            break;
        case 1: /* truncate */
            n = below(n + 1);
            break;
        case 2: /* insert or delete a byte */
            if (xorshift() & 1 && n > 0) {
                at = below(n);
                memmove(tmp + at, tmp + at + 1, n - at - 1);
                n--;
            } else {
                at = below(n + 1);
                memmove(tmp + at + 1, tmp + at, n - at);
                tmp[at] = hot_byte();
                n++;
            }
            break;
        case 3: /* random bytes */
            n = below(48);
            for (size_t k = 0; k < n; k++)
                tmp[k] = hot_byte();
            break;
        default: /* overwrite then truncate */
            at = below(n);
            tmp[at] = hot_byte();
            n = below(n + 1);
            break;
        }

        /* An exact-size copy, so that ASan sees any read past the end. */
        unsigned char *b = malloc(n ? n : 1);
        memcpy(b, tmp, n);
        maat_error e = { 0, "" };
        int rc = maat_msg_check(b, n, &e);
        if (rc == MAAT_OK) {
            accepted++;
            msgpack_unpacked u;
            size_t off = 0;
            msgpack_unpacked_init(&u);
            msgpack_unpack_return ur =
                msgpack_unpack_next(&u, (const char *)b, n, &off);
            if (ur != MSGPACK_UNPACK_SUCCESS || off != n)
                lost++;
            CHECK(ur == MSGPACK_UNPACK_SUCCESS && off == n,
                  "round %ld: check accepted %zu bytes, msgpack says %d at "
                  "offset %zu", r, n, (int)ur, off);
            /* maat_msg_decode builds the very tree msgpack-c builds */
            msgpack_unpacked mine;
            CHECK(maat_msg_unpack(b, n, &mine, &e) == MAAT_OK,
                  "round %ld: %s", r, e.msg);
            CHECK(ur != MSGPACK_UNPACK_SUCCESS || same_tree(&u.data,
                                                            &mine.data),
                  "round %ld: maat_msg_decode's tree differs from "
                  "msgpack_unpack's", r);
            msgpack_unpacked_destroy(&mine);
            msgpack_unpacked_destroy(&u);
        } else {
            refused++;
            CHECK(rc == MAAT_EDECODE && e.code == MAAT_EDECODE &&
                      strncmp(e.msg, "byte ", 5) == 0,
                  "round %ld: rc %d \"%s\"", r, rc, e.msg);
        }
        free(b);
    }
    printf("mutation: %ld buffers, %ld accepted, %ld refused, %ld accepted "
           "but not decoded\n", rounds, accepted, refused, lost);
}

/* ---- maat_msg_fields: one pass over a map's keys ---- */

static void pack_s(const char *s, size_t n)
{
    msgpack_pack_str(&pk, n);
    msgpack_pack_str_body(&pk, s, n);
}
#define PACK_S(lit) pack_s(lit, sizeof(lit) - 1)

/* maat_msg_fields on the decoded sb, which must give rc and (when
 * refused) a message equal to `want` and to maat_msg_only_keys's. */
#define FIELDS(keys, vals, rc, want)                                         \
    fields_((keys), (vals), (rc), (want), __FILE__, __LINE__)

static void fields_(const char *const *keys, const msgpack_object **vals,
                    int rc, const char *want, const char *file, int line)
{
    const msgpack_object *m = sb.size ? decode_((unsigned char)sb.data[0],
                                                file, line) : NULL;
    maat_error e = { 0, "" }, eo = { 0, "" };
    int got = maat_msg_fields(m, keys, vals, "the thing", &e);
    if (!check_at(got == rc, "maat_msg_fields rc", file, line))
        fprintf(stderr, "    wanted %d got %d (%s)\n", rc, got, e.msg);
    if (want && !check_at(strcmp(e.msg, want) == 0, "message", file, line))
        fprintf(stderr, "    wanted \"%s\" got \"%s\"\n", want, e.msg);
    if (rc != MAAT_EINVAL) { /* the same verdict as maat_msg_only_keys */
        int old = maat_msg_only_keys(m, keys, "the thing", &eo);
        check_at(old == got, "same rc as maat_msg_only_keys", file, line);
        if (got && !check_at(strcmp(e.msg, eo.msg) == 0,
                             "same message as maat_msg_only_keys", file,
                             line))
            fprintf(stderr, "    \"%s\" vs \"%s\"\n", e.msg, eo.msg);
    }
    check_at(maat_msg_fields(m, keys, vals, "the thing", NULL) == rc,
             "same rc with a NULL err", file, line);
}

static void test_fields(void)
{
    static const char *const abc[] = {"a", "bb", "card", NULL};
    const msgpack_object *v[MAAT_MSG_MAX_FIELDS + 1];
    int64_t n;

    /* found and absent, in any order; the values are the map's own */
    fresh();
    msgpack_pack_map(&pk, 2);
    PACK_S("card");
    msgpack_pack_int(&pk, 7);
    PACK_S("a");
    PACK_S("x");
    FIELDS(abc, v, MAAT_OK, NULL);
    CHECK(v[0] && maat_msg_str_eq(v[0], "x"), "a found");
    CHECK(v[1] == NULL, "bb absent");
    CHECK(v[2] && is_uint(v[2], 7), "card found");
    CHECK(v[0] == maat_msg_get(&up.data, "a") &&
              v[2] == maat_msg_get(&up.data, "card"), "same as maat_msg_get");

    /* an empty map: every field absent */
    fresh();
    msgpack_pack_map(&pk, 0);
    v[0] = v[1] = v[2] = &missing;
    FIELDS(abc, v, MAAT_OK, NULL);
    CHECK(!v[0] && !v[1] && !v[2], "all absent");

    /* an empty key list: any key is unknown */
    static const char *const none[] = {NULL};
    FIELDS(none, v, MAAT_OK, NULL);
    fresh();
    msgpack_pack_map(&pk, 1);
    PACK_S("a");
    msgpack_pack_nil(&pk);
    FIELDS(none, v, MAAT_EDECODE, "the thing has an unknown field 'a'");

    /* unknown keys, including prefixes, extensions and a NUL inside */
    static const char *const unknown[][2] = {
        {"zz", "the thing has an unknown field 'zz'"},
        {"car", "the thing has an unknown field 'car'"},
        {"cards", "the thing has an unknown field 'cards'"},
        {"b", "the thing has an unknown field 'b'"},
        {"", "the thing has an unknown field ''"},
        {"A", "the thing has an unknown field 'A'"},
    };
    for (size_t i = 0; i < sizeof unknown / sizeof *unknown; i++) {
        fresh();
        msgpack_pack_map(&pk, 2);
        PACK_S("a");
        msgpack_pack_int(&pk, 1);
        pack_s(unknown[i][0], strlen(unknown[i][0]));
        msgpack_pack_int(&pk, 2);
        FIELDS(abc, v, MAAT_EDECODE, unknown[i][1]);
    }
    fresh();
    msgpack_pack_map(&pk, 1);
    PACK_S("card\0"); /* 5 bytes: not "card" */
    msgpack_pack_int(&pk, 1);
    FIELDS(abc, v, MAAT_EDECODE, NULL);
    /* a long unknown name is cut at 40 characters */
    fresh();
    msgpack_pack_map(&pk, 1);
    PACK_S("0123456789012345678901234567890123456789-and-more");
    msgpack_pack_int(&pk, 1);
    FIELDS(abc, v, MAAT_EDECODE, "the thing has an unknown field "
                                 "'0123456789012345678901234567890123456789'");

    /* a repeated key, next to or apart from its first */
    fresh();
    msgpack_pack_map(&pk, 3);
    PACK_S("bb");
    msgpack_pack_int(&pk, 1);
    PACK_S("a");
    msgpack_pack_int(&pk, 2);
    PACK_S("bb");
    msgpack_pack_int(&pk, 3);
    FIELDS(abc, v, MAAT_EDECODE, "the thing repeats field 'bb'");
    /* after a bad key each field still has its first value, also those
     * after the bad key in the map */
    fresh();
    msgpack_pack_map(&pk, 4);
    PACK_S("zz");
    msgpack_pack_int(&pk, 1);
    PACK_S("a");
    msgpack_pack_int(&pk, 2);
    PACK_S("bb");
    msgpack_pack_int(&pk, 3);
    PACK_S("bb");
    msgpack_pack_int(&pk, 4);
    FIELDS(abc, v, MAAT_EDECODE, "the thing has an unknown field 'zz'");
    CHECK(v[0] && is_uint(v[0], 2), "a after a bad key");
    CHECK(v[1] && is_uint(v[1], 3), "bb after a bad key: the first one");
    CHECK(v[2] == NULL, "card absent after a bad key");
    /* the first problem in map order is the one reported */
    fresh();
    msgpack_pack_map(&pk, 3);
    PACK_S("a");
    msgpack_pack_int(&pk, 1);
    PACK_S("a");
    msgpack_pack_int(&pk, 2);
    PACK_S("zz");
    msgpack_pack_int(&pk, 3);
    FIELDS(abc, v, MAAT_EDECODE, "the thing repeats field 'a'");
    fresh();
    msgpack_pack_map(&pk, 3);
    PACK_S("zz");
    msgpack_pack_int(&pk, 1);
    PACK_S("a");
    msgpack_pack_int(&pk, 2);
    PACK_S("a");
    msgpack_pack_int(&pk, 3);
    FIELDS(abc, v, MAAT_EDECODE, "the thing has an unknown field 'zz'");

    /* a key that is not a string */
    fresh();
    msgpack_pack_map(&pk, 2);
    PACK_S("a");
    msgpack_pack_int(&pk, 1);
    msgpack_pack_int(&pk, 5);
    msgpack_pack_int(&pk, 2);
    FIELDS(abc, v, MAAT_EDECODE, "the thing has a key that is not a string");
    fresh();
    msgpack_pack_map(&pk, 1);
    msgpack_pack_bin(&pk, 1);
    msgpack_pack_bin_body(&pk, "a", 1);
    msgpack_pack_int(&pk, 2);
    FIELDS(abc, v, MAAT_EDECODE, "the thing has a key that is not a string");

    /* not a map (and no map at all) */
    fresh();
    msgpack_pack_array(&pk, 2);
    PACK_S("a");
    msgpack_pack_int(&pk, 1);
    FIELDS(abc, v, MAAT_EDECODE, "the thing must be a map");
    fresh();
    FIELDS(abc, v, MAAT_EDECODE, "the thing must be a map");

    /* 16 keys: every one found, the 16th repeat still caught; 17 refused */
    static const char *const k16[] = {"k0", "k1", "k2", "k3", "k4", "k5",
                                      "k6", "k7", "k8", "k9", "k10", "k11",
                                      "k12", "k13", "k14", "k15", NULL,
                                      NULL};
    fresh();
    msgpack_pack_map(&pk, 16);
    for (int i = 15; i >= 0; i--) {
        pack_s(k16[i], strlen(k16[i]));
        msgpack_pack_int(&pk, i);
    }
    FIELDS(k16, v, MAAT_OK, NULL);
    int all = 1;
    for (int i = 0; i < 16; i++)
        all &= v[i] && is_uint(v[i], (uint64_t)i);
    CHECK(all, "16 fields found");
    fresh();
    msgpack_pack_map(&pk, 2);
    PACK_S("k15");
    msgpack_pack_int(&pk, 1);
    PACK_S("k15");
    msgpack_pack_int(&pk, 2);
    FIELDS(k16, v, MAAT_EDECODE, "the thing repeats field 'k15'");
    static const char *const k17[] = {"k0", "k1", "k2", "k3", "k4", "k5",
                                      "k6", "k7", "k8", "k9", "k10", "k11",
                                      "k12", "k13", "k14", "k15", "k16",
                                      NULL};
    FIELDS(k17, v, MAAT_EINVAL, NULL);

    /* maat_msg_int_or on a found value */
    maat_error e = { 0, "" };
    msgpack_object nil = { .type = MSGPACK_OBJECT_NIL };
    msgpack_object i5 = { .type = MSGPACK_OBJECT_POSITIVE_INTEGER,
                          .via.u64 = 5 };
    CHECK(maat_msg_int_or(NULL, "f", 0, 9, -1, &n, &e) == MAAT_OK && n == -1,
          "absent gives the default");
    CHECK(maat_msg_int_or(&nil, "f", 0, 9, -1, &n, &e) == MAAT_OK && n == -1,
          "nil gives the default");
    CHECK(maat_msg_int_or(&i5, "f", 0, 9, -1, &n, &e) == MAAT_OK && n == 5,
          "a value");
    CHECK(maat_msg_int_or(&i5, "f", 0, 4, -1, &n, &e) == MAAT_EDECODE &&
              strcmp(e.msg, "field 'f' is 5, outside 0..4") == 0, "%s",
          e.msg);

    /* MAAT_MSG_STR_IS */
    msgpack_object s = { .type = MSGPACK_OBJECT_STR,
                         .via.str = { .size = 4, .ptr = "buildx" } };
    CHECK(MAAT_MSG_STR_IS(&s, "buil") && !MAAT_MSG_STR_IS(&s, "build") &&
              !MAAT_MSG_STR_IS(&s, "bui") && !MAAT_MSG_STR_IS(NULL, "buil") &&
              !MAAT_MSG_STR_IS(&i5, "buil"), "MAAT_MSG_STR_IS");
}

/* ---- maat_msg_unpack_zone: one zone, message after message ---- */

static void test_unpack_zone(void)
{
    msgpack_zone z;
    msgpack_object o;
    maat_error e = { 0, "" }, e2 = { 0, "" };
    msgpack_unpacked u;
    CHECK(msgpack_zone_init(&z, MSGPACK_ZONE_CHUNK_SIZE), "zone");
    for (int round = 0; round < 50; round++) {
        /* growing messages, so the zone grows past its first chunk */
        fresh();
        msgpack_pack_array(&pk, (size_t)(round * 100));
        for (int i = 0; i < round * 100; i++) {
            msgpack_pack_map(&pk, 1);
            PACK_S("i");
            msgpack_pack_int(&pk, i);
        }
        int ok = maat_msg_unpack_zone(sb.data, sb.size, &z, &o, &e) ==
                     MAAT_OK &&
                 o.type == MSGPACK_OBJECT_ARRAY &&
                 o.via.array.size == (uint32_t)(round * 100);
        for (int i = 0; ok && i < round * 100; i++)
            ok = is_uint(maat_msg_get(&o.via.array.ptr[i], "i"),
                         (uint64_t)i);
        CHECK(ok, "round %d (%s)", round, e.msg);
    }
    /* refused exactly as maat_msg_unpack refuses, leaving a nil */
    static const char *const bad[] = {"", "\x91", "\xc1", "\x01\x02",
                                      "\xdd\xff\xff\xff\xff"};
    static const size_t bad_n[] = {0, 1, 1, 2, 5};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int r1 = maat_msg_unpack_zone(bad[i], bad_n[i], &z, &o, &e);
        int r2 = maat_msg_unpack(bad[i], bad_n[i], &u, &e2);
        msgpack_unpacked_destroy(&u);
        CHECK(r1 == MAAT_EDECODE && r2 == r1 && strcmp(e.msg, e2.msg) == 0 &&
                  o.type == MSGPACK_OBJECT_NIL, "bad %zu: %s / %s", i, e.msg,
              e2.msg);
    }
    /* and the zone still works after a refusal */
    fresh();
    msgpack_pack_map(&pk, 1);
    PACK_S("seq");
    msgpack_pack_int(&pk, 42);
    CHECK(maat_msg_unpack_zone(sb.data, sb.size, &z, &o, &e) == MAAT_OK &&
              is_uint(maat_msg_get(&o, "seq"), 42), "after a refusal");
    msgpack_zone_destroy(&z);
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 200000;

    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_unpacked_init(&up);

    test_scalars();
    test_bytes();
    test_containers();
    test_mixed();
    test_depth();
    test_hostile();
    test_fields();
    test_unpack_zone();
    test_mutation(rounds);

    msgpack_unpacked_destroy(&up);
    msgpack_sbuffer_destroy(&sb);
    return check_done("test_msgcheck");
}
