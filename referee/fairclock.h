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
 * deadline moves by it (again and again, capped by the caller, always
 * reckoned from the first sample: maat_fair_credit_total), so a
 * timeout is charged only for time the bot had a CPU and did not answer.
 * A bot that takes its time (its previous answer took 1 ms or more, or
 * this is its first request) is also sampled when the request leaves, so
 * a delay before the limit -- the request waiting for the bot's threads to
 * get a CPU -- counts too, read through files kept open (maat_fair_watch:
 * a pread per thread); an instant bot is not sampled (a round trip is
 * about 45 us), and its delays after the limit still count.
 *
 * The rule, for a window between two samples: the run-queue wait of all
 * the referee's threads and all the bot's threads, summed (a message
 * passes through several threads one after another: the referee's, the
 * bot's ZeroMQ thread, its main thread, back), but never more than the
 * part of the window in which the bot's processes did not run -- the
 * window less the run time of the bot's threads, or, once known, the CPU
 * of its whole process group if more.  So time the bot computed is its
 * own even on a shared CPU, threads of one bot queued behind each other
 * earn nothing (together they ran the whole window), and a bot starving
 * its own threads, or the referee's, with children gets nothing for it
 * (its group used the CPU).  A bot that has not answered while computing
 * the whole window gets nothing, whoever else waited.  The
 * group's CPU means reading every /proc/N/stat (a few ms on a busy
 * machine), so the caller asks for it only from the limit plus grace on,
 * and credits a window without it (the first) at most the grace.  Nothing
 * is read while instant bots answer before their limit.
 *
 * The kernel adds a wait to schedstat only when it ends: a thread still
 * queued at the deadline (the bot's, spinning when preempted; the
 * referee's ZeroMQ thread holding the answer) shows no wait yet.  Full
 * samples therefore read each thread's state, and the caller looks again
 * shortly while one is queued (maat_fair_queued) and the bot's processes
 * are not busy themselves (maat_fair_used). */
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
    char state[MAAT_FAIR_THREADS];   /* 'R', 'S', ... ('?' not read; 'r'
                                      * the thread that took the sample) */
} maat_fair_threads;

typedef struct maat_fair_sample {
    int64_t at_ns;          /* CLOCK_MONOTONIC, as maat_now_ns() */
    maat_fair_threads ref;  /* the referee's threads */
    maat_fair_threads bot;  /* the bot's; n = -1 for a remote bot */
    int64_t group_cpu_ns;   /* CPU of the bot's process group; -1 not read */
} maat_fair_sample;

/* The schedstat files of one process's threads, kept open so that the
 * early sample at every request of a bot that takes its time costs a
 * pread per thread, not a directory listing and an open per thread.
 * Zeroed = nothing open.  Owned by the caller: close with
 * maat_fair_watch_close. */
typedef struct maat_fair_watch {
    pid_t pid;  /* the process watched; 0: none */
    int n;      /* open files */
    int32_t tid[MAAT_FAIR_THREADS];
    int fd[MAAT_FAIR_THREADS];
} maat_fair_watch;

void maat_fair_watch_close(maat_fair_watch *w);

/* A quick sample (no group CPU, no states) through two watches: the
 * referee's own threads and the bot's (bot_pid 0: none).  A watch is
 * (re)opened when its process changed or a read failed (a thread gone); a
 * thread born since it was opened is missed here, and counts from zero
 * in the next full sample, which lists the threads afresh. */
void maat_fair_sample_quick(maat_fair_sample *s, maat_fair_watch *self,
                            maat_fair_watch *bot, pid_t bot_pid);

/* Sample now.  bot_pid: the bot process (after maat_proc_follow_wrapper),
 * or 0 for a bot the referee did not spawn.  `group`: also read the CPU
 * of the bot's process group (costly, see above) and each thread's state
 * (for maat_fair_queued). */
void maat_fair_sample_take(maat_fair_sample *s, pid_t bot_pid, int group);

/* The credit from a to b, in ns, by the rule above (0 .. the window).
 * Pure: tests call it directly. */
int64_t maat_fair_credit(const maat_fair_sample *a, const maat_fair_sample *b);

/* The credit from `start` to `b` as one window, whatever samples were
 * taken between: a wait is added to schedstat only when it ends, so one
 * that spans several samples shows whole in the last, and credited window
 * by window it would be cut to that window's length.  `full`: the first
 * sample with the group's CPU (between them), or NULL when none yet;
 * before it, with only the bot's threads to go by, at most `first_cap` is
 * credited (a bot starving everything with children gains at most that),
 * after it the time the bot's whole group did not run.  Pure. */
int64_t maat_fair_credit_total(const maat_fair_sample *start,
                               const maat_fair_sample *full,
                               const maat_fair_sample *b, int64_t first_cap);

/* The CPU the bot used from a to b: its threads', or its process group's
 * when both samples have it and it is more (clock ticks: 10 ms steps). */
int64_t maat_fair_used(const maat_fair_sample *a, const maat_fair_sample *b);

/* Is a thread of the referee or the bot waiting for a CPU at b, its wait
 * not counted yet (the kernel adds a wait to schedstat only when it ends)?
 * A thread ready to run in b, and, when `before` (an earlier sample with
 * states) is given, one that has not run since.  Without `before` a thread
 * computing also counts: look again. */
int maat_fair_queued(const maat_fair_sample *before, const maat_fair_sample *b);

/* Is run-queue accounting available here (a kernel with schedstat)? */
int maat_fair_available(void);

#endif
