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

void maat_jw_int(maat_jw *w, int64_t v)
{
    char tmp[24], *e = tmp + sizeof tmp, *s = e;
    /* the magnitude as unsigned: INT64_MIN has no positive int64 */
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        *--s = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--s = '-';
    maat_jw_raw(w, s, (size_t)(e - s));
}

/* ---- strings ---------------------------------------------------------- */

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

int maat_jw_str(maat_jw *w, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t start = w->len, i = 0;
    maat_jw_lit(w, "\"");
    while (i < n) {
        size_t run = i;
        while (run < n && plain(s[run]))
            run++;
        if (run > i) {
            maat_jw_raw(w, str + i, run - i);
            i = run;
            if (i == n)
                break;
        }
        size_t len;
        int32_t cp = utf8_next(s + i, n - i, &len);
        if (cp < 0) {
            w->len = start;
            return -1;
        }
        i += len;
        char *p = maat_jw_reserve(w, 12);
        if (!p)
            return 0; /* failed is set; the caller sees it */
        char *q = p;
        *q++ = '\\';
        switch (cp) {
        case '"': *q++ = '"'; break;
        case '\\': *q++ = '\\'; break;
        case '\b': *q++ = 'b'; break;
        case '\f': *q++ = 'f'; break;
        case '\n': *q++ = 'n'; break;
        case '\r': *q++ = 'r'; break;
        case '\t': *q++ = 't'; break;
        default:
            q = p;
            if (cp < 0x10000) {
                q = put_u16(q, (unsigned)cp);
            } else { /* outside the BMP: a UTF-16 surrogate pair */
                cp -= 0x10000;
                q = put_u16(q, 0xD800 | (unsigned)(cp >> 10));
                q = put_u16(q, 0xDC00 | (unsigned)(cp & 0x3FF));
            }
        }
        w->len += (size_t)(q - p);
    }
    maat_jw_lit(w, "\"");
    return 0;
}

/* ---- msgpack ---------------------------------------------------------- */

#define MAX_DEPTH 8 /* the checker behind jansson's path allows 16 containers */
#define MAX_KEYS 64 /* per map: more and jansson's path decides */

typedef struct reader {
    const unsigned char *p, *end;
} reader;

static int take(reader *r, size_t n, const unsigned char **out)
{
    if ((size_t)(r->end - r->p) < n)
        return -1;
    *out = r->p;
    r->p += n;
    return 0;
}

static uint64_t be(const unsigned char *b, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = (v << 8) | b[i];
    return v;
}

/* A str's bytes if the next object is one; 0 with *n = SIZE_MAX if not. */
static int read_str(reader *r, const char **s, size_t *n)
{
    const unsigned char *b;
    if (take(r, 1, &b))
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
        if (take(r, hdr, &h))
            return -1;
        len = (size_t)be(h, hdr);
    }
    if (take(r, len, &b))
        return -1;
    *s = (const char *)b;
    *n = len;
    return 0;
}

static int convert(maat_jw *w, reader *r, int depth)
{
    if (r->p >= r->end || depth > MAX_DEPTH)
        return -1;
    unsigned char c = *r->p;
    const unsigned char *b;
    size_t count, hdr;
    if (c <= 0x7F || c >= 0xE0) { /* fixints */
        r->p++;
        maat_jw_int(w, (int8_t)c);
        return 0;
    }
    if ((c >= 0xA0 && c <= 0xBF) || (c >= 0xD9 && c <= 0xDB)) {
        const char *s;
        size_t n;
        if (read_str(r, &s, &n))
            return -1;
        return maat_jw_str(w, s, n);
    }
    r->p++;
    switch (c) {
    case 0xC0: maat_jw_lit(w, "null"); return 0;
    case 0xC2: maat_jw_lit(w, "false"); return 0;
    case 0xC3: maat_jw_lit(w, "true"); return 0;
    case 0xCC: case 0xCD: case 0xCE: case 0xCF: /* uint 8..64 */
        hdr = (size_t)1 << (c - 0xCC);
        if (take(r, hdr, &b))
            return -1;
        /* as jansson gets it: json_integer((json_int_t)u64) */
        maat_jw_int(w, (int64_t)be(b, hdr));
        return 0;
    case 0xD0: case 0xD1: case 0xD2: case 0xD3: { /* int 8..64 */
        hdr = (size_t)1 << (c - 0xD0);
        if (take(r, hdr, &b))
            return -1;
        uint64_t u = be(b, hdr);
        if (hdr < 8 && (u >> (hdr * 8 - 1))) /* sign-extend */
            u |= ~(uint64_t)0 << (hdr * 8);
        maat_jw_int(w, (int64_t)u);
        return 0;
    }
    case 0xDC: case 0xDE: hdr = 2; break;
    case 0xDD: case 0xDF: hdr = 4; break;
    default:
        if (c >= 0x80 && c <= 0x9F) {
            hdr = 0;
            break;
        }
        return -1; /* floats, bin, ext, 0xC1: jansson's path */
    }
    int map = (c >= 0x80 && c <= 0x8F) || c == 0xDE || c == 0xDF;
    if (hdr) {
        if (take(r, hdr, &b))
            return -1;
        count = (size_t)be(b, hdr);
    } else {
        count = c & 0x0F;
    }
    if (!map) {
        maat_jw_lit(w, "[");
        for (size_t i = 0; i < count; i++) {
            if (i)
                maat_jw_lit(w, ",");
            if (convert(w, r, depth + 1))
                return -1;
        }
        maat_jw_lit(w, "]");
        return 0;
    }
    if (count > MAX_KEYS)
        return -1;
    struct {
        const char *s;
        size_t n;
    } keys[MAX_KEYS];
    maat_jw_lit(w, "{");
    for (size_t i = 0; i < count; i++) {
        const char *s;
        size_t n;
        if (read_str(r, &s, &n) || n > 127 || memchr(s, 0, n))
            return -1;
        for (size_t k = 0; k < i; k++)
            if (keys[k].n == n && !memcmp(keys[k].s, s, n))
                return -1; /* jansson keeps one value of the two */
        keys[i].s = s;
        keys[i].n = n;
        if (i)
            maat_jw_lit(w, ",");
        if (maat_jw_str(w, s, n))
            return -1;
        maat_jw_lit(w, ":");
        if (convert(w, r, depth + 1))
            return -1;
    }
    maat_jw_lit(w, "}");
    return 0;
}

int maat_jw_msgpack(maat_jw *w, const void *p, size_t n)
{
    reader r = {p, (const unsigned char *)p + n};
    size_t start = w->len;
    if (convert(w, &r, 0) || r.p != r.end) {
        w->len = start;
        return -1;
    }
    return 0;
}
