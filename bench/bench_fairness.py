#!/usr/bin/env python3
"""bench_fairness.py -- fairness under load: is a bot ever charged a timeout
while its own clock says it answered in time?

    python3 bench/bench_fairness.py [--build DIR] [--games N] [--time MS]
                                    [--fraction F] [--jobs J] [--seats S]
                                    [--keep all|failed]

Plays N games (default 200) of S-seat Pyramids (2) with `maat-ladder run
--jobs J` (J = the number of cores), every seat `maat-busy-bot --fraction
F` (0.95): a bot that computes for F of its per-decision time (--time MS,
default 50, also its first decision's) and then answers.  The referee
runs as the ladder runs it -- bots sandboxed when bubblewrap works, idle
seats at nice 19 -- with `--record-timing`, so every decision's record
carries the referee's `wall_us`, the bot's `cpu_us` and the bot's own
`think_us` (docs/PROTOCOL.md), and a timeout fault carries the `think_us`
of the late reply when it came before the game ended.

Counted: timeouts; of them, those charged to a bot whose own clock stayed
under its limit (think_us < MS: unfair), over it (the bot's own fault), or
with no late reply to tell; and over every decision kept (--keep all, the
default; --keep failed keeps only games with a fault, for long runs) the
referee's wall time against the bot's own time.  The goal (issue 19): 0
unfair timeouts in 10,000 games with --jobs equal to the core count:

    python3 bench/bench_fairness.py --build build-bench --games 10000 --keep failed

takes about games x decisions x MS x F / jobs of wall time (10,000 2-seat
games at 50 ms: about 4.5 hours on 2 cores).
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--build", default=os.path.join(root, "build-bench"))
ap.add_argument("--games", type=int, default=200)
ap.add_argument("--time", type=int, default=50, help="ms per decision")
ap.add_argument("--fraction", type=float, default=0.95)
ap.add_argument("--jobs", type=int, default=os.cpu_count())
ap.add_argument("--seats", type=int, default=2)
ap.add_argument("--keep", choices=["all", "failed"], default="all")
ap.add_argument("--referee-arg", action="append", default=[],
                help="one more referee argument, e.g. --referee-arg=--no-wait-credit")
a = ap.parse_args()

lad = os.path.join(a.build, "ladder", "maat-ladder")
bot = os.path.join(a.build, "bench", "maat-busy-bot")
for p in (lad, bot):
    if not os.access(p, os.X_OK):
        sys.exit("bench_fairness.py: no %s (ninja -C %s)" % (p, a.build))

tmp = tempfile.mkdtemp(prefix="maat-bench-fair-")
try:
    ladder = os.path.join(tmp, "fair.jsonl")
    cfg = {
        "name": "fairness", "game": "pyramids", "seats": a.seats,
        "matches": a.games, "format": "round-robin", "duplicate": False,
        "seed": 1, "ladder": ladder, "keep": a.keep,
        "referee_args": ["--time", str(a.time), "--first-time", str(a.time),
                         "--record-timing"] + a.referee_arg,
        "bots": [{"name": "busy%d" % i,
                  "command": "%s --fraction %g" % (bot, a.fraction)}
                 for i in range(max(a.seats, 2))],
    }
    with open(os.path.join(tmp, "fair.json"), "w") as f:
        json.dump(cfg, f)
    load0 = open("/proc/loadavg").read().split()[:3]
    t0 = time.time()
    cmd = [lad, "run", os.path.join(tmp, "fair.json"), "--jobs",
           str(a.jobs), "--quiet"]
    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode
    wall = time.time() - t0
    load1 = open("/proc/loadavg").read().split()[:3]
    # 3: a bot judged broken (too many faults) -- under heavy load busy
    # bots time out by their own fault too; the faults are what we count
    if rc not in (0, 3):
        sys.exit("bench_fairness.py: maat-ladder run exited with %d" % rc)
    lines = [json.loads(l) for l in open(ladder)]
    limit_us = a.time * 1000
    timeouts = unfair = own = unknown = other = 0
    for g in lines:
        for f in g["faults"]:
            if f["kind"] != "timeout":
                other += 1
                continue
            timeouts += 1
            t = f.get("think_us")
            if t is None:
                unknown += 1
            elif t < limit_us:
                unfair += 1
                if unfair <= 10:
                    print("# unfair: game %s decision %s: %s (think_us %d)"
                          % (g.get("id"), f.get("decision"), f.get("detail"), t))
            else:
                own += 1
    walls, thinks, gaps, over, credited = [], [], [], 0, 0
    for rec in glob.glob(os.path.join(tmp, "fair.games", "*.json*")):
        try:
            r = json.load(open(rec))
        except ValueError:
            continue
        for d in r.get("decisions", []):
            if d.get("by") != "bot" or "think_us" not in d:
                continue
            walls.append(d["wall_us"])
            thinks.append(d["think_us"])
            gaps.append(d["wall_us"] - d["think_us"])
            over += d["wall_us"] > limit_us
            # past the limit and the 100 ms grace, yet the bot's: the
            # deadline had moved by time spent waiting for a CPU
            credited += d["wall_us"] > limit_us + 100000

    def pct(v, q):
        v = sorted(v)
        return v[min(len(v) - 1, int(q * len(v)))] if v else float("nan")

    print("# bench_fairness: %d games of %d-seat Pyramids, maat-ladder run "
          "--jobs %d, every seat maat-busy-bot --fraction %g, --time %d ms"
          % (len(lines), a.seats, a.jobs, a.fraction, a.time))
    print("# %d cores; load average %s at start, %s at the end; %.0f s"
          % (os.cpu_count(), " ".join(load0), " ".join(load1), wall))
    print("timeouts: %d (%d with the bot's own clock under %d ms: UNFAIR; "
          "%d over it: the bot's own; %d with no late reply to tell); "
          "other faults: %d" % (timeouts, unfair, a.time, own, unknown, other))
    if walls:
        print("decisions kept: %d (--keep %s); answered after %d ms by the "
              "referee's clock (within the grace): %d"
              % (len(walls), a.keep, a.time, over))
        print("answered after the limit + 100 ms grace (the deadline moved by "
              "time spent waiting for a CPU): %d" % credited)
        for name, v in (("referee wall_us", walls), ("bot think_us", thinks),
                        ("wall_us - think_us", gaps)):
            print("  %-20s median %8d  p90 %8d  p99 %8d  max %8d"
                  % (name, pct(v, .5), pct(v, .9), pct(v, .99), max(v)))
    print("# command: %s" % " ".join(
        ["python3", "bench/bench_fairness.py"] + sys.argv[1:]))
finally:
    shutil.rmtree(tmp, ignore_errors=True)
