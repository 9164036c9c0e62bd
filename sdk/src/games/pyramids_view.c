/* pyramids_view.c -- the bot side of Pyramids hidden information: decoding
 * an observation into a (partial) maat_pyr_state, remembering what a seat
 * has seen, and sampling full states consistent with it.
 *
 * What a seat can know about another seat's hidden cards: every card but
 * the face-down initial deal passes through the public quarry, and the
 * "pair" event says who took it; pyramid, obelisk and discard events show
 * cards leaving that hand; a tomb event says one card of the hand went face
 * down, not which.  So the view keeps each seat's public history, and
 * determinize replays it: at each tomb event it sends face down one of the
 * cards then in hand that is never seen leaving the hand later (the card
 * that went down cannot come back).  The initial card is known once it is
 * seen leaving; until then it is drawn from the never-seen cards.  Samples
 * thus agree with everything the seat has seen, also about which cards are
 * in a hand and which in a tomb. */
#include <stdlib.h>
#include <string.h>

#include "maat/internal/msg.h"
#include "pyramids_internal.h"

/* ---- decoding ------------------------------------------------------- */

/* The array of cards a (a field named key, NULL when absent). */
static int get_cards(const msgpack_object *a, const char *key, int max,
                     uint8_t *out, uint8_t *n, maat_error *err)
{
    if (!a || a->type != MSGPACK_OBJECT_ARRAY || (int)a->via.array.size > max)
        return maat_error_set(err, MAAT_EDECODE, "field '%s' must be an "
                              "array of at most %d cards", key, max);
    for (uint32_t i = 0; i < a->via.array.size; i++) {
        int64_t c;
        int rc = maat_msg_int(&a->via.array.ptr[i], key, 0,
                              MAAT_PYR_CARDS - 1, &c, err);
        if (rc)
            return rc;
        out[i] = (uint8_t)c;
    }
    *n = (uint8_t)a->via.array.size;
    return MAAT_OK;
}

/* A pyramid a game can reach: the base grows from position 0 without gaps
 * and has at most 4 cards; every upper card rests on the two below it.
 * The engine relies on this, so a forged observation must not get past. */
static int check_pyramid_shape(const maat_pyr_seat *s, maat_error *err)
{
    int lo = 99, hi = -99, base = 0;
    for (int i = 0; i < MAAT_PYR_POSITIONS; i++)
        if (s->grid[0][i] >= 0) {
            int p = i - MAAT_PYR_POS_OFFSET;
            lo = p < lo ? p : lo;
            hi = p > hi ? p : hi;
            base++;
        }
    if (s->pyramid_n > 0 && (base == 0 || lo > 0 || hi < 0 ||
                             hi - lo + 1 != base || base > 4))
        return maat_error_set(err, MAAT_EDECODE, "pyramid: the base must be "
                              "1 to 4 adjacent cards that include position 0");
    for (int st = 1; st < MAAT_PYR_STAGES; st++)
        for (int i = 0; i < MAAT_PYR_POSITIONS; i++)
            if (s->grid[st][i] >= 0 &&
                (i + 1 >= MAAT_PYR_POSITIONS || s->grid[st - 1][i] < 0 ||
                 s->grid[st - 1][i + 1] < 0))
                return maat_error_set(err, MAAT_EDECODE, "pyramid: the card "
                                      "at stage %d position %d does not rest "
                                      "on two cards", st,
                                      i - MAAT_PYR_POS_OFFSET);
    return MAAT_OK;
}

static int decode_player(const msgpack_object *p, maat_pyr_seat *s,
                         maat_error *err)
{
    int64_t v;
    int rc;
    if (!p || p->type != MSGPACK_OBJECT_MAP)
        return maat_error_set(err, MAAT_EDECODE, "players[] must be maps");
    enum { GOD, PYRAMID, OBELISK, HAND_SIZE, TOMB_SIZE, TOMB, N };
    static const char *const keys[N + 1] = {
        "god", "pyramid", "obelisk", "hand_size", "tomb_size", "tomb", NULL};
    const msgpack_object *f[N];
    maat_msg_pick(p, keys, f);
    memset(s->grid, -1, sizeof s->grid);
    if ((rc = maat_msg_int_or(f[GOD], "god", 1, 5, 0, &v, err)))
        return rc;
    s->god = (uint8_t)v;
    const msgpack_object *pyr = f[PYRAMID];
    if (!pyr || pyr->type != MSGPACK_OBJECT_ARRAY || pyr->via.array.size > 10)
        return maat_error_set(err, MAAT_EDECODE, "field 'pyramid' must be an "
                              "array of at most 10 [card, stage, pos]");
    s->pyramid_n = 0;
    for (uint32_t i = 0; i < pyr->via.array.size; i++) {
        const msgpack_object *e = &pyr->via.array.ptr[i];
        int64_t c, st, pos;
        if (e->type != MSGPACK_OBJECT_ARRAY || e->via.array.size != 3)
            return maat_error_set(err, MAAT_EDECODE, "pyramid entries are "
                                  "[card, stage, pos]");
        if ((rc = maat_msg_int(&e->via.array.ptr[0], "pyramid card", 0,
                               MAAT_PYR_CARDS - 1, &c, err)) ||
            (rc = maat_msg_int(&e->via.array.ptr[1], "pyramid stage", 0,
                               MAAT_PYR_STAGES - 1, &st, err)) ||
            (rc = maat_msg_int(&e->via.array.ptr[2], "pyramid pos",
                               -MAAT_PYR_POS_OFFSET, MAAT_PYR_POS_OFFSET,
                               &pos, err)))
            return rc;
        if (s->grid[st][pos + MAAT_PYR_POS_OFFSET] >= 0)
            return maat_error_set(err, MAAT_EDECODE, "pyramid: stage %d "
                                  "position %d is listed twice", (int)st,
                                  (int)pos);
        s->grid[st][pos + MAAT_PYR_POS_OFFSET] = (int8_t)c;
        s->pyramid_n++;
    }
    if ((rc = check_pyramid_shape(s, err)))
        return rc;
    if ((rc = get_cards(f[OBELISK], "obelisk", MAAT_PYR_ROUNDS, s->obelisk,
                        &s->obelisk_n, err)))
        return rc;
    if ((rc = maat_msg_int(f[HAND_SIZE], "hand_size", 0, 3, &v, err)))
        return rc;
    s->hand_n = (uint8_t)v;
    memset(s->hand, 255, sizeof s->hand);
    if ((rc = maat_msg_int(f[TOMB_SIZE], "tomb_size", 0, MAAT_PYR_ROUNDS, &v,
                           err)))
        return rc;
    s->tomb_n = (uint8_t)v;
    memset(s->tomb, 255, sizeof s->tomb);
    if (f[TOMB]) { /* revealed at the end */
        uint8_t n;
        if ((rc = get_cards(f[TOMB], "tomb", MAAT_PYR_ROUNDS, s->tomb, &n,
                            err)))
            return rc;
        if (n != s->tomb_n)
            return maat_error_set(err, MAAT_EDECODE, "tomb and tomb_size "
                                  "disagree");
    }
    return MAAT_OK;
}

/* Mark card c seen; remember it in *dup if it was seen already. */
static void see(uint8_t *seen, int c, int *dup)
{
    if (c < 0 || c >= MAAT_PYR_CARDS)
        return;
    if (seen[c])
        *dup = c;
    seen[c] = 1;
}

/* Mark every card the state shows; *dup: one shown twice, if any. */
static void shown_cards(const maat_pyr_state *st, uint8_t *seen, int *dup)
{
    for (int j = 0; j < st->seats; j++) {
        const maat_pyr_seat *s = &st->seat[j];
        for (int k = 0; k < MAAT_PYR_STAGES * MAAT_PYR_POSITIONS; k++)
            see(seen, s->grid[k / MAAT_PYR_POSITIONS][k % MAAT_PYR_POSITIONS],
                dup);
        for (int k = 0; k < s->obelisk_n; k++)
            see(seen, s->obelisk[k], dup);
        for (int k = 0; k < s->hand_n; k++)
            if (s->hand[k] != MAAT_PYR_UNKNOWN)
                see(seen, s->hand[k], dup);
        for (int k = 0; k < s->tomb_n; k++)
            if (s->tomb[k] != MAAT_PYR_UNKNOWN)
                see(seen, s->tomb[k], dup);
    }
    for (int i = 0; i < st->discard_n; i++)
        see(seen, st->discard[i], dup);
    for (int i = 0; i < st->seats; i++)
        for (int k = 0; k < 2; k++)
            see(seen, st->quarry[i][k], dup);
}

/* No card may be seen in two places at once. */
static int check_distinct(const maat_pyr_state *st, maat_error *err)
{
    uint8_t seen[MAAT_PYR_CARDS] = {0};
    int dup = -1;
    shown_cards(st, seen, &dup);
    if (dup >= 0)
        return maat_error_set(err, MAAT_EDECODE, "card %d is seen in two "
                              "places", dup);
    return MAAT_OK;
}

int maat_pyr_observation_decode(const msgpack_object *o, maat_pyr_state *st,
                                maat_error *err)
{
    static const char *const phases[] = {"god", "pair", "build", "keep",
                                         "over"};
    int64_t v;
    int rc;
    memset(st, 0, sizeof *st);
    memset(st->order, 255, sizeof st->order);
    memset(st->quarry, -1, sizeof st->quarry);
    memset(st->tile_owner, -1, sizeof st->tile_owner);
    if (!o || o->type != MSGPACK_OBJECT_MAP)
        return maat_error_set(err, MAAT_EDECODE,
                              "the observation must be a map");
    /* one pass over the map for every field (a bot decodes one observation
     * per request) */
    enum { GAME, SEAT, SEATS, ROUND, FIRST, DECISION, TO_MOVE, DECK_SIZE,
           SET_ASIDE, QUARRY, HAND, TOMB, DISCARD, PLAYERS, N };
    static const char *const keys[N + 1] = {
        "game", "seat", "seats", "round", "first", "decision", "to_move",
        "deck_size", "set_aside", "quarry", "hand", "tomb", "discard",
        "players", NULL};
    const msgpack_object *f[N];
    maat_msg_pick(o, keys, f);
    if (!MAAT_MSG_STR_IS(f[GAME], "pyramids"))
        return maat_error_set(err, MAAT_EDECODE,
                              "not a pyramids observation");
    if ((rc = maat_msg_int(f[SEATS], "seats", 2, MAAT_PYR_MAX_SEATS, &v, err)))
        return rc;
    st->seats = (int)v;
    if ((rc = maat_msg_int(f[ROUND], "round", 1, MAAT_PYR_ROUNDS, &v, err)))
        return rc;
    st->round = (int)v;
    if ((rc = maat_msg_int(f[FIRST], "first", 0, st->seats - 1, &v, err)))
        return rc;
    st->first = (int)v;
    if ((rc = maat_msg_int_or(f[TO_MOVE], "to_move", 0, st->seats - 1, -1, &v,
                                  err)))
        return rc;
    st->to_move = (int)v;
    if ((rc = maat_msg_int(f[DECK_SIZE], "deck_size", 0, MAAT_PYR_CARDS, &v, err)))
        return rc;
    /* the deck size follows from the round: one card per seat, then a
     * quarry of one pair per seat each round */
    if (v != MAAT_PYR_CARDS - st->seats - 2 * st->seats * st->round)
        return maat_error_set(err, MAAT_EDECODE, "field 'deck_size' is %d; "
                              "round %d with %d seats leaves %d", (int)v,
                              st->round, st->seats,
                              MAAT_PYR_CARDS - st->seats -
                                  2 * st->seats * st->round);
    st->deck_pos = MAAT_PYR_CARDS - (int)v;
    if ((rc = maat_msg_int_or(f[SET_ASIDE], "set_aside", 1, 4, 0, &v, err)))
        return rc;
    st->set_aside = (uint8_t)v;
    const msgpack_object *dec = f[DECISION];
    st->phase = -1;
    for (int i = 0; i < 5; i++)
        if (maat_msg_str_eq(dec, phases[i]))
            st->phase = i;
    if (st->phase < 0 || (st->phase != MAAT_PYR_OVER && st->to_move < 0))
        return maat_error_set(err, MAAT_EDECODE, "field 'decision' must be "
                              "god, pair, build, keep or over, with to_move");

    const msgpack_object *q = f[QUARRY];
    if (!q || q->type != MSGPACK_OBJECT_ARRAY ||
        (int)q->via.array.size != st->seats)
        return maat_error_set(err, MAAT_EDECODE, "field 'quarry' must have "
                              "one entry per seat");
    for (int i = 0; i < st->seats; i++) {
        const msgpack_object *pair = &q->via.array.ptr[i];
        if (pair->type == MSGPACK_OBJECT_NIL)
            continue;
        for (int k = 0; k < 2; k++) {
            if (pair->type != MSGPACK_OBJECT_ARRAY ||
                pair->via.array.size != 2 ||
                (rc = maat_msg_int(&pair->via.array.ptr[k], "quarry", 0,
                                   MAAT_PYR_CARDS - 1, &v, err)))
                return maat_error_set(err, MAAT_EDECODE, "quarry entries "
                                      "are [card, card] or nil");
            st->quarry[i][k] = (int8_t)v;
        }
    }
    const msgpack_object *players = f[PLAYERS];
    if (!players || players->type != MSGPACK_OBJECT_ARRAY ||
        (int)players->via.array.size != st->seats)
        return maat_error_set(err, MAAT_EDECODE, "field 'players' must have "
                              "one entry per seat");
    for (int j = 0; j < st->seats; j++) {
        if ((rc = decode_player(&players->via.array.ptr[j], &st->seat[j],
                                err)))
            return rc;
        if (st->seat[j].god)
            st->tile_owner[st->seat[j].god] = (int8_t)j;
    }
    if ((rc = maat_msg_int(f[SEAT], "seat", -1, st->seats - 1, &v, err)))
        return rc;
    if (v >= 0) {
        maat_pyr_seat *me = &st->seat[v];
        uint8_t hn, tn;
        if ((rc = get_cards(f[HAND], "hand", 3, me->hand, &hn, err)) ||
            (rc = get_cards(f[TOMB], "tomb", MAAT_PYR_ROUNDS, me->tomb, &tn, err)))
            return rc;
        if (hn != me->hand_n || tn != me->tomb_n)
            return maat_error_set(err, MAAT_EDECODE, "hand/tomb and their "
                                  "sizes disagree");
    }
    const msgpack_object *d = f[DISCARD];
    if (!d || d->type != MSGPACK_OBJECT_ARRAY ||
        d->via.array.size > MAAT_PYR_CARDS)
        return maat_error_set(err, MAAT_EDECODE, "field 'discard' must be an "
                              "array of cards");
    for (uint32_t i = 0; i < d->via.array.size; i++) {
        if ((rc = maat_msg_int(&d->via.array.ptr[i], "discard", 0,
                               MAAT_PYR_CARDS - 1, &v, err)))
            return rc;
        st->discard[i] = (uint8_t)v;
    }
    st->discard_n = (int)d->via.array.size;
    if ((rc = check_distinct(st, err)))
        return rc;
    /* progress within the phase follows from whose turn it is */
    if (st->phase == MAAT_PYR_GOD || st->phase == MAAT_PYR_KEEP)
        st->cursor = (st->to_move - st->first + st->seats) % st->seats;
    else if (st->phase != MAAT_PYR_OVER)
        st->cursor = st->seat[st->to_move].god;
    return MAAT_OK;
}

/* The welcome's setup: {"deck_name": str, "deck": [[stones, glyph|nil]]} */
maat_setup *maat_pyr_setup_decode(const msgpack_object *o, maat_error *err)
{
    const msgpack_object *deck = maat_msg_get(o, "deck");
    if (!deck || deck->type != MSGPACK_OBJECT_ARRAY ||
        deck->via.array.size != MAAT_PYR_CARDS) {
        maat_error_set(err, MAAT_EDECODE, "setup: 'deck' must list %d cards",
                       MAAT_PYR_CARDS);
        return NULL;
    }
    maat_setup *s = MAAT_KIT_SETUP_NEW("pyramids", err);
    if (!s)
        return NULL;
    snprintf(s->deck_name, sizeof s->deck_name, "from the referee");
    for (int i = 0; i < MAAT_PYR_CARDS; i++) {
        const msgpack_object *c = &deck->via.array.ptr[i];
        const msgpack_object *stones = c->type == MSGPACK_OBJECT_ARRAY &&
                                       c->via.array.size == 2
                                           ? &c->via.array.ptr[0] : NULL;
        maat_pyr_card *card = &s->deck.card[i];
        if (!stones || stones->type != MSGPACK_OBJECT_STR ||
            stones->via.str.size < 2 || stones->via.str.size > 3)
            goto bad;
        card->n_stones = (uint8_t)stones->via.str.size;
        for (uint32_t k = 0; k < stones->via.str.size; k++) {
            const char *p = strchr("BWRGY", stones->via.str.ptr[k]);
            if (!p || !*p)
                goto bad;
            card->stone[k] = (uint8_t)(p - "BWRGY");
        }
        const msgpack_object *g = &c->via.array.ptr[1];
        card->glyph = MAAT_PYR_GLYPH_NONE;
        for (int k = 1; k < 4; k++)
            if (maat_msg_str_eq(g, maat_pyr_glyph_names[k]))
                card->glyph = (uint8_t)k;
        if (g->type != MSGPACK_OBJECT_NIL && !card->glyph)
            goto bad;
        continue;
    bad:
        maat_error_set(err, MAAT_EDECODE, "setup: card %d must be [stones "
                       "(2-3 of BWRGY), glyph or nil]", i);
        maat_kit_setup_destroy(&s);
        return NULL;
    }
    maat_pyr_deck_derive(&s->deck);
    return s;
}

/* ---- the view ------------------------------------------------------- */

static void add_step(maat_view *v, int64_t seat, int kind, int64_t card,
                     int64_t card2)
{
    if (seat < 0 || seat >= v->kit.seats || seat == v->kit.seat)
        return;
    if (v->n_steps[seat] == PYR_MAX_STEPS) {
        v->overflow = 1;
        return;
    }
    pyr_step st = {(uint8_t)kind, (uint8_t)card, (uint8_t)card2};
    v->steps[seat][v->n_steps[seat]++] = st;
}

/* ---- following the events (protocol version 2) ----------------------
 * Without an observation the view applies the events to the latest one
 * and runs the round's state machine as pyramids.c does (the same phase,
 * to_move and cursor), so that it holds exactly what the observation
 * would hold: tests/test_view_delta.c compares the two over random games.
 * Events are checked against the state (whose turn, which cards); one
 * that does not fit fails the update, and the bot asks for the
 * observation (a resync). */

#define FOLLOW_FAIL(...) maat_error_set(err, MAAT_EDECODE, __VA_ARGS__)

/* Take card c (UNKNOWN: a card the view cannot see) from seat s's hand.
 * The view's own hand keeps the engine's order, unused entries 255 as
 * the observation decoder leaves them. */
static int follow_leave(maat_pyr_seat *s, int mine, int c)
{
    if (s->hand_n == 0)
        return -1;
    if (!mine) {
        s->hand_n--;
        return 0;
    }
    int i = 0;
    while (i < s->hand_n && s->hand[i] != c)
        i++;
    if (i == s->hand_n)
        return -1;
    for (; i + 1 < s->hand_n; i++)
        s->hand[i] = s->hand[i + 1];
    s->hand[--s->hand_n] = MAAT_PYR_UNKNOWN;
    return 0;
}

static void follow_keep(maat_view *v);

/* A card leaves an unknown hand (another seat's) into sight: it must not
 * be in sight already.  Kept per card, so no message costs a pass over
 * the whole state (the observation decoder's check_distinct). */
static int follow_show(maat_view *v, int card)
{
    if (v->shown[card])
        return -1;
    v->shown[card] = 1;
    return 0;
}

/* May seat s put a card at (stage, index)?  The shape check_pyramid_shape
 * holds every pyramid to, for the one new card: the first at position 0,
 * the base growing beside itself to at most 4, an upper card on two. */
static int follow_spot_ok(const maat_pyr_seat *s, int stage, int i)
{
    if (stage > 0)
        return i + 1 < MAAT_PYR_POSITIONS && s->grid[stage - 1][i] >= 0 &&
               s->grid[stage - 1][i + 1] >= 0;
    int base = 0;
    for (int k = 0; k < MAAT_PYR_POSITIONS; k++)
        base += s->grid[0][k] >= 0;
    if (base == 0)
        return i == MAAT_PYR_POS_OFFSET;
    return base < 4 && ((i > 0 && s->grid[0][i - 1] >= 0) ||
                        (i + 1 < MAAT_PYR_POSITIONS && s->grid[0][i + 1] >= 0));
}

/* pyramids.c's end_round and next_pair, without the chance: the next
 * round's deal arrives as its own events. */
static void follow_end_round(maat_view *v)
{
    maat_pyr_state *st = &v->obs;
    memset(st->tile_owner, -1, sizeof st->tile_owner);
    for (int i = 0; i < st->seats; i++)
        st->seat[i].god = 0;
    st->cursor = 0;
    if (st->round == MAAT_PYR_ROUNDS) {
        st->phase = MAAT_PYR_OVER;
        st->to_move = -1;
        return;
    }
    if (st->seats == 2)
        st->set_aside = (uint8_t)(st->set_aside % 4 + 1);
    follow_keep(v);
}

static void follow_pair(maat_view *v)
{
    maat_pyr_state *st = &v->obs;
    for (int t = st->cursor + 1; t <= 5; t++)
        if (st->tile_owner[t] >= 0) {
            st->cursor = t;
            st->phase = MAAT_PYR_PAIR;
            st->to_move = st->tile_owner[t];
            return;
        }
    follow_end_round(v);
}

static void follow_keep(maat_view *v)
{
    maat_pyr_state *st = &v->obs;
    if (pyr_next_keeper(st))
        return;
    /* the next round: its "round" and "quarry" events follow */
    st->phase = MAAT_PYR_GOD;
    st->cursor = 0;
    st->to_move = st->first;
}

/* A build's events are pyramid, then tomb and obelisk if any: it is over
 * at the next other event or at the end of the message. */
static void follow_close_build(maat_view *v)
{
    if (v->build_open) {
        v->build_open = 0;
        follow_pair(v);
    }
}

static int follow_event(maat_view *v, int kind, int seat, const int32_t *a,
                        maat_error *err)
{
    maat_pyr_state *st = &v->obs;
    int me = v->kit.seat;
    if (kind != MAAT_PYR_EV_ROUND && kind != MAAT_PYR_EV_QUARRY &&
        kind != MAAT_PYR_EV_END && (seat < 0 || seat >= st->seats))
        return FOLLOW_FAIL("event for seat %d of %d", seat, st->seats);
    maat_pyr_seat *s = seat >= 0 ? &st->seat[seat] : NULL;
    int mine = seat == me;
    if (v->build_open && !((kind == MAAT_PYR_EV_TOMB ||
                            kind == MAAT_PYR_EV_OBELISK) &&
                           seat == st->to_move))
        follow_close_build(v);
    switch (kind) {
    case MAAT_PYR_EV_ROUND:
        if (a[0] != st->round || a[1] != st->first ||
            (st->seats == 2) != (a[2] > 0))
            return FOLLOW_FAIL("round %d (first %d) where round %d (first "
                               "%d) was due", a[0], a[1], st->round,
                               st->first);
        st->set_aside = (uint8_t)a[2];
        memset(st->quarry, -1, sizeof st->quarry);
        st->deck_pos = st->seats + 2 * st->seats * st->round;
        return MAAT_OK;
    case MAAT_PYR_EV_QUARRY:
        if (a[0] >= st->seats || st->phase != MAAT_PYR_GOD ||
            st->quarry[a[0]][0] >= 0)
            return FOLLOW_FAIL("quarry pair %d dealt out of turn", a[0]);
        if (a[1] == a[2] || follow_show(v, a[1]) || follow_show(v, a[2]))
            return FOLLOW_FAIL("quarry pair %d shows a card seen already",
                               a[0]);
        st->quarry[a[0]][0] = (int8_t)a[1];
        st->quarry[a[0]][1] = (int8_t)a[2];
        return MAAT_OK;
    case MAAT_PYR_EV_GOD:
        if (st->phase != MAAT_PYR_GOD || seat != st->to_move ||
            a[0] > pyr_tiles(st->seats) || a[0] == st->set_aside ||
            st->tile_owner[a[0]] >= 0)
            return FOLLOW_FAIL("seat %d took tile %d out of turn", seat,
                               a[0]);
        st->tile_owner[a[0]] = (int8_t)seat;
        s->god = (uint8_t)a[0];
        if (++st->cursor < st->seats) {
            st->to_move = (st->first + st->cursor) % st->seats;
        } else {
            st->cursor = 0;
            follow_pair(v);
        }
        return MAAT_OK;
    case MAAT_PYR_EV_PAIR:
        if (st->phase != MAAT_PYR_PAIR || seat != st->to_move ||
            a[0] >= st->seats || st->quarry[a[0]][0] != a[1] ||
            st->quarry[a[0]][1] != a[2] || s->hand_n > 1)
            return FOLLOW_FAIL("seat %d took pair %d out of turn", seat,
                               a[0]);
        if (mine) {
            s->hand[s->hand_n] = (uint8_t)a[1];
            s->hand[s->hand_n + 1] = (uint8_t)a[2];
        } else { /* out of sight, into a hand the view cannot see */
            v->shown[a[1]] = v->shown[a[2]] = 0;
        }
        s->hand_n += 2;
        st->quarry[a[0]][0] = st->quarry[a[0]][1] = -1;
        st->phase = MAAT_PYR_BUILD;
        return MAAT_OK;
    case MAAT_PYR_EV_PYRAMID: {
        int8_t *spot = &s->grid[a[1]][a[2] + MAAT_PYR_POS_OFFSET];
        if (st->phase != MAAT_PYR_BUILD || seat != st->to_move ||
            *spot >= 0 || s->pyramid_n >= 10 ||
            !follow_spot_ok(s, a[1], a[2] + MAAT_PYR_POS_OFFSET) ||
            (!mine && follow_show(v, a[0])) || follow_leave(s, mine, a[0]))
            return FOLLOW_FAIL("seat %d built out of turn", seat);
        *spot = (int8_t)a[0];
        s->pyramid_n++;
        v->build_open = 1;
        return MAAT_OK;
    }
    case MAAT_PYR_EV_TOMB:
        if (!v->build_open || (mine && a[0] < 0) ||
            s->tomb_n >= MAAT_PYR_ROUNDS || follow_leave(s, mine, a[0]))
            return FOLLOW_FAIL("seat %d's tomb out of turn", seat);
        if (mine)
            s->tomb[s->tomb_n] = (uint8_t)a[0];
        s->tomb_n++;
        return MAAT_OK;
    case MAAT_PYR_EV_OBELISK:
        if (!v->build_open || s->obelisk_n >= MAAT_PYR_ROUNDS ||
            (!mine && follow_show(v, a[0])) || follow_leave(s, mine, a[0]))
            return FOLLOW_FAIL("seat %d's obelisk out of turn", seat);
        s->obelisk[s->obelisk_n++] = (uint8_t)a[0];
        return MAAT_OK;
    case MAAT_PYR_EV_DISCARD:
        /* a card not kept, or (the game over) one left in hand */
        if (!((st->phase == MAAT_PYR_KEEP && seat == st->to_move) ||
              st->phase == MAAT_PYR_OVER) ||
            st->discard_n >= MAAT_PYR_CARDS ||
            (!mine && follow_show(v, a[0])) || follow_leave(s, mine, a[0]))
            return FOLLOW_FAIL("seat %d discarded out of turn", seat);
        st->discard[st->discard_n++] = (uint8_t)a[0];
        if (st->phase == MAAT_PYR_KEEP && s->hand_n == 1) {
            st->cursor++;
            follow_keep(v);
        }
        return MAAT_OK;
    case MAAT_PYR_EV_DEAL:
    case MAAT_PYR_EV_KEEP:
        /* the deal comes before any observation; a keep follows the
         * discards that left the kept card alone in the hand */
        if (kind == MAAT_PYR_EV_DEAL || !mine || s->hand_n != 1 ||
            s->hand[0] != a[0])
            return FOLLOW_FAIL("an unexpected %s event",
                               kind == MAAT_PYR_EV_DEAL ? "deal" : "keep");
        return MAAT_OK;
    case MAAT_PYR_EV_END:
        if (st->phase != MAAT_PYR_OVER)
            return FOLLOW_FAIL("the game ended early");
        return MAAT_OK;
    }
    return FOLLOW_FAIL("unknown event kind %d", kind);
}

/* Before the end a seat's observation shows its own hand and tomb and no
 * other seat's: determinize deals every other hidden card, and relies on
 * it (a forged observation of another seat would leave cards unknown or
 * in two places). */
static int shows_own_cards_only(const maat_pyr_state *st, int me)
{
    for (int j = 0; j < st->seats; j++) {
        const maat_pyr_seat *s = &st->seat[j];
        for (int k = 0; k < s->hand_n + s->tomb_n; k++) {
            int c = k < s->hand_n ? s->hand[k] : s->tomb[k - s->hand_n];
            if ((c != MAAT_PYR_UNKNOWN) != (j == me))
                return 0;
        }
    }
    return 1;
}

int maat_pyr_view_update(maat_view *v, const msgpack_object *events,
                    const msgpack_object *obs, maat_error *err)
{
    int follow = !obs, rc = MAAT_OK;
    if (follow && !v->kit.has_observation)
        return maat_error_set(err, MAAT_ESTATE,
                              "no observation to follow yet");
    if (follow && (!events || events->type != MSGPACK_OBJECT_ARRAY))
        rc = maat_error_set(err, MAAT_EDECODE, "events must be an array");
    if (follow && !v->shown_valid) { /* once per observation */
        memset(v->shown, 0, sizeof v->shown);
        int dup = -1;
        shown_cards(&v->obs, v->shown, &dup);
        v->shown_valid = 1;
    }
    /* an event's decoding error: its code and an empty message set per
     * event, not all 260 bytes zeroed (~37 instructions an event) */
    maat_error e2;
    for (uint32_t i = 0; events && events->type == MSGPACK_OBJECT_ARRAY &&
                         i < events->via.array.size; i++) {
        int kind, seat;
        int32_t a[MAAT_ACTION_ARGS];
        e2.code = 0;
        e2.msg[0] = '\0';
        if (maat_wire_decode(&maat_pyr_wire_events, &events->via.array.ptr[i],
                             &kind, &seat, a, &e2)) {
            /* with an observation a broken event only loses its step;
             * without, the view cannot follow */
            if (follow && !rc)
                rc = maat_error_set(err, MAAT_EDECODE, "event %u: %s", i,
                                    e2.msg);
            continue;
        }
        /* every event's step, even after a failure: a resync brings the
         * observation but not the events again */
        if (kind == MAAT_PYR_EV_PAIR)
            add_step(v, seat, PYR_STEP_TAKE, a[1], a[2]);
        else if (kind == MAAT_PYR_EV_PYRAMID || kind == MAAT_PYR_EV_OBELISK ||
                 kind == MAAT_PYR_EV_DISCARD)
            add_step(v, seat, PYR_STEP_LEAVE, a[0], 0);
        else if (kind == MAAT_PYR_EV_TOMB)
            add_step(v, seat, PYR_STEP_TOMB, 0, 0);
        if (follow && !rc)
            rc = follow_event(v, kind, seat, a, err);
    }
    if (follow) {
        if (!rc)
            follow_close_build(v);
        if (rc) /* until an observation comes: no samples from a broken view */
            v->kit.has_observation = 0;
        return rc;
    }
    maat_pyr_state st;
    rc = maat_pyr_observation_decode(obs, &st, err);
    if (rc)
        return rc;
    if ((rc = maat_kit_view_updated(&v->kit, st.seats, err)))
        return rc;
    if (st.phase != MAAT_PYR_OVER && !shows_own_cards_only(&st, v->kit.seat)) {
        v->kit.has_observation = 0;
        return maat_error_set(err, MAAT_EDECODE, "the observation is not "
                              "seat %d's: it must show that seat's hand and "
                              "tomb, and no other's", v->kit.seat);
    }
    v->obs = st;
    v->obs.deck = &v->kit.setup->deck;
    v->build_open = 0;
    v->shown_valid = 0;
    return MAAT_OK;
}

/* ---- the legal list (protocol version 3) ------------------------------
 * The rules' own legal_actions on the view's state, as it is: a seat's
 * decisions read only what it sees (the tiles, the quarry, its own hand,
 * kept in the engine's order), and the view's state is the observation
 * the referee would send (tests/test_view_delta.c compares the lists). */
int maat_pyr_view_legal_actions(const maat_view *v, maat_action *out, int cap)
{
    if (!v->kit.has_observation ||
        (v->obs.phase != MAAT_PYR_OVER && v->obs.to_move != v->kit.seat))
        return -1;
    return maat_pyramids_rules.legal_actions(&v->as_game, out, cap);
}

#define UNSEEN 255 /* the seat's face-down initial card, not yet seen */
#define INCONSISTENT "the events seen and the observation disagree (hand, " \
                     "tomb and deck sizes do not add up)"

/* Replay seat j's public history: fill hand[] and tomb[] with card ids,
 * UNSEEN for the initial card while it has not been seen.  Returns -1 if
 * the history contradicts itself (a message was lost or forged). */
static int replay(const maat_view *v, int j, maat_rng *rng, uint8_t *hand,
                  int *hn, uint8_t *tomb, int *tn)
{
    const pyr_step *h = v->steps[j];
    int n = v->n_steps[j];
    uint8_t taken[MAAT_PYR_CARDS] = {0};
    int initial = UNSEEN;
    for (int i = 0; i < n; i++)
        if (h[i].kind == PYR_STEP_TAKE)
            taken[h[i].card] = taken[h[i].card2] = 1;
    for (int i = 0; i < n; i++) /* a card leaving that was never taken */
        if (h[i].kind == PYR_STEP_LEAVE && !taken[h[i].card])
            initial = h[i].card;
    *hn = *tn = 0;
    hand[(*hn)++] = (uint8_t)initial;
    for (int i = 0; i < n; i++) {
        if (h[i].kind == PYR_STEP_TAKE) {
            if (*hn > 1)
                return -1;
            hand[(*hn)++] = h[i].card;
            hand[(*hn)++] = h[i].card2;
        } else if (h[i].kind == PYR_STEP_LEAVE) {
            int k = 0;
            while (k < *hn && hand[k] != h[i].card)
                k++;
            if (k == *hn)
                return -1;
            hand[k] = hand[--*hn];
        } else {
            /* candidates: in hand now and never seen leaving later */
            int cand[3], nc = 0;
            for (int k = 0; k < *hn; k++) {
                int later = 0;
                for (int m = i + 1; m < n && !later; m++)
                    later = h[m].kind == PYR_STEP_LEAVE && h[m].card == hand[k];
                if (!later)
                    cand[nc++] = k;
            }
            if (nc == 0 || *tn >= MAAT_PYR_ROUNDS)
                return -1;
            int k = cand[maat_rng_below(rng, (uint32_t)nc)];
            tomb[(*tn)++] = hand[k];
            hand[k] = hand[--*hn];
        }
    }
    return 0;
}

/* Would the cards a replay put in a hand and tomb be in two places: seen
 * elsewhere already (in the observation, or another seat's replay), or
 * twice in it?  Only a forged history does that. */
static int replay_clashes(const uint8_t *seen, const uint8_t *hand, int hn,
                          const uint8_t *tomb, int tn)
{
    uint8_t mine[MAAT_PYR_CARDS] = {0};
    for (int k = 0; k < hn + tn; k++) {
        int c = k < hn ? hand[k] : tomb[k - hn];
        if (c != UNSEEN && (seen[c] || mine[c]++))
            return 1;
    }
    return 0;
}

maat_game *maat_pyr_determinize(const maat_view *v, maat_rng *rng,
                              maat_error *err)
{
    maat_game *g = maat_kit_determinize_begin(&v->kit, err);
    if (!g)
        return NULL;
    maat_pyr_state *st = &g->st;
    *st = v->obs;
    uint8_t seen[MAAT_PYR_CARDS] = {0};
    for (int j = 0; j < st->seats; j++) {
        const maat_pyr_seat *s = &st->seat[j];
        for (int k = 0; k < MAAT_PYR_STAGES * MAAT_PYR_POSITIONS; k++)
            if (s->grid[k / MAAT_PYR_POSITIONS][k % MAAT_PYR_POSITIONS] >= 0)
                seen[s->grid[k / MAAT_PYR_POSITIONS]
                            [k % MAAT_PYR_POSITIONS]] = 1;
        for (int k = 0; k < s->obelisk_n; k++)
            seen[s->obelisk[k]] = 1;
        for (int k = 0; k < s->hand_n; k++)
            if (s->hand[k] != 255)
                seen[s->hand[k]] = 1;
        for (int k = 0; k < s->tomb_n; k++)
            if (s->tomb[k] != 255)
                seen[s->tomb[k]] = 1;
    }
    for (int i = 0; i < st->discard_n; i++)
        seen[st->discard[i]] = 1;
    for (int i = 0; i < st->seats; i++)
        for (int k = 0; k < 2; k++)
            if (st->quarry[i][k] >= 0)
                seen[st->quarry[i][k]] = 1;

    /* other seats: their public histories, replayed */
    uint8_t hand[MAAT_PYR_MAX_SEATS][13], tomb[MAAT_PYR_MAX_SEATS][13];
    int hn[MAAT_PYR_MAX_SEATS] = {0}, tn[MAAT_PYR_MAX_SEATS] = {0};
    for (int j = 0; j < st->seats; j++) {
        if (j == v->kit.seat || st->phase == MAAT_PYR_OVER)
            continue;
        if (v->overflow ||
            replay(v, j, rng, hand[j], &hn[j], tomb[j], &tn[j]) != 0 ||
            hn[j] != st->seat[j].hand_n || tn[j] != st->seat[j].tomb_n ||
            replay_clashes(seen, hand[j], hn[j], tomb[j], tn[j])) {
            /* a history with gaps (the view was not fed every message) or
             * forged: fall back to what the observation alone says */
            hn[j] = st->seat[j].hand_n;
            tn[j] = st->seat[j].tomb_n;
            memset(hand[j], UNSEEN, sizeof hand[j]);
            memset(tomb[j], UNSEEN, sizeof tomb[j]);
        }
        for (int k = 0; k < hn[j]; k++)
            if (hand[j][k] != UNSEEN)
                seen[hand[j][k]] = 1;
        for (int k = 0; k < tn[j]; k++)
            if (tomb[j][k] != UNSEEN)
                seen[tomb[j][k]] = 1;
    }
    /* the never-seen cards: the initial cards still hidden, and the deck */
    uint8_t pool[MAAT_PYR_CARDS];
    int n_pool = 0, at = 0;
    for (int c = 0; c < MAAT_PYR_CARDS; c++)
        if (!seen[c])
            pool[n_pool++] = (uint8_t)c;
    maat_rng_shuffle_u8(rng, pool, n_pool);
    for (int j = 0; j < st->seats; j++) {
        if (j == v->kit.seat || st->phase == MAAT_PYR_OVER)
            continue;
        for (int k = 0; k < hn[j] + tn[j]; k++) {
            uint8_t *c = k < hn[j] ? &hand[j][k] : &tomb[j][k - hn[j]];
            if (*c == UNSEEN) {
                if (at == n_pool)
                    goto inconsistent;
                *c = pool[at++];
            }
        }
        memcpy(st->seat[j].hand, hand[j], (size_t)hn[j]);
        memcpy(st->seat[j].tomb, tomb[j], (size_t)tn[j]);
    }
    /* the deck: what is left, behind everything already dealt */
    int deck_size = MAAT_PYR_CARDS - st->deck_pos;
    if (n_pool - at != deck_size)
        goto inconsistent;
    int k = 0;
    uint8_t in_deck[MAAT_PYR_CARDS] = {0};
    for (int i = at; i < n_pool; i++)
        in_deck[pool[i]] = 1;
    for (int c = 0; c < MAAT_PYR_CARDS; c++)
        if (!in_deck[c])
            st->order[k++] = (uint8_t)c;
    memcpy(st->order + k, pool + at, (size_t)deck_size);
    /* the last line of defence against a forged observation: a sampled
     * game that is not over must have a seat to move and a legal action */
    return maat_kit_determinize_end(&maat_pyramids_rules, g, rng, &st->rng,
                                    INCONSISTENT, err);
inconsistent:
    maat_kit_game_destroy(&g);
    maat_error_set(err, MAAT_EDECODE, INCONSISTENT);
    return NULL;
}

