/* cgroup.h -- one control group per bot: all its processes bounded together.
 *
 * The per-process limits (proc.h) leave a bot as a whole unbounded: each
 * of up to --limit-nproc processes may use --limit-as, a memfd or a tmpfs
 * it writes belongs to no process, and RLIMIT_NPROC does nothing for
 * root.  The kernel's memory controller counts every page a process of
 * the group uses -- heap, stacks, page tables, the tmpfs and memfd pages
 * it wrote -- against one limit, and past it reclaims or kills a process
 * *of that group*, never another bot's or the referee's.  It counts
 * memory used, not address space reserved, so it also suits runtimes that
 * reserve terabytes (sanitizers, Go, the JVM) where --limit-as must be 0.
 *
 * A bot's group is made below the referee's own memory cgroup, as
 * maat-<referee pid>-<n>: on cgroup v1 in the memory hierarchy, on v2
 * in the unified one with the memory controller enabled for the
 * referee's cgroup's children (if that cgroup holds only the referee, the
 * referee first moves itself into a leaf of its own, maat-<pid>-referee,
 * since v2 lets a cgroup with processes in it give no controller to its
 * children).  Making one needs write access there: root on v1, a cgroup
 * delegated to the user on v2 (systemd-run --user --scope -p Delegate=yes).
 *
 * A group may also bound the number of tasks alone, with the pids
 * controller and no memory limit (maat_cgroup_new with memory_bytes 0):
 * the referee makes one per bot when it runs as root without
 * --limit-mem, since RLIMIT_NPROC does not bind root and a bot could
 * otherwise fork until the machine has no process ids left.
 *
 * Ownership: maat_cgroup_new returns a group the caller owns.  The bot's
 * first process joins it between fork and exec (maat_cgroup_join, which
 * is async-signal-safe) and its descendants are born in it.
 * maat_cgroup_destroy(&g) kills whatever is still in it, removes it,
 * frees, and sets g to NULL.  Not thread-safe.
 */
#ifndef MAAT_CGROUP_H
#define MAAT_CGROUP_H

#include <stddef.h>
#include <stdint.h>

#include "maat/error.h"

typedef struct maat_cgroup maat_cgroup;

/* A new group whose processes may use `memory_bytes` in all, swap not
 * extending it where the kernel lets us say so, and, when `tasks` > 0,
 * run at most that many tasks (processes and threads) at once, where the
 * pids controller is there to say so (v1: a group of the pids hierarchy
 * beside it, joined with it; without it the group bounds memory alone:
 * maat_cgroup_has_task_limit).  With `memory_bytes` 0, a group of the
 * pids controller alone capping its tasks at `tasks` (> 0), which must
 * be offered.  NULL and `err` when it cannot be made: MAAT_EHOST with the
 * path and the reason (no such controller, no permission, processes in
 * the way). */
maat_cgroup *maat_cgroup_new(uint64_t memory_bytes, uint64_t tasks,
                             maat_error *err);

/* Does the group bound its number of tasks too? */
int maat_cgroup_has_task_limit(const maat_cgroup *g);

/* Where a process's cgroup of `controller` ("memory", "pids") is, from
 * the text of its /proc/PID/cgroup and /proc/PID/mountinfo: the
 * directory into `dir` (len bytes), *v2 set for the unified hierarchy
 * (when no v1 hierarchy has the controller).  0, or -1 with `why`.  What
 * maat_cgroup_new does first, apart for tests. */
int maat_cgroup_locate(const char *cgroup, const char *mountinfo,
                       const char *controller, char *dir, size_t len, int *v2,
                       char *why, size_t wlen);

/* Put the calling process in the group (v1: in both groups).  Only
 * system calls: for the child between fork and exec, which must be
 * single-threaded (on v1 the calling thread is what moves).  0, or the
 * errno of the failed write. */
int maat_cgroup_join(const maat_cgroup *g);

/* The group's directory, e.g. /sys/fs/cgroup/memory/.../maat-41-0. */
const char *maat_cgroup_path(const maat_cgroup *g);

/* How many processes of the group the kernel killed for reaching the
 * limit (0 where the kernel does not say: v1 before Linux 4.13; 0 for a
 * group without a memory limit). */
uint64_t maat_cgroup_oom_kills(const maat_cgroup *g);

/* The most memory the group used at once, in bytes (0 where unknown or
 * the group has no memory limit). */
uint64_t maat_cgroup_memory_peak(const maat_cgroup *g);

/* SIGKILL every process in the group, until it is empty or ~1 s passed
 * (a process may fork while we read the list).  How many were in it at
 * the first look (0: it was empty). */
int maat_cgroup_kill(maat_cgroup *g);

/* Remove the empty groups left below this referee's cgroups by referees
 * killed before they could remove their own (maat-<pid>-... of a pid
 * that is gone, made over a minute ago).  Best effort, silent. */
void maat_cgroup_sweep(void);

/* Kill what is left, remove the directory (left behind, empty, if the
 * kernel still holds it), free, set *g to NULL.  NULL-safe. */
void maat_cgroup_destroy(maat_cgroup **g);

#endif
