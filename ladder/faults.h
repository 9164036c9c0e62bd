/* faults.h -- telling a broken bot from a weak one.
 *
 * A bot that loses is weak; a bot that cannot start, never says hello, or
 * faults (times out, answers illegally or malformed, crashes) in more than
 * a small share of its games is broken, and results it "earned" mean
 * nothing.  `compare` and `run` tally the faults of each bot (or side)
 * from the ladder lines and report a broken one as an error, never as a
 * verdict or a rating.  docs/LADDER.md, "Broken bots".
 */
#ifndef MAAT_FAULTS_H
#define MAAT_FAULTS_H

#include <stdio.h>

#include "ladder_file.h"

/* The error code (beyond maat/error.h's) of a run with a broken bot. */
enum { MAAT_EBROKEN = 64 };

/* The default share of games with faults above which a bot is broken. */
#define MAAT_FAULT_SHARE 0.05
/* ... but only from this many games with faults on (no verdict on 1). */
#define MAAT_FAULT_MIN_GAMES 3

typedef struct maat_fault_tally {
    int games;        /* games played */
    int faulty_games; /* games with at least one fault */
    int kinds[MAAT_FAULT_KINDS]; /* fault events by kind */
    char first_game[96];           /* the first game with a fault ... */
    char first_detail[512];        /* ... its first fault, "kind: detail" */
    char first_log[512];           /* ... the bot's log as the ladder line
                                      names it (relative to the ladder
                                      file's directory), "" without one */
} maat_fault_tally;

/* Count game g for the bot in `seat`. */
void maat_fault_tally_add(maat_fault_tally *t, const maat_ladder_game *g,
                          int seat);
/* first_log as a path from here: `ladder` is the file the game came from.
 * "" when the game has no log. */
void maat_fault_tally_log(const maat_fault_tally *t, const char *ladder,
                          char *out, size_t len);
/* Broken: a no_hello fault in any game, or faults in more than `share` of
 * the games and in at least MAAT_FAULT_MIN_GAMES of them. */
int maat_fault_tally_broken(const maat_fault_tally *t, double share);
/* "0 faults" or "3 faults in 2 of 40 games (crash 2, timeout 1)". */
void maat_fault_tally_describe(const maat_fault_tally *t, char *buf,
                               size_t len);

#endif
