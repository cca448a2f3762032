/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * post.h - posting work requests to the SQ and RQ rings (post.c).
 *
 * post_send writes WQEs into the mapped SQ and rings one doorbell (an
 * empty ib_uverbs POST_SEND) per call; post_recv only writes the RQ.
 * Convention (libibverbs'): return 0 or a positive errno and point
 * *bad_wr at the first request that was not posted.
 */
#ifndef SROCE_PROVIDER_POST_H
#define SROCE_PROVIDER_POST_H

#include <stdbool.h>

#include <infiniband/verbs.h>
#include <rdma/sroce-abi.h>

/* Ring the SQ doorbell (no lock needed); 0 or a positive errno. */
int sroce_sq_doorbell(struct ibv_qp *ibqp);
/* May send WRs be posted to a QP in @state (IBA 10.3.1)? */
bool sroce_sq_state_ok(enum ibv_qp_state state);

/* BIND_MW (mw.c, wr.c): check a binding; encode it into a WQE header. */
int sroce_bind_check(const struct ibv_mw *mw, const struct ibv_mw_bind_info *bi,
		     unsigned int flags);
void sroce_bind_wqe(struct sroce_send_wqe *w, const struct ibv_mw *mw,
		    uint32_t rkey, const struct ibv_mw_bind_info *bi);

/* Encode @wr (num_sge already checked) as a receive WQE into @slot. */
void sroce_recv_wqe_fill(void *slot, const struct ibv_recv_wr *wr);

int sroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr);
int sroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr);

#endif /* SROCE_PROVIDER_POST_H */
