/* test_pyramids_wire.c -- Pyramids actions, observations and the setup on
 * the wire (msgpack).
 *
 * Proves: every legal action of many random positions, and every
 * structurally valid action, survives encode_action -> bytes ->
 * maat_msg_unpack -> decode_action unchanged; decode_action refuses
 * malformed actions with MAAT_EDECODE and a message naming the field (not
 * a map, missing/unknown kind, missing, non-integer or out-of-range
 * fields, unknown or repeated fields); observations, events and the setup
 * encode as exactly one well-formed msgpack object, and the setup lists
 * the 105 cards with the stones and glyphs of the deck.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "maat/internal/msg.h"
#include "maat/policy.h"
#include "maat/internal/pyramids.h"

static const maat_rules *R = &maat_pyramids_rules;
static maat_setup *setup;
static maat_game *game; /* decode_action's game argument */
static msgpack_sbuffer sb;
static msgpack_packer pk;

static void fresh(void)
{
    msgpack_sbuffer_clear(&sb);
}

static int same_action(const maat_action *a, const maat_action *b)
{
    if (a->kind != b->kind)
        return 0;
    for (int k = 0; k < MAAT_ACTION_ARGS; k++)
        if (a->arg[k] != b->arg[k])
            return 0;
    return 1;
}

/* Decode what is in sb as an action: rc of decode_action, or -1 when the
 * bytes themselves are not one well-formed msgpack object. */
static int decode_sb(maat_action *a, maat_error *err)
{
    msgpack_unpacked up;
    int rc = maat_msg_unpack(sb.data, sb.size, &up, err);
    if (rc == MAAT_OK)
        rc = R->decode_action(game, &up.data, a, err);
    else
        rc = -1;
    msgpack_unpacked_destroy(&up);
    return rc;
}

/* ---- round trips ------------------------------------------------------ */

static int roundtrip(const maat_action *a)
{
    fresh();
    if (R->encode_action(game, a, &pk) != MAAT_OK)
        return 0;
    maat_action b;
    maat_error err = {0, ""};
    int rc = decode_sb(&b, &err);
    if (rc != MAAT_OK) {
        CHECK(0, "action %d(%d,%d,%d,%d,%d) does not decode: %s", a->kind,
              a->arg[0], a->arg[1], a->arg[2], a->arg[3], a->arg[4],
              err.msg);
        return 0;
    }
    if (!same_action(a, &b))
        return 0;
    /* bots decode without a state: g may be NULL */
    msgpack_unpacked up;
    maat_action c;
    rc = maat_msg_unpack(sb.data, sb.size, &up, &err);
    if (rc == MAAT_OK)
        rc = R->decode_action(NULL, &up.data, &c, &err);
    msgpack_unpacked_destroy(&up);
    return rc == MAAT_OK && same_action(a, &c);
}

/* Every legal action at every decision of random games. */
static void legal_roundtrips(void)
{
    static maat_action list[512];
    long tried = 0, bad = 0;
    for (int seats = 2; seats <= 5; seats++)
        for (uint64_t seed = 0; seed < 25; seed++) {
            maat_error err = {0, ""};
            maat_game *g = R->game_new(setup, SEED(seed), seats, NULL, &err);
            maat_rng rng;
            maat_rng_seed(&rng, SEED(seed + 1000));
            while (g && !R->is_over(g)) {
                int n = R->legal_actions(g, list, 512);
                for (int k = 0; k < n && k < 512; k++) {
                    tried++;
                    if (!roundtrip(&list[k]) && bad++ < 10)
                        CHECK(0, "legal action %d(%d,%d,%d,%d,%d) changed "
                              "on the wire", list[k].kind, list[k].arg[0],
                              list[k].arg[1], list[k].arg[2], list[k].arg[3],
                              list[k].arg[4]);
                }
                maat_action a;
                if (maat_policy_random(R, g, &rng, &a) ||
                    R->apply(g, &a, NULL, &err))
                    break;
            }
            CHECK(g && R->is_over(g), "random game %d/%llu did not end",
                  seats, (unsigned long long)seed);
            R->destroy(&g);
        }
    CHECK(bad == 0, "%ld of %ld legal actions changed on the wire", bad,
          tried);
    CHECK(tried > 10000, "only %ld actions tried", tried);
}

/* Structurally valid actions that need not be legal anywhere: every
 * tile, index, card, and a random sample of builds. */
static void structural_roundtrips(void)
{
    maat_action a;
    for (int t = 1; t <= 5; t++) {
        a = (maat_action){MAAT_PYR_GOD, {t, -1, -1, -1, -1, -1, -1}};
        CHECK(roundtrip(&a), "god %d", t);
    }
    for (int i = 0; i < MAAT_PYR_MAX_SEATS; i++) {
        a = (maat_action){MAAT_PYR_PAIR, {i, -1, -1, -1, -1, -1, -1}};
        CHECK(roundtrip(&a), "pair %d", i);
    }
    for (int c = 0; c < MAAT_PYR_CARDS; c++) {
        a = (maat_action){MAAT_PYR_KEEP, {c, -1, -1, -1, -1, -1, -1}};
        CHECK(roundtrip(&a), "keep %d", c);
    }
    maat_rng rng;
    maat_rng_seed(&rng, SEED(4));
    int bad = 0;
    for (int k = 0; k < 5000; k++) {
        int tomb = (int)maat_rng_below(&rng, 106) - 1;
        int ob = (int)maat_rng_below(&rng, 106) - 1;
        a = (maat_action){MAAT_PYR_BUILD,
                          {(int)maat_rng_below(&rng, 105),
                           (int)maat_rng_below(&rng, 4),
                           (int)maat_rng_below(&rng, 7) - 3, tomb, ob, -1,
                           -1}};
        bad += !roundtrip(&a);
    }
    CHECK(bad == 0, "%d random builds changed on the wire", bad);
    /* an action of no known kind is not encoded */
    fresh();
    a = (maat_action){42, {0, 0, 0, 0, 0, 0, 0}};
    CHECK(R->encode_action(game, &a, &pk) != MAAT_OK,
          "encode_action accepted kind 42");
}

/* The optional tomb/obelisk fields: absent or nil both mean none. */
static void build_optionals(void)
{
    maat_action a;
    maat_error err = {0, ""};
    fresh();
    msgpack_pack_map(&pk, 4);
    maat_pack_kv_str(&pk, "kind", "build");
    maat_pack_kv_int(&pk, "card", 7);
    maat_pack_kv_int(&pk, "stage", 1);
    maat_pack_kv_int(&pk, "pos", -2);
    CHECK(decode_sb(&a, &err) == MAAT_OK, "build without tomb/obelisk: %s",
          err.msg);
    CHECK(a.kind == MAAT_PYR_BUILD && a.arg[0] == 7 && a.arg[1] == 1 &&
              a.arg[2] == -2 && a.arg[3] == -1 && a.arg[4] == -1,
          "build without tomb/obelisk decoded as %d(%d,%d,%d,%d,%d)", a.kind,
          a.arg[0], a.arg[1], a.arg[2], a.arg[3], a.arg[4]);
    fresh();
    msgpack_pack_map(&pk, 6);
    maat_pack_kv_str(&pk, "kind", "build");
    maat_pack_kv_int(&pk, "card", 0);
    maat_pack_kv_int(&pk, "stage", 0);
    maat_pack_kv_int(&pk, "pos", 0);
    maat_pack_str(&pk, "tomb");
    msgpack_pack_nil(&pk);
    maat_pack_kv_int(&pk, "obelisk", 104);
    CHECK(decode_sb(&a, &err) == MAAT_OK, "build with nil tomb: %s",
          err.msg);
    CHECK(a.arg[3] == -1 && a.arg[4] == 104, "tomb %d obelisk %d", a.arg[3],
          a.arg[4]);
}

/* ---- refusals --------------------------------------------------------- */

#define REFUSED(want) refused_((want), __LINE__)
static void refused_(const char *want, int line)
{
    maat_action a;
    maat_error err = {0, ""};
    int rc = decode_sb(&a, &err);
    CHECK(rc == MAAT_EDECODE && err.code == MAAT_EDECODE,
          "line %d: decode gave %d (%s), want MAAT_EDECODE", line, rc,
          err.msg);
    CHECK(strstr(err.msg, want) != NULL,
          "line %d: message '%s' does not mention %s", line, err.msg, want);
}

/* {"kind": kind, key: <int v>} */
static void one_int(const char *kind, const char *key, int64_t v)
{
    fresh();
    msgpack_pack_map(&pk, 2);
    maat_pack_kv_str(&pk, "kind", kind);
    maat_pack_kv_int(&pk, key, v);
}

/* a build with every field, one of them (`bad`) packed by `pack_bad` */
static void build_with(const char *bad, void (*pack_bad)(void))
{
    static const char *const keys[] = {"card", "stage", "pos", "tomb",
                                       "obelisk"};
    static const int vals[] = {10, 0, 0, 11, 12};
    fresh();
    msgpack_pack_map(&pk, 6);
    maat_pack_kv_str(&pk, "kind", "build");
    for (int k = 0; k < 5; k++) {
        maat_pack_str(&pk, keys[k]);
        if (strcmp(keys[k], bad) == 0)
            pack_bad();
        else
            msgpack_pack_int(&pk, vals[k]);
    }
}

static void pack_str_x(void) { maat_pack_str(&pk, "1"); }
static void pack_float(void) { msgpack_pack_double(&pk, 1.0); }
static void pack_array(void) { msgpack_pack_array(&pk, 0); }
static void pack_true(void) { msgpack_pack_true(&pk); }
static void pack_huge(void) { msgpack_pack_uint64(&pk, UINT64_MAX); }
static void pack_minus_big(void) { msgpack_pack_int64(&pk, INT64_MIN); }
static void pack_105(void) { msgpack_pack_int(&pk, 105); }
static void pack_m1(void) { msgpack_pack_int(&pk, -1); }
static void pack_4(void) { msgpack_pack_int(&pk, 4); }
static void pack_m4(void) { msgpack_pack_int(&pk, -4); }

static void not_a_map(void)
{
    fresh();
    msgpack_pack_array(&pk, 2);
    maat_pack_str(&pk, "god");
    msgpack_pack_int(&pk, 1);
    REFUSED("map");
    fresh();
    msgpack_pack_int(&pk, 3);
    REFUSED("map");
    fresh();
    maat_pack_str(&pk, "god");
    REFUSED("map");
    fresh();
    msgpack_pack_nil(&pk);
    REFUSED("map");
}

static void bad_kind(void)
{
    fresh();
    msgpack_pack_map(&pk, 1);
    maat_pack_kv_int(&pk, "tile", 1);
    REFUSED("'kind'"); /* missing */
    fresh();
    msgpack_pack_map(&pk, 0);
    REFUSED("'kind'");
    one_int("fly", "tile", 1);
    REFUSED("'kind'"); /* unknown */
    one_int("GOD", "tile", 1);
    REFUSED("'kind'"); /* case matters */
    fresh();
    msgpack_pack_map(&pk, 2);
    maat_pack_kv_int(&pk, "kind", 0);
    maat_pack_kv_int(&pk, "tile", 1);
    REFUSED("'kind'"); /* not a string */
}

static void bad_ints(void)
{
    /* tile 1..5 */
    one_int("god", "tile", 0);
    REFUSED("'tile'");
    one_int("god", "tile", 6);
    REFUSED("'tile'");
    one_int("god", "tile", -1);
    REFUSED("'tile'");
    one_int("god", "card", 1); /* the wrong field: tile missing */
    REFUSED("'tile'");
    fresh();
    msgpack_pack_map(&pk, 2);
    maat_pack_kv_str(&pk, "kind", "god");
    maat_pack_kv_str(&pk, "tile", "1");
    REFUSED("'tile'"); /* a string where an int belongs */
    fresh();
    msgpack_pack_map(&pk, 1);
    maat_pack_kv_str(&pk, "kind", "god");
    REFUSED("'tile'");
    /* index 0..4 */
    one_int("pair", "index", 5);
    REFUSED("'index'");
    one_int("pair", "index", -1);
    REFUSED("'index'");
    fresh();
    msgpack_pack_map(&pk, 2);
    maat_pack_kv_str(&pk, "kind", "pair");
    maat_pack_str(&pk, "index");
    msgpack_pack_double(&pk, 0.0);
    REFUSED("'index'");
    fresh();
    msgpack_pack_map(&pk, 1);
    maat_pack_kv_str(&pk, "kind", "pair");
    REFUSED("'index'");
    /* card 0..104 */
    one_int("keep", "card", 105);
    REFUSED("'card'");
    one_int("keep", "card", -1);
    REFUSED("'card'");
    fresh();
    msgpack_pack_map(&pk, 2);
    maat_pack_kv_str(&pk, "kind", "keep");
    maat_pack_str(&pk, "card");
    msgpack_pack_nil(&pk);
    REFUSED("'card'");
    fresh();
    msgpack_pack_map(&pk, 1);
    maat_pack_kv_str(&pk, "kind", "keep");
    REFUSED("'card'");
    /* build fields */
    static const struct {
        const char *field;
        void (*pack)(void);
    } b[] = {
        {"card", pack_105},   {"card", pack_m1},      {"card", pack_str_x},
        {"card", pack_float}, {"card", pack_huge},    {"stage", pack_4},
        {"stage", pack_m1},   {"stage", pack_str_x},  {"stage", pack_true},
        {"pos", pack_4},      {"pos", pack_m4},       {"pos", pack_array},
        {"pos", pack_minus_big}, {"tomb", pack_105},  {"tomb", pack_str_x},
        {"obelisk", pack_105}, {"obelisk", pack_float},
        {"obelisk", pack_huge},
    };
    for (size_t k = 0; k < sizeof b / sizeof b[0]; k++) {
        char want[32];
        snprintf(want, sizeof want, "'%s'", b[k].field);
        build_with(b[k].field, b[k].pack);
        REFUSED(want);
    }
    /* a missing build field */
    static const char *const need[] = {"card", "stage", "pos"};
    for (int k = 0; k < 3; k++) {
        fresh();
        msgpack_pack_map(&pk, 3);
        maat_pack_kv_str(&pk, "kind", "build");
        for (int j = 0; j < 3; j++)
            if (j != k)
                maat_pack_kv_int(&pk, need[j], 0);
        char want[32];
        snprintf(want, sizeof want, "'%s'", need[k]);
        REFUSED(want);
    }
}

static void bad_fields(void)
{
    /* an unknown extra field */
    fresh();
    msgpack_pack_map(&pk, 3);
    maat_pack_kv_str(&pk, "kind", "god");
    maat_pack_kv_int(&pk, "tile", 1);
    maat_pack_kv_int(&pk, "extra", 1);
    REFUSED("'extra'");
    /* a field of another kind */
    fresh();
    msgpack_pack_map(&pk, 3);
    maat_pack_kv_str(&pk, "kind", "keep");
    maat_pack_kv_int(&pk, "card", 1);
    maat_pack_kv_int(&pk, "stage", 0);
    REFUSED("'stage'");
    /* a repeated field, even with the same value */
    fresh();
    msgpack_pack_map(&pk, 3);
    maat_pack_kv_str(&pk, "kind", "god");
    maat_pack_kv_int(&pk, "tile", 1);
    maat_pack_kv_int(&pk, "tile", 1);
    REFUSED("'tile'");
    fresh();
    msgpack_pack_map(&pk, 3);
    maat_pack_kv_str(&pk, "kind", "pair");
    maat_pack_kv_int(&pk, "index", 1);
    maat_pack_kv_str(&pk, "kind", "god");
    REFUSED("'kind'");
    fresh();
    msgpack_pack_map(&pk, 7);
    maat_pack_kv_str(&pk, "kind", "build");
    maat_pack_kv_int(&pk, "card", 1);
    maat_pack_kv_int(&pk, "stage", 0);
    maat_pack_kv_int(&pk, "pos", 0);
    maat_pack_kv_int(&pk, "tomb", 2);
    maat_pack_kv_int(&pk, "obelisk", 3);
    maat_pack_kv_int(&pk, "tomb", 4);
    REFUSED("'tomb'");
    /* a key that is not a string */
    fresh();
    msgpack_pack_map(&pk, 3);
    maat_pack_kv_str(&pk, "kind", "god");
    maat_pack_kv_int(&pk, "tile", 1);
    msgpack_pack_int(&pk, 1);
    msgpack_pack_int(&pk, 2);
    REFUSED("key");
}

/* ---- observations, events, setup -------------------------------------- */

static int exact_object(maat_error *err)
{
    msgpack_unpacked up;
    int rc = maat_msg_unpack(sb.data, sb.size, &up, err);
    msgpack_unpacked_destroy(&up);
    return rc == MAAT_OK;
}

static void observations_and_events(void)
{
    for (int seats = 2; seats <= 5; seats++) {
        maat_events ev = {0};
        maat_error err = {0, ""};
        maat_game *g = R->game_new(setup, SEED(77), seats, &ev, &err);
        maat_rng rng;
        maat_rng_seed(&rng, SEED(78));
        int obs_bad = 0, ev_bad = 0;
        for (;;) {
            for (int i = -1; i <= seats; i++) { /* also non-seats */
                fresh();
                err.msg[0] = 0;
                if (R->encode_observation(g, i, &pk) != MAAT_OK ||
                    !exact_object(&err))
                    obs_bad++;
            }
            if (R->is_over(g))
                break;
            maat_action a;
            if (maat_policy_random(R, g, &rng, &a) ||
                R->apply(g, &a, &ev, &err))
                break;
        }
        for (size_t k = 0; k < ev.count; k++) {
            fresh();
            if (R->encode_event(g, &ev.items[k], &pk) != MAAT_OK ||
                !exact_object(&err))
                ev_bad++;
        }
        CHECK(R->is_over(g), "%d seats: the game did not end", seats);
        CHECK(obs_bad == 0, "%d seats: %d observations are not exact msgpack",
              seats, obs_bad);
        CHECK(ev_bad == 0, "%d seats: %d events are not exact msgpack",
              seats, ev_bad);
        CHECK(ev.count > 100, "%d seats: only %zu events", seats, ev.count);
        R->destroy(&g);
        maat_events_free(&ev);
    }
}

static void setup_encoding(void)
{
    const maat_pyr_deck *deck = maat_pyr_state_of(game)->deck;
    fresh();
    CHECK(R->setup_encode(setup, &pk) == MAAT_OK, "setup_encode failed");
    msgpack_unpacked up;
    maat_error err = {0, ""};
    int rc = maat_msg_unpack(sb.data, sb.size, &up, &err);
    CHECK(rc == MAAT_OK, "the setup is not exact msgpack: %s", err.msg);
    if (rc == MAAT_OK) {
        const msgpack_object *d = maat_msg_get(&up.data, "deck");
        CHECK(d && d->type == MSGPACK_OBJECT_ARRAY &&
                  d->via.array.size == MAAT_PYR_CARDS,
              "the setup has no 'deck' of 105 cards");
        int bad = 0;
        for (uint32_t i = 0; d && d->type == MSGPACK_OBJECT_ARRAY &&
                             i < d->via.array.size; i++) {
            const maat_pyr_card *c = &deck->card[i];
            const msgpack_object *e = &d->via.array.ptr[i];
            char stones[4] = {0};
            for (int k = 0; k < c->n_stones; k++)
                stones[k] = "BWRGY"[c->stone[k]];
            int ok = e->type == MSGPACK_OBJECT_ARRAY &&
                     e->via.array.size == 2 &&
                     maat_msg_str_eq(&e->via.array.ptr[0], stones);
            if (ok && c->glyph == MAAT_PYR_GLYPH_NONE)
                ok = e->via.array.ptr[1].type == MSGPACK_OBJECT_NIL;
            else if (ok)
                ok = maat_msg_str_eq(&e->via.array.ptr[1],
                                     maat_pyr_glyph_names[c->glyph]);
            if (!ok && bad++ < 5)
                CHECK(0, "setup card %u does not match the deck (%s)", i,
                      stones);
        }
        CHECK(bad == 0, "%d setup cards differ from the deck", bad);
        CHECK(maat_msg_str_eq(maat_msg_get(&up.data, "deck_name"),
                              "reference"),
              "the setup's deck_name is not 'reference'");
    }
    msgpack_unpacked_destroy(&up);
}

int main(void)
{
    maat_error err = {0, ""};
    setup = R->setup_new(NULL, &err);
    CHECK(setup != NULL, "setup_new: %s", err.msg);
    if (!setup)
        return check_done("pyramids_wire");
    game = R->game_new(setup, SEED(1), 3, NULL, &err);
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);

    legal_roundtrips();
    structural_roundtrips();
    build_optionals();
    not_a_map();
    bad_kind();
    bad_ints();
    bad_fields();
    observations_and_events();
    setup_encoding();

    msgpack_sbuffer_destroy(&sb);
    R->destroy(&game);
    R->setup_destroy(&setup);
    return check_done("pyramids_wire");
}
