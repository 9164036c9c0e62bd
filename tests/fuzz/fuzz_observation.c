/* fuzz_observation.c -- libFuzzer target: the bot side of the protocol,
 * what a malicious referee can send a bot built on the SDK.
 *
 * Input:
 *   byte 0   the game until a welcome names one: maat_rules_all()[byte %
 *            count] (0 pyramids, 1 pyramix, then any game added), with the
 *            reference setup (setup_new without options)
 *   byte 1   the bot's seat (byte % 8) until a start says
 *   byte 2   seats: min_seats + byte % (max_seats - min_seats + 1)
 *   byte 3   seed of the determinization draws
 *   then     frames [length, 2 bytes little-endian][that many bytes], each
 *            one referee -> bot message; a length past the end takes what
 *            is left
 *
 * The frames are dispatched as sdk/src/bot.c does: welcome ->
 * rules->setup_decode of "setup" (a new view); start -> rules->view_new
 * with its seat and seats; request and end -> rules->view_update with
 * "events" and "observation" (a request without one, as protocol version
 * 2 sends, has the view follow the events alone), the "legal" list through decode_action(NULL),
 * the view's own list (rules->view_legal_actions, what a version-3 bot
 * plays from), then rules->determinize -- what maat_bot_sample does for a
 * search bot --
 * and a random playout of the sampled state, as a search bot would.  A
 * frame with no "type" but a "game" is taken as a bare observation.  For
 * pyramids, maat_pyr_observation_decode reads every accepted observation.
 *
 * Invariants (abort() when broken):
 *  - a refused setup/observation/action is refused with a code and a
 *    message; an accepted setup re-encodes and re-decodes to the same bytes;
 *    accepted legal actions, and those of view_legal_actions (which says
 *    -1 or how many), have a decision kind of the game and their fields in
 *    their declared ranges (maat_wire_fits, every game);
 *  - every game: the sample's observations encode to msgpack that
 *    maat_msg_check accepts;
 *  - pyramids and pyramix: a state from determinize shows its seat the
 *    observation it came from (encode_observation of the sample decodes to
 *    the input observation; cards the input did not show may be anything),
 *    its card ids are all in range and each card is in exactly one place
 *    (pyramids: deck, quarry, hands, tombs, pyramids, obelisks, discard;
 *    pyramix: each cube at most once on the board or in a collection);
 *  - the sample is a playable game: until it is over there is a seat to
 *    move and a legal action, every legal action applies, the game ends
 *    within 2000 moves, and the cards stay conserved on the way.
 * Nothing is printed; everything allocated is freed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "games/wire.h"
#include "maat/game.h"
#include "maat/internal/msg.h"
#include "maat/internal/pyramids.h"
#include "maat/internal/pyramix.h"
#include "maat/rng.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                         \
    do {                                                                    \
        if (!(cond))                                                        \
            abort();                                                        \
    } while (0)

#define PLAYOUT_MOVES 2000

typedef struct bot {
    const maat_rules *rules;
    maat_setup *setup;
    maat_view *view;
    int seat, seats;
    maat_rng rng;
} bot;

static int is_pyramids(const maat_rules *r)
{
    return r == &maat_pyramids_rules;
}

static int is_pyramix(const maat_rules *r)
{
    return r == &maat_pyramix_rules;
}

static void pack_init(msgpack_sbuffer *sb, msgpack_packer *pk)
{
    msgpack_sbuffer_init(sb);
    msgpack_packer_init(pk, sb, msgpack_sbuffer_write);
}

/* ---- legal actions: the declared ranges ------------------------------- */

static void check_ranges(const maat_rules *r, const maat_action *a)
{
    CHECK(a->kind >= 0 && a->kind < r->n_decision_kinds);
    CHECK(maat_wire_fits(r->wire_actions, a->kind, a->arg));
}

static void decode_legal(const maat_rules *r, const msgpack_object *legal)
{
    if (!legal || legal->type != MSGPACK_OBJECT_ARRAY)
        return;
    for (uint32_t i = 0; i < legal->via.array.size; i++) {
        maat_action a;
        maat_error e = {0, ""};
        int rc = r->decode_action(NULL, &legal->via.array.ptr[i], &a, &e);
        if (rc == MAAT_OK)
            check_ranges(r, &a);
        else
            CHECK(rc == MAAT_EDECODE && e.code == rc && e.msg[0]);
    }
}

/* ---- card conservation ------------------------------------------------ */

static void count_card(uint8_t *seen, int card)
{
    CHECK(card >= 0 && card < MAAT_PYR_CARDS); /* no unknown (255) left */
    CHECK(!seen[card]++);                      /* one place only */
}

static void pyr_conserved(const maat_pyr_state *st)
{
    uint8_t seen[MAAT_PYR_CARDS] = {0};
    CHECK(st->seats >= 2 && st->seats <= MAAT_PYR_MAX_SEATS);
    CHECK(st->deck_pos >= 0 && st->deck_pos <= MAAT_PYR_CARDS);
    CHECK(st->discard_n >= 0 && st->discard_n <= MAAT_PYR_CARDS);
    for (int i = st->deck_pos; i < MAAT_PYR_CARDS; i++)
        count_card(seen, st->order[i]);
    for (int i = 0; i < st->seats; i++)
        for (int k = 0; k < 2; k++)
            if (st->quarry[i][k] >= 0)
                count_card(seen, st->quarry[i][k]);
    for (int i = 0; i < st->discard_n; i++)
        count_card(seen, st->discard[i]);
    for (int j = 0; j < st->seats; j++) {
        const maat_pyr_seat *s = &st->seat[j];
        int built = 0;
        CHECK(s->hand_n <= 3 && s->tomb_n <= MAAT_PYR_ROUNDS &&
              s->obelisk_n <= MAAT_PYR_ROUNDS);
        for (int k = 0; k < s->hand_n; k++)
            count_card(seen, s->hand[k]);
        for (int k = 0; k < s->tomb_n; k++)
            count_card(seen, s->tomb[k]);
        for (int k = 0; k < s->obelisk_n; k++)
            count_card(seen, s->obelisk[k]);
        for (int t = 0; t < MAAT_PYR_STAGES; t++)
            for (int p = 0; p < MAAT_PYR_POSITIONS; p++)
                if (s->grid[t][p] >= 0) {
                    count_card(seen, s->grid[t][p]);
                    built++;
                }
        CHECK(built == s->pyramid_n);
    }
}

static void pmx_conserved(const maat_pmx_state *st)
{
    uint8_t seen[MAAT_PMX_CUBES] = {0};
    CHECK(st->seats >= 2 && st->seats <= MAAT_PMX_MAX_SEATS);
    for (int p = 0; p < MAAT_PMX_PLACES; p++) {
        int c = st->cube[p];
        CHECK(c >= -1 && c < MAAT_PMX_CUBES);
        if (c >= 0)
            CHECK(!seen[c]++);
    }
    for (int s = 0; s < st->seats; s++) {
        int n = 0;
        for (int c = 0; c < MAAT_PMX_CUBES; c++)
            if (st->collected[s][c]) {
                CHECK(!seen[c]++);
                n++;
            }
        CHECK(n == st->n_collected[s]);
    }
}

static void check_conserved(const maat_rules *r, const maat_game *g)
{
    if (is_pyramids(r))
        pyr_conserved(maat_pyr_state_of(g));
    else if (is_pyramix(r))
        pmx_conserved(maat_pmx_state_of(g));
}

/* ---- the observation of the sample ------------------------------------ */

/* Cards the input did not show (255) match anything. */
static int same_cards(const uint8_t *in, const uint8_t *out, int n)
{
    for (int i = 0; i < n; i++)
        if (in[i] != MAAT_PYR_UNKNOWN && in[i] != out[i])
            return 0;
    return 1;
}

static void pyr_same(const maat_pyr_state *a, const maat_pyr_state *b)
{
    CHECK(a->seats == b->seats);
    CHECK(a->round == b->round);
    CHECK(a->first == b->first);
    CHECK(a->to_move == b->to_move);
    CHECK(a->deck_pos == b->deck_pos);
    CHECK(a->set_aside == b->set_aside);
    CHECK(a->phase == b->phase);
    CHECK(a->cursor == b->cursor);
    CHECK(memcmp(a->quarry, b->quarry, sizeof a->quarry) == 0);
    CHECK(memcmp(a->tile_owner, b->tile_owner, sizeof a->tile_owner) == 0);
    CHECK(a->discard_n == b->discard_n);
    CHECK(memcmp(a->discard, b->discard, (size_t)a->discard_n) == 0);
    for (int j = 0; j < a->seats; j++) {
        const maat_pyr_seat *x = &a->seat[j], *y = &b->seat[j];
        CHECK(memcmp(x->grid, y->grid, sizeof x->grid) == 0);
        CHECK(x->pyramid_n == y->pyramid_n);
        CHECK(x->god == y->god);
        CHECK(x->obelisk_n == y->obelisk_n);
        CHECK(memcmp(x->obelisk, y->obelisk, x->obelisk_n) == 0);
        CHECK(x->hand_n == y->hand_n);
        CHECK(same_cards(x->hand, y->hand, x->hand_n));
        CHECK(x->tomb_n == y->tomb_n);
        CHECK(same_cards(x->tomb, y->tomb, x->tomb_n));
    }
}

/* Pyramix observations, canonical: every place empty (-1), hidden (-2) or
 * colour * 4 + symbol; per seat, how many of each kind it collected. */
typedef struct pmx_canon {
    int seats, turn, to_move, over;
    int place[MAAT_PMX_PLACES];
    int collected[MAAT_PMX_MAX_SEATS][20];
} pmx_canon;

static int pmx_kind(const msgpack_object *o)
{
    int colour = -1, symbol = -1;
    for (int c = 0; c < 5; c++)
        if (maat_msg_str_eq(maat_msg_get(o, "colour"),
                            maat_pmx_colour_names[c]))
            colour = c;
    for (int s = 0; s < 4; s++)
        if (maat_msg_str_eq(maat_msg_get(o, "symbol"),
                            maat_pmx_symbol_names[s]))
            symbol = s;
    CHECK(colour >= 0 && symbol >= 0);
    return colour * 4 + symbol;
}

/* Only for observations view_update accepted (or our own encoding). */
static void pmx_canonical(const msgpack_object *o, pmx_canon *c)
{
    int64_t v;
    memset(c, 0, sizeof *c);
    CHECK(maat_msg_get_int(o, "seats", 2, MAAT_PMX_MAX_SEATS, &v, NULL) ==
          MAAT_OK);
    c->seats = (int)v;
    CHECK(maat_msg_get_int(o, "turn", 0, MAAT_PMX_CUBES, &v, NULL) ==
          MAAT_OK);
    c->turn = (int)v;
    CHECK(maat_msg_get_int_or(o, "to_move", 0, c->seats - 1, -1, &v,
                              NULL) == MAAT_OK);
    c->to_move = (int)v;
    const msgpack_object *over = maat_msg_get(o, "over");
    c->over = over && over->type == MSGPACK_OBJECT_BOOLEAN &&
              over->via.boolean;
    for (int p = 0; p < MAAT_PMX_PLACES; p++)
        c->place[p] = -1;
    const msgpack_object *cubes = maat_msg_get(o, "cubes");
    CHECK(cubes && cubes->type == MSGPACK_OBJECT_ARRAY);
    for (uint32_t i = 0; i < cubes->via.array.size; i++) {
        const msgpack_object *cube = &cubes->via.array.ptr[i];
        int64_t x, y, z;
        CHECK(maat_msg_get_int(cube, "x", 0, 5, &x, NULL) == MAAT_OK &&
              maat_msg_get_int(cube, "y", 0, 5, &y, NULL) == MAAT_OK &&
              maat_msg_get_int(cube, "z", 0, 5, &z, NULL) == MAAT_OK);
        int p = maat_pmx_place((int)x, (int)y, (int)z);
        CHECK(p >= 0 && c->place[p] == -1);
        c->place[p] = maat_msg_get(cube, "symbol") ? pmx_kind(cube) : -2;
    }
    const msgpack_object *col = maat_msg_get(o, "collected");
    CHECK(col && col->type == MSGPACK_OBJECT_ARRAY &&
          (int)col->via.array.size == c->seats);
    for (int s = 0; s < c->seats; s++) {
        const msgpack_object *list = &col->via.array.ptr[s];
        CHECK(list->type == MSGPACK_OBJECT_ARRAY);
        for (uint32_t k = 0; k < list->via.array.size; k++)
            c->collected[s][pmx_kind(&list->via.array.ptr[k])]++;
    }
}

static void pmx_same(const pmx_canon *a, const pmx_canon *b)
{
    CHECK(a->seats == b->seats);
    CHECK(a->turn == b->turn);
    CHECK(a->to_move == b->to_move);
    CHECK(a->over == b->over);
    for (int p = 0; p < MAAT_PMX_PLACES; p++)
        CHECK(a->place[p] == b->place[p] || (a->place[p] == -2 &&
                                             b->place[p] >= 0));
    CHECK(memcmp(a->collected, b->collected, sizeof a->collected) == 0);
}

/* Every seat's observation of g is msgpack our validator accepts. */
static void check_observations_wellformed(const maat_rules *r,
                                          const maat_game *g)
{
    for (int seat = -1; seat < r->seats(g); seat++) {
        msgpack_sbuffer sb;
        msgpack_packer pk;
        pack_init(&sb, &pk);
        CHECK(r->encode_observation(g, seat, &pk) == MAAT_OK);
        maat_error e = {0, ""};
        CHECK(maat_msg_check(sb.data, sb.size, &e) == MAAT_OK);
        msgpack_sbuffer_destroy(&sb);
    }
}

/* encode_observation of the sample, for the seat the input was for. */
static void check_same_observation(const bot *b, const maat_game *g,
                                   const msgpack_object *obs)
{
    const maat_rules *r = b->rules;
    if (!is_pyramids(r) && !is_pyramix(r))
        return;
    int64_t seat = 0;
    if (maat_msg_get_int(obs, "seat", -1, MAAT_MAX_SEATS - 1, &seat,
                         NULL) != MAAT_OK || seat >= r->seats(g))
        seat = -1;
    msgpack_sbuffer sb;
    msgpack_packer pk;
    pack_init(&sb, &pk);
    CHECK(r->encode_observation(g, (int)seat, &pk) == MAAT_OK);
    msgpack_unpacked u;
    maat_error e = {0, ""};
    CHECK(maat_msg_unpack(sb.data, sb.size, &u, &e) == MAAT_OK);
    if (is_pyramids(r)) {
        static maat_pyr_state in_st, out_st; /* large: off the stack */
        CHECK(maat_pyr_observation_decode(obs, &in_st, &e) == MAAT_OK);
        CHECK(maat_pyr_observation_decode(&u.data, &out_st, &e) == MAAT_OK);
        pyr_same(&in_st, &out_st);
    } else {
        pmx_canon a, c;
        pmx_canonical(obs, &a);
        pmx_canonical(&u.data, &c);
        pmx_same(&a, &c);
    }
    msgpack_unpacked_destroy(&u);
    msgpack_sbuffer_destroy(&sb);
}

/* A search bot's use of the sample: play it out at random. */
static void playout(const maat_rules *r, const maat_game *sample,
                    maat_rng *rng)
{
    maat_game *g = r->copy(sample);
    CHECK(g);
    maat_action *legal = NULL;
    int cap = 0, moves = 0;
    while (!r->is_over(g)) {
        CHECK(moves++ < PLAYOUT_MOVES);
        maat_decision d = r->decision(g);
        int n = r->legal_actions(g, NULL, 0);
        /* a forged observation may describe a dead end further on (the
         * sample passed determinize's check of its first move); what must
         * hold is that the engine stays in bounds and a bot can stop */
        if (n == 0 || d.seat < 0 || d.seat >= r->seats(g))
            break;
        if (n > cap) {
            maat_action *a = realloc(legal, sizeof *a * (size_t)n);
            CHECK(a);
            legal = a;
            cap = n;
        }
        CHECK(r->legal_actions(g, legal, cap) == n);
        maat_error e = {0, ""};
        CHECK(r->apply(g, &legal[maat_rng_below(rng, (uint32_t)n)], NULL,
                       &e) == MAAT_OK);
        check_conserved(r, g);
    }
    maat_score sc[MAAT_MAX_SEATS];
    r->scores(g, sc);
    for (int s = 0; s < r->seats(g); s++)
        CHECK(sc[s].rank >= 1 && sc[s].rank <= r->seats(g));
    free(legal);
    r->destroy(&g);
}

/* ---- the messages ------------------------------------------------------ */

static void new_view(bot *b)
{
    b->rules->view_destroy(&b->view);
    b->view = b->rules->view_new(b->setup, b->seat, b->seats);
    CHECK(b->view);
}

static void on_observation(bot *b, const msgpack_object *events,
                           const msgpack_object *obs)
{
    maat_error e = {0, ""};
    int rc = b->rules->view_update(b->view, events, obs, &e);
    if (is_pyramids(b->rules) && obs) {
        static maat_pyr_state st;
        maat_error e2 = {0, ""};
        int rc2 = maat_pyr_observation_decode(obs, &st, &e2);
        if (rc2 != MAAT_OK)
            CHECK(rc2 == MAAT_EDECODE && e2.code == rc2 && e2.msg[0]);
        if (rc == MAAT_OK)
            CHECK(rc2 == MAAT_OK);
    }
    if (rc != MAAT_OK) {
        /* version 2: events alone, before any observation, are refused
         * as out of turn */
        CHECK((rc == MAAT_EDECODE || (!obs && rc == MAAT_ESTATE)) &&
              e.code == rc && e.msg[0]);
        return;
    }
    static maat_action own[4096];
    int n = b->rules->view_legal_actions(b->view, own, 4096);
    CHECK(n >= -1);
    for (int i = 0; i < n && i < 4096; i++)
        check_ranges(b->rules, &own[i]);
    maat_game *g = b->rules->determinize(b->view, &b->rng, &e);
    if (!g) {
        CHECK(e.code != MAAT_OK && e.msg[0]);
        return;
    }
    CHECK(b->rules->seats(g) == b->seats);
    check_conserved(b->rules, g);
    check_observations_wellformed(b->rules, g);
    if (obs) /* without one (version 2) the view followed the events */
        check_same_observation(b, g, obs);
    playout(b->rules, g, &b->rng);
    b->rules->destroy(&g);
}

static void on_welcome(bot *b, const msgpack_object *m)
{
    const msgpack_object *game = maat_msg_get(m, "game");
    char name[64];
    if (!game || game->type != MSGPACK_OBJECT_STR ||
        game->via.str.size > 63)
        return;
    memcpy(name, game->via.str.ptr, game->via.str.size);
    name[game->via.str.size] = 0;
    const maat_rules *r = maat_rules_find(name);
    if (!r)
        return;
    maat_error e = {0, ""};
    maat_setup *s = r->setup_decode(maat_msg_get(m, "setup"), &e);
    if (!s) {
        CHECK(e.code != MAAT_OK && e.msg[0]);
        return;
    }
    /* encode -> decode -> encode gives the same bytes */
    msgpack_sbuffer sb1, sb2;
    msgpack_packer pk1, pk2;
    pack_init(&sb1, &pk1);
    pack_init(&sb2, &pk2);
    CHECK(r->setup_encode(s, &pk1) == MAAT_OK);
    msgpack_unpacked u;
    CHECK(maat_msg_unpack(sb1.data, sb1.size, &u, &e) == MAAT_OK);
    maat_setup *s2 = r->setup_decode(&u.data, &e);
    CHECK(s2);
    CHECK(r->setup_encode(s2, &pk2) == MAAT_OK);
    CHECK(sb1.size == sb2.size && memcmp(sb1.data, sb2.data, sb1.size) == 0);
    r->setup_destroy(&s2);
    msgpack_unpacked_destroy(&u);
    msgpack_sbuffer_destroy(&sb1);
    msgpack_sbuffer_destroy(&sb2);

    b->rules->view_destroy(&b->view);
    b->rules->setup_destroy(&b->setup);
    b->rules = r;
    b->setup = s;
    new_view(b);
}

static void on_message(bot *b, const uint8_t *p, size_t len)
{
    msgpack_unpacked u;
    maat_error e = {0, ""};
    int rc = maat_msg_unpack(p, len, &u, &e);
    if (rc != MAAT_OK) {
        CHECK(rc == MAAT_EDECODE && e.code == rc && e.msg[0]);
        msgpack_unpacked_destroy(&u);
        return;
    }
    const msgpack_object *m = &u.data, *type = maat_msg_get(m, "type");
    if (maat_msg_str_eq(type, "welcome")) {
        on_welcome(b, m);
    } else if (maat_msg_str_eq(type, "start")) {
        int64_t seat, seats;
        if (maat_msg_get_int(m, "seat", 0, MAAT_MAX_SEATS - 1, &seat, &e) ==
                MAAT_OK &&
            maat_msg_get_int(m, "seats", 1, MAAT_MAX_SEATS, &seats, &e) ==
                MAAT_OK) {
            b->seat = (int)seat;
            b->seats = (int)seats;
            new_view(b);
        }
    } else if (maat_msg_str_eq(type, "request") ||
               maat_msg_str_eq(type, "end")) {
        on_observation(b, maat_msg_get(m, "events"),
                       maat_msg_get(m, "observation"));
        decode_legal(b->rules, maat_msg_get(m, "legal"));
    } else if (!type && maat_msg_get(m, "game")) {
        on_observation(b, NULL, m);
    }
    msgpack_unpacked_destroy(&u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    bot b;
    memset(&b, 0, sizeof b);
    int n_games;
    const maat_rules *const *games = maat_rules_all(&n_games);
    CHECK(n_games > 0);
    b.rules = games[data[0] % n_games];
    b.seat = data[1] & 7;
    b.seats = b.rules->min_seats +
              data[2] % (b.rules->max_seats - b.rules->min_seats + 1);
    maat_seed key;
    maat_rng_seed(&b.rng, maat_seed_from_u64(&key, data[3]));
    maat_error e = {0, ""};
    b.setup = b.rules->setup_new(NULL, &e);
    CHECK(b.setup);
    new_view(&b);

    size_t pos = 4;
    while (pos < size) {
        size_t len = data[pos];
        if (pos + 1 < size)
            len |= (size_t)data[pos + 1] << 8;
        pos += 2;
        if (pos > size)
            pos = size;
        if (len > size - pos)
            len = size - pos;
        on_message(&b, data + pos, len);
        pos += len;
    }
    b.rules->view_destroy(&b.view);
    b.rules->setup_destroy(&b.setup);
    return 0;
}
