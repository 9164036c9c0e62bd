/* registry.h -- the rules tables of the built-in game modules (private to
 * the SDK library; users reach them through maat_rules_find). */
#ifndef MAAT_GAMES_REGISTRY_H
#define MAAT_GAMES_REGISTRY_H

#include "maat/game.h"

extern const maat_rules maat_pyramids_rules;
extern const maat_rules maat_pyramix_rules;
extern const maat_rules maat_architects_rules;

#endif
