/* document.c -- replaying a record into the replay document (document.h). */
#include <stdlib.h>
#include <string.h>

#include "maat/internal/msg.h"
#include "botlog.h"
#include "delta.h"
#include "document.h"
#include "playback.h"
#include "record.h"

/* msgpack written by one of the module's encoders, read back as JSON. */
typedef struct packed {
    msgpack_sbuffer sb;
    msgpack_packer pk;
} packed;

static msgpack_packer *packed_init(packed *b)
{
    msgpack_sbuffer_init(&b->sb);
    msgpack_packer_init(&b->pk, &b->sb, maat_sbuffer_write);
    return &b->pk;
}

static json_t *packed_json(packed *b)
{
    json_t *j = maat_json_from_msgpack_bytes(b->sb.data, b->sb.size);
    msgpack_sbuffer_destroy(&b->sb);
    return j;
}

static json_t *observation(const maat_playback *p, int seat)
{
    packed b;
    p->rules->encode_observation(p->game, seat, packed_init(&b));
    return packed_json(&b);
}

static json_t *event_json(const maat_playback *p, const maat_event *e)
{
    packed b;
    p->rules->encode_event(p->game, e, packed_init(&b));
    json_t *j = packed_json(&b);
    if (json_is_object(j) && e->visible_to != MAAT_ALL_SEATS) {
        json_t *to = json_array();
        for (int s = 0; s < p->seats; s++)
            if (e->visible_to >> s & 1)
                json_array_append_new(to, json_integer(s));
        json_object_set_new(j, "seen_by", to); /* who could see it */
    }
    return j;
}

static json_t *events_json(const maat_playback *p, const maat_events *ev)
{
    json_t *a = json_array();
    for (size_t i = 0; i < ev->count; i++)
        json_array_append_new(a, event_json(p, &ev->items[i]));
    return a;
}

static json_t *setup_json(const maat_playback *p)
{
    packed b;
    p->rules->setup_encode(p->setup, packed_init(&b));
    return packed_json(&b);
}

static json_t *names(const char *const *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

/* Streams: 0 the omniscient state, 1 + s seat s's observation.  Each is
 * [first, patch, patch, ...]; a patch is null when nothing changed. */
static void add_position(const maat_playback *p, json_t *streams,
                         json_t **last)
{
    for (int k = 0; k <= p->seats; k++) {
        json_t *now = observation(p, k ? k - 1 : MAAT_OMNISCIENT);
        json_t *stream = json_array_get(streams, (size_t)k);
        if (!last[k]) {
            json_array_append(stream, now);
        } else {
            json_t *d = maat_json_delta(last[k], now);
            json_array_append_new(stream, d ? d : json_null());
            json_decref(last[k]);
        }
        last[k] = now;
    }
}

/* The seat a --log names: a number, or the name of exactly one bot. */
static int log_seat(json_t *seats, const char *who)
{
    char *end;
    long n = strtol(who, &end, 10);
    if (*who && !*end)
        return n >= 0 && n < (long)json_array_size(seats) ? (int)n : -1;
    int found = -1;
    size_t i;
    json_t *s;
    json_array_foreach(seats, i, s) {
        const char *bot = json_string_value(json_object_get(s, "bot"));
        if (bot && strcmp(bot, who) == 0) {
            if (found >= 0)
                return -2; /* two seats: the name does not say which */
            found = (int)i;
        }
    }
    return found;
}

/* Each decision's lines of seat s's log under decisions[i].log[s]; the
 * lines before the first decision under the document's "log". */
static int attach_log(json_t *doc, json_t *decisions, int seats,
                      const maat_replay_log *l, maat_error *err)
{
    int s = log_seat(json_object_get(doc, "seats"), l->who);
    if (s < 0)
        return maat_error_set(err, MAAT_EINVAL, "--log %s=%s: %s (give a "
                              "seat 0..%d or a bot's name)", l->who, l->path,
                              s == -2 ? "two seats have that bot" :
                              "no such seat", seats - 1);
    json_t *lines = maat_botlog_read(l->path,
                                     (long)json_array_size(decisions), err);
    if (!lines)
        return err ? err->code : MAAT_EIO;
    char seat[16];
    snprintf(seat, sizeof seat, "%d", s);
    const char *k;
    json_t *v;
    json_object_foreach(lines, k, v) {
        long i = strtol(k, NULL, 10);
        json_t *owner = i < 0 ? doc : json_array_get(decisions, (size_t)i);
        json_t *log = json_object_get(owner, "log");
        if (!log) {
            log = json_object();
            json_object_set_new(owner, "log", log);
        }
        json_object_set(log, seat, v);
    }
    json_decref(lines);
    return MAAT_OK;
}

static const char *json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER:
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "true or false";
    default: return "null";
    }
}

/* The record's faults under their decision; the others (before the first
 * decision, e.g. no hello) stay in the document's "faults".  The page
 * reads each fault's fields, so a fault that is not an object (a
 * hand-edited "faults": [null]) refuses the record, naming the field. */
static int attach_faults(json_t *doc, json_t *decisions, json_t *faults,
                         const char *path, maat_error *err)
{
    size_t i;
    json_t *f;
    if (faults && !json_is_array(faults))
        return maat_error_set(err, MAAT_EFORMAT, "%s: field 'faults' is %s, "
                              "not an array of faults", path,
                              json_kind(faults));
    json_array_foreach(faults, i, f)
        if (!json_is_object(f))
            return maat_error_set(err, MAAT_EFORMAT, "%s: field 'faults': "
                                  "entry %zu is %s, not an object (seat, "
                                  "bot, kind, decision, detail)", path, i,
                                  json_kind(f));
    json_t *loose = json_array();
    json_array_foreach(faults, i, f) {
        json_t *at = json_object_get(f, "decision");
        json_t *d = json_is_integer(at) && json_integer_value(at) >= 0
                        ? json_array_get(decisions,
                                         (size_t)json_integer_value(at))
                        : NULL;
        if (!d) {
            json_array_append(loose, f);
            continue;
        }
        json_t *list = json_object_get(d, "faults");
        if (!list) {
            list = json_array();
            json_object_set_new(d, "faults", list);
        }
        json_array_append(list, f);
    }
    json_object_set_new(doc, "faults", loose);
    return MAAT_OK;
}

/* The replayed result against the record's: any difference is a warning. */
static void check_result(const maat_playback *p, json_t *result,
                         json_t *warnings)
{
    maat_score sc[MAAT_MAX_SEATS];
    p->rules->scores(p->game, sc);
    for (int s = 0; s < p->seats; s++) {
        json_t *r = json_array_get(result, (size_t)s);
        json_t *score = json_object_get(r, "score");
        if (!json_is_integer(score) || json_integer_value(score) != sc[s].total)
            json_array_append_new(warnings, json_sprintf(
                "seat %d: the record says score %lld, the rules %d", s,
                (long long)json_integer_value(score), sc[s].total));
    }
}

static json_t *decision_json(const maat_playback *p, json_t *rec_d,
                             maat_decision want)
{
    json_t *d = json_pack("{s:i, s:s, s:O}", "seat", want.seat, "kind",
                          p->rules->decision_names[want.kind], "action",
                          json_object_get(rec_d, "action"));
    const char *keys[] = {"by", "wall_us", "cpu_us"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        json_t *v = json_object_get(rec_d, keys[k]);
        if (json_is_string(v) || json_is_integer(v))
            json_object_set(d, keys[k], v);
    }
    return d;
}

json_t *maat_replay_document(const char *path,
                             const maat_options *overrides,
                             const maat_replay_log *logs, int n_logs,
                             maat_error *err)
{
    maat_playback p;
    maat_events ev = {0};
    if (maat_playback_open(&p, path, overrides, &ev, err)) {
        maat_events_free(&ev);
        return NULL;
    }
    const maat_rules *r = p.rules;
    json_t *rec = p.rec;
    json_t *warnings = json_array(), *decisions = json_array();
    json_t *streams = json_array();
    json_t *last[MAAT_MAX_SEATS + 1] = {0};
    for (int k = 0; k <= p.seats; k++)
        json_array_append_new(streams, json_array());
    json_t *deal = events_json(&p, &ev);
    add_position(&p, streams, last);
    while (p.next < json_array_size(p.decisions) && !r->is_over(p.game)) {
        json_t *rec_d = json_array_get(p.decisions, p.next);
        maat_decision want = r->decision(p.game);
        maat_error e = {0, ""};
        maat_events_clear(&ev);
        if (maat_playback_step(&p, &ev, &e)) {
            json_array_append_new(warnings, json_sprintf(
                "decision %zu: the rules refuse the recorded action: %s; "
                "the replay stops here", p.next, e.msg));
            break;
        }
        json_t *d = decision_json(&p, rec_d, want);
        json_object_set_new(d, "events", events_json(&p, &ev));
        json_array_append_new(decisions, d);
        add_position(&p, streams, last);
    }
    if (p.next < json_array_size(p.decisions) && r->is_over(p.game))
        json_array_append_new(warnings, json_sprintf(
            "the game is over after %zu decisions; the record has %zu",
            p.next, json_array_size(p.decisions)));
    if (!r->is_over(p.game))
        json_array_append_new(warnings, json_string(
            "the record ends before the game does"));
    else
        check_result(&p, json_object_get(rec, "result"), warnings);

    json_t *doc = json_pack(
        "{s:s, s:i, s:s, s:s, s:O?, s:O?, s:O?, s:O?, s:o, s:o, s:o, s:o, "
        "s:O?, s:o, s:o, s:o}",
        "format", "maat-replay", "version", 1, "game", r->name,
        "rules_version", r->rules_version, "match",
        json_object_get(rec, "match"), "game_index",
        json_object_get(rec, "game_index"), "seed",
        json_object_get(rec, "seed"), "seats", json_object_get(rec, "seats"),
        "setup", setup_json(&p), "score_parts",
        names(r->score_parts, r->n_score_parts), "deal", deal, "decisions",
        decisions, "result", json_object_get(rec, "result"), "streams",
        streams, "warnings", warnings, "record", json_string(path));
    for (int k = 0; k <= p.seats; k++)
        json_decref(last[k]);
    maat_events_free(&ev);
    if (!doc) {
        maat_playback_close(&p);
        maat_error_set(err, MAAT_EFORMAT, "%s: the record's match, seed or "
                       "seats have the wrong type", path);
        return NULL;
    }
    if (attach_faults(doc, decisions, json_object_get(rec, "faults"), path,
                      err)) {
        json_decref(doc);
        maat_playback_close(&p);
        return NULL;
    }
    for (int i = 0; i < n_logs; i++)
        if (attach_log(doc, decisions, p.seats, &logs[i], err)) {
            json_decref(doc);
            maat_playback_close(&p);
            return NULL;
        }
    maat_playback_close(&p);
    return doc;
}
