/* check.h -- the tiny assertion kit every test program uses.
 *
 * CHECK(cond, fmt, ...) records a failure with file:line and a message but
 * keeps going, so one run shows every broken rule; check_done() prints a
 * summary and returns the exit code (0 = all held). */
#ifndef MAAT_TEST_CHECK_H
#define MAAT_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int check_failures, check_count;

/* The short seed n (maat/rng.h) as a pointer that lives until the end of
 * the enclosing block: R->game_new(setup, SEED(42), ...). */
#define SEED(n) maat_seed_from_u64(&(maat_seed){{0}}, (uint64_t)(n))

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        check_count++;                                                       \
        if (!(cond)) {                                                       \
            check_failures++;                                                \
            fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                    \
            fprintf(stderr, "\n");                                           \
        }                                                                    \
    } while (0)

static inline int check_done(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}


/* MAAT_TEST_SCALE (e.g. 0.25 under sanitizers, see scripts/test.sh) scales
 * the number of games: the same properties, fewer samples. */
static inline int check_scaled(int n)
{
    const char *s = getenv("MAAT_TEST_SCALE");
    double f = s ? atof(s) : 1.0;
    int m = (int)(n * (f > 0 ? f : 1.0));
    return m < 1 ? 1 : m;
}

#endif
