/* pending.c -- a run's ladder lines, appended in match order (pending.h).
 *
 * Owns the waiting files of matches that finished before an earlier match
 * of the same run: where they are and how their lines reach the ladder.
 * When to move them is the run's (tournament.c).
 */
#define _GNU_SOURCE /* asprintf */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ladder_line.h"
#include "pending.h"

/* A match's lines are a few hundred bytes a game; more than this in one
 * waiting file is not something a referee of ours wrote. */
#define PENDING_MAX_BYTES (64u << 20)

char *maat_pending_root(const char *ladder)
{
    char *dir;
    if (asprintf(&dir, "%s%s", ladder, MAAT_LADDER_WAITING_SUFFIX) < 0)
        return NULL;
    return dir;
}

char *maat_pending_dir(const char *ladder, const char *name)
{
    char *dir;
    if (asprintf(&dir, "%s%s/%s", ladder, MAAT_LADDER_WAITING_SUFFIX,
                 name) < 0)
        return NULL;
    return dir;
}

int maat_pending_make(const char *ladder, const char *name, maat_error *err)
{
    char *dirs[2] = {maat_pending_root(ladder),
                     name ? maat_pending_dir(ladder, name) : NULL};
    int rc = MAAT_OK;
    for (int i = 0; i < 2 && rc == MAAT_OK; i++) {
        if (i == 1 && !name)
            break;
        if (!dirs[i])
            rc = maat_error_set(err, MAAT_ENOMEM, "out of memory");
        else if (mkdir(dirs[i], 0755) != 0 && errno != EEXIST)
            rc = maat_error_set(err, MAAT_EIO, "%s: cannot make the "
                                "directory of lines waiting for earlier "
                                "matches: %s", dirs[i], strerror(errno));
    }
    free(dirs[0]);
    free(dirs[1]);
    return rc;
}

char *maat_pending_file(const char *dir, const char *match_id)
{
    char *file;
    if (asprintf(&file, "%s/%s.jsonl", dir, match_id) < 0)
        return NULL;
    return file;
}

/* The whole of `path` (at most PENDING_MAX_BYTES) in *out, malloc'd. */
static int read_all(const char *path, char **out, size_t *len,
                    maat_error *err)
{
    *out = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return errno == ENOENT ? MAAT_OK
               : maat_error_set(err, MAAT_EIO, "%s: cannot read the waiting "
                                "lines: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_size > (off_t)PENDING_MAX_BYTES) {
        close(fd);
        return maat_error_set(err, MAAT_EIO, "%s: not a file of waiting "
                              "ladder lines (a regular file of at most %u "
                              "bytes)", path, PENDING_MAX_BYTES);
    }
    char *buf = malloc((size_t)st.st_size + 1);
    if (!buf) {
        close(fd);
        return maat_error_set(err, MAAT_ENOMEM, "out of memory");
    }
    size_t n = 0;
    for (;;) {
        ssize_t r = read(fd, buf + n, (size_t)st.st_size - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            close(fd);
            return maat_error_set(err, MAAT_EIO, "%s: cannot read the "
                                  "waiting lines: %s", path, strerror(e));
        }
        if (r == 0 || (n += (size_t)r) == (size_t)st.st_size)
            break;
    }
    close(fd);
    *out = buf;
    *len = n;
    return MAAT_OK;
}

int maat_pending_move(const char *file, const char *ladder, int *torn,
                      maat_error *err)
{
    char *text;
    size_t len;
    int rc = read_all(file, &text, &len, err);
    if (rc != MAAT_OK || !text)
        return rc;
    /* whole lines only: up to the last newline */
    size_t whole = len;
    while (whole > 0 && text[whole - 1] != '\n')
        whole--;
    if (torn)
        *torn += whole < len;
    /* maat_jsonl_append ends what it writes with a newline of its own */
    if (whole > 1)
        rc = maat_jsonl_append(ladder, text, whole - 1, err);
    free(text);
    if (rc == MAAT_OK && unlink(file) != 0 && errno != ENOENT)
        rc = maat_error_set(err, MAAT_EIO, "%s: cannot remove the waiting "
                            "lines once appended to %s: %s", file, ladder,
                            strerror(errno));
    return rc;
}

/* One waiting file: its match number (the digits after the last '-') and
 * its match id (the name without .jsonl). */
typedef struct waiting {
    long match;
    char name[256];
} waiting;

static int by_match(const void *a, const void *b)
{
    const waiting *x = a, *y = b;
    return x->match != y->match ? (x->match < y->match ? -1 : 1)
                                : strcmp(x->name, y->name);
}

int maat_pending_move_all(const char *dir, const char *ladder, int *moved,
                          int *torn, maat_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? MAAT_OK
               : maat_error_set(err, MAAT_EIO, "%s: cannot list the lines "
                                "waiting for earlier matches: %s", dir,
                                strerror(errno));
    waiting *w = NULL;
    size_t n = 0, cap = 0;
    int rc = MAAT_OK;
    struct dirent *de;
    while (rc == MAAT_OK && (de = readdir(d))) {
        size_t len = strlen(de->d_name);
        const char *dash = strrchr(de->d_name, '-');
        if (len < 7 || len >= sizeof w->name ||
            strcmp(de->d_name + len - 6, ".jsonl") || !dash)
            continue; /* not a match's file */
        if (n == cap) {
            waiting *more = realloc(w, sizeof *w * (cap = cap ? 2 * cap : 64));
            if (!more) {
                rc = maat_error_set(err, MAAT_ENOMEM, "out of memory");
                break;
            }
            w = more;
        }
        w[n].match = strtol(dash + 1, NULL, 10);
        snprintf(w[n].name, sizeof w[n].name, "%.*s", (int)(len - 6),
                 de->d_name); /* the match id: maat_pending_file adds .jsonl */
        n++;
    }
    closedir(d);
    if (rc == MAAT_OK && n > 0) /* (qsort of NULL is undefined, even of 0) */
        qsort(w, n, sizeof *w, by_match);
    for (size_t i = 0; i < n && rc == MAAT_OK; i++) {
        char *path = maat_pending_file(dir, w[i].name);
        if (!path)
            rc = maat_error_set(err, MAAT_ENOMEM, "out of memory");
        else if ((rc = maat_pending_move(path, ladder, torn, err)) == MAAT_OK
                 && moved)
            (*moved)++;
        free(path);
    }
    free(w);
    if (rc == MAAT_OK)
        rmdir(dir); /* when empty */
    return rc;
}
