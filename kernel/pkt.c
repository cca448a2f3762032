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
 */
#include <linux/hash.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <rdma/ib_cache.h>

#include "counters.h"
#include "device.h"
#include "ecn.h"
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

	err = sroce_icrc_compute(skb->data, len, &icrc);
	if (unlikely(err))
		return err;
	memcpy(skb->data + len, &icrc, sizeof(icrc));
	__skb_put(skb, SROCE_ICRC_LEN);
	return 0;
}

static int sroce_pkt_xmit4(struct sroce_dev *sdev, const struct sroce_av *av,
			   u8 tos, struct sk_buff *skb)
{
	struct net *net = sroce_net_ns(sdev->sn);
	struct sock *sk = sroce_net_sock(sdev->sn, AF_INET)->sk;
	struct flowi4 fl = {};
	struct rtable *rt;
	struct iphdr *iph;
	int err;

	fl.flowi4_oif = av->ifindex;
	fl.flowi4_proto = IPPROTO_UDP;
	fl.flowi4_tos = RT_TOS(tos);
	fl.daddr = av->daddr.v4;
	fl.saddr = av->saddr.v4;
	rt = ip_route_output_key(net, &fl);
	if (IS_ERR(rt)) {
		kfree_skb(skb);
		return PTR_ERR(rt);
	}

	iph = skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) >> 2;
	iph->tos = tos;
	/* The ICRC covers tot_len: count the ICRC room now. */
	iph->tot_len = htons(skb->len + SROCE_ICRC_LEN);
	iph->frag_off = htons(IP_DF);
	iph->ttl = av->hop_limit > 1 ? av->hop_limit :
				       ip4_dst_hoplimit(&rt->dst);
	iph->protocol = IPPROTO_UDP;
	iph->saddr = fl.saddr;
	iph->daddr = fl.daddr;
	__ip_select_ident(net, iph, 1);

	err = sroce_pkt_icrc(skb);
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
			   u8 tos, struct sk_buff *skb)
{
	struct socket *sock = sroce_net_sock(sdev->sn, AF_INET6);
	struct net *net = sroce_net_ns(sdev->sn);
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
	dst = ipv6_stub->ipv6_dst_lookup_flow(net, sock->sk, &fl, NULL);
	if (IS_ERR(dst)) {
		kfree_skb(skb);
		return PTR_ERR(dst);
	}

	ip6h = skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6_flow_hdr(ip6h, tos, htonl(av->flow_label));
	/* The ICRC covers payload_len: count the ICRC room now. */
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h) + SROCE_ICRC_LEN);
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = av->hop_limit ? av->hop_limit : ip6_dst_hoplimit(dst);
	ip6h->saddr = fl.saddr;
	ip6h->daddr = fl.daddr;

	err = sroce_pkt_icrc(skb);
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
			   u8 tos, struct sk_buff *skb)
{
	kfree_skb(skb);
	return -EAFNOSUPPORT;
}
#endif

int sroce_pkt_xmit(struct sroce_dev *sdev, const struct sroce_av *av, u16 sport,
		   struct sk_buff *skb)
{
	bool cnp = skb->data[0] == SROCE_OP_CNP;
	unsigned int len;
	u32 prio;
	u8 tos;
	int err;

	/* DSCP and ECN (ecn.c); skb->data is at the BTH here. */
	tos = sroce_ecn_tos(sdev, av->tclass, skb->data[0], &prio);
	/* UDP length includes the ICRC that sroce_pkt_icrc() appends. */
	sroce_pkt_push_udp(skb, sport);
	udp_hdr(skb)->len = htons(skb->len + SROCE_ICRC_LEN);
	len = skb->len - sizeof(struct udphdr) + SROCE_ICRC_LEN;
	skb->ip_summed = CHECKSUM_NONE;
	/* CNPs have their own priority (ecn.c); data the DSCP table (pfc.c). */
	skb->priority = cnp ? prio : sroce_pfc_skb_priority(sdev, av->tclass);

	if (av->ntype == RDMA_NETWORK_IPV6)
		err = sroce_pkt_xmit6(sdev, av, tos, skb);
	else
		err = sroce_pkt_xmit4(sdev, av, tos, skb);
	/* The skb is gone either way; a positive value is NET_XMIT_*. */
	err = net_xmit_eval(err);
	if (unlikely(err)) {
		sroce_counter_inc(sdev, SROCE_CNT_TX_DROP);
		return err;
	}
	sroce_counter_inc(sdev, SROCE_CNT_SENT_PKTS);
	sroce_counter_add(sdev, SROCE_CNT_SENT_BYTES, len);
	return 0;
}
