/* matchlib.h -- what the C seam tests that play real matches share
 * (test_hidden.c, test_records.c): running maat-referee with spy bots
 * (tests/bots/spy.c writes every message it receives to <dir>/<name>.bin,
 * each as a 4-byte little-endian length and the bytes), reading the spies'
 * files and records, and small msgpack and JSON helpers.
 *
 * Header-only (static functions): each test program includes it once.
 */
#ifndef MAAT_TEST_MATCHLIB_H
#define MAAT_TEST_MATCHLIB_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "maat/game.h"
#include "maat/internal/msg.h"

/* Each program uses some of these. */
#define MATCHLIB static __attribute__((unused))

/* ---- files and processes ------------------------------------------------ */

MATCHLIB uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (n == cap)
            buf = realloc(buf, cap *= 2);
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    *len = n;
    return buf;
}

/* Run argv with stdout+stderr to out_path; the exit status, or -1. */
MATCHLIB int run(char *const argv[], const char *out_path)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

MATCHLIB void print_file(const char *path)
{
    size_t len;
    uint8_t *b = read_all(path, &len);
    if (b) {
        fprintf(stderr, "---- %s\n%.*s----\n", path, (int)len, (char *)b);
        free(b);
    }
}

MATCHLIB void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[1200];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            remove_tree(p);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

MATCHLIB int files_equal(const char *a, const char *b, size_t *len)
{
    size_t la = 0, lb = 0;
    uint8_t *x = read_all(a, &la), *y = read_all(b, &lb);
    int eq = x && y && la == lb && memcmp(x, y, la) == 0;
    *len = x ? la : 0;
    free(x);
    free(y);
    return eq;
}

MATCHLIB int file_contains(const char *path, const char *needle)
{
    size_t len;
    uint8_t *b = read_all(path, &len);
    if (!b)
        return 0;
    b = realloc(b, len + 1);
    b[len] = 0;
    int yes = strstr((char *)b, needle) != NULL;
    free(b);
    return yes;
}

/* One match of game `game` between `seats` spies (spy0, spy1, ...) in
 * dir: the record in dir/rec.json, each spy's messages in dir/spyK.bin.
 * spy_seed < 0: the spies seed themselves from their tokens.  Spy K
 * speaks protocol version versions[K] (1 to 3; all 1 when versions is
 * NULL). */
MATCHLIB int run_spy_match_v(const char *referee, const char *spy,
                             const char *game, const char *dir, int seats,
                             uint64_t seed, long spy_seed,
                             const int *versions)
{
    char seed_s[32], rec[800], out[800], bots[MAAT_MAX_SEATS][1400];
    snprintf(seed_s, sizeof seed_s, "%" PRIu64, seed);
    snprintf(rec, sizeof rec, "%s/rec.json", dir);
    snprintf(out, sizeof out, "%s/referee.out", dir);
    char *argv[64];
    int n = 0;
    argv[n++] = (char *)referee;
    argv[n++] = "--game";
    argv[n++] = (char *)game;
    argv[n++] = "--fixed-seats";
    argv[n++] = "--seed";
    argv[n++] = seed_s;
    argv[n++] = "--record";
    argv[n++] = rec;
    argv[n++] = "--time"; /* generous: a loaded test machine is no fault */
    argv[n++] = "20000";
    argv[n++] = "--first-time";
    argv[n++] = "20000";
    argv[n++] = "--limit-as"; /* a sanitizer build reserves terabytes */
    argv[n++] = "0";
    for (int s = 0; s < seats; s++) {
        char extra[60] = "";
        if (spy_seed >= 0)
            snprintf(extra, sizeof extra, " --seed %ld", spy_seed);
        if (versions && versions[s] > 1)
            snprintf(extra + strlen(extra), sizeof extra - strlen(extra),
                     " --version %d", versions[s]);
        snprintf(bots[s], sizeof bots[s], "spy%d='%s' --dir '%s'%s", s, spy,
                 dir, extra);
        argv[n++] = "--bot";
        argv[n++] = bots[s];
    }
    argv[n] = NULL;
    int rc = run(argv, out);
    if (rc != 0) {
        fprintf(stderr, "maat-referee exited with %d for %s, %d seats, seed "
                "%" PRIu64 "\n", rc, game, seats, seed);
        print_file(out);
    }
    return rc;
}

MATCHLIB int run_spy_match(const char *referee, const char *spy,
                           const char *game, const char *dir, int seats,
                           uint64_t seed, long spy_seed)
{
    return run_spy_match_v(referee, spy, game, dir, seats, seed, spy_seed,
                           NULL);
}

/* The programs from the environment (meson sets MAAT_REFEREE, MAAT_SPY)
 * and a fresh work directory under $TMPDIR; 77 (skip) or 1 on failure,
 * else 0. */
MATCHLIB int matchlib_start(const char *test, const char **referee,
                            const char **spy, char *workdir, size_t size)
{
    *referee = getenv("MAAT_REFEREE");
    *spy = getenv("MAAT_SPY");
    if (!*referee || !*spy) {
        fprintf(stderr, "%s: needs MAAT_REFEREE and MAAT_SPY (run it "
                "through meson test)\n", test);
        return 77;
    }
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(workdir, size, "%s/maat-%s-XXXXXX", tmp, test);
    if (!mkdtemp(workdir)) {
        perror("mkdtemp");
        return 1;
    }
    return 0;
}

/* ---- a spy's file ------------------------------------------------------- */

typedef struct spymsg {
    const uint8_t *p;
    uint32_t len;
} spymsg;

typedef struct spyfile {
    uint8_t *buf;
    size_t len;
    spymsg *msg;
    int n;
} spyfile;

MATCHLIB int spy_load(spyfile *f, const char *dir, int seat)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/spy%d.bin", dir, seat);
    memset(f, 0, sizeof *f);
    f->buf = read_all(path, &f->len);
    if (!f->buf)
        return -1;
    int cap = 64;
    f->msg = malloc(sizeof *f->msg * (size_t)cap);
    size_t off = 0;
    while (off + 4 <= f->len) {
        const uint8_t *h = f->buf + off;
        uint32_t l = (uint32_t)h[0] | (uint32_t)h[1] << 8 |
                     (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24;
        if (off + 4 + l > f->len)
            return -1;
        if (f->n == cap)
            f->msg = realloc(f->msg, sizeof *f->msg * (size_t)(cap *= 2));
        f->msg[f->n++] = (spymsg){h + 4, l};
        off += 4 + l;
    }
    return off == f->len ? 0 : -1;
}

MATCHLIB void spy_free(spyfile *f)
{
    free(f->buf);
    free(f->msg);
    memset(f, 0, sizeof *f);
}

/* ---- msgpack ------------------------------------------------------------ */

MATCHLIB int key_is(const msgpack_object *k, const char *s)
{
    return k->type == MSGPACK_OBJECT_STR && k->via.str.size == strlen(s) &&
           memcmp(k->via.str.ptr, s, k->via.str.size) == 0;
}

MATCHLIB int obj_int(const msgpack_object *o, int64_t *v)
{
    if (!o)
        return 0;
    if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
        if (o->via.u64 > INT64_MAX)
            return 0;
        *v = (int64_t)o->via.u64;
        return 1;
    }
    if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
        *v = o->via.i64;
        return 1;
    }
    return 0;
}

MATCHLIB void obj_to_text(const msgpack_object *o, char *buf, size_t len)
{
    FILE *f = fmemopen(buf, len, "w");
    if (!f) {
        snprintf(buf, len, "?");
        return;
    }
    msgpack_object_print(f, *o);
    fclose(f);
    buf[len - 1] = 0;
}

MATCHLIB char *dup_str(const msgpack_object *o)
{
    if (!o || o->type != MSGPACK_OBJECT_STR)
        return NULL;
    char *s = malloc(o->via.str.size + 1);
    memcpy(s, o->via.str.ptr, o->via.str.size);
    s[o->via.str.size] = 0;
    return s;
}

/* Packed with the packer, then unpacked (packed_end; free with
 * packed_free). */
typedef struct packed {
    msgpack_sbuffer sb;
    msgpack_packer pk;
    msgpack_unpacked u;
} packed;

MATCHLIB void packed_begin(packed *p)
{
    msgpack_sbuffer_init(&p->sb);
    msgpack_packer_init(&p->pk, &p->sb, msgpack_sbuffer_write);
    msgpack_unpacked_init(&p->u);
}

MATCHLIB const msgpack_object *packed_end(packed *p)
{
    if (maat_msg_unpack(p->sb.data, p->sb.size, &p->u, NULL) != MAAT_OK)
        return NULL;
    return &p->u.data;
}

MATCHLIB void packed_free(packed *p)
{
    msgpack_unpacked_destroy(&p->u);
    msgpack_sbuffer_destroy(&p->sb);
}

/* JSON (a recorded action) as msgpack. */
MATCHLIB void json_pack_msgpack(const json_t *j, msgpack_packer *pk)
{
    switch (json_typeof(j)) {
    case JSON_OBJECT: {
        msgpack_pack_map(pk, json_object_size(j));
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)j, k, v) {
            maat_pack_str(pk, k);
            json_pack_msgpack(v, pk);
        }
        break;
    }
    case JSON_ARRAY: {
        msgpack_pack_array(pk, json_array_size(j));
        size_t i;
        json_t *v;
        json_array_foreach(j, i, v) json_pack_msgpack(v, pk);
        break;
    }
    case JSON_STRING:
        msgpack_pack_str(pk, json_string_length(j));
        msgpack_pack_str_body(pk, json_string_value(j),
                              json_string_length(j));
        break;
    case JSON_INTEGER: msgpack_pack_int64(pk, json_integer_value(j)); break;
    case JSON_TRUE: msgpack_pack_true(pk); break;
    case JSON_FALSE: msgpack_pack_false(pk); break;
    default: msgpack_pack_nil(pk); break;
    }
}

/* A recorded action (JSON) decoded by the rules; MAAT_OK or the code. */
MATCHLIB int json_action(const maat_rules *r, const maat_game *g,
                       const json_t *j, maat_action *a, maat_error *err)
{
    packed p;
    packed_begin(&p);
    json_pack_msgpack(j, &p.pk);
    const msgpack_object *o = packed_end(&p);
    int rc = o ? r->decode_action(g, o, a, err) : MAAT_EDECODE;
    packed_free(&p);
    return rc;
}

#endif
