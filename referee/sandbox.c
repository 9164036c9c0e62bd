/* sandbox.c -- the command line that runs a bot inside bubblewrap.
 *
 * Owns the sandbox's shape: what of the file system a bot sees, which
 * namespaces it gets, and how it dies with the referee.  bots.c spawns the
 * result through proc.c like any other command.
 */
#define _GNU_SOURCE /* memfd_create */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <seccomp.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "sandbox.h"

extern char **environ;

/* Each of `names` refused with EPERM; a name this machine's architectures
 * do not have is skipped.  0 or -errno. */
static int refuse_each(scmp_filter_ctx ctx, const char *const *names,
                       size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int nr = seccomp_syscall_resolve_name(names[i]);
        if (nr == __NR_SCMP_ERROR)
            continue;
        int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
        if (rc)
            return rc;
    }
    return 0;
}

int maat_sandbox_filter_open(maat_error *err)
{
    /* libseccomp writes the filter for the machine's architectures (and
     * their syscall numbers); a program of another architecture than the
     * referee's (i386 on amd64) is killed at its first system call: not a
     * bot we can judge fairly anyway */
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    int fd = -1, rc = -ENOMEM;
    /* setsid, setpgid: every process stays in the bot's group.  shmget: a
     * System V segment belongs to no process, so the out-of-memory killer
     * could not take its memory back by killing the bot, and the kernel's
     * default caps (in the bot's own IPC namespace) are the machine's
     * memory; POSIX shared memory (/dev/shm, capped) is the way.  add_key,
     * keyctl, request_key: the kernel's keyrings outlive a process (a
     * user's keyring is the same for all its processes of a user
     * namespace), so a bot could leave there what one game showed it for
     * its next process playing the same deal; no bot needs them.
     * memfd_create: what is written to one is in no process's address
     * space (--limit-as) and no tmpfs's cap, so a bot could fill the
     * machine with it while its processes stay small, and the
     * out-of-memory killer would take the other seat's bot (review of
     * 2026-11-28); /tmp and /dev/shm are the capped ways.  inotify_init,
     * inotify_init1, fanotify_init, mq_open: counted per user outside the
     * sandbox (root's, under a root referee), so a bot could use up what
     * the other seat, other matches and the machine's own services
     * share. */
    static const char *const refused[] = {"memfd_create", "inotify_init",
        "inotify_init1", "fanotify_init", "mq_open"};
    if (ctx &&
        (rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setsid),
                               0)) == 0 &&
        (rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setpgid),
                               0)) == 0 &&
        (rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(shmget),
                               0)) == 0 &&
        (rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(add_key),
                               0)) == 0 &&
        (rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(keyctl),
                               0)) == 0 &&
        (rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
                               SCMP_SYS(request_key), 0)) == 0 &&
        (rc = refuse_each(ctx, refused,
                          sizeof refused / sizeof refused[0])) == 0) {
        fd = memfd_create("maat-seccomp", MFD_CLOEXEC);
        rc = fd < 0 ? -errno : seccomp_export_bpf(ctx, fd);
        if (rc == 0 && lseek(fd, 0, SEEK_SET) != 0)
            rc = -errno;
    }
    seccomp_release(ctx);
    if (rc != 0) {
        if (fd >= 0)
            close(fd);
        maat_error_set(err, MAAT_EIO, "cannot make the sandbox's system-call "
                       "filter (libseccomp): %s", strerror(-rc));
        return -1;
    }
    return fd;
}

int maat_sandbox_works(void)
{
    static char *const argv[] = {"bwrap", "--unshare-user", "--cap-drop",
                                 "ALL", "--ro-bind", "/", "/",
                                 "--unshare-pid", "--unshare-net",
                                 "--seccomp", "3", "true", NULL};
    maat_error err;
    int filter = maat_sandbox_filter_open(&err);
    if (filter < 0)
        return 0;
    posix_spawn_file_actions_t fa;
    pid_t pid;
    int status = -1;
    if (posix_spawn_file_actions_init(&fa) != 0) {
        close(filter);
        return 0;
    }
    /* quiet: its complaints are the caller's to word */
    int ok = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null",
                                              O_RDONLY, 0) == 0 &&
             posix_spawn_file_actions_addopen(&fa, 1, "/dev/null",
                                              O_WRONLY, 0) == 0 &&
             posix_spawn_file_actions_adddup2(&fa, 1, 2) == 0 &&
             posix_spawn_file_actions_adddup2(&fa, filter, 3) == 0 &&
             posix_spawnp(&pid, "bwrap", &fa, NULL, argv, environ) == 0;
    posix_spawn_file_actions_destroy(&fa);
    close(filter);
    if (!ok)
        return 0; /* not installed */
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

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
    if (*s) { /* cut: fill the buffer, which the caller's length check
               * (strlen(out) + 1 < len) then sees, as it sees add()'s */
        memset(buf + n, '.', len - 1 - n);
        n = len - 1;
    }
    buf[n] = 0;
}

static void add(char *out, size_t len, const char *word)
{
    strncat(out, " ", len - strlen(out) - 1);
    strncat(out, word, len - strlen(out) - 1);
}

static void add_quoted(char *out, size_t len, const char *word)
{
    strncat(out, " ", len - strlen(out) - 1);
    append_quoted(out, len, word);
}

/* Is `dir` the directory `path` or one of its ancestors? */
static int contains(const char *dir, const char *path)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    return strncmp(dir, path, n) == 0 && (path[n] == 0 || path[n] == '/' ||
                                          (n == 1 && dir[0] == '/'));
}

/* The path a command's word names: the word, or (when `value` is set)
 * what follows its first '=' (--weights=DIR/FILE); NULL when there is
 * none. */
static const char *word_path(const char *w, int value)
{
    const char *eq = value ? strchr(w, '=') : NULL;
    const char *p = value ? (eq ? eq + 1 : NULL) : w;
    return p && strchr(p, '/') ? p : NULL;
}

/* Path w (absolute, or relative to the working directory cwd) made
 * absolute, in out. */
static void from_cwd(const char *w, const char *cwd, char *out, size_t len)
{
    snprintf(out, len, "%s%s%s", w[0] == '/' ? "" : cwd,
             w[0] == '/' ? "" : "/", w);
}

/* Is `path` inside one of the bot's own private directories (--private),
 * which the sandbox binds back after every hidden path? */
static int in_own(const char *path, const char *const *own)
{
    for (int i = 0; own && own[i]; i++)
        if (contains(own[i], path))
            return 1;
    return 0;
}

/* Would hiding directory `dir` hide what the bot needs: the working
 * directory, or a file its command names (its program, its script, a
 * --file=PATH) outside its own private directories (`own`, NULL or
 * NULL-terminated: bound back whatever covers them)? */
static int needed(const char *dir, const char *cwd, const char *cmd,
                  const char *const *own)
{
    if (contains(dir, cwd))
        return 1;
    char words[4096];
    snprintf(words, sizeof words, "%s", cmd);
    for (char *save = NULL, *word = strtok_r(words, " \t\"'", &save); word;
         word = strtok_r(NULL, " \t\"'", &save)) {
        for (int value = 0; value < 2; value++) {
            char path[5200];
            const char *w = word_path(word, value);
            if (!w)
                continue;
            from_cwd(w, cwd, path, sizeof path);
            if (contains(dir, path) && !in_own(path, own))
                return 1;
            /* as named, and resolved ("..", a link): the bot needs both */
            char real[PATH_MAX];
            if (realpath(path, real) && contains(dir, real) &&
                !in_own(real, own))
                return 1;
        }
    }
    return 0;
}

/* Executable `name` (no '/') looked up in PATH as the shell would, its
 * path in out; 0 when it is nowhere. */
static int find_in_path(const char *name, char *out, size_t len)
{
    const char *path = getenv("PATH");
    for (const char *d = path ? path : "/usr/bin:/bin"; d;) {
        const char *colon = strchr(d, ':');
        int n = colon ? (int)(colon - d) : (int)strlen(d);
        char try[PATH_MAX];
        struct stat st;
        if (snprintf(try, sizeof try, "%.*s/%s", n ? n : 1, n ? d : ".",
                     name) < (int)sizeof try &&
            stat(try, &st) == 0 && S_ISREG(st.st_mode) &&
            access(try, X_OK) == 0 && strlen(try) < len) {
            snprintf(out, len, "%s", try);
            return 1;
        }
        d = colon ? colon + 1 : NULL;
    }
    return 0;
}

/* The interpreter a script's "#!" line names (through PATH after
 * /usr/bin/env), in out; 0 when `file` is no such script. */
static int interpreter_of(const char *file, char *out, size_t len)
{
    char line[256] = "";
    struct stat st;
    FILE *f = stat(file, &st) == 0 && S_ISREG(st.st_mode) /* not a FIFO */
                  ? fopen(file, "re") : NULL;
    if (!f)
        return 0;
    int ok = fgets(line, sizeof line, f) && !strncmp(line, "#!", 2);
    fclose(f);
    char *save = NULL, *interp = ok ? strtok_r(line + 2, " \t\n", &save)
                                    : NULL;
    if (!interp || interp[0] != '/')
        return 0;
    const char *slash = strrchr(interp, '/');
    char *arg = strtok_r(NULL, " \t\n", &save);
    if (!strcmp(slash, "/env") && arg && arg[0] != '-' && !strchr(arg, '/'))
        return find_in_path(arg, out, len);
    return snprintf(out, len, "%s", interp) < (int)len;
}

/* The entries of /tmp (/tmp/X: a file or a directory, whole) that the
 * paths a command names lie in -- its program (found through PATH when
 * named bare) and that program's interpreter (#!), its script, a
 * --file=PATH; as named and resolved (a link, ".."), a relative one from
 * the working directory -- and the runtimes' search paths in the
 * environment (LD_LIBRARY_PATH, PYTHONPATH, VIRTUAL_ENV...).  The sandbox binds them back into the bot's
 * private /tmp, read-only: a program's libraries are often beside it
 * (RUNPATH $ORIGIN/..), and a program directly in /tmp is its own entry
 * (it once was not bound: the bot could not start and was charged
 * no_hello).  A path inside a working directory under /tmp is not
 * counted: that directory is bound back itself. */
#define MAX_TMP_ENTRIES 16

typedef struct tmp_entries {
    int n;
    char path[MAX_TMP_ENTRIES][PATH_MAX];
} tmp_entries;

static void tmp_entry_add(tmp_entries *t, const char *path, const char *cwd)
{
    char top[PATH_MAX];
    if (strncmp(path, "/tmp/", 5) != 0 || t->n == MAX_TMP_ENTRIES ||
        (contains("/tmp", cwd) && contains(cwd, path)))
        return;
    snprintf(top, sizeof top, "%s", path);
    char *slash = strchr(top + 5, '/');
    if (slash)
        *slash = 0;
    if (!strcmp(top + 5, "") || !strcmp(top + 5, ".") ||
        !strcmp(top + 5, "..") || access(top, F_OK) != 0)
        return;
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->path[i], top))
            return;
    snprintf(t->path[t->n++], PATH_MAX, "%s", top);
}

/* tmp_entry_add of path as named and as resolved (a link, ".."): the bot
 * needs both */
static void tmp_entry_add_both(tmp_entries *t, const char *path,
                               const char *cwd)
{
    char real[PATH_MAX];
    tmp_entry_add(t, path, cwd);
    if (realpath(path, real))
        tmp_entry_add(t, real, cwd);
}

static void find_tmp_entries(const char *cmd, const char *cwd, tmp_entries *t)
{
    char words[4096], program[PATH_MAX + 1100], interp[PATH_MAX];
    t->n = 0;
    /* the program itself: found through PATH (a bare name), and the
     * interpreter of a script (#!/tmp/venv/bin/python3) */
    snprintf(words, sizeof words, "%s", cmd);
    char *save = NULL, *first = strtok_r(words, " \t\"'", &save);
    if (first && strchr(first, '/'))
        from_cwd(first, cwd, program, sizeof program);
    if (first && (strchr(first, '/') ||
                  find_in_path(first, program, sizeof program))) {
        tmp_entry_add_both(t, program, cwd);
        if (interpreter_of(program, interp, sizeof interp))
            tmp_entry_add_both(t, interp, cwd);
    }
    snprintf(words, sizeof words, "%s", cmd);
    for (char *save = NULL, *word = strtok_r(words, " \t\"'", &save); word;
         word = strtok_r(NULL, " \t\"'", &save)) {
        for (int value = 0; value < 2; value++) {
            char path[5200];
            const char *w = word_path(word, value);
            if (!w)
                continue;
            from_cwd(w, cwd, path, sizeof path);
            tmp_entry_add_both(t, path, cwd);
        }
    }
    /* the search paths a runtime takes from the environment, which the
     * bot gets (botenv.c keeps them): a library, module or virtualenv
     * in /tmp */
    static const char *const search[] = {
        "LD_LIBRARY_PATH", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV",
        "PYENV_ROOT", "NODE_PATH", "CLASSPATH", "JAVA_HOME", NULL};
    for (int i = 0; search[i]; i++) {
        const char *value = getenv(search[i]);
        snprintf(words, sizeof words, "%s", value ? value : "");
        for (char *save = NULL, *d = strtok_r(words, ":", &save); d;
             d = strtok_r(NULL, ":", &save))
            tmp_entry_add_both(t, d, cwd);
    }
}

/* Is `path` (under /tmp) inside something the sandbox binds back into the
 * bot's private /tmp: the working directory or one of the command's
 * `entries` (find_tmp_entries)? */
static int bound_back(const char *path, const char *cwd,
                      const tmp_entries *entries)
{
    if (contains("/tmp", cwd) && contains(cwd, path))
        return 1;
    for (int i = 0; i < entries->n; i++)
        if (contains(entries->path[i], path))
            return 1;
    return 0;
}

/* Is hide[i] inside another entry that is a directory hidden whole? */
static int inside_hidden(const char *const *hide, int i, const char *cwd,
                         const char *cmd, const char *const *own)
{
    for (int j = 0; hide[j]; j++) {
        struct stat st;
        if (j == i || strcmp(hide[j], hide[i]) == 0 ||
            stat(hide[j], &st) != 0 || !S_ISDIR(st.st_mode) ||
            needed(hide[j], cwd, cmd, own))
            continue;
        if (contains(hide[j], hide[i]))
            return 1;
    }
    return 0;
}

/* The directory below the working directory that path w (word_path)
 * names (a directory itself, or the directory of a file), resolved, in
 * dir (PATH_MAX); 0 when there is none. */
static int named_dir(const char *w, const char *cwd, char *dir)
{
    char path[5200];
    struct stat st;
    if (!w)
        return 0;
    from_cwd(w, cwd, path, sizeof path);
    if (!realpath(path, dir) || stat(dir, &st) != 0)
        return 0;
    if (!S_ISDIR(st.st_mode)) {
        char *slash = strrchr(dir, '/');
        if (!S_ISREG(st.st_mode) || !slash || slash == dir)
            return 0;
        *slash = 0;
    }
    return contains(cwd, dir) && strcmp(cwd, dir) != 0;
}

/* Cover the directories the other seats' commands name below the working
 * directory (another entrant's program, weights, opening book), except
 * those this command needs: entrants share a machine, not their code.
 * Each covered once. */
static void hide_others(char *out, size_t len, const char *cwd,
                        const char *cmd, const char *const *others,
                        const char *const *own)
{
    /* from the root, "below the working directory" would be the system
     * itself (/usr/bin of another seat's /usr/bin/python3): nothing */
    if (!strcmp(cwd, "/"))
        return;
    for (int i = 0; others && others[i]; i++) {
        char words[4096];
        snprintf(words, sizeof words, "%s", others[i]);
        for (char *save = NULL, *w = strtok_r(words, " \t\"'", &save); w;
             w = strtok_r(NULL, " \t\"'", &save)) {
            for (int value = 0; value < 2; value++) {
                char dir[PATH_MAX], mount[PATH_MAX + 64] = " --tmpfs";
                if (!named_dir(word_path(w, value), cwd, dir) ||
                    needed(dir, cwd, cmd, own))
                    continue;
                add_quoted(mount, sizeof mount, dir);
                size_t n = strlen(mount);
                const char *at = strstr(out, mount);
                if (at && (at[n] == ' ' || at[n] == 0))
                    continue; /* covered already */
                add(out, len, "--size 4096");
                strncat(out, mount, len - strlen(out) - 1);
            }
        }
    }
}

char **maat_sandbox_host_sockets(void)
{
    char **list = calloc(MAAT_SANDBOX_MAX_SOCKETS + 1, sizeof *list);
    FILE *f = list ? fopen("/proc/net/unix", "re") : NULL;
    char line[512];
    int n = 0;
    while (f && n < MAAT_SANDBOX_MAX_SOCKETS && fgets(line, sizeof line, f)) {
        /* "Num RefCount Protocol Flags Type St Inode Path": the path is
         * what follows the seventh field (abstract ones start with '@').
         * Only a socket that listens (__SO_ACCEPTCON in Flags) or takes
         * datagrams (Type 2) can be reached; a client's bound socket,
         * often short-lived, cannot, and is left alone. */
        char *p = line, real[PATH_MAX];
        unsigned flags = 0, type = 0;
        if (sscanf(line, "%*s %*s %*s %x %x", &flags, &type) != 2 ||
            (!(flags & 0x10000) && type != 2))
            continue;
        for (int field = 0; field < 7 && *p; field++) {
            p += strspn(p, " ");
            p += strcspn(p, " \n");
        }
        p += strspn(p, " ");
        p[strcspn(p, "\n")] = 0;
        struct stat st;
        if (p[0] != '/' || !realpath(p, real) || lstat(real, &st) != 0 ||
            !S_ISSOCK(st.st_mode))
            continue;
        int seen = 0; /* each accepted connection lists its path again */
        for (int i = 0; i < n && !seen; i++)
            seen = !strcmp(list[i], real);
        if (!seen && !(list[n] = strdup(real)))
            break;
        n += !seen;
    }
    if (f)
        fclose(f);
    return list;
}

void maat_sandbox_sockets_free(char ***list)
{
    for (int i = 0; *list && (*list)[i]; i++)
        free((*list)[i]);
    free(*list);
    *list = NULL;
}

/* Is socket path s another referee's (TMPDIR/maat-XXXXXX/seat-N, or
 * its main socket there, made by this user)?  Those are not covered: they
 * come and go with their matches (a ladder's --jobs), and bubblewrap
 * cannot cover a path that vanished after the list was read -- the
 * sandbox would fail, the machine's failure (exit 5) for nothing.  A bot
 * that connects there is a stranger without that match's token, and is
 * ignored (REFEREE.md).  Another user's socket in a directory so named is
 * covered like any other: it could be a channel between two bots. */
static int other_referee(const char *s)
{
    const char *file = strrchr(s, '/'), *dir = file;
    struct stat st;
    while (dir && dir > s && dir[-1] != '/')
        dir--;
    return file && dir && file - dir == 11 && !strncmp(dir, "maat-", 5) &&
           lstat(s, &st) == 0 && st.st_uid == geteuid();
}

int maat_sandbox_needs(const char *dir, const char *cmd)
{
    char cwd[1024];
    return getcwd(cwd, sizeof cwd) && needed(dir, cwd, cmd, NULL);
}

int maat_sandbox_caps_tasks(char *prlimit, size_t len)
{
    return geteuid() != 0 && find_in_path("prlimit", prlimit, len);
}

int maat_sandbox_command(const maat_sandbox *sb, const char *cmd, char *out,
                         size_t len, const char **unhidden)
{
    char cwd[1024], size[32], bwrap[1100];
    *unhidden = NULL;
    if (!sb->socket_path || !getcwd(cwd, sizeof cwd))
        return -1;
    /* A private /tmp, bounded: what a bot writes there is host memory. */
    snprintf(size, sizeof size, "%llu", (unsigned long long)sb->tmp_bytes);
    /* looked up here, so that the command needs no shell to find it
     * (proc.c then execs it directly); "bwrap" when it is nowhere (the
     * shell then says so) */
    if (!find_in_path("bwrap", bwrap, sizeof bwrap))
        snprintf(bwrap, sizeof bwrap, "bwrap");
    snprintf(out, len, "exec");
    add_quoted(out, len, bwrap);
    /* Each option buys something no other gives (docs/REFEREE.md,
     * "Isolation"; bench/bench_sandbox.py times each): the file system
     * read-only; a /dev of its own (null, zero, random...: no disk, no
     * host terminal, a private /dev/shm); /proc of its own PID namespace
     * (below), so no other process's environment or command line. */
    add(out, len, "--ro-bind / / --dev /dev --proc /proc");
    if (sb->tmp_bytes) {
        add(out, len, "--size");
        add(out, len, size);
    }
    add(out, len, "--tmpfs /tmp");
    /* bubblewrap's /dev is a tmpfs as big as half the host's memory, and
     * /dev/shm a directory in it: a bot could have filled either with
     * gigabytes that no limit of its own counts (a file in a tmpfs is in
     * no process's memory, so the out-of-memory killer could not take it
     * back by killing the bot).  /dev/shm gets a tmpfs of /tmp's size, and
     * /dev is made read-only once the last thing is mounted in it (below,
     * after /dev/tty). */
    if (sb->tmp_bytes) {
        add(out, len, "--size");
        add(out, len, size);
    }
    add(out, len, "--tmpfs /dev/shm");
    /* An empty /run: the host's daemons keep their sockets there (Docker,
     * D-Bus, systemd, a user's runtime directory), and a read-only mount
     * does not stop connect() -- a bot of a referee run as root could
     * have talked to Docker.  Kept when the bot runs from there. */
    int run_emptied = !needed("/run", cwd, cmd, NULL);
    if (run_emptied)
        add(out, len, "--size 4096 --tmpfs /run");
    /* The referee's directory stays reachable even when it is under /tmp,
     * read-only like the rest. */
    if (contains("/tmp", cwd)) {
        add(out, len, "--ro-bind");
        add_quoted(out, len, cwd);
        add_quoted(out, len, cwd);
    }
    /* what the command names under /tmp stays reachable too (read-only):
     * e.g. a bot built in a clone under /tmp, or compiled to /tmp/bot */
    tmp_entries entries; /* 64 KiB: the referee's stack has 8 MiB */
    find_tmp_entries(cmd, cwd, &entries);
    for (int i = 0; i < entries.n; i++) {
        add(out, len, "--ro-bind");
        add_quoted(out, len, entries.path[i]);
        add_quoted(out, len, entries.path[i]);
    }
    /* The host's other Unix sockets the bot would see: the same reason
     * as /run, wherever else a daemon listens (a socket the command names
     * is the organiser's choice, and stays).  The referee's own, for the
     * seats, are under a directory covered below. */
    char sockets[1024];
    snprintf(sockets, sizeof sockets, "%s", sb->socket_path);
    char *last = strrchr(sockets, '/');
    if (last && last != sockets)
        *last = 0;
    for (int i = 0; sb->host_sockets && sb->host_sockets[i]; i++) {
        const char *s = sb->host_sockets[i];
        if ((contains("/tmp", s) && !bound_back(s, cwd, &entries)) ||
            (contains("/run", s) && run_emptied) || contains(sockets, s) ||
            other_referee(s) || needed(s, cwd, cmd, NULL))
            continue;
        add(out, len, "--ro-bind /dev/null");
        add_quoted(out, len, s);
    }
    /* What the referee writes (records, ladder, logs, the tournament's
     * state) is hidden: an empty directory or an empty file in its place.
     * A directory that holds the working directory or the bot's program
     * cannot be hidden without hiding the bot. */
    for (int i = 0; sb->hide && sb->hide[i]; i++) {
        struct stat st;
        const char *h = sb->hide[i];
        if (h[0] != '/' || stat(h, &st) != 0)
            continue; /* relative (the caller resolves), or absent */
        /* The bot's /tmp is a new one: of the host's, it sees only what is
         * bound back above.  A path under /tmp outside those is hidden
         * already, and covering it again would cover those binds (a
         * record in /tmp itself hid the socket: no bot could say hello)
         * and shrink the bot's /tmp to 4 KiB. */
        if (contains("/tmp", h) && !bound_back(h, cwd, &entries))
            continue;
        if (S_ISDIR(st.st_mode) && needed(h, cwd, cmd, sb->own)) {
            if (!*unhidden)
                *unhidden = h;
            continue;
        }
        if (inside_hidden(sb->hide, i, cwd, cmd, sb->own))
            continue; /* gone with a directory hidden whole */
        /* (a hidden directory is a 4 KiB tmpfs: it must not become free
         * host memory for the bot) */
        add(out, len, S_ISDIR(st.st_mode) ? "--size 4096 --tmpfs"
                                          : "--ro-bind /dev/null");
        add_quoted(out, len, h);
    }
    hide_others(out, len, cwd, cmd, sb->others, sb->own);
    /* --private: the other seats' directories hidden (the caller refused
     * the match if this bot needs one), then its own bound back, read-only,
     * over whatever hid them (--hide of a directory that holds them all) */
    for (int i = 0; sb->not_own && sb->not_own[i]; i++) {
        const char *d = sb->not_own[i];
        if (contains("/tmp", d) && !bound_back(d, cwd, &entries))
            continue; /* not in its new /tmp anyway */
        add(out, len, "--size 4096 --tmpfs");
        add_quoted(out, len, d);
    }
    for (int i = 0; sb->own && sb->own[i]; i++) {
        add(out, len, "--ro-bind");
        add_quoted(out, len, sb->own[i]);
        add_quoted(out, len, sb->own[i]);
    }
    /* The seat's own socket file, and no other: the referee's directory
     * of sockets is covered where the bot would see it (outside /tmp:
     * $TMPDIR elsewhere; or under a path bound back), or it could
     * connect to the other seats' sockets.  Then the socket is mounted
     * read-only, so the bot can neither replace it nor bind a socket of
     * its own there; after the hidden paths, so that hiding a directory
     * that holds it (a record beside the socket's directory) does not
     * cover it: bubblewrap makes its parent directories in a tmpfs. */
    if (last && last != sockets) {
        if (!contains("/tmp", sockets) ||
            bound_back(sockets, cwd, &entries)) {
            add(out, len, "--size 4096 --tmpfs");
            add_quoted(out, len, sockets);
        }
    }
    add(out, len, "--ro-bind");
    add_quoted(out, len, sb->socket_path);
    add_quoted(out, len, sb->socket_path);
    /* No terminal: its descriptors are /dev/null and a pipe (proc.c), and
     * /dev/tty, which names the session's controlling terminal, is
     * /dev/null here, so there is none to read or inject input into
     * (TIOCSTI).  That is what bwrap's --new-session is for; a session of
     * its own would also put the bot in a scheduling group of its own
     * (autogroup), which made a sandboxed game's round trips to the
     * referee twice as slow on a loaded machine (issue 19).  It stays in
     * the process group proc.c made, with its bubblewrap processes. */
    add(out, len, "--ro-bind /dev/null /dev/tty --remount-ro /dev");
    /* No network, not even the host's abstract Unix sockets; no System V
     * IPC or POSIX queues shared with another bot; no other process seen
     * or signalled; its own host name; gone with the referee. */
    add(out, len, "--unshare-net --unshare-ipc --unshare-pid --unshare-uts "
                  "--die-with-parent --setenv TMPDIR /tmp");
    /* A user namespace of its own and no capability in it.  Without them a
     * root referee's bot ran as root with nearly every capability: it could
     * take bubblewrap's /proc off and see the host's (every token, the
     * referee's seed file through /proc/PID/root), and write another
     * bot's memory.  In a user namespace the mounts it inherits are
     * locked, and its keyrings are its own.  (An ordinary user's bubblewrap
     * makes one anyway.) */
    add(out, len, "--unshare-user --cap-drop ALL");
    /* The start gate (proc.h): bubblewrap takes its byte once the sandbox
     * is made, so a bot that never said hello is told apart from a sandbox
     * that could not be made -- the machine's failure, not the bot's. */
    char fds[64];
    snprintf(fds, sizeof fds, "--block-fd %d", MAAT_PROC_GATE_FD);
    add(out, len, fds);
    /* No session or process group of its own (setsid, setpgid: EPERM): all
     * it starts stays in the group the referee lowers while others decide
     * and whose CPU the fair clock counts (maat_sandbox_filter_open). */
    snprintf(fds, sizeof fds, "--seccomp %d", MAAT_PROC_PASS_FD);
    add(out, len, fds);
    add(out, len, "--chdir");
    add_quoted(out, len, cwd);
    /* The cap on its tasks, set inside its user namespace, where only its
     * own tasks count (maat_sandbox_caps_tasks) */
    if (sb->tasks && sb->prlimit) {
        char opt[64];
        add_quoted(out, len, sb->prlimit);
        snprintf(opt, sizeof opt, "--nproc=%llu:%llu --",
                 (unsigned long long)sb->tasks,
                 (unsigned long long)sb->tasks);
        add(out, len, opt);
    }
    /* A command that means the same without a shell runs without one
     * (bwrap takes a word starting with '-' for an option) */
    char **argv = maat_proc_words(cmd);
    if (argv && argv[0][0] != '-') {
        for (char **w = argv; *w; w++)
            add_quoted(out, len, *w);
    } else { /* as without the sandbox: exec only a simple command
              * ("cd DIR && exec ./bot" as "exec cd ..." found no cd) */
        add(out, len, "/bin/sh -c");
        char inner[MAAT_MAX_COMMAND + sizeof "exec "];
        if (strlen(cmd) > MAAT_MAX_COMMAND) {
            free(argv);
            return -1;
        }
        snprintf(inner, sizeof inner, "%s%s",
                 maat_proc_shell_can_exec(cmd) ? "exec " : "", cmd);
        add_quoted(out, len, inner);
    }
    free(argv);
    return strlen(out) + 1 < len ? 0 : -1;
}
