/* test_proc.c -- referee/proc.c: spawning bots, capturing and capping their
 * output, exit statuses, limits, CPU accounting and group teardown.
 *
 * Every wait here is on a condition (poll() on the output pipe or on a
 * pidfd, a blocking waitpid on processes that were SIGKILLed); deadlines
 * are generous and only guard against hangs.  The test makes itself a
 * child subreaper so orphaned grandchildren come back to it and can be
 * reaped: otherwise they would linger as zombies (this container's init
 * does not reap) and still count as members of their process group.
 */
#define _GNU_SOURCE /* pidfd_open via syscall, PR_SET_CHILD_SUBREAPER */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "proc.h"
#include "sandbox.h"

static char tmpdir[] = "/tmp/maat-test-proc-XXXXXX";
static bool subreaper;

/* Hang guards only: nothing asserts that anything is fast. */
enum { DEADLINE_MS = 60000 };

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *tmp_path(const char *name)
{
    static char buf[4][512];
    static int next;
    char *b = buf[next++ % 4];
    snprintf(b, sizeof buf[0], "%s/%s", tmpdir, name);
    return b;
}

/* The whole file as a NUL-terminated string (binary-safe length in *len). */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *s = malloc(cap + 1);
    size_t r;
    while (s && (r = fread(s + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            char *t = realloc(s, 2 * cap + 1);
            if (!t) {
                free(s);
                s = NULL;
                break;
            }
            s = t;
            cap *= 2;
        }
    }
    fclose(f);
    if (s)
        s[n] = '\0';
    if (len)
        *len = n;
    return s;
}

static bool log_has(const char *path, const char *needle)
{
    char *s = slurp(path, NULL);
    bool found = s && strstr(s, needle);
    free(s);
    return found;
}

/* Drain until the bot closes its output (EOF), via poll() on the fd. */
static bool drain_to_eof(maat_proc *p)
{
    int64_t deadline = now_ms() + DEADLINE_MS;
    while (maat_proc_output_fd(p) >= 0) {
        int64_t left = deadline - now_ms();
        if (left <= 0)
            return false;
        struct pollfd pfd = {.fd = maat_proc_output_fd(p), .events = POLLIN};
        if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
            return false;
        maat_proc_drain(p);
    }
    return true;
}

/* Drain until `needle` shows up in the log. */
static bool drain_until(maat_proc *p, const char *log, const char *needle)
{
    int64_t deadline = now_ms() + DEADLINE_MS;
    while (!log_has(log, needle)) {
        int64_t left = deadline - now_ms();
        if (left <= 0 || maat_proc_output_fd(p) < 0)
            return false;
        struct pollfd pfd = {.fd = maat_proc_output_fd(p), .events = POLLIN};
        if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
            return false;
        maat_proc_drain(p);
    }
    return true;
}

/* Wait for the main process to exit: poll() on a pidfd (readable once the
 * process has exited); plain polling of waitpid only on old kernels. */
static bool wait_exit(maat_proc *p, int *status)
{
    int64_t deadline = now_ms() + DEADLINE_MS;
    int pidfd = -1;
#ifdef SYS_pidfd_open
    pidfd = (int)syscall(SYS_pidfd_open, maat_proc_pid(p), 0);
#endif
    while (!maat_proc_exited(p, status)) {
        int64_t left = deadline - now_ms();
        if (left <= 0)
            break;
        if (pidfd >= 0) {
            struct pollfd pfd = {.fd = pidfd, .events = POLLIN};
            (void)poll(&pfd, 1, (int)left);
        } else {
            struct timespec step = {0, 10 * 1000000L};
            nanosleep(&step, NULL);
        }
    }
    if (pidfd >= 0)
        close(pidfd);
    return maat_proc_exited(p, status);
}

/* Run to completion: drain to EOF, then reap.  Returns the wait status
 * (or -1 if a deadline passed). */
static int run_to_exit(maat_proc *p)
{
    int status = -1;
    bool ok = drain_to_eof(p);
    CHECK(ok, "bot output did not reach EOF within %d ms", DEADLINE_MS);
    ok = wait_exit(p, &status);
    CHECK(ok, "bot did not exit within %d ms", DEADLINE_MS);
    return ok ? status : -1;
}

/* Set by SIGALRM (installed without SA_RESTART), so a blocking waitpid()
 * or open() returns EINTR once a hang guard expires instead of hanging. */
static volatile sig_atomic_t guard_expired;

static void on_alarm(int sig)
{
    (void)sig;
    guard_expired = 1;
}

static void guard_start(void)
{
    guard_expired = 0;
    alarm(DEADLINE_MS / 1000);
}

static void guard_stop(void)
{
    alarm(0);
}

/* Reap the group members stop() left to us (as subreaper, orphans of the
 * bot are our children) and report whether the group is gone.  Every
 * member was SIGKILLed, so the blocking wait ends at once when stop()
 * worked; the guard turns a surviving member into a failure, not a hang. */
static bool group_gone(pid_t pgid)
{
    if (subreaper) {
        guard_start();
        while (!guard_expired &&
               (waitpid(-pgid, NULL, 0) > 0 || errno == EINTR))
            ;
        guard_stop();
        bool gone = kill(-pgid, 0) == -1 && errno == ESRCH;
        if (!gone) /* leave nothing behind even when failing */
            kill(-pgid, SIGKILL);
        return gone;
    }
    /* Fallback without subreaper support: init reaps the orphans, and
     * there is nothing to wait on but the condition itself. */
    int64_t deadline = now_ms() + DEADLINE_MS;
    while (!(kill(-pgid, 0) == -1 && errno == ESRCH)) {
        if (now_ms() > deadline) {
            kill(-pgid, SIGKILL);
            return false;
        }
        struct timespec step = {0, 10 * 1000000L};
        nanosleep(&step, NULL);
    }
    return true;
}

/* destroy + confirm nothing of the bot's group is left. */
static void finish(maat_proc **p)
{
    if (!*p)
        return;
    pid_t pgid = maat_proc_pid(*p);
    maat_proc_destroy(p);
    CHECK(*p == NULL, "destroy did not clear the pointer");
    CHECK(group_gone(pgid), "process group %d still has members", (int)pgid);
}

static maat_proc *spawn(const char *cmd, char *const env[], const char *log,
                        const maat_proc_limits *lim)
{
    maat_error err = {0};
    maat_proc *p = maat_proc_spawn(cmd, env, log, NULL, lim, &err);
    CHECK(p != NULL, "spawn '%s' failed: %s", cmd, err.msg);
    return p;
}

static void describe(int status, char *buf, size_t len)
{
    maat_proc_describe_exit(status, buf, len);
}

/* ---- tests ---------------------------------------------------------------- */

static void test_stdout_and_stderr(void)
{
    const char *log = tmp_path("both.log");
    maat_proc *p = spawn("echo to-stdout; echo to-stderr >&2", NULL, log, NULL);
    if (!p)
        return;
    int st = run_to_exit(p);
    CHECK(st == 0, "status %d", st);
    CHECK(log_has(log, "to-stdout\n"), "stdout missing from log");
    CHECK(log_has(log, "to-stderr\n"), "stderr missing from log");
    CHECK(maat_proc_output_bytes(p) == 20, "output bytes %llu",
          (unsigned long long)maat_proc_output_bytes(p));
    CHECK(maat_proc_dropped_bytes(p) == 0, "dropped %llu",
          (unsigned long long)maat_proc_dropped_bytes(p));
    finish(&p);
}

static void test_exit_status(void)
{
    char buf[128];
    maat_proc *p = spawn("exit 3", NULL, tmp_path("exit3.log"), NULL);
    if (p) {
        int st = run_to_exit(p);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3, "status 0x%x", st);
        describe(st, buf, sizeof buf);
        CHECK(strcmp(buf, "exited with status 3") == 0, "described '%s'", buf);
        int again = -1;
        CHECK(maat_proc_exited(p, &again) == 1 && again == st,
              "exited() not sticky: %d vs %d", again, st);
        finish(&p);
    }

    p = spawn("kill -SEGV $$", NULL, tmp_path("segv.log"), NULL);
    if (p) {
        int st = run_to_exit(p);
        CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "status 0x%x", st);
        describe(st, buf, sizeof buf);
        CHECK(strncmp(buf, "killed by signal 11 (", 21) == 0, "described '%s'",
              buf);
        finish(&p);
    }

    describe(0, buf, 4); /* truncates rather than overflowing */
    CHECK(strcmp(buf, "exi") == 0, "short buffer gave '%s'", buf);
}

static void test_env(void)
{
    const char *log = tmp_path("env.log");
    setenv("MAAT_Y", "inherited-old", 1);
    setenv("MAAT_Z", "inherited-kept", 1);
    char *env[] = {"MAAT_X=hello world", "MAAT_Y=overridden", NULL};
    maat_proc *p = spawn("echo \"x=$MAAT_X\"; echo \"y=$MAAT_Y\"; "
                         "echo \"z=$MAAT_Z\"; echo \"ny=$(env | grep -c "
                         "'^MAAT_Y=')\"",
                         env, log, NULL);
    if (!p)
        return;
    CHECK(run_to_exit(p) == 0, "env bot failed");
    CHECK(log_has(log, "x=hello world\n"), "added entry not visible");
    CHECK(log_has(log, "y=overridden\n"), "entry did not override");
    CHECK(log_has(log, "z=inherited-kept\n"), "inherited env lost");
    CHECK(log_has(log, "ny=1\n"), "overridden name appears twice");
    finish(&p);

    /* clean_env: nothing inherited, env alone */
    maat_proc_limits clean = {.clean_env = 1};
    p = spawn("echo \"x=$MAAT_X\"; echo \"z=${MAAT_Z-unset}\"", env, log,
              &clean);
    if (p) {
        CHECK(run_to_exit(p) == 0, "clean env bot failed");
        CHECK(log_has(log, "x=hello world\n") &&
                  log_has(log, "z=unset\n"),
              "clean_env: an inherited variable reached the bot, or env did "
              "not");
        finish(&p);
    }

    maat_error err = {0};
    char *bad[] = {"NO_EQUALS_SIGN", NULL};
    p = maat_proc_spawn("true", bad, NULL, NULL, NULL, &err);
    CHECK(p == NULL && err.code == MAAT_EINVAL &&
              strstr(err.msg, "NO_EQUALS_SIGN"),
          "bad env entry accepted or badly reported: %s", err.msg);
    finish(&p);
}

/* Bots are the out-of-memory killer's first choice: oom_score_adj 1000. */
static void test_oom_score(void)
{
    const char *log = tmp_path("oom.log");
    maat_proc *p = spawn("cat /proc/self/oom_score_adj", NULL, log, NULL);
    if (!p)
        return;
    CHECK(run_to_exit(p) == 0, "oom bot failed");
    CHECK(log_has(log, "1000\n"), "a bot's oom_score_adj is not 1000");
    finish(&p);
}

/* A bot writing 1 MB under a 4 KiB cap runs to completion by itself as
 * long as the referee keeps draining, and the log stays small. */
static void test_log_cap(void)
{
    const char *log = tmp_path("cap.log");
    const uint64_t total = 1000000, cap = 4096;
    maat_proc_limits lim = {.log_cap = cap};
    maat_proc *p = spawn("yes 0123456789abcdef | head -c 1000000", NULL, log,
                         &lim);
    if (!p)
        return;
    int st = run_to_exit(p);
    CHECK(st == 0, "spammer did not exit cleanly: 0x%x", st);
    CHECK(maat_proc_output_bytes(p) == total, "output bytes %llu",
          (unsigned long long)maat_proc_output_bytes(p));
    CHECK(maat_proc_dropped_bytes(p) == total - cap, "dropped %llu",
          (unsigned long long)maat_proc_dropped_bytes(p));

    /* the cut falls mid-line (4096 = 240 * 17 + 16): the marker starts a
     * line of its own, so a line-based reader (maat-replay) sees it */
    const char *marker = "\n[maat: log truncated at 4096 bytes]\n";
    size_t len = 0;
    char *s = slurp(log, &len);
    CHECK(s && len == cap + strlen(marker), "log is %zu bytes", len);
    CHECK(s && len >= cap && strcmp(s + cap, marker) == 0,
          "marker missing or misplaced");
    CHECK(s && strncmp(s, "0123456789abcdef\n", 17) == 0, "log head wrong");
    free(s);
    finish(&p);

    /* log_cap 0 means unlimited; NULL log means discard. */
    lim.log_cap = 0;
    p = spawn("head -c 100000 /dev/zero", NULL, tmp_path("nocap.log"), &lim);
    if (p) {
        CHECK(run_to_exit(p) == 0, "uncapped bot failed");
        struct stat sb;
        CHECK(stat(tmp_path("nocap.log"), &sb) == 0 && sb.st_size == 100000,
              "uncapped log has wrong size");
        CHECK(maat_proc_dropped_bytes(p) == 0, "uncapped log dropped bytes");
        finish(&p);
    }
    p = spawn("echo discarded", NULL, NULL, NULL);
    if (p) {
        CHECK(run_to_exit(p) == 0, "discarding bot failed");
        CHECK(maat_proc_output_bytes(p) == 10, "discarded output not counted");
        finish(&p);
    }
}

/* The referee blocks SIGTERM etc. for its signalfd and may ignore
 * signals; a bot must start with default dispositions and an empty mask,
 * or stop() could not end it with SIGTERM.  (Debian's dash clears the mask
 * for what it runs, so there the mask half only matters for other
 * /bin/sh; the SIG_IGN half is visible with any shell.) */
static void test_signal_state_reset(void)
{
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGCHLD);
    sigprocmask(SIG_BLOCK, &block, &old);
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_int;
    sigaction(SIGINT, &ign, &old_int);

    maat_proc *p = spawn("kill -INT $$; echo survived", NULL,
                         tmp_path("sigint.log"), NULL);
    if (p) {
        int st = run_to_exit(p);
        CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT,
              "ignored SIGINT leaked into the bot: status 0x%x", st);
        finish(&p);
    }

    /* With a huge grace period, stop() only returns early if SIGTERM gets
     * through; the status says which signal ended it. */
    p = spawn("sleep 100", NULL, tmp_path("term.log"), NULL);
    if (p) {
        int64_t t0 = now_ms();
        maat_proc_stop(p, 20000);
        int st = -1;
        CHECK(maat_proc_exited(p, &st) == 1, "not reaped after stop");
        CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM,
              "blocked SIGTERM leaked into the bot: status 0x%x", st);
        CHECK(now_ms() - t0 < 20000, "stop waited out the grace period");
        finish(&p);
    }

    sigaction(SIGINT, &old_int, NULL);
    sigprocmask(SIG_SETMASK, &old, NULL);
}

static void test_stop_ignores_term(void)
{
    const int grace = 300;
    maat_proc *p = spawn("trap '' TERM; echo ready; sleep 100", NULL,
                         tmp_path("trap.log"), NULL);
    if (!p)
        return;
    /* Wait until the trap is installed, or SIGTERM could win the race. */
    CHECK(drain_until(p, tmp_path("trap.log"), "ready\n"), "no ready line");
    int64_t t0 = now_ms();
    maat_proc_stop(p, grace);
    int64_t waited = now_ms() - t0;
    int st = -1;
    CHECK(maat_proc_exited(p, &st) == 1, "not reaped after stop");
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "status 0x%x", st);
    CHECK(waited >= grace, "SIGKILL came before the grace period (%lld ms)",
          (long long)waited);
    maat_proc_stop(p, grace); /* idempotent */
    CHECK(maat_proc_exited(p, &st) == 1 && WTERMSIG(st) == SIGKILL,
          "second stop changed the status");
    finish(&p);
}

static void test_stop_kills_group(void)
{
    const char *log = tmp_path("group.log");
    maat_proc *p = spawn("sleep 100 & echo \"bg=$!\"; sleep 100", NULL, log,
                         NULL);
    if (!p)
        return;
    pid_t pgid = maat_proc_pid(p);
    CHECK(drain_until(p, log, "bg="), "no background pid printed");
    CHECK(getpgid(pgid) == pgid, "bot is not a group leader");
    CHECK(getpgid(0) != pgid, "bot shares the test's group");
    maat_proc_stop(p, 1000);
    CHECK(group_gone(pgid), "stragglers left in group %d", (int)pgid);
    finish(&p);

    /* Main process already gone, background child still running: stop()
     * must still clear the group. */
    p = spawn("sleep 100 & echo started", NULL, tmp_path("orphan.log"), NULL);
    if (!p)
        return;
    pgid = maat_proc_pid(p);
    int st = -1;
    CHECK(wait_exit(p, &st) && st == 0, "main did not exit: 0x%x", st);
    /* Found dead, the main process is reaped only after its group is
     * killed: once reaped, its number (the group's) may go to another
     * process, and a later kill(-pgid) could hit an unrelated group. */
    CHECK(group_gone(pgid), "a straggler outlived its reaped main process");
    maat_proc_stop(p, 1000);
    CHECK(group_gone(pgid), "straggler survived stop after main exited");
    finish(&p);
}

static void test_limits(void)
{
    /* RLIMIT_NOFILE is visible from inside. */
    const char *log = tmp_path("nofile.log");
    maat_proc_limits lim = {.open_files = 17};
    maat_proc *p = spawn("ulimit -n", NULL, log, &lim);
    if (p) {
        CHECK(run_to_exit(p) == 0, "ulimit -n failed");
        CHECK(log_has(log, "17\n"), "RLIMIT_NOFILE not applied");
        finish(&p);
    }

    /* RLIMIT_AS is enforced: dd allocates its block buffer up front, so a
     * 1000 MB block cannot be allocated under a 200 MB address space and
     * dd fails before touching any memory; a 1 MB block under the same
     * limit works, so the failure is the limit, not a broken child.  The
     * large case never runs unlimited, so the test never uses real RAM.
     * LC_ALL=C keeps a large locale archive out of the address space. */
    char *cenv[] = {"LC_ALL=C", NULL};
    lim = (maat_proc_limits){.address_space = 200u * 1024 * 1024};
    p = spawn("dd if=/dev/zero of=/dev/null bs=1M count=1", cenv,
              tmp_path("as-small.log"), &lim);
    if (p) {
        int st = run_to_exit(p);
        CHECK(st == 0, "1 MB dd failed under 200 MB RLIMIT_AS: 0x%x", st);
        finish(&p);
    }
    p = spawn("dd if=/dev/zero of=/dev/null bs=1000M count=1", cenv,
              tmp_path("as-big.log"), &lim);
    if (p) {
        int st = run_to_exit(p);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) != 0,
              "1000 MB dd succeeded under 200 MB RLIMIT_AS: 0x%x", st);
        finish(&p);
    }

    /* RLIMIT_CPU ends a spinning bot (SIGXCPU at the soft limit, SIGKILL
     * at the hard one). */
    lim = (maat_proc_limits){.cpu_seconds = 1};
    p = spawn("while :; do :; done", NULL, tmp_path("cpu-limit.log"), &lim);
    if (p) {
        int st = run_to_exit(p);
        CHECK(WIFSIGNALED(st) &&
                  (WTERMSIG(st) == SIGXCPU || WTERMSIG(st) == SIGKILL),
              "CPU limit not enforced: status 0x%x", st);
        finish(&p);
    }
}

/* Only 0, 1, 2 reach the bot: stdin is /dev/null, and an fd the referee
 * left open without O_CLOEXEC does not leak. */
static void test_fds_and_cwd(void)
{
    int leak = open(tmp_path("leak-marker"), O_WRONLY | O_CREAT, 0644);
    CHECK(leak >= 0, "cannot open marker");
    const char *log = tmp_path("fds.log");
    char cmd[256];
    snprintf(cmd, sizeof cmd,
             "readlink /proc/$$/fd/0; readlink /proc/$$/fd/%d || "
             "echo fd-closed",
             leak);
    maat_proc *p = spawn(cmd, NULL, log, NULL);
    if (p) {
        CHECK(run_to_exit(p) == 0, "fd bot failed");
        CHECK(log_has(log, "/dev/null\n"), "stdin is not /dev/null");
        CHECK(log_has(log, "fd-closed\n"), "fd %d leaked into the bot", leak);
        CHECK(!log_has(log, "leak-marker"), "fd %d leaked into the bot", leak);
        finish(&p);
    }
    if (leak >= 0)
        close(leak);

    /* cwd is honoured; a bad one fails in the child and says so in the log. */
    maat_error err = {0};
    log = tmp_path("cwd.log");
    p = maat_proc_spawn("pwd", NULL, log, tmpdir, NULL, &err);
    CHECK(p != NULL, "spawn with cwd failed: %s", err.msg);
    if (p) {
        CHECK(run_to_exit(p) == 0, "pwd failed");
        char want[600];
        snprintf(want, sizeof want, "%s\n", tmpdir);
        CHECK(log_has(log, want), "cwd not applied");
        finish(&p);
    }
    log = tmp_path("badcwd.log");
    p = maat_proc_spawn("echo should-not-run", NULL, log,
                        "/nonexistent/maat-dir", NULL, &err);
    CHECK(p != NULL, "spawn failed early: %s", err.msg);
    if (p) {
        int st = run_to_exit(p);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 127, "status 0x%x", st);
        CHECK(log_has(log, "/nonexistent/maat-dir"), "log does not name cwd");
        CHECK(!log_has(log, "should-not-run"), "command ran anyway");
        finish(&p);
    }
}

/* CPU time is > 0 and grows.  The bot spins, reports, then blocks opening
 * a FIFO until the test has taken its first sample, spins again; so the
 * second sample is taken after strictly more work, whatever the speed. */
static void test_cpu_time(void)
{
    const char *fifo = tmp_path("go.fifo");
    CHECK(mkfifo(fifo, 0600) == 0, "mkfifo: %s", strerror(errno));
    const char *log = tmp_path("cpu.log");
    char cmd[1024];
    const char *spin = "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done";
    snprintf(cmd, sizeof cmd,
             "%s; echo first; read x < '%s'; %s; echo second; exec sleep 100",
             spin, fifo, spin);
    maat_proc *p = spawn(cmd, NULL, log, NULL);
    if (!p)
        return;
    CHECK(drain_until(p, log, "first\n"), "no first line");
    uint64_t c1 = maat_proc_cpu_ns(p);
    CHECK(c1 > 0, "no CPU time after a busy loop");

    guard_start();
    int w = open(fifo, O_WRONLY); /* blocks until the bot opens it */
    guard_stop();
    CHECK(w >= 0 && write(w, "go\n", 3) == 3, "cannot release the bot");
    if (w >= 0)
        close(w);
    CHECK(drain_until(p, log, "second\n"), "no second line");
    uint64_t c2 = maat_proc_cpu_ns(p);
    CHECK(c2 > c1, "CPU time did not grow: %llu -> %llu",
          (unsigned long long)c1, (unsigned long long)c2);

    maat_proc_stop(p, 1000);
    /* After exit the figure comes from rusage (microsecond resolution). */
    uint64_t c3 = maat_proc_cpu_ns(p);
    CHECK(c3 + 2000 >= c2, "CPU time shrank after exit: %llu -> %llu",
          (unsigned long long)c2, (unsigned long long)c3);
    finish(&p);
}

static void test_spawn_errors(void)
{
    maat_error err = {0};
    const char *path = "/nonexistent-maat-dir/seat0.log";
    maat_proc *p = maat_proc_spawn("true", NULL, path, NULL, NULL, &err);
    CHECK(p == NULL, "spawn with an unwritable log succeeded");
    CHECK(err.code == MAAT_EIO, "code %d", err.code);
    CHECK(strstr(err.msg, path) != NULL, "message does not name the path: %s",
          err.msg);
    finish(&p);
}

/* A command of plain words whose first word is a path runs without
 * /bin/sh (one exec less per bot); anything else still goes through the
 * shell, with the same results. */
static void test_plain_command(void)
{
    const char *log = tmp_path("plain.log");
    maat_proc *p = spawn("/bin/echo  two \t words", NULL, log, NULL);
    if (p) {
        CHECK(run_to_exit(p) == 0, "echo failed");
        CHECK(log_has(log, "two words\n"), "words not split at blanks");
        finish(&p);
    }
    log = tmp_path("plain-exec.log");
    p = spawn("exec /bin/echo via-exec", NULL, log, NULL);
    if (p) {
        CHECK(run_to_exit(p) == 0, "exec echo failed");
        CHECK(log_has(log, "via-exec\n"), "leading exec not handled");
        finish(&p);
    }
    /* exec'd directly: a program that cannot be exec'd is a spawn error
     * naming it (the referee exits 1 with it), not a bot that exits 127 */
    maat_error err = {0};
    p = maat_proc_spawn("/nonexistent-maat-dir/bot --flag", NULL,
                        tmp_path("plain-missing.log"), NULL, NULL, &err);
    CHECK(p == NULL && err.code == MAAT_EIO &&
              strstr(err.msg, "cannot spawn /nonexistent-maat-dir/bot: No "
                              "such file or directory"),
          "missing program: spawn says '%s'", p ? "(started)" : err.msg);
    finish(&p);
    p = maat_proc_spawn(tmpdir, NULL, NULL, NULL, NULL, &err); /* a dir */
    CHECK(p == NULL && strstr(err.msg, "cannot spawn") &&
              strstr(err.msg, tmpdir),
          "a directory as the program: spawn says '%s'",
          p ? "(started)" : err.msg);
    finish(&p);
    /* a bot that starts and fails: its first lines, log or no log */
    p = spawn("echo 'Traceback (most recent call last):'; printf '\\033x\\n"
              "ModuleNotFoundError: numpy\\nthird\\n' >&2; exit 1", NULL,
              NULL, NULL);
    if (p) {
        run_to_exit(p);
        maat_proc_drain(p);
        char head[200], two[200], small[12];
        maat_proc_output_head(p, 5, head, sizeof head);
        maat_proc_output_head(p, 2, two, sizeof two);
        maat_proc_output_head(p, 5, small, sizeof small);
        CHECK(!strcmp(head, "Traceback (most recent call last): | ?x | "
                            "ModuleNotFoundError: numpy | third"),
              "output head: '%s'", head);
        CHECK(!strcmp(two, "Traceback (most recent call last): | ?x"),
              "two lines: '%s'", two);
        CHECK(!strcmp(small, "Traceback ("), "cut to fit: '%s'", small);
        finish(&p);
    }
    /* its own words in UTF-8 stay (the caller sanitizes the message) */
    p = spawn("printf 'Erreur : fichier introuvable \\303\\251t\\303\\251\\n' >&2; "
              "exit 1", NULL, NULL, NULL);
    if (p) {
        run_to_exit(p);
        maat_proc_drain(p);
        char head[200];
        maat_proc_output_head(p, 5, head, sizeof head);
        CHECK(!strcmp(head, "Erreur : fichier introuvable \xc3\xa9t\xc3\xa9"),
              "output head keeps UTF-8: '%s'", head);
        finish(&p);
    }
    /* not plain: the shell expands it */
    char var[] = "MAAT_PLAIN_TEST=expanded", *env[] = {var, NULL};
    log = tmp_path("plain-shell.log");
    p = spawn("/bin/echo $MAAT_PLAIN_TEST", env, log, NULL);
    if (p) {
        CHECK(run_to_exit(p) == 0, "shell echo failed");
        CHECK(log_has(log, "expanded\n"), "variable not expanded");
        finish(&p);
    }
    log = tmp_path("plain-nopath.log");
    p = spawn("echo no-path", NULL, log, NULL);
    if (p) {
        CHECK(run_to_exit(p) == 0, "echo without a path failed");
        CHECK(log_has(log, "no-path\n"), "command without a path");
        finish(&p);
    }
}

/* Words in single quotes (a bot's own, and the sandbox's command line) are
 * taken off their quotes without a shell, giving the argv the shell would:
 * each command runs the same directly and through /bin/sh (a trailing ';'
 * makes it a shell command). */
static void test_quoted_words(void)
{
    static const char *const cmd[][2] = { /* command, its output */
        {"/usr/bin/printf '<%s>' 'two  words' '' it\\'s 'a'b'c'd",
         "<two  words><><it's><abcd>"},
        {"exec '/usr/bin/printf' '[%s]' '$HOME' '*' 'a;b|c' 'x\ny' \\'",
         "[$HOME][*][a;b|c][x\ny][']"},
    };
    for (size_t i = 0; i < sizeof cmd / sizeof cmd[0]; i++) {
        char **w = maat_proc_words(cmd[i][0]);
        CHECK(w != NULL, "not exec'd directly: %s", cmd[i][0]);
        free(w);
        for (int shell = 0; shell < 2; shell++) {
            char text[256], name[64];
            snprintf(text, sizeof text, "%s%s", cmd[i][0], shell ? ";" : "");
            snprintf(name, sizeof name, "quoted-%zu-%d.log", i, shell);
            const char *log = tmp_path(name);
            maat_proc *p = spawn(text, NULL, log, NULL);
            if (!p)
                continue;
            CHECK(run_to_exit(p) == 0, "%s failed", text);
            CHECK(log_has(log, cmd[i][1]), "%s: not '%s'", text, cmd[i][1]);
            finish(&p);
        }
    }
    char **w = maat_proc_words("exec '/x y/bot' --n=1 'it'\\''s' ''");
    CHECK(w && !strcmp(w[0], "/x y/bot") && !strcmp(w[1], "--n=1") &&
              !strcmp(w[2], "it's") && !strcmp(w[3], "") && !w[4],
          "words of a quoted command");
    free(w);
    static const char *const shell[] = {
        "/bin/echo 'open", "/bin/echo $HOME", "/bin/echo a\\ b",
        "A=1 /bin/echo", "/bin/echo *", "/bin/echo \"x\"", "/bin/echo ~",
        "'echo' x", "echo /x", "exec", "", "/bin/echo a\\", "/bin/echo;"};
    for (size_t i = 0; i < sizeof shell / sizeof shell[0]; i++) {
        w = maat_proc_words(shell[i]);
        CHECK(w == NULL, "'%s' taken without a shell", shell[i]);
        free(w);
    }
}

/* The sandbox's command needs no shell when bubblewrap is on PATH, and a
 * bot's plain command runs in it without one (its words quoted); a shell
 * command still gets `/bin/sh -c 'exec CMD'` inside. */
static void test_sandbox_words(void)
{
    maat_sandbox sb = {.socket_path = "/tmp/maat-x/seat-0"};
    char out[9000];
    const char *unhidden;
    CHECK(maat_sandbox_command(&sb, "/opt/b/bot --level 'two words'", out,
                               sizeof out, &unhidden) == 0, "sandbox command");
    char **w = maat_proc_words(out);
    if (system("command -v bwrap >/dev/null 2>&1") == 0) {
        int n = 0;
        while (w && w[n])
            n++;
        CHECK(w && w[0][0] == '/' && strstr(w[0], "bwrap"),
              "bwrap not exec'd directly: %s", out);
        CHECK(n > 3 && !strcmp(w[n - 3], "/opt/b/bot") &&
                  !strcmp(w[n - 2], "--level") &&
                  !strcmp(w[n - 1], "two words"),
              "the bot's words in the sandbox: %s", out);
        for (int i = 0; i < n; i++)
            CHECK(strcmp(w[i], "/bin/sh"), "a shell in the sandbox: %s", out);
    }
    free(w);
    CHECK(maat_sandbox_command(&sb, "/opt/b/bot $LEVEL", out, sizeof out,
                               &unhidden) == 0, "sandbox command");
    CHECK(strstr(out, " /bin/sh -c 'exec /opt/b/bot $LEVEL'") &&
              out[strlen(out) - 1] == '\'',
          "a shell command in the sandbox: %s", out);
    /* not a simple command: run as it is, no exec before it */
    CHECK(maat_sandbox_command(&sb, "cd /opt/b && exec ./bot", out,
                               sizeof out, &unhidden) == 0 &&
              strstr(out, " /bin/sh -c 'cd /opt/b && exec ./bot'"),
          "a list in the sandbox: %s", out);
    /* Never cut: a shell command of MAAT_MAX_COMMAND bytes is whole; one
     * byte more, or an output too small, is refused (it was cut at 4195
     * bytes, or at the buffer's end, and run). */
    static char big[MAAT_MAX_COMMAND + 2], boxed[16384];
    memset(big, 'x', sizeof big - 1);
    memcpy(big, "echo $A ", 8);
    big[MAAT_MAX_COMMAND - 1] = 'Z';
    big[MAAT_MAX_COMMAND] = 0;
    CHECK(maat_sandbox_command(&sb, big, boxed, sizeof boxed, &unhidden) ==
                  0 && strstr(boxed, "xxxZ'"),
          "a shell command of %d bytes, whole", MAAT_MAX_COMMAND);
    big[MAAT_MAX_COMMAND] = 'x';
    CHECK(maat_sandbox_command(&sb, big, boxed, sizeof boxed, &unhidden) ==
              -1, "a shell command of %d bytes refused",
          MAAT_MAX_COMMAND + 1);
    big[MAAT_MAX_COMMAND] = 0;
    CHECK(maat_sandbox_command(&sb, big, out, 2000, &unhidden) == -1,
          "a command cut by a small output refused");
    CHECK(maat_sandbox_command(&sb, "/opt/b/bot 'two words'", out, 400,
                               &unhidden) == -1,
          "a last word cut by a small output refused");
}

/* Which commands the shell may exec (so that the process timed is the
 * bot): simple ones only; as it is otherwise. */
static void test_shell_can_exec(void)
{
    static const char *const yes[] = {"./bot", "/opt/bot --n 2 2>err",
        "bot $LEVEL", "  python3 bot.py", "1A=2 bot"};
    static const char *const no[] = {"cd d && exec ./bot", "FOO=1 ./bot",
        " _x=1 ./bot", "x=1", "a; b", "a | b", "(./bot)", "`x`", "exec ./bot",
        "if true; then ./bot; fi", "{ ./bot; }", "! ./bot", "while x",
        "for x", "", "   "};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        CHECK(maat_proc_shell_can_exec(yes[i]), "exec '%s'", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        CHECK(!maat_proc_shell_can_exec(no[i]), "no exec before '%s'",
              no[i]);
}

/* A listening Unix socket at DIR/seat-0, DIR made from template `dir`
 * (changed in place); its descriptor, or -1. */
static int listen_in(char *dir, char *path, size_t len)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    int fd = mkdtemp(dir) ? socket(AF_UNIX, SOCK_STREAM, 0) : -1;
    snprintf(path, len, "%s/seat-0", dir);
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    if (fd >= 0 && (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
                    listen(fd, 1) != 0)) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* The host's sockets a bot would see are covered by /dev/null: not those
 * under the new /run and /tmp, nor the referee's own (its seats'), nor
 * another referee's of this user (they come and go), nor one the command
 * names; another user's socket in a directory named like a referee's is
 * covered; and every socket /proc/net/unix lists is one. */
static void test_sandbox_sockets(void)
{
    char mine_dir[] = "/var/tmp/maat-XXXXXX", theirs_dir[] = "/var/tmp/maat-XXXXXX";
    char mine[64], theirs[64];
    int fd1 = listen_in(mine_dir, mine, sizeof mine);
    int fd2 = listen_in(theirs_dir, theirs, sizeof theirs);
    CHECK(fd1 >= 0 && fd2 >= 0, "two listening sockets in /var/tmp");
    /* another user's: only root can give it away */
    int other_user = geteuid() == 0 && chown(theirs, 65534, 65534) == 0;
    const char *host[] = {"/srv/db.sock", "/run/docker.sock",
                          "/tmp/.X11-unix/X0", "/tmp/maat-x/seat-1",
                          "/var/lib/named.sock", "/var/tmp/maat-Ab3dE9.sock",
                          mine, theirs, NULL};
    maat_sandbox sb = {.socket_path = "/tmp/maat-x/seat-0",
                       .host_sockets = host};
    char out[9000], want[128];
    const char *unhidden;
    CHECK(maat_sandbox_command(&sb, "/opt/b/bot --db=/var/lib/named.sock",
                               out, sizeof out, &unhidden) == 0,
          "sandbox command");
    CHECK(strstr(out, " --ro-bind /dev/null '/srv/db.sock'") != NULL,
          "a host socket covered: %s", out);
    CHECK(strstr(out, " --ro-bind /dev/null '/var/tmp/maat-Ab3dE9.sock'"),
          "a socket named like a referee's directory covered: %s", out);
    snprintf(want, sizeof want, " --ro-bind /dev/null '%s'", theirs);
    CHECK(!other_user || strstr(out, want),
          "another user's socket in a referee-like directory covered: %s",
          out);
    snprintf(want, sizeof want, "/dev/null '%s'", mine);
    const char *kept[] = {"/dev/null '/run/", "/dev/null '/tmp/",
                          "/dev/null '/var/lib/named.sock'", want};
    for (int i = 0; i < 4; i++)
        CHECK(!strstr(out, kept[i]), "%s...: not covered: %s", kept[i], out);
    char **list = maat_sandbox_host_sockets();
    CHECK(list != NULL, "the host's sockets listed");
    int listed = 0;
    for (int i = 0; list && list[i]; i++) {
        struct stat st;
        CHECK(list[i][0] == '/' && lstat(list[i], &st) == 0 &&
                  S_ISSOCK(st.st_mode),
              "%s is a socket file", list[i]);
        listed += !strcmp(list[i], mine);
    }
    CHECK(listed == 1, "a listening socket is listed once");
    maat_sandbox_sockets_free(&list);
    CHECK(list == NULL, "the list freed and cleared");
    close(fd1);
    close(fd2);
    unlink(mine);
    unlink(theirs);
    rmdir(mine_dir);
    rmdir(theirs_dir);
}

/* The start gate: a child that takes fd 4's byte passed it, one that exits
 * without has not (and stays so), an ungated process has nothing to pass;
 * the gate is fd 4, a passed descriptor fd 5 (the last two: its content
 * read there), and nothing above them reaches the child. */
static void test_start_gate(void)
{
    maat_error err = {0};
    const char *cmds[] = {"head -c 1 <&4 >/dev/null", "exit 1",
                          "ls /proc/self/fd | tr '\\n' ' '",
                          "ls /proc/self/fd | tr '\\n' ' '; cat <&5"};
    const int want[] = {1, 0, 0, 0};
    for (int i = 0; i < 4; i++) {
        const char *log = tmp_path("gate.log");
        int pass[2] = {-1, -1};
        if (i == 3)
            CHECK(pipe(pass) == 0 && write(pass[1], "passed", 6) == 6 &&
                      close(pass[1]) == 0, "a pipe to pass");
        maat_proc *p = maat_proc_spawn_gated(cmds[i], NULL, log, NULL, NULL,
                                             pass[0], &err);
        if (pass[0] >= 0)
            close(pass[0]);
        CHECK(p != NULL, "gated spawn '%s': %s", cmds[i], err.msg);
        if (!p)
            continue;
        run_to_exit(p);
        CHECK(maat_proc_gate_passed(p) == want[i] &&
                  maat_proc_gate_passed(p) == want[i],
              "'%s': gate passed %d, want %d twice", cmds[i],
              maat_proc_gate_passed(p), want[i]);
        if (i >= 2) { /* ls's own directory is fd 3 (the exec pipe's
                         number, closed by exec) */
            char *fds = slurp(log, NULL);
            CHECK(fds && !strcmp(fds, i == 2 ? "0 1 2 3 4 "
                                             : "0 1 2 3 4 5 passed"),
                  "the child's fds: %s", fds ? fds : "(no log)");
            free(fds);
        }
        finish(&p);
    }
    maat_proc *p = spawn("exit 1", NULL, NULL, NULL);
    if (p) {
        run_to_exit(p);
        CHECK(maat_proc_gate_passed(p) == 1, "no gate: nothing to pass");
        finish(&p);
    }
}

/* ---- setup ---------------------------------------------------------------- */

static void remove_tmpdir(void)
{
    DIR *d = opendir(tmpdir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            unlink(tmp_path(e->d_name));
    }
    closedir(d);
    rmdir(tmpdir);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;
    struct sigaction sa = {.sa_handler = on_alarm}; /* no SA_RESTART */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);

    test_stdout_and_stderr();
    test_exit_status();
    test_shell_can_exec();
    test_env();
    test_oom_score();
    test_log_cap();
    test_signal_state_reset();
    test_stop_ignores_term();
    test_stop_kills_group();
    test_limits();
    test_fds_and_cwd();
    test_cpu_time();
    test_spawn_errors();
    test_plain_command();
    test_quoted_words();
    test_sandbox_words();
    test_sandbox_sockets();
    test_start_gate();

    remove_tmpdir();
    return check_done("test_proc");
}
