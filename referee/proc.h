/* proc.h -- spawned bot processes: start, watch, capture output, end.
 *
 * A spawned bot runs CMD (exec'd directly when it is plain words, else
 * via `/bin/sh -c`) in its own process group (so the
 * whole tree can be signalled at once), with resource limits, its stdout
 * and stderr going through a pipe the referee drains into a per-seat log
 * file capped in size (a bot that spams output never blocks and never
 * fills the disk), PR_SET_PDEATHSIG so it dies if the referee dies, and
 * oom_score_adj 1000, so that the out-of-memory killer takes bots first.
 *
 * Notes for callers:
 *  - /bin/sh (dash) forks a single command instead of exec'ing it, so the
 *    process watched and timed would be the shell: prefix "exec " to a
 *    simple command (maat-referee does).
 *  - PR_SET_PDEATHSIG fires when the *thread* that spawned dies: spawn from
 *    a thread that lives as long as the referee.
 *  - Reap only through maat_proc_exited/stop (never waitpid(-1)), or the
 *    exit status is lost.
 *  - RLIMIT_NPROC counts every task of the user and root ignores it:
 *    nproc_base, nproc_inside and task_group are the ways around that.
 *  - A core size limit of 0 is always set; the CPU limit is soft N, hard
 *    N+1 (SIGXCPU, then SIGKILL).
 *
 * With a memory limit (maat_proc_limits.memory), or task_group, the bot
 * runs in a cgroup of its own (cgroup.h), which it joins before it execs;
 * stopping the bot also kills whatever is left in it (a process that left
 * the group).
 *
 * Ownership: maat_proc_spawn returns a maat_proc owned by the caller;
 * maat_proc_destroy(&p) stops the group if still running (SIGTERM, then
 * SIGKILL after the grace period), reaps, closes the log, frees, sets p
 * to NULL.  Not thread-safe; one referee thread owns its procs.
 */
#ifndef MAAT_PROC_H
#define MAAT_PROC_H

#include <stdint.h>
#include <sys/types.h>

#include "maat/error.h"

/* A bot's command, in bytes: a longer one is refused (maat-referee's
 * --bot, the match, the sandbox), never cut */
#define MAAT_MAX_COMMAND 4000

typedef struct maat_proc maat_proc;

/* 0 in a field means "no limit" for that field. */
typedef struct maat_proc_limits {
    uint64_t address_space; /* bytes, RLIMIT_AS */
    uint64_t cpu_seconds;   /* RLIMIT_CPU */
    uint64_t processes;     /* RLIMIT_NPROC */
    uint64_t open_files;    /* RLIMIT_NOFILE */
    uint64_t log_cap;       /* bytes kept in the log file */
    uint64_t memory;        /* bytes, all the bot's processes together:
                               a memory cgroup of its own (cgroup.h) */
    int nproc_inside;       /* 1: RLIMIT_NPROC is not set here: the
                               sandbox sets it inside the bot's own user
                               namespace (maat_sandbox_caps_tasks) */
    uint64_t nproc_base;    /* added to `processes` for RLIMIT_NPROC, which
                               counts every task of the user: the tasks
                               it already runs (maat_proc_user_tasks) */
    int task_group;         /* 1: without `memory`, a pids cgroup of its
                               own still caps its tasks at `processes`
                               (for root, whom RLIMIT_NPROC does not bind) */
    int clean_env;          /* 1: none of the referee's environment is
                               inherited, the child gets `env` alone */
} maat_proc_limits;

/* How many tasks (processes and threads) run with real uid `uid`: what
 * RLIMIT_NPROC counts against a process of that user.  From /proc. */
uint64_t maat_proc_user_tasks(uid_t uid);

/* The words of `cmd` when it means the same with or without a shell:
 * blank-separated words of letters, digits and _./,:+@%=- and of text in
 * single quotes (\' a quote), a path first, an "exec" before it dropped.
 * A NULL-terminated argv in one allocation (free it), or NULL: the
 * command needs /bin/sh. */
char **maat_proc_words(const char *cmd);

/* May /bin/sh run `cmd` as "exec CMD", so that the process watched and
 * timed is the bot, not a shell waiting for it?  Only a simple command:
 * no list or pipeline (; & | newline), no subshell or substitution
 * ( ) `, not already "exec", no reserved word or { ! first, and no
 * variable assignment first (FOO=1 bot: exec would take FOO=1 for the
 * program).  Anything else runs as it is, the shell waiting. */
int maat_proc_shell_can_exec(const char *cmd);

/* Start `cmd` in a new process group: a plain command (maat_proc_words)
 * is exec'd directly, anything else via /bin/sh -c.  `env` is a
 * NULL-terminated list of "NAME=value" added to the inherited environment
 * (may be NULL; a later entry of a name wins), or the whole environment
 * when lim->clean_env.  Output goes to `log_path` (created/truncated; NULL means
 * discard).  `cwd` may be NULL.  Returns NULL and fills err on failure
 * (bad log path, fork failure, and a program that cannot be exec'd:
 * "cannot spawn PATH: No such file or directory"); spawn returns only once
 * the child has exec'd. */
maat_proc *maat_proc_spawn(const char *cmd, char *const env[],
                           const char *log_path, const char *cwd,
                           const maat_proc_limits *lim, maat_error *err);

/* maat_proc_spawn with a start gate: the child gets, as descriptor
 * MAAT_PROC_GATE_FD, the read end of a pipe holding one byte, for a
 * wrapper to take once it has done its part -- bubblewrap's --block-fd
 * reads it when the sandbox is set up, just before it runs the bot.
 * maat_proc_gate_passed tells whether the byte was taken: after the
 * process exited (or hung), a byte still there means the wrapper never got
 * as far as the bot, so the failure was the machine's, not the bot's; and
 * the bot, which never holds the pipe (bubblewrap closes it), cannot make
 * its own failure look like one.  `pass_fd`, unless -1, is given to the
 * child as descriptor MAAT_PROC_PASS_FD (the sandbox's system-call filter
 * for bubblewrap's --seccomp); the caller keeps and closes its own. */
#define MAAT_PROC_GATE_FD 4
#define MAAT_PROC_PASS_FD 5
maat_proc *maat_proc_spawn_gated(const char *cmd, char *const env[],
                                 const char *log_path, const char *cwd,
                                 const maat_proc_limits *lim, int pass_fd,
                                 maat_error *err);
/* 1 when the gate's byte was taken, or the process has no gate; 0 when it
 * is still there (it is then read, and the answer stays 0). */
int maat_proc_gate_passed(maat_proc *p);

/* Before wrapping a command (in a sandbox): when it is a plain command
 * whose program is a path, is that an executable file?  MAAT_EIO with
 * "cannot spawn PATH: reason" otherwise; MAAT_OK for shell commands. */
int maat_proc_check_program(const char *cmd, maat_error *err);

pid_t maat_proc_pid(const maat_proc *p);
/* The bot's own process: maat_proc_pid, or after maat_proc_follow_wrapper
 * the process it found at the end of the wrapper's chain. */
pid_t maat_proc_bot_pid(const maat_proc *p);
/* The bot's process group: maat_proc_pid's, or the one the bot found by
 * maat_proc_follow_wrapper is in (a wrapper may make one: setsid). */
pid_t maat_proc_bot_pgid(const maat_proc *p);

/* The read end of the output pipe, for poll(); -1 once closed (EOF). */
int maat_proc_output_fd(const maat_proc *p);
/* Read the output available without blocking (at most 4 MiB per call, so a
 * flooding bot cannot hold the referee); write it to the log until log_cap
 * bytes, then discard ("[maat: log truncated at N bytes]" marks the cut).
 * Without a log path output is read and dropped but not counted as dropped.
 * Returns bytes read this call. */
size_t maat_proc_drain(maat_proc *p);
/* The first lines (at most max_lines, from the first 1 KiB) the bot wrote
 * to stdout or stderr, kept with or without a log, as one line for a
 * message: lines joined by " | ", ASCII controls as '?' (a tab as a
 * blank), bytes from 0x80 as they are -- the caller makes the whole
 * message safe (maat_text_sanitize) --, cut to fit `len`.  "" if it wrote nothing (yet: drain first). */
void maat_proc_output_head(const maat_proc *p, int max_lines, char *buf,
                           size_t len);
/* Prefix each line logged from now on with "TAG<tab>" (tag >= 0; the
 * referee passes the index of the decision being played), or nothing
 * (tag < 0, the default).  docs/REPLAY.md reads this format. */
void maat_proc_set_tag(maat_proc *p, long tag);
/* Drain what is waiting into the current log, then log into `log_path`
 * from now on (created/truncated; NULL: discard), with a fresh cap. */
int maat_proc_set_log(maat_proc *p, const char *log_path, maat_error *err);
/* Total bytes the bot wrote, and how many were dropped by the cap. */
uint64_t maat_proc_output_bytes(const maat_proc *p);
uint64_t maat_proc_dropped_bytes(const maat_proc *p);

/* How many processes the kernel's out-of-memory killer has killed on this
 * machine since it booted (/proc/vmstat oom_kill; 0 when unknown). */
uint64_t maat_proc_machine_oom_kills(void);

/* Has the main process exited?  Non-blocking (waitid WNOHANG).  Returns 1
 * and fills *status (waitpid format) once it has; 0 while it runs.  Found
 * dead, the process is reaped after its group is killed (what is left of
 * a bot that is gone), since the reaped number may go to any process. */
int maat_proc_exited(maat_proc *p, int *status);
/* Human-readable exit description, e.g. "exited with status 3" or
 * "killed by signal 11 (Segmentation fault)". */
void maat_proc_describe_exit(int status, char *buf, size_t len);

/* With a memory limit: how many of the bot's processes the kernel killed
 * for reaching it, and the most it used at once (bytes); else 0. */
uint64_t maat_proc_oom_kills(const maat_proc *p);
uint64_t maat_proc_memory_peak(const maat_proc *p);

/* CPU time (user + system) used so far by the main process, in
 * nanoseconds, measured via clock_getcpuclockid; after exit, the rusage
 * total of the process and its reaped children.  0 if unavailable. */
uint64_t maat_proc_cpu_ns(maat_proc *p);

/* The bot runs under a wrapper (bubblewrap and its PID namespace's init):
 * time the process at the end of the chain of only children instead.  Call
 * once the bot has started (e.g. said hello). */
void maat_proc_follow_wrapper(maat_proc *p);

/* SIGTERM the whole process group; wait up to grace_ms for it to exit;
 * then SIGKILL the group and reap.  Also kills any group members left after
 * the main process exited.  Safe to call twice. */
void maat_proc_stop(maat_proc *p, int grace_ms);

void maat_proc_destroy(maat_proc **p);

#endif
