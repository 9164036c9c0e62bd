/* test_matchmaking.c -- properties of the league's matchmaking
 * (ladder/matchmaking.c) over simulated leagues: 3 to 12 entries, 2 to 5
 * seats, duplicate matches (a match is `seats` games: every pair in it
 * meets `seats` times), 4 matches running at once, results drawn from
 * hidden strengths (all equal, or spread 3 beta apart end to end) and
 * rated with OpenSkill as the league does.  Checked:
 *   - every pair's count stays within a factor 2 of uniform, give or take
 *     the games of two matches: E/2 - 2 seats <= met <= 2E + 2 seats, where
 *     E = min(games_a, games_b) (seats - 1) / (entries - 1) is what
 *     opponents drawn uniformly would have given the pair;
 *   - no entry plays 50% more games than another;
 *   - no lineup is the last one of any of its entries, nor one running,
 *     unless every lineup is (checked by brute force);
 *   - an entry joining late plays at once (a burst) and then meets every
 *     other entry about uniformly for the games it has played;
 *   - with spread strengths, neighbours in strength meet more often than
 *     the ends (the games go where the ranking is uncertain);
 *   - fewer entries than seats: no lineup; exactly `seats`: the only one.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "matchmaking.h"

enum { MAXN = 16, JOBS = 4 };

typedef struct sim {
    int n, seats;
    double strength[MAXN];
    maat_mm_entry e[MAXN];
    maat_rating r[MAXN];
    int met[MAXN * MAXN];
    int running[JOBS][MAAT_MAX_SEATS];
    int n_running;
    double half_life;
    long league_games;
    unsigned rng;
    int repeats;     /* lineups equal to a member's last or a running one */
    int anchored[MAXN];
} sim;

static double uniform(sim *s)
{
    s->rng = s->rng * 1103515245u + 12345u;
    return ((s->rng >> 8) & 0xffffff) / 16777216.0;
}

static void sim_init(sim *s, int n, int seats, double spread, unsigned seed)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    s->seats = seats;
    s->rng = seed;
    s->half_life = 100;
    maat_rating_params p;
    maat_rating_params_default(&p);
    for (int i = 0; i < MAXN; i++) {
        s->strength[i] = n > 1 ? spread * i / (n - 1) : 0;
        s->r[i] = maat_rating_new(&p);
        for (int k = 0; k < MAAT_MAX_SEATS; k++)
            s->e[i].last[k] = -1;
    }
}

/* Ranks of one game by Plackett-Luce on the hidden strengths. */
static void play_game(sim *s, const int *lineup, int *rank)
{
    int left[MAAT_MAX_SEATS], n = s->seats;
    for (int i = 0; i < n; i++)
        left[i] = i;
    for (int place = 1; n > 0; place++) {
        double total = 0;
        for (int i = 0; i < n; i++)
            total += exp(s->strength[lineup[left[i]]]);
        double x = uniform(s) * total;
        int pick = n - 1;
        for (int i = 0; i < n; i++) {
            x -= exp(s->strength[lineup[left[i]]]);
            if (x <= 0) {
                pick = i;
                break;
            }
        }
        rank[left[pick]] = place;
        left[pick] = left[--n];
    }
}

static void finish(sim *s, const int *lineup)
{
    maat_rating_params p;
    maat_rating_params_default(&p);
    for (int g = 0; g < s->seats; g++) { /* a duplicate match */
        int rank[MAAT_MAX_SEATS];
        maat_rating r[MAAT_MAX_SEATS];
        play_game(s, lineup, rank);
        for (int i = 0; i < s->seats; i++)
            r[i] = s->r[lineup[i]];
        maat_openskill_rate(&p, r, rank, s->seats);
        for (int i = 0; i < s->seats; i++)
            s->r[lineup[i]] = r[i];
        s->league_games++;
        for (int i = 0; i < s->n; i++)
            s->e[i].recent = maat_mm_decay(s->e[i].recent, 1, s->half_life);
        for (int i = 0; i < s->seats; i++)
            s->e[lineup[i]].recent += 1;
    }
    for (int i = 0; i < s->seats; i++) {
        s->e[lineup[i]].games += s->seats;
        for (int k = 0; k < MAAT_MAX_SEATS; k++)
            s->e[lineup[i]].last[k] = k < s->seats ? lineup[k] : -1;
        for (int j = 0; j < s->seats; j++)
            if (j != i)
                s->met[lineup[i] * MAXN + lineup[j]] += s->seats;
    }
}

static int same_set(const int *a, const int *b, int k)
{
    for (int i = 0; i < k; i++) {
        int found = 0;
        for (int j = 0; j < k; j++)
            found |= a[i] == b[j];
        if (!found)
            return 0;
    }
    return 1;
}

static int is_repeat(const sim *s, const int *lineup)
{
    int repeat = 0;
    for (int i = 0; i < s->seats; i++)
        repeat |= s->e[lineup[i]].last[0] >= 0 &&
                  same_set(lineup, s->e[lineup[i]].last, s->seats);
    for (int r = 0; r < s->n_running; r++)
        repeat |= same_set(lineup, s->running[r], s->seats);
    return repeat;
}

/* Is there any lineup of free entries that is no repeat?  (By brute
 * force over the subsets.) */
static int fresh_exists(const sim *s)
{
    for (unsigned mask = 0; mask < 1u << s->n; mask++) {
        int lineup[MAAT_MAX_SEATS], k = 0;
        for (int i = 0; i < s->n && k <= s->seats; i++)
            if (mask >> i & 1) {
                if (s->e[i].busy || k == s->seats) {
                    k = s->seats + 1;
                    break;
                }
                lineup[k++] = i;
            }
        if (k == s->seats && !is_repeat(s, lineup))
            return 1;
    }
    return 0;
}

/* Schedule one match (running ones counted) and finish the oldest. */
static int step(sim *s)
{
    maat_mm_entry e[MAXN];
    int metc[MAXN * MAXN];
    memcpy(e, s->e, sizeof e);
    for (int i = 0; i < s->n; i++) {
        e[i].mu = s->r[i].mu;
        e[i].sigma = s->r[i].sigma;
    }
    for (int i = 0; i < s->n; i++)
        for (int j = 0; j < s->n; j++)
            metc[i * s->n + j] = s->met[i * MAXN + j];
    for (int r = 0; r < s->n_running; r++)
        for (int i = 0; i < s->seats; i++) {
            e[s->running[r][i]].games += s->seats;
            e[s->running[r][i]].recent += s->seats;
            for (int j = 0; j < s->seats; j++)
                if (j != i)
                    metc[s->running[r][i] * s->n + s->running[r][j]] +=
                        s->seats;
        }
    maat_matchmaker m = {.n = s->n, .e = e, .met = metc, .seats = s->seats,
                         .running = (const int (*)[MAAT_MAX_SEATS])s->running,
                         .n_running = s->n_running};
    maat_rating_params_default(&m.p);
    int lineup[MAAT_MAX_SEATS];
    for (int k = 0; k < MAAT_MAX_SEATS; k++)
        lineup[k] = -1;
    if (maat_matchmake(&m, lineup))
        return -1;
    /* a repeat counts when some other lineup was fresh */
    s->repeats += is_repeat(s, lineup) && fresh_exists(s);
    s->anchored[lineup[0]]++;
    memcpy(s->running[s->n_running++], lineup, sizeof lineup);
    if (s->n_running == JOBS) {
        finish(s, s->running[0]);
        memmove(s->running[0], s->running[1],
                sizeof s->running[0] * (JOBS - 1));
        s->n_running--;
    }
    return 0;
}

/* The worst pair against what uniform opponents would have given it,
 * E = min(games_a, games_b) * (seats - 1) / (n - 1): 0 when every pair
 * holds E/2 - 2 seats <= met <= 2E + 2 seats. */
static int pairs_outside(const sim *s, const char *what)
{
    int bad = 0;
    for (int i = 0; i < s->n; i++)
        for (int j = i + 1; j < s->n; j++) {
            int g = s->e[i].games < s->e[j].games ? s->e[i].games
                                                  : s->e[j].games;
            double e = g * (s->seats - 1.0) / (s->n - 1);
            int c = s->met[i * MAXN + j];
            if (c > 2 * e + 2 * s->seats || c < e / 2 - 2 * s->seats) {
                if (!bad)
                    fprintf(stderr, "%s: entries %d and %d met %d times, "
                            "uniform %.1f\n", what, i, j, c, e);
                bad++;
            }
        }
    return bad;
}

static void test_uniform_bounds(void)
{
    int cases = 0, bad_pairs = 0, bad_games = 0, repeats = 0;
    for (int seats = 2; seats <= 5; seats++)
        for (int n = seats + 1; n <= 12; n += 3)
            for (int spread = 0; spread < 2; spread++) {
                sim s;
                sim_init(&s, n, seats, spread ? 3 * 25.0 / 6 / 4.17 * 3 : 0,
                         (unsigned)(n * 31 + seats * 7 + spread));
                int matches = check_scaled(60 * n * (n - 1) / 2 /
                                           (seats * (seats - 1) / 2) + 200);
                for (int k = 0; k < matches; k++)
                    step(&s);
                char what[64];
                snprintf(what, sizeof what, "seats %d, %d entries, spread %d",
                         seats, n, spread);
                bad_pairs += pairs_outside(&s, what) > 0;
                int gmin = 1 << 30, gmax = 0;
                for (int i = 0; i < n; i++) {
                    gmin = s.e[i].games < gmin ? s.e[i].games : gmin;
                    gmax = s.e[i].games > gmax ? s.e[i].games : gmax;
                }
                if (gmax > 1.5 * gmin + 2 * seats) {
                    fprintf(stderr, "seats %d, %d entries, spread %d: games "
                            "%d..%d\n", seats, n, spread, gmin, gmax);
                    bad_games++;
                }
                repeats += s.repeats;
                cases++;
            }
    CHECK(bad_pairs == 0, "%d of %d leagues had a pair outside [E/2 - "
          "2 seats, 2E + 2 seats]", bad_pairs, cases);
    CHECK(bad_games == 0, "%d of %d leagues had an entry with 50%% more "
          "games than another", bad_games, cases);
    CHECK(repeats == 0, "%d immediate repeats", repeats);
}

/* With strengths spread wide, neighbours meet more than the two ends. */
static void test_information(void)
{
    sim s;
    sim_init(&s, 8, 2, 12, 5);
    for (int k = 0; k < check_scaled(3000); k++)
        step(&s);
    int near = 0, far = s.met[0 * MAXN + 7];
    for (int i = 0; i + 1 < 8; i++)
        near += s.met[i * MAXN + i + 1];
    near /= 7;
    CHECK(near > 1.3 * far, "neighbours met %d times on average, the ends %d",
          near, far);
}

/* A late entry: a burst of games first, then a uniform spread. */
static void test_join(void)
{
    for (int seats = 2; seats <= 5; seats++) {
        sim s;
        int n = seats + 4;
        sim_init(&s, n - 1, seats, 0, 11u + (unsigned)seats);
        for (int k = 0; k < check_scaled(1500); k++)
            step(&s);
        s.n = n; /* the new entry: index n - 1 */
        memset(s.anchored, 0, sizeof s.anchored);
        int in_first = 0;
        for (int k = 0; k < 20; k++) {
            step(&s);
            in_first += s.anchored[n - 1];
            memset(s.anchored, 0, sizeof s.anchored);
        }
        CHECK(in_first >= 10, "seats %d: the new entry anchored %d of the "
              "first 20 matches after it joined", seats, in_first);
        for (int k = 0; k < check_scaled(1500); k++)
            step(&s);
        int lo = 1 << 30, hi = 0;
        for (int j = 0; j < n - 1; j++) {
            int c = s.met[(n - 1) * MAXN + j];
            lo = c < lo ? c : lo;
            hi = c > hi ? c : hi;
        }
        double mean = s.e[n - 1].games * (seats - 1.0) / (n - 1);
        CHECK(hi <= 2 * mean + 2 * seats && lo >= mean / 2 - 2 * seats,
              "seats %d: the new entry met each other %d..%d times, uniform "
              "would be %.1f", seats, lo, hi, mean);
    }
}

static void test_few_entries(void)
{
    sim s;
    sim_init(&s, 2, 3, 0, 1);
    CHECK(step(&s) == -1, "2 entries, 3 seats: no lineup");
    sim_init(&s, 3, 3, 0, 1);
    int ok = 1;
    for (int k = 0; k < 10; k++)
        ok &= step(&s) == 0;
    CHECK(ok, "3 entries, 3 seats: the one lineup, again and again");
    sim_init(&s, 5, 2, 0, 1);
    s.e[1].busy = s.e[2].busy = s.e[3].busy = 1;
    CHECK(step(&s) == 0 && s.running[0][0] + s.running[0][1] == 4,
          "only entries 0 and 4 free: they play (%d, %d)", s.running[0][0],
          s.running[0][1]);
}

int main(void)
{
    test_uniform_bounds();
    test_information();
    test_join();
    test_few_entries();
    return check_done("matchmaking");
}
