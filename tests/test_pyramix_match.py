#!/usr/bin/env python3
"""test_pyramix_match.py -- Pyramix through the unchanged referee and ladder.

1. Matches: maat-referee --game pyramix with 2, 3 and 4 seats of the C
   sample bots (maat-random, maat-greedy, maat-mcts --iterations 30), some
   as 2-game series (seats rotate).  For every match the referee exits 0;
   for every game record: game "pyramix", rules_version "pyramix-2", no
   faults, nobody out, every decision made by the bot itself, every seat
   decided, exactly 35 removals (56 cubes down to the 21 of the bottom
   layer), score parts ankhs/cranes/eyes/majority summing to the score,
   game ranks shared by ties, and `maat-referee --verify` replays it (exit
   0).  No bot log reports a failed determinization (maat_bot_sample).
   The clocks are generous (--time 10000, --hello-time 60000) so a loaded
   machine does not turn into faults.
2. The ladder: every finished game appended one line (game "pyramix") to
   the --ladder file; `maat-ladder standings` reads it (table, json, csv,
   --game pyramix) and lists every bot with the right game counts.
3. Hidden information (when MAAT_SPY is set): 2-, 3- and 4-seat matches
   of maat-spy-bot seats (tests/bots/spy.c records every message it gets,
   raw).  Every message is decoded (a small msgpack reader below, stdlib
   only) and checked:
   - in a request, a board entry carries colour/symbol exactly when the
     place shows a visible face (the rules page: a cube is revealed once a
     face has been visible, and faces only ever open up, so "revealed" is
     "shows a face" at every point of a game);
   - the board, replayed from the events alone (start: 56 hidden places;
     "reveal" names a place and its kind; "remove" empties a place and, with
     a slide axis, slides the covering line one place down), equals every
     observation's board, and a reveal only ever names a place that shows
     a face at that moment;
   - the collections in the observation are the removals seen in events;
   - nothing anywhere is named seed/order/rng, and no integer in any
     message equals the seed; the end observation shows every cube.
   The checker is shown to fail on real messages with a leak planted (a
   symbol on a hidden cube, a wrong slide axis, a dropped reveal, the seed
   as a value or a "seed" key).

Environment: MAAT_REFEREE, MAAT_LADDER, MAAT_RANDOM, MAAT_GREEDY, MAAT_MCTS
(set by tests/meson.build); MAAT_SPY optional.
"""
import copy
import glob
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

failures = 0
quiet = False  # the checker's self-test expects failures


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        if not quiet:
            print("FAIL: " + what)
    return cond


# (seed, games in the series, the bots in seat order of game 0)
MATCHES = [
    (301, 2, ["random", "greedy"]),
    (302, 1, ["mcts", "random"]),
    (303, 2, ["greedy", "mcts", "random"]),
    (304, 1, ["random", "random", "random"]),
    (305, 2, ["mcts", "greedy", "random", "mcts"]),
    (306, 1, ["greedy", "greedy", "random", "random"]),
]
# spy matches: (seed, seats); the seed is large so it cannot be confused
# with a small number in a message
SPY_MATCHES = [(7301234567891, 2), (7301234567892, 3), (7301234567893, 4)]
PARTS = ["ankhs", "cranes", "eyes", "majority"]


# ---- a minimal msgpack reader (stdlib only) ------------------------------

def unpack(buf):
    obj, pos = _unpack(buf, 0)
    if pos != len(buf):
        raise ValueError("trailing bytes")
    return obj


def _unpack(b, i):
    t = b[i]
    i += 1
    if t <= 0x7f:
        return t, i
    if 0x80 <= t <= 0x8f:
        return _map(b, i, t & 0x0f)
    if 0x90 <= t <= 0x9f:
        return _arr(b, i, t & 0x0f)
    if 0xa0 <= t <= 0xbf:
        n = t & 0x1f
        return b[i:i + n].decode("utf-8"), i + n
    if t >= 0xe0:
        return t - 0x100, i
    if t == 0xc0:
        return None, i
    if t == 0xc2:
        return False, i
    if t == 0xc3:
        return True, i
    fmt = {0xcc: ">B", 0xcd: ">H", 0xce: ">I", 0xcf: ">Q",
           0xd0: ">b", 0xd1: ">h", 0xd2: ">i", 0xd3: ">q",
           0xca: ">f", 0xcb: ">d"}
    if t in fmt:
        n = struct.calcsize(fmt[t])
        return struct.unpack(fmt[t], b[i:i + n])[0], i + n
    if t in (0xd9, 0xda, 0xdb, 0xc4, 0xc5, 0xc6):
        w = {0xd9: 1, 0xda: 2, 0xdb: 4, 0xc4: 1, 0xc5: 2, 0xc6: 4}[t]
        n = int.from_bytes(b[i:i + w], "big")
        i += w
        raw = b[i:i + n]
        return (raw.decode("utf-8") if t >= 0xd9 else bytes(raw)), i + n
    if t in (0xdc, 0xdd):
        w = 2 if t == 0xdc else 4
        return _arr(b, i + w, int.from_bytes(b[i:i + w], "big"))
    if t in (0xde, 0xdf):
        w = 2 if t == 0xde else 4
        return _map(b, i + w, int.from_bytes(b[i:i + w], "big"))
    raise ValueError("msgpack type 0x%02x not expected" % t)


def _arr(b, i, n):
    out = []
    for _ in range(n):
        v, i = _unpack(b, i)
        out.append(v)
    return out, i


def _map(b, i, n):
    out = {}
    for _ in range(n):
        k, i = _unpack(b, i)
        v, i = _unpack(b, i)
        out[k] = v
    return out, i


def spy_messages(path):
    with open(path, "rb") as f:
        data = f.read()
    pos, out = 0, []
    while pos + 4 <= len(data):
        n = struct.unpack("<I", data[pos:pos + 4])[0]
        out.append(unpack(data[pos + 4:pos + 4 + n]))
        pos += 4 + n
    return out


# ---- the pyramid, as the rules page draws it ----------------------------

PLACES = [(x, y, z) for x in range(6) for y in range(6) for z in range(6)
          if x + y + z <= 5]


def faces(board, p):
    """Visible upper faces of place p on a board {place: kind or None}."""
    n = 0
    for d in range(3):
        u = list(p)
        u[d] -= 1
        u = tuple(u)
        n += u[d] < 0 or u not in board
    return n


def walk(o, fn):
    fn(o)
    if isinstance(o, dict):
        for k, v in o.items():
            walk(k, fn)
            walk(v, fn)
    elif isinstance(o, list):
        for v in o:
            walk(v, fn)


def check_spy_game(tag, msgs, seed):
    """msgs: one seat's messages of one game, from its start to its end."""
    board = {p: None for p in PLACES}  # place -> (colour, symbol) or None
    collected = None
    seat = msgs[0]["seat"]
    seats = msgs[0]["seats"]
    collected = [[] for _ in range(seats)]
    requests = 0
    for m in msgs:
        bad_keys = []

        def scan(o):
            if isinstance(o, str) and o.lower() in ("seed", "order", "rng",
                                                    "deck_order"):
                bad_keys.append(o)
            if isinstance(o, int) and not isinstance(o, bool) and \
                    abs(o) >= 1 << 32:
                bad_keys.append(o)
            if o == seed:
                bad_keys.append(o)
        walk(m, scan)
        check(not bad_keys, "%s: a %s message names %s" %
              (tag, m.get("type"), bad_keys[:3]))
        if m.get("type") not in ("request", "end"):
            continue
        # replay the events
        for e in m.get("events", []):
            kind = e.get("event")
            if kind == "reveal":
                p = (e["x"], e["y"], e["z"])
                ok = p in board and board[p] is None
                check(ok, "%s: reveal of %s, not a hidden occupied place"
                      % (tag, p))
                if ok:
                    board[p] = (e["colour"], e["symbol"])
                    check(faces(board, p) > 0, "%s: %s revealed but shows "
                          "no face" % (tag, p))
            elif kind == "remove":
                p = (e["x"], e["y"], e["z"])
                ok = board.get(p) is not None
                check(ok, "%s: remove of %s, not a revealed cube" % (tag, p))
                if not ok:
                    continue
                check(board[p] == (e["colour"], e["symbol"]),
                      "%s: remove event names another kind" % tag)
                f = faces(board, p)
                check(f >= 2, "%s: removed %s with %d faces" % (tag, p, f))
                collected[e["seat"]].append(board[p])
                del board[p]
                axis = {"x": 0, "y": 1, "z": 2, None: None}[e["slide"]]
                # a slide exactly when the cube showed 2 faces, along the
                # axis of its one occupied up-neighbour
                cover = [d for d in range(3)
                         if tuple(c - (i == d) for i, c in enumerate(p))
                         in board]
                check((axis is None and f == 3) or
                      (f == 2 and cover == [axis]),
                      "%s: slide %s after removing %s (%d faces)"
                      % (tag, e["slide"], p, f))
                if axis is not None:
                    to = p
                    while True:
                        fr = list(to)
                        fr[axis] -= 1
                        fr = tuple(fr)
                        if fr not in board:
                            break
                        board[to] = board.pop(fr)
                        to = fr
            elif kind == "end":
                pass
            else:
                check(False, "%s: unknown event %s" % (tag, kind))
        obs = m["observation"]
        over = m["type"] == "end"
        check(obs.get("over") is over and obs.get("seat") == seat,
              "%s: observation over/seat wrong" % tag)
        shown = {}
        for c in obs["cubes"]:
            p = (c["x"], c["y"], c["z"])
            has = "colour" in c or "symbol" in c
            check(set(c) == ({"x", "y", "z", "colour", "symbol"} if has
                             else {"x", "y", "z"}),
                  "%s: board entry keys %s" % (tag, sorted(c)))
            shown[p] = (c.get("colour"), c.get("symbol")) if has else None
        check(set(shown) == set(board), "%s: the observation's places are "
              "not the events' board" % tag)
        for p, k in shown.items():
            if p not in board:
                continue
            if over:
                check(k is not None, "%s: the end hides %s" % (tag, p))
            else:
                visible = faces(shown, p) > 0
                check((k is not None) == visible,
                      "%s: %s shows a face %s but its kind is %s" %
                      (tag, p, visible, "shown" if k else "hidden"))
            check(k == board[p], "%s: %s is %s, the events say %s" %
                  (tag, p, k, board[p]))
        got = [sorted((c["colour"], c["symbol"]) for c in lst)
               for lst in obs["collected"]]
        check(got == [sorted(lst) for lst in collected],
              "%s: the collections are not the removals seen" % tag)
        if m["type"] == "request":
            requests += 1
            check(obs.get("to_move") == seat and m.get("decision") ==
                  "remove", "%s: a request not for this seat" % tag)
            legal = m["legal"]
            check(legal and all(set(a) == {"kind", "x", "y", "z"} and
                                a["kind"] == "remove" for a in legal),
                  "%s: a legal list entry is not a remove" % tag)
            for a in legal:
                p = (a["x"], a["y"], a["z"])
                check(p in board and 2 <= faces(board, p),
                      "%s: legal removal of %s with < 2 faces" % (tag, p))
    return requests


def self_test(msgs, seed):
    """The checker must fail on hand-made leaks in real messages."""

    def fails(mutate):
        global failures, quiet
        m = copy.deepcopy(msgs)
        if not mutate(m):
            return False
        saved, failures, quiet = failures, 0, True
        try:
            check_spy_game("self-test", m, seed)
        except (KeyError, TypeError, ValueError):
            failures += 1
        n, failures, quiet = failures, saved, False
        return n > 0

    def leak_symbol(m):  # a hidden board entry carries its kind
        for x in m:
            for c in x.get("observation", {}).get("cubes", []):
                if "symbol" not in c:
                    c["colour"], c["symbol"] = "blue", "eye"
                    return True
        return False

    def wrong_slide(m):
        for x in m:
            for e in x.get("events", []):
                if e.get("event") == "remove" and e["slide"] is not None:
                    e["slide"] = {"x": "y", "y": "z", "z": "x"}[e["slide"]]
                    return True
        return False

    def hide_reveal(m):  # a reveal event dropped
        for x in m:
            ev = x.get("events", [])
            for i, e in enumerate(ev):
                if e.get("event") == "reveal" and x["type"] == "request" \
                        and x is not m[1]:
                    del ev[i]
                    return True
        return False

    def seed_sent(m):
        m[1]["observation"]["hint"] = seed
        return True

    def seed_key(m):
        m[1]["seed"] = 1
        return True

    for name, f in [("a symbol on a hidden cube", leak_symbol),
                    ("a wrong slide axis", wrong_slide),
                    ("a dropped reveal event", hide_reveal),
                    ("the seed as a value", seed_sent),
                    ("a 'seed' key", seed_key)]:
        check(fails(f), "the spy checker misses %s" % name)


def spy_matches(tmp, referee, spy):
    for seed, seats in SPY_MATCHES:
        d = os.path.join(tmp, "spy%d" % seats)
        os.makedirs(d)
        rec = os.path.join(d, "rec.json")
        cmd = [referee, "--game", "pyramix", "--seed", str(seed),
               "--record", rec, "--time", "10000", "--first-time", "10000",
               "--hello-time", "60000", "--quiet"]
        for s in range(seats):
            cmd += ["--bot", "spy%d=%s --dir %s --seed %d" % (s, spy, d, s)]
        tag = "%d spies" % seats
        r = subprocess.run(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=300,
                           universal_newlines=True)
        if not check(r.returncode == 0, "%s: referee exit %d\n%s"
                     % (tag, r.returncode, r.stdout)):
            continue
        with open(rec) as f:
            record = json.load(f)
        if not check(record["faults"] == [], "%s: faults %s"
                     % (tag, record["faults"][:5])):
            continue
        total = 0
        for s in range(seats):
            path = os.path.join(d, "spy%d.bin" % s)
            if not check(os.path.exists(path), "%s: no %s" % (tag, path)):
                continue
            msgs = spy_messages(path)
            types = [m.get("type") for m in msgs]
            check(types[0] == "welcome" and types[-1] == "bye",
                  "%s: spy%d got %s...%s" % (tag, s, types[:1], types[-1:]))
            welcome = msgs[0]
            check(welcome.get("game") == "pyramix" and
                  welcome.get("rules_version") == "pyramix-2" and
                  welcome.get("setup") == {},
                  "%s: welcome %s" % (tag, welcome))
            start = types.index("start")
            end = types.index("end")
            total += check_spy_game("%s seat %d" % (tag, s),
                                    msgs[start:end + 1], seed)
            if s == 0 and seats == 2:
                self_test(msgs[start:end + 1], seed)
        check(total == 35, "%s: %d requests, want 35" % (tag, total))
        v = subprocess.run([referee, "--verify", rec], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=60,
                           universal_newlines=True)
        check(v.returncode == 0, "%s: --verify exit %d\n%s"
              % (tag, v.returncode, v.stdout))
        print("%s: %s" % (tag, "ok" if not failures else "checked"))


def main():
    env = {k: os.environ.get("MAAT_" + k.upper())
           for k in ("referee", "ladder", "random", "greedy", "mcts")}
    missing = [k for k, v in env.items() if not v]
    if missing:
        print("set " + ", ".join("MAAT_" + k.upper() for k in missing))
        return 1
    referee = env["referee"]
    commands = {"random": env["random"], "greedy": env["greedy"],
                "mcts": env["mcts"] + " --iterations 30"}
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="maat-pyramix-") as tmp:
        ladder = os.path.join(tmp, "ladder.jsonl")
        games_of = {}
        n_games = 0
        for seed, games, bots in MATCHES:
            seats = len(bots)
            names = ["%s%d" % (b, i) for i, b in enumerate(bots)]
            tag = "%d-seat %s (seed %d)" % (seats, "/".join(bots), seed)
            rec = os.path.join(tmp, "rec%d.json" % seed)
            logs = os.path.join(tmp, "logs%d" % seed)
            cmd = [referee, "--game", "pyramix", "--seed", str(seed),
                   "--games", str(games), "--record", rec,
                   "--ladder", ladder, "--time", "10000",
                   "--first-time", "10000", "--hello-time", "60000",
                   "--log-dir", logs, "--quiet"]
            for name, bot in zip(names, bots):
                cmd += ["--bot", "%s=%s" % (name, commands[bot])]
            before = failures
            t0 = time.time()
            try:
                r = subprocess.run(cmd, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, timeout=240,
                                   universal_newlines=True)
            except subprocess.TimeoutExpired:
                check(False, "%s: the referee did not finish in 240 s" % tag)
                continue
            check(r.returncode == 0, "%s: referee exit %d\n%s"
                  % (tag, r.returncode, r.stdout))
            if games == 1:
                paths = [rec] if os.path.exists(rec) else []
            else:
                paths = sorted(glob.glob(os.path.join(tmp, "rec%d-*.json"
                                                      % seed)))
            check(len(paths) == games, "%s: %d records, want %d"
                  % (tag, len(paths), games))
            for path in paths:
                what = "%s %s" % (tag, os.path.basename(path))
                with open(path) as f:
                    record = json.load(f)
                n_games += 1
                for name in names:
                    games_of[name] = games_of.get(name, 0) + 1
                check(record["game"] == "pyramix" and
                      record["rules_version"] == "pyramix-2",
                      "%s: game %s %s" % (what, record["game"],
                                          record["rules_version"]))
                check(record["faults"] == [],
                      "%s: faults %s" % (what, record["faults"][:5]))
                res = record["result"]
                check(len(res) == seats and not any(x["out"] for x in res),
                      what + ": a seat is out or missing")
                check(len(record["decisions"]) == 35,
                      "%s: %d decisions, want 35 (56 - 21 cubes)"
                      % (what, len(record["decisions"])))
                by_other = [d for d in record["decisions"]
                            if d["by"] != "bot"]
                check(not by_other, "%s: decisions not by the bot: %s"
                      % (what, by_other[:3]))
                check(all(d["kind"] == "remove" and
                          set(d["action"]) == {"kind", "x", "y", "z"}
                          for d in record["decisions"]),
                      what + ": a decision is not a remove")
                check([d["seat"] for d in record["decisions"]] ==
                      [k % seats for k in range(35)],
                      what + ": seats did not take turns from seat 0")
                for x in res:
                    check(sorted(x["parts"]) == sorted(PARTS) and
                          sum(x["parts"].values()) == x["score"],
                          "%s: seat %d parts %s score %d"
                          % (what, x["seat"], x["parts"], x["score"]))
                    better = sum(1 for y in res if y["score"] > x["score"])
                    check(x["game_rank"] == 1 + better,
                          "%s: seat %d game_rank %d, want %d"
                          % (what, x["seat"], x["game_rank"], 1 + better))
                v = subprocess.run([referee, "--verify", path],
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, timeout=60,
                                   universal_newlines=True)
                check(v.returncode == 0, "%s: --verify exit %d\n%s"
                      % (what, v.returncode, v.stdout))
            for log in sorted(glob.glob(os.path.join(logs, "*"))):
                with open(log, errors="replace") as f:
                    text = f.read()
                check("maat_bot_sample" not in text,
                      "%s: %s: a sample failed" % (tag,
                                                   os.path.basename(log)))
                if failures != before and text.strip():
                    print("--- %s\n%s" % (os.path.basename(log),
                                         text.strip()[-2000:]))
            print("%s: %s (%.1f s)" % (tag, "ok" if failures == before
                                       else "FAILED", time.time() - t0))

        # ---- the ladder file and standings --------------------------
        lines = []
        if check(os.path.exists(ladder), "no ladder file"):
            with open(ladder) as f:
                lines = [json.loads(x) for x in f if x.strip()]
        check(len(lines) == n_games, "%d ladder lines for %d games"
              % (len(lines), n_games))
        check(all(x["game"] == "pyramix" and
                  x["rules_version"] == "pyramix-2" and x["faults"] == []
                  for x in lines), "a ladder line is not a clean pyramix "
              "game")
        lad = env["ladder"]
        for fmt in ("table", "json", "csv"):
            r = subprocess.run([lad, "standings", ladder, "--format", fmt],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=60,
                               universal_newlines=True)
            check(r.returncode == 0, "standings --format %s: exit %d\n%s"
                  % (fmt, r.returncode, r.stderr))
            for name in games_of:
                check(name in r.stdout, "standings --format %s lacks %s"
                      % (fmt, name))
        r = subprocess.run([lad, "standings", ladder, "--game", "pyramix",
                            "--format", "json"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60,
                           universal_newlines=True)
        if check(r.returncode == 0, "standings --game pyramix: exit %d\n%s"
                 % (r.returncode, r.stderr)):
            rows = json.loads(r.stdout)
            got = {x["bot"]: x["games"] for x in rows}
            check(got == games_of, "standings games %s, want %s"
                  % (got, games_of))
            check(all(x["game"] == "pyramix" for x in rows),
                  "a standings row is not pyramix")
        print("ladder: %d games, %d bots" % (len(lines), len(games_of)))

        # ---- hidden information ---------------------------------------
        spy = os.environ.get("MAAT_SPY")
        if spy:
            spy_matches(tmp, referee, spy)
        else:
            print("MAAT_SPY not set: hidden-information matches skipped")
    print("%d failure(s) in %.1f s" % (failures, time.time() - start))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
