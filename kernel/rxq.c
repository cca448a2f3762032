// SPDX-License-Identifier: GPL-2.0
/*
 * rxq.c - per-QP receive steering (see rxq.h).
 *
 * One consumer at a time per lane of a QP: whoever sets the lane's busy
 * (the softirq for an inline packet, or the work item) processes packets,
 * in order; everyone else appends to the lane's skbs.  A softirq processes
 * inline only when nothing waits, so a later packet never overtakes an
 * earlier one.  When the inline consumer finishes and finds packets queued
 * meanwhile, it kicks the work.
 *
 * The work runs on the module workqueue, on a CPU other than the one that
 * queued (chosen from the QPN, so QPs spread), with BH disabled around each
 * packet: the responder and completer see the same context as in softirq.
 */
#include <linux/cpumask.h>
#include <linux/rcupdate.h>
#include <linux/smp.h>

#include "counters.h"
#include "device.h"
#include "pfc.h"
#include "qp.h"
#include "recv.h"
#include "rxq.h"
#include "task.h"

/* Packets the work processes before it yields the CPU. */
#define SROCE_RXQ_BUDGET 64

/* A CPU other than the current one for @qp's work, or -1 if none. */
static int sroce_rxq_cpu(const struct sroce_qp *qp)
{
	unsigned int n = num_online_cpus();
	int self = raw_smp_processor_id();
	unsigned int i;
	int cpu;

	if (n < 2)
		return -1;
	i = qp->ibqp.qp_num % (n - 1);
	for_each_online_cpu(cpu) {
		if (cpu == self)
			continue;
		if (!i--)
			return cpu;
	}
	return -1;
}

/*
 * Charge @skb to the device's queued memory; false (nothing charged) if
 * that would exceed rx_queue_max_bytes.  Lane lock held.
 */
static bool sroce_rxq_charge(struct sroce_rxq *q, struct sk_buff *skb)
{
	struct sroce_dev *sdev = q->qp->sdev;
	long b;

	lockdep_assert_held(&q->lock);
	b = atomic_long_add_return(skb->truesize, &sdev->rxq_bytes);
	if (likely(b <= (long)READ_ONCE(sdev->rxq_max_bytes)))
		return true;
	atomic_long_sub(skb->truesize, &sdev->rxq_bytes);
	return false;
}

/* @skb left its queue: before anything changes its truesize. */
static void sroce_rxq_uncharge(struct sroce_qp *qp, struct sk_buff *skb)
{
	atomic_long_sub(skb->truesize, &qp->sdev->rxq_bytes);
}

static void sroce_rxq_kick(struct sroce_rxq *q)
{
	sroce_task_queue_qp(q->qp, &q->work, sroce_rxq_cpu(q->qp));
}

static void sroce_rxq_fn(struct work_struct *work)
{
	struct sroce_rxq *q = container_of(work, struct sroce_rxq, work);
	struct sroce_qp *qp = q->qp;
	unsigned int budget = SROCE_RXQ_BUDGET;
	struct sk_buff *skb;
	bool again = false;

	spin_lock_bh(&q->lock);
	if (q->busy) {
		/* The inline consumer kicks again if it leaves packets. */
		spin_unlock_bh(&q->lock);
		goto out;
	}
	q->busy = true;
	while ((skb = __skb_dequeue(&q->skbs))) {
		spin_unlock_bh(&q->lock);
		sroce_rxq_uncharge(qp, skb);
		sroce_pfc_rx_dequeued(qp->sdev, skb, true);
		local_bh_disable();
		rcu_read_lock();
		sroce_recv_finish(qp, skb);
		rcu_read_unlock();
		local_bh_enable();
		spin_lock_bh(&q->lock);
		if (!--budget) {
			again = !skb_queue_empty(&q->skbs);
			break;
		}
	}
	q->busy = false;
	spin_unlock_bh(&q->lock);
	if (again)
		sroce_rxq_kick(q);
out:
	sroce_qp_put(qp); /* the reference taken by sroce_rxq_kick() */
}

/* Drop @skb, which found its lane or the device full; drops the lock. */
static void sroce_rxq_drop(struct sroce_rxq *q, struct sk_buff *skb,
			   enum sroce_counter c) __releases(&q->lock)
{
	/* Never leave a full queue without a consumer on its way. */
	bool kick = !q->busy && !skb_queue_empty(&q->skbs);

	spin_unlock(&q->lock);
	sroce_counter_inc(q->qp->sdev, c);
	kfree_skb(skb);
	if (kick)
		sroce_rxq_kick(q);
}

void sroce_rxq_deliver(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_rx_cb *cb = SROCE_RX_CB(skb);
	struct sroce_rxq *q =
		&qp->rxq[cb->info->flags & SROCE_OPF_REQ ? SROCE_RXQ_REQ :
							   SROCE_RXQ_RESP];
	bool steer = cb->paylen > SROCE_RXQ_INLINE_MAX &&
		     cb->info->flags & (SROCE_OPF_REQ | SROCE_OPF_READ) &&
		     READ_ONCE(qp->sdev->rx_steer) && num_online_cpus() > 1;
	bool kick;

	spin_lock(&q->lock);
	if (!steer && !q->busy && skb_queue_empty(&q->skbs)) {
		q->busy = true;
		spin_unlock(&q->lock);
		sroce_recv_finish(qp, skb);
		spin_lock(&q->lock);
		q->busy = false;
		kick = !skb_queue_empty(&q->skbs);
		spin_unlock(&q->lock);
		if (kick)
			sroce_rxq_kick(q);
		return;
	}
	if (unlikely(skb_queue_len(&q->skbs) >= SROCE_RXQ_MAX_PKTS)) {
		sroce_rxq_drop(q, skb, SROCE_CNT_RX_DROP_BACKLOG);
		return;
	}
	if (unlikely(!sroce_rxq_charge(q, skb))) {
		sroce_rxq_drop(q, skb, SROCE_CNT_RX_DROP_DEV_BACKLOG);
		return;
	}
	/* A receive dst may be a noref one, valid only in this softirq. */
	skb_dst_drop(skb);
	sroce_pfc_rx_queued(qp->sdev, skb);
	__skb_queue_tail(&q->skbs, skb);
	kick = !q->busy;
	spin_unlock(&q->lock);
	sroce_counter_inc(qp->sdev, SROCE_CNT_RX_STEERED);
	if (kick)
		sroce_rxq_kick(q);
}

void sroce_rxq_init(struct sroce_qp *qp)
{
	unsigned int i;

	for (i = 0; i < SROCE_RXQ_LANES; i++) {
		struct sroce_rxq *q = &qp->rxq[i];

		spin_lock_init(&q->lock);
		__skb_queue_head_init(&q->skbs);
		q->busy = false;
		INIT_WORK(&q->work, sroce_rxq_fn);
		q->qp = qp;
	}
}

void sroce_rxq_cleanup(struct sroce_qp *qp)
{
	struct sk_buff_head drop;
	struct sk_buff *skb;
	unsigned int i;

	__skb_queue_head_init(&drop);
	for (i = 0; i < SROCE_RXQ_LANES; i++) {
		struct sroce_rxq *q = &qp->rxq[i];

		if (cancel_work_sync(&q->work))
			sroce_qp_put(qp);
		spin_lock_bh(&q->lock);
		skb_queue_splice_tail_init(&q->skbs, &drop);
		spin_unlock_bh(&q->lock);
	}
	while ((skb = __skb_dequeue(&drop))) {
		sroce_rxq_uncharge(qp, skb);
		sroce_pfc_rx_dequeued(qp->sdev, skb, false);
		kfree_skb(skb);
	}
}
