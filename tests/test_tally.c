/* test_tally.c -- ladder/tally.c: the streaming tally gives exactly the
 * standings that reading the whole file gives (ratings, games, wins,
 * faults, Elo), counts a repeated id once, keeps its pair counts, rating
 * histories and recent lines within their bounds, and follows a file that
 * grows line by line. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tally.h"

/* Write `n` random games of `bots` bots (2 to 5 seats, ties, faults, every
 * 10th id repeated) to path; returns the number of distinct ids. */
static int write_ladder(const char *path, int n, int bots, unsigned seed)
{
    FILE *f = fopen(path, "w");
    srand(seed);
    int distinct = 0;
    for (int i = 0; i < n; i++) {
        int seats = 2 + rand() % 4, who[5], rank[5];
        for (int s = 0; s < seats; s++) {
            who[s] = rand() % bots;
            rank[s] = 1 + rand() % seats;
        }
        int repeat = i % 10 == 9;
        distinct += !repeat;
        fprintf(f, "{\"v\":1,\"id\":\"g%d\",\"time\":\"2026-01-%02dT10:%02d:"
                "00Z\",\"game\":\"%s\",\"seats\":%d,\"bots\":[",
                repeat ? i - 1 : i,
                1 + i % 28, i % 60, i % 7 ? "pyramids" : "pyramix", seats);
        for (int s = 0; s < seats; s++)
            fprintf(f, "%s\"bot%d\"", s ? "," : "", who[s]);
        fprintf(f, "],\"ranks\":[");
        for (int s = 0; s < seats; s++)
            fprintf(f, "%s%d", s ? "," : "", rank[s]);
        fprintf(f, "],\"scores\":[");
        for (int s = 0; s < seats; s++)
            fprintf(f, "%s%d", s ? "," : "", rand() % 50);
        fprintf(f, "],\"out\":[");
        for (int s = 0; s < seats; s++)
            fprintf(f, "%sfalse", s ? "," : "");
        fprintf(f, "],\"faults\":[");
        if (rand() % 5 == 0)
            fprintf(f, "{\"seat\":%d,\"kind\":\"timeout\",\"detail\":\"slow\"}",
                    rand() % seats);
        fprintf(f, "]}\n");
    }
    fclose(f);
    return distinct;
}

static int same(double a, double b)
{
    return (isnan(a) && isnan(b)) || fabs(a - b) <= 1e-9 * (1 + fabs(b));
}

static void test_same_as_whole_file(const char *path)
{
    int distinct = write_ladder(path, 3000, 12, 7);
    maat_ladder l = {0};
    maat_error err = {0};
    CHECK(maat_ladder_read(&l, path, 0, NULL, &err) == MAAT_OK, "read");
    for (int pass = 0; pass < 2; pass++) {
        const char *game = pass ? "pyramids" : NULL;
        maat_standings want;
        maat_rating_params p;
        maat_rating_params_default(&p);
        CHECK(maat_standings_compute(&l, game, &p, &want) == MAAT_OK,
              "compute");
        maat_tally t;
        maat_tally_init(&t, game);
        maat_ladder_cursor c = {.path = path};
        CHECK(maat_tally_read(&t, &c, 0, NULL, &err) == MAAT_OK, "tally");
        maat_tally_fit_elo(&t);
        CHECK(!game ? t.games == (uint64_t)distinct && t.duplicates ==
                          (size_t)(3000 - distinct)
                    : t.games < (uint64_t)distinct,
              "games %llu, duplicates %zu (distinct %d)",
              (unsigned long long)t.games, t.duplicates, distinct);
        CHECK(t.s.count == want.count, "rows %d, want %d", t.s.count,
              want.count);
        int equal = 1;
        for (int r = 0; r < want.count && r < t.s.count; r++) {
            const maat_standing *a = &t.s.rows[r], *b = &want.rows[r];
            int ok = !strcmp(a->bot, b->bot) && !strcmp(a->game, b->game) &&
                     a->games == b->games && a->wins == b->wins &&
                     same(a->rating.mu, b->rating.mu) &&
                     same(a->rating.sigma, b->rating.sigma) &&
                     same(a->elo, b->elo) && same(a->elo_ci, b->elo_ci) &&
                     !memcmp(a->faults, b->faults, sizeof a->faults);
            if (!ok)
                fprintf(stderr, "row %d: %s %s mu %.9f/%.9f elo %.6f/%.6f "
                        "games %d/%d\n", r, a->bot, a->game, a->rating.mu,
                        b->rating.mu, a->elo, b->elo, a->games, b->games);
            equal &= ok;
        }
        CHECK(equal, "every row equals maat_standings_compute's (game %s)",
              game ? game : "all");
        /* pairs: symmetric games, ahead + behind + ties = games */
        int sym = 1, hist = 1;
        for (int i = 0; i < t.s.count; i++) {
            for (int j = 0; j < t.s.count; j++) {
                const maat_tally_pair *a = maat_tally_pair_of(&t, i, j),
                                      *b = maat_tally_pair_of(&t, j, i);
                sym &= a->games == b->games && a->ties == b->ties &&
                       a->ahead + b->ahead + a->ties == a->games &&
                       a->games2 == b->games2 &&
                       same(a->score2 + b->score2, a->games2);
            }
            const maat_tally_history *h = &t.hist[i];
            hist &= h->n >= 1 && h->n <= t.history_points;
            for (int k = 1; k < h->n; k++)
                hist &= h->point[k].seq > h->point[k - 1].seq &&
                        h->point[k].time > 0;
        }
        CHECK(sym, "pair counts agree from both sides");
        CHECK(hist, "histories within %d points, in order", t.history_points);
        maat_tally_free(&t);
        maat_standings_free(&want);
    }
    maat_ladder_free(&l);
}

static void test_history_and_recent(const char *path)
{
    write_ladder(path, 2000, 2, 3); /* two bots: ~1800 games each */
    maat_tally t;
    maat_error err = {0};
    maat_tally_init(&t, NULL);
    t.history_points = 16;
    t.recent_cap = 5;
    maat_ladder_cursor c = {.path = path};
    CHECK(maat_tally_read(&t, &c, 0, NULL, &err) == MAAT_OK, "tally");
    int r = maat_tally_find(&t, "bot0", "pyramids");
    CHECK(r >= 0, "bot0 has a row");
    if (r >= 0) {
        const maat_tally_history *h = &t.hist[r];
        CHECK(h->n <= 16 && h->n >= 8 && h->stride >= 64,
              "thinned: %d points, stride %d", h->n, h->stride);
        CHECK(h->point[h->n - 1].seq > t.games - 2u * (unsigned)h->stride,
              "the last point is recent (seq %llu of %llu)",
              (unsigned long long)h->point[h->n - 1].seq,
              (unsigned long long)t.games);
    }
    CHECK(t.n_recent == 5, "5 recent lines, got %d", t.n_recent);
    const char *last = maat_tally_recent(&t, 0);
    CHECK(last && strstr(last, "\"id\":\"g1998\""), "the last line first: %s",
          last ? last : "(none)");
    CHECK(maat_tally_recent(&t, 5) == NULL, "no sixth line");
    maat_tally_free(&t);
}

/* A file that grows: whole lines only, a half-written one waits. */
static void test_follow(const char *path)
{
    FILE *f = fopen(path, "w");
    fputs("{\"v\":1,\"id\":\"a-0\",\"game\":\"pyramids\",\"seats\":2,"
          "\"bots\":[\"x\",\"y\"],\"ranks\":[1,2],\"scores\":[3,1]}\n"
          "{\"v\":1,\"id\":\"a-1\",\"game\":\"pyr", f);
    fclose(f);
    maat_tally t;
    maat_error err = {0};
    maat_tally_init(&t, NULL);
    maat_ladder_cursor c = {.path = path};
    CHECK(maat_tally_read(&t, &c, 1, NULL, &err) == MAAT_OK && t.games == 1,
          "one whole line, %llu games", (unsigned long long)t.games);
    f = fopen(path, "a");
    fputs("amids\",\"seats\":2,\"bots\":[\"y\",\"x\"],\"ranks\":[1,2],"
          "\"scores\":[3,1]}\nnot json\n", f);
    fclose(f);
    CHECK(maat_tally_read(&t, &c, 1, NULL, &err) == MAAT_OK && t.games == 2 &&
              t.bad_lines == 1,
          "the rest of the line: %llu games, %zu bad",
          (unsigned long long)t.games, t.bad_lines);
    int x = maat_tally_find(&t, "x", "pyramids");
    int y = maat_tally_find(&t, "y", "pyramids");
    CHECK(x >= 0 && y >= 0 && maat_tally_pair_of(&t, x, y)->ahead == 1 &&
              maat_tally_pair_of(&t, y, x)->ahead == 1 &&
              t.last[x][0] == y && t.last[x][1] == x,
          "x and y each won once; x's last lineup is (y, x)");
    maat_tally_free(&t);
}

int main(void)
{
    char path[] = "/tmp/maat-test-tally-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 1;
    close(fd);
    test_same_as_whole_file(path);
    test_history_and_recent(path);
    test_follow(path);
    unlink(path);
    return check_done("tally");
}
