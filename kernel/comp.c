// SPDX-License-Identifier: GPL-2.0
/*
 * comp.c - the completer of an RC QP (IBA 9.7.5.1 requester side, 9.9.2):
 * ACK/NAK, RDMA READ response and atomic ACK processing, the retransmit
 * timer (C9-140: 4.096 us * 2^timeout, retry_cnt) and the RNR timer
 * (C9-143: rnr_retry, 7 = infinite), and send completions in WQE order.
 *
 * Runs on the SEND side of the QP under req.lock (see req.h for the
 * contexts): for each response packet (sroce_comp_rx(), from the QP's
 * receive consumer, through req.backlog) and from its timers.  The
 * timers hold no QP reference; they never re-arm once req.stopped is set
 * and destroy deletes them synchronously after.
 *
 * A response is trusted only after its addresses (sroce_recv_from_peer()),
 * its PSN against the window of outstanding requests [una_psn, psn) and
 * its AETH syndrome are checked; everything else is dropped and
 * counted.  Completions the completer generates are posted by the caller
 * after it drops req.lock (sroce_req_after_unlock()), in WQE order, by one
 * context at a time (sroce_req_post_cqes()); sroce_req_flush() completes
 * everything outstanding when the QP enters ERR.
 */
#include <linux/jiffies.h>
#include <linux/skbuff.h>

#include "comp.h"
#include "counters.h"
#include "cq.h"
#include "device.h"
#include "ecn.h"
#include "fr.h"
#include "int.h"
#include "mem.h"
#include "pfc.h"
#include "proto/hdr.h"
#include "proto/opcode.h"
#include "proto/psn.h"
#include "qp.h"
#include "recv.h"
#include "req.h"
#include "req_pkt.h"
#include "task.h"
#include "testhook.h"

/* Responses one sroce_comp_unlock() processes before it defers. */
#define SROCE_COMP_BACKLOG_BUDGET 16

/* Shortest RNR wait we honour, whatever the NAK says. */
#define SROCE_RNR_MIN_USECS 10

/* WQE @idx has had at least one packet sent (it has PSNs). */
static bool sroce_comp_sent(struct sroce_qp *qp, u32 idx)
{
	struct sroce_req *req = &qp->req;

	if (idx == req->fetched)
		return false;
	return sroce_req_swqe(qp, idx)->started &&
	       (idx != req->next || sroce_req_swqe(qp, idx)->sent);
}

/* ---- timers ---- */

/*
 * The retransmit timer is lazy: req.retrans_due is when the oldest
 * unacknowledged packet times out, and the timer only guarantees to fire
 * no later than that.  An ACK that acknowledges everything leaves the
 * timer armed (it fires, finds nothing outstanding and stops), and a
 * deadline pushed forward leaves an armed timer alone (it fires early
 * and re-arms for the deadline).  A ping-pong exchange thus costs no
 * timer operation per message instead of a mod_timer() and a
 * del_timer(), each a lock of the timer base, on both halves of the
 * critical path.
 */

/* The oldest unacknowledged packet gets a whole timeout from now. */
void sroce_comp_retrans_restart(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&req->lock);
	if (!req->timeout_jiffies || req->stopped)
		return;
	req->retrans_due = jiffies + (req->timeout_jiffies << req->backoff);
	req->retrans_idle = false;
	/* Earlier, never later: a backoff's deadline gives way at once. */
	timer_reduce(&req->retrans_timer, req->retrans_due);
}

void sroce_comp_arm_retrans(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&req->lock);
	/* The first packet after all was acked starts a new period. */
	if (req->retrans_idle || !timer_pending(&req->retrans_timer))
		sroce_comp_retrans_restart(qp);
}

/*
 * In recovery: una has not yet reached what was sent before the last cut,
 * and a loss of those packets is part of the loss already answered.
 */
static bool sroce_comp_recovering(const struct sroce_req *req)
{
	return req->in_recovery &&
	       sroce_psn_before(req->una_psn, req->recover_psn);
}

/*
 * PSNs in flight, at most the window (TCP's FlightSize <= cwnd): a READ
 * takes the PSNs of all its responses at once, and its flight would
 * otherwise leave the window larger after a cut than before it.
 */
static u32 sroce_comp_flight(const struct sroce_req *req)
{
	s32 d = sroce_psn_diff(req->psn, req->una_psn);

	return d > 0 ? min_t(u32, d, req->win.size) : 0;
}

/* A cut: the next may come only after everything sent until now. */
static void sroce_comp_recovery_start(struct sroce_req *req)
{
	req->recover_psn = req->psn_max;
	req->in_recovery = true;
}

/*
 * A loss cuts the recovery window (req.win, the model: proto/win.h), once
 * per window of data; a timeout always does.  A go-back-N follows (the
 * flight becomes 0), so a window still shrinking after a CNP or a refusal
 * is at its target at once, cut or not.
 */
static void sroce_comp_win_cut(struct sroce_qp *qp, bool timeout)
{
	struct sroce_req *req = &qp->req;
	u32 flight = sroce_comp_flight(req);

	lockdep_assert_held(&req->lock);
	sroce_win_settle(&req->win);
	if (!timeout && sroce_comp_recovering(req))
		return;
	/* Only refused packets outstanding: halve the window, as they do. */
	if (!flight)
		flight = req->win.size;
	if (timeout && !req->rto_undo) {
		req->rto_undo = true;
		req->win_undo = req->win;
	}
	sroce_win_cut(&req->win, flight, timeout);
	sroce_comp_recovery_start(req);
}

/*
 * The first ACK after a timeout acknowledges a packet the QP has not sent
 * again since (@una is beyond req.psn): the packets of the first
 * transmission arrived, and the timeout was spurious, an ACK late (a
 * stalled receiver, a queue's delay), not a loss.  Undo its cut, as TCP
 * does when it detects a spurious timeout (RFC 4015, 5682).
 */
static void sroce_comp_win_undo(struct sroce_qp *qp, u32 una)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&req->lock);

	if (!req->rto_undo || !sroce_psn_after(una, req->psn))
		return;
	req->rto_undo = false;
	sroce_win_undo(&req->win, &req->win_undo);
	req->in_recovery = false;
}

/*
 * What the window had in flight when @acked PSNs were acknowledged
 * (una_psn has moved past them), for sroce_win_used(): less than the
 * window if packets it let go were still waiting in the host before they
 * were sent (for the 64-packet budget, the transmit CPU's turn, an skb
 * allocation); all of it, SROCE_WIN_FULL, if the requester stopped for
 * another reason (req.win_idle).  A packet handed to the qdisc or the
 * NIC counts as in flight: a NIC that other QPs keep busy is not seen
 * here (Documentation/cc.rst, "The window's step and the host").
 */
static u32 sroce_comp_win_flight(struct sroce_qp *qp, u32 acked)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&req->lock);
	if (req->win_idle)
		return SROCE_WIN_FULL;
	/* what is left, at most the window (sroce_win_used() caps the sum) */
	return sroce_comp_flight(req) + acked;
}

/*
 * Forward progress, @acked PSNs: a new period for what is left, if
 * anything is, and the whole retry count again (IBA C9-140 counts the
 * retries of one unacknowledged packet).  A window reduced by a timeout
 * grows by what was acknowledged (see sroce_comp_retrans_timer()).
 */
static void sroce_comp_progress(struct sroce_qp *qp, u32 acked)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&req->lock);
	sroce_cc_rtt_acked(qp, &qp->cc, req->una_psn);
	/* Only the first ACK after a timeout may show it was spurious. */
	req->rto_undo = false;
	/* roce_rp/window_rtt_fair 0: TCP's step, at once if it was on */
	if (sroce_cc_win_rtt_fair(qp))
		sroce_win_used(&req->win, acked,
			       sroce_comp_win_flight(qp, acked));
	else
		sroce_win_step_reset(&req->win);
	sroce_win_grow(&req->win, acked, SROCE_REQ_WINDOW);
	/*
	 * Recovery ends with what was sent before its cut acknowledged; left
	 * set, PSN arithmetic would see una "before" recover_psn again 2^23
	 * PSNs later, and skip every cut for as long.
	 */
	if (!sroce_comp_recovering(req))
		req->in_recovery = false;
	req->tx_refused = false; /* a new period: one more only if again */
	req->retries_left = req->retry_cnt;
	req->rnr_left = req->rnr_retry; /* counted per request, as rxe does */
	req->backoff = 0;
	req->seq_retry_armed = false;
	if (req->psn == req->una_psn)
		req->retrans_idle = true;
	else
		sroce_comp_retrans_restart(qp);
}

static void sroce_comp_retrans_timer(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, req.retrans_timer);
	struct sroce_req *req = &qp->req;
	bool refused;

	spin_lock_bh(&req->lock);
	/*
	 * A packet the local queue refused counts as outstanding until one
	 * transmit succeeds (hold_shift 0), the hold over or not.
	 */
	if (req->stopped || req->error ||
	    (req->state != IB_QPS_RTS && req->state != IB_QPS_SQD) ||
	    req->rnr_wait || (req->psn == req->una_psn && !req->hold_shift) ||
	    req->retrans_idle) {
		sroce_req_unlock(qp);
		return;
	}
	if (time_before(jiffies, req->retrans_due)) {
		/* Fired for an earlier deadline (the timer is lazy). */
		mod_timer(&req->retrans_timer, req->retrans_due);
		sroce_req_unlock(qp);
		return;
	}
	if (sroce_pfc_tx_paused(qp->sdev, qp->av.tclass)) {
		/* PFC holds our priority: no retry could leave; wait. */
		sroce_comp_retrans_restart(qp);
		sroce_req_unlock(qp);
		return;
	}
	/*
	 * Responses that arrived and wait for this QP's receive consumer
	 * (a busy CPU, a slow guest) may acknowledge everything: give them
	 * one more period, once per oldest unacknowledged PSN, rather than
	 * go back N on a spurious timeout.  The same when the local queue
	 * refused a packet since the last decision: it is full, and what
	 * is outstanding waited in it, a time a NIC's timer (started on the
	 * wire) does not count.
	 */
	refused = req->tx_refused;
	req->tx_refused = false;
	if ((refused || !skb_queue_empty_lockless(&req->backlog) ||
	     skb_queue_len_lockless(&qp->rxq[SROCE_RXQ_RESP].skbs)) &&
	    !(req->timer_deferred && req->timer_defer_psn == req->una_psn)) {
		req->timer_deferred = true;
		req->timer_defer_psn = req->una_psn;
		sroce_counter_inc(qp->sdev, SROCE_CNT_REQ_TIMEOUT_DEFERRED);
		sroce_comp_retrans_restart(qp);
		sroce_comp_unlock(qp);
		return;
	}
	sroce_counter_inc(qp->sdev, SROCE_CNT_LOCAL_ACK_TIMEOUT_ERR);
	if (!req->retries_left) {
		sroce_req_fatal(qp, req->done, IB_WC_RETRY_EXC_ERR);
	} else {
		req->retries_left--;
		/*
		 * Recovery window: nothing came back for a whole timeout, so
		 * the path lost everything in flight, most likely to a full
		 * queue.  Going back N at once would put the whole window
		 * (up to 1 MB, in 64 KB batches) into that queue again, where
		 * a batch finds room less often than a packet and the first
		 * packet of the resend, the one whose loss costs a retry,
		 * shares the fate of its batch.  So the oldest unacknowledged
		 * packet goes alone and asks for an ACK, and each ACK lets as
		 * many packets follow as it acknowledged (TCP's slow start
		 * after a retransmission timeout, RFC 5681 3.1).
		 */
		sroce_comp_win_cut(qp, true);
		/*
		 * Backoff: the next timeout without progress comes after
		 * twice the time, up to four times the QP's timeout (the
		 * computed time is a lower bound, C9-141).  A receiver that
		 * cannot run for a while (in a TCG guest on a loaded host a
		 * vCPU stalls for up to a second; ACKs of probes that reached
		 * it left 0.9 s later, all at once) otherwise exhausts
		 * retry_cnt + 1 timeouts of 67 ms (perftest's default) in half
		 * a second; with the backoff they last 27 timeouts' time.
		 */
		if (req->backoff < SROCE_REQ_BACKOFF_MAX)
			req->backoff++;
		sroce_req_retry(qp, req->una_psn);
		sroce_req_run_locked(qp);
	}
	sroce_comp_unlock(qp);
}

static void sroce_comp_rnr_timer(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, req.rnr_timer);
	struct sroce_req *req = &qp->req;

	spin_lock_bh(&req->lock);
	if (req->stopped || req->error || !req->rnr_wait) {
		sroce_req_unlock(qp);
		return;
	}
	req->rnr_wait = false;
	sroce_req_retry(qp, req->rnr_psn);
	sroce_req_run_locked(qp);
	sroce_comp_unlock(qp);
}

/*
 * Will the requester send more without an ACK first?  A fetched WQE it
 * has not sent yet normally goes as soon as the window, PFC or pacing
 * lets it, and asks if it needs to; a local operation (REG_MR, LOCAL_INV,
 * BIND_MW) waits for every earlier WQE to complete, that is for the ACK
 * of the tail: it sends nothing until then.
 */
static bool sroce_comp_tail_more(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&req->lock);
	if (sroce_req_sqd_holds(req))
		return false;
	return req->next != req->fetched &&
	       !sroce_fr_local_op(sroce_req_swqe(qp, req->next)->wqe.opcode);
}

/*
 * The newest packet asked for no ACK (an unsignaled message's last one,
 * req_pkt.c), the requester sent nothing since and every ACK it asked for
 * is in (a slow responder is not a lost tail): nothing more may come
 * to ask for one, and the unacknowledged WQEs would hold their SQ slots
 * until the retransmit timeout (and for ever with a responder that only
 * answers AckReq, as rdma_rxe).  Go back to the oldest unacknowledged PSN;
 * resent messages ask for ACKs (sroce_req_retry()).
 */
static void sroce_comp_tail_timer(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, req.tail_timer);
	struct sroce_req *req = &qp->req;
	unsigned long due;

	spin_lock_bh(&req->lock);
	if (!req->tail_unreq || req->stopped || req->error ||
	    (req->state != IB_QPS_RTS && req->state != IB_QPS_SQD) ||
	    req->rnr_wait || req->psn == req->una_psn ||
	    sroce_comp_tail_more(qp)) {
		/* Asked since, nothing to ask for, or more is on its way. */
		sroce_req_unlock(qp);
		return;
	}
	/* Quiet since the newest tail went, and no asked-for ACK pending? */
	due = req->tail_stamp + SROCE_REQ_TAIL_JIFFIES;
	if (!sroce_psn_after(req->una_psn, req->ackreq_psn))
		due = jiffies + SROCE_REQ_TAIL_JIFFIES;
	if (time_before(jiffies, due)) {
		/* A newer tail went out, or wait for the asked-for ACK. */
		mod_timer(&req->tail_timer, due);
		sroce_req_unlock(qp);
		return;
	}
	req->tail_unreq = false;
	sroce_counter_inc(qp->sdev, SROCE_CNT_REQ_TAIL_PROBES);
	sroce_req_retry(qp, req->una_psn);
	sroce_req_run_locked(qp);
	sroce_comp_unlock(qp);
}

/*
 * Congestion without a loss (a refusal of the local queue, a CNP): half
 * the window, reached gradually (proto/win.h, sroce_win_reduce()).  The
 * packet that fills a reduced window asks for an ACK (req_pkt.c).
 */
static void sroce_comp_win_reduce(struct sroce_req *req)
{
	lockdep_assert_held(&req->lock);
	sroce_win_reduce(&req->win, sroce_comp_flight(req));
	sroce_comp_recovery_start(req);
}

/*
 * A CNP for this RC QP that its reaction point handled, with
 * cnp_window_cut set (cc.c): the path marks the QP's packets, a queue
 * builds.  DCQCN's rate cut is made for microsecond round trips; where
 * CNPs come milliseconds apart (a slow bottleneck, software hosts) alpha
 * decays between them, a cut is a fraction of a percent, the queue grows
 * to its limit and RC's losses decide which flow sends (Documentation/
 * cc.rst, "The window on a CNP").  So a CNP halves the window too, as ECN
 * does TCP's (RFC 3168): at most once per window of data, and only while
 * something is in flight (a CNP that comes after the QP's packets were
 * all acknowledged, or a flood at an idle QP, cuts nothing).
 */
static void sroce_comp_cnp_locked(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&req->lock);
	if (!req->stopped && !req->error &&
	    (req->state == IB_QPS_RTS || req->state == IB_QPS_SQD) &&
	    sroce_comp_flight(req) && !sroce_comp_recovering(req)) {
		sroce_comp_win_reduce(req);
		sroce_counter_inc(qp->sdev, SROCE_CNT_REQ_CNP_WIN_CUTS);
	}
}

/*
 * As a response does (sroce_comp_rx()), the CNP never spins on req.lock:
 * it leaves req.cnp_cut, and whoever holds the lock, or this softirq if
 * it is free, makes the cut before letting go through sroce_comp_unlock().
 * A holder that lets go otherwise (sroce_req_unlock()) leaves it to the
 * next that does: the cut matters only while packets are in flight, and
 * their ACKs come through sroce_comp_unlock().
 */
void sroce_comp_cnp(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	WRITE_ONCE(req->cnp_cut, 1);
	/* The flag before the look at the lock; pairs with the unlock's. */
	smp_mb();
	if (spin_trylock_bh(&req->lock))
		sroce_comp_unlock(qp);
}

/*
 * The local queue refused the packet at req.psn, and req_pkt.c took it
 * back (sroce_req_refused()).  A queue full on our own side is congestion:
 * halve the window gradually (sroce_comp_win_reduce(): from the window,
 * since an idle QP may meet a queue that another filled; the one packet
 * above the flight is the refused one), on the first refusal of a row and
 * at most once per window of data.
 *
 * Then wait for the queue to drain rather than try again at once: until
 * the next tick, twice as long after each refusal in a row.  The packet
 * costs no retry by itself, but the retransmit timer runs as if it had
 * gone (armed here when nothing else is outstanding), so a queue that
 * refuses everything ends in IB_WC_RETRY_EXC_ERR as a dead link does.
 */
void sroce_comp_local_drop(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	unsigned long hold;

	lockdep_assert_held(&req->lock);
	if (!req->hold_shift && !sroce_comp_recovering(req))
		sroce_comp_win_reduce(req);
	sroce_comp_arm_retrans(qp);
	req->tx_refused = true;
	req->tx_held = true;
	/* At most half a timeout: a period holds at least two tries. */
	hold = 1UL << req->hold_shift;
	if (req->timeout_jiffies)
		hold = clamp_t(unsigned long, req->timeout_jiffies / 2, 1,
			       hold);
	if (!timer_pending(&req->hold_timer))
		mod_timer(&req->hold_timer, jiffies + hold);
	if (req->hold_shift < SROCE_REQ_HOLD_SHIFT_MAX)
		req->hold_shift++;
}

static void sroce_comp_hold_timer(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, req.hold_timer);
	struct sroce_req *req = &qp->req;

	spin_lock_bh(&req->lock);
	if (req->stopped || req->error || !req->tx_held) {
		sroce_req_unlock(qp);
		return;
	}
	req->tx_held = false;
	sroce_req_run_locked(qp);
	sroce_comp_unlock(qp);
}

void sroce_comp_timers_setup(struct sroce_qp *qp)
{
	timer_setup(&qp->req.retrans_timer, sroce_comp_retrans_timer, 0);
	timer_setup(&qp->req.rnr_timer, sroce_comp_rnr_timer, 0);
	timer_setup(&qp->req.tail_timer, sroce_comp_tail_timer, 0);
	timer_setup(&qp->req.hold_timer, sroce_comp_hold_timer, 0);
}

/* ---- acknowledgment ---- */

/*
 * Restart at @psn after a gap in responses, once per gap: responses that
 * were in flight before the restart must not restart it again (each
 * restart re-sends every outstanding READ).  @implied: the gap is an
 * implied NAK (C9-150), counted as such.  A gap is a loss, as a sequence
 * NAK is, and cuts the recovery window the same way.
 */
static void sroce_comp_gap(struct sroce_qp *qp, u32 psn, bool implied)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&req->lock);

	if (req->seq_retry_armed && req->seq_retry_psn == psn)
		return;
	if (implied)
		sroce_counter_inc(qp->sdev, SROCE_CNT_IMPLIED_NAK_SEQ_ERR);
	req->seq_retry_armed = true;
	req->seq_retry_psn = psn;
	sroce_comp_win_cut(qp, false);
	sroce_req_retry(qp, psn);
}

/*
 * una moves to @una: never past a READ/atomic whose responses are still
 * due, nor past what the requester has (again) sent; progress if it
 * moved forward.
 */
static void sroce_comp_una_to(struct sroce_qp *qp, u32 una)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&req->lock);

	if (sroce_psn_after(una, req->psn))
		una = req->psn;
	if (sroce_comp_sent(qp, req->done)) {
		struct sroce_swqe *swqe = sroce_req_swqe(qp, req->done);

		if (sroce_wr_is_rd_atomic(swqe->wqe.opcode) &&
		    sroce_psn_after(una, swqe->rd_psn))
			una = swqe->rd_psn;
	}
	if (sroce_psn_after(una, req->una_psn)) {
		u32 acked = sroce_psn_diff(una, req->una_psn);

		req->una_psn = una;
		sroce_comp_progress(qp, acked);
	}
}

/*
 * Complete every WQE whose PSNs all lie at or before @psn (IBA 9.7.5.1.1:
 * ACKs coalesce).  A READ or atomic in that range without its response
 * means the response was lost: an implied NAK (C9-150), restart there,
 * with what came before it acknowledged (una at its first missing
 * response).  Returns false if it restarted.
 */
static bool sroce_comp_ack_upto(struct sroce_qp *qp, u32 psn)
{
	struct sroce_req *req = &qp->req;
	u32 una;

	lockdep_assert_held(&req->lock);

	/* It acknowledges what a go-back-N was about to send again. */
	una = sroce_psn_next(psn);
	if (sroce_psn_after(una, req->psn)) {
		sroce_comp_win_undo(qp, una);
		sroce_req_catch_up(qp, una);
	}
	while (sroce_comp_sent(qp, req->done)) {
		struct sroce_swqe *swqe = sroce_req_swqe(qp, req->done);

		if (sroce_psn_after(swqe->last_psn, psn) ||
		    req->done == req->next)
			break;
		if (sroce_wr_is_rd_atomic(swqe->wqe.opcode)) {
			sroce_comp_una_to(qp, swqe->rd_psn);
			sroce_comp_gap(qp, swqe->rd_psn, true);
			return false;
		}
		sroce_req_complete(qp, req->done, IB_WC_SUCCESS);
	}
	sroce_comp_una_to(qp, una);
	return true;
}

/*
 * The sent WQE whose PSNs include @psn, found without completing
 * anything (a response is checked against it before it acknowledges
 * what came before), or NULL.
 */
static struct sroce_swqe *sroce_comp_answered(struct sroce_qp *qp, u32 psn)
{
	struct sroce_req *req = &qp->req;
	u32 idx;

	lockdep_assert_held(&req->lock);

	for (idx = req->done; sroce_comp_sent(qp, idx); idx++) {
		struct sroce_swqe *swqe = sroce_req_swqe(qp, idx);

		if (!sroce_psn_after(psn, swqe->last_psn))
			return sroce_psn_before(psn, swqe->first_psn) ? NULL :
									swqe;
		if (idx == req->next)
			break;
	}
	return NULL;
}

/*
 * A response that answers no WQE with PSNs.  At or after req.psn (and
 * before psn_max: sroce_comp_psn_ok()) it answers the first transmission
 * of a WQE a go-back-N has not sent again yet, which it can no longer be
 * checked against: late, it still acknowledges what came before it, and
 * counts as a duplicate (the WQE asks again).  Elsewhere it is invalid.
 */
static void sroce_comp_unanswered(struct sroce_qp *qp, u32 psn)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&req->lock);
	if (sroce_psn_before(psn, req->psn)) {
		sroce_counter_inc(qp->sdev, SROCE_CNT_COMP_DROP_BAD);
		return;
	}
	if (sroce_comp_ack_upto(qp, sroce_psn_add(psn, SROCE_PSN_MAX)))
		sroce_counter_inc(qp->sdev, SROCE_CNT_COMP_DROP_DUP);
}

/*
 * The WQEs before @swqe, the one @psn answers, are acknowledged
 * (sroce_comp_ack_upto()); true if @swqe is then the WQE at req.done,
 * as it must be.  False if the ACK restarted an earlier READ or atomic.
 */
static bool sroce_comp_answered_at_done(struct sroce_qp *qp,
					struct sroce_swqe *swqe, u32 psn)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&req->lock);
	if (!sroce_comp_ack_upto(qp, sroce_psn_add(psn, SROCE_PSN_MAX)))
		return false;
	if (WARN_ON_ONCE(swqe != sroce_req_swqe(qp, req->done))) {
		sroce_counter_inc(qp->sdev, SROCE_CNT_COMP_DROP_BAD);
		return false;
	}
	return true;
}

static enum ib_wc_status sroce_comp_nak_status(u8 code)
{
	switch (code) {
	case SROCE_NAK_INVALID_REQ:
		return IB_WC_REM_INV_REQ_ERR;
	case SROCE_NAK_REM_ACCESS_ERR:
		return IB_WC_REM_ACCESS_ERR;
	case SROCE_NAK_INVALID_RD_REQ:
		return IB_WC_REM_INV_RD_REQ_ERR;
	default:
		return IB_WC_REM_OP_ERR;
	}
}

static void sroce_comp_rnr(struct sroce_qp *qp, u32 psn, u8 timer_code)
{
	struct sroce_req *req = &qp->req;
	u32 usecs;

	lockdep_assert_held(&req->lock);
	sroce_counter_inc(qp->sdev, SROCE_CNT_RNR_NAK_RCVD);
	if (!req->rnr_left) {
		sroce_req_fatal(qp, req->done, IB_WC_RNR_RETRY_EXC_ERR);
		return;
	}
	if (req->rnr_retry != 7)
		req->rnr_left--;
	usecs = max_t(u32, sroce_rnr_timer_usecs(timer_code),
		      SROCE_RNR_MIN_USECS);
	req->rnr_wait = true;
	req->rnr_psn = psn;
	del_timer(&req->retrans_timer);
	mod_timer(&req->rnr_timer, jiffies + usecs_to_jiffies(usecs));
}

/* ACK, RNR NAK or NAK carried by an ACK packet (IBA 9.7.5.1, Table 43). */
static void sroce_comp_ack(struct sroce_qp *qp, u32 psn, u8 syn)
{
	struct sroce_req *req = &qp->req;
	u8 val = sroce_aeth_syn_value(syn);

	lockdep_assert_held(&req->lock);

	switch (sroce_aeth_syn_type(syn)) {
	case SROCE_AETH_ACK:
		sroce_comp_ack_upto(qp, psn);
		return;
	case SROCE_AETH_RNR_NAK:
		if (sroce_comp_ack_upto(qp, sroce_psn_add(psn, SROCE_PSN_MAX)))
			sroce_comp_rnr(qp, psn, val);
		return;
	case SROCE_AETH_NAK:
		if (!sroce_comp_ack_upto(qp, sroce_psn_add(psn, SROCE_PSN_MAX)))
			return;
		if (val == SROCE_NAK_PSN_SEQ_ERR) {
			sroce_counter_inc(qp->sdev, SROCE_CNT_PACKET_SEQ_ERR);
			/*
			 * The packets that followed one RNR NAKed: the RNR
			 * timer sends them again; a receiver not ready is no
			 * loss to cut the window for.
			 */
			if (req->rnr_wait && psn == req->rnr_psn)
				return;
			sroce_comp_win_cut(qp, false);
			sroce_req_retry(qp, psn);
			return;
		}
		if (req->done != req->fetched)
			sroce_req_fatal(qp, req->done,
					sroce_comp_nak_status(val));
		return;
	default:
		sroce_counter_inc(qp->sdev, SROCE_CNT_COMP_DROP_BAD);
		return;
	}
}

/* ---- READ responses and atomic ACKs ---- */

/* Is @opcode the right READ response kind for PSN @psn of @swqe? */
static bool sroce_comp_read_pos_ok(struct sroce_swqe *swqe, u32 psn,
				   const struct sroce_opcode_info *oi)
{
	bool first = psn == swqe->first_psn;
	bool last = psn == swqe->last_psn;

	if (first && last)
		return oi->flags & SROCE_OPF_ONLY;
	if (first)
		return oi->flags & SROCE_OPF_FIRST;
	if (last)
		return oi->flags & SROCE_OPF_LAST;
	return oi->flags & SROCE_OPF_MIDDLE;
}

static void sroce_comp_read_resp(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_rx_cb *cb = SROCE_RX_CB(skb);
	struct sroce_req *req = &qp->req;
	struct sroce_swqe *swqe;
	u64 off;
	u32 want;

	lockdep_assert_held(&req->lock);

	/* Well-formed for the READ it answers, or it acknowledges nothing. */
	swqe = sroce_comp_answered(qp, cb->psn);
	if (unlikely(!swqe)) {
		sroce_comp_unanswered(qp, cb->psn);
		return;
	}
	if (unlikely(swqe->wqe.opcode != SROCE_WR_RDMA_READ))
		goto bad;
	off = (u64)sroce_psn_diff(cb->psn, swqe->first_psn) * req->mtu;
	want = min_t(u64, req->mtu, swqe->len - off);
	if (unlikely(!sroce_comp_read_pos_ok(swqe, cb->psn, cb->info) ||
		     cb->paylen != want))
		goto bad;
	if (!sroce_comp_answered_at_done(qp, swqe, cb->psn))
		return;
	if (cb->psn != swqe->rd_psn) {
		if (sroce_psn_before(cb->psn, swqe->rd_psn)) {
			sroce_counter_inc(qp->sdev, SROCE_CNT_COMP_DROP_DUP);
			return;
		}
		sroce_comp_gap(qp, swqe->rd_psn, false);
		return;
	}
	if (want &&
	    sroce_mem_sge_copy_skb(qp->sdev, qp->ibqp.pd, sroce_swqe_sge(swqe),
				   swqe->wqe.num_sge, off, skb, cb->hdrlen,
				   want, SROCE_TO_MEM)) {
		sroce_req_fatal(qp, req->done, IB_WC_LOC_PROT_ERR);
		return;
	}
	swqe->rd_psn = sroce_psn_next(cb->psn);
	sroce_req_read_catch_up(qp, swqe);
	req->una_psn = swqe->rd_psn;
	sroce_comp_progress(qp, 1);
	if (cb->psn == swqe->last_psn) {
		if (req->rd_inflight)
			req->rd_inflight--;
		sroce_req_complete(qp, req->done, IB_WC_SUCCESS);
	}
	return;
bad:
	sroce_counter_inc(qp->sdev, SROCE_CNT_COMP_DROP_BAD);
}

static void sroce_comp_atomic_ack(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_rx_cb *cb = SROCE_RX_CB(skb);
	struct sroce_req *req = &qp->req;
	struct sroce_swqe *swqe;
	struct sroce_sge *sge;
	u64 orig;

	lockdep_assert_held(&req->lock);

	swqe = sroce_comp_answered(qp, cb->psn);
	if (unlikely(!swqe)) {
		sroce_comp_unanswered(qp, cb->psn);
		return;
	}
	if (unlikely(!sroce_wr_is_rd_atomic(swqe->wqe.opcode) ||
		     swqe->wqe.opcode == SROCE_WR_RDMA_READ ||
		     cb->psn != swqe->first_psn))
		goto bad;
	if (!sroce_comp_answered_at_done(qp, swqe, cb->psn))
		return;
	orig = sroce_atmack_orig(sroce_rx_ext(skb, SROCE_EXT_ATMACK));
	sge = sroce_swqe_sge(swqe);
	if (sroce_mem_sge_copy(qp->sdev, qp->ibqp.pd, sge, swqe->wqe.num_sge, 0,
			       &orig, sizeof(orig), SROCE_TO_MEM)) {
		sroce_req_fatal(qp, req->done, IB_WC_LOC_PROT_ERR);
		return;
	}
	req->una_psn = sroce_psn_next(cb->psn);
	sroce_comp_progress(qp, 1);
	if (req->rd_inflight)
		req->rd_inflight--;
	sroce_req_complete(qp, req->done, IB_WC_SUCCESS);
	return;
bad:
	sroce_counter_inc(qp->sdev, SROCE_CNT_COMP_DROP_BAD);
}

/* ---- send completions and flush ---- */

static u32 sroce_wc_opcode(u32 op)
{
	switch (op) {
	case SROCE_WR_RDMA_WRITE:
	case SROCE_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case SROCE_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case SROCE_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case SROCE_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case SROCE_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case SROCE_WR_K_REG_MR:
		return IB_WC_REG_MR;
	case SROCE_WR_BIND_MW:
		return IB_WC_BIND_MW;
	default:
		return IB_WC_SEND;
	}
}

/* Give slot @idx back to the producer (before its CQE is posted). */
static void sroce_req_release_slot(struct sroce_qp *qp, u32 idx)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->sq.lock, flags);
	if (qp->req.kah)
		qp->req.kah[idx & (qp->sq.queue.nslots - 1)] = NULL;
	sroce_queue_consume(&qp->sq.queue, 1);
	spin_unlock_irqrestore(&qp->sq.lock, flags);
}

/*
 * Post the CQEs of [posted, done) in order, with no QP lock held during
 * sroce_cq_post().  One context at a time does it (req.posting); others
 * leave their completions to it, so the CQ sees them in WQE order even
 * when a completion handler posts and completes more work recursively.
 */
void sroce_req_post_cqes(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	struct sroce_cq *cq = to_scq(qp->ibqp.send_cq);
	/*
	 * done moves while we post (in ERR, a flush per doorbell, each up
	 * to nslots WQEs of a prod user space keeps at cons + nslots): never
	 * more than a ring's worth per call, the rest from the work, which
	 * yields between runs.
	 */
	u32 budget = qp->sq.queue.nslots;
	bool more;

	spin_lock_bh(&req->lock);
	if (req->posting) {
		sroce_req_unlock(qp);
		return;
	}
	req->posting = true;
	while (req->posted != req->done && budget--) {
		struct sroce_swqe *swqe = sroce_req_swqe(qp, req->posted);
		struct sroce_cqe cqe = {};
		bool post = swqe->signaled || swqe->status != IB_WC_SUCCESS;
		u32 idx = req->posted;

		if (post) {
			cqe.wr_id = swqe->wqe.wr_id;
			cqe.status = swqe->status;
			cqe.opcode = sroce_wc_opcode(swqe->wqe.opcode);
			cqe.byte_len = swqe->len;
			cqe.qp_num = qp->ibqp.qp_num;
			cqe.port_num = 1;
		}
		/*
		 * Free the slot before the CQE becomes visible: a consumer
		 * that polls it may post a new WR at once and must find room
		 * (the swqe is not touched after this).
		 */
		sroce_req_release_slot(qp, idx);
		req->posted++;
		spin_unlock_bh(&req->lock);
		/* t-queues: a producer gets time to move done meanwhile. */
		sroce_test_spin(SROCE_TEST_CQE_POST);
		if (post)
			sroce_cq_post(cq, &cqe, false);
		spin_lock_bh(&req->lock);
	}
	req->posting = false;
	more = req->posted != req->done;
	sroce_req_unlock(qp);
	if (more)
		sroce_task_schedule(qp);
}

/* After dropping req.lock: move to ERR if needed, then post CQEs. */
void sroce_req_after_unlock(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	bool move = false;

	/* Lockless hints: whoever sets them calls this after it unlocks. */
	if (READ_ONCE(req->error)) {
		spin_lock_bh(&req->lock);
		if (req->error && !req->err_moved) {
			req->err_moved = true;
			move = true;
		}
		sroce_req_unlock(qp);
	}
	if (move)
		sroce_qp_error(qp); /* flushes, which posts the CQEs */
	else if (READ_ONCE(req->posted) != READ_ONCE(req->done))
		sroce_req_post_cqes(qp);
	/* After the CQEs of what drained. */
	if (unlikely(READ_ONCE(req->sqd_event)))
		sroce_req_sqd_event(qp);
}

/*
 * The same from inside a kernel consumer's post_send, where no completion
 * callback may run (req.h): the work moves the QP to ERR (whose flush
 * calls the handlers of both CQs) and posts the CQEs.  The hints are read
 * by the context that just set them, or by one that need not act on them:
 * whoever sets them later calls sroce_req_after_unlock() itself.
 */
static void sroce_req_after_unlock_post(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	if ((READ_ONCE(req->error) && !READ_ONCE(req->err_moved)) ||
	    READ_ONCE(req->posted) != READ_ONCE(req->done) ||
	    READ_ONCE(req->sqd_event))
		sroce_task_schedule(qp);
}

/* ---- flush ---- */

void sroce_comp_drop_backlog(struct sroce_qp *qp)
{
	struct sk_buff *skb;

	lockdep_assert_held(&qp->req.lock);
	while ((skb = skb_dequeue(&qp->req.backlog))) {
		sroce_counter_inc(qp->sdev, SROCE_CNT_COMP_DROP_BAD);
		dev_kfree_skb_any(skb);
	}
}

void sroce_req_flush(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	unsigned long flags;
	u32 idx, prod;

	spin_lock_bh(&req->lock);
	/*
	 * Every caller saw req.state ERR (modify_qp and sroce_qp_error()
	 * set it under this lock first); a modify to RESET since then must
	 * not be undone by a late flush (a doorbell or the work that read
	 * ERR before it), as resp.gen guards the receive flush.  Its
	 * doorbell may be for a QP back in RTS: the work runs it.
	 */
	if (req->state != IB_QPS_ERR) {
		WRITE_ONCE(req->kick, 1);
		sroce_req_unlock(qp);
		return;
	}
	sroce_req_timers_del(req, false);
	req->rnr_wait = false;
	req->tx_held = false;
	/* Pull in everything posted, header only: wr_id and opcode. */
	spin_lock_irqsave(&qp->sq.lock, flags);
	if (qp->user && sroce_queue_peer_prod(&qp->sq.queue) < 0)
		qp->sq.queue.prod = req->fetched;
	prod = qp->sq.queue.prod;
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	/*
	 * prod was validated against the ring's cons (= posted <= fetched),
	 * so this is at most nslots WQEs; never more, whatever broke that.
	 */
	if (unlikely(prod - req->fetched > qp->sq.queue.nslots))
		prod = req->fetched;
	while (req->fetched != prod) {
		struct sroce_swqe *swqe = sroce_req_swqe(qp, req->fetched);

		memcpy(&swqe->wqe,
		       sroce_queue_slot(&qp->sq.queue, req->fetched),
		       sizeof(swqe->wqe));
		swqe->len = 0;
		req->fetched++;
	}
	for (idx = req->done; idx != req->fetched; idx++) {
		struct sroce_swqe *swqe = sroce_req_swqe(qp, idx);

		swqe->status = IB_WC_WR_FLUSH_ERR;
		if (req->error && idx == req->err_idx)
			swqe->status = req->err_status;
		else
			sroce_counter_inc(qp->sdev, SROCE_CNT_REQ_CQE_FLUSH);
		swqe->signaled = true;
	}
	req->done = req->fetched;
	req->next = req->fetched;
	req->rd_inflight = 0;
	/*
	 * Responses are dropped in ERR: drop the queued ones here, or the
	 * work that sroce_req_unlock() queues for them would come back to
	 * this flush for ever (in ERR it runs nothing else).
	 */
	sroce_comp_drop_backlog(qp);
	sroce_req_unlock(qp);
	sroce_req_post_cqes(qp);
}

/* ---- entry ---- */

/*
 * A response PSN must answer something outstanding, sent at least once:
 * [una - 1, psn_max - 1] (psn_max: a go-back-N may have moved psn back).
 */
static bool sroce_comp_psn_ok(struct sroce_qp *qp, u32 psn)
{
	struct sroce_req *req = &qp->req;

	return sroce_psn_in_range(psn,
				  sroce_psn_add(req->una_psn, SROCE_PSN_MAX),
				  sroce_psn_add(req->psn_max, SROCE_PSN_MAX));
}

/* One response; req.lock held; consumes @skb. */
static void sroce_comp_rx_locked(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_rx_cb *cb = SROCE_RX_CB(skb);
	struct sroce_req *req = &qp->req;
	u8 syn = 0;

	lockdep_assert_held(&req->lock);
	if (unlikely(req->stopped || req->error ||
		     (req->state != IB_QPS_RTS && req->state != IB_QPS_SQD &&
		      req->state != IB_QPS_SQE))) {
		sroce_counter_inc(qp->sdev, SROCE_CNT_COMP_DROP_BAD);
		goto unlock;
	}
	/* qp->av is written under req.lock too (sroce_req_modify()). */
	if (unlikely(!sroce_recv_from_peer(&qp->av, skb))) {
		sroce_counter_inc(qp->sdev, SROCE_CNT_RX_DROP_BAD_ADDR);
		goto unlock;
	}
	if (unlikely(!sroce_comp_psn_ok(qp, cb->psn))) {
		/* Stale (before una - 1) or answering a PSN never sent. */
		sroce_counter_inc(qp->sdev,
				  sroce_psn_before(cb->psn, req->una_psn) ?
					  SROCE_CNT_COMP_DROP_DUP :
					  SROCE_CNT_COMP_DROP_BAD);
		goto unlock;
	}
	if (cb->info->mask & SROCE_HDR_AETH) {
		syn = sroce_aeth_syndrome(sroce_rx_ext(skb, SROCE_EXT_AETH));
		/* Reserved bit, type or NAK code (Table 43): drop. */
		if (unlikely(!sroce_aeth_syn_valid(syn))) {
			sroce_counter_inc(qp->sdev, SROCE_CNT_RX_DROP_BAD_AETH);
			goto unlock;
		}
	}
	/* From the peer and in the window: the notification point. */
	if (unlikely(cb->ce))
		sroce_ecn_np(qp, skb, &qp->av, qp->req.dest_qpn);

	switch (cb->opcode) {
	case SROCE_OP_RC_ACK:
		sroce_comp_ack(qp, cb->psn, syn);
		break;
	case SROCE_OP_RC_ATOMIC_ACK:
		if (unlikely(sroce_aeth_syn_type(syn) != SROCE_AETH_ACK)) {
			sroce_comp_ack(qp, cb->psn, syn);
			break;
		}
		sroce_comp_atomic_ack(qp, skb);
		break;
	case SROCE_OP_RC_READ_RESP_FIRST:
	case SROCE_OP_RC_READ_RESP_MIDDLE:
	case SROCE_OP_RC_READ_RESP_LAST:
	case SROCE_OP_RC_READ_RESP_ONLY:
		if (unlikely(cb->info->mask & SROCE_HDR_AETH &&
			     sroce_aeth_syn_type(syn) != SROCE_AETH_ACK)) {
			sroce_comp_ack(qp, cb->psn, syn);
			break;
		}
		sroce_comp_read_resp(qp, skb);
		break;
	default:
		sroce_counter_inc(qp->sdev, SROCE_CNT_COMP_DROP_BAD);
		goto unlock;
	}
	/* From the peer, in the window, handled: HPCC's telemetry. */
	if (unlikely(sroce_rx_int_len(skb)))
		sroce_int_rx_resp(qp, skb, syn);
unlock:
	consume_skb(skb);
}

/* @in_post: a kernel consumer's post_send, which runs no callback. */
static void __sroce_comp_unlock(struct sroce_qp *qp, bool in_post)
	__releases(&qp->req.lock)
{
	struct sroce_req *req = &qp->req;
	unsigned int budget = SROCE_COMP_BACKLOG_BUDGET;
	struct sk_buff *skb;

	for (;;) {
		bool run = xchg(&req->kick, 0);

		lockdep_assert_held(&req->lock);
		if (READ_ONCE(req->cnp_cut) && xchg(&req->cnp_cut, 0))
			sroce_comp_cnp_locked(qp);
		while (budget && (skb = skb_dequeue(&req->backlog))) {
			sroce_comp_rx_locked(qp, skb);
			budget--;
			run = true;
		}
		/* The window may have opened, or WQEs were posted. */
		if (run)
			sroce_req_run_locked(qp);
		spin_unlock_bh(&req->lock);
		if (in_post)
			sroce_req_after_unlock_post(qp);
		else
			sroce_req_after_unlock(qp);
		/*
		 * The unlock before the look; pairs with sroce_comp_rx(),
		 * sroce_comp_cnp() and sroce_req_run().
		 */
		smp_mb();
		if (skb_queue_empty_lockless(&req->backlog) &&
		    !READ_ONCE(req->kick) && !READ_ONCE(req->cnp_cut))
			return;
		if (!budget) {
			/*
			 * Responses keep coming and each may send a budget of
			 * packets: leave the rest to the work item rather
			 * than hold this CPU (and its softirqs) any longer.
			 */
			sroce_task_schedule(qp);
			return;
		}
		if (!spin_trylock_bh(&req->lock))
			return;
	}
}

void sroce_comp_unlock(struct sroce_qp *qp) __releases(&qp->req.lock)
{
	__sroce_comp_unlock(qp, false);
}

void sroce_comp_unlock_post(struct sroce_qp *qp) __releases(&qp->req.lock)
{
	__sroce_comp_unlock(qp, true);
}

void sroce_req_handoff(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	/*
	 * The unlock before the look; pairs with sroce_req_run() and
	 * sroce_comp_rx(): either they see the lock free, or we see their
	 * kick or response.
	 */
	smp_mb();
	/*
	 * Not inline: this runs where CQEs are posted (and with interrupts
	 * off in modify_qp), and running the completer and requester from
	 * here would nest into the next CQE posting.  The work processes the
	 * backlog and runs the requester unconditionally, so the kick is
	 * taken here.
	 */
	if (!skb_queue_empty_lockless(&req->backlog) ||
	    (READ_ONCE(req->kick) && xchg(&req->kick, 0)))
		sroce_task_schedule(qp);
}

void sroce_req_unlock(struct sroce_qp *qp) __releases(&qp->req.lock)
{
	spin_unlock_bh(&qp->req.lock);
	sroce_req_handoff(qp);
}

void sroce_comp_rx(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_req *req = &qp->req;

	skb_queue_tail(&req->backlog, skb);
	/*
	 * The queued skb before the look at the lock; pairs with
	 * sroce_comp_unlock(): either its holder sees the skb after
	 * unlocking, or this trylock succeeds.
	 */
	smp_mb();
	if (spin_trylock_bh(&req->lock))
		sroce_comp_unlock(qp);
}
