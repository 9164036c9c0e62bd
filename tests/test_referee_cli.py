#!/usr/bin/env python3
"""maat-referee's command line: --help, errors that name the option, file or
line, config files, series records, exit codes (docs/REFEREE.md)."""
import hashlib, json, os, subprocess, sys, tempfile

REF = os.environ["MAAT_REFEREE"]
RANDOM = os.environ["MAAT_RANDOM"]
failures = 0

def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what)
    failures += 0 if cond else 1

def run(*args, cwd=None):
    p = subprocess.run([REF, *args], capture_output=True, text=True,
                       timeout=120, cwd=cwd)
    return p.returncode, p.stdout + p.stderr

rc, out = run("--help")
check(rc == 0 and "--on-timeout" in out and "Exit codes" in out, "--help lists options and exit codes")
rc, out = run("--frobnicate", "1")
check(rc == 2 and "--frobnicate" in out, "unknown option: exit 2, named")
rc, out = run("--seed", "-5", "--bot", "a=" + RANDOM, "--bot", "b=" + RANDOM)
check(rc == 2 and "--seed" in out, "bad seed: exit 2, names --seed")
rc, out = run("--on-timeout", "sometimes", "--bot", "a=x", "--bot", "b=y")
check(rc == 2 and "--on-timeout" in out and "sometimes" in out, "bad policy named")
rc, out = run("--on-crash", "strikes:2", "--bot", "a=x", "--bot", "b=y")
check(rc == 2 and "forfeit" in out, "crash policy can only forfeit")
rc, out = run("--game", "chess", "--bot", "a=x", "--bot", "b=y")
check(rc == 2 and "chess" in out, "unknown game named")
rc, out = run("--bot", "a=" + RANDOM)
check(rc == 2 and "2 to 5 seats" in out, "too few bots: exit 2 with the seat range")
rc, out = run("--bot", "a=" + RANDOM, "--bot", "a=" + RANDOM)
check(rc == 2 and "'a'" in out, "duplicate bot name refused")
rc, out = run("--remote", "a=s3cret", "--remote", "b=s3cret", "--bot", "c=" + RANDOM)
check(rc == 2 and "--remote b" in out and "--remote a" in out and "token" in out,
      "two remote seats on one token refused, both named (%r)" % out.strip()[:200])
rc, out = run("--bot", "a=" + RANDOM + " " + "x" * 4000, "--bot", "b=" + RANDOM)
check(rc == 2 and "--bot a" in out and "4000 bytes" in out,
      "a --bot command over 4000 bytes refused, not cut (%r)" % out.strip()[:200])
rc, out = run("--bot", "noequals")
check(rc == 2 and "NAME=VALUE" in out, "--bot without = refused")
rc, out = run()
check(rc == 2 and "usage" in out, "no bots and no --demo: usage, exit 2")
rc, out = run("--limit-mem", "64M", "--bot", "a=" + RANDOM, "--bot", "b=" + RANDOM)
check(rc == 2 and "--limit-mem" in out and "64M" in out, "--limit-mem 64M: exit 2, names the option and value")
# --limit-mem where no memory cgroup can be made (here: an unprivileged
# user, when the tests run as root and that user can run the referee):
# exit 2 before any bot starts, saying where and why
nobody = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"]
try:
    can = os.geteuid() == 0 and subprocess.run(
        nobody + [REF, "--version"], capture_output=True).returncode == 0
except OSError:
    can = False
if can:
    p = subprocess.run(nobody + [REF, "--no-sandbox", "--limit-mem", "64",
                                 "--bot", "a=" + RANDOM, "--bot", "b=" + RANDOM],
                       capture_output=True, text=True, timeout=120)
    check(p.returncode == 2 and "--limit-mem 64" in p.stderr and
          "no memory cgroup" in p.stderr and "/" in p.stderr and
          "seat" not in p.stdout,
          "--limit-mem without a memory cgroup: exit 2 naming the directory "
          "and the reason, no game played (%r)" % p.stderr.strip()[:200])
else:
    print("#   not root, or the referee not runnable by nobody: no unprivileged --limit-mem case")

with tempfile.TemporaryDirectory() as d:
    deck = os.path.join(d, "deck.txt")
    open(deck, "w").write("0 BW -\n1 BQ -\n")
    rc, out = run("--deck", deck, "--bot", "a=" + RANDOM, "--bot", "b=" + RANDOM)
    check(rc == 2 and deck + ":2:" in out and "colour" in out,
          "bad deck: exit 2 with file:line and reason")

    conf = os.path.join(d, "m.conf")
    with open(conf, "w") as f:
        f.write("# a config file\ngame pyramids\nseed 9\ntime 5000\n"
                f"bot a={RANDOM}\nbot b={RANDOM}\nfixed-seats\n")
    rec = os.path.join(d, "rec.json")
    rc, out = run("--config", conf, "--record", rec, "--games", "2", "--quiet")
    check(rc == 0, "config file match runs")
    r0, r1 = os.path.join(d, "rec-0.json"), os.path.join(d, "rec-1.json")
    check(os.path.exists(r0) and os.path.exists(r1), "series writes rec-0.json and rec-1.json")
    if os.path.exists(r0) and os.path.exists(r1):
        j0, j1 = json.load(open(r0)), json.load(open(r1))
        # docs/RNG.md: game 0 plays the seed, game k derive(seed, "game k")
        key9 = (9).to_bytes(8, "little") + bytes(24)
        game1 = hashlib.blake2b(b"game 1", key=key9, digest_size=32).hexdigest()
        check(j0["seed"] == "9" and j1["seed"] == game1,
              "series seeds: SEED, then derive(SEED, 'game 1') (%s %s)"
              % (j0["seed"], j1["seed"]))
        check(j0["seats"][0]["bot"] == "a" and j1["seats"][0]["bot"] == "b",
              "fixed seats, then rotated by one in game 1")
        rc, out = run("--verify", r1)
        check(rc == 0 and "verified" in out, "--verify passes on a series record")
        # a record anyone may have edited: what --verify prints of it has
        # no control character (a terminal escape, a C1 CSI)
        bad = os.path.join(d, "edited.json")
        for what, edit in (("rules_version", lambda j: j.update(
                               rules_version="v\u001b]0;pwned\u0007\u009b31m")),
                           ("options.deck", lambda j: j.setdefault(
                               "options", {}).update(deck="/no/\u001b[2Jdeck"))):
            j = json.loads(open(r1).read())
            edit(j)
            with open(bad, "w") as f:
                json.dump(j, f, ensure_ascii=False)
            rc, out = run("--verify", bad, "--verbose")
            check(rc in (2, 3) and "\x1b" not in out and "\x07" not in out and
                  "\u009b" not in out,
                  "--verify of a record with escapes in %s prints none (exit %d)"
                  % (what, rc))

    with open(conf, "a") as f:
        f.write("time soon\n")
    rc, out = run("--config", conf)
    check(rc == 2 and "--time" in out and conf in out, "bad config value: names option and file")

    notrec = os.path.join(d, "x.json")
    open(notrec, "w").write('{"hello": 1}')
    rc, out = run("--verify", notrec)
    check(rc == 2 and "not a maat record" in out, "--verify on a non-record: exit 2")
    open(notrec, "w").write('{"hello": ')
    rc, out = run("--verify", notrec)
    check(rc == 2 and notrec + ":" in out, "--verify on broken JSON names the file and line")

    rc, out = run("--demo", "--quiet", "--seed", "3", "--record", rec, "--ladder",
                  os.path.join(d, "l.jsonl"))
    check(rc == 0, "--demo runs")
    lines = open(os.path.join(d, "l.jsonl")).read().splitlines()
    check(len(lines) == 1 and json.loads(lines[0])["seats"] == 4, "--demo writes one 4-seat ladder line")

print(f"test_referee_cli: {failures} failed")
sys.exit(1 if failures else 0)
