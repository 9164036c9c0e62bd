/* fuzz_ladder.c -- libFuzzer target: a ladder file (JSON Lines written by
 * maat-referee --ladder; ladder/ladder_file.c maat_ladder_read), and the
 * standings computed from it (ladder/standings.c, ladder/rating.c).
 *
 * The reader takes a path, so each input is written to one temporary file
 * per process (maat-fuzz-ladder-<pid>.jsonl in $TMPDIR, else /dev/shm,
 * else /tmp; removed at exit).  Reports go nowhere (report = NULL); the
 * standings are printed, in every format, to /dev/null.
 *
 * Invariants (abort() when broken):
 *  - the file is read (MAAT_OK) and every non-empty line is counted once:
 *    as a game, a bad line or a duplicate;
 *  - every game kept has 1..8 seats, ranks in 1..seats, NUL-terminated
 *    names, and is found again by its id;
 *  - reading the same file a second time adds no game, only duplicates;
 *  - standings: every row has games >= 1 and a finite rating.
 * Nothing is printed to stdout; everything allocated is freed.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ladder_file.h"
#include "rating.h"
#include "standings.h"

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

static FILE *devnull;

static void write_temp(const uint8_t *data, size_t size)
{
    if (!path[0]) {
        /* memory-backed when we can: a disk file costs ~20x the exec rate */
        const char *dir = getenv("TMPDIR");
        if (!dir || !*dir)
            dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(path, sizeof path, "%s/maat-fuzz-ladder-%ld.jsonl", dir,
                 (long)getpid());
        atexit(remove_temp);
    }
    FILE *f = fopen(path, "wb");
    CHECK(f);
    CHECK(fwrite(data, 1, size, f) == size);
    CHECK(fclose(f) == 0);
}

/* Lines that are not empty once the trailing \r and \n are stripped, as
 * the reader splits them (getline: at each \n). */
static size_t count_lines(const uint8_t *data, size_t size)
{
    size_t n = 0, start = 0;
    while (start < size) {
        size_t end = start;
        while (end < size && data[end] != '\n')
            end++;
        size_t len = end - start;
        while (len > 0 && (data[start + len - 1] == '\r' ||
                           data[start + len - 1] == '\n'))
            len--;
        n += len > 0;
        start = end + 1;
    }
    return n;
}

static int terminated(const char *s, size_t cap)
{
    return memchr(s, 0, cap) != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!devnull) {
        devnull = fopen("/dev/null", "w");
        CHECK(devnull);
    }
    write_temp(data, size);
    maat_ladder l;
    memset(&l, 0, sizeof l);
    maat_error e = {0, ""};
    CHECK(maat_ladder_read(&l, path, 0, NULL, &e) == MAAT_OK);
    CHECK(l.count + l.bad_lines + l.duplicates == count_lines(data, size));
    for (size_t i = 0; i < l.count; i++) {
        const maat_ladder_game *g = &l.games[i];
        CHECK(terminated(g->id, sizeof g->id));
        CHECK(terminated(g->game, sizeof g->game));
        CHECK(g->seats >= 1 && g->seats <= MAAT_MAX_SEATS);
        for (int s = 0; s < g->seats; s++) {
            CHECK(terminated(g->bot[s], sizeof g->bot[s]));
            CHECK(g->rank[s] >= 1 && g->rank[s] <= g->seats);
        }
        CHECK(g->line);
        CHECK(maat_ladder_has(&l, g->id));
        for (size_t k = 0; k < i; k++)
            CHECK(strcmp(l.games[k].id, g->id) != 0);
    }

    size_t count = l.count, bad = l.bad_lines, dup = l.duplicates;
    CHECK(maat_ladder_read(&l, path, 0, NULL, &e) == MAAT_OK);
    CHECK(l.count == count);
    CHECK(l.bad_lines == 2 * bad);
    CHECK(l.duplicates == dup + count + dup);

    maat_rating_params p;
    maat_rating_params_default(&p);
    maat_standings s;
    CHECK(maat_standings_compute(&l, NULL, &p, &s) == MAAT_OK);
    for (int r = 0; r < s.count; r++) {
        CHECK(s.rows[r].games >= 1);
        CHECK(isfinite(s.rows[r].rating.mu));
        CHECK(isfinite(s.rows[r].rating.sigma) && s.rows[r].rating.sigma > 0);
    }
    maat_standings_print(&s, "table", devnull);
    maat_standings_print(&s, "json", devnull);
    maat_standings_print(&s, "csv", devnull);
    maat_standings_free(&s);
    maat_ladder_free(&l);
    return 0;
}
