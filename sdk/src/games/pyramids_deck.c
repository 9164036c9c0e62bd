/* pyramids_deck.c -- reading and validating a Pyramids deck file.
 *
 * The stone layout of the printed cards exists only in the rulebook's
 * pictures, so the deck is data, not code: the reference deck ships in
 * sdk/data/pyramids-deck.txt (built into the library) and a tournament may
 * pass a transcription of the physical deck with --deck.  A file that
 * breaks the format is refused with file:line and the reason (the lines
 * and words are read by the kit's reader, kit.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pyramids_internal.h"

extern const char maat_pyr_deck_data[];
extern const size_t maat_pyr_deck_data_len;

const char *const maat_pyr_colour_names[MAAT_PYR_COLOURS] = {
    "blue", "white", "red", "green", "yellow"};
const char *const maat_pyr_glyph_names[4] = {"-", "pyramid", "obelisk",
                                             "tomb"};

const char *maat_pyr_reference_deck_text(size_t *len)
{
    *len = maat_pyr_deck_data_len;
    return maat_pyr_deck_data;
}

static int colour_of(char c)
{
    const char *letters = "BWRGY";
    const char *p = strchr(letters, c);
    return (c && p) ? (int)(p - letters) : -1;
}

typedef struct deck_parser {
    maat_pyr_deck *d;
    uint8_t seen[MAAT_PYR_CARDS];
    int cards;
} deck_parser;

/* One line with words: "<id> <stones> <glyph>". */
static int card_line(maat_kit_reader *r)
{
    deck_parser *p = r->out;
    char **w = r->w;
    if (r->n != 3)
        return maat_kit_fail(r, "expected '<id> <stones> <glyph>', got %d "
                             "words", r->n);
    char *end;
    errno = 0;
    long id = strtol(w[0], &end, 10);
    if (*end || errno || id < 0 || id >= MAAT_PYR_CARDS)
        return maat_kit_fail(r, "card id '%s' is not a number in 0..%d", w[0],
                             MAAT_PYR_CARDS - 1);
    if (p->seen[id])
        return maat_kit_fail(r, "duplicate card id %ld", id);
    size_t ns = strlen(w[1]);
    if (ns != 2 && ns != 3)
        return maat_kit_fail(r, "card %ld has %zu stones; a card has 2 or 3",
                             id, ns);
    maat_pyr_card *c = &p->d->card[id];
    c->n_stones = (uint8_t)ns;
    c->stone[2] = 0;
    for (size_t i = 0; i < ns; i++) {
        int col = colour_of(w[1][i]);
        if (col < 0)
            return maat_kit_fail(r, "unknown colour '%c' in card %ld (use B W "
                                 "R G Y)", w[1][i], id);
        c->stone[i] = (uint8_t)col;
    }
    int g;
    for (g = 0; g < 4; g++)
        if (strcmp(w[2], maat_pyr_glyph_names[g]) == 0)
            break;
    if (g == 4)
        return maat_kit_fail(r, "unknown glyph '%s' in card %ld (use - "
                             "pyramid obelisk tomb)", w[2], id);
    c->glyph = (uint8_t)g;
    p->seen[id] = 1;
    p->cards++;
    return MAAT_OK;
}

int maat_pyr_deck_parse(maat_pyr_deck *d, const char *text, size_t len,
                        const char *name, maat_error *err)
{
    deck_parser p = {.d = d};
    memset(d, 0, sizeof *d); /* padding too: equal decks are equal bytes */
    maat_kit_reader r = {.name = name, .err = err, .out = &p};
    int rc = maat_kit_lines(&r, text, len, 3, card_line);
    if (rc)
        return rc;
    if (p.cards != MAAT_PYR_CARDS)
        return maat_kit_fail(&r, "the deck has %d cards; it must have "
                             "exactly %d (ids 0..%d)", p.cards,
                             MAAT_PYR_CARDS, MAAT_PYR_CARDS - 1);
    maat_pyr_deck_derive(d);
    return MAAT_OK;
}

int maat_pyr_parse_deck(void *d, const char *text, size_t len, const char *name,
                   maat_error *err)
{
    return maat_pyr_deck_parse(d, text, len, name, err);
}

int maat_pyr_deck_load(maat_pyr_deck *d, const char *path, maat_error *err)
{
    return maat_kit_load(path, "deck", maat_pyr_parse_deck, d, err);
}
