/* test_json_writer.c -- record/json_writer.c writes what jansson writes.
 *
 * The record's decisions used to be a jansson tree dumped with
 * JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII; the writer must
 * give the same bytes (docs/FORMATS.md: records are byte-identical for the
 * same game).  Each case is written both ways and compared:
 *   - strings: every code point (in blocks), short escapes, control bytes,
 *     DEL, NUL, and random bytes -- invalid UTF-8 (stray continuations,
 *     overlong forms, surrogates, above U+10FFFF, cut sequences) must be
 *     refused by both (json_stringn gives NULL, maat_jw_str -1, nothing
 *     written);
 *   - integers from INT64_MIN to INT64_MAX;
 *   - random msgpack values (every type, every width, nested, maps with
 *     repeated, long, NUL-holding and non-string keys) and mutated bytes:
 *     when maat_jw_msgpack takes a value its text must equal json_dumps of
 *     maat_json_from_msgpack_bytes; when it does not, it wrote nothing;
 *   - every legal action of random games of every registered game, as
 *     the rules encode it: all of them must take the writer's path (none
 *     falls back to jansson) and give jansson's text;
 *   - ladder lines (record/ladder_line.c, written without JSON_ENSURE_ASCII)
 *     with names and paths that are not ASCII or not UTF-8, faults and
 *     missing logs, against the jansson object the line was built as.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "json_writer.h"
#include "outcome.h"
#include "maat/internal/msg.h"
#include "maat/policy.h"
#include "ladder_line.h"
#include "record.h"

#define FLAGS (JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII | \
               JSON_ENCODE_ANY)

static uint64_t rs = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void) /* xorshift64*: this test's own stream */
{
    rs ^= rs >> 12;
    rs ^= rs << 25;
    rs ^= rs >> 27;
    return rs * 0x2545f4914f6cdd1dULL;
}
static unsigned below(unsigned n) { return (unsigned)(rnd() % n); }

static void hexdump(const char *what, const void *p, size_t n)
{
    fprintf(stderr, "  %s (%zu bytes):", what, n);
    for (size_t i = 0; i < n && i < 64; i++)
        fprintf(stderr, " %02x", ((const unsigned char *)p)[i]);
    fprintf(stderr, "%s\n", n > 64 ? " ..." : "");
}

/* ---- strings ---------------------------------------------------------- */

/* Both ways of writing a string: escaped to ASCII (records) and not
 * (ladder lines, JSON_COMPACT | JSON_PRESERVE_ORDER only). */
static int str_case(maat_jw *w, const char *s, size_t n)
{
    int ok = 1;
    json_t *j = json_stringn(s, n);
    for (int ascii = 1; ascii >= 0; ascii--) {
        w->len = 0;
        int rc = ascii ? maat_jw_str(w, s, n) : maat_jw_str_utf8(w, s, n);
        if (!j) {
            ok &= rc == -1 && w->len == 0;
            CHECK(rc == -1 && w->len == 0, "jansson refuses the string, the "
                  "writer %s", rc ? "wrote something" : "takes it");
            continue;
        }
        char *want = json_dumps(j, ascii ? FLAGS : JSON_COMPACT |
                                                   JSON_ENCODE_ANY);
        int same = rc == 0 && w->len == strlen(want) &&
                   !memcmp(w->data, want, w->len);
        CHECK(same, "string written as %.*s, jansson %s (ascii %d)",
              (int)w->len, w->data, want, ascii);
        ok &= same;
        free(want);
    }
    json_decref(j);
    if (!ok)
        hexdump("the string", s, n);
    return ok;
}

static size_t put_utf8(char *p, uint32_t cp) /* no checks: may be invalid */
{
    if (cp < 0x80) {
        p[0] = (char)cp;
        return 1;
    } else if (cp < 0x800) {
        p[0] = (char)(0xC0 | cp >> 6);
        p[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    } else if (cp < 0x10000) {
        p[0] = (char)(0xE0 | cp >> 12);
        p[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        p[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    p[0] = (char)(0xF0 | cp >> 18);
    p[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    p[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    p[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Random text: mostly plain, with escapes, code points of every length,
 * and (when `bad`) a broken byte or sequence somewhere. */
static size_t random_text(char *buf, size_t cap, int bad)
{
    size_t n = 0, want = below(40);
    while (n + 8 < cap && want--) {
        switch (below(8)) {
        case 0: buf[n++] = (char)below(0x20); break;  /* control, NUL */
        case 1: buf[n++] = "\"\\/\x7f"[below(4)]; break;
        case 2: n += put_utf8(buf + n, 0x80 + below(0x780)); break;
        case 3: {
            uint32_t cp = 0x800 + below(0x10000 - 0x800);
            if (cp >= 0xD800 && cp <= 0xDFFF)
                cp -= 0x800;
            n += put_utf8(buf + n, cp);
            break;
        }
        case 4: n += put_utf8(buf + n, 0x10000 + below(0x100000)); break;
        default: buf[n++] = (char)(0x20 + below(0x5F)); break;
        }
    }
    if (bad && n + 8 < cap) {
        size_t at = n ? below((unsigned)n + 1) : 0;
        char ins[5];
        size_t k;
        switch (below(6)) {
        case 0: ins[0] = (char)(0x80 + below(0x40)); k = 1; break;
        case 1: ins[0] = (char)0xC0; ins[1] = (char)(0x80 + below(0x40));
                k = 2; break;                       /* overlong */
        case 2: k = put_utf8(ins, 0xD800 + below(0x800)); break;
        case 3: k = put_utf8(ins, 0x110000 + below(0x1000)); break;
        case 4: ins[0] = (char)(0xF5 + below(11)); k = 1; break;
        default: k = put_utf8(ins, 0x800 + below(0x1000)) - 1; break; /* cut */
        }
        memmove(buf + at + k, buf + at, n - at);
        memcpy(buf + at, ins, k);
        n += k;
    }
    return n;
}

static void test_strings(maat_jw *w)
{
    static const char *fixed[] = {"", "plain", "a\"b\\c/d", "\b\f\n\r\t",
                                  "\x7f", "\x01\x1f", "caf\xc3\xa9",
                                  "\xf0\x9f\x98\x80", "\xef\xbf\xbf"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        str_case(w, fixed[i], strlen(fixed[i]));
    CHECK(str_case(w, "a\0b", 3), "a string holding NUL");
    /* every code point but the surrogates, 512 to a string */
    static char buf[512 * 4];
    size_t n = 0;
    int blocks_ok = 1;
    for (uint32_t cp = 0; cp <= 0x10FFFF; cp++) {
        if (cp >= 0xD800 && cp <= 0xDFFF)
            continue;
        n += put_utf8(buf + n, cp);
        if (n + 4 > sizeof buf || cp == 0x10FFFF) {
            blocks_ok &= str_case(w, buf, n);
            n = 0;
        }
    }
    CHECK(blocks_ok, "every code point escaped as jansson does");
    /* every byte sequence of 1 and 2 bytes, and random ones */
    for (unsigned a = 0; a < 256; a++) {
        char s[2] = {(char)a};
        str_case(w, s, 1);
        for (unsigned b = 0; b < 256; b++) {
            s[1] = (char)b;
            str_case(w, s, 2);
        }
    }
    int ok = 1;
    for (int i = 0; i < check_scaled(20000); i++) {
        char t[400];
        ok &= str_case(w, t, random_text(t, sizeof t, i % 3 == 0));
    }
    CHECK(ok, "random strings written as jansson writes them");
}

static void test_ints(maat_jw *w)
{
    int64_t fixed[] = {0, 1, -1, 9, 10, -10, 127, -128, INT32_MAX, INT32_MIN,
                       INT64_MAX, INT64_MIN, INT64_MIN + 1};
    for (int i = 0; i < 10000 + 13; i++) {
        int64_t v = i < 13 ? fixed[i] : (int64_t)(rnd() >> below(64));
        if (i >= 13 && below(2))
            v = -v;
        w->len = 0;
        maat_jw_int(w, v);
        char want[32];
        int k = snprintf(want, sizeof want, "%" PRId64, v);
        CHECK(w->len == (size_t)k && !memcmp(w->data, want, w->len),
              "%s written as %.*s", want, (int)w->len, w->data);
    }
}

/* ---- msgpack ---------------------------------------------------------- */

static void pack_text(msgpack_packer *pk, int bad)
{
    char t[400];
    size_t n = random_text(t, sizeof t, bad);
    msgpack_pack_str(pk, n);
    msgpack_pack_str_body(pk, t, n);
}

static void pack_key(msgpack_packer *pk)
{
    static const char *common[] = {"kind", "card", "x", "seat", "tile"};
    switch (below(12)) {
    case 0: msgpack_pack_int(pk, (int)below(9)); break; /* not a string */
    case 1: { /* long: jansson keeps 127 bytes */
        char k[200];
        size_t n = 120 + below(20);
        for (size_t i = 0; i < n; i++)
            k[i] = (char)('a' + below(3));
        msgpack_pack_str(pk, n);
        msgpack_pack_str_body(pk, k, n);
        break;
    }
    case 2: msgpack_pack_str(pk, 3); msgpack_pack_str_body(pk, "a\0b", 3);
        break;
    case 3: pack_text(pk, below(2)); break;
    default: maat_pack_str(pk, common[below(5)]); break; /* repeats */
    }
}

static void pack_random(msgpack_packer *pk, int depth)
{
    unsigned t = below(depth > 10 ? 9 : 12);
    switch (t) {
    case 0: msgpack_pack_nil(pk); break;
    case 1: below(2) ? msgpack_pack_true(pk) : msgpack_pack_false(pk); break;
    case 2: msgpack_pack_int64(pk, (int64_t)(rnd() >> below(64)) *
                                   (below(2) ? -1 : 1)); break;
    case 3: msgpack_pack_uint64(pk, rnd() >> below(64)); break;
    case 4: { /* a fixed-width encoding of a small value */
        unsigned w = below(8);
        int64_t v = (int64_t)below(100) - 50;
        switch (w) {
        case 0: msgpack_pack_fix_int8(pk, (int8_t)v); break;
        case 1: msgpack_pack_fix_int16(pk, (int16_t)v); break;
        case 2: msgpack_pack_fix_int32(pk, (int32_t)v); break;
        case 3: msgpack_pack_fix_int64(pk, v); break;
        case 4: msgpack_pack_fix_uint8(pk, (uint8_t)(v & 0x7f)); break;
        case 5: msgpack_pack_fix_uint16(pk, (uint16_t)(v & 0x7fff)); break;
        case 6: msgpack_pack_fix_uint32(pk, (uint32_t)(v & 0x7fff)); break;
        default: msgpack_pack_fix_uint64(pk, (uint64_t)(v & 0x7fff)); break;
        }
        break;
    }
    case 5: pack_text(pk, below(8) == 0); break;
    case 6: pack_text(pk, 0); break;
    case 7:
        switch (below(4)) {
        case 0: msgpack_pack_double(pk, 1.5); break;
        case 1: msgpack_pack_float(pk, -2.0f); break;
        case 2: msgpack_pack_bin(pk, 2); msgpack_pack_bin_body(pk, "ab", 2);
            break;
        default: msgpack_pack_ext(pk, 1, 1); msgpack_pack_ext_body(pk, "x", 1);
            break;
        }
        break;
    case 8: maat_pack_str(pk, "kind"); break;
    case 9: case 10: {
        unsigned n = below(6);
        msgpack_pack_array(pk, n);
        for (unsigned i = 0; i < n; i++)
            pack_random(pk, depth + 1);
        break;
    }
    default: {
        unsigned n = below(6);
        msgpack_pack_map(pk, n);
        for (unsigned i = 0; i < n; i++) {
            pack_key(pk);
            pack_random(pk, depth + 1);
        }
        break;
    }
    }
}

/* 1 if the writer took the bytes (and matched jansson), 0 if it left them
 * to jansson (and wrote nothing); a mismatch is a failed check. */
static int msgpack_case(maat_jw *w, const void *p, size_t n)
{
    w->len = 0;
    maat_jw_lit(w, "<");
    int rc = maat_jw_msgpack(w, p, n);
    if (rc) {
        CHECK(w->len == 1, "the writer refused the bytes but wrote %zu",
              w->len - 1);
        return 0;
    }
    json_t *j = maat_json_from_msgpack_bytes(p, n);
    char *want = json_dumps(j, FLAGS);
    int ok = want && w->len - 1 == strlen(want) &&
             !memcmp(w->data + 1, want, w->len - 1);
    CHECK(ok, "msgpack written as %.*s, jansson %s", (int)w->len - 1,
          w->data + 1, want ? want : "(nothing)");
    if (!ok)
        hexdump("the msgpack", p, n);
    free(want);
    json_decref(j);
    return 1;
}

static void test_msgpack(maat_jw *w)
{
    msgpack_sbuffer sb;
    msgpack_packer pk;
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    int taken = 0, total = check_scaled(30000), mutated_taken = 0;
    for (int i = 0; i < total; i++) {
        msgpack_sbuffer_clear(&sb);
        pack_random(&pk, 0);
        taken += msgpack_case(w, sb.data, sb.size);
        if (sb.size == 0)
            continue;
        /* the same bytes cut, with a byte changed, or with a byte more */
        unsigned char m[4096];
        size_t n = sb.size < sizeof m - 1 ? sb.size : sizeof m - 1;
        memcpy(m, sb.data, n);
        switch (below(3)) {
        case 0: n = below((unsigned)n); break;
        case 1: m[below((unsigned)n)] = (unsigned char)rnd(); break;
        default: m[n++] = (unsigned char)rnd(); break;
        }
        mutated_taken += msgpack_case(w, m, n);
    }
    /* containers nested deeper than the writer goes: jansson's path */
    msgpack_sbuffer_clear(&sb);
    for (int d = 0; d < 20; d++)
        msgpack_pack_array(&pk, 1);
    msgpack_pack_nil(&pk);
    CHECK(msgpack_case(w, sb.data, sb.size) == 0, "20 nested arrays taken");
    printf("json_writer: %d of %d random values and %d mutated ones written "
           "by the writer, the rest left to jansson\n", taken, total,
           mutated_taken);
    CHECK(taken > total / 4 && taken < total, "the random values exercise "
          "both paths (%d of %d taken)", taken, total);
    msgpack_sbuffer_destroy(&sb);
}

/* ---- the rules' own actions -------------------------------------------- */

#define MAX_LEGAL 4096

static void test_actions(maat_jw *w)
{
    int n;
    const maat_rules *const *all = maat_rules_all(&n);
    msgpack_sbuffer sb;
    msgpack_packer pk;
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, maat_sbuffer_write);
    static maat_action legal[MAX_LEGAL];
    for (int gi = 0; gi < n; gi++) {
        const maat_rules *r = all[gi];
        maat_error err = {0, ""};
        maat_setup *setup = r->setup_new(NULL, &err);
        CHECK(setup != NULL, "%s: setup_new: %s", r->name, err.msg);
        if (!setup)
            continue;
        long actions = 0, taken = 0;
        for (int seats = r->min_seats; seats <= r->max_seats; seats++)
            for (int seed = 1; seed <= check_scaled(4); seed++) {
                maat_events ev = {0};
                maat_game *g = r->game_new(setup, SEED(seed * 31 + seats),
                                           seats, &ev, &err);
                CHECK(g != NULL, "%s: game_new: %s", r->name, err.msg);
                if (!g)
                    continue;
                maat_rng rng;
                maat_rng_seed(&rng, SEED(seed));
                for (int step = 0; step < 10000 && !r->is_over(g); step++) {
                    int k = r->legal_actions(g, legal, MAX_LEGAL);
                    for (int i = 0; i < k; i++) {
                        msgpack_sbuffer_clear(&sb);
                        r->encode_action(g, &legal[i], &pk);
                        actions++;
                        taken += msgpack_case(w, sb.data, sb.size);
                    }
                    maat_action a;
                    maat_events_clear(&ev);
                    if (maat_policy_random(r, g, &rng, &a) != MAAT_OK ||
                        r->apply(g, &a, &ev, &err) != MAAT_OK)
                        break;
                }
                r->destroy(&g);
                maat_events_free(&ev);
            }
        CHECK(actions > 0 && taken == actions, "%s: %ld of %ld legal actions "
              "written by the writer (all must be)", r->name, taken, actions);
        r->setup_destroy(&setup);
    }
    msgpack_sbuffer_destroy(&sb);
}

/* ---- the ladder line --------------------------------------------------- */

/* The line as it was built before the writer (record/ladder_line.c until
 * issue 19), with the paths as given (they do not exist, so realpath
 * fails and they are kept as they are) and the time the writer used. */
static char *jansson_line(const maat_ladder_line *l, const char *when)
{
    char id[MAAT_MAX_MATCH_ID + 16];
    snprintf(id, sizeof id, "%s-%d", l->match_id, l->game_index);
    json_t *bots = json_array(), *ranks = json_array(), *scores = json_array(),
           *out = json_array();
    for (int s = 0; s < l->seats; s++) {
        json_array_append_new(bots, json_string(l->bots[s]));
        json_array_append_new(ranks, json_integer(l->ranks[s]));
        json_array_append_new(scores, json_integer(l->scores[s]));
        json_array_append_new(out, json_boolean(l->out[s]));
    }
    json_t *j = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:i, "
                          "s:o, s:o, s:o, s:o, s:O, s:I, s:I}",
        "v", 1, "id", id, "match", l->match_id, "time", when, "game", l->game,
        "rules_version", l->rules_version, "seed", l->seed, "game_index",
        l->game_index, "seats", l->seats, "bots", bots, "ranks", ranks,
        "scores", scores, "out", out, "faults", l->faults, "decisions",
        (json_int_t)l->decisions, "duration_ms", (json_int_t)l->duration_ms);
    if (j && l->record_file)
        json_object_set_new(j, "record", json_string(l->record_file));
    int any = 0;
    for (int s = 0; s < l->seats; s++)
        any |= l->log_files[s] != NULL;
    if (j && any) {
        json_t *logs = json_array();
        for (int s = 0; s < l->seats; s++)
            json_array_append_new(logs, l->log_files[s]
                                  ? json_string(l->log_files[s])
                                  : json_null());
        json_object_set_new(j, "logs", logs);
    }
    char *text = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(j);
    return text;
}

static void test_ladder_line(void)
{
    char dir[] = "/tmp/maat-test-jw-XXXXXX", path[64];
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(path, sizeof path, "%s/ladder.jsonl", dir);
    const char *names[] = {"ann", "b\303\251a", "\xff", "c\"d", "e\x01"};
    const char *files[] = {NULL, "/no/such/r\303\251cord.json",
                           "/no/such/\376.json", "/no/such/a\"b\\c.json",
                           "/no/such/\xf0\x9f\x98\x80.log"};
    for (int c = 0; c < 200; c++) {
        int seats = 2 + (int)below(4), ranks[5], scores[5], out[5];
        const char *bots[5];
        for (int s = 0; s < seats; s++) {
            bots[s] = names[below(5)];
            ranks[s] = 1 + (int)below(5);
            scores[s] = (int)below(200) - 20;
            out[s] = (int)below(2);
        }
        json_t *faults = json_array();
        for (unsigned k = below(3); k > 0; k--)
            json_array_append_new(faults, json_pack("{s:i, s:s, s:s}", "seat",
                1, "kind", "timeout", "detail", below(2) ? "na\xc3\xafve \"q\""
                                                         : "\xe2\x98\x83\t"));
        maat_ladder_line l = {
            .match_id = "m-1", .game_index = (int)below(3), .game = "pyramids",
            .rules_version = "pyramids-2", .seed = "42", .seats = seats,
            .bots = bots, .ranks = ranks, .scores = scores, .out = out,
            .faults = faults, .decisions = (int64_t)(rnd() >> 40),
            .duration_ms = (int64_t)below(100000),
            .record_file = files[below(5)]};
        for (int s = 0; s < seats; s++)
            l.log_files[s] = below(3) ? files[below(5)] : NULL;
        unlink(path);
        maat_error err = {0, ""};
        int rc = maat_ladder_line_append(&l, path, &err);
        char line[8192] = "";
        FILE *f = fopen(path, "r");
        if (f) {
            if (!fgets(line, sizeof line, f))
                line[0] = 0;
            fclose(f);
        }
        line[strcspn(line, "\n")] = 0;
        char when[32] = "";
        const char *t = strstr(line, "\"time\":\"");
        if (t)
            snprintf(when, sizeof when, "%.20s", t + 8);
        char *want = jansson_line(&l, when);
        if (!want)
            CHECK(rc != MAAT_OK, "case %d: jansson refuses the line, the "
                  "writer wrote %s", c, line);
        else
            CHECK(rc == MAAT_OK && !strcmp(line, want), "case %d: ladder line"
                  "\n  %s\n  jansson:\n  %s", c, line, want);
        free(want);
        json_decref(faults);
    }
    unlink(path);
    rmdir(dir);
}

/* maat_text_sanitize: what a bot or an entry file says is printed and
 * stored; no control character of any kind, and valid UTF-8. */
static void test_sanitize(void)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"plain text", "plain text"},
        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
         "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"},
        {"a\x1b]0;T\x07" "b\x7f", "a?]0;T?b?"},
        {"csi \xc2\x9b" "31m, nel \xc2\x85, nbsp \xc2\xa0",
         "csi ??31m, nel ??, nbsp \xc2\xa0"},
        {"\xff\xfe \xc0\xaf \xed\xa0\x80", "?? ?? ???"},
        /* bidirectional controls: RLO, LRM, RLI, ALM shown reordered */
        {"run \xe2\x80\xae" "cod.exe \xe2\x80\x8e \xe2\x81\xa7 \xd8\x9c.",
         "run ???cod.exe ??? ??? ??."},
        /* near them, ordinary punctuation stays: en dash, bullet, U+2070 */
        {"\xe2\x80\x93 \xe2\x80\xa2 \xe2\x81\xb0", "\xe2\x80\x93 \xe2\x80\xa2 \xe2\x81\xb0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[128];
        snprintf(buf, sizeof buf, "%s", cases[i].in);
        maat_text_sanitize(buf);
        CHECK(!strcmp(buf, cases[i].out), "sanitize case %zu: '%s'", i, buf);
    }
}

int main(void)
{
    test_sanitize();
    maat_jw *w = maat_jw_new(16); /* small: the growth is exercised too */
    CHECK(w != NULL, "maat_jw_new");
    if (!w)
        return check_done("json_writer");
    test_strings(w);
    test_ints(w);
    test_msgpack(w);
    test_actions(w);
    test_ladder_line();
    CHECK(!w->failed, "no allocation failed");
    maat_jw_destroy(&w);
    CHECK(w == NULL, "maat_jw_destroy clears the pointer");
    return check_done("json_writer");
}
