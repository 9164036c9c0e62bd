/* opts.h -- maat-ladder's option tables: every subcommand lists its
 * options as a table read by one parser, so each takes --help, --version
 * and --opt=value alike and names the option and what it allows in every
 * error; and where the programs built next to maat-ladder are.
 */
#ifndef MAAT_LADDER_OPTS_H
#define MAAT_LADDER_OPTS_H

#include <stdio.h>

enum { O_FLAG, O_STR, O_INT, O_REAL, O_U64, O_LIST };

typedef struct maat_opt {
    const char *name;   /* "--jobs" */
    int kind;
    void *out;          /* int*, const char **, double*, uint64_t*, or the
                           const char *[] of a list */
    double lo, hi;      /* numbers: the allowed range; O_FLAG: lo is the
                           value set; O_LIST: hi is the capacity */
    const char *what;   /* for errors: what the option is */
    int *count;         /* O_LIST: items so far */
} maat_opt;

/* Parse argv against `opts` (ended by {0}); words that are not options go
 * to pos[] (at most max_pos).  Returns 0, -1 after --help or --version
 * (exit 0), or `usage_rc` after printing an error that names the option.
 * `cmd` names the subcommand in messages ("maat-ladder CMD: ..."). */
int maat_opts_parse(const char *cmd, const maat_opt *opts, int argc,
                    char **argv, const char **pos, int max_pos, int *n_pos,
                    void (*help)(FILE *), int usage_rc);

/* A program built next to us: ../DIR/NAME in the build tree, else NAME in
 * our own directory (installed).  malloc'd. */
char *maat_sibling(const char *dir, const char *name);

#endif
