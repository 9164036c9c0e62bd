/* pyramix_internal.h -- what the Pyramix source files share: the objects
 * behind the opaque handles, the wire declarations (pyramix_wire.c). */
#ifndef MAAT_PYRAMIX_INTERNAL_H
#define MAAT_PYRAMIX_INTERNAL_H

#include "maat/internal/pyramix.h"
#include "kit.h"

struct maat_setup {
    maat_kit_setup kit; /* Pyramix has no components to load */
};

/* Sets of places (bit p = place p) found for the whole pyramid at once
 * (pyramix.c). */
typedef struct pmx_sets {
    uint64_t occupied; /* a cube is there */
    uint64_t visible;  /* ... showing a face */
    uint64_t cobras;   /* ... a cobra */
    uint64_t removable;
} pmx_sets;

/* What the rules found for the state after its last change: the sets of
 * the cubes as they were then, and every cube that then showed a face
 * revealed.  Used only while cube[] and revealed[] still hold exactly the
 * bytes kept here, so a state edited by hand or decoded from an
 * observation (valid = 0) is simply worked out again. */
typedef struct pmx_memo {
    int8_t cube[MAAT_PMX_PLACES];
    uint8_t revealed[MAAT_PMX_CUBES];
    pmx_sets sets;
    int valid;
} pmx_memo;

struct maat_game {
    maat_pmx_state st;
    pmx_memo memo;
};

#define PMX_HIDDEN (-2) /* view only: an occupied place whose cube is unknown */

struct maat_view {
    maat_kit_view kit;
    maat_pmx_state obs; /* the latest observation; cube[] may hold HIDDEN */
};

extern const maat_wire maat_pmx_wire_actions, maat_pmx_wire_events;

/* One step from `place` along axis d (0 x, 1 y, 2 z): delta -1 is up,
 * +1 down; -1 when that leaves the pyramid. */
int maat_pmx_step(int place, int d, int delta);

int maat_pmx_setup_encode(const maat_setup *s, msgpack_packer *pk);
maat_setup *maat_pmx_setup_decode(const msgpack_object *o, maat_error *err);
int maat_pmx_encode_observation(const maat_game *g, int seat, msgpack_packer *pk);

/* render: the state as text (pyramix_render.c) */
int maat_pmx_render(const maat_game *g, int seat, char *buf, size_t cap);
int maat_pmx_view_update(maat_view *v, const msgpack_object *events,
                    const msgpack_object *observation, maat_error *err);
int maat_pmx_view_legal_actions(const maat_view *v, maat_action *out, int cap);
#define MAAT_KIT_VIEW_LEGAL maat_pmx_view_legal_actions
maat_game *maat_pmx_determinize(const maat_view *v, maat_rng *rng,
                           maat_error *err);

#endif
