/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * srq.h - shared receive queues (srq.c).
 *
 * The SRQ ring is made by sroce.ko and mapped here; post_srq_recv is pure
 * user space (the responders of the attached QPs consume in the kernel),
 * like post_recv on a QP's RQ.
 */
#ifndef SROCE_PROVIDER_SRQ_H
#define SROCE_PROVIDER_SRQ_H

#include <pthread.h>

#include "abi.h"
#include "queue.h"

struct sroce_srq {
	struct ibv_srq ibv_srq; /* must be first: libibverbs' view */
	pthread_spinlock_t lock; /* serialises producers of ring */
	struct sroce_queue ring; /* guarded by lock; kernel consumes */
	uint32_t max_sge; /* as granted, constant */
};
static_assert(offsetof(struct sroce_srq, ibv_srq) == 0,
	      "sroce_srq.ibv_srq first");

static inline struct sroce_srq *to_ssrq(struct ibv_srq *ibsrq)
{
	return (struct sroce_srq *)ibsrq;
}

struct ibv_srq *sroce_create_srq(struct ibv_pd *pd,
				 struct ibv_srq_init_attr *attr);
int sroce_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		     int attr_mask);
int sroce_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr);
int sroce_destroy_srq(struct ibv_srq *ibsrq);
int sroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr);

#endif /* SROCE_PROVIDER_SRQ_H */
