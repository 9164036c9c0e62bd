#!/usr/bin/env bash
# bench_memory.sh -- how much memory a referee takes, alone and side by side.
#
#   bench/bench_memory.sh [--build DIR] [--games N] [--concurrent "1 4 8"]
#                         [--seconds S]
#
# 1. One match (2 and 4 seats, a series of N games between maat-random
#    bots): the referee's peak RSS, read as VmHWM from /proc/PID/status
#    (polled until it exits; /usr/bin/time -v would report the largest of
#    the referee and its bots, which are its children), with its RssAnon /
#    RssFile split and thread count.
# 2. What the referee's memory is: its mappings grouped by what backs them
#    (libzmq, libc, ... heap, thread stacks), RSS and PSS, sampled mid-match.
# 3. k matches at once (2 seats each): every referee's RSS, PSS (shared
#    pages divided among the processes sharing them) and private memory
#    (what one more match adds), summed and divided by k; plus the bots'
#    PSS per match for comparison.
# --seconds is accepted for run-all.sh and ignored.
# Defaults: build-bench, N 200, k in 1 4 8 16.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$root/build-bench"
games=200
ks="1 4 8 16"
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$(cd "$2" && pwd); shift 2 ;;
        --games) games="$2"; shift 2 ;;
        --concurrent) ks="$2"; shift 2 ;;
        --seconds) shift 2 ;;
        -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench_memory.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
ref="$build/referee/maat-referee"
bot="$build/sample-bots/maat-random"
for p in "$ref" "$bot"; do
    [ -x "$p" ] || { echo "bench_memory.sh: no $p (ninja -C $build)" >&2; exit 1; }
done

bots=()
set_bots() { # SEATS: bots=(--bot r0=BOT --bot r1=BOT ...)
    local i
    bots=()
    for ((i = 0; i < $1; i++)); do bots+=(--bot "r$i=$bot"); done
}
status_kb() { # PID FIELD -> kB from /proc/PID/status (empty once gone)
    awk -v f="$2:" '$1 == f {print $2}' "/proc/$1/status" 2>/dev/null || true
}
rollup_kb() { # PID FIELD -> kB from /proc/PID/smaps_rollup
    awk -v f="$2:" '$1 == f {print $2}' "/proc/$1/smaps_rollup" 2>/dev/null || true
}

echo "# bench_memory: maat-referee memory, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

# --- 1. one match: peak RSS ----------------------------------------------
echo
echo "## one match: referee peak RSS (VmHWM polled every 2 ms until exit)"
printf "%5s %6s %9s %9s %9s %7s  %s\n" seats games VmHWM_kB RssAnon RssFile threads command
for seats in 2 4; do
    set_bots "$seats"
    "$ref" --quiet --games "$games" --seed 1 "${bots[@]}" &
    pid=$!
    hwm=0 anon=0 file=0 thr=0
    while kill -0 "$pid" 2>/dev/null; do
        h=$(status_kb "$pid" VmHWM)
        if [ -n "$h" ] && [ "$h" -ge "$hwm" ]; then
            a=$(status_kb "$pid" RssAnon); f=$(status_kb "$pid" RssFile)
            t=$(awk '$1 == "Threads:" {print $2}' "/proc/$pid/status" 2>/dev/null || true)
            if [ -n "$a" ] && [ -n "$f" ]; then
                hwm=$h anon=$a file=$f
            fi
            if [ -n "$t" ] && [ "$t" -gt "$thr" ]; then thr=$t; fi
        fi
        sleep 0.002
    done
    wait "$pid"
    printf "%5d %6d %9d %9d %9d %7d  %s\n" "$seats" "$games" "$hwm" "$anon" "$file" "$thr" \
        "maat-referee --quiet --games $games --seed 1 + $seats x --bot rK=maat-random"
done
if [ -x /usr/bin/time ]; then
    set_bots 2
    /usr/bin/time -f "%M" -o /tmp/maat-bench-mem.$$ "$ref" --quiet --games 20 --seed 1 "${bots[@]}"
    echo "(/usr/bin/time -v 'Maximum resident set size' of a 20-game 2-seat run: $(cat /tmp/maat-bench-mem.$$) kB;"
    echo " that is the largest of the referee and its reaped bots, not the referee alone)"
    rm -f /tmp/maat-bench-mem.$$
fi

# --- 2. what the memory is -------------------------------------------------
echo
echo "## one referee's mappings mid-match (2 seats), grouped; kB"
set_bots 2
"$ref" --quiet --games "$((games * 4))" --seed 1 "${bots[@]}" 2>/dev/null &
pid=$!
sleep 1
if [ -r "/proc/$pid/smaps" ]; then
    awk '
        /^[0-9a-f]+-[0-9a-f]+ / {
            name = (NF >= 6) ? $6 : "[anon]"
            if (name ~ /libzmq/) g = "libzmq"
            else if (name ~ /libstdc\+\+/) g = "libstdc++"
            else if (name ~ /libc\.so/) g = "libc"
            else if (name ~ /libmaat/) g = "libmaat (rules, sdk)"
            else if (name ~ /msgpack/) g = "libmsgpackc"
            else if (name ~ /jansson/) g = "libjansson"
            else if (name ~ /maat-referee/) g = "maat-referee binary"
            else if (name == "[heap]") g = "[heap] (main malloc arena)"
            else if (name == "[stack]") g = "[stack] (main thread)"
            else if (name == "[anon]") g = "anonymous (thread stacks, thread arenas, mmaps)"
            else if (name ~ /^\//) g = "other shared libraries"
            else g = name
            next
        }
        $1 == "Rss:" { rss[g] += $2; trss += $2 }
        $1 == "Pss:" { pss[g] += $2; tpss += $2 }
        $1 == "Private_Dirty:" { pd[g] += $2; tpd += $2 }
        END {
            for (k in rss) printf "%d\t%d\t%d\t%s\n", rss[k], pss[k], pd[k], k
        }' "/proc/$pid/smaps" | sort -t"$(printf '\t')" -k1,1 -n -r |
        awk -F'\t' 'BEGIN { printf "%-50s %8s %8s %9s\n", "mapping", "Rss", "Pss", "PrivDirty" }
            { printf "%-50s %8d %8d %9d\n", $4, $1, $2, $3; r += $1; p += $2; d += $3 }
            END { printf "%-50s %8d %8d %9d\n", "total", r, p, d }' || true
    echo "threads: $(find "/proc/$pid/task" -mindepth 1 -maxdepth 1 | wc -l) ($(cat /proc/"$pid"/task/*/comm | sort | uniq -c | awk '{printf "%s%s x%d", s, $2, $1; s=", "}'))"
fi
kill "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true

# --- 3. k matches at once ---------------------------------------------------
echo
echo "## k 2-seat matches at once, sampled 1 s after start; per match, kB"
printf "%4s %10s %10s %12s %12s\n" k ref_Rss ref_Pss ref_Private bots_Pss
for k in $ks; do
    pids=()
    for ((i = 0; i < k; i++)); do
        set_bots 2
        "$ref" --quiet --games "$((games * 4))" --seed "$((i + 1))" "${bots[@]}" 2>/dev/null &
        pids+=($!)
    done
    sleep 1
    rss=0 pss=0 priv=0 bpss=0 n=0
    for p in "${pids[@]}"; do
        r=$(rollup_kb "$p" Rss); s=$(rollup_kb "$p" Pss)
        pc=$(rollup_kb "$p" Private_Clean); pdd=$(rollup_kb "$p" Private_Dirty)
        [ -n "$r" ] || continue
        rss=$((rss + r)); pss=$((pss + s)); priv=$((priv + pc + pdd)); n=$((n + 1))
        # shellcheck disable=SC2013
        for c in $(cat /proc/"$p"/task/*/children 2>/dev/null); do
            b=$(rollup_kb "$c" Pss)
            bpss=$((bpss + ${b:-0}))
        done
    done
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    if [ "$n" -lt "$k" ]; then
        echo "k=$k: only $n of $k referees were still running at the sample; raise --games" >&2
        [ "$n" -gt 0 ] || continue
    fi
    printf "%4d %10d %10d %12d %12d\n" "$k" $((rss / n)) $((pss / n)) \
        $((priv / n)) $((bpss / n))
done
echo "(command: k x 'maat-referee --quiet --games $((games * 4)) --seed I + 2 x --bot rK=maat-random' in the background;"
echo " Rss/Pss/Private from /proc/PID/smaps_rollup; bots_Pss: both bots of a match)"
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
