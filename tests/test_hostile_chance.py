#!/usr/bin/env python3
"""Hostile entrants against the deal (issue 15): a bot must not be able to
predict a deal, nor carry one from a game of a duplicate group to the next.

maat-chance-bot (tests/bots/chance.c) does what an attacker would:
- crack: at its first request, tries every short seed 0..65535 against the
  round-1 quarry on the table (the deal is a public function of the seed,
  docs/RNG.md), and reports what it could read of its parent's command line
  and its own environment;
- remember: keeps every deal it sees (in memory, and in a file when given
  one) and, when a later game shows a known round-1 quarry, predicts round
  2's quarry and checks.

Each attack is also run where it must succeed (a short --seed, a series
with --keep-bots), so the test shows it would catch a regression.  Also:
no seed on the referee's or the ladder's command lines, the tournament key
file (0600, kept for resume), the low-entropy warning, and issue 14's seed
overflows (a series or tournament seed near 2^63)."""
import hashlib, json, os, re, shutil, stat, subprocess, sys, tempfile

REF = os.environ["MAAT_REFEREE"]
LADDER = os.environ["MAAT_LADDER"]
CHANCE = os.environ["MAAT_CHANCE"]
RANDOM = os.environ["MAAT_RANDOM"]
failures = 0
# not under /tmp: a sandboxed bot sees a private /tmp of its own
work = tempfile.mkdtemp(prefix="maat-hostile-chance-",
                        dir=os.environ.get("MAAT_BUILD_ROOT"))
CRACK_N = 65536


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    failures += 0 if cond else 1
    return cond


def run(*args, timeout=300):
    p = subprocess.run(list(args), capture_output=True, text=True,
                       timeout=timeout, cwd=work)
    return p.returncode, p.stdout, p.stderr


def lines(path):
    return open(path).read().splitlines() if os.path.exists(path) else []


def ladder_games(path):
    return [json.loads(l) for l in lines(path)]


def derive(key_text, label):
    """docs/RNG.md: keyed BLAKE2b-256; a short seed is 8 bytes LE + zeros."""
    key = (bytes.fromhex(key_text) if len(key_text) == 64
           else int(key_text).to_bytes(8, "little") + bytes(24))
    return hashlib.blake2b(label.encode(), key=key, digest_size=32).hexdigest()


def crack_bot(report):
    return f"{CHANCE} crack {CRACK_N} {report}"


# ---- 1. brute force of the seed from the first observation ----------------
rep = os.path.join(work, "crack-default.txt")
lad = os.path.join(work, "crack-default.jsonl")
rc, out, err = run(REF, "--quiet", "--ladder", lad,
                   "--bot", f"c={crack_bot(rep)}", "--bot", f"r={RANDOM}")
games = ladder_games(lad)
seed = games[0]["seed"] if games else ""
check(rc == 0 and len(games) == 1, f"a match without --seed ({rc} {err[-200:]})")
check("crack none" in lines(rep) and not any(l.startswith("crack found")
                                             for l in lines(rep)),
      f"without --seed no short seed 0..{CRACK_N - 1} deals the table "
      f"({[l for l in lines(rep) if l.startswith('crack')]})")
check(re.fullmatch(r"[0-9a-f]{64}", seed) is not None,
      f"the seed, in the ladder line once the game is over, is 64 hex digits "
      f"from the OS ({seed})")
proc = "\n".join(l for l in lines(rep) if not l.startswith("crack"))
check(seed and seed not in proc and "--seed" not in proc,
      "the bot finds the seed neither in the referee's command line nor in "
      "its environment")

# the control: a short seed is found at once (the attack of issue 15)
rep = os.path.join(work, "crack-short.txt")
rc, out, err = run(REF, "--quiet", "--seed", "4242",
                   "--bot", f"c={crack_bot(rep)}", "--bot", f"r={RANDOM}")
check(rc == 0 and "crack found 4242" in lines(rep),
      f"control: with --seed 4242 the same bot finds the seed "
      f"({[l for l in lines(rep) if l.startswith('crack')]})")

# ... and the referee warns when such a seed meets entrants it cannot watch
rc, out, err = run(REF, "--seed", "7", "--hello-time", "200", "--quiet",
                   "--remote", "far=" + "ab" * 16, "--bot", f"r={RANDOM}")
check("warning" in err and "seed 7" in err and "remote" in err,
      f"a short seed with a remote entrant: a warning ({err.strip()[-300:]})")
rc, out, err = run(REF, "--seed", "ab" * 32, "--hello-time", "200", "--quiet",
                   "--remote", "far=" + "ab" * 16, "--bot", f"r={RANDOM}")
check("warning" not in err, f"no warning for a 64-hex seed ({err.strip()[-200:]})")
rc, out, err = run(REF, "--seed", "7", "--quiet", "--bot", f"a={RANDOM}",
                   "--bot", f"r={RANDOM}")
check(rc == 0 and "warning" not in err,
      f"no warning for a short seed between spawned bots ({err.strip()[-200:]})")
if subprocess.run("bwrap --ro-bind / / true", shell=True,
                  capture_output=True).returncode == 0:
    rc, out, err = run(REF, "--seed", "7", "--quiet", "--sandbox",
                       "--bot", f"a={RANDOM}", "--bot", f"r={RANDOM}")
    check(rc == 0 and "warning" in err and "sandboxed" in err,
          f"a short seed with sandboxed bots: a warning ({rc} {err.strip()[-300:]})")
else:
    print("SKIP the sandboxed warning: bubblewrap is not usable here")

# a tournament without a seed: a secret key file, nothing on command lines
conf = os.path.join(work, "t.json")
lad = os.path.join(work, "t.jsonl")
reports = [os.path.join(work, f"t-{b}.txt") for b in "ab"]
with open(conf, "w") as f:
    json.dump({"name": "t", "seats": 2, "matches": 3, "ladder": lad,
               "referee": REF, "bots": [
                   {"name": "a", "command": crack_bot(reports[0])},
                   {"name": "b", "command": crack_bot(reports[1])}]}, f)
rc, out, err = run(LADDER, "run", conf, "--quiet")
games = ladder_games(lad)
keyf = lad + ".t.key"
key = open(keyf).read().strip() if os.path.exists(keyf) else ""
check(rc == 0 and len(games) == 6, f"a duplicate tournament of 3 matches "
      f"({rc} {len(games)} {err.strip()[-200:]})")
check(os.path.exists(keyf) and stat.S_IMODE(os.stat(keyf).st_mode) == 0o600 and
      re.fullmatch(r"[0-9a-f]{64}", key) is not None,
      "the tournament's key: 64 hex digits in t.jsonl.t.key, mode 0600")
check(games and all(g["seed"] == derive(key, g["match"]) for g in games),
      "each match is dealt derive(key, match id)")
cracks = [l for r in reports for l in lines(r) if l.startswith("crack")]
check(len(cracks) == 12 and set(cracks) == {"crack none"},
      f"no bot of the tournament cracks its deal ({cracks})")
proc = "\n".join(l for r in reports for l in lines(r)
                 if not l.startswith("crack"))
check(key and key not in proc and
      not any(g["seed"] in proc for g in games) and
      "--seed-file" in proc and "--seed " not in proc,
      "the referees' command lines name the key file, never a seed or the "
      "key, and no bot's environment holds them")
# resume: the same key, so the same deals (delete a match's games first)
with open(lad, "w") as f:
    for g in games:
        if g["match"] != "t-2":
            f.write(json.dumps(g) + "\n")
rc, out, err = run(LADDER, "plan", conf, "--shard-dir", work)
check(rc == 0 and len(out.splitlines()) == 1 and key not in out and
      f"'--seed-file' '{keyf}'" in out and "'--seed-label' 't-2'" in out and
      not any(g["seed"] in out for g in games),
      f"plan's command names the key file and the label, not the key or a "
      f"seed ({out.strip()[:300]})")
rc, out, err = run(LADDER, "run", conf, "--quiet")
again = {g["id"]: g["seed"] for g in ladder_games(lad)}
check(rc == 0 and len(again) == 6 and open(keyf).read().strip() == key and
      all(again[g["id"]] == g["seed"] for g in games),
      "resuming keeps the key file and deals the missing match the same")
os.chmod(keyf, 0o644)
rc, out, err = run(LADDER, "run", conf, "--quiet")
check(rc == 2 and "chmod 600" in err,
      f"a key file others may read is refused ({rc} {err.strip()[-200:]})")

# compare: a secret key per run unless --seed
rc, out, err = run(LADDER, "compare", "--candidate", RANDOM, "--baseline",
                   RANDOM, "--max-blocks", "2", "--ladder",
                   os.path.join(work, "cmp1.jsonl"), "--quiet",
                   "--referee-arg=--limit-as", "--referee-arg=0")
cmp1 = ladder_games(os.path.join(work, "cmp1.jsonl"))
check(rc == 2 and len(cmp1) == 4 and
      all(re.fullmatch(r"[0-9a-f]{64}", g["seed"]) for g in cmp1) and
      len({g["seed"] for g in cmp1}) == 2,
      f"compare without --seed: 2 blocks, one secret deal each, the same for "
      f"candidate and baseline ({rc} {[g['seed'][:8] for g in cmp1]})")
rc, out, err = run(LADDER, "compare", "--candidate", RANDOM, "--baseline",
                   RANDOM, "--max-blocks", "2", "--seed", "9", "--ladder",
                   os.path.join(work, "cmp2.jsonl"), "--quiet")
cmp2 = ladder_games(os.path.join(work, "cmp2.jsonl"))
check(rc == 2 and {g["seed"] for g in cmp2} ==
      {derive("9", "block 0"), derive("9", "block 1")},
      "compare --seed 9: block b is dealt derive(9, 'block b')")

# ---- 2. issue 14: seeds near 2^63 -------------------------------------------
lad = os.path.join(work, "big.jsonl")
rc, out, err = run(REF, "--seed", "9223372036854775807", "--games", "2",
                   "--quiet", "--ladder", lad, "--record",
                   os.path.join(work, "big.json"),
                   "--bot", f"a={RANDOM}", "--bot", f"b={RANDOM}")
games = ladder_games(lad)
check(rc == 0 and [g["seed"] for g in games] ==
      ["9223372036854775807", derive("9223372036854775807", "game 1")],
      f"--seed 2^63-1 --games 2: game 1 plays derive(seed, 'game 1'), never a "
      f"negative seed ({rc} {[g['seed'] for g in games]} {err.strip()[-200:]})")
rc1, o1, _ = run(REF, "--verify", os.path.join(work, "big-1.json"))
check(rc1 == 0 and "verified" in o1, "... and its record of game 1 verifies")
rc, out, err = run(REF, "--seed", "18446744073709551615", "--quiet",
                   "--bot", f"a={RANDOM}", "--bot", f"b={RANDOM}")
check(rc == 0, f"--seed 2^64-1 is a seed ({rc} {err.strip()[-200:]})")
rc, out, err = run(REF, "--seed", "18446744073709551616", "--quiet",
                   "--bot", f"a={RANDOM}", "--bot", f"b={RANDOM}")
check(rc == 2 and "--seed" in err and "64 hex digits" in err,
      f"--seed 2^64 is refused, saying what is allowed ({err.strip()[-200:]})")
conf = os.path.join(work, "big-t.json")
lad = os.path.join(work, "big-t.jsonl")
with open(conf, "w") as f:
    json.dump({"name": "big", "seats": 2, "matches": 3, "ladder": lad,
               "seed": 9223372036854775807, "referee": REF,
               "bots": [{"name": "a", "command": RANDOM},
                        {"name": "b", "command": RANDOM}]}, f)
rc, out, err = run(LADDER, "run", conf, "--quiet")
rc2, out2, err2 = run(LADDER, "run", conf, "--quiet")
games = ladder_games(lad)
check(rc == 0 and rc2 == 0 and len(games) == 6 and
      all(g["seed"] == derive("9223372036854775807", g["match"])
          for g in games),
      f"a tournament seeded 2^63-1: every match runs, and resuming finds "
      f"nothing to replay ({rc} {rc2} {err.strip()[-200:]} {err2.strip()[-200:]})")

# ---- 3. duplicate games without memory ---------------------------------------
rep = os.path.join(work, "mem-fresh.txt")
rc, out, err = run(REF, "--games", "2", "--same-deal", "--fixed-seats",
                   "--quiet", "--bot", f"c={CHANCE} remember {rep}",
                   "--bot", f"r={RANDOM}")
rem = [l.split() for l in lines(rep)]
check(rc == 0 and len(rem) == 2 and rem[0][4] != rem[1][4] and
      all(r[6] == "0" and r[10] == "-" for r in rem),
      f"--same-deal series: every game a new process that remembers nothing "
      f"of the deal ({lines(rep)})")
rep = os.path.join(work, "mem-kept.txt")
rc, out, err = run(REF, "--games", "2", "--same-deal", "--keep-bots",
                   "--fixed-seats", "--quiet",
                   "--bot", f"c={CHANCE} remember {rep}", "--bot", f"r={RANDOM}")
rem = [l.split() for l in lines(rep)]
check(rc == 0 and len(rem) == 2 and rem[1][6] == "1" and rem[1][10] == "1",
      f"control: with --keep-bots the same process knows game 2's deck "
      f"({lines(rep)})")
rc, out, err = run(REF, "--games", "2", "--same-deal", "--quiet",
                   "--remote", "far=" + "cd" * 16, "--bot", f"r={RANDOM}")
check(rc == 2 and "--keep-bots" in err and "remote" in err,
      f"a same-deal series with a remote bot needs --keep-bots, said plainly "
      f"({rc} {err.strip()[-300:]})")

conf = os.path.join(work, "m.json")
lad = os.path.join(work, "m.jsonl")
reports = [os.path.join(work, f"m-{b}.txt") for b in "ab"]
with open(conf, "w") as f:
    json.dump({"name": "m", "seats": 2, "matches": 2, "ladder": lad,
               "referee": REF, "bots": [
                   {"name": "a", "command": f"{CHANCE} remember {reports[0]}"},
                   {"name": "b", "command": f"{CHANCE} remember {reports[1]}"}]},
              f)
rc, out, err = run(LADDER, "run", conf, "--quiet")
rem = [l.split() for r in reports for l in lines(r)]
check(rc == 0 and len(rem) == 8 and len({r[4] for r in rem}) == 8 and
      all(r[6] == "0" and r[10] == "-" for r in rem),
      f"a duplicate tournament: 8 games by 8 processes, none remembering a "
      f"deal ({[' '.join(r) for r in rem]})")

if subprocess.run("bwrap --ro-bind / / true", shell=True,
                  capture_output=True).returncode == 0:
    # a bot that writes the deal to a file for its next process: inside the
    # sandbox /tmp is private to each process and the rest is read-only
    # (the sandbox cannot write our files: the bot reports into its log)
    logs = os.path.join(work, "box-logs")
    memo = "/tmp/maat-chance-memo.bin"
    rc, out, err = run(REF, "--games", "2", "--same-deal", "--fixed-seats",
                       "--sandbox", "--quiet", "--log-dir", logs,
                       "--bot", f"c={CHANCE} remember - {memo}",
                       "--bot", f"r={RANDOM}")
    # one log per game (MATCH-GAME-BOT.log); a report line may be tagged
    # with its decision first
    rem = [l[l.index("remember"):].split()
           for f in sorted(os.listdir(logs)) if f.endswith("-c.log")
           for l in lines(os.path.join(logs, f)) if "remember" in l]
    check(rc == 0 and len(rem) == 2 and
          all(r[6] == "0" and r[8] == "0" and r[10] == "-" for r in rem),
          f"--sandbox: a deal written to /tmp does not reach the next game's "
          f"process ({rc} {rem} {err.strip()[-200:]})")
else:
    print("SKIP the sandboxed file memory: bubblewrap is not usable here")

if failures == 0:
    shutil.rmtree(work, ignore_errors=True)
else:
    print(f"(kept {work})")
print(f"hostile_chance: {failures} failed")
sys.exit(1 if failures else 0)
