/* pyramix_wire.c -- Pyramix on the wire (observation, events, actions;
 * docs/PROTOCOL.md) and the bot side of its hidden information.
 *
 * The one secret is the symbol of a cube no one has seen yet: a cube's
 * colour and symbol are sent only once it is revealed.  Cubes of the same
 * colour and symbol are interchangeable, so the wire names cubes by
 * (colour, symbol), never by id; determinize deals the never-seen cubes at
 * random into the places still unrevealed. */
#include <stdlib.h>
#include <string.h>

#include "maat/internal/msg.h"
#include "pyramix_internal.h"

/* ---- actions and events ---------------------------------------------- */

/* A place on the wire is its coordinates x, y, z; a cube its colour and
 * symbol, never its id. */
static int place_axis(int place, int axis)
{
    int c[3];
    maat_pmx_coords(place, &c[0], &c[1], &c[2]);
    return c[axis];
}
static int place_x(int place) { return place_axis(place, 0); }
static int place_y(int place) { return place_axis(place, 1); }
static int place_z(int place) { return place_axis(place, 2); }

static const char *const axes[3] = {"x", "y", "z"};
static const char *const event_names_[MAAT_PMX_EV_KINDS] = {"remove",
                                                           "reveal", "end"};

static const maat_wire_kind actions[] = {
    {MAAT_W_KIND("remove", MAAT_PMX_REMOVE),
     MAAT_W_FIELDS(MAAT_W_INT("x", 0, 0, 5), MAAT_W_INT("y", 1, 0, 5),
                   MAAT_W_INT("z", 2, 0, 5))},
};

/* arg0 = the place, arg1 = the cube; remove: arg2 = the axis the line
 * above slid down along, or -1.  A removed cube always showed faces. */
#define PLACE_AND_CUBE                                                         MAAT_W_INT_MAP("x", 0, place_x), MAAT_W_INT_MAP("y", 0, place_y),          MAAT_W_INT_MAP("z", 0, place_z),                                           MAAT_W_NAME_MAP("colour", 1, maat_pmx_colour_names,                                        maat_pmx_cube_colour),                                     MAAT_W_NAME_MAP("symbol", 1, maat_pmx_symbol_names,                                        maat_pmx_cube_symbol)
static const maat_wire_kind events[] = {
    {MAAT_W_KIND("remove", MAAT_PMX_EV_REMOVE),
     MAAT_W_FIELDS(MAAT_W_SEAT, PLACE_AND_CUBE,
                   MAAT_W_NAME_OR_NIL("slide", 2, axes))},
    {MAAT_W_KIND("reveal", MAAT_PMX_EV_REVEAL),
     MAAT_W_FIELDS(PLACE_AND_CUBE)},
    {MAAT_W_KIND("end", MAAT_PMX_EV_END)},
};

const maat_wire maat_pmx_wire_actions = MAAT_W_ACTIONS(actions);
const maat_wire maat_pmx_wire_events = MAAT_W_EVENTS(events);

/* ---- setup: nothing to load ----------------------------------------- */

int maat_pmx_setup_encode(const maat_setup *s, msgpack_packer *pk)
{
    (void)s;
    maat_pack_map(pk, 0);
    return MAAT_OK;
}

maat_setup *maat_pmx_setup_decode(const msgpack_object *o, maat_error *err)
{
    (void)o;
    return MAAT_KIT_SETUP_NEW("pyramix", err);
}

/* ---- the observation ------------------------------------------------ */

static void pack_kind(maat_wire_map *m, int cube)
{
    MAAT_MAP_STR(m, "colour",
                 maat_pmx_colour_names[maat_pmx_cube_colour(cube)]);
    MAAT_MAP_STR(m, "symbol",
                 maat_pmx_symbol_names[maat_pmx_cube_symbol(cube)]);
}

int maat_pmx_encode_observation(const maat_game *g, int seat, msgpack_packer *pk)
{
    const maat_pmx_state *st = &g->st;
    maat_wire_map m;
    maat_kit_observation_begin(&m, pk, &maat_pyramix_rules, seat, st->seats, 8);
    MAAT_MAP_INT(&m, "turn", st->turn);
    MAAT_MAP_KEY(&m, "to_move");
    if (st->over)
        maat_pack_nil(pk);
    else
        maat_pack_int(pk, st->to_move);
    int n = 0;
    for (int p = 0; p < MAAT_PMX_PLACES; p++)
        n += st->cube[p] >= 0;
    /* every occupied place; colour and symbol only once revealed */
    MAAT_MAP_KEY(&m, "cubes");
    maat_pack_array(pk, (size_t)n);
    for (int p = 0; p < MAAT_PMX_PLACES; p++) {
        int c = st->cube[p];
        if (c < 0)
            continue;
        /* MAAT_OMNISCIENT (replays, never sent) shows every cube and
         * marks those nobody has seen */
        int secret = !st->revealed[c] && !st->over;
        int omni = seat == MAAT_OMNISCIENT && secret;
        int x, y, z;
        maat_pmx_coords(p, &x, &y, &z);
        maat_wire_map cm;
        maat_wire_map_begin(&cm, pk, 5);
        MAAT_MAP_INT(&cm, "x", x);
        MAAT_MAP_INT(&cm, "y", y);
        MAAT_MAP_INT(&cm, "z", z);
        if (!secret || omni)
            pack_kind(&cm, c);
        if (omni)
            MAAT_MAP_BOOL(&cm, "unrevealed", 1);
        maat_wire_map_end(&cm);
    }
    MAAT_MAP_KEY(&m, "collected");
    maat_pack_array(pk, (size_t)st->seats);
    for (int s = 0; s < st->seats; s++) {
        maat_pack_array(pk, (size_t)st->n_collected[s]);
        for (int c = 0; c < MAAT_PMX_CUBES; c++)
            if (st->collected[s][c]) {
                maat_wire_map cm;
                maat_wire_map_begin(&cm, pk, 2);
                pack_kind(&cm, c);
                maat_wire_map_end(&cm);
            }
    }
    MAAT_MAP_BOOL(&m, "over", st->over);
    if (st->over) {
        maat_score sc[MAAT_PMX_MAX_SEATS];
        maat_pmx_score_all(st, sc);
        MAAT_MAP_KEY(&m, "scores");
        maat_kit_pack_scores(pk, &maat_pyramix_rules, sc, st->seats);
    }
    maat_wire_map_end(&m);
    return MAAT_OK;
}

/* ---- the view ------------------------------------------------------- */

/* A free cube id of the given colour and symbol names; -1 if none. */
static int take_id(uint8_t *used, const msgpack_object *o, maat_error *err)
{
    int colour = -1, symbol = -1;
    for (int c = 0; c < 5; c++)
        if (maat_msg_str_eq(maat_msg_get(o, "colour"),
                            maat_pmx_colour_names[c]))
            colour = c;
    for (int s = 0; s < 4; s++)
        if (maat_msg_str_eq(maat_msg_get(o, "symbol"),
                            maat_pmx_symbol_names[s]))
            symbol = s;
    for (int id = 0; id < MAAT_PMX_CUBES; id++)
        if (!used[id] && maat_pmx_cube_colour(id) == colour &&
            maat_pmx_cube_symbol(id) == symbol) {
            used[id] = 1;
            return id;
        }
    maat_error_set(err, MAAT_EDECODE, "a cube with an unknown or "
                   "impossible colour/symbol (more than the set holds)");
    return -1;
}

static int decode_observation(maat_pmx_state *st, const msgpack_object *o,
                              maat_error *err)
{
    uint8_t used[MAAT_PMX_CUBES] = {0};
    int64_t n;
    int rc;
    memset(st, 0, sizeof *st);
    memset(st->cube, -1, sizeof st->cube);
    if (!maat_msg_str_eq(maat_msg_get(o, "game"), "pyramix"))
        return maat_error_set(err, MAAT_EDECODE, "not a pyramix observation");
    if ((rc = maat_msg_get_int(o, "seats", 2, MAAT_PMX_MAX_SEATS, &n, err)))
        return rc;
    st->seats = (int)n;
    if ((rc = maat_msg_get_int(o, "turn", 0, MAAT_PMX_CUBES, &n, err)))
        return rc;
    st->turn = (int)n;
    if ((rc = maat_msg_get_int_or(o, "to_move", 0, st->seats - 1, -1, &n,
                                  err)))
        return rc;
    st->to_move = (int)n;
    st->over = maat_msg_get(o, "over") &&
               maat_msg_get(o, "over")->type == MSGPACK_OBJECT_BOOLEAN &&
               maat_msg_get(o, "over")->via.boolean;
    if (!st->over && st->to_move < 0)
        return maat_error_set(err, MAAT_EDECODE, "field 'to_move' is "
                              "required while the game is not over");
    const msgpack_object *cubes = maat_msg_get(o, "cubes");
    if (!cubes || cubes->type != MSGPACK_OBJECT_ARRAY ||
        cubes->via.array.size > MAAT_PMX_PLACES)
        return maat_error_set(err, MAAT_EDECODE, "field 'cubes' must be an "
                              "array of at most 56 places");
    for (uint32_t i = 0; i < cubes->via.array.size; i++) {
        const msgpack_object *c = &cubes->via.array.ptr[i];
        int64_t x, y, z;
        if ((rc = maat_msg_get_int(c, "x", 0, 5, &x, err)) ||
            (rc = maat_msg_get_int(c, "y", 0, 5, &y, err)) ||
            (rc = maat_msg_get_int(c, "z", 0, 5, &z, err)))
            return rc;
        int p = maat_pmx_place((int)x, (int)y, (int)z);
        if (p < 0 || st->cube[p] != -1)
            return maat_error_set(err, MAAT_EDECODE, "cubes: (%d, %d, %d) is "
                                  "outside the pyramid or listed twice",
                                  (int)x, (int)y, (int)z);
        if (!maat_msg_get(c, "symbol")) {
            st->cube[p] = PMX_HIDDEN;
            continue;
        }
        int id = take_id(used, c, err);
        if (id < 0)
            return MAAT_EDECODE;
        st->cube[p] = (int8_t)id;
        st->revealed[id] = 1;
    }
    const msgpack_object *col = maat_msg_get(o, "collected");
    if (!col || col->type != MSGPACK_OBJECT_ARRAY ||
        (int)col->via.array.size != st->seats)
        return maat_error_set(err, MAAT_EDECODE, "field 'collected' must "
                              "have one list per seat");
    for (int s = 0; s < st->seats; s++) {
        const msgpack_object *list = &col->via.array.ptr[s];
        if (list->type != MSGPACK_OBJECT_ARRAY)
            return maat_error_set(err, MAAT_EDECODE, "collected[%d] must be "
                                  "a list", s);
        for (uint32_t k = 0; k < list->via.array.size; k++) {
            int id = take_id(used, &list->via.array.ptr[k], err);
            if (id < 0)
                return MAAT_EDECODE;
            st->collected[s][id] = 1;
            st->revealed[id] = 1;
            st->n_collected[s]++;
        }
    }
    return MAAT_OK;
}

/* ---- following the events (protocol version 2) ----------------------
 * Without an observation the view applies the events to the latest one:
 * a removal moves the cube to the seat's collection and slides the line
 * above it as the event says, a reveal names the kind of a hidden place.
 * Cubes of one kind are interchangeable and the observation decoder
 * gives each the first free id of its kind in the order it lists them;
 * the view renumbers the same way after each message, so it holds
 * exactly what the observation would give (tests/test_view_delta.c). */

static int kind_of(int cube)
{
    return maat_pmx_cube_colour(cube) * 4 + maat_pmx_cube_symbol(cube);
}

/* The ids as decode_observation gives them: places in order, then each
 * seat's collection by kind. */
static int renumber(maat_pmx_state *st)
{
    maat_pmx_state c;
    int next[5 * 4];
    memset(&c, 0, sizeof c);
    memset(c.cube, -1, sizeof c.cube);
    c.seats = st->seats;
    c.turn = st->turn;
    c.to_move = st->to_move;
    c.over = st->over;
    for (int id = MAAT_PMX_CUBES - 1; id >= 0; id--) /* kinds: id blocks */
        next[kind_of(id)] = id;
    for (int k = 0; k < MAAT_PMX_PLACES + MAAT_PMX_MAX_SEATS * MAAT_PMX_CUBES;
         k++) {
        int id, seat = k < MAAT_PMX_PLACES ? -1
                                           : (k - MAAT_PMX_PLACES) /
                                                 MAAT_PMX_CUBES;
        if (seat < 0) {
            id = st->cube[k];
            if (id == PMX_HIDDEN)
                c.cube[k] = PMX_HIDDEN;
        } else {
            if (seat >= st->seats)
                break;
            id = (k - MAAT_PMX_PLACES) % MAAT_PMX_CUBES;
            id = st->collected[seat][id] ? id : -1;
        }
        if (id < 0)
            continue;
        int n = next[kind_of(id)]++;
        if (n >= MAAT_PMX_CUBES || kind_of(n) != kind_of(id))
            return -1; /* more cubes of a kind than the set holds */
        c.revealed[n] = 1;
        if (seat < 0)
            c.cube[k] = (int8_t)n;
        else {
            c.collected[seat][n] = 1;
            c.n_collected[seat]++;
        }
    }
    *st = c;
    return 0;
}

/* An event (the wire declarations encode its place as x, y, z and its
 * cube as colour, symbol, which the generic decoder does not map back):
 * a[0] the place, a[1] a cube of that kind, a[2] the slide axis or -1. */
static int decode_event(const msgpack_object *o, int *kind, int *seat,
                        int32_t *a, maat_error *err)
{
    enum { EVENT, SEAT, X, Y, Z, COLOUR, SYMBOL, SLIDE, N };
    static const char *const keys[N + 1] = {
        "event", "seat", "x", "y", "z", "colour", "symbol", "slide", NULL};
    const msgpack_object *f[N];
    int64_t x, y, z, sv;
    if (!o || o->type != MSGPACK_OBJECT_MAP)
        return maat_error_set(err, MAAT_EDECODE, "an event must be a map");
    maat_msg_pick(o, keys, f);
    *kind = -1;
    for (int k = 0; k < MAAT_PMX_EV_KINDS; k++)
        if (maat_msg_str_eq(f[EVENT], event_names_[k]))
            *kind = k;
    if (*kind < 0)
        return maat_error_set(err, MAAT_EDECODE, "unknown event");
    if (*kind == MAAT_PMX_EV_END)
        return MAAT_OK;
    int rc;
    if ((rc = maat_msg_int(f[X], "x", 0, 5, &x, err)) ||
        (rc = maat_msg_int(f[Y], "y", 0, 5, &y, err)) ||
        (rc = maat_msg_int(f[Z], "z", 0, 5, &z, err)))
        return rc;
    a[0] = maat_pmx_place((int)x, (int)y, (int)z);
    if (a[0] < 0)
        return maat_error_set(err, MAAT_EDECODE, "(%d, %d, %d) is outside "
                              "the pyramid", (int)x, (int)y, (int)z);
    uint8_t used[MAAT_PMX_CUBES] = {0};
    if ((a[1] = take_id(used, o, err)) < 0)
        return MAAT_EDECODE;
    a[2] = -1;
    *seat = -1;
    if (*kind == MAAT_PMX_EV_REMOVE) {
        if ((rc = maat_msg_int(f[SEAT], "seat", 0, MAAT_PMX_MAX_SEATS - 1,
                               &sv, err)))
            return rc;
        *seat = (int)sv;
        for (int d = 0; d < 3; d++)
            if (maat_msg_str_eq(f[SLIDE], axes[d]))
                a[2] = d;
        if (a[2] < 0 && (!f[SLIDE] || f[SLIDE]->type != MSGPACK_OBJECT_NIL))
            return maat_error_set(err, MAAT_EDECODE, "field 'slide' must be "
                                  "x, y, z or nil");
    }
    return MAAT_OK;
}

static int follow_event(maat_pmx_state *st, int kind, int seat,
                        const int32_t *a, maat_error *err)
{
    switch (kind) {
    case MAAT_PMX_EV_REMOVE: {
        int p = a[0], cube = st->cube[p], dir = a[2];
        if (st->over || seat != st->to_move || seat >= st->seats ||
            cube < 0 ||
            kind_of(cube) != kind_of(a[1]))
            return maat_error_set(err, MAAT_EDECODE, "seat %d removed a "
                                  "cube out of turn", seat);
        st->collected[seat][cube] = 1;
        st->n_collected[seat]++;
        st->cube[p] = -1;
        /* the line above slides down one place along dir */
        for (int to = p, from; dir >= 0; to = from) {
            from = maat_pmx_step(to, dir, -1);
            if (from < 0 || st->cube[from] == -1)
                break;
            st->cube[to] = st->cube[from];
            st->cube[from] = -1;
        }
        st->turn++;
        st->to_move = (st->to_move + 1) % st->seats;
        return MAAT_OK;
    }
    case MAAT_PMX_EV_REVEAL:
        if (st->cube[a[0]] != PMX_HIDDEN)
            return maat_error_set(err, MAAT_EDECODE, "a reveal of a place "
                                  "that is not hidden");
        { /* a free id of its kind (renumber() puts the ids in order) */
            uint8_t used[MAAT_PMX_CUBES] = {0};
            for (int p = 0; p < MAAT_PMX_PLACES; p++)
                if (st->cube[p] >= 0)
                    used[st->cube[p]] = 1;
            for (int j = 0; j < st->seats; j++)
                for (int c = 0; c < MAAT_PMX_CUBES; c++)
                    used[c] |= st->collected[j][c];
            int id = 0;
            while (id < MAAT_PMX_CUBES &&
                   (used[id] || kind_of(id) != kind_of(a[1])))
                id++;
            if (id == MAAT_PMX_CUBES)
                return maat_error_set(err, MAAT_EDECODE, "more cubes of a "
                                      "kind than the set holds");
            st->cube[a[0]] = (int8_t)id;
        }
        return MAAT_OK;
    case MAAT_PMX_EV_END:
        st->over = 1;
        return MAAT_OK;
    }
    return maat_error_set(err, MAAT_EDECODE, "unknown event kind %d", kind);
}

int maat_pmx_view_update(maat_view *v, const msgpack_object *events,
                    const msgpack_object *observation, maat_error *err)
{
    if (!observation) {
        if (!v->kit.has_observation)
            return maat_error_set(err, MAAT_ESTATE,
                                  "no observation to follow yet");
        int rc = !events || events->type != MSGPACK_OBJECT_ARRAY
                     ? maat_error_set(err, MAAT_EDECODE,
                                      "events must be an array")
                     : MAAT_OK;
        for (uint32_t i = 0; !rc && i < events->via.array.size; i++) {
            int kind = -1, seat = -1;
            int32_t a[3] = {-1, -1, -1};
            rc = decode_event(&events->via.array.ptr[i], &kind, &seat, a,
                              err);
            if (!rc)
                rc = follow_event(&v->obs, kind, seat, a, err);
        }
        if (!rc && renumber(&v->obs))
            rc = maat_error_set(err, MAAT_EDECODE, "more cubes of a kind "
                                "than the set holds");
        if (rc) /* until an observation comes */
            v->kit.has_observation = 0;
        return rc;
    }
    /* the observation holds everything that is public */
    maat_pmx_state obs;
    int rc = decode_observation(&obs, observation, err);
    if (!rc)
        rc = maat_kit_view_updated(&v->kit, obs.seats, err);
    if (!rc)
        v->obs = obs;
    return rc;
}

/* The rules' own legal_actions on a copy of the view's state in which
 * every hidden place holds a cube that is not a cobra: which cubes
 * may be removed depends on where cubes are and on the cobras showing a
 * face, and a cube that shows a face has been revealed; so what a hidden
 * cube is cannot matter, only that it is there. */
int maat_pmx_view_legal_actions(const maat_view *v, maat_action *out, int cap)
{
    if (!v->kit.has_observation ||
        (!v->obs.over && v->obs.to_move != v->kit.seat))
        return -1;
    maat_game g;
    g.st = v->obs;
    g.memo.valid = 0;
    for (int p = 0; p < MAAT_PMX_PLACES; p++)
        if (g.st.cube[p] == PMX_HIDDEN)
            g.st.cube[p] = 0; /* an ankh: the cobras are ids 52..55 */
    return maat_pyramix_rules.legal_actions(&g, out, cap);
}

maat_game *maat_pmx_determinize(const maat_view *v, maat_rng *rng,
                           maat_error *err)
{
    maat_game *g = maat_kit_determinize_begin(&v->kit, err);
    if (!g)
        return NULL;
    maat_pmx_state *st = &g->st;
    *st = v->obs;
    uint8_t used[MAAT_PMX_CUBES] = {0};
    int pool[MAAT_PMX_CUBES], n_pool = 0, hidden = 0;
    for (int p = 0; p < MAAT_PMX_PLACES; p++) {
        if (st->cube[p] >= 0)
            used[st->cube[p]] = 1;
        hidden += st->cube[p] == PMX_HIDDEN;
    }
    for (int s = 0; s < st->seats; s++)
        for (int c = 0; c < MAAT_PMX_CUBES; c++)
            used[c] |= st->collected[s][c];
    for (int c = 0; c < MAAT_PMX_CUBES; c++)
        if (!used[c])
            pool[n_pool++] = c;
    if (n_pool != hidden) { /* every cube is in the tray or collected */
        maat_kit_game_destroy(&g);
        maat_error_set(err, MAAT_EDECODE, "%d hidden places but %d unseen "
                       "cubes: the observation does not add up", hidden,
                       n_pool);
        return NULL;
    }
    maat_rng_shuffle_int(rng, pool, n_pool);
    int k = 0;
    for (int p = 0; p < MAAT_PMX_PLACES; p++)
        if (st->cube[p] == PMX_HIDDEN)
            st->cube[p] = (int8_t)pool[k++];
    /* a forged observation must not yield a game stuck with no move */
    return maat_kit_determinize_end(&maat_pyramix_rules, g, rng, &st->rng,
                                    "the observation says the game goes on, "
                                    "but no cube may be removed", err);
}
