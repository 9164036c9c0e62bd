#!/usr/bin/env bash
# bench_callgrind.sh -- CPU per decision on each side, in instructions
# (callgrind: independent of the machine's load), against the raw ZeroMQ
# ROUTER/DEALER round trip of bench-pingpong with the same message sizes.
#
#   bench/bench_callgrind.sh [--build DIR] [--seats "2 3 4 5"] [--games G]
#                            [--protocol 1|2|3] [--no-wait-credit]
#                            [--referee-build DIR]
#
# Every number is a difference of two runs (G games and 2 games; 2200 and
# 200 raw round trips) divided by the difference of their decisions, so
# start-up (the dynamic loader, zmq contexts, spawning, hellos) cancels
# out and what remains is the cost of one more decision:
#  - referee: maat-referee as a user runs it (bots sandboxed when
#    bubblewrap works, idle priorities as by default), all its threads, with a
#    ladder line per game, then also with --record (as maat-ladder run
#    runs it: a record of every game);
#  - bots: every seat's maat-random under callgrind (so without the
#    sandbox: valgrind must write its file), summed over the seats;
#  - raw: bench-pingpong ROUTER and DEALER processes, with the mean
#    request size of those games (measured with spy bots speaking the same
#    protocol version), each side waiting three ways: raw_router with
#    --wait fd (a receive, then poll() on ZMQ_FD: how the referee waits,
#    so ref_x compares like with like), raw_poll with --wait poll
#    (zmq_poll: how the referee waited before 2026-11-26 and the SDK bot
#    until that third round; raw_dlr_poll), raw_recv with --wait recv (a
#    blocking receive: the least a ROUTER can spend, though a referee,
#    which must also watch its clock, signals and the bots' pipes, cannot
#    wait that way; ref_x_recv).  raw_dealer is the DEALER that waits
#    with a blocking receive, as the SDK bot does since 2026-11-28 (from
#    the third round of 2026-11-26 until then it waited as the referee
#    does, and raw_dealer was the --wait fd DEALER): bot_x compares like
#    with like.
# --protocol 1: the bots speak protocol version 1 (maat-random
# --full-observation: every request carries the observation); 2: the
# delta protocol (maat-random --protocol 2); 3, the default: the delta
# protocol without the legal list (the bots work it out from their views).
# --no-wait-credit: the referee runs without its fair clock's samples of
# the bots' run-queue waits, which it takes (reading /proc) when a bot's
# previous answer took 1 ms or more: under callgrind, on a loaded machine,
# often and at random, so that its count moves by up to half run to run.
# --referee-build: the referee and its bots from another build (an older
# one, to compare), the raw ping-pong and the spies from --build.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/bench/raw_compare.sh"
build="$root/build-bench"
seats_list="2 3 4 5"
games=20
protocol=3
refargs=()
refbuild=
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$(cd "$2" && pwd); shift 2 ;;
        --seats) seats_list="$2"; shift 2 ;;
        --games) games="$2"; shift 2 ;;
        --protocol) protocol="$2"; shift 2 ;;
        --no-wait-credit) refargs=(--no-wait-credit); shift ;;
        --referee-build) refbuild=$(cd "$2" && pwd); shift 2 ;;
        -h|--help) sed -n '2,40p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench_callgrind.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
bench_programs bench_callgrind.sh
command -v valgrind >/dev/null || { echo "bench_callgrind.sh: needs valgrind" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/maat-bench-cg-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cg=(valgrind --tool=callgrind --quiet)

# (--limit-nofile 0: under valgrind, which keeps descriptors for itself,
# a spawned bot cannot set the referee's file limit and never says hello)
# total instructions ("summary:" line) of every callgrind file matching a glob
instr() { cat "$@" | awk '/^summary:/ {s += $2} END {printf "%d", s}'; }
# decisions and mean request bytes are read back from the records
decisions() { python3 - "$@" <<'EOF'
import json, sys
games = [json.loads(l) for l in open(sys.argv[1])]
bad = [g["faults"] for g in games if g["faults"]]
if bad:
    sys.exit("bench_callgrind.sh: a fault would spoil the count: %s" % bad[0])
print(sum(g["decisions"] for g in games))
EOF
}

echo "# bench_callgrind: instructions per decision, Pyramids, protocol version $protocol, $(date -u +%FT%TZ)"
echo "# load average (callgrind counts do not depend on it): $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%5s %10s %10s %10s %10s %10s %10s %10s %12s %8s %10s %8s  %s\n" seats referee +record raw_router raw_poll raw_recv bots raw_dealer raw_dlr_poll ref_x ref_x_recv bot_x req_bytes
for seats in $seats_list; do
    declare -A I D BD
    for g in 2 "$games"; do
        rm -rf "$tmp/r$g" "$tmp/b$g"; mkdir -p "$tmp/r$g" "$tmp/b$g"
        # the referee as a user runs it
        args=()
        for ((i = 0; i < seats; i++)); do args+=(--bot "r$i=$bot$botargs"); done
        "${cg[@]}" --callgrind-out-file="$tmp/r$g/cg.%p" "$ref" --quiet \
            --games "$g" --seed 1 --time 5000 --first-time 10000 --limit-nofile 0 \
            --ladder "$tmp/r$g/l.jsonl" ${refargs[@]+"${refargs[@]}"} "${args[@]}"
        # the referee is the lowest pid: the others are its forks before
        # they exec a bot (valgrind follows a fork, not an exec)
        I[ref$g]=$(instr "$(ls "$tmp/r$g"/cg.* | sort -t. -k2 -n | head -1)")
        D[$g]=$(decisions "$tmp/r$g/l.jsonl")
        # again with a record of every game, as maat-ladder run asks
        rm -f "$tmp/r$g"/cg.*
        "${cg[@]}" --callgrind-out-file="$tmp/r$g/cg.%p" "$ref" --quiet \
            --games "$g" --seed 1 --time 5000 --first-time 10000 --limit-nofile 0 \
            --ladder "$tmp/r$g/l2.jsonl" --record "$tmp/r$g/rec.json" ${refargs[@]+"${refargs[@]}"} "${args[@]}"
        I[rec$g]=$(instr "$(ls "$tmp/r$g"/cg.* | sort -t. -k2 -n | head -1)")
        # the bots under callgrind (unsandboxed, so valgrind can write)
        args=()
        for ((i = 0; i < seats; i++)); do
            args+=(--bot "r$i=valgrind --tool=callgrind --quiet --callgrind-out-file=$tmp/b$g/cg.%p $bot$botargs")
        done
        # every bot's profile, or the run again: on a loaded machine a bot
        # that valgrind slows past the referee's 1.5 s after bye is killed
        # before it writes one, which made the counts meaningless
        for try in 1 2 3; do
            rm -f "$tmp/b$g"/cg.* "$tmp/b$g/l.jsonl"
            "$ref" --quiet --no-sandbox --games "$g" --seed 1 --time 30000 \
                --first-time 60000 --hello-time 60000 \
                --ladder "$tmp/b$g/l.jsonl" "${args[@]}"
            profiles=$(cat "$tmp/b$g"/cg.* 2>/dev/null | grep -c '^summary:' || true)
            [ "$profiles" -eq "$seats" ] && break
            echo "# $seats seats, $g games: $profiles of $seats bot profiles written; again" >&2
        done
        if [ "$profiles" -ne "$seats" ]; then
            echo "bench_callgrind.sh: bots killed before writing their profiles (a loaded machine?)" >&2
            exit 1
        fi
        # its own decisions (random bots seed from their tokens, new every
        # match: games differ in length from run to run), and no fault (a
        # bot slowed down by valgrind on a loaded machine can time out)
        BD[$g]=$(decisions "$tmp/b$g/l.jsonl")
        I[bot$g]=$(instr "$tmp/b$g"/cg.*)
    done
    dd=$(( D[$games] - D[2] ))
    # mean request size of 20 such games, measured by spies of this
    # protocol version; 52-byte actions
    rm -rf "$tmp/s"
    req=$(spy_request_bytes "$build/referee/maat-referee" "$spy" "$seats" "$protocol" "$tmp/s")
    for w in fd poll recv; do
        for n in 200 2200; do
            rm -rf "$tmp/p$n"; mkdir -p "$tmp/p$n"
            "${cg[@]}" --trace-children=yes --callgrind-out-file="$tmp/p$n/cg.%p" \
                "$pp" --transport ipc --count "$n" --warmup 0 --wait "$w" \
                --req-bytes "$req" --act-bytes 52 >/dev/null
            # the ROUTER is the parent (the lowest pid), the DEALER the child
            files=($(ls "$tmp/p$n"/cg.* | sort -t. -k2 -n))
            I[pr$w$n]=$(instr "${files[0]}")
            I[pd$w$n]=$(instr "${files[@]:1}")
        done
    done
    r=$(( (I[ref$games] - I[ref2]) / dd ))
    rr=$(( (I[rec$games] - I[rec2]) / dd ))
    b=$(( (I[bot$games] - I[bot2]) / (BD[$games] - BD[2]) ))
    pr=$(( (I[prfd2200] - I[prfd200]) / 2000 ))
    pp_=$(( (I[prpoll2200] - I[prpoll200]) / 2000 ))
    prr=$(( (I[prrecv2200] - I[prrecv200]) / 2000 ))
    pd=$(( (I[pdrecv2200] - I[pdrecv200]) / 2000 ))
    pdp=$(( (I[pdpoll2200] - I[pdpoll200]) / 2000 ))
    printf "%5d %10d %10d %10d %10d %10d %10d %10d %12d %8.2f %10.2f %8.2f  %d\n" "$seats" "$r" "$rr" "$pr" "$pp_" "$prr" "$b" "$pd" "$pdp" \
        "$(awk "BEGIN {print $r / $pr}")" "$(awk "BEGIN {print $r / $prr}")" \
        "$(awk "BEGIN {print $b / $pd}")" "$req"
    unset I D BD
done
echo "# referee: $ref --quiet --games G --seed 1 --time 5000 --ladder L [--record R: +record]${refargs[@]+ ${refargs[*]}} + seats x --bot rK='maat-random$botargs' (sandboxed when bubblewrap works), G = $games minus G = 2"
echo "# bots: the same with --no-sandbox --time 30000 --ladder (their own decisions, no fault) and each bot run as 'valgrind --tool=callgrind $bot$botargs'"
echo "# raw: $pp --transport ipc --count N --wait fd|poll|recv --req-bytes B --act-bytes 52 under valgrind --trace-children=yes, N = 2200 minus N = 200"
