/* standings.c -- aggregating a ladder into standings (see standings.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "standings.h"

maat_standing *maat_standings_row(maat_standings *s, const char *bot,
                                  const char *game,
                                  const maat_rating_params *p)
{
    for (int i = 0; i < s->count; i++)
        if (!strcmp(s->rows[i].bot, bot) && !strcmp(s->rows[i].game, game))
            return &s->rows[i];
    if (s->count == s->cap) {
        int cap = s->cap ? s->cap * 2 : 16;
        maat_standing *r = realloc(s->rows, sizeof *r * (size_t)cap);
        if (!r)
            return NULL;
        s->rows = r;
        s->cap = cap;
    }
    maat_standing *row = &s->rows[s->count++];
    memset(row, 0, sizeof *row);
    snprintf(row->bot, sizeof row->bot, "%s", bot);
    snprintf(row->game, sizeof row->game, "%s", game);
    row->rating = maat_rating_new(p);
    row->elo = row->elo_ci = NAN;
    return row;
}

/* Elo over the 2-player games of one game name. */
static void fit_elo(const maat_ladder *l, const char *game, maat_standings *s)
{
    int m = 0;
    for (size_t i = 0; i < l->count; i++)
        m += l->games[i].seats == 2 && !strcmp(l->games[i].game, game);
    if (m == 0)
        return;
    int *a = malloc(sizeof *a * (size_t)m), *b = malloc(sizeof *b * (size_t)m);
    double *score = malloc(sizeof *score * (size_t)m);
    int *map = malloc(sizeof *map * (size_t)s->count), n = 0;
    double *elo = malloc(sizeof *elo * (size_t)s->count);
    double *ci = malloc(sizeof *ci * (size_t)s->count);
    int *back = malloc(sizeof *back * (size_t)s->count);
    if (!a || !b || !score || !map || !elo || !ci || !back)
        goto out;
    for (int r = 0; r < s->count; r++) {
        map[r] = -1;
        if (!strcmp(s->rows[r].game, game) && s->rows[r].two_player_games) {
            back[n] = r;
            map[r] = n++;
        }
    }
    m = 0;
    for (size_t i = 0; i < l->count; i++) {
        const maat_ladder_game *g = &l->games[i];
        if (g->seats != 2 || strcmp(g->game, game))
            continue;
        int ra = -1, rb = -1;
        for (int r = 0; r < s->count; r++)
            if (!strcmp(s->rows[r].game, game)) {
                if (!strcmp(s->rows[r].bot, g->bot[0]))
                    ra = r;
                if (!strcmp(s->rows[r].bot, g->bot[1]))
                    rb = r;
            }
        if (ra < 0 || rb < 0 || ra == rb)
            continue;
        a[m] = map[ra];
        b[m] = map[rb];
        score[m] = g->rank[0] < g->rank[1] ? 1.0 : g->rank[0] == g->rank[1]
                                                       ? 0.5 : 0.0;
        m++;
    }
    if (maat_elo_fit(n, m, a, b, score, elo, ci) > 0)
        for (int k = 0; k < n; k++) {
            s->rows[back[k]].elo = elo[k];
            s->rows[back[k]].elo_ci = ci[k];
        }
out:
    free(a);
    free(b);
    free(score);
    free(map);
    free(elo);
    free(ci);
    free(back);
}

/* The index of the row of (bot, game), created if absent; -1 when out of
 * memory.  Callers keep indices, never pointers: a new row may move them. */
static int row_index(maat_standings *s, const char *bot, const char *game,
                     const maat_rating_params *p)
{
    maat_standing *row = maat_standings_row(s, bot, game, p);
    return row ? (int)(row - s->rows) : -1;
}

int maat_standings_add(maat_standings *s, const maat_ladder_game *g,
                       const maat_rating_params *p)
{
    int idx[MAAT_MAX_SEATS], distinct = 1;
    maat_rating r[MAAT_MAX_SEATS];
    for (int k = 0; k < g->seats; k++) {
        idx[k] = row_index(s, g->bot[k], g->game, p);
        if (idx[k] < 0)
            return MAAT_ENOMEM;
        for (int q = 0; q < k; q++)
            distinct &= idx[q] != idx[k];
    }
    /* a bot playing itself teaches its rating nothing */
    if (distinct) {
        for (int k = 0; k < g->seats; k++)
            r[k] = s->rows[idx[k]].rating;
        maat_openskill_rate(p, r, g->rank, g->seats);
        for (int k = 0; k < g->seats; k++)
            s->rows[idx[k]].rating = r[k];
    }
    for (int k = 0; k < g->seats; k++) {
        maat_standing *row = &s->rows[idx[k]];
        row->games++;
        row->wins += g->rank[k] == 1;
        row->rank_sum += g->rank[k];
        row->score_sum += g->score[k];
        row->two_player_games += g->seats == 2;
        for (int f = 0; f < MAAT_FAULT_KINDS; f++)
            row->faults[f] += g->faults[k][f];
    }
    return MAAT_OK;
}

int maat_standings_compute(const maat_ladder *l, const char *game,
                           const maat_rating_params *p, maat_standings *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < l->count; i++) {
        const maat_ladder_game *g = &l->games[i];
        if (game && strcmp(g->game, game))
            continue;
        if (maat_standings_add(out, g, p))
            return MAAT_ENOMEM;
    }
    for (int r = 0; r < out->count; r++) {
        int seen = 0;
        for (int q = 0; q < r; q++)
            seen |= !strcmp(out->rows[q].game, out->rows[r].game);
        if (!seen)
            fit_elo(l, out->rows[r].game, out);
    }
    return MAAT_OK;
}

static int by_rating(const void *x, const void *y)
{
    const maat_standing *a = x, *b = y;
    int g = strcmp(a->game, b->game);
    if (g)
        return g;
    double da = maat_rating_display(&a->rating);
    double db = maat_rating_display(&b->rating);
    return da < db ? 1 : da > db ? -1 : strcmp(a->bot, b->bot);
}

static void print_table(const maat_standings *s, FILE *f)
{
    int w = 4;
    for (int i = 0; i < s->count; i++)
        if ((int)strlen(s->rows[i].bot) > w)
            w = (int)strlen(s->rows[i].bot);
    const char *game = "";
    for (int i = 0; i < s->count; i++) {
        const maat_standing *r = &s->rows[i];
        if (strcmp(game, r->game)) {
            game = r->game;
            fprintf(f, "%s%s\n%4s  %-*s %7s %6s %6s %6s %5s %7s %9s %12s  %s\n",
                    i ? "\n" : "", game, "#", w, "bot", "rating", "mu",
                    "sigma", "games", "wins", "avgrank", "avgscore",
                    "elo(2p)", "faults");
        }
        char elo[32] = "-";
        if (!isnan(r->elo))
            snprintf(elo, sizeof elo, "%+.0f±%.0f", r->elo, r->elo_ci);
        char faults[128] = "", *p = faults;
        for (int k = 0; k < MAAT_FAULT_KINDS; k++)
            if (r->faults[k])
                p += snprintf(p, sizeof faults - (size_t)(p - faults),
                              "%s%s:%d", p == faults ? "" : " ",
                              maat_fault_names[k], r->faults[k]);
        int place = 1;
        for (int q = 0; q < i; q++)
            place += !strcmp(s->rows[q].game, game);
        fprintf(f, "%4d  %-*s %7.2f %6.2f %6.2f %6d %5d %7.2f %9.2f %12s  %s\n",
                place, w, r->bot, maat_rating_display(&r->rating),
                r->rating.mu, r->rating.sigma, r->games, r->wins,
                r->games ? r->rank_sum / r->games : 0.0,
                r->games ? r->score_sum / r->games : 0.0, elo,
                faults[0] ? faults : "-");
    }
}

static json_t *row_json(const maat_standing *r)
{
    json_t *faults = json_object();
    for (int k = 0; k < MAAT_FAULT_KINDS; k++)
        json_object_set_new(faults, maat_fault_names[k],
                            json_integer(r->faults[k]));
    json_t *o = json_pack("{s:s, s:s, s:f, s:f, s:f, s:i, s:i, s:f, s:f, s:o}",
        "bot", r->bot, "game", r->game, "rating",
        maat_rating_display(&r->rating), "mu", r->rating.mu, "sigma",
        r->rating.sigma, "games", r->games, "wins", r->wins, "avg_rank",
        r->games ? r->rank_sum / r->games : 0.0, "avg_score",
        r->games ? r->score_sum / r->games : 0.0, "faults", faults);
    if (!isnan(r->elo)) {
        json_object_set_new(o, "elo", json_real(r->elo));
        json_object_set_new(o, "elo_ci95", json_real(r->elo_ci));
    }
    return o;
}

/* One CSV field, quoted as RFC 4180 says when it must be: a bot name from
 * a hand-edited ladder line may hold a comma, a quote or a line break. */
static void csv_field(FILE *f, const char *v)
{
    if (!v[strcspn(v, ",\"\r\n")]) {
        fputs(v, f);
        return;
    }
    fputc('"', f);
    for (; *v; v++) {
        if (*v == '"')
            fputc('"', f);
        fputc(*v, f);
    }
    fputc('"', f);
}

void maat_standings_print(const maat_standings *s, const char *format,
                          FILE *f)
{
    if (s->count > 0)
        qsort(s->rows, (size_t)s->count, sizeof *s->rows, by_rating);
    if (!strcmp(format, "json")) {
        json_t *a = json_array();
        for (int i = 0; i < s->count; i++)
            json_array_append_new(a, row_json(&s->rows[i]));
        json_dumpf(a, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        fputc('\n', f);
        json_decref(a);
    } else if (!strcmp(format, "csv")) {
        fprintf(f, "game,bot,rating,mu,sigma,games,wins,avg_rank,avg_score,"
                   "elo,elo_ci95");
        for (int k = 0; k < MAAT_FAULT_KINDS; k++)
            fprintf(f, ",%s", maat_fault_names[k]);
        fputc('\n', f);
        for (int i = 0; i < s->count; i++) {
            const maat_standing *r = &s->rows[i];
            csv_field(f, r->game);
            fputc(',', f);
            csv_field(f, r->bot);
            fprintf(f, ",%.6f,%.6f,%.6f,%d,%d,%.4f,%.4f,",
                    maat_rating_display(&r->rating), r->rating.mu,
                    r->rating.sigma, r->games, r->wins,
                    r->games ? r->rank_sum / r->games : 0.0,
                    r->games ? r->score_sum / r->games : 0.0);
            if (isnan(r->elo))
                fprintf(f, ",");
            else
                fprintf(f, "%.2f,%.2f", r->elo, r->elo_ci);
            for (int k = 0; k < MAAT_FAULT_KINDS; k++)
                fprintf(f, ",%d", r->faults[k]);
            fputc('\n', f);
        }
    } else {
        print_table(s, f);
    }
}

void maat_standings_free(maat_standings *s)
{
    free(s->rows);
    memset(s, 0, sizeof *s);
}
