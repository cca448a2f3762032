/* SPDX-License-Identifier: GPL-2.0 */
/*
 * req_pkt.h - building and sending the requester's packets (req_pkt.c).
 * Everything here runs under qp->req.lock.
 */
#ifndef _SROCE_REQ_PKT_H
#define _SROCE_REQ_PKT_H

#include <linux/types.h>
#include <rdma/sroce-abi.h>

#include "req.h"

struct sroce_qp;

/*
 * Ask for an ACK at least every this many packets, and on the last packet
 * of a signaled message, of a resent one, and of any message while
 * ack_coalesce is off (sroce_req_fill_hdrs()).
 */
#define SROCE_REQ_ACKREQ_EVERY 32

/*
 * Send the next packet of the WQE at req.next.  Returns 0, -EAGAIN to stop
 * for now (allocation failure: retried from the work item) or -EIO after a
 * fatal local error.
 */
int sroce_req_send_one(struct sroce_qp *qp, struct sroce_swqe *swqe);

/*
 * Send up to @max packets of the WQE at req.next as one batch, if the
 * WQE may go out in batches (RC/UC SEND or WRITE with at least two
 * packets left, the QP not paced, tx_batch on).  Returns the number of
 * packets sent, 0 if no batch was possible (the caller sends one packet
 * with sroce_req_send_one(), which also reports a bad local SGE), or
 * -EAGAIN (no memory).
 */
int sroce_req_send_batch(struct sroce_qp *qp, struct sroce_swqe *swqe, u32 max);

/*
 * An ACK acknowledged every PSN before @una, beyond req.psn after a
 * go-back-N: move the requester past what it need not send again.
 */
void sroce_req_catch_up(struct sroce_qp *qp, u32 una);

/*
 * The completer took a response of the READ at req.next (== req.done)
 * after a go-back-N rewound the requester into it, before its request
 * went again: the request asks only for the rest, or not at all.
 */
void sroce_req_read_catch_up(struct sroce_qp *qp, struct sroce_swqe *swqe);

#endif /* _SROCE_REQ_PKT_H */
