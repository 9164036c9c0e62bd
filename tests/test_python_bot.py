#!/usr/bin/env python3
"""test_python_bot.py -- the Python sample bot plays through maat-referee.

sample-bots/python/random_bot.py is written from docs/PROTOCOL.md alone;
this runs it in one seat against maat-random in the others, for 2 to 5
seats, and checks that the referee never had to step in: exit 0, no fault
for any seat, every decision of the Python seat made "by": "bot", and the
record replays (maat-referee --verify).

Environment: MAAT_REFEREE, MAAT_RANDOM (paths of the programs) and
MAAT_SOURCE_ROOT (set by tests/meson.build).  Exits 77 (skipped) when no
Python 3 with both zmq and msgpack is found.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL: " + what)


def bot_python():
    """A python3 that has zmq and msgpack: this one, else Debian's (a
    pyenv or venv python3 earlier on PATH may lack the Debian modules)."""
    candidates = [sys.executable, "/usr/bin/python3", shutil.which("python3")]
    for py in candidates:
        if py and os.access(py, os.X_OK) and subprocess.run(
                [py, "-c", "import zmq, msgpack"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL).returncode == 0:
            return py
    return None


def main():
    referee = os.environ.get("MAAT_REFEREE")
    rnd = os.environ.get("MAAT_RANDOM")
    root = os.environ.get("MAAT_SOURCE_ROOT")
    if not referee or not rnd or not root:
        print("set MAAT_REFEREE, MAAT_RANDOM and MAAT_SOURCE_ROOT")
        return 1
    py = bot_python()
    if not py:
        print("SKIP: no python3 with zmq and msgpack "
              "(apt install python3-zmq python3-msgpack)")
        return 77
    bot = os.path.join(root, "sample-bots", "python", "random_bot.py")
    check(os.path.isfile(bot), bot + " exists")

    with tempfile.TemporaryDirectory(prefix="maat-pybot-") as tmp:
        for seats in range(2, 6):
            # 3 seats: a series of two games, so seats rotate
            games = 2 if seats == 3 else 1
            rec = os.path.join(tmp, "rec%d.json" % seats)
            cmd = [referee, "--seed", str(40 + seats), "--quiet",
                   "--games", str(games), "--record", rec,
                   "--log-dir", os.path.join(tmp, "logs%d" % seats),
                   "--bot", "py=%s %s" % (py, bot)]
            for k in range(1, seats):
                cmd += ["--bot", "r%d=%s" % (k, rnd)]
            what = "%d seats" % seats
            before = failures
            r = subprocess.run(cmd, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=120,
                               universal_newlines=True)
            check(r.returncode == 0,
                  "%s: referee exit %d\n%s" % (what, r.returncode, r.stdout))
            if r.returncode != 0:
                continue
            paths = [rec] if games == 1 else \
                [os.path.join(tmp, "rec%d-%d.json" % (seats, k))
                 for k in range(games)]
            for path in paths:
                with open(path) as f:
                    record = json.load(f)
                name = "%s (%s)" % (what, os.path.basename(path))
                check(record["faults"] == [],
                      "%s: faults %s" % (name, record["faults"]))
                seat = [s["seat"] for s in record["seats"]
                        if s["bot"] == "py"]
                check(len(seat) == 1, name + ": py has one seat")
                mine = [d for d in record["decisions"]
                        if seat and d["seat"] == seat[0]]
                check(len(mine) > 0, name + ": py made decisions")
                check(all(d["by"] == "bot" for d in mine),
                      "%s: decisions not by the bot: %s" % (name, [
                          d for d in mine if d["by"] != "bot"][:3]))
                check(not any(x["out"] for x in record["result"]),
                      name + ": nobody is out")
                v = subprocess.run([referee, "--verify", path],
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, timeout=60,
                                   universal_newlines=True)
                check(v.returncode == 0,
                      "%s: --verify exit %d\n%s" % (name, v.returncode,
                                                    v.stdout))
            print("%s: %s" % (what, "ok" if failures == before else "FAILED"))
    print("%d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
