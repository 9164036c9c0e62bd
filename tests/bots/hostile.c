/* hostile.c -- maat-hostile-bot: a test bot that misbehaves on purpose.
 *
 * Built on raw libzmq (a DEALER) and msgpack-c, not on the SDK bot loop
 * (which is well-behaved by construction); the SDK is used only to decode
 * what the referee sends and to encode actions.  `--mode M` picks the
 * misbehaviour; `--after K` plays well for the first K requests first.
 *
 *   good          random legal actions from the request's `legal` list
 *   silent        says hello, then never answers
 *   late          answers each request after sleeping --delay MS
 *   garbage       answers with random bytes that are not msgpack
 *   huge          answers with a 100 MB message
 *   illegal       a well-formed action of the right kind that is not legal
 *   wrongkind     a well-formed action of another decision kind
 *   twice         answers each request twice
 *   flood         answers each request --count times (default 300)
 *   multipart     answers with a 2-frame message
 *   crash         abort()s on request K+1
 *   nohello       exits before saying hello
 *   sleepy-hello  never says hello, stays alive
 *   steal         says hello with --token (another seat's), then plays well
 *
 * Modes for the second hostile suite (tests/test_referee_hostile2.py):
 *
 *   slow          plays well, sleeping --delay MS before each answer
 *   partial       not a bot: a raw TCP connection to a tcp:// endpoint that
 *                 sends part of ZMTP and stalls (--stage greeting: half the
 *                 signature; handshake: the greeting and half a READY;
 *                 frame: a full NULL handshake, then part of a message
 *                 frame); waits for the referee to drop it (NAME.dropped)
 *   reconnect-storm  --count (300) fresh DEALER connections, each saying
 *                 hello with a wrong token; every other one waits for the
 *                 reply, the rest hang up at once (NAME.storm: counts)
 *   second-claim  says hello with --token (a seat already playing), then
 *                 sends --count actions with seqs 0..count-1 anyway
 *                 (NAME.claim: what came back)
 *   forker        forks --count (1000) children that sleep forever (with
 *                 --escape each calls setsid() first), then plays well
 *                 (NAME.forked: how many, and the errno that stopped it)
 *   hog           at request K+1 mallocs and touches 16 MiB blocks until
 *                 malloc fails (at most --count MiB if given, else 8 GiB),
 *                 writes NAME.hog, then aborts like a bot out of memory
 *   ignore-term   plays well, ignores SIGTERM, never leaves on bye
 *   spam          a child writes to stdout and stderr without pause; the
 *                 bot itself writes --count KiB (1024) to each before every
 *                 answer, and plays well (NAME.spam: bytes it wrote)
 *   other-game    answers with a legal action of another game (Pyramix in
 *                 a Pyramids match, Pyramids in any other), right seq
 *   other-seat    answers well, then, if no request of its own follows
 *                 within --delay MS, sends another legal action with the
 *                 next seq -- another seat's request -- up to --count times
 *                 (NAME.forged: how many)
 *   spin          answers well at once, while --count threads (4) burn CPU
 *                 all match long (an opponent that would take your CPU)
 *
 * A bot that has started misbehaving ignores `bye` and stays alive, so the
 * referee has to end it.  Files written into $MAAT_PIDFILE_DIR (if set),
 * each atomically (write + rename), for tests to wait on:
 *   NAME.pid        the pid, at start
 *   NAME.welcome    the seat, when welcomed
 *   NAME.reject     the reason, when refused
 *   NAME.request    the seq, at the first request
 *   NAME-child.pid  with --fork: the pid of a child left running
 * NAME is $MAAT_BOT_NAME, --name, or "hostile".
 */
#define _GNU_SOURCE /* setsid, getaddrinfo */
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "maat/game.h"
#include "maat/internal/msg.h"
#include "maat/protocol.h"
#include "maat/rng.h"

enum {
    M_GOOD, M_SILENT, M_LATE, M_GARBAGE, M_HUGE, M_ILLEGAL, M_WRONGKIND,
    M_TWICE, M_FLOOD, M_MULTIPART, M_CRASH, M_NOHELLO, M_SLEEPY_HELLO,
    M_STEAL, M_SLOW, M_PARTIAL, M_STORM, M_CLAIM, M_FORKER, M_HOG,
    M_IGNORE_TERM, M_SPAM, M_OTHER_GAME, M_OTHER_SEAT, M_SPIN, M_MODES
};
static const char *const mode_names[M_MODES] = {
    "good", "silent", "late", "garbage", "huge", "illegal", "wrongkind",
    "twice", "flood", "multipart", "crash", "nohello", "sleepy-hello",
    "steal", "slow", "partial", "reconnect-storm", "second-claim", "forker",
    "hog", "ignore-term", "spam", "other-game", "other-seat", "spin"};

#define HUGE_BYTES (100u << 20)
#define MAX_LEGAL 4096

typedef struct hbot {
    int mode;
    long after, delay_ms, count, idle_ms;
    int count_set, escape;
    const char *name, *token, *endpoint, *dir, *stage;
    long forged;
    uint64_t spammed;
    void *ctx, *sock;
    const maat_rules *rules;
    int seat, seats;
    long requests;
    int misbehaving;
    maat_rng rng;
    maat_action legal[MAX_LEGAL];
} hbot;

static void usage(FILE *f)
{
    fprintf(f,
"usage: maat-hostile-bot --mode MODE [--after K] [--delay MS] [--count N]\n"
"                        [--token T] [--name N] [--endpoint EP] [--seed S]\n"
"                        [--idle MS] [--ignore-term] [--fork]\n"
"                        [--stage greeting|handshake|frame] [--escape]\n"
"A test bot that misbehaves.  MODE is one of:\n");
    for (int i = 0; i < M_MODES; i++)
        fprintf(f, "  %s\n", mode_names[i]);
    fprintf(f,
"Reads %s, %s and %s from the environment unless given;\n"
"writes NAME.pid (and readiness files) into $MAAT_PIDFILE_DIR if set.\n",
            MAAT_ENV_ENDPOINT, MAAT_ENV_TOKEN, MAAT_ENV_NAME);
}

/* ---- marker files --------------------------------------------------- */

static void write_marker(const hbot *b, const char *suffix, const char *fmt,
                         ...) __attribute__((format(printf, 3, 4)));
static void write_marker(const hbot *b, const char *suffix, const char *fmt,
                         ...)
{
    if (!b->dir)
        return;
    char path[1024], tmp[1100];
    snprintf(path, sizeof path, "%s/%s%s", b->dir, b->name, suffix);
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        perror(tmp);
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        perror(path);
        unlink(tmp);
    }
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* ---- sending -------------------------------------------------------- */

static void send_bytes(hbot *b, const void *data, size_t len, int flags)
{
    if (zmq_send(b->sock, data, len, flags) < 0)
        fprintf(stderr, "%s: send failed: %s\n", b->name,
                zmq_strerror(zmq_errno()));
}

static void send_sbuf(hbot *b, msgpack_sbuffer *sb, int flags)
{
    send_bytes(b, sb->data, sb->size, flags);
}

/* {type: action, seq, action} into sb (initialised here). */
static void pack_action(hbot *b, int64_t seq, const maat_action *a,
                        msgpack_sbuffer *sb)
{
    msgpack_sbuffer_init(sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 3);
    maat_pack_kv_str(&pk, "type", "action");
    maat_pack_kv_int(&pk, "seq", seq);
    maat_pack_str(&pk, "action");
    b->rules->encode_action(NULL, a, &pk);
}

static void send_action(hbot *b, int64_t seq, const maat_action *a)
{
    msgpack_sbuffer sb;
    pack_action(b, seq, a, &sb);
    send_sbuf(b, &sb, 0);
    msgpack_sbuffer_destroy(&sb);
}

static void send_hello(hbot *b)
{
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 4);
    maat_pack_kv_str(&pk, "type", "hello");
    maat_pack_kv_int(&pk, "version", MAAT_PROTOCOL_VERSION);
    maat_pack_kv_str(&pk, "token", b->token);
    maat_pack_kv_str(&pk, "name", b->name);
    send_sbuf(b, &sb, 0);
    msgpack_sbuffer_destroy(&sb);
}

static void free_huge(void *data, void *hint)
{
    (void)hint;
    free(data);
}

/* ---- choosing actions ----------------------------------------------- */

static int in_legal(const hbot *b, int n, int kind, int arg0)
{
    for (int i = 0; i < n; i++)
        if (b->legal[i].kind == kind && b->legal[i].arg[0] == arg0)
            return 1;
    return 0;
}

/* A structurally valid action of the decision's kind whose first argument
 * no legal action has: a god tile already taken, a pair index that is
 * taken or beyond the seats, a card not in the hand.  Falls back to a
 * build at an impossible spot, or (a god choice with every tile free) to
 * an action of another kind: illegal either way. */
static void illegal_action(hbot *b, int n, maat_action *out)
{
    static const int hi[] = {5, 4, 104, 104}; /* god, pair, build, keep */
    static const int lo[] = {1, 0, 0, 0};
    *out = b->legal[0];
    int kind = out->kind;
    if (kind >= 0 && kind < 4) {
        int span = hi[kind] - lo[kind] + 1;
        int start = (int)maat_rng_below(&b->rng, (uint32_t)span);
        for (int k = 0; k < span; k++) {
            int v = lo[kind] + (start + k) % span;
            if (!in_legal(b, n, kind, v)) {
                out->arg[0] = v;
                return;
            }
        }
    }
    /* every first argument is legal: change the kind instead */
    memset(out, -1, sizeof *out);
    out->kind = kind == 0 ? 1 : 0;
    out->arg[0] = kind == 0 ? 0 : 1;
}

/* A well-formed action of another decision kind. */
static void wrongkind_action(hbot *b, maat_action *out)
{
    memset(out, -1, sizeof *out);
    if (b->legal[0].kind == 0) { /* god -> pair */
        out->kind = 1;
        out->arg[0] = 0;
    } else { /* anything else -> god */
        out->kind = 0;
        out->arg[0] = 1;
    }
}

/* spin mode: a thread that never stops computing. */
static void *spin(void *arg)
{
    volatile uint64_t x = (uintptr_t)arg;
    for (;;)
        x = x * 6364136223846793005ULL + 1;
    return NULL;
}

/* The count for this mode: --count if given, else the mode's default. */
static long mode_count(const hbot *b, long dflt)
{
    return b->count_set ? b->count : dflt;
}

/* A legal action of a game other than the one being played, packed as a
 * complete {type: action, seq, action} message into sb. */
static int pack_other_game(hbot *b, int64_t seq, msgpack_sbuffer *sb)
{
    /* Pyramix for a Pyramids match, Pyramids for any other game; else
     * whichever other game is registered first */
    int count = 0;
    const maat_rules *const *all = maat_rules_all(&count), *o = NULL;
    o = maat_rules_find(strcmp(b->rules->name, "pyramids") ? "pyramids"
                                                           : "pyramix");
    for (int i = 0; i < count && (!o || o == b->rules); i++)
        if (all[i] != b->rules)
            o = all[i];
    if (o == b->rules)
        o = NULL;
    if (!o)
        return -1;
    maat_options opt = {0};
    maat_error err = {0};
    maat_setup *s = o->setup_new(&opt, &err);
    int seats = b->seats < o->min_seats   ? o->min_seats
                : b->seats > o->max_seats ? o->max_seats
                                          : b->seats;
    maat_seed deal;
    maat_seed_from_u64(&deal, 1 + (uint64_t)seq);
    maat_game *g = s ? o->game_new(s, &deal, seats, NULL, &err) : NULL;
    maat_action la[64];
    int n = g ? o->legal_actions(g, la, 64) : 0;
    if (n > 64)
        n = 64;
    if (n > 0) {
        msgpack_sbuffer_init(sb);
        msgpack_packer pk;
        msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
        msgpack_pack_map(&pk, 3);
        maat_pack_kv_str(&pk, "type", "action");
        maat_pack_kv_int(&pk, "seq", seq);
        maat_pack_str(&pk, "action");
        o->encode_action(g, &la[maat_rng_below(&b->rng, (uint32_t)n)], &pk);
    } else {
        fprintf(stderr, "%s: no legal %s action: %s\n", b->name, o->name,
                err.msg);
    }
    if (g)
        o->destroy(&g);
    if (s)
        o->setup_destroy(&s);
    return n > 0 ? 0 : -1;
}

/* Allocate and touch memory until malloc fails (or the cap), then die as
 * a bot out of memory would.  The blocks are chained from a global so the
 * compiler cannot drop the allocations. */
static void *volatile hog_head;

static _Noreturn void hog(hbot *b)
{
    enum { BLOCK = 16 << 20 };
    uint64_t cap = (uint64_t)mode_count(b, 8192) << 20, total = 0;
    int hit = 0;
    while (total < cap) {
        char *p = malloc(BLOCK);
        if (!p) {
            hit = 1;
            break;
        }
        memset(p, 0x5a, BLOCK);
        *(void **)p = hog_head;
        hog_head = p;
        total += BLOCK;
    }
    write_marker(b, ".hog", "%llu %d\n", (unsigned long long)total, hit);
    fprintf(stderr, "%s: allocated %llu bytes, then %s; aborting\n", b->name,
            (unsigned long long)total,
            hit ? "malloc failed" : "reached the cap");
    abort();
}

/* Write --count KiB to stdout and to stderr (spam mode). */
static void spam_burst(hbot *b)
{
    static char buf[64 * 1024];
    if (!buf[0]) {
        memset(buf, 'x', sizeof buf);
        buf[sizeof buf - 1] = '\n';
    }
    uint64_t want = (uint64_t)mode_count(b, 1024) * 1024;
    for (int fd = 1; fd <= 2; fd++)
        for (uint64_t done = 0; done < want;) {
            size_t n = want - done < sizeof buf ? (size_t)(want - done)
                                                : sizeof buf;
            ssize_t w = write(fd, buf, n);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                break;
            done += (uint64_t)w;
            b->spammed += (uint64_t)w;
        }
    write_marker(b, ".spam", "%llu\n", (unsigned long long)b->spammed);
}

/* A child of the bot (same process group) that writes to stdout and
 * stderr as fast as the pipe takes it, forever. */
static void spam_child(void)
{
    pid_t c = fork();
    if (c != 0)
        return;
    static char buf[64 * 1024];
    memset(buf, 'S', sizeof buf);
    buf[sizeof buf - 1] = '\n';
    for (unsigned i = 0;; i++)
        if (write(i & 1 ? 2 : 1, buf, sizeof buf) < 0 && errno != EINTR)
            _exit(0);
}

/* Fork --count children that sleep forever; with --escape each leaves the
 * bot's process group and session first. */
static void forker(hbot *b)
{
    long want = mode_count(b, 1000), made = 0;
    int e = 0;
    for (; made < want; made++) {
        pid_t c = fork();
        if (c < 0) {
            e = errno;
            break;
        }
        if (c == 0) {
            if (b->escape)
                (void)setsid();
            for (;;)
                pause();
        }
    }
    fprintf(stderr, "%s: forked %ld of %ld children%s%s\n", b->name, made,
            want, e ? ": " : "", e ? strerror(e) : "");
    write_marker(b, ".forked", "%ld %d\n", made, e);
}

/* ---- modes that are not a seated bot -------------------------------- */

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A raw TCP connection that sends part of ZMTP 3.0 and stalls; then waits
 * (up to --idle) for the referee to hang up. */
static int run_partial(hbot *b)
{
    const char *stage = b->stage ? b->stage : "frame";
    if (strcmp(stage, "greeting") && strcmp(stage, "handshake") &&
        strcmp(stage, "frame")) {
        fprintf(stderr, "%s: --stage is greeting, handshake or frame\n",
                b->name);
        return 2;
    }
    if (!b->endpoint || strncmp(b->endpoint, "tcp://", 6) != 0) {
        fprintf(stderr, "%s: partial needs a tcp:// endpoint\n", b->name);
        return 2;
    }
    char host[256], *colon;
    snprintf(host, sizeof host, "%s", b->endpoint + 6);
    colon = strrchr(host, ':');
    if (!colon) {
        fprintf(stderr, "%s: no port in %s\n", b->name, b->endpoint);
        return 2;
    }
    *colon = 0;
    const char *port = colon + 1, *h = host;
    if (!strcmp(h, "*") || !strcmp(h, "0.0.0.0"))
        h = "127.0.0.1";
    struct addrinfo hints = {0}, *ai = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(h, port, &hints, &ai) != 0 || !ai) {
        fprintf(stderr, "%s: cannot resolve %s\n", b->name, b->endpoint);
        return 1;
    }
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
        fprintf(stderr, "%s: cannot connect to %s: %s\n", b->name,
                b->endpoint, strerror(errno));
        freeaddrinfo(ai);
        if (fd >= 0)
            close(fd);
        return 1;
    }
    freeaddrinfo(ai);
    /* greeting: signature, version 3.0, mechanism NULL, as-server 0 */
    unsigned char out[256];
    size_t n = 0;
    memset(out, 0, sizeof out);
    out[0] = 0xff;
    out[8] = 0x01;
    out[9] = 0x7f;
    out[10] = 3;
    out[11] = 0;
    memcpy(out + 12, "NULL", 4);
    n = 64;
    /* READY with Socket-Type = DEALER */
    static const unsigned char ready[] = {
        0x04, 28, 5, 'R', 'E', 'A', 'D', 'Y', 11, 'S', 'o', 'c', 'k', 'e',
        't', '-', 'T', 'y', 'p', 'e', 0, 0, 0, 6, 'D', 'E', 'A', 'L', 'E',
        'R'};
    if (!strcmp(stage, "greeting")) {
        n = 5; /* half the signature */
    } else if (!strcmp(stage, "handshake")) {
        memcpy(out + n, ready, 10); /* the greeting, half a READY */
        n += 10;
    } else {
        memcpy(out + n, ready, sizeof ready);
        n += sizeof ready;
        out[n++] = 0x00; /* a short message frame of 200 bytes ... */
        out[n++] = 200;
        memset(out + n, 0x81, 20); /* ... of which 20 arrive */
        n += 20;
    }
    if (send(fd, out, n, MSG_NOSIGNAL) != (ssize_t)n) {
        fprintf(stderr, "%s: send failed: %s\n", b->name, strerror(errno));
        close(fd);
        return 1;
    }
    write_marker(b, ".partial", "%s %zu\n", stage, n);
    int64_t t0 = mono_ms(), deadline = t0 + b->idle_ms;
    for (;;) {
        int64_t left = deadline - mono_ms();
        if (left <= 0) {
            write_marker(b, ".stalled", "%lld\n", (long long)(mono_ms() - t0));
            break;
        }
        struct timeval tv = {left / 1000, (left % 1000) * 1000};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        char buf[512];
        ssize_t r = recv(fd, buf, sizeof buf, 0);
        if (r > 0 || (r < 0 && errno == EINTR))
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            continue;
        write_marker(b, ".dropped", "%lld\n", (long long)(mono_ms() - t0));
        break;
    }
    close(fd);
    return 0;
}

static void *new_dealer(void *ctx)
{
    void *s = zmq_socket(ctx, ZMQ_DEALER);
    int zero = 0;
    int64_t max = MAAT_MAX_REFEREE_MESSAGE;
    zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof zero);
    zmq_setsockopt(s, ZMQ_MAXMSGSIZE, &max, sizeof max);
    return s;
}

/* The type of a message from the referee ("" when undecodable). */
static void reply_type(zmq_msg_t *msg, char *type, size_t len, char *reason,
                       size_t rlen)
{
    msgpack_unpacked u;
    type[0] = 0;
    if (reason)
        reason[0] = 0;
    if (maat_msg_unpack(zmq_msg_data(msg), zmq_msg_size(msg), &u, NULL) ==
        MAAT_OK) {
        const msgpack_object *t = maat_msg_get(&u.data, "type");
        if (t && t->type == MSGPACK_OBJECT_STR && t->via.str.size < len) {
            memcpy(type, t->via.str.ptr, t->via.str.size);
            type[t->via.str.size] = 0;
        }
        const msgpack_object *r = maat_msg_get(&u.data, "reason");
        if (reason && r && r->type == MSGPACK_OBJECT_STR &&
            r->via.str.size < rlen) {
            memcpy(reason, r->via.str.ptr, r->via.str.size);
            reason[r->via.str.size] = 0;
        }
    }
    msgpack_unpacked_destroy(&u);
}

/* Wait up to ms for one message on s; its type in type ("" if none). */
static int await_reply(void *s, long ms, char *type, size_t len,
                       char *reason, size_t rlen)
{
    zmq_pollitem_t item = {s, 0, ZMQ_POLLIN, 0};
    int64_t deadline = mono_ms() + ms;
    type[0] = 0;
    for (;;) {
        int64_t left = deadline - mono_ms();
        if (left < 0)
            return 0;
        int r = zmq_poll(&item, 1, (long)left);
        if (r < 0 && zmq_errno() == EINTR)
            continue;
        if (r <= 0)
            return 0;
        zmq_msg_t msg;
        zmq_msg_init(&msg);
        if (zmq_msg_recv(&msg, s, 0) < 0) {
            zmq_msg_close(&msg);
            continue;
        }
        reply_type(&msg, type, len, reason, rlen);
        zmq_msg_close(&msg);
        return 1;
    }
}

/* Many fresh connections, each saying hello with a wrong token. */
static int run_storm(hbot *b)
{
    long n = mode_count(b, 300), rejected = 0, welcomed = 0, noreply = 0,
         quick = 0, other = 0;
    b->ctx = zmq_ctx_new();
    const char *real_token = b->token;
    for (long i = 0; i < n; i++) {
        char tok[96];
        snprintf(tok, sizeof tok, "storm-%d-%ld", (int)getpid(), i);
        b->sock = new_dealer(b->ctx);
        b->token = tok;
        if (zmq_connect(b->sock, b->endpoint) != 0) {
            fprintf(stderr, "%s: cannot connect to %s: %s\n", b->name,
                    b->endpoint, zmq_strerror(zmq_errno()));
            zmq_close(b->sock);
            break;
        }
        send_hello(b);
        if (i % 2 == 0) {
            char type[32];
            if (!await_reply(b->sock, 3000, type, sizeof type, NULL, 0))
                noreply++;
            else if (!strcmp(type, "reject"))
                rejected++;
            else if (!strcmp(type, "welcome"))
                welcomed++;
            else
                other++;
        } else {
            quick++; /* hang up at once, reply or not */
        }
        zmq_close(b->sock);
    }
    b->token = real_token;
    b->sock = NULL;
    write_marker(b, ".storm", "hellos %ld rejected %ld welcomed %ld "
                 "noreply %ld other %ld quick %ld\n", n, rejected, welcomed,
                 noreply, other, quick);
    zmq_ctx_term(b->ctx);
    return 0;
}

/* A hello with a token whose seat is already playing, then blind actions
 * as if the seat were ours. */
static int run_claim(hbot *b)
{
    b->ctx = zmq_ctx_new();
    b->sock = new_dealer(b->ctx);
    int rc = 1;
    if (zmq_connect(b->sock, b->endpoint) != 0) {
        fprintf(stderr, "%s: cannot connect to %s: %s\n", b->name,
                b->endpoint, zmq_strerror(zmq_errno()));
        goto out;
    }
    send_hello(b);
    char type[32], reason[128];
    if (!await_reply(b->sock, b->idle_ms, type, sizeof type, reason,
                     sizeof reason)) {
        write_marker(b, ".claim", "noreply\n");
        goto out;
    }
    if (!strcmp(type, "welcome"))
        write_marker(b, ".welcome", "claimed\n");
    long n = mode_count(b, 20), replies = 0;
    for (long seq = 0; seq < n; seq++) {
        msgpack_sbuffer sb;
        msgpack_sbuffer_init(&sb);
        msgpack_packer pk;
        msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
        msgpack_pack_map(&pk, 3);
        maat_pack_kv_str(&pk, "type", "action");
        maat_pack_kv_int(&pk, "seq", seq);
        maat_pack_str(&pk, "action");
        msgpack_pack_map(&pk, 2);
        maat_pack_kv_str(&pk, "kind", "god");
        maat_pack_kv_int(&pk, "tile", 1 + seq % 5);
        send_sbuf(b, &sb, 0);
        msgpack_sbuffer_destroy(&sb);
    }
    char t2[32];
    while (await_reply(b->sock, 500, t2, sizeof t2, NULL, 0))
        replies++;
    write_marker(b, ".claim", "%s %s|actions %ld replies %ld\n", type,
                 reason, n, replies);
    rc = 0;
out:
    zmq_close(b->sock);
    zmq_ctx_term(b->ctx);
    return rc;
}

/* ---- the messages --------------------------------------------------- */

static void misbehave(hbot *b, int64_t seq, int n)
{
    int k = (int)maat_rng_below(&b->rng, (uint32_t)n);
    maat_action a = b->legal[k];
    switch (b->mode) {
    case M_HOG:
        hog(b);
    case M_OTHER_GAME: {
        msgpack_sbuffer sb;
        if (pack_other_game(b, seq, &sb) == 0) {
            send_sbuf(b, &sb, 0);
            msgpack_sbuffer_destroy(&sb);
        }
        return;
    }
    case M_OTHER_SEAT: {
        send_action(b, seq, &a);
        if (b->forged >= mode_count(b, 10))
            return;
        /* a request of our own right behind this one: not a forgery */
        zmq_pollitem_t item = {b->sock, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&item, 1, b->delay_ms) != 0)
            return;
        maat_action other = b->legal[(k + 1) % n];
        send_action(b, seq + 1, &other);
        b->forged++;
        write_marker(b, ".forged", "%ld\n", b->forged);
        return;
    }
    case M_SILENT:
        return;
    case M_LATE:
        sleep_ms(b->delay_ms);
        send_action(b, seq, &a);
        return;
    case M_GARBAGE: {
        /* 0xc1 is the one byte msgpack never uses: never decodable */
        unsigned char junk[64];
        size_t len = 8 + maat_rng_below(&b->rng, sizeof junk - 8);
        junk[0] = 0xc1;
        for (size_t i = 1; i < len; i++)
            junk[i] = (unsigned char)maat_rng_next(&b->rng);
        send_bytes(b, junk, len, 0);
        return;
    }
    case M_HUGE: {
        char *big = malloc(HUGE_BYTES);
        if (!big) {
            fprintf(stderr, "%s: cannot allocate the huge message\n",
                    b->name);
            return;
        }
        memset(big, 0xc1, HUGE_BYTES);
        zmq_msg_t msg;
        zmq_msg_init_data(&msg, big, HUGE_BYTES, free_huge, NULL);
        if (zmq_msg_send(&msg, b->sock, 0) < 0) {
            fprintf(stderr, "%s: huge send failed: %s\n", b->name,
                    zmq_strerror(zmq_errno()));
            zmq_msg_close(&msg);
        }
        return;
    }
    case M_ILLEGAL:
        illegal_action(b, n, &a);
        send_action(b, seq, &a);
        return;
    case M_WRONGKIND:
        wrongkind_action(b, &a);
        send_action(b, seq, &a);
        return;
    case M_TWICE:
        send_action(b, seq, &a);
        send_action(b, seq, &a);
        return;
    case M_FLOOD: {
        msgpack_sbuffer sb;
        pack_action(b, seq, &a, &sb);
        for (long i = 0; i < b->count; i++)
            send_sbuf(b, &sb, 0);
        msgpack_sbuffer_destroy(&sb);
        return;
    }
    case M_MULTIPART: {
        msgpack_sbuffer sb;
        pack_action(b, seq, &a, &sb);
        send_sbuf(b, &sb, ZMQ_SNDMORE);
        send_sbuf(b, &sb, 0);
        msgpack_sbuffer_destroy(&sb);
        return;
    }
    case M_CRASH:
        fprintf(stderr, "%s: aborting at request %ld as asked\n", b->name,
                b->requests);
        abort();
    default:
        send_action(b, seq, &a);
        return;
    }
}

static int on_request(hbot *b, const msgpack_object *m)
{
    maat_error err = {0};
    int64_t seq;
    if (!b->rules ||
        maat_msg_get_int(m, "seq", 0, INT64_MAX, &seq, &err)) {
        fprintf(stderr, "%s: bad request: %s\n", b->name, err.msg);
        return -1;
    }
    const msgpack_object *legal = maat_msg_get(m, "legal");
    if (!legal || legal->type != MSGPACK_OBJECT_ARRAY ||
        legal->via.array.size == 0) {
        fprintf(stderr, "%s: request without legal actions\n", b->name);
        return -1;
    }
    int n = legal->via.array.size > MAX_LEGAL ? MAX_LEGAL
                                              : (int)legal->via.array.size;
    for (int i = 0; i < n; i++)
        if (b->rules->decode_action(NULL, &legal->via.array.ptr[i],
                                    &b->legal[i], &err)) {
            fprintf(stderr, "%s: bad legal action: %s\n", b->name, err.msg);
            return -1;
        }
    if (++b->requests == 1)
        write_marker(b, ".request", "%lld\n", (long long)seq);
    int plays_well = b->mode == M_GOOD || b->mode == M_STEAL ||
                     b->mode == M_SLOW || b->mode == M_FORKER ||
                     b->mode == M_SPAM || b->mode == M_IGNORE_TERM ||
                     b->mode == M_SPIN;
    if (b->mode == M_SPAM)
        spam_burst(b);
    if (b->mode == M_SLOW)
        sleep_ms(b->delay_ms);
    if (b->requests > b->after && !plays_well) {
        b->misbehaving = 1;
        misbehave(b, seq, n);
    } else {
        send_action(b, seq, &b->legal[maat_rng_below(&b->rng, (uint32_t)n)]);
    }
    return 0;
}

/* 1 = leave (exit 0), 0 = go on, -1 = error. */
static int on_message(hbot *b, const void *data, size_t len)
{
    msgpack_unpacked u;
    maat_error err = {0};
    int rc = 0;
    if (maat_msg_unpack(data, len, &u, &err)) {
        fprintf(stderr, "%s: undecodable message: %s\n", b->name, err.msg);
        msgpack_unpacked_destroy(&u);
        return -1;
    }
    const msgpack_object *m = &u.data, *type = maat_msg_get(m, "type");
    if (maat_msg_str_eq(type, "welcome")) {
        const msgpack_object *game = maat_msg_get(m, "game");
        char name[64] = "";
        if (game && game->type == MSGPACK_OBJECT_STR &&
            game->via.str.size < sizeof name)
            memcpy(name, game->via.str.ptr, game->via.str.size);
        b->rules = maat_rules_find(name);
        if (!b->rules) {
            fprintf(stderr, "%s: unknown game '%s'\n", b->name, name);
            rc = -1;
        } else {
            write_marker(b, ".welcome", "%s\n", name);
        }
    } else if (maat_msg_str_eq(type, "reject")) {
        const msgpack_object *r = maat_msg_get(m, "reason");
        int rl = r && r->type == MSGPACK_OBJECT_STR ? (int)r->via.str.size : 0;
        const char *rp = rl ? r->via.str.ptr : "";
        fprintf(stderr, "%s: refused: %.*s\n", b->name, rl, rp);
        write_marker(b, ".reject", "%.*s\n", rl, rp);
        rc = 1;
    } else if (maat_msg_str_eq(type, "start")) {
        int64_t seat = -1, seats = 0;
        maat_msg_get_int(m, "seat", 0, MAAT_MAX_SEATS - 1, &seat, &err);
        maat_msg_get_int(m, "seats", 1, MAAT_MAX_SEATS, &seats, &err);
        b->seat = (int)seat;
        b->seats = (int)seats;
    } else if (maat_msg_str_eq(type, "request")) {
        rc = on_request(b, m);
    } else if (maat_msg_str_eq(type, "bye")) {
        /* a bot that misbehaves does not leave: the referee must end it */
        rc = b->misbehaving ? 0 : 1;
    }
    msgpack_unpacked_destroy(&u);
    return rc;
}

/* ---- main ----------------------------------------------------------- */

static long num_arg(const char *opt, const char *v)
{
    char *end;
    long n = v ? strtol(v, &end, 10) : -1;
    if (!v || !*v || *end || n < 0) {
        fprintf(stderr, "maat-hostile-bot: %s wants a number >= 0\n", opt);
        exit(2);
    }
    return n;
}

int main(int argc, char **argv)
{
    static hbot b;
    b.mode = -1;
    b.delay_ms = 1500;
    b.count = 300;
    b.idle_ms = 120000;
    b.endpoint = getenv(MAAT_ENV_ENDPOINT);
    b.token = getenv(MAAT_ENV_TOKEN);
    b.name = getenv(MAAT_ENV_NAME);
    b.dir = getenv("MAAT_PIDFILE_DIR");
    uint64_t seed = 0;
    int ignore_term = 0, do_fork = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--ignore-term")) {
            ignore_term = 1;
            continue;
        } else if (!strcmp(a, "--fork")) {
            do_fork = 1;
            continue;
        } else if (!strcmp(a, "--escape")) {
            b.escape = 1;
            continue;
        }
        if (!v) {
            fprintf(stderr, "maat-hostile-bot: '%s' needs a value\n", a);
            return 2;
        }
        i++;
        if (!strcmp(a, "--mode")) {
            for (int k = 0; k < M_MODES; k++)
                if (!strcmp(v, mode_names[k]))
                    b.mode = k;
            if (b.mode < 0) {
                fprintf(stderr, "maat-hostile-bot: unknown mode '%s'\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--after")) {
            b.after = num_arg(a, v);
        } else if (!strcmp(a, "--delay")) {
            b.delay_ms = num_arg(a, v);
        } else if (!strcmp(a, "--count")) {
            b.count = num_arg(a, v);
            b.count_set = 1;
        } else if (!strcmp(a, "--idle")) {
            b.idle_ms = num_arg(a, v);
        } else if (!strcmp(a, "--seed")) {
            seed = (uint64_t)num_arg(a, v);
        } else if (!strcmp(a, "--token")) {
            b.token = v;
        } else if (!strcmp(a, "--name")) {
            b.name = v;
        } else if (!strcmp(a, "--endpoint")) {
            b.endpoint = v;
        } else if (!strcmp(a, "--stage")) {
            b.stage = v;
        } else {
            fprintf(stderr, "maat-hostile-bot: unknown option '%s'\n", a);
            return 2;
        }
    }
    if (b.mode < 0) {
        usage(stderr);
        return 2;
    }
    if (!b.name || !*b.name)
        b.name = "hostile";
    if (ignore_term)
        signal(SIGTERM, SIG_IGN);
    write_marker(&b, ".pid", "%d\n", (int)getpid());
    if (do_fork) {
        pid_t child = fork();
        if (child == 0) { /* a grandchild of the referee, left running */
            write_marker(&b, "-child.pid", "%d\n", (int)getpid());
            for (;;)
                pause();
        }
    }
    if (b.mode == M_FORKER)
        forker(&b);
    if (b.mode == M_SPAM)
        spam_child();
    if (b.mode == M_SPIN) /* --count threads burning CPU all match long */
        for (long i = 0; i < mode_count(&b, 4); i++) {
            pthread_t th;
            pthread_create(&th, NULL, spin, NULL);
        }
    if (b.mode == M_IGNORE_TERM) {
        signal(SIGTERM, SIG_IGN);
        b.misbehaving = 1; /* plays well, but never leaves */
    }
    maat_seed rs;
    maat_rng_seed(&b.rng, maat_seed_from_u64(&rs, seed ? seed
                                                  : (uint64_t)getpid() *
                                                        2654435761u));
    if (b.mode == M_PARTIAL)
        return run_partial(&b);
    if ((b.mode == M_STORM || b.mode == M_CLAIM) && !b.endpoint) {
        fprintf(stderr, "%s: set %s (or --endpoint)\n", b.name,
                MAAT_ENV_ENDPOINT);
        return 2;
    }
    if (b.mode == M_STORM)
        return run_storm(&b);
    if (b.mode == M_NOHELLO) {
        fprintf(stderr, "%s: leaving before hello as asked\n", b.name);
        return 3;
    }
    if (!b.endpoint || !b.token) {
        fprintf(stderr, "%s: set %s and %s (or --endpoint, --token)\n",
                b.name, MAAT_ENV_ENDPOINT, MAAT_ENV_TOKEN);
        return 2;
    }
    if (b.mode == M_CLAIM)
        return run_claim(&b);

    b.ctx = zmq_ctx_new();
    b.sock = zmq_socket(b.ctx, ZMQ_DEALER);
    int zero = 0;
    int64_t max = MAAT_MAX_REFEREE_MESSAGE;
    zmq_setsockopt(b.sock, ZMQ_LINGER, &zero, sizeof zero);
    zmq_setsockopt(b.sock, ZMQ_MAXMSGSIZE, &max, sizeof max);
    int rc = 1;
    if (zmq_connect(b.sock, b.endpoint) != 0) {
        fprintf(stderr, "%s: cannot connect to %s: %s\n", b.name, b.endpoint,
                zmq_strerror(zmq_errno()));
        goto out;
    }
    if (b.mode != M_SLEEPY_HELLO)
        send_hello(&b);
    for (;;) {
        zmq_pollitem_t item = {b.sock, 0, ZMQ_POLLIN, 0};
        int n = zmq_poll(&item, 1, b.idle_ms);
        if (n < 0 && zmq_errno() == EINTR)
            continue;
        if (n <= 0) {
            fprintf(stderr, "%s: nothing for %ld ms; leaving\n", b.name,
                    b.idle_ms);
            goto out;
        }
        zmq_msg_t msg;
        zmq_msg_init(&msg);
        if (zmq_msg_recv(&msg, b.sock, 0) < 0) {
            zmq_msg_close(&msg);
            continue;
        }
        int r = b.mode == M_SLEEPY_HELLO
                    ? 0
                    : on_message(&b, zmq_msg_data(&msg), zmq_msg_size(&msg));
        zmq_msg_close(&msg);
        if (r < 0)
            goto out;
        if (r > 0) {
            rc = 0;
            goto out;
        }
    }
out:
    zmq_close(b.sock);
    zmq_ctx_term(b.ctx);
    return rc;
}
