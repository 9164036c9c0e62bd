/* tally.c -- a ladder's standings, pairs, histories and recent games, one
 * game at a time (see tally.h). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "tally.h"

void maat_tally_init(maat_tally *t, const char *game)
{
    memset(t, 0, sizeof *t);
    t->game = game;
    maat_rating_params_default(&t->p);
    t->history_points = 200;
    t->recent_cap = 50;
}

void maat_tally_free(maat_tally *t)
{
    for (int r = 0; r < t->cap && t->hist; r++)
        free(t->hist[r].point);
    for (int k = 0; k < t->n_recent; k++)
        free(t->recent[k]);
    maat_standings_free(&t->s);
    free(t->pair);
    free(t->faults);
    free(t->hist);
    free(t->last);
    free(t->recent);
    free(t->seen);
    memset(t, 0, sizeof *t);
}

/* ---- game ids seen ------------------------------------------------------ */

static uint64_t fingerprint(const char *id)
{
    static const unsigned char key[crypto_shorthash_KEYBYTES] = {0};
    unsigned char h[crypto_shorthash_BYTES];
    crypto_shorthash(h, (const unsigned char *)id, strlen(id), key);
    uint64_t v;
    memcpy(&v, h, sizeof v);
    return v ? v : 1; /* 0 marks a free slot */
}

/* 1 when the id was seen before; else it is remembered (-1: no memory). */
static int seen_before(maat_tally *t, const char *id)
{
    if ((t->n_seen + 1) * 2 > t->seen_slots) {
        size_t n = t->seen_slots ? t->seen_slots * 2 : 4096;
        uint64_t *s = calloc(n, sizeof *s);
        if (!s)
            return -1;
        for (size_t i = 0; i < t->seen_slots; i++) {
            if (!t->seen[i])
                continue;
            size_t k = t->seen[i] & (n - 1);
            while (s[k])
                k = (k + 1) & (n - 1);
            s[k] = t->seen[i];
        }
        free(t->seen);
        t->seen = s;
        t->seen_slots = n;
    }
    uint64_t f = fingerprint(id);
    size_t k = f & (t->seen_slots - 1);
    while (t->seen[k]) {
        if (t->seen[k] == f)
            return 1;
        k = (k + 1) & (t->seen_slots - 1);
    }
    t->seen[k] = f;
    t->n_seen++;
    return 0;
}

/* ---- per-row arrays ------------------------------------------------------ */

/* Room for `rows` rows in every per-row array and the pair matrix. */
static int grow(maat_tally *t, int rows)
{
    if (rows <= t->cap)
        return 0;
    int cap = t->cap ? t->cap : 8;
    while (cap < rows)
        cap *= 2;
    maat_tally_pair *pair = calloc((size_t)cap * (size_t)cap, sizeof *pair);
    maat_fault_tally *faults = realloc(t->faults, sizeof *faults * (size_t)cap);
    if (faults)
        t->faults = faults;
    maat_tally_history *hist = realloc(t->hist, sizeof *hist * (size_t)cap);
    if (hist)
        t->hist = hist;
    int (*last)[MAAT_MAX_SEATS] = realloc(t->last, sizeof *last * (size_t)cap);
    if (last)
        t->last = last;
    if (!pair || !faults || !hist || !last) {
        free(pair);
        return -1;
    }
    for (int i = 0; i < t->cap; i++)
        memcpy(&pair[(size_t)i * (size_t)cap],
               &t->pair[(size_t)i * (size_t)t->cap],
               sizeof *pair * (size_t)t->cap);
    free(t->pair);
    t->pair = pair;
    for (int r = t->cap; r < cap; r++) {
        memset(&t->faults[r], 0, sizeof t->faults[r]);
        memset(&t->hist[r], 0, sizeof t->hist[r]);
        t->hist[r].stride = 1;
        for (int k = 0; k < MAAT_MAX_SEATS; k++)
            t->last[r][k] = -1;
    }
    t->cap = cap;
    return 0;
}

int maat_tally_find(const maat_tally *t, const char *bot, const char *game)
{
    for (int i = 0; i < t->s.count; i++)
        if (!strcmp(t->s.rows[i].bot, bot) && !strcmp(t->s.rows[i].game, game))
            return i;
    return -1;
}

/* "2026-11-21T15:04:05Z" -> seconds since 1970; 0 when absent or odd. */
static int64_t line_time(const maat_ladder_game *g)
{
    const char *s = g->line ? json_string_value(json_object_get(g->line,
                                                                "time"))
                            : NULL;
    struct tm tm = {0};
    if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon,
                     &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
        return 0;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (int64_t)timegm(&tm);
}

/* One more game of row r: a point every `stride` games; a full history
 * keeps every other point and doubles the stride. */
static int add_point(maat_tally *t, int r, int64_t when)
{
    maat_tally_history *h = &t->hist[r];
    h->last_seq = t->games;
    h->last_time = when;
    if (++h->since < h->stride)
        return 0;
    h->since = 0;
    if (!h->point && !(h->point = malloc(sizeof *h->point *
                                         (size_t)t->history_points)))
        return -1;
    if (h->n == t->history_points) {
        for (int k = 0; k < h->n / 2; k++)
            h->point[k] = h->point[2 * k + 1];
        h->n /= 2;
        h->stride *= 2;
    }
    const maat_standing *row = &t->s.rows[r];
    h->point[h->n++] = (maat_tally_point){t->games, when,
                                          (float)row->rating.mu,
                                          (float)row->rating.sigma};
    return 0;
}

static int add_recent(maat_tally *t, const maat_ladder_game *g)
{
    if (t->recent_cap <= 0 || !g->line)
        return 0;
    if (!t->recent && !(t->recent = calloc((size_t)t->recent_cap,
                                           sizeof *t->recent)))
        return -1;
    char *line = json_dumps(g->line, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!line)
        return -1;
    if (t->n_recent < t->recent_cap)
        t->n_recent++;
    else
        free(t->recent[t->recent_next]);
    t->recent[t->recent_next] = line;
    t->recent_next = (t->recent_next + 1) % t->recent_cap;
    return 0;
}

const char *maat_tally_recent(const maat_tally *t, int k)
{
    if (k < 0 || k >= t->n_recent)
        return NULL;
    int slot = (t->recent_next - 1 - k + 2 * t->recent_cap) % t->recent_cap;
    return t->recent[slot];
}

int maat_tally_add(maat_tally *t, const maat_ladder_game *g)
{
    int seen = seen_before(t, g->id); /* before the filter, as ladder_file */
    if (seen) {
        t->duplicates += seen > 0;
        return seen < 0 ? MAAT_ENOMEM : MAAT_OK;
    }
    if (t->game && strcmp(g->game, t->game))
        return MAAT_OK;
    if (maat_standings_add(&t->s, g, &t->p))
        return MAAT_ENOMEM;
    if (grow(t, t->s.count))
        return MAAT_ENOMEM;
    t->games++;
    /* each bot once, at its first seat (a name in two seats is no lineup
     * the referee plays, but a hand-made line may have it) */
    int row[MAAT_MAX_SEATS], seat[MAAT_MAX_SEATS], n = 0;
    for (int k = 0; k < g->seats; k++) {
        int r = maat_tally_find(t, g->bot[k], g->game), dup = 0;
        for (int q = 0; q < n; q++)
            dup |= row[q] == r;
        if (!dup) {
            row[n] = r;
            seat[n++] = k;
        }
    }
    int64_t when = line_time(g);
    for (int a = 0; a < n; a++) {
        int r = row[a], ra = g->rank[seat[a]];
        maat_fault_tally_add(&t->faults[r], g, seat[a]);
        if (add_point(t, r, when))
            return MAAT_ENOMEM;
        for (int q = 0; q < MAAT_MAX_SEATS; q++)
            t->last[r][q] = q < n ? row[q] : -1;
        for (int b = 0; b < n; b++) {
            int rb = g->rank[seat[b]];
            if (b == a)
                continue;
            maat_tally_pair *p = &t->pair[(size_t)r * (size_t)t->cap +
                                          (size_t)row[b]];
            p->games++;
            p->ahead += ra < rb;
            p->ties += ra == rb;
            if (g->seats == 2) {
                p->games2++;
                p->score2 += ra < rb ? 1.0 : ra == rb ? 0.5 : 0.0;
            }
        }
    }
    return add_recent(t, g) ? MAAT_ENOMEM : MAAT_OK;
}

static int tally_each(void *ctx, const maat_ladder_game *g, int *taken)
{
    (void)taken;
    return maat_tally_add(ctx, g);
}

int maat_tally_read(maat_tally *t, maat_ladder_cursor *c, int whole_only,
                    FILE *report, maat_error *err)
{
    return maat_ladder_scan(c, whole_only, report, &t->bad_lines, tally_each,
                            t, err);
}

void maat_tally_fit_elo(maat_tally *t)
{
    int n = t->s.count;
    int *rows = malloc(sizeof *rows * (size_t)(n ? n : 1));
    double *games = malloc(sizeof *games * (size_t)n * (size_t)n + 1);
    double *score = malloc(sizeof *score * (size_t)(n ? n : 1));
    double *elo = malloc(sizeof *elo * (size_t)(n ? n : 1));
    double *ci = malloc(sizeof *ci * (size_t)(n ? n : 1));
    char *done = calloc((size_t)(n ? n : 1), 1);
    if (!rows || !games || !score || !elo || !ci || !done)
        goto out;
    /* one fit per game name, over its rows with 2-player games */
    for (int first = 0; first < n; first++) {
        if (done[first])
            continue;
        const char *game = t->s.rows[first].game;
        int m = 0;
        for (int r = first; r < n; r++)
            if (!strcmp(t->s.rows[r].game, game)) {
                done[r] = 1;
                if (t->s.rows[r].two_player_games)
                    rows[m++] = r;
            }
        if (!m)
            continue;
        for (int i = 0; i < m; i++) {
            score[i] = 0;
            for (int j = 0; j < m; j++) {
                const maat_tally_pair *p = maat_tally_pair_of(t, rows[i],
                                                              rows[j]);
                games[i * m + j] = i == j ? 0 : p->games2;
                score[i] += i == j ? 0 : p->score2;
            }
        }
        if (maat_elo_fit_counts(m, games, score, elo, ci) > 0)
            for (int i = 0; i < m; i++) {
                t->s.rows[rows[i]].elo = elo[i];
                t->s.rows[rows[i]].elo_ci = ci[i];
            }
    }
out:
    free(rows);
    free(games);
    free(score);
    free(elo);
    free(ci);
    free(done);
}
