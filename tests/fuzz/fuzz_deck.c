/* fuzz_deck.c -- libFuzzer target: a Pyramids deck file
 * (maat_pyr_deck_parse, the reader behind --deck).
 *
 * The input is the file's bytes.  Invariants (abort() when broken):
 *  - a refused file is refused with MAAT_EFORMAT and a message that starts
 *    with the file name ("name:line: reason");
 *  - an accepted deck has 105 cards of 2 or 3 stones, each stone one of the
 *    five colours, each glyph one of the four;
 *  - written back in the canonical form ("<id> <stones> <glyph>" lines) it
 *    parses to the same deck;
 *  - a whole game plays with it: random legal moves to the end, then the
 *    scores (which read the stones and glyphs), every rank in 1..seats.
 * Nothing is printed; everything allocated is freed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maat/game.h"
#include "maat/internal/pyramids.h"
#include "maat/rng.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                         \
    do {                                                                    \
        if (!(cond))                                                        \
            abort();                                                        \
    } while (0)

#define NAME "fuzz-deck.txt"

static void check_cards(const maat_pyr_deck *d)
{
    for (int i = 0; i < MAAT_PYR_CARDS; i++) {
        const maat_pyr_card *c = &d->card[i];
        CHECK(c->n_stones == 2 || c->n_stones == 3);
        for (int k = 0; k < c->n_stones; k++)
            CHECK(c->stone[k] < MAAT_PYR_COLOURS);
        CHECK(c->glyph <= MAAT_PYR_GLYPH_TOMB);
    }
}

/* The canonical text of a deck; returns its length. */
static size_t write_deck(const maat_pyr_deck *d, char *out, size_t cap)
{
    size_t len = 0;
    for (int i = 0; i < MAAT_PYR_CARDS; i++) {
        const maat_pyr_card *c = &d->card[i];
        char stones[4] = {0};
        for (int k = 0; k < c->n_stones; k++)
            stones[k] = "BWRGY"[c->stone[k]];
        int n = snprintf(out + len, cap - len, "%d %s %s\n", i, stones,
                         maat_pyr_glyph_names[c->glyph]);
        CHECK(n > 0 && (size_t)n < cap - len);
        len += (size_t)n;
    }
    return len;
}

static void play(const maat_pyr_deck *d, uint64_t seed, int seats)
{
    const maat_rules *r = &maat_pyramids_rules;
    maat_error e = {0, ""};
    maat_setup *setup = r->setup_new(NULL, &e);
    CHECK(setup);
    maat_seed key;
    maat_seed_from_u64(&key, seed);
    maat_game *g = r->game_new(setup, &key, seats, NULL, &e);
    CHECK(g);
    maat_pyr_state_mut(g)->deck = d; /* the fuzzed deck, for the scores */
    maat_rng rng;
    maat_rng_seed(&rng, &key);
    maat_action legal[512];
    while (!r->is_over(g)) {
        int n = r->legal_actions(g, legal, 512);
        CHECK(n > 0 && n <= 512);
        CHECK(r->apply(g, &legal[maat_rng_below(&rng, (uint32_t)n)], NULL,
                       &e) == MAAT_OK);
    }
    maat_score sc[MAAT_MAX_SEATS];
    r->scores(g, sc);
    for (int s = 0; s < seats; s++)
        CHECK(sc[s].rank >= 1 && sc[s].rank <= seats);
    r->destroy(&g);
    r->setup_destroy(&setup);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static maat_pyr_deck d, back;
    maat_error e = {0, ""};
    memset(&d, 0, sizeof d);
    int rc = maat_pyr_deck_parse(&d, (const char *)data, size, NAME, &e);
    if (rc != MAAT_OK) {
        CHECK(rc == MAAT_EFORMAT && e.code == rc);
        CHECK(strncmp(e.msg, NAME ":", strlen(NAME ":")) == 0);
        return 0;
    }
    check_cards(&d);

    static char text[MAAT_PYR_CARDS * 32];
    size_t len = write_deck(&d, text, sizeof text);
    memset(&back, 0, sizeof back);
    CHECK(maat_pyr_deck_parse(&back, text, len, NAME, &e) == MAAT_OK);
    CHECK(memcmp(&d, &back, sizeof d) == 0);

    uint64_t seed = 0;
    for (size_t i = 0; i < size; i++)
        seed = seed * 131 + data[i];
    play(&d, seed, 2 + (int)(seed % 4));
    return 0;
}
