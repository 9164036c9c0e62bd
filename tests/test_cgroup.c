/* test_cgroup.c -- referee/cgroup.c and its use by proc.c (--limit-mem,
 * and root's task groups): a bot's processes bounded together, memory in
 * no process (a memfd) counted, the kernel's kills reported, a process
 * that left the bot's process group killed with the rest, a fork flood
 * stopped at the task limit, the group removed afterwards.
 *
 * Finding the referee's memory cgroup is checked on made-up /proc text of
 * v1, v2 and container layouts everywhere; the rest needs a memory cgroup
 * the test may write (root on cgroup v1, a delegated one on v2): skipped
 * (77) where there is none, saying why.
 * Every wait is on a condition (the output pipe, a pidfd, a blocking
 * waitpid under an alarm); deadlines only guard against hangs.  The
 * programs allocate at most 40 MiB at a time each, under a 64 MiB limit.
 */
#define _GNU_SOURCE

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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "check.h"
#include "proc.h"

enum { DEADLINE_MS = 60000 };
#define LIMIT (64ull << 20)

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static char logbuf[8192];
static char tmpdir[] = "/tmp/maat-test-cgroup-XXXXXX";

/* DIR/name in the test's own directory (one of four buffers in turn). */
static const char *tmp_path(const char *name)
{
    static char buf[4][128];
    static int next;
    char *b = buf[next++ % 4];
    snprintf(b, sizeof buf[0], "%s/%s", tmpdir, name);
    return b;
}

/* The bot's output so far (drained), in logbuf. */
static const char *output(maat_proc *p, const char *log)
{
    maat_proc_drain(p);
    logbuf[0] = 0;
    FILE *f = fopen(log, "r");
    if (f) {
        size_t n = fread(logbuf, 1, sizeof logbuf - 1, f);
        logbuf[n] = 0;
        fclose(f);
    }
    return logbuf;
}

/* Drain to end of output, then wait for the main process (pidfd). */
static int run_to_exit(maat_proc *p)
{
    int64_t deadline = now_ms() + DEADLINE_MS;
    while (maat_proc_output_fd(p) >= 0 && now_ms() < deadline) {
        struct pollfd pfd = {.fd = maat_proc_output_fd(p), .events = POLLIN};
        (void)poll(&pfd, 1, 1000);
        maat_proc_drain(p);
    }
    int status = -1, pidfd = (int)syscall(SYS_pidfd_open, maat_proc_pid(p), 0);
    while (!maat_proc_exited(p, &status) && now_ms() < deadline) {
        struct pollfd pfd = {.fd = pidfd, .events = POLLIN};
        (void)poll(&pfd, 1, 1000);
    }
    if (pidfd >= 0)
        close(pidfd);
    return status;
}

static maat_proc *spawn(const char *cmd, const char *log)
{
    maat_proc_limits lim = {.memory = LIMIT};
    maat_error err = {0};
    maat_proc *p = maat_proc_spawn(cmd, NULL, log, NULL, &lim, &err);
    CHECK(p != NULL, "spawn '%s' under --limit-mem failed: %s", cmd, err.msg);
    return p;
}

/* The group itself: its directory, the limit written, gone after destroy. */
static void test_group(maat_cgroup *g)
{
    struct stat st;
    const char *path = maat_cgroup_path(g);
    CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode), "%s: not made", path);
    CHECK(strstr(path, "/maat-") != NULL, "%s: not named maat-PID-N", path);
    char file[4200], num[64] = "";
    int found = 0;
    for (int v2 = 0; v2 < 2 && !found; v2++) {
        snprintf(file, sizeof file, "%s/%s", path,
                 v2 ? "memory.max" : "memory.limit_in_bytes");
        FILE *f = fopen(file, "r");
        if (f) {
            found = fgets(num, sizeof num, f) != NULL;
            fclose(f);
        }
    }
    CHECK(found && strtoull(num, NULL, 10) == LIMIT,
          "%s: limit %s, want %llu", path, num, LIMIT);
    CHECK(maat_cgroup_oom_kills(g) == 0, "a new group had kills");
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", path);
    maat_cgroup_destroy(&g);
    CHECK(g == NULL, "destroy did not clear the pointer");
    CHECK(stat(copy, &st) != 0 && errno == ENOENT, "%s: not removed", copy);
}

/* Four processes of 40 MiB each under 64 MiB: per process they are under
 * any --limit-as that lets one run, together they are not.  Each child
 * holds its memory until the parent, having taken its own, closes a pipe
 * (or dies, which closes it too), so two or more hold memory at once and
 * the kernel must kill one; the group never used more than the limit. */
static void test_processes_together(void)
{
    const char *log = tmp_path("procs.log");
    maat_proc *p = spawn(
        "/usr/bin/python3 -c '\n"
        "import os\n"
        "r, w = os.pipe()\n"
        "for i in range(3):\n"
        "    if os.fork() == 0:\n"
        "        os.close(w)\n"
        "        b = b\"x\" * (40 << 20)\n"
        "        os.read(r, 1)\n"
        "        os._exit(0)\n"
        "b = b\"x\" * (40 << 20)\n"
        "os.close(w)\n"
        "for i in range(3):\n"
        "    os.wait()\n"
        "print(\"all done\")\n'",
        log);
    if (!p)
        return;
    int st = run_to_exit(p);
    uint64_t kills = maat_proc_oom_kills(p), peak = maat_proc_memory_peak(p);
    CHECK(kills >= 1, "160 MiB in four processes under 64 MiB: no kill "
          "(status 0x%x, output '%s')", st, output(p, log));
    CHECK(peak > (40ull << 20) && peak <= LIMIT, "peak %llu bytes: want "
          "above one process's 40 MiB and at most the limit",
          (unsigned long long)peak);
    maat_proc_destroy(&p);
    unlink(log);
}

/* A memfd is memory no process limit counts: the group does.  Writing
 * 200 MiB into one under 64 MiB gets the writer killed. */
static void test_memfd(void)
{
    const char *log = tmp_path("memfd.log");
    maat_proc *p = spawn(
        "/usr/bin/python3 -c '\n"
        "import os\n"
        "fd = os.memfd_create(\"x\")\n"
        "for i in range(200):\n"
        "    os.write(fd, b\"x\" * (1 << 20))\n"
        "print(\"wrote 200 MiB\")\n'",
        log);
    if (!p)
        return;
    int st = run_to_exit(p);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
          "200 MiB memfd under 64 MiB: status 0x%x, output '%s'", st,
          output(p, log));
    CHECK(maat_proc_oom_kills(p) == 1, "kills %llu, want 1",
          (unsigned long long)maat_proc_oom_kills(p));
    maat_proc_destroy(&p);
    /* within the limit, the same works */
    p = spawn("/usr/bin/python3 -c '\n"
              "import os\n"
              "fd = os.memfd_create(\"x\")\n"
              "for i in range(16):\n"
              "    os.write(fd, b\"x\" * (1 << 20))\n"
              "print(\"wrote 16 MiB\")\n'",
              log);
    if (!p)
        return;
    st = run_to_exit(p);
    CHECK(st == 0 && strstr(output(p, log), "wrote 16 MiB"),
          "16 MiB memfd under 64 MiB: status 0x%x, output '%s'", st, logbuf);
    CHECK(maat_proc_oom_kills(p) == 0, "kills %llu in a bot within its limit",
          (unsigned long long)maat_proc_oom_kills(p));
    maat_proc_destroy(&p);
    unlink(log);
}

/* A bot forking 50 children under a limit of 20 tasks is stopped at fork
 * (EAGAIN), even when the referee runs as root, for whom RLIMIT_NPROC
 * does nothing. */
static void check_forks_stopped(const maat_proc_limits *lim,
                                const char *label)
{
    maat_error err = {0};
    const char *log = tmp_path("tasks.log");
    maat_proc *p = maat_proc_spawn(
        "/usr/bin/python3 -c '\n"
        "import os\n"
        "r, w = os.pipe()\n"
        "n, e = 0, 0\n"
        "try:\n"
        "    for i in range(50):\n"
        "        if os.fork() == 0:\n"
        "            os.close(w)\n"
        "            os.read(r, 1)\n"
        "            os._exit(0)\n"
        "        n += 1\n"
        "except OSError as x:\n"
        "    e = x.errno\n"
        "os.close(w)\n"
        "print(\"forked\", n, \"errno\", e)\n'",
        NULL, log, NULL, lim, &err);
    CHECK(p != NULL, "%s: spawn: %s", label, err.msg);
    if (!p)
        return;
    int st = run_to_exit(p);
    const char *out = output(p, log), *f = strstr(out, "forked ");
    int n = f ? atoi(f + 7) : -1;
    CHECK(st == 0 && n >= 0 && n < 20 && strstr(out, "errno 11"),
          "%s: 50 forks under a limit of 20 tasks%s: stopped with EAGAIN "
          "below 20 (status 0x%x, output '%s')", label, geteuid() == 0 ?
          " (as root: RLIMIT_NPROC ignored)" : "", st, out);
    maat_proc_destroy(&p);
    unlink(log);
}

/* With the pids controller a memory group bounds its tasks too. */
static void test_tasks(void)
{
    maat_error err = {0};
    maat_cgroup *g = maat_cgroup_new(LIMIT, 20, &err);
    CHECK(g != NULL, "a group with a task limit: %s", err.msg);
    if (!g)
        return;
    int has = maat_cgroup_has_task_limit(g);
    maat_cgroup_destroy(&g);
    if (!has) {
        printf("skip tasks: no pids controller here\n");
        return;
    }
    maat_proc_limits lim = {.memory = LIMIT, .processes = 20};
    check_forks_stopped(&lim, "memory group");
}

/* A group of the pids controller alone (what the referee makes for each
 * bot when it runs as root without --limit-mem): pids.max written, no
 * memory limit and so no memory read back, a fork flood stopped. */
static void test_task_group(void)
{
    maat_error err = {0};
    maat_cgroup *g = maat_cgroup_new(0, 20, &err);
    if (!g) {
        printf("skip task group: %s\n", err.msg);
        return;
    }
    const char *path = maat_cgroup_path(g);
    char file[4200], num[64] = "";
    snprintf(file, sizeof file, "%s/pids.max", path);
    FILE *f = fopen(file, "r");
    CHECK(f && fgets(num, sizeof num, f) && atoi(num) == 20,
          "%s: pids.max '%s', want 20", path, num);
    if (f)
        fclose(f);
    CHECK(maat_cgroup_has_task_limit(g), "a task group without a task limit");
    CHECK(maat_cgroup_oom_kills(g) == 0 && maat_cgroup_memory_peak(g) == 0,
          "a group without a memory limit reports memory");
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", path);
    maat_cgroup_destroy(&g);
    struct stat st;
    CHECK(stat(copy, &st) != 0 && errno == ENOENT, "%s: not removed", copy);

    maat_proc_limits lim = {.processes = 20, .task_group = 1};
    check_forks_stopped(&lim, "task group");
    g = maat_cgroup_new(0, 0, &err);
    CHECK(g == NULL && err.code == MAAT_EINVAL, "a group with no limit at "
          "all was made (its pids.max would be 0)");
    maat_cgroup_destroy(&g);
}

/* Groups left by a referee killed before it removed them are swept: an
 * old one of a dead referee goes; a young one, or one of a live
 * referee, stays. */
static void test_sweep(void)
{
    maat_error err = {0};
    maat_cgroup *g = maat_cgroup_new(0, 5, &err);
    if (!g) {
        printf("skip sweep: %s\n", err.msg);
        return;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", maat_cgroup_path(g));
    *strrchr(dir, '/') = 0;
    maat_cgroup_destroy(&g);
    pid_t dead = fork(); /* a pid that is gone */
    if (dead == 0)
        _exit(0);
    waitpid(dead, NULL, 0);
    char old_dead[4200], young_dead[4200], old_live[4200];
    snprintf(old_dead, sizeof old_dead, "%s/maat-%d-0", dir, (int)dead);
    snprintf(young_dead, sizeof young_dead, "%s/maat-%d-1", dir, (int)dead);
    snprintf(old_live, sizeof old_live, "%s/maat-%d-0", dir, (int)getppid());
    struct timespec old[2] = {{time(NULL) - 120, 0}, {time(NULL) - 120, 0}};
    CHECK(mkdir(old_dead, 0755) == 0 && mkdir(young_dead, 0755) == 0 &&
          mkdir(old_live, 0755) == 0, "cannot make groups in %s: %s", dir,
          strerror(errno));
    CHECK(utimensat(AT_FDCWD, old_dead, old, 0) == 0 &&
          utimensat(AT_FDCWD, old_live, old, 0) == 0,
          "cannot age the groups: %s", strerror(errno));
    maat_cgroup_sweep();
    struct stat st;
    CHECK(stat(old_dead, &st) != 0 && errno == ENOENT,
          "%s: a dead referee's old empty group was not swept", old_dead);
    CHECK(stat(young_dead, &st) == 0, "%s: a group made a moment ago was "
          "swept", young_dead);
    CHECK(stat(old_live, &st) == 0, "%s: a live referee's group was swept",
          old_live);
    rmdir(old_dead);
    rmdir(young_dead);
    rmdir(old_live);
}

static volatile sig_atomic_t alarmed;
static void on_alarm(int sig)
{
    (void)sig;
    alarmed = 1;
}

/* A process that left the bot's process group (setsid) escapes the group
 * kill, not the cgroup: stopping the bot kills it.  The test is a child
 * subreaper, so the orphan comes back to it and its end can be waited for
 * (an alarm turns a survivor into a failure, not a hang). */
static void test_leftover(void)
{
    /* The escaped process says its pid through a FIFO once it has its own
     * session, so the test knows it left the group before stopping the bot
     * (the open blocks until then; the alarm guards it). */
    const char *fifo = tmp_path("left.fifo");
    unlink(fifo);
    if (mkfifo(fifo, 0600) != 0) {
        CHECK(0, "mkfifo %s: %s", fifo, strerror(errno));
        return;
    }
    char cmd[512];
    snprintf(cmd, sizeof cmd, "setsid sh -c 'echo $$ > %s; exec sleep 1000' "
             ">/dev/null 2>&1 & sleep 1000", fifo);
    maat_proc *p = spawn(cmd, NULL);
    if (!p) {
        unlink(fifo);
        return;
    }
    struct sigaction sa = {.sa_handler = on_alarm};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    alarm(DEADLINE_MS / 1000);
    char buf[32] = "";
    FILE *f = fopen(fifo, "r");
    if (f) {
        if (!fgets(buf, sizeof buf, f))
            buf[0] = 0;
        fclose(f);
    }
    alarm(0);
    unlink(fifo);
    pid_t pid = (pid_t)atoi(buf);
    CHECK(pid > 1 && getsid(pid) == pid, "no process with a session of its "
          "own reported its pid ('%s')", buf);
    maat_proc_destroy(&p); /* the group kill misses it; the cgroup does not */
    if (pid <= 1)
        return;
    alarm(DEADLINE_MS / 1000);
    int wst = -1;
    pid_t r;
    while ((r = waitpid(pid, &wst, 0)) < 0 && errno == EINTR && !alarmed)
        ;
    alarm(0);
    CHECK(r == pid && WIFSIGNALED(wst) && WTERMSIG(wst) == SIGKILL,
          "the process that left the group was not killed (waitpid %d, "
          "status 0x%x)", (int)r, wst);
    if (r != pid)
        kill(pid, SIGKILL);
}

/* Finding the memory cgroup from /proc's text, on the layouts seen in
 * the wild (runs everywhere: no cgroup is made). */
static void test_locate(void)
{
    static const struct {
        const char *what, *cgroup, *mountinfo, *dir;
        int v2;
    } cases[] = {
        {"v1 beside a v2 without memory (this project's machines)",
         "9:name=systemd:/\n4:memory:/process_api/15d6\n0::/\n",
         "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw\n"
         "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup "
         "rw,memory\n"
         "40 31 0:37 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n",
         "/sys/fs/cgroup/memory/process_api/15d6", 0},
        {"v1, memory sharing a hierarchy",
         "3:cpu,memory:/jobs/7\n",
         "35 31 0:32 / /cg rw - cgroup cgroup rw,cpu,memory\n",
         "/cg/jobs/7", 0},
        {"v1 in a container: the mount's root is its own cgroup",
         "4:memory:/docker/ab12\n",
         "35 31 0:32 /docker/ab12 /sys/fs/cgroup/memory ro - cgroup cgroup "
         "rw,memory\n",
         "/sys/fs/cgroup/memory", 0},
        {"v2 (a systemd machine)",
         "0::/user.slice/user-1000.slice/session-2.scope\n",
         "30 23 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 "
         "rw,nsdelegate,memory_recursiveprot\n",
         "/sys/fs/cgroup/user.slice/user-1000.slice/session-2.scope", 1},
        {"v2 in a cgroup namespace: its root",
         "0::/\n",
         "30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
         "/sys/fs/cgroup", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dir[4096] = "", why[512] = "";
        int v2 = -1;
        int rc = maat_cgroup_locate(cases[i].cgroup, cases[i].mountinfo,
                                    "memory", dir, sizeof dir, &v2, why,
                                    sizeof why);
        CHECK(rc == 0 && !strcmp(dir, cases[i].dir) && v2 == cases[i].v2,
              "%s: rc %d, dir '%s' v2 %d (want '%s' v2 %d): %s",
              cases[i].what, rc, dir, v2, cases[i].dir, cases[i].v2, why);
    }
    char dir[4096], why[512] = "";
    int v2;
    CHECK(maat_cgroup_locate("8:pids:/\n4:memory:/p\n", "35 31 0:32 / "
                             "/sys/fs/cgroup/pids rw - cgroup cgroup "
                             "rw,pids\n", "pids", dir, sizeof dir, &v2, why,
                             sizeof why) == 0 && !v2 &&
          !strcmp(dir, "/sys/fs/cgroup/pids"),
          "the pids hierarchy's root (v1): '%s' %s", dir, why);
    CHECK(maat_cgroup_locate("5:cpu:/a\n", "35 31 0:32 / /cg rw - cgroup "
                             "cgroup rw,cpu\n", "memory", dir, sizeof dir, &v2, why,
                             sizeof why) == -1 && strstr(why, "no cgroups"),
          "no memory hierarchy and no v2: refused, saying so ('%s')", why);
    CHECK(maat_cgroup_locate("0::/a\n", "35 31 0:32 / /cg rw - cgroup "
                             "cgroup rw,cpu\n", "memory", dir, sizeof dir, &v2, why,
                             sizeof why) == -1 && strstr(why, "cgroup2"),
          "v2 without its file system mounted: refused, saying so ('%s')",
          why);
}

int main(void)
{
    test_locate();
    maat_error err = {0};
    maat_cgroup *g = maat_cgroup_new(LIMIT, 0, &err);
    if (!g) { /* the rest needs a cgroup made */
        printf("skip: %s\n", err.msg);
        return check_failures ? check_done("test_cgroup") : 77;
    }
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
        printf("skip: cannot be a child subreaper\n");
        maat_cgroup_destroy(&g);
        return 77;
    }
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        maat_cgroup_destroy(&g);
        return 1;
    }
    test_group(g);
    test_processes_together();
    test_memfd();
    test_leftover();
    test_tasks();
    test_task_group();
    test_sweep();
    rmdir(tmpdir);
    return check_done("test_cgroup");
}
