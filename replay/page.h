/* page.h -- the replay viewer page: the template replay/viewer.html with
 * viewer.css, viewer.js and a document spliced in, written safely
 * (ladder/html.h says how, and holds the escaping every page maat-replay
 * writes goes through). */
#ifndef MAAT_REPLAY_PAGE_H
#define MAAT_REPLAY_PAGE_H

#include <stdio.h>
#include <jansson.h>

#include "html.h"
#include "maat/error.h"

/* Write the viewer page for `doc` to `path` (atomically: a temporary file
 * renamed).  MAAT_EIO naming the file on failure. */
int maat_replay_page_write(const char *path, const char *title,
                           const json_t *doc, maat_error *err);

#endif
