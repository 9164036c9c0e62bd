/* compare.h -- maat-ladder compare (see compare.c for the method). */
#ifndef MAAT_COMPARE_H
#define MAAT_COMPARE_H

#include <stdint.h>
#include <stdio.h>

#include "maat/error.h"

typedef struct maat_compare {
    const char *candidate, *baseline; /* bot commands */
    const char *field[16];
    int n_field;
    const char *game;
    int seats;
    double elo0, elo1, alpha, beta;
    int max_blocks, jobs;
    uint64_t seed;
    const char *referee;
    const char *ladder; /* where the referees append */
    char **referee_args;
    int n_referee_args;
    int quiet;
    int pin;  /* one CPU per referee running at once (pin.h) */
    char tag[24]; /* unique per run: match ids never meet an old run's */
} maat_compare;

/* Play blocks until the SPRT decides.  Returns 0 (not worse), 1 (worse),
 * 2 (inconclusive at max_blocks), or a MAAT_E* code > 2 with err. */
int maat_compare_run(const maat_compare *c, FILE *out, maat_error *err);

#endif
