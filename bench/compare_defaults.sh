#!/usr/bin/env bash
# How many blocks `maat-ladder compare` needs to give an unchanged bot a
# verdict, measured on the shipped sample bots (docs/CI.md, "Choosing the
# defaults", quotes its output).  Usage:
#   bench/compare_defaults.sh [BUILD] [MATCHES] [REPEATS]
# (defaults: build, 1000, 10).  Takes about 10 minutes on 2 cores.
#
# 1. Block scores: MATCHES duplicate matches (maat-ladder run: one deal,
#    both seats) of each sample bot against itself -- random, greedy, and
#    mcts at a fixed 300 iterations -- named candidate and baseline.
# 2. The test simulated (bench-sprt-sim, 2000 runs, the distribution tilted
#    to the true difference): the old defaults (elo0 -20) and the new
#    (elo0 -40); an unchanged candidate, one at elo0 / 2 and one at elo0.
# 3. Real runs: maat-ladder compare with its defaults, REPEATS times per
#    sample bot against itself (mcts: half as many), each with its own
#    deals: the verdict and the blocks it took.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build} matches=${2:-1000} repeats=${3:-10}
ladder=$build/ladder/maat-ladder sim=$build/bench/bench-sprt-sim
bots=$build/sample-bots
for f in "$ladder" "$sim" "$build/referee/maat-referee"; do
  [ -x "$f" ] || { echo "compare_defaults.sh: $f missing: ninja -C $build" >&2; exit 2; }
done
work=$(mktemp -d /tmp/maat-compare-defaults-XXXXXX)
trap 'rm -rf "$work"' EXIT
declare -A cmd=([random]="$PWD/$bots/maat-random" [greedy]="$PWD/$bots/maat-greedy"
                [mcts]="$PWD/$bots/maat-mcts --iterations 300")

echo "== 1. block scores of each sample bot against itself ($matches blocks)"
for b in random greedy mcts; do
  cat >"$work/$b.json" <<EOF
{"name": "$b", "game": "pyramids", "seats": 2, "matches": $matches, "jobs": 2,
 "ladder": "$work/$b.jsonl", "referee": "$PWD/$build/referee/maat-referee",
 "bots": [{"name": "candidate", "command": "${cmd[$b]}"},
          {"name": "baseline", "command": "${cmd[$b]}"}]}
EOF
  start=$(date +%s)
  "$ladder" run "$work/$b.json" --quiet
  echo "$b: $matches blocks in $(( $(date +%s) - start )) s"
done

echo
echo "== 2. the test simulated on those block scores"
for b in random greedy mcts; do
  echo "-- $b: the measured block scores (share of blocks at 0, 1/4, ..., 1)"
  "$sim" --ladder "$work/$b.jsonl" --bot candidate --runs 1 --caps 1 | sed -n 2,3p
  for elo0 in -20 -40; do
    for truth in 0 $(( elo0 / 2 )) "$elo0"; do
      echo "-- $b, elo0 $elo0 elo1 0 alpha 0.05 beta 0.05, true difference $truth"
      "$sim" --ladder "$work/$b.jsonl" --bot candidate --tilt "$truth" \
        --elo0 "$elo0" --elo1 0 --caps 200,400,600,800,1600,100000 | tail -7
    done
  done
done

echo
echo "== 3. maat-ladder compare with its defaults, each bot against itself"
for b in random greedy mcts; do
  n=$repeats
  [ "$b" = mcts ] && n=$(( (repeats + 1) / 2 ))
  for r in $(seq 1 "$n"); do
    start=$(date +%s)
    set +e
    out=$("$ladder" compare --candidate "${cmd[$b]}" --baseline "${cmd[$b]}" \
          --seed $(( r * 100000 )) --quiet)
    rc=$?
    set -e
    blocks=$(sed -n 's/^blocks: \([0-9]*\).*/\1/p' <<<"$out")
    echo "$b run $r: exit $rc after $blocks blocks, $(( $(date +%s) - start )) s: $(tail -1 <<<"$out")"
  done
done
