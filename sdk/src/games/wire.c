/* wire.c -- actions and events encoded, decoded and emitted from a game's
 * declarations (wire.h), and maps that count their own entries.
 *
 * Encoding writes exactly what the modules' hand-written packers wrote
 * (tests/test_wire_bytes.c pins every game's bytes); decoding refuses with
 * the messages they gave, in the same order: a bad value first, then a
 * bad key (maat_msg_fields, then maat_msg_only_keys for the message). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "wire.h"

/* ---- finding a kind ----------------------------------------------------- */

static inline int when_holds(const maat_wire_kind *k, const int32_t *arg)
{
    return !k->variant ||
           (arg[k->when_arg] >= k->when_lo && arg[k->when_arg] <= k->when_hi);
}

static inline const maat_wire_kind *find(const maat_wire *w, int kind,
                                         const int32_t *arg)
{
    /* kinds are usually declared in the order of their numbers */
    if (kind >= 0 && kind < w->n_kinds && w->kinds[kind].kind == kind &&
        when_holds(&w->kinds[kind], arg))
        return &w->kinds[kind];
    for (int i = 0; i < w->n_kinds; i++)
        if (w->kinds[i].kind == kind && when_holds(&w->kinds[i], arg))
            return &w->kinds[i];
    return NULL;
}

const maat_wire_kind *maat_wire_find(const maat_wire *w, int kind,
                                     const int32_t *arg)
{
    return find(w, kind, arg);
}

static inline int name_is(const maat_wire_kind *k, const char *p, size_t n)
{
    return maat_msg_name_is(k->name, k->name_len, p, n);
}

static inline const maat_wire_kind *named(const maat_wire *w,
                                          const char *name, size_t len)
{
    for (int i = 0; i < w->n_kinds; i++)
        if (name_is(&w->kinds[i], name, len))
            return &w->kinds[i];
    return NULL;
}

const maat_wire_kind *maat_wire_named(const maat_wire *w, const char *name,
                                      size_t len)
{
    return named(w, name, len);
}

/* ---- encoding ----------------------------------------------------------- */

static inline int fields_written(const maat_wire_kind *k, const int32_t *arg)
{
    int n = 1 + k->n_fields; /* the tag, then the fields */
    for (int i = 0; i < k->n_fields; i++)
        n -= k->fields[i].type == MAAT_WT_OPT &&
             arg[k->fields[i].arg] == k->fields[i].nil;
    return n;
}

_Static_assert(offsetof(maat_wire_field, key) ==
                   offsetof(maat_wire_field, key_hdr) + 1 &&
               offsetof(maat_wire_kind, name) ==
                   offsetof(maat_wire_kind, name_hdr) + 1 &&
               offsetof(maat_wire, tag) == offsetof(maat_wire, tag_hdr) + 1,
               "a name's fixstr header must precede its bytes");

/* A short name (a key, a kind), token by token. */
static inline void put_name(msgpack_packer *pk, const char *s, size_t n)
{
    maat_pack_strn(pk, s, n);
}

static inline void pack_name(msgpack_packer *pk, const maat_wire_field *f,
                             int v)
{
    if (v >= 0 && v <= f->hi)
        maat_pack_str(pk, f->names[v]);
    else
        maat_pack_nil(pk);
}

/* ---- the fast path: straight into the buffer ------------------------
 * A message of one kind is at most 1 + 16 * 2 + 15 * (16 + 32) bytes
 * (names written as 16 bytes, strings of name tables at most 31:
 * maat_wire_check), so with that much room reserved every byte is
 * written without a check. */
#define MAX_MESSAGE (1 + 16 * 2 + 15 * (16 + 32))

/* A name's fixstr: its 16 bytes (header, name, padding) in one copy. */
static inline char *w_name(char *p, const unsigned char *fixstr)
{
    memcpy(p, fixstr, MAAT_WIRE_NAME_MAX + 2);
    return p + 1 + (fixstr[0] & 0x1f);
}

static inline char *w_str(char *p, const char *s)
{
    size_t n = 0;
    while (s[n] && n < 31)
        n++;
    *p++ = (char)(0xa0 | n);
    for (size_t i = 0; i < n; i++)
        p[i] = s[i];
    return p + n;
}

static inline char *w_int(char *p, int64_t v)
{
    if (v >= -32 && v < 128) { /* a fixint */
        *p = (char)(uint8_t)v;
        return p + 1;
    }
    return p + maat_put_int(p, v);
}

static char *w_message(char *p, const maat_wire *w, const maat_wire_kind *k,
                       int seat, const int32_t *arg)
{
    char *head = p++;
    int n = 1 + k->n_fields;
    p = w_name(p, &w->tag_hdr);
    p = w_name(p, &k->name_hdr);
    /* (a kind with no fields may have fields == NULL: NULL + 0 is UB) */
    const maat_wire_field *f = k->fields,
                          *end = f ? f + k->n_fields : f;
    for (; f < end; f++) {
        if (f->type <= MAAT_WT_INT_OR_NIL) { /* the usual cases first */
            int v = arg[f->arg];
            p = w_name(p, &f->key_hdr);
            if (f->type == MAAT_WT_INT_OR_NIL && v == f->nil)
                *p++ = (char)0xc0;
            else
                p = w_int(p, v);
            continue;
        }
        if (f->type == MAAT_WT_SEAT) {
            p = w_name(p, &f->key_hdr);
            p = w_int(p, seat);
            continue;
        }
        int v = arg[f->arg];
        if (f->type == MAAT_WT_OPT && v == f->nil) {
            n--;
            continue;
        }
        p = w_name(p, &f->key_hdr);
        switch (f->type) {
        case MAAT_WT_BOOL:
            *p++ = (char)(v ? 0xc3 : 0xc2);
            break;
        case MAAT_WT_NAME_MAP:
            v = f->map(v);
            /* fall through */
        case MAAT_WT_NAME:
        case MAAT_WT_NAME_OR_NIL:
            if (v >= 0 && v <= f->hi)
                p = w_str(p, f->names[v]);
            else
                *p++ = (char)0xc0;
            break;
        case MAAT_WT_PAIR:
            *p++ = (char)0x92;
            p = w_int(p, v);
            p = w_int(p, arg[f->arg + 1]);
            break;
        case MAAT_WT_CONST:
            p = w_str(p, f->names[0]);
            break;
        case MAAT_WT_INT_MAP:
            p = w_int(p, f->map(v));
            break;
        default: /* OPT */
            p = w_int(p, v);
            break;
        }
    }
    *head = (char)(0x80 | n); /* a fixmap: fewer than 16 entries */
    return p;
}

int maat_wire_encode(const maat_wire *w, int kind, int seat,
                     const int32_t *arg, msgpack_packer *pk)
{
    const maat_wire_kind *k = find(w, kind, arg);
    if (!k)
        return MAAT_EINVAL;
    char *p = maat_pack_room(pk, MAX_MESSAGE);
    if (p || (p = maat_pack_reserve(pk, MAX_MESSAGE))) {
        ((msgpack_sbuffer *)pk->data)->size +=
            (size_t)(w_message(p, w, k, seat, arg) - p);
        return MAAT_OK;
    }
    /* another packer: token by token */
    maat_pack_map(pk, (size_t)fields_written(k, arg));
    put_name(pk, w->tag, w->tag_len);
    put_name(pk, k->name, k->name_len);
    for (int i = 0; i < k->n_fields; i++) {
        const maat_wire_field *f = &k->fields[i];
        int v = f->type == MAAT_WT_SEAT ? seat : arg[f->arg];
        if (f->type == MAAT_WT_OPT && v == f->nil)
            continue;
        put_name(pk, f->key, f->key_len);
        if (f->type == MAAT_WT_INT_MAP || f->type == MAAT_WT_NAME_MAP)
            v = f->map(v);
        switch (f->type) {
        case MAAT_WT_INT_OR_NIL:
            maat_wire_int_or_nil(pk, v, f->nil);
            break;
        case MAAT_WT_BOOL:
            maat_pack_bool(pk, v);
            break;
        case MAAT_WT_NAME:
        case MAAT_WT_NAME_OR_NIL:
        case MAAT_WT_NAME_MAP:
            pack_name(pk, f, v);
            break;
        case MAAT_WT_PAIR:
            maat_pack_array(pk, 2);
            maat_pack_int(pk, v);
            maat_pack_int(pk, arg[f->arg + 1]);
            break;
        case MAAT_WT_CONST:
            maat_pack_str(pk, f->names[0]);
            break;
        default: /* INT, OPT, SEAT */
            maat_pack_int(pk, v);
            break;
        }
    }
    return MAAT_OK;
}

void maat_wire_pack_u8s(msgpack_packer *pk, const uint8_t *v, size_t n)
{
    char *p = maat_pack_room(pk, 5 + 2 * n);
    if (!p)
        p = maat_pack_reserve(pk, 5 + 2 * n);
    char *p0 = p;
    if (!p || n >= 65536) { /* another packer: element by element */
        maat_pack_array(pk, n);
        for (size_t i = 0; i < n; i++)
            maat_pack_int(pk, v[i]);
        return;
    }
    if (n < 16) {
        *p++ = (char)(0x90 | n);
    } else {
        *p++ = (char)0xdc;
        *p++ = (char)(n >> 8);
        *p++ = (char)n;
    }
    for (size_t i = 0; i < n; i++) {
        if (v[i] >= 128) /* a uint8 */
            *p++ = (char)0xcc;
        *p++ = (char)v[i];
    }
    ((msgpack_sbuffer *)pk->data)->size += (size_t)(p - p0);
}

/* ---- decoding ----------------------------------------------------------- */

/* "\"a\"", "\"a\" or \"b\"", "one of a, b, c": what a field must be */
static void one_of(char *out, size_t cap, const char *const *names, int n)
{
    if (n == 1) {
        snprintf(out, cap, "\"%s\"", names[0]);
    } else if (n == 2) {
        snprintf(out, cap, "\"%s\" or \"%s\"", names[0], names[1]);
    } else {
        size_t len = (size_t)snprintf(out, cap, "one of ");
        for (int i = 0; i < n && len < cap; i++)
            len += (size_t)snprintf(out + len, cap - len, "%s%s",
                                    i ? ", " : "", names[i]);
    }
}

static int bad_name(const maat_wire_field *f, maat_error *err)
{
    char list[200];
    one_of(list, sizeof list, f->names, f->hi + 1);
    return maat_error_set(err, MAAT_EDECODE, "field '%s' must be %s", f->key,
                          list);
}

static int bad_tag(const maat_wire *w, maat_error *err)
{
    /* the distinct names, in declaration order */
    const char *names[32];
    int n = 0;
    for (int i = 0; i < w->n_kinds && n < 32; i++)
        if (i == 0 || !name_is(&w->kinds[i - 1], w->kinds[i].name,
                               w->kinds[i].name_len))
            names[n++] = w->kinds[i].name;
    char list[300];
    one_of(list, sizeof list, names, n);
    return maat_error_set(err, MAAT_EDECODE, "field '%s' must be %s", w->tag,
                          list);
}

static int bad_variant(const maat_wire_kind *k, int n, int at,
                       maat_error *err)
{
    const char *names[16];
    for (int i = 0; i < n && i < 16; i++)
        names[i] = k[i].fields[at].names[0];
    char list[200];
    one_of(list, sizeof list, names, n < 16 ? n : 16);
    return maat_error_set(err, MAAT_EDECODE, "field '%s' must be %s",
                          k->fields[at].key, list);
}

/* One field's value v (may be NULL: absent) into arg[] or *seat. */
static int decode_field(const maat_wire_field *f, const msgpack_object *v,
                        int *seat, int32_t *arg, maat_error *err)
{
    int64_t x;
    int rc;
    switch (f->type) {
    case MAAT_WT_INT:
    case MAAT_WT_SEAT:
        if ((rc = maat_msg_int(v, f->key, f->lo, f->hi, &x, err)))
            return rc;
        break;
    case MAAT_WT_INT_OR_NIL:
    case MAAT_WT_OPT:
        if ((rc = maat_msg_int_or(v, f->key, f->lo, f->hi, f->nil, &x, err)))
            return rc;
        break;
    case MAAT_WT_BOOL:
        if (!v || v->type != MSGPACK_OBJECT_BOOLEAN)
            return maat_error_set(err, MAAT_EDECODE, "field '%s' must be "
                                  "true or false", f->key);
        x = v->via.boolean;
        break;
    case MAAT_WT_NAME:
    case MAAT_WT_NAME_OR_NIL:
        if (f->type == MAAT_WT_NAME_OR_NIL &&
            (!v || v->type == MSGPACK_OBJECT_NIL)) {
            x = -1;
            break;
        }
        for (x = 0; x <= f->hi; x++)
            if (maat_msg_str_eq(v, f->names[x]))
                break;
        if (x > f->hi)
            return bad_name(f, err);
        break;
    case MAAT_WT_PAIR: {
        int64_t y;
        if (!v || v->type != MSGPACK_OBJECT_ARRAY || v->via.array.size != 2)
            return maat_error_set(err, MAAT_EDECODE, "field '%s' must be an "
                                  "array of 2 integers", f->key);
        if ((rc = maat_msg_int(&v->via.array.ptr[0], f->key, f->lo, f->hi,
                               &x, err)) ||
            (rc = maat_msg_int(&v->via.array.ptr[1], f->key, f->lo, f->hi,
                               &y, err)))
            return rc;
        arg[f->arg + 1] = (int32_t)y;
        break;
    }
    case MAAT_WT_INT_MAP:
    case MAAT_WT_NAME_MAP:
        return maat_error_set(err, MAAT_EINVAL, "field '%s' is encoded "
                              "only", f->key);
    default: /* CONST: checked by the caller */
        return MAAT_OK;
    }
    if (f->type == MAAT_WT_SEAT) {
        if (seat)
            *seat = (int)x;
    } else {
        arg[f->arg] = (int32_t)x;
    }
    return MAAT_OK;
}

/* The keys of variant k (tag first), NULL-terminated, into keys[]. */
static int keys_of(const maat_wire *w, const maat_wire_kind *k,
                   const char **keys)
{
    int n = 0;
    keys[n++] = w->tag;
    for (int i = 0; i < k->n_fields; i++)
        keys[n++] = k->fields[i].key;
    keys[n] = NULL;
    return n;
}

/* One pass over the map: val[0] = the tag's value, val[1 + i] = the first
 * value of field i of k (NULL when absent).  1 when a key is not a string,
 * not the tag or a field of k, or repeated (maat_msg_only_keys then says
 * which), else 0.  Fastest with the keys in declaration order, as the
 * encoder writes them: the field after the last one found is tried
 * first. */
static int find_fields(const msgpack_object *o, const maat_wire *w,
                       const maat_wire_kind *k, const msgpack_object **val)
{
    int nk = 1 + k->n_fields, j = 0, bad = 0;
    uint32_t seen = 0;
    for (int i = 0; i < nk; i++)
        val[i] = NULL;
    for (uint32_t e = 0; e < o->via.map.size; e++) {
        const msgpack_object *key = &o->via.map.ptr[e].key;
        if (key->type != MSGPACK_OBJECT_STR) {
            bad = 1;
            continue;
        }
        const char *p = key->via.str.ptr;
        uint32_t n = key->via.str.size;
        int t = 0;
        for (; t < nk; t++, j = j + 1 < nk ? j + 1 : 0) {
            if (j == 0 ? maat_msg_name_is(w->tag, w->tag_len, p, n)
                       : maat_msg_name_is(k->fields[j - 1].key,
                                   k->fields[j - 1].key_len, p, n))
                break;
        }
        if (t == nk) { /* unknown */
            bad = 1;
            continue;
        }
        if (seen & (1u << j)) { /* repeated: the first value counts */
            bad = 1;
        } else {
            seen |= 1u << j;
            val[j] = &o->via.map.ptr[e].val;
        }
        j = j + 1 < nk ? j + 1 : 0;
    }
    return bad;
}

/* What maat_wire_decode gives before it has read anything. */
static inline void decode_init(const maat_wire *w, int *kind, int *seat,
                               int32_t *arg)
{
    for (int i = 0; i < MAAT_EVENT_ARGS; i++) /* (fixed counts: unrolled) */
        arg[i] = -1;
    if (w->n_args > MAAT_EVENT_ARGS)
        for (int i = MAAT_EVENT_ARGS; i < MAAT_ACTION_ARGS; i++)
            arg[i] = -1;
    *kind = -1;
    if (seat)
        *seat = -1;
}

/* The usual message, as our encoder writes it: the tag, then every field
 * of a kind without variants in declaration order, each value an integer
 * in its range (a seat, a nil where the field allows one, a pair).  1
 * with what the general decoder below would give for it (no key unknown
 * or repeated, every value good: the same results), 0 for anything else,
 * which the general decoder then reads from the start.  One pass with no
 * search: an event costs a third of what the general one does, and a
 * bot's view decodes every event. */
static int decode_usual(const maat_wire *w, const msgpack_object *o,
                        int *kind, int *seat, int32_t *arg)
{
    uint32_t size = o->via.map.size;
    const msgpack_object_kv *e = o->via.map.ptr;
    if (size == 0 || e[0].key.type != MSGPACK_OBJECT_STR ||
        e[0].val.type != MSGPACK_OBJECT_STR ||
        !maat_msg_name_is(w->tag, w->tag_len, e[0].key.via.str.ptr,
                          e[0].key.via.str.size))
        return 0;
    const maat_wire_kind *k = named(w, e[0].val.via.str.ptr,
                                    e[0].val.via.str.size);
    if (!k || k->variant || size != 1u + (uint32_t)k->n_fields)
        return 0;
    for (int i = 0; i < k->n_fields; i++) {
        const maat_wire_field *f = &k->fields[i];
        const msgpack_object *key = &e[1 + i].key, *v = &e[1 + i].val;
        if (key->type != MSGPACK_OBJECT_STR ||
            !maat_msg_name_is(f->key, f->key_len, key->via.str.ptr,
                              key->via.str.size) ||
            maat_msg_name_is(w->tag, w->tag_len, f->key, f->key_len))
            return 0;
        const msgpack_object *x = v;
        int n = 1;
        if (f->type == MAAT_WT_PAIR) {
            if (v->type != MSGPACK_OBJECT_ARRAY || v->via.array.size != 2)
                return 0;
            x = v->via.array.ptr;
            n = 2;
        } else if (v->type == MSGPACK_OBJECT_NIL &&
                   (f->type == MAAT_WT_INT_OR_NIL ||
                    f->type == MAAT_WT_OPT)) {
            arg[f->arg] = f->nil;
            continue;
        } else if (f->type > MAAT_WT_OPT && f->type != MAAT_WT_SEAT) {
            return 0;
        }
        for (int j = 0; j < n; j++) {
            int64_t y;
            if (x[j].type == MSGPACK_OBJECT_POSITIVE_INTEGER &&
                x[j].via.u64 <= (uint64_t)INT32_MAX)
                y = (int64_t)x[j].via.u64;
            else if (x[j].type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
                y = x[j].via.i64;
            else
                return 0;
            if (y < f->lo || y > f->hi)
                return 0;
            if (f->type == MAAT_WT_SEAT) {
                if (seat)
                    *seat = (int)y;
            } else {
                arg[f->arg + j] = (int32_t)y;
            }
        }
    }
    *kind = k->kind;
    return 1;
}

int maat_wire_decode(const maat_wire *w, const msgpack_object *o, int *kind,
                     int *seat, int32_t *arg, maat_error *err)
{
    if (o && o->type == MSGPACK_OBJECT_MAP) {
        decode_init(w, kind, seat, arg);
        if (decode_usual(w, o, kind, seat, arg))
            return MAAT_OK;
    }
    return maat_wire_decode_general(w, o, kind, seat, arg, err);
}

int maat_wire_decode_general(const maat_wire *w, const msgpack_object *o,
                             int *kind, int *seat, int32_t *arg,
                             maat_error *err)
{
    const msgpack_object *val[MAAT_MSG_MAX_FIELDS + 1];
    decode_init(w, kind, seat, arg);
    if (!o || o->type != MSGPACK_OBJECT_MAP)
        return maat_error_set(err, MAAT_EDECODE, "%s must be a map", w->what);
    /* the tag: usually the first key */
    const msgpack_object *tag = NULL;
    for (uint32_t i = 0; i < o->via.map.size && !tag; i++) {
        const msgpack_object *key = &o->via.map.ptr[i].key;
        if (key->type == MSGPACK_OBJECT_STR &&
            maat_msg_name_is(w->tag, w->tag_len, key->via.str.ptr, key->via.str.size))
            tag = &o->via.map.ptr[i].val;
    }
    if (!tag || tag->type != MSGPACK_OBJECT_STR)
        return bad_tag(w, err);
    const maat_wire_kind *k = named(w, tag->via.str.ptr, tag->via.str.size);
    if (!k)
        return bad_tag(w, err);
    /* its variants: the kinds after it with the same name */
    int nv = 1;
    const maat_wire_kind *all = k;
    if (k->variant) {
        while (k + nv < w->kinds + w->n_kinds &&
               name_is(k + nv, k->name, k->name_len))
            nv++;
        /* one pass finds the fields of the longest variant: the others'
         * fields are a prefix of it (wire.h) */
        for (int i = 1; i < nv; i++)
            if (k[i].n_fields > all->n_fields)
                all = &k[i];
    }
    /* with a bad key val[] still holds each field's first value, so a bad
     * value is reported before the bad key */
    int krc = find_fields(o, w, all, val);
    *kind = k->kind;
    int rc = MAAT_OK;
    const maat_wire_kind *use = k;
    for (int i = 0; i < use->n_fields && !rc; i++) {
        const maat_wire_field *f = &use->fields[i];
        const msgpack_object *v = val[1 + i];
        /* the usual cases inline, with decode_field's results: an
         * integer in range (a seat's goes to *seat), a nil */
        int ints = f->type <= MAAT_WT_OPT || f->type == MAAT_WT_SEAT;
        if (ints && v && v->type == MSGPACK_OBJECT_POSITIVE_INTEGER &&
            f->lo >= 0 && v->via.u64 <= (uint64_t)f->hi &&
            v->via.u64 >= (uint64_t)f->lo) {
            if (f->type != MAAT_WT_SEAT)
                arg[f->arg] = (int32_t)v->via.u64;
            else if (seat)
                *seat = (int)v->via.u64;
            continue;
        }
        if ((f->type == MAAT_WT_INT_OR_NIL || f->type == MAAT_WT_OPT) &&
            (!v || v->type == MSGPACK_OBJECT_NIL)) {
            arg[f->arg] = f->nil;
            continue;
        }
        if (f->type != MAAT_WT_CONST) {
            rc = decode_field(f, v, seat, arg, err);
            continue;
        }
        /* the variant whose tag this is */
        int n = 0;
        while (n < nv && !(i < k[n].n_fields &&
                           maat_msg_str_eq(v, k[n].fields[i].names[0])))
            n++;
        if (n == nv) {
            rc = bad_variant(k, nv, i, err);
            break;
        }
        use = &k[n];
        if (use->variant)
            arg[use->when_arg] = use->when_lo;
        /* a field of another variant present here is an unknown key */
        for (int j = use->n_fields; j < all->n_fields; j++)
            if (val[1 + j])
                krc = 1;
    }
    if (!rc && krc) { /* the values are fine: report the bad key */
        const char *keys[MAAT_MSG_MAX_FIELDS + 1];
        keys_of(w, use, keys);
        rc = maat_msg_only_keys(o, keys, w->what, err);
    }
    return rc;
}

/* ---- emitting ----------------------------------------------------------- */

void maat_wire_emit_slow(maat_events *ev, const maat_wire *w, int kind,
                         int seat, int a0, int a1, int a2, int a3)
{
    maat_event e = {MAAT_ALL_SEATS, (int16_t)kind, (int16_t)seat,
                    {a0, a1, a2, a3, 0, 0}};
    if (kind >= 0 && kind < w->n_kinds && w->kinds[kind].kind == kind &&
        w->kinds[kind].seen_by == MAAT_W_ALL) { /* the usual case first */
        maat_events_push(ev, &e);
        return;
    }
    const maat_wire_kind *k = find(w, kind, e.arg);
    uint32_t own = seat >= 0 && seat < 32 ? 1u << seat : 0;
    if (k && k->seen_by == MAAT_W_OWNER) {
        e.visible_to = own;
    } else if (k && k->seen_by == MAAT_W_SPLIT && own) {
        maat_event pub = e; /* the others' copy, without the secret */
        pub.visible_to = MAAT_ALL_SEATS & ~own;
        for (int i = 0; i < k->n_fields; i++)
            if (k->fields[i].owner)
                pub.arg[k->fields[i].arg] = k->fields[i].nil;
        maat_events_push(ev, &pub);
        e.visible_to = own;
    }
    maat_events_push(ev, &e);
}

int maat_wire_fits(const maat_wire *w, int kind, const int32_t *arg)
{
    const maat_wire_kind *k = find(w, kind, arg);
    if (!k)
        return 0;
    uint32_t used = k->variant ? 1u << k->when_arg : 0;
    for (int i = 0; i < k->n_fields; i++) {
        const maat_wire_field *f = &k->fields[i];
        int32_t v = arg[f->arg];
        int ok = 1;
        switch (f->type) {
        case MAAT_WT_SEAT:
        case MAAT_WT_CONST:
            continue; /* no arg */
        case MAAT_WT_INT_OR_NIL:
        case MAAT_WT_OPT:
            ok = v == f->nil || (v >= f->lo && v <= f->hi);
            break;
        case MAAT_WT_NAME_OR_NIL:
            ok = v == -1 || (v >= 0 && v <= f->hi);
            break;
        case MAAT_WT_NAME:
            ok = v >= 0 && v <= f->hi;
            break;
        case MAAT_WT_PAIR:
            used |= 1u << (f->arg + 1);
            ok = v >= f->lo && v <= f->hi && arg[f->arg + 1] >= f->lo &&
                 arg[f->arg + 1] <= f->hi;
            break;
        case MAAT_WT_INT_MAP:
        case MAAT_WT_NAME_MAP:
            break; /* encoded only: any arg */
        default: /* INT, BOOL */
            ok = v >= f->lo && v <= f->hi;
            break;
        }
        if (!ok)
            return 0;
        used |= 1u << f->arg;
    }
    for (int i = 0; i < w->n_args; i++)
        if (!(used >> i & 1) && arg[i] != -1)
            return 0;
    return 1;
}

/* ---- checking a declaration ---------------------------------------------- */

int maat_wire_check(const maat_wire *w, const char *const *names,
                    int n_kinds, const char *game, maat_error *err)
{
    if (!w || !w->kinds || w->n_kinds < 1)
        return maat_error_set(err, MAAT_EINVAL, "game '%s': a wire "
                              "declaration without kinds", game);
    for (int i = 0; i < w->n_kinds; i++) {
        const maat_wire_kind *k = &w->kinds[i];
        const char *bad = NULL;
        if (!k->name[0] || k->name_len != strnlen(k->name, sizeof k->name) ||
            k->name_hdr != (0xa0 | k->name_len))
            bad = "a kind without a name (or its header)";
        else if (k->kind < 0 || k->kind >= n_kinds)
            bad = "its kind number is not one of the rules' kinds";
        else if (strcmp(k->name, names[k->kind]) != 0)
            bad = "the rules table names its kind number otherwise";
        else if (k->n_fields + 1 >= MAAT_MSG_MAX_FIELDS)
            bad = "too many fields"; /* (the encoder's header: a fixmap) */
        else if (k->variant && k->when_arg >= w->n_args)
            bad = "its variant's arg is outside the args";
        else if (k->seen_by > MAAT_W_SPLIT)
            bad = "seen_by is not MAAT_W_ALL, MAAT_W_OWNER or MAAT_W_SPLIT";
        else if (i > 0 && w->kinds[i - 1].kind == k->kind &&
                 !(k->variant && w->kinds[i - 1].variant))
            bad = "two declarations of one kind that are not both variants";
        for (int j = 0; !bad && j < k->n_fields; j++) {
            const maat_wire_field *f = &k->fields[j];
            int span = f->type == MAAT_WT_PAIR ? 2 : 1;
            if (!f->key[0] || f->key_len != strnlen(f->key, sizeof f->key) ||
                f->key_hdr != (0xa0 | f->key_len))
                bad = "a field without a key (or its header)";
            else if (f->type != MAAT_WT_SEAT && f->arg + span > w->n_args)
                bad = "a field's arg is outside the args";
            else if ((f->type == MAAT_WT_NAME ||
                      f->type == MAAT_WT_NAME_OR_NIL ||
                      f->type == MAAT_WT_NAME_MAP ||
                      f->type == MAAT_WT_CONST) && !f->names)
                bad = "a name field without names";
            else if ((f->type == MAAT_WT_INT_MAP ||
                      f->type == MAAT_WT_NAME_MAP) != (f->map != NULL))
                bad = "a mapped field without its function, or the reverse";
            else if (f->owner && f->type != MAAT_WT_OPT)
                bad = "an owner-only field that cannot be left out";
            else if (f->owner && k->seen_by != MAAT_W_SPLIT)
                bad = "an owner-only field in a kind not declared "
                      "MAAT_W_SPLIT";
            for (int v = 0; !bad && f->names && v <= f->hi; v++)
                if (!f->names[v] || strnlen(f->names[v], 32) > 31)
                    bad = "a name missing or longer than 31 bytes";
        }
        if (bad)
            return maat_error_set(err, MAAT_EINVAL, "game '%s': %s '%s': %s",
                                  game, w->tag, k->name, bad);
    }
    return MAAT_OK;
}

/* ---- maps that count their entries --------------------------------------- */

/* Bytes of the header for n entries: fixmap, map16, map32. */
static inline size_t header_size(uint32_t n)
{
    return n < 16 ? 1 : n < 65536 ? 3 : 5;
}

void maat_wire_map_begin_any(maat_wire_map *m, msgpack_packer *pk,
                             uint32_t expect)
{
    m->pk = pk;
    m->n = 0;
    m->callback = NULL;
    if (pk->callback != maat_sbuffer_write) { /* see wire.h */
        m->callback = pk->callback;
        m->data = pk->data;
        msgpack_sbuffer_init(&m->own);
        pk->callback = maat_sbuffer_write;
        pk->data = &m->own;
    }
    msgpack_sbuffer *sb = pk->data;
    m->at = sb->size;
    m->head = header_size(expect);
    char *p = maat_pack_room(pk, 5);
    if (p) { /* patched at the end */
        p[0] = (char)0x80;
        sb->size += m->head;
    } else {
        msgpack_sbuffer_write(sb, "\x80\0\0\0\0", m->head);
    }
}

void maat_wire_map_end_any(maat_wire_map *m)
{
    msgpack_sbuffer *sb = m->pk->data;
    uint32_t n = m->n;
    size_t need = header_size(n);
    if (sb->size < m->at + m->head) {
        /* out of memory at the start: nothing to patch */
    } else {
        if (need != m->head) { /* the guess was wrong: move the entries */
            size_t tail = sb->size - m->at - m->head;
            if (need > m->head)
                msgpack_sbuffer_write(sb, "\0\0\0\0", need - m->head);
            memmove(sb->data + m->at + need, sb->data + m->at + m->head,
                    tail);
            sb->size = m->at + need + tail;
        }
        unsigned char *h = (unsigned char *)sb->data + m->at;
        if (need == 1) {
            h[0] = (unsigned char)(0x80 | n);
        } else if (need == 3) {
            h[0] = 0xde;
            h[1] = (unsigned char)(n >> 8);
            h[2] = (unsigned char)n;
        } else {
            h[0] = 0xdf;
            for (int i = 0; i < 4; i++)
                h[1 + i] = (unsigned char)(n >> (24 - 8 * i));
        }
    }
    if (m->callback) { /* give the caller's packer its bytes */
        m->pk->callback = m->callback;
        m->pk->data = m->data;
        m->callback(m->data, m->own.data, m->own.size);
        msgpack_sbuffer_destroy(&m->own);
    }
}
