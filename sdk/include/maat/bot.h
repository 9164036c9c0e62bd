/* bot.h -- the connection loop for bot authors.
 *
 * A bot is one function that picks an action for a game position (this
 * example is compiled and played by tests/test_doc_examples.py):
 *
 *   #include <maat/bot.h>
 *
 *   static int act(maat_bot_turn *t, void *user)
 *   {
 *       (void)user;
 *       t->action = t->legal[maat_rng_below(&t->rng, (uint32_t)t->n_legal)];
 *       return MAAT_OK;
 *   }
 *
 *   int main(int argc, char **argv)
 *   {
 *       return maat_bot_main("my-bot", act, NULL, argc, argv);
 *   }
 *
 * maat_bot_main reads the endpoint and token from the environment
 * (MAAT_ENDPOINT, MAAT_TOKEN -- the referee sets them for bots it spawns;
 * set them yourself for a remote bot), says hello, and answers every
 * request by calling `act` until the referee says bye.  It never blocks
 * forever: if the referee goes silent for `idle_timeout_ms` it exits with
 * an error on stderr.
 *
 * The turn gives you the decoded request: the legal actions as
 * maat_action values, the time left on your clock, a view of everything
 * your seat has seen this game, and the raw observation (a msgpack map,
 * see docs/PROTOCOL.md) when the request carried one.
 *
 * The loop speaks protocol version 3: the referee sends the observation
 * only in the seat's first request of each game, and the view follows
 * the events after that (the same view, exactly, as the observations
 * would give: tests/test_view_delta.c); nor does it send the legal list,
 * which the loop works out from the view (rules->view_legal_actions: the
 * referee's list, in its order).  So t->observation is NULL in most
 * requests, and t->legal is the same list in every version.  A bot that
 * reads the raw observation sets maat_bot_options.full_observation
 * (maat_bot_main: --full-observation): it then speaks version 1, where
 * every request carries it.  Against an older referee the loop falls
 * back by itself, version by version (3, then 2, then 1).  maat_bot_sample(t) turns the view into a full game
 * state consistent with it (your cards exact, unseen cards dealt at random)
 * that you may copy, apply actions to and score: the forward model of the
 * same rules code the referee runs.
 *
 * No global state: several bots may run in one process, one thread each.
 */
#ifndef MAAT_BOT_H
#define MAAT_BOT_H

#include <stdint.h>

#include "maat/game.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct maat_bot_turn {
    const maat_rules *rules;
    int seat;
    int decision_kind;
    /* the raw observation, valid during the call only; NULL when the
     * request had none (versions 2 and 3, see above) */
    const msgpack_object *observation;
    /* the legal actions, decoded: valid during the call only (the next
     * request reuses the array); copy what you keep */
    const maat_action *legal;
    int n_legal;
    int64_t time_left_ms; /* for this decision, including any bank */
    int64_t bank_ms;
    maat_rng rng;      /* seeded per bot and decision; use freely */
    /* the components the referee announced: valid until maat_bot_run
     * returns (games and samples made from it must not outlive that) */
    const maat_setup *setup;
    /* what this seat has seen this game: valid during the call only (the
     * next request updates it, a new game replaces it); a sampled game
     * (maat_bot_sample) is yours and outlives it */
    const maat_view *view;
    maat_action action; /* write your answer here */
} maat_bot_turn;

/* A full state consistent with the turn's view, drawn with t->rng; the
 * caller destroys it with t->rules->destroy(&g).  NULL on failure (the
 * reason is printed on stderr). */
maat_game *maat_bot_sample(maat_bot_turn *t);

/* Return MAAT_OK after filling t->action; anything else sends no action
 * (the referee will time the seat out). */
typedef int (*maat_bot_act_fn)(maat_bot_turn *t, void *user);

typedef struct maat_bot_options {
    const char *name;       /* sent in hello; default "bot" */
    const char *endpoint;   /* default: $MAAT_ENDPOINT */
    const char *token;      /* default: $MAAT_TOKEN */
    int idle_timeout_ms;    /* default 120000 */
    uint64_t seed;          /* for t->rng; 0: maat_bot_token_seed(token) */
    int verbose;            /* log protocol traffic to stderr */
    int full_observation;   /* speak version 1: every request carries the
                               observation (t->observation never NULL) */
    int protocol;           /* the highest version to offer, 1 to 3;
                               0: 3 (a referee that refuses it is offered
                               the next lower, down to 1) */
} maat_bot_options;

/* Run the loop.  Returns 0 after bye, non-zero (and a message on stderr)
 * on a protocol or connection error. */
int maat_bot_run(const maat_bot_options *opt, maat_bot_act_fn act,
                 void *user);

/* The default seed of t->rng: a 64-bit hash of the whole token, so every
 * match (the referee draws a fresh random token per bot) seeds differently. */
uint64_t maat_bot_token_seed(const char *token);

/* Shorthand: default options with this name; parses --verbose,
 * --full-observation, --protocol N, --help, and refuses anything else (a
 * bot with options of its own: maat_bot_take_options). */
int maat_bot_main(const char *name, maat_bot_act_fn act, void *user,
                  int argc, char **argv);

/* For a bot with options of its own: takes the SDK's options (--verbose,
 * --full-observation, --protocol N) out of argv[1..*argc-1] into *o and
 * leaves every other argument, in order, for the bot to parse (*argc is
 * updated; argv[0] stays).  MAAT_EINVAL naming the option when --protocol
 * has no value of 1 to 3.  MAAT_BOT_OPTIONS_HELP is their --help text. */
int maat_bot_take_options(maat_bot_options *o, int *argc, char **argv,
                          maat_error *err);
#define MAAT_BOT_OPTIONS_HELP                                              \
    "  --verbose            log the protocol's traffic to stderr\n"        \
    "  --full-observation   speak protocol version 1 (every request\n"     \
    "                       carries the observation)\n"                    \
    "  --protocol N         offer protocol version N (1 to 3) at most\n"

#ifdef __cplusplus
}
#endif

#endif
