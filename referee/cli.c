/* cli.c -- command-line helpers shared by maat-referee, maat-play and
 * maat-ladder (see cli.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "maat/game.h"
#include "maat/protocol.h"

#ifndef MAAT_VERSION
#define MAAT_VERSION "unknown"
#endif

int maat_cli_split(const char *arg, char *name, size_t len,
                   const char **value)
{
    const char *eq = strncmp(arg, "--", 2) ? NULL : strchr(arg, '=');
    size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
    if (n >= len)
        n = len - 1;
    memcpy(name, arg, n);
    name[n] = 0;
    *value = eq ? eq + 1 : NULL;
    return eq != NULL;
}

int maat_cli_int(const char *prog, const char *opt, const char *v,
                 long long lo, long long hi, const char *what,
                 long long *out)
{
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (errno || !*v || *end || n < lo || n > hi) {
        fprintf(stderr, "%s: %s wants a whole number from %lld to %lld%s%s%s"
                ", got '%s'\n", prog, opt, lo, hi, what ? " (" : "",
                what ? what : "", what ? ")" : "", v);
        return -1;
    }
    *out = n;
    return 0;
}

int maat_cli_real(const char *prog, const char *opt, const char *v,
                  double lo, double hi, const char *what, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || !*v || *end || !isfinite(x) || x < lo || x > hi) {
        fprintf(stderr, "%s: %s wants a number from %g to %g%s%s%s, got "
                "'%s'\n", prog, opt, lo, hi, what ? " (" : "",
                what ? what : "", what ? ")" : "", v);
        return -1;
    }
    *out = x;
    return 0;
}

void maat_cli_version(FILE *f, const char *prog)
{
    int n;
    const maat_rules *const *all = maat_rules_all(&n);
    fprintf(f, "%s %s (protocol %d to %d; games:", prog, MAAT_VERSION,
            MAAT_PROTOCOL_VERSION, MAAT_PROTOCOL_MAX);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s %s %s", i ? "," : "", all[i]->name,
                all[i]->rules_version);
    fprintf(f, ")\n");
}

void maat_cli_games(FILE *f)
{
    int n;
    const maat_rules *const *all = maat_rules_all(&n);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%s (%d-%d seats)", i ? ", " : "", all[i]->name,
                all[i]->min_seats, all[i]->max_seats);
}
