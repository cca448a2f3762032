/* SPDX-License-Identifier: GPL-2.0 */
/*
 * req.h - the SEND side of a QP: requester (send WQEs -> request packets)
 * and the state the completer (comp.c) shares with it.
 *
 * Execution contexts on the SEND side, all serialised by req.lock (_bh):
 *  (a) post_send, process context: the user doorbell (ib_uverbs POST_SEND
 *      with wr == NULL) or a kernel ULP's ib_post_send (which defers to the
 *      work item when called with interrupts disabled, and otherwise
 *      leaves every completion callback to it: sroce_req_run_post());
 *  (b) the QP's receive consumer (rxq.h: softirq, or its work item with BH
 *      disabled) when an ACK/NAK/READ response/atomic ACK arrives: it
 *      joins req.backlog and is processed by whoever holds req.lock
 *      (sroce_comp_rx(), sroce_comp_unlock()), then the requester resumes;
 *  (c) the retransmit, RNR, tail and hold timers (timer_list, softirq);
 *  (d) the per-QP work items (task.c) on the module workqueue, which hold
 *      a QP reference while queued.
 * The RECEIVE side (resp.c) runs under qp->resp.lock and only shares the
 * immutable parts of the QP and qp->av with us.
 *
 * Lock order: qp->lock (irqsave) -> req.lock -> sq.lock (irqsave).
 * Nothing on the SEND side takes qp->lock while holding req.lock, and no
 * lock of the QP is held while a CQE is posted (a kernel consumer's
 * completion handler may post new work requests).  Nor is a CQE posted
 * from inside a kernel consumer's post_send: its send CQ's handler (and
 * the recv CQ's, through the flush of a move to ERR) would run inside
 * ib_post_send, where the consumer may hold a lock its handler takes, and
 * a handler that posts again would nest one frame deeper per post.  The
 * work item posts them instead (sroce_req_run_post()).  A softirq that
 * runs when post_send re-enables BH (an ACK received on the same CPU) may
 * post CQEs as any interrupt may: a consumer whose handler takes a lock
 * it holds around ib_post_send disables BH (or interrupts) while holding
 * it, with a hardware device as here.
 *
 * Send WQE indices (free-running ring indices of the SQ):
 *   posted <= done <= next <= fetched <= sq.queue.prod
 *   [posted, done)    finished; CQE (if any) not yet built, slot held
 *   [done, next)      fully transmitted, waiting for ACK/response (RC)
 *   next              the WQE the requester transmits now (may be partial)
 *   [next, fetched)   copied into the kernel shadow, validated
 * A ring slot is given back to user space (sq cons) once its CQE has been
 * built from the shadow entry, before the CQE is posted (a consumer that
 * polls it may post again at once and must find room); the shadow entry of
 * an index is never read after that.
 */
#ifndef _SROCE_REQ_H
#define _SROCE_REQ_H

#include <linux/jiffies.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

#include "pkt.h"
#include "proto/win.h"

struct sroce_qp;
struct sroce_ah;

/* Kernel copy of one send WQE plus what the SEND side tracks for it. */
struct sroce_swqe {
	struct sroce_send_wqe wqe; /* validated copy of the ring slot */
	struct sroce_av av; /* UD/GSI: destination */
	u64 len; /* message bytes (SGE total or inline_len) */
	u32 sent; /* bytes transmitted so far (next packet's offset) */
	u32 first_psn; /* assigned when the first packet goes out */
	u32 last_psn; /* last PSN the message consumes */
	u32 rd_psn; /* READ: next expected response PSN */
	u8 status; /* enum ib_wc_status once done */
	bool started; /* PSNs assigned */
	bool signaled; /* CQE on success */
	u8 pad;
	/* then sq.max_sge struct sroce_sge or max_inline bytes */
	u8 data[] __aligned(8);
};

/* The SGE list of a WQE that is not inline (it follows the WQE). */
static inline struct sroce_sge *sroce_swqe_sge(struct sroce_swqe *swqe)
{
	return (struct sroce_sge *)swqe->data;
}

/* READ and atomics: requests that wait for response data. */
static inline bool sroce_wr_is_rd_atomic(u32 op)
{
	return op == SROCE_WR_RDMA_READ || op == SROCE_WR_ATOMIC_CMP_AND_SWP ||
	       op == SROCE_WR_ATOMIC_FETCH_AND_ADD;
}

/*
 * Largest message sent: 2^30 bytes, what mlx5 reports.  IBA allows 2^31,
 * but a READ of 2^31 bytes at path MTU 256 takes 2^23 PSNs, and the 24-bit
 * PSN arithmetic needs fewer than 2^23 outstanding (proto/psn.h): its last
 * response would be out of the window.  2^22 PSNs and the window fit.
 */
#define SROCE_MAX_MSG BIT(30)

/* Unacknowledged PSNs an RC QP may have outstanding (req.win's largest). */
#define SROCE_REQ_WINDOW 256
/*
 * Retransmit timeouts in a row without progress double the timeout up
 * to 2^SROCE_REQ_BACKOFF_MAX times the QP's (req.backoff, comp.c).
 */
#define SROCE_REQ_BACKOFF_MAX 2
/* Idle time after an unrequested tail before the tail timer asks. */
#define SROCE_REQ_TAIL_JIFFIES max_t(unsigned long, 1, msecs_to_jiffies(2))
/*
 * After the local queue (the netdev's qdisc, a veth backlog) refused a
 * packet, an RC requester waits until the next timer tick before it sends
 * that packet again (req.tx_held, sroce_comp_local_drop()); each refusal
 * in a row doubles the wait, up to 2^SROCE_REQ_HOLD_SHIFT_MAX ticks.
 */
#define SROCE_REQ_HOLD_SHIFT_MAX 3

struct sroce_req {
	/* Serialises the whole SEND side; guards every field below. */
	spinlock_t lock;

	/*
	 * Responses that arrived while req.lock was held (typically by the
	 * requester sending a budget of packets): whoever holds the lock
	 * processes them before it lets go, so the receive side never spins
	 * on it (sroce_comp_rx(), sroce_comp_unlock()).  Guarded by its own
	 * lock (the sk_buff_head's), taken with BH disabled.
	 */
	struct sk_buff_head backlog;
	/*
	 * A doorbell found req.lock held: the holder runs the requester once
	 * more before it lets go.  Set without the lock and taken with xchg()
	 * (a read and a separate clear would lose a kick set in between),
	 * paired with full barriers (sroce_req_run(), sroce_comp_unlock()).
	 * So every holder of req.lock lets go through sroce_comp_unlock()
	 * or sroce_req_unlock(), or calls sroce_req_handoff() right after a
	 * plain unlock (modify_qp, with interrupts off); the last two queue
	 * the work for a kick or a non-empty backlog.
	 */
	unsigned int kick;
	/*
	 * A CNP asked for a window cut (sroce_comp_cnp()): as a kick, set
	 * without the lock, taken with xchg() by the holder that lets go
	 * (sroce_comp_unlock()), so the receive softirq never spins on
	 * req.lock for it.
	 */
	unsigned int cnp_cut;

	/* Snapshots of the QP attributes, written by modify_qp (both qp->lock
	 * and req.lock held) so the data path never takes qp->lock.
	 */
	enum ib_qp_state state;
	u32 mtu; /* path MTU in bytes */
	u32 dest_qpn;
	u32 qkey; /* UD: used when a WQE's Q_Key has the high bit set */
	u32 timeout_jiffies; /* retransmit timeout; 0 = none */
	u8 retry_cnt;
	u8 rnr_retry; /* 7 = infinite */
	u8 max_rd_atomic;
	u16 sport; /* constant UDP source port */

	/* Sequence state. */
	u32 psn; /* next PSN a new packet takes */
	u32 una_psn; /* oldest unacknowledged PSN (RC) */
	/*
	 * The PSN after the newest packet ever sent (RC), at or after psn:
	 * a go-back-N moves psn back, not this, and an ACK for a packet of
	 * the first transmission that arrives after the rewind is still
	 * valid (sroce_req_catch_up()).
	 */
	u32 psn_max;
	u32 next, fetched, done, posted; /* see the top of this file */
	/* Index after the newest WQE given PSNs (sroce_req_start()). */
	u32 started_end;
	/*
	 * SQD (IBA 10.3.1): the WQEs before sqd_end, those started before
	 * the QP entered it, are finished (sent, resent, acknowledged); the
	 * later ones wait for RTS.  sqd_drained: all before sqd_end are
	 * done (query_qp's sq_draining is 0; it and modify_qp's SQD -> SQD
	 * check read it without req.lock; it is cleared under qp->lock).
	 * sqd_notify: the modify to SQD asked for IB_EVENT_SQ_DRAINED;
	 * sqd_event: it is due, raised after req.lock is let go
	 * (sroce_req_after_unlock()).
	 */
	u32 sqd_end;
	bool sqd_drained;
	bool sqd_notify;
	bool sqd_event;
	u32 rd_inflight; /* READ/atomic requests awaiting responses */
	u32 pkts_since_ackreq; /* ACK coalescing: AckReq every N packets */
	/*
	 * Recovery window (RC, comp.c; the model: proto/win.h): the PSNs
	 * the QP may have unacknowledged now, SROCE_REQ_WINDOW until a
	 * loss, a CNP or a refusal of the local queue cuts it.  A cut
	 * before una reaches recover_psn (sent before the last cut) cuts
	 * no further.
	 */
	struct sroce_win win;
	/*
	 * The requester last stopped for a reason that is not its host's:
	 * the window itself, nothing posted, a drain, a fence or READs, a
	 * local operation's wait for ACKs, a PFC pause, pacing.  Otherwise
	 * (its budget, the transmit CPU's turn, an skb allocation, the local
	 * queue's refusal) packets the window lets go wait in the host, and
	 * the ACKs tell sroce_win_used() so (window_rtt_fair, comp.c).
	 */
	bool win_idle;
	u32 recover_psn;
	bool in_recovery;
	/*
	 * A timeout cut the window from win_undo; an ACK beyond what was
	 * sent since shows it was spurious and restores it (rto_undo:
	 * nothing acknowledged yet).
	 */
	bool rto_undo;
	struct sroce_win win_undo;
	/*
	 * When the newest packet that asked for an ACK went (jiffies): a
	 * QP that sends slowly (paced, or a small window) still asks at
	 * least every quarter of its retransmit timeout (req_pkt.c).
	 */
	unsigned long ackreq_stamp;
	/*
	 * ACK coalescing (req_pkt.c): the last packet of an unsignaled
	 * message asks for no ACK.  tail_unreq: the newest packet sent did
	 * not, so something may wait for an ACK nobody asked for; tail_stamp:
	 * when it went.  The tail timer then asks (sroce_comp_tail_timer()),
	 * once the ACKs that were asked for (up to ackreq_psn) are in.
	 */
	bool tail_unreq;
	unsigned long tail_stamp;
	u32 ackreq_psn; /* the newest packet that asked, or READ/atomic */
	/* After a go-back-N, every message up to resend_end asks for an ACK. */
	bool resend;
	u32 resend_end;
	u8 retries_left;
	u8 backoff; /* the timeout is timeout_jiffies << backoff */
	u8 rnr_left;
	bool rnr_wait; /* RNR timer armed, requester paused */
	/*
	 * The local queue refused the packet at req.psn, which was not sent:
	 * the requester waits for the hold timer before it tries again.
	 */
	bool tx_held;
	/* A refusal since the retransmit timer last decided (comp.c). */
	bool tx_refused;
	u8 hold_shift; /* refusals in a row, capped: the hold is 2^this ticks */
	bool posting; /* someone posts CQEs for [posted, done) */
	bool stopped; /* destroy: no more timers or work */
	bool error; /* a fatal error moved (or moves) the QP to ERR */
	bool err_moved; /* sroce_qp_error() called for it */
	u32 err_idx; /* WQE that failed ... */
	u8 err_status; /* ... with this enum ib_wc_status */
	u32 rnr_psn; /* PSN to resume from when the RNR timer fires */
	/*
	 * CPU that transmitted last.  While packets are unacknowledged only
	 * that CPU transmits; the others leave it to the ACKs (which arrive
	 * where the requests were sent) or the timers.  The stack queues
	 * packets per CPU (veth backlog, XPS), so packets of one QP sent from
	 * two CPUs could overtake each other and cost a go-back-N.
	 */
	int tx_cpu;
	/* The retransmit timer gave responses waiting locally one more period. */
	bool timer_deferred;
	u32 timer_defer_psn; /* ... for this una_psn */
	u32 seq_retry_psn; /* PSN of the last sequence-error retry */
	bool seq_retry_armed;

	struct timer_list retrans_timer; /* lazy: see comp.c */
	unsigned long retrans_due; /* the oldest unacked packet times out */
	bool retrans_idle; /* all acked since retrans_due was set */
	struct timer_list rnr_timer;
	struct timer_list tail_timer; /* comp.c: the unrequested tail */
	struct timer_list hold_timer; /* comp.c: ends tx_held */
	struct work_struct work; /* task.c; holds a QP reference while queued */
	/* The same for handing over from work (sroce_task_schedule_on()). */
	struct work_struct work_alt;

	/*
	 * Routes for qp->av (pkt.c), per CPU; reset by modify_qp(IB_QP_AV).
	 * Used with BH disabled, by the requester and the responder.
	 */
	struct dst_cache dst_cache;

	/* Shadow of the SQ ring: nslots entries of swqe_size bytes. */
	void *shadow;
	u32 swqe_size;
	/* Kernel UD/GSI QPs: the AH of each slot (pointer, set by post_send). */
	struct ib_ah **kah;
};

/* Create: allocate the shadow; 0 or -ENOMEM.  Cleanup frees it. */
int sroce_req_init(struct sroce_qp *qp);
void sroce_req_cleanup(struct sroce_qp *qp);

/* modify_qp, with qp->lock held: snapshot attributes, reset on RESET. */
void sroce_req_modify(struct sroce_qp *qp, const struct ib_qp_attr *attr,
		      int mask, enum ib_qp_state cur, enum ib_qp_state next);

/*
 * Run the requester (any of the contexts above).  When req.lock is held by
 * someone else it leaves a kick for the holder instead of spinning.
 */
void sroce_req_run(struct sroce_qp *qp);
/*
 * The same, waiting for req.lock: the work items (task.c), which run on
 * the transmit CPU precisely because a holder elsewhere could not send.
 */
void sroce_req_run_wait(struct sroce_qp *qp);
/*
 * A kernel consumer's post_send, interrupts on: like sroce_req_run(), but
 * no completion callback runs inside it (the work posts the CQEs, flushes
 * in ERR and moves the QP to ERR after a fatal error).
 */
void sroce_req_run_post(struct sroce_qp *qp);
void sroce_req_run_locked(struct sroce_qp *qp);

/* ERR: complete every outstanding send WQE with IB_WC_WR_FLUSH_ERR (comp.c). */
void sroce_req_flush(struct sroce_qp *qp);

/* destroy: stop timers and work for good (may sleep). */
void sroce_req_stop(struct sroce_qp *qp);

/* Kernel ULP post_send. */
int sroce_req_post_kernel(struct sroce_qp *qp, const struct ib_send_wr *wr,
			  const struct ib_send_wr **bad_wr);

/*
 * Shared between req.c, req_pkt.c and comp.c (req.lock held, except
 * post_cqes and after_unlock, which run after it is dropped and live in
 * comp.c).
 */
struct sroce_swqe *sroce_req_swqe(struct sroce_qp *qp, u32 idx);
void sroce_req_retry(struct sroce_qp *qp, u32 psn);
/* Delete the SEND side's timers; @sync waits for running callbacks. */
void sroce_req_timers_del(struct sroce_req *req, bool sync);
void sroce_req_complete(struct sroce_qp *qp, u32 idx, enum ib_wc_status st);
void sroce_req_fatal(struct sroce_qp *qp, u32 idx, enum ib_wc_status st);
void sroce_req_post_cqes(struct sroce_qp *qp);
void sroce_req_after_unlock(struct sroce_qp *qp);
/*
 * Drop req.lock (held, BH disabled by spin_lock_bh): process the responses
 * queued meanwhile, then sroce_req_after_unlock(); repeats while responses
 * keep arriving and the lock is free.  Every hot path lets go this way.
 */
void sroce_comp_unlock(struct sroce_qp *qp) __releases(&qp->req.lock);
/*
 * The same inside a kernel consumer's post_send: the CQEs and the move to
 * ERR are left to the work item (sroce_req_run_post()).
 */
void sroce_comp_unlock_post(struct sroce_qp *qp) __releases(&qp->req.lock);
/*
 * Drop req.lock taken for anything but running the requester (CQE
 * posting, a timer with nothing to do, PFC resume, a snapshot): a doorbell
 * that found the lock held left a kick, and a response that found it held
 * waits in req.backlog; this hands both to the work (sroce_req_handoff()).
 */
void sroce_req_unlock(struct sroce_qp *qp) __releases(&qp->req.lock);
/*
 * Just after req.lock was dropped by a holder that does not process what
 * arrived meanwhile itself: hand a doorbell's kick and responses queued
 * in req.backlog to the work.  Any context (queue_work only).
 */
void sroce_req_handoff(struct sroce_qp *qp);
void sroce_req_sqd_event(struct sroce_qp *qp);

/* SQD: the WQE at req.next was not begun before it and waits for RTS. */
static inline bool sroce_req_sqd_holds(const struct sroce_req *req)
{
	return req->state == IB_QPS_SQD && (s32)(req->next - req->sqd_end) >= 0;
}

/* The WQEs before @end have had PSNs (or run, if local): started_end. */
static inline void sroce_req_started_to(struct sroce_req *req, u32 end)
{
	if ((s32)(end - req->started_end) > 0)
		req->started_end = end;
}

#endif /* _SROCE_REQ_H */
