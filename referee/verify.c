/* verify.c -- maat-referee --verify: replay a game record through the
 * rules and report every place where the record and the rules disagree
 * (whose decision, which kind, a refused action, scores, ranks). */
#include <string.h>

#include "maat/msg.h"
#include "record.h"

static int diff(FILE *report, int *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int diff(FILE *report, int *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (report) {
        vfprintf(report, fmt, ap);
        fputc('\n', report);
    }
    va_end(ap);
    return ++*n;
}

static int replay_action(const maat_rules *r, maat_game *g, json_t *action,
                         maat_error *err)
{
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, maat_sbuffer_write);
    int rc = MAAT_EDECODE;
    maat_error_set(err, rc, "the action is not a JSON object");
    if (json_is_object(action) && maat_json_to_msgpack(action, &pk) == 0) {
        msgpack_unpacked u;
        rc = maat_msg_unpack(sb.data, sb.size, &u, err);
        maat_action a;
        if (!rc)
            rc = r->decode_action(g, &u.data, &a, err);
        if (!rc)
            rc = r->apply(g, &a, NULL, err);
        msgpack_unpacked_destroy(&u);
    }
    msgpack_sbuffer_destroy(&sb);
    return rc;
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
        /* match rank: clean seats first, then seats that were out, each
         * in the game's own order */
        int better = 0;
        for (int j = 0; j < seats; j++)
            better += (!out[j] && out[s]) ||
                      (out[j] == out[s] && sc[j].rank < sc[s].rank);
        if (rank != 1 + better)
            diff(report, n, "seat %d: record says rank %lld, expected %d", s,
                 (long long)rank, 1 + better);
    }
}

int maat_record_verify(const char *path, const char *deck, FILE *report,
                       maat_error *err)
{
    json_error_t je;
    json_t *rec = json_load_file(path, 0, &je);
    if (!rec) {
        maat_error_set(err, MAAT_EFORMAT, "%s:%d: %s", path, je.line, je.text);
        return -1;
    }
    int n = 0;
    const char *game = json_string_value(json_object_get(rec, "game"));
    const maat_rules *r = maat_rules_find(game ? game : "");
    json_t *decisions = json_object_get(rec, "decisions");
    json_t *seats = json_object_get(rec, "seats");
    json_t *seed = json_object_get(rec, "seed");
    json_t *options = json_object_get(rec, "options");
    if (!r || !json_is_array(decisions) || !json_is_array(seats) ||
        !json_is_integer(seed)) {
        maat_error_set(err, MAAT_EFORMAT, "%s: not a maat record (needs game, "
                       "seed, seats, decisions)", path);
        json_decref(rec);
        return -1;
    }
    const char *rv = json_string_value(json_object_get(rec, "rules_version"));
    if (!rv || strcmp(rv, r->rules_version) != 0)
        diff(report, &n, "rules version: record %s, this build %s",
             rv ? rv : "(none)", r->rules_version);
    /* the game's options as recorded (e.g. its deck file); --deck wins */
    maat_options opt = {0};
    const char *key;
    json_t *value;
    json_object_foreach(options, key, value)
        if (json_is_string(value))
            maat_options_set(&opt, key, json_string_value(value));
    if (deck)
        maat_options_set(&opt, "deck", deck);
    maat_setup *setup = r->setup_new(&opt, err);
    maat_game *g = NULL;
    if (setup)
        g = r->game_new(setup, (uint64_t)json_integer_value(seed),
                        (int)json_array_size(seats), NULL, err);
    if (!g) {
        if (setup)
            r->setup_destroy(&setup);
        json_decref(rec);
        return -1;
    }
    size_t i;
    json_t *d;
    json_array_foreach(decisions, i, d) {
        if (r->is_over(g)) {
            diff(report, &n, "decision %zu: the game is already over", i);
            break;
        }
        maat_decision want = r->decision(g);
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
        if (replay_action(r, g, json_object_get(d, "action"), &e)) {
            diff(report, &n, "decision %zu: the rules refuse the recorded "
                 "action: %s", i, e.msg);
            break;
        }
    }
    if (r->is_over(g))
        compare_results(report, &n, r, g, json_object_get(rec, "result"));
    else
        diff(report, &n, "the record ends before the game does");
    r->destroy(&g);
    r->setup_destroy(&setup);
    json_decref(rec);
    return n;
}
