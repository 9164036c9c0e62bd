#!/usr/bin/env python3
"""test_referee_inbound.py -- nothing a connection sends can stop a match or
erase its outcome (issue 14, each case failed on the main of 2026-11-24).

Real matches: maat-referee with maat-random bots, plus peers driven from
here with python3-zmq or raw sockets:
  - multi-frame messages from connections with no seat (a DEALER sending
    [empty, hello], a REQ socket's hello, a three-frame message) no longer
    abort the referee: the match ends with a record and a ladder line;
  - an action whose map key is not UTF-8 is a recorded fault, never lost;
  - one connection flooding wrong-token hellos is logged a few times and
    counted, not logged per message;
  - without CURVE, a User-Id a peer puts in its own handshake is not
    taken for an authenticated key (it was logged as "key of ...");
  - 1,200 raw connections at a soft open-files limit of 1,024 do not abort
    the referee;
  - a seat flooding from connections of its own without a seat earns no
    time; a seated bot flooding 64 KiB hellos of its own while another seat
    decides does not drain that seat's bank (the time the
    referee spends on other seats' messages is not its time); a stranger's
    message over 4 KiB is not decoded (review of 2026-11-27); while a seat
    decides, only hello-sized messages are read from connections beyond the
    64-entry stranger table (2026-11-28);
  - a seat's late replies and messages before the game are logged 3 times
    each, then counted; an action whose type is a bin is a fault that
    names the field; a 2-frame stranger message is logged as one;
  - match ids are checked (200 plain characters), never cut; 1,100
    --option arguments are a usage error; a FIFO ladder path is refused
    before the match; a short write of the ladder line (file-size limit)
    is named as such and leaves no torn line.
No sleep synchronises anything: every wait is for an event, with a deadline
that only guards against a hang.  Prints one line per check.
"""
import errno
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from maattest import (HOSTILE, RANDOM, REFEREE, check, debian_python_for,
                      report, wait_file)

debian_python_for('msgpack', 'zmq')
import msgpack  # noqa: E402
import zmq  # noqa: E402

GUARD_S = 120

def start_referee(d, extra, bots=2, preexec=None, remote=()):
    """A referee on ipc://d/ep with `bots` random bots and remote seats."""
    ep = 'ipc://' + os.path.join(d, 'ep')
    cmd = [REFEREE, '--seed', '5', '--endpoint', ep, '--hello-time', '20000',
           '--record', os.path.join(d, 'record.json'),
           '--ladder', os.path.join(d, 'ladder.jsonl')]
    for i in range(bots):
        cmd += ['--bot', 'r%d=%s' % (i, RANDOM)]
    for name, token in remote:
        cmd += ['--remote', '%s=%s' % (name, token)]
    cmd += list(extra)
    ref = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, preexec_fn=preexec)
    return ref, ep


def finish(ref, guard_s=GUARD_S):
    try:
        out, err = ref.communicate(timeout=guard_s)
        return ref.returncode, err
    except subprocess.TimeoutExpired:
        ref.kill()
        out, err = ref.communicate()
        return 'hung', err


def outcome(d):
    rec = lad = None
    try:
        with open(os.path.join(d, 'record.json')) as f:
            rec = json.load(f)
    except (OSError, ValueError):
        pass
    try:
        with open(os.path.join(d, 'ladder.jsonl')) as f:
            lines = [json.loads(l) for l in f if l.strip()]
        lad = lines[-1] if lines else None
    except (OSError, ValueError):
        pass
    return rec, lad


def verify(d):
    p = subprocess.run([REFEREE, '--verify', os.path.join(d, 'record.json')],
                       capture_output=True, text=True, timeout=60)
    return p.returncode == 0


def hello(token):
    return msgpack.packb({'type': 'hello', 'version': 1, 'token': token,
                          'name': 'x'})


def wait_for(sock, guard_s=20):
    """One message from sock, or None after the deadline."""
    if sock.poll(int(guard_s * 1000)):
        return sock.recv_multipart()
    return None


def play_remote(ctx, ep, token, guard_s=GUARD_S, rehello=False):
    """Take a remote seat and answer every request with its first legal
    action until the match ends: the match waits for this seat's hello,
    so strangers' messages sent before it are read during the match.
    rehello: say the same hello again before each answer."""
    s = ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    s.connect(ep)
    s.send(hello(token))
    deadline = time.monotonic() + guard_s
    try:
        while time.monotonic() < deadline:
            msg = wait_for(s, 5)
            if msg is None:
                continue
            m = msgpack.unpackb(msg[-1], raw=False, strict_map_key=False)
            if m.get('type') == 'request':
                if rehello:
                    s.send(hello(token))
                s.send(msgpack.packb({'type': 'action', 'seq': m['seq'],
                                      'action': m['legal'][0]}))
            elif m.get('type') in ('bye', 'reject'):
                return m.get('type') == 'bye'
    finally:
        s.close()
    return False


TOKEN = 'cd' * 16


# ---- a seated bot's own hello again ---------------------------------------

def hello_again(tmp):
    """The SDK says hello every second until welcomed: a slow referee may
    welcome it after the next hello left, which then arrives during the
    game.  Its own hello again is ignored, never a fault (it was taken as a
    malformed answer to the open request)."""
    d = os.path.join(tmp, 'hello-again')
    os.makedirs(d)
    ref, ep = start_referee(d, [], bots=1, remote=[('me', TOKEN)])
    ctx = zmq.Context()
    try:
        played = play_remote(ctx, ep, TOKEN, rehello=True)
        rc, err = finish(ref)
    finally:
        ctx.destroy(linger=0)
    rec, lad = outcome(d)
    faults = rec.get('faults') if rec else None
    seat = [x['seat'] for x in (rec or {}).get('seats', []) if x['bot'] == 'me']
    mine = [dd for dd in (rec or {}).get('decisions', []) if [dd['seat']] == seat]
    check(rc == 0 and played and faults == [] and mine and
          all(dd['by'] == 'bot' for dd in mine),
          'a hello again before every answer: no fault, every decision the '
          "bot's own (exit %s, faults %s)" % (rc, faults))


# ---- multi-frame messages with no seat ----------------------------------

def multiframe(tmp):
    d = os.path.join(tmp, 'multiframe')
    os.makedirs(d)
    ref, ep = start_referee(d, [], bots=1, remote=[('me', TOKEN)])
    ctx = zmq.Context()
    try:
        socks = []
        # a DEALER sending [empty, hello], as a REQ-style client would
        s = ctx.socket(zmq.DEALER)
        s.setsockopt(zmq.LINGER, 0)
        s.connect(ep)
        s.send_multipart([b'', hello('0' * 32)])
        socks.append(s)
        # a REQ socket's hello (libzmq adds the empty delimiter)
        s = ctx.socket(zmq.REQ)
        s.setsockopt(zmq.LINGER, 0)
        s.connect(ep)
        s.send(hello('1' * 32))
        socks.append(s)
        # three frames of junk
        s = ctx.socket(zmq.DEALER)
        s.setsockopt(zmq.LINGER, 0)
        s.connect(ep)
        s.send_multipart([b'a', b'b', b'\xc1'])
        socks.append(s)
        # the first one gets a reject: proof the referee read them all
        reply = wait_for(socks[0])
        check(reply is not None and
              msgpack.unpackb(reply[-1]).get('type') == 'reject',
              'multi-frame: a [empty, hello] gets a reject', repr(reply))
        s = socks[2]  # after junk, a proper hello on the same connection
        s.send(hello('2' * 32))
        reply = wait_for(s)
        check(reply is not None and
              msgpack.unpackb(reply[-1]).get('type') == 'reject',
              'multi-frame: the junk sender is still answered', repr(reply))
        play_remote(ctx, ep, TOKEN)
        rc, err = finish(ref)
        rec, lad = outcome(d)
        check(rc == 0, 'multi-frame: the referee finishes (exit 0)',
              'rc %r: %s' % (rc, err))
        check(rec is not None and lad is not None and verify(d),
              'multi-frame: a record that verifies and a ladder line')
        check('one frame expected' in err,
              'multi-frame: the refusal is logged with its reason', err)
        check('refused a 2-frame message' in err and
              'refused a hello a ' not in err,
              'multi-frame: logged as a 2-frame message, not "a hello a..."',
              err)
        for s in socks:
            s.close()
    finally:
        if ref.poll() is None:
            ref.kill()
            ref.wait()
        ctx.term()


# ---- an action whose type is a bin ----------------------------------------

def bin_type(tmp):
    """The common mistake of a packer writing bytes as bin: the fault names
    the field and says it must be a str (it said "wrong type")."""
    d = os.path.join(tmp, 'bin-type')
    os.makedirs(d)
    ref, ep = start_referee(d, ['--fixed-seats'], bots=1,
                            remote=[('me', TOKEN)])
    ctx = zmq.Context()
    s = ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    try:
        s.connect(ep)
        s.send(hello(TOKEN))
        sent, deadline = 0, time.monotonic() + GUARD_S
        while time.monotonic() < deadline:
            msg = wait_for(s)
            if msg is None:
                break
            m = msgpack.unpackb(msg[-1], raw=False, strict_map_key=False)
            if m.get('type') == 'request':
                kind = b'action' if not sent else 'action'   # bin, then str
                sent += 1
                s.send(msgpack.packb({'type': kind, 'seq': m['seq'],
                                      'action': m['legal'][0]},
                                     use_bin_type=True))
            elif m.get('type') in ('bye', 'reject'):
                break
        rc, err = finish(ref)
        rec, lad = outcome(d)
        faults = rec.get('faults', []) if rec else []
        detail = faults[0].get('detail', '') if faults else ''
        check(rc == 0 and len(faults) == 1 and
              "field 'type' is a bin; it must be a str" in detail,
              'bin type: one malformed fault naming the field (%r)' % detail,
              repr(faults)[:500])
    finally:
        s.close()
        if ref.poll() is None:
            ref.kill()
            ref.wait()
        ctx.term()


# ---- a remote bot whose action has a non-UTF-8 key ----------------------

def bad_key(tmp):
    d = os.path.join(tmp, 'badkey')
    os.makedirs(d)
    token = 'ab' * 16
    ref, ep = start_referee(d, ['--on-malformed', 'forfeit'], bots=1,
                            remote=[('evil', token)])
    ctx = zmq.Context()
    s = ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    try:
        s.connect(ep)
        s.send(hello(token))
        sent = False
        deadline = time.monotonic() + GUARD_S
        while time.monotonic() < deadline:
            msg = wait_for(s, 5)
            if msg is None:
                if ref.poll() is not None:
                    break
                continue
            m = msgpack.unpackb(msg[-1], raw=False, strict_map_key=False)
            if m.get('type') == 'request' and not sent:
                # a map whose key is the bytes ff fe, sent as a str
                packer = msgpack.Packer(unicode_errors='surrogateescape')
                body = packer.pack({'type': 'action', 'seq': m['seq'],
                                    'action': {b'\xff\xfe'.decode(
                                        'utf-8', 'surrogateescape'): 1}})
                s.send(body)
                sent = True
            if m.get('type') in ('end', 'bye'):
                break
        rc, err = finish(ref)
        rec, lad = outcome(d)
        check(sent and rc == 0, 'bad key: the match finishes (exit 0)',
              'rc %r: %s' % (rc, err))
        rf = rec['faults'] if rec else []
        lf = lad['faults'] if lad else []
        check(any(f['bot'] == 'evil' and f['kind'] == 'malformed'
                  for f in rf),
              'bad key: the record names the malformed fault', repr(rf))
        check(any(f['bot'] == 'evil' and f['kind'] == 'malformed'
                  for f in lf),
              'bad key: the ladder line names the malformed fault', repr(lf))
        check(rec is not None and verify(d), 'bad key: the record verifies')
    finally:
        s.close()
        if ref.poll() is None:
            ref.kill()
            ref.wait()
        ctx.term()


# ---- one connection flooding wrong-token hellos --------------------------

def flood(tmp):
    d = os.path.join(tmp, 'flood')
    os.makedirs(d)
    ref, ep = start_referee(d, [], bots=1, remote=[('me', TOKEN)])
    ctx = zmq.Context()
    s = ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    s.setsockopt(zmq.SNDHWM, 0)
    try:
        s.connect(ep)
        n = 20000
        for i in range(n):
            s.send(hello('%032x' % i))
        rejects = 0
        while rejects < 8 and wait_for(s) is not None:
            rejects += 1
        check(rejects == 8, 'flood: the first 8 hellos are answered (%d)'
              % rejects)
        play_remote(ctx, ep, TOKEN)
        rc, err = finish(ref)
        rec, lad = outcome(d)
        check(rc == 0 and rec is not None and lad is not None,
              'flood: the match finishes with its results', 'rc %r' % rc)
        logged = err.count('refused a hello with an unknown token')
        check(0 < logged <= 3, 'flood: at most 3 refusals logged (%d)' % logged,
              err[-2000:])
        check('messages with no seat' in err,
              'flood: one line counts the rest, naming the connection', err)
        check(len(err) < 20000, 'flood: the log stays small (%d bytes)'
              % len(err))
    finally:
        s.close()
        if ref.poll() is None:
            ref.kill()
            ref.wait()
        ctx.term()


# ---- a flood is not its victim's time --------------------------------------

def fixints(size):
    """A msgpack array of `size` bytes in all: as costly to decode per byte
    as msgpack gets (one object a byte)."""
    n = size - 5
    return b'\xdd' + n.to_bytes(4, 'big') + b'\x01' * n


def flood_dealer(ctx, ep, socks):
    """A DEALER connected to ep that queues without limit (a flooder's),
    appended to socks for closing."""
    s = ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    s.setsockopt(zmq.SNDHWM, 0)
    s.connect(ep)
    socks.append(s)
    return s


def flood_fair(tmp):
    """Another seat floods the referee while a seat decides (helper review,
    2026-11-27: a seat answering at once saw its bank drained, 3000 -> 0 ms
    in 21 requests).  Both seats are played from here: at each of the seat
    'me''s first 10 requests the seat 'att' first sends 500 64 KiB hellos
    of its own (ignored, no fault, but each decoded: 65,000 containers),
    then 'me' answers.  The referee's time on anyone else's messages is not
    the deciding seat's: me's bank stays whole (its 200 ms a decision
    cover the sending from here).  And a stranger's message over 4 KiB is
    dropped unread."""
    d = os.path.join(tmp, 'flood-fair')
    os.makedirs(d)
    att_token = 'ef' * 16
    ref, ep = start_referee(d, ['--fixed-seats', '--no-sandbox', '--time', '200',
                                '--first-time', '200', '--bank', '2000',
                                '--record-timing'],
                            bots=0, remote=[('me', TOKEN), ('att', att_token)])
    ctx = zmq.Context()
    socks = []

    def dealer():
        return flood_dealer(ctx, ep, socks)
    try:
        check(wait_file(ep[len('ipc://'):], GUARD_S, ref),
              'flood-fair: the referee listens')
        big = dealer()
        big.send(fixints(65000))            # past the hello size: unread
        me, att = dealer(), dealer()
        me.send(hello(TOKEN))
        att.send(hello(att_token))
        own = msgpack.packb({'type': 'hello', 'version': 1,    # 64 KiB of
                             'token': att_token, 'name': 'x',  # containers
                             'pad': [[]] * 65000})
        poller = zmq.Poller()
        poller.register(me, zmq.POLLIN)
        poller.register(att, zmq.POLLIN)
        banks, done, deadline = [], 0, time.monotonic() + GUARD_S
        while done < 2 and time.monotonic() < deadline:
            ready = poller.poll(20000)
            if not ready:
                break
            for s, _ in ready:
                m = msgpack.unpackb(s.recv_multipart()[-1], raw=False,
                                    strict_map_key=False)
                if m.get('type') in ('bye', 'reject'):
                    done += 1
                if m.get('type') != 'request':
                    continue
                if s is me:
                    if len(banks) < 10:     # the flood, then the answer
                        for k in range(500):
                            att.send(own, copy=False)
                    banks.append(m['clock']['bank_ms'])
                s.send(msgpack.packb({'type': 'action', 'seq': m['seq'],
                                      'action': m['legal'][0]}))
        rc, err = finish(ref)
        rec, lad = outcome(d)
        check(rc == 0 and rec is not None and lad is not None,
              'flood-fair: the match finishes', 'rc %r %s' % (rc, err[-800:]))
        faults = rec.get('faults') if rec else None
        check(faults == [], 'flood-fair: no fault for anyone', repr(faults))
        # The record (--record-timing) says, for each decision, the time
        # not charged to its bot (credit_us): the flood read while 'me'
        # decided.  (No such field before the fix.)
        seat = [x['seat'] for x in rec['seats'] if x['bot'] == 'me'] \
            if rec else []
        credits = [x.get('credit_us', 0) for x in rec['decisions']
                   if x['seat'] in seat] if rec else []
        check(sum(1 for c in credits if c > 0) >= 1,
              'flood-fair: the record shows time not charged to the flooded '
              'seat (credit_us: %s)' % [c for c in credits if c][:10])
        low = min(banks) if banks else -1
        # Its bank: without the fix 1,114-1,659 of 2000 left (release
        # builds), with it 2000 on an idle machine; what is left to charge
        # is the transport's delay under the flood (libzmq's I/O thread
        # moving 32 MB), which a loaded machine with sanitizers stretches
        # (1683 seen in a CI run), so the check is for the gross loss only.
        check(len(banks) > 10 and low >= 1500,
              'flood-fair: the flooded seat keeps its bank (2000 ms; lowest '
              'seen %d, over %d requests)' % (low, len(banks)), repr(banks))
        check('a message of 65000 bytes, unread' in err,
              'flood-fair: a stranger\'s 65000-byte message is not decoded',
              err[-1500:])
    finally:
        for s in socks:
            s.close()
        if ref.poll() is None:
            ref.kill()
            ref.wait()
        ctx.term()


def self_flood(tmp):
    """The other side of flood-fair: a seat's own connections without a
    seat (a bot can open more) flooding while it decides earn it no time.
    Crediting them (the first version of the fix) let a bot stretch its own
    clock by flooding the referee from a second connection."""
    d = os.path.join(tmp, 'self-flood')
    os.makedirs(d)
    ref, ep = start_referee(d, ['--fixed-seats', '--no-sandbox',
                                '--record-timing'],
                            bots=1, remote=[('me', TOKEN)])
    ctx = zmq.Context()
    socks = []

    def dealer():
        return flood_dealer(ctx, ep, socks)
    try:
        me = dealer()
        me.send(hello(TOKEN))
        mine = [dealer() for i in range(100)]   # my own, with no seat
        junk = fixints(4000)
        n, deadline = 0, time.monotonic() + GUARD_S
        while time.monotonic() < deadline:
            msg = wait_for(me, 20)
            if msg is None:
                break
            m = msgpack.unpackb(msg[-1], raw=False, strict_map_key=False)
            if m.get('type') in ('bye', 'reject'):
                break
            if m.get('type') != 'request':
                continue
            if n < 10:                          # flood, then answer
                for s in mine:
                    for k in range(3):
                        s.send(junk, copy=False)
            n += 1
            me.send(msgpack.packb({'type': 'action', 'seq': m['seq'],
                                   'action': m['legal'][0]}))
        rc, err = finish(ref)
        rec, lad = outcome(d)
        seat = [x['seat'] for x in rec['seats'] if x['bot'] == 'me'] \
            if rec else []
        credits = [x.get('credit_us', 0) for x in rec['decisions']
                   if x['seat'] in seat] if rec else []
        check(rc == 0 and rec is not None and len(credits) > 10 and
              not any(credits),
              'self-flood: a seat earns no time by flooding from connections '
              'of its own (credit_us: %s)' % [c for c in credits if c][:10],
              err[-500:])
    finally:
        for s in socks:
            s.close()
        if ref.poll() is None:
            ref.kill()
            ref.wait()
        ctx.term()


def unlisted(tmp):
    """Connections beyond the 64-entry stranger table were read whatever
    happened, and what the referee spent on them was charged to the seat
    deciding (a review of 2026-11-27: a bot can open a hundred more
    connections; bench/stranger_flood.py: 150 flooding ones charged the
    other seat 623-1,126 ms over 39 decisions).  Now, while a seat decides,
    only what could be a hello (512 bytes at most) is read from them: 64
    connections fill the table (each hello refused and answered), then 20
    more each send 600 bytes and a hello while the seat 'me' decides ('me'
    never answers: it times out).  Every hello is still answered, and the
    600 bytes are counted as dropped unread."""
    d = os.path.join(tmp, 'unlisted')
    os.makedirs(d)
    ref, ep = start_referee(d, ['--fixed-seats', '--no-sandbox', '--time',
                                '1500', '--first-time', '1500', '--bank', '0'],
                            bots=1, remote=[('me', TOKEN)])
    ctx = zmq.Context()
    socks = []

    def dealer():
        return flood_dealer(ctx, ep, socks)
    try:
        table = [dealer() for i in range(64)]
        for i, s in enumerate(table):
            s.send(hello('%032x' % i))
        answered = sum(1 for s in table if wait_for(s) is not None)
        check(answered == 64, 'unlisted: 64 connections fill the table, '
              'each refused (%d answered)' % answered)
        me = dealer()
        me.send(hello(TOKEN))
        more, rejects = [], 0
        deadline = time.monotonic() + GUARD_S
        while time.monotonic() < deadline:
            msg = wait_for(me, 20)
            if msg is None:
                break
            m = msgpack.unpackb(msg[-1], raw=False, strict_map_key=False)
            if m.get('type') == 'request' and not more:
                more = [dealer() for i in range(20)]  # and no answer
                for i, s in enumerate(more):
                    s.send(fixints(600))
                    s.send(hello('%032x' % (100 + i)))
                rejects = sum(1 for s in more if wait_for(s) is not None)
            if m.get('type') in ('bye', 'reject'):
                break
        rc, err = finish(ref)
        rec, lad = outcome(d)
        check(rc == 0 and rec is not None and len(more) == 20,
              'unlisted: the match finishes', 'rc %r %s' % (rc, err[-800:]))
        check(rejects == 20, 'unlisted: a hello from beyond the table is '
              'answered while a seat decides (%d of 20)' % rejects)
        check('20 of them, sent while a seat decided and larger than a '
              'hello, were dropped unread' in err,
              'unlisted: their 600-byte messages are dropped unread',
              err[-1500:])
    finally:
        for s in socks:
            s.close()
        if ref.poll() is None:
            ref.kill()
            ref.wait()
        ctx.term()


def notes_flood(tmp):
    """A seat's messages that are no fault -- before the game starts, or a
    late reply to a request that timed out -- were logged one line each
    (100,000 messages: 100,000 lines).  Now 3 of each kind, then a count."""
    d = os.path.join(tmp, 'notes')
    os.makedirs(d)
    other = 'ef' * 16
    ref, ep = start_referee(d, ['--fixed-seats', '--no-sandbox', '--time', '100',
                                '--first-time', '100'],
                            bots=0, remote=[('me', TOKEN), ('you', other)])
    ctx = zmq.Context()
    me = ctx.socket(zmq.DEALER)
    me.setsockopt(zmq.LINGER, 0)
    me.setsockopt(zmq.SNDHWM, 0)
    try:
        me.connect(ep)
        me.send(hello(TOKEN))
        welcome = wait_for(me)
        check(welcome is not None, 'notes: seat me welcomed')
        early = msgpack.packb({'type': 'action', 'seq': 0, 'action': {}})
        for i in range(500):                # before the game: the other
            me.send(early)                  # seat has not said hello yet
        import threading
        t = threading.Thread(target=play_remote, args=(ctx, ep, other))
        t.start()
        first, late_sent = None, 0
        deadline = time.monotonic() + GUARD_S
        while time.monotonic() < deadline:
            msg = wait_for(me, 20)
            if msg is None:
                break
            m = msgpack.unpackb(msg[-1], raw=False, strict_map_key=False)
            if m.get('type') == 'request':
                if first is None:           # let the first time out
                    first = m
                    continue
                if not late_sent:           # then its reply, 500 times
                    late = msgpack.packb({'type': 'action', 'seq': first['seq'],
                                          'action': first['legal'][0]})
                    for i in range(500):
                        me.send(late)
                    late_sent = 500
                me.send(msgpack.packb({'type': 'action', 'seq': m['seq'],
                                       'action': m['legal'][0]}))
            elif m.get('type') in ('bye', 'reject'):
                break
        t.join(GUARD_S)
        rc, err = finish(ref)
        early_lines = err.count('message before the game started')
        late_lines = err.count('late reply to request')
        check(rc == 0 and late_sent == 500, 'notes: the match finishes '
              '(rc %r)' % rc, err[-800:])
        check(0 < early_lines <= 3 and 'me sent 500 messages before the game '
              'started; 3 were logged' in err,
              'notes: 500 early messages, 3 lines and a count (%d lines)'
              % early_lines, err[-1500:])
        check(0 < late_lines <= 3 and 'me sent 500 late replies, discarded; '
              '3 were logged' in err,
              'notes: 500 late replies, 3 lines and a count (%d lines)'
              % late_lines, err[-1500:])
    finally:
        me.close()
        if ref.poll() is None:
            ref.kill()
            ref.wait()
        ctx.term()


# ---- a User-Id forged in the handshake -----------------------------------

def zmtp_null_peer(path, props, body):
    """A ZMTP 3.0 peer written by hand on a unix socket: the NULL
    mechanism, a READY command with the properties `props` (which
    python3-zmq would not send: it allows only X- names), then one
    message `body`.  Returns the socket (close it)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(20)
    s.connect(path)
    greeting = (b'\xff' + b'\0' * 8 + b'\x7f' + b'\x03\x00' +
                b'NULL'.ljust(20, b'\0') + b'\x00' + b'\0' * 31)
    s.sendall(greeting)
    got = b''
    while len(got) < 64:
        chunk = s.recv(64 - len(got))
        if not chunk:
            raise OSError('the referee closed the connection')
        got += chunk
    ready = b'\x05READY'
    for name, value in props:
        ready += (bytes([len(name)]) + name +
                  len(value).to_bytes(4, 'big') + value)
    s.sendall(b'\x04' + bytes([len(ready)]) + ready)
    s.sendall(b'\x00' + bytes([len(body)]) + body)
    return s


def forged_user(tmp):
    d = os.path.join(tmp, 'forged')
    os.makedirs(d)
    ref, ep = start_referee(d, [], bots=1, remote=[('me', TOKEN)])
    ctx = zmq.Context()
    peer = None
    try:
        path = ep[len('ipc://'):]
        deadline = time.monotonic() + 20
        while not os.path.exists(path) and time.monotonic() < deadline:
            if ref.poll() is not None:
                break
            time.sleep(0.01)  # polling for the socket file, not a wait
        peer = zmtp_null_peer(path, [(b'Socket-Type', b'DEALER'),
                                     (b'User-Id', b'mallory')],
                              hello('ab' * 16))
        # its reject says the hello was read before the match goes on
        reject = b''
        while b'reject' not in reject:
            chunk = peer.recv(4096)
            if not chunk:
                break
            reject += chunk
        check(b'reject' in reject, 'forged User-Id: its hello is refused')
        play_remote(ctx, ep, TOKEN)
        rc, err = finish(ref)
        check(rc == 0, 'forged User-Id: the match finishes', 'rc %r' % rc)
        check('unknown token' in err and 'mallory' not in err,
              'forged User-Id: without CURVE it is not logged as a key',
              err[-2000:])
    finally:
        if peer:
            peer.close()
        if ref.poll() is None:
            ref.kill()
            ref.wait()
        ctx.term()


# ---- descriptor exhaustion ---------------------------------------------

def descriptors(tmp):
    d = os.path.join(tmp, 'fds')
    os.makedirs(d)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 4096:
        print('skip descriptors: the hard open-files limit is %d' % hard)
        return

    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard))

    ref, ep = start_referee(d, [], bots=1, remote=[('me', TOKEN)],
                            preexec=limit)
    path = ep[len('ipc://'):]
    conns = []
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
    try:
        deadline = time.monotonic() + 20
        while not os.path.exists(path) and time.monotonic() < deadline:
            time.sleep(0.01)  # waiting for the socket file (readiness)
        while len(conns) < 1200:
            c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                c.connect(path)
            except OSError as e:
                c.close()
                # the file is made (bind) before the referee listens: on
                # a loaded machine the first connect can come in between
                if (not conns and e.errno == errno.ECONNREFUSED and
                        time.monotonic() < deadline):
                    time.sleep(0.01)  # waiting for listen (readiness)
                    continue
                break
            conns.append(c)
        ctx = zmq.Context()
        play_remote(ctx, ep, TOKEN)
        ctx.term()
        rc, err = finish(ref)
        rec, lad = outcome(d)
        check(len(conns) == 1200, 'descriptors: %d connections made'
              % len(conns))
        check(rc == 0 and rec is not None and lad is not None,
              'descriptors: 1,200 connections at ulimit -n 1024 do not abort '
              'the referee', 'rc %r: %s' % (rc, err[-1500:]))
    finally:
        for c in conns:
            c.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        if ref.poll() is None:
            ref.kill()
            ref.wait()


# ---- arguments and paths checked before the match ------------------------

def arguments(tmp):
    d = os.path.join(tmp, 'args')
    os.makedirs(d)
    base = [REFEREE, '--bot', 'a=' + RANDOM, '--bot', 'b=' + RANDOM]
    args = base[:]
    for i in range(1100):
        args += ['--option', 'k%d=v' % i]
    p = subprocess.run(args, capture_output=True, text=True, timeout=60)
    check(p.returncode == 2 and '--option' in p.stderr,
          '1,100 --option arguments: usage error naming --option',
          'rc %d: %s' % (p.returncode, p.stderr[-500:]))
    cfg = os.path.join(d, 'many.conf')
    with open(cfg, 'w') as f:
        for i in range(1100):
            f.write('option k%d=v\n' % i)
    p = subprocess.run(base + ['--config', cfg], capture_output=True,
                       text=True, timeout=60)
    check(p.returncode == 2, '1,100 options in a config file: usage error',
          'rc %d: %s' % (p.returncode, p.stderr[-500:]))

    record = os.path.join(d, 'keep.json')
    with open(record, 'w') as f:
        f.write('{"old": true}\n')
    bad_id = 'é' * 25  # 50 bytes of UTF-8
    p = subprocess.run(base + ['--match-id', bad_id, '--record', record],
                       capture_output=True, text=True, timeout=60)
    with open(record) as f:
        kept = f.read()
    check(p.returncode == 2 and '--match-id' in p.stderr and
          kept == '{"old": true}\n',
          'a non-ASCII --match-id is a usage error; the old record is kept',
          'rc %d: %s' % (p.returncode, p.stderr[-300:]))
    long_id = 'tournament-with-a-long-name-of-38-char-' + 'x' * 60
    lad = os.path.join(d, 'ids.jsonl')
    p = subprocess.run(base + ['--match-id', long_id, '--ladder', lad,
                               '--quiet'],
                       capture_output=True, text=True, timeout=120)
    try:
        with open(lad) as f:
            line = json.loads(f.readline())
    except (OSError, ValueError):
        line = {}
    check(p.returncode == 0 and line.get('match') == long_id and
          line.get('id') == long_id + '-0',
          'a 99-byte match id is kept whole in the ladder line',
          repr(line.get('match')))

    fifo = os.path.join(d, 'fifo')
    os.mkfifo(fifo)
    p = subprocess.run(base + ['--ladder', fifo], capture_output=True,
                       text=True, timeout=60)
    check(p.returncode == 1 and 'regular file' in p.stderr and fifo in
          p.stderr, 'a FIFO ladder path is refused before the match (exit 1)',
          'rc %d: %s' % (p.returncode, p.stderr[-300:]))
    p = subprocess.run(base + ['--record', os.path.join(d, 'no', 'such',
                                                        'r.json')],
                       capture_output=True, text=True, timeout=60)
    check(p.returncode == 1 and 'cannot write the record' in p.stderr,
          'an unwritable record path is refused before the match (exit 1)',
          'rc %d: %s' % (p.returncode, p.stderr[-300:]))
    # the bots' logs likewise (it was exit 2 when the directory could not
    # be made, and a file there failed each bot's start)
    for what, logs in (('a log directory that cannot be made',
                        os.path.join(d, 'no', 'such', 'logs')),
                       ('a file as the log directory', fifo)):
        p = subprocess.run(base + ['--log-dir', logs], capture_output=True,
                           text=True, timeout=60)
        check(p.returncode == 1 and '--log-dir ' + logs in p.stderr and
              'seat' not in p.stderr,
              '%s is refused before the match (exit 1, naming it)' % what,
              'rc %d: %s' % (p.returncode, p.stderr[-300:]))


def short_write(tmp):
    d = os.path.join(tmp, 'short')
    os.makedirs(d)
    lad = os.path.join(d, 'ladder.jsonl')
    head = '{"v":1,"padding":"' + 'x' * 900 + '"}\n'
    with open(lad, 'w') as f:
        f.write(head)

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (len(head) + 100,
                                                   len(head) + 100))

    p = subprocess.run([REFEREE, '--bot', 'a=' + RANDOM, '--bot',
                        'b=' + RANDOM, '--ladder', lad],
                       capture_output=True, text=True, timeout=120,
                       preexec_fn=limit)
    with open(lad) as f:
        now = f.read()
    check(p.returncode == 1 and 'disk full' in p.stderr,
          'a short ladder write is reported as one (exit 1)',
          'rc %d: %s' % (p.returncode, p.stderr[-300:]))
    check(now == head, 'a short ladder write leaves no torn line')




def nice_of(pid):
    """pid's nice value; None for no pid or a process gone meanwhile."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            return int(f.read().rsplit(')', 1)[1].split()[16])
    except (TypeError, OSError):
        return None


def bot_pid(marker, name):
    """The pid of the process whose environment has our marker and name
    (the bot, not the bubblewrap processes around a sandboxed one)."""
    want = {('MAAT_TEST_MARKER=' + marker).encode(),
            ('MAAT_BOT_NAME=' + name).encode()}
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        try:
            with open('/proc/%s/environ' % d, 'rb') as f:
                env = set(f.read().split(b'\0'))
            with open('/proc/%s/comm' % d) as f:
                comm = f.read().strip()
        except OSError:
            continue
        if want <= env and comm != 'bwrap':
            return int(d)
    return None


def stop(ref):
    """End the referee (it stops its bots), killing it if it takes 30 s."""
    ref.terminate()
    try:
        ref.wait(timeout=30)
    except subprocess.TimeoutExpired:
        ref.kill()
        ref.wait()


def sandbox_works():
    """Does bubblewrap run here (the referee's --sandbox)?"""
    try:
        return subprocess.run(['bwrap', '--ro-bind', '/', '/', '--unshare-pid',
                               '--new-session', 'true'],
                              capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def idle_priority(tmp, ponder, seats=2, sandbox=False):
    """While the slow bot decides, the other bots run at nice 19 (not with
    --ponder): a decision that lasts a millisecond lowers them.  Needs root:
    lowering a nice value back is privileged.  With 3 seats the slow bot
    sits last, so the others have decided first (at once: not lowered
    then, but by the slow one's decision).  Sandboxed,
    the bot itself is niced, not only bubblewrap (its new session is a
    process group of its own)."""
    label = 'turn priority, %d seats' % seats + (' with --ponder' if ponder
                                                 else '') + (
        ', sandboxed' if sandbox else '')
    if os.geteuid() != 0:
        print('skip %s: not root' % label)
        return
    if sandbox and not sandbox_works():
        print('skip %s: bubblewrap does not run here' % label)
        return
    d = os.path.join(tmp, 'turn-%d-%d-%d' % (ponder, seats, sandbox))
    os.makedirs(d)
    marker = 'turn-%d-%d-%d-%d' % (ponder, seats, sandbox, os.getpid())
    env = dict(os.environ, MAAT_PIDFILE_DIR=d, MAAT_TEST_MARKER=marker)
    idle = ['idle%d' % i for i in range(seats - 1)]
    cmd = [REFEREE, '--fixed-seats', '--seed', '1', '--time', '60000',
           '--first-time', '60000']
    if seats == 2:
        cmd += ['--bot', 'slow=%s --mode silent' % HOSTILE]
    for name in idle:
        cmd += ['--bot', '%s=%s' % (name, RANDOM)]
    if seats > 2:
        cmd += ['--bot', 'slow=%s --mode silent' % HOSTILE]
    if ponder:
        cmd.append('--ponder')
    if sandbox:
        cmd += ['--sandbox']
    ref = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    try:
        req = os.path.join(d, 'slow.request')
        deadline = time.monotonic() + 30
        # waiting for the silent bot's first request: its file, or (in a
        # sandbox, whose /tmp is its own) the idle bots at nice 19
        while not os.path.exists(req) and time.monotonic() < deadline:
            if sandbox and all(nice_of(bot_pid(marker, n)) == 19 for n in idle):
                break
            time.sleep(0.01)
        # the referee changes priorities just after it sends the request
        # (off the round trip): the request can be read a moment before
        while not ponder and time.monotonic() < deadline and not all(
                nice_of(bot_pid(marker, n)) == 19 for n in idle):
            time.sleep(0.01)
        for name in idle:
            pid = bot_pid(marker, name)
            nice = nice_of(pid) if pid else None
            check(nice == (0 if ponder else 19),
                  '%s: idle bot %s runs at nice %s while the slow one decides'
                  % (label, name, nice))
    finally:
        stop(ref)


def turn_raises(tmp):
    """Two bots that each take 300 ms: the one deciding runs at nice 0,
    the other at 19 -- lowered a millisecond into the other's decision,
    raised again when its own turn comes, game after game.  Needs root."""
    label = 'turn priority, both slow'
    if os.geteuid() != 0:
        print('skip %s: not root' % label)
        return
    marker = 'raise-%d' % os.getpid()
    env = dict(os.environ, MAAT_TEST_MARKER=marker)
    cmd = [REFEREE, '--fixed-seats', '--seed', '1', '--time', '60000',
           '--first-time', '60000', '--games', '1000']
    for name in ('a', 'b'):
        cmd += ['--bot', '%s=%s --mode slow --delay 300' % (name, HOSTILE)]
    ref = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    seen = set()
    try:
        deadline = time.monotonic() + 60
        pids = {}
        while len(pids) < 2 and time.monotonic() < deadline:
            pids = {n: bot_pid(marker, n) for n in ('a', 'b')}
            pids = {n: p for n, p in pids.items() if p}
            time.sleep(0.01)
        # each state lasts most of a 300 ms decision: sampled every 10 ms
        while len(seen & {(0, 19), (19, 0)}) < 2 and \
                time.monotonic() < deadline and ref.poll() is None:
            seen.add((nice_of(pids.get('a')), nice_of(pids.get('b'))))
            time.sleep(0.01)
    finally:
        stop(ref)
    check((0, 19) in seen and (19, 0) in seen,
          '%s: a deciding at nice 0 with b at 19, and then the other way '
          'round (seen: %s)' % (label, sorted(seen, key=str)))


def main():
    for exe in (REFEREE, RANDOM):
        if not os.access(exe, os.X_OK):
            print('cannot run %s' % exe)
            return 1
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix='maat-inbound-') as tmp:
        multiframe(tmp)
        hello_again(tmp)
        bin_type(tmp)
        bad_key(tmp)
        flood(tmp)
        flood_fair(tmp)
        self_flood(tmp)
        unlisted(tmp)
        notes_flood(tmp)
        forged_user(tmp)
        descriptors(tmp)
        arguments(tmp)
        short_write(tmp)
        idle_priority(tmp, False)
        idle_priority(tmp, True)
        idle_priority(tmp, False, seats=3)
        idle_priority(tmp, False, sandbox=True)
        turn_raises(tmp)
    return report(t0)


if __name__ == '__main__':
    sys.exit(main())
