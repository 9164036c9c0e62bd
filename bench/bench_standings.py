#!/usr/bin/env python3
"""bench_standings.py -- `maat-ladder standings` on a big ladder file: peak
resident memory and time (docs/LADDER.md, "Big ladder files").

    python3 bench/bench_standings.py [--build DIR] [--games N] [--bots B]
                                     [--seats S] [--keep FILE]

Writes a ladder file of N games (default 1,000,000) in the referee's line
format -- B bots (default 40), S seats (default 4; 2-player lines when
S is 2), a game in 10 with a fault, 64-hex-digit seeds, record and log
paths, about 560 bytes a line -- to a temporary directory (or FILE with
--keep, reused when it exists), then runs `maat-ladder standings FILE
--format csv` once and prints the file's size, the wall time, the CPU
time and the peak resident set (ru_maxrss of the child, from wait4).
The goal is at most 64 MiB resident for 1,000,000 games.  The file is
generated here, never committed.
"""
import argparse
import os
import random
import resource
import sys
import tempfile
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--build", default=os.path.join(root, "build"))
ap.add_argument("--games", type=int, default=1000000)
ap.add_argument("--bots", type=int, default=40)
ap.add_argument("--seats", type=int, default=4)
ap.add_argument("--keep", help="write (or reuse) the ladder file here")
a = ap.parse_args()
ladder_bin = os.path.join(a.build, "ladder", "maat-ladder")
if not os.access(ladder_bin, os.X_OK):
    sys.exit("bench_standings.py: no %s (ninja -C %s)" % (ladder_bin, a.build))


def generate(path, games, bots, seats):
    rng = random.Random(1)
    names = ["bot%02d" % i for i in range(bots)]
    kinds = ["timeout", "illegal", "malformed", "crash"]
    with open(path, "w") as f:
        for i in range(games):
            match, k = divmod(i, seats)
            lineup = rng.sample(names, seats)
            ranks = list(range(1, seats + 1))
            rng.shuffle(ranks)
            scores = [rng.randrange(20, 60) for _ in range(seats)]
            faults = ""
            if i % 10 == 0:
                faults = ('{"seat":%d,"kind":"%s","decision":%d,"detail":"no '
                          'answer within 1100 ms"}' % (rng.randrange(seats),
                                                       rng.choice(kinds), 17))
            logs = ",".join('"logs/m%d-%d-%s.log"' % (match, k, b) for b in lineup)
            f.write('{"v":1,"id":"m%d-%d","match":"m%d","time":"2026-%02d-%02dT%02d:%02d:%02dZ",'
                    '"game":"pyramids","rules_version":"pyramids-2","seed":"%064x",'
                    '"game_index":%d,"seats":%d,"bots":[%s],"ranks":[%s],"scores":[%s],'
                    '"out":[%s],"faults":[%s],"decisions":%d,"duration_ms":%d,'
                    '"record":"records/m%d-%d.json","logs":[%s]}\n'
                    % (match, k, match, 1 + i // 2600000 % 12, 1 + i // 86400 % 28,
                       i // 3600 % 24, i // 60 % 60, i % 60, rng.getrandbits(256), k,
                       seats, ",".join('"%s"' % b for b in lineup),
                       ",".join(map(str, ranks)), ",".join(map(str, scores)),
                       ",".join(["false"] * seats), faults, rng.randrange(100, 200),
                       rng.randrange(20, 90), match, k, logs))


with tempfile.TemporaryDirectory(prefix="maat-bench-standings-") as tmp:
    path = a.keep or os.path.join(tmp, "ladder.jsonl")
    if not (a.keep and os.path.exists(path)):
        t0 = time.monotonic()
        generate(path, a.games, a.bots, a.seats)
        print("generated %d games in %.1f s" % (a.games, time.monotonic() - t0))
    size = os.path.getsize(path)
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.execv(ladder_bin, [ladder_bin, "standings", path, "--format", "csv"])
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("maat-ladder standings failed: %d" % status)
    rss_mib = ru.ru_maxrss / 1024.0
    print("ladder file: %d games, %.1f MB (%d bytes a line)"
          % (a.games, size / 1e6, size // max(a.games, 1)))
    print("maat-ladder standings: %.2f s wall, %.2f s CPU, peak RSS %.1f MiB"
          % (wall, ru.ru_utime + ru.ru_stime, rss_mib))
    print("goal: <= 64 MiB resident: %s" % ("met" if rss_mib <= 64 else "MISSED"))
