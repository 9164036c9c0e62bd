#!/usr/bin/env python3
"""Remote bots over TCP with CURVE (docs/REMOTE.md), on loopback: a known
key plays; an unknown key and a plaintext client are refused and logged; a
key used with another entrant's token gets no seat; spawned bots get keys
of their own, new ones each game with --fresh-bots; bad key options are
refused."""
import json, os, socket, subprocess, sys, tempfile, time

REF = os.environ["MAAT_REFEREE"]
RANDOM = os.environ["MAAT_RANDOM"]
failures = 0

def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what)
    failures += 0 if cond else 1

def keygen(path):
    out = subprocess.run([REF, "--keygen"], capture_output=True, text=True,
                         check=True).stdout
    open(path, "w").write(out)
    keys = dict(l.split() for l in out.splitlines() if l and l[0] != "#")
    return keys["public"], keys["secret"]

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port

def bot(endpoint, token, server=None, pub=None, sec=None):
    env = dict(os.environ, MAAT_ENDPOINT=endpoint, MAAT_TOKEN=token)
    if server:
        env.update(MAAT_CURVE_SERVERKEY=server, MAAT_CURVE_PUBLICKEY=pub,
                   MAAT_CURVE_SECRETKEY=sec)
    return subprocess.Popen([RANDOM], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)

with tempfile.TemporaryDirectory() as d:
    rpub, rsec = keygen(os.path.join(d, "ref.key"))
    apub, asec = keygen(os.path.join(d, "alice.key"))
    bpub, bsec = keygen(os.path.join(d, "bob.key"))
    epub, esec = keygen(os.path.join(d, "eve.key"))
    check(len(rpub) == 40 and len(rsec) == 40, "--keygen prints a Z85 key pair")
    ep = f"tcp://127.0.0.1:{free_port()}"
    rec = os.path.join(d, "r.json")
    log = open(os.path.join(d, "ref.log"), "w+")
    ref = subprocess.Popen([REF, "--endpoint", ep, "--curve-key",
                            os.path.join(d, "ref.key"),
                            "--remote", "alice=tokA", "--allow-key", f"alice={apub}",
                            "--remote", "bob=tokB", "--allow-key", f"bob={bpub}",
                            "--bot", f"carol={RANDOM}", "--fixed-seats",
                            "--hello-time", "20000", "--record", rec],
                           stderr=log, stdout=log)
    procs = []
    try:
        # intruders first: each must be refused, the seats stay free
        procs.append(bot(ep, "tokA", rpub, epub, esec))   # unknown key
        procs.append(bot(ep, "tokA"))                     # no CURVE at all
        procs.append(bot(ep, "tokB", rpub, apub, asec))   # alice's key, bob's token
        deadline = time.time() + 15
        def logged(text):
            log.flush(); log.seek(0)
            return text in log.read()
        while time.time() < deadline and not (
                logged("refused an unknown CURVE key") and
                logged("authenticated as 'alice'")):
            time.sleep(0.05)  # polling the log with a deadline (readiness)
        check(logged(f"refused an unknown CURVE key {epub}"),
              "an unknown key is refused and logged with the key")
        check(logged("refused a hello with the token of bob from a connection "
                     "authenticated as 'alice'"),
              "alice's key with bob's token gets no seat")
        for p in procs:
            p.kill()
        alice = bot(ep, "tokA", rpub, apub, asec)
        bob = bot(ep, "tokB", rpub, bpub, bsec)
        rc = ref.wait(timeout=120)
        check(rc == 0, f"the match finishes (exit {rc})")
        check(alice.wait(timeout=10) == 0 and bob.wait(timeout=10) == 0,
              "the entrants with known keys play to the end")
        r = json.load(open(rec))
        check(r["faults"] == [], "no faults")
        check(all(x["by"] == "bot" for x in r["decisions"]),
              "every decision came from the bots (spawned carol got its own keys)")
        log.seek(0)
        check("unknown key" not in "".join(l for l in log if "alice" in l),
              "nothing refused about alice once she connected properly")
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
        if ref.poll() is None:
            ref.kill()

    # spawned bots started again for every game get a new key pair each
    # time, in place of the last: 33 games of 2 = 66 pairs, more than the
    # 64 keys a referee holds (a series used to stop at game 32)
    lad = os.path.join(d, "fresh.jsonl")
    p = subprocess.run([REF, "--curve-key", os.path.join(d, "ref.key"),
                        "--endpoint", "tcp://127.0.0.1:0", "--fresh-bots",
                        "--games", "33", "--bot", f"a={RANDOM}",
                        "--bot", f"b={RANDOM}", "--ladder", lad, "--quiet"],
                       capture_output=True, text=True, timeout=300)
    games = open(lad).read().count("\n") if os.path.exists(lad) else 0
    check(p.returncode == 0 and games == 33,
          f"CURVE with fresh bots: 33 games, a new key pair each "
          f"(exit {p.returncode}, {games} games) {p.stderr[-200:]!r}")

    bad = subprocess.run([REF, "--allow-key", "x=abc", "--remote", "x=t",
                          "--bot", f"b={RANDOM}"], capture_output=True, text=True)
    check(bad.returncode == 2 and "--curve-key" in bad.stderr,
          "--allow-key without --curve-key is refused")
    open(os.path.join(d, "bad.key"), "w").write("public short\n")
    bad = subprocess.run([REF, "--curve-key", os.path.join(d, "bad.key"),
                          "--bot", f"a={RANDOM}", "--bot", f"b={RANDOM}"],
                         capture_output=True, text=True)
    check(bad.returncode == 2 and "bad.key:1:" in bad.stderr,
          "a bad key file is refused with file:line")

print(f"test_curve: {failures} failed")
sys.exit(1 if failures else 0)
