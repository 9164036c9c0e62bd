/* test_pyramix_rules.c -- one test per rule of Pyramix, on hand-built
 * positions, every expected value worked out by hand from the rules page
 * (docs/rules/pyramix.md).
 *
 * Positions are built with maat_pmx_state_mut: a "full" layout (every
 * place occupied; the four cobras buried at the inner bottom places
 * (1,1,3), (1,3,1), (3,1,1), (1,2,2), every other place holding the
 * non-cobra ids 0..51 in place order), then cubes moved or taken away by
 * hand, then maat_pmx_refresh.  Every position is checked to rest on what
 * is below it (a cube at (x,y,z) needs (x+1,y,z), (x,y+1,z), (x,y,z+1)),
 * so the tests never rely on a position the rules cannot reach.
 *
 *  - geometry: 56 places, place <-> coords round trip, layer sizes
 *    1/3/6/10/15/21, outside places are -1; at the start (many seeds) the
 *    46 places with a zero coordinate are revealed, with one reveal event
 *    each, and the 10 inner ones are not;
 *  - visible faces: the up-neighbour in -x, -y, -z outside or empty; a
 *    full pyramid shows #zero-coordinates faces; 2-3 are needed;
 *  - the cascade: length 1 (with the newly exposed inner cube revealed and
 *    a reveal event naming its kind), length 2, length 5 along each axis,
 *    none when the removed cube showed 3 faces;
 *  - the tray rule on the corner and on an edge cube of the bottom layer;
 *  - the cobra rule: up and down neighbours, a hidden cobra, a cobra next
 *    to a cobra, same-layer cubes that do not touch;
 *  - the end: only the 21 bottom cubes left -> no legal removal, over,
 *    an "end" event, no decision, apply refused;
 *  - scoring: cobra clearing (face or edge: 1 or 2 axes, never 3), ankh
 *    majorities (exact points), a tied majority, 1/2/3/0 points, cobra
 *    neighbours, shared ranks;
 *  - illegal removals: MAAT_EILLEGAL, a message saying why, the state and
 *    the event list unchanged (memcmp);
 *  - the action's wire form (decode/encode) and the event encodings.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "maat/internal/msg.h"
#include "maat/internal/pyramix.h"

static const maat_rules *R = &maat_pyramix_rules;
static maat_setup *setup;

#define ANKH(c, k) (13 * (c) + (k))      /* k 0..7 */
#define CRANE(c, k) (13 * (c) + 8 + (k)) /* k 0..3 */
#define EYE(c) (13 * (c) + 12)
#define COBRA(k) (52 + (k)) /* k 0..3 */
enum { BLUE, PURPLE, ORANGE, GREEN };

static int P(int x, int y, int z)
{
    return maat_pmx_place(x, y, z);
}

static int zeros(int p)
{
    int x, y, z;
    maat_pmx_coords(p, &x, &y, &z);
    return (x == 0) + (y == 0) + (z == 0);
}

static int layer(int p)
{
    int x, y, z;
    maat_pmx_coords(p, &x, &y, &z);
    return x + y + z;
}

/* ---- building positions ---------------------------------------------- */

static maat_game *new_game(int seats)
{
    maat_error err = {0, ""};
    maat_game *g = R->game_new(setup, SEED(1), seats, NULL, &err);
    CHECK(g != NULL, "game_new(%d seats): %s", seats, err.msg);
    return g;
}

/* Nothing anywhere: no cube placed, revealed or collected. */
static void blank(maat_pmx_state *st)
{
    memset(st->cube, -1, sizeof st->cube);
    memset(st->revealed, 0, sizeof st->revealed);
    memset(st->collected, 0, sizeof st->collected);
    memset(st->n_collected, 0, sizeof st->n_collected);
    st->to_move = 0;
    st->turn = 0;
    st->over = 0;
}

/* Every place occupied; cobras buried at four inner bottom places. */
static void full(maat_pmx_state *st)
{
    blank(st);
    st->cube[P(1, 1, 3)] = COBRA(0);
    st->cube[P(1, 3, 1)] = COBRA(1);
    st->cube[P(3, 1, 1)] = COBRA(2);
    st->cube[P(1, 2, 2)] = COBRA(3);
    int id = 0;
    for (int p = 0; p < MAAT_PMX_PLACES; p++)
        if (st->cube[p] < 0)
            st->cube[p] = (int8_t)id++;
}

/* Only the 21 bottom places, holding the non-cobra ids 0..20. */
static void bottom_only(maat_pmx_state *st)
{
    full(st);
    int id = 0;
    for (int p = 0; p < MAAT_PMX_PLACES; p++)
        st->cube[p] = layer(p) == 5 ? (int8_t)id++ : -1;
}

/* Put cube `id` at place p; whatever held id before (on the board) gets
 * p's old cube, so ids stay unique. */
static void put(maat_pmx_state *st, int p, int id)
{
    for (int q = 0; q < MAAT_PMX_PLACES; q++)
        if (st->cube[q] == id) {
            st->cube[q] = st->cube[p];
            break;
        }
    st->cube[p] = (int8_t)id;
}

/* A free non-cobra id (on the board nowhere) for filling a place. */
static int free_id(const maat_pmx_state *st)
{
    for (int id = 0; id < 52; id++) {
        int used = 0;
        for (int q = 0; q < MAAT_PMX_PLACES; q++)
            used |= st->cube[q] == id;
        for (int s = 0; s < MAAT_PMX_MAX_SEATS; s++)
            used |= st->collected[s][id];
        if (!used)
            return id;
    }
    return -1;
}

static void add(maat_pmx_state *st, int p)
{
    if (st->cube[p] < 0)
        st->cube[p] = (int8_t)free_id(st);
}

/* Every occupied place above the bottom rests on its three down-places. */
static int rests_ok(const maat_pmx_state *st)
{
    for (int p = 0; p < MAAT_PMX_PLACES; p++) {
        int x, y, z;
        maat_pmx_coords(p, &x, &y, &z);
        if (st->cube[p] < 0 || x + y + z == 5)
            continue;
        if (st->cube[P(x + 1, y, z)] < 0 || st->cube[P(x, y + 1, z)] < 0 ||
            st->cube[P(x, y, z + 1)] < 0)
            return 0;
    }
    return 1;
}

static int count_cubes(const maat_pmx_state *st)
{
    int n = 0;
    for (int p = 0; p < MAAT_PMX_PLACES; p++)
        n += st->cube[p] >= 0;
    return n;
}

static int remove_at(maat_game *g, int x, int y, int z, maat_events *ev,
                     maat_error *err)
{
    maat_action a = {MAAT_PMX_REMOVE, {x, y, z, -1, -1, -1, -1}};
    return R->apply(g, &a, ev, err);
}

static int is_legal(const maat_game *g, int x, int y, int z)
{
    maat_action list[64];
    int n = R->legal_actions(g, list, 64);
    for (int k = 0; k < n && k < 64; k++)
        if (list[k].arg[0] == x && list[k].arg[1] == y && list[k].arg[2] == z)
            return 1;
    return 0;
}

static int n_legal(const maat_game *g)
{
    maat_action list[64];
    return R->legal_actions(g, list, 64);
}

/* The action is refused with MAAT_EILLEGAL and a message containing `why`;
 * the state and the event list are untouched. */
static void refused(maat_game *g, int x, int y, int z, const char *why)
{
    maat_events ev = {0};
    maat_error err = {0, ""};
    maat_pmx_state before = *maat_pmx_state_of(g);
    int rc = remove_at(g, x, y, z, &ev, &err);
    CHECK(rc == MAAT_EILLEGAL, "remove (%d,%d,%d): rc %d, want EILLEGAL", x,
          y, z, rc);
    CHECK(strstr(err.msg, why) != NULL,
          "remove (%d,%d,%d): message '%s' does not say '%s'", x, y, z,
          err.msg, why);
    CHECK(memcmp(&before, maat_pmx_state_of(g), sizeof before) == 0,
          "remove (%d,%d,%d): a refused action changed the state", x, y, z);
    CHECK(ev.count == 0, "remove (%d,%d,%d): a refused action emitted %zu "
          "events", x, y, z, ev.count);
    maat_events_free(&ev);
}

/* ---- msgpack helpers --------------------------------------------------- */

static msgpack_sbuffer sb;
static msgpack_packer pk;

static int unpack_event(const maat_game *g, const maat_event *e,
                        msgpack_unpacked *up)
{
    maat_error err = {0, ""};
    msgpack_sbuffer_clear(&sb);
    if (R->encode_event(g, e, &pk) != MAAT_OK)
        return 0;
    return maat_msg_unpack(sb.data, sb.size, up, &err) == MAAT_OK;
}

static int get_int(const msgpack_object *o, const char *key)
{
    int64_t v;
    maat_error err;
    return maat_msg_get_int(o, key, -1000, 1000, &v, &err) ? -999 : (int)v;
}

/* The event at index k is a reveal of cube `cube` at (x,y,z), and its
 * encoding names the place and the cube's colour and symbol. */
static void check_reveal(const maat_game *g, const maat_event *e, int x,
                         int y, int z, int cube)
{
    CHECK(e->kind == MAAT_PMX_EV_REVEAL && e->arg[0] == P(x, y, z) &&
              e->arg[1] == cube && e->visible_to == MAAT_ALL_SEATS,
          "want a public reveal of cube %d at (%d,%d,%d): kind %d place %d "
          "cube %d", cube, x, y, z, e->kind, e->arg[0], e->arg[1]);
    msgpack_unpacked up;
    int ok = unpack_event(g, e, &up);
    CHECK(ok, "the reveal event does not encode");
    if (ok) {
        const msgpack_object *o = &up.data;
        CHECK(maat_msg_str_eq(maat_msg_get(o, "event"), "reveal") &&
                  get_int(o, "x") == x && get_int(o, "y") == y &&
                  get_int(o, "z") == z &&
                  maat_msg_str_eq(maat_msg_get(o, "colour"),
                                  maat_pmx_colour_names[maat_pmx_cube_colour(
                                      cube)]) &&
                  maat_msg_str_eq(maat_msg_get(o, "symbol"),
                                  maat_pmx_symbol_names[maat_pmx_cube_symbol(
                                      cube)]) &&
                  o->via.map.size == 6,
              "the reveal event of (%d,%d,%d) is not {event, x, y, z, "
              "colour %s, symbol %s}", x, y, z,
              maat_pmx_colour_names[maat_pmx_cube_colour(cube)],
              maat_pmx_symbol_names[maat_pmx_cube_symbol(cube)]);
    }
    msgpack_unpacked_destroy(&up);
}

/* The remove event: seat, place, cube, slide axis (-1 none). */
static void check_remove_event(const maat_game *g, const maat_event *e,
                               int seat, int x, int y, int z, int cube,
                               int axis)
{
    static const char *const axes[3] = {"x", "y", "z"};
    CHECK(e->kind == MAAT_PMX_EV_REMOVE && e->seat == seat &&
              e->arg[0] == P(x, y, z) && e->arg[1] == cube &&
              e->arg[2] == axis && e->visible_to == MAAT_ALL_SEATS,
          "want remove by %d of cube %d at (%d,%d,%d) slide %d: kind %d "
          "seat %d place %d cube %d slide %d", seat, cube, x, y, z, axis,
          e->kind, e->seat, e->arg[0], e->arg[1], e->arg[2]);
    msgpack_unpacked up;
    int ok = unpack_event(g, e, &up);
    CHECK(ok, "the remove event does not encode");
    if (ok) {
        const msgpack_object *o = &up.data;
        const msgpack_object *s = maat_msg_get(o, "slide");
        int slide_ok = axis < 0 ? s && s->type == MSGPACK_OBJECT_NIL
                                : maat_msg_str_eq(s, axes[axis]);
        CHECK(maat_msg_str_eq(maat_msg_get(o, "event"), "remove") &&
                  get_int(o, "seat") == seat && get_int(o, "x") == x &&
                  get_int(o, "y") == y && get_int(o, "z") == z &&
                  maat_msg_str_eq(maat_msg_get(o, "colour"),
                                  maat_pmx_colour_names[maat_pmx_cube_colour(
                                      cube)]) &&
                  maat_msg_str_eq(maat_msg_get(o, "symbol"),
                                  maat_pmx_symbol_names[maat_pmx_cube_symbol(
                                      cube)]) &&
                  slide_ok && o->via.map.size == 8,
              "the remove event at (%d,%d,%d) is not encoded as expected "
              "(slide %s)", x, y, z, axis < 0 ? "nil" : axes[axis]);
    }
    msgpack_unpacked_destroy(&up);
}

/* Does seat's observation show a colour/symbol for place p? -1 when the
 * place is not listed. */
static int obs_shows(const maat_game *g, int seat, int p)
{
    int x, y, z, shown = -1;
    maat_pmx_coords(p, &x, &y, &z);
    msgpack_sbuffer_clear(&sb);
    R->encode_observation(g, seat, &pk);
    msgpack_unpacked up;
    maat_error err = {0, ""};
    if (maat_msg_unpack(sb.data, sb.size, &up, &err) == MAAT_OK) {
        const msgpack_object *cubes = maat_msg_get(&up.data, "cubes");
        for (uint32_t i = 0; cubes && cubes->type == MSGPACK_OBJECT_ARRAY &&
                             i < cubes->via.array.size;
             i++) {
            const msgpack_object *c = &cubes->via.array.ptr[i];
            if (get_int(c, "x") == x && get_int(c, "y") == y &&
                get_int(c, "z") == z)
                shown = maat_msg_get(c, "symbol") != NULL ||
                        maat_msg_get(c, "colour") != NULL;
        }
    }
    msgpack_unpacked_destroy(&up);
    return shown;
}

/* ---- geometry ---------------------------------------------------------- */

static void test_geometry(void)
{
    int seen[MAAT_PMX_PLACES] = {0}, n = 0, per_layer[6] = {0};
    for (int x = -2; x <= 7; x++)
        for (int y = -2; y <= 7; y++)
            for (int z = -2; z <= 7; z++) {
                int p = maat_pmx_place(x, y, z);
                int inside = x >= 0 && y >= 0 && z >= 0 && x + y + z <= 5;
                if (!inside) {
                    CHECK(p == -1, "(%d,%d,%d) is outside but is place %d",
                          x, y, z, p);
                    continue;
                }
                CHECK(p >= 0 && p < MAAT_PMX_PLACES,
                      "(%d,%d,%d) -> place %d", x, y, z, p);
                if (p < 0 || p >= MAAT_PMX_PLACES)
                    continue;
                CHECK(!seen[p], "place %d given twice", p);
                seen[p] = 1;
                n++;
                per_layer[x + y + z]++;
                int a, b, c;
                maat_pmx_coords(p, &a, &b, &c);
                CHECK(a == x && b == y && c == z,
                      "place %d: coords (%d,%d,%d), want (%d,%d,%d)", p, a,
                      b, c, x, y, z);
            }
    CHECK(n == 56, "%d places, want 56", n);
    static const int want[6] = {1, 3, 6, 10, 15, 21};
    for (int l = 0; l < 6; l++)
        CHECK(per_layer[l] == want[l], "layer %d has %d places, want %d", l,
              per_layer[l], want[l]);
    int zero = 0;
    for (int p = 0; p < MAAT_PMX_PLACES; p++)
        zero += zeros(p) > 0;
    CHECK(zero == 46, "%d places with a zero coordinate, want 46", zero);

    /* cube ids */
    for (int c = 0; c < 4; c++)
        for (int k = 0; k < 13; k++) {
            int id = 13 * c + k;
            int sym = k < 8 ? MAAT_PMX_ANKH : k < 12 ? MAAT_PMX_CRANE
                                                     : MAAT_PMX_EYE;
            CHECK(maat_pmx_cube_colour(id) == c &&
                      maat_pmx_cube_symbol(id) == sym,
                  "cube %d: colour %d symbol %d", id,
                  maat_pmx_cube_colour(id), maat_pmx_cube_symbol(id));
        }
    for (int id = 52; id < 56; id++)
        CHECK(maat_pmx_cube_colour(id) == MAAT_PMX_NO_COLOUR &&
                  maat_pmx_cube_symbol(id) == MAAT_PMX_COBRA,
              "cube %d is not a colourless cobra", id);

    /* the start, over many seeds */
    maat_error err = {0, ""};
    int bad_reveal = 0, bad_events = 0, bad_cubes = 0, same = 0;
    int8_t first[MAAT_PMX_PLACES];
    for (uint64_t seed = 1; seed <= 300; seed++) {
        maat_events ev = {0};
        int seats = 2 + (int)(seed % 3);
        maat_game *g = R->game_new(setup, SEED(seed), seats, &ev, &err);
        if (!g) {
            CHECK(0, "game_new seed %llu: %s", (unsigned long long)seed,
                  err.msg);
            continue;
        }
        const maat_pmx_state *st = maat_pmx_state_of(g);
        int count[MAAT_PMX_CUBES] = {0};
        for (int p = 0; p < MAAT_PMX_PLACES; p++) {
            int c = st->cube[p];
            if (c < 0 || c >= MAAT_PMX_CUBES) {
                bad_cubes++;
                continue;
            }
            count[c]++;
            bad_reveal += st->revealed[c] != (zeros(p) > 0);
        }
        for (int c = 0; c < MAAT_PMX_CUBES; c++)
            bad_cubes += count[c] != 1;
        int reveals = 0;
        for (size_t k = 0; k < ev.count; k++) {
            const maat_event *e = &ev.items[k];
            if (e->kind != MAAT_PMX_EV_REVEAL) {
                bad_events++;
                continue;
            }
            reveals++;
            bad_events += e->arg[0] < 0 || e->arg[0] >= MAAT_PMX_PLACES ||
                          zeros(e->arg[0]) == 0 ||
                          st->cube[e->arg[0]] != e->arg[1] ||
                          e->visible_to != MAAT_ALL_SEATS;
        }
        bad_events += reveals != 46;
        CHECK(!st->over && st->to_move == 0 && st->turn == 0 &&
                  st->seats == seats && R->decision(g).seat == 0,
              "seed %llu: the start is not seat 0's first turn",
              (unsigned long long)seed);
        /* the first removals: only places with >= 2 visible faces, i.e.
         * the apex and the 15 edge places of the full pyramid */
        maat_action list[64];
        int n = R->legal_actions(g, list, 64);
        CHECK(n >= 1 && n <= 16, "seed %llu: %d legal first removals",
              (unsigned long long)seed, n);
        for (int k = 0; k < n && k < 64; k++)
            CHECK(zeros(P(list[k].arg[0], list[k].arg[1], list[k].arg[2])) >=
                      2,
                  "seed %llu: (%d,%d,%d) is legal at the start",
                  (unsigned long long)seed, list[k].arg[0], list[k].arg[1],
                  list[k].arg[2]);
        if (seed == 1)
            memcpy(first, st->cube, sizeof first);
        else
            same += memcmp(first, st->cube, sizeof first) == 0;
        R->destroy(&g);
        maat_events_free(&ev);
    }
    CHECK(bad_cubes == 0, "%d cubes missing or twice at the start",
          bad_cubes);
    CHECK(bad_reveal == 0, "%d places revealed wrongly at the start (want "
          "exactly those with a zero coordinate)", bad_reveal);
    CHECK(bad_events == 0, "%d bad start events (want 46 public reveals of "
          "the outer places)", bad_events);
    CHECK(same == 0, "%d seeds dealt the same pyramid as seed 1", same);
}

/* ---- visible faces ------------------------------------------------------ */

static void test_faces(void)
{
    maat_game *g = new_game(2);
    if (!g)
        return;
    maat_pmx_state *st = maat_pmx_state_mut(g);
    full(st);
    maat_pmx_refresh(st);
    CHECK(rests_ok(st), "full layout does not rest");
    /* full pyramid: a face is visible exactly when that coordinate is 0 */
    for (int p = 0; p < MAAT_PMX_PLACES; p++) {
        int x, y, z;
        maat_pmx_coords(p, &x, &y, &z);
        CHECK(maat_pmx_visible_faces(st, p) == zeros(p),
              "full pyramid (%d,%d,%d): %d faces, want %d", x, y, z,
              maat_pmx_visible_faces(st, p), zeros(p));
        CHECK(st->revealed[st->cube[p]] == (zeros(p) > 0),
              "full pyramid (%d,%d,%d): revealed %d", x, y, z,
              st->revealed[st->cube[p]]);
    }
    CHECK(maat_pmx_visible_faces(st, P(0, 0, 0)) == 3, "apex");
    CHECK(maat_pmx_visible_faces(st, P(3, 0, 0)) == 2, "(3,0,0)");
    CHECK(maat_pmx_visible_faces(st, P(2, 2, 0)) == 1, "(2,2,0)");
    CHECK(maat_pmx_visible_faces(st, P(1, 1, 1)) == 0, "(1,1,1)");
    /* 16 legal: apex and the three edges, each 2 faces or 3 */
    CHECK(n_legal(g) == 16, "full pyramid: %d legal removals, want 16",
          n_legal(g));
    for (int k = 1; k <= 5; k++)
        CHECK(is_legal(g, k, 0, 0) && is_legal(g, 0, k, 0) &&
                  is_legal(g, 0, 0, k),
              "edge places at distance %d not legal", k);
    CHECK(is_legal(g, 0, 0, 0), "apex not legal");
    refused(g, 1, 1, 0, "fewer than 2 faces");
    refused(g, 2, 1, 2, "fewer than 2 faces");
    refused(g, 1, 1, 1, "fewer than 2 faces");

    /* an empty up-neighbour counts like outside: take the apex and (0,1,0) */
    st->cube[P(0, 0, 0)] = -1;
    st->cube[P(0, 1, 0)] = -1;
    maat_pmx_refresh(st);
    CHECK(rests_ok(st), "position does not rest");
    CHECK(maat_pmx_visible_faces(st, P(1, 0, 0)) == 3, "(1,0,0) under the "
          "removed apex shows %d faces", maat_pmx_visible_faces(st, P(1, 0, 0)));
    /* (1,1,0): -x (0,1,0) empty, -y (1,0,0) full, -z outside */
    CHECK(maat_pmx_visible_faces(st, P(1, 1, 0)) == 2, "(1,1,0) shows %d",
          maat_pmx_visible_faces(st, P(1, 1, 0)));
    CHECK(is_legal(g, 1, 1, 0), "(1,1,0) with 2 faces not legal");
    /* (0,1,1): -x outside, -y (0,0,1) full, -z (0,1,0) empty */
    CHECK(maat_pmx_visible_faces(st, P(0, 1, 1)) == 2, "(0,1,1) shows %d",
          maat_pmx_visible_faces(st, P(0, 1, 1)));
    /* (0,2,0): -x outside, -y (0,1,0) empty, -z outside */
    CHECK(maat_pmx_visible_faces(st, P(0, 2, 0)) == 3, "(0,2,0) shows %d",
          maat_pmx_visible_faces(st, P(0, 2, 0)));
    /* lower faces never count: a lone bottom cube shows 3, not more */
    bottom_only(st);
    maat_pmx_refresh(st);
    for (int p = 0; p < MAAT_PMX_PLACES; p++)
        if (st->cube[p] >= 0)
            CHECK(maat_pmx_visible_faces(st, p) == 3,
                  "a bottom cube alone shows %d faces",
                  maat_pmx_visible_faces(st, p));
    R->destroy(&g);
}

/* ---- the cascade -------------------------------------------------------- */

/* Length 1 and 2 along x, with an inner cube exposed (length 1). */
static void test_cascade_short(void)
{
    for (int len = 1; len <= 2; len++) {
        maat_game *g = new_game(2);
        if (!g)
            return;
        maat_pmx_state *st = maat_pmx_state_mut(g);
        full(st);
        /* (2,0,1) will show 2 faces: -y outside, -z (2,0,0) empty, -x
         * (1,0,1) full.  Its line along x: (1,0,1), then (0,0,1) when
         * len == 2 (empty when len == 1). */
        put(st, P(2, 0, 1), CRANE(BLUE, 0));
        put(st, P(1, 0, 1), EYE(PURPLE));
        put(st, P(0, 0, 1), ANKH(GREEN, 3));
        put(st, P(1, 1, 1), EYE(ORANGE)); /* hidden inside */
        st->cube[P(0, 0, 0)] = -1;
        st->cube[P(1, 0, 0)] = -1;
        st->cube[P(2, 0, 0)] = -1;
        if (len == 1)
            st->cube[P(0, 0, 1)] = -1;
        maat_pmx_refresh(st);
        CHECK(rests_ok(st), "cascade %d: position does not rest", len);
        CHECK(maat_pmx_visible_faces(st, P(2, 0, 1)) == 2,
              "cascade %d: (2,0,1) shows %d faces", len,
              maat_pmx_visible_faces(st, P(2, 0, 1)));
        CHECK(!st->revealed[EYE(ORANGE)] && obs_shows(g, 1, P(1, 1, 1)) == 0,
              "cascade %d: the inner cube is revealed before", len);
        int before = count_cubes(st);
        maat_events ev = {0};
        maat_error err = {0, ""};
        int rc = remove_at(g, 2, 0, 1, &ev, &err);
        CHECK(rc == MAAT_OK, "cascade %d: remove (2,0,1): %s", len, err.msg);
        CHECK(rests_ok(st), "cascade %d: after, does not rest", len);
        CHECK(count_cubes(st) == before - 1, "cascade %d: %d cubes, want %d",
              len, count_cubes(st), before - 1);
        CHECK(st->collected[0][CRANE(BLUE, 0)] && st->n_collected[0] == 1,
              "cascade %d: seat 0 did not collect the blue crane", len);
        CHECK(st->to_move == 1 && st->turn == 1,
              "cascade %d: to_move %d turn %d", len, st->to_move, st->turn);
        CHECK(st->cube[P(2, 0, 1)] == EYE(PURPLE),
              "cascade %d: (2,0,1) holds %d, want the slid purple eye", len,
              st->cube[P(2, 0, 1)]);
        if (len == 1) {
            CHECK(st->cube[P(1, 0, 1)] == -1,
                  "cascade 1: the top place (1,0,1) is not empty");
            /* (1,1,1) lost its cover in -y: revealed, one reveal event */
            CHECK(maat_pmx_visible_faces(st, P(1, 1, 1)) == 1,
                  "cascade 1: (1,1,1) shows %d faces",
                  maat_pmx_visible_faces(st, P(1, 1, 1)));
            CHECK(st->revealed[EYE(ORANGE)], "cascade 1: the exposed "
                  "inner cube is not revealed");
            CHECK(ev.count == 2, "cascade 1: %zu events, want remove + "
                  "reveal", ev.count);
            if (ev.count >= 2) {
                check_remove_event(g, &ev.items[0], 0, 2, 0, 1,
                                   CRANE(BLUE, 0), 0);
                check_reveal(g, &ev.items[1], 1, 1, 1, EYE(ORANGE));
            }
            CHECK(obs_shows(g, 0, P(1, 1, 1)) == 1 &&
                      obs_shows(g, 1, P(1, 1, 1)) == 1,
                  "cascade 1: the observations do not show the revealed "
                  "cube");
        } else {
            CHECK(st->cube[P(1, 0, 1)] == ANKH(GREEN, 3) &&
                      st->cube[P(0, 0, 1)] == -1,
                  "cascade 2: (1,0,1) holds %d (want the green ankh), "
                  "(0,0,1) %d (want empty)", st->cube[P(1, 0, 1)],
                  st->cube[P(0, 0, 1)]);
            /* (1,1,1) is covered again by the green ankh: still hidden */
            CHECK(!st->revealed[EYE(ORANGE)] &&
                      obs_shows(g, 0, P(1, 1, 1)) == 0,
                  "cascade 2: the inner cube was revealed");
            CHECK(ev.count == 1, "cascade 2: %zu events, want 1 (no "
                  "reveal: the exposed cubes were all revealed)", ev.count);
            if (ev.count >= 1)
                check_remove_event(g, &ev.items[0], 0, 2, 0, 1,
                                   CRANE(BLUE, 0), 0);
        }
        maat_events_free(&ev);
        R->destroy(&g);
    }
}

/* Length 5 along each axis: remove the bottom corner of an edge of the
 * full pyramid; the whole edge slides down one place, the apex empties. */
static void test_cascade_five(void)
{
    for (int d = 0; d < 3; d++) {
        maat_game *g = new_game(3);
        if (!g)
            return;
        maat_pmx_state *st = maat_pmx_state_mut(g);
        full(st);
        st->to_move = 2;
        maat_pmx_refresh(st);
        int line[6];
        for (int k = 0; k <= 5; k++) {
            int c[3] = {0, 0, 0};
            c[d] = k;
            line[k] = P(c[0], c[1], c[2]);
        }
        int8_t old[6];
        for (int k = 0; k <= 5; k++)
            old[k] = st->cube[line[k]];
        CHECK(maat_pmx_visible_faces(st, line[5]) == 2,
              "axis %d: the corner shows %d faces", d,
              maat_pmx_visible_faces(st, line[5]));
        int c5[3] = {0, 0, 0};
        c5[d] = 5;
        maat_events ev = {0};
        maat_error err = {0, ""};
        int rc = remove_at(g, c5[0], c5[1], c5[2], &ev, &err);
        CHECK(rc == MAAT_OK, "axis %d: remove the corner: %s", d, err.msg);
        for (int k = 1; k <= 5; k++)
            CHECK(st->cube[line[k]] == old[k - 1],
                  "axis %d: place %d along the edge holds %d, want %d (slid "
                  "from %d)", d, k, st->cube[line[k]], old[k - 1], k - 1);
        CHECK(st->cube[line[0]] == -1, "axis %d: the apex is not empty", d);
        CHECK(st->collected[2][old[5]], "axis %d: seat 2 did not collect",
              d);
        CHECK(st->to_move == 0, "axis %d: seat 2 then %d, want 0", d,
              st->to_move);
        CHECK(rests_ok(st), "axis %d: after, does not rest", d);
        CHECK(count_cubes(st) == 55, "axis %d: %d cubes", d, count_cubes(st));
        /* a length-5 line always ends at the apex, whose down-places are
         * all on the surface: nothing new is revealed */
        CHECK(ev.count == 1, "axis %d: %zu events, want the remove only", d,
              ev.count);
        if (ev.count >= 1)
            check_remove_event(g, &ev.items[0], 2, c5[0], c5[1], c5[2],
                               old[5], d);
        /* the other cubes did not move */
        maat_pmx_state ref;
        full(&ref);
        for (int p = 0; p < MAAT_PMX_PLACES; p++) {
            int on_line = 0;
            for (int k = 0; k <= 5; k++)
                on_line |= p == line[k];
            if (!on_line)
                CHECK(st->cube[p] == ref.cube[p],
                      "axis %d: place %d off the line changed", d, p);
        }
        maat_events_free(&ev);
        R->destroy(&g);
    }
    /* 3 faces: no slide, slide nil */
    maat_game *g = new_game(2);
    if (!g)
        return;
    maat_pmx_state *st = maat_pmx_state_mut(g);
    full(st);
    maat_pmx_refresh(st);
    int apex = st->cube[P(0, 0, 0)];
    maat_events ev = {0};
    maat_error err = {0, ""};
    CHECK(remove_at(g, 0, 0, 0, &ev, &err) == MAAT_OK, "remove apex: %s",
          err.msg);
    CHECK(st->cube[P(0, 0, 0)] == -1 && count_cubes(st) == 55,
          "the apex did not simply go");
    if (ev.count >= 1)
        check_remove_event(g, &ev.items[0], 0, 0, 0, 0, apex, -1);
    CHECK(ev.count == 1, "apex: %zu events", ev.count);
    /* now (1,0,0) shows 3 faces: removing it slides nothing either */
    maat_events_clear(&ev);
    int c100 = st->cube[P(1, 0, 0)];
    CHECK(remove_at(g, 1, 0, 0, &ev, &err) == MAAT_OK, "remove (1,0,0): %s",
          err.msg);
    if (ev.count >= 1)
        check_remove_event(g, &ev.items[0], 1, 1, 0, 0, c100, -1);
    /* (1,1,0) now shows 2 faces (-y (1,0,0) empty, -z outside, -x
     * (0,1,0) full): removing it slides (0,1,0) along x */
    int c010 = st->cube[P(0, 1, 0)];
    maat_events_clear(&ev);
    int c110 = st->cube[P(1, 1, 0)];
    CHECK(remove_at(g, 1, 1, 0, &ev, &err) == MAAT_OK, "remove (1,1,0): %s",
          err.msg);
    CHECK(st->cube[P(1, 1, 0)] == c010 && st->cube[P(0, 1, 0)] == -1,
          "(0,1,0) did not slide along x into (1,1,0)");
    if (ev.count >= 1)
        check_remove_event(g, &ev.items[0], 0, 1, 1, 0, c110, 0);
    CHECK(rests_ok(st), "does not rest");
    maat_events_free(&ev);
    R->destroy(&g);
}

/* ---- the tray rule -------------------------------------------------------- */

static void test_tray(void)
{
    maat_game *g = new_game(2);
    if (!g)
        return;
    maat_pmx_state *st = maat_pmx_state_mut(g);
    /* the bottom layer and one cube on the corner's three places */
    bottom_only(st);
    add(st, P(4, 0, 0));
    int top = st->cube[P(4, 0, 0)];
    maat_pmx_refresh(st);
    CHECK(rests_ok(st), "tray: does not rest");
    CHECK(!st->over, "tray: over with a removable cube");
    /* 3 faces in the bottom layer: no */
    refused(g, 2, 2, 1, "expose the tray");
    refused(g, 0, 0, 5, "expose the tray");
    refused(g, 0, 5, 0, "expose the tray");
    refused(g, 3, 2, 0, "expose the tray"); /* an edge, 3 faces */
    /* 2 faces in the bottom layer: the corner and two edge cubes */
    CHECK(maat_pmx_visible_faces(st, P(5, 0, 0)) == 2 &&
              maat_pmx_visible_faces(st, P(4, 1, 0)) == 2 &&
              maat_pmx_visible_faces(st, P(4, 0, 1)) == 2,
          "the places under (4,0,0) do not show 2 faces");
    CHECK(n_legal(g) == 4 && is_legal(g, 5, 0, 0) && is_legal(g, 4, 1, 0) &&
              is_legal(g, 4, 0, 1) && is_legal(g, 4, 0, 0),
          "tray: %d legal, want the corner, two edge cubes and the top",
          n_legal(g));
    /* a cube above the bottom layer with 3 faces may go */
    CHECK(maat_pmx_visible_faces(st, P(4, 0, 0)) == 3 &&
              maat_pmx_removable(st, P(4, 0, 0)),
          "a layer-4 cube with 3 faces is not removable");

    /* the edge cube (4,1,0) of the bottom layer: (4,0,0) slides along y
     * into the tray place; only the bottom is left: the end */
    maat_pmx_state saved = *st;
    int edge = st->cube[P(4, 1, 0)];
    maat_events ev = {0};
    maat_error err = {0, ""};
    CHECK(remove_at(g, 4, 1, 0, &ev, &err) == MAAT_OK, "remove (4,1,0): %s",
          err.msg);
    CHECK(st->cube[P(4, 1, 0)] == top && st->cube[P(4, 0, 0)] == -1,
          "the top cube did not slide into the tray place (4,1,0)");
    CHECK(count_cubes(st) == 21 && rests_ok(st), "%d cubes left",
          count_cubes(st));
    CHECK(ev.count == 2, "%zu events, want remove + end", ev.count);
    if (ev.count >= 2) {
        check_remove_event(g, &ev.items[0], 0, 4, 1, 0, edge, 1);
        CHECK(ev.items[1].kind == MAAT_PMX_EV_END &&
                  ev.items[1].visible_to == MAAT_ALL_SEATS,
              "the last event is not a public end");
        msgpack_unpacked up;
        if (unpack_event(g, &ev.items[1], &up))
            CHECK(up.data.type == MSGPACK_OBJECT_MAP &&
                      up.data.via.map.size == 1 &&
                      maat_msg_str_eq(maat_msg_get(&up.data, "event"), "end"),
                  "the end event is not {event: end}");
        msgpack_unpacked_destroy(&up);
    }
    CHECK(R->is_over(g) && R->decision(g).seat == -1 && n_legal(g) == 0,
          "not over after the last removal");
    maat_events_clear(&ev);
    maat_pmx_state end = *st;
    CHECK(remove_at(g, 0, 0, 5, &ev, &err) == MAAT_ESTATE && ev.count == 0 &&
              memcmp(&end, st, sizeof end) == 0,
          "an action after the end was not refused with MAAT_ESTATE");

    /* the corner (5,0,0): (4,0,0) slides along x */
    *st = saved;
    maat_events_clear(&ev);
    CHECK(remove_at(g, 5, 0, 0, &ev, &err) == MAAT_OK, "remove (5,0,0): %s",
          err.msg);
    CHECK(st->cube[P(5, 0, 0)] == top && st->cube[P(4, 0, 0)] == -1 &&
              R->is_over(g),
          "the top cube did not slide into the corner");
    if (ev.count >= 1)
        CHECK(ev.items[0].arg[2] == 0, "corner: slide axis %d, want x",
              ev.items[0].arg[2]);
    /* (4,0,1): slides along z */
    *st = saved;
    maat_events_clear(&ev);
    CHECK(remove_at(g, 4, 0, 1, &ev, &err) == MAAT_OK, "remove (4,0,1): %s",
          err.msg);
    CHECK(st->cube[P(4, 0, 1)] == top && st->cube[P(4, 0, 0)] == -1,
          "the top cube did not slide into (4,0,1)");
    if (ev.count >= 1)
        CHECK(ev.items[0].arg[2] == 2, "(4,0,1): slide axis %d, want z",
              ev.items[0].arg[2]);
    maat_events_free(&ev);
    R->destroy(&g);
}

/* ---- the cobra rule ------------------------------------------------------ */

static void test_cobra(void)
{
    maat_game *g = new_game(2);
    if (!g)
        return;
    maat_pmx_state *st = maat_pmx_state_mut(g);
    maat_events ev = {0};
    maat_error err = {0, ""};

    /* a) a visible cobra ABOVE: (4,0,0) is a cobra (3 faces); the three
     *    bottom cubes under it show 2 faces each but touch it */
    bottom_only(st);
    st->cube[P(4, 0, 0)] = COBRA(0);
    maat_pmx_refresh(st);
    CHECK(rests_ok(st), "a: does not rest");
    refused(g, 5, 0, 0, "visible cobra");
    refused(g, 4, 1, 0, "visible cobra");
    refused(g, 4, 0, 1, "visible cobra");
    CHECK(n_legal(g) == 1 && is_legal(g, 4, 0, 0),
          "a: %d legal, want the cobra only", n_legal(g));
    CHECK(!maat_pmx_removable(st, P(5, 0, 0)), "a: removable() disagrees");
    /* taking the cobra ends the game: seat 0 holds a 0-point cube */
    CHECK(remove_at(g, 4, 0, 0, &ev, &err) == MAAT_OK, "a: %s", err.msg);
    CHECK(st->collected[0][COBRA(0)] && R->is_over(g),
          "a: the cobra was not collected / not over");

    /* b) a visible cobra BELOW: (5,0,0) is a cobra with 2 faces; (4,0,0)
     *    rests on it and may not go; the cobra may; the two others too */
    bottom_only(st);
    put(st, P(5, 0, 0), COBRA(1));
    add(st, P(4, 0, 0));
    int top = st->cube[P(4, 0, 0)];
    maat_pmx_refresh(st);
    CHECK(rests_ok(st), "b: does not rest");
    refused(g, 4, 0, 0, "visible cobra");
    CHECK(n_legal(g) == 3 && is_legal(g, 5, 0, 0) && is_legal(g, 4, 1, 0) &&
              is_legal(g, 4, 0, 1),
          "b: %d legal, want the cobra and (4,1,0), (4,0,1)", n_legal(g));
    maat_events_clear(&ev);
    CHECK(remove_at(g, 5, 0, 0, &ev, &err) == MAAT_OK, "b: %s", err.msg);
    CHECK(st->cube[P(5, 0, 0)] == top && st->cube[P(4, 0, 0)] == -1,
          "b: the cube above the cobra did not slide into its place");

    /* c) a cobra with NO visible face does not block: full pyramid minus
     *    the apex and (0,1,0); cobra at (1,1,1), covered on all three
     *    upper faces by (0,1,1), (1,0,1), (1,1,0) */
    full(st);
    put(st, P(1, 1, 1), COBRA(2));
    st->cube[P(0, 0, 0)] = -1;
    st->cube[P(0, 1, 0)] = -1;
    maat_pmx_refresh(st);
    CHECK(rests_ok(st), "c: does not rest");
    CHECK(maat_pmx_visible_faces(st, P(1, 1, 1)) == 0 &&
              !st->revealed[COBRA(2)],
          "c: the inner cobra shows faces or is revealed");
    CHECK(maat_pmx_visible_faces(st, P(0, 1, 1)) == 2 &&
              maat_pmx_visible_faces(st, P(1, 1, 0)) == 2,
          "c: (0,1,1) / (1,1,0) do not show 2 faces");
    CHECK(is_legal(g, 0, 1, 1) && is_legal(g, 1, 1, 0),
          "c: cubes touching a hidden cobra are not legal");
    maat_pmx_state saved = *st;
    maat_events_clear(&ev);
    int c001 = st->cube[P(0, 0, 1)];
    CHECK(remove_at(g, 0, 1, 1, &ev, &err) == MAAT_OK, "c: %s", err.msg);
    /* (0,1,1) was covered in -y by (0,0,1): it slides along y */
    CHECK(st->cube[P(0, 1, 1)] == c001 && st->cube[P(0, 0, 1)] == -1,
          "c: (0,0,1) did not slide into (0,1,1)");
    CHECK(maat_pmx_visible_faces(st, P(1, 1, 1)) == 0 &&
              !st->revealed[COBRA(2)],
          "c: the cobra was uncovered");

    /*    the same cobra with one face visible blocks: take also (1,0,0)
     *    and (1,1,0), so (1,1,1) shows its -z face */
    *st = saved;
    st->cube[P(1, 0, 0)] = -1;
    st->cube[P(1, 1, 0)] = -1;
    memset(st->revealed, 0, sizeof st->revealed);
    maat_pmx_refresh(st);
    CHECK(rests_ok(st), "c2: does not rest");
    CHECK(maat_pmx_visible_faces(st, P(1, 1, 1)) == 1 &&
              st->revealed[COBRA(2)],
          "c2: the cobra does not show exactly one face / not revealed");
    CHECK(maat_pmx_visible_faces(st, P(0, 1, 1)) == 2 &&
              maat_pmx_visible_faces(st, P(1, 0, 1)) == 2,
          "c2: (0,1,1) / (1,0,1) do not show 2 faces");
    refused(g, 0, 1, 1, "visible cobra"); /* the cobra is its +x place */
    refused(g, 1, 0, 1, "visible cobra"); /* +y */
    /* the cobra itself shows 1 face: not removable either */
    refused(g, 1, 1, 1, "fewer than 2 faces");
    /* every other cube with 2-3 faces is removable exactly when it does
     * not touch the cobra on a flat side (differs from (1,1,1) by 1 in
     * exactly one axis) and the tray rule allows it: cubes sharing only an
     * edge with the cobra, like (2,1,0) and (1,2,0), are not blocked */
    CHECK(maat_pmx_removable(st, P(2, 1, 0)) &&
              maat_pmx_removable(st, P(1, 2, 0)),
          "c2: cubes sharing an edge with the cobra are blocked");
    for (int p = 0; p < MAAT_PMX_PLACES; p++) {
        if (st->cube[p] < 0 || maat_pmx_visible_faces(st, p) < 2 ||
            p == P(1, 1, 1))
            continue;
        int x, y, z;
        maat_pmx_coords(p, &x, &y, &z);
        int dx = abs(x - 1), dy = abs(y - 1), dz = abs(z - 1);
        int flat = dx + dy + dz == 1;
        int tray = layer(p) == 5 && maat_pmx_visible_faces(st, p) == 3;
        CHECK(maat_pmx_removable(st, p) == (!flat && !tray),
              "c2: (%d,%d,%d) removable %d, touches the cobra %d", x, y, z,
              maat_pmx_removable(st, p), flat);
    }

    /* d) a cobra next to a cobra may be removed: cobras at (4,0,0) and
     *    (5,0,0), both visible */
    bottom_only(st);
    put(st, P(5, 0, 0), COBRA(3));
    st->cube[P(4, 0, 0)] = COBRA(1);
    maat_pmx_refresh(st);
    CHECK(rests_ok(st), "d: does not rest");
    CHECK(maat_pmx_removable(st, P(4, 0, 0)) &&
              maat_pmx_removable(st, P(5, 0, 0)),
          "d: a cobra touching a visible cobra is not removable");
    CHECK(n_legal(g) == 2, "d: %d legal, want the two cobras", n_legal(g));
    maat_events_clear(&ev);
    CHECK(remove_at(g, 5, 0, 0, &ev, &err) == MAAT_OK, "d: %s", err.msg);
    CHECK(st->cube[P(5, 0, 0)] == COBRA(1) && st->collected[0][COBRA(3)],
          "d: the upper cobra did not slide into the lower one's place");

    /* e) same layer, two axes apart: no flat side.  Cobra at (4,0,0) and
     *    a plain cube at (3,1,0) (both layer 4) */
    bottom_only(st);
    st->cube[P(4, 0, 0)] = COBRA(0);
    add(st, P(3, 1, 0));
    maat_pmx_refresh(st);
    CHECK(rests_ok(st), "e: does not rest");
    CHECK(maat_pmx_removable(st, P(3, 1, 0)),
          "e: a cube sharing only an edge with a visible cobra is blocked");
    /* (4,1,0) lies under both: 1 face (not legal anyway); (3,2,0) under
     * (3,1,0) only, and not touching the cobra: legal */
    CHECK(maat_pmx_visible_faces(st, P(4, 1, 0)) == 1 &&
              is_legal(g, 3, 2, 0) && is_legal(g, 3, 1, 1),
          "e: the cubes under (3,1,0) are wrong");
    refused(g, 5, 0, 0, "visible cobra");
    refused(g, 4, 0, 1, "visible cobra");
    maat_events_free(&ev);
    R->destroy(&g);
}

/* ---- the end -------------------------------------------------------------- */

static void test_end(void)
{
    for (int seats = 2; seats <= 4; seats++) {
        maat_game *g = new_game(seats);
        if (!g)
            return;
        maat_pmx_state *st = maat_pmx_state_mut(g);
        bottom_only(st);
        put(st, P(2, 2, 1), COBRA(0)); /* a cobra changes nothing */
        st->to_move = seats - 1;
        maat_pmx_refresh(st);
        CHECK(st->over && R->is_over(g), "%d seats: the 21 bottom cubes "
              "alone are not the end", seats);
        CHECK(R->decision(g).seat == -1, "a decision after the end");
        CHECK(n_legal(g) == 0, "%d legal actions at the end", n_legal(g));
        for (int p = 0; p < MAAT_PMX_PLACES; p++)
            if (st->cube[p] >= 0)
                CHECK(!maat_pmx_removable(st, p) && st->revealed[st->cube[p]],
                      "a bottom cube is removable or unrevealed at the end");
        /* the observation at the end: over, to_move nil, scores */
        msgpack_sbuffer_clear(&sb);
        R->encode_observation(g, 0, &pk);
        msgpack_unpacked up;
        maat_error err = {0, ""};
        if (maat_msg_unpack(sb.data, sb.size, &up, &err) == MAAT_OK) {
            const msgpack_object *o = &up.data;
            const msgpack_object *tm = maat_msg_get(o, "to_move");
            const msgpack_object *ov = maat_msg_get(o, "over");
            const msgpack_object *sc = maat_msg_get(o, "scores");
            CHECK(tm && tm->type == MSGPACK_OBJECT_NIL && ov &&
                      ov->type == MSGPACK_OBJECT_BOOLEAN && ov->via.boolean &&
                      sc && sc->type == MSGPACK_OBJECT_ARRAY &&
                      (int)sc->via.array.size == seats,
                  "the final observation lacks over/to_move nil/scores");
        } else {
            CHECK(0, "the final observation does not decode: %s", err.msg);
        }
        msgpack_unpacked_destroy(&up);
        R->destroy(&g);
    }
    /* one cube above the bottom: not the end */
    maat_game *g = new_game(2);
    if (!g)
        return;
    maat_pmx_state *st = maat_pmx_state_mut(g);
    bottom_only(st);
    add(st, P(0, 2, 2));
    maat_pmx_refresh(st);
    CHECK(!st->over && R->decision(g).seat == 0, "22 cubes: over");
    R->destroy(&g);
}

/* ---- scoring ---------------------------------------------------------------- */

static void set_bottom(maat_pmx_state *st, const int *ids, int n)
{
    memset(st->cube, -1, sizeof st->cube);
    int k = 0;
    for (int p = 0; p < MAAT_PMX_PLACES && k < n; p++)
        if (layer(p) == 5)
            st->cube[p] = (int8_t)ids[k++];
}

static void collect(maat_pmx_state *st, int seat, int id)
{
    st->collected[seat][id] = 1;
    st->n_collected[seat]++;
}

static void check_scores(const maat_game *g, const int *total,
                         const int (*parts)[4], const int *rank, int seats,
                         const char *what)
{
    maat_score sc[MAAT_PMX_MAX_SEATS], sc2[MAAT_PMX_MAX_SEATS];
    memset(sc, 0x55, sizeof sc);
    R->scores(g, sc);
    maat_pmx_score_all(maat_pmx_state_of(g), sc2);
    for (int s = 0; s < seats; s++) {
        CHECK(sc[s].total == total[s] && sc[s].rank == rank[s],
              "%s: seat %d total %d rank %d, want %d rank %d", what, s,
              sc[s].total, sc[s].rank, total[s], rank[s]);
        for (int k = 0; k < 4; k++)
            CHECK(sc[s].part[k] == parts[s][k],
                  "%s: seat %d part %s = %d, want %d", what, s,
                  R->score_parts[k], sc[s].part[k], parts[s][k]);
        CHECK(sc2[s].total == sc[s].total, "%s: score_all disagrees", what);
    }
}

static void test_scoring(void)
{
    CHECK(R->n_score_parts == 4 && !strcmp(R->score_parts[0], "ankhs") &&
              !strcmp(R->score_parts[1], "cranes") &&
              !strcmp(R->score_parts[2], "eyes") &&
              !strcmp(R->score_parts[3], "majority"),
          "score parts are not ankhs, cranes, eyes, majority");
    maat_game *g = new_game(2);
    if (!g)
        return;
    maat_pmx_state *st = maat_pmx_state_mut(g);

    /* 1) majorities, a tied majority, an empty-handed 0-0, no cobras in
     *    the tray.  Tray (21): blue A6 A7 C3 eye (7 points), purple A6 A7
     *    C3 (4), orange A5 A6 A7 C2 C3 (7), green A0..A7 C0 (10). */
    {
        blank(st);
        const int tray[21] = {
            ANKH(BLUE, 6), ANKH(BLUE, 7), CRANE(BLUE, 3), EYE(BLUE),
            ANKH(PURPLE, 6), ANKH(PURPLE, 7), CRANE(PURPLE, 3),
            ANKH(ORANGE, 5), ANKH(ORANGE, 6), ANKH(ORANGE, 7),
            CRANE(ORANGE, 2), CRANE(ORANGE, 3),
            ANKH(GREEN, 0), ANKH(GREEN, 1), ANKH(GREEN, 2), ANKH(GREEN, 3),
            ANKH(GREEN, 4), ANKH(GREEN, 5), ANKH(GREEN, 6), ANKH(GREEN, 7),
            CRANE(GREEN, 0)};
        set_bottom(st, tray, 21);
        /* seat 0: blue A0-A3 (4 ankhs), C0; purple A0-A2 (3), eye;
         *         orange A0 (1), C0; cobras 0, 1 */
        for (int k = 0; k < 4; k++)
            collect(st, 0, ANKH(BLUE, k));
        collect(st, 0, CRANE(BLUE, 0));
        for (int k = 0; k < 3; k++)
            collect(st, 0, ANKH(PURPLE, k));
        collect(st, 0, EYE(PURPLE));
        collect(st, 0, ANKH(ORANGE, 0));
        collect(st, 0, CRANE(ORANGE, 0));
        collect(st, 0, COBRA(0));
        collect(st, 0, COBRA(1));
        /* seat 1: blue A4 A5 (2), C1 C2; purple A3-A5 (3), C0-C2;
         *         orange A1-A4 (4), C1, eye; green C1-C3, eye; cobras 2, 3 */
        collect(st, 1, ANKH(BLUE, 4));
        collect(st, 1, ANKH(BLUE, 5));
        collect(st, 1, CRANE(BLUE, 1));
        collect(st, 1, CRANE(BLUE, 2));
        for (int k = 3; k < 6; k++)
            collect(st, 1, ANKH(PURPLE, k));
        for (int k = 0; k < 3; k++)
            collect(st, 1, CRANE(PURPLE, k));
        for (int k = 1; k < 5; k++)
            collect(st, 1, ANKH(ORANGE, k));
        collect(st, 1, CRANE(ORANGE, 1));
        collect(st, 1, EYE(ORANGE));
        for (int k = 1; k < 4; k++)
            collect(st, 1, CRANE(GREEN, k));
        collect(st, 1, EYE(GREEN));
        collect(st, 1, COBRA(2));
        collect(st, 1, COBRA(3));
        maat_pmx_refresh(st);
        CHECK(st->over, "scoring 1: not over");
        /* all 56 cubes somewhere exactly once */
        int cnt[56] = {0};
        for (int p = 0; p < 56; p++)
            if (st->cube[p] >= 0)
                cnt[st->cube[p]]++;
        for (int s = 0; s < 2; s++)
            for (int c = 0; c < 56; c++)
                cnt[c] += st->collected[s][c];
        int bad = 0;
        for (int c = 0; c < 56; c++)
            bad += cnt[c] != 1;
        CHECK(bad == 0, "scoring 1: the hand-built end loses cubes");
        /* blue 4 > 2: seat 0 takes the blue tray, 7 points; purple 3 = 3:
         * nobody; orange 4 > 1: seat 1 takes 3 ankhs + 2 cranes = 7;
         * green 0 = 0: nobody.
         * seat 0: ankhs 4+3+1 = 8; cranes 2 x 2 = 4; eye 3; majority 7
         * seat 1: ankhs 2+3+4 = 9; cranes 2+3+1+3 = 9 x 2 = 18; eyes 6;
         *         majority 7 */
        const int total[2] = {22, 40};
        const int parts[2][4] = {{8, 4, 3, 7}, {9, 18, 6, 7}};
        const int rank[2] = {2, 1};
        check_scores(g, total, parts, rank, 2, "scoring 1");
    }

    /* 2) cobras in the tray clear their face/edge neighbours.  Cobra 0 at
     *    (2,2,1): its six same-layer neighbours hold blue eye, blue C0,
     *    blue C1, blue A0, purple A0, orange A0.  Cobra 1 at the corner
     *    (5,0,0): its two neighbours (4,1,0), (4,0,1) hold blue C2, blue A1.
     *    Elsewhere: blue A2, blue C3 (3 points survive), purple A1-A7, C0,
     *    C1 (11 points survive). */
    {
        blank(st);
        memset(st->cube, -1, sizeof st->cube);
        st->cube[P(2, 2, 1)] = COBRA(0);
        st->cube[P(3, 1, 1)] = EYE(BLUE);
        st->cube[P(3, 2, 0)] = CRANE(BLUE, 0);
        st->cube[P(1, 3, 1)] = CRANE(BLUE, 1);
        st->cube[P(2, 3, 0)] = ANKH(BLUE, 0);
        st->cube[P(1, 2, 2)] = ANKH(PURPLE, 0);
        st->cube[P(2, 1, 2)] = ANKH(ORANGE, 0);
        st->cube[P(5, 0, 0)] = COBRA(1);
        st->cube[P(4, 1, 0)] = CRANE(BLUE, 2);
        st->cube[P(4, 0, 1)] = ANKH(BLUE, 1);
        const int rest[11] = {ANKH(BLUE, 2), CRANE(BLUE, 3),
                              ANKH(PURPLE, 1), ANKH(PURPLE, 2),
                              ANKH(PURPLE, 3), ANKH(PURPLE, 4),
                              ANKH(PURPLE, 5), ANKH(PURPLE, 6),
                              ANKH(PURPLE, 7), CRANE(PURPLE, 0),
                              CRANE(PURPLE, 1)};
        int k = 0;
        for (int p = 0; p < MAAT_PMX_PLACES; p++)
            if (layer(p) == 5 && st->cube[p] < 0)
                st->cube[p] = (int8_t)rest[k++];
        CHECK(k == 11 && count_cubes(st) == 21, "scoring 2: tray of %d",
              count_cubes(st));
        /* seat 0: blue A3-A5 (3 ankhs) and cobra 2; seat 1: blue A6,
         * orange A1 */
        for (int j = 3; j < 6; j++)
            collect(st, 0, ANKH(BLUE, j));
        collect(st, 0, COBRA(2));
        collect(st, 1, ANKH(BLUE, 6));
        collect(st, 1, ANKH(ORANGE, 1));
        maat_pmx_refresh(st);
        uint8_t cleared[MAAT_PMX_PLACES];
        maat_pmx_cobra_cleared(st, cleared);
        static const int want[10][3] = {
            {2, 2, 1}, {3, 1, 1}, {3, 2, 0}, {1, 3, 1}, {2, 3, 0},
            {1, 2, 2}, {2, 1, 2}, {5, 0, 0}, {4, 1, 0}, {4, 0, 1}};
        int n = 0;
        for (int p = 0; p < MAAT_PMX_PLACES; p++)
            n += cleared[p];
        CHECK(n == 10, "scoring 2: %d places cleared, want 10", n);
        for (int j = 0; j < 10; j++)
            CHECK(cleared[P(want[j][0], want[j][1], want[j][2])],
                  "scoring 2: (%d,%d,%d) not cleared", want[j][0],
                  want[j][1], want[j][2]);
        /* blue: seat 0 (3 > 1) takes blue A2 + C3 = 3 (the eye, C0, C1,
         * C2, A0, A1 are cleared); purple 0 = 0: nobody (11 lost); orange:
         * seat 1 (1 > 0) takes nothing (its only tray cube is cleared).
         * seat 0: ankhs 3, majority 3 = 6; seat 1: ankhs 2 = 2 */
        const int total[2] = {6, 2};
        const int parts[2][4] = {{3, 0, 0, 3}, {2, 0, 0, 0}};
        const int rank[2] = {1, 2};
        check_scores(g, total, parts, rank, 2, "scoring 2");
        /* the rulebook's strict "face" reading would clear nothing here:
         * same-layer cubes share an edge, never a face */
        for (int p = 0; p < MAAT_PMX_PLACES; p++)
            for (int q = 0; q < MAAT_PMX_PLACES; q++) {
                if (layer(p) != 5 || layer(q) != 5 || p == q)
                    continue;
                int a[3], b[3], axes = 0;
                maat_pmx_coords(p, &a[0], &a[1], &a[2]);
                maat_pmx_coords(q, &b[0], &b[1], &b[2]);
                for (int d = 0; d < 3; d++)
                    axes += a[d] != b[d];
                CHECK(axes >= 2, "two bottom places share a face");
            }
    }

    /* 3) cleared places over the whole pyramid: a cobra at (1,1,1) of a
     *    full pyramid clears the 6 places 1 axis away and the 12 places 2
     *    axes away (each by 1), never the 3-axis diagonals */
    {
        /* a full pyramid but for the other three cobras' places (none of
         * them near (1,1,1)); the plain cube of (1,1,1) moves to (1,2,2) */
        full(st);
        int old = st->cube[P(1, 1, 1)];
        st->cube[P(1, 1, 1)] = COBRA(0);
        st->cube[P(1, 2, 2)] = (int8_t)old;
        st->cube[P(1, 1, 3)] = -1;
        st->cube[P(1, 3, 1)] = -1;
        st->cube[P(3, 1, 1)] = -1;
        uint8_t cleared[MAAT_PMX_PLACES];
        maat_pmx_cobra_cleared(st, cleared);
        static const int one[6][3] = {{0, 1, 1}, {2, 1, 1}, {1, 0, 1},
                                      {1, 2, 1}, {1, 1, 0}, {1, 1, 2}};
        static const int two[12][3] = {
            {0, 0, 1}, {0, 2, 1}, {2, 0, 1}, {2, 2, 1}, {0, 1, 0}, {0, 1, 2},
            {2, 1, 0}, {2, 1, 2}, {1, 0, 0}, {1, 0, 2}, {1, 2, 0}, {1, 2, 2}};
        static const int three[7][3] = {{0, 0, 0}, {2, 0, 0}, {0, 2, 0},
                                        {0, 0, 2}, {2, 2, 0}, {2, 0, 2},
                                        {0, 2, 2}};
        int n = 0;
        for (int p = 0; p < MAAT_PMX_PLACES; p++)
            n += cleared[p];
        CHECK(n == 19, "full pyramid, cobra at (1,1,1): %d cleared, want "
              "19", n);
        CHECK(cleared[P(1, 1, 1)], "the cobra itself is not cleared");
        for (int j = 0; j < 6; j++)
            CHECK(cleared[P(one[j][0], one[j][1], one[j][2])],
                  "face neighbour (%d,%d,%d) not cleared", one[j][0],
                  one[j][1], one[j][2]);
        for (int j = 0; j < 12; j++)
            CHECK(cleared[P(two[j][0], two[j][1], two[j][2])],
                  "edge neighbour (%d,%d,%d) not cleared", two[j][0],
                  two[j][1], two[j][2]);
        for (int j = 0; j < 7; j++)
            CHECK(!cleared[P(three[j][0], three[j][1], three[j][2])],
                  "corner neighbour (%d,%d,%d) cleared", three[j][0],
                  three[j][1], three[j][2]);
        CHECK(!cleared[P(3, 1, 1)] && !cleared[P(1, 1, 3)],
              "places two steps away cleared");
    }

    /* 4) shared ranks: totals 5, 5, 3 -> ranks 1, 1, 3; 4 seats all 0 */
    R->destroy(&g);
    g = new_game(3);
    if (!g)
        return;
    st = maat_pmx_state_mut(g);
    {
        bottom_only(st); /* ids 0..20: blue and purple ankhs/cranes... */
        /* no ankhs collected by anyone: every majority is a 0-0 tie */
        collect(st, 0, CRANE(ORANGE, 0));
        collect(st, 0, EYE(ORANGE));
        collect(st, 1, EYE(GREEN));
        collect(st, 1, CRANE(GREEN, 3));
        collect(st, 2, EYE(PURPLE));
        collect(st, 2, COBRA(3));
        maat_pmx_refresh(st);
        const int total[3] = {5, 5, 3};
        const int parts[3][4] = {{0, 2, 3, 0}, {0, 2, 3, 0}, {0, 0, 3, 0}};
        const int rank[3] = {1, 1, 3};
        check_scores(g, total, parts, rank, 3, "shared ranks");
    }
    R->destroy(&g);
    g = new_game(4);
    if (!g)
        return;
    st = maat_pmx_state_mut(g);
    {
        bottom_only(st);
        /* 4 seats; green: seats 0 and 3 tie at 2 ankhs, seat 1 has 1 --
         * a tie for the most takes nothing even with a third seat below;
         * orange: seat 2 (1 ankh) beats 0s and takes the orange tray
         * cube placed at (0,0,5) (a crane: 2 points) */
        st->cube[P(0, 0, 5)] = CRANE(ORANGE, 3);
        st->cube[P(0, 1, 4)] = ANKH(GREEN, 7);
        collect(st, 0, ANKH(GREEN, 0));
        collect(st, 0, ANKH(GREEN, 1));
        collect(st, 3, ANKH(GREEN, 2));
        collect(st, 3, ANKH(GREEN, 3));
        collect(st, 1, ANKH(GREEN, 4));
        collect(st, 2, ANKH(ORANGE, 0));
        maat_pmx_refresh(st);
        const int total[4] = {2, 1, 3, 2};
        const int parts[4][4] = {
            {2, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 2}, {2, 0, 0, 0}};
        const int rank[4] = {2, 4, 1, 2};
        check_scores(g, total, parts, rank, 4, "4 seats");
    }
    R->destroy(&g);
}

/* ---- illegal actions -------------------------------------------------------- */

static void test_illegal(void)
{
    maat_game *g = new_game(2);
    if (!g)
        return;
    maat_pmx_state *st = maat_pmx_state_mut(g);
    full(st);
    st->cube[P(0, 0, 0)] = -1;
    maat_pmx_refresh(st);
    refused(g, 6, 0, 0, "not a place");
    refused(g, -1, 0, 0, "not a place");
    refused(g, 3, 3, 0, "not a place");
    refused(g, 2, 2, 2, "not a place");
    refused(g, 100, -100, 0, "not a place");
    /* any int32 reaches apply through the C interface: no overflow */
    refused(g, INT32_MAX, INT32_MAX, 2, "not a place");
    refused(g, INT32_MIN, 1, 0, "not a place");
    refused(g, 0, 0, 0, "empty");
    refused(g, 1, 1, 0, "fewer than 2 faces");
    refused(g, 1, 2, 2, "fewer than 2 faces");
    /* the wrong kind */
    maat_action a = {7, {1, 0, 0, -1, -1, -1, -1}};
    maat_events ev = {0};
    maat_error err = {0, ""};
    maat_pmx_state before = *st;
    CHECK(R->apply(g, &a, &ev, &err) == MAAT_EILLEGAL &&
              strstr(err.msg, "remove") &&
              memcmp(&before, st, sizeof before) == 0 && ev.count == 0,
          "a wrong kind was not refused cleanly: %s", err.msg);
    /* the tray and the cobra rules are refused in test_tray/test_cobra */
    maat_events_free(&ev);
    R->destroy(&g);
}

/* ---- the action on the wire ------------------------------------------------ */

static int decode(const char *what, int (*build)(msgpack_packer *),
                  maat_action *a, maat_error *err)
{
    (void)what;
    msgpack_sbuffer_clear(&sb);
    build(&pk);
    msgpack_unpacked up;
    int rc = maat_msg_unpack(sb.data, sb.size, &up, err);
    if (!rc)
        rc = R->decode_action(NULL, &up.data, a, err);
    msgpack_unpacked_destroy(&up);
    return rc;
}

static int good(msgpack_packer *p)
{
    msgpack_pack_map(p, 4);
    maat_pack_kv_str(p, "kind", "remove");
    maat_pack_kv_int(p, "x", 1);
    maat_pack_kv_int(p, "y", 0);
    maat_pack_kv_int(p, "z", 4);
    return 0;
}
static int missing(msgpack_packer *p)
{
    msgpack_pack_map(p, 3);
    maat_pack_kv_str(p, "kind", "remove");
    maat_pack_kv_int(p, "x", 1);
    maat_pack_kv_int(p, "y", 0);
    return 0;
}
static int extra(msgpack_packer *p)
{
    msgpack_pack_map(p, 5);
    maat_pack_kv_str(p, "kind", "remove");
    maat_pack_kv_int(p, "x", 1);
    maat_pack_kv_int(p, "y", 0);
    maat_pack_kv_int(p, "z", 4);
    maat_pack_kv_int(p, "w", 4);
    return 0;
}
static int range(msgpack_packer *p)
{
    msgpack_pack_map(p, 4);
    maat_pack_kv_str(p, "kind", "remove");
    maat_pack_kv_int(p, "x", 6);
    maat_pack_kv_int(p, "y", 0);
    maat_pack_kv_int(p, "z", 0);
    return 0;
}
static int kind(msgpack_packer *p)
{
    msgpack_pack_map(p, 4);
    maat_pack_kv_str(p, "kind", "take");
    maat_pack_kv_int(p, "x", 1);
    maat_pack_kv_int(p, "y", 0);
    maat_pack_kv_int(p, "z", 4);
    return 0;
}

static void test_wire(void)
{
    maat_action a;
    maat_error err = {0, ""};
    CHECK(decode("good", good, &a, &err) == MAAT_OK &&
              a.kind == MAAT_PMX_REMOVE && a.arg[0] == 1 && a.arg[1] == 0 &&
              a.arg[2] == 4,
          "a good action does not decode: %s", err.msg);
    CHECK(decode("missing", missing, &a, &err) == MAAT_EDECODE &&
              strstr(err.msg, "z"),
          "a missing z: %s", err.msg);
    CHECK(decode("extra", extra, &a, &err) == MAAT_EDECODE &&
              strstr(err.msg, "w"),
          "an extra key: %s", err.msg);
    CHECK(decode("range", range, &a, &err) == MAAT_EDECODE &&
              strstr(err.msg, "x"),
          "x = 6: %s", err.msg);
    CHECK(decode("kind", kind, &a, &err) == MAAT_EDECODE &&
              strstr(err.msg, "kind"),
          "kind 'take': %s", err.msg);
    /* every legal action encodes to what decodes back to it */
    maat_game *g = new_game(2);
    if (!g)
        return;
    maat_action list[64];
    int n = R->legal_actions(g, list, 64);
    for (int k = 0; k < n && k < 64; k++) {
        msgpack_sbuffer_clear(&sb);
        R->encode_action(g, &list[k], &pk);
        msgpack_unpacked up;
        maat_action b;
        int rc = maat_msg_unpack(sb.data, sb.size, &up, &err);
        if (!rc)
            rc = R->decode_action(g, &up.data, &b, &err);
        CHECK(rc == MAAT_OK && b.kind == list[k].kind &&
                  b.arg[0] == list[k].arg[0] && b.arg[1] == list[k].arg[1] &&
                  b.arg[2] == list[k].arg[2] &&
                  up.data.via.map.size == 4,
              "legal action %d does not round-trip: %s", k, err.msg);
        msgpack_unpacked_destroy(&up);
    }
    /* interface facts */
    CHECK(!strcmp(R->name, "pyramix") && !strcmp(R->rules_version,
                                                   "pyramix-2") &&
              R->min_seats == 2 && R->max_seats == 4 &&
              R->n_decision_kinds == 1 &&
              !strcmp(R->decision_names[0], "remove") &&
              R->n_event_kinds == 3,
          "the rules table is not pyramix-2, 2-4 seats, remove");
    CHECK(maat_rules_find("pyramix") == R, "pyramix is not registered");
    maat_game *bad = R->game_new(setup, SEED(1), 5, NULL, &err);
    CHECK(bad == NULL && err.code == MAAT_EINVAL, "5 seats accepted");
    bad = R->game_new(setup, SEED(1), 1, NULL, &err);
    CHECK(bad == NULL && err.code == MAAT_EINVAL, "1 seat accepted");
    maat_options opt = {0};
    maat_options_set(&opt, "deck", "x");
    maat_setup *s2 = R->setup_new(&opt, &err);
    CHECK(s2 == NULL && strstr(err.msg, "deck"), "an unknown option "
          "accepted or not named: %s", err.msg);
    R->destroy(&g);
}

int main(void)
{
    maat_error err = {0, ""};
    setup = R->setup_new(NULL, &err);
    CHECK(setup != NULL, "setup_new: %s", err.msg);
    if (!setup)
        return check_done("pyramix_rules");
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    test_geometry();
    test_faces();
    test_cascade_short();
    test_cascade_five();
    test_tray();
    test_cobra();
    test_end();
    test_scoring();
    test_illegal();
    test_wire();
    msgpack_sbuffer_destroy(&sb);
    R->setup_destroy(&setup);
    return check_done("pyramix_rules");
}
