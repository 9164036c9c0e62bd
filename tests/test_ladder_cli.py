#!/usr/bin/env python3
"""maat-ladder's command line with small real tournaments of the sample bots
(docs/LADDER.md): run (round-robin, duplicate seats) and standings as table,
JSON and CSV; resuming after lost and torn lines; SIGINT with --jobs 2 (exit
4, no referee or bot left behind, then resume); many writers on one ladder
file; gauntlet and ladder formats; config errors; pinning (--pin, "pin",
--no-pin: one CPU per match, shared by its referee's bots); plan + GNU
parallel + merge (idempotent, same standings as a direct run); compare
verdicts.

Exit 77 (skipped) only when GNU parallel is missing and everything else
passed."""
import csv, hashlib, io, json, os, pty, re, select, shutil, signal, subprocess
import sys, tempfile, time

LADDER = os.environ["MAAT_LADDER"]
REF = os.environ["MAAT_REFEREE"]
RANDOM = os.environ["MAAT_RANDOM"]
GREEDY = os.environ["MAAT_GREEDY"]
failures = 0
T0 = time.monotonic()
# AddressSanitizer builds (scripts/test.sh --sanitize) cannot start a bot
# under the referee's default --limit-as 2048: lift the limit there.
with open(RANDOM, "rb") as _f:
    SAN = b"__asan_init" in _f.read()
REF_ARGS = ["--limit-as", "0"] if SAN else []
CMP_ARGS = ["--referee-arg", "--limit-as", "--referee-arg", "0"] if SAN else []


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    failures += 0 if cond else 1
    return cond


def ladder(*args, timeout=300, env=None, cwd=None):
    p = subprocess.run([LADDER, *args], capture_output=True, text=True,
                       timeout=timeout, env=env, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def write_config(d, name, **fields):
    conf = {"name": name, "referee": REF}
    conf.update(fields)
    conf["referee_args"] = conf.get("referee_args", []) + REF_ARGS
    path = os.path.join(d, name + ".json")
    with open(path, "w") as f:
        json.dump(conf, f, indent=2)
    return path


def bots(*pairs):
    return [{"name": n, "command": c} for n, c in pairs]


def read_ladder(path):
    """(parsed complete lines, raw text).  A complete line ends in \\n."""
    text = open(path, encoding="utf-8", errors="replace").read()
    games = []
    for line in text.split("\n")[:-1]:
        try:
            games.append(json.loads(line))
        except ValueError:
            games.append(None)
    return games, text


def standings(*files, game=None, fmt="json"):
    args = ["standings", *files, "--format", fmt]
    if game:
        args += ["--game", game]
    rc, out, err = ladder(*args)
    if fmt == "json":
        try:
            return rc, json.loads(out), err
        except ValueError:
            return rc, None, err + out
    return rc, out, err


def by_bot(rows):
    return {(r["bot"], r.get("game", "pyramids")): r for r in rows or []}


def unique_games(games):
    seen = {}
    for g in games:
        if g and g["id"] not in seen:
            seen[g["id"]] = g
    return seen


def tally(games):
    """games, wins, rank sum, score sum per bot from ladder lines."""
    t = {}
    for g in games:
        for s, b in enumerate(g["bots"]):
            e = t.setdefault(b, [0, 0, 0, 0])
            e[0] += 1
            e[1] += g["ranks"][s] == 1
            e[2] += g["ranks"][s]
            e[3] += g["scores"][s]
    return t


def marked_processes(marker):
    """Processes whose command line or environment carries `marker`."""
    found = []
    m = marker.encode()
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        blob = b""
        for part in ("cmdline", "environ"):
            try:
                with open(f"/proc/{pid}/{part}", "rb") as f:
                    blob += f.read()
            except OSError:
                pass
        if m in blob:
            try:
                cmd = open(f"/proc/{pid}/cmdline", "rb").read()
            except OSError:
                cmd = b""
            found.append((int(pid), cmd.replace(b"\0", b" ").decode(
                errors="replace")))
    return found


def wait_for_lines(path, n, deadline_s):
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        try:
            with open(path, "rb") as f:
                if f.read().count(b"\n") >= n:
                    return True
        except FileNotFoundError:
            pass
        time.sleep(0.02)
    return False


def cpu_list(text):
    """The CPUs of a Cpus_allowed_list value such as 0-2,5."""
    cpus = set()
    for part in text.strip().split(","):
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def recording_bot(outfile):
    """A random bot that first appends its referee's pid (the shell's
    parent) and its own allowed CPUs to outfile."""
    return (f"echo $PPID $(grep Cpus_allowed_list /proc/self/status | cut -f2) "
            f">> {outfile}; exec {RANDOM}")


def recorded_cpus(outfile):
    """[(referee pid, set of allowed CPUs)], one per bot started."""
    try:
        lines = open(outfile).read().split()
    except FileNotFoundError:
        return []
    return [(int(pid), cpu_list(cpus)) for pid, cpus in zip(lines[::2], lines[1::2])]


def shard_key(p):
    return int(re.search(r"match-(\d+)\.jsonl$", p).group(1))


work = tempfile.mkdtemp(prefix="maat-ladder-cli-")
RR = [("random", RANDOM), ("random2", RANDOM), ("greedy", GREEDY)]
RG = [("random", RANDOM), ("greedy", GREEDY)]

# ---- run: round robin, duplicate seats; standings in three formats -------
rc, out, err = ladder("--help")
check(rc == 0 and "standings" in out and "compare" in out, "--help")
rc, out, err = ladder("run", "--help")
check(rc == 0 and "--pin" in out and "--no-pin" in out, "run --help mentions --pin and --no-pin")

lad = os.path.join(work, "rr.jsonl")
conf = write_config(work, "rr", seats=2, matches=6, ladder=lad, bots=bots(*RR))
rc, out, err = ladder("run", conf)
check(rc == 0, f"run round-robin: exit 0 ({rc}) {err.strip()[-300:]}")
check("greedy" in out and "rating" in out, "run prints the standings")
games, text = read_ladder(lad)
check(len(games) == 12 and all(games), f"6 matches x 2 seats = 12 lines ({len(games)})")
ids = [g["id"] for g in games if g]
check(sorted(ids) == sorted(f"rr-{i}-{k}" for i in range(6) for k in range(2)),
      "game ids are NAME-match-game")
pairs = {}
for g in games:
    pairs.setdefault(g["match"], []).append(g)
rot_ok = all(len(v) == 2 and v[0]["seed"] == v[1]["seed"] and
             sorted(x["game_index"] for x in v) == [0, 1] and
             {tuple(x["bots"]) for x in v} ==
             {tuple(v[0]["bots"]), tuple(reversed(v[0]["bots"]))}
             for v in pairs.values())
check(rot_ok, "duplicate seats: each match is one seed played from both seats")
# docs/RNG.md: match i is dealt derive(key, "rr-<i>"); write_config has no
# seed, so the key is the secret one in <ladder>.rr.key
key = open(lad + ".rr.key").read().strip() if os.path.exists(lad + ".rr.key") else ""
want = {f"rr-{i}": hashlib.blake2b(f"rr-{i}".encode(), key=bytes.fromhex(key),
                                   digest_size=32).hexdigest()
        for i in range(6)} if len(key) == 64 else {}
check(all(v[0]["seed"] == want.get(m) for m, v in pairs.items()),
      "match i is dealt derive(key, 'rr-i'), the key in rr.jsonl.rr.key")
lineups = sorted(tuple(sorted(v[0]["bots"])) for v in pairs.values())
want_lineups = sorted([("random", "random2"), ("greedy", "random"),
                       ("greedy", "random2")] * 2)
check(lineups == want_lineups, f"round robin: every pair twice ({lineups})")

t = tally(games)
rc, rows, err = standings(lad)
check(rc == 0 and isinstance(rows, list) and len(rows) == 3,
      f"standings --format json parses: 3 rows ({err.strip()})")
rows_b = by_bot(rows)
for b in ("random", "random2", "greedy"):
    r = rows_b.get((b, "pyramids"))
    if not check(r is not None, f"JSON row for {b}"):
        continue
    n, w, rs, ss = t[b]
    check(r["games"] == n == 8 and r["wins"] == w and
          abs(r["avg_rank"] - rs / n) < 1e-9 and abs(r["avg_score"] - ss / n) < 1e-9,
          f"{b}: games {r['games']} wins {r['wins']} avg rank {r['avg_rank']} "
          f"avg score {r['avg_score']} match the ladder lines ({n} {w} {rs / n} {ss / n})")
    check(abs(r["rating"] - (r["mu"] - 3 * r["sigma"])) < 1e-9,
          f"{b}: rating = mu - 3 sigma")
    check("elo" in r and "elo_ci95" in r and r["elo_ci95"] > 0,
          f"{b}: Elo with a 95% interval (2-player games)")
    check(set(r["faults"]) == {"timeout", "illegal", "malformed", "crash", "no_hello"},
          f"{b}: faults by kind")
ratings = [r["rating"] for r in rows or []]
check(ratings == sorted(ratings, reverse=True), "JSON sorted best first")
check(abs(sum(r.get("elo", 0) for r in rows or [])) < 1e-6, "Elo has mean 0")

rc, out, err = standings(lad, fmt="csv")
recs = list(csv.DictReader(io.StringIO(out)))
check(rc == 0 and len(recs) == 3, "standings --format csv: header + 3 rows")
if recs:
    check(list(recs[0].keys()) == ["game", "bot", "rating", "mu", "sigma", "games",
                                  "wins", "avg_rank", "avg_score", "elo", "elo_ci95",
                                  "timeout", "illegal", "malformed", "crash", "no_hello"],
          f"CSV columns ({list(recs[0].keys())})")
    for rec in recs:
        j = rows_b.get((rec["bot"], rec["game"]))
        check(j is not None and int(rec["games"]) == j["games"] and
              int(rec["wins"]) == j["wins"] and abs(float(rec["rating"]) - j["rating"]) < 1e-5,
              f"CSV row {rec['bot']} agrees with JSON")

rc, out, err = standings(lad, fmt="table")
lines = out.splitlines()
check(rc == 0 and lines and lines[0] == "pyramids" and "rating" in lines[1] and
      "avgrank" in lines[1] and "elo(2p)" in lines[1] and "faults" in lines[1],
      "standings table: the game, then a header")
body = [l for l in lines[2:] if l.strip()]
check(len(body) == 3 and [l.split()[1] for l in body] ==
      [r["bot"] for r in rows or []], "table rows in the JSON's order")
rc, out, err = ladder("standings", lad, "--format", "xml")
check(rc == 2 and "xml" in err, "unknown --format: exit 2")
rc, out, err = ladder("standings", os.path.join(work, "missing.jsonl"))
check(rc == 2 and "missing.jsonl" in err, "missing ladder file: exit 2, named")

# duplicate false, seed, jobs, referee_args
lad = os.path.join(work, "nodup.jsonl")
conf = write_config(work, "nodup", seats=3, matches=3, duplicate=False, seed=100,
                    jobs=2, referee_args=["--time", "3000", "--grace", "200"],
                    ladder=lad, bots=bots(*RR))
rc, out, err = ladder("run", conf, "--quiet")
games, _ = read_ladder(lad)
key100 = (100).to_bytes(8, "little") + bytes(24)
check(rc == 0 and sorted((g["id"], g["seed"]) for g in games if g) ==
      [(f"nodup-{i}-0", hashlib.blake2b(f"nodup-{i}".encode(), key=key100,
                                        digest_size=32).hexdigest())
       for i in range(3)],
      f"duplicate false: one game per match, seeds derive(seed, 'nodup-i') "
      f"({rc} {err.strip()[-200:]})")
conf = write_config(work, "badarg", seats=2, matches=1, referee_args=["--frobnicate"],
                    ladder=os.path.join(work, "badarg.jsonl"), bots=bots(*RG))
rc, out, err = ladder("run", conf, "--quiet")
check(rc == 1 and "usage error" in err,
      f"a referee_args mistake: exit 1, says the referee saw a usage error ({rc} {err.strip()[-200:]})")

# A progress line on a terminal: done/total, rate, ETA, faults.
lad_tty = os.path.join(work, "tty.jsonl")
conf = write_config(work, "tty", seats=2, matches=3, ladder=lad_tty, bots=bots(*RG))
master, slave = pty.openpty()
p = subprocess.Popen([LADDER, "run", conf], stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=slave)
os.close(slave)
tty_out = b""
while True:
    r, _, _ = select.select([master], [], [], 60)
    if not r:
        break
    try:
        chunk = os.read(master, 4096)
    except OSError:
        break
    if not chunk:
        break
    tty_out += chunk
p.wait(timeout=60)
os.close(master)
tty_text = tty_out.decode(errors="replace")
check(p.returncode == 0 and "3/3 matches" in tty_text and "ETA" in tty_text and
      "faults" in tty_text and "\r" in tty_text,
      f"progress line on a terminal ({tty_text.strip()[-120:]!r})")

# ---- resume: lost lines and a torn half line -----------------------------
lad = os.path.join(work, "res.jsonl")
conf = write_config(work, "res", seats=2, matches=8, ladder=lad, bots=bots(*RG))
rc, out, err = ladder("run", conf, "--quiet")
games, text = read_ladder(lad)
check(rc == 0 and len(games) == 16, f"resume: first run writes 16 lines ({len(games)})")
raw = text.split("\n")[:-1]
kept, lost = raw[:-3], raw[-3:]
with open(lad, "w") as f:
    f.write("\n".join(kept) + "\n" + lost[0][:len(lost[0]) // 2])  # torn
lost_matches = sorted({json.loads(l)["match"] for l in lost})
rc, rows, err = standings(lad)
check(rc == 0 and sum(r["games"] for r in rows or []) == 2 * len(kept),
      f"a torn last line: the {len(kept)} whole lines still count")
check(f"{lad}:{len(kept) + 1}:" in err and "torn" in err,
      f"standings names the torn last line file:line ({err.strip()})")
rc, out, err = ladder("run", conf, "--quiet")
check(rc == 0, f"resume: second run exit 0 ({rc}) {err.strip()[-300:]}")
games2, text2 = read_ladder(lad)
# the torn line stays; the referee starts its own line on a fresh one
new_lines = text2.split("\n")[len(kept) + 1:-1]
new_games = [json.loads(l) for l in new_lines]
check(sorted({g["match"] for g in new_games}) == lost_matches == ["res-6", "res-7"],
      f"resume plays only the unfinished matches {lost_matches}: "
      f"{sorted({g['match'] for g in new_games})}")
check(len(new_games) == 4, f"resume: 2 matches x 2 games appended ({len(new_games)})")
check(text2.split("\n")[len(kept)] == lost[0][:len(lost[0]) // 2],
      "the torn line is still in the file")
rc, rows, err = standings(lad)
total = sum(r["games"] for r in rows or [])
check(rc == 0 and total == 32, f"each of the 16 games counted once (seat-games {total}, want 32)")
check(f"{lad}:{len(kept) + 1}:" in err and "1 bad line" in err,
      f"standings still reports the (now terminated) torn line ({err.strip()})")
ug = unique_games([json.loads(l) for l in text2.split("\n")[:-1]
                   if l and l != lost[0][:len(lost[0]) // 2]])
check(len(ug) == 16 and sorted(ug) == sorted(f"res-{i}-{k}" for i in range(8) for k in range(2)),
      "every game id present")
rc, out, err = ladder("run", conf)
check(rc == 0 and "8 of 8 matches already" in err, f"a complete tournament plays nothing ({err.strip()[:200]})")
games3, _ = read_ladder(lad)
check(len(games3) == len(games2), "... and appends nothing")
# another tournament of the same name on that file, with a seed of its own
# (or other bots): its games are not this one's (a review of 2026-11-28:
# "8 of 8 matches already", exit 0, none of its games played)
other = os.path.join(work, "other")
os.makedirs(other)
for label, fields in (("another seed", dict(seed=99)),
                      ("other bots", dict(bots=bots(("random", RANDOM), ("greedy2", GREEDY)),
                                          seed=None))):
    conf2 = write_config(other, "res", seats=2, matches=8, ladder=lad,
                         **{k: v for k, v in dict(fields, bots=fields.get(
                             "bots", bots(*RG))).items() if v is not None})
    rc, out, err = ladder("run", conf2)
    check(rc == 2 and "not played by this tournament" in err and
          "'res'" in err and read_ladder(lad)[0] == games3,
          f"a same-named tournament with {label} is refused, the ladder "
          f"untouched ({rc}: {err.strip()[:300]})")

# ---- SIGINT with --jobs 2, then resume ------------------------------------
marker = f"maatintr{os.getpid()}"
lad = os.path.join(work, "intr.jsonl")
slow = f"sleep 0.2; exec {RANDOM}"
conf = write_config(work, marker, seats=2, matches=16, ladder=lad,
                    bots=bots(("slowa", slow), ("slowb", slow)))
env = dict(os.environ, MAAT_TEST_MARK=marker)
p = subprocess.Popen([LADDER, "run", conf, "--jobs", "2"], env=env,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
ready = wait_for_lines(lad, 1, 120)
check(ready, "interrupt: the first line arrives")
running_before = marked_processes(marker)
p.send_signal(signal.SIGINT)
try:
    out, err = p.communicate(timeout=60)
except subprocess.TimeoutExpired:
    p.kill()
    out, err = p.communicate()
check(p.returncode == 4, f"SIGINT: exit 4 ({p.returncode}) {err.strip()[-200:]}")
check("resume" in err or "again" in err, f"SIGINT: says how to resume ({err.strip()[-200:]})")
check(len(running_before) >= 2, f"(referees and bots were running: {len(running_before)})")
left = marked_processes(marker)
if left:
    time.sleep(1.0)
    later = marked_processes(marker)
else:
    later = []
check(not left, f"no referee or bot survives the interrupt: {left}")
check(not later, f"... not even a second later: {later}")
games, _ = read_ladder(lad)
done_before = len(unique_games(games))
check(0 < done_before < 32, f"interrupted part-way ({done_before} of 32 games)")
check(not os.path.exists(os.path.join(work, "intr.jsonl.waiting", marker)),
      "SIGINT: what waited for earlier matches is in the ladder, none left "
      "waiting")
# Ctrl-C on a terminal: SIGINT to the whole process group
n_lines = len(games)
p = subprocess.Popen([LADDER, "run", conf, "--jobs", "2"], env=env,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                     start_new_session=True)
check(wait_for_lines(lad, n_lines + 1, 120), "interrupt 2: a new line arrives")
os.killpg(p.pid, signal.SIGINT)
try:
    out, err = p.communicate(timeout=60)
except subprocess.TimeoutExpired:
    p.kill()
    out, err = p.communicate()
check(p.returncode == 4, f"SIGINT to the process group: exit 4 ({p.returncode}) {err.strip()[-200:]}")
left = marked_processes(marker)
if left:
    time.sleep(1.0)
check(not marked_processes(marker), f"no referee or bot survives Ctrl-C: {left}")
games, _ = read_ladder(lad)
check(all(games) and len(unique_games(games)) < 32,
      f"still part-way, every line whole ({len(unique_games(games))} of 32 games)")
# maat-ladder SIGKILLed: its referees go too (a referee left playing would
# append lines while the next run played the same match again)
n_lines = len(games)
p = subprocess.Popen([LADDER, "run", conf, "--jobs", "2"], env=env,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
check(wait_for_lines(lad, n_lines + 1, 120), "kill: a new line arrives")
p.kill()
p.wait()
end = time.monotonic() + 60
while marked_processes(marker) and time.monotonic() < end:
    time.sleep(0.05)
check(not marked_processes(marker), "SIGKILL of maat-ladder: no referee or "
      f"bot plays on ({marked_processes(marker)})")
rc, out, err = ladder("run", conf, "--jobs", "2", "--quiet", env=env)
check(rc == 0, f"resume after SIGINT: exit 0 ({rc}) {err.strip()[-200:]}")
games, _ = read_ladder(lad)
check(all(games), "every line after the interrupt parses")
ug = unique_games(games)
check(sorted(ug) == sorted(f"{marker}-{i}-{k}" for i in range(16) for k in range(2)),
      f"all 32 games present after resume ({len(ug)})")
rc, rows, err = standings(lad)
check(rc == 0 and sum(r["games"] for r in rows or []) == 64,
      "standings count each game once after interrupt + resume")
check(not marked_processes(marker), "nothing left running after the resume")

# ---- --jobs 2: lines in match order, whichever match ends first ----------
# A wrapper referee holds match 0 back until match 1's referee has ended, so
# the matches always end 1 before 0.  Ratings take games in file order: the
# file must still list match 0 first (before 2026-11-28 it listed match 1).
lad = os.path.join(work, "order.jsonl")
ended1 = os.path.join(work, "order-1-ended")
argv_log = os.path.join(work, "order-argv.jsonl")
wrapper = os.path.join(work, "order-referee")
with open(wrapper, "w") as f:
    f.write(f"""#!/usr/bin/python3
import json, os, subprocess, sys, time
args = sys.argv[1:]
match = args[args.index("--match-id") + 1]
with open({argv_log!r}, "a") as f:
    f.write(json.dumps(args) + "\\n")
if match.endswith("-0"):  # wait (with a deadline) for match 1 to end
    end = time.monotonic() + 120
    while not os.path.exists({ended1!r}) and time.monotonic() < end:
        time.sleep(0.01)
rc = subprocess.call([{REF!r}] + args)
if match.endswith("-1"):
    open({ended1!r}, "w").close()
sys.exit(rc)
""")
os.chmod(wrapper, 0o755)
conf = write_config(work, "ord", seats=2, matches=3, ladder=lad, seed=5,
                    jobs=2, referee=wrapper, bots=bots(*RG))
rc, out, err = ladder("run", conf, "--quiet")
games, _ = read_ladder(lad)
want = [f"ord-{i}-{k}" for i in range(3) for k in range(2)]
check(rc == 0 and os.path.exists(ended1) and
      [g and g["id"] for g in games] == want,
      f"--jobs 2: match 1 ended first, the ladder still lists the games in "
      f"match order ({rc}: {[g and g['id'] for g in games]} {err.strip()[-200:]})")
recs = [g.get("record", "") for g in games if g]
check(len(recs) == 6 and all(r and not r.startswith("/") and
                             os.path.exists(os.path.join(work, r)) for r in recs),
      f"... and its lines name their records relative to the ladder's folder, "
      f"as --jobs 1 writes them (maat-replay --index links only those): {recs[:2]}")
root = lad + ".waiting"
pdir = os.path.join(root, "ord")
check(not os.path.exists(pdir) and os.path.isdir(root),
      "... and no waiting lines are left (the shared LADDER.waiting/ stays, "
      "for every referee of this ladder to hide)")
calls = [json.loads(l) for l in open(argv_log)]
ok = len(calls) == 3
for a in calls:
    m = a[a.index("--match-id") + 1]
    hidden = [a[k + 1] for k, w in enumerate(a) if w == "--hide"]
    ok &= (a[a.index("--ladder") + 1] == os.path.join(pdir, m + ".jsonl") and
           root in hidden and lad in hidden)
check(ok, f"each referee writes to its match's waiting file, and its bots "
          f"see neither those nor the ladder ({calls[:1]})")
# A run killed part way (maat-ladder itself) leaves waiting files: the next
# run appends them, in match order and whole lines only, before it reads
# the ladder, and plays the rest.
lad2 = os.path.join(work, "order2.jsonl")
pdir2 = os.path.join(work, "order2.jsonl.waiting", "ord")
os.makedirs(pdir2)
raw = open(lad).read().split("\n")
with open(os.path.join(pdir2, "ord-2.jsonl"), "w") as f:
    f.write("\n".join(raw[4:6]) + "\n" + raw[0][:40])  # a torn last line
with open(os.path.join(pdir2, "ord-1.jsonl"), "w") as f:
    f.write("\n".join(raw[2:4]) + "\n")
with open(os.path.join(pdir2, "ord-7.jsonl"), "w") as f:  # beyond `matches`
    f.write(raw[0] .replace('"ord-0-0"', '"ord-7-0"') + "\n")
conf2 = write_config(work, "ord", seats=2, matches=3, ladder=lad2, seed=5,
                     jobs=1, bots=bots(*RG))
# `plan` first: the waiting games are played, and not planned again
rc, out, plan_err = ladder("plan", conf2, "--shard-dir", os.path.join(work, "o2s"))
err = plan_err
check(rc == 0 and "'--match-id' 'ord-0'" in out and "torn last line" in err and
      "'ord-1'" not in out and "'ord-2'" not in out,
      f"plan appends the waiting lines first and plans only match 0 "
      f"({rc}: {out.strip()[-300:]} {err.strip()[-200:]})")
rc, out, err = ladder("run", conf2)
games, text = read_ladder(lad2)
check(rc == 0 and all(games) and [g["id"] for g in games] ==
      want[2:4] + want[4:6] + ["ord-7-0"] + want[:2] and
      "2 of 3 matches already" in err and not os.path.exists(pdir2),
      f"what a killed run left waiting is appended (match order, whole "
      f"lines, a match beyond `matches` too), then the rest played ({rc}: "
      f"{[g and g['id'] for g in games]} {err.strip()[-300:]})")

# ---- many writers on one ladder file --------------------------------------
lad = os.path.join(work, "many.jsonl")
procs = []
for nm in ("mwa", "mwb"):
    c = write_config(work, nm, seats=2, matches=50, ladder=lad, bots=bots(*RG))
    procs.append(subprocess.Popen([LADDER, "run", c, "--jobs", "4", "--quiet"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True))
for q in procs:
    o, e = q.communicate(timeout=600)
    check(q.returncode == 0, f"concurrent run exit 0 ({q.returncode}) {e.strip()[-200:]}")
raw = open(lad, "rb").read()
lines = raw.split(b"\n")
check(raw.endswith(b"\n") and b"" not in lines[:-1],
      "8 concurrent writers: no blank or unterminated line")
parsed = []
for l in lines[:-1]:
    try:
        parsed.append(json.loads(l))
    except ValueError:
        parsed.append(None)
check(all(parsed), f"every line parses ({sum(x is None for x in parsed)} do not)")
ids = [g["id"] for g in parsed if g]
want = sorted(f"{nm}-{i}-{k}" for nm in ("mwa", "mwb") for i in range(50) for k in range(2))
check(len(ids) == 200 and sorted(ids) == want, f"200 lines, each game once ({len(ids)})")

# ---- gauntlet and ladder formats -----------------------------------------
lad = os.path.join(work, "gauntlet.jsonl")
conf = write_config(work, "gt", seats=2, matches=4, format="gauntlet", hero="greedy",
                    ladder=lad, bots=bots(("r1", RANDOM), ("greedy", GREEDY), ("r2", RANDOM)))
rc, out, err = ladder("run", conf, "--quiet")
games, _ = read_ladder(lad)
check(rc == 0 and len(games) == 8, f"gauntlet runs: 8 lines ({len(games)})")
check(all("greedy" in g["bots"] for g in games if g), "gauntlet: the hero is in every game")
opp = [sorted(set(g["bots"]) - {"greedy"})[0] for g in sorted(games, key=lambda g: g["id"]) if g]
check(sorted(opp) == ["r1"] * 4 + ["r2"] * 4, f"gauntlet: the field in turn ({opp})")
c3 = write_config(work, "gt3", seats=3, matches=2, format="gauntlet", hero="greedy",
                  ladder=os.path.join(work, "gt3.jsonl"),
                  bots=bots(("r1", RANDOM), ("greedy", GREEDY), ("r2", RANDOM)))
rc, out, err = ladder("run", c3, "--quiet")
g3, _ = read_ladder(os.path.join(work, "gt3.jsonl"))
check(rc == 0 and len(g3) == 6 and all(sorted(g["bots"]) == ["greedy", "r1", "r2"] for g in g3),
      "3-seat gauntlet: 2 matches x 3 rotations")

lad = os.path.join(work, "ladderfmt.jsonl")
conf = write_config(work, "lf", seats=2, matches=6, format="ladder", ladder=lad,
                    bots=bots(("a", RANDOM), ("b", GREEDY), ("c", RANDOM)))
rc, out, err = ladder("run", conf, "--quiet")
games, _ = read_ladder(lad)
check(rc == 0 and len(games) == 12, f"ladder format runs: 12 lines ({len(games)})")
t = tally(games)
check(set(t) == {"a", "b", "c"} and all(len(set(g["bots"])) == 2 for g in games if g),
      f"ladder format: every bot plays, never itself ({ {k: v[0] for k, v in t.items()} })")
played, fewest_ok = {"a": 0, "b": 0, "c": 0}, True
for i in range(6):
    g = [x for x in games if x and x["match"] == f"lf-{i}"]
    least = min(played.values())
    fewest_ok &= bool(g) and any(played[b] == least for b in g[0]["bots"])
    for b in (g[0]["bots"] if g else []):
        played[b] += len(g)
check(fewest_ok, "ladder format: every match has a bot with the fewest games so far")

# ---- config errors: exit 2, naming the file and the field ----------------
good = {"seats": 2, "matches": 2, "ladder": os.path.join(work, "x.jsonl"),
        "bots": bots(*RG)}
cases = [
    ("unknown", dict(good, colour="blue"), "colour"),
    ("noladder", {k: v for k, v in good.items() if k != "ladder"}, "ladder"),
    ("seats9", dict(good, seats=9), "seats"),
    ("seats1", dict(good, seats=1), "seats"),
    ("nohero", dict(good, format="gauntlet"), "hero"),
    ("badhero", dict(good, format="gauntlet", hero="nobody"), "hero"),
    ("spaces", dict(good, bots=bots(("my bot", RANDOM), ("greedy", GREEDY))), "bots[0]"),
    ("format", dict(good, format="swiss"), "format"),
    ("matches0", dict(good, matches=0), "matches"),
    ("dupname", dict(good, bots=bots(("x", RANDOM), ("x", GREEDY))), "'x'"),
    ("pinyes", dict(good, pin="yes"), "'pin'"),
    ("pin1", dict(good, pin=1), "'pin'"),
]
for label, fields, field in cases:
    path = os.path.join(work, f"bad-{label}.json")
    with open(path, "w") as f:
        json.dump(dict(fields, name=label), f)
    rc, out, err = ladder("run", path)
    check(rc == 2 and path in err and field in err,
          f"config error {label}: exit 2 naming the file and {field} ({rc}: {err.strip()})")
path = os.path.join(work, "bad-json.json")
with open(path, "w") as f:
    f.write('{"seats": 2,\n "matches": }\n')
rc, out, err = ladder("run", path)
check(rc == 2 and path + ":2:" in err, f"broken JSON: exit 2 with file:line ({err.strip()})")
rc, out, err = ladder("run", os.path.join(work, "nope.json"))
check(rc == 2 and "nope.json" in err, "missing config: exit 2, named")
rc, out, err = ladder("run")
check(rc == 2, "run without a config: exit 2")
rc, out, err = ladder("frobnicate")
check(rc == 2, "unknown command: exit 2")

# ---- pinning: one CPU per running match ------------------------------------
# Each bot appends its referee's pid and its own allowed CPUs.  Which CPUs
# appear depends on scheduling, so only "one CPU, one we may use, the same
# for both bots of a match" is checked, never that every CPU is used.
ALLOWED = os.sched_getaffinity(0)


def pin_run(label, *args, **fields):
    out_f = os.path.join(work, f"{label}.cpus")
    conf = write_config(work, label, seats=2, matches=4, jobs=2,
                        ladder=os.path.join(work, f"{label}.jsonl"),
                        bots=bots(("pa", recording_bot(out_f)),
                                  ("pb", recording_bot(out_f))), **fields)
    rc, out, err = ladder("run", conf, "--quiet", *args)
    return rc, err, recorded_cpus(out_f)


def pinned_ok(rec):
    """Every bot on one allowed CPU, the same as the other bots of its match
    (a duplicate match starts 2 new bots for each of its 2 games)."""
    by_ref = {}
    for ref, cpus in rec:
        by_ref.setdefault(ref, []).append(cpus)
    return (len(rec) == 16 and len(by_ref) == 4 and
            all(len(c) == 1 and c <= ALLOWED for _, c in rec) and
            all(len(v) == 4 and all(c == v[0] for c in v)
                for v in by_ref.values()))


rc, err, rec = pin_run("pin", "--pin")
check(rc == 0 and pinned_ok(rec),
      f"run --pin --jobs 2: each match's bots share one allowed CPU of "
      f"{sorted(ALLOWED)} ({rc} {rec} {err.strip()[-200:]})")
rc, err, rec = pin_run("nopin")
check(rc == 0 and len(rec) == 16 and all(c == ALLOWED for _, c in rec),
      f"without --pin every bot may use all of {sorted(ALLOWED)} ({rc} {rec})")
rc, err, rec = pin_run("pincfg", pin=True)
check(rc == 0 and pinned_ok(rec), f'"pin": true pins like --pin ({rc} {rec})')
rc, err, rec = pin_run("pinoff", "--no-pin", pin=True)
check(rc == 0 and len(rec) == 16 and all(c == ALLOWED for _, c in rec),
      f'--no-pin overrides "pin": true ({rc} {rec})')
rc, err, rec = pin_run("pinfalse", "--pin", pin=False)
check(rc == 0 and pinned_ok(rec), f'--pin overrides "pin": false ({rc} {rec})')
rc, out, err = ladder("plan", write_config(work, "pinplan", seats=2, matches=1,
                                           ladder=os.path.join(work, "pp.jsonl"),
                                           bots=bots(*RG)),
                      "--shard-dir", work, "--pin")
check(rc == 2 and "--pin" in err, f"plan refuses --pin ({rc} {err.strip()})")
# compare: with a field, 2 referees per block, every bot pinned
out_f = os.path.join(work, "cmppin.cpus")
rc, out, err = ladder("compare", *CMP_ARGS, "--pin", "--candidate", recording_bot(out_f),
                      "--baseline", recording_bot(out_f), "--field", recording_bot(out_f),
                      "--max-blocks", "2", "--jobs", "4", "--quiet")
rec = recorded_cpus(out_f)
check(rc == 2 and len(rec) == 16 and all(len(c) == 1 and c <= ALLOWED for _, c in rec) and
      all(len({frozenset(c) for r, c in rec if r == ref}) == 1 for ref, _ in rec),
      f"compare --pin: each referee's bots share one allowed CPU ({rc} {rec} "
      f"{err.strip()[-200:]})")

# ---- plan + GNU parallel + merge -------------------------------------------
have_parallel = shutil.which("parallel") is not None
if not have_parallel:
    print("SKIP plan + GNU parallel: `parallel` is not installed "
          "(scripts/install-deps.sh installs it)", flush=True)
else:
    pd = os.path.join(work, "plan")
    os.makedirs(pd)
    lad_cfg = os.path.join(pd, "direct.jsonl")
    conf = write_config(pd, "pl", seats=2, matches=6, ladder=lad_cfg, bots=bots(*RG))
    shards = os.path.join(pd, "shards")
    os.makedirs(shards)
    rc, plan, err = ladder("plan", conf, "--shard-dir", shards)
    plan_lines = plan.splitlines()
    check(rc == 0 and len(plan_lines) == 6, f"plan: one command per match ({len(plan_lines)})")
    check(all(f"{shards}/match-{n}.jsonl" in l for n, l in enumerate(plan_lines, 1)),
          "plan: line n writes shard match-n.jsonl")
    with open(os.path.join(pd, "plan.txt"), "w") as f:
        f.write(plan)
    p = subprocess.run("parallel -j 2 < plan.txt", shell=True, cwd=pd,
                       capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, f"parallel -j 2 < plan.txt: exit 0 ({p.returncode}) {p.stderr[-200:]}")
    files = sorted((os.path.join(shards, x) for x in os.listdir(shards)), key=shard_key)
    check(len(files) == 6, f"6 shard files ({len(files)})")
    out_l = os.path.join(pd, "merged.jsonl")
    rc, o, e = ladder("merge", out_l, *files)
    check(rc == 0 and "merged 12 new games" in e, f"merge adds 12 games ({e.strip()})")
    rc, o, e = ladder("merge", out_l, *files)
    check(rc == 0 and "merged 0 new games" in e and "(12 in all)" in e,
          f"merge again adds 0 (idempotent) ({e.strip()})")
    merged, _ = read_ladder(out_l)
    check(len(merged) == 12 and all(merged), "merged file: 12 lines")
    # the same config played directly (one job: match order)
    rc, o, e = ladder("run", conf, "--quiet", "--jobs", "1")
    direct, _ = read_ladder(lad_cfg)
    check(rc == 0 and len(direct) == 12, "direct run of the same config")
    sched = lambda gs: [(g["id"], g["seed"], tuple(g["bots"])) for g in gs if g]
    check(sched(merged) == sched(direct),
          "same schedule: ids, seeds and seats in the same order")
    same_results = [g["ranks"] for g in merged] == [g["ranks"] for g in direct]
    rc1, s1, _ = standings(out_l)
    rc2, s2, _ = standings(lad_cfg)
    b1, b2 = by_bot(s1), by_bot(s2)
    check(set(b1) == set(b2) and all(b1[k]["games"] == b2[k]["games"] for k in b1),
          "merged and direct standings: same bots and games")
    if same_results:
        check(all(abs(b1[k][f] - b2[k][f]) < 1e-9 for k in b1
                  for f in ("rating", "mu", "sigma", "elo")) and
              all(b1[k]["wins"] == b2[k]["wins"] for k in b1),
              "merged and direct standings: same ratings and Elo")
    else:
        print("note: the sample bots seed themselves from the referee's random "
              "token, and a game came out differently; ratings not compared")
    # plan of a half-played tournament: only the missing matches
    part = os.path.join(pd, "part.jsonl")
    with open(part, "w") as f:
        f.write("".join(json.dumps(g) + "\n" for g in direct[:6]))  # matches 0..2
    conf2 = write_config(pd, "pl", seats=2, matches=6, ladder=part, bots=bots(*RG))
    rc, plan2, err = ladder("plan", conf2, "--shard-dir", "shards2")
    pl2 = plan2.splitlines()
    check(rc == 0 and len(pl2) == 3 and all("'pl-%d'" % i in l for i, l in zip((3, 4, 5), pl2)),
          f"plan skips the matches already played ({len(pl2)} lines)")
    check(all(f"shards2/match-{n}.jsonl" in l for n, l in enumerate(pl2, 1)),
          "plan of a half-played tournament: line n still writes match-n.jsonl "
          "(what `parallel --return shards/match-{#}.jsonl` fetches): "
          + ", ".join(re.search(r"match-\d+\.jsonl", l).group(0) for l in pl2))
    rc, plan3, err = ladder("plan", write_config(pd, "plf", seats=2, matches=2, format="ladder",
                                                 ladder=part, bots=bots(*RG)), "--shard-dir", "s")
    check(rc == 2 and "ladder" in err, f"plan refuses the ladder format ({rc})")
    rc, o, e = ladder("merge", out_l)
    check(rc == 2, "merge without shards: exit 2")

# ---- compare: the CI verdict -------------------------------------------------
rc, out, err = ladder("compare", *CMP_ARGS, "--candidate", GREEDY, "--baseline", RANDOM,
                      "--max-blocks", "60", timeout=300)
check(rc == 0 and "NOT WORSE" in out, f"compare greedy vs random: exit 0 ({rc}) {err.strip()[-200:]}")
check("LLR" in out and "bounds [-2.944, 2.944]" in out and "Elo" in out and
      "block scores:" in out and "#" in out,
      "compare prints LLR, bounds, Elo estimate and the block histogram")
rc, out, err = ladder("compare", *CMP_ARGS, "--candidate", RANDOM, "--baseline", GREEDY,
                      "--max-blocks", "60", "--quiet", timeout=300)
check(rc == 1 and "WORSE (H0" in out, f"compare random vs greedy: exit 1 ({rc})")
rc, out, err = ladder("compare", *CMP_ARGS, "--candidate", RANDOM, "--baseline", RANDOM,
                      "--max-blocks", "2")
check(rc == 2 and "inconclusive" in out, f"compare random vs random, 2 blocks: exit 2 ({rc})")
rc, out, err = ladder("compare", *CMP_ARGS, "--candidate", GREEDY, "--baseline", RANDOM,
                      "--field", RANDOM, "--seats", "3", "--max-blocks", "4",
                      timeout=300)
check(rc in (0, 2) and "candidate and baseline on the same deals" in out,
      f"compare with a field runs ({rc})")
# more than 2 seats without --field: either play it or refuse it up front,
# naming --field -- not a failed referee run
rc, out, err = ladder("compare", *CMP_ARGS, "--candidate", GREEDY, "--baseline", RANDOM,
                      "--seats", "3", "--max-blocks", "2", timeout=300)
check(rc in (0, 1, 2) or (rc == 3 and "--field" in err),
      f"compare --seats 3 without --field: a verdict or a usage error naming "
      f"--field ({rc}: {err.strip()[-200:]})")

# compare --ladder FILE on a file that already holds an earlier compare's
# games: the verdict must come from this run's games.
cl = os.path.join(work, "cmp.jsonl")
ladder("compare", *CMP_ARGS, "--candidate", RANDOM, "--baseline", RANDOM, "--max-blocks", "6",
       "--ladder", cl, "--quiet")
before = len(read_ladder(cl)[0])
rc, out, err = ladder("compare", *CMP_ARGS, "--candidate", GREEDY, "--baseline", RANDOM,
                      "--max-blocks", "6", "--ladder", cl, "--quiet")
fresh = read_ladder(cl)[0][before:]
blocks_x = {}
for g in fresh:
    if not g:
        continue
    me, other = g["bots"].index("candidate"), g["bots"].index("baseline")
    x = 1.0 if g["ranks"][me] < g["ranks"][other] else 0.5 if g["ranks"][me] == g["ranks"][other] else 0.0
    blocks_x.setdefault(g["match"], []).append(x)
want_mean = (sum(sum(v) / len(v) for v in blocks_x.values()) / len(blocks_x)) if blocks_x else -1
m = re.search(r"mean block score: ([0-9.]+)", out)
got_mean = float(m.group(1)) if m else -2
check(len(fresh) == 12 and abs(got_mean - want_mean) < 1e-3,
      f"compare --ladder with an earlier compare's games in the file scores this "
      f"run's games: mean {got_mean}, this run's games give {want_mean:.4f}")

# as root where no cgroup can be made (a tmpfs over /sys/fs/cgroup in a
# mount namespace of its own), the ladder says once that --limit-nproc
# will not be enforced: its referees run --quiet and cannot say it
if os.geteuid() == 0 and subprocess.run(["unshare", "--mount", "true"],
                                        capture_output=True).returncode == 0:
    lad_nc = os.path.join(work, "nocg.jsonl")
    conf_nc = write_config(work, "nocg", seats=2, matches=1, ladder=lad_nc,
                           bots=bots(*RG))
    wrap = ["unshare", "--mount", "sh", "-c",
            'mount -t tmpfs none /sys/fs/cgroup && exec "$@"', "sh", LADDER]
    p = subprocess.run(wrap + ["run", conf_nc], capture_output=True,
                       text=True, timeout=300)
    warn = "maat-ladder run: warning: --limit-nproc 64 will not be enforced"
    check(p.returncode == 0 and p.stderr.count(warn) == 1,
          f"run as root with no cgroups to make: one warning "
          f"({p.returncode}) {p.stderr.strip()[-300:]}")
    conf_cg = write_config(work, "cg", seats=2, matches=1,
                           ladder=os.path.join(work, "cg.jsonl"),
                           bots=bots(*RG))
    p = subprocess.run([LADDER, "run", conf_cg], capture_output=True,
                       text=True, timeout=300)
    check(p.returncode == 0 and "will not be enforced" not in p.stderr and
          "playing the other 0" not in p.stderr,
          f"run as root where cgroups can be made: no warning "
          f"({p.returncode}) {p.stderr.strip()[-300:]}")

for bad in (["--candidate", RANDOM],
            ["--candidate", RANDOM, "--baseline", RANDOM, "--elo0", "5", "--elo1", "1"],
            ["--candidate", RANDOM, "--baseline", RANDOM, "--frobnicate", "1"],
            ["--candidate", RANDOM, "--baseline", RANDOM, "--seats", "9"],
            ["--candidate", RANDOM, "--baseline", RANDOM, "--alpha", "0.7"],
            ["--candidate", RANDOM, "--baseline", RANDOM, "--max-blocks"]):
    rc, out, err = ladder("compare", *CMP_ARGS, *bad)
    check(rc == 3, f"compare {' '.join(b for b in bad if not b.startswith('/'))}: exit 3 ({rc})")

print(f"ladder_cli: {time.monotonic() - T0:.1f}s, {failures} failed", flush=True)
if failures:
    print(f"(files kept in {work})")
    sys.exit(1)
shutil.rmtree(work, ignore_errors=True)
sys.exit(0 if have_parallel else 77)
