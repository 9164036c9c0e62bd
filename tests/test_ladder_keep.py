#!/usr/bin/env python3
"""test_ladder_keep.py -- a tournament keeps every match's record and bot
logs (issue 16): LADDER.games/MATCH-K.json and MATCH-K-BOT.log for every
game, linked from its ladder line, none overwriting another; `--keep
failed` keeps only matches with a fault, `--keep none` none; the index page
of maat-replay links the kept games; the tournament's secret key is hidden
from sandboxed bots (--hide in every referee command).
"""
import glob
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from maattest import (HOSTILE, RANDOM, REFEREE, check,  # noqa: E402
                      describe, kill_marked, report, wait_file,
                      wait_no_marked)

LADDER = os.environ.get('MAAT_LADDER')
REPLAY = os.environ.get('MAAT_REPLAY')


def config(d, name, bots, matches=4):
    path = os.path.join(d, name + '.json')
    with open(path, 'w') as f:
        json.dump({'name': name, 'game': 'pyramids', 'seats': 2,
                   'matches': matches, 'ladder': name + '.jsonl',
                   'referee': REFEREE,
                   'bots': [{'name': n, 'command': c} for n, c in bots]}, f)
    return path


def run(d, cfg, *extra):
    return subprocess.run([LADDER, 'run', cfg, '--quiet'] + list(extra),
                          cwd=d, capture_output=True, text=True, timeout=600)


def one_run_at_a_time(d):
    """While a run of tournament 'held' plays (its bot 'gate' waits on a
    FIFO the test opens), a second run of the same config exits 2 naming
    the ladder file and saying another run holds it; standings and a run
    of another tournament on the same ladder file are not blocked."""
    lad = os.path.join(d, 'shared.jsonl')
    fifo, ready = os.path.join(d, 'gate.fifo'), os.path.join(d, 'gate.ready')
    os.mkfifo(fifo)
    other = config(d, 'other', [('r1', RANDOM), ('r2', RANDOM)], matches=1)
    with open(other) as f:
        c = json.load(f)
    c['ladder'] = 'shared.jsonl'
    with open(other, 'w') as f:
        json.dump(c, f)
    p = run(d, other)
    check(p.returncode == 0, 'lock: another tournament first fills the '
          'shared ladder file', p.stderr)
    gate = 'sh -c %s' % shlex.quote('[ -e %s ] || { echo > %s; read x < %s; }; exec %s' % (
        shlex.quote(ready), shlex.quote(ready), shlex.quote(fifo),
        shlex.quote(RANDOM)))
    held = config(d, 'held', [('r1', RANDOM), ('gate', gate)], matches=1)
    with open(held) as f:
        c = json.load(f)
    c['ladder'] = 'shared.jsonl'
    c['referee_args'] = ['--hello-time', '120000']
    with open(held, 'w') as f:
        json.dump(c, f)
    first = subprocess.Popen([LADDER, 'run', held, '--quiet'], cwd=d,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        # the gate bot starts only once the run holds its lock
        check(wait_file(ready, 60, first), 'lock: the first run is playing')
        p = run(d, held)
        check(p.returncode == 2 and 'shared.jsonl' in p.stderr and
              'another run' in p.stderr and 'held' in p.stderr,
              'lock: a second run of the same tournament exits 2 naming the '
              'ladder file and the run that holds it', p.stderr)
        s = subprocess.run([LADDER, 'standings', lad], capture_output=True,
                           text=True, timeout=60)
        check(s.returncode == 0 and 'r1' in s.stdout,
              'lock: standings reads the ladder file meanwhile', s.stderr)
        c['name'], c['bots'] = 'beside', c['bots'][:1] + [
            {'name': 'r2', 'command': RANDOM}]
        del c['referee_args']
        beside = os.path.join(d, 'beside.json')
        with open(beside, 'w') as f:
            json.dump(c, f)
        p = run(d, beside)
        check(p.returncode == 0, 'lock: another tournament still shares '
              'the ladder file meanwhile', p.stderr)
    finally:
        # let the gate bot go (no reader: it is gone, nothing to release)
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            os.write(fd, b'go\n')
            os.close(fd)
        except OSError:
            pass
        out, err = first.communicate(timeout=300)
    check(first.returncode == 0, 'lock: the first run ends well', err)
    ids = [g['id'] for g in lines(lad)]
    check(sorted(ids) == sorted(['other-0-0', 'other-0-1', 'held-0-0',
                                 'held-0-1', 'beside-0-0', 'beside-0-1']),
          'lock: each game once in the shared ladder file', repr(ids))
    p = run(d, held)
    check(p.returncode == 0, 'lock: released when the run ends', p.stderr)


def play_again_files(d):
    """A duplicate match killed (SIGKILL, the run's process group) once
    game 0 is in the ladder file and game 1 is under way -- its bot 'gate'
    blocks on a FIFO in its second start -- then resumed: the match is
    played again from game 0, and every line's record holds that line's
    scores, each line names files of its own, none missing."""
    lad = os.path.join(d, 'again.jsonl')
    fifo, ready = os.path.join(d, 'again.fifo'), os.path.join(d, 'again.ready')
    count = os.path.join(d, 'again.count')
    os.mkfifo(fifo)
    script = ('n=$(cat {c} 2>/dev/null || echo 0); echo $((n+1)) > {c}; '
              'if [ "$n" = 1 ]; then echo > {r}; read x < {f}; fi; '
              'exec {b}').format(c=shlex.quote(count), r=shlex.quote(ready),
                                 f=shlex.quote(fifo), b=shlex.quote(RANDOM))
    # a script exec'd directly (a path, plain words), so that it dies with
    # its referee (PR_SET_PDEATHSIG) as a bot does
    gate = os.path.join(d, 'again-gate.sh')
    with open(gate, 'w') as f:
        f.write('#!/bin/sh\n' + script + '\n')
    os.chmod(gate, 0o755)
    cfg = config(d, 'again', [('r1', RANDOM), ('gate', gate)], matches=1)
    marker = str(uuid.uuid4())
    env = dict(os.environ, MAAT_TEST_MARKER=marker)
    p = subprocess.Popen([LADDER, 'run', cfg, '--quiet'], cwd=d, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    try:
        # readiness: game 1's gate bot started (so game 0 ended) and game
        # 0's line is in the file
        ok = wait_file(ready, 60, p)
        ok = ok and os.path.exists(lad) and len(lines(lad)) == 1
        if not check(ok and p.poll() is None, 'play again: killed with game '
                     '0 in the ladder file, game 1 under way'):
            return
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        living = wait_no_marked(marker, 10.0)
        check(not living, 'play again: nothing of the killed run is left',
              describe(living))
        r = subprocess.run([LADDER, 'run', cfg, '--quiet'], cwd=d, env=env,
                           capture_output=True, text=True, timeout=300)
        check(r.returncode == 0, 'play again: the resume ends well', r.stderr)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        kill_marked(marker)
    games = lines(lad)
    check([g['id'] for g in games] == ['again-0-0', 'again-0-0',
                                       'again-0-1'],
          'play again: game 0 twice (the first counts), then game 1',
          repr([g['id'] for g in games]))
    bad, named = [], []
    for g in games:
        named += [g.get('record')] + g.get('logs', [])
        try:
            with open(os.path.join(d, g['record'])) as f:
                rec = json.load(f)
            scores = [x['score'] for x in rec['result']]
            if scores != g['scores'] or rec['game_index'] != g['game_index']:
                bad.append('%s: line %r, record %r' % (g['record'],
                                                      g['scores'], scores))
        except (OSError, ValueError, KeyError, TypeError) as e:
            bad.append('%s: %s' % (g.get('record'), e))
        bad += ['%s missing' % x for x in g.get('logs', [])
                if not os.path.exists(os.path.join(d, x))]
    check(not bad, 'play again: every line\'s record holds its own scores '
          'and its logs exist', '; '.join(bad))
    check(len(set(named)) == len(named) == 9,
          'play again: no two lines name the same file', repr(named))


def lines(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def main():
    with tempfile.TemporaryDirectory(prefix='maat-keep-') as d:
        one_run_at_a_time(d)
        play_again_files(d)
        two = [('r1', RANDOM), ('r2', RANDOM)]
        p = run(d, config(d, 'all', two))
        check(p.returncode == 0, 'keep all: the tournament runs', p.stderr)
        games = lines(os.path.join(d, 'all.jsonl'))
        check(len(games) == 8, 'keep all: 4 duplicate matches, 8 games')
        ok = True
        for g in games:
            rec = os.path.join(d, g.get('record', 'missing'))
            logs = [os.path.join(d, x) for x in g.get('logs', [])]
            ok &= g.get('record') == 'all.games/%s.json' % g['id']
            ok &= os.path.exists(rec) and len(logs) == 2 and all(
                os.path.exists(x) for x in logs)
            if os.path.exists(rec):
                ok &= json.load(open(rec))['game_index'] == g['game_index']
                v = subprocess.run([REFEREE, '--verify', rec],
                                   capture_output=True, timeout=60)
                ok &= v.returncode == 0
        check(ok, 'keep all: every game has its own record (verified) and '
              'logs, linked from its ladder line')
        check(len(glob.glob(os.path.join(d, 'all.games', '*.json'))) == 8 and
              len(glob.glob(os.path.join(d, 'all.games', '*.log'))) == 16,
              'keep all: 8 records and 16 logs, none overwritten')
        if REPLAY:
            out = os.path.join(d, 'index.html')
            p = subprocess.run([REPLAY, '--index', os.path.join(d,
                                'all.jsonl'), '-o', out],
                               capture_output=True, text=True, timeout=300)
            html = open(out).read() if os.path.exists(out) else ''
            check(p.returncode == 0 and all(g['id'] in html for g in games),
                  'maat-replay --index links every game', p.stderr)

        p = run(d, config(d, 'none', two), '--keep', 'none')
        check(p.returncode == 0 and len(lines(os.path.join(d, 'none.jsonl')))
              == 8 and not os.listdir(os.path.join(d, 'none.games')),
              'keep none: the games are played, nothing kept', p.stderr)

        # two tournaments sharing a ladder file, one's name the start of
        # the other's ids: match 0 of 'share' ("share-0-K.json") is not
        # match 0 of 'share-0' ("share-0-0-K.json"), and --keep none of
        # the first must leave the second's files alone
        for name, keep in (('share-0', 'all'), ('share', 'none')):
            cfg = config(d, name, two, matches=2)
            with open(cfg) as f:
                c = json.load(f)
            c['ladder'] = 'share.jsonl'
            with open(cfg, 'w') as f:
                json.dump(c, f)
            p = run(d, cfg, '--keep', keep)
            check(p.returncode == 0, 'shared ladder: %s runs' % name, p.stderr)
        left = sorted(os.listdir(os.path.join(d, 'share.games')))
        check(len(left) == 12 and all(x.startswith('share-0-') for x in left),
              "keep none of 'share' leaves the 4 records and 8 logs of "
              "'share-0' (%d files left)" % len(left), left)

        crashy = [('r1', RANDOM), ('r2', RANDOM),
                  ('crash', HOSTILE + ' --mode crash --after 3')]
        p = run(d, config(d, 'failed', crashy, matches=3), '--keep',
                'failed', '--fault-share', '1')
        kept = {os.path.basename(x)[:-5] for x in
                glob.glob(os.path.join(d, 'failed.games', '*.json'))}
        played = lines(os.path.join(d, 'failed.jsonl'))
        faulty_matches = {g['match'] for g in played if g['faults']}
        want = {g['id'] for g in played if g['match'] in faulty_matches}
        check(len(played) == 6 and faulty_matches and
              len(faulty_matches) < 3 and kept == want,
              'keep failed: exactly the matches with a fault keep their '
              'records (%d of %d games kept)' % (len(kept), len(played)),
              '%r vs %r %s' % (sorted(kept), sorted(want), p.stderr))

        # match ids are never cut (issue 14: a 38-character name gave 6
        # games 2 ids); a name that cannot be an id is a config error
        long = 'a-name-of-38-characters-for-the-ids-ok'
        p = run(d, config(d, long, two, matches=3))
        ids = {g['id'] for g in lines(os.path.join(d, long + '.jsonl'))}
        check(p.returncode == 0 and len(ids) == 6,
              'a 38-character tournament name: 6 games, 6 ids (%d)' % len(ids))
        bad = config(d, 'bad', two)
        with open(bad) as f:
            c = json.load(f)
        c['name'] = 'a name with spaces'
        with open(bad, 'w') as f:
            json.dump(c, f)
        p = run(d, bad)
        check(p.returncode == 2 and "field 'name'" in p.stderr,
              'a tournament name with spaces is a config error naming the '
              'field', p.stderr)
        c['name'], c['ladder'] = 'empty', ''
        with open(bad, 'w') as f:
            json.dump(c, f)
        p = run(d, bad)
        made = [x for x in os.listdir(d) if x.startswith('.')]
        check(p.returncode == 2 and "field 'ladder'" in p.stderr and
              'bad.json' in p.stderr and not made,
              'an empty ladder is a config error naming the field, and '
              'makes nothing', '%r %s' % (made, p.stderr))

        cfg = config(d, 'secret', two)
        p = subprocess.run([LADDER, 'plan', cfg, '--shard-dir',
                            os.path.join(d, 'shards')], cwd=d,
                           capture_output=True, text=True, timeout=60)
        check(p.returncode == 0 and '--hide' in p.stdout and
              'secret.jsonl.secret.key' in p.stdout,
              'every referee command hides the tournament\'s secret key',
              p.stdout[:400] + p.stderr)
    return report()


if __name__ == '__main__':
    sys.exit(main())
