/* architects_score.c -- end-of-game scoring: solid structure, burial
 * chambers, symbols of the gods, workers, the collection and the cards.
 *
 * Each part is a function of one pyramid (maat_arc_seat) and the data it
 * is built from, so tests can score hand-built pyramids directly.  The
 * geometry comes from the board file: which pieces touch is a bit mask
 * per piece (at most 49 pieces), so a colour's group is a flood fill of a
 * few mask operations; chambers only need each level's positions in
 * order, which the board gives as well. */
#include <string.h>

#include "architects_internal.h"

int maat_arc_openings(const maat_arc_stones *st, const maat_arc_seat *s,
                      int space)
{
    int id = s->large[space];
    if (id < 0)
        return 0;
    int o = st->large[id].open;
    if (s->rotated[space]) /* turned by 180 degrees: left and right swap */
        o = ((o & MAAT_ARC_OPEN_LEFT) ? MAAT_ARC_OPEN_RIGHT : 0) |
            ((o & MAAT_ARC_OPEN_RIGHT) ? MAAT_ARC_OPEN_LEFT : 0);
    return o;
}

static int piece_level(const maat_arc_board *b, int piece)
{
    if (piece < b->n_large)
        return b->space_level[piece];
    return (piece - b->n_large) / 2 + 1; /* small spaces, by level */
}

int maat_arc_structure(const maat_arc_board *b, const maat_arc_stones *st,
                       const maat_arc_seat *s, int height[MAAT_ARC_COLOURS])
{
    uint64_t mask[MAAT_ARC_COLOURS] = {0};
    for (int i = 0; i < b->n_large; i++)
        if (s->large[i] >= 0)
            mask[st->large[s->large[i]].colour] |= 1ull << i;
    for (int k = 0; k < maat_arc_n_small_spaces(b); k++)
        if (s->small[k] >= 0)
            mask[st->small[s->small[k]].colour] |= 1ull << (b->n_large + k);
    int sum = 0;
    for (int c = 0; c < MAAT_ARC_COLOURS; c++) {
        /* the pieces of colour c connected to the bottom, by flood fill */
        uint64_t reached = b->touch[maat_arc_bottom(b)] & mask[c];
        uint64_t frontier = reached;
        while (frontier) {
            int p = __builtin_ctzll(frontier);
            frontier &= frontier - 1;
            uint64_t next = b->touch[p] & mask[c] & ~reached;
            reached |= next;
            frontier |= next;
        }
        int h = 0;
        for (; reached; reached &= reached - 1) {
            int l = piece_level(b, __builtin_ctzll(reached));
            h = l > h ? l : h;
        }
        height[c] = h;
        sum += h;
    }
    return sum;
}

int maat_arc_chambers(const maat_arc_board *b, const maat_arc_stones *st,
                      const maat_arc_seat *s, int *scoring, int *exits,
                      int *joined)
{
    int points = 0, n_scoring = 0, n_exits = 0, n_joined = 0;
    for (int level = 1; level <= b->levels; level++) {
        int n = b->level_n[level], first = b->level_first[level];
        if (n == 0)
            continue;
        int open[MAAT_ARC_MAX_SPACES], join[MAAT_ARC_MAX_SPACES];
        int to_left[MAAT_ARC_MAX_SPACES], to_right[MAAT_ARC_MAX_SPACES];
        for (int p = 0; p < n; p++)
            open[p] = maat_arc_openings(st, s, first + p);
        /* join[p]: positions p and p + 1 are joined (an empty space has
         * no openings, so it joins nothing) */
        for (int p = 0; p + 1 < n; p++) {
            join[p] = (open[p] & MAAT_ARC_OPEN_RIGHT) &&
                      (open[p + 1] & MAAT_ARC_OPEN_LEFT);
            n_joined += join[p];
        }
        int exit_left = (open[0] & MAAT_ARC_OPEN_LEFT) != 0;
        int exit_right = (open[n - 1] & MAAT_ARC_OPEN_RIGHT) != 0;
        n_exits += exit_left + exit_right;
        to_left[0] = exit_left;
        for (int p = 1; p < n; p++)
            to_left[p] = to_left[p - 1] && join[p - 1];
        to_right[n - 1] = exit_right;
        for (int p = n - 2; p >= 0; p--)
            to_right[p] = to_right[p + 1] && join[p];
        for (int p = 0; p < n; p++) {
            int id = s->large[first + p];
            if (id < 0 || !st->large[id].sarcophagus ||
                !(to_left[p] || to_right[p]))
                continue;
            int in = p < n - 1 - p ? p : n - 1 - p; /* spaces to the edge */
            points += 1 + in;
            n_scoring++;
        }
    }
    if (scoring)
        *scoring = n_scoring;
    if (exits)
        *exits = n_exits;
    if (joined)
        *joined = n_joined;
    return points;
}

int maat_arc_symbol_points(int distinct)
{
    static const int table[6] = {0, 2, 4, 7, 11, 16};
    if (distinct < 0)
        return 0;
    return table[distinct > 5 ? 5 : distinct];
}

int maat_arc_symbols(const maat_arc_board *b, const maat_arc_stones *st,
                     const maat_arc_seat *s, int *all)
{
    unsigned seen = 0;
    int n = 0;
    for (int i = 0; i < b->n_large; i++) {
        if (s->large[i] < 0)
            continue;
        int sym = st->large[s->large[i]].symbol;
        if (sym != MAAT_ARC_NO_SYMBOL) {
            seen |= 1u << sym;
            n++;
        }
    }
    if (all)
        *all = n;
    return __builtin_popcount(seen);
}

int maat_arc_workers(const maat_arc_board *b, const maat_arc_stones *st,
                     const maat_arc_seat *s, int *on_pyramid)
{
    int points = 0, total = 0;
    for (int level = 1; level <= b->levels; level++) {
        int l = s->small[2 * (level - 1)], r = s->small[2 * (level - 1) + 1];
        int wl = l >= 0 ? st->small[l].workers : 0;
        int wr = r >= 0 ? st->small[r].workers : 0;
        total += wl + wr;
        if (l >= 0 && r >= 0 && wl == wr)
            points += wl;
    }
    if (on_pyramid)
        *on_pyramid = total;
    return points;
}

void maat_arc_score_seat(const maat_arc_board *b, const maat_arc_stones *st,
                         const maat_arc_cards *cards, const maat_arc_seat *s,
                         maat_arc_detail *d)
{
    memset(d, 0, sizeof *d);
    d->part[MAAT_ARC_S_STRUCTURE] = maat_arc_structure(b, st, s, d->height);
    d->part[MAAT_ARC_S_CHAMBERS] = maat_arc_chambers(
        b, st, s, &d->scoring_sarcophagi, &d->exits, &d->joined);
    d->distinct_symbols = maat_arc_symbols(b, st, s, &d->all_symbols);
    d->part[MAAT_ARC_S_SYMBOLS] = maat_arc_symbol_points(d->distinct_symbols);
    d->balanced = maat_arc_workers(b, st, s, &d->workers_on_pyramid);
    d->part[MAAT_ARC_S_WORKERS] = d->balanced;
    d->part[MAAT_ARC_S_COLLECTION] = s->n_collection / 2;
    int smalls = 0;
    for (int k = 0; k < maat_arc_n_small_spaces(b); k++)
        smalls += s->small[k] >= 0;
    d->small_stones = smalls + s->n_collection;

    /* The cards, each on its own, as the rules page words them.  Two
     * kinds replace a rule instead of adding to it: Priest (a wild symbol;
     * there are only 5 gods, so it adds nothing once all 5 are in the
     * pyramid, and a second Priest adds the next symbol) and Scribe (the
     * collection at 1 per stone; a second Scribe adds nothing). */
    int priests = 0, scribes = 0;
    for (int i = 0; cards && i < s->n_cards; i++) {
        int v = 0, tall = 0;
        switch (cards->kind[s->cards[i]]) {
        case MAAT_ARC_PRIEST:
            priests++;
            v = maat_arc_symbol_points(d->distinct_symbols + priests) -
                maat_arc_symbol_points(d->distinct_symbols + priests - 1);
            break;
        case MAAT_ARC_OSIRIS:
            v = d->workers_on_pyramid / 3;
            break;
        case MAAT_ARC_DIVINE_PATH:
            v = d->exits;
            break;
        case MAAT_ARC_SET:
            v = 2 * d->scoring_sarcophagi;
            break;
        case MAAT_ARC_ARCHITECT:
            for (int c = 0; c < MAAT_ARC_COLOURS; c++)
                tall += d->height[c] >= 5;
            v = 2 * tall;
            break;
        case MAAT_ARC_SCRIBE:
            if (scribes++ == 0)
                v = s->n_collection - s->n_collection / 2;
            break;
        case MAAT_ARC_VIZIER:
            v = d->balanced;
            break;
        case MAAT_ARC_BASTET:
            v = d->all_symbols;
            break;
        case MAAT_ARC_THOTH:
            v = d->joined;
            break;
        default: /* Khnum acted at once */
            break;
        }
        d->card_points[i] = v;
        d->part[MAAT_ARC_S_CARDS] += v;
    }
    for (int k = 0; k < MAAT_ARC_S_PARTS; k++)
        d->total += d->part[k];
}

void maat_arc_score_all(const maat_arc_state *st, maat_score *out)
{
    int smalls[MAAT_ARC_MAX_SEATS];
    for (int i = 0; i < st->seats; i++) {
        maat_arc_detail d;
        maat_arc_score_seat(st->board, st->stones, st->cards, &st->seat[i],
                            &d);
        memset(&out[i], 0, sizeof out[i]);
        memcpy(out[i].part, d.part, sizeof d.part);
        out[i].total = d.total;
        smalls[i] = d.small_stones;
    }
    /* Ranks: most points; a tie goes to the most small stones in pyramid
     * and collection; then the tied seats share the place. */
    for (int i = 0; i < st->seats; i++) {
        int better = 0;
        for (int j = 0; j < st->seats; j++)
            better += out[j].total > out[i].total ||
                      (out[j].total == out[i].total && smalls[j] > smalls[i]);
        out[i].rank = 1 + better;
    }
}

void maat_arc_scores(const maat_game *g, maat_score *out)
{
    maat_arc_score_all(&g->st, out);
}
