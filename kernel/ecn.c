// SPDX-License-Identifier: GPL-2.0
/*
 * ecn.c - ECN on transmit and the DCQCN notification point (Zhu et al.,
 * SIGCOMM 2015, section 3.1; RoCE v2 Annex A17 for the CNP format).
 *
 * Transmit: every packet carries ECT(0) unless ecn/roce_tx/ect/<prio> says
 * otherwise, or a RED queue would drop it instead of marking.  The ICRC
 * masks the whole TOS byte, so setting it after the ICRC is fine.
 *
 * Receive: a packet with CE that passed the checks of its QP's type, for
 * a QP whose priority has the NP enabled, makes that QP send a CNP to the
 * packet's source QP: the QP's peer (RC, UC) or the DETH source QP (UD),
 * at most once per min_time_between_cnps per QP (the throttle lives in
 * qp->cc.lock).  For UD the throttle is per receiving QP, not per source.
 * The caller decides what passed (resp.c, comp.c): a forged packet must
 * not make sroce throttle the QP's real peer, nor reflect CNPs to a
 * spoofed UD source, and a multicast packet makes no CNP at all (one per
 * attached QP would be an amplifier).  The RC/UC path and destination QP
 * come from the caller, read under a lock modify_qp writes them under
 * (req.lock, the completer) or copied under one (qp->lock, the
 * responder's snapshot): never a torn qp->av.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/ktime.h>
#include <net/dsfield.h>

#include "cc.h"
#include "counters.h"
#include "device.h"
#include "ecn.h"
#include "pkt.h"
#include "proto/hdr.h"
#include "proto/opcode.h"
#include "qp.h"
#include "recv.h"
#include "trace.h"

static u8 sroce_ecn_dscp(struct sroce_dev *sdev, u8 tclass)
{
	u8 dscp = tclass >> 2;

	return dscp ? dscp : READ_ONCE(sdev->cc->default_dscp);
}

u8 sroce_ecn_tos(struct sroce_dev *sdev, u8 tclass, u8 opcode, u32 *prio)
{
	struct sroce_cc_dev *cd = sdev->cc;
	u8 dscp;

	if (unlikely(opcode == SROCE_OP_CNP)) {
		*prio = READ_ONCE(cd->cnp_802p_prio);
		return READ_ONCE(cd->cnp_dscp) << 2 |
		       (READ_ONCE(cd->cnp_ecn) & INET_ECN_MASK);
	}
	dscp = sroce_ecn_dscp(sdev, tclass);
	*prio = dscp >> 3;
	return dscp << 2 | (READ_ONCE(cd->ect[dscp >> 3]) & INET_ECN_MASK);
}

u8 sroce_ecn_qp_prio(struct sroce_qp *qp)
{
	return sroce_ecn_dscp(qp->sdev, READ_ONCE(qp->av.tclass)) >> 3;
}

/* Where the CNP goes: back to the packet's source. */
static u32 sroce_ecn_cnp_dest(struct sroce_qp *qp, struct sk_buff *skb,
			      const struct sroce_av *peer, u32 peer_qpn,
			      struct sroce_av *av)
{
	struct sroce_rx_cb *cb = SROCE_RX_CB(skb);
	const struct sroce_deth *deth;

	if (qp->ibqp.qp_type == IB_QPT_RC || qp->ibqp.qp_type == IB_QPT_UC) {
		if (WARN_ON_ONCE(!peer))
			return 0;
		*av = *peer;
		/* The cached routes are for the data DSCP, not the CNP's. */
		av->dst_cache = NULL;
		return peer_qpn;
	}
	if (!sroce_opcode_has(cb->info, SROCE_EXT_DETH))
		return 0;
	deth = sroce_rx_ext(skb, SROCE_EXT_DETH);
	memset(av, 0, sizeof(*av));
	av->ntype = cb->ntype;
	if (cb->ntype == RDMA_NETWORK_IPV4) {
		av->saddr.v4 = ip_hdr(skb)->daddr;
		av->daddr.v4 = cb->saddr.v4;
	} else {
		av->saddr.v6 = ipv6_hdr(skb)->daddr;
		av->daddr.v6 = cb->saddr.v6;
	}
	return sroce_deth_srcqp(deth);
}

static void sroce_ecn_send_cnp(struct sroce_qp *qp, const struct sroce_av *av,
			       u32 dqpn)
{
	const struct sroce_opcode_info *oi = sroce_opcode_info(SROCE_OP_CNP);
	struct sroce_dev *sdev = qp->sdev;
	struct sk_buff *skb;

	skb = sroce_pkt_alloc(sdev, av, SROCE_OP_CNP, 0, GFP_ATOMIC);
	if (unlikely(!skb))
		return;
	sroce_cnp_init((struct sroce_bth *)skb->data,
		       sroce_opcode_ext(oi, skb->data, SROCE_EXT_CNP), dqpn);
	if (!sroce_pkt_xmit(sdev, av, sroce_qp_sport(qp), skb)) {
		sroce_counter_inc(sdev, SROCE_CNT_NP_CNP_SENT);
		trace_sroce_cnp_sent(qp->ibqp.qp_num, dqpn);
	}
}

void sroce_ecn_np(struct sroce_qp *qp, struct sk_buff *skb,
		  const struct sroce_av *peer, u32 peer_qpn)
{
	struct sroce_cc_dev *cd = qp->sdev->cc;
	struct sroce_qp_cc *cc = &qp->cc;
	unsigned long flags;
	struct sroce_av av;
	bool send;
	u64 now;
	u32 dqpn;

	trace_sroce_ce_rcvd(qp->ibqp.qp_num, SROCE_RX_CB(skb)->psn);
	if (!(READ_ONCE(cd->np_enable) & BIT(sroce_ecn_qp_prio(qp))))
		return;
	dqpn = sroce_ecn_cnp_dest(qp, skb, peer, peer_qpn, &av);
	if (unlikely(!dqpn))
		return;
	spin_lock_irqsave(&cc->lock, flags);
	now = ktime_get_ns();
	send = sroce_cc_np_may_send(cc->last_cnp, now,
				    (u64)READ_ONCE(cd->min_time_between_cnps) *
					    NSEC_PER_USEC);
	if (send)
		cc->last_cnp = now;
	spin_unlock_irqrestore(&cc->lock, flags);
	if (send)
		sroce_ecn_send_cnp(qp, &av, dqpn);
}
