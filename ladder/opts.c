/* opts.c -- the option parser of maat-ladder's subcommands (opts.h). */
#define _GNU_SOURCE
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "opts.h"

int maat_opts_parse(const char *cmd, const maat_opt *opts, int argc,
                    char **argv, const char **pos, int max_pos, int *n_pos,
                    void (*help)(FILE *), int usage_rc)
{
    char prog[64];
    snprintf(prog, sizeof prog, "maat-ladder %s", cmd);
    *n_pos = 0;
    for (int i = 0; i < argc; i++) {
        char name[64];
        const char *v;
        int has_value = maat_cli_split(argv[i], name, sizeof name, &v);
        if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
            help(stdout);
            return -1;
        }
        if (!strcmp(name, "--version")) {
            maat_cli_version(stdout, "maat-ladder");
            return -1;
        }
        if (argv[i][0] != '-' || !argv[i][1]) {
            if (*n_pos >= max_pos) {
                fprintf(stderr, "%s: unexpected argument '%s' (try %s "
                        "--help)\n", prog, argv[i], prog);
                return usage_rc;
            }
            pos[(*n_pos)++] = argv[i];
            continue;
        }
        const maat_opt *o = opts;
        while (o->name && strcmp(o->name, name))
            o++;
        if (!o->name) {
            fprintf(stderr, "%s: unknown option '%s' (try %s --help)\n",
                    prog, name, prog);
            return usage_rc;
        }
        if (o->kind == O_FLAG) {
            if (has_value) {
                fprintf(stderr, "%s: %s takes no value, got '%s'\n", prog,
                        name, argv[i]);
                return usage_rc;
            }
            *(int *)o->out = (int)o->lo;
            continue;
        }
        if (!has_value) {
            if (i + 1 >= argc) {
                fprintf(stderr, "%s: %s needs a value: %s\n", prog, name,
                        o->what);
                return usage_rc;
            }
            v = argv[++i];
        }
        long long n;
        double x;
        switch (o->kind) {
        case O_STR:
            if (!*v) {
                fprintf(stderr, "%s: %s needs a value: %s\n", prog, name,
                        o->what);
                return usage_rc;
            }
            *(const char **)o->out = v;
            break;
        case O_INT:
            if (maat_cli_int(prog, name, v, (long long)o->lo,
                             (long long)o->hi, o->what, &n))
                return usage_rc;
            *(int *)o->out = (int)n;
            break;
        case O_U64:
            if (maat_cli_int(prog, name, v, 0, LLONG_MAX, o->what, &n))
                return usage_rc;
            *(uint64_t *)o->out = (uint64_t)n;
            break;
        case O_REAL:
            if (maat_cli_real(prog, name, v, o->lo, o->hi, o->what, &x))
                return usage_rc;
            *(double *)o->out = x;
            break;
        case O_LIST:
            if (*o->count >= (int)o->hi) {
                fprintf(stderr, "%s: at most %d %s\n", prog, (int)o->hi,
                        name);
                return usage_rc;
            }
            ((const char **)o->out)[(*o->count)++] = v;
            break;
        }
    }
    return 0;
}

char *maat_sibling(const char *dir, const char *name)
{
    char self[PATH_MAX], path[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return strdup(name);
    self[n] = 0;
    char *d = dirname(self);
    snprintf(path, sizeof path, "%s/../%s/%s", d, dir, name);
    if (access(path, X_OK) == 0)
        return realpath(path, NULL);
    snprintf(path, sizeof path, "%s/%s", d, name);
    return strdup(path);
}
