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
python3 - "$dir/meson-logs/testlog.json" <<'PY'
import json, sys
p = f = s = 0
for line in open(sys.argv[1]):
    t = json.loads(line)
    r = t["result"]
    if r in ("OK", "EXPECTEDFAIL"): p += 1
    elif r == "SKIP": s += 1
    else:
        f += 1
        # what went wrong, not the checks that passed: the lines of its
        # output that are not "ok ..." (failed checks, diagnostics, a
        # traceback), the last 60 of them
        out = (t.get("stdout") or "") + (t.get("stderr") or "")
        bad = [l for l in out.splitlines() if not l.startswith("ok ")]
        print("---- %s: %s (exit %s) after %.0f s; its output but the passed checks:"
              % (t["name"], r, t.get("returncode"), t.get("duration", 0)))
        for l in bad[-60:]:
            print("  " + l[:400])
print(f"{p} passed, {f} failed, {s} skipped")
sys.exit(1 if f else 0)
PY
