#!/usr/bin/python3
"""capture.py -- record real referee -> bot messages for test_sdk_recorded.c.

Regenerate the *.msgpack files next to this script (from the source root,
after `ninja -C build`):

    /usr/bin/python3 tests/data/recorded/capture.py build/referee/maat-referee

which runs

    maat-referee --seed 11 --fixed-seats --games 1 --time 10000 --quiet \\
        --bot cap='/usr/bin/python3 tests/data/recorded/capture.py --bot OUTDIR' \\
        --bot opp='/usr/bin/python3 tests/data/recorded/capture.py --bot -'

(/usr/bin/python3: Debian's, which has python3-zmq and python3-msgpack.)
Both seats run this script as a bot that answers every request with the
entry legal[(7 * seq + 3) % len(legal)] -- deterministic, so the same
referee and rules give the same match and the same bytes.  Seat 0 ("cap")
stores the raw bytes of these messages, unchanged, as OUTDIR/<name>.msgpack:

    welcome          the welcome (setup: the reference deck)
    start            the start of game 0
    request_god      the first request (events: deal, round, quarries)
    request_pair     the first pair request
    request_build    the first build request whose legal list offers a tomb
                     and an obelisk card together (Sekhmet/Thoth, 3 cards)
    request_keep     the first keep request
    request_late     the first request of round 8 or later in which both
                     seats have cards in their tombs
    end              the end of game 0 (everything revealed, scores)
    bye              the bye

test_sdk_recorded.c asserts values read from these files by hand; if you
regenerate them, re-read them (`capture.py --dump FILE`) and update it.
"""
import os
import subprocess
import sys

try:
    import msgpack
    import zmq
except ImportError as e:  # pragma: no cover
    sys.exit("capture.py: %s (use /usr/bin/python3 with python3-zmq and "
             "python3-msgpack)" % e)

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 11


def choose(legal, seq):
    return legal[(7 * seq + 3) % len(legal)]


def bot(outdir):
    endpoint = os.environ["MAAT_ENDPOINT"]
    token = os.environ["MAAT_TOKEN"]
    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(endpoint)
    sock.send(msgpack.packb({"type": "hello", "version": 1, "token": token,
                             "name": "capture"}))
    saved = set()

    def save(name, raw):
        if outdir != "-" and name not in saved:
            saved.add(name)
            with open(os.path.join(outdir, name + ".msgpack"), "wb") as f:
                f.write(raw)

    try:
        while True:
            if not sock.poll(60000):
                sys.exit("capture.py: the referee went silent")
            raw = sock.recv()
            msg = msgpack.unpackb(raw, raw=False)
            kind = msg.get("type")
            if kind in ("welcome", "start", "end", "bye"):
                save(kind, raw)
            if kind == "request":
                obs = msg["observation"]
                dec = msg["decision"]
                if "request_god" not in saved:
                    save("request_god", raw)
                if dec in ("pair", "keep"):
                    save("request_" + dec, raw)
                if dec == "build" and any(
                        a["tomb"] is not None and a["obelisk"] is not None
                        for a in msg["legal"]):
                    save("request_build", raw)
                if obs["round"] >= 8 and all(
                        p["tomb_size"] > 0 for p in obs["players"]):
                    save("request_late", raw)
                sock.send(msgpack.packb({
                    "type": "action", "seq": msg["seq"],
                    "action": choose(msg["legal"], msg["seq"])}))
            elif kind == "reject":
                sys.exit("capture.py: rejected: %s" % msg.get("reason"))
            elif kind == "bye":
                return 0
    finally:
        sock.close()
        ctx.term()


def dump(path):
    import json
    with open(path, "rb") as f:
        print(json.dumps(msgpack.unpackb(f.read(), raw=False)))


def run(referee):
    me = os.path.abspath(__file__)
    py = sys.executable
    cmd = [referee, "--seed", str(SEED), "--fixed-seats", "--games", "1",
           "--time", "10000", "--quiet",
           "--bot", "cap=%s %s --bot %s" % (py, me, HERE),
           "--bot", "opp=%s %s --bot -" % (py, me)]
    print(" ".join(cmd))
    r = subprocess.run(cmd)
    if r.returncode != 0:
        sys.exit("the referee exited %d" % r.returncode)
    names = ["welcome", "start", "request_god", "request_pair",
             "request_build", "request_keep", "request_late", "end", "bye"]
    missing = [n for n in names
               if not os.path.exists(os.path.join(HERE, n + ".msgpack"))]
    if missing:
        sys.exit("not captured: " + ", ".join(missing))
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--bot":
        sys.exit(bot(sys.argv[2]))
    if len(sys.argv) == 3 and sys.argv[1] == "--dump":
        sys.exit(dump(sys.argv[2]))
    if len(sys.argv) == 2 and not sys.argv[1].startswith("-"):
        sys.exit(run(sys.argv[1]))
    sys.exit(__doc__)
