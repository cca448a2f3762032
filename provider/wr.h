/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * wr.h - the extended send API (ibv_wr_*) of QPs made by ibv_create_qp_ex
 * with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS (wr.c).
 *
 * A batch is built between wr_start and wr_complete/wr_abort with sq_lock
 * held throughout; WQEs are written straight into SQ slots that are not
 * published yet, and wr_complete publishes the whole batch with one
 * store-release of prod and rings one doorbell.  Any invalid argument seen
 * while building makes wr_complete return it and publish nothing
 * (ibv_wr_post(3): "the entire posting will be aborted").
 */
#ifndef SROCE_PROVIDER_WR_H
#define SROCE_PROVIDER_WR_H

#include <stdint.h>

#include <infiniband/verbs.h>

struct sroce_qp;

/*
 * Can a QP of @type be created with @send_ops (IBV_QP_EX_WITH_*)?  0,
 * EOPNOTSUPP for operations sroce does not execute at all, EINVAL for
 * operations the QP type cannot carry (IBA Table 28).
 */
int sroce_wr_check_send_ops(enum ibv_qp_type type, uint64_t send_ops);

/* Fill the ibv_wr_* callbacks of @sqp for the operations in @send_ops. */
void sroce_wr_set_ops(struct sroce_qp *sqp, uint64_t send_ops);

#endif /* SROCE_PROVIDER_WR_H */
