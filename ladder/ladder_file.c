/* ladder_file.c -- the ladder file reader (see ladder_file.h). */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ladder_file.h"

static size_t hash_id(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return (size_t)h;
}

/* The slot holding `id`, or the empty slot where it would go. */
static size_t *slot_of(const maat_ladder *l, const char *id)
{
    size_t i = hash_id(id) & (l->n_slots - 1);
    while (l->slots[i] && strcmp(l->games[l->slots[i] - 1].id, id))
        i = (i + 1) & (l->n_slots - 1);
    return &l->slots[i];
}

static int index_grow(maat_ladder *l)
{
    size_t n = l->n_slots ? l->n_slots * 2 : 1024;
    size_t *old = l->slots, old_n = l->n_slots;
    l->slots = calloc(n, sizeof *l->slots);
    if (!l->slots) {
        l->slots = old;
        return -1;
    }
    l->n_slots = n;
    for (size_t i = 0; i < old_n; i++)
        if (old[i])
            *slot_of(l, l->games[old[i] - 1].id) = old[i];
    free(old);
    return 0;
}

int maat_ladder_has(const maat_ladder *l, const char *id)
{
    return maat_ladder_find(l, id) != NULL;
}

const maat_ladder_game *maat_ladder_find(const maat_ladder *l, const char *id)
{
    size_t slot = l->n_slots ? *slot_of(l, id) : 0;
    return slot ? &l->games[slot - 1] : NULL;
}

/* Add one parsed game (dedup by id); MAAT_ENOMEM only. */
static int add_game(maat_ladder *l, maat_ladder_game *g, json_t *j)
{
    if (maat_ladder_has(l, g->id)) {
        l->duplicates++;
        json_decref(j);
        return MAAT_OK;
    }
    if ((l->count + 1) * 2 > l->n_slots && index_grow(l) != 0) {
        json_decref(j);
        return MAAT_ENOMEM;
    }
    if (l->count == l->cap) {
        size_t c = l->cap ? l->cap * 2 : 256;
        maat_ladder_game *gs = realloc(l->games, c * sizeof *gs);
        if (!gs) {
            json_decref(j);
            return MAAT_ENOMEM;
        }
        l->games = gs;
        l->cap = c;
    }
    g->line = j;
    l->games[l->count++] = *g;
    *slot_of(l, g->id) = l->count;
    return MAAT_OK;
}

/* Read lines from f, starting at byte *offset (line number *lineno), and
 * hand each parsed game to `each` (its line is freed after the call unless
 * `each` took it: *taken = 1).  With `whole_only`, an unterminated last
 * line (a writer still writing) is left unread for the next call;
 * otherwise it is a torn line, reported. */
static int read_lines(FILE *f, const char *path, long *offset, int *lineno,
                      int whole_only, FILE *report, size_t *bad,
                      maat_ladder_each each, void *ctx, maat_error *err)
{
    if (fseek(f, *offset, SEEK_SET) != 0)
        return maat_error_set(err, MAAT_EIO, "%s: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = MAAT_OK;
    while (rc == MAAT_OK && (n = getline(&line, &cap, f)) >= 0) {
        int torn = n == 0 || line[n - 1] != '\n';
        if (torn && whole_only)
            break;
        *offset += (long)n;
        ++*lineno;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = 0;
        if (n == 0)
            continue;
        json_error_t je;
        /* jansson stops at a NUL byte and says "near end of file", which
         * points nowhere: say what and where it is */
        const char *nul = memchr(line, 0, (size_t)n);
        json_t *j = nul ? NULL : json_loadb(line, (size_t)n, 0, &je);
        if (nul)
            snprintf(je.text, sizeof je.text, "a NUL byte at byte %ld (JSON "
                     "text has none)", (long)(nul - line) + 1);
        const char *why = je.text;
        maat_ladder_game g;
        if (!j || maat_ladder_parse(j, &g, &why) != 0) {
            if (report)
                fprintf(report, "%s:%d: %s; line skipped%s\n", path, *lineno,
                        why, torn ? " (a torn last line: a writer stopped "
                                    "mid-write)" : "");
            ++*bad;
            json_decref(j);
            continue;
        }
        int taken = 0;
        if (each(ctx, &g, &taken))
            rc = maat_error_set(err, MAAT_ENOMEM, "out of memory");
        if (!taken)
            json_decref(j);
    }
    free(line);
    return rc;
}

int maat_ladder_scan(maat_ladder_cursor *c, int whole_only, FILE *report,
                     size_t *bad, maat_ladder_each each, void *ctx,
                     maat_error *err)
{
    FILE *f = fopen(c->path, "r");
    if (!f)
        return errno == ENOENT ? MAAT_OK
                               : maat_error_set(err, MAAT_EIO, "%s: %s",
                                                c->path, strerror(errno));
    int rc = read_lines(f, c->path, &c->offset, &c->lineno, whole_only,
                        report, bad, each, ctx, err);
    fclose(f);
    return rc;
}

/* maat_ladder_each for a maat_ladder: keep the game and its line. */
static int keep_game(void *ctx, const maat_ladder_game *g, int *taken)
{
    maat_ladder_game copy = *g;
    *taken = 1;
    return add_game(ctx, &copy, g->line);
}

int maat_ladder_read(maat_ladder *l, const char *path, int missing_ok,
                     FILE *report, maat_error *err)
{
    if (!missing_ok && access(path, R_OK) != 0)
        return maat_error_set(err, MAAT_EIO, "%s: %s", path, strerror(errno));
    maat_ladder_cursor c = {.path = path};
    return maat_ladder_scan(&c, 0, report, &l->bad_lines, keep_game, l, err);
}

int maat_ladder_follow(maat_ladder *l, maat_ladder_cursor *c, FILE *report,
                       maat_error *err)
{
    size_t before = l->count;
    int rc = maat_ladder_scan(c, 1, report, &l->bad_lines, keep_game, l, err);
    c->added = l->count - before;
    return rc;
}

void maat_ladder_cursor_at_end(maat_ladder_cursor *c, const char *path)
{
    memset(c, 0, sizeof *c);
    c->path = path;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char buf[65536];
    size_t n;
    int last = '\n';
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) { /* lines, for file:line */
        for (char *p = buf; (p = memchr(p, '\n', n - (size_t)(p - buf)));
             p++)
            c->lineno++;
        c->offset += (long)n;
        last = buf[n - 1];
    }
    /* an unterminated last line belongs to a writer still writing, or is
     * torn: either way later lines start after it */
    if (last != '\n')
        c->lineno++;
    fclose(f);
}

void maat_ladder_free(maat_ladder *l)
{
    for (size_t i = 0; i < l->count; i++)
        json_decref(l->games[i].line);
    free(l->games);
    free(l->slots);
    memset(l, 0, sizeof *l);
}

char *maat_ladder_sibling(const char *ladder, const char *suffix)
{
    char *path;
    size_t n = strlen(ladder);
    int jsonl = n > 6 && !strcmp(ladder + n - 6, ".jsonl");
    if (asprintf(&path, "%.*s%s", (int)(jsonl ? n - 6 : n), ladder,
                 suffix) < 0)
        return NULL;
    return path;
}
