/* botlog.c -- reading a bot's decision-indexed stderr log (botlog.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "botlog.h"

typedef struct reader {
    json_t *by;   /* the result */
    long index;   /* decision of the line being read */
    size_t total; /* bytes kept */
    int full;     /* MAAT_BOTLOG_TOTAL reached */
} reader;

/* Printable ASCII and tabs kept; other bytes become '?' unless they start
 * a valid UTF-8 sequence (then jansson keeps the character). */
static void clean(char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\t' || (c >= 0x20 && c < 0x7f))
            continue;
        size_t len = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
        if (c >= 0xf5)
            len = 0;
        size_t k = 1;
        while (len && k < len && i + k < n &&
               ((unsigned char)s[i + k] & 0xc0) == 0x80)
            k++;
        if (len && k == len) {
            i += len - 1;
            continue;
        }
        s[i] = '?';
    }
}

static void keep(reader *r, const char *text, size_t n)
{
    char key[24];
    snprintf(key, sizeof key, "%ld", r->index);
    json_t *lines = json_object_get(r->by, key);
    if (!lines) {
        lines = json_array();
        json_object_set_new(r->by, key, lines);
    }
    size_t have = json_array_size(lines);
    if (have > MAAT_BOTLOG_PER_DECISION)
        return;
    if (have == MAAT_BOTLOG_PER_DECISION) {
        json_array_append_new(lines, json_string("[maat-replay: more lines "
                                                 "of this decision cut]"));
        return;
    }
    if (r->total + n > MAAT_BOTLOG_TOTAL) {
        json_array_append_new(lines, json_string("[maat-replay: the rest of "
                                                 "the log is cut]"));
        r->full = 1;
        return;
    }
    r->total += n;
    json_t *s = json_stringn(text, n);
    json_array_append_new(lines, s ? s : json_string("[unreadable line]"));
}

/* One line (without its newline), at most MAAT_BOTLOG_LINE bytes kept. */
static void line(reader *r, char *s, size_t n, long n_decisions)
{
    size_t digits = n && s[0] == '-' ? 1 : 0;
    while (digits < n && digits < 12 && s[digits] >= '0' && s[digits] <= '9')
        digits++;
    if (n && digits > (s[0] == '-' ? 1u : 0u) && digits < n &&
        s[digits] == '\t') {
        long i = strtol(s, NULL, 10);
        r->index = i >= 0 && i < n_decisions ? i : -1;
        s += digits + 1;
        n -= digits + 1;
    }
    if (n > MAAT_BOTLOG_LINE) { /* cut, not inside a UTF-8 character */
        n = MAAT_BOTLOG_LINE;
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
            n--;
    }
    clean(s, n);
    keep(r, s, n);
}

json_t *maat_botlog_read(const char *path, long n_decisions, maat_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        maat_error_set(err, MAAT_EIO, "%s: cannot read the bot log: %s",
                       path, strerror(errno));
        return NULL;
    }
    reader r = {json_object(), -1, 0, 0};
    /* a line longer than we keep is read on to its end but not stored */
    char buf[MAAT_BOTLOG_LINE + 16];
    size_t len = 0, read = 0;
    int c;
    while (!r.full && (c = getc(f)) != EOF) {
        if (++read > MAAT_BOTLOG_READ) {
            r.index = n_decisions > 0 ? n_decisions - 1 : -1;
            keep(&r, "[maat-replay: the log is too long; the rest is cut]",
                 51);
            break;
        }
        if (c != '\n') {
            if (len < sizeof buf - 1)
                buf[len++] = (char)c;
            continue;
        }
        if (len && buf[len - 1] == '\r')
            len--;
        line(&r, buf, len, n_decisions);
        len = 0;
    }
    if (len && !r.full)
        line(&r, buf, len, n_decisions);
    fclose(f);
    return r.by;
}
