#!/usr/bin/env bash
# valgrind-e2e.sh -- maat-referee and maat-ladder under valgrind memcheck,
# end to end: real matches of 2 to 5 seats (random sample bots; one with a
# hostile bot answering garbage, one with a bot that crashes mid-game; a
# 2-game series; a Pyramix match; a CURVE match), then `--verify` of every
# record, `maat-ladder standings` of the ladder file in every format, and a
# small `maat-ladder run` tournament.  Only our programs run under valgrind
# (--trace-children=no): the bots they spawn run natively.
#
#   scripts/valgrind-e2e.sh [BUILD_DIR]      (default: build)
#
# A step fails when valgrind reports an error (definite leaks included) or
# the program's exit code is not the expected one; each valgrind report is
# kept in $VG_OUT (default: BUILD_DIR/valgrind-e2e/) and the first lines of
# a failing one are printed.  Ends with "N passed, N failed"; exit 1 if any
# step failed, 77 if valgrind is not installed.
set -u
cd "$(dirname "$0")/.."
build=${1:-build}
ref=$build/referee/maat-referee
lad=$build/ladder/maat-ladder
rnd=$build/sample-bots/maat-random
hostile=$build/tests/maat-hostile-bot
if ! command -v valgrind >/dev/null; then
  echo "valgrind-e2e: valgrind is not installed (apt-get install valgrind)"
  exit 77
fi
for exe in "$ref" "$lad" "$rnd" "$hostile"; do
  if [ ! -x "$exe" ]; then
    echo "valgrind-e2e: $exe is missing; build first (ninja -C $build)" >&2
    exit 2
  fi
done
out=${VG_OUT:-$build/valgrind-e2e}
rm -rf "$out"
mkdir -p "$out"
ladder=$out/ladder.jsonl
# the referee is ~30x slower under memcheck: generous clocks, so no bot is
# timed out because of valgrind
clocks=(--time 5000 --first-time 20000 --hello-time 60000 --grace 1000
        --limit-nofile 0)
# --limit-nofile 0: valgrind refuses any setrlimit(RLIMIT_NOFILE) that
# changes the hard limit (EPERM; it keeps fds of its own above it), and the
# spawned child runs under valgrind until its exec, so the referee's default
# limit would make every bot exit with 127 before it starts.
vg=(valgrind --error-exitcode=99 --leak-check=full
    --errors-for-leak-kinds=definite --show-leak-kinds=definite
    --trace-children=no --child-silent-after-fork=yes --num-callers=30)
pass=0
fail=0

# step NAME EXPECTED_EXIT CMD...: run CMD under valgrind, judge it
step() {
  local name=$1 want=$2
  shift 2
  local log=$out/$name.vg.log
  "${vg[@]}" --log-file="$log" "$@" >"$out/$name.out" 2>"$out/$name.err"
  local rc=$?
  local errs
  errs=$(grep -E 'ERROR SUMMARY: [1-9]|definitely lost: [1-9]' "$log" | head -3)
  # a bot that could not even start (exit 127) means the step tested
  # nothing: count it as a failure
  if grep -q 'exited with status 127' "$out/$name.err"; then
    errs="${errs:+$errs; }a bot could not start (exit 127)"
  fi
  if [ "$rc" -eq "$want" ] && [ -z "$errs" ]; then
    pass=$((pass + 1))
    echo "ok   $name"
  else
    fail=$((fail + 1))
    echo "FAIL $name (exit $rc, expected $want${errs:+; $errs})"
    grep -E '^==[0-9]+== ' "$log" | sed -n '1,40p'
    [ "$rc" -ne "$want" ] && [ "$rc" -ne 99 ] && tail -5 "$out/$name.err"
  fi
}

bots() { # bots N: N random sample bots
  local i
  for ((i = 0; i < $1; i++)); do printf -- '--bot\nr%d=%s\n' "$i" "$rnd"; done
}
mapfile -t b2 < <(bots 2)
mapfile -t b3 < <(bots 3)
mapfile -t b4 < <(bots 4)
mapfile -t b5 < <(bots 5)

step match-2seats 0 "$ref" --seed 1 "${clocks[@]}" "${b2[@]}" \
  --record "$out/m2.json" --ladder "$ladder" --log-dir "$out/logs"
step match-3seats 0 "$ref" --seed 2 "${clocks[@]}" "${b3[@]}" \
  --record "$out/m3.json" --ladder "$ladder" --record-timing
step match-4seats 0 "$ref" --seed 3 "${clocks[@]}" "${b4[@]}" \
  --record "$out/m4.json" --ladder "$ladder"
step match-5seats 0 "$ref" --seed 4 "${clocks[@]}" "${b5[@]}" \
  --record "$out/m5.json" --ladder "$ladder"
step match-garbage 0 "$ref" --seed 5 "${clocks[@]}" "${b2[@]}" \
  --bot "hg=$hostile --mode garbage --after 2" \
  --record "$out/mg.json" --ladder "$ladder"
step match-crash 0 "$ref" --seed 6 "${clocks[@]}" "${b3[@]}" \
  --bot "hc=$hostile --mode crash --after 3" \
  --record "$out/mc.json" --ladder "$ladder"
step match-series 0 "$ref" --seed 7 "${clocks[@]}" "${b3[@]}" \
  --games 3 --same-deal --record "$out/ms.json" --ladder "$ladder"
step match-pyramix 0 "$ref" --game pyramix --seed 8 "${clocks[@]}" \
  "${b3[@]}" --record "$out/mp.json" --ladder "$ladder"
# CURVE: a key pair for the referee, generated keys for spawned bots
if "$ref" --keygen >"$out/referee.key" 2>/dev/null; then
  step match-curve 0 "$ref" --seed 9 "${clocks[@]}" "${b2[@]}" \
    --curve-key "$out/referee.key" --record "$out/mk.json" --ladder "$ladder"
fi

for r in "$out"/m*.json; do
  step "verify-$(basename "$r" .json)" 0 "$ref" --verify "$r"
done
for fmt in table json csv; do
  step "standings-$fmt" 0 "$lad" standings "$ladder" --format "$fmt"
done
cat >"$out/tour.json" <<EOF
{"name": "vg", "referee": "$PWD/$ref", "seats": 3, "matches": 2,
 "ladder": "$PWD/$out/tour.jsonl",
 "referee_args": ["--time", "2000", "--first-time", "5000"],
 "bots": [{"name": "a", "command": "$PWD/$rnd"},
          {"name": "b", "command": "$PWD/$rnd"},
          {"name": "c", "command": "$PWD/$rnd"}]}
EOF
step ladder-run 0 "$lad" run "$out/tour.json" --jobs 2 --quiet
step ladder-rerun 0 "$lad" run "$out/tour.json" --quiet

echo "$pass passed, $fail failed (valgrind reports in $out)"
[ "$fail" -eq 0 ]
