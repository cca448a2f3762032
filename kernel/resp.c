// SPDX-License-Identifier: GPL-2.0
/*
 * resp.c - the responder (IBA 9.7 reliable service, 9.8 unreliable
 * service): request packets in, receive completions, ACK/NAK out.
 *
 * Context: RECEIVE side of a QP, see resp.h.  Per packet:
 *
 *  1. sroce_resp_snapshot() copies the QP attributes the responder needs
 *     (state, path MTU, access flags, Q_Key, rq_psn, peer address) under
 *     qp->lock, before resp.lock is taken (lock order qp->lock ->
 *     resp.lock).  resp.gen, bumped by reset, tells a snapshot that raced
 *     with a reset from one that did not.
 *  2. Under resp.lock: PSN check (RC: duplicate -> re-ACK or replay from
 *     the READ/atomic history, gap -> one PSN sequence NAK; UC: gap ->
 *     drop the message), opcode sequence and length checks, then the
 *     operation (SEND into the receive WQE, WRITE into the MR, READ and
 *     atomic into the history whose responses resp_rd.c sends in order).
 *  3. After resp.lock: asynchronous events, the recv CQ's callbacks for
 *     the CQEs produced under it (cq.h), and the move to ERR when the
 *     request was fatal (IBA 9.9.3: invalid request, remote access and
 *     remote operational errors put the responder's QP in error).
 *
 * Receive WQEs are copied out of the RQ ring (or the QP's SRQ, srq.c) once,
 * validated on the copy (num_sge <= rq.max_sge) and given back to the ring
 * at once; the copy in resp.wqe is the WQE until its CQE is posted.
 */
#include <linux/skbuff.h>
#include <rdma/ib_mad.h>

#include "counters.h"
#include "cq.h"
#include "device.h"
#include "ecn.h"
#include "fr.h"
#include "int.h"
#include "mcast.h"
#include "mem.h"
#include "mr.h"
#include "pkt.h"
#include "proto/hdr.h"
#include "proto/opcode.h"
#include "proto/psn.h"
#include "qp.h"
#include "recv.h"
#include "req.h"
#include "resp.h"
#include "resp_rd.h"
#include "srq.h"
#include "task.h"

/* Bytes of the GRH area at the start of a UD receive buffer. */
#define SROCE_GRH_LEN 40
/* The IPv4 header sits in the last 20 bytes of that area. */
#define SROCE_GRH_IPV4_OFF 20

/* ---- snapshot and context ---- */

void sroce_resp_snapshot(struct sroce_qp *qp, struct sroce_resp_ctx *c)
{
	unsigned long flags;

	c->qp = qp;
	c->sdev = qp->sdev;
	spin_lock_irqsave(&qp->lock, flags);
	c->gen = READ_ONCE(qp->resp.gen);
	c->state = qp->state;
	c->mtu = ib_mtu_enum_to_int(qp->attr.path_mtu);
	c->access = qp->attr.qp_access_flags;
	c->qkey = qp->attr.qkey;
	c->rq_psn = qp->attr.rq_psn;
	c->dest_qpn = qp->attr.dest_qp_num;
	c->max_dest_rd = qp->attr.max_dest_rd_atomic;
	c->min_rnr_timer = qp->attr.min_rnr_timer;
	if (qp->ibqp.qp_type == IB_QPT_RC || qp->ibqp.qp_type == IB_QPT_UC)
		c->av = qp->av;
	spin_unlock_irqrestore(&qp->lock, flags);
	if (c->mtu <= 0)
		c->mtu = 256;
}

/* ---- ACK/NAK ---- */

void sroce_resp_send_aeth(struct sroce_resp_ctx *c, u32 psn, u8 syndrome)
{
	struct sroce_qp *qp = c->qp;
	u32 echo = sroce_int_echo_len(qp);
	struct sroce_aeth *aeth;
	struct sk_buff *skb;

	lockdep_assert_held(&qp->resp.lock);

	/* An INT echo (int.h) takes the place of a payload, 4-byte aligned. */
	skb = sroce_pkt_alloc(c->sdev, &c->av, SROCE_OP_RC_ACK, echo,
			      GFP_ATOMIC);
	if (unlikely(!skb))
		return; /* counted; the requester retries */
	sroce_bth_init(sroce_rx_bth(skb), SROCE_OP_RC_ACK, false, 0,
		       SROCE_DEFAULT_PKEY, c->dest_qpn, false, psn);
	aeth = (struct sroce_aeth *)(skb->data + SROCE_BTH_LEN);
	sroce_aeth_set_syndrome(aeth, syndrome);
	sroce_aeth_set_msn(aeth, qp->resp.msn);
	if (unlikely(echo))
		sroce_int_tx_echo(qp, skb);
	sroce_counter_inc(c->sdev, SROCE_CNT_RESP_ACKS);
	sroce_pkt_xmit(c->sdev, &c->av, sroce_qp_sport(qp), skb);
}

/*
 * Acknowledge everything up to @psn, unless READ or atomic responses are
 * still queued: they go first, and the ACK after them (IBA 9.7.5.1.1:
 * responses leave in PSN order).
 */
static void sroce_resp_ack(struct sroce_resp_ctx *c, u32 psn)
{
	struct sroce_resp *r = &c->qp->resp;

	lockdep_assert_held(&r->lock);

	r->unacked = 0;
	if (r->rd_send != r->rd_stop) {
		r->ack_pending = true;
		r->ack_psn = psn;
		return;
	}
	sroce_resp_send_aeth(c, psn,
			     sroce_aeth_syn_ack(SROCE_AETH_CREDITS_INVALID));
}

static void sroce_resp_nak(struct sroce_resp_ctx *c, u32 psn,
			   enum sroce_nak_code code)
{
	sroce_resp_send_aeth(c, psn, sroce_aeth_syn_nak(code));
}

/* ---- completions ---- */

/* Post the receive completion of resp.wqe and release it. */
static void sroce_resp_complete(struct sroce_resp_ctx *c,
				enum ib_wc_status status, struct sroce_cqe *cqe,
				bool solicited)
{
	struct sroce_qp *qp = c->qp;
	struct sroce_resp *r = &qp->resp;

	lockdep_assert_held(&r->lock);

	cqe->wr_id = r->wqe.wr_id;
	cqe->status = status;
	cqe->qp_num = qp->ibqp.qp_num;
	cqe->port_num = 1;
	if (!cqe->opcode)
		cqe->opcode = IB_WC_RECV;
	r->wqe_valid = false;
	if (status != IB_WC_SUCCESS) {
		sroce_counter_inc(c->sdev, status == IB_WC_WR_FLUSH_ERR ?
						   SROCE_CNT_RESP_CQE_FLUSH :
						   SROCE_CNT_RESP_CQE_ERROR);
		solicited = true;
	}
	/* The handler runs after resp.lock: sroce_resp_after_unlock(). */
	sroce_cq_produce(to_scq(qp->ibqp.recv_cq), cqe, solicited,
			 &c->cq_calls);
}

/* Complete the held receive WQE (if any) with an error @status. */
static void sroce_resp_complete_err(struct sroce_resp_ctx *c,
				    enum ib_wc_status status)
{
	struct sroce_cqe cqe = {};

	if (c->qp->resp.wqe_valid)
		sroce_resp_complete(c, status, &cqe, true);
}

/*
 * Copy the receive WQE at the RQ's consumer index into resp.wqe and give
 * the slot back; the caller knows it is posted (a validated prod).  The
 * copy is checked, never the slot: num_sge U32_MAX marks a bad one.
 */
static void sroce_resp_copy_wqe(struct sroce_qp *qp)
{
	struct sroce_resp *r = &qp->resp;
	struct sroce_queue *q = &qp->rq.queue;
	const struct sroce_recv_wqe *slot;

	lockdep_assert_held(&r->lock);
	lockdep_assert_held(&qp->rq.lock);

	slot = sroce_queue_slot(q, q->cons);
	memcpy(&r->wqe, slot, sizeof(r->wqe));
	/* Validate the copy; the slot may change under us from now on. */
	if (unlikely(r->wqe.num_sge > qp->rq.max_sge))
		r->wqe.num_sge = U32_MAX;
	else
		memcpy(r->sge, slot + 1, r->wqe.num_sge * sizeof(r->sge[0]));
	sroce_queue_consume(q, 1);
}

/*
 * Take the next receive WQE: copy it out of the RQ once, check the copy,
 * give the slot back.  -EAGAIN when the RQ is empty, -EPROTO when user
 * space corrupted the ring or the WQE.
 */
static int sroce_resp_take_wqe(struct sroce_resp_ctx *c)
{
	struct sroce_qp *qp = c->qp;
	struct sroce_resp *r = &qp->resp;
	unsigned long flags;
	int ready;

	lockdep_assert_held(&r->lock);

	if (qp->ibqp.srq) {
		ready = sroce_srq_take(to_ssrq(qp->ibqp.srq), &r->wqe, r->sge,
				       &c->srq_limit);
		if (ready <= 0)
			return ready < 0 ? -EPROTO : -EAGAIN;
		goto taken;
	}
	spin_lock_irqsave(&qp->rq.lock, flags);
	ready = sroce_queue_peer_prod(&qp->rq.queue);
	if (ready <= 0) {
		spin_unlock_irqrestore(&qp->rq.lock, flags);
		return ready < 0 ? -EPROTO : -EAGAIN;
	}
	sroce_resp_copy_wqe(qp);
	spin_unlock_irqrestore(&qp->rq.lock, flags);
taken:
	r->wqe_valid = true;
	if (unlikely(r->wqe.num_sge == U32_MAX)) {
		r->wqe.num_sge = 0;
		r->wqe_len = 0;
		return -EPROTO;
	}
	r->wqe_len = sroce_sge_total(r->sge, r->wqe.num_sge);
	return 0;
}

/* Make sure a receive WQE is held; 0, -EAGAIN (RNR) or -EPROTO. */
static int sroce_resp_need_wqe(struct sroce_resp_ctx *c)
{
	struct sroce_resp *r = &c->qp->resp;
	int err;

	if (r->wqe_valid)
		return 0;
	err = sroce_resp_take_wqe(c);
	if (unlikely(err == -EPROTO))
		sroce_resp_complete_err(c, IB_WC_LOC_QP_OP_ERR);
	return err;
}

/* ---- SEND ---- */

static enum sroce_resp_act sroce_resp_send(struct sroce_resp_ctx *c,
					   struct sk_buff *skb)
{
	struct sroce_rx_cb *cb = SROCE_RX_CB(skb);
	u32 flags = cb->info->flags;
	struct sroce_qp *qp = c->qp;
	struct sroce_resp *r = &qp->resp;
	struct sroce_cqe cqe = {};
	int err;

	if (flags & SROCE_OPF_START) {
		err = sroce_resp_need_wqe(c);
		if (err == -EAGAIN)
			return SROCE_ACT_RNR;
		if (unlikely(err))
			return SROCE_ACT_NAK_OP;
		r->offset = 0;
	}
	if (unlikely(cb->paylen > r->wqe_len - r->offset)) {
		sroce_counter_inc(c->sdev, SROCE_CNT_RESP_LOCAL_LENGTH_ERR);
		sroce_resp_complete_err(c, IB_WC_LOC_LEN_ERR);
		return SROCE_ACT_NAK_INV; /* IBA 9.7.5.2.2 */
	}
	err = sroce_mem_sge_copy_skb(c->sdev, qp->ibqp.pd, r->sge,
				     r->wqe.num_sge, r->offset, skb, cb->hdrlen,
				     cb->paylen, SROCE_TO_MEM);
	if (unlikely(err)) {
		sroce_resp_complete_err(c, IB_WC_LOC_PROT_ERR);
		return SROCE_ACT_NAK_OP;
	}
	r->offset += cb->paylen;
	if (!(flags & SROCE_OPF_END))
		return SROCE_ACT_DONE;

	cqe.opcode = IB_WC_RECV;
	cqe.byte_len = r->offset;
	if (flags & SROCE_OPF_IMM) {
		cqe.ex.imm_data =
			sroce_immdt_imm(sroce_rx_ext(skb, SROCE_EXT_IMMDT));
		cqe.wc_flags |= IB_WC_WITH_IMM;
	} else if (flags & SROCE_OPF_INV) {
		cqe.ex.invalidate_rkey =
			sroce_ieth_rkey(sroce_rx_ext(skb, SROCE_EXT_IETH));
		cqe.wc_flags |= IB_WC_WITH_INVALIDATE;
		/* IBA 9.4.1.1: invalidate before the receive completes. */
		if (unlikely(sroce_fr_invalidate(c->sdev, qp->ibqp.pd,
						 qp->ibqp.qp_num,
						 cqe.ex.invalidate_rkey))) {
			sroce_resp_complete_err(c, IB_WC_REM_INV_REQ_ERR);
			return SROCE_ACT_NAK_INV;
		}
		sroce_counter_inc(c->sdev, SROCE_CNT_FR_REMOTE_INV);
	}
	r->msn++;
	sroce_resp_complete(c, IB_WC_SUCCESS, &cqe,
			    sroce_bth_se(sroce_rx_bth(skb)));
	return SROCE_ACT_DONE;
}

/* ---- RDMA WRITE ---- */

/* First packet of a WRITE: check the RETH (IBA 9.7.4.1.5, o9-35). */
static enum sroce_resp_act sroce_resp_write_start(struct sroce_resp_ctx *c,
						  struct sk_buff *skb)
{
	struct sroce_reth *reth = sroce_rx_ext(skb, SROCE_EXT_RETH);
	struct sroce_resp *r = &c->qp->resp;
	u32 len = sroce_reth_len(reth);
	struct sroce_mr *mr;

	if (unlikely(!(c->access & IB_ACCESS_REMOTE_WRITE)))
		return SROCE_ACT_NAK_INV;
	r->wr_rkey = sroce_reth_rkey(reth);
	r->wr_va = sroce_reth_va(reth);
	r->wr_len = len;
	r->wr_resid = len;
	if (!len)
		return SROCE_ACT_DONE;
	mr = sroce_mem_rkey_get(c->sdev, c->qp->ibqp.pd, c->qp->ibqp.qp_num,
				r->wr_rkey, r->wr_va, len,
				IB_ACCESS_REMOTE_WRITE);
	if (IS_ERR(mr))
		return SROCE_ACT_NAK_ACC;
	sroce_mr_put(mr);
	return SROCE_ACT_DONE;
}

static enum sroce_resp_act sroce_resp_write(struct sroce_resp_ctx *c,
					    struct sk_buff *skb)
{
	struct sroce_rx_cb *cb = SROCE_RX_CB(skb);
	u32 flags = cb->info->flags;
	struct sroce_resp *r = &c->qp->resp;
	enum sroce_resp_act act;
	struct sroce_cqe cqe = {};
	struct sroce_mr *mr;
	int err;

	/* WRITE with immediate: the WQE first, so an RNR changes nothing. */
	if (flags & SROCE_OPF_RECV_WQE) {
		err = sroce_resp_need_wqe(c);
		if (err == -EAGAIN)
			return SROCE_ACT_RNR;
		if (unlikely(err))
			return SROCE_ACT_NAK_OP;
	}
	if (flags & SROCE_OPF_START) {
		act = sroce_resp_write_start(c, skb);
		if (act != SROCE_ACT_DONE)
			return act;
	}
	if (unlikely(cb->paylen > r->wr_resid ||
		     ((flags & SROCE_OPF_END) && cb->paylen != r->wr_resid)))
		return SROCE_ACT_NAK_INV;

	if (cb->paylen) {
		mr = sroce_mem_rkey_get(c->sdev, c->qp->ibqp.pd,
					c->qp->ibqp.qp_num, r->wr_rkey,
					r->wr_va, cb->paylen,
					IB_ACCESS_REMOTE_WRITE);
		if (IS_ERR(mr))
			return SROCE_ACT_NAK_ACC;
		err = sroce_mem_mr_copy_skb(mr, r->wr_va, skb, cb->hdrlen,
					    cb->paylen, SROCE_TO_MEM);
		sroce_mr_put(mr);
		if (unlikely(err))
			return SROCE_ACT_NAK_ACC;
		r->wr_va += cb->paylen;
		r->wr_resid -= cb->paylen;
	}
	if (!(flags & SROCE_OPF_END))
		return SROCE_ACT_DONE;

	r->msn++;
	if (flags & SROCE_OPF_IMM) {
		cqe.opcode = IB_WC_RECV_RDMA_WITH_IMM;
		cqe.byte_len = r->wr_len;
		cqe.ex.imm_data =
			sroce_immdt_imm(sroce_rx_ext(skb, SROCE_EXT_IMMDT));
		cqe.wc_flags = IB_WC_WITH_IMM;
		sroce_resp_complete(c, IB_WC_SUCCESS, &cqe,
				    sroce_bth_se(sroce_rx_bth(skb)));
	}
	return SROCE_ACT_DONE;
}

/* ---- RC/UC request checks ---- */

/*
 * Opcode sequence (IBA C9-34..C9-37): a message starts with FIRST or ONLY;
 * MIDDLE and LAST continue an open message of the same kind.  Payload
 * sizes (C9-88..C9-91): FIRST and MIDDLE carry exactly one path MTU, LAST
 * 1..MTU, ONLY 0..MTU.
 */
static bool sroce_resp_seq_ok(struct sroce_resp_ctx *c, struct sk_buff *skb)
{
	struct sroce_rx_cb *cb = SROCE_RX_CB(skb);
	u32 flags = cb->info->flags;
	u32 kind = flags & (SROCE_OPF_SEND | SROCE_OPF_WRITE);
	struct sroce_resp *r = &c->qp->resp;

	if (r->in_msg) {
		if (unlikely(flags & SROCE_OPF_START || kind != r->in_msg))
			return false;
	} else if (unlikely(!(flags & SROCE_OPF_START))) {
		return false;
	}
	if (flags & (SROCE_OPF_FIRST | SROCE_OPF_MIDDLE))
		return cb->paylen == c->mtu;
	if (flags & SROCE_OPF_LAST)
		return cb->paylen && cb->paylen <= c->mtu;
	return cb->paylen <= c->mtu;
}

/* Run the operation of an in-sequence request. */
static enum sroce_resp_act sroce_resp_execute(struct sroce_resp_ctx *c,
					      struct sk_buff *skb)
{
	u32 flags = SROCE_RX_CB(skb)->info->flags;

	if (flags & SROCE_OPF_SEND)
		return sroce_resp_send(c, skb);
	if (flags & SROCE_OPF_WRITE)
		return sroce_resp_write(c, skb);
	if (flags & SROCE_OPF_READ)
		return sroce_resp_read_req(c, skb);
	return sroce_resp_atomic_req(c, skb);
}

/* Track the open message after a request was executed. */
static void sroce_resp_track_msg(struct sroce_resp *r, u32 flags)
{
	if (flags & SROCE_OPF_END)
		r->in_msg = 0;
	else
		r->in_msg = flags & (SROCE_OPF_SEND | SROCE_OPF_WRITE);
}

/* A fatal error: NAK (RC), complete the WQE in error, QP to ERR. */
static void sroce_resp_fail(struct sroce_resp_ctx *c, u32 psn,
			    enum sroce_resp_act act)
{
	static const struct {
		enum sroce_nak_code nak;
		enum ib_wc_status status;
		enum sroce_counter cnt;
	} map[] = {
		[SROCE_ACT_NAK_INV] = { SROCE_NAK_INVALID_REQ,
					IB_WC_REM_INV_REQ_ERR,
					SROCE_CNT_RESP_INVALID_REQ },
		[SROCE_ACT_NAK_ACC] = { SROCE_NAK_REM_ACCESS_ERR,
					IB_WC_REM_ACCESS_ERR,
					SROCE_CNT_RESP_REMOTE_ACCESS_ERR },
		[SROCE_ACT_NAK_OP] = { SROCE_NAK_REM_OP_ERR, IB_WC_REM_OP_ERR,
				       SROCE_CNT_RESP_CQE_ERROR },
	};

	lockdep_assert_held(&c->qp->resp.lock);

	if (map[act].cnt != SROCE_CNT_RESP_CQE_ERROR)
		sroce_counter_inc(c->sdev, map[act].cnt);
	sroce_resp_nak(c, psn, map[act].nak);
	sroce_resp_complete_err(c, map[act].status);
	c->qp->resp.error = true;
	c->fatal = true;
}

/* ---- RC ---- */

/* A request whose PSN is before ePSN (IBA 9.7.5.1.1 duplicates). */
static void sroce_resp_rc_duplicate(struct sroce_resp_ctx *c,
				    struct sk_buff *skb)
{
	struct sroce_rx_cb *cb = SROCE_RX_CB(skb);
	u32 flags = cb->info->flags;

	sroce_counter_inc(c->sdev, SROCE_CNT_DUPLICATE_REQUEST);
	if (flags & (SROCE_OPF_READ | SROCE_OPF_ATOMIC)) {
		sroce_resp_rd_replay(c, skb);
		return;
	}
	/* SEND/WRITE: re-ACK what we have, once per requested ACK. */
	if (sroce_bth_ackreq(sroce_rx_bth(skb)) || flags & SROCE_OPF_END)
		sroce_resp_ack(c, sroce_resp_rd_ack_limit(c, cb->psn));
}

/*
 * PSN check (IBA 9.7.5.1) and execution of an RC request: true if the
 * request was accepted (in sequence and executed), false if it was a
 * duplicate, out of sequence, or answered with a NAK.
 */
static bool sroce_resp_rc_accept(struct sroce_resp_ctx *c, struct sk_buff *skb)
{
	struct sroce_rx_cb *cb = SROCE_RX_CB(skb);
	struct sroce_resp *r = &c->qp->resp;
	enum sroce_resp_act act;
	s32 d;

	lockdep_assert_held(&r->lock);

	d = sroce_psn_diff(cb->psn, r->psn);
	if (d < 0) {
		sroce_resp_rc_duplicate(c, skb);
		return false;
	}
	if (d > 0) {
		/* IBA 9.7.5.1.2: one NAK per gap, then silence until filled */
		sroce_counter_inc(c->sdev, SROCE_CNT_OUT_OF_SEQUENCE);
		if (!r->nak_sent) {
			r->nak_sent = true;
			sroce_resp_nak(c, r->psn, SROCE_NAK_PSN_SEQ_ERR);
		}
		return false;
	}
	r->nak_sent = false;
	c->np = true;

	if (unlikely(!sroce_resp_seq_ok(c, skb))) {
		sroce_resp_fail(c, cb->psn, SROCE_ACT_NAK_INV);
		return false;
	}
	act = sroce_resp_execute(c, skb);
	if (act == SROCE_ACT_RNR) {
		sroce_counter_inc(c->sdev, SROCE_CNT_OUT_OF_BUFFER);
		sroce_resp_send_aeth(c, cb->psn,
				     sroce_aeth_syn_rnr(c->min_rnr_timer));
		return false;
	}
	if (act != SROCE_ACT_DONE) {
		sroce_resp_fail(c, cb->psn, act);
		return false;
	}
	return true;
}

static void sroce_resp_rc(struct sroce_resp_ctx *c, struct sk_buff *skb)
{
	struct sroce_rx_cb *cb = SROCE_RX_CB(skb);
	struct sroce_resp *r = &c->qp->resp;
	u32 flags = cb->info->flags;

	/*
	 * A request's INT records go back only if it was accepted: a
	 * duplicate or out-of-sequence one changes no responder state
	 * (int.c), its echo neither.
	 */
	if (!sroce_resp_rc_accept(c, skb)) {
		if (unlikely(sroce_rx_int_len(skb)))
			sroce_counter_inc(c->sdev, SROCE_CNT_RX_INT_IGNORED);
		return;
	}
	sroce_resp_track_msg(r, flags);
	if (unlikely(sroce_rx_int_len(skb)))
		sroce_int_rx_req(c->qp, skb);
	/* READ and atomic requests advanced ePSN and answer with data. */
	if (flags & (SROCE_OPF_READ | SROCE_OPF_ATOMIC))
		return;
	r->psn = sroce_psn_next(r->psn);
	/*
	 * ACK what the requester asks for (it asks at the end of every
	 * message it needs completed, rdma_rxe and sroce alike) and every
	 * SROCE_RESP_ACK_BATCH packets; a later ACK covers the rest, and a
	 * message end nothing covers is acknowledged by the ack_timer.
	 */
	if (++r->unacked >= SROCE_RESP_ACK_BATCH ||
	    sroce_bth_ackreq(sroce_rx_bth(skb)))
		sroce_resp_ack(c, cb->psn);
	else if (flags & SROCE_OPF_END && !timer_pending(&r->ack_timer))
		mod_timer(&r->ack_timer, jiffies + SROCE_RESP_ACK_DELAY);
}

/* The delayed ACK: what arrived since the last ACK, if anything did. */
static void sroce_resp_ack_timer(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, resp.ack_timer);
	struct sroce_resp *r = &qp->resp;
	struct sroce_resp_ctx c = {};

	sroce_resp_snapshot(qp, &c);
	spin_lock_bh(&r->lock);
	if (!r->error && r->gen == c.gen && r->started && r->unacked &&
	    sroce_resp_state_ok(c.state)) {
		sroce_counter_inc(c.sdev, SROCE_CNT_RESP_DELAYED_ACKS);
		sroce_resp_ack(&c, sroce_psn_add(r->psn, SROCE_PSN_MAX));
	}
	spin_unlock_bh(&r->lock);
}

/* ---- UC (IBA 9.8.3: no ACKs; a gap drops the message) ---- */

static void sroce_resp_uc_abort(struct sroce_resp *r)
{
	r->in_msg = 0;
	r->offset = 0;
	r->drop_msg = true;
}

static void sroce_resp_uc(struct sroce_resp_ctx *c, struct sk_buff *skb)
{
	struct sroce_rx_cb *cb = SROCE_RX_CB(skb);
	struct sroce_resp *r = &c->qp->resp;
	u32 flags = cb->info->flags;
	enum sroce_resp_act act;

	lockdep_assert_held(&r->lock);

	if (cb->psn != r->psn) {
		sroce_counter_inc(c->sdev, SROCE_CNT_OUT_OF_SEQUENCE);
		sroce_resp_uc_abort(r);
	} else {
		c->np = true;
	}
	r->psn = sroce_psn_next(cb->psn);
	if (r->drop_msg) {
		if (!(flags & SROCE_OPF_START)) {
			sroce_counter_inc(c->sdev, SROCE_CNT_RESP_UC_DROP);
			return;
		}
		r->drop_msg = false;
		r->in_msg = 0;
	}
	if (unlikely(!sroce_resp_seq_ok(c, skb))) {
		sroce_counter_inc(c->sdev, SROCE_CNT_RESP_INVALID_REQ);
		sroce_resp_uc_abort(r);
		return;
	}
	act = sroce_resp_execute(c, skb);
	if (act == SROCE_ACT_DONE) {
		sroce_resp_track_msg(r, flags);
		return;
	}
	/* IBA 9.8.3.2: errors silently drop the message. */
	sroce_counter_inc(c->sdev, act == SROCE_ACT_RNR ?
					   SROCE_CNT_OUT_OF_BUFFER :
					   SROCE_CNT_RESP_UC_DROP);
	sroce_resp_uc_abort(r);
}

/* ---- UD and GSI (IBA 9.8.4) ---- */

/* Fill the 40-byte GRH area as verbs report it (IBA 11.4.2.1, A17.4.5). */
static void sroce_resp_grh(struct sk_buff *skb, u8 *grh)
{
	memset(grh, 0, SROCE_GRH_LEN);
	if (SROCE_RX_CB(skb)->ntype == RDMA_NETWORK_IPV4)
		memcpy(grh + SROCE_GRH_IPV4_OFF, skb_network_header(skb),
		       sizeof(struct iphdr));
	else
		memcpy(grh, skb_network_header(skb), sizeof(struct ipv6hdr));
}

/*
 * QP1 belongs to ib_core's MAD layer, which logs every MAD of a base
 * version it does not know (not ratelimited) and takes a receive completed
 * in error for one of a QP in error: it never posts that buffer again, so
 * a peer could empty QP1's receive queue.  What it cannot take is dropped
 * here and the receive WQE kept for the next packet.
 */
static bool sroce_resp_gsi_ok(struct sroce_resp_ctx *c, struct sk_buff *skb)
{
	struct sroce_rx_cb *cb = SROCE_RX_CB(skb);
	u8 ver, *p;

	/*
	 * A MAD is 256 bytes, whatever its class.  ib_core takes the whole
	 * 256 of the receive buffer as the MAD without looking at byte_len,
	 * and that buffer held an earlier MAD or reply: a shorter payload
	 * would have its answer echo those bytes to whoever sent it.
	 */
	if (cb->paylen != sizeof(struct ib_mad) ||
	    SROCE_GRH_LEN + (u64)cb->paylen > c->qp->resp.wqe_len)
		return false;
	p = skb_header_pointer(skb, cb->hdrlen, sizeof(ver), &ver);
	return p && *p == IB_MGMT_BASE_VERSION;
}

static void sroce_resp_ud(struct sroce_resp_ctx *c, struct sk_buff *skb)
{
	struct sroce_rx_cb *cb = SROCE_RX_CB(skb);
	struct sroce_deth *deth = sroce_rx_ext(skb, SROCE_EXT_DETH);
	struct sroce_qp *qp = c->qp;
	struct sroce_resp *r = &qp->resp;
	struct sroce_cqe cqe = {};
	u8 grh[SROCE_GRH_LEN];
	int err;

	lockdep_assert_held(&r->lock);

	if (unlikely(sroce_deth_qkey(deth) != c->qkey)) {
		sroce_counter_inc(c->sdev, SROCE_CNT_RX_DROP_BAD_QKEY);
		return;
	}
	err = sroce_resp_need_wqe(c);
	if (err) {
		if (err == -EAGAIN)
			sroce_counter_inc(c->sdev, SROCE_CNT_OUT_OF_BUFFER);
		return;
	}
	if (qp->ibqp.qp_type == IB_QPT_GSI &&
	    unlikely(!sroce_resp_gsi_ok(c, skb))) {
		sroce_counter_inc(c->sdev, SROCE_CNT_RX_DROP_BAD_MAD);
		return;
	}
	/*
	 * Only a packet that is received may make a CNP (not one dropped as
	 * a bad MAD: QP1's Q_Key is well known, its source forgeable), and
	 * no CNP for multicast: one per attached QP would amplify.
	 */
	c->np = sroce_bth_destqp(sroce_rx_bth(skb)) != SROCE_MCAST_QPN;
	if (unlikely(SROCE_GRH_LEN + (u64)cb->paylen > r->wqe_len)) {
		sroce_counter_inc(c->sdev, SROCE_CNT_RESP_LOCAL_LENGTH_ERR);
		sroce_resp_complete_err(c, IB_WC_LOC_LEN_ERR);
		return;
	}
	sroce_resp_grh(skb, grh);
	err = sroce_mem_sge_copy(c->sdev, qp->ibqp.pd, r->sge, r->wqe.num_sge,
				 0, grh, SROCE_GRH_LEN, SROCE_TO_MEM);
	if (!err)
		err = sroce_mem_sge_copy_skb(c->sdev, qp->ibqp.pd, r->sge,
					     r->wqe.num_sge, SROCE_GRH_LEN, skb,
					     cb->hdrlen, cb->paylen,
					     SROCE_TO_MEM);
	if (unlikely(err)) {
		sroce_resp_complete_err(c, IB_WC_LOC_PROT_ERR);
		return;
	}

	cqe.opcode = IB_WC_RECV;
	cqe.byte_len = SROCE_GRH_LEN + cb->paylen;
	cqe.src_qp = sroce_deth_srcqp(deth);
	cqe.wc_flags = IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
	cqe.network_hdr_type = cb->ntype;
	if (cb->info->flags & SROCE_OPF_IMM) {
		cqe.ex.imm_data =
			sroce_immdt_imm(sroce_rx_ext(skb, SROCE_EXT_IMMDT));
		cqe.wc_flags |= IB_WC_WITH_IMM;
	}
	sroce_resp_complete(c, IB_WC_SUCCESS, &cqe,
			    sroce_bth_se(sroce_rx_bth(skb)));
}

/* ---- entry ---- */

/* After resp.lock: events and the move to ERR. */
void sroce_resp_after_unlock(struct sroce_resp_ctx *c)
{
	struct sroce_qp *qp = c->qp;
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
	};

	if (c->comm_est && qp->ibqp.event_handler) {
		ev.event = IB_EVENT_COMM_EST;
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
	if (c->srq_limit)
		sroce_srq_limit_event(to_ssrq(qp->ibqp.srq));
	if (c->cq_calls)
		sroce_cq_callbacks(to_scq(qp->ibqp.recv_cq), c->cq_calls);
	if (c->fatal)
		sroce_qp_error(qp);
}

void sroce_resp_rx(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_rx_cb *cb = SROCE_RX_CB(skb);
	struct sroce_resp *r = &qp->resp;
	struct sroce_resp_ctx c = {};

	sroce_resp_snapshot(qp, &c);
	if (unlikely(!sroce_resp_state_ok(c.state))) {
		sroce_counter_inc(c.sdev, SROCE_CNT_RX_DROP_QP_STATE);
		goto free;
	}
	if (qp->ibqp.qp_type != IB_QPT_UD && qp->ibqp.qp_type != IB_QPT_GSI &&
	    unlikely(!sroce_recv_from_peer(&c.av, skb))) {
		sroce_counter_inc(c.sdev, SROCE_CNT_RX_DROP_BAD_ADDR);
		goto free;
	}

	spin_lock_bh(&r->lock);
	if (unlikely(r->error || r->gen != c.gen)) {
		spin_unlock_bh(&r->lock);
		sroce_counter_inc(c.sdev, SROCE_CNT_RX_DROP_QP_STATE);
		goto free;
	}
	if (!r->started) {
		r->psn = c.rq_psn;
		r->started = true;
	}
	/* IBA 11.6.3.1: first packet on a connected QP in RTR. */
	if (!r->comm_est && qp->ibqp.qp_type != IB_QPT_UD &&
	    qp->ibqp.qp_type != IB_QPT_GSI) {
		r->comm_est = true;
		c.comm_est = c.state == IB_QPS_RTR;
	}
	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
		sroce_resp_rc(&c, skb);
		break;
	case IB_QPT_UC:
		sroce_resp_uc(&c, skb);
		break;
	default:
		sroce_resp_ud(&c, skb);
		break;
	}
	spin_unlock_bh(&r->lock);
	/* Notification point, with the snapshot of the peer (RC/UC). */
	if (unlikely(cb->ce) && c.np)
		sroce_ecn_np(qp, skb, &c.av, c.dest_qpn);
	sroce_resp_after_unlock(&c);
free:
	consume_skb(skb);
}

/* ---- control path hooks ---- */

/* Kernel post_recv in ERR: flush from process context, not inside the post. */
static void sroce_resp_flush_work(struct work_struct *work)
{
	struct sroce_qp *qp =
		container_of(work, struct sroce_qp, resp.flush_work);

	sroce_resp_flush(qp);
	sroce_qp_put(qp); /* the work's reference */
}

void sroce_resp_init(struct sroce_qp *qp)
{
	struct sroce_resp *r = &qp->resp;

	spin_lock_init(&r->lock);
	INIT_WORK(&r->work, sroce_resp_work);
	INIT_WORK(&r->flush_work, sroce_resp_flush_work);
	timer_setup(&r->ack_timer, sroce_resp_ack_timer, 0);
	r->rd_head = 0;
	r->rd_send = 0;
	r->rd_stop = 0;
	r->rd_sent = 0;
}

void sroce_resp_reset(struct sroce_qp *qp)
{
	struct sroce_resp *r = &qp->resp;
	unsigned long flags;

	spin_lock_irqsave(&r->lock, flags);
	r->gen++;
	r->started = false;
	r->comm_est = false;
	r->error = false;
	r->flushed = false;
	r->msn = 0;
	r->nak_sent = false;
	r->drop_msg = false;
	r->in_msg = 0;
	r->unacked = 0;
	r->int_echo_len = 0; /* no INT of the last connection's requests */
	r->wqe_valid = false;
	r->offset = 0;
	r->wr_resid = 0;
	r->rd_head = 0;
	r->rd_count = 0;
	r->rd_send = 0;
	r->rd_off = 0;
	r->rd_stop = 0;
	r->rd_sent = 0;
	r->ack_pending = false;
	spin_unlock_irqrestore(&r->lock, flags);
}

/* Receive WQEs posted in the RQ now (validated), 0 if the ring is bad. */
static u32 sroce_resp_rq_posted(struct sroce_qp *qp)
{
	unsigned long flags;
	int n;

	spin_lock_irqsave(&qp->rq.lock, flags);
	n = sroce_queue_peer_prod(&qp->rq.queue);
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	return n > 0 ? n : 0;
}

bool sroce_resp_flush(struct sroce_qp *qp)
{
	struct sroce_resp *r = &qp->resp;
	struct sroce_resp_ctx c = {};
	unsigned long flags;
	bool first;
	u32 n;

	/*
	 * Only a QP still in the ERR it was flushed for: a flush that runs
	 * late (the deferred one of post_recv, or one racing a modify to
	 * RESET) must not put a reset QP back in error.
	 */
	sroce_resp_snapshot(qp, &c);
	if (c.state != IB_QPS_ERR)
		return false;
	spin_lock_bh(&r->lock);
	if (r->gen != c.gen) {
		spin_unlock_bh(&r->lock);
		return false;
	}
	first = !r->flushed;
	r->flushed = true;
	r->error = true;
	sroce_resp_rd_settle(r); /* no more responses */
	r->ack_pending = false;
	sroce_resp_complete_err(&c, IB_WC_WR_FLUSH_ERR);
	/*
	 * What is posted now, from one validated snapshot of the producer's
	 * index: at most nslots, however the producer moves it meanwhile
	 * (user space may, and a kernel post_recv flushes its own WQEs after
	 * posting them).  An SRQ's WQEs belong to the SRQ: only the one this
	 * QP holds is flushed.
	 */
	n = qp->ibqp.srq ? 0 : sroce_resp_rq_posted(qp);
	while (n--) {
		spin_lock_irqsave(&qp->rq.lock, flags);
		sroce_resp_copy_wqe(qp);
		spin_unlock_irqrestore(&qp->rq.lock, flags);
		r->wqe_valid = true;
		sroce_resp_complete_err(&c, IB_WC_WR_FLUSH_ERR);
	}
	spin_unlock_bh(&r->lock);
	if (c.cq_calls)
		sroce_cq_callbacks(to_scq(qp->ibqp.recv_cq), c.cq_calls);
	return first;
}

void sroce_resp_flush_later(struct sroce_qp *qp)
{
	sroce_task_queue_qp(qp, &qp->resp.flush_work, -1);
}

void sroce_resp_cleanup(struct sroce_qp *qp)
{
	struct sroce_resp *r = &qp->resp;
	unsigned long flags;

	spin_lock_irqsave(&r->lock, flags);
	r->error = true;
	sroce_resp_rd_settle(r);
	spin_unlock_irqrestore(&r->lock, flags);
	del_timer_sync(&r->ack_timer); /* not re-armed: error is set */
	sroce_resp_work_cancel(qp);
	if (cancel_work_sync(&r->flush_work))
		sroce_qp_put(qp);
}
