/* policy.c -- the seeded uniform random policy over legal actions. */
#include <stdlib.h>

#include "maat/policy.h"

int maat_policy_random(const maat_rules *r, const maat_game *g, maat_rng *rng,
                       maat_action *out)
{
    maat_action small[256];
    int n = r->legal_actions(g, small, 256);
    if (n <= 0)
        return MAAT_ESTATE;
    uint64_t k = maat_rng_below(rng, (uint32_t)n);
    if (n <= 256) {
        *out = small[k];
        return MAAT_OK;
    }
    maat_action *all = malloc(sizeof *all * (size_t)n);
    if (!all)
        return MAAT_ENOMEM;
    r->legal_actions(g, all, n);
    *out = all[k];
    free(all);
    return MAAT_OK;
}
