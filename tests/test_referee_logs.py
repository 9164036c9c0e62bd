#!/usr/bin/env python3
"""test_referee_logs.py -- every game keeps its own bot logs (issue 16).

A series of 3 games with --log-dir and --record: each bot gets one log per
game (DIR/MATCH-GAME-BOT.log), nothing is overwritten, every line a bot
wrote while deciding is prefixed with the index of that decision in the
game's record and a tab, and the ladder line links the record and each
seat's log (relative to the ladder file).  The bot is tests/bots/chatty.py,
which writes one line per request.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from maattest import HERE, REFEREE, check, report  # noqa: E402

PY = '/usr/bin/python3' if os.path.exists('/usr/bin/python3') else \
    sys.executable
CHATTY = os.path.join(HERE, 'bots', 'chatty.py')

def main():
    with tempfile.TemporaryDirectory(prefix='maat-logs-') as d:
        logs = os.path.join(d, 'logs')
        os.makedirs(logs)
        cmd = [REFEREE, '--games', '3', '--seed', '9', '--match-id', 'm1',
               '--log-dir', logs, '--record', os.path.join(d, 'rec.json'),
               '--ladder', os.path.join(d, 'ladder.jsonl'), '--quiet',
               '--bot', 'x=%s %s' % (PY, CHATTY),
               '--bot', 'y=%s %s' % (PY, CHATTY)]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        check(p.returncode == 0, 'the series finishes', p.stderr)
        with open(os.path.join(d, 'ladder.jsonl')) as f:
            lines = [json.loads(l) for l in f if l.strip()]
        check(len(lines) == 3, 'three ladder lines')
        for k, line in enumerate(lines):
            check(line.get('record') == 'rec-%d.json' % k,
                  'game %d: the ladder line links its record' % k,
                  repr(line.get('record')))
            want = ['logs/m1-%d-%s.log' % (k, b) for b in line['bots']]
            check(line.get('logs') == want,
                  'game %d: the ladder line links each seat\'s log' % k,
                  repr(line.get('logs')))
            with open(os.path.join(d, line['record'])) as f:
                rec = json.load(f)
            seat_of = {b: s for s, b in enumerate(line['bots'])}
            for bot in ('x', 'y'):
                path = os.path.join(d, 'logs', 'm1-%d-%s.log' % (k, bot))
                with open(path) as f:
                    text = f.read().splitlines()
                # "starting" is written before any request, so it may be
                # read before or after the first decision's tag is set
                tagged = [l for l in text if re.match(r'^\d+\trequest ', l)]
                mine = [i for i, dec in enumerate(rec['decisions'])
                        if dec['seat'] == seat_of[bot] and dec['by'] == 'bot']
                ok = len(tagged) == len(mine)
                for l, i in zip(tagged, mine):
                    idx, msg = l.split('\t', 1)
                    ok &= int(idx) == i and msg.startswith('request ') and \
                        msg.endswith('seat %d game %d' % (seat_of[bot], k))
                check(ok, 'game %d, %s: one line per own decision, tagged '
                      'with that decision (%d lines, %d decisions)'
                      % (k, bot, len(tagged), len(mine)), '\n'.join(text[:5]))
                if k == 0:
                    check('starting' in text or '0\tstarting' in text,
                          'game 0, %s: what it wrote before its first request '
                          'is kept' % bot)
    return report()


if __name__ == '__main__':
    sys.exit(main())
