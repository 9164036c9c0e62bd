/* pyramids_render.c -- Pyramids as text (rules->render): the round, the
 * tiles, the quarry, the discard pile, and each seat's tile, hand, tomb,
 * obelisk and pyramid drawn stage over stage, as one seat sees them.
 *
 * A card is written id:stones, stones left to right in B W R G Y, then its
 * glyph if any: ^ pyramid, ! obelisk, + tomb (e.g. 45:BWR^).  What the seat
 * may not see -- another seat's hand and tomb before the end -- shows as a
 * count, exactly as in its observation (pyramids_wire.c). */
#include <stdio.h>

#include "pyramids_internal.h"
#include "text.h"

static const char *const doing[] = {"to take a God tile", "to take a pair",
                                    "to build", "to keep a card"};

static void card_text(const maat_pyr_deck *d, int id, char out[16])
{
    const maat_pyr_card *c = &d->card[id];
    int n = snprintf(out, 16, "%d:", id);
    for (int k = 0; k < c->n_stones && n < 14; k++)
        out[n++] = "BWRGY"[c->stone[k]];
    if (c->glyph)
        out[n++] = " ^!+"[c->glyph];
    out[n] = 0;
}

static void cards(maat_text *t, const maat_pyr_deck *d, const uint8_t *ids,
                  int n)
{
    char c[16];
    for (int i = 0; i < n; i++) {
        card_text(d, ids[i], c);
        maat_text_add(t, " %s", c);
    }
    if (n == 0)
        maat_text_add(t, " -");
}

/* Stage 3 on top; the card at stage s, position p is 10 columns wide and
 * sits 5 columns (half a card) right of stage s-1's card at p. */
static void pyramid(maat_text *t, const maat_pyr_deck *d,
                    const maat_pyr_seat *s)
{
    int lo = MAAT_PYR_POSITIONS;
    for (int st = 0; st < MAAT_PYR_STAGES; st++)
        for (int i = 0; i < MAAT_PYR_POSITIONS; i++)
            if (s->grid[st][i] >= 0 && i < lo)
                lo = i;
    if (lo == MAAT_PYR_POSITIONS) {
        maat_text_add(t, "  pyramid: -\n");
        return;
    }
    maat_text_add(t, "  pyramid:\n");
    for (int st = MAAT_PYR_STAGES - 1; st >= 0; st--) {
        maat_text_row row;
        maat_text_row_clear(&row);
        int any = 0;
        for (int i = 0; i < MAAT_PYR_POSITIONS; i++) {
            if (s->grid[st][i] < 0)
                continue;
            char c[16], box[20];
            card_text(d, s->grid[st][i], c);
            snprintf(box, sizeof box, "[%-8s]", c);
            maat_text_row_put(&row, 4 + (i - lo) * 10 + st * 5, box);
            any = 1;
        }
        if (any)
            maat_text_row_add(t, &row);
    }
}

int maat_pyr_render(const maat_game *g, int seat, char *buf, size_t cap)
{
    const maat_pyr_state *st = &g->st;
    const maat_pyr_deck *d = st->deck;
    int over = st->phase == MAAT_PYR_OVER;
    int all = seat == MAAT_OMNISCIENT || over;
    maat_text t;
    maat_text_init(&t, buf, cap);

    maat_text_add(&t, "pyramids, %d seats, round %d of %d, first seat %d",
                  st->seats, st->round, MAAT_PYR_ROUNDS, st->first);
    if (over)
        maat_text_add(&t, ": the game is over\n");
    else
        maat_text_add(&t, ": seat %d %s\n", st->to_move, doing[st->phase]);
    maat_text_add(&t, "tiles free:");
    int free_tiles = 0;
    for (int k = 1; k <= 5 && !over; k++)
        if (maat_pyr_tile_available(st, k)) {
            maat_text_add(&t, " %d %s", k, maat_pyr_god_names[k]);
            free_tiles++;
        }
    maat_text_add(&t, "%s", free_tiles ? "" : " -");
    if (st->set_aside)
        maat_text_add(&t, "; set aside: %d %s", st->set_aside,
                      maat_pyr_god_names[st->set_aside]);
    maat_text_add(&t, "; deck: %d cards\n", MAAT_PYR_CARDS - st->deck_pos);
    maat_text_add(&t, "quarry:");
    for (int i = 0; i < st->seats; i++) {
        if (st->quarry[i][0] < 0 || over) {
            maat_text_add(&t, " %d taken%s", i, i + 1 < st->seats ? "," : "");
            continue;
        }
        char a[16], b[16];
        card_text(d, st->quarry[i][0], a);
        card_text(d, st->quarry[i][1], b);
        maat_text_add(&t, " %d %s %s%s", i, a, b,
                      i + 1 < st->seats ? "," : "");
    }
    maat_text_add(&t, "\ndiscard:");
    cards(&t, d, st->discard, st->discard_n);
    maat_text_add(&t, "\n");

    for (int i = 0; i < st->seats; i++) {
        const maat_pyr_seat *s = &st->seat[i];
        int mine = all || i == seat;
        maat_text_add(&t, "seat %d%s: tile %s", i, i == seat ? " (you)" : "",
                      s->god ? maat_pyr_god_names[s->god] : "-");
        if (mine) {
            maat_text_add(&t, "; hand");
            cards(&t, d, s->hand, s->hand_n);
            maat_text_add(&t, "; tomb");
            cards(&t, d, s->tomb, s->tomb_n);
        } else {
            maat_text_add(&t, "; hand %d card%s; tomb %d card%s", s->hand_n,
                          s->hand_n == 1 ? "" : "s", s->tomb_n,
                          s->tomb_n == 1 ? "" : "s");
        }
        maat_text_add(&t, "\n  obelisk:");
        cards(&t, d, s->obelisk, s->obelisk_n);
        maat_text_add(&t, "\n");
        pyramid(&t, d, s);
    }
    if (over)
        maat_text_scores(&t, &maat_pyramids_rules, g);
    return maat_text_end(&t);
}
