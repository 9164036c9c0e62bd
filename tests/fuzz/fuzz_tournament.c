/* fuzz_tournament.c -- libFuzzer target: a tournament config file
 * (ladder/tournament.c maat_tournament_load, what `maat-ladder run CONFIG`
 * reads), then the schedule built from it.
 *
 * The loader takes a path, so each input is written to one temporary file
 * per process (maat-fuzz-tournament-<pid>.json in $TMPDIR, else /dev/shm,
 * else /tmp; removed at exit) and loaded from there.  Nothing is run: no
 * referee is spawned and the ladder file the config names is never opened.
 *
 * Invariants (abort() when broken):
 *  - a refused config is refused with MAAT_EINVAL, a message naming the
 *    file, and a zeroed struct (nothing left to free);
 *  - an accepted config holds what its documented fields allow (a known
 *    game, seats in the game's range, 1 <= matches <= 10^7, 1 <= jobs <=
 *    256, bots named with letters, digits, - _ . and distinct, at least
 *    `seats` bots, a hero for a gauntlet) -- and the same numbers the file
 *    has (no silent truncation of seats, matches, jobs, seed);
 *  - every lineup of a static format is `seats` distinct bots (the hero
 *    first in a gauntlet and nowhere else); the referee argv is a
 *    NULL-terminated list of strings.
 * Nothing is printed; everything allocated is freed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "tournament.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[512]; /* the temporary file the inputs go to */

static void remove_temp(void)
{
    if (path[0])
        unlink(path);
}

/* A broken invariant: no temporary file left behind, then abort. */
__attribute__((noreturn)) static void fail(void)
{
    remove_temp();
    abort();
}

#define CHECK(cond)                                                         \
    do {                                                                    \
        if (!(cond))                                                        \
            fail();                                                         \
    } while (0)

static void write_temp(const uint8_t *data, size_t size)
{
    if (!path[0]) {
        /* memory-backed when we can: a disk file costs ~20x the exec rate */
        const char *dir = getenv("TMPDIR");
        if (!dir || !*dir)
            dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(path, sizeof path, "%s/maat-fuzz-tournament-%ld.json", dir,
                 (long)getpid());
        atexit(remove_temp);
    }
    FILE *f = fopen(path, "wb");
    CHECK(f);
    CHECK(fwrite(data, 1, size, f) == size);
    CHECK(fclose(f) == 0);
}

static int valid_name(const char *s)
{
    return *s && strlen(s) < 64 &&
           strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789-_.") == strlen(s);
}

/* The file says what the struct holds. */
static void check_numbers(const maat_tournament *t)
{
    json_error_t je;
    json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    CHECK(j);
    CHECK(json_integer_value(json_object_get(j, "seats")) == t->seats);
    CHECK(json_integer_value(json_object_get(j, "matches")) == t->matches);
    json_t *jobs = json_object_get(j, "jobs");
    CHECK(!jobs || json_integer_value(jobs) == t->jobs);
    /* a seed is kept whole, in its canonical text (no truncation) */
    json_t *seed = json_object_get(j, "seed");
    maat_seed want, got;
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)json_integer_value(seed));
    CHECK(!seed || maat_seed_parse(&want, json_is_string(seed)
                                               ? json_string_value(seed)
                                               : text,
                                   NULL) == MAAT_OK);
    CHECK(!seed || (maat_seed_parse(&got, t->seed, NULL) == MAAT_OK &&
                    maat_seed_equal(&want, &got)));
    CHECK(seed || (!t->seed[0] && t->key_file));
    json_decref(j);
}

static void check_lineup(const maat_tournament *t, int i)
{
    int bots[MAAT_MAX_SEATS];
    for (int s = 0; s < MAAT_MAX_SEATS; s++)
        bots[s] = -1;
    int rc = maat_tournament_lineup(t, i, bots);
    if (t->format == TOUR_LADDER) {
        CHECK(rc == -1);
        for (int s = 0; s < t->seats; s++) /* any lineup, for the argv */
            bots[s] = s;
    } else {
        CHECK(rc == 0);
        for (int s = 0; s < t->seats; s++) {
            CHECK(bots[s] >= 0 && bots[s] < t->n_bots);
            for (int q = 0; q < s; q++)
                CHECK(bots[q] != bots[s]);
            if (t->format == TOUR_GAUNTLET)
                CHECK((s == 0) == (bots[s] == t->hero));
        }
    }
    char id[96];
    maat_tournament_match_id(t, i, id, sizeof id);
    char **argv = maat_tournament_argv(t, i, bots, "fuzz-ladder.jsonl");
    CHECK(argv);
    int n = 0;
    while (argv[n]) {
        CHECK(n < 64 + 2 * t->seats + t->n_referee_args);
        n++;
    }
    maat_argv_free(argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    write_temp(data, size);
    maat_tournament t;
    maat_error e = {0, ""};
    int rc = maat_tournament_load(&t, path, &e);
    if (rc != MAAT_OK) {
        static const maat_tournament zero;
        CHECK(rc == MAAT_EINVAL && e.code == rc);
        CHECK(strncmp(e.msg, path, strlen(path)) == 0);
        CHECK(memcmp(&t, &zero, sizeof t) == 0 || (t.hero == -1 &&
              !t.bots && !t.ladder && !t.referee_args));
        return 0;
    }
    const maat_rules *r = maat_rules_find(t.game);
    CHECK(r);
    CHECK(t.seats >= r->min_seats && t.seats <= r->max_seats);
    CHECK(t.matches >= 1 && t.matches <= 10000000);
    CHECK(t.jobs >= 1 && t.jobs <= 256);
    CHECK(t.format == TOUR_ROUND_ROBIN || t.format == TOUR_GAUNTLET ||
          t.format == TOUR_LADDER);
    CHECK(t.ladder);
    CHECK(t.n_bots >= t.seats && t.bots);
    for (int b = 0; b < t.n_bots; b++) {
        CHECK(valid_name(t.bots[b].name) && t.bots[b].command);
        for (int q = 0; q < b; q++)
            CHECK(strcmp(t.bots[q].name, t.bots[b].name) != 0);
    }
    CHECK(t.hero >= -1 && t.hero < t.n_bots);
    if (t.format == TOUR_GAUNTLET)
        CHECK(t.hero >= 0);
    check_numbers(&t);

    uint32_t h = 2166136261u;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 16777619u;
    int some[4] = {0, 1, t.matches - 1, (int)(h % (uint32_t)t.matches)};
    for (int k = 0; k < 4; k++)
        check_lineup(&t, some[k]);
    maat_tournament_free(&t);
    return 0;
}
