/* transport.h -- the referee's one ZeroMQ ROUTER socket.
 *
 * Bots connect DEALER sockets; the referee never blocks on a send
 * (ROUTER_MANDATORY + DONTWAIT: a vanished peer is an error, not a hang),
 * caps inbound messages (ZMQ_MAXMSGSIZE: an oversize message drops that
 * peer's connection instead of allocating), sets linger 0 so shutdown never
 * waits for a peer, and uses ZMTP heartbeats so a frozen peer is dropped.
 * A routing id is only an address: identity comes from the hello token.
 */
#ifndef MAAT_TRANSPORT_H
#define MAAT_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include <zmq.h>

#include "maat/error.h"

typedef struct maat_transport maat_transport;

/* One inbound message: the sender's routing id and its payload frame.
 * frames != 2 means the peer sent a multipart message (malformed). */
typedef struct maat_inbound {
    uint8_t rid[256];
    size_t rid_len;
    zmq_msg_t payload;
    int frames;
    char user[64]; /* with CURVE: the entrant whose key authenticated it */
} maat_inbound;

/* With zmq_context NULL the transport makes (and ends) its own context;
 * given one (borrowed; must outlive the transport), inproc:// endpoints
 * work, as in-process tests and the match fuzzer use them.
 * Bind `endpoint` (tcp://host:port, ipc://path, inproc://name); NULL binds a fresh
 * ipc:// socket in a private temporary directory (mode 0700).
 * With `curve_secret` (a Z85 secret key, 40 characters) the socket is a
 * CURVE server: traffic is encrypted and every client key is checked by
 * our ZAP handler against the keys given to maat_transport_allow; an
 * unknown key is refused during the handshake.  Without it, no
 * encryption (fine for ipc:// on one machine). */
maat_transport *maat_transport_new(void *zmq_context, const char *endpoint,
                                   const char *curve_secret, maat_error *err);

/* Accept the CURVE public key `z85_public` (40 characters) as entrant
 * `name`, in place of any key given for that name before (at most 64
 * names).  MAAT_EINVAL if the key is not valid Z85. */
int maat_transport_allow(maat_transport *t, const char *name,
                         const char *z85_public, maat_error *err);
/* The ZAP socket to poll (NULL without CURVE), and handling of what
 * arrived on it: each refused key is reported through `refused`. */
void *maat_transport_zap_socket(maat_transport *t);
void maat_transport_handle_zap(maat_transport *t,
                               void (*refused)(void *ctx, const char *why),
                               void *ctx);
void maat_transport_destroy(maat_transport **t);

/* One more socket file for the same socket, in the private ipc directory
 * (seat-N), for one sandboxed bot: bound read-only into that bot's
 * sandbox, it is the only way that bot reaches the referee, and no bot can
 * replace it (whatever the main endpoint is).  Returns its path (owned by
 * the transport), or NULL with err. */
#define MAAT_TRANSPORT_SEATS 16
const char *maat_transport_add_seat_endpoint(maat_transport *t,
                                            maat_error *err);
/* The bound endpoint as bots should connect to it. */
const char *maat_transport_endpoint(const maat_transport *t);
/* The private directory (0700) of our ipc:// socket files. */
const char *maat_transport_ipc_dir(const maat_transport *t);
void *maat_transport_socket(maat_transport *t);
/* The ZMQ_FD of the socket and of the ZAP socket (-1 without CURVE), for
 * poll() beside other descriptors.  Edge-triggered, and not "a message is
 * waiting": it becomes readable when libzmq has commands to process, and
 * any call on the socket (a send included) may process them.  So a caller
 * may block on it only after a receive on that socket returned nothing
 * (maat_transport_recv 0, maat_transport_handle_zap), with no other call
 * on the socket since; a readable fd may still bring no message. */
int maat_transport_fd(const maat_transport *t);
int maat_transport_zap_fd(const maat_transport *t);

/* Send one payload to a routing id without blocking.  0, or -1 when the
 * peer is gone or not reading (errno from zmq). */
int maat_transport_send(maat_transport *t, const uint8_t *rid, size_t rid_len,
                        const void *data, size_t len);
/* Receive one message if one is waiting: 1 and `in` filled (close with
 * maat_inbound_close), 0 if none. */
int maat_transport_recv(maat_transport *t, maat_inbound *in);
void maat_inbound_close(maat_inbound *in);

#endif
