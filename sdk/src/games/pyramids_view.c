/* pyramids_view.c -- the bot side of Pyramids hidden information: decoding
 * an observation into a (partial) maat_pyr_state, remembering what a seat
 * has seen, and sampling full states consistent with it.
 *
 * What a seat can know about a card it does not see: every card except the
 * face-down initial deal passes through the public quarry, and the "pair"
 * event says who took it.  Until the card is seen leaving (pyramid,
 * obelisk, discard), it is in that seat's hand or tomb.  determinize keeps
 * those cards with their holder and deals only the never-seen cards at
 * random, so its states agree with everything the seat has seen. */
#include <stdlib.h>
#include <string.h>

#include "maat/msg.h"
#include "pyramids_internal.h"

struct maat_view {
    const maat_setup *setup;
    int seat, seats;
    int has_observation;
    maat_pyr_state obs; /* the latest observation, unknown cards = 255 */
    /* held[j][c]: card c was taken publicly by seat j and not seen since */
    uint8_t held[MAAT_PYR_MAX_SEATS][MAAT_PYR_CARDS];
};

/* ---- decoding ------------------------------------------------------- */

static int get_cards(const msgpack_object *map, const char *key, int max,
                     uint8_t *out, uint8_t *n, maat_error *err)
{
    const msgpack_object *a = maat_msg_get(map, key);
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

static int decode_player(const msgpack_object *p, maat_pyr_seat *s,
                         maat_error *err)
{
    int64_t v;
    int rc;
    if (!p || p->type != MSGPACK_OBJECT_MAP)
        return maat_error_set(err, MAAT_EDECODE, "players[] must be maps");
    memset(s->grid, -1, sizeof s->grid);
    if ((rc = maat_msg_get_int_or(p, "god", 1, 5, 0, &v, err)))
        return rc;
    s->god = (uint8_t)v;
    const msgpack_object *pyr = maat_msg_get(p, "pyramid");
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
        s->grid[st][pos + MAAT_PYR_POS_OFFSET] = (int8_t)c;
        s->pyramid_n++;
    }
    if ((rc = get_cards(p, "obelisk", MAAT_PYR_ROUNDS, s->obelisk,
                        &s->obelisk_n, err)))
        return rc;
    if ((rc = maat_msg_get_int(p, "hand_size", 0, 3, &v, err)))
        return rc;
    s->hand_n = (uint8_t)v;
    memset(s->hand, 255, sizeof s->hand);
    if ((rc = maat_msg_get_int(p, "tomb_size", 0, MAAT_PYR_ROUNDS, &v, err)))
        return rc;
    s->tomb_n = (uint8_t)v;
    memset(s->tomb, 255, sizeof s->tomb);
    if (maat_msg_get(p, "tomb")) { /* revealed at the end */
        uint8_t n;
        if ((rc = get_cards(p, "tomb", MAAT_PYR_ROUNDS, s->tomb, &n, err)))
            return rc;
        if (n != s->tomb_n)
            return maat_error_set(err, MAAT_EDECODE, "tomb and tomb_size "
                                  "disagree");
    }
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
    if (!maat_msg_str_eq(maat_msg_get(o, "game"), "pyramids"))
        return maat_error_set(err, MAAT_EDECODE,
                              "not a pyramids observation");
    if ((rc = maat_msg_get_int(o, "seats", 2, MAAT_PYR_MAX_SEATS, &v, err)))
        return rc;
    st->seats = (int)v;
    if ((rc = maat_msg_get_int(o, "round", 1, MAAT_PYR_ROUNDS, &v, err)))
        return rc;
    st->round = (int)v;
    if ((rc = maat_msg_get_int(o, "first", 0, st->seats - 1, &v, err)))
        return rc;
    st->first = (int)v;
    if ((rc = maat_msg_get_int_or(o, "to_move", 0, st->seats - 1, -1, &v,
                                  err)))
        return rc;
    st->to_move = (int)v;
    if ((rc = maat_msg_get_int(o, "deck_size", 0, MAAT_PYR_CARDS, &v, err)))
        return rc;
    st->deck_pos = MAAT_PYR_CARDS - (int)v;
    if ((rc = maat_msg_get_int_or(o, "set_aside", 1, 4, 0, &v, err)))
        return rc;
    st->set_aside = (uint8_t)v;
    const msgpack_object *dec = maat_msg_get(o, "decision");
    st->phase = -1;
    for (int i = 0; i < 5; i++)
        if (maat_msg_str_eq(dec, phases[i]))
            st->phase = i;
    if (st->phase < 0 || (st->phase != MAAT_PYR_OVER && st->to_move < 0))
        return maat_error_set(err, MAAT_EDECODE, "field 'decision' must be "
                              "god, pair, build, keep or over, with to_move");

    const msgpack_object *q = maat_msg_get(o, "quarry");
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
    const msgpack_object *players = maat_msg_get(o, "players");
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
    if ((rc = maat_msg_get_int(o, "seat", -1, st->seats - 1, &v, err)))
        return rc;
    if (v >= 0) {
        maat_pyr_seat *me = &st->seat[v];
        uint8_t hn, tn;
        if ((rc = get_cards(o, "hand", 3, me->hand, &hn, err)) ||
            (rc = get_cards(o, "tomb", MAAT_PYR_ROUNDS, me->tomb, &tn, err)))
            return rc;
        if (hn != me->hand_n || tn != me->tomb_n)
            return maat_error_set(err, MAAT_EDECODE, "hand/tomb and their "
                                  "sizes disagree");
    }
    const msgpack_object *d = maat_msg_get(o, "discard");
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
    /* progress within the phase follows from whose turn it is */
    if (st->phase == MAAT_PYR_GOD || st->phase == MAAT_PYR_KEEP)
        st->cursor = (st->to_move - st->first + st->seats) % st->seats;
    else if (st->phase != MAAT_PYR_OVER)
        st->cursor = st->seat[st->to_move].god;
    return MAAT_OK;
}

/* The welcome's setup: {"deck_name": str, "deck": [[stones, glyph|nil]]} */
maat_setup *pyr_setup_decode(const msgpack_object *o, maat_error *err)
{
    const msgpack_object *deck = maat_msg_get(o, "deck");
    if (!deck || deck->type != MSGPACK_OBJECT_ARRAY ||
        deck->via.array.size != MAAT_PYR_CARDS) {
        maat_error_set(err, MAAT_EDECODE, "setup: 'deck' must list %d cards",
                       MAAT_PYR_CARDS);
        return NULL;
    }
    maat_setup *s = calloc(1, sizeof *s);
    if (!s) {
        maat_error_set(err, MAAT_ENOMEM, "out of memory");
        return NULL;
    }
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
        free(s);
        return NULL;
    }
    return s;
}

/* ---- the view ------------------------------------------------------- */

maat_view *pyr_view_new(const maat_setup *s, int seat, int seats)
{
    maat_view *v = calloc(1, sizeof *v);
    if (v) {
        v->setup = s;
        v->seat = seat;
        v->seats = seats;
    }
    return v;
}

void pyr_view_destroy(maat_view **v)
{
    if (v && *v) {
        free(*v);
        *v = NULL;
    }
}

static void forget(maat_view *v, int64_t card)
{
    if (card >= 0 && card < MAAT_PYR_CARDS)
        for (int j = 0; j < MAAT_PYR_MAX_SEATS; j++)
            v->held[j][card] = 0;
}

int pyr_view_update(maat_view *v, const msgpack_object *events,
                       const msgpack_object *obs, maat_error *err)
{
    if (events && events->type == MSGPACK_OBJECT_ARRAY) {
        for (uint32_t i = 0; i < events->via.array.size; i++) {
            const msgpack_object *e = &events->via.array.ptr[i];
            const msgpack_object *kind = maat_msg_get(e, "event");
            int64_t seat = -1, card = -1;
            maat_msg_get_int_or(e, "seat", 0, MAAT_PYR_MAX_SEATS - 1, -1,
                                &seat, NULL);
            maat_msg_get_int_or(e, "card", 0, MAAT_PYR_CARDS - 1, -1, &card,
                                NULL);
            if (maat_msg_str_eq(kind, "pair") && seat >= 0) {
                const msgpack_object *c = maat_msg_get(e, "cards");
                for (uint32_t k = 0; c && c->type == MSGPACK_OBJECT_ARRAY &&
                                     k < c->via.array.size && k < 2; k++) {
                    int64_t id;
                    if (!maat_msg_int(&c->via.array.ptr[k], "cards", 0,
                                      MAAT_PYR_CARDS - 1, &id, NULL))
                        v->held[seat][id] = 1;
                }
            } else if (maat_msg_str_eq(kind, "pyramid") ||
                       maat_msg_str_eq(kind, "obelisk") ||
                       maat_msg_str_eq(kind, "discard")) {
                forget(v, card);
            }
        }
    }
    maat_pyr_state st;
    int rc = maat_pyr_observation_decode(obs, &st, err);
    if (rc)
        return rc;
    if (st.seats != v->seats)
        return maat_error_set(err, MAAT_EDECODE, "observation for %d seats, "
                              "view for %d", st.seats, v->seats);
    v->obs = st;
    v->obs.deck = &v->setup->deck;
    v->has_observation = 1;
    return MAAT_OK;
}

/* Take the first `n` of pool[*at..] (already shuffled). */
static void deal_from(uint8_t *dst, int n, const uint8_t *pool, int *at)
{
    for (int i = 0; i < n; i++)
        dst[i] = pool[(*at)++];
}

maat_game *pyr_determinize(const maat_view *v, maat_rng *rng,
                              maat_error *err)
{
    if (!v->has_observation) {
        maat_error_set(err, MAAT_ESTATE, "the view has no observation yet");
        return NULL;
    }
    maat_game *g = malloc(sizeof *g);
    if (!g) {
        maat_error_set(err, MAAT_ENOMEM, "out of memory");
        return NULL;
    }
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

    /* cards known to be with a seat; the never-seen rest is the pool */
    uint8_t pool[MAAT_PYR_CARDS], mine[MAAT_PYR_MAX_SEATS][13];
    int n_pool = 0, n_mine[MAAT_PYR_MAX_SEATS] = {0};
    for (int c = 0; c < MAAT_PYR_CARDS; c++) {
        if (seen[c])
            continue;
        int holder = -1;
        for (int j = 0; j < st->seats && holder < 0; j++)
            if (j != v->seat && v->held[j][c] &&
                n_mine[j] < st->seat[j].hand_n + st->seat[j].tomb_n)
                holder = j;
        if (holder >= 0)
            mine[holder][n_mine[holder]++] = (uint8_t)c;
        else
            pool[n_pool++] = (uint8_t)c;
    }
    maat_rng_shuffle_u8(rng, pool, n_pool);
    int at = 0;
    for (int j = 0; j < st->seats; j++) {
        maat_pyr_seat *s = &st->seat[j];
        if (j == v->seat || st->phase == MAAT_PYR_OVER)
            continue;
        int slots = s->hand_n + s->tomb_n;
        if (n_pool - at < slots - n_mine[j])
            goto inconsistent;
        deal_from(mine[j] + n_mine[j], slots - n_mine[j], pool, &at);
        maat_rng_shuffle_u8(rng, mine[j], slots);
        memcpy(s->tomb, mine[j], s->tomb_n);
        memcpy(s->hand, mine[j] + s->tomb_n, s->hand_n);
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
    maat_rng_seed(&st->rng, maat_rng_next(rng));
    return g;
inconsistent:
    free(g);
    maat_error_set(err, MAAT_EDECODE, "the observation's hand, tomb and deck "
                   "sizes do not add up to the unseen cards");
    return NULL;
}

