/* pending.h -- a run's ladder lines, appended in match order.
 *
 * With --jobs over 1 the matches of a run end in an order that changes
 * from run to run, and ratings (OpenSkill) take the games in file order:
 * the same games could give other ratings.  So each referee of such a run
 * writes to a file of its own match, "<ladder>.waiting/<name>/<match
 * id>.jsonl", and the run appends a match's lines to the ladder file once
 * every earlier match of the run has ended.  The ladder file then holds
 * the games of a run that is not stopped in match order, as --jobs 1
 * writes them, whichever match ended first.  A run stopped part way
 * appends what it has, in match order; one that could not (killed) leaves
 * the files for the next run, which appends them before it reads the
 * ladder.
 *
 * "<ladder>.waiting/" is made by every run and never removed: every
 * referee writing to the ladder hides it from its bots (it hides only what
 * exists when the bots start), other tournaments' runs and a plain
 * maat-referee --ladder included (MAAT_LADDER_WAITING_SUFFIX,
 * ladder_line.h).  The tournament's own subdirectory is touched only by
 * the run that holds the tournament's lock.
 *
 * Lines are moved with maat_jsonl_append (locked, torn-line safe,
 * fsync'd), then the match's file is removed: a crash between the two
 * leaves a line twice, and readers count the first line of each id.
 */
#ifndef MAAT_PENDING_H
#define MAAT_PENDING_H

#include "maat/error.h"

/* "<ladder>.waiting" (malloc'd; NULL when out of memory). */
char *maat_pending_root(const char *ladder);

/* "<ladder>.waiting/<name>" (malloc'd; NULL when out of memory). */
char *maat_pending_dir(const char *ladder, const char *name);

/* Make "<ladder>.waiting/" and, with `name`, the tournament's directory in
 * it; MAAT_EIO naming the directory and the reason. */
int maat_pending_make(const char *ladder, const char *name, maat_error *err);

/* "DIR/MATCH_ID.jsonl" (malloc'd; NULL when out of memory). */
char *maat_pending_file(const char *dir, const char *match_id);

/* Append the whole lines of `file` to `ladder`, then remove `file`.  A
 * last line without its newline (a referee killed mid-write) is left out
 * and counted in *torn (may be NULL).  No file: nothing to do, MAAT_OK.
 * On an error `file` stays, for the next run. */
int maat_pending_move(const char *file, const char *ladder, int *torn,
                      maat_error *err);

/* Every waiting file in `dir` ("<id>-<i>.jsonl"), in the order of i (one
 * listing of the directory, whatever the config's number of matches),
 * then the directory itself, when empty.  *moved: files moved; *torn as
 * above.  No directory: MAAT_OK. */
int maat_pending_move_all(const char *dir, const char *ladder, int *moved,
                          int *torn, maat_error *err);

#endif
