// SPDX-License-Identifier: GPL-2.0
/*
 * resp_rd.c - the responder's READ and atomic half (IBA 9.4.3-9.4.5,
 * 9.7.4.1.4, 9.7.5.1.5): the history of READ/atomic requests, their
 * responses in PSN order, duplicates, and the work item that finishes long
 * READ responses.
 *
 * History: resp.rd[] is a ring of SROCE_RESP_RD_SLOTS entries indexed by
 * free-running counters.  A request is recorded when it arrives in
 * sequence (an atomic is executed then, exactly once, and its original
 * value kept); rd_send walks the entries whose responses are still to go
 * out, up to rd_stop.  A duplicate request moves rd_send back to its
 * entry: a READ is re-executed from the PSN asked for, an atomic is
 * answered from the history and never executed again.  That entry only:
 * the requester went back N and asks for each later one again, in order,
 * as its recovery window lets it (comp.c), and each such duplicate moves
 * rd_stop on by one.  Sending every later READ again at once, unasked,
 * would put up to max_dest_rd_atomic READs' worth of responses into the
 * queue that lost a packet, behind which the next resend of the oldest
 * PSN waits; on a slow path each timeout then added more than the next
 * one let drain, until the requester's retries ran out.
 *
 * A new request in sequence while responses sent again still go (the
 * requester completed their READs from the first ones, which came late)
 * skips them when it would not fit max_dest_rd_atomic otherwise
 * (sroce_rd_room(), resp_rd_replay_skipped); resp.rd_sent keeps entries
 * never sent whole once from being skipped so.
 *
 * Context: everything here runs under resp.lock, from the receive softirq
 * or from resp.work (process context, _bh lock).  The work is queued with
 * a QP reference, dropped by the work function or by the cancel that
 * removed it.  No MR reference outlives one run of the sender, so a peer
 * cannot keep dereg_mr waiting.
 */
#include <linux/skbuff.h>
#include <linux/workqueue.h>

#include "cc.h"
#include "counters.h"
#include "device.h"
#include "mem.h"
#include "mr.h"
#include "pkt.h"
#include "proto/hdr.h"
#include "proto/opcode.h"
#include "proto/psn.h"
#include "qp.h"
#include "recv.h"
#include "resp.h"
#include "resp_rd.h"
#include "task.h"

/* The entry of free-running history index @idx. */
static struct sroce_resp_rd *sroce_rd_entry(struct sroce_resp *r, u32 idx)
{
	return &r->rd[idx % SROCE_RESP_RD_SLOTS];
}

/*
 * The history's order (resp.h): rd_send <= rd_stop <= rd_head, modulo
 * 2^32, all within the SROCE_RESP_RD_SLOTS newest entries written.  A
 * break would send a response from a slot already reused for another
 * request.
 */
static void sroce_rd_check(struct sroce_resp *r)
{
	lockdep_assert_held(&r->lock);
	WARN_ON_ONCE(r->rd_count > SROCE_RESP_RD_SLOTS ||
		     r->rd_stop - r->rd_send > r->rd_head - r->rd_send ||
		     r->rd_sent - r->rd_send > r->rd_head - r->rd_send ||
		     r->rd_head - r->rd_send > r->rd_count);
}

/*
 * A READ/atomic in sequence: the requester sent every earlier request
 * again after its go-back-N, and asked again for each entry it still
 * needed.  With nothing due, what the history still owes (rd_stop to
 * rd_head) it completed from responses that came late, or its duplicate
 * was lost, when its next ACK or response shows it as missing (an
 * implied NAK) and it asks again: owe nothing.  Owed entries would
 * otherwise count against max_dest_rd_atomic below, and a new READ
 * within the requester's own limit would get an Invalid Request NAK.
 */
static void sroce_rd_in_sequence(struct sroce_resp *r)
{
	lockdep_assert_held(&r->lock);
	if (r->rd_send == r->rd_stop)
		sroce_resp_rd_settle(r);
}

/*
 * Room for one more READ/atomic: at most max_dest_rd_atomic requests may
 * wait for their responses (IBA C9-69: responder resources).
 *
 * A requester within that limit that sends a new request has every
 * response but those of its max_dest_rd_atomic - 1 newest requests
 * before it.  Older entries still due are responses sent again for a
 * go-back-N that it then completed from the first ones, which came late:
 * they go no more (rdma_rxe, too, reuses its oldest resource), or the new
 * request would get an Invalid Request NAK and both QPs would fail.  An
 * entry not yet sent whole once cannot be complete there: a new request
 * beyond it is over the limit.
 */
static bool sroce_rd_room(struct sroce_resp_ctx *c)
{
	struct sroce_resp *r = &c->qp->resp;
	u32 keep, to;

	lockdep_assert_held(&r->lock);
	if (!c->max_dest_rd)
		return false;
	keep = c->max_dest_rd - 1;
	if (r->rd_head - r->rd_send <= keep)
		return true;
	to = r->rd_head - keep;
	if ((s32)(to - r->rd_sent) > 0)
		return false;
	sroce_counter_add(c->sdev, SROCE_CNT_RESP_RD_REPLAY_SKIPPED,
			  to - r->rd_send);
	r->rd_send = to;
	r->rd_off = 0;
	if ((s32)(r->rd_stop - to) < 0)
		r->rd_stop = to;
	/* Nothing asked for is due: what is owed, it has too. */
	sroce_rd_in_sequence(r);
	return true;
}

static struct sroce_resp_rd *sroce_rd_new(struct sroce_resp *r)
{
	struct sroce_resp_rd *e = sroce_rd_entry(r, r->rd_head);

	lockdep_assert_held(&r->lock);
	r->rd_head++;
	/* In sequence: whatever the history owes is due again. */
	r->rd_stop = r->rd_head;
	if (r->rd_count < SROCE_RESP_RD_SLOTS)
		r->rd_count++;
	return e;
}

static void sroce_resp_schedule(struct sroce_resp_ctx *c)
{
	struct sroce_qp *qp = c->qp;
	struct sroce_resp *r = &qp->resp;

	lockdep_assert_held(&r->lock);

	if (r->work_queued)
		return;
	/* The caller holds a reference: this one belongs to the work. */
	sroce_qp_hold(qp);
	r->work_queued = true;
	if (!sroce_task_queue(&r->work, -1)) {
		r->work_queued = false;
		sroce_qp_put(qp);
	}
}

/* ---- responses ---- */

/* Opcode of the READ response packet covering [off, off + n) of @len. */
static u8 sroce_rd_opcode(u32 off, u32 n, u32 len)
{
	bool first = !off, last = off + n == len;

	if (first && last)
		return SROCE_OP_RC_READ_RESP_ONLY;
	if (first)
		return SROCE_OP_RC_READ_RESP_FIRST;
	return last ? SROCE_OP_RC_READ_RESP_LAST : SROCE_OP_RC_READ_RESP_MIDDLE;
}

/* BTH and (if the opcode has one) AETH of a response at @bth. */
static void sroce_rd_fill_hdr(struct sroce_resp_ctx *c, void *bth, u8 opcode,
			      u32 paylen, u32 psn, u32 msn)
{
	const struct sroce_opcode_info *info = sroce_opcode_info(opcode);

	sroce_bth_init(bth, opcode, false, sroce_bth_pad_for(paylen),
		       SROCE_DEFAULT_PKEY, c->dest_qpn, false, psn);
	if (sroce_opcode_has(info, SROCE_EXT_AETH)) {
		u8 syn = sroce_aeth_syn_ack(SROCE_AETH_CREDITS_INVALID);
		struct sroce_aeth *aeth;

		aeth = sroce_opcode_ext(info, bth, SROCE_EXT_AETH);
		sroce_aeth_set_syndrome(aeth, syn);
		sroce_aeth_set_msn(aeth, msn);
	}
}

/* A response skb with its headers filled. */
static struct sk_buff *sroce_rd_skb(struct sroce_resp_ctx *c, u8 opcode,
				    u32 paylen, u32 psn, u32 msn)
{
	struct sk_buff *skb;

	skb = sroce_pkt_alloc(c->sdev, &c->av, opcode, paylen, GFP_ATOMIC);
	if (unlikely(!skb))
		return NULL;
	sroce_rd_fill_hdr(c, sroce_rx_bth(skb), opcode, paylen, psn, msn);
	return skb;
}

/* A batch's cursor in a READ response (sroce_txb_build()). */
struct sroce_rd_txb {
	struct sroce_resp_ctx *c;
	struct sroce_resp_rd *e;
	struct sroce_mr *mr;
	u32 off;
};

static void sroce_rd_txb_next(void *ctx, struct sroce_txb_pkt *p)
{
	struct sroce_rd_txb *t = ctx;

	p->paylen = min_t(u32, t->c->mtu, t->e->len - t->off);
	p->opcode = sroce_rd_opcode(t->off, p->paylen, t->e->len);
	p->last = t->off + p->paylen >= t->e->len;
}

static int sroce_rd_txb_fill(void *ctx, const struct sroce_txb_pkt *p, u8 *bth)
{
	struct sroce_rd_txb *t = ctx;

	sroce_rd_fill_hdr(t->c, bth, p->opcode, p->paylen,
			  sroce_psn_add(t->e->psn, t->off / t->c->mtu),
			  t->e->msn);
	if (sroce_mem_mr_copy(t->mr, t->e->va + t->off, bth + p->hdrlen,
			      p->paylen, SROCE_FROM_MEM))
		return -EFAULT;
	t->off += p->paylen;
	return 0;
}

static const struct sroce_txb_src sroce_rd_txb_src = {
	.next = sroce_rd_txb_next,
	.fill = sroce_rd_txb_fill,
};

/*
 * READ response packets of @e from resp.rd_off on as one batch
 * (sroce_txb_build()), at most @max.  The first packet carries an AETH
 * and never starts one.  Returns the number sent, or 0 if no batch was
 * possible (the caller sends one packet the usual way, which also reports
 * a failed copy).
 */
static u32 sroce_rd_send_batch(struct sroce_resp_ctx *c,
			       struct sroce_resp_rd *e, struct sroce_mr *mr,
			       u32 max)
{
	struct sroce_rd_txb t = { .c = c, .e = e, .mr = mr };
	struct sroce_resp *r = &c->qp->resp;
	struct sroce_txb b;
	int n;

	if (!r->rd_off || READ_ONCE(c->qp->cc.active) ||
	    !sroce_txb_enabled(c->sdev))
		return 0;
	t.off = r->rd_off;
	n = sroce_txb_build(&b, c->sdev, c->mtu, max, &sroce_rd_txb_src, &t);
	if (n <= 0)
		return 0;
	sroce_cc_sent(c->qp, &c->qp->cc, b.skb->len);
	sroce_counter_inc(c->sdev, SROCE_CNT_TX_BATCHES);
	sroce_txb_xmit(c->sdev, &c->av, sroce_qp_sport(c->qp), &b);
	r->rd_off = t.off;
	return n;
}

/*
 * Send READ response packets of @e from resp.rd_off on, at most *@budget.
 * 0 when complete, -EAGAIN to continue later, -EACCES when the MR is gone
 * or no longer allows the access.
 */
static int sroce_rd_send_read(struct sroce_resp_ctx *c, struct sroce_resp_rd *e,
			      unsigned int *budget)
{
	struct sroce_resp *r = &c->qp->resp;
	struct sroce_mr *mr = NULL;
	int err = 0;

	if (e->len) {
		mr = sroce_mem_rkey_get(c->sdev, c->qp->ibqp.pd,
					c->qp->ibqp.qp_num, e->rkey, e->va,
					e->len, IB_ACCESS_REMOTE_READ);
		if (IS_ERR(mr))
			return -EACCES;
	}
	do {
		u32 off = r->rd_off;
		u32 n = min_t(u32, c->mtu, e->len - off);
		u8 opcode = sroce_rd_opcode(off, n, e->len);
		u32 psn = sroce_psn_add(e->psn, off / c->mtu);
		struct sk_buff *skb;
		u32 hdrlen, k;

		if (!*budget) {
			err = -EAGAIN;
			break;
		}
		if (!sroce_cc_may_send(c->qp, &c->qp->cc)) {
			err = -EBUSY; /* paced: cc.c's timer kicks us */
			break;
		}
		k = sroce_rd_send_batch(c, e, mr, *budget);
		if (k) {
			*budget -= k;
			continue;
		}
		skb = sroce_rd_skb(c, opcode, n, psn, e->msn);
		if (unlikely(!skb)) {
			err = -EAGAIN;
			break;
		}
		hdrlen = sroce_opcode_hdr_len(sroce_opcode_info(opcode));
		if (n &&
		    unlikely(sroce_mem_mr_copy_skb(mr, e->va + off, skb, hdrlen,
						   n, SROCE_FROM_MEM))) {
			kfree_skb(skb);
			err = -EACCES;
			break;
		}
		sroce_cc_sent(c->qp, &c->qp->cc, skb->len);
		sroce_pkt_xmit(c->sdev, &c->av, sroce_qp_sport(c->qp), skb);
		r->rd_off += n;
		(*budget)--;
	} while (r->rd_off < e->len);
	if (mr)
		sroce_mr_put(mr);
	return err;
}

static int sroce_rd_send_atomic(struct sroce_resp_ctx *c,
				struct sroce_resp_rd *e)
{
	const struct sroce_opcode_info *info =
		sroce_opcode_info(SROCE_OP_RC_ATOMIC_ACK);
	struct sroce_atmack *atmack;
	struct sk_buff *skb;

	skb = sroce_rd_skb(c, SROCE_OP_RC_ATOMIC_ACK, 0, e->psn, e->msn);
	if (unlikely(!skb))
		return -EAGAIN;
	atmack = sroce_opcode_ext(info, skb->data, SROCE_EXT_ATMACK);
	sroce_atmack_set_orig(atmack, e->orig);
	sroce_pkt_xmit(c->sdev, &c->av, sroce_qp_sport(c->qp), skb);
	return 0;
}

/*
 * Send the queued responses in order, then an ACK that waited for them.
 * Long READs continue from the work item.
 */
static void sroce_rd_drain(struct sroce_resp_ctx *c)
{
	struct sroce_resp *r = &c->qp->resp;
	unsigned int budget = SROCE_RESP_RD_BUDGET;
	u32 psn;
	int err;
	u8 syn;

	sroce_rd_check(r);
	while (r->rd_send != r->rd_stop) {
		struct sroce_resp_rd *e = sroce_rd_entry(r, r->rd_send);

		if (e->opcode == SROCE_OP_RC_READ_REQ)
			err = sroce_rd_send_read(c, e, &budget);
		else
			err = sroce_rd_send_atomic(c, e);
		if (err == -EAGAIN) {
			sroce_resp_schedule(c);
			return;
		}
		if (err == -EBUSY)
			return;
		if (unlikely(err)) {
			/* The MR went away under a queued READ (IBA 9.7.5.2.4) */
			sroce_counter_inc(c->sdev,
					  SROCE_CNT_RESP_REMOTE_ACCESS_ERR);
			/*
			 * At the PSN of the response due next: the requester
			 * takes a NAK only there or before, never behind
			 * responses it already has.
			 */
			psn = sroce_psn_add(e->psn, r->rd_off / c->mtu);
			syn = sroce_aeth_syn_nak(SROCE_NAK_REM_ACCESS_ERR);
			sroce_resp_send_aeth(c, psn, syn);
			sroce_resp_rd_settle(r);
			r->ack_pending = false;
			r->error = true;
			c->fatal = true;
			return;
		}
		r->rd_send++;
		r->rd_off = 0;
		if ((s32)(r->rd_send - r->rd_sent) > 0)
			r->rd_sent = r->rd_send;
	}
	if (r->ack_pending) {
		r->ack_pending = false;
		syn = sroce_aeth_syn_ack(SROCE_AETH_CREDITS_INVALID);
		sroce_resp_send_aeth(c, r->ack_psn, syn);
	}
}

/* ---- requests ---- */

enum sroce_resp_act sroce_resp_read_req(struct sroce_resp_ctx *c,
					struct sk_buff *skb)
{
	struct sroce_reth *reth = sroce_rx_ext(skb, SROCE_EXT_RETH);
	struct sroce_resp *r = &c->qp->resp;
	u32 len = sroce_reth_len(reth);
	struct sroce_resp_rd *e;
	struct sroce_mr *mr;
	u32 npkts;

	lockdep_assert_held(&r->lock);

	sroce_rd_in_sequence(r);
	if (unlikely(!(c->access & IB_ACCESS_REMOTE_READ) || !sroce_rd_room(c)))
		return SROCE_ACT_NAK_INV;
	/* IBA o9-?: a READ may not span more than 2^31 bytes. */
	if (unlikely(len > (1U << 31)))
		return SROCE_ACT_NAK_INV;
	if (len) {
		mr = sroce_mem_rkey_get(c->sdev, c->qp->ibqp.pd,
					c->qp->ibqp.qp_num,
					sroce_reth_rkey(reth),
					sroce_reth_va(reth), len,
					IB_ACCESS_REMOTE_READ);
		if (IS_ERR(mr))
			return SROCE_ACT_NAK_ACC;
		sroce_mr_put(mr);
	}
	npkts = len ? DIV_ROUND_UP(len, c->mtu) : 1;

	e = sroce_rd_new(r);
	e->opcode = SROCE_OP_RC_READ_REQ;
	e->psn = SROCE_RX_CB(skb)->psn;
	e->last_psn = sroce_psn_add(e->psn, npkts - 1);
	e->va = sroce_reth_va(reth);
	e->rkey = sroce_reth_rkey(reth);
	e->len = len;
	e->msn = sroce_psn_next(r->msn);
	r->msn = e->msn;
	/* A READ takes one PSN per response packet (IBA 9.7.1.1). */
	r->psn = sroce_psn_next(e->last_psn);
	r->unacked = 0;
	sroce_rd_drain(c);
	return SROCE_ACT_DONE;
}

enum sroce_resp_act sroce_resp_atomic_req(struct sroce_resp_ctx *c,
					  struct sk_buff *skb)
{
	struct sroce_atmeth *atm = sroce_rx_ext(skb, SROCE_EXT_ATMETH);
	struct sroce_rx_cb *cb = SROCE_RX_CB(skb);
	struct sroce_resp *r = &c->qp->resp;
	u64 va = sroce_atmeth_va(atm);
	struct sroce_resp_rd *e;
	struct sroce_mr *mr;
	u64 orig;
	int err;

	lockdep_assert_held(&r->lock);

	sroce_rd_in_sequence(r);
	if (unlikely(!(c->access & IB_ACCESS_REMOTE_ATOMIC) ||
		     !sroce_rd_room(c) || va & 7))
		return SROCE_ACT_NAK_INV;
	mr = sroce_mem_rkey_get(c->sdev, c->qp->ibqp.pd, c->qp->ibqp.qp_num,
				sroce_atmeth_rkey(atm), va, sizeof(u64),
				IB_ACCESS_REMOTE_ATOMIC);
	if (IS_ERR(mr))
		return SROCE_ACT_NAK_ACC;
	err = sroce_mem_atomic(mr, va, cb->opcode == SROCE_OP_RC_CMP_SWAP,
			       sroce_atmeth_compare(atm),
			       sroce_atmeth_swap(atm), &orig);
	sroce_mr_put(mr);
	if (unlikely(err))
		return SROCE_ACT_NAK_INV;

	e = sroce_rd_new(r);
	e->opcode = cb->opcode;
	e->psn = cb->psn;
	e->last_psn = cb->psn;
	e->va = va;
	e->orig = orig;
	e->len = sizeof(u64);
	e->msn = sroce_psn_next(r->msn);
	r->msn = e->msn;
	r->psn = sroce_psn_next(cb->psn);
	r->unacked = 0;
	sroce_rd_drain(c);
	return SROCE_ACT_DONE;
}

/*
 * A duplicate READ or atomic (PSN before ePSN): find it in the history
 * and send its responses again from the PSN asked for.  Too old: dropped.
 * Entry @idx being due already from before @off: nothing to do.  An
 * entry at or after rd_stop asked for from its start: a later request of
 * a go-back-N (one whose duplicate was lost comes before it): due up to
 * it.  Anything else: the requester went back to @idx, having all before
 * it; send that entry, the later ones when asked.
 */
void sroce_resp_rd_replay(struct sroce_resp_ctx *c, struct sk_buff *skb)
{
	struct sroce_rx_cb *cb = SROCE_RX_CB(skb);
	struct sroce_resp *r = &c->qp->resp;
	bool read = cb->opcode == SROCE_OP_RC_READ_REQ;
	u32 i;

	lockdep_assert_held(&r->lock);

	for (i = 1; i <= r->rd_count; i++) {
		u32 idx = r->rd_head - i;
		struct sroce_resp_rd *e = sroce_rd_entry(r, idx);
		u32 off;

		if (!sroce_psn_in_range(cb->psn, e->psn, e->last_psn))
			continue;
		/* Same PSN, other operation: not a duplicate of it. */
		if (unlikely(e->opcode != cb->opcode))
			return;
		off = read ? sroce_psn_diff(cb->psn, e->psn) * c->mtu : 0;
		if ((s32)(idx - r->rd_stop) < 0) {
			if ((s32)(idx - r->rd_send) > 0)
				return; /* still due: goes out anyway */
			if (idx == r->rd_send && r->rd_off <= off)
				return; /* being sent, not yet past that PSN */
		} else if (!off) {
			r->rd_stop = idx + 1;
			sroce_rd_drain(c);
			return;
		}
		r->rd_send = idx;
		r->rd_off = off;
		r->rd_stop = idx + 1;
		/* Asked for from beyond what went out once: those are its. */
		if ((s32)(idx - r->rd_sent) > 0)
			r->rd_sent = idx;
		sroce_rd_drain(c);
		return;
	}
}

/*
 * The PSN a duplicate SEND/WRITE at @psn is ACKed with: ePSN - 1, but
 * never past an owed READ/atomic after it (rd_stop to rd_head), whose
 * duplicate may still be on its way: the requester would take such an
 * ACK for a lost response (an implied NAK) and go back N again.
 */
u32 sroce_resp_rd_ack_limit(struct sroce_resp_ctx *c, u32 psn)
{
	struct sroce_resp *r = &c->qp->resp;
	u32 idx;

	lockdep_assert_held(&r->lock);

	for (idx = r->rd_stop; idx != r->rd_head; idx++) {
		struct sroce_resp_rd *e = sroce_rd_entry(r, idx);

		if (sroce_psn_after(e->psn, psn))
			return sroce_psn_add(e->psn, SROCE_PSN_MAX);
	}
	return sroce_psn_add(r->psn, SROCE_PSN_MAX);
}

/* ---- work ---- */

void sroce_resp_work(struct work_struct *work)
{
	struct sroce_qp *qp = container_of(work, struct sroce_qp, resp.work);
	struct sroce_resp *r = &qp->resp;
	struct sroce_resp_ctx c = {};

	sroce_resp_snapshot(qp, &c);
	spin_lock_bh(&r->lock);
	r->work_queued = false;
	if (!r->error && r->gen == c.gen && sroce_resp_state_ok(c.state))
		sroce_rd_drain(&c);
	spin_unlock_bh(&r->lock);
	sroce_resp_after_unlock(&c);
	sroce_qp_put(qp); /* the work's reference */
}

void sroce_resp_kick(struct sroce_qp *qp)
{
	struct sroce_resp *r = &qp->resp;
	struct sroce_resp_ctx c = { .qp = qp };

	spin_lock_bh(&r->lock);
	if (r->rd_send != r->rd_stop && !r->error)
		sroce_resp_schedule(&c);
	spin_unlock_bh(&r->lock);
}

void sroce_resp_work_cancel(struct sroce_qp *qp)
{
	struct sroce_resp *r = &qp->resp;

	if (cancel_work_sync(&r->work)) {
		spin_lock_bh(&r->lock);
		r->work_queued = false;
		spin_unlock_bh(&r->lock);
		sroce_qp_put(qp);
	}
}
