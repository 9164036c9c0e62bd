/* pyramix_internal.h -- what the Pyramix source files share: the objects
 * behind the opaque handles, the wire declarations (pyramix_wire.c). */
#ifndef MAAT_PYRAMIX_INTERNAL_H
#define MAAT_PYRAMIX_INTERNAL_H

#include "maat/internal/pyramix.h"
#include "kit.h"

struct maat_setup {
    maat_kit_setup kit; /* Pyramix has no components to load */
};

struct maat_game {
    maat_pmx_state st;
};

#define PMX_HIDDEN (-2) /* view only: an occupied place whose cube is unknown */

struct maat_view {
    maat_kit_view kit;
    maat_pmx_state obs; /* the latest observation; cube[] may hold HIDDEN */
};

extern const maat_wire pmx_wire_actions, pmx_wire_events;

/* One step from `place` along axis d (0 x, 1 y, 2 z): delta -1 is up,
 * +1 down; -1 when that leaves the pyramid. */
int pmx_step(int place, int d, int delta);

int pmx_setup_encode(const maat_setup *s, msgpack_packer *pk);
maat_setup *pmx_setup_decode(const msgpack_object *o, maat_error *err);
int pmx_encode_observation(const maat_game *g, int seat, msgpack_packer *pk);

/* render: the state as text (pyramix_render.c) */
int pmx_render(const maat_game *g, int seat, char *buf, size_t cap);
int pmx_view_update(maat_view *v, const msgpack_object *events,
                    const msgpack_object *observation, maat_error *err);
maat_game *pmx_determinize(const maat_view *v, maat_rng *rng,
                           maat_error *err);

#endif
