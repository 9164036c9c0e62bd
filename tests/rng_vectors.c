/* rng_vectors.c -- print docs/RNG.md's known answers from the C library.
 *
 * The same lines, in the same order, as the reference Python in
 * docs/RNG.md prints; test_rng_doc.py runs both and compares them with
 * the Known answers block of the page.  Uses the games' real game_new
 * with the reference components.
 */
#include <stdio.h>
#include <string.h>

#include "maat/internal/architects.h"
#include "maat/game.h"
#include "maat/internal/pyramids.h"
#include "maat/internal/pyramix.h"
#include "maat/rng.h"

static maat_seed parse(const char *text)
{
    maat_seed s;
    maat_error err = {0};
    if (maat_seed_parse(&s, text, &err) != MAAT_OK) {
        fprintf(stderr, "rng-vectors: %s\n", err.msg);
        memset(&s, 0, sizeof s);
    }
    return s;
}

static void words(const char *label, const char *seed, int n)
{
    maat_seed s = parse(seed);
    maat_rng r;
    maat_rng_seed(&r, &s);
    printf("%s", label);
    for (int i = 0; i < n; i++)
        printf(" %08x", maat_rng_next32(&r));
    printf("\n");
}

static maat_game *deal(const char *name, const char *seed, int seats,
                       maat_setup **setup)
{
    const maat_rules *r = maat_rules_find(name);
    maat_options opt = {0};
    maat_error err = {0};
    maat_seed s = parse(seed);
    *setup = r->setup_new(&opt, &err);
    maat_game *g = *setup ? r->game_new(*setup, &s, seats, NULL, &err) : NULL;
    if (!g)
        fprintf(stderr, "rng-vectors: %s: %s\n", name, err.msg);
    return g;
}

static void done(const char *name, maat_game *g, maat_setup *setup)
{
    const maat_rules *r = maat_rules_find(name);
    r->destroy(&g);
    r->setup_destroy(&setup);
}

static void pyramids(int seats)
{
    maat_setup *setup;
    maat_game *g = deal("pyramids", "42", seats, &setup);
    if (!g)
        return;
    const maat_pyr_state *st = maat_pyr_state_of(g);
    if (seats == 4) {
        printf("pyramids 42 order:");
        for (int i = 0; i < MAAT_PYR_CARDS; i++)
            printf(" %d", st->order[i]);
        printf("\n");
    }
    printf("pyramids 42 %d seats: hands", seats);
    for (int i = 0; i < seats; i++)
        printf(" %d", st->seat[i].hand[0]);
    printf(" quarry");
    for (int i = 0; i < seats; i++)
        printf(" %d,%d", st->quarry[i][0], st->quarry[i][1]);
    if (seats == 2)
        printf(" set_aside %d", st->set_aside);
    printf("\n");
    done("pyramids", g, setup);
}

static void pyramix(void)
{
    maat_setup *setup;
    maat_game *g = deal("pyramix", "1", 2, &setup);
    if (!g)
        return;
    const maat_pmx_state *st = maat_pmx_state_of(g);
    printf("pyramix 1:");
    for (int p = 0; p < MAAT_PMX_PLACES; p++)
        printf(" %d", st->cube[p]);
    printf("\n");
    done("pyramix", g, setup);
}

static void architects(void)
{
    maat_setup *setup;
    maat_game *g = deal("architects", "42", 2, &setup);
    if (!g)
        return;
    const maat_arc_state *st = maat_arc_state_of(g);
    printf("architects 42 2 seats: common");
    for (int i = 0; i < st->board->common; i++)
        printf(" %d", st->common[i]);
    printf(" faceup");
    for (int i = 0; i < st->board->faceup; i++)
        printf(" %d", st->faceup[i]);
    printf(" hands %d %d\n", st->seat[0].hand[0], st->seat[1].hand[0]);
    done("architects", g, setup);
}

int main(void)
{
    char text[MAAT_SEED_TEXT];
    words("stream 0 words:", "0", 4);
    static const char *const seeds[] = {
        "7", "18446744073709551615",
        "0000000000000000010000000000000000000000000000000000000000000000"};
    for (int i = 0; i < 3; i++) {
        maat_seed s = parse(seeds[i]);
        printf("seed %s: ", seeds[i]);
        for (int k = 0; k < MAAT_SEED_BYTES; k++)
            printf("%02x", s.b[k]);
        printf(" short=%d format=%s\n", maat_seed_is_short(&s),
               maat_seed_format(&s, text));
    }
    maat_seed k42 = parse("42"), d;
    maat_seed_derive(&d, &k42, "game 1");
    printf("derive 42 'game 1': %s\n", maat_seed_format(&d, text));
    maat_seed_derive(&d, &k42, "policy");
    printf("derive 42 'policy': %s\n", maat_seed_format(&d, text));
    words("stream 42 words:", "42", 4);
    maat_rng r;
    maat_rng_seed(&r, &k42);
    static const uint32_t n[6] = {10, 105, 1000, 3, 2147483649u, 4294967295u};
    printf("below 42:");
    for (int i = 0; i < 6; i++)
        printf(" %u", maat_rng_below(&r, n[i]));
    printf("\n");
    pyramids(4);
    pyramids(2);
    pyramix();
    architects();
    return 0;
}
