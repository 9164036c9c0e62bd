/* record.c -- writing game records and ladder lines; verifying records.
 *
 * Records are JSON written with a fixed key order and one decision per
 * line, so they diff well and are byte-identical for identical games.
 * Ladder lines are appended under an exclusive flock in a single write,
 * then fsync'd: many referees may share one ladder file. */
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

static json_t *record_json(const maat_game_result *r)
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
    return json_pack("{s:s, s:i, s:s, s:s, s:o, s:s, s:i, s:s, s:o, s:O, "
                     "s:O, s:o}",
                     "format", "maat-record", "version", 1, "game",
                     r->rules->name, "rules_version", r->rules->rules_version,
                     "options", options,
                     "match", r->match_id, "game_index", r->game_index,
                     "seed", seed, "seats", seats, "decisions",
                     r->decisions, "faults", r->faults, "result",
                     results_json(r));
}

/* Top-level keys one per line; arrays one element per line. */
static int write_record_text(FILE *f, const json_t *rec)
{
    const char *key;
    json_t *v;
    size_t n = json_object_size(rec), i = 0;
    int flags = JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII;
    fputs("{\n", f);
    json_object_foreach((json_t *)rec, key, v) {
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
        fputs(++i < n ? ",\n" : "\n", f);
    }
    fputs("}\n", f);
    return ferror(f) ? -1 : 0;
}

int maat_record_write(const maat_game_result *r, const char *path,
                      maat_error *err)
{
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    json_t *rec = record_json(r);
    if (!rec) /* cannot happen with sanitised text; never write "{}" */
        return maat_error_set(err, MAAT_EIO, "%s: cannot encode the record "
                              "(a name or detail is not UTF-8)", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        json_decref(rec);
        return maat_error_set(err, MAAT_EIO, "%s: cannot write the record: "
                              "%s", path, strerror(errno));
    }
    int bad = write_record_text(f, rec);
    json_decref(rec);
    bad |= fflush(f) != 0 || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        unlink(tmp);
        return maat_error_set(err, MAAT_EIO, "%s: cannot write the record: "
                              "%s", path, strerror(errno));
    }
    return MAAT_OK;
}

/* ---- the ladder line ------------------------------------------------ */

static json_t *ladder_json(const maat_game_result *r)
{
    char id[MAAT_MAX_MATCH_ID + 16], when[32];
    snprintf(id, sizeof id, "%s-%d", r->match_id, r->game_index);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    json_t *bots = json_array(), *ranks = json_array(), *scores = json_array(),
           *out = json_array();
    for (int s = 0; s < r->seats; s++) {
        json_array_append_new(bots, json_string(r->bot_names[s]));
        json_array_append_new(ranks, json_integer(r->ranks[s]));
        json_array_append_new(scores, json_integer(r->scores[s].total));
        json_array_append_new(out, json_boolean(r->out[s]));
    }
    char seed[MAAT_SEED_TEXT];
    maat_seed_format(&r->seed, seed);
    return json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:o, "
                     "s:o, s:o, s:o, s:O, s:I, s:I}",
                     "v", 1, "id", id, "match", r->match_id, "time", when,
                     "game", r->rules->name, "rules_version",
                     r->rules->rules_version, "seed", seed,
                     "game_index", r->game_index, "seats", r->seats, "bots",
                     bots, "ranks", ranks, "scores", scores, "out", out,
                     "faults", r->faults, "decisions",
                     (json_int_t)r->n_decisions, "duration_ms",
                     (json_int_t)r->duration_ms);
}

/* `file` as the ladder line names it: relative to the ladder file's
 * directory when it lies under it, else absolute (or as given, when it
 * cannot be resolved). */
static json_t *path_from(const char *ladder, const char *file)
{
    char dir[4096], abs_dir[4096], abs_file[4096];
    const char *slash = strrchr(ladder, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - ladder) : 1,
             slash ? ladder : ".");
    if (slash == ladder)
        snprintf(dir, sizeof dir, "/");
    if (!realpath(dir, abs_dir) || !realpath(file, abs_file))
        return json_string(file);
    size_t n = strlen(abs_dir);
    if (strncmp(abs_file, abs_dir, n) == 0 && abs_file[n] == '/')
        return json_string(abs_file + n + 1);
    return json_string(abs_file);
}

int maat_ladder_append(const maat_game_result *r, const char *path,
                       maat_error *err)
{
    json_t *j = ladder_json(r);
    if (j && r->record_file)
        json_object_set_new(j, "record", path_from(path, r->record_file));
    int any_log = 0;
    for (int s = 0; s < r->seats; s++)
        any_log |= r->log_files[s] != NULL;
    if (j && any_log) {
        json_t *logs = json_array();
        for (int s = 0; s < r->seats; s++)
            json_array_append_new(logs, r->log_files[s]
                                  ? path_from(path, r->log_files[s])
                                  : json_null());
        json_object_set_new(j, "logs", logs);
    }
    char *line = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(j);
    if (!line)
        return maat_error_set(err, MAAT_EIO, "%s: cannot encode the ladder "
                              "line (a name or detail is not UTF-8)", path);
    int rc = maat_jsonl_append(path, line, strlen(line), err);
    free(line);
    return rc;
}

/* Open the ladder file for appending, creating it.  Only a regular file
 * will do: a FIFO or a device would block the referee or swallow lines. */
static int open_ladder(const char *path, maat_error *err)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        maat_error_set(err, MAAT_EIO, "%s: the ladder file must be a regular "
                       "file", path);
        return -1;
    }
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC |
                  O_NONBLOCK, 0644);
    if (fd < 0) {
        maat_error_set(err, MAAT_EIO, "%s: cannot open the ladder file: %s",
                       path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        maat_error_set(err, MAAT_EIO, "%s: the ladder file must be a regular "
                       "file", path);
        return -1;
    }
    return fd;
}

/* Can `path` be created: its directory exists and is writable? */
static int can_create(const char *path, const char *what, maat_error *err)
{
    char dir[1024];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path + 1), path);
    if (access(dir, W_OK | X_OK) != 0)
        return maat_error_set(err, MAAT_EIO, "%s: cannot write the %s "
                              "there: %s", path, what, strerror(errno));
    return MAAT_OK;
}

int maat_ladder_check_writable(const char *path, maat_error *err)
{
    if (access(path, F_OK) != 0) /* created by the first line */
        return can_create(path, "ladder file", err);
    int fd = open_ladder(path, err);
    if (fd < 0)
        return err->code;
    close(fd);
    return MAAT_OK;
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
    return can_create(first, "record", err);
}

int maat_jsonl_append(const char *path, const char *line, size_t len,
                      maat_error *err)
{
    char *buf = malloc(len + 2);
    if (!buf)
        return maat_error_set(err, MAAT_ENOMEM, "out of memory");
    int rc = MAAT_OK;
    int fd = open_ladder(path, err);
    if (fd < 0) {
        rc = err->code;
        goto out;
    }
    if (flock(fd, LOCK_EX) != 0) {
        rc = maat_error_set(err, MAAT_EIO, "%s: cannot lock the ladder "
                            "file: %s", path, strerror(errno));
        goto out;
    }
    /* A writer killed mid-line leaves no newline at the end; start on a
     * fresh line so that torn line cannot swallow ours. */
    size_t off = 0;
    struct stat st = {0};
    char last = '\n';
    if (fstat(fd, &st) == 0 && st.st_size > 0) {
        int rfd = open(path, O_RDONLY | O_CLOEXEC);
        if (rfd >= 0) {
            if (pread(rfd, &last, 1, st.st_size - 1) != 1)
                last = '\n';
            close(rfd);
        }
    }
    if (last != '\n')
        buf[off++] = '\n';
    memcpy(buf + off, line, len);
    off += len;
    buf[off++] = '\n';
    ssize_t w = write(fd, buf, off);
    if (w >= 0 && w < (ssize_t)off) {
        /* a short write is a full disk or quota: take the torn line back
         * so the file stays whole lines */
        if (ftruncate(fd, st.st_size) != 0) { /* nothing more to do */ }
        rc = maat_error_set(err, MAAT_EIO, "%s: only %zd of %zu bytes of "
                            "the ladder line were written (disk full?)",
                            path, w, off);
    } else if (w < 0 || fsync(fd) != 0) {
        rc = maat_error_set(err, MAAT_EIO, "%s: cannot append to the ladder "
                            "file: %s", path, strerror(errno));
    }
out:
    if (fd >= 0)
        close(fd); /* also releases the lock */
    free(buf);
    return rc;
}
