/* fuzz_msgcheck.c -- libFuzzer target for maat_msg_check.
 *
 * The property that makes the validator worth having: whatever it accepts,
 * msgpack-c decodes completely (SUCCESS, every byte consumed) without a
 * pathological allocation, and whatever it refuses is refused with
 * MAAT_EDECODE and a message naming the byte; and maat_msg_unpack, which
 * decodes in the same walk, builds the very tree msgpack-c builds.  A
 * violation aborts so that libFuzzer keeps the input.
 *
 *   clang -fsanitize=fuzzer,address,undefined -I sdk/include \
 *       sdk/src/msgcheck.c sdk/src/msg.c sdk/src/error.c \
 *       tests/fuzz/fuzz_msgcheck.c -lmsgpackc -o fuzz_msgcheck
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "maat/internal/msg.h"
#include "../msgtree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    maat_error e = { 0, "" };
    int rc = maat_msg_check(data, size, &e);

    if (rc != MAAT_OK) {
        if (rc != MAAT_EDECODE || e.code != MAAT_EDECODE ||
            strncmp(e.msg, "byte ", 5) != 0)
            abort();
    } else {
        msgpack_unpacked u;
        size_t off = 0;
        msgpack_unpacked_init(&u);
        msgpack_unpack_return r =
            msgpack_unpack_next(&u, (const char *)data, size, &off);
        if (r != MSGPACK_UNPACK_SUCCESS || off != size)
            abort();
        msgpack_unpacked mine;
        maat_error e3 = { 0, "" };
        if (maat_msg_unpack(data, size, &mine, &e3) != MAAT_OK ||
            !same_tree(&u.data, &mine.data))
            abort();
        msgpack_unpacked_destroy(&mine);
        msgpack_unpacked_destroy(&u);
    }

    /* The public entry point agrees with the check and always leaves a
     * result that can be destroyed. */
    msgpack_unpacked u;
    maat_error e2 = { 0, "" };
    if (maat_msg_unpack(data, size, &u, &e2) != rc)
        abort();
    msgpack_unpacked_destroy(&u);
    return 0;
}
