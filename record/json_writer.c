/* json_writer.c -- JSON text straight into a buffer, byte for byte what
 * jansson's json_dumps writes with the record's flags (json_writer.h), and
 * msgpack converted to it without building a tree in between.
 */
#include <stdlib.h>

#include "json_writer.h"

maat_jw *maat_jw_new(size_t cap)
{
    maat_jw *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->cap = cap ? cap : 256;
    w->data = malloc(w->cap);
    if (!w->data) {
        free(w);
        return NULL;
    }
    return w;
}

void maat_jw_destroy(maat_jw **p)
{
    if (!p || !*p)
        return;
    free((*p)->data);
    free(*p);
    *p = NULL;
}

char *maat_jw_reserve(maat_jw *w, size_t n)
{
    if (w->failed)
        return NULL;
    if (w->len + n > w->cap) {
        size_t cap = w->cap;
        while (cap < w->len + n) {
            if (cap > SIZE_MAX / 2) {
                w->failed = 1;
                return NULL;
            }
            cap *= 2;
        }
        char *d = realloc(w->data, cap);
        if (!d) {
            w->failed = 1;
            return NULL;
        }
        w->data = d;
        w->cap = cap;
    }
    return w->data + w->len;
}

/* ---- into reserved room: the caller made room for the worst case ------ */

/* An integer as "%lld" writes it: at most 20 bytes. */
static char *put_int(char *o, int64_t v)
{
    if (v >= 0 && v < 100) { /* most of a game's numbers */
        if (v >= 10)
            *o++ = (char)('0' + v / 10);
        *o++ = (char)('0' + v % 10);
        return o;
    }
    char tmp[24], *e = tmp + sizeof tmp, *s = e;
    /* the magnitude as unsigned: INT64_MIN has no positive int64 */
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        *--s = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--s = '-';
    memcpy(o, s, (size_t)(e - s));
    return o + (e - s);
}

/* The code point of the UTF-8 sequence at s (at most n bytes) and its
 * length in *len; -1 if it is not valid UTF-8: a stray continuation byte,
 * an overlong form, a surrogate, or above U+10FFFF (what jansson refuses). */
static int32_t utf8_next(const unsigned char *s, size_t n, size_t *len)
{
    unsigned char c = s[0];
    size_t k;
    int32_t cp, min;
    if (c < 0x80) {
        *len = 1;
        return c;
    } else if (c >= 0xC2 && c <= 0xDF) {
        k = 2, cp = c & 0x1F, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        k = 3, cp = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        k = 4, cp = c & 0x07, min = 0x10000;
    } else {
        return -1;
    }
    if (n < k)
        return -1;
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return -1;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return -1;
    *len = k;
    return cp;
}

static char *put_u16(char *p, unsigned v)
{
    static const char hex[] = "0123456789ABCDEF";
    p[0] = '\\';
    p[1] = 'u';
    p[2] = hex[(v >> 12) & 15];
    p[3] = hex[(v >> 8) & 15];
    p[4] = hex[(v >> 4) & 15];
    p[5] = hex[v & 15];
    return p + 6;
}

/* Plain bytes: printable ASCII other than '"' and '\\' (DEL included, as
 * jansson leaves it). */
static inline int plain(unsigned char c)
{
    return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* The n bytes at s as a JSON string, quotes included: at most 6n + 2
 * bytes (a control byte becomes 6, a 4-byte sequence 12).  NULL if they
 * are not UTF-8.  `ascii`: everything above 0x7F escaped (jansson's
 * JSON_ENSURE_ASCII), else copied. */
static char *put_str(char *o, const unsigned char *s, size_t n, int ascii)
{
    size_t i = 0;
    *o++ = '"';
    for (;;) {
        while (i < n && plain(s[i]))
            *o++ = (char)s[i++];
        if (i == n)
            break;
        size_t len;
        int32_t cp = utf8_next(s + i, n - i, &len);
        if (cp < 0)
            return NULL;
        if (cp > 0x7F && !ascii) {
            memcpy(o, s + i, len);
            o += len;
            i += len;
            continue;
        }
        i += len;
        switch (cp) {
        case '"': *o++ = '\\'; *o++ = '"'; break;
        case '\\': *o++ = '\\'; *o++ = '\\'; break;
        case '\b': *o++ = '\\'; *o++ = 'b'; break;
        case '\f': *o++ = '\\'; *o++ = 'f'; break;
        case '\n': *o++ = '\\'; *o++ = 'n'; break;
        case '\r': *o++ = '\\'; *o++ = 'r'; break;
        case '\t': *o++ = '\\'; *o++ = 't'; break;
        default:
            if (cp < 0x10000) {
                o = put_u16(o, (unsigned)cp);
            } else { /* outside the BMP: a UTF-16 surrogate pair */
                cp -= 0x10000;
                o = put_u16(o, 0xD800 | (unsigned)(cp >> 10));
                o = put_u16(o, 0xDC00 | (unsigned)(cp & 0x3FF));
            }
        }
    }
    *o++ = '"';
    return o;
}

/* ---- into the buffer -------------------------------------------------- */

void maat_jw_int(maat_jw *w, int64_t v)
{
    char *o = maat_jw_reserve(w, 24);
    if (o)
        w->len = (size_t)(put_int(o, v) - w->data);
}

/* Room for the JSON of n bytes of input: 6 bytes each and `extra`. */
static char *room6(maat_jw *w, size_t n, size_t extra)
{
    if (n > (SIZE_MAX - extra) / 6) {
        w->failed = 1;
        return NULL;
    }
    return maat_jw_reserve(w, 6 * n + extra);
}

int maat_jw_str(maat_jw *w, const char *str, size_t n)
{
    char *o = room6(w, n, 2);
    if (!o)
        return 0; /* failed is set; the caller sees it */
    o = put_str(o, (const unsigned char *)str, n, 1);
    if (!o)
        return -1;
    w->len = (size_t)(o - w->data);
    return 0;
}

int maat_jw_str_utf8(maat_jw *w, const char *str, size_t n)
{
    char *o = room6(w, n, 2);
    if (!o)
        return 0;
    o = put_str(o, (const unsigned char *)str, n, 0);
    if (!o)
        return -1;
    w->len = (size_t)(o - w->data);
    return 0;
}

/* ---- msgpack ---------------------------------------------------------- */

#define MAX_DEPTH 8 /* the checker behind jansson's path allows 16 containers */
#define MAX_KEYS 64 /* per map: more and jansson's path decides */

/* Reading msgpack at p (until end) and writing JSON at o.  Room: no
 * msgpack byte becomes more than 6 bytes of JSON with its separator (nil
 * "null,", false "false,", a string byte "\u001F", a 1-byte container
 * "{},"), so 6 bytes per input byte are reserved once. */
typedef struct conv {
    const unsigned char *p, *end;
    char *o;
} conv;

static int take(conv *c, size_t n, const unsigned char **out)
{
    if ((size_t)(c->end - c->p) < n)
        return -1;
    *out = c->p;
    c->p += n;
    return 0;
}

static uint64_t be(const unsigned char *b, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = (v << 8) | b[i];
    return v;
}

/* A str's bytes if the next object is one, else -1. */
static int read_str(conv *c, const unsigned char **s, size_t *n)
{
    const unsigned char *b;
    if (take(c, 1, &b))
        return -1;
    size_t len, hdr = 0;
    if (b[0] >= 0xA0 && b[0] <= 0xBF)
        len = b[0] & 0x1F;
    else if (b[0] == 0xD9)
        hdr = 1;
    else if (b[0] == 0xDA)
        hdr = 2;
    else if (b[0] == 0xDB)
        hdr = 4;
    else
        return -1;
    if (hdr) {
        const unsigned char *h;
        if (take(c, hdr, &h))
            return -1;
        len = (size_t)be(h, hdr);
    }
    if (take(c, len, &b))
        return -1;
    *s = b;
    *n = len;
    return 0;
}

static int convert(conv *c, int depth)
{
    if (c->p >= c->end || depth > MAX_DEPTH)
        return -1;
    unsigned char t = *c->p;
    const unsigned char *b;
    size_t count, hdr;
    if (t <= 0x7F || t >= 0xE0) { /* fixints */
        c->p++;
        c->o = put_int(c->o, (int8_t)t);
        return 0;
    }
    if ((t >= 0xA0 && t <= 0xBF) || (t >= 0xD9 && t <= 0xDB)) {
        size_t n;
        if (read_str(c, &b, &n))
            return -1;
        c->o = put_str(c->o, b, n, 1);
        return c->o ? 0 : -1;
    }
    c->p++;
    switch (t) {
    case 0xC0: memcpy(c->o, "null", 4); c->o += 4; return 0;
    case 0xC2: memcpy(c->o, "false", 5); c->o += 5; return 0;
    case 0xC3: memcpy(c->o, "true", 4); c->o += 4; return 0;
    case 0xCC: case 0xCD: case 0xCE: case 0xCF: /* uint 8..64 */
        hdr = (size_t)1 << (t - 0xCC);
        if (take(c, hdr, &b))
            return -1;
        /* as jansson gets it: json_integer((json_int_t)u64) */
        c->o = put_int(c->o, (int64_t)be(b, hdr));
        return 0;
    case 0xD0: case 0xD1: case 0xD2: case 0xD3: { /* int 8..64 */
        hdr = (size_t)1 << (t - 0xD0);
        if (take(c, hdr, &b))
            return -1;
        uint64_t u = be(b, hdr);
        if (hdr < 8 && (u >> (hdr * 8 - 1))) /* sign-extend */
            u |= ~(uint64_t)0 << (hdr * 8);
        c->o = put_int(c->o, (int64_t)u);
        return 0;
    }
    case 0xDC: case 0xDE: hdr = 2; break;
    case 0xDD: case 0xDF: hdr = 4; break;
    default:
        if (t >= 0x80 && t <= 0x9F) {
            hdr = 0;
            break;
        }
        return -1; /* floats, bin, ext, 0xC1: jansson's path */
    }
    int map = (t >= 0x80 && t <= 0x8F) || t == 0xDE || t == 0xDF;
    if (hdr) {
        if (take(c, hdr, &b))
            return -1;
        count = (size_t)be(b, hdr);
    } else {
        count = t & 0x0F;
    }
    if (!map) {
        *c->o++ = '[';
        for (size_t i = 0; i < count; i++) {
            if (i)
                *c->o++ = ',';
            if (convert(c, depth + 1))
                return -1;
        }
        *c->o++ = ']';
        return 0;
    }
    if (count > MAX_KEYS)
        return -1;
    struct {
        const unsigned char *s;
        size_t n;
    } keys[MAX_KEYS];
    *c->o++ = '{';
    for (size_t i = 0; i < count; i++) {
        const unsigned char *s;
        size_t n;
        if (read_str(c, &s, &n) || n > 127)
            return -1;
        for (size_t k = 0; k < i; k++)
            if (keys[k].n == n && !memcmp(keys[k].s, s, n))
                return -1; /* jansson keeps one value of the two */
        keys[i].s = s;
        keys[i].n = n;
        if (i)
            *c->o++ = ',';
        /* a key is plain ASCII (copied here) or takes the long way */
        char *o = c->o;
        size_t j = 0;
        *o++ = '"';
        while (j < n && plain(s[j]))
            *o++ = (char)s[j++];
        if (j == n) {
            *o++ = '"';
        } else if (memchr(s, 0, n)) {
            return -1; /* jansson's key ends at the NUL */
        } else {
            o = put_str(c->o, s, n, 1);
            if (!o)
                return -1;
        }
        c->o = o;
        *c->o++ = ':';
        if (convert(c, depth + 1))
            return -1;
    }
    *c->o++ = '}';
    return 0;
}

int maat_jw_msgpack(maat_jw *w, const void *p, size_t n)
{
    char *o = room6(w, n, 8);
    if (!o)
        return 0; /* failed is set; the caller sees it */
    conv c = {p, (const unsigned char *)p + n, o};
    if (convert(&c, 0) || c.p != c.end)
        return -1; /* nothing written: len is where it was */
    w->len = (size_t)(c.o - w->data);
    return 0;
}
