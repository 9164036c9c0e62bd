/* pyramids.c -- the rules of Pyramids: setup, the order of decisions,
 * legal actions and applying them.  Scoring is in pyramids_score.c, the
 * msgpack side in pyramids_wire.c, the deck file in pyramids_deck.c.
 *
 * A round runs as a small state machine over st->phase:
 *   GOD   seats from the first player clockwise take a tile;
 *   PAIR  the holder of the lowest untreated tile takes a quarry pair ...
 *   BUILD ... and builds at once (pyramid + what its tile allows);
 *   KEEP  from the first player clockwise, each seat with 2+ cards keeps one.
 * Every state change emits events (maat_event) tagged with who may see
 * them; the referee forwards them, the state itself never leaves here. */
#include <stdlib.h>
#include <string.h>

#include "pyramids_internal.h"

const char *const maat_pyr_god_names[6] = {"", "Horus", "Anubis", "Khepri",
                                           "Sekhmet", "Thoth"};

static const char *const decision_names[] = {"god", "pair", "build", "keep"};
static const char *const event_names[] = {
    "deal", "round", "quarry", "god", "pair", "pyramid",
    "obelisk", "tomb", "discard", "keep", "end"};
static const char *const score_parts[] = {
    "groups", "largest", "bonus", "obelisk", "tomb", "glyphs"};

/* ---- events --------------------------------------------------------- */

/* Who sees an event is in its declaration (pyramids_wire.c): deal and keep
 * only their seat, a tomb's card only its owner. */
static inline void emit(maat_events *ev, int kind, int seat, int a0, int a1,
                        int a2)
{
    maat_wire_emit(ev, &pyr_wire_events, kind, seat, a0, a1, a2, 0);
}

/* ---- setup ---------------------------------------------------------- */

static maat_setup *setup_new(const maat_options *opt, maat_error *err)
{
    static const char *const known[] = {"deck", NULL};
    if (maat_kit_options_check(opt, "pyramids", known, err))
        return NULL;
    maat_setup *s = MAAT_KIT_SETUP_NEW("pyramids", err);
    maat_kit_component deck = {"deck", "deck", "pyramids-deck.txt", NULL, 0,
                               pyr_parse_deck};
    deck.ref = maat_pyr_reference_deck_text(&deck.ref_len);
    if (s && maat_kit_component_load(&deck, opt, &s->deck, s->deck_name,
                                     sizeof s->deck_name, err))
        maat_kit_setup_destroy(&s);
    return s;
}

/* ---- round flow ----------------------------------------------------- */

static int deal_card(maat_pyr_state *st)
{
    /* 1 + 10 rounds x 2 cards per seat = 21 per seat; 5 seats use all 105 */
    return st->order[st->deck_pos++];
}

static void end_game(maat_pyr_state *st, maat_events *ev);

static void start_round(maat_pyr_state *st, maat_events *ev)
{
    if (st->deck_pos + 2 * st->seats > MAAT_PYR_CARDS) {
        end_game(st, ev); /* only a hand-made state runs out of cards */
        return;
    }
    emit(ev, MAAT_PYR_EV_ROUND, -1, st->round, st->first,
         st->set_aside);
    for (int i = 0; i < st->seats; i++) {
        st->quarry[i][0] = (int8_t)deal_card(st);
        st->quarry[i][1] = (int8_t)deal_card(st);
        emit(ev, MAAT_PYR_EV_QUARRY, -1, i, st->quarry[i][0],
             st->quarry[i][1]);
    }
    memset(st->tile_owner, -1, sizeof st->tile_owner);
    for (int i = 0; i < st->seats; i++)
        st->seat[i].god = 0;
    st->phase = MAAT_PYR_GOD;
    st->cursor = 0;
    st->to_move = st->first;
}

static void end_game(maat_pyr_state *st, maat_events *ev)
{
    for (int i = 0; i < st->seats; i++) {
        maat_pyr_seat *s = &st->seat[i];
        for (int k = 0; k < s->hand_n; k++) {
            st->discard[st->discard_n++] = s->hand[k];
            emit(ev, MAAT_PYR_EV_DISCARD, i, s->hand[k], 0, 0);
        }
        s->hand_n = 0;
    }
    st->phase = MAAT_PYR_OVER;
    st->to_move = -1;
    emit(ev, MAAT_PYR_EV_END, -1, 0, 0, 0);
}

/* Next seat (from the first player clockwise, from st->cursor on) that
 * must keep one card; else the next round starts. */
static void next_keep(maat_pyr_state *st, maat_events *ev)
{
    for (; st->cursor < st->seats; st->cursor++) {
        int seat = (st->first + st->cursor) % st->seats;
        if (st->seat[seat].hand_n > 1) {
            st->phase = MAAT_PYR_KEEP;
            st->to_move = seat;
            return;
        }
    }
    st->first = (st->first + 1) % st->seats;
    st->round++;
    start_round(st, ev);
}

static void end_round(maat_pyr_state *st, maat_events *ev)
{
    /* the God tiles go back before anyone discards (rules, step 4) */
    memset(st->tile_owner, -1, sizeof st->tile_owner);
    for (int i = 0; i < st->seats; i++)
        st->seat[i].god = 0;
    if (st->round == MAAT_PYR_ROUNDS) {
        end_game(st, ev);
        return;
    }
    if (st->seats == 2)
        st->set_aside = (uint8_t)(st->set_aside % 4 + 1);
    st->cursor = 0;
    next_keep(st, ev);
}

/* The holder of the lowest tile above st->cursor takes a pair next. */
static void next_pair(maat_pyr_state *st, maat_events *ev)
{
    for (int t = st->cursor + 1; t <= 5; t++)
        if (st->tile_owner[t] >= 0) {
            st->cursor = t;
            st->phase = MAAT_PYR_PAIR;
            st->to_move = st->tile_owner[t];
            return;
        }
    end_round(st, ev);
}

/* Inlined into the GOD enumeration and check below; the exported
 * pyr_tile_available is the same test for pyramids_wire.c. */
static inline int tile_available(const maat_pyr_state *st, int tile)
{
    return tile >= 1 && tile <= pyr_tiles(st->seats) &&
           tile != st->set_aside && st->tile_owner[tile] < 0;
}

int pyr_tile_available(const maat_pyr_state *st, int tile)
{
    return tile_available(st, tile);
}

/* ---- the pyramid ---------------------------------------------------- */

/* The base row: how many cards it holds and its leftmost and rightmost
 * positions (99 and -99 when it is empty, as only a hand-built state can
 * be with pyramid_n > 0). */
static int base_span(const maat_pyr_seat *s, int *lo, int *hi)
{
    int base = 0;
    *lo = 99;
    *hi = -99;
    for (int i = 0; i < MAAT_PYR_POSITIONS; i++)
        if (s->grid[0][i] >= 0) {
            if (base++ == 0)
                *lo = i - MAAT_PYR_POS_OFFSET;
            *hi = i - MAAT_PYR_POS_OFFSET;
        }
    return base;
}

/* Position p of stage s > 0 is a spot when it is free and both cards
 * under it (p and p + 1 of stage s - 1) are there.  Index arithmetic
 * only: for s >= 1 every p in -3..3-s has p + 1 inside the row below. */
static inline int upper_spot(const maat_pyr_seat *s, int stage, int i)
{
    return s->grid[stage][i] < 0 && s->grid[stage - 1][i] >= 0 &&
           s->grid[stage - 1][i + 1] >= 0;
}

/* maat_pyr_spots; static so that build_actions inlines it rather than
 * calling through the shared library's PLT. */
static int spots(const maat_pyr_seat *s, int spot[][2], int cap)
{
    int n = 0;
    if (s->pyramid_n == 0) {
        if (cap > 0) {
            spot[0][0] = 0;
            spot[0][1] = 0;
        }
        return 1;
    }
    int lo, hi;
    /* the range checks never bind in a reachable state (the base grows
     * from position 0 and has at most 4 cards); they keep a hand-made or
     * forged state from producing a spot outside the grid */
    int base = base_span(s, &lo, &hi);
    if (base > 0 && base < 4 && lo - 1 >= -MAAT_PYR_POS_OFFSET &&
        hi + 1 <= MAAT_PYR_POS_OFFSET) {
        if (n < cap) { spot[n][0] = 0; spot[n][1] = lo - 1; }
        n++;
        if (n < cap) { spot[n][0] = 0; spot[n][1] = hi + 1; }
        n++;
    }
    for (int stage = 1; stage < MAAT_PYR_STAGES; stage++)
        for (int i = 0; i < MAAT_PYR_POSITIONS - stage; i++)
            if (upper_spot(s, stage, i)) {
                if (n < cap) {
                    spot[n][0] = stage;
                    spot[n][1] = i - MAAT_PYR_POS_OFFSET;
                }
                n++;
            }
    return n;
}

int maat_pyr_spots(const maat_pyr_seat *s, int spot[][2], int cap)
{
    return spots(s, spot, cap);
}

/* Is (stage, pos) among maat_pyr_spots(s)?  Decided for that one spot
 * rather than by listing them all: apply asks this on every build. */
static int spot_is_legal(const maat_pyr_seat *s, int stage, int pos)
{
    if (s->pyramid_n == 0)
        return stage == 0 && pos == 0;
    if (stage == 0) {
        int lo, hi, base = base_span(s, &lo, &hi);
        return base > 0 && base < 4 && lo - 1 >= -MAAT_PYR_POS_OFFSET &&
               hi + 1 <= MAAT_PYR_POS_OFFSET &&
               (pos == lo - 1 || pos == hi + 1);
    }
    if (stage < 1 || stage >= MAAT_PYR_STAGES ||
        pos < -MAAT_PYR_POS_OFFSET || pos > MAAT_PYR_POS_OFFSET - stage)
        return 0;
    return upper_spot(s, stage, pos + MAAT_PYR_POS_OFFSET);
}

static int hand_index(const maat_pyr_seat *s, int card)
{
    for (int i = 0; i < s->hand_n; i++)
        if (s->hand[i] == card)
            return i;
    return -1;
}

static void hand_remove(maat_pyr_seat *s, int card)
{
    /* a plain loop: at most two bytes move, less than a memmove call */
    for (int i = hand_index(s, card); i + 1 < s->hand_n; i++)
        s->hand[i] = s->hand[i + 1];
    s->hand_n--;
}

/* ---- the interface -------------------------------------------------- */

static maat_game *game_new(const maat_setup *setup, const maat_seed *seed,
                           int seats, maat_events *ev, maat_error *err)
{
    maat_game *g = maat_kit_game_new(setup, seats, 2, MAAT_PYR_MAX_SEATS,
                                     err);
    if (!g)
        return NULL;
    maat_pyr_state *st = &g->st;
    st->deck = &setup->deck;
    st->seats = seats;
    memset(st->seat, -1, sizeof st->seat);
    for (int i = 0; i < MAAT_PYR_MAX_SEATS; i++) {
        st->seat[i].pyramid_n = st->seat[i].hand_n = 0;
        st->seat[i].obelisk_n = st->seat[i].tomb_n = st->seat[i].god = 0;
    }
    maat_rng_seed(&st->rng, seed);
    for (int i = 0; i < MAAT_PYR_CARDS; i++)
        st->order[i] = (uint8_t)i;
    maat_rng_shuffle_u8(&st->rng, st->order, MAAT_PYR_CARDS);
    for (int i = 0; i < seats; i++) {
        int c = deal_card(st);
        st->seat[i].hand[st->seat[i].hand_n++] = (uint8_t)c;
        emit(ev, MAAT_PYR_EV_DEAL, i, c, 0, 0);
    }
    if (seats == 2)
        st->set_aside = (uint8_t)(1 + maat_rng_below(&st->rng, 4));
    st->round = 1;
    st->first = 0;
    start_round(st, ev);
    return g;
}

static maat_decision decision(const maat_game *g)
{
    maat_decision d = {g->st.to_move, g->st.phase};
    return d;
}

static int is_over(const maat_game *g)
{
    return g->st.phase == MAAT_PYR_OVER;
}

static void put(maat_action *out, int cap, int *n, int kind, int a0, int a1,
                int a2, int a3, int a4)
{
    if (*n < cap) {
        maat_action a = {kind, {a0, a1, a2, a3, a4, -1, -1}};
        out[*n] = a;
    }
    (*n)++;
}

/* BUILD actions, in the order they have always been listed: by card for
 * the pyramid, then spot, then tomb card (none first, then by hand
 * index), then obelisk card likewise.  Which (tomb, obelisk) pairs go
 * with a pyramid card depends on the card and the God tile, not on the
 * spot, so each is made once per card as a whole action and the spot loop
 * only copies it and fills in the spot.  This is the hot loop of every
 * random playout. */
static int build_actions(const maat_pyr_state *st, const maat_pyr_seat *s,
                         maat_action *out, int cap)
{
    int spot[16][2];
    int ns = spots(s, spot, 16);
    /* (the size checks only bind in hand-made states: one card per
     * edifice per round fills at most 10) */
    int god = s->god;
    int tomb = pyr_may_tomb(god) && s->tomb_n < MAAT_PYR_ROUNDS;
    int ob = pyr_may_obelisk(god) && s->obelisk_n < MAAT_PYR_ROUNDS;
    int both = ob && pyr_may_both(god, st->seats);
    int n = 0;
    for (int i = 0; i < s->hand_n; i++) {
        /* the other cards, by hand index: candidates for tomb and obelisk */
        int other[3], no = 0;
        for (int j = 0; j < s->hand_n; j++)
            if (j != i)
                other[no++] = s->hand[j];
        /* (tomb, obelisk): neither; obelisk only; then per tomb card, tomb
         * only and tomb with each remaining obelisk card.  That is at most
         * 7 with the two other cards of a full hand; sized for three. */
        maat_action tmpl[1 + 3 + 3 * 3];
        int ne = 0;
        maat_action a = {MAAT_PYR_BUILD, {s->hand[i], 0, 0, -1, -1, -1, -1}};
        tmpl[ne++] = a;
        for (int o = 0; ob && o < no; o++) {
            a.arg[4] = other[o];
            tmpl[ne++] = a;
        }
        for (int t = 0; tomb && t < no; t++) {
            a.arg[3] = other[t];
            a.arg[4] = -1;
            tmpl[ne++] = a;
            for (int o = 0; both && o < no; o++)
                if (o != t) {
                    a.arg[4] = other[o];
                    tmpl[ne++] = a;
                }
        }
        if (n + ns * ne <= cap) { /* the usual case: everything fits */
            for (int k = 0; k < ns; k++)
                for (int e = 0; e < ne; e++, n++) {
                    out[n] = tmpl[e];
                    out[n].arg[1] = spot[k][0];
                    out[n].arg[2] = spot[k][1];
                }
            continue;
        }
        for (int k = 0; k < ns; k++)
            for (int e = 0; e < ne; e++, n++)
                if (n < cap) {
                    out[n] = tmpl[e];
                    out[n].arg[1] = spot[k][0];
                    out[n].arg[2] = spot[k][1];
                }
    }
    return n;
}

static int legal_actions(const maat_game *g, maat_action *out, int cap)
{
    const maat_pyr_state *st = &g->st;
    int n = 0;
    if (st->phase == MAAT_PYR_OVER)
        return 0;
    const maat_pyr_seat *s = &st->seat[st->to_move];
    switch (st->phase) {
    case MAAT_PYR_GOD:
        for (int t = 1; t <= 5; t++)
            if (tile_available(st, t))
                put(out, cap, &n, MAAT_PYR_GOD, t, -1, -1, -1, -1);
        break;
    case MAAT_PYR_PAIR:
        for (int i = 0; i < st->seats && s->hand_n <= 1; i++)
            if (st->quarry[i][0] >= 0)
                put(out, cap, &n, MAAT_PYR_PAIR, i, -1, -1, -1, -1);
        break;
    case MAAT_PYR_KEEP:
        for (int i = 0; i < s->hand_n; i++)
            put(out, cap, &n, MAAT_PYR_KEEP, s->hand[i], -1, -1, -1, -1);
        break;
    case MAAT_PYR_BUILD:
        n = build_actions(st, s, out, cap);
        break;
    }
    return n;
}

static int check_build(const maat_pyr_state *st, const maat_pyr_seat *s,
                       const maat_action *a, maat_error *err)
{
    int card = a->arg[0], stage = a->arg[1], pos = a->arg[2];
    int tomb = a->arg[3], ob = a->arg[4], god = s->god;
    if (hand_index(s, card) < 0)
        return maat_error_set(err, MAAT_EILLEGAL,
                              "card %d for the pyramid is not in your hand",
                              card);
    if (!spot_is_legal(s, stage, pos))
        return maat_error_set(err, MAAT_EILLEGAL,
                              "stage %d position %d is not a free, supported "
                              "spot of your pyramid", stage, pos);
    if (tomb != -1) {
        if (!pyr_may_tomb(god))
            return maat_error_set(err, MAAT_EILLEGAL,
                                  "%s does not allow a tomb card",
                                  maat_pyr_god_names[god]);
        if (tomb == card || hand_index(s, tomb) < 0)
            return maat_error_set(err, MAAT_EILLEGAL,
                                  "card %d for the tomb is not another card "
                                  "in your hand", tomb);
        if (s->tomb_n >= MAAT_PYR_ROUNDS)
            return maat_error_set(err, MAAT_EILLEGAL, "the tomb is full");
    }
    if (ob != -1) {
        if (!pyr_may_obelisk(god))
            return maat_error_set(err, MAAT_EILLEGAL,
                                  "%s does not allow an obelisk card",
                                  maat_pyr_god_names[god]);
        if (s->obelisk_n >= MAAT_PYR_ROUNDS)
            return maat_error_set(err, MAAT_EILLEGAL, "the obelisk is full");
        if (ob == card || ob == tomb || hand_index(s, ob) < 0)
            return maat_error_set(err, MAAT_EILLEGAL,
                                  "card %d for the obelisk is not another "
                                  "card in your hand", ob);
    }
    if (tomb != -1 && ob != -1 && !pyr_may_both(god, st->seats))
        return maat_error_set(err, MAAT_EILLEGAL,
                              "%s with %d players allows the tomb or the "
                              "obelisk, not both", maat_pyr_god_names[god],
                              st->seats);
    return MAAT_OK;
}

static int check(const maat_pyr_state *st, const maat_action *a,
                 maat_error *err)
{
    if (st->phase == MAAT_PYR_OVER)
        return maat_error_set(err, MAAT_ESTATE, "the game is over");
    if (a->kind != st->phase)
        return maat_error_set(err, MAAT_EILLEGAL,
                              "a '%s' action answers a '%s' decision",
                              a->kind >= 0 && a->kind < 4
                                  ? decision_names[a->kind] : "unknown",
                              decision_names[st->phase]);
    const maat_pyr_seat *s = &st->seat[st->to_move];
    switch (a->kind) {
    case MAAT_PYR_GOD:
        if (!tile_available(st, a->arg[0]))
            return maat_error_set(err, MAAT_EILLEGAL,
                                  "God tile %d is not available", a->arg[0]);
        return MAAT_OK;
    case MAAT_PYR_PAIR:
        if (a->arg[0] < 0 || a->arg[0] >= st->seats ||
            st->quarry[a->arg[0]][0] < 0)
            return maat_error_set(err, MAAT_EILLEGAL,
                                  "quarry pair %d is not available",
                                  a->arg[0]);
        if (s->hand_n > 1) /* only a hand-made state gets here */
            return maat_error_set(err, MAAT_EILLEGAL, "the hand has %d "
                                  "cards; a pair fits only a hand of 0 or 1",
                                  s->hand_n);
        return MAAT_OK;
    case MAAT_PYR_KEEP:
        if (hand_index(s, a->arg[0]) < 0)
            return maat_error_set(err, MAAT_EILLEGAL,
                                  "card %d is not in your hand", a->arg[0]);
        return MAAT_OK;
    default:
        return check_build(st, s, a, err);
    }
}

static int apply(maat_game *g, const maat_action *a, maat_events *ev,
                 maat_error *err)
{
    maat_pyr_state *st = &g->st;
    int rc = check(st, a, err);
    if (rc)
        return rc;
    int me = st->to_move;
    maat_pyr_seat *s = &st->seat[me];
    switch (a->kind) {
    case MAAT_PYR_GOD:
        st->tile_owner[a->arg[0]] = (int8_t)me;
        s->god = (uint8_t)a->arg[0];
        emit(ev, MAAT_PYR_EV_GOD, me, a->arg[0], 0, 0);
        if (++st->cursor < st->seats) {
            st->to_move = (st->first + st->cursor) % st->seats;
        } else {
            st->cursor = 0;
            next_pair(st, ev);
        }
        break;
    case MAAT_PYR_PAIR: {
        int8_t *q = st->quarry[a->arg[0]];
        s->hand[s->hand_n++] = (uint8_t)q[0];
        s->hand[s->hand_n++] = (uint8_t)q[1];
        emit(ev, MAAT_PYR_EV_PAIR, me, a->arg[0], q[0], q[1]);
        q[0] = q[1] = -1;
        st->phase = MAAT_PYR_BUILD;
        break;
    }
    case MAAT_PYR_BUILD: {
        int card = a->arg[0], stage = a->arg[1], pos = a->arg[2];
        hand_remove(s, card);
        s->grid[stage][pos + MAAT_PYR_POS_OFFSET] = (int8_t)card;
        s->pyramid_n++;
        emit(ev, MAAT_PYR_EV_PYRAMID, me, card, stage, pos);
        if (a->arg[3] >= 0) {
            hand_remove(s, a->arg[3]);
            s->tomb[s->tomb_n++] = (uint8_t)a->arg[3];
            emit(ev, MAAT_PYR_EV_TOMB, me, a->arg[3], 0, 0);
        }
        if (a->arg[4] >= 0) {
            hand_remove(s, a->arg[4]);
            s->obelisk[s->obelisk_n++] = (uint8_t)a->arg[4];
            emit(ev, MAAT_PYR_EV_OBELISK, me, a->arg[4], 0, 0);
        }
        next_pair(st, ev);
        break;
    }
    case MAAT_PYR_KEEP:
        for (int i = 0; i < s->hand_n; i++)
            if (s->hand[i] != a->arg[0]) {
                st->discard[st->discard_n++] = s->hand[i];
                emit(ev, MAAT_PYR_EV_DISCARD, me, s->hand[i], 0, 0);
            }
        s->hand[0] = (uint8_t)a->arg[0];
        s->hand_n = 1;
        emit(ev, MAAT_PYR_EV_KEEP, me, a->arg[0], 0, 0);
        st->cursor++;
        next_keep(st, ev);
        break;
    }
    return MAAT_OK;
}

const maat_pyr_state *maat_pyr_state_of(const maat_game *g)
{
    return &g->st;
}

maat_pyr_state *maat_pyr_state_mut(maat_game *g)
{
    return &g->st;
}

MAAT_KIT_FUNCS(pyr_wire_actions, pyr_wire_events)

const maat_rules maat_pyramids_rules = {
    .name = "pyramids",
    .rules_version = "pyramids-2",
    .min_seats = 2,
    .max_seats = MAAT_PYR_MAX_SEATS,
    .decision_names = decision_names,
    .n_decision_kinds = 4,
    .event_names = event_names,
    .n_event_kinds = MAAT_PYR_EV_KINDS,
    .score_parts = score_parts,
    .n_score_parts = MAAT_PYR_S_PARTS,
    MAAT_KIT_ENTRIES(pyr_wire_actions, pyr_wire_events),
    .setup_new = setup_new,
    .setup_encode = pyr_setup_encode,
    .game_new = game_new,
    .decision = decision,
    .is_over = is_over,
    .legal_actions = legal_actions,
    .apply = apply,
    .scores = pyr_scores,
    .encode_observation = pyr_encode_observation,
    .render = pyr_render,
    .setup_decode = pyr_setup_decode,
    .view_update = pyr_view_update,
    .determinize = pyr_determinize,
};
