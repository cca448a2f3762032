// SPDX-License-Identifier: GPL-2.0
/*
 * int.c - INT of HPCC in the data path (int.h; the wire format and why
 * the ICRC does not cover the block: kernel/proto/int.h, cc.rst).
 *
 * A block is checked on receive before anything else looks at the packet.
 * An RC packet with the INT bit is one with a block if the block parses
 * and the ICRC without it verifies, else a plain packet from a peer that
 * sets the reserved bit if the ICRC over it as it is verifies
 * (rx_int_ignored), else it is dropped (recv.c: rx_int_malformed, or
 * rx_icrc_encapsulated for a block that parsed).  What the records then
 * do is decided only after the checks of the QP (from its peer; for the
 * completer also in the PSN window), as for a CNP: a third host's
 * telemetry never reaches an algorithm.
 *
 * The responder keeps the records of a request it accepted (in sequence
 * and executed) only.  A duplicate changes no responder state (IBA
 * 9.7.5.1.1; rdma_rxe re-ACKs it from its state alone), so its records
 * do not replace the echo: the re-ACK acknowledges ePSN - 1 and carries
 * the echo of the accepted request up to it, if not yet sent.  A request
 * past a PSN gap (NAKed), one the responder NAKs (RNR, errors) and a
 * duplicate count in rx_int_ignored.  An echo goes back in the next ACK
 * or NAK the responder sends after it accepted the request: usually one
 * at or after the request's PSN, but an ACK held back behind queued READ
 * responses (resp_rd.c) may be of an earlier PSN and carry the records of
 * a later request: such a sample is only early by the requests in
 * between, HPCC's W_c stays right.
 *
 * The completer hands the records over with what the response itself
 * acknowledged (sroce_int_ack_seq()): an ACK its PSN, any NAK only the
 * PSNs before it.
 */
#include <linux/udp.h>

#include "cc.h"
#include "int.h"
#include "proto/icrc.h"

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

void sroce_int_rx_resp(struct sroce_qp *qp, struct sk_buff *skb, u8 syn)
{
	struct sroce_cc_int t;
	u64 ack_seq, snd_nxt;

	lockdep_assert_held(&qp->req.lock);
	if (!qp->cc.int_req) {
		sroce_counter_inc(qp->sdev, SROCE_CNT_RX_INT_IGNORED);
		return;
	}
	sroce_int_decode(sroce_int_block(skb), &t);
	/*
	 * What the response acknowledges (a NAK less than its PSN); snd_nxt
	 * is after any rewind the response made.
	 */
	ack_seq = sroce_int_ack_seq(SROCE_RX_CB(skb)->psn, syn);
	snd_nxt = sroce_int_seq(qp->req.psn);
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
