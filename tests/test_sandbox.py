#!/usr/bin/env python3
"""maat-referee --sandbox (bubblewrap): a sandboxed bot plays normally but
cannot write outside its private /tmp, cannot reach the network, and its
scratch files do not leak to the host.  Skipped (77) where bwrap or user
namespaces are unavailable."""
import json, os, shutil, socket, subprocess, sys, tempfile

REF = os.environ["MAAT_REFEREE"]
LADDER = os.environ["MAAT_LADDER"]
RANDOM = os.environ["MAAT_RANDOM"]
failures = 0

def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what)
    failures += 0 if cond else 1

if subprocess.run("bwrap --ro-bind / / true", shell=True,
                  capture_output=True).returncode != 0:
    print("bubblewrap is not usable here; skipping")
    sys.exit(77)

listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(5)
listener.setblocking(False)
port = listener.getsockname()[1]
# not under /tmp: the sandbox replaces /tmp with an empty one
with tempfile.TemporaryDirectory(dir=os.environ.get("MAAT_BUILD_ROOT")) as d:
    marker = os.path.join(d, "written-from-the-sandbox")
    probe = os.path.join(d, "probe.sh")
    with open(probe, "w") as f:
        f.write(f"""#!/bin/sh
touch '{marker}' 2>/dev/null && echo WROTE-OUTSIDE
echo scratch > /tmp/maat-sandbox-scratch && echo SCRATCH-OK
python3 -c "import socket; socket.create_connection(('127.0.0.1', {port}), 2)" 2>/dev/null && echo NET-OK
exec {RANDOM}
""")
    os.chmod(probe, 0o755)
    logs, rec = os.path.join(d, "logs"), os.path.join(d, "r.json")
    p = subprocess.run([REF, "--sandbox", "--bot", f"boxed={probe}",
                        "--bot", f"free={RANDOM}", "--log-dir", logs,
                        "--record", rec, "--quiet"], capture_output=True,
                       text=True, timeout=120)
    check(p.returncode == 0, f"the sandboxed match finishes (exit {p.returncode}) {p.stderr[-300:]}")
    log = open([os.path.join(logs, f) for f in os.listdir(logs)
                if f.endswith("-0-boxed.log")][0]).read()
    check("SCRATCH-OK" in log, "the bot can write its private /tmp")
    check("WROTE-OUTSIDE" not in log and not os.path.exists(marker),
          "the bot cannot write outside /tmp")
    check("NET-OK" not in log, "the bot cannot reach the network")
    try:
        listener.accept()
        check(False, "no connection reached the host's loopback listener")
    except BlockingIOError:
        check(True, "no connection reached the host's loopback listener")
    check(not os.path.exists("/tmp/maat-sandbox-scratch"),
          "scratch files stay inside the sandbox")
    r = json.load(open(rec))
    check(r["faults"] == [] and all(x["by"] == "bot" for x in r["decisions"]),
          "the sandboxed bot played every decision itself")
    # a tcp endpoint for remote entrants: sandboxed bots still play, each
    # through its own socket file
    rec2 = os.path.join(d, "tcp.json")
    p = subprocess.run([REF, "--sandbox", "--endpoint", "tcp://127.0.0.1:0",
                        "--bot", f"a={RANDOM}", "--bot", f"b={RANDOM}",
                        "--record", rec2, "--quiet"],
                       capture_output=True, text=True, timeout=120)
    r = json.load(open(rec2)) if os.path.exists(rec2) else {"faults": [1]}
    check(p.returncode == 0 and r["faults"] == [],
          "--sandbox with a tcp endpoint: sandboxed bots play through their "
          "own socket files")

# Whether bubblewrap works is checked once per referee (a bwrap process),
# not at all with --sandbox-checked, and once per `maat-ladder run`, whose
# referees are then told (--sandbox-checked); not with referee_args
# ["--no-sandbox"].  A bwrap first on PATH counts the calls.
with tempfile.TemporaryDirectory(dir=os.environ.get("MAAT_BUILD_ROOT")) as d:
    bindir, calls = os.path.join(d, "bin"), os.path.join(d, "calls")
    os.mkdir(bindir)
    with open(os.path.join(bindir, "bwrap"), "w") as f:
        f.write(f"#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{calls}'\n"
                f"exec '{shutil.which('bwrap')}' \"$@\"\n")
    os.chmod(os.path.join(bindir, "bwrap"), 0o755)
    env = dict(os.environ, PATH=bindir + ":" + os.environ["PATH"])
    env.pop("MAAT_SANDBOX", None)  # the default: sandboxed where it works

    def counted(argv):
        """(exit status, bwrap checks, bwrap sandboxes) of running argv"""
        if os.path.exists(calls):
            os.unlink(calls)
        p = subprocess.run(argv, env=env, cwd=d, capture_output=True,
                           text=True, timeout=120)
        lines = open(calls).read().splitlines() if os.path.exists(calls) else []
        boxes = sum("--chdir" in x for x in lines)
        return p.returncode, len(lines) - boxes, boxes

    match = [REF, "--bot", f"a={RANDOM}", "--bot", f"b={RANDOM}", "--quiet"]
    check(counted(match) == (0, 1, 2), "a referee checks bubblewrap once, "
          "then sandboxes each bot")
    check(counted(match + ["--sandbox-checked"]) == (0, 0, 2),
          "--sandbox-checked: the bots sandboxed without a check")
    for args, want, what in (([], (0, 1, 8), "one check for the whole run, "
                              "its referees told (--sandbox-checked)"),
                             (["--no-sandbox"], (0, 0, 0),
                              "referee_args --no-sandbox: no check, no "
                              "sandbox")):
        cfg = {"name": "t", "game": "pyramids", "seats": 2, "matches": 2,
               "format": "round-robin", "duplicate": True, "seed": 1,
               "ladder": os.path.join(d, "l.jsonl"), "referee": REF,
               "referee_args": args,
               "bots": [{"name": "a", "command": RANDOM},
                        {"name": "b", "command": RANDOM}]}
        with open(os.path.join(d, "t.json"), "w") as f:
            json.dump(cfg, f)
        if os.path.exists(cfg["ladder"]):
            os.unlink(cfg["ladder"])
        got = counted([LADDER, "run", os.path.join(d, "t.json"), "--quiet"])
        check(got == want, f"maat-ladder run: {what} (exit, checks, "
              f"sandboxes: {got})")
print(f"test_sandbox: {failures} failed")
sys.exit(1 if failures else 0)
