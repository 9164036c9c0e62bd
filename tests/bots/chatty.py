#!/usr/bin/env python3
"""chatty.py -- a test bot that says on stderr what it is asked.

Plays the first legal action of every request and writes one line per
request to stderr: "request SEQ seat SEAT game GAME" (tests/test_referee_logs.py
checks each line lands in its game's log, tagged with its decision).
"""
import os
import sys

import msgpack
import zmq

ctx = zmq.Context()
s = ctx.socket(zmq.DEALER)
s.setsockopt(zmq.LINGER, 0)
s.connect(os.environ['MAAT_ENDPOINT'])
s.send(msgpack.packb({'type': 'hello', 'version': 1,
                      'token': os.environ['MAAT_TOKEN'], 'name': 'chatty'}))
print('starting', file=sys.stderr, flush=True)
seat = game = -1
while True:
    m = msgpack.unpackb(s.recv(), raw=False, strict_map_key=False)
    t = m.get('type')
    if t == 'start':
        seat, game = m['seat'], m['game_index']
    elif t == 'request':
        print('request %d seat %d game %d' % (m['seq'], seat, game),
              file=sys.stderr, flush=True)
        s.send(msgpack.packb({'type': 'action', 'seq': m['seq'],
                              'action': m['legal'][0]}))
    elif t in ('bye', 'reject'):
        break
s.close()
ctx.term()
