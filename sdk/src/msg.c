/* msg.c -- typed getters and packing helpers over msgpack-c objects.
 * The byte-level validator for untrusted input lives in msgcheck.c. */
#include <string.h>

#include "maat/msg.h"

int maat_msg_unpack(const void *buf, size_t len, msgpack_unpacked *out,
                    maat_error *err)
{
    msgpack_unpacked_init(out);
    int rc = maat_msg_check(buf, len, err);
    if (rc)
        return rc;
    size_t off = 0;
    msgpack_unpack_return r = msgpack_unpack_next(out, buf, len, &off);
    if (r != MSGPACK_UNPACK_SUCCESS || off != len)
        return maat_error_set(err, MAAT_EDECODE,
                              "msgpack could not decode the message (%d)",
                              (int)r);
    return MAAT_OK;
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

void maat_pack_str(msgpack_packer *pk, const char *s)
{
    size_t n = strlen(s);
    msgpack_pack_str(pk, n);
    msgpack_pack_str_body(pk, s, n);
}

void maat_pack_kv_int(msgpack_packer *pk, const char *key, int64_t v)
{
    maat_pack_str(pk, key);
    msgpack_pack_int64(pk, v);
}

void maat_pack_kv_str(msgpack_packer *pk, const char *key, const char *v)
{
    maat_pack_str(pk, key);
    maat_pack_str(pk, v);
}
