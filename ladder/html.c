/* html.c -- safe, self-contained HTML pages (html.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "html.h"

/* ladder/page.js, built in by scripts/embed.py */
extern const char maat_page_js[];

char *maat_html_json_for_script(const json_t *doc)
{
    char *j = json_dumps(doc, JSON_COMPACT | JSON_ENSURE_ASCII |
                                  JSON_PRESERVE_ORDER);
    if (!j)
        return NULL;
    size_t n = 0;
    for (const char *p = j; *p; p++)
        n += strchr("<>&", *p) ? 6 : 1;
    char *out = malloc(n + 1), *o = out;
    for (const char *p = j; out && *p; p++) {
        if (strchr("<>&", *p))
            o += sprintf(o, "\\u%04x", (unsigned char)*p);
        else
            *o++ = *p;
    }
    if (out)
        *o = 0;
    free(j);
    return out;
}

int maat_html_safe_name(const char *s)
{
    size_t n = strlen(s);
    return n && n <= 200 && *s != '.' &&
           strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789._-") == n;
}

int maat_html_inside(const char *rel)
{
    if (!rel || !*rel || rel[0] == '/' || strlen(rel) > 1000)
        return 0;
    for (const char *p = rel; (p = strstr(p, "..")) != NULL; p += 2)
        if ((p == rel || p[-1] == '/') && (p[2] == '/' || !p[2]))
            return 0;
    return 1;
}

void maat_html_text(FILE *f, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
}

FILE *maat_html_open_out(const char *path, char *tmp, size_t len,
                         maat_error *err)
{
    snprintf(tmp, len, "%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        maat_error_set(err, MAAT_EIO, "%s: cannot write: %s", path,
                       strerror(errno));
    return f;
}

int maat_html_close_out(FILE *f, const char *tmp, const char *path,
                        maat_error *err)
{
    int bad = ferror(f) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return maat_error_set(err, MAAT_EIO, "%s: cannot write: %s", path,
                              strerror(e));
    }
    return MAAT_OK;
}

void maat_html_head(FILE *f, const char *title, const char *css,
                    int scripts)
{
    /* Nothing from outside the page: no network, no plugin, no frame; the
     * page's own inline style and (when it has them) scripts. */
    fprintf(f, "<meta charset=\"utf-8\">\n<meta name=\"viewport\" "
               "content=\"width=device-width, initial-scale=1\">\n"
               "<meta http-equiv=\"Content-Security-Policy\" "
               "content=\"default-src 'none'; style-src 'unsafe-inline'; "
               "%simg-src data:\">\n<title>",
            scripts ? "script-src 'unsafe-inline'; " : "");
    maat_html_text(f, title);
    fprintf(f, "</title>\n<style>\n%s</style>\n", css);
}

/* The template with each marker replaced; markers are replaced in the
 * order they appear, each once. */
int maat_html_page_write(const char *path, const char *template,
                         const char *title, const char *css, const char *js,
                         const json_t *doc, maat_error *err)
{
    char *data = maat_html_json_for_script(doc);
    if (!data)
        return maat_error_set(err, MAAT_ENOMEM, "out of memory");
    char tmp[4200];
    FILE *f = maat_html_open_out(path, tmp, sizeof tmp, err);
    if (!f) {
        free(data);
        return err ? err->code : MAAT_EIO;
    }
    const char *t = template;
    for (;;) {
        const char *at = strchr(t, '@');
        const char *m[] = {"@HEAD@", "@JS@", "@DATA@"};
        size_t k = 0;
        while (at && k < 3 && strncmp(at, m[k], strlen(m[k])) != 0)
            k++;
        if (!at) {
            fputs(t, f);
            break;
        }
        fwrite(t, 1, (size_t)(at - t), f);
        if (k == 3) { /* a lone '@' */
            fputc('@', f);
            t = at + 1;
            continue;
        }
        if (k == 0) {
            maat_html_head(f, title, css, 1);
        } else if (k == 1) {
            fputs(maat_page_js, f); /* the helpers every page uses */
            fputs(js, f);
        } else {
            fputs(data, f);
        }
        t = at + strlen(m[k]);
    }
    free(data);
    return maat_html_close_out(f, tmp, path, err);
}
