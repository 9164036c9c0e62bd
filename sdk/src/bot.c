/* bot.c -- the bot side of the protocol: connect a DEALER to the referee,
 * say hello, answer requests through the author's function, leave on bye.
 * Everything the referee sends is checked (maat_msg_unpack) before use, and
 * every wait has a deadline, so a broken referee cannot hang a bot. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

#include "maat/bot.h"
#include "maat/internal/msg.h"
#include "maat/protocol.h"

typedef struct bot {
    const maat_bot_options *opt;
    void *ctx, *sock;
    const maat_rules *rules;
    maat_setup *setup;
    maat_view *view;
    int seat;
    maat_rng rng;
    maat_action *legal;
    int legal_cap;
    int welcomed;
    int version;         /* offered in the hello, then the welcome's */
    int64_t resync_seq;  /* the request we asked to see again, or -1 */
    int64_t resync_ns;   /* when its first copy arrived */
    /* Holds the decoded message being handled, cleared for the next one:
     * reusing it saves a zone allocation and free per message.  Nothing
     * decoded may be kept past on_message. */
    msgpack_zone zone;
    int64_t received_ns; /* when the message being handled arrived */
    /* the message being sent, emptied for the next: no buffer allocated,
     * grown and freed per answer */
    msgpack_sbuffer sb;
    msgpack_packer pk;
} bot;

/* The envelope fields of a message from the referee, found in one pass
 * (maat_msg_pickn). */
enum { F_TYPE, F_SEQ, F_GAME_INDEX, F_DECISION, F_OBSERVATION, F_EVENTS,
       F_CLOCK, F_N };
/* in the order a request has them (game_index only to pass over it) */
static const maat_msg_key envelope_keys[F_N] = {
    MAAT_MSG_KEY("type"), MAAT_MSG_KEY("seq"), MAAT_MSG_KEY("game_index"),
    MAAT_MSG_KEY("decision"), MAAT_MSG_KEY("observation"),
    MAAT_MSG_KEY("events"), MAAT_MSG_KEY("clock")};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The packer, writing into the emptied send buffer. */
static msgpack_packer *out(bot *b)
{
    b->sb.size = 0;
    return &b->pk;
}

static int send_out(bot *b)
{
    return zmq_send(b->sock, b->sb.data, b->sb.size, 0) < 0 ? -1 : 0;
}

static int send_hello(bot *b)
{
    msgpack_packer *pk = out(b);
    maat_pack_map(pk, 4);
    maat_pack_kv_str(pk, "type", "hello");
    maat_pack_kv_int(pk, "version", b->version);
    maat_pack_kv_str(pk, "token", b->opt->token);
    maat_pack_kv_str(pk, "name", b->opt->name ? b->opt->name : "bot");
    return send_out(b);
}

/* {type: resync, seq}: the same request again, with its observation. */
static int send_resync(bot *b, int64_t seq)
{
    msgpack_packer *pk = out(b);
    maat_pack_map(pk, 2);
    maat_pack_kv_str(pk, "type", "resync");
    maat_pack_kv_int(pk, "seq", seq);
    return send_out(b);
}

static int on_welcome(bot *b, const msgpack_object *m)
{
    const msgpack_object *game = maat_msg_get(m, "game");
    int64_t version = 0;
    maat_error err = {0};
    /* the referee speaks the version we offered, or (an older one that
     * would not refuse it) a lower one we also speak */
    if (maat_msg_get_int(m, "version", 0, 1000, &version, &err) ||
        version < MAAT_PROTOCOL_VERSION || version > b->version) {
        fprintf(stderr, "%s: referee speaks protocol version %lld, we "
                        "offered %d\n", b->opt->name, (long long)version,
                b->version);
        return -1;
    }
    b->version = (int)version;
    if (!game || game->type != MSGPACK_OBJECT_STR || game->via.str.size > 63) {
        fprintf(stderr, "%s: welcome without a game name\n", b->opt->name);
        return -1;
    }
    char name[64];
    memcpy(name, game->via.str.ptr, game->via.str.size);
    name[game->via.str.size] = 0;
    if (b->rules && b->rules != maat_rules_find(name)) {
        fprintf(stderr, "%s: a second welcome names another game\n",
                b->opt->name);
        return -1;
    }
    b->rules = maat_rules_find(name);
    if (!b->rules) {
        fprintf(stderr, "%s: this SDK does not know the game '%s'\n",
                b->opt->name, name);
        return -1;
    }
    b->welcomed = 1;
    if (b->setup) { /* a second welcome replaces the first */
        b->rules->view_destroy(&b->view);
        b->rules->setup_destroy(&b->setup);
    }
    b->setup = b->rules->setup_decode(maat_msg_get(m, "setup"), &err);
    if (!b->setup) {
        fprintf(stderr, "%s: bad setup in welcome: %s\n", b->opt->name,
                err.msg);
        return -1;
    }
    return 0;
}

/* Room for n legal actions in b->legal. */
static int legal_room(bot *b, int n)
{
    if (n > b->legal_cap) {
        maat_action *a = realloc(b->legal, sizeof *a * (size_t)n);
        if (!a)
            return -1;
        b->legal = a;
        b->legal_cap = n;
    }
    return 0;
}

static int decode_legal(bot *b, const msgpack_object *legal)
{
    if (!legal || legal->type != MSGPACK_OBJECT_ARRAY)
        return -1;
    int n = (int)legal->via.array.size;
    if (legal_room(b, n))
        return -1;
    for (int i = 0; i < n; i++) {
        maat_error err = {0};
        if (b->rules->decode_action(NULL, &legal->via.array.ptr[i],
                                    &b->legal[i], &err)) {
            fprintf(stderr, "%s: bad legal action %d: %s\n", b->opt->name, i,
                    err.msg);
            return -1;
        }
    }
    return n;
}

/* Version 3: the legal list of the view, which is the referee's in its
 * order (tests/test_view_delta.c), checked against the decision the
 * request names: 0 when they disagree (the view is off; a resync mends
 * it), else how many. */
static int view_legal(bot *b, const msgpack_object *decision)
{
    int n = b->rules->view_legal_actions(b->view, b->legal, b->legal_cap);
    if (n > b->legal_cap) {
        if (legal_room(b, n))
            return 0;
        n = b->rules->view_legal_actions(b->view, b->legal, b->legal_cap);
    }
    if (n <= 0 || b->legal[0].kind < 0 ||
        b->legal[0].kind >= b->rules->n_decision_kinds ||
        !maat_msg_str_eq(decision,
                         b->rules->decision_names[b->legal[0].kind]))
        return 0;
    return n;
}

/* The view cannot give the state of request seq: without an observation,
 * in version 2 or 3, ask once for the request again with it; else give
 * up, saying why. */
static int resync_or_fail(bot *b, int64_t seq, const msgpack_object *obs,
                          const char *why)
{
    if (!obs && b->version >= MAAT_PROTOCOL_DELTA && seq != b->resync_seq) {
        if (b->opt->verbose)
            fprintf(stderr, "%s: request %lld: %s; resync\n", b->opt->name,
                    (long long)seq, why);
        b->resync_seq = seq;
        b->resync_ns = b->received_ns;
        return send_resync(b, seq);
    }
    fprintf(stderr, "%s: request %lld: %s\n", b->opt->name, (long long)seq,
            why);
    return -1;
}

static int on_request(bot *b, const msgpack_object *m,
                      const msgpack_object *const *f, maat_bot_act_fn act,
                      void *user)
{
    maat_error err = {0};
    int64_t seq, left = 0, bank = 0;
    if (maat_msg_int(f[F_SEQ], "seq", 0, INT64_MAX, &seq, &err)) {
        fprintf(stderr, "%s: bad request: %s\n", b->opt->name, err.msg);
        return -1;
    }
    /* version 2 sends the observation only in a seat's first request of
     * a game (and when asked): the view follows the events.  A view that
     * cannot (a broken or lost message, a module that needs the
     * observation) asks once for the request again with it.  Version 3
     * sends no legal list either: the view's is the referee's. */
    const msgpack_object *obs = f[F_OBSERVATION];
    if (seq == b->resync_seq)
        b->received_ns = b->resync_ns; /* think_us: from the first copy */
    if (b->view && b->rules->view_update(b->view, f[F_EVENTS], obs, &err))
        return resync_or_fail(b, seq, obs, err.msg);
    static const maat_msg_key clock_keys[] = {MAAT_MSG_KEY("time_left_ms"),
                                              MAAT_MSG_KEY("bank_ms")};
    const msgpack_object *c[2];
    maat_msg_pickn(f[F_CLOCK], clock_keys, 2, c);
    maat_msg_int_or(c[0], "time_left_ms", 0, INT64_MAX, 0, &left, &err);
    maat_msg_int_or(c[1], "bank_ms", 0, INT64_MAX, 0, &bank, &err);
    int n;
    if (b->version >= MAAT_PROTOCOL_NO_LEGAL) {
        if (!b->view)
            return resync_or_fail(b, seq, obs, "a request before the start");
        if ((n = view_legal(b, f[F_DECISION])) <= 0)
            return resync_or_fail(b, seq, obs, "the view's legal actions do "
                                  "not fit the decision asked");
    } else {
        n = decode_legal(b, MAAT_MSG_GET(m, "legal"));
    }
    if (n <= 0) {
        fprintf(stderr, "%s: request %lld has no legal actions\n",
                b->opt->name, (long long)seq);
        return -1;
    }
    maat_bot_turn t;
    memset(&t, 0, sizeof t);
    t.rules = b->rules;
    t.seat = b->seat;
    t.decision_kind = b->legal[0].kind;
    t.observation = obs; /* NULL in most version-2 and -3 requests */
    t.legal = b->legal;
    t.n_legal = n;
    t.time_left_ms = left;
    t.bank_ms = bank;
    maat_rng_fork(&b->rng, &t.rng); /* a fresh stream for every turn */
    t.setup = b->setup;
    t.view = b->view;
    t.action = b->legal[0];
    if (act(&t, user) != MAAT_OK)
        return 0; /* the author chose not to answer */

    msgpack_packer *pk = out(b);
    maat_pack_map(pk, 4);
    maat_pack_kv_str(pk, "type", "action");
    maat_pack_kv_int(pk, "seq", seq);
    maat_pack_str(pk, "action");
    b->rules->encode_action(NULL, &t.action, pk);
    /* our own clock, request received .. answer sent: only reported (the
     * referee records it with --record-timing; docs/PROTOCOL.md) */
    int64_t think = (now_ns() - b->received_ns) / 1000;
    maat_pack_kv_int(pk, "think_us", think > 0 ? think : 0);
    return send_out(b);
}

/* Handle one message; returns 1 on bye, 0 to go on, -1 on error. */
static int on_message(bot *b, const void *buf, size_t len,
                      maat_bot_act_fn act, void *user)
{
    msgpack_object obj;
    maat_error err = {0};
    int rc = -1;
    if (maat_msg_unpack_zone(buf, len, &b->zone, &obj, &err)) {
        fprintf(stderr, "%s: undecodable message from the referee: %s\n",
                b->opt->name, err.msg);
        return -1;
    }
    const msgpack_object *m = &obj, *f[F_N];
    maat_msg_pickn(m, envelope_keys, F_N, f);
    const msgpack_object *type = f[F_TYPE];
    int64_t seat = 0;
    if (b->opt->verbose) {
        fprintf(stderr, "%s <- ", b->opt->name);
        msgpack_object_print(stderr, *m);
        fprintf(stderr, "\n");
    }
    if (MAAT_MSG_STR_IS(type, "request")) { /* the usual one first */
        rc = b->rules ? on_request(b, m, f, act, user) : -1;
    } else if (maat_msg_str_eq(type, "welcome")) {
        rc = on_welcome(b, m);
    } else if (maat_msg_str_eq(type, "reject")) {
        const msgpack_object *r = maat_msg_get(m, "reason");
        /* an older referee refuses a version it does not speak: offer the
         * one below on the same connection (its first 8 messages are all
         * read), down to version 1 */
        if (!b->welcomed && b->version > MAAT_PROTOCOL_VERSION &&
            maat_msg_str_eq(r, "unsupported protocol version")) {
            if (b->opt->verbose)
                fprintf(stderr, "%s: the referee does not speak protocol "
                        "version %d; offering %d\n", b->opt->name,
                        b->version, b->version - 1);
            b->version--;
            return send_hello(b) ? -1 : 0;
        }
        fprintf(stderr, "%s: the referee refused us: %.*s\n", b->opt->name,
                r && r->type == MSGPACK_OBJECT_STR ? (int)r->via.str.size : 0,
                r && r->type == MSGPACK_OBJECT_STR ? r->via.str.ptr : "");
    } else if (maat_msg_str_eq(type, "start")) {
        int64_t seats = 0;
        rc = maat_msg_get_int(m, "seat", 0, MAAT_MAX_SEATS - 1, &seat, &err);
        if (!rc)
            rc = maat_msg_get_int(m, "seats", 1, MAAT_MAX_SEATS, &seats,
                                  &err);
        b->seat = (int)seat;
        if (!rc && b->rules) {
            b->rules->view_destroy(&b->view);
            b->view = b->rules->view_new(b->setup, b->seat, (int)seats);
        }
        if (rc)
            fprintf(stderr, "%s: bad start: %s\n", b->opt->name, err.msg);
    } else if (maat_msg_str_eq(type, "end")) {
        rc = 0;
    } else if (maat_msg_str_eq(type, "bye")) {
        rc = 1;
    } else {
        fprintf(stderr, "%s: unknown message type from the referee\n",
                b->opt->name);
    }
    return rc;
}

/* FNV-1a over every byte: tokens differing anywhere seed differently (the
 * referee's tokens are random hex, so the first byte alone gave 16 seeds). */
uint64_t maat_bot_token_seed(const char *token)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const char *p = token; p && *p; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
    return h;
}

int maat_bot_run(const maat_bot_options *opt, maat_bot_act_fn act,
                 void *user)
{
    bot b;
    memset(&b, 0, sizeof b);
    maat_bot_options o = *opt;
    if (!o.name)
        o.name = "bot";
    if (!o.endpoint)
        o.endpoint = getenv(MAAT_ENV_ENDPOINT);
    if (!o.token)
        o.token = getenv(MAAT_ENV_TOKEN);
    if (!o.idle_timeout_ms)
        o.idle_timeout_ms = 120000;
    if (!o.endpoint || !o.token) {
        fprintf(stderr, "%s: set %s and %s (the referee does this for bots "
                        "it spawns)\n", o.name, MAAT_ENV_ENDPOINT,
                MAAT_ENV_TOKEN);
        return 2;
    }
    b.opt = &o;
    b.version = o.protocol >= MAAT_PROTOCOL_VERSION &&
                        o.protocol < MAAT_PROTOCOL_NO_LEGAL
                    ? o.protocol : MAAT_PROTOCOL_NO_LEGAL;
    if (o.full_observation)
        b.version = MAAT_PROTOCOL_VERSION;
    b.resync_seq = -1;
    msgpack_sbuffer_init(&b.sb);
    msgpack_packer_init(&b.pk, &b.sb, maat_sbuffer_write);
    if (!msgpack_zone_init(&b.zone, MSGPACK_ZONE_CHUNK_SIZE)) {
        fprintf(stderr, "%s: out of memory\n", o.name);
        return 1;
    }
    maat_seed seed;
    maat_seed_from_u64(&seed, o.seed ? o.seed : maat_bot_token_seed(o.token));
    maat_rng_seed(&b.rng, &seed);

    b.ctx = zmq_ctx_new();
    b.sock = zmq_socket(b.ctx, ZMQ_DEALER);
    int zero = 0, ivl = 1000, hb_timeout = 5000;
    int64_t max = MAAT_MAX_REFEREE_MESSAGE;
    zmq_setsockopt(b.sock, ZMQ_LINGER, &zero, sizeof zero);
    zmq_setsockopt(b.sock, ZMQ_MAXMSGSIZE, &max, sizeof max);
    zmq_setsockopt(b.sock, ZMQ_HEARTBEAT_IVL, &ivl, sizeof ivl);
    zmq_setsockopt(b.sock, ZMQ_HEARTBEAT_TIMEOUT, &hb_timeout,
                   sizeof hb_timeout);
    int rc = 1;
    const char *server = getenv(MAAT_ENV_CURVE_SERVERKEY);
    if (server && *server) {
        const char *pub = getenv(MAAT_ENV_CURVE_PUBLICKEY);
        const char *sec = getenv(MAAT_ENV_CURVE_SECRETKEY);
        if (!pub || !sec || strlen(server) != 40 || strlen(pub) != 40 ||
            strlen(sec) != 40 ||
            zmq_setsockopt(b.sock, ZMQ_CURVE_SERVERKEY, server, 40) ||
            zmq_setsockopt(b.sock, ZMQ_CURVE_PUBLICKEY, pub, 40) ||
            zmq_setsockopt(b.sock, ZMQ_CURVE_SECRETKEY, sec, 40)) {
            fprintf(stderr, "%s: %s is set, so %s and %s must hold this "
                            "bot's 40-character Z85 key pair\n", o.name,
                    MAAT_ENV_CURVE_SERVERKEY, MAAT_ENV_CURVE_PUBLICKEY,
                    MAAT_ENV_CURVE_SECRETKEY);
            goto out;
        }
    }
    if (zmq_connect(b.sock, o.endpoint) != 0) {
        fprintf(stderr, "%s: cannot connect to %s: %s\n", o.name, o.endpoint,
                zmq_strerror(zmq_errno()));
        goto out;
    }
    if (send_hello(&b) != 0) {
        fprintf(stderr, "%s: cannot send hello: %s\n", o.name,
                zmq_strerror(zmq_errno()));
        goto out;
    }
    /* Until welcomed, hello again every second: a remote bot that started
     * waiting while a previous referee on its endpoint was closing may have
     * said hello to that one; its DEALER reconnects to the next referee on
     * its own, but as a new peer that has said nothing (a repeated hello on
     * a seated connection is ignored before the game, docs/PROTOCOL.md). */
    /* The wait: a blocking receive, bounded by ZMQ_RCVTIMEO (set only when
     * the bound changes; it is no system call).  libzmq then waits on its
     * own mailbox and reads the message, where a non-blocking receive, a
     * poll() on ZMQ_FD and a receive again made each of their checks of
     * the mailbox twice: the main thread's system calls a decision went
     * from 11.6 to 8.5, each dearer under the sandbox's filter (issue 19;
     * bench/bench_bot_syscalls.sh, docs/PERFORMANCE.md "The bot's
     * wait"). */
    int64_t wait_start = now_ns(), waited = 0;
    int timeout_set = -2; /* the ZMQ_RCVTIMEO the socket has now */
    for (;;) {
        int64_t ms = (now_ns() - wait_start) / 1000000;
        int wait = b.welcomed || o.idle_timeout_ms - waited < 1000
                       ? o.idle_timeout_ms - (int)waited : 1000;
        if (ms >= wait) { /* nothing for `wait` ms */
            if (!b.welcomed && (waited += wait) < o.idle_timeout_ms) {
                send_hello(&b);
                wait_start = now_ns();
                continue;
            }
            fprintf(stderr, "%s: no word from the referee at %s for %d "
                            "ms; giving up\n", o.name, o.endpoint,
                    o.idle_timeout_ms);
            goto out;
        }
        int timeout = (int)(wait - ms);
        if (timeout != timeout_set) {
            if (zmq_setsockopt(b.sock, ZMQ_RCVTIMEO, &timeout,
                               sizeof timeout) != 0) {
                fprintf(stderr, "%s: cannot set the receive timeout: %s\n",
                        o.name, zmq_strerror(zmq_errno()));
                goto out;
            }
            timeout_set = timeout;
        }
        zmq_msg_t msg;
        zmq_msg_init(&msg);
        if (zmq_msg_recv(&msg, b.sock, 0) < 0) {
            zmq_msg_close(&msg);
            if (zmq_errno() == EINTR || zmq_errno() == EAGAIN)
                continue; /* a signal, or the timeout: the loop decides */
            fprintf(stderr, "%s: cannot receive: %s\n", o.name,
                    zmq_strerror(zmq_errno()));
            goto out;
        }
        b.received_ns = now_ns();
        int r = on_message(&b, zmq_msg_data(&msg), zmq_msg_size(&msg), act,
                           user);
        zmq_msg_close(&msg);
        if (r < 0)
            goto out;
        if (r == 1) {
            rc = 0;
            goto out;
        }
        wait_start = now_ns(); /* the wait for the next one starts */
        waited = 0;
    }
out:
    zmq_close(b.sock);
    zmq_ctx_term(b.ctx);
    free(b.legal);
    msgpack_sbuffer_destroy(&b.sb);
    msgpack_zone_destroy(&b.zone);
    if (b.rules) {
        b.rules->view_destroy(&b.view);
        b.rules->setup_destroy(&b.setup);
    }
    return rc;
}

maat_game *maat_bot_sample(maat_bot_turn *t)
{
    maat_error err = {0};
    maat_game *g = t->view ? t->rules->determinize(t->view, &t->rng, &err)
                           : NULL;
    if (!g)
        fprintf(stderr, "maat_bot_sample: %s\n",
                err.msg[0] ? err.msg : "no view (no start message yet)");
    return g;
}

int maat_bot_take_options(maat_bot_options *o, int *argc, char **argv,
                          maat_error *err)
{
    int kept = 1;
    for (int i = 1; i < *argc; i++) {
        if (!strcmp(argv[i], "--verbose")) {
            o->verbose = 1;
        } else if (!strcmp(argv[i], "--full-observation")) {
            o->full_observation = 1;
        } else if (!strcmp(argv[i], "--protocol")) {
            if (i + 1 >= *argc || argv[i + 1][0] < '1' ||
                argv[i + 1][0] > '0' + MAAT_PROTOCOL_NO_LEGAL ||
                argv[i + 1][1])
                return maat_error_set(err, MAAT_EINVAL, "--protocol: a "
                                      "version 1 to %d expected",
                                      MAAT_PROTOCOL_NO_LEGAL);
            o->protocol = argv[++i][0] - '0';
        } else {
            argv[kept++] = argv[i];
        }
    }
    *argc = kept;
    return MAAT_OK;
}

int maat_bot_main(const char *name, maat_bot_act_fn act, void *user,
                  int argc, char **argv)
{
    maat_bot_options o;
    memset(&o, 0, sizeof o);
    o.name = getenv(MAAT_ENV_NAME) ? getenv(MAAT_ENV_NAME) : name;
    maat_error err = {0};
    if (maat_bot_take_options(&o, &argc, argv, &err)) {
        fprintf(stderr, "%s: %s (try --help)\n", name, err.msg);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: %s [--verbose] [--full-observation] [--protocol "
                   "N]\nA maat bot.  Reads %s and %s from the environment\n"
                   "(maat-referee sets them when it spawns the bot).\n%s",
                   name, MAAT_ENV_ENDPOINT, MAAT_ENV_TOKEN,
                   MAAT_BOT_OPTIONS_HELP);
            return 0;
        }
        fprintf(stderr, "%s: unknown option '%s' (try --help)\n", name,
                argv[i]);
        return 2;
    }
    return maat_bot_run(&o, act, user);
}
