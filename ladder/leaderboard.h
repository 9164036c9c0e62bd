/* leaderboard.h -- the league's page: DIR/site/index.html, one
 * self-contained file (html.h: no network, nothing a bot sends can become
 * markup), and the same data as DIR/site/leaderboard.json.
 *
 * The page shows the standings (rating = mu - 3 sigma, mu, sigma, games,
 * wins, Elo for 2-player games, faults), every bot's rating over time
 * (mu, with a band of +-sigma, as SVG), the crosstable (head to head:
 * how often the row finished ahead of the column), faults by bot and
 * kind, the entries with their state (validating, ranked, failed with
 * its faults and log, retired, broken, absent), the latest events and
 * the latest games, each linked to its replay when DIR/site/replays/
 * ID.html exists.  The data comes from a tally (tally.h), so writing the
 * page costs the same after ten games or a million.  The script that
 * draws it is ladder/leaderboard.js; tests/test_league_browser.py opens
 * the page in headless Chromium.
 */
#ifndef MAAT_LEADERBOARD_H
#define MAAT_LEADERBOARD_H

#include <jansson.h>

#include "tally.h"

typedef struct maat_board_entry {
    const char *name;     /* the entry */
    int version;
    const char *bot;      /* "NAME.K", its name in the ladder */
    const char *state;    /* validating, ranked, failed, retired, broken,
                             absent */
    const char *detail;   /* why (faults, first fault), or NULL */
    const char *log;      /* a log path to look at, or NULL */
    const char *game;     /* the game it concerns (a replay), or NULL */
    int remote;
} maat_board_entry;

typedef struct maat_board {
    const char *title;
    const char *site;     /* the site directory */
    maat_tally *ranked;   /* the ranked games (Elo is fitted on it) */
    const maat_board_entry *entries;
    int n_entries;
    const char *const *events; /* JSON lines, the latest first */
    int n_events;
    long long time;       /* when written, seconds since 1970 */
} maat_board;

/* The page's data.  NULL when out of memory. */
json_t *maat_leaderboard_doc(const maat_board *b);
/* Write site/index.html and site/leaderboard.json (atomically). */
int maat_leaderboard_write(const maat_board *b, maat_error *err);

#endif
