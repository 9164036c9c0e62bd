/* league_config.c -- a league's config and directory (see league.h;
 * docs/LEAGUE.md): league.json read and checked, `league new` making the
 * directory, its secret key and the remote entrants' tokens.  The running
 * league is league.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "faults.h"
#include "league.h"
#include "maat/rng.h"
#include "referee_cmd.h"

/* ---- the config --------------------------------------------------------- */

static const char *const config_fields[] = {
    "game", "seats", "duplicate", "jobs", "reference", "validation_matches",
    "half_life", "fault_share", "replays", "replay_logs", "referee",
    "replay", "referee_args", "remote", "queue", "dispatch_timeout", NULL};

static int bad_field(maat_error *err, const char *path, const char *field,
                     const char *what)
{
    return maat_error_set(err, MAAT_EINVAL, "%s: field '%s' %s", path, field,
                          what);
}

/* An integer field in lo..hi, or its default. */
static int int_field(json_t *j, const char *path, const char *name, int lo,
                     int hi, int def, int *out, maat_error *err)
{
    json_t *v = json_object_get(j, name);
    if (!v) {
        *out = def;
        return MAAT_OK;
    }
    if (!json_is_integer(v) || json_integer_value(v) < lo ||
        json_integer_value(v) > hi) {
        char what[96];
        snprintf(what, sizeof what, "must be a whole number from %d to %d",
                 lo, hi);
        return bad_field(err, path, name, what);
    }
    *out = (int)json_integer_value(v);
    return MAAT_OK;
}

static int bool_field(json_t *j, const char *path, const char *name, int def,
                      int *out, maat_error *err)
{
    json_t *v = json_object_get(j, name);
    if (v && !json_is_boolean(v))
        return bad_field(err, path, name, "must be true or false");
    *out = v ? json_is_true(v) : def;
    return MAAT_OK;
}

static int str_field(json_t *j, const char *path, const char *name,
                     char **out, maat_error *err)
{
    json_t *v = json_object_get(j, name);
    *out = NULL;
    if (!v)
        return MAAT_OK;
    if (!json_is_string(v) || !*json_string_value(v))
        return bad_field(err, path, name, "must be a non-empty string");
    *out = strdup(json_string_value(v));
    return *out ? MAAT_OK : maat_error_set(err, MAAT_ENOMEM, "out of memory");
}

static int remote_fields(maat_league_config *c, json_t *r, const char *path,
                         maat_error *err)
{
    const char *key;
    json_t *v;
    if (!r)
        return MAAT_OK;
    if (!json_is_object(r))
        return bad_field(err, path, "remote", "must be an object: "
                         "{\"endpoint\": \"tcp://0.0.0.0:5555\", ...}");
    json_object_foreach(r, key, v)
        if (strcmp(key, "endpoint") && strcmp(key, "hello_time") &&
            strcmp(key, "retry"))
            return maat_error_set(err, MAAT_EINVAL, "%s: remote: unknown "
                                  "field '%s' (endpoint, hello_time, retry)",
                                  path, key);
    int rc = str_field(r, path, "endpoint", &c->endpoint, err);
    if (!rc && !c->endpoint)
        rc = bad_field(err, path, "remote.endpoint", "is required, e.g. "
                       "\"tcp://0.0.0.0:5555\"");
    if (!rc)
        rc = int_field(r, path, "hello_time", 100, 3600000, 30000,
                       &c->hello_time, err);
    if (!rc)
        rc = int_field(r, path, "retry", 1, 86400, 60, &c->retry, err);
    return rc;
}

/* The config in `j` (owned: released here), `path` naming it in errors. */
static int config_parse(maat_league_config *c, json_t *j, const char *path,
                        maat_error *err)
{
    int rc = MAAT_OK;
    const char *key;
    json_t *v;
    if (!json_is_object(j)) {
        rc = maat_error_set(err, MAAT_EINVAL, "%s: the config must be a JSON "
                            "object ({...})", path);
        goto out;
    }
    json_object_foreach(j, key, v) {
        int k = 0;
        while (config_fields[k] && strcmp(config_fields[k], key))
            k++;
        if (!config_fields[k]) {
            rc = maat_error_set(err, MAAT_EINVAL, "%s: unknown field '%s' "
                                "(fields: game, seats, duplicate, jobs, "
                                "reference, validation_matches, half_life, "
                                "fault_share, replays, replay_logs, referee, "
                                "replay, referee_args, remote, queue, "
                                "dispatch_timeout)", path, key);
            goto out;
        }
    }
    const char *game = json_string_value(json_object_get(j, "game"));
    snprintf(c->game, sizeof c->game, "%s", game ? game : maat_rules_default()->name);
    const maat_rules *r = maat_rules_find(c->game);
    if (!r) {
        int n;
        const maat_rules *const *all = maat_rules_all(&n);
        char known[200] = "";
        for (int i = 0; i < n; i++)
            snprintf(known + strlen(known), sizeof known - strlen(known),
                     "%s%s", i ? ", " : "", all[i]->name);
        rc = maat_error_set(err, MAAT_EINVAL, "%s: field 'game': no game "
                            "named '%.40s' (maat knows %s)", path, c->game,
                            known);
        goto out;
    }
    double half_life = 100, share = MAAT_FAULT_SHARE;
    json_t *hl = json_object_get(j, "half_life");
    json_t *fs = json_object_get(j, "fault_share");
    if ((rc = int_field(j, path, "seats", r->min_seats, r->max_seats, 2,
                        &c->seats, err)) ||
        (rc = bool_field(j, path, "duplicate", 1, &c->duplicate, err)) ||
        (rc = int_field(j, path, "jobs", 1, MAAT_LEAGUE_MAX_JOBS, 1, &c->jobs,
                        err)) ||
        (rc = str_field(j, path, "reference", &c->reference, err)) ||
        (rc = int_field(j, path, "validation_matches", 1, 1000, 2,
                        &c->validation_matches, err)) ||
        (rc = bool_field(j, path, "replays", 1, &c->replays, err)) ||
        (rc = bool_field(j, path, "replay_logs", 0, &c->replay_logs, err)) ||
        (rc = str_field(j, path, "referee", &c->referee, err)) ||
        (rc = str_field(j, path, "replay", &c->replay, err)) ||
        (rc = bool_field(j, path, "queue", 0, &c->queue, err)) ||
        (rc = int_field(j, path, "dispatch_timeout", 10, 30 * 86400, 6 * 3600,
                        &c->dispatch_timeout, err)) ||
        (rc = remote_fields(c, json_object_get(j, "remote"), path, err)))
        goto out;
    if (hl && (!json_is_number(hl) || json_number_value(hl) < 1)) {
        rc = bad_field(err, path, "half_life", "must be a number of games, "
                       "1 or more");
        goto out;
    }
    if (fs && (!json_is_number(fs) || json_number_value(fs) < 0 ||
               json_number_value(fs) > 1)) {
        rc = bad_field(err, path, "fault_share", "must be a number from 0 "
                       "to 1");
        goto out;
    }
    c->half_life = hl ? json_number_value(hl) : half_life;
    c->fault_share = fs ? json_number_value(fs) : share;
    if (!c->reference) {
        rc = bad_field(err, path, "reference", "is required: the command of "
                       "the bot every new version plays before it is "
                       "ranked (e.g. a sample bot)");
        goto out;
    }
    rc = maat_referee_args_parse(json_object_get(j, "referee_args"), path,
                                 &c->referee_args, &c->n_referee_args, err);
out:
    json_decref(j);
    if (rc)
        maat_league_config_free(c);
    return rc;
}

int maat_league_config_load(maat_league_config *c, const char *dir,
                            maat_error *err)
{
    memset(c, 0, sizeof *c);
    char path[4200];
    snprintf(path, sizeof path, "%s/league.json", dir);
    json_error_t je;
    json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!j)
        return je.line > 0 ? maat_error_set(err, MAAT_EINVAL, "%s:%d: %s",
                                            path, je.line, je.text)
                           : maat_error_set(err, MAAT_EINVAL, "%s", je.text);
    return config_parse(c, j, path, err);
}

void maat_league_config_free(maat_league_config *c)
{
    free(c->reference);
    free(c->referee);
    free(c->replay);
    free(c->endpoint);
    maat_referee_args_free(&c->referee_args, &c->n_referee_args);
    memset(c, 0, sizeof *c);
}

/* ---- the directory ------------------------------------------------------ */

static const char *const folders[] = {"entries", "files", "records", "logs",
                                      "site", "site/replays", "state",
                                      "state/versions", "shards", NULL};

int maat_league_make_folders(const char *dir, maat_error *err)
{
    char path[4200];
    for (int i = 0; folders[i]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, folders[i]);
        mode_t mode = !strncmp(folders[i], "state", 5) ? 0700 : 0755;
        if (mkdir(path, mode) != 0 && errno != EEXIST)
            return maat_error_set(err, MAAT_EIO, "cannot make %s: %s", path,
                                  strerror(errno));
    }
    return MAAT_OK;
}

int maat_league_key(const char *dir, maat_seed *key, maat_error *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/state/seed.key", dir);
    return maat_seed_key_file(key, path, err);
}

int maat_league_new(const char *dir, const char *config_json,
                    maat_error *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/league.json", dir);
    if (access(path, F_OK) == 0)
        return maat_error_set(err, MAAT_EINVAL, "%s exists already: edit it, "
                              "or choose another directory", path);
    /* the config checked before anything is made: a refused `league new`
     * leaves nothing behind, and can be run again as corrected */
    maat_league_config c;
    memset(&c, 0, sizeof c);
    json_error_t je;
    json_t *j = json_loads(config_json, JSON_REJECT_DUPLICATES, &je);
    if (!j)
        return maat_error_set(err, MAAT_EINVAL, "the league's config: %s",
                              je.text);
    if (config_parse(&c, j, "league.json (from the options)", err))
        return err->code;
    maat_league_config_free(&c);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return maat_error_set(err, MAAT_EIO, "cannot make %s: %s", dir,
                              strerror(errno));
    int rc = maat_league_make_folders(dir, err);
    maat_seed key;
    if (!rc)
        rc = maat_league_key(dir, &key, err);
    if (rc)
        return rc;
    FILE *f = fopen(path, "w");
    if (!f || fprintf(f, "%s\n", config_json) < 0 || fclose(f) != 0)
        return maat_error_set(err, MAAT_EIO, "%s: cannot write: %s", path,
                              strerror(errno));
    return MAAT_OK;
}

static void hex(const uint8_t *b, int n, char *out)
{
    for (int i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

int maat_league_token(const char *dir, const char *name, char out[33],
                      maat_error *err)
{
    maat_seed key, t;
    int rc = maat_league_key(dir, &key, err);
    if (rc)
        return rc;
    char label[80];
    snprintf(label, sizeof label, "token %s", name);
    maat_seed_derive(&t, &key, label);
    hex(t.b, 16, out);
    return MAAT_OK;
}

