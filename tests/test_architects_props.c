/* test_architects_props.c -- properties of thousands of seeded games of
 * the architects' game.
 *
 * Seeded random games (GAMES_PER_SEATS per seat count, 2..4 seats; random
 * legal actions from maat_policy_random with a seeded maat_rng).  After the
 * deal and after EVERY apply:
 *  - components conserved: each large stone exactly once in the supply,
 *    on the common board, in hand to be placed (taken) or in one pyramid;
 *    each small stone once in the bag, on space 0, in one hand, one small
 *    space or one collection; each card once in the pile, face up or with
 *    one seat; placed = the large stones in the pyramid;
 *  - the turn's shape: at a take the seat holds at most one small stone;
 *    place <=> a taken stone; small => stones held; card => a card owed;
 *    to_move = turn mod seats;
 *  - legality against an oracle written here from the rules page: the
 *    legal list is exactly the oracle's (take: space 0, and spaces 1-4 if
 *    a small stone is held; place: every free large space, rotated too
 *    for a stone opening on one side; small: every free small space and
 *    the collection, for the first stone held; card: the face-up cards);
 *    every legal action applies (first FULL_CHECK_GAMES games) and random
 *    illegal ones are refused, the state and the event list untouched;
 *  - hidden information: every event (all games) and every seat's
 *    observation (first FULL_CHECK_GAMES games) is walked as msgpack; every
 *    id under a large-stone, small-stone or card key must be face up --
 *    never an element of the supply, the bag or the pile at that moment;
 *    the observation has exactly the documented keys, and decoding it
 *    (maat_arc_observation_decode) gives back the whole state but the
 *    three orders; all events are public;
 *  - determinization (first DET_GAMES games): each seat keeps a view fed
 *    like a bot; SAMPLES states per seat and step re-encode to the
 *    byte-identical observation, conserve the components, hold exactly the
 *    true supply/bag/pile contents (in some order), list the same legal
 *    actions and accept one; over the run the sampled orders differ.
 * At the end: over, no decision, turn = 15 x seats, every seat placed 15
 * large stones and holds 3 cards (one per card spot); the scores equal an
 * oracle of the rules page's scoring written here from its geometry (not
 * the board file; with the edge strips the rulebook needs, see
 * docs/RULES-NOTES.md), totals = sum of parts, ranks by points then small
 * stones then shared.  The same seed and actions replay to an identical
 * state and event stream; copy() is identical.
 *
 * Usage: test_architects_props [games-per-seat-count]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "viewfeed.h"
#include "maat/internal/architects.h"
#include "maat/internal/msg.h"
#include "maat/policy.h"

#define GAMES_PER_SEATS 1000
#define FULL_CHECK_GAMES 100
#define DET_GAMES 15
#define SAMPLES 2

static const maat_rules *R = &maat_architects_rules;
static maat_setup *setup;     /* the referee's */
static maat_setup *bot_setup; /* setup_decode of its setup_encode bytes */
static const maat_arc_stones *S;
static const maat_arc_cards *C;
static const maat_arc_board *B;
static msgpack_sbuffer sb;
static msgpack_packer pk;

#define CHECK1(cond, ...)                                                    \
    do {                                                                     \
        if (check_failures < 50)                                             \
            CHECK(cond, __VA_ARGS__);                                        \
        else if (!(cond))                                                    \
            check_failures++;                                                \
    } while (0)

static struct {
    int seats;
    unsigned long long seed;
    int step;
} at;
#define WHERE "[%d seats seed %llu step %d] "
#define WHERE_ARGS at.seats, at.seed, at.step

/* ---- the page's geometry, independent of the board file --------------- */

#define LEVELS 6
static int o_n(int level)
{
    return level >= 1 && level <= LEVELS ? 6 - level : 0;
}

static int o_space(int level, int pos)
{
    int i = 0;
    for (int l = 1; l < level; l++)
        i += o_n(l);
    return i + pos;
}

/* pieces: large (L, p) as o_space; small (L, side) as 15 + 2(L-1) + side;
 * the bottom 27 */
#define O_SMALL(l, side) (15 + 2 * ((l) - 1) + (side))
#define O_BOTTOM 27
#define O_PIECES 28

static int o_level(int piece)
{
    if (piece == O_BOTTOM)
        return 0;
    if (piece >= 15)
        return (piece - 15) / 2 + 1;
    int l = 1, i = piece;
    while (i >= o_n(l))
        i -= o_n(l++);
    return l;
}

static int o_pos(int piece)
{
    int l = 1, i = piece;
    while (i >= o_n(l))
        i -= o_n(l++);
    return i;
}

/* The rules page's "pieces touch when they share an edge" list, with the
 * small spaces of one side touching along the edge. */
static int o_touch(int a, int b)
{
    if (a == b)
        return 0;
    if (a > b) {
        int t = a;
        a = b;
        b = t;
    }
    if (b == O_BOTTOM) /* pieces of level 1 touch the bottom */
        return o_level(a) == 1;
    if (b < 15) { /* two large stones */
        int la = o_level(a), pa = o_pos(a), lb = o_level(b), pb = o_pos(b);
        if (la == lb)
            return pb == pa + 1;
        /* (L+1, q) rests on (L, q) and (L, q+1) */
        return lb == la + 1 && (pa == pb || pa == pb + 1);
    }
    if (a >= 15) /* two small spaces: the apex; one side's next one up
                    (the rulebook's correction, docs/RULES-NOTES.md) */
        return (a == O_SMALL(6, 0) && b == O_SMALL(6, 1)) || b == a + 2;
    int l = o_level(b), side = (b - 15) % 2;
    int la = o_level(a), pa = o_pos(a);
    /* its own level's end stone, and the one below on its side */
    if (la == l && pa == (side ? o_n(l) - 1 : 0))
        return 1;
    return la == l - 1 && pa == (side ? o_n(l - 1) - 1 : 0);
}

/* ---- the page's scoring ----------------------------------------------- */

static int o_colour(const maat_arc_seat *s, int piece)
{
    if (piece < 15)
        return s->large[piece] >= 0 ? S->large[s->large[piece]].colour : -1;
    int k = piece - 15;
    return s->small[k] >= 0 ? S->small[s->small[k]].colour : -1;
}

static int o_open(const maat_arc_seat *s, int space)
{
    if (s->large[space] < 0)
        return 0;
    int o = S->large[s->large[space]].open;
    if (s->rotated[space])
        o = ((o & 1) << 1) | ((o & 2) >> 1);
    return o;
}

typedef struct o_result {
    int part[6], total, smalls;
} o_result;

static void o_score(const maat_arc_seat *s, o_result *r)
{
    memset(r, 0, sizeof *r);
    /* solid structure: per colour, flood from the bottom */
    int height[4] = {0};
    for (int c = 0; c < 4; c++) {
        int in[O_PIECES] = {0}, queue[O_PIECES], n = 0;
        in[O_BOTTOM] = 1;
        queue[n++] = O_BOTTOM;
        for (int k = 0; k < n; k++)
            for (int p = 0; p < O_BOTTOM; p++)
                if (!in[p] && o_colour(s, p) == c && o_touch(queue[k], p)) {
                    in[p] = 1;
                    queue[n++] = p;
                    if (o_level(p) > height[c])
                        height[c] = o_level(p);
                }
        r->part[0] += height[c];
    }
    /* chambers: walk from each sarcophagus towards each end */
    int scoring = 0, exits = 0, joined = 0;
    for (int l = 1; l <= 5; l++) {
        int n = o_n(l);
        for (int p = 0; p < n; p++) {
            int o = o_open(s, o_space(l, p));
            exits += (p == 0 && (o & 1)) + (p == n - 1 && (o & 2));
            if (p + 1 < n && (o & 2) && (o_open(s, o_space(l, p + 1)) & 1))
                joined++;
            int id = s->large[o_space(l, p)];
            if (id < 0 || !S->large[id].sarcophagus)
                continue;
            int ok = 0;
            for (int dir = -1; dir <= 1; dir += 2) {
                int q = p;
                for (;;) {
                    int oq = o_open(s, o_space(l, q));
                    int out = dir < 0 ? (oq & 1) : (oq & 2);
                    if (!out)
                        break;
                    if ((dir < 0 && q == 0) || (dir > 0 && q == n - 1)) {
                        ok = 1;
                        break;
                    }
                    int next = o_open(s, o_space(l, q + dir));
                    if (!(dir < 0 ? (next & 2) : (next & 1)))
                        break;
                    q += dir;
                }
            }
            if (ok) {
                int d = p < n - 1 - p ? p : n - 1 - p;
                r->part[1] += d + 1;
                scoring++;
            }
        }
    }
    /* symbols */
    int have[6] = {0}, distinct = 0, all = 0;
    for (int i = 0; i < 15; i++)
        if (s->large[i] >= 0 && S->large[s->large[i]].symbol) {
            all++;
            distinct += !have[S->large[s->large[i]].symbol]++;
        }
    static const int table[6] = {0, 2, 4, 7, 11, 16};
    r->part[2] = table[distinct];
    /* workers */
    int workers = 0, balanced = 0;
    for (int l = 1; l <= LEVELS; l++) {
        int a = s->small[2 * (l - 1)], b = s->small[2 * (l - 1) + 1];
        int wa = a >= 0 ? S->small[a].workers : 0;
        int wb = b >= 0 ? S->small[b].workers : 0;
        workers += wa + wb;
        if (a >= 0 && b >= 0 && wa == wb)
            balanced += wa;
        r->smalls += (a >= 0) + (b >= 0);
    }
    r->part[3] = balanced;
    r->part[4] = s->n_collection / 2;
    r->smalls += s->n_collection;
    /* cards */
    int priests = 0, scribe = 0;
    for (int i = 0; i < s->n_cards; i++) {
        int tall = 0;
        switch (C->kind[s->cards[i]]) {
        case MAAT_ARC_PRIEST: {
            int d = distinct + ++priests;
            r->part[5] += table[d > 5 ? 5 : d] - table[d - 1 > 5 ? 5 : d - 1];
            break;
        }
        case MAAT_ARC_OSIRIS:
            r->part[5] += workers / 3;
            break;
        case MAAT_ARC_DIVINE_PATH:
            r->part[5] += exits;
            break;
        case MAAT_ARC_SET:
            r->part[5] += 2 * scoring;
            break;
        case MAAT_ARC_ARCHITECT:
            for (int c = 0; c < 4; c++)
                tall += height[c] >= 5;
            r->part[5] += 2 * tall;
            break;
        case MAAT_ARC_SCRIBE:
            if (!scribe++)
                r->part[5] += s->n_collection - s->n_collection / 2;
            break;
        case MAAT_ARC_VIZIER:
            r->part[5] += balanced;
            break;
        case MAAT_ARC_BASTET:
            r->part[5] += all;
            break;
        case MAAT_ARC_THOTH:
            r->part[5] += joined;
            break;
        }
    }
    for (int k = 0; k < 6; k++)
        r->total += r->part[k];
}

/* ---- invariants ------------------------------------------------------- */

static int conserved(const maat_arc_state *st, char *why, size_t n)
{
    int large[MAAT_ARC_MAX_LARGE] = {0}, small[MAAT_ARC_MAX_SMALL] = {0},
        card[MAAT_ARC_MAX_CARDS] = {0};
    for (int i = 0; i < st->n_supply; i++)
        large[st->supply[i]]++;
    for (int i = 0; i < B->common; i++)
        if (st->common[i] >= 0)
            large[st->common[i]]++;
    if (st->taken >= 0)
        large[st->taken]++;
    for (int i = 0; i < st->n_bag; i++)
        small[st->bag[i]]++;
    for (int i = 0; i < st->n_space0; i++)
        small[st->space0[i]]++;
    for (int i = 0; i < st->n_pile; i++)
        card[st->pile[i]]++;
    for (int i = 0; i < B->faceup; i++)
        if (st->faceup[i] >= 0)
            card[st->faceup[i]]++;
    for (int j = 0; j < st->seats; j++) {
        const maat_arc_seat *s = &st->seat[j];
        int placed = 0;
        for (int i = 0; i < B->n_large; i++)
            if (s->large[i] >= 0) {
                large[s->large[i]]++;
                placed++;
            }
        if (placed != s->placed) {
            snprintf(why, n, "seat %d placed %d, pyramid holds %d", j,
                     s->placed, placed);
            return 0;
        }
        for (int k = 0; k < maat_arc_n_small_spaces(B); k++)
            if (s->small[k] >= 0)
                small[s->small[k]]++;
        for (int i = 0; i < s->n_collection; i++)
            small[s->collection[i]]++;
        for (int i = 0; i < s->n_hand; i++)
            small[s->hand[i]]++;
        for (int i = 0; i < s->n_cards; i++)
            card[s->cards[i]]++;
    }
    for (int i = 0; i < S->n_large; i++)
        if (large[i] != 1) {
            snprintf(why, n, "large stone %d is in %d places", i, large[i]);
            return 0;
        }
    for (int i = 0; i < S->n_small; i++)
        if (small[i] != 1) {
            snprintf(why, n, "small stone %d is in %d places", i, small[i]);
            return 0;
        }
    for (int i = 0; i < C->n; i++)
        if (card[i] != 1) {
            snprintf(why, n, "card %d is in %d places", i, card[i]);
            return 0;
        }
    return 1;
}

static void check_state(const maat_arc_state *st)
{
    char why[120] = "";
    CHECK1(conserved(st, why, sizeof why), WHERE "%s", WHERE_ARGS, why);
    if (st->phase == MAAT_ARC_OVER) {
        CHECK1(st->to_move == -1, WHERE "over with to_move %d", WHERE_ARGS,
               st->to_move);
        return;
    }
    const maat_arc_seat *s = &st->seat[st->to_move];
    CHECK1(st->to_move == st->turn % st->seats, WHERE "to_move %d at turn %d",
           WHERE_ARGS, st->to_move, st->turn);
    CHECK1((st->phase == MAAT_ARC_PLACE) == (st->taken >= 0),
           WHERE "taken %d in phase %d", WHERE_ARGS, st->taken, st->phase);
    CHECK1(st->phase != MAAT_ARC_TAKE || s->n_hand <= 1,
           WHERE "%d small stones held at a take", WHERE_ARGS, s->n_hand);
    CHECK1(st->phase != MAAT_ARC_SMALL || s->n_hand > 0,
           WHERE "a small decision with nothing held", WHERE_ARGS);
    CHECK1(st->phase != MAAT_ARC_CARD || st->pending_cards > 0,
           WHERE "a card decision with no card owed", WHERE_ARGS);
    for (int j = 0; j < st->seats; j++) {
        /* seats before the mover have had turn/seats + 1 turns */
        int turns = st->turn / st->seats + (j < st->to_move);
        int now = j == st->to_move && st->phase != MAAT_ARC_TAKE &&
                  st->phase != MAAT_ARC_PLACE;
        CHECK1(st->seat[j].placed == turns + now,
               WHERE "seat %d placed %d after %d turns", WHERE_ARGS, j,
               st->seat[j].placed, turns);
    }
}

/* ---- the legality oracle ---------------------------------------------- */

static int oracle_legal(const maat_arc_state *st, maat_action *out)
{
    int n = 0;
    const maat_arc_seat *s = &st->seat[st->to_move];
    maat_action a;
    memset(&a, -1, sizeof a);
    switch (st->phase) {
    case MAAT_ARC_TAKE:
        for (int k = 0; k < 5; k++)
            if (st->common[k] >= 0 && (k == 0 || s->n_hand >= 1)) {
                a.kind = MAAT_ARC_TAKE;
                a.arg[0] = k;
                out[n++] = a;
            }
        break;
    case MAAT_ARC_PLACE: {
        int o = S->large[st->taken].open;
        for (int l = 1; l <= 5; l++)
            for (int p = 0; p < o_n(l); p++)
                for (int r = 0; r < 2; r++)
                    if (s->large[o_space(l, p)] < 0 &&
                        (r == 0 || o == 1 || o == 2)) {
                        a.kind = MAAT_ARC_PLACE;
                        a.arg[0] = st->taken;
                        a.arg[1] = l;
                        a.arg[2] = p;
                        a.arg[3] = r;
                        out[n++] = a;
                    }
        break;
    }
    case MAAT_ARC_SMALL:
        for (int l = 1; l <= 6; l++)
            for (int side = 0; side < 2; side++)
                if (s->small[2 * (l - 1) + side] < 0) {
                    a.kind = MAAT_ARC_SMALL;
                    a.arg[0] = s->hand[0];
                    a.arg[1] = l;
                    a.arg[2] = side;
                    out[n++] = a;
                }
        a.kind = MAAT_ARC_SMALL;
        a.arg[0] = s->hand[0];
        a.arg[1] = 0;
        a.arg[2] = -1;
        out[n++] = a;
        break;
    case MAAT_ARC_CARD:
        for (int i = 0; i < 4; i++)
            if (st->faceup[i] >= 0) {
                a.kind = MAAT_ARC_CARD;
                a.arg[0] = st->faceup[i];
                out[n++] = a;
            }
        break;
    }
    return n;
}

static int same_action(const maat_action *a, const maat_action *b)
{
    if (a->kind != b->kind)
        return 0;
    for (int i = 0; i < 4; i++)
        if (a->arg[i] != b->arg[i])
            return 0;
    return 1;
}

static int in_list(const maat_action *l, int n, const maat_action *a)
{
    for (int i = 0; i < n; i++)
        if (same_action(&l[i], a))
            return 1;
    return 0;
}

/* ---- msgpack walking: hidden ids -------------------------------------- */

/* K_SKIP: below the scores' "parts", whose keys are part names ("cards",
 * "collection"), not id lists */
enum { K_NONE, K_LARGE, K_SMALL, K_CARD, K_SKIP };

static int key_class(const msgpack_object *k)
{
    static const char *const large[] = {"large", "common", "taken"};
    static const char *const small[] = {"small", "space0", "hand",
                                        "collection"};
    static const char *const card[] = {"card", "faceup", "cards"};
    for (int i = 0; i < 3; i++)
        if (maat_msg_str_eq(k, large[i]))
            return K_LARGE;
    for (int i = 0; i < 4; i++)
        if (maat_msg_str_eq(k, small[i]))
            return K_SMALL;
    for (int i = 0; i < 3; i++)
        if (maat_msg_str_eq(k, card[i]))
            return K_CARD;
    return K_NONE;
}

typedef struct hidden {
    uint8_t large[MAAT_ARC_MAX_LARGE], small[MAAT_ARC_MAX_SMALL],
        card[MAAT_ARC_MAX_CARDS];
} hidden;

static void hidden_of(const maat_arc_state *st, hidden *h)
{
    memset(h, 0, sizeof *h);
    for (int i = 0; i < st->n_supply; i++)
        h->large[st->supply[i]] = 1;
    for (int i = 0; i < st->n_bag; i++)
        h->small[st->bag[i]] = 1;
    for (int i = 0; i < st->n_pile; i++)
        h->card[st->pile[i]] = 1;
}

static long ids_walked;

/* Counts ids under a classified key that are hidden; *forbidden counts
 * keys that name a hidden pile. */
static int walk(const msgpack_object *o, int cls, const hidden *h,
                int *forbidden)
{
    int leaks = 0;
    switch (o->type) {
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
        if (cls != K_NONE && cls != K_SKIP) {
            uint64_t v = o->via.u64;
            ids_walked++;
            if (v >= 128)
                return 1;
            leaks += cls == K_LARGE ? h->large[v]
                   : cls == K_SMALL ? h->small[v] : h->card[v];
        }
        break;
    case MSGPACK_OBJECT_ARRAY:
        for (uint32_t i = 0; i < o->via.array.size; i++)
            leaks += walk(&o->via.array.ptr[i], cls, h, forbidden);
        break;
    case MSGPACK_OBJECT_MAP:
        for (uint32_t i = 0; i < o->via.map.size; i++) {
            const msgpack_object *k = &o->via.map.ptr[i].key;
            if (maat_msg_str_eq(k, "supply") || maat_msg_str_eq(k, "bag") ||
                maat_msg_str_eq(k, "pile") || maat_msg_str_eq(k, "seed") ||
                maat_msg_str_eq(k, "order") || maat_msg_str_eq(k, "rng"))
                (*forbidden)++;
            int c = cls == K_SKIP || maat_msg_str_eq(k, "parts")
                        ? K_SKIP : key_class(k);
            leaks += walk(&o->via.map.ptr[i].val, c, h, forbidden);
        }
        break;
    default:
        break;
    }
    return leaks;
}

static int keys_exactly(const msgpack_object *o, const char *const *keys,
                        int n)
{
    if (!o || o->type != MSGPACK_OBJECT_MAP || (int)o->via.map.size != n)
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

static const char *const obs_keys[] = {
    "game", "seat", "seats", "turn", "decision", "to_move", "common",
    "space0", "faceup", "supply_size", "bag_size", "pile_size", "taken",
    "pending_cards", "players", "over", "scores"};
static const char *const player_keys[] = {"pyramid", "smalls", "collection",
                                          "hand", "cards"};

/* The state without what is hidden (orders) or not state (rng). */
static void public_part(const maat_arc_state *st, maat_arc_state *out)
{
    *out = *st;
    memset(out->supply, 0, sizeof out->supply);
    memset(out->bag, 0, sizeof out->bag);
    memset(out->pile, 0, sizeof out->pile);
    memset(&out->rng, 0, sizeof out->rng);
    out->stones = NULL;
    out->cards = NULL;
    out->board = NULL;
    for (int j = st->seats; j < MAAT_ARC_MAX_SEATS; j++)
        memset(&out->seat[j], 0, sizeof out->seat[j]);
    /* unused tails of the arrays */
    for (int j = 0; j < st->seats; j++) {
        maat_arc_seat *s = &out->seat[j];
        memset(s->collection + s->n_collection, 0,
               sizeof s->collection - s->n_collection);
        memset(s->hand + s->n_hand, 0, sizeof s->hand - s->n_hand);
        memset(s->cards + s->n_cards, 0, sizeof s->cards - s->n_cards);
        for (int i = 0; i < MAAT_ARC_MAX_SPACES; i++)
            if (i >= B->n_large || s->large[i] < 0)
                s->rotated[i] = 0;
    }
    memset(out->space0 + st->n_space0, 0,
           sizeof out->space0 - (size_t)st->n_space0);
}

static void check_observation(const maat_game *g, int seat)
{
    const maat_arc_state *st = maat_arc_state_of(g);
    msgpack_sbuffer_clear(&sb);
    CHECK1(R->encode_observation(g, seat, &pk) == MAAT_OK,
           WHERE "encode_observation failed", WHERE_ARGS);
    msgpack_unpacked up;
    maat_error err = {0, ""};
    if (maat_msg_unpack(sb.data, sb.size, &up, &err) != MAAT_OK) {
        CHECK1(0, WHERE "observation of seat %d does not decode: %s",
               WHERE_ARGS, seat, err.msg);
        msgpack_unpacked_destroy(&up);
        return;
    }
    const msgpack_object *o = &up.data;
    int over = st->phase == MAAT_ARC_OVER;
    CHECK1(keys_exactly(o, obs_keys, over ? 17 : 16),
           WHERE "seat %d: the observation's keys are not the documented "
           "ones", WHERE_ARGS, seat);
    const msgpack_object *players = maat_msg_get(o, "players");
    for (int j = 0; players && j < st->seats; j++)
        CHECK1(keys_exactly(&players->via.array.ptr[j], player_keys, 5),
               WHERE "players[%d] keys", WHERE_ARGS, j);
    hidden h;
    hidden_of(st, &h);
    int forbidden = 0;
    long before = ids_walked;
    int leaks = walk(o, K_NONE, &h, &forbidden);
    CHECK1(leaks == 0 && forbidden == 0,
           WHERE "seat %d's observation names %d hidden ids (%d forbidden "
           "keys)", WHERE_ARGS, seat, leaks, forbidden);
    CHECK1(ids_walked > before, WHERE "the walk found no id at all",
           WHERE_ARGS);
    /* everything else is there: decoding gives the public state back */
    maat_arc_state dec, want, got;
    dec.stones = S;
    dec.cards = C;
    dec.board = B;
    int rc = maat_arc_observation_decode(o, &dec, &err);
    CHECK1(rc == MAAT_OK, WHERE "seat %d: observation_decode: %s",
           WHERE_ARGS, seat, err.msg);
    if (!rc) {
        public_part(st, &want);
        public_part(&dec, &got);
        CHECK1(memcmp(&want, &got, sizeof want) == 0,
               WHERE "seat %d: the observation does not carry the whole "
               "public state", WHERE_ARGS, seat);
    }
    if (over) {
        maat_score sc[MAAT_ARC_MAX_SEATS];
        R->scores(g, sc);
        const msgpack_object *s = maat_msg_get(o, "scores");
        int bad = !s || s->type != MSGPACK_OBJECT_ARRAY ||
                  (int)s->via.array.size != st->seats;
        for (int j = 0; !bad && j < st->seats; j++) {
            int64_t v;
            const msgpack_object *e = &s->via.array.ptr[j];
            bad |= maat_msg_get_int(e, "total", 0, 1000, &v, NULL) ||
                   v != sc[j].total;
            bad |= maat_msg_get_int(e, "rank", 1, 4, &v, NULL) ||
                   v != sc[j].rank;
            for (int k = 0; k < MAAT_ARC_S_PARTS; k++)
                bad |= maat_msg_get_int(maat_msg_get(e, "parts"),
                                        R->score_parts[k], 0, 1000, &v,
                                        NULL) ||
                       v != sc[j].part[k];
        }
        CHECK1(!bad, WHERE "the final scores in the observation are wrong",
               WHERE_ARGS);
    }
    msgpack_unpacked_destroy(&up);
}

static void check_events(const maat_game *g, const maat_events *ev,
                         size_t from)
{
    const maat_arc_state *st = maat_arc_state_of(g);
    hidden h;
    hidden_of(st, &h);
    for (size_t k = from; k < ev->count; k++) {
        const maat_event *e = &ev->items[k];
        CHECK1(e->visible_to == MAAT_ALL_SEATS, WHERE "event %d is not "
               "public", WHERE_ARGS, e->kind);
        CHECK1(e->kind != MAAT_ARC_EV_END || (k + 1 == ev->count &&
                                              st->phase == MAAT_ARC_OVER),
               WHERE "the end event is not last, or the game not over",
               WHERE_ARGS);
        msgpack_sbuffer_clear(&sb);
        CHECK1(R->encode_event(g, e, &pk) == MAAT_OK,
               WHERE "encode_event(%d) failed", WHERE_ARGS, e->kind);
        msgpack_unpacked up;
        maat_error err = {0, ""};
        if (maat_msg_unpack(sb.data, sb.size, &up, &err) != MAAT_OK) {
            CHECK1(0, WHERE "an event does not decode: %s", WHERE_ARGS,
                   err.msg);
        } else {
            int forbidden = 0;
            int leaks = walk(&up.data, K_NONE, &h, &forbidden);
            CHECK1(leaks == 0 && forbidden == 0,
                   WHERE "event %s names %d hidden ids", WHERE_ARGS,
                   R->event_names[e->kind], leaks);
            CHECK1(maat_msg_str_eq(maat_msg_get(&up.data, "event"),
                                   R->event_names[e->kind]),
                   WHERE "event %d is not named", WHERE_ARGS, e->kind);
        }
        msgpack_unpacked_destroy(&up);
    }
}

/* ---- the bot side ----------------------------------------------------- */

static int same_set(const uint8_t *a, const uint8_t *b, int n)
{
    int count[256] = {0};
    for (int i = 0; i < n; i++) {
        count[a[i]]++;
        count[b[i]]--;
    }
    for (int i = 0; i < 256; i++)
        if (count[i])
            return 0;
    return 1;
}

static long samples_compared, samples_differing;

static void check_samples(const maat_game *g, maat_view *v, int seat,
                          maat_rng *rng)
{
    const maat_arc_state *st = maat_arc_state_of(g);
    msgpack_sbuffer want, got;
    msgpack_sbuffer_init(&want);
    msgpack_sbuffer_init(&got);
    viewfeed_obs(R, g, seat, &want);
    maat_action la[64], lb[64];
    int na = R->legal_actions(g, la, 64);
    uint8_t first[MAAT_ARC_MAX_LARGE];
    for (int k = 0; k < SAMPLES; k++) {
        maat_error err = {0, ""};
        maat_game *d = R->determinize(v, rng, &err);
        CHECK1(d != NULL, WHERE "seat %d: determinize failed: %s",
               WHERE_ARGS, seat, err.msg);
        if (!d)
            continue;
        const maat_arc_state *ds = maat_arc_state_of(d);
        viewfeed_obs(R, d, seat, &got);
        CHECK1(got.size == want.size &&
                   memcmp(got.data, want.data, got.size) == 0,
               WHERE "seat %d: the sample's observation differs", WHERE_ARGS,
               seat);
        char why[120] = "";
        CHECK1(conserved(ds, why, sizeof why), WHERE "seat %d: a sample: "
               "%s", WHERE_ARGS, seat, why);
        CHECK1(ds->n_supply == st->n_supply && ds->n_bag == st->n_bag &&
                   ds->n_pile == st->n_pile &&
                   same_set(ds->supply, st->supply, st->n_supply) &&
                   same_set(ds->bag, st->bag, st->n_bag) &&
                   same_set(ds->pile, st->pile, st->n_pile),
               WHERE "seat %d: the sample's supply/bag/pile are not the "
               "unseen components", WHERE_ARGS, seat);
        maat_decision da = R->decision(g), db = R->decision(d);
        CHECK1(da.seat == db.seat && da.kind == db.kind,
               WHERE "seat %d: the sample's decision differs", WHERE_ARGS,
               seat);
        int nb = R->legal_actions(d, lb, 64);
        CHECK1(na == nb && memcmp(la, lb, sizeof la[0] * (size_t)
                                  (na < 64 ? na : 64)) == 0,
               WHERE "seat %d: the sample's legal actions differ", WHERE_ARGS,
               seat);
        if (nb > 0) {
            maat_game *c = R->copy(d);
            CHECK1(R->apply(c, &lb[k % nb], NULL, &err) == MAAT_OK,
                   WHERE "seat %d: a sample refuses a legal action: %s",
                   WHERE_ARGS, seat, err.msg);
            R->destroy(&c);
        }
        if (k == 0) {
            memcpy(first, ds->supply, sizeof first);
        } else if (st->n_supply >= 3) {
            samples_compared++;
            samples_differing += memcmp(first, ds->supply,
                                        (size_t)st->n_supply) != 0;
        }
        R->destroy(&d);
    }
    msgpack_sbuffer_destroy(&want);
    msgpack_sbuffer_destroy(&got);
}

/* ---- one game --------------------------------------------------------- */

#define MAX_LOG 1024
typedef struct {
    maat_action act[MAX_LOG];
    int n;
} action_log;

static maat_game *play(int seats, uint64_t seed, int full, int det,
                       maat_events *ev, action_log *log)
{
    maat_error err = {0, ""};
    at.seats = seats;
    at.seed = (unsigned long long)seed;
    at.step = 0;
    maat_game *g = R->game_new(setup, SEED(seed), seats, ev, &err);
    CHECK1(g != NULL, WHERE "game_new: %s", WHERE_ARGS, err.msg);
    if (!g)
        return NULL;
    const maat_arc_state *st = maat_arc_state_of(g);
    maat_rng rng, junk, det_rng;
    maat_rng_seed(&rng, SEED(seed ^ 0x5eedULL));
    maat_rng_seed(&junk, SEED(seed ^ 0xbadULL));
    maat_rng_seed(&det_rng, SEED(seed ^ 0xde7ULL));
    maat_view *v[MAAT_ARC_MAX_SEATS] = {0};
    check_state(st);
    check_events(g, ev, 0);
    for (int i = 0; full && i < seats; i++)
        check_observation(g, i);
    for (int i = 0; det && i < seats; i++) {
        v[i] = R->view_new(bot_setup, i, seats);
        maat_game *none = R->determinize(v[i], &det_rng, &err);
        CHECK1(none == NULL, WHERE "determinize without an observation",
               WHERE_ARGS);
        R->destroy(&none);
        CHECK1(viewfeed(R, v[i], g, ev, 0, i, &err) == MAAT_OK,
               WHERE "seat %d: view_update: %s", WHERE_ARGS, i, err.msg);
        check_samples(g, v[i], i, &det_rng);
    }
    log->n = 0;
    maat_action list[64], oracle[64];
    while (!R->is_over(g) && at.step < 5000) {
        at.step++;
        int n = R->legal_actions(g, list, 64);
        int no = oracle_legal(st, oracle);
        int agree = n == no;
        for (int k = 0; agree && k < n; k++)
            agree = same_action(&list[k], &oracle[k]);
        CHECK1(agree, WHERE "legal actions (%d) differ from the rules "
               "page's (%d) in phase %d", WHERE_ARGS, n, no, st->phase);
        if (n < 1 || n > 64)
            break;
        if (full)
            for (int k = 0; k < n; k++) {
                maat_game *c = R->copy(g);
                CHECK1(R->apply(c, &list[k], NULL, &err) == MAAT_OK,
                       WHERE "legal action %d refused: %s", WHERE_ARGS, k,
                       err.msg);
                R->destroy(&c);
            }
        for (int t = 0; t < 3; t++) {
            maat_action bad;
            bad.kind = (int)maat_rng_below(&junk, 5);
            for (int i = 0; i < MAAT_ACTION_ARGS; i++)
                bad.arg[i] = -1;
            for (int i = 0; i < 4; i++)
                bad.arg[i] = (int)maat_rng_below(&junk, 8) - 1;
            if (maat_rng_below(&junk, 2)) { /* near a legal one */
                bad = list[maat_rng_below(&junk, (uint32_t)n)];
                bad.arg[maat_rng_below(&junk, 5)] +=
                    (int)maat_rng_below(&junk, 3) - 1;
            }
            if (in_list(list, n, &bad))
                continue;
            maat_arc_state before = *st;
            size_t nev = ev->count;
            int rc = R->apply(g, &bad, ev, &err);
            CHECK1(rc == MAAT_EILLEGAL && err.msg[0],
                   WHERE "illegal %d(%d,%d,%d,%d) gave %d", WHERE_ARGS,
                   bad.kind, bad.arg[0], bad.arg[1], bad.arg[2], bad.arg[3],
                   rc);
            CHECK1(memcmp(&before, st, sizeof before) == 0 &&
                       ev->count == nev,
                   WHERE "an illegal action changed the game", WHERE_ARGS);
        }
        maat_action a;
        CHECK1(maat_policy_random(R, g, &rng, &a) == MAAT_OK,
               WHERE "the policy found no action", WHERE_ARGS);
        if (log->n < MAX_LOG)
            log->act[log->n++] = a;
        size_t from = ev->count;
        int rc = R->apply(g, &a, ev, &err);
        CHECK1(rc == MAAT_OK, WHERE "a legal action refused: %s", WHERE_ARGS,
               err.msg);
        if (rc)
            break;
        check_state(st);
        check_events(g, ev, from);
        for (int i = 0; full && i < seats; i++)
            check_observation(g, i);
        for (int i = 0; det && i < seats; i++) {
            CHECK1(viewfeed(R, v[i], g, ev, from, i, &err) == MAAT_OK,
                   WHERE "seat %d: view_update: %s", WHERE_ARGS, i, err.msg);
            check_samples(g, v[i], i, &det_rng);
        }
    }
    for (int i = 0; i < seats; i++)
        R->view_destroy(&v[i]);
    return g;
}

static void end_state(const maat_game *g, int seats)
{
    const maat_arc_state *st = maat_arc_state_of(g);
    CHECK1(R->is_over(g) && st->turn == 15 * seats,
           WHERE "not over after %d turns", WHERE_ARGS, st->turn);
    CHECK1(R->decision(g).seat == -1, WHERE "a decision after the end",
           WHERE_ARGS);
    maat_action l[4];
    CHECK1(R->legal_actions(g, l, 4) == 0, WHERE "legal actions after the "
           "end", WHERE_ARGS);
    maat_score sc[MAAT_ARC_MAX_SEATS];
    R->scores(g, sc);
    o_result o[MAAT_ARC_MAX_SEATS];
    for (int i = 0; i < seats; i++) {
        const maat_arc_seat *s = &st->seat[i];
        CHECK1(s->placed == 15 && s->n_cards == 3,
               WHERE "seat %d: %d large stones, %d cards", WHERE_ARGS, i,
               s->placed, s->n_cards);
        o_score(s, &o[i]);
        int sum = 0;
        for (int k = 0; k < MAAT_ARC_S_PARTS; k++) {
            sum += sc[i].part[k];
            CHECK1(sc[i].part[k] == o[i].part[k],
                   WHERE "seat %d part %s: %d, the rules page says %d",
                   WHERE_ARGS, i, R->score_parts[k], sc[i].part[k],
                   o[i].part[k]);
        }
        CHECK1(sum == sc[i].total && sc[i].total == o[i].total,
               WHERE "seat %d: total %d, parts %d, oracle %d", WHERE_ARGS, i,
               sc[i].total, sum, o[i].total);
    }
    for (int i = 0; i < seats; i++) {
        int better = 0;
        for (int j = 0; j < seats; j++)
            better += o[j].total > o[i].total ||
                      (o[j].total == o[i].total && o[j].smalls > o[i].smalls);
        CHECK1(sc[i].rank == 1 + better, WHERE "seat %d: rank %d, want %d",
               WHERE_ARGS, i, sc[i].rank, 1 + better);
    }
}

static int same_events(const maat_events *a, const maat_events *b)
{
    return a->count == b->count &&
           memcmp(a->items, b->items, sizeof a->items[0] * a->count) == 0;
}

int main(int argc, char **argv)
{
    int games = argc > 1 ? atoi(argv[1]) : GAMES_PER_SEATS;
    maat_error err = {0, ""};
    setup = R->setup_new(NULL, &err);
    CHECK(setup != NULL, "setup: %s", err.msg);
    if (!setup)
        return check_done("test_architects_props");
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    R->setup_encode(setup, &pk);
    msgpack_unpacked up;
    CHECK(maat_msg_unpack(sb.data, sb.size, &up, &err) == MAAT_OK,
          "the setup does not decode: %s", err.msg);
    bot_setup = R->setup_decode(&up.data, &err);
    msgpack_unpacked_destroy(&up);
    CHECK(bot_setup != NULL, "setup_decode: %s", err.msg);
    if (!bot_setup)
        return check_done("test_architects_props");
    {
        maat_game *a = R->game_new(setup, SEED(1), 2, NULL, &err);
        maat_game *b = R->game_new(bot_setup, SEED(1), 2, NULL, &err);
        const maat_arc_state *sa = maat_arc_state_of(a),
                             *sb2 = maat_arc_state_of(b);
        S = sa->stones;
        C = sa->cards;
        B = sa->board;
        CHECK(memcmp(sa->stones, sb2->stones, sizeof *S) == 0 &&
                  memcmp(sa->cards, sb2->cards, sizeof *C) == 0 &&
                  memcmp(sa->board, sb2->board, sizeof *B) == 0,
              "the bot's setup (from the welcome) differs from the "
              "referee's");
        R->destroy(&a);
        R->destroy(&b);
    }
    long played = 0;
    for (int seats = 2; seats <= MAAT_ARC_MAX_SEATS; seats++)
        for (int k = 0; k < games; k++) {
            uint64_t seed = 1000003ULL * (uint64_t)seats + (uint64_t)k;
            maat_events ev = {0};
            action_log log;
            maat_game *g = play(seats, seed, k < FULL_CHECK_GAMES,
                                k < DET_GAMES, &ev, &log);
            if (!g) {
                maat_events_free(&ev);
                continue;
            }
            end_state(g, seats);
            played++;
            /* the same seed and actions: the same game */
            if (k % 10 == 0) {
                maat_events ev2 = {0};
                maat_game *h = R->game_new(setup, SEED(seed), seats, &ev2, &err);
                for (int i = 0; h && i < log.n; i++)
                    R->apply(h, &log.act[i], &ev2, &err);
                CHECK1(h && memcmp(maat_arc_state_of(g), maat_arc_state_of(h),
                                   sizeof(maat_arc_state)) == 0 &&
                           same_events(&ev, &ev2),
                       WHERE "the replay differs", WHERE_ARGS);
                maat_game *c = R->copy(g);
                CHECK1(memcmp(maat_arc_state_of(g), maat_arc_state_of(c),
                              sizeof(maat_arc_state)) == 0,
                       WHERE "copy() differs", WHERE_ARGS);
                R->destroy(&c);
                R->destroy(&h);
                maat_events_free(&ev2);
            }
            R->destroy(&g);
            maat_events_free(&ev);
        }
    CHECK(played == 3L * games, "%ld games played", played);
    CHECK(samples_compared > 100 && samples_differing > samples_compared / 2,
          "determinized supplies differ in %ld of %ld comparisons",
          samples_differing, samples_compared);
    printf("%ld games, %ld ids walked, %ld/%ld samples differing\n", played,
           ids_walked, samples_differing, samples_compared);
    msgpack_sbuffer_destroy(&sb);
    R->setup_destroy(&bot_setup);
    R->setup_destroy(&setup);
    return check_done("test_architects_props");
}
