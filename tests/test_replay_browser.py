#!/usr/bin/env python3
"""test_replay_browser.py -- maat-replay pages in a real browser.

For each game a real match is recorded and made into a page, which
headless Chromium (driven over the DevTools protocol, tests/cdp.py) opens
from disk.  The test fails on any JavaScript exception or console error;
steps with the keys and the buttons; shows every position in every view;
goes to the end and checks that the final scores the page displays are the
record's; checks that a hostile bot name and stderr line stay text (no
dialog, no element made from them); and saves a screenshot of the end of
each game as $MAAT_BUILD_ROOT/replay-GAME.png.  Skipped (exit 77) only when
Chromium is not installed.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser, find_chromium  # noqa: E402
from replaylib import GAMES, make_record, run  # noqa: E402

REFEREE = os.environ["MAAT_REFEREE"]
REPLAY = os.environ["MAAT_REPLAY"]
RANDOM = os.environ["MAAT_RANDOM"]
GREEDY = os.environ["MAAT_GREEDY"]
HOSTILE = os.environ["MAAT_HOSTILE"]
OUT = os.environ.get("MAAT_BUILD_ROOT", ".")
EVIL = '<img src=x onerror="alert(1)">'
failures = 0


def check(cond, msg):
    global failures
    if not cond:
        failures += 1
        print("FAILED:", msg)
    return cond


def make_page(tmp, game, seats, seed):
    rec_path = os.path.join(tmp, game + ".json")
    bots = []
    for s in range(seats):
        bots += ["--bot", "b%d=%s" % (s, GREEDY if s == 0 else RANDOM)]
    if game == "architects":  # faults: illegal answers from the third on
        bots[-1] = "b%d=%s --mode illegal --after 2" % (seats - 1, HOSTILE)
    rec = make_record(REFEREE, None, game, seats, seed, rec_path, bots)
    if game != "pyramids":  # (its screenshot is docs/img/replay-pyramids.png)
        rec["seats"][1]["bot"] = EVIL      # a hand-edited record
        rec["result"][1]["bot"] = EVIL
    with open(rec_path, "w") as f:
        json.dump(rec, f)
    log = os.path.join(tmp, game + ".log")
    with open(log, "w") as f:
        f.write("0\tfirst thoughts of seat 0\n1\t<script>alert(2)</script>\n")
    # (hostile stderr in every game)
    page = os.path.join(tmp, game + ".html")
    r = run([REPLAY, rec_path, "-o", page, "--log", "0=" + log, "--log", "1=" + log])
    check(r.returncode == 0, "maat-replay %s: %s" % (game, r.stderr))
    return rec, page


def text(b, selector):
    return b.eval("(document.querySelector(%s) || {}).textContent" % json.dumps(selector))


def test_game(b, tmp, game, seats, seed):
    rec, page = make_page(tmp, game, seats, seed)
    n = len(rec["decisions"])
    b.open("file://" + page)
    check(b.eval("maatReplay.positions") == n + 1, "%s: %s positions, want %d"
          % (game, b.eval("maatReplay.positions"), n + 1))
    check(text(b, "#stepno") == "the deal", "%s: does not start at the deal" % game)
    # keys and buttons step through the decisions
    b.key("ArrowRight", vk=39)
    b.key("ArrowRight", vk=39)
    check(text(b, "#stepno") == "decision 1 of %d" % n, "%s: two right arrows: %r"
          % (game, text(b, "#stepno")))
    b.eval("document.getElementById('next').click()")
    b.key("ArrowLeft", vk=37)
    check(text(b, "#stepno") == "decision 1 of %d" % n, "%s: next + left: %r"
          % (game, text(b, "#stepno")))
    b.key("Home", vk=36)
    b.key("ArrowRight", vk=39)
    check("first thoughts of seat 0" in (text(b, "#logs") or ""),
          "%s: the stderr of decision 0 is not shown: %r" % (game, text(b, "#logs")))
    # every position in every view: the omniscient one and each seat's
    for v in range(seats + 1):
        b.eval("maatReplay.view(%d); for (let i = 0; i < maatReplay.positions; i++) "
               "maatReplay.go(i); true" % v)
    b.key("o", vk=79)
    check(b.eval("document.getElementById('view').value") == "0",
          "%s: the o key does not select the omniscient view" % game)
    b.key("1", vk=49)
    check(b.eval("document.getElementById('view').value") == "2",
          "%s: the 1 key does not select seat 1's view" % game)
    # faults: 'f' goes to the next one, which the side panel names
    if rec["faults"]:
        b.key("Home", vk=36)
        b.key("f", vk=70)
        first = rec["faults"][0]
        check(text(b, "#stepno") == "decision %d of %d" % (first["decision"], n) and
              "FAULT %s" % first["kind"] in (text(b, "#decision") or ""),
              "%s: f does not show the first fault (%s): %r %r" % (game, first,
              text(b, "#stepno"), text(b, "#decision")))
        marks = b.eval("[...document.querySelectorAll('#timeline rect')]"
                       ".filter(r => r.getAttribute('fill') === '#c0262d').length")
        check(marks == len({f["decision"] for f in rec["faults"]}),
              "%s: %s fault marks on the timeline for %d faulty decisions"
              % (game, marks, len({f["decision"] for f in rec["faults"]})))
    elif game == "architects":
        check(False, "the hostile bot made no fault")
    # the end: the displayed scores are the record's
    b.key("o", vk=79)
    b.key("End", vk=35)
    check(text(b, "#stepno") == "decision %d of %d" % (n - 1, n), "%s: End: %r"
          % (game, text(b, "#stepno")))
    shown = b.eval("[...document.querySelectorAll('#scores td.total')]"
                   ".map(td => [+td.dataset.seat, +td.textContent])")
    want = [[r["seat"], r["score"]] for r in rec["result"]]
    check(shown == want, "%s: the page shows scores %s, the record says %s"
          % (game, shown, want))
    parts = b.eval("[...document.querySelectorAll('#scores th')].map(th => th.textContent)")
    first = rec["result"][0]["parts"]
    check(parts and all(p in parts for p in first), "%s: score parts %s missing from %s"
          % (game, list(first), parts))
    # hostile text stayed text
    if game != "pyramids":
        check(EVIL in (text(b, "#seats") or ""), "%s: the hostile name is not shown as "
              "text" % game)
    check(b.eval("document.querySelectorAll('img, #board script, #logs script').length") == 0,
          "%s: an element was made from hostile text" % game)
    check("Page.javascriptDialogOpening" not in b.events, "%s: a dialog opened" % game)
    shot = os.path.join(OUT, "replay-%s.png" % game)
    b.screenshot(shot)
    check(os.path.getsize(shot) > 20000, "%s: screenshot %s is too small" % (game, shot))


def main():
    if not find_chromium():
        print("chromium is not installed (apt-get install chromium): skipped")
        return 77
    with tempfile.TemporaryDirectory(prefix="maat-browser-") as tmp, Browser() as b:
        for game, seats, seed in GAMES:
            test_game(b, tmp, game, seats, seed)
        check(not b.errors, "JavaScript errors:\n  " + "\n  ".join(b.errors))
    print("replay_browser: %d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
