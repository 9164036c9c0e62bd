/* pyramids_internal.h -- what the Pyramids source files share and nobody
 * else sees: the setup and game structs behind the opaque handles. */
#ifndef MAAT_PYRAMIDS_INTERNAL_H
#define MAAT_PYRAMIDS_INTERNAL_H

#include "maat/pyramids.h"

struct maat_setup {
    maat_pyr_deck deck;
    char deck_name[128]; /* "reference" or the file it came from */
};

struct maat_game {
    maat_pyr_state st;
};

/* Tiles in play: 1..4 with 2-3 seats, 1..5 with 4-5. */
static inline int pyr_tiles(int seats)
{
    return seats <= 3 ? 4 : 5;
}

/* What the tile lets its holder do besides the pyramid. */
static inline int pyr_may_tomb(int god)
{
    return god == MAAT_PYR_ANUBIS || god == MAAT_PYR_SEKHMET ||
           god == MAAT_PYR_THOTH;
}
static inline int pyr_may_obelisk(int god)
{
    return god == MAAT_PYR_KHEPRI || god == MAAT_PYR_SEKHMET ||
           god == MAAT_PYR_THOTH;
}
/* Sekhmet with 4-5 seats: tomb OR obelisk, not both. */
static inline int pyr_may_both(int god, int seats)
{
    return god == MAAT_PYR_THOTH || (god == MAAT_PYR_SEKHMET && seats <= 3);
}

int pyr_tile_available(const maat_pyr_state *st, int tile);

/* wire: the msgpack side (pyramids_wire.c) */
int pyr_setup_encode(const maat_setup *s, msgpack_packer *pk);
int pyr_encode_observation(const maat_game *g, int seat, msgpack_packer *pk);
int pyr_encode_event(const maat_game *g, const maat_event *e,
                     msgpack_packer *pk);
int pyr_encode_action(const maat_game *g, const maat_action *a,
                      msgpack_packer *pk);
int pyr_decode_action(const maat_game *g, const msgpack_object *o,
                      maat_action *a, maat_error *err);
void pyr_scores(const maat_game *g, maat_score *out);

/* render: the state as text (pyramids_render.c) */
int pyr_render(const maat_game *g, int seat, char *buf, size_t cap);

/* view: the bot side of hidden information (pyramids_view.c) */
maat_setup *pyr_setup_decode(const msgpack_object *o, maat_error *err);
maat_view *pyr_view_new(const maat_setup *s, int seat, int seats);
void pyr_view_destroy(maat_view **v);
int pyr_view_update(maat_view *v, const msgpack_object *events,
                    const msgpack_object *observation, maat_error *err);
maat_game *pyr_determinize(const maat_view *v, maat_rng *rng,
                           maat_error *err);

#endif
