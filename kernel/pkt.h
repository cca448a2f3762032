/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pkt.h - building and transmitting RoCE v2 packets, address vectors.
 *
 * A packet is built BTH-first: sroce_pkt_alloc() returns an skb whose data
 * starts at the BTH with room in front for Ethernet, IP and UDP, the caller
 * fills the transport headers and payload, and sroce_pkt_xmit() pushes UDP
 * and IP, appends the ICRC and hands the skb to the IP stack of the
 * device's namespace.  Any context (process or softirq); no lock is taken.
 */
#ifndef _SROCE_PKT_H
#define _SROCE_PKT_H

#include <linux/if_ether.h>
#include <linux/in6.h>
#include <linux/skbuff.h>
#include <net/dst_cache.h>
#include <rdma/ib_verbs.h>

struct sroce_dev;
struct sroce_qp;

/*
 * Where a packet goes: the network part of an rdma_ah_attr, resolved once
 * (at modify_qp to RTR for connected QPs, per AH for UD) so the data path
 * never touches the GID table.
 */
struct sroce_av {
	enum rdma_network_type ntype; /* RDMA_NETWORK_IPV4 or _IPV6 */
	/* Netdev of the source GID: the bound one or a VLAN upper of it. */
	int ifindex;
	u8 dmac[ETH_ALEN];
	u8 tclass;
	u8 hop_limit;
	u32 flow_label;
	union {
		__be32 v4;
		struct in6_addr v6;
	} saddr, daddr;
	/*
	 * Routes of this path, per CPU (a connected QP's req.dst_cache), or
	 * NULL: every packet looks its route up.  Reset when the path changes.
	 */
	struct dst_cache *dst_cache;
};

/*
 * Resolve @attr (already checked by sroce_av_check()) into @av.
 * Return: 0 or -EINVAL.
 */
int sroce_av_from_attr(struct sroce_dev *sdev, struct sroce_av *av,
		       const struct rdma_ah_attr *attr);

/*
 * skb with headroom for Ethernet/IP/UDP, skb->data at the BTH, len = hdr
 * bytes for @opcode (from the opcode table) + paylen + pad to 4; headers
 * zeroed; ICRC room is added by xmit.  NULL on allocation failure (counted).
 */
struct sk_buff *sroce_pkt_alloc(struct sroce_dev *sdev,
				const struct sroce_av *av, u8 opcode,
				u32 paylen, gfp_t gfp);

/*
 * Fills UDP (dst 4791, src = @sport), IP (from av), ICRC; routes in the
 * device's namespace (sroce_net_ns(sdev->sn)), transmits on the bound
 * netdev (loopback to an own address works).  Consumes @skb.  Counts sent
 * packets/bytes and drops.  Return: 0 or -errno (the skb is gone anyway).
 */
int sroce_pkt_xmit(struct sroce_dev *sdev, const struct sroce_av *av, u16 sport,
		   struct sk_buff *skb);

/* Segments one batch holds (a page fragment each, so <= MAX_SKB_FRAGS). */
#define SROCE_TXB_MAX 16
static_assert(SROCE_TXB_MAX <= MAX_SKB_FRAGS);

/* device attribute tx_batch */
enum sroce_tx_batch {
	SROCE_TX_BATCH_OFF,
	SROCE_TX_BATCH_ON,
	SROCE_TX_BATCH_AUTO, /* on for software netdevs (pkt.c) */
};

/*
 * A batch of request packets that leave as one UDP GSO skb (see pkt.c).
 * Every segment but the last is exactly seglen bytes (BTH to ICRC); the
 * builder owns it from begin to xmit or abort.
 */
struct sroce_txb {
	struct sk_buff *skb;
	struct sroce_txpool *pool; /* where the segments come from */
	u32 seglen;
	u32 nseg;
	u32 max; /* segments it may hold: datagram and GSO size limits */
	u8 *seg[SROCE_TXB_MAX]; /* BTH of each segment */
	u32 len[SROCE_TXB_MAX]; /* its length, ICRC included */
};

/* Does the device send batches (tx_batch and the netdev's kind)? */
bool sroce_txb_enabled(const struct sroce_dev *sdev);
/*
 * An empty batch of @seglen-byte segments; -ENOMEM, or -EMSGSIZE if not two
 * of them fit one datagram.
 */
int sroce_txb_begin(struct sroce_txb *b, struct sroce_dev *sdev, u32 seglen);
/*
 * Room for one more segment of @len bytes (ICRC included, <= seglen; only
 * the last may be shorter): returns where its BTH goes, or NULL (full, or
 * no memory).  The ICRC is filled in by sroce_txb_xmit().
 */
void *sroce_txb_add(struct sroce_txb *b, u32 len);
void sroce_txb_abort(struct sroce_txb *b);
/*
 * Where the packets of a batch come from (sroce_txb_build()).  The builder
 * keeps its own cursor in @ctx; fill() advances it past the packet.
 */
struct sroce_txb_pkt {
	u8 opcode;
	bool last; /* the message's last packet */
	u32 paylen;
	u32 hdrlen; /* BTH and extension headers: set by the builder */
};

struct sroce_txb_src {
	/* The shape of the packet at the cursor. */
	void (*next)(void *ctx, struct sroce_txb_pkt *p);
	/*
	 * Fill in the headers at @bth (zeroed, as is the pad) and copy the
	 * payload behind them; nonzero if the copy fails.
	 */
	int (*fill)(void *ctx, const struct sroce_txb_pkt *p, u8 *bth);
};

/*
 * Build a batch of at most @max packets of @mtu payload bytes from @src:
 * as many full-size packets as come, then one shorter if it is the
 * message's last.  Returns the number built (at least 2; the caller sends
 * the batch with sroce_txb_xmit()), 0 if no batch was possible (nothing is
 * kept; the caller sends one packet the usual way), or -ENOMEM.
 */
int sroce_txb_build(struct sroce_txb *b, struct sroce_dev *sdev, u32 mtu,
		    u32 max, const struct sroce_txb_src *src, void *ctx);
/* Like sroce_pkt_xmit() for a batch of at least one segment; consumes it. */
int sroce_txb_xmit(struct sroce_dev *sdev, const struct sroce_av *av, u16 sport,
		   struct sroce_txb *b);

/* 0xC000 | 14-bit hash of the QPN: the constant UDP source port of a QP. */
u16 sroce_qp_sport(const struct sroce_qp *qp);

#endif /* _SROCE_PKT_H */
