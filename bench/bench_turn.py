#!/usr/bin/env python3
"""bench_turn.py -- does a bot think on its own time only?

A thinking bot (maat-mcts with a fixed time budget per decision) plays
Pyramids against an opponent that burns CPU with several threads all match
long (maat-hostile-bot --mode spin).  From the record (--record-timing) it
sums, over the thinking bot's own decisions, the CPU its process used and
the wall time the decision took: the share of a CPU it got during its turn.
The same is measured against an idle opponent (maat-random), and with the
referee's --ponder (idle bots at full priority), on one CPU (everything
pinned to CPU 0 with taskset) and on every CPU.

The goal (issue 15): with a spinning opponent the thinking bot keeps at
least 90% of what it gets alone.  Lowering an idle bot's priority needs
root (or RLIMIT_NICE); the referee says so when it cannot.

Usage: bench/bench_turn.py [BUILD_DIR] [--games N] [--budget-ms MS]
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
args = [a for a in sys.argv[1:]]
build = os.path.join(here, '..', 'build')
games, budget, threads = 2, 100, 4
i = 0
while i < len(args):
    if args[i] == '--games':
        games = int(args[i + 1]); i += 2
    elif args[i] == '--budget-ms':
        budget = int(args[i + 1]); i += 2
    else:
        build = args[i]; i += 1
referee = os.path.join(build, 'referee', 'maat-referee')
mcts = os.path.join(build, 'sample-bots', 'maat-mcts')
rnd = os.path.join(build, 'sample-bots', 'maat-random')
spin = os.path.join(build, 'tests', 'maat-hostile-bot')


def share(opponent, ponder, cpus):
    """CPU share of the thinking bot during its own decisions."""
    cpu = wall = 0
    with tempfile.TemporaryDirectory() as d:
        for g in range(games):
            rec = os.path.join(d, 'r%d.json' % g)
            cmd = [referee, '--seed', str(100 + g), '--fixed-seats',
                   '--record', rec, '--record-timing', '--quiet',
                   '--time', str(budget * 5), '--first-time',
                   str(budget * 10),
                   '--bot', 'thinker=%s --budget-ms %d' % (mcts, budget),
                   '--bot', 'other=' + opponent]
            if ponder:
                cmd.append('--ponder')
            if cpus:
                cmd = ['taskset', '-c', cpus] + cmd
            subprocess.run(cmd, check=True, timeout=600)
            with open(rec) as f:
                r = json.load(f)
            for dec in r['decisions']:
                if dec['seat'] == 0 and dec['by'] == 'bot':
                    cpu += dec['cpu_us']
                    wall += dec['wall_us']
    return cpu / wall if wall else 0.0


def main():
    for exe in (referee, mcts, rnd, spin):
        if not os.access(exe, os.X_OK):
            print('missing %s: build first (ninja -C build)' % exe)
            return 1
    spinner = '%s --mode spin --count %d' % (spin, threads)
    cpu_sets = [('one CPU', '0')]
    if shutil.which('taskset') is None:
        cpu_sets = []
    cpu_sets.append(('all CPUs', None))
    print('thinking bot: maat-mcts --budget-ms %d, %d games per row; share of '
          'a CPU during its own decisions' % (budget, games))
    for label, cpus in cpu_sets:
        alone = share(rnd, False, cpus)
        turn = share(spinner, False, cpus)
        ponder = share(spinner, True, cpus)
        print('%-9s alone %5.1f%%   vs %d spinning threads: %5.1f%% '
              '(%.0f%% of alone)   with --ponder: %5.1f%% (%.0f%% of alone)'
              % (label, 100 * alone, threads, 100 * turn,
                 100 * turn / alone if alone else 0, 100 * ponder,
                 100 * ponder / alone if alone else 0))
    return 0


if __name__ == '__main__':
    sys.exit(main())
