#!/usr/bin/env python3
"""test_protocol_v2.py -- protocol version 2, the delta protocol (issue 19).

Real matches: maat-referee with seats of every kind side by side -- the
SDK's maat-random --protocol 2, maat-random --full-observation
(version 1), sample-bots/python/random_bot.py (version 1, written from the
docs) and two remote seats driven from here:
  - "v2" says hello with version 2 and is welcomed with 2; in each game its
    first request carries the observation and no later one does (events,
    legal, clock as always), and `end` still does; a resync gets the same request again (same
    seq, game, decision, legal and clock) with the observation and no
    events; a resync naming another seq is malformed and leaves the
    request open; a second resync of one request is malformed and closes
    it (the default action plays it, an answer after it is "second");
  - "v1" says hello with version 1: every request has the observation; a
    resync from it is malformed and closes the request;
  - the match ends with a verified record whose faults are exactly those.
Hellos with version 0, 4 or a string are refused "unsupported protocol
version".  And the SDK's side, against a referee played from here: with
--protocol 2 it offers 2; refused, it says hello again with 1 and plays
on; a version-2 request it cannot follow (no observation yet) gets one
resync, and a second such copy makes it give up with a message, never
loop.  test_protocol_v3.py uses these helpers for version 3.
No sleep synchronises anything; every wait has a deadline against a hang.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from maattest import RANDOM, REFEREE, check, debian_python_for, report

debian_python_for('msgpack', 'zmq')
import msgpack  # noqa: E402
import zmq  # noqa: E402

GUARD_S = 120
MAX_VERSION = 3  # MAAT_PROTOCOL_MAX
ROOT = os.environ.get('MAAT_SOURCE_ROOT',
                      os.path.join(os.path.dirname(__file__), '..'))
PYBOT = os.path.join(ROOT, 'sample-bots', 'python', 'random_bot.py')


def pack(m):
    return msgpack.packb(m, use_bin_type=True)


def unpack(b):
    return msgpack.unpackb(b, raw=False, strict_map_key=False)


def recv(sock, guard_s=30):
    if sock.poll(int(guard_s * 1000)):
        return unpack(sock.recv())
    return None


class Seat:
    """A remote seat driven from here, with a script of misdeeds."""

    def __init__(self, ctx, ep, token, version):
        self.s = ctx.socket(zmq.DEALER)
        self.s.setsockopt(zmq.LINGER, 0)
        self.s.connect(ep)
        self.s.send(pack({'type': 'hello', 'version': version,
                          'token': token, 'name': 'x'}))
        self.version = version
        self.requests = []   # (request, its resent copy or None)
        self.welcome = None
        self.log = []

    def send(self, m):
        self.s.send(pack(m))


def run_match(tmp):
    d = os.path.join(tmp, 'mixed')
    os.makedirs(d)
    ep = 'ipc://' + os.path.join(d, 'ep')
    rec = os.path.join(d, 'record.json')
    cmd = [REFEREE, '--seed', '11', '--games', '2', '--endpoint', ep,
           '--hello-time', '30000', '--time', '20000', '--first-time',
           '20000', '--on-malformed', 'strikes:50', '--record', rec,
           '--fixed-seats',
           '--remote', 'v2=' + 'a' * 32, '--remote', 'v1=' + 'b' * 32,
           '--bot', 'sdk2=%s --protocol 2' % RANDOM,
           '--bot', 'sdk1=%s --full-observation' % RANDOM,
           '--bot', 'py=/usr/bin/python3 ' + PYBOT]
    ref = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    ctx = zmq.Context()
    v2 = Seat(ctx, ep, 'a' * 32, 2)
    v1 = Seat(ctx, ep, 'b' * 32, 1)
    seats = [v2, v1]
    done = set()
    deadline = time.monotonic() + GUARD_S
    # the script: v2's 2nd request resync (then answered), its 3rd a
    # resync of another seq (malformed, still open) then answered, its 4th
    # two resyncs (malformed: closed); v1's 2nd a resync (malformed)
    n = {id(v2): 0, id(v1): 0}
    skip_resent = set()
    poller = zmq.Poller()
    for s in seats:
        poller.register(s.s, zmq.POLLIN)
    while len(done) < 2 and time.monotonic() < deadline:
        ready = dict(poller.poll(5000))
        for seat in seats:
            if seat.s not in ready:
                continue
            m = unpack(seat.s.recv())
            seat.log.append(m)
            t = m.get('type')
            if t == 'welcome':
                seat.welcome = m
            elif t == 'bye':
                done.add(id(seat))
            elif t == 'request':
                if seat.requests and seat.requests[-1][0]['seq'] == m['seq']:
                    seat.requests[-1] = (seat.requests[-1][0], m)
                    if m['seq'] in skip_resent:
                        continue
                    seat.send({'type': 'action', 'seq': m['seq'],
                               'action': m['legal'][0]})
                    continue
                seat.requests.append((m, None))
                n[id(seat)] += 1
                k = n[id(seat)]
                if seat is v2 and k == 2:
                    seat.send({'type': 'resync', 'seq': m['seq']})
                    continue
                if seat is v2 and k == 3:
                    seat.send({'type': 'resync', 'seq': m['seq'] + 1000})
                if seat is v2 and k == 4:
                    skip_resent.add(m['seq'])
                    seat.send({'type': 'resync', 'seq': m['seq']})
                    seat.send({'type': 'resync', 'seq': m['seq']})
                    continue
                if seat is v1 and k == 2:
                    seat.send({'type': 'resync', 'seq': m['seq']})
                    continue
                seat.send({'type': 'action', 'seq': m['seq'],
                           'action': m['legal'][0]})
    try:
        out, err = ref.communicate(timeout=GUARD_S)
    except subprocess.TimeoutExpired:
        ref.kill()
        out, err = ref.communicate()
    for s in seats:
        s.s.close()
    ctx.term()
    check(ref.returncode == 0, 'the mixed match ends (exit 0)', err)
    check(v2.welcome and v2.welcome.get('version') == 2,
          'a version-2 hello is welcomed with version 2',
          v2.welcome)
    check(v1.welcome and v1.welcome.get('version') == 1,
          'a version-1 hello is welcomed with version 1', v1.welcome)

    # version 2: the observation in the first request of each game only
    firsts, bad = {}, []
    for req, _ in v2.requests:
        first = req['game_index'] not in firsts
        firsts.setdefault(req['game_index'], req['seq'])
        if ('observation' in req) != first:
            bad.append(req['seq'])
        for key in ('seq', 'game_index', 'decision', 'events', 'legal',
                    'clock'):
            if key not in req:
                bad.append((req['seq'], key))
    check(len(firsts) == 2 and not bad and len(v2.requests) > 10,
          'version 2: the observation in the first request of each game '
          'only, every other field always (%d requests)' % len(v2.requests),
          bad)
    check(all('observation' in r for r, _ in v1.requests) and
          len(v1.requests) > 10,
          'version 1: every request carries the observation', '')
    ends = [m for m in v2.log if m.get('type') == 'end']
    check(len(ends) == 2 and all('observation' in m and 'events' in m
                                 for m in ends),
          'version 2: each end keeps its full observation', ends[:1])

    # the resync: the same request with the observation, no events
    r2, copy = v2.requests[1]
    same = copy is not None and all(copy[k] == r2[k] for k in (
        'seq', 'game_index', 'decision', 'legal', 'clock'))
    check(same and 'observation' in copy and copy['events'] == [] and
          'observation' not in r2,
          'a resync gets the same request (seq, decision, legal, clock) with '
          'the observation and no events', (r2, copy))
    r3, copy3 = v2.requests[2]
    check(copy3 is None, 'a resync of another seq resends nothing')
    r4, copy4 = v2.requests[3]
    check(copy4 is not None and 'observation' in copy4,
          'the first of two resyncs is answered')

    recs = [os.path.join(d, 'record-%d.json' % k) for k in range(2)]
    games = []
    try:
        for path in recs:
            with open(path) as f:
                games.append(json.load(f))
    except (OSError, ValueError) as e:
        check(False, 'the records are written', e)
        return
    faults = [f for g in games for f in g.get('faults', [])]
    by = {}
    for f in faults:
        by.setdefault(f['bot'], []).append(f)
    want_v2 = ['resync to request %d, which is not outstanding' %
               (r3['seq'] + 1000), 'a second resync of request %d' %
               r4['seq']]
    got_v2 = [f['detail'] for f in by.get('v2', [])]
    check(got_v2 == want_v2 and
          all(f['kind'] == 'malformed' for f in by.get('v2', [])),
          "version 2's faults: a resync of another seq, a second resync",
          got_v2)
    got_v1 = [f['detail'] for f in by.get('v1', [])]
    check(len(got_v1) == 1 and 'speaks protocol version 1' in got_v1[0],
          'a resync from a version-1 seat is malformed', got_v1)
    check(not by.get('sdk2') and not by.get('sdk1') and not by.get('py'),
          'the SDK bot on version 2, on version 1 and the Python example '
          'play without a fault', by)
    for path in recs:
        p = subprocess.run([REFEREE, '--verify', path], capture_output=True,
                           text=True, timeout=60)
        check(p.returncode == 0, 'the record verifies: ' +
              os.path.basename(path), p.stdout + p.stderr)
    # the second resync closed the request: the default action played it
    dec = [x for g in games for x in g.get('decisions', [])]
    check(any(x.get('by') == 'default' for x in dec),
          'the closed request was played by the default policy')


def bad_versions(tmp):
    d = os.path.join(tmp, 'versions')
    os.makedirs(d)
    ep = 'ipc://' + os.path.join(d, 'ep')
    ref = subprocess.Popen([REFEREE, '--seed', '1', '--endpoint', ep,
                            '--hello-time', '30000', '--remote',
                            'x=' + 'c' * 32, '--bot', 'r=' + RANDOM],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    ctx = zmq.Context()
    answers = []
    for v in (0, MAX_VERSION + 1, 'two'):
        s = ctx.socket(zmq.DEALER)
        s.setsockopt(zmq.LINGER, 0)
        s.connect(ep)
        s.send(pack({'type': 'hello', 'version': v, 'token': 'c' * 32,
                     'name': 'x'}))
        answers.append(recv(s))
        s.close()
    check(all(a and a.get('type') == 'reject' and
              a.get('reason') == 'unsupported protocol version'
              for a in answers),
          'hellos with version 0, %d and "two" are refused' %
          (MAX_VERSION + 1), answers)
    # then the seat is taken with version 2 and played out
    s = ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    s.connect(ep)
    s.send(pack({'type': 'hello', 'version': 2, 'token': 'c' * 32,
                 'name': 'x'}))
    deadline, bye = time.monotonic() + GUARD_S, False
    while time.monotonic() < deadline and not bye:
        m = recv(s, 10)
        if m is None:
            continue
        if m['type'] == 'request':
            s.send(pack({'type': 'action', 'seq': m['seq'],
                         'action': m['legal'][0]}))
        bye = m['type'] == 'bye'
    s.close()
    ctx.term()
    try:
        ref.communicate(timeout=GUARD_S)
    except subprocess.TimeoutExpired:
        ref.kill()
        ref.communicate()
    check(bye and ref.returncode == 0,
          'the seat refused three times still plays with version 2')


def fake_referee(tmp, script, bot_args=('--verbose',)):
    """maat-random (with bot_args) against a ROUTER played from here;
    script(sock, next_msg, hellos, bot) drives it.  Returns the bot's exit
    code, stderr, the hellos."""
    d = os.path.join(tmp, 'fake-%d' % len(os.listdir(tmp)))
    os.makedirs(d)
    ep = 'ipc://' + os.path.join(d, 'ep')
    ctx = zmq.Context()
    r = ctx.socket(zmq.ROUTER)
    r.setsockopt(zmq.LINGER, 0)
    r.bind(ep)
    env = dict(os.environ, MAAT_ENDPOINT=ep, MAAT_TOKEN='t' * 32,
               MAAT_BOT_NAME='sdk')
    bot = subprocess.Popen([RANDOM] + list(bot_args), env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    hellos = []

    def next_msg(guard_ms=30000):
        if r.poll(guard_ms):
            rid, b = r.recv_multipart()
            return rid, unpack(b)
        return None, None

    try:
        script(r, next_msg, hellos, bot)
        try:
            _, err = bot.communicate(timeout=GUARD_S)
        except subprocess.TimeoutExpired:
            bot.kill()
            _, err = bot.communicate()
    finally:
        r.close()
        ctx.term()
    return bot.returncode, err, hellos


def sdk_falls_back(tmp):
    def script(r, next_msg, hellos, bot):
        rid, m = next_msg()
        hellos.append(m)
        r.send_multipart([rid, pack({'type': 'reject', 'reason':
                                     'unsupported protocol version'})])
        rid, m = next_msg()
        hellos.append(m)
        r.send_multipart([rid, pack({'type': 'welcome', 'version': 1,
                                     'game': 'pyramix',
                                     'rules_version': 'pyramix-2',
                                     'games': 1, 'setup': {}})])
        r.send_multipart([rid, pack({'type': 'bye'})])

    rc, err, hellos = fake_referee(tmp, script,
                                   ('--verbose', '--protocol', '2'))
    versions = [h.get('version') if h else None for h in hellos]
    check(versions == [2, 1] and rc == 0,
          'the SDK with --protocol 2 offers version 2, and refused says '
          'hello with version 1 and plays on (exit 0)', (versions, rc, err))


def sdk_resyncs_once(tmp, version=2):
    seen = []

    def script(r, next_msg, hellos, bot):
        rid, m = next_msg()
        hellos.append(m)
        r.send_multipart([rid, pack({'type': 'welcome', 'version': version,
                                     'game': 'pyramix',
                                     'rules_version': 'pyramix-2',
                                     'games': 1, 'setup': {}})])
        r.send_multipart([rid, pack({'type': 'start', 'game_index': 0,
                                     'seat': 0, 'seats': 2})])
        # a request without the observation, though the view has none
        req = {'type': 'request', 'seq': 7, 'game_index': 0,
               'decision': 'remove', 'events': [],
               'legal': [{'kind': 'remove', 'x': 5, 'y': 0, 'z': 0}],
               'clock': {'time_left_ms': 1000, 'decision_ms': 1000,
                         'bank_ms': 0}}
        if version >= 3:
            del req['legal']
        r.send_multipart([rid, pack(req)])
        rid, m = next_msg()
        seen.append(m)
        r.send_multipart([rid, pack(req)])  # again without: a broken peer
        try:  # the bot gives up: then nothing more can have been sent
            bot.wait(timeout=GUARD_S)
        except subprocess.TimeoutExpired:
            pass
        rid, m = next_msg(0)
        seen.append(m)

    rc, err, hellos = fake_referee(tmp, script)
    check(seen[:1] == [{'type': 'resync', 'seq': 7}],
          'version %d: the SDK answers a request its view cannot follow '
          'with a resync' % version, (seen, err))
    check(seen[1:] == [None] and rc != 0 and 'request 7' in err,
          'version %d: a second copy without the observation: the SDK gives '
          'up with a message, no second resync' % version,
          (seen, rc, err[-300:]))


def sdk_hellos_until_welcomed(tmp):
    """The SDK's wait is bounded: unanswered, it says hello again after a
    second (not sooner), and once welcomed it plays and ends on bye."""
    def script(r, next_msg, hellos, bot):
        rid, m = next_msg()
        hellos.append((time.monotonic(), m))
        rid, m = next_msg()
        hellos.append((time.monotonic(), m))
        r.send_multipart([rid, pack({'type': 'welcome', 'version': 1,
                                     'game': 'pyramix',
                                     'rules_version': 'pyramix-2',
                                     'games': 1, 'setup': {}})])
        r.send_multipart([rid, pack({'type': 'bye'})])

    rc, err, hellos = fake_referee(tmp, script, ('--protocol', '1'))
    kinds = [m.get('type') if m else None for _, m in hellos]
    gap = hellos[1][0] - hellos[0][0] if len(hellos) == 2 else 0
    check(kinds == ['hello', 'hello'] and gap >= 0.9 and rc == 0,
          'unanswered, the SDK says hello again after a second, then plays '
          'on once welcomed (exit 0)', (kinds, round(gap, 3), rc, err))


def main():
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix='maat-v2-') as tmp:
        run_match(tmp)
        bad_versions(tmp)
        sdk_falls_back(tmp)
        sdk_resyncs_once(tmp)
        sdk_hellos_until_welcomed(tmp)
    return report(t0)


if __name__ == '__main__':
    sys.exit(main())
