/* architects_render.c -- the architects' game as text (rules->render): the
 * common board, the face-up cards, and each seat's pyramid drawn level over
 * level with its small stones, hand, collection and cards.
 *
 * A large stone is <id colour sarcophagus symbol>: the brackets show its
 * openings after rotation ('<' opens left, '>' opens right, '[' and ']'
 * closed), colour B blue, N brown, Y yellow, W white, 'S' a sarcophagus,
 * symbol a ankh, e eye, s scarab, f feather, u sun ('.' none): "< 12 BSa]".
 * A small stone is (colour workers): "(W3)".  Everything on the table is
 * public; only the omniscient view adds the next draws of the face-down
 * supply, bag and pile (architects_wire.c keeps the same secrets). */
#include <stdio.h>

#include "architects_internal.h"
#include "text.h"

#define NEXT_SHOWN 3 /* next draws the omniscient view lists */

static const char *const doing[] = {"to take a stone", "to place the stone taken",
                                    "to place a small stone",
                                    "to take a card"};

static void large_text(const maat_arc_stones *st, int id, int open,
                       char out[24])
{
    const maat_arc_large *l = &st->large[id];
    snprintf(out, 24, "%c%3d %c%c%c%c", open & MAAT_ARC_OPEN_LEFT ? '<' : '[',
             id, "BNYW"[l->colour], l->sarcophagus ? 'S' : '.',
             ".aesfu"[l->symbol], open & MAAT_ARC_OPEN_RIGHT ? '>' : ']');
}

static void small_text(const maat_arc_stones *st, int id, char out[16])
{
    snprintf(out, 16, "(%c%d)", "BNYW"[st->small[id].colour],
             st->small[id].workers);
}

static void smalls(maat_text *t, const maat_arc_stones *st,
                   const uint8_t *ids, int n)
{
    char c[16];
    for (int i = 0; i < n; i++) {
        small_text(st, ids[i], c);
        maat_text_add(t, " %s", c);
    }
    if (n == 0)
        maat_text_add(t, " -");
}

/* Level L's stone at pos p starts at column 9 + 5(L-1) + 10p: 10 columns
 * a stone, half a stone further right each level up; its small spaces sit
 * just outside its first and last stones. */
static void pyramid(maat_text *t, const maat_arc_state *st,
                    const maat_arc_seat *s)
{
    const maat_arc_board *b = st->board;
    for (int l = b->levels; l >= 1; l--) {
        maat_text_row row;
        maat_text_row_clear(&row);
        int x0 = 9 + 5 * (l - 1);
        for (int p = 0; p < b->level_n[l]; p++) {
            int space = maat_arc_space(b, l, p);
            char c[24] = "    .    ";
            if (space >= 0 && s->large[space] >= 0)
                large_text(st->stones, s->large[space],
                           maat_arc_openings(st->stones, s, space), c);
            maat_text_row_put(&row, x0 + 10 * p, c);
        }
        for (int side = 0; side < 2; side++) {
            int k = 2 * (l - 1) + side;
            char c[16] = "(..)";
            if (s->small[k] >= 0)
                small_text(st->stones, s->small[k], c);
            maat_text_row_put(&row, side ? x0 + 10 * b->level_n[l] : x0 - 5,
                              c);
        }
        char label[16];
        snprintf(label, sizeof label, "  %d", l);
        maat_text_row_put(&row, 0, label);
        maat_text_row_add(t, &row);
    }
}

/* The next n draws of a face-down order (the next is the last element). */
static void next_draws(maat_text *t, const char *what, const uint8_t *order,
                       int size, const maat_arc_state *st, int kind)
{
    maat_text_add(t, "; %s next:", what);
    for (int i = size - 1; i >= 0 && i >= size - NEXT_SHOWN; i--) {
        char c[24];
        if (kind == 0)
            large_text(st->stones, order[i], st->stones->large[order[i]].open,
                       c);
        else if (kind == 1)
            small_text(st->stones, order[i], c);
        else
            snprintf(c, sizeof c, "%d:%s", order[i],
                     maat_arc_card_names[st->cards->kind[order[i]]]);
        maat_text_add(t, " %s", c);
    }
    if (size == 0)
        maat_text_add(t, " -");
}

int maat_arc_render(const maat_game *g, int seat, char *buf, size_t cap)
{
    const maat_arc_state *st = &g->st;
    const maat_arc_board *b = st->board;
    int over = st->phase == MAAT_ARC_OVER;
    maat_text t;
    maat_text_init(&t, buf, cap);
    maat_text_add(&t, "architects, %d seats, %d turn%s done", st->seats,
                  st->turn, st->turn == 1 ? "" : "s");
    if (over)
        maat_text_add(&t, ": the game is over\n");
    else
        maat_text_add(&t, ": seat %d %s\n", st->to_move, doing[st->phase]);
    char c[24];
    if (st->taken >= 0) {
        large_text(st->stones, st->taken, st->stones->large[st->taken].open,
                   c);
        maat_text_add(&t, "stone to place: %s\n", c);
    }
    if (st->pending_cards)
        maat_text_add(&t, "cards owed: %d\n", st->pending_cards);
    maat_text_add(&t, "common:");
    for (int i = 0; i < b->common; i++) {
        if (st->common[i] >= 0)
            large_text(st->stones, st->common[i],
                       st->stones->large[st->common[i]].open, c);
        maat_text_add(&t, " %d %s", i, st->common[i] >= 0 ? c : "empty");
        if (i == 0 && st->n_space0) {
            maat_text_add(&t, " with");
            smalls(&t, st->stones, st->space0, st->n_space0);
        }
        maat_text_add(&t, "%s", i + 1 < b->common ? "," : "\n");
    }
    maat_text_add(&t, "face-up cards:");
    for (int i = 0; i < b->faceup; i++)
        if (st->faceup[i] >= 0)
            maat_text_add(&t, " %d:%s", st->faceup[i],
                          maat_arc_card_names[st->cards->kind[st->faceup[i]]]);
        else
            maat_text_add(&t, " -");
    maat_text_add(&t, "\nsupply %d stones, bag %d small stones, pile %d cards",
                  st->n_supply, st->n_bag, st->n_pile);
    if (seat == MAAT_OMNISCIENT) {
        next_draws(&t, "supply", st->supply, st->n_supply, st, 0);
        next_draws(&t, "bag", st->bag, st->n_bag, st, 1);
        next_draws(&t, "pile", st->pile, st->n_pile, st, 2);
    }
    maat_text_add(&t, "\n");
    for (int i = 0; i < st->seats; i++) {
        const maat_arc_seat *s = &st->seat[i];
        maat_text_add(&t, "seat %d%s: hand", i, i == seat ? " (you)" : "");
        smalls(&t, st->stones, s->hand, s->n_hand);
        maat_text_add(&t, "; collection %d:", s->n_collection);
        smalls(&t, st->stones, s->collection, s->n_collection);
        maat_text_add(&t, "; cards:");
        for (int k = 0; k < s->n_cards; k++)
            maat_text_add(&t, " %d:%s", s->cards[k],
                          maat_arc_card_names[st->cards->kind[s->cards[k]]]);
        maat_text_add(&t, "%s\n", s->n_cards ? "" : " -");
        pyramid(&t, st, s);
    }
    if (over)
        maat_text_scores(&t, &maat_architects_rules, g);
    return maat_text_end(&t);
}
