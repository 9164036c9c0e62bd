#!/usr/bin/env python3
"""test_league_browser.py -- the league's leaderboard page in a real browser.

A small league of sample bots (one entry fails its validation games) runs
12 matches (screenshot); a hand-written line with hostile bot names is
then added to its ladder and the league runs two more matches, so the
page is written again with them.  Headless Chromium (tests/cdp.py) opens DIR/site/
index.html from disk and the test checks: no JavaScript error; the
standings table shows the bots of leaderboard.json in its order with its
ratings; one line per bot in the rating chart, and a click on a legend
entry hides and shows it; the crosstable's cells are the pair counts; the
faults table and the entries with their states (the failed one with its
fault and log); the latest games link to replays that open; hostile names
stay text.  Saves $MAAT_BUILD_ROOT/league-page.png (the README's
docs/img/league-page.png).  Skipped (exit 77) only when Chromium is not
installed."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser, find_chromium  # noqa: E402
from maattest import BUILD, HOSTILE, RANDOM, REFEREE, check, report  # noqa: E402

LADDER = os.environ.get("MAAT_LADDER", os.path.join(BUILD, "ladder", "maat-ladder"))
REPLAY = os.environ.get("MAAT_REPLAY", os.path.join(BUILD, "replay", "maat-replay"))
GREEDY = os.environ.get("MAAT_GREEDY", os.path.join(BUILD, "sample-bots", "maat-greedy"))
OUT = os.environ.get("MAAT_BUILD_ROOT", ".")
EVIL = '<img src=x onerror="alert(1)">'
with open(RANDOM, "rb") as _f:
    SAN = b"__asan_init" in _f.read()


def ladder(*args):
    p = subprocess.run([LADDER, *args], capture_output=True, text=True, timeout=600)
    check(p.returncode == 0, "maat-ladder %s" % " ".join(args[:2]), p.stderr)
    return p


def make_league(d):
    ladder("league", "new", d, "--reference", RANDOM, "--jobs", "2",
           "--validation-matches", "1")
    conf_path = os.path.join(d, "league.json")
    conf = json.load(open(conf_path))
    conf.update(referee=REFEREE, replay=REPLAY,
                referee_args=["--limit-as", "0"] if SAN else [])
    json.dump(conf, open(conf_path, "w"))
    mcts = os.path.join(os.path.dirname(RANDOM), "maat-mcts")
    for name, cmd in (("greedy", GREEDY), ("random", RANDOM),
                      ("mcts", mcts + " --iterations 40"),
                      ("crashy", HOSTILE + " --mode crash --after 2")):
        ladder("league", "add", d, name, cmd)
    ladder("league", "run", d, "--max-matches", "12", "--quiet")


def add_hostile(d):
    """A hand-made line with hostile names: the page must show them as
    text."""
    with open(os.path.join(d, "ladder.jsonl"), "a") as f:
        f.write(json.dumps({"v": 1, "id": "evil-0", "match": "evil", "game": "pyramids",
                            "seats": 2, "bots": [EVIL, "greedy.1"], "ranks": [2, 1],
                            "scores": [1, 2], "out": [False, False],
                            "faults": [{"seat": 0, "kind": "crash", "detail": EVIL}],
                            "record": "../../../../etc/passwd"}) + "\n")
    ladder("league", "run", d, "--max-matches", "2", "--quiet")


def text(b, selector):
    return b.eval("(document.querySelector(%s) || {}).textContent" % json.dumps(selector))


def main():
    if not find_chromium():
        print("chromium is not installed (apt-get install chromium): skipped")
        return 77
    with tempfile.TemporaryDirectory(prefix="maat-league-browser-") as d, Browser() as b:
        make_league(d)
        b.open("file://" + os.path.join(d, "site", "index.html"))
        shot = os.path.join(OUT, "league-page.png")
        b.screenshot(shot, full_page=False)  # the top: standings, chart
        check(os.path.getsize(shot) > 20000, "screenshot %s" % shot)
        add_hostile(d)
        doc = json.load(open(os.path.join(d, "site", "leaderboard.json")))
        b.open("file://" + os.path.join(d, "site", "index.html"))
        # standings: the JSON's bots, in its order, with its ratings
        rows = b.eval("[...document.querySelectorAll('#standings tr')].slice(1)"
                      ".map(tr => [tr.dataset.bot, tr.children[3].textContent])")
        want = [[s["bot"], s["rating"]] for s in doc["standings"]]
        # the page rounds with JavaScript's toFixed(2), which takes a tie
        # (-0.625 exactly) away from zero where Python's "%.2f" rounds it
        # to even: compare the numbers, to the last digit shown
        same = len(rows) == len(want) and all(
            r[0] == w[0] and abs(float(r[1]) - w[1]) <= 0.005 + 1e-9
            for r, w in zip(rows, want))
        check(same, "the standings table is leaderboard.json's", (rows, want))
        check(len(rows) == 4, "every bot has a row: 3 entries and the hand-made one (%d)"
              % len(rows))
        # the chart: one line per bot; a legend click hides and shows one
        lines = b.eval("[...document.querySelectorAll('#history polyline.series')]"
                       ".map(l => l.dataset.bot)")
        check(sorted(lines or []) == sorted(s["bot"] for s in doc["standings"]),
              "one line per bot in the rating chart", lines)
        first = doc["standings"][0]["bot"]
        b.eval("document.querySelector('#legend span').click()")
        hidden = b.eval("[...document.querySelectorAll('#history polyline.series')]"
                        ".map(l => l.dataset.bot)")
        b.eval("document.querySelector('#legend span').click()")
        again = b.eval("document.querySelectorAll('#history polyline.series').length")
        check(first not in (hidden or [first]) and again == len(lines),
              "a click on a legend entry hides its line, another shows it")
        # the crosstable's cells are the pair counts
        cells = b.eval("[...document.querySelectorAll('#crosstable tr')].slice(1).map(tr =>"
                       " [...tr.children].slice(1).map(td => td.textContent))")
        X = doc["crosstable"]
        ok = len(cells) == len(X["bots"])
        for i, row in enumerate(X["cells"]):
            for j, c in enumerate(row):
                if c and c[0]:
                    w = "%d\u2013%d" % (c[1], c[0] - c[1] - c[2]) + (" (%d)" % c[2] if c[2] else "")
                    ok &= cells[i][j] == w
        check(ok, "the crosstable shows each pair's ahead-behind (ties)", cells[:2])
        # faults and entries
        check(b.eval("document.querySelectorAll('#faults tr').length") == len(rows) + 1,
              "a faults row per bot")
        ent = b.eval("[...document.querySelectorAll('#entries tr')].slice(1)"
                     ".map(tr => [...tr.children].map(td => td.textContent))")
        crashy = [e for e in ent or [] if e[2] == "crashy.1"]
        check(crashy and crashy[0][3] == "failed" and "crash" in crashy[0][4] and
              crashy[0][5].startswith("logs/"),
              "the failed entry shows its state, fault and log", crashy)
        check(all(e[3] == "ranked" for e in ent if e[2] in ("greedy.1", "random.1", "mcts.1")),
              "the others are ranked", ent)
        # the latest games link to replays that open
        links = b.eval("[...document.querySelectorAll('#recent a')].map(a => a.href)")
        check(len(links or []) >= 10, "the latest games link to replays (%d)" % len(links or []))
        # hostile names stayed text
        check(EVIL in (text(b, "#standings") or "") and
              b.eval("document.querySelectorAll('img, table script').length") == 0,
              "a hostile bot name is shown as text, no element made from it")
        check("Page.javascriptDialogOpening" not in b.events, "no dialog opened")
        evil = [g for g in doc["recent"] if g["id"] == "evil-0"]
        check(evil and evil[0]["replay"] is None and
              not os.path.exists(os.path.join(d, "site", "replays", "evil-0.html")),
              "a line naming a record outside the league gets no replay")
        if links:
            b.open(links[0])
            check(b.eval("typeof maatReplay") == "object" and
                  (b.eval("maatReplay.positions") or 0) > 10,
                  "a linked replay opens: %s" % links[0])
        check(not b.errors, "no JavaScript error", "\n  ".join(b.errors))
    return report()


if __name__ == "__main__":
    sys.exit(main())
