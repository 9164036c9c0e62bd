/* text.c -- the snprintf-style text builder of text.h. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>

#include "text.h"

void maat_text_init(maat_text *t, char *buf, size_t cap)
{
    t->buf = cap ? buf : NULL;
    t->cap = t->buf ? cap : 0;
    t->len = 0;
    if (t->cap)
        t->buf[0] = 0;
}

void maat_text_add(maat_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *at = t->len < t->cap ? t->buf + t->len : NULL;
    size_t room = t->len < t->cap ? t->cap - t->len : 0;
    int n = vsnprintf(at, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len += (size_t)n;
}

int maat_text_end(const maat_text *t)
{
    return t->len > INT_MAX ? -1 : (int)t->len;
}

void maat_text_row_clear(maat_text_row *r)
{
    memset(r->c, ' ', MAAT_TEXT_ROW);
    r->c[MAAT_TEXT_ROW] = 0;
}

void maat_text_row_put(maat_text_row *r, int col, const char *s)
{
    for (; *s && col < MAAT_TEXT_ROW; s++, col++)
        if (col >= 0)
            r->c[col] = *s;
}

void maat_text_row_add(maat_text *t, const maat_text_row *r)
{
    int n = MAAT_TEXT_ROW;
    while (n > 0 && r->c[n - 1] == ' ')
        n--;
    maat_text_add(t, "%.*s\n", n, r->c);
}

void maat_text_scores(maat_text *t, const maat_rules *r, const maat_game *g)
{
    maat_score sc[MAAT_MAX_SEATS];
    r->scores(g, sc);
    maat_text_add(t, "scores:\n");
    for (int i = 0; i < r->seats(g); i++) {
        maat_text_add(t, "  seat %d: %d points, rank %d (", i, sc[i].total,
                      sc[i].rank);
        for (int p = 0; p < r->n_score_parts; p++)
            maat_text_add(t, "%s%s %d", p ? ", " : "", r->score_parts[p],
                          sc[i].part[p]);
        maat_text_add(t, ")\n");
    }
}
