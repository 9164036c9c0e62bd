#!/usr/bin/env bash
# The README's first command: install what is missing (Debian packages),
# build, and run the main job on its built-in default -- a demo ladder: the
# sample bots (random x2, greedy, mcts) in a short Pyramids round robin with
# duplicate seats over ZeroMQ, 2 jobs, standings printed.  The ladder file is
# build/demo/ladder.jsonl (started afresh each time).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
mkdir -p build/demo
rm -rf build/demo/ladder.jsonl build/demo/ladder.games
./build/ladder/maat-ladder demo --ladder build/demo/ladder.jsonl --jobs 2
echo
echo "ladder file: build/demo/ladder.jsonl (one JSON line per game; try: jq -c '{bots,ranks,scores}' build/demo/ladder.jsonl)"
echo "one match, with its record: ./build/referee/maat-referee --demo --record build/demo/record.json"
