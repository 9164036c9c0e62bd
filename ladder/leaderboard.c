/* leaderboard.c -- the league's page and its JSON (leaderboard.h). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "html.h"
#include "leaderboard.h"

/* ladder/leaderboard.{html,css,js}, built in by scripts/embed.py */
extern const char maat_board_html[], maat_board_css[], maat_board_js[];

/* "replays/ID.html" when that page exists in the site, else null. */
static json_t *replay_link(const char *site, const char *id)
{
    char rel[300], path[4400];
    if (!id || !maat_html_safe_name(id))
        return json_null();
    snprintf(rel, sizeof rel, "replays/%s.html", id);
    snprintf(path, sizeof path, "%s/%s", site, rel);
    return access(path, R_OK) == 0 ? json_string(rel) : json_null();
}

static json_t *num(double x)
{
    return isfinite(x) ? json_real(round(x * 1000) / 1000) : json_null();
}

static const maat_board_entry *entry_of(const maat_board *b, const char *bot)
{
    for (int i = 0; i < b->n_entries; i++)
        if (!strcmp(b->entries[i].bot, bot))
            return &b->entries[i];
    return NULL;
}

/* Row indices by displayed rating, best first. */
static int *ranked_rows(const maat_tally *t)
{
    int n = t->s.count, *order = malloc(sizeof *order * (size_t)(n + 1));
    if (!order)
        return NULL;
    for (int i = 0; i < n; i++) {
        double r = maat_rating_display(&t->s.rows[i].rating);
        int at = i;
        while (at > 0 &&
               maat_rating_display(&t->s.rows[order[at - 1]].rating) < r) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = i;
    }
    return order;
}

static json_t *standings(const maat_board *b, const int *order)
{
    const maat_tally *t = b->ranked;
    json_t *a = json_array();
    for (int k = 0; k < t->s.count; k++) {
        const maat_standing *r = &t->s.rows[order[k]];
        const maat_board_entry *e = entry_of(b, r->bot);
        json_t *faults = json_object();
        int total = 0;
        for (int f = 0; f < MAAT_FAULT_KINDS; f++) {
            json_object_set_new(faults, maat_fault_names[f],
                                json_integer(r->faults[f]));
            total += r->faults[f];
        }
        const maat_fault_tally *ft = &t->faults[order[k]];
        json_array_append_new(a, json_pack(
            "{s:s, s:s?, s:s, s:o, s:o, s:o, s:i, s:i, s:o, s:o, s:o, s:o, "
            "s:o, s:i, s:i, s:s?}",
            "bot", r->bot, "entry", e ? e->name : NULL,
            "state", e ? e->state : "retired",
            "rating", num(maat_rating_display(&r->rating)),
            "mu", num(r->rating.mu), "sigma", num(r->rating.sigma),
            "games", r->games, "wins", r->wins,
            "avg_rank", num(r->games ? r->rank_sum / r->games : NAN),
            "avg_score", num(r->games ? r->score_sum / r->games : NAN),
            "elo", num(r->elo), "elo_ci95", num(r->elo_ci),
            "faults", faults, "fault_total", total,
            "faulty_games", ft->faulty_games,
            "first_fault", ft->faulty_games ? ft->first_detail : NULL));
    }
    return a;
}

/* Per bot: [[seq, time, mu, sigma], ...], the current rating last. */
static json_t *history(const maat_tally *t, const int *order)
{
    json_t *o = json_object();
    for (int k = 0; k < t->s.count; k++) {
        int r = order[k];
        const maat_tally_history *h = &t->hist[r];
        json_t *a = json_array();
        for (int i = 0; i < h->n; i++)
            json_array_append_new(a, json_pack("[I, I, o, o]",
                (json_int_t)h->point[i].seq, (json_int_t)h->point[i].time,
                num(h->point[i].mu), num(h->point[i].sigma)));
        const maat_standing *row = &t->s.rows[r];
        if (!h->n || h->point[h->n - 1].seq != h->last_seq)
            json_array_append_new(a, json_pack("[I, I, o, o]",
                (json_int_t)h->last_seq, (json_int_t)h->last_time,
                num(row->rating.mu), num(row->rating.sigma)));
        json_object_set_new(o, row->bot, a);
    }
    return o;
}

/* {"bots": [...], "cells": [[[games, ahead, ties], ...], ...]} in
 * standings order: cells[i][j] is row i against column j. */
static json_t *crosstable(const maat_tally *t, const int *order)
{
    json_t *bots = json_array(), *cells = json_array();
    for (int i = 0; i < t->s.count; i++) {
        json_array_append_new(bots, json_string(t->s.rows[order[i]].bot));
        json_t *row = json_array();
        for (int j = 0; j < t->s.count; j++) {
            const maat_tally_pair *p = maat_tally_pair_of(t, order[i],
                                                          order[j]);
            json_array_append_new(row, i == j ? json_null()
                                              : json_pack("[i, i, i]",
                                                          p->games, p->ahead,
                                                          p->ties));
        }
        json_array_append_new(cells, row);
    }
    return json_pack("{s:o, s:o}", "bots", bots, "cells", cells);
}

static json_t *recent(const maat_board *b)
{
    json_t *a = json_array();
    for (int k = 0; k < b->ranked->n_recent; k++) {
        json_t *line = json_loads(maat_tally_recent(b->ranked, k), 0, NULL);
        maat_ladder_game g;
        const char *why;
        if (!line || maat_ladder_parse(line, &g, &why)) {
            json_decref(line);
            continue;
        }
        json_t *bots = json_array(), *ranks = json_array(),
               *scores = json_array(), *faults = json_array();
        for (int s = 0; s < g.seats; s++) {
            int n = 0;
            for (int f = 0; f < MAAT_FAULT_KINDS; f++)
                n += g.faults[s][f];
            json_array_append_new(bots, json_string(g.bot[s]));
            json_array_append_new(ranks, json_integer(g.rank[s]));
            json_array_append_new(scores, json_integer(g.score[s]));
            json_array_append_new(faults, json_integer(n));
        }
        const char *time = json_string_value(json_object_get(line, "time"));
        json_array_append_new(a, json_pack("{s:s, s:s?, s:o, s:o, s:o, s:o, "
                                           "s:o}", "id", g.id, "time", time,
                                           "bots", bots, "ranks", ranks,
                                           "scores", scores, "faults", faults,
                                           "replay",
                                           replay_link(b->site, g.id)));
        json_decref(line);
    }
    return a;
}

static json_t *entries(const maat_board *b)
{
    json_t *a = json_array();
    for (int i = 0; i < b->n_entries; i++) {
        const maat_board_entry *e = &b->entries[i];
        json_array_append_new(a, json_pack(
            "{s:s, s:i, s:s, s:s, s:s?, s:s?, s:s?, s:o, s:b}", "name",
            e->name, "version", e->version, "bot", e->bot, "state", e->state,
            "detail", e->detail, "log", e->log, "game", e->game, "replay",
            replay_link(b->site, e->game), "remote", e->remote));
    }
    return a;
}

static json_t *events(const maat_board *b)
{
    json_t *a = json_array();
    for (int i = 0; i < b->n_events; i++) {
        json_t *e = json_loads(b->events[i], 0, NULL);
        if (json_is_object(e))
            json_array_append(a, e);
        json_decref(e);
    }
    return a;
}

json_t *maat_leaderboard_doc(const maat_board *b)
{
    maat_tally *t = b->ranked;
    maat_tally_fit_elo(t);
    int *order = ranked_rows(t);
    if (!order)
        return NULL;
    json_t *doc = json_pack("{s:s, s:s, s:I, s:I, s:o, s:o, s:o, s:o, s:o, "
                            "s:o}", "title", b->title, "game",
                            t->game ? t->game : "", "time",
                            (json_int_t)b->time, "games",
                            (json_int_t)t->games, "standings",
                            standings(b, order), "history",
                            history(t, order), "crosstable",
                            crosstable(t, order), "entries", entries(b),
                            "events", events(b), "recent", recent(b));
    free(order);
    return doc;
}

int maat_leaderboard_write(const maat_board *b, maat_error *err)
{
    json_t *doc = maat_leaderboard_doc(b);
    if (!doc)
        return maat_error_set(err, MAAT_ENOMEM, "out of memory");
    char page[4200], data[4200], tmp[4300];
    snprintf(page, sizeof page, "%s/index.html", b->site);
    snprintf(data, sizeof data, "%s/leaderboard.json", b->site);
    int rc = maat_html_page_write(page, maat_board_html, b->title,
                                  maat_board_css, maat_board_js, doc, err);
    FILE *f = rc ? NULL : maat_html_open_out(data, tmp, sizeof tmp, err);
    if (f) {
        json_dumpf(doc, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
        fputc('\n', f);
        rc = maat_html_close_out(f, tmp, data, err);
    } else if (!rc) {
        rc = err ? err->code : MAAT_EIO;
    }
    json_decref(doc);
    return rc;
}
