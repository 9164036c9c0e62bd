#!/usr/bin/env bash
# bench_throughput.sh -- Pyramids games per second through maat-referee.
#
#   bench/bench_throughput.sh [--build DIR] [--games N] [--matches M]
#                             [--repeat R] [--bot CMD] [--ladder-only]
#                             [--pin] [--no-sandbox] [--seconds S]
#                             [--referee-arg ARG]...
#
# By default the bots answer at once (sample-bots/maat-random), so the
# numbers are the referee's and the transport's, not the bots'; --bot CMD
# plays every seat with CMD instead (e.g. "build-bench/sample-bots/maat-mcts
# --iterations 100", a bot that thinks).  Measured, each R times (the
# median is printed last):
#   series   2 and 4 seats: one `maat-referee --games N` (bots spawned once)
#   spawned  2 and 4 seats: N/4 separate `maat-referee` runs of one game
#            (bots spawned for every game)
#   ladder   `maat-ladder run` of M duplicate 2-seat matches (2 games each,
#            one referee per match) with --jobs 1 and --jobs 2
# --ladder-only skips the first two.  --pin measures the ladder a second
# time with `maat-ladder run --pin` (each match on one CPU).  --no-sandbox:
# the ladder's referees run the bots without bubblewrap (referee_args),
# to see what the sandbox costs; --referee-arg ARG (repeatable) gives the
# ladder's referees one more word (--referee-arg --limit-mem
# --referee-arg 256: what the bots' memory cgroups cost).  Wall time from `date`, CPU (user+sys
# of the whole process tree) from /usr/bin/time when it exists.  --seconds
# is accepted for run-all.sh and ignored.  Defaults: build-bench, N 200,
# M 60, R 3.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$root/build-bench"
games=200
matches=60
repeat=3
bot=""
ladder_only=0
pin=0
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$(cd "$2" && pwd); shift 2 ;;
        --games) games="$2"; shift 2 ;;
        --matches) matches="$2"; shift 2 ;;
        --repeat) repeat="$2"; shift 2 ;;
        --bot) bot="$2"; shift 2 ;;
        --ladder-only) ladder_only=1; shift ;;
        --pin) pin=1; shift ;;
        --no-sandbox) extra+=(--no-sandbox); shift ;;
        --referee-arg) extra+=("$2"); shift 2 ;;
        --seconds) shift 2 ;;
        -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench_throughput.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
# the ladder's referee_args, as JSON (plain option words: no quoting)
referee_args="[$(printf '"%s",' "${extra[@]}" | sed 's/,$//')]"
[ ${#extra[@]} -gt 0 ] || referee_args='[]'
ref="$build/referee/maat-referee"
lad="$build/ladder/maat-ladder"
[ -n "$bot" ] || bot="$build/sample-bots/maat-random"
for p in "$ref" "$lad" "${bot%% *}"; do
    [ -x "$p" ] || { echo "bench_throughput.sh: no $p (ninja -C $build)" >&2; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/maat-bench-tp-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
timer=()
[ -x /usr/bin/time ] && timer=(/usr/bin/time -f "%U %S" -o "$tmp/cpu")

now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }
# CPU seconds (user + sys) of the last timed command, or ?
cpu_s() { if [ -s "$tmp/cpu" ]; then awk '{printf "%.2f", $1 + $2}' "$tmp/cpu"; else echo "?"; fi; }
# CPU milliseconds per game
cpu_per() { if [ "$1" = "?" ]; then echo "?"; else calc "1000 * $1 / $2" | xargs printf "%.2f"; fi; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

bots=()
set_bots() { # SEATS: bots=(--bot r0=BOT --bot r1=BOT ...)
    local i
    bots=()
    for ((i = 0; i < $1; i++)); do bots+=(--bot "r$i=$bot"); done
}

echo "# bench_throughput: Pyramids games/s, every seat: $bot"
echo "# $(nproc) cores; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-8s %5s %6s %8s %9s %8s %10s  %s\n" kind seats games wall_s games/s cpu_s cpu_ms/game command

# --- series: the bots stay up ------------------------------------------
for seats in 2 4; do
    [ "$ladder_only" = 1 ] && break
    rates=()
    for ((r = 0; r < repeat; r++)); do
        set_bots "$seats"
        cmd=("$ref" --quiet --games "$games" --seed 1 "${bots[@]}")
        rm -f "$tmp/cpu"
        t0=$(now)
        "${timer[@]}" "${cmd[@]}"
        t1=$(now)
        wall=$(calc "$t1 - $t0")
        rate=$(calc "$games / $wall")
        cpu=$(cpu_s)
        cpg=$(cpu_per "$cpu" "$games")
        rates+=("$rate")
        printf "%-8s %5d %6d %8.2f %9.1f %8s %10s  %s\n" series "$seats" \
            "$games" "$wall" "$rate" "$cpu" "$cpg" \
            "maat-referee --quiet --games $games --seed 1 + $seats x --bot rK=$(basename "${bot%% *}")"
    done
    printf "%-8s %5d %6s %8s %9.1f   (median of %d)\n" series "$seats" "" "" \
        "$(printf '%s\n' "${rates[@]}" | median)" "$repeat"
done

# --- spawned: one referee (and new bots) per game ------------------------
n_spawn=$(( games / 4 > 0 ? games / 4 : 1 ))
for seats in 2 4; do
    [ "$ladder_only" = 1 ] && break
    rates=()
    for ((r = 0; r < repeat; r++)); do
        rm -f "$tmp/cpu"
        t0=$(now)
        set_bots "$seats"
        # shellcheck disable=SC2016
        "${timer[@]}" bash -c 'ref=$1; n=$2; shift 2
            for ((i = 1; i <= n; i++)); do "$ref" --quiet --seed "$i" "$@"; done' \
            _ "$ref" "$n_spawn" "${bots[@]}"
        t1=$(now)
        wall=$(calc "$t1 - $t0")
        rate=$(calc "$n_spawn / $wall")
        cpu=$(cpu_s)
        cpg=$(cpu_per "$cpu" "$n_spawn")
        rates+=("$rate")
        printf "%-8s %5d %6d %8.2f %9.1f %8s %10s  %s\n" spawned "$seats" \
            "$n_spawn" "$wall" "$rate" "$cpu" "$cpg" \
            "for i in 1..$n_spawn: maat-referee --quiet --seed \$i + $seats x --bot rK=$(basename "${bot%% *}")"
    done
    printf "%-8s %5d %6s %8s %9.1f   (median of %d)\n" spawned "$seats" "" "" \
        "$(printf '%s\n' "${rates[@]}" | median)" "$repeat"
done

# --- ladder: maat-ladder run --jobs 1 vs --jobs 2 ------------------------
cat > "$tmp/t.json" <<EOF
{
  "name": "bench",
  "game": "pyramids",
  "seats": 2,
  "matches": $matches,
  "format": "round-robin",
  "duplicate": true,
  "seed": 1,
  "ladder": "$tmp/ladder.jsonl",
  "referee_args": $referee_args,
  "bots": [
    {"name": "r1", "command": "$bot"},
    {"name": "r2", "command": "$bot"},
    {"name": "r3", "command": "$bot"},
    {"name": "r4", "command": "$bot"}
  ]
}
EOF
pin_modes=("")
[ "$pin" = 1 ] && pin_modes+=("--pin")
for pm in "${pin_modes[@]}"; do
declare -A lrate
for jobs in 1 2; do
    rates=()
    for ((r = 0; r < repeat; r++)); do
        rm -f "$tmp/ladder.jsonl" "$tmp/cpu"
        t0=$(now)
        # shellcheck disable=SC2086
        "${timer[@]}" "$lad" run "$tmp/t.json" --jobs "$jobs" --quiet $pm 2>/dev/null
        t1=$(now)
        wall=$(calc "$t1 - $t0")
        played=$(wc -l < "$tmp/ladder.jsonl")
        rate=$(calc "$played / $wall")
        cpu=$(cpu_s)
        cpg=$(cpu_per "$cpu" "$played")
        rates+=("$rate")
        printf "%-8s %5d %6d %8.2f %9.1f %8s %10s  %s\n" "ladder-j$jobs${pm:+p}" 2 \
            "$played" "$wall" "$rate" "$cpu" "$cpg" \
            "maat-ladder run t.json --jobs $jobs --quiet${pm:+ $pm} ($matches duplicate 2-seat matches, 4 x $(basename "${bot%% *}"))"
    done
    lrate[$jobs]=$(printf '%s\n' "${rates[@]}" | median)
    printf "%-8s %5d %6s %8s %9.1f   (median of %d)\n" "ladder-j$jobs${pm:+p}" 2 "" "" \
        "${lrate[$jobs]}" "$repeat"
done
printf "ladder speed-up --jobs 2 / --jobs 1%s: %.2fx (goal >= 1.8x on 2 idle cores)\n" \
    "${pm:+ (both $pm)}" "$(calc "${lrate[2]} / ${lrate[1]}")"
done
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
