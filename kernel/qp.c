// SPDX-License-Identifier: GPL-2.0
/*
 * qp.c - queue pairs: creation, state machine (IBA 10.3, 11.2.5), lifetime.
 *
 * Lifetime: a QP is published in sdev->qp_xa under its QPN as its anchor
 * (qp.h), which carries the reference count, one reference owned by the
 * table.  The receive path looks QPs up by number under RCU and takes a
 * reference with refcount_inc_not_zero() (sroce_qp_get()); multicast
 * members point at the anchor too.  destroy_qp unpublishes the QP, stops
 * its timers and work, drops the table's reference, waits until every
 * holder has dropped theirs and leaves the anchor to kfree_rcu(): ib_core
 * frees the QP right after destroy_qp returns, and a lookup that loaded
 * the anchor before the erase only ever touches the anchor until its
 * increment succeeds.  See sroce_destroy_qp() for why no grace period is
 * needed.
 *
 * Contexts touching a QP today: the verbs (create/modify/query/destroy, in
 * process context, serialised against each other only by qp->lock) and
 * kernel post_recv (any context, rq.lock).  The data path adds the receive
 * path (softirq, holds a reference) and the send side.
 */
#include <linux/capability.h>
#include <linux/slab.h>

#include "ah.h"
#include "cq.h"
#include "device.h"
#include "fr.h"
#include "mcast.h"
#include "qp.h"
#include "req.h"
#include "srq.h"
#include "task.h"
#include "testhook.h"
#include "verbs.h"

/* Attribute masks this driver never accepts (no APM, no rate limit). */
#define SROCE_QP_UNSUPPORTED_MASK (IB_QP_ALT_PATH | IB_QP_RATE_LIMIT)

#define SROCE_QP_ACCESS_KNOWN                             \
	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
	 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)

#define SROCE_PSN_MASK 0xffffffU
#define SROCE_QPN_MASK 0xffffffU
#define SROCE_CONTROLLED_QKEY 0x80000000U

/* ---- creation ---- */

static int sroce_qp_check_init(const struct ib_qp *ibqp,
			       struct ib_qp_init_attr *init,
			       struct ib_udata *udata)
{
	struct ib_qp_cap *cap = &init->cap;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_GSI:
		/* QP1 belongs to ib_mad; user space never creates it. */
		if (udata)
			return -EOPNOTSUPP;
		if (init->port_num != 1)
			return -EINVAL;
		break;
	default:
		return -EOPNOTSUPP;
	}
	/* ib_mad creates QP1 with no create flags. */
	if (init->create_flags)
		return -EOPNOTSUPP;
	if (init->xrcd || init->rwq_ind_tbl)
		return -EOPNOTSUPP;
	if (!init->send_cq || !init->recv_cq)
		return -EINVAL;
	/*
	 * The responder checks the lkeys of receive WQEs taken from the SRQ
	 * against the QP's PD (resp.c): with an SRQ of another PD every
	 * receive would fail, so the two must share one.  CQs have no PD.
	 */
	if (init->srq && init->srq->pd != ibqp->pd)
		return -EINVAL;
	if (init->sq_sig_type != IB_SIGNAL_ALL_WR &&
	    init->sq_sig_type != IB_SIGNAL_REQ_WR)
		return -EINVAL;
	if (cap->max_send_wr > SROCE_MAX_QP_WR ||
	    cap->max_recv_wr > SROCE_MAX_QP_WR ||
	    cap->max_send_sge > SROCE_MAX_SGE ||
	    cap->max_recv_sge > SROCE_MAX_SGE ||
	    cap->max_inline_data > SROCE_MAX_INLINE)
		return -EINVAL;
	return 0;
}

/*
 * Ring geometry (uapi): an SQ slot is the 64-byte header plus room for the
 * larger of max_send_sge SGEs and max_inline_data bytes, rounded up to 16;
 * an RQ slot is the 16-byte header plus max_recv_sge SGEs.  The caps are
 * rewritten with what the slots actually hold.
 */
static void sroce_qp_geometry(struct sroce_qp *qp, struct ib_qp_cap *cap,
			      u32 *sq_slots, u32 *sq_size, u32 *rq_slots,
			      u32 *rq_size)
{
	u32 sq_room = max_t(u32, cap->max_send_sge * sizeof(struct sroce_sge),
			    cap->max_inline_data);

	sq_room = ALIGN(sq_room, 16);
	*sq_slots = sroce_queue_slots_for(cap->max_send_wr, SROCE_MAX_QP_WR);
	*rq_slots = sroce_queue_slots_for(cap->max_recv_wr, SROCE_MAX_QP_WR);
	*sq_size = SROCE_SEND_WQE_HDR + sq_room;
	*rq_size = SROCE_RECV_WQE_HDR +
		   cap->max_recv_sge * sizeof(struct sroce_sge);

	qp->sq.max_sge =
		min_t(u32, sq_room / sizeof(struct sroce_sge), SROCE_MAX_SGE);
	qp->rq.max_sge = cap->max_recv_sge;
	qp->max_inline = min_t(u32, sq_room, SROCE_MAX_INLINE);

	cap->max_send_wr = *sq_slots;
	cap->max_recv_wr = *rq_slots;
	cap->max_send_sge = qp->sq.max_sge;
	cap->max_recv_sge = qp->rq.max_sge;
	cap->max_inline_data = qp->max_inline;
}

static void sroce_qp_free_rings(struct sroce_qp *qp)
{
	sroce_queue_destroy(&qp->rq.queue);
	sroce_queue_destroy(&qp->sq.queue);
}

static int sroce_qp_alloc_rings(struct sroce_qp *qp, struct ib_qp_cap *cap,
				bool has_srq, struct ib_udata *udata,
				struct sroce_create_qp_resp *resp)
{
	struct ib_ucontext *uctx = sroce_udata_uctx(udata);
	u32 sq_slots, sq_size, rq_slots, rq_size;
	int err;

	/* With an SRQ the RQ stays an unused one-slot kernel ring. */
	if (has_srq) {
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
	}
	sroce_qp_geometry(qp, cap, &sq_slots, &sq_size, &rq_slots, &rq_size);
	if (has_srq)
		cap->max_recv_wr = 0;

	err = sroce_queue_init(&qp->sq.queue, qp->user, sq_slots, sq_size);
	if (err)
		return err;
	err = sroce_queue_init(&qp->rq.queue, qp->user && !has_srq, rq_slots,
			       rq_size);
	if (err)
		goto err_free;
	if (!qp->user)
		return 0;

	err = sroce_queue_publish(&qp->sq.queue, uctx, &resp->sq_mmap_offset,
				  &resp->sq_mmap_size);
	if (err)
		goto err_free;
	if (!has_srq)
		err = sroce_queue_publish(&qp->rq.queue, uctx,
					  &resp->rq_mmap_offset,
					  &resp->rq_mmap_size);
	if (err)
		goto err_free;
	resp->max_inline_data = qp->max_inline;
	return 0;

err_free:
	sroce_qp_free_rings(qp);
	return err;
}

/* The reference count, before anything could take a reference. */
static int sroce_qp_anchor_init(struct sroce_qp *qp)
{
	struct sroce_qp_anchor *a;

	a = kmalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	refcount_set(&a->ref, 1);
	init_completion(&a->released);
	a->qp = qp;
	qp->anchor = a;
	return 0;
}

/* Give the QP its number; from now on the receive path can find it. */
static int sroce_qp_publish(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = qp->sdev;
	u32 qpn;
	int err;

	if (qp->ibqp.qp_type == IB_QPT_GSI) {
		/* -EBUSY: the port already has its QP1. */
		qp->ibqp.qp_num = 1;
		return xa_insert(&sdev->qp_xa, 1, qp->anchor, GFP_KERNEL);
	}

	/* Reserve a number, then store the QP once qp_num is set. */
	err = xa_alloc_cyclic(&sdev->qp_xa, &qpn, NULL,
			      XA_LIMIT(SROCE_MIN_QPN, SROCE_MAX_QPN),
			      &sdev->qpn_next, GFP_KERNEL);
	if (err == -EBUSY)
		return -ENOMEM; /* every QPN in use */
	if (err < 0)
		return err;
	qp->ibqp.qp_num = qpn;
	xa_store(&sdev->qp_xa, qpn, qp->anchor, GFP_KERNEL);
	return 0;
}

static void sroce_qp_init_attr(struct sroce_qp *qp,
			       const struct ib_qp_init_attr *init,
			       const struct ib_qp_cap *cap)
{
	qp->state = IB_QPS_RESET;
	qp->attr.qp_state = IB_QPS_RESET;
	qp->attr.cur_qp_state = IB_QPS_RESET;
	qp->attr.path_mtu = IB_MTU_1024;
	qp->attr.path_mig_state = IB_MIG_MIGRATED;
	qp->attr.port_num = 1;
	qp->attr.cap = *cap;
	qp->init = *init;
	qp->init.cap = *cap;
	qp->init.port_num = 1;
}

int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_create_qp_resp resp = {};
	struct sroce_qp *qp = to_sqp(ibqp);
	struct ib_qp_cap cap = init->cap;
	int err;

	err = sroce_qp_check_init(ibqp, init, udata);
	if (err)
		return err;
	err = sroce_res_get(sdev, SROCE_RES_QP, sdev->attr.max_qp);
	if (err)
		return err;

	qp->sdev = sdev;
	qp->user = !!udata;
	err = sroce_qp_anchor_init(qp);
	if (err)
		goto err_put_res;
	spin_lock_init(&qp->lock);
	spin_lock_init(&qp->sq.lock);
	spin_lock_init(&qp->rq.lock);

	/* The caller's caps are rewritten (granted values) only on success. */
	err = sroce_qp_alloc_rings(qp, &cap, init->srq, udata, &resp);
	if (err)
		goto err_free_anchor;

	if (udata) {
		err = sroce_copy_resp(udata, &resp, sizeof(resp));
		if (err)
			goto err_free_rings;
	}
	sroce_qp_init_attr(qp, init, &cap);
	sroce_rxq_init(qp);
	sroce_resp_init(qp);
	err = sroce_req_init(qp);
	if (err)
		goto err_free_rings;
	sroce_cc_qp_init(qp);
	err = sroce_qp_publish(qp);
	if (err)
		goto err_cc_cleanup;
	init->cap = cap;
	return 0;

err_cc_cleanup:
	sroce_cc_qp_cleanup(qp);
	sroce_req_cleanup(qp);
err_free_rings:
	sroce_qp_free_rings(qp);
err_free_anchor:
	kfree(qp->anchor); /* never published */
err_put_res:
	sroce_res_put(sdev, SROCE_RES_QP);
	return err;
}

/* ---- lookup and destruction ---- */

struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn)
{
	struct sroce_qp_anchor *a;
	struct sroce_qp *qp = NULL;

	rcu_read_lock();
	a = xa_load(&sdev->qp_xa, qpn);
	/* Only the anchor until the count is ours: the QP may be gone. */
	if (a && refcount_inc_not_zero(&a->ref))
		qp = a->qp;
	rcu_read_unlock();
	return qp;
}

void sroce_qp_put(struct sroce_qp *qp)
{
	struct sroce_qp_anchor *a = qp->anchor;

	/* complete() is done with a before wait_for_completion() returns. */
	if (refcount_dec_and_test(&a->ref))
		complete(&a->released);
}

struct ib_qp *sroce_qp_ibqp_lookup(struct sroce_dev *sdev, u32 qpn)
{
	struct sroce_qp_anchor *a;
	struct sroce_qp *qp = NULL;

	rcu_read_lock();
	a = xa_load(&sdev->qp_xa, qpn);
	if (a)
		qp = a->qp;
	rcu_read_unlock();
	return qp ? &qp->ibqp : NULL;
}

/*
 * Stop everything that runs on the QP without a reference (timers) or
 * with one of its own (work): each flag is set under the lock its arming
 * sites check it under, so from here on a timer is not armed again and
 * no work is queued; work queued or running meanwhile holds a reference.
 */
static void sroce_qp_stop(struct sroce_qp *qp)
{
	sroce_cc_qp_stop(qp);
	sroce_req_stop(qp);
	sroce_rxq_cleanup(qp);
	sroce_resp_cleanup(qp); /* cancels the responder's work */
}

/*
 * No RCU grace period, none expedited (an IPI to every CPU, which any
 * local user could trigger in a loop):
 *
 * - Memory: readers that found the QP before it was unpublished (qp_xa,
 *   a multicast member) touch only the anchor until refcount_inc_not_zero()
 *   succeeds, and the anchor outlives them (kfree_rcu, called after both
 *   unlinks).  A successful increment keeps the QP alive: destroy waits
 *   for it below.
 * - Activity: a receive softirq (or the PFC kick, a CNP) that took its
 *   reference before the erase may still be running on the QP after the
 *   stop.  It finds the stop flags set (req.stopped, cc.stopped,
 *   resp.error, checked under the same locks), so it arms no timer and
 *   queues no requester or responder work; packets it hands to a receive
 *   lane are processed (and dropped) by lane work that holds its own
 *   reference.  Waiting for the count to reach zero therefore waits for
 *   all of them, and for nothing else: it takes as long as the holders
 *   do, normally nothing.
 * - After zero, no reference can be taken (every taker uses
 *   inc_not_zero or already holds one), so nothing is queued; the lanes
 *   are drained once more for what a late holder left.
 */
int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_qp_anchor *a = qp->anchor;
	struct sroce_dev *sdev = qp->sdev;

	might_sleep();
	/* Unreachable by number and by multicast group from here on. */
	sroce_mcast_qp_destroy(qp);
	xa_erase(&sdev->qp_xa, ibqp->qp_num);
	sroce_qp_stop(qp);
	sroce_qp_put(qp);
	wait_for_completion(&a->released);
	/* Nothing may be armed now that every holder saw the flags. */
	WARN_ON_ONCE(timer_pending(&qp->req.retrans_timer) ||
		     timer_pending(&qp->req.rnr_timer) ||
		     timer_pending(&qp->req.tail_timer) ||
		     timer_pending(&qp->req.hold_timer) ||
		     timer_pending(&qp->resp.ack_timer) ||
		     hrtimer_active(&qp->cc.pace_timer));
	sroce_rxq_cleanup(qp);

	sroce_cc_qp_cleanup(qp);
	sroce_req_cleanup(qp);
	sroce_qp_free_rings(qp);
	rdma_destroy_ah_attr(&qp->attr.ah_attr);
	sroce_res_put(sdev, SROCE_RES_QP);
	kfree_rcu(a, rcu);
	return 0;
}

/* ---- modify / query ---- */

/* Checks of single values that do not depend on the QP's state. */
static int sroce_qp_check_values(const struct ib_qp_attr *attr, int mask)
{
	if (mask & ~IB_QP_ATTR_STANDARD_BITS ||
	    mask & SROCE_QP_UNSUPPORTED_MASK)
		return -EOPNOTSUPP;
	if (mask & IB_QP_STATE && attr->qp_state > IB_QPS_ERR)
		return -EINVAL;
	if (mask & IB_QP_CUR_STATE && attr->cur_qp_state > IB_QPS_ERR)
		return -EINVAL;
	if (mask & IB_QP_PKEY_INDEX && attr->pkey_index >= SROCE_MAX_PKEYS)
		return -EINVAL;
	if (mask & IB_QP_PORT && attr->port_num != 1)
		return -EINVAL;
	if (mask & IB_QP_ACCESS_FLAGS &&
	    attr->qp_access_flags & ~SROCE_QP_ACCESS_KNOWN)
		return -EINVAL;
	if (mask & IB_QP_PATH_MTU &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC &&
	    attr->max_rd_atomic > SROCE_MAX_RD_ATOM)
		return -EINVAL;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC &&
	    attr->max_dest_rd_atomic > SROCE_MAX_RD_ATOM)
		return -EINVAL;
	/* IBA 9.7.6.1.3: 5-bit timeout, 3-bit retry counts, 5-bit RNR timer */
	if (mask & IB_QP_TIMEOUT && attr->timeout > 31)
		return -EINVAL;
	if (mask & IB_QP_RETRY_CNT && attr->retry_cnt > 7)
		return -EINVAL;
	if (mask & IB_QP_RNR_RETRY && attr->rnr_retry > 7)
		return -EINVAL;
	if (mask & IB_QP_MIN_RNR_TIMER && attr->min_rnr_timer > 31)
		return -EINVAL;
	if (mask & IB_QP_SQ_PSN && attr->sq_psn & ~SROCE_PSN_MASK)
		return -EINVAL;
	if (mask & IB_QP_RQ_PSN && attr->rq_psn & ~SROCE_PSN_MASK)
		return -EINVAL;
	if (mask & IB_QP_DEST_QPN && attr->dest_qp_num & ~SROCE_QPN_MASK)
		return -EINVAL;
	if (mask & IB_QP_PATH_MIG_STATE && attr->path_mig_state > IB_MIG_ARMED)
		return -EINVAL;
	return 0;
}

/*
 * IBA 10.2.4: a Q_Key with the high bit set is controlled; only privileged
 * consumers may give it to a QP (kernel QP1 uses IB_QP1_QKEY).
 */
static int sroce_qp_check_qkey(const struct ib_qp_attr *attr, int mask,
			       struct ib_udata *udata)
{
	if (mask & IB_QP_QKEY && attr->qkey & SROCE_CONTROLLED_QKEY && udata &&
	    !capable(CAP_NET_RAW))
		return -EPERM;
	return 0;
}

/*
 * IBA 10.3.1: in SQD the attributes change only once the SQ is drained;
 * until then the path, timeouts and retry counts are those the begun
 * messages are resent with.  (A plain SQD -> SQD changes nothing.)
 */
static bool sroce_qp_sqd_busy(struct sroce_qp *qp, enum ib_qp_state cur,
			      enum ib_qp_state next, int mask)
{
	lockdep_assert_held(&qp->lock);
	return cur == IB_QPS_SQD && next == IB_QPS_SQD &&
	       mask & ~(IB_QP_STATE | IB_QP_CUR_STATE) &&
	       !READ_ONCE(qp->req.sqd_drained);
}

/* Save the values of @mask in the QP (all already validated). */
static void sroce_qp_save_attr(struct sroce_qp *qp,
			       const struct ib_qp_attr *attr, int mask,
			       struct rdma_ah_attr *av)
{
	struct ib_qp_attr *a = &qp->attr;

	lockdep_assert_held(&qp->lock);

	if (mask & IB_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		a->port_num = attr->port_num;
	if (mask & IB_QP_QKEY)
		a->qkey = attr->qkey;
	if (mask & IB_QP_ACCESS_FLAGS)
		a->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		a->en_sqd_async_notify = attr->en_sqd_async_notify;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_PATH_MTU)
		a->path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_SQ_PSN)
		a->sq_psn = attr->sq_psn;
	if (mask & IB_QP_RQ_PSN)
		a->rq_psn = attr->rq_psn;
	if (mask & IB_QP_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num;
	if (mask & IB_QP_PATH_MIG_STATE)
		a->path_mig_state = attr->path_mig_state;
	if (mask & IB_QP_AV)
		swap(a->ah_attr, *av); /* the old one is put by the caller */
}

/*
 * The QP has just entered the error state (IBA 10.3.1.8).  The rings carry
 * SROCE_RING_F_ERROR already; what remains is to complete every
 * outstanding WQE with IB_WC_WR_FLUSH_ERR (send and receive).  Called
 * without qp->lock; process or softirq context.  The last WQE is reported
 * (QP with an SRQ, IBA 11.5.2.2) once per ERR, by the flush that ran for
 * it: not by one that found the QP reset since (a racing modify), which
 * has no WQE to report the last of, nor by a second flush of one ERR.
 */
static void sroce_qp_flush(struct sroce_qp *qp)
{
	sroce_req_flush(qp);
	if (sroce_resp_flush(qp))
		sroce_srq_last_wqe(&qp->ibqp);
}

/* State change side effects on the rings (qp->lock held). */
static void sroce_qp_enter_state(struct sroce_qp *qp, enum ib_qp_state next)
{
	lockdep_assert_held(&qp->lock);

	switch (next) {
	case IB_QPS_RESET:
		/* The SQ ring is reset with the requester's cursors (req.c). */
		sroce_resp_reset(qp);
		spin_lock(&qp->rq.lock);
		sroce_queue_reset(&qp->rq.queue);
		sroce_queue_clear_flags(&qp->rq.queue, SROCE_RING_F_ERROR);
		spin_unlock(&qp->rq.lock);
		break;
	case IB_QPS_ERR:
	case IB_QPS_SQE:
		sroce_queue_set_flags(&qp->sq.queue, SROCE_RING_F_ERROR);
		if (next == IB_QPS_ERR)
			sroce_queue_set_flags(&qp->rq.queue,
					      SROCE_RING_F_ERROR);
		break;
	default:
		break;
	}
	WRITE_ONCE(qp->state, next);
	qp->attr.qp_state = next;
	qp->attr.cur_qp_state = next;
}

int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct rdma_ah_attr av = {};
	enum ib_qp_state cur, next;
	unsigned long flags;
	int err;

	err = sroce_qp_check_values(attr, mask);
	if (err)
		return err;
	err = sroce_qp_check_qkey(attr, mask, udata);
	if (err)
		return err;
	if (mask & IB_QP_AV) {
		err = sroce_av_check(&attr->ah_attr);
		if (err)
			return err;
		/* Takes a reference on the sgid_attr; never under qp->lock. */
		rdma_copy_ah_attr(&av, &attr->ah_attr);
	}

	spin_lock_irqsave(&qp->lock, flags);
	cur = qp->state;
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (mask & IB_QP_CUR_STATE && attr->cur_qp_state != cur) {
		err = -EINVAL;
		goto out_unlock;
	}
	if (!ib_modify_qp_is_ok(cur, next, ibqp->qp_type, mask) ||
	    sroce_qp_sqd_busy(qp, cur, next, mask)) {
		err = -EINVAL;
		goto out_unlock;
	}
	sroce_qp_save_attr(qp, attr, mask, &av);
	if (next != cur || next == IB_QPS_RESET)
		sroce_qp_enter_state(qp, next);
	/* Data path snapshots and resets, under qp->lock (req.h order). */
	sroce_req_modify(qp, attr, mask, cur, next);
out_unlock:
	spin_unlock_irqrestore(&qp->lock, flags);

	/* On success the old path (swapped into av), else the unused copy. */
	rdma_destroy_ah_attr(&av);
	if (!err && next == IB_QPS_ERR && cur != IB_QPS_ERR) {
		/* t-race: a modify to RESET overtakes the flush. */
		sroce_test_delay(SROCE_TEST_QP_FLUSH);
		sroce_qp_flush(qp);
	}
	return err;
}

void sroce_qp_error(struct sroce_qp *qp)
{
	unsigned long flags;
	bool err;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state != IB_QPS_RESET && qp->state != IB_QPS_ERR) {
		sroce_qp_enter_state(qp, IB_QPS_ERR);
		spin_lock(&qp->req.lock);
		qp->req.state = IB_QPS_ERR;
		spin_unlock(&qp->req.lock);
		sroce_req_handoff(qp); /* interrupts off: no comp_unlock */
	}
	err = qp->state == IB_QPS_ERR;
	spin_unlock_irqrestore(&qp->lock, flags);
	if (err)
		sroce_qp_flush(qp);
}

int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	*attr = qp->attr;
	*init = qp->init;
	spin_unlock_irqrestore(&qp->lock, flags);

	/*
	 * The PSNs as they are now, as mlx5 and rdma_rxe report them (also
	 * what `rdma resource show qp` shows): the PSN the next request
	 * packet takes (set from sq_psn on the way to RTS), the PSN the
	 * responder expects (set from rq_psn by the first packet after RTR).
	 * In ERR, or before either is set, the attributes as modify_qp set
	 * them.
	 */
	if (attr->qp_state >= IB_QPS_RTS && attr->qp_state != IB_QPS_ERR)
		attr->sq_psn = READ_ONCE(qp->req.psn);
	if (attr->qp_state >= IB_QPS_RTR && attr->qp_state != IB_QPS_ERR) {
		spin_lock_irqsave(&qp->resp.lock, flags);
		if (qp->resp.started)
			attr->rq_psn = qp->resp.psn;
		spin_unlock_irqrestore(&qp->resp.lock, flags);
	}

	/* The caller gets no reference: hand out no sgid_attr pointer. */
	attr->ah_attr.grh.sgid_attr = NULL;
	attr->alt_ah_attr.grh.sgid_attr = NULL;
	/* SQD: messages begun before it still go (req.c). */
	attr->sq_draining = attr->qp_state == IB_QPS_SQD &&
			    !READ_ONCE(qp->req.sqd_drained);
	return 0;
}

/* ---- work requests from kernel consumers ---- */

static int sroce_wr_opcode(enum ib_wr_opcode op)
{
	switch (op) {
	case IB_WR_RDMA_WRITE:
		return SROCE_WR_RDMA_WRITE;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return SROCE_WR_RDMA_WRITE_WITH_IMM;
	case IB_WR_SEND:
		return SROCE_WR_SEND;
	case IB_WR_SEND_WITH_IMM:
		return SROCE_WR_SEND_WITH_IMM;
	case IB_WR_RDMA_READ:
		return SROCE_WR_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return SROCE_WR_ATOMIC_CMP_AND_SWP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return SROCE_WR_ATOMIC_FETCH_AND_ADD;
	case IB_WR_SEND_WITH_INV:
		return SROCE_WR_SEND_WITH_INV;
	case IB_WR_LOCAL_INV:
		return SROCE_WR_LOCAL_INV;
	case IB_WR_REG_MR:
		return SROCE_WR_K_REG_MR;
	default:
		return -EINVAL;
	}
}

static u32 sroce_wr_flags(int send_flags)
{
	return (send_flags & IB_SEND_FENCE ? SROCE_WQE_FENCE : 0) |
	       (send_flags & IB_SEND_SIGNALED ? SROCE_WQE_SIGNALED : 0) |
	       (send_flags & IB_SEND_SOLICITED ? SROCE_WQE_SOLICITED : 0) |
	       (send_flags & IB_SEND_INLINE ? SROCE_WQE_INLINE : 0);
}

/* Kernel inline data: the SGE addresses are kernel virtual (virt DMA). */
/* Kernel ULP SGEs into ring slot SGEs (same fields, ABI layout). */
static void sroce_sge_from_ib(struct sroce_sge *dst, const struct ib_sge *src,
			      int n)
{
	int i;

	for (i = 0; i < n; i++) {
		dst[i].addr = src[i].addr;
		dst[i].length = src[i].length;
		dst[i].lkey = src[i].lkey;
	}
}

static int sroce_post_inline(struct sroce_qp *qp, struct sroce_send_wqe *wqe,
			     const struct ib_send_wr *wr)
{
	u8 *dst = (u8 *)(wqe + 1);
	u32 len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		u32 n = wr->sg_list[i].length;

		if (n > qp->max_inline - len)
			return -EINVAL;
		memcpy(dst + len, (void *)(uintptr_t)wr->sg_list[i].addr, n);
		len += n;
	}
	wqe->inline_len = len;
	return 0;
}

static int sroce_post_one_send(struct sroce_qp *qp, const struct ib_send_wr *wr)
{
	struct sroce_queue *q = &qp->sq.queue;
	struct sroce_send_wqe *wqe;
	int op = sroce_wr_opcode(wr->opcode);

	lockdep_assert_held(&qp->sq.lock);

	if (op < 0 || wr->num_sge < 0 || wr->num_sge > qp->sq.max_sge)
		return -EINVAL;
	if (sroce_queue_peer_cons(q) <= 0)
		return -ENOMEM;
	wqe = sroce_queue_slot(q, q->prod);
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	wqe->opcode = op;
	wqe->flags = sroce_wr_flags(wr->send_flags);
	if (op == SROCE_WR_SEND_WITH_INV || op == SROCE_WR_LOCAL_INV)
		wqe->ex.invalidate_rkey = wr->ex.invalidate_rkey;
	else
		wqe->ex.imm_data = wr->ex.imm_data;
	if (op == SROCE_WR_K_REG_MR) {
		/* fr.h: the MR, its new key and access (kernel ring only). */
		wqe->wr.rdma.remote_addr = (uintptr_t)reg_wr(wr)->mr;
		wqe->wr.rdma.rkey = reg_wr(wr)->key;
		wqe->wr.rdma.reserved = (u32)reg_wr(wr)->access;
		sroce_queue_produce(q);
		return 0;
	}
	if (op == SROCE_WR_LOCAL_INV) {
		sroce_queue_produce(q);
		return 0;
	}
	switch (qp->ibqp.qp_type) {
	case IB_QPT_UD:
	case IB_QPT_GSI:
		wqe->wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
		wqe->wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
		qp->req.kah[q->prod & (q->nslots - 1)] = ud_wr(wr)->ah;
		break;
	default:
		if (op == SROCE_WR_ATOMIC_CMP_AND_SWP ||
		    op == SROCE_WR_ATOMIC_FETCH_AND_ADD) {
			wqe->wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
			wqe->wr.atomic.compare_add = atomic_wr(wr)->compare_add;
			wqe->wr.atomic.swap = atomic_wr(wr)->swap;
			wqe->wr.atomic.rkey = atomic_wr(wr)->rkey;
		} else if (op != SROCE_WR_SEND &&
			   op != SROCE_WR_SEND_WITH_IMM &&
			   op != SROCE_WR_SEND_WITH_INV) {
			wqe->wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
			wqe->wr.rdma.rkey = rdma_wr(wr)->rkey;
		}
		break;
	}
	if (wqe->flags & SROCE_WQE_INLINE)
		return sroce_post_inline(qp, wqe, wr) ?:
			       (sroce_queue_produce(q), 0);
	wqe->num_sge = wr->num_sge;
	sroce_sge_from_ib((struct sroce_sge *)(wqe + 1), wr->sg_list,
			  wr->num_sge);
	sroce_queue_produce(q);
	return 0;
}

/*
 * post_send.  A user QP rings its doorbell with wr == NULL (ib_uverbs
 * POST_SEND, wr_count 0): its WQEs are in the mapped SQ already.  A kernel
 * ULP's WRs are written into the kernel ring here.  Then the requester
 * runs inline, or from the work item when the caller has interrupts off.
 * For a kernel ULP no completion callback runs inside the post, for the
 * reasons of sroce_post_recv(): the work item posts the send CQEs (UD and
 * UC complete at transmit, a QP in ERR flushes) and makes a fatal error's
 * move to ERR (sroce_req_run_post()).  A user QP's CQ handler only queues
 * an event for ib_uverbs, so its doorbell posts them inline.
 */
int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	enum ib_qp_state state = READ_ONCE(qp->state);
	unsigned long flags;
	int err = 0;

	if (qp->user) {
		if (wr) {
			*bad_wr = wr;
			return -EOPNOTSUPP;
		}
		sroce_req_run(qp);
		return 0;
	}
	/* IBA C10-29: no send WR before RTS (ERR: flushed below). */
	if (state == IB_QPS_RESET || state == IB_QPS_INIT ||
	    state == IB_QPS_RTR) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->sq.lock, flags);
	for (; wr; wr = wr->next) {
		err = sroce_post_one_send(qp, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);

	if (irqs_disabled() || in_hardirq())
		sroce_task_schedule(qp);
	else
		sroce_req_run_post(qp);
	return err;
}

int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	unsigned long flags;
	int err = 0;

	/* User QPs post on their mapped ring. */
	if (qp->user) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	/* Receives of a QP with an SRQ go to the SRQ (IBA 10.2.9.1). */
	if (ibqp->srq) {
		*bad_wr = wr;
		return -EINVAL;
	}
	/* No receive WR in RESET (IBA C10-42). */
	if (READ_ONCE(qp->state) == IB_QPS_RESET) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&qp->rq.lock, flags);
	err = sroce_queue_post_recv(&qp->rq.queue, qp->rq.max_sge, wr, bad_wr);
	spin_unlock_irqrestore(&qp->rq.lock, flags);

	/*
	 * IBA 10.8.3.2: receive WRs posted in ERR complete as flushed, always
	 * from the workqueue.  The flush takes resp.lock (_bh, never in hard
	 * IRQ) and calls the recv CQ's handler, which must not run inside the
	 * consumer's post_recv: the caller may hold a lock its handler takes,
	 * and a handler that reposts each flushed receive would enter itself
	 * again from the post, one stack frame deeper per repost.
	 */
	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		sroce_resp_flush_later(qp);
	return err;
}
