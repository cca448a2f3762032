/* SPDX-License-Identifier: GPL-2.0 */
/*
 * task.h - the per-QP work item of the SEND side and the module workqueue.
 *
 * Work is queued only while holding a QP reference for it: the reference
 * is taken before queue_work() and dropped by the work function, or by
 * sroce_task_cancel() when the cancel removed a pending item.
 */
#ifndef _SROCE_TASK_H
#define _SROCE_TASK_H

#include <linux/types.h>

struct sroce_qp;
struct work_struct;

/* Module init/exit: the "sroce" workqueue. */
int sroce_task_init(void);
void sroce_task_exit(void);

/*
 * Queue @work on the module workqueue, on @cpu or (cpu < 0) on the local
 * CPU; queue_work() semantics: false if it was already pending.  Valid
 * from sroce_task_init() to sroce_task_exit(), i.e. while devices exist.
 */
bool sroce_task_queue(struct work_struct *work, int cpu);
/*
 * Queue @work, a work item of @qp whose function ends with sroce_qp_put(),
 * with a QP reference for it; nothing if the QP is being destroyed.
 */
void sroce_task_queue_qp(struct sroce_qp *qp, struct work_struct *work,
			 int cpu);

void sroce_task_setup(struct sroce_qp *qp);
/* Schedule the SEND side to run from the workqueue (req.lock held). */
void sroce_task_schedule(struct sroce_qp *qp);
/* The same, on @cpu (the QP's transmit CPU). */
void sroce_task_schedule_on(struct sroce_qp *qp, int cpu);
/* destroy: wait for and cancel pending work (may sleep). */
void sroce_task_cancel(struct sroce_qp *qp);

#endif /* _SROCE_TASK_H */
