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
 * (kept up to date from the events between observations).  Its state is
 * also a game's, so the rules' legal_actions reads it as it is
 * (maat_arc_view_legal_actions). */
struct maat_view {
    maat_kit_view kit;
    union {
        maat_arc_state obs;
        struct maat_game as_game;
    };
    int card_open; /* following events: a card's draws may go on */
};

extern const maat_wire maat_arc_wire_actions, maat_arc_wire_events;

/* A state's pointers into its setup. */
static inline void arc_attach(maat_arc_state *st, const maat_setup *s)
{
    st->stones = &s->stones;
    st->cards = &s->cards;
    st->board = &s->board;
}

/* The turn flow without chance, shared by the rules and a bot's view
 * (which learns the draws from events, architects_view.c). */

/* After a step: the turn goes on with its small stones (SMALL), then the
 * cards it is owed while one is face up (CARD): 1 with the phase set.
 * 0 when it ends (cards still owed but none face up are dropped). */
static inline int arc_turn_goes_on(maat_arc_state *st)
{
    if (st->seat[st->to_move].n_hand > 0) {
        st->phase = MAAT_ARC_SMALL;
        return 1;
    }
    for (int i = 0; st->pending_cards > 0 && i < st->board->faceup; i++)
        if (st->faceup[i] >= 0) {
            st->phase = MAAT_ARC_CARD;
            return 1;
        }
    st->pending_cards = 0;
    return 0;
}

/* The common spaces' stones slid towards space 0 over the gap; returns
 * how many there are (the first empty space, to refill). */
static inline int arc_close_gap(maat_arc_state *st)
{
    int k = 0;
    for (int i = 0; i < st->board->common; i++)
        if (st->common[i] >= 0)
            st->common[k++] = st->common[i];
    for (int i = k; i < st->board->common; i++)
        st->common[i] = -1;
    return k;
}

/* The next turn, after the ended one's draws: the next seat takes, or the
 * game is over (returns 1) once every seat placed all its large stones. */
static inline int arc_next_turn(maat_arc_state *st)
{
    st->turn++;
    int done = 1;
    for (int i = 0; i < st->seats; i++)
        done &= st->seat[i].placed == st->board->n_large;
    if (done) {
        st->phase = MAAT_ARC_OVER;
        st->to_move = -1;
        return 1;
    }
    st->to_move = (st->to_move + 1) % st->seats;
    st->phase = MAAT_ARC_TAKE;
    return 0;
}

/* Checks that the three files fit together (enough stones and cards for a
 * full 4-seat game); MAAT_EFORMAT naming the file otherwise. */
int maat_arc_setup_check(const maat_setup *s, maat_error *err);

/* The component parsers as maat_kit_parse_fn (architects_data.c). */
int maat_arc_parse_stones(void *out, const char *text, size_t len,
                     const char *name, maat_error *err);
int maat_arc_parse_cards(void *out, const char *text, size_t len,
                    const char *name, maat_error *err);
int maat_arc_parse_board(void *out, const char *text, size_t len,
                    const char *name, maat_error *err);

/* wire: the msgpack side (architects_wire.c) */
int maat_arc_setup_encode(const maat_setup *s, msgpack_packer *pk);
maat_setup *maat_arc_setup_decode(const msgpack_object *o, maat_error *err);
int maat_arc_encode_observation(const maat_game *g, int seat, msgpack_packer *pk);

/* view: the bot side of hidden information (architects_view.c) */
int maat_arc_view_update(maat_view *v, const msgpack_object *events,
                    const msgpack_object *observation, maat_error *err);
int maat_arc_view_legal_actions(const maat_view *v, maat_action *out, int cap);
#define MAAT_KIT_VIEW_LEGAL maat_arc_view_legal_actions
maat_game *maat_arc_determinize(const maat_view *v, maat_rng *rng,
                           maat_error *err);

void maat_arc_scores(const maat_game *g, maat_score *out);

/* render: the state as text (architects_render.c) */
int maat_arc_render(const maat_game *g, int seat, char *buf, size_t cap);

#endif
