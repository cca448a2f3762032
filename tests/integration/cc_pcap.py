#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""cc_pcap.py - the CNPs in a tcpdump capture, with their ICRC checked.

usage: cc_pcap.py [--all] FILE.pcap
Prints one line per IPv4 RoCE v2 CNP (BTH opcode 0x81) of the Ethernet
capture, or with --all per RoCE v2 packet: "DESTQP DSCP ICRC" with DESTQP
in hex as tshark shows it (0x000abc) and ICRC "ok" or "bad"
(roce_craft.icrc, IBA Annex A17).  t-cc.sh compares the list of CNPs with
tshark's dissection of the same file; t-crc.sh checks every packet.
"""

import struct
import sys

import roce_craft as rc


def frames(path):
    with open(path, 'rb') as f:
        data = f.read()
    magic = struct.unpack_from('<I', data)[0]
    if magic in (0xa1b2c3d4, 0xa1b23c4d):
        end = '<'
    elif magic in (0xd4c3b2a1, 0x4d3cb2a1):
        end = '>'
    else:
        sys.exit('%s: not a pcap file' % path)
    link = struct.unpack_from(end + 'I', data, 20)[0]
    if link != 1:
        sys.exit('%s: link type %d, not Ethernet' % (path, link))
    off = 24
    while off + 16 <= len(data):
        caplen = struct.unpack_from(end + 'I', data, off + 8)[0]
        yield data[off + 16:off + 16 + caplen]
        off += 16 + caplen


def main():
    every = sys.argv[1] == '--all'
    for f in frames(sys.argv[-1]):
        if len(f) < 14 + 20 + 8 + 12 + 4 or f[12:14] != b'\x08\x00':
            continue
        ip = f[14:]
        ihl = (ip[0] & 0xf) * 4
        tot = struct.unpack_from('!H', ip, 2)[0]
        ip = ip[:tot]
        if ip[9] != 17 or struct.unpack_from('!H', ip, ihl + 2)[0] != \
                rc.ROCE_PORT:
            continue
        bth = ip[ihl + 8:]
        if bth[0] != rc.CNP and not every:
            continue
        dqpn = struct.unpack_from('!I', bth, 4)[0] & 0xffffff
        good = rc.icrc(ip[:-4], ihl) == ip[-4:]
        print('0x%06x %d %s' % (dqpn, ip[1] >> 2, 'ok' if good else 'bad'))


if __name__ == '__main__':
    main()
