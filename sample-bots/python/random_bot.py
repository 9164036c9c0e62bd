#!/usr/bin/env python3
"""random_bot.py -- a maat bot in Python, written from docs/PROTOCOL.md alone.

Needs only Debian's python3-zmq and python3-msgpack.  Run it through the
referee, which sets MAAT_ENDPOINT, MAAT_TOKEN and MAAT_BOT_NAME:

    maat-referee --bot py='python3 sample-bots/python/random_bot.py' \
                 --bot r=build/sample-bots/maat-random

It answers every request with a random entry of "legal" (the referee lists
every legal action, so no rules are needed here), except that in Pyramids
it prefers to build a card carrying a pyramid glyph, which scores 2 points
in the pyramid -- to show the observation and the deck are usable.

It speaks protocol version 1 (hello "version": 1), where every request
carries the whole observation, and keeps no state between requests.
Version 2 (docs/PROTOCOL.md, section 2b) leaves the observation out after
a seat's first request of each game; it is for bots that follow the
events, as the C SDK does.
"""
import os
import random
import sys

try:
    import msgpack
    import zmq
except ImportError as e:
    sys.exit("random_bot: %s (apt install python3-zmq python3-msgpack)" % e)

SILENCE_MS = 60000  # give up if the referee says nothing for this long


def choose(request, deck):
    """Pick one entry of request["legal"]; it is sent back unchanged."""
    legal = request["legal"]
    if request["decision"] == "build" and deck:
        # deck[id] is [stones, glyph]; glyph is None, "pyramid", ...
        glyph = [a for a in legal if deck[a["card"]][1] == "pyramid"]
        if glyph:
            return random.choice(glyph)
    return random.choice(legal)


def main():
    endpoint = os.environ.get("MAAT_ENDPOINT")
    token = os.environ.get("MAAT_TOKEN")
    name = os.environ.get("MAAT_BOT_NAME", "random-py")
    if not endpoint or not token:
        sys.exit("random_bot: set MAAT_ENDPOINT and MAAT_TOKEN "
                 "(maat-referee does this for bots it spawns)")

    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)  # the referee binds a ROUTER
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(endpoint)
    # every message is one frame holding one msgpack map with a "type"
    sock.send(msgpack.packb({"type": "hello", "version": 1,
                             "token": token, "name": name}))
    deck = None
    try:
        while True:
            if not sock.poll(SILENCE_MS):
                sys.exit("%s: no word from the referee for %d s; giving up"
                         % (name, SILENCE_MS // 1000))
            msg = msgpack.unpackb(sock.recv(), raw=False)
            kind = msg.get("type")
            if kind == "welcome":
                if msg["game"] == "pyramids":
                    deck = msg["setup"]["deck"]  # card faces by id
            elif kind == "reject":
                sys.exit("%s: the referee refused us: %s"
                         % (name, msg.get("reason")))
            elif kind == "request":
                # answer once, with the request's own seq
                sock.send(msgpack.packb({"type": "action", "seq": msg["seq"],
                                         "action": choose(msg, deck)}))
            elif kind == "bye":
                return 0
            # "start" and "end" need no answer
    finally:
        sock.close()
        ctx.term()


if __name__ == "__main__":
    sys.exit(main())
