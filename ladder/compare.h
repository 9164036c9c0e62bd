/* compare.h -- maat-ladder compare (see compare.c for the method). */
#ifndef MAAT_COMPARE_H
#define MAAT_COMPARE_H

#include <stdint.h>
#include <stdio.h>

#include "maat/error.h"

/* The defaults (docs/CI.md, "Choosing the defaults", has the numbers). */
#define MAAT_COMPARE_ELO0 -40.0
#define MAAT_COMPARE_ELO1 0.0
#define MAAT_COMPARE_ALPHA 0.05
#define MAAT_COMPARE_BETA 0.05
#define MAAT_COMPARE_MAX_BLOCKS 600

typedef struct maat_compare {
    const char *candidate, *baseline; /* bot commands */
    const char *field[16];
    int n_field;
    const char *game;
    int seats;
    double elo0, elo1, alpha, beta; /* Elo: head to head, candidate minus
                                       baseline */
    int max_blocks, jobs;
    /* Block b is dealt derive(key, "block b") (docs/RNG.md), the key being
     * `seed` (public, for CI and bug reports) or, when it is NULL, a secret
     * one the referees read from key_file. */
    const char *seed;
    const char *key_file;
    const char *referee;
    const char *ladder;  /* where the referees append */
    const char *log_dir; /* the referees' --log-dir: MATCH-GAME-BOT.log */
    char **referee_args;
    int n_referee_args;
    double fault_share;  /* faults.h */
    int report_every;    /* blocks between progress lines */
    int quiet;
    int pin;  /* one CPU per referee running at once (pin.h) */
    char tag[24]; /* unique per run: match ids never meet an old run's */
} maat_compare;

/* The defaults above; 2 seats of pyramids, 2 jobs, no seed, fault share
 * MAAT_FAULT_SHARE, a progress line every 10 blocks. */
void maat_compare_defaults(maat_compare *c);

/* The LLR compare uses: the GSPRT over block scores on the grid i/G,
 * hist[i] blocks at each (G+1 values), H0 and H1 as expected scores s0 and
 * s1, with a pseudo-count of 0.001 on every grid value.  NAN if G is out
 * of 1..1024.  (bench/sprt_sim.c simulates compare with it.) */
double maat_compare_llr(int G, const double *hist, double s0, double s1);

/* Play blocks until the SPRT decides.  Returns 0 (not worse), 1 (worse),
 * 2 (inconclusive at max_blocks), or a MAAT_E* code > 2 with err: a
 * referee that failed, a broken bot (MAAT_EBROKEN, reported on stderr),
 * an interrupt (MAAT_ESTATE). */
int maat_compare_run(const maat_compare *c, FILE *out, maat_error *err);

#endif
