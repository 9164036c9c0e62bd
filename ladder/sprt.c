/* sprt.c -- GSPRT log-likelihood ratio (see sprt.h). */
#include <math.h>

#include "sprt.h"

double maat_elo_to_score(double elo)
{
    return 1.0 / (1.0 + pow(10.0, -elo / 400.0));
}

double maat_score_to_elo(double s)
{
    if (s <= 0)
        return -INFINITY;
    if (s >= 1)
        return INFINITY;
    return -400.0 * log10(1.0 / s - 1.0);
}

/* The Lagrange multiplier of the mean-s constrained MLE: the root of
 * sum f (x - s) / (1 + l (x - s)) = 0, which is decreasing in l on the
 * interval where every 1 + l (x - s) > 0.  Bisection: slow but certain. */
static double lambda_for(int k, const double *x, const double *f, double s)
{
    double xmin = 1, xmax = 0;
    for (int i = 0; i < k; i++)
        if (f[i] > 0) {
            xmin = fmin(xmin, x[i]);
            xmax = fmax(xmax, x[i]);
        }
    if (xmax <= s || xmin >= s) /* s outside the data: no finite MLE */
        return NAN;
    double lo = -1.0 / (xmax - s), hi = 1.0 / (s - xmin);
    double eps = (hi - lo) * 1e-15;
    lo += eps;
    hi -= eps;
    for (int it = 0; it < 200; it++) {
        double mid = 0.5 * (lo + hi), g = 0;
        if (mid <= lo || mid >= hi)
            break; /* the interval is one double wide: converged */
        for (int i = 0; i < k; i++)
            g += f[i] * (x[i] - s) / (1.0 + mid * (x[i] - s));
        if (g > 0)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

double maat_gsprt_llr(int k, const double *x, const double *count,
                      double elo0, double elo1)
{
    return maat_gsprt_llr_scores(k, x, count, maat_elo_to_score(elo0),
                                 maat_elo_to_score(elo1));
}

double maat_gsprt_llr_scores(int k, const double *x, const double *count,
                             double s0, double s1)
{
    double n = 0, f[1024];
    if (k > 1024)
        return NAN;
    for (int i = 0; i < k; i++)
        n += count[i];
    if (n <= 0)
        return 0;
    for (int i = 0; i < k; i++)
        f[i] = count[i] / n;
    double l0 = lambda_for(k, x, f, s0), l1 = lambda_for(k, x, f, s1);
    if (isnan(l0) || isnan(l1))
        return 0; /* all outcomes on one side: no information yet */
    double llr = 0;
    for (int i = 0; i < k; i++)
        if (f[i] > 0)
            llr += f[i] * (log1p(l0 * (x[i] - s0)) - log1p(l1 * (x[i] - s1)));
    return n * llr;
}

void maat_sprt_bounds(double alpha, double beta, double *lower, double *upper)
{
    *lower = log(beta / (1.0 - alpha));
    *upper = log((1.0 - beta) / alpha);
}
