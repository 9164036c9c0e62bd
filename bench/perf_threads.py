#!/usr/bin/env python3
"""perf_threads.py -- where one thread's CPU goes, per decision, from a
`perf record -g` profile: its samples split into user space (by library)
and the system calls its kernel samples were under.

    perf record -F 4000 -g -o P.data -- COMMAND...
    perf script -i P.data -F comm,tid,ip,sym,dso > P.txt
    python3 bench/perf_threads.py P.txt TID DECISIONS [HZ]

TID: the thread (perf report -i P.data --sort pid lists them); DECISIONS:
how many decisions (or round trips) the run made; HZ: perf's -F (default
4000).  Each sample stands for 1/HZ s of CPU.  Prints microseconds per
decision: the thread's total, each system call (kernel samples whose
stack has the call's __x64_sys_ entry; others by their first frame), and
user time by library and by function (the first frame of the stack).
Used in docs/PERFORMANCE.md (issue 19, eleventh session)."""
import collections
import re
import sys


def samples(path, tid):
    """Each sample of thread `tid`: its stack, innermost frame first."""
    cur, stack = None, []
    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        if not line.strip():
            if cur is not None:
                yield stack
            cur, stack = None, []
        elif not line.startswith((' ', '\t')):
            f = line.split()
            cur = f[1] if len(f) > 1 and f[1] == tid else None
            stack = []
        elif cur is not None:
            stack.append(line.strip())
    if cur is not None:
        yield stack


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    path, tid, n = sys.argv[1], sys.argv[2], float(sys.argv[3])
    hz = float(sys.argv[4]) if len(sys.argv) > 4 else 4000.0
    per = 1e6 / hz / n
    calls, libs, funcs = (collections.Counter() for _ in range(3))
    total = 0
    for stack in samples(path, tid):
        total += 1
        top = stack[0] if stack else '? (?)'
        if '[kernel' in top:
            name = None
            for fr in stack:
                m = re.search(r'(__x64_sys_\w+|__do_sys_\w+)', fr)
                if m:
                    name = m.group(1)
                    break
            calls[name or 'kernel, other: ' + top.split()[1]] += 1
        else:
            body = top.split(None, 1)[1] if ' ' in top else top
            sym, _, dso = body.rpartition(' (')
            dso = dso.rstrip(')').split('/')[-1]
            libs[dso] += 1
            funcs['%s [%s]' % (sym, dso)] += 1
    print('thread %s: %d samples, %.2f us a decision' % (tid, total,
                                                          total * per))
    print('\nsystem calls and other kernel work (us a decision):')
    for k, v in calls.most_common(15):
        print('  %-50s %7.2f' % (k, v * per))
    print('\nuser space by library (us a decision):')
    for k, v in libs.most_common(10):
        print('  %-50s %7.2f' % (k, v * per))
    print('\nuser space by function (us a decision):')
    for k, v in funcs.most_common(20):
        print('  %-50s %7.2f' % (k[:50], v * per))
    return 0


if __name__ == '__main__':
    sys.exit(main())
