#!/usr/bin/env bash
# The README's first command: install what is missing (Debian packages),
# build, and run the main job on its built-in default -- a demo match of
# four sample bots over ZeroMQ, with its record and ladder line written
# under build/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
mkdir -p build/demo
./build/referee/maat-referee --demo --seed "${SEED:-42}" \
  --record build/demo/record.json --ladder build/demo/ladder.jsonl \
  --log-dir build/demo/logs
echo
echo "record:  build/demo/record.json   (check it: ./build/referee/maat-referee --verify build/demo/record.json)"
echo "ladder:  build/demo/ladder.jsonl  (one JSON line per game)"
