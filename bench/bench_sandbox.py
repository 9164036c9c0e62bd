#!/usr/bin/env python3
"""bench_sandbox.py -- where a sandboxed bot start's wall time goes.

    bench/bench_sandbox.py [--build DIR] [--runs N] [--only flags|match]

flags: `bwrap --ro-bind / / /bin/true` with each of the referee's other
bubblewrap options added alone, then all of them (as referee/sandbox.c
writes them), then the sandbox as it was until issue 19 (--new-session
instead of the /dev/tty mask, and the shells around bwrap and inside it:
`/bin/sh -c "exec bwrap ... /bin/sh -c 'exec true'"`), against /bin/true
alone.
match: one maat-referee process playing a duplicate 2-seat match of
Pyramids (--games 2 --same-deal --fresh-bots --fixed-seats, two
sample-bots/maat-random: what `maat-ladder run` starts per match) with
the sandbox checked by the referee itself (the default), with
--sandbox-checked (as maat-ladder's referees), with --no-sandbox, and
without the sandbox but each bot in a session of its own (`setsid -w BOT`)
or forked by /bin/sh without one (`BOT; true`): the cost of a session
(a scheduling group under the kernel's autogroup) to the round trips.

Every configuration runs N times (default 40), the configurations taking
turns so that a change in the machine's load hits them alike; printed:
the minimum, first quartile and median wall time in ms, the mean CPU
(user + sys of every process, bwrap's PID 1 included: this script is a
subreaper; 10 ms ticks, so a mean over N runs) and the load average.  Needs bwrap (exits 77 without).  Defaults: --build build-bench.
"""
import argparse, ctypes, os, shutil, statistics, subprocess, sys, tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cpu_s():
    t = os.times()
    return t.children_user + t.children_system


def reap_all():
    """Wait for every descendant left to us (we are a subreaper): bwrap's
    PID 1 outlives its outer process, and its CPU is the sandbox's too."""
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def measure(configs, runs):
    times = {name: [] for name, _ in configs}
    cpu = {name: 0.0 for name, _ in configs}
    for _ in range(runs):
        for name, argv in configs:
            c0 = cpu_s()
            t0 = time.perf_counter()
            r = subprocess.run(argv, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
            times[name].append(time.perf_counter() - t0)
            reap_all()
            cpu[name] += cpu_s() - c0
            if r.returncode:
                sys.exit(f"bench_sandbox: {name} failed ({r.returncode}): "
                         f"{r.stderr.decode()[-300:]}")
    for name, _ in configs:
        v = sorted(times[name])
        print(f"{name:28s} {v[0] * 1e3:8.2f} {v[len(v) // 4] * 1e3:8.2f} "
              f"{statistics.median(v) * 1e3:8.2f} "
              f"{cpu[name] / runs * 1e3:8.2f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build-bench"))
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--only", choices=["flags", "match"])
    a = ap.parse_args()
    PR_SET_CHILD_SUBREAPER = 36
    ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    bwrap = shutil.which("bwrap")
    if not bwrap or subprocess.run([bwrap, "--ro-bind", "/", "/", "true"],
                                   capture_output=True).returncode:
        print("bench_sandbox: bubblewrap does not work here")
        sys.exit(77)
    print(f"# bench_sandbox: {a.runs} runs each, interleaved; "
          f"{os.cpu_count()} cores; load average at start: "
          f"{' '.join(open('/proc/loadavg').read().split()[:3])}")
    print(f"{'configuration':28s} {'min_ms':>8s} {'p25_ms':>8s} "
          f"{'median_ms':>8s} {'cpu_ms':>8s}")
    if a.only in (None, "flags"):
        with tempfile.TemporaryDirectory() as d:
            sock = os.path.join(d, "seat-0")
            open(sock, "w").close()
            base = [bwrap, "--ro-bind", "/", "/"]
            true = ["/bin/true"]
            each = [("--dev /dev", ["--dev", "/dev"]),
                    ("--proc /proc --unshare-pid",
                     ["--proc", "/proc", "--unshare-pid"]),
                    ("--size 64M --tmpfs /tmp",
                     ["--size", str(64 << 20), "--tmpfs", "/tmp"]),
                    ("--size 4096 --tmpfs /run",
                     ["--size", "4096", "--tmpfs", "/run"]),
                    ("--ro-bind SOCKET", ["--ro-bind", sock, sock]),
                    ("--unshare-net", ["--unshare-net"]),
                    ("--unshare-ipc", ["--unshare-ipc"]),
                    ("--unshare-uts", ["--unshare-uts"]),
                    ("--die-with-parent", ["--die-with-parent"]),
                    ("--unshare-user --cap-drop ALL",
                     ["--unshare-user", "--cap-drop", "ALL"])]
            tail = ["--setenv", "TMPDIR", "/tmp", "--chdir", os.getcwd()]
            opts = [w for _, f in each for w in f]
            tty = ["--ro-bind", "/dev/null", "/dev/tty"]
            # /dev/shm capped, /dev read-only: after --dev /dev (in opts)
            shm = ["--size", str(64 << 20), "--tmpfs", "/dev/shm"]
            dev_ro = ["--remount-ro", "/dev"]
            old = [w for name, f in each
                   if "/run" not in name and "--cap-drop" not in name
                   for w in f]
            old += ["--new-session"] + tail
            configs = [("/bin/true", true), ("bwrap --ro-bind / /", base + true)]
            configs += [("+ " + name, base + f + true) for name, f in each]
            configs += [("+ --new-session (until 19)",
                         base + ["--new-session"] + true),
                        ("+ --ro-bind /dev/null /dev/tty", base + tty + true),
                        ("+ --dev, /dev/shm capped, ro",
                         base + ["--dev", "/dev"] + shm + dev_ro + true),
                        ("all (maat now)",
                         base + opts + shm + tty + dev_ro + tail + true),
                        ("all before issue 19",
                         ["/bin/sh", "-c", "exec " + " ".join(base + old) +
                          " /bin/sh -c 'exec /bin/true'"])]
            measure(configs, a.runs)
    if a.only in (None, "match"):
        ref = os.path.join(a.build, "referee", "maat-referee")
        bot = os.path.join(a.build, "sample-bots", "maat-random")
        with tempfile.TemporaryDirectory() as d:
            match = [ref, "--game", "pyramids", "--seed", "1", "--match-id",
                     "m", "--ladder", os.path.join(d, "l.jsonl"), "--quiet",
                     "--games", "2", "--same-deal", "--fresh-bots",
                     "--fixed-seats", "--bot", "r1=" + bot, "--bot",
                     "r2=" + bot]
            os.environ.pop("MAAT_SANDBOX", None)  # the default: auto
            # the same match with each bot in a session of its own (setsid
            # -w forks it and waits), and with the same fork and wait in
            # /bin/sh without one: what a session costs a round trip
            alone = [w if not w.startswith("r") else
                     w.split("=")[0] + "=/usr/bin/setsid -w " + bot
                     for w in match]
            forked = [w if not w.startswith("r") else w + "; true"
                      for w in match]
            measure([("match: sandbox, own check", match),
                     ("match: --sandbox-checked",
                      match + ["--sandbox-checked"]),
                     ("match: --no-sandbox", match + ["--no-sandbox"]),
                     ("no sandbox, bots setsid -w", alone + ["--no-sandbox"]),
                     ("no sandbox, bots forked", forked + ["--no-sandbox"])],
                    a.runs)
    print("# load average at the end: " +
          " ".join(open("/proc/loadavg").read().split()[:3]))


if __name__ == "__main__":
    main()
