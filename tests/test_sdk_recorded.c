/* test_sdk_recorded.c -- the SDK's decoding against messages a real
 * referee sent.
 *
 * tests/data/recorded/ holds the raw bytes of nine messages seat 0 received
 * in a 2-seat match (maat-referee --seed 11 --fixed-seats; capture.py in
 * that directory says how to regenerate them): welcome, start, a request
 * of each decision kind (god, pair, build, keep), a late request (round 8,
 * both tombs filled), end and bye.  Each file must pass maat_msg_unpack;
 * the welcome's setup decodes (setup_decode) into the reference deck; each
 * observation decodes (maat_pyr_observation_decode) into the values written
 * below by hand from the captured messages; each request's legal list
 * decodes (decode_action) into the expected actions; and a view fed the
 * requests in order, then the end, like the bot loop does, determinizes
 * into states whose observation for seat 0 is byte-identical to the one the
 * referee sent, whose legal actions are exactly the request's legal list,
 * and which play on to the end; at the end the sample's scores are the
 * recorded ones.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "maat/bot.h"
#include "maat/internal/msg.h"
#include "maat/policy.h"
#include "maat/internal/pyramids.h"

static const maat_rules *R = &maat_pyramids_rules;

typedef struct msg {
    char *buf;
    size_t len;
    msgpack_unpacked u;
    const msgpack_object *m; /* NULL when the file is missing or broken */
} msg;

static void msg_load(msg *out, const char *name)
{
    memset(out, 0, sizeof *out);
    msgpack_unpacked_init(&out->u);
    const char *root = getenv("MAAT_SOURCE_ROOT");
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/recorded/%s.msgpack",
             root ? root : "..", name);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL, "cannot open %s (set MAAT_SOURCE_ROOT)", path);
    if (!f)
        return;
    out->buf = malloc(65536);
    out->len = fread(out->buf, 1, 65536, f);
    fclose(f);
    maat_error err = {0, ""};
    msgpack_unpacked_destroy(&out->u);
    int rc = maat_msg_unpack(out->buf, out->len, &out->u, &err);
    CHECK(rc == MAAT_OK, "%s: maat_msg_unpack: %s", name, err.msg);
    if (rc == MAAT_OK)
        out->m = &out->u.data;
}

static void msg_free(msg *m)
{
    msgpack_unpacked_destroy(&m->u);
    free(m->buf);
    m->buf = NULL;
    m->m = NULL;
}

static int64_t geti(const msgpack_object *map, const char *key)
{
    int64_t v = -999;
    if (maat_msg_get_int(map, key, INT64_MIN, INT64_MAX, &v, NULL))
        return -999;
    return v;
}

static uint32_t arr_len(const msgpack_object *o)
{
    return o && o->type == MSGPACK_OBJECT_ARRAY ? o->via.array.size : 9999;
}

static int cards_are(const uint8_t *got, int n, const int *want, int wn)
{
    if (n != wn)
        return 0;
    for (int i = 0; i < n; i++)
        if (got[i] != want[i])
            return 0;
    return 1;
}

/* An action from its fields (-1 = nil / unused). */
static maat_action act(int kind, int a0, int a1, int a2, int a3, int a4)
{
    maat_action a = {kind, {a0, a1, a2, a3, a4, -1, -1}};
    return a;
}

static int same_action(const maat_action *a, const maat_action *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

/* The request's legal list, decoded as the bot loop does (no state). */
static int decode_legal(const msgpack_object *m, maat_action *out, int cap)
{
    const msgpack_object *legal = maat_msg_get(m, "legal");
    if (!legal || legal->type != MSGPACK_OBJECT_ARRAY)
        return -1;
    int n = (int)legal->via.array.size;
    for (int i = 0; i < n && i < cap; i++) {
        maat_error err = {0, ""};
        int rc = R->decode_action(NULL, &legal->via.array.ptr[i], &out[i],
                                  &err);
        CHECK(rc == MAAT_OK, "legal[%d] does not decode: %s", i, err.msg);
        if (rc)
            return -1;
    }
    return n;
}

static int decode_obs(const msg *m, maat_pyr_state *st)
{
    maat_error err = {0, ""};
    int rc = maat_pyr_observation_decode(maat_msg_get(m->m, "observation"),
                                         st, &err);
    CHECK(rc == MAAT_OK, "observation does not decode: %s", err.msg);
    return rc;
}

/* ---- the view, fed like the bot loop ------------------------------------ */

/* Feed message m to the view, then draw samples and check them against
 * what the referee sent. */
static void view_step(maat_view *v, const msg *m, int seat, maat_rng *rng,
                      const char *name)
{
    maat_error err = {0, ""};
    const msgpack_object *obs = maat_msg_get(m->m, "observation");
    int rc = R->view_update(v, maat_msg_get(m->m, "events"), obs, &err);
    CHECK(rc == MAAT_OK, "%s: view_update: %s", name, err.msg);
    if (rc)
        return;
    /* the observation as the referee's encoder wrote it */
    msgpack_sbuffer want, got;
    msgpack_sbuffer_init(&want);
    msgpack_sbuffer_init(&got);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &want, msgpack_sbuffer_write);
    msgpack_pack_object(&pk, *obs);
    static maat_action legal[512], mine[512];
    int n_legal = decode_legal(m->m, legal, 512);
    for (int s = 0; s < 5; s++) {
        maat_game *d = R->determinize(v, rng, &err);
        CHECK(d != NULL, "%s: determinize: %s", name, err.msg);
        if (!d)
            break;
        msgpack_sbuffer_clear(&got);
        msgpack_packer_init(&pk, &got, msgpack_sbuffer_write);
        R->encode_observation(d, seat, &pk);
        CHECK(got.size == want.size &&
                  memcmp(got.data, want.data, want.size) == 0,
              "%s sample %d: its observation is not the recorded one", name,
              s);
        if (n_legal > 0) {
            int n = R->legal_actions(d, mine, 512);
            int same = n == n_legal;
            for (int i = 0; same && i < n; i++) {
                int found = 0;
                for (int k = 0; k < n_legal && !found; k++)
                    found = same_action(&mine[i], &legal[k]);
                same = found;
            }
            CHECK(same, "%s sample %d: %d legal actions, the referee listed "
                  "%d others", name, s, n, n_legal);
        }
        /* a forward model: plays on to the end */
        int steps = 0, bad = 0;
        while (!R->is_over(d) && !bad && steps++ < 1000) {
            maat_action a;
            bad = maat_policy_random(R, d, rng, &a) ||
                  R->apply(d, &a, NULL, &err);
        }
        CHECK(!bad && R->is_over(d), "%s sample %d: playout failed at step "
              "%d: %s", name, s, steps, err.msg);
        R->destroy(&d);
    }
    msgpack_sbuffer_destroy(&want);
    msgpack_sbuffer_destroy(&got);
}

/* maat_bot_take_options: the SDK's options out of argv, the bot's own
 * left in order (a bot with options of its own had to parse the SDK's
 * too: search-bot review of 2026-11-28). */
static void test_take_options(void)
{
    char *argv[] = {"bot", "--budget-ms", "50", "--verbose", "--protocol",
                    "2", "x", "--full-observation", NULL};
    int argc = 8;
    maat_bot_options o;
    memset(&o, 0, sizeof o);
    maat_error err = {0, ""};
    CHECK(maat_bot_take_options(&o, &argc, argv, &err) == MAAT_OK &&
              o.verbose && o.protocol == 2 && o.full_observation,
          "the SDK's three options taken: %s", err.msg);
    CHECK(argc == 4 && !strcmp(argv[0], "bot") &&
              !strcmp(argv[1], "--budget-ms") && !strcmp(argv[2], "50") &&
              !strcmp(argv[3], "x"),
          "the bot's own arguments left in order (%d)", argc);
    char *bad[] = {"bot", "--protocol", "4", NULL};
    argc = 3;
    CHECK(maat_bot_take_options(&o, &argc, bad, &err) == MAAT_EINVAL &&
              strstr(err.msg, "--protocol"),
          "--protocol 4 refused, named: %s", err.msg);
}

int main(void)
{
    test_take_options();
    maat_error err = {0, ""};
    maat_rng rng;
    maat_rng_seed(&rng, SEED(11));
    static maat_action legal[512];
    maat_pyr_state st;

    /* ---- welcome ---- */
    msg welcome;
    msg_load(&welcome, "welcome");
    maat_setup *setup = NULL;
    if (welcome.m) {
        const msgpack_object *m = welcome.m;
        CHECK(maat_msg_str_eq(maat_msg_get(m, "type"), "welcome"),
              "welcome: type");
        CHECK(geti(m, "version") == 1, "welcome: version");
        CHECK(maat_msg_str_eq(maat_msg_get(m, "game"), "pyramids"),
              "welcome: game");
        CHECK(maat_msg_str_eq(maat_msg_get(m, "rules_version"),
                              R->rules_version),
              "welcome: rules_version is not %s", R->rules_version);
        CHECK(geti(m, "games") == 1, "welcome: games");
        CHECK(maat_rules_find("pyramids") == R, "the registry's pyramids");
        const msgpack_object *s = maat_msg_get(m, "setup");
        CHECK(maat_msg_str_eq(maat_msg_get(s, "deck_name"), "reference"),
              "welcome: deck_name");
        CHECK(arr_len(maat_msg_get(s, "deck")) == 105, "welcome: 105 cards");
        setup = R->setup_decode(s, &err);
        CHECK(setup != NULL, "welcome: setup_decode: %s", err.msg);
    }
    if (!setup) {
        msg_free(&welcome);
        return check_done("sdk_recorded");
    }
    {
        /* the decoded deck is the reference deck, card by card */
        maat_setup *ref = R->setup_new(NULL, &err);
        maat_game *a = R->game_new(ref, SEED(1), 2, NULL, &err);
        maat_game *b = R->game_new(setup, SEED(1), 2, NULL, &err);
        const maat_pyr_deck *da = maat_pyr_state_of(a)->deck;
        const maat_pyr_deck *db = maat_pyr_state_of(b)->deck;
        int diff = -1;
        for (int i = 0; i < MAAT_PYR_CARDS && diff < 0; i++) {
            const maat_pyr_card *x = &da->card[i], *y = &db->card[i];
            int ok = x->n_stones == y->n_stones && x->glyph == y->glyph;
            for (int k = 0; ok && k < x->n_stones; k++)
                ok = x->stone[k] == y->stone[k];
            if (!ok)
                diff = i;
        }
        CHECK(diff < 0, "welcome: card %d differs from the reference deck",
              diff);
        /* a few cards read from the message: 0 "BW" pyramid, 1 "WB" nil,
         * 3 "BR" obelisk, 6 "BG" tomb, 45 "BWR" pyramid, 104 "YYY" nil */
        const maat_pyr_card *c = db->card;
        CHECK(c[0].n_stones == 2 && c[0].stone[0] == MAAT_PYR_BLUE &&
                  c[0].stone[1] == MAAT_PYR_WHITE &&
                  c[0].glyph == MAAT_PYR_GLYPH_PYRAMID,
              "card 0 is not BW pyramid");
        CHECK(c[1].n_stones == 2 && c[1].stone[0] == MAAT_PYR_WHITE &&
                  c[1].stone[1] == MAAT_PYR_BLUE &&
                  c[1].glyph == MAAT_PYR_GLYPH_NONE,
              "card 1 is not WB");
        CHECK(c[3].stone[1] == MAAT_PYR_RED &&
                  c[3].glyph == MAAT_PYR_GLYPH_OBELISK,
              "card 3 is not BR obelisk");
        CHECK(c[6].stone[1] == MAAT_PYR_GREEN &&
                  c[6].glyph == MAAT_PYR_GLYPH_TOMB,
              "card 6 is not BG tomb");
        CHECK(c[45].n_stones == 3 && c[45].stone[0] == MAAT_PYR_BLUE &&
                  c[45].stone[1] == MAAT_PYR_WHITE &&
                  c[45].stone[2] == MAAT_PYR_RED &&
                  c[45].glyph == MAAT_PYR_GLYPH_PYRAMID,
              "card 45 is not BWR pyramid");
        CHECK(c[104].n_stones == 3 && c[104].stone[0] == MAAT_PYR_YELLOW &&
                  c[104].stone[2] == MAAT_PYR_YELLOW &&
                  c[104].glyph == MAAT_PYR_GLYPH_NONE,
              "card 104 is not YYY");
        R->destroy(&a);
        R->destroy(&b);
        R->setup_destroy(&ref);
    }

    /* ---- start ---- */
    msg start;
    msg_load(&start, "start");
    int seat = -1, seats = -1;
    if (start.m) {
        CHECK(maat_msg_str_eq(maat_msg_get(start.m, "type"), "start"),
              "start: type");
        CHECK(geti(start.m, "game_index") == 0, "start: game_index");
        seat = (int)geti(start.m, "seat");
        seats = (int)geti(start.m, "seats");
        CHECK(seat == 0 && seats == 2, "start: seat %d of %d, want 0 of 2",
              seat, seats);
    }
    if (seat != 0 || seats != 2) {
        msg_free(&welcome);
        msg_free(&start);
        R->setup_destroy(&setup);
        return check_done("sdk_recorded");
    }
    maat_view *view = R->view_new(setup, seat, seats);
    CHECK(view != NULL, "view_new");

    /* ---- request: god (the first) ---- */
    msg god;
    msg_load(&god, "request_god");
    if (god.m) {
        const msgpack_object *m = god.m;
        CHECK(maat_msg_str_eq(maat_msg_get(m, "type"), "request") &&
                  geti(m, "seq") == 1 &&
                  maat_msg_str_eq(maat_msg_get(m, "decision"), "god"),
              "god: type/seq/decision");
        CHECK(geti(maat_msg_get(m, "clock"), "time_left_ms") == 5000,
              "god: first decision's clock is not 5000 ms");
        CHECK(arr_len(maat_msg_get(m, "events")) == 4,
              "god: deal, round and two quarry events");
        int n = decode_legal(m, legal, 512);
        CHECK(n == 3, "god: %d legal actions, want 3", n);
        if (n == 3) {
            maat_action w[3] = {act(MAAT_PYR_GOD, 1, -1, -1, -1, -1),
                                act(MAAT_PYR_GOD, 2, -1, -1, -1, -1),
                                act(MAAT_PYR_GOD, 3, -1, -1, -1, -1)};
            for (int i = 0; i < 3; i++)
                CHECK(same_action(&legal[i], &w[i]), "god: legal[%d] is "
                      "kind %d tile %d", i, legal[i].kind, legal[i].arg[0]);
        }
        if (decode_obs(&god, &st) == MAAT_OK) {
            static const int hand[] = {22};
            CHECK(st.seats == 2 && st.round == 1 && st.first == 0 &&
                      st.phase == MAAT_PYR_GOD && st.to_move == 0 &&
                      st.cursor == 0,
                  "god: seats/round/first/phase/to_move/cursor %d/%d/%d/%d/"
                  "%d/%d", st.seats, st.round, st.first, st.phase,
                  st.to_move, st.cursor);
            CHECK(st.deck_pos == 6 && st.set_aside == 4,
                  "god: deck_pos %d (deck_size 99), set_aside %d",
                  st.deck_pos, st.set_aside);
            CHECK(st.quarry[0][0] == 34 && st.quarry[0][1] == 82 &&
                      st.quarry[1][0] == 5 && st.quarry[1][1] == 20,
                  "god: quarry");
            CHECK(cards_are(st.seat[0].hand, st.seat[0].hand_n, hand, 1),
                  "god: own hand is not [22]");
            CHECK(st.seat[1].hand_n == 1 &&
                      st.seat[1].hand[0] == MAAT_PYR_UNKNOWN,
                  "god: the other hand is not 1 unknown card");
            CHECK(st.seat[0].god == 0 && st.seat[1].god == 0 &&
                      st.tile_owner[1] == -1,
                  "god: nobody has a tile yet");
            CHECK(st.deck == NULL && st.discard_n == 0 &&
                      st.seat[0].pyramid_n == 0,
                  "god: deck pointer, discard, pyramid");
        }
        view_step(view, &god, seat, &rng, "god");
    }

    /* ---- request: pair ---- */
    msg pair;
    msg_load(&pair, "request_pair");
    if (pair.m) {
        const msgpack_object *m = pair.m;
        CHECK(geti(m, "seq") == 3 &&
                  maat_msg_str_eq(maat_msg_get(m, "decision"), "pair"),
              "pair: seq/decision");
        int n = decode_legal(m, legal, 512);
        CHECK(n == 2, "pair: %d legal actions, want 2", n);
        if (n == 2) {
            maat_action w0 = act(MAAT_PYR_PAIR, 0, -1, -1, -1, -1);
            maat_action w1 = act(MAAT_PYR_PAIR, 1, -1, -1, -1, -1);
            CHECK(same_action(&legal[0], &w0) && same_action(&legal[1], &w1),
                  "pair: legal is not index 0, 1");
        }
        if (decode_obs(&pair, &st) == MAAT_OK) {
            CHECK(st.phase == MAAT_PYR_PAIR && st.to_move == 0 &&
                      st.seat[0].god == MAAT_PYR_ANUBIS &&
                      st.seat[1].god == MAAT_PYR_KHEPRI &&
                      st.tile_owner[2] == 0 && st.tile_owner[3] == 1 &&
                      st.tile_owner[1] == -1 && st.cursor == 2,
                  "pair: phase %d to_move %d gods %d/%d cursor %d",
                  st.phase, st.to_move, st.seat[0].god, st.seat[1].god,
                  st.cursor);
        }
        view_step(view, &pair, seat, &rng, "pair");
    }

    /* ---- request: build (Sekhmet, 2 seats: tomb and obelisk) ---- */
    msg build;
    msg_load(&build, "request_build");
    if (build.m) {
        const msgpack_object *m = build.m;
        CHECK(geti(m, "seq") == 19 &&
                  maat_msg_str_eq(maat_msg_get(m, "decision"), "build"),
              "build: seq/decision");
        int n = decode_legal(m, legal, 512);
        CHECK(n == 63, "build: %d legal actions, want 63", n);
        if (n == 63) {
            maat_action first = act(MAAT_PYR_BUILD, 82, 0, -2, -1, -1);
            maat_action second = act(MAAT_PYR_BUILD, 82, 0, -2, -1, 18);
            maat_action fifth = act(MAAT_PYR_BUILD, 82, 0, -2, 18, 85);
            maat_action last = act(MAAT_PYR_BUILD, 85, 1, -1, 18, 82);
            CHECK(same_action(&legal[0], &first) &&
                      same_action(&legal[1], &second) &&
                      same_action(&legal[4], &fifth) &&
                      same_action(&legal[62], &last),
                  "build: legal[0,1,4,62] are not the recorded ones");
            int both = 0;
            for (int i = 0; i < n; i++)
                both += legal[i].arg[3] >= 0 && legal[i].arg[4] >= 0;
            CHECK(both == 18, "build: %d actions with tomb and obelisk, "
                  "want 18", both);
        }
        if (decode_obs(&build, &st) == MAAT_OK) {
            static const int hand[] = {82, 18, 85}, tomb[] = {22, 74};
            CHECK(st.round == 3 && st.first == 0 &&
                      st.phase == MAAT_PYR_BUILD && st.deck_pos == 14 &&
                      st.set_aside == 2 && st.seat[0].god == MAAT_PYR_SEKHMET &&
                      st.seat[1].god == MAAT_PYR_HORUS,
                  "build: round/first/phase/deck/set_aside/gods");
            CHECK(cards_are(st.seat[0].hand, st.seat[0].hand_n, hand, 3),
                  "build: own hand is not [82, 18, 85]");
            CHECK(cards_are(st.seat[0].tomb, st.seat[0].tomb_n, tomb, 2) &&
                      st.seat[0].obelisk_n == 0 &&
                      st.seat[0].pyramid_n == 2 &&
                      st.seat[0].grid[0][MAAT_PYR_POS_OFFSET - 1] == 61 &&
                      st.seat[0].grid[0][MAAT_PYR_POS_OFFSET] == 34,
                  "build: own tomb [22, 74], no obelisk, pyramid 61 at "
                  "0/-1 and 34 at 0/0");
            CHECK(st.seat[1].pyramid_n == 3 &&
                      st.seat[1].grid[0][MAAT_PYR_POS_OFFSET] == 28 &&
                      st.seat[1].grid[0][MAAT_PYR_POS_OFFSET + 1] == 5 &&
                      st.seat[1].grid[1][MAAT_PYR_POS_OFFSET] == 91 &&
                      st.seat[1].hand_n == 2 && st.seat[1].tomb_n == 1 &&
                      st.seat[1].tomb[0] == MAAT_PYR_UNKNOWN,
                  "build: the other seat's pyramid, hand and tomb");
            CHECK(st.quarry[0][0] == -1 && st.quarry[1][0] == -1,
                  "build: the quarry is empty");
        }
        view_step(view, &build, seat, &rng, "build");
    }

    /* ---- request: keep ---- */
    msg keep;
    msg_load(&keep, "request_keep");
    if (keep.m) {
        const msgpack_object *m = keep.m;
        CHECK(geti(m, "seq") == 34 &&
                  maat_msg_str_eq(maat_msg_get(m, "decision"), "keep"),
              "keep: seq/decision");
        int n = decode_legal(m, legal, 512);
        maat_action w0 = act(MAAT_PYR_KEEP, 62, -1, -1, -1, -1);
        maat_action w1 = act(MAAT_PYR_KEEP, 9, -1, -1, -1, -1);
        CHECK(n == 2 && same_action(&legal[0], &w0) &&
                  same_action(&legal[1], &w1),
              "keep: legal is not keep 62, keep 9 (%d actions)", n);
        if (decode_obs(&keep, &st) == MAAT_OK) {
            static const int hand[] = {62, 9}, tomb[] = {22, 74, 18, 17};
            CHECK(st.round == 5 && st.phase == MAAT_PYR_KEEP &&
                      st.to_move == 0 && st.first == 0 && st.cursor == 0 &&
                      st.deck_pos == 22 && st.set_aside == 1,
                  "keep: round %d phase %d to_move %d cursor %d deck_pos %d",
                  st.round, st.phase, st.to_move, st.cursor, st.deck_pos);
            CHECK(cards_are(st.seat[0].hand, st.seat[0].hand_n, hand, 2) &&
                      cards_are(st.seat[0].tomb, st.seat[0].tomb_n, tomb, 4),
                  "keep: own hand [62, 9], tomb [22, 74, 18, 17]");
            CHECK(st.discard_n == 3 &&
                      memcmp(st.discard, (uint8_t[]){20, 49, 40}, 3) == 0,
                  "keep: discard [20, 49, 40]");
            CHECK(st.seat[1].hand_n == 2 && st.seat[1].tomb_n == 1 &&
                      st.seat[0].pyramid_n == 5 && st.seat[1].pyramid_n == 5,
                  "keep: sizes");
            /* the tiles went back before the keep decisions */
            CHECK(st.seat[0].god == 0 && st.seat[1].god == 0,
                  "keep: gods %d/%d", st.seat[0].god, st.seat[1].god);
        }
        view_step(view, &keep, seat, &rng, "keep");
    }

    /* ---- request: late (round 8, both tombs filled) ---- */
    msg late;
    msg_load(&late, "request_late");
    if (late.m) {
        const msgpack_object *m = late.m;
        CHECK(geti(m, "seq") == 50 &&
                  maat_msg_str_eq(maat_msg_get(m, "decision"), "god"),
              "late: seq/decision");
        CHECK(arr_len(maat_msg_get(m, "events")) == 9, "late: 9 events");
        int n = decode_legal(m, legal, 512);
        maat_action w0 = act(MAAT_PYR_GOD, 1, -1, -1, -1, -1);
        maat_action w1 = act(MAAT_PYR_GOD, 4, -1, -1, -1, -1);
        CHECK(n == 2 && same_action(&legal[0], &w0) &&
                  same_action(&legal[1], &w1),
              "late: legal is not god 1, god 4 (%d actions)", n);
        if (decode_obs(&late, &st) == MAAT_OK) {
            static const int hand[] = {33};
            CHECK(st.round == 8 && st.first == 1 && st.to_move == 0 &&
                      st.cursor == 1 && st.set_aside == 3 &&
                      st.deck_pos == 34 && st.seat[1].god == MAAT_PYR_ANUBIS &&
                      st.tile_owner[2] == 1,
                  "late: round/first/to_move/cursor/set_aside/deck/god");
            CHECK(cards_are(st.seat[0].hand, st.seat[0].hand_n, hand, 1) &&
                      st.seat[0].tomb_n == 4 && st.seat[1].tomb_n == 2 &&
                      st.discard_n == 6 && st.discard[5] == 55,
                  "late: hand [33], tombs 4/2, discard ends with 55");
            CHECK(st.quarry[0][0] == 14 && st.quarry[0][1] == 72 &&
                      st.quarry[1][0] == 98 && st.quarry[1][1] == 8,
                  "late: quarry [[14, 72], [98, 8]]");
        }
        view_step(view, &late, seat, &rng, "late");
    }

    /* ---- end ---- */
    msg end;
    msg_load(&end, "end");
    if (end.m) {
        const msgpack_object *m = end.m;
        const msgpack_object *ranks = maat_msg_get(m, "ranks");
        CHECK(maat_msg_str_eq(maat_msg_get(m, "type"), "end") &&
                  geti(m, "game_index") == 0 && arr_len(ranks) == 2 &&
                  ranks->via.array.ptr[0].via.u64 == 1 &&
                  ranks->via.array.ptr[1].via.u64 == 2,
              "end: type/game_index/ranks [1, 2]");
        const msgpack_object *ev = maat_msg_get(m, "events");
        CHECK(arr_len(ev) == 8 &&
                  maat_msg_str_eq(maat_msg_get(&ev->via.array.ptr[7], "event"),
                                  "end"),
              "end: 8 events, the last 'end'");
        if (decode_obs(&end, &st) == MAAT_OK) {
            static const int tomb0[] = {22, 74, 18, 17, 98, 8, 76},
                             tomb1[] = {15, 102, 1, 25};
            CHECK(st.phase == MAAT_PYR_OVER && st.to_move == -1 &&
                      st.round == 10 && st.deck_pos == 42,
                  "end: phase %d to_move %d round %d deck_pos %d", st.phase,
                  st.to_move, st.round, st.deck_pos);
            CHECK(cards_are(st.seat[0].tomb, st.seat[0].tomb_n, tomb0, 7) &&
                      cards_are(st.seat[1].tomb, st.seat[1].tomb_n, tomb1, 4),
                  "end: the revealed tombs");
            CHECK(st.seat[0].pyramid_n == 10 && st.seat[1].pyramid_n == 10 &&
                      st.seat[0].hand_n == 0 && st.discard_n == 9 &&
                      st.seat[0].obelisk_n == 2 &&
                      st.seat[0].grid[3][MAAT_PYR_POS_OFFSET - 2] == 81,
                  "end: pyramids, hands, discard, obelisk");
        }
        /* the last view update and samples: everything is known now */
        view_step(view, &end, seat, &rng, "end");
        maat_game *d = R->determinize(view, &rng, &err);
        CHECK(d != NULL, "end: determinize: %s", err.msg);
        if (d) {
            maat_score sc[2];
            R->scores(d, sc);
            CHECK(R->is_over(d) && sc[0].total == 45 && sc[1].total == 20 &&
                      sc[0].rank == 1 && sc[1].rank == 2,
                  "end: sample scores %d/%d ranks %d/%d, recorded 45/20, "
                  "1/2", sc[0].total, sc[1].total, sc[0].rank, sc[1].rank);
            static const int p0[] = {10, 4, 0, 3, 20, 8},
                             p1[] = {12, 4, 0, 0, 0, 4};
            int parts_ok = 1;
            for (int p = 0; p < MAAT_PYR_S_PARTS; p++)
                parts_ok &= sc[0].part[p] == p0[p] && sc[1].part[p] == p1[p];
            CHECK(parts_ok, "end: sample score parts differ from the "
                  "recorded ones");
            R->destroy(&d);
        }
    }

    /* ---- bye ---- */
    msg bye;
    msg_load(&bye, "bye");
    if (bye.m)
        CHECK(maat_msg_str_eq(maat_msg_get(bye.m, "type"), "bye") &&
                  bye.m->via.map.size == 1,
              "bye: exactly {type: bye}");

    R->view_destroy(&view);
    R->setup_destroy(&setup);
    msg *all[] = {&welcome, &start, &god, &pair, &build, &keep, &late, &end,
                  &bye};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        msg_free(all[i]);
    return check_done("sdk_recorded");
}
