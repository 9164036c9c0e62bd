/* index.h -- maat-replay --index: one page listing every game of a ladder
 * file, linking each to its replay, and the replays themselves.
 *
 * For each ladder line (ladder/ladder_file.c reads them; bad lines are
 * reported and skipped) the game's record is, in this order: the line's
 * "record" field (a path relative to the ladder file's folder, without
 * ".."; a line cannot point outside it), else
 * RECORDS/<id>.json, RECORDS/<match>-<game_index>.json or
 * RECORDS/<match>.json in the --records folder.  Its bot logs are the
 * line's "logs" field (one path or null per seat), when present.  Each
 * game with a record gets <id>.html next to the index; a name that is not
 * made of [A-Za-z0-9._-] is never used as a file name. */
#ifndef MAAT_REPLAY_INDEX_H
#define MAAT_REPLAY_INDEX_H

#include "maat/error.h"

/* Write `out` (the index page) and the replays beside it; `records` may be
 * NULL.  Counts what it wrote into *games and *replays. */
int maat_replay_index(const char *ladder, const char *records,
                      const char *out, int *games, int *replays,
                      maat_error *err);

#endif
