// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * dp_srq.c - shared receive queues in the data-path test.
 *
 * Local checks first (no peer): every SRQ verb with invalid arguments
 * fails with the errno libibverbs documents and leaves the SRQ as it was.
 * Then, on a fresh RC pair whose server QP receives through an SRQ
 * (DP_CMD_S_* commands, dp_srq_serve()): SENDs land in the SRQ's WQEs in
 * order with their data; the SRQ limit event (IBA 11.5.2.2) fires once,
 * only when fewer WQEs than the limit are left; an empty SRQ makes the
 * requester wait (RNR) until a WQE is posted; a QP moved to ERR reports
 * IBV_EVENT_QP_LAST_WQE_REACHED and the SRQ's WQEs are not flushed.
 */
#include <fcntl.h>
#include <poll.h>

#include "dp.h"

#define S_MAX_WR 16
#define S_MSG 1024
#define S_WAIT_MS 5000
#define S_QUIET_MS 300
#define S_WRID 0x5e0000ULL

/* One side's objects of the SRQ cases (the client has no SRQ). */
struct s_side {
	struct ibv_srq *srq;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	uint32_t psn;
	uint32_t posted; /* receives posted on srq so far */
	uint32_t reaped; /* receive completions seen so far */
};

static void s_free(struct s_side *s)
{
	if (s->qp)
		ibv_destroy_qp(s->qp);
	if (s->srq)
		ibv_destroy_srq(s->srq);
	if (s->scq)
		ibv_destroy_cq(s->scq);
	if (s->rcq)
		ibv_destroy_cq(s->rcq);
	memset(s, 0, sizeof(*s));
}

/* Fresh CQs and an RC QP, receiving through a new SRQ if @srq_wr. */
static int s_create(struct dp_res *r, struct s_side *s, uint32_t srq_wr)
{
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = S_MAX_WR,
			 .max_recv_wr = srq_wr ? 0 : 4,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	s_free(s);
	if (srq_wr) {
		struct ibv_srq_init_attr sa = {
			.attr = { .max_wr = srq_wr, .max_sge = 2 },
		};

		s->srq = ibv_create_srq(r->pd, &sa);
		if (!s->srq)
			return -1;
		ia.srq = s->srq;
	}
	s->scq = ibv_create_cq(r->ctx, 4 * S_MAX_WR, NULL, NULL, 0);
	s->rcq = ibv_create_cq(r->ctx, 4 * S_MAX_WR, NULL, NULL, 0);
	if (!s->scq || !s->rcq)
		return -1;
	ia.send_cq = s->scq;
	ia.recv_cq = s->rcq;
	s->qp = ibv_create_qp(r->pd, &ia);
	s->psn = (uint32_t)(lrand48() & 0xffffff);
	return s->qp ? 0 : -1;
}

/* RESET -> INIT -> RTR -> RTS towards @dqpn of @dgid (rnr_retry 7). */
static int s_connect(struct dp_res *r, struct s_side *s, const uint8_t *dgid,
		     uint32_t dqpn, uint32_t rq_psn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE,
	};

	if (ibv_modify_qp(s->qp, &a,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = r->mtu_enum;
	a.dest_qp_num = dqpn;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 8; /* 0.16 ms */
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.sgid_index = (uint8_t)r->gid_idx;
	a.ah_attr.grh.hop_limit = 64;
	memcpy(a.ah_attr.grh.dgid.raw, dgid, 16);
	if (ibv_modify_qp(s->qp, &a,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = s->psn;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(s->qp, &a,
			     IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				     IBV_QP_MAX_QP_RD_ATOMIC);
}

static int s_poll(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	struct timespec t0, t;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n == 1 ? 0 : -1;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 +
			    (t.tv_nsec - t0.tv_nsec) / 1000000 >
		    ms)
			return -1;
		usleep(50);
	}
}

/* ---- server ---- */

static struct s_side S;

/* Receive buffer of the n-th receive posted. */
static uint8_t *s_rbuf(struct dp_res *r, uint32_t n)
{
	return r->buf + r->size / 2 + (size_t)(n % (2 * S_MAX_WR)) * S_MSG;
}

static int s_srv_post(struct dp_res *r, uint32_t n, struct dp_ans *a)
{
	struct ibv_recv_wr wr = {}, *bad;
	struct ibv_sge sge;
	uint32_t i;
	int ret;

	for (i = 0; i < n; i++) {
		sge.addr = (uintptr_t)s_rbuf(r, S.posted);
		sge.length = S_MSG;
		sge.lkey = r->mr->lkey;
		memset(s_rbuf(r, S.posted), 0xa5, S_MSG);
		wr.wr_id = S_WRID + S.posted;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		ret = ibv_post_srq_recv(S.srq, &wr, &bad);
		if (ret) {
			snprintf(a->msg, sizeof(a->msg),
				 "ibv_post_srq_recv #%u: %s", S.posted,
				 strerror(ret));
			return -1;
		}
		S.posted++;
	}
	return 0;
}

/* @n receive completions: in SRQ order, our QP, the data of @seed. */
static int s_srv_expect(struct dp_res *r, uint32_t n, uint64_t seed,
			struct dp_ans *a)
{
	struct ibv_sge sge;
	struct ibv_wc wc;
	uint32_t i, k;

	for (i = 0; i < n; i++) {
		k = S.reaped;
		if (s_poll(S.rcq, &wc, S_WAIT_MS)) {
			snprintf(a->msg, sizeof(a->msg),
				 "receive %u: no completion within %d ms", k,
				 S_WAIT_MS);
			return -1;
		}
		if (wc.status != IBV_WC_SUCCESS || wc.wr_id != S_WRID + k ||
		    wc.byte_len != S_MSG || wc.qp_num != S.qp->qp_num) {
			snprintf(a->msg, sizeof(a->msg),
				 "receive %u: %s wr_id %#llx len %u qp %u", k,
				 ibv_wc_status_str(wc.status),
				 (unsigned long long)wc.wr_id, wc.byte_len,
				 wc.qp_num);
			return -1;
		}
		S.reaped++;
		sge.addr = (uintptr_t)s_rbuf(r, k);
		sge.length = S_MSG;
		if (dp_sge_verify(&sge, 1, S_MSG, seed, a->msg, sizeof(a->msg)))
			return -1;
	}
	return 0;
}

/* Wait up to @ms for an async event of @type on our SRQ or QP. */
static int s_srv_event(struct dp_res *r, enum ibv_event_type type, int ms)
{
	struct pollfd p = { .fd = r->ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	int hit;

	while (poll(&p, 1, ms) == 1) {
		if (ibv_get_async_event(r->ctx, &ev))
			continue;
		hit = ev.event_type == type &&
		      (type == IBV_EVENT_SRQ_LIMIT_REACHED ?
			       ev.element.srq == S.srq :
			       ev.element.qp == S.qp);
		ibv_ack_async_event(&ev);
		if (hit)
			return 1;
	}
	return 0;
}

int dp_srq_serve(struct dp_res *r, const struct dp_msg *m, struct dp_ans *a)
{
	struct ibv_srq_attr sa = {};
	struct ibv_qp_attr qa = {};
	uint8_t gid[16];
	struct ibv_wc wc;
	int ret;

	if (m->cmd != DP_CMD_S_SETUP && !S.qp) {
		snprintf(a->msg, sizeof(a->msg), "no SRQ case QP");
		return -1;
	}
	switch (m->cmd) {
	case DP_CMD_S_SETUP:
		memcpy(gid, &m->off, 8);
		memcpy(gid + 8, &m->seed, 8);
		/* Events are waited for with poll(). */
		fcntl(r->ctx->async_fd, F_SETFL,
		      fcntl(r->ctx->async_fd, F_GETFL) | O_NONBLOCK);
		if (s_create(r, &S, m->len) ||
		    s_connect(r, &S, gid, m->src_qp, m->nsge)) {
			snprintf(a->msg, sizeof(a->msg), "SRQ case setup: %s",
				 strerror(errno));
			return -1;
		}
		a->val = S.qp->qp_num;
		a->len = S.psn;
		return 0;
	case DP_CMD_S_POST:
		return s_srv_post(r, (uint32_t)m->val, a);
	case DP_CMD_S_EXPECT:
		return s_srv_expect(r, (uint32_t)m->val, m->seed, a);
	case DP_CMD_S_LIMIT:
		sa.srq_limit = (uint32_t)m->val;
		a->val = (uint64_t)ibv_modify_srq(S.srq, &sa, IBV_SRQ_LIMIT);
		return 0;
	case DP_CMD_S_EVENT:
		a->val = (uint64_t)s_srv_event(r, (enum ibv_event_type)m->op,
					       (int)m->val);
		return 0;
	case DP_CMD_S_MODIFY:
		qa.qp_state = (enum ibv_qp_state)m->val;
		ret = ibv_modify_qp(S.qp, &qa, IBV_QP_STATE);
		if (ret)
			snprintf(a->msg, sizeof(a->msg), "modify_qp: %s",
				 strerror(ret));
		return ret ? -1 : 0;
	case DP_CMD_S_QUIET:
		a->val = !s_poll(S.rcq, &wc, (int)m->val);
		if (a->val)
			snprintf(a->msg, sizeof(a->msg),
				 "completion wr_id %#llx %s",
				 (unsigned long long)wc.wr_id,
				 ibv_wc_status_str(wc.status));
		return 0;
	default:
		snprintf(a->msg, sizeof(a->msg), "unknown command %u", m->cmd);
		return -1;
	}
}

/* ---- client: local checks ---- */

static struct dp_res *R;
static int ctl;
static const struct dp_peer *P;
static struct s_side C;

static int l_create(uint32_t max_wr, uint32_t max_sge, char *err, size_t el)
{
	struct ibv_srq_init_attr sa = {
		.attr = { .max_wr = max_wr, .max_sge = max_sge },
	};
	struct ibv_srq *srq;

	errno = 0;
	srq = ibv_create_srq(R->pd, &sa);
	if (srq) {
		ibv_destroy_srq(srq);
		snprintf(err, el, "created an SRQ of %u WRs, %u SGEs", max_wr,
			 max_sge);
		return -1;
	}
	if (errno != EINVAL) {
		snprintf(err, el, "errno %s, want EINVAL", strerror(errno));
		return -1;
	}
	return 0;
}

/* The SRQ's attributes are still @max_wr, @limit. */
static int l_unchanged(struct ibv_srq *srq, uint32_t max_wr, uint32_t limit,
		       char *err, size_t el)
{
	struct ibv_srq_attr qa = {};
	int ret = ibv_query_srq(srq, &qa);

	if (ret || qa.max_wr != max_wr || qa.srq_limit != limit) {
		snprintf(err, el, "query_srq %d: max_wr %u limit %u", ret,
			 qa.max_wr, qa.srq_limit);
		return -1;
	}
	return 0;
}

static int l_case(int c, char *err, size_t el)
{
	struct ibv_device_attr da;
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_srq_attr ma = {};
	struct ibv_sge sge[4];
	struct ibv_recv_wr wr = {}, *bad = NULL;
	struct ibv_srq *srq;
	uint32_t i, posted = 0;
	int ret = 0, rc = -1;

	if (ibv_query_device(R->ctx, &da)) {
		snprintf(err, el, "query_device failed");
		return -1;
	}
	switch (c) {
	case 0:
		return l_create(0, 1, err, el);
	case 1:
		return l_create((uint32_t)da.max_srq_wr + 1, 1, err, el);
	case 2:
		return l_create(8, (uint32_t)da.max_srq_sge + 1, err, el);
	case 7:
		if (s_create(R, &C, 8)) {
			snprintf(err, el, "QP on an SRQ: %s", strerror(errno));
			return -1;
		}
		sge[0].addr = (uintptr_t)R->buf;
		sge[0].length = 8;
		sge[0].lkey = R->mr->lkey;
		wr.sg_list = sge;
		wr.num_sge = 1;
		ret = ibv_post_recv(C.qp, &wr, &bad);
		if (ret != EINVAL || bad != &wr) {
			snprintf(err, el, "ibv_post_recv returned %d", ret);
			return -1;
		}
		return 0;
	default:
		break;
	}

	srq = ibv_create_srq(R->pd, &sa);
	if (!srq) {
		snprintf(err, el, "ibv_create_srq: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < 4; i++) {
		sge[i].addr = (uintptr_t)R->buf;
		sge[i].length = 8;
		sge[i].lkey = R->mr->lkey;
	}
	wr.sg_list = sge;
	wr.num_sge = 1;
	switch (c) {
	case 3: /* more SGEs than granted */
		wr.num_sge = (int)sa.attr.max_sge + 1;
		ret = ibv_post_srq_recv(srq, &wr, &bad);
		rc = ret == EINVAL && bad == &wr ? 0 : -1;
		break;
	case 4: /* fill it */
		for (i = 0; i < 4 * sa.attr.max_wr + 16; i++) {
			ret = ibv_post_srq_recv(srq, &wr, &bad);
			if (ret)
				break;
			posted++;
		}
		rc = ret == ENOMEM && bad == &wr && posted >= sa.attr.max_wr ?
			     0 :
			     -1;
		break;
	case 5: /* limit above max_wr */
		ma.srq_limit = sa.attr.max_wr + 1;
		ret = ibv_modify_srq(srq, &ma, IBV_SRQ_LIMIT);
		rc = ret == EINVAL ?
			     l_unchanged(srq, sa.attr.max_wr, 0, err, el) :
			     -1;
		break;
	default: /* 6: resize (more in dp_srqresize.c, t-limits) */
		ma.max_wr = 2 * sa.attr.max_wr;
		ret = ibv_modify_srq(srq, &ma, IBV_SRQ_MAX_WR);
		rc = ret == 0 ? l_unchanged(srq, 2 * sa.attr.max_wr, 0, err,
					    el) :
				-1;
		break;
	}
	if (rc && !err[0])
		snprintf(err, el, "returned %d (%s), posted %u of max_wr %u",
			 ret, strerror(ret), posted, sa.attr.max_wr);
	ibv_destroy_srq(srq);
	return rc;
}

/* ---- client: traffic cases ---- */

static int s_ask(uint32_t cmd, uint32_t op, uint64_t val, uint64_t seed,
		 struct dp_ans *a, char *err, size_t el)
{
	struct dp_msg m = { .cmd = cmd, .op = op, .val = val, .seed = seed };

	if (dp_ctl_send(ctl, &m, sizeof(m)) ||
	    dp_ctl_recv(ctl, a, sizeof(*a))) {
		snprintf(err, el, "control connection lost");
		return -1;
	}
	if (a->status)
		snprintf(err, el, "server: %s", a->msg);
	return a->status;
}

static int s_pair(char *err, size_t el)
{
	struct dp_msg m = { .cmd = DP_CMD_S_SETUP, .len = S_MAX_WR };
	struct dp_ans a;

	if (s_create(R, &C, 0)) {
		snprintf(err, el, "client QP: %s", strerror(errno));
		return -1;
	}
	m.src_qp = C.qp->qp_num;
	m.nsge = C.psn;
	memcpy(&m.off, R->gid.raw, 8);
	memcpy(&m.seed, R->gid.raw + 8, 8);
	if (dp_ctl_send(ctl, &m, sizeof(m)) ||
	    dp_ctl_recv(ctl, &a, sizeof(a)) || a.status) {
		snprintf(err, el, "server: %s", a.msg);
		return -1;
	}
	if (s_connect(R, &C, P->gid, (uint32_t)a.val, a.len)) {
		snprintf(err, el, "client connect: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Post @n SENDs of S_MSG bytes of @seed; with @wait, reap their CQEs. */
static int s_send(uint32_t n, uint64_t seed, int wait, char *err, size_t el)
{
	struct ibv_sge sge = { .addr = (uintptr_t)R->buf,
			       .length = S_MSG,
			       .lkey = R->mr->lkey };
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_wc wc;
	uint32_t i;
	int ret;

	dp_fill(R->buf, S_MSG, seed);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	for (i = 0; i < n; i++) {
		wr.wr_id = 0x5e4d + i;
		ret = ibv_post_send(C.qp, &wr, &bad);
		if (ret) {
			snprintf(err, el, "ibv_post_send: %s", strerror(ret));
			return -1;
		}
	}
	for (i = 0; wait && i < n; i++) {
		if (s_poll(C.scq, &wc, S_WAIT_MS) ||
		    wc.status != IBV_WC_SUCCESS) {
			snprintf(err, el, "SEND %u: no successful completion",
				 i);
			return -1;
		}
	}
	return 0;
}

/* The server sees (@want 1) or does not see (0) event @type in @ms. */
static int s_event(enum ibv_event_type type, int want, int ms, char *err,
		   size_t el)
{
	struct dp_ans a;

	if (s_ask(DP_CMD_S_EVENT, type, (uint64_t)ms, 0, &a, err, el))
		return -1;
	if ((int)a.val != want) {
		snprintf(err, el, "%s %s", ibv_event_type_str(type),
			 want ? "not reported" : "reported too early");
		return -1;
	}
	return 0;
}

static int r_traffic(char *err, size_t el)
{
	struct dp_ans a;

	if (s_pair(err, el) ||
	    s_ask(DP_CMD_S_POST, 0, S_MAX_WR, 0, &a, err, el) ||
	    s_send(8, 0x5a, 1, err, el))
		return -1;
	return s_ask(DP_CMD_S_EXPECT, 0, 8, 0x5a, &a, err, el);
}

/* 8 WQEs left: limit 4 fires at the 5th SEND (3 left), once. */
static int r_limit(char *err, size_t el)
{
	struct dp_ans a;

	if (s_ask(DP_CMD_S_LIMIT, 0, 4, 0, &a, err, el))
		return -1;
	if (a.val) {
		snprintf(err, el, "modify_srq(limit 4): %s",
			 strerror((int)a.val));
		return -1;
	}
	if (s_send(4, 0x5b, 1, err, el) ||
	    s_ask(DP_CMD_S_EXPECT, 0, 4, 0x5b, &a, err, el) ||
	    s_event(IBV_EVENT_SRQ_LIMIT_REACHED, 0, S_QUIET_MS, err, el) ||
	    s_send(1, 0x5c, 1, err, el) ||
	    s_ask(DP_CMD_S_EXPECT, 0, 1, 0x5c, &a, err, el) ||
	    s_event(IBV_EVENT_SRQ_LIMIT_REACHED, 1, S_WAIT_MS, err, el) ||
	    s_send(1, 0x5d, 1, err, el) ||
	    s_ask(DP_CMD_S_EXPECT, 0, 1, 0x5d, &a, err, el))
		return -1;
	return s_event(IBV_EVENT_SRQ_LIMIT_REACHED, 0, S_QUIET_MS, err, el);
}

/* 2 WQEs left: the third SEND waits (RNR) until the server posts one. */
static int r_rnr(char *err, size_t el)
{
	struct ibv_wc wc;
	struct dp_ans a;
	int i;

	if (s_send(3, 0x5e, 0, err, el))
		return -1;
	for (i = 0; i < 2; i++)
		if (s_poll(C.scq, &wc, S_WAIT_MS) ||
		    wc.status != IBV_WC_SUCCESS) {
			snprintf(err, el, "SEND %d did not complete", i);
			return -1;
		}
	if (!s_poll(C.scq, &wc, S_QUIET_MS)) {
		snprintf(err, el, "third SEND completed (%s), SRQ was empty",
			 ibv_wc_status_str(wc.status));
		return -1;
	}
	if (s_ask(DP_CMD_S_POST, 0, 1, 0, &a, err, el))
		return -1;
	if (s_poll(C.scq, &wc, S_WAIT_MS) || wc.status != IBV_WC_SUCCESS) {
		snprintf(err, el, "third SEND did not complete after the post");
		return -1;
	}
	return s_ask(DP_CMD_S_EXPECT, 0, 3, 0x5e, &a, err, el);
}

/* ERR: LAST_WQE_REACHED; the SRQ's 4 WQEs are not flushed. */
static int r_last_wqe(char *err, size_t el)
{
	struct dp_ans a;

	if (s_ask(DP_CMD_S_POST, 0, 4, 0, &a, err, el) ||
	    s_ask(DP_CMD_S_MODIFY, 0, IBV_QPS_ERR, 0, &a, err, el) ||
	    s_event(IBV_EVENT_QP_LAST_WQE_REACHED, 1, S_WAIT_MS, err, el) ||
	    s_ask(DP_CMD_S_QUIET, 0, S_QUIET_MS, 0, &a, err, el))
		return -1;
	if (a.val) {
		snprintf(err, el, "SRQ WQE flushed: %.200s", a.msg);
		return -1;
	}
	return 0;
}

static const char *const s_names[] = {
	"srq: create_srq with max_wr 0: EINVAL",
	"srq: create_srq with max_srq_wr + 1: EINVAL",
	"srq: create_srq with max_srq_sge + 1: EINVAL",
	"srq: post_srq_recv with max_sge + 1 SGEs: EINVAL, bad_wr",
	"srq: post_srq_recv on a full SRQ: ENOMEM after >= max_wr",
	"srq: modify_srq limit > max_wr: EINVAL, SRQ unchanged",
	"srq: modify_srq resize to 2 x max_wr: query_srq reports it",
	"srq: post_recv on a QP with an SRQ: EINVAL",
	"srq: 8 SENDs land in the SRQ's WQEs in order, data intact",
	"srq: limit 4: no event while >= 4 left, one event below, then none",
	"srq: empty SRQ: SEND waits (RNR) until a WQE is posted",
	"srq: QP to ERR: LAST_WQE_REACHED, SRQ WQEs not flushed",
};

#define S_NCASES ((int)(sizeof(s_names) / sizeof(s_names[0])))
#define S_NLOCAL 8

int dp_srq_ntests(void)
{
	return S_NCASES;
}

void dp_srq_tests(struct dp_res *r, int fd, const struct dp_peer *peer,
		  dp_report_fn report)
{
	char err[256];
	int i, ok, stop = 0;

	R = r;
	ctl = fd;
	P = peer;
	for (i = 0; i < S_NCASES; i++) {
		err[0] = 0;
		if (stop) {
			report(0, s_names[i],
			       "skipped: an earlier case failed");
			continue;
		}
		switch (i) {
		case S_NLOCAL:
			ok = !r_traffic(err, sizeof(err));
			break;
		case S_NLOCAL + 1:
			ok = !r_limit(err, sizeof(err));
			break;
		case S_NLOCAL + 2:
			ok = !r_rnr(err, sizeof(err));
			break;
		case S_NLOCAL + 3:
			ok = !r_last_wqe(err, sizeof(err));
			break;
		default:
			ok = !l_case(i, err, sizeof(err));
			break;
		}
		report(ok, s_names[i], err);
		/* The traffic cases build on each other. */
		if (!ok && i >= S_NLOCAL)
			stop = 1;
	}
	s_free(&C);
}
