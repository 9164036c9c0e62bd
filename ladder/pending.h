/* pending.h -- a run's ladder lines, appended in match order.
 *
 * With --jobs over 1 the matches of a run finish in an order that changes
 * from run to run, and ratings (OpenSkill) take the games in file order:
 * the same games could give other ratings.  So each referee of such a run
 * writes to a file of its own match, "<ladder>.<name>.pending/<match
 * id>.jsonl" (one directory per tournament, like its lock: only the run
 * that holds the lock touches it),
 * and the run appends a match's lines to the ladder file once every
 * earlier match of the run has finished.  The ladder file then holds the
 * games in match order, as --jobs 1 writes them, whichever match ended
 * first.  A run stopped part way appends what is left, in match order;
 * one that could not (killed) leaves the files for the next run, which
 * appends them before it reads the ladder.
 *
 * Lines are moved with maat_jsonl_append (locked, torn-line safe,
 * fsync'd), then the match's file is removed: a crash between the two
 * leaves a line twice, and readers count the first line of each id.
 */
#ifndef MAAT_PENDING_H
#define MAAT_PENDING_H

#include "maat/error.h"

/* "<ladder>.<name>.pending" (malloc'd; NULL when out of memory). */
char *maat_pending_dir(const char *ladder, const char *name);

/* "DIR/MATCH_ID.jsonl" (malloc'd; NULL when out of memory). */
char *maat_pending_file(const char *dir, const char *match_id);

/* Append the whole lines of `file` to `ladder`, then remove `file`.  A
 * last line without its newline (a referee killed mid-write) is left out
 * and counted in *torn (may be NULL).  No file: nothing to do, MAAT_OK.
 * On an error `file` stays, for the next run. */
int maat_pending_move(const char *file, const char *ladder, int *torn,
                      maat_error *err);

#endif
