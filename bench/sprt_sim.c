/* sprt_sim.c -- bench-sprt-sim: how many blocks does `maat-ladder compare`
 * need?  Simulates the test compare runs (maat_compare_llr: the GSPRT with
 * its pseudo-counts, evaluated once per wave of blocks) on block scores
 * drawn from a distribution, many times, and prints the share of runs that
 * end NOT WORSE, WORSE or inconclusive at each block limit, and the block
 * counts of those that decide.  docs/CI.md, "Choosing the defaults", was
 * measured with it (bench/compare_defaults.sh).
 *
 * The distribution is given (--dist X:P,...) or measured: --ladder FILE
 * --bot NAME takes, for every 2-seat duplicate match in FILE, NAME's mean
 * result (1 a win, 1/2 a tie) over the match's games -- the block score
 * compare computes without a field.  --tilt E reweights it (exponential
 * tilting, the least change of distribution) so that its mean is L(E): a
 * candidate E Elo stronger than the baseline (negative: weaker).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "ladder_file.h"
#include "maat/rng.h"
#include "sprt.h"

#define GRID 4 /* 2 seats, no field: scores 0, 1/4, ..., 1 */
#define MAX_CAPS 16

static void usage(FILE *f)
{
    fprintf(f,
"usage: bench-sprt-sim (--dist X:P,... | --ladder FILE --bot NAME)\n"
"                      [--tilt ELO] [--elo0 E] [--elo1 E] [--alpha A]\n"
"                      [--beta B] [--caps N,N,...] [--wave W] [--runs R]\n"
"                      [--seed S]\n"
"Block scores X on the grid 0, 1/4, ..., 1 (2 seats, no field).  --caps:\n"
"the block limits to report (default 100,200,400,800,1600,100000); --wave:\n"
"blocks per LLR evaluation (compare: --jobs without a field, default 2).\n");
}

/* Block scores of `bot` in the 2-seat matches of a ladder file. */
static int from_ladder(const char *path, const char *bot, double *p)
{
    maat_ladder l = {0};
    maat_error err = {0};
    if (maat_ladder_read(&l, path, 0, stderr, &err)) {
        fprintf(stderr, "bench-sprt-sim: %s\n", err.msg);
        return -1;
    }
    /* match id -> (sum of results, games): the ids are "MATCH-k" */
    int blocks = 0;
    double count[GRID + 1] = {0};
    char *done = calloc(l.count, 1);
    for (size_t i = 0; i < l.count; i++) {
        if (done[i] || l.games[i].seats != 2)
            continue;
        const char *match = json_string_value(json_object_get(l.games[i].line,
                                                              "match"));
        double sum = 0;
        int games = 0;
        for (size_t k = i; k < l.count && match; k++) {
            const char *mk = json_string_value(
                json_object_get(l.games[k].line, "match"));
            const maat_ladder_game *g = &l.games[k];
            if (done[k] || !mk || strcmp(mk, match) || g->seats != 2)
                continue;
            done[k] = 1;
            int me = !strcmp(g->bot[0], bot) ? 0 : !strcmp(g->bot[1], bot)
                                                       ? 1 : -1;
            if (me < 0)
                continue;
            sum += g->rank[me] < g->rank[1 - me] ? 1.0
                   : g->rank[me] == g->rank[1 - me] ? 0.5 : 0.0;
            games++;
        }
        if (games == 2) {
            count[(int)lround(sum / 2 * GRID)] += 1;
            blocks++;
        }
    }
    free(done);
    maat_ladder_free(&l);
    if (!blocks) {
        fprintf(stderr, "bench-sprt-sim: no 2-game matches of '%s' in %s\n",
                bot, path);
        return -1;
    }
    for (int i = 0; i <= GRID; i++)
        p[i] = count[i] / blocks;
    return blocks;
}

static int parse_dist(const char *s, double *p)
{
    double total = 0;
    memset(p, 0, sizeof *p * (GRID + 1));
    while (*s) {
        double x, q;
        int n;
        if (sscanf(s, "%lf:%lf%n", &x, &q, &n) != 2 || x < 0 || x > 1 ||
            q < 0 || fabs(x * GRID - lround(x * GRID)) > 1e-9)
            return -1;
        p[lround(x * GRID)] += q;
        total += q;
        s += n;
        if (*s == ',')
            s++;
    }
    if (total <= 0)
        return -1;
    for (int i = 0; i <= GRID; i++)
        p[i] /= total;
    return 0;
}

static double mean_of(const double *p, double theta)
{
    double z = 0, m = 0;
    for (int i = 0; i <= GRID; i++) {
        double w = p[i] * exp(theta * i / GRID);
        z += w;
        m += w * i / GRID;
    }
    return m / z;
}

/* p_i ~ p_i exp(theta x_i) with mean L(elo). */
static int tilt(double *p, double elo)
{
    double want = maat_elo_to_score(elo), lo = -60, hi = 60;
    if (want <= mean_of(p, lo) || want >= mean_of(p, hi))
        return -1;
    for (int it = 0; it < 200; it++) {
        double mid = (lo + hi) / 2;
        if (mean_of(p, mid) < want)
            lo = mid;
        else
            hi = mid;
    }
    double z = 0;
    for (int i = 0; i <= GRID; i++)
        z += p[i] *= exp(lo * i / GRID);
    for (int i = 0; i <= GRID; i++)
        p[i] /= z;
    return 0;
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

int main(int argc, char **argv)
{
    double p[GRID + 1] = {0}, elo0 = MAAT_COMPARE_ELO0,
           elo1 = MAAT_COMPARE_ELO1, alpha = MAAT_COMPARE_ALPHA,
           beta = MAAT_COMPARE_BETA, shift = NAN;
    int caps[MAX_CAPS] = {100, 200, 400, 800, 1600, 100000}, n_caps = 6;
    int wave = 2, runs = 2000, have = 0;
    unsigned long long seed = 1;
    const char *ladder = NULL, *bot = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (!v) {
            usage(stderr);
            return 2;
        }
        i++;
        if (!strcmp(a, "--dist")) {
            if (parse_dist(v, p)) {
                fprintf(stderr, "bench-sprt-sim: --dist wants X:P,... with "
                        "X in 0, 0.25, ..., 1, got '%s'\n", v);
                return 2;
            }
            have = 1;
        } else if (!strcmp(a, "--ladder")) ladder = v;
        else if (!strcmp(a, "--bot")) bot = v;
        else if (!strcmp(a, "--tilt")) shift = atof(v);
        else if (!strcmp(a, "--elo0")) elo0 = atof(v);
        else if (!strcmp(a, "--elo1")) elo1 = atof(v);
        else if (!strcmp(a, "--alpha")) alpha = atof(v);
        else if (!strcmp(a, "--beta")) beta = atof(v);
        else if (!strcmp(a, "--wave")) wave = atoi(v);
        else if (!strcmp(a, "--runs")) runs = atoi(v);
        else if (!strcmp(a, "--seed")) seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--caps")) {
            n_caps = 0;
            for (char *s = (char *)v; *s && n_caps < MAX_CAPS;) {
                caps[n_caps++] = (int)strtol(s, &s, 10);
                if (*s == ',')
                    s++;
            }
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (ladder) {
        int n = from_ladder(ladder, bot ? bot : "candidate", p);
        if (n < 0)
            return 1;
        printf("distribution: %d blocks of '%s' in %s\n", n,
               bot ? bot : "candidate", ladder);
        have = 1;
    }
    if (!have || wave < 1 || runs < 1 || elo0 >= elo1) {
        usage(stderr);
        return 2;
    }
    if (!isnan(shift) && tilt(p, shift)) {
        fprintf(stderr, "bench-sprt-sim: cannot tilt to %g Elo\n", shift);
        return 2;
    }
    double mean = mean_of(p, 0);
    printf("block scores:");
    for (int i = 0; i <= GRID; i++)
        printf(" %.2f:%.4f", (double)i / GRID, p[i]);
    printf("\nmean %.4f (%+.1f Elo); elo0 %g elo1 %g alpha %g beta %g; "
           "LLR every %d blocks; %d runs\n", mean, maat_score_to_elo(mean),
           elo0, elo1, alpha, beta, wave, runs);

    int cap_max = 0;
    for (int k = 0; k < n_caps; k++)
        cap_max = caps[k] > cap_max ? caps[k] : cap_max;
    double lower, upper, s0 = maat_elo_to_score(elo0),
                         s1 = maat_elo_to_score(elo1);
    maat_sprt_bounds(alpha, beta, &lower, &upper);
    int *at = malloc(sizeof *at * (size_t)runs);   /* blocks to a verdict */
    int *verdict = malloc(sizeof *verdict * (size_t)runs);
    maat_rng r;
    maat_seed key;
    maat_rng_seed(&r, maat_seed_from_u64(&key, seed));
    for (int run = 0; run < runs; run++) {
        double hist[GRID + 1] = {0};
        verdict[run] = 2;
        at[run] = cap_max;
        for (int b = 1; b <= cap_max; b++) {
            double u = (double)(maat_rng_next(&r) >> 11) * 0x1p-53, c = 0;
            int i = 0;
            while (i < GRID && u >= (c += p[i]))
                i++;
            hist[i] += 1;
            if (b % wave && b != cap_max)
                continue;
            double llr = maat_compare_llr(GRID, hist, s0, s1);
            if (llr >= upper || llr <= lower) {
                verdict[run] = llr >= upper ? 0 : 1;
                at[run] = b;
                break;
            }
        }
    }
    printf("%10s %10s %10s %13s   blocks to a verdict: 50%% 90%% 95%%\n",
           "max-blocks", "NOT WORSE", "WORSE", "inconclusive");
    int *sorted = malloc(sizeof *sorted * (size_t)runs);
    for (int k = 0; k < n_caps; k++) {
        int good = 0, bad = 0, n = 0;
        for (int run = 0; run < runs; run++)
            if (verdict[run] != 2 && at[run] <= caps[k]) {
                good += verdict[run] == 0;
                bad += verdict[run] == 1;
                sorted[n++] = at[run];
            }
        qsort(sorted, (size_t)n, sizeof *sorted, cmp_int);
        printf("%10d %9.1f%% %9.1f%% %12.1f%%   ", caps[k],
               100.0 * good / runs, 100.0 * bad / runs,
               100.0 * (runs - good - bad) / runs);
        if (n)
            printf("%d %d %d\n", sorted[n / 2], sorted[(int)(0.9 * (n - 1))],
                   sorted[(int)(0.95 * (n - 1))]);
        else
            printf("-\n");
    }
    free(sorted);
    free(at);
    free(verdict);
    return 0;
}
