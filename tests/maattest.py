"""maattest.py -- what the Python end-to-end tests share: the paths of the
programs under test (from the environment meson sets, else build/), one
line per check, and the closing summary."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get('MAAT_BUILD_ROOT', os.path.join(HERE, '..', 'build'))
REFEREE = os.environ.get('MAAT_REFEREE',
                         os.path.join(BUILD, 'referee', 'maat-referee'))
RANDOM = os.environ.get('MAAT_RANDOM',
                        os.path.join(BUILD, 'sample-bots', 'maat-random'))
HOSTILE = os.environ.get('MAAT_HOSTILE',
                         os.path.join(BUILD, 'tests', 'maat-hostile-bot'))

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
