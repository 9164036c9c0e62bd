#!/usr/bin/env python3
"""What a flood from connections with no seat costs a match.

One match: seat 'me' is played from here and answers each request at once,
seat 'r0' is maat-random, spawned by the referee (so its time waiting for
a CPU is credited to it).  64 connections first fill the referee's table
of connections with no seat (each says a refused hello), then a separate
process opens CONNS more and floods from them for the whole match: msgpack
arrays of BYTES fixints (as costly to decode as msgpack gets; 4,000), as
fast as its send queues take them.  Prints, with and without the flood,
RUNS times each, alternating: the time the record charges r0
(--record-timing: wall_us - credit_us, summed over its decisions), and
the referee's CPU time for the whole match.  On 2 cores the flooder, the
referee and the bots share the CPUs, so the charged time also holds the
flood's share of the machine.  Needs python3-zmq and python3-msgpack.

Usage: bench/stranger_flood.py [--conns 150] [--runs 3] [--bytes 4000] BUILD_DIR
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import msgpack
import zmq

TOKEN = 'cd' * 16


def junk(size):
    n = size - 5
    return b'\xdd' + n.to_bytes(4, 'big') + b'\x01' * n


def flooder(ep, conns, size):
    """Runs in its own process (python's lock would slow 'me' otherwise)."""
    ctx = zmq.Context()
    socks = []
    for _ in range(conns):
        s = ctx.socket(zmq.DEALER)
        s.setsockopt(zmq.LINGER, 0)
        s.setsockopt(zmq.SNDHWM, 4)
        s.connect(ep)
        socks.append(s)
    msg = junk(size)
    rounds = 0
    while True:
        for s in socks:
            try:
                s.send(msg, zmq.NOBLOCK, copy=False)
            except zmq.Again:
                pass
        rounds += 1
        if rounds == 10:   # flooding: the match may start
            print('flooding', flush=True)


def dealer(ctx, ep):
    s = ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    s.connect(ep)
    return s


def hello(token):
    return msgpack.packb({'type': 'hello', 'version': 1, 'token': token,
                          'name': 'x'})


def one_match(build, conns, size):
    """The time charged to 'r0', in ms, over all its decisions, ..."""
    d = tempfile.mkdtemp(prefix='maat-stranger-flood-')
    ep = 'ipc://' + os.path.join(d, 'ep')
    ref = subprocess.Popen(
        [os.path.join(build, 'referee', 'maat-referee'), '--seed', '5',
         '--endpoint', ep, '--hello-time', '20000', '--fixed-seats',
         '--no-sandbox', '--quiet', '--time', '200', '--bank', '2000',
         '--record-timing', '--record', os.path.join(d, 'r.json'),
         '--ladder', os.path.join(d, 'l.jsonl'), '--remote', 'me=' + TOKEN,
         '--bot', 'r0=' + os.path.join(build, 'sample-bots', 'maat-random')],
        stderr=subprocess.PIPE, text=True)
    ctx = zmq.Context()
    table = [dealer(ctx, ep) for _ in range(64)]
    for i, s in enumerate(table):
        s.send(hello('%032x' % i))
    for s in table:
        s.poll(20000)
    flood = None
    if conns:
        flood = subprocess.Popen([sys.executable, os.path.abspath(__file__),
                                  '--flooder', ep, str(conns), str(size)],
                                 stdout=subprocess.PIPE, text=True)
        flood.stdout.readline()
    me = dealer(ctx, ep)
    me.send(hello(TOKEN))
    while me.poll(30000):
        m = msgpack.unpackb(me.recv_multipart()[-1], raw=False,
                            strict_map_key=False)
        if m.get('type') in ('bye', 'reject'):
            break
        if m.get('type') == 'request':
            me.send(msgpack.packb({'type': 'action', 'seq': m['seq'],
                                   'action': m['legal'][0]}))
    if flood:
        flood.kill()
        flood.wait()
    err = ref.stderr.read()
    ru = os.wait4(ref.pid, 0)[2]
    cpu_ms = (ru.ru_utime + ru.ru_stime) * 1000
    for s in table + [me]:
        s.close()
    ctx.term()
    with open(os.path.join(d, 'r.json')) as f:
        rec = json.load(f)
    seat = [x['seat'] for x in rec['seats'] if x['bot'] == 'r0']
    used = [x['wall_us'] - x.get('credit_us', 0) for x in rec['decisions']
            if x['seat'] in seat]
    subprocess.run(['rm', '-rf', d])
    return sum(used) / 1000.0, len(used), rec.get('faults'), err, cpu_ms


def main():
    if len(sys.argv) == 5 and sys.argv[1] == '--flooder':
        flooder(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('build')
    ap.add_argument('--conns', type=int, default=150)
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--bytes', type=int, default=4000,
                    help='the size of each flood message (4000)')
    a = ap.parse_args()
    print('%-24s %10s %10s %12s  %s' % ('', 'r0 charged', 'decisions',
                                         'referee cpu', 'faults'))
    for r in range(a.runs):
        for conns in (a.conns, 0):
            ms, n, faults, err, cpu = one_match(a.build, conns, a.bytes)
            label = '%d flooding' % conns if conns else 'no flood'
            print('%-24s %10.1f %10d %9.0f ms  %s' % (label, ms, n, cpu,
                                                      faults))
    return 0


if __name__ == '__main__':
    sys.exit(main())
