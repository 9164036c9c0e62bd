#!/usr/bin/env bash
# bench_series.sh -- CPU and wall time per decision of a whole maat-referee
# series between instant bots (maat-random, sandboxed as by default, the
# referee's idle priorities on), and the same for a second build run alternately with
# it: an A/B of the referee over ~65,000 decisions a run, the pairs
# alternating so that a slow minute hits both builds.
#
#   bench/bench_series.sh [--build DIR] [--base DIR] [--seats N]
#                         [--games G] [--pairs P] [--cpu N]
#                         [--arg ARG]... [--base-arg ARG]... [--bots-cpu]
#
# --build: the build measured (default build-bench, a release build:
# meson setup build-bench --buildtype=release); --base: a second build
# (e.g. one of main in another worktree), run before --build in each pair;
# --seats (default 5) and --games (default 400 at 5 seats; 1000 at 2);
# --pairs: runs of each build (default 3); --cpu N: pin the referee and
# everything it starts to CPU N (taskset), which removes the cross-core
# wake-ups that on this VM cost more than the work itself; --arg: one
# more argument for every referee run, --base-arg: for the base's runs
# only (--base-arg alone runs --build as the base too: e.g. --base-arg
# --ponder measures what the idle bots' priorities cost); --bots-cpu: also
# the bots' CPU a decision of their own, from the summary's cpu ms column
# (the referee then runs without --quiet, and reads each deciding bot's
# CPU clock twice a decision for it: its own numbers include those calls).
#
# CPU is the referee's user + system time as /usr/bin/time gives it
# (getrusage of the process and the children it waited for), divided by
# the decisions the ladder lines count.  With the sandbox (the default)
# that is the referee alone: the bots' CPU does not reach it (they end
# inside bubblewrap's PID namespace; compare the cpu ms column of
# maat-referee's summary).  With --no-sandbox it is the referee and the
# bots together.  Both builds play the same seeds (the pair's number), so
# they deal the same games; the bots' choices differ run to run (their
# seeds come from their tokens).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$root/build-bench"
base=
seats=5
games=
pairs=3
cpu=
args=()
base_args=()
bots_cpu=0
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$(cd "$2" && pwd); shift 2 ;;
        --base) base=$(cd "$2" && pwd); shift 2 ;;
        --seats) seats="$2"; shift 2 ;;
        --games) games="$2"; shift 2 ;;
        --pairs) pairs="$2"; shift 2 ;;
        --cpu) cpu="$2"; shift 2 ;;
        --arg) args+=("$2"); shift 2 ;;
        --base-arg) base_args+=("$2"); shift 2 ;;
        --bots-cpu) bots_cpu=1; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench_series.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
[ -n "$games" ] || games=$((seats <= 2 ? 1000 : 2000 / seats))
[ -x /usr/bin/time ] || { echo "bench_series.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
py=/usr/bin/python3
[ -x "$py" ] || py=python3
[ -z "$base" ] && [ ${#base_args[@]} -gt 0 ] && base=$build
builds=()
[ -n "$base" ] && builds+=("$base")
builds+=("$build")
for b in "${builds[@]}"; do
    for p in referee/maat-referee sample-bots/maat-random; do
        [ -x "$b/$p" ] || { echo "bench_series.sh: no $b/$p (ninja -C $b)" >&2; exit 1; }
    done
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/maat-bench-series-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pin=()
[ -n "$cpu" ] && pin=(taskset -c "$cpu")

echo "# bench_series: $seats seats, $games games a run, $pairs pair(s)${cpu:+, pinned to CPU $cpu}; load average $(cut -d' ' -f1-3 /proc/loadavg)"
[ -n "$base" ] && echo "# base:  $base ${base_args[*]-} ${args[*]-}"
echo "# build: $build ${args[*]-}"
quiet=(--quiet)
[ "$bots_cpu" = 1 ] && quiet=()
echo "# run    cpu_us/decision (user + sys)   wall_us/decision   decisions"
[ "$bots_cpu" = 1 ] && echo "#        (then: the bots' cpu_us a decision of their own)"
for i in $(seq "$pairs"); do
    for which in ${base:+base} build; do
        if [ "$which" = base ]; then
            b=$base extra=("${base_args[@]}" "${args[@]}")
        else
            b=$build extra=("${args[@]}")
        fi
        bots=()
        for k in $(seq "$seats"); do
            bots+=(--bot "r$k=$b/sample-bots/maat-random")
        done
        rm -f "$tmp/ladder" "$tmp/time"
        "${pin[@]}" /usr/bin/time -o "$tmp/time" -f "%U %S %e" \
            "$b/referee/maat-referee" "${quiet[@]}" --games "$games" --seed "$i" \
            --ladder "$tmp/ladder" "${extra[@]}" "${bots[@]}" >/dev/null 2>"$tmp/err" || {
            echo "bench_series.sh: the referee failed:" >&2
            cat "$tmp/err" >&2
            exit 1
        }
        d=$("$py" -c 'import json, sys
print(sum(json.loads(l)["decisions"] for l in open(sys.argv[1])))' "$tmp/ladder")
        read -r u s e < <(tail -1 "$tmp/time")
        bc=-1
        if [ "$bots_cpu" = 1 ]; then
            # the summary's rows: "maat-referee: rK decisions mean max cpu"
            bc=$("$py" -c 'import re, sys
d = c = 0
for l in open(sys.argv[1]):
    m = re.match(r"maat-referee: r\d+\s+(\d+)\s+\S+\s+\S+\s+(\S+)\s*$", l)
    if m:
        d += int(m.group(1)); c += float(m.group(2))
print("%.2f" % (c * 1000 / d) if d else -1)' "$tmp/err")
        fi
        read -r cpu_us user_us sys_us wall_us < <(awk -v u="$u" -v s="$s" \
            -v e="$e" -v d="$d" 'BEGIN { printf "%.2f %.2f %.2f %.2f\n",
            (u + s) * 1e6 / d, u * 1e6 / d, s * 1e6 / d, e * 1e6 / d }')
        printf "%-6s %6s (%5s + %5s)        %8s   %9d%s\n" "$which" "$cpu_us" \
            "$user_us" "$sys_us" "$wall_us" "$d" \
            "$([ "$bc" = -1 ] || printf '   %6s' "$bc")"
        echo "$which $cpu_us $wall_us $bc" >> "$tmp/rows"
    done
done
echo "# medians over the pairs"
for which in ${base:+base} build; do
    grep "^$which " "$tmp/rows" | "$py" -c 'import statistics, sys
rows = [l.split() for l in sys.stdin]
bots = ""
if float(rows[0][3]) >= 0:
    bots = "  bots %6.2f us" % statistics.median(float(r[3]) for r in rows)
print("%-6s cpu %6.2f us  wall %7.2f us%s  (%d runs)" % (sys.argv[1],
      statistics.median(float(r[1]) for r in rows),
      statistics.median(float(r[2]) for r in rows), bots, len(rows)))' "$which"
done
