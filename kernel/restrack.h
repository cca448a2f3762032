/* SPDX-License-Identifier: GPL-2.0 */
/*
 * restrack.h - driver attributes of a QP for `rdma -dd resource show qp`:
 * the transport state a user (or a bug report) needs to see why a QP does
 * not move: sequence numbers, ring indices, waiting packets.
 */
#ifndef _SROCE_RESTRACK_H
#define _SROCE_RESTRACK_H

#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>

struct sroce_qp;

/* rdma resource show cq -dd: ring indices (fill_res_cq_entry). */
extern const struct ib_device_ops sroce_restrack_dev_ops;

/* Appends to an open RDMA_NLDEV_ATTR_DRIVER nest; -EMSGSIZE if full. */
int sroce_restrack_fill_qp(struct sk_buff *msg, struct sroce_qp *qp);

#endif /* _SROCE_RESTRACK_H */
