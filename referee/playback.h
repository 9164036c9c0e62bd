/* playback.h -- a game record read back and stepped through the rules:
 * what maat-referee --verify and maat-replay share.  The record format is
 * docs/FORMATS.md; the record is trusted no more than any file: every
 * field is type-checked, every action decoded and applied by the rules. */
#ifndef MAAT_PLAYBACK_H
#define MAAT_PLAYBACK_H

#include <jansson.h>

#include "maat/game.h"

typedef struct maat_playback {
    json_t *rec;             /* the whole record (owned) */
    const maat_rules *rules;
    maat_setup *setup;       /* owned */
    maat_game *game;         /* the state before decision `next` (owned) */
    json_t *decisions;       /* rec's "decisions" (borrowed) */
    size_t next;             /* the index of the next decision */
    int seats;
    maat_seed seed;          /* the deal's, from the record */
} maat_playback;

/* Read the record at `path` and deal its game (the deal's events into ev,
 * which may be NULL).  `overrides` (may be NULL) are game options that
 * win over the record's own (a deck or component file found elsewhere
 * now); borrowed for the call.  MAAT_EFORMAT naming the file and what is
 * missing, or the game's own error. */
int maat_playback_open(maat_playback *p, const char *path,
                       const maat_options *overrides, maat_events *ev,
                       maat_error *err);
/* Decision p->next's action, decoded in the current state (nothing
 * applied).  MAAT_EDECODE when it is no action of the game. */
int maat_playback_action(const maat_playback *p, maat_action *a,
                         maat_error *err);
/* Apply decision p->next (its events into ev, may be NULL) and move on.
 * The rules' error when they refuse it; the state is then unchanged. */
int maat_playback_step(maat_playback *p, maat_events *ev, maat_error *err);
void maat_playback_close(maat_playback *p);

#endif
