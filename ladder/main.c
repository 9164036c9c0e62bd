/* main.c -- maat-ladder: standings, tournaments, CI verdicts, distributed
 * runs.  Each subcommand is a small function over the modules in this
 * directory; its options are a table read by one parser (parse_opts), so
 * every subcommand takes --help, --version and --opt=value alike and
 * names the option and what it allows in every error.  Exit codes: 0 ok,
 * 1 a run failed, 2 usage or config error, 3 a bot is broken, 4
 * interrupted; compare: 0 not worse, 1 worse, 2 inconclusive, 3 error. */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "compare.h"
#include "faults.h"
#include "league_cmd.h"
#include "ladder_file.h"
#include "opts.h"
#include "record.h"
#include "standings.h"
#include "tally.h"
#include "tournament.h"

/* ---- help ---------------------------------------------------------------- */

static void usage_main(FILE *f)
{
    fprintf(f,
"usage: maat-ladder COMMAND [options]     (maat-ladder COMMAND --help)\n"
"\n"
"  standings FILE...   ratings, games, wins, faults from ladder files\n"
"  run CONFIG          play a tournament (JSON config); resumable\n"
"  plan CONFIG         one shell command per unplayed match (GNU parallel,\n"
"                      Slurm)\n"
"  merge OUT SHARD...  append the shards' games that OUT lacks\n"
"  compare             CI verdict: is a candidate bot worse than a baseline?\n"
"  demo                a short tournament of the sample bots\n"
"  league ...          a league that never stops: entries come and go, a\n"
"                      leaderboard page (maat-ladder league --help)\n"
"\n"
"  --help, --version\n"
"\n"
"Games: ");
    maat_cli_games(f);
    fprintf(f, "\nBots are commands: plain words with a path first (e.g.\n"
"./my-bot --depth 3) are exec'd directly, anything else runs via /bin/sh -c.\n"
"docs/LADDER.md and docs/CI.md describe everything.\n");
}

static void usage_standings(FILE *f)
{
    fprintf(f,
"usage: maat-ladder standings FILE... [--game G] [--format table|json|csv]\n"
"\n"
"Ratings (OpenSkill Plackett-Luce, shown as mu - 3 sigma), games, wins,\n"
"average rank and score, Elo for 2-player games and faults by kind, per bot\n"
"and game, from ladder files (several files are read as one).\n"
"\n"
"  --game G        only games of G (");
    maat_cli_games(f);
    fprintf(f, ")\n"
"  --format F      table (default), json or csv\n"
"\n"
"example: maat-ladder standings ladder.jsonl --format csv > standings.csv\n");
}

static void usage_run(FILE *f, int plan)
{
    if (plan)
        fprintf(f,
"usage: maat-ladder plan CONFIG --shard-dir DIR\n"
"\n"
"Prints one shell command per match not yet in the config's ladder file;\n"
"line n writes DIR/match-n.jsonl.  Run them anywhere (GNU parallel, a Slurm\n"
"job array), then `maat-ladder merge LADDER DIR/*.jsonl`.  Not for the\n"
"ladder format, which picks opponents from results as they come.\n"
"\n"
"example: maat-ladder plan tournament.json --shard-dir shards | parallel -j 8\n");
    else
        fprintf(f,
"usage: maat-ladder run CONFIG [--jobs N] [--pin | --no-pin] [--quiet]\n"
"                  [--keep all|failed|none] [--report-every N]\n"
"                  [--fault-share S]\n"
"\n"
"Plays the tournament CONFIG describes (JSON, docs/LADDER.md), each match a\n"
"maat-referee appending to the ladder file; matches already there are not\n"
"played again.  Prints the standings at the end.\n"
"\n"
"  --jobs N          referees at once, 1..256 (the config's \"jobs\", else 1)\n"
"  --pin, --no-pin   one CPU per running match, or not (the config's \"pin\")\n"
"  --keep K          which matches keep every game's record and bot logs in\n"
"                    LADDER.games/ (without .jsonl): all (default; the\n"
"                    config's \"keep\"), failed (those with a fault), none\n"
"  --quiet           no progress, no standings\n"
"  --report-every N  when stderr is not a terminal, a progress line every N\n"
"                    matches (default: about 20 lines a run)\n"
"  --fault-share S   a bot with faults in more than this share of its games\n"
"                    (and in 3 or more) or that never says hello is broken:\n"
"                    exit 3 (default %g)\n"
"\n"
"Games: ", MAAT_FAULT_SHARE);
    if (!plan) {
        maat_cli_games(f);
        fprintf(f, "\nexit: 0 played, 1 some matches failed, 2 usage or "
                   "config error or another run of\nthe tournament holds its "
                   "ladder file, 3 a bot is broken, 4 interrupted\n\n"
                   "example: maat-ladder run tournament.json --jobs 2\n");
    }
}

static void usage_run1(FILE *f)
{
    usage_run(f, 0);
}

static void usage_plan(FILE *f)
{
    usage_run(f, 1);
}

static void usage_merge(FILE *f)
{
    fprintf(f,
"usage: maat-ladder merge OUT SHARD...\n"
"\n"
"Appends to the ladder file OUT the games of the SHARD files it lacks (by\n"
"game id), so merging twice adds nothing.\n"
"\n"
"example: maat-ladder merge ladder.jsonl shards/*.jsonl\n");
}

static void usage_compare(FILE *f)
{
    fprintf(f,
"usage: maat-ladder compare --candidate CMD --baseline CMD [options]\n"
"\n"
"Plays seed-paired duplicate blocks (one deal from every seat) until a\n"
"GSPRT decides whether the candidate is worse than the baseline.\n"
"\n"
"  --candidate CMD     the bot under test\n"
"  --baseline CMD      the bot it must not be worse than\n"
"  --field CMD         opponents for both (repeat; up to 16); without a\n"
"                      field the two play each other\n"
"  --game G            %s\n"
"  --seats N           seats per game (default 2)\n"
"  --elo0 E --elo1 E   H0: candidate E0 Elo (head to head) vs baseline,\n"
"                      i.e. worse; H1: E1, not worse (default %g, %g)\n"
"  --alpha A --beta B  error rates, each in (0, 0.5) (default %g, %g)\n"
"  --max-blocks N      give up (exit 2) after N blocks (default %d)\n"
"  --jobs N            referees at once, 1..256 (default 2)\n"
"  --seed S            a public key: block b plays the deal derive(S,\n"
"                      'block b') (docs/RNG.md), the same every run; default:\n"
"                      a secret key from the OS, new every run\n"
"  --referee-arg ARG   passed to every referee (repeat), e.g.\n"
"                      --referee-arg=--time --referee-arg=200\n"
"  --ladder FILE       keep the games in FILE (default: a temporary file)\n"
"  --log-dir DIR       keep every bot's output in DIR/MATCH-GAME-BOT.log\n"
"                      (default: a temporary directory, kept on an error)\n"
"  --fault-share S     faults in more than this share of a side's games (and\n"
"                      in 3 or more), or a bot that never says hello: exit 3\n"
"                      (default %g)\n"
"  --report-every N    a progress line every N blocks (default 10)\n"
"  --pin               one CPU per running referee and its bots\n"
"  --quiet             only the summary\n"
"\n"
"Games: ", "game to play (default pyramids)", MAAT_COMPARE_ELO0,
            MAAT_COMPARE_ELO1, MAAT_COMPARE_ALPHA, MAAT_COMPARE_BETA,
            MAAT_COMPARE_MAX_BLOCKS, MAAT_FAULT_SHARE);
    maat_cli_games(f);
    fprintf(f, "\nexit: 0 not worse, 1 worse, 2 inconclusive at --max-blocks, "
               "3 error (bad options,\na broken bot, a failed referee, "
               "interrupted); a referee's exit 5 (the machine\nfailed: a "
               "sandbox could not be made) plays its run again, 3 tries in "
               "all\n\n"
"example: maat-ladder compare --candidate ./new/my-bot --baseline ./old/my-bot\n");
}

static void usage_demo(FILE *f)
{
    fprintf(f,
"usage: maat-ladder demo [--ladder FILE] [--jobs N] [--pin]\n"
"\n"
"A short Pyramids tournament of the sample bots (random twice, greedy,\n"
"mcts), round robin with duplicate seats; prints the standings.\n"
"\n"
"  --ladder FILE   the ladder file (default maat-demo-ladder.jsonl)\n"
"  --jobs N        referees at once, 1..256 (default 2)\n"
"  --pin           one CPU per running match\n"
"\n"
"example: maat-ladder demo --jobs 2\n");
}

#define JOBS_WHAT "referees running at once"

/* ---- standings ------------------------------------------------------------- */

static int show_standings(const char **files, int n, const char *game,
                          const char *format)
{
    maat_tally t;
    maat_error err = {0};
    maat_tally_init(&t, game);
    t.recent_cap = 0;
    t.history_points = 4;
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        maat_ladder_cursor c = {.path = files[i]};
        if (access(files[i], R_OK) != 0)
            rc = maat_error_set(&err, MAAT_EIO, "%s: %s", files[i],
                                strerror(errno));
        else
            rc = maat_tally_read(&t, &c, 0, stderr, &err);
    }
    if (rc) {
        fprintf(stderr, "maat-ladder: %s\n", err.msg);
        maat_tally_free(&t);
        return 2;
    }
    if (t.bad_lines)
        fprintf(stderr, "maat-ladder: %zu bad line%s skipped\n", t.bad_lines,
                t.bad_lines == 1 ? "" : "s");
    maat_tally_fit_elo(&t);
    maat_standings_print(&t.s, format, stdout);
    maat_tally_free(&t);
    return 0;
}

static int cmd_standings(int argc, char **argv)
{
    const char *game = NULL, *format = "table", *files[256];
    maat_opt opts[] = {
        {"--game", O_STR, &game, 0, 0, "a game name", NULL},
        {"--format", O_STR, &format, 0, 0, "table, json or csv", NULL},
        {0}};
    int n;
    int rc = maat_opts_parse("standings", opts, argc, argv, files, 256, &n,
                        usage_standings, 2);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (strcmp(format, "table") && strcmp(format, "json") &&
        strcmp(format, "csv")) {
        fprintf(stderr, "maat-ladder standings: --format is table, json or "
                        "csv, not '%s'\n", format);
        return 2;
    }
    if (!n) {
        fprintf(stderr, "maat-ladder standings: name a ladder file (try "
                        "maat-ladder standings --help)\n");
        return 2;
    }
    return show_standings(files, n, game, format);
}

/* ---- run, plan, demo ------------------------------------------------------- */

static int finish_run(int rc, const maat_error *err)
{
    if (rc == MAAT_OK)
        return 0;
    fprintf(stderr, "maat-ladder: %s\n", err->msg);
    return rc == MAAT_ESTATE    ? 4
           : rc == MAAT_EINVAL  ? 2
           : rc == MAAT_EBROKEN ? 3
                                : 1;
}

static int cmd_run(int argc, char **argv, int plan)
{
    const char *config = NULL, *shard_dir = NULL;
    int jobs = 0, pin = -1; /* -1: as the config says */
    const char *keep = NULL;
    maat_run_options ro = {0, 0, MAAT_FAULT_SHARE};
    maat_opt run_opts[] = {
        {"--jobs", O_INT, &jobs, 1, 256, JOBS_WHAT, NULL},
        {"--pin", O_FLAG, &pin, 1, 0, NULL, NULL},
        {"--no-pin", O_FLAG, &pin, 0, 0, NULL, NULL},
        {"--keep", O_STR, &keep, 0, 0, "all, failed or none", NULL},
        {"--quiet", O_FLAG, &ro.quiet, 1, 0, NULL, NULL},
        {"--report-every", O_INT, &ro.report_every, 1, 10000000,
         "matches between progress lines", NULL},
        {"--fault-share", O_REAL, &ro.fault_share, 0, 1,
         "the share of a bot's games with faults that makes it broken", NULL},
        {0}};
    maat_opt plan_opts[] = {
        {"--shard-dir", O_STR, &shard_dir, 0, 0, "the directory of the shard "
         "files", NULL},
        {0}};
    const char *pos[1];
    int n;
    int rc = maat_opts_parse(plan ? "plan" : "run", plan ? plan_opts : run_opts,
                        argc, argv, pos, 1, &n, plan ? usage_plan : usage_run1,
                        2);
    if (rc)
        return rc < 0 ? 0 : rc;
    config = n ? pos[0] : NULL;
    if (!config || (plan && !shard_dir)) {
        fprintf(stderr, "maat-ladder %s: %s (try maat-ladder %s --help)\n",
                plan ? "plan" : "run",
                !config ? "name the tournament config file"
                        : "--shard-dir DIR is required: where each match "
                          "writes its shard",
                plan ? "plan" : "run");
        return 2;
    }
    maat_tournament t;
    maat_error err = {0};
    if (maat_tournament_load(&t, config, &err)) {
        fprintf(stderr, "maat-ladder: %s\n", err.msg);
        return 2;
    }
    if (jobs)
        t.jobs = jobs;
    if (pin >= 0)
        t.pin = pin;
    if (keep && (t.keep = maat_keep_parse(keep)) < 0) {
        fprintf(stderr, "maat-ladder run: --keep %s: all, failed or none "
                        "(which matches keep their records and bot logs)\n",
                keep);
        maat_tournament_free(&t);
        return 2;
    }
    if (!t.referee)
        t.referee = maat_sibling("referee", "maat-referee");
    if (plan) {
        rc = finish_run(maat_tournament_plan(&t, shard_dir, stdout, &err),
                        &err);
    } else {
        rc = finish_run(maat_tournament_run(&t, &ro, &err), &err);
        if ((rc == 0 || rc == 3) && !ro.quiet) {
            const char *files[] = {t.ladder};
            show_standings(files, 1, t.game, "table");
        }
    }
    maat_tournament_free(&t);
    return rc;
}

/* The built-in default: the sample bots in a short duplicate tournament. */
static int cmd_demo(int argc, char **argv)
{
    const char *ladder = "maat-demo-ladder.jsonl";
    int jobs = 2, pin = 0, n;
    maat_opt opts[] = {
        {"--ladder", O_STR, &ladder, 0, 0, "the ladder file", NULL},
        {"--jobs", O_INT, &jobs, 1, 256, JOBS_WHAT, NULL},
        {"--pin", O_FLAG, &pin, 1, 0, NULL, NULL},
        {0}};
    int rc = maat_opts_parse("demo", opts, argc, argv, NULL, 0, &n, usage_demo, 2);
    if (rc)
        return rc < 0 ? 0 : rc;
    char *random = maat_sibling("sample-bots", "maat-random");
    char *greedy = maat_sibling("sample-bots", "maat-greedy");
    char *mcts = maat_sibling("sample-bots", "maat-mcts");
    char mcts_cmd[PATH_MAX + 32];
    snprintf(mcts_cmd, sizeof mcts_cmd, "%s --budget-ms 20", mcts);
    maat_tournament t;
    memset(&t, 0, sizeof t);
    snprintf(t.name, sizeof t.name, "demo");
    snprintf(t.game, sizeof t.game, "%s", maat_rules_default()->name);
    t.seats = 2;
    t.matches = 24;
    t.format = TOUR_ROUND_ROBIN;
    t.duplicate = 1;
    t.jobs = jobs;
    t.pin = pin;
    t.hero = -1;
    t.ladder = (char *)ladder;
    if (asprintf(&t.key_file, "%s.demo.key", ladder) < 0)
        t.key_file = NULL;
    t.games_dir = maat_tournament_games_dir(ladder);
    t.referee = maat_sibling("referee", "maat-referee");
    maat_tour_bot bots[4] = {{"random", random, NULL, NULL},
                             {"random2", random, NULL, NULL},
                             {"greedy", greedy, NULL, NULL},
                             {"mcts", mcts_cmd, NULL, NULL}};
    t.bots = bots;
    t.n_bots = 4;
    printf("maat-ladder demo: %d Pyramids matches (round robin of random, "
           "random2, greedy, mcts;\n2 seats, duplicate: each deal played "
           "from both seats), %d jobs%s, ladder file %s\n\n", t.matches,
           t.jobs, t.pin ? " (one CPU each)" : "", ladder);
    fflush(stdout);
    maat_error err = {0};
    maat_run_options ro = {0, 0, MAAT_FAULT_SHARE};
    rc = finish_run(maat_tournament_run(&t, &ro, &err), &err);
    if (rc == 0) {
        printf("\n");
        fflush(stdout);
        const char *files[] = {ladder};
        rc = show_standings(files, 1, t.game, "table");
    }
    if (rc == 0)
        printf("\nevery game's record and bot logs: %s/ (see them all: "
               "maat-replay --index %s -o index.html)\n", t.games_dir,
               ladder);
    free(t.referee);
    free(t.key_file);
    free(t.games_dir);
    free(random);
    free(greedy);
    free(mcts);
    return rc;
}

/* ---- merge ------------------------------------------------------------------ */

static int cmd_merge(int argc, char **argv)
{
    const char *files[4096];
    maat_opt opts[] = {{0}};
    int n;
    int rc = maat_opts_parse("merge", opts, argc, argv, files, 4096, &n,
                        usage_merge, 2);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (n < 2) {
        fprintf(stderr, "maat-ladder merge: name the ladder file OUT and at "
                        "least one SHARD (try maat-ladder merge --help)\n");
        return 2;
    }
    maat_ladder have = {0};
    maat_error err = {0};
    if (maat_ladder_read(&have, files[0], 1, stderr, &err)) {
        fprintf(stderr, "maat-ladder: %s\n", err.msg);
        return 2;
    }
    int added = 0;
    for (int i = 1; i < n && !rc; i++) {
        maat_ladder shard = {0};
        if (maat_ladder_read(&shard, files[i], 0, stderr, &err)) {
            fprintf(stderr, "maat-ladder: %s\n", err.msg);
            rc = 2;
            break;
        }
        for (size_t k = 0; k < shard.count && !rc; k++) {
            const maat_ladder_game *g = &shard.games[k];
            if (maat_ladder_has(&have, g->id))
                continue;
            char *line = json_dumps(g->line, JSON_COMPACT | JSON_PRESERVE_ORDER);
            if (!line || maat_jsonl_append(files[0], line, strlen(line), &err)) {
                fprintf(stderr, "maat-ladder: %s\n", err.msg);
                rc = 1;
            } else {
                added++;
            }
            free(line);
        }
        maat_ladder_free(&shard);
        /* re-read so ids repeated across shards are added once */
        maat_ladder_free(&have);
        maat_ladder_read(&have, files[0], 1, NULL, &err);
    }
    fprintf(stderr, "maat-ladder: merged %d new game%s into %s (%zu in all)\n",
            added, added == 1 ? "" : "s", files[0], have.count);
    maat_ladder_free(&have);
    return rc;
}

/* ---- compare ----------------------------------------------------------------- */

/* The cross-checks of compare's options, each naming the option. */
static int compare_check(const maat_compare *c)
{
    const char *p = "maat-ladder compare";
    if (!c->candidate || !c->baseline) {
        fprintf(stderr, "%s: %s CMD is required: the command of the %s (try "
                "%s --help)\n", p, !c->candidate ? "--candidate" : "--baseline",
                !c->candidate ? "bot under test" : "bot to compare it with", p);
        return 3;
    }
    const maat_rules *r = maat_rules_find(c->game);
    if (!r) {
        fprintf(stderr, "%s: --game: no game named '%s' (games: ", p, c->game);
        maat_cli_games(stderr);
        fprintf(stderr, ")\n");
        return 3;
    }
    if (c->seats < r->min_seats || c->seats > r->max_seats) {
        fprintf(stderr, "%s: --seats: %s is played by %d to %d seats, not "
                "%d\n", p, r->name, r->min_seats, r->max_seats, c->seats);
        return 3;
    }
    if (c->elo0 >= c->elo1) {
        fprintf(stderr, "%s: --elo0 (%g) must be below --elo1 (%g): H0 says "
                "the candidate is elo0 Elo worse, H1 that it is elo1\n", p,
                c->elo0, c->elo1);
        return 3;
    }
    return 0;
}

/* A tag unique to this run, so old games in --ladder never count. */
static void unique_tag(char *tag, size_t len)
{
    FILE *u = fopen("/dev/urandom", "rb");
    unsigned char raw[6] = {0};
    if (!u || fread(raw, 1, sizeof raw, u) != sizeof raw)
        snprintf(tag, len, "%lx", (long)getpid());
    else
        snprintf(tag, len, "%02x%02x%02x%02x%02x%02x", raw[0], raw[1], raw[2],
                 raw[3], raw[4], raw[5]);
    if (u)
        fclose(u);
}

/* rm -r of a directory tree we made: the temporary ladder and the logs. */
static void remove_tree(const char *dir)
{
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "maat-ladder: could not remove %s\n", dir);
}

static int cmd_compare(int argc, char **argv)
{
    maat_compare c;
    maat_compare_defaults(&c);
    const char *ladder = NULL, *log_dir = NULL, *field[16], *extra[64];
    maat_opt opts[] = {
        {"--candidate", O_STR, &c.candidate, 0, 0, "the command of the bot "
         "under test", NULL},
        {"--baseline", O_STR, &c.baseline, 0, 0, "the command of the bot to "
         "compare it with", NULL},
        {"--field", O_LIST, field, 0, 16, "an opponent's command",
         &c.n_field},
        {"--game", O_STR, &c.game, 0, 0, "a game name", NULL},
        {"--seats", O_INT, &c.seats, 2, MAAT_MAX_SEATS, "seats per game",
         NULL},
        {"--elo0", O_REAL, &c.elo0, -2000, 2000, "Elo difference of H0, "
         "'worse'", NULL},
        {"--elo1", O_REAL, &c.elo1, -2000, 2000, "Elo difference of H1, "
         "'not worse'", NULL},
        {"--alpha", O_REAL, &c.alpha, 1e-9, 0.4999, "the chance of calling a "
         "bot that is not worse WORSE", NULL},
        {"--beta", O_REAL, &c.beta, 1e-9, 0.4999, "the chance of calling a "
         "worse bot NOT WORSE", NULL},
        {"--max-blocks", O_INT, &c.max_blocks, 1, 100000000, "blocks before "
         "giving up", NULL},
        {"--jobs", O_INT, &c.jobs, 1, 256, JOBS_WHAT, NULL},
        {"--seed", O_STR, &c.seed, 0, 0, "a seed: 0 to 2^64-1 or 64 hex "
         "digits", NULL},
        {"--referee-arg", O_LIST, extra, 0, 64, "one referee argument",
         &c.n_referee_args},
        {"--ladder", O_STR, &ladder, 0, 0, "a ladder file", NULL},
        {"--log-dir", O_STR, &log_dir, 0, 0, "a directory for bot logs",
         NULL},
        {"--fault-share", O_REAL, &c.fault_share, 0, 1, "the share of a "
         "side's games with faults that makes it broken", NULL},
        {"--report-every", O_INT, &c.report_every, 1, 100000000, "blocks "
         "between progress lines", NULL},
        {"--pin", O_FLAG, &c.pin, 1, 0, NULL, NULL},
        {"--quiet", O_FLAG, &c.quiet, 1, 0, NULL, NULL},
        {0}};
    int n;
    int rc = maat_opts_parse("compare", opts, argc, argv, NULL, 0, &n,
                        usage_compare, 3);
    if (rc)
        return rc < 0 ? 0 : rc;
    if ((rc = compare_check(&c)))
        return rc;
    maat_seed key;
    maat_error serr = {0};
    if (c.seed && maat_seed_parse(&key, c.seed, &serr) != MAAT_OK) {
        fprintf(stderr, "maat-ladder compare: --seed: %s\n", serr.msg);
        return 3;
    }
    for (int i = 0; i < c.n_field; i++)
        c.field[i] = field[i];
    c.referee_args = (char **)extra;
    unique_tag(c.tag, sizeof c.tag);
    /* the games and logs go to a private directory unless named, and so
     * does the secret key when there is no --seed */
    char tmp[] = "/tmp/maat-compare-XXXXXX", path[64], logs[64], keyf[64];
    int made_tmp = !ladder || !log_dir || !c.seed;
    int ladder_given = ladder != NULL;
    int worth_keeping = !ladder || !log_dir; /* games or logs in it */
    if (made_tmp && !mkdtemp(tmp)) {
        fprintf(stderr, "maat-ladder compare: cannot make a temporary "
                "directory under /tmp: %s\n", strerror(errno));
        return 3;
    }
    if (!ladder) {
        snprintf(path, sizeof path, "%s/ladder.jsonl", tmp);
        ladder = path;
    }
    if (!log_dir) {
        snprintf(logs, sizeof logs, "%s/logs", tmp);
        log_dir = logs;
    }
    if (!c.seed) {
        snprintf(keyf, sizeof keyf, "%s/seed.key", tmp);
        c.key_file = keyf;
        if (maat_seed_key_file(&key, keyf, &serr) != MAAT_OK) {
            fprintf(stderr, "maat-ladder compare: %s\n", serr.msg);
            remove_tree(tmp);
            return 3;
        }
    }
    if (mkdir(log_dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "maat-ladder compare: --log-dir %s: %s\n", log_dir,
                strerror(errno));
        if (made_tmp)
            remove_tree(tmp);
        return 3;
    }
    c.ladder = ladder;
    c.log_dir = log_dir;
    c.referee = maat_sibling("referee", "maat-referee");
    maat_error err = {0};
    rc = maat_compare_run(&c, stdout, &err);
    if (rc > 2) {
        fprintf(stderr, "maat-ladder compare: %s\n", err.msg);
        rc = 3;
    }
    if (made_tmp && rc == 3 && worth_keeping)
        fprintf(stderr, "maat-ladder compare: kept %s for you to look at "
                "(%s)\n", tmp, !ladder_given ? "the ladder lines and every "
                "bot's output" : "every bot's output");
    else if (made_tmp)
        remove_tree(tmp);
    free((char *)c.referee);
    return rc;
}

/* ---- main -------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage_main(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage_main(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        maat_cli_version(stdout, "maat-ladder");
        return 0;
    }
    if (!strcmp(cmd, "standings"))
        return cmd_standings(argc - 2, argv + 2);
    if (!strcmp(cmd, "run"))
        return cmd_run(argc - 2, argv + 2, 0);
    if (!strcmp(cmd, "plan"))
        return cmd_run(argc - 2, argv + 2, 1);
    if (!strcmp(cmd, "merge"))
        return cmd_merge(argc - 2, argv + 2);
    if (!strcmp(cmd, "compare"))
        return cmd_compare(argc - 2, argv + 2);
    if (!strcmp(cmd, "demo"))
        return cmd_demo(argc - 2, argv + 2);
    if (!strcmp(cmd, "league"))
        return maat_league_cmd(argc - 2, argv + 2);
    fprintf(stderr, "maat-ladder: unknown command '%s' (commands: standings, "
            "run, plan, merge, compare, demo, league; try maat-ladder "
            "--help)\n", cmd);
    return 2;
}
