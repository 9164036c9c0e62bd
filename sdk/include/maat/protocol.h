/* protocol.h -- the constants of the referee <-> bot protocol.
 *
 * docs/PROTOCOL.md is the full description, written so a bot in any
 * language can play from it alone.  In short: the referee binds a ZeroMQ
 * ROUTER, each bot connects a DEALER; every message is one frame holding
 * one msgpack map with a "type" field.
 *
 *   bot -> referee   hello   {type, version, token, name}
 *   referee -> bot   welcome {type, version, game, rules_version, games,
 *                             setup}               (or reject {type, reason})
 *   referee -> bot   start   {type, game_index, seat, seats}
 *   referee -> bot   request {type, seq, game_index, decision, observation,
 *                             events, legal, clock}
 *   bot -> referee   action  {type, seq, action[, think_us]}
 *   bot -> referee   resync  {type, seq}          (version 2 and later)
 *   referee -> bot   end     {type, game_index, observation, events, ranks}
 *   referee -> bot   bye     {type}
 *
 * Version 2 (the delta protocol), offered in the hello and confirmed in the
 * welcome: a request carries its observation only in the seat's first
 * request of each game and in the answer to a resync; otherwise the bot
 * keeps its view from the events.  Everything else is as in version 1.
 * Version 3: version 2 without `legal` in requests; the bot works the
 * legal list out from its view (rules->view_legal_actions).
 */
#ifndef MAAT_PROTOCOL_H
#define MAAT_PROTOCOL_H

#ifdef __cplusplus
extern "C" {
#endif

/* The base version: every referee speaks it, and bots written from the
 * docs alone (sample-bots/python/random_bot.py) offer it. */
#define MAAT_PROTOCOL_VERSION 1
/* Version 2: requests without the observation (docs/PROTOCOL.md). */
#define MAAT_PROTOCOL_DELTA 2
/* Version 3: version 2 whose requests carry no legal list either. */
#define MAAT_PROTOCOL_NO_LEGAL 3
/* The newest version a referee of this tree speaks. */
#define MAAT_PROTOCOL_MAX MAAT_PROTOCOL_NO_LEGAL

/* Environment variables a spawned bot receives. */
#define MAAT_ENV_ENDPOINT "MAAT_ENDPOINT" /* e.g. ipc:///tmp/maat-1234/ref */
#define MAAT_ENV_TOKEN "MAAT_TOKEN"       /* the seat's secret token */
#define MAAT_ENV_NAME "MAAT_BOT_NAME"     /* the bot's name in this match */
/* With CURVE (maat-referee --curve-key): the referee's public key and the
 * bot's own key pair, all Z85.  Empty or unset: no encryption. */
#define MAAT_ENV_CURVE_SERVERKEY "MAAT_CURVE_SERVERKEY"
#define MAAT_ENV_CURVE_PUBLICKEY "MAAT_CURVE_PUBLICKEY"
#define MAAT_ENV_CURVE_SECRETKEY "MAAT_CURVE_SECRETKEY"

/* Longest token (printable ASCII) a seat may have. */
#define MAAT_MAX_TOKEN 255

/* Largest message a bot may send (ZMQ_MAXMSGSIZE on the referee socket). */
#define MAAT_MAX_BOT_MESSAGE 65536
/* Largest message the referee sends (bots may cap their socket with it). */
#define MAAT_MAX_REFEREE_MESSAGE (4 << 20)

#ifdef __cplusplus
}
#endif

#endif
