/* index.c -- the index page of a tournament's games (index.h). */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "document.h"
#include "index.h"
#include "ladder_file.h"
#include "page.h"

/* A path the ladder line names, inside the ladder's folder (html.h). */
static int resolve(const char *dir, const char *rel, char *out, size_t len)
{
    if (!maat_html_inside(rel))
        return 0;
    snprintf(out, len, "%s/%s", dir, rel);
    return 1;
}

static int find_record(const maat_ladder_game *g, const char *ladder_dir,
                       const char *records, char *out, size_t len)
{
    const char *named = json_string_value(json_object_get(g->line, "record"));
    if (named && !maat_html_inside(named)) {
        /* said, not silently left out: a record named by an absolute
         * path, or outside the ladder's folder, is not linked (the index
         * is a page beside the ladder, and links only what lies there) */
        char what[600];
        snprintf(what, sizeof what, "%.100s: its record %.400s is not "
                 "inside the ladder file's folder: not linked", g->id,
                 named);
        maat_text_sanitize(what);
        fprintf(stderr, "maat-replay: %s\n", what);
        return 0;
    }
    if (named)
        return resolve(ladder_dir, named, out, len) && access(out, R_OK) == 0;
    const char *match = json_string_value(json_object_get(g->line, "match"));
    json_t *gi = json_object_get(g->line, "game_index");
    if (!records || !maat_html_safe_name(g->id))
        return 0;
    snprintf(out, len, "%s/%s.json", records, g->id);
    if (access(out, R_OK) == 0)
        return 1;
    if (!match || !maat_html_safe_name(match))
        return 0;
    snprintf(out, len, "%s/%s-%lld.json", records, match,
             (long long)json_integer_value(gi));
    if (access(out, R_OK) == 0)
        return 1;
    snprintf(out, len, "%s/%s.json", records, match);
    return access(out, R_OK) == 0;
}

/* Is `record` the record of the ladder line's game: the same game, match,
 * game index, bots by seat and scores?  When not, why, in `why`.  (A
 * record beside the ladder can be another game's: a file copied over, a
 * match played again; its page would show another game under this id.) */
static int record_matches(const maat_ladder_game *g, const char *record,
                          char *why, size_t len)
{
    json_error_t je;
    json_t *rec = json_load_file(record, JSON_REJECT_DUPLICATES, &je);
    const char *game = json_string_value(json_object_get(rec, "game"));
    const char *match = json_string_value(json_object_get(rec, "match"));
    const char *want_match = json_string_value(json_object_get(g->line,
                                                               "match"));
    json_t *result = json_object_get(rec, "result");
    int ok = 0;
    if (!rec)
        snprintf(why, len, "not readable: %s", je.text);
    else if (!game || strcmp(game, g->game))
        snprintf(why, len, "its game is '%.40s', the line's '%s'",
                 game ? game : "?", g->game);
    else if (!match || !want_match || strcmp(match, want_match) ||
             json_integer_value(json_object_get(rec, "game_index")) !=
                 json_integer_value(json_object_get(g->line, "game_index")))
        snprintf(why, len, "it is game %lld of match '%.40s', the line is "
                 "game %lld of '%.40s'",
                 (long long)json_integer_value(json_object_get(rec,
                                                               "game_index")),
                 match ? match : "?",
                 (long long)json_integer_value(json_object_get(g->line,
                                                               "game_index")),
                 want_match ? want_match : "?");
    else if ((int)json_array_size(result) != g->seats)
        snprintf(why, len, "it has %zu seats, the line %d",
                 json_array_size(result), g->seats);
    else {
        ok = 1;
        for (int s = 0; s < g->seats && ok; s++) {
            json_t *e = json_array_get(result, (size_t)s);
            const char *bot = json_string_value(json_object_get(e, "bot"));
            ok = bot && !strcmp(bot, g->bot[s]) &&
                 json_integer_value(json_object_get(e, "score")) ==
                     g->score[s];
            if (!ok)
                snprintf(why, len, "seat %d: the record has %.40s with %lld "
                         "points, the line %s with %d", s, bot ? bot : "?",
                         (long long)json_integer_value(json_object_get(e,
                                                                "score")),
                         g->bot[s], g->score[s]);
        }
    }
    json_decref(rec);
    maat_text_sanitize(why);
    return ok;
}

/* The replay of one game beside the index; 0 when written. */
static int write_replay(const maat_ladder_game *g, const char *record,
                        const char *ladder_dir, const char *page,
                        maat_error *err)
{
    maat_replay_log logs[MAAT_MAX_SEATS];
    char who[MAAT_MAX_SEATS][16], path[MAAT_MAX_SEATS][4096];
    int n = 0;
    json_t *l = json_object_get(g->line, "logs");
    for (int s = 0; s < g->seats && s < (int)json_array_size(l); s++) {
        const char *p = json_string_value(json_array_get(l, (size_t)s));
        if (!resolve(ladder_dir, p, path[n], sizeof path[n]) ||
            access(path[n], R_OK) != 0)
            continue;
        snprintf(who[n], sizeof who[n], "%d", s);
        logs[n].who = who[n];
        logs[n].path = path[n];
        n++;
    }
    json_t *doc = maat_replay_document(record, NULL, logs, n, err);
    if (!doc)
        return -1;
    int rc = maat_replay_page_write(page, g->id, doc, err);
    json_decref(doc);
    return rc;
}

static void row(FILE *f, const maat_ladder_game *g, const char *href)
{
    fputs("<tr><td>", f);
    if (href) {
        fputs("<a href=\"", f);
        maat_html_text(f, href);
        fputs("\">", f);
    }
    maat_html_text(f, g->id);
    fputs(href ? "</a></td><td>" : "</td><td>", f);
    maat_html_text(f, g->game);
    fputs("</td><td>", f);
    for (int s = 0; s < g->seats; s++) {
        int faults = 0;
        for (int k = 0; k < MAAT_FAULT_KINDS; k++)
            faults += g->faults[s][k];
        fprintf(f, "<span class=\"seat r%d%s\">%d. ", g->rank[s] == 1,
                g->out[s] ? " out" : "", g->rank[s]);
        maat_html_text(f, g->bot[s]);
        fprintf(f, " <b>%d</b>", g->score[s]);
        if (faults)
            fprintf(f, " <i>%d fault%s</i>", faults, faults == 1 ? "" : "s");
        fputs("</span> ", f);
    }
    json_t *d = json_object_get(g->line, "decisions");
    fprintf(f, "</td><td>%lld</td></tr>\n", (long long)json_integer_value(d));
}

int maat_replay_index(const char *ladder, const char *records,
                      const char *out, int *games, int *replays,
                      maat_error *err)
{
    maat_ladder l = {0};
    *games = *replays = 0;
    if (maat_ladder_read(&l, ladder, 0, stderr, err))
        return err ? err->code : MAAT_EIO;
    char ladder_copy[4096], out_copy[4096];
    snprintf(ladder_copy, sizeof ladder_copy, "%s", ladder);
    snprintf(out_copy, sizeof out_copy, "%s", out);
    const char *ladder_dir = dirname(ladder_copy);
    const char *out_dir = dirname(out_copy);
    char tmp[4200];
    FILE *f = maat_html_open_out(out, tmp, sizeof tmp, err);
    if (!f) {
        maat_ladder_free(&l);
        return err ? err->code : MAAT_EIO;
    }
    char title[4200];
    snprintf(title, sizeof title, "maat games: %s", ladder);
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head>\n", f);
    maat_html_head(f, title,
                   "body{font:14px system-ui,sans-serif;margin:2em;"
                   "color:#222}table{border-collapse:collapse}td,th{padding:"
                   "4px 10px;border-bottom:1px solid #ddd;text-align:left;"
                   "vertical-align:top}.seat{white-space:nowrap;margin-right:"
                   "1em}.r1{color:#0a6b2d}.out{text-decoration:line-through}"
                   "i{color:#b00020}\n", 0);
    fputs("</head><body>\n<h1>Games of ", f);
    maat_html_text(f, ladder);
    fputs("</h1>\n<table><tr><th>game</th><th>kind</th><th>seats: rank, "
          "bot, score, faults</th><th>decisions</th></tr>\n", f);
    for (size_t i = 0; i < l.count; i++) {
        const maat_ladder_game *g = &l.games[i];
        char record[4096], page[4400], href[300];
        const char *link = NULL;
        if (maat_html_safe_name(g->id) &&
            find_record(g, ladder_dir, records, record, sizeof record)) {
            snprintf(href, sizeof href, "%s.html", g->id);
            snprintf(page, sizeof page, "%s/%s", out_dir, href);
            maat_error e = {0, ""};
            char why[400];
            if (!record_matches(g, record, why, sizeof why))
                fprintf(stderr, "maat-replay: %s: %s is not this game's "
                        "record (%s): not linked\n", g->id, record, why);
            else if (write_replay(g, record, ladder_dir, page, &e) == 0) {
                link = href;
                (*replays)++;
            } else {
                fprintf(stderr, "maat-replay: %s: %s\n", g->id, e.msg);
            }
        }
        row(f, g, link);
        (*games)++;
    }
    fputs("</table>\n</body></html>\n", f);
    maat_ladder_free(&l);
    return maat_html_close_out(f, tmp, out, err);
}
