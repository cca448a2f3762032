#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""tos_check.py - the DSCP of the RoCE v2 packets in a capture.

    tos_check.py PCAP DSCP ADDR_A ADDR_B

Reads a pcap file (Ethernet link type, as tcpdump -w writes it on a veth),
takes every UDP packet to port 4791 between ADDR_A and ADDR_B (IPv4 or
IPv6) and splits them by direction and by destination QP: QP1 (the CM
MADs) and the others (the connection's own QPs).  Prints one line per
direction and kind with a count per TOS / traffic class byte.

Exit status 0 when, in both directions, at least one packet to a QP other
than QP1 was seen and every such packet carries DSCP (the upper six bits
of the TOS byte); 1 otherwise.  The ECN bits are reported, not checked:
the driver sets them on its own (ECT(0) for sroce, see cc.rst).
"""

import ipaddress
import struct
import sys
from collections import Counter, defaultdict

ROCE_PORT = 4791


def packets(path):
    """Yield the raw frames of a little- or big-endian pcap file."""
    with open(path, 'rb') as f:
        hdr = f.read(24)
        if len(hdr) < 24:
            return
        magic = struct.unpack('<I', hdr[:4])[0]
        if magic in (0xa1b2c3d4, 0xa1b23c4d):
            end = '<'
        elif magic in (0xd4c3b2a1, 0x4d3cb2a1):
            end = '>'
        else:
            raise SystemExit(f'{path}: not a pcap file')
        linktype = struct.unpack(end + 'I', hdr[20:24])[0]
        if linktype != 1:
            raise SystemExit(f'{path}: link type {linktype}, want Ethernet')
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return
            incl = struct.unpack(end + 'IIII', rec)[2]
            yield f.read(incl)


def roce(frame):
    """(src, dst, tos, dest_qpn) of a RoCE v2 frame, or None."""
    if len(frame) < 14:
        return None
    etype = struct.unpack('!H', frame[12:14])[0]
    ip = frame[14:]
    if etype == 0x0800 and len(ip) >= 20 and ip[9] == 17:
        ihl = (ip[0] & 0xf) * 4
        src = ipaddress.ip_address(ip[12:16])
        dst = ipaddress.ip_address(ip[16:20])
        tos = ip[1]
        udp = ip[ihl:]
    elif etype == 0x86dd and len(ip) >= 40 and ip[6] == 17:
        src = ipaddress.ip_address(ip[8:24])
        dst = ipaddress.ip_address(ip[24:40])
        tos = (struct.unpack('!I', ip[:4])[0] >> 20) & 0xff
        udp = ip[40:]
    else:
        return None
    if len(udp) < 8 + 12:
        return None
    if struct.unpack('!H', udp[2:4])[0] != ROCE_PORT:
        return None
    bth = udp[8:20]
    qpn = struct.unpack('!I', bth[4:8])[0] & 0xffffff
    return src, dst, tos, qpn


def main():
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    path, dscp = sys.argv[1], int(sys.argv[2])
    a, b = (ipaddress.ip_address(x) for x in sys.argv[3:5])
    seen = defaultdict(Counter)
    for frame in packets(path):
        p = roce(frame)
        if p is None or {p[0], p[1]} != {a, b}:
            continue
        src, dst, tos, qpn = p
        kind = 'QP1' if qpn == 1 else 'data'
        seen[(src, dst, kind)][tos] += 1
    ok = True
    for src, dst in ((a, b), (b, a)):
        for kind in ('data', 'QP1'):
            c = seen.get((src, dst, kind), Counter())
            tally = ' '.join(f'tos 0x{t:02x} (dscp {t >> 2}, ecn {t & 3}): {n}'
                             for t, n in sorted(c.items()))
            print(f'{src} -> {dst} {kind}: {sum(c.values())} packets '
                  f'{tally}')
            if kind == 'data':
                if not c or any(t >> 2 != dscp for t in c):
                    ok = False
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
