// SPDX-License-Identifier: GPL-2.0
/*
 * req_pkt.c - the requester's packets: opcode, headers and payload of the
 * next request packet of the WQE at req.next, sent alone
 * (sroce_req_send_one()) or with the packets after it as one batch
 * (sroce_req_send_batch(), pkt.h).  Which WQE goes next, and when, is
 * req.c's; both run under req.lock.
 */
#include "comp.h"
#include "counters.h"
#include "device.h"
#include "fr.h"
#include "int.h"
#include "mem.h"
#include "pkt.h"
#include "proto/opcode.h"
#include "proto/psn.h"
#include "qp.h"
#include "req.h"
#include "req_pkt.h"

static u8 sroce_req_opcode(struct sroce_qp *qp, u32 op, bool first, bool last)
{
	u8 base = qp->init.qp_type == IB_QPT_UC ? SROCE_TRANSPORT_UC :
						  SROCE_TRANSPORT_RC;

	switch (op) {
	case SROCE_WR_SEND:
	case SROCE_WR_SEND_WITH_IMM:
	case SROCE_WR_SEND_WITH_INV:
		if (qp->init.qp_type == IB_QPT_UD ||
		    qp->init.qp_type == IB_QPT_GSI)
			return op == SROCE_WR_SEND ? SROCE_OP_UD_SEND_ONLY :
						     SROCE_OP_UD_SEND_ONLY_IMM;
		if (!last)
			return base | (first ? SROCE_OP_RC_SEND_FIRST :
					       SROCE_OP_RC_SEND_MIDDLE);
		if (op == SROCE_WR_SEND_WITH_INV)
			return first ? SROCE_OP_RC_SEND_ONLY_INV :
				       SROCE_OP_RC_SEND_LAST_INV;
		if (op == SROCE_WR_SEND_WITH_IMM)
			return base | (first ? SROCE_OP_RC_SEND_ONLY_IMM :
					       SROCE_OP_RC_SEND_LAST_IMM);
		return base |
		       (first ? SROCE_OP_RC_SEND_ONLY : SROCE_OP_RC_SEND_LAST);
	case SROCE_WR_RDMA_WRITE:
	case SROCE_WR_RDMA_WRITE_WITH_IMM:
		if (!last)
			return base | (first ? SROCE_OP_RC_WRITE_FIRST :
					       SROCE_OP_RC_WRITE_MIDDLE);
		if (op == SROCE_WR_RDMA_WRITE_WITH_IMM)
			return base | (first ? SROCE_OP_RC_WRITE_ONLY_IMM :
					       SROCE_OP_RC_WRITE_LAST_IMM);
		return base | (first ? SROCE_OP_RC_WRITE_ONLY :
				       SROCE_OP_RC_WRITE_LAST);
	case SROCE_WR_RDMA_READ:
		return SROCE_OP_RC_READ_REQ;
	case SROCE_WR_ATOMIC_CMP_AND_SWP:
		return SROCE_OP_RC_CMP_SWAP;
	default:
		return SROCE_OP_RC_FETCH_ADD;
	}
}

/* PSNs a message occupies: one per MTU of payload (READ: of response). */
static u32 sroce_req_npkts(struct sroce_qp *qp, struct sroce_swqe *swqe)
{
	u32 op = swqe->wqe.opcode;

	if (op == SROCE_WR_ATOMIC_CMP_AND_SWP ||
	    op == SROCE_WR_ATOMIC_FETCH_AND_ADD || !swqe->len)
		return 1;
	return DIV_ROUND_UP_ULL(swqe->len, qp->req.mtu);
}

static void sroce_req_fill_ext(struct sroce_qp *qp, struct sroce_swqe *swqe,
			       const struct sroce_opcode_info *oi, void *bth,
			       bool last)
{
	const struct sroce_send_wqe *w = &swqe->wqe;

	if (oi->mask & SROCE_HDR_RETH) {
		struct sroce_reth *reth =
			sroce_opcode_ext(oi, bth, SROCE_EXT_RETH);

		sroce_reth_set_va(reth, w->wr.rdma.remote_addr + swqe->sent);
		sroce_reth_set_rkey(reth, w->wr.rdma.rkey);
		sroce_reth_set_len(reth, swqe->len - swqe->sent);
	}
	if (oi->mask & SROCE_HDR_ATMETH) {
		struct sroce_atmeth *a =
			sroce_opcode_ext(oi, bth, SROCE_EXT_ATMETH);

		sroce_atmeth_set_va(a, w->wr.atomic.remote_addr);
		sroce_atmeth_set_rkey(a, w->wr.atomic.rkey);
		if (w->opcode == SROCE_WR_ATOMIC_CMP_AND_SWP) {
			sroce_atmeth_set_swap(a, w->wr.atomic.swap);
			sroce_atmeth_set_compare(a, w->wr.atomic.compare_add);
		} else {
			sroce_atmeth_set_swap(a, w->wr.atomic.compare_add);
		}
	}
	if (oi->mask & SROCE_HDR_DETH) {
		struct sroce_deth *d =
			sroce_opcode_ext(oi, bth, SROCE_EXT_DETH);
		u32 qkey = w->wr.ud.remote_qkey;

		/* IBA 10.2.4: a controlled Q_Key means "use the QP's". */
		if (qkey & 0x80000000U)
			qkey = qp->req.qkey;
		sroce_deth_set_qkey(d, qkey);
		sroce_deth_set_srcqp(d, qp->ibqp.qp_num);
	}
	if (oi->mask & SROCE_HDR_IMMDT)
		sroce_immdt_set_imm(sroce_opcode_ext(oi, bth, SROCE_EXT_IMMDT),
				    w->ex.imm_data);
	if (oi->mask & SROCE_HDR_IETH)
		sroce_ieth_set_rkey(sroce_opcode_ext(oi, bth, SROCE_EXT_IETH),
				    w->ex.invalidate_rkey);
}

/* Copy payload bytes [off, off + len) of the message into @buf. */
static int sroce_req_copy_payload(struct sroce_qp *qp, struct sroce_swqe *swqe,
				  void *buf, u32 len, u32 off)
{
	if (!len)
		return 0;
	if (swqe->wqe.flags & SROCE_WQE_INLINE) {
		memcpy(buf, swqe->data + off, len);
		return 0;
	}
	return sroce_mem_sge_copy(qp->sdev, qp->ibqp.pd, sroce_swqe_sge(swqe),
				  swqe->wqe.num_sge, off, buf, len,
				  SROCE_FROM_MEM);
}

/* The first time a WQE goes out (or after a full restart): PSNs. */
static void sroce_req_start(struct sroce_qp *qp, struct sroce_swqe *swqe)
{
	struct sroce_req *req = &qp->req;
	u32 npkts = sroce_req_npkts(qp, swqe);

	lockdep_assert_held(&req->lock);

	swqe->first_psn = req->psn;
	swqe->last_psn = sroce_psn_add(req->psn, npkts - 1);
	swqe->rd_psn = req->psn;
	swqe->sent = 0;
	swqe->started = true;
	/* @swqe is the WQE at req.next (every caller's). */
	sroce_req_started_to(req, req->next + 1);
}

/* req.psn moved on: the newest PSN ever sent may have too (RC). */
static void sroce_req_psn_moved(struct sroce_req *req)
{
	lockdep_assert_held(&req->lock);
	if (sroce_psn_after(req->psn, req->psn_max))
		req->psn_max = req->psn;
}

/*
 * After a go-back-N rewound req.psn, an ACK of the first transmission
 * (or of a duplicate, which the responder answers with the newest PSN it
 * has) may acknowledge packets the requester is about to send again.
 * Without this the completer could only accept ACKs up to req.psn: a QP
 * that resends slowly (paced, or one packet at a time after a timeout)
 * would drop as invalid every ACK that is ahead of its resend, and time
 * out again with everything delivered.  So skip, message by message, the
 * packets before @una: SEND and WRITE messages only; a READ or atomic
 * stops it (its responses, or their absence, decide; comp.c), and so
 * does a local operation (it waits for the completions before it).
 */
void sroce_req_catch_up(struct sroce_qp *qp, u32 una)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&req->lock);
	while (sroce_psn_before(req->psn, una) && req->next != req->fetched) {
		struct sroce_swqe *swqe = sroce_req_swqe(qp, req->next);
		u32 op = swqe->wqe.opcode;
		u32 left, skip;

		if (sroce_wr_is_rd_atomic(op) || sroce_fr_local_op(op))
			return;
		if (!swqe->started)
			sroce_req_start(qp, swqe);
		/* Packets of the message from req.psn on; skip those acked. */
		left = sroce_psn_diff(swqe->last_psn, req->psn) + 1;
		skip = min_t(u32, left, sroce_psn_diff(una, req->psn));
		swqe->sent = min_t(u64, swqe->sent + (u64)skip * req->mtu,
				   swqe->len);
		req->psn = sroce_psn_add(req->psn, skip);
		req->pkts_since_ackreq = 0;
		if (skip < left)
			return;
		req->next++;
	}
}

/*
 * A go-back-N (a spurious timeout, or a gap made by responses that came
 * out of order) rewound req.psn into the READ at req.next, which is
 * req.done, and responses of its first request arrive before the request
 * goes again: late, not lost.  The completer keeps them (comp.c), and the
 * request that goes again asks only for the rest.  A READ whose last
 * response arrived is not asked again at all: its request would go for a
 * WQE that has completed, no response would ever complete it, and it
 * would hold one of max_rd_atomic for ever (req.rd_inflight), until a QP
 * with nothing in flight could send no READ and no timer ran.
 */
void sroce_req_read_catch_up(struct sroce_qp *qp, struct sroce_swqe *swqe)
{
	struct sroce_req *req = &qp->req;
	u32 n;

	lockdep_assert_held(&req->lock);
	if (req->next != req->done || !sroce_psn_after(swqe->rd_psn, req->psn))
		return;
	n = sroce_psn_diff(swqe->rd_psn, swqe->first_psn);
	swqe->sent = min_t(u64, (u64)n * req->mtu, swqe->len);
	req->psn = swqe->rd_psn;
	req->pkts_since_ackreq = 0;
	if (swqe->sent == swqe->len)
		req->next++;
}

/*
 * Does the last packet of the message at @psn ask for an ACK?  A signaled
 * message's does: its completion waits for it.  An unsignaled one's need
 * not: a later ACK covers it (IBA 9.7.5.1.1, ACKs coalesce), and a
 * stream of small unsignaled WRITEs then costs one ACK per
 * SROCE_REQ_ACKREQ_EVERY packets instead of one per message.  A resent
 * message always asks, and so does every message while the device's
 * ack_coalesce is off.
 */
static bool sroce_req_last_ackreq(struct sroce_qp *qp,
				  const struct sroce_swqe *swqe, u32 psn)
{
	struct sroce_req *req = &qp->req;

	/* Past what was resent (whatever asks now): not a resend any more. */
	if (req->resend && !sroce_psn_before(psn, req->resend_end))
		req->resend = false;
	if (swqe->signaled || !READ_ONCE(qp->sdev->ack_coalesce))
		return true;
	return req->resend;
}

/*
 * Does the packet @psn ask now, wherever it lies in its message?  While
 * the window is reduced after a loss (comp.c), the one that fills it:
 * the next ones wait for its ACK, which the responder would otherwise
 * coalesce (every 16 packets, or a delayed ACK after a message's end).
 * And a packet that goes a quarter of the retransmit timeout (at least a
 * jiffy) after the newest one that asked: a QP paced at a few Mb/s
 * (rpg_min_rate) sends the 16 packets of a 64 KB message in longer than
 * its timeout, so without an ACK in between its timer would expire while
 * every packet arrives, and each go-back-N would start the same message
 * again until the retries ran out.
 */
static bool sroce_req_ackreq_now(struct sroce_qp *qp, u32 psn)
{
	struct sroce_req *req = &qp->req;
	unsigned long quarter =
		max_t(unsigned long, req->timeout_jiffies / 4, 1);

	if (req->win.size < SROCE_REQ_WINDOW &&
	    sroce_psn_diff(psn, req->una_psn) + 1 >= (s32)req->win.size)
		return true;
	return req->timeout_jiffies &&
	       time_after_eq(jiffies, req->ackreq_stamp + quarter);
}

/*
 * The BTH and extension headers of a request packet at @bth.  AckReq:
 * sroce_req_last_ackreq() on an RC message's last packet, every
 * SROCE_REQ_ACKREQ_EVERY packets (*@since_ackreq counts them) and when
 * sroce_req_ackreq_now() says so.  Returns whether the packet asks for
 * an ACK.
 */
static bool sroce_req_fill_hdrs(struct sroce_qp *qp, struct sroce_swqe *swqe,
				u8 opcode, u32 paylen, bool last, u32 dqpn,
				u32 psn, u32 *since_ackreq, void *bth)
{
	const struct sroce_opcode_info *oi = sroce_opcode_info(opcode);
	bool ackreq = qp->init.qp_type == IB_QPT_RC &&
		      ((last && sroce_req_last_ackreq(qp, swqe, psn)) ||
		       ++*since_ackreq >= SROCE_REQ_ACKREQ_EVERY ||
		       sroce_req_ackreq_now(qp, psn));
	bool se = last && (swqe->wqe.flags & SROCE_WQE_SOLICITED) &&
		  (oi->flags & SROCE_OPF_SE_OK);

	if (ackreq) {
		*since_ackreq = 0;
		qp->req.ackreq_stamp = jiffies;
	}
	sroce_bth_init(bth, opcode, se, sroce_bth_pad_for(paylen),
		       SROCE_DEFAULT_PKEY, dqpn, ackreq, psn);
	sroce_int_tx_req(qp, bth);
	sroce_req_fill_ext(qp, swqe, oi, bth, last);
	return ackreq;
}

/*
 * The sequence state one transmission moves, saved before it so that it
 * can be taken back (sroce_req_refused()).
 */
struct sroce_req_undo {
	u32 psn;
	u32 psn_max;
	u32 since_ackreq;
	u32 rd_inflight;
	u32 sent; /* of the WQE at req.next */
	unsigned long ackreq_stamp;
	bool resend;
};

static void sroce_req_undo_save(const struct sroce_qp *qp,
				const struct sroce_swqe *swqe,
				struct sroce_req_undo *u)
{
	const struct sroce_req *req = &qp->req;

	u->psn = req->psn;
	u->psn_max = req->psn_max;
	u->since_ackreq = req->pkts_since_ackreq;
	u->rd_inflight = req->rd_inflight;
	u->sent = swqe->sent;
	u->ackreq_stamp = req->ackreq_stamp;
	u->resend = req->resend;
}

/*
 * The local queue refused what was just built (@err NET_XMIT_DROP: a full
 * qdisc on the netdev, or a full veth backlog): none of it left the host
 * (but for a @batch, below).
 * An RC QP takes it back, as if it had not been built, and sends it again
 * after a hold (sroce_comp_local_drop()), instead of leaving the peer to
 * find a gap or the retransmit timer a loss.  A hardware NIC never drops
 * at its own egress: it waits.  Other errors (no route, link down, a
 * firewall) are losses as on the wire, and UC and UD, which have no
 * resend, lose the message as on the wire.  Returns true if taken back.
 */
static bool sroce_req_refused(struct sroce_qp *qp, struct sroce_swqe *swqe,
			      const struct sroce_req_undo *u, int err,
			      bool batch)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&req->lock);

	if (err != NET_XMIT_DROP || qp->init.qp_type != IB_QPT_RC)
		return false;
	req->psn = u->psn;
	/*
	 * A batch that the stack segments before the queue (a noqueue
	 * netdev without UDP segmentation) reports only its last segment's
	 * fate: the first ones may have left.  The peer's ACKs of those must
	 * stay valid (sroce_req_catch_up()), so req.psn_max keeps them.
	 */
	if (!batch)
		req->psn_max = u->psn_max;
	req->pkts_since_ackreq = u->since_ackreq;
	req->rd_inflight = u->rd_inflight;
	req->ackreq_stamp = u->ackreq_stamp;
	req->resend = u->resend;
	swqe->sent = u->sent;
	sroce_counter_inc(qp->sdev, SROCE_CNT_REQ_TX_HELD);
	sroce_comp_local_drop(qp);
	return true;
}

/*
 * After packets of the WQE at req.next went out: RC arms the retransmit
 * timer, and the tail timer when the newest packet (a SEND or WRITE one)
 * asked for no ACK (@ackreq false); when @last (the message is all sent)
 * the WQE is done, and UC and UD complete it now (IBA 9.8.3, 9.8.2).
 */
static void sroce_req_after_xmit(struct sroce_qp *qp, bool last, bool ackreq)
{
	struct sroce_req *req = &qp->req;
	bool rc = qp->init.qp_type == IB_QPT_RC;

	lockdep_assert_held(&req->lock);

	req->hold_shift = 0; /* the local queue took it */
	if (rc) {
		u32 op = sroce_req_swqe(qp, req->next)->wqe.opcode;
		bool rd = sroce_wr_is_rd_atomic(op);

		sroce_comp_arm_retrans(qp);
		/*
		 * READ and atomic requests are answered whatever they ask,
		 * up to their last response PSN: the tail timer waits for
		 * those answers as for an asked-for ACK, rather than go back
		 * into a READ whose responses are still coming.
		 */
		req->tail_unreq = !ackreq && !rd;
		if (ackreq || rd)
			req->ackreq_psn =
				sroce_psn_add(req->psn, SROCE_PSN_MAX);
		if (req->tail_unreq) {
			req->tail_stamp = jiffies;
			if (!timer_pending(&req->tail_timer))
				mod_timer(&req->tail_timer,
					  jiffies + SROCE_REQ_TAIL_JIFFIES);
		}
	}
	if (!last)
		return;
	qp->req.next++;
	if (!rc)
		sroce_req_complete(qp, qp->req.next - 1, IB_WC_SUCCESS);
}

int sroce_req_send_one(struct sroce_qp *qp, struct sroce_swqe *swqe)
{
	struct sroce_req *req = &qp->req;
	const struct sroce_av *av = &qp->av;
	const struct sroce_opcode_info *oi;
	bool rc = qp->init.qp_type == IB_QPT_RC;
	bool first, last, rd_atomic, ackreq;
	u32 paylen, psn, dqpn, len;
	struct sroce_req_undo undo;
	struct sk_buff *skb;
	void *bth;
	u8 opcode;
	int err;

	lockdep_assert_held(&req->lock);

	if (!swqe->started)
		sroce_req_start(qp, swqe);
	rd_atomic = sroce_wr_is_rd_atomic(swqe->wqe.opcode);
	paylen = rd_atomic ? 0 : min_t(u64, req->mtu, swqe->len - swqe->sent);
	first = swqe->sent == 0;
	last = rd_atomic || swqe->sent + paylen >= swqe->len;
	opcode = sroce_req_opcode(qp, swqe->wqe.opcode, first, last);
	oi = sroce_opcode_info(opcode);
	dqpn = req->dest_qpn;
	if (qp->init.qp_type == IB_QPT_UD || qp->init.qp_type == IB_QPT_GSI) {
		av = &swqe->av;
		dqpn = swqe->wqe.wr.ud.remote_qpn;
	}

	skb = sroce_pkt_alloc(qp->sdev, av, opcode, paylen, GFP_ATOMIC);
	if (unlikely(!skb))
		return -EAGAIN;
	bth = skb->data;
	if (sroce_req_copy_payload(qp, swqe, bth + sroce_opcode_hdr_len(oi),
				   paylen, swqe->sent)) {
		kfree_skb(skb);
		sroce_req_fatal(qp, req->next, IB_WC_LOC_PROT_ERR);
		return -EIO;
	}

	psn = req->psn;
	sroce_req_undo_save(qp, swqe, &undo);
	ackreq = sroce_req_fill_hdrs(qp, swqe, opcode, paylen, last, dqpn, psn,
				     &req->pkts_since_ackreq, bth);

	if (rd_atomic) {
		/* A READ request occupies the PSNs of its responses. */
		req->psn = sroce_psn_next(swqe->last_psn);
		swqe->sent = swqe->len;
		req->rd_inflight++;
	} else {
		req->psn = sroce_psn_next(psn);
		swqe->sent += paylen;
	}
	sroce_req_psn_moved(req);
	len = skb->len;
	err = sroce_pkt_xmit(qp->sdev, av, req->sport, skb);
	if (unlikely(err) && sroce_req_refused(qp, swqe, &undo, err, false))
		return 0;
	sroce_cc_sent(qp, &qp->cc, len);
	if (rc)
		sroce_cc_rtt_sent(qp, &qp->cc, psn);
	sroce_req_after_xmit(qp, last, ackreq);
	return 0;
}

/* ---- batches: equal-size packets as one GSO skb (pkt.h) ---- */

/*
 * May the WQE at req.next go out in batches from here?  RC and UC SEND
 * and WRITE messages with at least two packets left, while no rate limit
 * paces the QP (a batch leaves at once), and not right after the local
 * queue refused something (req.hold_shift): one packet first, which
 * fits where a batch may never (a byte limit below a batch's size).
 */
static bool sroce_req_batch_ok(struct sroce_qp *qp, struct sroce_swqe *swqe)
{
	enum ib_qp_type t = qp->init.qp_type;

	lockdep_assert_held(&qp->req.lock);

	if (t != IB_QPT_RC && t != IB_QPT_UC)
		return false;
	if (qp->req.hold_shift)
		return false;
	if (sroce_wr_is_rd_atomic(swqe->wqe.opcode))
		return false;
	if (swqe->len - (swqe->started ? swqe->sent : 0) <= qp->req.mtu)
		return false;
	return !READ_ONCE(qp->cc.active) && sroce_txb_enabled(qp->sdev);
}

/* A batch's cursor in the WQE at req.next (sroce_txb_build()). */
struct sroce_req_txb {
	struct sroce_qp *qp;
	struct sroce_swqe *swqe;
	u32 sent;
	u32 psn;
	u32 since_ackreq;
	bool ackreq; /* the newest packet built asks for an ACK */
};

static void sroce_req_txb_next(void *ctx, struct sroce_txb_pkt *p)
{
	struct sroce_req_txb *t = ctx;

	p->paylen = min_t(u64, t->qp->req.mtu, t->swqe->len - t->sent);
	p->last = t->sent + p->paylen >= t->swqe->len;
	p->opcode =
		sroce_req_opcode(t->qp, t->swqe->wqe.opcode, !t->sent, p->last);
}

static int sroce_req_txb_fill(void *ctx, const struct sroce_txb_pkt *p, u8 *bth)
{
	struct sroce_req_txb *t = ctx;

	if (sroce_req_copy_payload(t->qp, t->swqe, bth + p->hdrlen, p->paylen,
				   t->sent))
		return -EFAULT;
	t->ackreq = sroce_req_fill_hdrs(t->qp, t->swqe, p->opcode, p->paylen,
					p->last, t->qp->req.dest_qpn, t->psn,
					&t->since_ackreq, bth);
	t->psn = sroce_psn_next(t->psn);
	t->sent += p->paylen;
	return 0;
}

static const struct sroce_txb_src sroce_req_txb_src = {
	.next = sroce_req_txb_next,
	.fill = sroce_req_txb_fill,
};

int sroce_req_send_batch(struct sroce_qp *qp, struct sroce_swqe *swqe, u32 max)
{
	struct sroce_req *req = &qp->req;
	bool rc = qp->init.qp_type == IB_QPT_RC;
	struct sroce_req_undo undo;
	struct sroce_req_txb t;
	struct sroce_txb b;
	int n, err;
	u32 len;

	lockdep_assert_held(&req->lock);

	if (!sroce_req_batch_ok(qp, swqe))
		return 0;
	if (!swqe->started)
		sroce_req_start(qp, swqe);
	if (rc)
		max = min_t(s32, max,
			    (s32)req->win.size -
				    sroce_psn_diff(req->psn, req->una_psn));
	sroce_req_undo_save(qp, swqe, &undo);
	/* Build on copies of the sequence state; commit once all are built. */
	t = (struct sroce_req_txb){ .qp = qp,
				    .swqe = swqe,
				    .sent = swqe->sent,
				    .psn = req->psn,
				    .since_ackreq = req->pkts_since_ackreq };
	n = sroce_txb_build(&b, qp->sdev, req->mtu, max, &sroce_req_txb_src,
			    &t);
	if (n <= 0)
		return n == -ENOMEM ? -EAGAIN : 0;

	req->psn = t.psn;
	sroce_req_psn_moved(req);
	req->pkts_since_ackreq = t.since_ackreq;
	swqe->sent = t.sent;
	len = b.skb->len;
	err = sroce_txb_xmit(qp->sdev, &qp->av, req->sport, &b);
	if (unlikely(err) && sroce_req_refused(qp, swqe, &undo, err, true))
		return n;
	sroce_counter_inc(qp->sdev, SROCE_CNT_TX_BATCHES);
	sroce_cc_sent(qp, &qp->cc, len);
	if (rc)
		sroce_cc_rtt_sent(qp, &qp->cc, undo.psn);
	sroce_req_after_xmit(qp, t.sent >= swqe->len, t.ackreq);
	return n;
}
