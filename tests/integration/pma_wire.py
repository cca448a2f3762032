#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""pma_wire.py - ask sroce1's Performance Management Agent over the wire.

Runs in ns2 of make_two_ns (lib.sh) and plays a remote perfquery: one
PerfMgmt MAD in a crafted UD SEND to QP1 of sroce1 (10.11.0.1), Q_Key
0x80010000, from QPN 0x123 at 10.11.0.2; ib_core's MAD layer hands it to
sroce's process_mad and sends the answer back to QPN 0x123, where it is
sniffed on v2.

usage: pma_wire.py METHOD ATTR PORT_SELECT   (numbers, e.g. 0x01 0x12 1)
Prints one line "method=0x.. status=0x.. tid=ok|bad attr=0x.. port=N
xmit_data=N rcv_data=N xmit_pkts=N rcv_pkts=N dqpn=0x.. qkey=0x.. sqpn=N"
(data in 4-byte words as the MAD carries them; PortCounters or
PortCountersExtended layout by ATTR) and exits 0, or exits 1 when no
answer came.
"""

import struct
import sys

import roce_craft as rc

LOCAL, PEER = '10.11.0.2', '10.11.0.1'
GSI_QKEY = 0x80010000
MY_QPN = 0x123
TID = 0x5eed00000000abcd


def mad(method, attr, port):
    hdr = struct.pack('!BBBBHHQHHI', 1, 0x04, 1, method, 0, 0, TID, attr,
                      0, 0)
    data = bytearray(192)
    data[1] = port
    return hdr + bytes(40) + bytes(data)


def main():
    method, attr, port = (int(a, 0) for a in sys.argv[1:4])
    w = rc.Wire(LOCAL, PEER, 'v2')
    w.drain()
    w.send(rc.bth(rc.UD_SEND_ONLY, 1, 0) + rc.deth(GSI_QKEY, MY_QPN) +
           mad(method, attr, port))
    for b, rest in w.replies(want=4, timeout=5.0):
        if b['opcode'] != rc.UD_SEND_ONLY or b['dqpn'] != MY_QPN:
            continue
        qkey, sqpn = struct.unpack('!II', rest[:8])
        m = rest[8:]
        if len(m) < 256:
            continue
        _, cls, _, meth, status, _, tid, rattr = \
            struct.unpack('!BBBBHHQH', m[:18])
        d = m[64:]
        if rattr == 0x1d:
            xd, rd, xp, rp = struct.unpack('!QQQQ', d[8:40])
        else:
            xd, rd, xp, rp = struct.unpack('!IIII', d[24:40])
        print('method=0x%02x status=0x%04x tid=%s attr=0x%04x port=%d '
              'xmit_data=%d rcv_data=%d xmit_pkts=%d rcv_pkts=%d '
              'dqpn=0x%x qkey=0x%08x sqpn=%d icrc=%s' %
              (meth, status, 'ok' if tid == TID else 'bad', rattr, d[1],
               xd, rd, xp, rp, b['dqpn'], qkey, sqpn & 0xffffff,
               'ok' if b['icrc_ok'] else 'bad'))
        return 0
    print('no answer from QP1 of %s' % PEER)
    return 1


if __name__ == '__main__':
    sys.exit(main())
