/* test_botenv.c -- referee/botenv.c: which of the referee's environment
 * variables a bot gets, and which --bot-env specs are accepted.
 * (tests/test_isolation.py checks the same end to end, in a sandbox.) */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "botenv.h"
#include "check.h"

/* The entry for `name` in env (the last one: a later entry wins), or
 * NULL. */
static const char *find(char **env, const char *name)
{
    const char *got = NULL;
    size_t n = strlen(name);
    for (int i = 0; env && env[i]; i++)
        if (!strncmp(env[i], name, n) && env[i][n] == '=')
            got = env[i] + n + 1;
    return got;
}

static int count(char **env)
{
    int n = 0;
    while (env && env[n])
        n++;
    return n;
}

static void specs(void)
{
    static const char *const good[] = {"A", "_x9", "NAME=", "N=v=w", "AWS_*",
                                       "*", "a_*", NULL};
    static const char *const bad[] = {"", "1X", "A-B", "A*B", "=v", "**",
                                      "A B", "*A", "A**", NULL};
    for (int i = 0; good[i]; i++) {
        maat_error e = {0};
        CHECK(maat_botenv_check(good[i], &e) == MAAT_OK, "'%s' refused: %s",
              good[i], e.msg);
    }
    for (int i = 0; bad[i]; i++) {
        maat_error e = {0};
        char want[64];
        snprintf(want, sizeof want, "--bot-env '%s'", bad[i]);
        CHECK(maat_botenv_check(bad[i], &e) == MAAT_EINVAL &&
                  strstr(e.msg, want),
              "'%s' accepted, or not named: %s", bad[i], e.msg);
    }
}

static void environments(void)
{
    char *from[] = {"PATH=/usr/bin", "HOME=/home/o", "LC_ALL=C",
                    "SECRET_TOKEN=s3cr3t", "AWS_KEY=k", "AWS_OTHER=o",
                    "MAAT_SETTING=ours", "PYTHONPATH=/lib/py", "NOEQUALS",
                    "LCX=no", "=C:", NULL};
    char **env = maat_botenv_make(from, 1, NULL, 0, NULL);
    CHECK(env && find(env, "PATH") && find(env, "HOME") &&
              find(env, "LC_ALL") && find(env, "MAAT_SETTING") &&
              find(env, "PYTHONPATH"),
          "the kept variables are passed");
    CHECK(env && !find(env, "SECRET_TOKEN") && !find(env, "AWS_KEY") &&
              !find(env, "LCX") && count(env) == 5,
          "nothing else (LC_* is not LC*), %d entries", count(env));
    free(env);

    const char *more[] = {"AWS_*", "SECRET_TOKEN", "EXTRA=given",
                          "PATH=/opt/bin", "UNSET_ONE"};
    env = maat_botenv_make(from, 1, more, 5, NULL);
    CHECK(env && find(env, "AWS_KEY") && find(env, "AWS_OTHER") &&
              find(env, "SECRET_TOKEN") && !strcmp(find(env, "EXTRA"),
                                                   "given") &&
              !find(env, "UNSET_ONE") && !find(env, "LCX"),
          "specs pass names and prefixes, and set NAME=VALUE");
    CHECK(env && !strcmp(find(env, "PATH"), "/opt/bin"),
          "a spec's NAME=VALUE comes after the inherited entry (it wins)");
    free(env);

    const char *all[] = {"*"};
    env = maat_botenv_make(from, 1, all, 1, NULL);
    CHECK(env && count(env) == 9 && find(env, "SECRET_TOKEN"),
          "'*' passes every NAME=value entry, %d", count(env));
    free(env);

    env = maat_botenv_make(from, 0, NULL, 0, NULL);
    CHECK(env && count(env) == 9 && !find(env, "NOEQUALS"),
          "not clean: every NAME=value entry as it was, %d", count(env));
    free(env);

    env = maat_botenv_make(NULL, 1, more, 5, NULL);
    CHECK(env && count(env) == 2 && find(env, "EXTRA"),
          "an empty environment: only the NAME=VALUE specs");
    free(env);
}

int main(void)
{
    specs();
    environments();
    return check_done("botenv");
}
