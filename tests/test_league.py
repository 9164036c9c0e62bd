#!/usr/bin/env python3
"""maat-ladder league end to end (docs/LEAGUE.md), with the sample bots and
the hostile test bot:

- a running league takes entries by `league add` and by files dropped into
  DIR/entries, a new version by a changed file, retirement by `league
  retire`, with no restart: each version plays its validation games against
  the reference bot first; a crashing version is reported as failed with its
  fault, its game and its log (which exists); a newer version that passes
  retires the older one; a retired entry starts no more matches;
- SIGTERM stops it gracefully: no started match is lost (every match number
  below the counter has all its games); a restart continues the numbering,
  says nothing twice, and its page equals `maat-ladder standings`; after a
  kill -9 the orphaned referees finish and a restart counts their games
  once; hostile entry files (not JSON, a NUL byte, 20 kB, a symlink, a FIFO,
  both a command and a key) are refused once each and the league plays on;
- the page's data: entries with their states, replays that exist;
- a second league process on the same directory is refused; a second
  signal cuts running matches short (exit 4) and leaves no referee behind;
- a remote entry (a CURVE key instead of a command) plays when its bot
  connects, and when it stops connecting, its games count against it
  (no_hello), it waits for the retry time, and the others keep playing;
  a tournament takes the same remote bot (a key and a token in its bots);
- "queue": the league writes one command per match to DIR/queue for GNU
  parallel (two fake ssh hosts, each in its own directory) and merges the
  shards that come back: it is the only writer of its ladders.
- the league examples of README.md and docs/LEAGUE.md run as written.
Config and command-line errors name the file and field or the option.

Waiting for the league (a separate process) is done by polling its files
with a deadline, never by sleeping for a fixed time.  Exit 77 (skipped)
only when GNU parallel is missing and everything else passed."""
import json, os, shutil, signal, socket, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from maattest import BUILD, HOSTILE, RANDOM, REFEREE as REF, check, report  # noqa: E402

LADDER = os.environ.get("MAAT_LADDER", os.path.join(BUILD, "ladder", "maat-ladder"))
REPLAY = os.environ.get("MAAT_REPLAY", os.path.join(BUILD, "replay", "maat-replay"))
GREEDY = os.environ.get("MAAT_GREEDY", os.path.join(BUILD, "sample-bots", "maat-greedy"))
T0 = time.monotonic()
with open(RANDOM, "rb") as _f:  # AddressSanitizer builds: no --limit-as
    SAN = b"__asan_init" in _f.read()
REF_ARGS = ["--limit-as", "0"] if SAN else []


def ladder(*args, timeout=120):
    p = subprocess.run([LADDER, *args], capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def new_league(d, **fields):
    rc, out, err = ladder("league", "new", d, "--reference", RANDOM,
                          "--jobs", "2", "--validation-matches", "1")
    assert rc == 0, err
    path = os.path.join(d, "league.json")
    conf = json.load(open(path))
    conf.update(referee=REF, replay=REPLAY, referee_args=REF_ARGS)
    conf.update(fields)
    json.dump(conf, open(path, "w"), indent=2)


def start(d, *args):
    log = open(os.path.join(d, "league.log"), "w+")
    return subprocess.Popen([LADDER, "league", "run", d, *args], stdout=log,
                            stderr=subprocess.STDOUT, text=True), log


def lines(path):
    try:
        text = open(path).read()
    except FileNotFoundError:
        return []
    return [json.loads(l) for l in text.split("\n")[:-1] if l.strip()]


def events(d):
    return lines(os.path.join(d, "events.jsonl"))


def has_event(d, what, bot=None):
    return [e for e in events(d) if e["event"] == what and
            (bot is None or e.get("bot") == bot)]


def wait_for(cond, what, timeout=120, proc=None):
    """Poll `cond` until it holds (the league is another process)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        if proc is not None and proc.poll() is not None:
            break
        time.sleep(0.05)
    return check(cond(), what + " (waited)")


def ranked_games(d):
    return lines(os.path.join(d, "ladder.jsonl"))


def counter(d):
    return int(open(os.path.join(d, "state", "next-match")).read())


def drop(d, name, entry):
    """A file dropped into DIR/entries by hand (written, then renamed)."""
    tmp = os.path.join(d, "." + name + ".tmp")
    json.dump(entry, open(tmp, "w"))
    os.rename(tmp, os.path.join(d, "entries", name + ".json"))


def stop(p, log, sig=signal.SIGTERM):
    p.send_signal(sig)
    rc = p.wait(timeout=120)
    log.seek(0)
    return rc, log.read()


def finish(p, log, d, timeout=300):
    """Wait for a league that stops by itself (--max-matches).  If it does
    not, say why: kill it and print its log's tail and its last events, so a
    failure on a CI machine can be read from the test's output."""
    try:
        return p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        log.seek(0)
        print("# the league in %s did not stop within %d s; its log ends:" % (d, timeout))
        for l in log.read().splitlines()[-30:]:
            print("#   " + l)
        print("# its last events:")
        for e in events(d)[-10:]:
            print("#   %s" % e)
        print("# referees still running: %s" % referees_of(d))
        return -1


def no_lost_match(d):
    """Every match number below the counter left all its games, but those
    the referee could not hold (an event says so)."""
    per = {}
    for f in ("ladder.jsonl", "validation.jsonl"):
        for g in lines(os.path.join(d, f)):
            per.setdefault(g["match"], set()).add(g["game_index"])
    n = counter(d)
    seats = json.load(open(os.path.join(d, "league.json")))["seats"]
    failed = {e.get("game") for e in events(d) if e["event"] == "match failed"}
    missing = [k for k in range(n) if len(per.get("m%d" % k, per.get("v%d" % k, ()))) != seats
               and "m%d" % k not in failed and "v%d" % k not in failed]
    return missing


def referees_of(d):
    out = []
    for pid in os.listdir("/proc"):
        try:
            cmd = open("/proc/%s/cmdline" % pid, "rb").read().split(b"\0")
        except OSError:
            continue
        if cmd and cmd[0].endswith(b"maat-referee") and any(d.encode() in a for a in cmd):
            out.append(int(pid))
    return out


tmp = tempfile.mkdtemp(prefix="maat-test-league-")
try:
    # ---- errors -------------------------------------------------------------------
    rc, out, err = ladder("league", "new", os.path.join(tmp, "x"))
    check(rc == 2 and "--reference" in err, "league new without --reference: exit 2 naming it")
    rc, out, err = ladder("league", "run", os.path.join(tmp, "nowhere"))
    check(rc == 2 and "no such directory" in err, "league run of a missing directory: exit 2")
    # options refused before anything is made: the same command, corrected,
    # then works (it used to leave a league.json saying "chess" behind)
    x = os.path.join(tmp, "x")
    rc, out, err = ladder("league", "new", x, "--reference", RANDOM, "--game", "chess")
    check(rc == 2 and "no game named 'chess'" in err and "pyramids, pyramix, architects" in err
          and not os.path.exists(x),
          "league new --game chess: exit 2 naming the games, nothing made (%s)" % err.strip())
    rc, out, err = ladder("league", "new", x, "--reference", RANDOM, "--seats", "7")
    check(rc == 2 and "'seats'" in err and not os.path.exists(x),
          "league new --seats 7: exit 2, nothing made (%s)" % err.strip())
    rc, out, err = ladder("league", "new", x, "--reference", RANDOM)
    check(rc == 0, "league new, corrected: made (%s)" % err.strip())
    rc, out, err = ladder("league", "add", x, "blank", "   ")
    check(rc == 2 and "not only blanks" in err, "league add with a blank command: "
          "refused (%s)" % err.strip())
    ladder("league", "add", x, "same", RANDOM)
    rc, out, err = ladder("league", "add", x, "same", RANDOM)
    check(rc == 0 and out.startswith("unchanged") and "no new version" in out,
          "league add of the same content again: says unchanged (%s)" % out.strip())
    rc, out, err = ladder("league", "retire", x, "nosuch")
    check(rc == 2 and "has no entry 'nosuch'" in err,
          "league retire of an unknown entry: says so (%s)" % err.strip())
    bad = os.path.join(tmp, "bad")
    new_league(bad)
    conf = json.load(open(os.path.join(bad, "league.json")))
    for field, value, says in (("colour", 1, "unknown field 'colour'"),
                               ("seats", 9, "field 'seats' must be a whole number from 2 to 5"),
                               ("half_life", 0, "field 'half_life'"),
                               ("remote", {"endpoint": "tcp://x:1", "port": 1},
                                "remote: unknown field 'port'")):
        c = dict(conf)
        c[field] = value
        json.dump(c, open(os.path.join(bad, "league.json"), "w"))
        rc, out, err = ladder("league", "run", bad)
        check(rc == 2 and "league.json" in err and says in err,
              "config %s=%r: exit 2, names the file and the field: %s" % (field, value, err.strip()))
    json.dump(conf, open(os.path.join(bad, "league.json"), "w"))
    rc, out, err = ladder("league", "new", bad, "--reference", RANDOM)
    check(rc == 2 and "exists already" in err, "league new over an existing league: exit 2")
    rc, out, err = ladder("league", "add", bad, "no spaces", RANDOM)
    check(rc == 2 and "NAME" in err, "league add with a bad name: exit 2")
    rc, out, err = ladder("league", "add", bad, "k", "--key", "short")
    check(rc == 2 and "40 characters" in err, "league add with a bad key: exit 2")
    rc, out, err = ladder("league", "retire", bad, "nobody")
    check(rc == 2 and "nobody.json" in err, "league retire of an unknown entry: exit 2")

    # ---- a league that runs: entries come and go ------------------------------------------
    d = os.path.join(tmp, "main")
    new_league(d)
    for name, cmd in (("greedy", GREEDY), ("random", RANDOM)):
        rc, out, err = ladder("league", "add", d, name, cmd)
        check(rc == 0 and "added" in out, "league add %s before the start" % name)
    p, log = start(d)
    wait_for(lambda: has_event(d, "ranked", "greedy.1") and has_event(d, "ranked", "random.1"),
             "both entries pass their validation games", proc=p)
    wait_for(lambda: len(ranked_games(d)) >= 4, "ranked games are played", proc=p)
    rc2, out2, err2 = ladder("league", "run", d)
    check(rc2 == 2 and "another league runs in" in err2,
          "a second league process on the same directory is refused")

    # a version that crashes: failed, with its fault, game and log
    ladder("league", "add", d, "crashy", HOSTILE + " --mode crash --after 3")
    wait_for(lambda: has_event(d, "failed", "crashy.1"), "a crashing entry fails validation",
             proc=p)
    f = (has_event(d, "failed", "crashy.1") or [{}])[0]
    check("crash" in f.get("detail", "") and f.get("game", "").startswith("v"),
          "the failure names the fault and the game: %s" % f)
    check(f.get("log") and os.path.exists(os.path.join(d, f["log"])),
          "... and a log that exists: %s" % f.get("log"))
    # a program that does not exist: its validation match cannot be held
    ladder("league", "add", d, "ghost", "/nonexistent/ghost-bot")
    wait_for(lambda: has_event(d, "failed", "ghost.1"), "an entry the referee cannot start "
             "fails validation", proc=p)
    f = (has_event(d, "failed", "ghost.1") or [{}])[0]
    check("could not be held" in f.get("detail", "") and
          len([e for e in events(d) if e["event"] == "match failed"]) == 1,
          "... once, saying its validation match could not be held: %s" % f.get("detail"))
    # a version that passes validation, then crashes in ranked games: broken
    count = os.path.join(tmp, "flaky.count")
    ladder("league", "add", d, "flaky",
           "sh -c 'n=$(cat %s 2>/dev/null || echo 0); echo $((n+1)) > %s; "
           "if [ $n -lt 2 ]; then exec %s; else exec %s --mode crash; fi'"
           % (count, count, RANDOM, HOSTILE))
    wait_for(lambda: has_event(d, "broken", "flaky.1"), "a version that crashes in ranked "
             "games is broken", proc=p)
    b = (has_event(d, "broken", "flaky.1") or [{}])[0]
    check("crash" in b.get("detail", ""), "... with its faults: %s" % b.get("detail"))
    after_broken = counter(d)
    # hostile entry files: refused once each, with the reason; nothing stops
    ents = os.path.join(d, "entries")
    open(os.path.join(ents, "bad1.json"), "w").write("{not json")
    open(os.path.join(ents, "bad2.json"), "wb").write(b'{"command": "x\0y"}')
    open(os.path.join(ents, "bad3.json"), "w").write(json.dumps({"command": "x" * 20000}))
    os.symlink("/etc/passwd", os.path.join(ents, "bad4.json"))
    open(os.path.join(ents, "bad5.json"), "w").write(json.dumps({"command": "x", "key": "y"}))
    os.mkfifo(os.path.join(ents, "bad6.json"))
    n0 = len(ranked_games(d))
    wait_for(lambda: len({e["entry"] for e in has_event(d, "refused")}) == 6,
             "six hostile entry files are refused", proc=p)
    wait_for(lambda: len(ranked_games(d)) > n0 + 2, "the league plays on", proc=p)
    refused = has_event(d, "refused")
    check(len(refused) == 6 and all(e.get("detail") and "bad" in e["detail"] and
                                    "file is gone" not in e["detail"] for e in refused),
          "each refused once, with its reason: %s" % [e.get("detail", "")[-60:] for e in refused])
    for name in ("bad1", "bad2", "bad3", "bad4", "bad5", "bad6"):
        os.unlink(os.path.join(ents, name + ".json"))
    # a file dropped into the directory
    drop(d, "mcts", {"command": os.path.join(os.path.dirname(RANDOM), "maat-mcts") +
                     " --iterations 30"})
    wait_for(lambda: has_event(d, "ranked", "mcts.1"), "a dropped file becomes a ranked entry",
             proc=p)
    # a new version of greedy (a changed file) and of crashy
    drop(d, "greedy", {"command": "env LEAGUE_TEST=2 " + GREEDY})
    drop(d, "crashy", {"command": RANDOM})
    wait_for(lambda: has_event(d, "ranked", "greedy.2") and has_event(d, "ranked", "crashy.2"),
             "new versions are validated and ranked", proc=p)
    wait_for(lambda: has_event(d, "retired", "greedy.1"), "the older version of greedy retires",
             proc=p)
    check(not has_event(d, "retired", "crashy.1"), "a failed version is not 'retired' again")
    # retire an entry by command
    rc, out, err = ladder("league", "retire", d, "random")
    check(rc == 0, "league retire random")
    wait_for(lambda: has_event(d, "retired", "random.1"), "random.1 is retired", proc=p)
    after = counter(d)
    wait_for(lambda: len([g for g in ranked_games(d) if int(g["match"][1:]) >= after]) >= 6,
             "matches go on after the retirement", proc=p)
    late = [g["id"] for g in ranked_games(d)
            if int(g["match"][1:]) >= after and "random.1" in g["bots"]]
    check(not late, "no match started after the retirement has random.1: %s" % late[:3])
    check(not [g for g in ranked_games(d) if "crashy.1" in g["bots"]],
          "the failed version never played a ranked game")
    check(not [g for g in ranked_games(d)
               if int(g["match"][1:]) >= after_broken and "flaky.1" in g["bots"]],
          "no match started after the broken version was reported has it")
    rc, text = stop(p, log)
    check(rc == 0, "SIGTERM: a graceful stop, exit 0 (%d)" % rc)
    check(no_lost_match(d) == [], "no match lost: every match number has all its games (%s)"
          % no_lost_match(d)[:5])
    check(not referees_of(d), "no referee left running")

    # the page's data, and the standings of the ladder file
    doc = json.load(open(os.path.join(d, "site", "leaderboard.json")))
    st = json.loads(ladder("standings", os.path.join(d, "ladder.jsonl"), "--format", "json")[1])
    want = {r["bot"]: (round(r["rating"], 3), r["games"]) for r in st}
    got = {r["bot"]: (r["rating"], r["games"]) for r in doc["standings"]}
    check(got == want, "the page's standings are the ladder file's: %s / %s" % (got, want))
    states = {e["bot"]: e["state"] for e in doc["entries"]}
    check(states.get("crashy.1") == "failed" and states.get("ghost.1") == "failed" and states.get("crashy.2") == "ranked" and
          states.get("greedy.1") == "retired" and states.get("random.1") == "retired" and
          states.get("mcts.1") == "ranked",
          "the page's entries have their states: %s" % states)
    fe = [e for e in doc["entries"] if e["bot"] == "crashy.1"][0]
    check(fe.get("replay") and os.path.exists(os.path.join(d, "site", fe["replay"])) and
          fe.get("log"), "the failed entry links its game's replay and its log")
    reps = [g["replay"] for g in doc["recent"]]
    check(reps and all(r and os.path.exists(os.path.join(d, "site", r)) for r in reps),
          "every recent game links a replay that exists (%d)" % len(reps))

    # a restart continues, says nothing twice
    before_events = len(events(d))
    n0 = counter(d)
    p, log = start(d, "--max-matches", "2")
    rc = finish(p, log, d)
    check(rc == 0, "a restart with --max-matches 2 stops by itself (exit %d)" % rc)
    new = [g for g in ranked_games(d) if int(g["match"][1:]) >= n0]
    check(len(new) == 4 and len({g["match"] for g in new}) == 2,
          "it played 2 new matches numbered from the counter (%d games)" % len(new))
    again = [e for e in events(d)[before_events:]
             if e["event"] in ("added", "removed", "ranked", "failed", "retired")]
    check(not again, "nothing is announced twice after a restart: %s" % again)

    # kill -9 of the league while matches run: the orphaned referees finish
    # their games into the ladder; a restart counts them once and never
    # reuses a match number
    p, log = start(d)
    wait_for(lambda: referees_of(d), "matches are running", proc=p)
    p.kill()
    p.wait(timeout=30)
    n_killed = counter(d)
    wait_for(lambda: not referees_of(d), "the orphaned referees finish")
    p, log = start(d, "--max-matches", "1")
    rc = finish(p, log, d)
    ids = [g["id"] for g in ranked_games(d)]
    check(rc == 0 and len(ids) == len(set(ids)) and counter(d) > n_killed and
          no_lost_match(d) == [],
          "after kill -9 and a restart: no game twice, no match number reused, none lost")

    # the organiser's mistakes are not charged to the entries: a referee
    # that cannot be run stops `league run` at once, naming the field; a
    # reference bot that never starts validates nobody
    o = os.path.join(tmp, "organiser")
    new_league(o, referee="/nonexistent/maat-referee")
    ladder("league", "add", o, "e1", RANDOM)
    rc, out, err = ladder("league", "run", o)
    check(rc == 2 and "field 'referee'" in err and "/nonexistent/maat-referee" in err and
          not has_event(o, "failed"),
          "a referee that cannot be run: exit 2 naming the field, no entry failed (%s)"
          % err.strip()[-200:])
    o2 = os.path.join(tmp, "organiser2")
    new_league(o2, reference="sh -c 'exit 3'")
    for name in ("e1", "e2"):
        ladder("league", "add", o2, name, RANDOM)
    bad = os.path.join(o2, "entries", "bad.json")
    open(bad, "w").write("{not json")
    os.utime(bad, (time.time() - 60, time.time() - 60))  # not being written
    p, log = start(o2)
    wait_for(lambda: [e for e in events(o2) if e["event"] == "match failed" and
                      "reference bot" in e.get("detail", "")],
             "a validation game whose reference never started is said", proc=p)
    rc, text = stop(p, log)
    check(not has_event(o2, "ranked") and not has_event(o2, "failed"),
          "... and counts for no entry: none ranked, none failed (%s)"
          % [e["event"] for e in events(o2)])
    # a restart does not say the same refusal again (once per content)
    failed_before = len(has_event(o2, "match failed"))
    refused_first = len(has_event(o2, "refused"))
    p, log = start(o2)
    wait_for(lambda: len(has_event(o2, "match failed")) > failed_before,
             "the restarted league plays", proc=p)
    rc, text = stop(p, log)
    check(len(has_event(o2, "refused")) == 1 and refused_first == 1,
          "a restart does not log the same refusal again (%d, %d before)"
          % (len(has_event(o2, "refused")), refused_first))

    # Ctrl-C on a terminal signals the whole foreground process group: the
    # league's referees are not in it, so the running matches end in full
    c = os.path.join(tmp, "ctrlc")
    new_league(c)
    slow = "sh -c 'sleep 1; exec %s'" % RANDOM  # each game's bots start late
    for name in ("s1", "s2"):
        drop(c, name, {"command": slow})
    log = open(os.path.join(c, "league.log"), "w+")
    p = subprocess.Popen([LADDER, "league", "run", c], stdout=log,
                         stderr=subprocess.STDOUT, text=True,
                         start_new_session=True)
    wait_for(lambda: referees_of(c), "a match is running", proc=p)
    os.killpg(p.pid, signal.SIGINT)
    try:
        rc = p.wait(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
    games = lines(os.path.join(c, "validation.jsonl")) + ranked_games(c)
    per_match = {}
    for g in games:
        per_match[g["match"]] = per_match.get(g["match"], 0) + 1
    failed = [e for e in events(c) if e["event"] == "match failed"]
    check(rc == 0 and games and all(n == 2 for n in per_match.values()) and
          not failed and not referees_of(c),
          "Ctrl-C to the league's process group: the running matches end in "
          "full (%s), no match failed (%s), exit 0 (%d)" % (per_match, failed, rc))

    # a second signal cuts the running matches short: a bot that never says
    # hello holds its validation match for the referee's --hello-time (10 s)
    h = os.path.join(tmp, "hard")
    new_league(h)
    drop(h, "sleepy", {"command": HOSTILE + " --mode sleepy-hello"})
    p, log = start(h)
    wait_for(lambda: referees_of(h), "a match is running", proc=p)
    p.send_signal(signal.SIGTERM)
    wait_for(lambda: "stopping" in open(os.path.join(h, "league.log")).read(),
             "the first signal is taken", proc=p)  # (two at once are one)
    rc, text = stop(p, log)
    check(rc == 4 and "cut short" in text, "two signals: the running matches are stopped, "
          "exit 4 (%d)" % rc)
    check(not referees_of(h), "... and no referee is left")

    # ---- matchmaking in a real league: no repeat, every pair meets -----------------------------
    for seats, jobs in ((2, 1), (3, 1), (2, 2)):
        mm = os.path.join(tmp, "mm%d-%d" % (seats, jobs))
        new_league(mm, seats=seats, jobs=jobs)
        names = ("a", "b", "c", "d")
        for name in names:
            ladder("league", "add", mm, name, GREEDY if name in "ab" else RANDOM)
        p, log = start(mm, "--max-matches", "12")
        rc = finish(p, log, mm)
        lineups = {}  # with 2 jobs two matches' games may interleave
        for g in ranked_games(mm):
            lineups[g["match"]] = frozenset(g["bots"])
        order = sorted(lineups.items(), key=lambda x: int(x[0][1:]))  # by start
        # no member plays the lineup it played last (by start), and with
        # one job no lineup comes twice in a row at all
        repeats, last = [], {}
        for m, lu in order:
            if any(last.get(b) == lu for b in lu):
                repeats.append(m)
            for b in lu:
                last[b] = lu
        met = {frozenset(x) for _, lu in order for x in
               [(i, j) for i in lu for j in lu if i < j]}
        check(rc == 0 and len(order) == 12 and not repeats and len(met) == 6,
              "%d seats, 4 entries, %d job(s): 12 matches, no member's last lineup "
              "again (%s), all 6 pairs met (%d)" % (seats, jobs, repeats, len(met)))

    # ---- a remote entry -------------------------------------------------------------------------
    def keygen():
        out = subprocess.run([REF, "--keygen"], capture_output=True, text=True,
                             check=True).stdout
        return dict(l.split() for l in out.splitlines() if l and l[0] != "#")

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    r = os.path.join(tmp, "remote")
    new_league(r, remote={"endpoint": "tcp://127.0.0.1:%d" % port, "hello_time": 4000,
                          "retry": 3}, jobs=2)
    for name, cmd in (("greedy", GREEDY), ("random", RANDOM)):
        ladder("league", "add", r, name, cmd)
    alice = keygen()
    rc, out, err = ladder("league", "add", r, "alice", "--key", alice["public"])
    token = ([l.split("=", 1)[1] for l in out.split() if l.startswith("MAAT_TOKEN=")] or [""])[0]
    check(rc == 0 and "MAAT_ENDPOINT=tcp://127.0.0.1:%d" % port in out and len(token) == 32,
          "league add --key says what the entrant needs (a token of 32 hex digits)")
    p, log = start(r)
    keyfile = os.path.join(r, "state", "referee.key")
    wait_for(lambda: os.path.exists(keyfile), "the league made its CURVE key pair", proc=p)
    server = [l.split()[1] for l in open(keyfile) if l.startswith("public")][0]
    env = dict(os.environ, MAAT_ENDPOINT="tcp://127.0.0.1:%d" % port, MAAT_TOKEN=token,
               MAAT_CURVE_SERVERKEY=server, MAAT_CURVE_PUBLICKEY=alice["public"],
               MAAT_CURVE_SECRETKEY=alice["secret"])
    # the entrant's side: a bot started again after each match, until told
    entrant = subprocess.Popen(["bash", "-c", 'while [ ! -e "$STOP" ]; do "$BOT"; done'],
                               env=dict(env, BOT=RANDOM, STOP=os.path.join(tmp, "alice.stop")),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    try:
        wait_for(lambda: has_event(r, "ranked", "alice.1"), "the remote entry passes validation",
                 proc=p)
        wait_for(lambda: sum("alice.1" in g["bots"] for g in ranked_games(r)) >= 4,
                 "the remote entry plays ranked games", proc=p)
        played = [g for g in ranked_games(r) if "alice.1" in g["bots"]]
        check(all(not g["faults"] for g in played), "... without a fault: %s"
              % [g["faults"] for g in played if g["faults"]][:2])
        check(all(g["logs"][g["bots"].index("alice.1")] is None for g in played),
              "... and no log of its own on the league's side (it runs elsewhere)")
        open(os.path.join(tmp, "alice.stop"), "w").close()
        os.killpg(entrant.pid, signal.SIGTERM)
        entrant.wait(timeout=30)
        wait_for(lambda: has_event(r, "absent", "alice.1"),
                 "a remote entry that does not connect is reported absent", proc=p)
        gone = [g for g in ranked_games(r) if "alice.1" in g["bots"] and
                any(f["kind"] == "no_hello" for f in g["faults"])]
        check(gone and all(g["ranks"][g["bots"].index("alice.1")] == 2 for g in gone),
              "its no-show counts against it (no_hello, last place)")
        n_at = len(ranked_games(r))
        wait_for(lambda: len([g for g in ranked_games(r)[n_at:] if "alice.1" not in g["bots"]]) >= 4,
                 "the league is not stalled: the others keep playing", proc=p)
    finally:
        if entrant.poll() is None:
            os.killpg(entrant.pid, signal.SIGKILL)
    rc, text = stop(p, log)
    check(rc == 0, "the remote league stops gracefully (exit %d)" % rc)
    rc, out, err = ladder("league", "status", r)
    check(rc == 0 and ("token " + token) in out and "absent" in out,
          "league status shows the remote entry's token and that it is absent")

    # a tournament with the same remote bot: a key and a token instead of a
    # command; its matches run one at a time, the others beside them
    tour = os.path.join(tmp, "tour.json")
    conf = {"name": "rt", "seats": 2, "matches": 6, "jobs": 2, "referee": REF,
            "referee_args": REF_ARGS, "ladder": os.path.join(tmp, "rt.jsonl"),
            "remote": {"endpoint": "tcp://127.0.0.1:%d" % port, "curve_key": keyfile,
                       "hello_time": 20000},
            "bots": [{"name": "greedy", "command": GREEDY},
                     {"name": "random", "command": RANDOM},
                     {"name": "alice", "key": alice["public"], "token": token}]}
    json.dump(conf, open(tour, "w"))
    rc, out, err = ladder("plan", tour, "--shard-dir", tmp)
    check(rc == 2 and "remote bots" in err, "plan refuses a tournament with remote bots")
    bad_conf = dict(conf, remote={"endpoint": "tcp://127.0.0.1:1"})
    json.dump(bad_conf, open(tour + ".bad", "w"))
    rc, out, err = ladder("run", tour + ".bad")
    check(rc == 2 and "curve_key" in err, "a remote bot needs the endpoint and curve_key")
    os.unlink(os.path.join(tmp, "alice.stop"))
    entrant = subprocess.Popen(["bash", "-c", 'while [ ! -e "$STOP" ]; do "$BOT"; done'],
                               env=dict(env, BOT=RANDOM, STOP=os.path.join(tmp, "alice.stop")),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    try:
        rc, out, err = ladder("run", tour, "--quiet", timeout=600)
    finally:
        open(os.path.join(tmp, "alice.stop"), "w").close()
        os.killpg(entrant.pid, signal.SIGTERM)
        entrant.wait(timeout=30)
    games = lines(os.path.join(tmp, "rt.jsonl"))
    mine = [g for g in games if "alice" in g["bots"]]
    check(rc == 0 and len(games) == 12 and len(mine) == 8 and
          all(not g["faults"] for g in mine),
          "a tournament with a remote bot plays all its matches, the remote one's "
          "without a fault (exit %d, %d games, %d with alice) %s" % (rc, len(games), len(mine),
                                                                     err[-300:]))

    # ---- the docs' examples, as written (README and LEAGUE.md) ------------------------------------
    root = os.environ.get("MAAT_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), ".."))
    for doc, start_at in (("README.md", "## A league"), ("docs/LEAGUE.md", "## A league in five")):
        text = open(os.path.join(root, doc)).read()
        block = text[text.index(start_at):]
        block = block[block.index("```sh\n") + 6:]
        block = block[:block.index("```")]
        cmds = [l.split("   #")[0] for l in block.splitlines()
                if l.strip() and not l.startswith("xdg-open")]
        ex = os.path.join(tmp, "example-" + os.path.basename(doc))
        os.makedirs(ex)
        os.symlink(BUILD, os.path.join(ex, "build"))
        env = dict(os.environ)
        ok = True
        for c in cmds:
            if SAN and " run " in c:
                json_path = os.path.join(ex, "my-league", "league.json")
                conf = json.load(open(json_path))
                conf["referee_args"] = REF_ARGS
                json.dump(conf, open(json_path, "w"))
            r = subprocess.run(c, shell=True, cwd=ex, capture_output=True, text=True,
                               timeout=600, env=env)
            ok &= r.returncode == 0
        evs = {(e["event"], e.get("bot")) for e in events(os.path.join(ex, "my-league"))}
        want = {("ranked", "greedy.1"), ("ranked", "mcts.1")}
        if "broken" in block:
            want.add(("failed", "broken.1"))
        check(ok and want <= evs and
              os.path.exists(os.path.join(ex, "my-league", "site", "index.html")),
              "%s's league example runs as written (%d commands): %s"
              % (doc, len(cmds), sorted(want - evs)))

    # ---- the queue's machines lose a validation match: no version fails for it ----------------
    lost = os.path.join(tmp, "lost")
    new_league(lost, queue=True, jobs=1, dispatch_timeout=10)
    ladder("league", "add", lost, "patient", RANDOM)
    open(os.path.join(lost, "queue"), "a").close()  # nobody runs the queue
    p, log = start(lost)
    try:
        given_up = lambda: [e for e in events(lost) if e["event"] == "match failed" and
                            "dispatch_timeout" in e.get("detail", "")]
        wait_for(given_up, "a queued validation match nobody runs is given up after "
                 "dispatch_timeout", timeout=90, proc=p)
        wait_for(lambda: len(open(os.path.join(lost, "queue")).read().splitlines()) >= 2,
                 "... and a new validation match is queued", timeout=60, proc=p)
        check(not has_event(lost, "failed", "patient.1"),
              "the version did not fail for it (the machines did): %s" % has_event(lost, "failed"))
    finally:
        stop(p, log)

    # ---- many machines: the queue, GNU parallel over two fake ssh hosts ----------------------------
    have_parallel = shutil.which("parallel") is not None
    if not have_parallel:
        print("SKIP queue + GNU parallel: `parallel` is not installed (scripts/install-deps.sh)")
    else:
        q = os.path.join(tmp, "queue")
        new_league(q, queue=True, jobs=3)
        for name, cmd in (("greedy", GREEDY), ("random", RANDOM), ("random2", RANDOM)):
            ladder("league", "add", q, name, cmd)
        fake = os.path.join(tmp, "fakessh")
        hostlog = os.path.join(tmp, "hosts.log")
        with open(fake, "w") as f:
            f.write("#!/usr/bin/env python3\n"
                    "# ssh HOST COMMAND, run here in the directory of HOST\n"
                    "import os, subprocess, sys\n"
                    "args = sys.argv[1:]\n"
                    "while args[0].startswith('-') and args[0] != '--':\n"
                    "    args.pop(0)\n"
                    "host = args.pop(0)\n"
                    "if args and args[0] == '--':\n"
                    "    args.pop(0)\n"
                    "os.makedirs(os.path.join(%r, host), exist_ok=True)\n"
                    "os.chdir(os.path.join(%r, host))\n"
                    "open(%r, 'a').write(host + '\\n')\n"
                    "# a login shell, as sshd gives one: GNU parallel's remote\n"
                    "# worker runs its job with $SHELL (unset on some CI machines)\n"
                    "env = dict(os.environ, SHELL='/bin/bash')\n"
                    "sys.exit(subprocess.call(['bash', '-c', ' '.join(args)], env=env))\n"
                    % (tmp, tmp, hostlog))
        os.chmod(fake, 0o755)
        open(os.path.join(q, "queue"), "a").close()
        # GNU parallel keeps its state under $HOME/.parallel: a HOME of its
        # own, so an unset or read-only HOME on a CI machine cannot stop it;
        # its messages kept, and shown if the queue does not drain
        home = os.path.join(tmp, "parallel-home")
        os.makedirs(home)
        perr = open(os.path.join(tmp, "parallel.err"), "w+")
        workers = subprocess.Popen(
            "tail -n+0 -f queue | parallel --will-cite --ssh '%s %s' -S 2/hostA,2/hostB"
            % (sys.executable, fake),  # (not exec'd itself: /tmp may be noexec)
            shell=True, cwd=q, stdout=subprocess.DEVNULL, stderr=perr,
            start_new_session=True, env=dict(os.environ, HOME=home))
        try:
            p, log = start(q, "--max-matches", "6")
            rc = finish(p, log, q)
            log.seek(0)
            text = log.read()
            check(rc == 0, "a queued league of 6 ranked matches finishes (exit %d) %s"
                  % (rc, text[-300:]))
            if rc != 0:
                perr.seek(0)
                print("# GNU parallel said: %s" % perr.read()[-1500:])
        finally:
            os.killpg(workers.pid, signal.SIGTERM)
            workers.wait(timeout=30)
        games = ranked_games(q)
        check(len(games) == 12 and len({g["match"] for g in games}) == 6,
              "12 ranked games of 6 matches came back and were merged (%d)" % len(games))
        check(all(g["record"].startswith("records/") and
                  os.path.exists(os.path.join(q, g["record"])) for g in games),
              "their records are named relative to the league directory, and exist")
        hosts = open(hostlog).read().split()
        check({"hostA", "hostB"} <= set(hosts), "both hosts ran matches: %s" % sorted(set(hosts)))
        cmds = open(os.path.join(q, "queue")).read().splitlines()
        check(cmds and all("/shards/" in c and "ladder.jsonl'" not in c for c in cmds),
              "no queued command writes the ladder: only the league does (%d commands)" % len(cmds))
        check(not [f for f in os.listdir(os.path.join(q, "shards"))],
              "every shard was merged and removed")
        check(no_lost_match(q) == [], "no queued match lost")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

rc = report(T0)
sys.exit(rc or (0 if have_parallel else 77))
