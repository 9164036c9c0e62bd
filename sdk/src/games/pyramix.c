/* pyramix.c -- the rules of Pyramix: the shape, visible faces, which cube
 * may be removed, the cascade, the end, and scoring.  The msgpack side and
 * the bot-side view are in pyramix_wire.c.
 *
 * Geometry is looked up in constant tables indexed by place (its
 * coordinates, the neighbour a step up or down each axis, the places it
 * touches), generated into pyramix_geometry.h; the rules below then read
 * as the rules page does, at a few loads per neighbour. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "pyramix_internal.h"
#include "pyramix_geometry.h"

const char *const maat_pmx_colour_names[5] = {"blue", "purple", "orange",
                                              "green", "none"};
const char *const maat_pmx_symbol_names[4] = {"ankh", "crane", "eye",
                                              "cobra"};
static const char *const decision_names[] = {"remove"};
static const char *const event_names[] = {"remove", "reveal", "end"};
static const char *const score_parts[] = {"ankhs", "cranes", "eyes",
                                          "majority"};

/* ---- geometry ------------------------------------------------------- */

/* Places are numbered layer by layer from the apex; within layer L by x
 * from L down to 0, then y from L - x down to 0.  maat_pmx_place is the
 * closed form (layer L starts at L(L+1)(L+2)/6).  The other way round and
 * the neighbours, looked up on every rule check, come from the constant
 * tables of pyramix_geometry.h, which scripts/gen-pyramix-geometry.py
 * generates from the same closed form: read-only data, so still no shared
 * mutable state. */
_Static_assert(PMX_GEOMETRY_PLACES == MAAT_PMX_PLACES,
               "pyramix_geometry.h is out of date: rerun "
               "scripts/gen-pyramix-geometry.py");

static int layer_start(int layer)
{
    return layer * (layer + 1) * (layer + 2) / 6;
}

int maat_pmx_place(int x, int y, int z)
{
    /* range-check each coordinate before adding: no overflow on any int */
    if (x < 0 || y < 0 || z < 0 || x >= MAAT_PMX_LAYERS ||
        y >= MAAT_PMX_LAYERS || z >= MAAT_PMX_LAYERS)
        return -1;
    int layer = x + y + z;
    if (layer >= MAAT_PMX_LAYERS)
        return -1;
    int k = layer - x; /* places with a larger x come first */
    return layer_start(layer) + k * (k + 1) / 2 + (k - y);
}

void maat_pmx_coords(int place, int *x, int *y, int *z)
{
    if (place >= 0 && place < MAAT_PMX_PLACES) {
        *x = pmx_coord[place][0];
        *y = pmx_coord[place][1];
        *z = pmx_coord[place][2];
        return;
    }
    /* Not a place: the inverse of the closed form, which is what callers
     * have always got for such an argument. */
    int layer = 0;
    while (layer + 1 < MAAT_PMX_LAYERS && layer_start(layer + 1) <= place)
        layer++;
    int r = place - layer_start(layer), k = 0;
    while ((k + 1) * (k + 2) / 2 <= r)
        k++;
    *x = layer - k;
    *y = k - (r - k * (k + 1) / 2);
    *z = layer - *x - *y;
}

/* The neighbour of `place` one step along axis d: up (-1) or down (+1);
 * -1 outside the pyramid.  The rules below use the tables directly. */
int maat_pmx_step(int place, int d, int delta)
{
    if (place >= 0 && place < MAAT_PMX_PLACES && d >= 0 && d < 3) {
        if (delta == -1)
            return pmx_up[place][d];
        if (delta == 1)
            return pmx_down[place][d];
    }
    int c[3];
    maat_pmx_coords(place, &c[0], &c[1], &c[2]);
    c[d] += delta;
    return maat_pmx_place(c[0], c[1], c[2]);
}

static int layer_of(int place)
{
    return pmx_coord[place][0] + pmx_coord[place][1] + pmx_coord[place][2];
}

/* Static copies of the two cube functions so the hot paths inline them:
 * an exported function called from the same file still goes through the
 * PLT in a shared library. */
static inline int cube_colour(int cube)
{
    return cube >= 52 ? MAAT_PMX_NO_COLOUR : cube / 13;
}

static inline int cube_symbol(int cube)
{
    if (cube >= 52)
        return MAAT_PMX_COBRA;
    int k = cube % 13;
    return k < 8 ? MAAT_PMX_ANKH : k < 12 ? MAAT_PMX_CRANE : MAAT_PMX_EYE;
}

int maat_pmx_cube_colour(int cube)
{
    return cube_colour(cube);
}

int maat_pmx_cube_symbol(int cube)
{
    return cube_symbol(cube);
}

/* ---- the rules ------------------------------------------------------ */

/* An upper face shows when the place above it, along that axis, is
 * outside the pyramid or empty. */
static inline int faces_of(const maat_pmx_state *st, int place)
{
    int n = 0;
    for (int d = 0; d < 3; d++) {
        int up = pmx_up[place][d];
        n += up < 0 || st->cube[up] < 0;
    }
    return n;
}

int maat_pmx_visible_faces(const maat_pmx_state *st, int place)
{
    /* through maat_pmx_step, which also answers for a place outside 0..55 */
    int n = 0;
    for (int d = 0; d < 3; d++) {
        int up = maat_pmx_step(place, d, -1);
        n += up < 0 || st->cube[up] < 0;
    }
    return n;
}

static int is_visible_cobra(const maat_pmx_state *st, int place)
{
    return place >= 0 && st->cube[place] >= 0 &&
           cube_symbol(st->cube[place]) == MAAT_PMX_COBRA &&
           faces_of(st, place) > 0;
}

/* Every rule for removing the cube at `place` but the cobra rule: there is
 * a cube, it shows 2 or 3 faces, and not 3 on the bottom layer. */
static int may_lift(const maat_pmx_state *st, int place)
{
    if (st->cube[place] < 0)
        return 0;
    int faces = faces_of(st, place);
    if (faces < 2)
        return 0;
    /* the tray rule: nothing could slide into a bottom place with 3 */
    return !(faces == 3 && layer_of(place) == MAAT_PMX_LAYERS - 1);
}

static int removable(const maat_pmx_state *st, int place)
{
    if (!may_lift(st, place))
        return 0;
    /* the cobra rule: a cobra may go; no other cube one step up or down
     * an axis from a visible cobra */
    if (cube_symbol(st->cube[place]) == MAAT_PMX_COBRA)
        return 1;
    for (int d = 0; d < 3; d++)
        if (is_visible_cobra(st, pmx_up[place][d]) ||
            is_visible_cobra(st, pmx_down[place][d]))
            return 0;
    return 1;
}

int maat_pmx_removable(const maat_pmx_state *st, int place)
{
    return removable(st, place);
}

/* ---- the whole pyramid at once ------------------------------------------
 * legal_actions, and apply after each removal, need every place's visible
 * faces: they are found for all 56 places at once as 56-bit sets (bit p
 * for place p).  A place's face along axis d shows when the place above
 * it along d is outside or empty; the occupied places seen from below
 * along each axis are a few shifts of the occupied set (pyramix_geometry.h
 * says which). */
#define PMX_ALL ((1ull << MAAT_PMX_PLACES) - 1)
#define PMX_BOTTOM (PMX_ALL & ~((1ull << 35) - 1)) /* layer 5: 35..55 */

/* Bit j of the result: the sign bit of byte j of w (byte 0 first in
 * memory); the multiply moves bit 8j to bit 56 + j with no carries. */
static inline uint64_t sign_bits(uint64_t w)
{
    return (((w >> 7) & 0x0101010101010101ull) * 0x0102040810204080ull) >>
           56;
}

/* The OR of (set << shift) & mask over the five shifts of a table of
 * pyramix_geometry.h. */
static inline uint64_t covered(uint64_t set, const pmx_shift shift[5])
{
    uint64_t c = 0;
    for (int k = 0; k < 5; k++)
        c |= set << shift[k].shift & shift[k].mask;
    return c;
}

static void sets_of(const maat_pmx_state *st, pmx_sets *s)
{
    uint64_t empty = 0, cobra = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (int k = 0; k < MAAT_PMX_PLACES / 8; k++) {
        uint64_t w;
        memcpy(&w, st->cube + 8 * k, 8);
        empty |= sign_bits(w) << 8 * k;
        /* a cube id 52..127 (a cobra: cube_symbol) in the bytes that are
         * not negative: adding 76 to the low 7 bits sets the top bit
         * exactly when they are 52 or more, with no carry out */
        cobra |= sign_bits(((w & 0x7f7f7f7f7f7f7f7full) +
                            0x4c4c4c4c4c4c4c4cull) & ~w) << 8 * k;
    }
#else
    for (int p = 0; p < MAAT_PMX_PLACES; p++) {
        empty |= (uint64_t)(st->cube[p] < 0) << p;
        cobra |= (uint64_t)(st->cube[p] >= 52) << p;
    }
#endif
    uint64_t occ = ~empty & PMX_ALL;
    uint64_t under = covered(occ, pmx_layer_shift);
    uint64_t face[3] = {~under, ~covered(under, pmx_row_y_shift),
                        ~covered(under, pmx_row_z_shift)};
    uint64_t two = (face[0] & face[1]) | (face[0] & face[2]) |
                   (face[1] & face[2]);
    uint64_t three = face[0] & face[1] & face[2];
    /* may_lift: a cube showing 2 or 3 faces, not 3 on the bottom layer */
    uint64_t lift = occ & two & ~(three & PMX_BOTTOM);
    s->occupied = occ;
    s->visible = occ & (face[0] | face[1] | face[2]);
    s->cobras = occ & cobra;
    /* the cobra rule: no other cube a step up or down an axis from a
     * visible cobra (a symmetric relation: pmx_line) */
    uint64_t near = 0;
    for (uint64_t m = s->cobras & s->visible; m; m &= m - 1)
        near |= pmx_line[__builtin_ctzll(m)];
    s->removable = lift & (s->cobras | ~near);
}

/* Reveal every cube that now shows a face, by place, among the places
 * `check`; emit the reveals. */
static void reveal_visible(maat_pmx_state *st, uint64_t check,
                           maat_events *ev)
{
    for (uint64_t m = check; m; m &= m - 1) {
        int p = __builtin_ctzll(m), c = st->cube[p];
        if (!st->revealed[c]) {
            st->revealed[c] = 1;
            maat_wire_emit(ev, &maat_pmx_wire_events, MAAT_PMX_EV_REVEAL, -1, p,
                           c, 0, 0);
        }
    }
}

/* After a change: reveal what now shows (of the places that may need it:
 * all but `seen`, places known to show a revealed cube), whether the game
 * is over (no cube may be removed); returns the sets found. */
static pmx_sets settle(maat_pmx_state *st, uint64_t seen, maat_events *ev)
{
    pmx_sets s;
    sets_of(st, &s);
    reveal_visible(st, s.visible & ~seen, ev);
    st->over = s.removable == 0;
    return s;
}

/* settle() for a game, keeping what it found in the memo. */
static void settle_game(maat_game *g, uint64_t seen, maat_events *ev)
{
    pmx_memo *m = &g->memo;
    m->sets = settle(&g->st, seen, ev);
    memcpy(m->cube, g->st.cube, sizeof m->cube);
    memcpy(m->revealed, g->st.revealed, sizeof m->revealed);
    m->valid = 1;
}

/* The memo still describes the cubes (and, with `revealed`, the reveals)
 * of the state. */
static int memo_holds(const maat_game *g, int revealed)
{
    const pmx_memo *m = &g->memo;
    return m->valid && memcmp(m->cube, g->st.cube, sizeof m->cube) == 0 &&
           (!revealed ||
            memcmp(m->revealed, g->st.revealed, sizeof m->revealed) == 0);
}

void maat_pmx_refresh(maat_pmx_state *st)
{
    settle(st, 0, NULL);
}

/* Remove the cube at `place`; if it had two visible faces, the line of
 * cubes above it along the covered direction slides down one place. */
static uint64_t remove_at(maat_pmx_state *st, int place, int seat,
                          maat_events *ev)
{
    int cube = st->cube[place], dir = -1;
    if (faces_of(st, place) == 2)
        for (int d = 0; d < 3; d++) {
            int up = pmx_up[place][d];
            if (up >= 0 && st->cube[up] >= 0)
                dir = d;
        }
    st->collected[seat][cube] = 1;
    st->n_collected[seat]++;
    st->cube[place] = -1;
    maat_wire_emit(ev, &maat_pmx_wire_events, MAAT_PMX_EV_REMOVE, seat, place,
                   cube, dir, 0);
    uint64_t changed = 1ull << place;
    for (int to = place, from; dir >= 0; to = from) {
        from = pmx_up[to][dir];
        if (from < 0 || st->cube[from] < 0)
            break;
        st->cube[to] = st->cube[from];
        st->cube[from] = -1;
        changed |= 1ull << from;
    }
    return changed; /* the places whose cube changed */
}

/* ---- scoring -------------------------------------------------------- */

/* A cobra clears itself and every cube sharing a face or an edge with it:
 * each coordinate differs by at most 1, in one or two axes (pmx_touch). */
void maat_pmx_cobra_cleared(const maat_pmx_state *st,
                            uint8_t cleared[MAAT_PMX_PLACES])
{
    memset(cleared, 0, MAAT_PMX_PLACES);
    for (int p = 0; p < MAAT_PMX_PLACES; p++) {
        if (st->cube[p] < 0 || cube_symbol(st->cube[p]) != MAAT_PMX_COBRA)
            continue;
        cleared[p] = 1;
        for (int q = 0; q < MAAT_PMX_PLACES; q++)
            if (st->cube[q] >= 0 && (pmx_touch[p] >> q & 1))
                cleared[q] = 1;
    }
}

static int cube_points(int cube)
{
    static const int pts[4] = {1, 2, 3, 0};
    return pts[cube_symbol(cube)];
}

/* Bits set in x (no popcount instruction on the baseline x86-64). */
static inline int bits_in(uint64_t x)
{
    x -= x >> 1 & 0x5555555555555555ull;
    x = (x & 0x3333333333333333ull) + (x >> 2 & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (int)((x * 0x0101010101010101ull) >> 56);
}

/* The cube ids of each symbol as sets (bit c = cube c): colour k has ids
 * 13k..13k+12, 8 ankhs, 4 cranes, an eye; 52..55 are the cobras. */
#define PMX_ANKHS 0x00007f83fc1fe0ffull
#define PMX_CRANES 0x0007803c01e00f00ull
#define PMX_EYES 0x0008004002001000ull
_Static_assert((PMX_ANKHS | PMX_CRANES | PMX_EYES) == (1ull << 52) - 1 &&
                   (PMX_ANKHS & PMX_CRANES) == 0 &&
                   (PMX_ANKHS & PMX_EYES) == 0 && (PMX_CRANES & PMX_EYES) == 0,
               "the symbol sets do not split cubes 0..51");

/* The cubes a seat holds, as a set: bit c for each nonzero byte. */
static uint64_t held(const uint8_t collected[MAAT_PMX_CUBES])
{
    uint64_t set = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (int k = 0; k < MAAT_PMX_CUBES / 8; k++) {
        uint64_t w;
        memcpy(&w, collected + 8 * k, 8);
        /* a byte's top bit, or its low 7 bits plus 127 carrying into it */
        set |= sign_bits(((w & 0x7f7f7f7f7f7f7f7full) +
                          0x7f7f7f7f7f7f7f7full) | w) << 8 * k;
    }
#else
    for (int c = 0; c < MAAT_PMX_CUBES; c++)
        set |= (uint64_t)(collected[c] != 0) << c;
#endif
    return set;
}

/* The sum of 8 bytes. */
static inline int byte_sum(const uint8_t *b)
{
    uint64_t w;
    memcpy(&w, b, 8);
    w = (w & 0x00ff00ff00ff00ffull) + (w >> 8 & 0x00ff00ff00ff00ffull);
    return (int)((w * 0x0001000100010001ull) >> 48);
}

void maat_pmx_score_all(const maat_pmx_state *st, maat_score *out)
{
    memset(out, 0, sizeof *out * (size_t)st->seats);
    for (int s = 0; s < st->seats; s++) {
        uint64_t h = held(st->collected[s]);
        out[s].part[MAAT_PMX_S_ANKHS] = bits_in(h & PMX_ANKHS);
        out[s].part[MAAT_PMX_S_CRANES] = 2 * bits_in(h & PMX_CRANES);
        out[s].part[MAAT_PMX_S_EYES] = 3 * bits_in(h & PMX_EYES);
    }
    /* the points of each colour left in the pyramid: every cube but those
     * a cobra clears (itself and what it touches) */
    pmx_sets sets;
    sets_of(st, &sets);
    uint64_t cleared = 0;
    for (uint64_t m = sets.cobras; m; m &= m - 1) {
        int p = __builtin_ctzll(m);
        cleared |= pmx_touch[p] | 1ull << p;
    }
    int left[MAAT_PMX_NO_COLOUR + 1] = {0};
    for (uint64_t m = sets.occupied & ~cleared; m; m &= m - 1) {
        int c = st->cube[__builtin_ctzll(m)];
        left[cube_colour(c)] += cube_points(c);
    }
    for (int colour = 0; colour < 4; colour++) {
        int best = 0, holder = -1;
        for (int s = 0; s < st->seats; s++) {
            /* (the bytes added, as they always were) */
            int ankhs = byte_sum(&st->collected[s][13 * colour]);
            if (ankhs > best) {
                best = ankhs;
                holder = s;
            } else if (ankhs == best) {
                holder = -1; /* a tie for the most takes nothing */
            }
        }
        if (holder >= 0)
            out[holder].part[MAAT_PMX_S_MAJORITY] += left[colour];
    }
    for (int s = 0; s < st->seats; s++)
        for (int k = 0; k < MAAT_PMX_S_PARTS; k++)
            out[s].total += out[s].part[k];
    maat_rank_scores(out, st->seats);
}

/* ---- the interface -------------------------------------------------- */

static maat_setup *setup_new(const maat_options *opt, maat_error *err)
{
    static const char *const known[] = {NULL}; /* no options */
    if (maat_kit_options_check(opt, "pyramix", known, err))
        return NULL;
    return MAAT_KIT_SETUP_NEW("pyramix", err);
}

static maat_game *game_new(const maat_setup *setup, const maat_seed *seed,
                           int seats, maat_events *ev, maat_error *err)
{
    maat_game *g = maat_kit_game_new(setup, seats, 2, MAAT_PMX_MAX_SEATS,
                                     err);
    if (!g)
        return NULL;
    maat_pmx_state *st = &g->st;
    st->seats = seats;
    maat_rng_seed(&st->rng, seed);
    int order[MAAT_PMX_CUBES];
    for (int i = 0; i < MAAT_PMX_CUBES; i++)
        order[i] = i;
    maat_rng_shuffle_int(&st->rng, order, MAAT_PMX_CUBES);
    for (int p = 0; p < MAAT_PMX_PLACES; p++)
        st->cube[p] = (int8_t)order[p];
    settle_game(g, 0, ev);
    return g;
}

static maat_decision decision(const maat_game *g)
{
    maat_decision d = {g->st.over ? -1 : g->st.to_move, MAAT_PMX_REMOVE};
    return d;
}

static int is_over(const maat_game *g)
{
    return g->st.over;
}

static int legal_actions(const maat_game *g, maat_action *out, int cap)
{
    int n = 0;
    if (g->st.over)
        return 0;
    pmx_sets s;
    if (memo_holds(g, 0))
        s = g->memo.sets;
    else
        sets_of(&g->st, &s);
    _Static_assert(MAAT_PMX_REMOVE == 0 && sizeof(maat_action) == 32,
                   "pmx_remove_action is no longer a maat_action");
    for (uint64_t m = s.removable; m; m &= m - 1, n++)
        if (n < cap)
            memcpy(&out[n], pmx_remove_action[__builtin_ctzll(m)],
                   sizeof out[n]);
    return n;
}

static int apply(maat_game *g, const maat_action *a, maat_events *ev,
                 maat_error *err)
{
    maat_pmx_state *st = &g->st;
    if (st->over)
        return maat_error_set(err, MAAT_ESTATE, "the game is over");
    if (a->kind != MAAT_PMX_REMOVE)
        return maat_error_set(err, MAAT_EILLEGAL, "the only decision is "
                              "'remove'");
    int p = maat_pmx_place(a->arg[0], a->arg[1], a->arg[2]);
    if (p < 0)
        return maat_error_set(err, MAAT_EILLEGAL, "(%d, %d, %d) is not a "
                              "place of the pyramid", a->arg[0], a->arg[1],
                              a->arg[2]);
    if (st->cube[p] < 0)
        return maat_error_set(err, MAAT_EILLEGAL, "(%d, %d, %d) is empty",
                              a->arg[0], a->arg[1], a->arg[2]);
    /* (the memo answers for the whole pyramid while it holds) */
    int known = memo_holds(g, 1);
    int ok = known ? (int)(g->memo.sets.removable >> p & 1)
                   : removable(st, p);
    if (!ok) {
        int faces = maat_pmx_visible_faces(st, p);
        return maat_error_set(err, MAAT_EILLEGAL, "the cube at (%d, %d, %d) "
                              "may not be removed: %s", a->arg[0], a->arg[1],
                              a->arg[2],
                              faces < 2 ? "it shows fewer than 2 faces"
                              : faces == 3 && a->arg[0] + a->arg[1] +
                                                      a->arg[2] == 5
                                  ? "it would expose the tray"
                                  : "it touches a visible cobra");
    }
    /* the places that showed a revealed cube before and still hold it
     * need no look (every cube showing a face was revealed when the memo
     * was made) */
    uint64_t before = known ? g->memo.sets.visible : 0;
    uint64_t changed = remove_at(st, p, st->to_move, ev);
    st->turn++;
    st->to_move = (st->to_move + 1) % st->seats;
    settle_game(g, before & ~changed, ev);
    if (st->over)
        maat_wire_emit(ev, &maat_pmx_wire_events, MAAT_PMX_EV_END, -1, 0, 0, 0,
                       0);
    return MAAT_OK;
}

static void scores(const maat_game *g, maat_score *out)
{
    maat_pmx_score_all(&g->st, out);
}

const maat_pmx_state *maat_pmx_state_of(const maat_game *g)
{
    return &g->st;
}

maat_pmx_state *maat_pmx_state_mut(maat_game *g)
{
    return &g->st;
}

MAAT_KIT_FUNCS(maat_pmx_wire_actions, maat_pmx_wire_events)

const maat_rules maat_pyramix_rules = {
    .name = "pyramix",
    .rules_version = "pyramix-2",
    .min_seats = 2,
    .max_seats = MAAT_PMX_MAX_SEATS,
    .decision_names = decision_names,
    .n_decision_kinds = 1,
    .event_names = event_names,
    .n_event_kinds = MAAT_PMX_EV_KINDS,
    .score_parts = score_parts,
    .n_score_parts = MAAT_PMX_S_PARTS,
    MAAT_KIT_ENTRIES(maat_pmx_wire_actions, maat_pmx_wire_events),
    .setup_new = setup_new,
    .setup_encode = maat_pmx_setup_encode,
    .game_new = game_new,
    .decision = decision,
    .is_over = is_over,
    .legal_actions = legal_actions,
    .apply = apply,
    .scores = scores,
    .encode_observation = maat_pmx_encode_observation,
    .render = maat_pmx_render,
    .setup_decode = maat_pmx_setup_decode,
    .view_update = maat_pmx_view_update,
    .determinize = maat_pmx_determinize,
};
