#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""hpcc_wire.py - HPCC in sroce.ko, driven by in-band telemetry (INT)
that this test injects as the switches of a path would have stamped it.

Runs in ns2 of t-hpcc.sh's topology, like cc_wire.py: verbs objects live
on sroce1 (10.11.0.1) and the test plays the remote peer 10.11.0.2 by
hand with roce_craft, plus a third host 10.11.0.3 in ns3.  The INT block
(kernel/proto/int.h, Documentation/cc.rst "INT on the wire") is put into
packets the way a switch would: after the BTH and extension headers, the
IP and UDP lengths and the IPv4 checksum grown, the ICRC left as it was
for the packet without the block, the BTH's INT bit set.

  - an hpcc QP's request packets ask for INT (INT_REQ bit), nothing else;
  - ACKs whose INT shows a congested hop cut its rate to exactly what
    HPCC's equations give (Li et al., SIGCOMM 2019, Algorithm 1), and
    W_c moves once per RTT;
  - an idle hop raises it by hpcc_ai_rate per RTT, then multiplicatively
    after hpcc_max_stage steps, back to line rate;
  - malformed INT is dropped (rx_int_malformed), INT from a third host
    is dropped (rx_drop_bad_addr) and neither changes the rate;
  - a dcqcn QP asks for nothing and ignores INT (rx_int_ignored); one
    created after switching back to hpcc asks;
  - the responder echoes a WRITE's INT records in its ACK (tx_int_echoed)
    with the ICRC of the ACK without them, and the WRITE lands; not those
    of a duplicate or out-of-sequence request (rx_int_ignored);
  - a plain WRITE with the INT bit and no block lands (rx_int_ignored);
  - INT in a PSN sequence error NAK does not move W_c (ack.seq is the
    NAK's PSN, not the next).

usage: hpcc_wire.py SGID_INDEX KNOB_DIR
Prints KTAP and "N passed, N failed".
"""

import struct
import sys
import time

import pyverbs.enums as e
import roce_craft as rc
from cc_wire import knob, post_write, qp_rate
from peer_wire import ATTACKER, Attacker
from resp_wire import LOCAL, PEER, RQ_PSN, Rig, check, counter, poll, \
    results

COLLECT, ECHO = 1, 2
T_NS = 10000  # hpcc_base_rtt_us 10 (the default)
SPEED = 1000  # Mb/s of the hop the test plays
BT_BITS = SPEED * 1000 * T_NS // 1000000  # B T, bits (kbit/s x ns / 1e6)
LINE_BYTES = BT_BITS // 8  # bytes the hop sends in T at its speed
MTU = 1024  # hpcc_mtu: the queue term counts min(q, q') less this
ETA, AI = 95, 50000  # hpcc_eta %, hpcc_ai_rate kbit/s (defaults)
Q_HIGH = 5000  # bytes queued at the congested hop: 4 B T
PLAN = 24
WRITE_OPS = (rc.RC_WRITE_FIRST, rc.RC_WRITE_MIDDLE, rc.RC_WRITE_LAST,
             rc.RC_WRITE_ONLY)


def int_block(kind, hops):
    """Version 1 block of @kind, @hops (qlen, tx_bytes, ts, Mb/s) in path
    order; on the wire newest first."""
    b = struct.pack('!BBH', 0x10 | kind, len(hops), 0)
    for q, tx, ts, sp in reversed(hops):
        b += struct.pack('!IIII', q, tx & 0xffffffff, ts & 0xffffffff, sp)
    return b


def with_int(pkt, off, block):
    """@block into the IPv4 packet @pkt at @off, as a switch inserts it."""
    p = bytearray(pkt[:off] + block + pkt[off:])
    struct.pack_into('!H', p, 2, struct.unpack('!H', p[2:4])[0] + len(block))
    struct.pack_into('!H', p, 10, 0)
    struct.pack_into('!H', p, 10, rc.ip_csum(bytes(p[:20])))
    struct.pack_into('!H', p, 24,
                     struct.unpack('!H', p[24:26])[0] + len(block))
    p[28 + 4] |= 0x10  # BTH: INT
    return bytes(p)


def send_int(sock, src, hdrs, block, payload=b''):
    pkt = rc.packet(src, LOCAL, hdrs + payload)
    sock.sendto(with_int(pkt, 28 + len(hdrs), block), (LOCAL, 0))


def ack_hdrs(qp, psn, msn):
    return rc.bth(rc.RC_ACK, qp.qp_num, psn) + \
        struct.pack('!I', 0x1f << 24 | msn)


class Hop:
    """A switch port: its clock and byte counter, T apart per record."""

    def __init__(self):
        self.ts, self.tx = 0xfffff000, 0xffff0000  # both wrap soon

    def step(self, q, busy):
        self.ts += T_NS
        self.tx += int(LINE_BYTES * busy)
        return [(q, self.tx, self.ts, SPEED)]


def util(q, busy):
    """u of one hop (Q20 arithmetic aside): queue term + txRate / B."""
    q = max(q - MTU, 0)
    return q * 8 / BT_BITS + busy


def writes(rig, qp, length):
    """Post an RDMA WRITE of @length: its request packets."""
    want = (length + 1023) // 1024
    post_write(rig, qp, length)
    return [b for b, _ in rig.wire.replies(want, timeout=10.0)
            if b['opcode'] in WRITE_OPS]


def one_rtt(rig, qp, hop, q, busy):
    """A one-packet WRITE answered by an ACK with INT (a new RTT for W_c):
    (completed, rate after)."""
    r = writes(rig, qp, 1024)
    if len(r) != 1:
        return False, 0
    send_int(rig.wire.tx, PEER, ack_hdrs(qp, r[0]['psn'], 1),
             int_block(ECHO, hop.step(q, busy)))
    wc = poll(rig.cq, 5.0)
    return (wc is not None and wc.status == e.IBV_WC_SUCCESS,
            qp_rate(qp)[1])


def near(a, b):
    return abs(a - b) <= 0.01 * b + 2


def test_congested(rig, qp, hop, line):
    """(a) A congested hop: 5000 bytes queued (4 B T) at full speed."""
    r = writes(rig, qp, 4096)
    check('hpcc: request packets ask for INT (INT_REQ), carry none',
          len(r) == 4 and all(b['int_req'] and not b['int'] for b in r),
          [(b['psn'], b['int_req'], b['int']) for b in r])
    before = counter('rx_int_pkts')
    if len(r) == 4:
        # the first INT is the reference; the second a sample
        send_int(rig.wire.tx, PEER, ack_hdrs(qp, r[1]['psn'], 0),
                 int_block(ECHO, hop.step(Q_HIGH, 1.0)))
        send_int(rig.wire.tx, PEER, ack_hdrs(qp, r[3]['psn'], 1),
                 int_block(ECHO, hop.step(Q_HIGH, 1.0)))
    wc = poll(rig.cq, 5.0)
    time.sleep(0.1)
    rate = qp_rate(qp)[1]
    u = util(Q_HIGH, 1.0)
    want = min(line, int(line * ETA / 100 / u) + AI)
    print('# hpcc: line %d kbit/s, U %.3f: rate %d, want %d' %
          (line, u, rate, want))
    check('hpcc: ACKs from the peer with INT counted (rx_int_pkts +2)',
          counter('rx_int_pkts') - before == 2 and wc is not None and
          wc.status == e.IBV_WC_SUCCESS, counter('rx_int_pkts') - before)
    check('hpcc: a congested hop cuts the rate to W_c / (U / eta) + W_AI',
          near(rate, want), (rate, want))
    # the next RTT's sample: W_c took the cut, so it compounds
    ok, rate2 = one_rtt(rig, qp, hop, Q_HIGH, 1.0)
    ok3, rate3 = one_rtt(rig, qp, hop, Q_HIGH, 1.0)
    want3 = int(rate2 * ETA / 100 / u) + AI
    print('# hpcc: next RTTs %d, %d (want %d)' % (rate2, rate3, want3))
    check('hpcc: W_c moves once per RTT (the third RTT cuts again)',
          ok and ok3 and near(rate2, want) and near(rate3, want3),
          (rate2, want, rate3, want3))
    return rate3


def test_idle(rig, qp, hop, line, low):
    """(b) An idle hop: additive steps, then back to line rate."""
    rates = []
    ok = True
    for _ in range(8):
        done, rate = one_rtt(rig, qp, hop, 0, 0.01)
        ok = ok and done
        rates.append(rate)
    print('# hpcc: idle hop, rate per RTT %s' % rates)
    check('hpcc: an idle hop raises the rate by hpcc_ai_rate per RTT',
          ok and near(rates[0], low + AI) and near(rates[1], low + 2 * AI),
          (low, rates))
    check('hpcc: after hpcc_max_stage steps back to line rate',
          ok and rates[-1] == line and line in rates[:7], (line, rates))


def test_bad_int(rig, qp, hop):
    """(c) Malformed INT and a third host's INT change nothing."""
    rate = qp_rate(qp)[1]
    mal = counter('rx_int_malformed')
    malf = counter('rx_drop_malformed')
    bad = counter('rx_drop_bad_addr')
    got = counter('rx_int_pkts')
    hops = hop.step(500000, 1.0)
    good = int_block(ECHO, hops)
    psn = 0  # nothing outstanding: it would not matter
    hdrs = ack_hdrs(qp, psn, 1)
    for block in (b'\x21' + good[1:],  # version 2
                  good[:1] + b'\x06' + good[2:] + good[4:] * 5,  # 6 hops
                  good[:2] + b'\x00\x01' + good[4:],  # reserved bits
                  int_block(COLLECT, hops),  # a request's kind on an ACK
                  good[:1] + b'\x02' + good[2:]):  # one record short
        send_int(rig.wire.tx, PEER, hdrs, block)
    time.sleep(0.3)
    d = counter('rx_int_malformed') - mal
    check('hpcc: malformed INT dropped (rx_int_malformed +5)', d == 5, d)
    # A CNP with the bit and a block: not RC, so the bit is the IBA's
    # reserved one, ignored; the block is then bytes a CNP cannot have.
    send_int(rig.wire.tx, PEER, rc.bth(rc.CNP, qp.qp_num, 0, becn=True) +
             b'\0' * 16, good)
    time.sleep(0.3)
    d = (counter('rx_int_malformed') - mal - 5,
         counter('rx_drop_malformed') - malf)
    check('hpcc: on a CNP the INT bit is ignored, the CNP too long '
          '(rx_drop_malformed +1)', d == (0, 1), d)
    atk = Attacker()
    atk.tx.sendto(with_int(rc.packet(ATTACKER, LOCAL, hdrs), 28 + len(hdrs),
                           good), (LOCAL, 0))
    time.sleep(0.3)
    check('hpcc: INT from a third host dropped (rx_drop_bad_addr +1)',
          counter('rx_drop_bad_addr') - bad == 1 and
          counter('rx_int_pkts') == got,
          (counter('rx_drop_bad_addr') - bad, counter('rx_int_pkts') - got))
    check('hpcc: neither changed the rate', qp_rate(qp)[1] == rate,
          (rate, qp_rate(qp)[1]))


def test_not_selected(rig, qp_dcqcn, line):
    """(d) A QP without hpcc: no INT_REQ; INT in its ACKs ignored."""
    r = writes(rig, qp_dcqcn, 1024)
    check('dcqcn QP: request packets carry neither INT bit',
          len(r) == 1 and not r[0]['int_req'] and not r[0]['int'], r)
    ign = counter('rx_int_ignored')
    if r:
        send_int(rig.wire.tx, PEER, ack_hdrs(qp_dcqcn, r[0]['psn'], 1),
                 int_block(ECHO, Hop().step(500000, 1.0)))
    wc = poll(rig.cq, 5.0)
    time.sleep(0.1)
    algo, rate = qp_rate(qp_dcqcn)
    check('dcqcn QP: an ACK with INT completes, INT ignored '
          '(rx_int_ignored +1), rate stays',
          wc is not None and wc.status == e.IBV_WC_SUCCESS and
          counter('rx_int_ignored') - ign == 1 and algo == 'dcqcn' and
          rate == line, (wc and wc.status, algo, rate, line))


def test_switched(rig):
    """The device's algorithm switched back to hpcc: a QP created then asks
    for INT (qp->cc.int_req is set with the QP's algorithm at create)."""
    knob('roce_rp/cc_algo', 'hpcc')
    qp = rig.rc_qp(timeout=20)
    knob('roce_rp/cc_algo', 'dcqcn')
    r = writes(rig, qp, 1024)
    if r:
        rig.wire.tx.sendto(rc.packet(PEER, LOCAL,
                                     ack_hdrs(qp, r[0]['psn'], 1)),
                           (LOCAL, 0))
    wc = poll(rig.cq, 5.0)
    check('dcqcn -> hpcc: a QP created after the switch asks for INT',
          len(r) == 1 and r[0]['int_req'] and not r[0]['int'] and
          wc is not None and wc.status == e.IBV_WC_SUCCESS and
          qp_rate(qp)[0] == 'hpcc', (r, wc and wc.status, qp_rate(qp)))
    qp.close()


def strip_int(raw, off, n):
    """The IPv4 packet @raw without the @n bytes at @off (lengths less)."""
    p = bytearray(raw[:off] + raw[off + n:])
    struct.pack_into('!H', p, 2, struct.unpack('!H', p[2:4])[0] - n)
    struct.pack_into('!H', p, 24, struct.unpack('!H', p[24:26])[0] - n)
    return bytes(p)


def test_echo(rig, qp, psn, who):
    """The responder (of @who's QP) echoes a WRITE's records in the ACK."""
    hops = [(1000, 123456, 7000, 25000), (64, 0xfffffff0, 9000, 100000)]
    data = bytes(range(64))
    echoed = counter('tx_int_echoed')
    hdrs = rc.bth(rc.RC_WRITE_ONLY, qp.qp_num, psn, ackreq=True) + \
        rc.reth(rig.mr.buf + 1024, rig.mr.rkey, len(data))
    rig.wire.drain()
    send_int(rig.wire.tx, PEER, hdrs, int_block(COLLECT, hops), data)
    r = rig.wire.replies(1, timeout=3.0)
    b, rest = r[0] if r else ({}, b'')
    want = int_block(ECHO, hops)
    raw = b.get('raw', b'')
    icrc_ok = bool(raw) and \
        rc.icrc(strip_int(raw, 28 + 16, len(want))[:-4], 20) == raw[-4:]
    time.sleep(0.1)  # hw_counters are cached for 10 ms
    landed = rig.mr.read(len(data), 1024) == data
    d = counter('tx_int_echoed') - echoed
    check(who + ' responder: a WRITE with INT lands; its ACK echoes the records '
          '(INT bit, echo block after the AETH, tx_int_echoed +1)',
          b.get('opcode') == rc.RC_ACK and b.get('psn') == psn and
          b.get('int') and rest[4:] == want and landed and d == 1,
          (b.get('opcode'), b.get('psn'), b.get('int'), landed, d,
           rest[4:].hex(), want.hex()))
    check(who + ' responder: the echo ACK\'s ICRC is that of the ACK without it',
          icrc_ok, raw.hex())
    # the next ACK carries no echo: each request's records go back once
    r = rig.ask(rc.bth(rc.RC_WRITE_ONLY, qp.qp_num, psn + 1, ackreq=True) +
                rc.reth(rig.mr.buf + 1024, rig.mr.rkey, 4) + b'abcd')
    check(who + ' responder: a WRITE without INT gets a plain ACK',
          bool(r) and r[0][0]['opcode'] == rc.RC_ACK and
          not r[0][0]['int'] and r[0][0]['icrc_ok'] and
          len(r[0][1]) == 4, r and r[0][1].hex())


def test_nak_seq(rig, qp, hop, line):
    """A PSN sequence error NAK acknowledges only the PSNs before its own:
    its INT is a sample, but not an ACK past lastUpdateSeq, so W_c stays
    and the next RTT's ACK cuts from it, not from the NAK's window."""
    # A reference newer than 2 s (else the NAK's INT is none: cc_hpcc.c's
    # compact deltas), then an idle-hop sample: W_c = line rate again and
    # lastUpdateSeq = the WRITE's first PSN.
    one_rtt(rig, qp, hop, 0, 0.01)
    one_rtt(rig, qp, hop, 0, 0.01)
    r = writes(rig, qp, 2048)
    again, rate_nak = [], 0
    if len(r) == 2:
        a = r[0]['psn']
        # NAK of PSN a: nothing new acknowledged, a and a + 1 again
        send_int(rig.wire.tx, PEER, rc.bth(rc.RC_ACK, qp.qp_num, a) +
                 struct.pack('!I', 0x60 << 24), int_block(ECHO,
                                                          hop.step(Q_HIGH,
                                                                   1.0)))
        again = [b['psn'] for b, _ in rig.wire.replies(2, timeout=10.0)
                 if b['opcode'] in WRITE_OPS]
        time.sleep(0.1)
        rate_nak = qp_rate(qp)[1]
        send_int(rig.wire.tx, PEER, ack_hdrs(qp, (a + 1) & 0xffffff, 1),
                 int_block(ECHO, hop.step(Q_HIGH, 1.0)))
    wc = poll(rig.cq, 5.0)
    time.sleep(0.1)
    rate = qp_rate(qp)[1]
    # the NAK's sample: U = 1 (no queue yet in min(q, q')), a cut of W_c
    want_nak = min(line, int(line * ETA / 100) + AI)
    # the ACK's, from W_c = line rate; had the NAK moved W_c, from want_nak
    want = min(line, int(line * ETA / 100 / util(Q_HIGH, 1.0)) + AI)
    print('# hpcc: after a NAK with INT %d (want %d), after the ACK %d '
          '(want %d)' % (rate_nak, want_nak, rate, want))
    check('hpcc: INT in a PSN sequence error NAK is a sample but does not '
          'move W_c (ack.seq is its PSN); the resent WRITE completes',
          len(r) == 2 and again == [r[0]['psn'], r[1]['psn']] and
          wc is not None and wc.status == e.IBV_WC_SUCCESS and
          near(rate_nak, want_nak) and near(rate, want),
          (again, wc and wc.status, rate_nak, want_nak, rate, want))


def marked(t):
    """@t (BTH..) with the BTH's INT bit set, as a peer that uses resv6a."""
    t = bytearray(t)
    t[4] |= 0x10
    return bytes(t)


def test_echo_psn(rig, qp, epsn):
    """A request the responder does not accept (a duplicate it re-ACKs,
    one past a PSN gap it NAKs) leaves the echo alone: its records are
    not in the answer, nor in the next ACK."""
    hops = [(77, 1, 2, 25000)]
    ign = counter('rx_int_ignored')
    got = []
    for psn in ((epsn - 1) & 0xffffff, (epsn + 5) & 0xffffff):
        hdrs = rc.bth(rc.RC_WRITE_ONLY, qp.qp_num, psn, ackreq=True) + \
            rc.reth(rig.mr.buf + 1024, rig.mr.rkey, 4)
        rig.wire.drain()
        send_int(rig.wire.tx, PEER, hdrs, int_block(COLLECT, hops), b'dupe')
        r = rig.wire.replies(1, timeout=3.0)
        b, rest = r[0] if r else ({}, b'')
        got.append((b.get('opcode'), b.get('psn'), rest[:1].hex(),
                    b.get('int')))
    r = rig.ask(rc.bth(rc.RC_WRITE_ONLY, qp.qp_num, epsn, ackreq=True) +
                rc.reth(rig.mr.buf + 1024, rig.mr.rkey, 4) + b'next')
    b = r[0][0] if r else {}
    got.append((b.get('opcode'), b.get('psn'), b.get('int')))
    time.sleep(0.1)
    d = counter('rx_int_ignored') - ign
    prev = (epsn - 1) & 0xffffff
    check('responder: a duplicate (re-ACKed) and an out-of-sequence '
          '(NAKed) request with INT are not echoed, nor in the next ACK '
          '(rx_int_ignored +2)',
          got == [(rc.RC_ACK, prev, '1f', False),
                  (rc.RC_ACK, epsn, '60', False),
                  (rc.RC_ACK, epsn, False)] and d == 2, (got, d))


def test_marked_plain(rig, qp, epsn):
    """A plain request with the INT bit (resv6a) and no block: its ICRC,
    over it as it is, makes it a plain packet (rx_int_ignored), also when
    its payload starts like a block."""
    mal = counter('rx_int_malformed')
    enc = counter('rx_icrc_encapsulated')
    ign = counter('rx_int_ignored')
    got = []
    for i, data in enumerate((b'plain bit set',
                              int_block(COLLECT, []) + b'look-alike')):
        psn = (epsn + i) & 0xffffff
        r = rig.ask(marked(rc.bth(rc.RC_WRITE_ONLY, qp.qp_num, psn,
                                  ackreq=True) +
                           rc.reth(rig.mr.buf + 2048, rig.mr.rkey,
                                   len(data))) + data)
        b = r[0][0] if r else {}
        time.sleep(0.1)
        got.append((b.get('opcode'), b.get('psn') == psn, b.get('int'),
                    rig.mr.read(len(data), 2048) == data))
    time.sleep(0.1)
    d = (counter('rx_int_ignored') - ign, counter('rx_int_malformed') - mal,
         counter('rx_icrc_encapsulated') - enc)
    check('a plain WRITE with the INT bit lands and is ACKed, no block or '
          'a look-alike one (rx_int_ignored +2, nothing dropped)',
          got == [(rc.RC_ACK, True, False, True)] * 2 and d == (2, 0, 0),
          (got, d))


def main():
    rig = Rig(int(sys.argv[1]))
    print('KTAP version 1')
    print('# HPCC in sroce.ko with injected INT')
    print('1..%d' % PLAN)
    check('hpcc is among available_cc_algos',
          'hpcc' in knob('roce_rp/available_cc_algos').split())
    knob('roce_rp/cc_algo', 'hpcc')
    qp = rig.rc_qp(timeout=20)
    knob('roce_rp/cc_algo', 'dcqcn')  # the QP keeps its algorithm
    plain = rig.rc_qp(timeout=20)
    algo, line = qp_rate(qp)
    print('# hpcc QP 0x%x: %s at %d kbit/s' % (qp.qp_num, algo, line))
    check('an hpcc QP starts at line rate',
          algo == 'hpcc' and line > 0 and qp_rate(plain) == ('dcqcn', line),
          (algo, line, qp_rate(plain)))
    hop = Hop()
    low = test_congested(rig, qp, hop, line)
    test_idle(rig, qp, hop, line, low)
    test_bad_int(rig, qp, hop)
    test_not_selected(rig, plain, line)
    test_switched(rig)
    test_echo(rig, plain, RQ_PSN, 'dcqcn')
    test_echo(rig, qp, RQ_PSN, 'hpcc')
    test_echo_psn(rig, qp, (RQ_PSN + 2) & 0xffffff)
    test_marked_plain(rig, qp, (RQ_PSN + 3) & 0xffffff)
    test_nak_seq(rig, qp, hop, line)
    npass = sum(1 for r in results if r)
    nfail = len(results) - npass
    print('%d passed, %d failed' % (npass, nfail))
    sys.exit(1 if nfail else 0)


if __name__ == '__main__':
    main()
