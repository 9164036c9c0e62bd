/* transport.c -- binding and using the referee's ROUTER socket.
 * See transport.h for why each socket option is set. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maat/protocol.h"
#include "transport.h"

#define MAX_KEYS 64

struct maat_transport {
    void *ctx, *sock;
    int own_ctx; /* made by us, terminated by us */
    void *zap; /* REP socket answering ZeroMQ's authentication requests */
    int fd, zap_fd; /* their ZMQ_FDs (transport.h), -1 if none */
    char endpoint[512];
    char ipc_dir[256]; /* our temporary directory, removed at the end */
    char ipc_path[300];
    /* extra ipc:// endpoints of the same socket, one per sandboxed seat */
    char seat_path[MAAT_TRANSPORT_SEATS][300];
    int n_seat_paths;
    struct {
        char name[64];
        uint8_t key[32];
    } allowed[MAX_KEYS];
    int n_allowed;
};

static void set_int(void *s, int opt, int v)
{
    zmq_setsockopt(s, opt, &v, sizeof v);
}

static int get_fd(void *s, int *fd)
{
    size_t len = sizeof *fd;
    return zmq_getsockopt(s, ZMQ_FD, fd, &len);
}

maat_transport *maat_transport_new(void *zmq_context, const char *endpoint,
                                   const char *curve_secret, maat_error *err)
{
    maat_transport *t = calloc(1, sizeof *t);
    if (!t) {
        maat_error_set(err, MAAT_ENOMEM, "out of memory");
        return NULL;
    }
    /* A private directory (mode 0700) for our ipc:// socket files: the
     * default endpoint and one per sandboxed seat. */
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(t->ipc_dir, sizeof t->ipc_dir, "%s/maat-XXXXXX", tmp);
    if (!mkdtemp(t->ipc_dir)) {
        maat_error_set(err, MAAT_EIO, "cannot create a directory in %s "
                       "for the ipc socket: %s", tmp, strerror(errno));
        free(t);
        return NULL;
    }
    if (!endpoint) {
        snprintf(t->ipc_path, sizeof t->ipc_path, "%s/referee", t->ipc_dir);
        snprintf(t->endpoint, sizeof t->endpoint, "ipc://%s", t->ipc_path);
        endpoint = t->endpoint;
    }
    t->fd = t->zap_fd = -1;
    t->own_ctx = zmq_context == NULL;
    t->ctx = zmq_context ? zmq_context : zmq_ctx_new();
    t->sock = zmq_socket(t->ctx, ZMQ_ROUTER);
    if (curve_secret) {
        /* Without a ZAP handler CURVE accepts every client key: bind ours
         * first, on the address libzmq asks. */
        t->zap = zmq_socket(t->ctx, ZMQ_REP);
        set_int(t->zap, ZMQ_LINGER, 0);
        int one = 1;
        if (!zmq_has("curve") ||
            zmq_bind(t->zap, "inproc://zeromq.zap.01") != 0 ||
            zmq_setsockopt(t->sock, ZMQ_CURVE_SERVER, &one, sizeof one) ||
            zmq_setsockopt(t->sock, ZMQ_CURVE_SECRETKEY, curve_secret,
                           strlen(curve_secret)) ||
            zmq_setsockopt(t->sock, ZMQ_ZAP_DOMAIN, "maat", 4)) {
            maat_error_set(err, MAAT_EINVAL, "cannot enable CURVE (is the "
                           "secret key 40 characters of Z85?): %s",
                           zmq_strerror(zmq_errno()));
            maat_transport_destroy(&t);
            return NULL;
        }
    }
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
    if (get_fd(t->sock, &t->fd) != 0 ||
        (t->zap && get_fd(t->zap, &t->zap_fd) != 0)) {
        maat_error_set(err, MAAT_EIO, "cannot get the socket's descriptor: "
                       "%s", zmq_strerror(zmq_errno()));
        maat_transport_destroy(&t);
        return NULL;
    }
    return t;
}

void maat_transport_destroy(maat_transport **tp)
{
    maat_transport *t = tp ? *tp : NULL;
    if (!t)
        return;
    if (t->sock)
        zmq_close(t->sock);
    if (t->zap)
        zmq_close(t->zap);
    if (t->ctx && t->own_ctx)
        zmq_ctx_term(t->ctx);
    if (t->ipc_path[0])
        unlink(t->ipc_path);
    for (int i = 0; i < t->n_seat_paths; i++)
        unlink(t->seat_path[i]);
    if (t->ipc_dir[0])
        rmdir(t->ipc_dir);
    free(t);
    *tp = NULL;
}

const char *maat_transport_add_seat_endpoint(maat_transport *t,
                                            maat_error *err)
{
    if (t->n_seat_paths == MAAT_TRANSPORT_SEATS) {
        maat_error_set(err, MAAT_EINVAL, "more than %d sandboxed seats",
                       MAAT_TRANSPORT_SEATS);
        return NULL;
    }
    char *path = t->seat_path[t->n_seat_paths];
    char ep[320];
    snprintf(path, sizeof t->seat_path[0], "%s/seat-%d", t->ipc_dir,
             t->n_seat_paths);
    snprintf(ep, sizeof ep, "ipc://%s", path);
    if (zmq_bind(t->sock, ep) != 0) {
        maat_error_set(err, MAAT_EIO, "cannot bind %s: %s", ep,
                       zmq_strerror(zmq_errno()));
        return NULL;
    }
    t->n_seat_paths++;
    return path;
}

const char *maat_transport_endpoint(const maat_transport *t)
{
    return t->endpoint;
}

const char *maat_transport_ipc_dir(const maat_transport *t)
{
    return t->ipc_dir[0] ? t->ipc_dir : NULL;
}

void *maat_transport_socket(maat_transport *t)
{
    return t->sock;
}

int maat_transport_fd(const maat_transport *t)
{
    return t->fd;
}

int maat_transport_zap_fd(const maat_transport *t)
{
    return t->zap_fd;
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
    in->user[0] = 0;
    zmq_msg_init(&in->payload);
    int more = zmq_msg_more(&part);
    zmq_msg_close(&part);
    /* the payload is the first frame after the id, received in place */
    if (more && zmq_msg_recv(&in->payload, t->sock, ZMQ_DONTWAIT) >= 0) {
        in->frames = 2;
        more = zmq_msg_more(&in->payload);
        /* Only our ZAP handler vouches for a User-Id: without CURVE the
         * property could only come from the peer's own handshake
         * metadata, so it is not looked up (~360 instructions a message).
         * Copied by hand: snprintf cost ~500. */
        const char *user = t->zap ? zmq_msg_gets(&in->payload, "User-Id")
                                  : NULL;
        size_t n = user ? strnlen(user, sizeof in->user - 1) : 0;
        if (n)
            memcpy(in->user, user, n);
        in->user[n] = 0;
    }
    /* extra frames are read and dropped so the next message starts clean */
    while (more) {
        zmq_msg_t extra;
        zmq_msg_init(&extra);
        if (zmq_msg_recv(&extra, t->sock, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&extra);
            break;
        }
        in->frames++;
        more = zmq_msg_more(&extra);
        zmq_msg_close(&extra);
    }
    return 1;
}

void maat_inbound_close(maat_inbound *in)
{
    zmq_msg_close(&in->payload);
}

int maat_transport_allow(maat_transport *t, const char *name,
                         const char *z85_public, maat_error *err)
{
    /* One key per name: a bot started again for the next game of a series
     * gets a new pair, and the old one (its stopped process's) must stop
     * opening the door -- and must not fill the table after 64 games. */
    int i = 0;
    while (i < t->n_allowed && strcmp(t->allowed[i].name, name) != 0)
        i++;
    if (i == MAX_KEYS)
        return maat_error_set(err, MAAT_EINVAL, "more than %d CURVE keys",
                              MAX_KEYS);
    uint8_t key[32];
    if (strlen(z85_public) != 40 || !zmq_z85_decode(key, z85_public))
        return maat_error_set(err, MAAT_EINVAL, "the CURVE key for %s is not "
                              "40 characters of Z85", name);
    memcpy(t->allowed[i].key, key, sizeof key);
    snprintf(t->allowed[i].name, sizeof t->allowed[0].name, "%s", name);
    if (i == t->n_allowed)
        t->n_allowed++;
    return MAAT_OK;
}

void *maat_transport_zap_socket(maat_transport *t)
{
    return t->zap;
}

/* One ZAP request (RFC 27): version, request id, domain, address,
 * identity, mechanism, credentials; we answer version, request id, status
 * code, status text, user id, metadata. */
void maat_transport_handle_zap(maat_transport *t,
                               void (*refused)(void *ctx, const char *why),
                               void *ctx)
{
    for (;;) {
        zmq_msg_t part[8];
        int n = 0, more = 1;
        while (more && n < 8) {
            zmq_msg_init(&part[n]);
            if (zmq_msg_recv(&part[n], t->zap, n ? 0 : ZMQ_DONTWAIT) < 0) {
                zmq_msg_close(&part[n]);
                break;
            }
            more = zmq_msg_more(&part[n]);
            n++;
        }
        if (n == 0)
            return;
        while (more) { /* more frames than ZAP has: drain them */
            zmq_msg_t extra;
            zmq_msg_init(&extra);
            if (zmq_msg_recv(&extra, t->zap, 0) < 0)
                more = 0;
            else
                more = zmq_msg_more(&extra);
            zmq_msg_close(&extra);
        }
        const char *user = NULL;
        char why[160] = "malformed authentication request";
        if (n >= 7 && zmq_msg_size(&part[5]) == 5 &&
            !memcmp(zmq_msg_data(&part[5]), "CURVE", 5) &&
            zmq_msg_size(&part[6]) == 32) {
            for (int i = 0; i < t->n_allowed && !user; i++)
                if (!memcmp(t->allowed[i].key, zmq_msg_data(&part[6]), 32))
                    user = t->allowed[i].name;
            if (!user) {
                char z85[41];
                zmq_z85_encode(z85, zmq_msg_data(&part[6]), 32);
                snprintf(why, sizeof why, "refused an unknown CURVE key %s",
                         z85);
            }
        }
        const char *code = user ? "200" : "400";
        const void *reqid = n > 1 ? zmq_msg_data(&part[1]) : "";
        size_t reqid_len = n > 1 ? zmq_msg_size(&part[1]) : 0;
        zmq_send(t->zap, "1.0", 3, ZMQ_SNDMORE);
        zmq_send(t->zap, reqid, reqid_len, ZMQ_SNDMORE);
        zmq_send(t->zap, code, 3, ZMQ_SNDMORE);
        zmq_send(t->zap, user ? "OK" : "unknown key", user ? 2 : 11,
                 ZMQ_SNDMORE);
        zmq_send(t->zap, user ? user : "", user ? strlen(user) : 0,
                 ZMQ_SNDMORE);
        zmq_send(t->zap, "", 0, 0);
        for (int i = 0; i < n; i++)
            zmq_msg_close(&part[i]);
        if (!user && refused)
            refused(ctx, why);
    }
}
