/* pyramids_deck.c -- reading and validating a Pyramids deck file.
 *
 * The stone layout of the printed cards exists only in the rulebook's
 * pictures, so the deck is data, not code: the reference deck ships in
 * sdk/data/pyramids-deck.txt (built into the library) and a tournament may
 * pass a transcription of the physical deck with --deck.  A file that
 * breaks the format is refused with file:line and the reason. */
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

/* Split a line into at most `max` whitespace-separated words, in place. */
static int split_words(char *line, char **w, int max)
{
    int n = 0;
    char *p = line;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == '\r')
            *p++ = 0;
        if (!*p)
            break;
        if (n == max)
            return max + 1;
        w[n++] = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r')
            p++;
    }
    return n;
}

/* Parse one line; *cards is incremented when it held a card. */
static int parse_line(maat_pyr_deck *d, char *line, uint8_t *seen,
                      const char *name, int lineno, int *cards,
                      maat_error *err)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = 0;
    char *w[4];
    int n = split_words(line, w, 3);
    if (n == 0)
        return MAAT_OK; /* blank or comment */
    if (n != 3)
        return maat_error_set(err, MAAT_EFORMAT,
                              "%s:%d: expected '<id> <stones> <glyph>', got "
                              "%d words", name, lineno, n > 3 ? 4 : n);
    char *end;
    errno = 0;
    long id = strtol(w[0], &end, 10);
    if (*end || errno || id < 0 || id >= MAAT_PYR_CARDS)
        return maat_error_set(err, MAAT_EFORMAT,
                              "%s:%d: card id '%s' is not a number in 0..%d",
                              name, lineno, w[0], MAAT_PYR_CARDS - 1);
    if (seen[id])
        return maat_error_set(err, MAAT_EFORMAT,
                              "%s:%d: duplicate card id %ld", name, lineno,
                              id);
    size_t ns = strlen(w[1]);
    if (ns != 2 && ns != 3)
        return maat_error_set(err, MAAT_EFORMAT,
                              "%s:%d: card %ld has %zu stones; a card has 2 "
                              "or 3", name, lineno, id, ns);
    maat_pyr_card *c = &d->card[id];
    c->n_stones = (uint8_t)ns;
    c->stone[2] = 0;
    for (size_t i = 0; i < ns; i++) {
        int col = colour_of(w[1][i]);
        if (col < 0)
            return maat_error_set(err, MAAT_EFORMAT,
                                  "%s:%d: unknown colour '%c' in card %ld "
                                  "(use B W R G Y)", name, lineno, w[1][i],
                                  id);
        c->stone[i] = (uint8_t)col;
    }
    int g;
    for (g = 0; g < 4; g++)
        if (strcmp(w[2], maat_pyr_glyph_names[g]) == 0)
            break;
    if (g == 4)
        return maat_error_set(err, MAAT_EFORMAT,
                              "%s:%d: unknown glyph '%s' in card %ld (use - "
                              "pyramid obelisk tomb)", name, lineno, w[2], id);
    c->glyph = (uint8_t)g;
    seen[id] = 1;
    (*cards)++;
    return MAAT_OK;
}

int maat_pyr_deck_parse(maat_pyr_deck *d, const char *text, size_t len,
                        const char *name, maat_error *err)
{
    uint8_t seen[MAAT_PYR_CARDS] = {0};
    int cards = 0, lineno = 0;
    size_t pos = 0;
    char line[256];
    while (pos < len) {
        size_t end = pos;
        while (end < len && text[end] != '\n')
            end++;
        lineno++;
        size_t n = end - pos;
        if (n >= sizeof line)
            return maat_error_set(err, MAAT_EFORMAT,
                                  "%s:%d: line longer than %zu bytes", name,
                                  lineno, sizeof line - 1);
        memcpy(line, text + pos, n);
        line[n] = 0;
        if (memchr(line, 0, n))
            return maat_error_set(err, MAAT_EFORMAT,
                                  "%s:%d: NUL byte in a text file", name,
                                  lineno);
        int rc = parse_line(d, line, seen, name, lineno, &cards, err);
        if (rc)
            return rc;
        pos = end + 1;
    }
    if (cards != MAAT_PYR_CARDS)
        return maat_error_set(err, MAAT_EFORMAT,
                              "%s:%d: the deck has %d cards; it must have "
                              "exactly %d (ids 0..%d)", name, lineno, cards,
                              MAAT_PYR_CARDS, MAAT_PYR_CARDS - 1);
    return MAAT_OK;
}

int maat_pyr_deck_load(maat_pyr_deck *d, const char *path, maat_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return maat_error_set(err, MAAT_EIO, "%s: cannot open deck file: %s",
                              path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return maat_error_set(err, MAAT_ENOMEM, "%s: out of memory", path);
    }
    len = fread(buf, 1, cap, f);
    int too_big = len == cap;
    int failed = ferror(f);
    fclose(f);
    int rc;
    if (failed)
        rc = maat_error_set(err, MAAT_EIO, "%s: read error", path);
    else if (too_big)
        rc = maat_error_set(err, MAAT_EFORMAT,
                            "%s: larger than %zu bytes; not a deck file",
                            path, cap - 1);
    else
        rc = maat_pyr_deck_parse(d, buf, len, path, err);
    free(buf);
    return rc;
}
