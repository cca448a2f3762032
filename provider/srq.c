// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * srq.c - shared receive queues: create/modify/query/destroy through the
 * ibv_cmd_* helpers, and post_srq_recv on the mapped ring.
 *
 * A failed create leaves nothing (kernel object, mapping, memory), as in
 * verbs.c.  post_srq_recv validates each WR (EINVAL: more SGEs than the SRQ
 * holds; ENOMEM: ring full), points *bad_wr at the first one not posted and
 * publishes the others with one store-release of prod; no system call.
 */
#include <errno.h>
#include <stdlib.h>

#include <rdma/sroce-abi.h>

#include "post.h"
#include "srq.h"

struct sroce_create_srq_uresp {
	struct ib_uverbs_create_srq_resp ibv_resp;
	struct sroce_create_srq_resp drv;
};
static_assert(offsetof(struct sroce_create_srq_uresp, drv) ==
		      sizeof(struct ib_uverbs_create_srq_resp),
	      "sroce_create_srq_uresp: padding before driver data");
static_assert(sizeof(struct sroce_create_srq_uresp) ==
		      sizeof(struct ib_uverbs_create_srq_resp) +
			      sizeof(struct sroce_create_srq_resp),
	      "sroce_create_srq_uresp: padding after driver data");

static uint32_t sroce_srq_slot_min(uint32_t max_sge)
{
	return (uint32_t)(sizeof(struct sroce_recv_wqe) +
			  (uint64_t)max_sge * sizeof(struct sroce_sge));
}

struct ibv_srq *sroce_create_srq(struct ibv_pd *pd,
				 struct ibv_srq_init_attr *attr)
{
	struct sroce_create_srq_uresp resp = {};
	struct ibv_create_srq cmd = {};
	struct sroce_srq *ssrq;
	int ret;

	/* The kernel bounds these too; this keeps slot_min from wrapping. */
	if (attr->attr.max_sge > UINT16_MAX) {
		errno = EINVAL;
		return NULL;
	}
	ssrq = calloc(1, sizeof(*ssrq));
	if (!ssrq) {
		errno = ENOMEM;
		return NULL;
	}
	if (pthread_spin_init(&ssrq->lock, PTHREAD_PROCESS_PRIVATE)) {
		free(ssrq);
		errno = ENOMEM;
		return NULL;
	}

	/* On success the helper writes the granted max_wr/max_sge to attr. */
	ret = ibv_cmd_create_srq(pd, &ssrq->ibv_srq, attr, &cmd, sizeof(cmd),
				 &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;

	ret = sroce_queue_map(&ssrq->ring, pd->context->cmd_fd,
			      resp.drv.mmap_offset, resp.drv.mmap_size,
			      attr->attr.max_wr,
			      sroce_srq_slot_min(attr->attr.max_sge));
	if (ret)
		goto err_destroy;
	ssrq->max_sge = attr->attr.max_sge;
	return &ssrq->ibv_srq;

err_destroy:
	ibv_cmd_destroy_srq(&ssrq->ibv_srq);
err_free:
	pthread_spin_destroy(&ssrq->lock);
	free(ssrq);
	errno = ret;
	return NULL;
}

struct sroce_modify_srq_ucmd {
	struct ibv_modify_srq ibv_cmd;
	struct sroce_modify_srq_cmd drv;
};
static_assert(offsetof(struct sroce_modify_srq_ucmd, drv) ==
		      sizeof(struct ibv_modify_srq),
	      "sroce_modify_srq_ucmd: padding before driver data");

/*
 * IBV_SRQ_MAX_WR moves the posted WQEs to a new ring whose mapping the
 * kernel writes to resp (sroce-abi.h); posts wait on the lock meanwhile.
 * If the new ring cannot be mapped after the kernel switched to it, the
 * error is returned and the SRQ takes no new receives: destroy it.
 */
int sroce_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		     int attr_mask)
{
	struct sroce_srq *ssrq = to_ssrq(ibsrq);
	struct sroce_modify_srq_ucmd cmd = {};
	struct sroce_resize_srq_resp resp = {};
	struct sroce_queue ring;
	int ret;

	if (!(attr_mask & IBV_SRQ_MAX_WR))
		return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd.ibv_cmd,
					  sizeof(cmd.ibv_cmd));

	cmd.drv.resp_addr = (uintptr_t)&resp;
	pthread_spin_lock(&ssrq->lock);
	ret = ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd.ibv_cmd,
				 sizeof(cmd));
	if (!ret)
		ret = sroce_queue_map(&ring, ibsrq->context->cmd_fd,
				      resp.mmap_offset, resp.mmap_size,
				      attr->max_wr,
				      sroce_srq_slot_min(ssrq->max_sge));
	if (!ret) {
		sroce_queue_unmap(&ssrq->ring);
		ssrq->ring = ring;
	}
	pthread_spin_unlock(&ssrq->lock);
	return ret;
}

int sroce_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd = {};

	return ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
}

int sroce_destroy_srq(struct ibv_srq *ibsrq)
{
	struct sroce_srq *ssrq = to_ssrq(ibsrq);
	int ret;

	ret = ibv_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;
	sroce_queue_unmap(&ssrq->ring);
	pthread_spin_destroy(&ssrq->lock);
	free(ssrq);
	return 0;
}

int sroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	struct sroce_srq *ssrq = to_ssrq(ibsrq);
	struct sroce_queue *q = &ssrq->ring;
	uint32_t space, posted = 0, prod;
	int ret = 0;

	*bad_wr = NULL;
	if (!wr)
		return 0;

	pthread_spin_lock(&ssrq->lock);
	space = sroce_queue_prod_space(q);
	prod = atomic_load_explicit(sroce_queue_prod_ptr(q),
				    memory_order_relaxed);
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > ssrq->max_sge)
			ret = EINVAL;
		else if (posted == space)
			ret = ENOMEM;
		if (ret) {
			*bad_wr = wr;
			break;
		}
		sroce_recv_wqe_fill(sroce_queue_slot(q, prod + posted), wr);
		posted++;
	}
	if (posted)
		sroce_queue_prod_advance(q, posted);
	pthread_spin_unlock(&ssrq->lock);
	return ret;
}
