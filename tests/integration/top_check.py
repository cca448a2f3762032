#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""top_check.py - what t-top.sh asks of sroce-top's JSON reports.

    top_check.py FILE [DEV...]

FILE holds sroce-top --json reports, one per line.  Prints, so that the
shell test needs one Python start per file (slow under TCG):

    reports N
    moving DEV NAME...       counters of DEV with a non-zero rate in any
                             report (sorted)
    flag DEV FLAG NAME       every flagged counter (sorted, unique)
    bad DEV NAME ...         a flag that disagrees with rate and kind
    states DEV S1 S2 ...     DEV's state in each report ("absent" if none)
    knob DEV KEY VALUE       the knobs of DEV's last report
    qp DEV LQPN TYPE STATE SQ_RATE   QPs with a send PSN rate
"""
import json
import sys

FLAG = {'error': '!', 'warn': '~'}


def main(path, devs):
    with open(path) as f:
        reps = [json.loads(line) for line in f if line.strip()]
    print('reports', len(reps))
    names = sorted({d for r in reps for d in r['devices']} | set(devs))
    flags = set()
    for d in names:
        views = [r['devices'].get(d) for r in reps]
        print('states', d, *[v['state'] if v else 'absent' for v in views])
        moving = set()
        for v in filter(None, views):
            for n, c in v.get('counters', {}).items():
                want = FLAG.get(c['kind'], '') if c['rate'] else ''
                if c['flag'] != want or \
                        (n in v['anomalies']) != bool(want):
                    print('bad', d, n, json.dumps(c))
                if c['rate']:
                    moving.add(n)
                if c['flag']:
                    flags.add((d, c['flag'], n))
            for q in v.get('qps', []):
                if q['sq_psn_rate']:
                    print('qp', d, q['lqpn'], q['type'], q['state'],
                          q['sq_psn_rate'])
        print('moving', d, *sorted(moving))
        last = [v for v in views if v and 'knobs' in v]
        for k, val in sorted(last[-1]['knobs'].items()) if last else ():
            print('knob', d, k, val)
    for d, fl, n in sorted(flags):
        print('flag', d, fl, n)


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2:])
