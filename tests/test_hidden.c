/* test_hidden.c -- no seat of any registered game ever receives what it
 * may not know: one message-by-message proof for every game of
 * maat_rules_all (a game added to the registry is covered with no change
 * here).
 *
 * maat-referee plays seeded matches of every game and seat count between
 * maat-spy-bot seats (tests/bots/spy.c records every message it receives);
 * in some matches the odd seats speak protocol version 2 or 3, whose
 * requests carry the observation only the first time in a game (checked)
 * and, in version 3, no legal list (checked: the seat's view gives the
 * rules' list), and their views follow the events alone, as the SDK's do.
 * The test replays each record through the rules in process and, for each
 * message the referee sent to seat s, proves:
 *   a) it is what the rules give s: the observation is
 *      encode_observation(state, s), the events exactly those whose
 *      visible_to includes s since its last message, once each and in
 *      order, the legal list the rules' own (the referee forwards, it
 *      never decides what a seat sees);
 *   b) what the rules give s depends only on what s may know: a view fed
 *      every message s received, as the SDK's bot loop feeds it, is
 *      determinized four times -- the hidden information (deck orders,
 *      other hands, unrevealed pieces) dealt anew each time -- and each
 *      sample gives s the same observation bytes and the same legal list
 *      as the true state.  A module that put anything hidden into a seat's
 *      observation would fail here, whatever its wire format;
 *   c) every event obeys its declaration (rules->wire_events, sdk/src/
 *      games/wire.h): it decodes as declared; a kind seen only by its seat
 *      (MAAT_W_OWNER) reaches only that seat; an owner-only field
 *      (MAAT_W_SPLIT) reaches only the event's seat;
 *   d) no seed, no key derived from it, no 64-bit integer, and no key
 *      named seed/rng/order/deck_order appears anywhere;
 *   e) the end message shows the scores and parts the rules compute and
 *      the record's ranks, then bye, then nothing.
 * Each game must have had hidden information to protect (samples that
 * differed), or the proof of (b) would be empty.
 *
 * The checker is shown to fail, in process, for every game: another
 * seat's observation, a module that leaks its omniscient view (b), a
 * private event sent to another seat (c, for games that have one), the
 * seed as a number and a key named order (d).  And the welcome's match id
 * must not give the seed away.
 *
 * Needs MAAT_REFEREE and MAAT_SPY (set by meson).  Work files go to a
 * fresh directory under $TMPDIR (kept, and named, when a check fails).
 */
#include <stdarg.h>
#include <time.h>

#include "check.h"
#include "games/wire.h"
#include "maat/policy.h"
#include "maat/rng.h"
#include "matchlib.h"

static const char *referee_path, *spy_path;
static char workdir[512];

/* Seeds above 2^32, so "the seed appears as an integer" cannot be confused
 * with an id, a sequence number or a clock value. */
#define SEED_BASE 0x5eed00000000ULL
#define MATCHES 5  /* per game and seat count */
#define SAMPLES 4  /* determinizations per request */

typedef struct finding {
    int n;
    char first[400];
} finding;

static void found(finding *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void found(finding *f, const char *fmt, ...)
{
    if (f->n++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(f->first, sizeof f->first, fmt, ap);
        va_end(ap);
    }
}

/* ---- (d) nothing about the seed ------------------------------------------- */

typedef struct secrets {
    uint64_t seed;
    char text[3][MAAT_SEED_TEXT]; /* the seed and keys derived from it */
} secrets;

static void make_secrets(secrets *s, uint64_t seed)
{
    static const char *const derived[] = {"policy", "seats"};
    maat_seed key;
    s->seed = seed;
    maat_seed_format(SEED(seed), s->text[0]);
    for (int i = 0; i < 2; i++) {
        maat_seed_derive(&key, SEED(seed), derived[i]);
        maat_seed_format(&key, s->text[1 + i]);
    }
}

static const char *const banned_keys[] = {"seed", "order", "deck_order",
                                          "rng", NULL};

static void walk(const secrets *sec, finding *f, const msgpack_object *o,
                 const char *path)
{
    char sub[300];
    switch (o->type) {
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
    case MSGPACK_OBJECT_NEGATIVE_INTEGER: {
        uint64_t u = o->via.u64; /* the same bits for either kind */
        if (u == sec->seed)
            found(f, "the seed %" PRIu64 " at %s", u, path);
        if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER ? u >= (1ULL << 32)
                                                        : o->via.i64 <= -(1LL << 32))
            found(f, "a 64-bit integer %" PRIu64 " at %s (a seed or RNG "
                  "state?)", u, path);
        return;
    }
    case MSGPACK_OBJECT_STR:
        for (int k = 0; k < 3; k++) {
            size_t sl = strlen(sec->text[k]);
            for (size_t i = 0; i + sl <= o->via.str.size; i++)
                if (!memcmp(o->via.str.ptr + i, sec->text[k], sl)) {
                    found(f, "the seed (or a key derived from it) %s in a "
                          "string at %s", sec->text[k], path);
                    return;
                }
        }
        return;
    case MSGPACK_OBJECT_BIN:
        found(f, "binary data at %s", path);
        return;
    case MSGPACK_OBJECT_ARRAY:
        for (uint32_t i = 0; i < o->via.array.size; i++) {
            snprintf(sub, sizeof sub, "%s[%u]", path, i);
            walk(sec, f, &o->via.array.ptr[i], sub);
        }
        return;
    case MSGPACK_OBJECT_MAP:
        for (uint32_t i = 0; i < o->via.map.size; i++) {
            const msgpack_object *k = &o->via.map.ptr[i].key;
            char name[64] = "?";
            if (k->type == MSGPACK_OBJECT_STR)
                snprintf(name, sizeof name, "%.*s", (int)k->via.str.size,
                         k->via.str.ptr);
            snprintf(sub, sizeof sub, "%s.%s", path, name);
            for (int b = 0; banned_keys[b]; b++)
                if (key_is(k, banned_keys[b]))
                    found(f, "a key named '%s' at %s", name, path);
            walk(sec, f, k, sub);
            walk(sec, f, &o->via.map.ptr[i].val, sub);
        }
        return;
    default:
        return;
    }
}

/* ---- (c) events against their declarations -------------------------------- */

static void check_events(const maat_rules *r, const msgpack_object *events,
                         int seat, finding *f)
{
    if (!events || events->type != MSGPACK_OBJECT_ARRAY) {
        found(f, "no events array");
        return;
    }
    for (uint32_t i = 0; i < events->via.array.size; i++) {
        const msgpack_object *e = &events->via.array.ptr[i];
        const msgpack_object *name = maat_msg_get(e, "event");
        const maat_wire_kind *k =
            name && name->type == MSGPACK_OBJECT_STR
                ? maat_wire_named(r->wire_events, name->via.str.ptr,
                                  name->via.str.size)
                : NULL;
        if (!k) {
            found(f, "events[%u] is of no declared kind", i);
            continue;
        }
        int kind, eseat;
        int32_t arg[MAAT_EVENT_ARGS];
        maat_error err = {0, ""};
        int rc = maat_wire_decode(r->wire_events, e, &kind, &eseat, arg, &err);
        if (rc != MAAT_OK && rc != MAAT_EINVAL) /* EINVAL: encoded only */
            found(f, "events[%u] (%s) breaks its declaration: %s", i, k->name,
                  err.msg);
        int64_t s = -1;
        obj_int(maat_msg_get(e, "seat"), &s);
        if (k->seen_by == MAAT_W_OWNER && s != seat)
            found(f, "events[%u]: seat %d is told of a '%s' of seat %" PRId64
                  ", which only that seat sees", i, seat, k->name, s);
        for (int j = 0; k->seen_by == MAAT_W_SPLIT && j < k->n_fields; j++)
            if (k->fields[j].owner && s != seat &&
                maat_msg_get(e, k->fields[j].key))
                found(f, "events[%u]: seat %d is told the '%s' of seat %"
                      PRId64 "'s '%s', which only that seat sees", i, seat,
                      k->fields[j].key, s, k->name);
    }
}

/* ---- (a) the message is the rules' -------------------------------------- */

/* The events seat may see, from *cursor on, as the rules encode them. */
static void pack_visible_events(const maat_rules *r, const maat_game *g,
                                const maat_events *ev, int seat,
                                size_t *cursor, msgpack_packer *pk)
{
    uint32_t me = 1u << seat;
    size_t n = 0;
    for (size_t i = *cursor; i < ev->count; i++)
        n += (ev->items[i].visible_to & me) != 0;
    msgpack_pack_array(pk, n);
    for (size_t i = *cursor; i < ev->count; i++)
        if (ev->items[i].visible_to & me)
            r->encode_event(g, &ev->items[i], pk);
    *cursor = ev->count;
}

static int pack_legal(const maat_rules *r, const maat_game *g,
                      msgpack_packer *pk)
{
    static maat_action legal[4096];
    int n = r->legal_actions(g, legal, 4096);
    msgpack_pack_array(pk, (size_t)(n < 4096 ? n : 4096));
    for (int i = 0; i < n && i < 4096; i++)
        r->encode_action(g, &legal[i], pk);
    return n;
}

static int same_object(const msgpack_object *want, const msgpack_object *got,
                       const char *what, const char *where, int seat)
{
    if (want && got && msgpack_object_equal(*want, *got))
        return 1;
    char a[2000] = "(none)", b[2000] = "(none)";
    if (got)
        obj_to_text(got, a, sizeof a);
    if (want)
        obj_to_text(want, b, sizeof b);
    CHECK(0, "%s: %s is not the rules' for seat %d\n  got  %s\n  want %s",
          where, what, seat, a, b);
    return 0;
}

/* with_legal: 1 a request, whose legal list is the rules' own; -1 a
 * version-3 request, which has none; 0 the end, which always has its
 * observation. */
static void check_consistent(const maat_rules *r, const maat_game *g,
                             const maat_events *ev, int seat, size_t *cursor,
                             const msgpack_object *msg, const char *where,
                             int with_legal)
{
    packed p;
    /* a version-2 request without one: the caller checks that it may */
    if (maat_msg_get(msg, "observation") || with_legal == 0) {
        packed_begin(&p);
        r->encode_observation(g, seat, &p.pk);
        same_object(packed_end(&p), maat_msg_get(msg, "observation"),
                    "the observation", where, seat);
        packed_free(&p);
    }
    packed_begin(&p);
    pack_visible_events(r, g, ev, seat, cursor, &p.pk);
    same_object(packed_end(&p), maat_msg_get(msg, "events"), "the events",
                where, seat);
    packed_free(&p);
    CHECK(with_legal >= 0 || !maat_msg_get(msg, "legal"), "%s: a version-3 "
          "request to seat %d has a legal list", where, seat);
    if (with_legal <= 0)
        return;
    packed_begin(&p);
    pack_legal(r, g, &p.pk);
    same_object(packed_end(&p), maat_msg_get(msg, "legal"),
                "the legal list", where, seat);
    packed_free(&p);
}

/* ---- (b) nothing hidden: every sample of the seat's view looks the same ---- */

/* What a module gives a seat: the honest one, and (for the self-test) one
 * that leaks its omniscient view too. */
typedef int (*shown_fn)(const maat_rules *r, const maat_game *g, int seat,
                        msgpack_packer *pk);

static int honest(const maat_rules *r, const maat_game *g, int seat,
                  msgpack_packer *pk)
{
    int rc = r->encode_observation(g, seat, pk);
    pack_legal(r, g, pk);
    return rc;
}

static int leaky(const maat_rules *r, const maat_game *g, int seat,
                 msgpack_packer *pk)
{
    honest(r, g, seat, pk);
    return r->encode_observation(g, MAAT_OMNISCIENT, pk);
}

static int omniscient(const maat_rules *r, const maat_game *g, int seat,
                      msgpack_packer *pk)
{
    (void)seat;
    return r->encode_observation(g, MAAT_OMNISCIENT, pk);
}

static void bytes_of(shown_fn fn, const maat_rules *r, const maat_game *g,
                     int seat, msgpack_sbuffer *sb)
{
    msgpack_packer pk;
    msgpack_sbuffer_init(sb);
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    fn(r, g, seat, &pk);
}

/* 0 when every sample shows the seat what the true state shows it, else
 * the number of samples that differ (or fail); *varied += 1 when the
 * samples dealt the hidden information differently. */
static int invariant(const maat_rules *r, const maat_game *truth,
                     const maat_view *v, int seat, maat_rng *rng,
                     shown_fn fn, int *varied, finding *f)
{
    msgpack_sbuffer want, got, first, omni;
    bytes_of(fn, r, truth, seat, &want);
    msgpack_sbuffer_init(&first);
    int bad = 0, differ = 0;
    for (int k = 0; k < SAMPLES; k++) {
        maat_error err = {0, ""};
        maat_game *s = r->determinize(v, rng, &err);
        if (!s) {
            found(f, "determinize refused the seat's view: %s", err.msg);
            bad++;
            continue;
        }
        bytes_of(fn, r, s, seat, &got);
        if (got.size != want.size || memcmp(got.data, want.data, want.size)) {
            found(f, "a state consistent with seat %d's view shows it other "
                  "bytes than the true state (%zu vs %zu): the observation "
                  "or legal list depends on hidden information", seat,
                  got.size, want.size);
            bad++;
        }
        msgpack_sbuffer_destroy(&got);
        bytes_of(omniscient, r, s, seat, &omni);
        if (k == 0) {
            msgpack_sbuffer_write(&first, omni.data, omni.size);
        } else if (omni.size != first.size ||
                   memcmp(omni.data, first.data, first.size)) {
            differ = 1;
        }
        msgpack_sbuffer_destroy(&omni);
        r->destroy(&s);
    }
    *varied += differ;
    msgpack_sbuffer_destroy(&first);
    msgpack_sbuffer_destroy(&want);
    return bad;
}

/* ---- one played match ------------------------------------------------------ */

typedef struct stats {
    int matches, messages, requests, ends, varied;
    int id_from_seed; /* matches whose welcome match id is fnv1a(seed..) */
    char id_example[200];
} stats;

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

/* The match id maat-referee would derive from the seed alone. */
static void seed_match_id(const char *game, uint64_t seed, int seats,
                          char *out, size_t len)
{
    char seed_s[32], name[16];
    snprintf(seed_s, sizeof seed_s, "%" PRIu64, seed);
    uint64_t h = fnv1a(fnv1a(0xcbf29ce484222325ULL, game), seed_s);
    for (int i = 0; i < seats; i++) {
        snprintf(name, sizeof name, "spy%d", i);
        h = fnv1a(fnv1a(h, "|"), name);
    }
    snprintf(out, len, "%016" PRIx64, h);
}

/* A message of a spy, unpacked into u (destroyed by the caller); NULL and
 * a failed check when it is missing or not of `type`. */
static const msgpack_object *spy_next(spyfile *spy, int *cur,
                                      msgpack_unpacked *u, const char *type,
                                      const char *where)
{
    msgpack_unpacked_init(u);
    if (*cur >= spy->n) {
        CHECK(0, "%s: no '%s' message", where, type);
        return NULL;
    }
    maat_error err = {0, ""};
    spymsg *m = &spy->msg[(*cur)++];
    msgpack_unpacked_destroy(u);
    if (maat_msg_unpack(m->p, m->len, u, &err) != MAAT_OK) {
        CHECK(0, "%s: undecodable: %s", where, err.msg);
        return NULL;
    }
    if (!maat_msg_str_eq(maat_msg_get(&u->data, "type"), type)) {
        CHECK(0, "%s: not a '%s' message", where, type);
        return NULL;
    }
    return &u->data;
}

static void leaks(const secrets *sec, const msgpack_object *m,
                  const char *where)
{
    finding f = {0, ""};
    walk(sec, &f, m, "msg");
    CHECK(f.n == 0, "%s: %d leak(s), first: %s", where, f.n, f.first);
}

static void check_end(const maat_rules *r, const maat_game *g, int seats,
                      const msgpack_object *m, json_t *result,
                      const char *where)
{
    maat_score sc[MAAT_MAX_SEATS];
    r->scores(g, sc);
    const msgpack_object *obs = maat_msg_get(m, "observation");
    const msgpack_object *scores = maat_msg_get(obs, "scores");
    const msgpack_object *ranks = maat_msg_get(m, "ranks");
    const msgpack_object *over = maat_msg_get(obs, "over");
    CHECK(over && over->type == MSGPACK_OBJECT_BOOLEAN && over->via.boolean,
          "%s: the observation is not over", where);
    int ok = scores && scores->type == MSGPACK_OBJECT_ARRAY &&
             (int)scores->via.array.size == seats && ranks &&
             ranks->type == MSGPACK_OBJECT_ARRAY &&
             (int)ranks->via.array.size == seats;
    CHECK(ok, "%s: no scores and ranks for %d seats", where, seats);
    for (int j = 0; ok && j < seats; j++) {
        const msgpack_object *sj = &scores->via.array.ptr[j];
        int64_t t = -1, rk = -1, pv = -1;
        CHECK(obj_int(maat_msg_get(sj, "total"), &t) && t == sc[j].total,
              "%s: seat %d's total %" PRId64 ", the rules say %d", where, j,
              t, sc[j].total);
        for (int p = 0; p < r->n_score_parts; p++)
            CHECK(obj_int(maat_msg_get(maat_msg_get(sj, "parts"),
                                       r->score_parts[p]), &pv) &&
                  pv == sc[j].part[p], "%s: seat %d's %s is %" PRId64 ", the "
                  "rules say %d", where, j, r->score_parts[p], pv,
                  sc[j].part[p]);
        json_int_t want = json_integer_value(json_object_get(
            json_array_get(result, (size_t)j), "rank"));
        CHECK(obj_int(&ranks->via.array.ptr[j], &rk) && rk == want,
              "%s: seat %d's rank %" PRId64 ", the record says %lld", where,
              j, rk, (long long)want);
    }
}

/* ver: the protocol version each seat's spy speaks. */
static void check_match(const maat_rules *r, const char *dir, int seats,
                        uint64_t seed, const int *ver, stats *sum)
{
    int has_obs[MAAT_MAX_SEATS] = {0};
    char path[1024], where[200];
    snprintf(path, sizeof path, "%s/rec.json", dir);
    json_error_t je;
    json_t *rec = json_load_file(path, 0, &je);
    CHECK(rec != NULL, "%s: %s", path, je.text);
    if (!rec)
        return;
    json_t *decisions = json_object_get(rec, "decisions");
    json_t *result = json_object_get(rec, "result");
    json_t *faults = json_object_get(rec, "faults");
    CHECK(json_is_array(decisions) && json_is_array(result) &&
          (int)json_array_size(result) == seats,
          "%s: no decisions or result for %d seats", path, seats);
    CHECK(json_is_array(faults) && json_array_size(faults) == 0,
          "%s: the spies had faults; the messages below assume none", path);

    secrets sec;
    make_secrets(&sec, seed);
    spyfile spy[MAAT_MAX_SEATS];
    int cur[MAAT_MAX_SEATS] = {0}, ok = 1;
    size_t evcur[MAAT_MAX_SEATS] = {0};
    maat_setup *seen_setup[MAAT_MAX_SEATS] = {0};
    maat_view *view[MAAT_MAX_SEATS] = {0};
    for (int s = 0; s < seats; s++)
        ok &= spy_load(&spy[s], dir, s) == 0;
    CHECK(ok, "%s: a spy file is missing or truncated", dir);

    maat_error err = {0, ""};
    maat_setup *setup = r->setup_new(NULL, &err);
    maat_events ev = {0};
    maat_game *g = setup ? r->game_new(setup, SEED(seed), seats, &ev, &err)
                         : NULL;
    CHECK(g != NULL, "game_new: %s", err.msg);
    maat_rng rng;
    maat_rng_seed(&rng, SEED(seed ^ 0xfeed));
    if (!g || !ok || !json_is_array(decisions))
        goto out;

    /* welcome and start: the seat's setup and view, as the bot loop */
    char seed_id[32];
    seed_match_id(r->name, seed, seats, seed_id, sizeof seed_id);
    for (int s = 0; s < seats; s++) {
        msgpack_unpacked u;
        snprintf(where, sizeof where, "%s %d seats seed %" PRIu64 " spy%d "
                 "welcome", r->name, seats, seed, s);
        const msgpack_object *m = spy_next(&spy[s], &cur[s], &u, "welcome",
                                           where);
        if (m) {
            leaks(&sec, m, where);
            int64_t version = 0;
            CHECK(obj_int(maat_msg_get(m, "version"), &version) &&
                  version == ver[s], "%s: welcome "
                  "version %" PRId64, where, version);
            seen_setup[s] = r->setup_decode(maat_msg_get(m, "setup"), &err);
            CHECK(seen_setup[s] != NULL, "%s: setup_decode: %s", where,
                  err.msg);
            char *id = dup_str(maat_msg_get(m, "match"));
            if (s == 0 && id && !strcmp(id, seed_id) &&
                sum->id_from_seed++ == 0)
                snprintf(sum->id_example, sizeof sum->id_example, "%s, %d "
                         "seats, seed %" PRIu64 ": \"%s\"", r->name, seats,
                         seed, id);
            free(id);
        }
        msgpack_unpacked_destroy(&u);
        snprintf(where, sizeof where, "%s %d seats seed %" PRIu64 " spy%d "
                 "start", r->name, seats, seed, s);
        m = spy_next(&spy[s], &cur[s], &u, "start", where);
        int64_t x = -1;
        if (m) {
            leaks(&sec, m, where);
            CHECK(obj_int(maat_msg_get(m, "seat"), &x) && x == s,
                  "%s: start says seat %" PRId64, where, x);
        }
        msgpack_unpacked_destroy(&u);
        if (seen_setup[s])
            view[s] = r->view_new(seen_setup[s], s, seats);
        sum->messages += 2;
    }

    size_t i;
    json_t *d;
    json_array_foreach(decisions, i, d) {
        if (r->is_over(g)) {
            CHECK(0, "%s: decision %zu after the end", dir, i);
            break;
        }
        maat_decision want = r->decision(g);
        int s = want.seat;
        snprintf(where, sizeof where, "%s %d seats seed %" PRIu64 " decision "
                 "%zu (seat %d, %s, spy message %d)", r->name, seats, seed,
                 i, s, r->decision_names[want.kind], cur[s]);
        CHECK(json_integer_value(json_object_get(d, "seat")) == s,
              "%s: the record names another seat", where);
        msgpack_unpacked u;
        const msgpack_object *m = spy_next(&spy[s], &cur[s], &u, "request",
                                           where);
        if (!m) {
            msgpack_unpacked_destroy(&u);
            break;
        }
        CHECK(maat_msg_str_eq(maat_msg_get(m, "decision"),
                              r->decision_names[want.kind]),
              "%s: the request names another decision", where);
        leaks(&sec, m, where);
        /* version 1: every request has the observation; versions 2 and
         * 3: the first of the game, then none */
        int want_obs = ver[s] == 1 || !has_obs[s];
        CHECK(want_obs == (maat_msg_get(m, "observation") != NULL),
              "%s: a version-%d request %s the observation", where, ver[s],
              want_obs ? "without" : "with");
        has_obs[s] = 1;
        check_consistent(r, g, &ev, s, &evcur[s], m, where,
                         ver[s] >= 3 ? -1 : 1);
        finding f = {0, ""};
        check_events(r, maat_msg_get(m, "events"), s, &f);
        CHECK(f.n == 0, "%s: %d event(s) against their declaration, first: "
              "%s", where, f.n, f.first);
        if (view[s]) {
            CHECK(r->view_update(view[s], maat_msg_get(m, "events"),
                                 maat_msg_get(m, "observation"), &err) ==
                  MAAT_OK, "%s: view_update: %s", where, err.msg);
            finding h = {0, ""};
            CHECK(invariant(r, g, view[s], s, &rng, honest, &sum->varied,
                            &h) == 0, "%s: %s", where, h.first);
            /* version 3: the list the seat plays from is its view's */
            static maat_action want_l[4096], view_l[4096];
            int nw = r->legal_actions(g, want_l, 4096);
            int nv = r->view_legal_actions(view[s], view_l, 4096);
            CHECK(nw == nv && nw <= 4096 &&
                  !memcmp(want_l, view_l, sizeof *want_l * (size_t)nw),
                  "%s: the view's legal list is not the rules' (%d, %d "
                  "actions)", where, nv, nw);
        }
        msgpack_unpacked_destroy(&u);
        sum->messages++;
        sum->requests++;
        maat_action a;
        int rc = json_action(r, g, json_object_get(d, "action"), &a, &err);
        if (!rc)
            rc = r->apply(g, &a, &ev, &err);
        CHECK(rc == MAAT_OK, "%s: the recorded action: %s", where, err.msg);
        if (rc)
            break;
    }
    CHECK(r->is_over(g), "%s: the record ends before the game does", dir);
    for (int s = 0; r->is_over(g) && s < seats; s++) {
        snprintf(where, sizeof where, "%s %d seats seed %" PRIu64 " spy%d "
                 "end", r->name, seats, seed, s);
        msgpack_unpacked u;
        const msgpack_object *m = spy_next(&spy[s], &cur[s], &u, "end",
                                           where);
        if (m) {
            leaks(&sec, m, where);
            check_consistent(r, g, &ev, s, &evcur[s], m, where, 0);
            finding f = {0, ""};
            check_events(r, maat_msg_get(m, "events"), s, &f);
            CHECK(f.n == 0, "%s: %s", where, f.first);
            check_end(r, g, seats, m, result, where);
            sum->messages++;
            sum->ends++;
        }
        msgpack_unpacked_destroy(&u);
        m = spy_next(&spy[s], &cur[s], &u, "bye", where);
        msgpack_unpacked_destroy(&u);
        CHECK(cur[s] == spy[s].n, "%s: %d message(s) after bye", where,
              spy[s].n - cur[s]);
    }
    sum->matches++;
out:
    for (int s = 0; s < seats; s++) {
        if (view[s])
            r->view_destroy(&view[s]);
        if (seen_setup[s])
            r->setup_destroy(&seen_setup[s]);
        spy_free(&spy[s]);
    }
    if (g)
        r->destroy(&g);
    if (setup)
        r->setup_destroy(&setup);
    maat_events_free(&ev);
    json_decref(rec);
}

/* ---- the checker can fail ---------------------------------------------------- */

/* A message to seat 0 as the referee would send it at g (fn: what the
 * module shows a seat), unpacked into p. */
static const msgpack_object *request(const maat_rules *r, const maat_game *g,
                                     int seat, int seq, packed *p)
{
    packed_begin(p);
    msgpack_pack_map(&p->pk, 3);
    maat_pack_kv_str(&p->pk, "type", "request");
    maat_pack_kv_int(&p->pk, "seq", seq);
    maat_pack_str(&p->pk, "observation");
    r->encode_observation(g, seat, &p->pk);
    return packed_end(p);
}

/* One game in process, seat 0's view fed as the bot loop feeds it: the
 * honest module passes (b), a leaky one is caught; another seat's
 * observation breaks (a); a private event of another seat breaks (c); the
 * seed and a key named order break (d). */
static void test_checker_fails(const maat_rules *r)
{
    const uint64_t seed = SEED_BASE + 99;
    int seats = r->min_seats;
    maat_error err = {0, ""};
    maat_setup *setup = r->setup_new(NULL, &err);
    maat_events ev = {0};
    maat_game *g = setup ? r->game_new(setup, SEED(seed), seats, &ev, &err)
                         : NULL;
    CHECK(g != NULL, "%s: game_new: %s", r->name, err.msg);
    if (!g)
        return;
    maat_view *v = r->view_new(setup, 0, seats);
    maat_rng rng, play;
    maat_rng_seed(&rng, SEED(7));
    maat_rng_seed(&play, SEED(8));
    size_t cursor = 0;
    int requests = 0, honest_bad = 0, leaky_caught = 0, varied = 0;
    int private_seen = 0, private_caught = 0, other_caught = 0;
    secrets sec;
    make_secrets(&sec, seed);
    while (!r->is_over(g) && requests < 12) {
        /* a private event of seat j != 0, sent to seat 0 */
        for (size_t k = 0; k < ev.count; k++) {
            uint32_t to = ev.items[k].visible_to;
            if (to == MAAT_ALL_SEATS || (to & 1u) || (to & (to - 1)))
                continue; /* only those for one other seat alone */
            private_seen++;
            packed p;
            packed_begin(&p);
            msgpack_pack_array(&p.pk, 1);
            r->encode_event(g, &ev.items[k], &p.pk);
            finding f = {0, ""};
            check_events(r, packed_end(&p), 0, &f);
            private_caught += f.n > 0;
            packed_free(&p);
        }
        maat_decision d = r->decision(g);
        if (d.seat == 0) {
            packed p;
            packed_begin(&p);
            pack_visible_events(r, g, &ev, 0, &cursor, &p.pk);
            r->encode_observation(g, 0, &p.pk);
            msgpack_unpacked u;
            msgpack_unpacked_init(&u);
            size_t off = 0;
            msgpack_unpack_next(&u, p.sb.data, p.sb.size, &off);
            msgpack_object events = u.data;
            msgpack_unpacked obs;
            msgpack_unpacked_init(&obs);
            msgpack_unpack_next(&obs, p.sb.data, p.sb.size, &off);
            CHECK(r->view_update(v, &events, &obs.data, &err) == MAAT_OK,
                  "%s: view_update: %s", r->name, err.msg);
            msgpack_unpacked_destroy(&obs);
            msgpack_unpacked_destroy(&u);
            packed_free(&p);
            finding f = {0, ""};
            honest_bad += invariant(r, g, v, 0, &rng, honest, &varied, &f);
            finding l = {0, ""};
            leaky_caught += invariant(r, g, v, 0, &rng, leaky, &varied,
                                      &l) > 0;
            /* seat 1's observation sent to seat 0 */
            packed a, b;
            const msgpack_object *mine = request(r, g, 0, 7, &a);
            const msgpack_object *other = request(r, g, 1, 7, &b);
            other_caught += mine && other &&
                            !msgpack_object_equal(
                                *maat_msg_get(mine, "observation"),
                                *maat_msg_get(other, "observation"));
            /* the genuine request has no finding; the seed and a key
             * named order do */
            finding w = {0, ""};
            walk(&sec, &w, mine, "msg");
            CHECK(w.n == 0, "%s: the checker flags a genuine message: %s",
                  r->name, w.first);
            packed_free(&a);
            packed_free(&b);
            requests++;
        }
        maat_events_clear(&ev);
        cursor = 0;
        maat_action act;
        maat_policy_random(r, g, &play, &act);
        r->apply(g, &act, &ev, &err);
    }
    CHECK(requests > 0, "%s: seat 0 never had to decide", r->name);
    CHECK(honest_bad == 0, "%s: the honest module fails the sample check "
          "(%d samples)", r->name, honest_bad);
    CHECK(leaky_caught > 0, "%s: a module showing its omniscient view is "
          "not caught in %d requests", r->name, requests);
    CHECK(other_caught == requests, "%s: another seat's observation equals "
          "seat 0's in %d of %d requests", r->name, requests - other_caught,
          requests);
    CHECK(private_caught == private_seen, "%s: %d of %d private events of "
          "another seat not caught", r->name, private_seen - private_caught,
          private_seen);

    /* (d): the seed as a value, a key named order */
    packed p;
    packed_begin(&p);
    msgpack_pack_map(&p.pk, 2);
    maat_pack_kv_int(&p.pk, "seq", (int64_t)seed);
    maat_pack_str(&p.pk, "order");
    msgpack_pack_array(&p.pk, 0);
    finding w = {0, ""};
    walk(&sec, &w, packed_end(&p), "msg");
    CHECK(w.n == 3, "%s: the checker finds %d of the seed (as the seed and "
          "as a 64-bit integer) and 'order'", r->name, w.n);
    packed_free(&p);
    if (getenv("MAAT_TEST_VERBOSE"))
        printf("%s: checker: %d requests, leaky caught in %d, %d private "
               "events caught\n", r->name, requests, leaky_caught,
               private_caught);
    r->view_destroy(&v);
    r->destroy(&g);
    r->setup_destroy(&setup);
    maat_events_free(&ev);
}

/* ---- main ----------------------------------------------------------------- */

int main(void)
{
    int rc = matchlib_start("hidden", &referee_path, &spy_path, workdir,
                            sizeof workdir);
    if (rc)
        return rc;
    int n_games;
    const maat_rules *const *games = maat_rules_all(&n_games);
    for (int gi = 0; gi < n_games; gi++) {
        const maat_rules *r = games[gi];
        test_checker_fails(r);
        stats sum = {0};
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (int seats = r->min_seats; seats <= r->max_seats; seats++)
            for (int k = 1; k <= check_scaled(MATCHES); k++) {
                uint64_t seed = SEED_BASE + (uint64_t)gi * 100003ULL +
                                (uint64_t)seats * 1009ULL + (uint64_t)k;
                char dir[700];
                snprintf(dir, sizeof dir, "%s/%s-%d-%d", workdir, r->name,
                         seats, k);
                mkdir(dir, 0755);
                int failures = check_failures;
                /* deterministic spies: a failure replays exactly; in
                 * every second match the odd seats speak protocol version
                 * 2, in every third version 3 (the even ones 2) */
                int ver[MAAT_MAX_SEATS];
                for (int s = 0; s < MAAT_MAX_SEATS; s++)
                    ver[s] = k % 3 == 0 ? 2 + s % 2
                                        : k % 2 == 0 && s % 2 ? 2 : 1;
                int rc = run_spy_match_v(referee_path, spy_path, r->name,
                                         dir, seats, seed, 100L * seats + k,
                                         ver);
                CHECK(rc == 0, "maat-referee failed: %s, %d seats, seed %"
                      PRIu64, r->name, seats, seed);
                if (rc == 0)
                    check_match(r, dir, seats, seed, ver, &sum);
                if (check_failures == failures) /* keep what failed */
                    remove_tree(dir);
            }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        printf("%s: %d matches, %d messages (%d requests, %d ends); in %d "
               "requests the samples dealt the hidden information "
               "differently; %.1f s\n", r->name, sum.matches, sum.messages,
               sum.requests, sum.ends, sum.varied,
               (double)(t1.tv_sec - t0.tv_sec) +
                   (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
        fflush(stdout);
        CHECK(sum.varied > 0, "%s: the samples never differed: nothing "
              "hidden was tested", r->name);
        CHECK(sum.id_from_seed == 0, "LEAK: in %d of %d %s matches the "
              "welcome's match id is fnv1a(game + decimal seed + '|' + each "
              "bot name), an unkeyed function of the seed (e.g. %s)",
              sum.id_from_seed, sum.matches, r->name, sum.id_example);
    }
    if (check_failures)
        printf("work files kept in %s\n", workdir);
    else
        remove_tree(workdir);
    return check_done("hidden");
}
