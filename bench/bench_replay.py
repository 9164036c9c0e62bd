#!/usr/bin/env python3
"""bench_replay.py -- how big and how fast maat-replay pages are.

    python3 bench/bench_replay.py [BUILD_DIR]

Records one game of each kind with the most seats (random bots, seed 3),
makes its page, and reports the decisions, the page size, the time
maat-replay took, and in headless Chromium (tests/cdp.py) the time from
navigation to the load event and the mean time to draw a position (every
position in the omniscient view).  Needs chromium."""
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from cdp import Browser  # noqa: E402

build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
referee = os.path.join(build, "referee", "maat-referee")
replay = os.path.join(build, "replay", "maat-replay")
bot = os.path.join(build, "sample-bots", "maat-random")

with tempfile.TemporaryDirectory() as tmp, Browser() as b:
    print("%-11s %5s %9s %10s %9s %11s" % ("game", "seats", "decisions", "page bytes",
                                           "make ms", "draw ms/pos"))
    for game, seats in (("pyramids", 5), ("pyramix", 4), ("architects", 4)):
        rec = os.path.join(tmp, game + ".json")
        cmd = [referee, "--game", game, "--seed", "3", "--record", rec,
               "--record-timing", "--quiet"]
        for s in range(seats):
            cmd += ["--bot", "b%d=%s" % (s, bot)]
        subprocess.run(cmd, check=True)
        page = os.path.join(tmp, game + ".html")
        t0 = time.monotonic()
        subprocess.run([replay, rec, "-o", page], check=True)
        make_ms = (time.monotonic() - t0) * 1000
        b.open("file://" + page)
        load = b.eval("performance.getEntriesByType('navigation')[0].loadEventEnd")
        n = b.eval("maatReplay.positions")
        per = b.eval("(() => { const t = performance.now(); for (let i = 0; i < "
                     "maatReplay.positions; i++) maatReplay.go(i); return "
                     "(performance.now() - t) / maatReplay.positions; })()")
        with open(rec) as f:
            decisions = len(json.load(f)["decisions"])
        print("%-11s %5d %9d %10d %9.0f %11.1f   (load event at %.0f ms)"
              % (game, seats, decisions, os.path.getsize(page), make_ms, per, load))
    if b.errors:
        print("JavaScript errors:", b.errors)
        sys.exit(1)
