#!/usr/bin/env python3
"""test_referee_hostile2.py -- the second hostile-bot suite (issue 7).

Real matches of maat-referee with maat-hostile-bot (tests/bots/hostile.c)
in one seat or connecting from outside, and sample or well-behaved hostile
bots in the others:

  partial          raw TCP connections that send part of a ZMTP greeting,
                   handshake or frame and stall (strangers, and a seat's own
                   bot): the match goes on, libzmq drops them
  reconnect-storm  hundreds of connect / hello-with-a-wrong-token /
                   disconnect cycles during a match
  second-claim     a second connection presenting a seat's token mid-game,
                   then sending actions as if it held the seat
  forker           1000 sleeping children (RLIMIT_NPROC; as root, ignoring
                   it, a pids cgroup per bot; as a user already running
                   80 tasks, with and without the sandbox);
                   children that leave the process group with setsid()
  hog              malloc + memset until failure under --limit-as
  ignore-term      plays well, ignores SIGTERM, never leaves
  spam             megabytes to stdout/stderr, continuously; --log-cap
  other-game       a legal action of another game (Pyramix in Pyramids and
                   the reverse)
  other-seat       an action with the seq of another seat's open request

For each: the game finishes, the record verifies, the fault (or refusal) is
recorded against the right seat, the other seats' results are intact, and
no process is left: pid files, and a scan of /proc for MAAT_TEST_MARKER=<uuid>
set in the referee's environment (every bot, and every child of a bot,
inherits it; so do the strangers this test starts).

No sleep is used to synchronise: readiness is a file a bot writes, and every
wait has a deadline that only guards against a hang.  Prints one line per
check; exits 1 if any failed.
"""
import errno, glob
import re
import shutil
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from maattest import (BUILD, HOSTILE, RANDOM, REFEREE, check,  # noqa: E402
                      describe, hostile_cmd, kill_marked, random_cmd,
                      read_pids, report, short, wait_file, wait_gone,
                      wait_no_marked)

MATCH_GUARD_S = 120  # a match that takes longer than this has hung
TRUNC_LINE = '[maat: log truncated at %d bytes]\n'


# ---- files ------------------------------------------------------------

def read_text(path, default=None):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return default


def free_tcp_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


# ---- running a match --------------------------------------------------

class Run:
    pass


def run_match(tmp, label, bots, extra=(), endpoint=None, during=None,
              guard_s=MATCH_GUARD_S, time_ms=1000, in_dir=False, wrap=(),
              env=None):
    """bots: (name, hostile args | None for maat-random | 'remote:TOKEN').
    during(r, ref): called once the referee runs, before waiting for it;
    strangers it starts must be appended to r.strangers.  wrap: a command
    the referee's runs under (its words, then the referee's); then the
    match's directories are writable by every user.  env: more variables
    for the referee."""
    r = Run()
    r.label = label
    r.dir = os.path.join(tmp, label)
    os.makedirs(r.dir)
    r.piddir = os.path.join(r.dir, 'pids')
    os.makedirs(r.piddir)
    if wrap:
        os.chmod(r.dir, 0o777)
        os.chmod(r.piddir, 0o777)
    r.record = os.path.join(r.dir, 'record.json')
    r.ladder = os.path.join(r.dir, 'ladder.jsonl')
    r.logdir = os.path.join(r.dir, 'logs')
    r.marker = str(uuid.uuid4())
    r.endpoint = endpoint
    r.strangers = []
    cmd = [REFEREE, '--fixed-seats', '--seed', str(11 + len(label)),
           '--time', str(time_ms), '--first-time', str(max(time_ms, 3000)),
           '--grace', '200', '--hello-time', '5000',
           '--record', r.record, '--ladder', r.ladder, '--log-dir', r.logdir]
    if endpoint:
        cmd += ['--endpoint', endpoint]
    for name, spec in bots:
        if isinstance(spec, str) and spec.startswith('remote:'):
            cmd += ['--remote', '%s=%s' % (name, spec[7:])]
            continue
        c = random_cmd(r.piddir, name) if spec is None else hostile_cmd(spec)
        cmd += ['--bot', '%s=%s' % (name, c)]
    cmd = list(wrap) + cmd + list(extra)
    r.env = dict(os.environ, MAAT_PIDFILE_DIR=r.piddir,
                 MAAT_TEST_MARKER=r.marker, **(env or {}))
    for k in ('MAAT_ENDPOINT', 'MAAT_TOKEN', 'MAAT_BOT_NAME'):
        r.env.pop(k, None)
    r.cmd = cmd
    t0 = time.monotonic()
    ref = subprocess.Popen(cmd, env=r.env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True,
                           cwd=r.dir if in_dir else None)
    r.ref = ref
    try:
        if during:
            during(r, ref)
        r.out, r.err = ref.communicate(timeout=guard_s)
        r.rc = ref.returncode
    except subprocess.TimeoutExpired:
        ref.kill()
        r.out, r.err = ref.communicate()
        r.rc = 'hung'
    finally:
        if ref.poll() is None:
            ref.kill()
            ref.wait()
    r.elapsed = time.monotonic() - t0
    for p in r.strangers:
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    r.pids = read_pids(r.piddir)
    r.living = wait_gone(list(r.pids.values()))
    r.strays = wait_no_marked(r.marker)
    if r.strays:
        r.stray_desc = describe(r.strays)
    kill_marked(r.marker)  # never leave anything behind, even on failure
    r.rec = r.lad = None
    try:
        with open(r.record) as f:
            r.rec = json.load(f)
    except (OSError, ValueError):
        pass
    try:
        with open(r.ladder) as f:
            lines = [l for l in f.read().splitlines() if l.strip()]
        r.lad = json.loads(lines[-1]) if lines else None
    except (OSError, ValueError):
        pass
    return r


def verify(path):
    p = subprocess.run([REFEREE, '--verify', path], capture_output=True,
                       text=True, timeout=60)
    return p.returncode, p.stdout + p.stderr


def check_no_process(r, label):
    return check(not r.living and not r.strays,
                 '%s: no process left behind (pid files, /proc marker)'
                 % label, 'alive pids %r; marked: %s' % (
                     r.living, getattr(r, 'stray_desc', '')))


def check_common(r, label, hostile_seat=None, hostile_name=None):
    """Checks every match shares.  hostile_seat None: a clean match (the
    attack came from outside).  Returns the hostile seat's faults (all
    faults for a clean match)."""
    if not check(r.rc == 0, '%s: referee exit code 0' % label,
                 'got %r; stderr: %s' % (r.rc, short(r.err))):
        check_no_process(r, label)
        return None
    if not check(r.rec is not None and r.lad is not None,
                 '%s: record and ladder line written' % label):
        check_no_process(r, label)
        return None
    rc, text = verify(r.record)
    check(rc == 0, '%s: record verifies' % label, short(text))
    check_no_process(r, label)
    rec, lad = r.rec, r.lad
    seats = len(rec['seats'])
    faults = rec['faults']
    clean = [s for s in range(seats) if s != hostile_seat]
    if hostile_seat is not None:
        check(rec['seats'][hostile_seat]['bot'] == hostile_name,
              '%s: %s sits in seat %d' % (label, hostile_name, hostile_seat))
        wrong = [f for f in faults
                 if f['seat'] != hostile_seat or f['bot'] != hostile_name]
        check(not wrong, '%s: every fault is against seat %d (%s)'
              % (label, hostile_seat, hostile_name), json.dumps(wrong)[:600])
    after_end = [f for f in faults
                 if not 0 <= f['decision'] < len(rec['decisions'])]
    check(not after_end, '%s: every fault points at a decision of the game'
          % label, json.dumps(after_end)[:400])
    not_bot = [d for d in rec['decisions']
               if d['seat'] in clean and d['by'] != 'bot']
    made = {s: sum(1 for d in rec['decisions'] if d['seat'] == s)
            for s in clean}
    check(not not_bot and all(made.values()),
          '%s: clean seats made all their decisions themselves' % label,
          'not by bot: %s; per seat: %r' % (json.dumps(not_bot)[:400], made))
    res = rec['result']
    check(lad['bots'] == [x['bot'] for x in res] and
          lad['ranks'] == [x['rank'] for x in res] and
          lad['out'] == [x['out'] for x in res] and
          lad['faults'] == faults and
          lad['decisions'] == len(rec['decisions']),
          '%s: ladder line matches the record' % label,
          'ladder %s' % json.dumps(lad)[:400])
    check(not any(res[s]['out'] for s in clean),
          '%s: no clean seat is out' % label)
    if hostile_seat is not None and res[hostile_seat]['out']:
        worst_clean = max(res[s]['rank'] for s in clean)
        check(res[hostile_seat]['rank'] > worst_clean,
              '%s: the out seat ranks below every clean seat' % label,
              'ranks %r' % [x['rank'] for x in res])
    if hostile_seat is None:
        check(not faults, '%s: no faults at all' % label,
              json.dumps(faults)[:600])
        return faults
    return [f for f in faults if f['seat'] == hostile_seat]


def check_clean(r, label):
    """A match the attack must not touch: no faults, every decision by a
    bot, nobody out."""
    return check_common(r, label) is not None


# ---- partial: a connection that sends part of ZMTP and stalls ----------

def partial(tmp):
    # strangers stall on a tcp:// endpoint while two real seats play
    port = free_tcp_port()
    ep = 'tcp://127.0.0.1:%d' % port
    stages = ('greeting', 'handshake', 'frame')
    names = ['p%s%d' % (s, i) for s in stages for i in range(3)]
    info = {}

    def during(r, ref):
        if not check(wait_file(os.path.join(r.piddir, 'slow.request'), 30,
                               ref),
                     'partial strangers: the match is under way'):
            return
        for n in names:
            stage = n[1:-1]
            r.strangers.append(subprocess.Popen(
                [HOSTILE, '--mode', 'partial', '--stage', stage, '--name', n,
                 '--endpoint', ep, '--idle', '30000'],
                env=r.env, stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, text=True))
        # every stalled connection is dropped by the referee's libzmq
        # (handshake 5 s, heartbeat 1 s + 3 s) while the match still runs
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if all(os.path.exists(os.path.join(r.piddir, n + '.dropped'))
                   for n in names):
                break
            if ref.poll() is not None:
                break
            time.sleep(0.02)
        info['running_at_drops'] = ref.poll() is None

    # the slow seat makes the match last ~9 s, longer than the handshake
    # timeout, so the drops happen during the match
    r = run_match(tmp, 'partial-strangers',
                  [('rnd', None), ('slow', ['--mode', 'slow', '--delay',
                                            '250'])],
                  endpoint=ep, during=during)
    label = 'partial (9 stalled tcp strangers: greeting, handshake, frame)'
    check_clean(r, label)
    sent = [n for n in names
            if os.path.exists(os.path.join(r.piddir, n + '.partial'))]
    check(len(sent) == len(names), '%s: every stranger connected and sent '
          'its partial bytes' % label, 'sent: %r; stderr: %s' % (
              sent, [short(p.stderr.read(), 200) for p in r.strangers
                     if p.stderr]))
    drops = {n: read_text(os.path.join(r.piddir, n + '.dropped'))
             for n in names}
    ms = {n: int(v) for n, v in drops.items() if v and v.strip().isdigit()}
    check(len(ms) == len(names) and info.get('running_at_drops'),
          '%s: the referee dropped every stalled connection while the '
          'match still ran' % label, 'drops (ms) %r, running %r' % (
              drops, info.get('running_at_drops')))
    check(ms and max(ms.values()) < 8000,
          '%s: each within the handshake/heartbeat timeout (< 8 s)' % label,
          'drops (ms) %r' % ms)

    # a seat whose own bot stalls mid-handshake: no hello, the other plays
    port = free_tcp_port()
    ep = 'tcp://127.0.0.1:%d' % port
    for stage in stages:
        hname = 'stall-' + stage
        r = run_match(tmp, 'partial-seat-' + stage,
                      [('rnd0', None),
                       (hname, ['--mode', 'partial', '--stage', stage,
                                '--idle', '60000']),
                       ('rnd2', None)],
                      extra=['--hello-time', '2000'], endpoint=ep)
        label = 'partial (seat 1\'s own bot stalls in the %s)' % stage
        hf = check_common(r, label, 1, hname)
        if hf is None:
            continue
        check([f['kind'] for f in hf] == ['no_hello'] and
              r.rec['result'][1]['out'],
              '%s: one no_hello fault, the seat is out' % label,
              json.dumps(hf)[:400])
        check(os.path.exists(os.path.join(r.piddir, hname + '.partial')),
              '%s: the bot did send its partial bytes' % label)


# ---- reconnect storm --------------------------------------------------

def storm(tmp):
    ep = 'ipc://' + os.path.join(tmp, 'storm.ep')
    names = ['storm%d' % i for i in range(3)]
    info = {}

    def during(r, ref):
        if not check(wait_file(os.path.join(r.piddir, 's0.request'), 30,
                               ref),
                     'reconnect-storm: the match is under way'):
            return
        for n in names:
            r.strangers.append(subprocess.Popen(
                [HOSTILE, '--mode', 'reconnect-storm', '--name', n,
                 '--endpoint', ep, '--count', '400'],
                env=r.env, stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, text=True))
        for p in r.strangers:
            try:
                p.wait(timeout=90)
            except subprocess.TimeoutExpired:
                pass
        info['running_after'] = ref.poll() is None

    bots = [('s%d' % i, ['--mode', 'slow', '--delay', '60']) for i in range(3)]
    r = run_match(tmp, 'storm', bots, endpoint=ep, during=during)
    label = 'reconnect-storm (3 x 400 hellos with wrong tokens)'
    check_clean(r, label)
    check(info.get('running_after'),
          '%s: the storm ended while the match still ran' % label)
    total_rej = 0
    for n in names:
        text = (read_text(os.path.join(r.piddir, n + '.storm')) or '').split()
        vals = dict(zip(text[::2], (int(x) for x in text[1::2])))
        check(vals.get('hellos') == 400 and vals.get('welcomed') == 0 and
              vals.get('rejected') == 200 and vals.get('noreply') == 0,
              '%s: %s: every waited-for hello was rejected, none welcomed'
              % (label, n), 'got %r' % vals)
        total_rej += vals.get('rejected', 0)
    # Refusals are logged for the first connections only (64 of them, 3
    # lines each at most), then counted: a storm cannot fill the disk.
    logged = r.err.count('refused a hello with an unknown token')
    check(0 < logged <= 64 * 3,
          '%s: refusals logged for the first connections only (%d)'
          % (label, logged))
    check('connections with no seat, none logged' in r.err,
          '%s: the rest are counted in one line' % label, short(r.err))
    check(r.rec is not None and
          [s['bot'] for s in r.rec['seats']] == ['s0', 's1', 's2'],
          '%s: the seats are the three bots, nobody else' % label)


# ---- a second claim on a seat that is playing -------------------------

def second_claim(tmp):
    ep = 'ipc://' + os.path.join(tmp, 'claim.ep')

    def during(r, ref):
        for name, tok in (('a', 'tokA-secret'), ('b', 'tokB-secret')):
            r.strangers.append(subprocess.Popen(
                [HOSTILE, '--mode', 'slow', '--delay', '80', '--name', name,
                 '--token', tok, '--endpoint', ep, '--idle', '30000'],
                env=r.env, stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, text=True))
        if not check(wait_file(os.path.join(r.piddir, 'a.request'), 30, ref),
                     'second-claim: seat a is playing'):
            return
        for name, tok in (('thiefA', 'tokA-secret'),
                          ('thiefB', 'tokB-secret')):
            p = subprocess.Popen(
                [HOSTILE, '--mode', 'second-claim', '--name', name,
                 '--token', tok, '--endpoint', ep, '--idle', '10000',
                 '--count', '30'],
                env=r.env, stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, text=True)
            r.strangers.append(p)
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        r.claim_during_game = ref.poll() is None

    r = run_match(tmp, 'claim', [('a', 'remote:tokA-secret'),
                                 ('b', 'remote:tokB-secret')],
                  endpoint=ep, during=during)
    label = 'second-claim (a seat\'s token presented again mid-game)'
    check_clean(r, label)
    check(getattr(r, 'claim_during_game', False),
          '%s: both claims came while the game ran' % label)
    for name, seat in (('thiefA', 'a'), ('thiefB', 'b')):
        claim = (read_text(os.path.join(r.piddir, name + '.claim')) or
                 '').strip()
        check(claim.startswith('reject token already in use|'),
              '%s: %s is refused: token already in use' % (label, name),
              'got %r' % claim)
        check(claim.endswith('actions 30 replies 0'),
              '%s: %s\'s 30 blind actions get no answer' % (label, name),
              'got %r' % claim)
        check(not os.path.exists(os.path.join(r.piddir, name + '.welcome')),
              '%s: %s was never welcomed' % (label, name))
        check('refused a hello with the token of %s: already in use' % seat
              in r.err, '%s: the referee logs the refusal of %s'
              % (label, name))
    check(r.rec is not None and
          [s['bot'] for s in r.rec['seats']] == ['a', 'b'],
          '%s: the seats are a and b' % label)
    check(all(p.returncode == 0 for p in r.strangers),
          '%s: a, b and both claimants left by themselves' % label,
          'exit codes %r' % [p.returncode for p in r.strangers])


# ---- forker -----------------------------------------------------------

def forker(tmp):
    root = os.geteuid() == 0
    r = run_match(tmp, 'forker',
                  [('rnd0', None),
                   ('forker', ['--mode', 'forker', '--count', '1000',
                               '--ignore-term']),
                   ('rnd2', None)],
                  extra=['--limit-nproc', '64'])
    label = 'forker (1000 sleeping children that ignore SIGTERM, ' \
            '--limit-nproc 64)'
    hf = check_common(r, label, 1, 'forker')
    text = (read_text(os.path.join(r.piddir, 'forker.forked')) or '').split()
    made, err = (int(text[0]), int(text[1])) if len(text) == 2 else (-1, -1)
    try:
        pids = os.path.exists('/sys/fs/cgroup/pids/cgroup.procs') or \
            'pids' in open('/sys/fs/cgroup/cgroup.controllers').read()
    except OSError:
        pids = False
    uncapped = 'is not enforced' in (r.err or '')
    if root and pids:
        # root ignores RLIMIT_NPROC: the referee caps each bot's tasks
        # with a pids cgroup of its own instead
        check(not uncapped, '%s: as root, no warning that the limit is not '
              'enforced' % label, short(r.err))
    if root and uncapped:
        # no cgroup could be made: containment is the group kill alone,
        # and the referee said so
        check(made == 1000, '%s: as root, uncapped, every fork succeeds (%d)'
              % (label, made))
        if hf is not None:
            check(not hf, '%s: no fault (the bot still answers)' % label,
                  json.dumps(hf)[:300])
    else:
        # the forker spends its own budget and may then die itself (libzmq
        # cannot start its threads): that costs only its seat, which
        # check_common saw
        check(0 <= made < 64 and err == errno.EAGAIN,
              '%s: the forks were stopped below 64 (%d made, errno %d)%s'
              % (label, made, err, ' as root, by its pids cgroup' if root
                 else ', by RLIMIT_NPROC'))

    # as root where no cgroup can be made (a container whose cgroups are
    # read-only; here a tmpfs over them in a mount namespace of the
    # referee's own): the match runs, uncapped, and the referee says so
    if root and subprocess.run(['unshare', '--mount', 'true'],
                               capture_output=True).returncode == 0:
        r = run_match(tmp, 'forker-nocgroup',
                      [('rnd0', None),
                       ('forker', ['--mode', 'forker', '--count', '200']),
                       ('rnd2', None)],
                      extra=['--limit-nproc', '64'],
                      wrap=['unshare', '--mount', 'sh', '-c',
                            'mount -t tmpfs none /sys/fs/cgroup && '
                            'exec "$@"', 'sh'])
        label = 'forker, as root with no cgroups to make'
        hf = check_common(r, label, 1, 'forker')
        text = (read_text(os.path.join(r.piddir, 'forker.forked')) or
                '').split()
        made = int(text[0]) if len(text) == 2 else -1
        check(made == 200, '%s: every fork succeeds (%d of 200)'
              % (label, made))
        check('warning: --limit-nproc 64 is not enforced: root is not bound '
              'by RLIMIT_NPROC' in (r.err or ''),
              '%s: the referee warns that --limit-nproc is not enforced'
              % label, short(r.err))
        if hf is not None:
            check(not hf, '%s: no fault (the bot still answers)' % label,
                  json.dumps(hf)[:300])

    # under --limit-mem the bot's cgroup also bounds its tasks to
    # --limit-nproc (pids controller), for root too
    r = run_match(tmp, 'forker-cgroup',
                  [('rnd0', None),
                   ('forker', ['--mode', 'forker', '--count', '1000',
                               '--ignore-term']),
                   ('rnd2', None)],
                  extra=['--limit-nproc', '64', '--limit-mem', '512',
                         '--limit-as', '0'])
    label = 'forker under --limit-mem 512 --limit-nproc 64'
    if r.rc == 2 and 'no memory cgroup' in (r.err or ''):
        print('skip forker-cgroup: %s' % short(r.err))
    else:
        check_common(r, label, 1, 'forker')
        text = (read_text(os.path.join(r.piddir, 'forker.forked')) or
                '').split()
        made, err = (int(text[0]), int(text[1])) if len(text) == 2 else (-1, -1)
        if pids:
            # the forker spends its own budget: it may then die itself
            # (libzmq cannot start its threads), which costs only its seat
            check(0 <= made < 64 and err == errno.EAGAIN,
                  '%s: the pids controller stopped the forks below 64 (%d '
                  'made, errno %d)%s' % (label, made, err,
                                         ' as root' if root else ''))
        else:
            print('#   no pids controller here: the count is not checked')

    # children that leave the bot's process group and session
    r = run_match(tmp, 'forker-escape',
                  [('rnd0', None),
                   ('escaper', ['--mode', 'forker', '--count', '20',
                                '--escape'])])
    label = 'forker --escape (20 children call setsid())'
    check_common(r, label, 1, 'escaper')

    # the same under --sandbox (bubblewrap), where it is usable; the
    # sandbox hides /tmp, so this match lives under the build directory
    if subprocess.run(['bwrap', '--ro-bind', '/', '/', 'true'],
                      capture_output=True).returncode != 0:
        print('#   bubblewrap unusable here: no --sandbox variant')
        return
    sbx = tempfile.mkdtemp(prefix='maat-hostile2-', dir=BUILD)
    try:
        r = run_match(sbx, 'forker-escape-sandbox',
                      [('rnd0', ['--mode', 'good']),
                       ('escaper', ['--mode', 'forker', '--count', '20',
                                    '--escape'])],
                      extra=['--sandbox'], in_dir=True)
        label = 'forker --escape under --sandbox'
        check_common(r, label, 1, 'escaper')
    finally:
        subprocess.run(['rm', '-rf', sbx])


# ---- forker, as a user with many tasks ------------------------------------

AS_NOBODY = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups']


def forker_as_user(tmp):
    """RLIMIT_NPROC counts every task of the user: a user already running
    more than --limit-nproc tasks (a desktop) must still be able to play,
    and a forker must still be stopped -- in the sandbox by a count in the
    bot's own user namespace, without it on top of the user's tasks."""
    if os.geteuid() != 0:
        print('# skip forker as a user: needs root to become uid 65534')
        return
    base = tempfile.mkdtemp(prefix='maat-hostile2-user-', dir=BUILD)
    os.chmod(base, 0o777)
    probe = subprocess.run(AS_NOBODY + ['sh', '-c', 'test -x "$1" && '
                                        'test -x "$2" && test -w "$3"', 'sh',
                                        REFEREE, HOSTILE, base],
                           capture_output=True)
    if probe.returncode != 0:
        print('# skip forker as a user: the build is out of reach of uid '
              '65534')
        shutil.rmtree(base, ignore_errors=True)
        return
    # more tasks than the limit, before the match: the old RLIMIT_NPROC
    # of 64 on the whole user then stopped every bot
    sleepers = [subprocess.Popen(AS_NOBODY + ['sleep', '600'])
                for _ in range(80)]
    user = dict(wrap=AS_NOBODY, env={'TMPDIR': base}, in_dir=True)
    try:
        # without the sandbox: the bots play; a forker is stopped, though
        # the budget is the user's, so it may also starve another seat's
        # bot (docs/RELIABILITY.md): only the forker's count is checked
        r = run_match(base, 'user-no-sandbox', [('rnd0', None),
                                                ('rnd1', None)],
                      extra=['--limit-nproc', '64', '--no-sandbox'], **user)
        check_common(r, 'a clean match as a user with 80 tasks running '
                     '(no sandbox)')
        r = run_match(base, 'forker-user-no-sandbox',
                      [('rnd0', None),
                       ('forker', ['--mode', 'forker', '--count', '1000'])],
                      extra=['--limit-nproc', '64', '--no-sandbox'], **user)
        label = 'forker as a user with 80 tasks running (no sandbox)'
        check(r.rc == 0, '%s: referee exit code 0' % label, short(r.err))
        text = (read_text(os.path.join(r.piddir, 'forker.forked')) or
                '').split()
        made, err = ((int(text[0]), int(text[1])) if len(text) == 2
                     else (-1, -1))
        check(0 <= made < 64 and err == errno.EAGAIN,
              '%s: the forks were stopped below 64 (%d made, errno %d)'
              % (label, made, err))

        # in the sandbox each bot's tasks count apart: the other seats are
        # untouched (their bots write no pid files there: /
        # is read-only; the forker's count is in its log)
        r = run_match(base, 'forker-user-sandbox',
                      [('good0', ['--mode', 'good']),
                       ('forker', ['--mode', 'forker', '--count', '1000']),
                       ('good2', ['--mode', 'good'])],
                      extra=['--limit-nproc', '64', '--sandbox'], **user)
        label = 'forker as a user with 80 tasks running (sandbox)'
        if r.rc == 2 and 'needs bubblewrap' in (r.err or ''):
            print('# skip %s: bubblewrap unusable as uid 65534' % label)
            return
        check_common(r, label, 1, 'forker')
        logs = glob.glob(os.path.join(r.logdir, '*-0-forker.log'))
        log = (read_text(logs[0]) if logs else '') or ''
        m = re.search(r'forked (\d+) of 1000 children: (.*)', log)
        made = int(m.group(1)) if m else -1
        check(0 <= made < 64 and 'temporarily unavailable' in m.group(2),
              '%s: the forks were stopped below 64 (%d made)' % (label, made),
              log[:300])
    finally:
        for p in sleepers:
            p.kill()
        for p in sleepers:
            p.wait()
        shutil.rmtree(base, ignore_errors=True)


# ---- hog ----------------------------------------------------------------

def bots_run_under_as_limit(limit_mb):
    """Can a bot of this build start under an address-space limit?  Not
    in an AddressSanitizer build: its shadow memory needs terabytes."""
    import resource
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (limit_mb << 20, limit_mb << 20))
    p = subprocess.run([RANDOM, '--help'], preexec_fn=limit,
                       capture_output=True)
    return p.returncode == 0


def hog(tmp):
    limit_mb = 256
    if not bots_run_under_as_limit(limit_mb):
        print('skip hog: the bots of this build (a sanitizer build) cannot '
              'run under --limit-as at all')
        return
    r = run_match(tmp, 'hog',
                  [('rnd0', None), ('rnd1', None),
                   ('hog', ['--mode', 'hog', '--after', '2'])],
                  extra=['--limit-as', str(limit_mb)], time_ms=5000)
    label = 'hog (malloc + memset until failure, --limit-as %d)' % limit_mb
    hf = check_common(r, label, 2, 'hog')
    text = (read_text(os.path.join(r.piddir, 'hog.hog')) or '').split()
    got, hit = (int(text[0]), int(text[1])) if len(text) == 2 else (-1, 0)
    check(hit == 1 and 0 < got <= limit_mb << 20,
          '%s: malloc failed below the limit (%d MiB)' % (label, got >> 20),
          'hog file %r' % text)
    if hf is not None:
        check([f['kind'] for f in hf] == ['crash'] and
              r.rec['result'][2]['out'],
              '%s: one crash fault (it aborted), the seat is out' % label,
              json.dumps(hf)[:400])
        by_bot = sum(1 for d in r.rec['decisions']
                     if d['seat'] == 2 and d['by'] == 'bot')
        check(by_bot == 2, '%s: its 2 good decisions stand' % label,
              'got %d' % by_bot)


def hog_cgroup(tmp):
    # --limit-mem: the bot's processes in a memory cgroup of their own.  The
    # hog touches memory until the kernel kills it at the limit (there is
    # no malloc failure to see: --limit-as 0, as a runtime that reserves
    # terabytes needs); the fault says why, the other seats play on, and
    # they ran under the same limit without noticing.
    limit_mb = 256
    r = run_match(tmp, 'hog-cgroup',
                  [('rnd0', None), ('rnd1', None),
                   ('hog', ['--mode', 'hog', '--after', '2'])],
                  extra=['--limit-as', '0', '--limit-mem', str(limit_mb)],
                  time_ms=5000)
    if r.rc == 2 and 'no memory cgroup' in (r.err or ''):
        print('skip hog-cgroup: %s' % short(r.err))
        return
    label = 'hog under --limit-mem %d (--limit-as 0)' % limit_mb
    hf = check_common(r, label, 2, 'hog')
    if hf is not None:
        check([f['kind'] for f in hf] == ['crash'] and
              'out of memory' in hf[0]['detail'] and
              '--limit-mem %d MB' % limit_mb in hf[0]['detail'] and
              r.rec['result'][2]['out'],
              '%s: one crash fault saying the limit killed it, the seat is '
              'out' % label, json.dumps(hf)[:400])
        by_bot = sum(1 for d in r.rec['decisions']
                     if d['seat'] == 2 and d['by'] == 'bot')
        check(by_bot == 2, '%s: its 2 good decisions stand' % label,
              'got %d' % by_bot)
    # the summary's peak column: the hog reached the limit, the others not
    peaks = {}
    for line in (r.err or '').splitlines():
        f = line.split()
        if len(f) == 7 and f[0] == 'maat-referee:' and f[1] in ('hog', 'rnd0'):
            peaks[f[1]] = float(f[6])
    check('peak MB' in (r.err or '') and
          limit_mb * 0.9 <= peaks.get('hog', 0) <= limit_mb and
          0 < peaks.get('rnd0', 0) < limit_mb / 2,
          '%s: the summary shows each bot\'s peak memory (the hog at the '
          'limit)' % label, repr(peaks))
    check(read_text(os.path.join(r.piddir, 'hog.hog')) is None,
          '%s: malloc never failed (the kernel, not the allocator, stopped '
          'it)' % label)


# ---- ignore-term --------------------------------------------------------

def ignore_term(tmp):
    r = run_match(tmp, 'ignore-term',
                  [('stub', ['--mode', 'ignore-term', '--fork']),
                   ('rnd1', None)])
    label = 'ignore-term (plays well, ignores SIGTERM and bye, a child too)'
    hf = check_common(r, label, 0, 'stub')
    if hf is not None:
        check(not hf and not r.rec['result'][0]['out'],
              '%s: no fault, not out: the result stands' % label)
    check('stub-child' in r.pids, '%s: the child wrote its pid' % label)
    # bye + 1 s, SIGTERM + 0.5 s, SIGKILL: the referee does not wait on it
    check(r.elapsed < 20, '%s: the referee ended it promptly (%.1f s)'
          % (label, r.elapsed))


# ---- spam ---------------------------------------------------------------

def spam(tmp):
    cap_kb = 64
    r = run_match(tmp, 'spam',
                  [('rnd0', None), ('spam', ['--mode', 'spam']),
                   ('rnd2', None)],
                  extra=['--log-cap', str(cap_kb)])
    label = 'spam (a child floods stdout/stderr; 2 MiB per request too)'
    hf = check_common(r, label, 1, 'spam')
    if hf is not None:
        check(not hf, '%s: no fault, even for the spammer' % label,
              json.dumps(hf)[:300])
    cap = cap_kb * 1024

    def game_log(bot):  # one log per bot and game: MATCH-0-BOT.log
        found = glob.glob(os.path.join(r.logdir, '*-0-%s.log' % bot))
        return found[0] if found else os.path.join(r.logdir, bot + '.log')
    log = game_log('spam')
    size = os.path.getsize(log) if os.path.exists(log) else -1
    tail = b''
    if size > 0:
        with open(log, 'rb') as f:
            f.seek(max(0, size - 100))
            tail = f.read()
    # the marker line starts with a newline when the cut falls mid-line
    check(0 < size <= cap + 1 + len(TRUNC_LINE % cap),
          '%s: the log stays within the cap + the truncation line '
          '(%d bytes)' % (label, size))
    check(tail.endswith((TRUNC_LINE % cap).encode()),
          '%s: the log ends with the truncation line' % label,
          repr(tail[-60:]))
    spammed = int((read_text(os.path.join(r.piddir, 'spam.spam')) or
                   '0').strip() or 0)
    check(spammed >= 20 << 20, '%s: the bot wrote %d MiB itself'
          % (label, spammed >> 20))
    for other in ('rnd0', 'rnd2'):
        p = game_log(other)
        check(os.path.exists(p) and os.path.getsize(p) < 4096,
              '%s: %s\'s log is its own' % (label, other))

    # without --log-dir the output is read and dropped
    d = os.path.join(tmp, 'spam-discard')
    os.makedirs(d)
    marker = str(uuid.uuid4())
    env = dict(os.environ, MAAT_TEST_MARKER=marker, MAAT_PIDFILE_DIR=d)
    p = subprocess.run([REFEREE, '--fixed-seats', '--time', '1000',
                        '--record', os.path.join(d, 'r.json'),
                        '--bot', 'spam=' + hostile_cmd(['--mode', 'spam']),
                        '--bot', 'rnd1=' + RANDOM],
                       env=env, capture_output=True, text=True, timeout=120)
    living = wait_no_marked(marker)
    kill_marked(marker)
    label = 'spam (output discarded: no --log-dir)'
    try:
        with open(os.path.join(d, 'r.json')) as f:
            rec = json.load(f)
    except (OSError, ValueError):
        rec = None
    check(p.returncode == 0 and rec is not None and not rec['faults'],
          '%s: the match finishes without faults' % label,
          'rc %r: %s' % (p.returncode, short(p.stderr)))
    check(not living, '%s: no process left behind' % label, describe(living))


# ---- an action for another game, or another seat ------------------------

def other_game(tmp):
    r = run_match(tmp, 'other-game-pyramids',
                  [('rnd0', None),
                   ('og', ['--mode', 'other-game', '--after', '1']),
                   ('rnd2', None)])
    label = 'other-game (a Pyramix action in a Pyramids match, strikes:3)'
    hf = check_common(r, label, 1, 'og')
    if hf is not None:
        check([f['kind'] for f in hf] == ['malformed'] * 3 and
              all('bad action' in f['detail'] for f in hf) and
              r.rec['result'][1]['out'],
              '%s: out after 3 malformed faults (bad action)' % label,
              json.dumps(hf)[:500])
        by_bot = sum(1 for d in r.rec['decisions']
                     if d['seat'] == 1 and d['by'] == 'bot')
        check(by_bot == 1, '%s: only its 1 good decision is its own' % label,
              'got %d' % by_bot)
    r = run_match(tmp, 'other-game-pyramix',
                  [('og', ['--mode', 'other-game']), ('rnd1', None)],
                  extra=['--game', 'pyramix', '--on-malformed', 'forfeit'])
    label = 'other-game (a Pyramids action in a Pyramix match, forfeit)'
    hf = check_common(r, label, 0, 'og')
    if hf is not None:
        check([f['kind'] for f in hf] == ['malformed'] and
              r.rec['result'][0]['out'],
              '%s: one malformed fault, out' % label, json.dumps(hf)[:500])


def other_seat(tmp):
    r = run_match(tmp, 'other-seat',
                  [('os', ['--mode', 'other-seat', '--delay', '100',
                           '--count', '8']),
                   ('slow', ['--mode', 'slow', '--delay', '250'])],
                  extra=['--on-malformed', 'strikes:1000'])
    label = 'other-seat (actions with the seq of the other seat\'s request)'
    hf = check_common(r, label, 0, 'os')
    forged = int((read_text(os.path.join(r.piddir, 'os.forged')) or
                  '0').strip() or 0)
    if hf is not None:
        check(forged >= 1 and len(hf) == forged,
              '%s: one fault per forged action (%d forged)' % (label, forged),
              json.dumps(hf)[:500])
        check(all(f['kind'] == 'malformed' and 'not outstanding' in
                  f['detail'] for f in hf),
              '%s: each is malformed: a reply to a request not its own'
              % label, json.dumps(hf)[:500])
        hit = [f for f in hf if r.rec['decisions'][f['decision']]['seat']
               == 1]
        check(hit and all(r.rec['decisions'][f['decision']]['by'] == 'bot'
                          for f in hit),
              '%s: forgeries that arrived while seat 1 was being asked '
              '(%d) did not answer for it: seat 1 chose itself'
              % (label, len(hit)))
        check(all(d['by'] == 'bot' for d in r.rec['decisions']),
              '%s: every decision, also the forger\'s, by its own bot'
              % label)
    r = run_match(tmp, 'other-seat-forfeit',
                  [('slow0', ['--mode', 'slow', '--delay', '120']),
                   ('os', ['--mode', 'other-seat', '--delay', '60',
                           '--after', '2']),
                   ('rnd2', None)],
                  extra=['--on-malformed', 'forfeit'])
    label = 'other-seat (3 seats, --on-malformed forfeit)'
    hf = check_common(r, label, 1, 'os')
    if hf is not None:
        check([f['kind'] for f in hf] == ['malformed'] and
              r.rec['result'][1]['out'],
              '%s: one malformed fault, out' % label, json.dumps(hf)[:500])


def main():
    for exe in (REFEREE, HOSTILE, RANDOM):
        if not os.access(exe, os.X_OK):
            print('cannot run %s (set MAAT_REFEREE, MAAT_HOSTILE, '
                  'MAAT_RANDOM)' % exe)
            return 1
    only = sys.argv[1:]
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix='maat-hostile2-') as tmp:
        for name, fn in (('partial', partial), ('storm', storm),
                         ('claim', second_claim), ('forker', forker),
                         ('forker-user', forker_as_user),
                         ('hog', hog), ('hog-cgroup', hog_cgroup),
                         ('ignore-term', ignore_term),
                         ('spam', spam), ('other-game', other_game),
                         ('other-seat', other_seat)):
            if only and name not in only:
                continue
            t = time.monotonic()
            fn(tmp)
            print('# %s: %.1f s' % (name, time.monotonic() - t), flush=True)
    return report(t0)


if __name__ == '__main__':
    sys.exit(main())
