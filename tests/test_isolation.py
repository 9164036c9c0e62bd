#!/usr/bin/env python3
"""test_isolation.py -- no entrant can see, steal or slow another seat
(issue 15), with the referee's defaults: spawned bots are sandboxed when
bubblewrap works here (skipped, 77, where it does not).

A probe bot (a shell script that attacks, prints what it achieved on its
stderr -- the bot log -- then plays as maat-random) sits in one seat:
  - it sees no other process: not the referee, not the other bot, so it
    can read no other token, environment or command line and signal none;
  - its socket file is read-only: it cannot remove, hard-link or replace
    it (the attack that caught another seat's hello), and no other
    seat's socket is beside it, wherever $TMPDIR is;
  - the ladder file, the records and the logs are hidden from it, also
    when they sit beside its socket ($TMPDIR) or in /tmp itself; logs or a
    series' records where they cannot be hidden (the directory the bots
    run in) are refused;
  - its /tmp and /dev/shm are capped (--limit-tmp), /dev is read-only;
    /run (the host daemons' sockets) is empty;
  - its environment holds a few of the referee's variables (PATH, HOME,
    MAAT_*...) and what --bot-env adds, not the organiser's tokens;
  - with --private-dirs it cannot read the directories another seat's
    command names below the working directory (another entrant's program
    and weights);
  - a descendant that leaves its session dies with the referee, even when
    the referee is killed with SIGKILL;
  - it has no capability, even under a root referee, cannot take its
    /proc off to see the host's, and cannot use the kernel's keyrings,
    memfds, inotify or message queues
    (review of 2026-11-27: as root it could do all three).
And with bubblewrap missing, the referee says plainly, once, that bots are
not isolated.  No sleep synchronises: waits are for files, with deadlines.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from maattest import BUILD, RANDOM, REFEREE, check, report  # noqa: E402

MCTS = os.environ.get('MAAT_MCTS', os.path.join(BUILD, 'sample-bots',
                                                'maat-mcts'))


PROBE = r'''#!/bin/sh
# what this seat can reach; each line: WORD value
mine=$$
n=0; tokens=0; stopped=0
for d in /proc/[0-9]*; do
  p=${d#/proc/}
  n=$((n + 1))
  if [ -r $d/environ ] && tr '\0' '\n' < $d/environ 2>/dev/null \
       | grep -q "^MAAT_TOKEN=" ; then
    t=$(tr '\0' '\n' < $d/environ | grep "^MAAT_TOKEN=")
    [ "$t" != "MAAT_TOKEN=$MAAT_TOKEN" ] && tokens=$((tokens + 1))
  fi
  if grep -q maat-referee $d/cmdline 2>/dev/null; then
    echo SEES-REFEREE $p
    kill -STOP $p 2>/dev/null && stopped=$((stopped + 1))
  fi
done
echo PROCESSES $n
echo OTHER-TOKENS $tokens
echo STOPPED-REFEREE $stopped
sock=${MAAT_ENDPOINT#ipc://}
rm -f "$sock" 2>/dev/null && echo SOCKET-REMOVED
ln "$sock" /tmp/stolen 2>/dev/null && echo SOCKET-LINKED
mv "$sock" "$sock.x" 2>/dev/null && echo SOCKET-MOVED
[ -S "$sock" ] && echo SOCKET-STILL-THERE
echo SOCKET-NEIGHBOURS $(ls -A "${sock%/*}" | grep -cvx "${sock##*/}")
for f in $MAAT_PROBE_PATHS; do
  if { [ -f "$f" ] && [ -s "$f" ]; } || \
     { [ -d "$f" ] && [ -n "$(ls -A "$f" 2>/dev/null)" ]; }; then
    echo SEES "$f"
  else
    echo HIDDEN "$f"
  fi
done
dd if=/dev/zero of=/tmp/big bs=1M count=64 2>/dev/null
echo TMP-BYTES $(stat -c %s /tmp/big 2>/dev/null || echo 0)
rm -f /tmp/big
dd if=/dev/zero of=/dev/shm/big bs=1M count=64 2>/dev/null
echo SHM-BYTES $(stat -c %s /dev/shm/big 2>/dev/null || echo 0)
rm -f /dev/shm/big
touch /dev/big 2>/dev/null && echo DEV-WRITABLE
ipcmk -M 16777216 >/dev/null 2>&1 && echo SYSV-SHM
grep -q '/maat-[0-9]*-[0-9]*$' /proc/self/cgroup && echo IN-BOT-CGROUP
for f in /sys/fs/cgroup/cgroup.procs /sys/fs/cgroup/*/cgroup.procs; do
  [ -e "$f" ] && (echo 0 > "$f") 2>/dev/null && echo CGROUP-LEFT "$f"
done
if [ -n "$MAAT_ESCAPE" ]; then
  setsid sh -c "echo \$\$ > /dev/null; exec sleep 1000" &
  echo ESCAPED
fi
# capabilities (a root referee's bot had nearly all of them), the kernel's
# keyrings (a channel to its next process, same deal), and bubblewrap's
# /proc taken off to see the host's (last: it changes what /proc shows)
echo CAPS $(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
/usr/bin/python3 -c '
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
if libc.syscall(248, b"user", b"maat-probe", b"x", 1, ctypes.c_long(-4)) >= 0:
    print("KEYRING-ADDED")
if libc.memfd_create(b"hoard", 0) >= 0:
    print("MEMFD")
if libc.inotify_init1(0) >= 0:
    print("INOTIFY")
if libc.mq_open(b"/maat-probe", 0o102, 0o600, None) >= 0:
    print("MQUEUE")
' 2>/dev/null
umount -l /proc 2>/dev/null && echo PROC-UNMOUNTED $(ls -d /proc/[0-9]* | wc -l)
exec "$MAAT_RANDOM_BOT"
'''


def script_file(d, name, text):
    """An executable script DIR/NAME holding text; its path."""
    path = os.path.join(d, name)
    with open(path, 'w') as f:
        f.write(text)
    os.chmod(path, 0o755)
    return path


def probe_file(d):
    return script_file(d, 'probe.sh', PROBE)


def sandboxed_env(**extra):
    """The environment of a referee with its default sandbox, its bot
    scripts ending in the random bot."""
    env = dict(os.environ, MAAT_RANDOM_BOT=RANDOM, **extra)
    env.pop('MAAT_SANDBOX', None)
    return env


def log_of(logs, bot):
    for name in os.listdir(logs):
        if name.endswith('-0-%s.log' % bot):
            with open(os.path.join(logs, name)) as f:
                return f.read()
    return ''


def values(text):
    out = {}
    for line in text.splitlines():
        parts = line.split('\t', 1)[-1].split(' ', 1)
        out.setdefault(parts[0], []).append(parts[1] if len(parts) > 1
                                            else '')
    return out


def memory_cgroups():
    """Can the referee make a memory cgroup per bot here (--limit-mem)?
    It says no before any bot starts (exit 2)."""
    p = subprocess.run([REFEREE, '--quiet', '--no-sandbox', '--limit-mem',
                        '256', '--limit-as', '0', '--bot', 'a=' + RANDOM,
                        '--bot', 'b=' + RANDOM], capture_output=True,
                       text=True, timeout=300)
    return p.returncode == 0


def isolated_match(tmp):
    d = os.path.join(tmp, 'iso')
    res = os.path.join(d, 'results')
    logs = os.path.join(d, 'logs')
    os.makedirs(res)
    # the ladder beside the bot's program, outside the records' directory
    ladder = os.path.join(d, 'ladder.jsonl')
    with open(ladder, 'w') as f:
        f.write('{"seed": "an earlier game"}\n')
    old = os.path.join(res, 'old-record.json')
    with open(old, 'w') as f:
        f.write('{"seed": "an earlier record"}\n')
    # the lines other matches of a `maat-ladder run --jobs N` keep waiting
    # beside the ladder (outside the records' directory, which is hidden
    # whole): hidden too, by any referee writing to that ladder
    waiting = os.path.join(d, 'ladder.jsonl.waiting')
    os.makedirs(os.path.join(waiting, 't'))
    with open(os.path.join(waiting, 't', 't-3.jsonl'), 'w') as f:
        f.write('{"seed": "a deal still being played"}\n')
    probe = probe_file(d)
    # the paths to look for come in the environment: a path the command
    # names stays visible (it may be the bot's own program or data)
    env = dict(os.environ, MAAT_RANDOM_BOT=RANDOM,
               MAAT_PROBE_PATHS=' '.join((ladder, res, logs, waiting)))
    env.pop('MAAT_SANDBOX', None)
    cmd = [REFEREE, '--fixed-seats', '--seed', '5', '--limit-tmp', '16',
           '--record', os.path.join(res, 'rec.json'), '--ladder', ladder,
           '--log-dir', logs, '--hide', old,
           '--bot', 'probe=' + probe,
           '--bot', 'other=' + RANDOM]
    cgroups = memory_cgroups()
    if cgroups:
        cmd += ['--limit-mem', '256']
    else:
        print('#   no memory cgroups here: the match runs without '
              '--limit-mem')
    p = subprocess.run(cmd, env=env, capture_output=True, text=True,
                       timeout=300)
    check(p.returncode == 0, 'the sandboxed match finishes', p.stderr)
    check('NOT isolated' not in p.stderr, 'no warning: bots are isolated',
          p.stderr)
    v = values(log_of(logs, 'probe'))
    check('SEES-REFEREE' not in v, 'the bot cannot see the referee process')
    check(v.get('STOPPED-REFEREE') == ['0'], 'the bot cannot stop the '
          'referee', repr(v.get('STOPPED-REFEREE')))
    check(v.get('OTHER-TOKENS') == ['0'],
          'the bot can read no other seat\'s token', repr(v))
    n = int((v.get('PROCESSES') or ['999'])[0])
    check(n <= 6, 'the bot sees only its own processes (%d)' % n)
    check(not any(k in v for k in ('SOCKET-REMOVED', 'SOCKET-LINKED',
                                   'SOCKET-MOVED')) and
          'SOCKET-STILL-THERE' in v,
          'its socket file cannot be removed, linked or moved', repr(v))
    check(v.get('SOCKET-NEIGHBOURS') == ['0'], 'no other seat\'s socket '
          '(nor the referee\'s) beside its own', repr(v))
    hidden = v.get('HIDDEN', [])
    check(ladder in hidden and res in hidden and logs in hidden,
          'the ladder file, the records and the logs are hidden',
          repr(v.get('SEES')))
    check(waiting in hidden, 'the lines waiting to join the ladder file '
          '(LADDER.waiting/) are hidden', repr(v.get('SEES')))
    tmp_bytes = int((v.get('TMP-BYTES') or ['-1'])[0])
    check(0 <= tmp_bytes <= 16 << 20,
          'its /tmp holds at most --limit-tmp 16 MiB (%d bytes written)'
          % tmp_bytes)
    shm_bytes = int((v.get('SHM-BYTES') or ['-1'])[0])
    check(1 << 20 <= shm_bytes <= 16 << 20 and 'DEV-WRITABLE' not in v,
          'its /dev/shm holds at most --limit-tmp 16 MiB (%d bytes '
          'written), and /dev is read-only: no host memory beyond its '
          'limits' % shm_bytes, repr(v.get('DEV-WRITABLE')))
    check('SYSV-SHM' not in v, 'no System V shared memory segment (memory '
          'in no process, not bounded)')
    if cgroups:
        check('IN-BOT-CGROUP' in v, 'with --limit-mem the bot is in a '
              'memory cgroup of its own (maat-PID-N)')
    check('CGROUP-LEFT' not in v, 'the bot cannot move itself into another '
          'cgroup (/sys is read-only)', repr(v.get('CGROUP-LEFT')))
    # (review of 2026-11-27: as root, CapEff 000001fffeffffff, /proc taken
    # off, the host's processes and a keyring shared between games)
    check(v.get('CAPS') == ['0000000000000000'], 'the bot has no capability '
          '(%s), also under a root referee' % v.get('CAPS'))
    check('PROC-UNMOUNTED' not in v, 'it cannot take its /proc off to see '
          "the host's", repr(v.get('PROC-UNMOUNTED')))
    check('KEYRING-ADDED' not in v, 'it cannot leave a key in a kernel '
          'keyring for its next process')
    # (review of 2026-11-28: 850 MiB in a memfd, in no process's memory,
    # got the other seat's bot killed by the out-of-memory killer; 128
    # inotify instances used up root's for the whole machine)
    check('MEMFD' not in v, 'it cannot hoard memory in a memfd (no limit '
          'sees it)')
    check('INOTIFY' not in v and 'MQUEUE' not in v, 'it cannot take '
          'inotify instances or message queues, counted per user outside '
          'the sandbox (%s)' % [k for k in ('INOTIFY', 'MQUEUE') if k in v])
    try:
        with open(os.path.join(res, 'rec.json')) as f:
            rec = json.load(f)
        other_seat = [s['seat'] for s in rec['seats'] if s['bot'] == 'other']
        check(rec['faults'] == [] and all(
            x['by'] == 'bot' for x in rec['decisions']
            if x['seat'] in other_seat),
            'the other seat played every decision itself, no fault')
    except (OSError, ValueError) as e:
        check(False, 'the record is readable', str(e))


def outputs_beside_socket(tmp):
    """Records, ladder and logs in the directory that holds the socket's
    ($TMPDIR), or in /tmp itself: still hidden, and the bots still reach
    their sockets (hiding the directory once covered the socket: every
    bot failed its hello)."""
    bots = os.path.join(tmp, 'beside-bot')
    os.makedirs(bots)
    probe = probe_file(bots)  # not in the hidden directory: that would
    # keep it visible (a bot's own program is never hidden)

    def play(name, tmpdir, record, ladder, logs, hide, cwd=None):
        with open(ladder, 'w') as f:
            f.write('{"seed": "an earlier game"}\n')
        with open(hide, 'w') as f:
            f.write('{"seed": "an earlier record"}\n')
        env = dict(os.environ, MAAT_RANDOM_BOT=RANDOM, TMPDIR=tmpdir,
                   MAAT_PROBE_PATHS=' '.join((ladder, hide)))
        env.pop('MAAT_SANDBOX', None)
        p = subprocess.run([REFEREE, '--fixed-seats', '--seed', '7',
                            '--limit-tmp', '16', '--hello-time', '30000',
                            '--record', record, '--ladder', ladder,
                            '--log-dir', logs, '--hide', hide,
                            '--bot', 'probe=' + probe,
                            '--bot', 'other=' + RANDOM],
                           env=env, capture_output=True, text=True,
                           timeout=300, cwd=cwd)
        check(p.returncode == 0, '%s: the match finishes' % name, p.stderr)
        try:
            with open(record) as f:
                rec = json.load(f)
        except (OSError, ValueError) as e:
            rec = {'faults': ['no record: %s' % e]}
        check(rec.get('faults') == [], '%s: no fault (every bot reached '
              'its socket)' % name, json.dumps(rec.get('faults'))[:300])
        v = values(log_of(logs, 'probe'))
        check('SOCKET-STILL-THERE' in v, '%s: the socket is there' % name)
        check(v.get('SOCKET-NEIGHBOURS') == ['0'], '%s: no other seat\'s '
              'socket beside its own' % name, repr(v))
        hidden = v.get('HIDDEN', [])
        check(ladder in hidden and hide in hidden,
              '%s: the ladder file and the earlier record are hidden'
              % name, repr(v.get('SEES')))
        return v

    d = os.path.join(tmp, 'beside')
    os.makedirs(d)
    play('outputs in $TMPDIR', d, os.path.join(d, 'rec.json'),
         os.path.join(d, 'ladder.jsonl'), os.path.join(d, 'logs'),
         os.path.join(d, 'old-record.json'))

    stem = '/tmp/maat-isolation-%d-' % os.getpid()
    made = [stem + x for x in ('rec.json', 'ladder.jsonl', 'old.json')]
    try:
        v = play('outputs in /tmp itself', '/tmp', made[0], made[1],
                 os.path.join(tmp, 'beside-logs'), made[2])
        tmp_bytes = int((v.get('TMP-BYTES') or ['-1'])[0])
        check(1 << 20 <= tmp_bytes <= 16 << 20,
              'outputs in /tmp itself: the bot\'s /tmp keeps its '
              '--limit-tmp 16 MiB (%d bytes written)' % tmp_bytes)
        # the referee run from /tmp: /tmp is bound back (read-only), and
        # with it the referee's directory of sockets, which is covered
        play('the referee run from /tmp', '/tmp', made[0], made[1],
             os.path.join(tmp, 'beside-logs-cwd'), made[2], cwd='/tmp')
    finally:
        for f in made:
            if os.path.exists(f):
                os.unlink(f)


def cannot_hide(tmp):
    """Logs, or a series' records, in the directory the bots run in (which
    a sandbox must show them): refused, naming the option, before any game
    -- a bot would read the other seats' logs as they are written, or game
    0's record (the series' seed) during game 1.  A one-game match may keep
    its record there: it is written once the game is over."""
    d = os.path.join(tmp, 'cwd-outputs')
    os.makedirs(d)
    probe = probe_file(d)
    env = dict(os.environ, MAAT_RANDOM_BOT=RANDOM, MAAT_PROBE_PATHS='')
    env.pop('MAAT_SANDBOX', None)

    def referee(*args):
        return subprocess.run([REFEREE, '--seed', '9', *args,
                               '--bot', 'probe=./probe.sh',
                               '--bot', 'other=' + RANDOM],
                              cwd=d, env=env, capture_output=True, text=True,
                              timeout=300)
    p = referee('--log-dir', '.')
    check(p.returncode == 2 and '--log-dir ' + os.path.realpath(d) in p.stderr
          and "each other's logs" in p.stderr and
          not [f for f in os.listdir(d) if f.endswith('.log')],
          '--log-dir in the bots\' working directory: refused (exit 2, '
          'naming it), no game played', p.stderr)
    p = referee('--games', '2', '--record', 'rec.json')
    check(p.returncode == 2 and '--record ' in p.stderr and
          'seed' in p.stderr and not os.path.exists(os.path.join(d, 'rec-0.json')),
          'a series\' records in the bots\' working directory: refused '
          '(exit 2), no game played', p.stderr)
    p = referee('--record', 'rec.json')
    check(p.returncode == 0 and os.path.exists(os.path.join(d, 'rec.json')),
          'one game\'s record in the bots\' working directory: played',
          p.stderr)
    # the bot's program named through '..': its directory is needed too
    run_dir, bots = os.path.join(d, 'run'), os.path.join(d, 'bots')
    os.makedirs(run_dir)
    os.makedirs(bots)
    probe_file(bots)
    p = subprocess.run([REFEREE, '--seed', '9', '--log-dir', '../bots',
                        '--bot', 'probe=../bots/probe.sh',
                        '--bot', 'other=' + RANDOM], cwd=run_dir, env=env,
                       capture_output=True, text=True, timeout=300)
    check(p.returncode == 2 and '--log-dir ' + os.path.realpath(bots)
          in p.stderr, '--log-dir holding a program named as ../bots/X: '
          'refused, not hidden over the program', p.stderr)
    os.makedirs(os.path.join(d, 'records'))
    p = referee('--games', '2', '--record', 'records/rec.json',
                '--log-dir', 'logs')
    check(p.returncode == 0, 'records and logs in directories of their own '
          'below it: played', p.stderr)


ENV_BOT = r'''#!/bin/sh
# its environment, one variable a line, then it plays
env | sed 's/^/ENV /' >&2
exec "$MAAT_RANDOM_BOT"
'''


def bot_environment(tmp):
    """A sandboxed bot gets a few of the referee's variables (PATH, HOME,
    MAAT_*...), the seat's own, and what --bot-env adds -- not the
    organiser's tokens: a bot could print them into a published log.
    Without the sandbox it gets them all (it could read them from /proc)."""
    d = os.path.join(tmp, 'env')
    os.makedirs(d)
    script_file(d, 'envbot.sh', ENV_BOT)
    env = sandboxed_env(SECRET_API_TOKEN='s3cr3t', AWS_KEY='k1',
                        AWS_OTHER='k2', MAAT_ORGANISER_SETTING='ours',
                        EXTRA='from-the-referee')
    runs = [0]

    def play(*args, sandbox=True):
        runs[0] += 1
        logs = os.path.join(d, 'logs%d' % runs[0])
        e = dict(env)
        if not sandbox:
            e['MAAT_SANDBOX'] = 'off'
        p = subprocess.run([REFEREE, '--seed', '4', '--log-dir', logs, *args,
                            '--bot', 'env=./envbot.sh',
                            '--bot', 'other=' + RANDOM], cwd=d, env=e,
                           capture_output=True, text=True, timeout=300)
        got = {}
        for line in log_of(logs, 'env').splitlines():
            text = line.split('\t', 1)[-1]
            if text.startswith('ENV ') and '=' in text:
                name, value = text[4:].split('=', 1)
                got[name] = value
        return p, got

    p, got = play()
    check(p.returncode == 0 and got.get('MAAT_ORGANISER_SETTING') == 'ours'
          and got.get('PATH') == os.environ.get('PATH') and
          got.get('MAAT_BOT_NAME') == 'env' and 'MAAT_TOKEN' in got and
          'SECRET_API_TOKEN' not in got and 'AWS_KEY' not in got and
          'EXTRA' not in got,
          'sandboxed: PATH, MAAT_* and the seat\'s own variables, not the '
          'organiser\'s token', '%s %s' % (p.stderr, sorted(got)))
    p, got = play('--bot-env', 'EXTRA', '--bot-env', 'AWS_*',
                  '--bot-env', 'SET_HERE=a=b', '--bot-env', 'UNSET_ONE')
    check(p.returncode == 0 and got.get('EXTRA') == 'from-the-referee' and
          got.get('AWS_KEY') == 'k1' and got.get('AWS_OTHER') == 'k2' and
          got.get('SET_HERE') == 'a=b' and 'UNSET_ONE' not in got and
          'SECRET_API_TOKEN' not in got,
          '--bot-env NAME, PREFIX* and NAME=VALUE add those, and no more',
          '%s %s' % (p.stderr, sorted(got)))
    p, got = play('--bot-env', 'MAAT_BOT_NAME=spoofed')
    check(p.returncode == 0 and got.get('MAAT_BOT_NAME') == 'env',
          '--bot-env cannot change the seat\'s own variables', p.stderr)
    p, got = play('--bot-env', '*')
    check(p.returncode == 0 and got.get('SECRET_API_TOKEN') == 's3cr3t',
          '--bot-env \'*\': the whole environment', p.stderr)
    p, got = play('--bot-env', 'SET_HERE=1', sandbox=False)
    check(p.returncode == 0 and got.get('SECRET_API_TOKEN') == 's3cr3t' and
          got.get('SET_HERE') == '1',
          'without the sandbox: the whole environment, and --bot-env sets',
          p.stderr)
    for bad in ('1X', 'A-B', 'A*B', '', '=v'):
        p = subprocess.run([REFEREE, '--bot-env', bad, '--bot', 'a=x',
                            '--bot', 'b=y'], env=env, capture_output=True,
                           text=True, timeout=60)
        check(p.returncode == 2 and "--bot-env '%s'" % bad in p.stderr,
              '--bot-env %r refused (exit 2), naming it' % bad, p.stderr)


LOOKER = r'''#!/bin/sh
# which of the files named in MAAT_LOOK it can read, then it plays
for f in $MAAT_LOOK; do
  if [ -r "$f" ]; then echo "SEES $f"; else echo "MISSING $f"; fi
done >&2
exec "$MAAT_RANDOM_BOT"
'''


def entrant_dirs(base, names):
    """BASE/NAME/ for each name, holding weights.bin and a LOOKER bot.sh."""
    for who in names:
        os.makedirs(os.path.join(base, who))
        with open(os.path.join(base, who, 'weights.bin'), 'w') as f:
            f.write('the %s weights\n' % who)
        script_file(os.path.join(base, who), 'bot.sh', LOOKER)


def private_dirs(tmp):
    """--private-dirs (a league's matches have it): entrants share the
    machine, not their code -- a sandboxed bot cannot read the directories
    another seat's command names below the working directory (its program,
    its weights), unless its own command names them too; bots in one
    directory still share it."""
    d = os.path.join(tmp, 'entries')
    entrant_dirs(d, ('alice', 'bob', 'team'))
    script_file(os.path.join(d, 'team'), 'other.sh', LOOKER)
    look = 'alice/weights.bin bob/weights.bin team/weights.bin'
    env = sandboxed_env(MAAT_LOOK=look)
    runs = [0]

    def play(a, b, private=True, cwd=d, verbose=False):
        runs[0] += 1
        logs = os.path.join(d, 'logs%d' % runs[0])
        rec = os.path.join(d, 'rec%d' % runs[0], 'r.json')
        os.makedirs(os.path.dirname(rec))
        p = subprocess.run([REFEREE, '--seed', '6', '--log-dir', logs,
                            '--record', rec,
                            *(['--private-dirs'] if private else []),
                            *(['--verbose'] if verbose else []),
                            '--bot', 'a=' + a, '--bot', 'b=' + b], cwd=cwd,
                           env=env, capture_output=True, text=True,
                           timeout=300)
        seen = {}
        for bot in ('a', 'b'):
            v = values(log_of(logs, bot))
            seen[bot] = sorted(v.get('SEES', []))
        try:
            with open(rec) as f:
                seen['faults'] = json.load(f).get('faults')
        except (OSError, ValueError):
            seen['faults'] = 'no record'
        return p, seen

    p, seen = play('./alice/bot.sh', 'bob/bot.sh --book team/weights.bin')
    check(p.returncode == 0 and seen['faults'] == [] and
          seen['a'] == ['alice/weights.bin'] and
          seen['b'] == ['bob/weights.bin', 'team/weights.bin'],
          'each bot reads its own directory and what its command names, '
          'not the other seat\'s', '%s %s %s' % (p.stdout, p.stderr, seen))
    p, seen = play('./alice/bot.sh', './bob/bot.sh', verbose=True)
    check(p.returncode == 0 and
          "bot a runs as: exec " in p.stderr and
          "--tmpfs '%s'" % os.path.join(d, 'bob') in p.stderr and
          "--tmpfs '%s'" % os.path.join(d, 'alice') in p.stderr,
          '--verbose prints each bot\'s sandbox, with what it hides',
          p.stderr[-2000:])
    p, seen = play('./team/bot.sh', './team/other.sh')
    check(p.returncode == 0 and 'team/weights.bin' in seen['a'] and
          'team/weights.bin' in seen['b'],
          'two bots from one directory both read it', '%s %s' % (p.stderr,
                                                                  seen))
    p, seen = play('./alice/bot.sh', './bob/bot.sh', private=False)
    check(p.returncode == 0 and len(seen['a']) == 3 == len(seen['b']),
          'without --private-dirs each reads the other\'s directory (a '
          'wrapper script may run a program another seat names)',
          '%s %s' % (p.stderr, seen))
    # the other seat's program named by absolute path, and through a link
    os.symlink('bob', os.path.join(d, 'bob-link'))
    p, seen = play(os.path.join(d, 'alice', 'bot.sh'), './bob-link/bot.sh')
    check(p.returncode == 0 and 'alice/weights.bin' in seen['a'] and
          'bob/weights.bin' not in seen['a'] and
          'bob/weights.bin' in seen['b'] and
          'alice/weights.bin' not in seen['b'],
          'a program named by absolute path or through a link: its '
          'directory hidden from the other seat', '%s %s' % (p.stderr, seen))
    # paths given as --option=PATH count as named
    os.makedirs(os.path.join(d, 'bobdata'))
    with open(os.path.join(d, 'bobdata', 'net.bin'), 'w') as f:
        f.write('bob\'s network\n')
    env['MAAT_LOOK'] = look + ' bobdata/net.bin'
    p, seen = play('./alice/bot.sh --book=team/weights.bin',
                   './bob/bot.sh --weights=bobdata/net.bin')
    check(p.returncode == 0 and
          seen['a'] == ['alice/weights.bin', 'team/weights.bin'] and
          seen['b'] == ['bob/weights.bin', 'bobdata/net.bin'],
          '--weights=PATH: its directory hidden from the other seat, and '
          'kept for the seat that names it', '%s %s' % (p.stderr, seen))
    # from the root, below the working directory is the system itself:
    # another seat's /usr/bin/env must not hide /usr/bin (its /bin/sh)
    p, seen = play(os.path.join(d, 'alice', 'bot.sh'),
                   '/usr/bin/env ' + RANDOM, cwd='/')
    check(p.returncode == 0 and seen['faults'] == [],
          'a referee run from / hides no system directory', '%s %s'
          % (p.stderr, seen))


WATCHER = r'''#!/bin/sh
# looks at the ladder file every 10 ms while the series is played (until
# its own bot is gone), and says so if it ever holds a line
( while kill -0 $$ 2>/dev/null; do
    if [ -s "$MAAT_WATCH" ]; then echo SAW-LADDER; exit; fi
    sleep 0.01
  done ) >&2 &
exec "$MAAT_RANDOM_BOT"
'''


def private_option(tmp):
    """--private NAME=DIR: DIR is seen by bot NAME alone, even inside a
    hidden directory, whatever the other commands name; a command that
    names another's directory is refused."""
    d = os.path.join(tmp, 'owned')
    files = os.path.join(d, 'files')
    entrant_dirs(files, ('alice', 'bob', 'carol'))
    look = ' '.join('files/%s/weights.bin' % w for w in ('alice', 'bob',
                                                         'carol'))
    env = sandboxed_env(MAAT_LOOK=look)
    runs = [0]

    def play(*args, a='files/alice/bot.sh', b='files/bob/bot.sh'):
        runs[0] += 1
        logs = os.path.join(d, 'logs%d' % runs[0])
        p = subprocess.run([REFEREE, '--seed', '6', '--log-dir', logs,
                            *args, '--bot', 'a=' + a, '--bot', 'b=' + b],
                           cwd=d, env=env, capture_output=True, text=True,
                           timeout=300)
        seen = {}
        for bot in ('a', 'b'):
            v = values(log_of(logs, bot)) if os.path.isdir(logs) else {}
            seen[bot] = sorted(w.split('/')[1] for w in v.get('SEES', []))
        return p, seen

    own = ['--hide', 'files', '--private', 'a=files/alice',
           '--private', 'b=files/bob']
    p, seen = play(*own)
    check(p.returncode == 0 and seen == {'a': ['alice'], 'b': ['bob']},
          '--hide files + --private per bot: each sees its own directory '
          'only, not the other\'s nor one no bot owns', '%r %s' % (
              seen, p.stderr[-300:]))
    p, seen = play('--private', 'a=files/alice')
    check(p.returncode == 0 and seen == {'a': ['alice', 'bob', 'carol'],
                                         'b': ['bob', 'carol']},
          '--private alone hides that directory from the other bots only',
          '%r %s' % (seen, p.stderr[-300:]))
    p, seen = play(*own, b='files/bob/bot.sh --book files/alice/weights.bin')
    check(p.returncode == 2 and 'bot b' in p.stderr and
          'files/alice' in p.stderr and 'to a only' in p.stderr,
          'a command naming another bot\'s --private directory is refused '
          '(exit 2), naming the bot, the directory and its owner', p.stderr)
    p, seen = play('--private', 'nobody=files/carol')
    check(p.returncode == 0 and 'no spawned bot is called nobody' in
          p.stderr and 'carol' not in seen['a'] + seen['b'],
          '--private for a name no bot has: said, and hidden from all',
          '%r %s' % (seen, p.stderr[-300:]))
    for arg, why in (('a=files/none', 'No such file'),
                     ('a=files/alice/weights.bin', 'not a directory'),
                     ('a=..', 'holds the working directory'),
                     ('a', 'NAME=VALUE')):
        p, seen = play('--private', arg)
        check(p.returncode == 2 and why in p.stderr and not seen['a'],
              '--private %s refused before any bot starts (exit 2): %s'
              % (arg, why), p.stderr)
    p, seen = play('--private', 'a=files', '--private', 'b=files/bob')
    check(p.returncode == 2 and 'one holds the other' in p.stderr and
          not seen['a'], '--private directories one inside another are '
          'refused (which mount wins would depend on their order)', p.stderr)
    p = subprocess.run([REFEREE, '--seed', '6', '--no-sandbox', '--private',
                        'a=files/alice', '--bot', 'a=files/alice/bot.sh',
                        '--bot', 'b=files/bob/bot.sh'], cwd=d, env=env,
                       capture_output=True, text=True, timeout=300)
    check(p.returncode == 0 and '--private does nothing without the '
          'sandbox' in p.stderr, '--private without the sandbox: said',
          p.stderr)


def series_ladder(tmp):
    """A series (--games 2, the same bot processes) with a ladder file that
    does not exist yet: game 0's line (its seed is the series' seed, from
    which game 1's deal is derived) must stay hidden from bots playing
    game 1 -- the referee creates the file before they start, so that the
    sandbox can hide it."""
    d = os.path.join(tmp, 'series')
    logs = os.path.join(d, 'logs')
    os.makedirs(d)
    watcher = script_file(d, 'watcher.sh', WATCHER)
    ladder = os.path.join(d, 'ladder.jsonl')
    env = sandboxed_env(MAAT_WATCH=ladder)
    # the opponent thinks 20 ms a decision: game 1 lasts about a second,
    # a hundred looks
    p = subprocess.run([REFEREE, '--fixed-seats', '--seed', '11',
                        '--games', '2', '--ladder', ladder, '--log-dir', logs,
                        '--bot', 'watcher=' + watcher,
                        '--bot', 'thinker=%s --budget-ms 20' % MCTS],
                       env=env, capture_output=True, text=True, timeout=300)
    lines = open(ladder).read().splitlines() if os.path.exists(ladder) else []
    check(p.returncode == 0 and len(lines) == 2,
          'a series into a new ladder file: both games written', p.stderr)
    seen = ''.join(open(os.path.join(logs, f)).read()
                   for f in os.listdir(logs) if '-watcher' in f)
    check('SAW-LADDER' not in seen, 'game 0\'s ladder line (the series\' '
          'seed) is hidden from a bot still playing the series', seen[-300:])


CONNECT = r'''#!/bin/sh
# tries the host's Unix socket named in MAAT_HOST_SOCKET, then plays
/usr/bin/python3 -c "
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
    print('HOST-SOCKET connected')
except OSError as e:
    print('HOST-SOCKET refused', e.errno)
" "$MAAT_HOST_SOCKET" >&2
exec "$MAAT_RANDOM_BOT"
'''


def host_sockets(tmp):
    """The host's daemons keep their sockets in /run (Docker, D-Bus,
    systemd): a read-only file system does not stop connect(), so /run is
    empty in the sandbox.  Needs a socket of our own in /run: as root (CI)."""
    path = '/run/maat-isolation-%d.sock' % os.getpid()
    try:
        server = socket.socket(socket.AF_UNIX)
        server.bind(path)
        server.listen(5)
    except OSError as e:
        print('SKIP host sockets: cannot make a socket in /run (%s)' % e)
        return
    try:
        d = os.path.join(tmp, 'host-socket')
        logs = os.path.join(d, 'logs')
        os.makedirs(d)
        bot = script_file(d, 'connect.sh', CONNECT)
        env = sandboxed_env(MAAT_HOST_SOCKET=path)
        p = subprocess.run([REFEREE, '--seed', '13', '--log-dir', logs,
                            '--bot', 'connect=' + bot, '--bot',
                            'other=' + RANDOM], env=env, capture_output=True,
                           text=True, timeout=300)
        said = [l for l in log_of(logs, 'connect').splitlines()
                if 'HOST-SOCKET' in l]
        check(p.returncode == 0 and len(said) == 1 and
              'refused' in said[0], 'a host socket in /run (a daemon\'s, '
              'such as Docker\'s) cannot be reached', repr(said) + p.stderr)
    finally:
        server.close()
        os.unlink(path)


def marked(marker):
    found = []
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        try:
            with open('/proc/%s/environ' % d, 'rb') as f:
                if ('MAAT_MARK=' + marker).encode() in f.read().split(b'\0'):
                    found.append(int(d))
        except OSError:
            pass
    return found


def sigkill(tmp):
    """The referee killed with SIGKILL: nothing a bot started survives."""
    d = os.path.join(tmp, 'kill')
    logs = os.path.join(d, 'logs')
    os.makedirs(d)
    probe = probe_file(d)
    marker = 'iso-%d' % os.getpid()
    env = dict(os.environ, MAAT_RANDOM_BOT=RANDOM, MAAT_ESCAPE='1',
               MAAT_MARK=marker)
    env.pop('MAAT_SANDBOX', None)
    ref = subprocess.Popen([REFEREE, '--fixed-seats', '--time', '60000',
                            '--first-time', '60000', '--log-dir', logs,
                            '--bot', 'probe=' + probe,
                            '--bot', 'other=sleep 1000'],
                           env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if 'ESCAPED' in log_of(logs, 'probe') if os.path.isdir(logs) \
                    else False:
                break
            time.sleep(0.02)  # waiting for the escape (readiness)
        check(len(marked(marker)) > 0, 'SIGKILL: the escaped child runs')
        ref.send_signal(signal.SIGKILL)
        ref.wait()
        deadline = time.monotonic() + 10
        left = marked(marker)
        while left and time.monotonic() < deadline:
            time.sleep(0.02)  # the kernel tears the namespaces down
            left = marked(marker)
        check(not left, 'SIGKILL of the referee: every process the bots '
              'started is gone', repr(left))
    finally:
        if ref.poll() is None:
            ref.kill()
            ref.wait()
        for pid in marked(marker):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def unavailable(tmp):
    env = dict(os.environ, PATH='/nonexistent')
    env.pop('MAAT_SANDBOX', None)
    p = subprocess.run([REFEREE, '--bot', 'a=' + RANDOM, '--bot',
                        'b=' + RANDOM], env=env, capture_output=True,
                       text=True, timeout=120)
    check(p.returncode == 0 and p.stderr.count('NOT isolated') == 1,
          'without bubblewrap the referee says once that bots are not '
          'isolated', p.stderr)
    p = subprocess.run([REFEREE, '--sandbox', '--bot', 'a=' + RANDOM,
                        '--bot', 'b=' + RANDOM], env=env, capture_output=True,
                       text=True, timeout=120)
    check(p.returncode == 2 and 'bubblewrap' in p.stderr,
          '--sandbox without bubblewrap is an error naming it', p.stderr)
    # the ladder's referees run --quiet: the ladder says it, once (its
    # matches of unsandboxed bots went by without a word: CI review of
    # 2026-11-27)
    ladder = os.path.join(BUILD, 'ladder', 'maat-ladder')
    d = os.path.join(tmp, 'unavailable')
    os.makedirs(d)
    conf = os.path.join(d, 't.json')
    with open(conf, 'w') as f:
        json.dump({'name': 'u', 'game': 'pyramids', 'seats': 2,
                   'matches': 2, 'ladder': os.path.join(d, 'l.jsonl'),
                   'bots': [{'name': 'a', 'command': RANDOM},
                            {'name': 'b', 'command': RANDOM}]}, f)
    p = subprocess.run([ladder, 'run', conf, '--quiet'], env=env,
                       capture_output=True, text=True, timeout=300)
    check(p.returncode == 0 and p.stderr.count('NOT isolated') == 1 and
          'maat-ladder run: warning' in p.stderr,
          'without bubblewrap maat-ladder run says once that bots are not '
          'isolated', p.stderr[-600:])


def main():
    if subprocess.run('bwrap --ro-bind / / --unshare-pid --unshare-net true',
                      shell=True, capture_output=True).returncode != 0:
        print('bubblewrap is not usable here; skipping')
        return 77
    with tempfile.TemporaryDirectory(
            dir=os.environ.get('MAAT_BUILD_ROOT'),
            prefix='maat-isolation-') as tmp:
        isolated_match(tmp)
        outputs_beside_socket(tmp)
        cannot_hide(tmp)
        bot_environment(tmp)
        private_dirs(tmp)
        private_option(tmp)
        series_ladder(tmp)
        host_sockets(tmp)
        sigkill(tmp)
        unavailable(tmp)
    return report()


if __name__ == '__main__':
    sys.exit(main())
