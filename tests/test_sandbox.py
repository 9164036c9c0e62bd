#!/usr/bin/env python3
"""maat-referee --sandbox (bubblewrap): a sandboxed bot plays normally but
cannot write outside its private /tmp, cannot reach the network, and its
scratch files do not leak to the host.  Skipped (77) where bwrap or user
namespaces are unavailable."""
import json, os, socket, subprocess, sys, tempfile

REF = os.environ["MAAT_REFEREE"]
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
print(f"test_sandbox: {failures} failed")
sys.exit(1 if failures else 0)
