/* msg.h -- reading msgpack from strangers, and small packing helpers.
 *
 * msgpack-c trusts the lengths it reads: a 5-byte message declaring a huge
 * array makes it allocate gigabytes before any element arrives.  So every
 * byte string that comes from outside (a bot, a file) goes through
 * maat_msg_check first, which walks the raw bytes once, without recursion,
 * and refuses a message that ends early (this is what keeps huge declared
 * counts away from msgpack-c; an impossible count is also refused at once,
 * naming it), nesting deeper than MAAT_MSG_MAX_DEPTH containers (empty ones
 * count), the unused type byte 0xc1, ext types, and trailing bytes after
 * the one top-level object.  A NULL buffer is an empty message.  Only then
 * does maat_msg_unpack hand the bytes to msgpack-c.
 *
 * The check does not replace a size cap: msgpack-c still spends up to ~24
 * bytes of memory per byte of input (48 per 2-byte map entry), so cap the
 * message size first (the referee sets ZMQ_MAXMSGSIZE).
 *
 * The typed getters below return MAAT_EDECODE with a message naming the
 * field when the value is missing, of the wrong type or out of range.
 */
#ifndef MAAT_MSG_H
#define MAAT_MSG_H

#include <stddef.h>
#include <stdint.h>
#include <msgpack.h>

#include "maat/error.h"

/* msgpack-c 4.0 cannot decode more than 32 nested containers; msgcheck.c
 * asserts this stays below that. */
#define MAAT_MSG_MAX_DEPTH 16

/* Check that buf[0..len) is exactly one well-formed msgpack object within
 * the limits above.  MAAT_OK or MAAT_EDECODE with the byte offset and reason. */
int maat_msg_check(const void *buf, size_t len, maat_error *err);

/* maat_msg_check, then unpack into `out` (initialised here; release with
 * msgpack_unpacked_destroy even on failure).  Strings in the result point
 * into buf: keep buf alive while using them. */
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

/* Packing helpers (a C string as a msgpack str). */
void maat_pack_str(msgpack_packer *pk, const char *s);
void maat_pack_kv_int(msgpack_packer *pk, const char *key, int64_t v);
void maat_pack_kv_str(msgpack_packer *pk, const char *key, const char *v);

#endif
