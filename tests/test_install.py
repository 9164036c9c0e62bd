#!/usr/bin/env python3
"""test_install.py -- the installed SDK is the public API and enough for a bot.

`meson install --destdir` puts the build in a temporary root, then:
- the installed headers are exactly the public ones (bot.h, error.h,
  game.h, policy.h, protocol.h, rng.h): nothing of maat/internal/ (the
  msgpack helpers, the games' state layouts) is installed;
- each installed header compiles on its own (-Wall -Wextra -Werror);
- the sample bots (sample-bots/random.c, greedy.c, mcts.c) compile and link
  against the installed headers and library alone, and answer --help.

Environment: MAAT_BUILD_ROOT, MAAT_SOURCE_ROOT, MAAT_CC, MAAT_SANITIZE (set
by meson; a sanitized library needs the same -fsanitize to link).
"""
import glob
import os
import shlex
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from maattest import check, report  # noqa: E402

PUBLIC = ['bot.h', 'error.h', 'game.h', 'policy.h', 'protocol.h', 'rng.h']


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True,
                          timeout=300, **kw)


def main():
    t0 = time.monotonic()
    build = os.environ['MAAT_BUILD_ROOT']
    src = os.environ['MAAT_SOURCE_ROOT']
    cc = shlex.split(os.environ.get('MAAT_CC', 'cc'))
    with tempfile.TemporaryDirectory(prefix='maat-install-') as root:
        r = run(['meson', 'install', '-C', build, '--no-rebuild',
                 '--destdir', root, '--quiet'])
        if not check(r.returncode == 0, 'meson install --destdir', r.stdout):
            return report(t0)
        incs = glob.glob(os.path.join(root, '**', 'include', 'maat'),
                         recursive=True)
        libs = glob.glob(os.path.join(root, '**', 'libmaat.so'),
                         recursive=True)
        if not check(len(incs) == 1 and len(libs) == 1,
                     'one include/maat and one libmaat.so installed',
                     '%s %s' % (incs, libs)):
            return report(t0)
        inc, lib = os.path.dirname(incs[0]), os.path.dirname(libs[0])
        installed = sorted(os.listdir(incs[0]))
        check(installed == sorted(PUBLIC),
              'the installed headers are the public ones: %s'
              % ' '.join(installed), 'want ' + ' '.join(PUBLIC))
        flags = ['-std=c11', '-Wall', '-Wextra', '-Werror', '-I' + inc]
        sanitize = os.environ.get('MAAT_SANITIZE', 'none')
        if sanitize not in ('', 'none'):
            flags.append('-fsanitize=' + sanitize)
        flags += subprocess.run(['pkg-config', '--cflags', 'msgpack', 'libzmq'],
                                stdout=subprocess.PIPE,
                                universal_newlines=True).stdout.split()
        for h in PUBLIC:
            r = run(cc + flags + ['-fsyntax-only', '-x', 'c', '-'],
                    input='#include <maat/%s>\n' % h)
            check(r.returncode == 0, 'maat/%s compiles on its own' % h,
                  r.stdout)
        for bot in ('random', 'greedy', 'mcts'):
            out = os.path.join(root, 'maat-' + bot)
            r = run(cc + flags + ['-O1', '-o', out,
                                  os.path.join(src, 'sample-bots',
                                               bot + '.c'),
                                  '-L' + lib, '-Wl,-rpath,' + lib, '-lmaat',
                                  '-lm'])
            if check(r.returncode == 0, 'sample-bots/%s.c builds against '
                     'the installed SDK alone' % bot, r.stdout):
                h = run([out, '--help'])
                check(h.returncode == 0 and 'usage' in h.stdout.lower(),
                      'the installed maat-%s answers --help' % bot, h.stdout)
    return report(t0)


if __name__ == '__main__':
    sys.exit(main())
