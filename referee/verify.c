/* verify.c -- maat-referee --verify: replay a game record through the
 * rules and report every place where the record and the rules disagree
 * (whose decision, which kind, a refused action, scores, ranks); with
 * --verbose, the position after each decision (rules->render). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outcome.h"
#include "playback.h"
#include "record.h"

static int diff(FILE *report, int *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A difference, one line.  It can quote the record (its rules version, a
 * bot's name), which anyone may have edited: never a control character
 * on the terminal. */
static int diff(FILE *report, int *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (report) {
        char line[1024];
        vsnprintf(line, sizeof line, fmt, ap);
        maat_text_sanitize(line);
        fprintf(report, "%s\n", line);
    }
    va_end(ap);
    return ++*n;
}

static void compare_results(FILE *report, int *n, const maat_rules *r,
                            maat_game *g, json_t *result)
{
    maat_score sc[MAAT_MAX_SEATS];
    r->scores(g, sc);
    int seats = r->seats(g);
    if (!json_is_array(result) || (int)json_array_size(result) != seats) {
        diff(report, n, "result: expected %d seats", seats);
        return;
    }
    int out[MAAT_MAX_SEATS];
    for (int s = 0; s < seats; s++)
        out[s] = json_is_true(json_object_get(json_array_get(result, s),
                                              "out"));
    int game_rank[MAAT_MAX_SEATS], want[MAAT_MAX_SEATS];
    for (int s = 0; s < seats; s++)
        game_rank[s] = sc[s].rank;
    maat_match_ranks(seats, game_rank, out, want);
    for (int s = 0; s < seats; s++) {
        json_t *e = json_array_get(result, s);
        json_int_t score = json_integer_value(json_object_get(e, "score"));
        json_int_t grank = json_integer_value(json_object_get(e, "game_rank"));
        json_int_t rank = json_integer_value(json_object_get(e, "rank"));
        if (score != sc[s].total)
            diff(report, n, "seat %d: record says score %lld, rules say %d", s,
                 (long long)score, sc[s].total);
        if (grank != sc[s].rank)
            diff(report, n, "seat %d: record says game rank %lld, rules say "
                 "%d", s, (long long)grank, sc[s].rank);
        for (int p = 0; p < r->n_score_parts; p++) {
            json_t *v = json_object_get(json_object_get(e, "parts"),
                                        r->score_parts[p]);
            if (json_integer_value(v) != sc[s].part[p])
                diff(report, n, "seat %d: record says %s = %lld, rules say "
                     "%d", s, r->score_parts[p],
                     (long long)json_integer_value(v), sc[s].part[p]);
        }
        if (rank != want[s])
            diff(report, n, "seat %d: record says rank %lld, expected %d", s,
                 (long long)rank, want[s]);
    }
}

/* --verbose: the decision as recorded, then the position it led to. */
static void show_step(FILE *report, const maat_playback *p, json_t *d)
{
    char *action = json_dumps(json_object_get(d, "action"),
                              JSON_COMPACT | JSON_PRESERVE_ORDER);
    char *text = maat_game_render(p->rules, p->game, MAAT_OMNISCIENT);
    char head[512];
    snprintf(head, sizeof head, "%s by %s", action ? action : "?",
             json_is_string(json_object_get(d, "by"))
                 ? json_string_value(json_object_get(d, "by")) : "?");
    maat_text_sanitize(head); /* the record's text (diff) */
    fprintf(report, "\n-- decision %zu: seat %lld %s --\n%s",
            p->next - 1, (long long)json_integer_value(json_object_get(d,
            "seat")), head, text ? text : "(cannot render the position)\n");
    free(action);
    free(text);
}

int maat_record_verify(const char *path, const char *deck, FILE *report,
                       int verbose, maat_error *err)
{
    maat_playback p;
    if (maat_playback_open(&p, path, deck, NULL, err))
        return -1;
    const maat_rules *r = p.rules;
    int n = 0;
    const char *rv = json_string_value(json_object_get(p.rec,
                                                       "rules_version"));
    if (!rv || strcmp(rv, r->rules_version) != 0)
        diff(report, &n, "rules version: record %s, this build %s",
             rv ? rv : "(none)", r->rules_version);
    if (verbose && report) {
        char *text = maat_game_render(r, p.game, MAAT_OMNISCIENT);
        fprintf(report, "-- the deal --\n%s", text ? text : "");
        free(text);
    }
    while (p.next < json_array_size(p.decisions)) {
        size_t i = p.next;
        json_t *d = json_array_get(p.decisions, i);
        if (r->is_over(p.game)) {
            diff(report, &n, "decision %zu: the game is already over", i);
            break;
        }
        maat_decision want = r->decision(p.game);
        json_int_t seat = json_integer_value(json_object_get(d, "seat"));
        const char *kind = json_string_value(json_object_get(d, "kind"));
        if (seat != want.seat)
            diff(report, &n, "decision %zu: record says seat %lld decides, "
                 "rules say seat %d", i, (long long)seat, want.seat);
        if (!kind || strcmp(kind, r->decision_names[want.kind]) != 0)
            diff(report, &n, "decision %zu: record says a '%s' decision, "
                 "rules say '%s'", i, kind ? kind : "?",
                 r->decision_names[want.kind]);
        maat_error e = {0};
        if (maat_playback_step(&p, NULL, &e)) {
            diff(report, &n, "decision %zu: the rules refuse the recorded "
                 "action: %s", i, e.msg);
            break;
        }
        if (verbose && report)
            show_step(report, &p, d);
    }
    if (r->is_over(p.game))
        compare_results(report, &n, r, p.game,
                        json_object_get(p.rec, "result"));
    else
        diff(report, &n, "the record ends before the game does");
    maat_playback_close(&p);
    return n;
}
