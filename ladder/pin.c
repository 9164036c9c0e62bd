/* pin.c -- reading the allowed CPU set, the CPU of a job slot, and pinning
 * a forked referee to it (see pin.h).  Used by tournament.c and compare.c
 * so both place their referees the same way. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pin.h"

int maat_pin_cpus_read(maat_pin_cpus *c, maat_error *err)
{
    memset(c, 0, sizeof *c);
    /* the kernel refuses (EINVAL) a mask smaller than its own: grow it */
    for (int ncpu = CPU_SETSIZE;; ncpu *= 2) {
        cpu_set_t *set = CPU_ALLOC(ncpu);
        size_t size = CPU_ALLOC_SIZE(ncpu);
        if (!set)
            return maat_error_set(err, MAAT_ENOMEM, "out of memory");
        CPU_ZERO_S(size, set);
        if (sched_getaffinity(0, size, set) == 0) {
            int bits = (int)(size * 8), count = CPU_COUNT_S(size, set);
            c->cpu = malloc(sizeof *c->cpu * (size_t)(count > 0 ? count : 1));
            for (int i = 0; c->cpu && i < bits; i++)
                if (CPU_ISSET_S(i, size, set))
                    c->cpu[c->n++] = i;
            CPU_FREE(set);
            if (!c->cpu)
                return maat_error_set(err, MAAT_ENOMEM, "out of memory");
            if (c->n == 0) {
                maat_pin_cpus_free(c);
                return maat_error_set(err, MAAT_EIO, "cannot pin matches to "
                                      "CPUs: sched_getaffinity returned no "
                                      "CPU");
            }
            return MAAT_OK;
        }
        int e = errno;
        CPU_FREE(set);
        if (e != EINVAL || ncpu >= (1 << 20))
            return maat_error_set(err, MAAT_EIO, "cannot pin matches to CPUs: "
                                  "sched_getaffinity: %s", strerror(e));
    }
}

void maat_pin_cpus_free(maat_pin_cpus *c)
{
    free(c->cpu);
    memset(c, 0, sizeof *c);
}

int maat_pin_slot_cpu(const maat_pin_cpus *c, int slot)
{
    return c->cpu[slot % c->n];
}

int maat_pin_self(int cpu)
{
    if (cpu < 0)
        return EINVAL;
    cpu_set_t *set = CPU_ALLOC(cpu + 1);
    size_t size = CPU_ALLOC_SIZE(cpu + 1);
    if (!set)
        return ENOMEM;
    CPU_ZERO_S(size, set);
    CPU_SET_S(cpu, size, set);
    int rc = sched_setaffinity(0, size, set) == 0 ? 0 : errno;
    CPU_FREE(set);
    return rc;
}

void maat_pin_child(int cpu, const char *match)
{
    int e = maat_pin_self(cpu);
    if (e) {
        fprintf(stderr, "maat-ladder: cannot pin the referee of match %s to "
                "CPU %d: %s\n", match, cpu, strerror(e));
        _exit(127);
    }
}
