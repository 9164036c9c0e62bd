/* peer.h -- a bot's side of the protocol, for in-process tests of the
 * match loop (test_match.c, fuzz/fuzz_match.c) and test bots (the spy): a
 * hello, reading what the referee sends (remembering the open request and
 * its first legal action), and answering.  Protocol version 3 sends no
 * legal list: a peer_view works it out from the messages, as the SDK's bot
 * loop does.  Trusted input (our own referee), so no checking beyond what
 * keeps a test from crashing.
 */
#ifndef MAAT_TEST_PEER_H
#define MAAT_TEST_PEER_H

#include <stdint.h>
#include <msgpack.h>
#include <zmq.h>

#include "maat/game.h"
#include "maat/internal/msg.h"

/* What a version-3 peer knows of the game: the welcome's setup, a view
 * fed every message of the game since its start, and the view's legal
 * list (view_legal_actions: the referee's, in order). */
#define PEER_MAX_LEGAL 1024
typedef struct peer_view {
    const maat_rules *rules;
    maat_setup *setup;
    maat_view *view;
    maat_action legal[PEER_MAX_LEGAL];
} peer_view;

static inline void peer_view_free(peer_view *pv)
{
    if (pv->rules) {
        pv->rules->view_destroy(&pv->view);
        pv->rules->setup_destroy(&pv->setup);
    }
    pv->rules = NULL;
}

/* Feed one message m; for a request, returns how many legal actions the
 * view has (0 when it cannot say), else 0. */
static inline int peer_view_follow(peer_view *pv, const msgpack_object *m)
{
    maat_error err = {0, ""};
    const msgpack_object *type = maat_msg_get(m, "type");
    if (maat_msg_str_eq(type, "welcome")) {
        peer_view_free(pv);
        int n;
        const maat_rules *const *all = maat_rules_all(&n);
        for (int i = 0; i < n; i++)
            if (maat_msg_str_eq(maat_msg_get(m, "game"), all[i]->name))
                pv->rules = all[i];
        if (pv->rules)
            pv->setup = pv->rules->setup_decode(maat_msg_get(m, "setup"),
                                                &err);
    } else if (maat_msg_str_eq(type, "start") && pv->setup) {
        int64_t seat, seats;
        pv->rules->view_destroy(&pv->view);
        if (!maat_msg_get_int(m, "seat", 0, MAAT_MAX_SEATS - 1, &seat,
                              &err) &&
            !maat_msg_get_int(m, "seats", 1, MAAT_MAX_SEATS, &seats, &err))
            pv->view = pv->rules->view_new(pv->setup, (int)seat, (int)seats);
    } else if (maat_msg_str_eq(type, "request") && pv->view &&
               pv->rules->view_update(pv->view, maat_msg_get(m, "events"),
                                      maat_msg_get(m, "observation"),
                                      &err) == MAAT_OK) {
        int n = pv->rules->view_legal_actions(pv->view, pv->legal,
                                              PEER_MAX_LEGAL);
        return n > 0 && n <= PEER_MAX_LEGAL ? n : 0;
    }
    return 0;
}

/* A hello offering protocol version `version` (1; 2: the delta protocol,
 * whose requests carry the observation only the first time; 3: nor the
 * legal list). */
static inline void send_hello_v(void *s, const char *token, int version)
{
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 4);
    maat_pack_kv_str(&pk, "type", "hello");
    maat_pack_kv_int(&pk, "version", version);
    maat_pack_kv_str(&pk, "token", token);
    maat_pack_kv_str(&pk, "name", "peer");
    zmq_send(s, sb.data, sb.size, ZMQ_DONTWAIT);
    msgpack_sbuffer_destroy(&sb);
}

static inline void send_hello(void *s, const char *token)
{
    send_hello_v(s, token, 1);
}

/* {type: resync, seq}: the open request again, with its observation. */
static inline void send_resync(void *s, int64_t seq)
{
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 2);
    maat_pack_kv_str(&pk, "type", "resync");
    maat_pack_kv_int(&pk, "seq", seq);
    zmq_send(s, sb.data, sb.size, ZMQ_DONTWAIT);
    msgpack_sbuffer_destroy(&sb);
}

/* A peer's open request, if one arrived: seq and first legal action.  A
 * peer may hold a seat (its own token or one it took) or none; the referee
 * asks one decision at a time, so one open request per peer is enough. */
typedef struct seat_state {
    int64_t seq; /* -1: none open */
    int64_t bank_ms; /* the latest request's clock.bank_ms */
    msgpack_sbuffer action;
    peer_view *pv; /* to answer version-3 requests (NULL: no view) */
} seat_state;

/* Read what the referee sent a seat; remember its latest request. */
static inline void read_seat(void *s, seat_state *st, int wait_ms)
{
    zmq_pollitem_t it = {s, 0, ZMQ_POLLIN, 0};
    while (zmq_poll(&it, 1, wait_ms) > 0) {
        wait_ms = 0;
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, s, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&m);
            return;
        }
        msgpack_unpacked u;
        msgpack_unpacked_init(&u);
        if (msgpack_unpack_next(&u, zmq_msg_data(&m), zmq_msg_size(&m),
                                NULL) == MSGPACK_UNPACK_SUCCESS) {
            const msgpack_object *type = maat_msg_get(&u.data, "type");
            int n = st->pv ? peer_view_follow(st->pv, &u.data) : 0;
            if (maat_msg_str_eq(type, "request")) {
                const msgpack_object *seq = maat_msg_get(&u.data, "seq");
                const msgpack_object *legal = maat_msg_get(&u.data, "legal");
                st->seq = seq ? (int64_t)seq->via.u64 : -1;
                const msgpack_object *bank =
                    maat_msg_get(maat_msg_get(&u.data, "clock"), "bank_ms");
                st->bank_ms = bank ? (int64_t)bank->via.u64 : -1;
                st->action.size = 0;
                msgpack_packer pk;
                msgpack_packer_init(&pk, &st->action, msgpack_sbuffer_write);
                if (legal && legal->type == MSGPACK_OBJECT_ARRAY &&
                    legal->via.array.size > 0)
                    msgpack_pack_object(&pk, legal->via.array.ptr[0]);
                else if (n > 0) /* version 3 */
                    st->pv->rules->encode_action(NULL, &st->pv->legal[0],
                                                 &pk);
                else /* nothing to answer with: a broken answer */
                    msgpack_pack_nil(&pk);
            }
        }
        msgpack_unpacked_destroy(&u);
        zmq_msg_close(&m);
    }
}

/* The action for `seq`, with the bot's own think_us when it is >= 0. */
static inline void answer_think(void *s, seat_state *st, int64_t seq,
                                int64_t think_us)
{
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, think_us >= 0 ? 4 : 3);
    maat_pack_kv_str(&pk, "type", "action");
    maat_pack_kv_int(&pk, "seq", seq);
    maat_pack_str(&pk, "action");
    msgpack_sbuffer_write(&sb, st->action.data, st->action.size);
    if (think_us >= 0)
        maat_pack_kv_int(&pk, "think_us", think_us);
    zmq_send(s, sb.data, sb.size, ZMQ_DONTWAIT);
    msgpack_sbuffer_destroy(&sb);
}

static inline void answer(void *s, seat_state *st, int64_t seq)
{
    answer_think(s, st, seq, -1);
}

#endif
