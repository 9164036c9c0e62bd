/* wire.h -- a game's messages declared once (private to the SDK library).
 *
 * Each action kind and each event kind of a game is one maat_wire_kind:
 * its name, and its fields in wire order, each with its type, the action
 * or event arg that holds it, the range a decoder accepts and who may see
 * it.  From these declarations the kit encodes actions and events (a map:
 * the tag -- "kind" for actions, "event" for events -- then the fields;
 * the map's size counted from the declaration), decodes actions (types,
 * ranges, unknown and repeated keys, each refusal naming the field) and
 * appends events to a list with the visibility declared (maat_wire_emit).
 * The declarations are also in the rules table (wire_actions,
 * wire_events), so tests read them: the hidden-information proof checks
 * every event a seat receives against its declared visibility.
 *
 * A Pyramids build action, as declared in pyramids_wire.c:
 *
 *   {MAAT_W_KIND("build", MAAT_PYR_BUILD),
 *    MAAT_W_FIELDS(MAAT_W_INT("card", 0, 0, MAAT_PYR_CARDS - 1),
 *                  MAAT_W_INT("stage", 1, 0, MAAT_PYR_STAGES - 1),
 *                  MAAT_W_INT("pos", 2, -3, 3),
 *                  MAAT_W_INT_OR_NIL("tomb", 3, 0, MAAT_PYR_CARDS - 1, -1),
 *                  MAAT_W_INT_OR_NIL("obelisk", 4, 0, MAAT_PYR_CARDS - 1,
 *                                    -1))}
 *
 * is {"kind": "build", "card": 12, "stage": 0, "pos": -1, "tomb": nil,
 * "obelisk": 40} with arg[0..4] = 12, 0, -1, -1, 40.
 *
 * Variants: several kinds may share a name and kind number when one arg
 * decides their shape (an Architects small stone goes "to" the pyramid,
 * with a level and a side, or to the collection).  Each variant says for
 * which values of that arg it is used (MAAT_W_WHEN) and holds, at the same
 * place, a MAAT_W_CONST field whose string tells the variants apart when
 * decoding; variants are declared next to each other.
 *
 * Observations stay code -- which entries a seat sees is the game's
 * business -- but their maps count their own entries (maat_wire_map).
 */
#ifndef MAAT_WIRE_H
#define MAAT_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <msgpack.h>

#include "maat/game.h"
#include "maat/internal/msg.h"

enum { /* (the encoder tests INT and INT_OR_NIL first: keep them first) */
    MAAT_WT_INT,         /* arg as an integer in lo..hi */
    MAAT_WT_INT_OR_NIL,  /* nil when arg == nil, else an integer in lo..hi */
    MAAT_WT_OPT,         /* left out when arg == nil (events only) */
    MAAT_WT_BOOL,        /* false when arg is 0, else true */
    MAAT_WT_NAME,        /* names[arg], arg in 0..hi */
    MAAT_WT_NAME_OR_NIL, /* nil when arg < 0, else names[arg] */
    MAAT_WT_PAIR,        /* [arg, arg + 1], integers (events only) */
    MAAT_WT_SEAT,        /* the event's seat (events only) */
    MAAT_WT_CONST,       /* the string names[0]: a variant's tag */
    MAAT_WT_INT_MAP,     /* map(arg) as an integer (encode only) */
    MAAT_WT_NAME_MAP     /* names[map(arg)] (encode only) */
};

/* Keys and kind names are short (at most 14 bytes), each kept as the 16
 * bytes of its msgpack fixstr (the header byte, then the name padded with
 * NULs), so the encoder writes each with one fixed-size copy. */
#define MAAT_WIRE_NAME_MAX 14
#define MAAT_W_HDR_(s) ((unsigned char)(0xa0 | (sizeof(s) - 1)))

typedef struct maat_wire_field {
    unsigned char key_hdr; /* key_hdr and key: the fixstr, 16 bytes */
    char key[MAAT_WIRE_NAME_MAX + 1];
    uint8_t key_len;
    uint8_t type;  /* MAAT_WT_* */
    uint8_t arg;   /* the arg that holds the value */
    uint8_t owner; /* only the event's seat sees it: the others' copy of
                    * the event has the field's nil and leaves it out */
    int32_t lo, hi; /* the range decoding accepts; for names, 0..count-1 */
    int32_t nil;    /* INT_OR_NIL, OPT: the arg value written as nil/left out */
    const char *const *names;
    int (*map)(int v); /* *_MAP: the value written is map(arg) */
} maat_wire_field;

/* Who sees an event: everyone; only its seat; everyone, but the others'
 * copy leaves out the kind's owner-only fields (MAAT_W_OWNER_ONLY). */
enum { MAAT_W_ALL, MAAT_W_OWNER, MAAT_W_SPLIT };

typedef struct maat_wire_kind {
    unsigned char name_hdr; /* name_hdr and name: the fixstr, 16 bytes */
    char name[MAAT_WIRE_NAME_MAX + 1];
    uint8_t name_len;
    uint8_t seen_by; /* events: MAAT_W_ALL, MAAT_W_OWNER or MAAT_W_SPLIT */
    uint8_t variant; /* a variant, used when arg[when_arg] is in when_lo..hi */
    uint8_t when_arg;
    int32_t when_lo, when_hi;
    int kind; /* the action kind (decision kind) or event kind */
    int n_fields;
    const maat_wire_field *fields;
} maat_wire_kind;

struct maat_wire {
    unsigned char tag_hdr; /* tag_hdr and tag: the fixstr, 16 bytes */
    char tag[MAAT_WIRE_NAME_MAX + 1]; /* "kind" or "event" */
    uint8_t tag_len;
    uint8_t n_args;   /* MAAT_ACTION_ARGS or MAAT_EVENT_ARGS */
    const char *what; /* "the action": refusals say "the action has ..." */
    int n_kinds;
    const maat_wire_kind *kinds;
};

/* ---- declaring ------------------------------------------------------------ */

#define MAAT_W_KEY_(k, t, a) .key_hdr = MAAT_W_HDR_(k), .key = k,              \
                             .key_len = sizeof(k) - 1, .type = (t),         \
                             .arg = (a)
#define MAAT_W_COUNT_(a) ((int32_t)(sizeof(a) / sizeof((a)[0])) - 1)

#define MAAT_W_INT(k, a, l, h) {MAAT_W_KEY_(k, MAAT_WT_INT, a), .lo = (l), .hi = (h)}
#define MAAT_W_INT_OR_NIL(k, a, l, h, n)                                     \
    {MAAT_W_KEY_(k, MAAT_WT_INT_OR_NIL, a), .lo = (l), .hi = (h), .nil = (n)}
#define MAAT_W_BOOL(k, a) {MAAT_W_KEY_(k, MAAT_WT_BOOL, a), .lo = 0, .hi = 1}
#define MAAT_W_NAME(k, a, tbl)                                             \
    {MAAT_W_KEY_(k, MAAT_WT_NAME, a), .hi = MAAT_W_COUNT_(tbl), .names = (tbl)}
#define MAAT_W_NAME_OR_NIL(k, a, tbl)                                      \
    {MAAT_W_KEY_(k, MAAT_WT_NAME_OR_NIL, a), .hi = MAAT_W_COUNT_(tbl),    \
     .names = (tbl)}
#define MAAT_W_PAIR(k, a, l, h) {MAAT_W_KEY_(k, MAAT_WT_PAIR, a), .lo = (l), .hi = (h)}
#define MAAT_W_SEAT {MAAT_W_KEY_("seat", MAAT_WT_SEAT, 0), .lo = 0,           \
                     .hi = MAAT_MAX_SEATS - 1}
#define MAAT_W_CONST(k, s)                                                   \
    {MAAT_W_KEY_(k, MAAT_WT_CONST, 0), .names = (const char *const[]){s}}
/* An integer only the event's seat sees; the others' copy leaves it out. */
#define MAAT_W_OWNER_ONLY(k, a, l, h, n)                                     \
    {MAAT_W_KEY_(k, MAAT_WT_OPT, a), .lo = (l), .hi = (h), .nil = (n), .owner = 1}
/* Encoded from a function of the arg (events: a place as x, y, z); a kind
 * with such a field is encoded only, never decoded. */
#define MAAT_W_INT_MAP(k, a, fn) {MAAT_W_KEY_(k, MAAT_WT_INT_MAP, a), .map = (fn)}
#define MAAT_W_NAME_MAP(k, a, tbl, fn)                                     \
    {MAAT_W_KEY_(k, MAAT_WT_NAME_MAP, a), .hi = MAAT_W_COUNT_(tbl),       \
     .names = (tbl), .map = (fn)}

#define MAAT_W_KIND(nm, k) .name_hdr = MAAT_W_HDR_(nm), .name = nm,            \
                           .name_len = sizeof(nm) - 1, .kind = (k)
#define MAAT_W_WHEN(a, l, h) .variant = 1, .when_arg = (a), .when_lo = (l),   \
                             .when_hi = (h)
#define MAAT_W_FIELDS(...)                                                   \
    .fields = (const maat_wire_field[]){__VA_ARGS__},                        \
    .n_fields = (int)(sizeof((const maat_wire_field[]){__VA_ARGS__}) /       \
                      sizeof(maat_wire_field))

#define MAAT_W_ACTIONS(kinds_)                                               \
    {.tag_hdr = 0xa4, .tag = "kind", .tag_len = 4,                           \
     .n_args = MAAT_ACTION_ARGS,                                             \
     .what = "the action", .n_kinds = MAAT_W_COUNT_(kinds_) + 1,             \
     .kinds = (kinds_)}
#define MAAT_W_EVENTS(kinds_)                                                \
    {.tag_hdr = 0xa5, .tag = "event", .tag_len = 5,                          \
     .n_args = MAAT_EVENT_ARGS,                                              \
     .what = "the event", .n_kinds = MAAT_W_COUNT_(kinds_) + 1,              \
     .kinds = (kinds_)}

/* MAAT_EINVAL naming the game and the first kind or field at fault: args
 * outside n_args, names without a table, a kind number outside the rules'
 * decision or event kinds (n_kinds) or named otherwise there (names),
 * variants that do not fit together.  maat_rules_check runs it on both
 * declarations. */
int maat_wire_check(const maat_wire *w, const char *const *names,
                    int n_kinds, const char *game, maat_error *err);

/* ---- using ---------------------------------------------------------------- */

/* The declaration used for (kind, arg), or NULL. */
const maat_wire_kind *maat_wire_find(const maat_wire *w, int kind,
                                     const int32_t *arg);
/* A kind by its name on the wire: the first of its variants, or NULL. */
const maat_wire_kind *maat_wire_named(const maat_wire *w, const char *name,
                                      size_t len);

/* 1 when (kind, arg) is a declared kind with every field in its declared
 * range and every arg no field uses -1 (what a decoder may produce), else
 * 0.  The fuzzers hold every decoded action to it. */
int maat_wire_fits(const maat_wire *w, int kind, const int32_t *arg);

/* The map for an action (seat unused) or an event; MAAT_EINVAL when the
 * kind is not declared. */
int maat_wire_encode(const maat_wire *w, int kind, int seat,
                     const int32_t *arg, msgpack_packer *pk);

/* Decode one message of w into kind, seat (events; may be NULL) and
 * arg[0..w->n_args) (-1 where no field sets them).  MAAT_EDECODE naming
 * the field: not a map, an unknown tag, a field missing, of the wrong type
 * or out of range, then unknown or repeated keys. */
int maat_wire_decode(const maat_wire *w, const msgpack_object *o, int *kind,
                     int *seat, int32_t *arg, maat_error *err);
/* maat_wire_decode without its fast path for the usual message (the tag,
 * then the fields in declaration order, every value an integer in range):
 * the same results for every input, which tests/test_wire_decode.c checks
 * by comparing the two. */
int maat_wire_decode_general(const maat_wire *w, const msgpack_object *o,
                             int *kind, int *seat, int32_t *arg,
                             maat_error *err);
static inline int maat_wire_decode_action(const maat_wire *w,
                                          const msgpack_object *o,
                                          maat_action *a, maat_error *err)
{
    return maat_wire_decode(w, o, &a->kind, NULL, a->arg, err);
}

/* Append event (kind, seat, a0..a3) to ev (nothing when ev is NULL) with
 * its declared visibility: everyone, or only `seat` (MAAT_W_OWNER); for
 * MAAT_W_SPLIT two copies -- the other seats' with the owner-only
 * field's nil, then the seat's own. */
void maat_wire_emit_slow(maat_events *ev, const maat_wire *w, int kind,
                         int seat, int a0, int a1, int a2, int a3);
static inline void maat_wire_emit(maat_events *ev, const maat_wire *w,
                                  int kind, int seat, int a0, int a1, int a2,
                                  int a3)
{
    if (ev) /* playouts pass no list: nothing is built */
        maat_wire_emit_slow(ev, w, kind, seat, a0, a1, a2, a3);
}

/* ---- maps that count their entries ----------------------------------------
 * maat_wire_map_begin leaves room for a map header and remembers where;
 * each entry's key goes through MAAT_MAP_KEY (or MAAT_MAP_INT, ...);
 * maat_wire_map_end writes the count into the header.  The bytes are
 * those of msgpack_pack_map(count) followed by the entries.  `expect` is
 * the usual number of entries: it sizes the header (1 byte below 16, else
 * 3), and a wrong guess costs moving the entries once.  A packer that
 * does not write into a msgpack_sbuffer through maat_sbuffer_write is
 * redirected into one until the outermost map ends, then given the
 * bytes. */
typedef struct maat_wire_map {
    msgpack_packer *pk;
    size_t at;   /* offset of the header in the buffer */
    size_t head; /* bytes left for it */
    uint32_t n;
    /* the caller's packer while redirected (outermost map only) */
    msgpack_sbuffer own;
    int (*callback)(void *data, const char *buf, size_t len);
    void *data;
} maat_wire_map;

void maat_wire_map_begin_any(maat_wire_map *m, msgpack_packer *pk,
                             uint32_t expect);
void maat_wire_map_end_any(maat_wire_map *m);

/* (inline: an observation has a map per seat and more) */
static inline void maat_wire_map_begin(maat_wire_map *m, msgpack_packer *pk,
                                       uint32_t expect)
{
    char *p = maat_pack_room(pk, 5);
    if (!p) {
        maat_wire_map_begin_any(m, pk, expect);
        return;
    }
    msgpack_sbuffer *sb = pk->data;
    m->pk = pk;
    m->n = 0;
    m->callback = NULL;
    m->at = sb->size;
    m->head = expect < 16 ? 1 : 3;
    p[0] = (char)0x80; /* patched at the end */
    sb->size += m->head;
}

static inline void maat_wire_map_end(maat_wire_map *m)
{
    msgpack_sbuffer *sb = m->pk->data;
    uint32_t n = m->n;
    if (m->callback || m->head != (n < 16 ? 1u : n < 65536 ? 3u : 5u)) {
        maat_wire_map_end_any(m);
        return;
    }
    unsigned char *h = (unsigned char *)sb->data + m->at;
    if (n < 16) {
        h[0] = (unsigned char)(0x80 | n);
    } else {
        h[0] = 0xde;
        h[1] = (unsigned char)(n >> 8);
        h[2] = (unsigned char)n;
    }
}

static inline void maat_wire_map_keyn(maat_wire_map *m, const char *k,
                                      size_t n)
{
    m->n++;
    maat_pack_strn(m->pk, k, n);
}
/* The key of the next entry: a string literal. */
#define MAAT_MAP_KEY(m, lit) maat_wire_map_keyn((m), "" lit "", sizeof(lit) - 1)
#define MAAT_MAP_INT(m, lit, v)                                              \
    do {                                                                     \
        MAAT_MAP_KEY(m, lit);                                                \
        maat_pack_int((m)->pk, (v));                                         \
    } while (0)
#define MAAT_MAP_STR(m, lit, s)                                              \
    do {                                                                     \
        MAAT_MAP_KEY(m, lit);                                                \
        maat_pack_str((m)->pk, (s));                                         \
    } while (0)
#define MAAT_MAP_BOOL(m, lit, v)                                             \
    do {                                                                     \
        MAAT_MAP_KEY(m, lit);                                                \
        maat_pack_bool((m)->pk, (v));                                        \
    } while (0)

/* An array of small unsigned numbers (card and stone ids): the bytes of
 * msgpack_pack_array and msgpack_pack_int per element, written at once. */
void maat_wire_pack_u8s(msgpack_packer *pk, const uint8_t *v, size_t n);

/* nil when v == nil, else the integer v */
static inline void maat_wire_int_or_nil(msgpack_packer *pk, int v, int nil)
{
    if (v == nil)
        maat_pack_nil(pk);
    else
        maat_pack_int(pk, v);
}

#endif
