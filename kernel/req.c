// SPDX-License-Identifier: GPL-2.0
/*
 * req.c - the requester: which send WQE goes out next and when (IBA
 * 9.7.1, 9.8 for UC, 9.8.2 for UD: ordering, fence, window, pacing, PFC,
 * budget), and the bookkeeping it shares with the completer: WQE fetch
 * and validation, go-back-N restart, completion posting, flush.  The
 * packets themselves are built in req_pkt.c.  Contexts and locks: see
 * req.h.
 *
 * A WQE is copied out of the SQ ring exactly once (sroce_req_fetch()) into
 * the kernel shadow entry of its index; only the copy is validated and
 * used, so user space rewriting a slot after the doorbell changes nothing.
 */
#include <linux/slab.h>

#include "ah.h"
#include "comp.h"
#include "counters.h"
#include "device.h"
#include "fr.h"
#include "mem.h"
#include "pfc.h"
#include "proto/psn.h"
#include "qp.h"
#include "req.h"
#include "req_pkt.h"
#include "task.h"
#include "trace.h"

/* Packets the requester sends per run before yielding to the workqueue. */
#define SROCE_REQ_BUDGET 64

struct sroce_swqe *sroce_req_swqe(struct sroce_qp *qp, u32 idx)
{
	u32 mask = qp->sq.queue.nslots - 1;

	return qp->req.shadow + (size_t)(idx & mask) * qp->req.swqe_size;
}

/* ---- setup ---- */

int sroce_req_init(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	u32 nslots = qp->sq.queue.nslots;
	u32 room;

	spin_lock_init(&req->lock);
	skb_queue_head_init(&req->backlog);
	req->state = IB_QPS_RESET;
	req->tx_cpu = -1;
	sroce_win_init(&req->win, SROCE_REQ_WINDOW);
	req->sport = sroce_qp_sport(qp);
	room = max_t(u32, qp->sq.max_sge * sizeof(struct sroce_sge),
		     qp->max_inline);
	req->swqe_size = ALIGN(sizeof(struct sroce_swqe) + room, 8);
	req->shadow = kvcalloc(nslots, req->swqe_size, GFP_KERNEL);
	if (!req->shadow)
		return -ENOMEM;
	if (dst_cache_init(&req->dst_cache, GFP_KERNEL)) {
		kvfree(req->shadow);
		req->shadow = NULL;
		return -ENOMEM;
	}
	if (!qp->user &&
	    (qp->init.qp_type == IB_QPT_UD || qp->init.qp_type == IB_QPT_GSI)) {
		req->kah = kvcalloc(nslots, sizeof(*req->kah), GFP_KERNEL);
		if (!req->kah) {
			dst_cache_destroy(&req->dst_cache);
			kvfree(req->shadow);
			req->shadow = NULL;
			return -ENOMEM;
		}
	}
	sroce_comp_timers_setup(qp);
	sroce_task_setup(qp);
	return 0;
}

void sroce_req_cleanup(struct sroce_qp *qp)
{
	/* Responses left by the last holder of a stopped QP. */
	skb_queue_purge(&qp->req.backlog);
	dst_cache_destroy(&qp->req.dst_cache);
	kvfree(qp->req.kah);
	kvfree(qp->req.shadow);
	qp->req.kah = NULL;
	qp->req.shadow = NULL;
}

static u32 sroce_req_timeout_jiffies(u8 timeout)
{
	u64 ns;

	/* IBA 9.7.6.1.3: 4.096 us * 2^timeout; 0 means infinite. */
	if (!timeout)
		return 0;
	ns = 4096ULL << min_t(u8, timeout, 31);
	/*
	 * The computed time is a lower bound (IBA C9-141): round up, and add
	 * one jiffy because a timer armed for jiffies + n may fire up to one
	 * tick early.
	 */
	return DIV_ROUND_UP_ULL(ns, NSEC_PER_SEC / HZ) + 1;
}

/*
 * Every timer of the SEND side (comp.c): deleted, or with @sync also
 * waited for (not under req.lock: the callbacks take it).
 */
void sroce_req_timers_del(struct sroce_req *req, bool sync)
{
	struct timer_list *t[] = { &req->retrans_timer, &req->rnr_timer,
				   &req->tail_timer, &req->hold_timer };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		if (sync)
			del_timer_sync(t[i]);
		else
			del_timer(t[i]);
	}
}

/*
 * RESET empties the send queue (IBA 10.3.1.1): the ring and the cursors
 * together, under req.lock, so the requester never sees one without the
 * other.  A user ring restarts at the user's prod, whatever it is (the
 * kernel cannot move the producer's index): every cursor goes there, so
 * the invariant posted <= done <= next <= fetched <= prod, and with it
 * every later validation of prod against nslots, holds from here on.
 */
static void sroce_req_reset_locked(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	u32 start;

	lockdep_assert_held(&qp->lock); /* interrupts are off */
	lockdep_assert_held(&req->lock);
	spin_lock(&qp->sq.lock);
	sroce_queue_reset(&qp->sq.queue);
	sroce_queue_clear_flags(&qp->sq.queue, SROCE_RING_F_ERROR);
	start = qp->sq.queue.cons;
	spin_unlock(&qp->sq.lock);
	req->next = start;
	req->fetched = start;
	req->done = start;
	req->posted = start;
	req->started_end = start;
	req->sqd_end = start;
	req->sqd_event = false;
	req->rd_inflight = 0;
	req->pkts_since_ackreq = 0;
	req->tail_unreq = false;
	req->resend = false;
	req->rnr_wait = false;
	req->tx_held = false;
	req->tx_refused = false;
	req->win_idle = true;
	req->hold_shift = 0;
	req->error = false;
	req->err_moved = false;
	req->seq_retry_armed = false;
	/* Responses of the last connection must not meet the next one. */
	sroce_comp_drop_backlog(qp);
	sroce_req_timers_del(req, false);
	/* Rate and RTT probe: those of a new QP (req.lock -> cc.lock). */
	sroce_cc_qp_reset(qp);
}

/*
 * SQD: drained once every WQE started before it is done; the event, if
 * asked for, after req.lock is let go (sroce_req_sqd_event()).
 */
static void sroce_req_sqd_check(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&req->lock);
	if (req->state != IB_QPS_SQD || req->sqd_drained ||
	    (s32)(req->done - req->sqd_end) < 0)
		return;
	WRITE_ONCE(req->sqd_drained, true);
	if (req->sqd_notify)
		req->sqd_event = true;
}

/* Called with req.lock free, when req.sqd_event may be set. */
void sroce_req_sqd_event(struct sroce_qp *qp)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = IB_EVENT_SQ_DRAINED,
	};
	struct sroce_req *req = &qp->req;
	bool raise;

	spin_lock_bh(&req->lock);
	/* Not once the QP left SQD (RTS again, or ERR) before we got here. */
	raise = req->sqd_event && req->state == IB_QPS_SQD && !req->error &&
		!req->stopped;
	req->sqd_event = false;
	sroce_req_unlock(qp);
	if (raise && qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/*
 * RTS to SQD: the WQEs given PSNs so far (a message begun, or sent and
 * not yet acknowledged, resent if need be) finish; so do local
 * operations executed since; the rest waits for RTS.
 */
static void sroce_req_sqd_enter(struct sroce_qp *qp,
				const struct ib_qp_attr *attr, int mask)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&req->lock);
	req->sqd_end = req->started_end;
	if ((s32)(req->next - req->sqd_end) > 0)
		req->sqd_end = req->next;
	WRITE_ONCE(req->sqd_drained, false);
	req->sqd_event = false;
	req->sqd_notify = (mask & IB_QP_EN_SQD_ASYNC_NOTIFY) &&
			  attr->en_sqd_async_notify;
	/*
	 * An unacknowledged tail whose timer found a WQE about to follow
	 * (sroce_comp_tail_timer()): none follows now, so ask again.
	 */
	if (req->tail_unreq && req->psn != req->una_psn && !req->stopped)
		mod_timer(&req->tail_timer, jiffies + SROCE_REQ_TAIL_JIFFIES);
}

void sroce_req_modify(struct sroce_qp *qp, const struct ib_qp_attr *attr,
		      int mask, enum ib_qp_state cur, enum ib_qp_state next)
{
	struct sroce_req *req = &qp->req;
	const struct ib_qp_attr *a = &qp->attr;

	lockdep_assert_held(&qp->lock);

	/* qp->lock is taken with interrupts off, so plain spin_lock. */
	spin_lock(&req->lock);
	if (qp->init.qp_type == IB_QPT_UD || qp->init.qp_type == IB_QPT_GSI)
		req->mtu = ib_mtu_enum_to_int(sroce_dev_active_mtu(qp->sdev));
	else
		req->mtu = ib_mtu_enum_to_int(a->path_mtu);
	req->dest_qpn = a->dest_qp_num;
	req->qkey = a->qkey;
	req->timeout_jiffies = sroce_req_timeout_jiffies(a->timeout);
	req->retry_cnt = a->retry_cnt;
	req->rnr_retry = a->rnr_retry;
	req->max_rd_atomic = max_t(u8, a->max_rd_atomic, 1);
	if (mask & IB_QP_SQ_PSN) {
		req->psn = a->sq_psn;
		req->una_psn = a->sq_psn;
		req->psn_max = a->sq_psn;
		req->ackreq_psn = sroce_psn_add(a->sq_psn, SROCE_PSN_MAX);
	}
	if (mask & IB_QP_AV) {
		if (sroce_av_from_attr(qp->sdev, &qp->av, &a->ah_attr))
			memset(&qp->av, 0, sizeof(qp->av));
		else
			qp->av.dst_cache = &req->dst_cache;
		dst_cache_reset(&req->dst_cache);
	}
	if (next == IB_QPS_RTS && cur != IB_QPS_RTS) {
		/*
		 * From SQD the packets in flight stayed so, retried: their
		 * retry counts and window go on (cycling through SQD must
		 * not keep a dead path from failing).
		 */
		if (cur != IB_QPS_SQD) {
			req->retries_left = req->retry_cnt;
			req->backoff = 0;
			req->rnr_left = req->rnr_retry;
			sroce_win_init(&req->win, SROCE_REQ_WINDOW);
			req->in_recovery = false;
			req->rto_undo = false;
			/* no CNP of the last connection cuts the new one */
			WRITE_ONCE(req->cnp_cut, 0);
		}
		req->ackreq_stamp = jiffies;
	}
	if (next == IB_QPS_RESET)
		sroce_req_reset_locked(qp);
	if (cur == IB_QPS_RTS && next == IB_QPS_SQD)
		sroce_req_sqd_enter(qp, attr, mask);
	req->state = next;
	if (next == IB_QPS_SQD) {
		sroce_req_sqd_check(qp);
		/* Drained already: the work raises the event. */
		if (req->sqd_event)
			WRITE_ONCE(req->kick, 1);
	}
	/* WQEs posted in SQD were only fetched, if that: send them. */
	if (cur == IB_QPS_SQD && next == IB_QPS_RTS)
		WRITE_ONCE(req->kick, 1);
	/*
	 * Interrupts are off (qp->lock), so no sroce_comp_unlock() here: a
	 * doorbell's kick or a response left meanwhile goes to the work.
	 */
	spin_unlock(&req->lock);
	sroce_req_handoff(qp);
}

/* ---- fetching WQEs out of the ring ---- */

/* True when a WQE is posted beyond req.fetched (reads the producer). */
static bool sroce_req_more_posted(struct sroce_qp *qp)
{
	struct sroce_queue *q = &qp->sq.queue;
	unsigned long flags;
	int n = 0;
	u32 prod;

	lockdep_assert_held(&qp->req.lock);

	spin_lock_irqsave(&qp->sq.lock, flags);
	if (qp->user) {
		n = sroce_queue_peer_prod(q);
		/* Nor may prod move back behind WQEs already fetched. */
		if (n >= 0 && q->prod - q->cons < qp->req.fetched - q->cons)
			n = -EPROTO;
		if (unlikely(n < 0))
			q->prod = qp->req.fetched;
	}
	prod = q->prod;
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	if (unlikely(n < 0)) {
		/* User space published an impossible index. */
		sroce_req_fatal(qp, qp->req.fetched, IB_WC_LOC_QP_OP_ERR);
		return false;
	}
	return qp->req.fetched != prod;
}

static bool sroce_req_op_ok(enum ib_qp_type type, u32 op)
{
	switch (type) {
	case IB_QPT_RC:
		return op <= SROCE_WR_ATOMIC_FETCH_AND_ADD ||
		       op == SROCE_WR_SEND_WITH_INV;
	case IB_QPT_UC:
		return op <= SROCE_WR_SEND_WITH_IMM;
	case IB_QPT_UD:
	case IB_QPT_GSI:
		return op == SROCE_WR_SEND || op == SROCE_WR_SEND_WITH_IMM;
	default:
		return false;
	}
}

/* UD/GSI: resolve the destination of the WQE at @idx into swqe->av. */
static int sroce_req_ud_av(struct sroce_qp *qp, u32 idx,
			   struct sroce_swqe *swqe)
{
	struct sroce_ah *ah;
	int err;

	if (!qp->user) {
		struct ib_ah *ibah =
			qp->req.kah[idx & (qp->sq.queue.nslots - 1)];

		if (unlikely(!ibah))
			return -EINVAL;
		return sroce_av_from_attr(qp->sdev, &swqe->av,
					  &to_sah(ibah)->attr);
	}
	ah = sroce_ah_get(qp->sdev, swqe->wqe.wr.ud.ah_num);
	if (unlikely(!ah))
		return -EINVAL;
	err = -EINVAL;
	if (ah->ibah.pd == qp->ibqp.pd)
		err = sroce_av_from_attr(qp->sdev, &swqe->av, &ah->attr);
	sroce_ah_put(ah);
	return err;
}

/* Validate the copied header; returns a WC status (IB_WC_SUCCESS = ok). */
static enum ib_wc_status sroce_req_check(struct sroce_qp *qp,
					 struct sroce_swqe *swqe)
{
	const struct sroce_send_wqe *w = &swqe->wqe;
	u32 op = w->opcode;

	/* REG_MR (kernel QPs), LOCAL_INV, BIND_MW: RC/UC (fr.c, mw.c). */
	if (sroce_fr_local_op(op) && (op != SROCE_WR_K_REG_MR || !qp->user) &&
	    (qp->init.qp_type == IB_QPT_RC || qp->init.qp_type == IB_QPT_UC))
		return w->num_sge || w->flags & SROCE_WQE_INLINE ?
			       IB_WC_LOC_QP_OP_ERR :
			       IB_WC_SUCCESS;
	if (unlikely(!sroce_req_op_ok(qp->init.qp_type, op)))
		return IB_WC_LOC_QP_OP_ERR;
	if (w->flags & SROCE_WQE_INLINE) {
		if (unlikely(w->inline_len > qp->max_inline ||
			     sroce_wr_is_rd_atomic(op)))
			return IB_WC_LOC_LEN_ERR;
	} else if (unlikely(w->num_sge > qp->sq.max_sge)) {
		return IB_WC_LOC_LEN_ERR;
	}
	return IB_WC_SUCCESS;
}

static enum ib_wc_status sroce_req_check_len(struct sroce_qp *qp,
					     struct sroce_swqe *swqe)
{
	const struct sroce_send_wqe *w = &swqe->wqe;

	if (w->flags & SROCE_WQE_INLINE)
		swqe->len = w->inline_len;
	else
		swqe->len = sroce_sge_total(sroce_swqe_sge(swqe), w->num_sge);
	if (unlikely(swqe->len > SROCE_MAX_MSG))
		return IB_WC_LOC_LEN_ERR;
	switch (w->opcode) {
	case SROCE_WR_ATOMIC_CMP_AND_SWP:
	case SROCE_WR_ATOMIC_FETCH_AND_ADD:
		if (unlikely(swqe->len < sizeof(u64)))
			return IB_WC_LOC_LEN_ERR;
		break;
	case SROCE_WR_SEND:
	case SROCE_WR_SEND_WITH_IMM:
		if (qp->init.qp_type != IB_QPT_UD &&
		    qp->init.qp_type != IB_QPT_GSI)
			break;
		if (unlikely(swqe->len > qp->req.mtu))
			return IB_WC_LOC_LEN_ERR;
		break;
	default:
		break;
	}
	return IB_WC_SUCCESS;
}

/*
 * Copy the WQE at req.fetched out of the ring (header first, then exactly
 * the validated amount of SGEs or inline data) and validate the copy.
 */
static void sroce_req_fetch_one(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	u32 idx = req->fetched;
	struct sroce_swqe *swqe = sroce_req_swqe(qp, idx);
	const u8 *slot = sroce_queue_slot(&qp->sq.queue, idx);
	enum ib_wc_status st;
	u32 body;

	lockdep_assert_held(&req->lock);

	memcpy(&swqe->wqe, slot, sizeof(swqe->wqe));
	swqe->sent = 0;
	swqe->started = false;
	swqe->status = IB_WC_SUCCESS;
	swqe->signaled = qp->init.sq_sig_type == IB_SIGNAL_ALL_WR ||
			 swqe->wqe.flags & SROCE_WQE_SIGNALED;
	req->fetched++;

	st = sroce_req_check(qp, swqe);
	if (st != IB_WC_SUCCESS)
		goto fail;
	if (swqe->wqe.flags & SROCE_WQE_INLINE)
		body = swqe->wqe.inline_len;
	else
		body = swqe->wqe.num_sge * sizeof(struct sroce_sge);
	memcpy(swqe->data, slot + sizeof(swqe->wqe), body);

	st = sroce_req_check_len(qp, swqe);
	if (st != IB_WC_SUCCESS)
		goto fail;
	if (qp->init.qp_type == IB_QPT_UD || qp->init.qp_type == IB_QPT_GSI) {
		if (sroce_req_ud_av(qp, idx, swqe)) {
			st = IB_WC_LOC_QP_OP_ERR;
			goto fail;
		}
	}
	return;
fail:
	sroce_req_fatal(qp, idx, st);
}

/* ---- which WQE goes next, and when (packets: req_pkt.c) ---- */

/* May this CPU transmit for the QP now?  See req.tx_cpu. */
static bool sroce_req_cpu_ok(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	int cpu = smp_processor_id();

	if (likely(req->tx_cpu == cpu))
		return true;
	if (qp->init.qp_type == IB_QPT_RC && req->psn != req->una_psn &&
	    req->tx_cpu >= 0 && cpu_online(req->tx_cpu)) {
		sroce_counter_inc(qp->sdev, SROCE_CNT_REQ_TX_CPU_WAIT);
		/*
		 * Hand over rather than rely on the next ACK to arrive on
		 * tx_cpu: a peer that ACKs from another CPU, or an ACK that
		 * is the last one due, would leave the WQE unsent until the
		 * retransmit timer fires.
		 */
		sroce_task_schedule_on(qp, req->tx_cpu);
		return false;
	}
	req->tx_cpu = cpu;
	return true;
}

/* May the WQE at req.next start now (fence, max_rd_atomic, window)? */
static bool sroce_req_may_send(struct sroce_qp *qp, struct sroce_swqe *swqe)
{
	struct sroce_req *req = &qp->req;

	if (qp->init.qp_type != IB_QPT_RC)
		return true;
	if (sroce_psn_diff(req->psn, req->una_psn) >= (s32)req->win.size)
		return false;
	if (swqe->sent)
		return true;
	if (swqe->wqe.flags & SROCE_WQE_FENCE && req->rd_inflight)
		return false;
	if (sroce_wr_is_rd_atomic(swqe->wqe.opcode) &&
	    req->rd_inflight >= req->max_rd_atomic)
		return false;
	return true;
}

/*
 * A local operation (REG_MR, LOCAL_INV) at req.next: executed once every
 * earlier WQE has completed, so it completes in order and never changes an
 * MR under a transfer still in flight; it has no PSN.
 */
static void sroce_req_local(struct sroce_qp *qp, struct sroce_swqe *swqe)
{
	struct sroce_req *req = &qp->req;
	enum ib_wc_status st = sroce_fr_execute(qp, swqe);

	swqe->started = true;
	swqe->len = 0;
	req->next++;
	/* Keeps started_end within 2^31 of next (SQD compares them). */
	sroce_req_started_to(req, req->next);
	if (st == IB_WC_SUCCESS)
		sroce_req_complete(qp, req->next - 1, st);
	else
		sroce_req_fatal(qp, req->next - 1, st);
}

/* Is the priority of the WQE's path paused by PFC?  Kicked on resume. */
static bool sroce_req_pfc_paused(struct sroce_qp *qp, struct sroce_swqe *swqe)
{
	bool ud = qp->init.qp_type == IB_QPT_UD ||
		  qp->init.qp_type == IB_QPT_GSI;

	return sroce_pfc_tx_paused(qp->sdev,
				   ud ? swqe->av.tclass : qp->av.tclass);
}

void sroce_req_run_locked(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	int budget = SROCE_REQ_BUDGET;
	int n;

	lockdep_assert_held(&req->lock);

	while ((req->state == IB_QPS_RTS || req->state == IB_QPS_SQD) &&
	       !req->error && !req->rnr_wait && !req->tx_held &&
	       !req->stopped) {
		struct sroce_swqe *swqe;

		/*
		 * What stops it below is not its host (the window, nothing
		 * posted, a drain, a fence, READs, a local operation's wait
		 * for ACKs, PFC, pacing) unless it says so (win_idle is for
		 * window_rtt_fair, comp.c).
		 */
		req->win_idle = true;
		if (sroce_req_sqd_holds(req))
			return;
		if (req->next == req->fetched) {
			if (!sroce_req_more_posted(qp))
				return;
			sroce_req_fetch_one(qp);
			continue;
		}
		swqe = sroce_req_swqe(qp, req->next);
		if (sroce_fr_local_op(swqe->wqe.opcode)) {
			/* After every earlier WQE has completed (fr.h). */
			if (req->done != req->next)
				return;
			sroce_req_local(qp, swqe);
			continue;
		}
		if (!sroce_req_may_send(qp, swqe) ||
		    sroce_req_pfc_paused(qp, swqe))
			return; /* paused: pfc.c kicks */
		if (!sroce_req_cpu_ok(qp)) {
			req->win_idle = false; /* the transmit CPU's turn */
			return;
		}
		if (!sroce_cc_may_send(qp, &qp->cc))
			return; /* pacing: cc.c's timer */
		if (!budget--) {
			/* Let other QPs and softirqs run; go on later. */
			req->win_idle = false;
			sroce_task_schedule(qp);
			return;
		}
		n = sroce_req_send_batch(qp, swqe, budget + 1);
		if (n > 0) {
			budget -= n - 1;
			continue;
		}
		if (n == -EAGAIN || sroce_req_send_one(qp, swqe) == -EAGAIN) {
			req->win_idle = false; /* no skb now */
			sroce_task_schedule(qp);
			return;
		}
	}
	/* Out of the loop: a refusal of the local queue is the host's. */
	req->win_idle = !req->tx_held;
}

void sroce_req_run(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	/* WQEs posted in ERR are flushed (IBA 10.8.3.3). */
	if (READ_ONCE(req->state) == IB_QPS_ERR) {
		sroce_req_flush(qp);
		return;
	}
	/*
	 * Never spin behind a holder that is sending a budget of packets:
	 * leave it a kick, which sroce_comp_unlock() honours before it lets
	 * go (the same handshake as req.backlog).
	 */
	WRITE_ONCE(req->kick, 1);
	smp_mb(); /* the kick before the look at the lock */
	if (!spin_trylock_bh(&req->lock))
		return;
	sroce_req_run_locked(qp);
	sroce_comp_unlock(qp);
}

/*
 * A kernel consumer's post_send (process or softirq context, interrupts
 * on): sends inline, as sroce_req_run(), but leaves every completion
 * callback to the work (req.h): the flush of a QP in ERR, the CQEs of
 * what completed meanwhile (UD and UC at transmit, local operations, RC
 * WQEs whose ACKs waited in req.backlog) and the move to ERR.  An RC QP
 * in RTS usually has none of these: its CQEs come with the ACKs, in the
 * receive path, and this costs it two loads.
 */
void sroce_req_run_post(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	if (READ_ONCE(req->state) == IB_QPS_ERR) {
		sroce_task_schedule(qp); /* which flushes */
		return;
	}
	WRITE_ONCE(req->kick, 1);
	smp_mb(); /* the kick before the look at the lock */
	if (!spin_trylock_bh(&req->lock))
		return;
	sroce_req_run_locked(qp);
	sroce_comp_unlock_post(qp);
}

void sroce_req_run_wait(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	if (READ_ONCE(req->state) == IB_QPS_ERR) {
		sroce_req_flush(qp);
		return;
	}
	/*
	 * A kick would make the holder run the requester on its own CPU,
	 * which may not be the transmit CPU: it would hand over to this work
	 * again, and both would go round without sending.  Wait instead.
	 */
	spin_lock_bh(&req->lock);
	sroce_req_run_locked(qp);
	sroce_comp_unlock(qp);
}

/* ---- go-back-N ---- */

void sroce_req_retry(struct sroce_qp *qp, u32 psn)
{
	struct sroce_req *req = &qp->req;
	struct sroce_swqe *swqe;
	u32 idx;

	lockdep_assert_held(&req->lock);

	if (req->done == req->fetched)
		return;
	sroce_counter_inc(qp->sdev, SROCE_CNT_REQ_RETRANS);
	trace_sroce_retransmit(qp->ibqp.qp_num, psn);
	/* Everything before @psn is acknowledged: it lies in WQE done. */
	swqe = sroce_req_swqe(qp, req->done);
	if (!swqe->started)
		return;
	/* Never before what the peer acknowledged (a NAK at una - 1). */
	if (sroce_psn_before(psn, req->una_psn))
		psn = req->una_psn;
	if (sroce_psn_before(psn, swqe->first_psn) ||
	    sroce_psn_after(psn, swqe->last_psn))
		psn = swqe->first_psn;
	if (sroce_wr_is_rd_atomic(swqe->wqe.opcode)) {
		/* A READ asks again from its first response missing. */
		if (swqe->wqe.opcode != SROCE_WR_RDMA_READ)
			psn = swqe->first_psn;
		else if (sroce_psn_after(psn, swqe->rd_psn))
			psn = swqe->rd_psn;
		swqe->rd_psn = psn;
	}
	swqe->sent = min_t(u64,
			   (u64)sroce_psn_diff(psn, swqe->first_psn) * req->mtu,
			   swqe->len);
	if (swqe->sent == swqe->len && swqe->len)
		swqe->sent = 0; /* cannot happen for a valid PSN; be safe */
	for (idx = req->done + 1; idx != req->fetched; idx++) {
		struct sroce_swqe *w = sroce_req_swqe(qp, idx);

		if (!w->started)
			break;
		w->started = false;
		w->sent = 0;
	}
	/* What was sent once asks for ACKs when it goes again. */
	if (!req->resend || sroce_psn_after(req->psn, req->resend_end))
		req->resend_end = req->psn;
	req->resend = true;
	req->next = req->done;
	req->psn = psn;
	req->rd_inflight = 0;
	req->pkts_since_ackreq = 0;
}

/* ---- completion ---- */

void sroce_req_complete(struct sroce_qp *qp, u32 idx, enum ib_wc_status st)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&req->lock);
	if (WARN_ON_ONCE(idx != req->done))
		return;
	sroce_req_swqe(qp, idx)->status = st;
	req->done++;
	if (unlikely(req->state == IB_QPS_SQD))
		sroce_req_sqd_check(qp);
}

void sroce_req_fatal(struct sroce_qp *qp, u32 idx, enum ib_wc_status st)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&req->lock);
	if (req->error)
		return;
	req->error = true;
	req->err_idx = idx;
	req->err_status = st;
	sroce_counter_inc(qp->sdev, SROCE_CNT_REQ_CQE_ERROR);
	if (st == IB_WC_RETRY_EXC_ERR)
		sroce_counter_inc(qp->sdev, SROCE_CNT_REQ_RETRIES_EXCEEDED);
	else if (st == IB_WC_RNR_RETRY_EXC_ERR)
		sroce_counter_inc(qp->sdev, SROCE_CNT_REQ_RNR_RETRIES_EXCEEDED);
	sroce_req_timers_del(req, false);
}

void sroce_req_stop(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	spin_lock_bh(&req->lock);
	req->stopped = true;
	spin_unlock_bh(&req->lock);
	sroce_req_timers_del(req, true);
	sroce_task_cancel(qp);
	/* A timer that ran before stopped was seen may have re-armed. */
	sroce_req_timers_del(req, true);
}
