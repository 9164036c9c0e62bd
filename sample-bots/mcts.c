/* mcts.c -- a search bot: single-observer information-set MCTS.
 *
 * We cannot see the other hands, so each iteration first samples a full
 * state consistent with what our seat has seen (maat_bot_sample), then runs
 * one UCT iteration on it: descend the tree by UCB1 among the children that
 * are legal in this sample, add one new child, finish the game with random
 * moves, and credit every node with the result for the seat that moved into
 * it.  Nodes are keyed by action, so statistics from different samples
 * share one tree; "availability" counts make UCB fair to actions that are
 * only sometimes legal (Cowling, Powley & Whitehouse 2012).
 *
 * The result of a game for a seat: the fraction of opponents it beats (a
 * tie counts half), so the bot plays for rank in multiplayer games.
 *
 * Time: a fraction of the time left on the clock (--fraction, default 0.3),
 * or a fixed --budget-ms per decision; never more than the time left.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "maat/bot.h"
#include "maat/policy.h"

typedef struct node {
    maat_action action; /* the move into this node */
    int seat;           /* who made it */
    int parent, first_child, next_sibling;
    double reward; /* sum of results for `seat` */
    int visits, avail;
} node;

typedef struct search {
    node *nodes;
    int n, cap;
    double c; /* exploration constant */
} search;

typedef struct config {
    int64_t budget_ms; /* fixed budget, 0 = use the fraction */
    double fraction;
    int max_iterations; /* 0 = none; for reproducible tests */
} config;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int same_action(const maat_action *a, const maat_action *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

static int new_node(search *s, int parent, const maat_action *a, int seat)
{
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 4096;
        node *nodes = realloc(s->nodes, sizeof *nodes * (size_t)cap);
        if (!nodes)
            return -1;
        s->nodes = nodes;
        s->cap = cap;
    }
    node *x = &s->nodes[s->n];
    memset(x, 0, sizeof *x);
    if (a)
        x->action = *a;
    x->seat = seat;
    x->parent = parent;
    x->first_child = x->next_sibling = -1;
    if (parent >= 0) {
        x->next_sibling = s->nodes[parent].first_child;
        s->nodes[parent].first_child = s->n;
    }
    return s->n++;
}

static int find_child(const search *s, int parent, const maat_action *a)
{
    for (int c = s->nodes[parent].first_child; c >= 0;
         c = s->nodes[c].next_sibling)
        if (same_action(&s->nodes[c].action, a))
            return c;
    return -1;
}

/* Each seat's result: the share of opponents it beats, ties half. */
static void results(const maat_rules *r, const maat_game *g, double *out)
{
    maat_score sc[MAAT_MAX_SEATS];
    r->scores(g, sc);
    int n = r->seats(g);
    for (int i = 0; i < n; i++) {
        double beat = 0;
        for (int j = 0; j < n; j++)
            if (j != i)
                beat += sc[i].total > sc[j].total ? 1.0
                        : sc[i].total == sc[j].total ? 0.5 : 0.0;
        out[i] = beat / (n - 1);
    }
}

/* One iteration on the sampled state g (consumed). */
static void iterate(search *s, const maat_rules *r, maat_game *g,
                    maat_rng *rng)
{
    maat_action acts[512];
    int cur = 0;
    /* selection and expansion */
    while (!r->is_over(g)) {
        int n = r->legal_actions(g, acts, 512);
        if (n > 512)
            n = 512;
        if (n == 0)
            break; /* an impossible state: never loop on it */
        int seat = r->decision(g).seat, best = -1, untried = 0;
        double best_ucb = -1;
        for (int i = 0; i < n; i++) {
            int c = find_child(s, cur, &acts[i]);
            if (c < 0) {
                untried++;
                continue;
            }
            node *x = &s->nodes[c];
            x->avail++;
            double ucb = x->reward / x->visits +
                         s->c * sqrt(log((double)x->avail) / x->visits);
            if (ucb > best_ucb) {
                best_ucb = ucb;
                best = c;
            }
        }
        if (untried) {
            int k = (int)maat_rng_below(rng, (uint32_t)untried);
            for (int i = 0; i < n; i++)
                if (find_child(s, cur, &acts[i]) < 0 && k-- == 0) {
                    int c = new_node(s, cur, &acts[i], seat);
                    if (c < 0)
                        goto rollout;
                    s->nodes[c].avail = 1;
                    r->apply(g, &acts[i], NULL, NULL);
                    cur = c;
                    goto rollout;
                }
        }
        if (best < 0 || r->apply(g, &s->nodes[best].action, NULL, NULL))
            break;
        cur = best;
    }
rollout:
    while (!r->is_over(g)) {
        maat_action a;
        if (maat_policy_random(r, g, rng, &a) || r->apply(g, &a, NULL, NULL))
            break; /* a state with no playable move: score it as it is */
    }
    double res[MAAT_MAX_SEATS];
    results(r, g, res);
    for (int x = cur; x > 0; x = s->nodes[x].parent) {
        s->nodes[x].visits++;
        s->nodes[x].reward += res[s->nodes[x].seat];
    }
    s->nodes[0].visits++;
}

static int act(maat_bot_turn *t, void *user)
{
    const config *cfg = user;
    if (t->n_legal == 1) {
        t->action = t->legal[0];
        return MAAT_OK;
    }
    double budget = cfg->budget_ms ? (double)cfg->budget_ms
                                   : cfg->fraction * (double)t->time_left_ms;
    if (budget > 0.8 * (double)t->time_left_ms)
        budget = 0.8 * (double)t->time_left_ms;
    double deadline = now_ms() + budget;
    search s = {NULL, 0, 0, 0.7};
    new_node(&s, -1, NULL, -1);
    int iterations = 0;
    do {
        maat_game *g = maat_bot_sample(t);
        if (!g)
            break;
        iterate(&s, t->rules, g, &t->rng);
        t->rules->destroy(&g);
        iterations++;
    } while ((cfg->max_iterations == 0 || iterations < cfg->max_iterations) &&
             (cfg->max_iterations || now_ms() < deadline));
    /* the most visited legal move */
    int best = -1;
    for (int c = s.nodes[0].first_child; c >= 0; c = s.nodes[c].next_sibling)
        if (best < 0 || s.nodes[c].visits > s.nodes[best].visits)
            best = c;
    t->action = best >= 0 ? s.nodes[best].action : t->legal[0];
    free(s.nodes);
    return MAAT_OK;
}

int main(int argc, char **argv)
{
    config cfg = {0, 0.3, 0};
    maat_bot_options opt;
    memset(&opt, 0, sizeof opt);
    opt.name = getenv("MAAT_BOT_NAME") ? getenv("MAAT_BOT_NAME") : "mcts";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: maat-mcts [--budget-ms MS | --fraction F] "
                   "[--iterations N] [--verbose]\n"
                   "Information-set MCTS.  Thinks for F (default 0.3) of the "
                   "time left per decision,\nor a fixed MS, or a fixed number "
                   "of iterations (reproducible).\n");
            return 0;
        } else if (!strcmp(a, "--verbose")) {
            opt.verbose = 1;
        } else if (v && !strcmp(a, "--budget-ms")) {
            cfg.budget_ms = atoll(v), i++;
        } else if (v && !strcmp(a, "--fraction")) {
            cfg.fraction = atof(v), i++;
        } else if (v && !strcmp(a, "--iterations")) {
            cfg.max_iterations = atoi(v), i++;
        } else {
            fprintf(stderr, "maat-mcts: unknown option '%s' (try --help)\n",
                    a);
            return 2;
        }
    }
    if (cfg.fraction <= 0 || cfg.fraction > 1 || cfg.budget_ms < 0 ||
        cfg.max_iterations < 0) {
        fprintf(stderr, "maat-mcts: --fraction wants 0 < F <= 1, budget and "
                        "iterations >= 0\n");
        return 2;
    }
    return maat_bot_run(&opt, act, &cfg);
}
