#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""resp_wire.py - the receive path and the responder of sroce, on the wire.

Runs in ns2 of make_two_ns (lib.sh).  It owns verbs objects on sroce1 (in
ns1; RDMA devices are shared between namespaces) and plays the remote
requester by hand: crafted RoCE v2 packets go from 10.11.0.2 to sroce1 at
10.11.0.1, and what sroce1 answers is sniffed on v2.

usage: resp_wire.py SGID_INDEX   (index of 10.11.0.1 in sroce1's GID table)
Prints KTAP and "N passed, N failed".
"""

import errno
import os
import select
import struct
import sys
import time

import roce_craft as rc
import pyverbs.enums as e
from pyverbs.addr import AHAttr, GID, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import RecvWR, SendWR, SGE

DEV = 'sroce1'
LOCAL, PEER = '10.11.0.1', '10.11.0.2'
PEER_QPN = 0xabc
RQ_PSN = 100
MTU = 1024
QKEY = 0x11223344

results = []


def check(name, ok, why=''):
    results.append(ok)
    n = len(results)
    if not ok and why:
        for line in str(why).splitlines():
            print('# ' + line)
    print(('ok %d %s' if ok else 'not ok %d %s') % (n, name))
    sys.stdout.flush()


def finish():
    """The KTAP summary line of every check() so far; exit 1 on a failure."""
    npass = sum(1 for r in results if r)
    nfail = len(results) - npass
    print('%d passed, %d failed' % (npass, nfail))
    sys.exit(1 if nfail else 0)


def counter(name):
    base = os.environ.get('SROCE_HWC',
                          '/sys/class/infiniband/%s/ports/1/hw_counters' % DEV)
    path = '%s/%s' % (base, name)
    with open(path) as f:
        return int(f.read())


def attr(base, name, value=None):
    """Read the sysfs attribute @name under @base, or write @value to it."""
    path = os.path.join(base, name)
    if value is None:
        with open(path) as f:
            return f.read().strip()
    with open(path, 'w') as f:
        f.write(str(value))
    return None


def counter_delta(name, fn):
    before = counter(name)
    fn()
    time.sleep(0.2)
    return counter(name) - before


def poll(cq, timeout=2.0):
    end = time.time() + timeout
    while time.time() < end:
        n, wcs = cq.poll(1)
        if n:
            return wcs[0]
        time.sleep(0.01)
    return None


class Rig:
    def __init__(self, sgid_index):
        self.ctx = Context(name=DEV)
        self.pd = PD(self.ctx)
        acc = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
               e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)
        self.mr = MR(self.pd, 65536, acc)
        self.cq = CQ(self.ctx, 64)
        self.sgid_index = sgid_index
        self.wire = rc.Wire(PEER, LOCAL, 'v2')

    def rc_qp(self, qp_type=e.IBV_QPT_RC, max_dest_rd=4, timeout=14):
        cap = QPCap(max_send_wr=16, max_recv_wr=16, max_send_sge=2,
                    max_recv_sge=2)
        qp = QP(self.pd, QPInitAttr(qp_type=qp_type, scq=self.cq,
                                    rcq=self.cq, cap=cap))
        qp.to_rts(self.rc_attr(max_dest_rd, timeout))
        return qp

    def reconnect(self, qp, sq_psn, max_dest_rd=4, timeout=14):
        """RESET, then INIT, RTR and RTS again, the SQ starting at
        @sq_psn."""
        attr = QPAttr()
        attr.qp_state = e.IBV_QPS_RESET
        qp.modify(attr, e.IBV_QP_STATE)
        qp.to_rts(self.rc_attr(max_dest_rd, timeout, sq_psn))

    def rc_attr(self, max_dest_rd=4, timeout=14, sq_psn=0):
        gr = GlobalRoute(dgid=GID('0000:0000:0000:0000:0000:ffff:0a0b:0002'),
                         sgid_index=self.sgid_index)
        attr = QPAttr()
        attr.qp_access_flags = (e.IBV_ACCESS_LOCAL_WRITE |
                                e.IBV_ACCESS_REMOTE_WRITE |
                                e.IBV_ACCESS_REMOTE_READ |
                                e.IBV_ACCESS_REMOTE_ATOMIC)
        attr.path_mtu = e.IBV_MTU_1024
        attr.dest_qp_num = PEER_QPN
        attr.rq_psn = RQ_PSN
        attr.sq_psn = sq_psn
        attr.max_dest_rd_atomic = max_dest_rd
        attr.max_rd_atomic = 1
        attr.min_rnr_timer = 12
        attr.timeout = timeout
        attr.retry_cnt = 7
        attr.rnr_retry = 7
        attr.ah_attr = AHAttr(gr=gr, is_global=1, port_num=1)
        return attr

    def ud_qp(self):
        cap = QPCap(max_send_wr=4, max_recv_wr=8, max_send_sge=1,
                    max_recv_sge=1)
        qp = QP(self.pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=self.cq,
                                    rcq=self.cq, cap=cap))
        attr = QPAttr()
        attr.qkey = QKEY
        attr.sq_psn = 0
        qp.to_rts(attr)
        return qp

    def post_recv(self, qp, off, length, wr_id):
        sge = SGE(self.mr.buf + off, length, self.mr.lkey)
        qp.post_recv(RecvWR(wr_id=wr_id, num_sge=1, sg=[sge]))

    def send(self, transport, **kw):
        self.wire.send(transport, **kw)

    def ask(self, transport, want=1, timeout=2.0, **kw):
        self.wire.drain()
        self.wire.send(transport, **kw)
        return self.wire.replies(want, timeout)


def is_ack(reply, psn, syn_type=0, code=None):
    """reply is an RC ACK (type 0), RNR NAK (1) or NAK (3) for psn."""
    if not reply:
        return False
    b, rest = reply[0]
    if b['opcode'] != rc.RC_ACK or b['psn'] != psn or not b['icrc_ok']:
        return False
    syn, _ = rc.aeth(rest)
    if (syn >> 5) & 3 != syn_type:
        return False
    return code is None or syn & 0x1f == code


def describe(replies):
    return '\n'.join('%s aeth=%s' % (b, rest[:4].hex())
                     for b, rest in replies) or 'no reply'


def test_recv_drops(rig):
    """recv.c: every malformed or foreign packet is dropped and counted."""
    w = rig.wire
    some_qp = 0x123456
    payload = rc.bth(rc.UD_SEND_ONLY, some_qp, 1) + rc.deth(1, 2) + b'x' * 8

    d = counter_delta('rx_icrc_encapsulated',
                      lambda: w.send(payload, bad_icrc=True))
    check('bad ICRC dropped (rx_icrc_encapsulated)', d == 1, d)
    d = counter_delta('rx_drop_no_qp', lambda: w.send(payload))
    check('unknown destination QP dropped (rx_drop_no_qp)', d == 1, d)
    bad = rc.bth(rc.UD_SEND_ONLY, some_qp, 1, pkey=0x1234) + rc.deth(1, 2)
    d = counter_delta('rx_drop_bad_pkey', lambda: w.send(bad))
    check('foreign P_Key dropped (rx_drop_bad_pkey)', d == 1, d)
    d = counter_delta('rx_drop_unsupported', lambda: w.send(
        rc.bth(rc.UD_SEND_ONLY, some_qp, 1, tver=1) + rc.deth(1, 2)))
    check('TVer 1 dropped (rx_drop_unsupported)', d == 1, d)
    d = counter_delta('rx_drop_unsupported', lambda: w.send(
        rc.bth(0x44, some_qp, 1) + b'\0' * 8))
    check('RD opcode dropped (rx_drop_unsupported)', d == 1, d)
    d = counter_delta('rx_drop_malformed', lambda: w.send(
        rc.bth(rc.RC_WRITE_ONLY, some_qp, 1)[:8], pad_to_4=False))
    check('truncated BTH dropped (rx_drop_malformed)', d == 1, d)
    d = counter_delta('rx_drop_malformed', lambda: w.send(
        rc.bth(rc.RC_WRITE_ONLY, some_qp, 1) + b'\0' * 8))
    check('RETH cut short dropped (rx_drop_malformed)', d == 1, d)
    d = counter_delta('rx_drop_malformed', lambda: w.send(
        rc.bth(rc.RC_ACK, some_qp, 1) + b'\0' * 12))
    check('payload on an ACK dropped (rx_drop_malformed)', d == 1, d)
    d = counter_delta('rx_cnp', lambda: w.send(
        rc.bth(rc.CNP, some_qp, 0, becn=True) + b'\0' * 16))
    check('CNP counted (rx_cnp)', d == 1, d)
    d = counter_delta('np_ecn_marked_roce_packets',
                      lambda: w.send(payload, tos=0x03))
    check('ECN CE counted (np_ecn_marked_roce_packets)', d == 1, d)
    d = counter_delta('rx_drop_qp_type', lambda: w.send(
        rc.bth(rc.RC_SEND_ONLY, 1, 1) + b'hi'))
    check('RC opcode to QP1 dropped (rx_drop_qp_type)', d == 1, d)


def test_rc(rig):
    qp = rig.rc_qp()
    qpn = qp.qp_num
    mr = rig.mr
    for i in range(4):
        rig.post_recv(qp, 32768 + i * 4096, 4096, 100 + i)

    r = rig.ask(rc.bth(rc.RC_SEND_ONLY, qpn, 100, ackreq=True) + b'hello')
    check('RC SEND_ONLY is ACKed with its PSN', is_ack(r, 100, 0),
          describe(r))
    wc = poll(rig.cq)
    check('SEND_ONLY completes the receive WQE',
          wc is not None and wc.status == e.IBV_WC_SUCCESS and
          wc.opcode == e.IBV_WC_RECV and wc.byte_len == 5 and
          wc.wr_id == 100 and mr.read(5, 32768) == b'hello',
          wc and (wc.status, wc.opcode, wc.byte_len, wc.wr_id))
    check('ACK carries MSN 1 and the QP\'s source port',
          bool(r) and rc.aeth(r[0][1])[1] == 1 and
          r[0][0]['sport'] >= 0xc000, describe(r))

    r = rig.ask(rc.bth(rc.RC_WRITE_ONLY, qpn, 101, ackreq=True) +
                rc.reth(mr.buf + 64, mr.rkey, 8) + b'ABCDEFGH')
    check('RDMA WRITE_ONLY lands in the MR and is ACKed',
          is_ack(r, 101) and mr.read(8, 64) == b'ABCDEFGH',
          describe(r) + ' mem=' + repr(mr.read(8, 64)))

    r = rig.ask(rc.bth(rc.RC_WRITE_ONLY_IMM, qpn, 102, ackreq=True) +
                rc.reth(mr.buf + 72, mr.rkey, 4) + rc.imm(0x12345678) +
                b'WXYZ')
    wc = poll(rig.cq)
    check('WRITE with immediate completes a WQE with imm_data',
          is_ack(r, 102) and wc is not None and
          wc.opcode == e.IBV_WC_RECV_RDMA_WITH_IMM and
          wc.byte_len == 4 and
          struct.pack('!I', 0x12345678) ==
          struct.pack('=I', wc.imm_data) and mr.read(4, 72) == b'WXYZ',
          wc and (wc.opcode, wc.byte_len, hex(wc.imm_data)))

    data = bytes(range(256)) * 8 + b'tail' * 25
    rig.wire.drain()
    rig.send(rc.bth(rc.RC_SEND_FIRST, qpn, 103) + data[:1024])
    rig.send(rc.bth(rc.RC_SEND_MIDDLE, qpn, 104) + data[1024:2048])
    rig.send(rc.bth(rc.RC_SEND_LAST, qpn, 105, ackreq=True) + data[2048:])
    r = rig.wire.replies(1)
    wc = poll(rig.cq)
    check('3-packet SEND reassembled into one WQE (2148 bytes)',
          is_ack(r, 105) and wc is not None and wc.byte_len == 2148 and
          mr.read(2148, 40960) == data,
          describe(r) + ' wc=' + str(wc and (wc.byte_len, wc.status)))

    mr.write(bytes((i * 7) & 0xff for i in range(3000)), 3000, 4096)
    r = rig.ask(rc.bth(rc.RC_READ_REQ, qpn, 106) +
                rc.reth(mr.buf + 4096, mr.rkey, 3000), want=3)
    ops = [b['opcode'] for b, _ in r]
    psns = [b['psn'] for b, _ in r]
    got = b''
    if len(r) == 3:
        got = r[0][1][4:] + r[1][1] + r[2][1][4:]
        got = got[:3000]
    check('READ of 3000 bytes: FIRST/MIDDLE/LAST, PSN 106-108, data',
          ops == [rc.RC_READ_RESP_FIRST, rc.RC_READ_RESP_MIDDLE,
                  rc.RC_READ_RESP_LAST] and psns == [106, 107, 108] and
          got == mr.read(3000, 4096),
          'ops=%s psns=%s' % (ops, psns))

    mr.write(struct.pack('=Q', 40), 8, 256)
    fa = rc.bth(rc.RC_FETCH_ADD, qpn, 109) + rc.atmeth(mr.buf + 256,
                                                       mr.rkey, 2)
    r = rig.ask(fa)
    orig = (struct.unpack('!Q', r[0][1][4:12])[0]
            if r and r[0][0]['opcode'] == rc.RC_ATOMIC_ACK else None)
    check('FETCH_ADD returns the old value and adds',
          orig == 40 and struct.unpack('=Q', mr.read(8, 256))[0] == 42,
          describe(r))
    r = rig.ask(fa)
    orig = (struct.unpack('!Q', r[0][1][4:12])[0]
            if r and r[0][0]['opcode'] == rc.RC_ATOMIC_ACK else None)
    check('duplicate FETCH_ADD answered from the cache, not re-executed',
          orig == 40 and struct.unpack('=Q', mr.read(8, 256))[0] == 42,
          describe(r) + ' mem=' + str(struct.unpack('=Q', mr.read(8, 256))))
    r = rig.ask(rc.bth(rc.RC_CMP_SWAP, qpn, 110) +
                rc.atmeth(mr.buf + 256, mr.rkey, 7, 42))
    check('CMP_SWAP swaps when equal',
          r and r[0][0]['opcode'] == rc.RC_ATOMIC_ACK and
          struct.unpack('=Q', mr.read(8, 256))[0] == 7, describe(r))

    r = rig.ask(rc.bth(rc.RC_READ_REQ, qpn, 107) +
                rc.reth(mr.buf + 4096 + 1024, mr.rkey, 1976), want=2)
    check('duplicate READ from its 2nd PSN re-sends PSN 107-108',
          [b['psn'] for b, _ in r] == [107, 108], describe(r))

    # The duplicate READ above went back to 107: the atomics at 109 and 110
    # are owed until asked for again, and a re-ACK stops before them.
    d = counter('duplicate_request')
    r = rig.ask(rc.bth(rc.RC_SEND_ONLY, qpn, 100, ackreq=True) + b'hello')
    check('duplicate SEND re-ACKed up to the owed atomic (108), no new '
          'completion',
          is_ack(r, 108) and poll(rig.cq, 0.3) is None and
          counter('duplicate_request') == d + 1, describe(r))

    r = rig.ask(rc.bth(rc.RC_SEND_ONLY, qpn, 120, ackreq=True) + b'x')
    check('PSN gap: one sequence NAK with the expected PSN',
          is_ack(r, 111, 3, 0), describe(r))
    r = rig.ask(rc.bth(rc.RC_SEND_ONLY, qpn, 121, ackreq=True) + b'x',
                timeout=0.5)
    check('second packet of the same gap: no second NAK', not r,
          describe(r))

    # Only one receive WQE is left (wr_id 103): use it, then RNR.
    r = rig.ask(rc.bth(rc.RC_SEND_ONLY, qpn, 111, ackreq=True) + b'last')
    poll(rig.cq)
    r = rig.ask(rc.bth(rc.RC_SEND_ONLY, qpn, 112, ackreq=True) + b'rnr')
    check('no receive WQE: RNR NAK with min_rnr_timer',
          is_ack(r, 112, 1, 12), describe(r))
    rig.post_recv(qp, 32768, 4096, 200)
    r = rig.ask(rc.bth(rc.RC_SEND_ONLY, qpn, 112, ackreq=True) + b'rnr')
    wc = poll(rig.cq)
    check('after post_recv the retried SEND is accepted',
          is_ack(r, 112) and wc is not None and wc.wr_id == 200,
          describe(r))

    rig.post_recv(qp, 32768, 16, 300)
    r = rig.ask(rc.bth(rc.RC_WRITE_ONLY, qpn, 113, ackreq=True) +
                rc.reth(mr.buf + 65000, mr.rkey, 1000) + b'z' * 1000)
    check('WRITE beyond the MR: remote access error NAK',
          is_ack(r, 113, 3, 2), describe(r))
    wc = poll(rig.cq)
    check('... and the QP is in error: the receive WQE is flushed',
          wc is not None and wc.status == e.IBV_WC_WR_FLUSH_ERR and
          wc.wr_id == 300, wc and (wc.status, wc.wr_id))
    r = rig.ask(rc.bth(rc.RC_SEND_ONLY, qpn, 114, ackreq=True) + b'x',
                timeout=0.5)
    check('QP in ERR does not answer', not r, describe(r))
    qp.close()


def test_rc_read_replay(rig):
    """A duplicate READ sends that READ's responses again, not the later
    READs' too: after a go-back-N the requester asks for each again."""
    qp = rig.rc_qp()
    qpn = qp.qp_num
    mr = rig.mr
    mr.write(bytes((i * 13 + 5) & 0xff for i in range(4096)), 4096, 8192)

    def read(psn, off, length, want, timeout=2.0):
        r = rig.ask(rc.bth(rc.RC_READ_REQ, qpn, psn) +
                    rc.reth(mr.buf + 8192 + off, mr.rkey, length),
                    want=want, timeout=timeout)
        return [b['psn'] for b, _ in r], r

    def data_ok(r, off):
        """Payloads of READ responses r are the MR's bytes from off."""
        got = b''.join(rest[4:] if b['opcode'] in (
            rc.RC_READ_RESP_FIRST, rc.RC_READ_RESP_LAST,
            rc.RC_READ_RESP_ONLY) else rest for b, rest in r)
        return got == mr.read(len(got), 8192 + off) and len(got) > 0

    a, _ = read(RQ_PSN, 0, 2048, 2)
    b, _ = read(RQ_PSN + 2, 2048, 2048, 2)
    check('READs A (PSN 100-101) and B (102-103) answered',
          a == [100, 101] and b == [102, 103], 'A %s, B %s' % (a, b))
    # Wait for 4: the responses of B, if they came too, would be seen.
    p, r = read(RQ_PSN, 0, 2048, 4, timeout=1.0)
    check('duplicate A: A\'s responses again, B\'s not (B is asked '
          'for again after it)', p == [100, 101] and data_ok(r, 0), p)
    p, r = read(RQ_PSN + 2, 2048, 2048, 3, timeout=1.0)
    check('... duplicate B next: B\'s responses', p == [102, 103] and
          data_ok(r, 2048), p)
    p, r = read(RQ_PSN + 1, 1024, 1024, 3, timeout=1.0)
    check('duplicate A from its 2nd PSN: that PSN only',
          p == [101] and data_ok(r, 1024), p)
    # B was not asked for again since: a requester that sends a new READ
    # has all of B, or asks again when C's response shows B missing.
    p, r = read(RQ_PSN + 4, 0, 1024, 4, timeout=1.0)
    check('... a new READ C then: C\'s response only (B is owed no more)',
          p == [104] and data_ok(r, 0), p)
    qp.close()


def test_rc_read_owed(rig):
    """After a duplicate READ the later ones are owed until asked for
    again: a new READ is not refused for them, a re-ACK stops before
    them, and a duplicate that skips one makes both due."""
    mr = rig.mr

    def read(qpn, psn, want, timeout=1.0):
        r = rig.ask(rc.bth(rc.RC_READ_REQ, qpn, psn) +
                    rc.reth(mr.buf + 8192, mr.rkey, 1024),
                    want=want, timeout=timeout)
        return [(b['opcode'], b['psn']) for b, _ in r]

    one = rc.RC_READ_RESP_ONLY
    qp = rig.rc_qp(max_dest_rd=1)
    q = qp.qp_num
    got = [read(q, 100, 1), read(q, 101, 1), read(q, 100, 2)]
    check('max_dest_rd_atomic 1: READs A, B, then a duplicate A answered',
          got == [[(one, 100)], [(one, 101)], [(one, 100)]], got)
    got = read(q, 102, 1)
    check('... a new READ C: answered, not refused (B, owed, is not a '
          'responder resource)', got == [(one, 102)], got)
    qp.close()

    qp = rig.rc_qp()
    q = qp.qp_num
    write = (rc.bth(rc.RC_WRITE_ONLY, q, 101, ackreq=True) +
             rc.reth(mr.buf + 8192, mr.rkey, 4) + b'wxyz')
    got = [read(q, 100, 1), rig.ask(write), read(q, 102, 1),
           read(q, 100, 2)]
    check('READ A, WRITE W, READ B, then a duplicate A: A only',
          got[0] == [(one, 100)] and is_ack(got[1], 101) and
          got[2] == [(one, 102)] and got[3] == [(one, 100)],
          '%s %s %s %s' % (got[0], describe(got[1]), got[2], got[3]))
    r = rig.ask(write)
    check('... the duplicate W is re-ACKed up to 101, not over B (owed)',
          is_ack(r, 101), describe(r))
    got = read(q, 102, 2)
    r = rig.ask(write)
    check('... the duplicate B: B\'s response; W\'s ACK then covers B',
          got == [(one, 102)] and is_ack(r, 102),
          '%s %s' % (got, describe(r)))
    qp.close()

    qp = rig.rc_qp()
    q = qp.qp_num
    got = [read(q, 100, 1), read(q, 101, 1), read(q, 102, 1),
           read(q, 100, 2)]
    r = read(q, 102, 3)
    check('READs A, B, C, duplicate A, then C\'s duplicate without B\'s '
          '(lost): B\'s response and C\'s',
          got == [[(one, 100)], [(one, 101)], [(one, 102)], [(one, 100)]]
          and r == [(one, 101), (one, 102)], '%s %s' % (got, r))
    qp.close()


def test_query_psn(rig):
    """ibv_query_qp: sq_psn and rq_psn as they are now (mlx5, rdma_rxe;
    also what `rdma resource show qp` shows), not as modify_qp set them."""
    qp = rig.rc_qp()
    mr = rig.mr
    a, _ = qp.query(e.IBV_QP_SQ_PSN | e.IBV_QP_RQ_PSN | e.IBV_QP_STATE)
    check('query_qp in RTS before any packet: rq_psn %d, sq_psn 0 (as '
          'set)' % RQ_PSN, a.rq_psn == RQ_PSN and a.sq_psn == 0,
          'rq_psn %d sq_psn %d' % (a.rq_psn, a.sq_psn))
    for i in range(3):
        rig.ask(rc.bth(rc.RC_WRITE_ONLY, qp.qp_num, RQ_PSN + i, ackreq=True) +
                rc.reth(mr.buf + 128, mr.rkey, 4) + b'abcd')
    rig.wire.drain()
    wr = SendWR(opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                sg=[SGE(mr.buf, 2048, mr.lkey)])
    wr.set_wr_rdma(0x1234, 0x10000)
    qp.post_send(wr)
    r = rig.wire.replies(2, 2.0)
    # ACKed, so that no retransmission moves sq_psn back meanwhile.
    rig.send(rc.bth(rc.RC_ACK, qp.qp_num, 1) +
             struct.pack('!I', 0x1f << 24 | 1))
    poll(rig.cq)
    a, _ = qp.query(e.IBV_QP_SQ_PSN | e.IBV_QP_RQ_PSN | e.IBV_QP_STATE)
    check('query_qp after 3 requests in and a 2-packet WRITE out: '
          'rq_psn %d, sq_psn 2' % (RQ_PSN + 3),
          len(r) == 2 and a.rq_psn == RQ_PSN + 3 and a.sq_psn == 2,
          'rq_psn %d sq_psn %d, %d packets' % (a.rq_psn, a.sq_psn, len(r)))
    qp.close()


def write_then_read(rig):
    """A new RC QP of sroce1's posts a 4-byte WRITE (wr_id 1, PSN 0) and
    a 2048-byte READ (wr_id 2, PSNs 1-2); (qp, what went: [(opcode,
    psn)]).  Timeout 0: no retransmission timer while a check waits."""
    qp = rig.rc_qp(timeout=0)
    mr = rig.mr
    mr.write(bytes(2048), 2048, 4096)
    rig.wire.drain()
    wr = SendWR(wr_id=1, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                sg=[SGE(mr.buf, 4, mr.lkey)])
    wr.set_wr_rdma(0x1234, 0x10000)
    qp.post_send(wr)
    wr = SendWR(wr_id=2, opcode=e.IBV_WR_RDMA_READ, num_sge=1,
                sg=[SGE(mr.buf + 4096, 2048, mr.lkey)])
    wr.set_wr_rdma(0x1234, 0x20000)
    qp.post_send(wr)
    r = rig.wire.replies(2, 2.0)
    return qp, [(b['opcode'], b['psn']) for b, _ in r]


RESP_ACK = struct.pack('!I', 0x1f << 24 | 1)


def read_answered(rig, qp, wants):
    """The READ of write_then_read() answered in full: the CQEs of
    wants (wr_ids) all SUCCESS, the data in place; (ok, why)."""
    rig.send(rc.bth(rc.RC_READ_RESP_FIRST, qp.qp_num, 1) + RESP_ACK +
             b'a' * 1024)
    rig.send(rc.bth(rc.RC_READ_RESP_LAST, qp.qp_num, 2) + RESP_ACK +
             b'b' * 1024)
    got = []
    for _ in wants:
        wc = poll(rig.cq)
        got.append(wc and (wc.wr_id, wc.status))
    data = rig.mr.read(2048, 4096)
    return (got == [(w, e.IBV_WC_SUCCESS) for w in wants] and
            data == b'a' * 1024 + b'b' * 1024,
            'CQEs %s, data %s...' % (got, data[:8]))


def test_req_malformed(rig):
    """A READ response of the wrong length acknowledges nothing before
    it (comp.c checks it against the READ it answers first)."""
    qp, sent = write_then_read(rig)
    bad = counter('comp_drop_invalid')
    rig.send(rc.bth(rc.RC_READ_RESP_FIRST, qp.qp_num, 1) + RESP_ACK +
             b'x' * 100)
    wc = poll(rig.cq, 0.5)
    check('READ response FIRST of 100 bytes (MTU 1024): dropped '
          '(comp_drop_invalid), the WRITE before it not acknowledged',
          sent == [(rc.RC_WRITE_ONLY, 0), (rc.RC_READ_REQ, 1)] and
          wc is None and counter('comp_drop_invalid') == bad + 1,
          'sent %s, wc %s, comp_drop_invalid +%d' %
          (sent, wc and (wc.wr_id, wc.status),
           counter('comp_drop_invalid') - bad))
    ok, why = read_answered(rig, qp, [1, 2])
    check('then the READ\'s two responses: the WRITE and the READ '
          'complete, the data in place', ok, why)
    qp.close()


def test_req_implied_nak(rig):
    """An ACK past a READ without its response (an implied NAK, C9-150)
    acknowledges what came before the READ: una moves to the READ, and an
    ACK older than that is a duplicate."""
    qp, sent = write_then_read(rig)
    rig.wire.drain()
    rig.send(rc.bth(rc.RC_ACK, qp.qp_num, 2) + RESP_ACK)
    wc = poll(rig.cq)
    r = rig.wire.replies(1, 2.0)
    check('an ACK of the READ\'s last PSN without its responses: the '
          'WRITE completes, the READ request goes again at PSN 1',
          sent == [(rc.RC_WRITE_ONLY, 0), (rc.RC_READ_REQ, 1)] and
          wc is not None and wc.wr_id == 1 and
          wc.status == e.IBV_WC_SUCCESS and len(r) == 1 and
          r[0][0]['opcode'] == rc.RC_READ_REQ and r[0][0]['psn'] == 1,
          'sent %s, wc %s; %s' % (sent, wc and (wc.wr_id, wc.status),
                                  describe(r)))
    dup = counter('comp_duplicate_response')
    rig.send(rc.bth(rc.RC_ACK, qp.qp_num, 0xffffff) + RESP_ACK)
    time.sleep(0.2)
    check('then an ACK of PSN 0xffffff, before the WRITE, is a duplicate '
          '(comp_duplicate_response): una is at the READ',
          counter('comp_duplicate_response') == dup + 1,
          'comp_duplicate_response +%d' %
          (counter('comp_duplicate_response') - dup))
    ok, why = read_answered(rig, qp, [2])
    check('the READ\'s two responses then: SUCCESS, the data in place',
          ok, why)
    qp.close()


def event_fd():
    """The async event file of this process's one verbs context, or
    None (ib_uverbs names it [infinibandevent])."""
    found = []
    for fd in os.listdir('/proc/self/fd'):
        try:
            link = os.readlink('/proc/self/fd/' + fd)
        except OSError:
            continue
        if link == 'anon_inode:[infinibandevent]':
            found.append(int(fd))
    return found[0] if len(found) == 1 else None


def async_events(ctx, fd, timeout):
    """The types of the async events ctx reports within @timeout s
    (each waited for on its file first, so no call blocks)."""
    got = []
    end = time.time() + timeout
    while fd is not None:
        left = end - time.time()
        if left <= 0:
            break
        r, _, _ = select.select([fd], [], [], left)
        if not r:
            break
        ev = ctx.get_async_event()
        got.append(ev.event_type)
        ev.ack()  # ibv_destroy_qp waits for its events' acks
    return got


def rc_write(qp, mr, wr_id, length):
    wr = SendWR(wr_id=wr_id, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                sg=[SGE(mr.buf, length, mr.lkey)])
    wr.set_wr_rdma(0x1234, 0x10000)
    qp.post_send(wr)


def sqd_timeout(qp, timeout):
    """SQD -> SQD with a new timeout: 0, or the errno it failed with."""
    attr = QPAttr()
    attr.qp_state = e.IBV_QPS_SQD
    attr.timeout = timeout
    try:
        qp.modify(attr, e.IBV_QP_STATE | e.IBV_QP_TIMEOUT)
    except PyverbsRDMAError as ex:
        return ex.error_code
    return 0


def test_sqd(rig):
    """SQD (IBA 10.3.1): a message the SQ began before it is finished,
    resent after a NAK; a WQE posted meanwhile waits for RTS;
    ibv_query_qp's sq_draining is 1 until the begun one is acknowledged,
    then IB_EVENT_SQ_DRAINED (asked for with en_sqd_async_notify);
    SQD -> SQD changes attributes only once drained."""
    fd = event_fd()
    async_events(rig.ctx, fd, 0.2)  # what earlier cases left
    qp = rig.rc_qp(timeout=0)  # no retransmission timer meanwhile
    mr = rig.mr
    rig.wire.drain()
    rc_write(qp, mr, 11, 2048)
    sent = [(b['opcode'], b['psn']) for b, _ in rig.wire.replies(2, 2.0)]
    attr = QPAttr()
    attr.qp_state = e.IBV_QPS_SQD
    attr.en_sqd_async_notify = 1
    qp.modify(attr, e.IBV_QP_STATE | e.IBV_QP_EN_SQD_ASYNC_NOTIFY)
    rc_write(qp, mr, 12, 4)
    a, _ = qp.query(e.IBV_QP_STATE)
    draining = a.sq_draining
    busy = sqd_timeout(qp, 20)
    kept = qp.query(e.IBV_QP_TIMEOUT)[0].timeout
    early = async_events(rig.ctx, fd, 0.3)
    rig.send(rc.bth(rc.RC_ACK, qp.qp_num, 1) +
             struct.pack('!I', 0x60 << 24 | 0))
    again = [(b['opcode'], b['psn'])
             for b, _ in rig.wire.replies(2, 1.0)]
    check('SQD with a 2-packet WRITE unacknowledged: sq_draining 1, no '
          'event yet; a sequence NAK at PSN 1 resends its last packet, '
          'the WRITE posted in SQD does not go',
          sent == [(rc.RC_WRITE_FIRST, 0), (rc.RC_WRITE_LAST, 1)] and
          draining == 1 and not early and
          again == [(rc.RC_WRITE_LAST, 1)],
          'sent %s, sq_draining %d, events %s, after the NAK %s' %
          (sent, draining, early, again))
    rig.send(rc.bth(rc.RC_ACK, qp.qp_num, 1) + RESP_ACK)
    wc = poll(rig.cq)
    ev = async_events(rig.ctx, fd, 2.0)
    a, _ = qp.query(e.IBV_QP_STATE)
    quiet = rig.wire.replies(1, 0.3)
    check('its ACK: the WRITE completes, IB_EVENT_SQ_DRAINED, '
          'sq_draining 0, still nothing of the WRITE posted in SQD',
          wc is not None and wc.wr_id == 11 and
          wc.status == e.IBV_WC_SUCCESS and
          ev == [e.IBV_EVENT_SQ_DRAINED] and a.sq_draining == 0 and
          a.qp_state == e.IBV_QPS_SQD and not quiet,
          'wc %s, events %s (event file %s), sq_draining %d, state %d; '
          '%s' % (wc and (wc.wr_id, wc.status), ev, fd, a.sq_draining,
                  a.qp_state, describe(quiet)))
    drained = sqd_timeout(qp, 20)
    a, _ = qp.query(e.IBV_QP_TIMEOUT)
    check('SQD -> SQD with a new timeout: EINVAL while draining (the '
          'begun WRITE is resent with the old one), taken once drained',
          busy == errno.EINVAL and kept == 0 and drained == 0 and
          a.timeout == 20,
          'while draining %d (timeout then %d), drained %d, timeout now %d' %
          (busy, kept, drained, a.timeout))
    attr = QPAttr()
    attr.qp_state = e.IBV_QPS_RTS
    qp.modify(attr, e.IBV_QP_STATE)
    r = rig.wire.replies(1, 2.0)
    if r:
        rig.send(rc.bth(rc.RC_ACK, qp.qp_num, r[0][0]['psn']) + RESP_ACK)
    wc = poll(rig.cq)
    check('back in RTS: the WRITE posted in SQD goes at PSN 2 and '
          'completes',
          len(r) == 1 and r[0][0]['opcode'] == rc.RC_WRITE_ONLY and
          r[0][0]['psn'] == 2 and wc is not None and wc.wr_id == 12 and
          wc.status == e.IBV_WC_SUCCESS,
          '%s; wc %s' % (describe(r), wc and (wc.wr_id, wc.status)))
    attr = QPAttr()
    attr.qp_state = e.IBV_QPS_SQD
    attr.en_sqd_async_notify = 1
    qp.modify(attr, e.IBV_QP_STATE | e.IBV_QP_EN_SQD_ASYNC_NOTIFY)
    ev = async_events(rig.ctx, fd, 2.0)
    a, _ = qp.query(e.IBV_QP_STATE)
    check('SQD again with nothing outstanding: drained at once '
          '(IB_EVENT_SQ_DRAINED, sq_draining 0)',
          ev == [e.IBV_EVENT_SQ_DRAINED] and a.sq_draining == 0,
          'events %s, sq_draining %d' % (ev, a.sq_draining))
    qp.close()


def test_max_msg(rig):
    """max_msg_sz is 2^30 (24-bit PSNs: a READ of 2^31 bytes at MTU 256
    would take 2^23); one byte more completes with LOC_LEN_ERR, before
    its SGE is even looked at; 2^30 itself passes the length check, and
    fails only on the SGE (the 64 KiB MR): LOC_PROT_ERR."""
    port = rig.ctx.query_port(1)
    got = []
    for length in ((1 << 30) + 1, 1 << 30):
        qp = rig.rc_qp()
        wr = SendWR(wr_id=7, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                    sg=[SGE(rig.mr.buf, length, rig.mr.lkey)])
        wr.set_wr_rdma(0x1234, 0x10000)
        qp.post_send(wr)
        wc = poll(rig.cq)
        got.append(wc and (wc.wr_id, wc.status))
        qp.close()
    check('max_msg_sz 2^30; a WRITE of 2^30 + 1 bytes: LOC_LEN_ERR, of '
          '2^30 bytes (beyond its MR): LOC_PROT_ERR',
          port.max_msg_sz == 1 << 30 and
          got == [(7, e.IBV_WC_LOC_LEN_ERR), (7, e.IBV_WC_LOC_PROT_ERR)],
          'max_msg_sz %d, CQEs %s' % (port.max_msg_sz, got))


def test_rc_delayed_ack(rig):
    """A message end without AckReq is ACKed, later, by the ack timer."""
    qp = rig.rc_qp()
    mr = rig.mr
    d = counter('resp_delayed_acks')
    rig.wire.drain()
    t0 = time.time()
    rig.send(rc.bth(rc.RC_WRITE_ONLY, qp.qp_num, RQ_PSN) +
             rc.reth(mr.buf + 128, mr.rkey, 4) + b'abcd')
    r = rig.wire.replies(1, 2.0)
    dt = time.time() - t0
    check('WRITE_ONLY without AckReq: ACKed by the delayed ACK',
          is_ack(r, RQ_PSN) and mr.read(4, 128) == b'abcd' and
          counter('resp_delayed_acks') == d + 1,
          '%s after %.3f s, resp_delayed_acks +%d' %
          (describe(r), dt, counter('resp_delayed_acks') - d))
    qp.close()


def test_uc(rig):
    """UC: no ACKs; a gap drops the message, the next one gets the WQE."""
    qp = rig.rc_qp(qp_type=e.IBV_QPT_UC)
    qpn = qp.qp_num
    rig.post_recv(qp, 32768, 4096, 700)
    drops = counter('rx_drop_uc_msg')
    rig.wire.drain()
    rig.send(rc.bth(rc.UC_SEND_FIRST, qpn, 100) + b'a' * 1024)
    rig.send(rc.bth(rc.UC_SEND_LAST, qpn, 102) + b'c' * 10)
    time.sleep(0.2)
    check('UC message with a lost middle packet: dropped, no completion',
          poll(rig.cq, 0.3) is None and
          counter('rx_drop_uc_msg') == drops + 1,
          counter('rx_drop_uc_msg') - drops)
    rig.send(rc.bth(rc.UC_SEND_FIRST, qpn, 103) + b'A' * 1024)
    rig.send(rc.bth(rc.UC_SEND_LAST, qpn, 104) + b'B' * 10)
    wc = poll(rig.cq)
    check('next UC message lands in the same receive WQE',
          wc is not None and wc.wr_id == 700 and wc.byte_len == 1034 and
          rig.mr.read(1034, 32768) == b'A' * 1024 + b'B' * 10,
          wc and (wc.wr_id, wc.byte_len, wc.status))
    check('UC never answers', not rig.wire.replies(1, 0.3))
    qp.close()


def test_ud(rig):
    qp = rig.ud_qp()
    qpn = qp.qp_num
    rig.post_recv(qp, 0, 1024, 500)
    rig.send(rc.bth(rc.UD_SEND_ONLY_IMM, qpn, 5, se=True) +
             rc.deth(QKEY, 0x4567) + rc.imm(0xcafe) + b'datagram')
    wc = poll(rig.cq)
    grh = rig.mr.read(40, 0)
    check('UD SEND: completion with GRH, src_qp and imm',
          wc is not None and wc.status == e.IBV_WC_SUCCESS and
          wc.byte_len == 48 and wc.src_qp == 0x4567 and
          wc.wc_flags & e.IBV_WC_GRH and wc.wc_flags & e.IBV_WC_WITH_IMM and
          rig.mr.read(8, 40) == b'datagram',
          wc and (wc.status, wc.byte_len, hex(wc.src_qp), wc.wc_flags))
    check('UD GRH area holds the IPv4 header at offset 20',
          grh[20] == 0x45 and grh[32:36] == bytes([10, 11, 0, 2]),
          grh.hex())
    d = counter_delta('rx_drop_bad_qkey', lambda: rig.send(
        rc.bth(rc.UD_SEND_ONLY, qpn, 6) + rc.deth(QKEY + 1, 1) + b'x'))
    check('UD with a wrong Q_Key dropped (rx_drop_bad_qkey)',
          d == 1 and poll(rig.cq, 0.3) is None, d)
    d = counter_delta('out_of_buffer', lambda: rig.send(
        rc.bth(rc.UD_SEND_ONLY, qpn, 7) + rc.deth(QKEY, 1) + b'x'))
    check('UD without a receive WQE dropped (out_of_buffer)', d == 1, d)
    qp.close()


def main():
    rig = Rig(int(sys.argv[1]))
    print('KTAP version 1')
    print('# sroce receive path and responder on the wire')
    print('1..62')
    test_recv_drops(rig)
    test_rc(rig)
    test_rc_read_replay(rig)
    test_rc_read_owed(rig)
    test_query_psn(rig)
    test_req_malformed(rig)
    test_req_implied_nak(rig)
    test_max_msg(rig)
    test_sqd(rig)
    test_rc_delayed_ack(rig)
    test_uc(rig)
    test_ud(rig)
    finish()


if __name__ == '__main__':
    main()
