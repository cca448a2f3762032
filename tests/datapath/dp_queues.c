// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * dp_queues.c - the work queues under ring indices that user space writes
 * and under state changes, for t-queues.sh.  One device, KTAP lines on
 * stdout; "-P" prints the plan.
 *
 *   dp_queues -d DEV -g GIDX
 *
 * The rings of a QP are mapped into this process (the provider mmap()s
 * them from the uverbs file): they are found in /proc/self/maps as the
 * uverbs mappings that appeared with the QP, and their headers
 * (include/uapi/rdma/sroce-abi.h) are written directly, as a hostile
 * process would.
 *
 *  - RQ flush: a thread keeps the RQ's prod at cons + nslots while the QP
 *    moves to ERR; the modify must return within 1 s and take at most
 *    nslots WQEs.
 *  - SQ CQE posting: a thread keeps the SQ's prod at cons + nslots and
 *    rings while the QP moves to ERR; the modify must return within 1 s.
 *    With a module built with SROCE_TEST_HOOKS=1, each send CQE posted
 *    waits 1 ms (test_cqe_post_ms), which makes an unbounded poster loop
 *    for as long as the thread feeds (3 s).
 *  - SQ reset: prod = cons + 2^22, then RESET, INIT, ERR; the ERR modify
 *    must return within 1 s and flush nothing (nothing was posted).
 *  - Reuse: an RC QP with WQEs posted and unfinished is RESET, connected
 *    again and must behave as a new one: one SEND completes once with its
 *    own wr_id and data, nothing old is sent or completed, then a whole
 *    SQ's worth of SENDs completes in order.
 *  - Doorbells against modify_qp: WQEs posted while another thread loops
 *    RTS->RTS modifies (UD, and RC with an infinite timeout, so nothing but
 *    the doorbell and the ACK can finish a WQE) all complete; a WQE posted
 *    in SQD completes after SQD->RTS.
 *
 * RC cases run between two QPs of the device (loopback to its own GID).
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/sroce-abi.h>

#include "dp_tool.h"

#define Q_NTEST 14
#define Q_QKEY 0x11111111U
#define Q_LEN 64
#define Q_BUF (1 << 20)
#define Q_MAX_MAPS 256
#define Q_RQ_WR 16384 /* SROCE_MAX_QP_WR: the longest flush */
#define Q_SQ_JUMP (1U << 22)
#define Q_DEPTH 64
#define Q_RACE_MS 4000
#define Q_WAIT_MS 5000
#define Q_FEED_MS 3000

struct q {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint8_t *buf; /* send buffers in the first half, receives after */
	int gidx;
	union ibv_gid gid;
};

/* One QP with its own CQs and, once found, its mapped rings. */
struct qside {
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	struct sroce_ring_hdr *sq, *rq;
};

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static uint32_t ld(const __u32 *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void st(__u32 *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* Start addresses of the uverbs mappings of this process. */
static int uverbs_maps(uintptr_t *start, int max)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "/dev/infiniband/uverbs") && n < max)
			start[n++] = (uintptr_t)strtoull(line, NULL, 16);
	fclose(f);
	return n;
}

static int known(const uintptr_t *v, int n, uintptr_t x)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

static void qside_free(struct qside *s)
{
	if (s->qp)
		ibv_destroy_qp(s->qp);
	if (s->scq)
		ibv_destroy_cq(s->scq);
	if (s->rcq)
		ibv_destroy_cq(s->rcq);
	memset(s, 0, sizeof(*s));
}

/*
 * A QP of @type with its own CQs of @ncqe; its SQ and RQ headers are the
 * uverbs mappings that appeared with it: an RQ slot (16-byte header and
 * one SGE) is smaller than any SQ slot (64-byte header and more).
 */
static int qside_new(struct q *t, struct qside *s, enum ibv_qp_type type,
		     uint32_t send_wr, uint32_t recv_wr, int ncqe)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = type,
		.cap = { .max_send_wr = send_wr,
			 .max_recv_wr = recv_wr,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	uintptr_t before[Q_MAX_MAPS], after[Q_MAX_MAPS];
	int nb, na, i;

	memset(s, 0, sizeof(*s));
	s->scq = ibv_create_cq(t->ctx, ncqe, NULL, NULL, 0);
	s->rcq = ibv_create_cq(t->ctx, ncqe, NULL, NULL, 0);
	if (!s->scq || !s->rcq)
		goto fail;
	ia.send_cq = s->scq;
	ia.recv_cq = s->rcq;
	nb = uverbs_maps(before, Q_MAX_MAPS);
	s->qp = ibv_create_qp(t->pd, &ia);
	na = uverbs_maps(after, Q_MAX_MAPS);
	if (!s->qp || nb < 0 || na < 0)
		goto fail;
	for (i = 0; i < na; i++) {
		struct sroce_ring_hdr *h = (void *)after[i];

		if (known(before, nb, after[i]))
			continue;
		if (h->slot_size < sizeof(struct sroce_send_wqe))
			s->rq = h;
		else
			s->sq = h;
	}
	if (s->sq && s->rq)
		return 0;
	fprintf(stderr, "dp_queues: rings of the new QP not found\n");
fail:
	fprintf(stderr, "dp_queues: QP setup: %s\n", strerror(errno));
	qside_free(s);
	return -1;
}

static int to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qkey = Q_QKEY,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	mask |= qp->qp_type == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS;
	return ibv_modify_qp(qp, &a, mask);
}

static int to_state(struct ibv_qp *qp, enum ibv_qp_state st_)
{
	struct ibv_qp_attr a = { .qp_state = st_ };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

/* RESET -> INIT -> RTR -> RTS of an RC QP connected to @peer_qpn. */
static int rc_up(struct q *t, struct ibv_qp *qp, uint32_t peer_qpn,
		 uint32_t psn, uint32_t peer_psn, uint8_t timeout)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = peer_qpn,
		.rq_psn = peer_psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 1,
		.ah_attr = { .is_global = 1,
			     .port_num = 1,
			     .grh = { .dgid = t->gid,
				      .sgid_index = (uint8_t)t->gidx,
				      .hop_limit = 64 } },
	};

	if (to_init(qp) ||
	    ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = timeout;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = psn;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				     IBV_QP_MAX_QP_RD_ATOMIC);
}

/* Payload of message @wr_id: bytes that name it. */
static void pattern(uint8_t *p, uint64_t wr_id)
{
	int i;

	for (i = 0; i < Q_LEN; i++)
		p[i] = (uint8_t)(wr_id * 7 + i);
}

static int check_pattern(const uint8_t *p, uint64_t wr_id)
{
	uint8_t want[Q_LEN];

	pattern(want, wr_id);
	return !memcmp(p, want, Q_LEN);
}

static uint8_t *send_slot(struct q *t, unsigned int i)
{
	return t->buf + (size_t)(i % 4096) * Q_LEN;
}

static uint8_t *recv_slot(struct q *t, unsigned int i)
{
	return t->buf + Q_BUF / 2 + (size_t)(i % 4096) * Q_LEN;
}

static int post_recv(struct q *t, struct ibv_qp *qp, uint64_t wr_id,
		     unsigned int slot)
{
	struct ibv_sge sge = { .addr = (uintptr_t)recv_slot(t, slot),
			       .length = Q_LEN,
			       .lkey = t->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id,
				  .sg_list = &sge,
				  .num_sge = 1 },
			   *bad;

	memset(recv_slot(t, slot), 0, Q_LEN);
	return ibv_post_recv(qp, &wr, &bad);
}

/* A signaled SEND (RC; UD with @ah) or, with @rkey, an RDMA WRITE. */
static int post_send(struct q *t, struct ibv_qp *qp, uint64_t wr_id,
		     unsigned int slot, struct ibv_ah *ah, uint32_t dqpn,
		     uint32_t rkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)send_slot(t, slot),
			       .length = Q_LEN,
			       .lkey = t->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id,
				  .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED },
			   *bad;

	pattern(send_slot(t, slot), wr_id);
	if (ah) {
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = dqpn;
		wr.wr.ud.remote_qkey = Q_QKEY;
	} else if (rkey) {
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = (uintptr_t)recv_slot(t, slot);
		wr.wr.rdma.rkey = rkey;
	}
	return ibv_post_send(qp, &wr, &bad);
}

/* One completion within @ms: 1, 0 on timeout, -1 if the poll failed. */
static int poll1(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	double end = now_ms() + ms;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n < 0 ? -1 : 1;
	} while (now_ms() < end);
	return 0;
}

/* Completions waiting on @cq (taken), or -1 if the poll failed. */
static int drain(struct ibv_cq *cq)
{
	struct ibv_wc wc;
	int n = 0, r;

	while ((r = ibv_poll_cq(cq, 1, &wc)) == 1)
		n++;
	return r < 0 ? -1 : n;
}

/* ---- 1. RQ flush against a moving prod ---- */

struct pusher {
	struct sroce_ring_hdr *h;
	uint32_t nslots;
	volatile int stop, started;
	unsigned long writes;
};

/* Keep the ring full whatever the kernel takes: prod = cons + nslots. */
static void *push_fn(void *arg)
{
	struct pusher *p = arg;

	p->started = 1;
	while (!p->stop) {
		st(&p->h->prod, ld(&p->h->cons) + p->nslots);
		p->writes++;
	}
	return NULL;
}

static void case_rq_flush(struct q *t)
{
	struct pusher p = { 0 };
	struct qside s;
	uint32_t c0, taken;
	pthread_t th;
	char why[200];
	double ms;
	int cqes;

	if (qside_new(t, &s, IBV_QPT_RC, 1, Q_RQ_WR, 2 * Q_RQ_WR) ||
	    to_init(s.qp)) {
		dpt_report(0, "rq flush: setup", "QP or rings");
		dpt_report(0, "rq flush: bounded", NULL);
		dpt_report(0, "rq flush: CQEs", NULL);
		qside_free(&s);
		return;
	}
	dpt_report(1, "rq flush: setup", NULL);
	p.h = s.rq;
	p.nslots = 1U << s.rq->log2_slots;
	c0 = ld(&s.rq->cons);
	st(&s.rq->prod, c0 + p.nslots);
	pthread_create(&th, NULL, push_fn, &p);
	while (!p.started)
		;
	ms = now_ms();
	to_state(s.qp, IBV_QPS_ERR);
	ms = now_ms() - ms;
	p.stop = 1;
	pthread_join(th, NULL);
	taken = ld(&s.rq->cons) - c0;
	cqes = drain(s.rcq);
	snprintf(
		why, sizeof(why),
		"modify to ERR took %.1f ms and took %u WQEs (nslots %u, %lu prod writes)",
		ms, taken, p.nslots, p.writes);
	printf("# %s\n", why);
	dpt_report(ms < 1000 && taken <= p.nslots,
		   "rq flush: ERR within 1 s, at most nslots WQEs", why);
	snprintf(why, sizeof(why), "%d flush CQEs (-1: the CQ failed)", cqes);
	dpt_report(cqes >= 0 && (uint32_t)cqes == taken,
		   "rq flush: one CQE per WQE taken, CQ intact", why);
	qside_free(&s);
}

/* ---- 1b. send CQE posting against a producer that keeps flushing ---- */

/*
 * The test hook of a module built with SROCE_TEST_HOOKS=1
 * (kernel/testhook.h): each send CQE posted busy-waits this long, with
 * req.lock dropped.
 */
#define Q_HOOK "/sys/module/sroce/parameters/test_cqe_post_"
#define Q_HOOK_MS 1

struct feeder {
	struct qside *s;
	uint32_t nslots;
	volatile int started;
	long hits0; /* >= 0: wait for the CQE hook's hits to pass it */
	unsigned long rings;
};

/* Write @v to the hook's parameter @name; -1 if there is no such hook. */
static int hook_set(const char *name, unsigned int v)
{
	char path[128];
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), Q_HOOK "%s", name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	rc = fprintf(f, "%u\n", v) < 0;
	return fclose(f) || rc ? -1 : 0;
}

/* The hook's parameter @name; -1 if there is no such hook. */
static long hook_get(const char *name)
{
	char path[128];
	unsigned int v;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), Q_HOOK "%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fscanf(f, "%u", &v);
	fclose(f);
	return n == 1 ? (long)v : -1;
}

/*
 * In ERR every doorbell flushes what prod shows: keep prod at cons +
 * nslots and ring, for Q_FEED_MS whatever happens meanwhile.  With the
 * hook, only once a CQE is being posted: the modify's flush, not one of
 * these doorbells, must be the poster, or this thread would be the one
 * looping with nobody left to feed it.
 */
static void *feed_fn(void *arg)
{
	struct feeder *f = arg;
	double end;

	f->started = 1;
	end = now_ms() + Q_WAIT_MS;
	while (f->hits0 >= 0 && hook_get("hits") <= f->hits0 &&
	       now_ms() < end)
		;
	end = now_ms() + Q_FEED_MS;
	while (now_ms() < end) {
		st(&f->s->sq->prod, ld(&f->s->sq->cons) + f->nslots);
		dpt_doorbell(f->s->qp);
		f->rings++;
	}
	return NULL;
}

/*
 * The modify to ERR posts the flush CQEs of the SQ; a thread that keeps
 * the SQ full and rings meanwhile must not keep that modify (or any
 * context) posting for as long as it likes: one ring's worth per call.
 *
 * Without help the feeder rarely outruns the poster, and an unbounded
 * poster still returned at once.  With the CQE hook each CQE posted waits
 * Q_HOOK_MS, and the feeder starts once the modify posts (the SQ was
 * full before), so every doorbell moves done past what is posted: an
 * unbounded poster then loops until the feeder stops (Q_FEED_MS), a
 * bounded one returns after nslots CQEs (Q_DEPTH slots here, Q_DEPTH *
 * Q_HOOK_MS).  The limit, 1 s, lies between the two, and the hook must
 * have seen the modify post its nslots CQEs.
 */
static void case_sq_post_flood(struct q *t)
{
	const char *name = "sq flush: ERR returns while prod keeps moving";
	long h0 = hook_get("hits"), h1 = -1;
	int hooked = h0 >= 0 && !hook_set("ms", 0);
	struct feeder f = { 0 };
	struct qside s;
	char why[300];
	pthread_t th;
	int ok;
	double ms;

	if (qside_new(t, &s, IBV_QPT_RC, hooked ? Q_DEPTH : Q_RQ_WR, 1,
		      4 * Q_DEPTH) ||
	    to_init(s.qp)) {
		dpt_report(0, name, "QP or rings");
		qside_free(&s);
		return;
	}
	f.s = &s;
	f.nslots = 1U << s.sq->log2_slots;
	st(&s.sq->prod, ld(&s.sq->cons) + f.nslots);
	if (hooked && hook_set("ms", Q_HOOK_MS))
		hooked = 0;
	f.hits0 = hooked ? h0 : -1;
	pthread_create(&th, NULL, feed_fn, &f);
	while (!f.started)
		;
	ms = now_ms();
	to_state(s.qp, IBV_QPS_ERR);
	ms = now_ms() - ms;
	if (hooked)
		h1 = hook_get("hits");
	pthread_join(th, NULL);
	if (hooked)
		hook_set("ms", 0);
	/*
	 * Hooked, a bounded poster spins nslots x 1 ms, an unbounded one
	 * until the feeder stops (Q_FEED_MS): the limit sits between, with
	 * room for the debug kernel under load.
	 */
	ok = ms < (hooked ? 2 * Q_FEED_MS / 3 : 1000);
	if (hooked) {
		ok = ok && h1 - h0 >= f.nslots;
		snprintf(why, sizeof(why),
			 "modify to ERR took %.1f ms while a thread fed the SQ for %d ms (%lu doorbells); CQE hook %d ms: %ld CQEs meanwhile (nslots %u)",
			 ms, Q_FEED_MS, f.rings, Q_HOOK_MS, h1 - h0, f.nslots);
	} else {
		snprintf(why, sizeof(why),
			 "modify to ERR took %.1f ms while a thread fed the SQ for %d ms (%lu doorbells); no CQE hook (module without SROCE_TEST_HOOKS): the feeder has to win a race to show a loop",
			 ms, Q_FEED_MS, f.rings);
	}
	printf("# %s\n", why);
	dpt_report(ok, name, why);
	qside_free(&s);
}

/* ---- 2. SQ prod across RESET ---- */

static void case_sq_reset(struct q *t)
{
	struct qside s;
	char why[200];
	double ms;
	int cqes, ok;

	if (qside_new(t, &s, IBV_QPT_RC, Q_DEPTH, 1, 4 * Q_DEPTH) ||
	    to_init(s.qp)) {
		dpt_report(0, "sq reset: setup", "QP or rings");
		dpt_report(0, "sq reset: ERR", NULL);
		qside_free(&s);
		return;
	}
	st(&s.sq->prod, ld(&s.sq->cons) + Q_SQ_JUMP);
	ok = !to_state(s.qp, IBV_QPS_RESET) && !to_init(s.qp);
	dpt_report(ok, "sq reset: prod = cons + 2^22, RESET, INIT", NULL);
	ms = now_ms();
	to_state(s.qp, IBV_QPS_ERR);
	ms = now_ms() - ms;
	cqes = drain(s.scq);
	snprintf(why, sizeof(why),
		 "modify to ERR took %.1f ms, %d send CQEs (-1: the CQ failed)",
		 ms, cqes);
	printf("# %s\n", why);
	dpt_report(ms < 1000 && cqes == 0,
		   "sq reset: ERR within 1 s, nothing flushed", why);
	qside_free(&s);
}

/* ---- 3. reuse after RESET ---- */

/* @n completions on @cq with wr_ids from @wr0 on, in order, successful. */
static int expect_wcs(struct ibv_cq *cq, uint64_t wr0, int n, char *why,
		      size_t wl)
{
	struct ibv_wc wc;
	int i, r;

	for (i = 0; i < n; i++) {
		r = poll1(cq, &wc, Q_WAIT_MS);
		if (r != 1) {
			snprintf(why, wl, "completion %d of %d: %s", i, n,
				 r ? "poll failed" : "none");
			return 0;
		}
		if (wc.wr_id != wr0 + i || wc.status != IBV_WC_SUCCESS) {
			snprintf(
				why, wl,
				"completion %d: wr_id %llu status %s, expected %llu success",
				i, (unsigned long long)wc.wr_id,
				ibv_wc_status_str(wc.status),
				(unsigned long long)(wr0 + i));
			return 0;
		}
	}
	return 1;
}

static void case_reuse(struct q *t)
{
	struct qside a, b;
	struct ibv_wc wc;
	char why[256] = "";
	int ok, i, extra;

	if (qside_new(t, &a, IBV_QPT_RC, Q_DEPTH, Q_DEPTH, 4 * Q_DEPTH) ||
	    qside_new(t, &b, IBV_QPT_RC, Q_DEPTH, Q_DEPTH, 4 * Q_DEPTH) ||
	    rc_up(t, a.qp, b.qp->qp_num, 100, 200, 14) ||
	    rc_up(t, b.qp, a.qp->qp_num, 200, 100, 14)) {
		for (i = 0; i < 5; i++)
			dpt_report(0, "reuse: setup", "QPs or connection");
		qside_free(&a);
		qside_free(&b);
		return;
	}
	/* Traffic first. */
	ok = 1;
	for (i = 0; i < 3; i++)
		ok &= !post_recv(t, b.qp, 100 + i, i) &&
		      !post_send(t, a.qp, 200 + i, i, NULL, 0, 0);
	ok = ok && expect_wcs(a.scq, 200, 3, why, sizeof(why)) &&
	     expect_wcs(b.rcq, 100, 3, why, sizeof(why));
	dpt_report(ok, "reuse: 3 SENDs before", why);

	/*
	 * Leave work behind: 20 receives on b, then b to RESET, so 40
	 * SENDs of a stay unacknowledged; then a to RESET.
	 */
	ok = 1;
	for (i = 0; i < 20; i++)
		ok &= !post_recv(t, b.qp, 300 + i, 3 + i);
	ok &= !to_state(b.qp, IBV_QPS_RESET);
	for (i = 0; i < 40; i++)
		ok &= !post_send(t, a.qp, 400 + i, 3 + i, NULL, 0, 0);
	usleep(50 * 1000);
	ok &= !to_state(a.qp, IBV_QPS_RESET);
	drain(a.scq);
	drain(a.rcq);
	drain(b.scq);
	drain(b.rcq);
	ok = ok && !rc_up(t, a.qp, b.qp->qp_num, 5000, 6000, 14) &&
	     !rc_up(t, b.qp, a.qp->qp_num, 6000, 5000, 14);
	dpt_report(ok, "reuse: 20 receives, 40 SENDs left, RESET, reconnect",
		   NULL);

	/* Exactly one new SEND, nothing old. */
	why[0] = 0;
	ok = !post_recv(t, b.qp, 500, 100) &&
	     !post_send(t, a.qp, 600, 100, NULL, 0, 0) &&
	     expect_wcs(a.scq, 600, 1, why, sizeof(why)) &&
	     expect_wcs(b.rcq, 500, 1, why, sizeof(why));
	if (ok && !check_pattern(recv_slot(t, 100), 600)) {
		ok = 0;
		snprintf(why, sizeof(why), "the receive holds other data");
	}
	dpt_report(ok, "reuse: one SEND completes with its own wr_id and data",
		   why);
	usleep(300 * 1000);
	extra = 0;
	while (ibv_poll_cq(a.scq, 1, &wc) == 1 ||
	       ibv_poll_cq(b.rcq, 1, &wc) == 1) {
		if (!extra++)
			snprintf(why, sizeof(why),
				 "extra completion wr_id %llu status %s",
				 (unsigned long long)wc.wr_id,
				 ibv_wc_status_str(wc.status));
	}
	dpt_report(!extra, "reuse: nothing else completes", why);

	/* A whole SQ of SENDs, as on a new QP. */
	why[0] = 0;
	ok = 1;
	for (i = 0; i < Q_DEPTH; i++)
		ok &= !post_recv(t, b.qp, 1000 + i, 200 + i);
	for (i = 0; i < Q_DEPTH && ok; i++)
		if (post_send(t, a.qp, 2000 + i, 200 + i, NULL, 0, 0)) {
			snprintf(why, sizeof(why), "post %d of %d refused", i,
				 Q_DEPTH);
			ok = 0;
		}
	ok = ok && expect_wcs(a.scq, 2000, Q_DEPTH, why, sizeof(why)) &&
	     expect_wcs(b.rcq, 1000, Q_DEPTH, why, sizeof(why));
	dpt_report(ok, "reuse: a whole SQ of SENDs completes in order", why);
	qside_free(&a);
	qside_free(&b);
}

/* ---- 4. doorbells against modify_qp ---- */

struct modder {
	struct ibv_qp *qp;
	volatile int stop;
	unsigned long n;
};

/* RTS -> RTS with no attribute: takes the SEND side's lock, nothing else. */
static void *modify_fn(void *arg)
{
	struct modder *m = arg;

	while (!m->stop) {
		to_state(m->qp, IBV_QPS_RTS);
		m->n++;
	}
	return NULL;
}

/*
 * Post one signaled WQE at a time while a thread loops RTS->RTS modifies;
 * each must complete within Q_WAIT_MS.  Returns the WQEs done, -1 - done
 * on a missing or failed one.
 */
static long race_modify(struct q *t, struct qside *s, struct ibv_ah *ah,
			uint32_t dqpn, uint32_t rkey, unsigned long *mods)
{
	struct modder m = { .qp = s->qp };
	double end = now_ms() + Q_RACE_MS;
	struct ibv_wc wc;
	pthread_t th;
	long i = 0;

	pthread_create(&th, NULL, modify_fn, &m);
	for (; now_ms() < end; i++) {
		if (post_send(t, s->qp, i, (unsigned int)i, ah, dqpn, rkey) ||
		    poll1(s->scq, &wc, Q_WAIT_MS) != 1 ||
		    wc.status != IBV_WC_SUCCESS || wc.wr_id != (uint64_t)i) {
			i = -1 - i;
			break;
		}
	}
	m.stop = 1;
	pthread_join(th, NULL);
	*mods = m.n;
	return i;
}

static void case_modify_race(struct q *t)
{
	struct ibv_ah_attr aa = { .is_global = 1,
				  .port_num = 1,
				  .grh = { .dgid = t->gid,
					   .sgid_index = (uint8_t)t->gidx,
					   .hop_limit = 1 } };
	struct qside u, r, a, b;
	struct ibv_ah *ah = NULL;
	unsigned long mods = 0;
	struct ibv_wc wc;
	char why[200];
	long n;
	int ok;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	ok = !qside_new(t, &u, IBV_QPT_UD, Q_DEPTH, 1, 4 * Q_DEPTH) &&
	     !qside_new(t, &r, IBV_QPT_UD, 1, 1, 4) &&
	     !dpt_ud_up(u.qp, Q_QKEY) && !dpt_ud_up(r.qp, Q_QKEY) &&
	     (ah = ibv_create_ah(t->pd, &aa));
	if (!ok) {
		dpt_report(0, "modify race: UD setup", NULL);
		dpt_report(0, "modify race: UD SQD", NULL);
		goto rc;
	}
	/* UD: a send completes once sent; a lost doorbell never does. */
	n = race_modify(t, &u, ah, r.qp->qp_num, 0, &mods);
	snprintf(why, sizeof(why),
		 "%ld SENDs completed, %lu RTS->RTS modifies%s",
		 n < 0 ? -1 - n : n, mods,
		 n < 0 ? "; then one did not complete" : "");
	printf("# UD: %s\n", why);
	dpt_report(n > 0, "modify race: UD SENDs all complete", why);

	/*
	 * A WQE posted in SQD is not processed there (IBA 10.3.1.5) and goes
	 * out after SQD -> RTS, with no other doorbell.
	 */
	ok = !to_state(u.qp, IBV_QPS_SQD) &&
	     !post_send(t, u.qp, 77, 0, ah, r.qp->qp_num, 0);
	usleep(100 * 1000);
	n = drain(u.scq);
	ok = ok && n == 0 && !to_state(u.qp, IBV_QPS_RTS) &&
	     poll1(u.scq, &wc, Q_WAIT_MS) == 1 && wc.wr_id == 77 &&
	     wc.status == IBV_WC_SUCCESS;
	snprintf(why, sizeof(why), "%ld completions in SQD; %s", n,
		 ok ? "" : "none (or a wrong one) after RTS");
	dpt_report(ok, "modify race: UD SEND posted in SQD completes after RTS",
		   why);
rc:
	/* RC, no retransmit timer: only the doorbell and the ACK finish it. */
	if (qside_new(t, &a, IBV_QPT_RC, Q_DEPTH, 1, 4 * Q_DEPTH) ||
	    qside_new(t, &b, IBV_QPT_RC, 1, 1, 4) ||
	    rc_up(t, a.qp, b.qp->qp_num, 10, 20, 0) ||
	    rc_up(t, b.qp, a.qp->qp_num, 20, 10, 0)) {
		dpt_report(0, "modify race: RC WRITEs all complete", "setup");
		goto out;
	}
	n = race_modify(t, &a, NULL, 0, t->mr->rkey, &mods);
	snprintf(why, sizeof(why),
		 "%ld WRITEs completed, %lu RTS->RTS modifies%s",
		 n < 0 ? -1 - n : n, mods,
		 n < 0 ? "; then one did not complete" : "");
	printf("# RC: %s\n", why);
	dpt_report(n > 0, "modify race: RC WRITEs all complete", why);
out:
	if (ah)
		ibv_destroy_ah(ah);
	qside_free(&a);
	qside_free(&b);
	qside_free(&u);
	qside_free(&r);
}

int main(int argc, char **argv)
{
	const char *dev = NULL;
	struct q t = { 0 };
	int c;

	while ((c = getopt(argc, argv, "d:g:P")) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 'g':
			t.gidx = atoi(optarg);
			break;
		case 'P':
			printf("%d\n", Q_NTEST);
			return 0;
		default:
			return 2;
		}
	}
	if (!dev) {
		fprintf(stderr, "usage: dp_queues -d DEV -g GIDX | -P\n");
		return 2;
	}
	t.ctx = dpt_open(dev);
	t.buf = aligned_alloc(4096, Q_BUF);
	if (!t.ctx || !t.buf || ibv_query_gid(t.ctx, 1, t.gidx, &t.gid)) {
		fprintf(stderr, "dp_queues: cannot open %s\n", dev);
		return 1;
	}
	memset(t.buf, 0, Q_BUF);
	t.pd = ibv_alloc_pd(t.ctx);
	t.mr = t.pd ? ibv_reg_mr(t.pd, t.buf, Q_BUF,
				 IBV_ACCESS_LOCAL_WRITE |
					 IBV_ACCESS_REMOTE_WRITE) :
		      NULL;
	if (!t.mr) {
		fprintf(stderr, "dp_queues: pd/mr: %s\n", strerror(errno));
		return 1;
	}
	case_rq_flush(&t);
	case_sq_post_flood(&t);
	case_sq_reset(&t);
	case_reuse(&t);
	case_modify_race(&t);
	ibv_dereg_mr(t.mr);
	ibv_dealloc_pd(t.pd);
	ibv_close_device(t.ctx);
	free(t.buf);
	return dpt_nfail ? 1 : 0;
}
