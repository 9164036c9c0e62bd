/* main.c -- maat-replay: a game record as one self-contained HTML page
 * that draws the game and steps through it, and an index page of a
 * tournament's games.
 *
 *   maat-replay RECORD -o game.html [--log SEAT=FILE]... [--deck FILE]
 *               [--option KEY=VALUE]...
 *   maat-replay RECORD --json -o game.json       (the document only)
 *   maat-replay --index LADDER [--records DIR] -o index.html
 *
 * The work is in document.c (the record replayed through the rules),
 * page.c (the page), index.c (the index) and viewer.{html,css,js} (the
 * viewer, which only draws).  docs/REPLAY.md is the user's guide. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "document.h"
#include "index.h"
#include "outcome.h"
#include "page.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: maat-replay RECORD -o OUT.html [--log SEAT=FILE]... "
        "[--deck FILE]\n"
        "                   [--option KEY=VALUE]... [--json]\n"
        "       maat-replay --index LADDER [--records DIR] -o INDEX.html\n"
        "Replays a game record through the rules and writes one HTML page "
        "that draws\nthe game: step through the decisions, see any seat's "
        "view, the clocks, faults\nand the bots' stderr.  Opens from disk; "
        "needs no network.\n"
        "  -o FILE           the page to write\n"
        "  --log SEAT=FILE   the stderr log of the bot in SEAT (a seat number "
        "or a bot\n"
        "                    name), lines prefixed by the decision index and "
        "a tab\n"
        "  --deck FILE       the deck file, instead of the one the record "
        "names\n"
        "                    (Pyramids; the same as --option deck=FILE)\n"
        "  --option KEY=VALUE  a game option instead of the record's (e.g. a "
        "component\n"
        "                    file found elsewhere now)\n"
        "  --json            write the replay document (JSON) instead of the "
        "page\n"
        "  --index LADDER    a page linking every game of the ladder file to "
        "its replay,\n"
        "                    written next to it as ID.html\n"
        "  --records DIR     where --index finds the records: DIR/ID.json, "
        "DIR/MATCH-N.json\n"
        "                    or DIR/MATCH.json (or the ladder line's "
        "\"record\")\n"
        "Exit codes: 0 written, 1 the record or a log could not be read or "
        "the page\nwritten, 2 usage error (also: -o names an input file).  "
        "Details: docs/REPLAY.md.\n");
}

static int bad(const char *what, const char *arg)
{
    fprintf(stderr, "maat-replay: %s '%s' (see maat-replay --help)\n", what,
            arg);
    return 2;
}

/* Is `in` the very file `out` names?  By device and inode, so "./r.json",
 * a hard link or a symbolic link to the input count too; only when both
 * exist (a new output is no input). */
static int same_file(const char *out, const char *in)
{
    struct stat a, b;
    return in && stat(out, &a) == 0 && stat(in, &b) == 0 &&
           a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* -o naming an input would replace it with the page: refused, 2. */
static int output_is_input(const char *out, const char *record,
                           const char *ladder, const maat_options *options,
                           const maat_replay_log *logs, int n_logs)
{
    const char *what = same_file(out, record)   ? "the record"
                       : same_file(out, ladder) ? "the ladder file (--index)"
                                                : NULL;
    for (int i = 0; i < options->count && !what; i++)
        if (same_file(out, options->value[i]))
            what = "a file of the game's options (--deck, --option)";
    /* and the files the record's own options name (its deck...) */
    json_t *rec = record && !what ? json_load_file(record, 0, NULL) : NULL;
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(rec, "options"), key, v)
        if (!what && same_file(out, json_string_value(v)))
            what = "a file the record's options name";
    json_decref(rec);
    for (int i = 0; i < n_logs && !what; i++)
        if (same_file(out, logs[i].path))
            what = "a bot log (--log)";
    if (!what)
        return 0;
    fprintf(stderr, "maat-replay: -o %s is %s: writing the page would "
            "replace it; name another output file\n", out, what);
    return 1;
}

int main(int argc, char **argv)
{
    const char *record = NULL, *out = NULL, *ladder = NULL;
    maat_options options = {0}; /* --deck, --option: over the record's */
    char keys[MAAT_MAX_OPTIONS][64]; /* the --option keys, cut from KEY=VALUE */
    const char *records = NULL;
    int json = 0, n_logs = 0;
    maat_replay_log logs[2 * MAAT_MAX_SEATS];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = !strcmp(a, "-o") || !strcmp(a, "--log") ||
                    !strcmp(a, "--deck") || !strcmp(a, "--option") ||
                    !strcmp(a, "--index") ||
                    !strcmp(a, "--records");
        if (takes && !v)
            return bad("option needs a value:", a);
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--version")) {
            maat_cli_version(stdout, "maat-replay");
            return 0;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "-o")) {
            out = v, i++;
        } else if (!strcmp(a, "--deck") || !strcmp(a, "--option")) {
            const char *eq = strchr(v, '='), *key = "deck", *value = v;
            if (a[2] == 'o') { /* --option KEY=VALUE */
                if (!eq || eq == v || eq - v >= (int)sizeof keys[0])
                    return bad("--option wants KEY=VALUE (a key of at most "
                               "63 bytes), not", v);
                if (options.count == MAAT_MAX_OPTIONS)
                    return bad("too many game options at", v);
                char *k = keys[options.count];
                snprintf(k, sizeof keys[0], "%.*s", (int)(eq - v), v);
                key = k, value = eq + 1;
            }
            if (maat_options_set(&options, key, value) != MAAT_OK)
                return bad("too many game options at", v);
            i++;
        } else if (!strcmp(a, "--index")) {
            ladder = v, i++;
        } else if (!strcmp(a, "--records")) {
            records = v, i++;
        } else if (!strcmp(a, "--log")) {
            const char *eq = strchr(v, '=');
            if (!eq || eq == v || !eq[1])
                return bad("--log wants SEAT=FILE, not", v);
            if (n_logs == 2 * MAAT_MAX_SEATS)
                return bad("too many --log options at", v);
            char *who = strndup(v, (size_t)(eq - v));
            logs[n_logs].who = who;
            logs[n_logs].path = eq + 1;
            n_logs++;
            i++;
        } else if (a[0] == '-' && a[1]) {
            return bad("unknown option", a);
        } else if (!record) {
            record = a;
        } else {
            return bad("one record at a time; extra argument", a);
        }
    }
    if (!out || (!record) == (!ladder)) {
        usage(stderr);
        return 2;
    }
    if (output_is_input(out, record, ladder, &options, logs, n_logs)) {
        for (int i = 0; i < n_logs; i++)
            free((char *)logs[i].who);
        return 2;
    }
    maat_error err = {0, ""};
    int rc = 0;
    if (ladder) {
        int games, replays;
        if (maat_replay_index(ladder, records, out, &games, &replays, &err))
            rc = 1;
        else
            fprintf(stderr, "maat-replay: %s: %d games, %d with a replay\n",
                    out, games, replays);
    } else {
        json_t *doc = maat_replay_document(record, &options, logs, n_logs,
                                           &err);
        if (!doc) {
            rc = 1;
        } else if (json) {
            if (json_dump_file(doc, out, JSON_INDENT(1) | JSON_PRESERVE_ORDER))
                rc = maat_error_set(&err, 1, "%s: cannot write", out);
        } else {
            char title[200];
            snprintf(title, sizeof title, "%s %s-%lld",
                     json_string_value(json_object_get(doc, "game")),
                     json_string_value(json_object_get(doc, "match"))
                         ? json_string_value(json_object_get(doc, "match"))
                         : "?",
                     (long long)json_integer_value(
                         json_object_get(doc, "game_index")));
            rc = maat_replay_page_write(out, title, doc, &err) ? 1 : 0;
        }
        size_t k;
        json_t *w;
        json_array_foreach(json_object_get(doc, "warnings"), k, w) {
            char *text = strdup(json_string_value(w));
            if (text) /* the rules' words about a record's own text */
                maat_text_sanitize(text);
            fprintf(stderr, "maat-replay: %s: %s\n", record,
                    text ? text : "?");
            free(text);
        }
        json_decref(doc);
    }
    /* a message may quote the record (its deck path, say): a hand-edited
     * record must not send escape sequences to the terminal */
    maat_text_sanitize(err.msg);
    if (rc)
        fprintf(stderr, "maat-replay: %s\n", err.msg);
    for (int i = 0; i < n_logs; i++)
        free((char *)logs[i].who);
    return rc;
}
