#!/usr/bin/env python3
"""docs/RNG.md tells the truth: its reference Python, run as printed,
prints exactly the page's Known answers block, and so does rng-vectors
(tests/rng_vectors.c) from the C library's real game_new of every game.
Where python3-cryptography is installed, the page's ChaCha20 also equals
OpenSSL's over 64 blocks of three keys."""
import os, re, subprocess, sys

ROOT = os.environ["MAAT_SOURCE_ROOT"]
VECTORS = os.environ["MAAT_RNG_VECTORS"]
failures = 0


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what)
    failures += 0 if cond else 1


page = open(os.path.join(ROOT, "docs", "RNG.md")).read()
blocks = re.findall(r"```(\w*)\n(.*?)```", page, re.S)
code = [b for lang, b in blocks
        if lang == "python" and "Reference implementation" in b]
known = re.search(r"## Known answers.*?```text\n(.*?)```", page, re.S)
check(len(code) == 1, "the page has one reference implementation")
check(known is not None, "the page has a Known answers text block")
if failures:
    sys.exit(1)

py = subprocess.run([sys.executable, "-"], input=code[0], text=True,
                    capture_output=True, timeout=60)
check(py.returncode == 0, "the reference Python runs " + py.stderr[-300:])
c = subprocess.run([VECTORS], text=True, capture_output=True, timeout=60)
check(c.returncode == 0 and not c.stderr, "rng-vectors runs " + c.stderr)
want = known.group(1)
check(py.stdout == want, "the Python prints the page's known answers")
check(c.stdout == want, "the C library gives the page's known answers")
for a, b, name in ((py.stdout, want, "python"), (c.stdout, want, "C")):
    for x, y in zip(a.splitlines(), b.splitlines()):
        if x != y:
            print("  %s: %s\n  page: %s" % (name, x, y))
            break

try:
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
except ImportError:
    print("python3-cryptography is not installed; the OpenSSL cross-check "
          "is skipped")
else:
    ns = {}
    exec(compile(code[0].replace('if __name__ == "__main__":',
                                 'if False:'), "RNG.md", "exec"), ns)
    for text in ("0", "42", "ff" * 32):
        key = ns["seed_parse"](text)
        r = ns["Rng"](key)
        mine = b"".join(r.next32().to_bytes(4, "little")
                        for _ in range(16 * 64))
        openssl = Cipher(algorithms.ChaCha20(key, bytes(16)),
                         mode=None).encryptor().update(bytes(64 * 64))
        check(mine == openssl, "seed %s...: the page's ChaCha20 is "
              "OpenSSL's for 64 blocks" % text[:8])

sys.exit(1 if failures else 0)
