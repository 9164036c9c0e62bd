/* fairclock.h -- how much of a late decision's wall time was the machine's
 * fault, not the bot's: time the referee's threads, or the deciding bot's,
 * spent ready to run but waiting for a CPU.
 *
 * The referee's clock is its own wall clock, from sending a request to
 * receiving the answer (docs/PROTOCOL.md section 5).  On a loaded machine
 * part of that can be run-queue wait: the bot has answered but its ZeroMQ
 * thread, or the referee's, has not been given a CPU yet.  Linux counts
 * that wait per thread (/proc/PID/task/TID/schedstat, second number, ns).
 * When a decision reaches its limit, the referee takes a sample; at the
 * limit plus grace, another: the wait between the two is credited and the
 * deadline moves by it (again and again, capped by the caller), so a
 * timeout is charged only for time the bot had a CPU and did not answer.
 *
 * The rule, for a window between two samples:
 *  - the referee's wait: the longest wait of any of its threads;
 *  - the bot's: only if its threads ran under a quarter of the window (a
 *    bot computing past its limit is not starved, whatever its threads
 *    say); the longest wait of any of its threads, less the CPU its other
 *    processes (its process group) used meanwhile -- a bot starving its
 *    own threads with its own children gets nothing for it;
 *  - the sum, never more than the window.
 * Longest, not summed: ten waiting threads do not make ten windows.  The
 * group's CPU means reading every /proc/N/stat (a few ms on a busy
 * machine), so the caller asks for it only from the limit plus grace on:
 * the first extension (at most the grace) goes without it.  Nothing is
 * read while bots answer before their limit. */
#ifndef MAAT_FAIRCLOCK_H
#define MAAT_FAIRCLOCK_H
#include <stdint.h>
#include <sys/types.h>

#define MAAT_FAIR_THREADS 16

/* schedstat of up to MAAT_FAIR_THREADS threads of one process. */
typedef struct maat_fair_threads {
    int n;           /* -1: unknown (no such process, or too many threads) */
    int32_t tid[MAAT_FAIR_THREADS];
    int64_t run[MAAT_FAIR_THREADS];  /* ns on a CPU */
    int64_t wait[MAAT_FAIR_THREADS]; /* ns ready but waiting for one */
} maat_fair_threads;

typedef struct maat_fair_sample {
    int64_t at_ns;          /* CLOCK_MONOTONIC, as maat_now_ns() */
    maat_fair_threads ref;  /* the referee's threads */
    maat_fair_threads bot;  /* the bot's; n = -1 for a remote bot */
    int64_t group_cpu_ns;   /* CPU of the bot's process group; -1 not read */
} maat_fair_sample;

/* Sample now.  bot_pid: the bot process (after maat_proc_follow_wrapper),
 * or 0 for a bot the referee did not spawn.  `group`: also read the CPU
 * of the bot's process group (costly, see above). */
void maat_fair_sample_take(maat_fair_sample *s, pid_t bot_pid, int group);

/* The credit from a to b, in ns, by the rule above (0 .. the window).
 * Pure: tests call it directly. */
int64_t maat_fair_credit(const maat_fair_sample *a, const maat_fair_sample *b);

/* Is run-queue accounting available here (a kernel with schedstat)? */
int maat_fair_available(void);

#endif
