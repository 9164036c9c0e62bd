/* compare.c -- maat-ladder compare: is a candidate bot not worse than a
 * baseline?  For CI pipelines.
 *
 * A block is one deal (seed), played with duplicate seats (the deal once
 * per seat rotation).  With a field, the candidate plays the block against
 * the field, then the baseline plays the very same block in the same seats
 * against the same opponents; the block's score is
 *     x = (r(candidate) - r(baseline) + 1) / 2   in [0, 1],
 * where a bot's result r is the share of opponents it beat (ties half),
 * averaged over the rotation.  Without a field, the candidate plays the
 * baseline directly and x = r(candidate).  Luck of the deal and of the
 * seat cancels in x; what is left is strength.
 *
 * Elo is head to head, candidate minus baseline, both in the hypotheses
 * and in the estimate.  Without a field the expected x of a difference e
 * is L(e) (L the logistic Elo curve).  With a field it is
 * (L(e_b + e) - L(e_b) + 1) / 2, e_b the baseline's Elo against the field
 * (estimated from its games so far): about half as steep, which is why
 * reading x as Elo directly would halve the difference.
 *
 * Blocks are added until the GSPRT (sprt.c) accepts H1 (not worse: exit 0)
 * or H0 (worse: exit 1), or the block limit is reached (exit 2).  A bot
 * that cannot start or faults too often (faults.h) ends the run with an
 * error instead (exit 3): its games say nothing about strength.  So does a
 * referee that fails.  Every bot's output goes to LOG_DIR/MATCH-GAME-BOT.log
 * (the referee's --log-dir; the ladder line names each seat's log).
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
#include "faults.h"
#include "ladder_file.h"
#include "pin.h"
#include "referee_cmd.h"
#include "sprt.h"

#define MAX_FIELD 16
#define MAX_GRID 1024

void maat_compare_defaults(maat_compare *c)
{
    memset(c, 0, sizeof *c);
    c->game = maat_rules_default()->name;
    c->seats = 2;
    c->elo0 = MAAT_COMPARE_ELO0;
    c->elo1 = MAAT_COMPARE_ELO1;
    c->alpha = MAAT_COMPARE_ALPHA;
    c->beta = MAAT_COMPARE_BETA;
    c->max_blocks = MAAT_COMPARE_MAX_BLOCKS;
    c->jobs = 2;
    c->fault_share = MAAT_FAULT_SHARE;
    c->report_every = 10;
}

/* ---- what has been played ------------------------------------------------ */

enum { SIDE_CANDIDATE, SIDE_BASELINE, SIDE_FIELD }; /* field k: 2 + k */

typedef struct tally {
    int G;                          /* block scores lie on a grid of 1/G */
    double hist[MAX_GRID + 1], xs[MAX_GRID + 1];
    int blocks;
    double sum, sum2;               /* of x */
    double sc, sb, scc, sbb, scb;   /* of r(candidate), r(baseline) */
    maat_fault_tally side[SIDE_FIELD + MAX_FIELD];
} tally;

static int n_sides(const maat_compare *c)
{
    return SIDE_FIELD + c->n_field;
}

static const char *side_name(int side, char *buf, size_t len)
{
    if (side == SIDE_CANDIDATE)
        return "candidate";
    if (side == SIDE_BASELINE)
        return "baseline";
    snprintf(buf, len, "field bot %d", side - SIDE_FIELD + 1);
    return buf;
}

static const char *side_command(const maat_compare *c, int side)
{
    return side == SIDE_CANDIDATE  ? c->candidate
           : side == SIDE_BASELINE ? c->baseline
                                   : c->field[side - SIDE_FIELD];
}

/* ---- the referee runs ------------------------------------------------------ */

/* "compare-TAG-B-A": the candidate's run of block b; -B the baseline's. */
static void run_id(const maat_compare *c, int b, int run, char *out,
                   size_t len)
{
    snprintf(out, len, "compare-%s-%d-%s", c->tag, b, run ? "B" : "A");
}

/* argv of one run of block b: the hero (candidate in run 0, baseline in
 * run 1) in seat 0 of game 0, the rest as the design says;
 * `sandbox_checked`: bubblewrap checked once for the whole comparison. */
static char **run_argv(const maat_compare *c, int b, int run,
                       int sandbox_checked)
{
    char id[96], names[MAAT_MAX_SEATS][32], label[32];
    run_id(c, b, run, id, sizeof id);
    snprintf(label, sizeof label, "block %d", b);
    maat_referee_cmd rc = {
        .referee = c->referee, .game = c->game, .seed = c->seed,
        .seed_file = c->key_file, .seed_label = label, .duplicate = 1,
        .match_id = id,
        .ladder = c->ladder, .games_dir = c->log_dir, .seats = c->seats,
        .sandbox_checked = sandbox_checked,
        .extra = c->referee_args, .n_extra = c->n_referee_args};
    rc.name[0] = run ? "baseline" : "candidate";
    rc.command[0] = run ? c->baseline : c->candidate;
    for (int s = 1; s < c->seats; s++) {
        if (c->n_field == 0) { /* the baseline is every opponent */
            snprintf(names[s], sizeof names[s], c->seats == 2 ? "baseline"
                                                              : "baseline%d",
                     s);
            rc.command[s] = c->baseline;
        } else {
            snprintf(names[s], sizeof names[s], "field%d", s);
            rc.command[s] = c->field[(b + s - 1) % c->n_field];
        }
        rc.name[s] = names[s];
    }
    return maat_referee_argv(&rc);
}

/* The side of the bot named `bot` in block b. */
static int side_of(const maat_compare *c, int b, const char *bot)
{
    int s;
    if (!strcmp(bot, "candidate"))
        return SIDE_CANDIDATE;
    if (!strncmp(bot, "baseline", 8))
        return SIDE_BASELINE;
    if (sscanf(bot, "field%d", &s) == 1 && s >= 1 && c->n_field)
        return SIDE_FIELD + (b + s - 1) % c->n_field;
    return -1;
}

/* The mean result of `hero` over the games of run `id`, tallying every
 * seat's faults; -1 if a game is missing. */
static double run_result(const maat_compare *c, const maat_ladder *l, int b,
                         const char *id, const char *hero, tally *t)
{
    char gid[128];
    double sum = 0;
    for (int k = 0; k < c->seats; k++) {
        snprintf(gid, sizeof gid, "%s-%d", id, k);
        const maat_ladder_game *g = maat_ladder_find(l, gid);
        if (!g)
            return -1;
        int me = -1;
        for (int s = 0; s < g->seats; s++) {
            int side = side_of(c, b, g->bot[s]);
            if (side >= 0)
                maat_fault_tally_add(&t->side[side], g, s);
            if (!strcmp(g->bot[s], hero))
                me = s;
        }
        if (me < 0)
            return -1;
        double beat = 0;
        for (int s = 0; s < g->seats; s++)
            if (s != me)
                beat += g->rank[me] < g->rank[s]    ? 1.0
                        : g->rank[me] == g->rank[s] ? 0.5 : 0.0;
        sum += beat / (g->seats - 1);
    }
    return sum / c->seats;
}

/* Count block b (its games are in l); MAAT_EIO with err if a game is
 * missing. */
static int add_block(const maat_compare *c, const maat_ladder *l, int b,
                     tally *t, maat_error *err)
{
    char id[96];
    run_id(c, b, 0, id, sizeof id);
    double rc = run_result(c, l, b, id, "candidate", t), rb = 0, x = rc;
    if (rc >= 0 && c->n_field) {
        run_id(c, b, 1, id, sizeof id);
        rb = run_result(c, l, b, id, "baseline", t);
        x = (rc - rb + 1) / 2;
    }
    if (rc < 0 || rb < 0)
        return maat_error_set(err, MAAT_EIO, "block %d: the referee of %s "
                              "exited normally but %s lacks its games",
                              b, id, c->ladder);
    t->hist[(int)lround(x * t->G)] += 1;
    t->sum += x;
    t->sum2 += x * x;
    t->sc += rc;
    t->scc += rc * rc;
    t->sb += rb;
    t->sbb += rb * rb;
    t->scb += rc * rb;
    t->blocks++;
    return MAAT_OK;
}

/* ---- the test and the estimate ---------------------------------------------- */

/* L'(e): the slope of the logistic Elo curve. */
static double elo_slope(double e)
{
    double s = maat_elo_to_score(e);
    return s * (1 - s) * log(10.0) / 400.0;
}

/* The baseline's Elo against the field, kept finite. */
static double baseline_vs_field(const tally *t)
{
    double m = t->blocks ? t->sb / t->blocks : 0.5;
    return maat_score_to_elo(fmin(fmax(m, 0.01), 0.99));
}

/* The expected block score of a head-to-head difference of `elo`. */
static double expected_x(const maat_compare *c, const tally *t, double elo)
{
    if (!c->n_field)
        return maat_elo_to_score(elo);
    double eb = baseline_vs_field(t);
    return (maat_elo_to_score(eb + elo) - maat_elo_to_score(eb) + 1) / 2;
}

double maat_compare_llr(int G, const double *hist, double s0, double s1)
{
    /* a tiny prior on every grid value keeps the MLE finite while all
     * blocks so far lie on one side of the hypotheses */
    double reg[MAX_GRID + 1], xs[MAX_GRID + 1];
    if (G < 1 || G > MAX_GRID)
        return NAN;
    for (int i = 0; i <= G; i++) {
        reg[i] = hist[i] + 1e-3;
        xs[i] = (double)i / G;
    }
    return maat_gsprt_llr_scores(G + 1, xs, reg, s0, s1);
}

static double llr_of(const maat_compare *c, const tally *t)
{
    return maat_compare_llr(t->G, t->hist, expected_x(c, t, c->elo0),
                            expected_x(c, t, c->elo1));
}

/* Head-to-head Elo, candidate minus baseline, with a 95% interval (the
 * delta method on the block means). */
static void estimate(const maat_compare *c, const tally *t, double *elo,
                     double *lo, double *hi)
{
    int n = t->blocks;
    double mc = t->sc / n, vc = n > 1 ? (t->scc / n - mc * mc) * n / (n - 1)
                                      : 0;
    if (!c->n_field) {
        *elo = maat_score_to_elo(mc);
        double half = 1.96 * sqrt(fmax(vc, 0) / n);
        *lo = maat_score_to_elo(mc - half);
        *hi = maat_score_to_elo(mc + half);
        return;
    }
    double mb = t->sb / n;
    double vb = n > 1 ? (t->sbb / n - mb * mb) * n / (n - 1) : 0;
    double cv = n > 1 ? (t->scb / n - mc * mb) * n / (n - 1) : 0;
    double ec = maat_score_to_elo(mc), eb = maat_score_to_elo(mb);
    *elo = ec - eb;
    if (!isfinite(*elo)) {
        *lo = *hi = *elo;
        return;
    }
    double a = 1 / elo_slope(ec), bb = 1 / elo_slope(eb);
    double var = (a * a * vc + bb * bb * vb - 2 * a * bb * cv) / n;
    double half = 1.96 * sqrt(fmax(var, 0));
    *lo = *elo - half;
    *hi = *elo + half;
}

/* At the rate so far (the LLR grows by about LLR/blocks a block: it is a
 * sum over blocks), how many more blocks until it reaches the bound it is
 * heading for; -1 when that would take more than 100 times as many. */
static long more_blocks(int blocks, double llr, double lower, double upper)
{
    double step = blocks > 0 ? llr / blocks : 0;
    double left = step > 0 ? upper - llr : lower - llr;
    if (step == 0 || left / step > 100.0 * blocks)
        return -1;
    return (long)ceil(left / step);
}

/* ---- output ------------------------------------------------------------------- */

static void print_faults(const maat_compare *c, const tally *t, FILE *out)
{
    char buf[32], what[256];
    fprintf(out, "faults:");
    for (int s = 0; s < n_sides(c); s++) {
        maat_fault_tally_describe(&t->side[s], what, sizeof what);
        fprintf(out, "%s %s: %s", s ? ";" : "", side_name(s, buf, sizeof buf),
                what);
    }
    fputc('\n', out);
}

/* One line every report_every blocks. */
static void progress(const maat_compare *c, const tally *t, double llr,
                     double lower, double upper, FILE *out)
{
    double elo, lo, hi;
    estimate(c, t, &elo, &lo, &hi);
    fprintf(out, "blocks %4d  LLR %+7.3f  [%+.3f, %+.3f]  Elo %+.1f "
            "[%+.1f, %+.1f]  faults: candidate %d, baseline %d\n", t->blocks,
            llr, lower, upper, elo, lo, hi, t->side[0].faulty_games,
            t->side[1].faulty_games);
    fflush(out);
}

/* The broken sides, reported on stderr with where to look; how many. */
static int report_broken(const maat_compare *c, const tally *t)
{
    int broken = 0;
    for (int s = 0; s < n_sides(c); s++) {
        const maat_fault_tally *ft = &t->side[s];
        if (!maat_fault_tally_broken(ft, c->fault_share))
            continue;
        char buf[32], what[256], log[1024];
        maat_fault_tally_describe(ft, what, sizeof what);
        maat_fault_tally_log(ft, c->ladder, log, sizeof log);
        fprintf(stderr, "maat-ladder compare: the %s is broken, not weak: "
                "%s\n  first in game %s: %s\n  command: %s\n  its output: "
                "%s\n", side_name(s, buf, sizeof buf), what, ft->first_game,
                ft->first_detail, side_command(c, s),
                *log ? log : c->log_dir);
        broken++;
    }
    return broken;
}

static void summary(const maat_compare *c, const tally *t, double llr,
                    double lower, double upper, int verdict, FILE *out)
{
    int games = c->seats * (c->n_field ? 2 : 1);
    fprintf(out, "\nblocks: %d (each %d game%s%s)\n", t->blocks, games,
            games > 1 ? "s" : "",
            c->n_field ? ", candidate and baseline on the same deals" : "");
    fprintf(out, "LLR: %.3f  bounds [%.3f, %.3f]  (elo0 %g, elo1 %g, "
            "alpha %g, beta %g)\n", llr, lower, upper, c->elo0, c->elo1,
            c->alpha, c->beta);
    print_faults(c, t, out);
    if (verdict < 0) {
        fprintf(out, "verdict: none: an error (exit 3), see above\n");
        return;
    }
    int n = t->blocks;
    double mean = t->sum / n;
    double sd = n > 1 ? sqrt(fmax(t->sum2 / n - mean * mean, 0) * n / (n - 1))
                      : 0;
    double elo, lo, hi;
    estimate(c, t, &elo, &lo, &hi);
    fprintf(out, "mean block score: %.4f ± %.4f (95%%)\n", mean,
            1.96 * sd / sqrt(n));
    fprintf(out, "Elo, candidate minus baseline (head to head): %+.1f  "
            "[%+.1f, %+.1f] (95%%)\n", elo, lo, hi);
    fprintf(out, "block scores:\n");
    for (int i = 0; i <= t->G; i++)
        if (t->hist[i] > 0) {
            fprintf(out, "  %5.3f %5.0f ", t->xs[i], t->hist[i]);
            for (int k = 0; k < (int)(40 * t->hist[i] / n + 0.5); k++)
                fputc('#', out);
            fputc('\n', out);
        }
    if (verdict == 0) {
        fprintf(out, "verdict: candidate is NOT WORSE (H1 accepted)\n");
    } else if (verdict == 1) {
        fprintf(out, "verdict: candidate is WORSE (H0 accepted)\n");
    } else {
        long more = more_blocks(n, llr, lower, upper);
        fprintf(out, "verdict: inconclusive at the block limit (%d): the "
                "games so far cannot tell H0 (%+g Elo: worse) from H1 (%+g "
                "Elo: not worse); ", n, c->elo0, c->elo1);
        if (more > 0)
            fprintf(out, "at this rate about %ld more block%s would decide "
                    "(--max-blocks %ld)\n", more, more == 1 ? "" : "s",
                    n + more);
        else
            fprintf(out, "at this rate far more blocks than %d would be "
                    "needed\n", n);
    }
}

/* ---- the loop ------------------------------------------------------------------ */

static volatile sig_atomic_t stop;
static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

/* Wait for referee `pid`, SIGTERM'ing it once `stop` is set; the
 * signals are caught (maat_signals_catch) and `waiting` is their mask. */
static void wait_referee(pid_t pid, int *status, const sigset_t *waiting)
{
    int termed = 0;
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR))
            return;
        if (stop && !termed) {
            kill(pid, SIGTERM);
            termed = 1;
        } else if (r == 0) {
            sigsuspend(waiting);
        }
    }
}

/* Start the referee of run `run` of block b on job slot `slot`; its pid,
 * or -1 (errno). */
static pid_t start_run(const maat_compare *c, const maat_pin_cpus *cpus,
                       int b, int run, int slot, int sandbox_checked)
{
    char id[96];
    run_id(c, b, run, id, sizeof id);
    char **argv = run_argv(c, b, run, sandbox_checked);
    pid_t pid = argv ? maat_referee_start(argv, c->pin ?
                           maat_pin_slot_cpu(cpus, slot) : -1, id, 0)
                     : -1;
    maat_argv_free(argv);
    return pid;
}

/* The job slot of run `run` of block b, the k-th referee of its wave:
 * with a field the candidate's and the baseline's halves of a block swap
 * slots every other block, so neither always gets the same core. */
static int slot_of(const maat_compare *c, int b, int run, int k)
{
    return c->n_field && (b & 1) ? k + (run ? -1 : 1) : k;
}

/* Start the referees of blocks first..first+n-1; their pids in pids[].
 * Returns how many, or -1 with err (none left running). */
static int start_wave(const maat_compare *c, const maat_pin_cpus *cpus,
                      int first, int n, int sandbox_checked, pid_t *pids,
                      maat_error *err)
{
    int runs = c->n_field ? 2 : 1, np = 0;
    for (int b = first; b < first + n; b++)
        for (int run = 0; run < runs; run++) {
            pid_t pid = start_run(c, cpus, b, run, slot_of(c, b, run, np),
                                  sandbox_checked);
            if (pid < 0) {
                for (int k = 0; k < np; k++) {
                    kill(pids[k], SIGTERM);
                    waitpid(pids[k], NULL, 0);
                }
                maat_error_set(err, MAAT_EIO, "cannot start a referee: %s",
                               strerror(errno));
                return -1;
            }
            pids[np++] = pid;
        }
    return np;
}

/* Wait for them; the first failure is described in err.  A referee that
 * exits 5 -- the machine failed (a sandbox could not be made), no bot did
 * and no result of the failed game was written -- plays its run again, up
 * to COMPARE_MACHINE_TRIES times in all: a CI job should not fail on a
 * moment's trouble of the machine.  The games it wrote before the failure
 * keep their first lines (a game id seen twice counts once). */
#define COMPARE_MACHINE_TRIES 3

static int wait_wave(const maat_compare *c, const maat_pin_cpus *cpus,
                     int first, pid_t *pids, int np, int sandbox_checked,
                     const sigset_t *waiting, maat_error *err)
{
    int rc = MAAT_OK, runs = c->n_field ? 2 : 1;
    for (int k = 0; k < np; k++) {
        int b = first + k / runs, run = k % runs, code = 0;
        char id[96];
        run_id(c, b, run, id, sizeof id);
        for (int tries = 1;; tries++) {
            int status = 0;
            wait_referee(pids[k], &status, waiting);
            code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
            if (code != 5 || rc || stop || tries == COMPARE_MACHINE_TRIES)
                break;
            fprintf(stderr, "compare: block %d, the %s's run: the machine "
                    "failed (the referee exited with 5: a sandbox could not "
                    "be made); playing it again (%d of %d)\n", b,
                    run ? "baseline" : "candidate", tries + 1,
                    COMPARE_MACHINE_TRIES);
            pids[k] = start_run(c, cpus, b, run, slot_of(c, b, run, k),
                                sandbox_checked);
            if (pids[k] < 0) {
                rc = maat_error_set(err, MAAT_EIO, "block %d, the %s's run: "
                                    "cannot start its referee again: %s", b,
                                    run ? "baseline" : "candidate",
                                    strerror(errno));
                break;
            }
        }
        if (code == 0 || rc || stop)
            continue;
        rc = maat_error_set(err, MAAT_EIO, "block %d, the %s's run: the "
                            "referee exited with %d%s (its own messages are "
                            "above); the bots' output: %s/%s-*.log", b,
                            run ? "baseline" : "candidate", code,
                            code == 1 ? ", could not hold the match" :
                            code == 2 ? ", a usage error: check "
                                        "--referee-arg and the bot "
                                        "commands" :
                            code == 5 ? ", the machine failed every time "
                                        "(a sandbox could not be made: "
                                        "check 'bwrap --ro-bind / / true')"
                                      : "",
                            c->log_dir, id);
    }
    return rc;
}

int maat_compare_run(const maat_compare *c, FILE *out, maat_error *err)
{
    maat_pin_cpus cpus = {0};
    int rc = c->pin ? maat_pin_cpus_read(&cpus, err) : MAAT_OK;
    if (rc)
        return rc; /* MAAT_EIO or MAAT_ENOMEM: > 2, an error, not a verdict */
    tally *t = calloc(1, sizeof *t);
    if (!t) {
        maat_pin_cpus_free(&cpus);
        return maat_error_set(err, MAAT_ENOMEM, "out of memory");
    }
    t->G = 2 * c->seats * (c->seats - 1) * (c->n_field ? 2 : 1);
    for (int i = 0; i <= t->G; i++)
        t->xs[i] = (double)i / t->G;
    maat_ladder l = {0};
    maat_ladder_cursor cur;
    maat_ladder_cursor_at_end(&cur, c->ladder);
    double lower, upper, llr = 0;
    int verdict = 2, runs = c->n_field ? 2 : 1;
    maat_sprt_bounds(c->alpha, c->beta, &lower, &upper);
    if (!c->quiet) {
        fprintf(out, "compare: %s, %d seats, blocks of %d games; H0 %g Elo "
                "(worse), H1 %g Elo (not worse), head to head; alpha %g, beta "
                "%g; at most %d blocks, %d referees at once\n  candidate: "
                "%s\n  baseline:  %s\n", c->game, c->seats, c->seats * runs,
                c->elo0, c->elo1, c->alpha, c->beta, c->max_blocks, c->jobs,
                c->candidate, c->baseline);
        for (int i = 0; i < c->n_field; i++)
            fprintf(out, "  field %d:   %s\n", i + 1, c->field[i]);
        fprintf(out, "  games in %s, bot output in %s/\n", c->ladder,
                c->log_dir);
        fflush(out);
    }
    maat_signals sig;
    maat_signals_catch(&sig, on_signal);
    stop = 0;
    int wave = c->jobs / runs > 0 ? c->jobs / runs : 1, reported = 0;
    int sandbox_checked = /* once, not in every referee */
        maat_referee_sandbox_check("maat-ladder compare", c->referee_args,
                                   c->n_referee_args);
    maat_referee_task_cap_check("maat-ladder compare", c->referee_args,
                                c->n_referee_args);
    while (t->blocks < c->max_blocks && !stop) {
        int first = t->blocks, n = wave;
        if (first + n > c->max_blocks)
            n = c->max_blocks - first;
        pid_t pids[512];
        int np = start_wave(c, &cpus, first, n, sandbox_checked, pids, err);
        rc = np < 0 ? err->code
                    : wait_wave(c, &cpus, first, pids, np, sandbox_checked,
                                &sig.waiting, err);
        if (rc || stop)
            break;
        rc = maat_ladder_follow(&l, &cur, stderr, err);
        for (int b = first; b < first + n && !rc; b++)
            rc = add_block(c, &l, b, t, err);
        if (rc)
            break;
        if (report_broken(c, t)) {
            rc = maat_error_set(err, MAAT_EBROKEN, "a bot is broken (above): "
                                "no verdict");
            break;
        }
        llr = llr_of(c, t);
        if (llr >= upper)
            verdict = 0;
        else if (llr <= lower)
            verdict = 1;
        if (!c->quiet && (t->blocks / c->report_every > reported ||
                          verdict != 2 || t->blocks == c->max_blocks)) {
            reported = t->blocks / c->report_every;
            progress(c, t, llr, lower, upper, out);
        }
        if (verdict != 2)
            break;
    }
    maat_signals_restore(&sig);
    if (stop)
        rc = maat_error_set(err, MAAT_ESTATE, "interrupted after %d blocks",
                            t->blocks);
    if (!stop && (rc || t->blocks > 0))
        summary(c, t, llr, lower, upper, rc ? -1 : verdict, out);
    fflush(out);
    free(t);
    maat_ladder_free(&l);
    maat_pin_cpus_free(&cpus);
    return rc ? rc : verdict;
}
