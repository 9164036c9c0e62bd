/* record.c -- writing game records and ladder lines; verifying records.
 *
 * Records are JSON written with a fixed key order and one decision per
 * line, so they diff well and are byte-identical for identical games.
 * A ladder line is a finished game's fields handed to the record library
 * (record/ladder_line.c owns the line's format, for the ladder's reader
 * too, and appends it safely for many referees at once). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "json_writer.h"
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

/* A string the record takes from its callers (names, ids): -1 if it is not
 * UTF-8, which jansson refused too. */
static int put_str(maat_jw *w, const char *s)
{
    return maat_jw_str(w, s, strlen(s));
}

/* A small jansson value, dumped as the record always dumped it. */
static int put_json(maat_jw *w, const json_t *v)
{
    char *s = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER |
                                JSON_ENSURE_ASCII | JSON_ENCODE_ANY);
    if (!s)
        return -1;
    maat_jw_raw(w, s, strlen(s));
    free(s);
    return 0;
}

/* The record's text: top-level members one per line, arrays one element
 * per line, each element compact -- the layout and bytes of the jansson
 * tree it used to be dumped from (tests/test_record_bytes.py pins them).
 * Written with the JSON writer, but for the options (text from the
 * command line, kept as jansson keeps an object) and the faults (built as
 * jansson objects while the game runs).  -1 if a name is not UTF-8. */
static int record_text(maat_jw *w, const maat_game_result *r)
{
    int bad = 0;
    maat_jw_lit(w, "{\n\"format\": \"maat-record\",\n\"version\": 1,\n"
                   "\"game\": ");
    bad |= put_str(w, r->rules->name);
    maat_jw_lit(w, ",\n\"rules_version\": ");
    bad |= put_str(w, r->rules->rules_version);
    maat_jw_lit(w, ",\n\"options\": ");
    json_t *options = json_object(); /* e.g. {"deck": "my-deck.txt"} */
    for (int i = 0; r->options && i < r->options->count; i++)
        json_object_set_new(options, r->options->key[i],
                            json_string(r->options->value[i]));
    bad |= put_json(w, options);
    json_decref(options);
    maat_jw_lit(w, ",\n\"match\": ");
    bad |= put_str(w, r->match_id);
    maat_jw_lit(w, ",\n\"game_index\": ");
    maat_jw_int(w, r->game_index);
    char seed[MAAT_SEED_TEXT];
    maat_seed_format(&r->seed, seed);
    maat_jw_lit(w, ",\n\"seed\": ");
    bad |= put_str(w, seed);
    maat_jw_lit(w, ",\n\"seats\": [\n");
    for (int s = 0; s < r->seats; s++) {
        maat_jw_lit(w, "  {\"seat\":");
        maat_jw_int(w, s);
        maat_jw_lit(w, ",\"bot\":");
        bad |= put_str(w, r->bot_names[s]);
        maat_jw_lit(w, "}");
        if (s + 1 < r->seats)
            maat_jw_lit(w, ",");
        maat_jw_lit(w, "\n");
    }
    maat_jw_lit(w, "],\n\"decisions\": ");
    if (r->decisions)
        maat_jw_raw(w, r->decisions, r->decisions_len);
    else
        maat_jw_lit(w, "[]");
    maat_jw_lit(w, ",\n\"faults\": ");
    size_t nf = json_array_size(r->faults);
    maat_jw_lit(w, "[");
    for (size_t i = 0; i < nf; i++) {
        if (i)
            maat_jw_lit(w, ",");
        maat_jw_lit(w, "\n  ");
        bad |= put_json(w, json_array_get(r->faults, i));
    }
    if (nf)
        maat_jw_lit(w, "\n");
    maat_jw_lit(w, "]");
    maat_jw_lit(w, ",\n\"result\": [\n");
    for (int s = 0; s < r->seats; s++) {
        maat_jw_lit(w, "  {\"seat\":");
        maat_jw_int(w, s);
        maat_jw_lit(w, ",\"bot\":");
        bad |= put_str(w, r->bot_names[s]);
        maat_jw_lit(w, ",\"score\":");
        maat_jw_int(w, r->scores[s].total);
        maat_jw_lit(w, ",\"parts\":{");
        for (int p = 0; p < r->rules->n_score_parts; p++) {
            if (p)
                maat_jw_lit(w, ",");
            bad |= put_str(w, r->rules->score_parts[p]);
            maat_jw_lit(w, ":");
            maat_jw_int(w, r->scores[s].part[p]);
        }
        maat_jw_lit(w, "},\"game_rank\":");
        maat_jw_int(w, r->scores[s].rank);
        maat_jw_lit(w, ",\"rank\":");
        maat_jw_int(w, r->ranks[s]);
        if (r->out[s])
            maat_jw_lit(w, ",\"out\":true}");
        else
            maat_jw_lit(w, ",\"out\":false}");
        if (s + 1 < r->seats)
            maat_jw_lit(w, ",");
        maat_jw_lit(w, "\n");
    }
    maat_jw_lit(w, "]\n}\n");
    return bad ? -1 : 0;
}

int maat_record_write(const maat_game_result *r, const char *path,
                      maat_error *err)
{
    char tmp[PATH_MAX + 32];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid()) >=
        (int)sizeof tmp)
        return maat_error_set(err, MAAT_EINVAL, "%s: the path is too long",
                              path);
    maat_jw *w = maat_jw_new(r->decisions_len + 4096);
    if (!w)
        return maat_error_set(err, MAAT_ENOMEM, "%s: out of memory", path);
    if (record_text(w, r)) { /* cannot happen with sanitised text */
        maat_jw_destroy(&w);
        return maat_error_set(err, MAAT_EIO, "%s: cannot encode the record "
                              "(a name or detail is not UTF-8)", path);
    }
    if (w->failed) {
        maat_jw_destroy(&w);
        return maat_error_set(err, MAAT_ENOMEM, "%s: out of memory", path);
    }
    /* never through a link planted at the temporary name */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                  0644);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (!f) {
        if (fd >= 0)
            close(fd);
        maat_jw_destroy(&w);
        return maat_error_set(err, MAAT_EIO, "%s: cannot write the record: "
                              "%s", path, strerror(errno));
    }
    int bad = fwrite(w->data, 1, w->len, f) != w->len;
    maat_jw_destroy(&w);
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
                       const char *final_ladder, maat_error *err)
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
        .record_file = r->record_file, .final_ladder = final_ladder};
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

