// SPDX-License-Identifier: GPL-2.0
/*
 * task.c - the module workqueue and the per-QP work item of the SEND
 * side.  The responder's READ work (resp_rd.c) runs on the same queue
 * (sroce_task_queue()), not on system_wq: it is per-packet data path work
 * and wants the high-priority, reclaim-safe pool.
 *
 * The requester runs inline wherever it is kicked (post_send, ACK receive,
 * timers); it defers to this work item when it must not or should not go
 * on: after a budget of packets (so one QP cannot hog a CPU in softirq),
 * when an skb allocation failed, or when a kernel ULP posted with
 * interrupts disabled.  The work holds a QP reference from queue_work()
 * until it has run or been cancelled.
 */
#include <linux/workqueue.h>

#include "counters.h"
#include "qp.h"
#include "req.h"
#include "task.h"

/* Module workqueue: from module init to module exit. */
static struct workqueue_struct *sroce_wq;

int sroce_task_init(void)
{
	sroce_wq = alloc_workqueue("sroce", WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	return sroce_wq ? 0 : -ENOMEM;
}

void sroce_task_exit(void)
{
	destroy_workqueue(sroce_wq);
}

static void sroce_task_run(struct sroce_qp *qp)
{
	sroce_counter_inc(qp->sdev, SROCE_CNT_REQ_WORK_RUNS);
	sroce_req_run_wait(qp);
	sroce_qp_put(qp); /* the reference taken by sroce_task_schedule_on() */
}

static void sroce_task_fn(struct work_struct *work)
{
	sroce_task_run(container_of(work, struct sroce_qp, req.work));
}

static void sroce_task_alt_fn(struct work_struct *work)
{
	sroce_task_run(container_of(work, struct sroce_qp, req.work_alt));
}

void sroce_task_setup(struct sroce_qp *qp)
{
	INIT_WORK(&qp->req.work, sroce_task_fn);
	INIT_WORK(&qp->req.work_alt, sroce_task_alt_fn);
}

bool sroce_task_queue(struct work_struct *work, int cpu)
{
	if (cpu < 0)
		return queue_work(sroce_wq, work);
	return queue_work_on(cpu, sroce_wq, work);
}

void sroce_task_schedule_on(struct sroce_qp *qp, int cpu)
{
	struct work_struct *work = &qp->req.work;

	if (READ_ONCE(qp->req.stopped))
		return;
	/*
	 * A work item queued while it runs stays on the CPU it runs on
	 * (workqueue non-reentrancy): from inside one of the two items, use
	 * the other, so that a hand-over to another CPU gets there.
	 */
	if (in_task() && current_work() == work)
		work = &qp->req.work_alt;
	sroce_task_queue_qp(qp, work, cpu);
}

void sroce_task_queue_qp(struct sroce_qp *qp, struct work_struct *work, int cpu)
{
	/* The reference travels with the work item. */
	if (!sroce_qp_tryget(qp))
		return;
	if (!sroce_task_queue(work, cpu))
		sroce_qp_put(qp); /* already queued, with its own reference */
}

void sroce_task_schedule(struct sroce_qp *qp)
{
	sroce_task_schedule_on(qp, raw_smp_processor_id());
}

void sroce_task_cancel(struct sroce_qp *qp)
{
	if (cancel_work_sync(&qp->req.work))
		sroce_qp_put(qp);
	if (cancel_work_sync(&qp->req.work_alt))
		sroce_qp_put(qp);
}
