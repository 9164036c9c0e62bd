/* verify.c -- maat-referee --verify: replay a game record through the
 * rules and report every place where the record and the rules disagree
 * (whose decision, which kind, a refused action, scores, ranks); with
 * --verbose, the position after each decision (rules->render). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maat/internal/msg.h"
#include "maat/policy.h"
#include "maat/rng.h"
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

/* Who the record says played each seat, which seats it says are out, and
 * its faults, against each other.  A seat is out only after a fault, and
 * from its last fault on every decision of it is the default policy's; a
 * seat that is not out was played by the default policy only at decisions
 * where it has a fault.  (How many faults put a seat out is the match's
 * fault policy, which the record does not hold: not checked.) */
static void compare_faults(FILE *report, int *n, json_t *rec, int seats)
{
    json_t *version = json_object_get(rec, "version");
    if (!json_is_integer(version) || json_integer_value(version) != 1)
        diff(report, n, "field 'version': the record format is version 1");
    json_t *seat_list = json_object_get(rec, "seats"), *result =
        json_object_get(rec, "result"), *faults = json_object_get(rec,
        "faults"), *decisions = json_object_get(rec, "decisions");
    const char *bot[MAAT_MAX_SEATS] = {0};
    int out[MAAT_MAX_SEATS] = {0}, has_fault[MAAT_MAX_SEATS] = {0};
    json_int_t last_fault[MAAT_MAX_SEATS] = {0};
    for (int s = 0; s < seats && s < MAAT_MAX_SEATS; s++) {
        json_t *e = json_array_get(seat_list, s), *r = json_array_get(result,
                                                                      s);
        bot[s] = json_string_value(json_object_get(e, "bot"));
        const char *rbot = json_string_value(json_object_get(r, "bot"));
        if (json_integer_value(json_object_get(e, "seat")) != s || !bot[s])
            diff(report, n, "seats[%d]: expected seat %d and its bot", s, s);
        else if (r && (!rbot || strcmp(rbot, bot[s]) != 0))
            diff(report, n, "seat %d: seats says bot '%.64s', result says "
                 "'%.64s'", s, bot[s], rbot ? rbot : "(none)");
        out[s] = json_is_true(json_object_get(r, "out"));
    }
    size_t n_dec = json_array_size(decisions);
    uint8_t *faulted = calloc(n_dec + 1, 1); /* seats with a fault there */
    if (!json_is_array(faults))
        diff(report, n, "field 'faults' is not an array");
    size_t i;
    json_t *f;
    json_array_foreach(faults, i, f) {
        json_t *seat = json_object_get(f, "seat"), *at =
            json_object_get(f, "decision");
        const char *kind = json_string_value(json_object_get(f, "kind"));
        const char *fbot = json_string_value(json_object_get(f, "bot"));
        json_int_t s = json_integer_value(seat), d = json_integer_value(at);
        if (!json_is_integer(seat) || s < 0 || s >= seats ||
            !json_is_integer(at) || d < 0 || (size_t)d > n_dec || !kind ||
            maat_fault_kind(kind) < 0) {
            diff(report, n, "fault %zu: a seat 0..%d, a decision 0..%zu and "
                 "a fault kind expected", i, seats - 1, n_dec);
            continue;
        }
        if (!fbot || !bot[s] || strcmp(fbot, bot[s]) != 0)
            diff(report, n, "fault %zu: bot '%.64s' does not play seat "
                 "%lld", i, fbot ? fbot : "(none)", (long long)s);
        has_fault[s] = 1;
        last_fault[s] = d > last_fault[s] ? d : last_fault[s];
        if (faulted)
            faulted[d] |= (uint8_t)(1u << s);
    }
    for (int s = 0; s < seats && s < MAAT_MAX_SEATS; s++)
        if (out[s] && !has_fault[s])
            diff(report, n, "seat %d: record says out, but it has no fault",
                 s);
    json_t *d;
    json_array_foreach(decisions, i, d) {
        json_int_t s = json_integer_value(json_object_get(d, "seat"));
        const char *by = json_string_value(json_object_get(d, "by"));
        if (s < 0 || s >= seats || s >= MAAT_MAX_SEATS)
            continue; /* the replay names it */
        int dflt = by && !strcmp(by, "default");
        if (!dflt && !(by && !strcmp(by, "bot")))
            diff(report, n, "decision %zu: 'by' must be \"bot\" or "
                 "\"default\"", i);
        else if (out[s] && has_fault[s] && (json_int_t)i > last_fault[s] &&
                 !dflt)
            diff(report, n, "decision %zu: seat %lld is out since decision "
                 "%lld, but the record says its bot played", i, (long long)s,
                 (long long)last_fault[s]);
        else if (dflt && !(faulted && (faulted[i] & (1u << s))) &&
                 !(out[s] && has_fault[s] && (json_int_t)i >= last_fault[s]))
            diff(report, n, "decision %zu: played by the default policy for "
                 "seat %lld, which has no fault there and is not out", i,
                 (long long)s);
    }
    free(faulted);
}

/* Is the record's action for decision p->next the one the seeded default
 * policy plays there (drawing from rng, as the referee did)?  Both are
 * compared as the game encodes them. */
static int default_matches(const maat_playback *p, maat_rng *rng)
{
    maat_action want, got;
    if (maat_policy_random(p->rules, p->game, rng, &want) != MAAT_OK ||
        maat_playback_action(p, &got, NULL) != MAAT_OK)
        return 0; /* the replay names an action that is not one */
    msgpack_sbuffer a, b;
    msgpack_sbuffer_init(&a);
    msgpack_sbuffer_init(&b);
    msgpack_packer pa, pb;
    msgpack_packer_init(&pa, &a, maat_sbuffer_write);
    msgpack_packer_init(&pb, &b, maat_sbuffer_write);
    int same = p->rules->encode_action(p->game, &want, &pa) == 0 &&
               p->rules->encode_action(p->game, &got, &pb) == 0 &&
               a.size == b.size && memcmp(a.data, b.data, a.size) == 0;
    msgpack_sbuffer_destroy(&a);
    msgpack_sbuffer_destroy(&b);
    return same;
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

int maat_record_verify(const char *path, const maat_options *overrides,
                       FILE *report, int verbose, maat_error *err)
{
    maat_playback p;
    if (maat_playback_open(&p, path, overrides, NULL, err))
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
    compare_faults(report, &n, p.rec, p.seats);
    /* the default policy's draws, seeded as the referee seeds them */
    maat_seed key;
    maat_rng rng;
    maat_seed_derive(&key, &p.seed, "policy");
    maat_rng_seed(&rng, &key);
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
        const char *by = json_string_value(json_object_get(d, "by"));
        if (by && !strcmp(by, "default") && seat == want.seat &&
            !default_matches(&p, &rng))
            diff(report, &n, "decision %zu: the record says the default "
                 "policy played it, but that is not the action it plays "
                 "there", i);
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
