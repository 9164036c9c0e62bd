/* architects_wire.c -- the architects' game on the wire: the components
 * in the welcome, the per-seat observation, the events and the actions, as
 * msgpack maps (documented in docs/PROTOCOL.md).
 *
 * Hidden information is simple here: everything on the table is public --
 * every pyramid, collection, held small stone and card taken, the common
 * board and the small stones on space 0, the face-up cards -- and the only
 * secrets are the orders of the face-down supply, the bag and the card
 * pile (and the seed).  So the observation is the same for every seat but
 * for its "seat" field; it gives the three sizes and never an element of
 * the three, and an event names a stone or card only once it is face up.
 *
 * Naming, kept uniform so a reader (and the hidden-information test) can
 * tell ids apart: a large stone id is always under "large" (or in
 * "common", "taken"), a small stone id under "small" (or in "space0",
 * "hand", "collection"), a card id under "card" (or in "faceup",
 * "cards"). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maat/msg.h"
#include "architects_internal.h"

static const char *const phase_names[] = {"take", "place", "small", "card",
                                          "over"};
static const char *const side_names[] = {"left", "right"};

static void pack_id_or_nil(msgpack_packer *pk, int v)
{
    if (v < 0)
        maat_pack_nil(pk);
    else
        maat_pack_int(pk, v);
}

static void pack_ids(msgpack_packer *pk, const uint8_t *ids, int n)
{
    maat_pack_array(pk, (size_t)n);
    for (int i = 0; i < n; i++)
        maat_pack_int(pk, ids[i]);
}

/* A face-down order, whose next draw is its last element, next first. */
static void pack_next_first(msgpack_packer *pk, const uint8_t *ids, int n)
{
    maat_pack_array(pk, (size_t)n);
    for (int i = n - 1; i >= 0; i--)
        maat_pack_int(pk, ids[i]);
}

/* ---- setup: the components ------------------------------------------ */

/* A board piece in the board file's notation. */
static void piece_name(const maat_arc_board *b, int p, char *out, size_t n)
{
    if (p == maat_arc_bottom(b))
        snprintf(out, n, "bottom");
    else if (p < b->n_large)
        snprintf(out, n, "%d.%d", b->space_level[p], b->space_pos[p]);
    else
        snprintf(out, n, "%d.%s", (p - b->n_large) / 2 + 1,
                 side_names[(p - b->n_large) % 2]);
}

static void pack_piece_pair(msgpack_packer *pk, const maat_arc_board *b,
                            int p, int q)
{
    char name[24];
    maat_pack_array(pk, 2);
    piece_name(b, p, name, sizeof name);
    maat_pack_str(pk, name);
    piece_name(b, q, name, sizeof name);
    maat_pack_str(pk, name);
}

int arc_setup_encode(const maat_setup *s, msgpack_packer *pk)
{
    const maat_arc_stones *st = &s->stones;
    const maat_arc_board *b = &s->board;
    maat_pack_map(pk, 7);
    maat_pack_kv_str(pk, "stones_name", s->stones_name);
    maat_pack_kv_str(pk, "cards_name", s->cards_name);
    maat_pack_kv_str(pk, "board_name", s->board_name);
    maat_pack_str(pk, "large");
    maat_pack_array(pk, (size_t)st->n_large);
    for (int i = 0; i < st->n_large; i++) {
        const maat_arc_large *l = &st->large[i];
        maat_pack_array(pk, 4);
        maat_pack_str(pk, maat_arc_colour_names[l->colour]);
        maat_pack_str(pk, maat_arc_opening_names[l->open]);
        maat_pack_bool(pk, l->sarcophagus);
        if (l->symbol)
            maat_pack_str(pk, maat_arc_symbol_names[l->symbol]);
        else
            maat_pack_nil(pk);
    }
    maat_pack_str(pk, "small");
    maat_pack_array(pk, (size_t)st->n_small);
    for (int i = 0; i < st->n_small; i++) {
        maat_pack_array(pk, 2);
        maat_pack_str(pk, maat_arc_colour_names[st->small[i].colour]);
        maat_pack_int(pk, st->small[i].workers);
    }
    maat_pack_str(pk, "cards");
    maat_pack_array(pk, (size_t)s->cards.n);
    for (int i = 0; i < s->cards.n; i++)
        maat_pack_str(pk, maat_arc_card_names[s->cards.kind[i]]);
    maat_pack_str(pk, "board");
    maat_pack_map(pk, 5);
    maat_pack_kv_int(pk, "common", b->common);
    maat_pack_kv_int(pk, "faceup", b->faceup);
    maat_pack_str(pk, "levels");
    maat_pack_array(pk, (size_t)b->levels);
    for (int l = 1; l <= b->levels; l++)
        maat_pack_int(pk, b->level_n[l]);
    maat_pack_str(pk, "spots");
    maat_pack_array(pk, (size_t)b->n_spots);
    for (int i = 0; i < b->n_spots; i++)
        pack_piece_pair(pk, b, b->spot[i][0], b->spot[i][1]);
    int pieces = maat_arc_bottom(b) + 1, n = 0;
    for (int p = 0; p < pieces; p++)
        for (int q = p + 1; q < pieces; q++)
            n += (int)(b->touch[p] >> q & 1);
    maat_pack_str(pk, "touch");
    maat_pack_array(pk, (size_t)n);
    for (int p = 0; p < pieces; p++)
        for (int q = p + 1; q < pieces; q++)
            if (b->touch[p] >> q & 1)
                pack_piece_pair(pk, b, p, q);
    return MAAT_OK;
}

/* ---- setup_decode: back to the file formats ------------------------- *
 * The welcome's components are turned back into the three files' text and
 * read by the same parsers, so a bot's setup is validated exactly like the
 * referee's.  Only words of [a-z0-9.-] are copied, so a string cannot
 * smuggle a line or a comment into the text. */

typedef struct text {
    char *buf;
    size_t len, cap;
    int bad;
} text;

__attribute__((format(printf, 2, 3)))
static void add(text *t, const char *fmt, ...)
{
    if (t->bad)
        return;
    if (!t->buf) { /* (NULL + 0 is undefined, so never format into NULL) */
        t->cap = 4096;
        t->buf = malloc(t->cap);
        if (!t->buf) {
            t->bad = 1;
            return;
        }
    }
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->bad = 1;
            return;
        }
        if ((size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = (t->cap + (size_t)n + 1) * 2;
        char *b = realloc(t->buf, cap);
        if (!b) {
            t->bad = 1;
            return;
        }
        t->buf = b;
        t->cap = cap;
    }
}

/* A string of [a-z0-9.-] (at most 23 bytes) copied to out; else 0. */
static int word(const msgpack_object *o, char out[24])
{
    if (!o || o->type != MSGPACK_OBJECT_STR || o->via.str.size == 0 ||
        o->via.str.size > 23)
        return 0;
    for (uint32_t i = 0; i < o->via.str.size; i++) {
        char c = o->via.str.ptr[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
              c == '-'))
            return 0;
        out[i] = c;
    }
    out[o->via.str.size] = 0;
    return 1;
}

static const msgpack_object *array_of(const msgpack_object *map,
                                      const char *key, uint32_t max)
{
    const msgpack_object *a = maat_msg_get(map, key);
    if (!a || a->type != MSGPACK_OBJECT_ARRAY || a->via.array.size > max)
        return NULL;
    return a;
}

static int decode_stones(const msgpack_object *o, text *t)
{
    const msgpack_object *large = array_of(o, "large", MAAT_ARC_MAX_LARGE);
    const msgpack_object *small = array_of(o, "small", MAAT_ARC_MAX_SMALL);
    if (!large || !small)
        return 0;
    for (uint32_t i = 0; i < large->via.array.size; i++) {
        const msgpack_object *e = &large->via.array.ptr[i];
        char col[24], open[24], sym[24] = "-";
        if (e->type != MSGPACK_OBJECT_ARRAY || e->via.array.size != 4 ||
            !word(&e->via.array.ptr[0], col) ||
            !word(&e->via.array.ptr[1], open) ||
            e->via.array.ptr[2].type != MSGPACK_OBJECT_BOOLEAN ||
            (e->via.array.ptr[3].type != MSGPACK_OBJECT_NIL &&
             !word(&e->via.array.ptr[3], sym)))
            return 0;
        add(t, "large %u %s %s %s %s\n", i, col, open,
            e->via.array.ptr[2].via.boolean ? "sarcophagus" : "-", sym);
    }
    for (uint32_t i = 0; i < small->via.array.size; i++) {
        const msgpack_object *e = &small->via.array.ptr[i];
        char col[24];
        int64_t w;
        if (e->type != MSGPACK_OBJECT_ARRAY || e->via.array.size != 2 ||
            !word(&e->via.array.ptr[0], col) ||
            maat_msg_int(&e->via.array.ptr[1], "workers", 1, 3, &w, NULL))
            return 0;
        add(t, "small %u %s %d\n", i, col, (int)w);
    }
    return 1;
}

static int decode_cards(const msgpack_object *o, text *t)
{
    const msgpack_object *cards = array_of(o, "cards", MAAT_ARC_MAX_CARDS);
    if (!cards)
        return 0;
    for (uint32_t i = 0; i < cards->via.array.size; i++) {
        char kind[24];
        if (!word(&cards->via.array.ptr[i], kind))
            return 0;
        add(t, "card %u %s\n", i, kind);
    }
    return 1;
}

static int pairs(const msgpack_object *board, const char *key,
                 const char *line, text *t)
{
    const msgpack_object *a = array_of(board, key, 64 * 64);
    if (!a)
        return 0;
    for (uint32_t i = 0; i < a->via.array.size; i++) {
        const msgpack_object *e = &a->via.array.ptr[i];
        char p[24], q[24];
        if (e->type != MSGPACK_OBJECT_ARRAY || e->via.array.size != 2 ||
            !word(&e->via.array.ptr[0], p) || !word(&e->via.array.ptr[1], q))
            return 0;
        add(t, "%s %s %s\n", line, p, q);
    }
    return 1;
}

static int decode_board(const msgpack_object *o, text *t)
{
    const msgpack_object *b = maat_msg_get(o, "board");
    int64_t common, faceup;
    if (maat_msg_get_int(b, "common", 0, 99, &common, NULL) ||
        maat_msg_get_int(b, "faceup", 0, 99, &faceup, NULL))
        return 0;
    add(t, "common %d\nfaceup %d\n", (int)common, (int)faceup);
    const msgpack_object *levels = array_of(b, "levels", MAAT_ARC_MAX_LEVELS);
    if (!levels)
        return 0;
    for (uint32_t i = 0; i < levels->via.array.size; i++) {
        int64_t n;
        if (maat_msg_int(&levels->via.array.ptr[i], "levels", 0,
                         MAAT_ARC_MAX_SPACES, &n, NULL))
            return 0;
        add(t, "level %u %d\n", i + 1, (int)n);
    }
    return pairs(b, "spots", "spot", t) && pairs(b, "touch", "touch", t);
}

maat_setup *arc_setup_decode(const msgpack_object *o, maat_error *err)
{
    maat_setup *s = calloc(1, sizeof *s);
    text t[3];
    memset(t, 0, sizeof t);
    if (!s) {
        maat_error_set(err, MAAT_ENOMEM, "out of memory");
        return NULL;
    }
    static const char *const what[3] = {"'large'/'small'", "'cards'",
                                        "'board'"};
    int ok[3] = {decode_stones(o, &t[0]), decode_cards(o, &t[1]),
                 decode_board(o, &t[2])};
    int rc = MAAT_OK;
    for (int i = 0; i < 3 && !rc; i++)
        if (!ok[i] || t[i].bad)
            rc = maat_error_set(err, MAAT_EDECODE, "setup: %s is missing or "
                                "malformed", what[i]);
    if (!rc)
        rc = maat_arc_stones_parse(&s->stones, t[0].buf ? t[0].buf : "",
                                   t[0].len, "setup.stones", err);
    if (!rc)
        rc = maat_arc_cards_parse(&s->cards, t[1].buf ? t[1].buf : "",
                                  t[1].len, "setup.cards", err);
    if (!rc)
        rc = maat_arc_board_parse(&s->board, t[2].buf ? t[2].buf : "",
                                  t[2].len, "setup.board", err);
    for (int i = 0; i < 3; i++)
        free(t[i].buf);
    if (rc) {
        if (err && err->code != MAAT_ENOMEM)
            err->code = MAAT_EDECODE;
        free(s);
        return NULL;
    }
    snprintf(s->stones_name, sizeof s->stones_name, "from the referee");
    snprintf(s->cards_name, sizeof s->cards_name, "from the referee");
    snprintf(s->board_name, sizeof s->board_name, "from the referee");
    return s;
}

/* ---- the observation ------------------------------------------------ */

static void pack_scores(msgpack_packer *pk, const maat_arc_state *st)
{
    maat_score sc[MAAT_ARC_MAX_SEATS];
    maat_arc_score_all(st, sc);
    maat_pack_array(pk, (size_t)st->seats);
    for (int i = 0; i < st->seats; i++) {
        const maat_arc_seat *s = &st->seat[i];
        maat_arc_detail d;
        maat_arc_score_seat(st->board, st->stones, st->cards, s, &d);
        maat_pack_map(pk, 6);
        maat_pack_kv_int(pk, "total", sc[i].total);
        maat_pack_kv_int(pk, "rank", sc[i].rank);
        maat_pack_kv_int(pk, "small_stones", d.small_stones);
        maat_pack_str(pk, "parts");
        maat_pack_map(pk, MAAT_ARC_S_PARTS);
        for (int p = 0; p < MAAT_ARC_S_PARTS; p++)
            maat_pack_kv_int(pk, maat_architects_rules.score_parts[p],
                             sc[i].part[p]);
        maat_pack_str(pk, "structure");
        maat_pack_map(pk, MAAT_ARC_COLOURS);
        for (int c = 0; c < MAAT_ARC_COLOURS; c++)
            maat_pack_kv_int(pk, maat_arc_colour_names[c], d.height[c]);
        maat_pack_str(pk, "card_points");
        maat_pack_array(pk, s->n_cards);
        for (int k = 0; k < s->n_cards; k++) {
            maat_pack_map(pk, 2);
            maat_pack_kv_int(pk, "card", s->cards[k]);
            maat_pack_kv_int(pk, "points", d.card_points[k]);
        }
    }
}

static void pack_player(msgpack_packer *pk, const maat_arc_state *st,
                        const maat_arc_seat *s)
{
    const maat_arc_board *b = st->board;
    int n = 0;
    for (int i = 0; i < b->n_large; i++)
        n += s->large[i] >= 0; /* not s->placed: hand-built states too */
    maat_pack_map(pk, 5);
    maat_pack_str(pk, "pyramid");
    maat_pack_array(pk, (size_t)n);
    for (int i = 0; i < b->n_large; i++)
        if (s->large[i] >= 0) {
            maat_pack_map(pk, 4);
            maat_pack_kv_int(pk, "large", s->large[i]);
            maat_pack_kv_int(pk, "level", b->space_level[i]);
            maat_pack_kv_int(pk, "pos", b->space_pos[i]);
            maat_pack_str(pk, "rotated");
            maat_pack_bool(pk, s->rotated[i]);
        }
    n = 0;
    for (int k = 0; k < maat_arc_n_small_spaces(b); k++)
        n += s->small[k] >= 0;
    maat_pack_str(pk, "smalls");
    maat_pack_array(pk, (size_t)n);
    for (int k = 0; k < maat_arc_n_small_spaces(b); k++)
        if (s->small[k] >= 0) {
            maat_pack_map(pk, 3);
            maat_pack_kv_int(pk, "small", s->small[k]);
            maat_pack_kv_int(pk, "level", k / 2 + 1);
            maat_pack_kv_str(pk, "side", side_names[k % 2]);
        }
    maat_pack_str(pk, "collection");
    pack_ids(pk, s->collection, s->n_collection);
    maat_pack_str(pk, "hand");
    pack_ids(pk, s->hand, s->n_hand);
    maat_pack_str(pk, "cards");
    pack_ids(pk, s->cards, s->n_cards);
}

int arc_encode_observation(const maat_game *g, int seat, msgpack_packer *pk)
{
    const maat_arc_state *st = &g->st;
    const maat_arc_board *b = st->board;
    int over = st->phase == MAAT_ARC_OVER;
    int omni = seat == MAAT_OMNISCIENT;
    maat_pack_map(pk, (over ? 17 : 16) + 3 * omni);
    maat_pack_kv_str(pk, "game", "architects");
    maat_pack_kv_int(pk, "seat", seat);
    maat_pack_kv_int(pk, "seats", st->seats);
    maat_pack_kv_int(pk, "turn", st->turn);
    maat_pack_kv_str(pk, "decision", phase_names[st->phase]);
    maat_pack_str(pk, "to_move");
    pack_id_or_nil(pk, st->to_move);
    maat_pack_str(pk, "common");
    maat_pack_array(pk, (size_t)b->common);
    for (int i = 0; i < b->common; i++)
        pack_id_or_nil(pk, st->common[i]);
    maat_pack_str(pk, "space0");
    pack_ids(pk, st->space0, st->n_space0);
    maat_pack_str(pk, "faceup");
    maat_pack_array(pk, (size_t)b->faceup);
    for (int i = 0; i < b->faceup; i++)
        pack_id_or_nil(pk, st->faceup[i]);
    maat_pack_kv_int(pk, "supply_size", st->n_supply);
    maat_pack_kv_int(pk, "bag_size", st->n_bag);
    maat_pack_kv_int(pk, "pile_size", st->n_pile);
    maat_pack_str(pk, "taken");
    pack_id_or_nil(pk, st->taken);
    maat_pack_kv_int(pk, "pending_cards", st->pending_cards);
    maat_pack_str(pk, "players");
    maat_pack_array(pk, (size_t)st->seats);
    for (int i = 0; i < st->seats; i++)
        pack_player(pk, st, &st->seat[i]);
    maat_pack_str(pk, "over");
    maat_pack_bool(pk, over);
    if (over) {
        maat_pack_str(pk, "scores");
        pack_scores(pk, st);
    }
    if (omni) { /* the secret orders (replays, never sent), next first */
        maat_pack_str(pk, "supply");
        pack_next_first(pk, st->supply, st->n_supply);
        maat_pack_str(pk, "bag");
        pack_next_first(pk, st->bag, st->n_bag);
        maat_pack_str(pk, "pile");
        pack_next_first(pk, st->pile, st->n_pile);
    }
    return MAAT_OK;
}

/* ---- events --------------------------------------------------------- */

int arc_encode_event(const maat_game *g, const maat_event *e,
                     msgpack_packer *pk)
{
    (void)g;
    const int *a = e->arg;
    switch (e->kind) {
    case MAAT_ARC_EV_REFILL:
        maat_pack_map(pk, 3);
        maat_pack_kv_str(pk, "event", "refill");
        maat_pack_kv_int(pk, "space", a[0]);
        maat_pack_kv_int(pk, "large", a[1]);
        return MAAT_OK;
    case MAAT_ARC_EV_FACEUP:
        maat_pack_map(pk, 3);
        maat_pack_kv_str(pk, "event", "faceup");
        maat_pack_kv_int(pk, "slot", a[0]);
        maat_pack_kv_int(pk, "card", a[1]);
        return MAAT_OK;
    case MAAT_ARC_EV_DRAW:
        maat_pack_map(pk, 4);
        maat_pack_kv_str(pk, "event", "draw");
        maat_pack_kv_int(pk, "seat", e->seat);
        maat_pack_kv_int(pk, "small", a[0]);
        maat_pack_str(pk, "khnum");
        maat_pack_bool(pk, a[1]);
        return MAAT_OK;
    case MAAT_ARC_EV_PAY:
        maat_pack_map(pk, 3);
        maat_pack_kv_str(pk, "event", "pay");
        maat_pack_kv_int(pk, "seat", e->seat);
        maat_pack_kv_int(pk, "small", a[0]);
        return MAAT_OK;
    case MAAT_ARC_EV_TAKE:
        maat_pack_map(pk, 5);
        maat_pack_kv_str(pk, "event", "take");
        maat_pack_kv_int(pk, "seat", e->seat);
        maat_pack_kv_int(pk, "space", a[0]);
        maat_pack_kv_int(pk, "large", a[1]);
        maat_pack_kv_int(pk, "smalls", a[2]);
        return MAAT_OK;
    case MAAT_ARC_EV_PLACE:
        maat_pack_map(pk, 6);
        maat_pack_kv_str(pk, "event", "place");
        maat_pack_kv_int(pk, "seat", e->seat);
        maat_pack_kv_int(pk, "large", a[0]);
        maat_pack_kv_int(pk, "level", a[1]);
        maat_pack_kv_int(pk, "pos", a[2]);
        maat_pack_str(pk, "rotated");
        maat_pack_bool(pk, a[3]);
        return MAAT_OK;
    case MAAT_ARC_EV_SMALL:
        maat_pack_map(pk, a[1] ? 6 : 4);
        maat_pack_kv_str(pk, "event", "small");
        maat_pack_kv_int(pk, "seat", e->seat);
        maat_pack_kv_int(pk, "small", a[0]);
        maat_pack_kv_str(pk, "to", a[1] ? "pyramid" : "collection");
        if (a[1]) {
            maat_pack_kv_int(pk, "level", a[1]);
            maat_pack_kv_str(pk, "side", side_names[a[2] ? 1 : 0]);
        }
        return MAAT_OK;
    case MAAT_ARC_EV_CARD:
        maat_pack_map(pk, 4);
        maat_pack_kv_str(pk, "event", "card");
        maat_pack_kv_int(pk, "seat", e->seat);
        maat_pack_kv_int(pk, "card", a[0]);
        maat_pack_kv_int(pk, "slot", a[1]);
        return MAAT_OK;
    case MAAT_ARC_EV_END:
        maat_pack_map(pk, 1);
        maat_pack_kv_str(pk, "event", "end");
        return MAAT_OK;
    }
    return MAAT_EINVAL;
}

/* ---- actions -------------------------------------------------------- */

int arc_encode_action(const maat_game *g, const maat_action *a,
                      msgpack_packer *pk)
{
    (void)g;
    switch (a->kind) {
    case MAAT_ARC_TAKE:
        maat_pack_map(pk, 2);
        maat_pack_kv_str(pk, "kind", "take");
        maat_pack_kv_int(pk, "space", a->arg[0]);
        return MAAT_OK;
    case MAAT_ARC_PLACE:
        maat_pack_map(pk, 5);
        maat_pack_kv_str(pk, "kind", "place");
        maat_pack_kv_int(pk, "large", a->arg[0]);
        maat_pack_kv_int(pk, "level", a->arg[1]);
        maat_pack_kv_int(pk, "pos", a->arg[2]);
        maat_pack_str(pk, "rotated");
        maat_pack_bool(pk, a->arg[3]);
        return MAAT_OK;
    case MAAT_ARC_SMALL:
        if (a->arg[1] == 0) {
            maat_pack_map(pk, 3);
            maat_pack_kv_str(pk, "kind", "small");
            maat_pack_kv_int(pk, "small", a->arg[0]);
            maat_pack_kv_str(pk, "to", "collection");
            return MAAT_OK;
        }
        maat_pack_map(pk, 5);
        maat_pack_kv_str(pk, "kind", "small");
        maat_pack_kv_int(pk, "small", a->arg[0]);
        maat_pack_kv_str(pk, "to", "pyramid");
        maat_pack_kv_int(pk, "level", a->arg[1]);
        maat_pack_kv_str(pk, "side", side_names[a->arg[2] ? 1 : 0]);
        return MAAT_OK;
    case MAAT_ARC_CARD:
        maat_pack_map(pk, 2);
        maat_pack_kv_str(pk, "kind", "card");
        maat_pack_kv_int(pk, "card", a->arg[0]);
        return MAAT_OK;
    }
    return MAAT_EINVAL;
}

int arc_decode_action(const maat_game *g, const msgpack_object *o,
                      maat_action *a, maat_error *err)
{
    (void)g;
    static const char *const take_keys[] = {"kind", "space", NULL};
    static const char *const place_keys[] = {"kind", "large", "level", "pos",
                                             "rotated", NULL};
    static const char *const coll_keys[] = {"kind", "small", "to", NULL};
    static const char *const pyr_keys[] = {"kind", "small", "to", "level",
                                           "side", NULL};
    static const char *const card_keys[] = {"kind", "card", NULL};
    int64_t v[4] = {-1, -1, -1, -1};
    const char *const *keys;  /* the keys this action may have */
    const char *const *fkeys; /* the keys looked up, keys or a superset */
    const msgpack_object *f[5]; /* the values of fkeys[] */
    int rc;
    memset(a, -1, sizeof *a);
    if (!o || o->type != MSGPACK_OBJECT_MAP)
        return maat_error_set(err, MAAT_EDECODE, "the action must be a map");
    const msgpack_object *kind = MAAT_MSG_GET(o, "kind");
    if (MAAT_MSG_STR_IS(kind, "take")) {
        a->kind = MAAT_ARC_TAKE;
        fkeys = take_keys;
    } else if (MAAT_MSG_STR_IS(kind, "place")) {
        a->kind = MAAT_ARC_PLACE;
        fkeys = place_keys;
    } else if (MAAT_MSG_STR_IS(kind, "small")) {
        a->kind = MAAT_ARC_SMALL;
        fkeys = pyr_keys; /* which keys are allowed depends on 'to' */
    } else if (MAAT_MSG_STR_IS(kind, "card")) {
        a->kind = MAAT_ARC_CARD;
        fkeys = card_keys;
    } else {
        return maat_error_set(err, MAAT_EDECODE, "field 'kind' must be one "
                              "of take, place, small, card");
    }
    /* One pass finds every field; with a bad key f[] still holds each
     * field's first value, so a bad value is reported before the bad key,
     * as this function always did. */
    int krc = maat_msg_fields(o, fkeys, f, "the action", err);
    keys = fkeys;
    switch (a->kind) {
    case MAAT_ARC_TAKE:
        rc = maat_msg_int(f[1], "space", 0, MAAT_ARC_MAX_COMMON - 1, &v[0],
                          err);
        break;
    case MAAT_ARC_PLACE:
        if ((rc = maat_msg_int(f[1], "large", 0, MAAT_ARC_MAX_LARGE - 1,
                               &v[0], err)) ||
            (rc = maat_msg_int(f[2], "level", 1, MAAT_ARC_MAX_LEVELS, &v[1],
                               err)) ||
            (rc = maat_msg_int(f[3], "pos", 0, MAAT_ARC_MAX_SPACES - 1,
                               &v[2], err)))
            ;
        else if (!f[4] || f[4]->type != MSGPACK_OBJECT_BOOLEAN)
            rc = maat_error_set(err, MAAT_EDECODE, "field 'rotated' must be "
                                "true or false");
        else
            v[3] = f[4]->via.boolean;
        break;
    case MAAT_ARC_SMALL: /* f[] = kind, small, to, level, side */
        rc = maat_msg_int(f[1], "small", 0, MAAT_ARC_MAX_SMALL - 1, &v[0],
                          err);
        if (rc) {
            keys = coll_keys;
        } else if (MAAT_MSG_STR_IS(f[2], "collection")) {
            keys = coll_keys;
            v[1] = 0;
            if (f[3] || f[4]) /* level or side: not allowed here */
                krc = 1;
        } else if (MAAT_MSG_STR_IS(f[2], "pyramid")) {
            rc = maat_msg_int(f[3], "level", 1, MAAT_ARC_MAX_LEVELS, &v[1],
                              err);
            if (!rc && MAAT_MSG_STR_IS(f[4], "left"))
                v[2] = MAAT_ARC_LEFT;
            else if (!rc && MAAT_MSG_STR_IS(f[4], "right"))
                v[2] = MAAT_ARC_RIGHT;
            else if (!rc)
                rc = maat_error_set(err, MAAT_EDECODE, "field 'side' must be "
                                    "\"left\" or \"right\"");
        } else {
            keys = coll_keys;
            rc = maat_error_set(err, MAAT_EDECODE, "field 'to' must be "
                                "\"pyramid\" or \"collection\"");
        }
        break;
    default: /* MAAT_ARC_CARD */
        rc = maat_msg_int(f[1], "card", 0, MAAT_ARC_MAX_CARDS - 1, &v[0],
                          err);
        break;
    }
    /* The values are fine but a key is not: report it exactly as before,
     * against the keys this action may have. */
    if (!rc && krc)
        rc = maat_msg_only_keys(o, keys, "the action", err);
    for (int i = 0; i < 4; i++)
        a->arg[i] = (int32_t)v[i];
    return rc;
}
