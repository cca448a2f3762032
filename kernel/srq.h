/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srq.h - shared receive queues (IBA 10.2.9, 11.2.3).
 *
 * An SRQ is one receive ring, laid out like a QP's RQ (sroce-abi.h), that
 * any number of QPs of the same PD take receive WQEs from.  For a user SRQ
 * the process produces into the mapped ring (post_srq_recv is pure user
 * space) and the kernel consumes; for a kernel SRQ both sides are here.
 *
 * Contexts: the responders of every QP attached to the SRQ take WQEs from
 * it (softirq or the responder work item, each under its own resp.lock),
 * concurrently with each other, with kernel post_srq_recv (any context)
 * and with modify_srq/query_srq (process).  srq->lock serialises all of
 * them; it is the innermost lock (resp.lock -> srq->lock), taken with
 * interrupts disabled.
 *
 * Lifetime: ib_core counts the QPs attached to an SRQ (usecnt) and refuses
 * to destroy an SRQ a QP still uses, so a QP's ibqp.srq stays valid for the
 * whole life of the QP and needs no reference of its own.
 */
#ifndef _SROCE_SRQ_H
#define _SROCE_SRQ_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "queue.h"

struct sroce_dev;

struct sroce_srq {
	struct ib_srq ibsrq; /* must be first (core-allocated) */
	struct sroce_dev *sdev;
	bool user; /* ring mapped by user space */
	u32 max_sge; /* SGEs one slot holds, as granted; constant */

	/*
	 * Guards queue (the kernel's side of it; both sides for a kernel
	 * SRQ), max_wr, limit and armed.  Interrupts disabled; innermost
	 * lock.  modify_srq(IB_SRQ_MAX_WR) replaces queue under it.
	 */
	spinlock_t lock;
	struct sroce_queue queue;
	u32 max_wr; /* slots of queue, as granted */
	/*
	 * IBA 11.5.2.2 SRQ limit: while armed, the first take that leaves
	 * fewer than limit WQEs raises IB_EVENT_SRQ_LIMIT_REACHED and
	 * disarms; modify_srq(IB_SRQ_LIMIT) with a non-zero limit re-arms.
	 */
	u32 limit;
	bool armed;
};

static inline struct sroce_srq *to_ssrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct sroce_srq, ibsrq);
}

int sroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata);
int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata);
int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int sroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);

/*
 * Responder: copy the next receive WQE and its SGEs (at most
 * SROCE_MAX_SGE) out of the SRQ and give its slot back.  Returns 1 when a
 * WQE was taken (wqe->num_sge is U32_MAX if the WQE itself was invalid:
 * more SGEs than the SRQ holds), 0 when the SRQ is empty, -EPROTO when user
 * space published an impossible index.  Sets *@limit when the take armed
 * limit crossed (the caller raises the event once it holds no QP lock:
 * a consumer's handler may post to the SRQ or the QP).  Caller holds the
 * taking QP's resp.lock (any context).
 */
int sroce_srq_take(struct sroce_srq *srq, struct sroce_recv_wqe *wqe,
		   struct sroce_sge *sge, bool *limit);

/* IBA 11.5.2.2: IB_EVENT_SRQ_LIMIT_REACHED; call with no QP or SRQ lock. */
void sroce_srq_limit_event(struct sroce_srq *srq);

/*
 * IBA 11.5.2.2 (C11-xx): a QP attached to an SRQ that entered the error
 * state and has no receive WQE left in progress reports
 * IB_EVENT_QP_LAST_WQE_REACHED.  Called after the QP's flush.
 */
void sroce_srq_last_wqe(struct ib_qp *ibqp);

#endif /* _SROCE_SRQ_H */
