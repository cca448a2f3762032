// SPDX-License-Identifier: GPL-2.0
/*
 * recv.c - receive classification and dispatch (IBA 9.6 packet header
 * validation; RoCE v2 Annex A17).
 *
 * Context: softirq, from the UDP encap handler of the device's namespace
 * (net.c), RCU read side held, skb->data at the UDP header.  The order of
 * checks follows IBA 9.6.1: transport header (opcode known, TVer 0,
 * headers and pad present), ICRC, P_Key, destination QP (exists, type
 * matches the opcode's transport, state receives).  The address check of
 * RC/UC packets (sroce_recv_from_peer()) needs the QP's path under a
 * lock: the responder, the completer and the CNP receive make it.  Every check on the
 * packet is unlikely() and each failure has its own counter; nothing a
 * peer sends is logged.
 *
 * The headers are pulled into the linear part (so that resp.c and comp.c
 * read them through plain pointers), the payload is not: it is copied to
 * its destination straight out of the fragments.  The ICRC is verified
 * over the fragments in place.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/dsfield.h>
#include <net/inet_ecn.h>

#include "cc.h"
#include "comp.h"
#include "counters.h"
#include "device.h"
#include "int.h"
#include "mcast.h"
#include "proto/hdr.h"
#include "proto/icrc.h"
#include "proto/opcode.h"
#include "pkt.h"
#include "qp.h"
#include "recv.h"
#include "resp.h"
#include "rxq.h"

#define SROCE_UDP_HLEN ((u32)sizeof(struct udphdr))

/* Low 15 bits of the default P_Key; the membership bit is ignored. */
#define SROCE_PKEY_BASE_MASK 0x7fffU

/* Hash bytes [@from, @to) of @skb into @ic, fragments in place. */
static bool sroce_recv_icrc_hash(struct sk_buff *skb, struct sroce_icrc *ic,
				 u32 from, u32 to)
{
	struct skb_seq_state st;
	const u8 *data;
	u32 done = 0;
	u32 n;

	/* skb_seq_read() hands out whole blocks: clip them at @to. */
	skb_prepare_seq_read(skb, from, to, &st);
	while (done < to - from && (n = skb_seq_read(done, &data, &st))) {
		n = min(n, to - from - done);
		sroce_icrc_update(ic, data, n);
		done += n;
	}
	skb_abort_seq_read(&st);
	return done == to - from;
}

/*
 * Verify the ICRC of a packet whose BTH..ICRC is @len bytes after the UDP
 * header at skb->data, hashing the fragments in place.  An INT block of
 * @int_len bytes at @int_off (from skb->data) is not covered (int.h).
 */
static bool sroce_recv_icrc_ok(struct sk_buff *skb, u32 len, u32 int_off,
			       u32 int_len)
{
	const u8 *iph = skb_network_header(skb);
	u32 pre = skb->data - iph; /* IP header bytes */
	u32 from = SROCE_UDP_HLEN + SROCE_BTH_LEN;
	u32 to = SROCE_UDP_HLEN + len - SROCE_ICRC_LEN;
	struct sroce_icrc ic;
	__le32 wire, *p;
	int hashed;

	hashed = sroce_icrc_begin_less(&ic, iph, pre + skb_headlen(skb),
				       int_len);
	/* IPv6 extension headers or a bad IP header: not RoCE v2. */
	if (unlikely(hashed < 0 || hashed != pre + from))
		return false;
	if (unlikely(int_len)) {
		if (!sroce_recv_icrc_hash(skb, &ic, from, int_off))
			return false;
		from = int_off + int_len;
	}
	if (unlikely(!sroce_recv_icrc_hash(skb, &ic, from, to)))
		return false;

	p = skb_header_pointer(skb, to, sizeof(wire), &wire);
	return p && *p == sroce_icrc_final(&ic);
}

/* Network type, source address and ECN CE of the packet. */
static void sroce_recv_ip(struct sk_buff *skb, struct sroce_rx_cb *cb)
{
	if (skb->protocol == htons(ETH_P_IP)) {
		const struct iphdr *ip4 = ip_hdr(skb);

		cb->ntype = RDMA_NETWORK_IPV4;
		cb->saddr.v4 = ip4->saddr;
		cb->ce = INET_ECN_is_ce(ip4->tos);
	} else {
		const struct ipv6hdr *ip6 = ipv6_hdr(skb);

		cb->ntype = RDMA_NETWORK_IPV6;
		cb->saddr.v6 = ip6->saddr;
		cb->ce = INET_ECN_is_ce(ipv6_get_dsfield(ip6));
	}
}

bool sroce_recv_from_peer(const struct sroce_av *peer, struct sk_buff *skb)
{
	struct sroce_rx_cb *cb = SROCE_RX_CB(skb);

	if (cb->ntype != peer->ntype)
		return false;
	if (cb->ntype == RDMA_NETWORK_IPV4)
		return cb->saddr.v4 == peer->daddr.v4 &&
		       ip_hdr(skb)->daddr == peer->saddr.v4;
	return ipv6_addr_equal(&cb->saddr.v6, &peer->daddr.v6) &&
	       ipv6_addr_equal(&ipv6_hdr(skb)->daddr, &peer->saddr.v6);
}

/*
 * Validate the transport headers and fill @cb; skb->data stays at the UDP
 * header.  The ICRC is checked later, by sroce_recv_verify(), on the CPU
 * that processes the packet.  Returns the counter of the reason on
 * failure, SROCE_CNT_MAX on success.
 */
static enum sroce_counter sroce_recv_parse(struct sk_buff *skb,
					   struct sroce_rx_cb *cb)
{
	const struct sroce_opcode_info *info;
	enum sroce_counter drop = SROCE_CNT_MAX;
	const struct sroce_bth *bth;
	u32 len, hdrlen, int_len = 0;
	int paylen;

	if (unlikely(skb->len <
			     SROCE_UDP_HLEN + SROCE_BTH_LEN + SROCE_ICRC_LEN ||
		     !pskb_may_pull(skb, SROCE_UDP_HLEN + SROCE_BTH_LEN)))
		return SROCE_CNT_RX_DROP_MALFORMED;
	cb->sport = ntohs(((struct udphdr *)skb->data)->source);
	bth = (const struct sroce_bth *)(skb->data + SROCE_UDP_HLEN);

	info = sroce_opcode_info(sroce_bth_opcode(bth));
	/* IBA C9-4..C9-6: unknown opcodes and transport versions are dropped */
	if (unlikely(!info || sroce_bth_tver(bth) != 0))
		return SROCE_CNT_RX_DROP_UNSUPPORTED;

	hdrlen = sroce_opcode_hdr_len(info);
	if (unlikely(!pskb_may_pull(skb, SROCE_UDP_HLEN + hdrlen)))
		return SROCE_CNT_RX_DROP_MALFORMED;
	bth = (const struct sroce_bth *)(skb->data + SROCE_UDP_HLEN);

	len = skb->len - SROCE_UDP_HLEN;
	/*
	 * HPCC's INT: a block between the headers and the payload (int.h).
	 * Without one that parses, the packet may still be a plain one from
	 * a peer that sets the reserved bit: parsed as such, with int_len 0,
	 * and sroce_recv_verify() lets its ICRC decide.
	 */
	if (unlikely(sroce_bth_int(bth))) {
		drop = sroce_int_rx_parse(skb, info, hdrlen, len, &int_len);
		if (unlikely(drop == SROCE_CNT_RX_DROP_MALFORMED))
			return drop;
		bth = (const struct sroce_bth *)(skb->data + SROCE_UDP_HLEN);
	}
	paylen = sroce_opcode_payload_len(info, bth, len - int_len);
	if (unlikely(paylen < 0 && int_len)) {
		/* a block that leaves no valid packet is no block */
		int_len = 0;
		drop = SROCE_CNT_RX_INT_MALFORMED;
		paylen = sroce_opcode_payload_len(info, bth, len);
	}
	if (unlikely(paylen < 0))
		return drop != SROCE_CNT_MAX ? drop :
					       SROCE_CNT_RX_DROP_MALFORMED;

	cb->info = info;
	cb->opcode = sroce_bth_opcode(bth);
	cb->psn = sroce_bth_psn(bth);
	cb->hdrlen = hdrlen + int_len; /* the payload follows the block */
	cb->paylen = paylen;
	sroce_recv_ip(skb, cb);
	return SROCE_CNT_MAX;
}

/*
 * The ICRC of a packet whose BTH has the INT bit (int.h).  Parsed with a
 * block (int_len > 0), its ICRC leaves the block out; parsed without one
 * (none parsed), or if that ICRC fails, the packet may be a plain one from
 * a peer that sets the reserved bit (IBA: ignored on receive): if the
 * ICRC over all of it verifies, it is one, parsed again as such and
 * counted in rx_int_ignored.  The two ICRCs cannot both verify but by a
 * 2^-32 chance.
 */
static enum sroce_counter sroce_recv_verify_int(struct sk_buff *skb,
						u32 int_len)
{
	struct sroce_rx_cb *cb = SROCE_RX_CB(skb);
	u32 len = skb->len - SROCE_UDP_HLEN;
	u32 hdrlen = sroce_opcode_hdr_len(cb->info);
	const struct sroce_bth *bth;
	int paylen;

	if (int_len &&
	    sroce_recv_icrc_ok(skb, len, SROCE_UDP_HLEN + hdrlen, int_len))
		return SROCE_CNT_MAX;
	bth = (const struct sroce_bth *)(skb->data + SROCE_UDP_HLEN);
	paylen = sroce_opcode_payload_len(cb->info, bth, len);
	if (unlikely(paylen < 0 || !sroce_recv_icrc_ok(skb, len, 0, 0)))
		/* no block and not plain either: what its parse found */
		return int_len ? SROCE_CNT_RX_ICRC_ENCAPSULATED :
				 SROCE_CNT_RX_INT_MALFORMED;
	cb->hdrlen = hdrlen;
	cb->paylen = paylen;
	sroce_counter_inc(cb->sdev, SROCE_CNT_RX_INT_IGNORED);
	return SROCE_CNT_MAX;
}

/*
 * Second half of the checks of a parsed packet (IBA 9.6.1 order: ICRC,
 * then P_Key).  On success skb->data is at the BTH and skb->len covers
 * BTH..payload.
 */
static enum sroce_counter sroce_recv_verify(struct sk_buff *skb)
{
	struct sroce_rx_cb *cb = SROCE_RX_CB(skb);
	u32 len = skb->len - SROCE_UDP_HLEN;
	const struct sroce_bth *bth;
	enum sroce_counter drop;

	bth = (const struct sroce_bth *)(skb->data + SROCE_UDP_HLEN);
	/* the bit on other transports is the IBA's reserved one: ignored */
	if (unlikely(sroce_bth_int(bth)) &&
	    sroce_opcode_transport(cb->opcode) == SROCE_TRANSPORT_RC) {
		drop = sroce_recv_verify_int(skb,
					     sroce_rx_int_len_at(skb, bth));
		if (drop != SROCE_CNT_MAX)
			return drop;
	} else if (unlikely(!sroce_recv_icrc_ok(skb, len, 0, 0))) {
		return SROCE_CNT_RX_ICRC_ENCAPSULATED;
	}

	/* IBA C9-42 with one partition: accept full and limited members. */
	if (unlikely((sroce_bth_pkey(bth) & SROCE_PKEY_BASE_MASK) !=
		     SROCE_PKEY_BASE_MASK))
		return SROCE_CNT_RX_DROP_BAD_PKEY;

	__skb_pull(skb, SROCE_UDP_HLEN);
	if (unlikely(pskb_trim(skb, cb->hdrlen + cb->paylen)))
		return SROCE_CNT_RX_DROP_MALFORMED;
	/* A valid RoCE v2 packet with CE, whatever becomes of it. */
	if (unlikely(cb->ce))
		sroce_counter_inc(cb->sdev, SROCE_CNT_NP_ECN_MARKED);
	return SROCE_CNT_MAX;
}

/* Does the transport of @opcode match the QP's type (IBA C9-8)? */
static bool sroce_recv_type_ok(const struct sroce_qp *qp, u8 opcode)
{
	switch (sroce_opcode_transport(opcode)) {
	case SROCE_TRANSPORT_RC:
		return qp->ibqp.qp_type == IB_QPT_RC;
	case SROCE_TRANSPORT_UC:
		return qp->ibqp.qp_type == IB_QPT_UC;
	case SROCE_TRANSPORT_UD:
		return qp->ibqp.qp_type == IB_QPT_UD ||
		       qp->ibqp.qp_type == IB_QPT_GSI;
	default:
		return false;
	}
}

/*
 * Find the QP of a parsed packet and hand it to the QP's receive queue.
 * A packet that goes nowhere is still verified, so that a corrupted one is
 * counted as such whatever its header says.
 */
static enum sroce_counter sroce_recv_dispatch(struct sroce_dev *sdev,
					      struct sk_buff *skb)
{
	struct sroce_rx_cb *cb = SROCE_RX_CB(skb);
	enum sroce_counter drop, verdict;
	const struct sroce_bth *bth;
	struct sroce_qp *qp;
	u32 qpn;

	bth = (const struct sroce_bth *)(skb->data + SROCE_UDP_HLEN);
	qpn = sroce_bth_destqp(bth);
	/* IBA 10.5.2.2: DestQP 0xFFFFFF is every QP attached to the group. */
	if (unlikely(qpn == SROCE_MCAST_QPN)) {
		drop = SROCE_CNT_RX_DROP_QP_TYPE;
		if (sroce_opcode_transport(cb->opcode) == SROCE_TRANSPORT_UD)
			drop = sroce_mcast_recv(sdev, skb);
		if (drop == SROCE_CNT_MAX)
			return drop;
		goto drop;
	}
	/* QP0 (SMI) does not exist on RoCE. */
	qp = qpn ? sroce_qp_get(sdev, qpn) : NULL;
	if (unlikely(!qp)) {
		drop = SROCE_CNT_RX_DROP_NO_QP;
		goto drop;
	}
	if (unlikely(!sroce_recv_type_ok(qp, cb->opcode))) {
		drop = SROCE_CNT_RX_DROP_QP_TYPE;
		goto drop_put;
	}
	if (unlikely(!sroce_recv_state_ok(READ_ONCE(qp->state)))) {
		drop = SROCE_CNT_RX_DROP_QP_STATE;
		goto drop_put;
	}
	sroce_rxq_deliver(qp, skb);
	sroce_qp_put(qp);
	return SROCE_CNT_MAX;

drop_put:
	sroce_qp_put(qp);
drop:
	/* The checks IBA 9.6.1 puts first decide what is counted. */
	verdict = sroce_recv_verify(skb);
	return verdict != SROCE_CNT_MAX ? verdict : drop;
}

void sroce_recv_finish(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_rx_cb *cb = SROCE_RX_CB(skb);
	enum sroce_counter drop;

	drop = sroce_recv_verify(skb);
	if (unlikely(drop != SROCE_CNT_MAX)) {
		sroce_counter_inc(cb->sdev, drop);
		kfree_skb(skb);
		return;
	}
	/*
	 * The notification point (ecn.c) runs in the responder and the
	 * completer, for a packet that passed the checks of its QP type.
	 */
	if (cb->info->flags & SROCE_OPF_REQ)
		sroce_resp_rx(qp, skb);
	else
		sroce_comp_rx(qp, skb); /* RESP opcodes are all RC */
}

void sroce_recv(struct sroce_dev *sdev, struct sk_buff *skb)
{
	struct sroce_rx_cb *cb = SROCE_RX_CB(skb);
	enum sroce_counter drop;

	sroce_counter_inc(sdev, SROCE_CNT_RCVD_PKTS);
	sroce_counter_add(sdev, SROCE_CNT_RCVD_BYTES,
			  skb->len - SROCE_UDP_HLEN);

	memset(cb, 0, sizeof(*cb));
	cb->sdev = sdev;
	drop = sroce_recv_parse(skb, cb);
	if (unlikely(drop != SROCE_CNT_MAX))
		goto drop;

	/* Annex A17: a CNP bypasses PSN and QP state checks. */
	if (unlikely(cb->info->flags & SROCE_OPF_CNP)) {
		drop = sroce_recv_verify(skb);
		if (unlikely(drop != SROCE_CNT_MAX))
			goto drop;
		sroce_cc_rx_cnp(sdev, skb);
		return;
	}

	drop = sroce_recv_dispatch(sdev, skb);
	if (likely(drop == SROCE_CNT_MAX))
		return; /* the QP's receive queue owns the skb */
drop:
	sroce_counter_inc(sdev, drop);
	kfree_skb(skb);
}
