/* league.c -- the league process (see league.h; docs/LEAGUE.md). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "entries.h"
#include "faults.h"
#include "html.h"
#include "leaderboard.h"
#include "league.h"
#include "matchmaking.h"
#include "maat/rng.h"
#include "opts.h"
#include "record.h"
#include "referee_cmd.h"
#include "tally.h"

enum { MAX_JOBS = MAAT_LEAGUE_MAX_JOBS, MAX_EVENTS = 30 };

/* ---- the league's state ------------------------------------------------- */

enum { V_VALIDATING, V_RANKED, V_FAILED, V_RETIRED, V_BROKEN };
static const char *const state_names[] = {"validating", "ranked", "failed",
                                          "retired", "broken"};
enum { KIND_RANKED, KIND_VALIDATION };

/* What the league knows of one version, by its bot name. */
typedef struct vinfo {
    char bot[64];
    int state, announced;     /* announced: the state events have said */
    int clean;                /* validation games without a fault */
    int failed;               /* a validation game with its fault */
    char why[800], game[96], log[300];
    double recent;            /* matchmaking.h's count, as of `at` */
    uint64_t at;
    double absent_until;      /* a remote bot that did not show up */
    int absent_said;
    /* the lineup of the last ranked match it started in this run (bots,
     * itself included; seats of them): "never the lineup it played last"
     * is by start, or with several jobs a match that ended late would
     * hide an earlier one still running (review of 2026-11-28) */
    char last_started[MAAT_MAX_SEATS][64];
    int last_seats;
} vinfo;

typedef struct match {
    pid_t pid;                /* a local referee; 0 when queued */
    char id[32];
    int kind, remote, seats;
    char bot[MAAT_MAX_SEATS][64];
    double started;
} match;

typedef struct league {
    const char *dir;
    char *abs;                /* the directory, absolute */
    char *cwd;                /* where bots' relative paths start */
    maat_league_config c;
    maat_league_options o;
    maat_seed key;
    maat_entries es;
    vinfo *vi;
    int n_vi, cap_vi;
    maat_tally ranked;
    maat_ladder_cursor rc_cur, vc_cur;
    char ranked_path[4200], valid_path[4200];
    match run[MAX_JOBS];
    int n_run;
    long next_match;          /* the next match number */
    int started_ranked;       /* in this run, for --max-matches */
    int starting;             /* the first scan of the entries */
    int loading;              /* reading the ladders at start: no events */
    int dirty;                /* the page needs writing */
    int stopping;
    char *events[MAX_EVENTS]; /* JSON lines, the latest last */
    int n_events;
    /* Each entry's last event in events.jsonl, when it was `refused`: its
     * detail, so that a restart does not say the same refusal again (the
     * docs: once per content).  Read at start; NULL: none. */
    json_t *refused_last;
    int idle_said;
    int failures;             /* ranked matches (or any, when the machine
                                 failed) failed in a row */
    double pause_until;       /* ... and no match before this */
    int sandbox_checked;      /* bubblewrap checked once for local referees */
    char curve_file[4200], curve_public[64];
} league;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void iso_time(char *out, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static vinfo *vinfo_get(league *L, const char *bot)
{
    for (int i = 0; i < L->n_vi; i++)
        if (!strcmp(L->vi[i].bot, bot))
            return &L->vi[i];
    if (L->n_vi == L->cap_vi) {
        int cap = L->cap_vi ? L->cap_vi * 2 : 16;
        vinfo *v = realloc(L->vi, sizeof *v * (size_t)cap);
        if (!v)
            return NULL;
        L->vi = v;
        L->cap_vi = cap;
    }
    vinfo *v = &L->vi[L->n_vi++];
    memset(v, 0, sizeof *v);
    snprintf(v->bot, sizeof v->bot, "%s", bot);
    v->state = v->announced = -1;
    return v;
}

/* ---- events: DIR/events.jsonl, stderr, the page ------------------------- */

static void remember_event(league *L, char *line)
{
    if (L->n_events == MAX_EVENTS) {
        free(L->events[0]);
        memmove(L->events, L->events + 1, sizeof *L->events * (MAX_EVENTS - 1));
        L->n_events--;
    }
    L->events[L->n_events++] = line;
}

/* Say what happened: one JSON line in DIR/events.jsonl, one line on
 * stderr, and the page's events. */
static void event(league *L, const char *what, const char *entry, int version,
                  const char *bot, const char *detail, const char *game,
                  const char *log)
{
    char when[32], file[4200];
    iso_time(when, sizeof when);
    /* an entry's command and an entry file's name are anyone's bytes:
     * no terminal escapes on stderr, and valid UTF-8 for the JSON */
    char *clean = detail ? strdup(detail) : NULL;
    if (clean) {
        maat_text_sanitize(clean);
        detail = clean;
    }
    json_t *j = json_pack("{s:s, s:s, s:s?, s:i, s:s?, s:s?, s:s?, s:s?}",
                          "time", when, "event", what, "entry", entry,
                          "version", version, "bot", bot, "detail", detail,
                          "game", game, "log", log);
    if (!version)
        json_object_del(j, "version");
    const char *k;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(j, tmp, k, v) /* only what there is */
        if (json_is_null(v))
            json_object_del(j, k);
    char *line = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(j);
    fprintf(stderr, "maat-ladder league: %s%s%s%s%s%s%s%s%s\n", what,
            bot || entry ? " " : "", bot ? bot : entry ? entry : "",
            detail ? ": " : "",
            detail ? detail : "", game ? " (game " : "", game ? game : "",
            game ? ")" : "", "");
    if (log)
        fprintf(stderr, "maat-ladder league:   its log: %s/%s\n", L->dir, log);
    free(clean);
    if (!line)
        return;
    snprintf(file, sizeof file, "%s/events.jsonl", L->dir);
    maat_error err = {0};
    if (maat_jsonl_append(file, line, strlen(line), &err))
        fprintf(stderr, "maat-ladder league: %s\n", err.msg);
    remember_event(L, line);
    L->dirty = 1;
}

/* The last events of DIR/events.jsonl, for the page after a restart; and
 * the versions that failed because their validation match could not be
 * held, which no ladder line says. */
static void load_events(league *L)
{
    char file[4200], *line = NULL;
    size_t cap = 0;
    ssize_t n;
    snprintf(file, sizeof file, "%s/events.jsonl", L->dir);
    FILE *f = fopen(file, "r");
    while (f && (n = getline(&line, &cap, f)) > 0) {
        if (line[n - 1] != '\n')
            break;
        line[n - 1] = 0;
        json_t *j = json_loads(line, 0, NULL);
        const char *what = json_string_value(json_object_get(j, "event"));
        const char *bot = json_string_value(json_object_get(j, "bot"));
        const char *why = json_string_value(json_object_get(j, "detail"));
        const char *game = json_string_value(json_object_get(j, "game"));
        vinfo *v = what && bot && why && game && !strcmp(what, "failed") &&
                           strstr(why, "could not be held")
                       ? vinfo_get(L, bot)
                       : NULL;
        if (v && !v->failed) {
            v->failed = 1;
            snprintf(v->why, sizeof v->why, "%s", why);
            snprintf(v->game, sizeof v->game, "%s", game);
        }
        const char *entry = json_string_value(json_object_get(j, "entry"));
        if (entry && what && L->refused_last) {
            if (!strcmp(what, "refused") && why)
                json_object_set_new(L->refused_last, entry, json_string(why));
            else
                json_object_del(L->refused_last, entry);
        }
        json_decref(j);
        char *copy = strdup(line);
        if (copy)
            remember_event(L, copy);
    }
    free(line);
    if (f)
        fclose(f);
}

static void on_entry(void *ctx, int what, const maat_entry *e, const char *why)
{
    league *L = ctx;
    if (L->starting && what == ENTRY_REMOVED)
        return; /* gone while the league was down: its versions retire
                   quietly, like every state read back from the ladders */
    const maat_version *v = e->n_ver ? &e->ver[e->n_ver - 1] : NULL;
    static const char *const names[] = {"added", "new version", "removed",
                                        "refused"};
    char detail[700];
    if (what == ENTRY_REFUSED)
        snprintf(detail, sizeof detail, "%s", why);
    else if (v && (what == ENTRY_ADDED || what == ENTRY_VERSION))
        snprintf(detail, sizeof detail, "%s%s", v->command ? "command " :
                 "remote, key ", v->command ? v->command : v->key);
    else
        snprintf(detail, sizeof detail, "retired: its file is gone; running "
                 "matches finish");
    /* at start, the refusal the events file already ends with for this
     * entry is not said again */
    const char *said = L->starting && L->refused_last
        ? json_string_value(json_object_get(L->refused_last, e->name)) : NULL;
    char as_said[700]; /* as event() writes it */
    snprintf(as_said, sizeof as_said, "%s", detail);
    maat_text_sanitize(as_said);
    if (what == ENTRY_REFUSED && said && !strcmp(said, as_said))
        return;
    event(L, names[what], e->name, v && what != ENTRY_REFUSED ? v->v : 0,
          v && what != ENTRY_REFUSED ? v->bot : NULL, detail, NULL, NULL);
}

/* ---- reading the ladder files ------------------------------------------- */

static int gpm(const league *L)
{
    return L->c.duplicate ? L->c.seats : 1;
}

/* The path a ladder line names for seat s's log, relative to DIR. */
static const char *line_log(const maat_ladder_game *g, int seat)
{
    json_t *logs = json_object_get(g->line, "logs");
    return json_string_value(json_array_get(logs, (size_t)seat));
}

/* The number in a match id "m12" / "v12" (a game id "m12-0"), or -1. */
static long match_number(const char *id)
{
    if (id[0] != 'm' && id[0] != 'v')
        return -1;
    char *end;
    long n = strtol(id + 1, &end, 10);
    return end != id + 1 && (*end == '-' || !*end) ? n : -1;
}

/* maat-replay RECORD -o DIR/site/replays/ID.html, waited for. */
static void make_replay(league *L, const maat_ladder_game *g)
{
    const char *rec = json_string_value(json_object_get(g->line, "record"));
    if (!L->c.replays || !L->c.replay || !maat_html_inside(rec) ||
        !maat_html_safe_name(g->id))
        return;
    char record[4200], out[4400], logs[MAAT_MAX_SEATS][4300];
    char *argv[8 + 2 * MAAT_MAX_SEATS];
    int n = 0;
    snprintf(record, sizeof record, "%s/%s", L->dir, rec);
    snprintf(out, sizeof out, "%s/site/replays/%s.html", L->dir, g->id);
    argv[n++] = L->c.replay;
    argv[n++] = record;
    argv[n++] = "-o";
    argv[n++] = out;
    for (int s = 0; L->c.replay_logs && s < g->seats; s++) {
        const char *log = line_log(g, s);
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", L->dir, log ? log : "");
        if (!maat_html_inside(log) || access(path, R_OK) != 0)
            continue;
        snprintf(logs[s], sizeof logs[s], "%d=%s", s, path);
        argv[n++] = "--log";
        argv[n++] = logs[s];
    }
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execv(argv[0], argv);
        fprintf(stderr, "maat-ladder league: cannot run %s: %s\n", argv[0],
                strerror(errno));
        _exit(127);
    }
    int st;
    if (pid > 0)
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
        }
}

/* A game of the ranked ladder. */
static int ranked_game(void *ctx, const maat_ladder_game *g, int *taken)
{
    league *L = ctx;
    (void)taken;
    uint64_t before = L->ranked.games;
    if (maat_tally_add(&L->ranked, g))
        return -1;
    long n = match_number(g->id);
    if (n >= L->next_match)
        L->next_match = n + 1;
    if (L->ranked.games == before)
        return 0; /* a repeated id, or another game */
    for (int s = 0; s < g->seats; s++) {
        vinfo *v = vinfo_get(L, g->bot[s]);
        if (!v)
            return -1;
        v->recent = maat_mm_decay(v->recent, (double)(L->ranked.games - v->at),
                                  L->c.half_life) + 1;
        v->at = L->ranked.games;
        const maat_entry *e;
        const maat_version *ver = maat_entries_find_bot(&L->es, g->bot[s], &e);
        if (!L->loading && ver && !ver->command &&
            g->faults[s][MAAT_FAULT_NO_HELLO]) {
            v->absent_until = now_s() + L->c.retry;
            if (!v->absent_said++)
                event(L, "absent", e->name, ver->v, ver->bot, "the remote "
                      "bot did not connect: the game counts against it; it "
                      "plays again after the retry time", g->id, NULL);
        } else if (ver && !ver->command &&
                   !g->faults[s][MAAT_FAULT_NO_HELLO]) {
            v->absent_said = 0;
        }
    }
    if (!L->loading) {
        if (!L->o.quiet) {
            fprintf(stderr, "maat-ladder league: game %s:", g->id);
            for (int r = 1; r <= g->seats; r++)
                for (int s = 0; s < g->seats; s++)
                    if (g->rank[s] == r)
                        fprintf(stderr, " %d. %s (%d)", r, g->bot[s],
                                g->score[s]);
            fputc('\n', stderr);
        }
        make_replay(L, g);
        L->dirty = 1;
    }
    return 0;
}

/* A game of the validation ladder: count it for its entry's version. */
static int validation_game(void *ctx, const maat_ladder_game *g, int *taken)
{
    league *L = ctx;
    (void)taken;
    long n = match_number(g->id);
    if (n >= L->next_match)
        L->next_match = n + 1;
    /* A game where the reference bot itself faulted (it never said hello,
     * it crashed) shows nothing of the new version: it counts for no entry
     * (it used to pass every entry against a reference that never
     * started), and it is said, and the league waits as after a failed
     * match, so that a broken reference does not spin. */
    for (int s = 0; s < g->seats; s++) {
        const maat_entry *e;
        if (maat_entries_find_bot(&L->es, g->bot[s], &e))
            continue;
        maat_fault_tally ft = {0};
        maat_fault_tally_add(&ft, g, s);
        if (!ft.faulty_games)
            continue;
        if (!L->loading) {
            char what[200], detail[600];
            maat_fault_tally_describe(&ft, what, sizeof what);
            snprintf(detail, sizeof detail, "the reference bot %s faulted "
                     "(%s; first: %.200s): the game counts for no entry; "
                     "check league.json's reference", g->bot[s], what,
                     ft.first_detail);
            event(L, "match failed", NULL, 0, NULL, detail, g->id, NULL);
            L->failures++;
            L->pause_until = now_s() + fmin(300, exp2(L->failures));
            make_replay(L, g);
            L->dirty = 1;
        }
        return 0;
    }
    for (int s = 0; s < g->seats; s++) {
        const maat_entry *e;
        const maat_version *ver = maat_entries_find_bot(&L->es, g->bot[s], &e);
        if (!ver)
            continue; /* the reference bot */
        vinfo *v = vinfo_get(L, g->bot[s]);
        if (!v)
            return -1;
        maat_fault_tally ft = {0};
        maat_fault_tally_add(&ft, g, s);
        int others = ft.kinds[MAAT_FAULT_TIMEOUT] +
                     ft.kinds[MAAT_FAULT_ILLEGAL] +
                     ft.kinds[MAAT_FAULT_MALFORMED] +
                     ft.kinds[MAAT_FAULT_CRASH];
        if (!ft.faulty_games) {
            v->clean++;
        } else if (!ver->command && !others) { /* a remote no-show */
            if (!L->loading)
                v->absent_until = now_s() + L->c.retry;
            if (!L->loading && !v->absent_said++)
                event(L, "absent", e->name, ver->v, ver->bot, "the remote bot "
                      "did not connect for its validation game; it is tried "
                      "again after the retry time", g->id, NULL);
        } else if (!v->failed) {
            v->failed = 1;
            char what[200];
            maat_fault_tally_describe(&ft, what, sizeof what);
            snprintf(v->why, sizeof v->why, "%s; first: %s", what,
                     ft.first_detail);
            snprintf(v->game, sizeof v->game, "%s", g->id);
            const char *log = line_log(g, s);
            snprintf(v->log, sizeof v->log, "%s",
                     log && maat_html_inside(log) ? log : "");
        }
    }
    if (!L->loading) {
        make_replay(L, g);
        L->dirty = 1;
    }
    return 0;
}

static int follow(league *L, maat_error *err)
{
    size_t bad = 0;
    int rc = maat_ladder_scan(&L->vc_cur, 1, stderr, &bad, validation_game, L,
                              err);
    if (!rc)
        rc = maat_ladder_scan(&L->rc_cur, 1, stderr, &L->ranked.bad_lines,
                              ranked_game, L, err);
    return rc;
}

/* ---- states ------------------------------------------------------------- */

static int validation_needed(const league *L)
{
    return L->c.validation_matches * gpm(L);
}

/* Every version's state from what the ladders said (entries.h, league.h). */
static void update_states(league *L)
{
    for (int i = 0; i < L->es.n; i++) {
        const maat_entry *e = &L->es.e[i];
        int ranked_one = -1; /* the latest version that passed */
        for (int k = 0; k < e->n_ver; k++) {
            vinfo *v = vinfo_get(L, e->ver[k].bot);
            if (!v)
                return;
            if (v->state == V_BROKEN)
                continue;
            int latest = k == e->n_ver - 1;
            if (v->failed)
                v->state = V_FAILED;
            else if (v->clean >= validation_needed(L))
                ranked_one = k, v->state = V_RETIRED;
            else
                v->state = latest && e->present ? V_VALIDATING : V_RETIRED;
        }
        if (ranked_one >= 0 && e->present) {
            vinfo *v = vinfo_get(L, e->ver[ranked_one].bot);
            int row = maat_tally_find(&L->ranked, v->bot, L->c.game);
            if (e->ver[ranked_one].command && row >= 0 &&
                maat_fault_tally_broken(&L->ranked.faults[row],
                                        L->c.fault_share)) {
                v->state = V_BROKEN;
                char what[200];
                maat_fault_tally_describe(&L->ranked.faults[row], what,
                                          sizeof what);
                snprintf(v->why, sizeof v->why, "%s; first: %s", what,
                         L->ranked.faults[row].first_detail);
                snprintf(v->game, sizeof v->game, "%s",
                         L->ranked.faults[row].first_game);
            } else {
                v->state = V_RANKED;
            }
        }
        for (int k = 0; k < e->n_ver; k++) {
            vinfo *v = vinfo_get(L, e->ver[k].bot);
            if (!v || v->state == v->announced)
                continue;
            int was = v->announced;
            v->announced = v->state;
            if (L->loading || was < 0 || v->state == V_VALIDATING)
                continue;
            if (v->state == V_RANKED)
                event(L, "ranked", e->name, e->ver[k].v, v->bot, "passed "
                      "its validation games", NULL, NULL);
            else if (v->state == V_FAILED)
                event(L, "failed", e->name, e->ver[k].v, v->bot, v->why,
                      v->game, v->log[0] ? v->log : NULL);
            else if (v->state == V_BROKEN)
                event(L, "broken", e->name, e->ver[k].v, v->bot, v->why,
                      v->game, NULL);
            else if (v->state == V_RETIRED && was == V_RANKED)
                event(L, "retired", e->name, e->ver[k].v, v->bot,
                      e->present ? "a newer version is ranked" :
                                   "its entry was removed", NULL, NULL);
        }
    }
}

/* ---- the page ----------------------------------------------------------- */

static void write_page(league *L)
{
    int n = 0;
    for (int i = 0; i < L->es.n; i++)
        n += L->es.e[i].n_ver;
    maat_board_entry *be = calloc((size_t)n + 1, sizeof *be);
    char (*detail)[500] = calloc((size_t)n + 1, sizeof *detail);
    const char *ev[MAX_EVENTS];
    if (!be || !detail)
        goto out;
    n = 0;
    for (int i = L->es.n - 1; i >= 0; i--) {
        const maat_entry *e = &L->es.e[i];
        for (int k = e->n_ver - 1; k >= 0; k--) {
            vinfo *v = vinfo_get(L, e->ver[k].bot);
            maat_board_entry *b = &be[n];
            if (!v)
                goto out;
            b->name = e->name;
            b->version = e->ver[k].v;
            b->bot = v->bot;
            b->state = state_names[v->state < 0 ? V_RETIRED : v->state];
            b->remote = !e->ver[k].command;
            if (v->state == V_FAILED || v->state == V_BROKEN) {
                b->detail = v->why;
                b->game = v->game;
                b->log = v->log[0] ? v->log : NULL;
            } else if (v->state == V_VALIDATING) {
                snprintf(detail[n], sizeof detail[n], "%d of %d validation "
                         "games played cleanly", v->clean,
                         validation_needed(L));
                b->detail = detail[n];
            }
            if (b->remote && v->absent_until > now_s() &&
                v->state != V_RETIRED) {
                snprintf(detail[n], sizeof detail[n], "did not connect; "
                         "tried again in %.0f s", v->absent_until - now_s());
                b->detail = detail[n];
                b->state = "absent";
            }
            n++;
        }
    }
    for (int i = 0; i < L->n_events; i++)
        ev[i] = L->events[L->n_events - 1 - i];
    char title[300], site[4200];
    snprintf(title, sizeof title, "maat league: %s", L->dir);
    snprintf(site, sizeof site, "%s/site", L->dir);
    maat_board b = {title, site, &L->ranked, be, n, ev, L->n_events,
                    (long long)time(NULL)};
    maat_error err = {0};
    if (maat_leaderboard_write(&b, &err))
        fprintf(stderr, "maat-ladder league: the page: %s\n", err.msg);
    L->dirty = 0;
out:
    free(be);
    free(detail);
}

/* ---- starting matches --------------------------------------------------- */

/* The counter, kept in DIR/state/next-match before each match starts, so
 * no match id (and so no deal) is ever used twice. */
static int save_counter(league *L, maat_error *err)
{
    char path[4200], tmp[4300], text[32];
    snprintf(path, sizeof path, "%s/state/next-match", L->dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    snprintf(text, sizeof text, "%ld\n", L->next_match);
    FILE *f = fopen(tmp, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0 || rename(tmp, path) != 0)
        return maat_error_set(err, MAAT_EIO, "%s: cannot write: %s", path,
                              strerror(errno));
    return MAAT_OK;
}

static void load_counter(league *L)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/state/next-match", L->dir);
    FILE *f = fopen(path, "r");
    long n;
    if (f && fscanf(f, "%ld", &n) == 1 && n > L->next_match)
        L->next_match = n;
    if (f)
        fclose(f);
}

/* The CURVE key pair of the league's referees, made by maat-referee
 * --keygen the first time a remote entry plays. */
static int curve_ready(league *L, maat_error *err)
{
    snprintf(L->curve_file, sizeof L->curve_file, "%s/state/referee.key",
             L->dir);
    if (access(L->curve_file, R_OK) != 0) { /* written, then renamed */
        char tmp[4300];
        snprintf(tmp, sizeof tmp, "%s.tmp", L->curve_file);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0)
            return maat_error_set(err, MAAT_EIO, "%s: %s", tmp,
                                  strerror(errno));
        pid_t pid = fork();
        if (pid == 0) {
            dup2(fd, 1);
            execl(L->c.referee, L->c.referee, "--keygen", (char *)NULL);
            _exit(127);
        }
        close(fd);
        int st = 0;
        while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR) {
        }
        if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0 ||
            rename(tmp, L->curve_file) != 0) {
            unlink(tmp);
            return maat_error_set(err, MAAT_EIO, "%s --keygen failed",
                                  L->c.referee);
        }
    }
    FILE *f = fopen(L->curve_file, "r");
    char line[256];
    L->curve_public[0] = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "public %63s", L->curve_public) == 1)
            break;
    if (f)
        fclose(f);
    return L->curve_public[0] ? MAAT_OK
                              : maat_error_set(err, MAAT_EIO, "%s: no 'public "
                                               "KEY' line", L->curve_file);
}

typedef struct lineup {
    int kind, seats, remote;
    const maat_version *ver[MAAT_MAX_SEATS]; /* NULL: the reference bot */
    char name[MAAT_MAX_SEATS][64];
} lineup;

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

/* The referee's argv for match `id` (maat_argv_free). */
static char **match_argv(league *L, const lineup *u, const char *id,
                         const char *ladder)
{
    char tokens[MAAT_MAX_SEATS][300];
    char record[4400], logs[4200];
    char key[4200], state[4200], entries[4200], site[4200], files[4200];
    char own[MAAT_MAX_SEATS][4600];
    const char *extra[12 + 2 * MAAT_MAX_SEATS + MAAT_MAX_REFEREE_ARGS];
    int n = 0;
    const char *base = L->c.queue ? L->abs : L->dir;
    snprintf(record, sizeof record, "%s/records/%s.json", base, id);
    snprintf(logs, sizeof logs, "%s/logs", base);
    snprintf(key, sizeof key, "%s/state/seed.key", base);
    snprintf(state, sizeof state, "%s/state", base);
    snprintf(entries, sizeof entries, "%s/entries", base);
    snprintf(site, sizeof site, "%s/site", base);
    extra[n++] = "--record";
    extra[n++] = record;
    extra[n++] = "--hide"; /* the keys, the versions, remote tokens */
    extra[n++] = state;
    extra[n++] = "--hide";
    extra[n++] = entries;
    /* the page and its replays: the league writes game 0's replay as soon
     * as its line is in, while the same deal is played again (duplicate) */
    extra[n++] = "--hide";
    extra[n++] = site;
    /* entrants share the machine, not their code: the directories each
     * entry's command names are hidden from the others' bots */
    extra[n++] = "--private-dirs";
    /* DIR/files/NAME/: entry NAME's files, seen by its bot alone; every
     * other entry's -- playing or not -- hidden with DIR/files */
    snprintf(files, sizeof files, "%s/files", base);
    struct stat st;
    if (stat(files, &st) == 0 && S_ISDIR(st.st_mode)) {
        extra[n++] = "--hide";
        extra[n++] = files;
        for (int k = 0; k < u->seats; k++) {
            const char *dot = strrchr(u->name[k], '.');
            char dir[4300];
            int len = (int)(dot ? dot - u->name[k] : 0);
            if (!u->ver[k] || !u->ver[k]->command || !dot)
                continue;
            if (len > 63)
                continue; /* entry names are at most 40 characters */
            snprintf(dir, sizeof dir, "%s/%.*s", files, len, u->name[k]);
            if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
                continue;
            snprintf(own[k], sizeof own[k], "%s=%s", u->name[k], dir);
            extra[n++] = "--private";
            extra[n++] = own[k];
        }
    }
    maat_referee_cmd c = {
        .referee = L->c.referee, .game = L->c.game, .seed_file = key,
        .seed_label = id, .duplicate = L->c.duplicate, .match_id = id,
        .ladder = ladder, .log_dir = logs, .seats = u->seats,
        .endpoint = L->c.endpoint, .curve_key = L->curve_file,
        .hello_time = L->c.hello_time,
        /* a queued match runs on another machine: it checks there */
        .sandbox_checked = L->sandbox_checked && !(L->c.queue && !u->remote)};
    for (int k = 0; k < u->seats; k++) {
        c.name[k] = u->name[k];
        c.command[k] = u->ver[k] ? u->ver[k]->command : L->c.reference;
        if (u->ver[k] && !u->ver[k]->command) {
            const char *tok = u->ver[k]->token;
            if (!tok) { /* derived from the entry's name */
                char derived[33], name[MAAT_ENTRY_NAME];
                snprintf(name, sizeof name, "%.*s",
                         (int)(strrchr(u->name[k], '.') - u->name[k]),
                         u->name[k]);
                maat_league_token(L->dir, name, derived, NULL);
                snprintf(tokens[k], sizeof tokens[k], "%s", derived);
            } else {
                snprintf(tokens[k], sizeof tokens[k], "%s", tok);
            }
            c.token[k] = tokens[k];
            c.key[k] = u->ver[k]->key;
        }
    }
    for (int a = 0; a < L->c.n_referee_args; a++)
        extra[n++] = L->c.referee_args[a];
    c.extra = (char *const *)extra;
    c.n_extra = n;
    return maat_referee_argv(&c);
}

/* Start (or queue) one match; 0 when it is under way. */
static int start_match(league *L, const lineup *u)
{
    maat_error err = {0};
    match *m = &L->run[L->n_run];
    memset(m, 0, sizeof *m);
    snprintf(m->id, sizeof m->id, "%c%ld", u->kind == KIND_RANKED ? 'm' : 'v',
             L->next_match++);
    if (save_counter(L, &err)) {
        fprintf(stderr, "maat-ladder league: %s\n", err.msg);
        return -1;
    }
    if (u->remote && !L->curve_public[0]) {
        fprintf(stderr, "maat-ladder league: match %s has a remote entry but "
                "league.json has no \"remote\" endpoint\n", m->id);
        return -1;
    }
    m->kind = u->kind;
    m->remote = u->remote;
    m->seats = u->seats;
    m->started = now_s();
    for (int k = 0; k < u->seats; k++)
        snprintf(m->bot[k], sizeof m->bot[k], "%s", u->name[k]);
    const char *ladder = u->kind == KIND_RANKED ? L->ranked_path
                                                : L->valid_path;
    if (L->c.queue && !u->remote) { /* for another machine */
        char shard[4400], job[4400];
        snprintf(shard, sizeof shard, "%s/shards/%s.part", L->abs, m->id);
        snprintf(job, sizeof job, "%s/shards/%s.job", L->dir, m->id);
        char **argv = match_argv(L, u, m->id, shard);
        char queue[4200];
        snprintf(queue, sizeof queue, "%s/queue", L->dir);
        FILE *jf = fopen(job, "w"), *q = fopen(queue, "a");
        if (!argv || !jf || !q) {
            fprintf(stderr, "maat-ladder league: cannot queue match %s: %s\n",
                    m->id, strerror(errno));
            if (jf)
                fclose(jf);
            if (q)
                fclose(q);
            maat_argv_free(argv);
            return -1;
        }
        fprintf(jf, "%d\n", u->kind);
        for (int k = 0; k < u->seats; k++)
            fprintf(jf, "%s\n", m->bot[k]);
        fclose(jf);
        /* one line, written at once: cd to where bots' paths start, run
         * the referee into its shard, then publish the shard */
        char *text = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&text, &len);
        fputs("cd ", mem);
        put_quoted(mem, L->cwd);
        fputs(" &&", mem);
        for (char **a = argv; *a; a++) {
            fputc(' ', mem);
            put_quoted(mem, *a);
        }
        /* the referee's exit status beside the shard: 5 is the machine's
         * failure (a sandbox could not be made), which fails no version */
        char status[4400];
        snprintf(status, sizeof status, "%.*s.exit",
                 (int)(strlen(shard) - 5), shard);
        fputs("; echo $? >", mem);
        put_quoted(mem, status);
        fputs("; touch ", mem);
        put_quoted(mem, shard);
        fputs(" && mv ", mem);
        put_quoted(mem, shard);
        fputc(' ', mem);
        shard[strlen(shard) - 5] = 0;
        strcat(shard, ".jsonl");
        put_quoted(mem, shard);
        fputc('\n', mem);
        fclose(mem);
        int ok = text && fwrite(text, 1, len, q) == len;
        ok &= fclose(q) == 0;
        free(text);
        maat_argv_free(argv);
        if (!ok) {
            fprintf(stderr, "maat-ladder league: cannot write %s\n", queue);
            return -1;
        }
    } else {
        char **argv = match_argv(L, u, m->id, ladder);
        m->pid = argv ? maat_referee_start(argv, -1, m->id, 1) : -1;
        maat_argv_free(argv);
        if (m->pid < 0) {
            fprintf(stderr, "maat-ladder league: cannot start match %s\n",
                    m->id);
            return -1;
        }
    }
    L->n_run++;
    return 0;
}

static int running_with(const league *L, const char *bot, int kind)
{
    int n = 0;
    for (int r = 0; r < L->n_run; r++)
        for (int k = 0; k < L->run[r].seats; k++)
            n += L->run[r].kind == kind && !strcmp(L->run[r].bot[k], bot);
    return n;
}

static int remote_running(const league *L)
{
    for (int r = 0; r < L->n_run; r++)
        if (L->run[r].remote)
            return 1;
    return 0;
}

/* A validation match for the first version that needs one. */
static int next_validation(league *L, lineup *u)
{
    for (int i = 0; i < L->es.n; i++) {
        const maat_entry *e = &L->es.e[i];
        if (!e->present || !e->n_ver)
            continue;
        const maat_version *ver = &e->ver[e->n_ver - 1];
        vinfo *v = vinfo_get(L, ver->bot);
        if (!v || v->state != V_VALIDATING)
            continue;
        int need = (validation_needed(L) - v->clean + gpm(L) - 1) / gpm(L);
        if (running_with(L, ver->bot, KIND_VALIDATION) >= need)
            continue;
        if (!ver->command && (remote_running(L) || v->absent_until > now_s()))
            continue;
        memset(u, 0, sizeof *u);
        u->kind = KIND_VALIDATION;
        u->seats = L->c.seats;
        u->remote = !ver->command;
        u->ver[0] = ver;
        snprintf(u->name[0], sizeof u->name[0], "%s", ver->bot);
        for (int k = 1; k < u->seats; k++)
            snprintf(u->name[k], sizeof u->name[k], k == 1 ? "reference"
                     : "reference-%d", k);
        return 1;
    }
    return 0;
}

/* A ranked match chosen by matchmaking.h among the ranked versions. */
static int next_ranked(league *L, lineup *u)
{
    const maat_version *ver[512];
    int n = 0, remote_busy = remote_running(L);
    for (int i = 0; i < L->es.n && n < 512; i++) {
        const maat_entry *e = &L->es.e[i];
        for (int k = 0; k < e->n_ver && n < 512; k++) {
            vinfo *v = vinfo_get(L, e->ver[k].bot);
            if (v && v->state == V_RANKED)
                ver[n++] = &e->ver[k];
        }
    }
    if (n < L->c.seats)
        return 0;
    maat_mm_entry *me = calloc((size_t)n, sizeof *me);
    int *row = calloc((size_t)n, sizeof *row);
    int *met = calloc((size_t)n * (size_t)n, sizeof *met);
    int (*running)[MAAT_MAX_SEATS] = calloc(MAX_JOBS, sizeof *running);
    int found = 0, n_running = 0, pick[MAAT_MAX_SEATS];
    if (!me || !row || !met || !running)
        goto out;
    maat_rating_params p;
    maat_rating_params_default(&p);
    const maat_tally *t = &L->ranked;
    for (int i = 0; i < n; i++)
        row[i] = maat_tally_find(t, ver[i]->bot, L->c.game);
    for (int i = 0; i < n; i++) {
        vinfo *v = vinfo_get(L, ver[i]->bot);
        maat_rating r = row[i] >= 0 ? t->s.rows[row[i]].rating
                                    : maat_rating_new(&p);
        me[i].mu = r.mu;
        me[i].sigma = r.sigma;
        me[i].games = row[i] >= 0 ? t->s.rows[row[i]].games : 0;
        me[i].recent = maat_mm_decay(v->recent, (double)(t->games - v->at),
                                     L->c.half_life);
        me[i].busy = !ver[i]->command && (remote_busy ||
                                          v->absent_until > now_s());
        for (int k = 0; k < MAAT_MAX_SEATS; k++) {
            me[i].last[k] = -1;
            if (v && v->last_seats) { /* started in this run */
                for (int j = 0; k < v->last_seats && j < n; j++)
                    if (!strcmp(ver[j]->bot, v->last_started[k]))
                        me[i].last[k] = j;
                if (k < v->last_seats && me[i].last[k] < 0)
                    me[i].last[k] = -2; /* a bot no longer ranked */
                continue;
            }
            int r2 = row[i] >= 0 ? t->last[row[i]][k] : -1;
            for (int j = 0; r2 >= 0 && j < n; j++)
                if (row[j] == r2)
                    me[i].last[k] = j;
            if (r2 >= 0 && me[i].last[k] < 0)
                me[i].last[k] = -2; /* a bot no longer ranked */
        }
        for (int j = 0; j < n; j++)
            met[i * n + j] = row[i] >= 0 && row[j] >= 0 && i != j
                                 ? maat_tally_pair_of(t, row[i], row[j])->games
                                 : 0;
    }
    for (int r = 0; r < L->n_run; r++) { /* the running ones count */
        if (L->run[r].kind != KIND_RANKED)
            continue;
        int *lu = running[n_running++];
        for (int k = 0; k < MAAT_MAX_SEATS; k++) {
            lu[k] = -1;
            for (int j = 0; k < L->run[r].seats && j < n; j++)
                if (!strcmp(ver[j]->bot, L->run[r].bot[k]))
                    lu[k] = j;
            if (k < L->run[r].seats && lu[k] < 0)
                lu[k] = -2;
        }
        for (int k = 0; k < L->run[r].seats; k++) {
            if (lu[k] < 0)
                continue;
            me[lu[k]].games += gpm(L);
            me[lu[k]].recent += gpm(L);
            for (int q = 0; q < L->run[r].seats; q++)
                if (q != k && lu[q] >= 0)
                    met[lu[k] * n + lu[q]] += gpm(L);
        }
    }
    maat_matchmaker m = {.n = n, .e = me, .met = met, .seats = L->c.seats,
                         .running = (const int (*)[MAAT_MAX_SEATS])running,
                         .n_running = n_running, .p = p};
    if (maat_matchmake(&m, pick) == 0) {
        memset(u, 0, sizeof *u);
        u->kind = KIND_RANKED;
        u->seats = L->c.seats;
        for (int k = 0; k < u->seats; k++) {
            u->ver[k] = ver[pick[k]];
            u->remote |= !ver[pick[k]]->command;
            snprintf(u->name[k], sizeof u->name[k], "%s", ver[pick[k]]->bot);
        }
        found = 1;
    }
out:
    free(me);
    free(row);
    free(met);
    free(running);
    return found;
}

static int max_reached(const league *L)
{
    return L->o.max_matches > 0 && L->started_ranked >= L->o.max_matches;
}

static void schedule(league *L)
{
    int jobs = L->o.jobs > 0 ? L->o.jobs : L->c.jobs;
    lineup u;
    while (!L->stopping && !max_reached(L) && L->n_run < jobs) {
        if (now_s() < L->pause_until)
            break; /* matches kept failing: a pause */
        if (next_validation(L, &u)) {
            if (start_match(L, &u))
                break;
            continue;
        }
        if (!next_ranked(L, &u)) {
            int ranked = 0;
            for (int i = 0; i < L->n_vi; i++)
                ranked += L->vi[i].state == V_RANKED;
            if (!L->n_run && !L->idle_said++)
                fprintf(stderr, "maat-ladder league: waiting: %d ranked "
                        "entr%s, a match needs %d (add entries to %s/entries"
                        ")\n", ranked, ranked == 1 ? "y" : "ies",
                        L->c.seats, L->dir);
            break;
        }
        L->idle_said = 0;
        if (start_match(L, &u))
            break;
        L->started_ranked++;
        for (int k = 0; k < u.seats; k++) { /* each member's last lineup */
            vinfo *v = vinfo_get(L, u.name[k]);
            if (!v)
                continue;
            for (int q = 0; q < u.seats; q++)
                snprintf(v->last_started[q], sizeof v->last_started[q], "%s",
                         u.name[q]);
            v->last_seats = u.seats;
        }
    }
}

/* ---- matches ending ----------------------------------------------------- */

/* Match r is over.  One that failed (`how`; NULL: it did not) is
 * reported; a validation match that could not be held fails its version
 * (its bot is the one new thing in it), and ranked matches that keep
 * failing make the league wait 2, 4, 8 ... up to 300 seconds before the
 * next match, so a broken referee or endpoint does not spin.  `machine`:
 * the machine failed, not the match's bots (the referee's exit 5: a
 * sandbox could not be made; a queued match given up): then no version
 * fails, and the league pauses whatever the match's kind. */
static void finished(league *L, int r, const char *how, int machine)
{
    match *m = &L->run[r];
    if (how) {
        event(L, "match failed", NULL, 0, NULL, how, m->id, NULL);
        vinfo *v = m->kind == KIND_VALIDATION && !machine
                       ? vinfo_get(L, m->bot[0]) : NULL;
        if (v && !v->failed) {
            v->failed = 1;
            snprintf(v->why, sizeof v->why, "its validation match could "
                     "not be held: %s (the referee's message is on the "
                     "league's stderr)", how);
            snprintf(v->game, sizeof v->game, "%s", m->id);
            v->log[0] = 0;
        }
        if (m->kind == KIND_RANKED || machine) {
            L->failures++;
            L->pause_until = now_s() + fmin(300, exp2(L->failures));
        }
    } else if (m->kind == KIND_RANKED) {
        L->failures = 0;
    }
    L->run[r] = L->run[--L->n_run];
}

static void reap(league *L)
{
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
        for (int r = 0; r < L->n_run; r++)
            if (L->run[r].pid == pid) {
                int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
                char how[160];
                snprintf(how, sizeof how, "the referee exited with %d%s",
                         code, code == 2 ? " (a usage error: check the "
                         "config's referee_args and the entry's command)"
                         : code == 5 ? " (the machine failed, not a bot: a "
                         "sandbox could not be made)"
                         : code == 126 || code == 127 ? " (it could not be "
                         "run: check league.json's referee; not a bot's "
                         "failure)" : "");
                /* neither the machine's failure nor the organiser's
                 * referee that cannot run is a bot's */
                finished(L, r, code ? how : NULL,
                         code == 5 || code == 126 || code == 127);
                break;
            }
}

/* Rewrite a shard line's absolute record and log paths under DIR to paths
 * relative to DIR, as a referee writing DIR's ladder would have. */
static void relative_paths(league *L, json_t *line)
{
    size_t n = strlen(L->abs);
    json_t *rec = json_object_get(line, "record");
    json_t *logs = json_object_get(line, "logs");
    const char *s = json_string_value(rec);
    if (s && !strncmp(s, L->abs, n) && s[n] == '/')
        json_object_set_new(line, "record", json_string(s + n + 1));
    size_t i;
    json_t *v;
    json_array_foreach(logs, i, v) {
        s = json_string_value(v);
        if (s && !strncmp(s, L->abs, n) && s[n] == '/')
            json_array_set_new(logs, i, json_string(s + n + 1));
    }
}

/* Queue mode: merge every finished shard into its ladder (the league is
 * the only writer of its ladders), and give up matches gone too long. */
static void collect_shards(league *L)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/shards", L->dir);
    for (int r = L->n_run - 1; r >= 0; r--) {
        match *m = &L->run[r];
        if (m->pid)
            continue;
        char shard[4400], job[4400];
        snprintf(shard, sizeof shard, "%s/%s.jsonl", dir, m->id);
        snprintf(job, sizeof job, "%s/%s.job", dir, m->id);
        if (access(shard, F_OK) != 0) {
            if (now_s() - m->started > L->c.dispatch_timeout) {
                /* the queue's machines failed it: a bot cannot hold a
                 * match past its clocks, so no version fails for it */
                unlink(job);
                finished(L, r, "no result came back from the queue in time "
                         "(dispatch_timeout)", 1);
            }
            continue;
        }
        const char *ladder = m->kind == KIND_RANKED ? L->ranked_path
                                                    : L->valid_path;
        FILE *f = fopen(shard, "r");
        char *text = NULL;
        size_t cap = 0;
        ssize_t len;
        int games = 0;
        while (f && (len = getline(&text, &cap, f)) > 0) {
            json_t *j = json_loadb(text, (size_t)len, 0, NULL);
            maat_ladder_game g;
            const char *why;
            if (!j || maat_ladder_parse(j, &g, &why) ||
                strncmp(g.id, m->id, strlen(m->id)) ||
                g.id[strlen(m->id)] != '-') {
                json_decref(j);
                continue; /* not this match's: never merged */
            }
            relative_paths(L, j);
            char *line = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
            maat_error err = {0};
            if (line && maat_jsonl_append(ladder, line, strlen(line), &err))
                fprintf(stderr, "maat-ladder league: %s\n", err.msg);
            games += line != NULL;
            free(line);
            json_decref(j);
        }
        free(text);
        if (f)
            fclose(f);
        unlink(shard);
        unlink(job);
        /* the referee's exit status, when the queued command wrote it */
        char status[4400];
        snprintf(status, sizeof status, "%s/%s.exit", dir, m->id);
        FILE *sf = fopen(status, "r");
        int code = -1;
        if (!sf || fscanf(sf, "%d", &code) != 1)
            code = -1;
        if (sf)
            fclose(sf);
        unlink(status);
        char how[160];
        snprintf(how, sizeof how, "its shard came back with %d of %d games%s",
                 games, gpm(L), code == 5 ? " (the referee exited with 5: "
                 "the machine failed, not a bot)" : "");
        finished(L, r, games < gpm(L) ? how : NULL, code == 5);
    }
}

/* Queue mode, at start: the matches still out on other machines. */
static void load_jobs(league *L)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/shards", L->dir);
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d)) && L->n_run < MAX_JOBS) {
        size_t n = strlen(de->d_name);
        if (n < 5 || strcmp(de->d_name + n - 4, ".job") ||
            match_number(de->d_name) < 0 || n - 4 >= sizeof L->run[0].id)
            continue;
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        FILE *f = fopen(path, "r");
        match *m = &L->run[L->n_run];
        struct stat st;
        memset(m, 0, sizeof *m);
        snprintf(m->id, sizeof m->id, "%.*s", (int)(n - 4), de->d_name);
        m->started = f && fstat(fileno(f), &st) == 0 ? (double)st.st_mtime
                                                     : now_s();
        if (f && fscanf(f, "%d", &m->kind) == 1)
            while (m->seats < MAAT_MAX_SEATS &&
                   fscanf(f, "%63s", m->bot[m->seats]) == 1)
                m->seats++;
        if (f)
            fclose(f);
        L->n_run++;
    }
    if (d)
        closedir(d);
}

/* ---- the loop ----------------------------------------------------------- */

static int lock_dir(const char *dir, maat_error *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/state/lock", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return maat_error_set(err, MAAT_EIO, "%s: %s", path, strerror(errno)),
               -1;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        char pid[32] = "";
        ssize_t n = read(fd, pid, sizeof pid - 1);
        pid[n > 0 ? n : 0] = 0;
        maat_error_set(err, MAAT_EINVAL, "another league runs in %s "
                       "(pid %s): one process per league directory", dir,
                       strtok(pid, "\n") ? pid : "?");
        close(fd);
        return -1;
    }
    char pid[32];
    snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    if (ftruncate(fd, 0) != 0 || write(fd, pid, strlen(pid)) < 0) {
        /* the lock is what matters; the pid is for the message */
    }
    return fd;
}

static void stop_all(league *L)
{
    for (int r = 0; r < L->n_run; r++)
        if (L->run[r].pid > 0)
            kill(L->run[r].pid, SIGTERM);
    for (int r = 0; r < L->n_run; r++)
        if (L->run[r].pid > 0)
            while (waitpid(L->run[r].pid, NULL, 0) < 0 && errno == EINTR) {
            }
    L->n_run = 0;
}

static int league_init(league *L, const char *dir, const maat_league_options *o,
                       maat_error *err)
{
    memset(L, 0, sizeof *L);
    L->dir = dir;
    L->o = *o;
    int rc = maat_league_config_load(&L->c, dir, err);
    if (rc)
        return rc;
    if (!L->c.referee)
        L->c.referee = maat_sibling("referee", "maat-referee");
    if (!L->c.replay)
        L->c.replay = maat_sibling("replay", "maat-replay");
    L->abs = realpath(dir, NULL);
    L->cwd = getcwd(NULL, 0);
    if (!L->abs || !L->cwd || !L->c.referee || !L->c.replay)
        return maat_error_set(err, MAAT_EIO, "%s: %s", dir, strerror(errno));
    /* the organiser's programs checked now: a referee that cannot be run
     * would otherwise fail every new version's validation match, charged
     * to the entries */
    const char *progs[2][2] = {{"referee", L->c.referee},
                               {"replay", L->c.replays ? L->c.replay : NULL}};
    for (int i = 0; i < 2; i++)
        if (progs[i][1] && access(progs[i][1], X_OK) != 0)
            return maat_error_set(err, MAAT_EINVAL, "%s/league.json: field "
                                  "'%s': %s cannot be run: %s", dir,
                                  progs[i][0], progs[i][1], strerror(errno));
    if ((rc = maat_league_make_folders(dir, err)) ||
        (rc = maat_league_key(dir, &L->key, err)))
        return rc;
    maat_tally_init(&L->ranked, L->c.game);
    snprintf(L->ranked_path, sizeof L->ranked_path, "%s/ladder.jsonl", dir);
    snprintf(L->valid_path, sizeof L->valid_path, "%s/validation.jsonl", dir);
    L->rc_cur.path = L->ranked_path;
    L->vc_cur.path = L->valid_path;
    if ((rc = maat_entries_load(&L->es, dir, err)))
        return rc;
    L->refused_last = json_object();
    load_events(L);
    L->starting = 1;
    rc = maat_entries_scan(&L->es, on_entry, L, err);
    L->starting = 0;
    if (rc)
        return rc;
    L->loading = 1;
    rc = follow(L, err);
    update_states(L);
    L->loading = 0;
    load_counter(L);
    if (L->c.queue)
        load_jobs(L);
    if (!rc && L->c.endpoint) /* entrants need its public key at once */
        rc = curve_ready(L, err);
    /* once, not in every referee; a bubblewrap that stops working later
     * makes the referees exit 5 (no result, a pause, the match again), not
     * play unsandboxed */
    L->sandbox_checked = maat_referee_sandbox_check(
        "maat-ladder league", L->c.referee_args, L->c.n_referee_args);
    maat_referee_task_cap_check("maat-ladder league", L->c.referee_args,
                                L->c.n_referee_args);
    return rc;
}

static void league_free(league *L)
{
    maat_league_config_free(&L->c);
    maat_entries_free(&L->es);
    maat_tally_free(&L->ranked);
    for (int i = 0; i < L->n_events; i++)
        free(L->events[i]);
    free(L->vi);
    free(L->abs);
    free(L->cwd);
    json_decref(L->refused_last);
}

int maat_league_run(const char *dir, const maat_league_options *o,
                    maat_error *err)
{
    char lockpath[4200];
    snprintf(lockpath, sizeof lockpath, "%s/state", dir);
    if (access(dir, F_OK) != 0)
        return maat_error_set(err, MAAT_EINVAL, "%s: no such directory "
                              "(maat-ladder league new %s makes one)", dir,
                              dir);
    if (mkdir(lockpath, 0700) != 0 && errno != EEXIST)
        return maat_error_set(err, MAAT_EIO, "cannot make %s: %s", lockpath,
                              strerror(errno));
    int lock = lock_dir(dir, err);
    if (lock < 0)
        return err->code;
    league *L = malloc(sizeof *L);
    if (!L) {
        close(lock);
        return maat_error_set(err, MAAT_ENOMEM, "out of memory");
    }
    sigset_t mask, old;
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGHUP);
    sigprocmask(SIG_BLOCK, &mask, &old);
    int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    int ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    int rc = league_init(L, dir, o, err);
    if (rc)
        goto out;
    char path[4200];
    snprintf(path, sizeof path, "%s/entries", dir);
    inotify_add_watch(ifd, path, IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM |
                                     IN_CLOSE_WRITE | IN_DELETE);
    inotify_add_watch(ifd, dir, IN_MODIFY | IN_CREATE);
    snprintf(path, sizeof path, "%s/shards", dir);
    inotify_add_watch(ifd, path, IN_MOVED_TO | IN_CREATE);
    int ranked = 0;
    for (int i = 0; i < L->n_vi; i++)
        ranked += L->vi[i].state == V_RANKED;
    fprintf(stderr, "maat-ladder league: %s: %s, %d seats, %d entr%s (%d "
            "ranked), %llu ranked games so far; the page: %s/site/index.html\n",
            dir, L->c.game, L->c.seats, L->es.n, L->es.n == 1 ? "y" : "ies",
            ranked, (unsigned long long)L->ranked.games, dir);
    write_page(L);
    int signals = 0;
    while (!rc) {
        reap(L);
        if (L->c.queue)
            collect_shards(L);
        if ((rc = follow(L, err)) ||
            (rc = maat_entries_scan(&L->es, on_entry, L, err)))
            break;
        update_states(L);
        schedule(L);
        if (L->dirty)
            write_page(L);
        if ((L->stopping || max_reached(L)) && !L->n_run)
            break;
        struct pollfd pf[2] = {{sfd, POLLIN, 0}, {ifd, POLLIN, 0}};
        if (poll(pf, 2, 1000) < 0 && errno != EINTR) {
            rc = maat_error_set(err, MAAT_EIO, "poll: %s", strerror(errno));
            break;
        }
        char buf[4096];
        while (read(ifd, buf, sizeof buf) > 0) {
        }
        struct signalfd_siginfo si;
        while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
            if (si.ssi_signo == SIGCHLD)
                continue;
            signals++;
            if (signals == 1) {
                L->stopping = 1;
                if (L->n_run)
                    fprintf(stderr, "maat-ladder league: stopping: waiting "
                            "for %d running match%s (signal again to stop "
                            "them now)\n", L->n_run, L->n_run == 1 ? "" :
                            "es");
            } else {
                stop_all(L);
                rc = maat_error_set(err, MAAT_ESTATE, "stopped; the running "
                                    "matches were cut short and left no "
                                    "result");
            }
        }
    }
    if (rc && rc != MAAT_ESTATE)
        stop_all(L);
    if (!rc || rc == MAAT_ESTATE) {
        maat_error e2 = {0};
        follow(L, &e2);
        update_states(L);
        write_page(L);
    }
out:
    league_free(L);
    free(L);
    if (sfd >= 0)
        close(sfd);
    if (ifd >= 0)
        close(ifd);
    sigprocmask(SIG_SETMASK, &old, NULL);
    close(lock);
    return rc;
}
