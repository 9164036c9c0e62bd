/* botlog.h -- a bot's stderr, split by decision, for the replay.
 *
 * The log file has one line per line the bot wrote, each prefixed by the
 * index of the record's decision (0-based, as faults[].decision) that was
 * being played when the line was written, and a tab:
 *
 *     17<TAB>depth 3: best build 45 at (0, -1), value 0.62
 *
 * A line without such a prefix belongs to the decision of the line before
 * it (or, at the top of the file, to "before the first decision", index
 * -1): so a plain stderr file still shows, all of it, before the game.
 * The file is hostile like everything a bot writes: lines are cut at
 * MAAT_BOTLOG_LINE bytes, a decision keeps at most MAAT_BOTLOG_PER_DECISION
 * lines and the whole log at most MAAT_BOTLOG_TOTAL bytes, of at most
 * MAAT_BOTLOG_READ bytes read (the cuts are said in the log itself);
 * bytes that are not printable ASCII or UTF-8 are replaced by '?'. */
#ifndef MAAT_REPLAY_BOTLOG_H
#define MAAT_REPLAY_BOTLOG_H

#include <jansson.h>

#include "maat/error.h"

#define MAAT_BOTLOG_LINE 500
#define MAAT_BOTLOG_PER_DECISION 200
#define MAAT_BOTLOG_TOTAL (1 << 20)
#define MAAT_BOTLOG_READ (64 << 20) /* bytes read at most */

/* The log at `path` as an object {"-1": [lines], "17": [lines], ...}
 * (new reference), indices outside -1..n_decisions-1 folded into -1.
 * NULL + MAAT_EIO naming the file when it cannot be read. */
json_t *maat_botlog_read(const char *path, long n_decisions, maat_error *err);

#endif
