/* cgroup.c -- one control group per bot (cgroup.h): find the referee's
 * own memory (or pids) cgroup, make a group below it with a memory limit
 * and/or a limit on its tasks, let a child join it, read what the kernel
 * says about it, empty and remove it.
 *
 * Everything goes through the cgroup file system: no library, and no
 * state outside the maat_cgroup a caller holds.
 */
#define _GNU_SOURCE
#include "cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct maat_cgroup {
    int v2;                /* the unified hierarchy, else v1's memory one
                              (v1's pids one for a group without memory) */
    int has_memory;        /* a memory limit: the memory files are ours */
    int procs_fd;          /* the file a process joins by, open for
                              writing: join_file */
    int pids_fd;           /* v1: the pids hierarchy's group's, or -1 */
    int has_pids;          /* the number of tasks is bounded too */
    char pids_path[PATH_MAX]; /* v1: that group's directory, or "" */
    uint64_t oom_kills;    /* as last read: kept once the group is gone */
    char path[PATH_MAX];
};

/* ---- small file helpers -------------------------------------------------- */

/* The file's first `len - 1` bytes as a string; -1 if it cannot be read. */
static int read_text(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t n = 0;
    ssize_t r;
    while (n + 1 < len && (r = read(fd, buf + n, len - 1 - n)) != 0) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            close(fd);
            return -1;
        }
        n += (size_t)r;
    }
    close(fd);
    buf[n] = 0;
    return 0;
}

/* Write `text` to DIR/NAME in one write (cgroup files take one value per
 * write).  0, or the errno. */
static int write_file(const char *dir, const char *name, const char *text)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return ENAMETOOLONG;
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    size_t n = strlen(text);
    int e = write(fd, text, n) == (ssize_t)n ? 0 : errno;
    close(fd);
    return e;
}

/* Is `word` one of the comma- or space-separated words of `list`? */
static int has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)); p += n)
        if ((p == list || p[-1] == ',' || p[-1] == ' ') &&
            (p[n] == 0 || p[n] == ',' || p[n] == ' ' || p[n] == '\n'))
            return 1;
    return 0;
}

/* The number after "KEY " on a line of the file; 0 if none. */
static uint64_t read_key(const char *dir, const char *file, const char *key)
{
    char path[PATH_MAX], buf[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (read_text(path, buf, sizeof buf))
        return 0;
    size_t n = strlen(key);
    for (char *line = buf; line && *line; line = strchr(line, '\n'),
                                          line = line ? line + 1 : NULL)
        if (!strncmp(line, key, n) && line[n] == ' ')
            return strtoull(line + n + 1, NULL, 10);
    return 0;
}

/* ---- where the referee's cgroups are ------------------------------------- */

/* The mount point of the cgroup file system holding `controller` (v1:
 * fstype "cgroup" with it among its options; v2: "cgroup2"), its root
 * within the hierarchy in `root`.  0 if found. */
static int find_mount(FILE *f, int v2, const char *controller, char *mnt,
                      size_t mlen, char *root, size_t rlen)
{
    char line[4096];
    int found = -1;
    while (found && fgets(line, sizeof line, f)) {
        /* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS...] - FSTYPE SRC SUPER */
        char r[PATH_MAX], m[PATH_MAX], fstype[64], super[1024];
        const char *dash = strstr(line, " - ");
        if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s", r, m) != 2 ||
            sscanf(dash + 3, "%63s %*s %1023s", fstype, super) != 2)
            continue;
        if (v2 ? strcmp(fstype, "cgroup2") != 0
               : strcmp(fstype, "cgroup") != 0 || !has_word(super, controller))
            continue;
        snprintf(mnt, mlen, "%s", m);
        snprintf(root, rlen, "%s", r);
        found = 0;
    }
    return found;
}

/* The directory of the cgroup holding `controller`, from a process's
 * /proc/PID/cgroup and /proc/PID/mountinfo (as streams): cgroup.h,
 * maat_cgroup_locate. */
static int locate(FILE *cgroup, FILE *mountinfo, const char *controller,
                  char *dir, size_t len, int *v2, char *why, size_t wlen)
{
    char line[4096], v1path[PATH_MAX] = "", unified[PATH_MAX] = "";
    int have_v1 = 0, have_v2 = 0;
    while (fgets(line, sizeof line, cgroup)) {
        line[strcspn(line, "\n")] = 0;
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c1 = *c2 = 0; /* line: the hierarchy's id, c1 + 1: controllers */
        if (!strcmp(line, "0") && c1[1] == 0) {
            snprintf(unified, sizeof unified, "%s", c2 + 1);
            have_v2 = 1;
        } else if (has_word(c1 + 1, controller)) {
            snprintf(v1path, sizeof v1path, "%s", c2 + 1);
            have_v1 = 1;
        }
    }
    *v2 = !have_v1;
    if (!have_v1 && !have_v2) {
        snprintf(why, wlen, "the kernel has no cgroups for this process");
        return -1;
    }
    char mnt[PATH_MAX], root[PATH_MAX];
    if (find_mount(mountinfo, *v2, controller, mnt, sizeof mnt, root,
                   sizeof root)) {
        snprintf(why, wlen, "no %s%s file system is mounted",
                 *v2 ? "cgroup2" : "cgroup (v1) ", *v2 ? "" : controller);
        return -1;
    }
    /* The path /proc gives is within the hierarchy; the mount may show
     * only a part of it (a container's own cgroup as its root). */
    const char *rel = *v2 ? unified : v1path;
    size_t rn = strlen(root);
    if (strcmp(root, "/") && !strncmp(rel, root, rn) &&
        (rel[rn] == '/' || rel[rn] == 0))
        rel += rn;
    if (snprintf(dir, len, "%s%s", mnt, strcmp(rel, "/") ? rel : "") >=
        (int)len) {
        snprintf(why, wlen, "its path is too long");
        return -1;
    }
    return 0;
}

int maat_cgroup_locate(const char *cgroup, const char *mountinfo,
                       const char *controller, char *dir, size_t len, int *v2,
                       char *why, size_t wlen)
{
    FILE *c = fmemopen((void *)cgroup, strlen(cgroup), "r");
    FILE *m = fmemopen((void *)mountinfo, strlen(mountinfo), "r");
    int rc = c && m ? locate(c, m, controller, dir, len, v2, why, wlen) : -1;
    if (!c || !m)
        snprintf(why, wlen, "cannot read the text given: %s", strerror(errno));
    if (c)
        fclose(c);
    if (m)
        fclose(m);
    return rc;
}

/* The directory of the referee's cgroup holding `controller` into `dir`,
 * *v2 set; 0 if found, else -1 and `why` says what is missing. */
static int own_cgroup(const char *controller, char *dir, size_t len, int *v2,
                      char *why, size_t wlen)
{
    FILE *c = fopen("/proc/self/cgroup", "re");
    FILE *m = fopen("/proc/self/mountinfo", "re");
    int rc = c && m ? locate(c, m, controller, dir, len, v2, why, wlen) : -1;
    if (!c || !m)
        snprintf(why, wlen, "cannot read /proc/self/%s: %s",
                 c ? "mountinfo" : "cgroup", strerror(errno));
    if (c)
        fclose(c);
    if (m)
        fclose(m);
    if (rc)
        return rc;
    if (*v2) {
        char path[PATH_MAX + 32], ctl[1024];
        snprintf(path, sizeof path, "%s/cgroup.controllers", dir);
        if (read_text(path, ctl, sizeof ctl) || !has_word(ctl, controller)) {
            snprintf(why, wlen, "the %s controller is not available in "
                     "%s (cgroup.controllers)", controller, dir);
            return -1;
        }
    }
    return 0;
}

/* v2: children get a controller only from a cgroup whose subtree_control
 * names it, and that is refused while processes are in it.  If only the
 * referee is, it moves into a leaf of its own first. */
static int enable(const char *dir, const char *controller, char *why,
                  size_t wlen)
{
    char path[PATH_MAX + 32], text[1024], plus[32];
    snprintf(path, sizeof path, "%s/cgroup.subtree_control", dir);
    if (!read_text(path, text, sizeof text) && has_word(text, controller))
        return 0;
    snprintf(plus, sizeof plus, "+%s", controller);
    int e = write_file(dir, "cgroup.subtree_control", plus);
    if (e == EBUSY) {
        /* processes in dir: are they only us? */
        snprintf(path, sizeof path, "%s/cgroup.procs", dir);
        char procs[4096], self[32];
        snprintf(self, sizeof self, "%d\n", (int)getpid());
        if (!read_text(path, procs, sizeof procs) && !strcmp(procs, self)) {
            char leaf[PATH_MAX + 32];
            snprintf(leaf, sizeof leaf, "%s/maat-%d-referee", dir,
                     (int)getpid());
            if ((mkdir(leaf, 0755) == 0 || errno == EEXIST) &&
                write_file(leaf, "cgroup.procs", "0") == 0)
                e = write_file(dir, "cgroup.subtree_control", plus);
        }
    }
    if (e) {
        snprintf(why, wlen, "cannot enable the %s controller for the "
                 "children of %s: %s%s", controller, dir, strerror(e),
                 e == EBUSY ?
                 " (other processes are in it: run the referee in a cgroup "
                 "of its own, e.g. systemd-run --scope -p Delegate=yes)" : "");
        return -1;
    }
    return 0;
}

/* ---- the group ----------------------------------------------------------- */

/* The file the bot's first process writes "0" to, to join.  On v1 the
 * `tasks` file: it moves the writing thread alone, which between fork and
 * exec is the whole process, and the kernel (since 6.0) then skips the
 * global lock whose taking waits an RCU grace period -- ~11 ms on this
 * VM when no other group was joined just before (bench-cgroup-join), so
 * about once a match;
 * `cgroup.procs` takes it every time.  v2's `cgroup.procs` takes it too,
 * and offers nothing cheaper but clone3's CLONE_INTO_CGROUP. */
static const char *join_file(int v2)
{
    return v2 ? "cgroup.procs" : "tasks";
}

/* Make DIR/maat-<pid>-<n> for the first n free. */
static int make_dir(const char *dir, char *out, size_t len)
{
    for (int n = 0; n < 100000; n++) {
        if (snprintf(out, len, "%s/maat-%d-%d", dir, (int)getpid(), n) >=
            (int)len)
            return ENAMETOOLONG;
        if (mkdir(out, 0755) == 0)
            return 0;
        if (errno != EEXIST)
            return errno;
    }
    return EEXIST;
}

/* The limit, and swap not beyond it: memsw (v1, when the kernel counts
 * swap) is memory + swap, so it gets the same number; v2 counts swap
 * apart and gets none.  Without swap accounting a group could still
 * push pages to swap: swappiness 0 asks the kernel not to. */
static int set_limit(const maat_cgroup *g, uint64_t bytes, char *why,
                     size_t wlen)
{
    char num[32];
    snprintf(num, sizeof num, "%llu", (unsigned long long)bytes);
    const char *file = g->v2 ? "memory.max" : "memory.limit_in_bytes";
    int e = write_file(g->path, file, num);
    if (e) {
        snprintf(why, wlen, "cannot write %s/%s: %s", g->path, file,
                 strerror(e));
        return -1;
    }
    if (g->v2) {
        (void)write_file(g->path, "memory.swap.max", "0");
    } else {
        (void)write_file(g->path, "memory.memsw.limit_in_bytes", num);
        (void)write_file(g->path, "memory.swappiness", "0");
    }
    return 0;
}

/* The number of tasks (processes and threads) bounded too, with the pids
 * controller: on v2 in the same group, on v1 in a group of the pids
 * hierarchy made beside it.  A bound, not the point: where the kernel or
 * our rights do not offer it, the group bounds memory alone (0). */
static int limit_tasks(maat_cgroup *g, uint64_t tasks)
{
    char dir[PATH_MAX], why[PATH_MAX + 256], num[32], procs[PATH_MAX + 16];
    int v2;
    snprintf(num, sizeof num, "%llu", (unsigned long long)tasks);
    if (g->v2) { /* the parent gives its children the controller */
        snprintf(dir, sizeof dir, "%s", g->path);
        *strrchr(dir, '/') = 0;
        return !enable(dir, "pids", why, sizeof why) &&
               !write_file(g->path, "pids.max", num);
    }
    if (own_cgroup("pids", dir, sizeof dir, &v2, why, sizeof why) || v2 ||
        make_dir(dir, g->pids_path, sizeof g->pids_path)) {
        g->pids_path[0] = 0;
        return 0;
    }
    snprintf(procs, sizeof procs, "%s/%s", g->pids_path, join_file(0));
    if (write_file(g->pids_path, "pids.max", num) == 0 &&
        (g->pids_fd = open(procs, O_WRONLY | O_CLOEXEC)) >= 0)
        return 1;
    (void)rmdir(g->pids_path);
    g->pids_path[0] = 0;
    return 0;
}

/* The group's directory below `dir`, into g->path; -1 with `why`. */
static int make_group_dir(maat_cgroup *g, const char *dir, char *why,
                          size_t wlen)
{
    int e = make_dir(dir, g->path, sizeof g->path);
    if (!e)
        return 0;
    snprintf(why, wlen, "cannot make a cgroup in %s: %s%s", dir, strerror(e),
             e == EACCES || e == EPERM || e == EROFS ?
             " (needs root, or a cgroup delegated to this user)" : "");
    g->path[0] = 0;
    return -1;
}

/* A group of the pids controller alone (v1: in its hierarchy), whose
 * tasks are capped at `tasks`. */
static int make_task_group(maat_cgroup *g, uint64_t tasks, char *why,
                           size_t wlen)
{
    char dir[PATH_MAX], num[32];
    if (own_cgroup("pids", dir, sizeof dir, &g->v2, why, wlen) ||
        (g->v2 && enable(dir, "pids", why, wlen)) ||
        make_group_dir(g, dir, why, wlen))
        return -1;
    snprintf(num, sizeof num, "%llu", (unsigned long long)tasks);
    int e;
    if ((e = write_file(g->path, "pids.max", num))) {
        snprintf(why, wlen, "cannot write %s/pids.max: %s", g->path,
                 strerror(e));
        return -1;
    }
    g->has_pids = 1;
    return 0;
}

/* A group with a memory limit, its tasks capped too where the pids
 * controller is offered. */
static int make_memory_group(maat_cgroup *g, uint64_t memory_bytes,
                             char *why, size_t wlen)
{
    char dir[PATH_MAX];
    if (own_cgroup("memory", dir, sizeof dir, &g->v2, why, wlen) ||
        (g->v2 && enable(dir, "memory", why, wlen)) ||
        make_group_dir(g, dir, why, wlen))
        return -1;
    g->has_memory = 1;
    return set_limit(g, memory_bytes, why, wlen);
}

maat_cgroup *maat_cgroup_new(uint64_t memory_bytes, uint64_t tasks,
                             maat_error *err)
{
    char why[PATH_MAX + 256];
    maat_cgroup *g = calloc(1, sizeof *g);
    if (!g) {
        maat_error_set(err, MAAT_ENOMEM, "out of memory");
        return NULL;
    }
    g->procs_fd = g->pids_fd = -1;
    if (!memory_bytes && !tasks) { /* pids.max 0 would stop every fork */
        free(g);
        maat_error_set(err, MAAT_EINVAL, "a cgroup for a bot needs a memory "
                       "or a task limit");
        return NULL;
    }
    if (memory_bytes ? make_memory_group(g, memory_bytes, why, sizeof why)
                     : make_task_group(g, tasks, why, sizeof why))
        goto fail;
    char procs[PATH_MAX + 16];
    snprintf(procs, sizeof procs, "%s/%s", g->path, join_file(g->v2));
    g->procs_fd = open(procs, O_WRONLY | O_CLOEXEC);
    if (g->procs_fd < 0) {
        snprintf(why, sizeof why, "cannot open %s: %s", procs,
                 strerror(errno));
        goto fail;
    }
    if (memory_bytes && tasks)
        g->has_pids = limit_tasks(g, tasks);
    return g;
fail:
    maat_error_set(err, MAAT_EHOST, "no %s cgroup for a bot: %s",
                   memory_bytes ? "memory" : "pids", why);
    maat_cgroup_destroy(&g);
    return NULL;
}

int maat_cgroup_join(const maat_cgroup *g)
{
    /* "0" is the writer: on v1 (`tasks`) the writing thread, which is
     * the whole process in a child between fork and exec */
    if (write(g->procs_fd, "0", 1) != 1)
        return errno;
    if (g->pids_fd >= 0 && write(g->pids_fd, "0", 1) != 1)
        return errno;
    return 0;
}

int maat_cgroup_has_task_limit(const maat_cgroup *g)
{
    return g->has_pids;
}

const char *maat_cgroup_path(const maat_cgroup *g)
{
    return g->path;
}

uint64_t maat_cgroup_oom_kills(const maat_cgroup *g)
{
    if (!g->has_memory) /* no limit of ours: a kill was the machine's */
        return 0;
    /* v1 says it in memory.oom_control, v2 in memory.events */
    uint64_t n = read_key(g->path, g->v2 ? "memory.events"
                                         : "memory.oom_control", "oom_kill");
    return n > g->oom_kills ? n : g->oom_kills;
}

uint64_t maat_cgroup_memory_peak(const maat_cgroup *g)
{
    char path[PATH_MAX + 32], num[64];
    if (!g->has_memory)
        return 0;
    snprintf(path, sizeof path, "%s/%s", g->path,
             g->v2 ? "memory.peak" : "memory.max_usage_in_bytes");
    return read_text(path, num, sizeof num) ? 0 : strtoull(num, NULL, 10);
}

int maat_cgroup_kill(maat_cgroup *g)
{
    char path[PATH_MAX + 32], list[16384];
    snprintf(path, sizeof path, "%s/cgroup.procs", g->path);
    int killed = 0;
    struct timespec step = {0, 1000000}; /* 1 ms between looks */
    for (int round = 0; round < 1000; round++) {
        if (read_text(path, list, sizeof list) || !list[0])
            break;
        for (char *p = list; *p;) {
            char *end;
            long pid = strtol(p, &end, 10);
            if (end == p)
                break;
            if (pid > 1 && pid != getpid() && kill((pid_t)pid, SIGKILL) == 0)
                killed += round == 0;
            p = end + (*end != 0);
        }
        nanosleep(&step, NULL); /* the kernel removes them as they die */
    }
    return killed;
}

/* Remove the groups below `dir` left behind by referees killed before
 * they could remove them: maat-<pid>-... whose referee is gone, older
 * than a minute, and empty (rmdir removes nothing else).  The age keeps
 * a group just made, not yet joined, by a referee whose pid this process
 * cannot see (another pid namespace). */
static void sweep(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d))) {
        int pid, n = 0;
        if (sscanf(e->d_name, "maat-%d-%n", &pid, &n) != 1 || !n ||
            pid <= 0 || pid == getpid() ||
            kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char path[PATH_MAX];
        struct stat st;
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) <
                (int)sizeof path &&
            stat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
            now - st.st_mtime > 60)
            (void)rmdir(path);
    }
    closedir(d);
}

void maat_cgroup_sweep(void)
{
    static const char *const controllers[] = {"memory", "pids"};
    for (size_t i = 0; i < sizeof controllers / sizeof *controllers; i++) {
        char dir[PATH_MAX], why[PATH_MAX + 256];
        int v2;
        if (!own_cgroup(controllers[i], dir, sizeof dir, &v2, why,
                        sizeof why))
            sweep(dir);
    }
}

void maat_cgroup_destroy(maat_cgroup **gp)
{
    if (!gp || !*gp)
        return;
    maat_cgroup *g = *gp;
    if (g->path[0]) {
        g->oom_kills = maat_cgroup_oom_kills(g);
        if (g->procs_fd >= 0)
            maat_cgroup_kill(g);
        /* a group whose last process just died may still be busy a moment */
        struct timespec step = {0, 1000000};
        for (int i = 0; i < 200 && rmdir(g->path) != 0 && errno == EBUSY; i++)
            nanosleep(&step, NULL);
    }
    if (g->pids_path[0]) /* v1: its processes were killed with the rest */
        for (int i = 0; i < 200 && rmdir(g->pids_path) != 0 && errno == EBUSY;
             i++)
            nanosleep(&(struct timespec){0, 1000000}, NULL);
    if (g->procs_fd >= 0)
        close(g->procs_fd);
    if (g->pids_fd >= 0)
        close(g->pids_fd);
    free(g);
    *gp = NULL;
}
