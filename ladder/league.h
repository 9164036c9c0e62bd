/* league.h -- `maat-ladder league run DIR`: a league that never stops.
 *
 * One long-running process over a league directory (docs/LEAGUE.md):
 *
 *   DIR/league.json       the config (maat-ladder league new writes one)
 *   DIR/entries/NAME.json one file per entry (entries.h): drop, replace or
 *                         delete a file, or use `league add` / `retire`
 *   DIR/ladder.jsonl      the ranked games: the source of truth
 *   DIR/validation.jsonl  the games each new version plays against the
 *                         reference bot before it is ranked
 *   DIR/records/, logs/   every game's record and every bot's log
 *   DIR/site/             the leaderboard page, its JSON, the replays
 *   DIR/events.jsonl      what happened to entries, one JSON line each
 *   DIR/state/            the secret seed key, the CURVE key pair, the
 *                         versions, the match counter, the lock: hidden
 *                         from bots
 *   DIR/queue, shards/    with "queue": matches for other machines, and
 *                         their results coming back
 *
 * The process watches the entries and the ladder files, keeps a tally of
 * the ranked games (tally.h) up to date game by game, starts validation
 * matches for new versions and ranked matches chosen by matchmaking.h in
 * up to `jobs` referees at once, rewrites the page after every game, and
 * on SIGINT/SIGTERM stops starting matches and waits for the running ones
 * (a second signal stops them).  Everything it shows is recomputed from
 * the ladder files when it starts again.
 */
#ifndef MAAT_LEAGUE_H
#define MAAT_LEAGUE_H

#include "maat/error.h"
#include "maat/game.h"
#include "maat/rng.h"

/* Referees one league runs at once, at most (the config's "jobs"). */
#define MAAT_LEAGUE_MAX_JOBS 256

typedef struct maat_league_config {
    char game[32];
    int seats, duplicate, jobs;
    char *reference;          /* the reference bot's command */
    int validation_matches;   /* matches a version plays before it ranks */
    double half_life;         /* matchmaking.h, in league games */
    double fault_share;       /* faults.h: above it a version is broken */
    int replays, replay_logs; /* replay pages; with the bots' logs in them */
    char *referee, *replay;   /* paths (default: next to maat-ladder) */
    char **referee_args;
    int n_referee_args;
    char *endpoint;           /* remote entries: where their referee binds */
    int hello_time;           /* ms a remote entry has to say hello */
    int retry;                /* s before an absent remote entry plays again */
    int queue;                /* matches go to DIR/queue, results come back
                                 in DIR/shards (many machines) */
    int dispatch_timeout;     /* s before a queued match is given up */
} maat_league_config;

/* Read DIR/league.json; errors name the file and the field. */
int maat_league_config_load(maat_league_config *c, const char *dir,
                            maat_error *err);
void maat_league_config_free(maat_league_config *c);

/* Make DIR with its folders, a league.json from `config_json` and the
 * seed key (errors if DIR/league.json exists). */
int maat_league_new(const char *dir, const char *config_json,
                    maat_error *err);

typedef struct maat_league_options {
    int jobs;         /* > 0: overrides the config's */
    int max_matches;  /* > 0: start no more ranked matches than this, then
                         wait for the running ones and return */
    int quiet;        /* events only, no line per match */
} maat_league_options;

/* Run the league in DIR until stopped.  MAAT_OK after a graceful stop or
 * max_matches; MAAT_ESTATE when a second signal stopped running matches;
 * other codes with err (config, directory, another league running). */
int maat_league_run(const char *dir, const maat_league_options *o,
                    maat_error *err);

/* The token of remote entry `name` (every version) when its file names
 * none: derive(the league's secret key, "token NAME"), 32 hex digits. */
int maat_league_token(const char *dir, const char *name, char out[33],
                      maat_error *err);

/* The directory's folders (entries, files, records, logs, site, state,
 * shards...), made if missing (state/ mode 0700). */
int maat_league_make_folders(const char *dir, maat_error *err);
/* The league's secret key: DIR/state/seed.key, made (0600) if missing.
 * Match `id` is dealt derive(key, id): the referee reads the key itself
 * (--seed-file, --seed-label), so it is on no command line. */
int maat_league_key(const char *dir, maat_seed *key, maat_error *err);

#endif
