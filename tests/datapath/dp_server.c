// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * dp_server.c - the server side of the data-path test (it owns the remote
 * buffer and the receive side and follows the client's commands), and the
 * provider's user-space validation checks the client runs first.  See dp.h.
 */
#include <poll.h>

#include "dp.h"

/* ---- server ---- */

static int srv_post_recv(struct dp_res *r, const struct dp_msg *m,
			 struct dp_ans *a)
{
	struct ibv_qp *qp = m->qp == DP_QP_UD ? r->ud_qp : r->rc_qp;
	uint32_t total = m->len + (m->qp == DP_QP_UD ? DP_GRH_BYTES : 0);
	struct ibv_recv_wr wr = {}, *bad;
	uint32_t nsge = m->nsge;
	int ret;

	if (nsge > r->max_recv_sge)
		nsge = r->max_recv_sge;
	r->rn = 0;
	if (nsge) {
		r->rn = dp_sge_split(r, r->rsge, nsge, total, m->seed,
				     r->size / 2);
		if (r->rn == 0) {
			/* Always give a receive at least one (empty) SGE. */
			r->rn = 1;
			r->rsge[0].addr = (uintptr_t)(r->buf + r->size / 2);
			r->rsge[0].length = 0;
			r->rsge[0].lkey = r->mr->lkey;
		}
		/* Some slack after the message: byte_len must not count it. */
		r->rsge[r->rn - 1].length += (uint32_t)(m->seed >> 40) % 100;
		dp_sge_poison(r->rsge, r->rn);
	}
	wr.wr_id = 0x7ec0000000ULL | m->len;
	wr.sg_list = r->rsge;
	wr.num_sge = r->rn;
	ret = ibv_post_recv(qp, &wr, &bad);
	if (ret)
		snprintf(a->msg, sizeof(a->msg), "ibv_post_recv: %s",
			 strerror(ret));
	return ret ? -1 : 0;
}

static int srv_expect_recv(struct dp_res *r, const struct dp_msg *m,
			   struct dp_ans *a)
{
	int ud = m->qp == DP_QP_UD;
	struct ibv_qp *qp = ud ? r->ud_qp : r->rc_qp;
	uint32_t want_len = m->len + (ud ? DP_GRH_BYTES : 0);
	unsigned int want_flags = (m->has_imm ? IBV_WC_WITH_IMM : 0) |
				  (ud ? IBV_WC_GRH : 0);
	struct ibv_wc wc;
	char *err = a->msg;
	size_t el = sizeof(a->msg);

	if (dp_poll_one(r, ud ? DP_CQ_UD_RECV : DP_CQ_RECV, &wc,
			DP_TIMEOUT_MS)) {
		snprintf(err, el, "no receive completion within %d ms",
			 DP_TIMEOUT_MS);
		return -1;
	}
	if (dp_check_wc(&wc, 0x7ec0000000ULL | m->len, IBV_WC_SUCCESS,
			(enum ibv_wc_opcode)m->op, want_len, qp->qp_num, err,
			el))
		return -1;
	if ((wc.wc_flags & (IBV_WC_WITH_IMM | IBV_WC_GRH)) != want_flags) {
		snprintf(err, el, "wc_flags %#x, want %#x", wc.wc_flags,
			 want_flags);
		return -1;
	}
	if (m->has_imm && ntohl(wc.imm_data) != m->imm) {
		snprintf(err, el, "imm_data %#x, want %#x", ntohl(wc.imm_data),
			 m->imm);
		return -1;
	}
	if (ud && wc.src_qp != m->src_qp) {
		snprintf(err, el, "src_qp %u, want %u", wc.src_qp, m->src_qp);
		return -1;
	}
	if (m->op != IBV_WC_RECV)
		return 0;
	if (ud && r->rn) {
		/* GRH area: IPv4 header in its last 20 bytes, or IPv6 header. */
		uint8_t grh[DP_GRH_BYTES];
		uint32_t k, pos = 0;
		int i;

		for (i = 0; i < r->rn && pos < DP_GRH_BYTES; i++)
			for (k = 0; k < r->rsge[i].length && pos < DP_GRH_BYTES;
			     k++)
				grh[pos++] = ((uint8_t *)(uintptr_t)r->rsge[i]
						      .addr)[k];
		if (r->gid.raw[10] == 0xff && r->gid.raw[11] == 0xff) {
			if (grh[20] != 0x45 ||
			    memcmp(&grh[36], &r->gid.raw[12], 4)) {
				snprintf(
					err, el,
					"GRH area: no IPv4 header to us at offset 20 (%02x ... dst %u.%u.%u.%u)",
					grh[20], grh[36], grh[37], grh[38],
					grh[39]);
				return -1;
			}
		} else if (grh[0] >> 4 != 6 ||
			   memcmp(&grh[24], r->gid.raw, 16)) {
			/* IPv6: the whole 40-byte IPv6 header, dst = our GID. */
			snprintf(
				err, el,
				"GRH area: no IPv6 header to our GID (first byte %02x)",
				grh[0]);
			return -1;
		}
	}
	return dp_sge_verify_at(r->rsge, r->rn, ud ? DP_GRH_BYTES : 0, m->len,
				m->seed, err, el);
}

static int srv_wait_event(struct dp_res *r, struct dp_ans *a)
{
	struct pollfd pfd = { .fd = r->ch->fd, .events = POLLIN };
	struct ibv_cq *cq;
	struct ibv_wc wc;
	void *ctx;

	if (poll(&pfd, 1, DP_TIMEOUT_MS) != 1) {
		snprintf(a->msg, sizeof(a->msg),
			 "no completion event within %d ms", DP_TIMEOUT_MS);
		return -1;
	}
	if (ibv_get_cq_event(r->ch, &cq, &ctx)) {
		snprintf(a->msg, sizeof(a->msg), "ibv_get_cq_event failed");
		return -1;
	}
	ibv_ack_cq_events(cq, 1);
	if (cq != r->cq[DP_CQ_RECV]) {
		snprintf(a->msg, sizeof(a->msg), "event for the wrong CQ");
		return -1;
	}
	if (dp_poll_one(r, DP_CQ_RECV, &wc, 1000) ||
	    wc.status != IBV_WC_SUCCESS || wc.byte_len != 16) {
		snprintf(a->msg, sizeof(a->msg),
			 "no good completion after the event");
		return -1;
	}
	return 0;
}

int dp_serve(struct dp_res *r, int fd)
{
	struct dp_msg m;
	struct dp_ans a;
	volatile uint64_t *w;
	int ret;

	while (!dp_ctl_recv(fd, &m, sizeof(m))) {
		memset(&a, 0, sizeof(a));
		ret = 0;
		if ((m.cmd == DP_CMD_FILL || m.cmd == DP_CMD_VERIFY ||
		     m.cmd == DP_CMD_SET64 || m.cmd == DP_CMD_GET64) &&
		    (m.off > r->size / 2 || m.len > r->size / 2 - m.off ||
		     (m.off & 7 && m.cmd >= DP_CMD_SET64))) {
			snprintf(a.msg, sizeof(a.msg), "bad range");
			m.cmd = 0;
			ret = -1;
		}
		w = (volatile uint64_t *)(r->buf + m.off);
		switch (m.cmd) {
		case DP_CMD_POST_RECV:
			ret = srv_post_recv(r, &m, &a);
			break;
		case DP_CMD_EXPECT_RECV:
			ret = srv_expect_recv(r, &m, &a);
			break;
		case DP_CMD_FILL:
			dp_fill(r->buf + m.off, m.len, m.seed);
			break;
		case DP_CMD_VERIFY: {
			struct ibv_sge s = { .addr = (uintptr_t)(r->buf +
								 m.off),
					     .length = m.len };

			ret = dp_sge_verify(&s, 1, m.len, m.seed, a.msg,
					    sizeof(a.msg));
			break;
		}
		case DP_CMD_SET64:
			*w = m.val;
			break;
		case DP_CMD_GET64:
			a.val = *w;
			break;
		case DP_CMD_ARM: {
			struct dp_msg pr = {
				.len = 16, .nsge = 1, .qp = DP_QP_RC, .seed = 2
			};

			ret = ibv_req_notify_cq(r->cq[DP_CQ_RECV], 0);
			if (ret)
				snprintf(a.msg, sizeof(a.msg),
					 "ibv_req_notify_cq: %s",
					 strerror(ret));
			else
				ret = srv_post_recv(r, &pr, &a);
			break;
		}
		case DP_CMD_WAIT_EVENT:
			ret = srv_wait_event(r, &a);
			break;
		case DP_CMD_QUIT:
			dp_ctl_send(fd, &a, sizeof(a));
			return 0;
		default:
			if (m.cmd >= DP_CMD_S_SETUP)
				ret = dp_srq_serve(r, &m, &a);
			else if (m.cmd >= DP_CMD_E_SETUP)
				ret = dp_err_serve(r, &m, &a);
			break;
		}
		a.status = ret ? -1 : 0;
		if (dp_ctl_send(fd, &a, sizeof(a)))
			break;
	}
	fprintf(stderr, "dp_test: control connection closed early\n");
	return 1;
}

/* ---- user-space validation (provider), no traffic ---- */

#define DP_LOCAL_NTESTS 9

int dp_local_ntests(void)
{
	return DP_LOCAL_NTESTS;
}

/* Post @wr alone on @qp: want errno @want and bad_wr == @wr. */
static void expect_send_err(struct ibv_qp *qp, struct ibv_send_wr *wr, int want,
			    const char *name, dp_report_fn report)
{
	struct ibv_send_wr *bad = NULL;
	char err[160] = "";
	int ret = ibv_post_send(qp, wr, &bad);

	if (ret != want || bad != wr)
		snprintf(err, sizeof(err),
			 "returned %d (%s), bad_wr %s; want %s", ret,
			 strerror(ret), bad == wr ? "ok" : "wrong",
			 strerror(want));
	report(ret == want && bad == wr, name, err);
}

void dp_local_tests(struct dp_res *r, dp_report_fn report)
{
	struct ibv_sge sge[DP_MAX_SGE + 1];
	struct ibv_send_wr wr = {};
	struct ibv_recv_wr rwr = {}, *rbad;
	struct ibv_poll_cq_attr pa = {};
	struct ibv_wc wc;
	char err[160] = "";
	uint32_t i, posted = 0;
	int ret;

	for (i = 0; i <= DP_MAX_SGE; i++) {
		sge[i].addr = (uintptr_t)r->buf;
		sge[i].length = 1;
		sge[i].lkey = r->mr->lkey;
	}
	wr.sg_list = sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	expect_send_err(r->spare_qp, &wr, EINVAL,
			"post_send on a QP in INIT: EINVAL", report);

	wr.num_sge = (int)r->max_send_sge + 1;
	expect_send_err(r->rc_qp, &wr, EINVAL,
			"post_send with max_send_sge + 1 SGEs: EINVAL", report);

	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.ud.ah = r->ah;
	expect_send_err(r->ud_qp, &wr, EINVAL, "RDMA_WRITE on a UD QP: EINVAL",
			report);

	wr.opcode = IBV_WR_BIND_MW;
	expect_send_err(r->rc_qp, &wr, EINVAL,
			"BIND_MW naming no memory window: EINVAL", report);

	wr.opcode = IBV_WR_SEND;
	wr.send_flags |= IBV_SEND_INLINE;
	sge[0].length = r->max_inline + 1;
	expect_send_err(r->rc_qp, &wr, EINVAL,
			"inline data of max_inline_data + 1 bytes: EINVAL",
			report);
	sge[0].length = 1;

	/* The spare QP in INIT takes receives but nobody consumes them. */
	rwr.sg_list = sge;
	rwr.num_sge = 1;
	for (i = 0; i < 4 * r->max_recv_wr + 64; i++) {
		rbad = NULL;
		ret = ibv_post_recv(r->spare_qp, &rwr, &rbad);
		if (ret)
			break;
		posted++;
	}
	if (ret != ENOMEM || rbad != &rwr || posted < r->max_recv_wr)
		snprintf(err, sizeof(err),
			 "posted %u (max_recv_wr %u), then %d (%s)", posted,
			 r->max_recv_wr, ret, strerror(ret));
	else
		err[0] = 0;
	report(ret == ENOMEM && rbad == &rwr && posted >= r->max_recv_wr,
	       "post_recv on a full RQ: ENOMEM after >= max_recv_wr", err);

	rwr.num_sge = (int)r->max_recv_sge + 1;
	ret = ibv_post_recv(r->rc_qp, &rwr, &rbad);
	snprintf(err, sizeof(err), "returned %d", ret);
	report(ret == EINVAL && rbad == &rwr,
	       "post_recv with max_recv_sge + 1 SGEs: EINVAL", err);

	ret = ibv_poll_cq(r->cq[DP_CQ_SEND], 1, &wc);
	snprintf(err, sizeof(err), "returned %d", ret);
	report(ret == 0, "ibv_poll_cq on an empty CQ returns 0", err);

	ret = ibv_start_poll(r->cqx[DP_CQ_UD_SEND], &pa);
	if (ret == 0)
		ibv_end_poll(r->cqx[DP_CQ_UD_SEND]);
	snprintf(err, sizeof(err), "returned %d", ret);
	report(ret == ENOENT, "ibv_start_poll on an empty CQ: ENOENT", err);
}
