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
#include <time.h>
#include <unistd.h>

#include "proc.h"

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

/* Sum of the run-queue wait (schedstat's second number) of every thread
 * of `pid` ("self" for the referee); -1 when unknown. */
static int64_t threads_wait_ns(const char *pid)
{
    char dir[64], path[128], buf[128];
    snprintf(dir, sizeof dir, "/proc/%s/task", pid);
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int64_t sum = 0;
    int seen = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        snprintf(path, sizeof path, "%s/%.20s/schedstat", dir, e->d_name);
        unsigned long long run, wait;
        if (slurp(path, buf, sizeof buf) == 0 &&
            sscanf(buf, "%llu %llu", &run, &wait) == 2) {
            sum += (int64_t)wait;
            seen = 1;
        }
    }
    closedir(d);
    return seen ? sum : -1;
}

/* CPU (user + system, every thread) of each process in process group
 * `pgid`, summed from /proc/N/stat: the bot's children count too.  Clock
 * ticks, so 10 ms steps: enough against a window of at least the grace. */
static int64_t group_cpu_ns(pid_t pgid)
{
    DIR *d = opendir("/proc");
    if (!d)
        return -1;
    long tick = sysconf(_SC_CLK_TCK);
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
         * then utime and stime as the 12th and 13th fields after it */
        char *p = strrchr(buf, ')');
        long long pgrp;
        unsigned long long ut, st;
        if (!p || sscanf(p + 1, " %*c %*d %lld %*d %*d %*d %*u %*u %*u %*u "
                         "%*u %llu %llu", &pgrp, &ut, &st) != 3)
            continue;
        if (pgrp != (long long)pgid)
            continue;
        sum += (int64_t)((ut + st) * (1000000000ull / (unsigned long long)
                                                    (tick > 0 ? tick : 100)));
        seen = 1;
    }
    closedir(d);
    return seen ? sum : -1;
}

void maat_fair_sample_take(maat_fair_sample *s, pid_t bot_pid)
{
    s->at_ns = now_ns();
    s->ref_wait_ns = threads_wait_ns("self");
    s->bot_wait_ns = s->bot_cpu_ns = -1;
    if (bot_pid > 0) {
        char pid[24];
        snprintf(pid, sizeof pid, "%d", (int)bot_pid);
        s->bot_wait_ns = threads_wait_ns(pid);
        pid_t pgid = getpgid(bot_pid);
        s->bot_cpu_ns = pgid > 0 ? group_cpu_ns(pgid) : -1;
    }
}

static int64_t grew(int64_t a, int64_t b)
{
    return a >= 0 && b >= a ? b - a : 0;
}

int64_t maat_fair_credit(const maat_fair_sample *a, const maat_fair_sample *b)
{
    int64_t window = b->at_ns - a->at_ns;
    if (window <= 0)
        return 0;
    int64_t credit = grew(a->ref_wait_ns, b->ref_wait_ns);
    int known = a->bot_cpu_ns >= 0 && b->bot_cpu_ns >= 0;
    if (known && grew(a->bot_cpu_ns, b->bot_cpu_ns) * 4 < window)
        credit += grew(a->bot_wait_ns, b->bot_wait_ns);
    return credit < window ? credit : window;
}

int maat_fair_available(void)
{
    return threads_wait_ns("self") >= 0;
}
