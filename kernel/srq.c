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
#include <linux/uaccess.h>

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
	err = sroce_res_get(sdev, SROCE_RES_SRQ, sdev->attr.max_srq);
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

/*
 * Copy the posted, not yet taken WQEs of @srq to the start of @to.  IBA
 * 11.2.3.3 (o11-3.2.1): the new size may not be below the number of
 * outstanding WQEs, nor below the armed limit.
 */
static int sroce_srq_move(struct sroce_srq *srq, struct sroce_queue *to)
{
	struct sroce_queue *from = &srq->queue;
	int pending;

	lockdep_assert_held(&srq->lock);

	pending = srq->user ? sroce_queue_peer_prod(from) :
			      (int)sroce_queue_count(from);
	if (pending < 0)
		return -EPROTO;
	if (pending > to->nslots || srq->limit > to->nslots)
		return -EINVAL;
	sroce_queue_move(to, from, pending);
	return 0;
}

/*
 * Where a user SRQ's new ring mapping goes: modify_srq has no response,
 * so the provider names an address in its driver data (sroce-abi.h).
 */
static int sroce_srq_resize_dest(struct ib_udata *udata, u64 *addr)
{
	struct sroce_modify_srq_cmd cmd = {};
	int err;

	if (!udata || udata->inlen < sizeof(cmd))
		return -EOPNOTSUPP;
	err = ib_copy_from_udata(&cmd, udata, sizeof(cmd));
	if (err)
		return err;
	*addr = cmd.resp_addr;
	return cmd.resp_addr ? 0 : -EINVAL;
}

/* IB_SRQ_MAX_WR: a fresh ring of the new size takes the posted WQEs. */
static int sroce_srq_resize(struct sroce_srq *srq, u32 max_wr,
			    struct ib_udata *udata)
{
	struct sroce_resize_srq_resp resp = {};
	struct sroce_queue old, fresh;
	unsigned long flags;
	u32 nslots, size = 0;
	u64 dest = 0;
	int err;

	nslots = sroce_queue_slots_for(max_wr, SROCE_MAX_SRQ_WR);
	if (!max_wr || !nslots)
		return -EINVAL;
	if (srq->user) {
		err = sroce_srq_resize_dest(udata, &dest);
		if (err)
			return err;
	}
	err = sroce_queue_init(&fresh, srq->user, nslots, srq->queue.slot_size);
	if (err)
		return err;
	if (srq->user) {
		err = sroce_queue_publish(&fresh, sroce_udata_uctx(udata),
					  &resp.mmap_offset, &size);
		resp.mmap_size = size;
		/* Tell the provider first: after the swap there is no way back. */
		if (!err &&
		    copy_to_user(u64_to_user_ptr(dest), &resp, sizeof(resp)))
			err = -EFAULT;
		if (err)
			goto err_destroy;
	}

	spin_lock_irqsave(&srq->lock, flags);
	err = sroce_srq_move(srq, &fresh);
	if (!err) {
		old = srq->queue;
		srq->queue = fresh;
		srq->max_wr = nslots;
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	if (err)
		goto err_destroy;
	/* A user mapping of the old ring stays valid until it is unmapped. */
	sroce_queue_destroy(&old);
	return 0;

err_destroy:
	sroce_queue_destroy(&fresh);
	return err;
}

int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;
	int err = 0;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	if (mask & IB_SRQ_LIMIT && attr->srq_limit > SROCE_MAX_SRQ_WR)
		return -EINVAL;
	/* Resizing is optional (IBA o11-3.2.1); sroce does it. */
	if (mask & IB_SRQ_MAX_WR) {
		err = sroce_srq_resize(srq, attr->max_wr, udata);
		if (err)
			return err;
	}
	if (!(mask & IB_SRQ_LIMIT))
		return 0;

	spin_lock_irqsave(&srq->lock, flags);
	if (attr->srq_limit > srq->max_wr) {
		err = -EINVAL;
	} else {
		srq->limit = attr->srq_limit;
		srq->armed = attr->srq_limit != 0;
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	return err;
}

int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;

	attr->max_sge = srq->max_sge;
	spin_lock_irqsave(&srq->lock, flags);
	attr->max_wr = srq->max_wr;
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

int sroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;
	int err;

	/* User SRQs post on their mapped ring. */
	if (srq->user) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	spin_lock_irqsave(&srq->lock, flags);
	err = sroce_queue_post_recv(&srq->queue, srq->max_sge, wr, bad_wr);
	spin_unlock_irqrestore(&srq->lock, flags);
	return err;
}

void sroce_srq_limit_event(struct sroce_srq *srq)
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
		   struct sroce_sge *sge, bool *limit)
{
	struct sroce_queue *q = &srq->queue;
	const struct sroce_recv_wqe *slot;
	unsigned long flags;
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
		*limit = true;
	}
	spin_unlock_irqrestore(&srq->lock, flags);
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
