// SPDX-License-Identifier: GPL-2.0
/*
 * int.c - INT of HPCC in the data path (int.h; the wire format and why
 * the ICRC does not cover the block: kernel/proto/int.h, cc.rst).
 *
 * A block is checked on receive before anything else looks at the packet,
 * and a bad one drops the packet (rx_int_malformed): a block that does
 * not parse leaves nowhere to find the payload.  What the records then
 * do is decided only after the checks of the QP (from its peer; for the
 * completer also in the PSN window), as for a CNP: a third host's
 * telemetry never reaches an algorithm.
 */
#include <linux/udp.h>

#include "cc.h"
#include "int.h"
#include "proto/icrc.h"
#include "proto/psn.h"

#define SROCE_INT_UDP_HLEN ((u32)sizeof(struct udphdr))

static_assert(sizeof_field(struct sroce_resp, int_echo) == SROCE_INT_MAX_LEN);

enum sroce_counter sroce_int_rx_parse(struct sk_buff *skb,
				      const struct sroce_opcode_info *info,
				      u32 hdrlen, u32 len, u32 *int_len)
{
	const struct sroce_bth *bth;
	enum sroce_int_type type;
	u32 avail;
	int n;

	bth = (const struct sroce_bth *)(skb->data + SROCE_INT_UDP_HLEN);
	/*
	 * Only RC has ACKs to carry it back.  On any other opcode the bit is
	 * what the IBA calls it, reserved: ignored on receive, no block.
	 */
	*int_len = 0;
	if (unlikely(sroce_opcode_transport(sroce_bth_opcode(bth)) !=
		     SROCE_TRANSPORT_RC))
		return SROCE_CNT_MAX;
	type = info->flags & SROCE_OPF_REQ ? SROCE_INT_COLLECT : SROCE_INT_ECHO;
	if (unlikely(len < hdrlen + SROCE_ICRC_LEN))
		return SROCE_CNT_RX_INT_MALFORMED;
	avail = min_t(u32, len - hdrlen - SROCE_ICRC_LEN, SROCE_INT_MAX_LEN);
	if (unlikely(!pskb_may_pull(skb, SROCE_INT_UDP_HLEN + hdrlen + avail)))
		return SROCE_CNT_RX_DROP_MALFORMED;
	n = sroce_int_parse(skb->data + SROCE_INT_UDP_HLEN + hdrlen, avail,
			    type);
	if (unlikely(n < 0))
		return SROCE_CNT_RX_INT_MALFORMED;
	*int_len = n;
	return SROCE_CNT_MAX;
}

static const void *sroce_int_block(struct sk_buff *skb)
{
	return skb->data + sroce_opcode_hdr_len(SROCE_RX_CB(skb)->info);
}

void sroce_int_rx_req(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_resp *r = &qp->resp;
	u32 len = sroce_rx_int_len(skb);

	lockdep_assert_held(&r->lock);
	sroce_counter_inc(qp->sdev, SROCE_CNT_RX_INT);
	/* the newest request's records: an ACK answers up to it */
	memcpy(r->int_echo, sroce_int_block(skb), len);
	r->int_echo[0] = sroce_int_ver_type(SROCE_INT_VERSION, SROCE_INT_ECHO);
	r->int_echo_len = len;
}

void sroce_int_tx_echo(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_resp *r = &qp->resp;
	struct sroce_bth *bth = (struct sroce_bth *)skb->data;
	const struct sroce_opcode_info *oi;

	lockdep_assert_held(&r->lock);
	oi = sroce_opcode_info(sroce_bth_opcode(bth));
	memcpy(skb->data + sroce_opcode_hdr_len(oi), r->int_echo,
	       r->int_echo_len);
	sroce_bth_set_int(bth, true);
	r->int_echo_len = 0; /* each request's records go back once */
	sroce_counter_inc(qp->sdev, SROCE_CNT_TX_INT_ECHO);
}

void sroce_int_rx_resp(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_cc_int t;
	u64 ack_seq, snd_nxt;

	lockdep_assert_held(&qp->req.lock);
	if (!qp->cc.algo->ops->on_int) {
		sroce_counter_inc(qp->sdev, SROCE_CNT_RX_INT_IGNORED);
		return;
	}
	sroce_int_decode(sroce_int_block(skb), &t);
	/*
	 * HPCC's sequences are byte offsets compared modulo 2^64; PSNs in
	 * the top 24 bits compare modulo 2^24, as PSNs do (C9-xx window).
	 * The response acknowledges its PSN; snd_nxt is after any rewind.
	 */
	ack_seq = (u64)sroce_psn_next(SROCE_RX_CB(skb)->psn) << 40;
	snd_nxt = (u64)qp->req.psn << 40;
	if (sroce_cc_int_ack(qp, ack_seq, snd_nxt, &t))
		sroce_counter_inc(qp->sdev, SROCE_CNT_RX_INT);
	else
		sroce_counter_inc(qp->sdev, SROCE_CNT_RX_INT_IGNORED);
}

int sroce_int_tx_icrc(struct sk_buff *skb, __le32 *icrc)
{
	u32 iph = skb_network_offset(skb);
	u32 off = skb_transport_offset(skb) + SROCE_INT_UDP_HLEN;
	const struct sroce_bth *bth = (const void *)(skb->data + off);
	const struct sroce_opcode_info *oi;
	const struct sroce_int_hdr *h;

	oi = sroce_opcode_info(sroce_bth_opcode(bth));
	if (WARN_ON_ONCE(!oi || iph))
		return -EINVAL;
	off += sroce_opcode_hdr_len(oi);
	if (WARN_ON_ONCE(off + SROCE_INT_HDR_LEN > skb->len))
		return -EINVAL;
	h = (const void *)(skb->data + off);
	return sroce_icrc_compute_less(skb->data, skb->len, off,
				       sroce_int_len(h->nhops), icrc);
}
