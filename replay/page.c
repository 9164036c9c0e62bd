/* page.c -- the viewer page (page.h). */
#include "page.h"

/* replay/viewer.{html,css,js}, built in by scripts/embed.py */
extern const char maat_viewer_html[], maat_viewer_css[], maat_viewer_js[];

int maat_replay_page_write(const char *path, const char *title,
                           const json_t *doc, maat_error *err)
{
    return maat_html_page_write(path, maat_viewer_html, title,
                                maat_viewer_css, maat_viewer_js, doc, err);
}
