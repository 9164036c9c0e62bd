/* architects_internal.h -- what the architects source files share and
 * nobody else sees: the setup and game structs behind the opaque handles,
 * and the functions one file provides to another. */
#ifndef MAAT_ARCHITECTS_INTERNAL_H
#define MAAT_ARCHITECTS_INTERNAL_H

#include "maat/internal/architects.h"
#include "kit.h"

/* The components of a game, loaded once, shared read-only by its games. */
struct maat_setup {
    maat_kit_setup kit;
    maat_arc_stones stones;
    maat_arc_cards cards;
    maat_arc_board board;
    /* "reference" or the file each came from (sent in the welcome) */
    char stones_name[128], cards_name[128], board_name[128];
};

struct maat_game {
    maat_arc_state st;
};

/* The view (architects_view.c): the latest observation is everything
 * (kept up to date from the events between observations). */
struct maat_view {
    maat_kit_view kit;
    maat_arc_state obs;
    int card_open; /* following events: a card's draws may go on */
};

extern const maat_wire arc_wire_actions, arc_wire_events;

/* A state's pointers into its setup. */
static inline void arc_attach(maat_arc_state *st, const maat_setup *s)
{
    st->stones = &s->stones;
    st->cards = &s->cards;
    st->board = &s->board;
}

/* Checks that the three files fit together (enough stones and cards for a
 * full 4-seat game); MAAT_EFORMAT naming the file otherwise. */
int arc_setup_check(const maat_setup *s, maat_error *err);

/* The component parsers as maat_kit_parse_fn (architects_data.c). */
int arc_parse_stones(void *out, const char *text, size_t len,
                     const char *name, maat_error *err);
int arc_parse_cards(void *out, const char *text, size_t len,
                    const char *name, maat_error *err);
int arc_parse_board(void *out, const char *text, size_t len,
                    const char *name, maat_error *err);

/* wire: the msgpack side (architects_wire.c) */
int arc_setup_encode(const maat_setup *s, msgpack_packer *pk);
maat_setup *arc_setup_decode(const msgpack_object *o, maat_error *err);
int arc_encode_observation(const maat_game *g, int seat, msgpack_packer *pk);

/* view: the bot side of hidden information (architects_view.c) */
int arc_view_update(maat_view *v, const msgpack_object *events,
                    const msgpack_object *observation, maat_error *err);
maat_game *arc_determinize(const maat_view *v, maat_rng *rng,
                           maat_error *err);

void arc_scores(const maat_game *g, maat_score *out);

/* render: the state as text (architects_render.c) */
int arc_render(const maat_game *g, int seat, char *buf, size_t cap);

#endif
