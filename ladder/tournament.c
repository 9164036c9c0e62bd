/* tournament.c -- loading a tournament config, scheduling its matches and
 * playing them with parallel maat-referee processes (see tournament.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "faults.h"
#include "outcome.h"
#include "ladder_file.h"
#include "pending.h"
#include "pin.h"
#include "referee_cmd.h"
#include "standings.h"
#include "tournament.h"

/* ---- config --------------------------------------------------------- */

static int fail(maat_error *err, const char *path, const char *what)
{
    return maat_error_set(err, MAAT_EINVAL, "%s: %s", path, what);
}

/* The fields of a config and the JSON type each must have. */
static const struct {
    const char *name;
    json_type type;
} fields[] = {
    {"name", JSON_STRING},      {"game", JSON_STRING},
    {"seats", JSON_INTEGER},    {"matches", JSON_INTEGER},
    {"format", JSON_STRING},    {"duplicate", JSON_TRUE},
    {"jobs", JSON_INTEGER},     {"seed", JSON_INTEGER},
    {"ladder", JSON_STRING},    {"referee", JSON_STRING},
    {"referee_args", JSON_ARRAY}, {"bots", JSON_ARRAY},
    {"hero", JSON_STRING},      {"pin", JSON_TRUE},
    {"keep", JSON_STRING},      {"remote", JSON_OBJECT},
};

/* Every field known and of its type: "FILE: field 'seats' must be a whole
 * number, not a string". */
static int check_fields(json_t *j, const char *path, maat_error *err)
{
    if (!json_is_object(j))
        return maat_error_set(err, MAAT_EINVAL, "%s: the config must be a "
                              "JSON object ({...}), not %s", path,
                              maat_json_type_name(json_typeof(j)));
    const char *key;
    json_t *v;
    json_object_foreach(j, key, v) {
        size_t k = 0, n = sizeof fields / sizeof fields[0];
        while (k < n && strcmp(fields[k].name, key))
            k++;
        if (k == n)
            return maat_error_set(err, MAAT_EINVAL, "%s: unknown field '%s' "
                                  "(fields: name, game, seats, matches, "
                                  "format, duplicate, jobs, seed, ladder, "
                                  "referee, referee_args, bots, hero, pin, "
                                  "keep, remote)",
                                  path, key);
        json_type want = fields[k].type, got = json_typeof(v);
        if (got == JSON_FALSE)
            got = JSON_TRUE;
        if (got != want)
            return maat_error_set(err, MAAT_EINVAL, "%s: field '%s' must be "
                                  "%s, not %s", path, key,
                                  maat_json_type_name(want),
                                  maat_json_type_name(got));
    }
    return MAAT_OK;
}

/* "remote": {"endpoint", "curve_key", "hello_time"}: required with a
 * remote bot, and only then; not with the ladder format, whose lineups
 * are chosen as matches start (a league does that: docs/LEAGUE.md). */
static int remote_config(maat_tournament *t, json_t *r, const char *path,
                         maat_error *err)
{
    if (!t->n_remote && !r)
        return MAAT_OK;
    const char *ep = json_string_value(json_object_get(r, "endpoint"));
    const char *key = json_string_value(json_object_get(r, "curve_key"));
    json_t *hello = json_object_get(r, "hello_time");
    const char *k;
    json_t *v;
    json_object_foreach(r, k, v)
        if (strcmp(k, "endpoint") && strcmp(k, "curve_key") &&
            strcmp(k, "hello_time"))
            return maat_error_set(err, MAAT_EINVAL, "%s: remote: unknown "
                                  "field '%s' (endpoint, curve_key, "
                                  "hello_time)", path, k);
    if (!t->n_remote)
        return fail(err, path, "field 'remote' is for remote bots (a bot "
                    "with a key and a token); there is none");
    if (!ep || !key)
        return fail(err, path, "remote bots need \"remote\": {\"endpoint\": "
                    "\"tcp://0.0.0.0:5555\", \"curve_key\": \"referee.key\"} "
                    "(docs/REMOTE.md)");
    if (hello && (!json_is_integer(hello) || json_integer_value(hello) < 1 ||
                  json_integer_value(hello) > 3600000))
        return fail(err, path, "remote: field 'hello_time' must be a whole "
                    "number of milliseconds from 1 to 3600000");
    if (t->format == TOUR_LADDER)
        return fail(err, path, "the ladder format takes no remote bots: a "
                    "league does (docs/LEAGUE.md)");
    t->endpoint = strdup(ep);
    t->curve_key = strdup(key);
    t->hello_time = hello ? (int)json_integer_value(hello) : 0;
    return t->endpoint && t->curve_key
               ? MAAT_OK
               : maat_error_set(err, MAAT_ENOMEM, "out of memory");
}

int maat_tournament_load(maat_tournament *t, const char *path,
                         maat_error *err)
{
    memset(t, 0, sizeof *t);
    t->hero = -1;
    json_error_t je;
    json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!j)
        return je.line > 0 ? maat_error_set(err, MAAT_EINVAL, "%s:%d: %s",
                                            path, je.line, je.text)
                           : maat_error_set(err, MAAT_EINVAL, "%s", je.text);
    json_t *v;
    int rc = check_fields(j, path, err);
    if (rc)
        goto out;
    const char *name = json_string_value(json_object_get(j, "name"));
    const char *game = json_string_value(json_object_get(j, "game"));
    snprintf(t->name, sizeof t->name, "%s", name ? name : "tournament");
    /* the name starts every match id ("<name>-<i>-<k>"), which names files */
    if (!maat_match_id_valid(t->name) || (name && strlen(name) >= 64)) {
        rc = fail(err, path, "field 'name' must be 1 to 63 ASCII letters, "
                  "digits, '.', '_', '-', ':', '+' or '@', not starting "
                  "with '.' or '-' (it starts every match id)");
        goto out;
    }
    snprintf(t->game, sizeof t->game, "%s", game ? game : maat_rules_default()->name);
    const maat_rules *r = maat_rules_find(t->game);
    if (!r) {
        int n;
        const maat_rules *const *all = maat_rules_all(&n);
        char names[256] = "";
        for (int i = 0; i < n; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names),
                     "%s%s", i ? ", " : "", all[i]->name);
        rc = maat_error_set(err, MAAT_EINVAL, "%s: field 'game': no game "
                            "named '%s' (games: %s)", path, t->game, names);
        goto out;
    }
    json_t *jseats = json_object_get(j, "seats");
    json_int_t seats = json_integer_value(jseats);
    t->seats = seats < 0 || seats > 64 ? -1 : (int)seats;
    if (t->seats < r->min_seats || t->seats > r->max_seats) {
        rc = maat_error_set(err, MAAT_EINVAL, "%s: field 'seats' %s: %s is "
                            "played by %d to %d seats", path, jseats ?
                            "is out of range" : "is required", t->game,
                            r->min_seats, r->max_seats);
        goto out;
    }
    json_int_t matches = json_integer_value(json_object_get(j, "matches"));
    t->matches = matches < 1 || matches > 10000000 ? -1 : (int)matches;
    if (t->matches < 1) {
        rc = fail(err, path, "field 'matches' must be a whole number from 1 "
                  "to 10000000 (and is required)");
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
    t->pin = json_is_true(json_object_get(j, "pin"));
    json_t *jobs = json_object_get(j, "jobs");
    json_int_t njobs = jobs ? json_integer_value(jobs) : 1;
    t->jobs = njobs < 1 || njobs > 256 ? -1 : (int)njobs;
    json_t *seed = json_object_get(j, "seed");
    if (t->jobs < 1 || t->jobs > 256) {
        rc = fail(err, path, "field 'jobs' must be a whole number from 1 to "
                  "256 (referees running at once)");
        goto out;
    }
    if (seed) {
        char text[32];
        maat_seed key;
        if (json_is_integer(seed))
            snprintf(text, sizeof text, "%lld",
                     (long long)json_integer_value(seed));
        if (!(json_is_string(seed) || json_is_integer(seed)) ||
            maat_seed_parse(&key, json_is_string(seed) ? json_string_value(seed)
                                                       : text,
                            NULL) != MAAT_OK) {
            rc = fail(err, path, "field 'seed' must be 0 or more, or a string "
                      "of 64 hex digits (leave it out for a secret key)");
            goto out;
        }
        maat_seed_format(&key, t->seed);
    }
    const char *ladder = json_string_value(json_object_get(j, "ladder"));
    if (!ladder) {
        rc = fail(err, path, "field 'ladder' (the ladder file) is required");
        goto out;
    }
    /* "" would put the key file and the games directory in the working
     * directory (".<name>.key", ".games") and fail only at the first
     * referee */
    if (!*ladder) {
        rc = fail(err, path, "field 'ladder' is empty: name the ladder file "
                  "(e.g. \"ladder.jsonl\")");
        goto out;
    }
    t->ladder = strdup(ladder);
    if (asprintf(&t->key_file, "%s.%s.key", ladder, t->name) < 0)
        t->key_file = NULL;
    t->games_dir = maat_tournament_games_dir(ladder);
    const char *keep = json_string_value(json_object_get(j, "keep"));
    t->keep = keep ? maat_keep_parse(keep) : MAAT_KEEP_ALL;
    if (t->keep < 0) {
        rc = fail(err, path, "field 'keep' must be all, failed or none (which "
                  "matches keep their records and bot logs)");
        goto out;
    }
    const char *referee = json_string_value(json_object_get(j, "referee"));
    t->referee = referee ? strdup(referee) : NULL;
    rc = maat_referee_args_parse(json_object_get(j, "referee_args"), path,
                                 &t->referee_args, &t->n_referee_args, err);
    if (rc)
        goto out;
    size_t i;
    json_t *bots = json_object_get(j, "bots");
    t->bots = calloc(json_array_size(bots) + 1, sizeof *t->bots);
    json_array_foreach(bots, i, v) {
        const char *bn = json_string_value(json_object_get(v, "name"));
        const char *bc = json_string_value(json_object_get(v, "command"));
        const char *bkey = json_string_value(json_object_get(v, "key"));
        const char *btok = json_string_value(json_object_get(v, "token"));
        const char *bk;
        json_t *bv;
        json_object_foreach(v, bk, bv)
            if (strcmp(bk, "name") && strcmp(bk, "command") &&
                strcmp(bk, "key") && strcmp(bk, "token")) {
                rc = maat_error_set(err, MAAT_EINVAL, "%s: bots[%zu]: unknown "
                                    "field '%s' (a bot has a name and a "
                                    "command, or a key and a token)", path, i,
                                    bk);
                goto out;
            }
        if (!bc && bkey) { /* a remote bot */
            if (strlen(bkey) != 40 || !btok || !*btok || strlen(btok) > 255) {
                rc = maat_error_set(err, MAAT_EINVAL, "%s: bots[%zu]: a remote "
                                    "bot has a 'key' (its 40-character CURVE "
                                    "public key) and a 'token' (1 to 255 "
                                    "characters)", path, i);
                goto out;
            }
            bc = "";
        }
        if (!bn || !bc || !*bn || (!*bc && !bkey) ||
            strlen(bn) >= sizeof t->bots[0].name ||
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
        maat_tour_bot *tb = &t->bots[t->n_bots++];
        snprintf(tb->name, sizeof tb->name, "%s", bn);
        tb->command = *bc ? strdup(bc) : NULL;
        tb->key = *bc ? NULL : strdup(bkey);
        tb->token = *bc ? NULL : strdup(btok);
        t->n_remote += !*bc;
    }
    if ((rc = remote_config(t, json_object_get(j, "remote"), path, err)))
        goto out;
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
    free(t->key_file);
    free(t->games_dir);
    free(t->referee);
    maat_referee_args_free(&t->referee_args, &t->n_referee_args);
    for (int i = 0; i < t->n_bots; i++) {
        free(t->bots[i].command);
        free(t->bots[i].key);
        free(t->bots[i].token);
    }
    free(t->bots);
    free(t->endpoint);
    free(t->curve_key);
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

char *maat_tournament_games_dir(const char *ladder)
{
    return maat_ladder_sibling(ladder, ".games");
}

int maat_keep_parse(const char *text)
{
    return !strcmp(text, "all") ? MAAT_KEEP_ALL
           : !strcmp(text, "failed") ? MAAT_KEEP_FAILED
           : !strcmp(text, "none") ? MAAT_KEEP_NONE : -1;
}

/* Is `base` a file of match `id`: its record ID.json, a game's record
 * ID-K.json, or a bot's log ID-K-BOT.log with BOT one of the config's?
 * (Not another tournament's: "t-0-0-0.json" is match 0 of "t-0", not a
 * game of match 0 of "t".) */
static int match_file(const maat_tournament *t, const char *id,
                      const char *base)
{
    size_t n = strlen(id);
    if (strncmp(base, id, n))
        return 0;
    base += n;
    if (!strcmp(base, ".json"))
        return 1;
    size_t k = *base == '-' ? strspn(base + 1, "0123456789") : 0;
    if (!k)
        return 0;
    base += 1 + k;
    if (!strcmp(base, ".json"))
        return 1;
    if (*base++ != '-')
        return 0;
    for (int b = 0; b < t->n_bots; b++) {
        size_t m = strlen(t->bots[b].name);
        if (!strncmp(base, t->bots[b].name, m) && !strcmp(base + m, ".log"))
            return 1;
    }
    return 0;
}

/* Did a record of match `id` in directory `dir` name a fault (or not
 * read)?  With `remove`, unlink the match's files there instead. */
static int match_files(const maat_tournament *t, const char *dir,
                       const char *id, int remove)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int faults = 0;
    if (!d)
        return 0;
    while (!faults && (de = readdir(d))) {
        char path[4400];
        size_t n = strlen(de->d_name);
        if (!match_file(t, id, de->d_name))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (remove) {
            unlink(path);
        } else if (n > 5 && !strcmp(de->d_name + n - 5, ".json")) {
            json_t *rec = json_load_file(path, 0, NULL);
            faults = !rec ||
                     json_array_size(json_object_get(rec, "faults")) > 0;
            json_decref(rec);
        }
    }
    closedir(d);
    return faults;
}

/* After match i: its records and logs stay (keep all), stay only when a
 * game had a fault (keep failed), or go (keep none).  `again`: the
 * directory of this play when it was a play again (play_dir), judged and
 * removed with the games directory's files of the match.  The ladder lines
 * still name them; maat-replay --index skips what is gone.  Only this
 * match's files: another tournament's in the same directory may share
 * the start of their names. */
static void apply_keep(const maat_tournament *t, int i, const char *again)
{
    char id[96];
    const char *dirs[2] = {t->games_dir, again};
    if (t->keep == MAAT_KEEP_ALL || !t->games_dir)
        return;
    maat_tournament_match_id(t, i, id, sizeof id);
    int faults = 0, n = again ? 2 : 1;
    for (int d = 0; d < n; d++)
        faults |= match_files(t, dirs[d], id, 0);
    if (t->keep == MAAT_KEEP_FAILED && faults)
        return;
    for (int d = 0; d < n; d++)
        match_files(t, dirs[d], id, 1);
    if (again)
        rmdir(again);
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

/* maat_tournament_argv; `sandbox_checked`: run's one bubblewrap check;
 * `play_dir`: where this play of the match keeps its records and logs when
 * not in the games directory (a play again of a match cut short, see
 * play_dir()), NULL otherwise */
static char **tournament_argv(const maat_tournament *t, int i,
                              const int *bots, const char *ladder,
                              int sandbox_checked, const char *play_dir,
                              const char *pending_dir)
{
    char id[96];
    maat_tournament_match_id(t, i, id, sizeof id);
    char *waiting = NULL; /* this match's lines, until their turn */
    char *waiting_root = NULL; /* every tournament's waiting lines */
    if (pending_dir && (!(waiting = maat_pending_file(pending_dir, id)) ||
                        !(waiting_root = maat_pending_root(t->ladder)))) {
        free(waiting);
        return NULL;
    }
    maat_referee_cmd c = {
        .referee = t->referee, .game = t->game,
        .seed = t->seed[0] ? t->seed : NULL, .seed_file = t->key_file,
        .seed_label = id, .duplicate = t->duplicate,
        .match_id = id, .ladder = waiting ? waiting : ladder,
        .ladder_final = waiting ? ladder : NULL,
        .seats = t->seats,
        /* records and logs where `run` keeps them; a planned shard runs
         * elsewhere, where that directory need not exist */
        .games_dir = ladder != t->ladder ? NULL
                     : play_dir ? play_dir : t->games_dir,
        /* the cut-short play's files in the games directory show this
         * very deal: the bots of the play again must not read them; and
         * the ladder, hidden by the referee when it writes there, when
         * it writes to its waiting file instead (with the other
         * matches' waiting files) */
        .hide = {play_dir ? t->games_dir : NULL,
                 pending_dir ? waiting_root : NULL,
                 pending_dir ? t->ladder : NULL},
        .sandbox_checked = sandbox_checked,
        .extra = t->referee_args, .n_extra = t->n_referee_args};
    c.endpoint = t->endpoint;
    c.curve_key = t->curve_key;
    c.hello_time = t->hello_time;
    for (int s = 0; s < t->seats; s++) {
        c.name[s] = t->bots[bots[s]].name;
        c.command[s] = t->bots[bots[s]].command;
        c.token[s] = t->bots[bots[s]].token;
        c.key[s] = t->bots[bots[s]].key;
    }
    char **argv = maat_referee_argv(&c);
    free(waiting);
    free(waiting_root);
    return argv;
}

char **maat_tournament_argv(const maat_tournament *t, int i, const int *bots,
                            const char *ladder)
{
    return tournament_argv(t, i, bots, ladder, 0, NULL, NULL);
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

/* Where match i keeps its records and logs in this play: the games
 * directory, unless a play cut short (a run killed) left some of the
 * match's games in the ladder file.  Those first lines are the ones that
 * count, and they name their files in the games directory, which this play
 * of the same ids would replace.  Then a directory of this play's own,
 * "<games>/<match>.play-<n>", n = 2, 3, ... the first not made before, so
 * every ladder line names the files of its own play.  *dir is NULL (the
 * games directory) or malloc'd. */
static int play_dir(const maat_tournament *t, const maat_ladder *l, int i,
                    char **dir, maat_error *err)
{
    char id[96], gid[112];
    int started = 0;
    *dir = NULL;
    maat_tournament_match_id(t, i, id, sizeof id);
    for (int k = 0; k < games_per_match(t) && !started; k++) {
        snprintf(gid, sizeof gid, "%s-%d", id, k);
        started = maat_ladder_has(l, gid);
    }
    if (!started || !t->games_dir)
        return MAAT_OK;
    for (int n = 2;; n++) {
        if (asprintf(dir, "%s/%s.play-%d", t->games_dir, id, n) < 0) {
            *dir = NULL;
            return maat_error_set(err, MAAT_ENOMEM, "out of memory");
        }
        if (mkdir(*dir, 0755) == 0)
            return MAAT_OK;
        int e = errno;
        if (e != EEXIST || n == 1000) {
            maat_error_set(err, MAAT_EIO, "%s: cannot make the directory "
                           "for match %d played again: %s", *dir, i,
                           strerror(e));
            free(*dir);
            *dir = NULL;
            return err->code;
        }
        free(*dir);
    }
}

/* ---- what the run knows of the ladder file ---------------------------- */

/* Every game in the file, read once and then followed (only new lines),
 * with the standings of the tournament's game kept up to date game by game
 * for the ladder format, faults since the start for the progress line, and
 * each bot's fault tally over this tournament's games. */
typedef struct follower {
    maat_ladder l;
    maat_ladder_cursor cur;
    size_t seen;          /* games already accounted for */
    size_t at_start;      /* games in the file when the run began */
    maat_standings s;
    maat_rating_params p;
    int faults;           /* fault events in games added during the run */
    maat_fault_tally *tally; /* per bot of the config */
} follower;

/* Is game g one of tournament t's ("<name>-<i>-<k>", i and k numbers)? */
static int ours(const maat_tournament *t, const maat_ladder_game *g)
{
    size_t n = strlen(t->name);
    if (strncmp(g->id, t->name, n) || g->id[n] != '-')
        return 0;
    const char *p = g->id + n + 1;
    size_t i = strspn(p, "0123456789");
    return i > 0 && p[i] == '-' && p[i + 1] &&
           strspn(p + i + 1, "0123456789") == strlen(p + i + 1);
}

static void follow(const maat_tournament *t, follower *f, FILE *report)
{
    maat_error err = {0};
    maat_ladder_follow(&f->l, &f->cur, report, &err);
    for (; f->seen < f->l.count; f->seen++) {
        const maat_ladder_game *g = &f->l.games[f->seen];
        if (f->seen >= f->at_start)
            for (int s = 0; s < g->seats; s++)
                for (int k = 0; k < MAAT_FAULT_KINDS; k++)
                    f->faults += g->faults[s][k];
        if (strcmp(g->game, t->game))
            continue;
        if (t->format == TOUR_LADDER)
            maat_standings_add(&f->s, g, &f->p);
        if (!ours(t, g))
            continue;
        for (int s = 0; s < g->seats; s++)
            for (int b = 0; b < t->n_bots; b++)
                if (!strcmp(g->bot[s], t->bots[b].name))
                    maat_fault_tally_add(&f->tally[b], g, s);
    }
}

/* ---- rating-based matchmaking ---------------------------------------- */

/* The bot with the fewest games -- counting the games of the matches
 * running now -- then, seat by seat, the opponent that shares the fewest
 * running matches with those chosen, then the nearest in displayed
 * rating, then the one with fewer games.  Counting the running matches
 * keeps `jobs` matches started at once from all being the same pairing. */
static void ladder_lineup(const maat_tournament *t, follower *f,
                          int running, int (*lineup)[MAAT_MAX_SEATS],
                          int *bots)
{
    enum { N = 256 };
    double rating[N];
    int games[N], used[N] = {0}, n = t->n_bots < N ? t->n_bots : N;
    for (int b = 0; b < n; b++) {
        maat_standing *row = maat_standings_row(&f->s, t->bots[b].name,
                                                t->game, &f->p);
        rating[b] = row ? maat_rating_display(&row->rating) : 0;
        games[b] = row ? row->games : 0;
    }
    for (int r = 0; r < running; r++)
        for (int s = 0; s < t->seats; s++)
            games[lineup[r][s]] += games_per_match(t);
    int first = 0;
    for (int b = 1; b < n; b++)
        if (games[b] < games[first])
            first = b;
    bots[0] = first;
    used[first] = 1;
    for (int k = 1; k < t->seats; k++) {
        int best = -1, best_met = 0;
        for (int b = 0; b < n; b++) {
            if (used[b])
                continue;
            int met = 0; /* running matches b shares with the chosen */
            for (int r = 0; r < running; r++)
                for (int s = 0; s < t->seats; s++)
                    for (int c = 0; c < k && lineup[r][s] == b; c++)
                        for (int q = 0; q < t->seats; q++)
                            met += lineup[r][q] == bots[c];
            double d = fabs(rating[b] - rating[first]);
            double bd = best < 0 ? 0 : fabs(rating[best] - rating[first]);
            if (best < 0 || met < best_met ||
                (met == best_met && (d < bd || (d == bd &&
                                                games[b] < games[best])))) {
                best = b;
                best_met = met;
            }
        }
        bots[k] = best;
        used[best] = 1;
    }
}

/* ---- running -------------------------------------------------------- */

static int has_remote(const maat_tournament *t, const int *bots)
{
    for (int s = 0; s < t->seats; s++)
        if (!t->bots[bots[s]].command)
            return 1;
    return 0;
}

/* With remote bots: move to pending[next] the first pending match that may
 * start now (none with a remote bot while one such is running); 0 when
 * every pending match must wait. */
static int next_playable(const maat_tournament *t, int *pending, int next,
                         int n_pending, int (*lineup)[MAAT_MAX_SEATS],
                         int running)
{
    int busy = 0;
    for (int r = 0; r < running; r++)
        busy |= has_remote(t, lineup[r]);
    for (int k = next; k < n_pending; k++) {
        int bots[MAAT_MAX_SEATS];
        maat_tournament_lineup(t, pending[k], bots);
        if (busy && has_remote(t, bots))
            continue;
        int i = pending[k]; /* keep the others in their order */
        memmove(pending + next + 1, pending + next,
                sizeof *pending * (size_t)(k - next));
        pending[next] = i;
        return 1;
    }
    return 0;
}

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* A referee that ended, or -1 once interrupted; the signals are caught
 * (maat_signals_catch: none is lost between the look and the wait) and
 * `waiting` is their mask. */
static pid_t wait_referee(int *status, const sigset_t *waiting)
{
    for (;;) {
        pid_t pid = waitpid(-1, status, WNOHANG);
        if (pid > 0 || interrupted)
            return pid > 0 ? pid : -1;
        if (pid < 0 && errno != EINTR)
            return -1; /* no child: nothing to wait for */
        sigsuspend(waiting);
    }
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

/* "3m20s", "41s" */
static void fmt_duration(double s, char *buf, size_t len)
{
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else if (t >= 60)
        snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(buf, len, "%lds", t);
}

/* One progress report: rewritten in place on a terminal, one line each
 * otherwise (CI logs). */
static void progress(int tty, int done, int total, int n_done, int left,
                     double elapsed, int faults, int failed)
{
    double rate = elapsed > 0 ? n_done / elapsed : 0;
    char eta[32];
    fmt_duration(rate > 0 ? left / rate : 0, eta, sizeof eta);
    fprintf(stderr, "%smaat-ladder: %d/%d matches, %.2f/s, ETA %s, %d "
            "fault%s%s%s", tty ? "\r" : "", done, total, rate, eta, faults,
            faults == 1 ? "" : "s", failed ? ", some matches failed" : "",
            tty ? "   " : "\n");
}

/* Every bot that the tallies say is broken, reported; how many. */
static int report_broken(const maat_tournament *t, const follower *f,
                         double share)
{
    int broken = 0, logged = 0;
    for (int b = 0; b < t->n_bots; b++) {
        const maat_fault_tally *ft = &f->tally[b];
        if (!maat_fault_tally_broken(ft, share))
            continue;
        char what[256], log[1024];
        maat_fault_tally_describe(ft, what, sizeof what);
        maat_fault_tally_log(ft, t->ladder, log, sizeof log);
        fprintf(stderr, "maat-ladder: bot '%s' is broken, not weak: %s; "
                "first in game %s: %s%s%s\n", t->bots[b].name, what,
                ft->first_game, ft->first_detail, *log ? "; its output: " : "",
                log);
        logged |= *log != 0;
        broken++;
    }
    if (broken && !logged)
        fprintf(stderr, "maat-ladder: the faults are in the ladder lines "
                "(\"faults\"); the bots' own output was not kept (run with "
                "--keep all or --keep failed)\n");
    return broken;
}

/* With no seed in the config, the secret key: made on the first run. */
static int key_ready(const maat_tournament *t, maat_error *err)
{
    maat_seed key;
    if (t->seed[0])
        return MAAT_OK;
    if (!t->key_file)
        return maat_error_set(err, MAAT_ENOMEM, "out of memory");
    return maat_seed_key_file(&key, t->key_file, err);
}

/* One run of a tournament at a time on its ladder file: two would play
 * the same match ids, each counting half of the other's lines and naming
 * the other's records.  An flock on "<ladder>.<name>.lock" (beside the key
 * file), held until the run ends and never removed (removing it would race
 * with a run opening it).  Other tournaments may still share the ladder
 * file (their ids differ), and readers never take it.  The fd, or -1. */
static int lock_run(const maat_tournament *t, maat_error *err)
{
    char *path;
    if (asprintf(&path, "%s.%s.lock", t->ladder, t->name) < 0)
        return maat_error_set(err, MAAT_ENOMEM, "out of memory"), -1;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        maat_error_set(err, MAAT_EIO, "%s: cannot make the lock of the "
                       "ladder file %s: %s", path, t->ladder, strerror(errno));
    } else if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        char pid[32] = "";
        ssize_t n = read(fd, pid, sizeof pid - 1);
        pid[n > 0 ? n : 0] = 0;
        maat_error_set(err, MAAT_EINVAL, "%s: another run of tournament "
                       "'%s' holds this ladder file (pid %s): one at a "
                       "time; run again when it ends", t->ladder, t->name,
                       strtok(pid, "\n") ? pid : "?");
        close(fd);
        fd = -1;
    } else {
        char pid[32];
        snprintf(pid, sizeof pid, "%d\n", (int)getpid());
        if (ftruncate(fd, 0) != 0 || write(fd, pid, strlen(pid)) < 0) {
            /* the lock is what matters; the pid is for the message */
        }
    }
    free(path);
    return fd;
}

/* The lines already in the ladder under this tournament's ids must be its
 * own games: dealt from its seed (or key) and played by the bots of its
 * lineup.  Another tournament of the same name (the default name is
 * "tournament") with another seed or other bots would otherwise have its
 * games counted as this one's, and this one's never played (a review of
 * 2026-11-28: "8 of 8 matches already in ladder.jsonl", exit 0). */
static int check_own_lines(const maat_tournament *t, const maat_ladder *l,
                           maat_error *err)
{
    maat_seed key;
    int rc = t->seed[0] ? maat_seed_parse(&key, t->seed, err)
                        : maat_seed_key_file(&key, t->key_file, err);
    if (rc)
        return rc;
    for (int i = 0; i < t->matches; i++) {
        char id[96], gid[112], label[32], want[MAAT_SEED_TEXT];
        maat_tournament_match_id(t, i, id, sizeof id);
        maat_seed match, deal;
        maat_seed_derive(&match, &key, id);
        int lineup[MAAT_MAX_SEATS], known = !maat_tournament_lineup(t, i,
                                                                   lineup);
        for (int k = 0; k < games_per_match(t); k++) {
            snprintf(gid, sizeof gid, "%s-%d", id, k);
            const maat_ladder_game *g = maat_ladder_find(l, gid);
            if (!g)
                continue;
            int remote = 0, strangers = 0;
            for (int s = 0; s < g->seats; s++) {
                int b = 0;
                while (b < t->n_bots && strcmp(t->bots[b].name, g->bot[s]))
                    b++;
                remote |= b < t->n_bots && t->bots[b].token != NULL;
                int in = b < t->n_bots && !known;
                for (int q = 0; known && q < t->seats; q++)
                    in |= lineup[q] == b;
                strangers += !in;
            }
            deal = match; /* game k: the referee's --same-deal or not */
            if (k > 0 && !(t->duplicate && !remote)) {
                snprintf(label, sizeof label, "game %d", k);
                maat_seed_derive(&deal, &match, label);
            }
            maat_seed_format(&deal, want);
            const char *have = json_string_value(json_object_get(g->line,
                                                                 "seed"));
            if (!have || strcmp(have, want) || strangers || g->seats !=
                t->seats)
                return maat_error_set(err, MAAT_EINVAL, "%s: game %s was "
                                      "not played by this tournament (%s): "
                                      "another tournament named '%s' has "
                                      "games in this file; give this one "
                                      "another \"name\", or another "
                                      "\"ladder\"", t->ladder, gid,
                                      strangers || g->seats != t->seats
                                          ? "other bots"
                                          : "another seed or key",
                                      t->name);
        }
    }
    return MAAT_OK;
}

/* Append match i's waiting lines (pending.h) to the ladder; a torn last
 * line (its referee killed mid-write) is said and left out. */
static int move_pending(const maat_tournament *t, const char *dir, int i,
                        int quiet, maat_error *err)
{
    char id[96];
    maat_tournament_match_id(t, i, id, sizeof id);
    char *file = maat_pending_file(dir, id);
    if (!file)
        return maat_error_set(err, MAAT_ENOMEM, "out of memory");
    int torn = 0, rc = maat_pending_move(file, t->ladder, &torn, err);
    if (rc == MAAT_OK && torn && !quiet)
        fprintf(stderr, "maat-ladder: %s: a torn last line (a referee "
                "stopped mid-write) left out\n", file);
    free(file);
    return rc;
}

/* Every waiting line of this tournament, in match order: what a run
 * stopped part way left, before the ladder is read (or when this run is
 * stopped).  Needs the tournament's lock. */
static int move_all_pending(const maat_tournament *t, const char *dir,
                            int quiet, maat_error *err)
{
    int moved = 0, torn = 0;
    int rc = maat_pending_move_all(dir, t->ladder, &moved, &torn, err);
    if (!quiet && moved)
        fprintf(stderr, "maat-ladder: %s: appended the lines of %d match%s "
                "that had waited for earlier ones%s\n", t->ladder, moved,
                moved == 1 ? "" : "es", torn ? " (a torn last line, a "
                "referee stopped mid-write, left out)" : "");
    return rc;
}

static int run_locked(const maat_tournament *t, const maat_run_options *o,
                      maat_error *err)
{
    maat_pin_cpus cpus = {0};
    int rc = key_ready(t, err);
    if (rc == MAAT_OK && t->pin)
        rc = maat_pin_cpus_read(&cpus, err);
    if (rc)
        return rc;
    follower f;
    memset(&f, 0, sizeof f);
    maat_rating_params_default(&f.p);
    f.cur.path = t->ladder;
    f.tally = calloc((size_t)t->n_bots + 1, sizeof *f.tally);
    int *pending = malloc(sizeof *pending * (size_t)t->matches), n_pending = 0;
    /* With several jobs, lines are appended in match order (pending.h):
     * `order` is the matches to play in match order (`pending` may be
     * reordered for remote bots), `ended` says which have, and `moved`
     * how many of `order` are in the ladder.  Not for the rating-based
     * format: its next lineup is chosen from the games as they end. */
    char *pdir = maat_pending_dir(t->ladder, t->name);
    int in_order = t->jobs > 1 && t->format != TOUR_LADDER;
    int *order = malloc(sizeof *order * (size_t)t->matches), moved = 0;
    char *ended = calloc((size_t)t->matches, 1);
    if (!pending || !f.tally || !pdir || !order || !ended) {
        rc = maat_error_set(err, MAAT_ENOMEM, "out of memory");
        goto out;
    }
    rc = move_all_pending(t, pdir, o->quiet, err);
    if (rc)
        goto out;
    rc = maat_ladder_follow(&f.l, &f.cur, o->quiet ? NULL : stderr, err);
    if (rc)
        goto out;
    f.at_start = f.l.count;
    rc = check_own_lines(t, &f.l, err);
    if (rc)
        goto out;
    if (t->games_dir && mkdir(t->games_dir, 0755) != 0 && errno != EEXIST) {
        rc = maat_error_set(err, MAAT_EIO, "%s: cannot make the directory "
                            "for the games' records and logs: %s",
                            t->games_dir, strerror(errno));
        goto out;
    }
    follow(t, &f, NULL);
    for (int i = 0; i < t->matches; i++)
        if (!match_done(t, &f.l, i))
            order[n_pending] = i, pending[n_pending++] = i;
    /* The waiting lines' directories, and with them the ladder, made now:
     * referees hide only what exists when their bots start, and every
     * referee writing to this ladder hides "<ladder>.waiting" (pending.h),
     * so it is made by every run, whether it waits for lines or not. */
    if (n_pending > 0 &&
        ((rc = maat_pending_make(t->ladder, in_order ? t->name : NULL,
                                 err)) ||
         (in_order && (rc = maat_ladder_check_writable(t->ladder, 1, err)))))
        goto out;
    int skipped = t->matches - n_pending;
    if (!o->quiet && skipped)
        fprintf(stderr, "maat-ladder: %d of %d matches already in %s; "
                        "playing the other %d\n", skipped, t->matches,
                t->ladder, n_pending);

    maat_signals sig;
    maat_signals_catch(&sig, on_signal);
    interrupted = 0;

    pid_t pids[256];
    int match_of[256], slot_of[256]; /* slot_of: job slot, so its CPU */
    char *again_of[256]; /* play_dir of a play again, else NULL */
    int lineup[256][MAAT_MAX_SEATS];
    int running = 0, next = 0, done = 0, failed = 0;
    int tty = isatty(2) && !o->quiet, every = o->report_every;
    if (every <= 0) /* about 20 reports a run */
        every = n_pending / 20 > 1 ? n_pending / 20 : 1;
    /* one bubblewrap check for the run, not one per referee */
    int sandbox_checked = n_pending > 0 &&
        maat_referee_sandbox_check("maat-ladder run", t->referee_args,
                                   t->n_referee_args);
    if (n_pending > 0)
        maat_referee_task_cap_check("maat-ladder run", t->referee_args,
                                    t->n_referee_args);
    double start = now_s();
    while ((next < n_pending || running) && !interrupted) {
        while (running < t->jobs && next < n_pending && !interrupted) {
            /* matches with a remote bot share the endpoint: one at a
             * time, the others go first meanwhile */
            if (t->n_remote && !next_playable(t, pending, next, n_pending,
                                              lineup, running))
                break;
            int *bots = lineup[running], i = pending[next++];
            if (maat_tournament_lineup(t, i, bots) < 0)
                ladder_lineup(t, &f, running, lineup, bots);
            char *again;
            maat_error derr = {0};
            if (play_dir(t, &f.l, i, &again, &derr)) {
                fprintf(stderr, "%smaat-ladder: match %d: %s\n",
                        tty ? "\n" : "", i, derr.msg);
                failed++;
                ended[i] = 1;
                continue;
            }
            char **argv = tournament_argv(t, i, bots, t->ladder,
                                          sandbox_checked, again,
                                          in_order ? pdir : NULL);
            char match[16];
            snprintf(match, sizeof match, "%d", i);
            int slot = free_slot(slot_of, running);
            pid_t pid = argv ? maat_referee_start(argv, t->pin ?
                                   maat_pin_slot_cpu(&cpus, slot) : -1, match,
                                   0)
                             : -1;
            maat_argv_free(argv);
            if (pid < 0) {
                free(again);
                failed++;
                ended[i] = 1;
                continue;
            }
            pids[running] = pid;
            again_of[running] = again;
            slot_of[running] = slot;
            match_of[running++] = i;
        }
        int status;
        pid_t pid = wait_referee(&status, &sig.waiting);
        if (pid < 0)
            continue; /* interrupted: the loop ends */
        for (int k = 0; k < running; k++)
            if (pids[k] == pid) {
                int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
                if (code != 0) {
                    failed++;
                    fprintf(stderr, "%smaat-ladder: match %d: the referee "
                            "exited with %d%s\n", tty ? "\n" : "",
                            match_of[k], code, code == 2 ? " (a usage error: "
                            "check the config's bots and referee_args)" :
                            code == 5 ? " (the machine failed, not a bot: "
                            "above)" : "");
                } else {
                    done++;
                    apply_keep(t, match_of[k], again_of[k]);
                }
                free(again_of[k]);
                ended[match_of[k]] = 1;
                --running;
                again_of[k] = again_of[running];
                pids[k] = pids[running];
                match_of[k] = match_of[running];
                slot_of[k] = slot_of[running];
                memcpy(lineup[k], lineup[running], sizeof lineup[k]);
                break;
            }
        /* the lines of every match ended since the last still running */
        while (in_order && moved < n_pending && ended[order[moved]] &&
               rc == MAAT_OK)
            rc = move_pending(t, pdir, order[moved++], o->quiet, err);
        if (rc)
            break;
        follow(t, &f, o->quiet ? NULL : stderr);
        int finished = done + failed;
        if (tty || (!o->quiet && (finished % every == 0 ||
                                  finished == n_pending)))
            progress(tty, skipped + done, t->matches, done,
                     n_pending - finished, now_s() - start, f.faults,
                     failed);
    }
    /* interrupted, or a waiting file that could not be moved (it stays,
     * for the next run: rc) */
    if (interrupted || rc) {
        for (int k = 0; k < running; k++)
            kill(pids[k], SIGTERM);
        for (int k = 0; k < running; k++)
            waitpid(pids[k], NULL, 0);
    }
    for (int k = 0; (interrupted || rc) && k < running; k++)
        free(again_of[k]);
    if (tty)
        fputc('\n', stderr);
    maat_signals_restore(&sig);
    if (rc)
        goto out;
    /* what a stop left waiting: in the ladder now, in match order */
    if (in_order && (rc = move_all_pending(t, pdir, o->quiet, err)))
        goto out;
    if (interrupted)
        rc = maat_error_set(err, MAAT_ESTATE, "interrupted after %d "
                            "matches; run the same command again to resume",
                            skipped + done);
    else if (failed)
        rc = maat_error_set(err, MAAT_EIO, "%d of %d matches failed; run "
                            "again to retry them", failed, n_pending);
    else if (report_broken(t, &f, o->fault_share))
        rc = maat_error_set(err, MAAT_EBROKEN, "a bot is broken (above); "
                            "its results mean nothing");
out:
    free(pending);
    free(order);
    free(ended);
    free(pdir);
    free(f.tally);
    maat_standings_free(&f.s);
    maat_ladder_free(&f.l);
    maat_pin_cpus_free(&cpus);
    return rc;
}

int maat_tournament_run(const maat_tournament *t, const maat_run_options *o,
                        maat_error *err)
{
    int lock = lock_run(t, err);
    if (lock < 0)
        return err->code;
    int rc = run_locked(t, o, err);
    close(lock);
    return rc;
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
    if (t->n_remote)
        return maat_error_set(err, MAAT_EINVAL, "remote bots connect to one "
                              "endpoint, one match at a time: play this "
                              "tournament with `run`");
    maat_ladder l = {0};
    int rc = key_ready(t, err);
    if (rc)
        return rc;
    /* lines a stopped `run` left waiting are games played: in the ladder
     * first, or they would be planned again (under the run's lock) */
    char *pdir = maat_pending_dir(t->ladder, t->name);
    int lock = pdir ? lock_run(t, err) : -1;
    if (!pdir)
        rc = maat_error_set(err, MAAT_ENOMEM, "out of memory");
    else if (lock < 0)
        rc = err->code;
    else
        rc = move_all_pending(t, pdir, 0, err);
    if (lock >= 0)
        close(lock);
    free(pdir);
    if (rc == MAAT_OK)
        rc = maat_ladder_read(&l, t->ladder, 1, stderr, err);
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
