/* architects_view.c -- the bot side of the architects' hidden
 * information: decoding an observation back into a maat_arc_state, and
 * sampling full states consistent with it.
 *
 * Everything but three orders is public and in every observation, so the
 * view needs no history: the latest observation is the whole truth except
 * which stone lies where in the face-down supply, the bag and the pile.
 * Every component not seen anywhere is in one of the three (each id has
 * one kind), so determinize deals the unseen large stones, small stones
 * and cards, shuffled, into the supply, the bag and the pile -- and checks
 * that their numbers are the sizes the observation gives. */
#include <stdlib.h>
#include <string.h>

#include "maat/internal/msg.h"
#include "architects_internal.h"

#define UNKNOWN 255

/* ---- decoding ------------------------------------------------------- */

typedef struct seen {
    uint8_t large[MAAT_ARC_MAX_LARGE], small[MAAT_ARC_MAX_SMALL],
        card[MAAT_ARC_MAX_CARDS];
} seen;

/* An id of one kind (0 large, 1 small, 2 card), in range and seen once. */
static int id_of(const msgpack_object *o, int kind, const char *field,
                 const maat_arc_state *st, seen *sn, int *out,
                 maat_error *err)
{
    static const char *const what[3] = {"large stone", "small stone",
                                        "card"};
    int n = kind == 0 ? st->stones->n_large
          : kind == 1 ? st->stones->n_small : st->cards->n;
    uint8_t *mark = kind == 0 ? sn->large : kind == 1 ? sn->small : sn->card;
    int64_t v;
    int rc = maat_msg_int(o, field, 0, n - 1, &v, err);
    if (rc)
        return rc;
    if (mark[v]++)
        return maat_error_set(err, MAAT_EDECODE, "field '%s': %s %d is in "
                              "two places", field, what[kind], (int)v);
    *out = (int)v;
    return MAAT_OK;
}

/* An int or nil (-1) id. */
static int id_or_nil(const msgpack_object *o, int kind, const char *field,
                     const maat_arc_state *st, seen *sn, int *out,
                     maat_error *err)
{
    if (o && o->type == MSGPACK_OBJECT_NIL) {
        *out = -1;
        return MAAT_OK;
    }
    return id_of(o, kind, field, st, sn, out, err);
}

/* An array of ids of one kind, at most max of them. */
static int ids(const msgpack_object *map, const char *key, int kind, int max,
               const maat_arc_state *st, seen *sn, uint8_t *out, int *n,
               maat_error *err)
{
    const msgpack_object *a = maat_msg_get(map, key);
    if (!a || a->type != MSGPACK_OBJECT_ARRAY || (int)a->via.array.size > max)
        return maat_error_set(err, MAAT_EDECODE, "field '%s' must be an "
                              "array of at most %d ids", key, max);
    for (uint32_t i = 0; i < a->via.array.size; i++) {
        int v = 0, rc = id_of(&a->via.array.ptr[i], kind, key, st, sn, &v, err);
        if (rc)
            return rc;
        out[i] = (uint8_t)v;
    }
    *n = (int)a->via.array.size;
    return MAAT_OK;
}

static const msgpack_object *array_field(const msgpack_object *map,
                                         const char *key, uint32_t size,
                                         int exact, maat_error *err)
{
    const msgpack_object *a = maat_msg_get(map, key);
    if (!a || a->type != MSGPACK_OBJECT_ARRAY ||
        (exact ? a->via.array.size != size : a->via.array.size > size)) {
        maat_error_set(err, MAAT_EDECODE, "field '%s' must be an array of "
                       "%s%u", key, exact ? "" : "at most ", size);
        return NULL;
    }
    return a;
}

static int get_bool(const msgpack_object *map, const char *key, int *out,
                    maat_error *err)
{
    const msgpack_object *b = maat_msg_get(map, key);
    if (!b || b->type != MSGPACK_OBJECT_BOOLEAN)
        return maat_error_set(err, MAAT_EDECODE, "field '%s' must be true or "
                              "false", key);
    *out = b->via.boolean;
    return MAAT_OK;
}

static int decode_player(const msgpack_object *p, maat_arc_state *st,
                         maat_arc_seat *s, seen *sn, maat_error *err)
{
    const maat_arc_board *b = st->board;
    int rc, n;
    if (!p || p->type != MSGPACK_OBJECT_MAP)
        return maat_error_set(err, MAAT_EDECODE, "players[] must be maps");
    const msgpack_object *pyr = array_field(p, "pyramid", (uint32_t)b->n_large,
                                            0, err);
    if (!pyr)
        return MAAT_EDECODE;
    for (uint32_t i = 0; i < pyr->via.array.size; i++) {
        const msgpack_object *e = &pyr->via.array.ptr[i];
        int64_t level = 0, pos = 0;
        int id = 0, rot = 0;
        if ((rc = id_of(maat_msg_get(e, "large"), 0, "pyramid large", st, sn,
                        &id, err)) ||
            (rc = maat_msg_get_int(e, "level", 1, b->levels, &level, err)) ||
            (rc = maat_msg_get_int(e, "pos", 0, MAAT_ARC_MAX_SPACES, &pos,
                                   err)) ||
            (rc = get_bool(e, "rotated", &rot, err)))
            return rc;
        int space = maat_arc_space(b, (int)level, (int)pos);
        if (space < 0 || s->large[space] >= 0)
            return maat_error_set(err, MAAT_EDECODE, "pyramid: level %d "
                                  "position %d is not a free large space",
                                  (int)level, (int)pos);
        s->large[space] = (int8_t)id;
        s->rotated[space] = (uint8_t)rot;
        s->placed++;
    }
    const msgpack_object *sm = array_field(
        p, "smalls", (uint32_t)maat_arc_n_small_spaces(b), 0, err);
    if (!sm)
        return MAAT_EDECODE;
    for (uint32_t i = 0; i < sm->via.array.size; i++) {
        const msgpack_object *e = &sm->via.array.ptr[i];
        const msgpack_object *side = maat_msg_get(e, "side");
        int64_t level = 0;
        int id = 0;
        if ((rc = id_of(maat_msg_get(e, "small"), 1, "smalls small", st, sn,
                        &id, err)) ||
            (rc = maat_msg_get_int(e, "level", 1, b->levels, &level, err)))
            return rc;
        int k = 2 * ((int)level - 1) + (maat_msg_str_eq(side, "right") ? 1 : 0);
        if ((!maat_msg_str_eq(side, "left") &&
             !maat_msg_str_eq(side, "right")) || s->small[k] >= 0)
            return maat_error_set(err, MAAT_EDECODE, "smalls: 'side' must be "
                                  "left or right, each small space once");
        s->small[k] = (int8_t)id;
    }
    if ((rc = ids(p, "collection", 1, MAAT_ARC_MAX_SMALL, st, sn,
                  s->collection, &n, err)))
        return rc;
    s->n_collection = (uint8_t)n;
    if ((rc = ids(p, "hand", 1, MAAT_ARC_MAX_SMALL, st, sn, s->hand, &n,
                  err)))
        return rc;
    s->n_hand = (uint8_t)n;
    if ((rc = ids(p, "cards", 2, MAAT_ARC_MAX_SPOTS, st, sn, s->cards, &n,
                  err)))
        return rc;
    s->n_cards = (uint8_t)n;
    return MAAT_OK;
}

/* What every position of a real game satisfies and the rules rely on to
 * always offer a move and to end: seats take turns in order, one large
 * stone each per turn, so the counts of stones placed follow from `turn`;
 * there are enough large stones left for the takes still to come; at a
 * take the common stones have slid towards space 0 and the board is full
 * while the supply lasts; a card decision has a face-up card.  A decoded
 * observation that breaks one of them could not have come from a game, and
 * a sample made from it could stall. */
static int playable(const maat_arc_state *st, maat_error *err)
{
    const maat_arc_board *b = st->board;
    if (st->phase == MAAT_ARC_OVER)
        return MAAT_OK;
    int turns = st->seats * b->n_large;
    if (st->turn >= turns || st->to_move != st->turn % st->seats)
        return maat_error_set(err, MAAT_EDECODE, "turn %d with seat %d to "
                              "move is not a turn of this game", st->turn,
                              st->to_move);
    int mid = st->phase == MAAT_ARC_SMALL || st->phase == MAAT_ARC_CARD;
    for (int j = 0; j < st->seats; j++) {
        int want = st->turn / st->seats + (j < st->to_move) +
                   (j == st->to_move && mid);
        if (st->seat[j].placed != want)
            return maat_error_set(err, MAAT_EDECODE, "players[%d] placed %d "
                                  "large stones; after %d turns it has %d",
                                  j, st->seat[j].placed, st->turn, want);
    }
    int on_board = 0, gap = 0, compact = 1;
    for (int i = 0; i < b->common; i++) {
        if (st->common[i] >= 0) {
            on_board++;
            compact &= !gap;
        } else {
            gap = 1;
        }
    }
    int left = turns - st->turn - (st->phase != MAAT_ARC_TAKE);
    if (on_board + st->n_supply < left)
        return maat_error_set(err, MAAT_EDECODE, "%d large stones left for "
                              "%d takes", on_board + st->n_supply, left);
    if (st->phase == MAAT_ARC_TAKE &&
        (!compact || (st->n_supply > 0 && on_board < b->common)))
        return maat_error_set(err, MAAT_EDECODE, "at a take the common "
                              "stones have slid to space 0 and the board is "
                              "refilled");
    if (st->phase == MAAT_ARC_CARD) {
        int any = 0;
        for (int i = 0; i < b->faceup; i++)
            any |= st->faceup[i] >= 0;
        if (!any || st->pending_cards == 0)
            return maat_error_set(err, MAAT_EDECODE, "a card decision with "
                                  "no card owed or none face up");
    }
    return MAAT_OK;
}

int maat_arc_observation_decode(const msgpack_object *o, maat_arc_state *st,
                                maat_error *err)
{
    static const char *const phases[] = {"take", "place", "small", "card",
                                         "over"};
    const maat_arc_stones *stones = st->stones;
    const maat_arc_cards *cards = st->cards;
    const maat_arc_board *b = st->board;
    seen sn;
    int64_t v = 0;
    int rc, n = 0;
    memset(st, 0, sizeof *st);
    memset(&sn, 0, sizeof sn);
    st->stones = stones;
    st->cards = cards;
    st->board = b;
    memset(st->common, -1, sizeof st->common);
    memset(st->faceup, -1, sizeof st->faceup);
    memset(st->supply, UNKNOWN, sizeof st->supply);
    memset(st->bag, UNKNOWN, sizeof st->bag);
    memset(st->pile, UNKNOWN, sizeof st->pile);
    for (int i = 0; i < MAAT_ARC_MAX_SEATS; i++) {
        memset(st->seat[i].large, -1, sizeof st->seat[i].large);
        memset(st->seat[i].small, -1, sizeof st->seat[i].small);
    }
    if (!o || o->type != MSGPACK_OBJECT_MAP)
        return maat_error_set(err, MAAT_EDECODE,
                              "the observation must be a map");
    if (!maat_msg_str_eq(maat_msg_get(o, "game"), "architects"))
        return maat_error_set(err, MAAT_EDECODE,
                              "not an architects observation");
    if ((rc = maat_msg_get_int(o, "seats", 2, MAAT_ARC_MAX_SEATS, &v, err)))
        return rc;
    st->seats = (int)v;
    if ((rc = maat_msg_get_int(o, "turn", 0, 1 << 20, &v, err)))
        return rc;
    st->turn = (int)v;
    const msgpack_object *dec = maat_msg_get(o, "decision");
    st->phase = -1;
    for (int i = 0; i < 5; i++)
        if (maat_msg_str_eq(dec, phases[i]))
            st->phase = i;
    if ((rc = maat_msg_get_int_or(o, "to_move", 0, st->seats - 1, -1, &v,
                                  err)))
        return rc;
    st->to_move = (int)v;
    if (st->phase < 0 || (st->phase == MAAT_ARC_OVER) != (st->to_move < 0))
        return maat_error_set(err, MAAT_EDECODE, "field 'decision' must be "
                              "take, place, small, card (with to_move) or "
                              "over (to_move nil)");
    const msgpack_object *a = array_field(o, "common", (uint32_t)b->common, 1,
                                          err);
    if (!a)
        return MAAT_EDECODE;
    for (int i = 0; i < b->common; i++) {
        if ((rc = id_or_nil(&a->via.array.ptr[i], 0, "common", st, &sn, &n,
                            err)))
            return rc;
        st->common[i] = (int8_t)n;
    }
    if ((rc = ids(o, "space0", 1, MAAT_ARC_MAX_SMALL, st, &sn, st->space0,
                  &st->n_space0, err)))
        return rc;
    if (!(a = array_field(o, "faceup", (uint32_t)b->faceup, 1, err)))
        return MAAT_EDECODE;
    for (int i = 0; i < b->faceup; i++) {
        if ((rc = id_or_nil(&a->via.array.ptr[i], 2, "faceup", st, &sn, &n,
                            err)))
            return rc;
        st->faceup[i] = (int8_t)n;
    }
    if ((rc = maat_msg_get_int(o, "supply_size", 0, stones->n_large, &v,
                               err)))
        return rc;
    st->n_supply = (int)v;
    if ((rc = maat_msg_get_int(o, "bag_size", 0, stones->n_small, &v, err)))
        return rc;
    st->n_bag = (int)v;
    if ((rc = maat_msg_get_int(o, "pile_size", 0, cards->n, &v, err)))
        return rc;
    st->n_pile = (int)v;
    if ((rc = id_or_nil(maat_msg_get(o, "taken"), 0, "taken", st, &sn, &n,
                        err)))
        return rc;
    st->taken = n;
    if ((rc = maat_msg_get_int(o, "pending_cards", 0, MAAT_ARC_MAX_SPOTS, &v,
                               err)))
        return rc;
    st->pending_cards = (int)v;
    if ((st->phase == MAAT_ARC_PLACE) != (st->taken >= 0))
        return maat_error_set(err, MAAT_EDECODE, "field 'taken' is a stone "
                              "exactly during a place decision");
    if (!(a = array_field(o, "players", (uint32_t)st->seats, 1, err)))
        return MAAT_EDECODE;
    for (int j = 0; j < st->seats; j++)
        if ((rc = decode_player(&a->via.array.ptr[j], st, &st->seat[j], &sn,
                                err)))
            return rc;
    if (st->phase == MAAT_ARC_SMALL && st->seat[st->to_move].n_hand == 0)
        return maat_error_set(err, MAAT_EDECODE, "a small decision with no "
                              "small stone held");
    if ((rc = maat_msg_get_int(o, "seat", -1, st->seats - 1, &v, err)))
        return rc;
    return playable(st, err);
}

/* ---- the view ------------------------------------------------------- */

/* ---- following the events (protocol version 2) ----------------------
 * Without an observation the view applies the events to the latest one
 * and runs the turn's state machine as architects.c does (phase, to_move,
 * pending cards, the slide of the common board), the draws named by their
 * events, so that it holds exactly what the observation would hold
 * (tests/test_view_delta.c).  Events are checked against the state; one
 * that does not fit fails the update and the bot asks for the
 * observation (a resync). */

#define FOLLOW_FAIL(...) maat_error_set(err, MAAT_EDECODE, __VA_ARGS__)

/* architects.c's end_turn without the draws: the refill and the small
 * stone drawn arrive as their own events. */
static void follow_end_turn(maat_arc_state *st)
{
    arc_close_gap(st);
    arc_next_turn(st);
}

/* architects.c's next_step. */
static void follow_next_step(maat_arc_state *st)
{
    if (!arc_turn_goes_on(st))
        follow_end_turn(st);
}

/* A card's events are card, faceup (the slot refilled) and for Khnum its
 * draws: the step after it comes at the next other event or at the end of
 * the message. */
static void follow_close_card(maat_view *v)
{
    if (v->card_open) {
        v->card_open = 0;
        follow_next_step(&v->obs);
    }
}

static int hand_pop(maat_arc_seat *s, int stone)
{
    if (s->n_hand == 0 || s->hand[0] != stone)
        return -1;
    memmove(s->hand, s->hand + 1, (size_t)(s->n_hand - 1));
    s->hand[--s->n_hand] = 0; /* as decoded: unused entries zero */
    return 0;
}

static int follow_event(maat_view *v, int kind, int seat, const int32_t *a,
                        maat_error *err)
{
    maat_arc_state *st = &v->obs;
    const maat_arc_board *b = st->board;
    if (v->card_open &&
        !(kind == MAAT_ARC_EV_FACEUP ||
          (kind == MAAT_ARC_EV_DRAW && a[1] == 1 && seat == st->to_move)))
        follow_close_card(v);
    if (kind != MAAT_ARC_EV_REFILL && kind != MAAT_ARC_EV_FACEUP &&
        kind != MAAT_ARC_EV_END && (seat < 0 || seat >= st->seats))
        return FOLLOW_FAIL("event for seat %d of %d", seat, st->seats);
    int mover = kind == MAAT_ARC_EV_PAY || kind == MAAT_ARC_EV_TAKE ||
                kind == MAAT_ARC_EV_PLACE || kind == MAAT_ARC_EV_SMALL ||
                kind == MAAT_ARC_EV_CARD;
    if (mover && seat != st->to_move)
        return FOLLOW_FAIL("seat %d moved out of turn", seat);
    maat_arc_seat *s = seat >= 0 ? &st->seat[seat] : NULL;
    switch (kind) {
    case MAAT_ARC_EV_REFILL:
        if (a[0] >= b->common || st->common[a[0]] >= 0 || st->n_supply == 0)
            return FOLLOW_FAIL("a refill of space %d out of turn", a[0]);
        st->common[a[0]] = (int8_t)a[1];
        st->n_supply--;
        return MAAT_OK;
    case MAAT_ARC_EV_FACEUP:
        if (a[0] >= b->faceup || st->faceup[a[0]] >= 0 || st->n_pile == 0)
            return FOLLOW_FAIL("a card turned up into slot %d out of turn",
                               a[0]);
        st->faceup[a[0]] = (int8_t)a[1];
        st->n_pile--;
        return MAAT_OK;
    case MAAT_ARC_EV_DRAW:
        if (s->n_hand >= MAAT_ARC_MAX_SMALL || st->n_bag == 0)
            return FOLLOW_FAIL("a draw out of turn");
        s->hand[s->n_hand++] = (uint8_t)a[0];
        st->n_bag--;
        return MAAT_OK;
    case MAAT_ARC_EV_PAY:
        if (st->phase != MAAT_ARC_TAKE || hand_pop(s, a[0]) ||
            st->n_space0 >= MAAT_ARC_MAX_SMALL)
            return FOLLOW_FAIL("seat %d paid out of turn", seat);
        st->space0[st->n_space0++] = (uint8_t)a[0];
        return MAAT_OK;
    case MAAT_ARC_EV_TAKE:
        if (st->phase != MAAT_ARC_TAKE || a[0] >= b->common ||
            st->common[a[0]] != a[1] ||
            (a[0] == 0 && (a[2] != st->n_space0 ||
                           s->n_hand + st->n_space0 > MAAT_ARC_MAX_SMALL)))
            return FOLLOW_FAIL("seat %d took space %d out of turn", seat,
                               a[0]);
        if (a[0] == 0) {
            memcpy(s->hand + s->n_hand, st->space0, (size_t)st->n_space0);
            s->n_hand = (uint8_t)(s->n_hand + st->n_space0);
            memset(st->space0, 0, sizeof st->space0);
            st->n_space0 = 0;
        }
        st->common[a[0]] = -1;
        st->taken = a[1];
        st->phase = MAAT_ARC_PLACE;
        return MAAT_OK;
    case MAAT_ARC_EV_PLACE: {
        int space = maat_arc_space(b, a[1], a[2]);
        if (st->phase != MAAT_ARC_PLACE || a[0] != st->taken || space < 0 ||
            s->large[space] >= 0)
            return FOLLOW_FAIL("seat %d placed out of turn", seat);
        s->large[space] = (int8_t)st->taken;
        s->rotated[space] = (uint8_t)(a[3] > 0);
        s->placed++;
        st->taken = -1;
        st->pending_cards = 0; /* the card spots this stone completed */
        for (int i = 0; i < b->n_spots; i++) {
            int p = b->spot[i][0], q = b->spot[i][1];
            st->pending_cards += (p == space && s->large[q] >= 0) ||
                                 (q == space && s->large[p] >= 0);
        }
        follow_next_step(st);
        return MAAT_OK;
    }
    case MAAT_ARC_EV_SMALL:
        if (st->phase != MAAT_ARC_SMALL || hand_pop(s, a[0]))
            return FOLLOW_FAIL("seat %d placed a small stone out of turn",
                               seat);
        if (a[1] <= 0) {
            if (s->n_collection >= MAAT_ARC_MAX_SMALL)
                return FOLLOW_FAIL("a collection too large");
            s->collection[s->n_collection++] = (uint8_t)a[0];
        } else {
            int k = 2 * (a[1] - 1) + (a[2] > 0);
            if (a[1] > b->levels || s->small[k] >= 0)
                return FOLLOW_FAIL("small space taken");
            s->small[k] = (int8_t)a[0];
        }
        follow_next_step(st);
        return MAAT_OK;
    case MAAT_ARC_EV_CARD:
        if (st->phase != MAAT_ARC_CARD || a[1] >= b->faceup ||
            st->faceup[a[1]] != a[0] || s->n_cards >= MAAT_ARC_MAX_SPOTS)
            return FOLLOW_FAIL("seat %d took card %d out of turn", seat,
                               a[0]);
        s->cards[s->n_cards++] = (uint8_t)a[0];
        st->faceup[a[1]] = -1;
        st->pending_cards--;
        v->card_open = 1;
        return MAAT_OK;
    case MAAT_ARC_EV_END:
        if (st->phase != MAAT_ARC_OVER)
            return FOLLOW_FAIL("the game ended early");
        return MAAT_OK;
    }
    return FOLLOW_FAIL("unknown event kind %d", kind);
}

/* Every id in range for the setup and in one place only, as the
 * observation decoder checks (id_of). */
static int check_ids(const maat_arc_state *st, maat_error *err)
{
    const maat_arc_board *b = st->board;
    int nl = st->stones->n_large, ns = st->stones->n_small, nc = st->cards->n;
    seen sn;
    int bad = 0;
    memset(&sn, 0, sizeof sn);
#define MARK(arr, n, id) (bad |= (id) >= (n) || (arr)[(id)]++)
    for (int i = 0; i < b->common; i++)
        if (st->common[i] >= 0)
            MARK(sn.large, nl, st->common[i]);
    if (st->taken >= 0)
        MARK(sn.large, nl, st->taken);
    for (int i = 0; i < st->n_space0; i++)
        MARK(sn.small, ns, st->space0[i]);
    for (int i = 0; i < b->faceup; i++)
        if (st->faceup[i] >= 0)
            MARK(sn.card, nc, st->faceup[i]);
    for (int j = 0; j < st->seats; j++) {
        const maat_arc_seat *s = &st->seat[j];
        for (int k = 0; k < b->n_large; k++)
            if (s->large[k] >= 0)
                MARK(sn.large, nl, s->large[k]);
        for (int k = 0; k < maat_arc_n_small_spaces(b); k++)
            if (s->small[k] >= 0)
                MARK(sn.small, ns, s->small[k]);
        for (int k = 0; k < s->n_collection; k++)
            MARK(sn.small, ns, s->collection[k]);
        for (int k = 0; k < s->n_hand; k++)
            MARK(sn.small, ns, s->hand[k]);
        for (int k = 0; k < s->n_cards; k++)
            MARK(sn.card, nc, s->cards[k]);
    }
#undef MARK
    return bad ? maat_error_set(err, MAAT_EDECODE, "the events put an id "
                                "out of range or in two places")
               : MAAT_OK;
}

static int follow(maat_view *v, const msgpack_object *events,
                  maat_error *err)
{
    if (!v->kit.has_observation)
        return maat_error_set(err, MAAT_ESTATE,
                              "no observation to follow yet");
    int rc = !events || events->type != MSGPACK_OBJECT_ARRAY
                 ? maat_error_set(err, MAAT_EDECODE, "events must be an array")
                 : MAAT_OK;
    for (uint32_t i = 0; !rc && i < events->via.array.size; i++) {
        int kind, seat;
        int32_t a[MAAT_ACTION_ARGS];
        rc = maat_wire_decode(&maat_arc_wire_events, &events->via.array.ptr[i],
                              &kind, &seat, a, err);
        if (!rc)
            rc = follow_event(v, kind, seat, a, err);
    }
    if (!rc)
        follow_close_card(v);
    /* what the observation decoder holds every state to: the events of a
     * broken or hostile referee must not get past either */
    if (!rc)
        rc = check_ids(&v->obs, err);
    if (!rc)
        rc = playable(&v->obs, err);
    if (rc) /* until an observation comes */
        v->kit.has_observation = 0;
    return rc;
}

int maat_arc_view_update(maat_view *v, const msgpack_object *events,
                    const msgpack_object *observation, maat_error *err)
{
    if (!observation)
        return follow(v, events, err);
    /* the observation holds everything that is public */
    maat_arc_state st;
    arc_attach(&st, v->kit.setup);
    int rc = maat_arc_observation_decode(observation, &st, err);
    if (!rc)
        rc = maat_kit_view_updated(&v->kit, st.seats, err);
    if (!rc) {
        v->obs = st;
        v->card_open = 0;
    }
    return rc;
}

/* The ids of one kind not seen anywhere, shuffled into out[]; returns
 * their number. */
static int unseen(const uint8_t *mark, int n, uint8_t *out, maat_rng *rng)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!mark[i])
            out[k++] = (uint8_t)i;
    maat_rng_shuffle_u8(rng, out, k);
    return k;
}

/* The rules' own legal_actions on the view's state, as it is: every
 * piece a decision chooses from is public (the common spaces, the stone
 * taken, the pyramid's free spaces, the hand, the face-up cards); only
 * the order of the supply, the bag and the pile is hidden. */
int maat_arc_view_legal_actions(const maat_view *v, maat_action *out, int cap)
{
    if (!v->kit.has_observation ||
        (v->obs.phase != MAAT_ARC_OVER && v->obs.to_move != v->kit.seat))
        return -1;
    return maat_architects_rules.legal_actions(&v->as_game, out, cap);
}

maat_game *maat_arc_determinize(const maat_view *v, maat_rng *rng,
                           maat_error *err)
{
    maat_game *g = maat_kit_determinize_begin(&v->kit, err);
    if (!g)
        return NULL;
    maat_arc_state *st = &g->st;
    *st = v->obs;
    const maat_arc_board *b = st->board;
    seen sn;
    memset(&sn, 0, sizeof sn);
    for (int i = 0; i < b->common; i++)
        if (st->common[i] >= 0)
            sn.large[st->common[i]] = 1;
    if (st->taken >= 0)
        sn.large[st->taken] = 1;
    for (int i = 0; i < st->n_space0; i++)
        sn.small[st->space0[i]] = 1;
    for (int i = 0; i < b->faceup; i++)
        if (st->faceup[i] >= 0)
            sn.card[st->faceup[i]] = 1;
    for (int j = 0; j < st->seats; j++) {
        const maat_arc_seat *s = &st->seat[j];
        for (int i = 0; i < b->n_large; i++)
            if (s->large[i] >= 0)
                sn.large[s->large[i]] = 1;
        for (int k = 0; k < maat_arc_n_small_spaces(b); k++)
            if (s->small[k] >= 0)
                sn.small[s->small[k]] = 1;
        for (int i = 0; i < s->n_collection; i++)
            sn.small[s->collection[i]] = 1;
        for (int i = 0; i < s->n_hand; i++)
            sn.small[s->hand[i]] = 1;
        for (int i = 0; i < s->n_cards; i++)
            sn.card[s->cards[i]] = 1;
    }
    int nl = unseen(sn.large, st->stones->n_large, st->supply, rng);
    int ns = unseen(sn.small, st->stones->n_small, st->bag, rng);
    int nc = unseen(sn.card, st->cards->n, st->pile, rng);
    if (nl != st->n_supply || ns != st->n_bag || nc != st->n_pile) {
        maat_kit_game_destroy(&g);
        maat_error_set(err, MAAT_EDECODE, "the observation does not add up: "
                       "%d unseen large stones for a supply of %d, %d small "
                       "for a bag of %d, %d cards for a pile of %d", nl,
                       v->obs.n_supply, ns, v->obs.n_bag, nc, v->obs.n_pile);
        return NULL;
    }
    /* (the observation decoder already refused an unplayable state) */
    return maat_kit_determinize_end(&maat_architects_rules, g, rng, &st->rng,
                                    NULL, err);
}
