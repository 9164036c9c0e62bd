#!/usr/bin/env python3
"""maat-ladder in CI (issue 20): compare and run tell a broken bot from a
weak one (exit 3 naming the side, the fault kinds and counts and where the
logs are; never a verdict), the summary always shows fault counts per side,
the ladder format with --jobs 4 does not start the same pairing four times,
progress lines when stderr is not a terminal, the ladder file is followed
rather than re-read (bytes read measured in /proc/PID/io), compare's Elo is
head to head also with a field, and the inconclusive verdict says what it
means and how many blocks might decide."""
import json, math, os, re, shutil, subprocess, sys, tempfile, time

LADDER = os.environ["MAAT_LADDER"]
REF = os.environ["MAAT_REFEREE"]
RANDOM = os.environ["MAAT_RANDOM"]
GREEDY = os.environ["MAAT_GREEDY"]
HOSTILE = os.environ["MAAT_HOSTILE"]
failures = 0
work = tempfile.mkdtemp(prefix="maat-ladder-ci-")
with open(RANDOM, "rb") as _f:
    SAN = b"__asan_init" in _f.read()
REF_ARGS = ["--limit-as", "0"] if SAN else []
CMP_ARGS = ["--referee-arg=--limit-as", "--referee-arg=0"] if SAN else []


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    failures += 0 if cond else 1
    return cond


def ladder(*args, timeout=300, env=None):
    p = subprocess.run([LADDER, *args], capture_output=True, text=True,
                       timeout=timeout, cwd=work, env=env)
    return p.returncode, p.stdout, p.stderr


def compare(label, *args, timeout=300, env=None):
    """compare with its games and logs kept under work/label."""
    d = os.path.join(work, label)
    os.makedirs(d, exist_ok=True)
    rc, out, err = ladder("compare", *CMP_ARGS, "--ladder", os.path.join(d, "games.jsonl"),
                          "--log-dir", os.path.join(d, "logs"), *args, timeout=timeout,
                          env=env)
    return rc, out, err, d


def write_config(name, **fields):
    conf = {"name": name, "referee": REF, "ladder": os.path.join(work, name + ".jsonl")}
    conf.update(fields)
    conf["referee_args"] = conf.get("referee_args", []) + REF_ARGS
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(conf, f)
    return path, conf["ladder"]


def bots(*pairs):
    return [{"name": n, "command": c} for n, c in pairs]


def games_of(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def logistic(e):
    return 1 / (1 + 10 ** (-e / 400))


def to_elo(s):
    return math.inf if s >= 1 else -math.inf if s <= 0 else -400 * math.log10(1 / s - 1)


def once(marker, first, then):
    """A command that runs `first` the first time only, `then` after."""
    return f"if mkdir {marker} 2>/dev/null; then exec {first}; else exec {then}; fi"


# ---- compare: a broken bot is an error, not a verdict ------------------------
missing = os.path.join(work, "no-such-bot")
rc, out, err, d = compare("missing", "--candidate", missing, "--baseline", RANDOM,
                          "--max-blocks", "20")
check(rc == 3 and f"cannot spawn {missing}" in err and "candidate's run" in err and
      "referee exited with 1" in err and "WORSE" not in out and "verdict: none" in out,
      f"compare, candidate binary missing: exit 3, 'cannot spawn PATH', no verdict "
      f"({rc}: {err.strip()[-300:]})")
rc, out, err, d = compare("missing-b", "--candidate", RANDOM, "--baseline", missing + " --x",
                          "--max-blocks", "20")
check(rc == 3 and f"cannot spawn {missing}" in err and "WORSE" not in out,
      f"compare, baseline binary missing: exit 3 ({rc}: {err.strip()[-200:]})")

dies = "echo oops-marker-start >&2; echo second line >&2; exit 1"
rc, out, err, d = compare("dies", "--candidate", dies, "--baseline", RANDOM, "--max-blocks", "20")
m = re.search(r"its output: (\S+)\n", err)
log = m.group(1) if m else ""
check(rc == 3 and "the candidate is broken, not weak" in err and "no_hello" in err and
      "oops-marker-start | second line" in err and "WORSE" not in out,
      f"compare, candidate dies at start: exit 3, 'broken, not weak', no_hello, its "
      f"first output lines ({rc}: {err.strip()[-400:]})")
check(log.startswith(os.path.join(d, "logs") + "/") and os.path.isfile(log) and
      "oops-marker-start" in open(log, errors="replace").read(),
      f"... the log file it names holds its output ({log})")
check(re.search(r"faults: candidate: \d+ faults in \d+ of \d+ games \(no_hello \d+\); "
                r"baseline: 0 faults in \d+ games", out) is not None,
      f"... and the summary shows the faults per side ({out.strip()[-200:]})")

crash = f"{HOSTILE} --mode crash --after 3"
rc, out, err, d = compare("crash-base", "--candidate", RANDOM, "--baseline", crash,
                          "--max-blocks", "20")
check(rc == 3 and "the baseline is broken, not weak" in err and "crash" in err and
      "NOT WORSE" not in out,
      f"compare, baseline crashes mid-game: exit 3 naming the baseline ({rc}: {err.strip()[-300:]})")
rc, out, err, d = compare("crash-field", "--candidate", RANDOM, "--baseline", RANDOM,
                          "--field", RANDOM, "--field", crash, "--seats", "3",
                          "--max-blocks", "20", "--jobs", "4")
check(rc == 3 and "field bot 2 is broken, not weak" in err and crash in err,
      f"compare, a field bot crashes: exit 3 naming it and its command ({rc}: {err.strip()[-300:]})")
illegal = f"{HOSTILE} --mode illegal"
rc, out, err, d = compare("illegal", "--candidate", illegal, "--baseline", RANDOM,
                          "--max-blocks", "20")
check(rc == 3 and "candidate is broken" in err and "illegal" in err,
      f"compare, candidate answers illegally: exit 3 ({rc}: {err.strip()[-200:]})")

# A referee's exit 5 -- the machine failed: a sandbox could not be made --
# is no bot's fault: the run is played again (3 tries in all), and only a
# machine that fails every time is an error.  A bwrap first on PATH fails
# the first bot start (the start gate not taken), or every one.
real_bwrap = shutil.which("bwrap")
if real_bwrap and subprocess.run([real_bwrap, "--ro-bind", "/", "/", "true"],
                                 capture_output=True).returncode == 0:
    for label, fails in (("machine-once", f"mkdir {work}/bwrap-failed 2>/dev/null"),
                         ("machine-always", "true")):
        fake = os.path.join(work, label + "-bin")
        os.makedirs(fake)
        with open(os.path.join(fake, "bwrap"), "w") as f:
            f.write(f'#!/bin/sh\ncase " $* " in *" --block-fd "*)\n'
                    f'  if {fails}; then echo "bwrap: made to fail" >&2; exit 1; fi;;\n'
                    f'esac\nexec {real_bwrap} "$@"\n')
        os.chmod(os.path.join(fake, "bwrap"), 0o755)
        env = dict(os.environ, PATH=fake + ":" + os.environ["PATH"])
        env.pop("MAAT_SANDBOX", None)
        rc, out, err, d = compare(label, "--candidate", RANDOM, "--baseline", RANDOM,
                                  "--max-blocks", "2", "--jobs", "1", env=env)
        if label == "machine-once":
            check(rc in (0, 1, 2) and "the machine failed" in err and
                  "playing it again (2 of 3)" in err and "(3 of 3)" not in err and
                  "verdict: none" not in out,
                  f"compare, the machine fails once (exit 5): the run is played "
                  f"again and counted ({rc}: {err.strip()[-300:]})")
        else:
            check(rc == 3 and "playing it again (3 of 3)" in err and
                  "the machine failed every time" in err and "verdict: none" in out,
                  f"compare, the machine fails every time: exit 3 after 3 tries, "
                  f"saying so ({rc}: {err.strip()[-300:]})")

# one crash is below the share: a verdict, with the faults shown (the
# second game of its block starts a new process: 1 game with a fault)
marker = os.path.join(work, "crashed-once")
rare = once(marker, f"{HOSTILE} --mode crash --after 2", GREEDY)
rc, out, err, d = compare("rare", "--candidate", rare, "--baseline", RANDOM, "--max-blocks", "80")
check(rc == 0 and "NOT WORSE" in out and
      re.search(r"faults: candidate: 1 faults? in 1 of \d+ games \(crash 1\)", out),
      f"compare, one crash: still a verdict, the faults counted "
      f"({rc}: {out.strip()[-300:]} {err.strip()[-200:]})")
rc, out, err, d = compare("share0", "--candidate", once(marker + "2", f"{HOSTILE} --mode crash --after 2", GREEDY),
                          "--baseline", RANDOM, "--max-blocks", "80", "--fault-share", "0")
check(rc == 0, f"--fault-share 0 still needs 3 faulty games ({rc})")

rc, out, err, d = compare("clean", "--candidate", GREEDY, "--baseline", RANDOM, "--max-blocks", "80")
check(rc == 0 and re.search(r"faults: candidate: 0 faults in (\d+) games; baseline: 0 faults in \1 games", out),
      f"a clean comparison shows 0 faults per side ({out.strip()[-400:]})")
check(re.search(r"^blocks +10 +LLR .*faults: candidate 0, baseline 0$", out, re.M) and
      not re.search(r"^blocks +(2|4|6|8) ", out, re.M),
      "progress lines every 10 blocks (--report-every 10), with the fault counts")

# the default temporary directory: removed after a verdict, kept on an error
rc, out, err = ladder("compare", *CMP_ARGS, "--candidate", GREEDY, "--baseline", RANDOM,
                      "--max-blocks", "60", "--quiet")
tmp = re.search(r"games in (\S+)/ladder.jsonl", out)
check(rc == 0 and out.startswith("\nblocks:"), f"--quiet: the summary only ({out[:80]!r})")
rc, out, err = ladder("compare", *CMP_ARGS, "--candidate", dies, "--baseline", RANDOM,
                      "--max-blocks", "20")
kept = re.search(r"kept (/tmp/maat-compare-\w+) for you", err)
check(rc == 3 and kept and os.path.isdir(kept.group(1)) and
      os.path.exists(os.path.join(kept.group(1), "ladder.jsonl")),
      f"on an error the temporary directory is kept and named ({err.strip()[-200:]})")
if kept:
    shutil.rmtree(kept.group(1), ignore_errors=True)
rc, out, err = ladder("compare", *CMP_ARGS, "--candidate", GREEDY, "--baseline", RANDOM,
                      "--max-blocks", "60")
tmp = re.search(r"games in (/tmp/maat-compare-\w+)/ladder.jsonl", out)
check(rc == 0 and tmp and not os.path.exists(tmp.group(1)),
      f"after a verdict the temporary directory is gone ({tmp and tmp.group(1)})")

# ---- compare: Elo head to head with a field -----------------------------------
# greedy and random in the field: both sides score strictly between 0 and 1
rc, out, err, d = compare("field", "--candidate", GREEDY, "--baseline", RANDOM, "--field", GREEDY,
                          "--field", RANDOM, "--seats", "3", "--max-blocks", "8", "--jobs", "4")
games = games_of(os.path.join(d, "games.jsonl"))
res = {"A": {}, "B": {}}
for g in games:
    run = g["match"][-1]
    hero = "candidate" if run == "A" else "baseline"
    me = g["bots"].index(hero)
    r = sum(1 if g["ranks"][me] < g["ranks"][s] else 0.5 if g["ranks"][me] == g["ranks"][s] else 0
            for s in range(g["seats"]) if s != me) / (g["seats"] - 1)
    res[run].setdefault(g["match"][:-2], []).append(r)
mc = sum(sum(v) / len(v) for v in res["A"].values()) / max(len(res["A"]), 1)
mb = sum(sum(v) / len(v) for v in res["B"].values()) / max(len(res["B"]), 1)
want = to_elo(mc) - to_elo(mb)
m = re.search(r"Elo, candidate minus baseline \(head to head\): (\S+)", out)
got = float(m.group(1)) if m else float("nan")
check(len(res["A"]) == 8 and math.isfinite(want) and abs(got - want) < 0.1,
      f"with a field, Elo = L^-1(candidate vs field) - L^-1(baseline vs field): "
      f"{got} vs {want:.2f} from the games")

# ---- compare: what inconclusive means -------------------------------------------
rc, out, err, d = compare("inconclusive", "--candidate", RANDOM, "--baseline", RANDOM,
                          "--max-blocks", "12", "--quiet")
check(rc == 2 and re.search(r"verdict: inconclusive at the block limit \(12\): the games so far "
                            r"cannot tell H0 \(-40 Elo: worse\) from H1 \(\+0 Elo: not worse\); at this rate (about \d+ more "
                            r"blocks would decide \(--max-blocks \d+\)|far more blocks than 12 "
                            r"would be needed)", out),
      f"the inconclusive verdict says what it means and how far a decision is ({out.strip()[-250:]})")

# ---- run: broken bots, progress lines, the ladder format -----------------------------
conf, lad = write_config("broken", seats=2, matches=3, format="round-robin",
                         bots=bots(("good", RANDOM), ("dead", dies), ("good2", RANDOM)))
rc, out, err = ladder("run", conf)
check(rc == 3 and "bot 'dead' is broken, not weak" in err and "no_hello" in err and
      "oops-marker-start" in err and "bot 'good'" not in err and "dead" in out,
      f"run with a bot that dies at start: exit 3 naming it; standings still printed "
      f"({rc}: {err.strip()[-300:]})")
conf, lad = write_config("brokenlog", seats=2, matches=1, referee_args=["--log-dir", os.path.join(work, "runlogs")],
                         bots=bots(("good", RANDOM), ("dead", dies)))
rc, out, err = ladder("run", conf, "--quiet")
m = re.search(r"its output: (\S+)\n", err)
check(rc == 3 and m and os.path.isfile(m.group(1)) and "oops-marker-start" in open(m.group(1)).read(),
      f"run with --log-dir: the broken bot's report names its log ({err.strip()[-300:]})")
conf, lad = write_config("nobin", seats=2, matches=2,
                         bots=bots(("good", RANDOM), ("gone", missing)))
rc, out, err = ladder("run", conf, "--quiet")
check(rc == 1 and f"cannot spawn {missing}" in err and "matches failed" in err,
      f"run with a missing bot binary: the referee's 'cannot spawn', exit 1 ({rc}: {err.strip()[-300:]})")

conf, lad = write_config("prog", seats=2, matches=6, bots=bots(("a", RANDOM), ("b", GREEDY)))
rc, out, err = ladder("run", conf, "--report-every", "2")
lines = [l for l in err.split("\n") if "matches," in l]
check(rc == 0 and "\r" not in err and
      [l.split(":")[1].split()[0] for l in lines] == ["2/6", "4/6", "6/6"] and
      all("/s, ETA" in l and "faults" in l for l in lines),
      f"stderr not a terminal: a progress line every 2 matches ({lines})")
conf, lad = write_config("prog2", seats=2, matches=3, bots=bots(("a", RANDOM), ("b", GREEDY)))
rc, out, err = ladder("run", conf)
check(rc == 0 and len([l for l in err.split("\n") if "matches," in l]) == 3,
      "by default about 20 lines a run (here one per match)")
rc, out, err = ladder("run", conf, "--quiet")
check(rc == 0 and not err and not out, "--quiet: nothing")

conf, lad = write_config("lf4", seats=2, matches=4, format="ladder", jobs=4,
                         bots=bots(("a", RANDOM), ("b", RANDOM), ("c", RANDOM), ("d", RANDOM)))
rc, out, err = ladder("run", conf, "--quiet")
pairs = sorted({(g["match"], tuple(sorted(g["bots"]))) for g in games_of(lad)})
per_bot = {b: sum(b in p for _, p in pairs) for b in "abcd"}
check(rc == 0 and len(pairs) == 4 and len({p for _, p in pairs}) == 4 and
      set(per_bot.values()) == {2},
      f"ladder format, --jobs 4: four different pairings, every bot twice ({pairs})")

many = [(f"b{i:02d}", RANDOM) for i in range(18)]
conf, lad = write_config("many", seats=2, matches=17, bots=bots(*many), format="gauntlet", hero="b00")
rc, out, err = ladder("run", conf, "--quiet", "--jobs", "2")
rc2, sj, err2 = ladder("standings", lad, "--format", "json")
rows = json.loads(sj) if rc2 == 0 else []
games = games_of(lad)
want = {}
for g in games:
    for b in g["bots"]:
        want[b] = want.get(b, 0) + 1
check(rc == 0 and len(rows) == len(want) == 18 and all(r["games"] == want[r["bot"]] for r in rows),
      f"standings of an 18-bot tournament: every row's games right ({len(rows)} rows)")

# ---- the ladder file is followed, not re-read ----------------------------------------
def read_bytes(args):
    """(exit code, bytes maat-ladder read) -- /proc/PID/io of the zombie.
    The count includes what its reaped children (referees, bots) read:
    a few hundred KiB each under AddressSanitizer, far less otherwise."""
    with open(os.path.join(work, "io.out"), "w") as o, open(os.path.join(work, "io.err"), "w") as e:
        p = subprocess.Popen([LADDER, *args], stdout=o, stderr=e, cwd=work)
        end = time.monotonic() + 300
        rchar = -1
        while time.monotonic() < end:
            try:
                with open(f"/proc/{p.pid}/stat") as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
                if state == "Z":
                    with open(f"/proc/{p.pid}/io") as f:
                        rchar = int(re.search(r"rchar: (\d+)", f.read()).group(1))
                    break
            except (OSError, AttributeError):
                break
            time.sleep(0.01)
        return p.wait(timeout=60), rchar


old_game = json.dumps({"v": 1, "id": "x", "match": "old", "game": "pyramids", "seed": 1,
                       "game_index": 0, "seats": 2, "bots": ["p", "q"], "ranks": [1, 2],
                       "scores": [30, 20], "out": [False, False], "faults": [],
                       "decisions": 60, "duration_ms": 3, "pad": "x" * 300})
big = os.path.join(work, "big.jsonl")
with open(big, "w") as f:
    for i in range(48000):
        f.write(old_game.replace('"id": "x"', f'"id": "old-{i}"') + "\n")
size = os.path.getsize(big)
rc, got = read_bytes(["compare", *CMP_ARGS, "--candidate", RANDOM, "--baseline", RANDOM,
                      "--max-blocks", "20", "--jobs", "2", "--ladder", big, "--quiet",
                      "--log-dir", os.path.join(work, "biglogs")])
check(rc == 2 and 0 < got < 3 * size,
      f"compare, 10 waves on a {size >> 20} MiB ladder file: read {got >> 20} MiB (< 3x the file)")
conf, lad = write_config("bigrun", seats=2, matches=8, format="ladder", jobs=2,
                         bots=bots(("a", RANDOM), ("b", RANDOM), ("c", RANDOM)))
shutil.copy(big, lad)
rc, got = read_bytes(["run", conf, "--quiet"])
check(rc == 0 and 0 < got < 3 * size,
      f"run, ladder format, 8 matches on a {size >> 20} MiB ladder file: read {got >> 20} MiB (< 3x)")

print(f"ladder_ci: {failures} failed")
if failures:
    print(f"(files kept in {work})")
    sys.exit(1)
shutil.rmtree(work, ignore_errors=True)
sys.exit(0)
