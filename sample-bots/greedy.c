/* greedy.c -- a one-step heuristic bot, written to be read and improved.
 *
 * For every legal action: sample a few states consistent with what we have
 * seen, apply the action, keep making our own follow-up decisions the same
 * way (e.g. "pair" is followed by our "build"), and score the result as
 * (our provisional score - the best opponent's).  Pick the best average.
 *
 * Ideas to make it stronger: look at what the opponents can take next,
 * value cards kept for later rounds, or search (see mcts.c).
 */
#include <stdlib.h>

#include "maat/bot.h"

#define SAMPLES 3   /* determinizations per decision */
#define FOLLOW_UP 3 /* own decisions in a row we look through */

/* Our score minus the best other score, on the state as it stands. */
static double evaluate(const maat_rules *r, const maat_game *g, int me)
{
    maat_score sc[MAAT_MAX_SEATS];
    r->scores(g, sc);
    int best_other = -1000000;
    for (int s = 0; s < r->seats(g); s++)
        if (s != me && sc[s].total > best_other)
            best_other = sc[s].total;
    return sc[me].total - best_other;
}

/* The value of g for `me` after we greedily make every decision that is
 * still ours (up to `depth` more). */
static double value_after(const maat_rules *r, maat_game *g, int me,
                          int depth)
{
    if (depth == 0 || r->is_over(g) || r->decision(g).seat != me)
        return evaluate(r, g, me);
    maat_action acts[512];
    int n = r->legal_actions(g, acts, 512);
    double best = -1e9;
    for (int i = 0; i < n && i < 512; i++) {
        maat_game *next = r->copy(g);
        r->apply(next, &acts[i], NULL, NULL);
        double v = value_after(r, next, me, depth - 1);
        r->destroy(&next);
        if (v > best)
            best = v;
    }
    return best;
}

static int act(maat_bot_turn *t, void *user)
{
    (void)user;
    const maat_rules *r = t->rules;
    double *total = calloc((size_t)t->n_legal, sizeof *total);
    if (!total)
        return MAAT_ENOMEM;
    for (int k = 0; k < SAMPLES; k++) {
        maat_game *g = maat_bot_sample(t);
        if (!g)
            break;
        for (int i = 0; i < t->n_legal; i++) {
            maat_game *next = r->copy(g);
            if (r->apply(next, &t->legal[i], NULL, NULL) == MAAT_OK)
                total[i] += value_after(r, next, t->seat, FOLLOW_UP);
            r->destroy(&next);
        }
        r->destroy(&g);
    }
    /* the best average; ties broken at random so we are not predictable */
    int best = 0, ties = 1;
    for (int i = 1; i < t->n_legal; i++) {
        if (total[i] > total[best] + 1e-9) {
            best = i;
            ties = 1;
        } else if (total[i] > total[best] - 1e-9 &&
                   maat_rng_below(&t->rng, (uint32_t)++ties) == 0) {
            best = i;
        }
    }
    t->action = t->legal[best];
    free(total);
    return MAAT_OK;
}

int main(int argc, char **argv)
{
    return maat_bot_main("greedy", act, NULL, argc, argv);
}
