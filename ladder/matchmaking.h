/* matchmaking.h -- who plays the league's next match.
 *
 * A league has entries coming and going and no fixed schedule, so each
 * match is chosen when a job slot frees up, from what the ladder says so
 * far.  The rule (docs/LEAGUE.md, "Matchmaking", has the reasons):
 *
 *   1. The anchor is the entry with the fewest recent games: an
 *      exponentially weighted count of its games (running ones included)
 *      with a half-life of `half_life` league games.  Every entry so plays
 *      at the same rate, and a new entry (no recent games) plays in match
 *      after match until it has caught up -- a burst of about
 *      half_life * seats / entries games while its rating is the most
 *      uncertain.  Ties: the larger sigma, then the lower index.
 *   2. The other seats are filled by a beam search over the entries that
 *      may meet the anchor and each other, maximising the sum over the
 *      lineup's pairs of   closeness + uncertainty + novelty :
 *        closeness   exp(-(mu_a - mu_b)^2 / (2 (2 beta^2 + s_a^2 + s_b^2)))
 *                    (1 when the result is a coin toss, 0 when foregone),
 *        uncertainty (s_a^2 + s_b^2) / (2 sigma0^2),
 *        novelty     1 / (1 + games the pair has played together).
 *   3. Coverage, so a pair is neither farmed nor forgotten: with
 *      E = min(games_a, games_b) * (seats - 1) / (entries - 1), what the
 *      pair would have played with opponents drawn uniformly, a pair may
 *      meet only while it has played at most 2E + 2 games together, and a
 *      pair below E/2 - 1 is preferred over any other (+10 to its score).
 *   4. No immediate repeat: never the lineup an entry played last, nor
 *      one running now -- unless no other lineup exists (exactly `seats`
 *      entries).
 *
 * The matchmaker only reads the arrays it is given; the league fills them
 * from its tally.  tests/test_matchmaking.c checks, over thousands of
 * simulated matches of 2-5 seats with equal and with spread strengths and
 * an entry joining late, that every pair's count stays within a factor 2
 * (plus a few games) of uniform and nothing repeats at once.
 */
#ifndef MAAT_MATCHMAKING_H
#define MAAT_MATCHMAKING_H

#include "maat/game.h"
#include "rating.h"

typedef struct maat_mm_entry {
    double mu, sigma;          /* its rating */
    int games;                 /* ranked games, running ones included */
    double recent;             /* the weighted count of recent games */
    int last[MAAT_MAX_SEATS];  /* its last lineup (entry indices, itself
                                  included), -1 after the last */
    int busy;                  /* may not play now (a remote entry already
                                  playing or waiting to retry) */
} maat_mm_entry;

typedef struct maat_matchmaker {
    int n;                     /* entries */
    const maat_mm_entry *e;
    const int *met;            /* n x n: games each pair played together,
                                  running ones included */
    int seats;
    const int (*running)[MAAT_MAX_SEATS]; /* lineups playing now (-1 after
                                             the last seat) */
    int n_running;
    maat_rating_params p;
} maat_matchmaker;

/* The next lineup into lineup[0..seats-1] (entry indices, anchor first);
 * returns 0, or -1 when fewer than `seats` entries may play. */
int maat_matchmake(const maat_matchmaker *m, int *lineup);

/* Decay a recent-games count by `games` league games of half-life h. */
double maat_mm_decay(double recent, double games, double h);

#endif
