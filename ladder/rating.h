/* rating.h -- ratings from game results.
 *
 * OpenSkill / Weng-Lin Plackett-Luce (Weng & Lin 2011, "A Bayesian
 * Approximation Method for Online Ranking", algorithm 4), one player per
 * team, with ties: the ladder's main rating, for any number of seats.
 * Shown as mu - 3 sigma.  Checked against the npm package `openskill`.
 *
 * Elo (Bradley-Terry maximum likelihood) for 2-player games, with a 95%
 * interval from the Fisher information.
 */
#ifndef MAAT_RATING_H
#define MAAT_RATING_H

typedef struct maat_rating {
    double mu, sigma;
} maat_rating;

typedef struct maat_rating_params {
    double mu, sigma, beta, tau, kappa;
} maat_rating_params;

/* mu 25, sigma 25/3, beta 25/6, tau 25/300, kappa 1e-4 */
void maat_rating_params_default(maat_rating_params *p);
maat_rating maat_rating_new(const maat_rating_params *p);
/* Update the n ratings of one game; rank[i] is player i's place (1 best,
 * equal ranks tie).  tau is added to each sigma before the update. */
void maat_openskill_rate(const maat_rating_params *p, maat_rating *r,
                         const int *rank, int n);
double maat_rating_display(const maat_rating *r);

/* Bradley-Terry Elo over m two-player games between n players: game k is
 * a[k] vs b[k] with score[k] for a (1 win, 0.5 draw, 0 loss).  Writes elo[]
 * (mean 0) and the half-width of a 95% interval ci[].  One virtual draw
 * against an average opponent per player keeps all-win/all-loss records
 * finite.  Returns the number of iterations, or -1 if it did not converge. */
int maat_elo_fit(int n, int m, const int *a, const int *b,
                 const double *score, double *elo, double *ci);
/* The same fit from totals, for callers that count games as they stream
 * past: games[i*n+j] games between i and j (symmetric), score[i] the sum
 * of i's scores in them. */
int maat_elo_fit_counts(int n, const double *games, const double *score,
                        double *elo, double *ci);

#endif
