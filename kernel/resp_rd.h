/* SPDX-License-Identifier: GPL-2.0 */
/*
 * resp_rd.h - between the responder (resp.c) and its READ/atomic half
 * (resp_rd.c): the per-packet context and the functions they share.
 * Not for use outside the responder.
 */
#ifndef _SROCE_RESP_RD_H
#define _SROCE_RESP_RD_H

#include <linux/skbuff.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "pkt.h"

struct sroce_dev;
struct sroce_qp;

/* ACK at least every this many request packets (coalescing). */
#define SROCE_RESP_ACK_BATCH 16
/*
 * A message end that asked for no ACK is acknowledged after this long if
 * nothing else did (resp.ack_timer): a requester that leaves AckReq off at
 * message end gets its ACK, and sroce's own tail timer (req.h, 1-2
 * SROCE_REQ_TAIL_JIFFIES) always asks first.
 */
#define SROCE_RESP_ACK_DELAY max_t(unsigned long, 4, msecs_to_jiffies(20))
/* READ response packets sent per run before the rest goes to the work. */
#define SROCE_RESP_RD_BUDGET 32

/*
 * What one responder run needs: the QP attributes copied under qp->lock
 * by sroce_resp_snapshot() (so resp.lock never nests qp->lock), and what
 * to do once resp.lock is dropped.
 */
struct sroce_resp_ctx {
	struct sroce_qp *qp;
	struct sroce_dev *sdev;
	u32 gen; /* resp.gen at snapshot time */
	enum ib_qp_state state;
	int mtu; /* path MTU, bytes */
	int access; /* qp_access_flags */
	u32 qkey;
	u32 rq_psn;
	u32 dest_qpn;
	u8 max_dest_rd; /* responder resources */
	u8 min_rnr_timer; /* RNR NAK timer code */
	struct sroce_av av; /* RC/UC: the peer */
	bool comm_est; /* raise IB_EVENT_COMM_EST after unlock */
	bool srq_limit; /* raise IB_EVENT_SRQ_LIMIT_REACHED after unlock */
	bool fatal; /* move the QP to ERR after unlock */
	bool np; /* passed the checks of its QP type: CE may make a CNP */
	unsigned int cq_calls; /* recv CQ callbacks due after unlock (cq.h) */
};

/* Outcome of one request packet (RC/UC). */
enum sroce_resp_act {
	SROCE_ACT_DONE, /* executed: PSN advances */
	SROCE_ACT_RNR, /* no receive WQE: RNR NAK, PSN stays */
	SROCE_ACT_NAK_INV, /* invalid request (fatal) */
	SROCE_ACT_NAK_ACC, /* remote access error (fatal) */
	SROCE_ACT_NAK_OP, /* remote operational error (fatal) */
};

/* States in which the responder runs (IBA 10.3.1). */
static inline bool sroce_resp_state_ok(enum ib_qp_state state)
{
	return state == IB_QPS_RTR || state == IB_QPS_RTS ||
	       state == IB_QPS_SQD || state == IB_QPS_SQE;
}

/* resp.c */
void sroce_resp_snapshot(struct sroce_qp *qp, struct sroce_resp_ctx *c);
void sroce_resp_send_aeth(struct sroce_resp_ctx *c, u32 psn, u8 syndrome);
void sroce_resp_after_unlock(struct sroce_resp_ctx *c);

/* resp_rd.c; resp.lock held unless noted */
enum sroce_resp_act sroce_resp_read_req(struct sroce_resp_ctx *c,
					struct sk_buff *skb);
enum sroce_resp_act sroce_resp_atomic_req(struct sroce_resp_ctx *c,
					  struct sk_buff *skb);
void sroce_resp_rd_replay(struct sroce_resp_ctx *c, struct sk_buff *skb);
u32 sroce_resp_rd_ack_limit(struct sroce_resp_ctx *c, u32 psn);
void sroce_resp_work(struct work_struct *work); /* no lock */
void sroce_resp_work_cancel(struct sroce_qp *qp); /* no lock, may sleep */
/* Pacing timer (cc.c): queue the work if READ responses wait (no lock). */
void sroce_resp_kick(struct sroce_qp *qp);

#endif /* _SROCE_RESP_RD_H */
