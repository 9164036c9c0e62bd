/* architects.h -- the architects' game as a maat game module.
 *
 * The rules are docs/rules/architects.md (our reconstruction of a
 * rulebook whose board, stones and cards exist only in pictures); its
 * Interpretations say where we had to choose.  Everything generic goes
 * through maat_architects_rules (see game.h); this header adds what the
 * tests and tools need: the component, board and state types, the three
 * data-file readers and the scoring parts.
 *
 * Internal (sdk/include/maat/internal/, not installed): the state layout
 * and the module's own helpers, for the SDK, the tools and the tests of
 * this tree.  A bot reaches the game through maat/game.h and maat/bot.h;
 * docs/SDK.md lists what each action's args mean.
 *
 * All components are data, loaded and validated at start-up: the stones
 * (sdk/data/architects-stones.txt), the cards (architects-cards.txt) and
 * the board -- common spaces, pyramid spaces, card spots, which pieces
 * touch (architects-board.txt).  The reference files are built into the
 * library; options stones=FILE, cards=FILE, board=FILE substitute others.
 *
 * A turn is the rules page's take -> place -> card, with the placement
 * split (maat_action holds 7 ints; a seat may hold many small stones):
 *   TAKE  arg0 = common space 0..common-1
 *   PLACE arg0 = the large stone taken, arg1 = level, arg2 = pos,
 *         arg3 = rotated 0/1 (1 only for a stone opening on one side)
 *   SMALL arg0 = the first small stone held, arg1 = level or 0 for the
 *         collection, arg2 = side (0 left, 1 right; -1 for the collection)
 *   CARD  arg0 = a face-up card
 * one SMALL per held small stone (in the order held) after PLACE, CARD
 * when the stone completed a card spot, and SMALL again for Khnum's two.
 * Unused args are -1.
 */
#ifndef MAAT_ARCHITECTS_H
#define MAAT_ARCHITECTS_H

#include <stddef.h>
#include <stdint.h>

#include "maat/game.h"

extern const maat_rules maat_architects_rules;

/* Limits of the data files (ids are stored in int8_t). */
#define MAAT_ARC_MAX_LARGE 120   /* large stones */
#define MAAT_ARC_MAX_SMALL 120   /* small stones */
#define MAAT_ARC_MAX_CARDS 64
#define MAAT_ARC_MAX_LEVELS 8
#define MAAT_ARC_MAX_SPACES 32   /* large spaces of a pyramid */
#define MAAT_ARC_MAX_SMALLSP (2 * MAAT_ARC_MAX_LEVELS) /* small spaces */
#define MAAT_ARC_MAX_COMMON 8    /* spaces of the common board */
#define MAAT_ARC_MAX_FACEUP 8    /* face-up cards */
#define MAAT_ARC_MAX_SPOTS 8     /* card spots */
#define MAAT_ARC_MAX_SEATS 4
#define MAAT_ARC_KHNUM_DRAW 2    /* small stones Khnum draws */

enum { MAAT_ARC_BLUE, MAAT_ARC_BROWN, MAAT_ARC_YELLOW, MAAT_ARC_WHITE,
       MAAT_ARC_COLOURS };
/* God symbols; 0 = none. */
enum { MAAT_ARC_NO_SYMBOL, MAAT_ARC_ANKH, MAAT_ARC_EYE, MAAT_ARC_SCARAB,
       MAAT_ARC_FEATHER, MAAT_ARC_SUN, MAAT_ARC_SYMBOLS };
/* Openings, a bit mask: as printed, before any rotation. */
enum { MAAT_ARC_OPEN_LEFT = 1, MAAT_ARC_OPEN_RIGHT = 2 };
enum { MAAT_ARC_LEFT, MAAT_ARC_RIGHT }; /* small-space sides */
enum { MAAT_ARC_PRIEST, MAAT_ARC_OSIRIS, MAAT_ARC_DIVINE_PATH, MAAT_ARC_SET,
       MAAT_ARC_ARCHITECT, MAAT_ARC_SCRIBE, MAAT_ARC_VIZIER, MAAT_ARC_BASTET,
       MAAT_ARC_THOTH, MAAT_ARC_KHNUM, MAAT_ARC_CARD_KINDS };

/* Decision kinds (maat_decision.kind, maat_action.kind) and the end. */
enum { MAAT_ARC_TAKE, MAAT_ARC_PLACE, MAAT_ARC_SMALL, MAAT_ARC_CARD,
       MAAT_ARC_OVER };

/* Event kinds (maat_event.kind), all public, and their args. */
enum {
    MAAT_ARC_EV_REFILL, /* large stone arg1 drawn face up into space arg0 */
    MAAT_ARC_EV_FACEUP, /* card arg1 turned face up into slot arg0 */
    MAAT_ARC_EV_DRAW,   /* seat drew small stone arg0 from the bag
                           (arg1: 0 end of turn / setup, 1 Khnum) */
    MAAT_ARC_EV_PAY,    /* seat put small stone arg0 on space 0 */
    MAAT_ARC_EV_TAKE,   /* seat took large stone arg1 from space arg0 and
                           arg2 small stones lying on it */
    MAAT_ARC_EV_PLACE,  /* seat placed large stone arg0 at level arg1,
                           position arg2, rotated arg3 */
    MAAT_ARC_EV_SMALL,  /* seat put small stone arg0 at level arg1, side
                           arg2 -- or into its collection (arg1 0, arg2 -1) */
    MAAT_ARC_EV_CARD,   /* seat took face-up card arg0 from slot arg1 */
    MAAT_ARC_EV_END,    /* the game is over */
    MAAT_ARC_EV_KINDS
};

/* Score parts (maat_score.part[]); the card bonuses are one part, the
 * breakdown per card is in maat_arc_detail. */
enum { MAAT_ARC_S_STRUCTURE, MAAT_ARC_S_CHAMBERS, MAAT_ARC_S_SYMBOLS,
       MAAT_ARC_S_WORKERS, MAAT_ARC_S_COLLECTION, MAAT_ARC_S_CARDS,
       MAAT_ARC_S_PARTS };

/* ---- components ------------------------------------------------------ */

typedef struct maat_arc_large {
    uint8_t colour;
    uint8_t open;        /* MAAT_ARC_OPEN_* bits, as printed */
    uint8_t sarcophagus; /* 0/1 */
    uint8_t symbol;      /* MAAT_ARC_NO_SYMBOL or a symbol */
} maat_arc_large;

typedef struct maat_arc_small {
    uint8_t colour;
    uint8_t workers; /* 1..3 */
} maat_arc_small;

typedef struct maat_arc_stones {
    int n_large, n_small;
    maat_arc_large large[MAAT_ARC_MAX_LARGE];
    maat_arc_small small[MAAT_ARC_MAX_SMALL];
} maat_arc_stones;

typedef struct maat_arc_cards {
    int n;
    uint8_t kind[MAAT_ARC_MAX_CARDS];
} maat_arc_cards;

/* The board.  A pyramid's pieces are numbered: large spaces 0..n_large-1
 * (level by level from the bottom, left to right), then small spaces
 * n_large + 2 * (level - 1) + side, then the bottom (maat_arc_bottom). */
typedef struct maat_arc_board {
    int common; /* spaces of the common board; space 0 is the first */
    int faceup; /* face-up cards */
    int levels; /* levels 1..levels */
    int level_n[MAAT_ARC_MAX_LEVELS + 1];     /* large spaces of level L */
    int level_first[MAAT_ARC_MAX_LEVELS + 1]; /* index of (L, 0) */
    int n_large;                              /* large spaces in all */
    uint8_t space_level[MAAT_ARC_MAX_SPACES], space_pos[MAAT_ARC_MAX_SPACES];
    int n_spots;
    uint8_t spot[MAAT_ARC_MAX_SPOTS][2]; /* two large-space indices */
    /* touch[p]: bit q set when pieces p and q share an edge */
    uint64_t touch[MAAT_ARC_MAX_SPACES + MAAT_ARC_MAX_SMALLSP + 1];
} maat_arc_board;

static inline int maat_arc_n_small_spaces(const maat_arc_board *b)
{
    return 2 * b->levels;
}
static inline int maat_arc_small_piece(const maat_arc_board *b, int level,
                                       int side)
{
    return b->n_large + 2 * (level - 1) + side;
}
static inline int maat_arc_bottom(const maat_arc_board *b)
{
    return b->n_large + 2 * b->levels;
}
/* The index of large space (level, pos), -1 when there is none. */
int maat_arc_space(const maat_arc_board *b, int level, int pos);

/* ---- state ----------------------------------------------------------- */

typedef struct maat_arc_seat {
    int8_t large[MAAT_ARC_MAX_SPACES];   /* stone id per large space, -1 */
    uint8_t rotated[MAAT_ARC_MAX_SPACES]; /* placed turned by 180 degrees */
    int8_t small[MAAT_ARC_MAX_SMALLSP];  /* small stone per small space, -1 */
    uint8_t collection[MAAT_ARC_MAX_SMALL], n_collection;
    uint8_t hand[MAAT_ARC_MAX_SMALL], n_hand; /* small stones held, in order */
    uint8_t cards[MAAT_ARC_MAX_SPOTS], n_cards;
    uint8_t placed; /* large stones placed */
} maat_arc_seat;

typedef struct maat_arc_state {
    const maat_arc_stones *stones;
    const maat_arc_cards *cards;
    const maat_arc_board *board;
    int seats;
    int phase;   /* MAAT_ARC_TAKE .. MAAT_ARC_OVER */
    int to_move; /* -1 once over */
    int turn;    /* turns completed */
    int taken;   /* the large stone to place (PLACE), else -1 */
    int pending_cards; /* cards still to take this turn */
    int8_t common[MAAT_ARC_MAX_COMMON];  /* large stone per space, -1 */
    uint8_t space0[MAAT_ARC_MAX_SMALL];  /* small stones on space 0, in the */
    int n_space0;                        /* order laid there */
    int8_t faceup[MAAT_ARC_MAX_FACEUP];  /* card per slot, -1 */
    /* The hidden orders: the next draw is the LAST element. */
    uint8_t supply[MAAT_ARC_MAX_LARGE];
    int n_supply;
    uint8_t bag[MAAT_ARC_MAX_SMALL];
    int n_bag;
    uint8_t pile[MAAT_ARC_MAX_CARDS];
    int n_pile;
    maat_arc_seat seat[MAAT_ARC_MAX_SEATS];
    maat_rng rng;
} maat_arc_state;

/* The state of a game; the mutable form is for tests and tools that build
 * positions by hand -- invariants are then the caller's. */
const maat_arc_state *maat_arc_state_of(const maat_game *g);
maat_arc_state *maat_arc_state_mut(maat_game *g);

/* Openings of the stone at large space `space` of seat s, rotation
 * applied; 0 for an empty space. */
int maat_arc_openings(const maat_arc_stones *st, const maat_arc_seat *s,
                      int space);

/* ---- data files -------------------------------------------------------
 * Text, one item a line, '#' starts a comment, words separated by blanks.
 * `name` is used in messages: "name:line: reason".
 *
 * Stones:  large <id> <colour> <openings> <sarcophagus> <symbol>
 *          small <id> <colour> <workers>
 *   colour blue|brown|yellow|white; openings none|left|right|both (as
 *   printed); sarcophagus sarcophagus|-; symbol ankh|eye|scarab|feather|
 *   sun|-; workers 1..3.  Large ids 0..n-1 and small ids 0..m-1 each once
 *   (1 <= n, m <= 120).
 * Cards:   card <id> <kind>
 *   kind priest|osiris|divine-path|set|architect|scribe|vizier|bastet|
 *   thoth|khnum; ids 0..n-1 each once (1 <= n <= 64).
 * Board:   common <n>          spaces of the common board (2..8)
 *          faceup <n>          face-up cards (1..8)
 *          level <L> <n>       level L (1, 2, ... in order, at most 8) has
 *                              n large spaces, positions 0..n-1, and a
 *                              left and a right small space
 *          spot <piece> <piece>   a card spot: two large spaces
 *          touch <piece> <piece>  two pieces share an edge
 *   piece: L.p (large space), L.left / L.right (small space) or bottom;
 *   at most 32 large spaces and 8 spots; each once. */
int maat_arc_stones_parse(maat_arc_stones *s, const char *text, size_t len,
                          const char *name, maat_error *err);
int maat_arc_cards_parse(maat_arc_cards *c, const char *text, size_t len,
                         const char *name, maat_error *err);
int maat_arc_board_parse(maat_arc_board *b, const char *text, size_t len,
                         const char *name, maat_error *err);
/* Read a whole file and parse it with one of the above. */
int maat_arc_stones_load(maat_arc_stones *s, const char *path,
                         maat_error *err);
int maat_arc_cards_load(maat_arc_cards *c, const char *path, maat_error *err);
int maat_arc_board_load(maat_arc_board *b, const char *path, maat_error *err);
/* The reference files (sdk/data/architects-*.txt, built into the library). */
const char *maat_arc_reference_stones(size_t *len);
const char *maat_arc_reference_cards(size_t *len);
const char *maat_arc_reference_board(size_t *len);

/* ---- scoring ----------------------------------------------------------
 * Each part is a function of one pyramid, usable on hand-built seats. */

/* Solid structure: height[c] = the highest level of a group of touching
 * pieces of colour c that touches the bottom (0 if none).  Returns the sum. */
int maat_arc_structure(const maat_arc_board *b, const maat_arc_stones *st,
                       const maat_arc_seat *s, int height[MAAT_ARC_COLOURS]);

/* Burial chambers: returns the points; *scoring = scoring sarcophagi,
 * *exits = chamber exits, *joined = pairs of joined neighbours (any may be
 * NULL). */
int maat_arc_chambers(const maat_arc_board *b, const maat_arc_stones *st,
                      const maat_arc_seat *s, int *scoring, int *exits,
                      int *joined);

/* Points for n distinct symbols: 0, 2, 4, 7, 11, 16 for n = 0..5. */
int maat_arc_symbol_points(int distinct);
/* Distinct symbols in the pyramid; *all = symbols counting duplicates. */
int maat_arc_symbols(const maat_arc_board *b, const maat_arc_stones *st,
                     const maat_arc_seat *s, int *all);

/* Workers: the points of the balanced levels; *on_pyramid = all workers
 * on small stones in the pyramid (may be NULL). */
int maat_arc_workers(const maat_arc_board *b, const maat_arc_stones *st,
                     const maat_arc_seat *s, int *on_pyramid);

/* Everything about one seat's score. */
typedef struct maat_arc_detail {
    int part[MAAT_ARC_S_PARTS];
    int total;
    int small_stones;                  /* in pyramid and collection: tie-break */
    int height[MAAT_ARC_COLOURS];      /* solid structure per colour */
    int scoring_sarcophagi, exits, joined;
    int distinct_symbols, all_symbols; /* in the pyramid, before Priest */
    int balanced, workers_on_pyramid;
    int card_points[MAAT_ARC_MAX_SPOTS]; /* per card held, in seat order */
} maat_arc_detail;

/* Score one seat with its cards (cards may be NULL for a seat without). */
void maat_arc_score_seat(const maat_arc_board *b, const maat_arc_stones *st,
                         const maat_arc_cards *cards, const maat_arc_seat *s,
                         maat_arc_detail *d);
/* Fills every seat's score, parts and rank: the most points; a tie goes to
 * the most small stones in pyramid and collection; then shared. */
void maat_arc_score_all(const maat_arc_state *st, maat_score *out);

/* A seat's observation (the msgpack map of docs/PROTOCOL.md) decoded into
 * the state struct.  st->stones, st->cards and st->board must be set (the
 * setup the observation belongs to); the hidden orders are unknown, so
 * supply[], bag[] and pile[] are left 255 with only their sizes set.
 * Checks every id and space against the setup, and that no stone or card
 * is in two places.  MAAT_EDECODE naming the field on bad input. */
int maat_arc_observation_decode(const msgpack_object *o, maat_arc_state *st,
                                maat_error *err);

extern const char *const maat_arc_colour_names[MAAT_ARC_COLOURS];
extern const char *const maat_arc_symbol_names[MAAT_ARC_SYMBOLS]; /* [0] "-" */
extern const char *const maat_arc_card_names[MAAT_ARC_CARD_KINDS];
extern const char *const maat_arc_opening_names[4]; /* none left right both */

#endif
