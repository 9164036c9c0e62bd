#!/usr/bin/env python3
"""embed.py SYMBOL INPUT OUTPUT: write a C file defining
`const char SYMBOL[]` (NUL-terminated) and `const size_t SYMBOL_len`
holding INPUT's bytes, so data files ship inside the library."""
import sys
sym, src, dst = sys.argv[1:4]
data = open(src, 'rb').read()
with open(dst, 'w') as f:
    f.write('/* generated from %s by scripts/embed.py -- do not edit */\n' % src.split('/')[-1])
    f.write('#include <stddef.h>\n')
    f.write('const char %s[] = {\n' % sym)
    for i in range(0, len(data), 16):
        f.write('  ' + ','.join(str(b) for b in data[i:i + 16]) + ',\n')
    f.write('  0 };\n')
    f.write('const size_t %s_len = %d;\n' % (sym, len(data)))
