/* matchmaking.c -- choosing the league's next lineup (see matchmaking.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "matchmaking.h"


double maat_mm_decay(double recent, double games, double h)
{
    return games <= 0 || h <= 0 ? recent : recent * exp2(-games / h);
}

static int met(const maat_matchmaker *m, int a, int b)
{
    return m->met[a * m->n + b];
}

/* What a pair of games-so-far g_a, g_b would have played together had
 * every opponent been drawn uniformly from the `eligible` entries. */
static double expected(const maat_matchmaker *m, int a, int b, int eligible)
{
    int g = m->e[a].games < m->e[b].games ? m->e[a].games : m->e[b].games;
    return eligible > 1 ? g * (m->seats - 1.0) / (eligible - 1.0) : 0;
}

/* May a and b meet (coverage, rule 3)?  `strict`: within 2E + 2. */
static int may_meet(const maat_matchmaker *m, int a, int b, int eligible,
                    int strict)
{
    return !strict || met(m, a, b) <= 2 * expected(m, a, b, eligible) + 2;
}

/* The value of a and b meeting (rule 2, and rule 3's preference). */
static double pair_value(const maat_matchmaker *m, int a, int b,
                         int eligible)
{
    const maat_mm_entry *x = &m->e[a], *y = &m->e[b];
    double s2 = x->sigma * x->sigma + y->sigma * y->sigma;
    double d = x->mu - y->mu;
    double closeness = exp(-d * d / (2 * (2 * m->p.beta * m->p.beta + s2)));
    double uncertainty = s2 / (2 * m->p.sigma * m->p.sigma);
    double novelty = 1.0 / (1.0 + met(m, a, b));
    double owed = met(m, a, b) < expected(m, a, b, eligible) / 2 - 1 ? 10
                                                                     : 0;
    return closeness + uncertainty + novelty + owed;
}

/* Is the set `lineup` (k entries) the same set as `other` (-1 ends)? */
static int same_set(const int *lineup, int k, const int *other)
{
    int n = 0;
    while (n < MAAT_MAX_SEATS && other[n] >= 0)
        n++;
    if (n != k)
        return 0;
    for (int i = 0; i < k; i++) {
        int found = 0;
        for (int j = 0; j < n && !found; j++)
            found = lineup[i] == other[j];
        if (!found)
            return 0;
    }
    return 1;
}

/* Rule 4: the lineup is no member's last one and none running now. */
static int fresh(const maat_matchmaker *m, const int *lineup)
{
    for (int i = 0; i < m->seats; i++)
        if (same_set(lineup, m->seats, m->e[lineup[i]].last))
            return 0;
    for (int r = 0; r < m->n_running; r++)
        if (same_set(lineup, m->seats, m->running[r]))
            return 0;
    return 1;
}

typedef struct partial {
    int who[MAAT_MAX_SEATS];
    double score;
} partial;

static int by_score(const void *x, const void *y)
{
    const partial *a = x, *b = y;
    if (a->score != b->score)
        return a->score < b->score ? 1 : -1;
    for (int i = 0; i < MAAT_MAX_SEATS; i++) /* deterministic order */
        if (a->who[i] != b->who[i])
            return a->who[i] < b->who[i] ? -1 : 1;
    return 0;
}

/* A beam search from `anchor`: `width` partial lineups kept per seat, the
 * best complete one that passes the checks into lineup.  0, or -1. */
static int search(const maat_matchmaker *m, int anchor, int eligible,
                  int strict, int allow_repeat, int width, int *lineup)
{
    int n = m->n, k = m->seats;
    partial *beam = malloc(sizeof *beam * (size_t)width), *next = NULL;
    int n_beam = 1, rc = -1;
    if (!beam)
        return -1;
    memset(beam, 0, sizeof *beam);
    beam[0].who[0] = anchor;
    for (int seat = 1; seat < k; seat++) {
        free(next);
        next = malloc(sizeof *next * (size_t)(n_beam * n + 1));
        if (!next)
            goto out;
        int n_next = 0;
        for (int b = 0; b < n_beam; b++)
            for (int c = 0; c < n; c++) {
                int ok = !m->e[c].busy, last = beam[b].who[seat - 1];
                /* each set once: candidates after the last non-anchor */
                ok &= c != anchor && (seat == 1 || c > last);
                double add = 0;
                for (int q = 0; q < seat && ok; q++) {
                    ok = may_meet(m, beam[b].who[q], c, eligible, strict);
                    add += pair_value(m, beam[b].who[q], c, eligible);
                }
                if (!ok)
                    continue;
                next[n_next] = beam[b];
                next[n_next].who[seat] = c;
                next[n_next++].score = beam[b].score + add;
            }
        if (!n_next)
            goto out;
        qsort(next, (size_t)n_next, sizeof *next, by_score);
        if (seat == k - 1) { /* the best complete lineup that is fresh */
            for (int i = 0; i < n_next; i++)
                if (allow_repeat || fresh(m, next[i].who)) {
                    memcpy(lineup, next[i].who, sizeof *lineup * (size_t)k);
                    rc = 0;
                    break;
                }
            goto out;
        }
        n_beam = n_next < width ? n_next : width;
        memcpy(beam, next, sizeof *beam * (size_t)n_beam);
    }
out:
    free(beam);
    free(next);
    return rc;
}

int maat_matchmake(const maat_matchmaker *m, int *lineup)
{
    int eligible = 0;
    for (int i = 0; i < m->n; i++)
        eligible += !m->e[i].busy;
    if (eligible < m->seats || m->seats < 1)
        return -1;
    /* anchors in order of need (rule 1); the first that can be seated */
    int *order = malloc(sizeof *order * (size_t)m->n), n_order = 0;
    if (!order)
        return -1;
    for (int i = 0; i < m->n; i++) {
        if (m->e[i].busy)
            continue;
        int at = n_order++;
        while (at > 0) {
            const maat_mm_entry *a = &m->e[i], *b = &m->e[order[at - 1]];
            if (a->recent > b->recent ||
                (a->recent == b->recent && a->sigma <= b->sigma))
                break;
            order[at] = order[at - 1];
            at--;
        }
        order[at] = i;
    }
    int rc = -1;
    /* strict coverage without repeats (beam 8); then a wider beam (64);
     * then relaxed coverage; then repeats */
    static const int width[] = {8, 64, 64, 8};
    for (int pass = 0; pass < 4 && rc; pass++)
        for (int a = 0; a < n_order && rc; a++)
            rc = search(m, order[a], eligible, pass < 2, pass == 3,
                        width[pass], lineup);
    free(order);
    return rc;
}
