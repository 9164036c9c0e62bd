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

enum { LADDER_FAULT_KINDS = 5 }; /* as maat-referee: timeout .. no_hello */
extern const char *const maat_ladder_fault_names[LADDER_FAULT_KINDS];

typedef struct maat_ladder_game {
    char id[96];
    char game[32];
    int seats;
    char bot[MAAT_MAX_SEATS][64]; /* by seat */
    int rank[MAAT_MAX_SEATS];
    int score[MAAT_MAX_SEATS];
    int out[MAAT_MAX_SEATS];
    int faults[MAAT_MAX_SEATS][LADDER_FAULT_KINDS];
    json_t *line; /* the parsed line, owned */
} maat_ladder_game;

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
void maat_ladder_free(maat_ladder *l);

#endif
