/* main.c -- maat-referee: the command line.  Parses options (or a config
 * file of the same options), then runs a match or verifies a record.
 * Exit codes: 0 match finished (faults or not) / record verified,
 * 1 the match could not be held, 2 usage or configuration error,
 * 3 verify found differences, 4 interrupted, 5 the machine failed (a
 * sandbox that could not be made): no result, play the match again. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "maat/game.h"
#include "maat/protocol.h"
#include <zmq.h>
#include "botenv.h"
#include "cli.h"
#include "match.h"
#include "record.h"
#include "cgroup.h"
#include "sandbox.h"

#define MAX_CONFIG_ARGS 512

static void usage(FILE *f)
{
    fprintf(f,
"usage: maat-referee [options] --bot NAME=COMMAND ...\n"
"       maat-referee --demo\n"
"       maat-referee --verify RECORD [--deck FILE] [--option KEY=VALUE]...\n"
"\n"
"Runs a match between bots over ZeroMQ and records the result.  Options\n"
"take their value as --opt VALUE or --opt=VALUE.\n"
"\n"
"Match:\n"
"  --game NAME            game to play (default pyramids): ");
    maat_cli_games(f);
    fprintf(f, "\n"
"  --seed S               seed of the deal: 64 hex digits, or a number\n"
"                         0..2^64-1 (easy to guess: for tests and bug\n"
"                         reports); default: 256 bits from the OS.  Bots\n"
"                         see it only in the record, after the game\n"
"  --seed-file FILE       read the seed from FILE ('-': stdin), so it is\n"
"                         not on the command line\n"
"  --seed-label L         play derive(seed, L) instead (docs/RNG.md): one\n"
"                         secret key, a different deal per label\n"
"  --games N              games in the series; seats rotate (1); game k > 0\n"
"                         plays derive(seed, 'game k')\n"
"  --same-deal            every game of the series uses the same seed\n"
"  --fresh-bots           new bot processes for every game (the default\n"
"                         with --same-deal, so no bot remembers the deal)\n"
"  --keep-bots            the same bot processes for the whole series\n"
"  --fixed-seats          bot order = seat order in game 0 (default: seeded\n"
"                         shuffle of the seats)\n"
"  --deck FILE            Pyramids deck file (default: the reference deck)\n"
"  --option KEY=VALUE     any other game option\n"
"Bots:\n"
"  --bot NAME=COMMAND     start COMMAND for a seat: plain words with a path\n"
"                         first (./bot --depth 3) are exec'd directly,\n"
"                         anything else runs via /bin/sh -c; a program\n"
"                         that cannot be exec'd is exit 1\n"
"  --remote NAME=TOKEN    a seat for a bot that connects itself with TOKEN\n"
"  --endpoint EP          bind EP, e.g. tcp://0.0.0.0:5555 (default: a\n"
"                         private ipc:// socket)\n"
"  --curve-key FILE       encrypt with CURVE using the referee key pair in\n"
"                         FILE (from --keygen); only known keys get in\n"
"  --allow-key NAME=KEY   the CURVE public key of remote bot NAME\n"
"  --keygen               print a new CURVE key pair and exit\n"
"Clocks (milliseconds):\n"
"  --time MS              per decision (1000)\n"
"  --first-time MS        a bot's first decision of the match (5000)\n"
"  --bank MS              time bank per game (0)\n"
"  --increment MS         added to the bank after each decision (0)\n"
"  --grace MS             transport slack not shown to bots (100)\n"
"  --hello-time MS        for every bot to say hello (10000)\n"
"  --no-wait-credit       charge a late answer's whole wall time, even the\n"
"                         time the referee or a starved bot waited for a\n"
"                         CPU past the limit (default: credited, at most\n"
"                         the decision's time + grace again)\n"
"Faults (POLICY is forfeit or strikes:N):\n"
"  --on-timeout P   (strikes:3)   --on-illegal P   (strikes:3)\n"
"  --on-malformed P (strikes:3)   --on-crash P     (forfeit)\n"
"  --on-no-hello P  (forfeit)\n"
"Processes:\n"
"  --ponder               let idle bots think at full priority (default:\n"
"                         once a seat's decision has lasted 1 ms, the\n"
"                         other spawned bots run at the lowest priority,\n"
"                         nice 19, until their own turn)\n"
"  --sandbox              require the sandbox; --no-sandbox: do without.\n"
"                         Default: spawned bots run under bubblewrap when\n"
"                         it works here (MAAT_SANDBOX=on|off|auto sets the\n"
"                         default): read-only\n"
"                         file system, private /tmp, no network, own PID\n"
"                         namespace, one socket file per seat\n"
"  --sandbox-checked      the sandbox, bubblewrap known to work (maat-ladder\n"
"                         checks once per run): no check of its own\n"
"  --limit-tmp MB         size of each sandbox's private /tmp (64)\n"
"  --hide PATH            one more path sandboxed bots must not see\n"
"  --private-dirs         hide from each sandboxed bot the directories the\n"
"                         other bots' commands name below the working\n"
"                         directory (entrants' programs and weights)\n"
"  --private NAME=DIR     directory DIR is seen by bot NAME's sandbox only\n"
"                         (even inside a --hide directory); the other bots\n"
"                         find it empty, and one whose command names it is\n"
"                         refused\n"
"  --bot-env SPEC         what else of this environment bots get: NAME,\n"
"                         NAME=VALUE, PREFIX* or * (all). A sandboxed bot\n"
"                         gets only PATH, HOME, the locale, runtimes' paths,\n"
"                         MAAT_* and a few more (docs/REFEREE.md); NAME=VALUE\n"
"                         is set with or without the sandbox\n"
"  --log-dir DIR          per-bot stdout/stderr logs (default: discarded)\n"
"  --log-cap KB           bytes kept per bot log (1024)\n"
"  --limit-as MB          address space per bot process (2048; 0 = none)\n"
"  --limit-mem MB         memory of all a bot's processes together, in a\n"
"                         cgroup of its own (0 = none, the default; needs\n"
"                         root or a delegated cgroup)\n"
"  --limit-cpu S          CPU seconds per bot process (600)\n"
"  --limit-nproc N        tasks (processes and threads) per bot (64)\n"
"  --limit-nofile N       open files per bot process (256)\n"
"Output:\n"
"  --ladder FILE          append one JSON line per finished game\n"
"  --ladder-final FILE    the ladder the lines are moved to later (maat-ladder\n"
"                         run --jobs N): paths in them relative to its folder\n"
"  --record FILE          write the game record (series: FILE-<k>)\n"
"  --record-timing        include per-decision wall and CPU times\n"
"  --match-id ID          id used in records and ladder lines\n"
"  --config FILE          read options from FILE (one per line, same names\n"
"                         without the dashes: 'bot alice=./bot'; # comments)\n"
"  --quiet | --verbose\n"
"  --help | --version\n"
"Exit codes: 0 finished (even with faults), 1 could not hold the match,\n"
"2 usage error, 3 --verify found differences, 4 interrupted, 5 the\n"
"machine failed (a sandbox could not be made): no result, play it again.\n"
"\n"
"example: maat-referee --seed 7 --bot alice=./alice --bot bob=./bob \\\n"
"             --record game.json --ladder ladder.jsonl\n");
}

/* "FILE:LINE: " while a config file's line is parsed, so that every
 * error names the line (a program's state, not a library's). */
static char where[PATH_MAX + 32];

/* The options that take a value, for "needs a value" vs "unknown". */
static const char *const valued[] = {
    "--game", "--seed", "--seed-file", "--seed-label", "--games", "--deck",
    "--option", "--bot", "--remote",
    "--endpoint", "--curve-key", "--allow-key", "--time", "--first-time",
    "--bank", "--increment", "--grace", "--hello-time", "--on-timeout",
    "--on-illegal", "--on-malformed", "--on-crash", "--on-no-hello",
    "--log-dir", "--log-cap", "--limit-as", "--limit-mem", "--limit-cpu", "--limit-nproc",
    "--limit-nofile", "--limit-tmp", "--hide", "--private", "--bot-env", "--ladder", "--ladder-final", "--record", "--match-id", "--verify",
    "--config", NULL};

/* SANDBOX_CHECKED: on, bubblewrap known to work (--sandbox-checked) */
enum { SANDBOX_AUTO, SANDBOX_ON, SANDBOX_OFF, SANDBOX_CHECKED };

typedef struct cli {
    maat_match_config c;
    int sandbox; /* SANDBOX_*: --sandbox, --no-sandbox, --sandbox-checked
                    (the last given wins), or none */
    const char *verify;
    const char *seed_file, *seed_label;
    int seed_given, fresh, keep; /* --seed, --fresh-bots, --keep-bots */
    int demo;
    char *owned[MAX_CONFIG_ARGS * 2]; /* strings we allocated */
    int n_owned;
    char bot_names[MAAT_MAX_SEATS][64];
    char curve_public[41], curve_secret[41];
    struct {
        char name[64];
        const char *key;
    } allowed[MAAT_MAX_SEATS];
    int n_allowed;
} cli;

/* A key file: lines "public Z85" and "secret Z85" (# comments). */
static int read_key_file(cli *k, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "maat-referee: %s: %s\n", path, strerror(errno));
        return 2;
    }
    char line[256], word[16], key[64];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#' || sscanf(line, "%15s %63s", word, key) < 1)
            continue;
        char *dst = !strcmp(word, "public") ? k->curve_public
                    : !strcmp(word, "secret") ? k->curve_secret : NULL;
        if (!dst || strlen(key) != 40) {
            fprintf(stderr, "maat-referee: %s:%d: expected 'public KEY' or "
                            "'secret KEY' with a 40-character Z85 key\n",
                    path, lineno);
            fclose(f);
            return 2;
        }
        memcpy(dst, key, 41);
    }
    fclose(f);
    if (!k->curve_public[0] || !k->curve_secret[0]) {
        fprintf(stderr, "maat-referee: %s: needs both a public and a secret "
                        "line (make one with --keygen)\n", path);
        return 2;
    }
    k->c.curve_public = k->curve_public;
    k->c.curve_secret = k->curve_secret;
    return 0;
}

static int bad(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "maat-referee: %s", where);
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, " (try --help)\n");
    return 2;
}

static int parse_num(const char *opt, const char *v, long long lo,
                     long long hi, long long *out)
{
    char prog[sizeof where + 16];
    snprintf(prog, sizeof prog, "maat-referee: %.*s", (int)(strlen(where) >
             2 ? strlen(where) - 2 : 0), where); /* without the ": " */
    return maat_cli_int(*where ? prog : "maat-referee", opt, v, lo, hi, NULL,
                        out) ? 2 : 0;
}

/* "NAME=REST" -> name (copied into buf) and rest */
static int split_named(const char *opt, const char *v, char *name,
                       size_t len, const char **rest)
{
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || (size_t)(eq - v) >= len || !eq[1])
        return bad("%s wants NAME=VALUE, got '%s'", opt, v);
    for (const char *p = v; p < eq; p++)
        if (!(*p == '-' || *p == '_' || *p == '.' ||
              (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
              (*p >= 'A' && *p <= 'Z')))
            return bad("%s: bot names use letters, digits, '-', '_', '.'; "
                       "got '%s'", opt, v);
    memcpy(name, v, (size_t)(eq - v));
    name[eq - v] = 0;
    *rest = eq + 1;
    return 0;
}

static int parse_args(cli *k, int argc, char **argv, int depth);

static int read_config(cli *k, const char *path, int depth)
{
    if (depth > 2)
        return bad("%s: config files nest too deeply%s", path, "");
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "maat-referee: %s%s: %s\n", where, path,
                strerror(errno));
        return 2;
    }
    char line[4096], saved[sizeof where];
    snprintf(saved, sizeof saved, "%s", where);
    int lineno = 0, rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        lineno++;
        snprintf(where, sizeof where, "%s:%d: ", path, lineno);
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        s[strcspn(s, "\r\n")] = 0;
        if (!*s || *s == '#')
            continue;
        if (k->n_owned + 2 >= MAX_CONFIG_ARGS * 2) {
            rc = bad("too many options%s%s", "", "");
            break;
        }
        char *sp = s + strcspn(s, " \t");
        char *val = NULL;
        if (*sp) {
            *sp = 0;
            val = sp + 1;
            while (*val == ' ' || *val == '\t')
                val++;
        }
        /* one line is one option: "NAME VALUE" or "NAME" */
        char *args[3] = {"config", NULL, NULL};
        char *opt = malloc(strlen(s) + 3);
        snprintf(opt, strlen(s) + 3, "%s%s", strncmp(s, "--", 2) ? "--" : "",
                 s);
        k->owned[k->n_owned++] = args[1] = opt;
        int n = 2;
        if (val && *val)
            k->owned[k->n_owned++] = args[n++] = strdup(val);
        rc = parse_args(k, n, args, depth + 1);
    }
    fclose(f);
    snprintf(where, sizeof where, "%s", saved);
    return rc;
}

static int parse_args(cli *k, int argc, char **argv, int depth)
{
    maat_match_config *c = &k->c;
    for (int i = 1; i < argc; i++) {
        char name[64];
        const char *a = name, *v;
        long long n = 0;
        int rc = 0, strikes = 0, inline_value;
        /* --opt=value or --opt value */
        inline_value = maat_cli_split(argv[i], name, sizeof name, &v);
        if (!inline_value)
            v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes_value = 0;
        for (const char *const *o = valued; *o; o++)
            takes_value |= !strcmp(a, *o);
        if (inline_value && !takes_value)
            return bad("%s takes no value, got '%s'", a, argv[i]);
        /* flags without a value */
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--version")) {
            maat_cli_version(stdout, "maat-referee");
            exit(0);
        } else if (!strcmp(a, "--demo")) {
            k->demo = 1;
            continue;
        } else if (!strcmp(a, "--same-deal")) {
            c->same_deal = 1;
            continue;
        } else if (!strcmp(a, "--fixed-seats")) {
            c->fixed_seats = 1;
            continue;
        } else if (!strcmp(a, "--fresh-bots")) {
            k->fresh = 1;
            continue;
        } else if (!strcmp(a, "--keep-bots")) {
            k->keep = 1;
            continue;
        } else if (!strcmp(a, "--sandbox")) {
            k->sandbox = SANDBOX_ON;
            continue;
        } else if (!strcmp(a, "--sandbox-checked")) {
            k->sandbox = SANDBOX_CHECKED;
            continue;
        } else if (!strcmp(a, "--no-sandbox")) {
            k->sandbox = SANDBOX_OFF;
            continue;
        } else if (!strcmp(a, "--ponder")) {
            c->ponder = 1;
            continue;
        } else if (!strcmp(a, "--private-dirs")) {
            c->private_dirs = 1;
            continue;
        } else if (!strcmp(a, "--no-wait-credit")) {
            c->clock.wait_credit = 0;
            continue;
        } else if (!strcmp(a, "--record-timing")) {
            c->record_timing = 1;
            continue;
        } else if (!strcmp(a, "--quiet")) {
            c->quiet = 1;
            continue;
        } else if (!strcmp(a, "--verbose")) {
            c->verbose = 1;
            continue;
        } else if (!strcmp(a, "--keygen")) {
            char pub[41], sec[41];
            if (zmq_curve_keypair(pub, sec) != 0) {
                fprintf(stderr, "maat-referee: this libzmq has no CURVE\n");
                exit(1);
            }
            printf("# maat CURVE key pair: give the public line to others, "
                   "keep the secret line secret\npublic %s\nsecret %s\n",
                   pub, sec);
            exit(0);
        }
        if (!takes_value)
            return bad(strncmp(a, "--", 2) ? "unexpected argument '%s'%s"
                                           : "unknown option '%s'%s", a, "");
        if (!v)
            return bad("%s needs a value%s", a, "");
        if (!inline_value)
            i++;
        if (!strcmp(a, "--game")) {
            c->rules = maat_rules_find(v);
            if (!c->rules)
                return bad("no game named '%s'%s", v, "");
        } else if (!strcmp(a, "--seed")) {
            maat_error e = {0};
            if (maat_seed_parse(&c->seed, v, &e))
                return bad("--seed: %s%s", e.msg, "");
            k->seed_given = 1;
        } else if (!strcmp(a, "--seed-file")) {
            k->seed_file = v;
        } else if (!strcmp(a, "--seed-label")) {
            if (strlen(v) > 200)
                return bad("--seed-label: at most 200 bytes, got '%.40s...'%s",
                           v, "");
            k->seed_label = v;
        } else if (!strcmp(a, "--games")) {
            rc = parse_num(a, v, 1, 1000000, &n);
            c->games = (int)n;
        } else if (!strcmp(a, "--deck")) {
            maat_options_set(&c->options, "deck", v);
        } else if (!strcmp(a, "--option")) {
            const char *eq = strchr(v, '=');
            if (!eq || eq == v)
                return bad("--option wants KEY=VALUE, got '%s'%s", v, "");
            if (k->n_owned >= MAX_CONFIG_ARGS * 2)
                return bad("--option %s: too many options%s", v, "");
            char *key = strndup(v, (size_t)(eq - v));
            k->owned[k->n_owned++] = key;
            if (maat_options_set(&c->options, key, eq + 1))
                return bad("--option %s: at most 16 different game "
                           "options%s", v, "");
        } else if (!strcmp(a, "--bot") || !strcmp(a, "--remote")) {
            if (c->n_bots == MAAT_MAX_SEATS)
                return bad("at most %s bots%s", "8", "");
            const char *rest;
            char *name = k->bot_names[c->n_bots];
            rc = split_named(a, v, name, sizeof k->bot_names[0], &rest);
            if (rc)
                return rc;
            for (int b = 0; b < c->n_bots; b++)
                if (!strcmp(c->bots[b].name, name))
                    return bad("two bots are named '%s'%s", name, "");
            c->bots[c->n_bots].name = name;
            if (!strcmp(a, "--bot")) {
                if (strlen(rest) > MAAT_MAX_COMMAND)
                    return bad("--bot %s: a command has at most 4000 bytes "
                               "(a longer one belongs in a script)%s", name,
                               "");
                c->bots[c->n_bots].command = rest;
            } else {
                if (strlen(rest) > MAAT_MAX_TOKEN)
                    return bad("--remote %s: a token has at most 255 "
                               "characters%s", name, "");
                /* a token names one seat: with two seats on one token the
                 * second could never be taken ("token already in use") */
                for (int b = 0; b < c->n_bots; b++)
                    if (c->bots[b].token && !strcmp(c->bots[b].token, rest))
                        return bad("--remote %s: the same token as --remote "
                                   "%s; each seat needs its own", name,
                                   c->bots[b].name);
                c->bots[c->n_bots].token = rest;
            }
            c->n_bots++;
        } else if (!strcmp(a, "--endpoint")) {
            c->endpoint = v;
        } else if (!strcmp(a, "--curve-key")) {
            rc = read_key_file(k, v);
        } else if (!strcmp(a, "--allow-key")) {
            const char *rest;
            if (k->n_allowed == MAAT_MAX_SEATS)
                return bad("at most %s --allow-key%s", "8", "");
            rc = split_named(a, v, k->allowed[k->n_allowed].name,
                             sizeof k->allowed[0].name, &rest);
            if (!rc)
                k->allowed[k->n_allowed++].key = rest;
        } else if (!strcmp(a, "--time")) {
            rc = parse_num(a, v, 1, 86400000, &n);
            c->clock.decision_ms = n;
        } else if (!strcmp(a, "--first-time")) {
            rc = parse_num(a, v, 1, 86400000, &n);
            c->clock.first_ms = n;
        } else if (!strcmp(a, "--bank")) {
            rc = parse_num(a, v, 0, 86400000, &n);
            c->clock.bank_ms = n;
        } else if (!strcmp(a, "--increment")) {
            rc = parse_num(a, v, 0, 86400000, &n);
            c->clock.increment_ms = n;
        } else if (!strcmp(a, "--grace")) {
            rc = parse_num(a, v, 0, 60000, &n);
            c->clock.grace_ms = n;
        } else if (!strcmp(a, "--hello-time")) {
            rc = parse_num(a, v, 1, 86400000, &n);
            c->clock.hello_ms = n;
        } else if (!strncmp(a, "--on-", 5)) {
            int kind = -1;
            for (int f = 0; f < MAAT_FAULT_KINDS; f++) {
                char name[32];
                snprintf(name, sizeof name, "--on-%s", maat_fault_names[f]);
                for (char *p = name; *p; p++)
                    if (*p == '_')
                        *p = '-';
                if (!strcmp(a, name))
                    kind = f;
            }
            if (kind < 0)
                return bad("unknown fault kind in '%s'%s", a, "");
            if (maat_fault_policy_parse(v, &strikes))
                return bad("%s wants forfeit or strikes:N, got '%s'", a, v);
            if (strikes && (kind == MAAT_FAULT_CRASH ||
                            kind == MAAT_FAULT_NO_HELLO))
                return bad("%s: a bot that crashed or never said hello is "
                           "gone; the only policy is forfeit, not '%s'", a, v);
            c->policy.strikes[kind] = strikes;
        } else if (!strcmp(a, "--log-dir")) {
            c->log_dir = v;
        } else if (!strcmp(a, "--log-cap")) {
            rc = parse_num(a, v, 0, 1 << 20, &n);
            c->limits.log_cap = (uint64_t)n * 1024;
        } else if (!strcmp(a, "--limit-as")) {
            rc = parse_num(a, v, 0, 1 << 20, &n);
            c->limits.address_space = (uint64_t)n << 20;
        } else if (!strcmp(a, "--limit-mem")) {
            rc = parse_num(a, v, 0, 1 << 30, &n);
            c->limits.memory = (uint64_t)n << 20;
        } else if (!strcmp(a, "--limit-cpu")) {
            rc = parse_num(a, v, 0, 1 << 30, &n);
            c->limits.cpu_seconds = (uint64_t)n;
        } else if (!strcmp(a, "--limit-nproc")) {
            rc = parse_num(a, v, 0, 1 << 20, &n);
            c->limits.processes = (uint64_t)n;
        } else if (!strcmp(a, "--limit-tmp")) {
            rc = parse_num(a, v, 1, 1 << 20, &n);
            c->sandbox_tmp_mb = (uint64_t)n;
        } else if (!strcmp(a, "--hide")) {
            if (c->n_hide == MAAT_MAX_HIDE)
                return bad("--hide %s: at most 8 paths%s", v, "");
            c->hide[c->n_hide++] = v;
        } else if (!strcmp(a, "--private")) {
            if (c->n_private == MAAT_MAX_PRIVATE)
                return bad("--private %s: at most 16%s", v, "");
            char name[64];
            const char *dir;
            rc = split_named(a, v, name, sizeof name, &dir);
            if (rc)
                return rc;
            if (k->n_owned >= MAX_CONFIG_ARGS * 2)
                return bad("--private %s: too many options%s", v, "");
            char *owner = strdup(name);
            k->owned[k->n_owned++] = owner;
            c->private_owner[c->n_private] = owner;
            c->private_dir[c->n_private++] = dir;
        } else if (!strcmp(a, "--bot-env")) {
            maat_error e = {0};
            if (maat_botenv_check(v, &e))
                return bad("%s%s", e.msg, "");
            if (c->n_bot_env == MAAT_MAX_BOT_ENV)
                return bad("--bot-env %s: at most 32%s", v, "");
            c->bot_env[c->n_bot_env++] = v;
        } else if (!strcmp(a, "--limit-nofile")) {
            rc = parse_num(a, v, 0, 1 << 20, &n);
            c->limits.open_files = (uint64_t)n;
        } else if (!strcmp(a, "--ladder")) {
            c->ladder_path = v;
        } else if (!strcmp(a, "--ladder-final")) {
            c->ladder_final = v;
        } else if (!strcmp(a, "--record")) {
            c->record_path = v;
        } else if (!strcmp(a, "--match-id")) {
            if (!maat_match_id_valid(v))
                return bad("--match-id '%s': 1 to 200 ASCII letters, "
                           "digits, '.', '_', '-', ':', '+' or '@', not "
                           "starting with '.' or '-'%s", v, "");
            c->match_id = v;
        } else if (!strcmp(a, "--verify")) {
            k->verify = v;
        } else if (!strcmp(a, "--config")) {
            rc = read_config(k, v, depth);
        } else {
            return bad("unknown option '%s'%s", a, "");
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* The match's seed: --seed or --seed-file (a key the organiser keeps),
 * else 256 bits from the OS; with --seed-label, derived from it.  Then
 * which series restart their bots, and a warning where a guessable seed
 * meets entrants we cannot see. */
static int settle_seed_and_bots(cli *k)
{
    maat_match_config *c = &k->c;
    maat_seed key = c->seed;
    maat_error err = {0};
    if (k->seed_given && k->seed_file)
        return bad("--seed and --seed-file both give the seed; use one%s%s",
                   "", "");
    if (k->seed_file && maat_seed_read_file(&key, k->seed_file, &err)) {
        fprintf(stderr, "maat-referee: --seed-file: %s\n", err.msg);
        return 2;
    }
    if (!k->seed_given && !k->seed_file) {
        if (k->seed_label)
            return bad("--seed-label needs the key it derives from: --seed "
                       "or --seed-file%s%s", "", "");
        if (maat_seed_random(&key, &err)) {
            fprintf(stderr, "maat-referee: %s\n", err.msg);
            return 1;
        }
    }
    c->seed_weak = (k->seed_given || k->seed_file) && maat_seed_is_short(&key);
    c->seed_file = k->seed_file && strcmp(k->seed_file, "-") ? k->seed_file
                                                           : NULL;
    if (k->seed_label)
        maat_seed_derive(&c->seed, &key, k->seed_label);
    else
        c->seed = key;

    int remote = 0;
    for (int i = 0; i < c->n_bots; i++)
        remote |= !c->bots[i].command;
    if (k->fresh && k->keep)
        return bad("--fresh-bots and --keep-bots contradict each other%s%s",
                   "", "");
    c->fresh_bots = c->games > 1 && (k->fresh || (c->same_deal && !k->keep));
    if (c->fresh_bots && remote)
        return bad("%s: a remote bot (--remote) cannot be restarted for each "
                   "game; give --keep-bots to play the series on one "
                   "connection (a remote bot can then remember the deal)%s",
                   k->fresh ? "--fresh-bots" : "--same-deal", "");
    /* remote entrants, or a sandbox asked for by name: entrants the
     * organiser does not trust (the default sandbox is for everyone) */
    if (c->seed_weak && (remote || k->sandbox == SANDBOX_ON)) {
        char text[MAAT_SEED_TEXT];
        fprintf(stderr, "maat-referee: warning: the seed %s is a short "
                "number, easy to guess: a %s bot can try every such seed "
                "against what it sees and so know the whole deal; for "
                "entrants you do not trust, leave --seed out (a seed from "
                "the OS) or give 64 hex digits\n",
                maat_seed_format(&key, text), remote ? "remote" : "sandboxed");
    }
    return 0;
}

/* The demo: four random sample bots, built next to this program. */
static int setup_demo(cli *k, const char *argv0)
{
    static char cmd[PATH_MAX + 32];
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        snprintf(self, sizeof self, "%s", argv0);
    else
        self[n] = 0;
    char *dir = dirname(self);
    const char *candidates[] = {"%s/../sample-bots/maat-random",
                                "%s/maat-random"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(cmd, sizeof cmd, candidates[i], dir);
        if (access(cmd, X_OK) == 0)
            break;
        cmd[0] = 0;
    }
    if (!cmd[0]) {
        fprintf(stderr, "maat-referee: --demo needs the sample bot "
                        "maat-random next to maat-referee\n");
        return 2;
    }
    static const char *names[] = {"ra", "sekhmet", "thoth", "horus"};
    for (int i = 0; i < 4; i++) {
        k->c.bots[i].name = names[i];
        k->c.bots[i].command = cmd;
    }
    k->c.n_bots = 4;
    return 0;
}

/* Sandboxed by default when bubblewrap works here; --sandbox insists,
 * --no-sandbox declines, MAAT_SANDBOX=on|off|auto sets the default.
 * --sandbox-checked skips the check (a bubblewrap process of a few
 * milliseconds): maat-ladder made it once for every referee of its run. */
/* How many of the seats' bots the referee starts (not remote ones). */
static int spawned_bots(const cli *k)
{
    int n = 0;
    for (int i = 0; i < k->c.n_bots; i++)
        n += k->c.bots[i].command != NULL;
    return n;
}

static int choose_sandbox(cli *k)
{
    int want = k->sandbox;
    const char *env = getenv("MAAT_SANDBOX");
    if (want == SANDBOX_AUTO && env && *env) {
        if (!strcmp(env, "on"))
            want = SANDBOX_ON;
        else if (!strcmp(env, "off"))
            want = SANDBOX_OFF;
        else if (strcmp(env, "auto") != 0) {
            fprintf(stderr, "maat-referee: MAAT_SANDBOX=%s: on, off or auto\n",
                    env);
            return 2;
        }
    }
    int spawned = spawned_bots(k);
    if (want == SANDBOX_OFF || !spawned) {
        k->c.sandbox = 0;
        return 0;
    }
    if (want == SANDBOX_CHECKED) { /* a bwrap gone since fails each start */
        k->c.sandbox = 1;
        return 0;
    }
    int works = maat_sandbox_works();
    if (!works && want == SANDBOX_ON) {
        fprintf(stderr, "maat-referee: --sandbox needs bubblewrap "
                        "(apt-get install bubblewrap) and user namespaces;"
                        " 'bwrap --unshare-user --cap-drop ALL --ro-bind / / "
                        "--unshare-pid --unshare-net true' failed here\n");
        return 2;
    }
    if (!works && !k->c.quiet)
        fprintf(stderr, "maat-referee: bots are NOT isolated: bubblewrap "
                        "does not work here, so a bot can read the others' "
                        "tokens and signal their processes (docs/REFEREE.md,"
                        " \"Isolation\")\n");
    k->c.sandbox = works;
    return 0;
}

/* --private NAME=DIR: DIR an existing directory, not holding the
 * working directory (every bot's), its resolved path short enough for the
 * sandbox's command; a NAME that plays no spawned bot hides DIR from
 * every bot, which is likely a typo: said, unless --quiet. */
static int check_private(const cli *k)
{
    const maat_match_config *c = &k->c;
    char cwd[PATH_MAX];
    if (c->n_private && !getcwd(cwd, sizeof cwd))
        return bad("--private: cannot read the working directory%s%s", "",
                   "");
    for (int i = 0; i < c->n_private; i++) {
        const char *dir = c->private_dir[i], *name = c->private_owner[i];
        char real[PATH_MAX];
        struct stat st;
        if (!realpath(dir, real) || stat(real, &st) != 0) {
            fprintf(stderr, "maat-referee: --private %s=%s: %s\n", name, dir,
                    strerror(errno));
            return 2;
        }
        size_t n = strlen(real);
        if (!S_ISDIR(st.st_mode))
            return bad("--private %s: not a directory%s", dir, "");
        if (n >= 1000)
            return bad("--private %s: its path is too long for the sandbox "
                       "(1000 bytes at most)%s", dir, "");
        if (!strncmp(real, cwd, n) && (cwd[n] == '/' || cwd[n] == 0 ||
                                      n == 1))
            return bad("--private %s: holds the working directory, which "
                       "every bot needs: give each bot a directory below it "
                       "(%s)", dir, cwd);
        /* one inside another: which mount wins would depend on the
         * order they are made in; say whose each directory is instead */
        for (int j = 0; j < i; j++) {
            char other[PATH_MAX];
            if (!realpath(c->private_dir[j], other))
                continue;
            size_t m = strlen(other), shorter = m < n ? m : n;
            if (!strncmp(real, other, shorter) &&
                (real[shorter] == '/' || other[shorter] == '/' ||
                 m == n))
                return bad("--private: %s and %s: one holds the other; "
                           "give each bot a directory apart", c->private_dir[j],
                           dir);
        }
        int plays = 0;
        for (int b = 0; b < c->n_bots; b++)
            plays |= c->bots[b].command && !strcmp(c->bots[b].name, name);
        if (!plays && !c->quiet)
            fprintf(stderr, "maat-referee: --private %s=%s: no spawned bot "
                    "is called %s: no bot sees it\n", name, dir, name);
    }
    if (c->n_private && !c->sandbox && !c->quiet)
        fprintf(stderr, "maat-referee: --private does nothing without the "
                "sandbox: every bot can read every directory\n");
    return 0;
}

/* --limit-mem needs a memory cgroup per bot: make (and remove) one now,
 * so that a machine without them is a usage error before any bot starts,
 * not every match failing as it spawns its first bot. */
static int check_limit_mem(const cli *k)
{
    int spawned = spawned_bots(k);
    if (!k->c.limits.memory || !spawned)
        return 0;
    maat_cgroup_sweep();
    maat_error err = {0};
    maat_cgroup *g = maat_cgroup_new(k->c.limits.memory,
                                     k->c.limits.processes, &err);
    if (!g) {
        fprintf(stderr, "maat-referee: --limit-mem %llu: %s\n",
                (unsigned long long)(k->c.limits.memory >> 20), err.msg);
        return 2;
    }
    maat_cgroup_destroy(&g);
    return 0;
}

/* Root is not bound by RLIMIT_NPROC, so as root --limit-nproc is kept
 * by a pids cgroup per bot (with --limit-mem its memory group caps tasks
 * already).  Tried once now: where none can be made (a container whose
 * cgroups are read-only), the match still runs, and the organiser is
 * told that a bot can fork until the machine has no process ids left. */
static void choose_task_group(cli *k)
{
    int spawned = spawned_bots(k);
    if (geteuid() != 0 || k->c.limits.memory || !k->c.limits.processes ||
        !spawned)
        return;
    maat_cgroup_sweep(); /* before ours, so none of ours is in the way */
    maat_error err = {0};
    maat_cgroup *g = maat_cgroup_new(0, k->c.limits.processes, &err);
    if (g) {
        k->c.limits.task_group = 1;
        maat_cgroup_destroy(&g);
    } else if (!k->c.quiet) {
        fprintf(stderr, "maat-referee: warning: --limit-nproc %llu is not "
                "enforced: root is not bound by RLIMIT_NPROC, and %s; a bot "
                "can fork until the machine has no process ids left (run "
                "the referee as another user, or where it can make "
                "cgroups; --limit-nproc 0 says no limit is wanted)\n",
                (unsigned long long)k->c.limits.processes, err.msg);
    }
}

/* --log-dir: made if missing, and checked before any bot starts, as the
 * record and the ladder are -- a result that cannot be written is exit 1,
 * not a match played for nothing or a bot charged for the referee's
 * disk. */
static int check_log_dir(const char *dir)
{
    struct stat st;
    const char *why = NULL;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        why = strerror(errno);
    else if (stat(dir, &st) != 0)
        why = strerror(errno);
    else if (!S_ISDIR(st.st_mode))
        why = "not a directory";
    else if (access(dir, W_OK | X_OK) != 0)
        why = strerror(errno);
    if (!why)
        return 0;
    fprintf(stderr, "maat-referee: --log-dir %s: cannot write the bots' "
                    "logs there: %s\n", dir, why);
    return 1;
}

int main(int argc, char **argv)
{
    static cli k;
    maat_match_config_init(&k.c);
    k.c.rules = maat_rules_default();
    int rc = parse_args(&k, argc, argv, 0);
    for (int i = 0; !rc && i < k.n_allowed; i++) {
        int found = 0;
        for (int b = 0; b < k.c.n_bots; b++)
            if (!strcmp(k.c.bots[b].name, k.allowed[i].name) &&
                !k.c.bots[b].command) {
                k.c.bots[b].curve_key = k.allowed[i].key;
                found = 1;
            }
        if (!found)
            rc = bad("--allow-key %s: no --remote bot has that name%s",
                     k.allowed[i].name, "");
    }
    if (!rc && k.n_allowed && !k.c.curve_secret)
        rc = bad("--allow-key needs --curve-key%s%s", "", "");
    if (!rc && k.verify) {
        maat_error err = {0};
        /* --deck and --option win over the record's options */
        int n = maat_record_verify(k.verify, &k.c.options, stdout,
                                   k.c.verbose, &err);
        if (n < 0) {
            maat_text_sanitize(err.msg); /* it may quote the record */
            fprintf(stderr, "maat-referee: %s\n", err.msg);
            rc = 2;
        } else {
            printf("%s: %s (%d difference%s)\n", k.verify,
                   n ? "DIFFERS" : "verified", n, n == 1 ? "" : "s");
            rc = n ? 3 : 0;
        }
    } else if (!rc) {
        if (k.demo || k.c.n_bots == 0) {
            if (!k.demo) {
                usage(stderr);
                rc = 2;
                goto out;
            }
            rc = setup_demo(&k, argv[0]);
            if (rc)
                goto out;
        }
        rc = choose_sandbox(&k);
        if (!rc)
            rc = check_limit_mem(&k);
        if (!rc)
            choose_task_group(&k);
        if (!rc)
            rc = check_private(&k);
        if (rc)
            goto out;
        rc = settle_seed_and_bots(&k);
        if (rc)
            goto out;
        if (k.c.log_dir && (rc = check_log_dir(k.c.log_dir)))
            goto out;
        maat_error err = {0};
        int r = maat_match_run(&k.c, &err);
        if (r == MAAT_ESTATE) {
            fprintf(stderr, "maat-referee: %s\n", err.msg);
            rc = 4;
        } else if (r == MAAT_EHOST) {
            fprintf(stderr, "maat-referee: %s\n", err.msg);
            rc = 5;
        } else if (r == MAAT_EINVAL) {
            fprintf(stderr, "maat-referee: %s\n", err.msg);
            rc = 2;
        } else if (r) {
            fprintf(stderr, "maat-referee: %s\n", err.msg);
            rc = 1;
        }
    }
out:
    for (int i = 0; i < k.n_owned; i++)
        free(k.owned[i]);
    return rc;
}
