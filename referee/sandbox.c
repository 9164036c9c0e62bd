/* sandbox.c -- the command line that runs a bot inside bubblewrap.
 *
 * Owns the sandbox's shape: what of the file system a bot sees, which
 * namespaces it gets, and how it dies with the referee.  bots.c spawns the
 * result through proc.c like any other command.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sandbox.h"

/* Append s to buf single-quoted for /bin/sh. */
static void append_quoted(char *buf, size_t len, const char *s)
{
    size_t n = strlen(buf);
    if (n + 2 < len)
        buf[n++] = '\'';
    for (; *s && n + 5 < len; s++) {
        if (*s == '\'') {
            memcpy(buf + n, "'\\''", 4);
            n += 4;
        } else {
            buf[n++] = *s;
        }
    }
    if (n + 1 < len)
        buf[n++] = '\'';
    buf[n] = 0;
}

/* The command line that runs `cmd` in a bubblewrap sandbox: the whole file
 * system read-only, a private empty /tmp (the bot's scratch space), no
 * network and no System V IPC; only the referee's ipc directory is
 * reachable.  bwrap dies with the referee and kills the bot with it. */
int maat_sandbox_command(const char *dir, const char *cmd, char *out,
                         size_t len)
{
    char cwd[1024];
    if (!dir || !getcwd(cwd, sizeof cwd))
        return -1;
    snprintf(out, len, "exec bwrap --ro-bind / / --dev /dev --proc /proc "
             "--tmpfs /tmp --bind ");
    append_quoted(out, len, dir);
    strncat(out, " ", len - strlen(out) - 1);
    append_quoted(out, len, dir);
    /* the referee's directory stays reachable even when it is under /tmp;
     * a PID namespace means every descendant dies with the sandbox */
    strncat(out, " --ro-bind ", len - strlen(out) - 1);
    append_quoted(out, len, cwd);
    strncat(out, " ", len - strlen(out) - 1);
    append_quoted(out, len, cwd);
    /* programs named by absolute path under /tmp stay reachable too
     * (read-only): e.g. a bot built in a clone under /tmp */
    char words[4096];
    snprintf(words, sizeof words, "%s", cmd);
    for (char *save = NULL, *w = strtok_r(words, " \t\"'", &save); w;
         w = strtok_r(NULL, " \t\"'", &save)) {
        /* the whole top directory under /tmp (/tmp/X of /tmp/X/...): a
         * program's libraries are often beside it (RUNPATH $ORIGIN/..) */
        char *slash = strncmp(w, "/tmp/", 5) == 0 ? strchr(w + 5, '/')
                                                 : NULL;
        if (!slash)
            continue;
        *slash = 0;
        if (access(w, F_OK) != 0)
            continue;
        strncat(out, " --ro-bind ", len - strlen(out) - 1);
        append_quoted(out, len, w);
        strncat(out, " ", len - strlen(out) - 1);
        append_quoted(out, len, w);
    }
    strncat(out, " --unshare-net --unshare-ipc --unshare-pid "
            "--die-with-parent --setenv TMPDIR /tmp --chdir ",
            len - strlen(out) - 1);
    append_quoted(out, len, cwd);
    strncat(out, " /bin/sh -c ", len - strlen(out) - 1);
    char inner[4200];
    snprintf(inner, sizeof inner, "exec %s", cmd);
    append_quoted(out, len, inner);
    return strlen(out) + 1 < len ? 0 : -1;
}
