/* rating.c -- Weng-Lin Plackett-Luce updates and Bradley-Terry Elo.
 * The notation follows the paper: c, C_q (those ranked no better than q),
 * A_q (how many share q's rank), Omega and Delta. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "maat/game.h"
#include "rating.h"

void maat_rating_params_default(maat_rating_params *p)
{
    p->mu = 25.0;
    p->sigma = 25.0 / 3.0;
    p->beta = 25.0 / 6.0;
    p->tau = 25.0 / 300.0;
    p->kappa = 1e-4;
}

maat_rating maat_rating_new(const maat_rating_params *p)
{
    maat_rating r = {p->mu, p->sigma};
    return r;
}

double maat_rating_display(const maat_rating *r)
{
    return r->mu - 3.0 * r->sigma;
}

void maat_openskill_rate(const maat_rating_params *p, maat_rating *r,
                         const int *rank, int n)
{
    double sig2[MAAT_MAX_SEATS], e[MAAT_MAX_SEATS], sumq[MAAT_MAX_SEATS];
    int a[MAAT_MAX_SEATS];
    double c2 = 0;
    for (int i = 0; i < n; i++) {
        double s = r[i].sigma;
        sig2[i] = s * s + p->tau * p->tau;
        c2 += sig2[i] + p->beta * p->beta;
    }
    double c = sqrt(c2);
    for (int i = 0; i < n; i++)
        e[i] = exp(r[i].mu / c);
    for (int q = 0; q < n; q++) {
        sumq[q] = 0;
        a[q] = 0;
        for (int s = 0; s < n; s++) {
            if (rank[s] >= rank[q])
                sumq[q] += e[s];
            if (rank[s] == rank[q])
                a[q]++;
        }
    }
    maat_rating out[MAAT_MAX_SEATS];
    for (int i = 0; i < n; i++) {
        double omega = 0, delta = 0;
        for (int q = 0; q < n; q++) {
            if (rank[q] > rank[i])
                continue;
            double quot = e[i] / sumq[q];
            omega += ((q == i ? 1.0 : 0.0) - quot) / a[q];
            delta += quot * (1.0 - quot) / a[q];
        }
        double gamma = sqrt(sig2[i]) / c;
        omega *= sig2[i] / c;
        delta *= gamma * sig2[i] / c2;
        out[i].mu = r[i].mu + omega;
        double shrink = 1.0 - delta;
        out[i].sigma = sqrt(sig2[i]) * sqrt(shrink > p->kappa ? shrink
                                                              : p->kappa);
    }
    memcpy(r, out, sizeof(maat_rating) * (size_t)n);
}

int maat_elo_fit(int n, int m, const int *a, const int *b,
                 const double *score, double *elo, double *ci)
{
    double *games = calloc((size_t)n * (size_t)n, sizeof *games);
    double *wins = calloc((size_t)n, sizeof *wins);
    int it = -1;
    if (games && wins) {
        for (int k = 0; k < m; k++) {
            games[a[k] * n + b[k]] += 1;
            games[b[k] * n + a[k]] += 1;
            wins[a[k]] += score[k];
            wins[b[k]] += 1.0 - score[k];
        }
        it = maat_elo_fit_counts(n, games, wins, elo, ci);
    }
    free(games);
    free(wins);
    return it;
}

int maat_elo_fit_counts(int n, const double *games, const double *score,
                        double *elo, double *ci)
{
    double *wins = malloc(sizeof *wins * (size_t)n);
    double *g = malloc(sizeof *g * (size_t)n), *next = malloc(sizeof *next * (size_t)n);
    int it = -1;
    if (!wins || !g || !next)
        goto out;
    for (int i = 0; i < n; i++) {
        wins[i] = score[i] + 0.5; /* the virtual draw against strength 1 */
        g[i] = 1.0;
    }
    double logsum = 0;
    for (it = 1; it <= 10000; it++) { /* Hunter's MM iteration */
        double change = 0;
        for (int i = 0; i < n; i++) {
            double denom = 1.0 / (g[i] + 1.0);
            for (int j = 0; j < n; j++)
                if (j != i && games[i * n + j] > 0)
                    denom += games[i * n + j] / (g[i] + g[j]);
            next[i] = wins[i] / denom;
        }
        /* The virtual opponent of strength 1 anchors the scale, and that
         * anchor is one game against hundreds: alone, MM moves the common
         * scale by a hair an iteration, and a lopsided pair (80 % of 200
         * games) took over 10,000 iterations, so the fit gave up and the
         * Elo column showed "-" (a review of 2026-11-28).  So each
         * iteration also takes the best common factor k, where the
         * likelihood's slope along the scale is zero: sum over i of
         * g_i k / (g_i k + 1) = n / 2 (the pairwise games do not depend
         * on k; the virtual draws balance).  The MLE satisfies it, so the
         * fixed point is the same; 200 of 198 wins now take 9 iterations.
         * The result is centred once at the end. */
        double lk = 0;
        for (int step = 0; step < 60; step++) { /* Newton, monotone f */
            double f = -0.5 * n, df = 0;
            for (int i = 0; i < n; i++) {
                double p = 1.0 / (1.0 + exp(-(log(next[i]) + lk)));
                f += p;
                df += p * (1.0 - p);
            }
            double d = df > 0 ? f / df : 0;
            d = fmax(-5.0, fmin(5.0, d)); /* far off, the slope misleads */
            lk -= d;
            if (fabs(d) < 1e-15)
                break;
        }
        for (int i = 0; i < n; i++)
            next[i] *= exp(lk);
        for (int i = 0; i < n; i++) {
            change = fmax(change, fabs(log(next[i] / g[i])));
            g[i] = next[i];
        }
        if (change < 1e-13)
            break;
    }
    if (it > 10000)
        it = -1;
    for (int i = 0; i < n; i++) {
        double info = g[i] / ((g[i] + 1.0) * (g[i] + 1.0)); /* virtual */
        for (int j = 0; j < n; j++)
            if (j != i && games[i * n + j] > 0) {
                double p = g[i] / (g[i] + g[j]);
                info += games[i * n + j] * p * (1.0 - p);
            }
        elo[i] = 400.0 / log(10.0) * log(g[i]);
        ci[i] = 1.96 * 400.0 / log(10.0) / sqrt(info);
        logsum += elo[i];
    }
    for (int i = 0; i < n; i++) /* mean 0 */
        elo[i] -= logsum / n;
out:
    free(wins);
    free(g);
    free(next);
    return it;
}
