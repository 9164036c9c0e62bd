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
 * deadline moves by it (again and again, capped), so a timeout is charged
 * only for time the bot had a CPU and did not answer.
 *
 * The bot's own threads' wait is credited only when its process group used
 * little CPU in the same window (under a quarter): a bot that keeps
 * computing past its limit is not starved, whatever its threads say.  The
 * referee's own wait is always credited.  Costs nothing while bots answer
 * before their limit: samples are taken only past it. */
#ifndef MAAT_FAIRCLOCK_H
#define MAAT_FAIRCLOCK_H
#include <stdint.h>
#include <sys/types.h>

typedef struct maat_fair_sample {
    int64_t at_ns;       /* CLOCK_MONOTONIC, as maat_now_ns() */
    int64_t ref_wait_ns; /* run-queue wait of the referee's threads */
    int64_t bot_wait_ns; /* of the bot's threads; -1 unknown (remote) */
    int64_t bot_cpu_ns;  /* CPU of the bot's process group; -1 unknown */
} maat_fair_sample;

/* Sample now.  bot_pid: the bot process (after maat_proc_follow_wrapper),
 * or 0 for a bot the referee did not spawn. */
void maat_fair_sample_take(maat_fair_sample *s, pid_t bot_pid);

/* The credit from a to b, in ns (0 .. b->at_ns - a->at_ns): the referee's
 * wait, plus the bot's when its group used under a quarter of the window
 * in CPU; never more than the window.  Pure: tests call it directly. */
int64_t maat_fair_credit(const maat_fair_sample *a, const maat_fair_sample *b);

/* Is run-queue accounting available here (a kernel with schedstat)? */
int maat_fair_available(void);

#endif
