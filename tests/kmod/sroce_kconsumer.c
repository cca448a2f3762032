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
 */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <rdma/ib_verbs.h>

static char *dev = "sroce1";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "RDMA device to run on");

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

/* Case 2's handler: post a receive on the QP (in ERR) on the first run. */
static void kc_comp(struct ib_cq *cq, void *ctx)
{
	struct kc *k = ctx;

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
	k->qp = NULL;
	k->cq = NULL;
}

/* A CQ of ours and an RC QP on it, in INIT. */
static int kc_setup(struct kc *k)
{
	struct ib_cq_init_attr ca = { .cqe = 16 };
	struct ib_qp_init_attr qa = {
		.cap = { .max_send_wr = 4,
			 .max_recv_wr = 4,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_qp_attr a = { .qp_state = IB_QPS_INIT, .port_num = 1 };
	struct ib_cq *cq;
	struct ib_qp *qp;

	atomic_set(&k->calls, 0);
	k->owner = NULL;
	atomic_set(&k->nested, 0);
	atomic_set(&k->posted, 0);
	atomic_set(&k->flushed, 0);
	k->repost = -EINPROGRESS;
	cq = ib_create_cq(k->ibdev, kc_comp, NULL, k, &ca);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	k->cq = cq;
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qp = ib_create_qp(k->pd, &qa);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	k->qp = qp;
	return ib_modify_qp(qp, &a,
			    IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
				    IB_QP_ACCESS_FLAGS);
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
	pr_info("sroce_kconsumer: 1..3\n");
	kc_case_irqs_off(&k);
	kc_case_handler_posts(&k);
	kc_case_handler_loop(&k);
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
