// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_kconsumer.c - a kernel verbs consumer in miniature, for
 * t-kconsumer.sh.  Loading it runs the cases on the device named by the
 * "dev" parameter and prints one KTAP line per case to the kernel log
 * ("sroce_kconsumer: ok N name"); the load fails (-EIO) if a case failed,
 * and succeeds otherwise (rmmod it afterwards).
 *
 * Cases, each on a fresh RC QP in INIT with its own CQ, created with
 * ib_create_cq() and a completion handler of ours (as ULPs with their own
 * CQ handling do; ib_alloc_cq() users poll from softirq or work instead):
 *
 *  1. post_recv with interrupts off on a QP in ERR: the flush CQE arrives
 *     (the driver defers the flush to its workqueue: no responder lock in
 *     hard-IRQ context).
 *  2. A receive is posted, the CQ armed, the QP moved to ERR: the flush
 *     completion calls our handler, which posts another receive on the
 *     QP in error.  Both complete as flushed, the handler ran once.  A
 *     driver that calls the handler with its responder lock held deadlocks
 *     here (the post flushes, taking that lock again).
 *  3. The usual handler loop (re-arm, poll, post a receive for each
 *     completion) on a QP in ERR: every repost completes as flushed and
 *     the handler is never entered from inside itself.  A driver that
 *     flushes inside post_recv calls the handler again from the post,
 *     one stack frame deeper per repost (a stack overflow for a consumer
 *     that keeps reposting); this case stops after KC_LOOP_POSTS.
 *  4. post_send on a QP in ERR, with the CQ armed: the flush completion
 *     calls our handler, which re-arms, polls and posts another send for
 *     each completion (KC_LOOP_POSTS of them, all flushed).  The handler
 *     must never run inside an ib_post_send (ours or its own): a consumer
 *     that holds a lock around ib_post_send which its handler also takes
 *     would deadlock, and the reposts would nest.
 *  5. The same on a UD QP in RTS, which completes its sends at transmit:
 *     sends to a QP number nobody has, on the device's own GID (the "gid"
 *     parameter), all complete successfully, never inside a post.
 *
 * With race=1 (t-race.sh, sroce.ko built with SROCE_TEST_HOOKS=1 and its
 * test_qp_flush_ms set, so that modify_qp to ERR sleeps before its flush)
 * only these run, on an RC QP attached to an SRQ:
 *
 *  1. modify to ERR: one IB_EVENT_QP_LAST_WQE_REACHED (IBA 11.5.2.2).
 *  2. A thread modifies to ERR; while it sleeps before its flush we reset
 *     the QP.  The flush finds a reset QP and flushes nothing: it has no
 *     last WQE to report, and reports none.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

static char *dev = "sroce1";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "RDMA device to run on");

static int gid = -1;
module_param(gid, int, 0444);
MODULE_PARM_DESC(gid, "index of a RoCE v2 GID of the device (case 5)");

static bool race;
module_param(race, bool, 0444);
MODULE_PARM_DESC(race, "run only the SRQ cases of t-race.sh");

/* Case 5's destination: a QP number no QP of the device has. */
#define KC_NO_QPN 0xfffffe
#define KC_QKEY 0x11111111

#define KC_WAIT_MS 2000
#define KC_LOOP_POSTS 8

struct kc {
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	atomic_t calls; /* completion handler runs */
	int repost; /* what the handler's post_recv returned */
	bool loop; /* case 3: the re-arm, poll, repost handler */
	struct task_struct *owner; /* case 3: the task inside the handler */
	atomic_t nested; /* case 3: handler entered from inside itself */
	atomic_t posted; /* case 3: reposts made */
	atomic_t flushed; /* case 3: flush completions polled */
	/* Cases 4 and 5: the send loop handler. */
	bool send_loop;
	enum ib_wc_status want; /* the status every send completes with */
	struct task_struct *poster; /* inside ib_post_send: the case's task */
	struct task_struct *hposter; /* ... the handler's task */
	atomic_t inside; /* handler runs inside either's ib_post_send */
	atomic_t done; /* send completions polled */
	atomic_t bad; /* ... with another status than want */
	struct ib_ah *ah; /* case 5 */
	struct ib_srq *srq; /* race cases: the QP's SRQ */
	atomic_t last_wqe; /* ... IB_EVENT_QP_LAST_WQE_REACHED raised */
};

static int kc_ntest, kc_nfail;

static void kc_report(bool ok, const char *name, const char *why)
{
	kc_ntest++;
	if (!ok) {
		kc_nfail++;
		if (why)
			pr_info("sroce_kconsumer: # %s\n", why);
	}
	pr_info("sroce_kconsumer: %sok %d %s\n", ok ? "" : "not ", kc_ntest,
		name);
}

static int kc_post_recv(struct ib_qp *qp, u64 wr_id)
{
	const struct ib_recv_wr wr = { .wr_id = wr_id, .num_sge = 0 };

	return ib_post_recv(qp, &wr, NULL);
}

/*
 * Case 3's handler: re-arm, poll, post a receive for each completion.
 * Entered again by the task already inside it (not merely run by another
 * context at the same time) counts as nested.
 */
static void kc_comp_loop(struct kc *k, struct ib_cq *cq)
{
	bool owner = false;
	struct ib_wc wc;

	if (in_task()) {
		if (READ_ONCE(k->owner) == current)
			atomic_inc(&k->nested);
		else
			owner = cmpxchg(&k->owner, NULL, current) == NULL;
	}
	ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	while (ib_poll_cq(cq, 1, &wc) == 1) {
		if (wc.status == IB_WC_WR_FLUSH_ERR)
			atomic_inc(&k->flushed);
		if (atomic_inc_return(&k->posted) <= KC_LOOP_POSTS &&
		    kc_post_recv(k->qp, 100 + atomic_read(&k->posted)))
			k->repost = -EIO;
	}
	if (owner)
		WRITE_ONCE(k->owner, NULL);
}

/* A signaled SEND of no data (to the AH and QPN of case 5 on UD). */
static int kc_post_send(struct kc *k, struct task_struct **who, u64 wr_id)
{
	struct ib_ud_wr wr = {
		.wr = { .wr_id = wr_id,
			.opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED },
		.ah = k->ah,
		.remote_qpn = KC_NO_QPN,
		.remote_qkey = KC_QKEY,
	};
	int err;

	/* Who is inside ib_post_send: the handler must never be them. */
	WRITE_ONCE(*who, current);
	err = ib_post_send(k->qp, &wr.wr, NULL);
	WRITE_ONCE(*who, NULL);
	return err;
}

/*
 * Cases 4 and 5: re-arm, poll, post a send for each completion.  Run by
 * the task that is inside one of the ib_post_send calls, it was called
 * from inside that post (a softirq interrupting it would count too: none
 * completes these QPs' sends).
 */
static void kc_comp_send(struct kc *k, struct ib_cq *cq)
{
	struct ib_wc wc;

	if (current == READ_ONCE(k->poster) ||
	    current == READ_ONCE(k->hposter))
		atomic_inc(&k->inside);
	ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	while (ib_poll_cq(cq, 1, &wc) == 1) {
		if (wc.status != k->want)
			atomic_inc(&k->bad);
		atomic_inc(&k->done);
		if (atomic_inc_return(&k->posted) <= KC_LOOP_POSTS &&
		    kc_post_send(k, &k->hposter, 200 + atomic_read(&k->posted)))
			k->repost = -EIO;
	}
}

/* Case 2's handler: post a receive on the QP (in ERR) on the first run. */
static void kc_comp(struct ib_cq *cq, void *ctx)
{
	struct kc *k = ctx;

	if (k->send_loop) {
		if (k->qp)
			kc_comp_send(k, cq);
		return;
	}
	if (k->loop) {
		if (k->qp)
			kc_comp_loop(k, cq);
		return;
	}
	if (atomic_inc_return(&k->calls) == 1 && k->qp)
		k->repost = kc_post_recv(k->qp, 2);
}

static void kc_free(struct kc *k)
{
	if (k->qp)
		ib_destroy_qp(k->qp);
	if (k->cq)
		ib_destroy_cq(k->cq);
	if (k->ah)
		rdma_destroy_ah(k->ah, RDMA_DESTROY_AH_SLEEPABLE);
	if (k->srq)
		ib_destroy_srq(k->srq);
	k->qp = NULL;
	k->cq = NULL;
	k->ah = NULL;
	k->srq = NULL;
}

static void kc_qp_event(struct ib_event *ev, void *ctx)
{
	struct kc *k = ctx;

	if (ev->event == IB_EVENT_QP_LAST_WQE_REACHED)
		atomic_inc(&k->last_wqe);
}

/* A CQ of ours and a QP of @type on it, in INIT. */
static int kc_setup_type(struct kc *k, enum ib_qp_type type)
{
	struct ib_cq_init_attr ca = { .cqe = 16 };
	struct ib_qp_init_attr qa = {
		.cap = { .max_send_wr = 4,
			 .max_recv_wr = 4,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = type,
	};
	struct ib_qp_attr a = { .qp_state = IB_QPS_INIT,
				.port_num = 1,
				.qkey = KC_QKEY };
	int mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT;
	struct ib_cq *cq;
	struct ib_qp *qp;

	atomic_set(&k->calls, 0);
	k->owner = NULL;
	atomic_set(&k->nested, 0);
	atomic_set(&k->posted, 0);
	atomic_set(&k->flushed, 0);
	k->poster = NULL;
	k->hposter = NULL;
	atomic_set(&k->inside, 0);
	atomic_set(&k->done, 0);
	atomic_set(&k->bad, 0);
	atomic_set(&k->last_wqe, 0);
	k->repost = -EINPROGRESS;
	cq = ib_create_cq(k->ibdev, kc_comp, NULL, k, &ca);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	k->cq = cq;
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.srq = k->srq;
	qa.event_handler = kc_qp_event;
	qa.qp_context = k;
	qp = ib_create_qp(k->pd, &qa);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	k->qp = qp;
	mask |= type == IB_QPT_UD ? IB_QP_QKEY : IB_QP_ACCESS_FLAGS;
	return ib_modify_qp(qp, &a, mask);
}

static int kc_setup(struct kc *k)
{
	return kc_setup_type(k, IB_QPT_RC);
}

/* Case 5: a UD QP in RTS and an AH to the device's own GID @gid. */
static int kc_setup_ud(struct kc *k)
{
	struct ib_qp_attr a = { .qp_state = IB_QPS_RTR };
	struct rdma_ah_attr aa = {};
	union ib_gid dgid;
	struct ib_ah *ah;
	int err;

	err = kc_setup_type(k, IB_QPT_UD) ?: ib_modify_qp(k->qp, &a,
							 IB_QP_STATE);
	if (err)
		return err;
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 0;
	err = ib_modify_qp(k->qp, &a, IB_QP_STATE | IB_QP_SQ_PSN);
	if (err)
		return err;
	if (gid < 0)
		return -EINVAL;
	err = rdma_query_gid(k->ibdev, 1, gid, &dgid);
	if (err)
		return err;
	aa.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&aa, 1);
	rdma_ah_set_grh(&aa, &dgid, 0, gid, 64, 0);
	ah = rdma_create_ah(k->pd, &aa, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah))
		return PTR_ERR(ah);
	k->ah = ah;
	return 0;
}

static int kc_to_err(struct kc *k)
{
	struct ib_qp_attr a = { .qp_state = IB_QPS_ERR };

	return ib_modify_qp(k->qp, &a, IB_QP_STATE);
}

/* Wait for one completion; 1 with *wc filled, 0 on timeout. */
static int kc_poll(struct kc *k, struct ib_wc *wc)
{
	int i;

	for (i = 0; i < KC_WAIT_MS; i++) {
		if (ib_poll_cq(k->cq, 1, wc) == 1)
			return 1;
		usleep_range(1000, 2000);
	}
	return 0;
}

static bool kc_flushed(struct kc *k, u64 wr_id)
{
	struct ib_wc wc;

	return kc_poll(k, &wc) && wc.wr_id == wr_id &&
	       wc.status == IB_WC_WR_FLUSH_ERR;
}

static void kc_case_irqs_off(struct kc *k)
{
	unsigned long flags;
	int err;

	err = kc_setup(k) ?: kc_to_err(k);
	if (err) {
		kc_report(false, "post_recv in ERR with interrupts off",
			  "setup");
		goto out;
	}
	local_irq_save(flags);
	err = kc_post_recv(k->qp, 3);
	local_irq_restore(flags);
	kc_report(!err && kc_flushed(k, 3),
		  "post_recv in ERR with interrupts off: flushed", NULL);
out:
	kc_free(k);
}

static void kc_case_handler_posts(struct kc *k)
{
	char why[96];
	bool ok;
	int err;

	err = kc_setup(k) ?: kc_post_recv(k->qp, 1);
	if (err) {
		kc_report(false, "handler posts a receive on a QP in ERR",
			  "setup");
		goto out;
	}
	ib_req_notify_cq(k->cq, IB_CQ_NEXT_COMP);
	err = kc_to_err(k);
	ok = !err && kc_flushed(k, 1) && kc_flushed(k, 2) &&
	     atomic_read(&k->calls) == 1 && !k->repost;
	snprintf(why, sizeof(why), "modify %d, handler ran %d times, post %d",
		 err, atomic_read(&k->calls), k->repost);
	kc_report(ok, "handler posts a receive on a QP in ERR: both flushed",
		  why);
out:
	kc_free(k);
}

static void kc_case_handler_loop(struct kc *k)
{
	char why[96];
	bool ok;
	int err, i;

	k->loop = true;
	err = kc_setup(k) ?: kc_post_recv(k->qp, 1);
	if (err) {
		kc_report(false, "handler loop reposts on a QP in ERR", "setup");
		goto out;
	}
	k->repost = 0;
	ib_req_notify_cq(k->cq, IB_CQ_NEXT_COMP);
	err = kc_to_err(k);
	/* The first receive and every repost: 1 + KC_LOOP_POSTS flushes. */
	for (i = 0; i < KC_WAIT_MS &&
		    atomic_read(&k->flushed) < 1 + KC_LOOP_POSTS; i++)
		usleep_range(1000, 2000);
	ok = !err && !k->repost &&
	     atomic_read(&k->flushed) == 1 + KC_LOOP_POSTS &&
	     !atomic_read(&k->nested);
	snprintf(why, sizeof(why), "modify %d, post %d, flushed %d, nested %d",
		 err, k->repost, atomic_read(&k->flushed),
		 atomic_read(&k->nested));
	kc_report(ok,
		  "handler loop reposts on a QP in ERR: all flushed, never nested",
		  why);
out:
	kc_free(k);
	k->loop = false;
}

/*
 * Cases 4 and 5: the QP is ready (@err: its setup), the CQ armed; one
 * send from here, then one from the handler per completion.
 */
static void kc_send_loop(struct kc *k, int err, const char *name)
{
	char why[128];
	bool ok;
	int i;

	if (err) {
		snprintf(why, sizeof(why), "setup %d", err);
		kc_report(false, name, why);
		return;
	}
	k->repost = 0;
	ib_req_notify_cq(k->cq, IB_CQ_NEXT_COMP);
	err = kc_post_send(k, &k->poster, 1);
	for (i = 0; i < KC_WAIT_MS && atomic_read(&k->done) < 1 + KC_LOOP_POSTS;
	     i++)
		usleep_range(1000, 2000);
	ok = !err && !k->repost && atomic_read(&k->done) == 1 + KC_LOOP_POSTS &&
	     !atomic_read(&k->bad) && !atomic_read(&k->inside);
	snprintf(why, sizeof(why),
		 "post %d, reposts %d, completions %d (%d of status other than %d), handler inside a post %d",
		 err, k->repost, atomic_read(&k->done), atomic_read(&k->bad),
		 k->want, atomic_read(&k->inside));
	kc_report(ok, name, why);
}

static void kc_case_send_err(struct kc *k)
{
	k->send_loop = true;
	k->want = IB_WC_WR_FLUSH_ERR;
	kc_send_loop(k, kc_setup(k) ?: kc_to_err(k),
		     "post_send on a QP in ERR: flushed, handler never inside a post");
	kc_free(k);
	k->send_loop = false;
}

static void kc_case_send_ud(struct kc *k)
{
	k->send_loop = true;
	k->want = IB_WC_SUCCESS;
	kc_send_loop(k, kc_setup_ud(k),
		     "post_send on a UD QP in RTS: completes, handler never inside a post");
	kc_free(k);
	k->send_loop = false;
}

/* Race cases: an RC QP in INIT attached to a new SRQ. */
static int kc_setup_srq(struct kc *k)
{
	struct ib_srq_init_attr sa = {
		.attr = { .max_wr = 4, .max_sge = 1 },
		.srq_type = IB_SRQT_BASIC,
	};
	struct ib_srq *srq;

	srq = ib_create_srq(k->pd, &sa);
	if (IS_ERR(srq))
		return PTR_ERR(srq);
	k->srq = srq;
	return kc_setup(k);
}

static int kc_query_state(struct kc *k)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr a;

	return ib_query_qp(k->qp, &a, IB_QP_STATE, &init) ?: a.qp_state;
}

static void kc_race_control(struct kc *k)
{
	char why[64];
	int err;

	err = kc_setup_srq(k) ?: kc_to_err(k);
	snprintf(why, sizeof(why), "modify %d, last-WQE events %d", err,
		 atomic_read(&k->last_wqe));
	kc_report(!err && atomic_read(&k->last_wqe) == 1,
		  "SRQ QP to ERR: one last-WQE event", why);
	kc_free(k);
}

/* The racing modify to ERR, in a thread of its own. */
struct kc_modify {
	struct kc *k;
	int err;
	struct completion done;
};

static int kc_modify_fn(void *arg)
{
	struct kc_modify *m = arg;

	m->err = kc_to_err(m->k);
	complete(&m->done);
	return 0;
}

static void kc_race_reset(struct kc *k)
{
	struct kc_modify m = { .k = k };
	struct task_struct *t;
	int err, i, seen = -1, reset = -1, end = -1;
	char why[128];

	init_completion(&m.done);
	err = kc_setup_srq(k);
	if (err)
		goto report;
	t = kthread_run(kc_modify_fn, &m, "kc_modify");
	if (IS_ERR(t)) {
		err = PTR_ERR(t);
		goto report;
	}
	/*
	 * The thread's modify sets ERR under qp->lock, then sleeps in the
	 * hook before its flush: reset the QP once it is in ERR.
	 */
	for (i = 0; i < KC_WAIT_MS && seen != IB_QPS_ERR; i++) {
		seen = kc_query_state(k);
		if (seen != IB_QPS_ERR)
			usleep_range(1000, 2000);
	}
	if (seen == IB_QPS_ERR) {
		struct ib_qp_attr a = { .qp_state = IB_QPS_RESET };

		reset = ib_modify_qp(k->qp, &a, IB_QP_STATE);
	}
	wait_for_completion(&m.done);
	end = kc_query_state(k);
	err = m.err;
report:
	snprintf(why, sizeof(why),
		 "setup/ERR %d, seen %d, RESET %d, end state %d, last-WQE events %d",
		 err, seen, reset, end, k->qp ? atomic_read(&k->last_wqe) : -1);
	kc_report(!err && seen == IB_QPS_ERR && !reset &&
			  end == IB_QPS_RESET && !atomic_read(&k->last_wqe),
		  "SRQ QP reset while its move to ERR flushes: no last-WQE event",
		  why);
	kc_free(k);
}

static int __init kc_init(void)
{
	struct kc k = {};

	k.ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!k.ibdev) {
		pr_err("sroce_kconsumer: no device %s\n", dev);
		return -ENODEV;
	}
	k.pd = ib_alloc_pd(k.ibdev, 0);
	if (IS_ERR(k.pd)) {
		ib_device_put(k.ibdev);
		return PTR_ERR(k.pd);
	}
	if (race) {
		pr_info("sroce_kconsumer: 1..2\n");
		kc_race_control(&k);
		kc_race_reset(&k);
	} else {
		pr_info("sroce_kconsumer: 1..5\n");
		kc_case_irqs_off(&k);
		kc_case_handler_posts(&k);
		kc_case_handler_loop(&k);
		kc_case_send_err(&k);
		kc_case_send_ud(&k);
	}
	ib_dealloc_pd(k.pd);
	ib_device_put(k.ibdev);
	return kc_nfail ? -EIO : 0;
}

static void __exit kc_exit(void)
{
}

module_init(kc_init);
module_exit(kc_exit);
MODULE_DESCRIPTION("sroce test: a kernel verbs consumer");
MODULE_LICENSE("GPL");
