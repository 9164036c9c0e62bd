"""maattest.py -- what the Python end-to-end tests share: the paths of the
programs under test (from the environment meson sets, else build/), one
line per check, the closing summary, and finding, waiting for and killing
the processes a test started (by a marker in their environment, which
every process the referee spawns inherits)."""
import os
import shlex
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# absolute: tests run processes in other directories
BUILD = os.path.abspath(os.environ.get('MAAT_BUILD_ROOT',
                                       os.path.join(HERE, '..', 'build')))
REFEREE = os.path.abspath(os.environ.get(
    'MAAT_REFEREE', os.path.join(BUILD, 'referee', 'maat-referee')))
RANDOM = os.path.abspath(os.environ.get(
    'MAAT_RANDOM', os.path.join(BUILD, 'sample-bots', 'maat-random')))
HOSTILE = os.path.abspath(os.environ.get(
    'MAAT_HOSTILE', os.path.join(BUILD, 'tests', 'maat-hostile-bot')))

failures = []
passes = 0


def check(cond, what, detail=''):
    """Print one line for the check; remember a failure.  Returns cond."""
    global passes
    if cond:
        passes += 1
        print('ok   ' + what, flush=True)
    else:
        failures.append(what)
        print('FAIL ' + what + (' -- ' + str(detail)[-800:] if detail else ''),
              flush=True)
    return cond


def report(t0=None):
    """The summary line, the failures again; the exit code."""
    import time
    took = ' (%.1f s)' % (time.monotonic() - t0) if t0 is not None else ''
    print('%d passed, %d failed%s' % (passes, len(failures), took))
    for f in failures:
        print('  failed: ' + f)
    return 1 if failures else 0


def debian_python_for(*modules):
    """Re-run this script with Debian's python3 when the first python3 on
    PATH (pyenv, say) lacks modules Debian packages provide."""
    try:
        for m in modules:
            __import__(m)
    except ImportError:
        if sys.executable != '/usr/bin/python3' and os.path.exists(
                '/usr/bin/python3'):
            os.execv('/usr/bin/python3', ['/usr/bin/python3'] + sys.argv)
        print('needs the Debian packages for: ' + ', '.join(modules))
        sys.exit(1)


def short(text, n=600):
    """The last n characters of text, marked as cut when they are."""
    text = text or ''
    return text if len(text) <= n else '...' + text[-n:]


# ---- processes ----------------------------------------------------------
# No sleep synchronises anything here: each wait polls with a deadline that
# only guards against a hang.

def proc_state(pid):
    """'gone', 'zombie' (dead, not yet reaped by its new parent) or 'alive'."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return 'gone'
    except PermissionError:
        return 'alive'
    try:
        with open('/proc/%d/stat' % pid) as f:
            state = f.read().rsplit(')', 1)[1].split()[0]
        return 'zombie' if state in ('Z', 'X') else 'alive'
    except (OSError, IndexError):
        return 'gone'


def wait_gone(pids, guard_s=5.0):
    """Wait until no pid is alive; returns those still alive."""
    deadline = time.monotonic() + guard_s
    while True:
        living = [p for p in pids if proc_state(p) == 'alive']
        if not living or time.monotonic() >= deadline:
            return living
        time.sleep(0.01)


def marked_processes(marker):
    """Live processes whose environment holds MAAT_TEST_MARKER=marker (set
    it in the referee's environment: whatever it spawns inherits it)."""
    found = []
    needle = ('MAAT_TEST_MARKER=' + marker).encode()
    for d in os.listdir('/proc'):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open('/proc/%s/environ' % d, 'rb') as f:
                env = f.read().split(b'\0')
        except OSError:
            continue
        if needle in env and proc_state(int(d)) == 'alive':
            found.append(int(d))
    return found


def wait_no_marked(marker, guard_s=5.0):
    """Wait until no marked process is alive; returns those still alive."""
    deadline = time.monotonic() + guard_s
    while True:
        living = marked_processes(marker)
        if not living or time.monotonic() >= deadline:
            return living
        time.sleep(0.02)


def kill_marked(marker):
    """SIGKILL every marked process (a test never leaves one behind)."""
    for pid in marked_processes(marker):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def describe(pids, most=8):
    """'pid command; ...' of up to `most` processes, for failure details."""
    out = []
    for p in pids[:most]:
        try:
            with open('/proc/%d/cmdline' % p, 'rb') as f:
                cmd = f.read().replace(b'\0', b' ').decode(errors='replace')
        except OSError:
            cmd = '?'
        out.append('%d %s' % (p, cmd.strip()[:120]))
    more = ' (+%d more)' % (len(pids) - most) if len(pids) > most else ''
    return '; '.join(out) + more


def wait_file(path, guard_s, proc=None):
    """Wait until path exists; False on deadline or if proc exited."""
    deadline = time.monotonic() + guard_s
    while not os.path.exists(path):
        if time.monotonic() >= deadline:
            return False
        if proc is not None and proc.poll() is not None:
            return os.path.exists(path)
        time.sleep(0.01)
    return True


def read_pids(piddir):
    """{name: pid} from the NAME.pid files in piddir."""
    pids = {}
    for name in os.listdir(piddir):
        if name.endswith('.pid'):
            try:
                with open(os.path.join(piddir, name)) as f:
                    pids[name[:-4]] = int(f.read().strip())
            except (OSError, ValueError):
                pass
    return pids


def random_cmd(piddir, name):
    """maat-random as a command that first writes its pid to NAME.pid (the
    shell writes its own pid, then becomes the bot: the same pid)."""
    return 'echo $$ > %s && exec %s' % (
        shlex.quote(os.path.join(piddir, name + '.pid')), shlex.quote(RANDOM))


def hostile_cmd(args):
    """tests/bots/hostile.c with its arguments, as one command."""
    return ' '.join([shlex.quote(HOSTILE)] + [shlex.quote(a) for a in args])
