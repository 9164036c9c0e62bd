/* test_view_delta.c -- protocol version 2 leaves the bot's view exact.
 *
 * In version 2 a request carries the observation only in a seat's first
 * request of each game (docs/PROTOCOL.md); after that the SDK feeds its
 * view the events alone: view_update(view, events, NULL).  This proves,
 * for every built-in game, every seat count and every seat over seeded
 * random games, that such a view is the view a bot fed every observation
 * would have:
 *  a) view_update(events only) succeeds at every request of the seat
 *     (or, for a game whose view cannot follow events, fails cleanly with
 *     an error -- the SDK then resyncs -- and that is reported);
 *  b) determinize of the events-only view and of the fed view, with the
 *     same generator, give identical states: their MAAT_OMNISCIENT
 *     encodings are byte-identical;
 *  c) the seat's own observation of that state is byte-identical to the
 *     observation the referee would have sent (encode_observation of the
 *     true game);
 *  d) the legal actions of that state are the referee's list, in order;
 *  e) view_legal_actions of the events-only view and of the fed view --
 *     what a version-3 bot plays from, the request carrying no `legal` --
 *     is the referee's list too, in order, at every request.
 * Messages go through real msgpack bytes, each seat gets the events its
 * visible_to bit allows since its last request, like referee/protocol.c.
 *
 * Usage: test_view_delta [games-per-seat-count]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "viewfeed.h"
#include "maat/internal/msg.h"
#include "maat/policy.h"

#define MAXA 4096

static int same_bytes(const msgpack_sbuffer *a, const msgpack_sbuffer *b)
{
    return a->size == b->size && memcmp(a->data, b->data, a->size) == 0;
}

typedef struct tally {
    long requests, followed, legal_same, view_legal_same;
} tally;

/* e): the view's own list against the referee's (n actions). */
static int view_legal_is(const maat_rules *r, const maat_view *v,
                         const maat_action *legal, int n, const char *which,
                         int seats, uint64_t seed, int step, int seat)
{
    static maat_action vlegal[MAXA];
    int m = r->view_legal_actions(v, vlegal, MAXA);
    int same = n == m && n <= MAXA &&
               !memcmp(legal, vlegal, sizeof *legal * (size_t)n);
    CHECK(same, "%s %d seats seed %llu step %d seat %d: view_legal_actions "
          "of the %s view (%d actions) is not the referee's list (%d)",
          r->name, seats, (unsigned long long)seed, step, seat, which, m, n);
    return same;
}

/* One game: every seat keeps two views, `full` fed like a version-1 bot,
 * `delta` like a version-2 bot. */
static void play(const maat_rules *r, const maat_setup *setup,
                 const maat_setup *bot_setup, int seats, uint64_t seed,
                 tally *t)
{
    maat_events ev = {0};
    maat_error err = {0};
    maat_game *g = r->game_new(setup, SEED(seed), seats, &ev, &err);
    CHECK(g != NULL, "%s game_new: %s", r->name, err.msg);
    if (!g)
        return;
    maat_view *full[MAAT_MAX_SEATS], *delta[MAAT_MAX_SEATS];
    size_t sent[MAAT_MAX_SEATS] = {0};
    int has_obs[MAAT_MAX_SEATS] = {0};
    for (int i = 0; i < seats; i++) {
        full[i] = r->view_new(bot_setup, i, seats);
        delta[i] = r->view_new(bot_setup, i, seats);
    }
    msgpack_sbuffer eb, ob, x, y;
    msgpack_sbuffer_init(&eb);
    msgpack_sbuffer_init(&ob);
    msgpack_sbuffer_init(&x);
    msgpack_sbuffer_init(&y);
    maat_rng policy;
    maat_rng_seed(&policy, SEED(seed ^ 0x5eedULL));
    static maat_action legal[MAXA], dlegal[MAXA];
    int step = 0, failed = 0;
    while (!r->is_over(g) && !failed) {
        maat_decision d = r->decision(g);
        int s = d.seat;
        viewfeed_events(r, g, &ev, sent[s], s, &eb);
        sent[s] = ev.count;
        viewfeed_obs(r, g, s, &ob);
        msgpack_unpacked eu, ou;
        CHECK(maat_msg_unpack(eb.data, eb.size, &eu, &err) == MAAT_OK,
              "events: %s", err.msg);
        CHECK(maat_msg_unpack(ob.data, ob.size, &ou, &err) == MAAT_OK,
              "observation: %s", err.msg);
        int rc = r->view_update(full[s], &eu.data, &ou.data, &err);
        CHECK(rc == MAAT_OK, "%s full view: %s", r->name, err.msg);
        t->requests++;
        /* the delta view: the observation only the first time */
        rc = r->view_update(delta[s], &eu.data, has_obs[s] ? NULL : &ou.data,
                            &err);
        if (rc != MAAT_OK) {
            CHECK(rc == MAAT_OK, "%s %d seats seed %llu step %d seat %d: "
                  "events-only update failed: %s", r->name, seats,
                  (unsigned long long)seed, step, s, err.msg);
            failed = 1;
        } else {
            t->followed += has_obs[s];
        }
        has_obs[s] = 1;
        msgpack_unpacked_destroy(&eu);
        msgpack_unpacked_destroy(&ou);
        if (!failed) {
            maat_rng r1, r2;
            maat_rng_seed(&r1, SEED(seed * 31 + (uint64_t)step));
            r2 = r1;
            int n = r->legal_actions(g, legal, MAXA);
            t->view_legal_same +=
                view_legal_is(r, full[s], legal, n, "fed", seats, seed, step,
                              s) &&
                view_legal_is(r, delta[s], legal, n, "events-only", seats,
                              seed, step, s);
            maat_game *a = r->determinize(full[s], &r1, &err);
            CHECK(a != NULL, "determinize full: %s", err.msg);
            maat_game *b = r->determinize(delta[s], &r2, &err);
            CHECK(b != NULL, "%s %d seats seed %llu step %d seat %d: "
                  "determinize delta: %s", r->name, seats,
                  (unsigned long long)seed, step, s, err.msg);
            if (a && b) {
                viewfeed_obs(r, a, MAAT_OMNISCIENT, &x);
                viewfeed_obs(r, b, MAAT_OMNISCIENT, &y);
                CHECK(same_bytes(&x, &y), "%s %d seats seed %llu step %d "
                      "seat %d: the two views determinize differently",
                      r->name, seats, (unsigned long long)seed, step, s);
                viewfeed_obs(r, b, s, &x);
                CHECK(same_bytes(&x, &ob), "%s %d seats seed %llu step %d "
                      "seat %d: the events-only view's observation is not "
                      "the referee's", r->name, seats,
                      (unsigned long long)seed, step, s);
                if (!same_bytes(&x, &ob))
                    failed = 1;
                int m = r->legal_actions(b, dlegal, MAXA);
                int same = n == m && n <= MAXA &&
                           !memcmp(legal, dlegal, sizeof *legal * (size_t)n);
                CHECK(same, "%s %d seats seed %llu step %d seat %d: the "
                      "view's legal actions are not the referee's", r->name,
                      seats, (unsigned long long)seed, step, s);
                t->legal_same += same;
            }
            r->destroy(&a);
            r->destroy(&b);
        }
        maat_action act;
        maat_policy_random(r, g, &policy, &act);
        rc = r->apply(g, &act, &ev, &err);
        CHECK(rc == MAAT_OK, "apply: %s", err.msg);
        if (rc)
            break;
        step++;
    }
    for (int i = 0; i < seats; i++) {
        r->view_destroy(&full[i]);
        r->view_destroy(&delta[i]);
    }
    msgpack_sbuffer_destroy(&eb);
    msgpack_sbuffer_destroy(&ob);
    msgpack_sbuffer_destroy(&x);
    msgpack_sbuffer_destroy(&y);
    maat_events_free(&ev);
    r->destroy(&g);
}

int main(int argc, char **argv)
{
    int games = argc > 1 ? atoi(argv[1]) : check_scaled(200);
    int n;
    const maat_rules *const *all = maat_rules_all(&n);
    for (int k = 0; k < n; k++) {
        const maat_rules *r = all[k];
        maat_error err = {0};
        maat_setup *setup = r->setup_new(NULL, &err);
        CHECK(setup != NULL, "%s setup: %s", r->name, err.msg);
        if (!setup)
            continue;
        /* the bot's setup: decoded from the welcome's bytes */
        msgpack_sbuffer sb;
        msgpack_sbuffer_init(&sb);
        msgpack_packer pk;
        msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
        r->setup_encode(setup, &pk);
        msgpack_unpacked u;
        maat_setup *bot_setup = NULL;
        if (maat_msg_unpack(sb.data, sb.size, &u, &err) == MAAT_OK)
            bot_setup = r->setup_decode(&u.data, &err);
        CHECK(bot_setup != NULL, "%s setup_decode: %s", r->name, err.msg);
        msgpack_unpacked_destroy(&u);
        msgpack_sbuffer_destroy(&sb);
        tally t = {0};
        for (int seats = r->min_seats; bot_setup && seats <= r->max_seats;
             seats++)
            for (int i = 0; i < games; i++)
                play(r, setup, bot_setup, seats, 1000u * (uint64_t)seats +
                     (uint64_t)i, &t);
        printf("%-10s %ld requests, %ld followed from events alone; legal "
               "list of the view's state = the referee's in %ld, "
               "view_legal_actions (both views) in %ld\n", r->name,
               t.requests, t.followed, t.legal_same, t.view_legal_same);
        CHECK(t.view_legal_same == t.requests && t.requests > 0,
              "%s: view_legal_actions was the referee's list in %ld of %ld "
              "requests", r->name, t.view_legal_same, t.requests);
        r->setup_destroy(&bot_setup);
        r->setup_destroy(&setup);
    }
    return check_done("view_delta");
}
