/* pyramids_score.c -- end-of-game scoring: pyramid groups, obelisk table,
 * tomb majorities, glyphs.  Each part is a function usable on hand-built
 * edifices so tests can check the rulebook's worked examples directly. */
#include <string.h>

#include "pyramids_internal.h"

/* One stone of a pyramid as a cell range [lo, hi) of its row. */
typedef struct {
    int row, lo, hi, colour;
} stone;

static int gather_stones(const maat_pyr_deck *d, const maat_pyr_seat *s,
                         stone *out)
{
    int n = 0;
    for (int stage = 0; stage < MAAT_PYR_STAGES; stage++)
        for (int i = 0; i < MAAT_PYR_POSITIONS; i++) {
            int id = s->grid[stage][i];
            if (id < 0)
                continue;
            const maat_pyr_card *c = &d->card[id];
            int pos = i - MAAT_PYR_POS_OFFSET, w = 6 / c->n_stones;
            for (int k = 0; k < c->n_stones; k++) {
                int lo = 6 * pos + 3 * stage + k * w;
                stone st = {stage, lo, lo + w, c->stone[k]};
                out[n++] = st;
            }
        }
    return n;
}

/* Same row and touching, or neighbouring rows overlapping by a cell. */
static int connected(const stone *a, const stone *b)
{
    if (a->row == b->row)
        return a->hi == b->lo || b->hi == a->lo;
    if (a->row - b->row == 1 || b->row - a->row == 1) {
        int lo = a->lo > b->lo ? a->lo : b->lo;
        int hi = a->hi < b->hi ? a->hi : b->hi;
        return hi - lo >= 1;
    }
    return 0;
}

static int find(int *parent, int x)
{
    while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
    return x;
}

void maat_pyr_groups(const maat_pyr_deck *d, const maat_pyr_seat *s,
                     int largest[MAAT_PYR_COLOURS])
{
    stone st[MAAT_PYR_STAGES * MAAT_PYR_POSITIONS * 3];
    int parent[sizeof st / sizeof st[0]], size[sizeof st / sizeof st[0]];
    int n = gather_stones(d, s, st);
    for (int i = 0; i < n; i++) {
        parent[i] = i;
        size[i] = 1;
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (st[i].colour == st[j].colour && connected(&st[i], &st[j])) {
                int a = find(parent, i), b = find(parent, j);
                if (a != b) {
                    parent[b] = a;
                    size[a] += size[b];
                }
            }
    memset(largest, 0, sizeof(int) * MAAT_PYR_COLOURS);
    for (int i = 0; i < n; i++)
        if (find(parent, i) == i && size[i] > largest[st[i].colour])
            largest[st[i].colour] = size[i];
}

int maat_pyr_obelisk_points(const maat_pyr_deck *d, const maat_pyr_seat *s)
{
    static const int table[6] = {0, 1, 3, 6, 10, 15};
    int best = 0;
    for (int c = 0; c < MAAT_PYR_COLOURS; c++) {
        int k = 0;
        for (int i = 0; i < s->obelisk_n; i++) {
            const maat_pyr_card *card = &d->card[s->obelisk[i]];
            int shows = 0;
            for (int j = 0; j < card->n_stones; j++)
                shows |= card->stone[j] == c;
            k += shows;
        }
        best = k > best ? k : best;
    }
    return table[best > 5 ? 5 : best];
}

static int tomb_stones(const maat_pyr_deck *d, const maat_pyr_seat *s,
                       int colour)
{
    int n = 0;
    for (int i = 0; i < s->tomb_n; i++) {
        const maat_pyr_card *c = &d->card[s->tomb[i]];
        for (int j = 0; j < c->n_stones; j++)
            n += c->stone[j] == colour;
    }
    return n;
}

static int glyph_points(const maat_pyr_deck *d, const maat_pyr_seat *s)
{
    int n = 0;
    for (int stage = 0; stage < MAAT_PYR_STAGES; stage++)
        for (int i = 0; i < MAAT_PYR_POSITIONS; i++)
            if (s->grid[stage][i] >= 0)
                n += d->card[s->grid[stage][i]].glyph ==
                     MAAT_PYR_GLYPH_PYRAMID;
    for (int i = 0; i < s->obelisk_n; i++)
        n += d->card[s->obelisk[i]].glyph == MAAT_PYR_GLYPH_OBELISK;
    for (int i = 0; i < s->tomb_n; i++)
        n += d->card[s->tomb[i]].glyph == MAAT_PYR_GLYPH_TOMB;
    return 2 * n;
}

void maat_pyr_score_all(const maat_pyr_state *st, maat_score *out)
{
    const maat_pyr_deck *d = st->deck;
    for (int i = 0; i < st->seats; i++) {
        const maat_pyr_seat *s = &st->seat[i];
        int L[MAAT_PYR_COLOURS], sum = 0, max = 0, all3 = 1;
        maat_pyr_groups(d, s, L);
        for (int c = 0; c < MAAT_PYR_COLOURS; c++) {
            sum += L[c];
            max = L[c] > max ? L[c] : max;
            all3 &= L[c] >= 3;
        }
        memset(&out[i], 0, sizeof out[i]);
        out[i].part[MAAT_PYR_S_GROUPS] = sum;
        out[i].part[MAAT_PYR_S_LARGEST] = max;
        out[i].part[MAAT_PYR_S_BONUS] = all3 ? 10 : 0;
        out[i].part[MAAT_PYR_S_OBELISK] = maat_pyr_obelisk_points(d, s);
        out[i].part[MAAT_PYR_S_GLYPHS] = glyph_points(d, s);
    }
    for (int c = 0; c < MAAT_PYR_COLOURS; c++) {
        int best = 0, holder = -1;
        for (int i = 0; i < st->seats; i++) {
            int n = tomb_stones(d, &st->seat[i], c);
            if (n > best) {
                best = n;
                holder = i;
            } else if (n == best) {
                holder = -1; /* a tie for the most: nobody */
            }
        }
        if (holder >= 0)
            out[holder].part[MAAT_PYR_S_TOMB] += 5;
    }
    for (int i = 0; i < st->seats; i++) {
        int t = 0;
        for (int p = 0; p < MAAT_PYR_S_PARTS; p++)
            t += out[i].part[p];
        out[i].total = t;
    }
    maat_rank_scores(out, st->seats);
}

void pyr_scores(const maat_game *g, maat_score *out)
{
    maat_pyr_score_all(&g->st, out);
}
