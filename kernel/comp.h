/* SPDX-License-Identifier: GPL-2.0 */
/*
 * comp.h - the completer: processes ACKs, NAKs, READ responses and atomic
 * ACKs of an RC QP, runs the retransmit and RNR timers and posts send
 * completions.  Runs on the SEND side of the QP, under qp->req.lock.
 */
#ifndef _SROCE_COMP_H
#define _SROCE_COMP_H

#include <linux/skbuff.h>

struct sroce_qp;

/*
 * Response-class opcodes (ACK, READ response *, ATOMIC ACK) for an RC QP;
 * takes ownership of @skb; softirq.
 */
void sroce_comp_rx(struct sroce_qp *qp, struct sk_buff *skb);

/* create: set up the retransmit, RNR, tail and hold timers of qp->req. */
void sroce_comp_timers_setup(struct sroce_qp *qp);
/*
 * The local queue refused the packet at req.psn, taken back: cut the
 * window and hold the requester for a tick or more (RC; req.h).
 */
void sroce_comp_local_drop(struct sroce_qp *qp);
/*
 * A CNP the reaction point handled, cnp_window_cut set: cut the window
 * (RC; softirq; made by whoever holds req.lock, never waits for it).
 */
void sroce_comp_cnp(struct sroce_qp *qp);
/* A request packet went out: make sure the retransmit timer runs. */
void sroce_comp_arm_retrans(struct sroce_qp *qp);
/* Give the oldest unacknowledged packet a whole timeout from now. */
void sroce_comp_retrans_restart(struct sroce_qp *qp);
/*
 * ERR and RESET: drop the responses that wait in req.backlog, counted
 * (comp_drop_bad), also with interrupts off.
 */
void sroce_comp_drop_backlog(struct sroce_qp *qp);

#endif /* _SROCE_COMP_H */
