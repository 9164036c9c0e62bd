/* text.h -- building a text into a caller's buffer with snprintf's
 * contract (private to the SDK library): the render functions of the game
 * modules write through it.  Appends never overflow: what does not fit is
 * dropped, but the length of the whole text is still counted, so a caller
 * can measure with a NULL buffer and call again with enough room. */
#ifndef MAAT_TEXT_H
#define MAAT_TEXT_H

#include <stddef.h>
#include <string.h>

#include "maat/game.h"

typedef struct maat_text {
    char *buf;  /* the caller's; may be NULL when cap is 0 */
    size_t cap; /* bytes of buf, the NUL included */
    size_t len; /* length of the whole text so far */
} maat_text;

void maat_text_init(maat_text *t, char *buf, size_t cap);
void maat_text_add(maat_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The length of the whole text, as render returns it (-1 if > INT_MAX). */
int maat_text_end(const maat_text *t);

/* A line of fixed width being drawn: text is put at columns, then the
 * line is added without its trailing blanks. */
#define MAAT_TEXT_ROW 192
typedef struct maat_text_row {
    char c[MAAT_TEXT_ROW + 1];
} maat_text_row;

void maat_text_row_clear(maat_text_row *r);
/* Put s at column col (clipped to the row). */
void maat_text_row_put(maat_text_row *r, int col, const char *s);
/* Add the row to t, trailing blanks dropped, with a newline. */
void maat_text_row_add(maat_text *t, const maat_text_row *r);

/* "scores" and one line per seat: total, rank and every part by name. */
void maat_text_scores(maat_text *t, const maat_rules *r, const maat_game *g);

#endif
