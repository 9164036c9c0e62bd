/* sprt.h -- the generalized sequential probability ratio test (GSPRT) used
 * by `maat-ladder compare`, as in fishtest (M. Van den Bergh, "A
 * generalized SPRT"): outcomes are scores in [0,1]; under H0 the mean score
 * is s0 = L(elo0), under H1 s1 = L(elo1) with L the logistic Elo curve; the
 * log-likelihood ratio uses, for each hypothesis, the maximum-likelihood
 * distribution over the observed outcome values whose mean is that s.
 */
#ifndef MAAT_SPRT_H
#define MAAT_SPRT_H

/* Logistic Elo -> expected score, and back. */
double maat_elo_to_score(double elo);
double maat_score_to_elo(double score);

/* LLR of H1 vs H0 for k outcome values x[] in [0,1] seen count[] times. */
double maat_gsprt_llr(int k, const double *x, const double *count,
                      double elo0, double elo1);
/* The same with the expected scores of H0 and H1 given directly. */
double maat_gsprt_llr_scores(int k, const double *x, const double *count,
                             double s0, double s1);
/* Bounds: lower ln(beta/(1-alpha)), upper ln((1-beta)/alpha). */
void maat_sprt_bounds(double alpha, double beta, double *lower,
                      double *upper);

#endif
