#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Parse every Documentation/*.rst with docutils and fail on any warning or
error (Sphinx-only directives such as toctree are accepted)."""
import glob
import os
import sys

import docutils.core
import docutils.parsers.rst
from docutils.parsers.rst import Directive


class Ignored(Directive):
    has_content = True
    optional_arguments = 10
    option_spec = {'maxdepth': str}

    def run(self):
        return []


docutils.parsers.rst.directives.register_directive('toctree', Ignored)
top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
bad = 0
for f in sorted(glob.glob(f'{top}/Documentation/*.rst')):
    with open(f) as fh:
        text = fh.read()
    doc = docutils.core.publish_doctree(
        text, source_path=f,
        settings_overrides={'report_level': 5, 'halt_level': 5})
    for msg in doc.traverse(lambda n: n.tagname == 'system_message'):
        if int(msg['level']) >= 2:
            print(f'{os.path.relpath(f, top)}:{msg.get("line")}: '
                  f'{msg.astext().splitlines()[0]}')
            bad += 1
sys.exit(1 if bad else 0)
