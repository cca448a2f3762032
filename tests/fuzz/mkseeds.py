#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# mkseeds.py - seed corpora of the fuzz targets, written at build time:
#
#   mkseeds.py VECTOR_DIR OUT_DIR      (OUT_DIR/<target>/<seed>)
#
# The packet targets (icrc, opcode, bth, aeth, int) start from the packets of
# tests/unit/vectors/*.txt - captured from rdma_rxe and hand-made by
# mkvec.py, "<name> <hex>" from the IP header through the ICRC - cut to
# what each target reads.  PFC and congestion control have no captures:
# their seeds are the frames t-pfc sends and short event sequences in each
# target's input format (see the fuzz_*.c headers).  The PerfMgmt agent's
# seeds are the MADs perfquery and ib_core's sysfs send, and broken ones.
import glob
import os
import struct
import sys


def vectors(vdir):
    for path in sorted(glob.glob(os.path.join(vdir, "*.txt"))):
        with open(path) as f:
            for line in f:
                if not line.strip() or line.startswith("#"):
                    continue
                name, hexs = line.split()[:2]
                yield name, bytes.fromhex(hexs)


def iphlen(pkt):
    return 40 if pkt[0] >> 4 == 6 else (pkt[0] & 0xF) * 4


AETH_OPS = {0x0D, 0x0F, 0x10, 0x11, 0x12}

# fuzz_int: a version 1 collect block of two records (qlen, tx_bytes,
# ts, Mb/s), the newest first (kernel/proto/int.h)
INT_TWO_HOPS = b"\x11\x02\x00\x00" + \
    struct.pack("!IIII", 4096, 65536, 1000, 10000) + \
    struct.pack("!IIII", 0, 0xFFFFFFFF, 0x80000001, 100000)


def packet_seeds(vdir):
    out = {"icrc": {}, "opcode": {}, "bth": {}, "aeth": {}, "int": {}}
    for name, pkt in vectors(vdir):
        bth = pkt[iphlen(pkt) + 8:]
        # icrc: split, flip position, flip, masked values; IP .. pad
        for i, ctrl in enumerate((b"\x00\x10\x00\x20\x01\x5a\xa5\x3c",
                                  b"\xff\xff\x00\x01\x80\x00\xff\x00")):
            out["icrc"]["%s-%d" % (name, i)] = ctrl + pkt[:-4]
        out["opcode"][name] = bth
        # int: where, block length, a two-hop collect block, IP .. pad
        out["int"][name] = b"\x02" + bytes([len(INT_TWO_HOPS)]) + \
            INT_TWO_HOPS + pkt[:-4]
        out["bth"][name] = bth
        if bth[0] in AETH_OPS:
            aeth = bth[12:16]
            # AETH, credits, RNR delay (us), two codes
            out["aeth"][name] = aeth + struct.pack("!II", 100, 640) + \
                b"\x1f\x0e"
    return out


def pfc_payload(opcode, enable, times):
    return struct.pack("!HH8H", opcode, enable, *times) + bytes(26)


def pfc_frame_seeds():
    t = [0] * 8
    xoff3 = list(t)
    xoff3[3] = 0xFFFF
    return {
        "xoff-prio3": pfc_payload(0x0101, 0x08, xoff3),
        "xon-prio3": pfc_payload(0x0101, 0x08, t),
        "all": pfc_payload(0x0101, 0xFF, [0x1000 * (i + 1) for i in range(8)]),
        "pause-8023x": pfc_payload(0x0001, 0x08, xoff3),
        "reserved": pfc_payload(0x0101, 0x0108, xoff3),
        "empty": pfc_payload(0x0101, 0x00, xoff3),
        "short": pfc_payload(0x0101, 0x08, xoff3)[:19],
    }


def ev(kind, scale, mult, arg):
    """One 4-byte event: kind (2 bits), step scale (2), step (4); arg."""
    return bytes([(mult << 4) | (scale << 2) | kind]) + \
        struct.pack("!I", arg)[1:]


def pfc_state_seeds():
    # speed 10000, detect 100 ms, restore 200 ms, MTU 1500, derived
    # thresholds, xoff_max 100 ms, cable 100 m, clock 1 s
    cfg = struct.pack("!I", 10000)[1:] + struct.pack("!HHH", 100, 200,
                                                       1500)
    cfg += b"\x00\x00" + struct.pack("!HH", 100, 100) + \
        struct.pack("!I", 1000000)
    xoff = ev(0, 1, 1, (0xFFFF << 8) | 0x100 | 0)
    xon = ev(0, 1, 1, 0)
    timer = ev(1, 0, 0, 0)
    poll = ev(2, 1, 1, 0x123456)
    full = ev(3, 1, 1, 0xE00000)
    empty = ev(3, 1, 1, 0)
    storm = cfg + (xoff + ev(1, 3, 15, 0x10)) * 12 + timer * 3
    return {
        "pause-resume": cfg + xoff + poll + xon + timer,
        "expire": cfg + xoff + timer + timer,
        "storm": storm,
        "gen": cfg + full + ev(3, 3, 15, 0xE00010) * 8 + empty + full,
    }


def cc_seeds():
    seeds = {}
    names = ["none", "dcqcn", "dctcp", "fixed", "timely", "hpcc"]
    for i, name in enumerate(names):
        for flavour in (0, 0x80):
            # algo/flavour, port 100 Gb/s, no knob overridden, clock 1 s
            s = bytes([i | flavour]) + struct.pack("!I", 100000)[1:] + \
                b"\x00\x00" + struct.pack("!I", 1000000)
            s += ev(0, 1, 1, 0)  # CNP
            s += ev(2, 0, 1, 4096 << 8) * 4  # packets
            s += ev(1, 1, 1, 600 << 8 | 0x10)  # RTT sample
            s += ev(3, 2, 8, 0x0F4000)  # time passes
            s += ev(0, 1, 2, 0) + ev(2, 1, 1, 1024 << 8)
            s += ev(3, 3, 15, 0xFF0000)  # a long idle
            seeds["%s-%s" % (name, "mlx" if flavour else "paper")] = s
    seeds["hpcc-int"] = hpcc_seed(names.index("hpcc"))
    return seeds


def hpcc_seed(algo):
    """hpcc: default knobs, one 100 Gb/s hop (speed 4) filling up."""
    s = bytes([algo]) + struct.pack("!I", 100000)[1:] + b"\x00\x00" + \
        struct.pack("!I", 1000000)
    s += b"\x00" + struct.pack("!Q", 0xFFFFFFFFFFFF0000)  # no knobs; base
    for q in (0, 0, 1000, 50000, 125000, 125000, 0, 0, 0, 0, 0, 0):
        s += ev(2, 0, 1, 1024 << 8)  # a packet
        # ACK of 1024: 1 hop, clock +10 us, 125000 bytes sent (line rate)
        s += ev(1, 0, 1, 1024 << 8) + b"\x01" + struct.pack("!H", 10000)
        s += struct.pack("!I", 125000)[1:] + struct.pack("!I", q)[1:]
        s += bytes([4 << 1])
    return s


def mad(method, attr, port_select=1, base=1, mclass=0x04, cver=1,
        tail=b""):
    """A PerfMgmt MAD (IBA 13.4, 16.1): header, 40 reserved, data."""
    hdr = struct.pack("!BBBBHHQHHI", base, mclass, cver, method, 0, 0,
                      0x1234567800000001, attr, 0, 0)
    data = bytes([0, port_select]) + struct.pack("!H", 0xFFFF) + tail
    return hdr + bytes(40) + data + bytes(192 - len(data))


def pma_ctx(port=1):
    """Port, then the counters: bytes, packets (tx, rx), errors, drops."""
    return bytes([port]) + struct.pack("!6Q", 4000, 8003, 11, 22, 3, 5)


def pma_seeds():
    ctx = pma_ctx()
    big = bytes([1]) + struct.pack("!6Q", 4 * 0xFFFFFFFF + 4, 1 << 62,
                                   1 << 32, 0xFFFFFFFF, 0x10000, 0xFFFF)
    seeds = {
        "cpi-get": mad(0x01, 0x0001, 0) + ctx,
        "pc-get": mad(0x01, 0x0012) + ctx,
        "pc-get-sat": mad(0x01, 0x0012) + big,
        "pce-get": mad(0x01, 0x001D) + ctx,
        "pce-get-big": mad(0x01, 0x001D) + big,
        # perfquery -R: Set with all counters selected and zero
        "pc-set": mad(0x02, 0x0012, tail=bytes(40)) + ctx,
        "pce-set": mad(0x02, 0x001D) + ctx,
        "cpi-set": mad(0x02, 0x0001) + ctx,
        "pc-port2": mad(0x01, 0x0012, 2) + ctx,
        "pce-allports": mad(0x01, 0x001D, 0xFF) + ctx,
        "samples-ctl": mad(0x01, 0x0010) + ctx,
        "cver2": mad(0x01, 0x0012, cver=2) + ctx,
        "getresp": mad(0x81, 0x0012) + ctx,
        "trap": mad(0x05, 0x0012) + ctx,
        "opa": mad(0x01, 0x0012, base=0x80) + ctx,
        "cm": mad(0x01, 0x0012, mclass=0x07) + ctx,
        "short": mad(0x01, 0x0012)[:40],
    }
    return seeds


def win_seeds():
    """win: the largest window 256 (SROCE_REQ_WINDOW), then 5-byte events
    (kind, argument; fuzz_win.c): a loss of 40 in flight and ACKs that
    let it grow back; a CNP's reduction shrunk by ACKs; a timeout whose
    cut is undone (kind 12: a cut, bit 3 a timeout)."""
    def e(kind, arg):
        return bytes([kind]) + struct.pack("!I", arg)
    cfg = struct.pack("!H", 255)
    acks = e(3, 8) * 40
    return {
        "loss": cfg + e(0, 40) + acks,
        "reduce": cfg + e(2, 100) + e(3, 1) * 30 + e(3, 200),
        "timeout-undo": cfg + e(12, 0) + e(3, 1) + e(5, 0) + acks,
    }


def main():
    vdir, out = sys.argv[1], sys.argv[2]
    corpora = packet_seeds(vdir)
    corpora["pfc_frame"] = pfc_frame_seeds()
    corpora["pfc_state"] = pfc_state_seeds()
    corpora["cc"] = cc_seeds()
    corpora["pma"] = pma_seeds()
    corpora["win"] = win_seeds()
    for target, seeds in corpora.items():
        d = os.path.join(out, target)
        os.makedirs(d, exist_ok=True)
        for old in os.listdir(d):
            os.remove(os.path.join(d, old))
        for name, data in seeds.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
