/* html.h -- writing self-contained HTML pages safely: the replay viewer
 * (replay/) and the league's leaderboard (leaderboard.c) are both a
 * template with its CSS, its script and a JSON document spliced in.
 *
 * Everything in a document may come from a bot or a stranger (bot names,
 * stderr lines, a hand-edited record or ladder line), so the JSON goes
 * into the page as the text of a <script type="application/json"> element
 * with every '<', '>' and '&' written as \u003c, \u003e, \u0026
 * (JSON_ENSURE_ASCII does the rest): nothing in it can close the element
 * or open another, and the scripts put text on the page only through
 * textContent and SVG text.  Pages are written to a temporary file and
 * renamed, so a reader (a web server) never sees half a page.
 */
#ifndef MAAT_HTML_H
#define MAAT_HTML_H

#include <stdio.h>
#include <jansson.h>

#include "maat/error.h"

/* The document as JSON safe inside a <script> element (malloc'd). */
char *maat_html_json_for_script(const json_t *doc);

/* A name safe as a file name beside a page: 1-200 of [A-Za-z0-9._-], not
 * starting with '.' (a ladder line's id could be anything). */
int maat_html_safe_name(const char *s);
/* A path a ladder line names (its record, a log), safe to open under the
 * ladder's folder: relative and without "..", so a line cannot make us
 * read (and embed in a page) any other file. */
int maat_html_inside(const char *rel);

/* Text for an HTML element or a quoted attribute value. */
void maat_html_text(FILE *f, const char *s);

/* Open path.tmp.PID for writing / rename it to path once written. */
FILE *maat_html_open_out(const char *path, char *tmp, size_t len,
                         maat_error *err);
int maat_html_close_out(FILE *f, const char *tmp, const char *path,
                        maat_error *err);

/* What goes in every page's <head>: charset, viewport, a Content Security
 * Policy that lets nothing in from outside the page (inline scripts only
 * when `scripts`), `title` as HTML text and `css` in a <style>. */
void maat_html_head(FILE *f, const char *title, const char *css,
                    int scripts);

/* Write `template` to `path` (atomically) with each marker replaced once,
 * in the order they appear: @HEAD@ by maat_html_head (scripts allowed),
 * @JS@ by ladder/page.js's helpers ($, el, sv) and then `js`, @DATA@ by
 * `doc` as maat_html_json_for_script gives it.  MAAT_EIO naming the file
 * on failure. */
int maat_html_page_write(const char *path, const char *template,
                         const char *title, const char *css, const char *js,
                         const json_t *doc, maat_error *err);

#endif
