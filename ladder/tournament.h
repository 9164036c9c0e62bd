/* tournament.h -- a tournament: bots, a game, a format and a number of
 * matches, played by spawning maat-referee processes (up to --jobs at
 * once), whose lines reach the ladder file in match order (pending.h).
 * Resumable: a match whose games are all in the ladder file is not played
 * again.
 *
 * Formats: round-robin (every group of `seats` bots in turn), gauntlet
 * (one bot against groups from the field) and ladder (rating-based
 * matchmaking: the bot with fewest games against the bots nearest to it
 * in rating).  With duplicate seats, a match is one deal played once per
 * seat rotation (maat-referee --games SEATS --same-deal), so the luck of
 * the deal cancels out.  With `pin`, each running match (its referee and
 * the referee's bots) gets one CPU of its own (pin.h).  Config format:
 * docs/LADDER.md.
 */
#ifndef MAAT_TOURNAMENT_H
#define MAAT_TOURNAMENT_H

#include <stdint.h>

#include "maat/game.h"
#include "referee_cmd.h"

enum { TOUR_ROUND_ROBIN, TOUR_GAUNTLET, TOUR_LADDER };

typedef struct maat_tour_bot {
    char name[64];
    char *command;     /* NULL for a remote bot: */
    char *key, *token; /* its CURVE public key and token (docs/REMOTE.md) */
} maat_tour_bot;

enum { MAAT_KEEP_ALL, MAAT_KEEP_FAILED, MAAT_KEEP_NONE };
/* The directory of every game's record and logs for a ladder file:
 * "x.jsonl" -> "x.games" (malloc'd; NULL when out of memory). */
char *maat_tournament_games_dir(const char *ladder);
/* "all", "failed" or "none" -> MAAT_KEEP_*, or -1. */
int maat_keep_parse(const char *text);

typedef struct maat_tournament {
    char name[64];
    char game[32];
    int seats, matches, format, duplicate, jobs;
    int pin;          /* one CPU per job slot (pin.h) */
    /* Match i is dealt derive(key, its match id) (docs/RNG.md).  The key:
     * the config's "seed" (public: CI, bug reports), else a secret one in
     * key_file, made on the first run and kept for resuming. */
    char seed[MAAT_SEED_TEXT]; /* "" when the config has none */
    char *key_file;            /* "<ladder>.<name>.key" */
    char *ladder;     /* ladder file */
    /* every game's record and bot logs: "<ladder without .jsonl>.games";
     * which matches keep them once played (config "keep", run --keep) */
    char *games_dir;
    int keep;         /* MAAT_KEEP_* */
    char *referee;    /* path of maat-referee */
    char **referee_args; /* extra arguments for every referee */
    int n_referee_args;
    maat_tour_bot *bots;
    int n_bots;
    int hero; /* gauntlet: index of the bot facing the field */
    /* remote bots: where their referees bind, the referees' key pair
     * file, the hello time (config "remote"); their matches run one at a
     * time (one endpoint) */
    char *endpoint, *curve_key;
    int hello_time, n_remote;
} maat_tournament;

/* Load a JSON config; errors name the file and the field. */
int maat_tournament_load(maat_tournament *t, const char *path,
                         maat_error *err);
void maat_tournament_free(maat_tournament *t);

/* The id prefix of match i ("<name>-<i>"); its games are "<prefix>-<k>". */
void maat_tournament_match_id(const maat_tournament *t, int i, char *out,
                              size_t len);
/* The bots (indices) of match i for the static formats; -1 if dynamic. */
int maat_tournament_lineup(const maat_tournament *t, int i, int *bots);
/* argv for the referee of match i with the given lineup, writing to
 * `ladder` (referee_cmd.h).  NULL-terminated; free with maat_argv_free. */
char **maat_tournament_argv(const maat_tournament *t, int i, const int *bots,
                            const char *ladder);

typedef struct maat_run_options {
    int quiet;          /* no progress, no standings */
    int report_every;   /* a progress line per N matches when stderr is not
                           a terminal; 0: about 20 in a run */
    double fault_share; /* faults.h: above it a bot is broken */
} maat_run_options;

/* Play every match not yet complete in the ladder file.  MAAT_EBROKEN when
 * every match was played but a bot is broken (reported on stderr). */
int maat_tournament_run(const maat_tournament *t, const maat_run_options *o,
                        maat_error *err);
/* Print one shell command per match (each to its own shard file in dir). */
int maat_tournament_plan(const maat_tournament *t, const char *shard_dir,
                         FILE *f, maat_error *err);

#endif
