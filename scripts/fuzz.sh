#!/usr/bin/env bash
# Build the libFuzzer targets (tests/fuzz/) with clang + ASan + UBSan in
# build-fuzz/ and run each for SECONDS (default 30) on its corpus.  Usage:
#   scripts/fuzz.sh [SECONDS]
# Prints one line per target (runs, coverage, result; where a crash went)
# and ends with the line "N passed, N failed".  docs/RELIABILITY.md,
# "Fuzzing", says how to run a target by hand and keep a crash as a
# regression input.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
case "$secs" in
  ''|*[!0-9]*|0) echo "usage: scripts/fuzz.sh [SECONDS]  (a whole number >= 1)" >&2
                 exit 2 ;;
esac
dir=build-fuzz
if [ ! -f "$dir/build.ninja" ]; then
  CC=clang meson setup "$dir" -Dfuzz=true -Dfuzz_seconds="$secs" \
    -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
else
  meson configure "$dir" -Dfuzz=true -Dfuzz_seconds="$secs" >/dev/null
fi
# the fuzz targets alone (not the rest of the project under libFuzzer's
# flags, which no target runs): about half the build
targets=$(ninja -C "$dir" -t targets all |
          sed -n 's|^\(tests/fuzz/fuzz_[a-z0-9_]*\): .*|\1|p')
[ -n "$targets" ] || { echo "scripts/fuzz.sh: no fuzz targets in $dir" >&2; exit 1; }
ninja -C "$dir" $targets >/dev/null
set +e
meson test -C "$dir" --no-rebuild --suite fuzz --print-errorlogs \
  >"$dir/fuzz-output.txt" 2>&1
set -e
python3 - "$dir" <<'PY'
import json, os, re, sys
d = sys.argv[1]
passed = failed = 0
for line in open(os.path.join(d, "meson-logs", "testlog.json")):
    t = json.loads(line)
    name = t["name"].split(" / ")[-1]  # "maat:fuzz / fuzz_deck"
    if not name.startswith("fuzz_"):
        continue
    out = (t.get("stdout") or "") + (t.get("stderr") or "")
    def stat(name):
        m = re.findall(r"stat::%s:\s*(\d+)" % name, out)
        return m[-1] if m else "?"
    done = re.findall(r"cov: (\d+) ft: (\d+) corp: (\d+)", out)
    cov = "cov %s ft %s corpus %s" % done[-1] if done else "cov ?"
    ok = t["result"] in ("OK", "EXPECTEDFAIL")
    passed += ok
    failed += not ok
    msg = "%-18s %-7s %s runs, %s" % (name, t["result"],
                                      stat("number_of_executed_units"), cov)
    art = re.findall(r"Test unit written to (\S+)", out)
    if art:
        msg += "; input: " + art[-1]
    print(msg)
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
