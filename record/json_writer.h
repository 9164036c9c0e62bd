/* json_writer.h -- JSON text written straight into a growing buffer, for
 * what the referee writes after every game: the record (its decisions
 * above all) and the ladder line.
 *
 * Building a jansson tree for every decision and dumping it cost more
 * instructions than playing the match (docs/PERFORMANCE.md, issue 19).
 * This writer produces the very bytes json_dumps gives for the same values
 * with JSON_COMPACT | JSON_ENSURE_ASCII (the record's flags): the same
 * escapes (\" \\ \b \f \n \r \t, \u00XX for other control characters,
 * \uXXXX and surrogate pairs for everything above 0x7F), integers in
 * decimal; or without JSON_ENSURE_ASCII (the ladder line's), characters
 * above 0x7F copied.  tests/test_json_writer.c compares it with jansson.
 *
 * Errors do not stop the writer: a failed allocation sets `failed` and
 * later writes do nothing, so the caller checks once at the end.
 */
#ifndef MAAT_JSON_WRITER_H
#define MAAT_JSON_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct maat_jw {
    char *data;
    size_t len, cap;
    int failed; /* an allocation failed: the text is incomplete */
} maat_jw;

maat_jw *maat_jw_new(size_t cap);
void maat_jw_destroy(maat_jw **p);

/* Room for n more bytes at data + len, or NULL (and failed set). */
char *maat_jw_reserve(maat_jw *w, size_t n);

/* Bytes copied as they are (JSON punctuation, text already escaped). */
static inline void maat_jw_raw(maat_jw *w, const char *s, size_t n)
{
    char *p = w->len + n <= w->cap ? w->data + w->len : maat_jw_reserve(w, n);
    if (p) {
        memcpy(p, s, n);
        w->len += n;
    }
}
/* A string literal (only: "" s "" does not compile for anything else,
 * where sizeof would be a pointer's). */
#define maat_jw_lit(w, s) maat_jw_raw((w), "" s "", sizeof(s) - 1)

/* An integer, as "%lld" writes it. */
void maat_jw_int(maat_jw *w, int64_t v);

/* A JSON string (quotes included) of the n bytes at s.  -1 when they are
 * not valid UTF-8 (jansson refuses such a string): nothing is written. */
int maat_jw_str(maat_jw *w, const char *s, size_t n);

/* The same, for JSON written without JSON_ENSURE_ASCII (the ladder line):
 * characters above 0x7F are copied as they are. */
int maat_jw_str_utf8(maat_jw *w, const char *s, size_t n);

/* One msgpack object (the n bytes at p: exactly one object) as JSON text,
 * the text json_dumps writes for maat_json_from_msgpack_bytes of the same
 * bytes.  Only the plain values the rules' encoders write are converted:
 * nil, booleans, integers, UTF-8 strings, arrays, and maps whose keys are
 * distinct UTF-8 strings of at most 127 bytes without NUL.  Anything else
 * (floats, binaries, extensions, other keys, malformed or trailing bytes,
 * nesting deeper than 8) returns -1 with nothing written, and the caller
 * takes jansson's path, which has its own rules for those. */
int maat_jw_msgpack(maat_jw *w, const void *p, size_t n);

#endif
