/* delta.h -- the difference between two JSON values as a small patch, so
 * a replay stores each position as what changed since the one before.
 *
 * A patch is an object whose keys are the object keys (or, for arrays of
 * the same length, the decimal indices) that changed; each value is
 *   [v]   set to v (a one-element array),
 *   []    delete the key,
 *   {...} a patch of that member (both sides objects or both arrays).
 * A patch of two arrays of different lengths is {"@": [start, count,
 * [items]]}: splice -- the items between the common head and tail
 * replaced.  Values of different types are set whole.  The viewer applies patches in a dozen lines (replay/viewer.js). */
#ifndef MAAT_REPLAY_DELTA_H
#define MAAT_REPLAY_DELTA_H

#include <jansson.h>

/* The patch turning a into b (new reference); NULL when they are equal,
 * or when they are not both objects or both arrays (then b is to be set
 * whole). */
json_t *maat_json_delta(json_t *a, json_t *b);

/* Apply a patch made by maat_json_delta; returns a new value (for tests
 * and for checking the viewer's reading). */
json_t *maat_json_patch(json_t *a, json_t *patch);

#endif
