/* outcome.c -- fault kinds, the match-rank rule and match ids (outcome.h).
 */
#include <string.h>

#include "outcome.h"

const char *const maat_fault_names[MAAT_FAULT_KINDS] = {
    "timeout", "illegal", "malformed", "crash", "no_hello"};

int maat_fault_kind(const char *name)
{
    for (int k = 0; k < MAAT_FAULT_KINDS; k++)
        if (name && strcmp(name, maat_fault_names[k]) == 0)
            return k;
    return -1;
}

void maat_match_ranks(int seats, const int *game_rank, const int *out,
                      int *rank)
{
    for (int i = 0; i < seats; i++) {
        int better = 0;
        for (int j = 0; j < seats; j++)
            better += (!out[j] && out[i]) ||
                      (!out[j] == !out[i] && game_rank[j] < game_rank[i]);
        rank[i] = 1 + better;
    }
}

int maat_match_id_valid(const char *id)
{
    size_t n = id ? strlen(id) : 0;
    if (n == 0 || n > MAAT_MAX_MATCH_ID || id[0] == '.' || id[0] == '-')
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = id[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || strchr("._-:+@", c)))
            return 0;
    }
    return 1;
}

/* Length of the valid UTF-8 sequence at s (1-4), or 0 if it is not one:
 * no overlong forms, no surrogates, nothing above U+10FFFF. */
static int utf8_length(const unsigned char *s)
{
    unsigned c = s[0];
    int n = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef
                       ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) ||
        (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))
        return 0;
    return n;
}

void maat_text_sanitize(char *s)
{
    unsigned char *p = (unsigned char *)s;
    while (*p) {
        int n = utf8_length(p);
        if (n == 0 || (n == 1 && (*p < 0x20 || *p == 0x7f))) {
            *p++ = '?';
            continue;
        }
        if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) {
            /* a C1 control (U+0080..U+009F): U+009B is CSI to a terminal
             * that takes 8-bit controls, as ESC [ is to all */
            p[0] = p[1] = '?';
            p += 2;
            continue;
        }
        if ((n == 3 && p[0] == 0xe2 && p[1] == 0x80 &&
             (p[2] == 0x8e || p[2] == 0x8f || (p[2] >= 0xaa && p[2] <= 0xae)))
            || (n == 3 && p[0] == 0xe2 && p[1] == 0x81 && p[2] >= 0xa6 &&
                p[2] <= 0xa9) || (n == 2 && p[0] == 0xd8 && p[1] == 0x9c)) {
            /* a bidirectional control (U+200E/F, U+202A..E, U+2066..9,
             * U+061C): it would show a command or a message reordered, so
             * what a reader sees is not what runs (review of 2026-11-28) */
            for (int i = 0; i < n; i++)
                p[i] = '?';
            p += n;
            continue;
        }
        p += n;
    }
}

const char *maat_json_type_name(int type)
{
    switch (type) {
    case -1: return "missing";
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "a whole number";
    case JSON_REAL: return "a fractional number";
    case JSON_TRUE:
    case JSON_FALSE: return "true or false";
    default: return "null";
    }
}
