/* bench_pingpong.c -- the physical limit: raw ZeroMQ round trips.
 *
 * Two processes, the shape of a match with nothing else in it: a ROUTER
 * (where the referee sits) sends a request of --req-bytes to a DEALER
 * (where a bot sits), which answers at once with --act-bytes; we time each
 * round trip on the ROUTER's monotonic clock.  No msgpack, no rules, no
 * bookkeeping: whatever a real decision costs above this number is the
 * referee's and the SDK's own overhead (bench-decision compares the two in
 * one run).
 *
 * The sockets get the options the referee and the SDK set (max message
 * size, ROUTER_MANDATORY, heartbeats, linger 0), so the transport is the
 * same; the payloads are opaque bytes of the sizes of a real Pyramids
 * request and action (bench-decision measures those from a match).
 *
 *   bench-pingpong [--transport ipc|tcp|both] [--count N] [--warmup N]
 *                  [--req-bytes B] [--act-bytes B] [--wait recv|poll|fd]
 *                  [--seconds S] [--machine] [--samples FILE] [--peers N]
 *
 * --peers N (1-5) starts N DEALER processes and asks them in turn, one
 * round trip each, as a match of N seats asks its bots: each round trip
 * then wakes another process than the last, whose caches and scheduler
 * state are colder (bench-decision measures both shapes).
 * How each side waits for a message: recv (the default) blocks in
 * zmq_msg_recv, the cheapest; poll waits in zmq_poll before each receive,
 * as the SDK's bot loop does (and the referee did before 2026-11-26); fd
 * tries a receive and, when none is waiting, poll()s the socket's ZMQ_FD,
 * as the referee's wait loop does now (referee/match.c: a referee must
 * also watch signals, pipes and its clock, so it cannot block in a
 * receive).  --seconds S stops a transport early after S seconds.
 * --machine prints one key=value line per transport (read by
 * bench-decision); --samples FILE appends every timed round trip in
 * nanoseconds, one a line (bench-decision pools them).  CPU columns: getrusage of each process over its whole
 * exchange (all threads: the zmq I/O thread included), per round trip.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#define MAX_MSG 65536 /* the referee's cap on bot messages (protocol.h) */
#define MAX_PEERS 5   /* as many as a match has seats */

enum { WAIT_RECV, WAIT_POLL, WAIT_FD };

typedef struct opts {
    long count, warmup;
    size_t req_bytes, act_bytes;
    int poll_wait; /* WAIT_RECV, WAIT_POLL or WAIT_FD */
    double seconds;
    int machine;
    const char *samples; /* write every round trip (ns) here, one a line */
    int peers;           /* DEALER processes, asked in turn (--peers) */
} opts;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static double tv_us(struct timeval tv)
{
    return (double)tv.tv_sec * 1e6 + (double)tv.tv_usec;
}

static double rusage_us(const struct rusage *ru)
{
    return tv_us(ru->ru_utime) + tv_us(ru->ru_stime);
}

static void set_int(void *s, int opt, int v)
{
    zmq_setsockopt(s, opt, &v, sizeof v);
}

static void die(const char *what)
{
    fprintf(stderr, "bench-pingpong: %s: %s\n", what,
            zmq_strerror(zmq_errno()));
    exit(1);
}

static void silent_peer(void)
{
    fprintf(stderr, "bench-pingpong: peer silent for 10 s\n");
    exit(1);
}

/* The ZMQ_FD of this process's one socket, asked once (as the referee
 * does), for --wait fd. */
static int sock_fd = -1;

/* Receive one frame, waiting as --wait says; 10 s at most. */
static int recv_wait(zmq_msg_t *m, void *sock, int wait)
{
    if (wait == WAIT_RECV)
        return zmq_msg_recv(m, sock, 0);
    for (;;) {
        if (wait == WAIT_POLL) {
            zmq_pollitem_t item = {sock, 0, ZMQ_POLLIN, 0};
            int n = zmq_poll(&item, 1, 10000);
            if (n == 0)
                silent_peer();
            if (n < 0 && zmq_errno() != EINTR)
                return -1;
        }
        int rc = zmq_msg_recv(m, sock, ZMQ_DONTWAIT);
        if (rc >= 0 || (zmq_errno() != EAGAIN && zmq_errno() != EINTR))
            return rc;
        if (wait == WAIT_FD) {
            /* edge-triggered: only after a receive that found nothing */
            size_t len = sizeof sock_fd;
            if (sock_fd < 0 && zmq_getsockopt(sock, ZMQ_FD, &sock_fd, &len))
                return -1;
            struct pollfd p = {sock_fd, POLLIN, 0};
            int n = poll(&p, 1, 10000);
            if (n == 0)
                silent_peer();
            if (n < 0 && errno != EINTR)
                return -1;
        }
    }
}

/* The DEALER (the bot's side): read the endpoint from the pipe, say hello,
 * answer every request with act_bytes at once; an empty message ends it. */
static int dealer_main(int rfd, const opts *o)
{
    char ep[600];
    size_t got = 0;
    ssize_t r;
    while (got + 1 < sizeof ep && (r = read(rfd, ep + got, 1)) == 1 &&
           ep[got] != '\n')
        got++;
    ep[got] = 0;
    close(rfd);
    if (!got)
        return 1;
    void *ctx = zmq_ctx_new();
    void *s = zmq_socket(ctx, ZMQ_DEALER);
    int64_t max = 1 << 20;
    set_int(s, ZMQ_LINGER, 0);
    zmq_setsockopt(s, ZMQ_MAXMSGSIZE, &max, sizeof max);
    set_int(s, ZMQ_HEARTBEAT_IVL, 1000);
    set_int(s, ZMQ_HEARTBEAT_TIMEOUT, 5000);
    if (zmq_connect(s, ep) != 0)
        die("connect");
    char *act = malloc(o->act_bytes ? o->act_bytes : 1);
    for (size_t i = 0; i < o->act_bytes; i++)
        act[i] = (char)(0x80 + i % 61);
    if (zmq_send(s, "hello", 5, 0) < 0)
        die("send hello");
    for (;;) {
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (recv_wait(&m, s, o->poll_wait) < 0) {
            zmq_msg_close(&m);
            if (zmq_errno() == EINTR)
                continue;
            die("dealer recv");
        }
        size_t n = zmq_msg_size(&m);
        zmq_msg_close(&m);
        if (n == 0)
            break;
        if (zmq_send(s, act, o->act_bytes, 0) < 0)
            die("dealer send");
    }
    free(act);
    zmq_close(s);
    zmq_ctx_term(ctx);
    return 0;
}

/* Receive one two-frame message on the ROUTER: identity, payload. */
static size_t router_recv(void *s, uint8_t *rid, size_t *rid_len, int poll_w)
{
    zmq_msg_t m;
    zmq_msg_init(&m);
    while (recv_wait(&m, s, poll_w) < 0)
        if (zmq_errno() != EINTR)
            die("router recv");
    if (rid) {
        *rid_len = zmq_msg_size(&m) < 256 ? zmq_msg_size(&m) : 255;
        memcpy(rid, zmq_msg_data(&m), *rid_len);
    }
    zmq_msg_close(&m);
    zmq_msg_init(&m);
    if (zmq_msg_recv(&m, s, 0) < 0)
        die("router recv payload");
    size_t n = zmq_msg_size(&m);
    zmq_msg_close(&m);
    return n;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted v[0..n-1], q in (0, 1]. */
static double pct_us(const int64_t *v, long n, double q)
{
    long k = (long)ceil(q * (double)n);
    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    return (double)v[k - 1] / 1000.0;
}

typedef struct result {
    long n;
    double min, median, p90, p99, mean, max; /* microseconds */
    double cpu_router, cpu_dealer;           /* CPU microseconds per RT */
} result;

static int run(const char *transport, const opts *o, result *res)
{
    int pfd[MAX_PEERS][2];
    pid_t pid[MAX_PEERS];
    fflush(NULL);
    for (int p = 0; p < o->peers; p++) {
        if (pipe(pfd[p]) != 0)
            return -1;
        pid[p] = fork(); /* before any zmq context exists in this process */
        if (pid[p] < 0)
            return -1;
        if (pid[p] == 0) {
            for (int q = 0; q < p; q++)
                close(pfd[q][1]);
            close(pfd[p][1]);
            _exit(dealer_main(pfd[p][0], o));
        }
        close(pfd[p][0]);
    }

    char dir[] = "/tmp/maat-pingpong-XXXXXX", ep[600];
    int ipc = !strcmp(transport, "ipc");
    if (ipc) {
        if (!mkdtemp(dir))
            return -1;
        snprintf(ep, sizeof ep, "ipc://%s/s", dir);
    } else {
        snprintf(ep, sizeof ep, "tcp://127.0.0.1:*");
    }
    void *ctx = zmq_ctx_new();
    void *s = zmq_socket(ctx, ZMQ_ROUTER);
    int64_t max = MAX_MSG;
    zmq_setsockopt(s, ZMQ_MAXMSGSIZE, &max, sizeof max);
    set_int(s, ZMQ_ROUTER_MANDATORY, 1);
    set_int(s, ZMQ_LINGER, 0);
    set_int(s, ZMQ_HEARTBEAT_IVL, 1000);
    set_int(s, ZMQ_HEARTBEAT_TIMEOUT, 3000);
    if (zmq_bind(s, ep) != 0)
        die("bind");
    size_t len = sizeof ep;
    zmq_getsockopt(s, ZMQ_LAST_ENDPOINT, ep, &len);
    for (int p = 0; p < o->peers; p++) {
        dprintf(pfd[p][1], "%s\n", ep);
        close(pfd[p][1]);
    }

    uint8_t rid[MAX_PEERS][256];
    size_t rid_len[MAX_PEERS];
    for (int p = 0; p < o->peers; p++) /* the hellos */
        router_recv(s, rid[p], &rid_len[p], o->poll_wait);
    char *req = malloc(o->req_bytes ? o->req_bytes : 1);
    for (size_t i = 0; i < o->req_bytes; i++)
        req[i] = (char)(0x80 + i % 127);
    int64_t *t = malloc(sizeof *t * (size_t)o->count);
    struct rusage ru0, ru1;
    long done = 0;
    int64_t stop = o->seconds > 0 ? now_ns() + (int64_t)(o->seconds * 1e9)
                                  : INT64_MAX;
    for (long i = -o->warmup; i < o->count; i++) {
        if (i == 0)
            getrusage(RUSAGE_SELF, &ru0);
        int p = (int)((i + o->warmup) % o->peers); /* each peer in turn */
        int64_t t0 = now_ns();
        if (zmq_send(s, rid[p], rid_len[p], ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0 ||
            zmq_send(s, req, o->req_bytes, ZMQ_DONTWAIT) < 0)
            die("router send");
        router_recv(s, NULL, NULL, o->poll_wait);
        int64_t t1 = now_ns();
        if (i >= 0) {
            t[done++] = t1 - t0;
            if (t1 > stop)
                break;
        }
    }
    getrusage(RUSAGE_SELF, &ru1);
    double cpu_dealers = 0;
    for (int p = 0; p < o->peers; p++) {
        zmq_send(s, rid[p], rid_len[p], ZMQ_SNDMORE);
        zmq_send(s, "", 0, 0); /* the end */
    }
    for (int p = 0; p < o->peers; p++) {
        struct rusage cru;
        int status;
        if (wait4(pid[p], &status, 0, &cru) != pid[p] || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0) {
            fprintf(stderr, "bench-pingpong: a dealer process failed\n");
            return -1;
        }
        cpu_dealers += rusage_us(&cru);
    }
    zmq_close(s);
    zmq_ctx_term(ctx);
    if (ipc) {
        char path[700];
        snprintf(path, sizeof path, "%s/s", dir);
        unlink(path);
        rmdir(dir);
    }

    if (o->samples) {
        FILE *f = fopen(o->samples, "a");
        if (!f) {
            fprintf(stderr, "bench-pingpong: cannot write %s\n", o->samples);
            return -1;
        }
        for (long i = 0; i < done; i++)
            fprintf(f, "%lld\n", (long long)t[i]);
        if (fclose(f) != 0)
            return -1;
    }
    qsort(t, (size_t)done, sizeof *t, cmp_i64);
    double sum = 0;
    for (long i = 0; i < done; i++)
        sum += (double)t[i];
    res->n = done;
    res->min = (double)t[0] / 1000.0;
    res->median = pct_us(t, done, 0.5);
    res->p90 = pct_us(t, done, 0.9);
    res->p99 = pct_us(t, done, 0.99);
    res->max = (double)t[done - 1] / 1000.0;
    res->mean = sum / (double)done / 1000.0;
    res->cpu_router = (rusage_us(&ru1) - rusage_us(&ru0)) / (double)done;
    /* the dealer's whole life: warm-up and start-up included */
    res->cpu_dealer = cpu_dealers / (double)(done + o->warmup + o->peers);
    free(t);
    free(req);
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
"usage: bench-pingpong [--transport ipc|tcp|both] [--count N] [--warmup N]\n"
"                      [--req-bytes B] [--act-bytes B] [--wait recv|poll|fd]\n"
"                      [--seconds S] [--machine] [--samples FILE]\n"
"                      [--peers N]\n"
"Raw ZeroMQ DEALER<->ROUTER round trips between two processes with opaque\n"
"payloads the size of a Pyramids request and action: the physical limit a\n"
"referee decision cannot beat.  Prints min, median, p90, p99, mean, max\n"
"(microseconds) and CPU per round trip of each side.\n"
"Defaults: both transports, 20000 round trips after 1000 warm-up ones,\n"
"request 3300 B, action 50 B (a 2-player Pyramids match: bench-decision\n"
"prints the measured sizes), --wait recv, one DEALER process (--peers N:\n"
"N of them, 1-5, asked in turn as a match's seats are).\n");
}

static long arg_long(const char *opt, const char *v, long lo, long hi)
{
    char *end;
    errno = 0;
    long x = v ? strtol(v, &end, 10) : 0;
    if (!v || errno || end == v || *end || x < lo || x > hi) {
        fprintf(stderr, "bench-pingpong: %s wants an integer from %ld to "
                "%ld\n", opt, lo, hi);
        exit(2);
    }
    return x;
}

int main(int argc, char **argv)
{
    opts o = {.count = 20000, .warmup = 1000, .req_bytes = 3300,
              .act_bytes = 50, .poll_wait = 0, .seconds = 0, .machine = 0,
              .samples = NULL, .peers = 1};
    const char *transport = "both";
    for (int i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--machine")) {
            o.machine = 1;
            i--; /* no value */
        } else if (!strcmp(a, "--transport") && v &&
                   (!strcmp(v, "ipc") || !strcmp(v, "tcp") ||
                    !strcmp(v, "both"))) {
            transport = v;
        } else if (!strcmp(a, "--wait") && v &&
                   (!strcmp(v, "recv") || !strcmp(v, "poll") ||
                    !strcmp(v, "fd"))) {
            o.poll_wait = !strcmp(v, "poll") ? WAIT_POLL
                          : !strcmp(v, "fd") ? WAIT_FD : WAIT_RECV;
        } else if (!strcmp(a, "--count")) {
            o.count = arg_long(a, v, 1, 100000000);
        } else if (!strcmp(a, "--warmup")) {
            o.warmup = arg_long(a, v, 0, 100000000);
        } else if (!strcmp(a, "--req-bytes")) {
            o.req_bytes = (size_t)arg_long(a, v, 0, MAX_MSG);
        } else if (!strcmp(a, "--act-bytes")) {
            o.act_bytes = (size_t)arg_long(a, v, 0, MAX_MSG);
        } else if (!strcmp(a, "--peers")) {
            o.peers = (int)arg_long(a, v, 1, MAX_PEERS);
        } else if (!strcmp(a, "--samples") && v) {
            o.samples = v;
        } else if (!strcmp(a, "--seconds") && v) {
            char *end;
            errno = 0;
            o.seconds = strtod(v, &end);
            if (errno || end == v || *end || !(o.seconds > 0)) {
                fprintf(stderr, "bench-pingpong: --seconds wants a positive "
                        "number\n");
                return 2;
            }
        } else {
            fprintf(stderr, "bench-pingpong: bad option '%s' (try --help)\n",
                    a);
            return 2;
        }
    }
    const char *list[2] = {transport, NULL};
    if (!strcmp(transport, "both")) {
        list[0] = "ipc";
        list[1] = "tcp";
    }
    if (!o.machine) {
        int major, minor, patch;
        zmq_version(&major, &minor, &patch);
        printf("# bench-pingpong: raw ZeroMQ %d.%d.%d DEALER<->ROUTER round "
               "trips, %d DEALER process%s\n# request %zu B, action %zu B, up to "
               "%ld round trips after %ld warm-up, wait: %s\n",
               major, minor, patch, o.peers, o.peers > 1 ? "es in turn" : "",
               o.req_bytes, o.act_bytes, o.count,
               o.warmup, o.poll_wait == WAIT_POLL ? "zmq_poll"
               : o.poll_wait == WAIT_FD ? "poll() on ZMQ_FD" : "blocking recv");
        printf("%-9s %7s %8s %8s %8s %8s %8s %9s %12s %12s\n", "transport",
               "n", "min_us", "med_us", "p90_us", "p99_us", "mean_us",
               "max_us", "cpu_router", "cpu_dealer");
    }
    for (int k = 0; k < 2 && list[k]; k++) {
        result r;
        if (run(list[k], &o, &r) != 0) {
            fprintf(stderr, "bench-pingpong: %s run failed\n", list[k]);
            return 1;
        }
        if (o.machine)
            printf("transport=%s n=%ld req=%zu act=%zu min=%.2f median=%.2f "
                   "p90=%.2f p99=%.2f mean=%.2f max=%.2f cpu_router=%.3f "
                   "cpu_dealer=%.3f\n", list[k], r.n, o.req_bytes,
                   o.act_bytes, r.min, r.median, r.p90, r.p99, r.mean, r.max,
                   r.cpu_router, r.cpu_dealer);
        else
            printf("%-9s %7ld %8.1f %8.1f %8.1f %8.1f %8.1f %9.1f %9.2f us "
                   "%9.2f us\n", list[k], r.n, r.min, r.median, r.p90, r.p99,
                   r.mean, r.max, r.cpu_router, r.cpu_dealer);
        fflush(stdout);
    }
    return 0;
}
