/* test_wire_decode.c -- maat_wire_decode's fast path gives what the
 * general decoder gives, for every input.
 *
 * maat_wire_decode (sdk/src/games/wire.c) reads the usual message -- the
 * tag, then the fields in declaration order, every value an integer in
 * range -- in one pass, and hands anything else to the general decoder
 * (maat_wire_decode_general).  For every registered game, both its action
 * and its event declarations, and every kind, this builds maps from the
 * declaration: most as the encoder writes them, with values in and out
 * of range, of the wrong type, nil, pairs of the wrong size; many mutated
 * (two keys swapped, a field dropped, repeated or unknown, the tag
 * missing, of the wrong type or naming another kind, a key that is not a
 * string).  Both decoders must agree on the return code, the kind, the
 * seat, every arg and the error message.  It also checks that most of the
 * unmutated messages decode, so the fast path is what is being compared.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "games/wire.h"
#include "maat/game.h"
#include "maat/internal/msg.h"
#include "testrng.h"

#define MESSAGES 4000 /* per kind */

static int64_t in_range(const maat_wire_field *f)
{
    int64_t span = (int64_t)f->hi - f->lo + 1;
    return f->lo + (span > 0 ? (int64_t)rnd((uint32_t)span) : 0);
}

/* A value for field f: mostly a good one, sometimes not. */
static void pack_value(msgpack_packer *pk, const maat_wire_field *f)
{
    uint32_t pick = rnd(100);
    if (pick >= 88) { /* something odd */
        switch (rnd(9)) {
        case 0: msgpack_pack_nil(pk); return;
        case 1: msgpack_pack_int64(pk, (int64_t)f->hi + 1); return;
        case 2: msgpack_pack_int64(pk, (int64_t)f->lo - 1); return;
        case 3: msgpack_pack_int64(pk, -1); return;
        case 4: msgpack_pack_uint64(pk, (uint64_t)1 << 40); return;
        case 5: msgpack_pack_true(pk); return;
        case 6: maat_pack_str(pk, "x"); return;
        case 7:
            msgpack_pack_array(pk, 3);
            for (int i = 0; i < 3; i++)
                msgpack_pack_int64(pk, in_range(f));
            return;
        default:
            msgpack_pack_array(pk, 2);
            msgpack_pack_int64(pk, in_range(f));
            maat_pack_str(pk, "y");
            return;
        }
    }
    switch (f->type) {
    case MAAT_WT_PAIR:
        msgpack_pack_array(pk, 2);
        msgpack_pack_int64(pk, in_range(f));
        msgpack_pack_int64(pk, in_range(f));
        return;
    case MAAT_WT_BOOL:
        if (rnd(2))
            msgpack_pack_true(pk);
        else
            msgpack_pack_false(pk);
        return;
    case MAAT_WT_NAME:
    case MAAT_WT_NAME_OR_NIL:
    case MAAT_WT_NAME_MAP:
        maat_pack_str(pk, f->names[rnd((uint32_t)f->hi + 1)]);
        return;
    case MAAT_WT_CONST:
        maat_pack_str(pk, f->names[0]);
        return;
    default:
        if ((f->type == MAAT_WT_INT_OR_NIL || f->type == MAAT_WT_OPT) &&
            pick < 15)
            msgpack_pack_nil(pk);
        else
            msgpack_pack_int64(pk, in_range(f));
    }
}

static void pack_tag(msgpack_packer *pk, const maat_wire *w,
                     const maat_wire_kind *k, int mutation)
{
    maat_pack_strn(pk, w->tag, w->tag_len);
    if (mutation == 5) {
        msgpack_pack_int(pk, 3);
    } else if (mutation == 6) { /* another kind's name (or its own) */
        const maat_wire_kind *o = &w->kinds[rnd((uint32_t)w->n_kinds)];
        maat_pack_strn(pk, o->name, o->name_len);
    } else {
        maat_pack_strn(pk, k->name, k->name_len);
    }
}

/* One message for kind k of w, as the encoder writes it or mutated;
 * *plain is set when it was not mutated. */
static void pack_message(msgpack_packer *pk, const maat_wire *w,
                         const maat_wire_kind *k, int *plain)
{
    int nf = k->n_fields, order[MAAT_MSG_MAX_FIELDS];
    for (int i = 0; i < nf; i++)
        order[i] = i;
    int mutation = rnd(100) < 40 ? (int)rnd(9) : -1;
    *plain = mutation < 0;
    int drop = -1, repeat = -1;
    if (mutation == 0 && nf >= 2) { /* two keys swapped */
        int a = (int)rnd((uint32_t)nf), b = (int)rnd((uint32_t)nf);
        int t = order[a];
        order[a] = order[b];
        order[b] = t;
    } else if (mutation == 1 && nf >= 1) {
        drop = (int)rnd((uint32_t)nf);
    } else if (mutation == 2 && nf >= 1) {
        repeat = (int)rnd((uint32_t)nf);
    }
    int tag = mutation != 4, extra = mutation == 3, int_key = mutation == 8;
    int n = tag + nf - (drop >= 0) + (repeat >= 0) + extra + int_key;
    msgpack_pack_map(pk, (size_t)n);
    if (int_key) { /* a key that is not a string */
        msgpack_pack_int(pk, 7);
        msgpack_pack_int(pk, 1);
    }
    if (tag && mutation != 7)
        pack_tag(pk, w, k, mutation);
    for (int i = 0; i < nf; i++) {
        const maat_wire_field *f = &k->fields[order[i]];
        if (order[i] == drop)
            continue;
        maat_pack_strn(pk, f->key, f->key_len);
        pack_value(pk, f);
        if (order[i] == repeat) {
            maat_pack_strn(pk, f->key, f->key_len);
            pack_value(pk, f);
        }
    }
    if (mutation == 7) /* the tag last */
        pack_tag(pk, w, k, mutation);
    if (extra) {
        maat_pack_str(pk, rnd(2) ? "zz" : "kind2");
        msgpack_pack_int(pk, 1);
    }
}

static void compare(const maat_wire *w, const msgpack_object *o,
                    const char *game, const char *what, int *decoded)
{
    int kind1, kind2, seat1 = -7, seat2 = -7;
    int32_t a1[MAAT_ACTION_ARGS], a2[MAAT_ACTION_ARGS];
    memset(a1, 0x55, sizeof a1);
    memset(a2, 0x55, sizeof a2);
    maat_error e1 = {0, ""}, e2 = {0, ""};
    int r1 = maat_wire_decode(w, o, &kind1, &seat1, a1, &e1);
    int r2 = maat_wire_decode_general(w, o, &kind2, &seat2, a2, &e2);
    int same = r1 == r2 && kind1 == kind2 && seat1 == seat2 &&
               memcmp(a1, a2, sizeof(int32_t) * w->n_args) == 0 &&
               strcmp(e1.msg, e2.msg) == 0;
    CHECK(same, "%s %s: fast path %d kind %d seat %d arg0 %d '%s', "
          "general %d kind %d seat %d arg0 %d '%s'", game, what, r1, kind1,
          seat1, a1[0], e1.msg, r2, kind2, seat2, a2[0], e2.msg);
    *decoded += r1 == MAAT_OK;
}

int main(void)
{
    int count = 0;
    const maat_rules *const *all = maat_rules_all(&count);
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, maat_sbuffer_write);
    for (int g = 0; g < count; g++) {
        const maat_wire *ws[2] = {all[g]->wire_actions, all[g]->wire_events};
        const char *what[2] = {"action", "event"};
        for (int d = 0; d < 2; d++) {
            const maat_wire *w = ws[d];
            for (int ki = 0; ki < w->n_kinds; ki++) {
                const maat_wire_kind *k = &w->kinds[ki];
                int plain = 0, plain_ok = 0, n = check_scaled(MESSAGES);
                for (int m = 0; m < n; m++) {
                    int was_plain;
                    msgpack_sbuffer_clear(&sb);
                    pack_message(&pk, w, k, &was_plain);
                    msgpack_unpacked u;
                    maat_error err = {0, ""};
                    int rc = maat_msg_unpack(sb.data, sb.size, &u, &err);
                    CHECK(rc == MAAT_OK, "%s: a test message does not "
                          "unpack: %s", all[g]->name, err.msg);
                    int ok = 0;
                    if (rc == MAAT_OK)
                        compare(w, &u.data, all[g]->name, what[d], &ok);
                    msgpack_unpacked_destroy(&u);
                    plain += was_plain;
                    plain_ok += was_plain && ok;
                }
                /* values are good 88 % of the time each: most plain
                 * messages of a kind with few fields decode (a kind with
                 * a field that is encoded only never does) */
                int decodable = k->n_fields <= 6;
                for (int i = 0; i < k->n_fields; i++)
                    decodable &= k->fields[i].type != MAAT_WT_INT_MAP &&
                                 k->fields[i].type != MAAT_WT_NAME_MAP;
                CHECK(!decodable || plain_ok * 4 >= plain,
                      "%s %s '%s': %d of %d plain messages decode",
                      all[g]->name, what[d], k->name, plain_ok, plain);
            }
        }
    }
    /* not maps at all */
    msgpack_object nil = {.type = MSGPACK_OBJECT_NIL};
    int ok = 0;
    compare(all[0]->wire_events, &nil, all[0]->name, "nil", &ok);
    compare(all[0]->wire_events, NULL, all[0]->name, "NULL", &ok);
    msgpack_sbuffer_destroy(&sb);
    return check_done("test_wire_decode");
}
