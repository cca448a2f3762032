/* SPDX-License-Identifier: GPL-2.0 */
/*
 * restrack.h - driver attributes of a QP for `rdma -dd resource show qp`:
 * the transport state a user (or a bug report) needs to see why a QP does
 * not move: sequence numbers, ring indices, waiting packets.
 */
#ifndef _SROCE_RESTRACK_H
#define _SROCE_RESTRACK_H

#include <rdma/ib_verbs.h>

/*
 * fill_res_qp_entry (congestion control from cc.c, then the transport
 * state) and fill_res_cq_entry (ring indices).
 */
extern const struct ib_device_ops sroce_restrack_dev_ops;

#endif /* _SROCE_RESTRACK_H */
