/* pyramids_wire.c -- Pyramids on the wire: the per-seat observation, the
 * events, and actions, as msgpack maps (documented in docs/PROTOCOL.md).
 *
 * This file is where hidden information is enforced: the observation of
 * seat i carries i's own hand and tomb and only the sizes of everyone
 * else's, and never the deck order or the seed.  Once the game is over,
 * every tomb and the scores are revealed to all.  MAAT_OMNISCIENT (for
 * replays, never sent) adds every hand and tomb and the deck order.
 *
 * Actions and events are declarations (wire.h); who sees an event is
 * declared there too: deal and keep only their seat, the card of a tomb
 * only its owner (the others' copy has no card). */
#include <string.h>

#include "maat/internal/msg.h"
#include "pyramids_internal.h"

/* ---- actions and events ---------------------------------------------- */

#define CARD(key, arg) MAAT_W_INT(key, arg, 0, MAAT_PYR_CARDS - 1)

static const maat_wire_kind actions[] = {
    {MAAT_W_KIND("god", MAAT_PYR_GOD),
     MAAT_W_FIELDS(MAAT_W_INT("tile", 0, 1, 5))},
    {MAAT_W_KIND("pair", MAAT_PYR_PAIR),
     MAAT_W_FIELDS(MAAT_W_INT("index", 0, 0, MAAT_PYR_MAX_SEATS - 1))},
    {MAAT_W_KIND("build", MAAT_PYR_BUILD),
     MAAT_W_FIELDS(CARD("card", 0),
                   MAAT_W_INT("stage", 1, 0, MAAT_PYR_STAGES - 1),
                   MAAT_W_INT("pos", 2, -MAAT_PYR_POS_OFFSET,
                              MAAT_PYR_POS_OFFSET),
                   MAAT_W_INT_OR_NIL("tomb", 3, 0, MAAT_PYR_CARDS - 1, -1),
                   MAAT_W_INT_OR_NIL("obelisk", 4, 0, MAAT_PYR_CARDS - 1,
                                     -1))},
    {MAAT_W_KIND("keep", MAAT_PYR_KEEP), MAAT_W_FIELDS(CARD("card", 0))},
};

static const maat_wire_kind events[] = {
    {MAAT_W_KIND("deal", MAAT_PYR_EV_DEAL), .seen_by = MAAT_W_OWNER,
     MAAT_W_FIELDS(MAAT_W_SEAT, CARD("card", 0))},
    {MAAT_W_KIND("round", MAAT_PYR_EV_ROUND),
     MAAT_W_FIELDS(MAAT_W_INT("round", 0, 1, MAAT_PYR_ROUNDS),
                   MAAT_W_INT("first", 1, 0, MAAT_PYR_MAX_SEATS - 1),
                   MAAT_W_INT_OR_NIL("set_aside", 2, 1, 5, 0))},
    {MAAT_W_KIND("quarry", MAAT_PYR_EV_QUARRY),
     MAAT_W_FIELDS(MAAT_W_INT("index", 0, 0, MAAT_PYR_MAX_SEATS - 1),
                   MAAT_W_PAIR("cards", 1, 0, MAAT_PYR_CARDS - 1))},
    {MAAT_W_KIND("god", MAAT_PYR_EV_GOD),
     MAAT_W_FIELDS(MAAT_W_SEAT, MAAT_W_INT("tile", 0, 1, 5))},
    {MAAT_W_KIND("pair", MAAT_PYR_EV_PAIR),
     MAAT_W_FIELDS(MAAT_W_SEAT,
                   MAAT_W_INT("index", 0, 0, MAAT_PYR_MAX_SEATS - 1),
                   MAAT_W_PAIR("cards", 1, 0, MAAT_PYR_CARDS - 1))},
    {MAAT_W_KIND("pyramid", MAAT_PYR_EV_PYRAMID),
     MAAT_W_FIELDS(MAAT_W_SEAT, CARD("card", 0),
                   MAAT_W_INT("stage", 1, 0, MAAT_PYR_STAGES - 1),
                   MAAT_W_INT("pos", 2, -MAAT_PYR_POS_OFFSET,
                              MAAT_PYR_POS_OFFSET))},
    {MAAT_W_KIND("obelisk", MAAT_PYR_EV_OBELISK),
     MAAT_W_FIELDS(MAAT_W_SEAT, CARD("card", 0))},
    {MAAT_W_KIND("tomb", MAAT_PYR_EV_TOMB), .seen_by = MAAT_W_SPLIT,
     MAAT_W_FIELDS(MAAT_W_SEAT, MAAT_W_OWNER_ONLY("card", 0, 0,
                                                  MAAT_PYR_CARDS - 1, -1))},
    {MAAT_W_KIND("discard", MAAT_PYR_EV_DISCARD),
     MAAT_W_FIELDS(MAAT_W_SEAT, CARD("card", 0))},
    {MAAT_W_KIND("keep", MAAT_PYR_EV_KEEP), .seen_by = MAAT_W_OWNER,
     MAAT_W_FIELDS(MAAT_W_SEAT, CARD("card", 0))},
    {MAAT_W_KIND("end", MAAT_PYR_EV_END)},
};

const maat_wire maat_pyr_wire_actions = MAAT_W_ACTIONS(actions);
const maat_wire maat_pyr_wire_events = MAAT_W_EVENTS(events);

/* ---- the setup and the observation ------------------------------------ */

static const char *const phase_names[] = {"god", "pair", "build", "keep",
                                          "over"};

static void pack_cards(msgpack_packer *pk, const uint8_t *cards, int n)
{
    maat_wire_pack_u8s(pk, cards, (size_t)n);
}

int maat_pyr_setup_encode(const maat_setup *s, msgpack_packer *pk)
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

int maat_pyr_encode_observation(const maat_game *g, int seat, msgpack_packer *pk)
{
    const maat_pyr_state *st = &g->st;
    int over = st->phase == MAAT_PYR_OVER;
    int own = seat >= 0 && seat < st->seats;
    int omni = seat == MAAT_OMNISCIENT;

    maat_wire_map m;
    maat_kit_observation_begin(&m, pk, &maat_pyramids_rules, seat, st->seats, 16);
    MAAT_MAP_INT(&m, "round", st->round);
    MAAT_MAP_INT(&m, "first", st->first);
    MAAT_MAP_STR(&m, "decision", phase_names[st->phase]);
    MAAT_MAP_KEY(&m, "to_move");
    maat_wire_int_or_nil(pk, st->to_move, -1);
    MAAT_MAP_INT(&m, "deck_size", MAAT_PYR_CARDS - st->deck_pos);
    MAAT_MAP_KEY(&m, "set_aside");
    maat_wire_int_or_nil(pk, st->set_aside, 0);

    MAAT_MAP_KEY(&m, "tiles");
    uint8_t tiles[5];
    int nt = 0;
    for (int t = 1; t <= 5; t++)
        if (!over && maat_pyr_tile_available(st, t))
            tiles[nt++] = (uint8_t)t;
    pack_cards(pk, tiles, nt);

    MAAT_MAP_KEY(&m, "quarry");
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
    MAAT_MAP_KEY(&m, "hand");
    pack_cards(pk, me ? me->hand : NULL, me ? me->hand_n : 0);
    MAAT_MAP_KEY(&m, "tomb");
    pack_cards(pk, me ? me->tomb : NULL, me ? me->tomb_n : 0);
    MAAT_MAP_KEY(&m, "discard");
    pack_cards(pk, st->discard, st->discard_n);

    MAAT_MAP_KEY(&m, "players");
    maat_pack_array(pk, (size_t)st->seats);
    for (int i = 0; i < st->seats; i++) {
        const maat_pyr_seat *s = &st->seat[i];
        maat_wire_map p;
        maat_wire_map_begin(&p, pk, 5);
        MAAT_MAP_KEY(&p, "god");
        maat_wire_int_or_nil(pk, s->god, 0);
        MAAT_MAP_KEY(&p, "pyramid");
        pack_pyramid(pk, s);
        MAAT_MAP_KEY(&p, "obelisk");
        pack_cards(pk, s->obelisk, s->obelisk_n);
        MAAT_MAP_INT(&p, "hand_size", s->hand_n);
        MAAT_MAP_INT(&p, "tomb_size", s->tomb_n);
        if (over || omni) {
            MAAT_MAP_KEY(&p, "tomb");
            pack_cards(pk, s->tomb, s->tomb_n);
        }
        if (omni) {
            MAAT_MAP_KEY(&p, "hand");
            pack_cards(pk, s->hand, s->hand_n);
        }
        maat_wire_map_end(&p);
    }
    if (omni) { /* the cards still to deal, the next first */
        MAAT_MAP_KEY(&m, "deck");
        pack_cards(pk, st->order + st->deck_pos, MAAT_PYR_CARDS - st->deck_pos);
    }
    MAAT_MAP_BOOL(&m, "over", over);
    if (over) {
        maat_score sc[MAAT_PYR_MAX_SEATS];
        maat_pyr_score_all(st, sc);
        MAAT_MAP_KEY(&m, "scores");
        maat_kit_pack_scores(pk, &maat_pyramids_rules, sc, st->seats);
    }
    maat_wire_map_end(&m);
    return MAAT_OK;
}
