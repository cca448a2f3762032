#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""pfc_inject.py - send 802.1Qbb PFC frames (or malformed ones) from a raw
AF_PACKET socket, for t-pfc.sh.  Built here from the standard layout, not
with sroce's codec: DA 01:80:c2:00:00:01, SA of IFACE, EtherType 0x8808,
opcode, class-enable vector, eight 16-bit pause times, zero padding to 60
bytes (the NIC would add the FCS; veth carries the 60 bytes).

  pfc_inject.py IFACE --enable 0x08 --quanta 65535          one frame
  pfc_inject.py IFACE --enable 0x08 --every-ms 1 --for-s 3  a stream
  pfc_inject.py IFACE --raw-hex 0101             payload as given (short)
  options: --opcode N (default 0x0101), --no-pad
"""
import argparse
import socket
import struct
import time


def mac_of(iface):
    with open(f'/sys/class/net/{iface}/address') as f:
        return bytes.fromhex(f.read().strip().replace(':', ''))


def build(src, opcode, enable, quanta, pad=True):
    times = [quanta if enable & (1 << i) else 0 for i in range(8)]
    frame = (bytes.fromhex('0180c2000001') + src + struct.pack('!H', 0x8808)
             + struct.pack('!HH8H', opcode, enable, *times))
    if pad and len(frame) < 60:
        frame += bytes(60 - len(frame))
    return frame


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('iface')
    ap.add_argument('--enable', type=lambda s: int(s, 0), default=0x08)
    ap.add_argument('--quanta', type=lambda s: int(s, 0), default=0xffff)
    ap.add_argument('--opcode', type=lambda s: int(s, 0), default=0x0101)
    ap.add_argument('--raw-hex', help='MAC control payload bytes, as hex')
    ap.add_argument('--no-pad', action='store_true')
    ap.add_argument('--every-ms', type=float, default=0)
    ap.add_argument('--for-s', type=float, default=0)
    a = ap.parse_args()

    src = mac_of(a.iface)
    if a.raw_hex is not None:
        frame = (bytes.fromhex('0180c2000001') + src +
                 struct.pack('!H', 0x8808) + bytes.fromhex(a.raw_hex))
    else:
        frame = build(src, a.opcode, a.enable, a.quanta, not a.no_pad)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((a.iface, 0))
    sent = 0
    end = time.monotonic() + a.for_s
    while True:
        s.send(frame)
        sent += 1
        if not a.every_ms or time.monotonic() >= end:
            break
        time.sleep(a.every_ms / 1000)
    print(f'sent {sent} frames of {len(frame)} bytes')


if __name__ == '__main__':
    main()
