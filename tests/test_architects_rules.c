/* test_architects_rules.c -- one test per rule of the architects' game, on
 * hand-built positions, every expected value worked out by hand from the
 * rules page (docs/rules/architects.md).
 *
 * Pyramids are built stone by stone in a maat_arc_seat with stones picked
 * from the reference files by what they show (colour, openings,
 * sarcophagus, symbol; colour, workers), never by id, so the tests read as
 * the page does.
 *
 *  - the reference components: 74 large stones with the page's
 *    composition per colour, 72 small stones, 20 cards (10 kinds x 2), the
 *    board (15 large spaces, 12 small, 3 card spots, the touches of the
 *    page's geometry plus the edge strips the rulebook needs);
 *  - solid structure: a colour reaching level 6 through the apex small
 *    spaces; the rulebook's example of two colours at 6 (blue and brown);
 *    small stones connecting along an edge; a group off the bottom; the
 *    highest group only;
 *  - burial chambers: a sarcophagus two spaces in joined to an exit (x3);
 *    one whose chain is broken by a solid stone; rotation swapping the
 *    openings; the exit stone itself; one space in (x2); the one-stone
 *    level; exits and joined pairs;
 *  - symbols (table, duplicates), workers (balanced, unbalanced, one side
 *    empty), the collection (rounded down);
 *  - every card: Priest, Osiris, Divine Path, Set, Architect, Scribe,
 *    Vizier, Bastet, Thoth, Khnum (in play: two drawn, two small
 *    decisions);
 *  - ranks: the tie goes to the most small stones, then shared;
 *  - the deal's known answer (seed 42) of docs/RULES-NOTES.md;
 *  - the turn: take by paying (the held stone onto space 0), take space 0
 *    (its small stones move with it, held after one's own, placed in that
 *    order), no stone to pay with, the slide and refill, the draw;
 *  - card spots: completing one in either order, a lone space, the refill
 *    of the face-up cards;
 *  - the end after 15 large stones each (3 cards each);
 *  - illegal actions refused with a reason, the state untouched;
 *  - the wire form of actions; observations no game can produce are
 *    refused by maat_arc_observation_decode;
 *  - the data files: every kind of bad line refused with file:line and a
 *    reason; the options stones=, cards=, board=.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "maat/internal/architects.h"
#include "maat/internal/msg.h"

static const maat_rules *R = &maat_architects_rules;
static maat_setup *setup;
static const maat_arc_stones *S;
static const maat_arc_cards *C;
static const maat_arc_board *B;

enum { BLUE = MAAT_ARC_BLUE, BROWN = MAAT_ARC_BROWN,
       YELLOW = MAAT_ARC_YELLOW, WHITE = MAAT_ARC_WHITE };
enum { NONE = 0, LEFT = MAAT_ARC_OPEN_LEFT, RIGHT = MAAT_ARC_OPEN_RIGHT,
       BOTH = 3 };
#define ANY (-1)

/* ---- building pyramids ---------------------------------------------- */

static uint8_t used_large[MAAT_ARC_MAX_LARGE], used_small[MAAT_ARC_MAX_SMALL];

static void empty(maat_arc_seat *s)
{
    memset(s, 0, sizeof *s);
    memset(s->large, -1, sizeof s->large);
    memset(s->small, -1, sizeof s->small);
    memset(used_large, 0, sizeof used_large);
    memset(used_small, 0, sizeof used_small);
}

/* An unused large stone showing exactly this (symbol ANY: any symbol). */
static int large(int colour, int open, int sarc, int symbol)
{
    for (int i = 0; i < S->n_large; i++) {
        const maat_arc_large *l = &S->large[i];
        if (!used_large[i] && l->colour == colour && l->open == open &&
            l->sarcophagus == sarc && (symbol == ANY || l->symbol == symbol)) {
            used_large[i] = 1;
            return i;
        }
    }
    CHECK(0, "no unused large stone %d/%d/%d/%d", colour, open, sarc, symbol);
    return 0;
}

static int small(int colour, int workers)
{
    for (int i = 0; i < S->n_small; i++)
        if (!used_small[i] && S->small[i].colour == colour &&
            S->small[i].workers == workers) {
            used_small[i] = 1;
            return i;
        }
    CHECK(0, "no unused small stone %d/%d", colour, workers);
    return 0;
}

static void put_large(maat_arc_seat *s, int level, int pos, int id, int rot)
{
    int sp = maat_arc_space(B, level, pos);
    CHECK(sp >= 0, "no space %d.%d", level, pos);
    s->large[sp] = (int8_t)id;
    s->rotated[sp] = (uint8_t)rot;
    s->placed++;
}

static void put_small(maat_arc_seat *s, int level, int side, int id)
{
    s->small[2 * (level - 1) + side] = (int8_t)id;
}

/* A solid stone (no opening, no sarcophagus, any symbol) of a colour. */
static int solid(int colour)
{
    return large(colour, NONE, 0, ANY);
}

static int card_of(int kind, int copy)
{
    for (int i = 0; i < C->n; i++)
        if (C->kind[i] == kind && copy-- == 0)
            return i;
    CHECK(0, "no card of kind %d", kind);
    return 0;
}

static maat_arc_detail score(const maat_arc_seat *s)
{
    maat_arc_detail d;
    maat_arc_score_seat(B, S, C, s, &d);
    int sum = 0;
    for (int k = 0; k < MAAT_ARC_S_PARTS; k++)
        sum += d.part[k];
    CHECK(sum == d.total, "total %d is not the sum of the parts %d", d.total,
          sum);
    return d;
}

/* ---- the reference components ---------------------------------------- */

static void components(void)
{
    CHECK(S->n_large == 74 && S->n_small == 72 && C->n == 20,
          "%d large, %d small, %d cards", S->n_large, S->n_small, C->n);
    for (int c = 0; c < MAAT_ARC_COLOURS; c++) {
        int sarc_left = 0, sarc_both = 0, ch_both = 0, ch_left = 0,
            ch_left_sym = 0, solid_sym = 0, solid_plain = 0, other = 0;
        unsigned syms = 0;
        int nsym = 0;
        for (int i = 0; i < S->n_large; i++) {
            const maat_arc_large *l = &S->large[i];
            if (l->colour != c)
                continue;
            if (l->symbol) {
                syms |= 1u << l->symbol;
                nsym++;
            }
            if (l->sarcophagus && !l->symbol && l->open == LEFT)
                sarc_left++;
            else if (l->sarcophagus && !l->symbol && l->open == BOTH)
                sarc_both++;
            else if (!l->sarcophagus && l->open == BOTH && !l->symbol)
                ch_both++;
            else if (!l->sarcophagus && l->open == LEFT)
                ch_left++, ch_left_sym += l->symbol != 0;
            else if (!l->sarcophagus && l->open == NONE && l->symbol)
                solid_sym++;
            else if (!l->sarcophagus && l->open == NONE)
                solid_plain++;
            else
                other++;
        }
        int extra = c == BLUE || c == BROWN;
        CHECK(sarc_left == 3 && sarc_both == 3 && ch_both == 2 &&
                  ch_left == 5 && ch_left_sym == 2 && solid_sym == 3 &&
                  solid_plain == 2 + extra && other == 0,
              "colour %d: %d %d %d %d(%d) %d %d %d", c, sarc_left, sarc_both,
              ch_both, ch_left, ch_left_sym, solid_sym, solid_plain, other);
        CHECK(syms == 0x3e && nsym == 5, "colour %d: symbols %x (%d)", c,
              syms, nsym);
        for (int w = 1; w <= 3; w++) {
            int n = 0;
            for (int i = 0; i < S->n_small; i++)
                n += S->small[i].colour == c && S->small[i].workers == w;
            CHECK(n == 6, "colour %d: %d small stones of %d workers", c, n,
                  w);
        }
    }
    /* the chamber symbols of the page */
    static const int pair[4][2] = {{MAAT_ARC_ANKH, MAAT_ARC_EYE},
                                   {MAAT_ARC_SCARAB, MAAT_ARC_FEATHER},
                                   {MAAT_ARC_SUN, MAAT_ARC_ANKH},
                                   {MAAT_ARC_EYE, MAAT_ARC_SCARAB}};
    for (int c = 0; c < 4; c++) {
        unsigned got = 0;
        for (int i = 0; i < S->n_large; i++)
            if (S->large[i].colour == c && S->large[i].open == LEFT &&
                !S->large[i].sarcophagus && S->large[i].symbol)
                got |= 1u << S->large[i].symbol;
        CHECK(got == ((1u << pair[c][0]) | (1u << pair[c][1])),
              "colour %d: chamber symbols %x", c, got);
    }
    for (int k = 0; k < MAAT_ARC_CARD_KINDS; k++) {
        int n = 0;
        for (int i = 0; i < C->n; i++)
            n += C->kind[i] == k;
        CHECK(n == 2, "%d cards of kind %s", n, maat_arc_card_names[k]);
    }
    /* the board */
    CHECK(B->common == 5 && B->faceup == 4 && B->levels == 6 &&
              B->n_large == 15 && maat_arc_n_small_spaces(B) == 12 &&
              B->n_spots == 3,
          "board %d %d %d %d %d", B->common, B->faceup, B->levels,
          B->n_large, B->n_spots);
    for (int l = 1; l <= 6; l++)
        CHECK(B->level_n[l] == 6 - l, "level %d has %d", l, B->level_n[l]);
    int spots[3][2] = {{maat_arc_space(B, 1, 1), maat_arc_space(B, 1, 2)},
                       {maat_arc_space(B, 2, 1), maat_arc_space(B, 2, 2)},
                       {maat_arc_space(B, 3, 0), maat_arc_space(B, 3, 1)}};
    for (int i = 0; i < 3; i++)
        CHECK(B->spot[i][0] == spots[i][0] && B->spot[i][1] == spots[i][1],
              "card spot %d", i);
}

/* The touches of the page's geometry, from its words -- plus the one
 * correction the rulebook forces (docs/RULES-NOTES.md): the small spaces of
 * one side touch the next one up, a strip along each edge. */
static int page_touch(int a, int b)
{
    int bottom = maat_arc_bottom(B);
    if (a > b) {
        int t = a;
        a = b;
        b = t;
    }
    if (b == bottom) {
        if (a < B->n_large)
            return B->space_level[a] == 1;
        return (a - B->n_large) / 2 == 0; /* level 1's small spaces */
    }
    if (b < B->n_large) { /* two large */
        int la = B->space_level[a], pa = B->space_pos[a];
        int lb = B->space_level[b], pb = B->space_pos[b];
        if (la == lb)
            return pb - pa == 1;
        return lb == la + 1 && (pb == pa || pb == pa - 1);
    }
    if (a >= B->n_large) { /* two small: the apex, and along an edge */
        int ka = a - B->n_large, kb = b - B->n_large;
        return (a == maat_arc_small_piece(B, 6, 0) &&
                b == maat_arc_small_piece(B, 6, 1)) ||
               (kb == ka + 2); /* same side, one level up */
    }
    int level = (b - B->n_large) / 2 + 1, side = (b - B->n_large) % 2;
    int la = B->space_level[a], pa = B->space_pos[a];
    for (int l = level - 1; l <= level; l++)
        if (l >= 1 && B->level_n[l] > 0 && la == l &&
            pa == (side ? B->level_n[l] - 1 : 0))
            return 1;
    return 0;
}

static void board_geometry(void)
{
    int pieces = maat_arc_bottom(B) + 1, wrong = 0, n = 0;
    for (int a = 0; a < pieces; a++)
        for (int b = 0; b < pieces; b++) {
            int t = (int)(B->touch[a] >> b & 1);
            if (a != b && t != page_touch(a, b))
                wrong++;
            n += t && a < b;
        }
    CHECK(wrong == 0, "%d touches differ from the page's geometry", wrong);
    CHECK(n == 10 + 20 + 21 + 10 + 7, "%d touches", n);
}

/* ---- solid structure -------------------------------------------------- */

static void structure(void)
{
    maat_arc_seat s;
    int h[4];
    /* blue up the left edge to level 5, then the apex small space */
    empty(&s);
    for (int l = 1; l <= 5; l++)
        put_large(&s, l, 0, solid(BLUE), 0);
    CHECK(maat_arc_structure(B, S, &s, h) == 5 && h[BLUE] == 5,
          "blue column to level 5: %d", h[BLUE]);
    put_small(&s, 6, MAAT_ARC_RIGHT, small(BLUE, 1));
    CHECK(maat_arc_structure(B, S, &s, h) == 6 && h[BLUE] == 6,
          "blue through the apex: %d", h[BLUE]);
    /* the apex spaces alone, above a brown (5,0): cut off */
    empty(&s);
    for (int l = 1; l <= 4; l++)
        put_large(&s, l, 0, solid(BLUE), 0);
    put_large(&s, 5, 0, solid(BROWN), 0);
    put_small(&s, 6, MAAT_ARC_LEFT, small(BLUE, 1));
    put_small(&s, 6, MAAT_ARC_RIGHT, small(BLUE, 2));
    maat_arc_structure(B, S, &s, h);
    CHECK(h[BLUE] == 4 && h[BROWN] == 0, "apex cut off by brown (5,0): "
          "blue %d brown %d", h[BLUE], h[BROWN]);
    /* the level-5 small space on blue (4,0) joins the left edge strip up
     * to the apex space above it: 6 without (5,0) */
    put_small(&s, 5, MAAT_ARC_LEFT, small(BLUE, 3));
    maat_arc_structure(B, S, &s, h);
    CHECK(h[BLUE] == 6, "up the left edge strip to the apex: %d", h[BLUE]);
    /* the rulebook's example: 6 for blue AND 6 for brown, blue through
     * (5,0) and the left apex space, brown up the right edge */
    empty(&s);
    for (int l = 1; l <= 5; l++)
        put_large(&s, l, 0, solid(BLUE), 0);
    put_small(&s, 6, MAAT_ARC_LEFT, small(BLUE, 1));
    for (int l = 1; l <= 4; l++)
        put_large(&s, l, 5 - l, solid(BROWN), 0);
    put_small(&s, 5, MAAT_ARC_RIGHT, small(BROWN, 1));
    put_small(&s, 6, MAAT_ARC_RIGHT, small(BROWN, 2));
    maat_arc_structure(B, S, &s, h);
    CHECK(h[BLUE] == 6 && h[BROWN] == 6, "the rulebook's 6 + 6: blue %d "
          "brown %d", h[BLUE], h[BROWN]);

    /* small stones help connections along the edges: (1,0) brown, the
     * strip 1.left 2.left 3.left blue */
    empty(&s);
    put_large(&s, 1, 0, solid(BROWN), 0);
    put_small(&s, 1, MAAT_ARC_LEFT, small(BLUE, 1));
    put_small(&s, 2, MAAT_ARC_LEFT, small(BLUE, 1));
    put_small(&s, 4, MAAT_ARC_LEFT, small(BLUE, 1));
    maat_arc_structure(B, S, &s, h);
    CHECK(h[BLUE] == 2 && h[BROWN] == 1, "blue up the strip to 2.left, 4.left"
          " cut off: blue %d brown %d", h[BLUE], h[BROWN]);
    put_small(&s, 3, MAAT_ARC_LEFT, small(BLUE, 2));
    maat_arc_structure(B, S, &s, h);
    CHECK(h[BLUE] == 4, "3.left closes the strip: %d", h[BLUE]);
    /* a small space touches only its own end: 2.right is not on (1,0) */
    empty(&s);
    put_large(&s, 1, 0, solid(BLUE), 0);
    put_small(&s, 2, MAAT_ARC_RIGHT, small(BLUE, 1));
    maat_arc_structure(B, S, &s, h);
    CHECK(h[BLUE] == 1, "2.right is far from (1,0): %d", h[BLUE]);

    /* a group off the bottom scores nothing; only the highest group */
    empty(&s);
    put_large(&s, 3, 1, solid(YELLOW), 0);
    put_large(&s, 4, 0, solid(YELLOW), 0);
    put_large(&s, 1, 4, solid(YELLOW), 0);
    put_large(&s, 1, 0, solid(WHITE), 0);
    put_large(&s, 2, 0, solid(WHITE), 0);
    put_large(&s, 3, 0, solid(WHITE), 0);
    put_large(&s, 1, 1, solid(WHITE), 0);
    CHECK(maat_arc_structure(B, S, &s, h) == 1 + 3 && h[YELLOW] == 1 &&
              h[WHITE] == 3,
          "yellow %d (the level-4 group floats), white %d", h[YELLOW],
          h[WHITE]);
    /* resting on two: (2,1) on (1,1) and (1,2) */
    empty(&s);
    put_large(&s, 1, 2, solid(WHITE), 0);
    put_large(&s, 2, 1, solid(WHITE), 0);
    put_large(&s, 3, 1, solid(WHITE), 0); /* on (2,1), (2,2) */
    put_large(&s, 3, 2, solid(WHITE), 0); /* beside (3,1) */
    maat_arc_structure(B, S, &s, h);
    CHECK(h[WHITE] == 3, "white through (1,2) (2,1) (3,1): %d", h[WHITE]);
    put_large(&s, 4, 1, solid(WHITE), 0); /* rests on (3,1), (3,2) */
    maat_arc_structure(B, S, &s, h);
    CHECK(h[WHITE] == 4, "white to (4,1): %d", h[WHITE]);
    /* large stones of the same level touch only side by side: (2,0) is
     * not on (1,2) */
    empty(&s);
    put_large(&s, 1, 2, solid(WHITE), 0);
    put_large(&s, 2, 0, solid(WHITE), 0);
    maat_arc_structure(B, S, &s, h);
    CHECK(h[WHITE] == 1, "(2,0) does not rest on (1,2): %d", h[WHITE]);

    maat_arc_detail d = score(&s);
    CHECK(d.part[MAAT_ARC_S_STRUCTURE] == 1 && d.height[WHITE] == 1,
          "the structure part is the sum of the heights");
}

/* ---- burial chambers -------------------------------------------------- */

static void chambers(void)
{
    maat_arc_seat s;
    int scoring, exits, joined;
    /* two spaces in: (1,2) sarcophagus opening left, joined through (1,1)
     * to (1,0), which opens left at the edge */
    empty(&s);
    put_large(&s, 1, 0, large(BLUE, BOTH, 0, MAAT_ARC_NO_SYMBOL), 0);
    put_large(&s, 1, 1, large(BROWN, BOTH, 0, MAAT_ARC_NO_SYMBOL), 0);
    put_large(&s, 1, 2, large(WHITE, LEFT, 1, MAAT_ARC_NO_SYMBOL), 0);
    CHECK(maat_arc_chambers(B, S, &s, &scoring, &exits, &joined) == 3 &&
              scoring == 1 && exits == 1 && joined == 2,
          "x3 two spaces in: scoring %d exits %d joined %d", scoring, exits,
          joined);
    /* broken by a solid stone in (1,1) */
    s.large[maat_arc_space(B, 1, 1)] = (int8_t)solid(BROWN);
    CHECK(maat_arc_chambers(B, S, &s, &scoring, &exits, &joined) == 0 &&
              scoring == 0 && joined == 0,
          "a solid stone breaks the chain: %d", scoring);
    /* an empty space breaks it too */
    s.large[maat_arc_space(B, 1, 1)] = -1;
    CHECK(maat_arc_chambers(B, S, &s, NULL, NULL, NULL) == 0,
          "an empty space breaks the chain");

    /* rotation: a left-opening sarcophagus at the right end is no exit;
     * rotated it opens right, outward */
    empty(&s);
    put_large(&s, 1, 4, large(YELLOW, LEFT, 1, MAAT_ARC_NO_SYMBOL), 0);
    CHECK(maat_arc_chambers(B, S, &s, &scoring, &exits, NULL) == 0 &&
              exits == 0,
          "unrotated at the right end: scoring %d exits %d", scoring, exits);
    CHECK(maat_arc_openings(S, &s, maat_arc_space(B, 1, 4)) == LEFT,
          "openings as printed");
    s.rotated[maat_arc_space(B, 1, 4)] = 1;
    CHECK(maat_arc_openings(S, &s, maat_arc_space(B, 1, 4)) == RIGHT,
          "rotated: the openings swap");
    CHECK(maat_arc_chambers(B, S, &s, &scoring, &exits, NULL) == 1 &&
              scoring == 1 && exits == 1,
          "rotated, the exit stone itself scores x1: %d", scoring);
    /* rotation also decides joining: (1,3) left-opening rotated opens
     * right, towards (1,4)? (1,4) rotated opens right only: not joined */
    put_large(&s, 1, 3, large(YELLOW, LEFT, 1, MAAT_ARC_NO_SYMBOL), 1);
    CHECK(maat_arc_chambers(B, S, &s, &scoring, NULL, &joined) == 1 &&
              scoring == 1 && joined == 0,
          "(1,3) opens right, (1,4) does not open left: %d %d", scoring,
          joined);
    /* (1,4) open on both sides: joined; (1,3) one space in scores x2 */
    s.large[maat_arc_space(B, 1, 4)] =
        (int8_t)large(YELLOW, BOTH, 1, MAAT_ARC_NO_SYMBOL);
    s.rotated[maat_arc_space(B, 1, 4)] = 0;
    CHECK(maat_arc_chambers(B, S, &s, &scoring, &exits, &joined) == 2 + 1 &&
              scoring == 2 && joined == 1 && exits == 1,
          "x2 one space in + x1 at the exit: scoring %d joined %d", scoring,
          joined);

    /* level 2: x1 x2 x2 x1 all joined, open at both ends */
    empty(&s);
    put_large(&s, 2, 0, large(BLUE, BOTH, 1, MAAT_ARC_NO_SYMBOL), 0);
    put_large(&s, 2, 1, large(BLUE, BOTH, 1, MAAT_ARC_NO_SYMBOL), 0);
    put_large(&s, 2, 2, large(BLUE, BOTH, 1, MAAT_ARC_NO_SYMBOL), 0);
    put_large(&s, 2, 3, large(BROWN, BOTH, 1, MAAT_ARC_NO_SYMBOL), 0);
    CHECK(maat_arc_chambers(B, S, &s, &scoring, &exits, &joined) == 6 &&
              scoring == 4 && exits == 2 && joined == 3,
          "level 2 all joined: 1+2+2+1 (scoring %d)", scoring);
    /* the same with the right end a left-only sarcophagus: the left exit
     * still carries all four */
    s.large[maat_arc_space(B, 2, 3)] =
        (int8_t)large(BROWN, LEFT, 1, MAAT_ARC_NO_SYMBOL);
    CHECK(maat_arc_chambers(B, S, &s, &scoring, &exits, NULL) == 6 &&
              exits == 1,
          "one exit is enough: %d", scoring);
    /* the one-stone level 5: both ends at once */
    empty(&s);
    put_large(&s, 5, 0, large(WHITE, BOTH, 1, MAAT_ARC_NO_SYMBOL), 0);
    CHECK(maat_arc_chambers(B, S, &s, &scoring, &exits, NULL) == 1 &&
              exits == 2 && scoring == 1,
          "level 5: exits %d", exits);
    /* a sarcophagus with no way out */
    empty(&s);
    put_large(&s, 1, 2, large(WHITE, LEFT, 1, MAAT_ARC_NO_SYMBOL), 0);
    CHECK(maat_arc_chambers(B, S, &s, NULL, NULL, NULL) == 0,
          "no chain to an exit");
    maat_arc_detail d;
    empty(&s);
    put_large(&s, 1, 0, large(BLUE, LEFT, 1, MAAT_ARC_NO_SYMBOL), 0);
    d = score(&s);
    CHECK(d.part[MAAT_ARC_S_CHAMBERS] == 1 && d.scoring_sarcophagi == 1,
          "the chambers part");
}

/* ---- symbols, workers, collection ------------------------------------ */

static void symbols(void)
{
    static const int table[6] = {0, 2, 4, 7, 11, 16};
    for (int n = 0; n <= 5; n++)
        CHECK(maat_arc_symbol_points(n) == table[n], "%d symbols: %d", n,
              maat_arc_symbol_points(n));
    maat_arc_seat s;
    empty(&s);
    int all;
    static const int order[5] = {MAAT_ARC_ANKH, MAAT_ARC_EYE,
                                 MAAT_ARC_SCARAB, MAAT_ARC_FEATHER,
                                 MAAT_ARC_SUN};
    for (int k = 0; k < 5; k++) {
        /* a solid stone of any colour with that symbol */
        int id = -1;
        for (int i = 0; i < S->n_large && id < 0; i++)
            if (!used_large[i] && S->large[i].symbol == order[k])
                id = i;
        used_large[id] = 1;
        put_large(&s, 1, k, id, 0);
        CHECK(maat_arc_symbols(B, S, &s, &all) == k + 1 && all == k + 1,
              "%d symbols", k + 1);
        CHECK(score(&s).part[MAAT_ARC_S_SYMBOLS] == table[k + 1],
              "symbols part with %d", k + 1);
    }
    /* a duplicate counts once */
    int dup = -1;
    for (int i = 0; i < S->n_large && dup < 0; i++)
        if (!used_large[i] && S->large[i].symbol == MAAT_ARC_ANKH)
            dup = i;
    put_large(&s, 2, 0, dup, 0);
    CHECK(maat_arc_symbols(B, S, &s, &all) == 5 && all == 6,
          "a second ankh: distinct 5, all %d", all);
}

static void workers(void)
{
    maat_arc_seat s;
    int on;
    empty(&s);
    /* level 1: 2 + 2 (colours differ) -> 2; level 3: 1 + 3 -> 0;
     * level 2: 3 + 1 -> 0; level 6: 3 + 3 -> 3; level 4: one side -> 0 */
    put_small(&s, 1, 0, small(BLUE, 2));
    put_small(&s, 1, 1, small(WHITE, 2));
    put_small(&s, 3, 0, small(BLUE, 1));
    put_small(&s, 3, 1, small(BLUE, 3));
    put_small(&s, 6, 0, small(BROWN, 3));
    put_small(&s, 6, 1, small(YELLOW, 3));
    put_small(&s, 4, 1, small(YELLOW, 1));
    put_small(&s, 2, 0, small(WHITE, 3)); /* 3 + 1: more left than right */
    put_small(&s, 2, 1, small(WHITE, 1));
    CHECK(maat_arc_workers(B, S, &s, &on) == 5 &&
              on == 2 + 2 + 1 + 3 + 3 + 3 + 1 + 3 + 1,
          "balanced 2 + 3, on the pyramid %d", on);
    maat_arc_detail d = score(&s);
    CHECK(d.part[MAAT_ARC_S_WORKERS] == 5 && d.balanced == 5,
          "the workers part");
    CHECK(d.small_stones == 9, "9 small stones in the pyramid: %d",
          d.small_stones);
}

static void collection(void)
{
    maat_arc_seat s;
    empty(&s);
    for (int n = 0; n <= 7; n++) {
        s.n_collection = (uint8_t)n;
        for (int i = 0; i < n; i++)
            s.collection[i] = (uint8_t)i;
        maat_arc_detail d = score(&s);
        CHECK(d.part[MAAT_ARC_S_COLLECTION] == n / 2 && d.small_stones == n,
              "collection of %d: %d", n, d.part[MAAT_ARC_S_COLLECTION]);
    }
}

/* ---- the cards -------------------------------------------------------- */

static void give(maat_arc_seat *s, int kind, int copy)
{
    s->cards[s->n_cards++] = (uint8_t)card_of(kind, copy);
}

static void cards(void)
{
    maat_arc_seat s;
    maat_arc_detail d, base;
    /* Priest: 3 symbols + Priest = 4 -> 11 (the rulebook's example) */
    empty(&s);
    put_large(&s, 1, 0, large(BLUE, NONE, 0, MAAT_ARC_SCARAB), 0);
    put_large(&s, 1, 1, large(BLUE, NONE, 0, MAAT_ARC_SUN), 0);
    put_large(&s, 1, 2, large(BLUE, LEFT, 0, MAAT_ARC_EYE), 0);
    base = score(&s);
    give(&s, MAAT_ARC_PRIEST, 0);
    d = score(&s);
    CHECK(base.part[MAAT_ARC_S_SYMBOLS] == 7 && d.card_points[0] == 4 &&
              d.part[MAAT_ARC_S_SYMBOLS] + d.part[MAAT_ARC_S_CARDS] == 11,
          "Priest: %d + %d", d.part[MAAT_ARC_S_SYMBOLS], d.card_points[0]);
    give(&s, MAAT_ARC_PRIEST, 1);
    d = score(&s);
    CHECK(d.card_points[1] == 5 &&
              d.part[MAAT_ARC_S_SYMBOLS] + d.part[MAAT_ARC_S_CARDS] == 16,
          "a second Priest is the fifth symbol: %d", d.card_points[1]);
    /* with all five gods in the pyramid the Priest adds nothing */
    empty(&s);
    for (int k = 0; k < 5; k++) {
        int id = -1;
        for (int i = 0; i < S->n_large && id < 0; i++)
            if (!used_large[i] && S->large[i].symbol == k + 1)
                id = i;
        used_large[id] = 1;
        put_large(&s, 1, k, id, 0);
    }
    give(&s, MAAT_ARC_PRIEST, 0);
    d = score(&s);
    CHECK(d.card_points[0] == 0, "Priest with 5 symbols: %d",
          d.card_points[0]);
    /* Bastet: every symbol, duplicates included */
    int dup = -1;
    for (int i = 0; i < S->n_large && dup < 0; i++)
        if (!used_large[i] && S->large[i].symbol == MAAT_ARC_SUN)
            dup = i;
    put_large(&s, 2, 0, dup, 0);
    give(&s, MAAT_ARC_BASTET, 0);
    d = score(&s);
    CHECK(d.card_points[1] == 6, "Bastet: 6 symbols, %d", d.card_points[1]);

    /* Osiris: 1 per 3 workers on small stones in the pyramid (the
     * collection does not count) */
    empty(&s);
    put_small(&s, 1, 0, small(BLUE, 3));
    put_small(&s, 2, 1, small(BLUE, 3));
    put_small(&s, 5, 0, small(BLUE, 2));
    s.collection[s.n_collection++] = (uint8_t)small(WHITE, 3);
    give(&s, MAAT_ARC_OSIRIS, 0);
    d = score(&s);
    CHECK(d.card_points[0] == 8 / 3, "Osiris: 8 workers -> %d",
          d.card_points[0]);

    /* Divine Path, Set, Thoth on one chamber row */
    empty(&s);
    put_large(&s, 1, 0, large(BLUE, BOTH, 1, MAAT_ARC_NO_SYMBOL), 0);
    put_large(&s, 1, 1, large(BLUE, BOTH, 0, MAAT_ARC_NO_SYMBOL), 0);
    put_large(&s, 1, 2, large(BLUE, LEFT, 1, MAAT_ARC_NO_SYMBOL), 0);
    put_large(&s, 1, 4, large(BROWN, LEFT, 1, MAAT_ARC_NO_SYMBOL), 1);
    put_large(&s, 5, 0, large(BROWN, BOTH, 0, MAAT_ARC_NO_SYMBOL), 0);
    give(&s, MAAT_ARC_DIVINE_PATH, 0);
    give(&s, MAAT_ARC_SET, 0);
    give(&s, MAAT_ARC_THOTH, 0);
    d = score(&s);
    /* exits: (1,0) left, (1,4) right (rotated), (5,0) both = 4;
     * scoring sarcophagi (1,0) x1, (1,2) x3, (1,4) x1 = 3 -> Set 6;
     * joined: (1,0)-(1,1), (1,1)-(1,2) = 2 */
    CHECK(d.exits == 4 && d.card_points[0] == 4, "Divine Path %d",
          d.card_points[0]);
    CHECK(d.scoring_sarcophagi == 3 && d.part[MAAT_ARC_S_CHAMBERS] == 5 &&
              d.card_points[1] == 6,
          "Set %d (chambers %d)", d.card_points[1],
          d.part[MAAT_ARC_S_CHAMBERS]);
    CHECK(d.joined == 2 && d.card_points[2] == 2, "Thoth %d",
          d.card_points[2]);
    CHECK(d.part[MAAT_ARC_S_CARDS] == 12, "cards part %d",
          d.part[MAAT_ARC_S_CARDS]);

    /* Architect: 2 per colour reaching level 5 or higher */
    empty(&s);
    for (int l = 1; l <= 5; l++)
        put_large(&s, l, 0, solid(BLUE), 0);
    for (int l = 1; l <= 4; l++)
        put_large(&s, l, 6 - l - 1, solid(BROWN), 0);
    give(&s, MAAT_ARC_ARCHITECT, 0);
    d = score(&s);
    CHECK(d.height[BLUE] == 5 && d.height[BROWN] == 4 &&
              d.card_points[0] == 2,
          "Architect: %d", d.card_points[0]);
    put_small(&s, 5, 1, small(BROWN, 1)); /* on (4,1) brown: level 5 */
    d = score(&s);
    CHECK(d.height[BROWN] == 5 && d.card_points[0] == 4,
          "Architect with brown at 5: %d", d.card_points[0]);

    /* Scribe: each collected stone 1 instead of 1/2 */
    empty(&s);
    for (int i = 0; i < 7; i++)
        s.collection[s.n_collection++] = (uint8_t)i;
    give(&s, MAAT_ARC_SCRIBE, 0);
    d = score(&s);
    CHECK(d.part[MAAT_ARC_S_COLLECTION] == 3 && d.card_points[0] == 4 &&
              d.total == 7,
          "Scribe: 7 stones -> %d", d.total);
    give(&s, MAAT_ARC_SCRIBE, 1);
    d = score(&s);
    CHECK(d.card_points[1] == 0 && d.total == 7, "a second Scribe: %d",
          d.total);

    /* Vizier: balanced levels score double */
    empty(&s);
    put_small(&s, 2, 0, small(BLUE, 2));
    put_small(&s, 2, 1, small(BLUE, 2));
    put_small(&s, 4, 0, small(BLUE, 1));
    put_small(&s, 4, 1, small(BLUE, 1));
    put_small(&s, 5, 0, small(BLUE, 3));
    give(&s, MAAT_ARC_VIZIER, 0);
    d = score(&s);
    CHECK(d.part[MAAT_ARC_S_WORKERS] == 3 && d.card_points[0] == 3,
          "Vizier %d", d.card_points[0]);

    /* Khnum scores nothing at the end */
    empty(&s);
    give(&s, MAAT_ARC_KHNUM, 0);
    d = score(&s);
    CHECK(d.total == 0, "Khnum at the end: %d", d.total);
}

/* ---- the turn --------------------------------------------------------- */

static maat_game *new_game(int seats, uint64_t seed)
{
    maat_error err = {0, ""};
    maat_game *g = R->game_new(setup, SEED(seed), seats, NULL, &err);
    CHECK(g != NULL, "game_new: %s", err.msg);
    return g;
}

static int act(maat_game *g, int kind, int a0, int a1, int a2, int a3,
               maat_events *ev)
{
    maat_action a = {kind, {a0, a1, a2, a3, -1, -1, -1}};
    maat_error err = {0, ""};
    int rc = R->apply(g, &a, ev, &err);
    CHECK(rc == MAAT_OK, "action %d(%d,%d,%d,%d) refused: %s", kind, a0, a1,
          a2, a3, err.msg);
    return rc;
}

/* Refused with MAAT_EILLEGAL and a message containing why; nothing
 * changed, no event. */
static void refused(maat_game *g, int kind, int a0, int a1, int a2, int a3,
                    const char *why)
{
    maat_action a = {kind, {a0, a1, a2, a3, -1, -1, -1}};
    maat_error err = {0, ""};
    maat_events ev = {0};
    maat_arc_state before = *maat_arc_state_of(g);
    int rc = R->apply(g, &a, &ev, &err);
    CHECK(rc == MAAT_EILLEGAL && strstr(err.msg, why),
          "action %d(%d,%d,%d,%d): rc %d '%s', want '%s'", kind, a0, a1, a2,
          a3, rc, err.msg, why);
    CHECK(memcmp(&before, maat_arc_state_of(g), sizeof before) == 0 &&
              ev.count == 0,
          "a refused action changed the game");
    maat_events_free(&ev);
}

static int count_kind(const maat_events *ev, int kind)
{
    int n = 0;
    for (size_t i = 0; i < ev->count; i++)
        n += ev->items[i].kind == kind;
    return n;
}

/* docs/RULES-NOTES.md's known answer for the deal (docs/RNG.md's
 * reference Python gives the same) */
static void deal(void)
{
    maat_game *g = new_game(2, 42);
    const maat_arc_state *st = maat_arc_state_of(g);
    static const int common[5] = {11, 30, 26, 50, 56};
    static const int faceup[4] = {1, 11, 10, 14};
    for (int i = 0; i < 5; i++)
        CHECK(st->common[i] == common[i], "seed 42: space %d holds %d", i,
              st->common[i]);
    for (int i = 0; i < 4; i++)
        CHECK(st->faceup[i] == faceup[i], "seed 42: slot %d holds %d", i,
              st->faceup[i]);
    CHECK(st->seat[0].hand[0] == 67 && st->seat[1].hand[0] == 63,
          "seed 42: hands %d %d", st->seat[0].hand[0], st->seat[1].hand[0]);
    R->destroy(&g);
}

static void take_and_pay(void)
{
    maat_game *g = new_game(2, 7);
    maat_arc_state *st = maat_arc_state_mut(g);
    maat_events ev = {0};
    CHECK(st->phase == MAAT_ARC_TAKE && st->to_move == 0, "seat 0 starts");
    CHECK(st->seat[0].n_hand == 1 && st->seat[1].n_hand == 1,
          "each seat drew one small stone");
    CHECK(st->n_supply == 74 - 5 && st->n_bag == 72 - 2 &&
              st->n_pile == 20 - 4,
          "supply %d bag %d pile %d", st->n_supply, st->n_bag, st->n_pile);
    maat_action l[64];
    CHECK(R->legal_actions(g, l, 64) == 5, "take: 5 spaces");
    /* pay: the held stone goes onto space 0, space 2's stone is taken */
    int held = st->seat[0].hand[0], stone2 = st->common[2];
    act(g, MAAT_ARC_TAKE, 2, -1, -1, -1, &ev);
    CHECK(st->n_space0 == 1 && st->space0[0] == held &&
              st->seat[0].n_hand == 0 && st->taken == stone2 &&
              st->common[2] == -1 && st->phase == MAAT_ARC_PLACE,
          "paying");
    CHECK(count_kind(&ev, MAAT_ARC_EV_PAY) == 1 &&
              count_kind(&ev, MAAT_ARC_EV_TAKE) == 1,
          "pay and take events");
    int c3 = st->common[3], c4 = st->common[4];
    int next = st->supply[st->n_supply - 1];
    int next_small = st->bag[st->n_bag - 1];
    /* place: no small stone held, no card spot -> the turn ends: slide,
     * refill, draw */
    act(g, MAAT_ARC_PLACE, stone2, 1, 0, 0, &ev);
    CHECK(st->common[2] == c3 && st->common[3] == c4 &&
              st->common[4] == next && st->n_supply == 74 - 6,
          "slide and refill");
    CHECK(st->seat[0].n_hand == 1 && st->seat[0].hand[0] == next_small,
          "the draw at the end of the turn");
    CHECK(st->to_move == 1 && st->phase == MAAT_ARC_TAKE && st->turn == 1,
          "seat 1's turn");

    /* seat 1 takes space 0 with the stone on it: holds its own first */
    int own = st->seat[1].hand[0], stone0 = st->common[0];
    maat_events_clear(&ev);
    act(g, MAAT_ARC_TAKE, 0, -1, -1, -1, &ev);
    CHECK(st->seat[1].n_hand == 2 && st->seat[1].hand[0] == own &&
              st->seat[1].hand[1] == held && st->n_space0 == 0 &&
              st->taken == stone0,
          "space 0: the small stones move with it");
    CHECK(ev.count == 1 && ev.items[0].kind == MAAT_ARC_EV_TAKE &&
              ev.items[0].arg[2] == 1,
          "a take event with 1 small stone");
    act(g, MAAT_ARC_PLACE, stone0, 2, 1, 0, &ev);
    CHECK(st->phase == MAAT_ARC_SMALL, "then one small decision per stone");
    int n = R->legal_actions(g, l, 64);
    CHECK(n == 13 && l[0].arg[0] == own && l[12].arg[1] == 0,
          "12 small spaces + the collection, for the first stone held");
    refused(g, MAAT_ARC_SMALL, held, 1, 0, -1, "the first one held");
    act(g, MAAT_ARC_SMALL, own, 3, MAAT_ARC_RIGHT, -1, &ev);
    CHECK(st->seat[1].small[2 * 2 + 1] == own, "own stone at 3.right");
    refused(g, MAAT_ARC_SMALL, held, 3, MAAT_ARC_RIGHT, -1, "is taken");
    refused(g, MAAT_ARC_SMALL, held, 7, 0, -1, "not a small space");
    act(g, MAAT_ARC_SMALL, held, 0, -1, -1, &ev);
    CHECK(st->seat[1].n_collection == 1 && st->seat[1].collection[0] == held,
          "the other into the collection");
    CHECK(st->to_move == 0 && st->phase == MAAT_ARC_TAKE,
          "then the turn ends");

    /* a seat holding nothing can only take space 0 */
    int keep = st->seat[0].hand[0];
    st->seat[0].n_hand = 0;
    CHECK(R->legal_actions(g, l, 64) == 1 && l[0].arg[0] == 0,
          "no small stone: only space 0");
    refused(g, MAAT_ARC_TAKE, 3, -1, -1, -1, "hold none");
    st->seat[0].hand[0] = (uint8_t)keep;
    st->seat[0].n_hand = 1;
    refused(g, MAAT_ARC_TAKE, 5, -1, -1, -1, "spaces 0..4");
    refused(g, MAAT_ARC_PLACE, 0, 1, 0, 0, "answers a 'take'");
    st->common[3] = -1;
    refused(g, MAAT_ARC_TAKE, 3, -1, -1, -1, "is empty");
    R->destroy(&g);
    maat_events_free(&ev);
}

static void placing(void)
{
    maat_game *g = new_game(3, 11);
    maat_arc_state *st = maat_arc_state_mut(g);
    act(g, MAAT_ARC_TAKE, 0, -1, -1, -1, NULL);
    int stone = st->taken;
    /* make the taken stone a left-opening one, then a symmetric one */
    int asym = large(BLUE, LEFT, 1, MAAT_ARC_NO_SYMBOL);
    int sym = large(BLUE, BOTH, 1, MAAT_ARC_NO_SYMBOL);
    (void)stone;
    st->taken = asym;
    maat_action l[64];
    CHECK(R->legal_actions(g, l, 64) == 30, "15 spaces x 2 rotations");
    st->taken = sym;
    CHECK(R->legal_actions(g, l, 64) == 15, "a symmetric stone: 15");
    refused(g, MAAT_ARC_PLACE, sym, 1, 0, 1, "changes nothing");
    refused(g, MAAT_ARC_PLACE, asym, 1, 0, 0, "not");
    refused(g, MAAT_ARC_PLACE, sym, 6, 0, 0, "not a large space");
    refused(g, MAAT_ARC_PLACE, sym, 1, 5, 0, "not a large space");
    st->seat[0].large[maat_arc_space(B, 2, 2)] = (int8_t)solid(WHITE);
    refused(g, MAAT_ARC_PLACE, sym, 2, 2, 0, "is taken");
    refused(g, MAAT_ARC_PLACE, sym, 2, 1, 2, "rotated is 0 or 1");
    st->taken = asym;
    act(g, MAAT_ARC_PLACE, asym, 1, 4, 1, NULL);
    CHECK(st->seat[0].rotated[maat_arc_space(B, 1, 4)] == 1 &&
              maat_arc_openings(S, &st->seat[0], maat_arc_space(B, 1, 4)) ==
                  RIGHT,
          "placed rotated");
    R->destroy(&g);
}

/* ---- card spots ------------------------------------------------------- */

static void card_spots(void)
{
    maat_game *g = new_game(2, 3);
    maat_arc_state *st = maat_arc_state_mut(g);
    maat_events ev = {0};
    /* seat 0 fills (1,2) then later (1,1): the second completes the spot */
    st->seat[0].n_hand = 0;
    act(g, MAAT_ARC_TAKE, 0, -1, -1, -1, NULL);
    while (st->phase == MAAT_ARC_SMALL)
        act(g, MAAT_ARC_SMALL, st->seat[0].hand[0], 0, -1, -1, NULL);
    act(g, MAAT_ARC_PLACE, st->taken, 1, 2, 0, &ev);
    while (st->phase == MAAT_ARC_SMALL)
        act(g, MAAT_ARC_SMALL, st->seat[0].hand[0], 0, -1, -1, NULL);
    CHECK(st->to_move == 1 && count_kind(&ev, MAAT_ARC_EV_CARD) == 0,
          "a lone space of a spot: no card");
    /* seat 1: (3,1) then (3,0) */
    st->seat[1].n_hand = 0;
    act(g, MAAT_ARC_TAKE, 0, -1, -1, -1, NULL);
    while (st->phase == MAAT_ARC_SMALL)
        act(g, MAAT_ARC_SMALL, st->seat[1].hand[0], 0, -1, -1, NULL);
    act(g, MAAT_ARC_PLACE, st->taken, 3, 1, 0, NULL);
    while (st->phase == MAAT_ARC_SMALL)
        act(g, MAAT_ARC_SMALL, st->seat[1].hand[0], 0, -1, -1, NULL);
    CHECK(st->to_move == 0, "seat 0 again");
    st->seat[0].n_hand = 0;
    act(g, MAAT_ARC_TAKE, 0, -1, -1, -1, NULL);
    int stone = st->taken;
    act(g, MAAT_ARC_PLACE, stone, 1, 1, 0, NULL);
    while (st->phase == MAAT_ARC_SMALL)
        act(g, MAAT_ARC_SMALL, st->seat[0].hand[0], 0, -1, -1, NULL);
    CHECK(st->phase == MAAT_ARC_CARD && st->pending_cards == 1 &&
              st->to_move == 0,
          "(1,1) completes the spot with (1,2): a card decision");
    maat_action l[8];
    CHECK(R->legal_actions(g, l, 8) == 4, "4 face-up cards to choose from");
    int slot = 2, card = st->faceup[slot], refill = st->pile[st->n_pile - 1];
    refused(g, MAAT_ARC_CARD, st->pile[0], -1, -1, -1, "not face up");
    maat_events_clear(&ev);
    /* a card that is not Khnum, to keep this simple */
    if (C->kind[card] == MAAT_ARC_KHNUM) {
        slot = 3;
        card = st->faceup[slot];
    }
    if (C->kind[card] == MAAT_ARC_KHNUM) {
        slot = 1;
        card = st->faceup[slot];
    }
    act(g, MAAT_ARC_CARD, card, -1, -1, -1, &ev);
    CHECK(st->seat[0].n_cards == 1 && st->seat[0].cards[0] == card &&
              st->faceup[slot] == refill && st->n_pile == 15,
          "the card taken, its slot refilled from the pile");
    CHECK(count_kind(&ev, MAAT_ARC_EV_CARD) == 1 &&
              count_kind(&ev, MAAT_ARC_EV_FACEUP) == 1,
          "card and faceup events");
    CHECK(st->to_move == 1 && st->phase == MAAT_ARC_TAKE, "turn over");
    /* seat 1 completes (3,0)-(3,1) the other way round */
    st->seat[1].n_hand = 0;
    act(g, MAAT_ARC_TAKE, 0, -1, -1, -1, NULL);
    act(g, MAAT_ARC_PLACE, st->taken, 3, 0, 0, NULL);
    while (st->phase == MAAT_ARC_SMALL)
        act(g, MAAT_ARC_SMALL, st->seat[1].hand[0], 0, -1, -1, NULL);
    CHECK(st->phase == MAAT_ARC_CARD, "(3,0) after (3,1): a card");
    R->destroy(&g);
    maat_events_free(&ev);
}

static void khnum(void)
{
    maat_game *g = new_game(2, 5);
    maat_arc_state *st = maat_arc_state_mut(g);
    maat_events ev = {0};
    /* seat 0 has (2,1); a Khnum card face up in slot 0 */
    st->seat[0].large[maat_arc_space(B, 2, 1)] = (int8_t)st->supply[0];
    st->seat[0].placed = 1;
    /* swap a Khnum into slot 0 from wherever it is */
    int kh = card_of(MAAT_ARC_KHNUM, 0);
    for (int i = 0; i < st->n_pile; i++)
        if (st->pile[i] == kh)
            st->pile[i] = (uint8_t)st->faceup[0];
    for (int i = 1; i < 4; i++)
        if (st->faceup[i] == kh)
            st->faceup[i] = st->faceup[0];
    st->faceup[0] = (int8_t)kh;
    /* (the supply stone used above: take it out of the supply) */
    memmove(st->supply, st->supply + 1, (size_t)(st->n_supply - 1));
    st->n_supply--;
    st->seat[0].n_hand = 0;
    act(g, MAAT_ARC_TAKE, 0, -1, -1, -1, NULL);
    act(g, MAAT_ARC_PLACE, st->taken, 2, 2, 0, NULL);
    while (st->phase == MAAT_ARC_SMALL)
        act(g, MAAT_ARC_SMALL, st->seat[0].hand[0], 0, -1, -1, NULL);
    CHECK(st->phase == MAAT_ARC_CARD, "a card for (2,1)-(2,2)");
    int bag = st->n_bag, d1 = st->bag[bag - 1], d2 = st->bag[bag - 2];
    act(g, MAAT_ARC_CARD, kh, -1, -1, -1, &ev);
    CHECK(st->phase == MAAT_ARC_SMALL && st->to_move == 0 &&
              st->seat[0].n_hand == 2 && st->seat[0].hand[0] == d1 &&
              st->seat[0].hand[1] == d2 && st->n_bag == bag - 2,
          "Khnum: 2 small stones drawn, to place now");
    CHECK(count_kind(&ev, MAAT_ARC_EV_DRAW) == 2, "2 draw events");
    act(g, MAAT_ARC_SMALL, d1, 1, 0, -1, NULL);
    CHECK(st->phase == MAAT_ARC_SMALL, "one decision each");
    act(g, MAAT_ARC_SMALL, d2, 1, 1, -1, NULL);
    CHECK(st->to_move == 1 && st->seat[0].small[0] == d1 &&
              st->seat[0].small[1] == d2 && st->seat[0].n_hand == 1,
          "placed; then the turn ends with the usual draw");
    R->destroy(&g);
    maat_events_free(&ev);
}

/* ---- ranks -------------------------------------------------------------- */

static void ranks(void)
{
    maat_game *g = new_game(3, 2);
    maat_arc_state *st = maat_arc_state_mut(g);
    for (int i = 0; i < 3; i++) {
        memset(st->seat[i].large, -1, sizeof st->seat[i].large);
        memset(st->seat[i].small, -1, sizeof st->seat[i].small);
        st->seat[i].n_collection = 0;
        st->seat[i].n_cards = 0;
    }
    /* seat 0: collection 4 -> 2 points, 4 small stones;
     * seat 1: collection 5 -> 2 points, 5 small stones;
     * seat 2: 2 on level 1 (1+1 balanced? use 1 and 2: unbalanced) and
     *         collection 2 -> 1 point ... make it 2 points with 4 stones */
    st->seat[0].n_collection = 4;
    st->seat[1].n_collection = 5;
    st->seat[2].n_collection = 4;
    maat_score sc[3];
    R->scores(g, sc);
    CHECK(sc[0].total == 2 && sc[1].total == 2 && sc[2].total == 2,
          "all on 2");
    CHECK(sc[1].rank == 1 && sc[0].rank == 2 && sc[2].rank == 2,
          "the tie goes to the most small stones, then shared: %d %d %d",
          sc[0].rank, sc[1].rank, sc[2].rank);
    st->seat[2].n_collection = 6;
    R->scores(g, sc);
    CHECK(sc[2].rank == 1 && sc[1].rank == 2 && sc[0].rank == 3,
          "points first: %d %d %d", sc[0].rank, sc[1].rank, sc[2].rank);
    R->destroy(&g);
}

/* ---- the end ---------------------------------------------------------- */

static void the_end(void)
{
    for (int seats = 2; seats <= 4; seats++) {
        maat_game *g = new_game(seats, 100 + (uint64_t)seats);
        maat_rng rng;
        maat_rng_seed(&rng, SEED(9));
        maat_action l[64];
        maat_events ev = {0};
        int steps = 0;
        while (!R->is_over(g) && steps < 10000) {
            int n = R->legal_actions(g, l, 64);
            CHECK(n >= 1 && n <= 64, "%d legal actions", n);
            if (n < 1)
                break;
            maat_error err = {0, ""};
            CHECK(R->apply(g, &l[maat_rng_below(&rng, (uint32_t)n)], &ev,
                           &err) == MAAT_OK,
                  "%s", err.msg);
            steps++;
        }
        const maat_arc_state *st = maat_arc_state_of(g);
        CHECK(R->is_over(g) && st->turn == 15 * seats,
              "%d seats: over after %d turns", seats, st->turn);
        for (int i = 0; i < seats; i++)
            CHECK(st->seat[i].placed == 15 && st->seat[i].n_cards == 3,
                  "seat %d: %d large stones, %d cards", i,
                  st->seat[i].placed, st->seat[i].n_cards);
        CHECK(R->decision(g).seat == -1 && R->legal_actions(g, l, 64) == 0,
              "no decision after the end");
        CHECK(ev.count > 0 && ev.items[ev.count - 1].kind == MAAT_ARC_EV_END,
              "the end event last");
        maat_action a = {MAAT_ARC_TAKE, {0, -1, -1, -1, -1, -1, -1}};
        maat_error err = {0, ""};
        CHECK(R->apply(g, &a, NULL, &err) == MAAT_ESTATE, "apply after the "
              "end");
        R->destroy(&g);
        maat_events_free(&ev);
    }
}

/* ---- the wire form of actions ----------------------------------------- */

static int round_trip(const maat_action *a, maat_action *b)
{
    msgpack_sbuffer sb;
    msgpack_packer pk;
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    int rc = R->encode_action(NULL, a, &pk);
    msgpack_unpacked up;
    maat_error err = {0, ""};
    if (!rc)
        rc = maat_msg_unpack(sb.data, sb.size, &up, &err);
    else
        msgpack_unpacked_init(&up);
    if (!rc)
        rc = R->decode_action(NULL, &up.data, b, &err);
    msgpack_unpacked_destroy(&up);
    msgpack_sbuffer_destroy(&sb);
    return rc;
}

/* Decoding a JSON-ish literal built with msgpack: key/values given as
 * pairs of strings (values starting with a digit or '-' are ints, "T"/"F"
 * booleans). */
static int decode_kv(const char *const *kv, int n, maat_error *err)
{
    msgpack_sbuffer sb;
    msgpack_packer pk;
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, (size_t)n);
    for (int i = 0; i < n; i++) {
        maat_pack_str(&pk, kv[2 * i]);
        const char *v = kv[2 * i + 1];
        if ((v[0] >= '0' && v[0] <= '9') || v[0] == '-')
            msgpack_pack_int(&pk, atoi(v));
        else if (!strcmp(v, "T"))
            msgpack_pack_true(&pk);
        else if (!strcmp(v, "F"))
            msgpack_pack_false(&pk);
        else
            maat_pack_str(&pk, v);
    }
    msgpack_unpacked up;
    int rc = maat_msg_unpack(sb.data, sb.size, &up, err);
    maat_action a;
    if (!rc)
        rc = R->decode_action(NULL, &up.data, &a, err);
    msgpack_unpacked_destroy(&up);
    msgpack_sbuffer_destroy(&sb);
    return rc;
}

static void wire(void)
{
    maat_action in[] = {
        {MAAT_ARC_TAKE, {3, -1, -1, -1, -1, -1, -1}},
        {MAAT_ARC_PLACE, {17, 2, 3, 1, -1, -1, -1}},
        {MAAT_ARC_PLACE, {0, 1, 0, 0, -1, -1, -1}},
        {MAAT_ARC_SMALL, {40, 6, 1, -1, -1, -1, -1}},
        {MAAT_ARC_SMALL, {41, 0, -1, -1, -1, -1, -1}},
        {MAAT_ARC_CARD, {19, -1, -1, -1, -1, -1, -1}},
    };
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        maat_action out;
        CHECK(round_trip(&in[i], &out) == MAAT_OK &&
                  memcmp(&in[i], &out, sizeof out) == 0,
              "action %zu does not survive the wire", i);
    }
    maat_error err = {0, ""};
    const char *ok[] = {"kind", "small", "small", "3", "to", "pyramid",
                        "level", "2", "side", "left"};
    CHECK(decode_kv(ok, 5, &err) == MAAT_OK, "small to pyramid: %s",
          err.msg);
    const char *no_side[] = {"kind", "small", "small", "3", "to", "pyramid",
                             "level", "2"};
    CHECK(decode_kv(no_side, 4, &err) == MAAT_EDECODE &&
              strstr(err.msg, "side"),
          "no side: %s", err.msg);
    const char *extra[] = {"kind", "small", "small", "3", "to",
                           "collection", "level", "2"};
    CHECK(decode_kv(extra, 4, &err) == MAAT_EDECODE, "collection + level");
    const char *rot_int[] = {"kind", "place", "large", "3", "level", "1",
                             "pos", "0", "rotated", "1"};
    CHECK(decode_kv(rot_int, 5, &err) == MAAT_EDECODE &&
              strstr(err.msg, "rotated"),
          "rotated must be a bool: %s", err.msg);
    const char *bad_kind[] = {"kind", "build"};
    CHECK(decode_kv(bad_kind, 1, &err) == MAAT_EDECODE && strstr(err.msg,
                                                                 "kind"),
          "unknown kind");
    const char *range[] = {"kind", "take", "space", "9"};
    CHECK(decode_kv(range, 2, &err) == MAAT_EDECODE, "space out of range");
}

/* ---- data files ------------------------------------------------------- */

typedef struct bad_case {
    int file; /* 0 stones, 1 cards, 2 board */
    const char *text;
    int line;
    const char *why;
} bad_case;

static int parse(int file, const char *text, maat_error *err)
{
    static maat_arc_stones st;
    static maat_arc_cards c;
    static maat_arc_board b;
    size_t n = strlen(text);
    return file == 0 ? maat_arc_stones_parse(&st, text, n, "f.txt", err)
         : file == 1 ? maat_arc_cards_parse(&c, text, n, "f.txt", err)
                     : maat_arc_board_parse(&b, text, n, "f.txt", err);
}

static void data_files(void)
{
    static const bad_case bad[] = {
        {0, "large 0 blue left - -\nlarge 1 green left - -\nsmall 0 blue 1\n",
         2, "unknown colour 'green'"},
        {0, "large 0 blue up - -\nsmall 0 blue 1\n", 1, "unknown openings"},
        {0, "large 0 blue left coffin -\nsmall 0 blue 1\n", 1,
         "unknown sarcophagus"},
        {0, "large 0 blue left - cat\nsmall 0 blue 1\n", 1,
         "unknown symbol 'cat'"},
        {0, "large 0 blue left -\n", 1, "expected 'large <id>"},
        {0, "large 0 blue left - -\nlarge 0 blue left - -\n", 2,
         "duplicate large stone id 0"},
        {0, "large 0 blue left - -\nlarge 2 blue left - -\nsmall 0 blue 1\n",
         3, "1 is missing"},
        {0, "large 0 blue left - -\nsmall 0 blue 4\n", 2, "workers '4'"},
        {0, "large 120 blue left - -\n", 1, "0..119"},
        {0, "large x blue left - -\n", 1, "is not a number"},
        {0, "medium 0 blue 1\n", 1, "'large' or 'small'"},
        {0, "large 0 blue left - -\n", 1, "0 small stones"},
        {1, "card 0 priest\ncard 1 anubis\n", 2, "unknown card kind"},
        {1, "card 0 priest\ncard 0 set\n", 2, "duplicate card id 0"},
        {1, "card 0\n", 1, "expected 'card <id> <kind>'"},
        {1, "# nothing\n", 1, "0 cards"},
        {2, "common 5\nfaceup 4\nlevel 2 3\n", 3, "out of order"},
        {2, "common 5\nfaceup 4\nlevel 1 2\ntouch 1.0 1.2\n", 4,
         "positions 0..1"},
        {2, "common 5\nfaceup 4\nlevel 1 2\ntouch 1.0 2.0\n", 4,
         "not declared"},
        {2, "common 5\nfaceup 4\nlevel 1 2\ntouch 1.0 1.1\ntouch 1.1 1.0\n",
         5, "given twice"},
        {2, "common 5\nfaceup 4\nlevel 1 2\nspot 1.0 1.left\n", 4,
         "between two large spaces"},
        {2, "common 5\nfaceup 4\nlevel 1 2\ntouch 1.0 1.0\n", 4,
         "with itself"},
        {2, "common 5\nfaceup 4\nlevel 1 2\ntouch 1.0 top\n", 4,
         "is not a piece"},
        {2, "common 5\nfaceup 4\nlevel 1 2\ntouch 1.0 1.1\nlevel 2 1\n", 5,
         "levels come before"},
        {2, "common 1\n", 1, "'1' is not a number in 2..8"},
        {2, "faceup 4\nlevel 1 2\n", 2, "no 'common"},
        {2, "common 5\ncommon 5\n", 2, "given twice"},
        {2, "common 5\nfaceup 4\nlevel 1 33\n", 3, "0..32"},
        {2, "common 5\nfaceup 4\nlevel 1 20\nlevel 2 13\n", 4,
         "more than 32"},
        {2, "common 5\nfaceup 4\n", 2, "no large space"},
        {2, "common 5 6\n", 1, "expected 'common <n>'"},
        {2, "pyramid 5\n", 1, "common, faceup, level, spot or touch"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        maat_error err = {0, ""};
        char where[32];
        snprintf(where, sizeof where, "f.txt:%d: ", bad[i].line);
        int rc = parse(bad[i].file, bad[i].text, &err);
        CHECK(rc == MAAT_EFORMAT && strncmp(err.msg, where,
                                            strlen(where)) == 0 &&
                  strstr(err.msg, bad[i].why),
              "bad case %zu: rc %d '%s', want '%s...%s'", i, rc, err.msg,
              where, bad[i].why);
    }
    /* a long line, a NUL byte */
    char longline[400];
    memset(longline, 'x', sizeof longline - 1);
    longline[sizeof longline - 1] = 0;
    maat_error err = {0, ""};
    CHECK(parse(1, longline, &err) == MAAT_EFORMAT &&
              strstr(err.msg, "f.txt:1: line longer"),
          "long line: %s", err.msg);
    maat_arc_cards c;
    CHECK(maat_arc_cards_parse(&c, "card 0 set\0x\n", 12, "f.txt", &err) ==
                  MAAT_EFORMAT &&
              strstr(err.msg, "NUL"),
          "NUL byte: %s", err.msg);
    /* comments and blanks, no trailing newline */
    const char *ok = "# c\n\n  card 0 set # x\n\tcard 1 khnum";
    CHECK(maat_arc_cards_parse(&c, ok, strlen(ok), "f.txt", &err) ==
                  MAAT_OK &&
              c.n == 2 && c.kind[1] == MAAT_ARC_KHNUM,
          "comments: %s", err.msg);

    /* the options: files substitute the reference; unknown ones refused */
    char path[] = "/tmp/maat-arc-test-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    FILE *f = fdopen(fd, "w");
    /* 60 large stones is just enough for 4 seats x 15 spaces */
    for (int i = 0; i < 60; i++)
        fprintf(f, "large %d white both sarcophagus sun\n", i);
    fprintf(f, "small 0 brown 2\n");
    fclose(f);
    maat_options opt = {0};
    maat_options_set(&opt, "stones", path);
    maat_setup *s = R->setup_new(&opt, &err);
    CHECK(s != NULL, "a substituted stones file: %s", err.msg);
    if (s) {
        maat_game *g = R->game_new(s, SEED(1), 4, NULL, &err);
        const maat_arc_state *st = g ? maat_arc_state_of(g) : NULL;
        CHECK(st && st->stones->n_large == 60 && st->stones->n_small == 1 &&
                  st->seat[0].n_hand == 1 && st->seat[1].n_hand == 0,
              "the substituted stones are used (one small stone only)");
        /* the game still runs to its end with an empty bag */
        maat_rng rng;
        maat_rng_seed(&rng, SEED(1));
        maat_action l[64];
        while (g && !R->is_over(g)) {
            int n = R->legal_actions(g, l, 64);
            if (n < 1 || R->apply(g, &l[maat_rng_below(&rng, (uint32_t)n)],
                                  NULL, &err))
                break;
        }
        CHECK(g && R->is_over(g), "a game with one small stone ends");
        R->destroy(&g);
        R->setup_destroy(&s);
    }
    f = fopen(path, "w");
    for (int i = 0; i < 59; i++)
        fprintf(f, "large %d white both sarcophagus sun\n", i);
    fprintf(f, "small 0 brown 2\n");
    fclose(f);
    s = R->setup_new(&opt, &err);
    CHECK(!s && err.code == MAAT_EFORMAT && strstr(err.msg, path) &&
              strstr(err.msg, "59 large stones"),
          "too few large stones for 4 x 15: %s", err.msg);
    f = fopen(path, "w");
    fprintf(f, "card 0 set\ncard 1 sun\n");
    fclose(f);
    opt.count = 0;
    maat_options_set(&opt, "cards", path);
    s = R->setup_new(&opt, &err);
    char want[300];
    snprintf(want, sizeof want, "%s:2: unknown card kind 'sun'", path);
    CHECK(!s && strstr(err.msg, want), "a bad cards file: %s", err.msg);
    f = fopen(path, "w");
    fprintf(f, "card 0 set\ncard 1 set\n");
    fclose(f);
    s = R->setup_new(&opt, &err);
    CHECK(!s && strstr(err.msg, "2 cards"), "too few cards: %s", err.msg);
    opt.count = 0;
    maat_options_set(&opt, "board", path);
    s = R->setup_new(&opt, &err);
    CHECK(!s && strstr(err.msg, ":1: a line starts with common"),
          "a cards file as the board: %s", err.msg);
    unlink(path);
    s = R->setup_new(&opt, &err);
    CHECK(!s && err.code == MAAT_EIO && strstr(err.msg, "cannot open"),
          "a missing file: %s", err.msg);
    opt.count = 0;
    maat_options_set(&opt, "deck", "x");
    s = R->setup_new(&opt, &err);
    CHECK(!s && err.code == MAAT_EINVAL && strstr(err.msg, "'deck'"),
          "unknown option: %s", err.msg);
    maat_error e2 = {0, ""};
    maat_game *g = R->game_new(setup, SEED(1), 5, NULL, &e2);
    CHECK(!g && e2.code == MAAT_EINVAL, "5 seats refused");
    g = R->game_new(setup, SEED(1), 1, NULL, &e2);
    CHECK(!g, "1 seat refused");
}

/* ---- decoding observations ------------------------------------------ */

/* The value of `key` in a map, for editing an unpacked observation. */
static msgpack_object *field(msgpack_object *map, const char *key)
{
    for (uint32_t i = 0; i < map->via.map.size; i++)
        if (maat_msg_str_eq(&map->via.map.ptr[i].key, key))
            return &map->via.map.ptr[i].val;
    return NULL;
}

/* An observation that no game can produce is refused: a sample made from
 * it could stall (fuzz_observation plays samples to the end). */
static void decode_refusals(void)
{
    maat_game *g = new_game(3, 8);
    maat_arc_state *st = maat_arc_state_mut(g);
    while (st->turn < 4 || st->phase != MAAT_ARC_TAKE) { /* seat 1's take */
        maat_action l[64];
        R->legal_actions(g, l, 64);
        act(g, l[0].kind, l[0].arg[0], l[0].arg[1], l[0].arg[2], l[0].arg[3],
            NULL);
    }
    msgpack_sbuffer sb;
    msgpack_packer pk;
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    R->encode_observation(g, 2, &pk);
    for (int k = 0; k < 5; k++) {
        msgpack_unpacked up;
        maat_error err = {0, ""};
        CHECK(maat_msg_unpack(sb.data, sb.size, &up, &err) == MAAT_OK,
              "unpack");
        msgpack_object *o = &up.data;
        const char *want = NULL;
        if (k == 1) {
            field(o, "turn")->via.u64 += 1;
            want = "turn";
        } else if (k == 2) {
            field(o, "turn")->via.u64 += (uint64_t)st->seats;
            want = "placed";
        } else if (k == 3) {
            field(o, "common")->via.array.ptr[0].type = MSGPACK_OBJECT_NIL;
            want = "slid";
        } else if (k == 4) {
            field(o, "supply_size")->via.u64 = 0;
            want = "large stones left";
        }
        maat_arc_state dec;
        dec.stones = S;
        dec.cards = C;
        dec.board = B;
        int rc = maat_arc_observation_decode(o, &dec, &err);
        if (!want)
            CHECK(rc == MAAT_OK && dec.turn == st->turn &&
                      dec.to_move == st->to_move,
                  "the true observation decodes: %s", err.msg);
        else
            CHECK(rc == MAAT_EDECODE && strstr(err.msg, want),
                  "edit %d: rc %d '%s', want '%s'", k, rc, err.msg, want);
        msgpack_unpacked_destroy(&up);
    }
    msgpack_sbuffer_destroy(&sb);
    R->destroy(&g);
}

int main(void)
{
    maat_error err = {0, ""};
    setup = R->setup_new(NULL, &err);
    CHECK(setup != NULL, "reference setup: %s", err.msg);
    if (!setup)
        return check_done("test_architects_rules");
    maat_game *g = R->game_new(setup, SEED(1), 2, NULL, &err);
    const maat_arc_state *st = maat_arc_state_of(g);
    S = st->stones;
    C = st->cards;
    B = st->board;
    CHECK(maat_rules_find("architects") == R, "registered");
    components();
    board_geometry();
    structure();
    chambers();
    symbols();
    workers();
    collection();
    cards();
    deal();
    take_and_pay();
    placing();
    card_spots();
    khnum();
    ranks();
    the_end();
    wire();
    decode_refusals();
    data_files();
    R->destroy(&g);
    R->setup_destroy(&setup);
    return check_done("test_architects_rules");
}
