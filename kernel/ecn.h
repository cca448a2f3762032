/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ecn.h - ECN on transmit (ECT and DSCP of every packet) and the
 * notification point (a CE-marked packet makes the QP send a CNP).
 */
#ifndef _SROCE_ECN_H
#define _SROCE_ECN_H

#include <linux/skbuff.h>
#include <net/inet_ecn.h>

struct sroce_av;
struct sroce_dev;
struct sroce_qp;

/*
 * IP TOS / IPv6 traffic class of a packet with BTH @opcode sent with the
 * traffic class @tclass, and its skb priority in *@prio: DSCP from
 * @tclass or the device default, ECN bits per priority (DSCP >> 3); a CNP
 * gets cnp_dscp, cnp_802p_prio and the CNP ECN bits.
 */
u8 sroce_ecn_tos(struct sroce_dev *sdev, u8 tclass, u8 opcode, u32 *prio);

/* Priority (0..7) of the QP's traffic: DSCP >> 3. */
u8 sroce_ecn_qp_prio(struct sroce_qp *qp);

/*
 * Receive path (softirq or the receive work, BH disabled; QP reference
 * held; @skb still the caller's): a packet that carried CE passed the
 * checks of the QP's type (RC: from the peer, expected PSN or a response
 * in the window; UC: from the peer, expected PSN; UD: Q_Key, unicast).
 * Send a CNP to its source QP unless one left less than
 * min_time_between_cnps ago.  @peer, @peer_qpn: for RC/UC the QP's path
 * (qp->av) and destination QP, read under a lock that guards them or
 * from the responder's snapshot; ignored for UD/GSI (the CNP goes to the
 * packet's source).
 */
void sroce_ecn_np(struct sroce_qp *qp, struct sk_buff *skb,
		  const struct sroce_av *peer, u32 peer_qpn);

#endif /* _SROCE_ECN_H */
