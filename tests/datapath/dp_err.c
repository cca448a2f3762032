// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * dp_err.c - error semantics of RC (IBA 9.7.5, 9.9, 10.8), each case on a
 * fresh QP pair since most of them leave a QP in ERR: RNR retry (infinite
 * and exhausted), transport retry exhaustion against a silent peer, remote
 * access violations (rkey, bounds, MR access rights, atomic alignment) and
 * local protection / length errors.  The completion status is checked on
 * both sides where the IBA defines one, and so is the responder's QP state
 * and the memory around the target MR (a guard page each side of it).
 *
 * The server side of a case is driven by the DP_CMD_E_* commands (see
 * dp_err_serve()); the client side is dp_err_tests().
 */
#include "dp.h"

#define E_PAGE 4096
#define E_AREA (3 * E_PAGE) /* guard page, MR page, guard page */
#define E_FILL 0x5c /* the whole area before a case */
#define E_DEPTH 8
#define E_RECV_WRID 0xe7ecULL
#define E_WAIT_MS 5000

#define E_ALL_ACCESS                                        \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

/* One side of a case: its own CQs and QP, and (server) the guarded MR. */
struct e_side {
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *area;
	uint32_t psn;
};

/* QP attributes of the requester side of a case. */
struct e_param {
	uint8_t min_rnr_timer, timeout, retry_cnt, rnr_retry;
};

static const struct e_param e_default = { 12, 14, 7, 7 };

static void e_free(struct e_side *e)
{
	if (e->qp)
		ibv_destroy_qp(e->qp);
	if (e->mr)
		ibv_dereg_mr(e->mr);
	if (e->scq)
		ibv_destroy_cq(e->scq);
	if (e->rcq)
		ibv_destroy_cq(e->rcq);
	free(e->area);
	memset(e, 0, sizeof(*e));
}

/* Fresh CQs and RC QP; with @mr_access >= 0 also the guarded MR. */
static int e_create(struct dp_res *r, struct e_side *e, int mr_access)
{
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = E_DEPTH,
			 .max_recv_wr = E_DEPTH,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	e_free(e);
	e->scq = ibv_create_cq(r->ctx, 2 * E_DEPTH, NULL, NULL, 0);
	e->rcq = ibv_create_cq(r->ctx, 2 * E_DEPTH, NULL, NULL, 0);
	if (!e->scq || !e->rcq)
		return -1;
	ia.send_cq = e->scq;
	ia.recv_cq = e->rcq;
	e->qp = ibv_create_qp(r->pd, &ia);
	if (!e->qp)
		return -1;
	e->psn = (uint32_t)(lrand48() & 0xffffff);
	if (mr_access < 0)
		return 0;
	e->area = aligned_alloc(E_PAGE, E_AREA);
	if (!e->area)
		return -1;
	memset(e->area, E_FILL, E_AREA);
	e->mr = ibv_reg_mr(r->pd, e->area + E_PAGE, E_PAGE, mr_access);
	return e->mr ? 0 : -1;
}

/* RESET -> INIT -> RTR -> RTS towards @dqpn of @dgid. */
static int e_connect(struct dp_res *r, struct e_side *e, const uint8_t *dgid,
		     uint32_t dqpn, uint32_t rq_psn, const struct e_param *p)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = E_ALL_ACCESS,
	};

	if (ibv_modify_qp(e->qp, &a,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = r->mtu_enum;
	a.dest_qp_num = dqpn;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = (uint8_t)r->rd_atom;
	a.min_rnr_timer = p->min_rnr_timer;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.sgid_index = (uint8_t)r->gid_idx;
	a.ah_attr.grh.hop_limit = 64;
	memcpy(a.ah_attr.grh.dgid.raw, dgid, 16);
	if (ibv_modify_qp(e->qp, &a,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = p->timeout;
	a.retry_cnt = p->retry_cnt;
	a.rnr_retry = p->rnr_retry;
	a.sq_psn = e->psn;
	a.max_rd_atomic = (uint8_t)r->rd_atom;
	return ibv_modify_qp(e->qp, &a,
			     IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				     IBV_QP_MAX_QP_RD_ATOMIC);
}

static int64_t e_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Wait up to @ms for one completion on @cq: 0 got one, -1 none. */
static int e_poll(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	int64_t deadline = e_now_us() + (int64_t)ms * 1000;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			return -1;
		if (n == 1)
			return 0;
		if (e_now_us() > deadline)
			return -1;
		usleep(50);
	}
}

/* ---- server ---- */

static struct e_side S;

/* The receive buffer: the scratch half of the main buffer. */
static uint8_t *e_rbuf(struct dp_res *r)
{
	return r->buf + r->size / 2;
}

static int e_srv_setup(struct dp_res *r, const struct dp_msg *m,
		       struct dp_ans *a, const struct dp_peer *peer)
{
	struct e_param p = e_default;

	p.min_rnr_timer = (uint8_t)m->imm;
	if (e_create(r, &S, (int)m->op) ||
	    e_connect(r, &S, peer->gid, m->src_qp, m->nsge, &p)) {
		snprintf(a->msg, sizeof(a->msg), "error-case QP setup: %s",
			 strerror(errno));
		return -1;
	}
	a->val = S.qp->qp_num;
	a->len = S.psn;
	a->addr = (uintptr_t)(S.area + E_PAGE);
	a->rkey = S.mr->rkey;
	return 0;
}

static int e_srv_guard(struct dp_ans *a)
{
	static const char *const where[] = { "guard page before the MR", "MR",
					     "guard page after the MR" };
	int i;

	for (i = 0; i < E_AREA; i++)
		if (S.area[i] != E_FILL) {
			snprintf(a->msg, sizeof(a->msg),
				 "byte %d of the %s changed to %#x", i % E_PAGE,
				 where[i / E_PAGE], S.area[i]);
			return -1;
		}
	return 0;
}

int dp_err_serve(struct dp_res *r, const struct dp_msg *m, struct dp_ans *a)
{
	static struct dp_peer me_peer;
	struct ibv_recv_wr wr = {}, *bad;
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa = {};
	struct ibv_sge sge;
	struct ibv_wc wc;
	int ret;

	if (m->cmd != DP_CMD_E_SETUP && !S.qp) {
		snprintf(a->msg, sizeof(a->msg), "no error-case QP");
		return -1;
	}
	switch (m->cmd) {
	case DP_CMD_E_SETUP:
		/* The client's GID travels in off/seed (16 bytes). */
		memcpy(me_peer.gid, &m->off, 8);
		memcpy(me_peer.gid + 8, &m->seed, 8);
		return e_srv_setup(r, m, a, &me_peer);
	case DP_CMD_E_POST_RECV:
		memset(e_rbuf(r), 0xa5, m->len + 64);
		sge.addr = (uintptr_t)e_rbuf(r);
		sge.length = m->len;
		sge.lkey = r->mr->lkey;
		wr.wr_id = E_RECV_WRID;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		ret = ibv_post_recv(S.qp, &wr, &bad);
		if (ret)
			snprintf(a->msg, sizeof(a->msg), "ibv_post_recv: %s",
				 strerror(ret));
		return ret ? -1 : 0;
	case DP_CMD_E_POLL:
		if (e_poll(S.rcq, &wc, (int)m->val)) {
			snprintf(a->msg, sizeof(a->msg),
				 "no receive completion within %d ms",
				 (int)m->val);
			return -1;
		}
		a->val = wc.status;
		a->len = wc.byte_len;
		if (wc.wr_id != E_RECV_WRID) {
			snprintf(a->msg, sizeof(a->msg), "receive wr_id %#llx",
				 (unsigned long long)wc.wr_id);
			return -1;
		}
		if (wc.status == IBV_WC_SUCCESS && m->seed) {
			struct ibv_sge s = { .addr = (uintptr_t)e_rbuf(r),
					     .length = m->len };

			return dp_sge_verify(&s, 1, m->len, m->seed, a->msg,
					     sizeof(a->msg));
		}
		return 0;
	case DP_CMD_E_STATE:
		if (ibv_query_qp(S.qp, &qa, IBV_QP_STATE, &ia)) {
			snprintf(a->msg, sizeof(a->msg), "ibv_query_qp failed");
			return -1;
		}
		a->val = qa.qp_state;
		return 0;
	case DP_CMD_E_MODIFY:
		qa.qp_state = (enum ibv_qp_state)m->val;
		ret = ibv_modify_qp(S.qp, &qa, IBV_QP_STATE);
		if (ret)
			snprintf(a->msg, sizeof(a->msg), "modify_qp: %s",
				 strerror(ret));
		return ret ? -1 : 0;
	case DP_CMD_E_GUARD:
		return e_srv_guard(a);
	default:
		snprintf(a->msg, sizeof(a->msg), "unknown command %u", m->cmd);
		return -1;
	}
}

/* ---- client ---- */

static struct e_side C;
static struct dp_res *R;
static int ctl;
static const struct dp_peer *P;
static struct dp_ans srv; /* the server's answer to E_SETUP */
static char e_note[64]; /* appended to the case's name (measurements) */

static int e_ask(uint32_t cmd, uint32_t len, uint64_t val, uint64_t seed,
		 struct dp_ans *a)
{
	struct dp_msg m = { .cmd = cmd, .len = len, .val = val, .seed = seed };

	if (dp_ctl_send(ctl, &m, sizeof(m)) ||
	    dp_ctl_recv(ctl, a, sizeof(*a))) {
		snprintf(a->msg, sizeof(a->msg), "control connection lost");
		return -1;
	}
	return a->status;
}

/* A fresh pair: the server's QP gets @mr_access on its guarded MR and
 * min_rnr_timer @p->min_rnr_timer; ours the retry parameters of @p. */
static int e_pair(int mr_access, const struct e_param *p, char *err, size_t el)
{
	struct dp_msg m = { .cmd = DP_CMD_E_SETUP,
			    .op = (uint32_t)mr_access,
			    .imm = p->min_rnr_timer };

	if (e_create(R, &C, -1)) {
		snprintf(err, el, "client QP: %s", strerror(errno));
		return -1;
	}
	m.src_qp = C.qp->qp_num;
	m.nsge = C.psn;
	memcpy(&m.off, R->gid.raw, 8);
	memcpy(&m.seed, R->gid.raw + 8, 8);
	if (dp_ctl_send(ctl, &m, sizeof(m)) ||
	    dp_ctl_recv(ctl, &srv, sizeof(srv)) || srv.status) {
		snprintf(err, el, "server: %s", srv.msg);
		return -1;
	}
	if (e_connect(R, &C, P->gid, (uint32_t)srv.val, srv.len, p)) {
		snprintf(err, el, "client connect: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Post one WR with @flags on our QP; the errno value, or 0. */
static int e_post_flags(enum ibv_wr_opcode op, uint64_t wr_id, uint64_t laddr,
			uint32_t len, uint32_t lkey, uint64_t raddr,
			uint32_t rkey, unsigned int flags)
{
	struct ibv_sge sge = { .addr = laddr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = {}, *bad;

	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = flags;
	if (op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 1;
		wr.wr.atomic.swap = 2;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	return ibv_post_send(C.qp, &wr, &bad);
}

/* A signaled WR; -1 with @err filled if the post fails. */
static int e_post(enum ibv_wr_opcode op, uint64_t wr_id, uint64_t laddr,
		  uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey,
		  char *err, size_t el)
{
	int ret = e_post_flags(op, wr_id, laddr, len, lkey, raddr, rkey,
			       IBV_SEND_SIGNALED);

	if (ret)
		snprintf(err, el, "ibv_post_send: %s", strerror(ret));
	return ret ? -1 : 0;
}

/* Our next send completion: @wr_id with status @st within @ms. */
static int e_expect(uint64_t wr_id, enum ibv_wc_status st, int ms,
		    const char *what, char *err, size_t el)
{
	struct ibv_wc wc;

	if (e_poll(C.scq, &wc, ms)) {
		snprintf(err, el, "%s: no completion within %d ms", what, ms);
		return -1;
	}
	if (wc.wr_id != wr_id || wc.status != st) {
		snprintf(err, el,
			 "%s: wr_id %#llx %s (vendor_err %u), want %#llx %s",
			 what, (unsigned long long)wc.wr_id,
			 ibv_wc_status_str(wc.status), wc.vendor_err,
			 (unsigned long long)wr_id, ibv_wc_status_str(st));
		return -1;
	}
	return 0;
}

/* A SEND posted after the error is flushed (the QP is in ERR). */
static int e_flushed(char *err, size_t el)
{
	if (e_post(IBV_WR_SEND, 0xf1, (uintptr_t)R->buf, 8, R->mr->lkey, 0, 0,
		   err, el))
		return -1;
	return e_expect(0xf1, IBV_WC_WR_FLUSH_ERR, E_WAIT_MS,
			"WR after the error", err, el);
}

static int e_srv_state(enum ibv_qp_state want, char *err, size_t el)
{
	static const char *const nm[] = { "RESET", "INIT", "RTR", "RTS",
					  "SQD",   "SQE",  "ERR" };
	struct dp_ans a;

	if (e_ask(DP_CMD_E_STATE, 0, 0, 0, &a)) {
		snprintf(err, el, "server: %s", a.msg);
		return -1;
	}
	if (a.val != want) {
		snprintf(err, el, "responder QP state %s, want %s",
			 a.val < 7 ? nm[a.val] : "?", nm[want]);
		return -1;
	}
	return 0;
}

/* The server's receive completes with @st (and, if @seed, holds data). */
static int e_srv_recv(enum ibv_wc_status st, uint32_t len, uint64_t seed,
		      char *err, size_t el)
{
	struct dp_ans a;

	if (e_ask(DP_CMD_E_POLL, len, E_WAIT_MS, seed, &a)) {
		snprintf(err, el, "server: %s", a.msg);
		return -1;
	}
	if (a.val != st || (st == IBV_WC_SUCCESS && a.len != len)) {
		snprintf(err, el,
			 "responder's receive: %s byte_len %u, want %s %u",
			 ibv_wc_status_str((enum ibv_wc_status)a.val), a.len,
			 ibv_wc_status_str(st), len);
		return -1;
	}
	return 0;
}

/* RNR with rnr_retry 7 (infinite): the SEND waits for the receive. */
static int e_rnr_wait(char *err, size_t el)
{
	struct e_param p = { 8, 14, 7, 7 }; /* min_rnr_timer 8: 0.16 ms */
	uint64_t seed = 0x3a7e5eedULL;
	struct ibv_wc wc;
	struct dp_ans a;

	if (e_pair(E_ALL_ACCESS, &p, err, el))
		return -1;
	dp_fill(R->buf, 256, seed);
	if (e_post(IBV_WR_SEND, 0x4e1, (uintptr_t)R->buf, 256, R->mr->lkey, 0,
		   0, err, el))
		return -1;
	if (!e_poll(C.scq, &wc, 300)) {
		snprintf(err, el, "SEND completed (%s) with no receive posted",
			 ibv_wc_status_str(wc.status));
		return -1;
	}
	if (e_ask(DP_CMD_E_POST_RECV, 256, 0, 0, &a)) {
		snprintf(err, el, "server: %s", a.msg);
		return -1;
	}
	if (e_expect(0x4e1, IBV_WC_SUCCESS, E_WAIT_MS, "SEND", err, el))
		return -1;
	return e_srv_recv(IBV_WC_SUCCESS, 256, seed, err, el);
}

/*
 * RNR twice with rnr_retry 1, the first SEND completed in between: the
 * retry count is per request (IBA C9-141, rdma_rxe), so the second SEND
 * waits for its receive too.  min_rnr_timer 0 (655 ms): each SEND's
 * retry comes after its receive is posted.
 */
static int e_rnr_twice(char *err, size_t el)
{
	struct e_param p = { 0, 14, 7, 1 };
	uint64_t seed = 0x3a7e5eeeULL;
	struct ibv_wc wc;
	struct dp_ans a;
	int i;

	if (e_pair(E_ALL_ACCESS, &p, err, el))
		return -1;
	for (i = 0; i < 2; i++) {
		uint64_t id = 0x4e3 + (uint64_t)i;

		dp_fill(R->buf, 256, seed + (uint64_t)i);
		if (e_post(IBV_WR_SEND, id, (uintptr_t)R->buf, 256,
			   R->mr->lkey, 0, 0, err, el))
			return -1;
		if (!e_poll(C.scq, &wc, 100)) {
			snprintf(err, el,
				 "SEND %d completed (%s) with no receive posted",
				 i + 1, ibv_wc_status_str(wc.status));
			return -1;
		}
		if (e_ask(DP_CMD_E_POST_RECV, 256, 0, 0, &a)) {
			snprintf(err, el, "server: %s", a.msg);
			return -1;
		}
		if (e_expect(id, IBV_WC_SUCCESS, E_WAIT_MS, "SEND", err, el) ||
		    e_srv_recv(IBV_WC_SUCCESS, 256, seed + (uint64_t)i, err,
			       el))
			return -1;
	}
	return 0;
}

/* RNR with rnr_retry 1 and no receive ever: RNR_RETRY_EXC_ERR. */
static int e_rnr_exc(char *err, size_t el)
{
	struct e_param p = { 8, 14, 7, 1 };

	if (e_pair(E_ALL_ACCESS, &p, err, el) ||
	    e_post(IBV_WR_SEND, 0x4e2, (uintptr_t)R->buf, 64, R->mr->lkey, 0, 0,
		   err, el) ||
	    e_expect(0x4e2, IBV_WC_RNR_RETRY_EXC_ERR, E_WAIT_MS, "SEND", err,
		     el) ||
	    e_flushed(err, el))
		return -1;
	/* RNR is no error of the responder: its QP stays in RTS. */
	return e_srv_state(IBV_QPS_RTS, err, el);
}

/*
 * The responder goes silent (its QP moved to @state): with timeout 12
 * (16.8 ms) and retry_cnt 1 the WRITE fails with RETRY_EXC_ERR after
 * 2 timeouts, no sooner than the computed time; IBA C9-141 allows each to
 * last up to 4x the computed value, and we allow another second for the
 * emulated guest.
 */
static int e_retry(enum ibv_qp_state state, char *err, size_t el)
{
	struct e_param p = { 12, 12, 1, 7 };
	int64_t t0, us, budget = (int64_t)4096 * 4096 * 2 / 1000; /* us */
	struct dp_ans a;

	if (e_pair(E_ALL_ACCESS, &p, err, el))
		return -1;
	if (e_ask(DP_CMD_E_MODIFY, 0, state, 0, &a)) {
		snprintf(err, el, "server: %s", a.msg);
		return -1;
	}
	t0 = e_now_us();
	if (e_post(IBV_WR_RDMA_WRITE, 0x7e1, (uintptr_t)R->buf, 64, R->mr->lkey,
		   srv.addr, srv.rkey, err, el) ||
	    e_post(IBV_WR_RDMA_WRITE, 0x7e2, (uintptr_t)R->buf, 64, R->mr->lkey,
		   srv.addr, srv.rkey, err, el) ||
	    e_expect(0x7e1, IBV_WC_RETRY_EXC_ERR, E_WAIT_MS, "WRITE", err, el))
		return -1;
	us = e_now_us() - t0;
	snprintf(e_note, sizeof(e_note), " (%lld ms, computed %lld ms)",
		 (long long)us / 1000, (long long)budget / 1000);
	if (us > 4 * budget + 1000000) {
		snprintf(err, el, "RETRY_EXC_ERR after %lld us, budget %lld us",
			 (long long)us, (long long)(4 * budget + 1000000));
		return -1;
	}
	/* ... and the computed value is a lower bound (C9-141). */
	if (us < budget) {
		snprintf(err, el,
			 "RETRY_EXC_ERR after only %lld us (computed %lld us)",
			 (long long)us, (long long)budget);
		return -1;
	}
	return e_expect(0x7e2, IBV_WC_WR_FLUSH_ERR, E_WAIT_MS, "second WRITE",
			err, el);
}

/*
 * An 8-byte WRITE of e_tail(), posted again every 200 us while the SQ is
 * full (ENOMEM), until 1 s after @t0.  The result of the last post.
 */
static int e_tail_post(uint64_t wr_id, uint64_t laddr, uint32_t lkey,
		       uint64_t raddr, unsigned int flags, int64_t t0)
{
	int ret;

	for (;;) {
		ret = e_post_flags(IBV_WR_RDMA_WRITE, wr_id, laddr, 8, lkey,
				   raddr, srv.rkey, flags);
		if (ret != ENOMEM || e_now_us() - t0 >= 1000000)
			return ret;
		usleep(200);
	}
}

/*
 * An unsignaled tail.  Unsignaled WRITEs are posted until the SQ refuses
 * one (ENOMEM) or 64 went.  With ACK coalescing their packets ask for no
 * ACK, and nothing follows them: the requester's tail timer must get them
 * acknowledged long before the retransmit timeout (timeout 20: 4.3 s), so
 * the SQ takes a WRITE again within 1 s.  Then a signaled WRITE completes
 * with SUCCESS and no other completion comes first.  (Without coalescing each
 * WRITE is acknowledged at once and the SQ never fills.)
 */
static int e_tail(int sqd, char *err, size_t el)
{
	struct e_param p = { 12, 20, 7, 7 };
	uint64_t laddr = (uintptr_t)R->buf;
	uint32_t lkey = R->mr->lkey;
	struct ibv_qp_attr qa = {};
	int64_t t0, us;
	int n, ret = 0;

	if (e_pair(E_ALL_ACCESS, &p, err, el))
		return -1;
	for (n = 0; n < 64; n++) {
		ret = e_post_flags(IBV_WR_RDMA_WRITE, 0x7a00 + n, laddr, 8,
				   lkey, srv.addr, srv.rkey, 0);
		if (ret)
			break;
	}
	if (ret && ret != ENOMEM) {
		snprintf(err, el, "unsignaled WRITE %d: %s", n, strerror(ret));
		return -1;
	}
	/* @sqd: to SQD at once (before the tail timer), back to RTS later. */
	qa.qp_state = IBV_QPS_SQD;
	if (sqd && ibv_modify_qp(C.qp, &qa, IBV_QP_STATE)) {
		snprintf(err, el, "modify to SQD: %s", strerror(errno));
		return -1;
	}
	qa.qp_state = IBV_QPS_RTS;
	if (sqd && (usleep(20000), ibv_modify_qp(C.qp, &qa, IBV_QP_STATE))) {
		snprintf(err, el, "modify SQD -> RTS: %s", strerror(errno));
		return -1;
	}
	t0 = e_now_us();
	if (ret == ENOMEM)
		ret = e_tail_post(0x7aff, laddr, lkey, srv.addr, 0, t0);
	us = e_now_us() - t0;
	if (ret) {
		snprintf(err, el, "SQ full (%d WRITEs) still after %lld ms: %s",
			 n, (long long)us / 1000, strerror(ret));
		return -1;
	}
	if (n < 64)
		snprintf(e_note, sizeof(e_note), " (SQ full at %d, free in %lld ms)",
			 n, (long long)us / 1000);
	else
		snprintf(e_note, sizeof(e_note), " (SQ never full)");
	/*
	 * The probe resends each message with AckReq, so the slots may come
	 * back one ACK at a time (seen on the debug kernel: the WRITE above
	 * took the first one, the next post found the SQ full again): the
	 * signaled WRITE waits for a slot within the same second.
	 */
	ret = e_tail_post(0x7b00, laddr, lkey, srv.addr + 8, IBV_SEND_SIGNALED,
			  t0);
	if (ret) {
		snprintf(err, el, "signaled WRITE after %lld ms: %s",
			 (long long)(e_now_us() - t0) / 1000, strerror(ret));
		return -1;
	}
	return e_expect(0x7b00, IBV_WC_SUCCESS, E_WAIT_MS, "signaled WRITE",
			err, el);
}

/*
 * A remote access violation: @op of @len bytes at @off into the server's
 * guarded MR (registered with @mr_access), rkey xor @rkey_xor.  The
 * requester gets @want; the responder NAKs, its QP goes to ERR and its
 * posted receive flushes (IBA 9.9.3: responder errors on RC put its QP
 * in ERR); no byte of the MR or around it changes.
 */
static int e_remote(enum ibv_wr_opcode op, int mr_access, int64_t off,
		    uint32_t len, uint32_t rkey_xor, enum ibv_wc_status want,
		    char *err, size_t el)
{
	uint8_t *lbuf = R->buf + R->size / 2;
	struct dp_ans a;

	if (e_pair(mr_access, &e_default, err, el))
		return -1;
	if (e_ask(DP_CMD_E_POST_RECV, 16, 0, 0, &a)) {
		snprintf(err, el, "server: %s", a.msg);
		return -1;
	}
	memset(lbuf, 0x11, len);
	if (e_post(op, 0xacc, (uintptr_t)lbuf, len, R->mr->lkey,
		   srv.addr + (uint64_t)off, srv.rkey ^ rkey_xor, err, el) ||
	    e_expect(0xacc, want, E_WAIT_MS, "request", err, el) ||
	    e_flushed(err, el) || e_srv_state(IBV_QPS_ERR, err, el) ||
	    e_srv_recv(IBV_WC_WR_FLUSH_ERR, 16, 0, err, el))
		return -1;
	if (e_ask(DP_CMD_E_GUARD, 0, 0, 0, &a)) {
		snprintf(err, el, "server: %s", a.msg);
		return -1;
	}
	return 0;
}

/* A send SGE the local MR does not cover: LOC_PROT_ERR, nothing sent. */
static int e_local_prot(int bad_lkey, char *err, size_t el)
{
	uint64_t addr = (uintptr_t)R->buf;
	uint32_t lkey = R->mr->lkey;
	struct dp_ans a;

	if (bad_lkey)
		lkey ^= 0x5a5a00;
	else
		addr += R->size - 16; /* 64 bytes, 48 past the MR's end */
	if (e_pair(E_ALL_ACCESS, &e_default, err, el))
		return -1;
	if (e_ask(DP_CMD_E_POST_RECV, 64, 0, 0, &a)) {
		snprintf(err, el, "server: %s", a.msg);
		return -1;
	}
	if (e_post(IBV_WR_SEND, 0x10c, addr, 64, lkey, 0, 0, err, el) ||
	    e_expect(0x10c, IBV_WC_LOC_PROT_ERR, E_WAIT_MS, "SEND", err, el) ||
	    e_flushed(err, el))
		return -1;
	/* The responder saw nothing: still RTS, its receive still posted. */
	if (e_srv_state(IBV_QPS_RTS, err, el))
		return -1;
	if (!e_ask(DP_CMD_E_POLL, 64, 200, 0, &a)) {
		snprintf(err, el, "responder's receive completed: %s",
			 ibv_wc_status_str((enum ibv_wc_status)a.val));
		return -1;
	}
	return 0;
}

/*
 * A SEND longer than the receive: the responder completes it with
 * LOC_LEN_ERR and NAKs Invalid Request, so the requester gets
 * REM_INV_REQ_ERR (IBA 9.7.5.2.2: Invalid Request NAK, class C error).
 */
static int e_recv_short(char *err, size_t el)
{
	struct dp_ans a;

	if (e_pair(E_ALL_ACCESS, &e_default, err, el))
		return -1;
	if (e_ask(DP_CMD_E_POST_RECV, 16, 0, 0, &a)) {
		snprintf(err, el, "server: %s", a.msg);
		return -1;
	}
	if (e_post(IBV_WR_SEND, 0x1e4, (uintptr_t)R->buf, 64, R->mr->lkey, 0, 0,
		   err, el) ||
	    e_expect(0x1e4, IBV_WC_REM_INV_REQ_ERR, E_WAIT_MS, "SEND", err,
		     el) ||
	    e_srv_recv(IBV_WC_LOC_LEN_ERR, 16, 0, err, el) ||
	    e_flushed(err, el))
		return -1;
	return e_srv_state(IBV_QPS_ERR, err, el);
}

/*
 * A SEND with Invalidate whose rkey names no fast-registration MR (here
 * the server's ordinary MR, which cannot be invalidated): the responder
 * completes its receive with REM_INV_REQ_ERR and NAKs Invalid Request
 * (as rdma_rxe), so the requester gets REM_INV_REQ_ERR too.
 */
static int e_send_inv(char *err, size_t el)
{
	struct ibv_sge sge = { .addr = (uintptr_t)R->buf,
			       .length = 32,
			       .lkey = R->mr->lkey };
	struct ibv_send_wr wr = {}, *bad;
	struct dp_ans a;
	int ret;

	if (e_pair(E_ALL_ACCESS, &e_default, err, el))
		return -1;
	if (e_ask(DP_CMD_E_POST_RECV, 64, 0, 0, &a)) {
		snprintf(err, el, "server: %s", a.msg);
		return -1;
	}
	wr.wr_id = 0x1b5;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = srv.rkey;
	ret = ibv_post_send(C.qp, &wr, &bad);
	if (ret) {
		snprintf(err, el, "ibv_post_send: %s", strerror(ret));
		return -1;
	}
	if (e_expect(0x1b5, IBV_WC_REM_INV_REQ_ERR, E_WAIT_MS, "SEND_WITH_INV",
		     err, el) ||
	    e_srv_recv(IBV_WC_REM_INV_REQ_ERR, 64, 0, err, el) ||
	    e_flushed(err, el))
		return -1;
	return e_srv_state(IBV_QPS_ERR, err, el);
}

/* A signaled bind of @len bytes at the start of @mr, remote write. */
static void e_bind_fill(struct ibv_mw_bind *b, uint64_t wr_id,
			struct ibv_mr *mr, uint64_t len)
{
	b->wr_id = wr_id;
	b->send_flags = IBV_SEND_SIGNALED;
	b->bind_info.mr = mr;
	b->bind_info.addr = (uintptr_t)mr->addr;
	b->bind_info.length = len;
	b->bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
}

/*
 * Memory windows, on the client's fresh QP.  @c 0: a type 1 window bound
 * to an MR with MW_BIND completes (IBV_WC_BIND_MW); the MR cannot be
 * deregistered while the window is bound (EBUSY), then can after
 * dealloc_mw.  @c 1: a bind past the MR's end is refused by ibv_bind_mw
 * (EINVAL) and nothing completes.  @c 2: a type 2 bind on an MR without
 * MW_BIND completes with MW_BIND_ERR and the QP is flushed.
 */
static int e_mw(int c, char *err, size_t el)
{
	struct ibv_mr *mr = NULL, *target = R->mr;
	struct ibv_mw *mw = NULL;
	struct ibv_mw_bind b = {};
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_wc wc;
	int ret, rc = -1;

	if (e_pair(E_ALL_ACCESS, &e_default, err, el))
		return -1;
	if (c < 2) {
		mr = ibv_reg_mr(R->pd, R->buf + R->size / 2, 4096,
				IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_REMOTE_WRITE |
					IBV_ACCESS_MW_BIND);
		if (!mr) {
			snprintf(err, el, "reg_mr with MW_BIND: %s",
				 strerror(errno));
			return -1;
		}
		target = mr;
	}
	mw = ibv_alloc_mw(R->pd, c < 2 ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2);
	if (!mw) {
		snprintf(err, el, "alloc_mw: %s", strerror(errno));
		goto out;
	}
	e_bind_fill(&b, 0x3b1d, target, c == 1 ? target->length + 1 : 1024);
	if (c == 2) {
		wr.wr_id = 0x3b1d;
		wr.opcode = IBV_WR_BIND_MW;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.bind_mw.mw = mw;
		wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
		wr.bind_mw.bind_info = b.bind_info;
		ret = ibv_post_send(C.qp, &wr, &bad);
	} else {
		ret = ibv_bind_mw(C.qp, mw, &b);
	}
	if (c == 1) {
		if (ret != EINVAL) {
			snprintf(err, el, "bind past the MR: %d, want EINVAL",
				 ret);
			goto out;
		}
		if (!e_poll(C.scq, &wc, 200)) {
			snprintf(err, el, "a refused bind completed");
			goto out;
		}
		rc = 0;
		goto out;
	}
	if (ret) {
		snprintf(err, el, "bind: %s", strerror(ret));
		goto out;
	}
	if (c == 2) {
		rc = e_expect(0x3b1d, IBV_WC_MW_BIND_ERR, E_WAIT_MS, "BIND_MW",
			      err, el) ||
		     e_flushed(err, el);
		goto out;
	}
	if (e_poll(C.scq, &wc, E_WAIT_MS) || wc.status != IBV_WC_SUCCESS ||
	    wc.opcode != IBV_WC_BIND_MW) {
		snprintf(err, el, "bind completion: %s opcode %d",
			 ibv_wc_status_str(wc.status), wc.opcode);
		goto out;
	}
	ret = ibv_dereg_mr(mr);
	if (ret != EBUSY) {
		if (!ret)
			mr = NULL;
		snprintf(err, el, "dereg_mr of a bound MR: %d, want EBUSY",
			 ret);
		goto out;
	}
	ret = ibv_dealloc_mw(mw);
	mw = NULL;
	if (ret) {
		snprintf(err, el, "dealloc_mw: %s", strerror(ret));
		goto out;
	}
	ret = ibv_dereg_mr(mr);
	mr = NULL;
	if (ret) {
		snprintf(err, el, "dereg_mr after dealloc_mw: %s",
			 strerror(ret));
		goto out;
	}
	rc = 0;
out:
	if (mw)
		ibv_dealloc_mw(mw);
	if (mr)
		ibv_dereg_mr(mr);
	return rc;
}

/*
 * An unsignaled WRITE, then a signaled type 1 BIND_MW: a local operation
 * waits until every earlier WQE completed, i.e. for the WRITE's ACK, which
 * the WRITE did not ask for.  The tail timer must ask although the bind is
 * already fetched: the bind completes well within the retransmit timeout
 * (timeout 20: 4.3 s), here within 1 s.
 */
static int e_tail_local(char *err, size_t el)
{
	struct e_param p = { 12, 20, 7, 7 };
	struct ibv_mw_bind b = {};
	struct ibv_mw *mw = NULL;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	int ret, rc = -1;
	int64_t t0;

	if (e_pair(E_ALL_ACCESS, &p, err, el))
		return -1;
	mr = ibv_reg_mr(R->pd, R->buf + R->size / 2, 4096,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				IBV_ACCESS_MW_BIND);
	if (!mr) {
		snprintf(err, el, "reg_mr with MW_BIND: %s", strerror(errno));
		return -1;
	}
	mw = ibv_alloc_mw(R->pd, IBV_MW_TYPE_1);
	if (!mw) {
		snprintf(err, el, "alloc_mw: %s", strerror(errno));
		goto out;
	}
	t0 = e_now_us();
	ret = e_post_flags(IBV_WR_RDMA_WRITE, 0x7c00, (uintptr_t)R->buf, 8,
			   R->mr->lkey, srv.addr, srv.rkey, 0);
	if (ret) {
		snprintf(err, el, "unsignaled WRITE: %s", strerror(ret));
		goto out;
	}
	e_bind_fill(&b, 0x7c01, mr, 1024);
	ret = ibv_bind_mw(C.qp, mw, &b);
	if (ret) {
		snprintf(err, el, "bind: %s", strerror(ret));
		goto out;
	}
	if (e_poll(C.scq, &wc, 1000) || wc.wr_id != 0x7c01 ||
	    wc.status != IBV_WC_SUCCESS) {
		snprintf(err, el, "no bind completion within 1 s (%lld ms)",
			 (long long)(e_now_us() - t0) / 1000);
		goto out;
	}
	snprintf(e_note, sizeof(e_note), " (%lld ms)",
		 (long long)(e_now_us() - t0) / 1000);
	rc = 0;
out:
	if (mw)
		ibv_dealloc_mw(mw);
	ibv_dereg_mr(mr);
	return rc;
}

/*
 * A signaled READ of the server's MR page, then an unsignaled WRITE
 * (ACK coalescing: it asks for none): both complete, the WRITE shown by
 * a signaled WRITE after it.  With the READ's responses slowed down
 * (t-datapath sets rx_delay_us on the client), t-datapath checks on the
 * server that the tail timer waited for them: only the WRITE came again,
 * not the READ.
 */
static int e_tail_read(char *err, size_t el)
{
	struct e_param p = { 12, 20, 7, 7 };
	uint64_t laddr = (uintptr_t)R->buf + R->size / 2;
	uint32_t lkey = R->mr->lkey;
	int ret;

	if (e_pair(E_ALL_ACCESS, &p, err, el))
		return -1;
	if (e_post(IBV_WR_RDMA_READ, 0x7d00, laddr, E_PAGE, lkey, srv.addr,
		   srv.rkey, err, el))
		return -1;
	ret = e_post_flags(IBV_WR_RDMA_WRITE, 0x7d01, laddr, 8, lkey,
			   srv.addr, srv.rkey, 0);
	if (ret) {
		snprintf(err, el, "unsignaled WRITE: %s", strerror(ret));
		return -1;
	}
	if (e_expect(0x7d00, IBV_WC_SUCCESS, E_WAIT_MS, "READ", err, el) ||
	    e_post(IBV_WR_RDMA_WRITE, 0x7d02, laddr, 8, lkey, srv.addr + 8,
		   srv.rkey, err, el) ||
	    e_expect(0x7d02, IBV_WC_SUCCESS, E_WAIT_MS, "signaled WRITE", err,
		     el))
		return -1;
	return 0;
}

#define E_NO(a) (E_ALL_ACCESS & ~(a))

static const char *const e_names[] = {
	"RNR: SEND before the receive, rnr_retry 7: waits, then SUCCESS",
	"RNR: no receive, rnr_retry 1: RNR_RETRY_EXC_ERR, then WR_FLUSH_ERR",
	"retry: responder QP in RESET: RETRY_EXC_ERR in time, then WR_FLUSH_ERR",
	"retry: responder QP in ERR: RETRY_EXC_ERR in time, then WR_FLUSH_ERR",
	"bad rkey READ: REM_ACCESS_ERR, responder ERR",
	"WRITE past the MR's end: REM_ACCESS_ERR, responder ERR, no byte out",
	"READ past the MR's end: REM_ACCESS_ERR, responder ERR",
	"WRITE into an MR without REMOTE_WRITE: REM_ACCESS_ERR, untouched",
	"READ from an MR without REMOTE_READ: REM_ACCESS_ERR, responder ERR",
	"FETCH_ADD on an MR without REMOTE_ATOMIC: REM_ACCESS_ERR, untouched",
	"CMP_SWAP at a misaligned address: REM_INV_REQ_ERR, untouched",
	"SEND with a bad lkey: LOC_PROT_ERR, responder unaffected",
	"SEND SGE past its MR's end: LOC_PROT_ERR, responder unaffected",
	"SEND longer than the receive: REM_INV_REQ_ERR and LOC_LEN_ERR",
	"SEND_WITH_INV of a non-invalidatable rkey: REM_INV_REQ_ERR both sides",
	"MW type 1 bound: BIND_MW completes; dereg_mr EBUSY until dealloc_mw",
	"MW bind past the MR's end: ibv_bind_mw EINVAL, nothing completes",
	"MW type 2 bind on an MR without MW_BIND: MW_BIND_ERR, then flush",
	"unsignaled WRITE tail: SQ slots back within 1 s, then SUCCESS",
	"unsignaled WRITE, then BIND_MW: the bind completes within 1 s",
	"READ, then an unsignaled WRITE: both complete",
	"unsignaled WRITE tail, SQD and back to RTS: SQ slots back within 1 s",
	"RNR twice, rnr_retry 1, a completion between: both SENDs SUCCESS",
};

#define E_NCASES ((int)(sizeof(e_names) / sizeof(e_names[0])))

static int e_case(int i, char *err, size_t el)
{
	switch (i) {
	case 0:
		return e_rnr_wait(err, el);
	case 1:
		return e_rnr_exc(err, el);
	case 2:
		return e_retry(IBV_QPS_RESET, err, el);
	case 3:
		return e_retry(IBV_QPS_ERR, err, el);
	case 4:
		return e_remote(IBV_WR_RDMA_READ, E_ALL_ACCESS, 0, 32, 0x5a5a00,
				IBV_WC_REM_ACCESS_ERR, err, el);
	case 5:
		return e_remote(IBV_WR_RDMA_WRITE, E_ALL_ACCESS, E_PAGE - 16,
				32, 0, IBV_WC_REM_ACCESS_ERR, err, el);
	case 6:
		return e_remote(IBV_WR_RDMA_READ, E_ALL_ACCESS, E_PAGE - 16, 32,
				0, IBV_WC_REM_ACCESS_ERR, err, el);
	case 7:
		return e_remote(IBV_WR_RDMA_WRITE,
				E_NO(IBV_ACCESS_REMOTE_WRITE), 0, 32, 0,
				IBV_WC_REM_ACCESS_ERR, err, el);
	case 8:
		return e_remote(IBV_WR_RDMA_READ, E_NO(IBV_ACCESS_REMOTE_READ),
				0, 32, 0, IBV_WC_REM_ACCESS_ERR, err, el);
	case 9:
		return e_remote(IBV_WR_ATOMIC_FETCH_AND_ADD,
				E_NO(IBV_ACCESS_REMOTE_ATOMIC), 0, 8, 0,
				IBV_WC_REM_ACCESS_ERR, err, el);
	case 10:
		/* IBA o9-20: atomics must be naturally aligned; sroce and
		 * rdma_rxe NAK Invalid Request. */
		return e_remote(IBV_WR_ATOMIC_CMP_AND_SWP, E_ALL_ACCESS, 4, 8,
				0, IBV_WC_REM_INV_REQ_ERR, err, el);
	case 11:
		return e_local_prot(1, err, el);
	case 12:
		return e_local_prot(0, err, el);
	case 13:
		return e_recv_short(err, el);
	case 14:
		return e_send_inv(err, el);
	case 15:
	case 16:
	case 17:
		return e_mw(i - 15, err, el);
	case 18:
	case 21:
		return e_tail(i == 21, err, el);
	case 19:
		return e_tail_local(err, el);
	case 20:
		return e_tail_read(err, el);
	case 22:
		return e_rnr_twice(err, el);
	default:
		return -1;
	}
}

int dp_err_ntests(void)
{
	return E_NCASES;
}

void dp_err_one(struct dp_res *r, int fd, const struct dp_peer *peer,
		dp_report_fn report, int i)
{
	char err[256], name[200];
	int ok;

	R = r;
	ctl = fd;
	P = peer;
	err[0] = 0;
	e_note[0] = 0;
	if (i < 0 || i >= E_NCASES) {
		report(0, "error case", "no such case");
		return;
	}
	ok = !e_case(i, err, sizeof(err));
	snprintf(name, sizeof(name), "%s%s", e_names[i], e_note);
	report(ok, name, err);
	e_free(&C);
}

void dp_err_tests(struct dp_res *r, int fd, const struct dp_peer *peer,
		  dp_report_fn report)
{
	int i;

	for (i = 0; i < E_NCASES; i++)
		dp_err_one(r, fd, peer, report, i);
}
