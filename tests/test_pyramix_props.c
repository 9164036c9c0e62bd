/* test_pyramix_props.c -- properties of thousands of seeded Pyramix games.
 *
 * Seeded random games (GAMES_PER_SEATS per seat count, 2..4 seats; random
 * legal actions from maat_policy_random with a seeded maat_rng).  After the
 * start and after EVERY apply:
 *  - 56 cubes conserved: each cube id exactly once, either at one place of
 *    the pyramid or in exactly one seat's collection (n_collected agrees);
 *  - every occupied place above the bottom rests on its three down-places
 *    (x+1,y,z), (x,y+1,z), (x,y,z+1), and the bottom layer is always full
 *    (the rules keep both: a cube is only removed with 2-3 visible faces,
 *    so nothing rests on it but the one cube covering it, and that cube's
 *    line slides into the gap; see docs/RULES-NOTES.md);
 *  - a cube is revealed exactly when it shows a visible face (faces only
 *    ever open up), and once revealed stays revealed;
 *  - legality against an independent oracle written here from the rules
 *    page (2-3 faces, the tray rule, the visible-cobra rule on flat sides):
 *    legal_actions is exactly the oracle's set, every legal action applies,
 *    and random illegal ones are refused (MAAT_EILLEGAL), the state and
 *    the event list byte-identical;
 *  - the applied removal gives exactly the oracle's position (the cascade
 *    along the covering axis);
 *  - events: all public; "remove" names the mover, the place, the removed
 *    cube's colour/symbol and the slide axis; one "reveal" per newly
 *    revealed cube, naming its place and kind; "end" last, once, iff over;
 *  - hidden information: every event (all games) and every seat's
 *    observation (the first FULL_CHECK_GAMES games) is walked as msgpack: an entry for a place whose cube is unrevealed
 *    carries no colour/symbol, the multiset of (colour, symbol) shown on
 *    the board is exactly the revealed cubes, the collections are exact,
 *    and no map anywhere else carries a symbol;
 *  - determinization (the first DET_GAMES games of each seat count): each
 *    seat keeps a view fed like a bot (its events and observation as real
 *    msgpack bytes); SAMPLES states are drawn per seat and step and must
 *    give a byte-identical encode_observation for that seat, conserve the
 *    56 cubes, list the same legal actions and accept one; over the run,
 *    samples must differ in their hidden cubes.
 * At the end: exactly the 21 bottom cubes left (35 removals), over, no
 * decision, scores = an independent oracle of the scoring rules, totals =
 * sum of parts, ranks shared by ties.  The same seed and actions replay to
 * an identical state and event stream; copy() is identical.
 * Also: random down-closed positions with cobras placed at random (not
 * from play) are over exactly when only the bottom layer is left -- the
 * end condition "no legal removal" is the rulebook's "a single layer".
 *
 * Usage: test_pyramix_props [games-per-seat-count]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "viewfeed.h"
#include "maat/internal/msg.h"
#include "maat/policy.h"
#include "maat/internal/pyramix.h"

#define GAMES_PER_SEATS 2000
/* Walking every seat's observation after every step is the slow part: it
 * runs on the first FULL_CHECK_GAMES games of each seat count (events are
 * walked in every game); determinization on the first DET_GAMES. */
#define FULL_CHECK_GAMES 500
#define DET_GAMES 60
#define SAMPLES 2
#define RANDOM_POSITIONS 50000

static const maat_rules *R = &maat_pyramix_rules;
static maat_setup *setup;     /* the referee's */
static maat_setup *bot_setup; /* setup_decode of its setup_encode bytes */
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

/* ---- an oracle of the rules page, independent of pyramix.c ------------- */

static int occ(const maat_pmx_state *st, int x, int y, int z)
{
    int p = maat_pmx_place(x, y, z);
    return p >= 0 && st->cube[p] >= 0;
}

static int o_faces(const maat_pmx_state *st, int x, int y, int z)
{
    return !occ(st, x - 1, y, z) + !occ(st, x, y - 1, z) +
           !occ(st, x, y, z - 1);
}

static int o_cobra(int cube)
{
    return cube >= 52;
}

static int o_removable(const maat_pmx_state *st, int x, int y, int z)
{
    int p = maat_pmx_place(x, y, z);
    if (p < 0 || st->cube[p] < 0)
        return 0;
    int f = o_faces(st, x, y, z);
    if (f < 2 || (f == 3 && x + y + z == 5))
        return 0;
    if (o_cobra(st->cube[p]))
        return 1;
    static const int nb[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0},
                                 {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    for (int k = 0; k < 6; k++) {
        int a = x + nb[k][0], b = y + nb[k][1], c = z + nb[k][2];
        int q = maat_pmx_place(a, b, c);
        if (q >= 0 && st->cube[q] >= 0 && o_cobra(st->cube[q]) &&
            o_faces(st, a, b, c) > 0)
            return 0;
    }
    return 1;
}

/* The position after removing (x,y,z); returns the slide axis or -1. */
static int o_remove(maat_pmx_state *st, int x, int y, int z)
{
    int c[3] = {x, y, z}, axis = -1;
    if (o_faces(st, x, y, z) == 2)
        for (int d = 0; d < 3; d++) {
            int u[3] = {x, y, z};
            u[d]--;
            if (occ(st, u[0], u[1], u[2]))
                axis = d;
        }
    st->cube[maat_pmx_place(x, y, z)] = -1;
    if (axis >= 0) {
        for (;;) {
            int to = maat_pmx_place(c[0], c[1], c[2]);
            c[axis]--;
            int from = maat_pmx_place(c[0], c[1], c[2]);
            if (from < 0 || st->cube[from] < 0)
                break;
            st->cube[to] = st->cube[from];
            st->cube[from] = -1;
        }
    }
    return axis;
}

static int points(int cube)
{
    if (cube >= 52)
        return 0;
    int k = cube % 13;
    return k < 8 ? 1 : k < 12 ? 2 : 3;
}

/* Scoring from the rules page: parts per seat (ankhs, cranes, eyes in
 * points; majority points), totals. */
static void o_score(const maat_pmx_state *st, int parts[][4], int *total)
{
    int cleared[MAAT_PMX_PLACES] = {0};
    for (int p = 0; p < MAAT_PMX_PLACES; p++) {
        if (st->cube[p] < 0 || !o_cobra(st->cube[p]))
            continue;
        int a[3];
        maat_pmx_coords(p, &a[0], &a[1], &a[2]);
        for (int q = 0; q < MAAT_PMX_PLACES; q++) {
            int b[3], axes = 0, far = 0;
            maat_pmx_coords(q, &b[0], &b[1], &b[2]);
            for (int d = 0; d < 3; d++) {
                int diff = abs(a[d] - b[d]);
                axes += diff != 0;
                far |= diff > 1;
            }
            if (q == p || (!far && axes <= 2))
                cleared[q] = 1;
        }
    }
    for (int s = 0; s < st->seats; s++) {
        memset(parts[s], 0, sizeof parts[s]);
        for (int c = 0; c < 52; c++)
            if (st->collected[s][c])
                parts[s][maat_pmx_cube_symbol(c)] += points(c);
    }
    for (int col = 0; col < 4; col++) {
        int ankhs[MAAT_PMX_MAX_SEATS] = {0}, best = -1, n_best = 0, who = -1;
        for (int s = 0; s < st->seats; s++) {
            for (int k = 0; k < 8; k++)
                ankhs[s] += st->collected[s][13 * col + k];
            if (ankhs[s] > best) {
                best = ankhs[s];
                n_best = 1;
                who = s;
            } else if (ankhs[s] == best) {
                n_best++;
            }
        }
        if (n_best != 1)
            continue;
        for (int p = 0; p < MAAT_PMX_PLACES; p++)
            if (st->cube[p] >= 0 && !cleared[p] && st->cube[p] < 52 &&
                st->cube[p] / 13 == col)
                parts[who][3] += points(st->cube[p]);
    }
    for (int s = 0; s < st->seats; s++)
        total[s] = parts[s][0] + parts[s][1] + parts[s][2] + parts[s][3];
}

/* ---- invariants of a state ----------------------------------------------- */

static int conserved(const maat_pmx_state *st)
{
    int count[MAAT_PMX_CUBES] = {0}, bad = 0;
    for (int p = 0; p < MAAT_PMX_PLACES; p++) {
        int c = st->cube[p];
        if (c >= MAAT_PMX_CUBES || c < -1)
            bad++;
        else if (c >= 0)
            count[c]++;
    }
    for (int s = 0; s < st->seats; s++) {
        int n = 0;
        for (int c = 0; c < MAAT_PMX_CUBES; c++) {
            bad += st->collected[s][c] > 1;
            count[c] += st->collected[s][c];
            n += st->collected[s][c];
        }
        bad += n != st->n_collected[s];
    }
    for (int s = st->seats; s < MAAT_PMX_MAX_SEATS; s++)
        for (int c = 0; c < MAAT_PMX_CUBES; c++)
            bad += st->collected[s][c] != 0;
    for (int c = 0; c < MAAT_PMX_CUBES; c++)
        bad += count[c] != 1;
    return bad == 0;
}

static int rests(const maat_pmx_state *st)
{
    for (int p = 0; p < MAAT_PMX_PLACES; p++) {
        int x, y, z;
        maat_pmx_coords(p, &x, &y, &z);
        if (x + y + z == 5) {
            if (st->cube[p] < 0)
                return 0; /* the bottom is always full */
            continue;
        }
        if (st->cube[p] >= 0 &&
            (!occ(st, x + 1, y, z) || !occ(st, x, y + 1, z) ||
             !occ(st, x, y, z + 1)))
            return 0;
    }
    return 1;
}

/* revealed == shows a visible face, for every cube on the board; every
 * collected cube was revealed */
static int revealed_ok(const maat_pmx_state *st)
{
    for (int p = 0; p < MAAT_PMX_PLACES; p++) {
        int x, y, z, c = st->cube[p];
        maat_pmx_coords(p, &x, &y, &z);
        if (c >= 0 && st->revealed[c] != (o_faces(st, x, y, z) > 0))
            return 0;
    }
    for (int s = 0; s < st->seats; s++)
        for (int c = 0; c < MAAT_PMX_CUBES; c++)
            if (st->collected[s][c] && !st->revealed[c])
                return 0;
    return 1;
}

static int n_on_board(const maat_pmx_state *st)
{
    int n = 0;
    for (int p = 0; p < MAAT_PMX_PLACES; p++)
        n += st->cube[p] >= 0;
    return n;
}

/* ---- msgpack walking ----------------------------------------------------- */

static int as_int(const msgpack_object *o, int *v)
{
    if (!o)
        return 0;
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

/* Maps anywhere inside o that carry a "symbol" or a "colour" key. */
static int count_kind_maps(const msgpack_object *o)
{
    int n = 0;
    if (o->type == MSGPACK_OBJECT_ARRAY) {
        for (uint32_t i = 0; i < o->via.array.size; i++)
            n += count_kind_maps(&o->via.array.ptr[i]);
    } else if (o->type == MSGPACK_OBJECT_MAP) {
        int kind = 0;
        for (uint32_t i = 0; i < o->via.map.size; i++) {
            const msgpack_object *k = &o->via.map.ptr[i].key;
            kind |= maat_msg_str_eq(k, "symbol") ||
                    maat_msg_str_eq(k, "colour");
            n += count_kind_maps(&o->via.map.ptr[i].val);
        }
        n += kind;
    }
    return n;
}

/* The kind (cube id of that colour/symbol's first id: a class) named by a
 * map, -1 when absent or unknown. */
static int kind_of(const msgpack_object *o)
{
    int col = -1, sym = -1;
    for (int c = 0; c < 5; c++)
        if (maat_msg_str_eq(maat_msg_get(o, "colour"),
                            maat_pmx_colour_names[c]))
            col = c;
    for (int s = 0; s < 4; s++)
        if (maat_msg_str_eq(maat_msg_get(o, "symbol"),
                            maat_pmx_symbol_names[s]))
            sym = s;
    if (col < 0 || sym < 0)
        return -1;
    if ((col == MAAT_PMX_NO_COLOUR) != (sym == MAAT_PMX_COBRA))
        return -1;
    return col * 4 + sym;
}

static int kind_id(int cube)
{
    return maat_pmx_cube_colour(cube) * 4 + maat_pmx_cube_symbol(cube);
}

static const char *const obs_keys[] = {"game", "seat", "seats", "turn",
                                       "to_move", "cubes", "collected",
                                       "over", "scores"};
static const char *const place_keys[] = {"x", "y", "z", "colour", "symbol"};
static const char *const kind_keys[] = {"colour", "symbol"};

static void check_observation(const maat_game *g, int i)
{
    const maat_pmx_state *st = maat_pmx_state_of(g);
    msgpack_sbuffer_clear(&sb);
    CHECK1(R->encode_observation(g, i, &pk) == MAAT_OK,
           WHERE "encode_observation(%d) failed", WHERE_ARGS, i);
    msgpack_unpacked up;
    maat_error err = {0, ""};
    int ok = maat_msg_unpack(sb.data, sb.size, &up, &err) == MAAT_OK;
    CHECK1(ok, WHERE "observation of seat %d does not decode: %s",
           WHERE_ARGS, i, err.msg);
    if (!ok) {
        msgpack_unpacked_destroy(&up);
        return;
    }
    const msgpack_object *o = &up.data;
    int v;
    CHECK1(keys_exactly(o, obs_keys, st->over ? 9 : 8),
           WHERE "observation of seat %d: wrong key set", WHERE_ARGS, i);
    CHECK1(maat_msg_str_eq(maat_msg_get(o, "game"), "pyramix") &&
               as_int(maat_msg_get(o, "seat"), &v) && v == i &&
               as_int(maat_msg_get(o, "seats"), &v) && v == st->seats &&
               as_int(maat_msg_get(o, "turn"), &v) && v == st->turn,
           WHERE "observation header of seat %d wrong", WHERE_ARGS, i);
    const msgpack_object *tm = maat_msg_get(o, "to_move");
    CHECK1(st->over ? tm && tm->type == MSGPACK_OBJECT_NIL
                    : as_int(tm, &v) && v == st->to_move,
           WHERE "to_move wrong", WHERE_ARGS);
    /* the board */
    int leaks = 0, wrong = 0, seen[MAAT_PMX_PLACES] = {0};
    int shown[20] = {0}, want[20] = {0};
    const msgpack_object *cubes = maat_msg_get(o, "cubes");
    if (cubes && cubes->type == MSGPACK_OBJECT_ARRAY) {
        CHECK1((int)cubes->via.array.size == n_on_board(st),
               WHERE "observation lists %u places, %d occupied", WHERE_ARGS,
               cubes->via.array.size, n_on_board(st));
        for (uint32_t k = 0; k < cubes->via.array.size; k++) {
            const msgpack_object *e = &cubes->via.array.ptr[k];
            int x, y, z;
            if (!as_int(maat_msg_get(e, "x"), &x) ||
                !as_int(maat_msg_get(e, "y"), &y) ||
                !as_int(maat_msg_get(e, "z"), &z) ||
                maat_pmx_place(x, y, z) < 0) {
                wrong++;
                continue;
            }
            int p = maat_pmx_place(x, y, z), c = st->cube[p];
            if (c < 0 || seen[p]++) {
                wrong++;
                continue;
            }
            int has = maat_msg_get(e, "colour") || maat_msg_get(e, "symbol");
            if (!st->revealed[c]) {
                leaks += has;
                wrong += !keys_exactly(e, place_keys, 3);
            } else {
                wrong += !keys_exactly(e, place_keys, 5) ||
                         kind_of(e) != kind_id(c);
            }
            if (has && kind_of(e) >= 0)
                shown[kind_of(e)]++;
        }
        for (int p = 0; p < MAAT_PMX_PLACES; p++)
            if (st->cube[p] >= 0 && st->revealed[st->cube[p]])
                want[kind_id(st->cube[p])]++;
        CHECK1(memcmp(shown, want, sizeof shown) == 0,
               WHERE "seat %d: the (colour, symbol) shown are not exactly "
               "the revealed cubes", WHERE_ARGS, i);
    } else {
        wrong++;
    }
    CHECK1(leaks == 0, WHERE "seat %d sees the symbol of %d unrevealed "
           "cubes", WHERE_ARGS, i, leaks);
    CHECK1(wrong == 0, WHERE "seat %d: %d wrong board entries", WHERE_ARGS,
           i, wrong);
    /* collections */
    const msgpack_object *col = maat_msg_get(o, "collected");
    int n_coll = 0;
    if (col && col->type == MSGPACK_OBJECT_ARRAY &&
        (int)col->via.array.size == st->seats) {
        for (int s = 0; s < st->seats; s++) {
            const msgpack_object *l = &col->via.array.ptr[s];
            int got[20] = {0}, exp[20] = {0}, bad = 0;
            if (l->type != MSGPACK_OBJECT_ARRAY) {
                bad = 1;
            } else {
                for (uint32_t k = 0; k < l->via.array.size; k++) {
                    const msgpack_object *e = &l->via.array.ptr[k];
                    int kd = kind_of(e);
                    if (kd < 0 || !keys_exactly(e, kind_keys, 2))
                        bad++;
                    else
                        got[kd]++;
                }
                n_coll += (int)l->via.array.size;
            }
            for (int c = 0; c < MAAT_PMX_CUBES; c++)
                if (st->collected[s][c])
                    exp[kind_id(c)]++;
            CHECK1(!bad && memcmp(got, exp, sizeof got) == 0,
                   WHERE "seat %d: collected[%d] is not that collection",
                   WHERE_ARGS, i, s);
        }
    } else {
        CHECK1(0, WHERE "seat %d: 'collected' is not one list per seat",
               WHERE_ARGS, i);
    }
    /* nothing else anywhere names a colour or symbol */
    int revealed_on_board = 0;
    for (int p = 0; p < MAAT_PMX_PLACES; p++)
        revealed_on_board += st->cube[p] >= 0 && st->revealed[st->cube[p]];
    CHECK1(count_kind_maps(o) == revealed_on_board + n_coll,
           WHERE "seat %d: %d maps carry a colour/symbol, want %d",
           WHERE_ARGS, i, count_kind_maps(o), revealed_on_board + n_coll);
    if (st->over) {
        const msgpack_object *sc = maat_msg_get(o, "scores");
        maat_score s[MAAT_PMX_MAX_SEATS];
        R->scores(g, s);
        int bad = !sc || sc->type != MSGPACK_OBJECT_ARRAY ||
                  (int)sc->via.array.size != st->seats;
        for (int j = 0; !bad && j < st->seats; j++) {
            const msgpack_object *e = &sc->via.array.ptr[j];
            const msgpack_object *parts = maat_msg_get(e, "parts");
            bad |= !as_int(maat_msg_get(e, "total"), &v) || v != s[j].total;
            bad |= !as_int(maat_msg_get(e, "rank"), &v) || v != s[j].rank;
            for (int k = 0; k < 4; k++)
                bad |= !as_int(maat_msg_get(parts, R->score_parts[k]), &v) ||
                       v != s[j].part[k];
        }
        CHECK1(!bad, WHERE "the final scores in the observation are wrong",
               WHERE_ARGS);
    }
    msgpack_unpacked_destroy(&up);
}

static const char *const remove_keys[] = {"event", "seat", "x", "y",
                                          "z", "colour", "symbol", "slide"};
static const char *const reveal_keys[] = {"event", "x", "y", "z",
                                          "colour", "symbol"};

/* The events of one step: pre -> post by `mover` removing `a`, with the
 * oracle's slide axis. */
static void check_events(const maat_game *g, const maat_pmx_state *pre,
                         const maat_events *ev, size_t from, int mover,
                         const maat_action *a, int axis)
{
    const maat_pmx_state *st = maat_pmx_state_of(g);
    int removes = 0, reveals = 0, ends = 0, newly = 0;
    int revealed_by_event[MAAT_PMX_CUBES] = {0};
    for (size_t k = from; k < ev->count; k++) {
        const maat_event *e = &ev->items[k];
        CHECK1(e->visible_to == MAAT_ALL_SEATS, WHERE "event %d not public",
               WHERE_ARGS, e->kind);
        msgpack_sbuffer_clear(&sb);
        CHECK1(R->encode_event(g, e, &pk) == MAAT_OK,
               WHERE "encode_event failed", WHERE_ARGS);
        msgpack_unpacked up;
        maat_error err = {0, ""};
        if (maat_msg_unpack(sb.data, sb.size, &up, &err) != MAAT_OK) {
            CHECK1(0, WHERE "an event does not decode: %s", WHERE_ARGS,
                   err.msg);
            msgpack_unpacked_destroy(&up);
            continue;
        }
        const msgpack_object *o = &up.data;
        int x = -1, y = -1, z = -1, v;
        int has_place = as_int(maat_msg_get(o, "x"), &x) &&
                        as_int(maat_msg_get(o, "y"), &y) &&
                        as_int(maat_msg_get(o, "z"), &z);
        switch (e->kind) {
        case MAAT_PMX_EV_REMOVE: {
            removes++;
            CHECK1(k == from, WHERE "remove is not the first event",
                   WHERE_ARGS);
            int p = maat_pmx_place(a->arg[0], a->arg[1], a->arg[2]);
            int cube = pre->cube[p];
            static const char *const axes[3] = {"x", "y", "z"};
            const msgpack_object *sl = maat_msg_get(o, "slide");
            CHECK1(keys_exactly(o, remove_keys, 8) &&
                       maat_msg_str_eq(maat_msg_get(o, "event"), "remove") &&
                       as_int(maat_msg_get(o, "seat"), &v) && v == mover &&
                       has_place && x == a->arg[0] && y == a->arg[1] &&
                       z == a->arg[2] && kind_of(o) == kind_id(cube) &&
                       (axis < 0 ? sl && sl->type == MSGPACK_OBJECT_NIL
                                 : maat_msg_str_eq(sl, axes[axis])),
                   WHERE "the remove event is wrong", WHERE_ARGS);
            CHECK1(pre->revealed[cube], WHERE "a removed cube was never "
                   "revealed", WHERE_ARGS);
            CHECK1(count_kind_maps(o) == 1, WHERE "remove event: extra "
                   "kinds", WHERE_ARGS);
            break;
        }
        case MAAT_PMX_EV_REVEAL: {
            reveals++;
            int p = has_place ? maat_pmx_place(x, y, z) : -1;
            int c = p >= 0 ? st->cube[p] : -1;
            int ok = keys_exactly(o, reveal_keys, 6) &&
                     maat_msg_str_eq(maat_msg_get(o, "event"), "reveal") &&
                     c >= 0 && !pre->revealed[c] && st->revealed[c] &&
                     kind_of(o) == kind_id(c) && !revealed_by_event[c]++;
            CHECK1(ok, WHERE "a reveal event is wrong (place %d cube %d)",
                   WHERE_ARGS, p, c);
            break;
        }
        case MAAT_PMX_EV_END:
            ends++;
            CHECK1(k + 1 == ev->count && o->via.map.size == 1 &&
                       maat_msg_str_eq(maat_msg_get(o, "event"), "end"),
                   WHERE "the end event is not last or not {event: end}",
                   WHERE_ARGS);
            break;
        default:
            CHECK1(0, WHERE "unknown event kind %d", WHERE_ARGS, e->kind);
        }
        msgpack_unpacked_destroy(&up);
    }
    for (int c = 0; c < MAAT_PMX_CUBES; c++)
        newly += st->revealed[c] && !pre->revealed[c];
    CHECK1(removes == 1, WHERE "%d remove events", WHERE_ARGS, removes);
    CHECK1(reveals == newly, WHERE "%d reveal events for %d newly revealed "
           "cubes", WHERE_ARGS, reveals, newly);
    CHECK1(ends == (st->over ? 1 : 0), WHERE "%d end events, over %d",
           WHERE_ARGS, ends, st->over);
}

/* ---- the bot side -------------------------------------------------------- */

static long samples_compared, samples_differing;

static void check_samples(const maat_game *g, maat_view *v, int seat,
                          maat_rng *rng)
{
    const maat_pmx_state *st = maat_pmx_state_of(g);
    msgpack_sbuffer want, got;
    msgpack_sbuffer_init(&want);
    msgpack_sbuffer_init(&got);
    viewfeed_obs(R, g, seat, &want);
    maat_action la[64], lb[64];
    int na = R->legal_actions(g, la, 64);
    int8_t first[MAAT_PMX_PLACES];
    int hidden_kinds = 0, seen_kind[20] = {0};
    for (int p = 0; p < MAAT_PMX_PLACES; p++) {
        int c = st->cube[p];
        if (c >= 0 && !st->revealed[c] && !seen_kind[kind_id(c)]++)
            hidden_kinds++;
    }
    for (int k = 0; k < SAMPLES; k++) {
        maat_error err = {0, ""};
        maat_game *d = R->determinize(v, rng, &err);
        CHECK1(d != NULL, WHERE "seat %d: determinize failed: %s",
               WHERE_ARGS, seat, err.msg);
        if (!d)
            continue;
        const maat_pmx_state *ds = maat_pmx_state_of(d);
        viewfeed_obs(R, d, seat, &got);
        CHECK1(got.size == want.size &&
                   memcmp(got.data, want.data, got.size) == 0,
               WHERE "seat %d: the sample's observation differs",
               WHERE_ARGS, seat);
        CHECK1(conserved(ds), WHERE "seat %d: a sample loses cubes",
               WHERE_ARGS, seat);
        CHECK1(rests(ds) && revealed_ok(ds), WHERE "seat %d: a sample is "
               "not a reachable position", WHERE_ARGS, seat);
        maat_decision da = R->decision(g), db = R->decision(d);
        CHECK1(da.seat == db.seat && da.kind == db.kind,
               WHERE "seat %d: the sample's decision differs", WHERE_ARGS,
               seat);
        int nb = R->legal_actions(d, lb, 64);
        CHECK1(na == nb && memcmp(la, lb, sizeof la[0] * (size_t)
                                  (na < 64 ? na : 64)) == 0,
               WHERE "seat %d: the sample's legal actions differ (%d vs %d)",
               WHERE_ARGS, seat, nb, na);
        if (nb > 0) {
            maat_game *c = R->copy(d);
            CHECK1(R->apply(c, &lb[k % nb], NULL, &err) == MAAT_OK,
                   WHERE "seat %d: a sample refuses a legal action: %s",
                   WHERE_ARGS, seat, err.msg);
            R->destroy(&c);
        }
        if (k == 0) {
            memcpy(first, ds->cube, sizeof first);
        } else if (hidden_kinds >= 2) {
            samples_compared++;
            samples_differing += memcmp(first, ds->cube, sizeof first) != 0;
        }
        R->destroy(&d);
    }
    msgpack_sbuffer_destroy(&want);
    msgpack_sbuffer_destroy(&got);
}

/* ---- one game ------------------------------------------------------------ */

typedef struct {
    maat_action act[64];
    int n;
} action_log;

static int listed(const maat_action *l, int n, int x, int y, int z)
{
    for (int k = 0; k < n; k++)
        if (l[k].arg[0] == x && l[k].arg[1] == y && l[k].arg[2] == z)
            return 1;
    return 0;
}

static void check_state(const maat_game *g)
{
    const maat_pmx_state *st = maat_pmx_state_of(g);
    CHECK1(conserved(st), WHERE "cubes lost or duplicated", WHERE_ARGS);
    CHECK1(rests(st), WHERE "a cube does not rest on the places below it "
           "(or the bottom is not full)", WHERE_ARGS);
    CHECK1(revealed_ok(st), WHERE "revealed is not 'shows a face'",
           WHERE_ARGS);
    CHECK1(st->turn == 56 - n_on_board(st), WHERE "turn %d with %d cubes",
           WHERE_ARGS, st->turn, n_on_board(st));
    CHECK1(st->over || st->to_move == st->turn % st->seats,
           WHERE "to_move %d at turn %d", WHERE_ARGS, st->to_move, st->turn);
}

static void play(int seats, uint64_t seed, int full, int det,
                 maat_game *scratch, maat_events *ev, action_log *log,
                 maat_game **out)
{
    maat_error err = {0, ""};
    at.seats = seats;
    at.seed = (unsigned long long)seed;
    at.step = 0;
    maat_game *g = R->game_new(setup, SEED(seed), seats, ev, &err);
    CHECK1(g != NULL, WHERE "game_new: %s", WHERE_ARGS, err.msg);
    if (!g)
        return;
    maat_rng rng, junk, det_rng;
    maat_rng_seed(&rng, SEED(seed ^ 0x5eedULL));
    maat_rng_seed(&junk, SEED(seed ^ 0xbadULL));
    maat_rng_seed(&det_rng, SEED(seed ^ 0xde7ULL));
    maat_view *v[MAAT_PMX_MAX_SEATS] = {0};
    check_state(g);
    for (int i = 0; full && i < seats; i++)
        check_observation(g, i);
    if (det)
        for (int i = 0; i < seats; i++) {
            v[i] = R->view_new(bot_setup, i, seats);
            maat_game *none = R->determinize(v[i], &det_rng, &err);
            CHECK1(none == NULL, WHERE "determinize without an observation",
                   WHERE_ARGS);
            R->destroy(&none);
            CHECK1(viewfeed(R, v[i], g, ev, 0, i, &err) == MAAT_OK,
                   WHERE "seat %d: view_update at the start: %s", WHERE_ARGS,
                   i, err.msg);
            check_samples(g, v[i], i, &det_rng);
        }
    log->n = 0;
    maat_action list[64];
    while (!R->is_over(g)) {
        at.step++;
        const maat_pmx_state *st = maat_pmx_state_of(g);
        int n = R->legal_actions(g, list, 64);
        CHECK1(n >= 1 && n <= 64, WHERE "%d legal actions", WHERE_ARGS, n);
        if (n < 1 || n > 64)
            break;
        /* legal_actions = the oracle's removable set */
        int oracle = 0, agree = 1;
        for (int p = 0; p < MAAT_PMX_PLACES; p++) {
            int x, y, z;
            maat_pmx_coords(p, &x, &y, &z);
            int o = o_removable(st, x, y, z);
            oracle += o;
            agree &= o == listed(list, n, x, y, z);
            agree &= o == maat_pmx_removable(st, p);
        }
        CHECK1(agree && oracle == n, WHERE "legal actions (%d) differ from "
               "the rules page's (%d)", WHERE_ARGS, n, oracle);
        /* every legal action applies, to the oracle's position */
        for (int k = 0; k < n; k++) {
            *maat_pmx_state_mut(scratch) = *st;
            int rc = R->apply(scratch, &list[k], NULL, &err);
            CHECK1(rc == MAAT_OK, WHERE "legal action %d of %d refused: %s",
                   WHERE_ARGS, k, n, err.msg);
            maat_pmx_state exp = *st;
            o_remove(&exp, list[k].arg[0], list[k].arg[1], list[k].arg[2]);
            CHECK1(memcmp(exp.cube, maat_pmx_state_of(scratch)->cube,
                          sizeof exp.cube) == 0,
                   WHERE "removing (%d,%d,%d) gave another position than "
                   "the rules page's cascade", WHERE_ARGS, list[k].arg[0],
                   list[k].arg[1], list[k].arg[2]);
        }
        /* random illegal actions are refused, nothing changes */
        for (int t = 0; t < 3; t++) {
            maat_action bad = {MAAT_PMX_REMOVE, {-1, -1, -1, -1, -1, -1, -1}};
            if (maat_rng_below(&junk, 10) == 0)
                bad.kind = (int)maat_rng_below(&junk, 5) + 1;
            for (int d = 0; d < 3; d++)
                bad.arg[d] = (int)maat_rng_below(&junk, 8) - 1;
            if (bad.kind == MAAT_PMX_REMOVE &&
                listed(list, n, bad.arg[0], bad.arg[1], bad.arg[2]))
                continue;
            maat_pmx_state before = *st;
            size_t nev = ev->count;
            int rc = R->apply(g, &bad, ev, &err);
            CHECK1(rc == MAAT_EILLEGAL && err.msg[0],
                   WHERE "illegal %d(%d,%d,%d) gave %d", WHERE_ARGS, bad.kind,
                   bad.arg[0], bad.arg[1], bad.arg[2], rc);
            CHECK1(memcmp(&before, st, sizeof before) == 0 &&
                       ev->count == nev,
                   WHERE "illegal %d(%d,%d,%d) changed the game", WHERE_ARGS,
                   bad.kind, bad.arg[0], bad.arg[1], bad.arg[2]);
        }
        maat_action a;
        CHECK1(maat_policy_random(R, g, &rng, &a) == MAAT_OK,
               WHERE "policy found no action", WHERE_ARGS);
        if (log->n < 64)
            log->act[log->n++] = a;
        maat_pmx_state pre = *st, exp = *st;
        int axis = o_remove(&exp, a.arg[0], a.arg[1], a.arg[2]);
        int mover = st->to_move;
        size_t from = ev->count;
        int rc = R->apply(g, &a, ev, &err);
        CHECK1(rc == MAAT_OK, WHERE "chosen legal action refused: %s",
               WHERE_ARGS, err.msg);
        if (rc)
            break;
        CHECK1(st->collected[mover][pre.cube[maat_pmx_place(
                   a.arg[0], a.arg[1], a.arg[2])]],
               WHERE "the mover did not collect the cube", WHERE_ARGS);
        for (int c = 0; c < MAAT_PMX_CUBES; c++)
            CHECK1(!pre.revealed[c] || st->revealed[c],
                   WHERE "cube %d was un-revealed", WHERE_ARGS, c);
        check_state(g);
        check_events(g, &pre, ev, from, mover, &a, axis);
        for (int i = 0; full && i < seats; i++)
            check_observation(g, i);
        if (det)
            for (int i = 0; i < seats; i++) {
                CHECK1(viewfeed(R, v[i], g, ev, from, i, &err) == MAAT_OK,
                       WHERE "seat %d: view_update: %s", WHERE_ARGS, i,
                       err.msg);
                check_samples(g, v[i], i, &det_rng);
            }
    }
    for (int i = 0; i < seats; i++)
        R->view_destroy(&v[i]);
    *out = g;
}

static void end_state(const maat_game *g, int seats)
{
    const maat_pmx_state *st = maat_pmx_state_of(g);
    int bottom = 0, others = 0;
    for (int p = 0; p < MAAT_PMX_PLACES; p++) {
        int x, y, z;
        maat_pmx_coords(p, &x, &y, &z);
        if (st->cube[p] >= 0) {
            if (x + y + z == 5)
                bottom++;
            else
                others++;
        }
    }
    CHECK1(R->is_over(g) && bottom == 21 && others == 0,
           WHERE "ended with %d bottom and %d other cubes (over %d)",
           WHERE_ARGS, bottom, others, R->is_over(g));
    CHECK1(st->turn == 35, WHERE "%d removals, want 35", WHERE_ARGS,
           st->turn);
    CHECK1(R->decision(g).seat == -1, WHERE "a decision after the end",
           WHERE_ARGS);
    maat_action l[4];
    CHECK1(R->legal_actions(g, l, 4) == 0, WHERE "legal actions after the "
           "end", WHERE_ARGS);
    int n = 0;
    for (int s = 0; s < seats; s++)
        n += st->n_collected[s];
    CHECK1(n == 35, WHERE "%d cubes collected", WHERE_ARGS, n);
    maat_score sc[MAAT_PMX_MAX_SEATS];
    R->scores(g, sc);
    int parts[MAAT_PMX_MAX_SEATS][4], total[MAAT_PMX_MAX_SEATS];
    o_score(st, parts, total);
    for (int i = 0; i < seats; i++) {
        int sum = 0, better = 0;
        for (int k = 0; k < 4; k++) {
            sum += sc[i].part[k];
            CHECK1(sc[i].part[k] == parts[i][k],
                   WHERE "seat %d part %s %d, the rules page says %d",
                   WHERE_ARGS, i, R->score_parts[k], sc[i].part[k],
                   parts[i][k]);
        }
        for (int j = 0; j < seats; j++)
            better += sc[j].total > sc[i].total;
        CHECK1(sc[i].total == sum && sc[i].total == total[i] &&
                   sc[i].rank == 1 + better,
               WHERE "seat %d: total %d (parts %d, oracle %d) rank %d",
               WHERE_ARGS, i, sc[i].total, sum, total[i], sc[i].rank);
    }
}

static void replay(int seats, uint64_t seed, const action_log *log,
                   const maat_game *orig, const maat_events *orig_ev)
{
    maat_events ev = {0};
    maat_error err = {0, ""};
    maat_game *g = R->game_new(setup, SEED(seed), seats, &ev, &err);
    for (int k = 0; g && k < log->n; k++)
        CHECK1(R->apply(g, &log->act[k], &ev, &err) == MAAT_OK,
               "replay step %d refused: %s", k, err.msg);
    CHECK1(g && memcmp(maat_pmx_state_of(g), maat_pmx_state_of(orig),
                       sizeof(maat_pmx_state)) == 0,
           "%d seats seed %llu: the replay ended in another state", seats,
           (unsigned long long)seed);
    /* the illegal probes appended nothing, so the streams match */
    CHECK1(ev.count == orig_ev->count &&
               memcmp(ev.items, orig_ev->items,
                      ev.count * sizeof(maat_event)) == 0,
           "%d seats seed %llu: the replay gave other events", seats,
           (unsigned long long)seed);
    maat_game *c = R->copy(orig);
    CHECK1(c && memcmp(maat_pmx_state_of(c), maat_pmx_state_of(orig),
                       sizeof(maat_pmx_state)) == 0,
           "copy differs from its original");
    R->destroy(&c);
    R->destroy(&g);
    maat_events_free(&ev);
}

/* ---- random positions: the end is "only the bottom layer" ---------------- */

static void random_positions(int count)
{
    maat_error err = {0, ""};
    maat_game *g = R->game_new(setup, SEED(1), 3, NULL, &err);
    if (!g)
        return;
    maat_pmx_state *st = maat_pmx_state_mut(g);
    maat_rng rng;
    maat_rng_seed(&rng, SEED(0x90517105ULL));
    int wrong = 0, ends_above = 0;
    for (int k = 0; k < count; k++) {
        /* a random full pyramid, then peel random cubes that nothing
         * rests on (3 visible faces, above the bottom) */
        int order[MAAT_PMX_CUBES];
        for (int i = 0; i < MAAT_PMX_CUBES; i++)
            order[i] = i;
        maat_rng_shuffle_int(&rng, order, MAAT_PMX_CUBES);
        memset(st->revealed, 0, sizeof st->revealed);
        memset(st->collected, 0, sizeof st->collected);
        memset(st->n_collected, 0, sizeof st->n_collected);
        for (int p = 0; p < MAAT_PMX_PLACES; p++)
            st->cube[p] = (int8_t)order[p];
        int peel = (int)maat_rng_below(&rng, 36);
        for (int t = 0; t < peel; t++) {
            int cand[MAAT_PMX_PLACES], nc = 0;
            for (int p = 0; p < MAAT_PMX_PLACES; p++) {
                int x, y, z;
                maat_pmx_coords(p, &x, &y, &z);
                if (st->cube[p] >= 0 && x + y + z < 5 &&
                    o_faces(st, x, y, z) == 3)
                    cand[nc++] = p;
            }
            if (!nc)
                break;
            int p = cand[maat_rng_below(&rng, (uint32_t)nc)];
            st->collected[0][st->cube[p]] = 1;
            st->n_collected[0]++;
            st->cube[p] = -1;
        }
        /* half the time, move the cobras onto the surface (where they
         * block most) by swapping them with random surface cubes */
        if (maat_rng_below(&rng, 2)) {
            for (int c = 52; c < 56; c++) {
                int surf[MAAT_PMX_PLACES], ns = 0, at_c = -1;
                for (int p = 0; p < MAAT_PMX_PLACES; p++) {
                    int x, y, z;
                    maat_pmx_coords(p, &x, &y, &z);
                    if (st->cube[p] == c)
                        at_c = p;
                    if (st->cube[p] >= 0 && o_faces(st, x, y, z) > 0)
                        surf[ns++] = p;
                }
                if (at_c < 0 || !ns)
                    continue;
                int q = surf[maat_rng_below(&rng, (uint32_t)ns)];
                int8_t tmp = st->cube[q];
                st->cube[q] = st->cube[at_c];
                st->cube[at_c] = tmp;
            }
        }
        maat_pmx_refresh(st);
        int above = n_on_board(st) - 21;
        wrong += !rests(st);
        if (st->over != (above == 0))
            ends_above++;
    }
    CHECK(wrong == 0, "random positions: %d do not rest (test bug)", wrong);
    CHECK(ends_above == 0, "random positions: %d of %d are over with cubes "
          "above the bottom, or not over with the bottom alone", ends_above,
          count);
    R->destroy(&g);
}

int main(int argc, char **argv)
{
    int games = argc > 1 ? atoi(argv[1]) : check_scaled(GAMES_PER_SEATS);
    maat_error err = {0, ""};
    setup = R->setup_new(NULL, &err);
    CHECK(setup != NULL, "setup_new: %s", err.msg);
    if (!setup)
        return check_done("pyramix_props");
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    /* the bot's setup: setup_decode of the welcome's bytes */
    R->setup_encode(setup, &pk);
    msgpack_unpacked su;
    if (maat_msg_unpack(sb.data, sb.size, &su, &err) == MAAT_OK)
        bot_setup = R->setup_decode(&su.data, &err);
    msgpack_unpacked_destroy(&su);
    CHECK(bot_setup != NULL, "setup_decode: %s", err.msg);
    if (!bot_setup)
        return check_done("pyramix_props");
    maat_game *scratch = R->game_new(setup, SEED(0), 4, NULL, &err);
    static action_log log;
    for (int seats = 2; seats <= 4; seats++) {
        int8_t first[2][MAAT_PMX_PLACES];
        memset(first, 0, sizeof first);
        for (int k = 0; k < games; k++) {
            uint64_t seed =
                2026000000ULL + (uint64_t)(seats * 100000 + k);
            maat_events ev = {0};
            maat_game *g = NULL;
            play(seats, seed, k < FULL_CHECK_GAMES, k < DET_GAMES, scratch, &ev,
                 &log, &g);
            if (!g)
                continue;
            end_state(g, seats);
            for (int i = 0; i < seats; i++) /* the final one, every game */
                check_observation(g, i);
            if (k % 10 == 0)
                replay(seats, seed, &log, g, &ev);
            if (k < 2) {
                /* the deal: replay the seed without actions */
                maat_game *d = R->game_new(setup, SEED(seed), seats, NULL, &err);
                if (d)
                    memcpy(first[k], maat_pmx_state_of(d)->cube,
                           sizeof first[k]);
                R->destroy(&d);
            }
            R->destroy(&g);
            maat_events_free(&ev);
        }
        CHECK(games < 2 || memcmp(first[0], first[1], sizeof first[0]),
              "%d seats: two seeds dealt the same pyramid", seats);
    }
    CHECK(samples_compared == 0 ||
              samples_differing * 4 > samples_compared,
          "determinize: only %ld of %ld sample pairs differ in hidden cubes",
          samples_differing, samples_compared);
    printf("determinize: %ld of %ld sample pairs differ\n", samples_differing,
           samples_compared);
    random_positions(RANDOM_POSITIONS);
    R->destroy(&scratch);
    msgpack_sbuffer_destroy(&sb);
    R->setup_destroy(&bot_setup);
    R->setup_destroy(&setup);
    return check_done("pyramix_props");
}
