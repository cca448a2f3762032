// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs.c - sroce's control-path verbs.
 *
 * Each verb is a thin wrapper over the libibverbs ibv_cmd_* helper that asks
 * the kernel to do the work; sroce only adds its driver data (the create
 * responses below) and, for CQs and QPs, maps the rings the kernel made.
 * Every create undoes exactly what it did when a later step fails, in
 * reverse order, so a failed verb leaves no kernel object, mapping or memory.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rdma/sroce-abi.h>

#include "poll.h"
#include "sroce.h"
#include "verbs.h"
#include "wr.h"

/*
 * Responses: the kernel's core response, then sroce's driver data
 * (sroce-abi.h).  The helpers locate the driver data right after the core
 * struct, so there must be no padding between the two.
 */
#define SROCE_RESP(name, core_resp, drv_resp)                                 \
	struct name {                                                         \
		struct core_resp ibv_resp;                                    \
		struct drv_resp drv;                                          \
	};                                                                    \
	static_assert(offsetof(struct name, drv) == sizeof(struct core_resp), \
		      #name ": padding before driver data");                  \
	static_assert(sizeof(struct name) == sizeof(struct core_resp) +       \
						     sizeof(struct drv_resp), \
		      #name ": padding after driver data")

SROCE_RESP(sroce_create_cq_uresp, ib_uverbs_create_cq_resp,
	   sroce_create_cq_resp);
SROCE_RESP(sroce_create_cq_ex_uresp, ib_uverbs_ex_create_cq_resp,
	   sroce_create_cq_resp);
SROCE_RESP(sroce_resize_cq_uresp, ib_uverbs_resize_cq_resp,
	   sroce_resize_cq_resp);
SROCE_RESP(sroce_create_qp_uresp, ib_uverbs_create_qp_resp,
	   sroce_create_qp_resp);
SROCE_RESP(sroce_create_qp_ex_uresp, ib_uverbs_ex_create_qp_resp,
	   sroce_create_qp_resp);
SROCE_RESP(sroce_create_ah_uresp, ib_uverbs_create_ah_resp,
	   sroce_create_ah_resp);

/* Extended-CQ creation features sroce supports (others: EOPNOTSUPP). */
#define SROCE_CQ_INIT_ATTR_MASK \
	(IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD)
#define SROCE_CQ_CREATE_FLAGS IBV_CREATE_CQ_ATTR_SINGLE_THREADED

/*
 * Extended-QP creation features.  IBV_QP_INIT_ATTR_SEND_OPS_FLAGS gives
 * the QP the ibv_wr_* API (wr.c).
 */
#define SROCE_QP_INIT_ATTR_MASK                                \
	(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS | \
	 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)

/* ---- Device and port ---- */

int sroce_query_device_ex(struct ibv_context *ibctx,
			  const struct ibv_query_device_ex_input *input,
			  struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int ret;

	ret = ibv_cmd_query_device_any(ibctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;

	/* The kernel reports fw_ver as major.minor.sub in 16-bit fields. */
	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)(fw >> 32) & 0xffff,
		 (unsigned int)(fw >> 16) & 0xffff, (unsigned int)fw & 0xffff);
	return 0;
}

int sroce_query_port(struct ibv_context *ibctx, uint8_t port_num,
		     struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd = {};

	return ibv_cmd_query_port(ibctx, port_num, attr, &cmd, sizeof(cmd));
}

/* ---- Protection domains ---- */

struct ibv_pd *sroce_alloc_pd(struct ibv_context *ibctx)
{
	struct ib_uverbs_alloc_pd_resp resp = {};
	struct ibv_alloc_pd cmd = {};
	struct ibv_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}

	ret = ibv_cmd_alloc_pd(ibctx, pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return pd;
}

int sroce_dealloc_pd(struct ibv_pd *pd)
{
	int ret;

	ret = ibv_cmd_dealloc_pd(pd);
	if (ret)
		return ret;
	free(pd);
	return 0;
}

/* ---- Memory regions ---- */

struct ibv_mr *sroce_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			    uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp = {};
	struct ibv_reg_mr cmd = {};
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}

	ret = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	/* ibv_bind_mw reads MW_BIND here (mw.c); sroce has no rereg_mr. */
	vmr->access = access;
	return &vmr->ibv_mr;
}

int sroce_dereg_mr(struct verbs_mr *vmr)
{
	int ret;

	ret = ibv_cmd_dereg_mr(vmr);
	if (ret)
		return ret;
	free(vmr);
	return 0;
}

/* ---- Completion queues ---- */

/*
 * Map the CQ ring the kernel made for @scq.  It must hold at least cqe
 * entries (what the kernel granted, already in scq->vcq.cq.cqe), each a
 * whole struct sroce_cqe.
 */
static int sroce_cq_map(struct sroce_cq *scq, int cmd_fd,
			const struct sroce_create_cq_resp *drv)
{
	int cqe = scq->vcq.cq.cqe;

	if (cqe < 0)
		return EPROTO;
	return sroce_queue_map(&scq->ring, cmd_fd, drv->mmap_offset,
			       drv->mmap_size, (uint32_t)cqe,
			       sizeof(struct sroce_cqe));
}

static struct sroce_cq *sroce_cq_alloc(void)
{
	struct sroce_cq *scq;

	scq = calloc(1, sizeof(*scq));
	if (!scq)
		return NULL;
	if (pthread_spin_init(&scq->lock, PTHREAD_PROCESS_PRIVATE)) {
		free(scq);
		return NULL;
	}
	return scq;
}

static void sroce_cq_free(struct sroce_cq *scq)
{
	unsigned int i;

	for (i = 0; i < scq->nretired; i++)
		munmap(scq->retired[i].addr, scq->retired[i].size);
	free(scq->retired);
	pthread_spin_destroy(&scq->lock);
	free(scq);
}

struct ibv_cq *sroce_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector)
{
	struct sroce_create_cq_uresp resp = {};
	struct ibv_create_cq cmd = {};
	struct sroce_cq *scq;
	int ret;

	scq = sroce_cq_alloc();
	if (!scq) {
		errno = ENOMEM;
		return NULL;
	}

	ret = ibv_cmd_create_cq(ibctx, cqe, channel, comp_vector, &scq->vcq.cq,
				&cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (ret)
		goto err_free;

	ret = sroce_cq_map(scq, ibctx->cmd_fd, &resp.drv);
	if (ret)
		goto err_destroy;
	return &scq->vcq.cq;

err_destroy:
	ibv_cmd_destroy_cq(&scq->vcq.cq);
err_free:
	sroce_cq_free(scq);
	errno = ret;
	return NULL;
}

struct ibv_cq_ex *sroce_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr)
{
	struct sroce_create_cq_ex_uresp resp = {};
	struct ibv_create_cq_ex cmd = {};
	struct sroce_cq *scq;
	int ret;

	if (attr->comp_mask & ~SROCE_CQ_INIT_ATTR_MASK ||
	    attr->wc_flags & ~SROCE_CQ_EX_WC_FLAGS ||
	    (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS &&
	     attr->flags & ~SROCE_CQ_CREATE_FLAGS)) {
		errno = EOPNOTSUPP;
		return NULL;
	}

	scq = sroce_cq_alloc();
	if (!scq) {
		errno = ENOMEM;
		return NULL;
	}

	ret = ibv_cmd_create_cq_ex(ibctx, attr, &scq->vcq, &cmd, sizeof(cmd),
				   &resp.ibv_resp, sizeof(resp), 0);
	if (ret)
		goto err_free;

	ret = sroce_cq_map(scq, ibctx->cmd_fd, &resp.drv);
	if (ret)
		goto err_destroy;

	scq->wc_flags = attr->wc_flags;
	sroce_cq_ex_set_ops(&scq->vcq.cq_ex, scq->wc_flags);
	return &scq->vcq.cq_ex;

err_destroy:
	ibv_cmd_destroy_cq(&scq->vcq.cq);
err_free:
	sroce_cq_free(scq);
	errno = ret;
	return NULL;
}

/*
 * The kernel builds the new ring, moves the unpolled CQEs into it and
 * switches to it before answering; we then swap mappings under the
 * consumer lock so no poller sees half of each.  If the new ring cannot be
 * mapped the kernel has already moved on: the old mapping is kept (its
 * pages stay valid while mapped) so nothing dangles, and the error is
 * returned; the CQ then reports nothing new and should be destroyed.
 * The consumer lock is held across the command on purpose (as mlx5 does):
 * the kernel copies the unpolled CQEs into the new ring, so a poll of the
 * old ring during the command would return them a second time later.
 * Pollers spin for the length of one system call; resize is rare.
 */
int sroce_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct sroce_cq *scq = to_scq(ibcq);
	struct sroce_resize_cq_uresp resp = {};
	struct sroce_cq_retired *retired;
	struct ibv_resize_cq cmd = {};
	struct sroce_queue ring, old;
	int ret;

	pthread_spin_lock(&scq->lock);
	/* Room to keep the old ring's header before anything changes. */
	retired = realloc(scq->retired,
			  (scq->nretired + 1) * sizeof(*scq->retired));
	if (!retired) {
		ret = ENOMEM;
		goto out;
	}
	scq->retired = retired;
	ret = ibv_cmd_resize_cq(ibcq, cqe, &cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (ret)
		goto out;

	ret = ibcq->cqe < 0 ?
		      EPROTO :
		      sroce_queue_map(&ring, ibcq->context->cmd_fd,
				      resp.drv.mmap_offset, resp.drv.mmap_size,
				      (uint32_t)ibcq->cqe,
				      sizeof(struct sroce_cqe));
	if (ret)
		goto out;

	/*
	 * A poll checking for emptiness without the lock may have read the
	 * old header's address: swap first, then leave an empty ring there.
	 */
	old = scq->ring;
	scq->ring = ring;
	retired[scq->nretired].addr = old.hdr;
	retired[scq->nretired].size = sroce_queue_retire(&old);
	scq->nretired++;
out:
	pthread_spin_unlock(&scq->lock);
	return ret;
}

int sroce_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	return ibv_cmd_req_notify_cq(ibcq, solicited_only);
}

int sroce_destroy_cq(struct ibv_cq *ibcq)
{
	struct sroce_cq *scq = to_scq(ibcq);
	int ret;

	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;

	sroce_queue_unmap(&scq->ring);
	sroce_cq_free(scq);
	return 0;
}

/* ---- Queue pairs ---- */

/* Bytes one SQ slot must hold for the capabilities the kernel granted. */
static uint32_t sroce_sq_slot_min(const struct ibv_qp_cap *cap)
{
	uint64_t sges = (uint64_t)cap->max_send_sge * sizeof(struct sroce_sge);
	uint64_t data = sges > cap->max_inline_data ? sges :
						      cap->max_inline_data;
	uint64_t need = sizeof(struct sroce_send_wqe) + data;

	/* Absurd grants make the ring check fail rather than wrap. */
	return need > UINT32_MAX ? UINT32_MAX : (uint32_t)need;
}

static uint32_t sroce_rq_slot_min(const struct ibv_qp_cap *cap)
{
	uint64_t need = sizeof(struct sroce_recv_wqe) +
			(uint64_t)cap->max_recv_sge * sizeof(struct sroce_sge);

	return need > UINT32_MAX ? UINT32_MAX : (uint32_t)need;
}

/*
 * Map the SQ and (unless the QP receives through an SRQ) the RQ the kernel
 * made, checking each holds what @cap (as granted) promises.  On failure
 * nothing stays mapped.
 */
static int sroce_qp_map(struct sroce_qp *sqp, int cmd_fd,
			const struct ibv_qp_cap *cap, bool has_srq,
			const struct sroce_create_qp_resp *drv)
{
	int ret;

	ret = sroce_queue_map(&sqp->sq, cmd_fd, drv->sq_mmap_offset,
			      drv->sq_mmap_size, cap->max_send_wr,
			      sroce_sq_slot_min(cap));
	if (ret)
		return ret;

	if (drv->rq_mmap_size) {
		ret = sroce_queue_map(&sqp->rq, cmd_fd, drv->rq_mmap_offset,
				      drv->rq_mmap_size, cap->max_recv_wr,
				      sroce_rq_slot_min(cap));
		if (ret)
			goto err_unmap_sq;
	} else if (!has_srq && cap->max_recv_wr) {
		/* Receives were granted but there is nowhere to post them. */
		ret = EPROTO;
		goto err_unmap_sq;
	}

	sqp->max_inline_data = drv->max_inline_data;
	sqp->max_send_sge = cap->max_send_sge;
	sqp->max_recv_sge = cap->max_recv_sge;
	return 0;

err_unmap_sq:
	sroce_queue_unmap(&sqp->sq);
	return ret;
}

static struct sroce_qp *sroce_qp_alloc(void)
{
	struct sroce_qp *sqp;

	sqp = calloc(1, sizeof(*sqp));
	if (!sqp)
		return NULL;
	if (pthread_spin_init(&sqp->sq_lock, PTHREAD_PROCESS_PRIVATE))
		goto err_free;
	if (pthread_spin_init(&sqp->rq_lock, PTHREAD_PROCESS_PRIVATE))
		goto err_destroy_sq_lock;
	return sqp;

err_destroy_sq_lock:
	pthread_spin_destroy(&sqp->sq_lock);
err_free:
	free(sqp);
	return NULL;
}

static void sroce_qp_free(struct sroce_qp *sqp)
{
	pthread_spin_destroy(&sqp->rq_lock);
	pthread_spin_destroy(&sqp->sq_lock);
	free(sqp);
}

struct ibv_qp *sroce_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct sroce_create_qp_uresp resp = {};
	struct ibv_create_qp cmd = {};
	struct sroce_qp *sqp;
	int ret;

	sqp = sroce_qp_alloc();
	if (!sqp) {
		errno = ENOMEM;
		return NULL;
	}

	/* On success the helper writes the granted capabilities to attr. */
	ret = ibv_cmd_create_qp(pd, &sqp->vqp.qp, attr, &cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;

	ret = sroce_qp_map(sqp, pd->context->cmd_fd, &attr->cap, attr->srq,
			   &resp.drv);
	if (ret)
		goto err_destroy;
	sqp->sq_sig_all = attr->sq_sig_all;
	return &sqp->vqp.qp;

err_destroy:
	ibv_cmd_destroy_qp(&sqp->vqp.qp);
err_free:
	sroce_qp_free(sqp);
	errno = ret;
	return NULL;
}

struct ibv_qp *sroce_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr)
{
	struct sroce_create_qp_ex_uresp resp = {};
	struct ibv_create_qp_ex cmd = {};
	struct sroce_qp *sqp;
	int ret;

	if (attr->comp_mask & ~SROCE_QP_INIT_ATTR_MASK) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* Checked before the kernel is asked: a refusal leaves nothing. */
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		ret = sroce_wr_check_send_ops(attr->qp_type,
					      attr->send_ops_flags);
		if (ret) {
			errno = ret;
			return NULL;
		}
	}

	sqp = sroce_qp_alloc();
	if (!sqp) {
		errno = ENOMEM;
		return NULL;
	}

	ret = ibv_cmd_create_qp_ex2(ibctx, &sqp->vqp, attr, &cmd, sizeof(cmd),
				    &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;

	ret = sroce_qp_map(sqp, ibctx->cmd_fd, &attr->cap, attr->srq,
			   &resp.drv);
	if (ret)
		goto err_destroy;
	sqp->sq_sig_all = attr->sq_sig_all;
	/* Without send_ops_flags ibv_qp_to_qp_ex() keeps returning NULL. */
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		sroce_wr_set_ops(sqp, attr->send_ops_flags);
		sqp->vqp.comp_mask |= VERBS_QP_EX;
	}
	return &sqp->vqp.qp;

err_destroy:
	ibv_cmd_destroy_qp(&sqp->vqp.qp);
err_free:
	sroce_qp_free(sqp);
	errno = ret;
	return NULL;
}

int sroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask)
{
	struct ibv_modify_qp cmd = {};

	return ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
}

int sroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int attr_mask,
		   struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd = {};

	return ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

int sroce_destroy_qp(struct ibv_qp *ibqp)
{
	struct sroce_qp *sqp = to_sqp(ibqp);
	int ret;

	ret = ibv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;

	sroce_queue_unmap(&sqp->rq);
	sroce_queue_unmap(&sqp->sq);
	sroce_qp_free(sqp);
	return 0;
}

/* ---- Address handles ---- */

struct ibv_ah *sroce_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct sroce_create_ah_uresp resp = {};
	struct sroce_ah *sah;
	int ret;

	sah = calloc(1, sizeof(*sah));
	if (!sah) {
		errno = ENOMEM;
		return NULL;
	}

	ret = ibv_cmd_create_ah(pd, &sah->ibv_ah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (ret) {
		free(sah);
		errno = ret;
		return NULL;
	}

	sah->ah_num = resp.drv.ah_num;
	return &sah->ibv_ah;
}

int sroce_destroy_ah(struct ibv_ah *ibah)
{
	int ret;

	ret = ibv_cmd_destroy_ah(ibah);
	if (ret)
		return ret;
	free(to_sah(ibah));
	return 0;
}
