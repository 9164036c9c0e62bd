#!/usr/bin/env python3
"""test_league_names.py -- entry files with hostile names and commands,
dropped into a running league's DIR/entries.

Proves:
- three badly named files lying in DIR/entries (a terminal escape, a space,
  bytes that are not UTF-8 in the name) are each refused exactly once
  while they stay, however many scans follow -- before, two such files
  took turns being "new" at every scan, and each refusal, written to
  events.jsonl in DIR, woke the league for the next scan: thousands of
  events a second, without end;
- every refusal is in events.jsonl (a name that is not UTF-8 was said on
  stderr only: its event could not be made into JSON);
- nothing an entry file holds reaches the league's stderr as a control
  character: not its name, not its command's terminal escapes;
- the league goes on: an entry added afterwards is taken up.
"""
import json, os, shutil, signal, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from maattest import BUILD, RANDOM, REFEREE as REF, check, report  # noqa: E402

LADDER = os.environ.get("MAAT_LADDER", os.path.join(BUILD, "ladder", "maat-ladder"))
REPLAY = os.environ.get("MAAT_REPLAY", os.path.join(BUILD, "replay", "maat-replay"))
T0 = time.monotonic()


def events(d):
    try:
        text = open(os.path.join(d, "events.jsonl"), "rb").read()
    except FileNotFoundError:
        return []
    return [json.loads(l) for l in text.split(b"\n")[:-1] if l.strip()]


def wait_for(cond, what, proc, timeout=120):
    """Poll `cond` until it holds (the league is another process)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if cond():
            return True
        time.sleep(0.05)
    return check(cond(), what + " (waited)")


def main():
    tmp = tempfile.mkdtemp(prefix="maat-league-names-")
    d = os.path.join(tmp, "lg")
    p = None
    try:
        rc = subprocess.run([LADDER, "league", "new", d, "--reference", RANDOM,
                             "--validation-matches", "1"],
                            capture_output=True).returncode
        check(rc == 0, "league new")
        conf = json.load(open(os.path.join(d, "league.json")))
        conf.update(referee=REF, replay=REPLAY, replays=False)
        json.dump(conf, open(os.path.join(d, "league.json"), "w"))
        ents = os.path.join(d, "entries").encode()
        bad = [b"x\x1b]0;PWNED\x07.json", b"two words.json", b"u\xff\xfe.json"]
        for name in bad:
            open(os.path.join(ents, name), "w").write('{"command": "x"}')
        open(os.path.join(ents, b"esc.json"), "w").write(json.dumps(
            {"command": "/bin/true \x1b]0;TITLE\x07 \x1b[31mred"}))
        for name in bad + [b"esc.json"]:  # old: no second look for a parse
            os.utime(os.path.join(ents, name), (0, 0))
        err = open(os.path.join(tmp, "league.err"), "wb+")
        p = subprocess.Popen([LADDER, "league", "run", d], stdout=err,
                             stderr=subprocess.STDOUT)

        def refused():
            return [e for e in events(d) if e["event"] == "refused"]
        wait_for(lambda: len(refused()) >= 3 and
                 any(e["event"] == "failed" and e.get("entry") == "esc"
                     for e in events(d)),
                 "the three names are refused, the escaping entry plays", p)
        # more scans: each add is taken up by one
        for name in ("later", "later2"):
            subprocess.run([LADDER, "league", "add", d, name, RANDOM],
                           capture_output=True)
            wait_for(lambda: any(e["event"] == "added" and e.get("entry") == name
                                 for e in events(d)),
                     "an entry added afterwards is taken up (%s)" % name, p)
        r = refused()
        check(len(r) == 3, "each badly named file refused once while it stays, "
              "over many scans: %d refusals" % len(r))
        check(len({e["entry"] for e in r}) == 3 and
              all("\x1b" not in e["entry"] and "\x07" not in e["entry"] for e in r),
              "... all three in events.jsonl, with no control character: %s"
              % sorted({e["entry"] for e in r}))
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=120)
        err.seek(0)
        text = err.read()
        try:
            text.decode("utf-8")
            utf8 = True
        except UnicodeDecodeError:
            utf8 = False
        check(b"\x1b" not in text and b"\x07" not in text and utf8,
              "nothing from an entry file reaches stderr as a control "
              "character or bytes that are not UTF-8",
              [l for l in text.split(b"\n") if b"\x1b" in l or b"\x07" in l][:3])
    finally:
        if p and p.poll() is None:
            p.kill()
            p.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    return report(T0)


if __name__ == "__main__":
    sys.exit(main())
