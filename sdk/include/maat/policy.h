/* policy.h -- the built-in seeded random policy.
 *
 * The referee plays a forfeited seat's remaining decisions with it, and
 * the random sample bot is this policy behind the bot loop.  Uniform over
 * the legal actions, drawn from the caller's maat_rng, so a seeded run is
 * reproducible. */
#ifndef MAAT_POLICY_H
#define MAAT_POLICY_H

#include "maat/game.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Pick a uniformly random legal action; MAAT_ESTATE when the game is over. */
int maat_policy_random(const maat_rules *r, const maat_game *g, maat_rng *rng,
                       maat_action *out);

#ifdef __cplusplus
}
#endif

#endif
