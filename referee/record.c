/* record.c -- writing game records and ladder lines; verifying records.
 *
 * Records are JSON written with a fixed key order and one decision per
 * line, so they diff well and are byte-identical for identical games.
 * A ladder line is a finished game's fields handed to the record library
 * (record/ladder_line.c owns the line's format, for the ladder's reader
 * too, and appends it safely for many referees at once). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "maat/internal/msg.h"
#include "outcome.h"
#include "record.h"

/* ---- msgpack <-> JSON ----------------------------------------------- */

static json_t *from_object(const msgpack_object *o)
{
    switch (o->type) {
    case MSGPACK_OBJECT_NIL: return json_null();
    case MSGPACK_OBJECT_BOOLEAN: return json_boolean(o->via.boolean);
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
        return json_integer((json_int_t)o->via.u64);
    case MSGPACK_OBJECT_NEGATIVE_INTEGER: return json_integer(o->via.i64);
    case MSGPACK_OBJECT_STR:
        return json_stringn(o->via.str.ptr, o->via.str.size);
    case MSGPACK_OBJECT_ARRAY: {
        json_t *a = json_array();
        for (uint32_t i = 0; i < o->via.array.size; i++)
            json_array_append_new(a, from_object(&o->via.array.ptr[i]));
        return a;
    }
    case MSGPACK_OBJECT_MAP: {
        json_t *m = json_object();
        for (uint32_t i = 0; i < o->via.map.size; i++) {
            const msgpack_object *k = &o->via.map.ptr[i].key;
            if (k->type != MSGPACK_OBJECT_STR)
                continue;
            char key[128];
            size_t n = k->via.str.size < 127 ? k->via.str.size : 127;
            memcpy(key, k->via.str.ptr, n);
            key[n] = 0;
            json_object_set_new(m, key, from_object(&o->via.map.ptr[i].val));
        }
        return m;
    }
    default: return json_null();
    }
}

json_t *maat_json_from_msgpack_bytes(const void *data, size_t len)
{
    msgpack_unpacked u;
    json_t *j = NULL;
    if (maat_msg_unpack(data, len, &u, NULL) == MAAT_OK)
        j = from_object(&u.data);
    msgpack_unpacked_destroy(&u);
    return j ? j : json_null();
}

int maat_json_to_msgpack(const json_t *j, msgpack_packer *pk)
{
    switch (json_typeof(j)) {
    case JSON_NULL: return msgpack_pack_nil(pk);
    case JSON_TRUE: return msgpack_pack_true(pk);
    case JSON_FALSE: return msgpack_pack_false(pk);
    case JSON_INTEGER: return msgpack_pack_int64(pk, json_integer_value(j));
    case JSON_STRING:
        msgpack_pack_str(pk, json_string_length(j));
        return msgpack_pack_str_body(pk, json_string_value(j),
                                     json_string_length(j));
    case JSON_ARRAY: {
        msgpack_pack_array(pk, json_array_size(j));
        size_t i;
        json_t *v;
        json_array_foreach(j, i, v) maat_json_to_msgpack(v, pk);
        return 0;
    }
    case JSON_OBJECT: {
        msgpack_pack_map(pk, json_object_size(j));
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)j, k, v) {
            maat_pack_str(pk, k);
            maat_json_to_msgpack(v, pk);
        }
        return 0;
    }
    default: return -1; /* reals never appear in our messages */
    }
}

/* ---- the record ----------------------------------------------------- */

void maat_record_path(const char *base, int games, int index, char *out,
                      size_t len)
{
    if (games <= 1) {
        snprintf(out, len, "%s", base);
        return;
    }
    const char *dot = strrchr(base, '.'), *slash = strrchr(base, '/');
    if (!dot || (slash && dot < slash))
        snprintf(out, len, "%s-%d", base, index);
    else
        snprintf(out, len, "%.*s-%d%s", (int)(dot - base), base, index, dot);
}

static json_t *results_json(const maat_game_result *r)
{
    json_t *a = json_array();
    for (int s = 0; s < r->seats; s++) {
        json_t *parts = json_object();
        for (int p = 0; p < r->rules->n_score_parts; p++)
            json_object_set_new(parts, r->rules->score_parts[p],
                                json_integer(r->scores[s].part[p]));
        json_array_append_new(a, json_pack("{s:i, s:s, s:i, s:o, s:i, s:i, s:b}",
            "seat", s, "bot", r->bot_names[s], "score", r->scores[s].total,
            "parts", parts, "game_rank", r->scores[s].rank, "rank",
            r->ranks[s], "out", r->out[s]));
    }
    return a;
}

/* The record's members before its decisions... */
static json_t *record_head(const maat_game_result *r)
{
    json_t *seats = json_array();
    for (int s = 0; s < r->seats; s++)
        json_array_append_new(seats, json_pack("{s:i, s:s}", "seat", s, "bot",
                                               r->bot_names[s]));
    json_t *options = json_object(); /* e.g. {"deck": "my-deck.txt"} */
    for (int i = 0; r->options && i < r->options->count; i++)
        json_object_set_new(options, r->options->key[i],
                            json_string(r->options->value[i]));
    char seed[MAAT_SEED_TEXT];
    maat_seed_format(&r->seed, seed);
    return json_pack("{s:s, s:i, s:s, s:s, s:o, s:s, s:i, s:s, s:o}",
                     "format", "maat-record", "version", 1, "game",
                     r->rules->name, "rules_version", r->rules->rules_version,
                     "options", options,
                     "match", r->match_id, "game_index", r->game_index,
                     "seed", seed, "seats", seats);
}

/* ...and after them. */
static json_t *record_tail(const maat_game_result *r)
{
    return json_pack("{s:O, s:o}", "faults", r->faults, "result",
                     results_json(r));
}

/* Members one per line (`"key": value`); arrays one element per line. */
static void write_members(FILE *f, const json_t *obj, int last)
{
    const char *key;
    json_t *v;
    size_t n = json_object_size(obj), i = 0;
    int flags = JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII;
    json_object_foreach((json_t *)obj, key, v) {
        fprintf(f, "\"%s\": ", key);
        if (json_is_array(v) && json_array_size(v) > 0) {
            size_t k;
            json_t *e;
            fputs("[\n", f);
            json_array_foreach(v, k, e) {
                char *s = json_dumps(e, flags | JSON_ENCODE_ANY);
                fprintf(f, "  %s%s\n", s, k + 1 < json_array_size(v) ? "," : "");
                free(s);
            }
            fputs("]", f);
        } else {
            char *s = json_dumps(v, flags | JSON_ENCODE_ANY);
            fputs(s, f);
            free(s);
        }
        fputs(++i < n || !last ? ",\n" : "\n", f);
    }
}

/* The record: its decisions (already JSON text, written as they are, the
 * same layout: json_writer.h) between the members built with jansson. */
static int write_record_text(FILE *f, const json_t *head,
                             const maat_game_result *r, const json_t *tail)
{
    fputs("{\n", f);
    write_members(f, head, 0);
    fputs("\"decisions\": ", f);
    if (r->decisions)
        fwrite(r->decisions, 1, r->decisions_len, f);
    else
        fputs("[]", f);
    fputs(",\n", f);
    write_members(f, tail, 1);
    fputs("}\n", f);
    return ferror(f) ? -1 : 0;
}

int maat_record_write(const maat_game_result *r, const char *path,
                      maat_error *err)
{
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    json_t *head = record_head(r), *tail = record_tail(r);
    if (!head || !tail) { /* cannot happen with sanitised text */
        json_decref(head);
        json_decref(tail);
        return maat_error_set(err, MAAT_EIO, "%s: cannot encode the record "
                              "(a name or detail is not UTF-8)", path);
    }
    FILE *f = fopen(tmp, "w");
    if (!f) {
        json_decref(head);
        json_decref(tail);
        return maat_error_set(err, MAAT_EIO, "%s: cannot write the record: "
                              "%s", path, strerror(errno));
    }
    int bad = write_record_text(f, head, r, tail);
    json_decref(head);
    json_decref(tail);
    bad |= fflush(f) != 0 || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        unlink(tmp);
        return maat_error_set(err, MAAT_EIO, "%s: cannot write the record: "
                              "%s", path, strerror(errno));
    }
    return MAAT_OK;
}

/* ---- the ladder line (its format: record/ladder_line.c) ---------------- */

int maat_ladder_append(const maat_game_result *r, const char *path,
                       maat_error *err)
{
    const char *bots[MAAT_MAX_SEATS];
    int scores[MAAT_MAX_SEATS];
    char seed[MAAT_SEED_TEXT];
    for (int s = 0; s < r->seats; s++) {
        bots[s] = r->bot_names[s];
        scores[s] = r->scores[s].total;
    }
    maat_seed_format(&r->seed, seed);
    maat_ladder_line l = {
        .match_id = r->match_id, .game_index = r->game_index,
        .game = r->rules->name, .rules_version = r->rules->rules_version,
        .seed = seed, .seats = r->seats, .bots = bots, .ranks = r->ranks,
        .scores = scores, .out = r->out, .faults = r->faults,
        .decisions = r->n_decisions, .duration_ms = r->duration_ms,
        .record_file = r->record_file};
    for (int s = 0; s < r->seats; s++)
        l.log_files[s] = r->log_files[s];
    return maat_ladder_line_append(&l, path, err);
}

int maat_record_check_writable(const char *path, int games, maat_error *err)
{
    /* the record is written as a temporary file beside it, then renamed */
    char first[1024];
    maat_record_path(path, games, 0, first, sizeof first);
    struct stat st;
    if (stat(first, &st) == 0 && !S_ISREG(st.st_mode))
        return maat_error_set(err, MAAT_EIO, "%s: the record must be a "
                              "regular file", first);
    return maat_file_creatable(first, "record", err);
}

