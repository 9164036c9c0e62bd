/* spy.c -- maat-spy-bot: a test bot that records everything it is sent.
 *
 * It speaks the protocol on raw libzmq (a DEALER), so it sees the bytes
 * exactly as the referee sent them: hello with MAAT_TOKEN / MAAT_BOT_NAME
 * to MAAT_ENDPOINT, then every message it receives is appended, raw, to
 * DIR/<name>.bin as [4-byte little-endian length][bytes].  Each request is
 * answered with a uniformly random entry of its `legal` list, sent back
 * byte for byte as the referee encoded it; it leaves on `bye`.
 *
 *   maat-spy-bot [--dir DIR] [--seed N] [--think-us T] [--version V]
 *                [--resync K]
 *
 * With --think-us each answer also reports think_us = T + its seq (the
 * bot's own time, docs/PROTOCOL.md): a made-up but reproducible value, so
 * records with --record-timing have a think_us to compare byte for byte.
 * --version 2 offers protocol version 2 (requests without the observation
 * after the first of each game); --version 3 also requests without the
 * legal list, which the spy then works out as the SDK does: a view fed
 * every message, its view_legal_actions, the entry drawn encoded with the
 * game's encode_action (the bytes the referee would have sent); the
 * default is version 1.  --resync K (version 2 or 3): the K-th request is
 * answered with a resync, and its copy with an action.
 * DIR defaults to $MAAT_SPY_DIR.  The choices are seeded from --seed N (or
 * $MAAT_SPY_SEED) and the bot's name when given -- so a match between spies
 * is deterministic -- else from the token, which is random per run.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "maat/game.h"
#include "maat/internal/msg.h"
#include "maat/protocol.h"
#include "maat/rng.h"
#include "peer.h"

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

static int append_raw(FILE *f, const void *data, size_t len)
{
    uint8_t hdr[4] = {(uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16),
                      (uint8_t)(len >> 24)};
    if (fwrite(hdr, 1, 4, f) != 4 || fwrite(data, 1, len, f) != len ||
        fflush(f) != 0)
        return -1;
    return 0;
}

static int send_buf(void *sock, const msgpack_sbuffer *sb)
{
    return zmq_send(sock, sb->data, sb->size, 0) < 0 ? -1 : 0;
}

static int spy_hello(void *sock, const char *token, const char *name,
                     int version)
{
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 4);
    maat_pack_kv_str(&pk, "type", "hello");
    maat_pack_kv_int(&pk, "version", version);
    maat_pack_kv_str(&pk, "token", token);
    maat_pack_kv_str(&pk, "name", name);
    int rc = send_buf(sock, &sb);
    msgpack_sbuffer_destroy(&sb);
    return rc;
}

/* Answer a request with a random legal entry, copied as it came (or, in
 * version 3, the view's entry -- n of them -- encoded as the referee
 * encodes it); with `resync`, a resync instead. */
static int spy_answer(void *sock, const msgpack_object *m, maat_rng *rng,
                      const char *name, int64_t think_us, peer_view *pv,
                      int n, int resync)
{
    maat_error err = {0};
    int64_t seq;
    const msgpack_object *legal = maat_msg_get(m, "legal");
    if (maat_msg_get_int(m, "seq", 0, INT64_MAX, &seq, &err)) {
        fprintf(stderr, "%s: bad request: %s\n", name, err.msg);
        return -1;
    }
    if (resync) {
        send_resync(sock, seq);
        return 0;
    }
    if (!pv)
        n = legal && legal->type == MSGPACK_OBJECT_ARRAY
                ? (int)legal->via.array.size : 0;
    if (n <= 0) {
        fprintf(stderr, "%s: request %lld without legal actions\n", name,
                (long long)seq);
        return -1;
    }
    uint64_t k = maat_rng_below(rng, (uint32_t)n);
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, think_us >= 0 ? 4 : 3);
    maat_pack_kv_str(&pk, "type", "action");
    maat_pack_kv_int(&pk, "seq", seq);
    maat_pack_str(&pk, "action");
    if (pv)
        pv->rules->encode_action(NULL, &pv->legal[k], &pk);
    else
        msgpack_pack_object(&pk, legal->via.array.ptr[k]);
    if (think_us >= 0)
        maat_pack_kv_int(&pk, "think_us", think_us + seq);
    int rc = send_buf(sock, &sb);
    msgpack_sbuffer_destroy(&sb);
    return rc;
}

int main(int argc, char **argv)
{
    const char *dir = getenv("MAAT_SPY_DIR");
    const char *seed_text = getenv("MAAT_SPY_SEED");
    int64_t think_us = -1;
    int version = MAAT_PROTOCOL_VERSION, resync_at = 0, requests = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
            dir = argv[++i];
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed_text = argv[++i];
        } else if (!strcmp(argv[i], "--think-us") && i + 1 < argc) {
            think_us = strtoll(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--version") && i + 1 < argc) {
            version = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--resync") && i + 1 < argc) {
            resync_at = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: maat-spy-bot [--dir DIR] [--seed N] "
                    "[--think-us T] [--version V] [--resync K]\n");
            return 2;
        }
    }
    const char *endpoint = getenv(MAAT_ENV_ENDPOINT);
    const char *token = getenv(MAAT_ENV_TOKEN);
    const char *name = getenv(MAAT_ENV_NAME);
    if (!name)
        name = "spy";
    if (!endpoint || !token || !dir) {
        fprintf(stderr, "%s: needs %s, %s and --dir or MAAT_SPY_DIR\n", name,
                MAAT_ENV_ENDPOINT, MAAT_ENV_TOKEN);
        return 2;
    }
    if (strchr(name, '/')) {
        fprintf(stderr, "%s: a bot name with '/' cannot name a file\n", name);
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.bin", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "%s: cannot write %s: %s\n", name, path,
                strerror(errno));
        return 1;
    }

    uint64_t seed;
    if (seed_text)
        seed = fnv1a(strtoull(seed_text, NULL, 10) ^ 0xcbf29ce484222325ULL,
                     name);
    else
        seed = fnv1a(0xcbf29ce484222325ULL, token);
    maat_rng rng;
    maat_seed rs;
    maat_rng_seed(&rng, maat_seed_from_u64(&rs, seed));
    static peer_view pv; /* version 3 only */

    void *ctx = zmq_ctx_new();
    void *sock = zmq_socket(ctx, ZMQ_DEALER);
    int zero = 0;
    zmq_setsockopt(sock, ZMQ_LINGER, &zero, sizeof zero);
    int rc = 1;
    if (zmq_connect(sock, endpoint) != 0 ||
        spy_hello(sock, token, name, version) != 0) {
        fprintf(stderr, "%s: cannot reach %s: %s\n", name, endpoint,
                zmq_strerror(zmq_errno()));
        goto out;
    }
    for (;;) {
        zmq_pollitem_t item = {sock, 0, ZMQ_POLLIN, 0};
        int n = zmq_poll(&item, 1, 60000);
        if (n < 0 && zmq_errno() == EINTR)
            continue;
        if (n <= 0) {
            fprintf(stderr, "%s: nothing from the referee for 60 s\n", name);
            goto out;
        }
        zmq_msg_t msg;
        zmq_msg_init(&msg);
        if (zmq_msg_recv(&msg, sock, 0) < 0) {
            zmq_msg_close(&msg);
            continue;
        }
        const void *data = zmq_msg_data(&msg);
        size_t len = zmq_msg_size(&msg);
        if (append_raw(f, data, len) != 0) {
            fprintf(stderr, "%s: cannot write %s\n", name, path);
            zmq_msg_close(&msg);
            goto out;
        }
        msgpack_unpacked u;
        maat_error err = {0};
        int stop = 0, bad = 0;
        if (maat_msg_unpack(data, len, &u, &err)) {
            fprintf(stderr, "%s: undecodable message: %s\n", name, err.msg);
            bad = 1;
        } else {
            const msgpack_object *type = maat_msg_get(&u.data, "type");
            peer_view *v = version >= MAAT_PROTOCOL_NO_LEGAL ? &pv : NULL;
            int n = v ? peer_view_follow(v, &u.data) : 0;
            if (maat_msg_str_eq(type, "request"))
                bad = spy_answer(sock, &u.data, &rng, name, think_us, v, n,
                                 ++requests == resync_at);
            else if (maat_msg_str_eq(type, "bye"))
                stop = 1;
            else if (maat_msg_str_eq(type, "reject"))
                bad = 1;
        }
        msgpack_unpacked_destroy(&u);
        zmq_msg_close(&msg);
        if (bad)
            goto out;
        if (stop) {
            rc = 0;
            break;
        }
    }
out:
    peer_view_free(&pv);
    fclose(f);
    zmq_close(sock);
    zmq_ctx_term(ctx);
    return rc;
}
