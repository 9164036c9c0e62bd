/* fuzz_answer.c -- libFuzzer target for maat_msg_read_answer, the
 * referee's one-pass read of a bot's usual answer.
 *
 * The property the referee relies on: whatever the one-pass read accepts,
 * the general path (maat_msg_unpack, then maat_msg_pickn for type, seq,
 * action and think_us) accepts too, with the very same four objects, so
 * the referee's verdict and its messages cannot depend on which path read
 * the answer; and a refusal leaves no field set.  A violation aborts so
 * that libFuzzer keeps the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "maat/internal/msg.h"
#include "../msgtree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const maat_msg_key keys[] = {
        MAAT_MSG_KEY("type"), MAAT_MSG_KEY("seq"), MAAT_MSG_KEY("action"),
        MAAT_MSG_KEY("think_us")};
    maat_msg_answer store;
    const msgpack_object *f[4], *g[4];
    int fast = maat_msg_read_answer(data, size, &store, f);
    if (fast != 0 && fast != 1)
        abort();
    if (!fast) {
        if (f[0] || f[1] || f[2] || f[3])
            abort();
        return 0;
    }
    msgpack_unpacked u;
    maat_error e = { 0, "" };
    if (maat_msg_unpack(data, size, &u, &e) != MAAT_OK)
        abort();
    maat_msg_pickn(&u.data, keys, 4, g);
    for (int i = 0; i < 4; i++)
        if (f[i] != g[i] && (!f[i] || !g[i] || !same_tree(f[i], g[i])))
            abort();
    msgpack_unpacked_destroy(&u);
    return 0;
}
