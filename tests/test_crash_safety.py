#!/usr/bin/env python3
"""test_crash_safety.py -- kill -9 at random moments loses nothing (issue 7).

1. A tournament (maat-ladder run CONFIG --jobs 2: 30 matches, 3 seats,
   duplicate seats, so 90 games) is killed with SIGKILL -- maat-ladder and
   its maat-referee children at once, through their process group -- 15
   times at random moments (seeded RNG), each time once the ladder file
   has grown by a complete match since the last resume.  After each kill: every complete line
   of the ladder file parses (at most a torn last line, which standings
   reports and skips), no complete match is lost, at most the matches in
   flight (--jobs) are missing below the last complete one, and no bot
   survives its killed referee (PR_SET_PDEATHSIG).  Then `run` again until
   it completes: every game id of the schedule is in the file, and
   `standings` counts each id once -- games per bot equal the schedule --
   even though re-played partial matches left duplicate lines (and one
   torn line, simulated, sits in the middle of the file).
2. A lone maat-referee (--ladder, --record, a 2-game series) is killed with
   SIGKILL during game 1: game 0's line is intact, nothing at all is
   written for game 1, and every bot of the match dies.

Processes are found by MAAT_TEST_MARKER=<uuid> in their environment.  Waits
poll with deadlines (readiness); the only sleeps are the random kill delays.
"""
import itertools
import json
import os
import random
import shlex
import signal
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from maattest import (BUILD, HOSTILE, RANDOM, REFEREE, check,  # noqa: E402
                      describe, kill_marked, proc_state, report, short,
                      wait_no_marked)

LADDER = os.path.abspath(os.environ.get(
    'MAAT_LADDER', os.path.join(BUILD, 'ladder', 'maat-ladder')))

SEED = int(os.environ.get('MAAT_CRASH_SEED', '20261121'))
MATCHES = 30
SEATS = 3
JOBS = 2
KILLS = 15
NAME = 'crash'


# ---- the ladder file --------------------------------------------------

def read_ladder(path):
    """(complete lines as raw strings, torn tail or '')."""
    try:
        with open(path, 'rb') as f:
            data = f.read().decode('utf-8', errors='replace')
    except FileNotFoundError:
        return [], ''
    parts = data.split('\n')
    return [p for p in parts[:-1] if p.strip()], parts[-1]


def parse(lines):
    games, bad = [], []
    for l in lines:
        try:
            g = json.loads(l)
            if not isinstance(g, dict) or 'id' not in g:
                raise ValueError
            games.append(g)
        except ValueError:
            bad.append(l)
    return games, bad


def match_ids(games):
    """Matches with every game present (by index), and with some."""
    per = {}
    for g in games:
        i = int(g['id'].rsplit('-', 2)[1])
        per.setdefault(i, set()).add(g['game_index'])
    done = {i for i, ks in per.items() if ks == set(range(SEATS))}
    return done, set(per) - done


def standings(path):
    p = subprocess.run([LADDER, 'standings', path, '--format', 'json'],
                       capture_output=True, text=True, timeout=120)
    try:
        rows = json.loads(p.stdout)
    except ValueError:
        rows = None
    return p.returncode, rows, p.stderr


# ---- 1. a tournament killed again and again ---------------------------

def tournament(tmp):
    d = os.path.join(tmp, 'tournament')
    os.makedirs(d)
    lad = os.path.join(d, 'ladder.jsonl')
    bots = [('rnd1', RANDOM), ('rnd2', RANDOM),
            ('slow1', '%s --mode slow --delay 5' % shlex.quote(HOSTILE)),
            ('slow2', '%s --mode slow --delay 10' % shlex.quote(HOSTILE))]
    conf = {'name': NAME, 'referee': REFEREE, 'seats': SEATS,
            'matches': MATCHES, 'duplicate': True, 'seed': 3,
            'ladder': lad, 'referee_args': ['--time', '2000',
                                            '--first-time', '5000'],
            'bots': [{'name': n, 'command': c} for n, c in bots]}
    cpath = os.path.join(d, 'tour.json')
    with open(cpath, 'w') as f:
        json.dump(conf, f, indent=1)
    rng = random.Random(SEED)
    marker = str(uuid.uuid4())
    env = dict(os.environ, MAAT_TEST_MARKER=marker)
    for k in ('MAAT_ENDPOINT', 'MAAT_TOKEN', 'MAAT_BOT_NAME',
              'MAAT_PIDFILE_DIR'):
        env.pop(k, None)
    cmd = [LADDER, 'run', cpath, '--jobs', str(JOBS), '--quiet']

    prev_done = set()
    known_torn = set()   # torn fragments seen: they may later be complete
    kills = 0
    completed_early = False
    label = 'tournament'
    try:
        for k in range(KILLS):
            done_before = len(match_ids(parse(read_ladder(lad)[0])[0])[0])
            p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True,
                                 start_new_session=True)
            # readiness: the file grew by a complete match since this
            # resume started (so every resume makes progress)
            deadline = time.monotonic() + 90
            grew = False
            while time.monotonic() < deadline and p.poll() is None:
                games, _ = parse(read_ladder(lad)[0])
                if len(match_ids(games)[0]) > done_before:
                    grew = True
                    break
                time.sleep(0.02)
            if p.poll() is not None:
                err = p.stderr.read()
                check(p.returncode == 0, '%s: run %d ended by itself with '
                      'exit 0' % (label, k), 'rc %r: %s' % (p.returncode,
                                                           short(err)))
                completed_early = True
                break
            if not check(grew, '%s: kill %d: the ladder file grows by a '
                         'match after resuming' % (label, k)):
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
                break
            time.sleep(rng.uniform(0.0, 1.5))  # the random moment
            # maat-ladder and its referees share the process group
            # (start_new_session); bots have groups of their own
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
            p.stderr.close()
            kills += 1
            living = wait_no_marked(marker, 10.0)
            check(not living, '%s: kill %d: no referee or bot survives '
                  '(PR_SET_PDEATHSIG)' % (label, k), describe(living))
            kill_marked(marker)
            lines, torn = read_ladder(lad)
            games, bad = parse(lines)
            bad = [b for b in bad if b not in known_torn]
            check(not bad, '%s: kill %d: every complete line parses '
                  '(%d lines)' % (label, k, len(lines)),
                  'bad: %r' % [b[:80] for b in bad])
            if torn:
                known_torn.add(torn)
                rc, rows, err = standings(lad)
                check(rc == 0 and 'torn last line' in err,
                      '%s: kill %d: standings reports and skips the torn '
                      'last line' % (label, k), short(err))
            done, partial = match_ids(games)
            check(prev_done <= done, '%s: kill %d: no complete match lost '
                  '(%d complete)' % (label, k, len(done)),
                  'lost %r' % sorted(prev_done - done))
            top = max(done) if done else -1
            holes = [i for i in range(top) if i not in done]
            check(len(partial) <= JOBS and len(holes) <= JOBS,
                  '%s: kill %d: at most the %d matches in flight are '
                  'missing (partial %r, holes below %d: %r)'
                  % (label, k, JOBS, sorted(partial), top, holes))
            prev_done = done
        check(kills >= 10 or completed_early,
              '%s: %d kills landed mid-tournament' % (label, kills))

        # a torn last line, as a writer killed mid-write would leave it
        lines, torn = read_ladder(lad)
        if lines and not torn:
            frag = lines[-1][:len(lines[-1]) // 2]
            with open(lad, 'a') as f:
                f.write(frag)
            known_torn.add(frag)
            rc, rows, err = standings(lad)
            games, _ = parse(lines)
            ids = {g['id'] for g in games}
            total = sum(r['games'] for r in rows or [])
            check(rc == 0 and 'torn last line' in err and
                  total == SEATS * len(ids),
                  '%s: a torn last line is reported and skipped; the '
                  'counts are those of the complete lines' % label,
                  'rc %r, games %d vs %d: %s' % (rc, total, SEATS * len(ids),
                                                 short(err)))

        # resume until the tournament is complete
        for attempt in range(5):
            p = subprocess.run(cmd, env=env, capture_output=True, text=True,
                               timeout=600)
            if p.returncode == 0:
                break
        check(p.returncode == 0, '%s: the resumed run completes (exit 0)'
              % label, 'rc %r: %s' % (p.returncode, short(p.stderr)))
        living = wait_no_marked(marker, 10.0)
        check(not living, '%s: nothing left running after the last run'
              % label, describe(living))
        lines, torn = read_ladder(lad)
        games, bad = parse(lines)
        # a tail torn on purpose above stays last when the resumed run had
        # nothing left to append (the kills let the tournament finish)
        check((not torn or torn in known_torn) and
              all(b in known_torn for b in bad),
              '%s: the file ends on a complete line or our own torn tail; '
              'the only bad lines are the torn ones (%d)' % (label, len(bad)),
              'bad %r, tail %r' % ([b[:60] for b in bad], torn[:60]))
        want = {'%s-%d-%d' % (NAME, i, g) for i in range(MATCHES)
                for g in range(SEATS)}
        ids = [g['id'] for g in games]
        check(set(ids) == want, '%s: every game of the schedule is in the '
              'file (%d ids)' % (label, len(set(ids))),
              'missing %r, extra %r' % (sorted(want - set(ids))[:10],
                                        sorted(set(ids) - want)[:10]))
        dups = len(ids) - len(set(ids))
        print('#   %d lines, %d unique ids, %d duplicate lines (re-played '
              'partial matches), %d torn fragments'
              % (len(ids), len(set(ids)), dups, len(known_torn)), flush=True)
        # the schedule: match i is the (i mod C)-th 3-subset of the bots
        combos = list(itertools.combinations(range(len(bots)), SEATS))
        sched = {n: 0 for n, _ in bots}
        for i in range(MATCHES):
            for b in combos[i % len(combos)]:
                sched[bots[b][0]] += SEATS
        # first line of each id wins; tally independently of maat-ladder
        first = {}
        for g in games:
            first.setdefault(g['id'], g)
        mine = {n: 0 for n, _ in bots}
        for g in first.values():
            for b in g['bots']:
                mine[b] += 1
        check(mine == sched, '%s: the file holds the scheduled games per '
              'bot' % label, 'file %r vs schedule %r' % (mine, sched))
        rc, rows, err = standings(lad)
        got = {r['bot']: r['games'] for r in rows or []}
        check(rc == 0 and got == sched,
              '%s: standings count each game id once: games per bot equal '
              'the schedule %r' % (label, sched),
              'rc %r, got %r; %s' % (rc, got, short(err)))
        if bad:
            check('line skipped' in err, '%s: standings reports the torn '
                  'line(s) it skips' % label, short(err))
    finally:
        kill_marked(marker)


# ---- 2. a lone referee killed mid-game --------------------------------

def lone_referee(tmp):
    d = os.path.join(tmp, 'lone')
    piddir = os.path.join(d, 'pids')
    os.makedirs(piddir)
    lad = os.path.join(d, 'ladder.jsonl')
    rec = os.path.join(d, 'record.json')
    marker = str(uuid.uuid4())
    env = dict(os.environ, MAAT_TEST_MARKER=marker, MAAT_PIDFILE_DIR=piddir)
    names = ['s0', 's1', 's2']
    cmd = [REFEREE, '--fixed-seats', '--seed', '5', '--games', '2',
           '--match-id', 'lone', '--ladder', lad, '--record', rec,
           '--time', '2000']
    for n in names:
        cmd += ['--bot', '%s=%s --mode slow --delay 15' % (n, shlex.quote(
            HOSTILE))]
    label = 'lone referee killed in game 1 of 2'
    ref = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and ref.poll() is None:
            if len(read_ladder(lad)[0]) >= 1:
                break
            time.sleep(0.01)
        if not check(ref.poll() is None and len(read_ladder(lad)[0]) == 1,
                     '%s: game 0 is written, game 1 under way' % label):
            return
        time.sleep(random.Random(SEED).uniform(0.2, 0.6))  # mid game 1
        check(ref.poll() is None, '%s: still playing game 1 at the kill'
              % label)
        ref.send_signal(signal.SIGKILL)
        ref.wait()
        pids = {}
        for f in os.listdir(piddir):
            if f.endswith('.pid'):
                with open(os.path.join(piddir, f)) as fh:
                    pids[f[:-4]] = int(fh.read())
        check(sorted(pids) == names, '%s: every bot wrote its pid' % label)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(
                proc_state(p) == 'alive' for p in pids.values()):
            time.sleep(0.01)
        alive = [p for p in pids.values() if proc_state(p) == 'alive']
        check(not alive, '%s: every bot died with the referee '
              '(PR_SET_PDEATHSIG)' % label, 'alive %r' % alive)
        living = wait_no_marked(marker, 10.0)
        check(not living, '%s: no process of the match survives' % label,
              describe(living))
        with open(lad, 'rb') as f:
            data = f.read()
        lines = data.decode().split('\n')
        ok = data.endswith(b'\n') and len(lines) == 2
        g = None
        try:
            g = json.loads(lines[0])
        except ValueError:
            ok = False
        check(ok and g and g['id'] == 'lone-0',
              '%s: the ladder file holds game 0\'s line, whole, and '
              'nothing else' % label, repr(data[-200:]))
        base, ext = os.path.splitext(rec)
        check(os.path.exists('%s-0%s' % (base, ext)) and
              not os.path.exists('%s-1%s' % (base, ext)),
              '%s: game 0\'s record exists, none for the unfinished game 1'
              % label, repr(os.listdir(d)))
        left = [f for f in os.listdir(d) if 'tmp' in f or f.startswith('.')]
        check(not left, '%s: no temporary file left next to the outputs'
              % label, repr(left))

        # the same match killed in game 0: no line at all
        lad2 = os.path.join(d, 'ladder2.jsonl')
        cmd2 = [c if c != lad else lad2 for c in cmd]
        cmd2[cmd2.index('--match-id') + 1] = 'lone2'
        cmd2[cmd2.index('--record') + 1] = os.path.join(d, 'r2.json')
        for f in os.listdir(piddir):
            os.unlink(os.path.join(piddir, f))
        ref = subprocess.Popen(cmd2, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
        ok = all(wait_path(os.path.join(piddir, n + '.request'), 30, ref)
                 for n in names)
        check(ok, '%s (game 0): every bot is playing' % label)
        ref.send_signal(signal.SIGKILL)
        ref.wait()
        living = wait_no_marked(marker, 10.0)
        check(not living, 'lone referee killed in game 0: no process '
              'survives', describe(living))
        check(not os.path.exists(lad2) or os.path.getsize(lad2) == 0,
              'lone referee killed in game 0: no ladder line at all')
    finally:
        if ref.poll() is None:
            ref.kill()
            ref.wait()
        kill_marked(marker)


def wait_path(path, guard_s, proc):
    deadline = time.monotonic() + guard_s
    while not os.path.exists(path):
        if time.monotonic() >= deadline or proc.poll() is not None:
            return os.path.exists(path)
        time.sleep(0.01)
    return True


def main():
    for exe in (LADDER, REFEREE, RANDOM, HOSTILE):
        if not os.access(exe, os.X_OK):
            print('cannot run %s (set MAAT_LADDER, MAAT_REFEREE, MAAT_RANDOM,'
                  ' MAAT_HOSTILE)' % exe)
            return 1
    t0 = time.monotonic()
    print('# seed %d (MAAT_CRASH_SEED)' % SEED, flush=True)
    with tempfile.TemporaryDirectory(prefix='maat-crash-') as tmp:
        lone_referee(tmp)
        tournament(tmp)
    return report(t0)


if __name__ == '__main__':
    sys.exit(main())
