#!/usr/bin/env python3
"""test_sample_bots.py -- the C sample bots play whole matches.

Each sample bot -- maat-random, maat-greedy and maat-mcts (with
--iterations 50, so its play does not depend on the machine's speed) --
plays 2-, 3-, 4- and 5-seat Pyramids series of two games (seats rotate)
through maat-referee, in mixes of the three.  For every match: the referee
exits 0; for every game record: no faults, nobody out, every decision made
"by": "bot" (never by the default policy), every bot of the mix made
decisions, and `maat-referee --verify` replays the record.  The clock is
generous (--time 10000) so slow machines do not time out; the whole run
takes well under two minutes.

Environment: MAAT_REFEREE, MAAT_RANDOM, MAAT_GREEDY, MAAT_MCTS (paths of
the programs; set by tests/meson.build).  Also: no bot log (--log-dir)
reports a failed determinization (maat_bot_sample).
"""
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL: " + what)


# (seed, the bots of the match in seat order of game 0)
MATCHES = [
    (101, ["mcts", "random"]),
    (102, ["greedy", "mcts"]),
    (103, ["random", "greedy"]),
    (104, ["random", "greedy", "mcts"]),
    (105, ["mcts", "greedy", "random", "mcts"]),
    (106, ["random", "greedy", "mcts", "random", "greedy"]),
    (107, ["mcts", "mcts"]),
    (108, ["greedy", "greedy", "greedy"]),
    (109, ["greedy", "random", "mcts", "greedy"]),
    (110, ["mcts", "mcts", "mcts", "mcts", "mcts"]),
]
GAMES = 2


def main():
    env = {k: os.environ.get("MAAT_" + k.upper())
           for k in ("referee", "random", "greedy", "mcts")}
    missing = [k for k, v in env.items() if not v]
    if missing:
        print("set " + ", ".join("MAAT_" + k.upper() for k in missing))
        return 1
    referee = env["referee"]
    commands = {"random": env["random"], "greedy": env["greedy"],
                "mcts": env["mcts"] + " --iterations 50"}
    seen = {b: set() for b in commands}  # seat counts each bot played

    start = time.time()
    with tempfile.TemporaryDirectory(prefix="maat-samplebots-") as tmp:
        for seed, bots in MATCHES:
            seats = len(bots)
            names = ["%s%d" % (b, i) for i, b in enumerate(bots)]
            tag = "%d-seat %s (seed %d)" % (seats, "/".join(bots), seed)
            rec = os.path.join(tmp, "rec%d.json" % seed)
            logs = os.path.join(tmp, "logs%d" % seed)
            cmd = [referee, "--seed", str(seed), "--games", str(GAMES),
                   "--record", rec, "--time", "10000",
                   "--first-time", "10000", "--log-dir", logs, "--quiet"]
            for name, bot in zip(names, bots):
                cmd += ["--bot", "%s=%s" % (name, commands[bot])]
            before = failures
            t0 = time.time()
            try:
                r = subprocess.run(cmd, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, timeout=300,
                                   universal_newlines=True)
            except subprocess.TimeoutExpired:
                check(False, "%s: the referee did not finish in 300 s" % tag)
                continue
            check(r.returncode == 0, "%s: referee exit %d\n%s"
                  % (tag, r.returncode, r.stdout))
            paths = sorted(glob.glob(os.path.join(tmp, "rec%d-*.json"
                                                  % seed)))
            if not paths and os.path.exists(rec):
                paths = [rec]
            check(len(paths) == GAMES, "%s: %d records, want %d: %s"
                  % (tag, len(paths), GAMES, os.listdir(tmp)))
            for path in paths:
                what = "%s %s" % (tag, os.path.basename(path))
                with open(path) as f:
                    record = json.load(f)
                check(record["faults"] == [],
                      "%s: faults %s" % (what, record["faults"][:5]))
                check(not any(x["out"] for x in record["result"]),
                      what + ": a seat is out")
                check(len(record["seats"]) == seats,
                      "%s: %d seats" % (what, len(record["seats"])))
                by_other = [d for d in record["decisions"]
                            if d["by"] != "bot"]
                check(not by_other, "%s: %d decisions not by the bot, e.g. "
                      "%s" % (what, len(by_other), by_other[:3]))
                decided = {d["seat"] for d in record["decisions"]}
                check(decided == set(range(seats)),
                      "%s: seats that decided: %s" % (what, sorted(decided)))
                for s in record["seats"]:
                    bot = s["bot"].rstrip("0123456789")
                    if bot in seen and s["seat"] in decided:
                        seen[bot].add(seats)
                v = subprocess.run([referee, "--verify", path],
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, timeout=60,
                                   universal_newlines=True)
                check(v.returncode == 0, "%s: --verify exit %d\n%s"
                      % (what, v.returncode, v.stdout))
            # the SDK reports a failed determinization on stderr
            for log in sorted(glob.glob(os.path.join(logs, "*"))):
                with open(log, errors="replace") as f:
                    text = f.read()
                check("maat_bot_sample" not in text,
                      "%s: %s: a sample failed" % (tag,
                                                   os.path.basename(log)))
                if failures != before and text.strip():
                    print("--- %s\n%s" % (os.path.basename(log),
                                         text.strip()[-2000:]))
            print("%s: %s (%.1f s)" % (tag, "ok" if failures == before
                                       else "FAILED", time.time() - t0))
    for bot, counts in sorted(seen.items()):
        check(counts == {2, 3, 4, 5}, "%s played %s seats, want 2..5"
              % (bot, sorted(counts)))
    print("%d failure(s) in %.1f s" % (failures, time.time() - start))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
