/* SPDX-License-Identifier: GPL-2.0 */
/*
 * int.h - in-band network telemetry (INT) for HPCC in the data path: the
 * requester asks the ports on its path for records, the receive path
 * checks a block and leaves it between the headers and the payload, the
 * responder echoes a request's block in its next ACK and the completer
 * hands an ACK's records to the QP's algorithm (Documentation/cc.rst,
 * "INT on the wire"; the wire format is kernel/proto/int.h).
 *
 * Only an RC QP whose algorithm has on_int (hpcc) asks for INT
 * (qp->cc.int_req); every other QP sends what it always sent.  A block
 * that arrives at any RC QP is checked and stepped over (cb->hdrlen
 * covers it, so the payload is where the rest of the data path looks for
 * it).
 *
 * Contexts: sroce_int_rx_parse() runs in the receive softirq before any
 * QP is known; sroce_int_rx_req() and the echo under the QP's resp.lock;
 * sroce_int_rx_resp() under its req.lock (it takes cc.lock inside).
 */
#ifndef _SROCE_INT_H
#define _SROCE_INT_H

#include <linux/skbuff.h>

#include "counters.h"
#include "proto/int.h"
#include "proto/opcode.h"
#include "qp.h"
#include "recv.h"

/*
 * Receive: the BTH of the packet at skb->data + 8 (UDP) carries the INT
 * bit.  Check the block after the opcode's @hdrlen bytes of headers in
 * the @len bytes from the BTH through the ICRC; its length in *@int_len.
 * SROCE_CNT_MAX if it is well formed; SROCE_CNT_RX_DROP_MALFORMED if the
 * headers cannot be read (the packet is dropped); SROCE_CNT_RX_INT_MALFORMED
 * if no block parses (*@int_len 0: the ICRC then decides whether the packet
 * is plain, recv.c).
 */
enum sroce_counter sroce_int_rx_parse(struct sk_buff *skb,
				      const struct sroce_opcode_info *info,
				      u32 hdrlen, u32 len, u32 *int_len);

/*
 * Bytes of the INT block of a parsed packet whose BTH is @bth (0 without
 * the INT bit: one branch for every other packet).
 */
static inline u32 sroce_rx_int_len_at(struct sk_buff *skb,
				      const struct sroce_bth *bth)
{
	struct sroce_rx_cb *cb = SROCE_RX_CB(skb);

	if (likely(!sroce_bth_int(bth)))
		return 0;
	return cb->hdrlen - sroce_opcode_hdr_len(cb->info);
}

/* The same for a packet that went through sroce_recv() (data at BTH). */
static inline u32 sroce_rx_int_len(struct sk_buff *skb)
{
	return sroce_rx_int_len_at(skb, sroce_rx_bth(skb));
}

/*
 * Responder: a request from the QP's peer that the responder accepted
 * carried a block (resp.lock held): its records are echoed in the next
 * ACK (int.c: not for a duplicate or a request it NAKs).
 */
void sroce_int_rx_req(struct sroce_qp *qp, struct sk_buff *skb);

/*
 * Responder: bytes of the echo the next ACK carries (0: none), and the
 * echo written to @p (that many bytes); resp.lock held.
 */
static inline u32 sroce_int_echo_len(const struct sroce_qp *qp)
{
	return qp->resp.int_echo_len;
}

void sroce_int_tx_echo(struct sroce_qp *qp, struct sk_buff *skb);

/*
 * Completer: a response from the QP's peer in the window, with AETH
 * syndrome @syn (an ACK's if it has no AETH), carried a block (req.lock
 * held): the records go to the QP's algorithm with what it acknowledged.
 */
void sroce_int_rx_resp(struct sroce_qp *qp, struct sk_buff *skb, u8 syn);

/*
 * Requester: a request packet's BTH asks for INT if the algorithm uses it
 * and ACKs can bring it back (RC): qp->cc.int_req, fixed at create.
 */
static inline void sroce_int_tx_req(const struct sroce_qp *qp,
				    struct sroce_bth *bth)
{
	if (unlikely(qp->cc.int_req))
		sroce_bth_set_int_req(bth, true);
}

/*
 * Transmit: the ICRC of a packet (skb->data at the IP header, transport
 * header set) whose BTH has the INT bit: without its block.
 */
int sroce_int_tx_icrc(struct sk_buff *skb, __le32 *icrc);

#endif /* _SROCE_INT_H */
