/* test_match.c -- the match loop in one process (referee/match.c and the
 * files it drives), with the bots played by this test over inproc://.
 *
 * Each case runs maat_match_run with two remote seats whose behaviour a
 * small script sets (answer at once, answer with a wrong seq first, stay
 * silent, report its own think_us, answer the first request only after
 * the next one came, take its time over its first decision), plus an optional stranger stealing a seated token,
 * and checks the record: who decided what, which faults against which
 * seat, the think_us the bots reported.
 */
#define _GNU_SOURCE /* memmem */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "check.h"
#include "match.h"
#include "peer.h"
#include "record.h"

#define SEATS 2

static const char *const tokens[SEATS] = {
    "c0c1c2c3c4c5c6c7c8c9cacbcccdcecf", "d0d1d2d3d4d5d6d7d8d9dadbdcdddedf"};

typedef struct script {
    int wrong_seq_once[SEATS]; /* first request: answer seq + 5 first */
    int silent[SEATS];         /* never answer */
    int steal;                 /* a stranger presents seat 1's token */
    int64_t think_us[SEATS];   /* reported with every answer; 0: none */
    int late_once[SEATS];      /* first request: answered only when the
                                  next one arrives (so after its timeout),
                                  with think_us 7 */
    int bad_think[SEATS];      /* every answer: think_us -1 (malformed) */
    int think_first_ms[SEATS]; /* first request: think this long first */
    int64_t bank_ms;           /* nonzero: --time 60, --first-time 2000,
                                  --bank bank_ms */
} script;

typedef struct run {
    void *ctx;
    const char *endpoint;
    const script *sc;
    atomic_int over;
    int stranger_rejected;
    int64_t min_bank[SEATS]; /* the least bank_ms a seat's requests showed */
} run;

static void *peers(void *arg)
{
    run *r = arg;
    void *sock[SEATS + 1];
    seat_state st[SEATS];
    int wrong_done[SEATS] = {0, 0};
    int64_t held[SEATS] = {-1, -1}; /* late_once: the request held back */
    int thought[SEATS] = {0, 0};    /* think_first_ms: done */
    for (int i = 0; i <= SEATS; i++) {
        sock[i] = zmq_socket(r->ctx, ZMQ_DEALER);
        int zero = 0;
        zmq_setsockopt(sock[i], ZMQ_LINGER, &zero, sizeof zero);
        zmq_connect(sock[i], r->endpoint);
    }
    for (int i = 0; i < SEATS; i++) {
        st[i] = (seat_state){.seq = -1};
        r->min_bank[i] = INT64_MAX;
        msgpack_sbuffer_init(&st[i].action);
        send_hello(sock[i], tokens[i]);
    }
    int stole = 0;
    while (!atomic_load(&r->over)) {
        zmq_pollitem_t it[SEATS + 1];
        for (int i = 0; i <= SEATS; i++)
            it[i] = (zmq_pollitem_t){sock[i], 0, ZMQ_POLLIN, 0};
        zmq_poll(it, SEATS + 1, 2);
        if (it[SEATS].revents & ZMQ_POLLIN) { /* the stranger's answer */
            char buf[256];
            int n = zmq_recv(sock[SEATS], buf, sizeof buf, ZMQ_DONTWAIT);
            r->stranger_rejected |= n > 0 && memmem(buf, (size_t)n,
                                                    "reject", 6) != NULL;
        }
        for (int i = 0; i < SEATS; i++) {
            read_seat(sock[i], &st[i], 0);
            if (st[i].seq < 0)
                continue;
            if (st[i].bank_ms < r->min_bank[i])
                r->min_bank[i] = st[i].bank_ms;
            if (r->sc->think_first_ms[i] > 0 && !thought[i]) {
                /* the bot's own thinking, not synchronisation: the time
                 * its first decision takes */
                usleep((useconds_t)r->sc->think_first_ms[i] * 1000);
                thought[i] = 1;
            }
            if (r->sc->steal && !stole) { /* seat 1 is seated by now */
                send_hello(sock[SEATS], tokens[1]);
                stole = 1;
            }
            if (r->sc->silent[i])
                continue;
            if (r->sc->wrong_seq_once[i] && !wrong_done[i]) {
                answer(sock[i], &st[i], st[i].seq + 5);
                wrong_done[i] = 1;
            }
            if (r->sc->late_once[i] && held[i] == -1) {
                held[i] = st[i].seq; /* a new request means it timed out */
                st[i].seq = -1;
                continue;
            }
            if (held[i] >= 0) {
                answer_think(sock[i], &st[i], held[i], 7);
                held[i] = -2;
            }
            answer_think(sock[i], &st[i], st[i].seq,
                         r->sc->bad_think[i] ? INT64_C(1) << 41
                         : r->sc->think_us[i] ? r->sc->think_us[i] : -1);
            st[i].seq = -1;
        }
    }
    for (int i = 0; i <= SEATS; i++)
        zmq_close(sock[i]);
    for (int i = 0; i < SEATS; i++)
        msgpack_sbuffer_destroy(&st[i].action);
    return NULL;
}

/* Play one match with the script; return its record (decref it). */
static json_t *play(const script *sc, const char *name, int *rejected,
                    int64_t *min_bank)
{
    static void *ctx;
    if (!ctx)
        ctx = zmq_ctx_new();
    char endpoint[64], record[256];
    snprintf(endpoint, sizeof endpoint, "inproc://test-match-%s", name);
    snprintf(record, sizeof record, "%s/maat-test-match-%ld-%s.json",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid(),
             name);
    maat_match_config c;
    maat_match_config_init(&c);
    c.rules = maat_rules_find("pyramids");
    maat_seed_from_u64(&c.seed, 11);
    c.fixed_seats = 1;
    c.zmq_context = ctx;
    c.endpoint = endpoint;
    c.n_bots = SEATS;
    c.bots[0] = (maat_bot_spec){.name = "north", .token = tokens[0]};
    c.bots[1] = (maat_bot_spec){.name = "south", .token = tokens[1]};
    c.clock.decision_ms = c.clock.first_ms = 60; /* silent seats time out */
    c.clock.grace_ms = 20;
    if (sc->bank_ms) {
        c.clock.first_ms = 2000;
        c.clock.bank_ms = sc->bank_ms;
    }
    c.record_path = record;
    c.record_timing = 1;
    c.quiet = 1;
    run r = {ctx, endpoint, sc, 0, 0, {0}};
    pthread_t th;
    pthread_create(&th, NULL, peers, &r);
    maat_error err = {0, ""};
    int rc = maat_match_run(&c, &err);
    atomic_store(&r.over, 1);
    pthread_join(th, NULL);
    CHECK(rc == MAAT_OK, "%s: the match ran (%s)", name, err.msg);
    json_error_t je;
    json_t *rec = json_load_file(record, 0, &je);
    CHECK(rec != NULL, "%s: a record was written", name);
    maat_error verr = {0, ""};
    CHECK(maat_record_verify(record, NULL, NULL, 0, &verr) == 0,
          "%s: the record verifies", name);
    unlink(record);
    if (rejected)
        *rejected = r.stranger_rejected;
    for (int i = 0; min_bank && i < SEATS; i++)
        min_bank[i] = r.min_bank[i];
    return rec;
}

/* Decisions of `seat` taken by "bot" / "default", and faults of a kind. */
static int count_decisions(json_t *rec, int seat, const char *by)
{
    size_t i;
    json_t *d;
    int n = 0;
    json_array_foreach(json_object_get(rec, "decisions"), i, d)
        n += json_integer_value(json_object_get(d, "seat")) == seat &&
             strcmp(json_string_value(json_object_get(d, "by")), by) == 0;
    return n;
}

static int count_faults(json_t *rec, int seat, const char *kind)
{
    size_t i;
    json_t *f;
    int n = 0;
    json_array_foreach(json_object_get(rec, "faults"), i, f)
        n += json_integer_value(json_object_get(f, "seat")) == seat &&
             strcmp(json_string_value(json_object_get(f, "kind")), kind) == 0;
    return n;
}

int main(void)
{
    script clean = {0};
    json_t *rec = play(&clean, "clean", NULL, NULL);
    CHECK(json_array_size(json_object_get(rec, "faults")) == 0,
          "clean: no fault");
    CHECK(count_decisions(rec, 0, "default") == 0 &&
          count_decisions(rec, 1, "default") == 0,
          "clean: every decision by the bots");
    json_decref(rec);

    script wrong = {.wrong_seq_once = {1, 0}};
    rec = play(&wrong, "wrong-seq", NULL, NULL);
    CHECK(count_faults(rec, 0, "malformed") == 1 &&
          json_array_size(json_object_get(rec, "faults")) == 1,
          "wrong seq: one malformed fault against seat 0");
    CHECK(count_decisions(rec, 0, "default") == 0,
          "wrong seq: the request stayed open and the right answer counted");
    json_decref(rec);

    script silent = {.silent = {0, 1}};
    rec = play(&silent, "silent", NULL, NULL);
    CHECK(count_faults(rec, 1, "timeout") == 3,
          "silent: three timeouts against seat 1 (strikes:3), got %d",
          count_faults(rec, 1, "timeout"));
    CHECK(count_decisions(rec, 1, "bot") == 0 &&
          count_decisions(rec, 0, "default") == 0,
          "silent: seat 1 played by the default policy, seat 0 by its bot");
    json_t *res = json_object_get(rec, "result");
    CHECK(json_integer_value(json_object_get(json_array_get(res, 1),
                                             "rank")) == 2,
          "silent: the seat that was out ranks last");
    json_decref(rec);

    /* think_us: only reported, per decision and on a late answer's fault */
    script think = {.think_us = {123, 0}, .late_once = {0, 1}};
    rec = play(&think, "think", NULL, NULL);
    int with = 0, without = 0;
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(rec, "decisions"), i, d) {
        json_t *t = json_object_get(d, "think_us");
        int seat = (int)json_integer_value(json_object_get(d, "seat"));
        with += seat == 0 && json_integer_value(t) == 123;
        without += seat == 1 && t == NULL;
    }
    CHECK(with == count_decisions(rec, 0, "bot") && with > 0,
          "think: every decision of seat 0 records its think_us 123 (%d)",
          with);
    CHECK(without == count_decisions(rec, 1, "bot") + 1,
          "think: seat 1 reports none, and its default decision has none");
    json_t *f = json_array_get(json_object_get(rec, "faults"), 0);
    CHECK(count_faults(rec, 1, "timeout") == 1 &&
          json_array_size(json_object_get(rec, "faults")) == 1 &&
          json_integer_value(json_object_get(f, "think_us")) == 7,
          "think: the late answer's think_us 7 is in its timeout fault");
    json_decref(rec);

    script bad = {.bad_think = {1, 0}};
    rec = play(&bad, "bad-think", NULL, NULL);
    CHECK(count_faults(rec, 0, "malformed") == 3 &&
          count_decisions(rec, 0, "bot") == 0,
          "bad think_us (2^41): malformed, three strikes, seat 0 out");
    json_decref(rec);

    script steal = {.steal = 1};
    int rejected = 0;
    rec = play(&steal, "steal", &rejected, NULL);
    CHECK(rejected, "steal: the stranger with a seated token is rejected");
    CHECK(json_array_size(json_object_get(rec, "faults")) == 0 &&
          count_decisions(rec, 1, "default") == 0,
          "steal: the seat's own bot played every decision, no fault");
    json_decref(rec);
    /* The first decision's allowance is --first-time: time used within
     * it is not taken from the bank (it was, as if --time applied) */
    script first = {.think_first_ms = {300, 0}, .bank_ms = 1000};
    int64_t min_bank[SEATS];
    rec = play(&first, "first-time", NULL, min_bank);
    CHECK(json_array_size(json_object_get(rec, "faults")) == 0,
          "first-time: no fault");
    CHECK(min_bank[0] == 1000 && min_bank[1] == 1000,
          "first-time: 300 ms of a 2000 ms first decision leave the bank "
          "whole (%lld and %lld of 1000 ms)", (long long)min_bank[0],
          (long long)min_bank[1]);
    json_decref(rec);
    return check_done("test_match");
}
