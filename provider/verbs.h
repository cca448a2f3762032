/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * verbs.h - sroce's control-path verbs and the objects they create.
 *
 * Owned by verbs.c: every object is created and destroyed through the
 * libibverbs ibv_cmd_* helpers (the kernel does the work), plus the ring
 * mappings of CQs and QPs.  The data path (post.c, poll.c) reads these
 * structs; the lock comments say what it must hold.
 *
 * Error convention (libibverbs'): verbs returning a pointer set errno and
 * return NULL; verbs returning int return a positive errno.  Either way a
 * failed call leaves nothing behind: no kernel object, no mapping, no memory.
 */
#ifndef SROCE_PROVIDER_VERBS_H
#define SROCE_PROVIDER_VERBS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "abi.h"
#include "queue.h"

/* A ring header resize_cq replaced, still mapped (sroce_queue_retire()). */
struct sroce_cq_retired {
	void *addr;
	size_t size;
};

struct sroce_cq {
	struct verbs_cq vcq; /* must be first: libibverbs' view of the CQ */
	/*
	 * Serialises the consumer side of ring (poll_cq, the cq_ex poll
	 * calls) and resize_cq, which replaces ring.
	 */
	pthread_spinlock_t lock;
	struct sroce_queue ring; /* guarded by lock; kernel produces */
	/*
	 * The headers of the rings resize_cq replaced, left mapped (as
	 * empty rings) for lockless empty checks that may still read them
	 * (poll.c); unmapped by destroy.  Guarded by lock.
	 */
	struct sroce_cq_retired *retired;
	unsigned int nretired;
	uint64_t wc_flags; /* IBV_WC_EX_WITH_* asked at create_cq_ex */
	/*
	 * The entry an extended-CQ poll (start_poll .. end_poll) is reading,
	 * copied out of the ring (whose slot is already given back).  Guarded
	 * by lock, which is held from a successful start_poll to end_poll.
	 */
	struct sroce_cqe cur;
};

/*
 * The ibv_wr_* batch being built (wr.c).  Valid from wr_start to
 * wr_complete/wr_abort, which is exactly the time sq_lock is held: the
 * lock guards it.
 */
struct sroce_wr_batch {
	struct sroce_send_wqe *cur; /* WQE being built (unpublished slot) */
	uint32_t prod; /* SQ prod at wr_start: slot of the first WQE */
	uint32_t space; /* free SQ slots at wr_start */
	uint32_t count; /* WQEs begun since wr_start */
	int err; /* first invalid argument since wr_start, 0 if none */
	bool has_ud_addr; /* cur was given wr_set_ud_addr */
};

struct sroce_qp {
	struct verbs_qp vqp; /* must be first: libibverbs' view of the QP */
	pthread_spinlock_t sq_lock; /* serialises producers of sq */
	struct sroce_queue sq; /* guarded by sq_lock; kernel consumes */
	pthread_spinlock_t rq_lock; /* serialises producers of rq */
	struct sroce_queue rq; /* guarded by rq_lock; unmapped with SRQ */
	uint32_t max_inline_data; /* as granted by the kernel */
	/* Granted at create, constant afterwards (post.c validates with them). */
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	bool sq_sig_all; /* every send WQE asks for a completion */
	uint64_t send_ops; /* IBV_QP_EX_WITH_* of create_qp_ex, constant */
	struct sroce_wr_batch wr; /* guarded by sq_lock */
};

struct sroce_ah {
	struct ibv_ah ibv_ah; /* must be first */
	uint32_t ah_num; /* names the AH in UD send WQEs */
};

/* The to_*() casts below rely on the libibverbs object coming first. */
static_assert(offsetof(struct sroce_cq, vcq) == 0, "sroce_cq.vcq first");
static_assert(offsetof(struct sroce_qp, vqp) == 0, "sroce_qp.vqp first");
static_assert(offsetof(struct sroce_ah, ibv_ah) == 0, "sroce_ah.ibv_ah first");

static inline struct sroce_cq *to_scq(struct ibv_cq *ibcq)
{
	return (struct sroce_cq *)ibcq;
}

static inline struct sroce_cq *ex_to_scq(struct ibv_cq_ex *ibcq)
{
	return (struct sroce_cq *)ibcq;
}

static inline struct sroce_qp *to_sqp(struct ibv_qp *ibqp)
{
	return (struct sroce_qp *)ibqp;
}

static inline struct sroce_ah *to_sah(struct ibv_ah *ibah)
{
	return (struct sroce_ah *)ibah;
}

int sroce_query_device_ex(struct ibv_context *ibctx,
			  const struct ibv_query_device_ex_input *input,
			  struct ibv_device_attr_ex *attr, size_t attr_size);
int sroce_query_port(struct ibv_context *ibctx, uint8_t port_num,
		     struct ibv_port_attr *attr);

struct ibv_pd *sroce_alloc_pd(struct ibv_context *ibctx);
int sroce_dealloc_pd(struct ibv_pd *pd);

struct ibv_mr *sroce_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			    uint64_t hca_va, int access);
int sroce_dereg_mr(struct verbs_mr *vmr);

struct ibv_cq *sroce_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector);
struct ibv_cq_ex *sroce_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr);
int sroce_resize_cq(struct ibv_cq *ibcq, int cqe);
int sroce_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
int sroce_destroy_cq(struct ibv_cq *ibcq);

struct ibv_qp *sroce_create_qp(struct ibv_pd *pd,
			       struct ibv_qp_init_attr *attr);
struct ibv_qp *sroce_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr);
int sroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask);
int sroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int attr_mask,
		   struct ibv_qp_init_attr *init_attr);
int sroce_destroy_qp(struct ibv_qp *ibqp);

struct ibv_ah *sroce_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int sroce_destroy_ah(struct ibv_ah *ibah);

#endif /* SROCE_PROVIDER_VERBS_H */
