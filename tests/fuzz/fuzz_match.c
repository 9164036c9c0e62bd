/* fuzz_match.c -- libFuzzer target: the referee's whole inbound path.
 *
 * Each input is a script of frame sequences sent to a real match
 * (maat_match_run, the same loop maat-referee runs) over inproc:// sockets
 * in this process: two remote seats and three strangers.  A script step
 * picks a peer and sends it one of: arbitrary frames (from the input), a
 * hello with its own or another seat's token, a hello with a made-up
 * token, a correct answer to its open request, or an answer with a wrong
 * seq; a hello offering protocol version 2 or 3 (by the step byte's high
 * bits) with its own token, a resync of its open request (or of none) or
 * of a wrong seq.  When the script is used up, the two seats play properly
 * (hello if they have not, then the first legal action to every request:
 * in version 3 the first of the list its view works out, peer.h) until
 * bye.
 *
 * Invariants (abort() when broken): the match ends with MAAT_OK whatever
 * was sent, its record exists, and maat_record_verify finds 0 differences.
 * Memory errors and leaks are ASan's and LeakSanitizer's.
 *
 * The match runs in the fuzzer's thread; the peers run in a second thread,
 * which only sends the script's frames and answers requests, so a step
 * cannot depend on timing except when a seat's reply is still open (the
 * clock is long: only the script's silence can time a seat out, and then
 * the default policy plays for it, as in a real match).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <msgpack.h>
#include <zmq.h>

#include "maat/internal/msg.h"
#include "match.h"
#include "peer.h"
#include "record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SEATS 2
#define STRANGERS 3
#define PEERS (SEATS + STRANGERS)
#define MAX_STEPS 64

static const char *const tokens[SEATS] = {
    "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf", "b0b1b2b3b4b5b6b7b8b9babbbcbdbebf"};

typedef struct peers {
    void *ctx;
    const char *endpoint;
    const uint8_t *data;
    size_t size;
    atomic_int match_over; /* set by the match's thread when it returns */
} peers;

#define CHECK(cond)                                                         \
    do {                                                                    \
        if (!(cond))                                                        \
            abort();                                                        \
    } while (0)

/* Frames from the input: a count byte, then per frame a length byte and
 * that many bytes (cut short at the end of the input). */
static size_t send_frames(void *s, const uint8_t *d, size_t n)
{
    size_t at = 0;
    if (n == 0)
        return 0;
    int frames = 1 + d[at++] % 4;
    for (int f = 0; f < frames; f++) {
        size_t len = at < n ? d[at++] : 0;
        if (len > n - at)
            len = n - at;
        zmq_send(s, d + at, len,
                 ZMQ_DONTWAIT | (f + 1 < frames ? ZMQ_SNDMORE : 0));
        at += len;
    }
    return at;
}

static void *run_peers(void *arg)
{
    peers *p = arg;
    void *sock[PEERS];
    seat_state st[PEERS];
    peer_view *views = calloc(PEERS, sizeof *views);
    CHECK(views != NULL);
    int said_hello[SEATS] = {0, 0};
    for (int i = 0; i < PEERS; i++) {
        sock[i] = zmq_socket(p->ctx, ZMQ_DEALER);
        int zero = 0;
        zmq_setsockopt(sock[i], ZMQ_LINGER, &zero, sizeof zero);
        CHECK(zmq_connect(sock[i], p->endpoint) == 0);
    }
    for (int i = 0; i < PEERS; i++) {
        st[i] = (seat_state){.seq = -1, .pv = &views[i]};
        msgpack_sbuffer_init(&st[i].action);
    }
    /* the script */
    size_t at = 0;
    for (int step = 0; step < MAX_STEPS && at + 1 < p->size; step++) {
        int who = p->data[at] % PEERS, what = (p->data[at] / PEERS) % 9;
        at += 1;
        void *s = sock[who];
        seat_state *me = &st[who];
        read_seat(s, me, 0);
        switch (what) {
        case 0: at += send_frames(s, p->data + at, p->size - at); break;
        case 1: /* a seat's own hello; a stranger's try at a seat */
                send_hello(s, tokens[who % SEATS]);
                if (who < SEATS) said_hello[who] = 1;
                break;
        case 2: send_hello(s, tokens[(who + 1) % SEATS]); break;
        case 3: send_hello(s, "00000000000000000000000000000000"); break;
        case 4: if (me->seq >= 0) { answer(s, me, me->seq); me->seq = -1; }
                break;
        case 5: if (me->seq >= 0)
                    answer(s, me, me->seq + 1 + p->data[at - 1] % 3);
                break;
        case 6: /* version 2: requests without the observation; 3: nor
                 * the legal list */
                send_hello_v(s, tokens[who % SEATS],
                             2 + p->data[at - 1] / (PEERS * 9) % 2);
                if (who < SEATS) said_hello[who] = 1;
                break;
        case 7: send_resync(s, me->seq >= 0 ? me->seq : 1); break;
        default: send_resync(s, me->seq + 2 + p->data[at - 1] % 3); break;
        }
    }
    /* then every peer answers whatever it is asked until the match ends */
    for (int i = 0; i < SEATS; i++)
        if (!said_hello[i])
            send_hello(sock[i], tokens[i]);
    while (!atomic_load(&p->match_over)) {
        zmq_pollitem_t it[PEERS];
        for (int i = 0; i < PEERS; i++)
            it[i] = (zmq_pollitem_t){sock[i], 0, ZMQ_POLLIN, 0};
        zmq_poll(it, PEERS, 2); /* a tick to look at match_over */
        for (int i = 0; i < PEERS; i++) {
            read_seat(sock[i], &st[i], 0);
            if (st[i].seq >= 0) {
                answer(sock[i], &st[i], st[i].seq);
                st[i].seq = -1;
            }
        }
    }
    for (int i = 0; i < PEERS; i++)
        zmq_close(sock[i]);
    for (int i = 0; i < PEERS; i++) {
        msgpack_sbuffer_destroy(&st[i].action);
        peer_view_free(&views[i]);
    }
    free(views);
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static void *ctx;
    static char record[256];
    static unsigned serial;
    if (!ctx) {
        ctx = zmq_ctx_new();
        const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(record, sizeof record, "%s/maat-fuzz-match-%ld.json", dir,
                 (long)getpid());
    }
    char endpoint[64];
    snprintf(endpoint, sizeof endpoint, "inproc://maat-fuzz-%u", serial++);

    maat_match_config c;
    maat_match_config_init(&c);
    c.rules = maat_rules_find("pyramids");
    maat_seed_from_u64(&c.seed, 7);
    c.zmq_context = ctx;
    c.endpoint = endpoint;
    c.n_bots = SEATS;
    c.bots[0] = (maat_bot_spec){.name = "north", .token = tokens[0]};
    c.bots[1] = (maat_bot_spec){.name = "south", .token = tokens[1]};
    c.clock.decision_ms = c.clock.first_ms = 1000;
    c.clock.hello_ms = 300; /* a seat kept from its hello is a no_hello fault */
    c.record_path = record;
    c.quiet = 1;

    peers p = {ctx, endpoint, data, size, 0};
    pthread_t th;
    CHECK(pthread_create(&th, NULL, run_peers, &p) == 0);
    maat_error err = {0, ""};
    int rc = maat_match_run(&c, &err);
    atomic_store(&p.match_over, 1);
    pthread_join(th, NULL);
    CHECK(rc == MAAT_OK);
    maat_error verr = {0, ""};
    CHECK(maat_record_verify(record, NULL, NULL, 0, &verr) == 0);
    unlink(record);
    return 0;
}
