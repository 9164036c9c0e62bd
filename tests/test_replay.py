#!/usr/bin/env python3
"""test_replay.py -- maat-replay end to end, without a browser.

  * each game: spies in every seat record what the referee sent them; the
    page's view of seat s at each of its decisions is that very observation,
    and at the end the end message's; the omniscient final scores are the
    record's; the document has one position per decision plus the deal;
  * hostile text (bot names of a hand-edited record, stderr lines) cannot
    leave the JSON element it is embedded in;
  * --log with a hand-made log: lines by decision, continuation lines,
    out-of-range indices, cuts, unprintable bytes;
  * a record the rules refuse part-way still gives a page, with a warning;
  * maat-referee --verify --verbose prints the position after each decision;
  * --index on a ladder file links each game to its replay and never uses
    a hostile id as a file name;
  * errors name the option or file.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from replaylib import GAMES, make_record, page_document, positions, run  # noqa: E402
from spyread import spy_messages  # stdlib msgpack reader  # noqa: E402

REFEREE = os.environ["MAAT_REFEREE"]
REPLAY = os.environ["MAAT_REPLAY"]
SPY = os.environ["MAAT_SPY"]
RANDOM = os.environ["MAAT_RANDOM"]
failures = 0


def check(cond, msg):
    global failures
    if not cond:
        failures += 1
        print("FAILED:", msg)
    return cond


def replay(record, out, *extra):
    r = run([REPLAY, record, "-o", out] + list(extra))
    check(r.returncode == 0, "maat-replay %s: exit %d: %s" % (record, r.returncode, r.stderr))
    with open(out) as f:
        return f.read()


def test_views_are_what_the_seats_got(tmp):
    for game, seats, seed in GAMES:
        d = os.path.join(tmp, "spy-" + game)
        os.makedirs(d)
        rec_path = os.path.join(d, "rec.json")
        bots = []
        for s in range(seats):
            bots += ["--bot", "spy%d=%s --dir %s --seed %d" % (s, SPY, d, s)]
        rec = make_record(REFEREE, None, game, seats, seed, rec_path,
                          ["--fixed-seats"] + bots)
        html = replay(rec_path, os.path.join(d, "game.html"))
        doc = page_document(html)
        if not check(doc is not None, "%s: no document in the page" % game):
            continue
        pos = positions(doc)
        n = len(rec["decisions"])
        check(len(doc["decisions"]) == n, "%s: %d decisions, record %d"
              % (game, len(doc["decisions"]), n))
        check(all(len(p) == n + 1 for p in pos), "%s: positions %s, want %d"
              % (game, [len(p) for p in pos], n + 1))
        check(doc["warnings"] == [], "%s: warnings %s" % (game, doc["warnings"]))
        check(len(pos) == seats + 1, "%s: %d streams" % (game, len(pos)))
        for s in range(seats):
            msgs = spy_messages(os.path.join(d, "spy%d.bin" % s))
            requests = [m["observation"] for m in msgs if m.get("type") == "request"]
            mine = [i for i, x in enumerate(doc["decisions"]) if x["seat"] == s]
            check(len(requests) == len(mine) and len(mine) > 5,
                  "%s seat %d: %d requests, %d decisions"
                  % (game, s, len(requests), len(mine)))
            bad = [i for i, obs in zip(mine, requests) if pos[1 + s][i] != obs]
            check(not bad, "%s seat %d: the view differs from the observation sent "
                  "at decisions %s" % (game, s, bad[:5]))
            end = [m["observation"] for m in msgs if m.get("type") == "end"]
            check(end and pos[1 + s][-1] == end[0], "%s seat %d: the last view is "
                  "not the end message's observation" % (game, s))
        final = pos[0][-1]
        check([x["total"] for x in final.get("scores", [])] ==
              [x["score"] for x in rec["result"]],
              "%s: final scores %s, record %s" % (game, final.get("scores"), rec["result"]))
        # the omniscient view knows more than any seat before the end
        hidden = {"pyramids": lambda st: "hand" in st["players"][0],
                  "pyramix": lambda st: any(c.get("unrevealed") for c in st["cubes"]),
                  "architects": lambda st: "supply" in st}[game]
        check(hidden(pos[0][0]) and not any(hidden(pos[1 + s][0]) for s in range(seats)),
              "%s: the omniscient view shows no more than the seats" % game)
        # clocks and who played are carried over
        check(all("wall_us" in x and x["by"] == "bot" for x in doc["decisions"]),
              "%s: decisions lack wall_us or by" % game)


def test_hostile_text_and_logs(tmp):
    rec_path = os.path.join(tmp, "pmx.json")
    rec = make_record(REFEREE, RANDOM, "pyramix", 2, 5, rec_path)
    evil = '</script><script>alert("name")</script><!--'
    rec["seats"][0]["bot"] = evil
    rec["result"][0]["bot"] = evil
    hostile = os.path.join(tmp, "hostile.json")
    with open(hostile, "w") as f:
        json.dump(rec, f)
    log = os.path.join(tmp, "b0.log")
    with open(log, "wb") as f:
        f.write(b"starting up\n")                      # before any decision
        f.write(b"0\tthinking about decision 0\n")
        f.write(b"still decision 0, no prefix\n")     # continuation
        f.write(b"2\t</script><img src=x onerror=alert(1)>\n")
        f.write(b"2\tesc \x1b[31mred\x1b[0m bad utf8 \xff\xfe end\n")
        f.write(b"4\t" + b"x" * 2000 + b"\n")          # cut at 500 bytes
        f.write(b"99999\tfar out\n")                   # no such decision
        f.write(b"-7\tnegative\n")
        for i in range(250):                           # cut at 200 lines
            f.write(b"6\tline %d\n" % i)
        f.write(b"8\tno newline at the end")
    out = os.path.join(tmp, "hostile.html")
    html = replay(hostile, out, "--log", "0=" + log, "--log",
                  rec["seats"][1]["bot"] + "=" + log)
    check(html.count("<script") == 2, "a hostile text added a <script> element")
    check(evil not in html and "<img" not in html and "</script><" not in
          html.replace('</script>\n<script>', ''),
          "hostile text appears raw in the page")
    doc = page_document(html)
    if not check(doc is not None, "no document in the hostile page"):
        return
    check(doc["seats"][0]["bot"] == evil, "the hostile name is not kept as text")
    dec = doc["decisions"]
    check(doc.get("log", {}).get("0") == ["starting up", "far out", "negative"],
          "lines before the game / out of range: %s" % doc.get("log"))
    check(dec[0]["log"]["0"] == ["thinking about decision 0",
                                 "still decision 0, no prefix"],
          "decision 0 log: %s" % dec[0].get("log"))
    check(dec[2]["log"]["0"][0] == "</script><img src=x onerror=alert(1)>",
          "decision 2 log: %s" % dec[2].get("log"))
    check(dec[2]["log"]["0"][1] == "esc ?[31mred?[0m bad utf8 ?? end",
          "unprintable bytes: %r" % dec[2]["log"]["0"][1])
    check(dec[4]["log"]["0"] == ["x" * 500], "long line not cut at 500")
    six = dec[6]["log"]["0"]
    check(len(six) == 201 and six[199] == "line 199" and "cut" in six[200],
          "decision 6: %d lines, last %r" % (len(six), six[-1]))
    check(dec[8]["log"]["0"] == ["no newline at the end"], "last line lost")
    check(dec[0]["log"].get("1") == dec[0]["log"]["0"], "--log by bot name")
    # errors name what is wrong
    r = run([REPLAY, hostile, "-o", out, "--log", "5=" + log])
    check(r.returncode == 1 and "--log 5=" in r.stderr and "no such seat" in r.stderr,
          "a log for no seat: %d %s" % (r.returncode, r.stderr))
    r = run([REPLAY, hostile, "-o", out, "--log", "0=" + tmp + "/missing.log"])
    check(r.returncode == 1 and "missing.log" in r.stderr, "missing log: %s" % r.stderr)
    r = run([REPLAY, tmp + "/nothing.json", "-o", out])
    check(r.returncode == 1 and "nothing.json" in r.stderr, "missing record: %s" % r.stderr)
    r = run([REPLAY, hostile])
    check(r.returncode == 2 and "usage" in r.stderr, "no -o: %d" % r.returncode)
    r = run([REPLAY, hostile, "-o", out, "--log", "nofile"])
    check(r.returncode == 2 and "SEAT=FILE" in r.stderr, "bad --log: %s" % r.stderr)
    # -o naming an input (by name or through a link) refuses, input intact
    before = open(hostile, "rb").read()
    link = os.path.join(tmp, "link-to-hostile.json")
    os.symlink(hostile, link)
    for args, name in (([hostile, "-o", hostile], "the record"),
                       ([hostile, "-o", link], "the record"),
                       ([hostile, "-o", log, "--log", "0=" + log], "a bot log"),
                       ([hostile, "--json", "-o", "./" + os.path.relpath(
                           hostile)], "the record")):
        r = run([REPLAY] + args)
        check(r.returncode == 2 and name in r.stderr and
              "-o %s " % args[args.index("-o") + 1] in r.stderr,
              "-o an input: %s: %d %s" % (args, r.returncode, r.stderr))
    check(open(hostile, "rb").read() == before and
          open(log, "rb").read().startswith(b"starting up"),
          "-o an input: the inputs are left as they were")


def test_refused_record(tmp):
    rec_path = os.path.join(tmp, "arc.json")
    rec = make_record(REFEREE, RANDOM, "architects", 2, 9, rec_path)
    rec["decisions"][5]["action"] = {"kind": "take", "space": 7}
    bad = os.path.join(tmp, "bad.json")
    with open(bad, "w") as f:
        json.dump(rec, f)
    out = os.path.join(tmp, "bad.html")
    r = run([REPLAY, bad, "-o", out])
    check(r.returncode == 0 and "decision 5" in r.stderr, "refused record: %d %s"
          % (r.returncode, r.stderr))
    doc = page_document(open(out).read()) if os.path.exists(out) else None
    if check(doc is not None, "no page for a refused record"):
        check(len(doc["decisions"]) == 5 and "decision 5" in doc["warnings"][0],
              "refused record: %d decisions, warnings %s"
              % (len(doc["decisions"]), doc["warnings"]))


def test_bad_fields(tmp):
    """A hand-edited record with a field the page cannot use is refused
    (exit 1), the message naming the field and what is wrong."""
    rec_path = os.path.join(tmp, "fields.json")
    rec = make_record(REFEREE, RANDOM, "pyramids", 2, 4, rec_path)
    out = os.path.join(tmp, "fields.html")
    for name, change, want in (
            ("faults-null", {"faults": [None]},
             "field 'faults': entry 0 is null, not an object"),
            ("faults-7", {"faults": [{"seat": 0, "kind": "crash"}, 7]},
             "field 'faults': entry 1 is a number"),
            ("faults-str", {"faults": "x"},
             "field 'faults' is a string, not an array")):
        bad = os.path.join(tmp, name + ".json")
        with open(bad, "w") as f:
            json.dump(dict(rec, **change), f)
        r = run([REPLAY, bad, "-o", out])
        check(r.returncode == 1 and want in r.stderr and bad in r.stderr,
              "%s: exit %d %s" % (name, r.returncode, r.stderr))
    for name, change, want in (
            ("game-x", {"game": "chess\x1b[2J"},
             "field 'game': no game named 'chess?[2J'"),
            ("game-none", {"game": None}, "field 'game' is null"),
            ("seed-str", {"seed": "seven"},
             "field 'seed': 'seven' is not a number"),
            ("seed-big", {"seed": 1e300},
             "field 'seed' is a fractional number, not a string"),
            ("seed-neg", {"seed": -1}, "field 'seed': '-1' is not a number"),
            ("seats-obj", {"seats": {}}, "field 'seats' is an object"),
            ("decisions-none", {"decisions": None},
             "field 'decisions' is null"),
            ("deck-esc", {"options": {"deck": "/no/\x1b]0;t\x07deck"}},
             "/no/?]0;t?deck")):
        bad = os.path.join(tmp, name + ".json")
        with open(bad, "w") as f:
            json.dump(dict(rec, **change), f)
        r = run([REPLAY, bad, "-o", out])
        check(r.returncode == 1 and want in r.stderr and bad in r.stderr
              and "not a maat record" not in r.stderr and
              "\x1b" not in r.stderr and "\x07" not in r.stderr,
              "%s: exit %d %r" % (name, r.returncode, r.stderr))
    ok = os.path.join(tmp, "faults-ok.json")
    with open(ok, "w") as f:
        json.dump(dict(rec, faults=[{"seat": 1, "bot": "b", "kind": "crash",
                                     "decision": 2, "detail": "d"}]), f)
    doc = page_document(replay(ok, out))
    check(doc and doc["decisions"][2]["faults"][0]["kind"] == "crash",
          "a well-formed fault is still shown under its decision")


def test_verify_verbose(tmp):
    for game, seats, seed in GAMES:
        rec_path = os.path.join(tmp, "v-%s.json" % game)
        rec = make_record(REFEREE, RANDOM, game, seats, seed, rec_path)
        r = run([REFEREE, "--verify", rec_path, "--verbose"])
        n = len(rec["decisions"])
        check(r.returncode == 0 and r.stdout.count("\n-- decision ") == n and
              "-- the deal --\n%s, %d seats" % (game, seats) in r.stdout and
              "the game is over" in r.stdout and "verified (0 differences)" in r.stdout,
              "%s: --verify --verbose: exit %d, %d decisions shown of %d"
              % (game, r.returncode, r.stdout.count("\n-- decision "), n))
        r = run([REFEREE, "--verify", rec_path])
        check(r.returncode == 0 and "-- decision" not in r.stdout,
              "%s: --verify without --verbose prints positions" % game)


def test_moved_options(tmp):
    """A record names its component files; moved since, --option (any game)
    and --deck (Pyramids) give the new place to --verify and maat-replay."""
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sdk", "data")
    for game, key, name in (("architects", "stones", "architects-stones.txt"),
                            ("pyramids", "deck", "pyramids-deck.txt")):
        was = os.path.join(tmp, "was-" + name)
        now = os.path.join(tmp, "now-" + name)
        with open(os.path.join(data, name)) as f, open(was, "w") as g:
            g.write(f.read())
        rec_path = os.path.join(tmp, "moved-%s.json" % game)
        make_record(REFEREE, RANDOM, game, 2, 17, rec_path,
                    ["--option", "%s=%s" % (key, was)] +
                    ["--bot", "a=" + RANDOM, "--bot", "b=" + RANDOM])
        os.rename(was, now)
        r = run([REFEREE, "--verify", rec_path])
        check(r.returncode == 2 and was in r.stderr,
              "%s: a moved %s file is named when --verify cannot read it (%d: %s)"
              % (game, key, r.returncode, r.stderr.strip()))
        r = run([REFEREE, "--verify", rec_path, "--option", "%s=%s" % (key, now)])
        check(r.returncode == 0 and "verified (0 differences)" in r.stdout,
              "%s: --verify --option %s=NEW verifies (%d: %s%s)"
              % (game, key, r.returncode, r.stdout.strip()[-200:], r.stderr.strip()))
        out = os.path.join(tmp, "moved-%s.html" % game)
        r = run([REPLAY, rec_path, "-o", out, "--option", "%s=%s" % (key, now)])
        check(r.returncode == 0 and os.path.getsize(out) > 0,
              "%s: maat-replay --option %s=NEW writes the page (%d: %s)"
              % (game, key, r.returncode, r.stderr.strip()))
        r = run([REPLAY, rec_path, "-o", out, "--option", "=x"])
        check(r.returncode == 2 and "--option wants KEY=VALUE" in r.stderr,
              "maat-replay --option =x: usage error naming the option (%d: %s)"
              % (r.returncode, r.stderr.strip()))
        r = run([REPLAY, rec_path, "-o", now, "--option", "%s=%s" % (key, now)])
        check(r.returncode == 2 and "option" in r.stderr,
              "maat-replay -o naming the option's file is refused (%d: %s)"
              % (r.returncode, r.stderr.strip()))
        with open(now) as f, open(was, "w") as g:  # where the record says
            g.write(f.read())
        r = run([REPLAY, rec_path, "-o", was])
        check(r.returncode == 2 and "the record's options name" in r.stderr and
              os.path.getsize(was) == os.path.getsize(now),
              "maat-replay -o naming the file the record's own options name "
              "is refused, the file kept (%d: %s)" % (r.returncode, r.stderr.strip()))
    r = run([REFEREE, "--verify", rec_path, "--deck", now])
    check(r.returncode == 0, "--verify --deck still works (%d: %s)" % (r.returncode, r.stderr))


def test_index(tmp):
    d = os.path.join(tmp, "tour")
    recs = os.path.join(d, "records")
    os.makedirs(recs)
    ladder = os.path.join(d, "ladder.jsonl")
    for i, (game, seats, seed) in enumerate(GAMES):
        make_record(REFEREE, RANDOM, game, seats, seed,
                    os.path.join(recs, "m%d-0.json" % i),
                    ["--match-id", "m%d" % i, "--ladder", ladder] +
                    sum([["--bot", "b%d=%s" % (s, RANDOM)] for s in range(seats)], []))
    with open(ladder) as f:
        lines = [json.loads(l) for l in f]
    line = lines[0]
    with open(os.path.join(d, "seat0.log"), "w") as f:
        f.write("0\tfrom the named log\n")
    named = dict(lines[1], id="named-0", record="records/m1-0.json",
                 logs=["seat0.log", "/etc/passwd"])
    outside = dict(line, id="outside-0", record="../outside.json")
    # another game's record named by a line (review of 2026-11-28: its
    # page showed that game under this id, with no warning)
    wrong = dict(lines[2], id="wrong-0", record="records/m1-0.json")
    line["id"] = "../evil"
    line["bots"][0] = "<b>bold</b>"
    with open(os.path.join(tmp, "outside.json"), "w") as f:
        f.write(open(os.path.join(recs, "m0-0.json")).read())
    with open(ladder, "a") as f:
        for l in (line, named, outside, wrong):
            f.write(json.dumps(l) + "\n")
    out = os.path.join(d, "site", "index.html")
    os.makedirs(os.path.dirname(out))
    r = run([REPLAY, "--index", ladder, "--records", recs, "-o", out])
    check(r.returncode == 0 and "7 games, 4 with a replay" in r.stderr,
          "--index: exit %d %s" % (r.returncode, r.stderr))
    check("wrong-0: " in r.stderr and "is not this game's record" in r.stderr
          and not os.path.exists(os.path.join(d, "site", "wrong-0.html")),
          "index: another game's record is not linked, and the reason is "
          "given (%s)" % r.stderr.strip()[-300:])
    html = open(out).read() if os.path.exists(out) else ""
    for i in range(3):
        page = os.path.join(d, "site", "m%d-0.html" % i)
        check('href="m%d-0.html"' % i in html and os.path.exists(page),
              "index: no replay for m%d-0" % i)
    check("&lt;b&gt;bold&lt;/b&gt;" in html and "<b>bold" not in html,
          "index: a bot name is not escaped")
    check("content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\"" in html
          and "<script" not in html,
          "index: its Content Security Policy lets no script run (it has none)")
    check(not os.path.exists(os.path.join(d, "evil.html")) and
          "../evil.html" not in html, "index: a hostile id became a file name")
    page = os.path.join(d, "site", "named-0.html")
    doc = page_document(open(page).read()) if os.path.exists(page) else None
    if check(doc is not None, "index: the ladder line's record field is not used"):
        check(doc["decisions"][0].get("log") == {"0": ["from the named log"]},
              "index: the line's logs: %s" % doc["decisions"][0].get("log"))
        check("root:" not in json.dumps(doc), "index: a log outside the folder was read")
    check(not os.path.exists(os.path.join(d, "site", "outside-0.html")),
          "index: a record outside the ladder's folder was read")
    check("outside-0: its record ../outside.json is not inside the ladder "
          "file's folder: not linked" in r.stderr,
          "index: a record outside the ladder's folder is named on stderr, "
          "not silently left out: %s" % r.stderr)
    before = open(ladder, "rb").read()
    r = run([REPLAY, "--index", ladder, "-o", ladder])
    check(r.returncode == 2 and "ladder file" in r.stderr and ladder in r.stderr
          and open(ladder, "rb").read() == before,
          "--index -o LADDER: refused, the ladder file intact: %d %s"
          % (r.returncode, r.stderr))


def main():
    with tempfile.TemporaryDirectory(prefix="maat-replay-") as tmp:
        test_views_are_what_the_seats_got(tmp)
        test_hostile_text_and_logs(tmp)
        test_refused_record(tmp)
        test_bad_fields(tmp)
        test_verify_verbose(tmp)
        test_moved_options(tmp)
        test_index(tmp)
    print("replay: %d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
