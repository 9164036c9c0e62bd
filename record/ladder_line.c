/* ladder_line.c -- the ladder line: its fields written (from a finished
 * game, for maat-referee) and read back (for maat-ladder), and appending it
 * safely (ladder_line.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "json_writer.h"
#include "ladder_line.h"

/* ---- writing ---------------------------------------------------------- */

/* `file` as the ladder line names it: relative to the ladder file's
 * directory when it lies under it, else absolute (or as given, when it
 * cannot be resolved).  Points into abs (4096 bytes) or at file. */
static const char *path_from(const char *ladder, const char *file, char *abs)
{
    char dir[4096], abs_dir[4096];
    const char *slash = strrchr(ladder, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - ladder) : 1,
             slash ? ladder : ".");
    if (slash == ladder)
        snprintf(dir, sizeof dir, "/");
    if (!realpath(dir, abs_dir) || !realpath(file, abs))
        return file;
    size_t n = strlen(abs_dir);
    if (strncmp(abs, abs_dir, n) == 0 && abs[n] == '/')
        return abs + n + 1;
    return abs;
}

/* A string the line must have: -1 if it is not UTF-8. */
static int put_str(maat_jw *w, const char *s)
{
    return maat_jw_str_utf8(w, s, strlen(s));
}

/* An array element, `first` or after a comma; one that is not UTF-8 is
 * left out, as jansson left it out of the array. */
static void put_elem(maat_jw *w, int *first, const char *s)
{
    size_t at = w->len;
    if (!*first)
        maat_jw_lit(w, ",");
    if (s ? put_str(w, s) : (maat_jw_lit(w, "null"), 0)) {
        w->len = at;
        return;
    }
    *first = 0;
}

static void put_ints(maat_jw *w, const int *v, int n)
{
    maat_jw_lit(w, "[");
    for (int i = 0; i < n; i++) {
        if (i)
            maat_jw_lit(w, ",");
        maat_jw_int(w, v[i]);
    }
    maat_jw_lit(w, "]");
}

/* The line's text: compact JSON, members in a fixed order, characters
 * above 0x7F as they are -- the bytes json_dumps gave with JSON_COMPACT |
 * JSON_PRESERVE_ORDER for the jansson object this was built as
 * (tests/test_record_bytes.py pins a series' lines).  The faults are
 * jansson objects (built as the game runs) and dumped by it.  -1 when a
 * name is not UTF-8. */
static int line_text(maat_jw *w, const maat_ladder_line *l, const char *path)
{
    char id[MAAT_MAX_MATCH_ID + 16], when[32];
    snprintf(id, sizeof id, "%s-%d", l->match_id, l->game_index);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    int bad = !l->faults;
    maat_jw_lit(w, "{\"v\":1,\"id\":");
    bad |= put_str(w, id);
    maat_jw_lit(w, ",\"match\":");
    bad |= put_str(w, l->match_id);
    maat_jw_lit(w, ",\"time\":");
    bad |= put_str(w, when);
    maat_jw_lit(w, ",\"game\":");
    bad |= put_str(w, l->game);
    maat_jw_lit(w, ",\"rules_version\":");
    bad |= put_str(w, l->rules_version);
    maat_jw_lit(w, ",\"seed\":");
    bad |= put_str(w, l->seed);
    maat_jw_lit(w, ",\"game_index\":");
    maat_jw_int(w, l->game_index);
    maat_jw_lit(w, ",\"seats\":");
    maat_jw_int(w, l->seats);
    maat_jw_lit(w, ",\"bots\":[");
    int first = 1;
    for (int s = 0; s < l->seats; s++)
        put_elem(w, &first, l->bots[s]);
    maat_jw_lit(w, "],\"ranks\":");
    put_ints(w, l->ranks, l->seats);
    maat_jw_lit(w, ",\"scores\":");
    put_ints(w, l->scores, l->seats);
    maat_jw_lit(w, ",\"out\":[");
    for (int s = 0; s < l->seats; s++) {
        if (s)
            maat_jw_lit(w, ",");
        if (l->out[s])
            maat_jw_lit(w, "true");
        else
            maat_jw_lit(w, "false");
    }
    maat_jw_lit(w, "],\"faults\":");
    if (json_array_size(l->faults) == 0) {
        maat_jw_lit(w, "[]");
    } else {
        char *f = json_dumps(l->faults, JSON_COMPACT | JSON_PRESERVE_ORDER);
        bad |= !f;
        if (f)
            maat_jw_raw(w, f, strlen(f));
        free(f);
    }
    maat_jw_lit(w, ",\"decisions\":");
    maat_jw_int(w, l->decisions);
    maat_jw_lit(w, ",\"duration_ms\":");
    maat_jw_int(w, l->duration_ms);
    char abs[4096];
    const char *base = l->final_ladder ? l->final_ladder : path;
    if (l->record_file) {
        size_t at = w->len;
        maat_jw_lit(w, ",\"record\":");
        if (put_str(w, path_from(base, l->record_file, abs)))
            w->len = at; /* jansson would not set it */
    }
    int any_log = 0;
    for (int s = 0; s < l->seats; s++)
        any_log |= l->log_files[s] != NULL;
    if (any_log) {
        maat_jw_lit(w, ",\"logs\":[");
        first = 1;
        for (int s = 0; s < l->seats; s++)
            put_elem(w, &first, l->log_files[s]
                                    ? path_from(base, l->log_files[s], abs)
                                    : NULL);
        maat_jw_lit(w, "]");
    }
    maat_jw_lit(w, "}");
    return bad ? -1 : 0;
}

int maat_ladder_line_append(const maat_ladder_line *r, const char *path,
                            maat_error *err)
{
    maat_jw *w = maat_jw_new(1024);
    if (!w)
        return maat_error_set(err, MAAT_ENOMEM, "%s: out of memory", path);
    int bad = line_text(w, r, path);
    if (bad || w->failed) {
        maat_jw_destroy(&w);
        return maat_error_set(err, bad ? MAAT_EIO : MAAT_ENOMEM, "%s: cannot "
                              "encode the ladder line%s", path, bad ? " (a "
                              "name or detail is not UTF-8)" : ": out of "
                              "memory");
    }
    int rc = maat_jsonl_append(path, w->data, w->len, err);
    maat_jw_destroy(&w);
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
int maat_file_creatable(const char *path, const char *what, maat_error *err)
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

int maat_ladder_check_writable(const char *path, int create,
                               maat_error *err)
{
    maat_error local; /* err is optional; its code is read below */
    if (!err)
        err = &local;
    if (!create && access(path, F_OK) != 0) /* created by the first line */
        return maat_file_creatable(path, "ladder file", err);
    int fd = open_ladder(path, err);
    if (fd < 0)
        return err->code;
    close(fd);
    return MAAT_OK;
}

int maat_jsonl_append(const char *path, const char *line, size_t len,
                      maat_error *err)
{
    maat_error local; /* err is optional; its code is read below */
    if (!err)
        err = &local;
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

/* ---- reading ---------------------------------------------------------- */

static int str_field(json_t *o, const char *key, char *out, size_t len)
{
    const char *s = json_string_value(json_object_get(o, key));
    if (!s || strlen(s) >= len)
        return -1;
    memcpy(out, s, strlen(s) + 1);
    return 0;
}

/* Check and copy one parsed line; a message in `why` when it is not a
 * ladder line we understand. */
int maat_ladder_parse(json_t *j, maat_ladder_game *g, const char **why)
{
    memset(g, 0, sizeof *g);
    g->line = j;
    json_t *bots = json_object_get(j, "bots"), *ranks = json_object_get(j, "ranks");
    json_t *scores = json_object_get(j, "scores"), *out = json_object_get(j, "out");
    json_t *faults = json_object_get(j, "faults");
    *why = "not a JSON object";
    if (!json_is_object(j))
        return -1;
    *why = "unknown version (field 'v' must be 1)";
    if (json_integer_value(json_object_get(j, "v")) != 1)
        return -1;
    *why = "field 'id' or 'game' missing or too long";
    if (str_field(j, "id", g->id, sizeof g->id) ||
        str_field(j, "game", g->game, sizeof g->game))
        return -1;
    json_int_t seats = json_integer_value(json_object_get(j, "seats"));
    *why = "field 'seats' must be 1..8 and match bots, ranks and scores";
    if (seats < 1 || seats > MAAT_MAX_SEATS)
        return -1;
    g->seats = (int)seats;
    if (
        json_array_size(bots) != (size_t)g->seats ||
        json_array_size(ranks) != (size_t)g->seats ||
        json_array_size(scores) != (size_t)g->seats)
        return -1;
    for (int s = 0; s < g->seats; s++) {
        const char *b = json_string_value(json_array_get(bots, s));
        json_t *r = json_array_get(ranks, s);
        json_int_t score = json_integer_value(json_array_get(scores, s));
        *why = "bots must be strings of at most 63 bytes, ranks 1..seats, "
               "scores integers within +-1,000,000,000";
        if (!b || strlen(b) >= sizeof g->bot[s] || !json_is_integer(r) ||
            json_integer_value(r) < 1 || json_integer_value(r) > g->seats ||
            !json_is_integer(json_array_get(scores, s)) ||
            score < -1000000000 || score > 1000000000)
            return -1;
        strcpy(g->bot[s], b);
        g->rank[s] = (int)json_integer_value(r);
        g->score[s] = (int)score;
        g->out[s] = json_is_true(json_array_get(out, s));
    }
    size_t i;
    json_t *f;
    json_array_foreach(faults, i, f) {
        json_int_t seat = json_integer_value(json_object_get(f, "seat"));
        const char *kind = json_string_value(json_object_get(f, "kind"));
        for (int k = 0; kind && k < MAAT_FAULT_KINDS; k++)
            if (seat >= 0 && seat < g->seats &&
                !strcmp(kind, maat_fault_names[k]))
                g->faults[seat][k]++;
    }
    return 0;
}

