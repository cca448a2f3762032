// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * dp_inval.c - verbs with invalid arguments fail with a clear error and
 * create nothing, for t-inval.sh.  One device, KTAP lines on stdout;
 * "-P" prints the plan.
 *
 *   dp_inval -d DEV -g GIDX
 *
 * Covers bad access flags (reg_mr, alloc_mw), lengths and counts beyond
 * the advertised limits (CQ, QP, SRQ), wrong QP states and attributes
 * (modify_qp, post_recv), bad address vectors (create_ah), objects of
 * another PD (a SEND with another PD's lkey, a UD SEND through another
 * PD's AH, dealloc_pd while in use).  The data-path cases run over UD
 * loopback to the device's own GID.  The caller checks with `rdma
 * resource` that nothing was left behind.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "dp_tool.h"

#define IV_QKEY 0x11111111U
#define IV_NTEST 22

struct iv {
	struct ibv_context *ctx;
	struct ibv_device_attr da;
	struct ibv_pd *pd, *pd2;
	struct ibv_cq *cq;
	struct ibv_mr *mr, *mr2; /* mr2 in pd2 */
	uint8_t *buf;
	int gidx;
	union ibv_gid gid;
};

static struct ibv_qp *mk_qp(struct iv *v, struct ibv_pd *pd,
			    enum ibv_qp_type t, struct ibv_qp_cap cap)
{
	struct ibv_qp_init_attr ia = { .send_cq = v->cq, .recv_cq = v->cq,
				       .qp_type = t, .cap = cap };

	return ibv_create_qp(pd, &ia);
}

static const struct ibv_qp_cap small = { .max_send_wr = 4, .max_recv_wr = 4,
					 .max_send_sge = 1,
					 .max_recv_sge = 1 };

static struct ibv_ah *mk_ah(struct iv *v, struct ibv_pd *pd)
{
	struct ibv_ah_attr a = { .is_global = 1, .port_num = 1,
				 .grh = { .dgid = v->gid,
					  .sgid_index = v->gidx,
					  .hop_limit = 1 } };

	return ibv_create_ah(pd, &a);
}

/* Wait for one completion of @wr_id; its status, or -1 on timeout. */
static int wait_wc(struct iv *v, uint64_t wr_id, int ms)
{
	struct ibv_wc wc;
	int i;

	for (i = 0; i < ms * 10; i++) {
		if (ibv_poll_cq(v->cq, 1, &wc) == 1) {
			if (wc.wr_id == wr_id)
				return wc.status;
			continue;
		}
		usleep(100);
	}
	return -1;
}

/* UD SEND from @qp to @dst through @ah with @lkey; the send's status. */
static int ud_send(struct iv *v, struct ibv_qp *qp, struct ibv_ah *ah,
		   uint32_t dst, uint32_t lkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)v->buf, .length = 16,
			       .lkey = lkey };
	struct ibv_send_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = dst;
	wr.wr.ud.remote_qkey = IV_QKEY;
	if (ibv_post_send(qp, &wr, &bad))
		return -2;
	return wait_wc(v, 7, 5000);
}

static void control_cases(struct iv *v)
{
	struct ibv_qp_cap cap;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	struct ibv_srq_init_attr si;
	struct ibv_ah_attr aa;
	struct ibv_qp *qp;
	void *o;

	errno = 0;
	o = ibv_reg_mr(v->pd, v->buf, 4096, IBV_ACCESS_REMOTE_WRITE);
	dpt_refused(o, EINVAL, "reg_mr REMOTE_WRITE without LOCAL_WRITE: EINVAL");
	o = ibv_reg_mr(v->pd, v->buf, 4096, IBV_ACCESS_REMOTE_ATOMIC);
	dpt_refused(o, EINVAL, "reg_mr REMOTE_ATOMIC without LOCAL_WRITE: EINVAL");
	o = ibv_reg_mr(v->pd, v->buf, 4096, IBV_ACCESS_LOCAL_WRITE | 1 << 14);
	dpt_refused(o, EINVAL, "reg_mr with an unknown access bit: EINVAL");
	o = ibv_alloc_mw(v->pd, (enum ibv_mw_type)3);
	dpt_refused(o, EINVAL, "alloc_mw of an unknown type: EINVAL");

	o = ibv_create_cq(v->ctx, v->da.max_cqe + 1, NULL, NULL, 0);
	dpt_refused(o, EINVAL, "create_cq beyond max_cqe: EINVAL");

	cap = small;
	cap.max_send_wr = v->da.max_qp_wr + 1;
	o = mk_qp(v, v->pd, IBV_QPT_RC, cap);
	dpt_refused(o, EINVAL, "create_qp max_send_wr beyond max_qp_wr: EINVAL");
	cap = small;
	cap.max_recv_sge = v->da.max_sge + 1;
	o = mk_qp(v, v->pd, IBV_QPT_RC, cap);
	dpt_refused(o, EINVAL, "create_qp max_recv_sge beyond max_sge: EINVAL");
	cap = small;
	cap.max_inline_data = 1 << 20;
	o = mk_qp(v, v->pd, IBV_QPT_RC, cap);
	dpt_refused(o, EINVAL, "create_qp with 1 MiB of inline data: EINVAL");

	si = (struct ibv_srq_init_attr){ .attr = {
			.max_wr = v->da.max_srq_wr + 1, .max_sge = 1 } };
	o = ibv_create_srq(v->pd, &si);
	dpt_refused(o, EINVAL, "create_srq beyond max_srq_wr: EINVAL");
	si = (struct ibv_srq_init_attr){ .attr = {
			.max_wr = 4, .max_sge = v->da.max_srq_sge + 1 } };
	o = ibv_create_srq(v->pd, &si);
	dpt_refused(o, EINVAL, "create_srq beyond max_srq_sge: EINVAL");

	aa = (struct ibv_ah_attr){ .port_num = 1 };
	o = ibv_create_ah(v->pd, &aa);
	dpt_refused(o, EINVAL, "create_ah without a GRH (RoCE needs one): EINVAL");
	aa = (struct ibv_ah_attr){ .is_global = 1, .port_num = 1,
				   .grh = { .dgid = v->gid, .hop_limit = 1,
					    .sgid_index = 255 } };
	o = ibv_create_ah(v->pd, &aa);
	/* ib_core looks the source GID up before the driver sees it. */
	dpt_refused(o, ENODATA, "create_ah with an empty source GID index: ENODATA");

	/* Wrong QP states and attributes; the QP stays in RESET. */
	qp = mk_qp(v, v->pd, IBV_QPT_RC, small);
	if (!qp) {
		dpt_report(0, "create a valid RC QP", strerror(errno));
		return;
	}
	qa = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS };
	dpt_expect(ibv_modify_qp(qp, &qa, IBV_QP_STATE), EINVAL,
	       "modify_qp RESET -> RTS: EINVAL");
	qa = (struct ibv_qp_attr){ .qp_state = IBV_QPS_INIT, .port_num = 2 };
	dpt_expect(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					      IBV_QP_PORT |
					      IBV_QP_ACCESS_FLAGS),
	       EINVAL, "modify_qp to INIT on port 2: EINVAL");
	qa = (struct ibv_qp_attr){ .qp_state = IBV_QPS_INIT, .port_num = 1,
				   .pkey_index = 5 };
	dpt_expect(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					      IBV_QP_PORT |
					      IBV_QP_ACCESS_FLAGS),
	       EINVAL, "modify_qp to INIT with P_Key index 5: EINVAL");
	memset(&qa, 0, sizeof(qa));
	ibv_query_qp(qp, &qa, IBV_QP_STATE, &qi);
	dpt_report(qa.qp_state == IBV_QPS_RESET,
	       "after the refused transitions the QP is still RESET", NULL);
	qa = (struct ibv_qp_attr){ .qp_state = IBV_QPS_INIT, .port_num = 1 };
	dpt_expect(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					      IBV_QP_PORT |
					      IBV_QP_ACCESS_FLAGS),
	       0, "modify_qp to INIT with valid attributes");
	qa = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR };
	dpt_expect(ibv_modify_qp(qp, &qa, IBV_QP_STATE), EINVAL,
	       "modify_qp INIT -> RTR without path, PSN, QPN: EINVAL");
	dpt_expect(ibv_dealloc_pd(v->pd), EBUSY,
	       "dealloc_pd with a QP on it: EBUSY");
	ibv_destroy_qp(qp);
}

/* Objects of another PD, over UD loopback. */
static void pd_cases(struct iv *v)
{
	struct ibv_qp *qp = mk_qp(v, v->pd, IBV_QPT_UD, small);
	struct ibv_ah *ah = mk_ah(v, v->pd), *ah2 = mk_ah(v, v->pd2);
	int st;

	if (!qp || !ah || !ah2 || dpt_ud_up(qp, IV_QKEY)) {
		dpt_report(0, "UD QP and AHs", strerror(errno));
		dpt_report(0, "UD QP and AHs", NULL);
		dpt_report(0, "UD QP and AHs", NULL);
		return;
	}
	st = ud_send(v, qp, ah, qp->qp_num, v->mr->lkey);
	dpt_report(st == IBV_WC_SUCCESS, "UD SEND with the QP's own PD: SUCCESS",
	       NULL);
	st = ud_send(v, qp, ah, qp->qp_num, v->mr2->lkey);
	dpt_report(st == IBV_WC_LOC_PROT_ERR,
	       "SEND with an lkey of another PD: LOC_PROT_ERR",
	       st < 0 ? "no completion" : ibv_wc_status_str(st));
	/* The QP went to ERR with the failed WQE; a fresh one for the AH. */
	ibv_destroy_qp(qp);
	qp = mk_qp(v, v->pd, IBV_QPT_UD, small);
	if (!qp || dpt_ud_up(qp, IV_QKEY)) {
		dpt_report(0, "SEND through an AH of another PD fails", "no QP");
	} else {
		st = ud_send(v, qp, ah2, qp->qp_num, v->mr->lkey);
		/* Refused at post time or completed in error, not sent. */
		dpt_report(st == -2 || (st > 0 && st != IBV_WC_WR_FLUSH_ERR),
		       "SEND through an AH of another PD fails",
		       st == -1 ? "no completion" : ibv_wc_status_str(st));
	}
	if (qp)
		ibv_destroy_qp(qp);
	ibv_destroy_ah(ah2);
	ibv_destroy_ah(ah);
}

int main(int argc, char **argv)
{
	struct iv v = { 0 };
	const char *dev = NULL;
	int c;

	while ((c = getopt(argc, argv, "d:g:P")) != -1) {
		if (c == 'd')
			dev = optarg;
		else if (c == 'g')
			v.gidx = atoi(optarg);
		else if (c == 'P')
			return printf("%d\n", IV_NTEST), 0;
		else
			return 2;
	}
	if (!dev)
		return 2;
	v.ctx = dpt_open(dev);
	v.buf = calloc(1, 8192);
	if (!v.ctx || !v.buf || ibv_query_device(v.ctx, &v.da) ||
	    ibv_query_gid(v.ctx, 1, v.gidx, &v.gid))
		return fprintf(stderr, "cannot open %s\n", dev), 1;
	v.pd = ibv_alloc_pd(v.ctx);
	v.pd2 = ibv_alloc_pd(v.ctx);
	v.cq = ibv_create_cq(v.ctx, 64, NULL, NULL, 0);
	v.mr = v.pd ? ibv_reg_mr(v.pd, v.buf, 4096, IBV_ACCESS_LOCAL_WRITE) :
		      NULL;
	v.mr2 = v.pd2 ? ibv_reg_mr(v.pd2, v.buf + 4096, 4096,
				   IBV_ACCESS_LOCAL_WRITE) :
			NULL;
	if (!v.cq || !v.mr || !v.mr2)
		return fprintf(stderr, "setup: %s\n", strerror(errno)), 1;
	printf("1..%d\n", IV_NTEST);
	control_cases(&v);
	pd_cases(&v);

	ibv_dereg_mr(v.mr2);
	ibv_dereg_mr(v.mr);
	ibv_destroy_cq(v.cq);
	ibv_dealloc_pd(v.pd2);
	ibv_dealloc_pd(v.pd);
	ibv_close_device(v.ctx);
	return dpt_nfail || dpt_ntest != IV_NTEST;
}
