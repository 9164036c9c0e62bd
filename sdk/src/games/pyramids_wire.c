/* pyramids_wire.c -- Pyramids on the wire: the per-seat observation, the
 * events, and actions, as msgpack maps (documented in docs/PROTOCOL.md).
 *
 * This file is where hidden information is enforced: the observation of
 * seat i carries i's own hand and tomb and only the sizes of everyone
 * else's, and never the deck order or the seed.  Once the game is over,
 * every tomb and the scores are revealed to all.  MAAT_OMNISCIENT (for
 * replays, never sent) adds every hand and tomb and the deck order. */
#include <string.h>

#include "maat/msg.h"
#include "pyramids_internal.h"

static const char *const phase_names[] = {"god", "pair", "build", "keep",
                                          "over"};

static void pack_cards(msgpack_packer *pk, const uint8_t *cards, int n)
{
    maat_pack_array(pk, (size_t)n);
    for (int i = 0; i < n; i++)
        maat_pack_int(pk, cards[i]);
}

static void pack_int_or_nil(msgpack_packer *pk, int v, int nil_value)
{
    if (v == nil_value)
        maat_pack_nil(pk);
    else
        maat_pack_int(pk, v);
}

int pyr_setup_encode(const maat_setup *s, msgpack_packer *pk)
{
    /* The card faces by id -- public knowledge, never their order. */
    maat_pack_map(pk, 2);
    maat_pack_kv_str(pk, "deck_name", s->deck_name);
    maat_pack_str(pk, "deck");
    maat_pack_array(pk, MAAT_PYR_CARDS);
    for (int i = 0; i < MAAT_PYR_CARDS; i++) {
        const maat_pyr_card *c = &s->deck.card[i];
        char stones[4] = {0};
        for (int k = 0; k < c->n_stones; k++)
            stones[k] = "BWRGY"[c->stone[k]];
        maat_pack_array(pk, 2);
        maat_pack_str(pk, stones);
        if (c->glyph)
            maat_pack_str(pk, maat_pyr_glyph_names[c->glyph]);
        else
            maat_pack_nil(pk);
    }
    return MAAT_OK;
}

static void pack_pyramid(msgpack_packer *pk, const maat_pyr_seat *s)
{
    maat_pack_array(pk, s->pyramid_n);
    for (int stage = 0; stage < MAAT_PYR_STAGES; stage++)
        for (int i = 0; i < MAAT_PYR_POSITIONS; i++)
            if (s->grid[stage][i] >= 0) {
                maat_pack_array(pk, 3);
                maat_pack_int(pk, s->grid[stage][i]);
                maat_pack_int(pk, stage);
                maat_pack_int(pk, i - MAAT_PYR_POS_OFFSET);
            }
}

static void pack_scores(msgpack_packer *pk, const maat_pyr_state *st)
{
    maat_score sc[MAAT_PYR_MAX_SEATS];
    maat_pyr_score_all(st, sc);
    maat_pack_array(pk, (size_t)st->seats);
    for (int i = 0; i < st->seats; i++) {
        maat_pack_map(pk, 3);
        maat_pack_kv_int(pk, "total", sc[i].total);
        maat_pack_kv_int(pk, "rank", sc[i].rank);
        maat_pack_str(pk, "parts");
        maat_pack_map(pk, MAAT_PYR_S_PARTS);
        for (int p = 0; p < MAAT_PYR_S_PARTS; p++)
            maat_pack_kv_int(pk, maat_pyramids_rules.score_parts[p],
                             sc[i].part[p]);
    }
}

int pyr_encode_observation(const maat_game *g, int seat, msgpack_packer *pk)
{
    const maat_pyr_state *st = &g->st;
    int over = st->phase == MAAT_PYR_OVER;
    int own = seat >= 0 && seat < st->seats;
    int omni = seat == MAAT_OMNISCIENT;

    maat_pack_map(pk, (over ? 17 : 16) + omni);
    maat_pack_kv_str(pk, "game", "pyramids");
    maat_pack_kv_int(pk, "seat", seat);
    maat_pack_kv_int(pk, "seats", st->seats);
    maat_pack_kv_int(pk, "round", st->round);
    maat_pack_kv_int(pk, "first", st->first);
    maat_pack_kv_str(pk, "decision", phase_names[st->phase]);
    maat_pack_str(pk, "to_move");
    pack_int_or_nil(pk, st->to_move, -1);
    maat_pack_kv_int(pk, "deck_size", MAAT_PYR_CARDS - st->deck_pos);
    maat_pack_str(pk, "set_aside");
    pack_int_or_nil(pk, st->set_aside, 0);

    maat_pack_str(pk, "tiles");
    uint8_t tiles[5];
    int nt = 0;
    for (int t = 1; t <= 5; t++)
        if (!over && pyr_tile_available(st, t))
            tiles[nt++] = (uint8_t)t;
    pack_cards(pk, tiles, nt);

    maat_pack_str(pk, "quarry");
    maat_pack_array(pk, (size_t)st->seats);
    for (int i = 0; i < st->seats; i++) {
        if (st->quarry[i][0] < 0 || over) {
            maat_pack_nil(pk);
        } else {
            maat_pack_array(pk, 2);
            maat_pack_int(pk, st->quarry[i][0]);
            maat_pack_int(pk, st->quarry[i][1]);
        }
    }

    const maat_pyr_seat *me = own ? &st->seat[seat] : NULL;
    maat_pack_str(pk, "hand");
    pack_cards(pk, me ? me->hand : NULL, me ? me->hand_n : 0);
    maat_pack_str(pk, "tomb");
    pack_cards(pk, me ? me->tomb : NULL, me ? me->tomb_n : 0);
    maat_pack_str(pk, "discard");
    pack_cards(pk, st->discard, st->discard_n);

    maat_pack_str(pk, "players");
    maat_pack_array(pk, (size_t)st->seats);
    for (int i = 0; i < st->seats; i++) {
        const maat_pyr_seat *s = &st->seat[i];
        maat_pack_map(pk, 5 + (over || omni) + omni);
        maat_pack_str(pk, "god");
        pack_int_or_nil(pk, s->god, 0);
        maat_pack_str(pk, "pyramid");
        pack_pyramid(pk, s);
        maat_pack_str(pk, "obelisk");
        pack_cards(pk, s->obelisk, s->obelisk_n);
        maat_pack_kv_int(pk, "hand_size", s->hand_n);
        maat_pack_kv_int(pk, "tomb_size", s->tomb_n);
        if (over || omni) {
            maat_pack_str(pk, "tomb");
            pack_cards(pk, s->tomb, s->tomb_n);
        }
        if (omni) {
            maat_pack_str(pk, "hand");
            pack_cards(pk, s->hand, s->hand_n);
        }
    }
    if (omni) { /* the cards still to deal, the next first */
        maat_pack_str(pk, "deck");
        pack_cards(pk, st->order + st->deck_pos, MAAT_PYR_CARDS - st->deck_pos);
    }
    maat_pack_str(pk, "over");
    maat_pack_bool(pk, over);
    if (over) {
        maat_pack_str(pk, "scores");
        pack_scores(pk, st);
    }
    return MAAT_OK;
}

int pyr_encode_event(const maat_game *g, const maat_event *e,
                     msgpack_packer *pk)
{
    (void)g;
    const int *a = e->arg;
    switch (e->kind) {
    case MAAT_PYR_EV_ROUND:
        maat_pack_map(pk, 4);
        maat_pack_kv_str(pk, "event", "round");
        maat_pack_kv_int(pk, "round", a[0]);
        maat_pack_kv_int(pk, "first", a[1]);
        maat_pack_str(pk, "set_aside");
        pack_int_or_nil(pk, a[2], 0);
        return MAAT_OK;
    case MAAT_PYR_EV_QUARRY:
        maat_pack_map(pk, 3);
        maat_pack_kv_str(pk, "event", "quarry");
        maat_pack_kv_int(pk, "index", a[0]);
        maat_pack_str(pk, "cards");
        maat_pack_array(pk, 2);
        maat_pack_int(pk, a[1]);
        maat_pack_int(pk, a[2]);
        return MAAT_OK;
    case MAAT_PYR_EV_PAIR:
        maat_pack_map(pk, 4);
        maat_pack_kv_str(pk, "event", "pair");
        maat_pack_kv_int(pk, "seat", e->seat);
        maat_pack_kv_int(pk, "index", a[0]);
        maat_pack_str(pk, "cards");
        maat_pack_array(pk, 2);
        maat_pack_int(pk, a[1]);
        maat_pack_int(pk, a[2]);
        return MAAT_OK;
    case MAAT_PYR_EV_GOD:
        maat_pack_map(pk, 3);
        maat_pack_kv_str(pk, "event", "god");
        maat_pack_kv_int(pk, "seat", e->seat);
        maat_pack_kv_int(pk, "tile", a[0]);
        return MAAT_OK;
    case MAAT_PYR_EV_PYRAMID:
        maat_pack_map(pk, 5);
        maat_pack_kv_str(pk, "event", "pyramid");
        maat_pack_kv_int(pk, "seat", e->seat);
        maat_pack_kv_int(pk, "card", a[0]);
        maat_pack_kv_int(pk, "stage", a[1]);
        maat_pack_kv_int(pk, "pos", a[2]);
        return MAAT_OK;
    case MAAT_PYR_EV_TOMB:
        /* the public copy has no card: only its owner knows which */
        maat_pack_map(pk, a[0] >= 0 ? 3 : 2);
        maat_pack_kv_str(pk, "event", "tomb");
        maat_pack_kv_int(pk, "seat", e->seat);
        if (a[0] >= 0)
            maat_pack_kv_int(pk, "card", a[0]);
        return MAAT_OK;
    case MAAT_PYR_EV_DEAL:
    case MAAT_PYR_EV_OBELISK:
    case MAAT_PYR_EV_DISCARD:
    case MAAT_PYR_EV_KEEP:
        maat_pack_map(pk, 3);
        maat_pack_kv_str(pk, "event",
                         maat_pyramids_rules.event_names[e->kind]);
        maat_pack_kv_int(pk, "seat", e->seat);
        maat_pack_kv_int(pk, "card", a[0]);
        return MAAT_OK;
    case MAAT_PYR_EV_END:
        maat_pack_map(pk, 1);
        maat_pack_kv_str(pk, "event", "end");
        return MAAT_OK;
    }
    return MAAT_EINVAL;
}

int pyr_encode_action(const maat_game *g, const maat_action *a,
                      msgpack_packer *pk)
{
    (void)g;
    switch (a->kind) {
    case MAAT_PYR_GOD:
        maat_pack_map(pk, 2);
        maat_pack_kv_str(pk, "kind", "god");
        maat_pack_kv_int(pk, "tile", a->arg[0]);
        return MAAT_OK;
    case MAAT_PYR_PAIR:
        maat_pack_map(pk, 2);
        maat_pack_kv_str(pk, "kind", "pair");
        maat_pack_kv_int(pk, "index", a->arg[0]);
        return MAAT_OK;
    case MAAT_PYR_KEEP:
        maat_pack_map(pk, 2);
        maat_pack_kv_str(pk, "kind", "keep");
        maat_pack_kv_int(pk, "card", a->arg[0]);
        return MAAT_OK;
    case MAAT_PYR_BUILD:
        maat_pack_map(pk, 6);
        maat_pack_kv_str(pk, "kind", "build");
        maat_pack_kv_int(pk, "card", a->arg[0]);
        maat_pack_kv_int(pk, "stage", a->arg[1]);
        maat_pack_kv_int(pk, "pos", a->arg[2]);
        maat_pack_str(pk, "tomb");
        pack_int_or_nil(pk, a->arg[3], -1);
        maat_pack_str(pk, "obelisk");
        pack_int_or_nil(pk, a->arg[4], -1);
        return MAAT_OK;
    }
    return MAAT_EINVAL;
}

int pyr_decode_action(const maat_game *g, const msgpack_object *o,
                      maat_action *a, maat_error *err)
{
    (void)g;
    static const char *const god_keys[] = {"kind", "tile", NULL};
    static const char *const pair_keys[] = {"kind", "index", NULL};
    static const char *const keep_keys[] = {"kind", "card", NULL};
    static const char *const build_keys[] = {"kind", "card", "stage", "pos",
                                             "tomb", "obelisk", NULL};
    const char *const *keys;
    const msgpack_object *f[6]; /* the values of keys[0..] */
    int64_t v[5] = {-1, -1, -1, -1, -1};
    int rc;
    memset(a, -1, sizeof *a);
    if (!o || o->type != MSGPACK_OBJECT_MAP)
        return maat_error_set(err, MAAT_EDECODE, "the action must be a map");
    const msgpack_object *kind = MAAT_MSG_GET(o, "kind");
    if (MAAT_MSG_STR_IS(kind, "build")) { /* the most frequent first */
        a->kind = MAAT_PYR_BUILD;
        keys = build_keys;
    } else if (MAAT_MSG_STR_IS(kind, "god")) {
        a->kind = MAAT_PYR_GOD;
        keys = god_keys;
    } else if (MAAT_MSG_STR_IS(kind, "pair")) {
        a->kind = MAAT_PYR_PAIR;
        keys = pair_keys;
    } else if (MAAT_MSG_STR_IS(kind, "keep")) {
        a->kind = MAAT_PYR_KEEP;
        keys = keep_keys;
    } else {
        return maat_error_set(err, MAAT_EDECODE,
                              "field 'kind' must be one of god, pair, build, "
                              "keep");
    }
    /* One pass finds every field; with a bad key f[] still holds each
     * field's first value, so a bad value is reported before the bad key,
     * as this function always did. */
    int krc = maat_msg_fields(o, keys, f, "the action", err);
    switch (a->kind) {
    case MAAT_PYR_GOD:
        rc = maat_msg_int(f[1], "tile", 1, 5, &v[0], err);
        break;
    case MAAT_PYR_PAIR:
        rc = maat_msg_int(f[1], "index", 0, MAAT_PYR_MAX_SEATS - 1, &v[0],
                          err);
        break;
    case MAAT_PYR_KEEP:
        rc = maat_msg_int(f[1], "card", 0, MAAT_PYR_CARDS - 1, &v[0], err);
        break;
    default: /* MAAT_PYR_BUILD */
        rc = maat_msg_int(f[1], "card", 0, MAAT_PYR_CARDS - 1, &v[0], err);
        if (!rc)
            rc = maat_msg_int(f[2], "stage", 0, MAAT_PYR_STAGES - 1, &v[1],
                              err);
        if (!rc)
            rc = maat_msg_int(f[3], "pos", -MAAT_PYR_POS_OFFSET,
                              MAAT_PYR_POS_OFFSET, &v[2], err);
        if (!rc)
            rc = maat_msg_int_or(f[4], "tomb", 0, MAAT_PYR_CARDS - 1, -1,
                                 &v[3], err);
        if (!rc)
            rc = maat_msg_int_or(f[5], "obelisk", 0, MAAT_PYR_CARDS - 1, -1,
                                 &v[4], err);
        break;
    }
    if (!rc && krc) /* the values are fine: report the bad key, as before */
        rc = maat_msg_only_keys(o, keys, "the action", err);
    for (int i = 0; i < 5; i++)
        a->arg[i] = (int32_t)v[i];
    return rc;
}
