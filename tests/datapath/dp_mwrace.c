// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * dp_mwrace.c - ibv_dealloc_mw() racing a type 1 bind of the same window,
 * for t-inval.sh.  KTAP lines on stdout; "-P" prints the plan.
 *
 *   dp_mwrace -d DEV [-g GID_INDEX] [-n ROUNDS] [-t SECONDS]
 *
 * Each round allocates a type 1 window; a second thread posts
 * ibv_bind_mw() of it to one MR while the main thread, after a delay that
 * sweeps 0 to 8184 spins round by round, deallocates the window.  The
 * bind may complete either way (bound and then unbound by the dealloc, or
 * refused as the window is gone), but it must never leave the dead window
 * bound: that keeps the MR's window count raised, so ibv_dereg_mr() fails
 * with EBUSY for ever (and ib_uverbs WARNs when the process exits).  After
 * ROUNDS rounds (default 20000, at most SECONDS seconds, default 60) the MR
 * must deregister.  The binder posts through a copy of the window's
 * struct so that the dealloc never frees memory it still reads.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "dp_tool.h"

#define MR_NTEST 5

static struct ibv_qp *qp;
static struct ibv_mr *mr;
static struct ibv_mw shadow; /* the round's window, as the binder sees it */
static atomic_uint round_go; /* main -> binder: round number to bind */
static atomic_uint round_done; /* binder -> main: round posted (or not) */
static atomic_int bind_err; /* errno of the last ibv_bind_mw, 0 if posted */
static atomic_int stop;

static void *mr_binder(void *arg)
{
	struct ibv_mw_bind b = {
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .length = 1024,
			       .mw_access_flags = IBV_ACCESS_REMOTE_WRITE },
	};
	unsigned int seen = 0, r;
	struct ibv_mw mw;

	(void)arg;
	b.bind_info.mr = mr;
	b.bind_info.addr = (uintptr_t)mr->addr;
	for (;;) {
		while ((r = atomic_load(&round_go)) == seen)
			if (atomic_load_explicit(&stop, memory_order_relaxed))
				return NULL;
		seen = r;
		mw = shadow;
		b.wr_id = r;
		atomic_store(&bind_err, ibv_bind_mw(qp, &mw, &b));
		atomic_store(&round_done, r);
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* RESET -> RTS of the RC QP, connected to itself through @gid. */
static int rc_self_up(int gidx, const union ibv_gid *gid)
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
			     .grh = { .dgid = *gid, .sgid_index = gidx,
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

/*
 * A new RC QP connected to itself through @gid, replacing the global qp
 * (a refused bind leaves the old one in ERR); 0 or -1.
 */
static int rc_self_new(struct ibv_pd *pd, struct ibv_cq *cq, int gidx,
		       const union ibv_gid *gid)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_wc wc;

	if (qp && ibv_destroy_qp(qp))
		return -1;
	while (ibv_poll_cq(cq, 1, &wc) == 1)
		;
	qp = ibv_create_qp(pd, &ia);
	return qp ? rc_self_up(gidx, gid) : -1;
}

/* The completion of round @r: its status, -1 if none within 5 s. */
static int wait_wc(struct ibv_cq *cq, unsigned int r)
{
	double end = now_s() + 5;
	struct ibv_wc wc;

	while (now_s() < end) {
		if (ibv_poll_cq(cq, 1, &wc) == 1) {
			if (wc.wr_id == r)
				return wc.status;
			continue;
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	long ok = 0, refused = 0, notposted = 0, bad = 0;
	int n = 20000, secs = 60, gidx = 0, c, err;
	unsigned int r = 0;
	struct ibv_context *ctx;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;
	const char *dev = NULL;
	union ibv_gid gid;
	volatile unsigned int spin;
	char why[160];
	double t0, end;
	pthread_t t;
	void *buf;

	while ((c = getopt(argc, argv, "d:g:n:t:P")) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 'g':
			gidx = atoi(optarg);
			break;
		case 'n':
			n = atoi(optarg);
			break;
		case 't':
			secs = atoi(optarg);
			break;
		case 'P':
			printf("%d\n", MR_NTEST);
			return 0;
		default:
			return 2;
		}
	}
	if (!dev || n <= 0 || secs <= 0)
		return 2;
	printf("KTAP version 1\n1..%d\n", MR_NTEST);
	ctx = dpt_open(dev);
	buf = calloc(1, 4096);
	if (ctx && buf && !ibv_query_gid(ctx, 1, gidx, &gid)) {
		pd = ibv_alloc_pd(ctx);
		cq = pd ? ibv_create_cq(ctx, 64, NULL, NULL, 0) : NULL;
	}
	if (cq)
		mr = ibv_reg_mr(pd, buf, 4096,
				IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_REMOTE_WRITE |
					IBV_ACCESS_MW_BIND);
	err = !mr || rc_self_new(pd, cq, gidx, &gid);
	dpt_report(!err, "an RC QP on itself and an MR with MW_BIND",
		   err ? strerror(errno) : NULL);
	if (err)
		return 1;
	if (pthread_create(&t, NULL, mr_binder, NULL)) {
		dpt_report(0, "binder thread", "pthread_create failed");
		return 1;
	}

	t0 = now_s();
	end = t0 + secs;
	for (r = 1; r <= (unsigned int)n && now_s() < end; r++) {
		struct ibv_mw *mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
		int st;

		if (!mw) {
			snprintf(why, sizeof(why), "round %u: alloc_mw: %s", r,
				 strerror(errno));
			bad++;
			break;
		}
		shadow = *mw;
		atomic_store(&round_go, r);
		/* 0 .. 8184 spins: sweep the dealloc over the bind. */
		for (spin = 0; spin < (r * 37) % 1024 * 8; spin++)
			;
		if (ibv_dealloc_mw(mw)) {
			snprintf(why, sizeof(why), "round %u: dealloc_mw: %s",
				 r, strerror(errno));
			bad++;
			break;
		}
		while (atomic_load(&round_done) != r)
			;
		if (atomic_load(&bind_err)) {
			notposted++;
			continue;
		}
		st = wait_wc(cq, r);
		if (st == IBV_WC_SUCCESS) {
			ok++;
			continue;
		}
		if (st != IBV_WC_MW_BIND_ERR) {
			snprintf(why, sizeof(why), "round %u: bind status %s",
				 r, st < 0 ? "none" : ibv_wc_status_str(st));
			bad++;
			break;
		}
		/* A refused bind puts the QP in error: take a new one. */
		refused++;
		if (rc_self_new(pd, cq, gidx, &gid)) {
			snprintf(why, sizeof(why), "round %u: new QP: %s",
				 r, strerror(errno));
			bad++;
			break;
		}
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	if (!bad)
		r--; /* the loop's last increment */
	printf("# %u rounds in %.1f s: %ld bound, %ld refused (window gone), %ld not posted\n",
	       r, now_s() - t0, ok, refused, notposted);
	dpt_report(!bad, "alloc, bind racing dealloc, in a loop", bad ? why : NULL);
	snprintf(why, sizeof(why), "only %u rounds, %ld binds completed", r,
		 ok + refused);
	dpt_report(r >= 100 && ok + refused > 0, "the race ran (binds completed)",
		   why);
	err = ibv_dereg_mr(mr);
	snprintf(why, sizeof(why),
		 "dereg_mr: %s (a dead window is still bound to the MR)",
		 strerror(err));
	dpt_report(!err, "the MR deregisters after all its windows are gone",
		   err ? why : NULL);
	/*
	 * If the MR is stuck, leave it: ib_uverbs' cleanup then WARNs and
	 * the guest run fails too.
	 */
	err = ibv_destroy_qp(qp);
	dpt_expect(err, 0, "destroy_qp");
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return dpt_nfail ? 1 : 0;
}
