/* test_rules_trace.c -- the rules engines' behaviour, pinned as hashes.
 *
 * The rules engines are tuned for speed (docs/PERFORMANCE.md, "Rules
 * engine, halved"); this test is the proof that tuning changed nothing a
 * bot, a referee or a record can tell.  For every built-in game and every
 * seat count it plays seeded random games through the generic maat_rules
 * interface and folds into one 64-bit hash (FNV-1a) per (game, seats):
 *
 *  - the events of the deal and of every apply: every field, and their
 *    msgpack encoding;
 *  - at every decision: whose it is and its kind, the whole legal list in
 *    order (the count, then every action's kind and args, and its
 *    encoding), and the observation bytes of every seat, of the
 *    omniscient seat and of an outside seat;
 *  - at every decision, probes on copies of the state: a few legal actions
 *    with one field changed (and now and then a random action): apply's
 *    answer (code and message) and, when it accepts, the events and the
 *    omniscient observation after it;
 *  - at the end: the scores (total, rank, parts) and each seat's render.
 *
 * Pyramids' pyramid geometry and scoring also run on hand-made states
 * that play never reaches (any cells filled, cards floating, hands and
 * edifices at random): the spots, the build list, apply's answer for
 * every (stage, position), and maat_pyr_groups, obelisk points and the
 * whole score, hashed the same way (pyramids_handmade below); so do
 * Pyramix's (any places filled, cubes floating, cobras anywhere):
 * removable places, the legal list, apply at every place with its events
 * and the state after, maat_pmx_refresh and the scores (pyramix_handmade).
 *
 * Besides, at every decision, legal_actions with a smaller cap must write
 * the same prefix and return the same total, and a copy must list the same
 * actions.  The hashes below were computed on the code before the engines
 * were tuned (main at 64846f0); a change of behaviour changes them.  When
 * a rule changes on purpose (rules_version bumped), rerun with
 * MAAT_TRACE_PRINT=1 and pin the new values in the same commit.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "maat/game.h"
#include "maat/internal/pyramids.h"
#include "maat/internal/pyramix.h"
#include "maat/rng.h"

#define MAXA 2048 /* more than any game lists at once */
#define PROBES 6  /* changed actions tried per decision */

typedef struct trace {
    uint64_t h;
    msgpack_sbuffer sb;
    msgpack_packer pk;
} trace;

static void mix(trace *t, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        t->h ^= b[i];
        t->h *= 1099511628211ull;
    }
}

static void mix_int(trace *t, long long v)
{
    int64_t x = (int64_t)v;
    mix(t, &x, sizeof x);
}

/* The bytes written by one encoder call, and its return code. */
#define MIX_ENCODED(t, call)                                                 \
    do {                                                                     \
        msgpack_sbuffer_clear(&(t)->sb);                                     \
        mix_int((t), (call));                                                \
        mix_int((t), (long long)(t)->sb.size);                               \
        mix((t), (t)->sb.data, (t)->sb.size);                                \
    } while (0)

static void mix_action(trace *t, const maat_rules *r, const maat_game *g,
                       const maat_action *a)
{
    mix_int(t, a->kind);
    for (int k = 0; k < MAAT_ACTION_ARGS; k++)
        mix_int(t, a->arg[k]);
    MIX_ENCODED(t, r->encode_action(g, a, &t->pk));
}

static void mix_events(trace *t, const maat_rules *r, const maat_game *g,
                       maat_events *ev)
{
    mix_int(t, (long long)ev->count);
    for (size_t i = 0; i < ev->count; i++) {
        const maat_event *e = &ev->items[i];
        mix_int(t, e->visible_to);
        mix_int(t, e->kind);
        mix_int(t, e->seat);
        for (int k = 0; k < MAAT_EVENT_ARGS; k++)
            mix_int(t, e->arg[k]);
        MIX_ENCODED(t, r->encode_event(g, e, &t->pk));
    }
    maat_events_clear(ev);
}

static void mix_observations(trace *t, const maat_rules *r,
                             const maat_game *g, int seats)
{
    for (int s = -2; s < seats; s++) /* omniscient, outsider, each seat */
        MIX_ENCODED(t, r->encode_observation(g, s, &t->pk));
}

static void mix_error(trace *t, int rc, const maat_error *err)
{
    mix_int(t, rc);
    if (rc)
        mix(t, err->msg, strlen(err->msg));
}

/* A legal action with one field changed, or now and then any action. */
static maat_action changed(const maat_action *legal, int n, maat_rng *rng)
{
    maat_action a = legal[maat_rng_below(rng, (uint32_t)n)];
    uint32_t what = maat_rng_below(rng, 10);
    int v = (int)maat_rng_below(rng, 130) - 10; /* -10..119 */
    if (what == 0) {
        a.kind = (int32_t)maat_rng_below(rng, 8) - 1;
        for (int k = 0; k < MAAT_ACTION_ARGS; k++)
            a.arg[k] = (int32_t)maat_rng_below(rng, 20) - 4;
    } else if (what == 1) {
        a.kind = v % 8;
    } else if (what < 6) {
        /* mostly small values: the ones that are nearly legal */
        a.arg[maat_rng_below(rng, 5)] = v % 9 - 3;
    } else {
        a.arg[maat_rng_below(rng, MAAT_ACTION_ARGS)] = v;
    }
    return a;
}

static int same_actions(const maat_action *a, const maat_action *b, int n)
{
    return n == 0 || memcmp(a, b, sizeof *a * (size_t)n) == 0;
}

/* One game; returns the number of decisions, -1 after a failure. */
static int play(trace *t, const maat_rules *r, const maat_setup *setup,
                int seats, uint64_t seed, maat_rng *rng)
{
    static maat_action buf[MAXA], again[MAXA];
    maat_events ev = {0};
    maat_error err = {0};
    maat_seed sd;
    maat_game *g = r->game_new(setup, maat_seed_from_u64(&sd, seed), seats,
                               &ev, &err);
    CHECK(g, "%s: game_new(%d seats): %s", r->name, seats, err.msg);
    if (!g)
        return -1;
    mix_events(t, r, g, &ev);
    int decisions = 0;
    for (;;) {
        maat_decision d = r->decision(g);
        mix_int(t, d.seat);
        mix_int(t, d.kind);
        mix_int(t, r->is_over(g));
        int n = r->legal_actions(g, buf, MAXA);
        mix_int(t, n);
        CHECK(n <= MAXA, "%s: %d legal actions", r->name, n);
        if (n > MAXA)
            break;
        for (int i = 0; i < n; i++)
            mix_action(t, r, g, &buf[i]);
        mix_observations(t, r, g, seats);
        if (n == 0)
            break;
        /* a smaller cap: the same total, the same first actions */
        int cap = (int)maat_rng_below(rng, (uint32_t)n);
        int m = r->legal_actions(g, again, cap);
        CHECK(m == n && same_actions(buf, again, cap),
              "%s: cap %d gave %d actions, not the first of %d", r->name, cap,
              m, n);
        for (int p = 0; p < PROBES; p++) {
            maat_game *c = r->copy(g);
            CHECK(c, "%s: copy", r->name);
            if (!c)
                break;
            if (p == 0) {
                int nc = r->legal_actions(c, again, MAXA);
                CHECK(nc == n && same_actions(buf, again, n),
                      "%s: a copy lists other actions", r->name);
            }
            maat_action a = changed(buf, n, rng);
            maat_error perr = {0};
            int rc = r->apply(c, &a, &ev, &perr);
            mix_error(t, rc, &perr);
            if (rc == MAAT_OK) {
                mix_events(t, r, c, &ev);
                MIX_ENCODED(t, r->encode_observation(c, MAAT_OMNISCIENT,
                                                     &t->pk));
            }
            CHECK(rc == MAAT_OK || ev.count == 0,
                  "%s: a refused action emitted events", r->name);
            maat_events_clear(&ev);
            r->destroy(&c);
        }
        maat_action a = buf[maat_rng_below(rng, (uint32_t)n)];
        int rc = r->apply(g, &a, &ev, &err);
        CHECK(rc == MAAT_OK, "%s: a legal action refused: %s", r->name,
              err.msg);
        if (rc)
            break;
        mix_events(t, r, g, &ev);
        decisions++;
    }
    maat_score sc[MAAT_MAX_SEATS];
    r->scores(g, sc);
    for (int i = 0; i < seats; i++) {
        mix_int(t, sc[i].total);
        mix_int(t, sc[i].rank);
        for (int k = 0; k < r->n_score_parts; k++)
            mix_int(t, sc[i].part[k]);
    }
    for (int s = -2; s < seats; s++) {
        char *text = maat_game_render(r, g, s);
        CHECK(text, "%s: render", r->name);
        if (text)
            mix(t, text, strlen(text));
        free(text);
    }
    r->destroy(&g);
    maat_events_free(&ev);
    return decisions;
}

/* A random Pyramids state for `seats` seats: every seat's grid filled
 * with probability fill/8 per cell (so any shape, floating cards too),
 * obelisk and tomb of random cards, seat 0 to build with a random hand
 * and God tile.  Cards may repeat: geometry and scoring do not care. */
static void random_pyramids(maat_pyr_state *st, int seats, maat_rng *rng)
{
    int fill = (int)maat_rng_below(rng, 9);
    for (int i = 0; i < seats; i++) {
        maat_pyr_seat *s = &st->seat[i];
        s->pyramid_n = 0;
        for (int r = 0; r < MAAT_PYR_STAGES; r++)
            for (int p = 0; p < MAAT_PYR_POSITIONS; p++) {
                int on = (int)maat_rng_below(rng, 8) < fill;
                s->grid[r][p] = (int8_t)(on ? (int)maat_rng_below(
                                                  rng, MAAT_PYR_CARDS)
                                            : -1);
                s->pyramid_n = (uint8_t)(s->pyramid_n + on);
            }
        if (maat_rng_below(rng, 8) == 0) /* a count that lies */
            s->pyramid_n = (uint8_t)maat_rng_below(rng, 3);
        s->obelisk_n = (uint8_t)maat_rng_below(rng, MAAT_PYR_ROUNDS + 1);
        s->tomb_n = (uint8_t)maat_rng_below(rng, MAAT_PYR_ROUNDS + 1);
        for (int k = 0; k < MAAT_PYR_ROUNDS; k++) {
            s->obelisk[k] = (uint8_t)maat_rng_below(rng, MAAT_PYR_CARDS);
            s->tomb[k] = (uint8_t)maat_rng_below(rng, MAAT_PYR_CARDS);
        }
        s->hand_n = (uint8_t)maat_rng_below(rng, 4);
        for (int k = 0; k < 3; k++)
            s->hand[k] = (uint8_t)maat_rng_below(rng, MAAT_PYR_CARDS);
        s->god = (uint8_t)maat_rng_below(rng, 6);
    }
    st->phase = MAAT_PYR_BUILD;
    st->to_move = 0;
}

#define HANDMADE 4000
static uint64_t pyramids_handmade(trace *t, int seats)
{
    const maat_rules *r = &maat_pyramids_rules;
    static maat_action buf[MAXA];
    maat_options opt = {0};
    maat_error err = {0};
    maat_setup *setup = r->setup_new(&opt, &err);
    maat_seed sd;
    maat_game *g = setup ? r->game_new(setup, maat_seed_from_u64(&sd, 7),
                                       seats, NULL, &err)
                         : NULL;
    CHECK(g, "pyramids: %s", err.msg);
    if (!g) {
        r->setup_destroy(&setup);
        return 0;
    }
    maat_rng rng;
    maat_rng_seed(&rng, maat_seed_from_u64(&sd, 1900u + (unsigned)seats));
    t->h = 14695981039346656037ull;
    maat_pyr_state *st = maat_pyr_state_mut(g);
    for (int game = 0; game < HANDMADE; game++) {
        random_pyramids(st, seats, &rng);
        for (int i = 0; i < seats; i++) {
            int L[MAAT_PYR_COLOURS], spot[32][2];
            maat_pyr_groups(st->deck, &st->seat[i], L);
            for (int c = 0; c < MAAT_PYR_COLOURS; c++)
                mix_int(t, L[c]);
            mix_int(t, maat_pyr_obelisk_points(st->deck, &st->seat[i]));
            int cap = (int)maat_rng_below(&rng, 20);
            int n = maat_pyr_spots(&st->seat[i], spot, cap);
            mix_int(t, n);
            for (int k = 0; k < n && k < cap; k++) {
                mix_int(t, spot[k][0]);
                mix_int(t, spot[k][1]);
            }
        }
        maat_score sc[MAAT_MAX_SEATS];
        r->scores(g, sc);
        for (int i = 0; i < seats; i++) {
            mix_int(t, sc[i].total);
            mix_int(t, sc[i].rank);
            for (int k = 0; k < r->n_score_parts; k++)
                mix_int(t, sc[i].part[k]);
        }
        int n = r->legal_actions(g, buf, MAXA);
        mix_int(t, n);
        for (int i = 0; i < n && i < MAXA; i++)
            mix_action(t, r, g, &buf[i]);
        /* apply's answer for every (stage, position), and a few more */
        const maat_pyr_seat *me = &st->seat[0];
        for (int stage = -1; stage <= MAAT_PYR_STAGES; stage++)
            for (int pos = -4; pos <= 4; pos++) {
                maat_game *c = r->copy(g);
                if (!c)
                    break;
                int card = me->hand_n ? me->hand[0] : 0;
                maat_action a = {MAAT_PYR_BUILD,
                                 {card, stage, pos, -1, -1, -1, -1}};
                if (maat_rng_below(&rng, 4) == 0 && me->hand_n > 1)
                    a.arg[3 + (int)maat_rng_below(&rng, 2)] = me->hand[1];
                maat_error perr = {0};
                int rc = r->apply(c, &a, NULL, &perr);
                mix_error(t, rc, &perr);
                if (rc == MAAT_OK)
                    MIX_ENCODED(t, r->encode_observation(c, MAAT_OMNISCIENT,
                                                         &t->pk));
                r->destroy(&c);
            }
    }
    r->destroy(&g);
    r->setup_destroy(&setup);
    return t->h;
}

/* What pyramids_handmade hashed to on the reference code, 2..5 seats. */
static const uint64_t handmade_pins[4] = {
    0xa710b50b13480787ull, 0xb7666c0039cc0c82ull, 0x40bcd439ef359eddull,
    0xf49c02b89a31db9bull};

/* A random Pyramix state: each place filled with probability fill/8
 * by a random cube (cubes may repeat; cobras are 52..55), random reveals
 * and collections, a random seat to move. */
static void random_pyramix(maat_pmx_state *st, int seats, maat_rng *rng)
{
    int fill = 1 + (int)maat_rng_below(rng, 8);
    for (int p = 0; p < MAAT_PMX_PLACES; p++) {
        int on = (int)maat_rng_below(rng, 8) < fill;
        int cube = maat_rng_below(rng, 4) == 0
                       ? 52 + (int)maat_rng_below(rng, 4)
                       : (int)maat_rng_below(rng, MAAT_PMX_CUBES);
        st->cube[p] = (int8_t)(on ? cube : -1);
    }
    for (int c = 0; c < MAAT_PMX_CUBES; c++)
        st->revealed[c] = maat_rng_below(rng, 2) == 0;
    for (int i = 0; i < seats; i++) {
        st->n_collected[i] = 0;
        for (int c = 0; c < MAAT_PMX_CUBES; c++) {
            st->collected[i][c] = maat_rng_below(rng, 6) == 0;
            st->n_collected[i] += st->collected[i][c];
        }
    }
    st->to_move = (int)maat_rng_below(rng, (uint32_t)seats);
    st->over = 0;
}

static uint64_t pyramix_handmade(trace *t, int seats)
{
    const maat_rules *r = &maat_pyramix_rules;
    static maat_action buf[MAXA];
    maat_options opt = {0};
    maat_error err = {0};
    maat_setup *setup = r->setup_new(&opt, &err);
    maat_seed sd;
    maat_game *g = setup ? r->game_new(setup, maat_seed_from_u64(&sd, 7),
                                       seats, NULL, &err)
                         : NULL;
    CHECK(g, "pyramix: %s", err.msg);
    if (!g) {
        r->setup_destroy(&setup);
        return 0;
    }
    maat_rng rng;
    maat_rng_seed(&rng, maat_seed_from_u64(&sd, 2900u + (unsigned)seats));
    t->h = 14695981039346656037ull;
    maat_pmx_state *st = maat_pmx_state_mut(g);
    maat_events ev = {0};
    for (int game = 0; game < HANDMADE; game++) {
        random_pyramix(st, seats, &rng);
        for (int p = -1; p <= MAAT_PMX_PLACES; p++) {
            mix_int(t, maat_pmx_visible_faces(st, p));
            if (p >= 0 && p < MAAT_PMX_PLACES)
                mix_int(t, maat_pmx_removable(st, p));
        }
        int n = r->legal_actions(g, buf, MAXA);
        mix_int(t, n);
        for (int i = 0; i < n && i < MAXA; i++)
            mix_action(t, r, g, &buf[i]);
        for (int p = 0; p < MAAT_PMX_PLACES; p++) {
            maat_game *c = r->copy(g);
            if (!c)
                break;
            int x, y, z;
            maat_pmx_coords(p, &x, &y, &z);
            maat_action a = {MAAT_PMX_REMOVE, {x, y, z, -1, -1, -1, -1}};
            maat_error perr = {0};
            int rc = r->apply(c, &a, &ev, &perr);
            mix_error(t, rc, &perr);
            if (rc == MAAT_OK) {
                mix_events(t, r, c, &ev);
                mix_int(t, r->is_over(c));
                MIX_ENCODED(t, r->encode_observation(c, MAAT_OMNISCIENT,
                                                     &t->pk));
            }
            maat_events_clear(&ev);
            r->destroy(&c);
        }
        maat_pmx_refresh(st);
        mix_int(t, st->over);
        mix(t, st->revealed, sizeof st->revealed);
        maat_score sc[MAAT_MAX_SEATS];
        r->scores(g, sc);
        for (int i = 0; i < seats; i++) {
            mix_int(t, sc[i].total);
            mix_int(t, sc[i].rank);
            for (int k = 0; k < r->n_score_parts; k++)
                mix_int(t, sc[i].part[k]);
        }
    }
    maat_events_free(&ev);
    r->destroy(&g);
    r->setup_destroy(&setup);
    return t->h;
}

/* What pyramix_handmade hashed to on the reference code, 2..4 seats. */
static const uint64_t pyramix_handmade_pins[3] = {
    0xad1a6004015fed0aull, 0x0b7b0e74bbb92b8aull, 0x40f374cc64ce328dull};

/* Games per seat count, and what they hashed to on the reference code. */
#define GAMES 150
static const struct pin {
    const char *game;
    int seats;
    uint64_t hash;
} pins[] = {
    {"pyramids", 2, 0xdc55c97eafb1923dull}, /* 10100 decisions */
    {"pyramids", 3, 0x33d478b34d57da04ull}, /* 15123 decisions */
    {"pyramids", 4, 0x2e937050881e1bc8ull}, /* 19974 decisions */
    {"pyramids", 5, 0x4cbb27c4ccf516d7ull}, /* 25001 decisions */
    {"pyramix", 2, 0x142ed8450601f26cull}, /* 5250 decisions */
    {"pyramix", 3, 0x5b4bec8c9e457702ull}, /* 5250 decisions */
    {"pyramix", 4, 0xab70f686185970c5ull}, /* 5250 decisions */
    {"architects", 2, 0xefe90e849d0f0c1aull}, /* 13913 decisions */
    {"architects", 3, 0xbd584ad8d3a9e9f3ull}, /* 21261 decisions */
    {"architects", 4, 0x70d78bf82be8f51aull}, /* 28568 decisions */
};

int main(void)
{
    int print = getenv("MAAT_TRACE_PRINT") != NULL;
    trace t;
    msgpack_sbuffer_init(&t.sb);
    msgpack_packer_init(&t.pk, &t.sb, msgpack_sbuffer_write);
    int n_pins = (int)(sizeof pins / sizeof pins[0]);
    for (int p = 0; p < n_pins; p++) {
        const maat_rules *r = maat_rules_find(pins[p].game);
        CHECK(r, "no game %s", pins[p].game);
        if (!r)
            continue;
        maat_options opt = {0};
        maat_error err = {0};
        maat_setup *setup = r->setup_new(&opt, &err);
        CHECK(setup, "%s: setup: %s", r->name, err.msg);
        if (!setup)
            continue;
        /* the players' choices and probes: one stream per (game, seats) */
        maat_seed key, players;
        char label[64];
        snprintf(label, sizeof label, "trace %s %d", r->name, pins[p].seats);
        maat_seed_derive(&players, maat_seed_from_u64(&key, 19), label);
        maat_rng rng;
        maat_rng_seed(&rng, &players);
        t.h = 14695981039346656037ull;
        long decisions = 0;
        for (int i = 0; i < GAMES; i++) {
            uint64_t seed = 1000u * (unsigned)p + (unsigned)i;
            int d = play(&t, r, setup, pins[p].seats, seed, &rng);
            if (d < 0)
                break;
            decisions += d;
        }
        if (print)
            printf("    {\"%s\", %d, 0x%016llxull}, /* %ld decisions */\n",
                   r->name, pins[p].seats, (unsigned long long)t.h,
                   decisions);
        CHECK(t.h == pins[p].hash,
              "%s, %d seats: the trace hashes to 0x%016llx, pinned "
              "0x%016llx: the rules engine behaves differently",
              r->name, pins[p].seats, (unsigned long long)t.h,
              (unsigned long long)pins[p].hash);
        r->setup_destroy(&setup);
    }
    for (int seats = 2; seats <= MAAT_PYR_MAX_SEATS; seats++) {
        uint64_t h = pyramids_handmade(&t, seats);
        if (print)
            printf("    0x%016llxull, /* hand-made pyramids, %d seats */\n",
                   (unsigned long long)h, seats);
        CHECK(h == handmade_pins[seats - 2],
              "hand-made pyramids, %d seats: the trace hashes to 0x%016llx, "
              "pinned 0x%016llx: the geometry or scoring behaves differently",
              seats, (unsigned long long)h,
              (unsigned long long)handmade_pins[seats - 2]);
    }
    for (int seats = 2; seats <= MAAT_PMX_MAX_SEATS; seats++) {
        uint64_t h = pyramix_handmade(&t, seats);
        if (print)
            printf("    0x%016llxull, /* hand-made pyramix, %d seats */\n",
                   (unsigned long long)h, seats);
        CHECK(h == pyramix_handmade_pins[seats - 2],
              "hand-made pyramix, %d seats: the trace hashes to 0x%016llx, "
              "pinned 0x%016llx: the rules behave differently", seats,
              (unsigned long long)h,
              (unsigned long long)pyramix_handmade_pins[seats - 2]);
    }
    msgpack_sbuffer_destroy(&t.sb);
    return check_done("rules_trace");
}
