#!/usr/bin/env bash
# Build and run every test.  Usage:
#   scripts/test.sh                  # gcc, debugoptimized, in build/
#   scripts/test.sh --sanitize       # ASan + UBSan, in build-asan/
#   scripts/test.sh --clang          # clang, in build-clang/
# Ends with the line "N passed, N failed, N skipped".
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build; setup_args=(); cc=${CC:-}
case "${1:-}" in
  --sanitize) dir=build-asan
              setup_args=(-Db_sanitize=address,undefined -Db_lundef=false)
              export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
              # the same property tests over fewer random games (check.h)
              export MAAT_TEST_SCALE=${MAAT_TEST_SCALE:-0.25} ;;
  --clang)    dir=build-clang; cc=clang ;;
  "")         ;;
  *) echo "usage: scripts/test.sh [--sanitize|--clang]" >&2; exit 2 ;;
esac
if [ ! -f "$dir/build.ninja" ]; then
  CC=$cc meson setup "$dir" "${setup_args[@]}" >/dev/null
fi
ninja -C "$dir" >/dev/null
set +e
meson test -C "$dir" --print-errorlogs --num-processes 2 >"$dir/test-output.txt" 2>&1
set -e
grep -E '^ *[0-9]+/[0-9]+ ' "$dir/test-output.txt" || true
grep -B2 -A40 -E 'FAIL|TIMEOUT' "$dir/test-output.txt" | grep -v '^ *[0-9]*/[0-9]* ' | head -80 || true
python3 - "$dir/meson-logs/testlog.json" <<'PY'
import json, sys
p = f = s = 0
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    if r in ("OK", "EXPECTEDFAIL"): p += 1
    elif r == "SKIP": s += 1
    else: f += 1
print(f"{p} passed, {f} failed, {s} skipped")
sys.exit(1 if f else 0)
PY
