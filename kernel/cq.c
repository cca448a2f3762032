// SPDX-License-Identifier: GPL-2.0
/*
 * cq.c - completion queues.
 *
 * The kernel is the only producer of a CQ ring (sroce_cq_post(), from the
 * data path).  The consumer is user space for a user CQ (pure user-space
 * polling on the mapped ring) or poll_cq for a kernel CQ.  cq->lock
 * serialises every kernel access to the ring; user space never takes it.
 *
 * Notification (IBA 11.4.2.2): req_notify_cq arms the CQ for the next
 * completion or the next solicited one; sroce_cq_post() disarms it and calls
 * ibcq.comp_handler once.  IB_CQ_REPORT_MISSED_EVENTS makes req_notify_cq
 * return 1 when completions are already waiting.  Producers that hold a QP
 * lock (the responder) use sroce_cq_produce() and make the callbacks with
 * sroce_cq_callbacks() after they let go.
 */
#include <linux/slab.h>

#include "cq.h"
#include "device.h"
#include "qp.h"
#include "verbs.h"

/* Entries the consumer has not taken yet; -EPROTO if user space lied. */
static int sroce_cq_pending(struct sroce_cq *cq)
{
	int nfree;

	lockdep_assert_held(&cq->lock);

	nfree = sroce_queue_peer_cons(&cq->queue);
	if (nfree < 0)
		return nfree;
	return cq->queue.nslots - nfree;
}

/*
 * Ring for @cqe entries: slots (power of two) or -EINVAL.  The limit is the
 * one query_device advertises (device.c), at most SROCE_MAX_CQE.
 */
static int sroce_cq_slots(struct sroce_dev *sdev, int cqe)
{
	if (cqe < 1 || cqe > min_t(int, sdev->attr.max_cqe, SROCE_MAX_CQE))
		return -EINVAL;
	return sroce_queue_slots_for(cqe, SROCE_MAX_CQE);
}

/* Allocate a ring and, for a user CQ, make it mappable. */
static int sroce_cq_ring_alloc(struct sroce_queue *q, u32 nslots,
			       struct ib_udata *udata, u64 *offset, u32 *size)
{
	int err;

	err = sroce_queue_init(q, !!udata, nslots, sizeof(struct sroce_cqe));
	if (err)
		return err;
	if (!udata)
		return 0;

	err = sroce_queue_publish(q, sroce_udata_uctx(udata), offset, size);
	if (err)
		sroce_queue_destroy(q);
	return err;
}

int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibcq->device);
	struct sroce_create_cq_resp resp = {};
	struct sroce_cq *cq = to_scq(ibcq);
	u32 size = 0;
	int nslots;
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	nslots = sroce_cq_slots(sdev, attr->cqe);
	if (nslots < 0)
		return nslots;

	err = sroce_res_get(sdev, SROCE_RES_CQ, sdev->attr.max_cq);
	if (err)
		return err;

	spin_lock_init(&cq->lock);
	cq->user = !!udata;
	err = sroce_cq_ring_alloc(&cq->queue, nslots, udata, &resp.mmap_offset,
				  &size);
	if (err)
		goto err_put_res;

	if (udata) {
		resp.mmap_size = size;
		err = sroce_copy_resp(udata, &resp, sizeof(resp));
		if (err)
			goto err_destroy_ring;
	}
	ibcq->cqe = nslots;
	return 0;

err_destroy_ring:
	sroce_queue_destroy(&cq->queue);
err_put_res:
	sroce_res_put(sdev, SROCE_RES_CQ);
	return err;
}

/*
 * ib_core destroys a CQ only when no QP uses it, so the data path, which
 * posts through a referenced QP, cannot be inside sroce_cq_post() here.
 */
int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);

	sroce_queue_destroy(&cq->queue);
	sroce_res_put(to_sdev(ibcq->device), SROCE_RES_CQ);
	return 0;
}

/*
 * Move the pending entries, oldest first, to slots 0.. of @to.  The user
 * side of a resized user CQ restarts at index 0 of the fresh ring.
 */
static int sroce_cq_move(struct sroce_cq *cq, struct sroce_queue *to)
{
	struct sroce_queue *from = &cq->queue;
	int pending;

	lockdep_assert_held(&cq->lock);

	pending = sroce_cq_pending(cq);
	if (pending < 0)
		return -EINVAL;
	if (pending > to->nslots)
		return -EINVAL;

	sroce_queue_move(to, from, pending);
	return 0;
}

int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct sroce_resize_cq_resp resp = {};
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_queue old, fresh;
	unsigned long flags;
	u32 size = 0;
	int nslots;
	int err;

	nslots = sroce_cq_slots(to_sdev(ibcq->device), cqe);
	if (nslots < 0)
		return nslots;
	if (!!udata != cq->user)
		return -EINVAL;

	err = sroce_cq_ring_alloc(&fresh, nslots, udata, &resp.mmap_offset,
				  &size);
	if (err)
		return err;

	if (udata) {
		/* Respond first: after the swap there is no going back. */
		resp.mmap_size = size;
		err = sroce_copy_resp(udata, &resp, sizeof(resp));
		if (err)
			goto err_destroy_new;
	}

	spin_lock_irqsave(&cq->lock, flags);
	err = sroce_cq_move(cq, &fresh);
	if (!err) {
		fresh.hdr->flags = cq->queue.hdr->flags;
		old = cq->queue;
		cq->queue = fresh;
		ibcq->cqe = nslots;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	if (err)
		goto err_destroy_new;

	sroce_queue_destroy(&old);
	return 0;

err_destroy_new:
	sroce_queue_destroy(&fresh);
	return err;
}

int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct sroce_cq *cq = to_scq(ibcq);
	u8 arm = flags & IB_CQ_SOLICITED_MASK;
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	/* NEXT_COMP is the wider condition: it overrides SOLICITED. */
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = arm;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && sroce_cq_pending(cq))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

/* Fill @wc from a CQE of a kernel CQ. */
static void sroce_cqe_to_wc(struct sroce_dev *sdev, const struct sroce_cqe *e,
			    struct ib_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = e->wr_id;
	wc->status = e->status;
	wc->opcode = e->opcode;
	wc->vendor_err = e->vendor_err;
	wc->byte_len = e->byte_len;
	wc->qp = sroce_qp_ibqp_lookup(sdev, e->qp_num);
	if (e->wc_flags & IB_WC_WITH_INVALIDATE)
		wc->ex.invalidate_rkey = e->ex.invalidate_rkey;
	else
		wc->ex.imm_data = e->ex.imm_data;
	wc->src_qp = e->src_qp;
	wc->wc_flags = e->wc_flags;
	wc->pkey_index = e->pkey_index;
	wc->slid = e->slid;
	wc->sl = e->sl;
	wc->dlid_path_bits = e->dlid_path_bits;
	wc->port_num = e->port_num;
	wc->network_hdr_type = e->network_hdr_type;
}

/* Kernel CQs only: user CQs are polled in user space. */
int sroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct sroce_dev *sdev = to_sdev(ibcq->device);
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_queue *q = &cq->queue;
	unsigned long flags;
	int n = 0;

	if (cq->user)
		return -EOPNOTSUPP;

	spin_lock_irqsave(&cq->lock, flags);
	while (n < num_entries && sroce_queue_count(q)) {
		sroce_cqe_to_wc(sdev, sroce_queue_slot(q, q->cons), &wc[n]);
		sroce_queue_consume(q, 1);
		n++;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

static void sroce_cq_report_error(struct sroce_cq *cq)
{
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

int sroce_cq_produce(struct sroce_cq *cq, const struct sroce_cqe *cqe,
		     bool solicited, unsigned int *calls)
{
	struct sroce_queue *q;
	unsigned long flags;
	int nfree;

	spin_lock_irqsave(&cq->lock, flags);
	q = &cq->queue;
	nfree = sroce_queue_peer_cons(q);
	if (unlikely(nfree <= 0)) {
		/* Overflow (IBA C11-30): the CQ is in error from now on. */
		if (!cq->error)
			*calls |= SROCE_CQ_CALL_ERR;
		cq->error = true;
		sroce_queue_set_flags(q, SROCE_RING_F_ERROR);
		spin_unlock_irqrestore(&cq->lock, flags);
		return nfree < 0 ? nfree : -ENOSPC;
	}

	memcpy(sroce_queue_slot(q, q->prod), cqe, sizeof(*cqe));
	sroce_queue_produce(q);

	if (cq->notify == IB_CQ_NEXT_COMP ||
	    (cq->notify == IB_CQ_SOLICITED && solicited)) {
		cq->notify = 0;
		*calls |= SROCE_CQ_CALL_COMP;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return 0;
}

void sroce_cq_callbacks(struct sroce_cq *cq, unsigned int calls)
{
	if (calls & SROCE_CQ_CALL_COMP && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	if (calls & SROCE_CQ_CALL_ERR)
		sroce_cq_report_error(cq);
}

int sroce_cq_post(struct sroce_cq *cq, const struct sroce_cqe *cqe,
		  bool solicited)
{
	unsigned int calls = 0;
	int err;

	err = sroce_cq_produce(cq, cqe, solicited, &calls);
	sroce_cq_callbacks(cq, calls);
	return err;
}
