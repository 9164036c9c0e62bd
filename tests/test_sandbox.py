#!/usr/bin/env python3
"""maat-referee --sandbox (bubblewrap): a sandboxed bot plays normally but
cannot write outside its private /tmp, cannot reach the network, and its
scratch files do not leak to the host.  Skipped (77) where bwrap or user
namespaces are unavailable."""
import json, os, pty, shutil, signal, socket, subprocess, sys, tempfile, time

REF = os.environ["MAAT_REFEREE"]
LADDER = os.environ["MAAT_LADDER"]
RANDOM = os.environ["MAAT_RANDOM"]
failures = 0

def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what)
    failures += 0 if cond else 1

def fake_bwrap(d, body):
    """A `bwrap` script running `body` in DIR/bin, every call appended to
    DIR/calls; the environment that puts it first on PATH (MAAT_SANDBOX
    unset: the referee's default)."""
    bindir = os.path.join(d, "bin")
    os.makedirs(bindir, exist_ok=True)
    with open(os.path.join(bindir, "bwrap"), "w") as f:
        f.write(f"#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{d}/calls'\n{body}\n")
    os.chmod(os.path.join(bindir, "bwrap"), 0o755)
    env = dict(os.environ, PATH=bindir + ":" + os.environ["PATH"])
    env.pop("MAAT_SANDBOX", None)
    return env

REAL_BWRAP = f"exec '{shutil.which('bwrap')}' \"$@\""


def boxed_match(bots, logs, record, cwd=None, env=None):
    """A sandboxed one-game match between `bots` ("name=command" each),
    its logs and record kept.  Generous clocks: this is about the sandbox,
    and on a loaded machine a probe's shell and python3 (before its hello)
    must not cost the bot a decision."""
    args = [REF, "--sandbox", "--hello-time", "60000", "--time", "5000",
            "--first-time", "20000", "--log-dir", logs, "--record", record,
            "--quiet"]
    for b in bots:
        args += ["--bot", b]
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def bot_logs(logs):
    """{bot name: its log's text} of a one-game match's --log-dir."""
    out = {}
    for f in os.listdir(logs) if os.path.isdir(logs) else []:
        parts = f[:-len(".log")].split("-", 2)
        if f.endswith(".log") and len(parts) == 3:
            out[parts[2]] = open(os.path.join(logs, f)).read()
    return out


def start_league(league, env, entry, *new_args, cwd=None, **conf):
    """`maat-ladder league new` (one validation match), the config's fields
    set, one entry, and the league running (quiet) in the background, from
    directory cwd (the bots' commands are relative to it)."""
    subprocess.run([LADDER, "league", "new", league, "--reference", RANDOM,
                    "--jobs", "1", "--validation-matches", "1", *new_args],
                   check=True, capture_output=True, env=env, cwd=cwd)
    path = os.path.join(league, "league.json")
    c = json.load(open(path))
    c.update(referee=REF, **conf)
    json.dump(c, open(path, "w"))
    with open(os.path.join(league, "entries", entry[0] + ".json"), "w") as f:
        json.dump({"command": entry[1]}, f)
    return run_league(league, env, cwd)


def league_events(league):
    p = os.path.join(league, "events.jsonl")
    return [json.loads(x) for x in open(p)] if os.path.exists(p) else []


def run_league(league, env, cwd):
    """`maat-ladder league run` (quiet) in the background, from cwd."""
    return subprocess.Popen([LADDER, "league", "run", league, "--quiet"],
                            env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, cwd=cwd)


def stop_when_judged(league, lp, entry=None):
    """Stop league process lp once an entry (`entry`, or any) is ranked or
    failed (or after two minutes, or when it ended by itself)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and lp.poll() is None and \
            not any(e["event"] in ("ranked", "failed") and
                    entry in (None, e.get("entry"))
                    for e in league_events(league)):
        time.sleep(0.05)  # polling another process's files, with a deadline
    lp.send_signal(signal.SIGTERM)
    lp.wait(timeout=120)

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
/usr/bin/python3 -c "
import os
for name, call in (('SETSID', os.setsid), ('SETPGID', lambda: os.setpgid(0, 0))):
    try:
        call()
        print(name, 'done')
    except OSError as e:
        print(name, 'refused', e.errno)"
exec {RANDOM}
""")
    os.chmod(probe, 0o755)
    logs, rec = os.path.join(d, "logs"), os.path.join(d, "r.json")
    p = boxed_match([f"boxed={probe}", f"free={RANDOM}"], logs, rec)
    check(p.returncode == 0, f"the sandboxed match finishes (exit {p.returncode}) {p.stderr[-300:]}")
    log = bot_logs(logs).get("boxed", "")
    check("SCRATCH-OK" in log, "the bot can write its private /tmp")
    check("WROTE-OUTSIDE" not in log and not os.path.exists(marker),
          "the bot cannot write outside /tmp")
    check("NET-OK" not in log, "the bot cannot reach the network")
    check("SETSID refused 1" in log and "SETPGID refused 1" in log,
          "the bot can make no session or process group of its own "
          f"(setsid, setpgid: EPERM): {log!r}")
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
    # Programs under /tmp are bound back into the bot's private /tmp
    # (read-only), which stays writable: one directly in /tmp (a bot
    # compiled to /tmp/bot was once not bound, could not start, and was
    # charged no_hello), one in a directory there, one named through '..'
    # from the working directory, and the interpreter of a script outside
    # /tmp (#!/tmp/venv/bin/python3).
    top = f"/tmp/maat-sandbox-top-{os.getpid()}.sh"
    sub = tempfile.mkdtemp(prefix="maat-sandbox-dir-", dir="/tmp")
    run = os.path.join(d, "run")
    os.makedirs(run)
    try:
        os.makedirs(os.path.join(sub, "bin"))
        os.symlink("/bin/sh", os.path.join(sub, "bin", "sh"))
        interp = os.path.join(run, "interp.sh")
        for path, shell in ((top, "/bin/sh"),
                            (os.path.join(sub, "bot.sh"), "/bin/sh"),
                            (interp, os.path.join(sub, "bin", "sh"))):
            with open(path, "w") as f:
                f.write(f"#!{shell}\necho x > /tmp/maat-scratch-$$ && "
                        f"echo TMP-WRITABLE\nexec {RANDOM}\n")
            os.chmod(path, 0o755)
        logs3, rec3 = os.path.join(d, "logs3"), os.path.join(d, "tmp.json")
        p = boxed_match([f"top={top}", f"sub={os.path.join(sub, 'bot.sh')}",
                         f"rel={os.path.relpath(top, run)}",
                         "interp=./interp.sh"], logs3, rec3, cwd=run)
        r = json.load(open(rec3)) if os.path.exists(rec3) else {"faults": [1]}
        check(p.returncode == 0 and r["faults"] == [],
              "programs in /tmp, in a directory there, named through "
              "'..', and a script's interpreter there: every bot starts and "
              f"plays (exit {p.returncode}) "
              f"{json.dumps(r['faults'])[:300]}")
        seen = bot_logs(logs3)
        writable = [n for n in ("top", "sub", "rel", "interp")
                    if "TMP-WRITABLE" in seen.get(n, "")]
        check(writable == ["top", "sub", "rel", "interp"],
              f"and each can write its private /tmp: {writable}")
        # a module found through PYTHONPATH in /tmp (the environment's
        # search paths are followed too)
        with open(os.path.join(sub, "maat_probe_module.py"), "w") as f:
            f.write("WHERE = 'TMP-MODULE'\n")
        pybot = os.path.join(run, "pybot.py")
        with open(pybot, "w") as f:
            f.write("#!/usr/bin/python3\nimport os, maat_probe_module\n"
                    "print(maat_probe_module.WHERE, flush=True)\n"
                    f"os.execv({RANDOM!r}, [{RANDOM!r}])\n")
        os.chmod(pybot, 0o755)
        logs5, rec5 = os.path.join(d, "logs5"), os.path.join(d, "py.json")
        p = boxed_match(["py=./pybot.py", f"other={RANDOM}"], logs5, rec5,
                        cwd=run, env=dict(os.environ, PYTHONPATH=sub))
        r = json.load(open(rec5)) if os.path.exists(rec5) else {"faults": [1]}
        check(p.returncode == 0 and r["faults"] == [] and
              "TMP-MODULE" in bot_logs(logs5).get("py", ""),
              "a Python module in /tmp found through PYTHONPATH: the bot "
              f"imports it and plays {json.dumps(r['faults'])[:300]}")
    finally:
        os.unlink(top)
        shutil.rmtree(sub)
    # A daemon's Unix socket outside /run and /tmp (LXD's under /var/snap,
    # a database's): a read-only mount does not stop connect(), so the
    # sandbox covers every listening socket of the host (/proc/net/unix) a
    # bot would see -- except one its command names, which the organiser
    # meant it to use.
    daemon_path = os.path.join(d, "daemon.sock")
    daemon = socket.socket(socket.AF_UNIX)
    daemon.bind(daemon_path)
    daemon.listen(8)
    daemon.setblocking(False)
    knock = os.path.join(d, "knock.sh")
    with open(knock, "w") as f:
        f.write(f"""#!/bin/sh
/usr/bin/python3 -c "
import socket
s = socket.socket(socket.AF_UNIX)
try:
    s.connect('{daemon_path}')
    print('UNIX-CONNECTED')
except OSError as e:
    print('UNIX-REFUSED', e.errno)"
exec {RANDOM}
""")
    os.chmod(knock, 0o755)
    logs4, rec4 = os.path.join(d, "logs4"), os.path.join(d, "unix.json")
    p = boxed_match([f"far={knock}", f"named={knock} --server={daemon_path}"],
                    logs4, rec4)
    seen = bot_logs(logs4)
    accepted = 0
    try:
        while True:
            daemon.accept()[0].close()
            accepted += 1
    except BlockingIOError:
        pass
    daemon.close()
    check(p.returncode == 0 and "UNIX-REFUSED" in seen.get("far", ""),
          "a host socket outside /run and /tmp: a bot cannot connect to it "
          f"{seen.get('far', p.stderr[-300:])!r}")
    check("UNIX-CONNECTED" in seen.get("named", "") and accepted == 1,
          "one its command names stays reachable (connections accepted: "
          f"{accepted}) {seen.get('named', '')!r}")

# No terminal reaches a sandboxed bot, even when the referee has one (a
# controlling terminal, here a pseudo-terminal): none of its descriptors
# is one and /dev/tty opens none, so it can neither read the organiser's
# keys nor inject input (TIOCSTI).
with tempfile.TemporaryDirectory(dir=os.environ.get("MAAT_BUILD_ROOT")) as d:
    probe, logs = os.path.join(d, "tty.py"), os.path.join(d, "logs")
    with open(probe, "w") as f:
        f.write(f"""#!/usr/bin/python3
import fcntl, os, sys, termios
seen = [str(fd) for fd in (0, 1, 2) if os.isatty(fd)]
for path in ("/dev/tty", "/dev/console"):
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    except OSError:
        continue
    if os.isatty(fd):
        seen.append(path)
    try:
        fcntl.ioctl(fd, termios.TIOCSTI, b"#")
        seen.append("TIOCSTI " + path)
    except OSError:
        pass
print("TERMINALS", " ".join(seen) or "none", flush=True)
os.execv({RANDOM!r}, [{RANDOM!r}])
""")
    os.chmod(probe, 0o755)
    env = dict(os.environ)
    env.pop("MAAT_SANDBOX", None)
    pid, master = pty.fork()
    if pid == 0:  # the referee, on the pseudo-terminal
        os.execve(REF, [REF, "--bot", f"tty={probe}", "--bot", f"b={RANDOM}",
                        "--log-dir", logs, "--quiet"], env)
    while True:  # its output, until it closes the terminal
        try:
            if not os.read(master, 4096):
                break
        except OSError:
            break
    _, status = os.waitpid(pid, 0)
    os.close(master)
    log = "".join(open(os.path.join(logs, f)).read()
                  for f in os.listdir(logs) if f.endswith("-tty.log"))
    check(os.waitstatus_to_exitcode(status) == 0 and
          "TERMINALS none" in log,
          f"a sandboxed bot reaches no terminal of the referee's: {log!r}")

# Whether bubblewrap works is checked once per referee (a bwrap process),
# not at all with --sandbox-checked, and once per `maat-ladder run`, whose
# referees are then told (--sandbox-checked); not with referee_args
# ["--no-sandbox"].  A bwrap first on PATH counts the calls.
with tempfile.TemporaryDirectory(dir=os.environ.get("MAAT_BUILD_ROOT")) as d:
    calls = os.path.join(d, "calls")
    env = fake_bwrap(d, REAL_BWRAP)

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
    # compare too: one check, 3 blocks of 2 games = 12 sandboxed bots
    # (hypotheses 1 Elo apart: 3 blocks cannot decide between them)
    got = counted([LADDER, "compare", "--candidate", RANDOM, "--baseline",
                   RANDOM, "--max-blocks", "3", "--elo0", "-1", "--elo1",
                   "0", "--jobs", "1", "--seed", "1", "--quiet"])
    check(got[1:] == (1, 12), "maat-ladder compare: one check for the "
          f"whole comparison (exit, checks, sandboxes: {got})")
# A sandbox that cannot be made is the machine's failure, not the bot's:
# the referee stops with an error and writes no result (maat-ladder plays
# the match again on its next run), whether bubblewrap fails or hangs
# before the bot runs.  bubblewrap takes a byte from a pipe (the start
# gate, --block-fd) once the sandbox is made; a bot that fails on its own,
# even one that says what bubblewrap would say, is charged as before, and
# never holds the pipe.
with tempfile.TemporaryDirectory(dir=os.environ.get("MAAT_BUILD_ROOT")) as d:
    lad, rec = os.path.join(d, "l.jsonl"), os.path.join(d, "r.json")
    for body, hello, what in (
            ("echo 'bwrap: Creating new namespace failed: No space left on "
             "device' >&2\nexit 1", "60000", "stopped: bwrap: Creating new"),
            ("exec sleep 600", "1500", "had not started the bot in time")):
        env = fake_bwrap(d, body)
        p = subprocess.run([REF, "--sandbox-checked", "--hello-time", hello,
                            "--bot", f"a={RANDOM}", "--bot", f"b={RANDOM}",
                            "--ladder", lad, "--record", rec, "--quiet"],
                           env=env, capture_output=True, text=True,
                           timeout=120)
        check(p.returncode == 5 and "bot a: the sandbox could not be made, "
              "the machine's failure, not the bot's: no result written" in
              p.stderr and what in p.stderr and not os.path.exists(rec) and
              # (made empty before the bots start, so it can be hidden)
              os.path.exists(lad) and os.path.getsize(lad) == 0,
              f"bubblewrap {what.split(':')[0]}: an error, no result "
              f"(exit {p.returncode}) {p.stderr[-300:]!r}")
    liar, logs = os.path.join(d, "liar.sh"), os.path.join(d, "logs")
    with open(liar, "w") as f:
        f.write("#!/bin/sh\necho FDS $(ls /proc/self/fd | tr '\\n' ' ')\n"
                "echo 'bwrap: Creating new namespace failed: No space left "
                "on device' >&2\nexit 1\n")
    os.chmod(liar, 0o755)
    p = subprocess.run([REF, "--sandbox", "--bot", f"liar={liar}",
                        "--bot", f"b={RANDOM}", "--ladder", lad,
                        "--record", rec, "--log-dir", logs, "--quiet"],
                       capture_output=True, text=True, timeout=120)
    faults = json.load(open(rec))["faults"] if os.path.exists(rec) else []
    check(p.returncode == 0 and os.path.exists(lad) and
          [(x["seat_name"] if "seat_name" in x else x.get("bot"), x["kind"])
           for x in faults][:1] == [("liar", "no_hello")],
          f"a bot that fails saying what bubblewrap says is charged: "
          f"{p.returncode} {faults} {p.stderr[-200:]!r}")
    log = "".join(open(os.path.join(logs, f)).read()
                  for f in os.listdir(logs) if f.endswith("-liar.log"))
    fds = log.split("FDS", 1)[1].split("\n", 1)[0].split() if "FDS" in log \
        else None
    check(fds is not None and "4" not in fds,
          f"the start gate does not reach the bot (its fds: {fds})")

# A league checks bubblewrap once and tells its referees; one that stops
# working afterwards (here: it works for the check, not with the start
# gate) makes each referee exit 5: the league says the machine failed,
# pauses, and does not fail the new entry whose validation match it was.
# A sandboxed bot killed by a signal: bubblewrap reports it as an exit
# status of 128 + N, which the fault read as a plain "exited with status
# 137" (review of 2026-11-28): it now names the signal.
with tempfile.TemporaryDirectory(dir=os.environ.get("MAAT_BUILD_ROOT")) as d:
    logs, rec = os.path.join(d, "logs"), os.path.join(d, "killed.json")
    p = boxed_match(["killed=/bin/sh -c 'kill -9 $$'", f"plain={RANDOM}"],
                    logs, rec)
    faults = json.load(open(rec))["faults"] if os.path.exists(rec) else []
    check(p.returncode == 0 and len(faults) == 1 and
          "killed by signal 9" in faults[0]["detail"],
          f"a sandboxed bot killed by SIGKILL: the fault names the signal "
          f"({[f['detail'] for f in faults]!r})")

with tempfile.TemporaryDirectory(dir=os.environ.get("MAAT_BUILD_ROOT")) as d:
    league = os.path.join(d, "lg")
    env = fake_bwrap(d, "case \"$*\" in *--block-fd*) echo 'bwrap: No "
                     "permissions to create new namespace' >&2; exit 1;; "
                     "esac\n" + REAL_BWRAP)
    lp = start_league(league, env, ("e", RANDOM))

    def evs():
        return league_events(league)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and lp.poll() is None and sum(
            e["event"] == "match failed" for e in evs()) < 2:
        time.sleep(0.05)  # polling another process's file, with a deadline
    lp.send_signal(signal.SIGTERM)
    lp.wait(timeout=120)
    failed = [e for e in evs() if e["event"] == "match failed"]
    check(failed and "(the machine failed, not a bot: a sandbox could not "
          "be made)" in failed[0]["detail"] and
          not any(e["event"] == "failed" for e in evs()),
          f"a league: the machine's failure fails no entry ({failed[:1]})")
    calls = open(os.path.join(d, "calls")).read().splitlines()
    check(len(failed) >= 2 and
          sum("--chdir" not in x for x in calls) == 1,
          f"a league checks bubblewrap once, not in each referee "
          f"({len(failed)} matches, calls {[x[:40] for x in calls]})")

# Queue mode: the referee runs on another machine, and its exit status
# comes back beside the shard; exit 5 (a sandbox could not be made there)
# fails no version.  The queued line is run here, with a bwrap that stops
# working once the referee has checked it.
with tempfile.TemporaryDirectory(dir=os.environ.get("MAAT_BUILD_ROOT")) as d:
    league = os.path.join(d, "lq")
    env = fake_bwrap(d, "case \"$*\" in *--block-fd*) echo 'bwrap: No "
                     "permissions to create new namespace' >&2; exit 1;; "
                     "esac\n" + REAL_BWRAP)
    lp = start_league(league, env, ("e", RANDOM), "--queue")
    queue = os.path.join(league, "queue")

    def queued():
        return open(queue).read().splitlines() if os.path.exists(queue) \
            else []

    def evs():
        return league_events(league)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not queued():
            time.sleep(0.05)  # polling another process's file, with a deadline
        lines = queued()
        check(len(lines) == 1 and ".exit" in lines[0],
              f"queue mode: the queued command keeps the referee's exit "
              f"status ({lines[:1]})")
        if lines:
            subprocess.run(["bash", "-c", lines[0]], env=env,
                           capture_output=True, timeout=120)
        while time.monotonic() < deadline and lp.poll() is None and not any(
                e["event"] == "match failed" for e in evs()):
            time.sleep(0.05)  # polling another process's file, with a deadline
    finally:
        lp.send_signal(signal.SIGTERM)
        lp.wait(timeout=120)
    failed = [e for e in evs() if e["event"] == "match failed"]
    check(failed and "the machine failed, not a bot" in failed[0]["detail"]
          and not any(e["event"] == "failed" for e in evs()),
          f"queue mode: a referee's exit 5 fails no entry ({failed[:1]})")
    check(not [f for f in os.listdir(os.path.join(league, "shards"))
               if f.endswith(".exit")], "queue mode: the exit status file "
          "is removed with its shard")

# A league writes game 0's replay into DIR/site as soon as its line is in,
# while the same deal is played again from the other seats (duplicate):
# the page is hidden from the bots, with the rest of what the league keeps.
with tempfile.TemporaryDirectory(dir=os.environ.get("MAAT_BUILD_ROOT")) as d:
    league = os.path.join(d, "lg")
    snoop = os.path.join(d, "snoop.sh")
    with open(snoop, "w") as f:
        f.write("#!/bin/sh\necho \"SITE $(ls -A %s/site/replays "
                "2>/dev/null | tr '\\n' ' ')\" >&2\nexec %s\n"
                % (league, RANDOM))
    os.chmod(snoop, 0o755)
    env = dict(os.environ)
    env.pop("MAAT_SANDBOX", None)
    lp = start_league(league, env, ("snoop", snoop), duplicate=True,
                      replays=True)
    replays_dir = os.path.join(league, "site", "replays")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and lp.poll() is None and \
            len(os.listdir(replays_dir)) < 2:
        time.sleep(0.05)  # polling another process's files, with a deadline
    lp.send_signal(signal.SIGTERM)
    lp.wait(timeout=120)
    logs = os.path.join(league, "logs")
    seen = [l for f in sorted(os.listdir(logs)) if "snoop" in f
            for l in open(os.path.join(logs, f)) if "SITE" in l]
    replays = os.listdir(replays_dir)
    check(len(seen) == 2 and len(replays) == 2,
          f"a league's validation match: two games, two replays, the bot "
          f"looked in each ({seen}, {replays})")
    check(all(l.split("SITE", 1)[1].strip() == "" for l in seen),
          f"a league's bots do not see its page: game 1 cannot read game "
          f"0's replay, the same deal ({seen})")

# A league's entrants share the machine, not their code: an entry's bot
# cannot read the directory of the reference bot's program (--private-dirs).
with tempfile.TemporaryDirectory(dir=os.environ.get("MAAT_BUILD_ROOT")) as d:
    league = os.path.join(d, "lg")
    for who in ("alice", "ref"):
        os.makedirs(os.path.join(d, who))
        with open(os.path.join(d, who, "secret.bin"), "w") as f:
            f.write(who + "'s weights\n")
        with open(os.path.join(d, who, "bot.sh"), "w") as f:
            f.write("#!/bin/sh\nfor f in alice/secret.bin ref/secret.bin; do "
                    "[ -r $f ] && echo SEES $f >&2; done\nexec %s\n" % RANDOM)
        os.chmod(os.path.join(d, who, "bot.sh"), 0o755)
    env = dict(os.environ)
    env.pop("MAAT_SANDBOX", None)
    lp = start_league(league, env, ("alice", "alice/bot.sh"), cwd=d,
                      reference="ref/bot.sh")
    stop_when_judged(league, lp)
    logs = os.path.join(league, "logs")
    seen = sorted(l.split("\t")[-1].strip()
                  for f in os.listdir(logs) if "alice" in f
                  for l in open(os.path.join(logs, f)) if "SEES" in l)
    check(seen and set(seen) == {"SEES alice/secret.bin"},
          f"a league entry's bot reads its own directory, not the reference "
          f"bot's ({seen}; events {[e['event'] for e in league_events(league)]})")

# The league's files convention: DIR/files/NAME/ is entry NAME's, seen by
# its bot alone (--private); every other entry's, playing or not, hidden
# with DIR/files (--hide) -- whatever the commands name.
# Shell commands in the sandbox, as without it: "exec" before a simple
# command only.  A command that changes directory first (the CI gate's
# "cd DIR && exec ./bot") or sets a variable (FOO=1 bot) was run as
# "exec CMD", which found no program 'cd' or 'FOO=1': no_hello (review
# of 2026-11-27).
with tempfile.TemporaryDirectory(dir=os.environ.get("MAAT_BUILD_ROOT")) as d:
    for name, cmd in (("cd", f"cd '{d}' && exec {RANDOM}"),
                      ("assign", f"MAAT_X=1 {RANDOM}"),
                      ("redirect", f"{RANDOM} 2>/dev/null"),
                      ("subshell", f"( exec {RANDOM} )")):
        logs, rec = os.path.join(d, name + "-logs"), os.path.join(d, name + ".json")
        p = boxed_match([f"shell={cmd}", f"plain={RANDOM}"], logs, rec)
        faults = json.load(open(rec))["faults"] if os.path.exists(rec) else None
        check(p.returncode == 0 and faults == [],
              f"sandboxed shell command ({name}: {cmd[:40]}...) plays, no fault "
              f"({faults!r} {p.stderr.strip()[-200:]!r})")

with tempfile.TemporaryDirectory(dir=os.environ.get("MAAT_BUILD_ROOT")) as d:
    league = os.path.join(d, "lg")
    os.makedirs(os.path.join(d, "ref"))
    with open(os.path.join(d, "ref", "bot.sh"), "w") as f:
        f.write("#!/bin/sh\nexec %s\n" % RANDOM)
    os.chmod(os.path.join(d, "ref", "bot.sh"), 0o755)
    env = dict(os.environ)
    env.pop("MAAT_SANDBOX", None)
    subprocess.run([LADDER, "league", "new", league, "--reference", RANDOM,
                    "--jobs", "1", "--validation-matches", "1"], check=True,
                   capture_output=True, env=env, cwd=d)
    check(os.path.isdir(os.path.join(league, "files")),
          "league new makes DIR/files, for the entries' files")
    for who in ("alice", "carol"):
        os.makedirs(os.path.join(league, "files", who))
        with open(os.path.join(league, "files", who, "secret.bin"), "w") as f:
            f.write(who + "'s weights\n")
    with open(os.path.join(league, "files", "alice", "bot.sh"), "w") as f:
        f.write("#!/bin/sh\nfor w in alice carol; do f=lg/files/$w/secret.bin;"
                " [ -r $f ] && echo SEES $f >&2; done\n"
                "ls lg/files >&2\nexec %s\n" % RANDOM)
    os.chmod(os.path.join(league, "files", "alice", "bot.sh"), 0o755)
    path = os.path.join(league, "league.json")
    c = json.load(open(path))
    c.update(referee=REF, reference="ref/bot.sh")
    json.dump(c, open(path, "w"))
    with open(os.path.join(league, "entries", "alice.json"), "w") as f:
        json.dump({"command": "lg/files/alice/bot.sh"}, f)
    lp = run_league(league, env, d)
    stop_when_judged(league, lp)
    logs = os.path.join(league, "logs")
    lines = [l.split("\t")[-1].strip()
             for f in os.listdir(logs) if "alice" in f
             for l in open(os.path.join(logs, f))]
    seen = sorted(l for l in lines if "SEES" in l)
    events = [e["event"] for e in league_events(league)]
    check(seen and set(seen) == {"SEES lg/files/alice/secret.bin"} and
          "ranked" in events,
          f"a league entry's bot reads its own DIR/files/NAME, not another "
          f"entry's, and is ranked ({seen}; events {events})")
    listed = sorted(set(l for l in lines if l in ("alice", "carol")))
    check(listed == ["alice"], f"DIR/files shows the bot only its own "
          f"entry's directory ({listed})")
    # an entry whose command names another entry's files cannot play: its
    # matches are refused, so its validation fails, naming the command
    os.makedirs(os.path.join(league, "files", "mallory"))
    with open(os.path.join(league, "entries", "mallory.json"), "w") as f:
        json.dump({"command": "lg/files/alice/bot.sh --book "
                              "lg/files/carol/secret.bin"}, f)
    stop_when_judged(league, run_league(league, env, d), "mallory")
    failed = [e for e in league_events(league)
              if e["event"] == "failed" and "mallory" in json.dumps(e)]
    check(failed and "command" in json.dumps(failed[0]),
          f"an entry naming another entry's files fails validation, the "
          f"reason pointing at its command ({json.dumps(failed)[:300]})")

print(f"test_sandbox: {failures} failed")
sys.exit(1 if failures else 0)
