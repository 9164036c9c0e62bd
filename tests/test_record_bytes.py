#!/usr/bin/env python3
"""test_record_bytes.py -- the bytes of game records, pinned.

maat-referee plays seeded matches between spies (tests/bots/spy.c, whose
choices follow --seed) and hostile bots (tests/bots/hostile.c), and the
SHA-256 of each record must equal the one pinned below: every game, 2 to 5
seats, a series, faults (malformed, illegal and crashed answers, the
default policy playing for a seat that is out), and --record-timing (its
wall_us and cpu_us change run to run and are zeroed before hashing; the
spies report a reproducible think_us, which is kept); and the ladder lines
of two of them, with faults and with links to the record and the bots'
logs (their time and duration_ms zeroed).

The hashes were taken with the jansson trees the record and the ladder
line were dumped from before issue 19's writer (record/json_writer.c):
the writer may not change one byte.  A deliberate change of the record (documented
in docs/FORMATS.md) or of the rules or the deal (a new rules_version)
updates the hashes here, in the same commit: `test_record_bytes.py
--print` prints them.  A failing run keeps its records and says where.

Also: each record is JSON, and with --record-timing every decision made by
a bot carries its think_us and no other does.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from maattest import BUILD, HOSTILE, REFEREE, check, report  # noqa: E402

SPY = os.environ.get('MAAT_SPY', os.path.join(BUILD, 'tests', 'maat-spy-bot'))


def spies(n, seed, think=None):
    extra = ' --think-us %d' % think if think is not None else ''
    return [a for i in range(n) for a in
            ('--bot', 'b%d=%s --seed %d%s' % (i + 1, SPY, seed + i, extra))]


def hostile(name, mode, after):
    return ['--bot', '%s=%s --mode %s --after %d --seed 4' %
            (name, HOSTILE, mode, after)]


# name -> (referee arguments, records written: {file: pinned sha256})
MATCHES = {
    'pyramids-5': (['--game', 'pyramids', '--seed', '55'] + spies(5, 10),
                   ['pyramids-5.json']),
    'pyramids-2-timing': (['--game', 'pyramids', '--seed', '22',
                           '--record-timing'] + spies(2, 20, think=1000),
                          ['pyramids-2-timing.json']),
    'pyramids-3-faults': (['--game', 'pyramids', '--seed', '9',
                           '--fixed-seats', '--record-timing'] +
                          spies(1, 30, think=0) +
                          hostile('evil', 'illegal', 2) +
                          hostile('crashy', 'crash', 5),
                          ['pyramids-3-faults.json']),
    'pyramix-3': (['--game', 'pyramix', '--seed', '33'] + spies(3, 40),
                  ['pyramix-3.json']),
    'pyramix-4-timing': (['--game', 'pyramix', '--seed', '44', '--fixed-seats',
                          '--record-timing'] + spies(4, 50, think=500),
                         ['pyramix-4-timing.json']),
    'pyramix-2-wrongkind': (['--game', 'pyramix', '--seed', '7'] +
                            spies(1, 60) + hostile('evil', 'wrongkind', 3),
                            ['pyramix-2-wrongkind.json']),
    'architects-4': (['--game', 'architects', '--seed', '44'] + spies(4, 70),
                     ['architects-4.json']),
    'architects-2-garbage': (['--game', 'architects', '--seed', '8',
                              '--fixed-seats'] + spies(1, 80) +
                             hostile('evil', 'garbage', 3),
                             ['architects-2-garbage.json']),
    'architects-series': (['--game', 'architects', '--seed', '5', '--games',
                           '3', '--ladder', '{d}/series.jsonl', '--log-dir',
                           '{d}/logs'] + spies(3, 90),
                          ['architects-series-%d.json' % k for k in range(3)] +
                          ['series.jsonl']),
    'pyramix-faults-ladder': (['--game', 'pyramix', '--seed', '12',
                               '--fixed-seats', '--ladder', '{d}/faults.jsonl'] +
                              spies(2, 100) + hostile('evil', 'illegal', 1),
                              ['pyramix-faults-ladder.json', 'faults.jsonl']),
}

# record -> its sha256, wall_us and cpu_us zeroed (see above)
PINNED = {
    'pyramids-5.json':
    'ae4d7579cabcd1e7783487b4ff034637dc3ad08c7ef528ff86d7dd5d2d7918d3',
    'pyramids-2-timing.json':
    '73583703fbb54bb742083c9815b14c8f97e1b7646a0a7b96d6a4d1cdaab7688f',
    'pyramids-3-faults.json':
    '9dce3e327c6219bfe532419da355929f30d07a92a46086e2ef9f438d53ddd0b7',
    'pyramix-3.json':
    '1e7bd1475fc5223cdafb0489adb0b6d9aea465e8b7350f8dc3cf85da67d37a56',
    'pyramix-4-timing.json':
    '20d6cd933856713f64384abcbaa563b223b38b886cc30b08a28ac506159c887d',
    'pyramix-2-wrongkind.json':
    '0b3bbdfb5c52babd28a97c7592873d6d6dc78a658a2e8a452bd5ca032c1be8dd',
    'architects-4.json':
    '36394025b0eab0a3ddacd628a7bc0220879467968b0450bba87e727f4cec0246',
    'architects-2-garbage.json':
    '1d2007fee0e40f35c854f0f5b5f84e53dffc9b5d4497ea8b8008bb0bea97bb18',
    'architects-series-0.json':
    'ce1f32a5fe75e4e9fac149d37e68225e21389c273e6c05dae0e9403b7bf1514c',
    'architects-series-1.json':
    '8178504893bc43ebf5a41193ea6f70eb5372d321bf25acc39ad2cbc6637f0246',
    'architects-series-2.json':
    'ae06c9f3ed8e5afbd98a82ccffa1b2de2b1bd5f64bd2b9725a41b469128a5682',
    'series.jsonl':
    '998bff1856e4b86dc599de28e598bbbac685b6bbb76fb092afa8af468c0a9edb',
    'pyramix-faults-ladder.json':
    'a73ba0f174d479681c7b64a6e3012d934dc70a4bc5075cc540ccf035d88314fa',
    'faults.jsonl':
    '934d52534c3bba9a4d6ceac7953341bb6f7e939cc541c481f8332af30603d3fa',
}

# what changes run to run: a record's timing, a ladder line's time and
# duration (zeroed before hashing)
TIMING = re.compile(rb'"(wall_us|cpu_us|duration_ms)":-?[0-9]+')
WHEN = re.compile(rb'"time":"[^"]*"')


def digest(path):
    with open(path, 'rb') as f:
        data = f.read()
    data = WHEN.sub(b'"time":""', TIMING.sub(rb'"\1":0', data))
    return hashlib.sha256(data).hexdigest()


def main():
    printing = '--print' in sys.argv[1:]
    d = tempfile.mkdtemp(prefix='maat-record-bytes-')
    spy_dir = os.path.join(d, 'spy')
    os.makedirs(spy_dir)
    env = dict(os.environ, MAAT_SPY_DIR=spy_dir)
    for name, (args, files) in MATCHES.items():
        base = re.sub(r'-0\.json$', '.json', files[0])
        os.makedirs(os.path.join(d, 'logs'), exist_ok=True)
        cmd = [REFEREE, '--quiet', '--no-sandbox', '--match-id', 'm-' + name,
               '--time', '5000', '--record', os.path.join(d, base)] + \
            [a.replace('{d}', d) for a in args]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                           env=env)
        check(p.returncode == 0, '%s: the match finishes' % name, p.stderr)
        for f in files:
            want = PINNED.get(f)
            path = os.path.join(d, f)
            if not check(os.path.exists(path), '%s: %s written' % (name, f)):
                continue
            got = digest(path)
            if printing:
                print("    '%s':\n    '%s'," % (f, got))
            check(got == want, '%s: %s has the pinned bytes' % (name, f),
                  'sha256 %s, pinned %s' % (got, want))
            with open(path) as fh:
                try:
                    if f.endswith('.jsonl'):
                        [json.loads(line) for line in fh]
                        continue
                    rec = json.load(fh)
                except ValueError as e:
                    check(False, '%s: %s is JSON' % (name, f), e)
                    continue
            if '--record-timing' in args:
                # the spies (b1, b2, ...) report think_us, hostile bots not
                spy = [s['bot'].startswith('b') for s in rec['seats']]
                decs = rec['decisions']
                ok = all(('think_us' in x) ==
                         (x['by'] == 'bot' and spy[x['seat']]) and
                         list(x)[4:6] == ['wall_us', 'cpu_us'] for x in decs)
                check(ok and any('think_us' in x for x in decs),
                      '%s: %s: wall_us and cpu_us on each decision, think_us '
                      'on each a spy made' % (name, f))
    rc = report()
    if rc:
        print('records kept in ' + d)
    else:
        shutil.rmtree(d)
    return rc


if __name__ == '__main__':
    sys.exit(main())
