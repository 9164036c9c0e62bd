/* game.h -- the seam between the referee and a game.
 *
 * A game module is one `maat_rules` table of functions.  The referee, the
 * ladder and the bot SDK drive every game through this table only, so a new
 * game is a new table plus one line in the registry (game.c;
 * docs/ARCHITECTURE.md lists the files of a new game).
 *
 * What a bot uses (the forward model, on a state from maat_bot_sample):
 * copy, destroy, seats, decision, is_over, legal_actions, apply, scores,
 * render (or maat_game_render), and the names: decision_names, event_names,
 * score_parts; and encode_observation, to read a state (a sample, or one
 * played forward) as the observation map the referee sends that seat.
 * The other entries -- setup, wire encoding and decoding, the view -- are
 * the module's side of the seam, called by the SDK's bot loop and the
 * referee; a bot need not touch them.
 *
 * The model: a turn-based game with chance and hidden information.
 *  - All chance is drawn from the game's own PRNG (maat_rng), seeded at
 *    creation; the state carries the PRNG, so copies replay identically.
 *  - At every point exactly one seat owes exactly one decision, or the game
 *    is over.  A decision has a game-specific kind (e.g. "god", "build").
 *  - An action is a small fixed-size value (maat_action); the module defines
 *    what its fields mean and how it looks on the wire (msgpack).
 *  - What a seat may see is the module's business: it encodes a per-seat
 *    observation, and every state change emits events, each tagged with the
 *    set of seats allowed to see it.
 *
 * Ownership and lifetimes:
 *  - maat_setup: the loaded, validated components and options of a game
 *    (e.g. the deck).  Immutable once made; shared read-only by every game
 *    created from it; must outlive them.  Destroy with rules->setup_destroy.
 *  - maat_game: one game state, owned by the caller; destroy with
 *    rules->destroy(&g), which sets g to NULL.  copy() returns an
 *    independent state sharing the same setup.
 *  - No function keeps a pointer to caller memory after it returns, and no
 *    module has global mutable state: any number of games may live in one
 *    process and be used from different threads (one thread per game).
 *  - render writes into a buffer the caller owns (snprintf's contract);
 *    maat_game_render returns a malloc'd string the caller frees.
 *
 * Every entry of the table is required: maat_rules_check names the first
 * one missing, and the registry test runs it on every built-in game.
 */
#ifndef MAAT_GAME_H
#define MAAT_GAME_H

#include <stddef.h>
#include <stdint.h>
#include <msgpack.h>

#include "maat/error.h"
#include "maat/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MAAT_MAX_SEATS 8
#define MAAT_ACTION_ARGS 7
#define MAAT_EVENT_ARGS 6
#define MAAT_MAX_SCORE_PARTS 8
#define MAAT_MAX_OPTIONS 16

/* The seat that sees everything: encode_observation and render given this
 * seat show the hidden information too (hands, tombs, unrevealed pieces,
 * the face-down orders).  For replays and debugging; the referee never
 * sends it to a bot.  Any other seat outside 0..seats-1 sees only what is
 * public. */
#define MAAT_OMNISCIENT (-2)

typedef struct maat_setup maat_setup; /* opaque, per module */
typedef struct maat_game maat_game;   /* opaque, per module */
typedef struct maat_view maat_view;   /* opaque, per module */
/* A game's wire declarations (the SDK's sdk/src/games/wire.h). */
typedef struct maat_wire maat_wire;

/* An action: `kind` is the decision kind it answers; args are per module. */
typedef struct maat_action {
    int32_t kind;
    int32_t arg[MAAT_ACTION_ARGS];
} maat_action;

/* Whose decision it is.  seat is -1 when the game is over. */
typedef struct maat_decision {
    int seat;
    int kind;
} maat_decision;

/* One state change.  visible_to is a bit mask of seats allowed to see it
 * (bit i = seat i); MAAT_ALL_SEATS means public. */
#define MAAT_ALL_SEATS 0xffffffffu
typedef struct maat_event {
    uint32_t visible_to;
    int16_t kind;
    int16_t seat;
    int32_t arg[MAAT_EVENT_ARGS];
} maat_event;

/* A growable list of events, owned by the caller.  Modules append to it. */
typedef struct maat_events {
    maat_event *items;
    size_t count, cap;
} maat_events;

/* Per-seat result: total, the parts it is the sum of (names in
 * rules->score_parts), and the rank (1 = best; tied totals share a rank). */
typedef struct maat_score {
    int total;
    int rank;
    int part[MAAT_MAX_SCORE_PARTS];
} maat_score;

/* Options as key=value strings (e.g. "deck" -> a file path).  A module
 * refuses a key it does not know, naming it. */
typedef struct maat_options {
    int count;
    const char *key[MAAT_MAX_OPTIONS];
    const char *value[MAAT_MAX_OPTIONS];
} maat_options;

typedef struct maat_rules {
    const char *name;          /* "pyramids" */
    const char *rules_version; /* bumped whenever a rule changes outcomes */
    int min_seats, max_seats;
    const char *const *decision_names; /* indexed by decision kind */
    int n_decision_kinds;
    const char *const *event_names; /* indexed by event kind */
    int n_event_kinds;
    const char *const *score_parts; /* names of maat_score.part[] */
    int n_score_parts;

    /* Load and validate components and options.  NULL + err on failure. */
    maat_setup *(*setup_new)(const maat_options *opt, maat_error *err);
    void (*setup_destroy)(maat_setup **s);
    /* Encode the public description of the components (e.g. the deck's
     * card faces, never their order), for the hello exchange. */
    int (*setup_encode)(const maat_setup *s, msgpack_packer *pk);

    /* A new game.  All chance is drawn from maat_rng_seed(seed), as
     * docs/RNG.md says game by game.  Events of the deal are appended to
     * ev (may be NULL).  NULL + err on a bad seat count. */
    maat_game *(*game_new)(const maat_setup *s, const maat_seed *seed,
                           int seats, maat_events *ev, maat_error *err);
    void (*destroy)(maat_game **g);
    maat_game *(*copy)(const maat_game *g);
    int (*seats)(const maat_game *g);

    maat_decision (*decision)(const maat_game *g);
    int (*is_over)(const maat_game *g);

    /* Write up to cap legal actions for the current decision; returns the
     * total number (which may exceed cap), 0 when the game is over. */
    int (*legal_actions)(const maat_game *g, maat_action *out, int cap);
    /* Check `a` and apply it.  On an illegal action: MAAT_EILLEGAL, a
     * message saying why, and the state is untouched. */
    int (*apply)(maat_game *g, const maat_action *a, maat_events *ev,
                 maat_error *err);

    /* Scores and ranks; valid once is_over(), provisional before. */
    void (*scores)(const maat_game *g, maat_score *out);

    /* Everything `seat` may see now, as one msgpack map.  Once the game is
     * over everything is revealed to everyone.  MAAT_OMNISCIENT: the same
     * map with the hidden information added (docs/REPLAY.md). */
    int (*encode_observation)(const maat_game *g, int seat,
                              msgpack_packer *pk);
    /* A text picture of the state as `seat` sees it -- exactly what its
     * observation holds -- for people (maat-play, --verify --verbose, a
     * bot's debug output): MAAT_OMNISCIENT shows everything, a seat outside
     * 0..seats-1 only what is public.  Lines end in '\n'.  snprintf's
     * contract: writes at most cap bytes into the caller's buf, always
     * NUL-terminated when cap > 0 (cut short if it does not fit), and
     * returns the length of the whole text without the NUL; buf may be
     * NULL when cap is 0, to measure.  Negative on failure.  Keeps nothing.
     * maat_game_render wraps it into a malloc'd string. */
    int (*render)(const maat_game *g, int seat, char *buf, size_t cap);
    int (*encode_event)(const maat_game *g, const maat_event *e,
                        msgpack_packer *pk);
    int (*encode_action)(const maat_game *g, const maat_action *a,
                         msgpack_packer *pk);
    /* Structural decode of an action (types, ranges); legality is apply's
     * job.  MAAT_EDECODE + a message naming the field on failure.  g may
     * be NULL (bots decode the referee's legal list without a state). */
    int (*decode_action)(const maat_game *g, const msgpack_object *o,
                         maat_action *a, maat_error *err);

    /* ---- the bot side: hidden information ----------------------------
     * A bot never has the true state.  It has the setup the referee sent
     * (setup_decode of the welcome's "setup"), and a view: everything its
     * seat has seen this game, fed with each message's events and
     * observation.  determinize samples a full state consistent with the
     * view -- the seat's own cards exact, every card it saw where it saw
     * it, the unseen cards dealt at random into the unseen places -- for
     * search bots to copy, apply and score. */
    maat_setup *(*setup_decode)(const msgpack_object *o, maat_error *err);
    maat_view *(*view_new)(const maat_setup *s, int seat, int seats);
    void (*view_destroy)(maat_view **v);
    /* events: the message's events array (may be NULL); observation: its
     * observation map.  MAAT_EDECODE naming the field on bad input.  Feed
     * every message of the game in order: a view with gaps still samples
     * states consistent with the latest observation, but forgets what the
     * missing events would have proved. */
    int (*view_update)(maat_view *v, const msgpack_object *events,
                       const msgpack_object *observation, maat_error *err);
    /* A new state (destroy with rules->destroy); NULL + err if the view
     * has no observation yet or is inconsistent. */
    maat_game *(*determinize)(const maat_view *v, maat_rng *rng,
                              maat_error *err);
    /* The legal actions of the view's current decision: legal_actions'
     * contract (up to cap written, the total returned, 0 once the game is
     * over), and exactly legal_actions' list on the true state, in its
     * order -- which lets protocol version 3 leave the list out of
     * requests (tests/test_view_delta.c checks it over random games).
     * Worked out from what the view holds, without sampling the hidden
     * information, so a bot may call it every decision.  The decision
     * must be the view's own seat's (another seat's may depend on what
     * this seat cannot see): else, or without an observation to start
     * from, -1. */
    int (*view_legal_actions)(const maat_view *v, maat_action *out, int cap);

    /* The declarations the entries above encode and decode actions and
     * events from (one per kind: fields, types, ranges, who sees them);
     * the SDK's own tests read them. */
    const maat_wire *wire_actions, *wire_events;
} maat_rules;

/* The registry of built-in games. */
const maat_rules *maat_rules_find(const char *name);
const maat_rules *const *maat_rules_all(int *count);
/* The game played when none is named: the registry's first, Pyramids (the
 * main game).  Every tool takes its default from here. */
const maat_rules *maat_rules_default(void);

/* MAAT_OK if the table is complete (every entry set, names and counts
 * consistent); else MAAT_EINVAL naming the game and the first entry at
 * fault.  A game module must pass it to be registered. */
int maat_rules_check(const maat_rules *r, maat_error *err);

/* rules->render into a new string (free() it): the whole text, never cut.
 * NULL when out of memory or when the module fails. */
char *maat_game_render(const maat_rules *r, const maat_game *g, int seat);

/* Events list helpers. */
int maat_events_push(maat_events *ev, const maat_event *e);
void maat_events_clear(maat_events *ev);
void maat_events_free(maat_events *ev);

/* Ranks from totals: rank = 1 + number of seats with a strictly higher
 * total, so ties share a place (1,1,3). */
void maat_rank_scores(maat_score *s, int seats);

/* Options helpers: the value of `key` or NULL. */
const char *maat_options_get(const maat_options *o, const char *key);
int maat_options_set(maat_options *o, const char *key, const char *value);

#ifdef __cplusplus
}
#endif

#endif
