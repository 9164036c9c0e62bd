/* fuzz_record.c -- libFuzzer target: a game record (the JSON file of
 * maat-referee --record), re-simulated by referee/verify.c
 * maat_record_verify (maat-referee --verify).
 *
 * The verifier takes a path, so each input is written to one temporary
 * file per process (maat-fuzz-record-<pid>.json in $TMPDIR, else
 * /dev/shm, else /tmp; removed at exit).  The differences report goes
 * nowhere (report = NULL).  A record may name a deck file; the fuzzer must
 * not open whatever path it makes up (/dev/stdin would hang it), so a
 * record naming any deck other than "reference" is verified with the
 * reference deck file of the source tree passed as the override
 * (MAAT_FUZZ_DECK) -- the same code path.
 *
 * Invariants (abort() when broken): the result is -1 with an error code and
 * message, or a count of differences >= 0.
 * Nothing is printed; everything allocated is freed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "record.h"

#ifndef MAAT_FUZZ_DECK
#error "define MAAT_FUZZ_DECK as the path of sdk/data/pyramids-deck.txt"
#endif

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
        snprintf(path, sizeof path, "%s/maat-fuzz-record-%ld.json", dir,
                 (long)getpid());
        atexit(remove_temp);
    }
    FILE *f = fopen(path, "wb");
    CHECK(f);
    CHECK(fwrite(data, 1, size, f) == size);
    CHECK(fclose(f) == 0);
}

/* The deck override: NULL unless the record names a deck file. */
static const char *deck_for(const uint8_t *data, size_t size)
{
    json_error_t je;
    json_t *j = json_loadb((const char *)data, size, 0, &je);
    const char *deck = json_string_value(json_object_get(j, "deck"));
    const char *use = deck && strcmp(deck, "reference") != 0
                          ? MAAT_FUZZ_DECK : NULL;
    json_decref(j);
    return use;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    write_temp(data, size);
    maat_error e = {0, ""};
    maat_options over = {0};
    const char *deck = deck_for(data, size);
    if (deck)
        maat_options_set(&over, "deck", deck);
    int n = maat_record_verify(path, &over, NULL, 0, &e);
    if (n < 0)
        CHECK(n == -1 && e.code != MAAT_OK && e.msg[0]);
    return 0;
}
