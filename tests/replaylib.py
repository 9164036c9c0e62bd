"""replaylib.py -- what the replay tests share: making records with the
referee and reading back the document maat-replay embeds in its page."""
import json
import os
import re
import subprocess

GAMES = [("pyramids", 3, 21), ("pyramix", 2, 22), ("architects", 2, 23)]


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=300, **kw)


def make_record(referee, bot, game, seats, seed, path, extra=()):
    """A real match of `seats` copies of `bot`, its record at `path`."""
    cmd = [referee, "--game", game, "--seed", str(seed), "--record", path,
           "--record-timing", "--quiet", "--time", "10000",
           "--first-time", "10000", "--hello-time", "60000"] + list(extra)
    if not any(a == "--bot" for a in extra):
        for s in range(seats):
            cmd += ["--bot", "b%d=%s" % (s, bot)]
    r = run(cmd)
    if r.returncode != 0:
        raise RuntimeError("referee exit %d: %s" % (r.returncode, r.stderr))
    with open(path) as f:
        return json.load(f)


DATA = re.compile(r'<script type="application/json" id="maat-data">(.*?)</script>', re.S)


def page_document(html):
    """The JSON document of a replay page."""
    m = DATA.search(html)
    return json.loads(m.group(1)) if m else None


def patch(base, p):
    """replay/delta.h's patch, as replay/viewer.js applies it."""
    if isinstance(base, list) and isinstance(p.get("@"), list):
        at, n, items = p["@"]
        return base[:at] + items + base[at + n:]
    out = list(base) if isinstance(base, list) else dict(base)
    for k, v in p.items():
        key = int(k) if isinstance(out, list) else k
        if isinstance(v, list):
            if v:
                out[key] = v[0]
            else:
                del out[key]
        else:
            out[key] = patch(base[key], v)
    return out


def positions(doc):
    """Every stream's positions: [omniscient, seat 0, seat 1, ...]."""
    out = []
    for s in doc["streams"]:
        ps = [s[0]]
        for p in s[1:]:
            ps.append(ps[-1] if p is None else patch(ps[-1], p))
        out.append(ps)
    return out
