#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""pkt_fuzz.py - a seeded RoCE v2 packet fuzzer against live sroce QPs.

Runs in namespace fz2 of t-pktfuzz.sh.  It starts tests/datapath/dp_fuzzt
(the target: RC, SRQ, UC, UD and multicast QPs on sroce_fz1 with MRs
between canary and PROT_NONE pages and bound memory windows, each QP
paired with one on sroce_fz2), reads their QPNs, PSNs, rkeys and
addresses, and sends crafted packets with a correct ICRC (roce_craft.py)
from the peer's address (10.14.0.2, fz2) and from a third namespace's
(10.14.0.3, fz3).

  pkt_fuzz.py fuzz  SEED SECS   mutate every header field, length, pad,
                                PSN, QPN, rkey, VA and opcode sequence
  pkt_fuzz.py flood SEED SECS   READ requests and out-of-window packets at
                                every RC QP (dp_fuzzt -r NRC)
  pkt_fuzz.py gsi   SEED 0      what ib_core's MAD layer cannot take (an
                                unknown base version, longer than a MAD)
                                does not reach QP1's receive queue
  pkt_fuzz.py plan MODE NRC     how many tests a run reports

It prints KTAP test lines numbered from FZ_BASE + 1 (t-pktfuzz.sh prints
the plan).

Afterwards: every packet reached sroce_fz1 (rcvd_pkts), every drop that
recv.c decides from the headers alone is counted under the counter the
fuzzer's own model of those checks predicts, no byte outside the MRs (and
outside the windows of the window-only MR, and none of the READ-only MR)
changed, no MR or window was invalidated that a SEND with Invalidate may
not invalidate, a legitimate transfer on every QP is byte-exact, a type 2
window is reachable only through its own QP, and the kernel logged
nothing.  Flood: the memory held by queued packets stayed under the
bound (see Documentation/testing.rst, t-pktfuzz).

The seed is printed; a run is reproduced by the same SEED and SECS (the
packets are a function of the seed and of the QPNs, which dp_fuzzt
prints, but for the PSNs after a re-arm: its timing is not).  Environment: SROCE_HWC (hw
counters of sroce_fz1), FZ_SYSFS (its sysfs directory), FZ_TARGET
(dp_fuzzt), FZ_BLAST (dp_blast), FZ_NS3 (path of fz3's netns), FZ_GIDX / FZ_PGIDX (GID
indices), FZ_NRC (RC QPs), FZ_BOUND_MB (flood bound), FZ_PEER_BOUND (the
bound of sroce_fz2, in bytes), FZ_BASE.
"""

import ctypes
import json
import os
import random
import socket
import struct
import subprocess
import sys
import threading
import time
import zlib

import roce_craft as rc

TARGET, PEER, THIRD = '10.14.0.1', '10.14.0.2', '10.14.0.3'
GROUP = '239.1.2.9'
MTU = 1024
MAX_T = 1400          # transport bytes per packet (BTH..pad), below 1500
CLONE_NEWNET = 0x40000000

results = []
BASE = int(os.environ.get('FZ_BASE', '0'))   # number of the tests before


def plan(mode, nrc):
    """Tests a run of @mode with @nrc RC QPs reports."""
    if mode == 'gsi':
        return 5
    if mode == 'fuzz':
        return 4 + 10 + nrc + 5 + 2 + 2
    return 4 + 10 + nrc + 5 + 2 + 1


def check(name, ok, why=''):
    results.append(ok)
    if not ok and why:
        for line in str(why).splitlines():
            print('# ' + line)
    n = BASE + len(results)
    print(('ok %d %s' if ok else 'not ok %d %s') % (n, name))
    sys.stdout.flush()


def diag(msg):
    print('# ' + msg)
    sys.stdout.flush()


# ---- what recv.c decides from the headers (IBA 9.6.1 order) ----

# opcode -> (transport, header bytes incl. BTH, carries payload)
T_RC, T_UC, T_UD, T_CNP = 'rc', 'uc', 'ud', 'cnp'
# INT (kernel/proto/int.h): at most 5 records of 16 bytes after a 4-byte
# header; RC requests collect (type 1), responses echo (type 2).
INT_MAX_LEN = 4 + 5 * 16
INT_COLLECT_OPS = set(range(0x00, 0x0d)) | {0x13, 0x14, 0x16, 0x17}
B, R, A, AT, AK, D, I, IE, C = 12, 16, 4, 28, 8, 8, 4, 4, 16
OPS = {}
for _base, _t in ((0x00, T_RC), (0x20, T_UC)):
    for _o, _h, _p in ((0x00, B, 1), (0x01, B, 1), (0x02, B, 1),
                       (0x03, B + I, 1), (0x04, B, 1), (0x05, B + I, 1),
                       (0x06, B + R, 1), (0x07, B, 1), (0x08, B, 1),
                       (0x09, B + I, 1), (0x0a, B + R, 1),
                       (0x0b, B + R + I, 1)):
        OPS[_base + _o] = (_t, _h, _p)
OPS.update({0x0c: (T_RC, B + R, 0), 0x0d: (T_RC, B + A, 1),
            0x0e: (T_RC, B, 1), 0x0f: (T_RC, B + A, 1),
            0x10: (T_RC, B + A, 1), 0x11: (T_RC, B + A, 0),
            0x12: (T_RC, B + A + AK, 0), 0x13: (T_RC, B + AT, 0),
            0x14: (T_RC, B + AT, 0), 0x16: (T_RC, B + IE, 1),
            0x17: (T_RC, B + IE, 1), 0x64: (T_UD, B + D, 1),
            0x65: (T_UD, B + D + I, 1), 0x81: (T_CNP, B + C, 0)})

STATIC = ('rx_drop_malformed', 'rx_drop_unsupported', 'rx_icrc_encapsulated',
          'rx_drop_bad_pkey', 'rx_cnp', 'rx_drop_no_qp', 'rx_drop_qp_type',
          'rx_drop_no_mcast_group', 'np_ecn_marked_roce_packets',
          'rx_int_malformed', 'rx_int_ignored')
# Verdicts before the CE of a packet counts (recv.c, sroce_recv_verify()).
HEADER_BAD = ('rx_drop_malformed', 'rx_drop_unsupported',
              'rx_icrc_encapsulated', 'rx_drop_bad_pkey', 'rx_int_malformed')
# Counters of what the QPs did with the packets handed to them.
DEEP = ('rx_drop_qp_state', 'rx_drop_bad_addr', 'rx_drop_bad_qkey',
        'rx_drop_backlog', 'duplicate_request', 'out_of_sequence',
        'out_of_buffer', 'resp_remote_access_errors',
        'resp_local_length_error', 'resp_invalid_request', 'rx_drop_uc_msg',
        'comp_duplicate_response', 'comp_drop_invalid',
        'implied_nak_seq_err', 'packet_seq_err', 'rnr_nak_retry_err')


def int_verdict(t, hdr, fixed, pay, bad_icrc):
    """HPCC's INT bit on an RC opcode (kernel/recv.c, int.c): the drop
    counter, or None for a plain packet with the bit (rx_int_ignored).  A
    block after the headers that parses and leaves a valid packet is left
    out of the ICRC, which this packet's (over it all) then fails; the
    ICRC over the packet as it is then decides whether it is a plain one.
    Without such a block it is plain if that ICRC verifies."""
    n = len(t) + 4
    plain_ok = not (n < fixed or (n > fixed and not pay))
    blk = t[hdr:hdr + min(max(n - hdr - 4, 0), INT_MAX_LEN)]
    want = 0x10 | (1 if t[0] in INT_COLLECT_OPS else 2)
    has = (len(blk) >= 4 and blk[0] == want and blk[2:4] == b'\0\0' and
           blk[1] <= 5 and 4 + 16 * blk[1] <= len(blk))
    if has:
        m = n - (4 + 16 * blk[1])
        has = not (m < fixed or (m > fixed and not pay))
    if not plain_ok or bad_icrc:
        return 'rx_icrc_encapsulated' if has else 'rx_int_malformed'
    return None


def oracle(t, dst, bad_icrc, qtypes):
    """(counter recv.c must count @t (BTH..pad) under, or 'deliver';
    whether it also counts rx_int_ignored)."""
    v = oracle_recv(t, dst, bad_icrc, qtypes)
    return (v[0], True) if isinstance(v, tuple) else (v, False)


def oracle_recv(t, dst, bad_icrc, qtypes):
    """oracle()'s verdict, a tuple for a plain packet with the INT bit."""
    n = len(t) + 4
    if n < 16:
        return 'rx_drop_malformed'
    info = OPS.get(t[0])
    if info is None or t[1] & 0xf:
        return 'rx_drop_unsupported'
    tr, hdr, pay = info
    if n < hdr:
        return 'rx_drop_malformed'
    fixed = hdr + ((t[1] >> 4) & 3) + 4
    if t[4] & 0x10 and tr == T_RC:
        v = int_verdict(t, hdr, fixed, pay, bad_icrc)
        return v if v else (oracle_plain(t, dst, qtypes, tr),)
    if n < fixed or (n > fixed and not pay):
        return 'rx_drop_malformed'
    if bad_icrc:
        return 'rx_icrc_encapsulated'
    return oracle_plain(t, dst, qtypes, tr)


def oracle_plain(t, dst, qtypes, tr):
    """The verdict of a packet past its length and ICRC checks."""
    pkey = struct.unpack('!H', t[2:4])[0]
    if pkey & 0x7fff != 0x7fff:
        return 'rx_drop_bad_pkey'
    if tr == T_CNP:
        return 'rx_cnp'
    qpn = struct.unpack('!I', t[4:8])[0] & 0xffffff
    if qpn == 0xffffff:
        if tr != T_UD:
            return 'rx_drop_qp_type'
        if not (224 <= int(dst.split('.')[0]) <= 239):
            return 'rx_drop_no_qp'
        if dst != GROUP:
            return 'rx_drop_no_mcast_group'
        return 'deliver'
    qt = qtypes.get(qpn)
    if qt is None:
        return 'rx_drop_no_qp'
    if {'rc': T_RC, 'uc': T_UC, 'ud': T_UD, 'mc': T_UD}[qt] != tr:
        return 'rx_drop_qp_type'
    return 'deliver'


def wire_packet(src, dst, t, bad_icrc=False, tos=0x02, sport=0xc123):
    """IPv4/UDP/@t/ICRC as roce_craft.packet(), also for @t shorter than a
    BTH (the ICRC then masks only the variant bytes that exist)."""
    if len(t) >= 5:
        return rc.packet(src, dst, t, bad_icrc=bad_icrc, pad_to_4=False,
                         tos=tos, sport=sport)
    udp_len = 8 + len(t) + 4
    iph = bytearray(struct.pack('!BBHHHBBH4s4s', 0x45, tos, 20 + udp_len,
                                0x1234, 0x4000, 64, 17, 0,
                                socket.inet_aton(src), socket.inet_aton(dst)))
    struct.pack_into('!H', iph, 10, rc.ip_csum(iph))
    body = bytes(iph) + struct.pack('!HHHH', sport, rc.ROCE_PORT, udp_len,
                                    0) + t
    b = bytearray(body)
    b[1] = b[8] = b[10] = b[11] = b[26] = b[27] = 0xff
    crc = struct.pack('<I', zlib.crc32(b'\xff' * 8 + bytes(b)))
    if bad_icrc:
        crc = bytes([crc[0] ^ 0xff]) + crc[1:]
    return body + crc


# ---- the target ----

class Target:
    def __init__(self, nrc):
        cmd = [os.environ.get('FZ_TARGET', 'dp_fuzzt'),
               '-d', 'sroce_fz1', '-g', os.environ['FZ_GIDX'],
               '-D', 'sroce_fz2', '-G', os.environ['FZ_PGIDX'],
               '-m', GROUP, '-r', str(nrc)]
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True,
                                  bufsize=1)
        self.qps, self.mrs, self.mws = [], {}, {}
        for line in self.lines('ready'):
            w = line.split()
            if w[0] == 'qp':
                self.qps.append({'name': w[1], 'kind': w[2],
                                 'qpn': int(w[3]), 'rq_psn': int(w[4])})
            elif w[0] == 'mr':
                self.mrs[w[1]] = (int(w[2]), int(w[3]), int(w[4]))
            elif w[0] == 'mw':
                self.mws[w[1]] = (int(w[2]), int(w[3]), int(w[4]),
                                  int(w[5]))
            elif w[0] == 'qkey':
                self.qkey = int(w[1])

    def lines(self, end):
        out = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError('dp_fuzzt exited: %s' % out[-3:])
            line = line.rstrip('\n')
            if line == end:
                return out
            if line == 'fatal' or line.startswith('# '):
                print(line)
                if line == 'fatal':
                    raise RuntimeError('dp_fuzzt failed')
                continue
            out.append(line)

    def cmd(self, c):
        self.p.stdin.write(c + '\n')
        self.p.stdin.flush()
        return self.lines('done')

    def close(self):
        try:
            self.p.stdin.write('quit\n')
            self.p.stdin.flush()
        except OSError:
            pass
        self.p.wait(30)


# ---- counters, memory, kernel log ----

def counters():
    base = os.environ['SROCE_HWC']
    out = {}
    for name in os.listdir(base):
        with open(os.path.join(base, name)) as f:
            out[name] = int(f.read())
    return out


def softnet_dropped():
    n = 0
    with open('/proc/net/softnet_stat') as f:
        for line in f:
            n += int(line.split()[1], 16)
    return n


def kmsg_count():
    out = subprocess.run(['dmesg'], capture_output=True, text=True).stdout
    return out.splitlines()


def emulation_noise(line):
    """A kernel line about the guest's emulated CPU, not about sroce: TCG
    can stall a vCPU long enough for the hrtimer code to remark on it."""
    return 'hrtimer: interrupt took' in line


def meminfo():
    out = {}
    with open('/proc/meminfo') as f:
        for line in f:
            k, v = line.split(':')
            out[k] = int(v.split()[0]) * 1024
    return out


def slabinfo():
    """Bytes in each slab cache (active objects times object size)."""
    out = {}
    try:
        with open('/proc/slabinfo') as f:
            for line in f.readlines()[2:]:
                v = line.split()
                out[v[0]] = int(v[2]) * int(v[3])
    except OSError:
        pass
    return out


def grown(before, after, n=6):
    """The n entries that grew the most from before to after, as text."""
    d = sorted(((after[k] - before.get(k, 0), k) for k in after),
               reverse=True)[:n]
    return ', '.join('%s +%d' % (k, v) for v, k in d if v > 0)


def rxq_len_sum(link='sroce_fz1/1'):
    r = subprocess.run(['rdma', '-j', '-dd', 'resource', 'show', 'qp',
                        'link', link],
                       capture_output=True, text=True)
    try:
        qps = json.loads(r.stdout or '[]')
    except ValueError:
        return None
    total, seen = 0, False
    for q in qps:
        if 'drv_rxq_len' in q:
            seen = True
            total += int(q['drv_rxq_len'])
    return total if seen else None


# ---- sockets ----

def raw_socket():
    return socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)


def raw_socket_in(ns_path):
    """A raw socket of another network namespace (setns and back)."""
    libc = ctypes.CDLL(None, use_errno=True)
    own = os.open('/proc/self/ns/net', os.O_RDONLY)
    other = os.open(ns_path, os.O_RDONLY)
    try:
        if libc.setns(other, CLONE_NEWNET):
            raise OSError(ctypes.get_errno(), 'setns ' + ns_path)
        s = raw_socket()
        if libc.setns(own, CLONE_NEWNET):
            raise OSError(ctypes.get_errno(), 'setns back')
    finally:
        os.close(own)
        os.close(other)
    return s


# ---- packet generation ----

INTERESTING32 = (0, 1, 2, 3, 4, 7, 8, 0x3f, 0x40, 0x7f, 0x80, 0xff, 0x100,
                 0x3ff, 0x400, 0x401, 0xfff, 0x1000, 0xffff, 0x10000,
                 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff)


class Fuzzer:
    def __init__(self, seed, tgt, peer_sock, third_sock):
        self.rng = random.Random(seed)
        self.t = tgt
        self.socks = (peer_sock, third_sock)
        self.qtypes = {q['qpn']: q['kind'] for q in tgt.qps}
        self.qtypes[1] = 'ud'         # QP1 (GSI) answers UD opcodes
        self.epsn = {}
        self.rearmed()
        self.sent = 0
        self.expect = {}
        self.from_third = 0
        self.by_kind = {}
        self.keys = [v[2] for v in tgt.mrs.values()] + \
                    [v[2] for v in tgt.mws.values()]
        # (addr, len) a remote access may aim at, per rkey
        self.areas = {}
        for v in tgt.mrs.values():
            self.areas[v[2]] = (v[0], v[1])
        for v in tgt.mws.values():
            self.areas[v[2]] = (v[0], v[1])

    def rearmed(self):
        for q in self.t.qps:
            self.epsn[q['qpn']] = q['rq_psn']

    # -- field choices --
    def r32(self):
        g = self.rng
        c = g.random()
        if c < 0.5:
            return g.choice(INTERESTING32)
        return g.getrandbits(32)

    def rkey(self):
        g = self.rng
        k = g.choice(self.keys)
        c = g.random()
        if c < 0.7:
            return k
        if c < 0.8:
            return k ^ (1 << g.randrange(32))
        if c < 0.9:
            return (k & ~0xff) | g.randrange(256)
        return self.r32()

    def va_len(self, rkey, want=None):
        g = self.rng
        addr, size = self.areas.get(rkey, (g.getrandbits(48), 4096))
        ln = want if want is not None else g.choice(
            (0, 1, 8, 64, MTU - 1, MTU, MTU + 1, 3000, size, size - 1,
             size + 1, g.randrange(1, 2 * MTU), self.r32()))
        ln &= 0xffffffff
        c = g.random()
        if c < 0.45:
            va = addr + g.randrange(max(1, size - min(ln, size) + 1))
        elif c < 0.55:
            va = addr + size - ln
        elif c < 0.6:
            va = addr + size - ln + g.randrange(1, 9)
        elif c < 0.65:
            va = addr - g.randrange(1, 65)
        elif c < 0.7:
            va = addr + size
        elif c < 0.75:
            va = (addr + g.randrange(size)) & ~7
        elif c < 0.8:
            va = g.choice((0, 2 ** 64 - 1, 2 ** 64 - ln, 2 ** 63))
        elif c < 0.85:
            va = addr + size - 8 + g.randrange(8)
        else:
            va = g.getrandbits(64) if g.random() < 0.3 else \
                addr + g.randrange(-4096, size + 4096)
        return va & (2 ** 64 - 1), ln

    def psn(self, qpn):
        g = self.rng
        e = self.epsn.get(qpn, g.getrandbits(24))
        c = g.random()
        if c < 0.65:
            d = 0
        elif c < 0.78:
            d = -g.randrange(1, 6)
        elif c < 0.86:
            d = g.randrange(1, 12)
        elif c < 0.9:
            d = g.choice((2 ** 23 - 1, 2 ** 23, 2 ** 23 + 1, -2 ** 23))
        else:
            return g.getrandbits(24)
        return (e + d) & 0xffffff

    def payload(self, n):
        return bytes(self.rng.getrandbits(8) for _ in range(n)) \
            if n < 64 else self.rng.randbytes(n)

    # -- messages: lists of (transport, is_request, psn_advance) --
    def qp(self):
        g = self.rng
        c = g.random()
        if c < 0.9:
            return g.choice(self.t.qps)
        if c < 0.95:
            return {'name': 'qp1', 'kind': 'ud', 'qpn': 1, 'rq_psn': 0}
        return {'name': 'none', 'kind': g.choice(('rc', 'uc', 'ud')),
                'qpn': g.getrandbits(24), 'rq_psn': 0}

    def bth(self, op, qpn, psn, ackreq=None):
        g = self.rng
        if ackreq is None:
            ackreq = g.random() < 0.5
        return rc.bth(op, qpn, psn, se=g.random() < 0.2, ackreq=ackreq)

    def msg_rc_like(self, q):
        g = self.rng
        qpn, base = q['qpn'], 0x00 if q['kind'] == 'rc' else 0x20
        psn = self.psn(qpn)
        kinds = ['send', 'write', 'send_multi', 'write_multi']
        if q['kind'] == 'rc':
            kinds += ['read', 'read', 'atomic', 'atomic', 'resp', 'resp',
                      'ack', 'ack', 'inv']
        k = g.choice(kinds)
        self.by_kind[k] = self.by_kind.get(k, 0) + 1
        if k == 'send':
            op = base + g.choice((0x04, 0x05))
            ext = rc.imm(self.r32()) if op & 1 else b''
            n = g.choice((0, 1, 16, MTU, g.randrange(MTU + 1)))
            return [(self.bth(op, qpn, psn) + ext + self.payload(n), 1)]
        if k == 'inv':
            op = g.choice((0x16, 0x17))
            return [(self.bth(op, qpn, psn) + struct.pack('!I', self.rkey())
                     + self.payload(g.randrange(64)), 1)]
        if k == 'write':
            op = base + g.choice((0x0a, 0x0b))
            key = self.rkey()
            va, ln = self.va_len(key)
            n = min(ln, MTU) if g.random() < 0.8 else g.randrange(MTU + 1)
            ext = rc.imm(self.r32()) if op == base + 0x0b else b''
            return [(self.bth(op, qpn, psn) + rc.reth(va, key, ln) + ext +
                     self.payload(n), 1)]
        if k in ('send_multi', 'write_multi'):
            npk = g.randrange(2, 7)
            ln = (npk - 1) * MTU + g.randrange(1, MTU + 1)
            if k == 'write_multi':
                key = self.rkey()
                va, ln = self.va_len(key, ln)
                first = self.bth(base + 0x06, qpn, psn) + \
                    rc.reth(va, key, ln)
                mid, last = base + 0x07, base + g.choice((0x08, 0x09))
            else:
                first = self.bth(base + 0x00, qpn, psn)
                mid, last = base + 0x01, base + g.choice((0x02, 0x03))
            out = [(first + self.payload(MTU), 1)]
            for i in range(1, npk - 1):
                out.append((self.bth(mid, qpn, psn + i) +
                            self.payload(MTU), 1))
            ext = rc.imm(self.r32()) if last & 1 else b''
            out.append((self.bth(last, qpn, psn + npk - 1) + ext +
                        self.payload(ln - (npk - 1) * MTU), 1))
            # a run with a packet left out, doubled or swapped
            c = g.random()
            if c < 0.1 and len(out) > 2:
                del out[g.randrange(1, len(out) - 1)]
            elif c < 0.2:
                out.insert(g.randrange(len(out)), g.choice(out))
            elif c < 0.3:
                i = g.randrange(len(out) - 1)
                out[i], out[i + 1] = out[i + 1], out[i]
            return out
        if k == 'read':
            key = self.rkey()
            va, ln = self.va_len(key)
            adv = max(1, (min(ln, 1 << 20) + MTU - 1) // MTU)
            return [(self.bth(0x0c, qpn, psn) + rc.reth(va, key, ln), adv)]
        if k == 'atomic':
            key = self.rkey()
            va, _ = self.va_len(key, 8)
            if g.random() < 0.7:
                va &= ~7
            return [(self.bth(g.choice((0x13, 0x14)), qpn, psn) +
                     rc.atmeth(va, key, g.getrandbits(64),
                               g.getrandbits(64)), 1)]
        # responses to the target's requester: it has nothing outstanding
        rpsn = g.choice((0, 1, 0xffffff, g.getrandbits(24)))
        syn = g.choice((0x00, 0x1f, 0x20, 0x3f, 0x40, 0x60, 0x61, 0x62,
                        0x63, 0x64, 0x7f, g.getrandbits(8)))
        aeth = struct.pack('!I', (syn << 24) | g.getrandbits(24))
        if k == 'ack':
            op = g.choice((0x11, 0x12))
            ext = struct.pack('!Q', g.getrandbits(64)) if op == 0x12 else b''
            return [(rc.bth(op, qpn, rpsn) + aeth + ext, 0)]
        op = g.choice((0x0d, 0x0e, 0x0f, 0x10))
        pre = b'' if op == 0x0e else aeth
        return [(rc.bth(op, qpn, rpsn) + pre +
                 self.payload(g.randrange(MTU + 1)), 0)]

    def msg_ud(self, q):
        g = self.rng
        op = g.choice((0x64, 0x65))
        qkey = self.t.qkey if g.random() < 0.7 else \
            g.choice((0x80010000, self.r32()))
        ext = rc.imm(self.r32()) if op == 0x65 else b''
        n = g.choice((0, 1, 40, 1000, g.randrange(MAX_T - 24)))
        return [(rc.bth(op, q['qpn'], g.getrandbits(24),
                        se=g.random() < 0.3) +
                 rc.deth(qkey, g.getrandbits(24)) + ext + self.payload(n),
                 0)]

    def msg_cnp(self, q):
        return [(rc.bth(rc.CNP, q['qpn'], 0, becn=True) + b'\0' * 16, 0)]

    def message(self):
        g = self.rng
        q = self.qp()
        c = g.random()
        if c < 0.04:
            return q, self.msg_cnp(q), False
        if q['kind'] == 'mc' or (q['kind'] == 'ud' and c < 0.3):
            mq = dict(q)
            if q['kind'] == 'mc' or g.random() < 0.5:
                mq['qpn'] = 0xffffff
                return mq, self.msg_ud(mq), True
            return q, self.msg_ud(q), False
        if q['kind'] == 'ud':
            return q, self.msg_ud(q), False
        return q, self.msg_rc_like(q), False

    # -- mutations on the wire bytes --
    def mutate(self, t):
        g = self.rng
        t = bytearray(t)
        for _ in range(g.randrange(1, 4)):
            c = g.random()
            if c < 0.2 and t:
                i = g.randrange(len(t))
                t[i] ^= 1 << g.randrange(8)
            elif c < 0.3 and t:
                t[g.randrange(len(t))] = g.getrandbits(8)
            elif c < 0.4 and len(t) > 0:
                t[0] = g.choice(list(OPS)) if g.random() < 0.7 else \
                    g.getrandbits(8)
            elif c < 0.5 and len(t) > 1:
                t[1] = (t[1] & 0xcf) | (g.randrange(4) << 4)
            elif c < 0.53 and len(t) > 1:
                t[1] = (t[1] & 0xf0) | g.randrange(16)
            elif c < 0.58 and len(t) > 3:
                struct.pack_into('!H', t, 2, g.choice(
                    (0x7fff, 0xffff, 0, 0x8001, g.getrandbits(16))))
            elif c < 0.65 and len(t) > 7:
                t[5:8] = g.getrandbits(24).to_bytes(3, 'big') \
                    if g.random() < 0.5 else \
                    g.choice(list(self.qtypes)).to_bytes(3, 'big')
            elif c < 0.7 and len(t) > 11:
                t[4] ^= g.getrandbits(8)      # FECN/BECN/resv6a
                t[8] ^= g.getrandbits(8)      # AckReq/resv7
            elif c < 0.8:
                del t[g.randrange(len(t) + 1):]
            elif c < 0.88:
                t += self.payload(g.choice((1, 2, 3, 4, 16, 64)))
            elif c < 0.94 and len(t) > 12:
                i = g.randrange(12, len(t))
                t[i:i] = self.payload(g.randrange(1, 9))
            elif len(t) >= 16:
                i = g.randrange(12, len(t) - 3)
                struct.pack_into('!I', t, i, self.r32())
        return bytes(t[:MAX_T])

    # -- sending --
    def emit(self, t, dst, third, bad_icrc=False):
        g = self.rng
        s = self.socks[1 if third else 0]
        src = THIRD if third else PEER
        # ECN CE now and then (the NP answers with a CNP), any UDP port
        tos = 0x03 if g.random() < 0.05 else 0x02
        sport = g.getrandbits(16) if g.random() < 0.3 else 0xc123
        pkt = wire_packet(src, dst, t, bad_icrc, tos, sport)
        try:
            s.sendto(pkt, (dst, 0))
        except OSError as e:
            diag('sendto: %s' % e)
            return
        self.sent += 1
        self.from_third += third
        v, ignored = oracle(t, dst, bad_icrc, self.qtypes)
        self.expect[v] = self.expect.get(v, 0) + 1
        if ignored:
            k = 'rx_int_ignored'
            self.expect[k] = self.expect.get(k, 0) + 1
        if tos == 0x03 and v not in HEADER_BAD:
            k = 'np_ecn_marked_roce_packets'
            self.expect[k] = self.expect.get(k, 0) + 1

    def step(self):
        g = self.rng
        q, msg, mcast = self.message()
        third = g.random() < 0.15
        dst = TARGET
        if mcast:
            dst = GROUP
        mutate_one = g.random() < 0.5
        victim = g.randrange(len(msg))
        advance = True
        for i, (t, adv) in enumerate(msg):
            bad = False
            if mutate_one and i == victim:
                t = self.mutate(t)
                advance = False
                bad = g.random() < 0.05
            self.emit(t, dst, third, bad)
        if advance and not third and q['qpn'] in self.epsn and \
                msg[0][1] and struct.unpack('!I', msg[0][0][8:12])[0] \
                & 0xffffff == self.epsn[q['qpn']]:
            self.epsn[q['qpn']] = (self.epsn[q['qpn']] +
                                   sum(a for _, a in msg)) & 0xffffff


def guard(tgt, when):
    for line in tgt.cmd('guard'):
        w = line.split()
        what = 'no byte outside what %s may change changed' % w[1]
        if w[1] == 'inval':
            what = 'no MR or window invalidated that a SEND with ' \
                'Invalidate may not invalidate'
        check('%s: %s' % (when, what), w[2] == 'ok', line)


def legit(tgt, when):
    for line in tgt.cmd('legit'):
        w = line.split()
        check('%s: legitimate transfer on %s byte-exact' % (when, w[1]),
              w[2] == 'ok', line)


def delta(a, b):
    return {k: b.get(k, 0) - a.get(k, 0) for k in b}


def nonzero(d):
    return {k: v for k, v in sorted(d.items()) if v}


def run_fuzz(seed, secs):
    nrc = int(os.environ.get('FZ_NRC', '4'))
    tgt = Target(nrc)
    diag('seed %d, %d s; reproduce: FZ_SEED=%d FZ_SECS=%d '
         'tests/integration/run.sh t-pktfuzz' % (seed, secs, seed, secs))
    diag('QPs: ' + ' '.join('%s=%d' % (q['name'], q['qpn'])
                            for q in tgt.qps))
    fz = Fuzzer(seed, tgt, raw_socket(), raw_socket_in(os.environ['FZ_NS3']))
    log0 = kmsg_count()
    c0, sd0 = counters(), softnet_dropped()
    # Every 2 s, while packets keep coming: each QP through RESET to RTS.
    stats = {'nerr': 0, 'ncqe': 0, 'rearms': 0}
    stop = threading.Event()

    def rearmer():
        while not stop.wait(2.0):
            w = tgt.cmd('rearm')[0].split()
            stats['nerr'] += int(w[1])
            stats['ncqe'] += int(w[2])
            stats['rearms'] += 1
            fz.rearmed()

    th = threading.Thread(target=rearmer, daemon=True)
    th.start()
    end = time.time() + secs
    while time.time() < end:
        for _ in range(32):
            fz.step()
        time.sleep(0.002)          # stay below the veth backlog
    stop.set()
    th.join()
    nerr, ncqe, rearms = stats['nerr'], stats['ncqe'], stats['rearms']
    time.sleep(1.0)
    c1, sd1 = counters(), softnet_dropped()
    d = delta(c0, c1)
    lost = sd1 - sd0
    diag('sent %d packets (%d from the third namespace), %d re-arms found '
         '%d QPs in ERR, %d completions drained' %
         (fz.sent, fz.from_third, rearms, nerr, ncqe))
    diag('messages by kind: %s' % fz.by_kind)
    diag('model: %s' % dict(sorted(fz.expect.items())))
    diag('counters: %s' % {k: v for k, v in sorted(d.items()) if v})
    check('every packet reached sroce_fz1 (rcvd_pkts == sent - backlog '
          'drops)', d['rcvd_pkts'] == fz.sent - lost,
          'rcvd_pkts +%d, sent %d, softnet dropped %d' %
          (d['rcvd_pkts'], fz.sent, lost))
    bad = ['%s: +%d, model %d' % (k, d.get(k, 0), fz.expect.get(k, 0))
           for k in STATIC if d.get(k, 0) != fz.expect.get(k, 0)]
    check('header drops counted as the model of recv.c predicts', not bad,
          '\n'.join(bad))
    deliver = fz.expect.get('deliver', 0)
    diag('handed to QPs: %d; what the QPs counted: %s' %
         (deliver, {k: d.get(k, 0) for k in DEEP if d.get(k, 0)}))
    check('no packet dropped for want of memory (rx_drop_mcast_nomem, '
          'rx_drop_backlog)', not d.get('rx_drop_mcast_nomem', 0) and
          not d.get('rx_drop_backlog', 0), nonzero(d))
    check('multicast copies only of packets to the group',
          d.get('rx_mcast_pkts', 0) <= fz.expect.get('deliver', 0))
    guard(tgt, 'after fuzzing')
    legit(tgt, 'after fuzzing')
    for line in tgt.cmd('xqp'):
        w = line.split()
        check({'access': 'a WRITE through a type 2 window on another QP '
                         'than its own is refused',
               'inval': 'a SEND with Invalidate of a type 2 window on '
                        'another QP than its own fails'}[w[1]],
              w[2] == 'ok:', line)
    guard(tgt, 'after the transfers')
    log1 = kmsg_count()
    new = [x for x in log1[len(log0):] if not emulation_noise(x)]
    check('the kernel logged nothing', not new, '\n'.join(new[:20]))
    tgt.close()
    check('dp_fuzzt exited cleanly', tgt.p.returncode == 0,
          tgt.p.returncode)


SYSFS_BOUND = os.path.join(os.environ.get(
    'FZ_SYSFS', '/sys/class/infiniband/sroce_fz1'), 'rx_queue_max_bytes')
TRUESIZE_MIN = MTU      # an skb holds at least its 1024-byte payload


RX_DELAY_US = 100000    # the largest rx_delay_us the device takes


def set_knob(name, val):
    with open(os.path.join(os.path.dirname(SYSFS_BOUND), name), 'w') as f:
        f.write(str(val))


class Sampler(threading.Thread):
    """Peak of the queued packets and of the memory used, during a flood."""

    def __init__(self):
        super().__init__(daemon=True)
        self.stop = False
        self.rxq_max = 0
        self.peer_rxq_max = 0
        self.samples = 0
        self.used_max = 0
        self.slab_max = 0
        m = meminfo()
        self.avail0, self.slab0 = m['MemAvailable'], m['Slab']
        self.mem0, self.slabs0 = m, slabinfo()
        self.peak = ''

    def run(self):
        while not self.stop:
            m = meminfo()
            if self.avail0 - m['MemAvailable'] > self.used_max:
                self.used_max = self.avail0 - m['MemAvailable']
                # Where the memory went at the peak, for the diagnostics.
                self.peak = 'meminfo: %s; slab: %s' % (
                    grown(self.mem0, m), grown(self.slabs0, slabinfo()))
            self.slab_max = max(self.slab_max, m['Slab'] - self.slab0)
            n = rxq_len_sum()
            if n is not None:
                self.rxq_max = max(self.rxq_max, n)
                self.samples += 1
            n = rxq_len_sum('sroce_fz2/1')
            if n is not None:
                self.peer_rxq_max = max(self.peer_rxq_max, n)
            time.sleep(0.25)


def run_flood(seed, secs):
    nrc = int(os.environ.get('FZ_NRC', '128'))
    tgt = Target(nrc)
    rcqs = [q for q in tgt.qps if q['kind'] == 'rc']
    diag('seed %d, %d s, %d RC QPs; reproduce: FZ_SEED=%d FZ_FLOOD_SECS=%d '
         'tests/integration/run.sh t-pktfuzz' % (seed, secs, len(rcqs),
                                                 seed, secs))
    bound = int(os.environ.get('FZ_BOUND_MB', '2')) << 20
    if os.path.exists(SYSFS_BOUND):
        with open(SYSFS_BOUND, 'w') as f:
            f.write(str(bound))
        with open(SYSFS_BOUND) as f:
            bound = int(f.read())
        diag('device bound rx_queue_max_bytes set to %d' % bound)
    else:
        diag('no %s: asserting the bound %d a global limit must keep' %
             (SYSFS_BOUND, bound))
    rng = random.Random(seed)
    key, (addr, size) = tgt.mrs['rw'][2], tgt.mrs['rw'][:2]
    pkts, reads = [], 0
    pay = rng.randbytes(MTU)
    # Per QP: READs of up to the whole MR in sequence and behind it
    # (duplicates: replayed from the history), out-of-window WRITEs.
    for rnd in range(24):
        for q in rcqs:
            qpn, e = q['qpn'], q['rq_psn']
            c = rng.random()
            if c < 0.2:
                ln = rng.choice((MTU, 4 * MTU, 16 * MTU, size - 64))
                t = rc.bth(rc.RC_READ_REQ, qpn, e + 64 * rnd) + \
                    rc.reth(addr + rng.randrange(size - ln + 1), key, ln)
                reads += 1
            elif c < 0.35:
                t = rc.bth(rc.RC_READ_REQ, qpn, (e - rng.randrange(1, 64))
                           & 0xffffff) + rc.reth(addr, key, MTU)
                reads += 1
            else:
                t = rc.bth(rc.RC_WRITE_MIDDLE, qpn,
                           (e + 1000 + rng.randrange(1 << 20)) & 0xffffff) \
                    + pay
            pkts.append(rc.packet(PEER, TARGET, t))
    path = '/tmp/pkt_fuzz_flood.%d' % os.getpid()
    with open(path, 'wb') as f:
        for p in pkts:
            f.write(struct.pack('!H', len(p)) + p)
    log0 = kmsg_count()
    c0 = counters()
    samp = Sampler()
    samp.start()
    # A busy receiver: the receive work sleeps before each packet (testing
    # knob rx_delay_us, pfc.rst), so that packets really wait in the
    # queues, as behind a host that cannot keep up with its peer.
    set_knob('rx_delay_us', RX_DELAY_US)
    r = subprocess.run([os.environ.get('FZ_BLAST', 'dp_blast'), path,
                        str(secs)], capture_output=True, text=True)
    set_knob('rx_delay_us', 0)
    os.unlink(path)
    out = dict(line.split() for line in r.stdout.splitlines())
    sent = int(out.get('sent', 0))
    diag('dp_blast: %s %s' % (r.stdout.replace('\n', ' '), r.stderr))
    t_end = time.time()
    while time.time() < t_end + 30 and rxq_len_sum():
        time.sleep(0.2)
    time.sleep(0.5)
    samp.stop = True
    samp.join()
    left = rxq_len_sum()
    d = delta(c0, counters())
    diag('sent %d packets (a set of %d, %d READ requests) in %d s to %d '
         'QPs' % (sent, len(pkts), reads, secs, len(rcqs)))
    diag('peak: %d packets queued (>= %d bytes), MemAvailable -%d, '
         'Slab +%d' % (samp.rxq_max, samp.rxq_max * TRUESIZE_MIN,
                       samp.used_max, samp.slab_max))
    diag('counters: %s' % {k: v for k, v in sorted(d.items()) if v})
    diag('at the peak, grown most: %s' % samp.peak)
    diag('the peer queued at most %d packets (the READ responses)' %
         samp.peer_rxq_max)
    held = samp.rxq_max * TRUESIZE_MIN
    check('queued packets held under the bound (%d bytes)' % bound,
          samp.samples and held <= bound + 2 * len(rcqs) * 4096,
          '%d packets queued at the peak: at least %d bytes (%d samples '
          'of rxq_len)' % (samp.rxq_max, held, samp.samples))
    # The READ responses queue on the peer's device, under its own bound.
    peer_bound = int(os.environ.get('FZ_PEER_BOUND') or '0')
    check('memory used during the flood under both devices\' bounds plus '
          '64 MiB', samp.used_max <= bound + peer_bound + (64 << 20),
          'MemAvailable fell by %d (bounds %d + %d)' %
          (samp.used_max, bound, peer_bound))
    check('the receive queues drained after the flood', left == 0,
          '%s packets still queued' % left)
    check('every packet received was counted (rcvd_pkts)',
          0 < d['rcvd_pkts'] <= sent, '%d of %d' % (d['rcvd_pkts'], sent))
    check('READ requests were answered during the flood',
          d.get('sent_pkts', 0) > 0, d.get('sent_pkts', 0))
    # What the flood left in the transmit queues goes out first.
    last, t0 = -1, time.time()
    while time.time() < t0 + 60:
        now = counters()['sent_pkts']
        if now == last:
            break
        last = now
        time.sleep(1.0)
    tgt.cmd('rearm')
    guard(tgt, 'after the flood')
    legit(tgt, 'after the flood')
    guard(tgt, 'after the transfers')
    new = [x for x in kmsg_count()[len(log0):] if not emulation_noise(x)]
    check('the kernel logged nothing', not new, '\n'.join(new[:20]))
    tgt.close()
    check('dp_fuzzt exited cleanly', tgt.p.returncode == 0,
          tgt.p.returncode)


QP1_QKEY = 0x80010000
MAD_RQ = 512            # ib_mad's default receive queue of QP1 (mad_recvq_size)


def mad(base_version, size=256):
    """A MAD of @size bytes: a Get of ClassPortInfo of the CM class."""
    hdr = struct.pack('!BBBBHHQHH', base_version, 0x07, 2, 0x01, 0, 0,
                      0x1234, 0x0001, 0)
    return hdr + b'\0' * (size - len(hdr))


def run_gsi(seed, secs):
    """QP1 is ib_core's: what it cannot take must not reach it."""
    del secs
    s = raw_socket()

    def to_qp1(payload, n=1):
        for i in range(n):
            t = rc.bth(rc.UD_SEND_ONLY, 1, (seed + i) & 0xffffff) + \
                rc.deth(QP1_QKEY, 1) + payload
            s.sendto(rc.packet(PEER, TARGET, t), (TARGET, 0))
            if i % 64 == 63:
                time.sleep(0.05)
        time.sleep(0.5)

    log0 = kmsg_count()
    c0 = counters()
    to_qp1(mad(0x34), 3)
    new = kmsg_count()[len(log0):]
    d = delta(c0, counters())
    check('QP1: MADs of an unknown base version log nothing', not new,
          '\n'.join(new[:5]))
    check('... and are dropped and counted (rx_drop_bad_mad)',
          d.get('rx_drop_bad_mad', 0) == 3, nonzero(d))
    # ib_mad takes a receive error for a QP in error: it neither reposts
    # nor frees that buffer.  Longer packets than a MAD must not use up
    # QP1's receive queue.
    c0 = counters()
    to_qp1(mad(1, 300), MAD_RQ + 16)
    c1 = counters()
    to_qp1(mad(1), 4)
    d, d2 = delta(c0, c1), delta(c1, counters())
    check('QP1: %d packets longer than a MAD dropped and counted' %
          (MAD_RQ + 16), d.get('rx_drop_bad_mad', 0) == MAD_RQ + 16,
          nonzero(d))
    check('... and QP1 still receives MADs (no out_of_buffer)',
          d2.get('out_of_buffer', 0) == 0, nonzero(d2))
    # ib_mad takes 256 bytes of the buffer whatever was received: the
    # rest of a short one is an earlier MAD, which an answer would echo.
    c0 = counters()
    to_qp1(mad(1, 24), 8)
    d = delta(c0, counters())
    check('QP1: 8 MADs shorter than 256 bytes dropped and counted',
          d.get('rx_drop_bad_mad', 0) == 8, nonzero(d))


def main():
    if sys.argv[1] == 'plan':
        print(plan(sys.argv[2], int(sys.argv[3])))
        return
    mode, seed, secs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    try:
        if mode == 'fuzz':
            run_fuzz(seed, secs)
        elif mode == 'gsi':
            run_gsi(seed, secs)
        else:
            run_flood(seed, secs)
    except Exception as e:      # a crash of the fuzzer is a failure too
        import traceback
        check('%s run completed' % mode, False,
              ''.join(traceback.format_exception(e)))
    sys.exit(0 if all(results) else 1)


if __name__ == '__main__':
    main()
