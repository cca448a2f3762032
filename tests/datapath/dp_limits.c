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

/* Create one object of @kind; NULL with errno set when refused. */
static void *create(struct lim *l, const char *kind)
{
	if (!strcmp(kind, "pd"))
		return ibv_alloc_pd(l->ctx);
	if (!strcmp(kind, "mr"))
		return ibv_reg_mr(l->pd, l->buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (!strcmp(kind, "mw"))
		return ibv_alloc_mw(l->pd, IBV_MW_TYPE_2);
	if (!strcmp(kind, "cq"))
		return ibv_create_cq(l->ctx, 1, NULL, NULL, 0);
	if (!strcmp(kind, "srq")) {
		struct ibv_srq_init_attr a = { .attr = { .max_wr = 1,
							 .max_sge = 1 } };

		return ibv_create_srq(l->pd, &a);
	}
	if (!strcmp(kind, "ah")) {
		struct ibv_ah_attr a = {
			.is_global = 1,
			.port_num = 1,
			.grh = { .dgid = l->gid, .sgid_index = l->gid_idx,
				 .hop_limit = 1 },
		};

		return ibv_create_ah(l->pd, &a);
	}
	if (!strcmp(kind, "qp")) {
		struct ibv_qp_init_attr a = {
			.send_cq = l->cq,
			.recv_cq = l->cq,
			.qp_type = IBV_QPT_UD,
			.cap = { .max_send_wr = 1, .max_recv_wr = 1,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};

		return ibv_create_qp(l->pd, &a);
	}
	errno = EINVAL;
	return NULL;
}

static int destroy(const char *kind, void *o)
{
	if (!strcmp(kind, "pd"))
		return ibv_dealloc_pd(o);
	if (!strcmp(kind, "mr"))
		return ibv_dereg_mr(o);
	if (!strcmp(kind, "mw"))
		return ibv_dealloc_mw(o);
	if (!strcmp(kind, "cq"))
		return ibv_destroy_cq(o);
	if (!strcmp(kind, "srq"))
		return ibv_destroy_srq(o);
	if (!strcmp(kind, "ah"))
		return ibv_destroy_ah(o);
	if (!strcmp(kind, "qp"))
		return ibv_destroy_qp(o);
	return EINVAL;
}

static int advertised(const struct ibv_device_attr *a, const char *kind)
{
	if (!strcmp(kind, "pd"))
		return a->max_pd;
	if (!strcmp(kind, "mr"))
		return a->max_mr;
	if (!strcmp(kind, "mw"))
		return a->max_mw;
	if (!strcmp(kind, "cq"))
		return a->max_cq;
	if (!strcmp(kind, "srq"))
		return a->max_srq;
	if (!strcmp(kind, "ah"))
		return a->max_ah;
	if (!strcmp(kind, "qp"))
		return a->max_qp;
	return -1;
}

/* -l: stop after this many (timing runs), 0 = up to the refusal. */
static int stop_at;

static int run(struct lim *l, const struct ibv_device_attr *da,
	       const char *kind, int cap)
{
	int max = advertised(da, kind), n = 0, err = 0, reuse = 0, i;
	struct timespec t0, t1, t2;
	void **objs;

	clock_gettime(CLOCK_MONOTONIC, &t0);

	if (max < 0)
		return -1;
	if (stop_at && stop_at < max)
		max = stop_at - cap;
	objs = calloc((size_t)max + cap + 1, sizeof(*objs));
	if (!objs)
		return -1;
	while (n < max + cap) {
		objs[n] = create(l, kind);
		if (!objs[n]) {
			err = errno;
			break;
		}
		n++;
	}
	if (n && err) {
		destroy(kind, objs[n - 1]);
		objs[n - 1] = create(l, kind);
		reuse = objs[n - 1] != NULL;
		if (!reuse)
			n--;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("LIMIT %s %d %d %d %d\n", kind, max, n, err, reuse);
	fflush(stdout);
	for (i = n - 1; i >= 0; i--)
		destroy(kind, objs[i]);
	clock_gettime(CLOCK_MONOTONIC, &t2);
	printf("# %s: created in %.1f s, destroyed in %.1f s\n", kind,
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
