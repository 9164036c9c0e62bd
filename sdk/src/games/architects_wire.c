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

#include "maat/internal/msg.h"
#include "architects_internal.h"

static const char *const phase_names[] = {"take", "place", "small", "card",
                                          "over"};
static const char *const side_names[] = {"left", "right"};

/* ---- actions and events ---------------------------------------------- */

#define LARGE(arg) MAAT_W_INT("large", arg, 0, MAAT_ARC_MAX_LARGE - 1)
#define SMALL(arg) MAAT_W_INT("small", arg, 0, MAAT_ARC_MAX_SMALL - 1)
#define CARD(arg) MAAT_W_INT("card", arg, 0, MAAT_ARC_MAX_CARDS - 1)
#define LEVEL(arg) MAAT_W_INT("level", arg, 1, MAAT_ARC_MAX_LEVELS)
#define SLOT(arg) MAAT_W_INT("slot", arg, 0, MAAT_ARC_MAX_FACEUP - 1)
#define SPACE(arg) MAAT_W_INT("space", arg, 0, MAAT_ARC_MAX_COMMON - 1)

/* A small stone goes "to" the pyramid (arg1 = level, arg2 = side) or to
 * the collection (arg1 = 0): two variants of one kind. */
#define TO_PYRAMID MAAT_W_WHEN(1, 1, MAAT_ARC_MAX_LEVELS)
#define TO_COLLECTION MAAT_W_WHEN(1, 0, 0)

static const maat_wire_kind actions[] = {
    {MAAT_W_KIND("take", MAAT_ARC_TAKE), MAAT_W_FIELDS(SPACE(0))},
    {MAAT_W_KIND("place", MAAT_ARC_PLACE),
     MAAT_W_FIELDS(LARGE(0), LEVEL(1),
                   MAAT_W_INT("pos", 2, 0, MAAT_ARC_MAX_SPACES - 1),
                   MAAT_W_BOOL("rotated", 3))},
    {MAAT_W_KIND("small", MAAT_ARC_SMALL), TO_PYRAMID,
     MAAT_W_FIELDS(SMALL(0), MAAT_W_CONST("to", "pyramid"), LEVEL(1),
                   MAAT_W_NAME("side", 2, side_names))},
    {MAAT_W_KIND("small", MAAT_ARC_SMALL), TO_COLLECTION,
     MAAT_W_FIELDS(SMALL(0), MAAT_W_CONST("to", "collection"))},
    {MAAT_W_KIND("card", MAAT_ARC_CARD), MAAT_W_FIELDS(CARD(0))},
};

static const maat_wire_kind events[] = {
    {MAAT_W_KIND("refill", MAAT_ARC_EV_REFILL),
     MAAT_W_FIELDS(SPACE(0), LARGE(1))},
    {MAAT_W_KIND("faceup", MAAT_ARC_EV_FACEUP),
     MAAT_W_FIELDS(SLOT(0), CARD(1))},
    {MAAT_W_KIND("draw", MAAT_ARC_EV_DRAW),
     MAAT_W_FIELDS(MAAT_W_SEAT, SMALL(0), MAAT_W_BOOL("khnum", 1))},
    {MAAT_W_KIND("pay", MAAT_ARC_EV_PAY),
     MAAT_W_FIELDS(MAAT_W_SEAT, SMALL(0))},
    {MAAT_W_KIND("take", MAAT_ARC_EV_TAKE),
     MAAT_W_FIELDS(MAAT_W_SEAT, SPACE(0), LARGE(1),
                   MAAT_W_INT("smalls", 2, 0, MAAT_ARC_MAX_SMALL))},
    {MAAT_W_KIND("place", MAAT_ARC_EV_PLACE),
     MAAT_W_FIELDS(MAAT_W_SEAT, LARGE(0), LEVEL(1),
                   MAAT_W_INT("pos", 2, 0, MAAT_ARC_MAX_SPACES - 1),
                   MAAT_W_BOOL("rotated", 3))},
    {MAAT_W_KIND("small", MAAT_ARC_EV_SMALL), TO_PYRAMID,
     MAAT_W_FIELDS(MAAT_W_SEAT, SMALL(0), MAAT_W_CONST("to", "pyramid"),
                   LEVEL(1), MAAT_W_NAME("side", 2, side_names))},
    {MAAT_W_KIND("small", MAAT_ARC_EV_SMALL), TO_COLLECTION,
     MAAT_W_FIELDS(MAAT_W_SEAT, SMALL(0), MAAT_W_CONST("to", "collection"))},
    {MAAT_W_KIND("card", MAAT_ARC_EV_CARD),
     MAAT_W_FIELDS(MAAT_W_SEAT, CARD(0), SLOT(1))},
    {MAAT_W_KIND("end", MAAT_ARC_EV_END)},
};

const maat_wire maat_arc_wire_actions = MAAT_W_ACTIONS(actions);
const maat_wire maat_arc_wire_events = MAAT_W_EVENTS(events);

static void pack_id_or_nil(msgpack_packer *pk, int v)
{
    if (v < 0)
        maat_pack_nil(pk);
    else
        maat_pack_int(pk, v);
}

static void pack_ids(msgpack_packer *pk, const uint8_t *ids, int n)
{
    maat_wire_pack_u8s(pk, ids, (size_t)n);
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

int maat_arc_setup_encode(const maat_setup *s, msgpack_packer *pk)
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

maat_setup *maat_arc_setup_decode(const msgpack_object *o, maat_error *err)
{
    maat_setup *s = MAAT_KIT_SETUP_NEW("architects", err);
    text t[3];
    memset(t, 0, sizeof t);
    if (!s)
        return NULL;
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
        maat_kit_setup_destroy(&s);
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
        maat_wire_map m;
        maat_wire_map_begin(&m, pk, 6);
        maat_kit_score_head(&m, &sc[i]);
        MAAT_MAP_INT(&m, "small_stones", d.small_stones);
        maat_kit_score_parts(&m, &maat_architects_rules, &sc[i]);
        MAAT_MAP_KEY(&m, "structure");
        maat_pack_map(pk, MAAT_ARC_COLOURS);
        for (int c = 0; c < MAAT_ARC_COLOURS; c++)
            maat_pack_kv_int(pk, maat_arc_colour_names[c], d.height[c]);
        MAAT_MAP_KEY(&m, "card_points");
        maat_pack_array(pk, s->n_cards);
        for (int k = 0; k < s->n_cards; k++) {
            maat_pack_map(pk, 2);
            maat_pack_kv_int(pk, "card", s->cards[k]);
            maat_pack_kv_int(pk, "points", d.card_points[k]);
        }
        maat_wire_map_end(&m);
    }
}

static void pack_player(msgpack_packer *pk, const maat_arc_state *st,
                        const maat_arc_seat *s)
{
    const maat_arc_board *b = st->board;
    int n = 0;
    for (int i = 0; i < b->n_large; i++)
        n += s->large[i] >= 0; /* not s->placed: hand-built states too */
    maat_wire_map m;
    maat_wire_map_begin(&m, pk, 5);
    MAAT_MAP_KEY(&m, "pyramid");
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
    MAAT_MAP_KEY(&m, "smalls");
    maat_pack_array(pk, (size_t)n);
    for (int k = 0; k < maat_arc_n_small_spaces(b); k++)
        if (s->small[k] >= 0) {
            maat_pack_map(pk, 3);
            maat_pack_kv_int(pk, "small", s->small[k]);
            maat_pack_kv_int(pk, "level", k / 2 + 1);
            maat_pack_kv_str(pk, "side", side_names[k % 2]);
        }
    MAAT_MAP_KEY(&m, "collection");
    pack_ids(pk, s->collection, s->n_collection);
    MAAT_MAP_KEY(&m, "hand");
    pack_ids(pk, s->hand, s->n_hand);
    MAAT_MAP_KEY(&m, "cards");
    pack_ids(pk, s->cards, s->n_cards);
    maat_wire_map_end(&m);
}

int maat_arc_encode_observation(const maat_game *g, int seat, msgpack_packer *pk)
{
    const maat_arc_state *st = &g->st;
    const maat_arc_board *b = st->board;
    int over = st->phase == MAAT_ARC_OVER;
    maat_wire_map m;
    maat_kit_observation_begin(&m, pk, &maat_architects_rules, seat, st->seats, 16);
    MAAT_MAP_INT(&m, "turn", st->turn);
    MAAT_MAP_STR(&m, "decision", phase_names[st->phase]);
    MAAT_MAP_KEY(&m, "to_move");
    pack_id_or_nil(pk, st->to_move);
    MAAT_MAP_KEY(&m, "common");
    maat_pack_array(pk, (size_t)b->common);
    for (int i = 0; i < b->common; i++)
        pack_id_or_nil(pk, st->common[i]);
    MAAT_MAP_KEY(&m, "space0");
    pack_ids(pk, st->space0, st->n_space0);
    MAAT_MAP_KEY(&m, "faceup");
    maat_pack_array(pk, (size_t)b->faceup);
    for (int i = 0; i < b->faceup; i++)
        pack_id_or_nil(pk, st->faceup[i]);
    MAAT_MAP_INT(&m, "supply_size", st->n_supply);
    MAAT_MAP_INT(&m, "bag_size", st->n_bag);
    MAAT_MAP_INT(&m, "pile_size", st->n_pile);
    MAAT_MAP_KEY(&m, "taken");
    pack_id_or_nil(pk, st->taken);
    MAAT_MAP_INT(&m, "pending_cards", st->pending_cards);
    MAAT_MAP_KEY(&m, "players");
    maat_pack_array(pk, (size_t)st->seats);
    for (int i = 0; i < st->seats; i++)
        pack_player(pk, st, &st->seat[i]);
    MAAT_MAP_BOOL(&m, "over", over);
    if (over) {
        MAAT_MAP_KEY(&m, "scores");
        pack_scores(pk, st);
    }
    if (seat == MAAT_OMNISCIENT) { /* the secret orders (replays, never
                                    * sent), next first */
        MAAT_MAP_KEY(&m, "supply");
        pack_next_first(pk, st->supply, st->n_supply);
        MAAT_MAP_KEY(&m, "bag");
        pack_next_first(pk, st->bag, st->n_bag);
        MAAT_MAP_KEY(&m, "pile");
        pack_next_first(pk, st->pile, st->n_pile);
    }
    maat_wire_map_end(&m);
    return MAAT_OK;
}
