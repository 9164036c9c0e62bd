/* tournament.c -- loading a tournament config, scheduling its matches and
 * playing them with parallel maat-referee processes (see tournament.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "ladder_file.h"
#include "pin.h"
#include "standings.h"
#include "tournament.h"

/* ---- config --------------------------------------------------------- */

static int fail(maat_error *err, const char *path, const char *what)
{
    return maat_error_set(err, MAAT_EINVAL, "%s: %s", path, what);
}

int maat_tournament_load(maat_tournament *t, const char *path,
                         maat_error *err)
{
    memset(t, 0, sizeof *t);
    t->hero = -1;
    json_error_t je;
    json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!j)
        return maat_error_set(err, MAAT_EINVAL, "%s:%d: %s", path, je.line,
                              je.text);
    static const char *const known[] = {
        "name", "game", "seats", "matches", "format", "duplicate", "jobs",
        "seed", "ladder", "referee", "referee_args", "bots", "hero", "pin",
        NULL};
    const char *key;
    json_t *v;
    int rc = MAAT_OK;
    json_object_foreach(j, key, v) {
        int ok = 0;
        for (const char *const *k = known; *k; k++)
            ok |= !strcmp(key, *k);
        if (!ok) {
            rc = maat_error_set(err, MAAT_EINVAL, "%s: unknown field '%s'",
                                path, key);
            goto out;
        }
    }
    const char *name = json_string_value(json_object_get(j, "name"));
    const char *game = json_string_value(json_object_get(j, "game"));
    snprintf(t->name, sizeof t->name, "%s", name ? name : "tournament");
    snprintf(t->game, sizeof t->game, "%s", game ? game : "pyramids");
    const maat_rules *r = maat_rules_find(t->game);
    if (!r) {
        rc = fail(err, path, "field 'game' names no known game");
        goto out;
    }
    json_int_t seats = json_integer_value(json_object_get(j, "seats"));
    t->seats = seats < 0 || seats > 64 ? -1 : (int)seats;
    if (t->seats < r->min_seats || t->seats > r->max_seats) {
        rc = maat_error_set(err, MAAT_EINVAL, "%s: field 'seats' must be %d "
                            "to %d for %s", path, r->min_seats, r->max_seats,
                            t->game);
        goto out;
    }
    json_int_t matches = json_integer_value(json_object_get(j, "matches"));
    t->matches = matches < 1 || matches > 10000000 ? -1 : (int)matches;
    if (t->matches < 1) {
        rc = fail(err, path, "field 'matches' must be a number >= 1");
        goto out;
    }
    const char *format = json_string_value(json_object_get(j, "format"));
    if (!format || !strcmp(format, "round-robin"))
        t->format = TOUR_ROUND_ROBIN;
    else if (!strcmp(format, "gauntlet"))
        t->format = TOUR_GAUNTLET;
    else if (!strcmp(format, "ladder"))
        t->format = TOUR_LADDER;
    else {
        rc = fail(err, path, "field 'format' must be round-robin, gauntlet "
                  "or ladder");
        goto out;
    }
    json_t *dup = json_object_get(j, "duplicate");
    t->duplicate = dup ? json_is_true(dup) : 1;
    json_t *pin = json_object_get(j, "pin");
    if (pin && !json_is_boolean(pin)) {
        rc = fail(err, path, "field 'pin' must be true or false");
        goto out;
    }
    t->pin = pin && json_is_true(pin);
    json_t *jobs = json_object_get(j, "jobs");
    json_int_t njobs = jobs ? json_integer_value(jobs) : 1;
    t->jobs = njobs < 1 || njobs > 256 ? -1 : (int)njobs;
    json_t *seed = json_object_get(j, "seed");
    t->seed = seed ? (uint64_t)json_integer_value(seed) : 1;
    if (t->jobs < 1 || t->jobs > 256 || (seed && json_integer_value(seed) < 0)) {
        rc = fail(err, path, "field 'jobs' must be 1..256 and 'seed' >= 0");
        goto out;
    }
    const char *ladder = json_string_value(json_object_get(j, "ladder"));
    if (!ladder) {
        rc = fail(err, path, "field 'ladder' (the ladder file) is required");
        goto out;
    }
    t->ladder = strdup(ladder);
    const char *referee = json_string_value(json_object_get(j, "referee"));
    t->referee = referee ? strdup(referee) : NULL;
    json_t *args = json_object_get(j, "referee_args");
    size_t i;
    t->referee_args = calloc(json_array_size(args) + 1, sizeof(char *));
    json_array_foreach(args, i, v) {
        if (!json_is_string(v)) {
            rc = fail(err, path, "field 'referee_args' must be strings");
            goto out;
        }
        t->referee_args[t->n_referee_args++] = strdup(json_string_value(v));
    }
    json_t *bots = json_object_get(j, "bots");
    t->bots = calloc(json_array_size(bots) + 1, sizeof *t->bots);
    json_array_foreach(bots, i, v) {
        const char *bn = json_string_value(json_object_get(v, "name"));
        const char *bc = json_string_value(json_object_get(v, "command"));
        if (!bn || !bc || !*bn || strlen(bn) >= sizeof t->bots[0].name ||
            strspn(bn, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                       "0123456789-_.") != strlen(bn)) {
            rc = maat_error_set(err, MAAT_EINVAL, "%s: bots[%zu] needs a name "
                                "(letters, digits, - _ .) and a command",
                                path, i);
            goto out;
        }
        for (int b = 0; b < t->n_bots; b++)
            if (!strcmp(t->bots[b].name, bn)) {
                rc = maat_error_set(err, MAAT_EINVAL, "%s: two bots are named "
                                    "'%s'", path, bn);
                goto out;
            }
        snprintf(t->bots[t->n_bots].name, sizeof t->bots[0].name, "%s", bn);
        t->bots[t->n_bots++].command = strdup(bc);
    }
    const char *hero = json_string_value(json_object_get(j, "hero"));
    for (int b = 0; hero && b < t->n_bots; b++)
        if (!strcmp(t->bots[b].name, hero))
            t->hero = b;
    if (t->format == TOUR_GAUNTLET && t->hero < 0) {
        rc = fail(err, path, "a gauntlet needs 'hero': the name of one of "
                  "the bots");
        goto out;
    }
    if (t->n_bots < t->seats) {
        rc = maat_error_set(err, MAAT_EINVAL, "%s: %d seats need at least %d "
                            "bots (list a bot twice under two names to let it "
                            "meet itself)", path, t->seats, t->seats);
        goto out;
    }
out:
    json_decref(j);
    if (rc)
        maat_tournament_free(t);
    return rc;
}

void maat_tournament_free(maat_tournament *t)
{
    free(t->ladder);
    free(t->referee);
    for (int i = 0; i < t->n_referee_args; i++)
        free(t->referee_args[i]);
    free(t->referee_args);
    for (int i = 0; i < t->n_bots; i++)
        free(t->bots[i].command);
    free(t->bots);
    memset(t, 0, sizeof *t);
}

/* ---- the schedule --------------------------------------------------- */

void maat_tournament_match_id(const maat_tournament *t, int i, char *out,
                              size_t len)
{
    snprintf(out, len, "%s-%d", t->name, i);
}

static int games_per_match(const maat_tournament *t)
{
    return t->duplicate ? t->seats : 1;
}

/* The k-th (mod the count) k-subset of the pool, in lexicographic order. */
static void kth_combination(const int *pool, int n, int k, long index,
                            int *out)
{
    /* count the subsets first so index can wrap */
    double total = 1;
    for (int i = 0; i < k; i++)
        total = total * (n - i) / (i + 1);
    long c = (long)llround(total);
    index %= c;
    int start = 0;
    for (int slot = 0; slot < k; slot++)
        for (int x = start; x < n; x++) {
            /* subsets that put pool[x] in this slot */
            double rest = 1;
            for (int i = 0; i < k - slot - 1; i++)
                rest = rest * (n - x - 1 - i) / (i + 1);
            long r = (long)llround(rest);
            if (index < r) {
                out[slot] = pool[x];
                start = x + 1;
                break;
            }
            index -= r;
        }
}

int maat_tournament_lineup(const maat_tournament *t, int i, int *bots)
{
    int pool[256], n = 0;
    if (t->format == TOUR_LADDER)
        return -1;
    for (int b = 0; b < t->n_bots && n < 256; b++)
        if (t->format != TOUR_GAUNTLET || b != t->hero)
            pool[n++] = b;
    if (t->format == TOUR_GAUNTLET) {
        bots[0] = t->hero;
        kth_combination(pool, n, t->seats - 1, i, bots + 1);
    } else {
        kth_combination(pool, n, t->seats, i, bots);
    }
    return 0;
}

/* Rating-based matchmaking: the bot with the fewest games, then the bots
 * nearest to it in displayed rating. */
static void ladder_lineup(const maat_tournament *t, int *bots)
{
    maat_ladder l = {0};
    maat_standings s = {0};
    maat_rating_params p;
    maat_rating_params_default(&p);
    maat_ladder_read(&l, t->ladder, 1, NULL, NULL);
    maat_standings_compute(&l, t->game, &p, &s);
    double rating[256];
    int games[256], used[256] = {0};
    for (int b = 0; b < t->n_bots && b < 256; b++) {
        maat_standing *row = maat_standings_row(&s, t->bots[b].name, t->game,
                                                &p);
        rating[b] = row ? maat_rating_display(&row->rating) : 0;
        games[b] = row ? row->games : 0;
    }
    int first = 0;
    for (int b = 1; b < t->n_bots && b < 256; b++)
        if (games[b] < games[first])
            first = b;
    bots[0] = first;
    used[first] = 1;
    for (int k = 1; k < t->seats; k++) {
        int best = -1;
        for (int b = 0; b < t->n_bots && b < 256; b++)
            if (!used[b] && (best < 0 || fabs(rating[b] - rating[first]) <
                                             fabs(rating[best] - rating[first])))
                best = b;
        bots[k] = best;
        used[best] = 1;
    }
    maat_standings_free(&s);
    maat_ladder_free(&l);
}

char **maat_tournament_argv(const maat_tournament *t, int i, const int *bots,
                            const char *ladder)
{
    int cap = 24 + 2 * t->seats + t->n_referee_args, n = 0;
    char **argv = calloc((size_t)cap, sizeof *argv), id[96], buf[64];
    if (!argv)
        return NULL;
    maat_tournament_match_id(t, i, id, sizeof id);
    argv[n++] = strdup(t->referee ? t->referee : "maat-referee");
    argv[n++] = strdup("--game");
    argv[n++] = strdup(t->game);
    argv[n++] = strdup("--seed");
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)(t->seed + (uint64_t)i));
    argv[n++] = strdup(buf);
    argv[n++] = strdup("--match-id");
    argv[n++] = strdup(id);
    argv[n++] = strdup("--ladder");
    argv[n++] = strdup(ladder);
    argv[n++] = strdup("--quiet");
    if (t->duplicate) {
        argv[n++] = strdup("--games");
        snprintf(buf, sizeof buf, "%d", t->seats);
        argv[n++] = strdup(buf);
        argv[n++] = strdup("--same-deal");
        argv[n++] = strdup("--fixed-seats");
    }
    for (int s = 0; s < t->seats; s++) {
        const maat_tour_bot *b = &t->bots[bots[s]];
        size_t len = strlen(b->name) + strlen(b->command) + 2;
        char *arg = malloc(len);
        snprintf(arg, len, "%s=%s", b->name, b->command);
        argv[n++] = strdup("--bot");
        argv[n++] = arg;
    }
    for (int a = 0; a < t->n_referee_args; a++)
        argv[n++] = strdup(t->referee_args[a]);
    argv[n] = NULL;
    return argv;
}

void maat_argv_free(char **argv)
{
    for (char **a = argv; a && *a; a++)
        free(*a);
    free(argv);
}

/* Is every game of match i in the ladder? */
static int match_done(const maat_tournament *t, const maat_ladder *l, int i)
{
    char id[96], gid[112];
    maat_tournament_match_id(t, i, id, sizeof id);
    for (int k = 0; k < games_per_match(t); k++) {
        snprintf(gid, sizeof gid, "%s-%d", id, k);
        if (!maat_ladder_has(l, gid))
            return 0;
    }
    return 1;
}

/* ---- running -------------------------------------------------------- */

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* Faults in lines appended since *offset (progress display only). */
static int new_faults(const char *path, long *offset)
{
    FILE *f = fopen(path, "r");
    int n = 0;
    if (!f)
        return 0;
    if (fseek(f, *offset, SEEK_SET) == 0) {
        char *line = NULL;
        size_t cap = 0;
        ssize_t len;
        while ((len = getline(&line, &cap, f)) > 0 && line[len - 1] == '\n') {
            json_t *j = json_loadb(line, (size_t)len, 0, NULL);
            n += (int)json_array_size(json_object_get(j, "faults"));
            json_decref(j);
            *offset = ftell(f);
        }
        free(line);
    }
    fclose(f);
    return n;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The lowest job slot no running referee holds (there is one: running <
 * jobs), so a finished match's slot, and its CPU, goes to the next. */
static int free_slot(const int *slot_of, int running)
{
    for (int s = 0;; s++) {
        int used = 0;
        for (int k = 0; k < running && !used; k++)
            used = slot_of[k] == s;
        if (!used)
            return s;
    }
}

int maat_tournament_run(const maat_tournament *t, int quiet, maat_error *err)
{
    maat_pin_cpus cpus = {0};
    int rc = t->pin ? maat_pin_cpus_read(&cpus, err) : MAAT_OK;
    if (rc)
        return rc;
    maat_ladder l = {0};
    rc = maat_ladder_read(&l, t->ladder, 1, quiet ? NULL : stderr, err);
    if (rc) {
        maat_pin_cpus_free(&cpus);
        return rc;
    }
    int *pending = malloc(sizeof *pending * (size_t)t->matches), n_pending = 0;
    if (!pending) {
        maat_ladder_free(&l);
        maat_pin_cpus_free(&cpus);
        return maat_error_set(err, MAAT_ENOMEM, "out of memory");
    }
    for (int i = 0; i < t->matches; i++)
        if (!match_done(t, &l, i))
            pending[n_pending++] = i;
    maat_ladder_free(&l);
    int skipped = t->matches - n_pending;
    if (!quiet && skipped)
        fprintf(stderr, "maat-ladder: %d of %d matches already in %s; "
                        "playing the other %d\n", skipped, t->matches,
                t->ladder, n_pending);

    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    interrupted = 0;

    pid_t pids[256];
    int match_of[256], slot_of[256]; /* slot_of: job slot, so its CPU */
    int running = 0, next = 0, done = 0, failed = 0;
    int faults = 0, tty = isatty(2) && !quiet;
    long offset = 0;
    FILE *f = fopen(t->ladder, "r");
    if (f) {
        fseek(f, 0, SEEK_END);
        offset = ftell(f);
        fclose(f);
    }
    double start = now_s();
    while ((next < n_pending || running) && !interrupted) {
        while (running < t->jobs && next < n_pending && !interrupted) {
            int bots[MAAT_MAX_SEATS], i = pending[next++];
            if (maat_tournament_lineup(t, i, bots) < 0)
                ladder_lineup(t, bots);
            char **argv = maat_tournament_argv(t, i, bots, t->ladder);
            int slot = free_slot(slot_of, running);
            pid_t pid = fork();
            if (pid == 0) {
                signal(SIGINT, SIG_DFL);
                signal(SIGTERM, SIG_DFL);
                if (t->pin) {
                    char match[16];
                    snprintf(match, sizeof match, "%d", i);
                    maat_pin_child(maat_pin_slot_cpu(&cpus, slot), match);
                }
                execv(argv[0], argv);
                fprintf(stderr, "maat-ladder: cannot run %s: %s\n", argv[0],
                        strerror(errno));
                _exit(127);
            }
            maat_argv_free(argv);
            if (pid < 0) {
                failed++;
                continue;
            }
            pids[running] = pid;
            slot_of[running] = slot;
            match_of[running++] = i;
        }
        int status;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0)
            continue; /* EINTR: look at `interrupted` */
        for (int k = 0; k < running; k++)
            if (pids[k] == pid) {
                int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
                if (code != 0) {
                    failed++;
                    fprintf(stderr, "%smaat-ladder: match %d: the referee "
                            "exited with %d%s\n", tty ? "\n" : "",
                            match_of[k], code, code == 2 ? " (a usage error: "
                            "check the config's bots and referee_args)" : "");
                } else {
                    done++;
                }
                pids[k] = pids[--running];
                match_of[k] = match_of[running];
                slot_of[k] = slot_of[running];
                break;
            }
        faults += new_faults(t->ladder, &offset);
        if (tty) {
            double el = now_s() - start, rate = el > 0 ? done / el : 0;
            double eta = rate > 0 ? (n_pending - done - failed) / rate : 0;
            fprintf(stderr, "\rmaat-ladder: %d/%d matches, %.2f/s, ETA %.0fs, "
                    "%d faults%s   ", skipped + done, t->matches, rate, eta,
                    faults, failed ? ", some matches failed" : "");
        }
    }
    if (interrupted) {
        for (int k = 0; k < running; k++)
            kill(pids[k], SIGTERM);
        for (int k = 0; k < running; k++)
            waitpid(pids[k], NULL, 0);
    }
    if (tty)
        fputc('\n', stderr);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    free(pending);
    maat_pin_cpus_free(&cpus);
    if (interrupted)
        return maat_error_set(err, MAAT_ESTATE, "interrupted after %d "
                              "matches; run the same command again to resume",
                              skipped + done);
    if (failed)
        return maat_error_set(err, MAAT_EIO, "%d of %d matches failed; run "
                              "again to retry them", failed, n_pending);
    return MAAT_OK;
}

/* Single-quote for /bin/sh. */
static void put_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    fputc('\'', f);
}

int maat_tournament_plan(const maat_tournament *t, const char *shard_dir,
                         FILE *f, maat_error *err)
{
    if (t->format == TOUR_LADDER)
        return maat_error_set(err, MAAT_EINVAL, "the ladder format picks "
                              "opponents from results as they come; plan "
                              "round-robin or gauntlet tournaments");
    maat_ladder l = {0};
    int rc = maat_ladder_read(&l, t->ladder, 1, stderr, err);
    if (rc)
        return rc;
    int line = 0;
    for (int i = 0; i < t->matches; i++) {
        int bots[MAAT_MAX_SEATS];
        char shard[1024];
        if (match_done(t, &l, i))
            continue;
        maat_tournament_lineup(t, i, bots);
        /* named by line, so GNU parallel's {#} names the same file */
        snprintf(shard, sizeof shard, "%s/match-%d.jsonl", shard_dir, ++line);
        char **argv = maat_tournament_argv(t, i, bots, shard);
        for (char **a = argv; *a; a++) {
            if (a != argv)
                fputc(' ', f);
            put_quoted(f, *a);
        }
        fputc('\n', f);
        maat_argv_free(argv);
    }
    maat_ladder_free(&l);
    return MAAT_OK;
}
