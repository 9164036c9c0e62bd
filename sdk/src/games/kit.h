/* kit.h -- the module kit: everything game modules share, so that a module
 * holds its rules and only its rules (private to the SDK library).
 *
 * A module's objects are laid out so:
 *
 *   struct maat_setup { maat_kit_setup kit; ...its components... };
 *   struct maat_game  { its_state st; };     (st.seats: the seat count)
 *   struct maat_view  { maat_kit_view kit; ...what a seat saw... };
 *
 * and the kit allocates, copies and frees them (every module object is
 * one flat block: it owns no memory, it may point into its setup), answers
 * seats() and starts views.  (The game has no kit part: the rules engine
 * reads it millions of times in a search bot's playouts, and its state
 * first costs nothing.)  MAAT_KIT_FUNCS and MAAT_KIT_ENTRIES put those
 * functions, and the codec derived from the module's wire declarations
 * (wire.h), into its rules table; the module writes the rest: setup_new
 * (with the kit's option check and component reader), game_new, decision,
 * is_over, legal_actions, apply, scores, encode_observation, render,
 * setup_encode, setup_decode, view_update, determinize (between
 * maat_kit_determinize_begin and _end) and view_legal_actions.  docs/ARCHITECTURE.md lists the
 * files of a new game.
 */
#ifndef MAAT_KIT_H
#define MAAT_KIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__) && !defined(MAAT_KIT_NO_VECTOR)
#include <emmintrin.h>
#endif

#include "maat/game.h"
#include "wire.h"

/* ---- the objects -------------------------------------------------------- */

typedef struct maat_kit_setup {
    const char *game;   /* the module's name, for messages */
    uint32_t game_size; /* of its struct maat_game */
    uint32_t view_size; /* of its struct maat_view */
} maat_kit_setup;

typedef struct maat_kit_view {
    const maat_setup *setup;
    int seat, seats;
    int has_observation; /* set by maat_kit_view_updated */
} maat_kit_view;

/* A zeroed setup of `size` bytes whose games and views have the sizes
 * given; NULL + err ("GAME: out of memory") on failure. */
maat_setup *maat_kit_setup_new(size_t size, const char *game,
                               size_t game_size, size_t view_size,
                               maat_error *err);
#define MAAT_KIT_SETUP_NEW(game, err)                                        \
    maat_kit_setup_new(sizeof(struct maat_setup), (game),                    \
                       sizeof(struct maat_game), sizeof(struct maat_view),   \
                       (err))
void maat_kit_setup_destroy(maat_setup **s);

/* A zeroed game for setup s; NULL + err when seats is outside min..max
 * ("GAME is for MIN to MAX seats, not N") or out of memory. */
maat_game *maat_kit_game_new(const maat_setup *s, int seats, int min,
                             int max, maat_error *err);
void maat_kit_game_destroy(maat_game **g);

maat_view *maat_kit_view_new(const maat_setup *s, int seat, int seats);
void maat_kit_view_destroy(maat_view **v);

/* A view's update decoded an observation for `seats` seats: MAAT_EDECODE
 * when the view is for another number, else it now has an observation. */
int maat_kit_view_updated(maat_kit_view *v, int seats, maat_error *err);

/* The start of determinize: a new zeroed game for the view's setup, or
 * NULL + err when the view has no observation yet. */
maat_game *maat_kit_determinize_begin(const maat_kit_view *v,
                                      maat_error *err);
/* The end: the sampled state's generator forked from rng.  With `why`, a
 * state that is not over must have a seat to move with a legal action (the
 * last defence against a forged observation), else it is destroyed and
 * NULL + err with `why` is returned; NULL when the module's observation
 * decoder already refuses such a state. */
maat_game *maat_kit_determinize_end(const maat_rules *r, maat_game *g,
                                    maat_rng *rng, maat_rng *state_rng,
                                    const char *why, maat_error *err);

/* The rules table entries the kit provides, for a module whose wire
 * declarations are `actions` and `events` (maat_wire, wire.h): the module
 * says MAAT_KIT_FUNCS(actions, events) at file scope, where struct
 * maat_game is complete, and MAAT_KIT_ENTRIES(actions, events) in its
 * table.  MAAT_KIT_ENTRIES also sets view_legal_actions to the function
 * its internal header names MAAT_KIT_VIEW_LEGAL (the view's, written
 * beside view_update: so the rules file need not change for it). */
#define MAAT_KIT_FUNCS(actions, events)                                      \
    static maat_game *kit_copy(const maat_game *g)                           \
    {                                                                        \
        maat_game *c = malloc(sizeof *c);                                    \
        if (c)                                                               \
            *c = *g;                                                         \
        return c;                                                            \
    }                                                                        \
    static int kit_seats(const maat_game *g)                                 \
    {                                                                        \
        return g->st.seats;                                                  \
    }                                                                        \
    static int kit_encode_action(const maat_game *g, const maat_action *a,   \
                                 msgpack_packer *pk)                         \
    {                                                                        \
        (void)g;                                                             \
        return maat_wire_encode(&(actions), a->kind, -1, a->arg, pk);        \
    }                                                                        \
    static int kit_decode_action(const maat_game *g, const msgpack_object *o,\
                                 maat_action *a, maat_error *err)            \
    {                                                                        \
        (void)g;                                                             \
        return maat_wire_decode_action(&(actions), o, a, err);               \
    }                                                                        \
    static int kit_encode_event(const maat_game *g, const maat_event *e,     \
                                msgpack_packer *pk)                          \
    {                                                                        \
        (void)g;                                                             \
        return maat_wire_encode(&(events), e->kind, e->seat, e->arg, pk);    \
    }

#define MAAT_KIT_ENTRIES(actions, events)                                    \
    .setup_destroy = maat_kit_setup_destroy,                                 \
    .destroy = maat_kit_game_destroy, .copy = kit_copy, .seats = kit_seats,  \
    .view_new = maat_kit_view_new,                                           \
    .view_destroy = maat_kit_view_destroy,                                   \
    .encode_action = kit_encode_action, .decode_action = kit_decode_action,  \
    .encode_event = kit_encode_event, .wire_actions = &(actions),            \
    .wire_events = &(events), .view_legal_actions = MAAT_KIT_VIEW_LEGAL

/* ---- writing legal lists ------------------------------------------------
 * A maat_action is 32 bytes: two quads of int32, (kind, arg0, arg1, arg2)
 * and (arg3 .. arg6).  A legal list written a quad at a time costs two
 * stores an action: with the gcc/clang vector extension a quad is one
 * SSE/NEON register and one 16-byte store; elsewhere a plain struct.
 * (-DMAAT_KIT_NO_VECTOR builds the plain forms here and below, to test
 * them on a machine that has the others.) */
#if defined(__GNUC__) && !defined(MAAT_KIT_NO_VECTOR)
typedef int32_t maat_kit_quad __attribute__((vector_size(16)));
#define MAAT_KIT_QUAD(a, b, c, d) {a, b, c, d}
static inline maat_kit_quad maat_kit_quad_or(maat_kit_quad x, maat_kit_quad y)
{
    return x | y;
}
#else
typedef struct maat_kit_quad {
    int32_t v[4];
} maat_kit_quad;
#define MAAT_KIT_QUAD(a, b, c, d) {{a, b, c, d}}
static inline maat_kit_quad maat_kit_quad_or(maat_kit_quad x, maat_kit_quad y)
{
    for (int i = 0; i < 4; i++)
        x.v[i] |= y.v[i];
    return x;
}
#endif

static inline maat_kit_quad maat_kit_quad_of(int32_t a, int32_t b, int32_t c,
                                             int32_t d)
{
    const maat_kit_quad q = MAAT_KIT_QUAD(a, b, c, d);
    return q;
}

/* Two consecutive int32 of an action (kind and arg0, or two args) as one
 * 64-bit word laid out as they lie in memory: a list whose actions share
 * most of their args is written as four 8-byte stores of mostly constant
 * words. */
static inline uint64_t maat_kit_pair(int32_t first, int32_t second)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return (uint64_t)(uint32_t)first << 32 | (uint32_t)second;
#else
    return (uint32_t)first | (uint64_t)(uint32_t)second << 32;
#endif
}

/* The action (kind, args) given as four pairs, at the byte address o. */
static inline void maat_kit_put_pairs(char *o, uint64_t kind_a0,
                                      uint64_t a1_a2, uint64_t a3_a4,
                                      uint64_t a5_a6)
{
    memcpy(o, &kind_a0, 8);
    memcpy(o + 8, &a1_a2, 8);
    memcpy(o + 16, &a3_a4, 8);
    memcpy(o + 24, &a5_a6, 8);
}

/* The sign bits of the 8 / 16 bytes at p, bit j for byte j: which int8
 * slots hold -1 (empty), in a few instructions -- SSE2's byte-sign gather
 * on every x86-64; elsewhere eight at a time by a multiply (byte j's sign
 * moves to bit 8j, then the multiply moves bit 8j to bit 56 + j with no
 * carries: each (byte, multiplier bit) pair lands on its own bit). */
static inline uint32_t maat_kit_signs8(const void *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w); /* byte j at bits 8j..8j+7 */
#endif
    return (uint32_t)((((w >> 7) & 0x0101010101010101ull) *
                       0x0102040810204080ull) >> 56);
}

static inline uint32_t maat_kit_signs16(const void *p)
{
#if defined(__SSE2__) && !defined(MAAT_KIT_NO_VECTOR)
    return (uint32_t)_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)p));
#else
    return maat_kit_signs8(p) | maat_kit_signs8((const char *)p + 8) << 8;
#endif
}

/* ---- setup: options and component files ---------------------------------- */

/* MAAT_EINVAL naming the first option whose key is not in `known`
 * (NULL-terminated): "GAME: unknown option 'k' (known: a, b)", or "(GAME
 * has no options)". */
int maat_kit_options_check(const maat_options *opt, const char *game,
                           const char *const *known, maat_error *err);

/* A component's parser: text[0..len) from the file `name`. */
typedef int (*maat_kit_parse_fn)(void *out, const char *text, size_t len,
                                 const char *name, maat_error *err);

/* A whole small file into a new buffer (free it): MAAT_EIO when it cannot
 * be read ("PATH: cannot open WHAT file: reason"), MAAT_EFORMAT when it has
 * cap bytes or more ("not a WHAT file"). */
int maat_kit_read_file(const char *path, const char *what, size_t cap,
                       char **text, size_t *len, maat_error *err);
/* Read and parse a component file. */
int maat_kit_load(const char *path, const char *what, maat_kit_parse_fn parse,
                  void *out, maat_error *err);

/* One component of a setup: the file named by option `key` when it is
 * set, else the reference text built into the library (`ref`, `ref_len`,
 * messages naming it `ref_file`); `name` gets the path or "reference". */
typedef struct maat_kit_component {
    const char *key;      /* the option, e.g. "deck" */
    const char *what;     /* for messages, e.g. "deck" */
    const char *ref_file; /* the reference's file name, e.g. "pyramids-deck.txt" */
    const char *ref;
    size_t ref_len;
    maat_kit_parse_fn parse;
} maat_kit_component;
int maat_kit_component_load(const maat_kit_component *c,
                            const maat_options *opt, void *out, char *name,
                            size_t name_size, maat_error *err);

/* ---- the line-and-word reader of component files ------------------------
 * A file is lines of words separated by blanks; '#' starts a comment;
 * lines of 256 bytes or more and NUL bytes are refused with "file:line:
 * reason".  maat_kit_lines calls `one` for every line with words. */
#define MAAT_KIT_MAX_WORDS 8
typedef struct maat_kit_reader {
    const char *name; /* the file, for messages */
    int line;         /* 1-based, of the line being read */
    char *w[MAAT_KIT_MAX_WORDS];
    int n;            /* words on this line; max_words + 1 when more */
    maat_error *err;
    void *out;        /* the parser's */
} maat_kit_reader;

int maat_kit_lines(maat_kit_reader *r, const char *text, size_t len,
                   int max_words, int (*one)(maat_kit_reader *r));
/* MAAT_EFORMAT with "file:line: " and the reason. */
int maat_kit_fail(maat_kit_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A decimal integer in lo..hi ("WHAT 'word' is not a number in lo..hi"). */
int maat_kit_number(maat_kit_reader *r, const char *word, const char *what,
                    int lo, int hi, int *out);

/* ---- observations -------------------------------------------------------- */

/* Every observation is a map that begins {game, seat, seats, ...}: begin
 * the counted map m (expect: its usual number of entries, wire.h) and
 * write those three. */
void maat_kit_observation_begin(maat_wire_map *m, msgpack_packer *pk,
                                const maat_rules *r, int seat, int seats,
                                uint32_t expect);

/* The start of each seat's entry under "scores": {total, rank, [extra
 * entries the caller adds], parts: {name: points, ...}}.  Pass the map
 * the entry is written into (begun by the caller). */
void maat_kit_score_head(maat_wire_map *m, const maat_score *sc);
void maat_kit_score_parts(maat_wire_map *m, const maat_rules *r,
                          const maat_score *sc);
/* "scores": an array of the seats' {total, rank, parts}. */
void maat_kit_pack_scores(msgpack_packer *pk, const maat_rules *r,
                          const maat_score *sc, int seats);

#endif
