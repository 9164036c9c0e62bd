/* compare.c -- maat-ladder compare: is a candidate bot not worse than a
 * baseline?  For CI pipelines.
 *
 * A block is one deal (seed), played with duplicate seats (the deal once
 * per seat rotation).  With a field, the candidate plays the block against
 * the field, then the baseline plays the very same block in the same seats
 * against the same opponents; the block's score is
 *     x = (result(candidate) - result(baseline) + 1) / 2   in [0, 1],
 * where a bot's result is the share of opponents it beat (ties half),
 * averaged over the rotation.  Without a field, the candidate plays the
 * baseline directly and x = result(candidate).  Luck of the deal and of the
 * seat cancels in x; what is left is strength.
 *
 * Blocks are added until the GSPRT (sprt.c) accepts H1 (not worse: exit 0)
 * or H0 (worse: exit 1), or the block limit is reached (exit 2).
 *
 * With --pin, the k-th referee of a wave runs on the k-th allowed CPU
 * (wrapping), with its bots, as `maat-ladder run --pin` does (pin.h); with
 * a field, the two halves of every other block swap CPUs, so that a slower
 * core cannot favour the candidate or the baseline throughout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compare.h"
#include "ladder_file.h"
#include "pin.h"
#include "sprt.h"
#include "tournament.h"

#define MAX_FIELD 16

/* Start one referee; cpu >= 0 pins it (and its bots) to that CPU. */
static int run_referee(char **argv, int cpu, const char *match)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (cpu >= 0)
            maat_pin_child(cpu, match);
        execv(argv[0], argv);
        fprintf(stderr, "maat-ladder: cannot run %s: %s\n", argv[0],
                strerror(errno));
        _exit(127);
    }
    return pid;
}

/* argv for one run of block b: `hero` in every seat in turn. */
static char **block_argv(const maat_compare *c, int b, const char *tag,
                         const char *hero_name, const char *hero_cmd)
{
    int n = 0, cap = 32 + 2 * c->seats + c->n_referee_args;
    char **argv = calloc((size_t)cap, sizeof *argv), buf[128];
    argv[n++] = strdup(c->referee);
    argv[n++] = strdup("--game");
    argv[n++] = strdup(c->game);
    argv[n++] = strdup("--seed");
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)(c->seed + (uint64_t)b));
    argv[n++] = strdup(buf);
    argv[n++] = strdup("--games");
    snprintf(buf, sizeof buf, "%d", c->seats);
    argv[n++] = strdup(buf);
    argv[n++] = strdup("--same-deal");
    argv[n++] = strdup("--fixed-seats");
    argv[n++] = strdup("--quiet");
    argv[n++] = strdup("--match-id");
    snprintf(buf, sizeof buf, "compare-%s-%d-%s", c->tag, b, tag);
    argv[n++] = strdup(buf);
    argv[n++] = strdup("--ladder");
    argv[n++] = strdup(c->ladder);
    for (int s = 0; s < c->seats; s++) {
        const char *name, *cmd;
        char fname[32];
        if (s == 0) {
            name = hero_name;
            cmd = hero_cmd;
        } else if (c->n_field == 0) {
            /* no field: the baseline is every opponent */
            if (c->seats == 2)
                snprintf(fname, sizeof fname, "baseline");
            else
                snprintf(fname, sizeof fname, "baseline%d", s);
            name = fname;
            cmd = c->baseline;
        } else {
            snprintf(fname, sizeof fname, "field%d", s);
            name = fname;
            cmd = c->field[(b + s - 1) % c->n_field];
        }
        size_t len = strlen(name) + strlen(cmd) + 2;
        char *arg = malloc(len);
        snprintf(arg, len, "%s=%s", name, cmd);
        argv[n++] = strdup("--bot");
        argv[n++] = arg;
    }
    for (int a = 0; a < c->n_referee_args; a++)
        argv[n++] = strdup(c->referee_args[a]);
    return argv;
}

/* The mean result of `bot` over the games of match `id`; -1 if missing. */
static double result_of(const maat_ladder *l, const char *id, const char *bot,
                        int games)
{
    char gid[128];
    double sum = 0;
    for (int k = 0; k < games; k++) {
        snprintf(gid, sizeof gid, "%s-%d", id, k);
        const maat_ladder_game *g = NULL;
        for (size_t i = 0; i < l->count && !g; i++)
            if (!strcmp(l->games[i].id, gid))
                g = &l->games[i];
        if (!g)
            return -1;
        int me = -1;
        for (int s = 0; s < g->seats; s++)
            if (!strcmp(g->bot[s], bot))
                me = s;
        if (me < 0)
            return -1;
        double beat = 0;
        for (int s = 0; s < g->seats; s++)
            if (s != me)
                beat += g->rank[me] < g->rank[s]    ? 1.0
                        : g->rank[me] == g->rank[s] ? 0.5 : 0.0;
        sum += beat / (g->seats - 1);
    }
    return sum / games;
}

static volatile sig_atomic_t stop;
static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

int maat_compare_run(const maat_compare *c, FILE *out, maat_error *err)
{
    maat_pin_cpus cpus = {0};
    int rc = c->pin ? maat_pin_cpus_read(&cpus, err) : MAAT_OK;
    if (rc)
        return rc; /* MAAT_EIO or MAAT_ENOMEM: > 2, an error, not a verdict */
    /* block scores live on a grid of 1/G; the histogram counts them */
    int G = 2 * c->seats * (c->seats - 1) * (c->n_field ? 2 : 1);
    double *hist = calloc((size_t)G + 1, sizeof *hist), *xs = calloc((size_t)G + 1, sizeof *xs);
    double lower, upper, llr = 0, sum = 0, sum2 = 0;
    int blocks = 0, verdict = 2, runs_per_block = c->n_field ? 2 : 1;
    maat_sprt_bounds(c->alpha, c->beta, &lower, &upper);
    for (int i = 0; i <= G; i++)
        xs[i] = (double)i / G;
    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    stop = 0;
    int wave = c->jobs / runs_per_block > 0 ? c->jobs / runs_per_block : 1;
    while (blocks < c->max_blocks && !stop) {
        int first = blocks, n = wave;
        if (first + n > c->max_blocks)
            n = c->max_blocks - first;
        pid_t pids[512];
        int np = 0;
        for (int b = first; b < first + n; b++) {
            for (int run = 0; run < runs_per_block; run++) {
                const char *tag = run ? "B" : "A";
                char **a = run ? block_argv(c, b, tag, "baseline", c->baseline)
                               : block_argv(c, b, tag, "candidate",
                                            c->candidate);
                char id[64];
                snprintf(id, sizeof id, "compare-%s-%d-%s", c->tag, b, tag);
                /* job slot np, but with a field the candidate's and the
                 * baseline's halves of a block swap slots every other
                 * block, so neither always gets the same core */
                int slot = np;
                if (runs_per_block == 2 && (b & 1))
                    slot += run ? -1 : 1;
                int cpu = c->pin ? maat_pin_slot_cpu(&cpus, slot) : -1;
                pids[np++] = run_referee(a, cpu, id);
                maat_argv_free(a);
            }
        }
        int bad = 0;
        for (int k = 0; k < np; k++) {
            int status;
            while (waitpid(pids[k], &status, 0) < 0 && errno == EINTR)
                if (stop)
                    kill(pids[k], SIGTERM);
            bad |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
        }
        if (stop)
            break;
        if (bad) {
            maat_error_set(err, MAAT_EIO, "a referee run failed (blocks %d.."
                           "%d); run one by hand to see why", first,
                           first + n - 1);
            verdict = -1;
            break;
        }
        maat_ladder l = {0};
        maat_ladder_read(&l, c->ladder, 0, stderr, NULL);
        for (int b = first; b < first + n; b++) {
            char id[64];
            snprintf(id, sizeof id, "compare-%s-%d-A", c->tag, b);
            double x = result_of(&l, id, "candidate", c->seats);
            if (c->n_field) {
                snprintf(id, sizeof id, "compare-%s-%d-B", c->tag, b);
                double y = result_of(&l, id, "baseline", c->seats);
                x = (x < 0 || y < 0) ? -1 : (x - y + 1) / 2;
            }
            if (x < 0)
                continue;
            hist[(int)lround(x * G)] += 1;
            sum += x;
            sum2 += x * x;
            blocks++;
        }
        maat_ladder_free(&l);
        /* a tiny prior on every grid value keeps the MLE finite while all
         * blocks so far lie on one side of the hypotheses */
        double reg[1024];
        for (int i = 0; i <= G && i < 1024; i++)
            reg[i] = hist[i] + 1e-3;
        llr = maat_gsprt_llr(G + 1, xs, reg, c->elo0, c->elo1);
        if (!c->quiet)
            fprintf(out, "blocks %4d  LLR %+7.3f  [%+.3f, %+.3f]\n", blocks,
                    llr, lower, upper);
        if (llr >= upper) {
            verdict = 0;
            break;
        }
        if (llr <= lower) {
            verdict = 1;
            break;
        }
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (verdict >= 0 && blocks > 0 && !stop) {
        double mean = sum / blocks;
        double sd = blocks > 1 ? sqrt(fmax(sum2 / blocks - mean * mean, 0) *
                                      blocks / (blocks - 1)) : 0;
        double half = 1.96 * sd / sqrt(blocks);
        fprintf(out, "\nblocks: %d (each %d game%s%s)\n", blocks,
                c->seats * runs_per_block, c->seats * runs_per_block > 1 ? "s" : "",
                c->n_field ? ", candidate and baseline on the same deals" : "");
        fprintf(out, "LLR: %.3f  bounds [%.3f, %.3f]  (elo0 %g, elo1 %g, "
                "alpha %g, beta %g)\n", llr, lower, upper, c->elo0, c->elo1,
                c->alpha, c->beta);
        fprintf(out, "mean block score: %.4f ± %.4f (95%%)\n", mean, half);
        fprintf(out, "Elo-style estimate: %+.1f  [%+.1f, %+.1f] (95%%)\n",
                maat_score_to_elo(mean), maat_score_to_elo(mean - half),
                maat_score_to_elo(mean + half));
        fprintf(out, "block scores:\n");
        for (int i = 0; i <= G; i++)
            if (hist[i] > 0) {
                fprintf(out, "  %5.3f %5.0f ", xs[i], hist[i]);
                for (int k = 0; k < (int)(40 * hist[i] / blocks + 0.5); k++)
                    fputc('#', out);
                fputc('\n', out);
            }
        fprintf(out, "verdict: %s\n",
                verdict == 0 ? "candidate is NOT WORSE (H1 accepted)"
                : verdict == 1 ? "candidate is WORSE (H0 accepted)"
                               : "inconclusive at the block limit");
    }
    free(hist);
    free(xs);
    maat_pin_cpus_free(&cpus);
    if (stop)
        return maat_error_set(err, MAAT_ESTATE, "interrupted");
    return verdict < 0 ? MAAT_EIO : verdict;
}
