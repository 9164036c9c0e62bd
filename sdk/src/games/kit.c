/* kit.c -- the module kit (kit.h): the objects every game module has, its
 * options and component files, the start and end of a view's work, and the
 * scores block of an observation. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"

/* Every module object begins with the kit's part (kit.h); a pointer to
 * the object, converted, points to that first member. */
#define KSETUP(s) ((maat_kit_setup *)(void *)(s))
#define KVIEW(v) ((maat_kit_view *)(void *)(v))

/* ---- the objects -------------------------------------------------------- */

maat_setup *maat_kit_setup_new(size_t size, const char *game,
                               size_t game_size, size_t view_size,
                               maat_error *err)
{
    maat_setup *s = calloc(1, size);
    if (!s) {
        maat_error_set(err, MAAT_ENOMEM, "%s: out of memory", game);
        return NULL;
    }
    KSETUP(s)->game = game;
    KSETUP(s)->game_size = (uint32_t)game_size;
    KSETUP(s)->view_size = (uint32_t)view_size;
    return s;
}

void maat_kit_setup_destroy(maat_setup **s)
{
    if (s && *s) {
        free(*s);
        *s = NULL;
    }
}

maat_game *maat_kit_game_new(const maat_setup *setup, int seats, int min,
                             int max, maat_error *err)
{
    const maat_kit_setup *s = (const maat_kit_setup *)(const void *)setup;
    if (seats < min || seats > max) {
        maat_error_set(err, MAAT_EINVAL, "%s is for %d to %d seats, not %d",
                       s->game, min, max, seats);
        return NULL;
    }
    maat_game *g = calloc(1, s->game_size);
    if (!g)
        maat_error_set(err, MAAT_ENOMEM, "%s: out of memory", s->game);
    return g;
}

void maat_kit_game_destroy(maat_game **g)
{
    if (g && *g) {
        free(*g);
        *g = NULL;
    }
}

maat_view *maat_kit_view_new(const maat_setup *s, int seat, int seats)
{
    maat_view *v = calloc(1, ((const maat_kit_setup *)(const void *)s)->view_size);
    if (v) {
        KVIEW(v)->setup = s;
        KVIEW(v)->seat = seat;
        KVIEW(v)->seats = seats;
    }
    return v;
}

void maat_kit_view_destroy(maat_view **v)
{
    if (v && *v) {
        free(*v);
        *v = NULL;
    }
}

int maat_kit_view_updated(maat_kit_view *v, int seats, maat_error *err)
{
    if (seats != v->seats)
        return maat_error_set(err, MAAT_EDECODE, "observation for %d seats, "
                              "view for %d", seats, v->seats);
    v->has_observation = 1;
    return MAAT_OK;
}

maat_game *maat_kit_determinize_begin(const maat_kit_view *v,
                                      maat_error *err)
{
    if (!v->has_observation) {
        maat_error_set(err, MAAT_ESTATE, "the view has no observation yet");
        return NULL;
    }
    return maat_kit_game_new(v->setup, v->seats, v->seats, v->seats, err);
}

maat_game *maat_kit_determinize_end(const maat_rules *r, maat_game *g,
                                    maat_rng *rng, maat_rng *state_rng,
                                    const char *why, maat_error *err)
{
    maat_rng_fork(rng, state_rng);
    if (why && !r->is_over(g)) {
        maat_decision d = r->decision(g);
        if (d.seat < 0 || d.seat >= r->seats(g) ||
            r->legal_actions(g, NULL, 0) == 0) {
            maat_kit_game_destroy(&g);
            maat_error_set(err, MAAT_EDECODE, "%s", why);
            return NULL;
        }
    }
    return g;
}

/* ---- options and component files ------------------------------------------ */

int maat_kit_options_check(const maat_options *opt, const char *game,
                           const char *const *known, maat_error *err)
{
    for (int i = 0; opt && i < opt->count; i++) {
        int ok = 0;
        for (int k = 0; known[k] && !ok; k++)
            ok = strcmp(opt->key[i], known[k]) == 0;
        if (ok)
            continue;
        if (!known[0])
            return maat_error_set(err, MAAT_EINVAL, "%s: unknown option '%s' "
                                  "(%s has no options)", game, opt->key[i],
                                  game);
        char list[160] = "";
        for (int k = 0; known[k]; k++) {
            size_t l = strlen(list);
            snprintf(list + l, sizeof list - l, "%s%s", k ? ", " : "",
                     known[k]);
        }
        return maat_error_set(err, MAAT_EINVAL, "%s: unknown option '%s' "
                              "(known: %s)", game, opt->key[i], list);
    }
    return MAAT_OK;
}

int maat_kit_read_file(const char *path, const char *what, size_t cap,
                       char **text, size_t *len, maat_error *err)
{
    *text = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return maat_error_set(err, MAAT_EIO, "%s: cannot open %s file: %s",
                              path, what, strerror(errno));
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return maat_error_set(err, MAAT_ENOMEM, "%s: out of memory", path);
    }
    size_t n = fread(buf, 1, cap, f);
    int too_big = n == cap, failed = ferror(f);
    fclose(f);
    if (failed || too_big) {
        free(buf);
        if (failed)
            return maat_error_set(err, MAAT_EIO, "%s: read error", path);
        return maat_error_set(err, MAAT_EFORMAT, "%s: larger than %zu bytes; "
                              "not a %s file", path, cap - 1, what);
    }
    *text = buf;
    *len = n;
    return MAAT_OK;
}

int maat_kit_load(const char *path, const char *what, maat_kit_parse_fn parse,
                  void *out, maat_error *err)
{
    char *text;
    size_t len;
    int rc = maat_kit_read_file(path, what, 1 << 16, &text, &len, err);
    if (rc)
        return rc;
    rc = parse(out, text, len, path, err);
    free(text);
    return rc;
}

int maat_kit_component_load(const maat_kit_component *c,
                            const maat_options *opt, void *out, char *name,
                            size_t name_size, maat_error *err)
{
    const char *path = maat_options_get(opt, c->key);
    if (path) {
        snprintf(name, name_size, "%s", path);
        return maat_kit_load(path, c->what, c->parse, out, err);
    }
    snprintf(name, name_size, "reference");
    return c->parse(out, c->ref, c->ref_len, c->ref_file, err);
}

/* ---- lines and words --------------------------------------------------- */

/* Split a line into at most `max` blank-separated words, in place;
 * max + 1 when there are more. */
static int split_words(char *line, char **w, int max)
{
    int n = 0;
    char *q = line;
    while (*q) {
        while (*q == ' ' || *q == '\t' || *q == '\r')
            *q++ = 0;
        if (!*q)
            break;
        if (n == max)
            return max + 1;
        w[n++] = q;
        while (*q && *q != ' ' && *q != '\t' && *q != '\r')
            q++;
    }
    return n;
}

int maat_kit_fail(maat_kit_reader *r, const char *fmt, ...)
{
    char why[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return maat_error_set(r->err, MAAT_EFORMAT, "%s:%d: %s", r->name, r->line,
                          why);
}

int maat_kit_lines(maat_kit_reader *r, const char *text, size_t len,
                   int max_words, int (*one)(maat_kit_reader *r))
{
    size_t pos = 0;
    char line[256];
    if (max_words > MAAT_KIT_MAX_WORDS)
        max_words = MAAT_KIT_MAX_WORDS;
    r->line = 0;
    while (pos < len) {
        size_t end = pos;
        while (end < len && text[end] != '\n')
            end++;
        r->line++;
        size_t n = end - pos;
        if (n >= sizeof line)
            return maat_kit_fail(r, "line longer than %zu bytes",
                                 sizeof line - 1);
        memcpy(line, text + pos, n);
        line[n] = 0;
        if (memchr(line, 0, n))
            return maat_kit_fail(r, "NUL byte in a text file");
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        r->n = split_words(line, r->w, max_words);
        if (r->n > 0) {
            int rc = one(r);
            if (rc)
                return rc;
        }
        pos = end + 1;
    }
    return MAAT_OK;
}

int maat_kit_number(maat_kit_reader *r, const char *word, const char *what,
                    int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(word, &end, 10);
    if (!*word || *end || errno || v < lo || v > hi)
        return maat_kit_fail(r, "%s '%s' is not a number in %d..%d", what,
                             word, lo, hi);
    *out = (int)v;
    return MAAT_OK;
}

/* ---- observations ----------------------------------------------------- */

void maat_kit_observation_begin(maat_wire_map *m, msgpack_packer *pk,
                                const maat_rules *r, int seat, int seats,
                                uint32_t expect)
{
    maat_wire_map_begin(m, pk, expect);
    MAAT_MAP_KEY(m, "game");
    maat_pack_str(pk, r->name);
    MAAT_MAP_INT(m, "seat", seat);
    MAAT_MAP_INT(m, "seats", seats);
}


void maat_kit_score_head(maat_wire_map *m, const maat_score *sc)
{
    MAAT_MAP_INT(m, "total", sc->total);
    MAAT_MAP_INT(m, "rank", sc->rank);
}

void maat_kit_score_parts(maat_wire_map *m, const maat_rules *r,
                          const maat_score *sc)
{
    MAAT_MAP_KEY(m, "parts");
    maat_pack_map(m->pk, (size_t)r->n_score_parts);
    for (int p = 0; p < r->n_score_parts; p++) {
        maat_pack_str(m->pk, r->score_parts[p]);
        maat_pack_int(m->pk, sc->part[p]);
    }
}

void maat_kit_pack_scores(msgpack_packer *pk, const maat_rules *r,
                          const maat_score *sc, int seats)
{
    maat_pack_array(pk, (size_t)seats);
    for (int i = 0; i < seats; i++) {
        maat_wire_map m;
        maat_wire_map_begin(&m, pk, 3);
        maat_kit_score_head(&m, &sc[i]);
        maat_kit_score_parts(&m, r, &sc[i]);
        maat_wire_map_end(&m);
    }
}
