/* pyramix.h -- Pyramix (Gamewright) as a maat game module.
 *
 * The rules are docs/rules/pyramix.md; its Interpretations say where
 * we had to choose.  56 cubes stand in places (x, y, z), x + y + z <= 5;
 * layer x+y+z = 0 is the apex, layer 5 the bottom (21 places) in the tray.
 * "Up" is -x, -y, -z.  One decision kind, "remove": arg0..2 = x, y, z.
 *
 * Internal (sdk/include/maat/internal/, not installed): the state layout
 * and the module's own helpers, for the SDK, the tools and the tests of
 * this tree.  A bot reaches the game through maat/game.h and maat/bot.h;
 * docs/SDK.md lists what each action's args mean.
 */
#ifndef MAAT_PYRAMIX_H
#define MAAT_PYRAMIX_H

#include <stdint.h>

#include "maat/game.h"

extern const maat_rules maat_pyramix_rules;

#define MAAT_PMX_PLACES 56
#define MAAT_PMX_CUBES 56
#define MAAT_PMX_LAYERS 6 /* 0 apex .. 5 bottom */
#define MAAT_PMX_MAX_SEATS 4

enum { MAAT_PMX_BLUE, MAAT_PMX_PURPLE, MAAT_PMX_ORANGE, MAAT_PMX_GREEN,
       MAAT_PMX_NO_COLOUR };
enum { MAAT_PMX_ANKH, MAAT_PMX_CRANE, MAAT_PMX_EYE, MAAT_PMX_COBRA };
enum { MAAT_PMX_REMOVE }; /* the one decision kind */
enum { MAAT_PMX_EV_REMOVE, MAAT_PMX_EV_REVEAL, MAAT_PMX_EV_END,
       MAAT_PMX_EV_KINDS };
enum { MAAT_PMX_S_ANKHS, MAAT_PMX_S_CRANES, MAAT_PMX_S_EYES,
       MAAT_PMX_S_MAJORITY, MAAT_PMX_S_PARTS };

/* Cube ids: colour c (0..3) has ids 13c..13c+12: 8 ankhs, 4 cranes, 1 eye;
 * ids 52..55 are the cobras. */
int maat_pmx_cube_colour(int cube);
int maat_pmx_cube_symbol(int cube);

/* Places: index <-> coordinates; -1 when outside the pyramid. */
int maat_pmx_place(int x, int y, int z);
void maat_pmx_coords(int place, int *x, int *y, int *z);

typedef struct maat_pmx_state {
    int seats;
    int to_move;
    int over;
    int turn;                         /* removals so far */
    int8_t cube[MAAT_PMX_PLACES];     /* cube id at each place, -1 empty */
    uint8_t revealed[MAAT_PMX_CUBES]; /* cube has had a visible face */
    uint8_t collected[MAAT_PMX_MAX_SEATS][MAAT_PMX_CUBES]; /* 1 = held */
    int n_collected[MAAT_PMX_MAX_SEATS];
    maat_rng rng;
} maat_pmx_state;

const maat_pmx_state *maat_pmx_state_of(const maat_game *g);
maat_pmx_state *maat_pmx_state_mut(maat_game *g);
/* After editing a state by hand: mark every cube with a visible face
 * revealed and recompute whether the game is over. */
void maat_pmx_refresh(maat_pmx_state *st);

/* Visible upper faces (0..3) of the cube at `place`. */
int maat_pmx_visible_faces(const maat_pmx_state *st, int place);
/* Could the player to move remove the cube at `place`? */
int maat_pmx_removable(const maat_pmx_state *st, int place);
/* Scores with parts (ankhs, cranes, eyes in points; majority = points of
 * the tray cubes won by ankh majorities) and ranks. */
void maat_pmx_score_all(const maat_pmx_state *st, maat_score *out);
/* Which places are cleared at scoring because of a cobra (1 = cleared). */
void maat_pmx_cobra_cleared(const maat_pmx_state *st,
                            uint8_t cleared[MAAT_PMX_PLACES]);

extern const char *const maat_pmx_colour_names[5];
extern const char *const maat_pmx_symbol_names[4];

#endif
