/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rxq.h - per-QP receive steering: the data work of large packets (ICRC
 * check, copy into memory, ACK) runs on another CPU than the softirq that
 * received them, so that a transfer uses two CPUs even when the IP stack
 * delivers every packet of a QP on one (veth, one NIC queue).
 *
 * Packets with more than SROCE_RXQ_INLINE_MAX payload bytes that carry
 * data to be checked and copied are handed off: request packets (the
 * responder's work) and READ responses (the requester's: without this
 * the response data of a READ was verified and copied in the softirq of
 * the responder's transmit, so both ends of a READ ran on one CPU).  ACKs,
 * atomic ACKs and small packets are processed inline in the softirq while
 * nothing of the QP waits, so latency stays that of the softirq.  Device
 * attribute rx_steer (on by default) switches the hand-off.  (The hangs
 * once seen with it on were a lost doorbell kick on the SEND side, which
 * steering made likely by posting CQEs on another CPU than the
 * application's; see sroce_req_unlock().)
 *
 * A QP has two lanes: requests (the responder's packets) and responses
 * (ACKs, READ responses, atomic ACKs: the completer's).  The two are
 * independent streams with their own PSN spaces and locks (resp.lock,
 * req.lock), so a lane never waits for the other: an ACK processed on one
 * CPU does not push the peer's next request, arriving on the other CPU,
 * into the work.  Within a lane, packets are processed in arrival order
 * and by one context at a time.
 *
 * Memory: besides the per-lane bound, the device counts the truesize of
 * every queued packet (sroce_dev.rxq_bytes, an atomic charged under the
 * lane's lock before the packet is queued, uncharged when it leaves the
 * queue) and drops a packet that would take the count beyond
 * rx_queue_max_bytes.  Concurrent lanes may overshoot by at most one
 * packet each.
 */
#ifndef _SROCE_RXQ_H
#define _SROCE_RXQ_H

#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

struct sroce_qp;

/* Payload bytes up to which a packet is processed in the softirq. */
#define SROCE_RXQ_INLINE_MAX 256
/* Packets a lane may have waiting; more are dropped (and retransmitted). */
#define SROCE_RXQ_MAX_PKTS 2048
/*
 * Memory (skb truesize) the receive queues of all QPs of one device may
 * hold together; sysfs rx_queue_max_bytes, in [MIN, MAX].  The per-lane
 * bound alone allows 2048 packets on each lane of 16k QPs (hundreds of GB):
 * beyond this a packet is dropped and counted (rx_drop_dev_backlog), and
 * RC retransmits it.  64 MiB is some 10000 full 4096-byte packets.
 */
#define SROCE_RXQ_DEV_MAX_BYTES (64UL << 20)
#define SROCE_RXQ_DEV_MIN_BYTES (64UL << 10)
#define SROCE_RXQ_DEV_LIMIT_BYTES (16UL << 30)

/* The lanes of a QP: which state machine consumes the packets. */
enum sroce_rxq_lane {
	SROCE_RXQ_REQ, /* request packets: responder (resp.c) */
	SROCE_RXQ_RESP, /* responses: completer (comp.c) */
	SROCE_RXQ_LANES,
};

struct sroce_rxq {
	/* Guards skbs and busy; taken in softirq and with BH disabled. */
	spinlock_t lock;
	struct sk_buff_head skbs; /* waiting packets, arrival order */
	bool busy; /* a context is processing a packet: others queue */
	/* Drains skbs; holds a QP reference from queueing until it ran. */
	struct work_struct work;
	struct sroce_qp *qp; /* the owner; set once at init */
};

/* create_qp: before the QP is published; inits every lane. */
void sroce_rxq_init(struct sroce_qp *qp);
/*
 * destroy_qp, after no lookup can find the QP any more: cancel the work
 * and free the packets still waiting.
 */
void sroce_rxq_cleanup(struct sroce_qp *qp);
/*
 * A packet for @qp that passed header checks (sroce_recv()); softirq, RCU
 * read side, caller holds a QP reference.  Takes ownership of @skb.
 */
void sroce_rxq_deliver(struct sroce_qp *qp, struct sk_buff *skb);

#endif /* _SROCE_RXQ_H */
