/* fairclock.c -- run-queue wait and CPU samples for a late decision, and
 * the credit they give (see fairclock.h for the rule and why). */
#define _GNU_SOURCE
#include "fairclock.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The whole of a small /proc file into buf (NUL-terminated); -1 if gone. */
static int slurp(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, cap - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = 0;
    return 0;
}

void maat_fair_watch_close(maat_fair_watch *w)
{
    for (int i = 0; i < w->n; i++)
        close(w->fd[i]);
    w->n = 0;
    w->pid = 0;
}

/* Open the schedstat file of every thread of `pid`; n = -1 if too many. */
static void watch_open(maat_fair_watch *w, pid_t pid)
{
    char dir[64], path[128];
    maat_fair_watch_close(w);
    w->pid = pid;
    snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        if (w->n == MAAT_FAIR_THREADS) { /* too many to tell */
            maat_fair_watch_close(w);
            w->pid = pid;
            w->n = -1;
            break;
        }
        snprintf(path, sizeof path, "%s/%.20s/schedstat", dir, e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            w->tid[w->n] = (int32_t)atoi(e->d_name);
            w->fd[w->n++] = fd;
        }
    }
    closedir(d);
}

/* The watched threads' schedstat into t, those that could be read (n = -1:
 * none, or too many threads); -1 if one could not be (a thread gone: the
 * watch is stale), else 0. */
static int watch_read(const maat_fair_watch *w, maat_fair_threads *t)
{
    char buf[128];
    int rc = w->n == 0 ? -1 : 0;
    t->n = 0;
    for (int i = 0; i < w->n; i++) {
        ssize_t k = pread(w->fd[i], buf, sizeof buf - 1, 0);
        unsigned long long r, wt;
        if (k > 0)
            buf[k] = 0;
        if (k <= 0 || sscanf(buf, "%llu %llu", &r, &wt) != 2) {
            rc = -1;
            continue;
        }
        t->tid[t->n] = w->tid[i];
        t->run[t->n] = (int64_t)r;
        t->wait[t->n] = (int64_t)wt;
        t->state[t->n++] = '?';
    }
    if (t->n == 0)
        t->n = -1;
    return rc;
}

/* One process through its watch, reopened once if stale or another's. */
static void watch_sample(maat_fair_watch *w, pid_t pid, maat_fair_threads *t)
{
    if (w->pid != pid || (w->n == 0))
        watch_open(w, pid);
    if (watch_read(w, t) != 0) {
        watch_open(w, pid);
        if (watch_read(w, t) != 0)
            t->n = -1;
    }
}

/* The state letter of a thread from its /proc stat ('R' running or ready
 * to run, 'S' asleep, ...), or '?'. */
static char thread_state(pid_t pid, int32_t tid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
    if (slurp(path, buf, sizeof buf))
        return '?';
    const char *p = strrchr(buf, ')'); /* the command name may hold ')' */
    return p && p[1] == ' ' && p[2] ? p[2] : '?';
}

/* schedstat of every thread of `pid`, listed afresh, and each one's state
 * when `states`; the calling thread's state is 'r' (it is running: it is
 * reading this). */
static void read_threads(pid_t pid, maat_fair_threads *t, int states)
{
    maat_fair_watch w = {0};
    watch_open(&w, pid);
    (void)watch_read(&w, t); /* the threads still there */
    maat_fair_watch_close(&w);
    int32_t me = pid == getpid() ? (int32_t)syscall(SYS_gettid) : -1;
    for (int i = 0; states && i < t->n; i++)
        t->state[i] = t->tid[i] == me ? 'r' : thread_state(pid, t->tid[i]);
}

void maat_fair_sample_quick(maat_fair_sample *s, maat_fair_watch *self,
                            maat_fair_watch *bot, pid_t bot_pid)
{
    s->at_ns = now_ns();
    watch_sample(self, getpid(), &s->ref);
    s->bot.n = -1;
    s->group_cpu_ns = -1;
    if (bot_pid > 0)
        watch_sample(bot, bot_pid, &s->bot);
}

/* CPU (user + system, every thread) of each process in process group
 * `pgid`, summed from /proc/N/stat.  Clock ticks, so 10 ms steps: enough
 * against a window of at least the grace. */
static int64_t group_cpu_ns(pid_t pgid)
{
    DIR *d = opendir("/proc");
    if (!d)
        return -1;
    long tick = sysconf(_SC_CLK_TCK);
    unsigned long long ns_per_tick = 1000000000ull / (unsigned long long)
                                                     (tick > 0 ? tick : 100);
    int64_t sum = 0;
    int seen = 0;
    struct dirent *e;
    char path[64], buf[1024];
    while ((e = readdir(d))) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        snprintf(path, sizeof path, "/proc/%.20s/stat", e->d_name);
        if (slurp(path, buf, sizeof buf))
            continue;
        /* after the command name in parentheses (which may hold spaces
         * and parentheses: the last ')' ends it) come state, ppid, pgrp,
         * session, tty, tpgid, flags, four fault counts, utime, stime */
        char *p = strrchr(buf, ')');
        long long pgrp;
        unsigned long long ut, st;
        if (!p || sscanf(p + 1, " %*c %*d %lld %*d %*d %*d %*u %*u %*u %*u "
                         "%*u %llu %llu", &pgrp, &ut, &st) != 3)
            continue;
        if (pgrp != (long long)pgid)
            continue;
        sum += (int64_t)((ut + st) * ns_per_tick);
        seen = 1;
    }
    closedir(d);
    return seen ? sum : -1;
}

void maat_fair_sample_take(maat_fair_sample *s, pid_t bot_pid, int group)
{
    s->at_ns = now_ns();
    read_threads(getpid(), &s->ref, group);
    s->bot.n = -1;
    s->group_cpu_ns = -1;
    if (bot_pid > 0) {
        read_threads(bot_pid, &s->bot, group);
        pid_t pgid = group ? getpgid(bot_pid) : -1;
        s->group_cpu_ns = pgid > 0 ? group_cpu_ns(pgid) : -1;
    }
}

static int64_t grew(int64_t a, int64_t b)
{
    return b > a ? b - a : 0;
}

/* From a to b: the wait of all threads summed, and their run time (a
 * thread born in between counts from zero).  0 and 0 if either sample is
 * unknown. */
static int64_t threads_wait(const maat_fair_threads *a,
                            const maat_fair_threads *b, int64_t *run)
{
    *run = 0;
    if (a->n < 0 || b->n < 0)
        return 0;
    int64_t wait = 0;
    for (int i = 0; i < b->n; i++) {
        int64_t w0 = 0, r0 = 0;
        for (int j = 0; j < a->n; j++)
            if (a->tid[j] == b->tid[i]) {
                w0 = a->wait[j];
                r0 = a->run[j];
            }
        wait += grew(w0, b->wait[i]);
        *run += grew(r0, b->run[i]);
    }
    return wait;
}

int64_t maat_fair_used(const maat_fair_sample *a, const maat_fair_sample *b)
{
    int64_t used;
    threads_wait(&a->bot, &b->bot, &used);
    if (a->group_cpu_ns >= 0 && b->group_cpu_ns >= 0) {
        /* its process group: its threads and every process it started */
        int64_t group = grew(a->group_cpu_ns, b->group_cpu_ns);
        used = group > used ? group : used;
    }
    return used;
}

int64_t maat_fair_credit(const maat_fair_sample *a, const maat_fair_sample *b)
{
    int64_t window = b->at_ns - a->at_ns, run, used;
    if (window <= 0)
        return 0;
    int64_t waited = threads_wait(&a->ref, &b->ref, &run);
    waited += threads_wait(&a->bot, &b->bot, &run);
    used = maat_fair_used(a, b);
    int64_t free = window - used; /* none of the bot's processes ran */
    int64_t credit = waited < free ? waited : free;
    return credit > 0 ? credit : 0;
}

int64_t maat_fair_credit_total(const maat_fair_sample *start,
                               const maat_fair_sample *full,
                               const maat_fair_sample *b, int64_t first_cap)
{
    int64_t credit = maat_fair_credit(start, b);
    if (start->group_cpu_ns >= 0)
        return credit; /* the group's CPU bounds it already */
    int64_t bound = first_cap; /* before `full`: no group CPU to go by */
    if (full) {
        int64_t free = b->at_ns - full->at_ns - maat_fair_used(full, b);
        bound += free > 0 ? free : 0;
    }
    return credit < bound ? credit : bound;
}

/* Is one of the threads of `t` ready to run but not running?  It is in
 * state R in `t`, and, when `before` is given, its run time did not grow
 * since (R alone may be a thread computing). */
static int queued_in(const maat_fair_threads *before,
                     const maat_fair_threads *t)
{
    for (int i = 0; i < t->n; i++) {
        if (t->state[i] != 'R')
            continue;
        if (!before)
            return 1;
        for (int j = 0; j < before->n; j++)
            if (before->tid[j] == t->tid[i] && before->run[j] == t->run[i])
                return 1;
    }
    return 0;
}

int maat_fair_queued(const maat_fair_sample *before, const maat_fair_sample *b)
{
    return queued_in(before ? &before->ref : NULL, &b->ref) ||
           queued_in(before ? &before->bot : NULL, &b->bot);
}

int maat_fair_available(void)
{
    maat_fair_threads t;
    read_threads(getpid(), &t, 0);
    return t.n > 0;
}
