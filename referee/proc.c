/* proc.c -- owns the life of one spawned bot process tree: fork/exec of
 * CMD (directly, or via `/bin/sh -c`) in a fresh process group with
 * resource limits, a pipe that reports a failed exec, the
 * output pipe and the size-capped log file it is drained into, exit
 * status and CPU accounting, and the SIGTERM-then-SIGKILL teardown of the
 * whole group.  See proc.h for the contract.
 */
#define _GNU_SOURCE /* close_range, wait4 */

#include "proc.h"
#include "cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

/* One read() worth of output.  Drain reads at most DRAIN_MAX_READS chunks
 * per call so a bot that writes as fast as we read cannot pin the referee
 * inside a single drain; poll() reports the fd readable again. */
enum { CHUNK = 64 * 1024, DRAIN_MAX_READS = 64 };

/* The first bytes of a bot's output are kept for messages about a bot that
 * could not start (maat_proc_output_head), log or no log. */
enum { HEAD_MAX = 1024 };

/* Upper bound for the close() loop used only if close_range() is
 * unavailable (pre-5.9 kernels). */
enum { CLOSE_LOOP_MAX = 65536 };

struct maat_proc {
    pid_t pid;          /* main process; also the process group id */
    pid_t bot_pid;      /* the bot itself: pid, or the end of a wrapper's chain */
    pid_t bot_pgid;     /* its process group (a wrapper may start a new one) */
    clockid_t cpu_clock; /* its CPU-time clock (looked up once: a syscall) */
    bool has_cpu_clock;
    int out_fd;         /* pipe read end, O_NONBLOCK; -1 after EOF */
    int log_fd;         /* -1 when output is discarded */
    int gate_fd;        /* the start gate's read end, or -1 (spawn_gated) */
    bool gate_shut;     /* the gate's byte was found still there */
    uint64_t log_cap;   /* 0 = unlimited */
    uint64_t logged;    /* bytes written to the log (marker excluded) */
    uint64_t out_bytes; /* bytes read from the pipe */
    uint64_t dropped;   /* bytes read but cut by log_cap */
    bool truncated;     /* the truncation marker has been written */
    bool log_failed;    /* a log write failed; stop trying */
    long tag;           /* >= 0: each line in the log starts "TAG\t" */
    bool mid_line;      /* the output's last byte was not a newline */
    bool log_mid_line;  /* the log's last byte kept was not a newline */
    maat_cgroup *cgroup; /* with a memory limit or task_group: its group */
    uint64_t oom_kills;  /* the group's, kept when it is removed */
    uint64_t memory_peak;
    bool exited;        /* main process reaped; status/ru valid */
    bool stopped;       /* maat_proc_stop has run */
    int status;
    struct rusage ru;
    char head[HEAD_MAX]; /* the first bytes of output */
    size_t head_len;
};

/* ---- everything the child needs, prepared before fork ------------------ */

/* fork() copies the parent's memory, but in the child only async-signal-
 * safe calls are allowed (another thread of the referee may have held the
 * malloc lock at fork time).  So argv, envp and limits are all built here
 * and the child only issues system calls. */
typedef struct child_plan {
    char *sh_argv[4];   /* sh -c COMMAND */
    char **argv;        /* sh_argv, or the plain command's own words */
    char **envp;
    const char *cwd;
    int null_fd;    /* /dev/null, becomes stdin */
    int out_fd;     /* pipe write end, becomes stdout and stderr */
    int exec_fd;    /* close-on-exec pipe: gets errno if exec fails */
    int gate_fd;    /* -1, or the start gate's read end: becomes fd 4 */
    int pass_fd;    /* -1, or a descriptor for the wrapper: becomes fd 5 */
    pid_t parent;   /* to detect that the referee died before PDEATHSIG */
    const maat_cgroup *cgroup; /* NULL, or the group to join first */
    struct {
        int resource;
        struct rlimit rl;
        const char *name;
    } limits[5];
    int nlimits;
} child_plan;

static size_t env_name_len(const char *entry)
{
    const char *eq = strchr(entry, '=');
    return eq ? (size_t)(eq - entry) : strlen(entry);
}

/* Is `entry` ("NAME=value") overridden by one of `add`? */
static bool env_overridden(const char *entry, char *const add[])
{
    size_t n = env_name_len(entry);
    for (size_t i = 0; add && add[i]; i++)
        if (env_name_len(add[i]) == n && strncmp(entry, add[i], n) == 0)
            return true;
    return false;
}

/* The inherited environment (none when `clean`) with `add` layered on
 * top (later entries of the same name replace earlier ones, as setenv
 * would).  The strings are borrowed, only the pointer array is
 * allocated. */
static char **build_envp(char *const add[], int clean, maat_error *err)
{
    size_t nenv = 0, nadd = 0;
    while (!clean && environ && environ[nenv])
        nenv++;
    for (; add && add[nadd]; nadd++) {
        if (!strchr(add[nadd], '=') || add[nadd][0] == '=') {
            maat_error_set(err, MAAT_EINVAL,
                           "bot env entry '%s' is not NAME=value", add[nadd]);
            return NULL;
        }
    }
    char **envp = malloc((nenv + nadd + 1) * sizeof *envp);
    if (!envp) {
        maat_error_set(err, MAAT_ENOMEM, "out of memory building bot env");
        return NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < nenv; i++)
        if (!env_overridden(environ[i], add))
            envp[k++] = environ[i];
    for (size_t i = 0; i < nadd; i++)
        if (!env_overridden(add[i], add + i + 1))
            envp[k++] = add[i];
    envp[k] = NULL;
    return envp;
}

/* A limit cannot be raised above the referee's own hard limit without
 * privilege, so clamp to it rather than fail in the child. */
static void plan_limit(child_plan *cp, int resource, const char *name,
                       uint64_t soft, uint64_t hard)
{
    struct rlimit cur;
    if (getrlimit(resource, &cur) != 0)
        cur.rlim_max = RLIM_INFINITY;
    rlim_t max = hard >= (uint64_t)RLIM_INFINITY ? RLIM_INFINITY - 1
                                                 : (rlim_t)hard;
    if (cur.rlim_max != RLIM_INFINITY && max > cur.rlim_max)
        max = cur.rlim_max;
    rlim_t lo = soft > (uint64_t)max ? max : (rlim_t)soft;
    cp->limits[cp->nlimits].resource = resource;
    cp->limits[cp->nlimits].name = name;
    cp->limits[cp->nlimits].rl.rlim_cur = lo;
    cp->limits[cp->nlimits].rl.rlim_max = max;
    cp->nlimits++;
}

uint64_t maat_proc_user_tasks(uid_t uid)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    uint64_t tasks = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[64], text[4096];
        snprintf(path, sizeof path, "/proc/%.20s/status", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue; /* gone since */
        ssize_t n = read(fd, text, sizeof text - 1);
        close(fd);
        if (n <= 0)
            continue;
        text[n] = 0;
        const char *u = strstr(text, "\nUid:"), *t = strstr(text, "\nThreads:");
        if (u && t && strtoul(u + 5, NULL, 10) == (unsigned long)uid)
            tasks += strtoull(t + 9, NULL, 10);
    }
    closedir(d);
    return tasks;
}

static void plan_limits(child_plan *cp, const maat_proc_limits *lim)
{
    /* A crashing bot must not drop core files into its working directory:
     * the referee promises bots never fill the disk. */
    plan_limit(cp, RLIMIT_CORE, "RLIMIT_CORE", 0, 0);
    if (lim->address_space)
        plan_limit(cp, RLIMIT_AS, "RLIMIT_AS", lim->address_space,
                   lim->address_space);
    if (lim->cpu_seconds) /* SIGXCPU at the soft limit, SIGKILL 1 s later */
        plan_limit(cp, RLIMIT_CPU, "RLIMIT_CPU", lim->cpu_seconds,
                   lim->cpu_seconds + 1);
    if (lim->processes && !lim->nproc_inside)
        plan_limit(cp, RLIMIT_NPROC, "RLIMIT_NPROC",
                   lim->processes + lim->nproc_base,
                   lim->processes + lim->nproc_base);
    if (lim->open_files)
        plan_limit(cp, RLIMIT_NOFILE, "RLIMIT_NOFILE", lim->open_files,
                   lim->open_files);
}

/* ---- the child, between fork and exec ---------------------------------- */

/* Async-signal-safe message to stderr (which is the log by then):
 * "maat: <what> <arg>: errno N".  strerror is not async-signal-safe. */
static void child_say(const char *what, const char *arg, int e)
{
    char num[16];
    int i = (int)sizeof num;
    unsigned u = (unsigned)e;
    do {
        num[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u && i > 0);
    const char *parts[] = {"maat: ", what, " ", arg ? arg : "", ": errno "};
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++)
        if (write(2, parts[k], strlen(parts[k])) < 0)
            return;
    if (write(2, num + i, sizeof num - (size_t)i) < 0)
        return;
    if (write(2, "\n", 1) < 0)
        return;
}

static _Noreturn void child_fail(const char *what, const char *arg)
{
    child_say(what, arg, errno);
    _exit(127);
}

/* The referee blocks SIGCHLD/SIGINT/SIGTERM for its signalfd and may
 * ignore SIGPIPE; both the mask and SIG_IGN survive exec, so a bot would
 * otherwise be unkillable by SIGTERM.  Errors (SIGKILL, SIGSTOP, glibc's
 * internal real-time signals) are expected and harmless. */
static void child_reset_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    for (int sig = 1; sig < NSIG; sig++)
        (void)sigaction(sig, &sa, NULL);
    sigset_t none;
    sigemptyset(&none);
    (void)sigprocmask(SIG_SETMASK, &none, NULL);
}

static void child_setup_fds(const child_plan *cp)
{
    /* Both source fds are >= 3 (see fd_above_stdio), so dup2 never sees
     * source == target, which would keep FD_CLOEXEC set. */
    if (dup2(cp->null_fd, 0) < 0 || dup2(cp->out_fd, 1) < 0 ||
        dup2(cp->out_fd, 2) < 0)
        _exit(127); /* no stderr to report on yet */
    /* The exec-failure pipe becomes fd 3, still closed by exec itself. */
    if ((cp->exec_fd != 3 && dup2(cp->exec_fd, 3) < 0) ||
        fcntl(3, F_SETFD, FD_CLOEXEC) != 0)
        _exit(127);
    /* The start gate becomes fd 4 and the passed descriptor fd 5, kept
     * across exec (their sources are >= 10, so never 3-5: see spawn). */
    int first_closed = 4;
    if (cp->gate_fd >= 0) {
        if (dup2(cp->gate_fd, MAAT_PROC_GATE_FD) < 0)
            _exit(127);
        first_closed = MAAT_PROC_GATE_FD + 1;
    }
    if (cp->pass_fd >= 0) {
        if (dup2(cp->pass_fd, MAAT_PROC_PASS_FD) < 0)
            _exit(127);
        first_closed = MAAT_PROC_PASS_FD + 1;
    }
    /* Nothing else the referee has open (sockets, other bots' pipes, logs)
     * may leak into a bot, even fds opened without O_CLOEXEC. */
    if (close_range((unsigned)first_closed, ~0U, 0) != 0)
        for (int fd = first_closed; fd < CLOSE_LOOP_MAX; fd++)
            (void)close(fd);
}

/* Marks an errno the child sends back that is not exec's: joining the
 * bot's cgroup failed (spawn says so). */
enum { JOIN_FAILED = 1 << 24 };

static _Noreturn void child_run(const child_plan *cp)
{
    /* Into the bot's cgroup before anything else, so all it ever uses is
     * counted there; if that fails the bot must not run unbounded. */
    if (cp->cgroup) {
        int e = maat_cgroup_join(cp->cgroup) | JOIN_FAILED;
        if (e != JOIN_FAILED) {
            (void)!write(cp->exec_fd, &e, sizeof e);
            _exit(127);
        }
    }
    /* Own group first, so a stop() racing with this start still reaches
     * everything the bot will ever fork. */
    if (setpgid(0, 0) != 0)
        _exit(127);
    /* Die with the referee; if it already died before the prctl took
     * effect, the parent has changed and nobody would ever stop us. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != cp->parent)
        _exit(127);
    child_reset_signals();
    child_setup_fds(cp);
    for (int i = 0; i < cp->nlimits; i++)
        if (setrlimit(cp->limits[i].resource, &cp->limits[i].rl) != 0)
            child_fail("cannot set", cp->limits[i].name);
    /* When memory runs out, the kernel's out-of-memory killer takes a bot
     * before the referee: it picks by memory used times this score.
     * Raising one's own needs no privilege; a bot may lower its own back
     * to the referee's, never below it (that needs CAP_SYS_RESOURCE, and
     * a root referee's write here makes 1000 the least). */
    int oom = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (oom >= 0) {
        (void)!write(oom, "1000", 4);
        close(oom);
    }
    if (cp->cwd && chdir(cp->cwd) != 0)
        child_fail("cannot chdir to", cp->cwd);
    execve(cp->argv[0] == cp->sh_argv[0] ? "/bin/sh" : cp->argv[0],
           cp->argv, cp->envp);
    int e = errno; /* tell the parent (fd 3 is the exec pipe), then say it */
    if (write(3, &e, sizeof e) < 0)
        e = errno;
    child_fail("cannot exec", cp->argv[0] == cp->sh_argv[0] ? "/bin/sh"
                                                           : cp->argv[0]);
}

/* ---- spawn --------------------------------------------------------------- */

/* A command of plain words -- letters, digits and _./,:+@%=- -- and of
 * text in single quotes (which sh takes as it is; \' outside quotes is a
 * quote), separated by blanks: no variables, globs, redirections or
 * other quoting -- whose first word is a path (has a '/', no '=') means
 * the same with or without a shell, which would only split it at the
 * blanks and take the quotes off.  Such a command is exec'd directly: one
 * exec and one shell start-up less per bot (ladders start bots for every
 * match), and with the sandbox's quoted paths (sandbox.c) two.  A leading
 * "exec" is dropped. */
int maat_proc_shell_can_exec(const char *cmd)
{
    static const char *const reserved[] = {"if", "then", "else", "elif",
        "fi", "do", "done", "case", "esac", "while", "until", "for", "in",
        "exec", NULL};
    if (strlen(cmd) >= 4000 || strpbrk(cmd, ";&|\n()`"))
        return 0;
    cmd += strspn(cmd, " \t");
    size_t n = strcspn(cmd, " \t");
    if (n == 0 || *cmd == '{' || *cmd == '}' || *cmd == '!')
        return 0;
    for (const char *const *r = reserved; *r; r++)
        if (strlen(*r) == n && strncmp(cmd, *r, n) == 0)
            return 0;
    /* NAME=... first: an assignment */
    size_t name = strspn(cmd, "abcdefghijklmnopqrstuvwxyz"
                              "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
    if (name > 0 && name < n && cmd[name] == '=' &&
        !(cmd[0] >= '0' && cmd[0] <= '9'))
        return 0;
    return 1;
}

char **maat_proc_words(const char *cmd)
{
    static const char plain[] = "abcdefghijklmnopqrstuvwxyz"
                                "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                "0123456789_./,:+@%=-";
    size_t len = strlen(cmd);
    if (len > (1 << 20)) /* more than any command it is given (a sandbox's:
                          * MATCH_BOXED_MAX, 256 KiB) */
        return NULL;
    /* a word takes a byte and a blank at least, '' two: n <= len/2 + 1;
     * the words' text is never longer than the command's */
    size_t max_words = len / 2 + 2;
    char **argv = malloc(max_words * sizeof *argv + len + 1);
    if (!argv)
        return NULL;
    char *out = (char *)(argv + max_words);
    size_t n = 0;
    for (const char *s = cmd;;) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            break;
        argv[n++] = out;
        while (*s && *s != ' ' && *s != '\t') {
            const char *close = *s == '\'' ? strchr(s + 1, '\'') : NULL;
            if (close) { /* 'text': as it is */
                memcpy(out, s + 1, (size_t)(close - s - 1));
                out += close - s - 1;
                s = close + 1;
            } else if (s[0] == '\\' && s[1] == '\'') {
                *out++ = '\'';
                s += 2;
            } else if (*s != '\'' && strchr(plain, *s)) {
                *out++ = *s++;
            } else { /* shell syntax, or a quote left open */
                free(argv);
                return NULL;
            }
        }
        *out++ = 0;
    }
    argv[n] = NULL;
    if (n > 0 && strcmp(argv[0], "exec") == 0) /* the words after it */
        memmove(argv, argv + 1, n-- * sizeof *argv);
    if (n == 0 || !strchr(argv[0], '/') || strchr(argv[0], '=')) {
        free(argv);
        return NULL;
    }
    return argv;
}

int maat_proc_check_program(const char *cmd, maat_error *err)
{
    char **argv = maat_proc_words(cmd);
    if (!argv)
        return MAAT_OK; /* a shell command: only running it can tell */
    struct stat st;
    int rc = MAAT_OK;
    if (stat(argv[0], &st) != 0)
        rc = maat_error_set(err, MAAT_EIO, "cannot spawn %s: %s", argv[0],
                            strerror(errno));
    else if (S_ISDIR(st.st_mode) || access(argv[0], X_OK) != 0)
        rc = maat_error_set(err, MAAT_EIO, "cannot spawn %s: %s", argv[0],
                            S_ISDIR(st.st_mode) ? "it is a directory"
                                                : strerror(errno));
    free(argv);
    return rc;
}

/* Keep our fds off 0..2: if the referee runs with a closed stdio fd, a
 * pipe end could land there and the child's dup2 would misbehave. */
static int fd_above_stdio(int fd)
{
    if (fd < 0 || fd > 2)
        return fd;
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    int saved = errno;
    close(fd);
    errno = saved;
    return moved;
}

static void close_if_open(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static int open_log(const char *log_path, maat_error *err)
{
    if (!log_path)
        return -1;
    int fd = fd_above_stdio(
        open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (fd < 0)
        maat_error_set(err, MAAT_EIO, "cannot open bot log %s: %s", log_path,
                       strerror(errno));
    return fd;
}

/* The pipe and /dev/null for the child; on success pipefd[0] is the
 * parent's non-blocking read end. */
static int open_child_fds(int pipefd[2], int *null_fd, maat_error *err)
{
    if (pipe2(pipefd, O_CLOEXEC) != 0)
        return maat_error_set(err, MAAT_EIO, "cannot create bot pipe: %s",
                              strerror(errno));
    pipefd[0] = fd_above_stdio(pipefd[0]);
    pipefd[1] = fd_above_stdio(pipefd[1]);
    *null_fd = fd_above_stdio(open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (pipefd[0] < 0 || pipefd[1] < 0 || *null_fd < 0 ||
        fcntl(pipefd[0], F_SETFL, O_NONBLOCK) != 0) {
        int e = errno;
        close_if_open(&pipefd[0]);
        close_if_open(&pipefd[1]);
        close_if_open(null_fd);
        return maat_error_set(err, MAAT_EIO,
                              "cannot set up bot stdio (/dev/null, pipe): %s",
                              strerror(e));
    }
    return MAAT_OK;
}

/* A close-on-exec pipe for the child to report a failed exec on. */
static int open_exec_pipe(int fds[2], maat_error *err)
{
    if (pipe2(fds, O_CLOEXEC) != 0)
        return maat_error_set(err, MAAT_EIO, "cannot create a pipe: %s",
                              strerror(errno));
    fds[0] = fd_above_stdio(fds[0]);
    fds[1] = fd_above_stdio(fds[1]);
    if (fds[0] < 0 || fds[1] < 0) {
        int e = errno;
        close_if_open(&fds[0]);
        close_if_open(&fds[1]);
        return maat_error_set(err, MAAT_EIO, "cannot create a pipe: %s",
                              strerror(e));
    }
    return MAAT_OK;
}

/* Wait for the child's exec: end of file (exec closed the pipe) is
 * success, 0; an errno value read is the reason exec failed.  Closes fd. */
static int exec_result(int fd)
{
    int e = 0;
    ssize_t r;
    while ((r = read(fd, &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(fd);
    return r == (ssize_t)sizeof e ? e : 0;
}

/* The start gate: a pipe holding one byte.  The child gets the read end
 * as fd 4 (child_setup_fds); the parent keeps a read end of its own, to
 * see later whether the byte was taken (maat_proc_gate_passed), and
 * closes the write end, so the pipe is at its end once the byte is gone.
 * Both read ends are put at 10 or above, out of the way of the child's
 * dup2s to 0-4. */
static int open_gate(int *child_end, int *parent_end, maat_error *err)
{
    int fds[2];
    *child_end = *parent_end = -1;
    if (pipe2(fds, O_CLOEXEC) != 0)
        return maat_error_set(err, MAAT_EIO, "cannot create a pipe: %s",
                              strerror(errno));
    *child_end = fcntl(fds[0], F_DUPFD_CLOEXEC, 10);
    *parent_end = fcntl(fds[0], F_DUPFD_CLOEXEC, 10);
    int ok = *child_end >= 0 && *parent_end >= 0 &&
             fcntl(*parent_end, F_SETFL, O_NONBLOCK) == 0 &&
             write(fds[1], "g", 1) == 1;
    int e = errno;
    close(fds[0]);
    close(fds[1]);
    if (!ok) {
        close_if_open(child_end);
        close_if_open(parent_end);
        return maat_error_set(err, MAAT_EIO, "cannot create a pipe: %s",
                              strerror(e));
    }
    return MAAT_OK;
}

static maat_proc *spawn(const char *cmd, char *const env[],
                        const char *log_path, const char *cwd,
                        const maat_proc_limits *lim, int gated, int pass_fd,
                        maat_error *err)
{
    static const maat_proc_limits no_limits;
    if (!cmd) {
        maat_error_set(err, MAAT_EINVAL, "bot command is NULL");
        return NULL;
    }
    if (!lim)
        lim = &no_limits;

    maat_proc *p = calloc(1, sizeof *p);
    if (!p) {
        maat_error_set(err, MAAT_ENOMEM, "out of memory spawning '%s'", cmd);
        return NULL;
    }
    p->pid = -1;
    p->out_fd = -1;
    p->gate_fd = -1;
    p->log_cap = lim->log_cap;
    p->tag = -1;
    p->log_fd = open_log(log_path, err);
    if (log_path && p->log_fd < 0) {
        free(p);
        return NULL;
    }

    static char sh[] = "sh", dash_c[] = "-c";
    child_plan cp = {.sh_argv = {sh, dash_c, (char *)cmd, NULL},
                     .cwd = cwd,
                     .gate_fd = -1,
                     .pass_fd = -1,
                     .parent = getpid()};
    char **words = maat_proc_words(cmd);
    cp.argv = words ? words : cp.sh_argv;
    if (lim->memory || (lim->task_group && lim->processes)) {
        p->cgroup = maat_cgroup_new(lim->memory, lim->processes, err);
        if (!p->cgroup)
            goto fail;
        cp.cgroup = p->cgroup;
    }
    plan_limits(&cp, lim);
    int pipefd[2] = {-1, -1}, execfd[2] = {-1, -1};
    cp.envp = build_envp(env, lim->clean_env, err);
    if (!cp.envp || open_child_fds(pipefd, &cp.null_fd, err) != MAAT_OK)
        goto fail;
    cp.out_fd = pipefd[1];
    if (open_exec_pipe(execfd, err) != MAAT_OK) {
        close(pipefd[0]);
        close(pipefd[1]);
        close(cp.null_fd);
        goto fail;
    }
    cp.exec_fd = execfd[1];
    int extras_ok = !gated ||
                    open_gate(&cp.gate_fd, &p->gate_fd, err) == MAAT_OK;
    if (extras_ok && pass_fd >= 0) { /* at 10 or above, as the gate */
        cp.pass_fd = fcntl(pass_fd, F_DUPFD_CLOEXEC, 10);
        if (cp.pass_fd < 0)
            extras_ok = !maat_error_set(err, MAAT_EIO, "cannot duplicate a "
                                        "descriptor: %s", strerror(errno));
    }
    if (!extras_ok) {
        close(pipefd[0]);
        close(pipefd[1]);
        close(cp.null_fd);
        close(execfd[0]);
        close(execfd[1]);
        close_if_open(&cp.gate_fd);
        goto fail;
    }

    pid_t pid = fork();
    if (pid == 0)
        child_run(&cp);
    int fork_errno = errno;
    close(cp.null_fd);
    close(pipefd[1]);
    close(execfd[1]);
    close_if_open(&cp.gate_fd);
    close_if_open(&cp.pass_fd);
    if (pid < 0) {
        close(pipefd[0]);
        close(execfd[0]);
        maat_error_set(err, MAAT_EIO, "cannot fork for bot '%s': %s", cmd,
                       strerror(fork_errno));
        goto fail;
    }
    int exec_errno = exec_result(execfd[0]);
    if (exec_errno) { /* the child has _exit'ed or is about to: reap it */
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        close(pipefd[0]);
        if (exec_errno & JOIN_FAILED)
            maat_error_set(err, MAAT_EHOST, "cannot put the bot in its "
                           "cgroup %s: %s", maat_cgroup_path(p->cgroup),
                           strerror(exec_errno & ~JOIN_FAILED));
        else
            maat_error_set(err, MAAT_EIO, "cannot spawn %s: %s",
                           cp.argv[0] == cp.sh_argv[0] ? "/bin/sh"
                                                       : cp.argv[0],
                           strerror(exec_errno));
        goto fail;
    }
    free(cp.envp);
    free(words);
    cp.envp = NULL;
    /* Also done in the child; doing it here too means the group exists
     * when spawn returns, whichever side runs first.  EACCES (the child
     * already exec'd, so it did its own setpgid) is fine. */
    (void)setpgid(pid, pid);
    p->pid = pid;
    p->out_fd = pipefd[0];
    p->has_cpu_clock = clock_getcpuclockid(pid, &p->cpu_clock) == 0;
    return p;

fail:
    free(cp.envp);
    free(words);
    maat_cgroup_destroy(&p->cgroup);
    close_if_open(&p->log_fd);
    close_if_open(&p->gate_fd);
    free(p);
    return NULL;
}

maat_proc *maat_proc_spawn(const char *cmd, char *const env[],
                           const char *log_path, const char *cwd,
                           const maat_proc_limits *lim, maat_error *err)
{
    return spawn(cmd, env, log_path, cwd, lim, 0, -1, err);
}

maat_proc *maat_proc_spawn_gated(const char *cmd, char *const env[],
                                 const char *log_path, const char *cwd,
                                 const maat_proc_limits *lim, int pass_fd,
                                 maat_error *err)
{
    return spawn(cmd, env, log_path, cwd, lim, 1, pass_fd, err);
}

int maat_proc_gate_passed(maat_proc *p)
{
    if (p->gate_fd < 0)
        return !p->gate_shut;
    char c;
    ssize_t r;
    while ((r = read(p->gate_fd, &c, 1)) < 0 && errno == EINTR)
        ;
    if (r <= 0) /* taken: the pipe is at its end (EAGAIN cannot be) */
        return 1;
    close_if_open(&p->gate_fd); /* the byte: never taken, and now gone */
    p->gate_shut = true;
    return 0;
}

pid_t maat_proc_pid(const maat_proc *p)
{
    return p->pid;
}

pid_t maat_proc_bot_pid(const maat_proc *p)
{
    return p->bot_pid > 0 ? p->bot_pid : p->pid;
}

pid_t maat_proc_bot_pgid(const maat_proc *p)
{
    if (p->exited) /* its group is gone, and its number may be anyone's */
        return 0;
    return p->bot_pgid > 0 ? p->bot_pgid : p->pid;
}

int maat_proc_output_fd(const maat_proc *p)
{
    return p->out_fd;
}

uint64_t maat_proc_output_bytes(const maat_proc *p)
{
    return p->out_bytes;
}

uint64_t maat_proc_dropped_bytes(const maat_proc *p)
{
    return p->dropped;
}

/* ---- output -------------------------------------------------------------- */

static bool write_all(int fd, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        buf += w;
        n -= (size_t)w;
    }
    return true;
}

static void log_write(maat_proc *p, const char *buf, size_t n)
{
    if (p->log_fd >= 0 && !p->log_failed && !write_all(p->log_fd, buf, n))
        p->log_failed = true; /* disk full etc.: keep draining, stop logging */
}

/* Bytes under the cap go to the log; the rest are counted as dropped, with
 * one marker line at the cut. */
static void log_capped(maat_proc *p, const char *buf, size_t n)
{
    size_t keep = n;
    if (p->log_cap && p->logged + n > p->log_cap)
        keep = (size_t)(p->log_cap - p->logged);
    log_write(p, buf, keep);
    p->logged += keep;
    if (keep > 0)
        p->log_mid_line = buf[keep - 1] != '\n';
    if (keep == n)
        return;
    p->dropped += n - keep;
    if (!p->truncated) {
        char line[64];
        int len = snprintf(line, sizeof line,
                           "%s[maat: log truncated at %llu bytes]\n",
                           p->log_mid_line ? "\n" : "",
                           (unsigned long long)p->log_cap);
        log_write(p, line, (size_t)len);
        p->truncated = true;
    }
}

/* Route one chunk of output: kept for maat_proc_output_head, then into
 * the log, each line prefixed with the tag (the decision being played)
 * when there is one. */
static void log_chunk(maat_proc *p, const char *buf, size_t n)
{
    size_t h = n < HEAD_MAX - p->head_len ? n : HEAD_MAX - p->head_len;
    memcpy(p->head + p->head_len, buf, h);
    p->head_len += h;
    p->out_bytes += n;
    if (p->log_fd < 0)
        return; /* discarding by request, not by the cap */
    while (n > 0) {
        if (!p->mid_line && p->tag >= 0) {
            char prefix[24];
            int len = snprintf(prefix, sizeof prefix, "%ld\t", p->tag);
            log_capped(p, prefix, (size_t)len);
        }
        const char *nl = memchr(buf, '\n', n);
        size_t line = nl ? (size_t)(nl - buf) + 1 : n;
        log_capped(p, buf, line);
        p->mid_line = nl == NULL;
        buf += line;
        n -= line;
    }
}

void maat_proc_set_tag(maat_proc *p, long tag)
{
    p->tag = tag;
}

int maat_proc_set_log(maat_proc *p, const char *log_path, maat_error *err)
{
    maat_error local; /* err is optional; its code is read below */
    if (!err)
        err = &local;
    maat_proc_drain(p); /* what was written so far belongs to the old log */
    int fd = open_log(log_path, err);
    if (log_path && fd < 0)
        return err->code;
    close_if_open(&p->log_fd);
    p->log_fd = fd;
    p->logged = 0;
    p->truncated = p->log_failed = p->mid_line = p->log_mid_line = false;
    return MAAT_OK;
}

size_t maat_proc_drain(maat_proc *p)
{
    char buf[CHUNK];
    size_t total = 0;
    for (int i = 0; p->out_fd >= 0 && i < DRAIN_MAX_READS; i++) {
        ssize_t r = read(p->out_fd, buf, sizeof buf);
        if (r > 0) {
            log_chunk(p, buf, (size_t)r);
            total += (size_t)r;
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        /* EOF: every writer (the whole group) is gone.  A read error other
         * than EAGAIN cannot be recovered from either. */
        close_if_open(&p->out_fd);
    }
    return total;
}

void maat_proc_output_head(const maat_proc *p, int max_lines, char *buf,
                           size_t len)
{
    size_t n = 0;
    int lines = 0, gap = 0;
    if (!len)
        return;
    for (size_t i = 0; i < p->head_len && lines < max_lines; i++) {
        unsigned char ch = (unsigned char)p->head[i];
        if (ch == '\n') {
            lines++;
            gap = n > 0;
            continue;
        }
        if (gap) { /* lines are joined with " | " */
            if (n + 3 >= len)
                break;
            memcpy(buf + n, " | ", 3);
            n += 3;
            gap = 0;
        }
        if (n + 1 >= len)
            break;
        /* ASCII controls out; bytes from 0x80 stay, for the caller's
         * maat_text_sanitize (outcome.h) to keep valid UTF-8 (an error
         * message in French keeps its accents) and turn broken sequences,
         * C1 and bidirectional controls into '?' */
        buf[n++] = ch == '\t' ? ' ' : ch < 0x20 || ch == 0x7f ? '?'
                                                              : (char)ch;
    }
    buf[n] = 0;
}

/* ---- exit and CPU -------------------------------------------------------- */

/* Once the main process is reaped its number is free, and the group named
 * by it could one day be an unrelated one: so, found dead, it is first
 * looked at without being reaped (WNOWAIT), its group -- the stragglers of
 * a bot that is gone -- is killed while the zombie still holds the number,
 * and only then is it reaped.  Nothing signals the group after that. */
int maat_proc_exited(maat_proc *p, int *status)
{
    while (!p->exited) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_PID, (id_t)p->pid, &si,
                   WEXITED | WNOHANG | WNOWAIT) < 0) {
            if (errno == EINTR)
                continue;
            /* ECHILD: someone else reaped it (a waitpid(-1) of the
             * program using this library); the status is lost, report a
             * plain exit. */
            p->status = 0;
            p->exited = true;
            break;
        }
        if (si.si_pid == 0)
            return 0;
        if (p->pid > 1)
            (void)kill(-p->pid, SIGKILL);
        int st;
        struct rusage ru;
        pid_t r;
        while ((r = wait4(p->pid, &st, 0, &ru)) < 0 && errno == EINTR)
            ;
        if (r == p->pid) {
            p->status = st;
            p->ru = ru;
        }
        p->exited = true;
    }
    if (status)
        *status = p->status;
    return 1;
}

uint64_t maat_proc_oom_kills(const maat_proc *p)
{
    return p->cgroup ? maat_cgroup_oom_kills(p->cgroup) : p->oom_kills;
}

uint64_t maat_proc_memory_peak(const maat_proc *p)
{
    return p->cgroup ? maat_cgroup_memory_peak(p->cgroup) : p->memory_peak;
}

static uint64_t timeval_ns(struct timeval tv)
{
    return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

/* The only child of pid, or 0 (none, several, or unreadable). */
static pid_t only_child(pid_t pid)
{
    char path[64], buf[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid,
             (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    char *end;
    long child = strtol(buf, &end, 10);
    while (*end == ' ' || *end == '\n')
        end++;
    return *end || child <= 0 ? 0 : (pid_t)child;
}

void maat_proc_follow_wrapper(maat_proc *p)
{
    pid_t pid = p->pid, next;
    for (int depth = 0; depth < 4 && (next = only_child(pid)); depth++)
        pid = next;
    clockid_t clock;
    p->bot_pid = pid;
    p->bot_pgid = pid != p->pid ? getpgid(pid) : 0;
    if (pid != p->pid && clock_getcpuclockid(pid, &clock) == 0) {
        p->cpu_clock = clock;
        p->has_cpu_clock = true;
    }
}

uint64_t maat_proc_cpu_ns(maat_proc *p)
{
    if (!p->exited) {
        struct timespec ts;
        if (p->has_cpu_clock && clock_gettime(p->cpu_clock, &ts) == 0)
            return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        /* The clock goes away once the process is a zombie: fall through to
         * the rusage if it has in fact exited. */
        if (!maat_proc_exited(p, NULL))
            return 0;
    }
    return timeval_ns(p->ru.ru_utime) + timeval_ns(p->ru.ru_stime);
}

uint64_t maat_proc_machine_oom_kills(void)
{
    /* the whole file (4 KiB here; more with more counters), read to its
     * end: one read() need not give it all */
    char buf[65536];
    size_t len = 0;
    ssize_t n;
    int fd = open("/proc/vmstat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    while (len < sizeof buf - 1 &&
           ((n = read(fd, buf + len, sizeof buf - 1 - len)) > 0 ||
            (n < 0 && errno == EINTR)))
        len += n > 0 ? (size_t)n : 0;
    close(fd);
    buf[len] = 0;
    const char *at = strstr(buf, "\noom_kill ");
    return at ? strtoull(at + 10, NULL, 10) : 0;
}

void maat_proc_describe_exit(int status, char *buf, size_t len)
{
    if (!buf || len == 0)
        return;
    if (WIFEXITED(status))
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else if (WIFSTOPPED(status))
        snprintf(buf, len, "stopped by signal %d (%s)", WSTOPSIG(status),
                 strsignal(WSTOPSIG(status)));
    else
        snprintf(buf, len, "unknown wait status 0x%x", (unsigned)status);
}

/* ---- teardown ------------------------------------------------------------ */

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Signal the group and, separately, the main process: a bot may have
 * moved its main process to another group (setpgid), and the blocking
 * reap below must never wait on a process we did not kill. */
static void signal_all(maat_proc *p, int sig)
{
    if (p->pid <= 1 || p->exited)
        return; /* never kill(-1) or kill(0); once reaped, its group was
                 * killed and its number may be anyone's (maat_proc_exited) */
    (void)kill(-p->pid, sig);
    (void)kill(p->pid, sig);
}

/* Wait up to grace_ms for the main process, draining meanwhile so a bot
 * that prints on its way out does not block on a full pipe. */
static void wait_main(maat_proc *p, int grace_ms)
{
    int64_t deadline = now_ms() + (grace_ms > 0 ? grace_ms : 0);
    while (!maat_proc_exited(p, NULL)) {
        maat_proc_drain(p);
        int64_t left = deadline - now_ms();
        if (left <= 0)
            return;
        struct timespec step = {0, (left < 5 ? left : 5) * 1000000L};
        nanosleep(&step, NULL);
    }
}

static void reap_main_blocking(maat_proc *p)
{
    while (!p->exited) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOWAIT) < 0 &&
            errno == EINTR)
            continue;
        maat_proc_exited(p, NULL); /* dead now: kills the group, reaps */
    }
}

void maat_proc_stop(maat_proc *p, int grace_ms)
{
    if (!p)
        return;
    if (!p->stopped) {
        signal_all(p, SIGTERM);
        wait_main(p, grace_ms);
        /* Unconditionally: stragglers (background children) stay in the
         * group after the main process exits. */
        signal_all(p, SIGKILL);
        reap_main_blocking(p);
        /* If the referee is a child subreaper, dead group members were
         * reparented to it; reap those already gone.  Non-blocking: a
         * member that rejoined the group after the SIGKILL must not hang
         * the referee. */
        while (p->pid > 1 && waitpid(-p->pid, NULL, WNOHANG) > 0)
            ;
        /* Its cgroup holds every process the bot started, even one that
         * left the process group (setsid): what is left dies with it. */
        if (p->cgroup) {
            p->oom_kills = maat_cgroup_oom_kills(p->cgroup);
            p->memory_peak = maat_cgroup_memory_peak(p->cgroup);
            maat_cgroup_destroy(&p->cgroup);
        }
        p->stopped = true;
    }
    maat_proc_drain(p);
}

void maat_proc_destroy(maat_proc **pp)
{
    if (!pp || !*pp)
        return;
    maat_proc *p = *pp;
    maat_proc_stop(p, 500);
    close_if_open(&p->out_fd);
    close_if_open(&p->log_fd);
    close_if_open(&p->gate_fd);
    free(p);
    *pp = NULL;
}
