/* msg.c -- typed getters and packing helpers over msgpack-c objects.
 * The byte-level validator for untrusted input lives in msgcheck.c. */
#include <stdlib.h>
#include <string.h>

#include "maat/internal/msg.h"

int maat_msg_unpack(const void *buf, size_t len, msgpack_unpacked *out,
                    maat_error *err)
{
    msgpack_unpacked_init(out);
    out->zone = msgpack_zone_new(MSGPACK_ZONE_CHUNK_SIZE);
    if (!out->zone)
        return maat_error_set(err, MAAT_ENOMEM, "out of memory");
    return maat_msg_decode(buf, len, out->zone, &out->data, err);
}

const msgpack_object *maat_msg_get(const msgpack_object *map, const char *key)
{
    if (!map || map->type != MSGPACK_OBJECT_MAP)
        return NULL;
    size_t klen = strlen(key);
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        const msgpack_object *k = &map->via.map.ptr[i].key;
        if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == klen &&
            memcmp(k->via.str.ptr, key, klen) == 0)
            return &map->via.map.ptr[i].val;
    }
    return NULL;
}

int maat_msg_int(const msgpack_object *o, const char *field, int64_t lo,
                 int64_t hi, int64_t *out, maat_error *err)
{
    int64_t v;
    if (!o)
        return maat_error_set(err, MAAT_EDECODE, "field '%s' is missing",
                              field);
    if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
        if (o->via.u64 > (uint64_t)INT64_MAX)
            return maat_error_set(err, MAAT_EDECODE,
                                  "field '%s' is out of range", field);
        v = (int64_t)o->via.u64;
    } else if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
        v = o->via.i64;
    } else {
        return maat_error_set(err, MAAT_EDECODE,
                              "field '%s' must be an integer", field);
    }
    if (v < lo || v > hi)
        return maat_error_set(err, MAAT_EDECODE,
                              "field '%s' is %lld, outside %lld..%lld", field,
                              (long long)v, (long long)lo, (long long)hi);
    *out = v;
    return MAAT_OK;
}

int maat_msg_get_int(const msgpack_object *map, const char *key, int64_t lo,
                     int64_t hi, int64_t *out, maat_error *err)
{
    return maat_msg_int(maat_msg_get(map, key), key, lo, hi, out, err);
}

int maat_msg_get_int_or(const msgpack_object *map, const char *key,
                        int64_t lo, int64_t hi, int64_t dflt, int64_t *out,
                        maat_error *err)
{
    const msgpack_object *o = maat_msg_get(map, key);
    if (!o || o->type == MSGPACK_OBJECT_NIL) {
        *out = dflt;
        return MAAT_OK;
    }
    return maat_msg_int(o, key, lo, hi, out, err);
}

int maat_msg_str_eq(const msgpack_object *o, const char *s)
{
    size_t n = strlen(s);
    return o && o->type == MSGPACK_OBJECT_STR && o->via.str.size == n &&
           memcmp(o->via.str.ptr, s, n) == 0;
}

int maat_msg_only_keys(const msgpack_object *map, const char *const *allowed,
                       const char *what, maat_error *err)
{
    if (!map || map->type != MSGPACK_OBJECT_MAP)
        return maat_error_set(err, MAAT_EDECODE, "%s must be a map", what);
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        const msgpack_object *k = &map->via.map.ptr[i].key;
        if (k->type != MSGPACK_OBJECT_STR)
            return maat_error_set(err, MAAT_EDECODE,
                                  "%s has a key that is not a string", what);
        int known = 0;
        for (const char *const *a = allowed; *a && !known; a++)
            known = maat_msg_str_eq(k, *a);
        if (!known) {
            int n = k->via.str.size > 40 ? 40 : (int)k->via.str.size;
            return maat_error_set(err, MAAT_EDECODE,
                                  "%s has an unknown field '%.*s'", what, n,
                                  k->via.str.ptr);
        }
        for (uint32_t j = 0; j < i; j++)
            if (map->via.map.ptr[j].key.type == MSGPACK_OBJECT_STR &&
                map->via.map.ptr[j].key.via.str.size == k->via.str.size &&
                memcmp(map->via.map.ptr[j].key.via.str.ptr, k->via.str.ptr,
                       k->via.str.size) == 0)
                return maat_error_set(err, MAAT_EDECODE,
                                      "%s repeats field '%.*s'", what,
                                      (int)k->via.str.size, k->via.str.ptr);
    }
    return MAAT_OK;
}

/* Copy 1..16 bytes with fixed-size (so inlined) copies that may
 * overlap; never reads outside src[0..len). */
static inline void copy_short(char *dst, const char *src, size_t len)
{
    if (len >= 8) {
        memcpy(dst, src, 8);
        memcpy(dst + len - 8, src + len - 8, 8);
    } else if (len >= 4) {
        memcpy(dst, src, 4);
        memcpy(dst + len - 4, src + len - 4, 4);
    } else if (len >= 2) {
        memcpy(dst, src, 2);
        memcpy(dst + len - 2, src + len - 2, 2);
    } else {
        dst[0] = src[0];
    }
}

int maat_sbuffer_write(void *data, const char *buf, size_t len)
{
    msgpack_sbuffer *sb = data;
    if (len - 1 < 16 && sb->alloc - sb->size >= len) { /* 1..16 bytes */
        copy_short(sb->data + sb->size, buf, len);
        sb->size += len;
        return 0;
    }
    return msgpack_sbuffer_write(data, buf, len);
}

/* ---- the out-of-line packing paths (the inline ones are in msg.h) -----
 * msgpack-c makes one callback per token.  When the packer writes into a
 * msgpack_sbuffer through maat_sbuffer_write and there is room
 * (maat_pack_room), an integer is written here straight into the buffer.
 * The bytes are exactly the ones msgpack-c would write
 * (tests/test_msg_pack.c compares them). */

static inline size_t put_be(char *p, unsigned char tag, uint64_t v, int bytes)
{
    p[0] = (char)tag;
    for (int i = 0; i < bytes; i++)
        p[1 + i] = (char)(v >> (8 * (bytes - 1 - i)));
    return (size_t)bytes + 1;
}

/* v in the smallest form, as msgpack_pack_int64 chooses it; at most 9
 * bytes.  Returns the length. */
static inline size_t put_int(char *p, int64_t v)
{
    if (v >= -32 && v < 128) { /* positive or negative fixint */
        p[0] = (char)(uint8_t)v;
        return 1;
    }
    if (v < 0) {
        if (v >= -128)
            return put_be(p, 0xd0, (uint64_t)v, 1);
        if (v >= -32768)
            return put_be(p, 0xd1, (uint64_t)v, 2);
        if (v >= INT32_MIN)
            return put_be(p, 0xd2, (uint64_t)v, 4);
        return put_be(p, 0xd3, (uint64_t)v, 8);
    }
    if (v < 256)
        return put_be(p, 0xcc, (uint64_t)v, 1);
    if (v < 65536)
        return put_be(p, 0xcd, (uint64_t)v, 2);
    if (v <= (int64_t)UINT32_MAX)
        return put_be(p, 0xce, (uint64_t)v, 4);
    return put_be(p, 0xcf, (uint64_t)v, 8);
}

size_t maat_put_int(char *p, int64_t v)
{
    return put_int(p, v);
}

char *maat_pack_reserve(msgpack_packer *pk, size_t n)
{
    char *p = maat_pack_room(pk, n);
    if (p || pk->callback != maat_sbuffer_write)
        return p;
    msgpack_sbuffer *sb = pk->data;
    size_t alloc = sb->alloc ? sb->alloc * 2 : MSGPACK_SBUFFER_INIT_SIZE;
    while (alloc - sb->size < n)
        alloc *= 2;
    char *data = realloc(sb->data, alloc);
    if (!data)
        return NULL;
    sb->data = data;
    sb->alloc = alloc;
    return sb->data + sb->size;
}

/* The inline maat_pack_strn has already written a fixstr that fits. */
void maat_pack_strn_any(msgpack_packer *pk, const char *s, size_t n)
{
    if (n < 32) { /* fixstr: header and body in one write */
        char b[32];
        b[0] = (char)(0xa0 | n);
        memcpy(b + 1, s, n);
        pk->callback(pk->data, b, n + 1);
        return;
    }
    msgpack_pack_str(pk, n);
    msgpack_pack_str_body(pk, s, n);
}

void maat_pack_int_any(msgpack_packer *pk, int64_t v)
{
    char *p = maat_pack_room(pk, 9);
    if (p)
        ((msgpack_sbuffer *)pk->data)->size += put_int(p, v);
    else
        msgpack_pack_int64(pk, v);
}

/* ---- one-pass field decoding (see msg.h) ------------------------------- */

/* True when the n bytes at p equal the C string name.  Byte by byte,
 * stopping at the first difference and never reading past the end of
 * either string (no strlen per name: names are short, and with the hint
 * below the first name tried is nearly always the right one). */
static inline int key_is(const char *p, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (name[i] != p[i] || name[i] == '\0')
            return 0;
    return name[n] == '\0';
}

/* After a bad key: each listed key's first value, as maat_msg_get finds
 * it, so a caller can still check (and report) the values first. */
static int fields_by_lookup(const msgpack_object *map,
                            const char *const *keys,
                            const msgpack_object **vals, int rc)
{
    for (int i = 0; keys[i]; i++)
        vals[i] = maat_msg_get(map, keys[i]);
    return rc;
}

int maat_msg_fields(const msgpack_object *map, const char *const *keys,
                    const msgpack_object **vals, const char *what,
                    maat_error *err)
{
    int nk;
    for (nk = 0; keys[nk]; nk++) {
        if (nk == MAAT_MSG_MAX_FIELDS)
            return maat_error_set(err, MAAT_EINVAL,
                                  "maat_msg_fields: more than %d keys for %s",
                                  MAAT_MSG_MAX_FIELDS, what);
        vals[nk] = NULL;
    }
    /* Same tests in the same order as maat_msg_only_keys, so the same
     * input gets the same message; a repeat is a bit already set. */
    if (!map || map->type != MSGPACK_OBJECT_MAP)
        return maat_error_set(err, MAAT_EDECODE, "%s must be a map", what);
    uint32_t seen = 0;
    int j = 0; /* the name to try first: the one after the last found, as
                * maps are usually written in the order of `keys` */
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        const msgpack_object *k = &map->via.map.ptr[i].key;
        if (k->type != MSGPACK_OBJECT_STR)
            return fields_by_lookup(map, keys, vals, maat_error_set(
                err, MAAT_EDECODE, "%s has a key that is not a string", what));
        const char *p = k->via.str.ptr;
        uint32_t n = k->via.str.size;
        int t = 0;
        for (; t < nk && !key_is(p, n, keys[j]); t++)
            j = j + 1 < nk ? j + 1 : 0;
        if (t == nk)
            return fields_by_lookup(map, keys, vals, maat_error_set(
                err, MAAT_EDECODE, "%s has an unknown field '%.*s'", what,
                n > 40 ? 40 : (int)n, p));
        if (seen & (1u << j))
            return fields_by_lookup(map, keys, vals, maat_error_set(
                err, MAAT_EDECODE, "%s repeats field '%.*s'", what, (int)n,
                p));
        seen |= 1u << j;
        vals[j] = &map->via.map.ptr[i].val;
        j = j + 1 < nk ? j + 1 : 0;
    }
    return MAAT_OK;
}

void maat_msg_pick(const msgpack_object *map, const char *const *keys,
                   const msgpack_object **vals)
{
    int nk = 0;
    while (keys[nk])
        vals[nk++] = NULL;
    if (!map || map->type != MSGPACK_OBJECT_MAP)
        return;
    int j = 0; /* as in maat_msg_fields: try the name after the last found */
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        const msgpack_object *k = &map->via.map.ptr[i].key;
        if (k->type != MSGPACK_OBJECT_STR)
            continue;
        for (int t = 0; t < nk; t++, j = j + 1 < nk ? j + 1 : 0)
            if (key_is(k->via.str.ptr, k->via.str.size, keys[j])) {
                if (!vals[j]) /* the first one, as maat_msg_get finds it */
                    vals[j] = &map->via.map.ptr[i].val;
                j = j + 1 < nk ? j + 1 : 0;
                break;
            }
    }
}

void maat_msg_pickn(const msgpack_object *map, const maat_msg_key *keys,
                    int nk, const msgpack_object **vals)
{
    for (int i = 0; i < nk; i++)
        vals[i] = NULL;
    if (!map || map->type != MSGPACK_OBJECT_MAP)
        return;
    int j = 0; /* as in maat_msg_fields: try the name after the last found */
    const msgpack_object_kv *e = map->via.map.ptr,
                            *end = e + map->via.map.size;
    for (; e < end; e++) {
        if (e->key.type != MSGPACK_OBJECT_STR)
            continue;
        const char *p = e->key.via.str.ptr;
        size_t n = e->key.via.str.size;
        for (int t = 0; t < nk; t++, j = j + 1 < nk ? j + 1 : 0)
            if (maat_msg_name_is(keys[j].name, keys[j].len, p, n)) {
                if (!vals[j]) /* the first one, as maat_msg_get finds it */
                    vals[j] = &e->val;
                j = j + 1 < nk ? j + 1 : 0;
                break;
            }
    }
}

int maat_msg_int_or(const msgpack_object *o, const char *field, int64_t lo,
                    int64_t hi, int64_t dflt, int64_t *out, maat_error *err)
{
    if (!o || o->type == MSGPACK_OBJECT_NIL) {
        *out = dflt;
        return MAAT_OK;
    }
    return maat_msg_int(o, field, lo, hi, out, err);
}

int maat_msg_unpack_zone(const void *buf, size_t len, msgpack_zone *zone,
                         msgpack_object *out, maat_error *err)
{
    msgpack_zone_clear(zone);
    return maat_msg_decode(buf, len, zone, out, err);
}
