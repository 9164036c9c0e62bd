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

#include "ladder_line.h"

/* ---- writing ---------------------------------------------------------- */

static json_t *line_json(const maat_ladder_line *l)
{
    char id[MAAT_MAX_MATCH_ID + 16], when[32];
    snprintf(id, sizeof id, "%s-%d", l->match_id, l->game_index);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    json_t *bots = json_array(), *ranks = json_array(), *scores = json_array(),
           *out = json_array();
    for (int s = 0; s < l->seats; s++) {
        json_array_append_new(bots, json_string(l->bots[s]));
        json_array_append_new(ranks, json_integer(l->ranks[s]));
        json_array_append_new(scores, json_integer(l->scores[s]));
        json_array_append_new(out, json_boolean(l->out[s]));
    }
    return json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:o, "
                     "s:o, s:o, s:o, s:O, s:I, s:I}",
                     "v", 1, "id", id, "match", l->match_id, "time", when,
                     "game", l->game, "rules_version", l->rules_version,
                     "seed", l->seed, "game_index", l->game_index, "seats",
                     l->seats, "bots", bots, "ranks", ranks, "scores", scores,
                     "out", out, "faults", l->faults, "decisions",
                     (json_int_t)l->decisions, "duration_ms",
                     (json_int_t)l->duration_ms);
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

int maat_ladder_line_append(const maat_ladder_line *r, const char *path,
                            maat_error *err)
{
    json_t *j = line_json(r);
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

int maat_ladder_check_writable(const char *path, maat_error *err)
{
    if (access(path, F_OK) != 0) /* created by the first line */
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
    g->seats = (int)json_integer_value(json_object_get(j, "seats"));
    *why = "field 'seats' must be 1..8 and match bots, ranks and scores";
    if (g->seats < 1 || g->seats > MAAT_MAX_SEATS ||
        json_array_size(bots) != (size_t)g->seats ||
        json_array_size(ranks) != (size_t)g->seats ||
        json_array_size(scores) != (size_t)g->seats)
        return -1;
    for (int s = 0; s < g->seats; s++) {
        const char *b = json_string_value(json_array_get(bots, s));
        json_t *r = json_array_get(ranks, s);
        *why = "bots must be strings of at most 63 bytes, ranks 1..seats";
        if (!b || strlen(b) >= sizeof g->bot[s] || !json_is_integer(r) ||
            json_integer_value(r) < 1 || json_integer_value(r) > g->seats)
            return -1;
        strcpy(g->bot[s], b);
        g->rank[s] = (int)json_integer_value(r);
        g->score[s] = (int)json_integer_value(json_array_get(scores, s));
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

