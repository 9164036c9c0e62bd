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

#include "maat/msg.h"
#include "pyramix_internal.h"

#define HIDDEN (-2) /* view only: an occupied place whose cube is unknown */

/* ---- setup: nothing to load ----------------------------------------- */

int pmx_setup_encode(const maat_setup *s, msgpack_packer *pk)
{
    (void)s;
    maat_pack_map(pk, 0);
    return MAAT_OK;
}

maat_setup *pmx_setup_decode(const msgpack_object *o, maat_error *err)
{
    (void)o;
    maat_setup *s = calloc(1, sizeof *s);
    if (!s)
        maat_error_set(err, MAAT_ENOMEM, "out of memory");
    return s;
}

/* ---- encoding ------------------------------------------------------- */

static void pack_kind(msgpack_packer *pk, int cube)
{
    maat_pack_kv_str(pk, "colour",
                     maat_pmx_colour_names[maat_pmx_cube_colour(cube)]);
    maat_pack_kv_str(pk, "symbol",
                     maat_pmx_symbol_names[maat_pmx_cube_symbol(cube)]);
}

static void pack_place(msgpack_packer *pk, int place)
{
    int x, y, z;
    maat_pmx_coords(place, &x, &y, &z);
    maat_pack_kv_int(pk, "x", x);
    maat_pack_kv_int(pk, "y", y);
    maat_pack_kv_int(pk, "z", z);
}

int pmx_encode_observation(const maat_game *g, int seat, msgpack_packer *pk)
{
    const maat_pmx_state *st = &g->st;
    maat_pack_map(pk, st->over ? 9 : 8);
    maat_pack_kv_str(pk, "game", "pyramix");
    maat_pack_kv_int(pk, "seat", seat);
    maat_pack_kv_int(pk, "seats", st->seats);
    maat_pack_kv_int(pk, "turn", st->turn);
    maat_pack_str(pk, "to_move");
    if (st->over)
        maat_pack_nil(pk);
    else
        maat_pack_int(pk, st->to_move);
    int n = 0;
    for (int p = 0; p < MAAT_PMX_PLACES; p++)
        n += st->cube[p] >= 0;
    /* every occupied place; colour and symbol only once revealed */
    maat_pack_str(pk, "cubes");
    maat_pack_array(pk, (size_t)n);
    for (int p = 0; p < MAAT_PMX_PLACES; p++) {
        int c = st->cube[p];
        if (c < 0)
            continue;
        /* MAAT_OMNISCIENT (replays, never sent) shows every cube and
         * marks those nobody has seen */
        int secret = !st->revealed[c] && !st->over;
        int omni = seat == MAAT_OMNISCIENT && secret;
        int shown = !secret || omni;
        maat_pack_map(pk, (shown ? 5 : 3) + omni);
        pack_place(pk, p);
        if (shown)
            pack_kind(pk, c);
        if (omni) {
            maat_pack_str(pk, "unrevealed");
            maat_pack_bool(pk, 1);
        }
    }
    maat_pack_str(pk, "collected");
    maat_pack_array(pk, (size_t)st->seats);
    for (int s = 0; s < st->seats; s++) {
        maat_pack_array(pk, (size_t)st->n_collected[s]);
        for (int c = 0; c < MAAT_PMX_CUBES; c++)
            if (st->collected[s][c]) {
                maat_pack_map(pk, 2);
                pack_kind(pk, c);
            }
    }
    maat_pack_str(pk, "over");
    maat_pack_bool(pk, st->over);
    if (st->over) {
        maat_score sc[MAAT_PMX_MAX_SEATS];
        maat_pmx_score_all(st, sc);
        maat_pack_str(pk, "scores");
        maat_pack_array(pk, (size_t)st->seats);
        for (int s = 0; s < st->seats; s++) {
            maat_pack_map(pk, 3);
            maat_pack_kv_int(pk, "total", sc[s].total);
            maat_pack_kv_int(pk, "rank", sc[s].rank);
            maat_pack_str(pk, "parts");
            maat_pack_map(pk, MAAT_PMX_S_PARTS);
            for (int k = 0; k < MAAT_PMX_S_PARTS; k++)
                maat_pack_kv_int(pk, maat_pyramix_rules.score_parts[k],
                                 sc[s].part[k]);
        }
    }
    return MAAT_OK;
}

int pmx_encode_event(const maat_game *g, const maat_event *e,
                     msgpack_packer *pk)
{
    (void)g;
    static const char *const axes[3] = {"x", "y", "z"};
    switch (e->kind) {
    case MAAT_PMX_EV_REMOVE: /* a removed cube always showed faces */
        maat_pack_map(pk, 8);
        maat_pack_kv_str(pk, "event", "remove");
        maat_pack_kv_int(pk, "seat", e->seat);
        pack_place(pk, e->arg[0]);
        pack_kind(pk, e->arg[1]);
        maat_pack_str(pk, "slide");
        if (e->arg[2] >= 0)
            maat_pack_str(pk, axes[e->arg[2]]);
        else
            maat_pack_nil(pk);
        return MAAT_OK;
    case MAAT_PMX_EV_REVEAL:
        maat_pack_map(pk, 6);
        maat_pack_kv_str(pk, "event", "reveal");
        pack_place(pk, e->arg[0]);
        pack_kind(pk, e->arg[1]);
        return MAAT_OK;
    case MAAT_PMX_EV_END:
        maat_pack_map(pk, 1);
        maat_pack_kv_str(pk, "event", "end");
        return MAAT_OK;
    }
    return MAAT_EINVAL;
}

int pmx_encode_action(const maat_game *g, const maat_action *a,
                      msgpack_packer *pk)
{
    (void)g;
    maat_pack_map(pk, 4);
    maat_pack_kv_str(pk, "kind", "remove");
    maat_pack_kv_int(pk, "x", a->arg[0]);
    maat_pack_kv_int(pk, "y", a->arg[1]);
    maat_pack_kv_int(pk, "z", a->arg[2]);
    return MAAT_OK;
}

int pmx_decode_action(const maat_game *g, const msgpack_object *o,
                      maat_action *a, maat_error *err)
{
    (void)g;
    static const char *const keys[] = {"kind", "x", "y", "z", NULL};
    const msgpack_object *f[4]; /* the values of keys[] */
    int64_t v[3];
    int rc;
    memset(a, -1, sizeof *a);
    if (!o || o->type != MSGPACK_OBJECT_MAP)
        return maat_error_set(err, MAAT_EDECODE, "the action must be a map");
    /* One pass finds every field; with a bad key f[] still holds each
     * field's first value, so a bad kind or value is reported first, as
     * this function always did. */
    int krc = maat_msg_fields(o, keys, f, "the action", err);
    if (!MAAT_MSG_STR_IS(f[0], "remove"))
        return maat_error_set(err, MAAT_EDECODE,
                              "field 'kind' must be \"remove\"");
    if ((rc = maat_msg_int(f[1], "x", 0, 5, &v[0], err)) ||
        (rc = maat_msg_int(f[2], "y", 0, 5, &v[1], err)) ||
        (rc = maat_msg_int(f[3], "z", 0, 5, &v[2], err)) ||
        (krc && (rc = maat_msg_only_keys(o, keys, "the action", err))))
        return rc;
    a->kind = MAAT_PMX_REMOVE;
    for (int i = 0; i < 3; i++)
        a->arg[i] = (int32_t)v[i];
    return MAAT_OK;
}

/* ---- the view ------------------------------------------------------- */

struct maat_view {
    int seat, seats;
    int has_observation;
    maat_pmx_state obs; /* cube[] may hold HIDDEN */
};

maat_view *pmx_view_new(const maat_setup *s, int seat, int seats)
{
    (void)s;
    maat_view *v = calloc(1, sizeof *v);
    if (v) {
        v->seat = seat;
        v->seats = seats;
    }
    return v;
}

void pmx_view_destroy(maat_view **v)
{
    if (v && *v) {
        free(*v);
        *v = NULL;
    }
}

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

static int decode_observation(maat_view *v, const msgpack_object *o,
                              maat_error *err)
{
    maat_pmx_state *st = &v->obs;
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
            st->cube[p] = HIDDEN;
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

int pmx_view_update(maat_view *v, const msgpack_object *events,
                    const msgpack_object *observation, maat_error *err)
{
    (void)events; /* the observation holds everything that is public */
    maat_view tmp = *v;
    int rc = decode_observation(&tmp, observation, err);
    if (rc)
        return rc;
    if (tmp.obs.seats != v->seats)
        return maat_error_set(err, MAAT_EDECODE, "observation for %d seats, "
                              "view for %d", tmp.obs.seats, v->seats);
    *v = tmp;
    v->has_observation = 1;
    return MAAT_OK;
}

maat_game *pmx_determinize(const maat_view *v, maat_rng *rng,
                           maat_error *err)
{
    if (!v->has_observation) {
        maat_error_set(err, MAAT_ESTATE, "the view has no observation yet");
        return NULL;
    }
    maat_game *g = malloc(sizeof *g);
    if (!g) {
        maat_error_set(err, MAAT_ENOMEM, "out of memory");
        return NULL;
    }
    maat_pmx_state *st = &g->st;
    *st = v->obs;
    uint8_t used[MAAT_PMX_CUBES] = {0};
    int pool[MAAT_PMX_CUBES], n_pool = 0, hidden = 0;
    for (int p = 0; p < MAAT_PMX_PLACES; p++) {
        if (st->cube[p] >= 0)
            used[st->cube[p]] = 1;
        hidden += st->cube[p] == HIDDEN;
    }
    for (int s = 0; s < st->seats; s++)
        for (int c = 0; c < MAAT_PMX_CUBES; c++)
            used[c] |= st->collected[s][c];
    for (int c = 0; c < MAAT_PMX_CUBES; c++)
        if (!used[c])
            pool[n_pool++] = c;
    if (n_pool != hidden) { /* every cube is in the tray or collected */
        free(g);
        maat_error_set(err, MAAT_EDECODE, "%d hidden places but %d unseen "
                       "cubes: the observation does not add up", hidden,
                       n_pool);
        return NULL;
    }
    maat_rng_shuffle_int(rng, pool, n_pool);
    int k = 0;
    for (int p = 0; p < MAAT_PMX_PLACES; p++)
        if (st->cube[p] == HIDDEN)
            st->cube[p] = (int8_t)pool[k++];
    maat_rng_fork(rng, &st->rng);
    /* a forged observation must not yield a game stuck with no move */
    if (!st->over && maat_pyramix_rules.legal_actions(g, NULL, 0) == 0) {
        free(g);
        maat_error_set(err, MAAT_EDECODE, "the observation says the game "
                       "goes on, but no cube may be removed");
        return NULL;
    }
    return g;
}
