#!/usr/bin/env python3
"""The examples the documentation asks people to copy, run as written, so
they cannot drift from the code:

- the C bot in sdk/include/maat/bot.h's header comment and every ```c
  block of docs/SDK.md are compiled with -Wall -Wextra -Werror against the
  build tree, the way docs/SDK.md says ("Without installing": pkg-config
  with build/meson-uninstalled), and each bot plays a real game against
  maat-random with every decision its own;
- the config file of docs/REFEREE.md ("Config files") runs with the command
  line printed under it, from a directory laid out like the repository;
- README's `maat-ladder run` line runs the tournament file it names
  (ladder/examples/tournament.json, which must exist), and `plan` lists one
  command per match of it;
- the captured messages of docs/PROTOCOL.md (each JSON block under a
  `<!-- capture: NAME -->` line) are what the matches of
  scripts/capture-examples.py send today, value for value, and the page
  names those matches' commands: a change of a deal or of a message fails
  here.  At least one whole request of each game is among them.

A directory laid out like the repository is a temporary one holding links
named `build` (to the build tree) and `ladder` (to the source's), so the
relative bot paths of the examples resolve exactly as in a clone."""
import importlib.util, json, os, re, shlex, shutil, subprocess, sys, tempfile

SRC = os.environ["MAAT_SOURCE_ROOT"]
BUILD = os.environ["MAAT_BUILD_ROOT"]
REF = os.environ["MAAT_REFEREE"]
LADDER = os.environ["MAAT_LADDER"]
RANDOM = os.environ["MAAT_RANDOM"]
CC = shlex.split(os.environ["MAAT_CC"])
SANITIZE = os.environ.get("MAAT_SANITIZE", "none")
# AddressSanitizer builds cannot start a bot under the referee's default
# --limit-as 2048, and bots built for them link the sanitizer runtimes.
SAN = SANITIZE not in ("", "none")
REF_ARGS = ["--limit-as", "0"] if SAN else []
failures = 0


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    failures += 0 if cond else 1
    return cond


def run(argv, cwd, timeout=300):
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def repo_like(work):
    """A directory where build/ and ladder/ resolve as in a clone."""
    os.symlink(BUILD, os.path.join(work, "build"))
    os.symlink(os.path.join(SRC, "ladder"), os.path.join(work, "ladder"))
    return work


# ---- C examples ------------------------------------------------------------

def header_example(path):
    """The indented code of the first comment of a header: the lines
    ' *   code' from the first such line to the next line of prose."""
    lines = open(path).read().split("*/", 1)[0].splitlines()
    code, started = [], False
    for line in lines:
        m = re.match(r"^ \*(   (.*))?$", line)
        if m and (m.group(1) or started):
            started = True
            code.append(m.group(2) or "")
        elif started:
            break
    return "\n".join(code).strip() + "\n"


def markdown_c_blocks(path):
    return re.findall(r"^```c\n(.*?)^```", open(path).read(), re.S | re.M)


def uninstalled_flags():
    env = dict(os.environ,
               PKG_CONFIG_PATH=os.path.join(BUILD, "meson-uninstalled"))
    p = subprocess.run(["pkg-config", "--cflags", "--libs",
                        "maat-uninstalled"], env=env, capture_output=True,
                       text=True)
    check(p.returncode == 0, f"pkg-config maat-uninstalled ({p.stderr.strip()})")
    return shlex.split(p.stdout)


def compile_bot(work, name, code, flags):
    src = os.path.join(work, name + ".c")
    exe = os.path.join(work, name)
    with open(src, "w") as f:
        f.write(code)
    san = [f"-fsanitize={SANITIZE}"] if SAN else []
    argv = CC + ["-std=c11", "-Wall", "-Wextra", "-Werror", "-O2", *san,
                 "-o", exe, src, *flags,
                 "-Wl,-rpath," + os.path.join(BUILD, "sdk")]
    rc, out, err = run(argv, work)
    check(rc == 0, f"{name}: compiles with -Wall -Wextra -Werror "
                   f"({(out + err).strip()[:600]})")
    return exe if rc == 0 else None


def play(work, name, exe):
    """One game against maat-random: finished, recorded, every decision of
    the example bot its own, no fault of any kind, record verified."""
    rec = os.path.join(work, name + ".json")
    # a generous clock: this checks that the bot plays, not how fast
    rc, out, err = run([REF, *REF_ARGS, "--seed", "7", "--fixed-seats",
                        "--time", "20000", "--first-time", "20000",
                        "--bot", f"{name}={exe}", "--bot", f"r={RANDOM}",
                        "--record", rec], work)
    if not check(rc == 0 and os.path.exists(rec),
                 f"{name}: plays a game (exit {rc}) {err.strip()[-300:]}"):
        return
    r = json.load(open(rec))
    mine = [d for d in r["decisions"] if d["seat"] == 0]
    check(len(mine) > 0 and all(d["by"] == "bot" for d in mine),
          f"{name}: all {len(mine)} of its decisions are its own")
    check(r["faults"] == [], f"{name}: no fault ({r['faults'][:2]})")
    rc, out, err = run([REF, "--verify", rec], work)
    check(rc == 0, f"{name}: the record verifies ({(out + err).strip()})")


def c_examples():
    work = tempfile.mkdtemp(prefix="maat-doc-c-")
    try:
        flags = uninstalled_flags()
        header = os.path.join(SRC, "sdk", "include", "maat", "bot.h")
        code = header_example(header)
        check("maat_bot_main" in code and "#include <maat/bot.h>" in code,
              "bot.h: its comment holds a whole example bot")
        examples = [("bot_h", code)]
        blocks = markdown_c_blocks(os.path.join(SRC, "docs", "SDK.md"))
        check(len(blocks) >= 2, f"docs/SDK.md: {len(blocks)} C examples")
        for k, block in enumerate(blocks):
            m = re.search(r"/\* (\w+)\.c ", block)
            examples.append((m.group(1) if m else f"sdk_md_{k}", block))
        for name, code in examples:
            exe = compile_bot(work, name, code, flags)
            if exe:
                play(work, name, exe)
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ---- REFEREE.md's config file ------------------------------------------------

def referee_config():
    text = open(os.path.join(SRC, "docs", "REFEREE.md")).read()
    m = re.search(r"^```\n(# (\S+\.conf).*?)^```\n\n`([^`\n]+)`", text,
                  re.S | re.M)
    if not check(m is not None, "REFEREE.md: a config file with its command"):
        return
    conf, name, command = m.group(1), m.group(2), m.group(3)
    work = repo_like(tempfile.mkdtemp(prefix="maat-doc-conf-"))
    try:
        with open(os.path.join(work, name), "w") as f:
            f.write(conf)
        argv = shlex.split(command)
        check(argv[0].endswith("maat-referee") and os.path.exists(
            os.path.join(work, argv[0])), f"the command runs the referee: {command}")
        rc, out, err = run([REF, *REF_ARGS, *argv[1:]], work)
        check(rc == 0, f"{command}: exit 0 ({err.strip()[-300:]})")
        rec = os.path.join(work, argv[argv.index("--record") + 1])
        if not check(os.path.exists(rec), "the record is written"):
            return
        r = json.load(open(rec))
        bots = {s["bot"] for s in r["seats"]}
        wanted = set(re.findall(r"^bot (\w+)=", conf, re.M))
        check(bots == wanted and len(wanted) >= 2,
              f"the config's bots played: {sorted(bots)}")
        # a bot refusing an option of its command line never says hello
        fatal = [f for f in r["faults"] if f["kind"] in ("no_hello", "crash")]
        check(fatal == [], f"every bot started and stayed up ({fatal[:2]})")
        ladder = re.search(r"^ladder (\S+)", conf, re.M)
        logs = re.search(r"^log-dir (\S+)", conf, re.M)
        if ladder:
            lines = open(os.path.join(work, ladder.group(1))).read().splitlines()
            check(len(lines) == 1, f"the ladder file has one line ({len(lines)})")
        if logs:
            found = sorted(os.listdir(os.path.join(work, logs.group(1))))
            check(len(found) == len(wanted) and
                  all(any(f.endswith("-0-" + b + ".log") for f in found)
                      for b in wanted),
                  f"one log per bot (MATCH-0-BOT.log): {found}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ---- README's tournament ------------------------------------------------------

def readme_tournament():
    text = open(os.path.join(SRC, "README.md")).read()
    m = re.search(r"^(build/ladder/maat-ladder run (\S+)[^\n#]*)", text, re.M)
    if not check(m is not None, "README: a maat-ladder run line"):
        return
    command, config = m.group(1).strip(), m.group(2)
    source_config = os.path.join(SRC, config)
    if not check(os.path.exists(source_config),
                 f"README's tournament file ships: {config}"):
        return
    conf = json.load(open(source_config))
    work = repo_like(tempfile.mkdtemp(prefix="maat-doc-tour-"))
    try:
        if SAN:
            # the only change: sanitizer builds need --limit-as 0
            os.unlink(os.path.join(work, "ladder"))
            os.makedirs(os.path.dirname(os.path.join(work, config)))
            conf_san = dict(conf, referee_args=conf.get("referee_args", [])
                            + REF_ARGS)
            with open(os.path.join(work, config), "w") as f:
                json.dump(conf_san, f)
        os.mkdir(os.path.join(work, "shards"))
        rc, out, err = run([LADDER, "plan", config, "--shard-dir", "shards"],
                           work)
        plan = out.splitlines()
        check(rc == 0 and len(plan) == conf["matches"],
              f"plan: one command per match ({len(plan)} of "
              f"{conf['matches']}; exit {rc}) {err.strip()[:200]}")
        argv = shlex.split(command)
        rc, out, err = run([LADDER, *argv[1:]], work, timeout=600)
        check(rc == 0, f"{command}: exit 0 ({err.strip()[-300:]})")
        path = os.path.join(work, conf["ladder"])
        lines = [json.loads(l) for l in open(path)] if os.path.exists(path) else []
        games = conf["matches"] * (conf["seats"] if conf.get("duplicate", True)
                                   else 1)
        check(len(lines) == games, f"{len(lines)} games in the ladder file, "
                                   f"want {games}")
        names = {b["name"] for b in conf["bots"]}
        played = {b for l in lines for b in l["bots"]}
        check(played == names, f"every bot played: {sorted(played)}")
        fatal = [f for l in lines for f in l["faults"]
                 if f["kind"] in ("no_hello", "crash")]
        check(fatal == [], f"every bot started and stayed up ({fatal[:2]})")
        rc, out, err = run([LADDER, "standings", conf["ladder"]], work)
        check(rc == 0 and all(n in out for n in names),
              f"standings of the example ladder ({err.strip()[:200]})")
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ---- PROTOCOL.md's captured messages ----------------------------------------

def protocol_captures():
    script = os.path.join(SRC, "scripts", "capture-examples.py")
    spec = importlib.util.spec_from_file_location("capture_examples", script)
    cap = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cap)
    page = os.path.join(SRC, "docs", "PROTOCOL.md")
    blocks = cap.marked_blocks(open(page).read())
    for game in ("pyramids", "pyramix", "architects"):
        check(any(name == game and '"type": "request"' in body
                  for name, _, body in blocks),
              f"PROTOCOL.md: a captured {game} request is checked")
    try:
        bad = cap.check(page, BUILD, extra=REF_ARGS)
    except (RuntimeError, OSError, ValueError, subprocess.SubprocessError) as e:
        check(False, f"PROTOCOL.md: the capture matches ran ({e})")
        return
    check(bad == 0, f"PROTOCOL.md: every captured example matches "
                    f"scripts/capture-examples.py ({bad} do not)")


c_examples()
referee_config()
readme_tournament()
protocol_captures()
print("test_doc_examples: " + ("ok" if failures == 0 else f"{failures} failed"))
sys.exit(1 if failures else 0)
