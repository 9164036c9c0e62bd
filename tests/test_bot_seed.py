#!/usr/bin/env python3
"""An SDK bot seeds its random generator from its whole token (bot.h,
maat_bot_token_seed), not from the token's first character.

Two sample random bots connect themselves (--remote) with tokens we choose,
so each bot's moves depend only on the deal and its own seed.  The same
tokens must replay the same game; a token that differs only in its last
character must give a different game.  Before the fix every token starting
with the same character gave the same seed (16 seeds for the referee's hex
tokens), and the second case played the very same moves."""
import json, os, shutil, subprocess, sys, tempfile

REF = os.environ["MAAT_REFEREE"]
RANDOM = os.environ["MAAT_RANDOM"]
failures = 0
work = tempfile.mkdtemp(prefix="maat-bot-seed-")


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    failures += 0 if cond else 1


def play(label, tok_a, tok_b):
    """The decisions of one game between two remote random bots."""
    ep = f"ipc://{work}/{label}.sock"
    rec = os.path.join(work, label + ".json")
    ref = subprocess.Popen([REF, "--endpoint", ep, "--seed", "3", "--quiet",
                            "--remote", f"a={tok_a}", "--remote", f"b={tok_b}",
                            "--record", rec, "--limit-as", "0"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    bots = [subprocess.Popen([RANDOM], env=dict(os.environ, MAAT_ENDPOINT=ep,
                                                MAAT_TOKEN=t),
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
            for t in (tok_a, tok_b)]
    try:
        out, err = ref.communicate(timeout=120)
    finally:
        for b in bots:
            try:
                b.wait(timeout=30)
            except subprocess.TimeoutExpired:
                b.kill()
                b.wait()
    if ref.returncode != 0:
        print(err)
        return None
    with open(rec) as f:
        return [json.dumps(d["action"], sort_keys=True)
                for d in json.load(f)["decisions"]]


base = play("base", "a" * 31 + "0", "f" * 32)
again = play("again", "a" * 31 + "0", "f" * 32)
other = play("other", "a" * 31 + "1", "f" * 32)
check(base is not None and len(base) > 10, "a game between two remote bots")
check(base == again, "the same tokens play the same game")
check(base is not None and other is not None and base != other,
      "a token differing only in its last character plays differently")

print(f"bot_seed: {failures} failed")
if failures:
    print(f"(files kept in {work})")
    sys.exit(1)
shutil.rmtree(work, ignore_errors=True)
sys.exit(0)
