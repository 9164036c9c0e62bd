/* bench_rules.c -- how fast the rules engine plays random games.
 *
 * For every seat count the game allows, plays full games between uniform
 * random players for a fixed wall time on one thread and prints games/s,
 * decisions/s and the mean number of decisions per game.  Each game costs
 * what a playout in a search bot or a referee costs in the rules engine:
 *
 *   game_new (the deal) ... at every decision legal_actions into a stack
 *   buffer, one uniform pick (16 bits of the players' stream, see
 *   pick16), apply with no event list ...
 *   scores ... destroy.
 *
 * The setup (deck) is loaded once.  No events, no encoding, no sockets:
 * the referee's own overhead is measured elsewhere (docs/PERFORMANCE.md).
 *
 *   bench-rules [--game pyramids] [--seconds 2] [--seed 1] [--seats N]
 *               [--games N]
 *
 * --seats N measures only that seat count (handy under a profiler).
 * --games N plays exactly N games per seat count instead of for a time:
 * the same games every run, so that two builds' instruction counts under
 * callgrind compare exactly (a timed run's count per game moves by a few
 * tens with the games it happens to reach).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "maat/game.h"
#include "maat/rng.h"

#define BUF_ACTIONS 512

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bench-rules [--game NAME] [--seconds S] [--seed N] "
            "[--seats N] [--games N]\n"
            "Plays random full games through the rules engine (legal-action "
            "enumeration at\n"
            "every decision, uniform pick) for S seconds of wall time per "
            "seat count, on\n"
            "one thread, and prints games/s and decisions/s.\n"
            "Defaults: pyramids, 2 s, seed 1, every seat count the game "
            "allows\n"
            "(--seats N: only N; --games N: exactly N games each, the same\n"
            "games every run, for instruction counts that compare).\n");
}

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

typedef struct result {
    long long games, decisions;
    double seconds;     /* wall */
    double cpu_seconds; /* this thread's CPU time over the same span */
} result;

/* maat_rng_below(rng, n): the usual case (a word buffered, no redraw
 * possible) here, the rest by maat_rng_below itself from the same
 * position, out of line so that the loop below keeps nothing across a
 * call for it.  The same draws. */
static __attribute__((noinline)) uint32_t pick_slow(maat_rng *rng,
                                                    uint32_t n)
{
    return maat_rng_below(rng, n);
}

static inline uint32_t pick(maat_rng *rng, uint32_t n)
{
    uint32_t p = rng->pos;
    if (__builtin_expect(p < MAAT_RNG_WORDS, 1)) {
        uint64_t m = (uint64_t)rng->word[p] * n;
        if (__builtin_expect((uint32_t)m >= n, 1)) {
            rng->pos = p + 1;
            return (uint32_t)(m >> 32);
        }
    }
    return pick_slow(rng, n);
}

/* What the playout loop keeps beside the game, the generator and the
 * rules' two entries: one block, reached through one register. */
typedef struct playout {
    maat_action buf[BUF_ACTIONS];
    maat_error err;
    long long decisions;
} playout;

/* A pick draws 16 bits: a word of the players' stream serves two
 * decisions, its low half then its high half.  A playout's pick among a
 * few hundred actions needs no more, and the players' ChaCha20 blocks
 * (about one refill of eight a four-seat Pyramids game) are half as
 * many.  Lemire's rule on 16 bits, for 1 <= n <= BUF_ACTIONS: the high
 * half of h * n is uniform in [0, n) once the (fewer than n) values of h
 * whose product's low half is below 2^16 mod n are drawn again, here
 * from the low halves of fresh words (rare: out of line). */
static __attribute__((noinline)) uint32_t pick16_redraw(maat_rng *rng,
                                                        uint32_t n,
                                                        uint32_t m)
{
    uint32_t threshold = (0x10000u - n) % n;
    while ((m & 0xFFFFu) < threshold)
        m = (maat_rng_next32(rng) & 0xFFFFu) * n;
    return m >> 16;
}

static inline uint32_t pick16(maat_rng *rng, uint32_t half, uint32_t n)
{
    uint32_t m = half * n;
    if (__builtin_expect((m & 0xFFFFu) < n, 0))
        return pick16_redraw(rng, n, m);
    return m >> 16;
}

/* The next word, refilling out of line (maat_rng_next32's usual case). */
static __attribute__((noinline)) uint32_t word_slow(maat_rng *rng)
{
    return maat_rng_next32(rng);
}

static inline uint32_t next_word(maat_rng *rng)
{
    uint32_t p = rng->pos;
    if (__builtin_expect(p < MAAT_RNG_WORDS, 1)) {
        rng->pos = p + 1;
        return rng->word[p];
    }
    return word_slow(rng);
}

/* A decision with more actions than the stack buffer holds (rare). */
static __attribute__((noinline)) int play_long(const maat_rules *r,
                                               maat_game *g, maat_rng *rng,
                                               int n, maat_error *err)
{
    maat_action *all = malloc(sizeof *all * (size_t)n);
    if (!all)
        return maat_error_set(err, MAAT_ENOMEM, "out of memory");
    r->legal_actions(g, all, n);
    int rc = r->apply(g, &all[pick(rng, (uint32_t)n)], NULL, err);
    free(all);
    return rc;
}

/* Play one game to the end; returns its number of decisions, -1 on error.
 * The loop is a playout's: the whole legal list written, one pick, apply
 * of the action where the list holds it (no copy). */
static long long play_one(const maat_rules *r, const maat_setup *setup,
                          const maat_seed *seed, int seats, maat_rng *rng,
                          long long *sink)
{
    playout p;
    p.err.code = 0;
    p.err.msg[0] = '\0';
    p.decisions = 0;
    maat_game *g = r->game_new(setup, seed, seats, NULL, &p.err);
    if (!g) {
        fprintf(stderr, "bench-rules: game_new: %s\n", p.err.msg);
        return -1;
    }
    int (*legal)(const maat_game *, maat_action *, int) = r->legal_actions;
    int (*apply)(maat_game *, const maat_action *, maat_events *,
                 maat_error *) = r->apply;
    /* one decision with 16 random bits: 1 when there is none left to
     * make, -1 when apply refuses the pick */
#define DECIDE(half)                                                         \
    do {                                                                     \
        int n = legal(g, p.buf, BUF_ACTIONS), rc;                            \
        if (n <= 0)                                                          \
            goto over;                                                       \
        if (n <= BUF_ACTIONS)                                                \
            rc = apply(g, &p.buf[pick16(rng, (half), (uint32_t)n)], NULL,    \
                       &p.err);                                              \
        else                                                                 \
            rc = play_long(r, g, rng, n, &p.err);                            \
        if (rc)                                                              \
            goto refused;                                                    \
        p.decisions++;                                                       \
    } while (0)
    for (;;) {
        uint32_t w = next_word(rng);
        DECIDE(w & 0xFFFFu);
        DECIDE(w >> 16);
    }
#undef DECIDE
refused:
    fprintf(stderr, "bench-rules: apply refused a legal action: %s\n",
            p.err.msg);
    r->destroy(&g);
    return -1;
over:
    if (!r->is_over(g)) {
        fprintf(stderr, "bench-rules: no legal action but the game is not "
                        "over\n");
        r->destroy(&g);
        return -1;
    }
    maat_score sc[MAAT_MAX_SEATS];
    r->scores(g, sc);
    *sink += sc[0].total; /* keeps scoring observable */
    r->destroy(&g);
    return p.decisions;
}

static int bench_seats(const maat_rules *r, const maat_setup *setup,
                       uint64_t seed, int seats, double seconds,
                       long long n_games, result *out, long long *sink)
{
    /* the players' choices: a stream keyed from the seed and the seat
     * count; the deals: the short seeds seed, seed + 1, ... (any key costs
     * the same to expand, and these cost nothing to make) */
    maat_seed base, players;
    char label[32];
    maat_seed_from_u64(&base, seed);
    snprintf(label, sizeof label, "players %d", seats);
    maat_seed_derive(&players, &base, label);
    maat_rng rng;
    maat_rng_seed(&rng, &players);
    long long games = 0, decisions = 0;
    double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    double t0 = now(), t = t0;
    do {
        maat_seed deal;
        maat_seed_from_u64(&deal, seed + (uint64_t)games);
        long long d = play_one(r, setup, &deal, seats, &rng, sink);
        if (d < 0)
            return -1;
        decisions += d;
        games++;
        t = now();
    } while (n_games ? games < n_games : t - t0 < seconds);
    out->games = games;
    out->decisions = decisions;
    out->seconds = t - t0;
    out->cpu_seconds = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
    return 0;
}

int main(int argc, char **argv)
{
    const char *game = "pyramids";
    double seconds = 2.0;
    unsigned long long seed = 1;
    int only_seats = 0;
    long long n_games = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (v && !strcmp(a, "--game")) {
            game = v, i++;
        } else if (v && !strcmp(a, "--seconds")) {
            errno = 0;
            seconds = strtod(v, &end);
            if (errno || end == v || *end || !(seconds > 0 && seconds < 1e6)) {
                fprintf(stderr, "bench-rules: --seconds wants a positive "
                                "number, not '%s'\n", v);
                return 2;
            }
            i++;
        } else if (v && !strcmp(a, "--seed")) {
            errno = 0;
            seed = strtoull(v, &end, 10);
            if (errno || end == v || *end || *v == '-') {
                fprintf(stderr, "bench-rules: --seed wants an unsigned "
                                "integer, not '%s'\n", v);
                return 2;
            }
            i++;
        } else if (v && !strcmp(a, "--games")) {
            errno = 0;
            long long n = strtoll(v, &end, 10);
            if (errno || end == v || *end || n < 1) {
                fprintf(stderr, "bench-rules: --games wants a positive "
                                "integer, not '%s'\n", v);
                return 2;
            }
            n_games = n;
            i++;
        } else if (v && !strcmp(a, "--seats")) {
            errno = 0;
            long n = strtol(v, &end, 10);
            if (errno || end == v || *end || n < 1 || n > MAAT_MAX_SEATS) {
                fprintf(stderr, "bench-rules: --seats wants 1..%d, not '%s'\n",
                        MAAT_MAX_SEATS, v);
                return 2;
            }
            only_seats = (int)n;
            i++;
        } else {
            fprintf(stderr, "bench-rules: unknown or incomplete option '%s'\n",
                    a);
            usage(stderr);
            return 2;
        }
    }
    const maat_rules *r = maat_rules_find(game);
    if (!r) {
        int n;
        const maat_rules *const *all = maat_rules_all(&n);
        fprintf(stderr, "bench-rules: no game named '%s' (known:", game);
        for (int i = 0; i < n; i++)
            fprintf(stderr, " %s", all[i]->name);
        fprintf(stderr, ")\n");
        return 2;
    }
    int lo = r->min_seats < 2 ? 2 : r->min_seats, hi = r->max_seats;
    if (only_seats) {
        if (only_seats < r->min_seats || only_seats > r->max_seats) {
            fprintf(stderr, "bench-rules: %s is for %d to %d seats, not %d\n",
                    r->name, r->min_seats, r->max_seats, only_seats);
            return 2;
        }
        lo = hi = only_seats;
    }
    maat_options opt = {0};
    maat_error err = {0};
    maat_setup *setup = r->setup_new(&opt, &err);
    if (!setup) {
        fprintf(stderr, "bench-rules: %s\n", err.msg);
        return 2;
    }
    printf("bench-rules: %s (%s), random legal play, %.3g s per seat count, "
           "seed %llu, 1 thread\n",
           r->name, r->rules_version, seconds, seed);
    /* cpu% = CPU time / wall time: below ~95 the machine took the core
     * away for a while and the rates are low. */
    printf("%5s %10s %12s %14s %14s %5s\n", "seats", "games", "games/s",
           "decisions/s", "decisions/game", "cpu%");
    fflush(stdout);
    long long sink = 0;
    int rc = 0;
    for (int seats = lo; seats <= hi; seats++) {
        result res;
        if (bench_seats(r, setup, seed, seats, seconds, n_games, &res,
                        &sink)) {
            rc = 1;
            break;
        }
        printf("%5d %10lld %12.0f %14.0f %14.1f %5.0f\n", seats, res.games,
               (double)res.games / res.seconds,
               (double)res.decisions / res.seconds,
               (double)res.decisions / (double)res.games,
               100.0 * res.cpu_seconds / res.seconds);
        fflush(stdout);
    }
    /* A score checksum, so the work cannot be optimised away and two runs
     * with the same seed and counts can be compared. */
    if (getenv("BENCH_RULES_CHECKSUM"))
        printf("checksum %lld\n", sink);
    r->setup_destroy(&setup);
    return rc;
}
