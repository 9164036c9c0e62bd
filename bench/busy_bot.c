/* busy_bot.c -- maat-busy-bot: a bot that computes for a fixed share of
 * its clock on every decision, then plays a random legal action.  For
 * bench/bench_fairness.py: bots that use ~95 % of their time, so that a
 * referee or machine that measures them unfairly shows up as timeouts.
 *
 *   maat-busy-bot [--fraction F] [SDK options: see maat_bot_main]
 *
 * F (0.95) of the request's time_left_ms is spent spinning on the CPU,
 * timed by the bot's own monotonic clock from the moment `act` is called
 * (the SDK's think_us, sent with every answer, also counts the decoding
 * before it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "maat/bot.h"

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int act(maat_bot_turn *t, void *user)
{
    double fraction = *(const double *)user;
    int64_t until = now_ns() + (int64_t)(fraction * 1e6 *
                                         (double)t->time_left_ms);
    while (now_ns() < until)
        ; /* on the CPU, not asleep: a bot that computes (vDSO clock reads) */
    t->action = t->legal[maat_rng_below(&t->rng, (uint32_t)t->n_legal)];
    return MAAT_OK;
}

int main(int argc, char **argv)
{
    static double fraction = 0.95;
    if (argc >= 3 && !strcmp(argv[1], "--fraction")) {
        char *end;
        fraction = strtod(argv[2], &end);
        if (*end || !(fraction > 0 && fraction < 1)) {
            fprintf(stderr, "maat-busy-bot: --fraction wants 0 < F < 1\n");
            return 2;
        }
        argv[2] = argv[0];
        argv += 2;
        argc -= 2;
    }
    return maat_bot_main("busy", act, &fraction, argc, argv);
}
