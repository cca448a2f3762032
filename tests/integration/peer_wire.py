#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""peer_wire.py - only a QP's peer may talk to it, on the wire.

Runs in ns2 of t-peer.sh's topology (make_two_ns plus an attacker in ns3
on the same segment, and a second address 10.11.0.9 on sroce1's v1).  It
owns verbs objects on sroce1, whose RC/UC QPs are connected to 10.11.0.2
(QPN 0xabc), and checks that packets which do not come from that peer to
the QP's own address change nothing, and that the peer's still work:

  - CNPs for an RC QP from another source or to another address are
    dropped (rx_drop_bad_addr) before the reaction point sees them;
  - a CE-marked packet makes a CNP only once it passed the checks of its
    QP type: the peer check and the expected PSN (RC, UC), the Q_Key
    (UD), and never for multicast;
  - requests and responses (ACK, NAK, READ response, atomic ACK) are
    checked for source and destination address, and CE on a response
    makes a CNP only when it is the peer's;
  - an AETH with a reserved NAK code is dropped (rx_drop_bad_aeth), it
    does not put the QP in error.

The attacker's socket is opened in ns3 (setns), where it has an address
of its own, 10.11.0.3; where it must pose as the peer it writes the
peer's address into the IP header.  The peer pauses sroce1's requester
with PFC frames on v2 (SROCE_DEV: sroce1's sysfs directory, for the pfc_*
knobs).

usage: peer_wire.py SGID_INDEX   (index of 10.11.0.1 in sroce1's GID table)
Prints KTAP and "N passed, N failed".
"""

import ctypes
import os
import signal
import socket
import struct
import subprocess
import sys
import time

import pyverbs.enums as e
import roce_craft as rc
from pyverbs.wr import SGE, SendWR
from resp_wire import (LOCAL, PEER, PEER_QPN, QKEY, RQ_PSN, Rig, attr,
                       check, counter, describe, finish, poll)

ATTACKER = '10.11.0.3'  # m3 in ns3, on the segment of v1 and v2
LOCAL2 = '10.11.0.9'  # another address of sroce1's host (v1), no QP's GID
MGROUP = '239.1.2.3'
MC_QKEY = 0x11111111  # dp_mcast's default Q_Key
CLONE_NEWNET = 0x40000000
PLAN = 37
PFC_PRIO = 0  # priority of DSCP 0 (the Rig's traffic class 0) by default


def counter_or_none(name):
    try:
        return counter(name)
    except OSError:
        return None


def delta(name, before):
    now = counter_or_none(name)
    if now is None or before is None:
        return None
    return now - before


def in_netns(name, fn):
    """fn() with this thread in network namespace @name."""
    libc = ctypes.CDLL(None, use_errno=True)
    own = os.open('/proc/self/ns/net', os.O_RDONLY)
    other = os.open('/run/netns/' + name, os.O_RDONLY)
    try:
        if libc.setns(other, CLONE_NEWNET):
            raise OSError(ctypes.get_errno(), 'setns ' + name)
        try:
            return fn()
        finally:
            if libc.setns(own, CLONE_NEWNET):
                raise OSError(ctypes.get_errno(), 'setns back')
    finally:
        os.close(own)
        os.close(other)


class Attacker:
    """A raw IPv4 socket in ns3: sends with any source address."""

    def __init__(self):
        self.tx = in_netns('ns3', lambda: socket.socket(
            socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW))

    def send(self, transport, src=ATTACKER, dst=LOCAL, **kw):
        self.tx.sendto(rc.packet(src, dst, transport, **kw), (dst, 0))


def send_from_peer_to(rig, dst, transport, **kw):
    """From the peer's own socket (ns2), to another address of sroce1."""
    rig.wire.tx.sendto(rc.packet(PEER, dst, transport, **kw), (dst, 0))


def cnps(replies):
    return [b for b, _ in replies if b['opcode'] == rc.CNP]


def ack(msn=1, syn=0x1f):
    """AETH: @syn (default an ACK, credits invalid) and @msn."""
    return struct.pack('!I', syn << 24 | msn)


def settle():
    time.sleep(0.3)


def drain_cq(rig):
    """Completions of earlier QPs must not count for the next test."""
    while rig.cq.poll(1)[0]:
        pass


def poll_qp(rig, qp, timeout=2.0):
    """The next completion of @qp (others on the shared CQ are skipped)."""
    end = time.time() + timeout
    while True:
        wc = poll(rig.cq, max(end - time.time(), 0.01))
        if wc is None or wc.qp_num == qp.qp_num:
            return wc
        if time.time() >= end:
            return None


# ---- CNPs (the reaction point) ----

def test_cnp(rig, atk):
    qp = rig.rc_qp()
    cnp = rc.bth(rc.CNP, qp.qp_num, 0, becn=True) + b'\0' * 16

    def rp_seen():
        return counter('rp_cnp_handled') + counter('rp_cnp_ignored')

    bad, seen = counter('rx_drop_bad_addr'), rp_seen()
    atk.send(cnp)
    settle()
    check('CNP for an RC QP from a host that is not its peer: dropped '
          '(rx_drop_bad_addr), the RP never sees it',
          counter('rx_drop_bad_addr') - bad == 1 and rp_seen() == seen,
          'rx_drop_bad_addr +%d, rp handled+ignored +%d' %
          (counter('rx_drop_bad_addr') - bad, rp_seen() - seen))

    bad, seen = counter('rx_drop_bad_addr'), rp_seen()
    send_from_peer_to(rig, LOCAL2, cnp)
    settle()
    check('CNP from the peer to another address of the host: dropped',
          counter('rx_drop_bad_addr') - bad == 1 and rp_seen() == seen,
          'rx_drop_bad_addr +%d, rp handled+ignored +%d' %
          (counter('rx_drop_bad_addr') - bad, rp_seen() - seen))

    hnd = counter('rp_cnp_handled')
    rig.send(cnp)
    settle()
    check('CNP from the peer: handled (rp_cnp_handled +1)',
          counter('rp_cnp_handled') - hnd == 1,
          counter('rp_cnp_handled') - hnd)
    qp.close()


# ---- the notification point ----

def np_check(rig, name, fn, want_cnps, want_dqpn=PEER_QPN):
    """fn() sends one CE-marked packet; are @want_cnps CNPs sent?"""
    sent = counter('np_cnp_sent')
    rig.wire.drain()
    fn()
    r = rig.wire.replies(want=4, timeout=0.6)
    c = cnps(r)
    d = counter('np_cnp_sent') - sent
    ok = len(c) == want_cnps and d == want_cnps and \
        all(b['dqpn'] == want_dqpn for b in c)
    check(name, ok, 'np_cnp_sent +%d\n%s' % (d, describe(r)))


def test_np_rc(rig, atk):
    qp = rig.rc_qp()
    qpn = qp.qp_num
    for i in range(4):
        rig.post_recv(qp, 32768 + i * 1024, 1024, 900 + i)

    def send(psn):
        return rc.bth(rc.RC_SEND_ONLY, qpn, psn, ackreq=True) + b'ce'

    bad = counter('rx_drop_bad_addr')
    np_check(rig, 'CE-marked RC SEND from a host that is not the peer: '
             'no CNP to the peer',
             lambda: atk.send(send(RQ_PSN), tos=0x03), 0)
    check('... dropped by the peer check (rx_drop_bad_addr)',
          counter('rx_drop_bad_addr') - bad == 1,
          counter('rx_drop_bad_addr') - bad)
    np_check(rig, 'CE-marked RC SEND posing as the peer, PSN behind '
             '(duplicate): no CNP',
             lambda: atk.send(send((RQ_PSN - 5000) & 0xffffff), src=PEER,
                              tos=0x03), 0)
    np_check(rig, 'CE-marked RC SEND posing as the peer, PSN ahead (gap): '
             'no CNP',
             lambda: atk.send(send(RQ_PSN + 5000), src=PEER, tos=0x03), 0)
    np_check(rig, 'CE-marked RC SEND from the peer at the expected PSN: '
             'one CNP to the peer QP',
             lambda: rig.send(send(RQ_PSN), tos=0x03), 1)
    qp.close()


def test_np_uc(rig, atk):
    qp = rig.rc_qp(qp_type=e.IBV_QPT_UC)
    qpn = qp.qp_num
    for i in range(2):
        rig.post_recv(qp, 32768 + i * 1024, 1024, 950 + i)

    def send(psn):
        return rc.bth(rc.UC_SEND_ONLY, qpn, psn) + b'uc'

    np_check(rig, 'CE-marked UC SEND from a host that is not the peer: '
             'no CNP',
             lambda: atk.send(send(RQ_PSN), tos=0x03), 0)
    np_check(rig, 'CE-marked UC SEND from the peer at the expected PSN: '
             'one CNP to the peer QP',
             lambda: rig.send(send(RQ_PSN), tos=0x03), 1)
    qp.close()


def test_np_ud(rig, atk):
    qp = rig.ud_qp()
    qpn = qp.qp_num
    for i in range(2):
        rig.post_recv(qp, i * 1024, 1024, 980 + i)

    def send(qkey):
        return rc.bth(rc.UD_SEND_ONLY, qpn, 1) + rc.deth(qkey, 0x777) + b'ud'

    qk = counter('rx_drop_bad_qkey')
    np_check(rig, 'CE-marked UD SEND with a wrong Q_Key, source spoofed: '
             'no CNP reflected to that source',
             lambda: atk.send(send(QKEY + 1), src=PEER, tos=0x03), 0)
    check('... dropped by the Q_Key check (rx_drop_bad_qkey)',
          counter('rx_drop_bad_qkey') - qk == 1,
          counter('rx_drop_bad_qkey') - qk)
    np_check(rig, 'CE-marked UD SEND with the right Q_Key: one CNP to the '
             'DETH source QP',
             lambda: rig.send(send(QKEY), tos=0x03), 1, 0x777)
    qp.close()


def test_np_mcast(rig, atk):
    tool = os.environ.get('SROCE_DP_MCAST', '')
    if not tool:
        for name in ('CE-marked multicast UD SEND: no CNP from the 2 '
                     'attached QPs', '... and both attached QPs receive it'):
            check(name, False, 'no dp_mcast tool')
        return
    p = subprocess.Popen([tool, '-d', 'sroce1', '-g', str(rig.sgid_index),
                          '-m', MGROUP, '-q', '2', '-n', '0', '-t', '30000',
                          'recv'], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    line = p.stdout.readline()
    if not line.startswith('ready'):
        p.kill()
        out = line + p.communicate()[0]
        for name in ('CE-marked multicast UD SEND: no CNP from the 2 '
                     'attached QPs', '... and both attached QPs receive it'):
            check(name, False, out)
        return
    mc = rc.bth(rc.UD_SEND_ONLY, 0xffffff, 1) + rc.deth(MC_QKEY, 0x778) + \
        b'mcast'
    sent, mcp = counter('np_cnp_sent'), counter('rx_mcast_pkts')
    txd = counter('tx_drop')
    atk.send(mc, dst=MGROUP, tos=0x03)
    settle()
    d, m = counter('np_cnp_sent') - sent, counter('rx_mcast_pkts') - mcp
    t = counter('tx_drop') - txd
    p.send_signal(signal.SIGUSR1)
    out = p.communicate(timeout=30)[0]
    # A CNP "back" to a multicast source address does not route: tx_drop.
    check('CE-marked multicast UD SEND: no CNP from the 2 attached QPs',
          d == 0 and t == 0 and m == 2,
          'np_cnp_sent +%d, tx_drop +%d, rx_mcast_pkts +%d' % (d, t, m))
    check('... and both attached QPs receive it',
          out.count('unexpected completion status 0 ') == 2, out)


# ---- requests and responses: source and destination ----

def test_request_dst(rig):
    qp = rig.rc_qp()
    qpn = qp.qp_num
    rig.post_recv(qp, 32768, 1024, 990)
    req = rc.bth(rc.RC_SEND_ONLY, qpn, RQ_PSN, ackreq=True) + b'dst'
    drain_cq(rig)
    bad = counter('rx_drop_bad_addr')
    rig.wire.drain()
    send_from_peer_to(rig, LOCAL2, req)
    r = rig.wire.replies(1, 0.6)
    check('SEND from the peer to another address of the host: dropped, '
          'no ACK (rx_drop_bad_addr)',
          not r and counter('rx_drop_bad_addr') - bad == 1 and
          poll_qp(rig, qp, 0.2) is None,
          'rx_drop_bad_addr +%d\n%s' % (counter('rx_drop_bad_addr') - bad,
                                       describe(r)))
    r = rig.ask(req)
    wc = poll_qp(rig, qp)
    check('the same SEND to the QP\'s address: ACKed and received',
          bool(r) and r[0][0]['opcode'] == rc.RC_ACK and
          r[0][0]['psn'] == RQ_PSN and wc is not None and wc.wr_id == 990,
          describe(r))
    qp.close()


def post(rig, qp, opcode, off, length):
    """Post a signaled WRITE/READ/FETCH_ADD; its request's PSN, on v2."""
    rig.wire.drain()
    wr = SendWR(opcode=opcode, num_sge=1,
                sg=[SGE(rig.mr.buf + off, length, rig.mr.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    if opcode == e.IBV_WR_ATOMIC_FETCH_AND_ADD:
        wr.set_wr_atomic(0x1234, 0x10000, 1, 0)
    else:
        wr.set_wr_rdma(0x1234, 0x10000)
    qp.post_send(wr)
    want = {e.IBV_WR_RDMA_WRITE: rc.RC_WRITE_ONLY,
            e.IBV_WR_RDMA_READ: rc.RC_READ_REQ,
            e.IBV_WR_ATOMIC_FETCH_AND_ADD: rc.RC_FETCH_ADD}[opcode]
    for b, _ in rig.wire.replies(1, 2.0):
        if b['opcode'] == want:
            return b['psn']
    return None


def is_write_ok(wc):
    return wc is not None and wc.status == e.IBV_WC_SUCCESS and \
        wc.opcode == e.IBV_WC_RDMA_WRITE


def wc_desc(wc):
    return wc and 'status %d opcode %d' % (wc.status, wc.opcode)


def test_responses(rig, atk):
    # A 4.3 s transport timeout: no retry runs out while the test waits.
    qp = rig.rc_qp(timeout=20)
    qpn = qp.qp_num
    mr = rig.mr
    drain_cq(rig)

    psn = post(rig, qp, e.IBV_WR_RDMA_WRITE, 0, 8)
    bad = counter('rx_drop_bad_addr')
    atk.send(rc.bth(rc.RC_ACK, qpn, psn or 0) + ack())
    wc = poll_qp(rig, qp, 0.6)
    check('ACK from a host that is not the peer: the WRITE does not '
          'complete (rx_drop_bad_addr)',
          psn is not None and wc is None and
          counter('rx_drop_bad_addr') - bad == 1,
          'psn %s, %s, rx_drop_bad_addr +%d' %
          (psn, wc_desc(wc), counter('rx_drop_bad_addr') - bad))
    rig.send(rc.bth(rc.RC_ACK, qpn, psn or 0) + ack())
    wc = poll_qp(rig, qp) if wc is None else wc
    check('the peer\'s ACK completes the WRITE',
          is_write_ok(wc), wc_desc(wc))
    qp.close()

    # Each case on a QP of its own: one a forged packet broke before the
    # fix must not make the next case fail.
    qp = rig.rc_qp(timeout=20)
    qpn = qp.qp_num
    psn = post(rig, qp, e.IBV_WR_RDMA_WRITE, 0, 8)
    send_from_peer_to(rig, LOCAL2, rc.bth(rc.RC_ACK, qpn, psn or 0) +
                      ack())
    wc = poll_qp(rig, qp, 0.6)
    check('ACK from the peer to another address of the host: no completion',
          psn is not None and wc is None, 'psn %s, %s' % (psn, wc_desc(wc)))
    qp.close()

    qp = rig.rc_qp(timeout=20)
    qpn = qp.qp_num
    psn = post(rig, qp, e.IBV_WR_RDMA_WRITE, 0, 8)
    # NAK, remote access error (IBA Table 43: type 3, code 2).
    atk.send(rc.bth(rc.RC_ACK, qpn, psn or 0) + ack(2, 0x62))
    wc = poll_qp(rig, qp, 0.6)
    check('remote access NAK from a host that is not the peer: ignored',
          psn is not None and wc is None, 'psn %s, %s' % (psn, wc_desc(wc)))
    rig.send(rc.bth(rc.RC_ACK, qpn, psn or 0) + ack(2))
    wc = poll_qp(rig, qp) if wc is None else wc
    check('... the QP is not in error: the peer\'s ACK completes the WRITE',
          is_write_ok(wc), wc_desc(wc))
    qp.close()

    qp = rig.rc_qp(timeout=20)
    qpn = qp.qp_num
    mr.write(b'\0' * 8, 8, 1024)
    psn = post(rig, qp, e.IBV_WR_RDMA_READ, 1024, 8)
    resp = rc.bth(rc.RC_READ_RESP_ONLY, qpn, psn or 0) + ack(3)
    atk.send(resp + b'EVILDATA')
    wc = poll_qp(rig, qp, 0.6)
    check('READ response from a host that is not the peer: no data, no '
          'completion',
          psn is not None and wc is None and mr.read(8, 1024) == b'\0' * 8,
          'psn %s, %s, mem %r' % (psn, wc_desc(wc), mr.read(8, 1024)))
    rig.send(resp + b'GOODDATA')
    wc = poll_qp(rig, qp) if wc is None else wc
    check('the peer\'s READ response completes the READ with its data',
          wc is not None and wc.status == e.IBV_WC_SUCCESS and
          wc.opcode == e.IBV_WC_RDMA_READ and
          mr.read(8, 1024) == b'GOODDATA',
          '%s, mem %r' % (wc_desc(wc), mr.read(8, 1024)))
    qp.close()

    qp = rig.rc_qp(timeout=20)
    qpn = qp.qp_num
    mr.write(b'\0' * 8, 8, 2048)
    psn = post(rig, qp, e.IBV_WR_ATOMIC_FETCH_AND_ADD, 2048, 8)
    atk.send(rc.bth(rc.RC_ATOMIC_ACK, qpn, psn or 0) + ack(5) +
             struct.pack('!Q', 0xbad))
    wc = poll_qp(rig, qp, 0.6)
    check('atomic ACK from a host that is not the peer: no value, no '
          'completion',
          psn is not None and wc is None and mr.read(8, 2048) == b'\0' * 8,
          'psn %s, %s, mem %r' % (psn, wc_desc(wc), mr.read(8, 2048)))
    rig.send(rc.bth(rc.RC_ATOMIC_ACK, qpn, psn or 0) + ack(5) +
             struct.pack('!Q', 0x600d))
    wc = poll_qp(rig, qp) if wc is None else wc
    check('the peer\'s atomic ACK completes the FETCH_ADD with its value',
          wc is not None and wc.status == e.IBV_WC_SUCCESS and
          wc.opcode == e.IBV_WC_FETCH_ADD and
          struct.unpack('=Q', mr.read(8, 2048))[0] == 0x600d,
          '%s, mem %r' % (wc_desc(wc), mr.read(8, 2048)))
    qp.close()

    # CE on a response: a CNP only for the peer's (completer's NP).
    qp = rig.rc_qp(timeout=20)
    qpn = qp.qp_num
    psn = post(rig, qp, e.IBV_WR_RDMA_WRITE, 0, 8)
    np_check(rig, 'CE-marked ACK from a host that is not the peer: no CNP',
             lambda: atk.send(rc.bth(rc.RC_ACK, qpn, psn or 0) + ack(6),
                              tos=0x03), 0)
    np_check(rig, 'CE-marked ACK from the peer: one CNP to the peer QP',
             lambda: rig.send(rc.bth(rc.RC_ACK, qpn, psn or 0) + ack(6),
                              tos=0x03), 1)
    wc = poll_qp(rig, qp)
    check('... and it completes the WRITE', is_write_ok(wc), wc_desc(wc))
    qp.close()

    # The peer's own NAK with a reserved code (5): dropped and counted.
    qp = rig.rc_qp(timeout=20)
    qpn = qp.qp_num
    psn = post(rig, qp, e.IBV_WR_RDMA_WRITE, 0, 8)
    aeth_drops = counter_or_none('rx_drop_bad_aeth')
    rig.send(rc.bth(rc.RC_ACK, qpn, psn or 0) + ack(4, 0x65))
    wc = poll_qp(rig, qp, 0.6)
    check('NAK with a reserved code from the peer: no completion, the QP '
          'stays up', psn is not None and wc is None,
          'psn %s, %s' % (psn, wc_desc(wc)))
    d = delta('rx_drop_bad_aeth', aeth_drops)
    check('... counted in rx_drop_bad_aeth', d == 1, d)
    rig.send(rc.bth(rc.RC_ACK, qpn, psn or 0) + ack(4))
    wc = poll_qp(rig, qp) if wc is None else wc
    check('... and the peer\'s ACK completes the WRITE',
          is_write_ok(wc), wc_desc(wc))
    qp.close()


# ---- READ responses after a go-back-N, before the request goes again ----

def dev_knob(name, value=None):
    """Read sroce1's sysfs attribute @name, or write @value to it."""
    return attr(os.environ.get('SROCE_DEV', '/sys/class/infiniband/sroce1'),
                name, value)


def pfc_frame(quanta):
    """An 802.1Qbb frame from v2 for PFC_PRIO: XOFF of @quanta, 0 = XON."""
    with open('/sys/class/net/v2/address') as f:
        src = bytes.fromhex(f.read().strip().replace(':', ''))
    times = [quanta if i == PFC_PRIO else 0 for i in range(8)]
    frame = bytes.fromhex('0180c2000001') + src + \
        struct.pack('!HHH8H', 0x8808, 0x0101, 1 << PFC_PRIO, *times)
    return frame + bytes(60 - len(frame))


def read_req_len(reply):
    """The DMA length in the RETH of a sniffed READ request."""
    return struct.unpack('!QII', reply[:16])[2] if len(reply) >= 16 else None


def test_read_after_rewind(rig):
    """
    sroce1 READs 4 packets (4096 bytes, path MTU 1024) at PSN P.  Its
    priority is paused by PFC, so nothing it decides to send goes before
    the XON: that is how the test holds the go-back-N's request back (on
    the wire it is a slow CPU, a hand-over to tx_cpu or a pause).  The
    responses come: P, then P+2 ahead of P+1 (a gap: the completer drops
    it and goes back to P+1, its request held by the pause), then P+1,
    P+2, P+3 in order.  They complete the READ.  Before b3c6900 the
    requester, once resumed, was left at P+1 behind una_psn: the window
    test (unsigned) let nothing go; with that test signed, it asked again
    for P+1..P+3 of the completed READ, and req.rd_inflight counted a READ
    nothing would ever complete.  Either way the next READ never went
    (max_rd_atomic 1; nothing in flight, no timer: stopped for ever).
    """
    pfc = {k: dev_knob(k) for k in ('pfc_enable', 'pfc_storm_detect_ms',
                                    'pfc_speed_mbps')}
    # Quanta at 10 Mb/s: an XOFF of 65535 holds 3.4 s, the XON ends it.
    # No storm watchdog: it would end the pause after 100 ms.
    dev_knob('pfc_storm_detect_ms', 0)
    dev_knob('pfc_speed_mbps', 10)
    dev_knob('pfc_enable', '0x%02x' % (1 << PFC_PRIO))
    eth = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    eth.bind(('v2', 0))
    qp = rig.rc_qp(timeout=20)
    qpn = qp.qp_num
    mr = rig.mr
    data = bytes((i * 13 + 5) & 0xff for i in range(4096))
    try:
        drain_cq(rig)
        mr.write(b'\0' * 4096, 4096, 8192)
        mr.write(b'\0' * 8, 8, 12288)
        rig.wire.drain()
        wr = SendWR(opcode=e.IBV_WR_RDMA_READ, num_sge=1,
                    sg=[SGE(mr.buf + 8192, 4096, mr.lkey)],
                    send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_rdma(0x1234, 0x10000)
        qp.post_send(wr)
        r = [x for x in rig.wire.replies(1, 2.0)
             if x[0]['opcode'] == rc.RC_READ_REQ]
        p = r[0][0]['psn'] if r else None
        eth.send(pfc_frame(0xffff))
        t_end = time.time() + 2.0
        while 'paused 0x%02x' % (1 << PFC_PRIO) not in \
                dev_knob('pfc_state') and time.time() < t_end:
            time.sleep(0.01)
        state = dev_knob('pfc_state')
        check('READ of 4096 bytes: one request on the wire, then an XOFF '
              'pauses its priority',
              p is not None and read_req_len(r[0][1]) == 4096 and
              'paused 0x%02x' % (1 << PFC_PRIO) in state,
              '%s\npfc_state: %s' % (describe(r), state))
        p = p or 0

        def resp(op, n, aeth=False):
            """Response P+@n; FIRST and LAST have an AETH, MIDDLE none."""
            return rc.bth(op, qpn, p + n) + (ack(1) if aeth else b'') + \
                data[n * 1024:(n + 1) * 1024]

        retr = counter('req_retransmits')
        # A device counter (hw_counters of the device, not of the port).
        trans_name = 'hw_counters/rx_prio%d_pause_transition' % PFC_PRIO
        trans = int(dev_knob(trans_name))
        rig.wire.drain()
        # FIRST; MIDDLE P+2 ahead of P+1 (the gap); then P+1, P+2, LAST.
        for pkt in (resp(rc.RC_READ_RESP_FIRST, 0, aeth=True),
                    resp(rc.RC_READ_RESP_MIDDLE, 2),
                    resp(rc.RC_READ_RESP_MIDDLE, 1),
                    resp(rc.RC_READ_RESP_MIDDLE, 2),
                    resp(rc.RC_READ_RESP_LAST, 3, aeth=True)):
            rig.send(pkt)
        # A slow guest: another 3.4 s from here (a later XOFF replaces
        # the time); the pause must not end before the XON below.
        eth.send(pfc_frame(0xffff))
        wc = poll_qp(rig, qp, 2.0)
        sent = rig.wire.replies(4, 0.3)
        held = int(dev_knob(trans_name)) == trans
        check('responses P, P+2 (a gap: go-back-N to P+1), P+1, P+2, P+3 '
              'while the requester is paused: the READ completes with its '
              'data, nothing is sent',
              wc is not None and wc.status == e.IBV_WC_SUCCESS and
              wc.opcode == e.IBV_WC_RDMA_READ and
              mr.read(4096, 8192) == data and
              counter('req_retransmits') - retr == 1 and not sent and held,
              '%s, req_retransmits +%d, pause held throughout: %s\n'
              'sent while paused:\n%s' %
              (wc_desc(wc), counter('req_retransmits') - retr, held,
               describe(sent)))

        rig.wire.drain()
        eth.send(pfc_frame(0))
        again = [(b, x) for b, x in rig.wire.replies(4, 1.0)
                 if b['opcode'] == rc.RC_READ_REQ]
        check('after the XON: no second request for the completed READ',
              not again, '%s\nRETH length %s' %
              (describe(again), again and read_req_len(again[0][1])))

        p2 = post(rig, qp, e.IBV_WR_RDMA_READ, 12288, 8)
        check('the next READ goes (max_rd_atomic 1 is free), at PSN P+4',
              p2 == (p + 4) & 0xffffff, 'psn %s, want %d' % (p2, p + 4))
        wc = None
        if p2 is not None:
            rig.send(rc.bth(rc.RC_READ_RESP_ONLY, qpn, p2) + ack(2) +
                     b'NEXTREAD')
            wc = poll_qp(rig, qp)
        check('... and its response completes it with its data',
              wc is not None and wc.status == e.IBV_WC_SUCCESS and
              wc.opcode == e.IBV_WC_RDMA_READ and
              mr.read(8, 12288) == b'NEXTREAD',
              '%s, mem %r' % (wc_desc(wc), mr.read(8, 12288)))
    finally:
        eth.send(pfc_frame(0))
        eth.close()
        qp.close()
        for k, v in pfc.items():
            dev_knob(k, v)


def main():
    rig = Rig(int(sys.argv[1]))
    atk = Attacker()
    print('KTAP version 1')
    print('# only the peer of a QP talks to it (CNPs, CE, requests, '
          'responses)')
    print('1..%d' % PLAN)
    test_cnp(rig, atk)
    test_np_rc(rig, atk)
    test_np_uc(rig, atk)
    test_np_ud(rig, atk)
    test_np_mcast(rig, atk)
    test_request_dst(rig)
    test_responses(rig, atk)
    test_read_after_rewind(rig)
    finish()


if __name__ == '__main__':
    main()
