// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * dp_mcast.c - UD multicast through libibverbs, for t-mcast.sh.
 *
 *   dp_mcast -d DEV -g GIDX verbs          attach/detach semantics and
 *                                          limits on one device (KTAP lines)
 *   dp_mcast -P [total]                    plan of "verbs" (or "total")
 *   dp_mcast -d DEV -g GIDX total          max_total_mcast_qp_attach
 *                                          reached and exceeded (KTAP)
 *   dp_mcast -d DEV -g GIDX -m ADDR [-q NQP] [-n N] [-k QKEY] [-t MS] recv
 *                                          NQP UD QPs attached to group ADDR;
 *                                          prints "ready", then waits for N
 *                                          messages on every QP (checks the
 *                                          payload and the GRH destination)
 *                                          and for MS ms (or until SIGUSR1)
 *                                          of silence after them; exit 0 if
 *                                          every QP got exactly N
 *   dp_mcast -d DEV -g GIDX -m ADDR [-n N] [-k QKEY] send
 *                                          N UD SENDs to DestQP 0xFFFFFF of
 *                                          group ADDR
 *
 * ADDR is an IPv4 multicast address (GID ::ffff:ADDR) or an IPv6 one.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "dp_tool.h"

#define MC_QPN 0xffffffU
#define MC_QKEY 0x11111111U
#define MC_GRH 40
#define MC_LEN 64 /* payload bytes of each message */
#define MC_SLOT (MC_GRH + MC_LEN)
#define MC_MAX_QP 64
#define MC_MAX_MSG 128

struct mc {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t size;
	int gid_idx;
	union ibv_gid mgid;
	int v4;
};

/* recv: SIGUSR1 ends the quiet period after the expected messages. */
static volatile sig_atomic_t stop_quiet;

static void on_usr1(int sig)
{
	(void)sig;
	stop_quiet = 1;
}

static int parse_group(const char *s, union ibv_gid *gid, int *v4)
{
	struct in_addr a4;

	memset(gid, 0, sizeof(*gid));
	if (inet_pton(AF_INET, s, &a4) == 1) {
		gid->raw[10] = 0xff;
		gid->raw[11] = 0xff;
		memcpy(&gid->raw[12], &a4, 4);
		*v4 = 1;
		return 0;
	}
	*v4 = 0;
	return inet_pton(AF_INET6, s, gid->raw) == 1 ? 0 : -1;
}

static int mc_open(struct mc *m, const char *dev, size_t size)
{
	m->ctx = dpt_open(dev);
	if (!m->ctx) {
		fprintf(stderr, "dp_mcast: cannot open %s\n", dev);
		return -1;
	}
	m->pd = ibv_alloc_pd(m->ctx);
	m->cq = m->pd ? ibv_create_cq(m->ctx, 4096, NULL, NULL, 0) : NULL;
	m->size = size;
	m->buf = calloc(1, size);
	m->mr = m->cq && m->buf ? ibv_reg_mr(m->pd, m->buf, size,
					     IBV_ACCESS_LOCAL_WRITE) :
				  NULL;
	if (!m->mr) {
		fprintf(stderr, "dp_mcast: verbs resources: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

static void mc_close(struct mc *m)
{
	if (m->mr)
		ibv_dereg_mr(m->mr);
	if (m->cq)
		ibv_destroy_cq(m->cq);
	if (m->pd)
		ibv_dealloc_pd(m->pd);
	if (m->ctx)
		ibv_close_device(m->ctx);
	free(m->buf);
}

static struct ibv_qp *mc_qp(struct mc *m, enum ibv_qp_type type, int depth)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = m->cq,
		.recv_cq = m->cq,
		.qp_type = type,
		.cap = { .max_send_wr = depth, .max_recv_wr = depth,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(m->pd, &ia);
}

/* ---- verbs: attach/detach semantics and limits ---- */

/* 239.(i >> 16).(i >> 8).i as an IPv4-mapped GID. */
static void group_n(union ibv_gid *g, unsigned int i)
{
	memset(g, 0, sizeof(*g));
	g->raw[10] = 0xff;
	g->raw[11] = 0xff;
	g->raw[12] = 239;
	g->raw[13] = (uint8_t)(i >> 16);
	g->raw[14] = (uint8_t)(i >> 8);
	g->raw[15] = (uint8_t)i;
}

#define MC_NVERBS 15

static void verbs_tests(struct mc *m)
{
	struct ibv_device_attr da;
	struct ibv_qp *ud, *rc, *qps[MC_MAX_QP + 1];
	union ibv_gid g, own;
	unsigned int i, max_qp, max_grp, nq = 0;
	int err = 0, st, first_err = 0;
	char why[160];

	printf("1..%d\n", MC_NVERBS);
	st = ibv_query_device(m->ctx, &da);
	snprintf(why, sizeof(why), "max_mcast_grp %d max_mcast_qp_attach %d "
		 "max_total_mcast_qp_attach %d", da.max_mcast_grp,
		 da.max_mcast_qp_attach, da.max_total_mcast_qp_attach);
	printf("# %s\n", why);
	dpt_report(!st && da.max_mcast_grp > 0 && da.max_mcast_qp_attach > 0 &&
		       da.max_mcast_qp_attach < MC_MAX_QP &&
		       da.max_total_mcast_qp_attach >= da.max_mcast_grp,
	       "query_device advertises multicast limits", why);
	max_qp = da.max_mcast_qp_attach;
	max_grp = da.max_mcast_grp;

	ud = mc_qp(m, IBV_QPT_UD, 4);
	rc = mc_qp(m, IBV_QPT_RC, 4);
	if (!ud || !rc) {
		fprintf(stderr, "dp_mcast: create_qp: %s\n", strerror(errno));
		return;
	}
	group_n(&g, 1);
	dpt_expect(ibv_attach_mcast(rc, &g, 0), EINVAL, "attach an RC QP: EINVAL");
	ibv_query_gid(m->ctx, 1, m->gid_idx, &own);
	dpt_expect(ibv_attach_mcast(ud, &own, 0), EINVAL,
	       "attach to a unicast GID: EINVAL");
	dpt_expect(ibv_attach_mcast(ud, &g, 0), 0, "attach a UD QP (RESET)");
	dpt_expect(ibv_attach_mcast(ud, &g, 0), 0,
	       "attach the same QP again: no error");
	dpt_expect(ibv_detach_mcast(ud, &g, 0), 0, "detach");
	dpt_expect(ibv_detach_mcast(ud, &g, 0), EINVAL,
	       "detach when not attached: EINVAL");

	/* max_mcast_qp_attach QPs on one group, then one more. */
	for (i = 0; i < max_qp && !err; i++) {
		qps[i] = mc_qp(m, IBV_QPT_UD, 1);
		if (!qps[i])
			break;
		nq++;
		err = ibv_attach_mcast(qps[i], &g, 0);
	}
	snprintf(why, sizeof(why), "%u of %u attached, last returned %d", nq,
		 max_qp, err);
	dpt_report(nq == max_qp && !err, "max_mcast_qp_attach QPs on one group",
	       why);
	dpt_expect(ibv_attach_mcast(ud, &g, 0), ENOMEM,
	       "one QP beyond max_mcast_qp_attach: ENOMEM");
	/*
	 * ib_uverbs refuses to destroy an attached QP (the attachments are
	 * detached for the process only when it exits); detaching one QP
	 * frees its place.
	 */
	st = nq ? ibv_destroy_qp(qps[nq - 1]) : -1;
	dpt_expect(st, EBUSY, "destroy a QP that is still attached: EBUSY");
	if (nq && !st)
		nq--;
	else if (nq)
		ibv_detach_mcast(qps[nq - 1], &g, 0);
	dpt_expect(ibv_attach_mcast(ud, &g, 0), 0,
	       "after one detach the group has room again");
	dpt_expect(ibv_detach_mcast(ud, &g, 0), 0, "detach it again");
	while (nq) {
		ibv_detach_mcast(qps[nq - 1], &g, 0);
		ibv_destroy_qp(qps[--nq]);
	}

	/* max_mcast_grp groups on one QP, then one more. */
	err = 0;
	for (i = 0; i < max_grp && !err; i++) {
		group_n(&g, i + 1);
		err = ibv_attach_mcast(ud, &g, 0);
	}
	snprintf(why, sizeof(why), "%u groups, last returned %d", i, err);
	dpt_report(i == max_grp && !err, "max_mcast_grp groups on one QP", why);
	group_n(&g, max_grp + 1);
	dpt_expect(ibv_attach_mcast(ud, &g, 0), ENOMEM,
	       "one group beyond max_mcast_grp: ENOMEM");
	for (i = 0; i < max_grp; i++) {
		group_n(&g, i + 1);
		st = ibv_detach_mcast(ud, &g, 0);
		if (st && !first_err)
			first_err = st;
	}
	dpt_expect(first_err, 0, "detach from every group");

	ibv_destroy_qp(rc);
	ibv_destroy_qp(ud);
}

/* ---- total: max_total_mcast_qp_attach ---- */

#define MC_NTOTAL 4

static double mc_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/*
 * Attach @n QPs of @qps to groups 1.. (each QP to up to @grp groups) until
 * @total attachments exist; how many were made, *err the last result.
 */
static unsigned int attach_total(struct ibv_qp **qps, unsigned int n,
				 unsigned int grp, unsigned int total, int *err)
{
	unsigned int q, i, done = 0;
	union ibv_gid g;

	*err = 0;
	for (q = 0; q < n && done < total && !*err; q++)
		for (i = 0; i < grp && done < total && !*err; i++) {
			group_n(&g, i + 1);
			*err = ibv_attach_mcast(qps[q], &g, 0);
			if (!*err)
				done++;
		}
	return done;
}

/* Undo attach_total(): detach the first @done; first error or 0. */
static int detach_total(struct ibv_qp **qps, unsigned int grp,
			unsigned int done)
{
	unsigned int k;
	union ibv_gid g;
	int st, first = 0;

	for (k = 0; k < done; k++) {
		group_n(&g, k % grp + 1);
		st = ibv_detach_mcast(qps[k / grp], &g, 0);
		if (st && !first)
			first = st;
	}
	return first;
}

/*
 * max_total_mcast_qp_attach attachments, spread over as few QPs as
 * max_mcast_grp allows, all succeed; one more (a QP joining group 1,
 * which has room below max_mcast_qp_attach when the total is the binding
 * limit) fails with ENOMEM; after detaching everything a new attach works.
 */
static void total_tests(struct mc *m)
{
	struct ibv_qp *qps[MC_MAX_QP + 1] = { NULL };
	unsigned int total, grp, nqp, q, done = 0;
	struct ibv_device_attr da;
	union ibv_gid g;
	double t0;
	char why[160];
	int err = -1;

	printf("1..%d\n", MC_NTOTAL);
	if (ibv_query_device(m->ctx, &da) || da.max_mcast_grp <= 0 ||
	    da.max_total_mcast_qp_attach <= 0)
		da.max_total_mcast_qp_attach = 0;
	total = da.max_total_mcast_qp_attach;
	grp = da.max_mcast_grp;
	nqp = total ? (total + grp - 1) / grp : 0;
	/* Reachable at all, and by MC_MAX_QP QPs (plus one extra)? */
	if (!total || nqp > (unsigned int)da.max_mcast_qp_attach ||
	    nqp >= MC_MAX_QP) {
		snprintf(why, sizeof(why), "total %u groups %u per group %d",
			 total, grp, da.max_mcast_qp_attach);
		for (q = 0; q < MC_NTOTAL; q++)
			dpt_report(0, "max_total_mcast_qp_attach reachable", why);
		return;
	}
	for (q = 0; q <= nqp; q++) {
		qps[q] = mc_qp(m, IBV_QPT_UD, 1);
		if (!qps[q])
			break;
	}
	t0 = mc_now();
	if (q > nqp)
		done = attach_total(qps, nqp, grp, total, &err);
	snprintf(why, sizeof(why),
		 "%u of %u attached over %u QPs in %.1f s, last returned %d",
		 done, total, nqp, mc_now() - t0, err);
	printf("# %s\n", why);
	dpt_report(done == total && !err,
		   "max_total_mcast_qp_attach attachments", why);
	group_n(&g, 1);
	dpt_expect(qps[nqp] ? ibv_attach_mcast(qps[nqp], &g, 0) : -1, ENOMEM,
		   "one attachment beyond max_total_mcast_qp_attach: ENOMEM");
	t0 = mc_now();
	err = detach_total(qps, grp, done);
	printf("# detached %u in %.1f s\n", done, mc_now() - t0);
	dpt_expect(err, 0, "detach every attachment");
	err = qps[nqp] ? ibv_attach_mcast(qps[nqp], &g, 0) : -1;
	if (!err)
		err = ibv_detach_mcast(qps[nqp], &g, 0);
	dpt_expect(err, 0, "then an attach and a detach work again");
	for (q = 0; q <= nqp; q++)
		if (qps[q])
			ibv_destroy_qp(qps[q]);
}

/* ---- traffic ---- */

static int poll_cq(struct mc *m, struct ibv_wc *wc, int timeout_ms)
{
	struct timespec t0, t;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		n = ibv_poll_cq(m->cq, 1, wc);
		if (n)
			return n;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 +
			    (t.tv_nsec - t0.tv_nsec) / 1000000 >=
		    timeout_ms)
			return 0;
		usleep(200);
	}
}

static uint8_t pat(unsigned int msg, unsigned int i)
{
	return (uint8_t)(msg * 31 + i * 7 + 1);
}

static int do_send(struct mc *m, int n, uint32_t qkey)
{
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.port_num = 1,
		.grh = { .dgid = m->mgid, .sgid_index = m->gid_idx,
			 .hop_limit = 8 },
	};
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	int k, i;

	qp = mc_qp(m, IBV_QPT_UD, 16);
	if (!qp || dpt_ud_up(qp, qkey))
		return fprintf(stderr, "dp_mcast: UD QP: %s\n", strerror(errno)), 1;
	ah = ibv_create_ah(m->pd, &aa);
	if (!ah)
		return fprintf(stderr, "dp_mcast: create_ah: %s\n", strerror(errno)), 1;
	for (k = 0; k < n; k++) {
		for (i = 0; i < MC_LEN; i++)
			m->buf[i] = pat(k, i);
		sge = (struct ibv_sge){ .addr = (uintptr_t)m->buf,
					.length = MC_LEN, .lkey = m->mr->lkey };
		wr = (struct ibv_send_wr){ .wr_id = k, .sg_list = &sge,
					   .num_sge = 1, .opcode = IBV_WR_SEND,
					   .send_flags = IBV_SEND_SIGNALED };
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = MC_QPN;
		wr.wr.ud.remote_qkey = qkey;
		if (ibv_post_send(qp, &wr, &bad))
			return fprintf(stderr, "dp_mcast: post_send failed\n"), 1;
		if (poll_cq(m, &wc, 5000) != 1 || wc.status != IBV_WC_SUCCESS)
			return fprintf(stderr, "dp_mcast: send %d: no success\n", k), 1;
		usleep(2000);
	}
	printf("sent %d from QP %u\n", n, qp->qp_num);
	ibv_destroy_ah(ah);
	ibv_destroy_qp(qp);
	return 0;
}

/* Check the received slot: GRH destination is the group, payload of msg. */
static int check_slot(struct mc *m, const uint8_t *p, unsigned int *msg)
{
	const uint8_t *dst = m->v4 ? p + 20 + 16 : p + 24;
	unsigned int k, i;

	if (memcmp(dst, m->v4 ? &m->mgid.raw[12] : m->mgid.raw,
		   m->v4 ? 4 : 16))
		return -1;
	p += MC_GRH;
	/* Message number from its first byte: pat(k, 0) = k * 31 + 1. */
	for (k = 0; k < MC_MAX_MSG; k++)
		if (pat(k, 0) == p[0])
			break;
	for (i = 0; i < MC_LEN; i++)
		if (p[i] != pat(k, i))
			return -1;
	*msg = k;
	return 0;
}

static int do_recv(struct mc *m, int nqp, int n, uint32_t qkey, int quiet_ms)
{
	struct ibv_qp *qp[MC_MAX_QP];
	int got[MC_MAX_QP] = { 0 }, bad = 0, total = 0, q, k, ok = 1;
	struct ibv_recv_wr wr, *badwr;
	struct ibv_sge sge;
	struct ibv_wc wc;
	unsigned int msg;

	for (q = 0; q < nqp; q++) {
		qp[q] = mc_qp(m, IBV_QPT_UD, MC_MAX_MSG);
		if (!qp[q] || dpt_ud_up(qp[q], qkey))
			return fprintf(stderr, "dp_mcast: UD QP: %s\n", strerror(errno)), 1;
		for (k = 0; k < n + 4; k++) {
			sge = (struct ibv_sge){
				.addr = (uintptr_t)(m->buf +
						    (size_t)(q * MC_MAX_MSG + k) * MC_SLOT),
				.length = MC_SLOT, .lkey = m->mr->lkey };
			wr = (struct ibv_recv_wr){ .wr_id = (uint64_t)q << 32 | k,
						   .sg_list = &sge, .num_sge = 1 };
			if (ibv_post_recv(qp[q], &wr, &badwr))
				return fprintf(stderr, "dp_mcast: post_recv\n"), 1;
		}
		if (ibv_attach_mcast(qp[q], &m->mgid, 0))
			return fprintf(stderr, "dp_mcast: attach: %s\n", strerror(errno)), 1;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);

	/* n per QP, then quiet_ms with nothing more. */
	while (total < nqp * n) {
		if (poll_cq(m, &wc, 20000) != 1)
			break;
		q = (int)(wc.wr_id >> 32);
		k = (int)(wc.wr_id & 0xffffffff);
		if (wc.status != IBV_WC_SUCCESS || wc.byte_len != MC_SLOT ||
		    check_slot(m, m->buf + (size_t)(q * MC_MAX_MSG + k) * MC_SLOT,
			       &msg)) {
			bad++;
			continue;
		}
		got[q]++;
		total++;
	}
	for (k = 0; k < quiet_ms / 100 && !stop_quiet; k++) {
		if (poll_cq(m, &wc, 100) != 1)
			continue;
		printf("unexpected completion status %d on QP %u\n", wc.status,
		       wc.qp_num);
		ok = 0;
	}
	for (q = 0; q < nqp; q++) {
		printf("QP %u received %d\n", qp[q]->qp_num, got[q]);
		if (got[q] != n)
			ok = 0;
		if (ibv_detach_mcast(qp[q], &m->mgid, 0))
			ok = 0;
		ibv_destroy_qp(qp[q]);
	}
	if (bad)
		printf("%d bad completions\n", bad);
	return ok && !bad ? 0 : 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: dp_mcast -d DEV -g GIDX [-m ADDR] [-q NQP] "
			"[-n N] [-k QKEY] [-t MS] verbs|total|recv|send\n"
			"       dp_mcast -P [total]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *group = NULL, *mode;
	int nqp = 1, n = 10, quiet = 1000, c, rc = 1, plan = 0;
	uint32_t qkey = MC_QKEY;
	struct mc m = { 0 };

	while ((c = getopt(argc, argv, "d:g:m:q:n:k:t:P")) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'g': m.gid_idx = atoi(optarg); break;
		case 'm': group = optarg; break;
		case 'q': nqp = atoi(optarg); break;
		case 'n': n = atoi(optarg); break;
		case 'k': qkey = strtoul(optarg, NULL, 0); break;
		case 't': quiet = atoi(optarg); break;
		case 'P': plan = 1; break;
		default: usage();
		}
	}
	if (plan) {
		mode = optind < argc ? argv[optind] : "verbs";
		printf("%d\n", strcmp(mode, "total") ? MC_NVERBS : MC_NTOTAL);
		return 0;
	}
	if (optind != argc - 1 || !dev || nqp < 1 || nqp > MC_MAX_QP ||
	    n < 0 || n > MC_MAX_MSG - 4)
		usage();
	mode = argv[optind];
	if (strcmp(mode, "verbs") && strcmp(mode, "total") &&
	    (!group || parse_group(group, &m.mgid, &m.v4)))
		usage();
	signal(SIGUSR1, on_usr1);
	if (mc_open(&m, dev, (size_t)MC_MAX_QP * MC_MAX_MSG * MC_SLOT))
		goto out;
	if (!strcmp(mode, "verbs")) {
		verbs_tests(&m);
		rc = dpt_nfail || dpt_ntest != MC_NVERBS;
	} else if (!strcmp(mode, "total")) {
		total_tests(&m);
		rc = dpt_nfail || dpt_ntest != MC_NTOTAL;
	} else if (!strcmp(mode, "send")) {
		rc = do_send(&m, n, qkey);
	} else if (!strcmp(mode, "recv")) {
		rc = do_recv(&m, nqp, n, qkey, quiet);
	} else {
		usage();
	}
out:
	mc_close(&m);
	return rc;
}
