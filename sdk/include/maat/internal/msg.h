/* msg.h -- reading msgpack from strangers, and small packing helpers.
 *
 * Internal (sdk/include/maat/internal/, not installed): the SDK, the
 * referee, the tools and the tests of this tree use it; a bot reads its
 * observation with msgpack-c's own msgpack_object (maat/bot.h).
 *
 * msgpack-c trusts the lengths it reads: a 5-byte message declaring a huge
 * array makes it allocate gigabytes before any element arrives.  So every
 * byte string that comes from outside (a bot, a file) goes through
 * maat_msg_check first, which walks the raw bytes once, without recursion,
 * and refuses a message that ends early (this is what keeps huge declared
 * counts away from msgpack-c; an impossible count is also refused at once,
 * naming it), nesting deeper than MAAT_MSG_MAX_DEPTH containers (empty ones
 * count), the unused type byte 0xc1, ext types, and trailing bytes after
 * the one top-level object.  A NULL buffer is an empty message.  The same
 * walk builds the decoded msgpack_object tree (maat_msg_decode, behind
 * maat_msg_unpack): the tree msgpack-c's msgpack_unpack would build, in a
 * msgpack-c zone, without handing untrusted bytes to msgpack-c's unpacker.
 *
 * The check does not replace a size cap: the tree takes up to ~24 bytes of
 * memory per byte of input (48 per 2-byte map entry), so cap the message
 * size first (the referee sets ZMQ_MAXMSGSIZE).
 *
 * The typed getters below return MAAT_EDECODE with a message naming the
 * field when the value is missing, of the wrong type or out of range.
 */
#ifndef MAAT_MSG_H
#define MAAT_MSG_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <msgpack.h>

#include "maat/error.h"

/* msgpack-c 4.0 cannot decode more than 32 nested containers; msgcheck.c
 * asserts this stays below that. */
#define MAAT_MSG_MAX_DEPTH 16

/* Check that buf[0..len) is exactly one well-formed msgpack object within
 * the limits above.  MAAT_OK or MAAT_EDECODE with the byte offset and reason. */
int maat_msg_check(const void *buf, size_t len, maat_error *err);

/* maat_msg_check and decoding in one pass: on MAAT_OK *out is the object,
 * its arrays and maps allocated in `zone` (freed with the zone), its
 * strings pointing into buf (keep buf alive while using them).  On a
 * refusal *out is nil and the error is maat_msg_check's. */
int maat_msg_decode(const void *buf, size_t len, msgpack_zone *zone,
                    msgpack_object *out, maat_error *err);

/* maat_msg_decode into `out` with a zone of its own (initialised here;
 * release with msgpack_unpacked_destroy even on failure).  Strings in the
 * result point into buf: keep buf alive while using them. */
int maat_msg_unpack(const void *buf, size_t len, msgpack_unpacked *out,
                    maat_error *err);

/* Map lookup by string key; NULL when absent or when o is not a map. */
const msgpack_object *maat_msg_get(const msgpack_object *map, const char *key);
/* Integer in [lo, hi] (either msgpack integer kind). */
int maat_msg_int(const msgpack_object *o, const char *field, int64_t lo,
                 int64_t hi, int64_t *out, maat_error *err);
/* Required integer field of a map. */
int maat_msg_get_int(const msgpack_object *map, const char *key, int64_t lo,
                     int64_t hi, int64_t *out, maat_error *err);
/* Optional integer field: absent or nil gives `dflt`. */
int maat_msg_get_int_or(const msgpack_object *map, const char *key,
                        int64_t lo, int64_t hi, int64_t dflt, int64_t *out,
                        maat_error *err);
/* True when o is a string equal to s. */
int maat_msg_str_eq(const msgpack_object *o, const char *s);
/* Refuse keys of `map` not in the NULL-terminated list `allowed`. */
int maat_msg_only_keys(const msgpack_object *map, const char *const *allowed,
                       const char *what, maat_error *err);

/* A msgpack_packer write callback over a msgpack_sbuffer, the same as
 * msgpack_sbuffer_write but cheap for the short writes msgpack-c makes:
 * it calls the callback once per token (several hundred times for one
 * referee request), and short copies are done inline rather than through
 * memcpy.  msgpack_packer_init(&pk, &sbuf, maat_sbuffer_write). */
int maat_sbuffer_write(void *sbuf, const char *buf, size_t len);

/* ---- packing helpers ---------------------------------------------------
 * A C string as a msgpack str, an integer in its smallest form (the bytes
 * of msgpack_pack_int64), a map entry with a string key.  The bytes are
 * exactly msgpack-c's (tests/test_msg_pack.c).  A referee request is a few
 * hundred of these, so the common case is inline: when the packer writes
 * into a msgpack_sbuffer through maat_sbuffer_write and there is room, a
 * short string or a small integer is written straight into the buffer, and
 * a string literal's length is known at compile time.  Everything else goes
 * to the out-of-line maat_pack_strn_any / maat_pack_int_any. */
void maat_pack_strn_any(msgpack_packer *pk, const char *s, size_t n);
void maat_pack_int_any(msgpack_packer *pk, int64_t v);

/* Room for n more bytes at the end of the packer's sbuffer, or NULL. */
static inline char *maat_pack_room(msgpack_packer *pk, size_t n)
{
    msgpack_sbuffer *sb = (msgpack_sbuffer *)pk->data;
    if (pk->callback != maat_sbuffer_write || sb->alloc - sb->size < n)
        return NULL;
    return sb->data + sb->size;
}

/* Room for n more bytes at the end of the packer's sbuffer, grown when
 * needed, or NULL when the packer writes elsewhere or memory runs out.
 * Write there, then add what was written to the sbuffer's size. */
char *maat_pack_reserve(msgpack_packer *pk, size_t n);
/* v in its smallest form (msgpack_pack_int64's bytes) at p, at most 9
 * bytes; returns the length. */
size_t maat_put_int(char *p, int64_t v);

static inline void maat_pack_strn(msgpack_packer *pk, const char *s,
                                  size_t n)
{
    char *p;
    if (n < 32 && (p = maat_pack_room(pk, n + 1))) { /* a fixstr */
        p[0] = (char)(0xa0 | n);
        memcpy(p + 1, s, n);
        ((msgpack_sbuffer *)pk->data)->size += n + 1;
    } else {
        maat_pack_strn_any(pk, s, n);
    }
}

static inline void maat_pack_str(msgpack_packer *pk, const char *s)
{
    maat_pack_strn(pk, s, strlen(s));
}

static inline void maat_pack_int(msgpack_packer *pk, int64_t v)
{
    char *p;
    if (v >= -32 && v < 128 && (p = maat_pack_room(pk, 1))) { /* fixint */
        p[0] = (char)(uint8_t)v;
        ((msgpack_sbuffer *)pk->data)->size++;
    } else {
        maat_pack_int_any(pk, v);
    }
}

/* A one-byte token (fixarray, fixmap, nil, false, true) in the buffer, or
 * 0 when there is no room or the packer writes elsewhere. */
static inline int maat_pack_byte(msgpack_packer *pk, unsigned char c)
{
    char *p = maat_pack_room(pk, 1);
    if (!p)
        return 0;
    p[0] = (char)c;
    ((msgpack_sbuffer *)pk->data)->size++;
    return 1;
}

/* msgpack_pack_array / _map / _nil / _true / _false, the same bytes. */
static inline void maat_pack_array(msgpack_packer *pk, size_t n)
{
    if (n >= 16 || !maat_pack_byte(pk, (unsigned char)(0x90 | n)))
        msgpack_pack_array(pk, n);
}

static inline void maat_pack_map(msgpack_packer *pk, size_t n)
{
    if (n >= 16 || !maat_pack_byte(pk, (unsigned char)(0x80 | n)))
        msgpack_pack_map(pk, n);
}

static inline void maat_pack_nil(msgpack_packer *pk)
{
    if (!maat_pack_byte(pk, 0xc0))
        msgpack_pack_nil(pk);
}

static inline void maat_pack_bool(msgpack_packer *pk, int v)
{
    if (!maat_pack_byte(pk, v ? 0xc3 : 0xc2)) {
        if (v)
            msgpack_pack_true(pk);
        else
            msgpack_pack_false(pk);
    }
}

static inline void maat_pack_kv_int(msgpack_packer *pk, const char *key,
                                    int64_t v)
{
    maat_pack_str(pk, key);
    maat_pack_int(pk, v);
}

static inline void maat_pack_kv_str(msgpack_packer *pk, const char *key,
                                    const char *v)
{
    maat_pack_str(pk, key);
    maat_pack_str(pk, v);
}

/* ---- one-pass field decoding ------------------------------------------
 * Decoding an action used to cost one maat_msg_get scan (strlen + memcmp
 * per key) per field plus maat_msg_only_keys (an O(n^2) repeat check), for
 * every legal action of every request.  maat_msg_fields does the same work
 * in one pass over the map. */

/* At most this many names in the `keys` list of maat_msg_fields. */
#define MAAT_MSG_MAX_FIELDS 16

/* One pass over a map with string keys: for each key found in `keys` (a
 * NULL-terminated list of at most MAAT_MSG_MAX_FIELDS distinct names)
 * store a pointer to its value in vals[i] (NULL when absent).  Refuses,
 * with the same messages and in the same order as maat_msg_only_keys, a
 * non-map, a non-string key, an unknown key and a repeated key; after a
 * bad key vals[i] is still the first value of keys[i] (as maat_msg_get
 * finds it), so a decoder can check the values and report a bad value
 * before the bad key.  A longer `keys` list is MAAT_EINVAL.  Fastest
 * when the map's keys come in the order of `keys`, as our encoders write
 * them. */
int maat_msg_fields(const msgpack_object *map, const char *const *keys,
                    const msgpack_object **vals, const char *what,
                    maat_error *err);

/* maat_msg_get for every name of `keys` (NULL-terminated, any length) in
 * one pass over the map: vals[i] is the first value under keys[i], or NULL.
 * Other keys, and keys that are not strings, are passed over, as
 * maat_msg_get does; a non-map gives all NULL.  For decoders of maps with
 * many fields, such as observations. */
void maat_msg_pick(const msgpack_object *map, const char *const *keys,
                   const msgpack_object **vals);

/* The n bytes at p equal the name of len bytes: at most two overlapping
 * word compares (fixed-size copies are plain loads), never reading outside
 * either string. */
static inline int maat_msg_name_is(const char *name, size_t len,
                                   const char *p, size_t n)
{
    if (len != n)
        return 0;
    if (n >= 8) {
        uint64_t a, b, c, d;
        memcpy(&a, name, 8);
        memcpy(&b, p, 8);
        memcpy(&c, name + n - 8, 8);
        memcpy(&d, p + n - 8, 8);
        return a == b && c == d && (n <= 16 || memcmp(name, p, n) == 0);
    }
    if (n >= 4) {
        uint32_t a, b, c, d;
        memcpy(&a, name, 4);
        memcpy(&b, p, 4);
        memcpy(&c, name + n - 4, 4);
        memcpy(&d, p + n - 4, 4);
        return a == b && c == d;
    }
    for (size_t i = 0; i < n; i++)
        if (name[i] != p[i])
            return 0;
    return 1;
}

/* A key with its length, for maat_msg_pickn: MAAT_MSG_KEY("seq"). */
typedef struct maat_msg_key {
    const char *name;
    size_t len;
} maat_msg_key;
#define MAAT_MSG_KEY(lit) {"" lit "", sizeof(lit) - 1}

/* maat_msg_pick with the keys' lengths known: vals[i] is the first value
 * under keys[i] (i < nk, nk <= MAAT_MSG_MAX_FIELDS), or NULL; other keys
 * and keys that are not strings are passed over; a non-map gives all
 * NULL.  A key is compared only when its length matches, a word at a
 * time: for the envelopes of messages on the per-decision path. */
void maat_msg_pickn(const msgpack_object *map, const maat_msg_key *keys,
                    int nk, const msgpack_object **vals);

/* maat_msg_get_int_or on a value already found: NULL or nil gives `dflt`. */
int maat_msg_int_or(const msgpack_object *o, const char *field, int64_t lo,
                    int64_t hi, int64_t dflt, int64_t *out, maat_error *err);

/* maat_msg_str_eq(o, lit) for a string literal: its length is known at
 * compile time, so no strlen and a short inline compare. */
#define MAAT_MSG_STR_IS(o, lit)                                              \
    maat_msg_str_eqn((o), "" lit "", sizeof(lit) - 1)
static inline int maat_msg_str_eqn(const msgpack_object *o, const char *s,
                                   size_t n)
{
    return o && o->type == MSGPACK_OBJECT_STR && o->via.str.size == n &&
           memcmp(o->via.str.ptr, s, n) == 0;
}

/* maat_msg_get(map, lit) for a string literal key, inline, without strlen
 * (the first key of a map, such as an action's "kind", costs a handful
 * of instructions). */
#define MAAT_MSG_GET(map, lit)                                               \
    maat_msg_getn((map), "" lit "", sizeof(lit) - 1)
static inline const msgpack_object *maat_msg_getn(const msgpack_object *map,
                                                  const char *key, size_t n)
{
    if (!map || map->type != MSGPACK_OBJECT_MAP)
        return NULL;
    for (uint32_t i = 0; i < map->via.map.size; i++)
        if (maat_msg_str_eqn(&map->via.map.ptr[i].key, key, n))
            return &map->via.map.ptr[i].val;
    return NULL;
}

/* maat_msg_unpack into a caller's zone, for a loop that decodes one
 * message after another: the zone's memory is reused rather than
 * allocated and freed per message.  The same checks as maat_msg_unpack;
 * the zone is cleared first, so *out (and
 * anything from an earlier call) is valid only until the next call, and
 * its strings point into buf. */
int maat_msg_unpack_zone(const void *buf, size_t len, msgpack_zone *zone,
                         msgpack_object *out, maat_error *err);

/* ---- a bot's usual answer ----------------------------------------------
 * {type: "action", seq, action, think_us} as our SDK writes it: a fixmap
 * with each of those keys at most once (in any order, type present and
 * "action") and no other, the action a fixmap of scalars (integers, nil,
 * booleans, fixstr), the other values scalars, nothing after it.  For
 * such bytes maat_msg_read_answer returns 1 with f[0..3] the values of
 * type, seq, action and think_us (NULL when absent) built in *store --
 * the very objects maat_msg_decode and then maat_msg_pickn with those
 * four keys give -- and reads each byte once; for anything else 0 (all
 * f NULL), and the caller decodes the general way, which gives the
 * verdict and the error message.  Strings point into buf. */
typedef struct maat_msg_answer {
    msgpack_object field[4];       /* type, seq, action, think_us */
    msgpack_object_kv action[15];  /* the action's entries (a fixmap) */
} maat_msg_answer;
int maat_msg_read_answer(const void *buf, size_t len, maat_msg_answer *store,
                         const msgpack_object *f[4]);

#endif
