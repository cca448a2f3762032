// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * dp_fuzzt.c - the live target of the RoCE v2 packet fuzzer
 * (tests/integration/pkt_fuzz.py, t-pktfuzz.sh).
 *
 *   dp_fuzzt -d DEV -g GIDX -D PEER -G PGIDX -m GROUP [-r NRC]
 *
 * On DEV it sets up NRC (default 4) RC QPs, an RC QP receiving through an
 * SRQ, a UC, a UD and a UD QP attached to the IPv4 multicast GROUP, each
 * connected to (or, for UD, paired with) a QP of its own on PEER.  Remote
 * memory: an MR with every remote right ("rw"), a READ-only one ("ro"),
 * one with no remote right of its own reachable only through a type 1 and
 * a type 2 memory window ("mwmr", windows "mw1", "mw2"), and the receive
 * buffers ("rcv").  Each MR starts and ends in the middle of a page of
 * canary bytes, with a PROT_NONE page beyond either end: the bytes of
 * those pages outside the MR, all of "ro" and the bytes of "mwmr" outside
 * its windows must never change.
 *
 * It prints what the fuzzer needs, one object a line:
 *   qp NAME TYPE QPN RQ_PSN      (TYPE rc, uc, ud, mc; NAME srq is RC)
 *   mr NAME ADDR LEN RKEY
 *   mw NAME ADDR LEN RKEY QPN    (QPN of the QP a type 2 window is on)
 *   qkey QKEY
 *   ready
 * and then reads commands from stdin, answering each with lines ending
 * in "done":
 *   rearm   every QP of DEV through RESET back to RTS (RQ_PSN unchanged),
 *           receives posted again, CQs drained: "rearmed NERR NCQE"
 *   guard   "guard NAME ok" or "guard NAME bad ..." for every buffer
 *   xqp     "xqp access ok|bad: ..." (an RDMA WRITE through the type 2
 *           window on another QP is refused), "xqp inval ok|bad: ..." (a
 *           SEND with Invalidate of it on another QP fails, the window
 *           still works on its QP)
 *   legit   both ends of every pair back to RTS, then from PEER a WRITE,
 *           READ back, FETCH_ADD and SEND (RC, SRQ), WRITE and SEND
 *           (UC), READ of "ro", WRITE and READ through both windows, UD
 *           and multicast SENDs, all checked byte for byte:
 *           "legit NAME ok" or "legit NAME bad ..." per QP
 *   quit
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "dp_tool.h"

#define FZ_PAGE 4096U
#define FZ_QKEY 0x11223344U
#define FZ_MC_QPN 0xffffffU
#define FZ_RPQ 4 /* receives posted per QP */
#define FZ_SLOT 4096U /* bytes of one receive */
#define FZ_SRQ_WR 16
#define FZ_CQE 4096
#define FZ_RD 16 /* max_rd_atomic, max_dest_rd_atomic */
#define FZ_TMO_MS 5000
#define FZ_LEN 5000U /* bytes of the legit WRITE/READ */
#define FZ_SEND 3000U /* bytes of the legit SEND */

enum fz_mode { FZ_RW, FZ_RO, FZ_MW };

/* A registered buffer between canary pages and PROT_NONE pages. */
struct gbuf {
	const char *name;
	enum fz_mode mode;
	uint8_t *map; /* PROT_NONE page, region, PROT_NONE page */
	size_t maplen;
	uint8_t *region; /* canary page, data pages, canary page */
	size_t rlen;
	uint8_t *addr; /* the MR */
	size_t len;
	uint8_t *ref; /* what region held after set-up */
	struct ibv_mr *mr;
	/* FZ_MW: the windows, [woff, woff + wlen) of the MR */
	size_t woff[2], wlen[2];
};

struct fq {
	char name[16];
	const char *kind; /* rc uc ud mc */
	enum ibv_qp_type type;
	int srq, mc;
	struct ibv_qp *t, *p; /* target (DEV) and peer (PEER) ends */
	uint32_t rq_psn;
	unsigned int slot0; /* first receive slot in rcv */
};

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	int gidx;
	union ibv_gid gid;
};

static struct side T, P;
static struct ibv_srq *srq;
static struct fq *qs;
static int nq;
static struct gbuf rw, ro, mwmr, rcv;
static struct ibv_mw *mw1, *mw2;
static struct ibv_mr *pmr; /* the peer's buffer */
static uint8_t *pbuf;
static size_t plen;
static union ibv_gid mgid;
static unsigned int srq_next;
static uint64_t seed_ctr = 1;
static uint32_t mw2_qpn; /* the QP type 2 window mw2 is bound on */
static int mw2_dead; /* a SEND with Invalidate on mw2_qpn freed mw2 */
static int inv_bad; /* invalidations no SEND with Invalidate may do */
static int last_status; /* of post_wait(): -2 not posted, -1 no WC */

static uint8_t canary(size_t i)
{
	return (uint8_t)(0xa5 ^ (i * 151 + (i >> 8) * 7));
}

static void die(const char *what)
{
	printf("# dp_fuzzt: %s: %s\n", what, strerror(errno));
	printf("fatal\n");
	exit(1);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* @npages data pages; the MR starts @head bytes before the first of them. */
static void gbuf_init(struct gbuf *g, const char *name, enum fz_mode mode,
		      size_t npages, size_t head, size_t tail, int access)
{
	size_t i;

	g->name = name;
	g->mode = mode;
	g->rlen = (npages + 2) * FZ_PAGE;
	g->maplen = g->rlen + 2 * FZ_PAGE;
	g->map = mmap(NULL, g->maplen, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->map == MAP_FAILED)
		die("mmap");
	if (mprotect(g->map, FZ_PAGE, PROT_NONE) ||
	    mprotect(g->map + FZ_PAGE + g->rlen, FZ_PAGE, PROT_NONE))
		die("mprotect");
	g->region = g->map + FZ_PAGE;
	for (i = 0; i < g->rlen; i++)
		g->region[i] = canary(i);
	g->addr = g->region + FZ_PAGE - head;
	g->len = head + npages * FZ_PAGE + tail;
	g->mr = ibv_reg_mr(T.pd, g->addr, g->len, access);
	if (!g->mr)
		die("reg_mr");
	g->ref = malloc(g->rlen);
	if (!g->ref)
		die("malloc");
	memcpy(g->ref, g->region, g->rlen);
}

/* Must byte @i of the region still hold its set-up value? */
static int gbuf_fixed(const struct gbuf *g, size_t i)
{
	size_t off = i - (size_t)(g->addr - g->region);
	int k;

	if (g->region + i < g->addr || g->region + i >= g->addr + g->len)
		return 1;
	if (g->mode == FZ_RO)
		return 1;
	if (g->mode == FZ_RW)
		return 0;
	for (k = 0; k < 2; k++)
		if (off >= g->woff[k] && off < g->woff[k] + g->wlen[k])
			return 0;
	return 1;
}

static void gbuf_check(const struct gbuf *g)
{
	size_t i, bad = 0, first = 0;

	for (i = 0; i < g->rlen; i++) {
		if (g->region[i] == g->ref[i] || !gbuf_fixed(g, i))
			continue;
		if (!bad++)
			first = i;
	}
	if (!bad) {
		printf("guard %s ok\n", g->name);
		return;
	}
	printf("guard %s bad: %zu bytes changed, first at region offset %zu "
	       "(MR offset %td) 0x%02x, was 0x%02x\n",
	       g->name, bad, first,
	       (ptrdiff_t)(g->region + first - g->addr), g->region[first],
	       g->ref[first]);
}

static struct ibv_cq *mkcq(struct side *s)
{
	struct ibv_cq *cq = ibv_create_cq(s->ctx, FZ_CQE, NULL, NULL, 0);

	if (!cq)
		die("create_cq");
	return cq;
}

static void side_open(struct side *s, const char *dev, int gidx)
{
	s->ctx = dpt_open(dev);
	if (!s->ctx)
		die(dev);
	s->pd = ibv_alloc_pd(s->ctx);
	if (!s->pd)
		die("alloc_pd");
	s->scq = mkcq(s);
	s->rcq = mkcq(s);
	s->gidx = gidx;
	if (ibv_query_gid(s->ctx, 1, gidx, &s->gid))
		die("query_gid");
}

static struct ibv_qp *mkqp(struct side *s, enum ibv_qp_type type,
			   struct ibv_srq *q, int nrecv)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = s->scq,
		.recv_cq = s->rcq,
		.srq = q,
		.qp_type = type,
		.cap = { .max_send_wr = 64, .max_recv_wr = nrecv,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(s->pd, &ia);

	if (!qp)
		die("create_qp");
	return qp;
}

/* RESET -> RTS of @qp towards @dgid/@dqpn (RC, UC) or as UD. */
static int qp_up(struct ibv_qp *qp, int gidx, const union ibv_gid *dgid,
		 uint32_t dqpn, uint32_t rq_psn, uint32_t sq_psn)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	int rc = qp->qp_type == IBV_QPT_RC;
	int mask;

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return -1;
	if (qp->qp_type == IBV_QPT_UD)
		return dpt_ud_up(qp, FZ_QKEY);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	if (rc)
		a.qp_access_flags |= IBV_ACCESS_REMOTE_READ |
				     IBV_ACCESS_REMOTE_ATOMIC;
	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = rq_psn;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.sgid_index = (uint8_t)gidx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.dgid = *dgid;
	mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
	       IBV_QP_RQ_PSN;
	if (rc) {
		a.max_dest_rd_atomic = FZ_RD;
		a.min_rnr_timer = 1;
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	if (ibv_modify_qp(qp, &a, mask))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = sq_psn;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (rc) {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = FZ_RD;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return ibv_modify_qp(qp, &a, mask);
}

static int post_recv_at(struct fq *q, unsigned int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)rcv.addr + (uint64_t)slot * FZ_SLOT,
		.length = FZ_SLOT,
		.lkey = rcv.mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge,
				  .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (q->srq)
		return ibv_post_srq_recv(srq, &wr, &bad);
	return ibv_post_recv(q->t, &wr, &bad);
}

static void post_recvs(struct fq *q)
{
	unsigned int k;

	if (q->srq)
		return;
	for (k = 0; k < FZ_RPQ; k++)
		post_recv_at(q, q->slot0 + k);
}

/* The SRQ's slots follow those of every QP. */
static void srq_post(void)
{
	struct fq *q = NULL;
	int i;

	for (i = 0; i < nq; i++)
		if (qs[i].srq)
			q = &qs[i];
	if (q && !post_recv_at(q, (unsigned int)nq * FZ_RPQ +
					  srq_next % FZ_SRQ_WR))
		srq_next++;
}

static int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

/* Drain both CQs of @s; returns the completions, counts SRQ receives. */
/*
 * A SEND with Invalidate took effect (IBV_WC_WITH_INV): only a type 2
 * window on the QP it arrived on may be invalidated so (IBA 10.6.7.2.3,
 * 9.4.1.1.1); never a type 1 window or an MR from ibv_reg_mr().
 */
static void note_inv(const struct ibv_wc *wc)
{
	uint32_t k = wc->invalidated_rkey;

	if (k == mw2->rkey && wc->qp_num == mw2_qpn && !mw2_dead) {
		mw2_dead = 1;
		return;
	}
	if (k == mw2->rkey)
		mw2_dead = 1; /* wrongly, but it is Free now */
	if (k == mw2->rkey || k == mw1->rkey || k == rw.mr->rkey ||
	    k == ro.mr->rkey || k == mwmr.mr->rkey || k == rcv.mr->rkey) {
		printf("# rkey 0x%x invalidated by a SEND on QP %u\n", k,
		       wc->qp_num);
		inv_bad++;
	}
}

static int drain(struct side *s, int *srq_used)
{
	struct ibv_wc wc[32];
	int n, i, total = 0;
	struct ibv_cq *cqs[2] = { s->scq, s->rcq };
	int c;

	for (c = 0; c < 2; c++) {
		while ((n = ibv_poll_cq(cqs[c], 32, wc)) > 0) {
			total += n;
			for (i = 0; i < n && c == 1; i++) {
				if (srq_used &&
				    wc[i].wr_id >= (uint64_t)nq * FZ_RPQ)
					(*srq_used)++;
				if (wc[i].wc_flags & IBV_WC_WITH_INV)
					note_inv(&wc[i]);
			}
		}
	}
	return total;
}

static void cmd_rearm(void)
{
	int i, nerr = 0, ncqe, used = 0;

	for (i = 0; i < nq; i++) {
		struct fq *q = &qs[i];

		if (qp_state(q->t) == IBV_QPS_ERR)
			nerr++;
		if (qp_up(q->t, T.gidx, &P.gid, q->p->qp_num, q->rq_psn, 0))
			printf("# rearm %s: %s\n", q->name, strerror(errno));
	}
	ncqe = drain(&T, &used);
	for (i = 0; i < nq; i++)
		post_recvs(&qs[i]);
	while (used-- > 0)
		srq_post();
	printf("rearmed %d %d\n", nerr, ncqe);
}

/* Wait for the completion of @wr_id on @cq (others are dropped). */
static int wait_wc(struct ibv_cq *cq, uint64_t wr_id, struct ibv_wc *wc)
{
	uint64_t end = now_ms() + FZ_TMO_MS;

	while (now_ms() < end) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n < 0)
			return -1;
		if (n && wc->wr_id == wr_id)
			return wc->status == IBV_WC_SUCCESS ? 0 : -1;
		if (n && wc->status != IBV_WC_SUCCESS)
			printf("# wc of QP %u wr_id %llu: %s\n", wc->qp_num,
			       (unsigned long long)wc->wr_id,
			       ibv_wc_status_str(wc->status));
		if (!n)
			usleep(200);
	}
	wc->status = (enum ibv_wc_status)-1;
	return -1;
}

static int post_wait(struct ibv_qp *qp, struct ibv_send_wr *wr,
		     const char **why)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	static char buf[96];

	wr->wr_id = seed_ctr++;
	wr->send_flags |= IBV_SEND_SIGNALED;
	last_status = -2;
	if (ibv_post_send(qp, wr, &bad)) {
		*why = "post_send failed";
		return -1;
	}
	last_status = -1;
	if (wait_wc(qp->send_cq, wr->wr_id, &wc)) {
		if ((int)wc.status >= 0)
			last_status = (int)wc.status;
		snprintf(buf, sizeof(buf), "opcode %d: status %d (%s)",
			 wr->opcode, (int)wc.status,
			 (int)wc.status >= 0 ?
				 ibv_wc_status_str(wc.status) :
				 "no completion");
		*why = buf;
		return -1;
	}
	return 0;
}

static void fill(uint8_t *p, size_t n, uint64_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)((i * 2654435761U + seed * 40503U) >> 13);
}

/* Peer: RDMA op @op of @len bytes between pbuf[poff] and @va/@rkey. */
static int rdma(struct fq *q, enum ibv_wr_opcode op, size_t poff,
		uint64_t va, uint32_t rkey, uint32_t len, const char **why)
{
	struct ibv_sge sge = { .addr = (uintptr_t)pbuf + poff,
			       .length = len, .lkey = pmr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = op };

	wr.wr.rdma.remote_addr = va;
	wr.wr.rdma.rkey = rkey;
	return post_wait(q->p, &wr, why);
}

/* WRITE @len bytes at @va, READ them back, compare both copies. */
static int write_read(struct fq *q, uint8_t *tva, uint32_t rkey,
		      uint32_t len, int read_back, const char **why)
{
	uint64_t seed = seed_ctr;

	fill(pbuf, len, seed);
	if (rdma(q, IBV_WR_RDMA_WRITE, 0, (uintptr_t)tva, rkey, len, why))
		return -1;
	if (!read_back)
		return 0;
	memset(pbuf + len, 0, len);
	if (rdma(q, IBV_WR_RDMA_READ, len, (uintptr_t)tva, rkey, len, why))
		return -1;
	if (memcmp(pbuf, tva, len) || memcmp(pbuf, pbuf + len, len)) {
		*why = "WRITE/READ data differs";
		return -1;
	}
	return 0;
}

static int fetch_add(struct fq *q, uint64_t *tva, const char **why)
{
	struct ibv_sge sge = { .addr = (uintptr_t)pbuf, .length = 8,
			       .lkey = pmr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD };
	uint64_t old = 0x1122334455667788ULL;

	*tva = old;
	wr.wr.atomic.remote_addr = (uintptr_t)tva;
	wr.wr.atomic.rkey = rw.mr->rkey;
	wr.wr.atomic.compare_add = 5;
	if (post_wait(q->p, &wr, why))
		return -1;
	if (memcmp(pbuf, &old, 8) || *tva != old + 5) {
		*why = "FETCH_ADD: wrong original or result";
		return -1;
	}
	return 0;
}

/* Peer SEND of @len bytes (UD: to @ah/@dqpn); check the target's WQE. */
static int send_recv(struct fq *q, struct ibv_ah *ah, uint32_t dqpn,
		     uint32_t len, const char **why)
{
	struct ibv_sge sge = { .addr = (uintptr_t)pbuf, .length = len,
			       .lkey = pmr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND };
	uint32_t grh = q->type == IBV_QPT_UD ? 40 : 0;
	struct ibv_wc wc;
	uint64_t end = now_ms() + FZ_TMO_MS;
	static char buf[96];
	int n;

	fill(pbuf, len, seed_ctr);
	if (ah) {
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = dqpn;
		wr.wr.ud.remote_qkey = FZ_QKEY;
	}
	if (post_wait(q->p, &wr, why))
		return -1;
	for (;;) {
		n = ibv_poll_cq(T.rcq, 1, &wc);
		if (n > 0 && wc.qp_num == q->t->qp_num)
			break;
		if (n < 0 || now_ms() > end) {
			*why = "no receive completion";
			return -1;
		}
		if (!n)
			usleep(200);
	}
	if (wc.status != IBV_WC_SUCCESS || wc.byte_len != len + grh) {
		snprintf(buf, sizeof(buf), "receive status %d byte_len %u",
			 wc.status, wc.byte_len);
		*why = buf;
		return -1;
	}
	if (memcmp(rcv.addr + wc.wr_id * FZ_SLOT + grh, pbuf, len)) {
		*why = "received data differs";
		return -1;
	}
	if (q->srq)
		srq_post();
	else
		post_recv_at(q, (unsigned int)wc.wr_id);
	return 0;
}

static struct ibv_ah *mkah(const union ibv_gid *dgid)
{
	struct ibv_ah_attr a = {
		.is_global = 1,
		.port_num = 1,
		.grh = { .dgid = *dgid, .sgid_index = (uint8_t)P.gidx,
			 .hop_limit = 64 },
	};

	return ibv_create_ah(P.pd, &a);
}

static int legit_one(struct fq *q, int i, const char **why)
{
	size_t span = rw.len - 2 * FZ_LEN - 64;
	uint8_t *tva = rw.addr + ((size_t)i * 4099) % span;
	uint64_t *cell = (uint64_t *)(rw.addr + 8 * (size_t)(i + 1) +
				      (8 - (uintptr_t)rw.addr % 8) % 8);
	struct ibv_ah *ah;
	int ret;

	if (q->type == IBV_QPT_UD) {
		ah = mkah(q->mc ? &mgid : &T.gid);
		if (!ah) {
			*why = "create_ah failed";
			return -1;
		}
		ret = send_recv(q, ah, q->mc ? FZ_MC_QPN : q->t->qp_num,
				q->mc ? 200 : 900, why);
		ibv_destroy_ah(ah);
		return ret;
	}
	if (q->type == IBV_QPT_UC) {
		/* No READ on UC: the data is checked once the SEND landed. */
		uint64_t seed = seed_ctr;

		if (write_read(q, tva, rw.mr->rkey, FZ_LEN, 0, why) ||
		    send_recv(q, NULL, 0, FZ_SEND, why))
			return -1;
		fill(pbuf, FZ_LEN, seed);
		if (memcmp(tva, pbuf, FZ_LEN)) {
			*why = "UC WRITE data differs";
			return -1;
		}
		return 0;
	}
	if (write_read(q, tva, rw.mr->rkey, FZ_LEN, 1, why) ||
	    fetch_add(q, cell, why) || send_recv(q, NULL, 0, FZ_SEND, why))
		return -1;
	memset(pbuf + FZ_LEN, 0, 2000);
	if (rdma(q, IBV_WR_RDMA_READ, FZ_LEN, (uintptr_t)ro.addr + 1000,
		 ro.mr->rkey, 2000, why))
		return -1;
	if (memcmp(pbuf + FZ_LEN, ro.addr + 1000, 2000)) {
		*why = "READ of ro differs";
		return -1;
	}
	if (i == 0 && write_read(q, mwmr.addr + mwmr.woff[0] + 10, mw1->rkey,
				 1500, 1, why))
		return -1;
	return 0;
}

#define FZ_MW_ACC \
	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
	 IBV_ACCESS_REMOTE_ATOMIC)

/* Bind type 2 window mw2 (Free) on @q with the next rkey. */
static int bind2(struct fq *q)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_BIND_MW };
	const char *why;

	wr.bind_mw.mw = mw2;
	wr.bind_mw.rkey = ibv_inc_rkey(mw2->rkey);
	wr.bind_mw.bind_info.mr = mwmr.mr;
	wr.bind_mw.bind_info.addr = (uintptr_t)mwmr.addr + mwmr.woff[1];
	wr.bind_mw.bind_info.length = mwmr.wlen[1];
	wr.bind_mw.bind_info.mw_access_flags = FZ_MW_ACC;
	if (post_wait(q->t, &wr, &why)) {
		printf("# bind type 2: %s\n", why);
		return -1;
	}
	mw2->rkey = wr.bind_mw.rkey;
	mw2_qpn = q->t->qp_num;
	mw2_dead = 0;
	return 0;
}

/* Both ends of @q back to RTS, receives posted again. */
static int pair_up(struct fq *q, uint32_t a, uint32_t b)
{
	if (qp_up(q->t, T.gidx, &P.gid, q->p->qp_num, a, b) ||
	    qp_up(q->p, P.gidx, &T.gid, q->t->qp_num, b, a))
		return -1;
	drain(&T, NULL);
	drain(&P, NULL);
	post_recvs(q);
	return 0;
}

static struct fq w2q; /* a pair mw2 is bound on again once freed */

/* The pair mw2 is bound on; bound afresh on a new pair if it was freed. */
static struct fq *mw2_own(void)
{
	int i;

	if (mw2_dead) {
		/*
		 * A new QP: a RESET QP must not get new send WQEs here, so
		 * that this does not depend on how the requester restarts.
		 */
		memset(&w2q, 0, sizeof(w2q));
		snprintf(w2q.name, sizeof(w2q.name), "w2");
		w2q.kind = "rc";
		w2q.type = IBV_QPT_RC;
		w2q.slot0 = qs[0].slot0;
		w2q.t = mkqp(&T, IBV_QPT_RC, NULL, FZ_RPQ);
		w2q.p = mkqp(&P, IBV_QPT_RC, NULL, FZ_RPQ);
		if (pair_up(&w2q, 0xb000, 0xc000) || bind2(&w2q))
			return NULL;
		return &w2q;
	}
	if (w2q.t && w2q.t->qp_num == mw2_qpn)
		return &w2q;
	for (i = 0; i < nq; i++)
		if (qs[i].t->qp_num == mw2_qpn)
			return &qs[i];
	return NULL;
}

/* WRITE and READ through mw2 on its own QP. */
static void legit_mw2(void)
{
	struct fq *own = mw2_own();
	const char *why = "type 2 window: bind again failed";

	if (own && !write_read(own, mwmr.addr + mwmr.woff[1] + 7, mw2->rkey,
			       2500, 1, &why))
		printf("legit mw2 ok\n");
	else
		printf("legit mw2 bad: %s\n", why);
}

static void cmd_legit(void)
{
	int i;

	for (i = 0; i < nq; i++) {
		struct fq *q = &qs[i];
		uint32_t a = 0x10000 + (uint32_t)i * 977, b = 0x800 + i;
		const char *why = NULL;
		int bad;

		bad = qp_up(q->t, T.gidx, &P.gid, q->p->qp_num, a, b) ||
		      qp_up(q->p, P.gidx, &T.gid, q->t->qp_num, b, a);
		if (bad)
			why = "modify_qp failed";
		drain(&T, NULL);
		drain(&P, NULL);
		post_recvs(q);
		if (!bad)
			bad = legit_one(q, i, &why);
		if (bad)
			printf("legit %s bad: %s\n", q->name, why);
		else
			printf("legit %s ok\n", q->name);
		fflush(stdout);
	}
	legit_mw2();
}

/*
 * Type 2B windows (the device claims IB_DEVICE_MEM_WINDOW_TYPE_2B) are
 * reachable only through the QP they are bound on: an RDMA WRITE through
 * mw2 on another QP and a SEND with Invalidate of it there must fail
 * (IBA 10.6.7.2, rdma_rxe checks the QP too), and the window keep its
 * bytes and keep working on its own QP.
 */
static void cmd_xqp(void)
{
	struct fq x = { .name = "xqp", .kind = "rc", .type = IBV_QPT_RC };
	struct fq *own = mw2_own();
	uint8_t *win = mwmr.addr + mwmr.woff[1];
	struct ibv_sge sge = { .addr = (uintptr_t)pbuf, .length = 16,
			       .lkey = pmr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND_WITH_INV };
	uint8_t before[64];
	const char *why = NULL;
	int ok;

	if (!own) {
		printf("xqp access bad: no type 2 window to try\n");
		printf("xqp inval bad: no type 2 window to try\n");
		return;
	}
	/* A new pair of the same PDs: nothing posted on it before. */
	x.t = mkqp(&T, IBV_QPT_RC, NULL, FZ_RPQ);
	x.p = mkqp(&P, IBV_QPT_RC, NULL, FZ_RPQ);
	x.slot0 = qs[0].slot0;
	memcpy(before, win, sizeof(before));
	ok = !pair_up(&x, 0x3000, 0x4000) &&
	     rdma(&x, IBV_WR_RDMA_WRITE, 0, (uintptr_t)win, mw2->rkey, 64,
		  &why) && last_status == IBV_WC_REM_ACCESS_ERR &&
	     !memcmp(before, win, sizeof(before));
	printf("xqp access %s: %s\n", ok ? "ok" : "bad",
	       why ? why : "a WRITE through mw2 on another QP completed");
	ibv_destroy_qp(x.t);
	ibv_destroy_qp(x.p);

	why = NULL;
	x.t = mkqp(&T, IBV_QPT_RC, NULL, FZ_RPQ);
	x.p = mkqp(&P, IBV_QPT_RC, NULL, FZ_RPQ);
	wr.invalidate_rkey = mw2->rkey;
	ok = !pair_up(&x, 0x5000, 0x6000) && post_wait(x.p, &wr, &why) &&
	     last_status >= 0;
	if (!ok && last_status != -2)
		why = "a SEND with Invalidate of mw2 on another QP completed";
	drain(&T, NULL);
	if (ok && write_read(own, win + 3, mw2->rkey, 100, 1, &why))
		ok = 0;
	printf("xqp inval %s: %s\n", ok ? "ok" : "bad", why);
	ibv_destroy_qp(x.t);
	ibv_destroy_qp(x.p);
	drain(&T, NULL);
	drain(&P, NULL);
}

static void bind_windows(struct fq *q1, struct fq *q2)
{
	struct ibv_mw_bind b = { .send_flags = IBV_SEND_SIGNALED };
	struct ibv_wc wc;
	int acc = FZ_MW_ACC;

	mwmr.woff[0] = 100;
	mwmr.wlen[0] = 5000;
	mwmr.woff[1] = 2 * FZ_PAGE + 50;
	mwmr.wlen[1] = 3000;
	mw1 = ibv_alloc_mw(T.pd, IBV_MW_TYPE_1);
	mw2 = ibv_alloc_mw(T.pd, IBV_MW_TYPE_2);
	if (!mw1 || !mw2)
		die("alloc_mw");
	b.wr_id = 0xb1;
	b.bind_info.mr = mwmr.mr;
	b.bind_info.addr = (uintptr_t)mwmr.addr + mwmr.woff[0];
	b.bind_info.length = mwmr.wlen[0];
	b.bind_info.mw_access_flags = acc;
	if (ibv_bind_mw(q1->t, mw1, &b) || wait_wc(T.scq, 0xb1, &wc))
		die("bind_mw type 1");
	if (bind2(q2))
		die("bind type 2");
}

static void print_mr(const struct gbuf *g)
{
	printf("mr %s %llu %zu %u\n", g->name,
	       (unsigned long long)(uintptr_t)g->addr, g->len, g->mr->rkey);
}

static void add_qp(const char *name, const char *kind, enum ibv_qp_type type,
		   int use_srq)
{
	struct fq *q = &qs[nq];

	snprintf(q->name, sizeof(q->name), "%s", name);
	q->kind = kind;
	q->type = type;
	q->srq = use_srq;
	q->mc = !strcmp(kind, "mc");
	q->t = mkqp(&T, type, use_srq ? srq : NULL, FZ_RPQ);
	q->p = mkqp(&P, type, NULL, FZ_RPQ);
	q->rq_psn = (0x1000u * (unsigned int)(nq + 1) + 7) & 0xffffff;
	q->slot0 = (unsigned int)nq * FZ_RPQ;
	nq++;
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *pdev = NULL, *group = NULL;
	int gidx = -1, pgidx = -1, nrc = 4, c, i;
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = FZ_SRQ_WR,
						  .max_sge = 1 } };
	int racc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	struct in_addr a4;
	char line[64];

	while ((c = getopt(argc, argv, "d:g:D:G:m:r:")) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'g': gidx = atoi(optarg); break;
		case 'D': pdev = optarg; break;
		case 'G': pgidx = atoi(optarg); break;
		case 'm': group = optarg; break;
		case 'r': nrc = atoi(optarg); break;
		default: return 2;
		}
	}
	if (!dev || !pdev || !group || gidx < 0 || pgidx < 0 || nrc < 2 ||
	    nrc > 512 || inet_pton(AF_INET, group, &a4) != 1) {
		fprintf(stderr, "usage: dp_fuzzt -d DEV -g GIDX -D PEER "
				"-G PGIDX -m GROUP [-r NRC]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&mgid, 0, sizeof(mgid));
	mgid.raw[10] = mgid.raw[11] = 0xff;
	memcpy(&mgid.raw[12], &a4, 4);

	side_open(&T, dev, gidx);
	side_open(&P, pdev, pgidx);
	srq = ibv_create_srq(T.pd, &sa);
	if (!srq)
		die("create_srq");
	qs = calloc((size_t)nrc + 4, sizeof(*qs));
	if (!qs)
		die("calloc");
	for (i = 0; i < nrc; i++) {
		char n[16];

		snprintf(n, sizeof(n), "rc%d", i);
		add_qp(n, "rc", IBV_QPT_RC, 0);
	}
	add_qp("srq", "rc", IBV_QPT_RC, 1);
	add_qp("uc", "uc", IBV_QPT_UC, 0);
	add_qp("ud", "ud", IBV_QPT_UD, 0);
	add_qp("mc", "mc", IBV_QPT_UD, 0);

	gbuf_init(&rw, "rw", FZ_RW, 16, 200, 333, racc);
	gbuf_init(&ro, "ro", FZ_RO, 2, 64, 1000, IBV_ACCESS_REMOTE_READ);
	gbuf_init(&mwmr, "mwmr", FZ_MW, 4, 1, 4095,
		  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	gbuf_init(&rcv, "rcv", FZ_RW,
		  ((size_t)nq * FZ_RPQ + FZ_SRQ_WR) * FZ_SLOT / FZ_PAGE, 8, 8,
		  IBV_ACCESS_LOCAL_WRITE);
	plen = 4 * FZ_LEN;
	pbuf = calloc(1, plen);
	pmr = pbuf ? ibv_reg_mr(P.pd, pbuf, plen, racc) : NULL;
	if (!pmr)
		die("peer reg_mr");

	for (i = 0; i < nq; i++) {
		struct fq *q = &qs[i];

		if (qp_up(q->t, T.gidx, &P.gid, q->p->qp_num, q->rq_psn, 0) ||
		    qp_up(q->p, P.gidx, &T.gid, q->t->qp_num, 0, q->rq_psn))
			die("modify_qp");
		if (q->mc && ibv_attach_mcast(q->t, &mgid, 0))
			die("attach_mcast");
		post_recvs(q);
	}
	for (i = 0; i < FZ_SRQ_WR; i++)
		srq_post();
	bind_windows(&qs[0], &qs[1]);
	/* The set-up wrote nothing outside the MRs: take the reference. */
	memcpy(mwmr.ref, mwmr.region, mwmr.rlen);

	for (i = 0; i < nq; i++)
		printf("qp %s %s %u %u\n", qs[i].name, qs[i].kind,
		       qs[i].t->qp_num, qs[i].rq_psn);
	print_mr(&rw);
	print_mr(&ro);
	print_mr(&mwmr);
	print_mr(&rcv);
	printf("mw mw1 %llu %zu %u 0\n",
	       (unsigned long long)(uintptr_t)(mwmr.addr + mwmr.woff[0]),
	       mwmr.wlen[0], mw1->rkey);
	printf("mw mw2 %llu %zu %u %u\n",
	       (unsigned long long)(uintptr_t)(mwmr.addr + mwmr.woff[1]),
	       mwmr.wlen[1], mw2->rkey, mw2_qpn);
	printf("qkey %u\n", FZ_QKEY);
	printf("ready\n");

	while (fgets(line, sizeof(line), stdin)) {
		if (!strncmp(line, "rearm", 5))
			cmd_rearm();
		else if (!strncmp(line, "guard", 5)) {
			gbuf_check(&rw);
			gbuf_check(&ro);
			gbuf_check(&mwmr);
			gbuf_check(&rcv);
			if (inv_bad)
				printf("guard inval bad: %d invalidations\n",
				       inv_bad);
			else
				printf("guard inval ok\n");
		} else if (!strncmp(line, "legit", 5))
			cmd_legit();
		else if (!strncmp(line, "xqp", 3))
			cmd_xqp();
		else if (!strncmp(line, "quit", 4))
			break;
		printf("done\n");
	}
	return 0;
}
