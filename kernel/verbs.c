// SPDX-License-Identifier: GPL-2.0
/*
 * verbs.c - user contexts and the ib_device_ops table of the verbs objects.
 *
 * The verbs themselves live with their object (pd.c, mr.c, cq.c, qp.c,
 * ah.c); ring mappings in queue.c.  device.c merges sroce_verbs_ops into
 * the device with ib_set_device_ops().
 */
#include "compat/verbs.h"
#include "ah.h"
#include "cq.h"
#include "device.h"
#include "fr.h"
#include "mcast.h"
#include "mr.h"
#include "mw.h"
#include "pd.h"
#include "qp.h"
#include "queue.h"
#include "srq.h"
#include "verbs.h"

static int sroce_alloc_ucontext(struct ib_ucontext *ibuctx,
				struct ib_udata *udata)
{
	struct sroce_alloc_context_resp resp = {
		.abi_version = SROCE_ABI_VERSION,
	};

	return sroce_copy_resp(udata, &resp, sizeof(resp));
}

static void sroce_dealloc_ucontext(struct ib_ucontext *ibuctx)
{
}

/*
 * Hot unplug (netdev gone, rdma link del) with processes still holding the
 * device open.  ib_core zaps the ring mappings made through the
 * rdma_user_mmap entries and destroys every object; nothing driver-side
 * remains to release.  The op must exist, or ib_core waits for every user
 * to close the device instead of disassociating them.
 */
static void sroce_disassociate_ucontext(struct ib_ucontext *ibuctx)
{
}

const struct ib_device_ops sroce_verbs_ops = {
	.alloc_ucontext = sroce_alloc_ucontext,
	.dealloc_ucontext = sroce_dealloc_ucontext,
	.disassociate_ucontext = sroce_disassociate_ucontext,
	.mmap = sroce_queue_mmap,
	.mmap_free = sroce_queue_mmap_free,

	.alloc_pd = sroce_alloc_pd,
	.dealloc_pd = sroce_dealloc_pd,

	.get_dma_mr = sroce_get_dma_mr,
	.reg_user_mr = sroce_reg_user_mr,
	.dereg_mr = sroce_dereg_mr,
	.alloc_mr = sroce_alloc_mr,
	.map_mr_sg = sroce_map_mr_sg,
	.alloc_mw = sroce_alloc_mw,
	.dealloc_mw = sroce_dealloc_mw,

	.create_cq = sroce_compat_create_cq,
	.destroy_cq = sroce_destroy_cq,
	.resize_cq = sroce_resize_cq,
	.req_notify_cq = sroce_req_notify_cq,
	.poll_cq = sroce_poll_cq,

	.create_qp = sroce_create_qp,
	.modify_qp = sroce_modify_qp,
	.query_qp = sroce_query_qp,
	.destroy_qp = sroce_destroy_qp,
	.post_send = sroce_post_send,
	.post_recv = sroce_post_recv,
	.attach_mcast = sroce_attach_mcast,
	.detach_mcast = sroce_detach_mcast,

	.create_srq = sroce_create_srq,
	.modify_srq = sroce_modify_srq,
	.query_srq = sroce_query_srq,
	.destroy_srq = sroce_destroy_srq,
	.post_srq_recv = sroce_post_srq_recv,

	.create_ah = sroce_create_ah,
	.create_user_ah = sroce_create_ah,
	.destroy_ah = sroce_destroy_ah,
	.query_ah = sroce_query_ah,

	INIT_RDMA_OBJ_SIZE(ib_ah, sroce_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, sroce_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, sroce_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, sroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, sroce_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, sroce_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sroce_ucontext, ibuctx),
};

int sroce_verbs_dev_init(struct sroce_dev *sdev)
{
	xa_init_flags(&sdev->mr_xa, XA_FLAGS_ALLOC1);
	sdev->mr_next = 1;
	return 0;
}

void sroce_verbs_dev_fini(struct sroce_dev *sdev)
{
	/* ib_core destroyed every MR before dealloc_driver. */
	WARN_ON(!xa_empty(&sdev->mr_xa));
	xa_destroy(&sdev->mr_xa);
}
