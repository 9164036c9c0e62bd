/* ladder_file.h -- reading ladder files (JSON Lines, one finished game per
 * line; written by maat-referee --ladder, format in docs/FORMATS.md).
 *
 * The reader never loses the good lines around a bad one: a torn last line
 * (a writer killed mid-write) or any line that does not parse is reported
 * with file:line and skipped.  A game id seen twice is counted once (the
 * first line wins), so merged shards never count a game twice.
 */
#ifndef MAAT_LADDER_FILE_H
#define MAAT_LADDER_FILE_H

#include <stdio.h>
#include <jansson.h>

#include "maat/game.h"
/* one line (maat_ladder_game, maat_ladder_parse) and the fault kinds have
 * one owner, the record library: record/ladder_line.h, outcome.h */
#include "ladder_line.h"

typedef struct maat_ladder {
    maat_ladder_game *games;
    size_t count, cap;
    size_t *slots, n_slots; /* open-addressing index by id: game + 1 */
    size_t bad_lines, duplicates;
} maat_ladder;

/* Read `path` and append its games to `l` (dedup by id).  Problems with
 * single lines are printed to `report` (may be NULL) and counted; returns
 * MAAT_EIO only when the file cannot be read at all.  A missing file is an
 * empty ladder when `missing_ok`. */
int maat_ladder_read(maat_ladder *l, const char *path, int missing_ok,
                     FILE *report, maat_error *err);
int maat_ladder_has(const maat_ladder *l, const char *id);
/* The game with this id, or NULL. */
const maat_ladder_game *maat_ladder_find(const maat_ladder *l, const char *id);

/* Following a file that referees are appending to: each call reads only the
 * lines added since the last one, so a long run never re-reads the whole
 * file.  A last line without its newline yet is left for the next call. */
typedef struct maat_ladder_cursor {
    const char *path;
    long offset; /* bytes consumed */
    int lineno;  /* lines consumed, for file:line in reports */
    size_t added; /* games the last follow added */
} maat_ladder_cursor;

/* A cursor past everything `path` holds now (its old games are skipped). */
void maat_ladder_cursor_at_end(maat_ladder_cursor *c, const char *path);
/* Append the games of the new whole lines to `l`; a missing file has none. */
int maat_ladder_follow(maat_ladder *l, maat_ladder_cursor *c, FILE *report,
                       maat_error *err);
void maat_ladder_free(maat_ladder *l);

/* A file or directory kept beside a ladder file: "x.jsonl" + ".games" ->
 * "x.games" (malloc'd; NULL when out of memory). */
char *maat_ladder_sibling(const char *ladder, const char *suffix);


/* Reading without keeping: every game of the lines from c->offset on is
 * handed to `each` with its parsed line in g->line, freed after the call
 * unless `each` sets *taken (then it owns it).  A nonzero return from
 * `each` stops the scan with MAAT_ENOMEM.  Bad lines are reported to
 * `report` (may be NULL) and counted in *bad.  With `whole_only` an
 * unterminated last line is left for the next call (a writer still
 * writing); else it is a torn line.  A missing file has no lines.  Memory
 * stays that of one line, whatever the file's size (docs/LADDER.md). */
typedef int (*maat_ladder_each)(void *ctx, const maat_ladder_game *g,
                                int *taken);
int maat_ladder_scan(maat_ladder_cursor *c, int whole_only, FILE *report,
                     size_t *bad, maat_ladder_each each, void *ctx,
                     maat_error *err);

#endif
