/* record.h -- what a finished game leaves behind: the game record (a JSON
 * file that replays the game exactly) and one line in the ladder file.
 * Formats: docs/FORMATS.md.  The record holds no wall-clock time unless
 * asked to, so the same seed and actions give a byte-identical record.
 */
#ifndef MAAT_RECORD_H
#define MAAT_RECORD_H

#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "maat/game.h"
#include "ladder_line.h" /* the line's format, maat_jsonl_append */

typedef struct maat_game_result {
    const maat_rules *rules;
    const maat_options *options; /* the game's options (e.g. deck file) */
    maat_seed seed;               /* written as its text (docs/RNG.md) */
    int game_index;
    const char *match_id;
    int seats;
    const char *const *bot_names; /* by seat */
    const maat_score *scores;     /* by seat */
    const int *ranks;             /* match ranks, after forfeits */
    const int *out;               /* 1 = the seat was out */
    /* the record's "decisions": the JSON text of the array (written as
     * it is; results.c makes it), NULL when not recorded */
    const char *decisions;
    size_t decisions_len;
    int n_decisions;
    json_t *faults;               /* borrowed */
    int64_t duration_ms;
    /* where this game's record and each seat's bot log were written (NULL:
     * none); the ladder line links them, relative to its own directory */
    const char *record_file;
    const char *log_files[MAAT_MAX_SEATS]; /* by seat */
} maat_game_result;

/* msgpack bytes (trusted: our own encoding) as a new JSON value. */
json_t *maat_json_from_msgpack_bytes(const void *data, size_t len);
/* A JSON value as msgpack (maps, arrays, strings, integers, bools, null). */
int maat_json_to_msgpack(const json_t *j, msgpack_packer *pk);

/* "rec.json" for a single game; "rec-3.json" for game 3 of a series. */
void maat_record_path(const char *base, int games, int index, char *out,
                      size_t len);
int maat_record_write(const maat_game_result *r, const char *path,
                      maat_error *err);

/* Before a match: can a record (game 0 of `games`) be written at path?
 * MAAT_EIO with err naming the path and the reason otherwise (a directory
 * that does not exist, no permission, a FIFO).  The ladder file's check is
 * maat_ladder_check_writable (ladder_line.h). */
int maat_record_check_writable(const char *path, int games, maat_error *err);

/* Append the game's line (its fields: record/ladder_line.c); safe with
 * many writers (flock + one write + fsync). */
int maat_ladder_append(const maat_game_result *r, const char *path,
                       const char *final_ladder, maat_error *err);

/* Re-simulate a record; print each difference to `report`, and with
 * `verbose` every decision and the position after it.  Returns the number
 * of differences (0 = the record is exact) or -1 with err when the record
 * cannot be read.  `overrides` (may be NULL): game options that win over
 * the record's (maat_playback_open). */
int maat_record_verify(const char *path, const maat_options *overrides,
                       FILE *report, int verbose, maat_error *err);

#endif
