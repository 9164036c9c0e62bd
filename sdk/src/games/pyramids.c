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
    maat_wire_emit(ev, &maat_pyr_wire_events, kind, seat, a0, a1, a2, 0);
}

/* ---- setup ---------------------------------------------------------- */

static maat_setup *setup_new(const maat_options *opt, maat_error *err)
{
    static const char *const known[] = {"deck", NULL};
    if (maat_kit_options_check(opt, "pyramids", known, err))
        return NULL;
    maat_setup *s = MAAT_KIT_SETUP_NEW("pyramids", err);
    maat_kit_component deck = {"deck", "deck", "pyramids-deck.txt", NULL, 0,
                               maat_pyr_parse_deck};
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

/* No seat holds a God tile: every seat's, in play or not (a seat past
 * st->seats never holds one; five stores, no test of the count). */
static inline void clear_gods(maat_pyr_state *st)
{
    for (int i = 0; i < MAAT_PYR_MAX_SEATS; i++)
        st->seat[i].god = 0;
}

static inline __attribute__((always_inline)) void
start_round_body(maat_pyr_state *st, maat_events *ev)
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
    clear_gods(st);
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

/* The start of a round out of line (once a round, kept out of the
 * decisions that lead to it), made twice: with an event list, and
 * without one (a playout's), where the emits fold away and nothing need
 * be kept across a call, so no register is saved. */
static __attribute__((noinline)) void start_round_ev(maat_pyr_state *st,
                                                     maat_events *ev)
{
    start_round_body(st, ev);
}

static __attribute__((noinline)) void start_round_play(maat_pyr_state *st)
{
    start_round_body(st, NULL);
}

static inline void start_round(maat_pyr_state *st, maat_events *ev)
{
    if (ev)
        start_round_ev(st, ev);
    else
        start_round_play(st);
}

/* Next seat (from the first player clockwise, from st->cursor on) that
 * must keep one card; else the next round starts. */
static void next_keep(maat_pyr_state *st, maat_events *ev)
{
    if (!pyr_next_keeper(st))
        start_round(st, ev);
}

/* (out of line, as start_round: once a round, and kept out of the
 * decisions that may lead to it, which then need no registers saved;
 * MAAT_OK, so that they end with a jump to it) */
static __attribute__((noinline)) int end_round(maat_pyr_state *st,
                                               maat_events *ev)
{
    /* the God tiles go back before anyone discards (rules, step 4) */
    memset(st->tile_owner, -1, sizeof st->tile_owner);
    clear_gods(st);
    if (st->round == MAAT_PYR_ROUNDS) {
        end_game(st, ev);
        return MAAT_OK;
    }
    if (st->seats == 2)
        st->set_aside = (uint8_t)(st->set_aside % 4 + 1);
    st->cursor = 0;
    next_keep(st, ev);
    return MAAT_OK;
}

/* The holder of the lowest tile above st->cursor takes a pair next.
 * MAAT_OK. */
static int next_pair(maat_pyr_state *st, maat_events *ev)
{
    for (int t = st->cursor + 1; t <= 5; t++)
        if (st->tile_owner[t] >= 0) {
            st->cursor = t;
            st->phase = MAAT_PYR_PAIR;
            st->to_move = st->tile_owner[t];
            return MAAT_OK;
        }
    return end_round(st, ev);
}

/* Inlined into the GOD enumeration and check below; the exported
 * maat_pyr_tile_available is the same test for pyramids_wire.c. */
static inline int tile_available(const maat_pyr_state *st, int tile)
{
    return tile >= 1 && tile <= pyr_tiles(st->seats) &&
           tile != st->set_aside && st->tile_owner[tile] < 0;
}

int maat_pyr_tile_available(const maat_pyr_state *st, int tile)
{
    return tile_available(st, tile);
}

/* ---- the pyramid ---------------------------------------------------- */

/* The pyramid as bit masks (pyr_occupied, pyramids_internal.h): every
 * spot below is then a few AND and shift operations instead of a loop
 * over the cells.  legal_actions and apply both start from it. */
#define PYR_ROW 0x7Fu /* the bits of one stage */

/* The base row's spots as bits 0..6 (one left of its first card and one
 * right of its last), or 0 when it takes none: it is empty (only a
 * hand-built state can be with pyramid_n > 0), full (4 cards) or touches
 * an end of the grid (never in a reachable state, where the base grows
 * from position 0; the check keeps a hand-made or forged state from
 * producing a spot outside the grid).  One load from a table of all 128
 * rows, which the preprocessor fills (B_SPOTS: lowest card's bit shifted
 * down, highest card's shifted up). */
#define B_HI(r)                                                              \
    ((r) & 64 ? 64 : (r) & 32 ? 32 : (r) & 16 ? 16 : (r) & 8 ? 8             \
     : (r) & 4 ? 4 : (r) & 2 ? 2 : (r) & 1)
#define B_COUNT(r)                                                           \
    (((r) & 1) + ((r) >> 1 & 1) + ((r) >> 2 & 1) + ((r) >> 3 & 1) +          \
     ((r) >> 4 & 1) + ((r) >> 5 & 1) + ((r) >> 6 & 1))
#define B_SPOTS(r)                                                           \
    ((r) == 0 || B_COUNT(r) >= 4 || ((r) & 1) || (B_HI(r) & 64)              \
         ? 0 : ((r) & (0u - (r))) >> 1 | (unsigned)B_HI(r) << 1)
#define B_SPOTS8(r) B_SPOTS(r), B_SPOTS(r + 1), B_SPOTS(r + 2),             \
    B_SPOTS(r + 3), B_SPOTS(r + 4), B_SPOTS(r + 5), B_SPOTS(r + 6),         \
    B_SPOTS(r + 7)
/* base_spots of every base row, made by the preprocessor */
static const uint8_t base_spot_table[128] = {
    B_SPOTS8(0u), B_SPOTS8(8u), B_SPOTS8(16u), B_SPOTS8(24u),
    B_SPOTS8(32u), B_SPOTS8(40u), B_SPOTS8(48u), B_SPOTS8(56u),
    B_SPOTS8(64u), B_SPOTS8(72u), B_SPOTS8(80u), B_SPOTS8(88u),
    B_SPOTS8(96u), B_SPOTS8(104u), B_SPOTS8(112u), B_SPOTS8(120u)};

static inline uint32_t base_spots(uint32_t row0)
{
    return base_spot_table[row0 & PYR_ROW];
}

/* The spots of the upper stages, all at once: bit 7 * stage + i is set
 * when position i of stage `stage` (1..3) is free and its two supports (i
 * and i + 1 of the stage below) are there.  Each stage's row is compared
 * with the row below it shifted into its place; the last position of each
 * row below has no right neighbour (UPPER_ROWS). */
#define UPPER_ROWS (0x3Fu | 0x1Fu << 7 | 0x0Fu << 14)
static inline uint32_t upper_spots(uint32_t occ)
{
    return (~(occ >> 7) & occ & occ >> 1 & UPPER_ROWS) << 7;
}

/* The legal spots for a new pyramid card as a mask of cells (bit 7 *
 * stage + i for position i - 3).  maat_pyr_spots lists them in the order
 * of their bits: the base row's left then right end, then every upper
 * stage by position -- the order of the build list too. */
static inline uint32_t spot_mask(const maat_pyr_seat *s)
{
    if (s->pyramid_n == 0)
        return 1u << MAAT_PYR_POS_OFFSET; /* the first card: stage 0, pos 0 */
    uint32_t occ = pyr_occupied(s);
    return base_spots(occ & PYR_ROW) | upper_spots(occ);
}

int maat_pyr_spots(const maat_pyr_seat *s, int spot[][2], int cap)
{
    int n = 0;
    for (uint32_t m = spot_mask(s); m; m &= m - 1, n++) {
        int b = __builtin_ctz(m);
        if (n < cap) {
            spot[n][0] = b / MAAT_PYR_POSITIONS;
            spot[n][1] = b % MAAT_PYR_POSITIONS - MAAT_PYR_POS_OFFSET;
        }
    }
    return n;
}

/* Is (stage, pos) among maat_pyr_spots(s)?  apply asks this on every
 * build. */
static inline int spot_is_legal(const maat_pyr_seat *s, int stage, int pos)
{
    if (stage < 0 || stage >= MAAT_PYR_STAGES ||
        pos < -MAAT_PYR_POS_OFFSET || pos > MAAT_PYR_POS_OFFSET - stage)
        return 0;
    return spot_mask(s) >> (MAAT_PYR_POSITIONS * stage + pos +
                            MAAT_PYR_POS_OFFSET) & 1;
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

/* A seat before the deal: every card slot -1, every count 0 (a copy of
 * it, rather than -1 everywhere and the counts cleared after). */
#define EMPTY_ROW {-1, -1, -1, -1, -1, -1, -1}
#define EMPTY_TEN {255, 255, 255, 255, 255, 255, 255, 255, 255, 255}
static const maat_pyr_seat empty_seat = {
    .grid = {EMPTY_ROW, EMPTY_ROW, EMPTY_ROW, EMPTY_ROW},
    .pyramid_n = 0,
    .hand = {255, 255, 255},
    .hand_n = 0,
    .obelisk = EMPTY_TEN,
    .obelisk_n = 0,
    .tomb = EMPTY_TEN,
    .tomb_n = 0,
    .god = 0};

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
    for (int i = 0; i < MAAT_PYR_MAX_SEATS; i++)
        st->seat[i] = empty_seat;
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
 * loop of every random playout, so an action is written as two quads of
 * int32 (maat_kit_quad, kit.h): its head (kind, card, stage, pos), made
 * per card and spot from two quads made in advance, and its tail (tomb,
 * obelisk, -1, -1), one per choice, made per card.  The choices are spelt
 * out per God tile (`with` a constant in each copy of the loop), so the
 * tails stay in registers. */

/* The second half of a build action's head per cell: (0, 0, stage, pos). */
#define SPOT(b) MAAT_KIT_QUAD(0, 0, (b) / 7, (b) % 7 - MAAT_PYR_POS_OFFSET)
#define SPOT7(r) SPOT(7 * (r)), SPOT(7 * (r) + 1), SPOT(7 * (r) + 2),       \
                 SPOT(7 * (r) + 3), SPOT(7 * (r) + 4), SPOT(7 * (r) + 5),   \
                 SPOT(7 * (r) + 6)
static const maat_kit_quad spot_quad[MAAT_PYR_STAGES * MAAT_PYR_POSITIONS] = {
    SPOT7(0), SPOT7(1), SPOT7(2), SPOT7(3)};

/* What a build may add to the pyramid card: bit 0 obelisk x, 1 obelisk
 * y, 2 tomb x, 3 tomb y, 4 both (x, y) and (y, x). */
enum { OB_X = 1, OB_Y = 2, TOMB_X = 4, TOMB_Y = 8, BOTH = 16 };

/* The choices' tails for `card` for the pyramid, x and y the other cards;
 * returns how many. */
static inline int tails_of(maat_kit_quad tail[7], int32_t x, int32_t y,
                           int with)
{
    int ne = 0;
    tail[ne++] = maat_kit_quad_of(-1, -1, -1, -1);
    if (with & OB_X)
        tail[ne++] = maat_kit_quad_of(-1, x, -1, -1);
    if (with & OB_Y)
        tail[ne++] = maat_kit_quad_of(-1, y, -1, -1);
    if (with & TOMB_X)
        tail[ne++] = maat_kit_quad_of(x, -1, -1, -1);
    if (with & BOTH)
        tail[ne++] = maat_kit_quad_of(x, y, -1, -1);
    if (with & TOMB_Y)
        tail[ne++] = maat_kit_quad_of(y, -1, -1, -1);
    if (with & BOTH)
        tail[ne++] = maat_kit_quad_of(y, x, -1, -1);
    return ne;
}

/* A 32-bit popcount without the instruction (not in baseline x86-64). */
static inline int bits_set(uint32_t m)
{
    m -= m >> 1 & 0x55555555u;
    m = (m & 0x33333333u) + (m >> 2 & 0x33333333u);
    m = (m + (m >> 4)) & 0x0F0F0F0Fu;
    return (int)(m * 0x01010101u >> 24);
}

/* The same for a mask of a few bits, as a seat's spots are (one to four
 * in a playout): a step a bit, cheaper than bits_set's dozen. */
static inline int few_bits_set(uint32_t m)
{
    int n = 0;
    for (; m; m &= m - 1)
        n++;
    return n;
}

/* Every build action into out (room for all); returns how many.  The
 * list is card by card, each card's part spot by spot; it is written
 * spot by spot, each spot's quad found once for the (up to) three cards,
 * whose parts start at known places: ns * ne actions apart.  (A hand of
 * fewer than three cards reads a stale slot for y, or x, that `with` then
 * never uses.) */
static inline __attribute__((always_inline)) int
write_builds(const maat_pyr_seat *s, int hand_n, uint32_t spots, int with,
             maat_action *out)
{
    int32_t h[3] = {s->hand[0], s->hand[1], s->hand[2]};
    maat_kit_quad head[3], tail[3][7];
    int ne = tails_of(tail[0], h[1], h[2], with);
    tails_of(tail[1], h[0], h[2], with);
    tails_of(tail[2], h[0], h[1], with);
    for (int c = 0; c < 3; c++)
        head[c] = maat_kit_quad_of(MAAT_PYR_BUILD, h[c], 0, 0);
    int step = few_bits_set(spots) * ne;
    char *o = (char *)out;
    for (uint32_t m = spots; m; m &= m - 1) {
        const maat_kit_quad sq = spot_quad[__builtin_ctz(m)];
        for (int c = 0; c < hand_n; c++) {
            maat_kit_quad hq = maat_kit_quad_or(head[c], sq);
            char *a = o + sizeof(maat_action) * (size_t)(c * step);
            for (int e = 0; e < ne; e++) {
                memcpy(a + sizeof(maat_action) * (size_t)e, &hq, sizeof hq);
                memcpy(a + sizeof(maat_action) * (size_t)e + sizeof hq,
                       &tail[c][e], sizeof hq);
            }
        }
        o += sizeof(maat_action) * (size_t)ne;
    }
    return hand_n * step;
}

/* The longest list: three cards, 2 + 6 + 5 + 4 spots, seven choices. */
#define PYR_MAX_BUILDS (3 * 17 * 7)

/* A list longer than the caller's cap: made whole here, then cut. */
static __attribute__((noinline)) int
write_builds_cut(const maat_pyr_seat *s, int hand_n, uint32_t spots,
                 int with, maat_action *out, int cap)
{
    maat_action all[PYR_MAX_BUILDS];
    int n = write_builds(s, hand_n, spots, with, all);
    if (cap > 0)
        memcpy(out, all, sizeof *out * (size_t)(cap < n ? cap : n));
    return n;
}

/* (not inlined into legal_actions, whose other decisions would pay for
 * its stack frame) */
static __attribute__((noinline)) int
build_actions(const maat_pyr_state *st, const maat_pyr_seat *s,
              maat_action *out, int cap)
{
    uint32_t spots = spot_mask(s);
    int god = s->god;
    /* The usual case, a hand of three and room in the tomb and the
     * obelisk (one card per edifice per round fills at most 10: the
     * checks bind only in hand-made states), decided by the God tile
     * alone; each its own copy of the loop with the choices folded in. */
    if (s->hand_n == 3 && s->tomb_n < MAAT_PYR_ROUNDS &&
        s->obelisk_n < MAAT_PYR_ROUNDS && cap >= PYR_MAX_BUILDS) {
        switch (god) {
        case MAAT_PYR_HORUS:
            return write_builds(s, 3, spots, 0, out);
        case MAAT_PYR_KHEPRI:
            return write_builds(s, 3, spots, OB_X | OB_Y, out);
        case MAAT_PYR_ANUBIS:
            return write_builds(s, 3, spots, TOMB_X | TOMB_Y, out);
        case MAAT_PYR_SEKHMET: /* with 2-3 seats, what Thoth allows */
            if (!pyr_may_both(god, st->seats))
                return write_builds(s, 3, spots,
                                    OB_X | OB_Y | TOMB_X | TOMB_Y, out);
            return write_builds(s, 3, spots,
                                OB_X | OB_Y | TOMB_X | TOMB_Y | BOTH, out);
        case MAAT_PYR_THOTH:
            return write_builds(s, 3, spots,
                                OB_X | OB_Y | TOMB_X | TOMB_Y | BOTH, out);
        }
    }
    int hand_n = s->hand_n < 3 ? s->hand_n : 3;
    int tomb = pyr_may_tomb(god) && s->tomb_n < MAAT_PYR_ROUNDS;
    int ob = pyr_may_obelisk(god) && s->obelisk_n < MAAT_PYR_ROUNDS;
    int both = ob && pyr_may_both(god, st->seats);
    int with = (ob && hand_n >= 2 ? OB_X : 0) |
               (ob && hand_n >= 3 ? OB_Y : 0) |
               (tomb && hand_n >= 2 ? TOMB_X : 0) |
               (tomb && hand_n >= 3 ? TOMB_Y | (both ? BOTH : 0) : 0);
    if (cap < PYR_MAX_BUILDS) { /* a caller's small cap: is it enough? */
        int ne = 1 + bits_set((uint32_t)with & (OB_X | OB_Y | TOMB_X |
                                                TOMB_Y)) +
                 (with & BOTH ? 2 : 0);
        if (hand_n * bits_set(spots) * ne > cap)
            return write_builds_cut(s, hand_n, spots, with, out, cap);
    }
    return write_builds(s, hand_n, spots, with, out);
}

/* The GOD and PAIR lists depend only on which of five tiles or quarry
 * pairs are free: for each of the 32 sets, the heads (kind, arg0, -1, -1)
 * of its list in order, made by the preprocessor (ONE_NTH: the index of
 * the k-th bit of m, -1 when m has fewer bits).  A list is then five
 * head copies and five tails of -1s, written whatever its length (the
 * caller's list has room for five) with no test per candidate. */
#define ONE_BIT(m, i) ((m) >> (i) & 1)
#define ONE_NTH(m, k)                                                        \
    (ONE_BIT(m, 0) && (k) == 0 ? 0                                           \
     : ONE_BIT(m, 1) && (k) == ONE_BIT(m, 0) ? 1                             \
     : ONE_BIT(m, 2) && (k) == ONE_BIT(m, 0) + ONE_BIT(m, 1) ? 2             \
     : ONE_BIT(m, 3) &&                                                      \
             (k) == ONE_BIT(m, 0) + ONE_BIT(m, 1) + ONE_BIT(m, 2) ? 3        \
     : ONE_BIT(m, 4) && (k) == ONE_BIT(m, 0) + ONE_BIT(m, 1) +               \
                                  ONE_BIT(m, 2) + ONE_BIT(m, 3) ? 4 : -1)
#define ONE_HEAD(kind, first, m, k)                                          \
    MAAT_KIT_QUAD(kind, ONE_NTH(m, k) < 0 ? -1 : (first) + ONE_NTH(m, k),    \
                  -1, -1)
#define ONE_LIST(kind, first, m)                                             \
    {ONE_HEAD(kind, first, m, 0), ONE_HEAD(kind, first, m, 1),               \
     ONE_HEAD(kind, first, m, 2), ONE_HEAD(kind, first, m, 3),               \
     ONE_HEAD(kind, first, m, 4)}
#define ONE_LISTS4(kind, first, m)                                           \
    ONE_LIST(kind, first, m), ONE_LIST(kind, first, (m) + 1),                \
        ONE_LIST(kind, first, (m) + 2), ONE_LIST(kind, first, (m) + 3)
#define ONE_LISTS(kind, first)                                               \
    {ONE_LISTS4(kind, first, 0), ONE_LISTS4(kind, first, 4),                 \
     ONE_LISTS4(kind, first, 8), ONE_LISTS4(kind, first, 12),                \
     ONE_LISTS4(kind, first, 16), ONE_LISTS4(kind, first, 20),               \
     ONE_LISTS4(kind, first, 24), ONE_LISTS4(kind, first, 28)}
static const maat_kit_quad god_lists[32][5] = ONE_LISTS(MAAT_PYR_GOD, 1);
static const maat_kit_quad pair_lists[32][5] = ONE_LISTS(MAAT_PYR_PAIR, 0);
#define ONE_COUNT(m) (ONE_NTH(m, 0) >= 0) + (ONE_NTH(m, 1) >= 0) +           \
    (ONE_NTH(m, 2) >= 0) + (ONE_NTH(m, 3) >= 0) + (ONE_NTH(m, 4) >= 0)
#define ONE_COUNT4(m) ONE_COUNT(m), ONE_COUNT((m) + 1), ONE_COUNT((m) + 2),  \
    ONE_COUNT((m) + 3)
static const uint8_t one_count[32] = {
    ONE_COUNT4(0), ONE_COUNT4(4), ONE_COUNT4(8), ONE_COUNT4(12),
    ONE_COUNT4(16), ONE_COUNT4(20), ONE_COUNT4(24), ONE_COUNT4(28)};

/* The quarry pairs still there as bits 0..4 (pair i: quarry[i][0] is not
 * -1): with SSE2 each pair's first byte moved to the top of its 16-bit
 * lane, the lanes packed to bytes keeping their sign, the signs gathered;
 * elsewhere the even bits of the 16 bytes' sign gather squeezed
 * together.  (The 16 bytes are quarry's 10 and tile_owner's 6.) */
static inline uint32_t pairs_there(const int8_t (*quarry)[2])
{
#if defined(__SSE2__) && !defined(MAAT_KIT_NO_VECTOR)
    __m128i v = _mm_slli_epi16(_mm_loadu_si128((const __m128i *)quarry), 8);
    return ~(uint32_t)_mm_movemask_epi8(_mm_packs_epi16(v, v)) & 0x1Fu;
#else
    uint32_t m = ~maat_kit_signs16(quarry) & 0x155u;
    m = (m | m >> 1) & 0x133u;
    m = (m | m >> 2) & 0x10Fu;
    return (m | m >> 4) & 0x1Fu;
#endif
}

/* The list of set m (0..31) of `lists`. */
static inline int put_list(maat_action *out, const maat_kit_quad lists[][5],
                           uint32_t m)
{
    const maat_kit_quad ones = maat_kit_quad_of(-1, -1, -1, -1);
    char *o = (char *)out;
    for (int k = 0; k < 5; k++) {
        memcpy(o + sizeof(maat_action) * (size_t)k, &lists[m][k],
               sizeof ones);
        memcpy(o + sizeof(maat_action) * (size_t)k + sizeof ones, &ones,
               sizeof ones);
    }
    return one_count[m];
}

/* The GOD list (cap >= 5 for the table's five slots, else one by one). */
static inline int god_actions(const maat_pyr_state *st, maat_action *out,
                              int cap)
{
    int n = 0;
    if (cap >= 5) {
        /* the sign bits of quarry (10 bytes, -1 = taken) and tile_owner
         * (the 6 bytes after it, -1 = free): tile t free at bit 10 + t;
         * as bit t - 1 */
        uint32_t free = maat_kit_signs16(st->quarry) >> 11 &
                        (st->seats <= 3 ? 0xFu : 0x1Fu);
        if (st->set_aside >= 1 && st->set_aside <= 5)
            free &= ~(1u << (st->set_aside - 1));
        return put_list(out, god_lists, free);
    }
    for (int t = 1; t <= 5; t++)
        if (tile_available(st, t))
            put(out, cap, &n, MAAT_PYR_GOD, t, -1, -1, -1, -1);
    return n;
}

static inline int pair_actions(const maat_pyr_state *st,
                               const maat_pyr_seat *s, maat_action *out,
                               int cap)
{
    int n = 0;
    if (cap >= 5 && st->seats <= 5) {
        if (s->hand_n > 1)
            return 0;
        return put_list(out, pair_lists,
                        pairs_there(st->quarry) & ((1u << st->seats) - 1));
    }
    for (int i = 0; i < st->seats && s->hand_n <= 1; i++)
        if (st->quarry[i][0] >= 0)
            put(out, cap, &n, MAAT_PYR_PAIR, i, -1, -1, -1, -1);
    return n;
}

static int legal_actions(const maat_game *g, maat_action *out, int cap)
{
    const maat_pyr_state *st = &g->st;
    /* each decision in two tests, as apply (GOD, PAIR and BUILD come as
     * often); a phase past KEEP, OVER or any other, has none */
    unsigned phase = (unsigned)st->phase;
    if (phase < MAAT_PYR_BUILD) {
        if (phase == MAAT_PYR_GOD)
            return god_actions(st, out, cap);
        return pair_actions(st, &st->seat[st->to_move], out, cap);
    }
    if (phase == MAAT_PYR_BUILD)
        return build_actions(st, &st->seat[st->to_move], out, cap);
    if (phase != MAAT_PYR_KEEP)
        return 0;
    const maat_pyr_seat *s = &st->seat[st->to_move];
    int n = 0;
    for (int i = 0; i < s->hand_n; i++)
        put(out, cap, &n, MAAT_PYR_KEEP, s->hand[i], -1, -1, -1, -1);
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

/* One body per decision, each checking its action and applying it, made
 * twice over: with an event list (name_ev, out of line), and without one
 * (a playout's), where every emit folds away and nothing need live
 * across its calls.  Without one, apply runs the GOD, PAIR and KEEP
 * bodies inline (they need no registers saved: the end of a round is out
 * of line) and jumps to the build's own function (apply_build), whose
 * registers and stack the others would otherwise pay for. */
#define PYR_BODY static inline __attribute__((always_inline)) int
#define PYR_APPLY_EV(name, body)                                             \
    static __attribute__((noinline)) int name##_ev(maat_pyr_state *st,       \
                                                   const maat_action *a,     \
                                                   maat_events *ev,          \
                                                   maat_error *err)          \
    {                                                                        \
        return body(st, a, ev, err);                                         \
    }
#define PYR_APPLY(name, body)                                                \
    PYR_APPLY_EV(name, body)                                                 \
    static __attribute__((noinline)) int name(maat_pyr_state *st,            \
                                              const maat_action *a,          \
                                              maat_error *err)               \
    {                                                                        \
        return body(st, a, NULL, err);                                       \
    }

PYR_BODY god_body(maat_pyr_state *st, const maat_action *a,
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
        return next_pair(st, ev);
    }
    return MAAT_OK;
}
PYR_APPLY_EV(apply_god, god_body)

PYR_BODY pair_body(maat_pyr_state *st, const maat_action *a,
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
PYR_APPLY_EV(apply_pair, pair_body)

/* Where `card` first is in the hand as a bit (1, 2 or 4), 0 if nowhere:
 * the fast path below reads the three slots of a full hand at once. */
static inline unsigned hand_bit(const uint8_t *h, int card)
{
    return (unsigned)(h[0] == card) | (unsigned)(h[1] == card && h[0] != card)
           << 1 | (unsigned)(h[2] == card && h[0] != card && h[1] != card)
           << 2;
}

/* A build from a hand of two or three cards that check_build would
 * accept, told apart cheaply (else 0: check_build then says why, or
 * accepts it): the cards are different cards of the hand, the spot is
 * free and supported, the God tile allows the tomb and the obelisk and
 * neither is full.  Returns the hand slots the build takes, as bits. */
static __attribute__((noinline)) unsigned build_fits(const maat_pyr_state *st,
                                  const maat_pyr_seat *s, const maat_action *a)
{
    int card = a->arg[0], stage = a->arg[1], pos = a->arg[2];
    int tomb = a->arg[3], ob = a->arg[4], god = s->god;
    unsigned in_hand = s->hand_n == 3 ? 7 : 3; /* slots holding a card */
    if (s->hand_n < 2 || s->hand_n > 3 ||
        (unsigned)stage >= MAAT_PYR_STAGES || pos < -MAAT_PYR_POS_OFFSET ||
        pos > MAAT_PYR_POS_OFFSET - stage)
        return 0;
    unsigned take = hand_bit(s->hand, card) & in_hand;
    int i = pos + MAAT_PYR_POS_OFFSET;
    if (!take)
        return 0;
    if (s->pyramid_n == 0) { /* the first card: the apex of the base */
        if (stage != 0 || pos != 0)
            return 0;
    } else if (stage > 0) { /* free, on two cards (upper_spots' test) */
        if (s->grid[stage][i] >= 0 || s->grid[stage - 1][i] < 0 ||
            s->grid[stage - 1][i + 1] < 0)
            return 0;
    } else if (!(base_spots(pyr_occupied(s) & PYR_ROW) >> i & 1)) {
        return 0;
    }
    if (tomb != -1) {
        unsigned t = hand_bit(s->hand, tomb) & in_hand;
        if (!t || t == take || !pyr_may_tomb(god) ||
            s->tomb_n >= MAAT_PYR_ROUNDS)
            return 0;
        take |= t;
    }
    if (ob != -1) {
        unsigned o = hand_bit(s->hand, ob) & in_hand;
        if (!o || (o & take) || !pyr_may_obelisk(god) ||
            s->obelisk_n >= MAAT_PYR_ROUNDS ||
            (tomb != -1 && !pyr_may_both(god, st->seats)))
            return 0;
        take |= o;
    }
    return take;
}

/* Per hand slots taken by a build (bit i: slot i), the slots left and how
 * many were taken. */
static const uint8_t hand_left[8][3] = {{0, 1, 0}, {1, 2, 1}, {0, 2, 1},
                                        {2, 2, 2}, {0, 1, 1}, {1, 1, 2},
                                        {0, 0, 2}, {0, 0, 3}};

/* The rest of a build once its cards have left the hand. */
static inline int build_done(maat_pyr_state *st, maat_pyr_seat *s,
                             const maat_action *a, maat_events *ev)
{
    int me = st->to_move, card = a->arg[0], stage = a->arg[1];
    int pos = a->arg[2];
    s->grid[stage][pos + MAAT_PYR_POS_OFFSET] = (int8_t)card;
    s->pyramid_n++;
    emit(ev, MAAT_PYR_EV_PYRAMID, me, card, stage, pos);
    if (a->arg[3] >= 0) {
        s->tomb[s->tomb_n++] = (uint8_t)a->arg[3];
        emit(ev, MAAT_PYR_EV_TOMB, me, a->arg[3], 0, 0);
    }
    if (a->arg[4] >= 0) {
        s->obelisk[s->obelisk_n++] = (uint8_t)a->arg[4];
        emit(ev, MAAT_PYR_EV_OBELISK, me, a->arg[4], 0, 0);
    }
    return next_pair(st, ev);
}

/* Any other build: check_build says what is wrong, or accepts it. */
static __attribute__((noinline)) int
build_checked(maat_pyr_state *st, const maat_action *a, maat_events *ev,
              maat_error *err)
{
    maat_pyr_seat *s = &st->seat[st->to_move];
    int rc = check_build(st, s, a, err);
    if (rc)
        return rc;
    hand_remove(s, a->arg[0]);
    if (a->arg[3] >= 0)
        hand_remove(s, a->arg[3]);
    if (a->arg[4] >= 0)
        hand_remove(s, a->arg[4]);
    return build_done(st, s, a, ev);
}

PYR_BODY build_body(maat_pyr_state *st, const maat_action *a,
                    maat_events *ev, maat_error *err)
{
    maat_pyr_seat *s = &st->seat[st->to_move];
    unsigned take = build_fits(st, s, a);
    if (!take)
        return build_checked(st, a, ev, err);
    /* the cards left keep their order */
    const uint8_t *l = hand_left[take];
    uint8_t h0 = s->hand[l[0]], h1 = s->hand[l[1]];
    s->hand[0] = h0;
    s->hand[1] = h1;
    s->hand_n = (uint8_t)(s->hand_n - l[2]);
    return build_done(st, s, a, ev);
}
PYR_APPLY(build_any, build_body)

/* Which of a full hand's slots first holds `card`, as a bit (1, 2 or 4),
 * 0 if none (hand_bit for a hand of three, without keeping its bytes
 * in registers). */
static inline unsigned slot3(const uint8_t *h, int card)
{
    unsigned m = (unsigned)(h[0] == card) | (unsigned)(h[1] == card) << 1 |
                 (unsigned)(h[2] == card) << 2;
    return m & (0u - m);
}

/* A playout's build (no event list) from a hand of three, the usual
 * case: build_fits' checks and build_body's update in one function that
 * keeps few values at once (the spot first, through a pointer to its
 * cell; the hand's bytes read again for each card).  Anything it does
 * not accept goes the general way, which accepts or refuses it. */
static __attribute__((noinline)) int apply_build(maat_pyr_state *st,
                                                 const maat_action *a,
                                                 maat_error *err)
{
    maat_pyr_seat *s = &st->seat[st->to_move];
    unsigned stage = (unsigned)a->arg[1];
    unsigned i = (unsigned)a->arg[2] + MAAT_PYR_POS_OFFSET;
    if (s->hand_n != 3 || stage >= MAAT_PYR_STAGES ||
        i > MAAT_PYR_POSITIONS - 1 - stage)
        goto general;
    int8_t *cell = &s->grid[0][0] + MAAT_PYR_POSITIONS * stage + i;
    if (s->pyramid_n == 0) { /* the first card: the apex of the base */
        if (stage != 0 || i != MAAT_PYR_POS_OFFSET)
            goto general;
    } else if (stage > 0) { /* free, on two cards (upper_spots' test) */
        if (cell[0] >= 0 || cell[-MAAT_PYR_POSITIONS] < 0 ||
            cell[1 - MAAT_PYR_POSITIONS] < 0)
            goto general;
    } else if (!(base_spots(~maat_kit_signs8(s->grid[0])) >> i & 1)) {
        goto general;
    }
    unsigned take = slot3(s->hand, a->arg[0]);
    if (!take)
        goto general;
    int tomb = a->arg[3], ob = a->arg[4];
    if (tomb != -1) {
        unsigned t = slot3(s->hand, tomb);
        if (!t || (t & take) || !pyr_may_tomb(s->god) ||
            s->tomb_n >= MAAT_PYR_ROUNDS)
            goto general;
        take |= t;
    }
    if (ob != -1) {
        unsigned o = slot3(s->hand, ob);
        if (!o || (o & take) || !pyr_may_obelisk(s->god) ||
            s->obelisk_n >= MAAT_PYR_ROUNDS ||
            (tomb != -1 && !pyr_may_both(s->god, st->seats)))
            goto general;
        take |= o;
    }
    *cell = (int8_t)a->arg[0];
    s->pyramid_n++;
    const uint8_t *l = hand_left[take];
    uint8_t k0 = s->hand[l[0]], k1 = s->hand[l[1]];
    s->hand[0] = k0;
    s->hand[1] = k1;
    s->hand_n = (uint8_t)(3 - l[2]);
    if (tomb >= 0)
        s->tomb[s->tomb_n++] = (uint8_t)tomb;
    if (ob >= 0)
        s->obelisk[s->obelisk_n++] = (uint8_t)ob;
    return next_pair(st, NULL);
general:
    return build_any(st, a, err);
}

PYR_BODY keep_body(maat_pyr_state *st, const maat_action *a,
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
PYR_APPLY_EV(apply_keep, keep_body)

static int apply(maat_game *g, const maat_action *a, maat_events *ev,
                 maat_error *err)
{
    maat_pyr_state *st = &g->st;
    if (a->kind != st->phase || st->phase == MAAT_PYR_OVER)
        return refuse_kind(st, a, err);
    if (ev) {
        switch (a->kind) {
        case MAAT_PYR_GOD:
            return apply_god_ev(st, a, ev, err);
        case MAAT_PYR_PAIR:
            return apply_pair_ev(st, a, ev, err);
        case MAAT_PYR_BUILD:
            return build_any_ev(st, a, ev, err);
        default:
            return apply_keep_ev(st, a, ev, err);
        }
    }
    /* a playout's: the small bodies inline, reached in two tests each (GOD,
     * PAIR and BUILD come as often; a switch tested them in turn) */
    unsigned kind = (unsigned)a->kind; /* any other kind: as KEEP */
    if (kind < MAAT_PYR_BUILD) {
        if (kind == MAAT_PYR_GOD)
            return god_body(st, a, NULL, err);
        return pair_body(st, a, NULL, err);
    }
    if (kind == MAAT_PYR_BUILD)
        return apply_build(st, a, err);
    return keep_body(st, a, NULL, err);
}

const maat_pyr_state *maat_pyr_state_of(const maat_game *g)
{
    return &g->st;
}

maat_pyr_state *maat_pyr_state_mut(maat_game *g)
{
    return &g->st;
}

MAAT_KIT_FUNCS(maat_pyr_wire_actions, maat_pyr_wire_events)

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
    MAAT_KIT_ENTRIES(maat_pyr_wire_actions, maat_pyr_wire_events),
    .setup_new = setup_new,
    .setup_encode = maat_pyr_setup_encode,
    .game_new = game_new,
    .decision = decision,
    .is_over = is_over,
    .legal_actions = legal_actions,
    .apply = apply,
    .scores = maat_pyr_scores,
    .encode_observation = maat_pyr_encode_observation,
    .render = maat_pyr_render,
    .setup_decode = maat_pyr_setup_decode,
    .view_update = maat_pyr_view_update,
    .determinize = maat_pyr_determinize,
};
