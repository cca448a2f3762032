#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""pfc_frames.py - classify the MAC control frames of a pcap file (tcpdump
-w), for t-pfc.sh.  Every frame is compared byte for byte with the 802.1Qbb
layout built here independently of sroce's codec: DA 01:80:c2:00:00:01, SA
given, EtherType 0x8808, opcode 0x0101, class-enable vector, eight 16-bit
pause times, zero padding to 60 bytes.

  pfc_frames.py CAP SRC_MAC ENABLE
  prints: "frames N xoff N xon N other N" (other = any frame that is
  neither the exact XOFF with 0xffff quanta nor the exact XON for ENABLE),
  then the first bytes of the first "other" frame, if any.
"""
import struct
import sys


def frames(path):
    with open(path, 'rb') as f:
        data = f.read()
    if len(data) < 24:
        return
    magic = struct.unpack('<I', data[:4])[0]
    end = '<' if magic in (0xa1b2c3d4, 0xa1b23c4d) else '>'
    off = 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(end + 'IIII', data[off:off + 16])
        off += 16
        yield data[off:off + incl]
        off += incl


def expected(src, enable, quanta):
    times = [quanta if enable & (1 << i) else 0 for i in range(8)]
    f = (bytes.fromhex('0180c2000001') + src + struct.pack('!H', 0x8808)
         + struct.pack('!HH8H', 0x0101, enable, *times))
    return f + bytes(60 - len(f))


def main():
    cap, mac, enable = sys.argv[1], sys.argv[2], int(sys.argv[3], 0)
    src = bytes.fromhex(mac.replace(':', ''))
    xoff, xon = expected(src, enable, 0xffff), expected(src, enable, 0)
    n = {'xoff': 0, 'xon': 0, 'other': 0}
    first_other = None
    total = 0
    for fr in frames(cap):
        total += 1
        if fr == xoff:
            n['xoff'] += 1
        elif fr == xon:
            n['xon'] += 1
        else:
            n['other'] += 1
            first_other = first_other or fr
    print(f"frames {total} xoff {n['xoff']} xon {n['xon']} other {n['other']}")
    if first_other:
        print(first_other[:40].hex())


if __name__ == '__main__':
    main()
