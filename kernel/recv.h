/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recv.h - receive classification and dispatch of RoCE v2 packets.
 *
 * sroce_recv() is called by the UDP encap handler (net.c) in softirq with
 * the RCU read side held and skb->data at the UDP header.  It validates
 * the BTH and the extension headers of the opcode, verifies the ICRC,
 * checks P_Key, TVer, the destination QP and its type and state, fills
 * struct sroce_rx_cb and hands the packet to the responder (request
 * opcodes) or the completer (response opcodes).  Everything else is
 * dropped and counted, one counter per reason.
 */
#ifndef _SROCE_RECV_H
#define _SROCE_RECV_H

#include <linux/build_bug.h>
#include <linux/in6.h>
#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>

#include "proto/opcode.h"

struct sroce_dev;

/*
 * Metadata of a validated received packet, in skb->cb.  skb->data at the
 * BTH, skb->len = BTH..end of payload (pad and ICRC trimmed, ICRC
 * verified).
 */
struct sroce_rx_cb {
	const struct sroce_opcode_info *info; /* of opcode, never NULL */
	struct sroce_dev *sdev; /* receiving device */
	union {
		__be32 v4;
		struct in6_addr v6;
	} saddr; /* IP source address of the packet */
	u32 psn; /* BTH PSN */
	u32 paylen; /* payload bytes after the headers, pad excluded */
	/* Narrow types below: the whole cb must fit in skb->cb (48 bytes). */
	u16 hdrlen; /* BTH + extension headers; payload at data + hdrlen */
	u16 sport; /* UDP source port (host order) */
	u8 opcode; /* BTH opcode */
	bool ce; /* IP ECN field was CE (congestion experienced) */
	u8 ntype; /* enum rdma_network_type: RDMA_NETWORK_IPV4 or _IPV6 */
};

static_assert(sizeof(struct sroce_rx_cb) <= sizeof_field(struct sk_buff, cb));

static inline struct sroce_rx_cb *SROCE_RX_CB(struct sk_buff *skb)
{
	return (struct sroce_rx_cb *)skb->cb;
}

/* The BTH of a packet that went through sroce_recv(). */
static inline struct sroce_bth *sroce_rx_bth(struct sk_buff *skb)
{
	return (struct sroce_bth *)skb->data;
}

/*
 * Extension header @ext of a packet that went through sroce_recv(); the
 * caller knows from cb->info that the opcode carries it.  Headers are in
 * the linear part (pulled by sroce_recv()).
 */
static inline void *sroce_rx_ext(struct sk_buff *skb, enum sroce_ext ext)
{
	return sroce_opcode_ext(SROCE_RX_CB(skb)->info, skb->data, ext);
}

/* States in which a QP accepts packets (IBA 10.3.1: RTR and later). */
static inline bool sroce_recv_state_ok(enum ib_qp_state state)
{
	return state == IB_QPS_RTR || state == IB_QPS_RTS ||
	       state == IB_QPS_SQD || state == IB_QPS_SQE;
}

/* Softirq, RCU read side held; takes ownership of @skb. */
void sroce_recv(struct sroce_dev *sdev, struct sk_buff *skb);

struct sroce_av;
/*
 * Is the packet from the peer of a connected QP whose path is @peer: same
 * network type, IP source = the path's destination and IP destination =
 * its source GID (rdma_rxe checks both too)?  For every RC/UC packet, and
 * CNPs for RC/UC QPs; the caller holds a lock @peer is written under, or a
 * copy made under one (qp->av: qp->lock or req.lock).  Any context.
 */
bool sroce_recv_from_peer(const struct sroce_av *peer, struct sk_buff *skb);

struct sroce_qp;
/*
 * Verify a packet sroce_recv() handed to @qp's receive queue (ICRC,
 * P_Key) and give it to the responder or completer.  Softirq or BH
 * disabled, RCU read side held, caller holds a QP reference; takes
 * ownership of @skb.
 */
void sroce_recv_finish(struct sroce_qp *qp, struct sk_buff *skb);

#endif /* _SROCE_RECV_H */
