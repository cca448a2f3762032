// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * dp_cqresize.c - ibv_resize_cq() while another thread polls the same CQ,
 * for t-limits.sh.  KTAP lines on stdout; "-P" prints the plan.
 *
 *   dp_cqresize -d DEV [-n RESIZES]
 *
 * The provider answers an empty poll without the CQ lock, from the ring
 * header; resize_cq replaces the ring under the lock.  A poller that read
 * the old header's address just before the swap must still find memory
 * there (an empty ring), not a hole: one thread polls an empty CQ in a
 * loop while the main thread resizes it between two sizes RESIZES times
 * (default 2000).  Every resize succeeds, no poll reports an error or an
 * entry, and the process survives.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "dp_tool.h"

#define CR_NTEST 3

static struct ibv_cq *cq;
static atomic_int stop;
static long polls, bad_polls;

static void *cr_poller(void *arg)
{
	struct ibv_wc wc;

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (ibv_poll_cq(cq, 1, &wc))
			bad_polls++;
		polls++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *dev = NULL;
	struct ibv_context *ctx;
	int n = 2000, c, i, err = 0;
	char why[128];
	pthread_t t;

	while ((c = getopt(argc, argv, "d:n:P")) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 'n':
			n = atoi(optarg);
			break;
		case 'P':
			printf("%d\n", CR_NTEST);
			return 0;
		default:
			return 2;
		}
	}
	if (!dev || n <= 0)
		return 2;
	printf("KTAP version 1\n1..%d\n", CR_NTEST);
	ctx = dpt_open(dev);
	cq = ctx ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	dpt_report(!!cq, "a CQ to resize", cq ? NULL : strerror(errno));
	if (!cq)
		return 1;
	if (pthread_create(&t, NULL, cr_poller, NULL)) {
		dpt_report(0, "poller thread", "pthread_create failed");
		return 1;
	}
	for (i = 0; i < n && !err; i++)
		err = ibv_resize_cq(cq, i & 1 ? 16 : 1024);
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	snprintf(why, sizeof(why), "resize %d of %d: %s", i, n,
		 strerror(err));
	dpt_report(!err, "resize_cq in a loop while another thread polls",
		   err ? why : NULL);
	snprintf(why, sizeof(why), "%ld of %ld polls returned non-zero",
		 bad_polls, polls);
	dpt_report(!bad_polls && polls > 0, "every poll found the CQ empty",
		   bad_polls || !polls ? why : NULL);
	ibv_destroy_cq(cq);
	ibv_close_device(ctx);
	printf("# %ld polls during %d resizes\n", polls, n);
	return dpt_nfail ? 1 : 0;
}
