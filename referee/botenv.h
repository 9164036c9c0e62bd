/* botenv.h -- which of the referee's environment variables a bot gets.
 *
 * A sandboxed bot starts with a short list of the referee's variables
 * (maat_botenv_kept: the system's, the language runtimes' search paths,
 * thread counts, sanitizer settings, ours: MAAT_*) and what --bot-env
 * adds, not with all of them: the shell or CI job that runs a referee may
 * hold tokens and keys, and a bot could print them into a log that a
 * league publishes beside its replays.  A bot run without the sandbox can
 * read the referee's environment from /proc anyway, so it gets the whole
 * of it, plus what --bot-env sets.
 *
 * A --bot-env SPEC is one of
 *   NAME        pass NAME from the referee's environment (when it is set)
 *   NAME=VALUE  set NAME to VALUE
 *   PREFIX*     pass every variable whose name starts with PREFIX
 *   *           pass the whole environment (as without the sandbox)
 * where NAME and PREFIX are letters, digits and '_' (not starting with a
 * digit; PREFIX may be empty only in "*").
 */
#ifndef MAAT_BOTENV_H
#define MAAT_BOTENV_H

#include "maat/error.h"

/* The names and prefixes (ending in '*') every sandboxed bot gets, NULL
 * terminated: the list docs/REFEREE.md gives. */
extern const char *const maat_botenv_kept[];

/* MAAT_OK when `spec` is a --bot-env SPEC; MAAT_EINVAL and a message
 * naming it otherwise. */
int maat_botenv_check(const char *spec, maat_error *err);

/* The environment a bot starts with: of `from` (an environment:
 * "NAME=value" strings, NULL terminated) every NAME=value entry when
 * `clean` is 0, else those maat_botenv_kept or a spec passes (an entry
 * without a name or '=' is never passed); then each NAME=VALUE spec; then
 * `seat` (the referee's per-seat "NAME=value" entries, NULL-terminated,
 * or NULL).  Specs must have passed maat_botenv_check.  Returns a
 * NULL-terminated array the caller frees with free() alone -- the strings
 * are borrowed from `from`, `specs` and `seat`, which must outlive it --
 * or NULL when out of memory.  A name may appear more than once (an
 * inherited entry, a spec's NAME=VALUE, the seat's): the later entry wins
 * when the array is given to maat_proc_spawn as `env`, so the seat's
 * own variables cannot be changed by a spec. */
char **maat_botenv_make(char *const from[], int clean,
                        const char *const specs[], int n_specs,
                        char *const seat[]);

#endif
