/* match.h -- one match (a series of one or more games) between bots.
 *
 * The match knows no game: it asks the game module whose decision it is,
 * sends that seat its observation, the events it may see and the legal
 * actions, waits for an answer against the clock, and applies it if the
 * rules accept it.  Everything a bot does wrong becomes a fault recorded
 * against its seat, handled by the policy for that fault's kind; the other
 * seats play on undisturbed.
 */
#ifndef MAAT_MATCH_H
#define MAAT_MATCH_H

#include <stdint.h>

#include "maat/game.h"
#include "outcome.h"
#include "proc.h"


/* A policy per fault kind: 0 = forfeit (the seat is out at once), N > 0 =
 * strikes:N (a default action is played; the seat is out at the N-th). */
typedef struct maat_fault_policy {
    int strikes[MAAT_FAULT_KINDS];
} maat_fault_policy;

typedef struct maat_clock_config {
    int64_t decision_ms;  /* per decision */
    int64_t first_ms;     /* a bot's first decision of the match */
    int64_t bank_ms;      /* time bank at the start of each game */
    int64_t increment_ms; /* added to the bank after each decision */
    int64_t grace_ms;     /* transport slack, not shown to bots */
    int64_t hello_ms;     /* from start until every bot said hello */
    /* credit a late decision with the time the referee's threads, or a
     * starved bot's, waited for a CPU past the limit (fairclock.h), up to
     * the decision's own time plus grace again; 0 = off */
    int wait_credit;
} maat_clock_config;

typedef struct maat_bot_spec {
    const char *name;
    const char *command; /* spawned with /bin/sh -c; NULL = remote */
    const char *token;   /* remote bots: the token it must present */
    const char *curve_key; /* remote bots with CURVE: its Z85 public key */
} maat_bot_spec;

#define MAAT_MAX_HIDE 32
#define MAAT_MAX_BOT_ENV 32 /* --bot-env specs */
#define MAAT_MAX_PRIVATE 16 /* --private NAME=DIR */
typedef struct maat_match_config {
    const maat_rules *rules;
    maat_options options; /* game options, e.g. deck */
    /* The match's seed (docs/RNG.md): the deal of game 0, and of every
     * game with same_deal; else game k plays derive(seed, "game k").  The
     * seat shuffle is derive(seed, "seats").  No bot ever receives it or
     * anything computed from it before its game ends. */
    maat_seed seed;
    int seed_weak;   /* it comes from a short key: easy to guess */
    const char *seed_file; /* where it was read from (a secret to keep
                              from bots), or NULL */
    int games;       /* games in the series */
    int same_deal;   /* every game uses `seed` (duplicate) */
    int fixed_seats; /* bot i sits in seat i in game 0; else seeded shuffle */
    /* New bot processes (and tokens) for every game: nothing a bot saw in
     * one game survives in its memory to the next.  Else the same
     * processes play the whole series. */
    int fresh_bots;
    maat_bot_spec bots[MAAT_MAX_SEATS];
    int n_bots;
    const char *endpoint; /* NULL: a private ipc:// socket */
    void *zmq_context;    /* NULL: the match's own; else borrowed, for
                             inproc:// endpoints in one process (tests) */
    /* CURVE: the referee's Z85 key pair (NULL: no encryption).  Remote
     * bots must then connect with the key in their spec; spawned bots get
     * a fresh key pair each in their environment. */
    const char *curve_public, *curve_secret;
    maat_clock_config clock;
    maat_fault_policy policy;
    maat_proc_limits limits;
    int sandbox; /* run spawned bots under bubblewrap (docs/REFEREE.md) */
    uint64_t sandbox_tmp_mb;     /* size of each sandbox's private /tmp */
    const char *hide[MAAT_MAX_HIDE]; /* more paths sandboxed bots must not
                                        see (a tournament's state) */
    int n_hide;
    /* hide from each sandboxed bot the directories the other seats'
     * commands name below the working directory (sandbox.h) */
    int private_dirs;
    /* --private NAME=DIR: directory DIR is seen by bot NAME's sandbox only,
     * even inside a hidden directory; every other sandboxed bot finds it
     * empty, and one whose command names it is refused (sandbox.h) */
    const char *private_owner[MAAT_MAX_PRIVATE];
    const char *private_dir[MAAT_MAX_PRIVATE];
    int n_private;
    /* --bot-env specs (botenv.h): what a sandboxed bot gets of the
     * referee's environment beyond the few it always does */
    const char *bot_env[MAAT_MAX_BOT_ENV];
    int n_bot_env;
    int ponder;  /* idle bots keep full priority while another decides */
    const char *log_dir;     /* per-bot logs; NULL: discard bot output */
    const char *ladder_path; /* append one line per finished game */
    const char *ladder_final; /* the ladder the lines end up in, when
                                 ladder_path is where they wait first
                                 (--ladder-final): record and log paths
                                 relative to its directory; NULL: ladder_path */
    const char *record_path; /* game record; games > 1 add "-<k>" */
    int record_timing;       /* include wall/CPU times in the record */
    const char *match_id;    /* NULL: a keyed hash of seed, game and bots */
    int verbose;
    int quiet;
} maat_match_config;

/* The defaults documented in README and docs/REFEREE.md. */
void maat_match_config_init(maat_match_config *c);

/* Parse "forfeit" or "strikes:N" into *strikes. */
int maat_fault_policy_parse(const char *text, int *strikes);

/* Play the match.  Returns MAAT_OK when every game finished (faults or
 * not); MAAT_EIO etc. with err filled when the match could not be held;
 * MAAT_ESTATE when interrupted by SIGINT/SIGTERM (no result written for
 * the unfinished game); MAAT_EHOST when a bot's sandbox could not be made
 * (the machine's failure: no result written for the game).  Every bot
 * process is gone when this returns.
 *
 * What it does to the whole process, so that an embedder knows: SIGINT,
 * SIGTERM, SIGHUP and SIGCHLD are blocked in the calling thread while it
 * runs (read through a signalfd; the mask is restored on return);
 * SIGPIPE is ignored, and stays so (a bot that closed its end must not
 * kill the referee); the soft RLIMIT_NOFILE is raised to the hard limit,
 * and stays so (libzmq 4.3 aborts the process when an ipc:// accept finds
 * no descriptor, and bots cannot be stopped from connecting).  Bots get
 * neither: their limits and signal dispositions are set when they start
 * (proc.h). */
int maat_match_run(const maat_match_config *c, maat_error *err);

#endif
