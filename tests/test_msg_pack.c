/* test_msg_pack.c -- the packing helpers of maat/internal/msg.h write exactly
 * the bytes msgpack-c writes, whether they take their fast path (straight
 * into a msgpack_sbuffer via maat_sbuffer_write) or the callback, and the
 * buffer grows correctly across every boundary. */
#include <string.h>

#include "check.h"
#include "maat/internal/msg.h"

/* Pack with the helpers into `fast` (maat_sbuffer_write) and with plain
 * msgpack-c into `ref` (msgpack_sbuffer_write); compare. */
static int64_t ints[] = {0, 1, 31, 32, 127, 128, 255, 256, 65535, 65536,
                         4294967295LL, 4294967296LL, INT64_MAX, -1, -31,
                         -32, -33, -127, -128, -129, -32768, -32769,
                         INT32_MIN, (int64_t)INT32_MIN - 1, INT64_MIN};

static const char *strs[] = {"", "a", "kind", "observation",
                             "exactly-sixteen!", "seventeen chars!!",
                             "thirty-one characters, exactly", /* 31 */
                             "thirty-two characters, exactly.!", /* 32 */
                             "a str8 header: over thirty-one bytes long"};

static void pack_all(msgpack_packer *pk, int helpers)
{
    size_t ni = sizeof ints / sizeof ints[0], ns = sizeof strs / sizeof strs[0];
    for (size_t i = 0; i < ni; i++) {
        if (helpers)
            maat_pack_int(pk, ints[i]);
        else
            msgpack_pack_int64(pk, ints[i]);
    }
    static const size_t counts[] = {0, 1, 15, 16, 17, 65535, 65536};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        /* an array of n nils, a map of n nil: bool entries, so that the
         * stream still decodes */
        size_t n = counts[i];
        if (helpers) {
            maat_pack_array(pk, n);
            for (size_t k = 0; k < n; k++)
                maat_pack_nil(pk);
            maat_pack_map(pk, n);
            for (size_t k = 0; k < n; k++) {
                maat_pack_nil(pk);
                maat_pack_bool(pk, (int)k & 1);
            }
        } else {
            msgpack_pack_array(pk, n);
            for (size_t k = 0; k < n; k++)
                msgpack_pack_nil(pk);
            msgpack_pack_map(pk, n);
            for (size_t k = 0; k < n; k++) {
                msgpack_pack_nil(pk);
                if (k & 1)
                    msgpack_pack_true(pk);
                else
                    msgpack_pack_false(pk);
            }
        }
    }
    for (size_t i = 0; i < ns; i++) {
        if (helpers) {
            maat_pack_str(pk, strs[i]);
            maat_pack_kv_int(pk, strs[i], ints[i % ni]);
            maat_pack_kv_str(pk, strs[i], strs[(i + 1) % ns]);
        } else {
            size_t n = strlen(strs[i]), m = strlen(strs[(i + 1) % ns]);
            msgpack_pack_str(pk, n);
            msgpack_pack_str_body(pk, strs[i], n);
            msgpack_pack_str(pk, n);
            msgpack_pack_str_body(pk, strs[i], n);
            msgpack_pack_int64(pk, ints[i % ni]);
            msgpack_pack_str(pk, n);
            msgpack_pack_str_body(pk, strs[i], n);
            msgpack_pack_str(pk, m);
            msgpack_pack_str_body(pk, strs[(i + 1) % ns], m);
        }
    }
}

int main(void)
{
    msgpack_sbuffer ref;
    msgpack_packer pk;
    msgpack_sbuffer_init(&ref);
    msgpack_packer_init(&pk, &ref, msgpack_sbuffer_write);
    pack_all(&pk, 0);

    /* the helpers through a foreign callback: the slow path */
    msgpack_sbuffer slow;
    msgpack_sbuffer_init(&slow);
    msgpack_packer_init(&pk, &slow, msgpack_sbuffer_write);
    pack_all(&pk, 1);
    CHECK(slow.size == ref.size && memcmp(slow.data, ref.data, ref.size) == 0,
          "callback path: %zu bytes vs msgpack-c's %zu", slow.size, ref.size);

    /* the fast path, starting at every fill level of a small buffer so
     * that each write meets the end of the buffer somewhere */
    for (size_t pre = 0; pre < 64; pre++) {
        msgpack_sbuffer fast;
        msgpack_sbuffer_init(&fast);
        fast.data = malloc(64);
        fast.alloc = 64;
        memset(fast.data, 'x', pre);
        fast.size = pre;
        msgpack_packer_init(&pk, &fast, maat_sbuffer_write);
        pack_all(&pk, 1);
        CHECK(fast.size == pre + ref.size &&
                  memcmp(fast.data + pre, ref.data, ref.size) == 0,
              "fast path after %zu bytes: %zu bytes vs %zu", pre,
              fast.size - pre, ref.size);
        msgpack_sbuffer_destroy(&fast);
    }

    /* and what was written decodes */
    msgpack_unpacked u;
    size_t off = 0;
    msgpack_unpacked_init(&u);
    int objects = 0;
    while (msgpack_unpack_next(&u, ref.data, ref.size, &off) ==
           MSGPACK_UNPACK_SUCCESS)
        objects++;
    CHECK(off == ref.size && objects > 0, "decoded %d objects, %zu of %zu bytes",
          objects, off, ref.size);
    msgpack_unpacked_destroy(&u);
    msgpack_sbuffer_destroy(&slow);
    msgpack_sbuffer_destroy(&ref);
    return check_done("msg_pack");
}
