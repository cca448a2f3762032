/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cq.h - completion queues.
 */
#ifndef _SROCE_CQ_H
#define _SROCE_CQ_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "queue.h"

struct sroce_cq {
	struct ib_cq ibcq; /* must be first (core-allocated) */
	bool user; /* ring mapped by user space */

	/*
	 * Guards queue (the kernel's producer side, both sides of a kernel
	 * CQ, and the ring itself, which resize_cq replaces), notify and
	 * error.  Taken with interrupts disabled: completions are posted
	 * from softirq and polled from any context.
	 */
	spinlock_t lock;
	struct sroce_queue queue; /* CQE ring, kernel is the producer */
	u8 notify; /* 0 or IB_CQ_SOLICITED/NEXT_COMP armed */
	bool error; /* overflow reported (IB_EVENT_CQ_ERR) */
};

static inline struct sroce_cq *to_scq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, ibcq);
}

int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata);
int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int sroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);

/* Callbacks sroce_cq_produce() leaves to its caller (a mask). */
#define SROCE_CQ_CALL_COMP BIT(0) /* ibcq.comp_handler */
#define SROCE_CQ_CALL_ERR BIT(1) /* ibcq.event_handler: IB_EVENT_CQ_ERR */

/*
 * Post one completion (data path).  Any context; takes cq->lock itself, so
 * the caller must not hold it.  If the CQ was armed for it (IB_CQ_NEXT_COMP
 * for any completion, IB_CQ_SOLICITED for @solicited ones) it is disarmed
 * and SROCE_CQ_CALL_COMP is added to *@calls; an overflow adds
 * SROCE_CQ_CALL_ERR once.  No callback runs here: the caller makes them
 * with sroce_cq_callbacks() once it holds no QP lock (a kernel consumer's
 * handler may post work requests, which take those locks).  The caller
 * keeps the CQ alive by holding a reference on a QP that uses it (ib_core
 * refuses to destroy a CQ with QPs attached).
 *
 * Return: 0; -ENOSPC when the CQ is full (the completion is lost);
 * -EPROTO when user space corrupted the consumer index.
 */
int sroce_cq_produce(struct sroce_cq *cq, const struct sroce_cqe *cqe,
		     bool solicited, unsigned int *calls);
/* The callbacks of @calls (SROCE_CQ_CALL_*); no QP lock held. */
void sroce_cq_callbacks(struct sroce_cq *cq, unsigned int calls);
/* sroce_cq_produce(), then its callbacks: for callers holding no lock. */
int sroce_cq_post(struct sroce_cq *cq, const struct sroce_cqe *cqe,
		  bool solicited);

#endif /* _SROCE_CQ_H */
