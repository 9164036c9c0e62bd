/* test_render.c -- rules->render of each game: concrete positions drawn
 * where they belong, hidden information shown only to who may see it, and
 * snprintf's buffer contract (measure, cut short, NUL-terminated). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "maat/internal/architects.h"
#include "maat/internal/pyramids.h"
#include "maat/internal/pyramix.h"

static maat_game *new_game(const maat_rules *R, maat_setup **setup,
                           uint64_t seed, int seats)
{
    maat_error err = {0, ""};
    *setup = R->setup_new(NULL, &err);
    maat_game *g = *setup ? R->game_new(*setup, SEED(seed), seats, NULL, &err) : NULL;
    CHECK(g != NULL, "%s: cannot make a game: %s", R->name, err.msg);
    return g;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

#define HAS(text, s) CHECK(strstr(text, s) != NULL, "missing \"%s\" in:\n%s", s, text)
#define HASNT(text, s) CHECK(strstr(text, s) == NULL, "unexpected \"%s\" in:\n%s", s, text)

static void test_pyramids(void)
{
    const maat_rules *R = &maat_pyramids_rules;
    maat_setup *setup;
    maat_game *g = new_game(R, &setup, 1, 2);
    if (!g)
        return;
    maat_pyr_state *st = maat_pyr_state_mut(g);
    maat_pyr_seat *s0 = &st->seat[0], *s1 = &st->seat[1];
    memset(s0->grid, -1, sizeof s0->grid);
    s0->grid[0][MAAT_PYR_POS_OFFSET + 0] = 45; /* BWR, pyramid glyph */
    s0->grid[0][MAAT_PYR_POS_OFFSET + 1] = 0;  /* BW, pyramid glyph */
    s0->grid[1][MAAT_PYR_POS_OFFSET + 0] = 1;  /* WB on top of both */
    s0->pyramid_n = 3;
    s0->hand[0] = 2, s0->hand_n = 1;   /* BW */
    s0->tomb[0] = 3, s0->tomb_n = 1;   /* BR, obelisk glyph */
    s0->obelisk[0] = 46, s0->obelisk_n = 1;
    s1->hand[0] = 104, s1->hand_n = 1; /* YYY */
    s1->tomb_n = 0;

    char *own = maat_game_render(R, g, 0);
    char *other = maat_game_render(R, g, 1);
    char *all = maat_game_render(R, g, MAAT_OMNISCIENT);
    CHECK(own && other && all, "render failed");
    if (own && other && all) {
        HAS(own, "pyramids, 2 seats, round 1 of 10, first seat 0: seat 0 "
                 "to take a God tile\n");
        /* stage 1 half a card (5 columns) right of stage 0 */
        HAS(own, "\n  pyramid:\n         [1:WB    ]\n"
                 "    [45:BWR^ ][0:BW^   ]\n");
        HAS(own, "seat 0 (you): tile -; hand 2:BW; tomb 3:BR!\n"
                 "  obelisk: 46:WRB\n");
        HAS(own, "seat 1: tile -; hand 1 card; tomb 0 cards\n");
        HASNT(own, "104:YYY");
        /* seat 1 sees seat 0's pyramid and obelisk, not its hand or tomb */
        HAS(other, "seat 0: tile -; hand 1 card; tomb 1 card\n"
                   "  obelisk: 46:WRB\n");
        HAS(other, "    [45:BWR^ ][0:BW^   ]\n");
        HAS(other, "seat 1 (you): tile -; hand 104:YYY; tomb -\n");
        HASNT(other, "3:BR!");
        HAS(all, "seat 0: tile -; hand 2:BW; tomb 3:BR!\n");
        HAS(all, "seat 1: tile -; hand 104:YYY; tomb -\n");
        /* the round's quarry is public: the same line for everyone */
        char line[200];
        const char *q = strstr(own, "quarry:");
        CHECK(q && strchr(q, '\n'), "no quarry line");
        if (q && strchr(q, '\n')) {
            snprintf(line, sizeof line, "%.*s", (int)(strchr(q, '\n') - q), q);
            HAS(other, line);
            CHECK(count(line, ":") == 1 + 2 * 2, "two pairs of cards: %s", line);
        }
    }
    /* snprintf's contract: the whole length, cut short, NUL-terminated */
    int n = R->render(g, 0, NULL, 0);
    CHECK(own && n == (int)strlen(own), "measured %d, rendered %zu", n,
          own ? strlen(own) : 0);
    char small[16];
    memset(small, 'x', sizeof small);
    CHECK(R->render(g, 0, small, 10) == n, "a short buffer changes the "
          "length returned");
    CHECK(small[9] == 0 && small[10] == 'x' && own &&
          strncmp(small, own, 9) == 0, "not cut at 9 bytes + NUL");
    free(own);
    free(other);
    free(all);

    /* the end: every tomb revealed to everyone, and the scores by part */
    maat_rng rng;
    maat_rng_seed(&rng, SEED(7));
    maat_game *h = R->game_new(setup, SEED(3), 3, NULL, NULL);
    while (h && !R->is_over(h)) {
        maat_action a[512];
        int k = R->legal_actions(h, a, 512);
        R->apply(h, &a[maat_rng_below(&rng, (uint32_t)(k < 512 ? k : 512))],
                 NULL, NULL);
    }
    char *end = h ? maat_game_render(R, h, 2) : NULL;
    CHECK(end != NULL, "no rendering at the end");
    if (end) {
        HAS(end, ": the game is over\n");
        maat_score sc[3];
        R->scores(h, sc);
        char want[160];
        snprintf(want, sizeof want, "  seat 1: %d points, rank %d (groups %d, "
                 "largest %d, bonus %d, obelisk %d, tomb %d, glyphs %d)\n",
                 sc[1].total, sc[1].rank, sc[1].part[0], sc[1].part[1],
                 sc[1].part[2], sc[1].part[3], sc[1].part[4], sc[1].part[5]);
        HAS(end, want);
        HASNT(end, "card; tomb"); /* no tomb shown as a mere count */
        HASNT(end, "cards; tomb");
    }
    free(end);
    R->destroy(&h);
    R->destroy(&g);
    R->setup_destroy(&setup);
}

static void test_pyramix(void)
{
    const maat_rules *R = &maat_pyramix_rules;
    maat_setup *setup;
    /* seed 1 puts ids 32 (orange ankh), 18, 8, 2, 46 at places 0-4
     * (docs/rules/pyramix.md, docs/RNG.md): (0,0,0) is the apex */
    maat_game *g = new_game(R, &setup, 1, 2);
    if (!g)
        return;
    char *seat = maat_game_render(R, g, 0);
    char *all = maat_game_render(R, g, MAAT_OMNISCIENT);
    CHECK(seat && all, "render failed");
    if (seat && all) {
        HAS(seat, "pyramix, 2 seats, 0 removals: seat 0 to remove a cube\n");
        /* the first row: the apex, then row 0 of each layer */
        const char *row0 = strstr(seat, " tray\n");
        CHECK(row0 && strncmp(row0 + 6, "  Oa", 4) == 0,
              "the apex is not the orange ankh:\n%s", seat);
        /* the 10 inner places are unrevealed at the start */
        CHECK(count(seat, "??") == 10, "%d unrevealed, want 10:\n%s",
              count(seat, "??"), seat);
        CHECK(count(all, "??") == 0, "the omniscient view hides cubes");
        HAS(seat, "seat 0 (you) collected 0:\nseat 1 collected 0:\n");
    }
    /* remove the apex: seat 0 holds it, seat 1 is to move */
    maat_action a = {MAAT_PMX_REMOVE, {0, 0, 0, -1, -1, -1, -1}};
    maat_error err = {0, ""};
    CHECK(R->apply(g, &a, NULL, &err) == MAAT_OK, "%s", err.msg);
    char *after = maat_game_render(R, g, 1);
    if (after) {
        HAS(after, "seat 0 collected 1: Oa\nseat 1 (you) collected 0:\n");
        const char *row0 = strstr(after, " tray\n");
        CHECK(row0 && strncmp(row0 + 6, "  ..", 4) == 0,
              "the apex is not empty:\n%s", after);
    }
    free(seat);
    free(all);
    free(after);
    R->destroy(&g);
    R->setup_destroy(&setup);
}

static void test_architects(void)
{
    const maat_rules *R = &maat_architects_rules;
    maat_setup *setup;
    maat_game *g = new_game(R, &setup, 5, 2);
    if (!g)
        return;
    maat_arc_state *st = maat_arc_state_mut(g);
    const maat_arc_board *b = st->board;
    maat_arc_seat *s0 = &st->seat[0];
    int space = maat_arc_space(b, 1, 0);
    s0->large[space] = 0;  /* blue, opens left, sarcophagus */
    s0->rotated[space] = 1; /* turned: opens right */
    s0->large[maat_arc_space(b, 1, 1)] = 9; /* blue, opens left, eye */
    s0->small[2 * (1 - 1) + MAAT_ARC_LEFT] = 0; /* blue, 1 worker */
    s0->placed = 2;
    char *seat = maat_game_render(R, g, 1);
    char *all = maat_game_render(R, g, MAAT_OMNISCIENT);
    CHECK(seat && all, "render failed");
    if (seat && all) {
        HAS(seat, "architects, 2 seats, 0 turns done: seat 0 to take a "
                  "stone\n");
        /* level 1: the left small space, then stones 10 columns apart */
        HAS(seat, "\n  1 (B1) [  0 BS.> <  9 B.e]     .     ");
        HAS(seat, "seat 1 (you): hand");
        /* everything on the table is public: the same picture */
        HAS(all, "\n  1 (B1) [  0 BS.> <  9 B.e]     .     ");
        /* the face-down orders: only the omniscient view */
        HAS(all, "supply next:");
        HASNT(seat, "next:");
        char common[64];
        snprintf(common, sizeof common, "common: 0 ");
        HAS(seat, common);
        /* level 6 has no large space: its two small spaces meet */
        HAS(seat, "\n  6                          (..) (..)\n");
    }
    free(seat);
    free(all);
    R->destroy(&g);
    R->setup_destroy(&setup);
}

int main(void)
{
    test_pyramids();
    test_pyramix();
    test_architects();
    return check_done("render");
}
