// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * dp_wr.c - the extended send API (ibv_wr_*) in the data-path test.
 *
 * dp_post_send() turns an ibv_send_wr chain into one ibv_wr_start ..
 * ibv_wr_complete batch, so that with dp_test -X every traffic case of
 * dp_test.c runs through the builders and setters instead of
 * ibv_post_send.  dp_wr_tests() checks what only this API has: a batch is
 * posted whole with one wr_complete, wr_abort posts nothing, and every
 * invalid argument makes wr_complete fail and post nothing of the batch
 * (ibv_wr_post(3)), including inline lengths that would wrap a size_t.
 * "Nothing posted" is checked by a probe: every WR of these tests is
 * signalled, so after a refused batch the next completion must be the
 * probe's own.
 */
#include <stdint.h>

#include "dp.h"

/* The data setter for @w: inline (as a buffer list) or an SGE list. */
static void wr_set_data(struct ibv_qp_ex *x, const struct ibv_send_wr *w)
{
	struct ibv_data_buf buf[DP_MAX_SGE];
	int i, n = w->num_sge < DP_MAX_SGE ? w->num_sge : DP_MAX_SGE;

	if (w->send_flags & IBV_SEND_INLINE) {
		for (i = 0; i < n; i++) {
			buf[i].addr = (void *)(uintptr_t)w->sg_list[i].addr;
			buf[i].length = w->sg_list[i].length;
		}
		if (n == 1)
			ibv_wr_set_inline_data(x, buf[0].addr, buf[0].length);
		else
			ibv_wr_set_inline_data_list(x, (size_t)n, buf);
	} else if (w->num_sge == 1) {
		ibv_wr_set_sge(x, w->sg_list[0].lkey, w->sg_list[0].addr,
			       w->sg_list[0].length);
	} else {
		ibv_wr_set_sge_list(x, (size_t)w->num_sge, w->sg_list);
	}
}

static void wr_build(struct ibv_qp_ex *x, const struct ibv_send_wr *w)
{
	x->wr_id = w->wr_id;
	x->wr_flags = w->send_flags;
	switch (w->opcode) {
	case IBV_WR_SEND:
		ibv_wr_send(x);
		break;
	case IBV_WR_SEND_WITH_IMM:
		ibv_wr_send_imm(x, w->imm_data);
		break;
	case IBV_WR_RDMA_WRITE:
		ibv_wr_rdma_write(x, w->wr.rdma.rkey, w->wr.rdma.remote_addr);
		break;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		ibv_wr_rdma_write_imm(x, w->wr.rdma.rkey,
				      w->wr.rdma.remote_addr, w->imm_data);
		break;
	case IBV_WR_RDMA_READ:
		ibv_wr_rdma_read(x, w->wr.rdma.rkey, w->wr.rdma.remote_addr);
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		ibv_wr_atomic_cmp_swp(x, w->wr.atomic.rkey,
				      w->wr.atomic.remote_addr,
				      w->wr.atomic.compare_add,
				      w->wr.atomic.swap);
		break;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		ibv_wr_atomic_fetch_add(x, w->wr.atomic.rkey,
					w->wr.atomic.remote_addr,
					w->wr.atomic.compare_add);
		break;
	default:
		/* Not translated: a bind_mw the provider refuses. */
		ibv_wr_bind_mw(x, NULL, 0, NULL);
		return;
	}
	/* Setters in a varying order: the API allows any. */
	if (x->qp_base.qp_type == IBV_QPT_UD && w->num_sge % 2)
		ibv_wr_set_ud_addr(x, w->wr.ud.ah, w->wr.ud.remote_qpn,
				   w->wr.ud.remote_qkey);
	wr_set_data(x, w);
	if (x->qp_base.qp_type == IBV_QPT_UD && !(w->num_sge % 2))
		ibv_wr_set_ud_addr(x, w->wr.ud.ah, w->wr.ud.remote_qpn,
				   w->wr.ud.remote_qkey);
}

int dp_post_send(struct dp_res *r, struct ibv_qp *qp, struct ibv_send_wr *wr,
		 struct ibv_send_wr **bad)
{
	struct ibv_qp_ex *x = r->use_wr ? ibv_qp_to_qp_ex(qp) : NULL;
	struct ibv_send_wr *w;
	int ret;

	if (!x)
		return ibv_post_send(qp, wr, bad);
	ibv_wr_start(x);
	for (w = wr; w; w = w->next)
		wr_build(x, w);
	ret = ibv_wr_complete(x);
	*bad = ret ? wr : NULL;
	return ret;
}

/* ---- checks of the API itself ---- */

#define DP_WR_NTESTS 15
#define PROBE_ID 0x9b0be

int dp_wr_ntests(void)
{
	return DP_WR_NTESTS;
}

static struct dp_res *R;
static const struct dp_peer *P;

/* A signalled 8-byte RDMA WRITE into the peer's target half. */
static void wr_write(struct ibv_qp_ex *x, uint64_t wr_id, uint64_t off)
{
	x->wr_id = wr_id;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(x, P->rkey, P->addr + off);
	ibv_wr_set_sge(x, R->mr->lkey, (uintptr_t)R->buf + R->size / 2, 8);
}

/* No completion shows up on @cq within @ms. */
static int quiet(enum dp_cq cq, int ms, char *err, size_t el)
{
	struct ibv_wc wc;

	if (dp_poll_one(R, cq, &wc, ms))
		return 0;
	snprintf(err, el, "unexpected completion wr_id %#llx status %s",
		 (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
	return -1;
}

/*
 * Nothing of a refused batch was posted: a fresh WRITE's completion is
 * the next one on the send CQ, and nothing follows it.
 */
static int probe(char *err, size_t el)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(R->rc_qp);
	struct ibv_wc wc;
	int ret;

	ibv_wr_start(x);
	wr_write(x, PROBE_ID, 0);
	ret = ibv_wr_complete(x);
	if (ret) {
		snprintf(err, el, "probe: wr_complete %s", strerror(ret));
		return -1;
	}
	if (dp_poll_one(R, DP_CQ_SEND, &wc, DP_TIMEOUT_MS)) {
		snprintf(err, el, "probe: no completion");
		return -1;
	}
	if (dp_check_wc(&wc, PROBE_ID, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 0,
			R->rc_qp->qp_num, err, el))
		return -1;
	return quiet(DP_CQ_SEND, 100, err, el);
}

/* wr_complete returned @ret, want @want, and nothing was posted. */
static int refused(int ret, int want, char *err, size_t el)
{
	if (ret != want) {
		snprintf(err, el, "wr_complete returned %d (%s), want %s", ret,
			 strerror(ret), strerror(want));
		return -1;
	}
	return probe(err, el);
}

static int t_create_refused(enum ibv_qp_type type, uint64_t ops, int want,
			    char *err, size_t el)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = R->cq[DP_CQ_SEND],
		.recv_cq = R->cq[DP_CQ_RECV],
		.cap = { .max_send_wr = 4,
			 .max_recv_wr = 4,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = type,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = R->pd,
		.send_ops_flags = ops,
	};
	struct ibv_qp *qp;

	errno = 0;
	qp = ibv_create_qp_ex(R->ctx, &a);
	if (qp) {
		ibv_destroy_qp(qp);
		snprintf(err, el, "created a QP, want %s", strerror(want));
		return -1;
	}
	if (errno != want) {
		snprintf(err, el, "errno %d (%s), want %s", errno,
			 strerror(errno), strerror(want));
		return -1;
	}
	return 0;
}

/*
 * Four WRITEs of a pattern and a READ of all of it back in one batch:
 * five completions in order, and the data made the round trip (the
 * responder executes an RC QP's requests in order, IBA 9.5).
 */
static int t_batch(char *err, size_t el)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(R->rc_qp);
	uint8_t *src = R->buf + R->size / 2 + 4096;
	uint8_t *dst = src + 4096;
	struct ibv_wc wc;
	int i, ret;

	dp_fill(src, 1024, 77);
	memset(dst, 0xee, 1024);
	ibv_wr_start(x);
	for (i = 0; i < 4; i++) {
		x->wr_id = 0xba00 + (uint64_t)i;
		x->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_write(x, P->rkey, P->addr + 256 * (uint64_t)i);
		ibv_wr_set_sge(x, R->mr->lkey, (uintptr_t)src + 256 * i, 256);
	}
	x->wr_id = 0xba04;
	ibv_wr_rdma_read(x, P->rkey, P->addr);
	ibv_wr_set_sge(x, R->mr->lkey, (uintptr_t)dst, 1024);
	ret = ibv_wr_complete(x);
	if (ret) {
		snprintf(err, el, "wr_complete: %s", strerror(ret));
		return -1;
	}
	for (i = 0; i < 5; i++) {
		if (dp_poll_one(R, DP_CQ_SEND, &wc, DP_TIMEOUT_MS)) {
			snprintf(err, el, "completion %d missing", i);
			return -1;
		}
		if (dp_check_wc(&wc, 0xba00 + (uint64_t)i, IBV_WC_SUCCESS,
				i < 4 ? IBV_WC_RDMA_WRITE : IBV_WC_RDMA_READ,
				1024, R->rc_qp->qp_num, err, el))
			return -1;
	}
	if (memcmp(src, dst, 1024)) {
		snprintf(err, el, "READ back differs from what was written");
		return -1;
	}
	return quiet(DP_CQ_SEND, 100, err, el);
}

static int t_abort(char *err, size_t el)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(R->rc_qp);

	ibv_wr_start(x);
	wr_write(x, 0xab0, 8);
	wr_write(x, 0xab1, 16);
	ibv_wr_abort(x);
	return probe(err, el);
}

static int t_empty(char *err, size_t el)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(R->rc_qp);
	int ret;

	ibv_wr_start(x);
	ret = ibv_wr_complete(x);
	if (ret) {
		snprintf(err, el, "wr_complete returned %s", strerror(ret));
		return -1;
	}
	return probe(err, el);
}

/* Case @c: build an invalid batch on the RC QP, return wr_complete. */
static int bad_batch(int c)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(R->rc_qp);
	struct ibv_sge sge[DP_MAX_SGE + 2];
	struct ibv_data_buf buf[2];
	uint8_t *scratch = R->buf + R->size / 2;
	uint32_t i;

	for (i = 0; i < DP_MAX_SGE + 2; i++) {
		sge[i].addr = (uintptr_t)scratch;
		sge[i].length = 1;
		sge[i].lkey = R->mr->lkey;
	}
	ibv_wr_start(x);
	x->wr_id = 0xbad0 + (uint64_t)c;
	x->wr_flags = IBV_SEND_SIGNALED;
	switch (c) {
	case 0: /* inline data one byte over max_inline_data */
		wr_write(x, 0xbad0, 0);
		ibv_wr_rdma_write(x, P->rkey, P->addr);
		ibv_wr_set_inline_data(x, scratch, R->max_inline + 1);
		break;
	case 1: /* inline list whose lengths sum past SIZE_MAX to 16 */
		ibv_wr_rdma_write(x, P->rkey, P->addr);
		buf[0].addr = scratch;
		buf[0].length = 32;
		buf[1].addr = scratch;
		buf[1].length = SIZE_MAX - 15;
		ibv_wr_set_inline_data_list(x, 2, buf);
		break;
	case 2: /* max_send_sge + 1 SGEs */
		ibv_wr_rdma_write(x, P->rkey, P->addr);
		ibv_wr_set_sge_list(x, R->max_send_sge + 1, sge);
		break;
	case 3: /* atomic with a 4-byte result buffer, mid-batch */
		wr_write(x, 0xbad3, 0);
		ibv_wr_atomic_fetch_add(x, P->rkey, P->addr, 1);
		ibv_wr_set_sge(x, R->mr->lkey, (uintptr_t)scratch, 4);
		wr_write(x, 0xbad4, 8);
		break;
	case 4: /* inline READ */
		ibv_wr_rdma_read(x, P->rkey, P->addr);
		ibv_wr_set_inline_data(x, scratch, 8);
		break;
	case 5: /* a setter before any builder */
		ibv_wr_set_sge(x, R->mr->lkey, (uintptr_t)scratch, 8);
		wr_write(x, 0xbad5, 0);
		break;
	case 6: /* more WRs than the SQ has slots (all valid) */
		for (i = 0; i < 4 * DP_QP_DEPTH + 64; i++)
			wr_write(x, 0xbad6, 0);
		break;
	default: /* unknown wr_flags bit */
		ibv_wr_rdma_write(x, P->rkey, P->addr);
		ibv_wr_set_sge(x, R->mr->lkey, (uintptr_t)scratch, 8);
		x->wr_flags = 1U << 30;
		ibv_wr_send(x);
		break;
	}
	return ibv_wr_complete(x);
}

/* UD: a builder not in send_ops_flags, and a send without an address. */
static int t_ud(int no_addr, char *err, size_t el)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(R->ud_qp);
	int ret;

	ibv_wr_start(x);
	x->wr_id = 0xbadd;
	x->wr_flags = IBV_SEND_SIGNALED;
	if (no_addr) {
		ibv_wr_send(x);
	} else {
		ibv_wr_rdma_write(x, P->rkey, P->addr);
		ibv_wr_set_ud_addr(x, R->ah, P->ud_qpn, DP_QKEY);
	}
	ibv_wr_set_sge(x, R->mr->lkey, (uintptr_t)R->buf + R->size / 2, 8);
	ret = ibv_wr_complete(x);
	if (ret != EINVAL) {
		snprintf(err, el, "wr_complete returned %d, want EINVAL", ret);
		return -1;
	}
	return quiet(DP_CQ_UD_SEND, 100, err, el);
}

static const char *const bad_names[] = {
	"wr_set_inline_data of max_inline_data + 1 bytes",
	"wr_set_inline_data_list whose lengths wrap size_t",
	"wr_set_sge_list of max_send_sge + 1 SGEs",
	"atomic with a 4-byte SGE in the middle of a batch",
	"inline data on an RDMA READ",
	"a setter before any builder",
	"more WRs in one batch than free SQ slots",
	"unknown wr_flags bit",
};

void dp_wr_tests(struct dp_res *r, const struct dp_peer *peer,
		 dp_report_fn report)
{
	char name[160], err[256];
	int c, want;

	R = r;
	P = peer;
	err[0] = 0;
	report(!t_create_refused(IBV_QPT_RC, IBV_QP_EX_WITH_TSO, EOPNOTSUPP,
				 err, sizeof(err)),
	       "wr: create_qp_ex with TSO in send_ops_flags: EOPNOTSUPP", err);
	err[0] = 0;
	report(!t_create_refused(IBV_QPT_UD, IBV_QP_EX_WITH_RDMA_WRITE, EINVAL,
				 err, sizeof(err)),
	       "wr: create_qp_ex UD with RDMA_WRITE in send_ops_flags: EINVAL",
	       err);
	err[0] = 0;
	report(!t_batch(err, sizeof(err)),
	       "wr: 4 WRITEs + READ in one wr_complete: in order, data back",
	       err);
	err[0] = 0;
	report(!t_abort(err, sizeof(err)), "wr: wr_abort posts nothing", err);
	err[0] = 0;
	report(!t_empty(err, sizeof(err)),
	       "wr: empty batch: wr_complete returns 0, posts nothing", err);
	for (c = 0; c < (int)(sizeof(bad_names) / sizeof(bad_names[0])); c++) {
		want = c == 6 ? ENOMEM : EINVAL;
		err[0] = 0;
		snprintf(name, sizeof(name),
			 "wr: %s: wr_complete %s, batch not posted",
			 bad_names[c], want == ENOMEM ? "ENOMEM" : "EINVAL");
		report(!refused(bad_batch(c), want, err, sizeof(err)), name,
		       err);
	}
	err[0] = 0;
	report(!t_ud(0, err, sizeof(err)),
	       "wr: UD rdma_write (not in send_ops_flags): EINVAL, not posted",
	       err);
	err[0] = 0;
	report(!t_ud(1, err, sizeof(err)),
	       "wr: UD send without wr_set_ud_addr: EINVAL, not posted", err);
}
