/* random.c -- the smallest useful bot: a uniformly random legal action,
 * from the seeded generator the SDK hands every turn. */
#include "maat/bot.h"

static int act(maat_bot_turn *t, void *user)
{
    (void)user;
    t->action = t->legal[maat_rng_below(&t->rng, (uint32_t)t->n_legal)];
    return MAAT_OK;
}

int main(int argc, char **argv)
{
    return maat_bot_main("random", act, NULL, argc, argv);
}
