/* sandbox.h -- running a bot under bubblewrap (docs/REFEREE.md, --sandbox).
 */
#ifndef MAAT_SANDBOX_H
#define MAAT_SANDBOX_H

#include <stddef.h>

/* Write into out (len bytes) the /bin/sh command that runs `cmd` in a
 * bubblewrap sandbox: the whole file system read-only, a private empty
 * /tmp, no network, no System V IPC, its own PID namespace; the directory
 * `ipc_dir` of the referee's socket stays reachable.  -1 when ipc_dir is
 * NULL or the result does not fit. */
int maat_sandbox_command(const char *ipc_dir, const char *cmd, char *out,
                         size_t len);

#endif
