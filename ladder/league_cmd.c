/* league_cmd.c -- `maat-ladder league ...`: the command line of the league
 * (league.h does the work): new, add, retire, run, status. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "entries.h"
#include "league.h"
#include "league_cmd.h"
#include "opts.h"

static void usage(FILE *f)
{
    fprintf(f,
"usage: maat-ladder league new DIR --reference CMD [--game G] [--seats N]\n"
"                          [--jobs N] [--validation-matches N]\n"
"                          [--endpoint EP] [--queue]\n"
"       maat-ladder league add DIR NAME COMMAND\n"
"       maat-ladder league add DIR NAME --key KEY [--token T]\n"
"       maat-ladder league retire DIR NAME\n"
"       maat-ladder league run DIR [--jobs N] [--max-matches N] [--quiet]\n"
"       maat-ladder league status DIR\n"
"\n"
"A league is a directory that a long-running `league run` plays matches in:\n"
"entries come and go while it runs (add, retire, or drop/delete a file in\n"
"DIR/entries), each new version plays validation games against the\n"
"reference bot before it is ranked, matchmaking picks informative lineups,\n"
"and DIR/site/index.html shows the leaderboard after every game.\n"
"\n"
"  new      make DIR and its league.json (edit it for more: docs/LEAGUE.md)\n"
"           --reference CMD   the bot every new version must play cleanly\n"
"           --game G --seats N  the game (default pyramids, 2 seats)\n"
"           --jobs N          matches at once (default 1)\n"
"           --validation-matches N  (default 2)\n"
"           --endpoint EP     where remote entries connect, e.g.\n"
"                             tcp://0.0.0.0:5555\n"
"           --queue           matches go to DIR/queue for other machines\n"
"  add      a new entry, or a new version of one (NAME: letters, digits,\n"
"           '-', '_'): a COMMAND the league runs, or a remote bot's CURVE\n"
"           public --key (then it prints what the entrant needs)\n"
"  retire   remove an entry (its running matches finish)\n"
"  run      play until SIGINT/SIGTERM (then wait for running matches; a\n"
"           second signal stops them) or --max-matches ranked matches\n"
"  status   the entries and standings as the page last showed them\n"
"\n"
"exit: 0 done, 1 a run failed, 2 usage or config error, 4 stopped with\n"
"matches cut short\n"
"\n"
"example: maat-ladder league new my-league --reference "
"build/sample-bots/maat-random\n"
"         maat-ladder league add my-league greedy "
"build/sample-bots/maat-greedy\n"
"         maat-ladder league run my-league --jobs 2\n");
}

static int fail(const maat_error *err, int code)
{
    fprintf(stderr, "maat-ladder league: %s\n", err->msg);
    return code;
}

static int cmd_new(int argc, char **argv)
{
    const char *reference = NULL, *game = maat_rules_default()->name, *endpoint = NULL;
    int seats = 2, jobs = 1, validation = 2, queue = 0, n;
    const char *pos[1];
    maat_opt opts[] = {
        {"--reference", O_STR, &reference, 0, 0, "the reference bot's command",
         NULL},
        {"--game", O_STR, &game, 0, 0, "a game name", NULL},
        {"--seats", O_INT, &seats, 2, MAAT_MAX_SEATS, "seats per game", NULL},
        {"--jobs", O_INT, &jobs, 1, 256, "matches at once", NULL},
        {"--validation-matches", O_INT, &validation, 1, 1000, "matches a new "
         "version plays before it is ranked", NULL},
        {"--endpoint", O_STR, &endpoint, 0, 0, "where remote entries connect",
         NULL},
        {"--queue", O_FLAG, &queue, 1, 0, NULL, NULL},
        {0}};
    int rc = maat_opts_parse("league new", opts, argc, argv, pos, 1, &n,
                             usage, 2);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (!n || !reference) {
        fprintf(stderr, "maat-ladder league new: %s (try maat-ladder league "
                "--help)\n", !n ? "name the league's directory"
                                : "--reference CMD is required: the bot each "
                                  "new version plays first");
        return 2;
    }
    json_t *j = json_pack("{s:s, s:i, s:b, s:i, s:s, s:i}", "game", game,
                          "seats", seats, "duplicate", 1, "jobs", jobs,
                          "reference", reference, "validation_matches",
                          validation);
    if (endpoint)
        json_object_set_new(j, "remote", json_pack("{s:s}", "endpoint",
                                                   endpoint));
    if (queue)
        json_object_set_new(j, "queue", json_true());
    char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(j);
    maat_error err = {0};
    rc = text ? maat_league_new(pos[0], text, &err)
              : maat_error_set(&err, MAAT_ENOMEM, "out of memory");
    free(text);
    if (rc)
        return fail(&err, 2);
    printf("made %s: its config is %s/league.json; put each entry's files "
           "in %s/files/NAME/\n(its bot alone sees them), add entries with\n"
           "  maat-ladder league add %s NAME COMMAND\nand start it with\n"
           "  maat-ladder league run %s\n", pos[0], pos[0], pos[0], pos[0],
           pos[0]);
    return 0;
}

static int cmd_add(int argc, char **argv)
{
    const char *key = NULL, *token = NULL, *pos[3];
    int n;
    maat_opt opts[] = {
        {"--key", O_STR, &key, 0, 0, "a remote bot's CURVE public key", NULL},
        {"--token", O_STR, &token, 0, 0, "a remote bot's token", NULL},
        {0}};
    int rc = maat_opts_parse("league add", opts, argc, argv, pos, 3, &n,
                             usage, 2);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (n < 2 || (n == 3) == (key != NULL)) {
        fprintf(stderr, "maat-ladder league add: name the league's "
                "directory, the entry's NAME and either its COMMAND or "
                "--key KEY (try maat-ladder league --help)\n");
        return 2;
    }
    const char *dir = pos[0], *name = pos[1];
    if (!maat_entry_name_ok(name)) {
        fprintf(stderr, "maat-ladder league add: NAME '%s': 1 to 40 letters, "
                "digits, '-' or '_'\n", name);
        return 2;
    }
    json_t *j = key ? json_pack("{s:s}", "key", key)
                    : json_pack("{s:s}", "command", pos[2]);
    if (token)
        json_object_set_new(j, "token", json_string(token));
    char *text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(j);
    maat_version v;
    maat_error err = {0};
    if (!text || maat_entry_parse(text, &v, &err)) {
        free(text);
        fprintf(stderr, "maat-ladder league add: %s\n", err.msg);
        return 2;
    }
    maat_version_free(&v);
    char config[4200];
    snprintf(config, sizeof config, "%s/league.json", dir);
    maat_league_config c;
    if (maat_league_config_load(&c, dir, &err)) {
        free(text);
        return fail(&err, 2);
    }
    /* The same content again is no new version, and nothing would happen:
     * say so, instead of promising a validation (review of 2026-11-28) */
    char path[4200];
    snprintf(path, sizeof path, "%s/entries/%s.json", dir, name);
    json_t *old = json_load_file(path, 0, NULL);
    char *old_text = old ? json_dumps(old, JSON_COMPACT | JSON_SORT_KEYS)
                         : NULL;
    json_decref(old);
    int same = !key && old_text && !strcmp(old_text, text);
    free(old_text);
    if (same) {
        free(text);
        maat_league_config_free(&c);
        printf("unchanged: %s already holds this entry, so there is no new "
               "version to validate (a version is the entry's content; "
               "files under %s/files/%s/ are not part of it: change the "
               "command to make one)\n", path, dir, name);
        return 0;
    }
    rc = maat_entry_write(dir, name, text, &err);
    free(text);
    if (rc) {
        maat_league_config_free(&c);
        return fail(&err, 1);
    }
    printf("added %s/entries/%s.json: a running league validates it now\n",
           dir, name);
    if (key) {
        char derived[33];
        if (!token && maat_league_token(dir, name, derived, &err))
            return maat_league_config_free(&c), fail(&err, 1);
        printf("\nfor the entrant (docs/REMOTE.md, docs/LEAGUE.md):\n"
               "  MAAT_ENDPOINT=%s (with this machine's address)\n"
               "  MAAT_TOKEN=%s\n"
               "  MAAT_CURVE_SERVERKEY=the 'public' line of "
               "%s/state/referee.key (made when the league starts)\n",
               c.endpoint ? c.endpoint : "(none yet: add \"remote\": "
               "{\"endpoint\": ...} to league.json)",
               token ? token : derived, dir);
    }
    maat_league_config_free(&c);
    return 0;
}

static int cmd_retire(int argc, char **argv)
{
    const char *pos[2];
    int n;
    maat_opt opts[] = {{0}};
    int rc = maat_opts_parse("league retire", opts, argc, argv, pos, 2, &n,
                             usage, 2);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (n < 2 || !maat_entry_name_ok(pos[1])) {
        fprintf(stderr, "maat-ladder league retire: name the league's "
                "directory and an entry (try maat-ladder league --help)\n");
        return 2;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/entries/%s.json", pos[0], pos[1]);
    if (unlink(path) != 0) {
        int e = errno;
        if (e == ENOENT) /* never added, or retired already */
            fprintf(stderr, "maat-ladder league retire: %s has no entry "
                    "'%s' now (no %s: never added, or retired already; "
                    "`league status %s` lists them)\n", pos[0], pos[1],
                    path, pos[0]);
        else
            fprintf(stderr, "maat-ladder league retire: %s: %s\n", path,
                    strerror(e));
        return e == ENOENT ? 2 : 1;
    }
    printf("retired %s: its running matches finish, its games stay in the "
           "ladder\n", pos[1]);
    return 0;
}

static int cmd_run(int argc, char **argv)
{
    maat_league_options o = {0, 0, 0};
    const char *pos[1];
    int n;
    maat_opt opts[] = {
        {"--jobs", O_INT, &o.jobs, 1, 256, "matches at once", NULL},
        {"--max-matches", O_INT, &o.max_matches, 1, 100000000, "ranked "
         "matches to start before stopping", NULL},
        {"--quiet", O_FLAG, &o.quiet, 1, 0, NULL, NULL},
        {0}};
    int rc = maat_opts_parse("league run", opts, argc, argv, pos, 1, &n,
                             usage, 2);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (!n) {
        fprintf(stderr, "maat-ladder league run: name the league's directory "
                "(try maat-ladder league --help)\n");
        return 2;
    }
    maat_error err = {0};
    rc = maat_league_run(pos[0], &o, &err);
    if (rc == MAAT_OK)
        return 0;
    return fail(&err, rc == MAAT_ESTATE ? 4 : rc == MAAT_EINVAL ? 2 : 1);
}

/* What the page last showed: DIR/site/leaderboard.json, as text. */
static int cmd_status(int argc, char **argv)
{
    const char *pos[1];
    int n;
    maat_opt opts[] = {{0}};
    int rc = maat_opts_parse("league status", opts, argc, argv, pos, 1, &n,
                             usage, 2);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (!n) {
        fprintf(stderr, "maat-ladder league status: name the league's "
                "directory\n");
        return 2;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/site/leaderboard.json", pos[0]);
    json_error_t je;
    json_t *d = json_load_file(path, 0, &je);
    if (!d) {
        fprintf(stderr, "maat-ladder league status: %s: %s (has the league "
                "run yet?)\n", path, je.text);
        return 1;
    }
    size_t i;
    json_t *v;
    printf("%s: %lld ranked games\n\nentries:\n",
           json_string_value(json_object_get(d, "title")),
           (long long)json_integer_value(json_object_get(d, "games")));
    json_array_foreach(json_object_get(d, "entries"), i, v) {
        const char *name = json_string_value(json_object_get(v, "name"));
        const char *bot = json_string_value(json_object_get(v, "bot"));
        const char *detail = json_string_value(json_object_get(v, "detail"));
        const char *state = json_string_value(json_object_get(v, "state"));
        if (detail)
            printf("  %-24s %-11s %s", bot, state, detail);
        else
            printf("  %-24s %s", bot, state);
        if (json_is_true(json_object_get(v, "remote"))) {
            char token[33];
            maat_error err = {0};
            char file[4400];
            snprintf(file, sizeof file, "%s/entries/%s.json", pos[0], name);
            json_t *e = json_load_file(file, 0, NULL);
            const char *t = json_string_value(json_object_get(e, "token"));
            if (!t && maat_league_token(pos[0], name, token, &err) == 0)
                t = token;
            printf("  token %s", t ? t : "?");
            json_decref(e);
        }
        printf("\n");
    }
    printf("\nstandings:\n");
    json_array_foreach(json_object_get(d, "standings"), i, v)
        printf("  %2zu. %-24s %-10s rating %7.2f  games %lld  faults %lld\n",
               i + 1, json_string_value(json_object_get(v, "bot")),
               json_string_value(json_object_get(v, "state")),
               json_number_value(json_object_get(v, "rating")),
               (long long)json_integer_value(json_object_get(v, "games")),
               (long long)json_integer_value(json_object_get(v,
                                                             "fault_total")));
    json_decref(d);
    return 0;
}

int maat_league_cmd(int argc, char **argv)
{
    const char *sub = argc ? argv[0] : NULL;
    if (!sub || !strcmp(sub, "--help") || !strcmp(sub, "-h") ||
        !strcmp(sub, "help")) {
        usage(sub ? stdout : stderr);
        return sub ? 0 : 2;
    }
    if (!strcmp(sub, "--version")) {
        maat_cli_version(stdout, "maat-ladder");
        return 0;
    }
    if (!strcmp(sub, "new"))
        return cmd_new(argc - 1, argv + 1);
    if (!strcmp(sub, "add"))
        return cmd_add(argc - 1, argv + 1);
    if (!strcmp(sub, "retire"))
        return cmd_retire(argc - 1, argv + 1);
    if (!strcmp(sub, "run"))
        return cmd_run(argc - 1, argv + 1);
    if (!strcmp(sub, "status"))
        return cmd_status(argc - 1, argv + 1);
    fprintf(stderr, "maat-ladder league: unknown command '%s' (new, add, "
            "retire, run, status; try maat-ladder league --help)\n", sub);
    return 2;
}
