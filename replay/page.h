/* page.h -- writing HTML safely: the replay viewer page (the template
 * replay/viewer.html with viewer.css, viewer.js and a document spliced in)
 * and the escaping every page maat-replay writes goes through.
 *
 * Everything in a document may come from a bot or a stranger (bot names,
 * stderr lines, a hand-edited record), so the JSON goes into the page as
 * the text of a <script type="application/json"> element with every '<',
 * '>' and '&' written as \u003c, \u003e, \u0026 (JSON_ENSURE_ASCII does
 * the rest): nothing in it can close the element or open another, and the
 * viewer puts text on the page only through textContent and SVG text. */
#ifndef MAAT_REPLAY_PAGE_H
#define MAAT_REPLAY_PAGE_H

#include <stdio.h>
#include <jansson.h>

#include "maat/error.h"

/* Write the viewer page for `doc` to `path` (atomically: a temporary file
 * renamed).  MAAT_EIO naming the file on failure. */
int maat_replay_page_write(const char *path, const char *title,
                           const json_t *doc, maat_error *err);

/* The document as JSON safe inside a <script> element (malloc'd). */
char *maat_replay_json_for_script(const json_t *doc);

/* Text for an HTML element or a quoted attribute value. */
void maat_html_text(FILE *f, const char *s);

/* Open path.tmp.PID for writing / rename it to path once written. */
FILE *maat_replay_open_out(const char *path, char *tmp, size_t len,
                           maat_error *err);
int maat_replay_close_out(FILE *f, const char *tmp, const char *path,
                          maat_error *err);

#endif
