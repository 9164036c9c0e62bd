/* test_pyramids_rules.c -- one small test per rule of Pyramids.
 *
 * Proves, against docs/rules/pyramids.md (the expected values are worked
 * out by hand from that page, in the comments next to them):
 *  - what each God tile allows with 2-3 and with 4-5 players, and that
 *    Thoth is only in the 4-5 player game;
 *  - the order of decisions: Gods from the first player clockwise, pairs
 *    and building by ascending tile, the keep decision from the first
 *    player clockwise for seats with 2+ cards, nothing after round 10;
 *  - the 2-player set-aside tile rotation and the first-player token;
 *  - every pyramid placement case, legal and illegal;
 *  - edifice constraints (one card per edifice, cards distinct and in
 *    hand) and refusal of an action answering the wrong decision;
 *  - every scoring part on hand-built boards, including the rulebook's
 *    worked examples, the connectivity geometry, tomb majorities, glyphs
 *    and shared ranks.
 * Every refused action must return MAAT_EILLEGAL, emit no event and leave
 * the state byte-identical.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "maat/internal/pyramids.h"

static const maat_rules *R = &maat_pyramids_rules;
static maat_setup *setup;
static const maat_pyr_deck *deck;

#define MAXA 512

/* ---- helpers -------------------------------------------------------- */

static maat_game *new_game(int seats, uint64_t seed, maat_events *ev)
{
    maat_error err = {0, ""};
    maat_game *g = R->game_new(setup, SEED(seed), seats, ev, &err);
    CHECK(g != NULL, "game_new(%d seats) failed: %s", seats, err.msg);
    if (!g)
        exit(1);
    return g;
}

static maat_pyr_state *S(maat_game *g)
{
    return maat_pyr_state_mut(g);
}

static maat_action act(int kind, int a0, int a1, int a2, int a3, int a4)
{
    maat_action a = {kind, {a0, a1, a2, a3, a4, -1, -1}};
    return a;
}

static int same_action(const maat_action *a, const maat_action *b)
{
    if (a->kind != b->kind)
        return 0;
    for (int i = 0; i < 5; i++)
        if (a->arg[i] != b->arg[i])
            return 0;
    return 1;
}

static int is_legal(const maat_game *g, maat_action a)
{
    maat_action out[MAXA];
    int n = R->legal_actions(g, out, MAXA);
    for (int i = 0; i < n && i < MAXA; i++)
        if (same_action(&out[i], &a))
            return 1;
    return 0;
}

/* Cards by their stones ("RB" = red left, blue right), glyph or -1 for
 * any; each id is handed out once until fresh_cards(). */
static uint8_t used[MAAT_PYR_CARDS];

static void fresh_cards(void)
{
    memset(used, 0, sizeof used);
}

static int colour_letter(int c)
{
    return "BWRGY"[c];
}

static int find_card(const char *stones, int glyph)
{
    size_t n = strlen(stones);
    for (int id = 0; id < MAAT_PYR_CARDS; id++) {
        const maat_pyr_card *c = &deck->card[id];
        if (used[id] || c->n_stones != n ||
            (glyph >= 0 && c->glyph != glyph))
            continue;
        int ok = 1;
        for (size_t k = 0; k < n; k++)
            ok &= colour_letter(c->stone[k]) == stones[k];
        if (ok) {
            used[id] = 1;
            return id;
        }
    }
    CHECK(0, "no unused card %s with glyph %d in the deck", stones, glyph);
    exit(1);
}

/* Events of APPLY_OK go to cur_ev when a test sets it. */
static maat_events *cur_ev;

#define APPLY_OK(g, a) apply_ok_((g), (a), __LINE__)
static void apply_ok_(maat_game *g, maat_action a, int line)
{
    maat_error err = {0, ""};
    int rc = R->apply(g, &a, cur_ev, &err);
    CHECK(rc == MAAT_OK, "line %d: action %d(%d,%d,%d,%d,%d) refused: %s",
          line, a.kind, a.arg[0], a.arg[1], a.arg[2], a.arg[3], a.arg[4],
          err.msg);
}

/* Refused with MAAT_EILLEGAL (or `code`), a message, no event, and the
 * state byte-identical. */
#define REFUSED(g, a) refused_((g), (a), MAAT_EILLEGAL, __LINE__)
static void refused_(maat_game *g, maat_action a, int code, int line)
{
    maat_pyr_state before;
    memcpy(&before, maat_pyr_state_of(g), sizeof before);
    maat_error err = {0, ""};
    maat_events ev = {0};
    int rc = R->apply(g, &a, &ev, &err);
    CHECK(rc == code, "line %d: action %d(%d,%d,%d,%d,%d) gave %d, want %d",
          line, a.kind, a.arg[0], a.arg[1], a.arg[2], a.arg[3], a.arg[4], rc,
          code);
    CHECK(err.code == code && err.msg[0], "line %d: no error message", line);
    CHECK(ev.count == 0, "line %d: a refused action emitted %zu events",
          line, ev.count);
    CHECK(memcmp(&before, maat_pyr_state_of(g), sizeof before) == 0,
          "line %d: a refused action changed the state", line);
    maat_events_free(&ev);
}

/* A position where seat 0 holds tile `god` and owes a BUILD decision with
 * the 3 cards hand[] and an empty pyramid (round 1, other seats idle). */
static maat_game *build_position(int seats, int god, int hand[3])
{
    maat_game *g = new_game(seats, 1, NULL);
    maat_pyr_state *st = S(g);
    st->phase = MAAT_PYR_BUILD;
    st->to_move = 0;
    st->cursor = god;
    st->set_aside = 0;
    st->tile_owner[god] = 0;
    st->seat[0].god = (uint8_t)god;
    st->seat[0].hand[1] = st->order[st->deck_pos++];
    st->seat[0].hand[2] = st->order[st->deck_pos++];
    st->seat[0].hand_n = 3;
    for (int i = 0; i < 3; i++)
        hand[i] = st->seat[0].hand[i];
    return g;
}

static void clear_seat(maat_pyr_seat *s)
{
    memset(s, 0, sizeof *s);
    memset(s->grid, -1, sizeof s->grid);
}

static void put_pyr(maat_pyr_seat *s, int stage, int pos, int id)
{
    s->grid[stage][pos + MAAT_PYR_POS_OFFSET] = (int8_t)id;
    s->pyramid_n++;
}

static int grid_at(const maat_pyr_seat *s, int stage, int pos)
{
    return s->grid[stage][pos + MAAT_PYR_POS_OFFSET];
}

/* ---- the deal ------------------------------------------------------- */

/* 2..5 seats only; one private card to each seat from seat 0 on, then n
 * public pairs in the quarry: 3n cards off the deck. */
static void deal(void)
{
    maat_error err = {0, ""};
    CHECK(R->game_new(setup, SEED(1), 1, NULL, &err) == NULL &&
              err.code == MAAT_EINVAL,
          "a 1-seat game was created");
    CHECK(R->game_new(setup, SEED(1), 6, NULL, &err) == NULL &&
              err.code == MAAT_EINVAL,
          "a 6-seat game was created");
    for (int seats = 2; seats <= 5; seats++) {
        maat_events ev = {0};
        maat_game *g = new_game(seats, 40 + seats, &ev);
        const maat_pyr_state *st = maat_pyr_state_of(g);
        CHECK(st->deck_pos == 3 * seats, "%d seats: %d cards dealt, want %d",
              seats, st->deck_pos, 3 * seats);
        int deals = 0, pairs = 0;
        for (size_t i = 0; i < ev.count; i++) {
            const maat_event *e = &ev.items[i];
            if (e->kind == MAAT_PYR_EV_DEAL) {
                CHECK(e->seat == deals && e->visible_to == (1u << e->seat) &&
                          e->arg[0] == st->order[deals] &&
                          st->seat[deals].hand_n == 1 &&
                          st->seat[deals].hand[0] == st->order[deals],
                      "%d seats: deal event %d wrong", seats, deals);
                deals++;
            } else if (e->kind == MAAT_PYR_EV_QUARRY) {
                CHECK(e->visible_to == MAAT_ALL_SEATS &&
                          e->arg[0] == pairs &&
                          e->arg[1] == st->quarry[pairs][0] &&
                          e->arg[2] == st->quarry[pairs][1] &&
                          st->quarry[pairs][0] ==
                              st->order[seats + 2 * pairs],
                      "%d seats: quarry event %d wrong", seats, pairs);
                pairs++;
            }
        }
        CHECK(deals == seats && pairs == seats,
              "%d seats: %d deal and %d quarry events", seats, deals, pairs);
        maat_decision d = R->decision(g);
        CHECK(st->round == 1 && st->first == 0 && d.seat == 0 &&
                  d.kind == MAAT_PYR_GOD,
              "%d seats: round %d first %d decision %d/%d", seats, st->round,
              st->first, d.seat, d.kind);
        maat_events_free(&ev);
        R->destroy(&g);
    }
}

/* ---- God tiles -------------------------------------------------------- */

/* What the rules page allows besides the pyramid card:
 * tomb alone, obelisk alone, both. */
static void god_powers(int god, int seats, int *tomb, int *ob, int *both)
{
    *tomb = *ob = *both = 0;
    switch (god) {
    case MAAT_PYR_HORUS: break;                  /* nothing else */
    case MAAT_PYR_ANUBIS: *tomb = 1; break;      /* one tomb card */
    case MAAT_PYR_KHEPRI: *ob = 1; break;        /* one obelisk card */
    case MAAT_PYR_SEKHMET:                       /* 2-3p: and; 4-5p: or */
        *tomb = *ob = 1;
        *both = seats <= 3;
        break;
    case MAAT_PYR_THOTH: *tomb = *ob = *both = 1; break;
    }
}

static void god_tile(int seats, int god)
{
    int hand[3], t, o, b;
    god_powers(god, seats, &t, &o, &b);
    maat_game *g = build_position(seats, god, hand);
    maat_action out[MAXA];
    int n = R->legal_actions(g, out, MAXA);
    /* 3 choices of pyramid card x (none + 2 tomb + 2 obelisk + 2 ordered
     * tomb/obelisk pairs, each where allowed); one spot: stage 0 pos 0 */
    int want = 3 * (1 + 2 * t + 2 * o + 2 * b);
    CHECK(n == want, "%s with %d seats: %d legal builds, want %d",
          maat_pyr_god_names[god], seats, n, want);
    for (int i = 0; i < n && i < MAXA; i++)
        CHECK(out[i].kind == MAAT_PYR_BUILD && out[i].arg[1] == 0 &&
                  out[i].arg[2] == 0,
              "%s: action %d is not a stage-0 pos-0 build",
              maat_pyr_god_names[god], i);

    /* every (tomb?, obelisk?) combination through apply on a copy */
    for (int wt = 0; wt < 2; wt++)
        for (int wo = 0; wo < 2; wo++) {
            int allowed = (!wt || t) && (!wo || o) && (!(wt && wo) || b);
            maat_action a = act(MAAT_PYR_BUILD, hand[0], 0, 0,
                                wt ? hand[1] : -1, wo ? hand[2] : -1);
            CHECK(is_legal(g, a) == allowed,
                  "%s, %d seats, tomb %d obelisk %d: listed %d, want %d",
                  maat_pyr_god_names[god], seats, wt, wo, is_legal(g, a),
                  allowed);
            maat_game *c = R->copy(g);
            if (!allowed) {
                REFUSED(c, a);
            } else {
                APPLY_OK(c, a);
                const maat_pyr_seat *s = &maat_pyr_state_of(c)->seat[0];
                CHECK(grid_at(s, 0, 0) == hand[0] && s->pyramid_n == 1,
                      "%s: pyramid card not placed", maat_pyr_god_names[god]);
                CHECK(s->tomb_n == wt && (!wt || s->tomb[0] == hand[1]),
                      "%s: tomb has %d cards", maat_pyr_god_names[god],
                      s->tomb_n);
                CHECK(s->obelisk_n == wo && (!wo || s->obelisk[0] == hand[2]),
                      "%s: obelisk has %d cards", maat_pyr_god_names[god],
                      s->obelisk_n);
                CHECK(s->hand_n == 2 - wt - wo, "%s: hand has %d cards",
                      maat_pyr_god_names[god], s->hand_n);
            }
            R->destroy(&c);
        }
    R->destroy(&g);
}

static void god_tiles(void)
{
    for (int seats = 2; seats <= 5; seats++)
        for (int god = 1; god <= (seats <= 3 ? 4 : 5); god++)
            god_tile(seats, god);
}

/* Tiles 1-4 with 2-3 players (2 players: minus the set-aside one), 1-5
 * with 4-5; Thoth refused where it is not in play. */
static void tiles_in_play(void)
{
    for (int seats = 2; seats <= 5; seats++) {
        maat_game *g = new_game(seats, 100 + seats, NULL);
        int aside = S(g)->set_aside;
        CHECK(seats == 2 ? aside >= 1 && aside <= 4 : aside == 0,
              "%d seats: set-aside tile %d", seats, aside);
        for (int t = 1; t <= 5; t++) {
            int want = t <= (seats <= 3 ? 4 : 5) && t != aside;
            CHECK(is_legal(g, act(MAAT_PYR_GOD, t, -1, -1, -1, -1)) == want,
                  "%d seats: tile %d listed %d, want %d", seats, t, !want,
                  want);
            if (!want)
                REFUSED(g, act(MAAT_PYR_GOD, t, -1, -1, -1, -1));
        }
        REFUSED(g, act(MAAT_PYR_GOD, 0, -1, -1, -1, -1));
        REFUSED(g, act(MAAT_PYR_GOD, 6, -1, -1, -1, -1));
        REFUSED(g, act(MAAT_PYR_GOD, -1, -1, -1, -1, -1));
        R->destroy(&g);
    }
    /* the 2-player set-aside tile is drawn from the seed: over many seeds
     * every one of 1..4 comes up */
    int seen[5] = {0};
    for (uint64_t seed = 0; seed < 200; seed++) {
        maat_game *g = new_game(2, seed, NULL);
        seen[S(g)->set_aside % 5]++;
        R->destroy(&g);
    }
    CHECK(seen[0] == 0 && seen[1] && seen[2] && seen[3] && seen[4],
          "set-aside tiles over 200 seeds: %d/%d/%d/%d (none %d)", seen[1],
          seen[2], seen[3], seen[4], seen[0]);
}

/* ---- order of decisions --------------------------------------------- */

/* Plays GOD decisions giving seat s tile tiles[s]; checks they come from
 * the first player clockwise. */
static void choose_gods(maat_game *g, const int *tiles)
{
    const maat_pyr_state *st = maat_pyr_state_of(g);
    int first = st->first;
    for (int k = 0; k < st->seats; k++) {
        maat_decision d = R->decision(g);
        CHECK(d.kind == MAAT_PYR_GOD && d.seat == (first + k) % st->seats,
              "round %d god pick %d: decision %d of seat %d, want god of "
              "seat %d", st->round, k, d.kind, d.seat,
              (first + k) % st->seats);
        APPLY_OK(g, act(MAAT_PYR_GOD, tiles[d.seat], -1, -1, -1, -1));
    }
}

/* Plays the pair + build turns: each builder takes the first pair still
 * in the quarry, builds hand[0] at the first legal spot, plus a tomb card
 * if tomb[seat] and an obelisk card if ob[seat].  Checks that the turns
 * go by ascending tile number. */
static void pairs_and_builds(maat_game *g, const int *tiles, const int *tomb,
                             const int *ob)
{
    const maat_pyr_state *st = maat_pyr_state_of(g);
    int round = st->round;
    for (int t = 1; t <= 5; t++) {
        int owner = -1;
        for (int s = 0; s < st->seats; s++)
            if (tiles[s] == t)
                owner = s;
        if (owner < 0)
            continue;
        maat_decision d = R->decision(g);
        CHECK(d.kind == MAAT_PYR_PAIR && d.seat == owner,
              "round %d: decision %d of seat %d, want pair of seat %d "
              "(tile %d)", round, d.kind, d.seat, owner, t);
        int q = 0;
        while (st->quarry[q][0] < 0)
            q++;
        APPLY_OK(g, act(MAAT_PYR_PAIR, q, -1, -1, -1, -1));
        d = R->decision(g);
        CHECK(d.kind == MAAT_PYR_BUILD && d.seat == owner,
              "round %d: after the pair, decision %d of seat %d, want build "
              "of seat %d", round, d.kind, d.seat, owner);
        const maat_pyr_seat *s = &st->seat[owner];
        int spot[16][2];
        maat_pyr_spots(s, spot, 16);
        APPLY_OK(g, act(MAAT_PYR_BUILD, s->hand[0], spot[0][0], spot[0][1],
                        tomb && tomb[owner] ? s->hand[1] : -1,
                        ob && ob[owner] ? s->hand[tomb && tomb[owner] ? 2 : 1]
                                        : -1));
    }
}

/* Every keep decision: keep the first card. */
static void keep_all(maat_game *g)
{
    while (R->decision(g).kind == MAAT_PYR_KEEP)
        APPLY_OK(g, act(MAAT_PYR_KEEP, S(g)->seat[R->decision(g).seat].hand[0],
                        -1, -1, -1, -1));
}

/* 3 seats, first player 0: seat 0 takes Sekhmet, seat 1 Horus, seat 2
 * Khepri.  Pairs then go seat 1 (1), seat 2 (3), seat 0 (4). */
static void decision_order(void)
{
    maat_game *g = new_game(3, 5, NULL);
    int tiles[3] = {4, 1, 3};
    choose_gods(g, tiles);
    pairs_and_builds(g, tiles, NULL, NULL);
    keep_all(g);
    /* round 2, first player 1: seat 1 Anubis, seat 2 Horus, seat 0 Khepri:
     * gods 1, 2, 0; pairs 2 (1), 1 (2), 0 (3) */
    CHECK(S(g)->round == 2 && S(g)->first == 1, "round %d first %d",
          S(g)->round, S(g)->first);
    int tiles2[3] = {3, 2, 1};
    choose_gods(g, tiles2);
    pairs_and_builds(g, tiles2, NULL, NULL);
    R->destroy(&g);

    /* 5 players: the last seat has one tile left, still its decision */
    g = new_game(5, 6, NULL);
    for (int k = 0; k < 4; k++)
        APPLY_OK(g, act(MAAT_PYR_GOD, k + 1, -1, -1, -1, -1));
    maat_decision d = R->decision(g);
    maat_action out[MAXA];
    CHECK(d.kind == MAAT_PYR_GOD && d.seat == 4,
          "5 players: decision %d seat %d, want god of seat 4", d.kind,
          d.seat);
    CHECK(R->legal_actions(g, out, MAXA) == 1 && out[0].arg[0] == 5,
          "5 players: the last seat should have exactly tile 5 left");
    R->destroy(&g);
}

/* A whole game through the scripted helpers; checks the first player and
 * (2 players) the set-aside tile of every round. */
static void rounds_and_token(int seats)
{
    maat_events ev = {0};
    maat_game *g = new_game(seats, 1000 + seats, &ev);
    cur_ev = &ev;
    maat_pyr_state *st = S(g);
    int s0 = st->set_aside, prev_aside = 0;
    for (int r = 1; r <= MAAT_PYR_ROUNDS; r++) {
        CHECK(st->round == r, "%d seats: round %d, want %d", seats, st->round,
              r);
        CHECK(st->first == (r - 1) % seats,
              "%d seats round %d: first player %d, want %d", seats, r,
              st->first, (r - 1) % seats);
        /* the round event says the same */
        int found = 0;
        for (size_t i = 0; i < ev.count; i++)
            if (ev.items[i].kind == MAAT_PYR_EV_ROUND &&
                ev.items[i].arg[0] == r) {
                found = 1;
                CHECK(ev.items[i].arg[1] == st->first &&
                          ev.items[i].arg[2] == st->set_aside &&
                          ev.items[i].visible_to == MAAT_ALL_SEATS,
                      "%d seats round %d: round event %d/%d", seats, r,
                      ev.items[i].arg[1], ev.items[i].arg[2]);
            }
        CHECK(found, "%d seats: no round event for round %d", seats, r);
        if (seats == 2) {
            int want = (s0 - 1 + r - 1) % 4 + 1;
            CHECK(st->set_aside == want,
                  "2 seats round %d: set aside %d, want %d (s0 %d)", r,
                  st->set_aside, want, s0);
            CHECK(!is_legal(g, act(MAAT_PYR_GOD, st->set_aside, -1, -1, -1,
                                   -1)),
                  "round %d: the set-aside tile %d is legal", r,
                  st->set_aside);
            if (prev_aside)
                CHECK(is_legal(g, act(MAAT_PYR_GOD, prev_aside, -1, -1, -1,
                                      -1)),
                      "round %d: last round's set-aside tile %d did not "
                      "come back", r, prev_aside);
            prev_aside = st->set_aside;
        } else {
            CHECK(st->set_aside == 0, "%d seats: set aside %d", seats,
                  st->set_aside);
        }
        /* gods: the first player takes the lowest free tile, and so on */
        int tiles[5] = {0}, next = 1;
        for (int k = 0; k < seats; k++) {
            int seat = (st->first + k) % seats;
            while (next == st->set_aside)
                next++;
            tiles[seat] = next++;
        }
        choose_gods(g, tiles);
        pairs_and_builds(g, tiles, NULL, NULL);
        if (r < MAAT_PYR_ROUNDS)
            keep_all(g);
    }
    CHECK(R->is_over(g), "%d seats: not over after 10 rounds", seats);
    cur_ev = NULL;
    maat_events_free(&ev);
    R->destroy(&g);
}

static void rounds(void)
{
    for (int seats = 2; seats <= 5; seats++)
        rounds_and_token(seats);
}

/* 4 seats.  Round 1: everyone builds one card only and keeps its first
 * card.  Round 2 (first player 1): seat 1 Thoth (pyramid+tomb+obelisk ->
 * 0 cards), seat 2 Horus (-> 2), seat 3 Anubis with a tomb card (-> 1),
 * seat 0 Sekhmet, pyramid only (-> 2).  The keep decisions are then seat
 * 2 and seat 0, in that order; round 3 starts with first player 2. */
static void keep_decisions(void)
{
    maat_events ev = {0};
    maat_game *g = new_game(4, 77, &ev);
    cur_ev = &ev;
    maat_pyr_state *st = S(g);
    int t1[4] = {1, 2, 3, 4};
    choose_gods(g, t1);
    pairs_and_builds(g, t1, NULL, NULL);
    for (int k = 0; k < 4; k++) {
        maat_decision d = R->decision(g);
        CHECK(d.kind == MAAT_PYR_KEEP && d.seat == k,
              "round 1 keep %d: decision %d seat %d", k, d.kind, d.seat);
        APPLY_OK(g, act(MAAT_PYR_KEEP, st->seat[d.seat].hand[0], -1, -1,
                        -1, -1));
    }
    CHECK(st->round == 2 && st->first == 1, "round %d first %d", st->round,
          st->first);
    int t2[4] = {4, 5, 1, 2};
    int tomb[4] = {0, 1, 0, 1}, ob[4] = {0, 1, 0, 0};
    choose_gods(g, t2);
    pairs_and_builds(g, t2, tomb, ob);
    CHECK(st->seat[0].hand_n == 2 && st->seat[1].hand_n == 0 &&
              st->seat[2].hand_n == 2 && st->seat[3].hand_n == 1,
          "hands %d %d %d %d, want 2 0 2 1", st->seat[0].hand_n,
          st->seat[1].hand_n, st->seat[2].hand_n, st->seat[3].hand_n);
    int lone = st->seat[3].hand[0];
    /* step 4: the God tiles went back before the keep decisions */
    for (int t = 1; t <= 5; t++)
        CHECK(st->tile_owner[t] == -1, "at the keep, tile %d still held by "
              "seat %d", t, st->tile_owner[t]);
    for (int i = 0; i < 4; i++)
        CHECK(st->seat[i].god == 0, "at the keep, seat %d still holds %d", i,
              st->seat[i].god);

    static const int order[2] = {2, 0};
    for (int k = 0; k < 2; k++) {
        int seat = order[k];
        maat_decision d = R->decision(g);
        CHECK(d.kind == MAAT_PYR_KEEP && d.seat == seat,
              "keep %d: decision %d of seat %d, want keep of seat %d", k,
              d.kind, d.seat, seat);
        if (d.seat != seat)
            break;
        int drop = st->seat[seat].hand[0], keep = st->seat[seat].hand[1];
        REFUSED(g, act(MAAT_PYR_KEEP, st->seat[(seat + 1) % 4].hand[0], -1,
                       -1, -1, -1));
        int nd = st->discard_n;
        ev.count = 0;
        APPLY_OK(g, act(MAAT_PYR_KEEP, keep, -1, -1, -1, -1));
        CHECK(st->seat[seat].hand_n == 1 && st->seat[seat].hand[0] == keep,
              "seat %d did not keep card %d", seat, keep);
        CHECK(st->discard_n == nd + 1 && st->discard[nd] == drop,
              "seat %d: card %d not on the discard pile", seat, drop);
        int pub = 0, priv = 0;
        for (size_t i = 0; i < ev.count; i++) {
            const maat_event *e = &ev.items[i];
            if (e->kind == MAAT_PYR_EV_DISCARD)
                pub += e->arg[0] == drop && e->seat == seat &&
                       e->visible_to == MAAT_ALL_SEATS;
            if (e->kind == MAAT_PYR_EV_KEEP)
                priv += e->arg[0] == keep && e->visible_to == (1u << seat);
        }
        CHECK(pub == 1, "seat %d: no public discard event for card %d",
              seat, drop);
        CHECK(priv == 1, "seat %d: no private keep event", seat);
    }
    maat_decision d = R->decision(g);
    CHECK(st->round == 3 && st->first == 2 && d.kind == MAAT_PYR_GOD &&
              d.seat == 2,
          "after the keeps: round %d first %d decision %d seat %d",
          st->round, st->first, d.kind, d.seat);
    CHECK(st->seat[3].hand_n == 1 && st->seat[3].hand[0] == lone,
          "seat 3's single card changed");
    CHECK(st->seat[1].hand_n == 0, "seat 1 got cards");
    cur_ev = NULL;
    maat_events_free(&ev);
    R->destroy(&g);
}

/* Round 10: no keep decision; hands are discarded face up; game over. */
static void end_of_game(void)
{
    maat_events ev = {0};
    maat_game *g = new_game(3, 31, &ev);
    cur_ev = &ev;
    maat_pyr_state *st = S(g);
    for (int r = 1; r < MAAT_PYR_ROUNDS; r++) {
        int tiles[3] = {1, 2, 3};
        choose_gods(g, tiles);
        pairs_and_builds(g, tiles, NULL, NULL);
        keep_all(g);
    }
    int tiles[3] = {1, 2, 3};
    choose_gods(g, tiles);
    int in_hand = 0;
    ev.count = 0;
    pairs_and_builds(g, tiles, NULL, NULL);
    /* every seat held 1 + 2 and built 1: 2 cards each */
    CHECK(R->is_over(g), "not over after round 10's last build");
    maat_decision d = R->decision(g);
    CHECK(d.seat == -1, "decision seat %d after the end", d.seat);
    for (int s = 0; s < 3; s++) {
        in_hand += st->seat[s].hand_n;
        CHECK(st->seat[s].pyramid_n == 10, "seat %d pyramid has %d cards",
              s, st->seat[s].pyramid_n);
    }
    CHECK(in_hand == 0, "%d cards still in hands at the end", in_hand);
    int discards = 0, ends = 0;
    for (size_t i = 0; i < ev.count; i++) {
        discards += ev.items[i].kind == MAAT_PYR_EV_DISCARD &&
                    ev.items[i].visible_to == MAAT_ALL_SEATS;
        ends += ev.items[i].kind == MAAT_PYR_EV_END;
        CHECK(ev.items[i].kind != MAAT_PYR_EV_KEEP, "a keep after round 10");
    }
    CHECK(discards == 6, "%d public discards at the end, want 3 x 2",
          discards);
    CHECK(ends == 1, "%d end events", ends);
    maat_action out[4];
    CHECK(R->legal_actions(g, out, 4) == 0, "legal actions after the end");
    maat_pyr_state before;
    memcpy(&before, st, sizeof before);
    maat_action a = act(MAAT_PYR_KEEP, st->discard[0], -1, -1, -1, -1);
    CHECK(R->apply(g, &a, NULL, NULL) != MAAT_OK, "apply after the end");
    CHECK(memcmp(&before, st, sizeof before) == 0, "state changed after end");
    cur_ev = NULL;
    maat_events_free(&ev);
    R->destroy(&g);
}

/* ---- placement ------------------------------------------------------ */

/* The (stage, pos) spots offered for hand[0] must be exactly want[]. */
static void expect_spots(maat_game *g, const int want[][2], int nw,
                         const char *what)
{
    const maat_pyr_seat *s = &maat_pyr_state_of(g)->seat[0];
    maat_action out[MAXA];
    int n = R->legal_actions(g, out, MAXA), got = 0;
    for (int i = 0; i < n && i < MAXA; i++) {
        if (out[i].arg[0] != s->hand[0])
            continue;
        got++;
        int ok = 0;
        for (int k = 0; k < nw; k++)
            ok |= out[i].arg[1] == want[k][0] && out[i].arg[2] == want[k][1];
        CHECK(ok, "%s: unexpected spot stage %d pos %d", what, out[i].arg[1],
              out[i].arg[2]);
    }
    CHECK(got == nw, "%s: %d spots offered, want %d", what, got, nw);
    int spot[16][2];
    CHECK(maat_pyr_spots(s, spot, 16) == nw, "%s: maat_pyr_spots gives %d",
          what, maat_pyr_spots(s, spot, 16));
}

static void place_ok(maat_game *g, int stage, int pos, const char *what)
{
    maat_game *c = R->copy(g);
    const maat_pyr_seat *s = &maat_pyr_state_of(c)->seat[0];
    int card = s->hand[0], n = s->pyramid_n;
    APPLY_OK(c, act(MAAT_PYR_BUILD, card, stage, pos, -1, -1));
    CHECK(grid_at(s, stage, pos) == card && s->pyramid_n == n + 1,
          "%s: card %d not at stage %d pos %d", what, card, stage, pos);
    R->destroy(&c);
}

static void place_refused(maat_game *g, int stage, int pos)
{
    REFUSED(g, act(MAAT_PYR_BUILD, S(g)->seat[0].hand[0], stage, pos, -1,
                   -1));
}

/* a Horus build position whose pyramid has `n` cards at spots[] */
static maat_game *pyramid_position(const int spots[][2], int n)
{
    int hand[3];
    maat_game *g = build_position(3, MAAT_PYR_HORUS, hand);
    maat_pyr_state *st = S(g);
    for (int i = 0; i < n; i++)
        put_pyr(&st->seat[0], spots[i][0], spots[i][1],
                st->order[st->deck_pos++]);
    return g;
}

static void placement(void)
{
    /* empty: only stage 0 pos 0 */
    maat_game *g = pyramid_position(NULL, 0);
    static const int w0[][2] = {{0, 0}};
    expect_spots(g, w0, 1, "empty pyramid");
    place_ok(g, 0, 0, "first card");
    place_refused(g, 0, 1);
    place_refused(g, 0, -1);
    place_refused(g, 1, 0);
    R->destroy(&g);

    /* one card: extend left (min-1) or right (max+1) */
    static const int p1[][2] = {{0, 0}};
    g = pyramid_position(p1, 1);
    static const int w1[][2] = {{0, -1}, {0, 1}};
    expect_spots(g, w1, 2, "one card");
    place_ok(g, 0, -1, "extend left");
    place_ok(g, 0, 1, "extend right");
    place_refused(g, 0, 0);  /* occupied */
    place_refused(g, 0, 2);  /* beyond max+1 */
    place_refused(g, 0, -2); /* beyond min-1 */
    place_refused(g, 1, 0);  /* over one card */
    place_refused(g, 1, -1);
    R->destroy(&g);

    /* two cards at 0, 1: stage 1 may start early, over both */
    static const int p2[][2] = {{0, 0}, {0, 1}};
    g = pyramid_position(p2, 2);
    static const int w2[][2] = {{0, -1}, {0, 2}, {1, 0}};
    expect_spots(g, w2, 3, "two cards");
    place_ok(g, 1, 0, "stage 1 early");
    place_ok(g, 0, 2, "extend right of 2");
    place_refused(g, 1, 1);  /* over card 1 and a gap */
    place_refused(g, 1, -1); /* over a gap and card 0 */
    place_refused(g, 0, 3);
    place_refused(g, 0, -2);
    place_refused(g, 0, 1);  /* occupied */
    place_refused(g, 2, 0);
    R->destroy(&g);

    /* stage 0 full at 4 cards: -1..2; no stage-0 spot any more */
    static const int p4[][2] = {{0, -1}, {0, 0}, {0, 1}, {0, 2}};
    g = pyramid_position(p4, 4);
    static const int w4[][2] = {{1, -1}, {1, 0}, {1, 1}};
    expect_spots(g, w4, 3, "stage 0 full");
    place_refused(g, 0, -2);
    place_refused(g, 0, 3);
    place_ok(g, 1, -1, "stage 1 left");
    place_ok(g, 1, 1, "stage 1 right");
    R->destroy(&g);

    /* stage 2 needs two adjacent stage-1 cards */
    static const int p5[][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 0}};
    g = pyramid_position(p5, 4);
    static const int w5[][2] = {{0, -1}, {0, 3}, {1, 1}};
    expect_spots(g, w5, 3, "one stage-1 card");
    place_refused(g, 2, 0);  /* over stage-1 card 0 only */
    place_refused(g, 2, -1);
    place_refused(g, 1, 0);  /* occupied */
    place_refused(g, 1, 2);  /* over card 2 and a gap */
    R->destroy(&g);

    /* nine cards: only the top is left */
    static const int p9[][2] = {{0, 0}, {0, 1}, {0, 2}, {0, 3}, {1, 0},
                                {1, 1}, {1, 2}, {2, 0}, {2, 1}};
    g = pyramid_position(p9, 9);
    static const int w9[][2] = {{3, 0}};
    expect_spots(g, w9, 1, "nine cards");
    place_ok(g, 3, 0, "the top");
    place_refused(g, 3, 1);
    place_refused(g, 2, 2);
    /* out of the grid altogether: refused, no crash */
    place_refused(g, 4, 0);
    place_refused(g, -1, 0);
    place_refused(g, 0, 4);
    place_refused(g, 0, -4);
    place_refused(g, 3, 100);
    place_refused(g, 1000000, -1000000);
    R->destroy(&g);
}

/* ---- edifice constraints and wrong decisions ------------------------ */

static void edifice_constraints(void)
{
    int h[3];
    maat_game *g = build_position(3, MAAT_PYR_SEKHMET, h);
    /* Sekhmet with 3 seats: tomb and obelisk allowed, but distinct cards */
    int other = S(g)->order[S(g)->deck_pos]; /* not in hand */
    REFUSED(g, act(MAAT_PYR_BUILD, h[0], 0, 0, h[0], -1)); /* tomb = pyr */
    REFUSED(g, act(MAAT_PYR_BUILD, h[0], 0, 0, -1, h[0])); /* ob = pyr */
    REFUSED(g, act(MAAT_PYR_BUILD, h[0], 0, 0, h[1], h[1])); /* tomb = ob */
    REFUSED(g, act(MAAT_PYR_BUILD, other, 0, 0, -1, -1));
    REFUSED(g, act(MAAT_PYR_BUILD, h[0], 0, 0, other, -1));
    REFUSED(g, act(MAAT_PYR_BUILD, h[0], 0, 0, -1, other));
    REFUSED(g, act(MAAT_PYR_BUILD, h[0], 0, 0, -5, -1));
    REFUSED(g, act(MAAT_PYR_BUILD, h[0], 0, 0, -1, 200));
    REFUSED(g, act(MAAT_PYR_BUILD, -1, 0, 0, -1, -1));
    REFUSED(g, act(MAAT_PYR_BUILD, 105, 0, 0, -1, -1));
    /* answering another decision */
    REFUSED(g, act(MAAT_PYR_GOD, 1, -1, -1, -1, -1));
    REFUSED(g, act(MAAT_PYR_PAIR, 0, -1, -1, -1, -1));
    REFUSED(g, act(MAAT_PYR_KEEP, h[0], -1, -1, -1, -1));
    REFUSED(g, act(MAAT_PYR_OVER, 0, -1, -1, -1, -1));
    REFUSED(g, act(99, h[0], 0, 0, -1, -1));
    REFUSED(g, act(-1, h[0], 0, 0, -1, -1));
    /* the good one still works */
    APPLY_OK(g, act(MAAT_PYR_BUILD, h[0], 0, 0, h[1], h[2]));
    R->destroy(&g);

    /* a fresh game owes a god decision; pair, build and keep are refused;
     * then a pair decision: taken or missing pairs are refused */
    g = new_game(3, 8, NULL);
    int hand0 = S(g)->seat[0].hand[0];
    REFUSED(g, act(MAAT_PYR_PAIR, 0, -1, -1, -1, -1));
    REFUSED(g, act(MAAT_PYR_BUILD, hand0, 0, 0, -1, -1));
    REFUSED(g, act(MAAT_PYR_KEEP, hand0, -1, -1, -1, -1));
    int tiles[3] = {1, 2, 3};
    choose_gods(g, tiles);
    REFUSED(g, act(MAAT_PYR_GOD, 4, -1, -1, -1, -1));
    REFUSED(g, act(MAAT_PYR_PAIR, 3, -1, -1, -1, -1)); /* 3 pairs: 0..2 */
    REFUSED(g, act(MAAT_PYR_PAIR, -1, -1, -1, -1, -1));
    REFUSED(g, act(MAAT_PYR_PAIR, 100, -1, -1, -1, -1));
    APPLY_OK(g, act(MAAT_PYR_PAIR, 1, -1, -1, -1, -1));
    const maat_pyr_seat *s = &S(g)->seat[0];
    APPLY_OK(g, act(MAAT_PYR_BUILD, s->hand[0], 0, 0, -1, -1));
    CHECK(R->decision(g).kind == MAAT_PYR_PAIR && R->decision(g).seat == 1,
          "seat 1 should take a pair now");
    REFUSED(g, act(MAAT_PYR_PAIR, 1, -1, -1, -1, -1)); /* taken */
    APPLY_OK(g, act(MAAT_PYR_PAIR, 2, -1, -1, -1, -1));
    R->destroy(&g);
}

/* ---- scoring on hand-built boards ----------------------------------- */

static maat_game *score_game(int seats)
{
    maat_game *g = new_game(seats, 3, NULL);
    for (int i = 0; i < seats; i++)
        clear_seat(&S(g)->seat[i]);
    fresh_cards();
    return g;
}

static void obelisk_worked_example(void)
{
    maat_game *g = score_game(2);
    maat_pyr_seat *s = &S(g)->seat[0];
    /* red on BR, WR, BWR; blue on BR, BG, BWR: 3 each, white 2, green 1 */
    s->obelisk[0] = (uint8_t)find_card("BR", -1);
    s->obelisk[1] = (uint8_t)find_card("WR", -1);
    s->obelisk[2] = (uint8_t)find_card("BG", -1);
    s->obelisk[3] = (uint8_t)find_card("BWR", -1);
    s->obelisk_n = 4;
    int p = maat_pyr_obelisk_points(deck, s);
    CHECK(p == 6, "rulebook obelisk example scores %d, want 6", p);
    R->destroy(&g);
}

static void obelisk_table(void)
{
    static const int want[7] = {0, 1, 3, 6, 10, 15, 15};
    maat_game *g = score_game(2);
    maat_pyr_seat *s = &S(g)->seat[0];
    /* every card shows blue; white on at most 3 of them */
    static const char *cards[6] = {"BB", "BB", "BB", "BW", "WB", "BW"};
    int id[6];
    for (int i = 0; i < 6; i++)
        id[i] = find_card(cards[i], -1);
    for (int k = 0; k <= 6; k++) {
        s->obelisk_n = (uint8_t)k;
        for (int i = 0; i < k; i++)
            s->obelisk[i] = (uint8_t)id[i];
        int p = maat_pyr_obelisk_points(deck, s);
        CHECK(p == want[k], "obelisk k=%d scores %d, want %d", k, p, want[k]);
    }
    /* a colour counts once per card: two BBB cards are k = 2, not 6 */
    s->obelisk[0] = (uint8_t)find_card("BBB", -1);
    s->obelisk[1] = (uint8_t)find_card("BBB", -1);
    s->obelisk_n = 2;
    CHECK(maat_pyr_obelisk_points(deck, s) == 3,
          "two BBB cards score %d, want 3", maat_pyr_obelisk_points(deck, s));
    R->destroy(&g);
}

/* Pyramid of 2-stone cards only.  With 3-cell stones, the stone rows
 * line up: row s stone j covers cells [3(s+j), 3(s+j)+3), so think of
 * column x = s + j; vertical neighbours share the column.
 *
 *   row 3          Y  W                       (stage 3 pos 0: YW)
 *   row 2       G  G  W  G                    (stage 2: GG, WG)
 *   row 1    R  R  B  Y  G  G                 (stage 1: RR, BY, GG)
 *   row 0 R  R  R  R  B  B  B  B              (stage 0: RR, RR, BB, BB)
 *   x     0  1  2  3  4  5  6  7
 *
 * red: row 0 x0-3 + row 1 x1-2 = 6; blue: row 0 x4-7 = 4 (row 1 x3 is
 * alone); green: row 1 x5-6 + row 2 x5 = 3 (row 2 x2-3 is 2); white:
 * row 2 x4 + row 3 x4 = 2; yellow: 1 (two lone stones).
 * Score: 4 + 2 + 6 + 3 + 1 = 16, + largest 6 = 22, no bonus. */
static void pyramid_worked_example(void)
{
    maat_game *g = score_game(2);
    maat_pyr_seat *s = &S(g)->seat[0];
    static const struct { int stage, pos; const char *stones; } b[10] = {
        {0, 0, "RR"}, {0, 1, "RR"}, {0, 2, "BB"}, {0, 3, "BB"},
        {1, 0, "RR"}, {1, 1, "BY"}, {1, 2, "GG"},
        {2, 0, "GG"}, {2, 1, "WG"},
        {3, 0, "YW"}};
    int glyphs = 0;
    for (int i = 0; i < 10; i++) {
        int id = find_card(b[i].stones, -1);
        glyphs += deck->card[id].glyph == MAAT_PYR_GLYPH_PYRAMID;
        put_pyr(s, b[i].stage, b[i].pos, id);
    }
    int L[MAAT_PYR_COLOURS];
    maat_pyr_groups(deck, s, L);
    CHECK(L[MAAT_PYR_BLUE] == 4 && L[MAAT_PYR_WHITE] == 2 &&
              L[MAAT_PYR_RED] == 6 && L[MAAT_PYR_GREEN] == 3 &&
              L[MAAT_PYR_YELLOW] == 1,
          "groups B%d W%d R%d G%d Y%d, want 4 2 6 3 1", L[0], L[1], L[2],
          L[3], L[4]);
    maat_score sc[2];
    R->scores(g, sc);
    CHECK(sc[0].part[MAAT_PYR_S_GROUPS] == 16, "groups part %d, want 16",
          sc[0].part[MAAT_PYR_S_GROUPS]);
    CHECK(sc[0].part[MAAT_PYR_S_LARGEST] == 6, "largest part %d, want 6",
          sc[0].part[MAAT_PYR_S_LARGEST]);
    CHECK(sc[0].part[MAAT_PYR_S_BONUS] == 0, "bonus part %d, want 0",
          sc[0].part[MAAT_PYR_S_BONUS]);
    CHECK(sc[0].part[MAAT_PYR_S_GLYPHS] == 2 * glyphs,
          "glyph part %d, want %d", sc[0].part[MAAT_PYR_S_GLYPHS],
          2 * glyphs);
    CHECK(sc[0].total == 22 + 2 * glyphs, "total %d, want %d", sc[0].total,
          22 + 2 * glyphs);
    CHECK(sc[1].total == 0 && sc[0].rank == 1 && sc[1].rank == 2,
          "empty seat total %d, ranks %d %d", sc[1].total, sc[0].rank,
          sc[1].rank);
    R->destroy(&g);
}

/* Same model as above:
 *   row 3          W  W
 *   row 2       G  Y  R  B
 *   row 1    G  G  Y  Y  G  R
 *   row 0 B  B  B  W  W  W  R  R
 * blue 3 (row 0), white 3 (row 0), red 3 (row 0 x6-7 + row 1 x6),
 * green 3 (row 1 x1-2 + row 2 x2), yellow 3 (row 1 x3-4 + row 2 x3):
 * 15 + 3 + bonus 10 = 28. */
static void pyramid_bonus(void)
{
    maat_game *g = score_game(2);
    maat_pyr_seat *s = &S(g)->seat[0];
    static const struct { int stage, pos; const char *stones; } b[10] = {
        {0, 0, "BB"}, {0, 1, "BW"}, {0, 2, "WW"}, {0, 3, "RR"},
        {1, 0, "GG"}, {1, 1, "YY"}, {1, 2, "GR"},
        {2, 0, "GY"}, {2, 1, "RB"},
        {3, 0, "WW"}};
    for (int i = 0; i < 10; i++)
        put_pyr(s, b[i].stage, b[i].pos, find_card(b[i].stones, -1));
    int L[MAAT_PYR_COLOURS];
    maat_pyr_groups(deck, s, L);
    for (int c = 0; c < MAAT_PYR_COLOURS; c++)
        CHECK(L[c] == 3, "bonus pyramid: %s group %d, want 3",
              maat_pyr_colour_names[c], L[c]);
    maat_score sc[2];
    R->scores(g, sc);
    CHECK(sc[0].part[MAAT_PYR_S_GROUPS] == 15 &&
              sc[0].part[MAAT_PYR_S_LARGEST] == 3 &&
              sc[0].part[MAAT_PYR_S_BONUS] == 10,
          "bonus pyramid parts %d %d %d, want 15 3 10",
          sc[0].part[MAAT_PYR_S_GROUPS], sc[0].part[MAAT_PYR_S_LARGEST],
          sc[0].part[MAAT_PYR_S_BONUS]);
    R->destroy(&g);
}

/* Largest blue group of a small hand-built pyramid: cards[] at spots[]. */
static int blue_group(int n, const int spots[][2], const char *const *cards)
{
    maat_game *g = score_game(2);
    maat_pyr_seat *s = &S(g)->seat[0];
    for (int i = 0; i < n; i++)
        put_pyr(s, spots[i][0], spots[i][1], find_card(cards[i], -1));
    int L[MAAT_PYR_COLOURS];
    maat_pyr_groups(deck, s, L);
    R->destroy(&g);
    return L[MAAT_PYR_BLUE];
}

#define BLUE(n, sp, ...)                                                      \
    blue_group((n), (sp), (const char *const[]){__VA_ARGS__})

static void connectivity(void)
{
    static const int row2[][2] = {{0, 0}, {0, 1}};
    /* same row across two cards: WB | BW -> B [3,6) touches B [6,9) */
    CHECK(BLUE(2, row2, "WB", "BW") == 2, "WB|BW: blue not joined");
    /* BW | RB: B [0,3) and B [9,12) are apart */
    CHECK(BLUE(2, row2, "BW", "RB") == 1, "BW|RB: blue joined");
    /* 3-stone then 2-stone: RGB has B at [4,6), BY has B at [6,9) */
    CHECK(BLUE(2, row2, "RGB", "BY") == 2, "RGB|BY: blue not joined");
    /* same card, neighbouring stones */
    CHECK(BLUE(2, row2, "BBG", "RRR") == 2, "BBG: blue not joined");
    CHECK(BLUE(2, row2, "BRB", "RRR") == 1, "BRB: blue joined across R");

    /* 2-stone over 3-stone: stage 1 pos 0 covers [3,9): stones [3,6) and
     * [6,9).  Row 0: card 0 stones [0,2) [2,4) [4,6), card 1 [6,8) [8,10)
     * [10,12). */
    static const int up[][2] = {{0, 0}, {0, 1}, {1, 0}};
    CHECK(BLUE(3, up, "RBW", "YYY", "BG") == 2,
          "B [2,4) under B [3,6) (one cell overlap) not joined");
    CHECK(BLUE(3, up, "WRB", "YYY", "BG") == 2,
          "B [4,6) under B [3,6) not joined");
    CHECK(BLUE(3, up, "BWR", "YYY", "BG") == 1,
          "B [0,2) under B [3,6): no overlap, yet joined");
    CHECK(BLUE(3, up, "RRR", "RBW", "GB") == 2,
          "B [8,10) under B [6,9) not joined");
    CHECK(BLUE(3, up, "RRR", "WRB", "GB") == 1,
          "B [10,12) under B [6,9): no overlap, yet joined");
    /* 3-stone over 2-stone: stage 1 stones [3,5) [5,7) [7,9) */
    CHECK(BLUE(3, up, "GB", "RR", "RBW") == 2,
          "B [5,7) over B [3,6) not joined");
    CHECK(BLUE(3, up, "GB", "RR", "WRB") == 1,
          "B [7,9) over B [3,6) and R: joined");
    CHECK(BLUE(3, up, "GR", "BG", "WRB") == 2,
          "B [7,9) over B [6,9) not joined");
    /* corners touch but do not overlap: B [0,3) and B [3,6) one row up */
    CHECK(BLUE(3, up, "BW", "RR", "BG") == 1,
          "B [0,3) and B [3,6) a row up touch only at a corner: joined");

    /* rows s and s+2 never connect: row 0 B [3,9), row 1 red, row 2
     * B [6,9) right above */
    static const int two_up[][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 0},
                                    {1, 1}, {2, 0}};
    CHECK(BLUE(6, two_up, "WB", "BW", "YY", "RR", "RR", "BG") == 2,
          "rows 0 and 2 joined through red");
    /* ...but they do through a blue stone in row 1 */
    CHECK(BLUE(6, two_up, "WB", "BW", "YY", "RB", "RR", "BG") == 4,
          "rows 0-1-2 of blue not joined");
}

/* Three seats' tombs (stones per colour):
 *   seat 0: RRR, GG, WB  -> R3 G2 W1 B1
 *   seat 1: RR, GG, WBB  -> R2 G2 W1 B2
 *   seat 2: WBW, BW      -> W3 B2
 * red: 3 > 2 > 0 -> seat 0;  green: 2 = 2 -> nobody;
 * white: 1, 1, 3 -> seat 2;  blue: 1, 2 = 2 -> nobody;
 * yellow: nobody has any -> nobody.  Tomb parts: 5, 0, 5. */
static void tomb_majorities(void)
{
    maat_game *g = score_game(3);
    maat_pyr_state *st = S(g);
    static const char *t[3][3] = {{"RRR", "GG", "WB"},
                                  {"RR", "GG", "WBB"},
                                  {"WBW", "BW", NULL}};
    for (int s = 0; s < 3; s++)
        for (int k = 0; k < 3 && t[s][k]; k++)
            st->seat[s].tomb[st->seat[s].tomb_n++] =
                (uint8_t)find_card(t[s][k], -1);
    maat_score sc[3];
    maat_pyr_score_all(st, sc);
    static const int want[3] = {5, 0, 5};
    for (int s = 0; s < 3; s++)
        CHECK(sc[s].part[MAAT_PYR_S_TOMB] == want[s],
              "seat %d tomb part %d, want %d", s, sc[s].part[MAAT_PYR_S_TOMB],
              want[s]);
    /* a tie for the most between later seats after a smaller first one */
    R->destroy(&g);

    g = score_game(3);
    st = S(g);
    /* blue: seat 0 one, seats 1 and 2 two each -> nobody; then seat 2 one
     * more -> seat 2 */
    st->seat[0].tomb[st->seat[0].tomb_n++] = (uint8_t)find_card("BW", 0);
    st->seat[1].tomb[st->seat[1].tomb_n++] = (uint8_t)find_card("BB", 0);
    st->seat[2].tomb[st->seat[2].tomb_n++] = (uint8_t)find_card("BB", 0);
    maat_pyr_score_all(st, sc);
    /* white: seat 0 alone has one -> 5 for seat 0 */
    CHECK(sc[0].part[MAAT_PYR_S_TOMB] == 5 && sc[1].part[MAAT_PYR_S_TOMB] ==
              0 && sc[2].part[MAAT_PYR_S_TOMB] == 0,
          "tomb parts %d %d %d, want 5 0 0", sc[0].part[MAAT_PYR_S_TOMB],
          sc[1].part[MAAT_PYR_S_TOMB], sc[2].part[MAAT_PYR_S_TOMB]);
    st->seat[2].tomb[st->seat[2].tomb_n++] = (uint8_t)find_card("YB", 0);
    maat_pyr_score_all(st, sc);
    /* blue now 1, 2, 3 -> seat 2; yellow seat 2 alone -> seat 2 */
    CHECK(sc[0].part[MAAT_PYR_S_TOMB] == 5 && sc[1].part[MAAT_PYR_S_TOMB] ==
              0 && sc[2].part[MAAT_PYR_S_TOMB] == 10,
          "tomb parts %d %d %d, want 5 0 10", sc[0].part[MAAT_PYR_S_TOMB],
          sc[1].part[MAAT_PYR_S_TOMB], sc[2].part[MAAT_PYR_S_TOMB]);
    R->destroy(&g);
}

/* any unused card with this glyph */
static int find_glyph(int glyph)
{
    for (int id = 0; id < MAAT_PYR_CARDS; id++)
        if (!used[id] && deck->card[id].glyph == glyph) {
            used[id] = 1;
            return id;
        }
    CHECK(0, "no unused card with glyph %d", glyph);
    exit(1);
}

static void put_in(maat_pyr_seat *s, int edifice, int id)
{
    if (edifice == 0) /* the pyramid: the next stage-0 spot is enough */
        put_pyr(s, 0, s->pyramid_n, id);
    else if (edifice == 1)
        s->obelisk[s->obelisk_n++] = (uint8_t)id;
    else
        s->tomb[s->tomb_n++] = (uint8_t)id;
}

/* One card with glyph gl in edifice e (0 pyramid, 1 obelisk, 2 tomb):
 * 2 points when they match, else nothing; no glyph, nothing. */
static void glyph_scoring(void)
{
    static const int glyph_of[4] = {MAAT_PYR_GLYPH_PYRAMID,
                                    MAAT_PYR_GLYPH_OBELISK,
                                    MAAT_PYR_GLYPH_TOMB, MAAT_PYR_GLYPH_NONE};
    static const char *const where[3] = {"pyramid", "obelisk", "tomb"};
    maat_score sc[2];
    for (int gl = 0; gl < 4; gl++)
        for (int e = 0; e < 3; e++) {
            maat_game *g = score_game(2);
            put_in(&S(g)->seat[0], e, find_glyph(glyph_of[gl]));
            R->scores(g, sc);
            int want = gl == e ? 2 : 0;
            CHECK(sc[0].part[MAAT_PYR_S_GLYPHS] == want,
                  "a %s glyph in the %s scores %d, want %d",
                  maat_pyr_glyph_names[glyph_of[gl]], where[e],
                  sc[0].part[MAAT_PYR_S_GLYPHS], want);
            R->destroy(&g);
        }
    /* pyramid: 2 pyramid + 1 obelisk + 1 tomb glyph; obelisk: obelisk,
     * pyramid, tomb; tomb: tomb, pyramid, obelisk -> (2 + 1 + 1) x 2 = 8 */
    maat_game *g = score_game(2);
    maat_pyr_seat *s = &S(g)->seat[0];
    put_in(s, 0, find_glyph(MAAT_PYR_GLYPH_PYRAMID));
    put_in(s, 0, find_glyph(MAAT_PYR_GLYPH_PYRAMID));
    put_in(s, 0, find_glyph(MAAT_PYR_GLYPH_OBELISK));
    put_in(s, 0, find_glyph(MAAT_PYR_GLYPH_TOMB));
    put_in(s, 1, find_glyph(MAAT_PYR_GLYPH_OBELISK));
    put_in(s, 1, find_glyph(MAAT_PYR_GLYPH_PYRAMID));
    put_in(s, 1, find_glyph(MAAT_PYR_GLYPH_TOMB));
    put_in(s, 2, find_glyph(MAAT_PYR_GLYPH_TOMB));
    put_in(s, 2, find_glyph(MAAT_PYR_GLYPH_PYRAMID));
    put_in(s, 2, find_glyph(MAAT_PYR_GLYPH_OBELISK));
    R->scores(g, sc);
    CHECK(sc[0].part[MAAT_PYR_S_GLYPHS] == 8, "mixed glyphs score %d, want 8",
          sc[0].part[MAAT_PYR_S_GLYPHS]);
    int sum = 0;
    for (int p = 0; p < MAAT_PYR_S_PARTS; p++)
        sum += sc[0].part[p];
    CHECK(sc[0].total == sum, "total %d is not the sum of its parts %d",
          sc[0].total, sum);
    R->destroy(&g);
}

/* Tied totals share a place: 30, 30, 20 -> 1, 1, 3. */
static void shared_ranks(void)
{
    static const struct { int n, total[5], rank[5]; } c[] = {
        {3, {30, 30, 20}, {1, 1, 3}},
        {3, {20, 30, 30}, {3, 1, 1}},
        {4, {10, 20, 30, 20}, {4, 2, 1, 2}},
        {5, {7, 7, 7, 7, 7}, {1, 1, 1, 1, 1}},
        {2, {0, 1}, {2, 1}},
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        maat_score s[5];
        memset(s, 0, sizeof s);
        for (int i = 0; i < c[k].n; i++)
            s[i].total = c[k].total[i];
        maat_rank_scores(s, c[k].n);
        for (int i = 0; i < c[k].n; i++)
            CHECK(s[i].rank == c[k].rank[i], "case %zu seat %d: rank %d, "
                  "want %d", k, i, s[i].rank, c[k].rank[i]);
    }
    /* and through the game's scores: two equal hand-built seats and an
     * empty one -> 1, 1, 3 */
    maat_game *g = score_game(3);
    maat_pyr_state *st = S(g);
    put_pyr(&st->seat[0], 0, 0, find_card("RR", MAAT_PYR_GLYPH_NONE));
    put_pyr(&st->seat[1], 0, 0, find_card("RR", MAAT_PYR_GLYPH_NONE));
    maat_score sc[3];
    R->scores(g, sc);
    /* each: red 2 + largest 2 = 4 */
    CHECK(sc[0].total == 4 && sc[1].total == 4 && sc[2].total == 0,
          "totals %d %d %d, want 4 4 0", sc[0].total, sc[1].total,
          sc[2].total);
    CHECK(sc[0].rank == 1 && sc[1].rank == 1 && sc[2].rank == 3,
          "ranks %d %d %d, want 1 1 3", sc[0].rank, sc[1].rank, sc[2].rank);
    R->destroy(&g);
}

int main(void)
{
    maat_error err = {0, ""};
    setup = R->setup_new(NULL, &err);
    CHECK(setup != NULL, "setup_new: %s", err.msg);
    if (!setup)
        return check_done("pyramids_rules");
    {
        /* the deck the games use */
        maat_game *g = new_game(2, 0, NULL);
        deck = maat_pyr_state_of(g)->deck;
        R->destroy(&g);
    }
    deal();
    god_tiles();
    tiles_in_play();
    decision_order();
    rounds();
    keep_decisions();
    end_of_game();
    placement();
    edifice_constraints();
    obelisk_worked_example();
    obelisk_table();
    pyramid_worked_example();
    pyramid_bonus();
    connectivity();
    tomb_majorities();
    glyph_scoring();
    shared_ranks();
    R->setup_destroy(&setup);
    return check_done("pyramids_rules");
}
