/* main.c -- maat-ladder: standings, tournaments, CI verdicts, distributed
 * runs.  Each subcommand is a small function over the modules in this
 * directory.  Exit codes: 0 ok, 1 a run failed, 2 usage or config error,
 * 4 interrupted; compare: 0 not worse, 1 worse, 2 inconclusive, 3 error. */
#define _GNU_SOURCE
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare.h"
#include "ladder_file.h"
#include "record.h"
#include "standings.h"
#include "tournament.h"

static void usage(FILE *f)
{
    fprintf(f,
"usage: maat-ladder demo [--ladder FILE] [--jobs N] [--pin]\n"
"       maat-ladder standings FILE... [--game G] [--format table|json|csv]\n"
"       maat-ladder run CONFIG [--jobs N] [--pin | --no-pin] [--quiet]\n"
"       maat-ladder plan CONFIG --shard-dir DIR\n"
"       maat-ladder merge OUT SHARD...\n"
"       maat-ladder compare --candidate CMD --baseline CMD [--field CMD]...\n"
"                   [--game G] [--seats N] [--elo0 E] [--elo1 E] [--alpha A]\n"
"                   [--beta B] [--max-blocks N] [--jobs N] [--seed S]\n"
"                   [--referee-arg ARG]... [--ladder FILE] [--pin] [--quiet]\n"
"\n"
"demo       a short tournament of the sample bots; prints the standings\n"
"standings  ratings (OpenSkill Plackett-Luce, shown as mu - 3 sigma), games,\n"
"           wins, average rank and score, Elo for 2-player games, faults\n"
"run        play a tournament (JSON config, docs/LADDER.md); resumable\n"
"plan       one shell command per unplayed match, each writing its own\n"
"           shard file, for GNU parallel or a Slurm job array\n"
"merge      append the games of the shards that OUT lacks (idempotent)\n"
"compare    seed-paired duplicate blocks until a GSPRT decides whether the\n"
"           candidate is worse than the baseline; exit 0 not worse,\n"
"           1 worse, 2 inconclusive at --max-blocks (default 200), 3 error\n"
"           (defaults: --elo0 -20 --elo1 0 --alpha 0.05 --beta 0.05)\n"
"\n"
"--pin      (run, demo, compare) one CPU per running match: job slot k runs\n"
"           its referee and bots on the k-th allowed CPU, wrapping around;\n"
"           run: the config's \"pin\" field, --no-pin to override it\n");
}

/* A program built next to us: ../DIR/NAME in the build tree, else NAME in
 * our own directory (installed). */
static char *sibling(const char *dir, const char *name)
{
    char self[PATH_MAX], path[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return strdup(name);
    self[n] = 0;
    char *d = dirname(self);
    snprintf(path, sizeof path, "%s/../%s/%s", d, dir, name);
    if (access(path, X_OK) == 0)
        return realpath(path, NULL);
    snprintf(path, sizeof path, "%s/%s", d, name);
    return strdup(path);
}

static int cmd_standings(int argc, char **argv)
{
    const char *game = NULL, *format = "table";
    maat_ladder l = {0};
    maat_error err = {0};
    int files = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--game") && i + 1 < argc) {
            game = argv[++i];
        } else if (!strcmp(argv[i], "--format") && i + 1 < argc) {
            format = argv[++i];
            if (strcmp(format, "table") && strcmp(format, "json") &&
                strcmp(format, "csv")) {
                fprintf(stderr, "maat-ladder: --format is table, json or "
                                "csv, not '%s'\n", format);
                maat_ladder_free(&l);
                return 2;
            }
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "maat-ladder standings: unknown option '%s'\n",
                    argv[i]);
            maat_ladder_free(&l);
            return 2;
        } else if (maat_ladder_read(&l, argv[i], 0, stderr, &err)) {
            fprintf(stderr, "maat-ladder: %s\n", err.msg);
            maat_ladder_free(&l);
            return 2;
        } else {
            files++;
        }
    }
    if (!files) {
        fprintf(stderr, "maat-ladder standings: name a ladder file\n");
        maat_ladder_free(&l);
        return 2;
    }
    if (l.bad_lines)
        fprintf(stderr, "maat-ladder: %zu bad line%s skipped\n", l.bad_lines,
                l.bad_lines == 1 ? "" : "s");
    maat_rating_params p;
    maat_rating_params_default(&p);
    maat_standings s;
    maat_standings_compute(&l, game, &p, &s);
    maat_standings_print(&s, format, stdout);
    maat_standings_free(&s);
    maat_ladder_free(&l);
    return 0;
}

static int finish_run(int rc, const maat_error *err)
{
    if (rc == MAAT_OK)
        return 0;
    fprintf(stderr, "maat-ladder: %s\n", err->msg);
    return rc == MAAT_ESTATE ? 4 : rc == MAAT_EINVAL ? 2 : 1;
}

static int print_standings(const char *ladder, const char *game)
{
    char *args[] = {(char *)ladder, "--game", (char *)game};
    return cmd_standings(3, args);
}

static int cmd_run(int argc, char **argv, int plan)
{
    const char *config = NULL, *shard_dir = NULL;
    int jobs = 0, quiet = 0, pin = -1; /* -1: as the config says */
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--jobs") && i + 1 < argc)
            jobs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--pin") && !plan)
            pin = 1;
        else if (!strcmp(argv[i], "--no-pin") && !plan)
            pin = 0;
        else if (!strcmp(argv[i], "--shard-dir") && i + 1 < argc)
            shard_dir = argv[++i];
        else if (!strcmp(argv[i], "--quiet"))
            quiet = 1;
        else if (argv[i][0] != '-' && !config)
            config = argv[i];
        else {
            fprintf(stderr, "maat-ladder: unexpected argument '%s'\n",
                    argv[i]);
            return 2;
        }
    }
    if (!config || (plan && !shard_dir) || jobs < 0 || jobs > 256) {
        usage(stderr);
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
    if (!t.referee)
        t.referee = sibling("referee", "maat-referee");
    int rc;
    if (plan) {
        rc = maat_tournament_plan(&t, shard_dir, stdout, &err);
        rc = finish_run(rc, &err);
    } else {
        rc = finish_run(maat_tournament_run(&t, quiet, &err), &err);
        if (rc == 0 && !quiet)
            print_standings(t.ladder, t.game);
    }
    maat_tournament_free(&t);
    return rc;
}

static int cmd_merge(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: maat-ladder merge OUT SHARD...\n");
        return 2;
    }
    maat_ladder have = {0};
    maat_error err = {0};
    if (maat_ladder_read(&have, argv[0], 1, stderr, &err)) {
        fprintf(stderr, "maat-ladder: %s\n", err.msg);
        return 2;
    }
    int added = 0, rc = 0;
    for (int i = 1; i < argc && !rc; i++) {
        maat_ladder shard = {0};
        if (maat_ladder_read(&shard, argv[i], 0, stderr, &err)) {
            fprintf(stderr, "maat-ladder: %s\n", err.msg);
            rc = 2;
            break;
        }
        for (size_t k = 0; k < shard.count && !rc; k++) {
            const maat_ladder_game *g = &shard.games[k];
            if (maat_ladder_has(&have, g->id))
                continue;
            char *line = json_dumps(g->line, JSON_COMPACT | JSON_PRESERVE_ORDER);
            if (!line || maat_jsonl_append(argv[0], line, strlen(line), &err)) {
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
        maat_ladder_read(&have, argv[0], 1, NULL, &err);
    }
    fprintf(stderr, "maat-ladder: merged %d new game%s into %s (%zu in all)\n",
            added, added == 1 ? "" : "s", argv[0], have.count);
    maat_ladder_free(&have);
    return rc;
}

static int cmd_compare(int argc, char **argv)
{
    maat_compare c;
    memset(&c, 0, sizeof c);
    c.game = "pyramids";
    c.seats = 2;
    c.elo0 = -20;
    c.elo1 = 0;
    c.alpha = c.beta = 0.05;
    c.max_blocks = 200;
    c.jobs = 2;
    c.seed = 1;
    char *extra[64];
    const char *ladder = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quiet")) {
            c.quiet = 1;
            continue;
        }
        if (!strcmp(a, "--pin")) {
            c.pin = 1;
            continue;
        }
        if (!v) {
            fprintf(stderr, "maat-ladder compare: '%s' needs a value\n", a);
            return 3;
        }
        i++;
        if (!strcmp(a, "--candidate")) c.candidate = v;
        else if (!strcmp(a, "--baseline")) c.baseline = v;
        else if (!strcmp(a, "--field") && c.n_field < 16) c.field[c.n_field++] = v;
        else if (!strcmp(a, "--game")) c.game = v;
        else if (!strcmp(a, "--seats")) c.seats = atoi(v);
        else if (!strcmp(a, "--elo0")) c.elo0 = atof(v);
        else if (!strcmp(a, "--elo1")) c.elo1 = atof(v);
        else if (!strcmp(a, "--alpha")) c.alpha = atof(v);
        else if (!strcmp(a, "--beta")) c.beta = atof(v);
        else if (!strcmp(a, "--max-blocks")) c.max_blocks = atoi(v);
        else if (!strcmp(a, "--jobs")) c.jobs = atoi(v);
        else if (!strcmp(a, "--seed")) c.seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--ladder")) ladder = v;
        else if (!strcmp(a, "--referee-arg") && c.n_referee_args < 64)
            extra[c.n_referee_args++] = (char *)v;
        else {
            fprintf(stderr, "maat-ladder compare: unknown option '%s'\n", a);
            return 3;
        }
    }
    const maat_rules *r = maat_rules_find(c.game);
    if (!c.candidate || !c.baseline || !r || c.seats < r->min_seats ||
        c.seats > r->max_seats || c.elo0 >= c.elo1 || c.alpha <= 0 ||
        c.alpha >= 0.5 || c.beta <= 0 || c.beta >= 0.5 || c.max_blocks < 1 ||
        c.jobs < 1 || c.jobs > 256) {
        fprintf(stderr, "maat-ladder compare: needs --candidate and "
                        "--baseline; a known --game with a seat count it "
                        "allows; elo0 < elo1; 0 < alpha, beta < 0.5; "
                        "max-blocks and jobs >= 1\n");
        return 3;
    }
    c.referee_args = extra;
    {
        /* a tag unique to this run, so old games in --ladder never count */
        FILE *u = fopen("/dev/urandom", "rb");
        unsigned char raw[6] = {0};
        if (!u || fread(raw, 1, sizeof raw, u) != sizeof raw)
            snprintf(c.tag, sizeof c.tag, "%lx", (long)getpid());
        else
            snprintf(c.tag, sizeof c.tag, "%02x%02x%02x%02x%02x%02x", raw[0],
                     raw[1], raw[2], raw[3], raw[4], raw[5]);
        if (u)
            fclose(u);
    }
    char tmpl[] = "/tmp/maat-compare-XXXXXX", path[64];
    int made_tmp = !ladder;
    if (made_tmp) {
        if (!mkdtemp(tmpl)) {
            perror("maat-ladder: mkdtemp");
            return 3;
        }
        snprintf(path, sizeof path, "%s/ladder.jsonl", tmpl);
        ladder = path;
    }
    c.ladder = ladder;
    c.referee = sibling("referee", "maat-referee");
    maat_error err = {0};
    int rc = maat_compare_run(&c, stdout, &err);
    if (rc > 2) {
        fprintf(stderr, "maat-ladder: %s\n", err.msg);
        rc = 3;
    }
    if (made_tmp) {
        unlink(path);
        rmdir(tmpl);
    }
    free((char *)c.referee);
    return rc;
}

/* The built-in default: the sample bots in a short duplicate tournament. */
static int cmd_demo(int argc, char **argv)
{
    const char *ladder = "maat-demo-ladder.jsonl";
    int jobs = 2, pin = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--ladder") && i + 1 < argc)
            ladder = argv[++i];
        else if (!strcmp(argv[i], "--pin"))
            pin = 1;
        else if (!strcmp(argv[i], "--jobs") && i + 1 < argc)
            jobs = atoi(argv[++i]);
        else {
            fprintf(stderr, "maat-ladder demo: unknown argument '%s'\n",
                    argv[i]);
            return 2;
        }
    }
    char *random = sibling("sample-bots", "maat-random");
    char *greedy = sibling("sample-bots", "maat-greedy");
    char *mcts = sibling("sample-bots", "maat-mcts");
    char mcts_cmd[PATH_MAX + 32];
    snprintf(mcts_cmd, sizeof mcts_cmd, "%s --budget-ms 20", mcts);
    maat_tournament t;
    memset(&t, 0, sizeof t);
    snprintf(t.name, sizeof t.name, "demo");
    snprintf(t.game, sizeof t.game, "pyramids");
    t.seats = 2;
    t.matches = 24;
    t.format = TOUR_ROUND_ROBIN;
    t.duplicate = 1;
    t.jobs = jobs > 0 ? jobs : 1;
    t.pin = pin;
    t.seed = 1;
    t.hero = -1;
    t.ladder = (char *)ladder;
    t.referee = sibling("referee", "maat-referee");
    maat_tour_bot bots[4] = {{"random", random}, {"random2", random},
                             {"greedy", greedy}, {"mcts", mcts_cmd}};
    t.bots = bots;
    t.n_bots = 4;
    printf("maat-ladder demo: %d Pyramids matches (round robin of random, "
           "random2, greedy, mcts;\n2 seats, duplicate: each deal played "
           "from both seats), %d jobs%s, ladder file %s\n\n", t.matches,
           t.jobs, t.pin ? " (one CPU each)" : "", ladder);
    fflush(stdout);
    maat_error err = {0};
    int rc = finish_run(maat_tournament_run(&t, 0, &err), &err);
    if (rc == 0) {
        printf("\n");
        fflush(stdout);
        rc = print_standings(ladder, "pyramids");
    }
    free(t.referee);
    free(random);
    free(greedy);
    free(mcts);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *cmd = argv[1];
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
    fprintf(stderr, "maat-ladder: unknown command '%s' (try --help)\n", cmd);
    return 2;
}
