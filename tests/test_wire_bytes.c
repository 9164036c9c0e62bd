/* test_wire_bytes.c -- every registered game's wire bytes, pinned.
 *
 * For every game of maat_rules_all, every seat count it allows and a few
 * seeds, a random game is played in process and every byte the game puts
 * on the wire is hashed (FNV-1a, 64 bits): the setup, then before each
 * decision the observation of every seat, of a seat outside the game and
 * of MAAT_OMNISCIENT, the events of the last step, every legal action,
 * and at the end the final observations.  The hash must equal the one
 * recorded below: a refactoring of a module or of the kit (sdk/src/games/
 * kit.c, wire.c) may not change one byte.  A deliberate change of the wire
 * (documented in docs/PROTOCOL.md) or of the rules or the deal (a new
 * rules_version) updates the hash here, in the same commit.
 *
 * A game without a recorded hash (a new one) passes with its hash
 * printed, to be recorded once its wire is settled.
 *
 * Besides: every legal action decodes back to itself, and the events,
 * observations and actions are each one well-formed msgpack object.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "maat/game.h"
#include "maat/internal/msg.h"
#include "maat/policy.h"

/* game -> hash of its bytes (update deliberately, see above) */
static const struct {
    const char *game;
    uint64_t hash;
} pinned[] = {
    {"pyramids", 0x41a8362f47cca923ULL},
    {"pyramix", 0xbf6876196dd41afaULL},
    {"architects", 0xf9691e2e2967eaa7ULL},
};

#define SEEDS 5
#define MAX_LEGAL 4096

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

/* Hash the packer's bytes since the last call, checking they are one
 * msgpack object; clears the buffer. */
static uint64_t take(uint64_t h, msgpack_sbuffer *sb, const char *what,
                     const char *game)
{
    maat_error err = {0, ""};
    CHECK(maat_msg_check(sb->data, sb->size, &err) == MAAT_OK,
          "%s: %s is not one msgpack object: %s", game, what, err.msg);
    h = fnv(h, sb->data, sb->size);
    uint32_t len = (uint32_t)sb->size; /* message boundaries count too */
    h = fnv(h, &len, sizeof len);
    msgpack_sbuffer_clear(sb);
    return h;
}

static uint64_t observations(uint64_t h, const maat_rules *r,
                             const maat_game *g, int seats,
                             msgpack_sbuffer *sb, msgpack_packer *pk)
{
    for (int s = -2; s < seats + 1; s++) { /* -2 = MAAT_OMNISCIENT */
        CHECK(r->encode_observation(g, s, pk) == MAAT_OK, "%s: "
              "encode_observation(seat %d) fails", r->name, s);
        h = take(h, sb, "an observation", r->name);
    }
    return h;
}

static uint64_t play(const maat_rules *r, const maat_setup *setup, int seats,
                     uint64_t seed, msgpack_sbuffer *sb, msgpack_packer *pk,
                     uint64_t h)
{
    maat_error err = {0, ""};
    maat_events ev = {0};
    maat_game *g = r->game_new(setup, SEED(seed), seats, &ev, &err);
    CHECK(g != NULL, "%s: game_new(%d seats): %s", r->name, seats, err.msg);
    if (!g)
        return h;
    maat_rng rng;
    maat_rng_seed(&rng, SEED(seed + 1000));
    static maat_action legal[MAX_LEGAL];
    for (int step = 0; step < 10000; step++) {
        for (size_t i = 0; i < ev.count; i++) {
            h = fnv(h, &ev.items[i].visible_to, sizeof ev.items[i].visible_to);
            CHECK(r->encode_event(g, &ev.items[i], pk) == MAAT_OK,
                  "%s: encode_event(kind %d) fails", r->name,
                  ev.items[i].kind);
            h = take(h, sb, "an event", r->name);
        }
        maat_events_clear(&ev);
        h = observations(h, r, g, seats, sb, pk);
        if (r->is_over(g))
            break;
        int n = r->legal_actions(g, legal, MAX_LEGAL);
        CHECK(n > 0 && n <= MAX_LEGAL, "%s: %d legal actions", r->name, n);
        if (n <= 0 || n > MAX_LEGAL)
            break;
        for (int i = 0; i < n; i++) {
            CHECK(r->encode_action(g, &legal[i], pk) == MAAT_OK,
                  "%s: encode_action fails", r->name);
            msgpack_unpacked u;
            maat_action back;
            int rc = maat_msg_unpack(sb->data, sb->size, &u, &err);
            if (rc == MAAT_OK)
                rc = r->decode_action(g, &u.data, &back, &err);
            CHECK(rc == MAAT_OK && memcmp(&back, &legal[i], sizeof back) == 0,
                  "%s: legal action %d of kind %d does not decode back to "
                  "itself (%s)", r->name, i, legal[i].kind,
                  rc ? err.msg : "another action");
            msgpack_unpacked_destroy(&u);
            h = take(h, sb, "an action", r->name);
        }
        maat_action a;
        CHECK(maat_policy_random(r, g, &rng, &a) == MAAT_OK, "%s: no random "
              "action", r->name);
        CHECK(r->apply(g, &a, &ev, &err) == MAAT_OK, "%s: apply: %s",
              r->name, err.msg);
    }
    CHECK(r->is_over(g), "%s: a game of %d seats, seed %" PRIu64 " does not "
          "end", r->name, seats, seed);
    r->destroy(&g);
    maat_events_free(&ev);
    return h;
}

int main(void)
{
    int n;
    const maat_rules *const *all = maat_rules_all(&n);
    msgpack_sbuffer sb;
    msgpack_packer pk;
    msgpack_sbuffer_init(&sb);
    /* both packer callbacks the library meets: the referee's and the
     * plain one (tests, other programs) */
    for (int i = 0; i < n; i++) {
        const maat_rules *r = all[i];
        maat_error err = {0, ""};
        maat_setup *setup = r->setup_new(NULL, &err);
        CHECK(setup != NULL, "%s: setup_new: %s", r->name, err.msg);
        if (!setup)
            continue;
        uint64_t hash[2];
        for (int cb = 0; cb < 2; cb++) {
            msgpack_packer_init(&pk, &sb, cb ? maat_sbuffer_write
                                             : msgpack_sbuffer_write);
            uint64_t h = 0xcbf29ce484222325ULL;
            CHECK(r->setup_encode(setup, &pk) == MAAT_OK, "%s: setup_encode",
                  r->name);
            h = take(h, &sb, "the setup", r->name);
            for (int seats = r->min_seats; seats <= r->max_seats; seats++)
                for (uint64_t seed = 1; seed <= SEEDS; seed++)
                    h = play(r, setup, seats, seed * 7919 + (uint64_t)seats,
                             &sb, &pk, h);
            hash[cb] = h;
        }
        CHECK(hash[0] == hash[1], "%s: the bytes depend on the packer's "
              "callback", r->name);
        int known = 0;
        for (size_t k = 0; k < sizeof pinned / sizeof pinned[0]; k++)
            if (strcmp(pinned[k].game, r->name) == 0) {
                known = 1;
                CHECK(hash[0] == pinned[k].hash, "%s: the wire bytes changed: "
                      "hash 0x%016" PRIx64 ", pinned 0x%016" PRIx64 " (a "
                      "deliberate change updates tests/test_wire_bytes.c)",
                      r->name, hash[0], pinned[k].hash);
            }
        if (!known)
            printf("%s: no pinned hash yet; its bytes hash to 0x%016" PRIx64
                   "\n", r->name, hash[0]);
        r->setup_destroy(&setup);
    }
    msgpack_sbuffer_destroy(&sb);
    return check_done("wire_bytes");
}
