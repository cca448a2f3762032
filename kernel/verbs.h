/* SPDX-License-Identifier: GPL-2.0 */
/*
 * verbs.h - the ib_device_ops of the verbs objects (verbs.c).
 *
 * verbs.c holds the user context and the table; each object lives in its
 * own file (pd.c, mr.c, cq.c, qp.c, ah.c) and ring buffers in queue.c.
 */
#ifndef _SROCE_VERBS_H
#define _SROCE_VERBS_H

#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/sroce-abi.h>

struct sroce_dev;

/* A uverbs context.  No driver state yet beyond ib_core's. */
struct sroce_ucontext {
	struct ib_ucontext ibuctx; /* must be first (core-allocated) */
};

/* The ib_ucontext of a user verb's @udata, NULL for kernel callers. */
static inline struct ib_ucontext *sroce_udata_uctx(struct ib_udata *udata)
{
	struct sroce_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct sroce_ucontext, ibuctx);

	return uctx ? &uctx->ibuctx : NULL;
}

/*
 * Copy a driver response to user space: only as much as the caller has
 * room for, so that an older library with a shorter struct keeps working.
 */
static inline int sroce_copy_resp(struct ib_udata *udata, void *resp,
				  size_t len)
{
	return ib_copy_to_udata(udata, resp, min(udata->outlen, len));
}

/* Object verbs: PD, MR, CQ, QP, AH, ucontext, mmap.  Merged by device.c. */
extern const struct ib_device_ops sroce_verbs_ops;

/*
 * Per-device state of the verbs objects (object tables beyond qp_xa/ah_xa).
 * device.c calls init before ib_register_device() and fini from
 * dealloc_driver, after every object is gone.
 */
int sroce_verbs_dev_init(struct sroce_dev *sdev);
void sroce_verbs_dev_fini(struct sroce_dev *sdev);

#endif /* _SROCE_VERBS_H */
