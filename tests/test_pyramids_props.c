/* test_pyramids_props.c -- properties of thousands of random games.
 *
 * Seeded random games (2000 per seat count, 2..5 seats; random legal
 * actions from maat_policy_random with a seeded maat_rng; the hidden
 * information checks on the first 250 of each) must keep, after EVERY
 * apply:
 *  - every card 0..104 in exactly one place (deck remainder, quarry, a
 *    hand, a pyramid, an obelisk, a tomb, the discard pile);
 *  - hands of at most 3 cards, pyramids of a legal shape;
 *  - at least one legal action while the game is not over, and every
 *    legal action applicable;
 *  - a random action that is not legal refused, the state byte-identical;
 *  - hidden information: every seat's observation and every event a seat
 *    may see decode as exact msgpack, have exactly the documented keys,
 *    and name no card in the deck or in another seat's hand or tomb
 *    (tombs are revealed at the end), with the private events (deal,
 *    keep, tomb with its card) visible to their owner only.
 * At the end: 10 rounds, 10-card pyramids of stages 4/3/2/1, 21 cards per
 * seat dealt (5 seats: all 105; 2 seats: 63 left in the deck).  The same
 * seed and actions replay to an identical state and event stream.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "maat/internal/msg.h"
#include "maat/policy.h"
#include "maat/internal/pyramids.h"

#define GAMES_PER_SEATS 2000
/* Decoding every observation of every seat after every step is the slow
 * part: it runs on the first FULL_CHECK_GAMES games of each seat count. */
#define FULL_CHECK_GAMES 250
#define MAXA 512

static const maat_rules *R = &maat_pyramids_rules;
static maat_setup *setup;
static msgpack_sbuffer sb;
static msgpack_packer pk;

/* Stop flooding the log after the first few failures of a property. */
#define CHECK1(cond, ...)                                                    \
    do {                                                                     \
        if (check_failures < 50)                                             \
            CHECK(cond, __VA_ARGS__);                                        \
        else if (!(cond))                                                    \
            check_failures++;                                                \
    } while (0)

/* ---- where every card is --------------------------------------------- */

enum { IN_NOWHERE, IN_DECK, IN_QUARRY, IN_HAND, IN_PYRAMID, IN_OBELISK,
       IN_TOMB, IN_DISCARD };

typedef struct {
    int place[MAAT_PYR_CARDS]; /* IN_... */
    int owner[MAAT_PYR_CARDS]; /* seat for hand/pyramid/obelisk/tomb */
} census;

static void mark(census *c, int id, int place, int owner, int *bad)
{
    if (id < 0 || id >= MAAT_PYR_CARDS) {
        (*bad)++;
        return;
    }
    if (c->place[id] != IN_NOWHERE)
        (*bad)++;
    c->place[id] = place;
    c->owner[id] = owner;
}

/* Returns the number of cards found twice, out of range or missing. */
static int take_census(const maat_pyr_state *st, census *c)
{
    int bad = 0;
    memset(c, 0, sizeof *c);
    for (int k = st->deck_pos; k < MAAT_PYR_CARDS; k++)
        mark(c, st->order[k], IN_DECK, -1, &bad);
    for (int i = 0; i < st->seats; i++)
        for (int k = 0; k < 2; k++)
            if (st->quarry[i][k] >= 0)
                mark(c, st->quarry[i][k], IN_QUARRY, -1, &bad);
    for (int i = 0; i < st->seats; i++) {
        const maat_pyr_seat *s = &st->seat[i];
        for (int k = 0; k < s->hand_n; k++)
            mark(c, s->hand[k], IN_HAND, i, &bad);
        for (int r = 0; r < MAAT_PYR_STAGES; r++)
            for (int p = 0; p < MAAT_PYR_POSITIONS; p++)
                if (s->grid[r][p] >= 0)
                    mark(c, s->grid[r][p], IN_PYRAMID, i, &bad);
        for (int k = 0; k < s->obelisk_n; k++)
            mark(c, s->obelisk[k], IN_OBELISK, i, &bad);
        for (int k = 0; k < s->tomb_n; k++)
            mark(c, s->tomb[k], IN_TOMB, i, &bad);
    }
    for (int k = 0; k < st->discard_n; k++)
        mark(c, st->discard[k], IN_DISCARD, -1, &bad);
    for (int id = 0; id < MAAT_PYR_CARDS; id++)
        bad += c->place[id] == IN_NOWHERE;
    return bad;
}

/* Stage 0 contiguous, at most 4 - s cards in stage s, each upper card on
 * two neighbours; pyramid_n the number of cards. */
static int pyramid_shape_ok(const maat_pyr_seat *s, int sizes[4])
{
    int n = 0, lo = 99, hi = -99;
    for (int r = 0; r < MAAT_PYR_STAGES; r++) {
        sizes[r] = 0;
        for (int p = 0; p < MAAT_PYR_POSITIONS; p++) {
            if (s->grid[r][p] < 0)
                continue;
            sizes[r]++;
            n++;
            if (r == 0) {
                lo = p < lo ? p : lo;
                hi = p > hi ? p : hi;
            } else if (p + 1 >= MAAT_PYR_POSITIONS || s->grid[r - 1][p] < 0 ||
                       s->grid[r - 1][p + 1] < 0) {
                return 0;
            }
        }
        if (sizes[r] > 4 - r)
            return 0;
    }
    if (sizes[0] && hi - lo + 1 != sizes[0])
        return 0;
    return n == s->pyramid_n;
}

/* ---- msgpack walking ------------------------------------------------- */

static int as_int(const msgpack_object *o, int *v)
{
    if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 < 1000) {
        *v = (int)o->via.u64;
        return 1;
    }
    if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER && o->via.i64 > -1000) {
        *v = (int)o->via.i64;
        return 1;
    }
    return 0;
}

/* The keys of map o are exactly keys[] (no more, no repeats). */
static int keys_exactly(const msgpack_object *o, const char *const *keys,
                        int n)
{
    if (o->type != MSGPACK_OBJECT_MAP || (int)o->via.map.size != n)
        return 0;
    for (int k = 0; k < n; k++) {
        int found = 0;
        for (uint32_t i = 0; i < o->via.map.size; i++)
            found += maat_msg_str_eq(&o->via.map.ptr[i].key, keys[k]);
        if (found != 1)
            return 0;
    }
    return 1;
}

/* Encodes with the packer's callback into sb, then unpacks through the
 * strict checker; returns 0 when the bytes are not exactly one object. */
static int unpack_sb(msgpack_unpacked *up, maat_error *err)
{
    return maat_msg_unpack(sb.data, sb.size, up, err) == MAAT_OK;
}

/* Who may see card c now, from seat i's point of view: never a card in
 * the deck, never one in another seat's hand, nor in another seat's tomb
 * before the end. */
static int may_see(const census *c, int i, int id, int over)
{
    if (id < 0 || id >= MAAT_PYR_CARDS)
        return 1; /* not a card id: nothing to leak */
    switch (c->place[id]) {
    case IN_DECK:
        return 0;
    case IN_HAND:
        return c->owner[id] == i;
    case IN_TOMB:
        return over || c->owner[id] == i;
    default:
        return 1;
    }
}

/* Checks every integer of an array of card ids; returns ids not allowed. */
static int check_cards(const msgpack_object *arr, const census *c, int i,
                       int over)
{
    int bad = 0, v;
    if (arr->type != MSGPACK_OBJECT_ARRAY)
        return 1;
    for (uint32_t k = 0; k < arr->via.array.size; k++) {
        if (!as_int(&arr->via.array.ptr[k], &v) || !may_see(c, i, v, over))
            bad++;
    }
    return bad;
}

static int same_cards(const msgpack_object *arr, const uint8_t *ids, int n)
{
    int v;
    if (arr->type != MSGPACK_OBJECT_ARRAY || (int)arr->via.array.size != n)
        return 0;
    for (int k = 0; k < n; k++)
        if (!as_int(&arr->via.array.ptr[k], &v) || v != ids[k])
            return 0;
    return 1;
}

static const char *const obs_keys[] = {
    "game", "seat", "seats", "round", "first", "decision", "to_move",
    "deck_size", "set_aside", "tiles", "quarry", "hand", "tomb", "discard",
    "players", "over", "scores"};
static const char *const player_keys[] = {"god", "pyramid", "obelisk",
                                          "hand_size", "tomb_size", "tomb"};

static void check_observation(const maat_game *g, const census *c, int i)
{
    const maat_pyr_state *st = maat_pyr_state_of(g);
    int over = R->is_over(g);
    msgpack_sbuffer_clear(&sb);
    CHECK1(R->encode_observation(g, i, &pk) == MAAT_OK,
           "encode_observation(%d) failed", i);
    msgpack_unpacked up;
    maat_error err = {0, ""};
    int ok = unpack_sb(&up, &err);
    CHECK1(ok, "observation of seat %d does not decode: %s", i, err.msg);
    if (!ok) {
        msgpack_unpacked_destroy(&up);
        return;
    }
    const msgpack_object *o = &up.data;
    CHECK1(keys_exactly(o, obs_keys, over ? 17 : 16),
           "observation of seat %d: wrong key set (over %d)", i, over);
    int v, bad = 0;
    const msgpack_object *f;
    f = maat_msg_get(o, "seat");
    CHECK1(f && as_int(f, &v) && v == i, "observation 'seat' is not %d", i);
    f = maat_msg_get(o, "deck_size");
    CHECK1(f && as_int(f, &v) && v == MAAT_PYR_CARDS - st->deck_pos,
           "observation 'deck_size' is not %d", MAAT_PYR_CARDS - st->deck_pos);
    f = maat_msg_get(o, "hand");
    CHECK1(f && same_cards(f, st->seat[i].hand, st->seat[i].hand_n),
           "seat %d: 'hand' is not its hand", i);
    bad += f ? check_cards(f, c, i, over) : 1;
    f = maat_msg_get(o, "tomb");
    CHECK1(f && same_cards(f, st->seat[i].tomb, st->seat[i].tomb_n),
           "seat %d: 'tomb' is not its tomb", i);
    bad += f ? check_cards(f, c, i, over) : 1;
    f = maat_msg_get(o, "discard");
    CHECK1(f && same_cards(f, st->discard, st->discard_n),
           "seat %d: 'discard' is not the discard pile", i);
    bad += f ? check_cards(f, c, i, over) : 1;
    f = maat_msg_get(o, "quarry");
    if (f && f->type == MSGPACK_OBJECT_ARRAY &&
        (int)f->via.array.size == st->seats) {
        for (uint32_t k = 0; k < f->via.array.size; k++)
            if (f->via.array.ptr[k].type != MSGPACK_OBJECT_NIL)
                bad += check_cards(&f->via.array.ptr[k], c, i, over);
    } else {
        CHECK1(0, "seat %d: 'quarry' is not an array of %d", i, st->seats);
    }
    f = maat_msg_get(o, "players");
    if (f && f->type == MSGPACK_OBJECT_ARRAY &&
        (int)f->via.array.size == st->seats) {
        for (int j = 0; j < st->seats; j++) {
            const msgpack_object *p = &f->via.array.ptr[j];
            CHECK1(keys_exactly(p, player_keys, over ? 6 : 5),
                   "seat %d: players[%d] has the wrong key set", i, j);
            const msgpack_object *py = maat_msg_get(p, "pyramid");
            if (py && py->type == MSGPACK_OBJECT_ARRAY) {
                for (uint32_t k = 0; k < py->via.array.size; k++) {
                    const msgpack_object *e = &py->via.array.ptr[k];
                    if (e->type != MSGPACK_OBJECT_ARRAY ||
                        e->via.array.size != 3 ||
                        !as_int(&e->via.array.ptr[0], &v) ||
                        !may_see(c, i, v, over) ||
                        c->place[v] != IN_PYRAMID || c->owner[v] != j)
                        bad++;
                }
            } else {
                bad++;
            }
            const msgpack_object *ob = maat_msg_get(p, "obelisk");
            bad += ob ? check_cards(ob, c, i, over) : 1;
            const msgpack_object *tb = maat_msg_get(p, "tomb");
            if (over)
                CHECK1(tb && same_cards(tb, st->seat[j].tomb,
                                        st->seat[j].tomb_n),
                       "at the end, players[%d].tomb is not its tomb", j);
            else
                CHECK1(tb == NULL, "players[%d].tomb shown before the end",
                       j);
            if (tb)
                bad += check_cards(tb, c, i, over);
            const msgpack_object *hs = maat_msg_get(p, "hand_size");
            CHECK1(hs && as_int(hs, &v) && v == st->seat[j].hand_n,
                   "players[%d].hand_size is not %d", j, st->seat[j].hand_n);
        }
    } else {
        CHECK1(0, "seat %d: 'players' is not an array of %d", i, st->seats);
    }
    CHECK1(bad == 0, "round %d: observation of seat %d shows %d cards it "
           "may not see", st->round, i, bad);
    msgpack_unpacked_destroy(&up);
}

/* Cards the public has seen in a quarry: naming them is no leak. */
static uint8_t quarried[MAAT_PYR_CARDS];

static void check_event(const maat_game *g, const census *c,
                        const maat_event *e)
{
    const maat_pyr_state *st = maat_pyr_state_of(g);
    int over = R->is_over(g);
    /* what must be private */
    int private_kind = e->kind == MAAT_PYR_EV_DEAL ||
                       e->kind == MAAT_PYR_EV_KEEP ||
                       (e->kind == MAAT_PYR_EV_TOMB && e->arg[0] >= 0);
    if (private_kind)
        CHECK1(e->seat >= 0 && e->seat < st->seats &&
                   e->visible_to == (1u << e->seat),
               "private event '%s' of seat %d visible to %08x",
               R->event_names[e->kind], e->seat, e->visible_to);
    if (e->kind == MAAT_PYR_EV_QUARRY && e->visible_to == MAAT_ALL_SEATS) {
        quarried[e->arg[1]] = 1;
        quarried[e->arg[2]] = 1;
    }
    msgpack_sbuffer_clear(&sb);
    CHECK1(R->encode_event(g, e, &pk) == MAAT_OK, "encode_event(%s) failed",
           R->event_names[e->kind]);
    msgpack_unpacked up;
    maat_error err = {0, ""};
    int ok = unpack_sb(&up, &err);
    CHECK1(ok, "event '%s' does not decode: %s", R->event_names[e->kind],
           err.msg);
    if (!ok) {
        msgpack_unpacked_destroy(&up);
        return;
    }
    const msgpack_object *o = &up.data;
    CHECK1(maat_msg_str_eq(maat_msg_get(o, "event"),
                           R->event_names[e->kind]),
           "event '%s' encoded without its name", R->event_names[e->kind]);
    if (e->kind == MAAT_PYR_EV_TOMB && e->visible_to != (1u << e->seat))
        CHECK1(maat_msg_get(o, "card") == NULL,
               "the public tomb event of seat %d names its card", e->seat);
    /* the cards it names, for every seat allowed to see it */
    int ids[4], n = 0, v;
    const msgpack_object *f = maat_msg_get(o, "card");
    if (f && as_int(f, &v))
        ids[n++] = v;
    f = maat_msg_get(o, "cards");
    if (f && f->type == MSGPACK_OBJECT_ARRAY)
        for (uint32_t k = 0; k < f->via.array.size && n < 4; k++)
            if (as_int(&f->via.array.ptr[k], &v))
                ids[n++] = v;
    for (int i = 0; i < st->seats; i++) {
        if (!(e->visible_to & (1u << i)))
            continue;
        for (int k = 0; k < n; k++) {
            int id = ids[k];
            if (id < 0 || id >= MAAT_PYR_CARDS)
                continue;
            int leak = c->place[id] == IN_DECK;
            if ((c->place[id] == IN_HAND || c->place[id] == IN_TOMB) &&
                c->owner[id] != i && !over)
                leak |= !quarried[id] || (c->place[id] == IN_TOMB &&
                                          e->kind == MAAT_PYR_EV_TOMB);
            CHECK1(!leak, "event '%s' shows card %d (%s of seat %d) to "
                   "seat %d", R->event_names[e->kind], id,
                   c->place[id] == IN_DECK ? "deck" : "hand/tomb",
                   c->owner[id], i);
        }
    }
    msgpack_unpacked_destroy(&up);
}

/* ---- one game -------------------------------------------------------- */

/* A random action, mostly of the current kind with plausible numbers. */
static maat_action random_action(const maat_pyr_state *st, maat_rng *rng)
{
    maat_action a;
    for (int k = 0; k < MAAT_ACTION_ARGS; k++)
        a.arg[k] = -1;
    a.kind = maat_rng_below(rng, 2) ? st->phase
                                     : (int)maat_rng_below(rng, 7) - 1;
    const maat_pyr_seat *s =
        st->to_move >= 0 ? &st->seat[st->to_move] : &st->seat[0];
    int nargs = a.kind == MAAT_PYR_BUILD ? 5 : 1;
    for (int k = 0; k < nargs; k++) {
        switch (maat_rng_below(rng, 4)) {
        case 0: a.arg[k] = -1; break;
        case 1: a.arg[k] = (int)maat_rng_below(rng, 10) - 4; break;
        case 2: a.arg[k] = (int)maat_rng_below(rng, 110) - 2; break;
        default:
            a.arg[k] = s->hand_n ? s->hand[maat_rng_below(rng, s->hand_n)]
                                 : 0;
        }
    }
    return a;
}

static int listed(const maat_action *list, int n, const maat_action *a)
{
    for (int i = 0; i < n; i++) {
        int same = list[i].kind == a->kind;
        for (int k = 0; k < MAAT_ACTION_ARGS && same; k++)
            same = list[i].arg[k] == a->arg[k];
        if (same)
            return 1;
    }
    return 0;
}

typedef struct {
    maat_action act[400];
    int n;
} action_log;

static int full_checks; /* observations and events: every game or a few */

/* Everything that must hold after an apply (or the deal). */
static void after_step(const maat_game *g, const maat_events *ev,
                       size_t ev_from)
{
    const maat_pyr_state *st = maat_pyr_state_of(g);
    census c;
    CHECK1(take_census(st, &c) == 0,
           "round %d phase %d: cards lost or duplicated", st->round,
           st->phase);
    for (int i = 0; i < st->seats; i++) {
        int sizes[4];
        CHECK1(st->seat[i].hand_n <= 3, "seat %d holds %d cards", i,
               st->seat[i].hand_n);
        CHECK1(pyramid_shape_ok(&st->seat[i], sizes),
               "seat %d: pyramid of an illegal shape", i);
    }
    if (!full_checks)
        return;
    for (size_t k = ev_from; k < ev->count; k++)
        check_event(g, &c, &ev->items[k]);
    for (int i = 0; i < st->seats; i++)
        check_observation(g, &c, i);
}

/* Plays one random game; logs actions and events.  `probe` also tries
 * every legal action and random illegal ones on a scratch game. */
static void play(int seats, uint64_t seed, maat_events *ev, action_log *log,
                 maat_game *scratch, maat_game **out)
{
    maat_error err = {0, ""};
    memset(quarried, 0, sizeof quarried);
    maat_game *g = R->game_new(setup, SEED(seed), seats, ev, &err);
    CHECK1(g != NULL, "game_new: %s", err.msg);
    if (!g)
        return;
    maat_rng rng, junk;
    maat_rng_seed(&rng, SEED(seed ^ 0x5eedULL));
    maat_rng_seed(&junk, SEED(seed ^ 0xbadULL));
    after_step(g, ev, 0);
    log->n = 0;
    static maat_action list[MAXA];
    while (!R->is_over(g)) {
        const maat_pyr_state *st = maat_pyr_state_of(g);
        int n = R->legal_actions(g, list, MAXA);
        CHECK1(n >= 1 && n <= MAXA, "round %d: %d legal actions", st->round,
               n);
        if (n < 1 || n > MAXA)
            break;
        /* every legal action applies */
        for (int k = 0; k < n; k++) {
            *maat_pyr_state_mut(scratch) = *st;
            int rc = R->apply(scratch, &list[k], NULL, &err);
            CHECK1(rc == MAAT_OK, "legal action %d of %d refused: %s", k, n,
                   err.msg);
        }
        /* a random action that is not legal is refused, nothing changes */
        for (int t = 0; t < 2; t++) {
            maat_action bad = random_action(st, &junk);
            if (listed(list, n, &bad))
                continue;
            maat_pyr_state before;
            memcpy(&before, st, sizeof before);
            size_t nev = ev->count;
            int rc = R->apply(g, &bad, ev, &err);
            CHECK1(rc == MAAT_EILLEGAL,
                   "illegal action %d(%d,%d,%d,%d,%d) gave %d", bad.kind,
                   bad.arg[0], bad.arg[1], bad.arg[2], bad.arg[3], bad.arg[4],
                   rc);
            CHECK1(memcmp(&before, st, sizeof before) == 0 &&
                       ev->count == nev,
                   "illegal action %d(%d,%d,%d,%d,%d) changed the game",
                   bad.kind, bad.arg[0], bad.arg[1], bad.arg[2], bad.arg[3],
                   bad.arg[4]);
        }
        maat_action a;
        CHECK1(maat_policy_random(R, g, &rng, &a) == MAAT_OK,
               "policy found no action");
        CHECK1(listed(list, n, &a), "the policy chose an unlisted action");
        if (log->n < 400)
            log->act[log->n++] = a;
        size_t from = ev->count;
        int rc = R->apply(g, &a, ev, &err);
        CHECK1(rc == MAAT_OK, "chosen legal action refused: %s", err.msg);
        if (rc)
            break;
        after_step(g, ev, from);
    }
    *out = g;
}

static void end_state(const maat_game *g, int seats)
{
    const maat_pyr_state *st = maat_pyr_state_of(g);
    CHECK1(R->is_over(g) && st->round == MAAT_PYR_ROUNDS,
           "%d seats: ended in round %d (over %d)", seats, st->round,
           R->is_over(g));
    CHECK1(R->decision(g).seat == -1, "a decision after the end");
    /* 1 card each at the deal + 2 per seat per round */
    CHECK1(st->deck_pos == 21 * seats, "%d seats: %d cards dealt, want %d",
           seats, st->deck_pos, 21 * seats);
    if (seats == 5)
        CHECK1(st->deck_pos == 105, "5 seats did not use all 105 cards");
    if (seats == 2)
        CHECK1(MAAT_PYR_CARDS - st->deck_pos == 63,
               "2 seats left %d cards in the deck, want 63",
               MAAT_PYR_CARDS - st->deck_pos);
    for (int i = 0; i < seats; i++) {
        int sizes[4];
        CHECK1(pyramid_shape_ok(&st->seat[i], sizes) &&
                   st->seat[i].pyramid_n == 10 && sizes[0] == 4 &&
                   sizes[1] == 3 && sizes[2] == 2 && sizes[3] == 1,
               "%d seats: seat %d pyramid %d cards (%d/%d/%d/%d)", seats, i,
               st->seat[i].pyramid_n, sizes[0], sizes[1], sizes[2],
               sizes[3]);
        CHECK1(st->seat[i].hand_n == 0, "seat %d still holds cards", i);
    }
    maat_score sc[MAAT_PYR_MAX_SEATS];
    R->scores(g, sc);
    for (int i = 0; i < seats; i++) {
        int sum = 0, better = 0;
        for (int p = 0; p < MAAT_PYR_S_PARTS; p++)
            sum += sc[i].part[p];
        for (int j = 0; j < seats; j++)
            better += sc[j].total > sc[i].total;
        CHECK1(sc[i].total == sum && sc[i].rank == 1 + better,
               "seat %d: total %d (parts %d) rank %d", i, sc[i].total, sum,
               sc[i].rank);
    }
}

/* The same seed and actions give the same final state and events. */
static void replay(int seats, uint64_t seed, const action_log *log,
                   const maat_game *orig, const maat_events *orig_ev)
{
    maat_events ev = {0};
    maat_error err = {0, ""};
    maat_game *g = R->game_new(setup, SEED(seed), seats, &ev, &err);
    for (int k = 0; g && k < log->n; k++)
        CHECK1(R->apply(g, &log->act[k], &ev, &err) == MAAT_OK,
               "replay step %d refused: %s", k, err.msg);
    CHECK1(g && memcmp(maat_pyr_state_of(g), maat_pyr_state_of(orig),
                       sizeof(maat_pyr_state)) == 0,
           "%d seats seed %llu: the replay ended in another state", seats,
           (unsigned long long)seed);
    CHECK1(ev.count == orig_ev->count &&
               memcmp(ev.items, orig_ev->items,
                      ev.count * sizeof(maat_event)) == 0,
           "%d seats seed %llu: the replay gave other events", seats,
           (unsigned long long)seed);
    /* copy() forks an identical, independent game */
    maat_game *c = R->copy(orig);
    CHECK1(c && memcmp(maat_pyr_state_of(c), maat_pyr_state_of(orig),
                       sizeof(maat_pyr_state)) == 0,
           "copy differs from its original");
    R->destroy(&c);
    R->destroy(&g);
    maat_events_free(&ev);
}

int main(int argc, char **argv)
{
    int games = argc > 1 ? atoi(argv[1]) : check_scaled(GAMES_PER_SEATS);
    maat_error err = {0, ""};
    setup = R->setup_new(NULL, &err);
    CHECK(setup != NULL, "setup_new: %s", err.msg);
    if (!setup)
        return check_done("pyramids_props");
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    maat_game *scratch = R->game_new(setup, SEED(0), 5, NULL, &err);
    static action_log log;
    uint64_t first_states[2] = {0, 0};
    for (int seats = 2; seats <= 5; seats++) {
        for (int k = 0; k < games; k++) {
            uint64_t seed = 2024000000ULL + (uint64_t)(seats * 100000 + k);
            maat_events ev = {0};
            maat_game *g = NULL;
            full_checks = k < FULL_CHECK_GAMES;
            play(seats, seed, &ev, &log, scratch, &g);
            if (!g)
                continue;
            end_state(g, seats);
            if (k % 10 == 0)
                replay(seats, seed, &log, g, &ev);
            if (k < 2)
                first_states[k] = maat_pyr_state_of(g)->order[0] * 1000ULL +
                                  maat_pyr_state_of(g)->order[1];
            R->destroy(&g);
            maat_events_free(&ev);
        }
        CHECK(games < 2 || first_states[0] != first_states[1],
              "%d seats: two seeds dealt the same first cards", seats);
    }
    R->destroy(&scratch);
    msgpack_sbuffer_destroy(&sb);
    R->setup_destroy(&setup);
    return check_done("pyramids_props");
}
