/* SPDX-License-Identifier: GPL-2.0 */
/*
 * resp.h - the responder: request packets of RC, UC, UD and GSI QPs.
 *
 * Context: the RECEIVE side of a QP.  sroce_resp_rx() runs in softirq,
 * inline from the receive path, one packet at a time, serialised by
 * qp->resp.lock (spinlock, _bh).  It may transmit (ACK/NAK, READ responses,
 * atomic ACKs) through the pkt API.  READ responses longer than a budget
 * are finished by resp.work on the module workqueue (task.c), which
 * holds a QP reference while queued.  The control-path hooks reset and
 * cleanup take resp.lock with interrupts disabled, so they may be called
 * with or without qp->lock held; flush takes qp->lock itself and then
 * resp.lock (_bh), so it needs process or softirq context with interrupts
 * on and no QP lock (sroce_resp_flush_later() defers it from anywhere
 * else).  resp_rx never takes qp->lock while holding resp.lock (lock
 * order: qp->lock -> resp.lock -> rq.lock -> cq->lock).  No completion
 * callback runs under resp.lock: CQEs are produced under it and the
 * recv CQ's handlers are called after it is dropped (resp_ctx.cq_calls).
 * No user-writable index bounds a loop here: the flush takes at most
 * nslots WQEs from one validated snapshot of the RQ's prod.
 */
#ifndef _SROCE_RESP_H
#define _SROCE_RESP_H

#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <rdma/sroce-abi.h>

#include "device.h"

struct sroce_qp;
struct sroce_mr;

/* Entries of the READ/atomic history (IBA 9.7.5.1.5, responder resources). */
#define SROCE_RESP_RD_SLOTS SROCE_MAX_RD_ATOM

/* One READ or atomic request, kept for duplicates and ordered responses. */
struct sroce_resp_rd {
	u32 psn; /* PSN of the request */
	u32 last_psn; /* last PSN its response occupies */
	u64 va; /* READ/atomic target */
	u64 orig; /* atomic: value returned (never re-executed) */
	u32 rkey;
	u32 len; /* READ: DMA length */
	u32 msn; /* MSN its (last) response carries */
	u8 opcode; /* SROCE_OP_RC_READ_REQ, _CMP_SWAP or _FETCH_ADD */
};

/* Responder state of a QP; everything below lock is guarded by it. */
struct sroce_resp {
	/*
	 * Serialises the responder of this QP: packets (softirq, _bh), the
	 * READ response work, the flush (_bh) and the reset and cleanup
	 * hooks (irqsave).  Never taken in hard-IRQ context.
	 */
	spinlock_t lock;

	u32 gen; /* bumped by reset: a packet snapshot of another gen is stale */
	bool started; /* ePSN loaded from attr.rq_psn since reset */
	bool comm_est; /* IB_EVENT_COMM_EST raised */
	bool error; /* QP in error: drop everything */
	bool flushed; /* the flush of this gen's ERR ran (sroce_resp_flush()) */
	u32 psn; /* expected PSN (ePSN) */
	u32 msn; /* messages completed (AETH MSN) */
	bool nak_sent; /* one PSN sequence error NAK per gap */
	bool drop_msg; /* UC: rest of a message with a gap is dropped */
	u32 in_msg; /* 0, or SROCE_OPF_SEND/_WRITE of the open message */
	u16 unacked; /* request packets since the last ACK */

	/* Receive WQE of the open SEND (or WRITE with immediate). */
	bool wqe_valid;
	struct sroce_recv_wqe wqe; /* header, copied out of the RQ */
	struct sroce_sge sge[SROCE_MAX_SGE]; /* its SGEs (wqe.num_sge) */
	u64 wqe_len; /* sum of the SGE lengths */
	u32 offset; /* bytes of the open SEND message received so far */

	/*
	 * RDMA WRITE in progress.  No MR reference is kept between packets
	 * (a peer that never finishes must not block dereg_mr): each packet
	 * looks the rkey up again.
	 */
	u32 wr_rkey;
	u64 wr_va; /* where the next payload byte goes */
	u32 wr_len; /* DMA length of the RETH */
	u32 wr_resid; /* bytes the RETH announced that are still to come */

	/*
	 * READ/atomic history: free-running indices into rd[].  Entries in
	 * [rd_head - SROCE_RESP_RD_SLOTS, rd_head) that were ever written
	 * are valid for duplicates; [rd_send, rd_stop) still need their
	 * response sent, in order, before any later ACK.  rd_stop is
	 * rd_head but after a duplicate (resp_rd.c): the entries from
	 * rd_stop on are owed, sent when the requester asks for them
	 * again; a re-ACK of a duplicate SEND/WRITE stops before them, the
	 * ACK of a new request does not (they are stale by then).
	 */
	struct sroce_resp_rd rd[SROCE_RESP_RD_SLOTS];
	u32 rd_head; /* next entry written */
	u32 rd_count; /* entries written since reset (max SLOTS) */
	u32 rd_send; /* entry whose response is being sent */
	u32 rd_off; /* bytes of rd[rd_send]'s READ already sent */
	u32 rd_stop; /* first entry not to send now */
	/*
	 * First entry not yet sent whole once: those before it only go
	 * again (rd_send <= rd_sent <= rd_head).
	 */
	u32 rd_sent;

	/*
	 * INT of the newest request that carried a block (kernel/int.c),
	 * as the echo the next ACK carries; int_echo_len 0 = none.
	 */
	u8 int_echo_len;
	u8 int_echo[84]; /* SROCE_INT_MAX_LEN (int.c checks) */

	bool ack_pending; /* an ACK waits for the responses above */
	u32 ack_psn; /* PSN that ACK carries */
	/*
	 * Delayed ACK of a message end that asked for none (resp.c); holds
	 * no reference: sroce_resp_cleanup() deletes it synchronously, and
	 * it is armed only under lock while !error.
	 */
	struct timer_list ack_timer;

	/* Sends the rest of long READ responses; holds a QP reference. */
	struct work_struct work;
	bool work_queued; /* work queued (and its reference held) */
	/* sroce_resp_flush_later(); holds a QP reference while queued. */
	struct work_struct flush_work;
};

/*
 * Nothing of the READ/atomic history is due or owed any more: the QP
 * failed or flushed, or every owed entry is stale (resp_rd.c).  The
 * entries stay valid for duplicates.
 */
static inline void sroce_resp_rd_settle(struct sroce_resp *r)
{
	lockdep_assert_held(&r->lock);
	r->rd_send = r->rd_head;
	r->rd_stop = r->rd_head;
	r->rd_sent = r->rd_head;
	r->rd_off = 0;
}

/* request-class opcodes for RC/UC/UD/GSI; takes ownership; softirq */
void sroce_resp_rx(struct sroce_qp *qp, struct sk_buff *skb);

/* create_qp: initialise qp->resp (before the QP is published). */
void sroce_resp_init(struct sroce_qp *qp);
/* modify to RESET: forget all state; ePSN reloads from attr.rq_psn. */
void sroce_resp_reset(struct sroce_qp *qp);
/*
 * ERR: complete the held WQE and the RQ's posted ones with WR_FLUSH_ERR
 * (at most nslots, from one snapshot of prod); nothing if the QP is no
 * longer in ERR.  Process or softirq context, interrupts on, no QP lock.
 * True for the first flush of the QP's ERR since it was last reset, the
 * one after which a QP with an SRQ reports its last WQE; false for a
 * later one and for a flush that found the QP reset (or reset since).
 */
bool sroce_resp_flush(struct sroce_qp *qp);
/*
 * The same from the workqueue: any context.  Kernel post_recv in ERR uses
 * it always, so the recv CQ's handler never runs inside the post.
 */
void sroce_resp_flush_later(struct sroce_qp *qp);
/* destroy: free cached responses (cancels the work, drops references) */
void sroce_resp_cleanup(struct sroce_qp *qp);

#endif /* _SROCE_RESP_H */
