/* botenv.c -- which of the referee's environment variables a bot gets
 * (botenv.h says why a sandboxed bot gets only a few). */
#include <stdlib.h>
#include <string.h>

#include "botenv.h"

/* Nothing here is a secret by its nature; each is something a bot may
 * need to start at all (PATH, HOME, the locale, a runtime's search path)
 * or something an organiser sets for every bot alike (thread counts,
 * sanitizer options, MAAT_*). */
const char *const maat_botenv_kept[] = {
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_*", "TZ",
    "LD_LIBRARY_PATH", "PYTHON*", "VIRTUAL_ENV", "PYENV_ROOT",
    "PYENV_VERSION", "NODE_PATH", "CLASSPATH", "JAVA_HOME",
    "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
    "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "MAAT_*", NULL};

static int name_char(char c, int first)
{
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
           (!first && c >= '0' && c <= '9');
}

/* The length of the name at the start of s (0 when it does not start
 * with one). */
static size_t name_len(const char *s)
{
    size_t n = 0;
    while (name_char(s[n], n == 0))
        n++;
    return n;
}

int maat_botenv_check(const char *spec, maat_error *err)
{
    size_t n = name_len(spec);
    if (!strcmp(spec, "*") || (n && (spec[n] == 0 || spec[n] == '=' ||
                                     !strcmp(spec + n, "*"))))
        return MAAT_OK;
    return maat_error_set(err, MAAT_EINVAL, "--bot-env '%s': want NAME, "
                          "NAME=VALUE, PREFIX* or * (names of letters, "
                          "digits and '_', not starting with a digit)", spec);
}

/* Does pattern p (NAME, PREFIX* or *; a NAME=VALUE spec never passes
 * anything) pass the variable whose name is entry[0..n)? */
static int passes(const char *p, const char *entry, size_t n)
{
    size_t k = strlen(p);
    if (strchr(p, '='))
        return 0;
    if (k && p[k - 1] == '*')
        return n >= k - 1 && strncmp(p, entry, k - 1) == 0;
    return k == n && strncmp(p, entry, n) == 0;
}

static int kept(const char *entry, const char *const specs[], int n_specs)
{
    const char *eq = strchr(entry, '=');
    if (!eq)
        return 0;
    size_t n = (size_t)(eq - entry);
    for (int i = 0; maat_botenv_kept[i]; i++)
        if (passes(maat_botenv_kept[i], entry, n))
            return 1;
    for (int i = 0; i < n_specs; i++)
        if (passes(specs[i], entry, n))
            return 1;
    return 0;
}

char **maat_botenv_make(char *const from[], int clean,
                        const char *const specs[], int n_specs,
                        char *const seat[])
{
    size_t n = 0, s = 0, k = 0;
    while (from && from[n])
        n++;
    while (seat && seat[s])
        s++;
    char **env = malloc((n + (size_t)n_specs + s + 1) * sizeof *env);
    if (!env)
        return NULL;
    for (size_t i = 0; i < n; i++) /* (an entry that is not NAME=value, */
        if (from[i][0] != '=' && strchr(from[i], '=') && /* never passed) */
            (!clean || kept(from[i], specs, n_specs)))
            env[k++] = from[i];
    for (int i = 0; i < n_specs; i++)
        if (strchr(specs[i], '='))
            env[k++] = (char *)specs[i];
    for (size_t i = 0; i < s; i++)
        env[k++] = seat[i];
    env[k] = NULL;
    return env;
}
