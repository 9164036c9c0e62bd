#!/usr/bin/env bash
# run-all.sh -- build a release build in build-bench/ and run every
# benchmark in it, printing their tables.  Speed goals are checked here, by
# a person reading the numbers against docs/PERFORMANCE.md, never by tests.
#
#   bench/run-all.sh [--seconds S]     (S is passed to every bench program)
#
# Run it from anywhere; it works in the source tree it lives in.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$root/build-bench"
seconds=""
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds)
            [ $# -ge 2 ] || { echo "run-all.sh: --seconds needs a value" >&2; exit 2; }
            seconds="$2"; shift 2 ;;
        -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "run-all.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
sec_args=()
[ -n "$seconds" ] && sec_args=(--seconds "$seconds")

# The bench programs, as ninja targets (path in the build dir).  Add new
# ones here and run them below.
benches=(bench/bench-rules)
# ... and the referee's benchmarks (docs/PERFORMANCE.md, referee overhead,
# match throughput, memory), with the programs they run.
benches+=(bench/bench-pingpong bench/bench-decision referee/maat-referee
          ladder/maat-ladder sample-bots/maat-random sample-bots/maat-mcts
          tests/maat-spy-bot bench/maat-busy-bot)

if [ ! -d "$build" ]; then
    meson setup "$build" "$root" --buildtype=release
fi
# Only what the benchmarks need (the library and the bench programs), so an
# unrelated part of the tree that does not build yet does not stop us.
if ! log=$(ninja -C "$build" "${benches[@]}" 2>&1); then
    printf '%s\n' "$log" | tail -n 30 >&2
    echo "run-all.sh: the release build in $build failed (above)" >&2
    exit 1
fi

echo "# maat benchmarks -- $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "# $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "# build: $build ($(meson introspect --buildoptions "$build" 2>/dev/null \
    | python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="buildtype"))' 2>/dev/null || echo '?'))"
echo

# --- the rules engine: random full games, one core ----------------------
"$build/bench/bench-rules" "${sec_args[@]}"
echo

# --- the physical limit: raw ZeroMQ round trips, ipc and tcp ------------
# (request and action sizes: the means bench-decision measures, 2 seats)
"$build/bench/bench-pingpong" --req-bytes 793 --act-bytes 52
echo

# --- the referee's cost per decision vs raw ZeroMQ, interleaved ----------
"$build/bench/bench-decision" --seats 2
echo
"$build/bench/bench-decision" --seats 4
echo

# --- match throughput: series, spawned per game, maat-ladder --jobs 1/2 --
"$root/bench/bench_throughput.sh" --build "$build"
echo
# the same ladder with bots that think (~4 ms a decision, a fixed amount)
"$root/bench/bench_throughput.sh" --build "$build" --ladder-only \
    --matches 30 --bot "$build/sample-bots/maat-mcts --iterations 400"
echo

# --- a sandboxed bot start: bubblewrap's options, one ladder match ------
# (exits 77 where bubblewrap does not work)
python3 "$root/bench/bench_sandbox.py" --build "$build" || [ $? = 77 ]
echo

# --- memory: referee peak RSS, per concurrent match -----------------------
"$root/bench/bench_memory.sh" --build "$build"
echo

# --- standings of a 1,000,000-game ladder file: time and peak RSS -------
python3 "$root/bench/bench_standings.py" --build "$build"
echo

# --- instructions per decision on each side vs raw ZeroMQ, 2-5 seats ------
# (callgrind: the numbers to trust on a loaded machine; needs valgrind)
if command -v valgrind >/dev/null; then
    "$root/bench/bench_callgrind.sh" --build "$build"
    echo
fi

# --- fairness under load: timeouts against bots whose own clock was in time
# (a short run; docs/PERFORMANCE.md says how to run the issue's 10,000)
python3 "$root/bench/bench_fairness.py" --build "$build" --games 40
echo

# --- add further bench programs here (and to benches=() above)
