#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# pcap2vec.py - turn a pcap of RoCE v2 traffic (Ethernet link type) into
# ICRC test vectors: "<name> <hex>" lines, hex from the IP header through
# the ICRC.  Keeps the first packet of each (opcode, IP version) of
# interest so the vector file stays small.
import struct
import sys

NAMES = {
    0x04: "rc-send-only", 0x11: "rc-ack", 0x0a: "rc-write-only",
    0x0c: "rc-read-req", 0x10: "rc-read-resp-only", 0x64: "ud-send-only",
    0x00: "rc-send-first", 0x02: "rc-send-last",
}


def packets(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    if magic == 0xA1B2C3D4 or magic == 0xA1B23C4D:
        endian = "<"
    else:
        endian = ">"
    linktype = struct.unpack(endian + "I", data[20:24])[0]
    if linktype != 1:
        sys.exit("pcap2vec: link type %d, want Ethernet" % linktype)
    off = 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(endian + "IIII", data[off:off + 16])
        yield data[off + 16:off + 16 + incl]
        off += 16 + incl


def roce_ip(frame):
    """The IP packet of a RoCE v2 frame (trailing padding removed)."""
    etype = struct.unpack("!H", frame[12:14])[0]
    ip = frame[14:]
    if etype == 0x0800:
        ip = ip[:struct.unpack("!H", ip[2:4])[0]]
        hl = (ip[0] & 0xF) * 4
        proto = ip[9]
    elif etype == 0x86DD:
        ip = ip[:40 + struct.unpack("!H", ip[4:6])[0]]
        hl = 40
        proto = ip[6]
    else:
        return None, 0
    if proto != 17 or struct.unpack("!H", ip[hl + 2:hl + 4])[0] != 4791:
        return None, 0
    return ip, hl


def main():
    seen = set()
    print("# Captured from rdma_rxe (Linux 6.1) by capture.sh: IP .. ICRC.")
    for frame in packets(sys.argv[1]):
        ip, hl = roce_ip(frame)
        if ip is None:
            continue
        op = ip[hl + 8]
        ver = ip[0] >> 4
        if op not in NAMES or (op, ver) in seen:
            continue
        seen.add((op, ver))
        print("rxe-%s-v%d %s" % (NAMES[op], ver, ip.hex()))


if __name__ == "__main__":
    main()
