/* entries.c -- a league's entry files and their versions (entries.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "proc.h" /* MAAT_MAX_COMMAND */

#include "entries.h"
#include "outcome.h"

/* An entry file is small; anything bigger is refused unread. */
/* MAX_COMMAND: what maat-referee runs (MAAT_MAX_COMMAND, proc.h); a
 * longer one would pass here and fail every match */
enum { MAX_ENTRY_BYTES = 16384, MAX_COMMAND = MAAT_MAX_COMMAND,
       MAX_TOKEN = 255 };

static const char z85[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM"
                          "NOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

int maat_entry_name_ok(const char *name)
{
    size_t n = strlen(name);
    return n >= 1 && n < MAAT_ENTRY_NAME &&
           strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                        "0123456789-_") == n;
}

void maat_version_free(maat_version *v)
{
    free(v->command);
    free(v->token);
    free(v->json);
    memset(v, 0, sizeof *v);
}

int maat_entry_parse(const char *text, maat_version *v, maat_error *err)
{
    memset(v, 0, sizeof *v);
    json_error_t je;
    json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!j)
        return maat_error_set(err, MAAT_EINVAL, "line %d: %s", je.line,
                              je.text);
    int rc = MAAT_OK;
    const char *key;
    json_t *val;
    if (!json_is_object(j)) {
        rc = maat_error_set(err, MAAT_EINVAL, "an entry is a JSON object: "
                            "{\"command\": \"...\"} or {\"key\": \"...\"}");
        goto out;
    }
    json_object_foreach(j, key, val) {
        if (strcmp(key, "command") && strcmp(key, "key") &&
            strcmp(key, "token")) {
            rc = maat_error_set(err, MAAT_EINVAL, "unknown field '%s' (an "
                                "entry has a command, or a key and "
                                "optionally a token)", key);
            goto out;
        }
        if (!json_is_string(val)) {
            rc = maat_error_set(err, MAAT_EINVAL, "field '%s' must be a "
                                "string", key);
            goto out;
        }
    }
    const char *cmd = json_string_value(json_object_get(j, "command"));
    const char *k = json_string_value(json_object_get(j, "key"));
    const char *tok = json_string_value(json_object_get(j, "token"));
    if (!cmd == !k) {
        rc = maat_error_set(err, MAAT_EINVAL, "an entry has either a "
                            "'command' (a bot the league runs) or a 'key' "
                            "(the CURVE public key of a remote bot)");
        goto out;
    }
    if (cmd && (!cmd[strspn(cmd, " \t")] || strlen(cmd) > MAX_COMMAND ||
                strchr(cmd, '\n'))) {
        rc = maat_error_set(err, MAAT_EINVAL, "field 'command' must be one "
                            "line of 1 to %d bytes, not only blanks",
                            MAX_COMMAND);
        goto out;
    }
    if (k && (strlen(k) != 40 || strspn(k, z85) != 40)) {
        rc = maat_error_set(err, MAAT_EINVAL, "field 'key' must be a CURVE "
                            "public key: 40 characters of Z85 (maat-referee "
                            "--keygen prints one)");
        goto out;
    }
    if (tok && (cmd || !*tok || strlen(tok) > MAX_TOKEN ||
                strspn(tok, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
                            "WXYZ0123456789-_.") != strlen(tok))) {
        rc = maat_error_set(err, MAAT_EINVAL, "field 'token' goes with a "
                            "'key': 1 to %d letters, digits, '-', '_', '.'",
                            MAX_TOKEN);
        goto out;
    }
    v->command = cmd ? strdup(cmd) : NULL;
    v->token = tok ? strdup(tok) : NULL;
    snprintf(v->key, sizeof v->key, "%s", k ? k : "");
    v->json = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
    if ((cmd && !v->command) || (tok && !v->token) || !v->json) {
        maat_version_free(v);
        rc = maat_error_set(err, MAAT_ENOMEM, "out of memory");
    }
out:
    json_decref(j);
    return rc;
}

/* The whole of a small file, NUL-terminated; NULL with err. */
static char *read_small(const char *path, maat_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        maat_error_set(err, MAAT_EIO, "%s", errno == ELOOP
                       ? "a symbolic link (not followed: write the entry "
                         "itself)"
                       : strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode) || st.st_size > MAX_ENTRY_BYTES) {
        maat_error_set(err, MAAT_EINVAL, "not a regular file of at most %d "
                       "bytes", MAX_ENTRY_BYTES);
        close(fd);
        return NULL;
    }
    char *buf = malloc((size_t)st.st_size + 1);
    ssize_t n = buf ? read(fd, buf, (size_t)st.st_size) : -1;
    close(fd);
    if (n < 0) {
        free(buf);
        maat_error_set(err, MAAT_EIO, "%s", strerror(errno));
        return NULL;
    }
    buf[n] = 0;
    if (strlen(buf) != (size_t)n) {
        free(buf);
        maat_error_set(err, MAAT_EINVAL, "a NUL byte in the file");
        return NULL;
    }
    return buf;
}

static maat_entry *entry_get(maat_entries *es, const char *name)
{
    for (int i = 0; i < es->n; i++)
        if (!strcmp(es->e[i].name, name))
            return &es->e[i];
    if (es->n == es->cap) {
        int cap = es->cap ? es->cap * 2 : 16;
        maat_entry *e = realloc(es->e, sizeof *e * (size_t)cap);
        if (!e)
            return NULL;
        es->e = e;
        es->cap = cap;
    }
    maat_entry *e = &es->e[es->n++];
    memset(e, 0, sizeof *e);
    snprintf(e->name, sizeof e->name, "%s", name);
    return e;
}

/* Add version v (its fields taken) as version number `num` of e. */
static int add_version(maat_entry *e, maat_version *v, int num)
{
    maat_version *vs = realloc(e->ver, sizeof *vs * (size_t)(e->n_ver + 1));
    if (!vs)
        return -1;
    e->ver = vs;
    v->v = num;
    snprintf(v->bot, sizeof v->bot, "%s.%d", e->name, num);
    e->ver[e->n_ver++] = *v;
    return 0;
}

static int by_version(const void *x, const void *y)
{
    const maat_version *a = x, *b = y;
    return a->v - b->v;
}

int maat_entries_load(maat_entries *es, const char *dir, maat_error *err)
{
    memset(es, 0, sizeof *es);
    es->dir = strdup(dir);
    if (!es->dir)
        return maat_error_set(err, MAAT_ENOMEM, "out of memory");
    char path[4200];
    snprintf(path, sizeof path, "%s/state/versions", dir);
    DIR *d = opendir(path);
    if (!d)
        return errno == ENOENT ? MAAT_OK
                               : maat_error_set(err, MAAT_EIO, "%s: %s", path,
                                                strerror(errno));
    struct dirent *de;
    int rc = MAAT_OK;
    while (rc == MAAT_OK && (de = readdir(d))) {
        char name[64];
        int num, used = 0;
        if (sscanf(de->d_name, "%63[A-Za-z0-9_-].%d.json%n", name, &num,
                   &used) != 2 || de->d_name[used] || num < 1 ||
            !maat_entry_name_ok(name))
            continue;
        char file[4600];
        snprintf(file, sizeof file, "%s/%s", path, de->d_name);
        maat_error e2 = {0};
        char *text = read_small(file, &e2);
        maat_version v;
        if (!text || maat_entry_parse(text, &v, &e2)) {
            rc = maat_error_set(err, MAAT_EIO, "%s: %s (the league keeps "
                                "its versions here; restore the file)", file,
                                e2.msg);
            free(text);
            break;
        }
        free(text);
        maat_entry *e = entry_get(es, name);
        if (!e || add_version(e, &v, num)) {
            maat_version_free(&v);
            rc = maat_error_set(err, MAAT_ENOMEM, "out of memory");
        }
    }
    closedir(d);
    for (int i = 0; i < es->n; i++) {
        qsort(es->e[i].ver, (size_t)es->e[i].n_ver, sizeof *es->e[i].ver,
              by_version);
        es->e[i].present = 1; /* as far as we know: the first scan says */
    }
    return rc;
}

/* Write `text` to path through path.tmp, with `mode`; 0 or -1 (errno). */
static int write_atomic(const char *path, const char *text, mode_t mode)
{
    char tmp[4400];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0)
        return -1;
    size_t n = strlen(text);
    int ok = write(fd, text, n) == (ssize_t)n && fsync(fd) == 0;
    ok &= close(fd) == 0;
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return -1;
    }
    return 0;
}

int maat_entry_write(const char *dir, const char *name, const char *json,
                     maat_error *err)
{
    char path[4200], text[MAX_ENTRY_BYTES + 2];
    snprintf(path, sizeof path, "%s/entries/%s.json", dir, name);
    snprintf(text, sizeof text, "%s\n", json);
    if (write_atomic(path, text, 0644) != 0)
        return maat_error_set(err, MAAT_EIO, "%s: cannot write: %s", path,
                              strerror(errno));
    return MAAT_OK;
}

static uint64_t hash_text(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h | 1;
}

/* One file of DIR/entries: a new entry, a new version, or nothing new. */
static int scan_one(maat_entries *es, const char *name, const char *file,
                    maat_entry_event event, void *ctx, maat_error *err)
{
    maat_error why = {0};
    char *text = read_small(file, &why);
    maat_version v;
    int bad = !text || maat_entry_parse(text, &v, &why);
    maat_entry *e = entry_get(es, name);
    if (!e) {
        free(text);
        if (!bad)
            maat_version_free(&v);
        return maat_error_set(err, MAAT_ENOMEM, "out of memory");
    }
    uint64_t h = text ? hash_text(text) : 1;
    free(text);
    struct stat st;
    if (bad && stat(file, &st) == 0 && time(NULL) - st.st_mtime < 2)
        return MAAT_OK; /* maybe still being written: look again soon */
    if (bad) { /* reported once per content; the entry keeps its versions */
        e->present = e->n_ver > 0 && e->present;
        if (e->refused != h) {
            e->refused = h;
            char msg[5000];
            snprintf(msg, sizeof msg, "%s: %s", file, why.msg);
            event(ctx, ENTRY_REFUSED, e, msg);
        }
        return MAAT_OK;
    }
    e->refused = 0;
    int was = e->present;
    e->present = 1;
    if (e->n_ver && !strcmp(e->ver[e->n_ver - 1].json, v.json)) {
        maat_version_free(&v);
        if (!was)
            event(ctx, ENTRY_ADDED, e, NULL); /* back, same version */
        return MAAT_OK;
    }
    int num = e->n_ver ? e->ver[e->n_ver - 1].v + 1 : 1;
    char dir[4200], path[4300];
    snprintf(dir, sizeof dir, "%s/state/versions", es->dir);
    snprintf(path, sizeof path, "%s/%s.%d.json", dir, name, num);
    char *line = NULL;
    if (asprintf(&line, "%s\n", v.json) < 0)
        line = NULL;
    if (!line || write_atomic(path, line, 0600) != 0) {
        int e2 = errno;
        free(line);
        maat_version_free(&v);
        return maat_error_set(err, MAAT_EIO, "%s: cannot write: %s", path,
                              strerror(e2));
    }
    free(line);
    if (add_version(e, &v, num)) {
        maat_version_free(&v);
        return maat_error_set(err, MAAT_ENOMEM, "out of memory");
    }
    event(ctx, num == 1 ? ENTRY_ADDED : ENTRY_VERSION, e, NULL);
    return MAAT_OK;
}

/* Was a file whose name hashes to h badly named at the last scan? */
static int bad_known(const maat_entries *es, uint64_t h)
{
    for (int k = 0; k < es->n_bad; k++)
        if (es->bad_names[k] == h)
            return 1;
    return 0;
}

static int bad_seen_add(uint64_t **seen, int *n, uint64_t h)
{
    uint64_t *s = realloc(*seen, sizeof *s * (size_t)(*n + 1));
    if (!s)
        return -1;
    s[(*n)++] = h;
    *seen = s;
    return 0;
}

int maat_entries_scan(maat_entries *es, maat_entry_event event, void *ctx,
                      maat_error *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/entries", es->dir);
    DIR *d = opendir(path);
    if (!d)
        return maat_error_set(err, MAAT_EIO, "%s: %s", path,
                              strerror(errno));
    for (int i = 0; i < es->n; i++)
        es->e[i].present = -es->e[i].present; /* -1: not seen yet */
    struct dirent *de;
    int rc = MAAT_OK;
    uint64_t *bad_seen = NULL; /* this scan's badly named files */
    int n_seen = 0;
    while (rc == MAAT_OK && (de = readdir(d))) {
        const char *n = de->d_name;
        size_t len = strlen(n);
        if (n[0] == '.' || len < 6 || strcmp(n + len - 5, ".json"))
            continue; /* hidden, temporary or other files */
        char name[64], file[4600];
        snprintf(name, sizeof name, "%.*s", (int)(len - 5), n);
        snprintf(file, sizeof file, "%s/%s", path, n);
        if (!maat_entry_name_ok(name)) {
            /* said once while the file stays, not at every scan: a scan
             * that reports wakes the league (its events file changes)
             * for the next scan */
            uint64_t h = hash_text(n);
            int k = 0;
            while (k < n_seen && bad_seen[k] != h)
                k++;
            int fresh = k == n_seen;
            if (fresh && bad_seen_add(&bad_seen, &n_seen, h))
                rc = maat_error_set(err, MAAT_ENOMEM, "out of memory");
            else if (fresh && !bad_known(es, h)) {
                maat_entry dummy = {0};
                snprintf(dummy.name, sizeof dummy.name, "%.40s", name);
                maat_text_sanitize(dummy.name); /* any bytes: never print */
                event(ctx, ENTRY_REFUSED, &dummy, "a file name must be NAME"
                      ".json with NAME 1 to 40 letters, digits, '-' or '_'");
            }
            continue;
        }
        maat_entry *e = NULL;
        for (int i = 0; i < es->n && !e; i++)
            if (!strcmp(es->e[i].name, name))
                e = &es->e[i];
        if (e && e->present < 0)
            e->present = 1;
        rc = scan_one(es, name, file, event, ctx, err);
    }
    closedir(d);
    free(es->bad_names);
    es->bad_names = bad_seen;
    es->n_bad = n_seen;
    for (int i = 0; i < es->n; i++)
        if (es->e[i].present < 0) {
            es->e[i].present = 0;
            event(ctx, ENTRY_REMOVED, &es->e[i], NULL);
        }
    return rc;
}

const maat_version *maat_entries_find_bot(const maat_entries *es,
                                          const char *bot,
                                          const maat_entry **entry)
{
    const char *dot = strrchr(bot, '.');
    if (!dot)
        return NULL;
    int num = atoi(dot + 1);
    for (int i = 0; i < es->n; i++) {
        const maat_entry *e = &es->e[i];
        if (strlen(e->name) != (size_t)(dot - bot) ||
            strncmp(e->name, bot, (size_t)(dot - bot)))
            continue;
        for (int k = 0; k < e->n_ver; k++)
            if (e->ver[k].v == num) {
                if (entry)
                    *entry = e;
                return &e->ver[k];
            }
    }
    return NULL;
}

void maat_entries_free(maat_entries *es)
{
    for (int i = 0; i < es->n; i++) {
        for (int k = 0; k < es->e[i].n_ver; k++)
            maat_version_free(&es->e[i].ver[k]);
        free(es->e[i].ver);
    }
    free(es->e);
    free(es->dir);
    free(es->bad_names);
    memset(es, 0, sizeof *es);
}
