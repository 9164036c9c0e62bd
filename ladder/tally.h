/* tally.h -- everything maat-ladder shows about a ladder, kept up to date
 * one game at a time in memory that does not grow with the file.
 *
 * A tally is fed the games of a ladder file as they stream past (the
 * parsed lines are never kept): per bot and game name the standings row
 * (rating, games, wins, ranks, scores, faults by kind), its fault tally
 * (faults.h), a rating history thinned to at most `history_points` points,
 * and the lineup of its last game; per pair of rows the games they met in,
 * how often each finished ahead, the ties, and their 2-player games for
 * the Elo fit; and the last `recent` lines as text.  So `standings`, the
 * league's matchmaking and its leaderboard page all read one tally, and
 * the league adds each new game as it arrives instead of re-reading the
 * file.  Memory: the rows and their pairs (bots squared), the history and
 * the recent lines (bounded), and 8 to 16 bytes per game id (a 64-bit SipHash
 * fingerprint: the first line of an id wins, as in ladder_file.h; among
 * a million different ids, two share a fingerprint with odds of n^2/2^65,
 * about 1 in 37 million).  bench/bench_standings.sh measures it on a
 * 1,000,000-game file (docs/LADDER.md).
 */
#ifndef MAAT_TALLY_H
#define MAAT_TALLY_H

#include <stdint.h>
#include <stdio.h>

#include "faults.h"
#include "ladder_file.h"
#include "standings.h"

typedef struct maat_tally_pair {
    int games;       /* games both rows played in */
    int ahead;       /* ... in which the first row ranked better */
    int ties;        /* ... in which they ranked equal */
    int games2;      /* 2-player games between them (Elo) */
    double score2;   /* the first row's score in those (1, 1/2, 0) */
} maat_tally_pair;

typedef struct maat_tally_point {
    uint64_t seq;    /* the game's place among the tally's games, from 1 */
    int64_t time;    /* its "time" field, seconds since 1970 (0: none) */
    float mu, sigma; /* the rating after it */
} maat_tally_point;

typedef struct maat_tally_history {
    maat_tally_point *point;
    int n;           /* points kept, at most the tally's history_points */
    int stride;      /* a point every `stride` games of the row */
    int since;       /* games since the last point */
    uint64_t last_seq; /* the row's latest game (its rating is the row's) */
    int64_t last_time;
} maat_tally_history;

typedef struct maat_tally {
    const char *game;         /* only games of this name; NULL: all */
    maat_rating_params p;
    int history_points;       /* per row, at least 4 (default 200) */
    int recent_cap;           /* lines kept (default 50; 0: none) */

    maat_standings s;         /* rows by first appearance; never sorted */
    int cap;                  /* rows the arrays below have room for */
    maat_tally_pair *pair;    /* cap x cap: pair[i * cap + j] is i vs j */
    maat_fault_tally *faults; /* by row */
    maat_tally_history *hist; /* by row */
    int (*last)[MAAT_MAX_SEATS]; /* by row: the rows of its last game, -1
                                    after the last */
    char **recent;            /* ring of compact lines; recent_next is the
                                 slot of the next one */
    int n_recent, recent_next;

    uint64_t *seen;           /* id fingerprints, open addressing, 0 free */
    size_t n_seen, seen_slots;
    uint64_t games;           /* games added */
    size_t duplicates, bad_lines;
} maat_tally;

/* An empty tally of games of `game` (NULL: all) with the defaults. */
void maat_tally_init(maat_tally *t, const char *game);
void maat_tally_free(maat_tally *t);

/* Add one game (skipped, counted in duplicates, when its id was seen).
 * g->line is read when set (the first fault's detail, the recent line).
 * MAAT_ENOMEM only. */
int maat_tally_add(maat_tally *t, const maat_ladder_game *g);
/* Add the games of the lines of c->path from c->offset on (only whole
 * lines when `whole_only`: a file referees are still appending to). */
int maat_tally_read(maat_tally *t, maat_ladder_cursor *c, int whole_only,
                    FILE *report, maat_error *err);

/* The row of (bot, game) or -1. */
int maat_tally_find(const maat_tally *t, const char *bot, const char *game);
static inline const maat_tally_pair *maat_tally_pair_of(const maat_tally *t,
                                                         int i, int j)
{
    return &t->pair[(size_t)i * (size_t)t->cap + (size_t)j];
}
/* The k-th most recent line (0: the last one), or NULL. */
const char *maat_tally_recent(const maat_tally *t, int k);
/* Fill each row's elo and elo_ci from the 2-player games (as
 * maat_standings_compute does); rows without any keep NAN. */
void maat_tally_fit_elo(maat_tally *t);

#endif
