/* referee_cmd.c -- building and starting maat-referee command lines (see
 * referee_cmd.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "pin.h"
#include "referee_cmd.h"
#include "sandbox.h"

typedef struct argv_builder {
    char **argv;
    int n, cap, failed;
} argv_builder;

static void push(argv_builder *b, const char *s)
{
    if (b->failed)
        return;
    if (b->n + 2 > b->cap) {
        int cap = b->cap ? b->cap * 2 : 32;
        char **a = realloc(b->argv, sizeof *a * (size_t)cap);
        if (!a) {
            b->failed = 1;
            return;
        }
        b->argv = a;
        b->cap = cap;
    }
    b->argv[b->n] = strdup(s);
    b->failed |= !b->argv[b->n];
    b->argv[++b->n] = NULL;
}

static void push_num(argv_builder *b, unsigned long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", v);
    push(b, buf);
}

char **maat_referee_argv(const maat_referee_cmd *c)
{
    argv_builder b = {0};
    push(&b, c->referee ? c->referee : "maat-referee");
    push(&b, "--game");
    push(&b, c->game);
    push(&b, c->seed ? "--seed" : "--seed-file");
    push(&b, c->seed ? c->seed : c->seed_file);
    push(&b, "--seed-label");
    push(&b, c->seed_label);
    push(&b, "--match-id");
    push(&b, c->match_id);
    push(&b, "--ladder");
    push(&b, c->ladder);
    if (c->ladder_final) {
        push(&b, "--ladder-final");
        push(&b, c->ladder_final);
    }
    if (c->games_dir) {
        char *record = NULL;
        if (asprintf(&record, "%s/%s.json", c->games_dir, c->match_id) < 0)
            b.failed = 1;
        else {
            push(&b, "--record");
            push(&b, record);
            free(record);
        }
        push(&b, "--log-dir");
        push(&b, c->games_dir);
    } else if (c->log_dir) {
        push(&b, "--log-dir");
        push(&b, c->log_dir);
    }
    if (!c->seed && c->seed_file) { /* the secret key: never in a
                                       sandboxed bot's sight */
        push(&b, "--hide");
        push(&b, c->seed_file);
    }
    for (size_t k = 0; k < sizeof c->hide / sizeof c->hide[0]; k++)
        if (c->hide[k]) {
            push(&b, "--hide");
            push(&b, c->hide[k]);
        }
    push(&b, "--quiet");
    int remote = 0;
    for (int s = 0; s < c->seats; s++)
        remote |= c->token[s] != NULL;
    if (c->duplicate) {
        push(&b, "--games");
        push_num(&b, (unsigned long long)c->seats);
        if (!remote) {
            push(&b, "--same-deal");
            push(&b, "--fresh-bots");
        }
        push(&b, "--fixed-seats");
    }
    if (remote) {
        push(&b, "--endpoint");
        push(&b, c->endpoint);
        push(&b, "--curve-key");
        push(&b, c->curve_key);
        if (c->hello_time > 0) {
            push(&b, "--hello-time");
            push_num(&b, (unsigned long long)c->hello_time);
        }
    }
    for (int s = 0; s < c->seats; s++) {
        const char *what = c->token[s] ? c->token[s] : c->command[s];
        size_t len = strlen(c->name[s]) + strlen(what) + 2;
        char *arg = malloc(len);
        if (!arg) {
            b.failed = 1;
            break;
        }
        snprintf(arg, len, "%s=%s", c->name[s], what);
        push(&b, c->token[s] ? "--remote" : "--bot");
        push(&b, arg);
        free(arg);
        if (c->token[s] && c->key[s]) {
            char *allow = NULL;
            if (asprintf(&allow, "%s=%s", c->name[s], c->key[s]) < 0) {
                b.failed = 1;
                break;
            }
            push(&b, "--allow-key");
            push(&b, allow);
            free(allow);
        }
    }
    if (c->sandbox_checked) /* before the extras, which may say otherwise */
        push(&b, "--sandbox-checked");
    for (int a = 0; a < c->n_extra; a++)
        push(&b, c->extra[a]);
    if (b.failed) {
        maat_argv_free(b.argv);
        return NULL;
    }
    return b.argv;
}

void maat_argv_free(char **argv)
{
    for (char **a = argv; a && *a; a++)
        free(*a);
    free(argv);
}

int maat_referee_sandbox_check(const char *who, char *const *extra,
                               int n_extra)
{
    const char *env = getenv("MAAT_SANDBOX");
    int off = env && !strcmp(env, "off");
    for (int a = 0; a < n_extra; a++) { /* the referee's: the last wins */
        if (!strcmp(extra[a], "--no-sandbox"))
            off = 1;
        else if (!strcmp(extra[a], "--sandbox") ||
                 !strcmp(extra[a], "--sandbox-checked"))
            off = 0;
    }
    if (off)
        return 0;
    if (maat_sandbox_works())
        return 1;
    /* each referee, run --quiet, would say it to no one */
    fprintf(stderr, "%s: warning: bots are NOT isolated: bubblewrap does not "
            "work here ('bwrap --unshare-user --cap-drop ALL --ro-bind / / "
            "--unshare-pid --unshare-net true' failed), so a bot can read the "
            "others' tokens and signal their processes (docs/REFEREE.md, "
            "\"Isolation\"; install bubblewrap, or referee_args "
            "[\"--no-sandbox\"] to say you mean it)\n", who);
    return 0;
}

void maat_referee_task_cap_check(const char *who, char *const *extra,
                                 int n_extra)
{
    unsigned long long nproc = 64, mem = 0;
    for (int a = 0; a + 1 < n_extra; a++) { /* the referee's: the last wins */
        if (!strcmp(extra[a], "--limit-nproc"))
            nproc = strtoull(extra[a + 1], NULL, 10);
        else if (!strcmp(extra[a], "--limit-mem"))
            mem = strtoull(extra[a + 1], NULL, 10);
    }
    if (geteuid() != 0 || mem || !nproc)
        return;
    /* Tried in a child, as a referee is one: on v2 a cgroup that holds
     * the ladder and its referees cannot give its children a controller,
     * while the ladder alone in it could (and would move itself). */
    char why[sizeof ((maat_error *)0)->msg] = "";
    int fds[2];
    if (pipe(fds) != 0)
        return;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        maat_error err = {0};
        maat_cgroup *g = maat_cgroup_new(0, nproc, &err);
        if (!g && write(fds[1], err.msg, strlen(err.msg)) < 0)
            _exit(2);
        maat_cgroup_destroy(&g);
        _exit(0);
    }
    close(fds[1]);
    ssize_t n = pid > 0 ? read(fds[0], why, sizeof why - 1) : -1;
    close(fds[0]);
    while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    if (n <= 0)
        return;
    why[n] = 0;
    fprintf(stderr, "%s: warning: --limit-nproc %llu will not be enforced: "
            "root is not bound by RLIMIT_NPROC, and %s; a bot can fork until "
            "the machine has no process ids left (run as another user, or "
            "where cgroups can be made; referee_args --limit-nproc 0 says no "
            "limit is wanted)\n", who, nproc, why);
}

pid_t maat_referee_start(char **argv, int cpu, const char *match,
                         int outlive)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* SIGTERM, so that it stops its bots and writes nothing of the
         * unfinished game (REFEREE.md, exit 4) */
        if (!outlive && (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 ||
                         getppid() != parent))
            _exit(127);
        /* A referee that outlives its caller is out of the caller's
         * process group too: Ctrl-C on a terminal signals the whole
         * foreground group, and a league's first signal means "start no
         * more matches", not "stop these" (its second one stops them, by
         * pid: league.c, stop_all) */
        if (outlive && setpgid(0, 0) != 0)
            _exit(127);
        sigset_t none;
        sigemptyset(&none);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (cpu >= 0)
            maat_pin_child(cpu, match);
        execv(argv[0], argv);
        fprintf(stderr, "maat-ladder: cannot run %s: %s\n", argv[0],
                strerror(errno));
        _exit(127);
    }
    return pid;
}

/* SIGCHLD only wakes sigsuspend (its default action discards it) */
static void on_child(int sig)
{
    (void)sig;
}

void maat_signals_catch(maat_signals *s, void (*on_stop)(int))
{
    struct sigaction stop = {0}, child = {0};
    stop.sa_handler = on_stop;
    child.sa_handler = on_child;
    sigset_t wake;
    sigemptyset(&wake);
    sigaddset(&wake, SIGINT);
    sigaddset(&wake, SIGTERM);
    sigaddset(&wake, SIGCHLD);
    sigprocmask(SIG_BLOCK, &wake, &s->outside);
    s->waiting = s->outside;
    sigdelset(&s->waiting, SIGINT);
    sigdelset(&s->waiting, SIGTERM);
    sigdelset(&s->waiting, SIGCHLD);
    sigaction(SIGINT, &stop, &s->old_int);
    sigaction(SIGTERM, &stop, &s->old_term);
    sigaction(SIGCHLD, &child, &s->old_chld);
}

void maat_signals_restore(maat_signals *s)
{
    sigaction(SIGINT, &s->old_int, NULL);
    sigaction(SIGTERM, &s->old_term, NULL);
    sigaction(SIGCHLD, &s->old_chld, NULL);
    sigprocmask(SIG_SETMASK, &s->outside, NULL);
}

int maat_referee_args_parse(const json_t *args, const char *path,
                            char ***out, int *n, maat_error *err)
{
    *out = NULL;
    *n = 0;
    if (args && !json_is_array(args))
        return maat_error_set(err, MAAT_EINVAL, "%s: field 'referee_args' "
                              "must be an array of strings", path);
    if (json_array_size(args) > MAAT_MAX_REFEREE_ARGS)
        return maat_error_set(err, MAAT_EINVAL, "%s: field 'referee_args' "
                              "has more than %d arguments", path,
                              MAAT_MAX_REFEREE_ARGS);
    *out = calloc(json_array_size(args) + 1, sizeof **out);
    if (!*out)
        return maat_error_set(err, MAAT_ENOMEM, "out of memory");
    size_t i;
    const json_t *v;
    json_array_foreach(args, i, v) {
        char *copy = json_is_string(v) ? strdup(json_string_value(v)) : NULL;
        if (!copy) {
            maat_referee_args_free(out, n);
            return maat_error_set(err, MAAT_EINVAL, "%s: referee_args[%zu] "
                                  "must be a string", path, i);
        }
        (*out)[(*n)++] = copy;
    }
    return MAAT_OK;
}

void maat_referee_args_free(char ***args, int *n)
{
    for (int i = 0; *args && i < *n; i++)
        free((*args)[i]);
    free(*args);
    *args = NULL;
    *n = 0;
}
