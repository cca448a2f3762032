# SPDX-License-Identifier: GPL-2.0
"""roce_craft - build, send and sniff RoCE v2 packets by hand.

Used by the receive-path and responder tests: the test plays the remote
requester itself, byte by byte, so every reaction of the device under test
(ACK, NAK, READ response, atomic ACK, silence) can be checked on the wire.

Packets go out through a raw IPv4 socket (IP_HDRINCL: we write the IP
header, so the ICRC covers exactly what is sent) and replies are read from
an AF_PACKET socket on the sending interface.  The ICRC follows IBA Annex
A17: CRC-32 over 8 bytes of 0xff, the IP/UDP/BTH headers with the variant
fields (TOS, TTL, IP checksum, UDP checksum, BTH FECN/BECN/resv6a byte)
set to all-ones, then the rest of the packet; little-endian on the wire.
"""

import select
import socket
import struct
import time
import zlib

ROCE_PORT = 4791
ETH_P_IP = 0x0800
SO_TIMESTAMPNS = getattr(socket, 'SO_TIMESTAMPNS', 35)

# Opcodes (IBA Table 36, Annex A17)
RC_SEND_FIRST = 0x00
RC_SEND_MIDDLE = 0x01
RC_SEND_LAST = 0x02
RC_SEND_LAST_IMM = 0x03
RC_SEND_ONLY = 0x04
RC_SEND_ONLY_IMM = 0x05
RC_WRITE_FIRST = 0x06
RC_WRITE_MIDDLE = 0x07
RC_WRITE_LAST = 0x08
RC_WRITE_ONLY = 0x0a
RC_WRITE_ONLY_IMM = 0x0b
RC_READ_REQ = 0x0c
RC_READ_RESP_FIRST = 0x0d
RC_READ_RESP_MIDDLE = 0x0e
RC_READ_RESP_LAST = 0x0f
RC_READ_RESP_ONLY = 0x10
RC_ACK = 0x11
RC_ATOMIC_ACK = 0x12
RC_CMP_SWAP = 0x13
RC_FETCH_ADD = 0x14
UC_SEND_FIRST = 0x20
UC_SEND_MIDDLE = 0x21
UC_SEND_LAST = 0x22
UC_SEND_ONLY = 0x24
UD_SEND_ONLY = 0x64
UD_SEND_ONLY_IMM = 0x65
CNP = 0x81


def ip_csum(hdr):
    s = 0
    for i in range(0, len(hdr), 2):
        s += (hdr[i] << 8) | hdr[i + 1]
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def bth(opcode, dqpn, psn, se=False, pad=0, ackreq=False, pkey=0xffff,
        tver=0, becn=False):
    flags = (0x80 if se else 0) | ((pad & 3) << 4) | (tver & 0xf)
    qpw = (dqpn & 0xffffff) | (0x40000000 if becn else 0)
    apsn = (psn & 0xffffff) | (0x80000000 if ackreq else 0)
    return struct.pack('!BBHII', opcode, flags, pkey, qpw, apsn)


def reth(va, rkey, length):
    return struct.pack('!QII', va, rkey, length)


def atmeth(va, rkey, swap_add, compare=0):
    return struct.pack('!QIQQ', va, rkey, swap_add, compare)


def deth(qkey, sqpn):
    return struct.pack('!II', qkey, sqpn & 0xffffff)


def imm(value):
    return struct.pack('!I', value)


def icrc(ip_udp_bth_rest, ihl):
    """ICRC of IPv4 header + UDP + BTH + rest (pad included)."""
    b = bytearray(ip_udp_bth_rest)
    b[1] = 0xff                     # TOS
    b[8] = 0xff                     # TTL
    b[10] = b[11] = 0xff            # IP checksum
    u = ihl
    b[u + 6] = b[u + 7] = 0xff      # UDP checksum
    b[u + 8 + 4] = 0xff             # FECN/BECN/resv6a
    return struct.pack('<I', zlib.crc32(b'\xff' * 8 + bytes(b)))


def packet(src, dst, transport, sport=0xc123, tos=0x02, bad_icrc=False,
           pad_to_4=True, ident=0x1234):
    """Full IPv4 packet: IP/UDP/transport(+pad)/ICRC."""
    if pad_to_4 and len(transport) % 4:
        pad = 4 - len(transport) % 4
        transport = bytearray(transport + b'\0' * pad)
        transport[1] = (transport[1] & 0xcf) | (pad << 4)
        transport = bytes(transport)
    udp_len = 8 + len(transport) + 4
    tot = 20 + udp_len
    iph = bytearray(struct.pack('!BBHHHBBH4s4s', 0x45, tos, tot, ident,
                                0x4000, 64, 17, 0,
                                socket.inet_aton(src), socket.inet_aton(dst)))
    struct.pack_into('!H', iph, 10, ip_csum(iph))
    udph = struct.pack('!HHHH', sport, ROCE_PORT, udp_len, 0)
    body = bytes(iph) + udph + transport
    crc = icrc(body, 20)
    if bad_icrc:
        crc = bytes([crc[0] ^ 0xff]) + crc[1:]
    return body + crc


class Wire:
    """Send crafted packets from @src to @dst, sniff replies on @ifname."""

    def __init__(self, src, dst, ifname):
        self.src, self.dst = src, dst
        self.tx = socket.socket(socket.AF_INET, socket.SOCK_RAW,
                                socket.IPPROTO_RAW)
        self.rx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                                socket.htons(ETH_P_IP))
        self.rx.bind((ifname, ETH_P_IP))
        self.rx.setblocking(False)
        # Kernel receive timestamps: 'time' of a reply is its arrival.
        self.rx.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)

    def send(self, transport, **kw):
        self.tx.sendto(packet(self.src, self.dst, transport, **kw),
                       (self.dst, 0))

    def drain(self):
        try:
            while True:
                self.rx.recv(65535)
        except BlockingIOError:
            pass

    def replies(self, want=1, timeout=2.0):
        """RoCE v2 packets from dst to src: list of (bth dict, rest)."""
        out = []
        end = time.time() + timeout
        while len(out) < want:
            left = end - time.time()
            if left <= 0:
                break
            r, _, _ = select.select([self.rx], [], [], left)
            if not r:
                break
            try:
                frame, anc, _, _ = self.rx.recvmsg(65535, 256)
            except BlockingIOError:
                continue
            when = time.time()
            for level, kind, data in anc:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    sec, nsec = struct.unpack('=qq', data[:16])
                    when = sec + nsec / 1e9
            p = frame[14:]
            if len(p) < 20 or p[9] != 17:
                continue
            ihl = (p[0] & 0xf) * 4
            if socket.inet_ntoa(p[12:16]) != self.dst:
                continue
            dport = struct.unpack('!H', p[ihl + 2:ihl + 4])[0]
            if dport != ROCE_PORT:
                continue
            tot = struct.unpack('!H', p[2:4])[0]
            p = p[:tot]
            t = p[ihl + 8:]
            op, flags, pkey, qpw, apsn = struct.unpack('!BBHII', t[:12])
            good = icrc(p[:-4], ihl) == p[-4:]
            out.append(({'opcode': op, 'pad': (flags >> 4) & 3,
                         'pkey': pkey, 'dqpn': qpw & 0xffffff,
                         'psn': apsn & 0xffffff,
                         'ackreq': bool(apsn >> 31), 'icrc_ok': good,
                         'sport': struct.unpack('!H', p[ihl:ihl + 2])[0],
                         'tos': p[1], 'becn': bool(qpw & 0x40000000),
                         # HPCC's INT marker bits (kernel/proto/int.h)
                         'int_req': bool(qpw & 0x20000000),
                         'int': bool(qpw & 0x10000000),
                         'raw': bytes(p),  # IP header .. ICRC
                         'time': when},
                        t[12:-4]))
        return out


def aeth(rest):
    """(syndrome, msn) of an AETH at the start of @rest."""
    v = struct.unpack('!I', rest[:4])[0]
    return v >> 24, v & 0xffffff
