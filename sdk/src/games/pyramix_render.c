/* pyramix_render.c -- Pyramix as text (rules->render): the six layers of
 * the pyramid side by side, apex first, each a triangle, then what every
 * seat collected.
 *
 * A cube is two letters: its colour (B blue, P purple, O orange, G green)
 * and symbol (a ankh, c crane, e eye), "Co" a cobra; ".." an empty place;
 * "??" a cube nobody has seen (its kind is secret until revealed, exactly
 * as in the observation, pyramix_wire.c).  The omniscient view writes an
 * unrevealed cube in lower case ("ba", "co"). */
#include <ctype.h>
#include <stdio.h>

#include "pyramix_internal.h"
#include "text.h"

static void cube_text(int cube, int lower, char out[3])
{
    int colour = maat_pmx_cube_colour(cube);
    int symbol = maat_pmx_cube_symbol(cube);
    if (symbol == MAAT_PMX_COBRA) {
        out[0] = 'C', out[1] = 'o';
    } else {
        out[0] = "BPOG"[colour];
        out[1] = "ace"[symbol];
    }
    out[2] = 0;
    if (lower)
        out[0] = (char)tolower((unsigned char)out[0]);
}

/* Layer L's row r (0..L) holds x = L - r, y = r..0: r + 1 places, 4
 * columns each, indented 2 per missing place so the rows form a
 * triangle; the layers stand side by side. */
static void layers(maat_text *t, const maat_pmx_state *st, int seat)
{
    int col0[MAAT_PMX_LAYERS], col = 2;
    for (int l = 0; l < MAAT_PMX_LAYERS; l++) {
        col0[l] = col;
        col += 4 * (l + 1) + 2;
    }
    maat_text_row row;
    maat_text_row_clear(&row);
    for (int l = 0; l < MAAT_PMX_LAYERS; l++) {
        char head[16];
        snprintf(head, sizeof head, "%d%s", l,
                 l == 0 ? " apex" : l == MAAT_PMX_LAYERS - 1 ? " tray" : "");
        maat_text_row_put(&row, col0[l] + 2 * l, head);
    }
    maat_text_row_add(t, &row);
    for (int r = 0; r < MAAT_PMX_LAYERS; r++) {
        maat_text_row_clear(&row);
        for (int l = r; l < MAAT_PMX_LAYERS; l++)
            for (int y = r; y >= 0; y--) {
                int p = maat_pmx_place(l - r, y, r - y);
                int c = st->cube[p];
                char cell[3] = "..";
                if (c >= 0 && (st->revealed[c] || st->over))
                    cube_text(c, 0, cell);
                else if (c >= 0 && seat == MAAT_OMNISCIENT)
                    cube_text(c, 1, cell);
                else if (c >= 0)
                    snprintf(cell, sizeof cell, "??");
                maat_text_row_put(&row, col0[l] + 2 * (l - r) + 4 * (r - y),
                                  cell);
            }
        maat_text_row_add(t, &row);
    }
}

int maat_pmx_render(const maat_game *g, int seat, char *buf, size_t cap)
{
    const maat_pmx_state *st = &g->st;
    maat_text t;
    maat_text_init(&t, buf, cap);
    maat_text_add(&t, "pyramix, %d seats, %d removal%s", st->seats, st->turn,
                  st->turn == 1 ? "" : "s");
    if (st->over)
        maat_text_add(&t, ": the game is over\n");
    else
        maat_text_add(&t, ": seat %d to remove a cube\n", st->to_move);
    maat_text_add(&t, "layers (row r of layer L: x = L - r, y = r .. 0):\n");
    layers(&t, st, seat);
    for (int s = 0; s < st->seats; s++) {
        maat_text_add(&t, "seat %d%s collected %d:", s,
                      s == seat ? " (you)" : "", st->n_collected[s]);
        for (int c = 0; c < MAAT_PMX_CUBES; c++)
            if (st->collected[s][c]) {
                char cell[3];
                cube_text(c, 0, cell);
                maat_text_add(&t, " %s", cell);
            }
        maat_text_add(&t, "\n");
    }
    if (st->over)
        maat_text_scores(&t, &maat_pyramix_rules, g);
    return maat_text_end(&t);
}
