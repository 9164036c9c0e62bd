/* bench_decision.c -- the referee's cost per decision, against raw ZeroMQ,
 * measured in the same run.
 *
 * 1. Message sizes: one series between spy bots (tests/bots/spy.c, which
 *    stores every message byte for byte) gives the real sizes of requests
 *    and of the actions a random bot sends back.
 * 2. Rounds, interleaved so that the load of the machine hits both alike:
 *    a raw block -- bench-pingpong with payloads of exactly those (mean)
 *    sizes -- then a match block: this process runs the referee's match
 *    loop (maat_match_run, the very code of maat-referee) for a series of
 *    --games games between bots that answer at once (the random sample
 *    bot, built on the SDK), with --record-timing records written to a
 *    tmpfs, then the same for a 1-game series (the fixed cost of spawning,
 *    hellos and bye, subtracted below).
 *
 * Reported:
 *  - wall_us: each decision's round trip as the referee's clock sees it
 *    (request sent .. answer decoded and checked; what --record-timing
 *    records), against the raw round trip: same percentiles, pooled; and
 *    against a second raw block of each round, one DEALER process per
 *    seat asked in turn (bench-pingpong --peers N), the shape of a match,
 *    where each decision wakes another process than the last;
 *  - cycle: the whole decision loop, wall time per decision of a series
 *    (legal actions, encoding, sending, waiting, decoding, applying,
 *    recording), (T(G games) - T(1 game)) / (D(G) - D(1)), per round;
 *  - CPU per decision: the referee process (all threads, from getrusage)
 *    and the bots (their rusage once reaped) against the two sides of the
 *    raw ping-pong -- the numbers to trust on a loaded machine.
 *
 *   bench-decision [--rounds R] [--games G] [--seats N] [--raw-count K]
 *                  [--transport ipc|tcp] [--raw-wait recv|poll|fd] [--seed S]
 *                  [--bot CMD] [--pingpong PATH] [--spy PATH]
 *                  [--cpu N] [--sandbox on|off] [--seconds S]
 *
 * Bots run as maat-referee runs them by default: under bubblewrap when it
 * works here (--sandbox off: without), idle seats at nice 19 once another's
 * decision has lasted 1 ms (the referee's default; --ponder is not
 * offered).
 * --cpu N pins this process, and so every process it starts, to CPU N:
 * the ping-pong and the match are one chain of work, and on one core they
 * run without cross-core wake-ups (which on this VM cost more than the
 * work itself), so the referee's own CPU shows more plainly.
 * Paths default to the programs of the same build directory.  --seconds
 * is accepted for bench/run-all.sh and ignored (the work is fixed by
 * --rounds).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <msgpack.h>

#include "maat/internal/msg.h"
#include "match.h"
#include "record.h"

/* ---- small utilities -------------------------------------------------- */

typedef struct vec {
    int64_t *v;
    size_t n, cap;
} vec;

static void push(vec *a, int64_t x)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 1024;
        a->v = realloc(a->v, sizeof *a->v * a->cap);
        if (!a->v) {
            fprintf(stderr, "bench-decision: out of memory\n");
            exit(1);
        }
    }
    a->v[a->n++] = x;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted vector. */
static double pct(const vec *a, double q)
{
    if (!a->n)
        return NAN;
    size_t k = (size_t)ceil(q * (double)a->n);
    k = k < 1 ? 1 : k > a->n ? a->n : k;
    return (double)a->v[k - 1];
}

static double mean(const vec *a)
{
    double s = 0;
    for (size_t i = 0; i < a->n; i++)
        s += (double)a->v[i];
    return a->n ? s / (double)a->n : NAN;
}

static double median_d(double *x, int n)
{
    qsort(x, (size_t)n, sizeof *x, cmp_dbl);
    return n ? (n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2) : NAN;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double ru_us(int who)
{
    struct rusage ru;
    getrusage(who, &ru);
    return (double)ru.ru_utime.tv_sec * 1e6 + (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec * 1e6 + (double)ru.ru_stime.tv_usec;
}

static void loadavg(char *out, size_t len)
{
    FILE *f = fopen("/proc/loadavg", "r");
    double a = 0, b = 0, c = 0;
    if (!f || fscanf(f, "%lf %lf %lf", &a, &b, &c) != 3)
        snprintf(out, len, "?");
    else
        snprintf(out, len, "%.2f %.2f %.2f", a, b, c);
    if (f)
        fclose(f);
}

/* A scratch directory on a tmpfs when there is one (the records are
 * fsync'd: on a disk that would be measured too). */
static int scratch_dir(char *out, size_t len)
{
    struct stat st;
    const char *base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode)
                           ? "/dev/shm" : "/tmp";
    snprintf(out, len, "%s/maat-bench-decision-XXXXXX", base);
    return mkdtemp(out) ? 0 : -1;
}

static void rm_dir_files(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench-decision: could not remove %s\n", dir);
}

/* ---- one series through the referee's match loop --------------------- */

typedef struct series {
    const char *bot_cmd; /* spawned in every seat */
    int seats, games;
    uint64_t seed;
    const char *endpoint;
    const char *record_base; /* NULL: no records */
    int sandbox; /* bots under bubblewrap, as maat-referee runs them */
} series;

typedef struct block {
    double wall_s, self_cpu_us, child_cpu_us;
    long decisions;
} block;

static int run_series(const series *s, block *b, vec *wall_us, vec *cpu_us)
{
    maat_match_config c;
    maat_match_config_init(&c);
    c.rules = maat_rules_find("pyramids");
    maat_seed_from_u64(&c.seed, s->seed);
    c.games = s->games;
    c.quiet = 1;
    c.endpoint = s->endpoint;
    c.record_path = s->record_base;
    c.record_timing = s->record_base != NULL;
    c.sandbox = s->sandbox; /* idle bots at nice 19: c.ponder stays 0 */
    /* generous clocks: on a loaded machine a timeout would put a default
     * action into the numbers (run_series refuses those) */
    c.clock.decision_ms = c.clock.first_ms = 10000;
    static char names[8][16];
    for (int i = 0; i < s->seats; i++) {
        snprintf(names[i], sizeof names[i], "bot%d", i);
        c.bots[i].name = names[i];
        c.bots[i].command = s->bot_cmd;
    }
    c.n_bots = s->seats;
    maat_error err = {0};
    double self0 = ru_us(RUSAGE_SELF), child0 = ru_us(RUSAGE_CHILDREN);
    double t0 = now_s();
    int rc = maat_match_run(&c, &err);
    b->wall_s = now_s() - t0;
    b->self_cpu_us = ru_us(RUSAGE_SELF) - self0;
    b->child_cpu_us = ru_us(RUSAGE_CHILDREN) - child0;
    b->decisions = 0;
    if (rc != MAAT_OK) {
        fprintf(stderr, "bench-decision: the match failed: %s\n", err.msg);
        return -1;
    }
    if (!s->record_base)
        return 0;
    for (int k = 0; k < s->games; k++) {
        char path[1100];
        maat_record_path(s->record_base, s->games, k, path, sizeof path);
        json_error_t je;
        json_t *rec = json_load_file(path, 0, &je);
        json_t *ds = rec ? json_object_get(rec, "decisions") : NULL;
        if (!json_is_array(ds)) {
            fprintf(stderr, "bench-decision: %s: no decisions\n", path);
            json_decref(rec);
            return -1;
        }
        size_t i;
        json_t *d;
        json_array_foreach(ds, i, d) {
            b->decisions++;
            const char *by = json_string_value(json_object_get(d, "by"));
            if (!by || strcmp(by, "bot") != 0) {
                fprintf(stderr, "bench-decision: a default-policy decision in "
                        "%s: a fault; the numbers would be wrong\n", path);
                json_decref(rec);
                return -1;
            }
            if (wall_us)
                push(wall_us, json_integer_value(json_object_get(d,
                                                                 "wall_us")));
            if (cpu_us)
                push(cpu_us, json_integer_value(json_object_get(d, "cpu_us")));
        }
        json_decref(rec);
        unlink(path);
    }
    return 0;
}

/* ---- message sizes, from spy bots ------------------------------------ */

typedef struct sizes {
    vec req, act; /* bytes of each request; mean action reply per request */
} sizes;

static size_t reply_size(int64_t seq, const msgpack_object *action)
{
    msgpack_sbuffer sb;
    msgpack_packer pk;
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, maat_sbuffer_write);
    msgpack_pack_map(&pk, 3);
    maat_pack_kv_str(&pk, "type", "action");
    maat_pack_kv_int(&pk, "seq", seq);
    maat_pack_str(&pk, "action");
    msgpack_pack_object(&pk, *action);
    size_t n = sb.size;
    msgpack_sbuffer_destroy(&sb);
    return n;
}

static int read_spy_file(const char *path, sizes *z)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "bench-decision: no spy file %s\n", path);
        return -1;
    }
    uint8_t hdr[4];
    char *buf = NULL;
    while (fread(hdr, 1, 4, f) == 4) {
        size_t len = hdr[0] | (size_t)hdr[1] << 8 | (size_t)hdr[2] << 16 |
                     (size_t)hdr[3] << 24;
        buf = realloc(buf, len ? len : 1);
        if (!buf || fread(buf, 1, len, f) != len)
            break;
        msgpack_unpacked u;
        maat_error err = {0};
        if (maat_msg_unpack(buf, len, &u, &err) == MAAT_OK &&
            maat_msg_str_eq(maat_msg_get(&u.data, "type"), "request")) {
            const msgpack_object *legal = maat_msg_get(&u.data, "legal");
            int64_t seq = 0;
            maat_msg_get_int(&u.data, "seq", 0, INT64_MAX, &seq, &err);
            push(&z->req, (int64_t)len);
            if (legal && legal->type == MSGPACK_OBJECT_ARRAY &&
                legal->via.array.size) {
                double s = 0;
                for (uint32_t i = 0; i < legal->via.array.size; i++)
                    s += (double)reply_size(seq, &legal->via.array.ptr[i]);
                push(&z->act, (int64_t)llround(s / legal->via.array.size));
            }
        }
        msgpack_unpacked_destroy(&u);
    }
    free(buf);
    fclose(f);
    return 0;
}

/* The sizes of `games` games between spies of this protocol version.
 * Version 3 requests have no legal list to size the answers by: those
 * come from version-2 spies of the same games (the same actions). */
static int capture_sizes(const char *spy, int seats, int games, uint64_t seed,
                         int protocol, sizes *z)
{
    if (protocol >= 3) {
        sizes z2 = {{0}, {0}};
        int rc = capture_sizes(spy, seats, games, seed, 2, &z2);
        free(z2.req.v);
        z->act = z2.act;
        if (rc)
            return rc;
    }
    char dir[300], cmd[10000], base[400];
    if (scratch_dir(dir, sizeof dir))
        return -1;
    snprintf(cmd, sizeof cmd, "'%s' --dir '%s' --seed 1 --version %d", spy,
             dir, protocol);
    snprintf(base, sizeof base, "%s/none", dir);
    series s = {.bot_cmd = cmd, .seats = seats, .games = games,
                .seed = seed, .endpoint = NULL, .record_base = NULL};
    block b;
    int rc = run_series(&s, &b, NULL, NULL);
    for (int i = 0; rc == 0 && i < seats; i++) {
        char path[500];
        snprintf(path, sizeof path, "%s/bot%d.bin", dir, i);
        rc = read_spy_file(path, z);
    }
    rm_dir_files(dir);
    if (rc == 0 && (!z->req.n || !z->act.n)) {
        fprintf(stderr, "bench-decision: the spies saw no request\n");
        rc = -1;
    }
    qsort(z->req.v, z->req.n, sizeof *z->req.v, cmp_i64);
    qsort(z->act.v, z->act.n, sizeof *z->act.v, cmp_i64);
    return rc;
}

/* ---- raw blocks: bench-pingpong --------------------------------------- */

typedef struct raw {
    double median, mean, cpu_router, cpu_dealer;
    long n;
} raw;

static double field(const char *line, const char *key)
{
    char k[40];
    snprintf(k, sizeof k, " %s=", key);
    const char *p = strstr(line, k);
    return p ? strtod(p + strlen(k), NULL) : NAN;
}

static int run_raw(const char *pingpong, const char *transport, long count,
                   long req, long act, const char *wait, int peers,
                   const char *samples, raw *r)
{
    char cmd[10000], line[1000];
    snprintf(cmd, sizeof cmd, "'%s' --machine --transport %s --count %ld "
             "--warmup 200 --req-bytes %ld --act-bytes %ld --wait %s "
             "--peers %d --samples '%s'", pingpong, transport, count, req,
             act, wait, peers, samples);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    int got = 0;
    while (fgets(line, sizeof line, p)) {
        char padded[1010];
        snprintf(padded, sizeof padded, " %s", line);
        r->n = (long)field(padded, "n");
        r->median = field(padded, "median");
        r->mean = field(padded, "mean");
        r->cpu_router = field(padded, "cpu_router");
        r->cpu_dealer = field(padded, "cpu_dealer");
        got = 1;
    }
    int st = pclose(p);
    if (!got || st != 0) {
        fprintf(stderr, "bench-decision: '%s' failed\n", cmd);
        return -1;
    }
    return 0;
}

static int read_samples(const char *path, vec *into)
{
    FILE *f = fopen(path, "r");
    long long x;
    if (!f)
        return -1;
    while (fscanf(f, "%lld", &x) == 1)
        push(into, x);
    fclose(f);
    unlink(path);
    return 0;
}

/* ---- main ---------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
"usage: bench-decision [--rounds R] [--games G] [--seats N] [--raw-count K]\n"
"                      [--transport ipc|tcp] [--raw-wait recv|poll|fd]\n"
"                      [--seed S] [--bot CMD] [--pingpong PATH] [--spy PATH]\n"
"                      [--cpu N] [--sandbox on|off] [--protocol 1|2|3]\n"
"The referee's cost per decision in a real Pyramids match between bots that\n"
"answer at once, against raw ZeroMQ round trips of the same sizes, the two\n"
"interleaved in rounds in one run.  Defaults: 10 rounds of (2000 raw round\n"
"trips, a 30-game series, a 1-game series), 2 seats, ipc, raw wait recv\n"
"(the cheapest; fd waits as the referee does, bench-pingpong --help),\n"
"seed 1, the random sample bot; programs from this build directory;\n"
"bots sandboxed as maat-referee does when bubblewrap works (--sandbox off:\n"
"not), idle seats at nice 19 once another's decision lasts 1 ms.\n"
"--cpu N runs everything (this process, the bots, the raw ping-pong) on CPU\n"
"N only: one chain of work on one core, without cross-core wake-ups.\n"
"--protocol 1: the bots (and the spies that measure the sizes) speak\n"
"protocol version 1, every request with its observation (the default bot\n"
"is then maat-random --full-observation); 2: the delta protocol\n"
"(maat-random --protocol 2); 3, the default: the delta protocol without\n"
"the legal list (the bots work it out from their views).\n");
}

static long arg_long(const char *opt, const char *v, long lo, long hi)
{
    char *end;
    errno = 0;
    long x = v ? strtol(v, &end, 10) : 0;
    if (!v || errno || end == v || *end || x < lo || x > hi) {
        fprintf(stderr, "bench-decision: %s wants an integer from %ld to "
                "%ld\n", opt, lo, hi);
        exit(2);
    }
    return x;
}

int main(int argc, char **argv)
{
    int rounds = 10, games = 30, seats = 2;
    long raw_count = 2000;
    uint64_t seed = 1;
    const char *transport = "ipc", *raw_wait = "recv";
    const char *bot = NULL, *pingpong = NULL, *spy = NULL;
    int cpu = -1, sandbox = -1; /* -1: when bubblewrap works */
    int protocol = 3;
    for (int i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--rounds")) {
            rounds = (int)arg_long(a, v, 1, 10000);
        } else if (!strcmp(a, "--games")) {
            games = (int)arg_long(a, v, 2, 100000);
        } else if (!strcmp(a, "--seats")) {
            seats = (int)arg_long(a, v, 2, 5);
        } else if (!strcmp(a, "--raw-count")) {
            raw_count = arg_long(a, v, 10, 100000000);
        } else if (!strcmp(a, "--seed")) {
            seed = (uint64_t)arg_long(a, v, 0, LONG_MAX);
        } else if (!strcmp(a, "--transport") && v &&
                   (!strcmp(v, "ipc") || !strcmp(v, "tcp"))) {
            transport = v;
        } else if (!strcmp(a, "--raw-wait") && v &&
                   (!strcmp(v, "recv") || !strcmp(v, "poll") ||
                    !strcmp(v, "fd"))) {
            raw_wait = v;
        } else if (!strcmp(a, "--bot") && v) {
            bot = v;
        } else if (!strcmp(a, "--pingpong") && v) {
            pingpong = v;
        } else if (!strcmp(a, "--spy") && v) {
            spy = v;
        } else if (!strcmp(a, "--cpu")) {
            cpu = (int)arg_long(a, v, 0, CPU_SETSIZE - 1);
        } else if (!strcmp(a, "--sandbox") && v &&
                   (!strcmp(v, "on") || !strcmp(v, "off"))) {
            sandbox = !strcmp(v, "on");
        } else if (!strcmp(a, "--protocol")) {
            protocol = (int)arg_long(a, v, 1, 3);
        } else if (!strcmp(a, "--seconds") && v) {
            /* accepted for run-all.sh; the work is fixed by --rounds */
        } else {
            fprintf(stderr, "bench-decision: bad option '%s' (try --help)\n",
                    a);
            return 2;
        }
    }
    if (cpu >= 0) { /* inherited by every process started below */
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set)) {
            fprintf(stderr, "bench-decision: cannot pin to CPU %d: %s\n", cpu,
                    strerror(errno));
            return 1;
        }
    }
    /* the programs next to this one: build/bench/.. */
    char self[PATH_MAX], root[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "bench-decision: cannot find myself\n");
        return 1;
    }
    self[n] = 0;
    snprintf(root, sizeof root, "%s", self);
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(root, '/');
        if (slash)
            *slash = 0;
    }
    static char d_bot[PATH_MAX + 80], d_pp[PATH_MAX + 40],
        d_spy[PATH_MAX + 40];
    snprintf(d_bot, sizeof d_bot, "%s/sample-bots/maat-random%s", root,
             protocol == 1 ? " --full-observation"
             : protocol == 2 ? " --protocol 2" : "");
    snprintf(d_pp, sizeof d_pp, "%s/bench/bench-pingpong", root);
    snprintf(d_spy, sizeof d_spy, "%s/tests/maat-spy-bot", root);
    bot = bot ? bot : d_bot;
    pingpong = pingpong ? pingpong : d_pp;
    spy = spy ? spy : d_spy;
    if (access(pingpong, X_OK) || access(spy, X_OK) ||
        (bot != d_bot && !strchr(bot, ' ') && access(bot, X_OK))) {
        fprintf(stderr, "bench-decision: needs %s, %s and %s (ninja them)\n",
                pingpong, spy, bot);
        return 1;
    }
    /* the referee's own test (referee/main.c, choose_sandbox) */
    int bwrap = system("bwrap --ro-bind / / --unshare-pid --unshare-net "
                       "true >/dev/null 2>&1") == 0;
    if (sandbox == 1 && !bwrap) {
        fprintf(stderr, "bench-decision: --sandbox on: bubblewrap does not "
                        "work here\n");
        return 1;
    }
    sandbox = sandbox < 0 ? bwrap : sandbox;
    const char *endpoint = strcmp(transport, "tcp") ? NULL
                                                    : "tcp://127.0.0.1:*";
    char la[64];
    loadavg(la, sizeof la);
    printf("# bench-decision: %d-seat Pyramids, %s, referee match loop vs "
           "raw ZeroMQ, %d interleaved rounds, protocol version %d\n# bots %s, "
           "idle seats at nice 19 from a decision's first ms\n# load average at start: %s (%ld "
           "cores)%s\n", seats, transport, rounds, protocol, sandbox ? "sandboxed (bubblewrap)" :
           "NOT sandboxed", la,
           sysconf(_SC_NPROCESSORS_ONLN), cpu >= 0 ? "; all on one CPU (--cpu)"
                                                   : "");

    /* 1. real message sizes */
    sizes z = {0};
    if (capture_sizes(spy, seats, 20, seed, protocol, &z))
        return 1;
    long req = llround(mean(&z.req)), act = llround(mean(&z.act));
    printf("# message sizes (spy bots, 20 games, seed %llu, %zu requests): "
           "request min %.0f, median %.0f, mean %ld, p90 %.0f, max %.0f B; "
           "action mean %ld B (min %.0f, max %.0f)\n",
           (unsigned long long)seed, z.req.n, pct(&z.req, 0), pct(&z.req, .5),
           req, pct(&z.req, .9), pct(&z.req, 1), act, pct(&z.act, 0),
           pct(&z.act, 1));

    /* 2. interleaved rounds */
    char dir[300], base[400], samples[400];
    if (scratch_dir(dir, sizeof dir))
        return 1;
    snprintf(base, sizeof base, "%s/r.json", dir);
    snprintf(samples, sizeof samples, "%s/raw.txt", dir);
    /* raw_all: one DEALER process, as the goal was first measured;
     * raw_peers: one DEALER process per seat, asked in turn, the shape of
     * a match (each decision wakes another process) */
    vec raw_all = {0}, raw_peers = {0}, wall_all = {0}, cpu_all = {0};
    double *cycle = calloc((size_t)rounds, sizeof *cycle),
           *ratio = calloc((size_t)rounds, sizeof *ratio),
           *ref_cpu = calloc((size_t)rounds, sizeof *ref_cpu),
           *bot_cpu = calloc((size_t)rounds, sizeof *bot_cpu),
           *raw_cr = calloc((size_t)rounds, sizeof *raw_cr),
           *raw_cd = calloc((size_t)rounds, sizeof *raw_cd),
           *peers_cr = calloc((size_t)rounds, sizeof *peers_cr),
           *peers_cd = calloc((size_t)rounds, sizeof *peers_cd),
           *raw_mean = calloc((size_t)rounds, sizeof *raw_mean),
           *fixed = calloc((size_t)rounds, sizeof *fixed);
    printf("%5s %9s %9s %7s | %9s %9s %9s | %9s %9s %9s %9s\n", "round",
           "raw_med", "ref_med", "ratio", "decisions", "cycle_us", "fixed_ms",
           "ref_cpu", "raw_cpu_r", "bot_cpu", "raw_cpu_d");
    long total_dec = 0;
    for (int r = 0; r < rounds; r++) {
        raw rw = {0}, rn = {0};
        if (run_raw(pingpong, transport, raw_count, req, act, raw_wait, 1,
                    samples, &rw) ||
            read_samples(samples, &raw_all) ||
            run_raw(pingpong, transport, raw_count, req, act, raw_wait,
                    seats, samples, &rn) ||
            read_samples(samples, &raw_peers))
            return 1;

        series big = {.bot_cmd = bot, .seats = seats, .games = games,
                      .seed = seed, .endpoint = endpoint,
                      .record_base = base, .sandbox = sandbox};
        series one = big;
        one.games = 1;
        block bb, b1;
        vec w = {0};
        if (run_series(&big, &bb, &w, &cpu_all) ||
            run_series(&one, &b1, NULL, NULL))
            return 1;
        for (size_t i = 0; i < w.n; i++)
            push(&wall_all, w.v[i]);
        qsort(w.v, w.n, sizeof *w.v, cmp_i64);
        double ref_med = pct(&w, .5);
        free(w.v);
        total_dec += bb.decisions;
        double dd = (double)(bb.decisions - b1.decisions);
        cycle[r] = (bb.wall_s - b1.wall_s) * 1e6 / dd;
        fixed[r] = (b1.wall_s * 1e6 - cycle[r] * (double)b1.decisions) / 1e3;
        ratio[r] = ref_med / rw.median;
        ref_cpu[r] = (bb.self_cpu_us - b1.self_cpu_us) / dd;
        bot_cpu[r] = (bb.child_cpu_us - b1.child_cpu_us) / dd;
        raw_cr[r] = rw.cpu_router;
        raw_cd[r] = rw.cpu_dealer;
        peers_cr[r] = rn.cpu_router;
        peers_cd[r] = rn.cpu_dealer; /* all N DEALERs, per round trip */
        raw_mean[r] = rw.mean;
        printf("%5d %9.1f %9.1f %7.2f | %9ld %9.1f %9.1f | %9.2f %9.2f %9.2f "
               "%9.2f\n", r + 1, rw.median, ref_med, ratio[r], bb.decisions,
               cycle[r], fixed[r], ref_cpu[r], raw_cr[r], bot_cpu[r],
               raw_cd[r]);
        fflush(stdout);
    }
    rm_dir_files(dir);

    qsort(raw_all.v, raw_all.n, sizeof *raw_all.v, cmp_i64);
    qsort(raw_peers.v, raw_peers.n, sizeof *raw_peers.v, cmp_i64);
    qsort(wall_all.v, wall_all.n, sizeof *wall_all.v, cmp_i64);
    qsort(cpu_all.v, cpu_all.n, sizeof *cpu_all.v, cmp_i64);
    printf("# pooled over %d rounds (microseconds)\n", rounds);
    printf("%-44s %7s %8s %8s %8s %8s %8s\n", "", "n", "min", "median",
           "p90", "p99", "mean");
    printf("%-44s %7zu %8.1f %8.1f %8.1f %8.1f %8.1f\n",
           "raw round trip (bench-pingpong)", raw_all.n,
           pct(&raw_all, 0) / 1e3, pct(&raw_all, .5) / 1e3,
           pct(&raw_all, .9) / 1e3, pct(&raw_all, .99) / 1e3,
           mean(&raw_all) / 1e3);
    char label[64];
    snprintf(label, sizeof label, "raw round trip, %d DEALERs in turn", seats);
    printf("%-44s %7zu %8.1f %8.1f %8.1f %8.1f %8.1f\n", label, raw_peers.n,
           pct(&raw_peers, 0) / 1e3, pct(&raw_peers, .5) / 1e3,
           pct(&raw_peers, .9) / 1e3, pct(&raw_peers, .99) / 1e3,
           mean(&raw_peers) / 1e3);
    printf("%-44s %7zu %8.0f %8.0f %8.0f %8.0f %8.1f\n",
           "referee wall_us (request sent .. answer ok)", wall_all.n,
           pct(&wall_all, 0), pct(&wall_all, .5), pct(&wall_all, .9),
           pct(&wall_all, .99), mean(&wall_all));
    printf("%-44s %7zu %8.0f %8.0f %8.0f %8.0f %8.1f\n",
           "bot CPU per decision (cpu_us in the record)", cpu_all.n,
           pct(&cpu_all, 0), pct(&cpu_all, .5), pct(&cpu_all, .9),
           pct(&cpu_all, .99), mean(&cpu_all));
    double raw_med = pct(&raw_all, .5) / 1e3;
    double m_cycle = median_d(cycle, rounds), m_ratio = median_d(ratio, rounds);
    double m_rm = median_d(raw_mean, rounds);
    printf("ratio referee wall_us / raw, medians pooled: %.2f; median of "
           "per-round ratios: %.2f\n", pct(&wall_all, .5) / raw_med, m_ratio);
    printf("ratio referee wall_us / raw with %d DEALERs in turn, medians "
           "pooled: %.2f\n", seats,
           pct(&wall_all, .5) / (pct(&raw_peers, .5) / 1e3));
    printf("decision cycle (whole loop, per decision): median over rounds "
           "%.1f us = %.2f x the raw median, %.2f x the raw mean (%.1f us); "
           "goal <= 1.5x\n", m_cycle, m_cycle / raw_med, m_cycle / m_rm, m_rm);
    printf("fixed cost of a series (spawn, hellos, bye): median %.1f ms\n",
           median_d(fixed, rounds));
    double m_ref = median_d(ref_cpu, rounds), m_rcr = median_d(raw_cr, rounds);
    double m_bot = median_d(bot_cpu, rounds), m_rcd = median_d(raw_cd, rounds);
    /* a sandboxed bot is reaped inside its PID namespace, so its CPU never
     * reaches our RUSAGE_CHILDREN: take the deciding bot's CPU clock as the
     * referee records it (cpu_us, mean) instead */
    if (sandbox)
        m_bot = mean(&cpu_all);
    printf("CPU per decision, medians over rounds: referee process %.2f us vs "
           "raw ROUTER %.2f us (%.2fx); bots %.2f us%s vs raw DEALER %.2f us "
           "(%.2fx); both sides %.2fx\n", m_ref, m_rcr, m_ref / m_rcr, m_bot,
           sandbox ? " (mean cpu_us)" : "", m_rcd, m_bot / m_rcd,
           (m_ref + m_bot) / (m_rcr + m_rcd));
    /* the same against the match's shape: each round trip wakes another
     * DEALER process, as each decision wakes another bot */
    double m_pcr = median_d(peers_cr, rounds), m_pcd = median_d(peers_cd, rounds);
    printf("CPU per decision against %d DEALERs in turn: referee process "
           "%.2f us vs raw ROUTER %.2f us (%.2fx); bots %.2f us vs raw "
           "DEALERs %.2f us (%.2fx); both sides %.2fx\n", seats, m_ref, m_pcr,
           m_ref / m_pcr, m_bot, m_pcd, m_bot / m_pcd,
           (m_ref + m_bot) / (m_pcr + m_pcd));
    loadavg(la, sizeof la);
    printf("# %ld referee decisions measured; load average at the end: %s\n",
           total_dec, la);
    free(raw_all.v);
    free(raw_peers.v);
    free(wall_all.v);
    free(cpu_all.v);
    free(z.req.v);
    free(z.act.v);
    free(cycle);
    free(ratio);
    free(ref_cpu);
    free(bot_cpu);
    free(raw_cr);
    free(raw_cd);
    free(peers_cr);
    free(peers_cd);
    free(raw_mean);
    free(fixed);
    return 0;
}
