/* test_fairclock.c -- referee/fairclock.c: the credit a late decision gets
 * for time spent waiting for a CPU.
 *
 * First the rule itself on made-up samples (pure arithmetic).  Then real
 * samples of real processes pinned to one CPU: a starved process that
 * barely runs (nice 19 beside two spinners at nice 0, in another process
 * group) earns credit; the same starved process whose process group holds
 * the spinners (a bot starving itself to stretch its clock) earns none.
 * Nothing waits for a fixed time: the test polls until the starved
 * process has waited 200 ms by the kernel's own count, with a deadline. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "fairclock.h"

static maat_fair_sample at(int64_t t, int64_t ref, int64_t bot, int64_t cpu)
{
    return (maat_fair_sample){t, ref, bot, cpu};
}

static void rule(void)
{
    const int64_t ms = 1000000;
    maat_fair_sample a = at(0, 10 * ms, 5 * ms, 50 * ms), b;
    b = at(100 * ms, 30 * ms, 5 * ms, 50 * ms);
    CHECK(maat_fair_credit(&a, &b) == 20 * ms, "the referee's own wait");
    b = at(100 * ms, 10 * ms, 65 * ms, 60 * ms);
    CHECK(maat_fair_credit(&a, &b) == 60 * ms,
          "a bot's wait while it used a tenth of the window");
    b = at(100 * ms, 10 * ms, 65 * ms, 75 * ms);
    CHECK(maat_fair_credit(&a, &b) == 0,
          "no credit for a bot that used a quarter of the window: %lld",
          (long long)maat_fair_credit(&a, &b));
    b = at(100 * ms, 90 * ms, 95 * ms, 50 * ms);
    CHECK(maat_fair_credit(&a, &b) == 100 * ms, "never more than the window");
    b = at(100 * ms, 10 * ms, 95 * ms, -1);
    CHECK(maat_fair_credit(&a, &b) == 0, "a bot whose CPU is unknown");
    maat_fair_sample r = at(0, 10 * ms, -1, -1);
    b = at(100 * ms, 40 * ms, -1, -1);
    CHECK(maat_fair_credit(&r, &b) == 30 * ms, "a remote bot: the referee's");
    b = at(100 * ms, 5 * ms, 1 * ms, 40 * ms);
    CHECK(maat_fair_credit(&a, &b) == 0, "counters that went back: nothing");
    b = at(0, 50 * ms, 50 * ms, 50 * ms);
    CHECK(maat_fair_credit(&a, &b) == 0, "an empty window");
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
    maat_fair_sample_take(&a, victim);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do { /* until it has waited 200 ms by the kernel's count, or 30 s */
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        maat_fair_sample_take(&b, victim);
        if (now.tv_sec - t0.tv_sec > 30)
            break;
    } while (b.bot_wait_ns - a.bot_wait_ns < 200000000);
    kill(victim, SIGKILL);
    kill(s1, SIGKILL);
    kill(s2, SIGKILL);
    waitpid(victim, NULL, 0);
    waitpid(s1, NULL, 0);
    waitpid(s2, NULL, 0);
    *window = b.at_ns - a.at_ns;
    CHECK(b.bot_wait_ns - a.bot_wait_ns >= 200000000,
          "the starved process waited 200 ms within 30 s (%lld ns)",
          (long long)(b.bot_wait_ns - a.bot_wait_ns));
    return maat_fair_credit(&a, &b);
}

int main(void)
{
    rule();
    if (!maat_fair_available()) {
        printf("SKIP the real samples: no /proc/self/task/*/schedstat here\n");
        return check_done("fairclock");
    }
    maat_fair_sample me;
    maat_fair_sample_take(&me, getpid());
    CHECK(me.ref_wait_ns >= 0 && me.bot_wait_ns >= 0 && me.bot_cpu_ns >= 0,
          "samples of this process: %lld %lld %lld", (long long)me.ref_wait_ns,
          (long long)me.bot_wait_ns, (long long)me.bot_cpu_ns);
    int64_t window = 0, c = starved_credit(0, &window);
    CHECK(c >= 150000000 && c <= window,
          "starved by others: credited (%lld of %lld ns)", (long long)c,
          (long long)window);
    c = starved_credit(1, &window);
    CHECK(c < 100000000, "starved by its own group: its wait not credited "
          "(%lld of %lld ns)", (long long)c, (long long)window);
    return check_done("fairclock");
}
