#!/usr/bin/env bash
# bench_syscalls.sh -- system calls per decision of the referee (strace),
# against the raw ZeroMQ ROUTER of bench-pingpong with the same request
# size, each side waiting the three ways bench-pingpong offers.
#
#   bench/bench_syscalls.sh [--build DIR] [--referee-build DIR] [--seats N]
#                           [--games G] [--protocol 1|2|3] [--no-wait-credit]
#
# --referee-build, --protocol and --no-wait-credit as in bench_callgrind.sh
# (strace slows the referee down too: without --no-wait-credit every
# answer takes a millisecond or more, and the fair clock samples /proc
# for each next request).
#
# Like bench_callgrind.sh, every number is a difference of two runs (G
# games and 2 games; 2200 and 200 raw round trips) divided by the
# difference of their decisions, so start-up cancels out.  Counted: the
# referee process (maat-referee as a user runs it, bots sandboxed when
# bubblewrap works, idle priorities as by default) and its threads (libzmq's I/O
# thread included), not the bots; the raw ROUTER process and its threads,
# not the DEALER.  strace slows every process down, so the bots answer
# later than they would: the counts are those of a decision that waits.
# Each cell: per decision, every thread / the thread that runs the match
# (or the ping-pong loop).  What a match does once or per game (spawning,
# files) is in the difference too, spread over the decisions, and under
# strace it varies from run to run: small negative counts are that.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/bench/raw_compare.sh"
build="$root/build-bench"
refbuild=
refargs=()
protocol=3
seats=4
games=20
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$(cd "$2" && pwd); shift 2 ;;
        --referee-build) refbuild=$(cd "$2" && pwd); shift 2 ;;
        --protocol) protocol="$2"; shift 2 ;;
        --no-wait-credit) refargs=(--no-wait-credit); shift ;;
        --seats) seats="$2"; shift 2 ;;
        --games) games="$2"; shift 2 ;;
        -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench_syscalls.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
bench_programs bench_syscalls.sh
command -v strace >/dev/null || { echo "bench_syscalls.sh: needs strace" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/maat-bench-sc-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The system calls in strace -f log $1 of its first process and that
# process's threads (clone with CLONE_THREAD), not of its children:
# "name all main" lines.
count() { python3 - "$1" <<'EOF'
import collections, re, sys
main = None; ours = set(); pending = {}
allc = collections.Counter(); mainc = collections.Counter()
for line in open(sys.argv[1]):
    m = re.match(r'(\d+) +(.*)', line)
    if not m:
        continue
    pid, rest = int(m.group(1)), m.group(2)
    if main is None:
        main = pid; ours.add(pid)
    if pid not in ours:
        continue
    resumed = re.match(r'<\.\.\. (\w+) resumed>(.*)', rest)
    if resumed:
        name, text = resumed.group(1), pending.pop(pid, '') + resumed.group(2)
    else:
        call = re.match(r'(\w+)\(', rest)
        if not call:
            continue
        name, text = call.group(1), rest
        allc[name] += 1
        mainc[name] += pid == main
        if rest.endswith('<unfinished ...>'):
            pending[pid] = rest
            continue
    if name in ('clone', 'clone3') and 'CLONE_THREAD' in text:
        r = re.search(r'= (\d+)\s*$', text)
        if r:
            ours.add(int(r.group(1)))
for k in allc:
    print(k, allc[k], mainc[k])
EOF
}
decisions() { python3 -c '
import json, sys
print(sum(json.loads(l)["decisions"] for l in open(sys.argv[1])))' "$1"; }

# the referee, G games and 2
for g in 2 "$games"; do
    args=()
    for ((i = 0; i < seats; i++)); do args+=(--bot "r$i=$bot$botargs"); done
    strace -f -qq -o "$tmp/ref$g.st" "$ref" --quiet --games "$g" --seed 1 \
        --time 5000 --first-time 10000 --ladder "$tmp/l$g.jsonl" \
        ${refargs[@]+"${refargs[@]}"} "${args[@]}"
    count "$tmp/ref$g.st" >"$tmp/ref$g.n"
    echo $(decisions "$tmp/l$g.jsonl") >"$tmp/ref$g.d"
done
# the request size of these games, from spies speaking the same version
req=$(spy_request_bytes "$build/referee/maat-referee" "$spy" "$seats" "$protocol" "$tmp/s")
for w in fd poll recv; do
    for n in 200 2200; do
        strace -f -qq -o "$tmp/$w$n.st" "$pp" --transport ipc --count "$n" \
            --warmup 0 --wait "$w" --req-bytes "$req" --act-bytes 52 >/dev/null
        count "$tmp/$w$n.st" >"$tmp/$w$n.n"
    done
done

echo "# bench_syscalls: system calls per decision, Pyramids, $seats seats, protocol version $protocol, $(date -u +%FT%TZ)"
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg); request $req B"
python3 - "$tmp" "$games" <<'EOF'
import collections, sys
d, g = sys.argv[1], sys.argv[2]
def load(name):
    a, m = collections.Counter(), collections.Counter()
    for line in open('%s/%s.n' % (d, name)):
        k, x, y = line.split(); a[k] = int(x); m[k] = int(y)
    return a, m
dec = int(open('%s/ref%s.d' % (d, g)).read()) - int(open('%s/ref2.d' % d).read())
cols = [('referee', 'ref2', 'ref' + g, dec)]
for w in ('fd', 'poll', 'recv'):
    cols.append(('raw_' + w, w + '200', w + '2200', 2000))
per = []
for title, lo, hi, n in cols:
    (a0, m0), (a1, m1) = load(lo), load(hi)
    per.append(({k: (a1[k] - a0[k]) / n for k in a1}, {k: (m1[k] - m0[k]) / n for k in m1}))
names = sorted({k for a, m in per for k in a if abs(a[k]) >= 0.05},
               key=lambda k: -per[0][0].get(k, 0))
print('%-14s' % 'all / main' + ''.join('%17s' % t for t, *_ in cols))
for k in names + ['total']:
    row = '%-14s' % k
    for a, m in per:
        if k == 'total':
            x, y = sum(v for v in a.values()), sum(v for v in m.values())
        else:
            x, y = a.get(k, 0), m.get(k, 0)
        row += '%17s' % ('%.2f / %.2f' % (x, y))
    print(row)
EOF
echo "# referee: strace -f $ref --quiet --games G --seed 1 --time 5000 --ladder L ${refargs[*]-} + $seats x --bot rK='maat-random$botargs', G = $games minus G = 2, per decision"
echo "# raw: strace -f $pp --transport ipc --count N --wait fd|poll|recv --req-bytes $req --act-bytes 52, N = 2200 minus N = 200, the ROUTER process"
