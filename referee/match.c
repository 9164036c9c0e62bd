/* match.c -- running a match: bots in, decisions out, faults recorded.
 *
 * The flow: bind the socket, spawn the bots (each gets the endpoint and a
 * secret token in its environment), wait for every hello, then for each
 * game of the series ask the game module whose decision it is, send that
 * seat one request and wait for its action against the clock.  Every other
 * thing that can arrive meanwhile -- a late reply, a flood, a stranger's
 * hello, a dying process, SIGINT -- is handled in the same wait loop, so a
 * bot can only ever cost its own seat.
 *
 * Decoupled from time: the clock only decides timeouts; the game record is
 * a function of seed and actions alone, so it is byte-identical on replay.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "maat/msg.h"
#include "maat/policy.h"
#include "maat/protocol.h"
#include "match.h"
#include "record.h"
#include "transport.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MAAT_HAS_ASAN 1
#endif
#endif
#ifndef MAAT_HAS_ASAN
#define MAAT_HAS_ASAN 0
#endif

const char *const maat_fault_names[MAAT_FAULT_KINDS] = {
    "timeout", "illegal", "malformed", "crash", "no_hello"};

#define MAX_FAULTS_RECORDED 50 /* per bot and game; the rest are counted */

/* A bot: a connection identity that lives for the whole match. */
typedef struct rbot {
    const maat_bot_spec *spec;
    char token[MAAT_MAX_TOKEN + 1];
    maat_proc *proc;
    uint8_t rid[256];
    size_t rid_len;
    int connected;
    int dead;             /* crashed, disconnected or never said hello */
    int dead_kind;        /* fault kind that killed it */
    char dead_detail[480];
    int first_done;       /* has had its first decision (load allowance) */
    /* per game */
    int seat;
    int out;              /* forfeited: the default policy plays for it */
    int strikes[MAAT_FAULT_KINDS]; /* per kind, against that kind's limit */
    int64_t bank_ms;
    size_t events_sent;   /* index into the game's event log */
    int64_t outstanding;  /* seq of the request awaiting an answer, or -1 */
    int64_t last_answered, last_timed_out;
    int faults, faults_dropped;
    /* stats over the match */
    int64_t decisions, wall_ns_total, wall_ns_max;
    uint64_t cpu_ns_total;
} rbot;

typedef struct outbuf {
    msgpack_sbuffer sb;
    msgpack_packer pk;
} outbuf;

/* One applied decision, kept as plain data during the game; the record's
 * JSON is built from these once, at the end, and only if it is wanted. */
typedef struct decision_rec {
    int seat;
    int by_bot;
    maat_action action;
    int64_t wall_ns;
    uint64_t cpu_ns;
} decision_rec;

typedef struct match {
    const maat_match_config *c;
    outbuf ob;
    decision_rec *dec;
    size_t n_dec, cap_dec;
    maat_transport *tr;
    int sigfd;
    sigset_t oldmask;
    int interrupted;
    maat_setup *setup;
    rbot bot[MAAT_MAX_SEATS];
    int n;
    int seat_bot[MAAT_MAX_SEATS]; /* seat -> bot index, this game */
    int64_t seq;
    /* the game being played */
    maat_game *g;
    maat_events ev;
    int game_index;
    uint64_t game_seed;
    int decision_no;
    int64_t processes_checked_ns; /* last check_processes, now_ns() */
    maat_rng default_rng;
    json_t *decisions, *faults;
    int pending_action_ok;  /* set by the message handler */
    maat_action pending_action;
    char match_id[40];
} match;

/* ---- small utilities ------------------------------------------------ */

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void say(const match *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(const match *m, const char *fmt, ...)
{
    if (m->c->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "maat-referee: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

static void random_token(char *out, size_t hexlen)
{
    uint8_t raw[32];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    ssize_t got = fd >= 0 ? read(fd, raw, sizeof raw) : -1;
    if (fd >= 0)
        close(fd);
    if (got != (ssize_t)sizeof raw) { /* never expected; still unique */
        uint64_t x = (uint64_t)now_ns() ^ (uint64_t)getpid();
        for (size_t i = 0; i < sizeof raw; i++)
            raw[i] = (uint8_t)((x = x * 6364136223846793005ULL + 1) >> 56);
    }
    for (size_t i = 0; i < hexlen / 2 && i < sizeof raw; i++)
        snprintf(out + 2 * i, 3, "%02x", raw[i]);
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

void maat_match_config_init(maat_match_config *c)
{
    memset(c, 0, sizeof *c);
    c->seed = 1;
    c->games = 1;
    c->clock.decision_ms = 1000;
    c->clock.first_ms = 5000;
    c->clock.bank_ms = 0;
    c->clock.increment_ms = 0;
    c->clock.grace_ms = 100;
    c->clock.hello_ms = 10000;
    /* Illegal or malformed answers and timeouts get a default action and
     * three strikes: one glitch should not end a long ladder game.  A crash
     * or a missing hello cannot be struck: the bot is gone. */
    c->policy.strikes[MAAT_FAULT_TIMEOUT] = 3;
    c->policy.strikes[MAAT_FAULT_ILLEGAL] = 3;
    c->policy.strikes[MAAT_FAULT_MALFORMED] = 3;
    c->policy.strikes[MAAT_FAULT_CRASH] = 0;
    c->policy.strikes[MAAT_FAULT_NO_HELLO] = 0;
    c->limits.address_space = 2ULL << 30;
#if defined(__SANITIZE_ADDRESS__) || MAAT_HAS_ASAN
    /* An AddressSanitizer build reserves terabytes of shadow address
     * space, and the bots of such a build tree are sanitized too: any
     * address-space limit would stop them before their hello. */
    c->limits.address_space = 0;
#endif
    c->limits.cpu_seconds = 600;
    c->limits.processes = 64;
    c->limits.open_files = 256;
    c->limits.log_cap = 1 << 20;
}

int maat_fault_policy_parse(const char *text, int *strikes)
{
    if (strcmp(text, "forfeit") == 0) {
        *strikes = 0;
        return MAAT_OK;
    }
    char *end;
    if (strncmp(text, "strikes:", 8) == 0) {
        long n = strtol(text + 8, &end, 10);
        if (!*end && n >= 1 && n <= 1000000) {
            *strikes = (int)n;
            return MAAT_OK;
        }
    }
    return MAAT_EINVAL;
}

/* ---- sending -------------------------------------------------------- */

/* The match's one output buffer, emptied for each message: every message
 * is sent before the next is built, and reusing it saves an allocation per
 * message on the per-decision path. */
static outbuf *out_begin(match *m)
{
    m->ob.sb.size = 0;
    return &m->ob;
}

static void fault(match *m, rbot *b, int kind, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Send to a bot; a failed send means the peer is gone. */
static int send_to(match *m, rbot *b, outbuf *o)
{
    int rc = 0;
    if (b->connected && !b->dead &&
        maat_transport_send(m->tr, b->rid, b->rid_len, o->sb.data,
                            o->sb.size) != 0) {
        rc = -1;
        /* a fault only while the game runs: once it is over, results are
         * fixed and a bot that cannot take its "end" is merely gone */
        if (m->g && !m->c->rules->is_over(m->g))
            fault(m, b, MAAT_FAULT_CRASH, "cannot send to the bot: %s",
                  zmq_strerror(zmq_errno()));
        b->dead = 1;
    }
    return rc;
}

/* Events the bot's seat may see that it has not been sent yet. */
static void pack_events(match *m, rbot *b, msgpack_packer *pk)
{
    uint32_t me = 1u << b->seat;
    size_t n = 0;
    for (size_t i = b->events_sent; i < m->ev.count; i++)
        n += (m->ev.items[i].visible_to & me) != 0;
    maat_pack_array(pk, n);
    for (size_t i = b->events_sent; i < m->ev.count; i++)
        if (m->ev.items[i].visible_to & me)
            m->c->rules->encode_event(m->g, &m->ev.items[i], pk);
    b->events_sent = m->ev.count;
}

/* ---- faults and ranks ----------------------------------------------- */

static void set_out(match *m, rbot *b, const char *why)
{
    if (!b->out)
        say(m, "seat %d (%s) is out: %s; the default policy plays for it",
            b->seat, b->spec->name, why);
    b->out = 1;
    b->outstanding = -1;
}

static void fault(match *m, rbot *b, int kind, const char *fmt, ...)
{
    char detail[480];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    if (b->faults < MAX_FAULTS_RECORDED) {
        json_array_append_new(m->faults,
            json_pack("{s:i, s:s, s:s, s:i, s:s}", "seat", b->seat, "bot",
                      b->spec->name, "kind", maat_fault_names[kind],
                      "decision", m->decision_no, "detail", detail));
        say(m, "seat %d (%s): %s at decision %d: %s", b->seat, b->spec->name,
            maat_fault_names[kind], m->decision_no, detail);
    } else {
        b->faults_dropped++;
    }
    b->faults++;
    if (b->out)
        return;
    int limit = m->c->policy.strikes[kind];
    if (kind == MAAT_FAULT_CRASH || kind == MAAT_FAULT_NO_HELLO || limit == 0)
        set_out(m, b, maat_fault_names[kind]);
    else if (++b->strikes[kind] >= limit)
        set_out(m, b, "too many strikes");
}

/* Match ranks: seats that finished cleanly in the game's own order (its
 * ranks, which include any tie-break the rules have), ties sharing a
 * place; then the seats that were out, in the same order among
 * themselves. */
static void match_ranks(match *m, const maat_score *sc, int *rank)
{
    int seats = m->c->rules->seats(m->g);
    for (int i = 0; i < seats; i++) {
        int oi = m->bot[m->seat_bot[i]].out, better = 0;
        for (int j = 0; j < seats; j++) {
            int oj = m->bot[m->seat_bot[j]].out;
            if ((!oj && oi) || (oj == oi && sc[j].rank < sc[i].rank))
                better++;
        }
        rank[i] = 1 + better;
    }
}

/* ---- receiving ------------------------------------------------------ */

static rbot *bot_by_rid(match *m, const maat_inbound *in)
{
    for (int i = 0; i < m->n; i++)
        if (m->bot[i].connected && m->bot[i].rid_len == in->rid_len &&
            memcmp(m->bot[i].rid, in->rid, in->rid_len) == 0)
            return &m->bot[i];
    return NULL;
}

static void send_reject(match *m, const maat_inbound *in, const char *reason)
{
    outbuf *o = out_begin(m);
    maat_pack_map(&o->pk, 2);
    maat_pack_kv_str(&o->pk, "type", "reject");
    maat_pack_kv_str(&o->pk, "reason", reason);
    maat_transport_send(m->tr, in->rid, in->rid_len, o->sb.data, o->sb.size);
}

static void send_welcome(match *m, rbot *b)
{
    outbuf *o = out_begin(m);
    /* No match id and nothing else derived from the seed: a default id
     * hashes the seed, and a bot that could invert it would know the deck. */
    maat_pack_map(&o->pk, 6);
    maat_pack_kv_str(&o->pk, "type", "welcome");
    maat_pack_kv_int(&o->pk, "version", MAAT_PROTOCOL_VERSION);
    maat_pack_kv_str(&o->pk, "game", m->c->rules->name);
    maat_pack_kv_str(&o->pk, "rules_version", m->c->rules->rules_version);
    maat_pack_kv_int(&o->pk, "games", m->c->games);
    maat_pack_str(&o->pk, "setup");
    m->c->rules->setup_encode(m->setup, &o->pk);
    send_to(m, b, o);
}

/* A hello from an unknown address: find the seat by token. */
static void on_hello(match *m, const maat_inbound *in, const msgpack_object *o)
{
    const msgpack_object *tok = maat_msg_get(o, "token");
    int64_t version = 0;
    maat_error err = {0};
    if (maat_msg_get_int(o, "version", 0, INT32_MAX, &version, &err) ||
        version != MAAT_PROTOCOL_VERSION) {
        say(m, "refused a hello: protocol version %lld, we speak %d",
            (long long)version, MAAT_PROTOCOL_VERSION);
        send_reject(m, in, "unsupported protocol version");
        return;
    }
    for (int i = 0; i < m->n; i++) {
        rbot *b = &m->bot[i];
        if (!tok || !maat_msg_str_eq(tok, b->token))
            continue;
        if (m->c->curve_secret && strcmp(in->user, b->spec->name) != 0) {
            say(m, "refused a hello with the token of %s from a connection "
                "authenticated as '%s'", b->spec->name, in->user);
            send_reject(m, in, "token and key belong to different seats");
            return;
        }
        if (b->connected || b->dead) {
            say(m, "refused a hello with the token of %s: %s",
                b->spec->name, b->connected ? "already in use"
                                            : "that seat is closed");
            send_reject(m, in, b->connected ? "token already in use"
                                            : "seat closed");
            return;
        }
        memcpy(b->rid, in->rid, in->rid_len);
        b->rid_len = in->rid_len;
        b->connected = 1;
        if (m->c->verbose)
            say(m, "%s said hello", b->spec->name);
        send_welcome(m, b);
        return;
    }
    say(m, "refused a hello with an unknown token");
    send_reject(m, in, "unknown token");
}

/* A malformed message from the seat we are waiting on is its answer: one
 * fault, a default action, and no second (timeout) fault for the same
 * decision. */
static void malformed(match *m, rbot *b, const char *detail)
{
    if (b->outstanding >= 0) {
        b->last_answered = b->outstanding;
        b->outstanding = -1;
        m->pending_action_ok = -1;
    }
    fault(m, b, MAAT_FAULT_MALFORMED, "%s", detail);
}

/* A message from a seated bot. */
static void on_bot_message(match *m, rbot *b, const maat_inbound *in)
{
    msgpack_unpacked u;
    maat_error err = {0};
    const void *data = zmq_msg_data((zmq_msg_t *)&in->payload);
    size_t len = zmq_msg_size((zmq_msg_t *)&in->payload);
    char detail[300];
    if (b->out || b->dead)
        return; /* a seat that is out is no longer listened to */
    if (!m->g) {
        say(m, "%s: message before the game started, ignored",
            b->spec->name);
        return;
    }
    if (in->frames != 2) {
        snprintf(detail, sizeof detail, "sent a %d-frame message; one frame "
                 "expected", in->frames - 1);
        malformed(m, b, detail);
        return;
    }
    if (maat_msg_unpack(data, len, &u, &err)) {
        snprintf(detail, sizeof detail, "undecodable: %s", err.msg);
        malformed(m, b, detail);
        msgpack_unpacked_destroy(&u);
        return;
    }
    const msgpack_object *o = &u.data;
    int64_t seq = -1;
    if (!maat_msg_str_eq(maat_msg_get(o, "type"), "action") ||
        maat_msg_get_int(o, "seq", 0, INT64_MAX, &seq, &err)) {
        snprintf(detail, sizeof detail,
                 "expected {type: action, seq, action}: %s",
                 err.msg[0] ? err.msg : "wrong type");
        malformed(m, b, detail);
    } else if (seq != b->outstanding) {
        if (seq <= b->last_timed_out && seq > b->last_answered)
            say(m, "seat %d (%s): late reply to request %lld discarded",
                b->seat, b->spec->name, (long long)seq);
        else if (seq == b->last_answered)
            fault(m, b, MAAT_FAULT_MALFORMED,
                  "second reply to request %lld", (long long)seq);
        else
            fault(m, b, MAAT_FAULT_MALFORMED,
                  "reply to request %lld, which is not outstanding",
                  (long long)seq);
    } else if (m->c->rules->decode_action(m->g, maat_msg_get(o, "action"),
                                          &m->pending_action, &err)) {
        snprintf(detail, sizeof detail, "bad action: %s", err.msg);
        malformed(m, b, detail);
    } else {
        b->outstanding = -1;
        b->last_answered = seq;
        m->pending_action_ok = 1;
    }
    msgpack_unpacked_destroy(&u);
}

static void on_inbound(match *m, maat_inbound *in)
{
    rbot *b = bot_by_rid(m, in);
    if (b) {
        on_bot_message(m, b, in);
        return;
    }
    msgpack_unpacked u;
    const void *data = zmq_msg_data(&in->payload);
    size_t len = zmq_msg_size(&in->payload);
    if (in->frames == 2 && maat_msg_unpack(data, len, &u, NULL) == MAAT_OK &&
        maat_msg_str_eq(maat_msg_get(&u.data, "type"), "hello"))
        on_hello(m, in, &u.data);
    else if (m->c->verbose)
        say(m, "ignored a message from an address with no seat");
    msgpack_unpacked_destroy(&u);
}

/* Check every spawned bot for exit; a bot that exits is gone. */
static void check_processes(match *m)
{
    for (int i = 0; i < m->n; i++) {
        rbot *b = &m->bot[i];
        int status;
        if (!b->proc)
            continue;
        maat_proc_drain(b->proc);
        if (!b->dead && maat_proc_exited(b->proc, &status)) {
            char how[96];
            maat_proc_describe_exit(status, how, sizeof how);
            b->dead = 1;
            b->dead_kind = b->connected ? MAAT_FAULT_CRASH
                                        : MAAT_FAULT_NO_HELLO;
            char head[320] = "";
            if (!b->connected) { /* could not start: show why */
                maat_proc_drain(b->proc);
                maat_proc_output_head(b->proc, 5, head, sizeof head);
            }
            snprintf(b->dead_detail, sizeof b->dead_detail,
                     "the bot process %s%s%s", how,
                     *head ? " before saying hello; its output began: " : "",
                     head);
            if (m->g && !b->out)
                fault(m, b, b->dead_kind, "%s", b->dead_detail);
        }
    }
}

static void on_refused_key(void *ctx, const char *why)
{
    say((const match *)ctx, "%s", why);
}

/* Wait for input until deadline_ns (or until `until` says stop).  Returns
 * when the deadline passes, input was handled, or we were interrupted. */
static void wait_input(match *m, int64_t deadline_ns)
{
    zmq_pollitem_t items[3 + MAAT_MAX_SEATS];
    int n = 0;
    items[n++] = (zmq_pollitem_t){maat_transport_socket(m->tr), 0,
                                  ZMQ_POLLIN, 0};
    items[n++] = (zmq_pollitem_t){NULL, m->sigfd, ZMQ_POLLIN, 0};
    void *zap = maat_transport_zap_socket(m->tr);
    if (zap)
        items[n++] = (zmq_pollitem_t){zap, 0, ZMQ_POLLIN, 0};
    for (int i = 0; i < m->n; i++)
        if (m->bot[i].proc && maat_proc_output_fd(m->bot[i].proc) >= 0)
            items[n++] = (zmq_pollitem_t){NULL,
                                          maat_proc_output_fd(m->bot[i].proc),
                                          ZMQ_POLLIN, 0};
    int64_t left_ms = (deadline_ns - now_ns() + 999999) / 1000000;
    if (left_ms < 0)
        left_ms = 0;
    /* wake at least every 200 ms to notice processes that exit without
     * a SIGCHLD reaching us (e.g. a grandchild holding the pipe) */
    int rc = zmq_poll(items, n, left_ms > 200 ? 200 : (long)left_ms);
    if (rc < 0 && zmq_errno() != EINTR)
        return;
    /* Reading the bots' pipes and reaping costs two system calls per bot,
     * so it is done only when there is a reason: a signal (SIGCHLD), output
     * on a pipe, or 200 ms since the last look (a process can end without
     * a SIGCHLD reaching us, e.g. a grandchild holding the pipe). */
    int look = rc == 0 || now_ns() - m->processes_checked_ns > 200000000;
    for (int i = 2 + (zap != NULL); i < n; i++)
        look |= items[i].revents != 0;
    if (items[1].revents & ZMQ_POLLIN) {
        struct signalfd_siginfo si;
        look = 1;
        while (read(m->sigfd, &si, sizeof si) == (ssize_t)sizeof si)
            if (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM) {
                say(m, "interrupted by signal %u; stopping", si.ssi_signo);
                m->interrupted = 1;
            }
    }
    if (zap)
        maat_transport_handle_zap(m->tr, on_refused_key, m);
    maat_inbound in;
    for (int k = 0; k < 10000 && maat_transport_recv(m->tr, &in); k++) {
        on_inbound(m, &in);
        maat_inbound_close(&in);
    }
    if (look) {
        check_processes(m);
        m->processes_checked_ns = now_ns();
    }
}

/* ---- the match ------------------------------------------------------ */

/* Append s to buf single-quoted for /bin/sh. */
static void append_quoted(char *buf, size_t len, const char *s)
{
    size_t n = strlen(buf);
    if (n + 2 < len)
        buf[n++] = '\'';
    for (; *s && n + 5 < len; s++) {
        if (*s == '\'') {
            memcpy(buf + n, "'\\''", 4);
            n += 4;
        } else {
            buf[n++] = *s;
        }
    }
    if (n + 1 < len)
        buf[n++] = '\'';
    buf[n] = 0;
}

/* The command line that runs `cmd` in a bubblewrap sandbox: the whole file
 * system read-only, a private empty /tmp (the bot's scratch space), no
 * network and no System V IPC; only the referee's ipc directory is
 * reachable.  bwrap dies with the referee and kills the bot with it. */
static int sandbox_command(const match *m, const char *cmd, char *out,
                           size_t len)
{
    char cwd[1024];
    const char *dir = maat_transport_ipc_dir(m->tr);
    if (!dir || !getcwd(cwd, sizeof cwd))
        return -1;
    snprintf(out, len, "exec bwrap --ro-bind / / --dev /dev --proc /proc "
             "--tmpfs /tmp --bind ");
    append_quoted(out, len, dir);
    strncat(out, " ", len - strlen(out) - 1);
    append_quoted(out, len, dir);
    /* the referee's directory stays reachable even when it is under /tmp;
     * a PID namespace means every descendant dies with the sandbox */
    strncat(out, " --ro-bind ", len - strlen(out) - 1);
    append_quoted(out, len, cwd);
    strncat(out, " ", len - strlen(out) - 1);
    append_quoted(out, len, cwd);
    /* programs named by absolute path under /tmp stay reachable too
     * (read-only): e.g. a bot built in a clone under /tmp */
    char words[4096];
    snprintf(words, sizeof words, "%s", cmd);
    for (char *save = NULL, *w = strtok_r(words, " \t\"'", &save); w;
         w = strtok_r(NULL, " \t\"'", &save)) {
        /* the whole top directory under /tmp (/tmp/X of /tmp/X/...): a
         * program's libraries are often beside it (RUNPATH $ORIGIN/..) */
        char *slash = strncmp(w, "/tmp/", 5) == 0 ? strchr(w + 5, '/')
                                                 : NULL;
        if (!slash)
            continue;
        *slash = 0;
        if (access(w, F_OK) != 0)
            continue;
        strncat(out, " --ro-bind ", len - strlen(out) - 1);
        append_quoted(out, len, w);
        strncat(out, " ", len - strlen(out) - 1);
        append_quoted(out, len, w);
    }
    strncat(out, " --unshare-net --unshare-ipc --unshare-pid "
            "--die-with-parent --setenv TMPDIR /tmp --chdir ",
            len - strlen(out) - 1);
    append_quoted(out, len, cwd);
    strncat(out, " /bin/sh -c ", len - strlen(out) - 1);
    char inner[4200];
    snprintf(inner, sizeof inner, "exec %s", cmd);
    append_quoted(out, len, inner);
    return strlen(out) + 1 < len ? 0 : -1;
}

static int start_bots(match *m, maat_error *err)
{
    const maat_match_config *c = m->c;
    for (int i = 0; i < m->n; i++) {
        rbot *b = &m->bot[i];
        b->spec = &c->bots[i];
        b->outstanding = b->last_answered = b->last_timed_out = -1;
        if (b->spec->token)
            snprintf(b->token, sizeof b->token, "%s", b->spec->token);
        else
            random_token(b->token, 32);
        if (!b->spec->command) {
            if (c->curve_secret &&
                maat_transport_allow(m->tr, b->spec->name, b->spec->curve_key
                                     ? b->spec->curve_key : "", err))
                return maat_error_set(err, MAAT_EINVAL, "remote bot %s needs "
                                      "its CURVE public key (--allow-key "
                                      "%s=KEY): %s", b->spec->name,
                                      b->spec->name, err->msg);
            say(m, "waiting for remote bot %s at %s", b->spec->name,
                maat_transport_endpoint(m->tr));
            continue;
        }
        /* with CURVE, a fresh key pair per spawned bot */
        char pub[41] = "", sec[41] = "", env_sk[80], env_pk[80], env_ss[80];
        if (c->curve_secret) {
            if (zmq_curve_keypair(pub, sec) != 0 ||
                maat_transport_allow(m->tr, b->spec->name, pub, err))
                return maat_error_set(err, MAAT_EIO, "cannot make a CURVE "
                                      "key pair for %s", b->spec->name);
        }
        snprintf(env_sk, sizeof env_sk, "MAAT_CURVE_SERVERKEY=%s",
                 c->curve_public ? c->curve_public : "");
        snprintf(env_pk, sizeof env_pk, "MAAT_CURVE_PUBLICKEY=%s", pub);
        snprintf(env_ss, sizeof env_ss, "MAAT_CURVE_SECRETKEY=%s", sec);
        char env_ep[600], env_tok[100], env_name[200], log[512];
        snprintf(env_ep, sizeof env_ep, "%s=%s", MAAT_ENV_ENDPOINT,
                 maat_transport_endpoint(m->tr));
        snprintf(env_tok, sizeof env_tok, "%s=%s", MAAT_ENV_TOKEN, b->token);
        snprintf(env_name, sizeof env_name, "%s=%s", MAAT_ENV_NAME,
                 b->spec->name);
        char *env[] = {env_ep, env_tok, env_name, NULL, NULL, NULL, NULL};
        if (c->curve_secret) {
            env[3] = env_sk;
            env[4] = env_pk;
            env[5] = env_ss;
        }
        /* A simple command is exec'd by the shell, so the process we watch
         * (and time) is the bot itself, not a waiting /bin/sh. */
        char cmd[9000];
        int simple = strlen(b->spec->command) < 4000 &&
                     !strpbrk(b->spec->command, ";&|\n()`") &&
                     strncmp(b->spec->command, "exec ", 5) != 0;
        snprintf(cmd, sizeof cmd, "%s%s", simple ? "exec " : "",
                 b->spec->command);
        char boxed[9000];
        if (c->sandbox) {
            if (sandbox_command(m, b->spec->command, boxed, sizeof boxed))
                return maat_error_set(err, MAAT_EINVAL, "--sandbox needs the "
                                      "default ipc:// endpoint (sandboxed "
                                      "bots have no network) and a command "
                                      "under 4000 bytes");
            snprintf(cmd, sizeof cmd, "%s", boxed);
        }
        if (c->log_dir)
            snprintf(log, sizeof log, "%s/%s.log", c->log_dir, b->spec->name);
        b->proc = maat_proc_spawn(cmd, env,
                                  c->log_dir ? log : NULL, NULL, &c->limits,
                                  err);
        if (!b->proc) {
            char why[sizeof err->msg];
            snprintf(why, sizeof why, "%s", err->msg);
            return maat_error_set(err, err->code ? err->code : MAAT_EIO,
                                  "bot %s: %s", b->spec->name, why);
        }
    }
    return MAAT_OK;
}

static void await_hellos(match *m)
{
    int64_t deadline = now_ns() + m->c->clock.hello_ms * 1000000;
    for (;;) {
        int waiting = 0;
        for (int i = 0; i < m->n; i++)
            waiting += !m->bot[i].connected && !m->bot[i].dead;
        if (!waiting || m->interrupted || now_ns() >= deadline)
            break;
        wait_input(m, deadline);
    }
    for (int i = 0; i < m->n; i++) {
        rbot *b = &m->bot[i];
        if (!b->connected && !b->dead) {
            b->dead = 1;
            b->dead_kind = MAAT_FAULT_NO_HELLO;
            snprintf(b->dead_detail, sizeof b->dead_detail,
                     "no hello within %lld ms",
                     (long long)m->c->clock.hello_ms);
            say(m, "%s: %s", b->spec->name, b->dead_detail);
        }
    }
}

/* Seats for game k: a seeded shuffle (or the given order) rotated by k. */
static void assign_seats(match *m, int k)
{
    int base[MAAT_MAX_SEATS];
    for (int i = 0; i < m->n; i++)
        base[i] = i;
    if (!m->c->fixed_seats) {
        maat_rng r;
        maat_seed seed, key;
        maat_seed_derive(&key, maat_seed_from_u64(&seed, m->c->seed), "seats");
        maat_rng_seed(&r, &key);
        maat_rng_shuffle_int(&r, base, m->n);
    }
    for (int i = 0; i < m->n; i++) {
        int seat = (base[i] + k) % m->n;
        m->bot[i].seat = seat;
        m->seat_bot[seat] = i;
    }
}

static void send_start(match *m, rbot *b)
{
    outbuf *o = out_begin(m);
    maat_pack_map(&o->pk, 4);
    maat_pack_kv_str(&o->pk, "type", "start");
    maat_pack_kv_int(&o->pk, "game_index", m->game_index);
    maat_pack_kv_int(&o->pk, "seat", b->seat);
    maat_pack_kv_int(&o->pk, "seats", m->n);
    send_to(m, b, o);
}

static int64_t base_ms(const match *m, const rbot *b)
{
    return b->first_done ? m->c->clock.decision_ms : m->c->clock.first_ms;
}

static int send_request(match *m, rbot *b, maat_decision d,
                        const maat_action *legal, int n_legal)
{
    const maat_rules *r = m->c->rules;
    outbuf *o = out_begin(m);
    msgpack_packer *pk = &o->pk;
    b->outstanding = ++m->seq;
    maat_pack_map(pk, 8);
    maat_pack_kv_str(pk, "type", "request");
    maat_pack_kv_int(pk, "seq", b->outstanding);
    maat_pack_kv_int(pk, "game_index", m->game_index);
    maat_pack_kv_str(pk, "decision", r->decision_names[d.kind]);
    maat_pack_str(pk, "observation");
    r->encode_observation(m->g, d.seat, pk);
    maat_pack_str(pk, "events");
    pack_events(m, b, pk);
    maat_pack_str(pk, "legal");
    maat_pack_array(pk, (size_t)n_legal);
    for (int i = 0; i < n_legal; i++)
        r->encode_action(m->g, &legal[i], pk);
    maat_pack_str(pk, "clock");
    maat_pack_map(pk, 3);
    maat_pack_kv_int(pk, "time_left_ms", base_ms(m, b) + b->bank_ms);
    maat_pack_kv_int(pk, "decision_ms", base_ms(m, b));
    maat_pack_kv_int(pk, "bank_ms", b->bank_ms);
    return send_to(m, b, o);
}

/* Keep one applied decision. */
static int record_decision(match *m, int seat, const maat_action *a,
                           int by_bot, int64_t wall_ns, uint64_t cpu_ns)
{
    if (m->n_dec == m->cap_dec) {
        size_t cap = m->cap_dec ? m->cap_dec * 2 : 256;
        decision_rec *d = realloc(m->dec, cap * sizeof *d);
        if (!d)
            return MAAT_ENOMEM;
        m->dec = d;
        m->cap_dec = cap;
    }
    decision_rec r = {seat, by_bot, *a, wall_ns, cpu_ns};
    m->dec[m->n_dec++] = r;
    return MAAT_OK;
}

/* The decisions as the record's JSON array. */
static json_t *decisions_json(match *m)
{
    const maat_rules *r = m->c->rules;
    json_t *all = json_array();
    for (size_t i = 0; i < m->n_dec; i++) {
        const decision_rec *d = &m->dec[i];
        outbuf *o = out_begin(m);
        r->encode_action(m->g, &d->action, &o->pk);
        json_t *action = maat_json_from_msgpack_bytes(o->sb.data, o->sb.size);
        json_t *j = json_pack("{s:i, s:s, s:o, s:s}", "seat", d->seat, "kind",
                              r->decision_names[d->action.kind], "action",
                              action, "by", d->by_bot ? "bot" : "default");
        if (m->c->record_timing) {
            json_object_set_new(j, "wall_us", json_integer(d->wall_ns / 1000));
            json_object_set_new(j, "cpu_us",
                                json_integer((json_int_t)(d->cpu_ns / 1000)));
        }
        json_array_append_new(all, j);
    }
    return all;
}

/* Ask the seat's bot for an action; fall back to the default policy. */
static int play_decision(match *m, maat_decision d, maat_events *ev)
{
    const maat_rules *r = m->c->rules;
    rbot *b = &m->bot[m->seat_bot[d.seat]];
    maat_action legal_small[512], *legal = legal_small, a;
    int n_legal = r->legal_actions(m->g, legal_small, 512);
    if (n_legal > 512) {
        legal = malloc(sizeof *legal * (size_t)n_legal);
        if (!legal)
            return MAAT_ENOMEM;
        r->legal_actions(m->g, legal, n_legal);
    }
    maat_error err = {0};
    int64_t wall = 0;
    uint64_t cpu = 0;
    if (b->dead && !b->out)
        fault(m, b, b->dead_kind, "%s", b->dead_detail);
    /* the clock starts before the send: sending is part of the turn */
    int64_t t0 = now_ns();
    /* the bot's CPU clock is a system call to read: only when it is shown
     * (the summary) or recorded (--record-timing) */
    int timed_cpu = b->proc && (m->c->record_timing || !m->c->quiet);
    uint64_t cpu0 = !b->out && timed_cpu ? maat_proc_cpu_ns(b->proc) : 0;
    if (!b->out && send_request(m, b, d, legal, n_legal) == 0) {
        int64_t allowed = base_ms(m, b) + b->bank_ms;
        int64_t deadline = t0 + (allowed + m->c->clock.grace_ms) * 1000000;
        m->pending_action_ok = 0;
        while (!m->pending_action_ok && !b->out && !m->interrupted &&
               now_ns() < deadline)
            wait_input(m, deadline);
        wall = now_ns() - t0;
        cpu = timed_cpu ? maat_proc_cpu_ns(b->proc) - cpu0 : 0;
        b->first_done = 1;
        b->decisions++;
        b->wall_ns_total += wall;
        b->wall_ns_max = wall > b->wall_ns_max ? wall : b->wall_ns_max;
        b->cpu_ns_total += cpu;
        if (m->interrupted) {
            if (legal != legal_small)
                free(legal);
            return MAAT_ESTATE;
        }
        if (m->pending_action_ok == 1) {
            /* the clock: time beyond the per-decision limit comes out of
             * the bank; the increment is added afterwards */
            int64_t used_ms = wall / 1000000, over = used_ms - base_ms(m, b);
            if (over > 0)
                b->bank_ms = b->bank_ms > over ? b->bank_ms - over : 0;
            b->bank_ms += m->c->clock.increment_ms;
            a = m->pending_action;
            if (r->apply(m->g, &a, ev, &err) == MAAT_OK) {
                record_decision(m, d.seat, &a, 1, wall, cpu);
                goto done;
            }
            fault(m, b, MAAT_FAULT_ILLEGAL, "%s", err.msg);
        } else if (m->pending_action_ok == 0 && !b->out) {
            b->last_timed_out = b->outstanding;
            b->outstanding = -1;
            fault(m, b, MAAT_FAULT_TIMEOUT,
                  "no answer within %lld ms (+%lld ms grace)",
                  (long long)allowed, (long long)m->c->clock.grace_ms);
            b->bank_ms = 0;
        }
    }
    /* the default policy: seeded, so a replay makes the same choice */
    maat_policy_random(r, m->g, &m->default_rng, &a);
    if (r->apply(m->g, &a, ev, &err) != MAAT_OK) {
        if (legal != legal_small)
            free(legal);
        return MAAT_ESTATE; /* cannot happen: a legal action was refused */
    }
    record_decision(m, d.seat, &a, 0, wall, cpu);
done:
    if (legal != legal_small)
        free(legal);
    return MAAT_OK;
}

static void send_end(match *m, rbot *b, const int *ranks)
{
    outbuf *o = out_begin(m);
    msgpack_packer *pk = &o->pk;
    int seats = m->n;
    maat_pack_map(pk, 5);
    maat_pack_kv_str(pk, "type", "end");
    maat_pack_kv_int(pk, "game_index", m->game_index);
    maat_pack_str(pk, "observation");
    m->c->rules->encode_observation(m->g, b->seat, pk);
    maat_pack_str(pk, "events");
    pack_events(m, b, pk);
    maat_pack_str(pk, "ranks");
    maat_pack_array(pk, (size_t)seats);
    for (int i = 0; i < seats; i++)
        msgpack_pack_int(pk, ranks[i]);
    send_to(m, b, o);
}

static int finish_game(match *m, int64_t started_ns, maat_error *err)
{
    const maat_rules *r = m->c->rules;
    maat_score sc[MAAT_MAX_SEATS];
    int ranks[MAAT_MAX_SEATS];
    r->scores(m->g, sc);
    match_ranks(m, sc, ranks);
    for (int i = 0; i < m->n; i++)
        if (!m->bot[i].dead)
            send_end(m, &m->bot[i], ranks);

    const char *names[MAAT_MAX_SEATS];
    int out[MAAT_MAX_SEATS];
    for (int s = 0; s < m->n; s++) {
        names[s] = m->bot[m->seat_bot[s]].spec->name;
        out[s] = m->bot[m->seat_bot[s]].out;
    }
    m->decisions = m->c->record_path ? decisions_json(m) : json_array();
    maat_game_result res = {
        .rules = r, .options = &m->c->options,
        .seed = m->game_seed, .game_index = m->game_index,
        .match_id = m->match_id, .seats = m->n, .bot_names = names,
        .scores = sc, .ranks = ranks, .out = out,
        .decisions = m->decisions, .n_decisions = (int)m->n_dec,
        .faults = m->faults,
        .duration_ms = (now_ns() - started_ns) / 1000000};
    int rc = MAAT_OK;
    if (m->c->record_path) {
        char path[1024];
        maat_record_path(m->c->record_path, m->c->games, m->game_index, path,
                         sizeof path);
        rc = maat_record_write(&res, path, err);
    }
    if (!rc && m->c->ladder_path)
        rc = maat_ladder_append(&res, m->c->ladder_path, err);
    if (!m->c->quiet) {
        fprintf(stderr, "maat-referee: game %d of %d, seed %llu, %d "
                "decisions\n  %-4s %-12s %4s %5s", m->game_index + 1,
                m->c->games, (unsigned long long)m->game_seed,
                m->decision_no, "seat", "bot", "rank", "score");
        for (int p = 0; p < r->n_score_parts; p++)
            fprintf(stderr, " %7s", r->score_parts[p]);
        fprintf(stderr, "  faults\n");
        for (int s = 0; s < m->n; s++) {
            const rbot *b = &m->bot[m->seat_bot[s]];
            fprintf(stderr, "  %-4d %-12s %4d %5d", s, names[s], ranks[s],
                    sc[s].total);
            for (int p = 0; p < r->n_score_parts; p++)
                fprintf(stderr, " %7d", sc[s].part[p]);
            fprintf(stderr, "  %d%s\n", b->faults, out[s] ? " (out)" : "");
        }
    }
    return rc;
}

static int play_game(match *m, int k, maat_error *err)
{
    const maat_rules *r = m->c->rules;
    int64_t started = now_ns();
    m->game_index = k;
    m->game_seed = m->c->same_deal ? m->c->seed : m->c->seed + (uint64_t)k;
    m->decision_no = 0;
    maat_seed deal, key;
    maat_seed_derive(&key, maat_seed_from_u64(&deal, m->game_seed), "policy");
    maat_rng_seed(&m->default_rng, &key);
    assign_seats(m, k);
    maat_events_clear(&m->ev);
    m->g = r->game_new(m->setup, &deal, m->n, &m->ev, err);
    if (!m->g)
        return err->code;
    m->n_dec = 0;
    m->decisions = NULL;
    m->faults = json_array();
    for (int i = 0; i < m->n; i++) {
        rbot *b = &m->bot[i];
        b->out = 0;
        memset(b->strikes, 0, sizeof b->strikes);
        b->faults = b->faults_dropped = 0;
        b->bank_ms = m->c->clock.bank_ms;
        b->events_sent = 0;
        if (!b->dead)
            send_start(m, b);
    }
    for (int i = 0; i < m->n; i++) /* a bot gone before this game is out */
        if (m->bot[i].dead)
            fault(m, &m->bot[i], m->bot[i].dead_kind, "%s",
                  m->bot[i].dead_detail);
    int rc = MAAT_OK;
    while (!r->is_over(m->g) && rc == MAAT_OK) {
        rc = play_decision(m, r->decision(m->g), &m->ev);
        m->decision_no++;
    }
    if (rc == MAAT_OK)
        rc = finish_game(m, started, err);
    else if (rc == MAAT_ESTATE)
        maat_error_set(err, MAAT_ESTATE, "interrupted during game %d", k);
    json_decref(m->decisions);
    json_decref(m->faults);
    m->decisions = m->faults = NULL;
    r->destroy(&m->g);
    return rc;
}

static void derive_match_id(match *m)
{
    const maat_match_config *c = m->c;
    if (c->match_id) {
        snprintf(m->match_id, sizeof m->match_id, "%s", c->match_id);
        return;
    }
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)c->seed);
    uint64_t h = fnv1a(0xcbf29ce484222325ULL, c->rules->name);
    h = fnv1a(h, seed);
    for (int i = 0; i < c->n_bots; i++)
        h = fnv1a(fnv1a(h, "|"), c->bots[i].name);
    snprintf(m->match_id, sizeof m->match_id, "%016llx",
             (unsigned long long)h);
}

static void print_summary(const match *m)
{
    if (m->c->quiet)
        return;
    fprintf(stderr, "maat-referee: %-12s %9s %9s %9s %9s\n", "bot",
            "decisions", "mean ms", "max ms", "cpu ms");
    for (int i = 0; i < m->n; i++) {
        const rbot *b = &m->bot[i];
        fprintf(stderr, "maat-referee: %-12s %9lld %9.2f %9.2f %9.1f\n",
                b->spec->name, (long long)b->decisions,
                b->decisions ? b->wall_ns_total / 1e6 / (double)b->decisions
                             : 0.0,
                b->wall_ns_max / 1e6, b->cpu_ns_total / 1e6);
    }
}

static void send_bye(match *m)
{
    for (int i = 0; i < m->n; i++) {
        outbuf *o = out_begin(m);
        maat_pack_map(&o->pk, 1);
        maat_pack_kv_str(&o->pk, "type", "bye");
        send_to(m, &m->bot[i], o);
    }
}

static void kill_by_token(match *m);

/* Give bots a moment to leave on their own after bye, then end them. */
static void stop_bots(match *m)
{
    int64_t deadline = now_ns() + 1000 * 1000000LL;
    for (;;) {
        int running = 0;
        for (int i = 0; i < m->n; i++) {
            int status;
            if (m->bot[i].proc && !maat_proc_exited(m->bot[i].proc, &status))
                running++;
        }
        if (!running || m->interrupted || now_ns() >= deadline)
            break;
        wait_input(m, deadline);
    }
    for (int i = 0; i < m->n; i++)
        maat_proc_destroy(&m->bot[i].proc);
    kill_by_token(m);
}

/* Does /proc/PID/environ hold one of this match's "MAAT_TOKEN=<token>"? */
static int has_token(const match *m, const char *pid)
{
    char path[64], env[65536];
    snprintf(path, sizeof path, "/proc/%s/environ", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, env, sizeof env - 1);
    close(fd);
    if (n <= 0)
        return 0;
    env[n] = 0;
    for (int i = 0; i < m->n; i++) {
        if (!m->bot[i].spec || !m->bot[i].spec->command)
            continue; /* not started (a spawn failed), or remote: not ours */
        char want[MAAT_MAX_TOKEN + 16];
        int len = snprintf(want, sizeof want, "%s=%s", MAAT_ENV_TOKEN,
                           m->bot[i].token);
        for (ssize_t k = 0; k + len <= n; k += (ssize_t)strlen(env + k) + 1)
            if (memcmp(env + k, want, (size_t)len + 1) == 0)
                return 1;
    }
    return 0;
}

/* A bot's descendant can leave its process group (setsid) and so escape
 * the group kill.  It still carries its seat's secret token in its
 * environment, which nothing else on the machine has: kill by that,
 * rescanning until a pass finds none (a process may fork meanwhile). */
static void kill_by_token(match *m)
{
    for (int round = 0; round < 20; round++) {
        DIR *d = opendir("/proc");
        int found = 0;
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (e->d_name[0] >= '1' && e->d_name[0] <= '9' &&
                atoi(e->d_name) != getpid() && has_token(m, e->d_name)) {
                kill(atoi(e->d_name), SIGKILL);
                found++;
            }
        if (d)
            closedir(d);
        if (!found)
            return;
        if (!m->c->quiet && round == 0)
            fprintf(stderr, "maat-referee: killed %d bot process%s that "
                    "left their process group\n", found,
                    found == 1 ? "" : "es");
        /* reap what was ours (e.g. orphans reparented to a subreaper) */
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
    }
}

int maat_match_run(const maat_match_config *c, maat_error *err)
{
    match *m = calloc(1, sizeof *m);
    if (!m)
        return maat_error_set(err, MAAT_ENOMEM, "out of memory");
    m->c = c;
    m->n = c->n_bots;
    m->sigfd = -1;
    msgpack_sbuffer_init(&m->ob.sb);
    msgpack_packer_init(&m->ob.pk, &m->ob.sb, maat_sbuffer_write);
    int rc = MAAT_OK;
    if (m->n < c->rules->min_seats || m->n > c->rules->max_seats) {
        rc = maat_error_set(err, MAAT_EINVAL, "%s is for %d to %d seats; "
                            "%d bots given", c->rules->name,
                            c->rules->min_seats, c->rules->max_seats, m->n);
        goto out;
    }
    derive_match_id(m);
    m->setup = c->rules->setup_new(&c->options, err);
    if (!m->setup) {
        rc = err->code = MAAT_EINVAL; /* a bad deck or option: the config */
        goto out;
    }
    /* SIGINT/SIGTERM/SIGCHLD arrive through a signalfd in the wait loop,
     * so an interrupt always ends with every bot process stopped. */
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGCHLD);
    sigprocmask(SIG_BLOCK, &mask, &m->oldmask);
    m->sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    signal(SIGPIPE, SIG_IGN);
    m->tr = maat_transport_new(c->endpoint, c->curve_secret, err);
    if (!m->tr) {
        rc = err->code;
        goto out;
    }
    rc = start_bots(m, err);
    if (rc)
        goto out;
    await_hellos(m);
    for (int k = 0; k < c->games && rc == MAAT_OK && !m->interrupted; k++)
        rc = play_game(m, k, err);
    if (m->interrupted && rc == MAAT_OK)
        rc = maat_error_set(err, MAAT_ESTATE, "interrupted");
    send_bye(m);
    print_summary(m);
out:
    if (m->tr)
        stop_bots(m);
    for (int i = 0; i < m->n; i++)
        maat_proc_destroy(&m->bot[i].proc);
    maat_transport_destroy(&m->tr);
    if (m->setup)
        c->rules->setup_destroy(&m->setup);
    maat_events_free(&m->ev);
    if (m->sigfd >= 0) {
        close(m->sigfd);
        sigprocmask(SIG_SETMASK, &m->oldmask, NULL);
    }
    msgpack_sbuffer_destroy(&m->ob.sb);
    free(m->dec);
    free(m);
    return rc;
}
