/* bots.c -- bot lifecycle: start, hello, watch, stop.
 *
 * Owns the bots' processes for one match: each spawned bot gets the
 * endpoint, its seat's secret token and its name in its environment (and a
 * CURVE key pair when encryption is on) -- in the sandbox on top of a few
 * of the referee's variables only (botenv.h) --, runs with resource limits --
 * inside a sandbox with --sandbox (sandbox.c) -- and has its output drained
 * into its log.  Remote bots are only waited for.  At the end every process
 * a bot started is stopped, including descendants that left its process
 * group.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maat/internal/msg.h"
#include "match_state.h"
#include <dirent.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "botenv.h"
#include "record.h"
#include "sandbox.h"

extern char **environ;

static void random_token(char *out, size_t hexlen)
{
    uint8_t raw[32];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    ssize_t got = fd >= 0 ? read(fd, raw, sizeof raw) : -1;
    if (fd >= 0)
        close(fd);
    if (got != (ssize_t)sizeof raw) { /* never expected; still unique */
        uint64_t x = (uint64_t)maat_now_ns() ^ (uint64_t)getpid();
        for (size_t i = 0; i < sizeof raw; i++)
            raw[i] = (uint8_t)((x = x * 6364136223846793005ULL + 1) >> 56);
    }
    for (size_t i = 0; i < hexlen / 2 && i < sizeof raw; i++)
        snprintf(out + 2 * i, 3, "%02x", raw[i]);
}

static int unhideable(match *m, const char *dir, const match_bot *b,
                      maat_error *err);

/* Spawn one bot's command: its environment is the variables botenv.c
 * lets through, then the seat's own (`seat`, which win).  `tasks_inside`:
 * the sandbox's command caps its tasks itself (maat_sandbox_caps_tasks). */
static maat_proc *spawn_bot(const maat_match_config *c, const char *cmd,
                            char *const seat[], const char *log,
                            int tasks_inside, maat_error *err)
{
    char **env = maat_botenv_make(environ, c->sandbox,
                                  (const char *const *)c->bot_env,
                                  c->n_bot_env, seat);
    if (!env) {
        maat_error_set(err, MAAT_ENOMEM, "out of memory");
        return NULL;
    }
    maat_proc_limits lim = c->limits;
    lim.clean_env = 1; /* env is all of it */
    lim.nproc_inside = tasks_inside;
    /* RLIMIT_NPROC counts all the user's tasks: without the sandbox's own
     * count, --limit-nproc is on top of those the user runs already (or
     * a desktop's hundreds would leave a bot no thread to start) */
    if (!c->sandbox && lim.processes && geteuid() != 0)
        lim.nproc_base = maat_proc_user_tasks(getuid());
    maat_proc *p = NULL;
    if (c->sandbox) {
        int filter = maat_sandbox_filter_open(err);
        p = filter < 0 ? NULL
                       : maat_proc_spawn_gated(cmd, env, log, NULL, &lim,
                                               filter, err);
        if (filter >= 0)
            close(filter);
    } else {
        p = maat_proc_spawn(cmd, env, log, NULL, &lim, err);
    }
    free(env);
    return p;
}

/* Start every bot, for game `game` of the series (its logs), the host's
 * Unix sockets in `host_sockets` (or NULL) and each sandbox's command
 * written in `boxed` (MATCH_BOXED_MAX bytes). */
static int start_bots_with(match *m, int game, char **host_sockets,
                           char *boxed, maat_error *err)
{
    const maat_match_config *c = m->c;
    char prlimit[PATH_MAX];
    int tasks_inside = c->sandbox && c->limits.processes &&
                       maat_sandbox_caps_tasks(prlimit, sizeof prlimit);
    for (int i = 0; i < m->n; i++) {
        match_bot *b = &m->bot[i];
        b->spec = &c->bots[i];
        b->outstanding = b->last_answered = b->last_timed_out = -1;
        if (b->spec->token)
            snprintf(b->token, sizeof b->token, "%s", b->spec->token);
        else
            random_token(b->token, 32);
        if (!b->spec->command) {
            if (c->curve_secret &&
                maat_transport_allow(m->tr, b->spec->name, b->spec->curve_key
                                     ? b->spec->curve_key : "", err))
                return maat_error_set(err, MAAT_EINVAL, "remote bot %s needs "
                                      "its CURVE public key (--allow-key "
                                      "%s=KEY): %s", b->spec->name,
                                      b->spec->name, err->msg);
            match_say(m, "waiting for remote bot %s at %s", b->spec->name,
                maat_transport_endpoint(m->tr));
            continue;
        }
        /* with CURVE, a fresh key pair per spawned bot */
        char pub[41] = "", sec[41] = "", env_sk[80], env_pk[80], env_ss[80];
        if (c->curve_secret) {
            if (zmq_curve_keypair(pub, sec) != 0)
                return maat_error_set(err, MAAT_EIO, "cannot make a CURVE "
                                      "key pair for %s", b->spec->name);
            if (maat_transport_allow(m->tr, b->spec->name, pub, err)) {
                char why[sizeof err->msg];
                snprintf(why, sizeof why, "%s", err->msg);
                return maat_error_set(err, MAAT_EIO, "bot %s: %s",
                                      b->spec->name, why);
            }
        }
        snprintf(env_sk, sizeof env_sk, "MAAT_CURVE_SERVERKEY=%s",
                 c->curve_public ? c->curve_public : "");
        snprintf(env_pk, sizeof env_pk, "MAAT_CURVE_PUBLICKEY=%s", pub);
        snprintf(env_ss, sizeof env_ss, "MAAT_CURVE_SECRETKEY=%s", sec);
        char env_ep[600], env_tok[100], env_name[200], log[512];
        snprintf(env_ep, sizeof env_ep, "%s=%s", MAAT_ENV_ENDPOINT,
                 maat_transport_endpoint(m->tr));
        snprintf(env_tok, sizeof env_tok, "%s=%s", MAAT_ENV_TOKEN, b->token);
        snprintf(env_name, sizeof env_name, "%s=%s", MAAT_ENV_NAME,
                 b->spec->name);
        char *env[] = {env_ep, env_tok, env_name, NULL, NULL, NULL, NULL};
        if (c->curve_secret) {
            env[3] = env_sk;
            env[4] = env_pk;
            env[5] = env_ss;
        }
        /* A simple command is exec'd by the shell, so the process we watch
         * (and time) is the bot itself, not a waiting /bin/sh. */
        char cmd[9000];
        snprintf(cmd, sizeof cmd, "%s%s",
                 maat_proc_shell_can_exec(b->spec->command) ? "exec " : "",
                 b->spec->command);
        if (c->sandbox) {
            if (maat_proc_check_program(b->spec->command, err)) {
                char why[sizeof err->msg];
                snprintf(why, sizeof why, "%s", err->msg);
                return maat_error_set(err, MAAT_EIO, "bot %s: %s",
                                      b->spec->name, why);
            }
            const char *sock = maat_transport_add_seat_endpoint(m->tr, err);
            if (!sock)
                return err->code;
            snprintf(env_ep, sizeof env_ep, "%s=ipc://%s", MAAT_ENV_ENDPOINT,
                     sock);
            const char *unhidden = NULL;
            /* --private-dirs: the other seats' commands name what to hide */
            const char *others[MAAT_MAX_SEATS + 1];
            int k = 0;
            for (int j = 0; c->private_dirs && j < m->n; j++)
                if (j != i && c->bots[j].command)
                    others[k++] = c->bots[j].command;
            others[k] = NULL;
            /* --private: its own directories and the others' */
            const char *own[MAAT_MAX_PRIVATE + 1], *not_own[MAAT_MAX_PRIVATE + 1];
            int n_own = 0, n_not = 0;
            for (int j = 0; j < c->n_private; j++) {
                const char *d = m->private_buf[j];
                if (!d[0]) /* could not be named: checked at start */
                    continue;
                if (!strcmp(c->private_owner[j], b->spec->name)) {
                    own[n_own++] = d;
                    continue;
                }
                if (maat_sandbox_needs(d, b->spec->command))
                    return maat_error_set(err, MAAT_EINVAL, "bot %s: its "
                                          "command names %s, which --private "
                                          "gives to %s only", b->spec->name,
                                          d, c->private_owner[j]);
                not_own[n_not++] = d;
            }
            own[n_own] = not_own[n_not] = NULL;
            maat_sandbox sb = {sock, (const char *const *)m->hide,
                               c->sandbox_tmp_mb << 20, others, own, not_own,
                               (const char *const *)host_sockets,
                               tasks_inside ? c->limits.processes : 0,
                               tasks_inside ? prlimit : NULL};
            if (maat_sandbox_command(&sb, b->spec->command, boxed,
                                     MATCH_BOXED_MAX, &unhidden))
                return maat_error_set(err, MAAT_EINVAL, "bot %s: its command "
                                      "is too long for the sandbox (4000 "
                                      "bytes at most, with the paths it "
                                      "must hide)", b->spec->name);
            if (unhidden && unhideable(m, unhidden, b, err))
                return err->code;
            /* what the bot will see, for an organiser checking a layout
             * (no secret in it: the token is in the environment) */
            if (c->verbose)
                match_say(m, "bot %s runs as: %s", b->spec->name, boxed);
        }
        if (c->log_dir)
            match_log_path(m, b, game, log, sizeof log);
        b->proc = spawn_bot(c, c->sandbox ? boxed : cmd, env,
                            c->log_dir ? log : NULL, tasks_inside, err);
        if (!b->proc) {
            char why[sizeof err->msg];
            snprintf(why, sizeof why, "%s", err->msg);
            return maat_error_set(err, err->code ? err->code : MAAT_EIO,
                                  "bot %s: %s", b->spec->name, why);
        }
    }
    return MAAT_OK;
}

/* start_bots_with, the host's sockets read once for all the seats */
static int start_bots(match *m, int game, maat_error *err)
{
    char **host_sockets = NULL, *boxed = NULL;
    if (m->c->sandbox && (!(host_sockets = maat_sandbox_host_sockets()) ||
                          !(boxed = malloc(MATCH_BOXED_MAX)))) {
        maat_sandbox_sockets_free(&host_sockets);
        return maat_error_set(err, MAAT_ENOMEM, "out of memory starting "
                              "the bots");
    }
    int rc = start_bots_with(m, game, host_sockets, boxed, err);
    maat_sandbox_sockets_free(&host_sockets);
    free(boxed);
    return rc;
}

int match_start_bots(match *m, maat_error *err)
{
    return start_bots(m, 0, err);
}

/* A sandboxed bot that never said hello, whose bubblewrap never took the
 * start gate's byte (proc.h), never ran: the sandbox could not be made
 * (bubblewrap gone, user namespaces refused or used up...).  That is the
 * machine's failure, not the bot's: the match stops with an error, no
 * result written, and maat-ladder plays it again on its next run. */
static int sandbox_failed(match *m, maat_error *err)
{
    for (int i = 0; i < m->n; i++) {
        match_bot *b = &m->bot[i];
        if (!m->c->sandbox || b->connected || !b->proc ||
            maat_proc_gate_passed(b->proc))
            continue;
        char head[64] = ""; /* short: the advice must fit after it */
        int status, stopped = maat_proc_exited(b->proc, &status);
        maat_proc_drain(b->proc);
        maat_proc_output_head(b->proc, 2, head, sizeof head);
        maat_text_sanitize(head);
        return maat_error_set(err, MAAT_EHOST, "bot %s: the sandbox could not "
                              "be made, the machine's failure, not the "
                              "bot's: no result written (bubblewrap %s%s%s);"
                              " check 'bwrap --ro-bind / / true', then play "
                              "the match again", b->spec->name, stopped ?
                              "stopped" : "had not started the bot in time",
                              *head ? ": " : "", head);
    }
    return MAAT_OK;
}

int match_await_hellos(match *m, maat_error *err)
{
    int64_t deadline = maat_now_ns() + m->c->clock.hello_ms * 1000000;
    for (;;) {
        int waiting = 0;
        for (int i = 0; i < m->n; i++)
            waiting += !m->bot[i].connected && !m->bot[i].dead;
        if (!waiting || m->interrupted || maat_now_ns() >= deadline)
            break;
        match_wait_input(m, deadline);
    }
    for (int i = 0; i < m->n; i++) {
        match_bot *b = &m->bot[i];
        if (!b->connected && !b->dead) {
            b->dead = 1;
            b->dead_kind = MAAT_FAULT_NO_HELLO;
            snprintf(b->dead_detail, sizeof b->dead_detail,
                     "no hello within %lld ms",
                     (long long)m->c->clock.hello_ms);
            match_say(m, "%s: %s", b->spec->name, b->dead_detail);
        }
    }
    return sandbox_failed(m, err);
}

/* Check every spawned bot for exit; a bot that exits is gone. */
void match_check_processes(match *m)
{
    for (int i = 0; i < m->n; i++) {
        match_bot *b = &m->bot[i];
        int status;
        if (!b->proc)
            continue;
        maat_proc_drain(b->proc);
        if (!b->dead && maat_proc_exited(b->proc, &status)) {
            char how[96];
            maat_proc_describe_exit(status, how, sizeof how);
            b->dead = 1;
            b->dead_kind = b->connected ? MAAT_FAULT_CRASH
                                        : MAAT_FAULT_NO_HELLO;
            char head[320] = "";
            if (!b->connected) { /* could not start: show why */
                maat_proc_drain(b->proc);
                maat_proc_output_head(b->proc, 5, head, sizeof head);
                maat_text_sanitize(head);
            }
            /* killed by the kernel at --limit-mem: say so, or it reads
             * as a bot that crashed on its own */
            char oom[200] = "";
            /* a sandboxed bot's signal comes back from bubblewrap as an
             * exit status of 128 + N */
            int sig = WIFSIGNALED(status) ? WTERMSIG(status)
                      : m->c->sandbox && WIFEXITED(status) &&
                        WEXITSTATUS(status) > 128 &&
                        WEXITSTATUS(status) < 128 + 65
                          ? WEXITSTATUS(status) - 128 : 0;
            uint64_t machine_ooms = sig == SIGKILL ?
                maat_proc_machine_oom_kills() - m->machine_ooms : 0;
            if (maat_proc_oom_kills(b->proc))
                snprintf(oom, sizeof oom, " (out of memory: all its "
                         "processes reached --limit-mem %llu MB)",
                         (unsigned long long)(m->c->limits.memory >> 20));
            else if (machine_ooms)
                snprintf(oom, sizeof oom, " (killed by signal 9: the "
                         "kernel's out-of-memory killer killed %llu "
                         "process%s on this machine during the match, which "
                         "ran out of memory, not necessarily for this bot)",
                         (unsigned long long)machine_ooms,
                         machine_ooms == 1 ? "" : "es");
            else if (sig && !WIFSIGNALED(status))
                snprintf(oom, sizeof oom, " (killed by signal %d, %s)", sig,
                         strsignal(sig));
            snprintf(b->dead_detail, sizeof b->dead_detail,
                     "the bot process %s%s%s%s", how, oom,
                     *head ? " before saying hello; its output began: " : "",
                     head);
            if (m->g && !b->out)
                match_fault(m, b, b->dead_kind, "%s", b->dead_detail);
        }
    }
}

/* Does /proc/PID/environ hold one of this match's "MAAT_TOKEN=<token>"? */
static int has_token(const match *m, const char *pid)
{
    char path[64], env[65536];
    snprintf(path, sizeof path, "/proc/%s/environ", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, env, sizeof env - 1);
    close(fd);
    if (n <= 0)
        return 0;
    env[n] = 0;
    for (int i = 0; i < m->n; i++) {
        if (!m->bot[i].spec || !m->bot[i].spec->command)
            continue; /* not started (a spawn failed), or remote: not ours */
        char want[MAAT_MAX_TOKEN + 16];
        int len = snprintf(want, sizeof want, "%s=%s", MAAT_ENV_TOKEN,
                           m->bot[i].token);
        for (ssize_t k = 0; k + len <= n; k += (ssize_t)strlen(env + k) + 1)
            if (memcmp(env + k, want, (size_t)len + 1) == 0)
                return 1;
    }
    return 0;
}

/* A bot's descendant can leave its process group (setsid) and so escape
 * the group kill.  It still carries its seat's secret token in its
 * environment, which nothing else on the machine has: kill by that,
 * rescanning until a pass finds none (a process may fork meanwhile). */
static void kill_by_token(match *m)
{
    for (int round = 0; round < 20; round++) {
        DIR *d = opendir("/proc");
        int found = 0;
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] < '1' || e->d_name[0] > '9' ||
                atoi(e->d_name) == getpid())
                continue;
            /* The process is pinned before its environment is read, and
             * killed through the pin: had it exited and its number gone to
             * another process in between, the kill fails (ESRCH) instead
             * of hitting that one. */
            int pin = (int)syscall(SYS_pidfd_open, atoi(e->d_name), 0);
            if (pin < 0 && errno != ENOSYS)
                continue; /* gone already */
            if (has_token(m, e->d_name) &&
                (pin >= 0 ? syscall(SYS_pidfd_send_signal, pin, SIGKILL,
                                    NULL, 0)
                          : kill(atoi(e->d_name), SIGKILL)) == 0) /* < 5.3 */
                found++;
            if (pin >= 0)
                close(pin);
        }
        if (d)
            closedir(d);
        if (!found)
            return;
        if (!m->c->quiet && round == 0)
            fprintf(stderr, "maat-referee: killed %d bot process%s that "
                    "left their process group\n", found,
                    found == 1 ? "" : "es");
        /* Not reaped here: they are not the referee's children (it is no
         * subreaper), and a waitpid(-1) would reap another match's bot in
         * the same process and lose its exit status. */
    }
}

/* Give bots a moment to leave on their own after bye, then end them. */
void match_stop_bots(match *m)
{
    int64_t deadline = maat_now_ns() + 1000 * 1000000LL;
    for (;;) {
        int running = 0;
        for (int i = 0; i < m->n; i++) {
            int status;
            if (m->bot[i].proc && !maat_proc_exited(m->bot[i].proc, &status))
                running++;
        }
        if (!running || m->interrupted || maat_now_ns() >= deadline)
            break;
        match_wait_input(m, deadline);
    }
    for (int i = 0; i < m->n; i++) {
        match_bot *b = &m->bot[i];
        if (b->proc) {
            maat_proc_stop(b->proc, 500);
            uint64_t peak = maat_proc_memory_peak(b->proc);
            b->memory_peak = peak > b->memory_peak ? peak : b->memory_peak;
        }
        maat_proc_destroy(&b->proc);
    }
    kill_by_token(m);
}

int match_restart_bots(match *m, maat_error *err)
{
    match_send_bye(m);
    match_stop_bots(m);
    for (int i = 0; i < m->n; i++) {
        match_bot *b = &m->bot[i];
        b->connected = b->dead = b->dead_kind = 0;
        b->dead_detail[0] = 0;
        b->rid_len = 0;
        b->first_done = 0; /* a new process: the first decision's time */
        b->lowered = 0;    /* and the referee's priority */
    }
    int rc = start_bots(m, m->game_index + 1, err);
    if (rc == MAAT_OK)
        rc = match_await_hellos(m, err);
    return rc;
}

/* Priorities of whole process groups (every thread of every process a bot
 * started, as long as it stayed in the group; a sandboxed bot shares its
 * group with its bubblewrap processes).  A decision that has lasted
 * MATCH_LOWER_AFTER_MS lowers every other bot to nice 19
 * (match_lower_idle); a lowered bot is raised to nice 0 when its own turn
 * comes (match_give_turn), and stays there until a decision of another
 * lasts that long again.
 *
 * Why not at every turn, as before: the two setpriority calls a turn,
 * each taking the run-queue lock of every task in a bot's group, cost
 * ~10 % of the referee's CPU a decision between bots that answer at once
 * (docs/PERFORMANCE.md, "Idle priorities when they matter"), and there
 * they protect nothing: an idle bot that computes can take the deciding
 * bot's CPU only by making its decision wait, and from the first
 * millisecond of a decision on, every idle bot is low.  Between bots that
 * think, the calls are the same as before: the bot that just decided is
 * lowered a millisecond into the next one's turn, and raised at its own.
 *
 * Lowering a nice value needs root (or RLIMIT_NICE); where raising is
 * refused, the referee says so once and leaves every bot at 0. */
static void set_priority(match *m, match_bot *b, int low)
{
    if (!b->proc || b->lowered == low || !maat_proc_bot_pgid(b->proc))
        return; /* no bot, as asked, or its group gone with it */
    b->lowered = low;
    if (setpriority(PRIO_PGRP, (id_t)maat_proc_bot_pgid(b->proc),
                    low ? 19 : 0) == 0 || low ||
        (errno != EACCES && errno != EPERM))
        return;
    match_say(m, "cannot restore a bot's priority (needs root or "
              "RLIMIT_NICE 20): idle bots keep full priority");
    m->turn_disabled = 1;
    for (int i = 0; i < m->n; i++) /* as far as we may: nobody low */
        if (m->bot[i].proc && maat_proc_bot_pgid(m->bot[i].proc)) {
            (void)setpriority(PRIO_PGRP,
                              (id_t)maat_proc_bot_pgid(m->bot[i].proc), 0);
            m->bot[i].lowered = 0;
        }
}

void match_give_turn(match *m, match_bot *b)
{
    if (!m->c->ponder && !m->turn_disabled)
        set_priority(m, b, 0);
}

void match_lower_idle(match *m, match_bot *b)
{
    if (m->c->ponder || m->turn_disabled)
        return;
    for (int i = 0; i < m->n; i++)
        if (&m->bot[i] != b)
            set_priority(m, &m->bot[i], 1);
}

/* DIR/<match id>-<game index>-<bot>.log: one log per bot and game, so no
 * game's output overwrites another's.  Match ids and bot names are both
 * checked to be plain file-name characters. */
void match_log_path(const match *m, const match_bot *b, int game, char *out,
                    size_t len)
{
    snprintf(out, len, "%s/%s-%d-%s.log", m->c->log_dir, m->match_id, game,
             b->spec->name);
}

/* Each game's output goes to its own log; lines are tagged with the
 * decision being played (docs/REPLAY.md, "Bot logs by decision"). */
void match_logs_for_game(match *m, int game)
{
    for (int i = 0; i < m->n; i++) {
        match_bot *b = &m->bot[i];
        char path[1024];
        if (!m->c->log_dir || !b->proc)
            continue;
        maat_error err = {0};
        match_log_path(m, b, game, path, sizeof path);
        /* (with --fresh-bots each game's processes start on its log) */
        if (game > 0 && !m->c->fresh_bots &&
            maat_proc_set_log(b->proc, path, &err))
            match_say(m, "%s: its output for game %d is lost: %s",
                      b->spec->name, game, err.msg);
        maat_proc_set_tag(b->proc, -1);
    }
}

void match_tag_logs(match *m)
{
    if (!m->c->log_dir)
        return;
    for (int i = 0; i < m->n; i++)
        if (m->bot[i].proc)
            maat_proc_set_tag(m->bot[i].proc, m->decision_no);
}

/* Absolute `path`, or its directory with `dir` set (into out); resolved
 * (no ".", "..", symbolic links) when it exists, so that it compares with
 * the working directory and the bot's program as bubblewrap sees them. */
static void absolute(const char *path, int dir, char *out, size_t len)
{
    char cwd[1024] = "", tmp[1200], real[PATH_MAX];
    if (path[0] != '/' && getcwd(cwd, sizeof cwd))
        snprintf(tmp, sizeof tmp, "%s/%s", cwd, path);
    else
        snprintf(tmp, sizeof tmp, "%s", path);
    if (dir) {
        char *slash = strrchr(tmp, '/');
        if (slash && slash != tmp)
            *slash = 0;
    }
    if (realpath(tmp, real) && strlen(real) < sizeof tmp)
        snprintf(tmp, sizeof tmp, "%s", real);
    size_t n = strlen(tmp);
    if (n >= len) /* cannot be hidden by name: hide nothing rather than
                     the wrong thing */
        n = 0;
    memcpy(out, tmp, n);
    out[n] = 0;
}

/* One more path to hide, named by `option` (for the error that says why a
 * directory cannot be hidden); empty when it could not be named. */
static void hide_add(match *m, const char **from, int *n, const char *path,
                     int dir, const char *option)
{
    from[*n] = option;
    absolute(path, dir, m->hide_buf[*n], sizeof m->hide_buf[0]);
    (*n)++;
}

void match_sandbox_hides(match *m)
{
    const maat_match_config *c = m->c;
    const char *from[MATCH_HIDES];
    int n = 0;
    if (c->ladder_path) {
        hide_add(m, from, &n, c->ladder_path, 0, "--ladder");
        /* and the lines of other matches waiting to join it (maat-ladder
         * run --jobs N: their games' seeds, one of which may be the deal
         * of a game still being played) */
        char waiting[1100];
        snprintf(waiting, sizeof waiting, "%s%s", c->ladder_path,
                 MAAT_LADDER_WAITING_SUFFIX);
        hide_add(m, from, &n, waiting, 0, "--ladder");
    }
    if (c->record_path) {
        hide_add(m, from, &n, c->record_path, 1, "--record");
        /* when the directory must stay visible, at least the records that
         * are there already are hidden */
        for (int k = 0; k < c->games && k < MATCH_HIDE_RECORDS; k++) {
            char path[1024];
            maat_record_path(c->record_path, c->games, k, path, sizeof path);
            hide_add(m, from, &n, path, 0, "--record");
        }
    }
    if (c->log_dir)
        hide_add(m, from, &n, c->log_dir, 0, "--log-dir");
    if (c->seed_file) /* e.g. a tournament's secret key */
        hide_add(m, from, &n, c->seed_file, 0, "--seed-file");
    for (int i = 0; i < c->n_hide && n < MATCH_HIDES; i++)
        hide_add(m, from, &n, c->hide[i], 0, "--hide");
    for (int i = 0; i < c->n_private; i++)
        absolute(c->private_dir[i], 0, m->private_buf[i],
                 sizeof m->private_buf[i]);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (m->hide_buf[i][0]) {
            m->hide_from[k] = from[i];
            m->hide[k++] = m->hide_buf[i];
        }
    m->hide[k] = NULL;
}

/* A directory the sandbox could not hide from bot b (it holds the working
 * directory or the bot's program, which the bot must see): an error when
 * what lands there while bots play could tell one bot what its seat may
 * not see -- the other seats' logs as they write them, or, in a series,
 * the earlier games' records (the first holds the series' seed, from
 * which every later deal is derived).  A match of one game may keep its
 * record there: it is written when the game is over. */
static int unhideable(match *m, const char *dir, const match_bot *b,
                      maat_error *err)
{
    const char *option = "--hide";
    for (int i = 0; m->hide[i]; i++)
        if (m->hide[i] == dir)
            option = m->hide_from[i];
    if (!strcmp(option, "--record") && m->c->games == 1)
        return MAAT_OK;
    return maat_error_set(
        err, MAAT_EINVAL, "%s %s: holds the working directory or bot %s's "
        "program, so the sandbox cannot hide it, and bots could read %s: "
        "use a directory of its own", option, dir, b->spec->name,
        !strcmp(option, "--log-dir") ? "each other's logs during the game"
        : !strcmp(option, "--record") ? "the series' earlier records (and "
                                        "seed) in later games"
                                      : "what it holds");
}
