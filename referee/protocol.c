/* protocol.c -- the referee's side of the wire protocol (docs/PROTOCOL.md).
 *
 * Owns every message the referee sends (welcome, start, request, end, bye,
 * reject) and the handling of every inbound message: a hello from an
 * address with no seat (authentication by token, and by CURVE key when
 * encryption is on), an action from a seated bot, and anything else a peer
 * may send.  Inbound bytes are hostile: each is checked before use, and a
 * bad message from a seat is a fault against that seat only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maat/internal/msg.h"
#include "match_state.h"
#include "outcome.h"

/* The match's one output buffer, emptied for each message: every message
 * is sent before the next is built, and reusing it saves an allocation per
 * message on the per-decision path. */
outbuf *match_out(match *m)
{
    m->ob.sb.size = 0;
    return &m->ob;
}

/* Send to a bot; a failed send means the peer is gone. */
int match_send(match *m, match_bot *b, outbuf *o)
{
    int rc = 0;
    if (b->connected && !b->dead &&
        maat_transport_send(m->tr, b->rid, b->rid_len, o->sb.data,
                            o->sb.size) != 0) {
        rc = -1;
        /* a match_fault only while the game runs: once it is over, results are
         * fixed and a bot that cannot take its "end" is merely gone */
        if (m->g && !m->c->rules->is_over(m->g))
            match_fault(m, b, MAAT_FAULT_CRASH, "cannot send to the bot: %s",
                  zmq_strerror(zmq_errno()));
        b->dead = 1;
    }
    return rc;
}

/* Encode the game's events not yet encoded into m->evb, each once: a
 * module's bytes for an event depend on the event alone (all of them
 * encode through the kit's wire declarations, and a seat was always sent
 * an event some time after it happened, never in the state it happened
 * in), so at 4 seats this is a quarter of the encoding it was. */
static void encode_new_events(match *m)
{
    size_t count = m->ev.count;
    if (m->ev_encoded == count)
        return;
    if (count > m->ev_cap) {
        size_t cap = m->ev_cap ? m->ev_cap : 256;
        while (cap < count)
            cap *= 2;
        size_t *e = realloc(m->ev_end, cap * sizeof *e);
        if (!e)
            return; /* pack_events encodes the rest one by one */
        m->ev_end = e;
        m->ev_cap = cap;
    }
    for (size_t i = m->ev_encoded; i < count; i++) {
        m->c->rules->encode_event(m->g, &m->ev.items[i], &m->evb.pk);
        m->ev_end[i] = m->evb.sb.size;
    }
    m->ev_encoded = count;
}

/* Events the bot's seat may see that it has not been sent yet: their
 * bytes copied from m->evb, a run of consecutive visible events at a
 * time. */
static void pack_events(match *m, match_bot *b, msgpack_packer *pk)
{
    uint32_t me = 1u << b->seat;
    size_t n = 0, count = m->ev.count;
    const maat_event *items = m->ev.items;
    for (size_t i = b->events_sent; i < count; i++)
        n += (items[i].visible_to & me) != 0;
    maat_pack_array(pk, n);
    encode_new_events(m);
    for (size_t i = b->events_sent; i < count;) {
        if (!(items[i].visible_to & me)) {
            i++;
            continue;
        }
        if (i >= m->ev_encoded) { /* out of memory for the offsets */
            m->c->rules->encode_event(m->g, &items[i++], pk);
            continue;
        }
        size_t from = i ? m->ev_end[i - 1] : 0;
        while (i < count && i < m->ev_encoded && (items[i].visible_to & me))
            i++;
        size_t len = m->ev_end[i - 1] - from;
        pk->callback(pk->data, m->evb.sb.data + from, len);
    }
    b->events_sent = count;
}

static int send_request(match *m, match_bot *b, int observation,
                        int events);

static match_bot *bot_by_rid(match *m, const maat_inbound *in)
{
    for (int i = 0; i < m->n; i++)
        if (m->bot[i].connected && m->bot[i].rid_len == in->rid_len &&
            memcmp(m->bot[i].rid, in->rid, in->rid_len) == 0)
            return &m->bot[i];
    return NULL;
}

static void send_reject(match *m, const maat_inbound *in, const char *reason)
{
    outbuf *o = match_out(m);
    maat_pack_map(&o->pk, 2);
    maat_pack_kv_str(&o->pk, "type", "reject");
    maat_pack_kv_str(&o->pk, "reason", reason);
    maat_transport_send(m->tr, in->rid, in->rid_len, o->sb.data, o->sb.size);
}

static void send_welcome(match *m, match_bot *b)
{
    outbuf *o = match_out(m);
    /* No match id and nothing else derived from the seed: a default id
     * hashes the seed, and a bot that could invert it would know the deck. */
    maat_pack_map(&o->pk, 6);
    maat_pack_kv_str(&o->pk, "type", "welcome");
    maat_pack_kv_int(&o->pk, "version", b->version);
    maat_pack_kv_str(&o->pk, "game", m->c->rules->name);
    maat_pack_kv_str(&o->pk, "rules_version", m->c->rules->rules_version);
    maat_pack_kv_int(&o->pk, "games", m->c->games);
    maat_pack_str(&o->pk, "setup");
    m->c->rules->setup_encode(m->setup, &o->pk);
    match_send(m, b, o);
}

/* A hello from an address with no seat: find the seat by token.  Returns
 * the reason sent back when it is refused, with what to log in `why`, or
 * NULL when the peer now has a seat. */
static const char *on_hello(match *m, const maat_inbound *in,
                            const msgpack_object *o, char *why, size_t len)
{
    const msgpack_object *tok = maat_msg_get(o, "token");
    int64_t version = 0;
    maat_error err = {0};
    if (maat_msg_get_int(o, "version", 0, INT32_MAX, &version, &err) ||
        version < MAAT_PROTOCOL_VERSION || version > MAAT_PROTOCOL_MAX) {
        snprintf(why, len, "with protocol version %lld, we speak %d to %d",
                 (long long)version, MAAT_PROTOCOL_VERSION,
                 MAAT_PROTOCOL_MAX);
        return "unsupported protocol version";
    }
    for (int i = 0; i < m->n; i++) {
        match_bot *b = &m->bot[i];
        if (!tok || !maat_msg_str_eq(tok, b->token))
            continue;
        if (m->c->curve_secret && strcmp(in->user, b->spec->name) != 0) {
            snprintf(why, len, "with the token of %s from a connection "
                     "authenticated as '%s'", b->spec->name, in->user);
            return "token and key belong to different seats";
        }
        if (b->connected || b->dead) {
            snprintf(why, len, "with the token of %s: %s", b->spec->name,
                     b->connected ? "already in use" : "that seat is closed");
            return b->connected ? "token already in use" : "seat closed";
        }
        memcpy(b->rid, in->rid, in->rid_len);
        b->rid_len = in->rid_len;
        b->connected = 1;
        b->version = (int)version; /* we speak the bot's */
        if (m->c->sandbox && b->proc) /* time the bot, not bubblewrap */
            maat_proc_follow_wrapper(b->proc);
        if (m->c->verbose)
            match_say(m, "%s said hello", b->spec->name);
        send_welcome(m, b);
        return NULL;
    }
    snprintf(why, len, "with an unknown token");
    return "unknown token";
}

/* A note about a bot that is no fault (*count: how many of its kind so
 * far): the first MATCH_NOTES_LOGGED are logged, the rest counted for
 * match_report_notes, so a bot cannot make the log grow a line per
 * message it sends. */
static void note(match *m, const match_bot *b, uint64_t *count,
                 const char *what)
{
    uint64_t k = ++*count;
    if (k > MATCH_NOTES_LOGGED)
        return;
    const char *more = k == MATCH_NOTES_LOGGED ? "; more like it are "
                       "counted, not logged" : "";
    if (m->g)
        match_say(m, "seat %d (%s): %s%s", b->seat, b->spec->name, what, more);
    else /* no seats before the first game */
        match_say(m, "%s: %s%s", b->spec->name, what, more);
}

void match_report_notes(const match *m)
{
    for (int i = 0; i < m->n; i++) {
        const match_bot *b = &m->bot[i];
        if (b->early_notes > MATCH_NOTES_LOGGED)
            match_say(m, "%s sent %llu messages before the game started; "
                      "%d were logged", b->spec->name,
                      (unsigned long long)b->early_notes, MATCH_NOTES_LOGGED);
        if (b->late_notes > MATCH_NOTES_LOGGED)
            match_say(m, "%s sent %llu late replies, discarded; %d were "
                      "logged", b->spec->name,
                      (unsigned long long)b->late_notes, MATCH_NOTES_LOGGED);
    }
}

/* A malformed message from the seat we are waiting on is its answer: one
 * match_fault, a default action, and no second (timeout) match_fault for the same
 * decision. */
static void malformed(match *m, match_bot *b, const char *detail)
{
    if (b->outstanding >= 0) {
        b->last_answered = b->outstanding;
        b->outstanding = -1;
        m->pending_action_ok = -1;
    }
    match_fault(m, b, MAAT_FAULT_MALFORMED, "%s", detail);
}

/* A reply (an action or a resync) whose seq is not the open request's.
 * A late one -- to the request last timed out, before any later answer --
 * is discarded: returns 0 when it answers the very request the timeout
 * fault names (its think_us belongs there), 1 otherwise. */
static int stray_seq(match *m, match_bot *b, int64_t seq, const char *what)
{
    if (seq <= b->last_timed_out && seq > b->last_answered) {
        char what_late[80];
        snprintf(what_late, sizeof what_late, "late %s to request %lld "
                 "discarded", what, (long long)seq);
        note(m, b, &b->late_notes, what_late);
        return seq != b->last_timed_out;
    }
    if (seq == b->last_answered)
        match_fault(m, b, MAAT_FAULT_MALFORMED, "second %s to request %lld",
                    what, (long long)seq);
    else
        match_fault(m, b, MAAT_FAULT_MALFORMED,
                    "%s to request %lld, which is not outstanding", what,
                    (long long)seq);
    return 1;
}

/* {type: resync, seq} (version 2 and 3): the open request again, with the
 * observation and no events (the first copy carried them), on the same
 * clock.  One per request: a second is malformed, which closes it. */
static void on_resync(match *m, match_bot *b, const msgpack_object *seq_o)
{
    int64_t seq = -1;
    maat_error err = {0};
    char detail[320];
    if (b->version < MAAT_PROTOCOL_DELTA) {
        malformed(m, b, "a resync from a seat that speaks protocol "
                  "version 1 (resync came with version 2)");
    } else if (maat_msg_int(seq_o, "seq", 0, INT64_MAX, &seq, &err)) {
        snprintf(detail, sizeof detail, "expected {type: resync, seq}: %s",
                 err.msg);
        malformed(m, b, detail);
    } else if (seq != b->outstanding) {
        stray_seq(m, b, seq, "resync");
    } else if (b->resynced) {
        snprintf(detail, sizeof detail, "a second resync of request %lld",
                 (long long)seq);
        malformed(m, b, detail);
    } else {
        b->resynced = 1;
        send_request(m, b, 1, 0);
    }
}

/* What is wrong with a message's type field, when it is not a str: the
 * common mistake is a bin (a packer that writes bytes as bin).  Returns 1
 * with the reason in err, 0 when type is a str (some other word). */
static int type_error(const msgpack_object *t, maat_error *err)
{
    if (!t)
        maat_error_set(err, MAAT_EDECODE, "field 'type' is missing");
    else if (t->type == MSGPACK_OBJECT_BIN)
        maat_error_set(err, MAAT_EDECODE, "field 'type' is a bin; it must "
                       "be a str (msgpack str, not bytes)");
    else if (t->type != MSGPACK_OBJECT_STR)
        maat_error_set(err, MAAT_EDECODE, "field 'type' must be a str");
    else
        return 0;
    return 1;
}

/* A message from a seated bot. */
static void on_bot_message(match *m, match_bot *b, const maat_inbound *in)
{
    msgpack_object msg;
    maat_error err = {0};
    const void *data = zmq_msg_data((zmq_msg_t *)&in->payload);
    size_t len = zmq_msg_size((zmq_msg_t *)&in->payload);
    char detail[320];
    if (b->out || b->dead)
        return; /* a seat that is out is no longer listened to */
    if (!m->g) {
        note(m, b, &b->early_notes, "message before the game started, "
             "ignored");
        return;
    }
    if (in->frames != 2) {
        snprintf(detail, sizeof detail, "sent a %d-frame message; one frame "
                 "expected", in->frames - 1);
        malformed(m, b, detail);
        return;
    }
    /* the envelope's fields: the usual answer read in one pass from its
     * bytes, anything else decoded and then searched for them (the same
     * objects either way: maat_msg_read_answer) */
    static const maat_msg_key keys[] = {
        MAAT_MSG_KEY("type"), MAAT_MSG_KEY("seq"), MAAT_MSG_KEY("action"),
        MAAT_MSG_KEY("think_us")};
    maat_msg_answer store;
    const msgpack_object *f[4];
    msg.type = MSGPACK_OBJECT_NIL; /* (only a hello below reads it) */
    if (!maat_msg_read_answer(data, len, &store, f)) {
        if (maat_msg_unpack_zone(data, len, &m->zone, &msg, &err)) {
            snprintf(detail, sizeof detail, "undecodable: %s", err.msg);
            malformed(m, b, detail);
            return;
        }
        maat_msg_pickn(&msg, keys, 4, f);
    }
    int64_t seq = -1, think_us = -1;
    if (MAAT_MSG_STR_IS(f[0], "hello") &&
        maat_msg_str_eq(maat_msg_get(&msg, "token"), b->token)) {
        /* its own hello again: one it sent before our welcome reached it
         * (the SDK says hello every second until welcomed, and a slow
         * referee may welcome it after the next one left).  Harmless:
         * ignored, its clock runs on. */
        if (m->c->verbose)
            match_say(m, "%s: hello again, ignored", b->spec->name);
    } else if (MAAT_MSG_STR_IS(f[0], "resync")) {
        on_resync(m, b, f[1]);
    } else if (!MAAT_MSG_STR_IS(f[0], "action") &&
               type_error(f[0], &err)) {
        snprintf(detail, sizeof detail,
                 "expected {type: action, seq, action[, think_us]}: %s",
                 err.msg);
        malformed(m, b, detail);
    } else if (!MAAT_MSG_STR_IS(f[0], "action") ||
        maat_msg_int(f[1], "seq", 0, INT64_MAX, &seq, &err) ||
        maat_msg_int_or(f[3], "think_us", 0, MATCH_MAX_THINK_US, -1,
                        &think_us, &err)) {
        snprintf(detail, sizeof detail,
                 "expected {type: action, seq, action[, think_us]}: %s",
                 err.msg[0] ? err.msg : "wrong type");
        malformed(m, b, detail);
    } else if (seq != b->outstanding) {
        if (!stray_seq(m, b, seq, "reply"))
            match_note_late_think(m, b, think_us);
    } else if (m->c->rules->decode_action(m->g, f[2], &m->pending_action,
                                          &err)) {
        snprintf(detail, sizeof detail, "bad action: %s", err.msg);
        malformed(m, b, detail);
    } else {
        b->outstanding = -1;
        b->last_answered = seq;
        m->pending_action_ok = 1;
        m->answered_ns = maat_now_ns(); /* its time ends here, not after
                                           the rest of the batch is read */
        m->pending_think_us = think_us;
    }
}

static stranger *stranger_find(match *m, const maat_inbound *in)
{
    for (int i = 0; i < m->n_strangers; i++)
        if (m->strangers[i].rid_len == in->rid_len &&
            memcmp(m->strangers[i].rid, in->rid, in->rid_len) == 0)
            return &m->strangers[i];
    if (m->n_strangers == MAX_STRANGERS)
        return NULL;
    stranger *s = &m->strangers[m->n_strangers++];
    memcpy(s->rid, in->rid, in->rid_len);
    s->rid_len = in->rid_len;
    snprintf(s->user, sizeof s->user, "%s", in->user);
    maat_text_sanitize(s->user);
    s->messages = 0;
    return s;
}

/* "peer 0080000041" or "peer 0080000041 (key of eve)": the routing id,
 * which names the connection in the log and nothing more. */
static void stranger_name(const uint8_t *rid, size_t rid_len,
                          const char *user, char *out, size_t len)
{
    size_t n = (size_t)snprintf(out, len, "peer ");
    for (size_t i = 0; i < rid_len && i < 8 && n + 3 < len; i++)
        n += (size_t)snprintf(out + n, len - n, "%02x", rid[i]);
    if (user && user[0] && n < len)
        snprintf(out + n, len - n, " (key of %s)", user);
}

/* A message from an address with no seat.  Nothing it sends can end the
 * match: it may only ever earn a seat with a hello carrying a token.  A
 * refused hello gets a reject; anything else is logged and ignored. */
static void on_stranger(match *m, maat_inbound *in)
{
    /* A connection past its allowance is dropped unread.  Connections
     * beyond the table are still read (a late entrant must be able to say
     * hello whatever a flooder did) but never logged. */
    stranger *st = stranger_find(m, in);
    uint64_t count = st ? ++st->messages : ++m->strangers_unlisted;
    if (st && count > STRANGER_READ)
        return; /* counted; reported once at the end of the match */
    /* What the referee spends on a connection with no seat while a seat
     * decides is charged to the deciding bot, whoever opened it.  The
     * table bounds each listed connection; beyond it, a bot could open a
     * hundred more and flood from them: so then only what could be a
     * hello is read (it is answered, so that a remote bot reconnecting
     * many times still hears why it has no seat), the rest dropped
     * unread until the decision is over. */
    if (!st && m->deciding && zmq_msg_size(&in->payload) > HELLO_MAX_BYTES) {
        m->strangers_unread++;
        return;
    }
    char why[300] = "", peer[128];
    const char *reason = NULL;
    int hello = 0; /* the message was a hello (refused: reason and why) */
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t size = zmq_msg_size(&in->payload);
    if (in->frames != 2) {
        snprintf(why, sizeof why, "a %d-frame message (one frame expected: "
                 "a DEALER socket sending the message alone)", in->frames - 1);
        reason = "one frame per message";
    }
    else if (size > STRANGER_MAX_BYTES) /* not a hello: not decoded */
        snprintf(why, sizeof why, "a message of %zu bytes, unread (a hello "
                 "is at most %d)", size, STRANGER_MAX_BYTES);
    else if (maat_msg_unpack(zmq_msg_data(&in->payload),
                             zmq_msg_size(&in->payload), &u, NULL) != MAAT_OK)
        snprintf(why, sizeof why, "a message that is not msgpack");
    else if (!maat_msg_str_eq(maat_msg_get(&u.data, "type"), "hello"))
        snprintf(why, sizeof why, "a message before any hello");
    else {
        hello = 1;
        reason = on_hello(m, in, &u.data, why, sizeof why);
        if (!reason) { /* seated: the connection is no stranger any more */
            msgpack_unpacked_destroy(&u);
            if (st)
                *st = m->strangers[--m->n_strangers];
            return;
        }
    }
    msgpack_unpacked_destroy(&u);
    if (reason)
        send_reject(m, in, reason);
    if (!st || count > STRANGER_LOGGED)
        return;
    maat_text_sanitize(why);
    stranger_name(in->rid, in->rid_len, in->user, peer, sizeof peer);
    match_say(m, "refused %s%s (%s, message %llu of this connection%s)",
              hello ? "a hello " : "", why, peer, (unsigned long long)count,
              count == STRANGER_LOGGED ? "; its further messages are counted, "
              "not logged" : "");
}

static void dispatch(match *m, match_bot *b, maat_inbound *in)
{
    if (b)
        on_bot_message(m, b, in);
    else
        on_stranger(m, in);
}

/* While a seat decides, what the referee spends on another seat's
 * messages (its hello again, a late reply, anything) is timed and kept
 * out of the deciding seat's clock: one bot's flood costs its victim
 * nothing (match.c, wait_for_answer).  Not a stranger's: the deciding bot
 * itself can open more connections, and would stretch its own clock by
 * flooding from them; a stranger is bounded instead (8 messages read per
 * connection, none over STRANGER_MAX_BYTES). */
void match_on_inbound(match *m, maat_inbound *in)
{
    match_bot *b = bot_by_rid(m, in);
    if (!m->deciding || !b || b == m->deciding || m->pending_action_ok) {
        dispatch(m, b, in);
        return;
    }
    int64_t t = maat_now_ns();
    dispatch(m, b, in);
    m->others_ns += maat_now_ns() - t;
}

void match_report_strangers(const match *m)
{
    for (int i = 0; i < m->n_strangers; i++) {
        const stranger *st = &m->strangers[i];
        if (st->messages <= STRANGER_LOGGED)
            continue;
        char peer[128];
        stranger_name(st->rid, st->rid_len, st->user, peer, sizeof peer);
        match_say(m, "%s sent %llu messages with no seat; %d were logged",
                  peer, (unsigned long long)st->messages, STRANGER_LOGGED);
    }
    if (m->strangers_unlisted)
        match_say(m, "%llu more messages came from more than %d connections "
                  "with no seat, none logged; %llu of them, sent while a "
                  "seat decided and larger than a hello, were dropped unread",
                  (unsigned long long)m->strangers_unlisted, MAX_STRANGERS,
                  (unsigned long long)m->strangers_unread);
}

void match_send_start(match *m, match_bot *b)
{
    outbuf *o = match_out(m);
    maat_pack_map(&o->pk, 4);
    maat_pack_kv_str(&o->pk, "type", "start");
    maat_pack_kv_int(&o->pk, "game_index", m->game_index);
    maat_pack_kv_int(&o->pk, "seat", b->seat);
    maat_pack_kv_int(&o->pk, "seats", m->n);
    match_send(m, b, o);
}

/* Bytes already encoded (a run of constant keys and values), written
 * with one copy when the buffer has room. */
#define PACK_RAW(pk, lit) pack_raw((pk), "" lit "", sizeof(lit) - 1)
static inline void pack_raw(msgpack_packer *pk, const char *bytes, size_t n)
{
    char *p = maat_pack_room(pk, n);
    if (p) {
        memcpy(p, bytes, n);
        ((msgpack_sbuffer *)pk->data)->size += n;
    } else {
        pk->callback(pk->data, bytes, n);
    }
}

/* A request: the observation when `observation` is set, the events when
 * `events` is set (else an empty list: a resync's copy, whose events the
 * first copy carried); the legal list unless the seat speaks version 3,
 * whose bot works it out from its view. */
static int send_request(match *m, match_bot *b, int observation, int events)
{
    const maat_rules *r = m->c->rules;
    outbuf *o = match_out(m);
    msgpack_packer *pk = &o->pk;
    int legal = b->version < MAAT_PROTOCOL_NO_LEGAL;
    /* the constant keys and values as their msgpack bytes: what
     * maat_pack_map, maat_pack_kv_str and maat_pack_str write for them */
    maat_pack_map(pk, 6 + (observation != 0) + legal);
    PACK_RAW(pk, "\xa4type\xa7request\xa3seq");
    maat_pack_int(pk, b->outstanding);
    PACK_RAW(pk, "\xaagame_index");
    maat_pack_int(pk, m->game_index);
    PACK_RAW(pk, "\xa8" "decision");
    maat_pack_str(pk, r->decision_names[m->cur_decision.kind]);
    if (observation) {
        maat_pack_str(pk, "observation");
        r->encode_observation(m->g, m->cur_decision.seat, pk);
        b->has_observation = 1;
    }
    PACK_RAW(pk, "\xa6" "events");
    if (events)
        pack_events(m, b, pk);
    else
        maat_pack_array(pk, 0);
    if (legal) {
        maat_pack_str(pk, "legal");
        maat_pack_array(pk, (size_t)m->cur_n_legal);
        for (int i = 0; i < m->cur_n_legal; i++)
            r->encode_action(m->g, &m->cur_legal[i], pk);
    }
    /* a resync's copy shows the same clock: the deadline is the first
     * copy's, and the time spent meanwhile was the bot's */
    PACK_RAW(pk, "\xa5" "clock\x83\xactime_left_ms");
    maat_pack_int(pk, match_base_ms(m, b) + b->bank_ms);
    PACK_RAW(pk, "\xab" "decision_ms");
    maat_pack_int(pk, match_base_ms(m, b));
    PACK_RAW(pk, "\xa7" "bank_ms");
    maat_pack_int(pk, b->bank_ms);
    return match_send(m, b, o);
}

int match_send_request(match *m, match_bot *b, maat_decision d,
                       const maat_action *legal, int n_legal)
{
    b->outstanding = ++m->seq;
    b->resynced = 0;
    m->cur_decision = d;
    m->cur_legal = legal;
    m->cur_n_legal = n_legal;
    /* versions 2 and 3 keep their view from the events: the observation
     * only when the seat has none for this game yet */
    return send_request(m, b, b->version < MAAT_PROTOCOL_DELTA ||
                                  !b->has_observation, 1);
}

void match_send_end(match *m, match_bot *b, const int *ranks)
{
    outbuf *o = match_out(m);
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
    match_send(m, b, o);
}

void match_send_bye(match *m)
{
    for (int i = 0; i < m->n; i++) {
        outbuf *o = match_out(m);
        maat_pack_map(&o->pk, 1);
        maat_pack_kv_str(&o->pk, "type", "bye");
        match_send(m, &m->bot[i], o);
    }
}
