/* standings.h -- per bot and game: rating, games, wins, average rank and
 * score, faults by kind; printed as a table, JSON or CSV.  Ratings are
 * recomputed from the ladder file in file order every time, so the file is
 * the single source of truth. */
#ifndef MAAT_STANDINGS_H
#define MAAT_STANDINGS_H

#include <stdio.h>

#include "ladder_file.h"
#include "rating.h"

typedef struct maat_standing {
    char bot[64], game[32];
    maat_rating rating;
    int games, wins; /* a shared first place counts as a win */
    double rank_sum, score_sum;
    int faults[MAAT_FAULT_KINDS];
    int two_player_games;
    double elo, elo_ci; /* NAN when the bot has no 2-player games */
} maat_standing;

typedef struct maat_standings {
    maat_standing *rows;
    int count, cap;
} maat_standings;

/* Compute from every game in `l` (optionally only games of `game`). */
int maat_standings_compute(const maat_ladder *l, const char *game,
                           const maat_rating_params *p, maat_standings *out);
/* Add one game (ratings updated in order; Elo is not refitted): what
 * compute does per game, for callers that keep standings up to date as
 * games arrive (the ladder format's matchmaking). */
int maat_standings_add(maat_standings *s, const maat_ladder_game *g,
                       const maat_rating_params *p);
/* Sorted by displayed rating, best first. */
void maat_standings_print(const maat_standings *s, const char *format,
                          FILE *f);
void maat_standings_free(maat_standings *s);
/* The row of (bot, game), created if absent.  The pointer is valid until
 * the next row is created (the table grows by realloc). */
maat_standing *maat_standings_row(maat_standings *s, const char *bot,
                                  const char *game,
                                  const maat_rating_params *p);

#endif
