/* document.h -- a game record turned into the replay document: the JSON
 * the viewer draws, computed by the game module itself.
 *
 * The record is replayed through the rules (referee/playback.c).  For
 * every position -- after the deal, then after each decision -- the
 * document holds the omniscient state and each seat's observation, both
 * made by rules->encode_observation (MAAT_OMNISCIENT and the seat), the
 * very function that builds what the referee sends the bot: a seat's view
 * is exactly what that seat knew.  Each stream is stored as its first
 * position and then patches (delta.h).  Per decision: the seat, the
 * action, who played it (bot or default policy), its clock use if
 * recorded, its events with who could see them, its faults and each bot's
 * stderr lines for it (botlog.h).  The shape is in docs/REPLAY.md. */
#ifndef MAAT_REPLAY_DOCUMENT_H
#define MAAT_REPLAY_DOCUMENT_H

#include <jansson.h>

#include "maat/game.h"

/* --log SEAT=FILE: `who` is a seat number or a bot name. */
typedef struct maat_replay_log {
    const char *who;
    const char *path;
} maat_replay_log;

/* The document of the record at `path` (new reference); `overrides` (may
 * be NULL) are game options that win over the record's (a deck file found
 * elsewhere now: maat_playback_open).  A record the rules
 * refuse part-way still gives a document, up to that decision, with the
 * reason in "warnings".  NULL + err when the record or a log cannot be
 * read or a log names no seat. */
json_t *maat_replay_document(const char *path,
                             const maat_options *overrides,
                             const maat_replay_log *logs, int n_logs,
                             maat_error *err);

#endif
