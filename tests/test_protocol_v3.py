#!/usr/bin/env python3
"""test_protocol_v3.py -- protocol version 3: requests without the legal
list (issue 19); the bot works it out from its view.

A real match of two games between seats of every version side by side:
maat-spy-bot --version 3 (which also asks one resync), maat-spy-bot
--version 2, the SDK's maat-random (version 3, its default), maat-random
--full-observation (version 1) and sample-bots/python/random_bot.py
(version 1).  The spies record every byte they receive:
  - the version-3 spy is welcomed with 3; none of its requests has a
    `legal` key; the observation comes in the first request of each game
    only, every other field always; its resync gets the same request (seq,
    game, decision, clock) with the observation, no events and no legal
    list; each `end` keeps its observation and events;
  - the version-2 spy's requests all carry the legal list;
  - no seat has a fault (every version-3 answer was legal: the lists the
    spy and the SDK worked out were the referee's), and the records verify.
Then the SDK against a referee played from here (test_protocol_v2.py's
helpers): it offers 3, and refused twice says hello with 2, then 1, and
plays on; refused once, it speaks 2; a version-3 request it cannot follow
gets one resync; and a version-3 request whose decision is not the one
its view has reached (the spy's capture replayed, one request with
another decision name) gets a resync instead of an action from a wrong
list, and the copy with the observation an action of the decision asked.
No sleep synchronises anything; every wait has a deadline against a hang.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from maattest import BUILD, RANDOM, REFEREE, check, report  # noqa: E402
from spyread import spy_messages  # noqa: E402
import test_protocol_v2 as v2  # noqa: E402  (its helpers; imports zmq)

SPY = os.environ.get('MAAT_SPY', os.path.join(BUILD, 'tests', 'maat-spy-bot'))
RESYNC_AT = 3  # the version-3 spy's request answered with a resync


def run_match(tmp):
    d = os.path.join(tmp, 'mixed')
    os.makedirs(d)
    rec = os.path.join(d, 'record.json')
    cmd = [REFEREE, '--seed', '12', '--games', '2', '--hello-time', '30000',
           '--time', '20000', '--first-time', '20000', '--record', rec,
           '--fixed-seats', '--limit-as', '0', '--no-sandbox',
           '--bot', 'spy3=%s --dir %s --seed 3 --version 3 --resync %d' %
           (SPY, d, RESYNC_AT),
           '--bot', 'spy2=%s --dir %s --seed 2 --version 2' % (SPY, d),
           '--bot', 'sdk3=' + RANDOM,
           '--bot', 'sdk1=%s --full-observation' % RANDOM,
           '--bot', 'py=/usr/bin/python3 ' + v2.PYBOT]
    p = subprocess.run(cmd, capture_output=True, text=True,
                       timeout=v2.GUARD_S)
    check(p.returncode == 0, 'the mixed match ends (exit 0)', p.stderr)
    try:
        spy3 = spy_messages(os.path.join(d, 'spy3.bin'))
        spy2 = spy_messages(os.path.join(d, 'spy2.bin'))
    except OSError as e:
        check(False, 'the spies recorded the match', e)
        return
    check(spy3 and spy3[0].get('type') == 'welcome' and
          spy3[0].get('version') == 3,
          'a version-3 hello is welcomed with version 3', spy3[:1])

    reqs = [m for m in spy3 if m.get('type') == 'request']
    check(len(reqs) > 20 and not any('legal' in r for r in reqs),
          'version 3: no request carries a legal list (%d requests)' %
          len(reqs), [r for r in reqs if 'legal' in r][:1])
    first, copy, bad = {}, None, []
    for i, r in enumerate(reqs):
        resent = i > 0 and reqs[i - 1]['seq'] == r['seq']
        if resent:
            copy = (reqs[i - 1], r)
        elif ('observation' in r) != (r['game_index'] not in first):
            bad.append(r['seq'])
        first.setdefault(r['game_index'], r['seq'])
        for key in ('seq', 'game_index', 'decision', 'events', 'clock'):
            if key not in r:
                bad.append((r['seq'], key))
    check(len(first) == 2 and not bad,
          'version 3: the observation in the first request of each game '
          'only, every other field always', bad)
    check(copy is not None and all(copy[0][k] == copy[1][k] for k in (
              'game_index', 'decision', 'clock')) and
          'observation' in copy[1] and copy[1]['events'] == [] and
          'legal' not in copy[1],
          'version 3: a resync gets the same request (seq, game, decision, '
          'clock) with the observation, no events, no legal list', copy)
    ends = [m for m in spy3 if m.get('type') == 'end']
    check(len(ends) == 2 and all('observation' in m and 'events' in m
                                 for m in ends),
          'version 3: each end keeps its observation and events', ends[:1])
    reqs2 = [m for m in spy2 if m.get('type') == 'request']
    check(reqs2 and all(r.get('legal') for r in reqs2),
          'version 2 beside it: every request carries the legal list')

    recs = [os.path.join(d, 'record-%d.json' % k) for k in range(2)]
    faults = []
    for path in recs:
        try:
            with open(path) as f:
                faults += json.load(f).get('faults', [])
        except (OSError, ValueError) as e:
            check(False, 'the records are written', e)
            return
        p = subprocess.run([REFEREE, '--verify', path], capture_output=True,
                           text=True, timeout=60)
        check(p.returncode == 0, 'the record verifies: ' +
              os.path.basename(path), p.stdout + p.stderr)
    check(not faults, 'versions 3, 2 and 1 play side by side without a '
          'fault: every version-3 answer was legal', faults)
    return spy3


def sdk_falls_back(tmp, refusals):
    """The SDK refused `refusals` times, then welcomed with 3 - refusals."""
    def script(r, next_msg, hellos, bot):
        for _ in range(refusals):
            rid, m = next_msg()
            hellos.append(m)
            r.send_multipart([rid, v2.pack({
                'type': 'reject', 'reason': 'unsupported protocol version'})])
        rid, m = next_msg()
        hellos.append(m)
        r.send_multipart([rid, v2.pack({
            'type': 'welcome', 'version': 3 - refusals, 'game': 'pyramix',
            'rules_version': 'pyramix-2', 'games': 1, 'setup': {}})])
        r.send_multipart([rid, v2.pack({'type': 'bye'})])

    rc, err, hellos = v2.fake_referee(tmp, script)
    versions = [h.get('version') if h else None for h in hellos]
    want = [3, 2, 1][:refusals + 1]
    check(versions == want and rc == 0,
          'the SDK offers version 3 and, refused %d time(s), says hello with '
          '%s and plays on (exit 0)' % (refusals, want[1:]),
          (versions, rc, err))


def sdk_checks_decision(tmp, spy3):
    """The spy's captured game replayed to the SDK: its first requests as
    they were, then the one the spy resynced with another decision name,
    then that request's copy (observation, no events) as it was."""
    welcome = spy3[0]
    start = next(m for m in spy3 if m.get('type') == 'start')
    reqs = [m for m in spy3 if m.get('type') == 'request']
    before, req, copy = (reqs[:RESYNC_AT - 1], reqs[RESYNC_AT - 1],
                         reqs[RESYNC_AT])
    names = ['god', 'pair', 'build', 'keep']
    wrong = dict(req, decision=names[(names.index(req['decision']) + 1) % 4])
    seen = []

    def script(r, next_msg, hellos, bot):
        rid, m = next_msg()
        hellos.append(m)
        r.send_multipart([rid, v2.pack(welcome)])
        r.send_multipart([rid, v2.pack(start)])
        for msg in before + [wrong, copy]:
            r.send_multipart([rid, v2.pack(msg)])
            rid, m = next_msg()
            seen.append(m)
        r.send_multipart([rid, v2.pack({'type': 'bye'})])

    rc, err, _ = v2.fake_referee(tmp, script)
    kinds = [m and m.get('type') for m in seen]
    check(copy['seq'] == req['seq'] and req['game_index'] == 0 and
          kinds == ['action'] * len(before) + ['resync', 'action'] and
          seen[-2] == {'type': 'resync', 'seq': req['seq']},
          'version 3: a request naming another decision than the view has '
          'reached gets a resync, not an action from a wrong list',
          (kinds, err))
    act = seen[-1] or {}
    check(act.get('seq') == req['seq'] and
          act.get('action', {}).get('kind') == req['decision'] and rc == 0,
          'its copy gets an action of the decision asked (exit 0)',
          (act, rc, err))


def main():
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix='maat-v3-') as tmp:
        spy3 = run_match(tmp)
        sdk_falls_back(tmp, 2)
        sdk_falls_back(tmp, 1)
        v2.sdk_resyncs_once(tmp, 3)
        if spy3:
            sdk_checks_decision(tmp, spy3)
    return report(t0)


if __name__ == '__main__':
    sys.exit(main())
