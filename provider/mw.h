/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * mw.h - memory windows (mw.c): alloc/dealloc through the ibv_cmd_*
 * helpers, and ibv_bind_mw for type 1 windows, which posts a BIND_MW WQE
 * (the same one ibv_post_send(IBV_WR_BIND_MW) and ibv_wr_bind_mw post for
 * type 2 windows).  sroce.ko executes the binding in send order.
 */
#ifndef SROCE_PROVIDER_MW_H
#define SROCE_PROVIDER_MW_H

#include <infiniband/verbs.h>

struct ibv_mw *sroce_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int sroce_dealloc_mw(struct ibv_mw *mw);
int sroce_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		  struct ibv_mw_bind *mw_bind);

#endif /* SROCE_PROVIDER_MW_H */
