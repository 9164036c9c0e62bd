#!/usr/bin/env python3
"""capture-examples.py -- the matches docs/PROTOCOL.md's examples come from.

    python3 scripts/capture-examples.py [--build DIR] [CAPTURE ...]
    python3 scripts/capture-examples.py [--build DIR] --check docs/PROTOCOL.md

Each capture is one match between spy bots (tests/bots/spy.c, built as
build/tests/maat-spy-bot), which write down every message the referee
sends them; with fixed seats and seeded spies the match is the same at
every run.  Without --check, every message each bot received is printed,
one JSON line each (msgpack nil as null), after the capture's name and the
bot's, followed by the bot's answers (`sent`), taken from the game record:

    pyramids a: {"type": "request", "seq": 1, ...}
    pyramids a sent: {"type": "action", "seq": 1, "action": {...}}

With no CAPTURE named, all of them.  The exact commands are printed by
--commands.

--check FILE checks the examples of FILE against the captures: a JSON
block whose fence has the line `<!-- capture: NAME -->` just above it
holds one or more values (or `"key": value` fragments), each of which must
equal something the bots of capture NAME received or sent -- a whole
message, or any part of one at any depth (an event, an action, an
observation); a fragment, the value under that key somewhere.  `…` stands
for what the page leaves out: in an array one or more elements, in a map
other keys; keys shown must come in the order the referee sends them.
Prose after a value on the same line is allowed.  The page must also name
each capture's command.  Exit 1 with the examples that match nothing.

The build directory is ./build unless --build or $MAAT_BUILD_ROOT says
otherwise."""
import argparse, json, os, re, shlex, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from spyread import spy_messages  # noqa: E402  (stdlib msgpack reader)

SPY = "build/tests/maat-spy-bot"

# name: (referee arguments, bot names); the spy of the i-th bot is seeded i+1
CAPTURES = {
    "pyramids": (["--seed", "3", "--fixed-seats"], ["a", "b"], {}),
    "pyramids-v2": (["--seed", "3", "--fixed-seats"], ["a", "b"],
                    {"a": "--version 2"}),
    "pyramids-v3": (["--seed", "3", "--fixed-seats"], ["a", "b"],
                    {"a": "--version 3"}),
    "clock": (["--seed", "3", "--fixed-seats", "--time", "500", "--bank",
               "2000", "--increment", "100"], ["a", "b"], {}),
    "pyramix": (["--game", "pyramix", "--seed", "42", "--fixed-seats"],
                ["alice", "bob"], {}),
    "architects": (["--game", "architects", "--seed", "42", "--fixed-seats"],
                   ["alice", "bob"], {}),
}


def command(name, d="D"):
    """The referee's argument list of a capture, d the directory of the
    spies' files and the record (D on the page)."""
    args, bots, extra = CAPTURES[name]
    argv = ["maat-referee", "--no-sandbox", *args, "--record",
            f"{d}/record.json"]
    for i, bot in enumerate(bots):
        spy = f"{SPY} --dir {d} --seed {i + 1}"
        if bot in extra:
            spy += " " + extra[bot]
        argv += ["--bot", f"{bot}={spy}"]
    return argv


def command_text(name):
    """The command as the page writes it: NAME='spy command'."""
    out = []
    for word in command(name):
        if "=" in word and " " in word:
            bot, cmd = word.split("=", 1)
            out.append(f"{bot}='{cmd}'")
        else:
            out.append(word)
    return " ".join(out)


def capture(name, build, extra=()):
    """Run capture `name`: {bot: (received messages, sent actions)}.
    `extra`: more referee arguments that change no message (a sanitizer
    build's --limit-as 0)."""
    work = tempfile.mkdtemp(prefix="maat-capture-")
    try:
        os.symlink(build, os.path.join(work, "build"))
        d = os.path.join(work, "d")
        os.mkdir(d)
        argv = command(name, d)
        argv[0] = os.path.join(build, "referee", "maat-referee")
        p = subprocess.run([*argv, "--quiet", *extra], cwd=work, capture_output=True,
                           text=True, timeout=120)
        if p.returncode != 0:
            raise RuntimeError(f"capture {name}: exit {p.returncode}: "
                               f"{p.stderr.strip()[-500:]}")
        record = json.load(open(os.path.join(d, "record.json")))
        out = {}
        for seat, bot in enumerate(CAPTURES[name][1]):
            got = spy_messages(os.path.join(d, bot + ".bin"))
            seqs = [m["seq"] for m in got if m.get("type") == "request"]
            # each request has one answer; a resync would break this pairing
            mine = [x["action"] for x in record["decisions"]
                    if x["seat"] == seat]
            if len(seqs) != len(mine):
                raise RuntimeError(f"capture {name}: {bot} got {len(seqs)} "
                                   f"requests for {len(mine)} decisions")
            sent = [{"type": "action", "seq": s, "action": a}
                    for s, a in zip(seqs, mine)]
            out[bot] = (got, sent)
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ---- examples with … -----------------------------------------------------

class _Gap:
    def __repr__(self):
        return "…"


GAP = _Gap()


class Example:
    """A parser for a page's example values: JSON with `…`."""

    def __init__(self, text):
        self.s, self.i = text, 0

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] in " \t\r\n":
            self.i += 1

    def peek(self):
        self.ws()
        return self.s[self.i] if self.i < len(self.s) else ""

    def expect(self, c):
        if self.peek() != c:
            raise ValueError(f"expected {c!r} at {self.s[self.i:self.i + 40]!r}")
        self.i += 1

    def value(self):
        c = self.peek()
        if c == "…":
            self.i += 1
            return GAP
        if c == "{":
            self.i += 1
            items = []
            while self.peek() != "}":
                if self.peek() == "…":
                    self.i += 1
                    items.append((GAP, GAP))
                else:
                    k = self.string()
                    self.expect(":")
                    items.append((k, self.value()))
                if self.peek() == ",":
                    self.i += 1
            self.i += 1
            return ("map", items)
        if c == "[":
            self.i += 1
            items = []
            while self.peek() != "]":
                items.append(self.value())
                if self.peek() == ",":
                    self.i += 1
            self.i += 1
            return ("arr", items)
        if c == '"':
            return self.string()
        m = re.compile(r"-?\d+(\.\d+)?|true|false|null").match(self.s, self.i)
        if not m:
            raise ValueError(f"not a value at {self.s[self.i:self.i + 40]!r}")
        self.i = m.end()
        return json.loads(m.group(0))

    def string(self):
        self.ws()
        v, end = json.JSONDecoder().raw_decode(self.s, self.i)
        if not isinstance(v, str):
            raise ValueError(f"expected a string at {self.s[self.i:self.i + 40]!r}")
        self.i = end
        return v

    def pieces(self):
        """The values of a block: (key or None, pattern, source text)."""
        out = []
        while self.peek():
            start, key = self.i, None
            if self.peek() == '"':
                key = self.string()
                self.expect(":")
            pat = self.value()
            out.append((key, pat, self.s[start:self.i].strip()))
            # prose after a value, up to the end of its line
            rest = self.s.find("\n", self.i)
            tail = self.s[self.i:rest if rest >= 0 else len(self.s)].strip()
            if tail and tail[0] not in "{[\"" and not tail.startswith(","):
                self.i = rest if rest >= 0 else len(self.s)
            if self.peek() == ",":
                self.i += 1
        return out


def matches(pat, v):
    if isinstance(pat, tuple) and pat[0] == "map":
        if not isinstance(v, dict):
            return False
        shown = [(k, p) for k, p in pat[1] if k is not GAP]
        gap = len(shown) < len(pat[1])
        keys = list(v)
        if not gap and len(shown) != len(keys):
            return False
        last = -1
        for k, p in shown:
            if k not in v or keys.index(k) < last or not matches(p, v[k]):
                return False
            last = keys.index(k)
        return True
    if isinstance(pat, tuple) and pat[0] == "arr":
        return isinstance(v, list) and _seq(pat[1], 0, v, 0, {})
    if isinstance(pat, bool) or isinstance(v, bool):
        return type(pat) is type(v) and pat == v
    return pat == v


def _seq(ps, i, vs, j, memo):
    if (i, j) in memo:
        return memo[i, j]
    if i == len(ps):
        r = j == len(vs)
    elif ps[i] is GAP:
        r = any(_seq(ps, i + 1, vs, k, memo) for k in range(j + 1, len(vs) + 1))
    else:
        r = j < len(vs) and matches(ps[i], vs[j]) and _seq(ps, i + 1, vs,
                                                           j + 1, memo)
    memo[i, j] = r
    return r


def walk(v, key=None):
    """Every (key, value) inside v, v itself included."""
    yield key, v
    if isinstance(v, dict):
        for k, x in v.items():
            yield from walk(x, k)
    elif isinstance(v, list):
        for x in v:
            yield from walk(x, key)


def found(key, pat, nodes):
    return any(matches(pat, v) for k, v in nodes if key is None or k == key)


def marked_blocks(text):
    """(capture, line number, block text) of each marked JSON block."""
    out = []
    for m in re.finditer(r"^[ \t]*<!-- capture: ([\w-]+) -->\n[ \t]*```json\n"
                         r"(.*?)^[ \t]*```", text, re.S | re.M):
        out.append((m.group(1), text.count("\n", 0, m.start()) + 2,
                    m.group(2)))
    return out


def check(path, build, report=print, extra=()):
    """Every marked example of `path` equals part of its capture, and the
    page names each capture's command: the number of failures."""
    text = open(path).read()
    blocks = marked_blocks(text)
    flat = " ".join(text.split())
    failures = 0
    names = sorted({b[0] for b in blocks})
    if not blocks:
        report(f"FAIL {path}: no <!-- capture: NAME --> example")
        return 1
    nodes = {}
    for name in names:
        if name not in CAPTURES:
            report(f"FAIL {path}: unknown capture {name!r}")
            failures += 1
            continue
        cmd = command_text(name)
        if cmd not in flat:
            report(f"FAIL {path}: does not name the command of capture "
                   f"{name}: {cmd}")
            failures += 1
        msgs = [m for got, sent in capture(name, build, extra).values()
                for m in got + sent]
        nodes[name] = [n for m in msgs for n in walk(m)]
    for name, line, body in blocks:
        if name not in nodes:
            continue
        try:
            pieces = Example(body).pieces()
        except ValueError as e:
            report(f"FAIL {path}:{line}: capture {name}: cannot read: {e}")
            failures += 1
            continue
        bad = [src for key, pat, src in pieces
               if not found(key, pat, nodes[name])]
        for src in bad:
            report(f"FAIL {path}:{line}: capture {name}: matches nothing "
                   f"received or sent: {' '.join(src.split())[:300]}")
        if not bad:
            report(f"ok   {path}:{line}: capture {name}: {len(pieces)} "
                   f"value(s)")
        failures += len(bad)
    return failures


def main():
    ap = argparse.ArgumentParser(
        description="Run the matches docs/PROTOCOL.md's examples were "
        "captured from and print what the bots received and sent, or "
        "check a page's examples against them.")
    ap.add_argument("captures", nargs="*", metavar="CAPTURE",
                    help="one of: " + ", ".join(CAPTURES))
    ap.add_argument("--build", default=os.environ.get("MAAT_BUILD_ROOT",
                                                      "build"))
    ap.add_argument("--check", metavar="FILE",
                    help="check FILE's marked examples against the captures")
    ap.add_argument("--commands", action="store_true",
                    help="print each capture's referee command and exit")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    names = a.captures or list(CAPTURES)
    for n in names:
        if n not in CAPTURES:
            ap.error(f"unknown capture {n!r}")
    if a.commands:
        for n in names:
            print(f"{n}: {command_text(n)}")
        return 0
    if a.check:
        bad = check(a.check, build)
        print(f"{a.check}: " + ("every example matches its capture" if not bad
                               else f"{bad} example value(s) match nothing"))
        return 1 if bad else 0
    for n in names:
        for bot, (got, sent) in capture(n, build).items():
            for m in got:
                print(f"{n} {bot}: {json.dumps(m)}")
            for m in sent:
                print(f"{n} {bot} sent: {json.dumps(m)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
