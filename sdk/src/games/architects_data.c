/* architects_data.c -- reading and validating the architects' component
 * files: the stones, the cards and the board.
 *
 * The printed components exist only in the rulebook's pictures, so they
 * are data, not code: the reference files ship in sdk/data/ (built into
 * the library) and a tournament may pass transcriptions of the real ones
 * (options stones=, cards=, board=).  The three formats are in
 * architects.h.  A file that breaks its format is refused with "file:line:
 * reason"; a file that fits its format but not the other two (too few
 * stones or cards for four full pyramids) is refused by maat_arc_setup_check. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "architects_internal.h"

extern const char maat_arc_stones_data[];
extern const size_t maat_arc_stones_data_len;
extern const char maat_arc_cards_data[];
extern const size_t maat_arc_cards_data_len;
extern const char maat_arc_board_data[];
extern const size_t maat_arc_board_data_len;

const char *const maat_arc_colour_names[MAAT_ARC_COLOURS] = {
    "blue", "brown", "yellow", "white"};
const char *const maat_arc_symbol_names[MAAT_ARC_SYMBOLS] = {
    "-", "ankh", "eye", "scarab", "feather", "sun"};
const char *const maat_arc_card_names[MAAT_ARC_CARD_KINDS] = {
    "priest", "osiris", "divine-path", "set", "architect",
    "scribe", "vizier", "bastet", "thoth", "khnum"};
const char *const maat_arc_opening_names[4] = {"none", "left", "right",
                                               "both"};

const char *maat_arc_reference_stones(size_t *len)
{
    *len = maat_arc_stones_data_len;
    return maat_arc_stones_data;
}

const char *maat_arc_reference_cards(size_t *len)
{
    *len = maat_arc_cards_data_len;
    return maat_arc_cards_data;
}

const char *maat_arc_reference_board(size_t *len)
{
    *len = maat_arc_board_data_len;
    return maat_arc_board_data;
}

int maat_arc_space(const maat_arc_board *b, int level, int pos)
{
    if (level < 1 || level > b->levels || pos < 0 || pos >= b->level_n[level])
        return -1;
    return b->level_first[level] + pos;
}

/* ---- lines and words (the kit's reader, kit.h) ----------------------- */

typedef struct parser {
    maat_kit_reader r; /* first: the line callbacks get &p->r */
    uint8_t seen[2][MAAT_ARC_MAX_LARGE > MAAT_ARC_MAX_CARDS
                        ? MAAT_ARC_MAX_LARGE : MAAT_ARC_MAX_CARDS];
    int count[2];
} parser;

#define FAIL(p, ...) maat_kit_fail(&(p)->r, __VA_ARGS__)
#define MAX_WORDS MAAT_KIT_MAX_WORDS

static int each_line(parser *p, const char *text, size_t len,
                     int (*one_line)(maat_kit_reader *r))
{
    return maat_kit_lines(&p->r, text, len, MAX_WORDS, one_line);
}

static int number(parser *p, const char *word, const char *what, int lo,
                  int hi, int *out)
{
    return maat_kit_number(&p->r, word, what, lo, hi, out);
}

/* The index of `word` in names[0..n), or a failure listing them. */
static int one_of(parser *p, const char *word, const char *what,
                  const char *const *names, int n, int *out)
{
    for (int i = 0; i < n; i++)
        if (strcmp(word, names[i]) == 0) {
            *out = i;
            return MAAT_OK;
        }
    char list[160] = "";
    for (int i = 0; i < n; i++) {
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s%s", i ? " " : "", names[i]);
    }
    return FAIL(p, "unknown %s '%s' (use %s)", what, word, list);
}

static int want_words(parser *p, int n, const char *form)
{
    if (p->r.n != n)
        return FAIL(p, "expected '%s', got %d words", form,
                    p->r.n > MAX_WORDS ? MAX_WORDS + 1 : p->r.n);
    return MAAT_OK;
}

/* An id in 0..max-1 not seen before in table t. */
static int new_id(parser *p, int t, const char *word, const char *what,
                  int max, int *out)
{
    int rc = number(p, word, what, 0, max - 1, out);
    if (rc)
        return rc;
    if (p->seen[t][*out])
        return FAIL(p, "duplicate %s %d", what, *out);
    p->seen[t][*out] = 1;
    p->count[t]++;
    return MAAT_OK;
}

/* After the last line: ids 0..count-1 each present. */
static int ids_dense(parser *p, int t, const char *what, int min)
{
    if (p->count[t] < min)
        return FAIL(p, "%d %ss; at least %d are needed", p->count[t], what,
                    min);
    for (int i = 0; i < p->count[t]; i++)
        if (!p->seen[t][i])
            return FAIL(p, "%s ids must be 0..%d, each once; %d is missing",
                        what, p->count[t] - 1, i);
    return MAAT_OK;
}

/* ---- stones --------------------------------------------------------- */

static int stone_line(maat_kit_reader *r)
{
    parser *p = (parser *)r;
    maat_arc_stones *s = p->r.out;
    int id = 0, v = 0, rc;
    if (strcmp(p->r.w[0], "large") == 0) {
        if ((rc = want_words(p, 6, "large <id> <colour> <openings> "
                                   "<sarcophagus> <symbol>")) ||
            (rc = new_id(p, 0, p->r.w[1], "large stone id", MAAT_ARC_MAX_LARGE,
                         &id)))
            return rc;
        maat_arc_large *l = &s->large[id];
        if ((rc = one_of(p, p->r.w[2], "colour", maat_arc_colour_names,
                         MAAT_ARC_COLOURS, &v)))
            return rc;
        l->colour = (uint8_t)v;
        if ((rc = one_of(p, p->r.w[3], "openings", maat_arc_opening_names, 4,
                         &v)))
            return rc;
        l->open = (uint8_t)v; /* none 0, left 1, right 2, both 3: the bits */
        static const char *const sarc[] = {"-", "sarcophagus"};
        if ((rc = one_of(p, p->r.w[4], "sarcophagus", sarc, 2, &v)))
            return rc;
        l->sarcophagus = (uint8_t)v;
        if ((rc = one_of(p, p->r.w[5], "symbol", maat_arc_symbol_names,
                         MAAT_ARC_SYMBOLS, &v)))
            return rc;
        l->symbol = (uint8_t)v;
        return MAAT_OK;
    }
    if (strcmp(p->r.w[0], "small") == 0) {
        if ((rc = want_words(p, 4, "small <id> <colour> <workers>")) ||
            (rc = new_id(p, 1, p->r.w[1], "small stone id", MAAT_ARC_MAX_SMALL,
                         &id)))
            return rc;
        if ((rc = one_of(p, p->r.w[2], "colour", maat_arc_colour_names,
                         MAAT_ARC_COLOURS, &v)))
            return rc;
        s->small[id].colour = (uint8_t)v;
        if ((rc = number(p, p->r.w[3], "workers", 1, 3, &v)))
            return rc;
        s->small[id].workers = (uint8_t)v;
        return MAAT_OK;
    }
    return FAIL(p, "a line starts with 'large' or 'small', not '%s'",
                p->r.w[0]);
}

int maat_arc_stones_parse(maat_arc_stones *s, const char *text, size_t len,
                          const char *name, maat_error *err)
{
    parser p;
    memset(&p, 0, sizeof p);
    memset(s, 0, sizeof *s);
    p.r.name = name;
    p.r.err = err;
    p.r.out = s;
    int rc = each_line(&p, text, len, stone_line);
    if (!rc)
        rc = ids_dense(&p, 0, "large stone", 1);
    if (!rc)
        rc = ids_dense(&p, 1, "small stone", 1);
    if (rc)
        return rc;
    s->n_large = p.count[0];
    s->n_small = p.count[1];
    return MAAT_OK;
}

/* ---- cards ---------------------------------------------------------- */

static int card_line(maat_kit_reader *r)
{
    parser *p = (parser *)r;
    maat_arc_cards *c = p->r.out;
    int id = 0, v = 0, rc;
    if (strcmp(p->r.w[0], "card") != 0)
        return FAIL(p, "a line starts with 'card', not '%s'", p->r.w[0]);
    if ((rc = want_words(p, 3, "card <id> <kind>")) ||
        (rc = new_id(p, 0, p->r.w[1], "card id", MAAT_ARC_MAX_CARDS, &id)) ||
        (rc = one_of(p, p->r.w[2], "card kind", maat_arc_card_names,
                     MAAT_ARC_CARD_KINDS, &v)))
        return rc;
    c->kind[id] = (uint8_t)v;
    return MAAT_OK;
}

int maat_arc_cards_parse(maat_arc_cards *c, const char *text, size_t len,
                         const char *name, maat_error *err)
{
    parser p;
    memset(&p, 0, sizeof p);
    memset(c, 0, sizeof *c);
    p.r.name = name;
    p.r.err = err;
    p.r.out = c;
    int rc = each_line(&p, text, len, card_line);
    if (!rc)
        rc = ids_dense(&p, 0, "card", 1);
    if (rc)
        return rc;
    c->n = p.count[0];
    return MAAT_OK;
}

/* ---- the board ------------------------------------------------------ */

/* A piece word: "L.p", "L.left", "L.right" or "bottom" -> piece index. */
static int piece(parser *p, const char *word, int *out)
{
    maat_arc_board *b = p->r.out;
    if (strcmp(word, "bottom") == 0) {
        *out = maat_arc_bottom(b);
        return MAAT_OK;
    }
    const char *dot = strchr(word, '.');
    char lv[16];
    if (!dot || (size_t)(dot - word) >= sizeof lv)
        return FAIL(p, "'%s' is not a piece (L.p, L.left, L.right or "
                    "bottom)", word);
    memcpy(lv, word, (size_t)(dot - word));
    lv[dot - word] = 0;
    int level = 0, pos = 0, rc;
    if ((rc = number(p, lv, "level", 1, MAAT_ARC_MAX_LEVELS, &level)))
        return rc;
    if (level > b->levels)
        return FAIL(p, "piece '%s': level %d is not declared (yet)", word,
                    level);
    if (strcmp(dot + 1, "left") == 0 || strcmp(dot + 1, "right") == 0) {
        *out = maat_arc_small_piece(b, level, dot[1] == 'r');
        return MAAT_OK;
    }
    if ((rc = number(p, dot + 1, "position", 0, MAAT_ARC_MAX_SPACES, &pos)))
        return rc;
    if (pos >= b->level_n[level])
        return FAIL(p, "piece '%s': level %d has positions 0..%d", word,
                    level, b->level_n[level] - 1);
    *out = b->level_first[level] + pos;
    return MAAT_OK;
}

/* Which sections have been seen, for the order rules. */
enum { SEEN_COMMON = 1, SEEN_FACEUP = 2, SEEN_PIECES = 4 };

static int board_line(maat_kit_reader *r)
{
    parser *p = (parser *)r;
    maat_arc_board *b = p->r.out;
    int *seen = &p->count[1];
    int v = 0, a = 0, c = 0, rc;
    const char *w = p->r.w[0];
    if (strcmp(w, "common") == 0 || strcmp(w, "faceup") == 0) {
        int common = w[0] == 'c';
        int flag = common ? SEEN_COMMON : SEEN_FACEUP;
        if ((rc = want_words(p, 2, common ? "common <n>" : "faceup <n>")))
            return rc;
        if (*seen & flag)
            return FAIL(p, "'%s' given twice", w);
        if ((rc = number(p, p->r.w[1], w, common ? 2 : 1,
                         common ? MAAT_ARC_MAX_COMMON : MAAT_ARC_MAX_FACEUP,
                         &v)))
            return rc;
        *seen |= flag;
        if (common)
            b->common = v;
        else
            b->faceup = v;
        return MAAT_OK;
    }
    if (strcmp(w, "level") == 0) {
        if ((rc = want_words(p, 3, "level <L> <large spaces>")))
            return rc;
        if (*seen & SEEN_PIECES)
            return FAIL(p, "levels come before every spot and touch");
        if ((rc = number(p, p->r.w[1], "level", 1, MAAT_ARC_MAX_LEVELS, &v)))
            return rc;
        if (v != b->levels + 1)
            return FAIL(p, "level %d out of order: levels are 1, 2, ... "
                        "and the next is %d", v, b->levels + 1);
        if ((rc = number(p, p->r.w[2], "large spaces", 0, MAAT_ARC_MAX_SPACES,
                         &a)))
            return rc;
        if (b->n_large + a > MAAT_ARC_MAX_SPACES)
            return FAIL(p, "more than %d large spaces in all",
                        MAAT_ARC_MAX_SPACES);
        b->levels = v;
        b->level_n[v] = a;
        b->level_first[v] = b->n_large;
        for (int i = 0; i < a; i++) {
            b->space_level[b->n_large + i] = (uint8_t)v;
            b->space_pos[b->n_large + i] = (uint8_t)i;
        }
        b->n_large += a;
        return MAAT_OK;
    }
    if (strcmp(w, "spot") == 0 || strcmp(w, "touch") == 0) {
        int spot = w[0] == 's';
        if ((rc = want_words(p, 3, spot ? "spot <large space> <large space>"
                                        : "touch <piece> <piece>")))
            return rc;
        if (b->levels == 0)
            return FAIL(p, "'%s' before any level", w);
        *seen |= SEEN_PIECES;
        if ((rc = piece(p, p->r.w[1], &a)) || (rc = piece(p, p->r.w[2], &c)))
            return rc;
        if (a == c)
            return FAIL(p, "a %s joins two different pieces, not '%s' with "
                        "itself", w, p->r.w[1]);
        if (spot) {
            if (a >= b->n_large || c >= b->n_large)
                return FAIL(p, "a card spot is between two large spaces");
            for (int i = 0; i < b->n_spots; i++)
                if ((b->spot[i][0] == a && b->spot[i][1] == c) ||
                    (b->spot[i][0] == c && b->spot[i][1] == a))
                    return FAIL(p, "card spot %s %s given twice", p->r.w[1],
                                p->r.w[2]);
            if (b->n_spots == MAAT_ARC_MAX_SPOTS)
                return FAIL(p, "more than %d card spots", MAAT_ARC_MAX_SPOTS);
            b->spot[b->n_spots][0] = (uint8_t)a;
            b->spot[b->n_spots][1] = (uint8_t)c;
            b->n_spots++;
        } else {
            if (b->touch[a] >> c & 1)
                return FAIL(p, "touch %s %s given twice", p->r.w[1], p->r.w[2]);
            b->touch[a] |= 1ull << c;
            b->touch[c] |= 1ull << a;
        }
        return MAAT_OK;
    }
    return FAIL(p, "a line starts with common, faceup, level, spot or "
                "touch, not '%s'", w);
}

int maat_arc_board_parse(maat_arc_board *b, const char *text, size_t len,
                         const char *name, maat_error *err)
{
    parser p;
    memset(&p, 0, sizeof p);
    memset(b, 0, sizeof *b);
    p.r.name = name;
    p.r.err = err;
    p.r.out = b;
    /* The small spaces and the bottom are numbered after the large spaces,
     * so a level declared after a touch would renumber them: levels first
     * (board_line enforces it). */
    int rc = each_line(&p, text, len, board_line);
    if (rc)
        return rc;
    if (!(p.count[1] & SEEN_COMMON))
        return FAIL(&p, "no 'common <n>' line");
    if (!(p.count[1] & SEEN_FACEUP))
        return FAIL(&p, "no 'faceup <n>' line");
    if (b->n_large == 0)
        return FAIL(&p, "no large space: give 'level <L> <n>' lines");
    return MAAT_OK;
}

/* ---- files ---------------------------------------------------------- */

/* The parsers as maat_kit_parse_fn (architects.c loads the components). */
int maat_arc_parse_stones(void *o, const char *t, size_t n, const char *name,
                     maat_error *err)
{
    return maat_arc_stones_parse(o, t, n, name, err);
}
int maat_arc_parse_cards(void *o, const char *t, size_t n, const char *name,
                    maat_error *err)
{
    return maat_arc_cards_parse(o, t, n, name, err);
}
int maat_arc_parse_board(void *o, const char *t, size_t n, const char *name,
                    maat_error *err)
{
    return maat_arc_board_parse(o, t, n, name, err);
}

int maat_arc_stones_load(maat_arc_stones *s, const char *path,
                         maat_error *err)
{
    return maat_kit_load(path, "stones", maat_arc_parse_stones, s, err);
}

int maat_arc_cards_load(maat_arc_cards *c, const char *path, maat_error *err)
{
    return maat_kit_load(path, "cards", maat_arc_parse_cards, c, err);
}

int maat_arc_board_load(maat_arc_board *b, const char *path, maat_error *err)
{
    return maat_kit_load(path, "board", maat_arc_parse_board, b, err);
}

int maat_arc_setup_check(const maat_setup *s, maat_error *err)
{
    const maat_arc_board *b = &s->board;
    int need = MAAT_ARC_MAX_SEATS * b->n_large;
    if (s->stones.n_large < need)
        return maat_error_set(err, MAAT_EFORMAT, "%s: %d large stones; %d "
                              "seats filling %d large spaces each (%s) need "
                              "%d", s->stones_name, s->stones.n_large,
                              MAAT_ARC_MAX_SEATS, b->n_large, s->board_name,
                              need);
    need = MAAT_ARC_MAX_SEATS * b->n_spots;
    if (s->cards.n < need)
        return maat_error_set(err, MAAT_EFORMAT, "%s: %d cards; %d seats "
                              "with %d card spots each (%s) need %d",
                              s->cards_name, s->cards.n, MAAT_ARC_MAX_SEATS,
                              b->n_spots, s->board_name, need);
    return MAAT_OK;
}
