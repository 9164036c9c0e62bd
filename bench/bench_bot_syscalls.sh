#!/usr/bin/env bash
# bench_bot_syscalls.sh -- system calls per decision of one SDK bot
# (maat-random, sandboxed as by default), by thread and call, counted by
# the kernel's raw_syscalls tracepoint (perf record): unlike strace it
# does not slow the bot, so the counts are those of decisions at full
# speed.  Under the sandbox's system-call filter every call costs more
# (docs/PERFORMANCE.md, "The bot's wait"), so fewer calls is less CPU.
#
#   bench/bench_bot_syscalls.sh [--build DIR] [--base DIR] [--seconds S]
#                               [--no-sandbox]
#
# --build: the build measured (default build-bench); --base: a second
# build measured the same way first (an A/B); --seconds: how long the bot
# is traced (default 3), after 1.5 s of play.  Decisions are the bot's
# sends (one sendto of libzmq's I/O thread a decision).  Needs perf and the
# right to trace (root, or kernel.perf_event_paranoid <= 1).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$root/build-bench"
base=
seconds=3
sandbox=()
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$(cd "$2" && pwd); shift 2 ;;
        --base) base=$(cd "$2" && pwd); shift 2 ;;
        --seconds) seconds="$2"; shift 2 ;;
        --no-sandbox) sandbox=(--no-sandbox); shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench_bot_syscalls.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
command -v perf >/dev/null || { echo "bench_bot_syscalls.sh: needs perf (apt-get install linux-perf)" >&2; exit 1; }
py=/usr/bin/python3
[ -x "$py" ] || py=python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/maat-bench-sys-XXXXXX")
ref=
cleanup() { [ -n "$ref" ] && kill "$ref" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

measure() { # $1: build dir
    local b=$1
    "$b/referee/maat-referee" --quiet "${sandbox[@]}" --games 100000 --seed 1 \
        --bot "a=$b/sample-bots/maat-random" --bot "b=$b/sample-bots/maat-random" \
        >/dev/null 2>&1 &
    ref=$!
    local bot= i
    for i in $(seq 150); do # the first bot of this referee, once it plays
        bot=$(pgrep -x maat-random | while read -r p; do
                  # a bot of ours: the referee is among its ancestors
                  q=$p
                  while [ "$q" -gt 1 ]; do
                      [ "$q" = "$ref" ] && { echo "$p"; break; }
                      q=$(awk '{print $4}' "/proc/$q/stat" 2>/dev/null || echo 1)
                  done
              done | head -1 || true)
        [ -n "$bot" ] && break
        sleep 0.01
    done
    [ -n "$bot" ] || { echo "bench_bot_syscalls.sh: no bot started" >&2; exit 1; }
    sleep 1.5
    perf record -q -e raw_syscalls:sys_enter -p "$bot" -o "$tmp/perf.data" \
        -- sleep "$seconds" 2>/dev/null
    kill "$ref"; wait "$ref" 2>/dev/null || true; ref=
    perf script -i "$tmp/perf.data" -F comm,trace 2>/dev/null | "$py" -c '
import collections, re, sys
names = {0: "read", 1: "write", 3: "close", 7: "poll", 39: "getpid",
         44: "sendto", 45: "recvfrom", 46: "sendmsg", 47: "recvmsg",
         202: "futex", 228: "clock_gettime", 232: "epoll_wait",
         233: "epoll_ctl", 270: "pselect6", 271: "ppoll", 281: "epoll_pwait"}
count = collections.Counter()
for line in sys.stdin:
    m = re.match(r"\s*(\S+)\s+NR (\d+)", line)
    if m:
        thread = "I/O thread" if m.group(1).startswith("ZMQbg") else "main"
        count[(thread, int(m.group(2)))] += 1
decisions = count[("I/O thread", 44)]
if not decisions:
    sys.exit("no decisions seen")
total = {"main": 0, "I/O thread": 0}
for (thread, nr), n in sorted(count.items(), key=lambda kv: -kv[1]):
    if n / decisions >= 0.05:
        print("  %-10s %-12s %6.2f" % (thread, names.get(nr, "NR %d" % nr), n / decisions))
    total[thread] += n
print("  per decision: main %.2f, I/O thread %.2f, all %.2f (%d decisions)"
      % (total["main"] / decisions, total["I/O thread"] / decisions,
         sum(total.values()) / decisions, decisions))'
}

echo "# bench_bot_syscalls: one maat-random of a 2-seat match${sandbox:+, no sandbox}; load average $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "$base" ]; then
    echo "base:  $base"
    measure "$base"
fi
echo "build: $build"
measure "$build"
