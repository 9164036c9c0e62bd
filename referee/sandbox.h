/* sandbox.h -- running a bot under bubblewrap (docs/REFEREE.md, --sandbox).
 */
#ifndef MAAT_SANDBOX_H
#define MAAT_SANDBOX_H

#include <stddef.h>

#include <stdint.h>

#include "maat/error.h"

/* What one bot's sandbox is made of. */
typedef struct maat_sandbox {
    const char *socket_path; /* the seat's socket file: the only one seen */
    const char *const *hide; /* absolute paths to hide; NULL-terminated */
    uint64_t tmp_bytes;      /* size of the private /tmp (0: tmpfs default) */
    /* the other seats' bot commands (NULL-terminated, or NULL): the
     * directories they name under the working directory are hidden */
    const char *const *others;
    /* --private: the directories this bot owns, bound back read-only after
     * every hidden path (so one may sit in a hidden directory), and those
     * other bots own, hidden; absolute and resolved, NULL-terminated, or
     * NULL.  A hidden path this bot's command names inside `own` does not
     * count as needed. */
    const char *const *own;
    const char *const *not_own;
    /* the host's Unix socket files (maat_sandbox_host_sockets), or NULL:
     * each one the bot could otherwise reach is covered */
    const char *const *host_sockets;
    /* > 0: the bot's tasks (processes and threads) are capped at this
     * inside the sandbox, where they are counted in its own user
     * namespace, by the `prlimit` program at this path
     * (maat_sandbox_caps_tasks) */
    uint64_t tasks;
    const char *prlimit;
} maat_sandbox;

/* Can the sandbox cap a bot's tasks itself?  RLIMIT_NPROC counts every
 * task of the user, so set before bubblewrap it is a budget the bot
 * shares with all the user's other processes (a desktop has hundreds:
 * then no bot could even make its namespaces).  Set inside the sandbox,
 * after bubblewrap made the bot's user namespace, it counts the bot's own
 * tasks alone: the sandbox's command then starts the bot through
 * util-linux's prlimit.  1 when that works here, its path in `prlimit`
 * (len bytes): not root (whose tasks no RLIMIT_NPROC bounds; cgroup.h),
 * and prlimit on PATH. */
int maat_sandbox_caps_tasks(char *prlimit, size_t len);

/* The Unix socket files on this host that listen or take datagrams (its
 * network namespace's /proc/net/unix), resolved, each once, at most
 * MAAT_SANDBOX_MAX_SOCKETS (any past those go uncovered):
 * a read-only mount does not stop connect(), so a sandboxed bot could
 * talk to any daemon listening outside /run and /tmp (LXD under /var/snap,
 * a database) with the referee's user's rights.  A NULL-terminated array owned by the caller (free with
 * maat_sandbox_sockets_free); an empty one when /proc/net/unix cannot be
 * read; NULL only when out of memory. */
#define MAAT_SANDBOX_MAX_SOCKETS 1024
char **maat_sandbox_host_sockets(void);
void maat_sandbox_sockets_free(char ***list);

/* Would hiding directory `dir` (absolute, resolved) hide what `cmd` needs:
 * the working directory, or a file or directory the command names? */
int maat_sandbox_needs(const char *dir, const char *cmd);

/* Does bubblewrap work here: can it make the namespaces the sandbox needs
 * (PID, network) and run a program in them?  Runs `bwrap ... true` once,
 * without a shell (a few milliseconds): maat-referee asks before its
 * first bot unless told the answer (--sandbox-checked), and maat-ladder
 * asks once for all the referees of a run. */
int maat_sandbox_works(void);

/* The system-call filter a sandboxed bot runs under, compiled (BPF) into a
 * new descriptor to give bubblewrap's --seccomp, which reads it to its end
 * (so one descriptor a bot; close it after the spawn): setsid and setpgid
 * fail with EPERM, so every process a bot starts stays in the process
 * group the referee lowers while others decide (nice 19) and whose CPU the
 * fair clock counts.  -1 with err when libseccomp cannot make it. */
int maat_sandbox_filter_open(maat_error *err);

/* Write into out (len bytes) the command that runs `cmd` in a bubblewrap
 * sandbox (quoted words only, so that proc.c runs it without /bin/sh when
 * bwrap is on PATH; `cmd` runs without a shell inside when it needs none):
 * the whole file system read-only, a private /tmp of tmp_bytes, no
 * network, no System V IPC, no terminal, its own PID namespace (it sees
 * no other process: not the referee, not the other bots); every process
 * in it dies with the sandbox, and the sandbox with the referee.  The seat's socket file is mounted read-only; each path in
 * `hide` that exists is replaced by an empty directory or file, except a
 * directory holding the working directory or a path the command names
 * (the first such entry in *unhidden, else NULL: the caller decides
 * whether the match may be played so).  So is each directory below the
 * working directory that another seat's command names (a program's or a
 * file's directory, or a directory), unless this command needs it too:
 * no entrant reads another's program or weights.  Then each of
 * `not_own` is hidden too, and each of `own` bound back read-only.
 * Each of `host_sockets` the bot would see is covered by /dev/null, unless
 * the command names it or it is another referee's.  With `tasks`, the
 * command starts under prlimit --nproc (maat_sandbox_caps_tasks).
 * bubblewrap waits for the start gate's byte
 * and reads the filter from descriptor MAAT_PROC_PASS_FD (proc.h): run
 * the command with maat_proc_spawn_gated and maat_sandbox_filter_open's
 * descriptor.  -1
 * when socket_path is NULL or the result does not fit. */
int maat_sandbox_command(const maat_sandbox *sb, const char *cmd, char *out,
                         size_t len, const char **unhidden);

#endif
