/* pyramids_internal.h -- what the Pyramids source files share and nobody
 * else sees: the objects behind the opaque handles, the wire declarations
 * (pyramids_wire.c). */
#ifndef MAAT_PYRAMIDS_INTERNAL_H
#define MAAT_PYRAMIDS_INTERNAL_H

#include <string.h>

#include "maat/internal/pyramids.h"
#include "kit.h"

struct maat_setup {
    maat_kit_setup kit;
    maat_pyr_deck deck;
    char deck_name[128]; /* "reference" or the file it came from */
};

struct maat_game {
    maat_pyr_state st;
};

/* The view (pyramids_view.c): the latest observation and, per other seat,
 * the public steps of its private cards. */
enum { PYR_STEP_TAKE, PYR_STEP_LEAVE, PYR_STEP_TOMB };
typedef struct pyr_step {
    uint8_t kind, card, card2;
} pyr_step;

#define PYR_MAX_STEPS 96 /* per seat: 10 rounds x (take, 3 builds, 2 discards) */

struct maat_view {
    maat_kit_view kit;
    union { /* the latest observation, unknown cards = 255; a game too */
        maat_pyr_state obs;
        struct maat_game as_game;
    };
    pyr_step steps[MAAT_PYR_MAX_SEATS][PYR_MAX_STEPS];
    int n_steps[MAAT_PYR_MAX_SEATS];
    int overflow;
    int build_open; /* following events: a build whose events may go on */
    /* following events: the cards the state shows somewhere (each may be
     * in one place only), built from the observation when first needed */
    uint8_t shown[MAAT_PYR_CARDS];
    int shown_valid;
};

extern const maat_wire maat_pyr_wire_actions, maat_pyr_wire_events;

/* Tiles in play: 1..4 with 2-3 seats, 1..5 with 4-5. */
/* The next seat from st->cursor on (clockwise from the first player) that
 * must keep one card: 1 with its KEEP decision set.  Else 0, with the next
 * round's first player and number set: the caller starts the round (the
 * rules deal it; a bot's view learns the deal from events). */
static inline int pyr_next_keeper(maat_pyr_state *st)
{
    for (; st->cursor < st->seats; st->cursor++) {
        int seat = (st->first + st->cursor) % st->seats;
        if (st->seat[seat].hand_n > 1) {
            st->phase = MAAT_PYR_KEEP;
            st->to_move = seat;
            return 1;
        }
    }
    st->first = (st->first + 1) % st->seats;
    st->round++;
    return 0;
}

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

int maat_pyr_tile_available(const maat_pyr_state *st, int tile);

/* A seat's pyramid as a bit mask: bit 7 * stage + i stands for
 * grid[stage][i] (position i - 3), set when a card is there.  The 28
 * cells are 28 contiguous bytes and a cell is empty when its byte is
 * negative, so the mask is their sign bits (maat_kit_signs16): of bytes
 * 0..15 and 12..27 (bytes 12..15 are gathered twice, to the same bits). */
#define PYR_CELL_MASK ((1u << (MAAT_PYR_STAGES * MAAT_PYR_POSITIONS)) - 1)

static inline uint32_t pyr_occupied(const maat_pyr_seat *s)
{
    const char *g = (const char *)s->grid;
    uint32_t empty = maat_kit_signs16(g) | maat_kit_signs16(g + 12) << 12;
    return ~empty & PYR_CELL_MASK;
}

/* Derived data, and when it is valid.  A deck carries, per card, what
 * scoring reads of it (maat_pyr_deck.scoring, maat_pyr_card_scoring in
 * maat/internal/pyramids.h): worked out from card[] by
 * maat_pyr_deck_derive (pyramids_score.c), which both readers of a deck
 * call as they finish, maat_pyr_deck_parse (pyramids_deck.c) and
 * maat_pyr_setup_decode (pyramids_view.c).  A deck is never changed after
 * that (states and setups hold it const), so it stays valid; a deck
 * filled by hand must call maat_pyr_deck_derive.  Nothing is derived in
 * maat_pyr_state: a seat's spots are made once and read once per round,
 * so keeping them in the state only moved their cost into apply
 * (docs/PERFORMANCE.md, "Rules engine, fifth round").  Checked by
 * tests/test_pyramids_deck.c (against the stones, every possible card)
 * and test_pyramids_view.c (the SDK's decoded deck, byte for byte). */

/* maat_pyr_deck_parse as a maat_kit_parse_fn (pyramids_deck.c) */
int maat_pyr_parse_deck(void *deck, const char *text, size_t len, const char *name,
                   maat_error *err);

/* wire: the msgpack side (pyramids_wire.c) */
int maat_pyr_setup_encode(const maat_setup *s, msgpack_packer *pk);
int maat_pyr_encode_observation(const maat_game *g, int seat, msgpack_packer *pk);
void maat_pyr_scores(const maat_game *g, maat_score *out);

/* render: the state as text (pyramids_render.c) */
int maat_pyr_render(const maat_game *g, int seat, char *buf, size_t cap);

/* view: the bot side of hidden information (pyramids_view.c) */
maat_setup *maat_pyr_setup_decode(const msgpack_object *o, maat_error *err);
int maat_pyr_view_update(maat_view *v, const msgpack_object *events,
                    const msgpack_object *observation, maat_error *err);
maat_game *maat_pyr_determinize(const maat_view *v, maat_rng *rng,
                           maat_error *err);

/* view_legal_actions (pyramids_view.c), which MAAT_KIT_ENTRIES puts in
 * the rules table: the rules' own legal_actions on the view's state (the
 * decision being the view's seat's, its hand is exact). */
int maat_pyr_view_legal_actions(const maat_view *v, maat_action *out, int cap);
#define MAAT_KIT_VIEW_LEGAL maat_pyr_view_legal_actions

#endif
