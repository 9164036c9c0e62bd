#!/usr/bin/env python3
"""The command line of every binary follows the same conventions (issue 20):
--help on every (sub)command with an example and the games, --version,
--opt=value as well as --opt value, numbers checked in full, and errors
that name the option, file:line or field and say what is allowed.  Also
the referee's handling of bots that cannot start: a program that cannot be
exec'd is exit 1 naming the path; a bot that starts and dies before hello
shows its first output lines in the referee's own output and the ladder
line."""
import csv, io, json, os, subprocess, sys, tempfile

REF = os.environ["MAAT_REFEREE"]
LADDER = os.environ["MAAT_LADDER"]
PLAY = os.environ["MAAT_PLAY"]
REPLAY = os.environ.get("MAAT_REPLAY")
RANDOM = os.environ["MAAT_RANDOM"]
failures = 0
work = tempfile.mkdtemp(prefix="maat-cli-")
GAMES = ("pyramids", "pyramix", "architects")


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    failures += 0 if cond else 1
    return cond


def run(prog, *args, timeout=120):
    p = subprocess.run([prog, *args], capture_output=True, text=True,
                       timeout=timeout, cwd=work)
    return p.returncode, p.stdout, p.stderr


def config(name, text):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    return path


# ---- --help and --version everywhere ---------------------------------------
for prog, args, name in ((REF, [], "maat-referee"), (PLAY, [], "maat-play"),
                         (LADDER, [], "maat-ladder")):
    rc, out, err = run(prog, "--version")
    check(rc == 0 and out.startswith(name + " ") and "pyramids" in out,
          f"{name} --version: {out.strip()!r}")
    rc, out, err = run(prog, "--help")
    check(rc == 0 and "usage" in out and all(g in out for g in GAMES),
          f"{name} --help lists the games")
if REPLAY:
    rc, out, err = run(REPLAY, "--version")
    check(rc == 0 and out.startswith("maat-replay ") and "pyramids" in out,
          f"maat-replay --version: {out.strip()!r}")

subs = ("standings", "run", "plan", "merge", "compare", "demo")
for sub in subs:
    rc, out, err = run(LADDER, sub, "--help")
    check(rc == 0 and out.startswith(f"usage: maat-ladder {sub}") and
          "example: maat-ladder " + sub in out and not err,
          f"maat-ladder {sub} --help: usage and an example, exit 0 ({rc} {err.strip()})")
    rc, out2, err = run(LADDER, sub, "-h")
    check(rc == 0 and out2 == out, f"maat-ladder {sub} -h is --help")
    rc, out, err = run(LADDER, sub, "--version")
    check(rc == 0 and out.startswith("maat-ladder "), f"maat-ladder {sub} --version")
for sub in ("standings", "run", "compare"):
    rc, out, err = run(LADDER, sub, "--help")
    check(all(g in out for g in GAMES), f"maat-ladder {sub} --help lists the games")
rc, out, err = run(LADDER, "compare", "--candidate", RANDOM, "--help")
check(rc == 0 and "--baseline" in out, "compare --help after other options")

# help text matches behaviour: bots are exec'd, /bin/sh only when needed
rc, out, err = run(REF, "--help")
check("exec'd directly" in out and "via /bin/sh -c" in out and
      "(via /bin/sh -c) for a seat" not in out,
      "referee --help says plain bot commands are exec'd, not run via /bin/sh")
check("--opt=VALUE" in out and "example: maat-referee" in out,
      "referee --help mentions --opt=VALUE and has an example")

# ---- --opt=value ---------------------------------------------------------------
lad = os.path.join(work, "eq.jsonl")
rc, out, err = run(REF, "--seed=5", "--games=2", f"--bot=a={RANDOM}",
                   "--bot", f"b={RANDOM}", f"--ladder={lad}", "--quiet")
lines = open(lad).read().splitlines() if os.path.exists(lad) else []
check(rc == 0 and len(lines) == 2 and json.loads(lines[0])["seed"] == "5",
      f"maat-referee --seed=5 --games=2 --bot=a=CMD ({rc} {err.strip()[-200:]})")
rc, out, err = run(REF, "--quiet=1", "--bot", f"a={RANDOM}", "--bot", f"b={RANDOM}")
check(rc == 2 and "--quiet takes no value" in err, f"--quiet=1 refused ({err.strip()})")
rc, out, err = run(PLAY, "--seats=3", "--seed=4", "--game=pyramix", "--quiet")
check(rc == 0 and "pyramix, seed 4, 3 seats" in out, f"maat-play --opt=value ({rc} {err.strip()})")
rc, out, err = run(LADDER, "compare", f"--candidate={RANDOM}", f"--baseline={RANDOM}",
                   "--max-blocks=2", "--jobs=2", "--quiet", "--referee-arg=--limit-as",
                   "--referee-arg=0")
check(rc == 2 and "inconclusive" in out, f"compare --opt=value ({rc} {err.strip()[-200:]})")
std_file = os.path.join(work, "eq.jsonl")
rc, out, err = run(LADDER, "standings", std_file, "--format=csv")
check(rc == 0 and out.startswith("game,bot,"), "standings --format=csv")
# a hand-edited line's bot names with a comma, a quote and a line break
# are quoted (RFC 4180): the columns stay where they are
hand = os.path.join(work, "hand.jsonl")
g = json.loads(open(std_file).readline())
g["bots"] = ['a,b', 'say "hi"\nthere']
with open(hand, "w") as f:
    f.write(json.dumps(g) + "\n")
rc, out, err = run(LADDER, "standings", hand, "--format", "csv")
rows = list(csv.reader(io.StringIO(out, newline="")))
check(rc == 0 and len(rows) == 3 and all(len(r) == len(rows[0]) for r in rows)
      and sorted(r[1] for r in rows[1:]) == sorted(g["bots"]),
      f"standings --format csv quotes names with , \" and newlines: {rows!r}")
# a NUL byte in a line: the message says so, not "near end of file"
with open(hand, "ab") as f:
    line = json.dumps(g).encode()
    f.write(line[:1] + b"\0" + line[1:] + b"\n")  # between tokens
rc, out, err = run(LADDER, "standings", hand)
check(rc == 0 and f"{hand}:2: a NUL byte at byte 2" in err and
      "end of file" not in err, f"a NUL byte in a ladder line is named ({err.strip()})")

# ---- numbers checked in full, errors naming the option and what is allowed ----
cmp = ["compare", "--candidate", RANDOM, "--baseline", RANDOM]
cases = [
    (cmp + ["--elo0", "-2O"], 3, ["--elo0", "-2O", "number"]),
    (cmp + ["--elo1", "1e"], 3, ["--elo1", "'1e'"]),
    (cmp + ["--alpha", "0.7"], 3, ["--alpha", "0.7"]),
    (cmp + ["--jobs", "abc"], 3, ["--jobs", "abc", "1 to 256"]),
    (cmp + ["--jobs", "0"], 3, ["--jobs", "1 to 256"]),
    (cmp + ["--jobs", "999"], 3, ["--jobs", "999", "1 to 256", "referees running at once"]),
    (cmp + ["--max-blocks"], 3, ["--max-blocks needs a value"]),
    (cmp + ["--max-blocks", "12x"], 3, ["--max-blocks", "12x"]),
    (["compare", "--candidate", RANDOM], 3, ["--baseline", "required"]),
    (["compare", "--baseline", RANDOM], 3, ["--candidate", "required"]),
    (cmp + ["--game", "chess"], 3, ["--game", "chess", "pyramids", "architects"]),
    (cmp + ["--seats", "9"], 3, ["--seats", "9", "2 to 8"]),
    (cmp + ["--seats", "6"], 3, ["--seats", "pyramids", "2 to 5", "not 6"]),
    (cmp + ["--elo0", "5", "--elo1", "1"], 3, ["--elo0", "--elo1", "below"]),
    (cmp + ["--frobnicate", "1"], 3, ["unknown option '--frobnicate'", "--help"]),
    (cmp + ["--pin=yes"], 3, ["--pin takes no value"]),
    (["run", "x.json", "--jobs", "abc"], 2, ["--jobs", "abc", "1 to 256"]),
    (["run", "x.json", "--jobs", "0"], 2, ["--jobs", "'0'", "1 to 256"]),
    (["run", "x.json", "--jobs", "999"], 2, ["--jobs", "999", "referees running at once"]),
    (["run", "x.json", "--jobs=2x"], 2, ["--jobs", "2x"]),
    (["run", "x.json", "--frob"], 2, ["unknown option '--frob'"]),
    (["run", "x.json", "y.json"], 2, ["unexpected argument 'y.json'"]),
    (["run"], 2, ["config"]),
    (["plan", "x.json"], 2, ["--shard-dir"]),
    (["plan", "x.json", "--shard-dir", "d", "--pin"], 2, ["--pin"]),
    (["demo", "--jobs", "-1"], 2, ["--jobs", "-1"]),
    (["standings"], 2, ["ladder file"]),
    (["standings", "f", "--format", "xml"], 2, ["--format", "xml", "csv"]),
    (["merge", "out.jsonl"], 2, ["SHARD"]),
    (["frobnicate"], 2, ["unknown command 'frobnicate'", "compare"]),
]
for args, want_rc, needles in cases:
    rc, out, err = run(LADDER, *args)
    label = " ".join(a if not a.startswith("/") else "BOT" for a in args)
    check(rc == want_rc and all(n in err for n in needles),
          f"maat-ladder {label}: exit {want_rc}, says {needles} ({rc}: {err.strip()[:200]})")

ref_cases = [
    (["--time", "abc"], ["--time", "abc", "1 to 86400000"]),
    (["--time=12ms"], ["--time", "12ms"]),
    (["--seed", "-5"], ["--seed", "-5"]),
    (["--frobnicate", "1"], ["unknown option '--frobnicate'"]),
    (["--time"], ["--time needs a value"]),
]
for args, needles in ref_cases:
    rc, out, err = run(REF, *args, "--bot", f"a={RANDOM}", "--bot", f"b={RANDOM}")
    if args == ["--time"]:
        rc, out, err = run(REF, "--bot", f"a={RANDOM}", "--bot", f"b={RANDOM}", "--time")
    check(rc == 2 and all(n in err for n in needles),
          f"maat-referee {' '.join(args)}: exit 2, says {needles} ({rc}: {err.strip()})")
for args, needles in ((["--seats", "x"], ["--seats", "'x'"]), (["--seed=1.5"], ["--seed", "1.5"]),
                      (["--game", "chess"], ["chess", "pyramix"]),
                      (["--seats", "7"], ["--seats", "2 to 5", "not 7"]),
                      (["--frob"], ["unknown option '--frob'"])):
    rc, out, err = run(PLAY, *args)
    check(rc == 2 and all(n in err for n in needles),
          f"maat-play {' '.join(args)}: exit 2, says {needles} ({rc}: {err.strip()})")

# ---- referee config files: errors carry file:line --------------------------------
conf = config("ref.conf", f"# a config\nseed 3\n\nbot a={RANDOM}\ntime abc\nbot b={RANDOM}\n")
rc, out, err = run(REF, "--config", conf)
check(rc == 2 and f"{conf}:5:" in err and "--time" in err and "abc" in err,
      f"config: a bad number names file:line ({err.strip()})")
conf = config("ref2.conf", "seed 3\nfrobnicate 2\n")
rc, out, err = run(REF, f"--config={conf}")
check(rc == 2 and f"{conf}:2:" in err and "frobnicate" in err,
      f"config: an unknown option names file:line ({err.strip()})")
conf = config("ref3.conf", "quiet\nseed\n")
rc, out, err = run(REF, "--config", conf)
check(rc == 2 and f"{conf}:2:" in err and "--seed needs a value" in err,
      f"config: a missing value names file:line ({err.strip()})")
inner = config("inner.conf", "seed 1\ngames 0\n")
outer = config("outer.conf", f"quiet\nconfig {inner}\n")
rc, out, err = run(REF, "--config", outer)
check(rc == 2 and f"{inner}:2:" in err and "--games" in err,
      f"nested config: the inner file's line ({err.strip()})")
rc, out, err = run(REF, "--verify", os.path.join(work, "nope.json"))
check(rc == 2 and ":-1:" not in err and "nope.json" in err,
      f"a record that cannot be opened: no line -1 ({err.strip()})")

# ---- tournament configs: type errors name the field ---------------------------------
good = {"seats": 2, "matches": 1, "ladder": os.path.join(work, "t.jsonl"),
        "bots": [{"name": "a", "command": RANDOM}, {"name": "b", "command": RANDOM}]}
tcases = [
    ({"seats": "2"}, ["field 'seats' must be a whole number, not a string"]),
    ({"matches": 2.5}, ["field 'matches' must be a whole number, not a fractional number"]),
    ({"pin": "yes"}, ["field 'pin' must be true or false, not a string"]),
    ({"duplicate": 1}, ["field 'duplicate' must be true or false"]),
    ({"bots": {"a": 1}}, ["field 'bots' must be an array, not an object"]),
    ({"referee_args": ["--time", 200]}, ["referee_args[1] must be a string"]),
    ({"referee_args": ["--quiet"] * 257}, ["field 'referee_args' has more than 256"]),
    ({"bots": [{"name": "a", "command": ""}, {"name": "b", "command": "b"}]},
     ["bots[0] needs a name", "and a command"]),
    ({"game": "chess"}, ["field 'game'", "chess", "pyramix"]),
    ({"seats": 9}, ["field 'seats'", "2 to 5"]),
    ({"jobs": 0}, ["field 'jobs'", "1 to 256"]),
    ({"seed": -1}, ["field 'seed'", "0 or more"]),
    ({"colour": "blue"}, ["unknown field 'colour'", "matches"]),
    ({"bots": [{"name": "a", "cmd": RANDOM}]}, ["bots[0]", "'cmd'"]),
]
for extra, needles in tcases:
    path = config("t.json", json.dumps(dict(good, **extra)))
    rc, out, err = run(LADDER, "run", path)
    check(rc == 2 and path in err and all(n in err for n in needles),
          f"config {json.dumps(extra)[:60]}: exit 2, says {needles} ({err.strip()})")
path = config("empty.json", "")
rc, out, err = run(LADDER, "run", path)
check(rc == 2 and ":-1:" not in err and "empty.json" in err, f"an empty config: no line -1 ({err.strip()})")
rc, out, err = run(LADDER, "run", os.path.join(work, "missing.json"))
check(rc == 2 and ":-1:" not in err and "missing.json" in err,
      f"a missing config: no line -1 ({err.strip()})")

# ---- bots that cannot start ---------------------------------------------------------
missing = os.path.join(work, "no-such-bot")
rc, out, err = run(REF, "--bot", f"a={RANDOM}", "--bot", f"b={missing} --level 3")
check(rc == 1 and f"cannot spawn {missing}: No such file or directory" in err and
      "bot b" in err,
      f"a missing bot binary: exit 1 naming the bot and the path ({rc}: {err.strip()})")
rc, out, err = run(REF, "--bot", f"a={RANDOM}", "--bot", f"b={work}")
check(rc == 1 and "cannot spawn" in err and work in err,
      f"a directory as the bot: exit 1 ({rc}: {err.strip()})")
lad = os.path.join(work, "start.jsonl")
broken = "echo 'Traceback (most recent call last):' >&2; echo 'ModuleNotFoundError: No module named numpy' >&2; exit 1"
rc, out, err = run(REF, "--bot", f"a={RANDOM}", "--bot", f"b={broken}", "--ladder", lad)
check(rc == 0 and "ModuleNotFoundError: No module named numpy" in err and
      "Traceback" in err and "no_hello" in err,
      f"a bot that dies at start: its first output lines in the referee's output ({err.strip()[:300]})")
line = json.loads(open(lad).read().splitlines()[-1]) if os.path.exists(lad) else {}
details = [f["detail"] for f in line.get("faults", [])]
check(any("exited with status 1" in d and "ModuleNotFoundError" in d for d in details),
      f"... and in the ladder line's fault detail ({details})")

print(f"cli: {failures} failed")
if failures:
    print(f"(files kept in {work})")
    sys.exit(1)
subprocess.run(["rm", "-rf", work])
sys.exit(0)
