#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Regenerate the counter table of Documentation/counters.rst from
kernel/counters.h (comment above each enum entry) and kernel/counters.c
(name table), so the two cannot drift apart.  --check exits 1 when the
document is stale (used by make check)."""
import re
import sys

import os
top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
hdr = open(f'{top}/kernel/counters.h').read()
src = open(f'{top}/kernel/counters.c').read()
names = dict(re.findall(r'\[(SROCE_\w+)\]\s*=\s*\{\s*\.name\s*=\s*"(\w+)"', src))

rows = []
comment = []
body = hdr[hdr.index('enum sroce_counter'):]
for line in body.splitlines()[1:]:
    s = line.strip()
    if s.startswith('};'):
        break
    m = re.match(r'/\*\s*(.*?)\s*(\*/)?$', s)
    if s.startswith('/*') and '----' in s:
        comment = []
        continue
    if m and s.startswith('/*'):
        comment = [m.group(1)]
        if not m.group(2):
            comment_open = True
        continue
    if s.startswith('*') and not s.startswith('*/'):
        comment.append(s.lstrip('* ').rstrip('*/ ').strip())
        continue
    m = re.match(r'(SROCE_\w+),', s)
    if m and m.group(1) in names:
        rows.append((names[m.group(1)], ' '.join(c for c in comment if c)))
        comment = []
for k, v in names.items():
    if k.startswith('SROCE_STAT_'):
        rows.append((v, 'Namespace-wide: RoCE v2 datagrams whose ingress '
                     'netdev has no sroce device (shown on every device '
                     'of the namespace).'))

w = max(len(n) for n, _ in rows) + 4
table = ['=' * w + '  ' + '=' * 60,
         'counter'.ljust(w) + '  description',
         '=' * w + '  ' + '=' * 60]
for n, d in rows:
    table.append(f'``{n}``'.ljust(w) + '  ' + d)
table.append('=' * w + '  ' + '=' * 60)
gen = '\n'.join(table) + '\n'

doc_path = f'{top}/Documentation/counters.rst'
doc = open(doc_path).read()
start = '.. counters-table-start\n\n'
end = '.. counters-table-end'
pre, rest = doc.split(start)
_, post = rest.split(end)
new = pre + start + gen + '\n' + end + post
if '--check' in sys.argv:
    if new != doc:
        print('Documentation/counters.rst is stale: run scripts/gen-counters-doc.py')
        sys.exit(1)
    sys.exit(0)
open(doc_path, 'w').write(new)
