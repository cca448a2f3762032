#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# hold-device.py DEV [LIMIT_S]: open DEV with a PD and a CQ, print "ready",
# then wait for one asynchronous event and print "event N NAME".  Used by
# t-netdev.sh to delete the netdev under a device a process holds open.
# SIGALRM after LIMIT_S (default 60) ends the process whatever happens, so
# a missing event shows up as a failure instead of a hang.

import signal
import sys

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.pd import PD


def main():
    dev = sys.argv[1]
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    signal.alarm(limit)
    ctx = Context(name=dev)
    pd = PD(ctx)
    cq = CQ(ctx, 16)
    print('ready', flush=True)
    # Port events (PORT_ERR when the netdev goes down) may come first.
    while True:
        ev = ctx.get_async_event()
        kind = ev.event_type
        fatal = kind == e.IBV_EVENT_DEVICE_FATAL
        print('event', kind, 'DEVICE_FATAL' if fatal else 'other', flush=True)
        ev.ack()
        if fatal:
            break
    try:
        PD(ctx)
        print('verb after event: succeeded', flush=True)
    except Exception as err:  # the device is gone: any error is fine
        print('verb after event: failed:', err, flush=True)
    for obj in (cq, pd, ctx):
        try:
            obj.close()
        except Exception as err:
            print('close:', err, flush=True)
    print('closed', flush=True)


if __name__ == '__main__':
    main()
