// SPDX-License-Identifier: GPL-2.0
/*
 * restrack.c - QP and CQ state as netlink driver attributes (see
 * restrack.h).  A snapshot: each part is read under the lock that guards
 * it, the parts are not consistent with each other.
 */
#include <rdma/restrack.h>

#include "cc.h"
#include "cq.h"
#include "qp.h"
#include "restrack.h"

struct sroce_restrack_snap {
	u32 psn, una_psn, next, fetched, done, posted, rd_inflight;
	u32 backlog, kick, rnr_wait, tx_held, error;
	u32 win_size, win_ssthresh, win_ai;
	int tx_cpu;
	u32 resp_psn, resp_msn, resp_in_msg, resp_rd_head, resp_rd_send;
	u32 resp_rd_stop;
	u32 rxq_len, rxq_busy;
	u32 sq_hdr_prod, sq_hdr_cons;
};

static void sroce_restrack_snap(struct sroce_qp *qp,
				struct sroce_restrack_snap *s)
{
	struct sroce_req *req = &qp->req;
	struct sroce_resp *r = &qp->resp;
	unsigned long flags;
	unsigned int i;

	spin_lock_bh(&req->lock);
	s->psn = req->psn;
	s->una_psn = req->una_psn;
	s->next = req->next;
	s->fetched = req->fetched;
	s->done = req->done;
	s->posted = req->posted;
	s->rd_inflight = req->rd_inflight;
	s->rnr_wait = req->rnr_wait;
	s->tx_held = req->tx_held;
	s->error = req->error;
	s->tx_cpu = req->tx_cpu;
	s->win_size = req->win.size;
	s->win_ssthresh = req->win.ssthresh;
	s->win_ai = req->win.ai;
	sroce_req_unlock(qp);
	s->backlog = skb_queue_len_lockless(&req->backlog);
	s->kick = READ_ONCE(req->kick);

	spin_lock_irqsave(&r->lock, flags);
	s->resp_psn = r->psn;
	s->resp_msn = r->msn;
	s->resp_in_msg = r->in_msg;
	s->resp_rd_head = r->rd_head;
	s->resp_rd_send = r->rd_send;
	s->resp_rd_stop = r->rd_stop;
	spin_unlock_irqrestore(&r->lock, flags);

	/* The ring header as both sides see it (user space writes prod). */
	s->sq_hdr_prod = READ_ONCE(qp->sq.queue.hdr->prod);
	s->sq_hdr_cons = READ_ONCE(qp->sq.queue.hdr->cons);

	/* Summed over the lanes; busy has bit N for lane N (rxq.h). */
	s->rxq_len = 0;
	s->rxq_busy = 0;
	for (i = 0; i < SROCE_RXQ_LANES; i++) {
		spin_lock_bh(&qp->rxq[i].lock);
		s->rxq_len += skb_queue_len(&qp->rxq[i].skbs);
		s->rxq_busy |= (u32)qp->rxq[i].busy << i;
		spin_unlock_bh(&qp->rxq[i].lock);
	}
}

static int sroce_restrack_fill_qp(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_restrack_snap s;
	struct nlattr *table;

	sroce_restrack_snap(qp, &s);
	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (sroce_cc_fill_res(msg, qp) ||
	    rdma_nl_put_driver_u32_hex(msg, "sq_psn", s.psn) ||
	    rdma_nl_put_driver_u32_hex(msg, "una_psn", s.una_psn) ||
	    rdma_nl_put_driver_u32(msg, "wqe_next", s.next) ||
	    rdma_nl_put_driver_u32(msg, "wqe_fetched", s.fetched) ||
	    rdma_nl_put_driver_u32(msg, "wqe_done", s.done) ||
	    rdma_nl_put_driver_u32(msg, "wqe_posted", s.posted) ||
	    rdma_nl_put_driver_u32(msg, "rd_inflight", s.rd_inflight) ||
	    rdma_nl_put_driver_u32(msg, "comp_backlog", s.backlog) ||
	    rdma_nl_put_driver_u32(msg, "req_kick", s.kick) ||
	    rdma_nl_put_driver_u32(msg, "rnr_wait", s.rnr_wait) ||
	    rdma_nl_put_driver_u32(msg, "tx_held", s.tx_held) ||
	    rdma_nl_put_driver_u32(msg, "req_error", s.error) ||
	    rdma_nl_put_driver_u32(msg, "tx_cpu", (u32)s.tx_cpu) ||
	    rdma_nl_put_driver_u32(msg, "win_size", s.win_size) ||
	    rdma_nl_put_driver_u32(msg, "win_ssthresh", s.win_ssthresh) ||
	    rdma_nl_put_driver_u32(msg, "win_ai", s.win_ai) ||
	    rdma_nl_put_driver_u32_hex(msg, "rq_epsn", s.resp_psn) ||
	    rdma_nl_put_driver_u32(msg, "rq_msn", s.resp_msn) ||
	    rdma_nl_put_driver_u32(msg, "rq_in_msg", s.resp_in_msg) ||
	    rdma_nl_put_driver_u32(msg, "rd_head", s.resp_rd_head) ||
	    rdma_nl_put_driver_u32(msg, "rd_send", s.resp_rd_send) ||
	    rdma_nl_put_driver_u32(msg, "rd_stop", s.resp_rd_stop) ||
	    rdma_nl_put_driver_u32(msg, "rxq_len", s.rxq_len) ||
	    rdma_nl_put_driver_u32(msg, "rxq_busy", s.rxq_busy) ||
	    rdma_nl_put_driver_u32(msg, "sq_ring_prod", s.sq_hdr_prod) ||
	    rdma_nl_put_driver_u32(msg, "sq_ring_cons", s.sq_hdr_cons)) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

static int sroce_restrack_fill_cq(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct sroce_cq *cq = to_scq(ibcq);
	u32 prod, cons, hprod, hcons, nslots;
	struct nlattr *table;
	unsigned long flags;
	bool error;

	spin_lock_irqsave(&cq->lock, flags);
	prod = cq->queue.prod;
	cons = cq->queue.cons;
	hprod = READ_ONCE(cq->queue.hdr->prod);
	hcons = READ_ONCE(cq->queue.hdr->cons);
	nslots = cq->queue.nslots;
	error = cq->error;
	spin_unlock_irqrestore(&cq->lock, flags);

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "nslots", nslots) ||
	    rdma_nl_put_driver_u32(msg, "prod", prod) ||
	    rdma_nl_put_driver_u32(msg, "cons", cons) ||
	    rdma_nl_put_driver_u32(msg, "ring_prod", hprod) ||
	    rdma_nl_put_driver_u32(msg, "ring_cons", hcons) ||
	    rdma_nl_put_driver_u32(msg, "overflow", error)) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

const struct ib_device_ops sroce_restrack_dev_ops = {
	.fill_res_qp_entry = sroce_restrack_fill_qp,
	.fill_res_cq_entry = sroce_restrack_fill_cq,
};
