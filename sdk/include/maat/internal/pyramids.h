/* pyramids.h -- Pyramids (IELLO) as a maat game module.
 *
 * The rules are docs/rules/pyramids.md; its Interpretations say where
 * we had to choose.  Everything generic goes through maat_pyramids_rules
 * (see game.h); this header adds what the tests and tools need: the card
 * and state types, the deck file reader and the scoring parts.
 *
 * Internal (sdk/include/maat/internal/, not installed): the state layout
 * and the module's own helpers, for the SDK, the tools and the tests of
 * this tree.  A bot reaches the game through maat/game.h and maat/bot.h;
 * docs/SDK.md lists what each action's args mean.
 *
 * Actions (maat_action; unused args are -1):
 *   GOD   arg0 = tile 1..5
 *   PAIR  arg0 = quarry index 0..seats-1
 *   BUILD arg0 = card for the pyramid, arg1 = stage 0..3, arg2 = position,
 *         arg3 = card for the tomb or -1, arg4 = card for the obelisk or -1
 *   KEEP  arg0 = card kept
 */
#ifndef MAAT_PYRAMIDS_H
#define MAAT_PYRAMIDS_H

#include <stdint.h>

#include "maat/game.h"

extern const maat_rules maat_pyramids_rules;

enum { MAAT_PYR_BLUE, MAAT_PYR_WHITE, MAAT_PYR_RED, MAAT_PYR_GREEN,
       MAAT_PYR_YELLOW, MAAT_PYR_COLOURS };
enum { MAAT_PYR_GLYPH_NONE, MAAT_PYR_GLYPH_PYRAMID, MAAT_PYR_GLYPH_OBELISK,
       MAAT_PYR_GLYPH_TOMB };
enum { MAAT_PYR_GOD, MAAT_PYR_PAIR, MAAT_PYR_BUILD, MAAT_PYR_KEEP,
       MAAT_PYR_OVER };
enum { MAAT_PYR_HORUS = 1, MAAT_PYR_ANUBIS, MAAT_PYR_KHEPRI, MAAT_PYR_SEKHMET,
       MAAT_PYR_THOTH };

/* Event kinds (maat_event.kind) and their args. */
enum {
    MAAT_PYR_EV_DEAL,    /* private: arg0 = card dealt to seat */
    MAAT_PYR_EV_ROUND,   /* arg0 = round 1..10, arg1 = first seat, arg2 = set-aside tile or 0 */
    MAAT_PYR_EV_QUARRY,  /* arg0 = pair index, arg1, arg2 = its cards */
    MAAT_PYR_EV_GOD,     /* seat took tile arg0 */
    MAAT_PYR_EV_PAIR,    /* seat took pair arg0 = index, arg1, arg2 = cards */
    MAAT_PYR_EV_PYRAMID, /* seat built card arg0 at stage arg1, position arg2 */
    MAAT_PYR_EV_OBELISK, /* seat put card arg0 on its obelisk */
    MAAT_PYR_EV_TOMB,    /* public: seat put a card in its tomb (arg0 = -1);
                            private copy to seat: arg0 = the card */
    MAAT_PYR_EV_DISCARD, /* seat discarded card arg0 face up */
    MAAT_PYR_EV_KEEP,    /* private: seat kept card arg0 */
    MAAT_PYR_EV_END,     /* the game is over */
    MAAT_PYR_EV_KINDS
};

/* Score parts (maat_score.part[]). */
enum { MAAT_PYR_S_GROUPS, MAAT_PYR_S_LARGEST, MAAT_PYR_S_BONUS,
       MAAT_PYR_S_OBELISK, MAAT_PYR_S_TOMB, MAAT_PYR_S_GLYPHS,
       MAAT_PYR_S_PARTS };

#define MAAT_PYR_CARDS 105
#define MAAT_PYR_ROUNDS 10
#define MAAT_PYR_MAX_SEATS 5
#define MAAT_PYR_STAGES 4
#define MAAT_PYR_POS_OFFSET 3 /* position p is stored at index p + 3 */
#define MAAT_PYR_POSITIONS 7  /* positions -3..3 */

typedef struct maat_pyr_card {
    uint8_t n_stones;  /* 2 or 3 */
    uint8_t stone[3];  /* colours, left to right */
    uint8_t glyph;
} maat_pyr_card;

/* What scoring needs of a card, worked out once per deck from its stones
 * (maat_pyr_deck_derive) instead of at every card of every scoring.
 * Bytes per stone k (0..2; byte 3 is 0), so they are copied as words: */
typedef struct maat_pyr_card_scoring {
    uint64_t stones;     /* stones per colour, colour c in bits 8c..8c+7 */
    uint8_t colour[4];   /* stone k's colour (0 past the last stone) */
    uint8_t run[4];      /* the first stone of the run of one colour that
                            stone k is in (k when alone) */
    uint8_t size[4];     /* the length of the run stone k starts */
    uint8_t n_stones;
    uint8_t shows;       /* the colours it shows, bit c for colour c */
    uint8_t run_colour;  /* its longest run of one colour, when of 2 or 3 */
    uint8_t run_len;     /* stones; 0 when every stone differs from the next */
    uint8_t glyph;
    uint8_t glyph_is[4]; /* glyph_is[g]: 1 when its glyph is g, else 0 */
    uint8_t left_half;   /* colours of the stones on cells 0..2 of its 6 */
    uint8_t right_half;  /* ... on cells 3..5 (bit c for colour c) */
} maat_pyr_card_scoring;

typedef struct maat_pyr_deck {
    maat_pyr_card card[MAAT_PYR_CARDS];
    /* derived from card[] by maat_pyr_deck_derive, which the deck's
     * readers call: a deck filled by hand must call it too */
    maat_pyr_card_scoring scoring[MAAT_PYR_CARDS];
} maat_pyr_deck;

typedef struct maat_pyr_seat {
    int8_t grid[MAAT_PYR_STAGES][MAAT_PYR_POSITIONS]; /* card id or -1 */
    uint8_t pyramid_n;
    uint8_t hand[3], hand_n;
    uint8_t obelisk[MAAT_PYR_ROUNDS], obelisk_n;
    uint8_t tomb[MAAT_PYR_ROUNDS], tomb_n;
    uint8_t god; /* tile taken this round, 0 = none yet */
} maat_pyr_seat;

typedef struct maat_pyr_state {
    const maat_pyr_deck *deck;
    int seats;
    int round; /* 1..10 */
    int first; /* seat holding the first-player token */
    int phase; /* MAAT_PYR_GOD .. MAAT_PYR_OVER */
    int to_move;
    int cursor; /* progress within the phase */
    uint8_t order[MAAT_PYR_CARDS]; /* the shuffled deck */
    int deck_pos;                  /* next card to deal */
    int8_t quarry[MAAT_PYR_MAX_SEATS][2]; /* -1 = taken */
    int8_t tile_owner[6]; /* seat holding tile t this round, -1 = free */
    uint8_t set_aside;    /* 2 players: tile set aside this round, else 0 */
    uint8_t discard[MAAT_PYR_CARDS];
    int discard_n;
    maat_pyr_seat seat[MAAT_PYR_MAX_SEATS];
    maat_rng rng;
} maat_pyr_state;

/* The state of a Pyramids game; the mutable form is for tests and tools
 * that build positions by hand -- invariants are then the caller's. */
const maat_pyr_state *maat_pyr_state_of(const maat_game *g);
maat_pyr_state *maat_pyr_state_mut(maat_game *g);

/* The deck file: one card per line, "<id> <stones> <glyph>", stones a word
 * of 2 or 3 letters from BWRGY, glyph one of - pyramid obelisk tomb;
 * '#' starts a comment.  Exactly 105 cards, ids 0..104 each once.
 * `name` is used in messages ("file:line: reason"). */
int maat_pyr_deck_parse(maat_pyr_deck *d, const char *text, size_t len,
                        const char *name, maat_error *err);
int maat_pyr_deck_load(maat_pyr_deck *d, const char *path, maat_error *err);
/* Fills d->scoring from d->card (maat_pyr_deck_parse and the SDK's
 * setup decoder call it). */
void maat_pyr_deck_derive(maat_pyr_deck *d);
/* The reference deck (sdk/data/pyramids-deck.txt, built into the library). */
const char *maat_pyr_reference_deck_text(size_t *len);

/* Scoring parts, usable on hand-built edifices. */
/* Largest orthogonally connected group per colour of one pyramid. */
void maat_pyr_groups(const maat_pyr_deck *d, const maat_pyr_seat *s,
                     int largest[MAAT_PYR_COLOURS]);
int maat_pyr_obelisk_points(const maat_pyr_deck *d, const maat_pyr_seat *s);
/* Fills part[] of every seat's score; ranks too. */
void maat_pyr_score_all(const maat_pyr_state *st, maat_score *out);

/* A seat's observation (the msgpack map of docs/PROTOCOL.md) decoded into
 * the state struct.  Cards the seat cannot see are 255 (other hands and
 * tombs, the deck order); `deck` is left NULL.  MAAT_EDECODE naming the
 * field on bad input. */
#define MAAT_PYR_UNKNOWN 255
int maat_pyr_observation_decode(const msgpack_object *o, maat_pyr_state *st,
                                maat_error *err);

/* Legal spots for a new pyramid card: writes (stage, pos) pairs, returns
 * how many. */
int maat_pyr_spots(const maat_pyr_seat *s, int stage_pos[][2], int cap);

extern const char *const maat_pyr_colour_names[MAAT_PYR_COLOURS];
extern const char *const maat_pyr_glyph_names[4];
extern const char *const maat_pyr_god_names[6];

#endif
