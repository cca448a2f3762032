// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * dp_limits.c - the object limits query_device advertises are enforced,
 * for t-limits.sh.
 *
 *   dp_limits -d DEV -g GIDX [-c CAP] KIND...
 *
 * KIND is pd, mr, mw, cq, srq, ah or qp.  For each, objects are created
 * until the device refuses one (or CAP more than the advertised maximum
 * were made, which is a failure), then one is freed and created again.
 * One line per kind:
 *
 *   LIMIT kind max created errno reuse_ok
 *
 * max is the advertised limit, created how many this process made before
 * the refusal, errno the refusal's, reuse_ok 1 when the create after one
 * free succeeded.  The caller compares created with max minus what the
 * kernel itself holds (rdma resource).  Exit 0 when every kind ran.
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

struct lim {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr; /* with MW_BIND, for nothing but existing */
	void *buf;
	int gid_idx;
	union ibv_gid gid;
};

static void *mk_pd(struct lim *l)
{
	return ibv_alloc_pd(l->ctx);
}

static void *mk_mr(struct lim *l)
{
	return ibv_reg_mr(l->pd, l->buf, 4096, IBV_ACCESS_LOCAL_WRITE);
}

static void *mk_mw(struct lim *l)
{
	return ibv_alloc_mw(l->pd, IBV_MW_TYPE_2);
}

static void *mk_cq(struct lim *l)
{
	return ibv_create_cq(l->ctx, 1, NULL, NULL, 0);
}

static void *mk_srq(struct lim *l)
{
	struct ibv_srq_init_attr a = { .attr = { .max_wr = 1, .max_sge = 1 } };

	return ibv_create_srq(l->pd, &a);
}

static void *mk_ah(struct lim *l)
{
	struct ibv_ah_attr a = {
		.is_global = 1,
		.port_num = 1,
		.grh = { .dgid = l->gid, .sgid_index = l->gid_idx,
			 .hop_limit = 1 },
	};

	return ibv_create_ah(l->pd, &a);
}

static void *mk_qp(struct lim *l)
{
	struct ibv_qp_init_attr a = {
		.send_cq = l->cq,
		.recv_cq = l->cq,
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(l->pd, &a);
}

static int rm_pd(void *o)
{
	return ibv_dealloc_pd(o);
}

static int rm_mr(void *o)
{
	return ibv_dereg_mr(o);
}

static int rm_mw(void *o)
{
	return ibv_dealloc_mw(o);
}

static int rm_cq(void *o)
{
	return ibv_destroy_cq(o);
}

static int rm_srq(void *o)
{
	return ibv_destroy_srq(o);
}

static int rm_ah(void *o)
{
	return ibv_destroy_ah(o);
}

static int rm_qp(void *o)
{
	return ibv_destroy_qp(o);
}

/*
 * One row per kind: its create (NULL with errno set when refused), its
 * destroy and where ibv_query_device puts its advertised maximum.
 */
static const struct kind {
	const char *name;
	void *(*create)(struct lim *l);
	int (*destroy)(void *o);
	size_t max_off; /* an int in struct ibv_device_attr */
} kinds[] = {
#define KIND(n) { #n, mk_##n, rm_##n, offsetof(struct ibv_device_attr, max_##n) }
	KIND(pd), KIND(mr), KIND(mw), KIND(cq), KIND(srq), KIND(ah), KIND(qp),
#undef KIND
};

static const struct kind *find_kind(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].name, name))
			return &kinds[i];
	return NULL;
}

static int advertised(const struct ibv_device_attr *a, const struct kind *k)
{
	return *(const int *)((const char *)a + k->max_off);
}

/* -l: stop after this many (timing runs), 0 = up to the refusal. */
static int stop_at;

static int run(struct lim *l, const struct ibv_device_attr *da,
	       const char *name, int cap)
{
	const struct kind *kind = find_kind(name);
	int max, n = 0, err = 0, reuse = 0, i;
	struct timespec t0, t1, t2;
	void **objs;

	clock_gettime(CLOCK_MONOTONIC, &t0);

	if (!kind)
		return -1;
	max = advertised(da, kind);
	if (stop_at && stop_at < max)
		max = stop_at - cap;
	objs = calloc((size_t)max + cap + 1, sizeof(*objs));
	if (!objs)
		return -1;
	while (n < max + cap) {
		objs[n] = kind->create(l);
		if (!objs[n]) {
			err = errno;
			break;
		}
		n++;
	}
	if (n && err) {
		kind->destroy(objs[n - 1]);
		objs[n - 1] = kind->create(l);
		reuse = objs[n - 1] != NULL;
		if (!reuse)
			n--;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("LIMIT %s %d %d %d %d\n", name, max, n, err, reuse);
	fflush(stdout);
	for (i = n - 1; i >= 0; i--)
		kind->destroy(objs[i]);
	clock_gettime(CLOCK_MONOTONIC, &t2);
	printf("# %s: created in %.1f s, destroyed in %.1f s\n", name,
	       (double)(t1.tv_sec - t0.tv_sec) +
		       (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       (double)(t2.tv_sec - t1.tv_sec) +
		       (t2.tv_nsec - t1.tv_nsec) / 1e9);
	free(objs);
	return 0;
}

int main(int argc, char **argv)
{
	struct ibv_device_attr da;
	struct lim l = { 0 };
	const char *dev = NULL;
	int c, i, cap = 16, rc = 0;

	while ((c = getopt(argc, argv, "d:g:c:l:")) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 'g':
			l.gid_idx = atoi(optarg);
			break;
		case 'c':
			cap = atoi(optarg);
			break;
		case 'l':
			stop_at = atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	if (!dev || optind >= argc) {
		fprintf(stderr, "usage: dp_limits -d DEV -g GIDX [-c CAP] "
				"pd|mr|mw|cq|srq|ah|qp...\n");
		return 2;
	}
	l.ctx = dpt_open(dev);
	if (!l.ctx || ibv_query_device(l.ctx, &da) ||
	    ibv_query_gid(l.ctx, 1, l.gid_idx, &l.gid)) {
		fprintf(stderr, "dp_limits: cannot open %s\n", dev);
		return 1;
	}
	l.buf = calloc(1, 4096);
	l.pd = ibv_alloc_pd(l.ctx);
	l.cq = ibv_create_cq(l.ctx, 16, NULL, NULL, 0);
	if (!l.pd || !l.cq || !l.buf) {
		fprintf(stderr, "dp_limits: pd/cq: %s\n", strerror(errno));
		return 1;
	}
	printf("# own objects: 1 pd, 1 cq\n");
	for (i = optind; i < argc; i++)
		if (run(&l, &da, argv[i], cap))
			rc = 1;
	ibv_destroy_cq(l.cq);
	ibv_dealloc_pd(l.pd);
	ibv_close_device(l.ctx);
	free(l.buf);
	return rc;
}
