/* cli.h -- command-line conventions shared by maat-referee, maat-play and
 * maat-ladder: `--opt=value` as well as `--opt value`, numbers checked in
 * full with errors that name the option and what it allows, `--version`,
 * and the list of games for `--help`.
 */
#ifndef MAAT_CLI_H
#define MAAT_CLI_H

#include <stdio.h>

/* Split "--name=value": copies "--name" into name and points *value at
 * "value" (returns 1); otherwise copies arg and sets *value NULL (0).  A
 * name too long for the buffer is copied cut, so it matches no option. */
int maat_cli_split(const char *arg, char *name, size_t len,
                   const char **value);

/* A whole number in lo..hi, all of `v` (no "12abc", no "1e3").  On error
 * prints "PROG: OPT wants a whole number from LO to HI (WHAT), got 'V'"
 * and returns -1. */
int maat_cli_int(const char *prog, const char *opt, const char *v,
                 long long lo, long long hi, const char *what,
                 long long *out);
/* A finite decimal number in lo..hi (strict as above); `what` says what
 * it is. */
int maat_cli_real(const char *prog, const char *opt, const char *v,
                  double lo, double hi, const char *what, double *out);

/* "PROG 0.1.0 (protocol 1; games: pyramids pyramids-1, ...)" */
void maat_cli_version(FILE *f, const char *prog);
/* "pyramids (2-5 seats), pyramix (2-4 seats), ..." */
void maat_cli_games(FILE *f);

#endif
