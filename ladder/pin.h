/* pin.h -- one CPU per match (`maat-ladder run|demo|compare --pin`).
 *
 * A match is one strict chain of work: the referee sends, a bot answers,
 * the referee sends again.  Its processes gain nothing from a second core
 * and pay for every wake-up that crosses cores; and when several matches
 * run at once, processes floating over all cores let one match's bots slow
 * another match.  With pinning, job slot k (0..jobs-1) runs its referee on
 * the k-th CPU this process may use (wrapping around when there are more
 * slots than CPUs); the referee's bots inherit it.  tournament.c and
 * compare.c both pin through these helpers.  docs/LADDER.md.
 */
#ifndef MAAT_PIN_H
#define MAAT_PIN_H

#include "maat/error.h"

typedef struct maat_pin_cpus {
    int *cpu; /* the CPUs this process may run on, ascending */
    int n;
} maat_pin_cpus;

/* Read the allowed CPU set (sched_getaffinity); an error names the call. */
int maat_pin_cpus_read(maat_pin_cpus *c, maat_error *err);
void maat_pin_cpus_free(maat_pin_cpus *c);
/* The CPU of job slot `slot` >= 0: the slot-th allowed CPU, wrapping. */
int maat_pin_slot_cpu(const maat_pin_cpus *c, int slot);
/* Pin the calling process to `cpu` alone: 0, or an errno value. */
int maat_pin_self(int cpu);
/* In a forked child before execv: pin to `cpu`, or print "maat-ladder:
 * cannot pin the referee of match MATCH to CPU C: ..." and _exit(127), as
 * when execv fails.  Never runs a match unpinned that should be pinned. */
void maat_pin_child(int cpu, const char *match);

#endif
