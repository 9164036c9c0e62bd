/* fuzz_action.c -- libFuzzer target: a bot's action messages, handled as
 * the referee handles them (referee/match.c on_bot_message), applied to a
 * real game.
 *
 * Input:
 *   byte 0   the game: maat_rules_all()[byte % count] (0 pyramids,
 *            1 pyramix, then any game added to the registry)
 *   byte 1   seats: min_seats + byte % (max_seats - min_seats + 1)
 *   byte 2   the deal's seed
 *   byte 3   how many random legal moves to play before the messages
 *   then     frames [length, 2 bytes little-endian][that many bytes], each
 *            one message from the bot to move ({type: action, seq, action});
 *            a length past the end takes what is left
 *
 * Each message goes the referee's way: maat_msg_unpack (maat_msg_check
 * first), type and seq, rules->decode_action, rules->apply.  Invariants
 * (abort() when broken, so libFuzzer keeps the input):
 *  - a refused message is refused with MAAT_EDECODE and a message;
 *  - decode_action gives the same answer with and without the state, and
 *    an accepted action has a decision kind of the game, every field in the
 *    range its declaration gives (rules->wire_actions, sdk/src/games/
 *    wire.h: maat_wire_fits; unused args -1), for every game, and survives
 *    encode_action -> decode_action unchanged;
 *  - apply accepts exactly the actions legal_actions lists; a refusal is
 *    MAAT_EILLEGAL (MAAT_ESTATE once over) with a message, emits no event
 *    and leaves the state as it was: every seat's observation and the
 *    omniscient one the same bytes (pyramids and pyramix: the state struct
 *    byte for byte too);
 *  - after every move: a game that is not over has a seat to move and a
 *    legal action, a finished one has neither; every event and every
 *    seat's observation encodes to msgpack that maat_msg_check accepts;
 *    scores rank every seat in 1..seats.
 * Nothing is printed; everything allocated is freed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "games/wire.h"
#include "maat/game.h"
#include "maat/internal/msg.h"
#include "maat/internal/pyramids.h"
#include "maat/internal/pyramix.h"
#include "maat/rng.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                         \
    do {                                                                    \
        if (!(cond))                                                        \
            abort();                                                        \
    } while (0)

static int is_pyramids(const maat_rules *r)
{
    return r == &maat_pyramids_rules;
}

static int is_pyramix(const maat_rules *r)
{
    return r == &maat_pyramix_rules;
}

/* A decoded action has a kind of the game and every field in the range its
 * declaration gives (wire.h; unused args -1): for every game. */
static void check_ranges(const maat_rules *r, const maat_action *a)
{
    CHECK(a->kind >= 0 && a->kind < r->n_decision_kinds);
    CHECK(maat_wire_fits(r->wire_actions, a->kind, a->arg));
}

/* Our own encoding must pass our own validator. */
static void check_wellformed(const msgpack_sbuffer *sb)
{
    maat_error e = {0, ""};
    CHECK(maat_msg_check(sb->data, sb->size, &e) == MAAT_OK);
}

/* encode_action then decode_action gives the same action back. */
static void check_roundtrip(const maat_rules *r, const maat_game *g,
                            const maat_action *a)
{
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    CHECK(r->encode_action(g, a, &pk) == MAAT_OK);
    msgpack_unpacked u;
    maat_error e = {0, ""};
    CHECK(maat_msg_unpack(sb.data, sb.size, &u, &e) == MAAT_OK);
    maat_action back;
    CHECK(r->decode_action(g, &u.data, &back, &e) == MAAT_OK);
    CHECK(memcmp(&back, a, sizeof back) == 0);
    msgpack_unpacked_destroy(&u);
    msgpack_sbuffer_destroy(&sb);
}

/* What a refused action must leave untouched: the raw state where we
 * know its type, and for every game every seat's observation (-1: none). */
typedef struct snapshot {
    void *raw;
    size_t raw_size;
    msgpack_sbuffer obs;
} snapshot;

static void take_snapshot(const maat_rules *r, const maat_game *g,
                          snapshot *s)
{
    s->raw = NULL;
    s->raw_size = 0;
    if (is_pyramids(r) || is_pyramix(r)) {
        const void *st = is_pyramids(r) ? (const void *)maat_pyr_state_of(g)
                                        : (const void *)maat_pmx_state_of(g);
        s->raw_size = is_pyramids(r) ? sizeof(maat_pyr_state)
                                     : sizeof(maat_pmx_state);
        s->raw = malloc(s->raw_size);
        CHECK(s->raw);
        memcpy(s->raw, st, s->raw_size);
    }
    msgpack_sbuffer_init(&s->obs);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &s->obs, msgpack_sbuffer_write);
    for (int seat = MAAT_OMNISCIENT; seat < r->seats(g); seat++)
        CHECK(r->encode_observation(g, seat, &pk) == MAAT_OK);
    maat_decision d = r->decision(g);
    msgpack_pack_int(&pk, d.seat);
    msgpack_pack_int(&pk, d.kind);
}

static int same_snapshot(const snapshot *a, const snapshot *b)
{
    return a->raw_size == b->raw_size &&
           (!a->raw_size || memcmp(a->raw, b->raw, a->raw_size) == 0) &&
           a->obs.size == b->obs.size &&
           memcmp(a->obs.data, b->obs.data, a->obs.size) == 0;
}

static void free_snapshot(snapshot *s)
{
    free(s->raw);
    msgpack_sbuffer_destroy(&s->obs);
}

/* All legal actions of g (malloc'ed, caller frees); *n their number. */
static maat_action *legal_list(const maat_rules *r, const maat_game *g,
                               int *n)
{
    *n = r->legal_actions(g, NULL, 0);
    CHECK(*n >= 0);
    maat_action *list = malloc(sizeof *list * (size_t)(*n + 1));
    CHECK(list);
    CHECK(r->legal_actions(g, list, *n) == *n);
    return list;
}

/* Whose turn it is agrees with is_over and legal_actions. */
static void check_decision(const maat_rules *r, const maat_game *g)
{
    maat_decision d = r->decision(g);
    int n = r->legal_actions(g, NULL, 0);
    if (r->is_over(g)) {
        CHECK(d.seat == -1);
        CHECK(n == 0);
    } else {
        CHECK(d.seat >= 0 && d.seat < r->seats(g));
        CHECK(d.kind >= 0 && d.kind < r->n_decision_kinds);
        CHECK(n > 0);
    }
}

static void check_events(const maat_rules *r, const maat_game *g,
                         const maat_events *ev)
{
    for (size_t i = 0; i < ev->count; i++) {
        msgpack_sbuffer sb;
        msgpack_sbuffer_init(&sb);
        msgpack_packer pk;
        msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
        CHECK(ev->items[i].kind >= 0 &&
              ev->items[i].kind < r->n_event_kinds);
        CHECK(r->encode_event(g, &ev->items[i], &pk) == MAAT_OK);
        check_wellformed(&sb);
        msgpack_sbuffer_destroy(&sb);
    }
}

static void check_observations(const maat_rules *r, const maat_game *g)
{
    for (int s = -1; s < r->seats(g); s++) {
        msgpack_sbuffer sb;
        msgpack_sbuffer_init(&sb);
        msgpack_packer pk;
        msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
        CHECK(r->encode_observation(g, s, &pk) == MAAT_OK);
        check_wellformed(&sb);
        msgpack_sbuffer_destroy(&sb);
    }
    maat_score sc[MAAT_MAX_SEATS];
    r->scores(g, sc);
    for (int s = 0; s < r->seats(g); s++)
        CHECK(sc[s].rank >= 1 && sc[s].rank <= r->seats(g));
}

/* One message from the bot to move, the referee's way. */
static void on_message(const maat_rules *r, maat_game *g, const uint8_t *p,
                       size_t len)
{
    msgpack_unpacked u;
    maat_error e = {0, ""};
    int rc = maat_msg_unpack(p, len, &u, &e);
    if (rc != MAAT_OK) {
        CHECK(rc == MAAT_EDECODE && e.code == rc && e.msg[0]);
        msgpack_unpacked_destroy(&u);
        return;
    }
    const msgpack_object *o = &u.data;
    int64_t seq = -1;
    if (!maat_msg_str_eq(maat_msg_get(o, "type"), "action") ||
        maat_msg_get_int(o, "seq", 0, INT64_MAX, &seq, &e) != MAAT_OK) {
        msgpack_unpacked_destroy(&u);
        return;
    }
    const msgpack_object *ao = maat_msg_get(o, "action");
    maat_action a, a_nostate;
    maat_error e2 = {0, ""};
    rc = r->decode_action(g, ao, &a, &e);
    int rc2 = r->decode_action(NULL, ao, &a_nostate, &e2);
    CHECK(rc == rc2);
    if (rc != MAAT_OK) {
        CHECK(rc == MAAT_EDECODE && e.code == rc && e.msg[0]);
        msgpack_unpacked_destroy(&u);
        return;
    }
    CHECK(memcmp(&a, &a_nostate, sizeof a) == 0);
    msgpack_unpacked_destroy(&u); /* the action is a plain value now */
    check_ranges(r, &a);
    check_roundtrip(r, g, &a);

    int n;
    maat_action *legal = legal_list(r, g, &n);
    int listed = 0;
    for (int i = 0; i < n && !listed; i++)
        listed = memcmp(&legal[i], &a, sizeof a) == 0;
    free(legal);

    snapshot before, after;
    take_snapshot(r, g, &before);
    maat_events ev = {NULL, 0, 0};
    maat_error ea = {0, ""};
    rc = r->apply(g, &a, &ev, &ea);
    if (rc == MAAT_OK) {
        CHECK(listed);
        check_events(r, g, &ev);
        check_decision(r, g);
    } else {
        CHECK(!listed);
        CHECK(rc == MAAT_EILLEGAL ||
              (rc == MAAT_ESTATE && r->is_over(g)));
        CHECK(ea.code == rc && ea.msg[0]);
        CHECK(ev.count == 0);
        take_snapshot(r, g, &after);
        CHECK(same_snapshot(&before, &after));
        free_snapshot(&after);
    }
    free_snapshot(&before);
    maat_events_free(&ev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    int n_games;
    const maat_rules *const *games = maat_rules_all(&n_games);
    CHECK(n_games > 0);
    const maat_rules *r = games[data[0] % n_games];
    int seats = r->min_seats + data[1] % (r->max_seats - r->min_seats + 1);
    maat_error e = {0, ""};
    maat_setup *setup = r->setup_new(NULL, &e);
    CHECK(setup);
    maat_seed deal, moves;
    maat_game *g = r->game_new(setup, maat_seed_from_u64(&deal, data[2]), seats,
                               NULL, &e);
    CHECK(g);
    check_decision(r, g);

    /* random legal moves first, to reach the later decisions */
    maat_rng rng;
    maat_rng_seed(&rng, maat_seed_from_u64(&moves,
                                           0x9e3779b97f4a7c15ULL ^ data[2]));
    static maat_action legal[1024]; /* more than pyramids ever offers */
    for (int i = 0; i < data[3] && !r->is_over(g); i++) {
        int n = r->legal_actions(g, legal, 1024);
        CHECK(n > 0);
        if (n <= 1024) {
            CHECK(r->apply(g, &legal[maat_rng_below(&rng, (uint32_t)n)],
                           NULL, &e) == MAAT_OK);
        } else {
            maat_action *all = legal_list(r, g, &n);
            CHECK(r->apply(g, &all[maat_rng_below(&rng, (uint32_t)n)], NULL,
                           &e) == MAAT_OK);
            free(all);
        }
    }
    check_decision(r, g);

    size_t pos = 4;
    while (pos < size) {
        size_t len = data[pos];
        if (pos + 1 < size)
            len |= (size_t)data[pos + 1] << 8;
        pos += 2;
        if (pos > size)
            pos = size;
        if (len > size - pos)
            len = size - pos;
        on_message(r, g, data + pos, len);
        pos += len;
    }
    check_observations(r, g);
    r->destroy(&g);
    r->setup_destroy(&setup);
    return 0;
}
