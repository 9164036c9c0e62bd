/* pyramids_score.c -- end-of-game scoring: pyramid groups, obelisk table,
 * tomb majorities, glyphs.  Each part is a function usable on hand-built
 * edifices so tests can check the rulebook's worked examples directly. */
#include <string.h>

#include "pyramids_internal.h"

/* Groups are sets of same-coloured stones joined through touching ones:
 * side by side in a stage, or overlapping by a cell in neighbouring
 * stages.  Picture each card 6 cells wide, position p of stage s starting
 * at cell 6p + 3s (every stage sits half a card to the right of the one
 * below), its 2 or 3 stones splitting the 6 cells evenly.  So:
 *
 *   - in a stage, a card's stones touch in order, and its first stone
 *     touches the last stone of the card to its left if there is one;
 *   - the left half (cells 0..2) of the card at index i of stage s lies
 *     on the right half (cells 3..5) of the card at index i of stage
 *     s - 1, and its right half on the left half of index i + 1.
 *
 * Each stone is therefore joined to its few neighbours directly, instead
 * of testing every pair of stones; the groups, and so their sizes, do not
 * depend on the order stones are joined in. */

#define PYR_CELLS (MAAT_PYR_STAGES * MAAT_PYR_POSITIONS)

/* The stones gathered so far, as a union-find: stone k of the card at
 * cell b (bit 7 * stage + i of pyr_occupied) is node 3 * b + k.
 * largest[c] is the size of the largest group of colour c of two stones
 * or more so far (sizes only grow as groups merge, so the largest at the
 * end is the largest ever seen). */
#define PYR_NODES (PYR_CELLS * 3)
typedef struct {
    /* (+1: a card's three stones are written as one 4-byte word) */
    uint8_t colour[PYR_NODES + 1];
    uint8_t parent[PYR_NODES + 1];
    uint8_t size[PYR_NODES + 1];
    uint8_t largest[8]; /* a byte (84 stones at most); 8: one store clears it */
} stones;

static inline int find(uint8_t *parent, int x)
{
    while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
    return x;
}

/* Stones a and b touch: one group if they share a colour. */
static inline void join(stones *g, int a, int b)
{
    if (g->colour[a] != g->colour[b])
        return;
    int ra = find(g->parent, a), rb = find(g->parent, b);
    if (ra != rb) {
        g->parent[rb] = (uint8_t)ra;
        int size = g->size[ra] += g->size[rb];
        if (size > g->largest[g->colour[a]])
            g->largest[g->colour[a]] = (uint8_t)size;
    }
}

/* The right half (cells 3..5) of card `left` (first stone, stone count)
 * and the left half (cells 0..2) of card `right` are the same cells, one
 * stage apart: join the stones sharing one of those cells.  Stone k of a
 * card of n stones covers cells 6k/n .. 6(k+1)/n - 1, so the pairs are
 * (as stone offsets in `left`, `right`; 2 or 3 stones each):
 *
 *   left 2 (cells 3..5: 1 1 1), right 2 (cells 0..2: 0 0 0): (1,0)
 *   left 2,                     right 3 (cells 0..2: 0 0 1): (1,0) (1,1)
 *   left 3 (cells 3..5: 1 2 2), right 2:                      (1,0) (2,0)
 *   left 3,                     right 3:              (1,0) (2,0) (2,1) */
static inline void join_halves(stones *g, int left, int left_n, int right,
                               int right_n)
{
    join(g, left + 1, right);
    if (right_n == 3)
        join(g, left + left_n - 1, right + 1);
    if (left_n == 3)
        join(g, left + 2, right);
}

/* The cells of the first and of the last position of every stage. */
#define COL_FIRST (1u | 1u << 7 | 1u << 14 | 1u << 21)
#define COL_LAST (COL_FIRST << 6)

/* maat_pyr_groups, and the number of pyramid cards with the pyramid
 * glyph (scoring's, counted on the way); inline, so that scoring (once
 * per seat) pays no call and no registers saved for it, nor the shared
 * library's PLT.  The cards are visited stage by stage, left to right, as
 * the bits of the occupied cells (bit 7 * stage + i, the cell's index in
 * the grid too), so only the cards there cost anything; which
 * neighbours each has is read from three masks made at the start. */
static inline __attribute__((always_inline)) int
groups(const maat_pyr_deck *d, const maat_pyr_seat *s,
       int largest[MAAT_PYR_COLOURS])
{
    int glyphs = 0; /* pyramid cards with the pyramid glyph, for scoring */
    stones g;
    uint8_t count[PYR_CELLS]; /* stone count of the card at each cell */
    uint8_t right[PYR_CELLS]; /* colours of its right half (cells 3..5) */
    const int8_t *grid = &s->grid[0][0];
    uint32_t occ = pyr_occupied(s), present = 0;
    /* bit b set: the card at b has one at its left (b - 1), below-left
     * (b - 7: same index, one stage down), below-right (b - 6) */
    uint32_t has_left = occ << 1 & ~COL_FIRST;
    uint32_t has_below_left = occ << 7;
    uint32_t has_below_right = occ << 6 & ~COL_LAST & ~0x7Fu;
    memset(g.largest, 0, sizeof g.largest);
    for (uint32_t m = occ; m; m &= m - 1) {
        int b = __builtin_ctz(m), f = 3 * b;
        const maat_pyr_card_scoring *c = &d->scoring[grid[b]];
        int ns = c->n_stones;
        glyphs += c->glyph_is[MAAT_PYR_GLYPH_PYRAMID];
        count[b] = (uint8_t)ns;
        right[b] = c->right_half;
        present |= c->shows;
        /* the card's stones, its runs of one colour already one group
         * each (maat_pyr_deck_derive): colours, parents and sizes as a
         * word each, written over the next cell's first stone, which is
         * written after, if there is a card there, or never read.  The
         * parents are the runs' first stones as offsets: f added to each
         * byte (no carry: f + 2 < 256). */
        uint32_t parents;
        memcpy(&g.colour[f], c->colour, 4);
        memcpy(&parents, c->run, 4);
        parents += (uint32_t)f * 0x01010101u;
        memcpy(&g.parent[f], &parents, 4);
        memcpy(&g.size[f], c->size, 4);
        if (c->run_len > g.largest[c->run_colour])
            g.largest[c->run_colour] = c->run_len;
        /* the card to the left, then below-left, then below-right: all
         * gathered before this one */
        if (has_left >> b & 1)
            join(&g, f - 3 + count[b - 1] - 1, f);
        /* (halves with no colour in common: no stone to join, the usual
         * case with five colours) */
        if ((has_below_left >> b & 1) && (right[b - 7] & c->left_half))
            join_halves(&g, f - 21, count[b - 7], f, ns);
        if ((has_below_right >> b & 1) &&
            (c->right_half & d->scoring[grid[b - 6]].left_half))
            join_halves(&g, f, ns, f - 18, count[b - 6]);
    }
    /* a colour whose stones never joined: groups of one */
    for (int c = 0; c < MAAT_PYR_COLOURS; c++)
        largest[c] = g.largest[c] ? g.largest[c] : (int)(present >> c & 1);
    return glyphs;
}

void maat_pyr_groups(const maat_pyr_deck *d, const maat_pyr_seat *s,
                     int largest[MAAT_PYR_COLOURS])
{
    groups(d, s, largest);
}

void maat_pyr_deck_derive(maat_pyr_deck *d)
{
    for (int id = 0; id < MAAT_PYR_CARDS; id++) {
        const maat_pyr_card *card = &d->card[id];
        maat_pyr_card_scoring *c = &d->scoring[id];
        int ns = card->n_stones < 3 ? card->n_stones : 3;
        memset(c, 0, sizeof *c);
        c->n_stones = card->n_stones;
        c->glyph = card->glyph;
        if (card->glyph < 4)
            c->glyph_is[card->glyph] = 1;
        for (int k = 0; k < ns; k++) {
            int colour = card->stone[k];
            c->colour[k] = (uint8_t)colour;
            if (colour < MAAT_PYR_COLOURS) {
                c->shows |= (uint8_t)(1u << colour);
                c->stones += 1ull << 8 * colour;
            }
            if (k > 0 && colour == card->stone[k - 1]) {
                c->run[k] = c->run[k - 1];
                c->size[c->run[k]]++;
            } else {
                c->run[k] = (uint8_t)k;
                c->size[k] = 1;
            }
        }
        for (int k = 0; k < ns; k++) {
            /* stone k covers cells 6k/ns .. 6(k+1)/ns - 1 */
            uint8_t bit = (uint8_t)(c->colour[k] < MAAT_PYR_COLOURS
                                        ? 1u << c->colour[k] : 0);
            if (6 * k / ns <= 2)
                c->left_half |= bit;
            if ((6 * (k + 1) - 1) / ns >= 3)
                c->right_half |= bit;
        }
        for (int k = 0; k < ns; k++)
            if (c->size[k] >= 2 && c->size[k] > c->run_len &&
                c->colour[k] < MAAT_PYR_COLOURS) {
                c->run_len = c->size[k];
                c->run_colour = c->colour[k];
            }
    }
}

/* A bit per colour spread to the low bit of its byte, for each of the 32
 * sets of colours (made by the preprocessor). */
#define SPREAD(b)                                                            \
    ((uint64_t)((b) & 1) | (uint64_t)((b) & 2) << 7 |                        \
     (uint64_t)((b) & 4) << 14 | (uint64_t)((b) & 8) << 21 |                 \
     (uint64_t)((b) & 16) << 28)
#define SPREAD4(b) SPREAD(b), SPREAD((b) + 1), SPREAD((b) + 2), SPREAD((b) + 3)
static const uint64_t colour_bytes[32] = {
    SPREAD4(0), SPREAD4(4), SPREAD4(8), SPREAD4(12),
    SPREAD4(16), SPREAD4(20), SPREAD4(24), SPREAD4(28)};

/* Obelisk points; *glyphs counts its cards with the obelisk glyph. */
static int obelisk_points(const maat_pyr_deck *d, const maat_pyr_seat *s,
                          int *glyphs)
{
    static const int table[6] = {0, 1, 3, 6, 10, 15};
    /* cards showing each colour, one byte per colour: each card adds 1 to
     * the byte of every colour it shows, however many stones of it */
    uint64_t k = 0;
    for (int i = 0; i < s->obelisk_n; i++) {
        const maat_pyr_card_scoring *card = &d->scoring[s->obelisk[i]];
        *glyphs += card->glyph_is[MAAT_PYR_GLYPH_OBELISK];
        k += colour_bytes[card->shows];
    }
    int best = 0;
    for (int c = 0; c < MAAT_PYR_COLOURS; c++) {
        int v = (int)(k >> 8 * c & 0xff);
        best = v > best ? v : best;
    }
    return table[best > 5 ? 5 : best];
}

int maat_pyr_obelisk_points(const maat_pyr_deck *d, const maat_pyr_seat *s)
{
    int glyphs = 0;
    return obelisk_points(d, s, &glyphs);
}

/* Stones of each colour in the seat's tomb, a byte per colour (at most
 * 10 cards of 3); *glyphs counts its cards with the tomb glyph. */
static uint64_t tomb_stones(const maat_pyr_deck *d, const maat_pyr_seat *s,
                            int *glyphs)
{
    uint64_t n = 0;
    for (int i = 0; i < s->tomb_n; i++) {
        const maat_pyr_card_scoring *c = &d->scoring[s->tomb[i]];
        *glyphs += c->glyph_is[MAAT_PYR_GLYPH_TOMB];
        n += c->stones;
    }
    return n;
}

void maat_pyr_score_all(const maat_pyr_state *st, maat_score *out)
{
    const maat_pyr_deck *d = st->deck;
    uint64_t tomb[MAAT_PYR_MAX_SEATS];
    for (int i = 0; i < st->seats; i++) {
        const maat_pyr_seat *s = &st->seat[i];
        int L[MAAT_PYR_COLOURS], sum = 0, max = 0, all3 = 1, glyphs;
        glyphs = groups(d, s, L);
        tomb[i] = tomb_stones(d, s, &glyphs);
        for (int c = 0; c < MAAT_PYR_COLOURS; c++) {
            sum += L[c];
            max = L[c] > max ? L[c] : max;
            all3 &= L[c] >= 3;
        }
        memset(&out[i], 0, sizeof out[i]);
        out[i].part[MAAT_PYR_S_GROUPS] = sum;
        out[i].part[MAAT_PYR_S_LARGEST] = max;
        out[i].part[MAAT_PYR_S_BONUS] = all3 ? 10 : 0;
        int obelisk = obelisk_points(d, s, &glyphs);
        out[i].part[MAAT_PYR_S_OBELISK] = obelisk;
        out[i].part[MAAT_PYR_S_GLYPHS] = 2 * glyphs;
        /* the total so far (the tombs' majorities come below) */
        out[i].total = sum + max + (all3 ? 10 : 0) + obelisk + 2 * glyphs;
    }
    /* The most stones of each colour in a tomb: all five colours at once,
     * a byte each (at most 30 < 128, so a byte's top bit is free for the
     * comparisons): the most so far, and who has them (seat + 1; 0 for
     * nobody, or a tie for the most). */
    const uint64_t ones = 0x0101010101ull, tops = ones << 7;
    uint64_t best = 0, who = 0;
    for (int i = 0; i < st->seats; i++) {
        uint64_t t = tomb[i], same = best ^ t;
        uint64_t more = ~((best | tops) - t) & tops; /* t's byte > best's */
        uint64_t tie = ~((same | tops) - ones) & tops; /* t's == best's */
        uint64_t m = (more >> 7) * 0xff, e = (tie >> 7) * 0xff;
        best = (t & m) | (best & ~m);
        who = ((uint64_t)(i + 1) * ones & m) | (who & ~m & ~e);
    }
    for (int c = 0; c < MAAT_PYR_COLOURS; c++) {
        int holder = (int)(who >> 8 * c & 0xff) - 1;
        if (holder >= 0) {
            out[holder].part[MAAT_PYR_S_TOMB] += 5;
            out[holder].total += 5;
        }
    }
    maat_rank_scores(out, st->seats);
}

void maat_pyr_scores(const maat_game *g, maat_score *out)
{
    maat_pyr_score_all(&g->st, out);
}
