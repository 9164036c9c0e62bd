/* test_pyramids_deck.c -- the reference deck and the deck file reader.
 *
 * Proves: the deck built into the library has exactly the composition the
 * rules page (docs/rules/pyramids.md, "The reference deck") prescribes,
 * the file in sdk/data is the same deck, and a deck file that breaks the
 * format is refused -- from memory, from a file and through the "deck"
 * option of setup_new -- with the file name, the line and the reason; and
 * that what scoring reads of each card (maat_pyr_card_scoring, worked out
 * once per deck) is what its stones say, for the reference deck as read
 * and for every possible card (the SDK's decoder is held to the same
 * bytes by test_pyramids_view).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "maat/internal/pyramids.h"

static maat_pyr_deck ref;

static int load_reference(void)
{
    size_t len;
    const char *text = maat_pyr_reference_deck_text(&len);
    maat_error err = {0, ""};
    int rc = maat_pyr_deck_parse(&ref, text, len, "pyramids-deck.txt", &err);
    CHECK(rc == MAAT_OK, "reference deck refused: %s", err.msg);
    return rc == MAAT_OK;
}

/* ---- composition of the reference deck ------------------------------ */

static int count_of(const maat_pyr_card *c, int colour)
{
    int n = 0;
    for (int k = 0; k < c->n_stones; k++)
        n += c->stone[k] == colour;
    return n;
}

static void card_sizes(void)
{
    int two = 0, three = 0, other = 0;
    for (int i = 0; i < MAAT_PYR_CARDS; i++) {
        int n = ref.card[i].n_stones;
        two += n == 2;
        three += n == 3;
        other += n != 2 && n != 3;
        for (int k = 0; k < n && k < 3; k++)
            CHECK(ref.card[i].stone[k] < MAAT_PYR_COLOURS,
                  "card %d stone %d has colour %d", i, k,
                  ref.card[i].stone[k]);
    }
    CHECK(two == 45, "%d two-stone cards, want 45", two);
    CHECK(three == 60, "%d three-stone cards, want 60", three);
    CHECK(other == 0, "%d cards with neither 2 nor 3 stones", other);
}

static void stones_per_colour(void)
{
    for (int c = 0; c < MAAT_PYR_COLOURS; c++) {
        int on2 = 0, on3 = 0;
        for (int i = 0; i < MAAT_PYR_CARDS; i++) {
            if (ref.card[i].n_stones == 2)
                on2 += count_of(&ref.card[i], c);
            else
                on3 += count_of(&ref.card[i], c);
        }
        CHECK(on2 == 18, "%s: %d stones on two-stone cards, want 18",
              maat_pyr_colour_names[c], on2);
        CHECK(on3 == 36, "%s: %d stones on three-stone cards, want 36",
              maat_pyr_colour_names[c], on3);
        CHECK(on2 + on3 == 54, "%s: %d stones, want 54",
              maat_pyr_colour_names[c], on2 + on3);
    }
}

/* Two-stone cards: each {A,B} A != B three times with both orders, each AA
 * three times. */
static void two_stone_patterns(void)
{
    int ordered[5][5] = {{0}};
    for (int i = 0; i < MAAT_PYR_CARDS; i++)
        if (ref.card[i].n_stones == 2)
            ordered[ref.card[i].stone[0]][ref.card[i].stone[1]]++;
    for (int a = 0; a < 5; a++) {
        CHECK(ordered[a][a] == 3, "%s%s: %d cards, want 3",
              maat_pyr_colour_names[a], maat_pyr_colour_names[a],
              ordered[a][a]);
        for (int b = a + 1; b < 5; b++) {
            CHECK(ordered[a][b] + ordered[b][a] == 3,
                  "{%s,%s}: %d two-stone cards, want 3",
                  maat_pyr_colour_names[a], maat_pyr_colour_names[b],
                  ordered[a][b] + ordered[b][a]);
            CHECK(ordered[a][b] >= 1 && ordered[b][a] >= 1,
                  "{%s,%s}: orders %d/%d, want both present",
                  maat_pyr_colour_names[a], maat_pyr_colour_names[b],
                  ordered[a][b], ordered[b][a]);
        }
    }
}

/* Three-stone cards: each 3-colour set three times in 3 different
 * orderings; each (A,A,B) ordered pair once with B cycling over the
 * positions; each AAA twice. */
static void three_stone_patterns(void)
{
    int sets[5][5][5] = {{{0}}}; /* by sorted colours */
    int orders[5][5][5] = {{{0}}}; /* by printed order */
    int aab[5][5] = {{0}}, aaa[5] = {0}, odd_pos[3] = {0}, distinct = 0;
    for (int i = 0; i < MAAT_PYR_CARDS; i++) {
        const maat_pyr_card *c = &ref.card[i];
        if (c->n_stones != 3)
            continue;
        int x = c->stone[0], y = c->stone[1], z = c->stone[2];
        if (x != y && y != z && x != z) {
            int s[3] = {x, y, z};
            for (int p = 0; p < 3; p++)
                for (int q = p + 1; q < 3; q++)
                    if (s[q] < s[p]) {
                        int t = s[p];
                        s[p] = s[q];
                        s[q] = t;
                    }
            sets[s[0]][s[1]][s[2]]++;
            orders[x][y][z]++;
            distinct++;
        } else if (x == y && y == z) {
            aaa[x]++;
        } else {
            /* two of A and one of B: find B and its position */
            int pos = x == y ? 2 : (x == z ? 1 : 0);
            int b = c->stone[pos], a = c->stone[(pos + 1) % 3];
            aab[a][b]++;
            odd_pos[pos]++;
        }
    }
    CHECK(distinct == 30, "%d three-colour cards, want 30", distinct);
    for (int a = 0; a < 5; a++)
        for (int b = a + 1; b < 5; b++)
            for (int c = b + 1; c < 5; c++) {
                CHECK(sets[a][b][c] == 3, "set {%d,%d,%d}: %d cards, want 3",
                      a, b, c, sets[a][b][c]);
                /* 3 copies in 3 different orderings: no order twice */
                int perm[6][3] = {{a, b, c}, {a, c, b}, {b, a, c},
                                  {b, c, a}, {c, a, b}, {c, b, a}};
                int kinds = 0;
                for (int p = 0; p < 6; p++) {
                    int n = orders[perm[p][0]][perm[p][1]][perm[p][2]];
                    CHECK(n <= 1, "set {%d,%d,%d}: an ordering %d times",
                          a, b, c, n);
                    kinds += n > 0;
                }
                CHECK(kinds == 3, "set {%d,%d,%d}: %d orderings, want 3", a,
                      b, c, kinds);
            }
    for (int a = 0; a < 5; a++) {
        CHECK(aaa[a] == 2, "%s x3: %d cards, want 2",
              maat_pyr_colour_names[a], aaa[a]);
        CHECK(aab[a][a] == 0, "impossible AAB with B == A");
        for (int b = 0; b < 5; b++)
            if (b != a)
                CHECK(aab[a][b] == 1, "two %s + one %s: %d cards, want 1",
                      maat_pyr_colour_names[a], maat_pyr_colour_names[b],
                      aab[a][b]);
    }
    /* 20 cards, B cycling left/middle/right: 7/7/6 in some order */
    for (int p = 0; p < 3; p++)
        CHECK(odd_pos[p] >= 6 && odd_pos[p] <= 7,
              "the odd stone is at position %d on %d AAB cards, want 6-7",
              p, odd_pos[p]);
}

static void glyphs(void)
{
    int on2[4] = {0}, on3[4] = {0};
    for (int i = 0; i < MAAT_PYR_CARDS; i++) {
        int g = ref.card[i].glyph;
        CHECK(g <= MAAT_PYR_GLYPH_TOMB, "card %d glyph %d", i, g);
        if (g > MAAT_PYR_GLYPH_TOMB)
            continue;
        if (ref.card[i].n_stones == 2)
            on2[g]++;
        else
            on3[g]++;
    }
    for (int g = MAAT_PYR_GLYPH_PYRAMID; g <= MAAT_PYR_GLYPH_TOMB; g++) {
        CHECK(on2[g] == 5, "%s glyph on %d two-stone cards, want 5",
              maat_pyr_glyph_names[g], on2[g]);
        CHECK(on3[g] == 10, "%s glyph on %d three-stone cards, want 10",
              maat_pyr_glyph_names[g], on3[g]);
    }
    CHECK(on2[0] + on3[0] == 60, "%d cards without glyph, want 105-45 = 60",
          on2[0] + on3[0]);
}

/* The data file in the source tree is the deck built into the library. */
static void data_file_is_reference(void)
{
    const char *root = getenv("MAAT_SOURCE_ROOT");
    if (!root)
        return; /* run outside meson test */
    char path[1024];
    snprintf(path, sizeof path, "%s/sdk/data/pyramids-deck.txt", root);
    maat_pyr_deck d;
    memset(&d, 0, sizeof d);
    maat_error err = {0, ""};
    int rc = maat_pyr_deck_load(&d, path, &err);
    CHECK(rc == MAAT_OK, "loading %s: %s", path, err.msg);
    CHECK(rc || memcmp(&d, &ref, sizeof d) == 0,
          "%s differs from the built-in reference deck", path);
}

/* ---- refusing broken files ------------------------------------------ */

/* A valid deck text without comments: line k+1 holds card k. */
static char *deck_text(const maat_pyr_deck *d)
{
    char *buf = malloc(MAAT_PYR_CARDS * 32 + 1), *p = buf;
    for (int i = 0; i < MAAT_PYR_CARDS; i++) {
        const maat_pyr_card *c = &d->card[i];
        p += sprintf(p, "%d ", i);
        for (int k = 0; k < c->n_stones; k++)
            *p++ = "BWRGY"[c->stone[k]];
        p += sprintf(p, " %s\n", maat_pyr_glyph_names[c->glyph]);
    }
    *p = 0;
    return buf;
}

/* deck_text with line `lineno` (1-based) replaced by `repl` (a whole line
 * with its '\n', or "" to drop it), and `extra` appended. */
static char *variant(int lineno, const char *repl, const char *extra)
{
    char *base = deck_text(&ref);
    size_t cap = strlen(base) + strlen(repl) + strlen(extra) + 1;
    char *out = malloc(cap), *o = out, *p = base;
    for (int l = 1; *p; l++) {
        char *nl = strchr(p, '\n');
        size_t n = (size_t)(nl - p) + 1;
        if (l == lineno)
            o += sprintf(o, "%s", repl);
        else {
            memcpy(o, p, n);
            o += n;
        }
        p += n;
    }
    sprintf(o, "%s", extra);
    free(base);
    return out;
}

static char tmp_path[64];

static void write_tmp(const char *text)
{
    snprintf(tmp_path, sizeof tmp_path, "/tmp/maat-deck-XXXXXX");
    int fd = mkstemp(tmp_path);
    CHECK(fd >= 0, "mkstemp failed");
    if (fd < 0)
        return;
    size_t len = strlen(text);
    CHECK(write(fd, text, len) == (ssize_t)len, "short write");
    close(fd);
}

struct bad_case {
    const char *what;
    int lineno;        /* line replaced (0 = none) */
    const char *repl;  /* its replacement */
    const char *extra; /* appended lines */
    int want_line;     /* line the message must name, 0 = any */
    const char *reason; /* a word the message must contain */
};

static void expect_refused(const struct bad_case *b)
{
    char *text = variant(b->lineno, b->repl, b->extra);
    maat_pyr_deck d;
    maat_error err = {0, ""};
    char where[128];

    /* from memory */
    int rc = maat_pyr_deck_parse(&d, text, strlen(text), "t.txt", &err);
    CHECK(rc == MAAT_EFORMAT && err.code == MAAT_EFORMAT,
          "%s: parse returned %d, want MAAT_EFORMAT", b->what, rc);
    if (b->want_line)
        snprintf(where, sizeof where, "t.txt:%d:", b->want_line);
    else
        snprintf(where, sizeof where, "t.txt:");
    CHECK(strstr(err.msg, where) != NULL, "%s: message '%s' lacks '%s'",
          b->what, err.msg, where);
    CHECK(strstr(err.msg, b->reason) != NULL, "%s: message '%s' lacks '%s'",
          b->what, err.msg, b->reason);

    /* from a file */
    write_tmp(text);
    memset(&err, 0, sizeof err);
    rc = maat_pyr_deck_load(&d, tmp_path, &err);
    CHECK(rc == MAAT_EFORMAT, "%s: load returned %d, want MAAT_EFORMAT",
          b->what, rc);
    if (b->want_line)
        snprintf(where, sizeof where, "%s:%d:", tmp_path, b->want_line);
    else
        snprintf(where, sizeof where, "%s:", tmp_path);
    CHECK(strstr(err.msg, where) != NULL, "%s: message '%s' lacks '%s'",
          b->what, err.msg, where);
    CHECK(strstr(err.msg, b->reason) != NULL, "%s: message '%s' lacks '%s'",
          b->what, err.msg, b->reason);

    /* through the "deck" option */
    maat_options opt = {0, {0}, {0}};
    maat_options_set(&opt, "deck", tmp_path);
    memset(&err, 0, sizeof err);
    maat_setup *s = maat_pyramids_rules.setup_new(&opt, &err);
    CHECK(s == NULL, "%s: setup_new accepted a bad deck file", b->what);
    if (s)
        maat_pyramids_rules.setup_destroy(&s);
    CHECK(err.code == MAAT_EFORMAT, "%s: setup_new error code %d", b->what,
          err.code);
    CHECK(strstr(err.msg, where) != NULL && strstr(err.msg, b->reason),
          "%s: setup_new message '%s' lacks '%s' or '%s'", b->what, err.msg,
          where, b->reason);

    unlink(tmp_path);
    free(text);
}

static void bad_files(void)
{
    static const struct bad_case cases[] = {
        {"104 cards", 50, "", "", 0, "104"},
        {"106 cards (id 105)", 0, "", "105 BW -\n", 106, "105"},
        {"106 cards (id repeated)", 0, "", "7 BW -\n", 106, "duplicate"},
        {"unknown colour", 3, "2 BX -\n", "", 3, "colour"},
        {"lower-case colour", 3, "2 bw -\n", "", 3, "colour"},
        {"1 stone", 3, "2 B -\n", "", 3, "stones"},
        {"4 stones", 3, "2 BWRG -\n", "", 3, "stones"},
        {"duplicate id", 3, "1 BW -\n", "", 3, "duplicate"},
        {"id out of range", 3, "105 BW -\n", "", 3, "105"},
        {"negative id", 3, "-1 BW -\n", "", 3, "-1"},
        {"id not a number", 3, "two BW -\n", "", 3, "two"},
        {"unknown glyph", 3, "2 BW sphinx\n", "", 3, "glyph"},
        {"missing glyph", 3, "2 BW\n", "", 3, "expected"},
        {"extra word", 3, "2 BW - more\n", "", 3, "expected"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_refused(&cases[i]);
}

/* Comments and blank lines are allowed; the result is the same deck. */
static void comments_and_blanks(void)
{
    char *base = deck_text(&ref);
    size_t cap = strlen(base) + 200;
    char *text = malloc(cap);
    snprintf(text, cap, "# a comment\n\n   \n%s# the end\n", base);
    maat_pyr_deck d;
    maat_error err = {0, ""};
    int rc = maat_pyr_deck_parse(&d, text, strlen(text), "t.txt", &err);
    CHECK(rc == MAAT_OK, "deck with comments refused: %s", err.msg);
    CHECK(rc || memcmp(&d, &ref, sizeof d) == 0,
          "deck with comments parsed differently");
    /* the same deck through the deck option is accepted */
    write_tmp(text);
    maat_options opt = {0, {0}, {0}};
    maat_options_set(&opt, "deck", tmp_path);
    maat_setup *s = maat_pyramids_rules.setup_new(&opt, &err);
    CHECK(s != NULL, "setup_new refused a good deck file: %s", err.msg);
    if (s)
        maat_pyramids_rules.setup_destroy(&s);
    CHECK(s == NULL, "setup_destroy did not clear the pointer");
    unlink(tmp_path);
    free(text);
    free(base);
}

static void missing_file(void)
{
    const char *path = "/tmp/maat-no-such-deck-file.txt";
    unlink(path);
    maat_pyr_deck d;
    maat_error err = {0, ""};
    int rc = maat_pyr_deck_load(&d, path, &err);
    CHECK(rc == MAAT_EIO && err.code == MAAT_EIO,
          "missing file: rc %d, want MAAT_EIO", rc);
    CHECK(strstr(err.msg, path) != NULL, "message '%s' lacks the path",
          err.msg);

    maat_options opt = {0, {0}, {0}};
    maat_options_set(&opt, "deck", path);
    memset(&err, 0, sizeof err);
    maat_setup *s = maat_pyramids_rules.setup_new(&opt, &err);
    CHECK(s == NULL, "setup_new accepted a missing deck file");
    CHECK(err.code == MAAT_EIO && strstr(err.msg, path),
          "setup_new: code %d message '%s'", err.code, err.msg);
}

/* ---- what scoring reads of a card ----------------------------------- */

/* c's scoring data, checked against its stones the long way: the runs of
 * one colour stone by stone, and the halves cell by cell (cell x of the 6
 * under stone x * n / 6). */
static void check_scoring(const maat_pyr_card *c,
                          const maat_pyr_card_scoring *k, const char *what,
                          int id)
{
    int n = c->n_stones, ok = k->n_stones == n && k->glyph == c->glyph;
    uint64_t stones = 0;
    unsigned shows = 0, left = 0, right = 0;
    int run_len = 0, run_colour = 0;
    for (int j = 0; j < n; j++) {
        stones += 1ull << 8 * c->stone[j];
        shows |= 1u << c->stone[j];
        int first = j, len = 1;
        while (first > 0 && c->stone[first - 1] == c->stone[j])
            first--;
        while (j + len < n && c->stone[j + len] == c->stone[j])
            len++;
        ok &= k->colour[j] == c->stone[j] && k->run[j] == first &&
              k->size[j] == (first == j ? len : 0);
        if (first == j && len >= 2 && len > run_len) {
            run_len = len;
            run_colour = c->stone[j];
        }
    }
    for (int j = n; j < 4; j++)
        ok &= k->colour[j] == 0 && k->run[j] == 0 && k->size[j] == 0;
    for (int x = 0; x < 6; x++)
        *(x < 3 ? &left : &right) |= 1u << c->stone[x * n / 6];
    ok &= k->stones == stones && k->shows == shows &&
          k->run_len == run_len && k->run_colour == run_colour &&
          k->left_half == left && k->right_half == right;
    for (int g = 0; g < 4; g++)
        ok &= k->glyph_is[g] == (c->glyph == g);
    CHECK(ok, "%s card %d: its scoring data does not match its stones",
          what, id);
}

static void scoring_data(void)
{
    for (int i = 0; i < MAAT_PYR_CARDS; i++)
        check_scoring(&ref.card[i], &ref.scoring[i], "reference", i);
    /* every card there can be: 25 + 125 stone rows, each glyph */
    static maat_pyr_deck all;
    int id = 0, tried = 0;
    for (int n = 2; n <= 3; n++)
        for (int row = 0; row < (n == 2 ? 25 : 125); row++)
            for (int g = 0; g < 4; g++) {
                maat_pyr_card *c = &all.card[id];
                memset(c, 0, sizeof *c);
                c->n_stones = (uint8_t)n;
                for (int j = 0, r = row; j < n; j++, r /= 5)
                    c->stone[j] = (uint8_t)(r % 5);
                c->glyph = (uint8_t)g;
                if (++id == MAAT_PYR_CARDS) {
                    maat_pyr_deck_derive(&all);
                    for (int k = 0; k < id; k++)
                        check_scoring(&all.card[k], &all.scoring[k], "made",
                                      tried + k);
                    tried += id;
                    id = 0;
                }
            }
    maat_pyr_deck_derive(&all);
    for (int k = 0; k < id; k++)
        check_scoring(&all.card[k], &all.scoring[k], "made", tried + k);
}

static void unknown_option(void)
{
    maat_options opt = {0, {0}, {0}};
    maat_options_set(&opt, "decks", "x.txt");
    maat_error err = {0, ""};
    maat_setup *s = maat_pyramids_rules.setup_new(&opt, &err);
    CHECK(s == NULL, "setup_new accepted an unknown option");
    if (s)
        maat_pyramids_rules.setup_destroy(&s);
    CHECK(err.code == MAAT_EINVAL, "unknown option: code %d, want EINVAL",
          err.code);
    CHECK(strstr(err.msg, "'decks'") != NULL,
          "unknown option message '%s' does not name the key", err.msg);

    /* no options at all and an empty option list: the reference deck */
    s = maat_pyramids_rules.setup_new(NULL, &err);
    CHECK(s != NULL, "setup_new(NULL) failed: %s", err.msg);
    maat_pyramids_rules.setup_destroy(&s);
    maat_options none = {0, {0}, {0}};
    s = maat_pyramids_rules.setup_new(&none, &err);
    CHECK(s != NULL, "setup_new(no options) failed: %s", err.msg);
    maat_pyramids_rules.setup_destroy(&s);
}

int main(void)
{
    if (load_reference()) {
        card_sizes();
        stones_per_colour();
        two_stone_patterns();
        three_stone_patterns();
        glyphs();
        data_file_is_reference();
        bad_files();
        comments_and_blanks();
        scoring_data();
    }
    missing_file();
    unknown_option();
    return check_done("pyramids_deck");
}
