/* ladder_line.h -- the ladder line, written and read in one place.
 *
 * A ladder file is JSON Lines, one finished game per line (format:
 * docs/FORMATS.md).  maat-referee --ladder writes them (referee/record.c
 * fills a maat_ladder_line), maat-ladder reads them (ladder/ladder_file.c
 * turns each into a maat_ladder_game): both through this file, so the
 * fields, their order and their checks have one owner.  Fault kinds are
 * outcome.h's.
 *
 * Appending is safe with many writers: an exclusive flock, one write of
 * the whole line, fsync; a line torn by a killed writer is never glued to
 * the next one, and a short write (a full disk) is taken back.
 */
#ifndef MAAT_LADDER_LINE_H
#define MAAT_LADDER_LINE_H

#include <stdint.h>
#include <jansson.h>

#include "maat/error.h"
#include "maat/game.h"
#include "outcome.h"

/* What the referee knows of a finished game, for its line. */
typedef struct maat_ladder_line {
    const char *match_id;
    int game_index;
    const char *game, *rules_version;
    const char *seed; /* its text (docs/RNG.md) */
    int seats;
    const char *const *bots; /* by seat */
    const int *ranks;        /* match ranks */
    const int *scores;
    const int *out;          /* 1 = the seat was out */
    json_t *faults;          /* borrowed: the record's faults array */
    int64_t decisions, duration_ms;
    /* the game's record and each seat's log, as written (NULL: none); the
     * line names them relative to the ladder file's directory */
    const char *record_file;
    const char *log_files[MAAT_MAX_SEATS];
    /* the ladder file the line will end up in, when it is appended to
     * another first (maat-ladder run --jobs N: a match's lines wait until
     * the earlier matches have ended); its directory is the one paths are
     * relative to.  NULL: the file appended to. */
    const char *final_ladder;
} maat_ladder_line;

/* Beside ladder file L, "L.waiting/": lines of matches that ended before
 * an earlier one of the same `maat-ladder run`, waiting to be appended in
 * match order (ladder/pending.h), one subdirectory per tournament.  Every
 * referee writing to L hides it from its sandboxed bots, as it hides L:
 * those lines hold seeds, and with duplicate seats a seed is also the deal
 * of a game still being played. */
#define MAAT_LADDER_WAITING_SUFFIX ".waiting"

/* Append l's line to the ladder file at path (created when missing):
 * MAAT_EIO naming the path and the reason when it cannot be. */
int maat_ladder_line_append(const maat_ladder_line *l, const char *path,
                            maat_error *err);
/* Append any one-line JSON text (no newline in it) the same safe way. */
int maat_jsonl_append(const char *path, const char *line, size_t len,
                      maat_error *err);
/* Before a match: can path be appended to (a regular file, or one its
 * directory lets us create)?  MAAT_EIO naming it otherwise.  With
 * `create`, an absent file is created empty now (so that a sandbox can
 * hide it: one that appears later, with game 0's line and seed, would be
 * visible to bots still playing the series). */
int maat_ladder_check_writable(const char *path, int create,
                               maat_error *err);

/* One line as the ladder reads it. */
typedef struct maat_ladder_game {
    char id[96];
    char game[32];
    int seats;
    char bot[MAAT_MAX_SEATS][64]; /* by seat */
    int rank[MAAT_MAX_SEATS];
    int score[MAAT_MAX_SEATS];
    int out[MAAT_MAX_SEATS];
    int faults[MAAT_MAX_SEATS][MAAT_FAULT_KINDS];
    json_t *line; /* the parsed line */
} maat_ladder_game;

/* Check and copy one parsed line into g (g->line = j, not owned); -1 with
 * a message in *why when it is not a ladder line we understand. */
int maat_ladder_parse(json_t *j, maat_ladder_game *g, const char **why);

/* Can a file be created at path (its directory exists and is writable)?
 * MAAT_EIO with "path: cannot write the WHAT there: reason" otherwise. */
int maat_file_creatable(const char *path, const char *what, maat_error *err);

#endif
