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
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from maattest import HOSTILE, RANDOM, REFEREE, check, report  # noqa: E402

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


def lines(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def main():
    with tempfile.TemporaryDirectory(prefix='maat-keep-') as d:
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
