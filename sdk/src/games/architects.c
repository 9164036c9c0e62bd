/* architects.c -- the rules of the architects' game: setup, the order of
 * decisions, legal actions and applying them.  Scoring is in
 * architects_score.c, the component files in architects_data.c, the
 * msgpack side in architects_wire.c, the bot side in architects_view.c.
 *
 * A turn runs as a small state machine over st->phase:
 *   TAKE   pay the held small stone onto space 0 and take the stone of a
 *          space 1..; or take space 0's stone with every small stone on it;
 *   PLACE  the large stone into a free large space, maybe rotated;
 *   SMALL  one decision per small stone held, in the order held (own stone
 *          first, then those from space 0 in the order they were laid):
 *          a free small space or the collection;
 *   CARD   when the large stone completed a card spot: a face-up card;
 *          Khnum draws 2 small stones, placed by SMALL decisions at once;
 *   then the common board slides and refills, the seat draws a small
 *   stone, and the next seat takes its turn.
 * The rules page's "place" step is split in PLACE + SMALLs because a seat
 * may hold many small stones and an action is 7 ints (docs/RULES-NOTES.md);
 * every decision is the seat's own, forced or not.
 *
 * All chance is drawn at game_new: the supply, the bag and the pile are
 * shuffled then, and every draw takes the last element of its array. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "architects_internal.h"

static const char *const decision_names[] = {"take", "place", "small",
                                             "card"};
static const char *const event_names[] = {"refill", "faceup", "draw", "pay",
                                          "take",   "place",  "small",
                                          "card",   "end"};
static const char *const score_parts[] = {"structure", "chambers",
                                          "symbols",   "workers",
                                          "collection", "cards"};

/* ---- events --------------------------------------------------------- */

/* Every event of this game is public (architects_wire.c declares them):
 * nothing but the orders of the supply, the bag and the pile is hidden,
 * and no event names an element before it is drawn face up. */
static inline void emit(maat_events *ev, int kind, int seat, int a0, int a1,
                        int a2, int a3)
{
    maat_wire_emit(ev, &maat_arc_wire_events, kind, seat, a0, a1, a2, a3);
}

/* ---- setup ---------------------------------------------------------- */

static maat_setup *setup_new(const maat_options *opt, maat_error *err)
{
    static const char *const known[] = {"stones", "cards", "board", NULL};
    if (maat_kit_options_check(opt, "architects", known, err))
        return NULL;
    maat_setup *s = MAAT_KIT_SETUP_NEW("architects", err);
    if (!s)
        return NULL;
    maat_kit_component c[3] = {
        {"stones", "stones", "architects-stones.txt", NULL, 0,
         maat_arc_parse_stones},
        {"cards", "cards", "architects-cards.txt", NULL, 0, maat_arc_parse_cards},
        {"board", "board", "architects-board.txt", NULL, 0, maat_arc_parse_board},
    };
    c[0].ref = maat_arc_reference_stones(&c[0].ref_len);
    c[1].ref = maat_arc_reference_cards(&c[1].ref_len);
    c[2].ref = maat_arc_reference_board(&c[2].ref_len);
    int rc = maat_kit_component_load(&c[0], opt, &s->stones, s->stones_name,
                                     sizeof s->stones_name, err);
    if (!rc)
        rc = maat_kit_component_load(&c[1], opt, &s->cards, s->cards_name,
                                     sizeof s->cards_name, err);
    if (!rc)
        rc = maat_kit_component_load(&c[2], opt, &s->board, s->board_name,
                                     sizeof s->board_name, err);
    if (!rc)
        rc = maat_arc_setup_check(s, err);
    if (rc)
        maat_kit_setup_destroy(&s);
    return s;
}

/* ---- draws ---------------------------------------------------------- */

static int draw_large(maat_arc_state *st)
{
    return st->n_supply ? st->supply[--st->n_supply] : -1;
}

static int draw_small(maat_arc_state *st)
{
    return st->n_bag ? st->bag[--st->n_bag] : -1;
}

static int draw_card(maat_arc_state *st)
{
    return st->n_pile ? st->pile[--st->n_pile] : -1;
}

/* seat draws a small stone into its hand, if the bag has one */
static void seat_draws(maat_arc_state *st, int seat, int why,
                       maat_events *ev)
{
    int s = draw_small(st);
    if (s < 0)
        return;
    maat_arc_seat *me = &st->seat[seat];
    me->hand[me->n_hand++] = (uint8_t)s;
    emit(ev, MAAT_ARC_EV_DRAW, seat, s, why, 0, 0);
}

/* ---- turn flow ------------------------------------------------------ */

static void end_turn(maat_arc_state *st, maat_events *ev)
{
    /* close the gap, then refill the first empty space (space common-1
     * unless the supply ran out earlier) */
    int k = arc_close_gap(st);
    if (k < st->board->common) {
        int stone = draw_large(st);
        if (stone >= 0) {
            st->common[k] = (int8_t)stone;
            emit(ev, MAAT_ARC_EV_REFILL, -1, k, stone, 0, 0);
        }
    }
    seat_draws(st, st->to_move, 0, ev);
    if (arc_next_turn(st))
        emit(ev, MAAT_ARC_EV_END, -1, 0, 0, 0, 0);
}

/* After a placement or a card: small stones still held come first, then
 * the cards owed, then the end of the turn. */
static void next_step(maat_arc_state *st, maat_events *ev)
{
    if (!arc_turn_goes_on(st))
        end_turn(st, ev);
}

/* Card spots completed by filling `space`: those with the other space
 * already filled. */
static int spots_completed(const maat_arc_state *st, const maat_arc_seat *s,
                           int space)
{
    const maat_arc_board *b = st->board;
    int n = 0;
    for (int i = 0; i < b->n_spots; i++) {
        int a = b->spot[i][0], c = b->spot[i][1];
        if ((a == space && s->large[c] >= 0) ||
            (c == space && s->large[a] >= 0))
            n++;
    }
    return n;
}

/* Rotating changes something only for a stone open on one side. */
static int may_rotate(const maat_arc_stones *st, int stone)
{
    int o = st->large[stone].open;
    return o == MAAT_ARC_OPEN_LEFT || o == MAAT_ARC_OPEN_RIGHT;
}

/* ---- the interface -------------------------------------------------- */

static maat_game *game_new(const maat_setup *setup, const maat_seed *seed,
                           int seats, maat_events *ev, maat_error *err)
{
    maat_game *g = maat_kit_game_new(setup, seats, 2, MAAT_ARC_MAX_SEATS,
                                     err);
    if (!g)
        return NULL;
    maat_arc_state *st = &g->st;
    arc_attach(st, setup);
    const maat_arc_board *b = st->board;
    st->seats = seats;
    st->taken = -1;
    memset(st->common, -1, sizeof st->common);
    memset(st->faceup, -1, sizeof st->faceup);
    for (int i = 0; i < MAAT_ARC_MAX_SEATS; i++) {
        memset(st->seat[i].large, -1, sizeof st->seat[i].large);
        memset(st->seat[i].small, -1, sizeof st->seat[i].small);
    }
    /* the shuffles, in this order (docs/RULES-NOTES.md) */
    maat_rng_seed(&st->rng, seed);
    st->n_supply = setup->stones.n_large;
    for (int i = 0; i < st->n_supply; i++)
        st->supply[i] = (uint8_t)i;
    maat_rng_shuffle_u8(&st->rng, st->supply, st->n_supply);
    st->n_bag = setup->stones.n_small;
    for (int i = 0; i < st->n_bag; i++)
        st->bag[i] = (uint8_t)i;
    maat_rng_shuffle_u8(&st->rng, st->bag, st->n_bag);
    st->n_pile = setup->cards.n;
    for (int i = 0; i < st->n_pile; i++)
        st->pile[i] = (uint8_t)i;
    maat_rng_shuffle_u8(&st->rng, st->pile, st->n_pile);

    /* (the second bound is the parser's; it tells gcc -O3 too) */
    for (int i = 0; i < b->common && i < MAAT_ARC_MAX_COMMON; i++) {
        int stone = draw_large(st);
        st->common[i] = (int8_t)stone;
        if (stone >= 0)
            emit(ev, MAAT_ARC_EV_REFILL, -1, i, stone, 0, 0);
    }
    for (int i = 0; i < b->faceup && i < MAAT_ARC_MAX_FACEUP; i++) {
        int card = draw_card(st);
        st->faceup[i] = (int8_t)card;
        if (card >= 0)
            emit(ev, MAAT_ARC_EV_FACEUP, -1, i, card, 0, 0);
    }
    for (int i = 0; i < seats; i++)
        seat_draws(st, i, 0, ev);
    st->phase = MAAT_ARC_TAKE;
    st->to_move = 0;
    return g;
}

static maat_decision decision(const maat_game *g)
{
    maat_decision d = {g->st.to_move, g->st.phase};
    return d;
}

static int is_over(const maat_game *g)
{
    return g->st.phase == MAAT_ARC_OVER;
}

static void put(maat_action *out, int cap, int *n, int kind, int a0, int a1,
                int a2, int a3)
{
    if (*n < cap) {
        maat_action a = {kind, {a0, a1, a2, a3, -1, -1, -1}};
        out[*n] = a;
    }
    (*n)++;
}

/* The PLACE and SMALL lists, the long ones (~780 actions a 4-seat game),
 * written as four 8-byte words an action (maat_kit_put_pairs), all but
 * one the same for the whole list, from the free spaces as bits: a large
 * or small space is free when its byte is -1 (maat_kit_signs16).  Only
 * with room for the longest list; a caller's small cap takes the loops
 * of legal_actions. */
#define ARC_MAX_PLACES (2 * MAAT_ARC_MAX_SPACES)
#define ARC_MAX_SMALLS (MAAT_ARC_MAX_SMALLSP + 1)

static __attribute__((noinline)) int
write_places(const maat_arc_state *st, const maat_arc_seat *s,
             maat_action *out)
{
    const maat_arc_board *b = st->board;
    uint32_t free = maat_kit_signs16(s->large) |
                    maat_kit_signs16(s->large + 16) << 16;
    if (b->n_large < MAAT_ARC_MAX_SPACES)
        free &= (1u << b->n_large) - 1;
    const uint64_t head = maat_kit_pair(MAAT_ARC_PLACE, st->taken),
                   unturned = maat_kit_pair(0, -1),
                   turned = maat_kit_pair(1, -1), none = maat_kit_pair(-1, -1);
    char *o = (char *)out;
    if (may_rotate(st->stones, st->taken)) {
        for (; free; free &= free - 1, o += 2 * sizeof(maat_action)) {
            int i = __builtin_ctz(free);
            uint64_t at = maat_kit_pair(b->space_level[i], b->space_pos[i]);
            maat_kit_put_pairs(o, head, at, unturned, none);
            maat_kit_put_pairs(o + sizeof(maat_action), head, at, turned,
                               none);
        }
    } else {
        for (; free; free &= free - 1, o += sizeof(maat_action)) {
            int i = __builtin_ctz(free);
            uint64_t at = maat_kit_pair(b->space_level[i], b->space_pos[i]);
            maat_kit_put_pairs(o, head, at, unturned, none);
        }
    }
    return (int)((o - (char *)out) / (int)sizeof(maat_action));
}

static __attribute__((noinline)) int
write_smalls(const maat_arc_state *st, const maat_arc_seat *s,
             maat_action *out)
{
    int spaces = maat_arc_n_small_spaces(st->board);
    uint32_t free = maat_kit_signs16(s->small);
    if (spaces < MAAT_ARC_MAX_SMALLSP)
        free &= (1u << spaces) - 1;
    const uint64_t head = maat_kit_pair(MAAT_ARC_SMALL, s->hand[0]),
                   none = maat_kit_pair(-1, -1);
    char *o = (char *)out;
    for (; free; free &= free - 1, o += sizeof(maat_action)) {
        int k = __builtin_ctz(free);
        maat_kit_put_pairs(o, head, maat_kit_pair(k / 2 + 1, k % 2), none,
                           none);
    }
    /* the collection last */
    maat_kit_put_pairs(o, head, maat_kit_pair(0, -1), none, none);
    return (int)((o - (char *)out) / (int)sizeof(maat_action)) + 1;
}

/* TAKE: the common board's stones (space 0 always, the others with a
 * small stone to pay); CARD: the face-up cards.  At most 8 each. */
static __attribute__((noinline)) int
write_takes(const maat_arc_state *st, const maat_arc_seat *s,
            maat_action *out)
{
    uint32_t there = ~maat_kit_signs8(st->common) & 0xFF;
    int spaces = st->board->common;
    if (spaces < MAAT_ARC_MAX_COMMON)
        there &= (1u << spaces) - 1;
    if (s->n_hand == 0)
        there &= 1;
    const uint64_t none = maat_kit_pair(-1, -1);
    char *o = (char *)out;
    for (; there; there &= there - 1, o += sizeof(maat_action))
        maat_kit_put_pairs(o, maat_kit_pair(MAAT_ARC_TAKE,
                                            __builtin_ctz(there)),
                           none, none, none);
    return (int)((o - (char *)out) / (int)sizeof(maat_action));
}

/* Order: TAKE by space; PLACE by space (level, then position), unrotated
 * first; SMALL by small space (level, left before right), the collection
 * last; CARD by face-up slot.  Every list, cut at cap: the writers above
 * do the same with room for all (kept out of line, like this one, so
 * that legal_actions only dispatches). */
static __attribute__((noinline)) int
legal_capped(const maat_arc_state *st, maat_action *out, int cap)
{
    const maat_arc_board *b = st->board;
    const maat_arc_seat *s = &st->seat[st->to_move];
    int n = 0;
    switch (st->phase) {
    case MAAT_ARC_TAKE:
        for (int i = 0; i < b->common; i++)
            if (st->common[i] >= 0 && (i == 0 || s->n_hand > 0))
                put(out, cap, &n, MAAT_ARC_TAKE, i, -1, -1, -1);
        break;
    case MAAT_ARC_PLACE: {
        int rot = may_rotate(st->stones, st->taken);
        for (int i = 0; i < b->n_large; i++)
            if (s->large[i] < 0)
                for (int r = 0; r <= rot; r++)
                    put(out, cap, &n, MAAT_ARC_PLACE, st->taken,
                        b->space_level[i], b->space_pos[i], r);
        break;
    }
    case MAAT_ARC_SMALL:
        for (int k = 0; k < maat_arc_n_small_spaces(b); k++)
            if (s->small[k] < 0)
                put(out, cap, &n, MAAT_ARC_SMALL, s->hand[0], k / 2 + 1,
                    k % 2, -1);
        put(out, cap, &n, MAAT_ARC_SMALL, s->hand[0], 0, -1, -1);
        break;
    case MAAT_ARC_CARD:
        for (int i = 0; i < b->faceup; i++)
            if (st->faceup[i] >= 0)
                put(out, cap, &n, MAAT_ARC_CARD, st->faceup[i], -1, -1, -1);
        break;
    }
    return n;
}

static int legal_actions(const maat_game *g, maat_action *out, int cap)
{
    const maat_arc_state *st = &g->st;
    if (st->phase == MAAT_ARC_OVER)
        return 0;
    const maat_arc_seat *s = &st->seat[st->to_move];
    switch (st->phase) {
    case MAAT_ARC_TAKE:
        if (cap >= MAAT_ARC_MAX_COMMON)
            return write_takes(st, s, out);
        break;
    case MAAT_ARC_PLACE:
        if (cap >= ARC_MAX_PLACES)
            return write_places(st, s, out);
        break;
    case MAAT_ARC_SMALL:
        if (cap >= ARC_MAX_SMALLS)
            return write_smalls(st, s, out);
        break;
    }
    return legal_capped(st, out, cap);
}

static int check(const maat_arc_state *st, const maat_action *a,
                 maat_error *err)
{
    const maat_arc_board *b = st->board;
    if (st->phase == MAAT_ARC_OVER)
        return maat_error_set(err, MAAT_ESTATE, "the game is over");
    if (a->kind != st->phase)
        return maat_error_set(err, MAAT_EILLEGAL,
                              "a '%s' action answers a '%s' decision",
                              a->kind >= 0 && a->kind < MAAT_ARC_OVER
                                  ? decision_names[a->kind] : "unknown",
                              decision_names[st->phase]);
    /* one spelling per action: the args a kind does not use are -1, as
     * decode_action makes them */
    static const int n_args[4] = {1, 4, 3, 1};
    for (int i = n_args[a->kind]; i < MAAT_ACTION_ARGS; i++)
        if (a->arg[i] != -1)
            return maat_error_set(err, MAAT_EILLEGAL, "arg %d of a '%s' "
                                  "action is unused and must be -1", i,
                                  decision_names[a->kind]);
    const maat_arc_seat *s = &st->seat[st->to_move];
    switch (a->kind) {
    case MAAT_ARC_TAKE: {
        int k = a->arg[0];
        if (k < 0 || k >= b->common)
            return maat_error_set(err, MAAT_EILLEGAL, "the common board has "
                                  "spaces 0..%d, not %d", b->common - 1, k);
        if (st->common[k] < 0)
            return maat_error_set(err, MAAT_EILLEGAL, "space %d of the "
                                  "common board is empty", k);
        if (k > 0 && s->n_hand == 0)
            return maat_error_set(err, MAAT_EILLEGAL, "space %d must be paid "
                                  "with a small stone and you hold none: "
                                  "take space 0", k);
        return MAAT_OK;
    }
    case MAAT_ARC_PLACE: {
        int space = maat_arc_space(b, a->arg[1], a->arg[2]);
        if (a->arg[0] != st->taken)
            return maat_error_set(err, MAAT_EILLEGAL, "the stone to place is "
                                  "large stone %d, not %d", st->taken,
                                  a->arg[0]);
        if (space < 0)
            return maat_error_set(err, MAAT_EILLEGAL, "level %d position %d "
                                  "is not a large space of the pyramid",
                                  a->arg[1], a->arg[2]);
        if (s->large[space] >= 0)
            return maat_error_set(err, MAAT_EILLEGAL, "level %d position %d "
                                  "is taken", a->arg[1], a->arg[2]);
        if (a->arg[3] != 0 && a->arg[3] != 1)
            return maat_error_set(err, MAAT_EILLEGAL, "rotated is 0 or 1, not "
                                  "%d", a->arg[3]);
        if (a->arg[3] && !may_rotate(st->stones, st->taken))
            return maat_error_set(err, MAAT_EILLEGAL, "large stone %d opens "
                                  "on both sides or none, so rotating it "
                                  "changes nothing: send rotated false",
                                  st->taken);
        return MAAT_OK;
    }
    case MAAT_ARC_SMALL: {
        int level = a->arg[1], side = a->arg[2];
        if (a->arg[0] != s->hand[0])
            return maat_error_set(err, MAAT_EILLEGAL, "the small stone to "
                                  "place is %d (the first one held), not %d",
                                  s->hand[0], a->arg[0]);
        if (level == 0 && side == -1)
            return MAAT_OK; /* the collection takes any number */
        if (level < 1 || level > b->levels || (side != 0 && side != 1))
            return maat_error_set(err, MAAT_EILLEGAL, "level %d side %d is "
                                  "not a small space of the pyramid", level,
                                  side);
        if (s->small[2 * (level - 1) + side] >= 0)
            return maat_error_set(err, MAAT_EILLEGAL, "the %s small space of "
                                  "level %d is taken",
                                  side ? "right" : "left", level);
        return MAAT_OK;
    }
    default: /* MAAT_ARC_CARD */
        for (int i = 0; i < b->faceup; i++)
            if (st->faceup[i] >= 0 && st->faceup[i] == a->arg[0])
                return MAAT_OK;
        return maat_error_set(err, MAAT_EILLEGAL, "card %d is not face up",
                              a->arg[0]);
    }
}

static int apply(maat_game *g, const maat_action *a, maat_events *ev,
                 maat_error *err)
{
    maat_arc_state *st = &g->st;
    int rc = check(st, a, err);
    if (rc)
        return rc;
    const maat_arc_board *b = st->board;
    int me = st->to_move;
    maat_arc_seat *s = &st->seat[me];
    switch (a->kind) {
    case MAAT_ARC_TAKE: {
        int k = a->arg[0], stone = st->common[k], picked = 0;
        if (k == 0) {
            /* the small stones on it join the hand, after the own one */
            memcpy(s->hand + s->n_hand, st->space0, (size_t)st->n_space0);
            s->n_hand = (uint8_t)(s->n_hand + st->n_space0);
            picked = st->n_space0;
            st->n_space0 = 0;
        } else {
            int pay = s->hand[0];
            memmove(s->hand, s->hand + 1, (size_t)(s->n_hand - 1));
            s->n_hand--;
            st->space0[st->n_space0++] = (uint8_t)pay;
            emit(ev, MAAT_ARC_EV_PAY, me, pay, 0, 0, 0);
        }
        st->common[k] = -1;
        st->taken = stone;
        st->phase = MAAT_ARC_PLACE;
        emit(ev, MAAT_ARC_EV_TAKE, me, k, stone, picked, 0);
        break;
    }
    case MAAT_ARC_PLACE: {
        int space = maat_arc_space(b, a->arg[1], a->arg[2]);
        s->large[space] = (int8_t)st->taken;
        s->rotated[space] = (uint8_t)a->arg[3];
        s->placed++;
        emit(ev, MAAT_ARC_EV_PLACE, me, st->taken, a->arg[1], a->arg[2],
             a->arg[3]);
        st->taken = -1;
        st->pending_cards = spots_completed(st, s, space);
        next_step(st, ev);
        break;
    }
    case MAAT_ARC_SMALL: {
        int stone = s->hand[0], level = a->arg[1], side = a->arg[2];
        memmove(s->hand, s->hand + 1, (size_t)(s->n_hand - 1));
        s->n_hand--;
        if (level == 0)
            s->collection[s->n_collection++] = (uint8_t)stone;
        else
            s->small[2 * (level - 1) + side] = (int8_t)stone;
        emit(ev, MAAT_ARC_EV_SMALL, me, stone, level, side, 0);
        next_step(st, ev);
        break;
    }
    case MAAT_ARC_CARD: {
        int card = a->arg[0], slot = 0;
        while (st->faceup[slot] != card)
            slot++;
        s->cards[s->n_cards++] = (uint8_t)card;
        emit(ev, MAAT_ARC_EV_CARD, me, card, slot, 0, 0);
        int next = draw_card(st);
        st->faceup[slot] = (int8_t)next;
        if (next >= 0)
            emit(ev, MAAT_ARC_EV_FACEUP, -1, slot, next, 0, 0);
        st->pending_cards--;
        if (st->cards->kind[card] == MAAT_ARC_KHNUM)
            for (int i = 0; i < MAAT_ARC_KHNUM_DRAW; i++)
                seat_draws(st, me, 1, ev);
        next_step(st, ev);
        break;
    }
    }
    return MAAT_OK;
}

const maat_arc_state *maat_arc_state_of(const maat_game *g)
{
    return &g->st;
}

maat_arc_state *maat_arc_state_mut(maat_game *g)
{
    return &g->st;
}

MAAT_KIT_FUNCS(maat_arc_wire_actions, maat_arc_wire_events)

const maat_rules maat_architects_rules = {
    .name = "architects",
    .rules_version = "architects-2",
    .min_seats = 2,
    .max_seats = MAAT_ARC_MAX_SEATS,
    .decision_names = decision_names,
    .n_decision_kinds = 4,
    .event_names = event_names,
    .n_event_kinds = MAAT_ARC_EV_KINDS,
    .score_parts = score_parts,
    .n_score_parts = MAAT_ARC_S_PARTS,
    MAAT_KIT_ENTRIES(maat_arc_wire_actions, maat_arc_wire_events),
    .setup_new = setup_new,
    .setup_encode = maat_arc_setup_encode,
    .game_new = game_new,
    .decision = decision,
    .is_over = is_over,
    .legal_actions = legal_actions,
    .apply = apply,
    .scores = maat_arc_scores,
    .encode_observation = maat_arc_encode_observation,
    .render = maat_arc_render,
    .setup_decode = maat_arc_setup_decode,
    .view_update = maat_arc_view_update,
    .determinize = maat_arc_determinize,
};
