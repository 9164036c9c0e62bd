/* chance.c -- a Pyramids bot that attacks the deal, for the hostile suite
 * (tests/test_hostile_chance.py).  It plays random legal moves; what it
 * tries is written, one line per game, to REPORT (appended).
 *
 *   maat-chance-bot crack N REPORT
 *       At its first request of each game, tries every short seed 0..N-1
 *       (docs/RNG.md: the deal is a public function of the seed) and looks
 *       for one whose round-1 quarry is the one on the table -- the attack
 *       of issue 15 that found a small seed in 0.03 s.  Writes
 *       "crack found S" or "crack none", after what else it could read:
 *       "parent-cmdline ..." (the referee's command line) and
 *       "environ ..." (its own environment).
 *
 *   maat-chance-bot remember REPORT [MEMO]
 *       Remembers every quarry it sees, in memory and (with MEMO) in that
 *       file, as a bot playing a duplicate series would, to know the deck
 *       of the next game of the same deal.  At the first request of each
 *       game it looks for an earlier game with the same round-1 quarry --
 *       in memory and in MEMO -- and if it finds one, predicts round 2's
 *       quarry from it; at round 2 it checks.  Writes
 *       "remember game G pid P memory M file F predicted-ok K"
 *       (M, F: 1 if that memory held the deal; K: 1 if the prediction of
 *       round 2 came true, 0 if wrong, - if it could not predict).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maat/bot.h"
#include "maat/internal/pyramids.h"

#define MAX_GAMES 16
#define QUARRY (2 * MAAT_PYR_MAX_SEATS)

typedef struct deal_memory {
    int n;
    int round1[MAX_GAMES][QUARRY], round2[MAX_GAMES][QUARRY];
} deal_memory;

typedef struct chance {
    const char *mode, *report, *memo;
    unsigned long crack_n;
    int last_round, game;
    int predicting;       /* index of the remembered game, or -1 */
    int from_memory, from_file;
    int predicted[QUARRY];
    deal_memory mem;      /* in this process */
} chance;

/* The round's quarry, 2 * seats card ids (taken pairs are -1). */
static void quarry_of(const maat_pyr_state *st, int *out)
{
    for (int i = 0; i < QUARRY; i++)
        out[i] = i < 2 * st->seats ? st->quarry[i / 2][i % 2] : -1;
}

static void report(const chance *c, const char *line)
{
    if (!strcmp(c->report, "-")) { /* into the bot's log (--log-dir) */
        fputs(line, stdout);
        fflush(stdout);
        return;
    }
    FILE *f = fopen(c->report, "a");
    if (!f)
        return;
    fputs(line, f);
    fclose(f);
}

/* What a bot can read about its own start: its parent's (the referee's)
 * command line and its own environment, NULs as spaces. */
static void report_proc(const chance *c, const char *what, const char *path)
{
    char buf[16384], line[16500];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    for (size_t i = 0; i < n; i++)
        if (buf[i] == 0 || buf[i] == '\n')
            buf[i] = ' ';
    buf[n] = 0;
    snprintf(line, sizeof line, "%s %s\n", what, buf);
    report(c, line);
}

static void crack(chance *c, const maat_bot_turn *t, const maat_pyr_state *st)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)getppid());
    report_proc(c, "parent-cmdline", path);
    report_proc(c, "environ", "/proc/self/environ");
    int want[QUARRY];
    quarry_of(st, want);
    for (unsigned long s = 0; s < c->crack_n; s++) {
        maat_seed seed;
        maat_seed_from_u64(&seed, s);
        maat_game *g = t->rules->game_new(t->setup, &seed, st->seats, NULL,
                                          NULL);
        if (!g)
            continue;
        int got[QUARRY];
        quarry_of(maat_pyr_state_of(g), got);
        t->rules->destroy(&g);
        if (!memcmp(got, want, sizeof got)) {
            char line[64];
            snprintf(line, sizeof line, "crack found %lu\n", s);
            report(c, line);
            return;
        }
    }
    report(c, "crack none\n");
}

static int find(const deal_memory *m, const int *round1)
{
    for (int g = 0; g < m->n; g++)
        if (!memcmp(m->round1[g], round1, sizeof m->round1[g]))
            return g;
    return -1;
}

/* The memo file: what earlier processes remembered (one deal_memory). */
static void memo_load(const chance *c, deal_memory *m)
{
    memset(m, 0, sizeof *m);
    FILE *f = c->memo ? fopen(c->memo, "rb") : NULL;
    if (f) {
        if (fread(m, sizeof *m, 1, f) != 1 || m->n < 0 || m->n > MAX_GAMES)
            memset(m, 0, sizeof *m);
        fclose(f);
    }
}

static void memo_save(const chance *c, const deal_memory *m)
{
    FILE *f = c->memo ? fopen(c->memo, "wb") : NULL;
    if (f) {
        fwrite(m, sizeof *m, 1, f);
        fclose(f);
    }
}

static void remember_new_game(chance *c, const maat_pyr_state *st)
{
    int round1[QUARRY];
    quarry_of(st, round1);
    deal_memory file;
    memo_load(c, &file);
    int in_mem = find(&c->mem, round1), in_file = find(&file, round1);
    c->from_memory = in_mem >= 0;
    c->from_file = in_file >= 0;
    c->predicting = -1;
    if (in_mem >= 0)
        memcpy(c->predicted, c->mem.round2[in_mem], sizeof c->predicted);
    else if (in_file >= 0)
        memcpy(c->predicted, file.round2[in_file], sizeof c->predicted);
    if (in_mem >= 0 || in_file >= 0)
        c->predicting = 1;
    /* remember this game's deal (round 2 is filled in when it comes) */
    if (c->mem.n < MAX_GAMES) {
        memcpy(c->mem.round1[c->mem.n], round1, sizeof round1);
        memset(c->mem.round2[c->mem.n], -1, sizeof c->mem.round2[0]);
        c->mem.n++;
    }
}

static void remember_round2(chance *c, const maat_pyr_state *st)
{
    int round2[QUARRY];
    quarry_of(st, round2);
    memcpy(c->mem.round2[c->mem.n - 1], round2, sizeof round2);
    deal_memory file;
    memo_load(c, &file);
    if (file.n < MAX_GAMES) {
        memcpy(file.round1[file.n], c->mem.round1[c->mem.n - 1],
               sizeof file.round1[0]);
        memcpy(file.round2[file.n], round2, sizeof round2);
        file.n++;
        memo_save(c, &file);
    }
    char line[160];
    snprintf(line, sizeof line, "remember game %d pid %ld memory %d file %d "
             "predicted-ok %s\n", c->game, (long)getpid(), c->from_memory,
             c->from_file,
             c->predicting < 0 ? "-"
             : !memcmp(c->predicted, round2, sizeof round2) ? "1" : "0");
    report(c, line);
}

static int act(maat_bot_turn *t, void *user)
{
    chance *c = user;
    maat_pyr_state st;
    maat_error err = {0};
    t->action = t->legal[maat_rng_below(&t->rng, (uint32_t)t->n_legal)];
    if (strcmp(t->rules->name, "pyramids") ||
        maat_pyr_observation_decode(t->observation, &st, &err) != MAAT_OK)
        return MAAT_OK;
    /* a new game: the round went back (or this is the first request) */
    if (st.round < c->last_round || c->last_round == 0) {
        c->game++;
        c->last_round = st.round;
        if (!strcmp(c->mode, "crack"))
            crack(c, t, &st);
        else
            remember_new_game(c, &st);
    } else if (st.round == 2 && c->last_round == 1 &&
               !strcmp(c->mode, "remember")) {
        c->last_round = 2;
        remember_round2(c, &st);
    }
    if (st.round > c->last_round)
        c->last_round = st.round;
    return MAAT_OK;
}

int main(int argc, char **argv)
{
    chance c;
    memset(&c, 0, sizeof c);
    c.game = -1;
    int ok = argc >= 3 && (!strcmp(argv[1], "crack") ? argc == 4
                           : !strcmp(argv[1], "remember") ? argc <= 4 : 0);
    if (!ok) {
        fprintf(stderr, "usage: maat-chance-bot crack N REPORT | remember "
                        "REPORT [MEMO]\n");
        return 2;
    }
    c.mode = argv[1];
    if (!strcmp(c.mode, "crack")) {
        c.crack_n = strtoul(argv[2], NULL, 10);
        c.report = argv[3];
    } else {
        c.report = argv[2];
        c.memo = argc == 4 ? argv[3] : NULL;
    }
    /* it reads t->observation in every request: protocol version 1 */
    char *args[] = {argv[0], "--full-observation", NULL};
    return maat_bot_main("chance", act, &c, 2, args);
}
