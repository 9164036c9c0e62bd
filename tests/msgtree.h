/* msgtree.h -- test helper: are two decoded msgpack trees the same?
 * Shared by tests/test_msgcheck.c and tests/fuzz/fuzz_msgcheck.c, which
 * both compare maat_msg_decode's tree with msgpack_unpack's. */
#ifndef MAAT_TEST_MSGTREE_H
#define MAAT_TEST_MSGTREE_H

#include <stdint.h>
#include <string.h>
#include <msgpack.h>

/* Two decoded trees are equal: same types and values (floats bit for
 * bit, so that NaNs compare), same string bytes. */
static int same_tree(const msgpack_object *a, const msgpack_object *b)
{
    if (a->type != b->type)
        return 0;
    switch (a->type) {
    case MSGPACK_OBJECT_NIL:
        return 1;
    case MSGPACK_OBJECT_BOOLEAN:
        return a->via.boolean == b->via.boolean;
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
        return a->via.u64 == b->via.u64;
    case MSGPACK_OBJECT_NEGATIVE_INTEGER:
        return a->via.i64 == b->via.i64;
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64:
        return memcmp(&a->via.f64, &b->via.f64, sizeof a->via.f64) == 0;
    case MSGPACK_OBJECT_STR:
    case MSGPACK_OBJECT_BIN:
        return a->via.str.size == b->via.str.size &&
               (a->via.str.size == 0 ||
                memcmp(a->via.str.ptr, b->via.str.ptr, a->via.str.size) == 0);
    case MSGPACK_OBJECT_ARRAY:
        if (a->via.array.size != b->via.array.size)
            return 0;
        for (uint32_t i = 0; i < a->via.array.size; i++)
            if (!same_tree(&a->via.array.ptr[i], &b->via.array.ptr[i]))
                return 0;
        return 1;
    case MSGPACK_OBJECT_MAP:
        if (a->via.map.size != b->via.map.size)
            return 0;
        for (uint32_t i = 0; i < a->via.map.size; i++)
            if (!same_tree(&a->via.map.ptr[i].key, &b->via.map.ptr[i].key) ||
                !same_tree(&a->via.map.ptr[i].val, &b->via.map.ptr[i].val))
                return 0;
        return 1;
    default:
        return 0; /* ext: never accepted */
    }
}

#endif
