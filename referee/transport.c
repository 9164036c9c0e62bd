/* transport.c -- binding and using the referee's ROUTER socket.
 * See transport.h for why each socket option is set. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maat/protocol.h"
#include "transport.h"

struct maat_transport {
    void *ctx, *sock;
    char endpoint[512];
    char ipc_dir[256]; /* our temporary directory, removed at the end */
    char ipc_path[300];
};

static void set_int(void *s, int opt, int v)
{
    zmq_setsockopt(s, opt, &v, sizeof v);
}

maat_transport *maat_transport_new(const char *endpoint, maat_error *err)
{
    maat_transport *t = calloc(1, sizeof *t);
    if (!t) {
        maat_error_set(err, MAAT_ENOMEM, "out of memory");
        return NULL;
    }
    if (!endpoint) {
        const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        snprintf(t->ipc_dir, sizeof t->ipc_dir, "%s/maat-XXXXXX", tmp);
        if (!mkdtemp(t->ipc_dir)) {
            maat_error_set(err, MAAT_EIO, "cannot create a directory in %s "
                           "for the ipc socket: %s", tmp, strerror(errno));
            free(t);
            return NULL;
        }
        snprintf(t->ipc_path, sizeof t->ipc_path, "%s/referee", t->ipc_dir);
        snprintf(t->endpoint, sizeof t->endpoint, "ipc://%s", t->ipc_path);
        endpoint = t->endpoint;
    }
    t->ctx = zmq_ctx_new();
    t->sock = zmq_socket(t->ctx, ZMQ_ROUTER);
    int64_t max = MAAT_MAX_BOT_MESSAGE;
    zmq_setsockopt(t->sock, ZMQ_MAXMSGSIZE, &max, sizeof max);
    set_int(t->sock, ZMQ_ROUTER_MANDATORY, 1);
    set_int(t->sock, ZMQ_LINGER, 0);
    set_int(t->sock, ZMQ_HEARTBEAT_IVL, 1000);
    set_int(t->sock, ZMQ_HEARTBEAT_TIMEOUT, 3000);
    set_int(t->sock, ZMQ_HANDSHAKE_IVL, 5000);
    if (zmq_bind(t->sock, endpoint) != 0) {
        maat_error_set(err, MAAT_EIO, "cannot bind %s: %s", endpoint,
                       zmq_strerror(zmq_errno()));
        maat_transport_destroy(&t);
        return NULL;
    }
    size_t len = sizeof t->endpoint;
    zmq_getsockopt(t->sock, ZMQ_LAST_ENDPOINT, t->endpoint, &len);
    return t;
}

void maat_transport_destroy(maat_transport **tp)
{
    maat_transport *t = tp ? *tp : NULL;
    if (!t)
        return;
    if (t->sock)
        zmq_close(t->sock);
    if (t->ctx)
        zmq_ctx_term(t->ctx);
    if (t->ipc_path[0])
        unlink(t->ipc_path);
    if (t->ipc_dir[0])
        rmdir(t->ipc_dir);
    free(t);
    *tp = NULL;
}

const char *maat_transport_endpoint(const maat_transport *t)
{
    return t->endpoint;
}

void *maat_transport_socket(maat_transport *t)
{
    return t->sock;
}

int maat_transport_send(maat_transport *t, const uint8_t *rid, size_t rid_len,
                        const void *data, size_t len)
{
    if (zmq_send(t->sock, rid, rid_len, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0)
        return -1;
    return zmq_send(t->sock, data, len, ZMQ_DONTWAIT) < 0 ? -1 : 0;
}

int maat_transport_recv(maat_transport *t, maat_inbound *in)
{
    zmq_msg_t part;
    zmq_msg_init(&part);
    if (zmq_msg_recv(&part, t->sock, ZMQ_DONTWAIT) < 0) {
        zmq_msg_close(&part);
        return 0;
    }
    /* frame 1: routing id (ROUTER adds it; at most 255 bytes) */
    in->rid_len = zmq_msg_size(&part);
    if (in->rid_len > sizeof in->rid)
        in->rid_len = sizeof in->rid;
    memcpy(in->rid, zmq_msg_data(&part), in->rid_len);
    in->frames = 1;
    zmq_msg_init(&in->payload);
    int more = zmq_msg_more(&part);
    zmq_msg_close(&part);
    /* the payload is the first frame after the id; extra frames are read
     * and dropped so the next message starts clean */
    while (more) {
        zmq_msg_t extra;
        zmq_msg_init(&extra);
        if (zmq_msg_recv(&extra, t->sock, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&extra);
            break;
        }
        in->frames++;
        more = zmq_msg_more(&extra);
        if (in->frames == 2)
            zmq_msg_move(&in->payload, &extra);
        zmq_msg_close(&extra);
    }
    return 1;
}

void maat_inbound_close(maat_inbound *in)
{
    zmq_msg_close(&in->payload);
}
