/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qp.h - queue pairs: creation, state machine, lifetime, lookup by QPN.
 */
#ifndef _SROCE_QP_H
#define _SROCE_QP_H

#include <linux/completion.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "cc.h"
#include "pkt.h"
#include "queue.h"
#include "req.h"
#include "resp.h"
#include "rxq.h"

struct sroce_dev;
struct sroce_qp;

/*
 * What sdev->qp_xa and the multicast members hold for a QP: its reference
 * count, in memory of its own.  ib_core frees the QP as soon as destroy_qp
 * returns, but a lookup (receive softirq) may have loaded the anchor just
 * before destroy unpublished it and still be about to try the count; the
 * anchor is therefore freed one RCU grace period after destroy
 * (kfree_rcu), while destroy itself waits only for the holders of a
 * reference.  No destroy waits for a grace period (see qp.c).
 */
struct sroce_qp_anchor {
	refcount_t ref; /* qp_xa + one per holder (lookup, queued work) */
	struct completion released; /* ref dropped to zero */
	struct sroce_qp *qp; /* constant; valid while a reference is held */
	struct rcu_head rcu;
};

/* Bytes of a send WQE header and of a receive WQE header (uapi). */
#define SROCE_SEND_WQE_HDR ((u32)sizeof(struct sroce_send_wqe))
#define SROCE_RECV_WQE_HDR ((u32)sizeof(struct sroce_recv_wqe))

/* A work queue (SQ or RQ) of a QP. */
struct sroce_wq {
	/*
	 * Guards queue: the kernel's side of the ring.  For a user QP that
	 * is the consumer side (data path); for a kernel QP both sides
	 * (post_send/post_recv and the data path).  Interrupts disabled.
	 */
	spinlock_t lock;
	struct sroce_queue queue;
	u32 max_sge; /* SGEs one slot holds, as granted */
};

struct sroce_qp {
	struct ib_qp ibqp; /* must be first (core-allocated) */
	struct sroce_dev *sdev;
	bool user; /* rings mapped by user space */

	/*
	 * Reference count and its completion (constant pointer): one
	 * reference for qp_xa (dropped by destroy_qp) plus one per holder,
	 * from sroce_qp_get() or for a queued work item.  destroy_qp waits
	 * for anchor->released.
	 */
	struct sroce_qp_anchor *anchor;

	/*
	 * Guards state and attr (everything modify_qp sets and query_qp
	 * reads), and the ring flags.  Interrupts disabled.  Taken before
	 * sq.lock / rq.lock, never after them, and never held across a call
	 * into a CQ (completion handlers may post new work requests).
	 */
	spinlock_t lock;
	enum ib_qp_state state; /* also read locklessly (READ_ONCE) */
	/* Saved attributes; ah_attr holds a reference on its sgid_attr. */
	struct ib_qp_attr attr;
	/* Creation attributes with the granted caps; constant after create. */
	struct ib_qp_init_attr init;

	struct sroce_wq sq; /* send queue */
	struct sroce_wq rq; /* receive queue (no SRQ yet) */
	u32 max_inline; /* inline bytes one SQ slot holds */
	/* Receive lanes, by enum sroce_rxq_lane (rxq.c), see rxq.h. */
	struct sroce_rxq rxq[SROCE_RXQ_LANES];
	struct sroce_resp resp; /* responder (resp.c), see resp.h */
	struct sroce_req req; /* SEND side (req.c, comp.c), see req.h */
	/* Primary path, resolved at modify_qp (IB_QP_AV); qp->lock + req.lock. */
	struct sroce_av av;
	struct sroce_qp_cc cc; /* congestion control and pacing, see cc.h */
};

static inline struct sroce_qp *to_sqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct sroce_qp, ibqp);
}

int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);

/*
 * Look a QP up by number and take a reference (any context; RCU inside).
 * NULL if no QP has that number or it is being destroyed.
 * destroy_qp waits until every reference is dropped with sroce_qp_put().
 */
struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn);
void sroce_qp_put(struct sroce_qp *qp);

/* Another reference for a holder of one (e.g. for work it queues). */
static inline void sroce_qp_hold(struct sroce_qp *qp)
{
	refcount_inc(&qp->anchor->ref);
}

/*
 * A reference unless destroy_qp has dropped the last one (false then).
 * For callers that know the QP's memory is valid without holding one: its
 * timers, which destroy_qp deletes synchronously before it returns.
 */
static inline bool sroce_qp_tryget(struct sroce_qp *qp)
{
	return refcount_inc_not_zero(&qp->anchor->ref);
}

/*
 * Data path: a fatal error on the QP (IBA 10.3.1.8).  Moves it to ERR
 * unless it is in RESET or ERR already, and flushes both work queues.
 * Process or softirq context, no QP lock held.
 */
void sroce_qp_error(struct sroce_qp *qp);

/*
 * The ib_qp for a kernel CQE's qp_num, without a reference: kernel
 * consumers reap a QP's completions before destroying it.  NULL if gone.
 */
struct ib_qp *sroce_qp_ibqp_lookup(struct sroce_dev *sdev, u32 qpn);

#endif /* _SROCE_QP_H */
