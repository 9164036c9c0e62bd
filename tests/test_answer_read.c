/* test_answer_read.c -- the referee's one-pass read of a bot's answer
 * gives what the general path gives, for every input.
 *
 * maat_msg_read_answer (sdk/src/msgcheck.c) reads the usual answer --
 * {type: "action", seq, action, think_us}, the action a fixmap of scalars
 * -- straight from its bytes, and gives anything else to the referee's
 * general path: maat_msg_unpack_zone, then maat_msg_pickn for the four
 * keys (referee/protocol.c).  For every registered game and action kind
 * this builds answers as the SDK writes them, and mutated: the envelope's
 * keys reordered, dropped, repeated, unknown or not strings; its values
 * of every type (integers of every width and sign, nil, booleans,
 * strings, floats, bin, arrays, maps, ext); the action's values the same,
 * its map nested or not a map; a map16 header; trailing bytes; the bytes
 * cut short or a byte changed at random.  Whenever the one-pass read
 * accepts, the general path must accept too with the very same four
 * objects, and the referee's checks on them (type, seq, think_us, the
 * rules' decode_action) must give the same verdict, action and error
 * text; the usual answers must mostly take the one-pass read, so that is
 * what is being compared.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "games/wire.h"
#include "maat/game.h"
#include "maat/internal/msg.h"
#include "testrng.h"
#include "msgtree.h"

#define ANSWERS 3000 /* per kind */

/* A scalar or not, of any msgpack type: what a hostile bot may put
 * where an integer is expected. */
static void pack_odd(msgpack_packer *pk, int depth)
{
    switch (rnd(16)) {
    case 0: msgpack_pack_nil(pk); return;
    case 1: msgpack_pack_true(pk); return;
    case 2: msgpack_pack_int64(pk, -(int64_t)rnd(100000)); return;
    case 3: msgpack_pack_uint64(pk, (uint64_t)1 << (rnd(64))); return;
    case 4: msgpack_pack_int8(pk, (int8_t)rnd(256)); return; /* int8 form */
    case 5: msgpack_pack_uint16(pk, (uint16_t)rnd(70000)); return;
    case 6: msgpack_pack_int32(pk, (int32_t)rnd(1u << 31) - (1 << 30)); return;
    case 7: maat_pack_str(pk, rnd(2) ? "action" : "x"); return;
    case 8: msgpack_pack_double(pk, 1.5); return;
    case 9: msgpack_pack_float(pk, -2.0f); return;
    case 10: msgpack_pack_bin(pk, 2); msgpack_pack_bin_body(pk, "ab", 2); return;
    case 11: msgpack_pack_str(pk, 40); /* a str8 */
        msgpack_pack_str_body(pk, "0123456789012345678901234567890123456789", 40);
        return;
    case 12:
        msgpack_pack_ext(pk, 1, 3);
        msgpack_pack_ext_body(pk, "abc", 1);
        return;
    case 13:
        if (depth < 3) {
            msgpack_pack_array(pk, 2);
            pack_odd(pk, depth + 1);
            pack_odd(pk, depth + 1);
            return;
        }
        msgpack_pack_int(pk, 1);
        return;
    case 14:
        if (depth < 3) {
            msgpack_pack_map(pk, 1);
            maat_pack_str(pk, "k");
            pack_odd(pk, depth + 1);
            return;
        }
        msgpack_pack_int(pk, 2);
        return;
    default: msgpack_pack_int(pk, (int)rnd(300)); return;
    }
}

/* An action of kind k: as encode_action writes it (args in range; 1), or
 * with one value odd, a key repeated or unknown, or no map at all (0). */
static int pack_action(msgpack_packer *pk, const maat_wire *w,
                        const maat_wire_kind *k)
{
    int32_t arg[MAAT_ACTION_ARGS];
    for (int i = 0; i < MAAT_ACTION_ARGS; i++)
        arg[i] = -1;
    if (k->variant)
        arg[k->when_arg] = k->when_lo;
    for (int i = 0; i < k->n_fields; i++) {
        const maat_wire_field *f = &k->fields[i];
        int64_t span = (int64_t)f->hi - f->lo + 1;
        if (f->type == MAAT_WT_CONST || f->type == MAAT_WT_SEAT)
            continue;
        arg[f->arg] = (int32_t)(f->lo + (span > 0 ? (int64_t)rnd((uint32_t)span) : 0));
        if (f->type == MAAT_WT_INT_OR_NIL && rnd(4) == 0)
            arg[f->arg] = f->nil;
    }
    uint32_t how = rnd(100);
    if (how < 70 || k->n_fields == 0) {
        maat_wire_encode(w, k->kind, -1, arg, pk);
        return 1;
    }
    if (how >= 95) { /* not the usual map */
        pack_odd(pk, 0);
        return 0;
    }
    int odd = (int)rnd((uint32_t)k->n_fields), extra = how >= 90;
    msgpack_pack_map(pk, (size_t)(1 + k->n_fields + extra));
    maat_pack_strn(pk, w->tag, w->tag_len);
    maat_pack_strn(pk, k->name, k->name_len);
    for (int i = 0; i < k->n_fields; i++) {
        const maat_wire_field *f = &k->fields[i];
        maat_pack_strn(pk, f->key, f->key_len);
        if (i == odd)
            pack_odd(pk, 0);
        else if (f->type == MAAT_WT_CONST)
            maat_pack_str(pk, f->names[0]);
        else
            msgpack_pack_int64(pk, arg[f->arg]);
    }
    if (extra) {
        if (rnd(2))
            maat_pack_strn(pk, k->fields[0].key, k->fields[0].key_len);
        else
            maat_pack_str(pk, "zz");
        msgpack_pack_int(pk, 1);
    }
    return 0;
}

/* An answer: the four keys as the SDK writes them, or mutated. */
static void pack_answer(msgpack_packer *pk, const maat_wire *w,
                        const maat_wire_kind *k, int *plain)
{
    int order[4] = {0, 1, 2, 3}, n = 4, mutation = -1;
    if (rnd(100) < 45)
        mutation = (int)rnd(10);
    *plain = mutation < 0;
    if (mutation == 0) { /* two keys swapped */
        int a = (int)rnd(4), b = (int)rnd(4), t = order[a];
        order[a] = order[b];
        order[b] = t;
    }
    int drop = mutation == 1 ? (int)rnd(4) : -1;
    int repeat = mutation == 2 ? (int)rnd(4) : -1;
    int unknown = mutation == 3, int_key = mutation == 4;
    n += (repeat >= 0) + unknown + int_key - (drop >= 0);
    if (mutation == 5) { /* a map16 header, which msgpack-c never writes
                          * for so few entries */
        const char head[3] = {(char)0xde, 0, (char)n};
        pk->callback(pk->data, head, 3);
    } else {
        msgpack_pack_map(pk, (size_t)n);
    }
    if (int_key) {
        msgpack_pack_int(pk, 7);
        msgpack_pack_int(pk, 1);
    }
    static const char *const names[4] = {"type", "seq", "action",
                                          "think_us"};
    for (int i = 0; i < 4; i++) {
        for (int rep = 0; rep < 1 + (order[i] == repeat); rep++) {
            if (order[i] == drop)
                continue;
            maat_pack_str(pk, names[order[i]]);
            int odd = mutation == 6 && rnd(4) == 0;
            switch (order[i]) {
            case 0:
                if (odd)
                    pack_odd(pk, 0);
                else
                    maat_pack_str(pk, mutation == 7 && rnd(2)
                                          ? (rnd(2) ? "hello" : "resync")
                                          : "action");
                break;
            case 2:
                *plain &= pack_action(pk, w, k);
                break;
            default:
                if (odd)
                    pack_odd(pk, 0);
                else
                    msgpack_pack_int64(pk, (int64_t)rnd(1u << 20));
            }
        }
    }
    if (unknown) {
        maat_pack_str(pk, rnd(2) ? "token" : "seqq");
        pack_odd(pk, 0);
    }
    if (mutation == 8) /* trailing bytes */
        msgpack_pack_int(pk, 0);
}

/* The referee's checks of an answer's fields (referee/protocol.c,
 * on_bot_message, the action branch) into a line of text. */
static void verdict(const maat_rules *r, const msgpack_object *const *f,
                    char *out, size_t cap)
{
    maat_error err = {0, ""};
    int64_t seq = -1, think_us = -1;
    if (MAAT_MSG_STR_IS(f[0], "hello") || MAAT_MSG_STR_IS(f[0], "resync")) {
        snprintf(out, cap, "%.*s", (int)f[0]->via.str.size,
                 f[0]->via.str.ptr);
        return;
    }
    if (!MAAT_MSG_STR_IS(f[0], "action") ||
        maat_msg_int(f[1], "seq", 0, INT64_MAX, &seq, &err) ||
        maat_msg_int_or(f[3], "think_us", 0, 60000000, -1, &think_us,
                        &err)) {
        snprintf(out, cap, "malformed: %s", err.msg);
        return;
    }
    maat_action a;
    memset(&a, 0x55, sizeof a);
    int rc = r->decode_action(NULL, f[2], &a, &err);
    size_t n = (size_t)snprintf(out, cap, "seq %" PRId64 " think %" PRId64
                                " rc %d '%s' kind %d", seq, think_us, rc,
                                err.msg, rc ? -9 : a.kind);
    for (int i = 0; !rc && i < MAAT_ACTION_ARGS && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, " %d", a.arg[i]);
}

static int same_field(const msgpack_object *a, const msgpack_object *b)
{
    return a == b || (a && b && same_tree(a, b));
}

int main(void)
{
    test_rng_seed(0x243f6a8885a308d3ULL);
    int count = 0;
    const maat_rules *const *all = maat_rules_all(&count);
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, maat_sbuffer_write);
    msgpack_zone zone;
    msgpack_zone_init(&zone, MSGPACK_ZONE_CHUNK_SIZE);
    static const maat_msg_key keys[] = {
        MAAT_MSG_KEY("type"), MAAT_MSG_KEY("seq"), MAAT_MSG_KEY("action"),
        MAAT_MSG_KEY("think_us")};
    long fast = 0, general_ok = 0, total = 0, plain = 0, plain_fast = 0;
    for (int g = 0; g < count; g++) {
        const maat_wire *w = all[g]->wire_actions;
        for (int ki = 0; ki < w->n_kinds; ki++) {
            const maat_wire_kind *k = &w->kinds[ki];
            int n = check_scaled(ANSWERS);
            for (int m = 0; m < n; m++) {
                int was_plain;
                msgpack_sbuffer_clear(&sb);
                pack_answer(&pk, w, k, &was_plain);
                size_t len = sb.size;
                uint32_t cut = rnd(100);
                if (cut < 8 && len) { /* cut short */
                    len = rnd((uint32_t)len);
                    was_plain = 0;
                } else if (cut < 16 && len) { /* one byte changed */
                    sb.data[rnd((uint32_t)len)] = (char)rnd(256);
                    was_plain = 0;
                }
                maat_msg_answer store;
                msgpack_object msg;
                const msgpack_object *f1[4], *f2[4];
                maat_error err = {0, ""};
                int r1 = maat_msg_read_answer(sb.data, len, &store, f1);
                int r2 = maat_msg_unpack_zone(sb.data, len, &zone, &msg,
                                              &err);
                if (r2 == MAAT_OK)
                    maat_msg_pickn(&msg, keys, 4, f2);
                total++;
                fast += r1;
                general_ok += r2 == MAAT_OK;
                plain += was_plain;
                plain_fast += was_plain && r1;
                CHECK(r1 == 0 || r1 == 1, "read_answer returned %d", r1);
                if (!r1) {
                    CHECK(!f1[0] && !f1[1] && !f1[2] && !f1[3],
                          "a refused answer left fields set");
                    continue;
                }
                CHECK(r2 == MAAT_OK, "%s '%s': read in one pass, refused "
                      "by the general path: %s", all[g]->name, k->name,
                      err.msg);
                if (r2 != MAAT_OK)
                    continue;
                int same = 1;
                for (int i = 0; i < 4; i++)
                    same &= same_field(f1[i], f2[i]);
                CHECK(same, "%s '%s': the one-pass read's fields differ "
                      "from the general path's", all[g]->name, k->name);
                char v1[400], v2[400];
                verdict(all[g], f1, v1, sizeof v1);
                verdict(all[g], f2, v2, sizeof v2);
                CHECK(strcmp(v1, v2) == 0, "%s '%s': one pass '%s', "
                      "general '%s'", all[g]->name, k->name, v1, v2);
            }
        }
    }
    /* the usual answers take the one-pass read (so it is what is
     * compared), and the mutations reach both outcomes */
    CHECK(plain_fast * 10 >= plain * 9, "%ld of %ld usual answers read in "
          "one pass", plain_fast, plain);
    CHECK(general_ok > fast && fast * 3 > total, "%ld answers, %ld decoded, "
          "%ld in one pass", total, general_ok, fast);
    /* edge cases: nothing, one byte, an empty map, type alone */
    maat_msg_answer store;
    const msgpack_object *f[4];
    CHECK(!maat_msg_read_answer(NULL, 0, &store, f), "NULL read");
    CHECK(!maat_msg_read_answer("\x80", 0, &store, f), "empty read");
    CHECK(!maat_msg_read_answer("\x80", 1, &store, f), "{} read");
    CHECK(maat_msg_read_answer("\x81\xa4type\xa6" "action", 13, &store, f) &&
          f[0] && !f[1] && !f[2] && !f[3], "{type: action} not read");
    CHECK(!maat_msg_read_answer("\x81\xa4type\xa6" "action", 12, &store, f),
          "a cut {type: action} read");
    CHECK(!maat_msg_read_answer("\x81\xa4type\xa5hello", 12, &store, f),
          "a hello read");
    printf("%ld answers: %ld decode, %ld read in one pass (%ld of %ld "
           "usual ones)\n", total, general_ok, fast, plain_fast, plain);
    msgpack_zone_destroy(&zone);
    msgpack_sbuffer_destroy(&sb);
    return check_done("test_answer_read");
}
