#!/usr/bin/env python3
"""strength.py -- how much stronger is bot A than bot B?  A benchmark, not a test.

Plays seeded Pyramids games between two bots through the real referee and
prints A's win rate with a 95% confidence interval.

Duplicate format: every deal is played once from every seat.  For each deal
seed S one referee runs `maat-referee --games K --same-deal --fixed-seats
--seed S`, where K is the number of seats: the bots move one seat on per game,
so A plays each seat of that deal once.  `--jobs J` workers (default 2) each
run their own referee processes, one after the other, on a disjoint range of
deal seeds, each appending to its own ladder file (--ladder); at the end the
ladder lines are read back and counted.

  2 seats: A against B.  A game is won by the seat ranked 1 alone; a shared
           rank 1 is a tie and counts half.
  4 seats: A against three copies of B.  Reported: A's and B's average rank
           (1 = best) with a 95% interval, and A's win rate against the
           field (an equal bot would win 25%).

Examples (release build in build-bench/, see docs/STRENGTH.md):
  bench/strength.py --a build-bench/sample-bots/maat-greedy \\
                    --b build-bench/sample-bots/maat-random
  bench/strength.py --a 'build-bench/sample-bots/maat-mcts --budget-ms 100' \\
                    --b build-bench/sample-bots/maat-greedy --time 2000
  bench/strength.py --seats 4 --games 100 --a ... --b ...

Python 3 standard library only.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
Z95 = 1.959963984540054  # the 0.975 quantile of the standard normal


def wilson(successes, n, z=Z95):
    """Wilson score interval for a binomial proportion.

    E. B. Wilson, "Probable inference, the law of succession, and
    statistical inference", J. Amer. Statist. Assoc. 22 (1927) 209-212;
    see also Agresti & Coull, Amer. Statistician 52 (1998) 119-126.

        p = successes / n
        centre    = (p + z^2 / (2n)) / (1 + z^2 / n)
        halfwidth = z / (1 + z^2 / n) * sqrt(p (1 - p) / n + z^2 / (4 n^2))
        interval  = [centre - halfwidth, centre + halfwidth]

    `successes` may be fractional (ties counted as half a win): the interval
    is then the usual approximation for a win rate with draws.
    """
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_ci(xs, z=Z95, lo=-math.inf, hi=math.inf):
    """Mean and a normal-approximation 95% interval, mean +- z * s / sqrt(n)
    (s the sample standard deviation; fine for n >= ~30), clipped to the
    possible range [lo, hi]."""
    n = len(xs)
    if n == 0:
        return (float("nan"), float("nan"), float("nan"))
    m = sum(xs) / n
    if n == 1:
        return (m, float("nan"), float("nan"))
    s = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    h = z * s / math.sqrt(n)
    return (m, max(lo, m - h), min(hi, m + h))


def default_referee():
    for d in ("build-bench", "build"):
        p = os.path.join(ROOT, d, "referee", "maat-referee")
        if os.access(p, os.X_OK):
            return p
    return os.path.join(ROOT, "build", "referee", "maat-referee")


def parse_args(argv):
    ap = argparse.ArgumentParser(
        description="Win rate of bot A against bot B over seeded, "
        "seat-swapped Pyramids games played by maat-referee.")
    ap.add_argument("--a", required=True, metavar="CMD",
                    help="command of bot A (the one measured)")
    ap.add_argument("--b", required=True, metavar="CMD",
                    help="command of bot B (the yardstick)")
    ap.add_argument("--games", type=int, default=200,
                    help="games in all; a multiple of --seats (default 200)")
    ap.add_argument("--seats", type=int, choices=(2, 4), default=2,
                    help="2: A vs B; 4: A vs three copies of B (default 2)")
    ap.add_argument("--time", type=int, default=2000, metavar="MS",
                    help="referee per-decision limit; keep it well above the "
                    "bots' budgets (default 2000)")
    ap.add_argument("--seed", type=int, default=1,
                    help="first deal seed; deals use SEED, SEED+1, ... "
                    "(default 1)")
    ap.add_argument("--jobs", type=int, default=2,
                    help="referee processes at once (default 2)")
    ap.add_argument("--referee", default=default_referee(), metavar="PATH",
                    help="maat-referee binary (default: build-bench/, "
                    "else build/)")
    ap.add_argument("--out", metavar="DIR",
                    help="directory for the ladder files and referee logs "
                    "(default: a new temporary directory)")
    ap.add_argument("--referee-arg", action="append", default=[],
                    metavar="ARG", help="extra argument for every referee "
                    "(repeat), e.g. --referee-arg=--log-dir=...")
    ap.add_argument("--quiet", action="store_true",
                    help="no progress on stderr")
    a = ap.parse_args(argv)
    if a.games <= 0 or a.games % a.seats:
        ap.error("--games must be a positive multiple of --seats "
                 "(every deal is played once from every seat)")
    if a.jobs < 1:
        ap.error("--jobs must be at least 1")
    if a.time <= 0:
        ap.error("--time must be positive")
    if not os.access(a.referee, os.X_OK):
        ap.error("no referee at %s (build it, or pass --referee)" % a.referee)
    return a


def bot_names(seats):
    return ["a"] + (["b"] if seats == 2 else ["b1", "b2", "b3"])


def referee_cmd(args, seed, ladder):
    cmd = [args.referee, "--games", str(args.seats), "--same-deal",
           "--fixed-seats", "--seed", str(seed), "--time", str(args.time),
           "--ladder", ladder, "--quiet"]
    for name in bot_names(args.seats):
        cmd += ["--bot", "%s=%s" % (name, args.a if name == "a" else args.b)]
    return cmd + args.referee_arg


class Progress:
    def __init__(self, total, quiet):
        self.total, self.done, self.failed = total, 0, []
        self.quiet = quiet
        self.lock = threading.Lock()
        self.t0 = time.monotonic()

    def deal_done(self, seed, rc):
        with self.lock:
            self.done += 1
            if rc != 0:
                self.failed.append((seed, rc))
            if not self.quiet:
                el = time.monotonic() - self.t0
                eta = el / self.done * (self.total - self.done)
                sys.stderr.write("\rstrength: %d/%d deals, %.0f s, ~%.0f s "
                                 "left " % (self.done, self.total, el, eta))
                if self.done == self.total:
                    sys.stderr.write("\n")
                sys.stderr.flush()


def worker(args, seeds, ladder, log, progress):
    with open(log, "a") as lf:
        for seed in seeds:
            cmd = referee_cmd(args, seed, ladder)
            lf.write("$ %s\n" % " ".join(cmd))
            lf.flush()
            rc = subprocess.run(cmd, stdout=lf, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL).returncode
            if rc != 0:
                lf.write("exit %d\n" % rc)
                lf.flush()
            progress.deal_done(seed, rc)


def run(args):
    out = args.out or tempfile.mkdtemp(prefix="maat-strength-")
    os.makedirs(out, exist_ok=True)
    deals = [args.seed + k for k in range(args.games // args.seats)]
    jobs = min(args.jobs, len(deals))
    # contiguous, disjoint seed ranges, one per job
    per = -(-len(deals) // jobs)
    chunks = [deals[j * per:(j + 1) * per] for j in range(jobs)]
    ladders = []
    progress = Progress(len(deals), args.quiet)
    threads = []
    for j, chunk in enumerate(chunks):
        ladder = os.path.join(out, "ladder-%d.jsonl" % j)
        if os.path.exists(ladder):
            os.remove(ladder)  # count only this run's games
        ladders.append(ladder)
        t = threading.Thread(target=worker, args=(
            args, chunk, ladder, os.path.join(out, "referee-%d.log" % j),
            progress))
        t.start()
        threads.append(t)
    for t in threads:
        t.join()
    elapsed = time.monotonic() - progress.t0
    lines = []
    for ladder in ladders:
        if not os.path.exists(ladder):
            continue
        with open(ladder) as f:
            for ln in f:
                ln = ln.strip()
                if not ln:
                    continue
                try:
                    lines.append(json.loads(ln))
                except ValueError:
                    sys.stderr.write("strength: skipping a torn ladder line "
                                     "in %s\n" % ladder)
    return out, lines, progress.failed, elapsed


def report(args, out, lines, failed, elapsed):
    names = bot_names(args.seats)
    n = len(lines)
    a_win = b_win = ties = 0
    a_rank, b_rank, a_score, b_score, margin = [], [], [], [], []
    fault_games, out_seats = 0, {"a": 0, "b": 0}
    deal = {}  # seed -> A's points in that deal (win 1, tie 0.5)
    for g in lines:
        bots, ranks, scores = g["bots"], g["ranks"], g["scores"]
        ia = bots.index("a")
        ib = [i for i, x in enumerate(bots) if x != "a"]
        firsts = [i for i, r in enumerate(ranks) if r == 1]
        if firsts == [ia]:
            a_win += 1
            pts = 1.0
        elif ia in firsts:
            ties += 1
            pts = 0.5
        else:
            b_win += 1
            pts = 0.0
        deal.setdefault(g["seed"], []).append(pts)
        a_rank.append(ranks[ia])
        b_rank.append(sum(ranks[i] for i in ib) / len(ib))
        a_score.append(scores[ia])
        b_score.append(sum(scores[i] for i in ib) / len(ib))
        margin.append(scores[ia] - max(scores[i] for i in ib))
        if g.get("faults"):
            fault_games += 1
        for i, o in enumerate(g.get("out", [])):
            if o:
                out_seats["a" if i == ia else "b"] += 1

    print("# maat strength -- %s" % time.strftime("%Y-%m-%d %H:%M:%S"))
    print("# A: %s" % args.a)
    print("# B: %s%s" % (args.b, "" if args.seats == 2 else "  (x3)"))
    print("# %d seats, seeds %d..%d (%d deals x %d seats), --time %d ms, "
          "%d jobs" % (args.seats, args.seed,
                       args.seed + args.games // args.seats - 1,
                       args.games // args.seats, args.seats, args.time,
                       args.jobs))
    print("# ladder files and referee logs: %s" % out)
    print("games            %d of %d" % (n, args.games))
    print("A wins           %d" % a_win)
    print("B wins           %d%s" % (b_win, "" if args.seats == 2
                                     else "  (a copy of B ranked 1st)"))
    print("ties             %d  (shared rank 1)" % ties)
    if n:
        pts = a_win + ties / 2
        lo, hi = wilson(pts, n)
        even = "" if args.seats == 2 else "  (an equal bot: 25%)"
        print("A win rate       %.1f%%  95%% CI [%.1f%%, %.1f%%]  "
              "(ties = half; Wilson)%s" % (100 * pts / n, 100 * lo, 100 * hi,
                                          even))
        if args.seats == 2:
            sweeps = sum(1 for v in deal.values() if sum(v) == len(v))
            lost = sum(1 for v in deal.values() if sum(v) == 0)
            print("deals            %d: A won both seats %d, B both %d, "
                  "split %d" % (len(deal), sweeps, lost,
                                len(deal) - sweeps - lost))
        else:
            m, lo, hi = mean_ci(a_rank, lo=1, hi=args.seats)
            print("A mean rank      %.2f  95%% CI [%.2f, %.2f]  (1 = best; "
                  "an equal bot: 2.5)" % (m, lo, hi))
            m, lo, hi = mean_ci(b_rank, lo=1, hi=args.seats)
            print("B mean rank      %.2f  95%% CI [%.2f, %.2f]  (mean of the "
                  "3 copies per game)" % (m, lo, hi))
        m, lo, hi = mean_ci(a_score)
        print("A mean score     %.1f  95%% CI [%.1f, %.1f]" % (m, lo, hi))
        m, lo, hi = mean_ci(b_score)
        print("B mean score     %.1f  95%% CI [%.1f, %.1f]%s" % (
            m, lo, hi, "" if args.seats == 2 else "  (per copy)"))
        m, lo, hi = mean_ci(margin)
        print("A margin         %+.1f  95%% CI [%+.1f, %+.1f]  (A's score "
              "minus the best B's)" % (m, lo, hi))
    print("faults           %d games with faults; seats out: A %d, B %d"
          % (fault_games, out_seats["a"], out_seats["b"]))
    if failed:
        print("referee failures %d deals: %s (see %s/referee-*.log)" % (
            len(failed), ", ".join("seed %d exit %d" % f for f in failed[:10]),
            out))
    print("elapsed          %.1f s  (%.2f s per game per job)" % (
        elapsed, elapsed * args.jobs / n if n else float("nan")))
    return 0 if n == args.games and not failed else 1


def main(argv):
    args = parse_args(argv)
    out, lines, failed, elapsed = run(args)
    return report(args, out, lines, failed, elapsed)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
