/* results.c -- what a game leaves behind, and the faults that shape it.
 *
 * Owns fault bookkeeping (recording each fault, strikes against the
 * policy, putting a seat out), the match ranks (clean seats first, in the
 * game's own order), the decisions kept during a game for the record, and
 * everything written when a game ends: the record file, the ladder line,
 * the console tables.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maat/internal/msg.h"
#include "json_writer.h"
#include "match_state.h"

#include "record.h"

void match_set_out(match *m, match_bot *b, const char *why)
{
    if (!b->out)
        match_say(m, "seat %d (%s) is out: %s; the default policy plays for it",
            b->seat, b->spec->name, why);
    b->out = 1;
    b->outstanding = -1;
}

void match_fault(match *m, match_bot *b, int kind, const char *fmt, ...)
{
    char detail[480];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    maat_text_sanitize(detail); /* bot bytes may be in it */
    if (b->faults < MAX_FAULTS_RECORDED) {
        json_array_append_new(m->faults,
            json_pack("{s:i, s:s, s:s, s:i, s:s}", "seat", b->seat, "bot",
                      b->spec->name, "kind", maat_fault_names[kind],
                      "decision", m->decision_no, "detail", detail));
        match_say(m, "seat %d (%s): %s at decision %d: %s", b->seat, b->spec->name,
            maat_fault_names[kind], m->decision_no, detail);
    } else {
        b->faults_dropped++;
    }
    b->faults++;
    if (b->out)
        return;
    int limit = m->c->policy.strikes[kind];
    if (kind == MAAT_FAULT_CRASH || kind == MAAT_FAULT_NO_HELLO || limit == 0)
        match_set_out(m, b, maat_fault_names[kind]);
    else if (++b->strikes[kind] >= limit)
        match_set_out(m, b, "too many strikes");
}

void match_note_late_think(match *m, match_bot *b, int64_t think_us)
{
    if (!m->c->record_timing || think_us < 0 || !m->faults)
        return;
    for (size_t i = json_array_size(m->faults); i-- > 0;) {
        json_t *f = json_array_get(m->faults, i);
        if (json_integer_value(json_object_get(f, "seat")) != b->seat)
            continue;
        const char *kind = json_string_value(json_object_get(f, "kind"));
        if (kind && !strcmp(kind, maat_fault_names[MAAT_FAULT_TIMEOUT]) &&
            !json_object_get(f, "think_us"))
            json_object_set_new(f, "think_us", json_integer(think_us));
        return; /* only the seat's latest fault can be this reply's */
    }
}

/* Keep one applied decision. */
int match_record_decision(match *m, int seat, const maat_action *a,
                          int by_bot, int64_t wall_ns, uint64_t cpu_ns,
                          int64_t credit_ns)
{
    if (m->n_dec == m->cap_dec) {
        size_t cap = m->cap_dec ? m->cap_dec * 2 : 256;
        decision_rec *d = realloc(m->dec, cap * sizeof *d);
        if (!d)
            return MAAT_ENOMEM;
        m->dec = d;
        m->cap_dec = cap;
    }
    decision_rec r = {seat, by_bot, *a, wall_ns, cpu_ns,
                      by_bot ? m->pending_think_us : -1, credit_ns};
    m->dec[m->n_dec++] = r;
    return MAAT_OK;
}

/* The record's decisions as the text of a JSON array, one decision per
 * line, written straight from m->dec: byte for byte what json_dumps wrote
 * for the jansson tree built here before (the golden records of
 * tests/test_record_bytes.py pin it), at a fraction of the instructions.
 * The action is the rules' own msgpack encoding turned into JSON; one the
 * writer does not take (never from today's encoders) goes through jansson
 * as before.  NULL when out of memory. */
static maat_jw *decisions_text(match *m)
{
    const maat_rules *r = m->c->rules;
    const int flags = JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII |
                      JSON_ENCODE_ANY;
    maat_jw *w = maat_jw_new(m->n_dec * 128 + 16);
    if (!w)
        return NULL;
    if (m->n_dec == 0) {
        maat_jw_lit(w, "[]");
        return w;
    }
    maat_jw_lit(w, "[\n");
    for (size_t i = 0; i < m->n_dec; i++) {
        const decision_rec *d = &m->dec[i];
        outbuf *o = match_out(m);
        r->encode_action(m->g, &d->action, &o->pk);
        const char *kind = r->decision_names[d->action.kind];
        maat_jw_lit(w, "  {\"seat\":");
        maat_jw_int(w, d->seat);
        maat_jw_lit(w, ",\"kind\":");
        if (maat_jw_str(w, kind, strlen(kind)))
            w->failed = 1; /* a rules constant that is not UTF-8 */
        maat_jw_lit(w, ",\"action\":");
        if (maat_jw_msgpack(w, o->sb.data, o->sb.size)) {
            json_t *a = maat_json_from_msgpack_bytes(o->sb.data, o->sb.size);
            char *s = json_dumps(a, flags);
            if (s)
                maat_jw_raw(w, s, strlen(s));
            else
                w->failed = 1;
            free(s);
            json_decref(a);
        }
        if (d->by_bot)
            maat_jw_lit(w, ",\"by\":\"bot\"");
        else
            maat_jw_lit(w, ",\"by\":\"default\"");
        if (m->c->record_timing) {
            maat_jw_lit(w, ",\"wall_us\":");
            maat_jw_int(w, d->wall_ns / 1000);
            maat_jw_lit(w, ",\"cpu_us\":");
            maat_jw_int(w, (int64_t)(d->cpu_ns / 1000));
            if (d->think_us >= 0) {
                maat_jw_lit(w, ",\"think_us\":");
                maat_jw_int(w, d->think_us);
            }
            if (d->credit_ns >= 1000) { /* only when some was given */
                maat_jw_lit(w, ",\"credit_us\":");
                maat_jw_int(w, d->credit_ns / 1000);
            }
        }
        if (i + 1 < m->n_dec)
            maat_jw_lit(w, "},\n");
        else
            maat_jw_lit(w, "}\n");
    }
    maat_jw_lit(w, "]");
    return w;
}

int match_finish_game(match *m, int64_t started_ns, maat_error *err)
{
    const maat_rules *r = m->c->rules;
    maat_score sc[MAAT_MAX_SEATS];
    int ranks[MAAT_MAX_SEATS], game_rank[MAAT_MAX_SEATS], out[MAAT_MAX_SEATS];
    r->scores(m->g, sc);
    for (int s = 0; s < m->n; s++) {
        game_rank[s] = sc[s].rank;
        out[s] = m->bot[m->seat_bot[s]].out;
    }
    maat_match_ranks(m->n, game_rank, out, ranks);
    for (int i = 0; i < m->n; i++)
        if (!m->bot[i].dead)
            match_send_end(m, &m->bot[i], ranks);

    const char *names[MAAT_MAX_SEATS];
    for (int s = 0; s < m->n; s++)
        names[s] = m->bot[m->seat_bot[s]].spec->name;
    maat_jw *dec = NULL;
    if (m->c->record_path) {
        dec = decisions_text(m);
        if (!dec || dec->failed) {
            maat_jw_destroy(&dec);
            return maat_error_set(err, MAAT_ENOMEM, "cannot write the "
                                  "record's decisions: out of memory");
        }
    }
    maat_game_result res = {
        .rules = r, .options = &m->c->options,
        .seed = m->game_seed, .game_index = m->game_index,
        .match_id = m->match_id, .seats = m->n, .bot_names = names,
        .scores = sc, .ranks = ranks, .out = out,
        .decisions = dec ? dec->data : NULL,
        .decisions_len = dec ? dec->len : 0, .n_decisions = (int)m->n_dec,
        .faults = m->faults,
        .duration_ms = (maat_now_ns() - started_ns) / 1000000};
    int rc = MAAT_OK;
    char path[1024], logs[MAAT_MAX_SEATS][1024];
    for (int s = 0; s < m->n; s++) {
        const match_bot *b = &m->bot[m->seat_bot[s]];
        if (m->c->log_dir && b->proc) {
            match_log_path(m, b, m->game_index, logs[s], sizeof logs[s]);
            res.log_files[s] = logs[s];
        }
    }
    if (m->c->record_path) {
        maat_record_path(m->c->record_path, m->c->games, m->game_index, path,
                         sizeof path);
        rc = maat_record_write(&res, path, err);
        res.record_file = path;
    }
    maat_jw_destroy(&dec);
    if (!rc && m->c->ladder_path)
        rc = maat_ladder_append(&res, m->c->ladder_path,
                                m->c->ladder_final, err);
    if (!m->c->quiet) {
        char seed[MAAT_SEED_TEXT];
        fprintf(stderr, "maat-referee: game %d of %d, seed %s, %d "
                "decisions\n  %-4s %-12s %4s %5s", m->game_index + 1,
                m->c->games, maat_seed_format(&m->game_seed, seed),
                m->decision_no, "seat", "bot", "rank", "score");
        for (int p = 0; p < r->n_score_parts; p++)
            fprintf(stderr, " %7s", r->score_parts[p]);
        fprintf(stderr, "  faults\n");
        for (int s = 0; s < m->n; s++) {
            const match_bot *b = &m->bot[m->seat_bot[s]];
            fprintf(stderr, "  %-4d %-12s %4d %5d", s, names[s], ranks[s],
                    sc[s].total);
            for (int p = 0; p < r->n_score_parts; p++)
                fprintf(stderr, " %7d", sc[s].part[p]);
            fprintf(stderr, "  %d%s\n", b->faults, out[s] ? " (out)" : "");
        }
    }
    return rc;
}

void match_print_summary(const match *m)
{
    if (m->c->quiet)
        return;
    /* with --limit-mem, the most memory each bot's processes used at once
     * (its cgroup's peak): what an organiser sets the limit from */
    int mem = m->c->limits.memory != 0;
    fprintf(stderr, "maat-referee: %-12s %9s %9s %9s %9s%s\n", "bot",
            "decisions", "mean ms", "max ms", "cpu ms",
            mem ? "   peak MB" : "");
    for (int i = 0; i < m->n; i++) {
        const match_bot *b = &m->bot[i];
        uint64_t peak = b->proc ? maat_proc_memory_peak(b->proc) : 0;
        peak = peak > b->memory_peak ? peak : b->memory_peak;
        char col[32] = "";
        if (mem && b->spec->command)
            snprintf(col, sizeof col, " %9.1f", (double)peak / (1 << 20));
        else if (mem)
            snprintf(col, sizeof col, " %9s", "-"); /* remote */
        fprintf(stderr, "maat-referee: %-12s %9lld %9.2f %9.2f %9.1f%s\n",
                b->spec->name, (long long)b->decisions,
                b->decisions ? b->wall_ns_total / 1e6 / (double)b->decisions
                             : 0.0,
                b->wall_ns_max / 1e6, b->cpu_ns_total / 1e6, col);
    }
}
