/* test_fairclock.c -- referee/fairclock.c: the credit a late decision gets
 * for time spent waiting for a CPU.
 *
 * First the rule itself on made-up samples (pure arithmetic).  Then real
 * samples of real processes pinned to one CPU: a starved process that
 * barely runs (nice 19 beside two spinners at nice 0, in another process
 * group) earns credit; the same starved process whose process group holds
 * the spinners (a bot starving itself to stretch its clock) earns none
 * once the group's CPU is sampled.
 * Nothing waits for a fixed time: the test polls until the starved
 * process has waited 200 ms by the kernel's own count, with a deadline. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "fairclock.h"

/* A sample of one referee thread and one bot thread (n = -1 when the
 * wait given is negative: unknown). */
static maat_fair_sample at(int64_t t, int64_t ref, int64_t wait, int64_t run,
                           int64_t group)
{
    maat_fair_sample s = {.at_ns = t, .group_cpu_ns = group};
    s.ref = (maat_fair_threads){.n = ref < 0 ? -1 : 1, .tid = {1},
                                .wait = {ref}};
    s.bot = (maat_fair_threads){.n = wait < 0 ? -1 : 1, .tid = {2},
                                .run = {run}, .wait = {wait}};
    return s;
}

static void rule(void)
{
    const int64_t ms = 1000000;
    maat_fair_sample a = at(0, 10 * ms, 5 * ms, 50 * ms, -1), b;
    b = at(100 * ms, 30 * ms, 5 * ms, 50 * ms, -1);
    CHECK(maat_fair_credit(&a, &b) == 20 * ms, "the referee's own wait");
    b = at(100 * ms, 10 * ms, 65 * ms, 60 * ms, -1);
    CHECK(maat_fair_credit(&a, &b) == 60 * ms,
          "a bot's wait while its threads ran a tenth of the window");
    b = at(100 * ms, 30 * ms, 45 * ms, 60 * ms, -1);
    CHECK(maat_fair_credit(&a, &b) == 60 * ms, "the referee's and the "
          "bot's waits, one after the other, add up (%lld)",
          (long long)maat_fair_credit(&a, &b));
    b = at(100 * ms, 10 * ms, 65 * ms, 120 * ms, -1);
    CHECK(maat_fair_credit(&a, &b) == 30 * ms,
          "a bot that computed 70 ms of the 100 and waited 60: only the 30 "
          "it had no CPU at all (%lld)", (long long)maat_fair_credit(&a, &b));
    b = at(100 * ms, 40 * ms, 65 * ms, 150 * ms, -1);
    CHECK(maat_fair_credit(&a, &b) == 0,
          "a bot that computed the whole window: nothing, whoever waited "
          "(%lld)", (long long)maat_fair_credit(&a, &b));
    b = at(100 * ms, 90 * ms, 95 * ms, 50 * ms, -1);
    CHECK(maat_fair_credit(&a, &b) == 100 * ms, "never more than the window");
    b = at(100 * ms, 10 * ms, -1, 0, -1);
    CHECK(maat_fair_credit(&a, &b) == 0, "a bot whose threads are unknown: "
          "the referee's wait only");
    maat_fair_sample r = at(0, 10 * ms, -1, 0, -1);
    b = at(100 * ms, 40 * ms, -1, 0, -1);
    CHECK(maat_fair_credit(&r, &b) == 30 * ms, "a remote bot: the referee's");
    b = at(100 * ms, 5 * ms, 1 * ms, 40 * ms, -1);
    CHECK(maat_fair_credit(&a, &b) == 0, "counters that went back: nothing");
    b = at(0, 50 * ms, 50 * ms, 50 * ms, -1);
    CHECK(maat_fair_credit(&a, &b) == 0, "an empty window");

    /* threads: waits summed (a thread born meanwhile from zero), but never
     * more than the time none of them ran */
    b = at(100 * ms, 10 * ms, 25 * ms, 51 * ms, -1);
    b.bot.n = 3;
    b.bot.tid[1] = 3, b.bot.wait[1] = 15 * ms, b.bot.run[1] = 0;
    b.bot.tid[2] = 4, b.bot.wait[2] = 25 * ms, b.bot.run[2] = 1 * ms;
    CHECK(maat_fair_credit(&a, &b) == 60 * ms, "three threads waiting one "
          "after another: 20 + 15 + 25 (%lld)",
          (long long)maat_fair_credit(&a, &b));
    b.bot.wait[0] = 95 * ms, b.bot.wait[1] = 90 * ms, b.bot.wait[2] = 90 * ms;
    CHECK(maat_fair_credit(&a, &b) == 98 * ms, "three threads waiting at "
          "once: the 98 ms none ran, not 270 (%lld)",
          (long long)maat_fair_credit(&a, &b));
    /* two threads taking turns on one CPU: each waited half the window,
     * together they ran all of it: queued behind each other, nothing */
    b = at(100 * ms, 10 * ms, 55 * ms, 100 * ms, -1);
    b.bot.n = 2;
    b.bot.tid[1] = 3, b.bot.wait[1] = 50 * ms, b.bot.run[1] = 50 * ms;
    CHECK(maat_fair_credit(&a, &b) == 0, "threads queued behind each "
          "other: nothing (%lld)", (long long)maat_fair_credit(&a, &b));

    /* the process group, when both samples have it */
    maat_fair_sample g = at(0, 10 * ms, 5 * ms, 50 * ms, 500 * ms);
    b = at(100 * ms, 10 * ms, 65 * ms, 51 * ms, 600 * ms);
    CHECK(maat_fair_credit(&g, &b) == 0, "waiting threads, the group "
          "computing the whole window: nothing");
    b = at(100 * ms, 30 * ms, 65 * ms, 51 * ms, 560 * ms);
    CHECK(maat_fair_credit(&g, &b) == 40 * ms, "... computing 60 of the 100 "
          "ms: at most the 40 left (%lld)", (long long)maat_fair_credit(&g, &b));
    b = at(100 * ms, 10 * ms, 65 * ms, 51 * ms, 501 * ms);
    CHECK(maat_fair_credit(&g, &b) == 60 * ms, "... its own thread's 1 ms: "
          "the waits (%lld)", (long long)maat_fair_credit(&g, &b));
    b = at(100 * ms, 10 * ms, 65 * ms, 51 * ms, -1);
    CHECK(maat_fair_credit(&g, &b) == 60 * ms,
          "the group in one sample only: the threads decide");
    CHECK(maat_fair_used(&g, &b) == 1 * ms, "used: its thread's 1 ms");
    b.group_cpu_ns = 530 * ms;
    CHECK(maat_fair_used(&g, &b) == 30 * ms, "used: its group's 30 ms");
}

/* The credit over several looks as one window: a bot thread preempted
 * 10 ms after the request and queued until 181 ms shows no wait at the
 * first full look (117 ms) and 171 ms of it at 181 ms. */
static void total(void)
{
    const int64_t ms = 1000000;
    maat_fair_sample s = at(0, 0, 100 * ms, 40 * ms, -1);
    maat_fair_sample f = at(117 * ms, 7 * ms, 100 * ms, 45 * ms, 40 * ms);
    maat_fair_sample b = at(181 * ms, 7 * ms, 271 * ms, 45 * ms, 40 * ms);
    int64_t windowed = maat_fair_credit(&s, &f) + maat_fair_credit(&f, &b);
    int64_t whole = maat_fair_credit_total(&s, &f, &b, 100 * ms);
    CHECK(windowed == 71 * ms, "window by window, the wait is cut to the "
          "last window's 64 ms (%lld)", (long long)windowed);
    CHECK(whole == 164 * ms, "as one window: the grace before the first full "
          "look and the 64 ms after it (%lld)", (long long)whole);
    CHECK(maat_fair_credit_total(&s, &f, &f, 100 * ms) == 7 * ms,
          "at the first full look: the referee's 7 ms");
    CHECK(maat_fair_credit_total(&s, NULL, &b, 100 * ms) == 100 * ms,
          "no full look yet: at most the grace");
    b.group_cpu_ns = 104 * ms; /* children ran the whole 64 ms */
    CHECK(maat_fair_credit_total(&s, &f, &b, 100 * ms) == 100 * ms,
          "a group computing since the first full look: the grace only");
    b.bot.run[0] = 150 * ms; /* its thread computed 110 of the 181 ms */
    b.group_cpu_ns = 40 * ms;
    CHECK(maat_fair_credit_total(&s, &f, &b, 100 * ms) == 71 * ms,
          "a bot that computed: only the time it did not run (%lld)",
          (long long)maat_fair_credit_total(&s, &f, &b, 100 * ms));
    maat_fair_sample g = at(0, 0, 100 * ms, 40 * ms, 10 * ms);
    b = at(181 * ms, 7 * ms, 271 * ms, 45 * ms, 10 * ms);
    CHECK(maat_fair_credit_total(&g, NULL, &b, 100 * ms) == 176 * ms,
          "a first sample with the group's CPU: no grace bound (%lld)",
          (long long)maat_fair_credit_total(&g, NULL, &b, 100 * ms));
}

/* maat_fair_queued on made-up states: a thread ready to run whose run
 * time did not grow is queued; one that ran is computing. */
static void queued(void)
{
    maat_fair_sample a = at(0, 10, 5, 50, -1), b = at(5, 10, 5, 50, -1);
    a.ref.state[0] = b.ref.state[0] = 'r'; /* the sampling thread itself */
    a.bot.state[0] = 'R';
    b.bot.state[0] = 'S';
    CHECK(!maat_fair_queued(NULL, &b), "an asleep bot: nothing queued");
    CHECK(!maat_fair_queued(&a, &b), "... whatever it did before");
    b.bot.state[0] = 'R';
    CHECK(maat_fair_queued(NULL, &b), "a thread ready to run, no earlier "
          "look: maybe queued (look again)");
    CHECK(maat_fair_queued(&a, &b), "ready to run and not run since the "
          "last look: queued");
    b.bot.run[0] = 51;
    CHECK(!maat_fair_queued(&a, &b), "ready to run and ran since: "
          "computing, not queued");
    b.bot.state[0] = 'S';
    b.ref.n = 2;
    b.ref.tid[1] = 7, b.ref.state[1] = 'R', b.ref.run[1] = 3;
    CHECK(maat_fair_queued(NULL, &b), "a referee thread ready to run");
    CHECK(!maat_fair_queued(&a, &b), "... one born since the last look: "
          "not known to be queued");
}

static void pin0(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    sched_setaffinity(0, sizeof set, &set);
}

static pid_t spinner(pid_t group)
{
    pid_t p = fork();
    if (p == 0) {
        setpgid(0, group);
        pin0();
        for (;;) {
        }
    }
    return p;
}

/* A process that spins at nice 19 on CPU 0, in its own process group, and
 * two spinners at nice 0 on CPU 0, in `own` ? its group : another one. */
static int64_t starved_credit(int own, int64_t *window)
{
    pid_t victim = fork();
    if (victim == 0) {
        setpgid(0, 0);
        pin0();
        setpriority(PRIO_PROCESS, 0, 19);
        for (;;) {
        }
    }
    setpgid(victim, victim);
    pid_t s1 = spinner(own ? victim : 0), s2 = spinner(own ? victim : 0);
    maat_fair_sample a, b;
    maat_fair_sample_take(&a, victim, 1);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int64_t waited, group;
    do { /* until it has waited 200 ms and (own) its group computed 200 ms
          * by the kernel's count, or 30 s */
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        maat_fair_sample_take(&b, victim, 1);
        waited = 0;
        for (int i = 0; i < b.bot.n; i++)
            waited += b.bot.wait[i] - (i < a.bot.n ? a.bot.wait[i] : 0);
        group = b.group_cpu_ns - a.group_cpu_ns;
        if (now.tv_sec - t0.tv_sec > 30)
            break;
    } while (waited < 200000000 || (own && group < 200000000));
    kill(victim, SIGKILL);
    kill(s1, SIGKILL);
    kill(s2, SIGKILL);
    waitpid(victim, NULL, 0);
    waitpid(s1, NULL, 0);
    waitpid(s2, NULL, 0);
    *window = b.at_ns - a.at_ns;
    /* this process stands for the referee: its own wait (the machine may
     * be busy) is not what is tested here */
    a.ref.n = b.ref.n = -1;
    CHECK(waited >= 200000000, "the starved process waited 200 ms within "
          "30 s (%lld ns)", (long long)waited);
    CHECK(b.bot.n == 1 && a.bot.n == 1, "its one thread sampled");
    int64_t c = maat_fair_credit(&a, &b);
    if (own)
        CHECK(group >= 200000000 && c <= *window - group + 20000000,
              "starved by its own group: at most the time its group did "
              "not run, give or take a clock tick (credit %lld, window "
              "%lld, group %lld ns)", (long long)c, (long long)*window,
              (long long)group);
    return c;
}

int main(void)
{
    rule();
    total();
    queued();
    if (!maat_fair_available()) {
        printf("SKIP the real samples: no /proc/self/task/*/schedstat here\n");
        return check_done("fairclock");
    }
    maat_fair_sample me;
    maat_fair_sample_take(&me, getpid(), 1);
    CHECK(me.ref.n == 1 && me.bot.n == 1 && me.bot.tid[0] == getpid() &&
          me.group_cpu_ns >= 0, "samples of this one-thread process: %d "
          "%d %lld", me.ref.n, me.bot.n, (long long)me.group_cpu_ns);
    /* thread states, read in a full sample: a process asleep is not
     * ready to run; one spinning always is (running or queued) */
    pid_t sleeper = fork();
    if (sleeper == 0) {
        for (;;)
            pause();
    }
    pid_t busy = fork();
    if (busy == 0) {
        for (;;) {
        }
    }
    /* asleep: seen sleeping twice with the same counters (one look may
     * read the counters as it runs and its state just after it slept) */
    maat_fair_sample s1, s2, prev = {0};
    int asleep = 0;
    for (int i = 0; i < 3000 && !asleep; i++) { /* until it sleeps: <= 3 s */
        maat_fair_sample_take(&s1, sleeper, 1);
        asleep = s1.bot.n == 1 && s1.bot.state[0] == 'S' &&
                 prev.bot.n == 1 && prev.bot.state[0] == 'S' &&
                 prev.bot.run[0] == s1.bot.run[0] &&
                 prev.bot.wait[0] == s1.bot.wait[0];
        prev = s1;
        if (!asleep)
            usleep(1000); /* a poll with a deadline, not a synchronisation */
    }
    maat_fair_sample_take(&s2, busy, 1);
    CHECK(asleep && !maat_fair_queued(NULL, &s1),
          "a sleeping process is seen asleep, not queued");
    CHECK(s2.bot.n == 1 && s2.bot.state[0] == 'R', "a spinning process is "
          "ready to run: '%c'", s2.bot.n == 1 ? s2.bot.state[0] : '?');
    CHECK(s1.ref.n >= 1 && s1.ref.state[0] == 'r', "the sampling thread is "
          "marked as itself");
    /* the quick sample through open files: the same threads and counters
     * as a full sample of a sleeping process, the files reused from one
     * sample to the next, the watch reopened for another process, and
     * nothing left open once closed */
    maat_fair_watch self = {0}, other = {0};
    maat_fair_sample q;
    maat_fair_sample_quick(&q, &self, &other, sleeper);
    int fd0 = other.n > 0 ? other.fd[0] : -1;
    for (int i = 0; i < 100; i++)
        maat_fair_sample_quick(&q, &self, &other, sleeper);
    CHECK(q.bot.n == 1 && q.bot.tid[0] == s1.bot.tid[0] &&
          q.bot.run[0] == s1.bot.run[0] && q.bot.wait[0] == s1.bot.wait[0],
          "quick sample of a sleeping process: its full sample's counters");
    CHECK(other.n == 1 && other.fd[0] == fd0, "the watch keeps its file "
          "open across samples");
    CHECK(q.ref.n >= 1 && q.ref.tid[0] > 0, "the referee's own threads");
    /* a thread's run time in schedstat is brought up to date only at a
     * tick or a switch: a process just forked on a loaded machine can
     * show 0 for a while, so look until it has run (<= 3 s) */
    int ran = 0;
    for (int i = 0; i < 3000 && !ran; i++) {
        maat_fair_sample_quick(&q, &self, &other, busy);
        ran = q.bot.n == 1 && q.bot.run[0] > 0;
        if (!ran)
            usleep(1000); /* a poll with a deadline, not a synchronisation */
    }
    CHECK(other.pid == busy && q.bot.n == 1 && q.bot.tid[0] == busy && ran,
          "another process: the watch follows it");
    kill(busy, SIGKILL);
    waitpid(busy, NULL, 0);
    maat_fair_sample_quick(&q, &self, &other, busy);
    CHECK(q.bot.n == -1, "a process gone: unknown (%d)", q.bot.n);
    int kept = self.n > 0 ? self.fd[0] : -1;
    maat_fair_watch_close(&self);
    maat_fair_watch_close(&other);
    CHECK(kept >= 0 && fcntl(kept, F_GETFD) == -1 && self.n == 0,
          "closed: no file left open");
    kill(sleeper, SIGKILL);
    waitpid(sleeper, NULL, 0);

    int64_t window = 0, c = starved_credit(0, &window);
    CHECK(c >= 200000000 && c <= window,
          "starved by others: its wait credited (%lld of %lld ns)",
          (long long)c, (long long)window);
    starved_credit(1, &window);
    return check_done("fairclock");
}
