#!/usr/bin/env python3
"""How often `maat-ladder compare` calls a bot broken (exit 3) when each of
its games has a fault with probability Q, independently: the rule of
ladder/faults.c (faults in at least 3 games and in more than --fault-share
of them), checked as ladder/compare.c checks it, after every wave of
--jobs blocks (2 games a side per block, 2 seats), up to BLOCKS blocks.
Usage: bench/fault_share_sim.py [--share S] [--jobs J] [--runs N] [--seed X]
                                BLOCKS Q..."""
import argparse, random

ap = argparse.ArgumentParser()
ap.add_argument("blocks", type=int)
ap.add_argument("q", type=float, nargs="+")
ap.add_argument("--share", type=float, default=0.05)
ap.add_argument("--jobs", type=int, default=2)
ap.add_argument("--runs", type=int, default=20000)
ap.add_argument("--seed", type=int, default=1)
a = ap.parse_args()
rng = random.Random(a.seed)
print(f"--fault-share {a.share}, --jobs {a.jobs}, {a.blocks} blocks, {a.runs} runs")
for q in a.q:
    broken = 0
    for _ in range(a.runs):
        games = faulty = 0
        for _ in range(0, a.blocks, a.jobs):
            for _ in range(2 * a.jobs):
                games += 1
                faulty += rng.random() < q
            if faulty >= 3 and faulty > a.share * games:
                broken += 1
                break
    print(f"fault rate {q:.3f} a game: called broken in {100 * broken / a.runs:.1f}% of runs")
