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
 * PD's AH, dealloc_pd while in use, a QP on an SRQ of another PD, memory
 * window binds with an MR or a QP of another PD or an MR without
 * MW_BIND, over RC QPs connected to themselves).  The data-path cases run over UD
 * loopback to the device's own GID.  The caller checks with `rdma
 * resource` that nothing was left behind.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "dp_tool.h"

#define IV_QKEY 0x11111111U
#define IV_NMW 11 /* mw_cases */
#define IV_NTEST (24 + IV_NMW)

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

/* reg_mr access flags refused: remote write or atomic needs local write. */
static const struct {
	int access;
	const char *name;
} bad_access[] = {
	{ IBV_ACCESS_REMOTE_WRITE,
	  "reg_mr REMOTE_WRITE without LOCAL_WRITE: EINVAL" },
	{ IBV_ACCESS_REMOTE_ATOMIC,
	  "reg_mr REMOTE_ATOMIC without LOCAL_WRITE: EINVAL" },
	{ IBV_ACCESS_LOCAL_WRITE | 1 << 14,
	  "reg_mr with an unknown access bit: EINVAL" },
};

/*
 * Create attributes one beyond an advertised limit: field is a uint32_t at
 * that offset of the create attributes, set to the int at limit in struct
 * ibv_device_attr plus one, or to over when limit is 0.
 */
struct beyond {
	size_t field, limit;
	uint32_t over;
	const char *name;
};

#define CAP(f) offsetof(struct ibv_qp_cap, f)
#define SRQ(f) offsetof(struct ibv_srq_init_attr, attr.f)
#define DA(f) offsetof(struct ibv_device_attr, f)
static const struct beyond bad_qp_caps[] = {
	{ CAP(max_send_wr), DA(max_qp_wr), 0,
	  "create_qp max_send_wr beyond max_qp_wr: EINVAL" },
	{ CAP(max_recv_sge), DA(max_sge), 0,
	  "create_qp max_recv_sge beyond max_sge: EINVAL" },
	{ CAP(max_inline_data), 0, 1 << 20,
	  "create_qp with 1 MiB of inline data: EINVAL" },
};

static const struct beyond bad_srqs[] = {
	{ SRQ(max_wr), DA(max_srq_wr), 0, "create_srq beyond max_srq_wr: EINVAL" },
	{ SRQ(max_sge), DA(max_srq_sge), 0,
	  "create_srq beyond max_srq_sge: EINVAL" },
};
#undef CAP
#undef SRQ
#undef DA

static void set_beyond(struct iv *v, void *attr, const struct beyond *b)
{
	uint32_t val = b->over;

	if (b->limit)
		val = (uint32_t)*(const int *)((const char *)&v->da + b->limit) + 1;
	*(uint32_t *)((char *)attr + b->field) = val;
}

/* modify_qp calls refused on a QP in RESET, which stays there. */
#define INIT_MASK                                                  \
	(IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |          \
	 IBV_QP_ACCESS_FLAGS)
static const struct {
	struct ibv_qp_attr attr;
	int mask;
	const char *name;
} bad_modify[] = {
	{ { .qp_state = IBV_QPS_RTS }, IBV_QP_STATE,
	  "modify_qp RESET -> RTS: EINVAL" },
	{ { .qp_state = IBV_QPS_INIT, .port_num = 2 }, INIT_MASK,
	  "modify_qp to INIT on port 2: EINVAL" },
	{ { .qp_state = IBV_QPS_INIT, .port_num = 1, .pkey_index = 5 },
	  INIT_MASK, "modify_qp to INIT with P_Key index 5: EINVAL" },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void control_cases(struct iv *v)
{
	struct ibv_qp_cap cap;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	struct ibv_srq_init_attr si;
	struct ibv_ah_attr aa;
	struct ibv_qp *qp;
	size_t i;
	void *o;

	errno = 0;
	for (i = 0; i < N(bad_access); i++) {
		o = ibv_reg_mr(v->pd, v->buf, 4096, bad_access[i].access);
		dpt_refused(o, EINVAL, bad_access[i].name);
	}
	o = ibv_alloc_mw(v->pd, (enum ibv_mw_type)3);
	dpt_refused(o, EINVAL, "alloc_mw of an unknown type: EINVAL");

	o = ibv_create_cq(v->ctx, v->da.max_cqe + 1, NULL, NULL, 0);
	dpt_refused(o, EINVAL, "create_cq beyond max_cqe: EINVAL");

	for (i = 0; i < N(bad_qp_caps); i++) {
		cap = small;
		set_beyond(v, &cap, &bad_qp_caps[i]);
		o = mk_qp(v, v->pd, IBV_QPT_RC, cap);
		dpt_refused(o, EINVAL, bad_qp_caps[i].name);
	}
	for (i = 0; i < N(bad_srqs); i++) {
		si = (struct ibv_srq_init_attr){ .attr = { .max_wr = 4,
							   .max_sge = 1 } };
		set_beyond(v, &si, &bad_srqs[i]);
		o = ibv_create_srq(v->pd, &si);
		dpt_refused(o, EINVAL, bad_srqs[i].name);
	}

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
	for (i = 0; i < N(bad_modify); i++) {
		qa = bad_modify[i].attr;
		dpt_expect(ibv_modify_qp(qp, &qa, bad_modify[i].mask), EINVAL,
			   bad_modify[i].name);
	}
	memset(&qa, 0, sizeof(qa));
	ibv_query_qp(qp, &qa, IBV_QP_STATE, &qi);
	dpt_report(qa.qp_state == IBV_QPS_RESET,
	       "after the refused transitions the QP is still RESET", NULL);
	qa = (struct ibv_qp_attr){ .qp_state = IBV_QPS_INIT, .port_num = 1 };
	dpt_expect(ibv_modify_qp(qp, &qa, INIT_MASK), 0,
		   "modify_qp to INIT with valid attributes");
	qa = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR };
	dpt_expect(ibv_modify_qp(qp, &qa, IBV_QP_STATE), EINVAL,
	       "modify_qp INIT -> RTR without path, PSN, QPN: EINVAL");
	dpt_expect(ibv_dealloc_pd(v->pd), EBUSY,
	       "dealloc_pd with a QP on it: EBUSY");
	ibv_destroy_qp(qp);
}

/*
 * An SRQ and its QPs share one PD (the responder checks receive lkeys
 * against the QP's PD); a CQ has no PD, so QPs of any PD may share one.
 */
static void srq_cases(struct iv *v)
{
	struct ibv_srq_init_attr si = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_qp_init_attr ia = { .send_cq = v->cq, .recv_cq = v->cq,
				       .qp_type = IBV_QPT_RC, .cap = small };
	struct ibv_srq *srq = ibv_create_srq(v->pd2, &si);
	struct ibv_qp *qp;

	if (!srq) {
		dpt_report(0, "create_qp with an SRQ of another PD: EINVAL",
			   strerror(errno));
		dpt_report(0, "create_qp in the SRQ's PD", NULL);
		return;
	}
	ia.srq = srq;
	errno = 0;
	qp = ibv_create_qp(v->pd, &ia);
	dpt_refused(qp, EINVAL, "create_qp with an SRQ of another PD: EINVAL");
	if (qp)
		ibv_destroy_qp(qp);
	ia.srq = srq;
	ia.cap = small;
	qp = ibv_create_qp(v->pd2, &ia);
	dpt_report(qp != NULL,
		   "create_qp in the SRQ's PD, on a CQ other PDs' QPs use",
		   qp ? NULL : strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);
	ibv_destroy_srq(srq);
}

/* RESET -> RTS of an RC QP connected to itself through the own GID. */
static int rc_self_up(struct iv *v, struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
		.dest_qp_num = qp->qp_num, .max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .dgid = v->gid, .sgid_index = v->gidx,
				      .hop_limit = 1 } } };
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					  IBV_QP_MAX_DEST_RD_ATOMIC |
					  IBV_QP_MIN_RNR_TIMER))
		return -1;
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS, .timeout = 14,
				  .retry_cnt = 7, .rnr_retry = 7,
				  .max_rd_atomic = 1 };
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
					     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static struct ibv_qp *rc_self(struct iv *v, struct ibv_pd *pd)
{
	struct ibv_qp *qp = mk_qp(v, pd, IBV_QPT_RC, small);

	if (qp && rc_self_up(v, qp)) {
		ibv_destroy_qp(qp);
		qp = NULL;
	}
	return qp;
}

/* A 1 KiB window at the start of @mr granting remote write. */
static struct ibv_mw_bind_info bind_info(struct ibv_mr *mr)
{
	return (struct ibv_mw_bind_info){
		.mr = mr, .addr = (uintptr_t)mr->addr, .length = 1024,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE };
}

/* ibv_bind_mw of type 1 window @mw to @mr on @qp; errno value. */
static int bind1(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mr *mr,
		 uint64_t id)
{
	struct ibv_mw_bind b = { .wr_id = id, .send_flags = IBV_SEND_SIGNALED,
				 .bind_info = bind_info(mr) };

	return ibv_bind_mw(qp, mw, &b);
}

/* A type 2 bind of @mw to @mr posted on @qp; its status, <0 if none. */
static int bind2(struct iv *v, struct ibv_qp *qp, struct ibv_mw *mw,
		 struct ibv_mr *mr, uint64_t id)
{
	struct ibv_send_wr wr = { .wr_id = id, .opcode = IBV_WR_BIND_MW,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	int st;

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = bind_info(mr);
	if (ibv_post_send(qp, &wr, &bad))
		return -2;
	st = wait_wc(v, id, 5000);
	if (st == IBV_WC_SUCCESS)
		mw->rkey = wr.bind_mw.rkey;
	return st;
}

static const char *st_str(int st)
{
	return st == -1 ? "no completion" :
	       st == -2 ? "post refused" : ibv_wc_status_str(st);
}

/*
 * Type 1 binds through ibv_bind_mw with an MR of another PD, an MR without
 * MW_BIND or on a QP of another PD are refused before anything is posted;
 * the QP stays usable and a valid bind then completes.
 */
static void mw1_cases(struct iv *v, struct ibv_mr *mrb, struct ibv_mr *mrb2)
{
	struct ibv_qp *qp = rc_self(v, v->pd), *qp2 = rc_self(v, v->pd2);
	struct ibv_mw *mw = ibv_alloc_mw(v->pd, IBV_MW_TYPE_1);
	struct ibv_qp_init_attr qi;
	struct ibv_qp_attr qa;
	uint32_t rkey;
	int st;

	if (!qp || !qp2 || !mw) {
		for (st = 0; st < 5; st++)
			dpt_report(0, "type 1 MW cases: RC QPs and a window",
				   strerror(errno));
		goto out;
	}
	rkey = mw->rkey;
	/* libibverbs' ibv_bind_mw() refuses this one itself. */
	dpt_expect(bind1(qp, mw, mrb2, 0x101), EPERM,
		   "bind_mw type 1 to an MR of another PD: EPERM");
	dpt_expect(bind1(qp, mw, v->mr, 0x102), EINVAL,
		   "bind_mw type 1 to an MR without MW_BIND: EINVAL");
	dpt_expect(bind1(qp2, mw, mrb, 0x103), EINVAL,
		   "bind_mw type 1 on a QP of another PD: EINVAL");
	st = wait_wc(v, 0x100, 200); /* no such wr_id: any completion shows */
	memset(&qa, 0, sizeof(qa));
	ibv_query_qp(qp, &qa, IBV_QP_STATE, &qi);
	dpt_report(st == -1 && mw->rkey == rkey && qa.qp_state == IBV_QPS_RTS,
		   "the refused binds posted nothing: no completion, rkey kept, QP in RTS",
		   st != -1 ? "a completion arrived" : NULL);
	st = bind1(qp, mw, mrb, 0x104);
	st = st ? -2 : wait_wc(v, 0x104, 5000);
	dpt_report(st == IBV_WC_SUCCESS && mw->rkey != rkey,
		   "then a valid type 1 bind completes with a new rkey",
		   st_str(st));
out:
	if (mw)
		ibv_dealloc_mw(mw);
	if (qp2)
		ibv_destroy_qp(qp2);
	if (qp)
		ibv_destroy_qp(qp);
}

/* One type 2 bind of @mw to @mr on a fresh RC QP of @pd; reports @what. */
static void mw2_case(struct iv *v, struct ibv_pd *pd, struct ibv_mw *mw,
		     struct ibv_mr *mr, uint64_t wr_id, int want,
		     const char *what)
{
	struct ibv_qp *qp = rc_self(v, pd);
	int st = qp ? bind2(v, qp, mw, mr, wr_id) : -3;

	dpt_report(st == want, what, qp ? st_str(st) : "no QP");
	if (qp)
		ibv_destroy_qp(qp);
}

/*
 * Type 2 binds posted with ibv_post_send are checked when sroce.ko
 * executes them: a QP of another PD (C10-72) or an MR of another PD
 * completes with MW_BIND_ERR (the QP goes to ERR, as for any completion
 * error).  The window stays free and the MR uncounted.
 */
static void mw2_cases(struct iv *v, struct ibv_mr *mrb, struct ibv_mr *mrb2)
{
	struct ibv_mw *mw = ibv_alloc_mw(v->pd, IBV_MW_TYPE_2);
	int st;

	if (!mw) {
		for (st = 0; st < 4; st++)
			dpt_report(0, "alloc_mw type 2", strerror(errno));
		return;
	}
	mw2_case(v, v->pd2, mw, mrb2, 0x201, IBV_WC_MW_BIND_ERR,
		 "type 2 bind on a QP of another PD: MW_BIND_ERR");
	mw2_case(v, v->pd, mw, mrb2, 0x202, IBV_WC_MW_BIND_ERR,
		 "type 2 bind to an MR of another PD: MW_BIND_ERR");
	mw2_case(v, v->pd, mw, mrb, 0x203, IBV_WC_SUCCESS,
		 "then the window is still free: a valid type 2 bind completes");
	dpt_expect(ibv_dealloc_mw(mw), 0, "dealloc_mw of the bound window");
}

static void mw_cases(struct iv *v)
{
	struct ibv_mr *mrb, *mrb2;
	int i;

	mrb = ibv_reg_mr(v->pd, v->buf, 4096,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	mrb2 = ibv_reg_mr(v->pd2, v->buf + 4096, 4096,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	if (!mrb || !mrb2) {
		for (i = 0; i < IV_NMW; i++)
			dpt_report(0, "MRs with MW_BIND", strerror(errno));
		goto out;
	}
	mw1_cases(v, mrb, mrb2);
	mw2_cases(v, mrb, mrb2);
	/* A failed bind left no window counted against either MR. */
	dpt_expect(ibv_dereg_mr(mrb2), 0,
		   "dereg_mr of the MR the failed binds named");
	mrb2 = NULL;
	dpt_expect(ibv_dereg_mr(mrb), 0,
		   "dereg_mr of the MR once its windows are gone");
	mrb = NULL;
out:
	if (mrb2)
		ibv_dereg_mr(mrb2);
	if (mrb)
		ibv_dereg_mr(mrb);
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
	srq_cases(&v);
	mw_cases(&v);

	ibv_dereg_mr(v.mr2);
	ibv_dereg_mr(v.mr);
	ibv_destroy_cq(v.cq);
	ibv_dealloc_pd(v.pd2);
	ibv_dealloc_pd(v.pd);
	ibv_close_device(v.ctx);
	return dpt_nfail || dpt_ntest != IV_NTEST;
}
