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
#include <stddef.h>
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
    if (!pyr_next_keeper(st))
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

/* The pyramid as bit masks (pyr_occupied, pyramids_internal.h): every
 * spot below is then a few AND and shift operations instead of a loop
 * over the cells.  legal_actions and apply both start from it. */
#define PYR_ROW 0x7Fu /* the bits of one stage */

/* The base row's spots as indices 0..6 (lo - 1 and hi + 1 of the cards
 * there), or 0 when it takes none: it is empty (only a hand-built state
 * can be with pyramid_n > 0), full (4 cards) or touches an end of the
 * grid (the range checks never bind in a reachable state, where the base
 * grows from position 0; they keep a hand-made or forged state from
 * producing a spot outside the grid). */
static inline int base_spots(uint32_t row0, int *left, int *right)
{
    uint32_t four = row0 & (row0 - 1); /* drop three cards: any left? */
    four &= four - 1;
    four &= four - 1;
    if (row0 == 0 || four)
        return 0;
    *left = __builtin_ctz(row0) - 1;
    *right = 31 - __builtin_clz(row0) + 1;
    return *left >= 0 && *right < MAAT_PYR_POSITIONS;
}

/* The spots of the upper stages, all at once: bit 7 * (stage - 1) + i is
 * set when position i of stage `stage` (1..3) is free and its two
 * supports (i and i + 1 of the stage below) are there.  Each stage's row
 * is compared with the row below it shifted into its place; the last
 * position of each row below has no right neighbour (UPPER_ROWS). */
#define UPPER_ROWS (0x3Fu | 0x1Fu << 7 | 0x0Fu << 14)
static inline uint32_t upper_spots(uint32_t occ)
{
    return ~(occ >> 7) & occ & occ >> 1 & UPPER_ROWS;
}

/* A pair of int32, as two consecutive args of an action. */
typedef struct duo {
    int32_t a, b;
} duo;

/* The legal spots for a new pyramid card, in the order maat_pyr_spots
 * lists them (the base row's left then right end, then every upper stage
 * by position), as (stage, position) pairs: returns how many, at most
 * 2 + 6 + 5 + 4. */
static int spots_of(const maat_pyr_seat *s, duo spot[17])
{
    if (s->pyramid_n == 0) {
        const duo apex = {0, 0};
        spot[0] = apex;
        return 1;
    }
    uint32_t occ = pyr_occupied(s);
    int n = 0, left, right;
    if (base_spots(occ & PYR_ROW, &left, &right)) {
        const duo l = {0, left - MAAT_PYR_POS_OFFSET},
                  r = {0, right - MAAT_PYR_POS_OFFSET};
        spot[0] = l;
        spot[1] = r;
        n = 2;
    }
    for (uint32_t m = upper_spots(occ); m; m &= m - 1) {
        int b = __builtin_ctz(m), up = (b >= 7) + (b >= 14);
        const duo d = {1 + up, b - 7 * up - MAAT_PYR_POS_OFFSET};
        spot[n++] = d;
    }
    return n;
}

int maat_pyr_spots(const maat_pyr_seat *s, int spot[][2], int cap)
{
    duo sp[17];
    int n = spots_of(s, sp);
    for (int k = 0; k < n && k < cap; k++) {
        spot[k][0] = sp[k].a;
        spot[k][1] = sp[k].b;
    }
    return n;
}

/* Is (stage, pos) among maat_pyr_spots(s)?  Decided for that one spot
 * rather than by listing them all: apply asks this on every build. */
static int spot_is_legal(const maat_pyr_seat *s, int stage, int pos)
{
    if (s->pyramid_n == 0)
        return stage == 0 && pos == 0;
    if (stage < 0 || stage >= MAAT_PYR_STAGES ||
        pos < -MAAT_PYR_POS_OFFSET || pos > MAAT_PYR_POS_OFFSET - stage)
        return 0;
    int i = pos + MAAT_PYR_POS_OFFSET;
    if (stage > 0)
        return s->grid[stage][i] < 0 && s->grid[stage - 1][i] >= 0 &&
               s->grid[stage - 1][i + 1] >= 0;
    int left, right;
    return base_spots(pyr_occupied(s) & PYR_ROW, &left, &right) &&
           (i == left || i == right);
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
 * the pyramid, then spot, then (tomb, obelisk): neither; obelisk only;
 * then per tomb card, tomb only and tomb with each remaining obelisk card
 * -- the other cards taken in hand order.  With the other cards x and y
 * the choices are, in that order, some of
 *
 *   (-, -) (-, x) (-, y) (x, -) (x, y) (y, -) (y, x)
 *
 * which ones depending only on the God tile (and the tomb and obelisk not
 * being full) and the hand size: decided once per call.  This is the hot
 * loop of every random playout, so each action is written as four pairs
 * of int32 -- (kind, card) made per card, (stage, pos) per spot, (tomb,
 * obelisk), and the two unused args -- with the choices spelt out rather
 * than looped over. */

static inline maat_action *put_build(maat_action *out, duo head, duo spot,
                                     int32_t tomb, int32_t obelisk)
{
    const duo tail = {tomb, obelisk}, unused = {-1, -1};
    char *a = (char *)out;
    memcpy(a, &head, sizeof head);
    memcpy(a + offsetof(maat_action, arg[1]), &spot, sizeof spot);
    memcpy(a + offsetof(maat_action, arg[3]), &tail, sizeof tail);
    memcpy(a + offsetof(maat_action, arg[5]), &unused, sizeof unused);
    return out + 1;
}

/* What a build may add to the pyramid card: bit 0 obelisk x, 1 obelisk
 * y, 2 tomb x, 3 tomb y, 4 both (x, y) and (y, x). */
enum { OB_X = 1, OB_Y = 2, TOMB_X = 4, TOMB_Y = 8, BOTH = 16 };

/* The build actions with `card` for the pyramid, x and y the other
 * cards, for the spots given; returns the end of what it wrote. */
static inline maat_action *card_builds(maat_action *o, int32_t card,
                                       int32_t x, int32_t y, const duo *spot,
                                       int ns, int with)
{
    const duo head = {MAAT_PYR_BUILD, card};
    for (int k = 0; k < ns; k++) {
        duo sp = spot[k];
        o = put_build(o, head, sp, -1, -1);
        if (with & OB_X)
            o = put_build(o, head, sp, -1, x);
        if (with & OB_Y)
            o = put_build(o, head, sp, -1, y);
        if (with & TOMB_X)
            o = put_build(o, head, sp, x, -1);
        if (with & BOTH)
            o = put_build(o, head, sp, x, y);
        if (with & TOMB_Y)
            o = put_build(o, head, sp, y, -1);
        if (with & BOTH)
            o = put_build(o, head, sp, y, x);
    }
    return o;
}

/* Every build action, for the spots given, into out (room for all).
 * (a hand of fewer than three cards reads a stale slot for y, or x, that
 * `with` then never uses) */
static inline void write_builds(const maat_pyr_seat *s, int hand_n,
                                const duo *spot, int ns, int with,
                                maat_action *o)
{
    int32_t h0 = s->hand[0], h1 = s->hand[1], h2 = s->hand[2];
    if (hand_n > 0)
        o = card_builds(o, h0, h1, h2, spot, ns, with);
    if (hand_n > 1)
        o = card_builds(o, h1, h0, h2, spot, ns, with);
    if (hand_n > 2)
        card_builds(o, h2, h0, h1, spot, ns, with);
}

/* A list longer than the caller's cap: made whole here, then cut. */
static __attribute__((noinline)) void
write_builds_cut(const maat_pyr_seat *s, int hand_n, const duo *spot,
                 int ns, int with, maat_action *out, int cap)
{
    maat_action all[3 * 17 * 7];
    write_builds(s, hand_n, spot, ns, with, all);
    if (cap > 0)
        memcpy(out, all, sizeof *out * (size_t)cap);
}

/* (not inlined into legal_actions, whose other decisions would pay for
 * its stack frame) */
static __attribute__((noinline)) int
build_actions(const maat_pyr_state *st, const maat_pyr_seat *s,
              maat_action *out, int cap)
{
    duo spot[17];
    int ns = spots_of(s, spot);
    /* (the size checks only bind in hand-made states: one card per
     * edifice per round fills at most 10) */
    int god = s->god, hand_n = s->hand_n < 3 ? s->hand_n : 3;
    int tomb = pyr_may_tomb(god) && s->tomb_n < MAAT_PYR_ROUNDS;
    int ob = pyr_may_obelisk(god) && s->obelisk_n < MAAT_PYR_ROUNDS;
    int both = ob && pyr_may_both(god, st->seats);
    int with = (ob && hand_n >= 2 ? OB_X : 0) |
               (ob && hand_n >= 3 ? OB_Y : 0) |
               (tomb && hand_n >= 2 ? TOMB_X : 0) |
               (tomb && hand_n >= 3 ? TOMB_Y | (both ? BOTH : 0) : 0);
    int ne = 1 + (with & OB_X ? 1 : 0) + (with & OB_Y ? 1 : 0) +
             (with & TOMB_X ? 1 : 0) + (with & TOMB_Y ? 1 : 0) +
             (with & BOTH ? 2 : 0);
    int n = hand_n * ns * ne;
    if (n > cap) { /* only a caller's small cap gets here */
        write_builds_cut(s, hand_n, spot, ns, with, out, cap);
        return n;
    }
    /* the God tiles' usual choices (all but Horus's with three cards:
     * OB_Y and TOMB_Y need them), each its own copy of the loop with the
     * tests of `with` and the hand size folded away */
    switch (with) {
    case 0: /* Horus */
        write_builds(s, hand_n, spot, ns, 0, out);
        break;
    case OB_X | OB_Y: /* Khepri */
        write_builds(s, 3, spot, ns, OB_X | OB_Y, out);
        break;
    case TOMB_X | TOMB_Y: /* Anubis */
        write_builds(s, 3, spot, ns, TOMB_X | TOMB_Y, out);
        break;
    case OB_X | OB_Y | TOMB_X | TOMB_Y: /* Sekhmet, 4-5 seats */
        write_builds(s, 3, spot, ns, OB_X | OB_Y | TOMB_X | TOMB_Y, out);
        break;
    case OB_X | OB_Y | TOMB_X | TOMB_Y | BOTH: /* Thoth */
        write_builds(s, 3, spot, ns, OB_X | OB_Y | TOMB_X | TOMB_Y | BOTH,
                     out);
        break;
    default:
        write_builds(s, hand_n, spot, ns, with, out);
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

/* An action of the wrong kind, or any action once the game is over. */
static int refuse_kind(const maat_pyr_state *st, const maat_action *a,
                       maat_error *err)
{
    if (st->phase == MAAT_PYR_OVER)
        return maat_error_set(err, MAAT_ESTATE, "the game is over");
    return maat_error_set(err, MAAT_EILLEGAL,
                          "a '%s' action answers a '%s' decision",
                          a->kind >= 0 && a->kind < 4
                              ? decision_names[a->kind] : "unknown",
                          decision_names[st->phase]);
}

/* One function per decision, each checking its action and applying it;
 * apply only dispatches to them.  (Kept out of line: inlined into one
 * apply, every decision would pay for the registers and stack of the
 * build's.) */
#define PYR_APPLY static __attribute__((noinline)) int

PYR_APPLY apply_god(maat_pyr_state *st, const maat_action *a,
                    maat_events *ev, maat_error *err)
{
    int tile = a->arg[0], me = st->to_move;
    if (!tile_available(st, tile))
        return maat_error_set(err, MAAT_EILLEGAL,
                              "God tile %d is not available", tile);
    st->tile_owner[tile] = (int8_t)me;
    st->seat[me].god = (uint8_t)tile;
    emit(ev, MAAT_PYR_EV_GOD, me, tile, 0, 0);
    if (++st->cursor < st->seats) {
        st->to_move = (st->first + st->cursor) % st->seats;
    } else {
        st->cursor = 0;
        next_pair(st, ev);
    }
    return MAAT_OK;
}

PYR_APPLY apply_pair(maat_pyr_state *st, const maat_action *a,
                     maat_events *ev, maat_error *err)
{
    int pair = a->arg[0], me = st->to_move;
    maat_pyr_seat *s = &st->seat[me];
    if (pair < 0 || pair >= st->seats || st->quarry[pair][0] < 0)
        return maat_error_set(err, MAAT_EILLEGAL,
                              "quarry pair %d is not available", pair);
    if (s->hand_n > 1) /* only a hand-made state gets here */
        return maat_error_set(err, MAAT_EILLEGAL, "the hand has %d "
                              "cards; a pair fits only a hand of 0 or 1",
                              s->hand_n);
    int8_t *q = st->quarry[pair];
    s->hand[s->hand_n++] = (uint8_t)q[0];
    s->hand[s->hand_n++] = (uint8_t)q[1];
    emit(ev, MAAT_PYR_EV_PAIR, me, pair, q[0], q[1]);
    q[0] = q[1] = -1;
    st->phase = MAAT_PYR_BUILD;
    return MAAT_OK;
}

PYR_APPLY apply_build(maat_pyr_state *st, const maat_action *a,
                      maat_events *ev, maat_error *err)
{
    int me = st->to_move;
    maat_pyr_seat *s = &st->seat[me];
    int rc = check_build(st, s, a, err);
    if (rc)
        return rc;
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
    return MAAT_OK;
}

PYR_APPLY apply_keep(maat_pyr_state *st, const maat_action *a,
                     maat_events *ev, maat_error *err)
{
    int keep = a->arg[0], me = st->to_move;
    maat_pyr_seat *s = &st->seat[me];
    if (hand_index(s, keep) < 0)
        return maat_error_set(err, MAAT_EILLEGAL,
                              "card %d is not in your hand", keep);
    for (int i = 0; i < s->hand_n; i++)
        if (s->hand[i] != keep) {
            st->discard[st->discard_n++] = s->hand[i];
            emit(ev, MAAT_PYR_EV_DISCARD, me, s->hand[i], 0, 0);
        }
    s->hand[0] = (uint8_t)keep;
    s->hand_n = 1;
    emit(ev, MAAT_PYR_EV_KEEP, me, keep, 0, 0);
    st->cursor++;
    next_keep(st, ev);
    return MAAT_OK;
}

static int apply(maat_game *g, const maat_action *a, maat_events *ev,
                 maat_error *err)
{
    maat_pyr_state *st = &g->st;
    if (a->kind != st->phase || st->phase == MAAT_PYR_OVER)
        return refuse_kind(st, a, err);
    switch (a->kind) {
    case MAAT_PYR_GOD:
        return apply_god(st, a, ev, err);
    case MAAT_PYR_PAIR:
        return apply_pair(st, a, ev, err);
    case MAAT_PYR_BUILD:
        return apply_build(st, a, ev, err);
    default:
        return apply_keep(st, a, ev, err);
    }
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
