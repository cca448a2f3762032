// SPDX-License-Identifier: GPL-2.0
/*
 * pkt.c - building and transmitting RoCE v2 packets (IBA Annex A17).
 *
 * Packets are built transport-first: sroce_pkt_alloc() reserves room for
 * the link, IP and UDP headers in front of the BTH and for the ICRC at the
 * end, so that sroce_pkt_xmit() only pushes headers and never reallocates.
 * The IP stack of the device's namespace routes the packet (so loopback to
 * an own address goes through lo and comes back on the 4791 socket) and
 * resolves the neighbour.  No lock is taken here; callers serialise their
 * own use of a packet.  UDP checksum is 0 on both families (Annex A17).
 *
 * A batch (struct sroce_txb) is several request packets of one QP that
 * leave as ONE UDP GSO skb: each segment of its payload is a whole RoCE
 * packet, BTH to ICRC, in its own page fragment.  IP, netfilter, qdisc and
 * veth then run once per batch instead of once per packet, and the
 * receiving UDP socket splits it back (udp_rcv_segment) before sroce sees
 * the packets; a NIC without UDP segmentation gets them split by the
 * stack.  The ICRCs are computed for the headers the packets will carry
 * after segmentation (sroce_txb_icrc()).
 */
#include <linux/hash.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <rdma/ib_cache.h>

#include "counters.h"
#include "device.h"
#include "ecn.h"
#include "int.h"
#include "net.h"
#include "pfc.h"
#include "pkt.h"
#include "proto/icrc.h"
#include "proto/opcode.h"
#include "qp.h"

/* Largest network + transport prefix pushed in front of the BTH. */
#define SROCE_PKT_NET_HDR                                                    \
	(max_t(unsigned int, sizeof(struct iphdr), sizeof(struct ipv6hdr)) + \
	 sizeof(struct udphdr))

u16 sroce_qp_sport(const struct sroce_qp *qp)
{
	return 0xc000 | hash_32(qp->ibqp.qp_num, 14);
}

int sroce_av_from_attr(struct sroce_dev *sdev, struct sroce_av *av,
		       const struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(attr);
	const struct ib_gid_attr *sgid_attr = grh->sgid_attr;
	struct net_device *ndev;

	if (unlikely(!sgid_attr))
		return -EINVAL;
	memset(av, 0, sizeof(*av));
	av->ntype = rdma_gid_attr_network_type(sgid_attr);
	/*
	 * A GID of a VLAN upper sends through the VLAN netdev, so the frame
	 * is tagged and skb->priority becomes its PCP (egress-qos-map).
	 */
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(sgid_attr);
	av->ifindex = IS_ERR(ndev) ? sdev->ndev->ifindex : ndev->ifindex;
	rcu_read_unlock();
	memcpy(av->dmac, attr->roce.dmac, ETH_ALEN);
	av->tclass = grh->traffic_class;
	av->hop_limit = grh->hop_limit;
	av->flow_label = grh->flow_label;
	switch (av->ntype) {
	case RDMA_NETWORK_IPV4:
		/* IPv4-mapped GIDs: the address is in the last 4 bytes. */
		memcpy(&av->saddr.v4, &sgid_attr->gid.raw[12], 4);
		memcpy(&av->daddr.v4, &grh->dgid.raw[12], 4);
		return 0;
	case RDMA_NETWORK_IPV6:
		memcpy(&av->saddr.v6, sgid_attr->gid.raw, 16);
		memcpy(&av->daddr.v6, grh->dgid.raw, 16);
		return 0;
	default:
		return -EINVAL;
	}
}

struct sk_buff *sroce_pkt_alloc(struct sroce_dev *sdev,
				const struct sroce_av *av, u8 opcode,
				u32 paylen, gfp_t gfp)
{
	const struct sroce_opcode_info *oi = sroce_opcode_info(opcode);
	unsigned int headroom, hdrlen, pad;
	struct sk_buff *skb;

	if (WARN_ON_ONCE(!oi))
		return NULL;
	hdrlen = sroce_opcode_hdr_len(oi);
	pad = (4 - (paylen & 3)) & 3;
	headroom = LL_RESERVED_SPACE(sdev->ndev) + SROCE_PKT_NET_HDR;

	skb = alloc_skb(headroom + hdrlen + paylen + pad + SROCE_ICRC_LEN, gfp);
	if (unlikely(!skb)) {
		sroce_counter_inc(sdev, SROCE_CNT_TX_DROP);
		return NULL;
	}
	skb_reserve(skb, headroom);
	skb_reset_transport_header(skb);
	memset(skb_put(skb, hdrlen), 0, hdrlen);
	skb_put(skb, paylen);
	if (pad)
		memset(skb_put(skb, pad), 0, pad);
	skb->protocol = av->ntype == RDMA_NETWORK_IPV6 ? htons(ETH_P_IPV6) :
							 htons(ETH_P_IP);
	return skb;
}

static void sroce_pkt_push_udp(struct sk_buff *skb, u16 sport)
{
	struct udphdr *uh;

	uh = skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh->source = htons(sport);
	uh->dest = htons(SROCE_UDP_PORT);
	uh->len = htons(skb->len);
	uh->check = 0; /* Annex A17: UDP checksum 0 */
}

/* Append the ICRC over IP header .. pad (skb->data at the IP header). */
static int sroce_pkt_icrc(struct sk_buff *skb)
{
	unsigned int len = skb->len;
	__le32 icrc;
	int err;

	/* an INT echo is not covered (int.h) */
	if (unlikely(sroce_bth_int((const void *)(skb_transport_header(skb) +
						  sizeof(struct udphdr)))))
		err = sroce_int_tx_icrc(skb, &icrc);
	else
		err = sroce_icrc_compute(skb->data, len, &icrc);
	if (unlikely(err))
		return err;
	memcpy(skb->data + len, &icrc, sizeof(icrc));
	__skb_put(skb, SROCE_ICRC_LEN);
	return 0;
}

/*
 * The ICRC of segment @i of a batch, as it will leave after segmentation:
 * the stack copies the IP and UDP headers in front of every segment with
 * its own lengths, and IPv4 IDs counting up from the batch's (inet GSO).
 * The ICRC covers the lengths and the ID, so each is predicted here.
 */
static void sroce_txb_icrc(const struct sroce_txb *b, unsigned int i,
			   const void *nh, unsigned int nhlen)
{
	u8 pre[sizeof(struct ipv6hdr) + sizeof(struct udphdr) + SROCE_BTH_LEN];
	struct udphdr *uh = (struct udphdr *)(pre + nhlen);
	u32 len = b->len[i];
	u8 *seg = b->seg[i];
	struct sroce_icrc ic;
	__le32 icrc;
	int n;

	memcpy(pre, nh, nhlen + sizeof(*uh));
	if (nhlen == sizeof(struct iphdr)) {
		struct iphdr *iph = (struct iphdr *)pre;

		iph->tot_len = htons(nhlen + sizeof(*uh) + len);
		iph->id = htons(ntohs(iph->id) + i);
	} else {
		struct ipv6hdr *ip6h = (struct ipv6hdr *)pre;

		ip6h->payload_len = htons(sizeof(*uh) + len);
	}
	uh->len = htons(sizeof(*uh) + len);
	memcpy(uh + 1, seg, SROCE_BTH_LEN);
	n = sroce_icrc_begin(&ic, pre, nhlen + sizeof(*uh) + SROCE_BTH_LEN);
	if (WARN_ON_ONCE(n < 0))
		return;
	sroce_icrc_update(&ic, seg + SROCE_BTH_LEN,
			  len - SROCE_BTH_LEN - SROCE_ICRC_LEN);
	icrc = sroce_icrc_final(&ic);
	memcpy(seg + len - SROCE_ICRC_LEN, &icrc, sizeof(icrc));
}

/*
 * ICRCs, then the UDP GSO fields of a batch; skb->data at the network
 * header, whose addresses and lengths are final.
 */
static void sroce_txb_finish(struct sk_buff *skb, const struct sroce_txb *b,
			     unsigned int nhlen)
{
	struct udphdr *uh = udp_hdr(skb);
	unsigned int i;

	for (i = 0; i < b->nseg; i++)
		sroce_txb_icrc(b, i, skb->data, nhlen);
	/*
	 * Segmentation needs a partial checksum (its per-segment pseudo
	 * header); the ICRC ignores the UDP checksum (Annex A17).
	 */
	skb->ip_summed = CHECKSUM_PARTIAL;
	skb->csum_start = skb_transport_header(skb) - skb->head;
	skb->csum_offset = offsetof(struct udphdr, check);
	if (nhlen == sizeof(struct iphdr))
		uh->check = ~csum_tcpudp_magic(ip_hdr(skb)->saddr,
					       ip_hdr(skb)->daddr,
					       ntohs(uh->len), IPPROTO_UDP, 0);
	else
		uh->check = ~csum_ipv6_magic(&ipv6_hdr(skb)->saddr,
					     &ipv6_hdr(skb)->daddr,
					     ntohs(uh->len), IPPROTO_UDP, 0);
	if (b->nseg > 1) {
		skb_shinfo(skb)->gso_type = SKB_GSO_UDP_L4;
		skb_shinfo(skb)->gso_size = b->seglen;
		skb_shinfo(skb)->gso_segs = b->nseg;
	}
}

/*
 * Network header and ICRC(s): one packet (@b NULL, ICRC appended) or a
 * batch (@b, each ICRC inside its segment).  Returns 0 or -errno.
 */
static int sroce_pkt_net_finish(struct sk_buff *skb, const struct sroce_txb *b,
				unsigned int nhlen)
{
	if (b) {
		sroce_txb_finish(skb, b, nhlen);
		return 0;
	}
	return sroce_pkt_icrc(skb);
}

static int sroce_pkt_xmit4(struct sroce_dev *sdev, const struct sroce_av *av,
			   u8 tos, struct sk_buff *skb,
			   const struct sroce_txb *b)
{
	struct net *net = sroce_net_ns(sdev->sn);
	struct sock *sk = sroce_net_sock(sdev->sn, AF_INET)->sk;
	unsigned int icrc_room = b ? 0 : SROCE_ICRC_LEN;
	struct flowi4 fl = {};
	struct rtable *rt;
	struct iphdr *iph;
	int err;

	fl.flowi4_oif = av->ifindex;
	fl.flowi4_proto = IPPROTO_UDP;
	fl.flowi4_tos = RT_TOS(tos);
	fl.daddr = av->daddr.v4;
	fl.saddr = av->saddr.v4;
	rt = av->dst_cache ? dst_cache_get_ip4(av->dst_cache, &fl.saddr) : NULL;
	if (!rt) {
		rt = ip_route_output_key(net, &fl);
		if (IS_ERR(rt)) {
			kfree_skb(skb);
			return PTR_ERR(rt);
		}
		if (av->dst_cache)
			dst_cache_set_ip4(av->dst_cache, &rt->dst, fl.saddr);
	}

	iph = skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) >> 2;
	iph->tos = tos;
	/* The ICRC covers tot_len: count the ICRC room now. */
	iph->tot_len = htons(skb->len + icrc_room);
	iph->frag_off = htons(IP_DF);
	iph->ttl = av->hop_limit > 1 ? av->hop_limit :
				       ip4_dst_hoplimit(&rt->dst);
	iph->protocol = IPPROTO_UDP;
	iph->saddr = fl.saddr;
	iph->daddr = fl.daddr;
	__ip_select_ident(net, iph, b ? b->nseg : 1);

	err = sroce_pkt_net_finish(skb, b, sizeof(*iph));
	if (unlikely(err)) {
		ip_rt_put(rt);
		kfree_skb(skb);
		return err;
	}
	ip_send_check(iph);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	skb_dst_set(skb, &rt->dst);
	skb->protocol = htons(ETH_P_IP);
	return ip_local_out(net, sk, skb);
}

#if IS_ENABLED(CONFIG_IPV6)
static int sroce_pkt_xmit6(struct sroce_dev *sdev, const struct sroce_av *av,
			   u8 tos, struct sk_buff *skb,
			   const struct sroce_txb *b)
{
	struct socket *sock = sroce_net_sock(sdev->sn, AF_INET6);
	struct net *net = sroce_net_ns(sdev->sn);
	unsigned int icrc_room = b ? 0 : SROCE_ICRC_LEN;
	struct dst_entry *dst;
	struct ipv6hdr *ip6h;
	struct flowi6 fl = {};
	int err;

	if (!sock) {
		kfree_skb(skb);
		return -EAFNOSUPPORT;
	}
	fl.flowi6_oif = av->ifindex;
	fl.flowi6_proto = IPPROTO_UDP;
	fl.daddr = av->daddr.v6;
	fl.saddr = av->saddr.v6;
	dst = av->dst_cache ? dst_cache_get_ip6(av->dst_cache, &fl.saddr) :
			      NULL;
	if (!dst) {
		dst = ipv6_stub->ipv6_dst_lookup_flow(net, sock->sk, &fl, NULL);
		if (IS_ERR(dst)) {
			kfree_skb(skb);
			return PTR_ERR(dst);
		}
		if (av->dst_cache)
			dst_cache_set_ip6(av->dst_cache, dst, &fl.saddr);
	}

	ip6h = skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6_flow_hdr(ip6h, tos, htonl(av->flow_label));
	/* The ICRC covers payload_len: count the ICRC room now. */
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h) + icrc_room);
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = av->hop_limit ? av->hop_limit : ip6_dst_hoplimit(dst);
	ip6h->saddr = fl.saddr;
	ip6h->daddr = fl.daddr;

	err = sroce_pkt_net_finish(skb, b, sizeof(*ip6h));
	if (unlikely(err)) {
		dst_release(dst);
		kfree_skb(skb);
		return err;
	}
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	skb_dst_set(skb, dst);
	skb->protocol = htons(ETH_P_IPV6);
	return ip6_local_out(net, sock->sk, skb);
}
#else
static int sroce_pkt_xmit6(struct sroce_dev *sdev, const struct sroce_av *av,
			   u8 tos, struct sk_buff *skb,
			   const struct sroce_txb *b)
{
	kfree_skb(skb);
	return -EAFNOSUPPORT;
}
#endif

/* Headers, ICRC(s) and out; one packet (@b NULL) or a batch in @skb. */
static int sroce_pkt_send(struct sroce_dev *sdev, const struct sroce_av *av,
			  u16 sport, struct sk_buff *skb,
			  const struct sroce_txb *b, u8 opcode)
{
	bool cnp = opcode == SROCE_OP_CNP;
	unsigned int icrc_room = b ? 0 : SROCE_ICRC_LEN;
	unsigned int len, npkts = b ? b->nseg : 1;
	u32 prio;
	u8 tos;
	int err;

	/* DSCP and ECN (ecn.c). */
	tos = sroce_ecn_tos(sdev, av->tclass, opcode, &prio);
	/* UDP length includes the ICRC that sroce_pkt_icrc() appends. */
	sroce_pkt_push_udp(skb, sport);
	udp_hdr(skb)->len = htons(skb->len + icrc_room);
	len = skb->len - sizeof(struct udphdr) + icrc_room;
	skb->ip_summed = CHECKSUM_NONE;
	/* CNPs have their own priority (ecn.c); data the DSCP table (pfc.c). */
	skb->priority = cnp ? prio : sroce_pfc_skb_priority(sdev, av->tclass);

	if (av->ntype == RDMA_NETWORK_IPV6)
		err = sroce_pkt_xmit6(sdev, av, tos, skb, b);
	else
		err = sroce_pkt_xmit4(sdev, av, tos, skb, b);
	/* The skb is gone either way; a positive value is NET_XMIT_*. */
	err = net_xmit_eval(err);
	if (unlikely(err)) {
		sroce_counter_add(sdev, SROCE_CNT_TX_DROP, npkts);
		return err;
	}
	sroce_counter_add(sdev, SROCE_CNT_SENT_PKTS, npkts);
	sroce_counter_add(sdev, SROCE_CNT_SENT_BYTES, len);
	return 0;
}

int sroce_pkt_xmit(struct sroce_dev *sdev, const struct sroce_av *av, u16 sport,
		   struct sk_buff *skb)
{
	/* skb->data is at the BTH here. */
	return sroce_pkt_send(sdev, av, sport, skb, NULL, skb->data[0]);
}

/* ---- batches (pkt.h) ---- */

bool sroce_txb_enabled(const struct sroce_dev *sdev)
{
	switch (READ_ONCE(sdev->tx_batch)) {
	case SROCE_TX_BATCH_ON:
		return true;
	case SROCE_TX_BATCH_AUTO:
		/*
		 * Software netdevs (veth, bridge, VLAN, bond, lo) leave
		 * segmentation to the kernel, whose IPv4 IDs the ICRCs
		 * predict; a NIC that segments UDP itself might number
		 * them otherwise.
		 */
		return sdev->ndev->rtnl_link_ops ||
		       sdev->ndev->flags & IFF_LOOPBACK;
	default:
		return false;
	}
}

int sroce_txb_begin(struct sroce_txb *b, struct sroce_dev *sdev, u32 seglen)
{
	unsigned int headroom =
		LL_RESERVED_SPACE(sdev->ndev) + SROCE_PKT_NET_HDR;
	/*
	 * The batch is one IP datagram until it is split: its length must
	 * fit the 16-bit IP length field (with the larger, IPv6 header) and
	 * what the netdev takes as one GSO skb.
	 */
	u32 room = min_t(u32, U16_MAX, READ_ONCE(sdev->ndev->gso_max_size)) -
		   SROCE_PKT_NET_HDR;

	b->pool = &sdev->txpool;
	b->nseg = 0;
	b->seglen = seglen;
	b->max = min3(room / seglen, (u32)SROCE_TXB_MAX,
		      (u32)READ_ONCE(sdev->ndev->gso_max_segs));
	if (b->max < 2)
		return -EMSGSIZE;
	b->skb = alloc_skb(headroom, GFP_ATOMIC);
	if (unlikely(!b->skb))
		return -ENOMEM;
	skb_reserve(b->skb, headroom);
	return 0;
}

void *sroce_txb_add(struct sroce_txb *b, u32 len)
{
	struct sk_buff *skb = b->skb;
	unsigned int off;
	struct page *page;
	void *seg;

	if (b->nseg >= b->max || WARN_ON_ONCE(len > b->seglen))
		return NULL;
	seg = sroce_txpool_alloc(b->pool, len, &page, &off);
	if (unlikely(!seg))
		return NULL;
	skb_fill_page_desc(skb, b->nseg, page, off, len);
	skb->len += len;
	skb->data_len += len;
	skb->truesize += len;
	b->seg[b->nseg] = seg;
	b->len[b->nseg] = len;
	b->nseg++;
	return seg;
}

void sroce_txb_abort(struct sroce_txb *b)
{
	kfree_skb(b->skb);
	b->skb = NULL;
}

/* Fill in @p's header length; returns its segment bytes (with pad, ICRC). */
static u32 sroce_txb_pkt_len(struct sroce_txb_pkt *p)
{
	p->hdrlen = sroce_opcode_hdr_len(sroce_opcode_info(p->opcode));
	return p->hdrlen + p->paylen + sroce_bth_pad_for(p->paylen) +
	       SROCE_ICRC_LEN;
}

int sroce_txb_build(struct sroce_txb *b, struct sroce_dev *sdev, u32 mtu,
		    u32 max, const struct sroce_txb_src *src, void *ctx)
{
	u32 seglen = SROCE_BTH_LEN + mtu + SROCE_ICRC_LEN;
	struct sroce_txb_pkt p;
	u32 n, len;
	int err;

	src->next(ctx, &p);
	len = sroce_txb_pkt_len(&p);
	if (max < 2 || p.last || len != seglen)
		return 0;
	err = sroce_txb_begin(b, sdev, seglen);
	if (err)
		return err == -ENOMEM ? err : 0;
	for (n = 0; n < max; n++) {
		u8 *bth;

		if (n) {
			src->next(ctx, &p);
			len = sroce_txb_pkt_len(&p);
		}
		if (len > seglen)
			break;
		bth = sroce_txb_add(b, len);
		if (!bth)
			break;
		memset(bth, 0, p.hdrlen);
		memset(bth + p.hdrlen + p.paylen, 0,
		       sroce_bth_pad_for(p.paylen));
		if (src->fill(ctx, &p, bth)) {
			n = 0; /* the one-packet path reports it */
			break;
		}
		if (p.last || len < seglen) {
			n++;
			break;
		}
	}
	if (n < 2) {
		sroce_txb_abort(b);
		return 0;
	}
	return n;
}

int sroce_txb_xmit(struct sroce_dev *sdev, const struct sroce_av *av, u16 sport,
		   struct sroce_txb *b)
{
	struct sk_buff *skb = b->skb;

	b->skb = NULL;
	skb->protocol = av->ntype == RDMA_NETWORK_IPV6 ? htons(ETH_P_IPV6) :
							 htons(ETH_P_IP);
	return sroce_pkt_send(sdev, av, sport, skb, b, *b->seg[0]);
}
