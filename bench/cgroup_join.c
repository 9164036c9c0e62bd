/* cgroup_join.c -- what joining a new cgroup costs a child between fork
 * and exec, through cgroup.procs and through v1's tasks file
 * (referee/cgroup.c, join_file; docs/REFEREE.md).
 *
 *   bench-cgroup-join DIR [N] [PAUSE_MS]
 *
 * DIR is a cgroup directory this process may write (as root on v1, e.g.
 * /sys/fs/cgroup/pids).  N times (10) for each file, alternating, it makes
 * DIR/maat-bench-<pid>-<i>, forks a child that writes "0" to the file and
 * exits, waits for it and removes the group, and prints each fork-to-reap
 * time in ms.  PAUSE_MS (200) between tries lets the kernel's RCU sync
 * fall idle, as it is between a ladder's matches: the cost of the first
 * join of a match.  Needs root (or a delegated cgroup).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* One join through `file`; the time from fork to reap, or -1. */
static double join_once(const char *dir, const char *file, int i)
{
    char group[4096], path[4200];
    snprintf(group, sizeof group, "%s/maat-bench-%d-%d", dir, (int)getpid(),
             i);
    if (mkdir(group, 0755) != 0) {
        perror(group);
        return -1;
    }
    snprintf(path, sizeof path, "%s/%s", group, file);
    double t0 = now_ms();
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(path, O_WRONLY);
        _exit(fd >= 0 && write(fd, "0", 1) == 1 ? 0 : 1);
    }
    int status = 1;
    waitpid(pid, &status, 0);
    double t = now_ms() - t0;
    rmdir(group);
    return status == 0 ? t : -1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench-cgroup-join DIR [N] [PAUSE_MS]\n");
        return 2;
    }
    int n = argc > 2 ? atoi(argv[2]) : 10;
    int pause = argc > 3 ? atoi(argv[3]) : 200;
    const char *files[2] = {"cgroup.procs", "tasks"};
    for (int f = 0; f < 2; f++) {
        printf("%-13s", files[f]);
        for (int i = 0; i < n; i++) {
            struct timespec p = {pause / 1000, (pause % 1000) * 1000000L};
            nanosleep(&p, NULL);
            printf(" %6.2f", join_once(argv[1], files[f], f * n + i));
        }
        printf("  (ms, fork to reap)\n");
    }
    return 0;
}
