// SPDX-License-Identifier: GPL-2.0
/*
 * srq.c - shared receive queues: create/modify/query/destroy, kernel
 * post_srq_recv, and the responder's take with the SRQ limit event.
 *
 * Contexts and locking: see srq.h.  What the responder reads from a user
 * ring is copied out once under srq->lock and validated on the copy (as
 * for a QP's RQ, resp.c); the user can scribble on the ring at any time
 * without making the kernel index outside it.
 */
#include <linux/slab.h>

#include "device.h"
#include "qp.h"
#include "srq.h"
#include "verbs.h"

/* The responder's SGE array (resp.h) holds any SRQ WQE. */
static_assert(SROCE_MAX_SRQ_SGE <= SROCE_MAX_SGE);
static_assert((SROCE_MAX_SRQ_WR & (SROCE_MAX_SRQ_WR - 1)) == 0);

static int sroce_srq_check_init(const struct ib_srq_init_attr *init)
{
	const struct ib_srq_attr *attr = &init->attr;

	/* XRC SRQs need XRC domains, which sroce does not have. */
	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!attr->max_wr || attr->max_wr > SROCE_MAX_SRQ_WR ||
	    attr->max_sge > SROCE_MAX_SRQ_SGE)
		return -EINVAL;
	return 0;
}

int sroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibsrq->device);
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct sroce_create_srq_resp resp = {};
	u32 nslots, slot_size;
	int err;

	err = sroce_srq_check_init(init);
	if (err)
		return err;
	err = sroce_res_get(sdev, SROCE_RES_SRQ, SROCE_MAX_SRQ);
	if (err)
		return err;

	srq->sdev = sdev;
	srq->user = !!udata;
	spin_lock_init(&srq->lock);
	nslots = sroce_queue_slots_for(init->attr.max_wr, SROCE_MAX_SRQ_WR);
	slot_size = SROCE_RECV_WQE_HDR +
		    init->attr.max_sge * (u32)sizeof(struct sroce_sge);
	srq->max_wr = nslots;
	srq->max_sge = init->attr.max_sge;
	/* ibv_create_srq(3): srq_limit is only set by modify_srq. */
	srq->limit = 0;
	srq->armed = false;

	err = sroce_queue_init(&srq->queue, srq->user, nslots, slot_size);
	if (err)
		goto err_put_res;
	if (udata) {
		err = sroce_queue_publish(&srq->queue, sroce_udata_uctx(udata),
					  &resp.mmap_offset, &resp.mmap_size);
		if (err)
			goto err_free_ring;
		err = sroce_copy_resp(udata, &resp, sizeof(resp));
		if (err)
			goto err_free_ring;
	}
	init->attr.max_wr = srq->max_wr;
	init->attr.max_sge = srq->max_sge;
	init->attr.srq_limit = 0;
	return 0;

err_free_ring:
	sroce_queue_destroy(&srq->queue);
err_put_res:
	sroce_res_put(sdev, SROCE_RES_SRQ);
	return err;
}

int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	/* Resizing (IB_SRQ_MAX_WR) is optional (IBA o11-3.2.1). */
	if (mask & IB_SRQ_MAX_WR)
		return -EOPNOTSUPP;
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > srq->max_wr)
		return -EINVAL;

	spin_lock_irqsave(&srq->lock, flags);
	srq->limit = attr->srq_limit;
	srq->armed = attr->srq_limit != 0;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;

	attr->max_wr = srq->max_wr;
	attr->max_sge = srq->max_sge;
	spin_lock_irqsave(&srq->lock, flags);
	attr->srq_limit = srq->limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

/* ib_core destroys an SRQ only once no QP is attached (usecnt). */
int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	sroce_queue_destroy(&srq->queue);
	sroce_res_put(srq->sdev, SROCE_RES_SRQ);
	return 0;
}

static int sroce_srq_post_one(struct sroce_srq *srq,
			      const struct ib_recv_wr *wr)
{
	struct sroce_queue *q = &srq->queue;
	struct sroce_recv_wqe *wqe;
	struct sroce_sge *sge;
	int i;

	lockdep_assert_held(&srq->lock);

	if (wr->num_sge < 0 || wr->num_sge > srq->max_sge)
		return -EINVAL;
	if (sroce_queue_peer_cons(q) <= 0)
		return -ENOMEM;

	wqe = sroce_queue_slot(q, q->prod);
	wqe->wr_id = wr->wr_id;
	wqe->num_sge = wr->num_sge;
	wqe->reserved = 0;
	sge = (struct sroce_sge *)(wqe + 1);
	for (i = 0; i < wr->num_sge; i++) {
		sge[i].addr = wr->sg_list[i].addr;
		sge[i].length = wr->sg_list[i].length;
		sge[i].lkey = wr->sg_list[i].lkey;
	}
	sroce_queue_produce(q);
	return 0;
}

int sroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;
	int err = 0;

	/* User SRQs post on their mapped ring. */
	if (srq->user) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	spin_lock_irqsave(&srq->lock, flags);
	for (; wr; wr = wr->next) {
		err = sroce_srq_post_one(srq, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	return err;
}

static void sroce_srq_limit_event(struct sroce_srq *srq)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

int sroce_srq_take(struct sroce_srq *srq, struct sroce_recv_wqe *wqe,
		   struct sroce_sge *sge)
{
	struct sroce_queue *q = &srq->queue;
	const struct sroce_recv_wqe *slot;
	unsigned long flags;
	bool fire = false;
	int ready;

	spin_lock_irqsave(&srq->lock, flags);
	ready = sroce_queue_peer_prod(q);
	if (ready <= 0) {
		spin_unlock_irqrestore(&srq->lock, flags);
		return ready < 0 ? -EPROTO : 0;
	}
	slot = sroce_queue_slot(q, q->cons);
	memcpy(wqe, slot, sizeof(*wqe));
	/* Validate the copy; the slot may change under us from now on. */
	if (unlikely(wqe->num_sge > srq->max_sge))
		wqe->num_sge = U32_MAX;
	else
		memcpy(sge, slot + 1, wqe->num_sge * sizeof(*sge));
	sroce_queue_consume(q, 1);
	/* IBA 11.5.2.2: fewer WQEs than the limit left: report once. */
	if (srq->armed && (u32)ready - 1 < srq->limit) {
		srq->armed = false;
		fire = true;
	}
	spin_unlock_irqrestore(&srq->lock, flags);

	if (fire)
		sroce_srq_limit_event(srq);
	return 1;
}

void sroce_srq_last_wqe(struct ib_qp *ibqp)
{
	struct ib_event ev = {
		.device = ibqp->device,
		.element.qp = ibqp,
		.event = IB_EVENT_QP_LAST_WQE_REACHED,
	};

	if (ibqp->srq && ibqp->event_handler)
		ibqp->event_handler(&ev, ibqp->qp_context);
}
