#!/usr/bin/env python3
"""docs/CI.md's gate script, run as a CI job would run it: the script is
extracted from the page and run in a throwaway git repository whose "bot"
is a sample bot chosen per commit -- a better candidate passes, a worse one
fails, one that dies at start is an error naming it, a baseline that does
not build is an error, an inconclusive run passes with a warning (fails
with GATE_STRICT=1), and on GitHub the failures are annotations.  Every
failure before the comparison (no maat, maat not building, an OUT that
cannot be made or is in use, no git repository, a bad BASE_REF) is exit 2
with a message saying what failed; the baseline's submodules are checked
out.  One gate runs with the sandbox on (MAAT_SANDBOX=on, as the jobs) where
bubblewrap works here.  The page's YAML blocks must parse (if PyYAML is
installed), every shell line in them must pass `bash -n`, and they must
install the packages that scripts/install-deps.sh lists for building maat
and sandboxing its bots."""
import fcntl, os, re, subprocess, sys, tempfile

SRC = os.environ["MAAT_SOURCE_ROOT"]
BUILD = os.environ["MAAT_BUILD_ROOT"]
RANDOM = os.environ["MAAT_RANDOM"]
GREEDY = os.environ["MAAT_GREEDY"]
failures = 0
work = tempfile.mkdtemp(prefix="maat-ci-doc-")
with open(RANDOM, "rb") as _f:
    SAN = b"__asan_init" in _f.read()
SAN_ARGS = " --referee-arg=--limit-as --referee-arg=0" if SAN else ""


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    failures += 0 if cond else 1
    return cond


page = open(os.path.join(SRC, "docs", "CI.md")).read()
blocks = re.findall(r"```(\w*)\n(.*?)```", page, re.S)
gate = [b for lang, b in blocks if lang == "bash" and b.startswith("#!/usr/bin/env bash\n# maat-gate.sh")]
check(len(gate) == 1, "docs/CI.md has one maat-gate.sh block")
script = os.path.join(work, "maat-gate.sh")
with open(script, "w") as f:
    f.write(gate[0] if gate else "exit 99\n")
p = subprocess.run(["bash", "-n", script], capture_output=True, text=True)
check(p.returncode == 0, f"the gate script parses ({p.stderr.strip()})")

# ---- the YAML blocks ---------------------------------------------------------
yamls = [b for lang, b in blocks if lang == "yaml"]
check(len(yamls) == 2, f"a GitHub workflow and a GitLab job ({len(yamls)} YAML blocks)")
deps = open(os.path.join(SRC, "scripts", "install-deps.sh")).read()
for pkg in ["meson", "ninja-build", "pkg-config", "gcc", "libzmq3-dev", "libmsgpack-dev",
            "libjansson-dev", "libsodium-dev", "libseccomp-dev", "bubblewrap"]:
    check(re.search(rf"[ (]{pkg}[ )\n]", deps) is not None and
          all(re.search(rf" {pkg}( |\n|$)", y) for y in yamls),
          f"install-deps.sh and both YAML blocks install {pkg}")
try:
    import yaml
except ImportError:
    yaml = None
    print("note: PyYAML missing, the YAML blocks are not parsed")
if yaml:
    shell = []
    docs = []
    for y in yamls:
        try:
            docs.append(yaml.safe_load(y))
        except yaml.YAMLError as e:
            check(False, f"YAML parses: {e}")
    gh = next((d for d in docs if isinstance(d, dict) and "jobs" in d), None)
    gl = next((d for d in docs if isinstance(d, dict) and "maat-gate" in d), None)
    if check(gh is not None, "the GitHub workflow parses and has jobs"):
        steps = [s for j in gh["jobs"].values() for s in j["steps"]]
        shell += [s["run"] for s in steps if "run" in s]
        gate_steps = [s for s in steps if "maat-gate.sh" in s.get("run", "")]
        check(len(gate_steps) == 1 and {"BASE_REF", "BOT_BUILD", "BOT_CMD"} <= set(gate_steps[0].get("env", {})),
              "GitHub: one step runs maat-gate.sh with BASE_REF, BOT_BUILD and BOT_CMD")
        check(any(s.get("uses", "").startswith("actions/checkout") and
                  s.get("with", {}).get("fetch-depth") == 0 for s in steps),
              "GitHub: the checkout fetches the whole history (the base commit)")
    if check(gl is not None, "the GitLab job parses"):
        job = gl["maat-gate"]
        shell += job.get("before_script", []) + job.get("script", [])
        check(job.get("variables", {}).get("GIT_DEPTH") == 0 and
              any("maat-gate.sh" in s for s in job.get("script", [])),
              "GitLab: whole history, runs maat-gate.sh")
    for k, s in enumerate(shell):
        path = os.path.join(work, f"yaml-{k}.sh")
        with open(path, "w") as f:
            f.write(s + "\n")
        p = subprocess.run(["bash", "-n", path], capture_output=True, text=True)
        check(p.returncode == 0, f"shell line {k} of the YAML passes bash -n ({p.stderr.strip()})")

# ---- the script in a bot repository ---------------------------------------------
repo = os.path.join(work, "repo")
os.makedirs(repo)


def git(*args):
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def commit(bot_sh, msg, makefile=True):
    with open(os.path.join(repo, "bot.sh"), "w") as f:
        f.write(bot_sh)
    mk = os.path.join(repo, "Makefile")
    if makefile:
        with open(mk, "w") as f:
            f.write(".PHONY: bot\nbot:\n\tcp bot.sh bot && chmod +x bot\n")
    elif os.path.exists(mk):
        os.unlink(mk)
    git("add", "-A")
    git("commit", "-q", "-m", msg)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, check=True,
                          capture_output=True, text=True).stdout.strip()


def gate_run(base, cwd=None, sandbox=False, **env):
    e = dict(os.environ, BASE_REF=base, MAAT_SRC=SRC, MAAT_BUILD=BUILD,
             COMPARE_ARGS="--max-blocks 100" + SAN_ARGS, OUT=os.path.join(work, "out"))
    e.pop("GITHUB_ACTIONS", None)
    if sandbox:  # as the page's jobs run it: sandboxed, or an error
        e["MAAT_SANDBOX"] = "on"
    e.update(env)
    p = subprocess.run(["bash", script], cwd=cwd or repo, env=e, capture_output=True,
                       text=True, timeout=600)
    return p.returncode, p.stdout + p.stderr


def summary():
    with open(os.path.join(work, "out", "summary.txt")) as f:
        return f.read()


git("init", "-q")
git("config", "user.email", "ci@example.org")
git("config", "user.name", "ci")
with open(os.path.join(repo, ".gitignore"), "w") as f:
    f.write("bot\nout/\n")
weak = commit(f"#!/bin/sh\nexec {RANDOM}\n", "random")
strong = commit(f"#!/bin/sh\nexec {GREEDY}\n", "greedy")
rc, out = gate_run(weak)
print(out)
check(rc == 0 and "verdict: candidate is NOT WORSE" in out and "maat-gate: PASS" in out,
      f"a better candidate passes ({rc})")
check(re.search(r"faults: candidate: 0 faults in \d+ games; baseline: 0 faults", out) is not None,
      "the log shows the faults per side")
check(os.path.exists(os.path.join(work, "out", "games.jsonl")) and
      os.path.isdir(os.path.join(work, "out", "logs")) and
      os.path.exists(os.path.join(work, "out", "summary.txt")),
      "games, logs and summary are kept in OUT")

commit(f"#!/bin/sh\nexec {RANDOM}\n", "random again")
rc, out = gate_run(strong)
check(rc == 1 and "verdict: candidate is WORSE" in out and "maat-gate: FAIL" in out,
      f"a worse candidate fails, exit 1 ({rc}: {out[-300:]})")
rc, out = gate_run(strong, GITHUB_ACTIONS="true")
check(rc == 1 and "::error::maat-gate: FAIL" in out, "on GitHub the failure is an ::error:: annotation")

rc, out = gate_run(weak, COMPARE_ARGS="--max-blocks 4" + SAN_ARGS)
check(rc == 0 and "inconclusive" in out and "PASS, but inconclusive" in out,
      f"inconclusive passes with a warning ({rc})")
rc, out = gate_run(weak, COMPARE_ARGS="--max-blocks 4" + SAN_ARGS, GATE_STRICT="1")
check(rc == 1 and "FAIL: inconclusive" in out, f"... and fails with GATE_STRICT=1 ({rc})")

commit("#!/bin/sh\necho 'Traceback (most recent call last):' >&2\n"
       "echo \"ModuleNotFoundError: No module named 'torch'\" >&2\nexit 1\n", "broken")
rc, out = gate_run(weak)
print(out)
check(rc == 2 and "the candidate is broken, not weak" in out and "no_hello" in out and
      "ModuleNotFoundError: No module named 'torch'" in out and "maat-gate: ERROR" in out and
      "verdict: none" in out and "WORSE" not in out,
      f"a candidate that dies at start is an error naming it, exit 2 ({rc})")
check("ModuleNotFoundError: No module named 'torch'" in summary() and
      "the candidate is broken, not weak" in summary(),
      "summary.txt has the cause of the error too")

nomake = commit(f"#!/bin/sh\nexec {RANDOM}\n", "no makefile", makefile=False)
commit(f"#!/bin/sh\nexec {RANDOM}\n", "makefile back")
rc, out = gate_run(nomake)
check(rc == 2 and "the baseline does not build" in out, f"a baseline that does not build: exit 2 ({rc})")
rc, out = gate_run("no-such-ref")
check(rc == 2 and "cannot check out BASE_REF 'no-such-ref'" in out and "fatal: " in out,
      f"a bad BASE_REF: exit 2, with git's message ({rc}: {out[-300:]})")

# ---- failures before the comparison: exit 2, saying what failed ---------------
rc, out = gate_run(weak, MAAT_SRC="/nonexistent")
check(rc == 2 and "no maat source tree at MAAT_SRC='/nonexistent'" in out,
      f"no maat source tree: exit 2 ({rc}: {out[-300:]})")
rc, out = gate_run(weak, OUT="/proc/maat-gate")
check(rc == 2 and "cannot make the directory OUT='/proc/maat-gate'" in out,
      f"an OUT that cannot be made: exit 2 ({rc}: {out[-300:]})")
rc, out = gate_run(weak, cwd=work)
check(rc == 2 and "not in a git repository" in out,
      f"not in a git repository: exit 2 ({rc}: {out[-300:]})")
badsrc = os.path.join(work, "bad-maat")
os.makedirs(badsrc)
with open(os.path.join(badsrc, "meson.build"), "w") as f:
    f.write("project('bad-maat', 'c')\nerror('this maat does not configure')\n")
rc, out = gate_run(weak, MAAT_SRC=badsrc, MAAT_BUILD=os.path.join(work, "bad-build"))
check(rc == 2 and "this maat does not configure" in out and "maat does not build (log: " in out,
      f"maat that does not build: exit 2, the end of meson's output shown ({rc}: {out[-300:]})")
rc, out = gate_run(weak, COMPARE_ARGS="--no-such-option")
check(rc == 2 and "maat-gate: ERROR: no verdict (exit 3)" in out and "--no-such-option" in summary(),
      f"a bad compare option: exit 2, the message in summary.txt ({rc})")
os.makedirs(os.path.join(work, "out"), exist_ok=True)
with open(os.path.join(work, "out", ".lock"), "w") as lock:  # another gate
    fcntl.flock(lock, fcntl.LOCK_EX)
    rc, out = gate_run(weak)
check(rc == 2 and "another gate is using OUT=" in out, f"an OUT in use: exit 2 ({rc}: {out[-300:]})")

# ---- a baseline with a submodule: the worktree gets it -----------------------------
sub = os.path.join(work, "sub")
os.makedirs(sub)
for a in (["init", "-q"], ["config", "user.email", "ci@example.org"], ["config", "user.name", "ci"]):
    subprocess.run(["git", *a], cwd=sub, check=True, capture_output=True)
with open(os.path.join(sub, "data.txt"), "w") as f:
    f.write("data\n")
subprocess.run(["git", "add", "-A"], cwd=sub, check=True, capture_output=True)
subprocess.run(["git", "commit", "-q", "-m", "data"], cwd=sub, check=True, capture_output=True)
# a local submodule's URL is a path: git clones those only when allowed
FILE_OK = dict(GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="protocol.file.allow", GIT_CONFIG_VALUE_0="always")
subprocess.run(["git", "submodule", "add", "-q", sub, "sub"], cwd=repo, check=True,
               capture_output=True, env=dict(os.environ, **FILE_OK))
with open(os.path.join(repo, "Makefile"), "w") as f:  # the bot needs the submodule
    f.write(".PHONY: bot\nbot:\n\tcat sub/data.txt\n\tcp bot.sh bot && chmod +x bot\n")
withsub = commit(f"#!/bin/sh\nexec {RANDOM}\n", "a submodule")
commit(f"#!/bin/sh\nexec {GREEDY}\n", "greedy, with the submodule")
rc, out = gate_run(withsub, **FILE_OK)
check(rc == 0 and "maat-gate: PASS" in out, f"a baseline with a submodule builds ({rc}: {out[-300:]})")

# ---- the sandbox on, as in CI: a command the sandbox breaks fails here --------
if subprocess.run("bwrap --ro-bind / / true", shell=True, capture_output=True).returncode != 0:
    print("note: bubblewrap is not usable here; the gate with the sandbox on is skipped")
else:
    rc, out = gate_run(withsub, sandbox=True, **FILE_OK)
    print(out)
    check(rc == 0 and "verdict: candidate is NOT WORSE" in out and
          re.search(r"faults: candidate: 0 faults in \d+ games; baseline: 0 faults", out) is not None,
          f"with the sandbox on, a better candidate passes, no faults ({rc})")

wt = subprocess.run(["git", "worktree", "list"], cwd=repo, capture_output=True, text=True).stdout
check(len(wt.strip().splitlines()) == 1, f"no worktree left behind ({wt.strip()})")

print(f"ci_doc: {failures} failed")
if failures:
    print(f"(files kept in {work})")
    sys.exit(1)
subprocess.run(["rm", "-rf", work])
sys.exit(0)
