/* referee_cmd.h -- the one place in maat-ladder that builds a maat-referee
 * command line and starts it.  `run`, `plan`, `demo` and `compare` all go
 * through here, so every referee they start gets the same options in the
 * same order (docs/LADDER.md lists them).
 */
#ifndef MAAT_REFEREE_CMD_H
#define MAAT_REFEREE_CMD_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "maat/error.h"
#include "maat/game.h"

/* More than this many referee_args in a config is a mistake, not a need. */
#define MAAT_MAX_REFEREE_ARGS 256

typedef struct maat_referee_cmd {
    const char *referee;   /* path of maat-referee; NULL: "maat-referee" */
    const char *game;
    /* The match's seed is derive(key, seed_label) (docs/RNG.md): the key
     * is `seed` (a public one, e.g. from a config) or read by the referee
     * from `seed_file` (a secret one), so a secret key is never on a
     * command line. */
    const char *seed, *seed_file, *seed_label;
    int duplicate;         /* one deal once per seat rotation: --games
                              SEATS --same-deal --fixed-seats --fresh-bots
                              (new bot processes for every game); see the
                              remote seats below */
    const char *match_id;  /* games are MATCH_ID-0, MATCH_ID-1, ... */
    const char *ladder;    /* the file the referee appends to */
    const char *ladder_final; /* where those lines are moved later, whose
                                 folder their paths are relative to
                                 (--ladder-final); NULL: `ladder` */
    const char *log_dir;   /* the bots' stdout/stderr; NULL: discarded */
    const char *games_dir; /* every game's record and bot logs, kept as
                              DIR/MATCH_ID[-K].json and DIR/MATCH_ID-K-BOT.log
                              (overrides log_dir); NULL: none */
    const char *hide[3];   /* more paths sandboxed bots must not see
                              (--hide each); NULL entries: none */
    int seats;
    const char *name[MAAT_MAX_SEATS], *command[MAAT_MAX_SEATS]; /* by seat */
    /* A remote seat (docs/REMOTE.md) has a token instead of a command:
     * --remote NAME=TOKEN --allow-key NAME=KEY, with the match's
     * --endpoint, --curve-key (the referee's key pair file) and
     * --hello-time (if > 0).  A remote process cannot be restarted between
     * the games of a duplicate set and would remember the deal, so with a
     * remote seat `duplicate` rotates the seats over a new deal per game
     * (--games SEATS --fixed-seats) instead. */
    const char *token[MAAT_MAX_SEATS], *key[MAAT_MAX_SEATS];
    const char *endpoint, *curve_key;
    int hello_time;
    int sandbox_checked;   /* --sandbox-checked: the ladder found bubblewrap
                              working (maat_referee_sandbox_check) */
    char *const *extra;    /* more referee options, last (may override) */
    int n_extra;
} maat_referee_cmd;

/* The NULL-terminated argv; NULL when out of memory.  maat_argv_free. */
char **maat_referee_argv(const maat_referee_cmd *c);
void maat_argv_free(char **argv);

/* Once per run, before starting referees whose options end with `extra`:
 * 1 when they will sandbox their bots (no --no-sandbox last among the
 * sandbox options of `extra`, MAAT_SANDBOX not off) and bubblewrap works
 * here, so they need not each check (--sandbox-checked, a few
 * milliseconds per referee); else 0, and each referee decides alone --
 * when bubblewrap does not work, after a warning on stderr, `who` first:
 * the referees run --quiet, so theirs would reach no one. */
int maat_referee_sandbox_check(const char *who, char *const *extra,
                               int n_extra);

/* Run as root, each referee caps its bots' tasks at --limit-nproc with a
 * pids cgroup (RLIMIT_NPROC does not bind root), and warns when it cannot
 * -- but the ladder's referees run --quiet.  So the ladder tries one such
 * group once, in a child of its own as each referee is, and says on stderr (naming `who`, e.g.
 * "maat-ladder run") when --limit-nproc (of `extra`, else 64) will not be
 * enforced.  Nothing when not root, with --limit-mem in `extra` (whose
 * cgroups the referees require), or --limit-nproc 0. */
void maat_referee_task_cap_check(const char *who, char *const *extra,
                                 int n_extra);

/* fork + exec argv in a child that restores SIGINT/SIGTERM to their
 * defaults, blocks no signal (a parent may block them for signalfd) and,
 * when cpu >= 0, runs on that CPU alone with the bots it starts (pin.h;
 * `match` names the match in a pinning error).  Unless `outlive`, the
 * referee gets SIGTERM when the calling process dies, even SIGKILLed (a
 * tournament's referee left playing would write lines while the next run
 * plays its match again; a league's referees finish their matches, which
 * its restart counts: docs/LEAGUE.md); an outliving referee is also in a
 * process group of its own, so a terminal's Ctrl-C does not reach it.
 * Returns the pid, or -1 if fork
 * failed.  A failed exec exits the child with 127 after "maat-ladder:
 * cannot run PATH: why" on stderr. */
pid_t maat_referee_start(char **argv, int cpu, const char *match,
                         int outlive);

/* While referees run: SIGINT and SIGTERM call `on_stop` (which sets a
 * flag), and SIGINT, SIGTERM and SIGCHLD are blocked except inside
 * sigsuspend(&s->waiting), which unblocks them and waits in one step: a
 * signal that comes after the flag was looked at is pending, not lost (a
 * blocking waitpid after the look would sleep through it until some
 * referee ended).  maat_signals_restore puts back what was there. */
typedef struct maat_signals {
    struct sigaction old_int, old_term, old_chld;
    sigset_t outside, waiting;
} maat_signals;
void maat_signals_catch(maat_signals *s, void (*on_stop)(int));
void maat_signals_restore(maat_signals *s);

/* A config's "referee_args" (absent, or an array of at most
 * MAAT_MAX_REFEREE_ARGS strings) into a new NULL-terminated array of
 * copies, *n of them; free both with maat_referee_args_free.  Errors name
 * the config file `path` and the field or the element at fault. */
int maat_referee_args_parse(const json_t *args, const char *path,
                            char ***out, int *n, maat_error *err);
void maat_referee_args_free(char ***args, int *n);

#endif
