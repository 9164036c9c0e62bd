/* test_referee_hidden.c -- no seat ever receives a card it cannot know.
 *
 * The rules (docs/rules/pyramids.md, "What each seat sees"): a seat
 * sees the public table and its own hand and tomb; never the deck order,
 * the other seats' hands and tombs, or the seed, before the end.
 *
 * Proof, message by message, over real matches: maat-referee plays many
 * seeded matches between maat-spy-bot seats (tests/bots/spy.c), each of
 * which writes every message it receives, raw, to <dir>/<name>.bin.  This
 * program then replays each game record through the rules in-process and,
 * before each decision of seat s, checks the request the referee sent to s
 * against the state at that moment:
 *   a) observation.seat is s; its hand and tomb are s's own, exactly; no
 *      players[j] entry carries a hand, nor a tomb before the end;
 *   b) no card id under hand/tomb/quarry/discard/cards/card/obelisk/pyramid
 *      anywhere in the message is secret to s: still in the deck, or
 *      another seat's face-down card (its initial deal, while it stays in
 *      that seat's hand or tomb);
 *   c) a tomb event about another seat has no card; deal and keep events
 *      are only ever about s;
 *   d) neither the seed (nor a seed derived from it, nor any 64-bit value)
 *      nor a key seed/order/deck_order/rng appears anywhere -- and the
 *      welcome's match id is not a function of the seed a bot can invert;
 *   e) the end message reveals every tomb as it is, scores as the rules
 *      compute them, and the record's ranks.
 * Besides, the observation, events and legal list must equal what the rules
 * encode for that seat at that state (so the referee forwards exactly the
 * events visible to the seat, once each, in order).
 *
 * The checker is shown to fail on hand-made leaking messages.  Then: the
 * same seed and deterministic spies give byte-identical records, and
 * maat-referee --verify returns 0 on an intact record and 3, naming the
 * decision or the seat, on a tampered one.
 *
 * Needs MAAT_REFEREE and MAAT_SPY (set by meson).  Work files go to a
 * fresh directory under $TMPDIR (kept, and named, when a check fails).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "maat/game.h"
#include "maat/msg.h"
#include "maat/pyramids.h"
#include "maat/rng.h"
#include "check.h"

static const maat_rules *R = &maat_pyramids_rules;
static const char *referee_path, *spy_path;
static char workdir[512];

/* Seeds above 2^32, so "the seed appears as an integer" cannot be confused
 * with a card id, a sequence number or a clock value. */
#define SEED_BASE 0x5eed00000000ULL

static uint64_t match_seed(int seats, int k)
{
    return SEED_BASE + (uint64_t)seats * 1000003ULL + (uint64_t)k * 7919ULL;
}

/* ---- files and processes --------------------------------------------- */

static uint8_t *read_all(const char *path, size_t *len)
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
static int run(char *const argv[], const char *out_path)
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

static void print_file(const char *path)
{
    size_t len;
    uint8_t *b = read_all(path, &len);
    if (b) {
        fprintf(stderr, "---- %s\n%.*s----\n", path, (int)len, (char *)b);
        free(b);
    }
}

/* One match of `seats` spies; spy_seed < 0: seeded from the token. */
static int run_match(const char *dir, int seats, uint64_t seed, long spy_seed)
{
    char seed_s[32], rec[600], out[600], bots[MAAT_MAX_SEATS][1400];
    snprintf(seed_s, sizeof seed_s, "%" PRIu64, seed);
    snprintf(rec, sizeof rec, "%s/rec.json", dir);
    snprintf(out, sizeof out, "%s/referee.out", dir);
    char *argv[64];
    int n = 0;
    argv[n++] = (char *)referee_path;
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
        char extra[40] = "";
        if (spy_seed >= 0)
            snprintf(extra, sizeof extra, " --seed %ld", spy_seed);
        snprintf(bots[s], sizeof bots[s], "spy%d='%s' --dir '%s'%s", s,
                 spy_path, dir, extra);
        /* the name=command split is at the first '=': no quotes before */
        argv[n++] = "--bot";
        argv[n++] = bots[s];
    }
    argv[n] = NULL;
    int rc = run(argv, out);
    if (rc != 0) {
        fprintf(stderr, "maat-referee exited with %d for %d seats, seed %"
                PRIu64 "\n", rc, seats, seed);
        print_file(out);
    }
    return rc;
}

static void remove_tree(const char *dir)
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

/* ---- a spy's file ------------------------------------------------------ */

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

static int spy_load(spyfile *f, const char *dir, int seat)
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

static void spy_free(spyfile *f)
{
    free(f->buf);
    free(f->msg);
    memset(f, 0, sizeof *f);
}

/* ---- msgpack helpers ---------------------------------------------------- */

static int key_is(const msgpack_object *k, const char *s)
{
    return k->type == MSGPACK_OBJECT_STR && k->via.str.size == strlen(s) &&
           memcmp(k->via.str.ptr, s, k->via.str.size) == 0;
}

static int obj_int(const msgpack_object *o, int64_t *v)
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

static int int_array_eq(const msgpack_object *o, const uint8_t *a, int n)
{
    if (!o || o->type != MSGPACK_OBJECT_ARRAY || (int)o->via.array.size != n)
        return 0;
    for (int i = 0; i < n; i++) {
        int64_t v;
        if (!obj_int(&o->via.array.ptr[i], &v) || v != a[i])
            return 0;
    }
    return 1;
}

static void obj_to_text(const msgpack_object *o, char *buf, size_t len)
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

/* Pack with `fill`, unpack into u (caller destroys u and sb). */
typedef struct packed {
    msgpack_sbuffer sb;
    msgpack_packer pk;
    msgpack_unpacked u;
} packed;

static void packed_begin(packed *p)
{
    msgpack_sbuffer_init(&p->sb);
    msgpack_packer_init(&p->pk, &p->sb, msgpack_sbuffer_write);
    msgpack_unpacked_init(&p->u);
}

static const msgpack_object *packed_end(packed *p)
{
    if (maat_msg_unpack(p->sb.data, p->sb.size, &p->u, NULL) != MAAT_OK)
        return NULL;
    return &p->u.data;
}

static void packed_free(packed *p)
{
    msgpack_unpacked_destroy(&p->u);
    msgpack_sbuffer_destroy(&p->sb);
}

/* JSON (a recorded action) as msgpack. */
static void json_pack_msgpack(const json_t *j, msgpack_packer *pk)
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

/* ---- what a seat may not see ------------------------------------------- */

typedef struct view {
    const maat_pyr_state *st;
    int seat, over;
    int hidden[MAAT_PYR_MAX_SEATS]; /* each seat's face-down first card */
    uint8_t secret[MAAT_PYR_CARDS]; /* 0 = knowable; 1 deck; 2 face-down */
    uint64_t forbidden[4];          /* the seed as an integer */
    int n_forbidden;
    /* the seed's text, and the keys the referee derives from it */
    char seed_text[3][MAAT_SEED_TEXT];
} view;

static int card_in(const uint8_t *a, int n, int c)
{
    for (int i = 0; i < n; i++)
        if (a[i] == c)
            return 1;
    return 0;
}

static void make_view(view *v, const maat_game *g, int seat, uint64_t seed,
                      const int *hidden)
{
    memset(v, 0, sizeof *v);
    const maat_pyr_state *st = maat_pyr_state_of(g);
    v->st = st;
    v->seat = seat;
    v->over = R->is_over(g);
    for (int i = 0; i < st->seats; i++)
        v->hidden[i] = hidden[i];
    for (int k = st->deck_pos; k < MAAT_PYR_CARDS; k++)
        v->secret[st->order[k]] = 1;
    for (int j = 0; j < st->seats && !v->over; j++) {
        const maat_pyr_seat *s = &st->seat[j];
        if (j != seat && (card_in(s->hand, s->hand_n, hidden[j]) ||
                          card_in(s->tomb, s->tomb_n, hidden[j])))
            v->secret[hidden[j]] = 2;
    }
    v->forbidden[v->n_forbidden++] = seed;
    static const char *const derived[] = {"policy", "seats"};
    maat_seed key;
    maat_seed_format(SEED(seed), v->seed_text[0]);
    for (int i = 0; i < 2; i++) {
        maat_seed_derive(&key, SEED(seed), derived[i]);
        maat_seed_format(&key, v->seed_text[1 + i]);
    }
}

typedef struct finding {
    int n;
    char first[400];
} finding;

static void found(finding *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void found(finding *f, const char *fmt, ...)
{
    if (f->n++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(f->first, sizeof f->first, fmt, ap);
        va_end(ap);
    }
}

/* MODE_POINTS: under "scores", where tomb/obelisk name score parts */
enum { MODE_NONE, MODE_CARDS, MODE_PYRAMID, MODE_POINTS };

static const char *const card_keys[] = {"hand", "tomb", "quarry", "discard",
                                        "cards", "card", "obelisk", NULL};
static const char *const banned_keys[] = {"seed", "order", "deck_order",
                                          "rng", NULL};

static int in_list(const msgpack_object *k, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (key_is(k, list[i]))
            return 1;
    return 0;
}

static void check_string(const view *v, finding *f, const char *p, size_t n,
                         const char *path)
{
    for (int k = 0; k < 3; k++) {
        size_t sl = strlen(v->seed_text[k]);
        for (size_t i = 0; i + sl <= n; i++)
            if (memcmp(p + i, v->seed_text[k], sl) == 0) {
                found(f, "the seed (or a key derived from it) %s inside a "
                      "string at %s", v->seed_text[k], path);
                return;
            }
    }
}

static void check_card(const view *v, finding *f, int64_t c, const char *path)
{
    if (c < 0 || c >= MAAT_PYR_CARDS || !v->secret[c])
        return;
    if (v->secret[c] == 1)
        found(f, "card %" PRId64 " at %s is still in the deck", c, path);
    else
        for (int j = 0; j < v->st->seats; j++)
            if (v->hidden[j] == c)
                found(f, "card %" PRId64 " at %s is seat %d's face-down "
                      "card", c, path, j);
}

static void walk(const view *v, finding *f, const msgpack_object *o, int mode,
                 const char *path)
{
    char sub[300];
    switch (o->type) {
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
    case MSGPACK_OBJECT_NEGATIVE_INTEGER: {
        uint64_t u = o->via.u64; /* same bits for either kind */
        int64_t i = o->via.i64;
        for (int k = 0; k < v->n_forbidden; k++)
            if (u == v->forbidden[k])
                found(f, "the seed (or a seed derived from it) %" PRIu64
                      " at %s", u, path);
        if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER ? u >= (1ULL << 32)
                                                        : i <= -(1LL << 32))
            found(f, "a 64-bit integer %" PRIu64 " at %s (a seed or RNG "
                  "state?)", u, path);
        if (mode == MODE_CARDS)
            check_card(v, f, i, path);
        return;
    }
    case MSGPACK_OBJECT_STR:
        check_string(v, f, o->via.str.ptr, o->via.str.size, path);
        return;
    case MSGPACK_OBJECT_BIN:
        found(f, "binary data at %s", path);
        return;
    case MSGPACK_OBJECT_ARRAY:
        for (uint32_t i = 0; i < o->via.array.size; i++) {
            const msgpack_object *e = &o->via.array.ptr[i];
            snprintf(sub, sizeof sub, "%s[%u]", path, i);
            if (mode == MODE_PYRAMID && e->type == MSGPACK_OBJECT_ARRAY &&
                e->via.array.size > 0) {
                int64_t c;
                if (obj_int(&e->via.array.ptr[0], &c))
                    check_card(v, f, c, sub);
                walk(v, f, e, MODE_NONE, sub);
            } else {
                walk(v, f, e, mode, sub);
            }
        }
        return;
    case MSGPACK_OBJECT_MAP:
        for (uint32_t i = 0; i < o->via.map.size; i++) {
            const msgpack_object *k = &o->via.map.ptr[i].key;
            const msgpack_object *val = &o->via.map.ptr[i].val;
            char name[64] = "?";
            if (k->type == MSGPACK_OBJECT_STR)
                snprintf(name, sizeof name, "%.*s", (int)k->via.str.size,
                         k->via.str.ptr);
            snprintf(sub, sizeof sub, "%s.%s", path, name);
            if (in_list(k, banned_keys))
                found(f, "a key named '%s' at %s", name, path);
            walk(v, f, k, MODE_NONE, sub);
            int m = mode == MODE_POINTS || key_is(k, "scores")
                        ? MODE_POINTS
                    : key_is(k, "pyramid")    ? MODE_PYRAMID
                    : in_list(k, card_keys)   ? MODE_CARDS
                    : mode == MODE_CARDS      ? MODE_CARDS
                                              : MODE_NONE;
            walk(v, f, val, m, sub);
        }
        return;
    default:
        return;
    }
}

/* Every check of (a)..(d) on one message to v->seat; the number of
 * problems, the first one described in f. */
static int leak_check(const msgpack_object *msg, const view *v, finding *f)
{
    const maat_pyr_state *st = v->st;
    int before = f->n;
    walk(v, f, msg, MODE_NONE, "msg");

    const msgpack_object *type = maat_msg_get(msg, "type");
    if (!maat_msg_str_eq(type, "request") && !maat_msg_str_eq(type, "end"))
        return f->n - before;

    /* a) the observation is this seat's */
    const msgpack_object *obs = maat_msg_get(msg, "observation");
    int64_t seat = -1;
    if (!obj_int(maat_msg_get(obs, "seat"), &seat) || seat != v->seat)
        found(f, "observation.seat is %" PRId64 ", the message is for seat "
              "%d", seat, v->seat);
    const maat_pyr_seat *me = &st->seat[v->seat];
    if (!int_array_eq(maat_msg_get(obs, "hand"), me->hand, me->hand_n))
        found(f, "observation.hand is not seat %d's hand", v->seat);
    if (!int_array_eq(maat_msg_get(obs, "tomb"), me->tomb, me->tomb_n))
        found(f, "observation.tomb is not seat %d's tomb", v->seat);
    const msgpack_object *players = maat_msg_get(obs, "players");
    if (!players || players->type != MSGPACK_OBJECT_ARRAY ||
        (int)players->via.array.size != st->seats) {
        found(f, "observation.players is not an array of %d", st->seats);
    } else {
        for (int j = 0; j < st->seats; j++) {
            const msgpack_object *p = &players->via.array.ptr[j];
            if (maat_msg_get(p, "hand"))
                found(f, "observation.players[%d] has a hand", j);
            const msgpack_object *tomb = maat_msg_get(p, "tomb");
            if (!v->over && tomb)
                found(f, "observation.players[%d] has a tomb before the end",
                      j);
            if (v->over && !int_array_eq(tomb, st->seat[j].tomb,
                                         st->seat[j].tomb_n))
                found(f, "the end does not reveal seat %d's tomb as it is",
                      j);
        }
    }

    /* c) events about other seats */
    const msgpack_object *events = maat_msg_get(msg, "events");
    if (!events || events->type != MSGPACK_OBJECT_ARRAY) {
        found(f, "no events array");
    } else {
        for (uint32_t i = 0; i < events->via.array.size; i++) {
            const msgpack_object *e = &events->via.array.ptr[i];
            const msgpack_object *kind = maat_msg_get(e, "event");
            int64_t es = -1;
            int has_seat = obj_int(maat_msg_get(e, "seat"), &es);
            if (maat_msg_str_eq(kind, "tomb") && es != v->seat &&
                maat_msg_get(e, "card"))
                found(f, "events[%u]: seat %d is told which card seat %"
                      PRId64 " put in its tomb", i, v->seat, es);
            if ((maat_msg_str_eq(kind, "deal") ||
                 maat_msg_str_eq(kind, "keep")) &&
                (!has_seat || es != v->seat))
                found(f, "events[%u]: seat %d is told about a private '%s' "
                      "of seat %" PRId64, i, v->seat,
                      maat_msg_str_eq(kind, "deal") ? "deal" : "keep", es);
        }
    }
    return f->n - before;
}

/* ---- replaying a match against the spies' files -------------------------- */

typedef struct stats {
    int matches, messages, requests, ends;
    int guarded;      /* requests where another seat's card was face down */
    int id_from_seed; /* matches whose welcome match id is fnv1a(seed..) */
    char id_example[200];
} stats;

static char *dup_str(const msgpack_object *o)
{
    if (!o || o->type != MSGPACK_OBJECT_STR)
        return NULL;
    char *s = malloc(o->via.str.size + 1);
    memcpy(s, o->via.str.ptr, o->via.str.size);
    s[o->via.str.size] = 0;
    return s;
}

/* The events the seat may see, from *cursor on, as the rules encode them. */
static void pack_visible_events(const maat_game *g, const maat_events *ev,
                                int seat, size_t *cursor, msgpack_packer *pk)
{
    uint32_t me = 1u << seat;
    size_t n = 0;
    for (size_t i = *cursor; i < ev->count; i++)
        n += (ev->items[i].visible_to & me) != 0;
    msgpack_pack_array(pk, n);
    for (size_t i = *cursor; i < ev->count; i++)
        if (ev->items[i].visible_to & me)
            R->encode_event(g, &ev->items[i], pk);
    *cursor = ev->count;
}

/* The message equals the rules' own encodings for the seat at g. */
static void check_consistent(const maat_game *g, const maat_events *ev,
                             int seat, size_t *cursor,
                             const msgpack_object *msg, const char *where,
                             int with_legal)
{
    char got[2000], want[2000];
    packed p;
    packed_begin(&p);
    R->encode_observation(g, seat, &p.pk);
    const msgpack_object *o = packed_end(&p);
    const msgpack_object *m = maat_msg_get(msg, "observation");
    if (!o || !m || !msgpack_object_equal(*o, *m)) {
        obj_to_text(m ? m : msg, got, sizeof got);
        obj_to_text(o ? o : msg, want, sizeof want);
        CHECK(0, "%s: the observation is not the rules' for seat %d\n  got  "
              "%s\n  want %s", where, seat, got, want);
    }
    packed_free(&p);

    packed_begin(&p);
    pack_visible_events(g, ev, seat, cursor, &p.pk);
    o = packed_end(&p);
    m = maat_msg_get(msg, "events");
    if (!o || !m || !msgpack_object_equal(*o, *m)) {
        obj_to_text(m ? m : msg, got, sizeof got);
        obj_to_text(o ? o : msg, want, sizeof want);
        CHECK(0, "%s: the events are not exactly those seat %d may see since "
              "its last message\n  got  %s\n  want %s", where, seat, got,
              want);
    }
    packed_free(&p);

    if (!with_legal)
        return;
    maat_action legal[1024];
    int n = R->legal_actions(g, legal, 1024);
    packed_begin(&p);
    msgpack_pack_array(&p.pk, (size_t)(n < 1024 ? n : 1024));
    for (int i = 0; i < n && i < 1024; i++)
        R->encode_action(g, &legal[i], &p.pk);
    o = packed_end(&p);
    m = maat_msg_get(msg, "legal");
    CHECK(o && m && msgpack_object_equal(*o, *m),
          "%s: the legal list is not the rules' (%d actions)", where, n);
    packed_free(&p);
}

/* The recorded action, decoded and checked against the legal list. */
static int recorded_action(const maat_game *g, json_t *j, maat_action *a,
                           const char *where)
{
    packed p;
    packed_begin(&p);
    json_pack_msgpack(j, &p.pk);
    const msgpack_object *o = packed_end(&p);
    maat_error err = {0};
    int rc = o ? R->decode_action(g, o, a, &err) : MAAT_EDECODE;
    CHECK(rc == MAAT_OK, "%s: the recorded action does not decode: %s", where,
          err.msg);
    if (rc == MAAT_OK) {
        maat_action legal[1024];
        int n = R->legal_actions(g, legal, 1024), ok = 0;
        for (int i = 0; i < n && i < 1024 && !ok; i++) {
            packed q;
            packed_begin(&q);
            R->encode_action(g, &legal[i], &q.pk);
            const msgpack_object *lo = packed_end(&q);
            ok = lo && msgpack_object_equal(*lo, *o);
            packed_free(&q);
        }
        CHECK(ok, "%s: the recorded action is not one of the %d legal ones",
              where, n);
    }
    packed_free(&p);
    return rc;
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

/* The match id maat-referee derives when not given --match-id. */
static void referee_match_id(uint64_t seed, int seats, char *out, size_t len)
{
    char seed_s[32], name[16];
    snprintf(seed_s, sizeof seed_s, "%" PRIu64, seed);
    uint64_t h = fnv1a(fnv1a(0xcbf29ce484222325ULL, "pyramids"), seed_s);
    for (int i = 0; i < seats; i++) {
        snprintf(name, sizeof name, "spy%d", i);
        h = fnv1a(fnv1a(h, "|"), name);
    }
    snprintf(out, len, "%016" PRIx64, h);
}

/* Replay one played match (dir holds rec.json and spy<k>.bin). */
static void check_match(const char *dir, int seats, uint64_t seed,
                        stats *sum)
{
    char path[1024], where[160];
    snprintf(path, sizeof path, "%s/rec.json", dir);
    json_error_t je;
    json_t *rec = json_load_file(path, 0, &je);
    CHECK(rec != NULL, "%s: %s", path, je.text);
    if (!rec)
        return;
    json_t *decisions = json_object_get(rec, "decisions");
    json_t *result = json_object_get(rec, "result");
    json_t *faults = json_object_get(rec, "faults");
    CHECK(json_is_array(decisions) && json_is_array(result) &&
          (int)json_array_size(result) == seats,
          "%s: no decisions or result for %d seats", path, seats);
    CHECK(json_is_array(faults) && json_array_size(faults) == 0,
          "%s: the spies had faults (seats %d, seed %" PRIu64 "); the "
          "message mapping below assumes none", path, seats, seed);
    char seed_text[MAAT_SEED_TEXT];
    maat_seed_format(SEED(seed), seed_text);
    CHECK(json_is_string(json_object_get(rec, "seed")) &&
              !strcmp(json_string_value(json_object_get(rec, "seed")),
                      seed_text),
          "%s: the record's seed is not \"%s\"", path, seed_text);

    spyfile spy[MAAT_PYR_MAX_SEATS];
    int cur[MAAT_PYR_MAX_SEATS];
    size_t evcur[MAAT_PYR_MAX_SEATS] = {0};
    int ok = 1;
    for (int s = 0; s < seats; s++) {
        ok &= spy_load(&spy[s], dir, s) == 0;
        cur[s] = 0;
    }
    CHECK(ok, "%s: a spy file is missing or truncated", dir);

    maat_options opt = {0};
    maat_error err = {0};
    maat_setup *setup = R->setup_new(&opt, &err);
    maat_events ev = {0};
    maat_game *g = setup ? R->game_new(setup, SEED(seed), seats, &ev, &err) : NULL;
    CHECK(g != NULL, "game_new: %s", err.msg);
    if (!g || !ok || !json_is_array(decisions))
        goto out;
    const maat_pyr_state *st = maat_pyr_state_of(g);
    int hidden[MAAT_PYR_MAX_SEATS];
    for (int s = 0; s < seats; s++)
        hidden[s] = st->seat[s].hand[0];

    /* Each spy's first messages: welcome, start. */
    char want_id[32];
    referee_match_id(seed, seats, want_id, sizeof want_id);
    for (int s = 0; s < seats; s++) {
        for (int k = 0; k < 2 && cur[s] < spy[s].n; k++, cur[s]++) {
            msgpack_unpacked u;
            spymsg *sm = &spy[s].msg[cur[s]];
            CHECK(maat_msg_unpack(sm->p, sm->len, &u, &err) == MAAT_OK,
                  "%s spy%d message %d: %s", dir, s, cur[s], err.msg);
            const msgpack_object *m = &u.data;
            const char *want = k == 0 ? "welcome" : "start";
            CHECK(maat_msg_str_eq(maat_msg_get(m, "type"), want),
                  "%s spy%d message %d is not '%s'", dir, s, cur[s], want);
            view v;
            make_view(&v, g, s, seed, hidden);
            finding f = {0};
            snprintf(where, sizeof where, "seats %d seed %" PRIu64 " spy%d "
                     "message %d (%s)", seats, seed, s, cur[s], want);
            CHECK(leak_check(m, &v, &f) == 0, "%s: %d leak(s), first: %s",
                  where, f.n, f.first);
            if (k == 0) {
                /* d) the match id must not hand the seed over (counted
                 * here, reported once in main) */
                char *id = dup_str(maat_msg_get(m, "match"));
                if (s == 0 && id && strcmp(id, want_id) == 0 &&
                    sum->id_from_seed++ == 0)
                    snprintf(sum->id_example, sizeof sum->id_example,
                             "seats %d, seed %" PRIu64 ": \"match\": \"%s\"",
                             seats, seed, id);
                free(id);
            } else {
                int64_t x = -1;
                CHECK(obj_int(maat_msg_get(m, "seat"), &x) && x == s,
                      "%s: start says seat %" PRId64 "", where, x);
            }
            sum->messages++;
            msgpack_unpacked_destroy(&u);
        }
    }

    size_t i;
    json_t *d;
    json_array_foreach(decisions, i, d) {
        if (R->is_over(g)) {
            CHECK(0, "%s: decision %zu after the end", dir, i);
            break;
        }
        maat_decision want = R->decision(g);
        int s = (int)json_integer_value(json_object_get(d, "seat"));
        snprintf(where, sizeof where, "seats %d seed %" PRIu64 " decision %zu "
                 "(seat %d, %s)", seats, seed, i, want.seat,
                 R->decision_names[want.kind]);
        CHECK(s == want.seat, "%s: the record says seat %d", where, s);
        CHECK(!strcmp(json_string_value(json_object_get(d, "by")) ?
                      json_string_value(json_object_get(d, "by")) : "", "bot"),
              "%s: not answered by the bot", where);
        s = want.seat;
        if (cur[s] >= spy[s].n) {
            CHECK(0, "%s: spy%d received no request for it", where, s);
            break;
        }
        spymsg *sm = &spy[s].msg[cur[s]];
        msgpack_unpacked u;
        int urc = maat_msg_unpack(sm->p, sm->len, &u, &err);
        CHECK(urc == MAAT_OK, "%s: spy%d message %d: %s", where, s, cur[s],
              err.msg);
        const msgpack_object *m = &u.data;
        if (urc || !maat_msg_str_eq(maat_msg_get(m, "type"), "request")) {
            CHECK(0, "%s: spy%d's message %d is not a request", where, s,
                  cur[s]);
            msgpack_unpacked_destroy(&u);
            break;
        }
        snprintf(where + strlen(where), sizeof where - strlen(where),
                 ", spy%d message %d", s, cur[s]);
        cur[s]++;
        CHECK(maat_msg_str_eq(maat_msg_get(m, "decision"),
                              R->decision_names[want.kind]),
              "%s: the request names another decision", where);
        view v;
        make_view(&v, g, s, seed, hidden);
        finding f = {0};
        CHECK(leak_check(m, &v, &f) == 0, "%s: %d leak(s), first: %s", where,
              f.n, f.first);
        for (int c = 0; c < MAAT_PYR_CARDS; c++)
            if (v.secret[c] == 2) {
                sum->guarded++;
                break;
            }
        check_consistent(g, &ev, s, &evcur[s], m, where, 1);
        msgpack_unpacked_destroy(&u);
        sum->messages++;
        sum->requests++;

        maat_action a;
        if (recorded_action(g, json_object_get(d, "action"), &a, where))
            break;
        int rc = R->apply(g, &a, &ev, &err);
        CHECK(rc == MAAT_OK, "%s: the rules refuse the recorded action: %s",
              where, err.msg);
        if (rc)
            break;
    }
    CHECK(R->is_over(g), "%s: the record ends before the game does", dir);

    /* e) the end, then bye */
    if (R->is_over(g)) {
        maat_score sc[MAAT_MAX_SEATS];
        R->scores(g, sc);
        for (int s = 0; s < seats; s++) {
            snprintf(where, sizeof where, "seats %d seed %" PRIu64 " spy%d "
                     "end (message %d)", seats, seed, s, cur[s]);
            if (cur[s] >= spy[s].n) {
                CHECK(0, "%s: missing", where);
                continue;
            }
            spymsg *sm = &spy[s].msg[cur[s]++];
            msgpack_unpacked u;
            int urc = maat_msg_unpack(sm->p, sm->len, &u, &err);
            const msgpack_object *m = &u.data;
            if (urc || !maat_msg_str_eq(maat_msg_get(m, "type"), "end")) {
                CHECK(0, "%s: not an end message", where);
                msgpack_unpacked_destroy(&u);
                continue;
            }
            view v;
            make_view(&v, g, s, seed, hidden);
            finding f = {0};
            CHECK(leak_check(m, &v, &f) == 0, "%s: %d leak(s), first: %s",
                  where, f.n, f.first);
            check_consistent(g, &ev, s, &evcur[s], m, where, 0);
            const msgpack_object *obs = maat_msg_get(m, "observation");
            const msgpack_object *scores = maat_msg_get(obs, "scores");
            const msgpack_object *ranks = maat_msg_get(m, "ranks");
            CHECK(maat_msg_get(obs, "over") &&
                  maat_msg_get(obs, "over")->type == MSGPACK_OBJECT_BOOLEAN &&
                  maat_msg_get(obs, "over")->via.boolean,
                  "%s: the observation is not over", where);
            CHECK(scores && scores->type == MSGPACK_OBJECT_ARRAY &&
                  (int)scores->via.array.size == seats,
                  "%s: no scores for %d seats", where, seats);
            CHECK(ranks && ranks->type == MSGPACK_OBJECT_ARRAY &&
                  (int)ranks->via.array.size == seats,
                  "%s: no ranks for %d seats", where, seats);
            for (int j = 0; j < seats; j++) {
                int64_t t = -1, r = -1, pv = -1;
                const msgpack_object *sj =
                    scores && scores->type == MSGPACK_OBJECT_ARRAY &&
                            (int)scores->via.array.size == seats
                        ? &scores->via.array.ptr[j] : NULL;
                CHECK(obj_int(maat_msg_get(sj, "total"), &t) &&
                      t == sc[j].total, "%s: seat %d's total %" PRId64
                      ", the rules say %d", where, j, t, sc[j].total);
                for (int p = 0; p < R->n_score_parts; p++)
                    CHECK(obj_int(maat_msg_get(maat_msg_get(sj, "parts"),
                                               R->score_parts[p]), &pv) &&
                          pv == sc[j].part[p], "%s: seat %d's %s is %" PRId64
                          ", the rules say %d", where, j, R->score_parts[p],
                          pv, sc[j].part[p]);
                json_int_t want_r = json_integer_value(json_object_get(
                    json_array_get(result, (size_t)j), "rank"));
                CHECK(ranks && ranks->type == MSGPACK_OBJECT_ARRAY &&
                      (int)ranks->via.array.size == seats &&
                      obj_int(&ranks->via.array.ptr[j], &r) && r == want_r,
                      "%s: seat %d's rank %" PRId64 ", the record says %lld",
                      where, j, r, (long long)want_r);
                CHECK(json_integer_value(json_object_get(
                          json_array_get(result, (size_t)j), "score")) ==
                          sc[j].total,
                      "%s: the record's score for seat %d is not the rules'",
                      where, j);
            }
            msgpack_unpacked_destroy(&u);
            sum->messages++;
            sum->ends++;
        }
        for (int s = 0; s < seats; s++) {
            int bye = 0;
            if (cur[s] < spy[s].n) {
                msgpack_unpacked u;
                spymsg *sm = &spy[s].msg[cur[s]];
                if (maat_msg_unpack(sm->p, sm->len, &u, NULL) == MAAT_OK &&
                    maat_msg_str_eq(maat_msg_get(&u.data, "type"), "bye")) {
                    bye = 1;
                    cur[s]++;
                    sum->messages++;
                }
                msgpack_unpacked_destroy(&u);
            }
            CHECK(bye && cur[s] == spy[s].n, "seats %d seed %" PRIu64 " spy%d:"
                  " %d message(s) after the end, or no bye", seats, seed, s,
                  spy[s].n - cur[s]);
        }
    }
    sum->matches++;
out:
    if (g)
        R->destroy(&g);
    if (setup)
        R->setup_destroy(&setup);
    maat_events_free(&ev);
    for (int s = 0; s < seats; s++)
        spy_free(&spy[s]);
    json_decref(rec);
}

/* ---- the checker can fail ------------------------------------------------- */

typedef enum {
    BAD_NONE,          /* the genuine message: no finding */
    BAD_OTHER_HAND,    /* seat 1's observation sent to seat 0 */
    BAD_DISCARD_SECRET,/* an event naming seat 1's face-down card */
    BAD_TOMB_CARD,     /* seat 1's tomb event with its card */
    BAD_DEAL_OTHER,    /* seat 1's deal event sent to seat 0 */
    BAD_DECK_CARD,     /* a quarry event with the next deck card */
    BAD_SEED_INT,      /* the seed as an integer */
    BAD_ORDER_KEY,     /* a key named order */
    BAD_PYRAMID_SECRET /* a pyramid entry with seat 1's face-down card */
} bad_kind;

static int hand_made(const maat_game *g, int seat, uint64_t seed,
                     const int *hidden, bad_kind bad, finding *f)
{
    packed p;
    packed_begin(&p);
    msgpack_packer *pk = &p.pk;
    const maat_pyr_state *st = maat_pyr_state_of(g);
    msgpack_pack_map(pk, bad == BAD_ORDER_KEY ? 6 : 5);
    maat_pack_kv_str(pk, "type", "request");
    maat_pack_kv_int(pk, "seq", bad == BAD_SEED_INT ? (int64_t)seed : 7);
    maat_pack_str(pk, "observation");
    R->encode_observation(g, bad == BAD_OTHER_HAND ? 1 : seat, pk);
    maat_pack_str(pk, "events");
    int n_ev = bad == BAD_DISCARD_SECRET || bad == BAD_TOMB_CARD ||
               bad == BAD_DEAL_OTHER || bad == BAD_DECK_CARD ||
               bad == BAD_PYRAMID_SECRET;
    msgpack_pack_array(pk, (size_t)n_ev);
    switch (bad) {
    case BAD_DISCARD_SECRET:
        msgpack_pack_map(pk, 3);
        maat_pack_kv_str(pk, "event", "discard");
        maat_pack_kv_int(pk, "seat", 1);
        maat_pack_kv_int(pk, "card", hidden[1]);
        break;
    case BAD_TOMB_CARD:
        msgpack_pack_map(pk, 3);
        maat_pack_kv_str(pk, "event", "tomb");
        maat_pack_kv_int(pk, "seat", 1);
        maat_pack_kv_int(pk, "card", st->seat[1].hand[st->seat[1].hand_n - 1]);
        break;
    case BAD_DEAL_OTHER:
        msgpack_pack_map(pk, 3);
        maat_pack_kv_str(pk, "event", "deal");
        maat_pack_kv_int(pk, "seat", 1);
        maat_pack_kv_int(pk, "card", 0);
        break;
    case BAD_DECK_CARD:
        msgpack_pack_map(pk, 3);
        maat_pack_kv_str(pk, "event", "quarry");
        maat_pack_kv_int(pk, "index", 0);
        maat_pack_str(pk, "cards");
        msgpack_pack_array(pk, 2);
        msgpack_pack_int(pk, st->order[st->deck_pos]);
        msgpack_pack_int(pk, st->order[st->deck_pos + 1]);
        break;
    case BAD_PYRAMID_SECRET:
        msgpack_pack_map(pk, 2);
        maat_pack_kv_str(pk, "event", "board");
        maat_pack_str(pk, "pyramid");
        msgpack_pack_array(pk, 1);
        msgpack_pack_array(pk, 3);
        msgpack_pack_int(pk, hidden[1]);
        msgpack_pack_int(pk, 0);
        msgpack_pack_int(pk, 0);
        break;
    default:
        break;
    }
    maat_pack_str(pk, "legal");
    maat_action legal[512];
    int n = R->legal_actions(g, legal, 512);
    msgpack_pack_array(pk, (size_t)n);
    for (int i = 0; i < n; i++)
        R->encode_action(g, &legal[i], pk);
    if (bad == BAD_ORDER_KEY) {
        maat_pack_str(pk, "order");
        msgpack_pack_array(pk, 0);
    }
    const msgpack_object *m = packed_end(&p);
    view v;
    make_view(&v, g, seat, seed, hidden);
    int found_n = m ? leak_check(m, &v, f) : -1;
    packed_free(&p);
    return found_n;
}

static void test_checker_fails(void)
{
    const uint64_t seed = SEED_BASE + 99;
    maat_options opt = {0};
    maat_error err = {0};
    maat_setup *setup = R->setup_new(&opt, &err);
    maat_game *g = setup ? R->game_new(setup, SEED(seed), 3, NULL, &err) : NULL;
    CHECK(g != NULL, "game_new: %s", err.msg);
    if (!g)
        return;
    int hidden[MAAT_PYR_MAX_SEATS];
    for (int s = 0; s < 3; s++)
        hidden[s] = maat_pyr_state_of(g)->seat[s].hand[0];
    /* play on until seat 1 holds its face-down card and a pair, and it is
     * seat 0's turn with cards in hand */
    maat_rng rng;
    maat_rng_seed(&rng, SEED(5));
    for (int k = 0; k < 400 && !R->is_over(g); k++) {
        const maat_pyr_state *st = maat_pyr_state_of(g);
        maat_decision d = R->decision(g);
        if (k > 0 && d.seat == 0 && st->seat[1].hand_n >= 2 &&
            card_in(st->seat[1].hand, st->seat[1].hand_n, hidden[1]))
            break;
        maat_action legal[512];
        int n = R->legal_actions(g, legal, 512), keep[512], nk = 0;
        /* seat 1 never parts with its face-down card */
        for (int i = 0; i < n && i < 512; i++) {
            const maat_action *a = &legal[i];
            int uses = a->kind == MAAT_PYR_BUILD &&
                       (a->arg[0] == hidden[1] || a->arg[3] == hidden[1] ||
                        a->arg[4] == hidden[1]);
            int drops = a->kind == MAAT_PYR_KEEP && a->arg[0] != hidden[1];
            if (d.seat != 1 || (!uses && !drops))
                keep[nk++] = i;
        }
        if (nk == 0)
            break;
        R->apply(g, &legal[keep[maat_rng_below(&rng, (uint32_t)nk)]], NULL,
                 &err);
    }
    const maat_pyr_state *st = maat_pyr_state_of(g);
    CHECK(R->decision(g).seat == 0 && st->seat[1].hand_n >= 2 &&
          card_in(st->seat[1].hand, st->seat[1].hand_n, hidden[1]),
          "could not reach the position for the hand-made messages");

    static const struct { bad_kind k; const char *name; } cases[] = {
        {BAD_OTHER_HAND, "seat 1's observation (its hand) sent to seat 0"},
        {BAD_DISCARD_SECRET, "an event naming seat 1's face-down card"},
        {BAD_TOMB_CARD, "seat 1's tomb event carrying its card"},
        {BAD_DEAL_OTHER, "seat 1's deal event sent to seat 0"},
        {BAD_DECK_CARD, "a quarry event with the next two deck cards"},
        {BAD_SEED_INT, "the seed as an integer"},
        {BAD_ORDER_KEY, "a key named 'order'"},
        {BAD_PYRAMID_SECRET, "a pyramid entry with seat 1's face-down card"},
    };
    finding f = {0};
    int n = hand_made(g, 0, seed, hidden, BAD_NONE, &f);
    CHECK(n == 0, "the checker flags a genuine request: %s", f.first);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        finding fi = {0};
        n = hand_made(g, 0, seed, hidden, cases[i].k, &fi);
        CHECK(n > 0, "the checker misses %s", cases[i].name);
        if (n > 0 && getenv("MAAT_TEST_VERBOSE"))
            printf("  flagged %s: %s\n", cases[i].name, fi.first);
    }
    R->destroy(&g);
    R->setup_destroy(&setup);
}

/* ---- the seed from the welcome's match id ---------------------------------- */

/* A bot that knows the bot names (they are public on a ladder) enumerates
 * seeds until the match id matches, then rebuilds the deck. */
static void test_seed_from_match_id(void)
{
    const uint64_t seed = 31337; /* a seed a tournament might use */
    char dir[700];
    snprintf(dir, sizeof dir, "%s/match-id", workdir);
    mkdir(dir, 0755);
    if (run_match(dir, 2, seed, 1) != 0) {
        CHECK(0, "the match for the match-id check did not run");
        return;
    }
    spyfile spy;
    CHECK(spy_load(&spy, dir, 0) == 0 && spy.n > 2, "no spy0 file");
    if (spy.n <= 2) {
        spy_free(&spy);
        return;
    }
    msgpack_unpacked u;
    char *id = NULL;
    if (maat_msg_unpack(spy.msg[0].p, spy.msg[0].len, &u, NULL) == MAAT_OK)
        id = dup_str(maat_msg_get(&u.data, "match"));
    msgpack_unpacked_destroy(&u);
    msgpack_unpacked_init(&u);
    int64_t recovered = -1;
    for (uint64_t s = 0; id && s < (1u << 20) && recovered < 0; s++) {
        char cand[32];
        referee_match_id(s, 2, cand, sizeof cand);
        if (!strcmp(cand, id))
            recovered = (int64_t)s;
    }
    /* with the seed, the first request's quarry is predicted from the deck */
    int predicted = 0;
    if (recovered >= 0 && maat_msg_unpack(spy.msg[2].p, spy.msg[2].len, &u,
                                          NULL) == MAAT_OK) {
        maat_options opt = {0};
        maat_setup *setup = R->setup_new(&opt, NULL);
        maat_game *g = R->game_new(setup, SEED((uint64_t)recovered), 2, NULL, NULL);
        const maat_pyr_state *st = maat_pyr_state_of(g);
        const msgpack_object *q = maat_msg_get(
            maat_msg_get(&u.data, "observation"), "quarry");
        uint8_t pair[2] = {st->order[2], st->order[3]};
        predicted = q && q->type == MSGPACK_OBJECT_ARRAY &&
                    q->via.array.size == 2 &&
                    int_array_eq(&q->via.array.ptr[0], pair, 2);
        R->destroy(&g);
        R->setup_destroy(&setup);
    }
    msgpack_unpacked_destroy(&u);
    CHECK(recovered < 0,
          "LEAK: from the welcome's match id \"%s\" alone (and the public bot "
          "names) a bot recovers the seed %" PRId64 " by enumerating seeds "
          "below 2^20%s -- referee/match.c derive_match_id() hashes the seed "
          "with unkeyed FNV-1a and send_welcome() sends it to every bot",
          id ? id : "?", recovered,
          predicted ? ", and then predicts the quarry (the deck order)" : "");
    free(id);
    spy_free(&spy);
}

/* ---- records: reproducible, verified, tamper-evident ------------------------ */

static int files_equal(const char *a, const char *b, size_t *len)
{
    size_t la = 0, lb = 0;
    uint8_t *x = read_all(a, &la), *y = read_all(b, &lb);
    int eq = x && y && la == lb && memcmp(x, y, la) == 0;
    *len = x ? la : 0;
    free(x);
    free(y);
    return eq;
}

static int file_contains(const char *path, const char *needle)
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

static int verify(const char *rec, const char *out)
{
    char *argv[] = {(char *)referee_path, "--verify", (char *)rec, NULL};
    return run(argv, out);
}

static void test_records(void)
{
    const int seats = 3;
    const uint64_t seed = SEED_BASE + 4242;
    char a[700], b[700], c[700], pa[800], pb[800], out[800];
    snprintf(a, sizeof a, "%s/replay-a", workdir);
    snprintf(b, sizeof b, "%s/replay-b", workdir);
    snprintf(c, sizeof c, "%s/replay-c", workdir);
    mkdir(a, 0755);
    mkdir(b, 0755);
    mkdir(c, 0755);
    int ra = run_match(a, seats, seed, 17), rb = run_match(b, seats, seed, 17);
    int rc = run_match(c, seats, seed, 18);
    CHECK(ra == 0 && rb == 0 && rc == 0, "replay matches exit %d, %d, %d", ra,
          rb, rc);
    if (ra || rb || rc)
        return;
    size_t len;
    snprintf(pa, sizeof pa, "%s/rec.json", a);
    snprintf(pb, sizeof pb, "%s/rec.json", b);
    CHECK(files_equal(pa, pb, &len) && len > 0,
          "same seed, same deterministic bots: the records differ (%s, %s)",
          pa, pb);
    for (int s = 0; s < seats; s++) {
        snprintf(pa, sizeof pa, "%s/spy%d.bin", a, s);
        snprintf(pb, sizeof pb, "%s/spy%d.bin", b, s);
        CHECK(files_equal(pa, pb, &len) && len > 0,
              "same seed, same bots: spy%d received different bytes", s);
    }
    /* not vacuous: other bot choices give another record */
    snprintf(pa, sizeof pa, "%s/rec.json", a);
    snprintf(pb, sizeof pb, "%s/rec.json", c);
    CHECK(!files_equal(pa, pb, &len),
          "a different spy seed gave the same record: the spies ignore it");

    /* --verify: intact */
    snprintf(out, sizeof out, "%s/verify-ok.out", a);
    int v = verify(pa, out);
    CHECK(v == 0, "--verify of an intact record exits %d, want 0", v);
    if (v != 0)
        print_file(out);

    json_error_t je;
    json_t *rec = json_load_file(pa, 0, &je);
    CHECK(rec != NULL, "%s: %s", pa, je.text);
    if (!rec)
        return;

    /* tamper 1: the card of the first build becomes a card still in the
     * deck at that moment (a well-formed action the rules must refuse) */
    json_t *t1 = json_deep_copy(rec);
    json_t *decisions = json_object_get(t1, "decisions");
    maat_options opt = {0};
    maat_setup *setup = R->setup_new(&opt, NULL);
    maat_game *g = R->game_new(setup, SEED(seed), seats, NULL, NULL);
    size_t i, changed = (size_t)-1;
    json_t *d;
    json_array_foreach(decisions, i, d) {
        json_t *act = json_object_get(d, "action");
        if (!strcmp(json_string_value(json_object_get(act, "kind")), "build")) {
            const maat_pyr_state *st = maat_pyr_state_of(g);
            json_object_set_new(act, "card",
                                json_integer(st->order[st->deck_pos]));
            changed = i;
            break;
        }
        maat_action x;
        packed p;
        packed_begin(&p);
        json_pack_msgpack(act, &p.pk);
        const msgpack_object *o = packed_end(&p);
        if (o && R->decode_action(g, o, &x, NULL) == MAAT_OK)
            R->apply(g, &x, NULL, NULL);
        packed_free(&p);
    }
    R->destroy(&g);
    R->setup_destroy(&setup);
    char t1_path[800], want[64];
    snprintf(t1_path, sizeof t1_path, "%s/tampered-action.json", a);
    CHECK(changed != (size_t)-1 && json_dump_file(t1, t1_path, JSON_INDENT(1) |
                                                  JSON_PRESERVE_ORDER) == 0,
          "cannot write %s", t1_path);
    snprintf(out, sizeof out, "%s/verify-action.out", a);
    v = verify(t1_path, out);
    snprintf(want, sizeof want, "decision %zu", changed);
    CHECK(v == 3, "--verify of a record with a changed card exits %d, want 3",
          v);
    CHECK(file_contains(out, want), "--verify does not name '%s'", want);
    if (v != 3 || !file_contains(out, want))
        print_file(out);
    json_decref(t1);

    /* tamper 2: one seat's score */
    json_t *t2 = json_deep_copy(rec);
    json_t *r1 = json_array_get(json_object_get(t2, "result"), 1);
    json_object_set_new(r1, "score", json_integer(json_integer_value(
                                         json_object_get(r1, "score")) + 1));
    char t2_path[800];
    snprintf(t2_path, sizeof t2_path, "%s/tampered-score.json", a);
    CHECK(json_dump_file(t2, t2_path, JSON_INDENT(1) | JSON_PRESERVE_ORDER) ==
          0, "cannot write %s", t2_path);
    snprintf(out, sizeof out, "%s/verify-score.out", a);
    v = verify(t2_path, out);
    CHECK(v == 3, "--verify of a record with a changed score exits %d, want 3",
          v);
    CHECK(file_contains(out, "seat 1"), "--verify does not name seat 1");
    if (v != 3 || !file_contains(out, "seat 1"))
        print_file(out);
    json_decref(t2);
    json_decref(rec);
}

/* ---- main ----------------------------------------------------------------- */

int main(void)
{
    referee_path = getenv("MAAT_REFEREE");
    spy_path = getenv("MAAT_SPY");
    if (!referee_path || !spy_path) {
        fprintf(stderr, "test_referee_hidden: needs MAAT_REFEREE and "
                        "MAAT_SPY (run it through meson test)\n");
        return 77;
    }
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(workdir, sizeof workdir, "%s/maat-hidden-XXXXXX", tmp);
    if (!mkdtemp(workdir)) {
        perror("mkdtemp");
        return 1;
    }

    test_checker_fails();

    stats sum = {0};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int seats = 2; seats <= 5; seats++) {
        for (int k = 1; k <= 15; k++) {
            uint64_t seed = match_seed(seats, k);
            char dir[700];
            snprintf(dir, sizeof dir, "%s/m%d-%d", workdir, seats, k);
            mkdir(dir, 0755);
            int failures = check_failures;
            /* deterministic spies: a failure here replays exactly */
            int rc = run_match(dir, seats, seed, 100L * seats + k);
            CHECK(rc == 0, "maat-referee failed: %d seats, seed %" PRIu64,
                  seats, seed);
            if (rc == 0)
                check_match(dir, seats, seed, &sum);
            if (check_failures == failures) /* keep only what failed */
                remove_tree(dir);
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("checked %d matches, %d messages (%d requests, %d end; in %d "
           "requests another seat held a face-down card) in %.1f s\n",
           sum.matches, sum.messages, sum.requests, sum.ends, sum.guarded,
           (double)(t1.tv_sec - t0.tv_sec) +
               (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    fflush(stdout);

    CHECK(sum.id_from_seed == 0,
          "LEAK: in %d of %d matches the welcome's match id is fnv1a("
          "'pyramids' + decimal seed + '|' + each bot name), an unkeyed "
          "function of the seed (e.g. %s)", sum.id_from_seed, sum.matches,
          sum.id_example);

    int failures = check_failures;
    test_records();
    if (check_failures == failures) {
        static const char *const parts[] = {"replay-a", "replay-b", "replay-c"};
        for (int i = 0; i < 3; i++) {
            char dir[700];
            snprintf(dir, sizeof dir, "%s/%s", workdir, parts[i]);
            remove_tree(dir);
        }
    }
    test_seed_from_match_id();

    if (check_failures)
        printf("work files kept in %s\n", workdir);
    else
        remove_tree(workdir);
    return check_done("referee_hidden");
}
