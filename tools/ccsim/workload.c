// SPDX-License-Identifier: GPL-2.0
/*
 * workload.c - the flows of ccsim's fabric: the scenario's [flow]
 * sections, Poisson arrivals with sizes from a CDF, and incast bursts.
 *
 * A CDF file has one "size_bytes cumulative_percent" pair a line, sizes
 * and percentages rising, the last at 100; '#' starts a comment.  A size
 * is drawn as HPCC's traffic generator draws it: a uniform percentage,
 * and the size linearly interpolated between the two points around it.
 *
 * Poisson: every host starts flows to a destination drawn uniformly among
 * the other hosts, with exponential gaps of mean
 * mean_size x 8 / (load x host_rate), so that each host offers [workload]
 * load of its link on average (the mean of the piecewise linear CDF).
 * Each host draws from its own random stream, and all flows are drawn
 * before the run: the same seed gives the same flows whatever the
 * algorithm, so runs with different algorithms compare like with like.
 *
 * Incast: from incast_start_ms every incast_interval_us, incast_fanin
 * distinct hosts (not the receiver) each start a flow of incast_size_kb
 * to one receiver (incast_dst, or a random host per burst).
 */
#include <math.h>
#include <stdlib.h>

#include "fabric.h"

#define FAB_CDF_MAX 64

struct fab_cdf {
	int n;
	double size[FAB_CDF_MAX], pct[FAB_CDF_MAX];
};

int fab_flow_add(struct fab *fb, u32 src, u32 dst, u64 size, u64 start, u8 kind)
{
	struct fab_flow *f;

	if (fb->nflows == fb->flows_cap) {
		u32 cap = fb->flows_cap ? 2 * fb->flows_cap : 256;

		f = realloc(fb->flows, cap * sizeof(*f));
		if (!f)
			return -1;
		fb->flows = f;
		fb->flows_cap = cap;
	}
	f = &fb->flows[fb->nflows];
	memset(f, 0, sizeof(*f));
	f->src = src;
	f->dst = dst;
	f->size = size;
	f->start = start;
	f->kind = kind;
	return (int)fb->nflows++;
}

/* The path of the flow just added, and its start event. */
static int fab_flow_ready(struct fab *fb, int i, const char *via)
{
	if (i < 0 || fab_route(fb, (u32)i, via))
		return -1;
	return sim_evq_push(&fb->s->q, fb->flows[i].start, FAB_EV_FLOW, (u32)i,
			    0);
}

static int fab_cdf_load(struct fab_cdf *c, const char *path)
{
	FILE *fp = fopen(path, "r");
	char line[256];

	c->n = 0;
	if (!fp) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), fp)) {
		double sz, pct;

		line[strcspn(line, "#\n")] = '\0';
		if (sscanf(line, "%lf %lf", &sz, &pct) != 2)
			continue;
		if (c->n == FAB_CDF_MAX ||
		    (c->n &&
		     (sz < c->size[c->n - 1] || pct < c->pct[c->n - 1])) ||
		    pct > 100 || sz < 0)
			break;
		c->size[c->n] = sz;
		c->pct[c->n] = pct;
		c->n++;
	}
	fclose(fp);
	if (c->n < 2 || c->pct[c->n - 1] != 100 || c->pct[0] != 0 ||
	    c->size[c->n - 1] < 1) {
		fprintf(stderr,
			"%s: expected \"size percent\" lines from 0 to 100 %%\n",
			path);
		return -1;
	}
	return 0;
}

/* The mean of the piecewise linear CDF, bytes. */
static double fab_cdf_mean(const struct fab_cdf *c)
{
	double m = 0;
	int i;

	for (i = 1; i < c->n; i++)
		m += (c->pct[i] - c->pct[i - 1]) / 100 *
		     (c->size[i] + c->size[i - 1]) / 2;
	return m;
}

/* A uniform double in [0, 1) from @st. */
static double fab_unit(u64 *st)
{
	return (double)(fab_rand(st) >> 11) / 9007199254740992.0;
}

static u64 fab_cdf_draw(const struct fab_cdf *c, u64 *st)
{
	double u = fab_unit(st) * 100, sz;
	int i;

	for (i = 1; i < c->n - 1 && u >= c->pct[i]; i++)
		;
	if (c->pct[i] == c->pct[i - 1])
		sz = c->size[i];
	else
		sz = c->size[i - 1] + (c->size[i] - c->size[i - 1]) *
					      (u - c->pct[i - 1]) /
					      (c->pct[i] - c->pct[i - 1]);
	return sz < 1 ? 1 : (u64)(sz + 0.5);
}

/*
 * "websearch" is tools/ccsim/cdf/websearch.cdf (where the build found
 * it); a path with a '/' is relative to the scenario's directory.
 */
static void fab_cdf_path(const struct sim_config *c, char *buf, size_t len)
{
	if (c->wl.cdf[0] == '/')
		snprintf(buf, len, "%s", c->wl.cdf);
	else if (strchr(c->wl.cdf, '/'))
		snprintf(buf, len, "%s/%s", c->dir, c->wl.cdf);
	else
		snprintf(buf, len, "%s/%s.cdf", CCSIM_CDF_DIR, c->wl.cdf);
}

/* Each host's arrivals in [start, stop), host by host. */
static int fab_poisson(struct fab *fb)
{
	const struct sim_config *c = &fb->s->cfg;
	struct fab_cdf cdf;
	char path[600];
	double gap_ps;
	u32 h;

	fab_cdf_path(c, path, sizeof(path));
	if (fab_cdf_load(&cdf, path))
		return -1;
	if (!c->wl.load_ppm)
		return 0;
	/* mean bits / (load x rate in bit/ps) */
	gap_ps = fab_cdf_mean(&cdf) * 8 /
		 ((double)c->wl.load_ppm / 1e6 * c->topo.host_rate / 1e9);
	for (h = 0; h < fb->nhosts; h++) {
		u64 st = c->seed ^ ((0x5bd1e995ULL * (h + 1)) << 16);
		double t = (double)c->wl.start;

		for (;;) {
			u32 dst;
			int i;

			t += -log(1 - fab_unit(&st)) * gap_ps;
			if (t >= (double)c->wl.stop)
				break;
			dst = (u32)(fab_rand(&st) % (fb->nhosts - 1));
			dst += dst >= h;
			i = fab_flow_add(fb, h, dst, fab_cdf_draw(&cdf, &st),
					 (u64)t, 1);
			if (fab_flow_ready(fb, i, NULL))
				return -1;
		}
	}
	return 0;
}

static int fab_incast(struct fab *fb)
{
	const struct sim_wl_cfg *w = &fb->s->cfg.wl;
	u64 st = fb->s->cfg.seed ^ 0x1c0ffee5ULL, t;
	u32 *hosts = malloc(fb->nhosts * sizeof(*hosts));
	int rc = 0;

	if (!hosts)
		return -1;
	for (t = w->incast_start; !rc && w->incast_interval && t < w->stop;
	     t += w->incast_interval) {
		u32 dst = w->incast_dst, n = 0, h, k;

		if (dst == U32_MAX)
			dst = (u32)(fab_rand(&st) % fb->nhosts);
		for (h = 0; h < fb->nhosts; h++)
			if (h != dst)
				hosts[n++] = h;
		/* the first fanin of a Fisher-Yates shuffle */
		for (k = 0; k < w->incast_fanin && !rc; k++) {
			u32 j = k + (u32)(fab_rand(&st) % (n - k)), tmp;

			tmp = hosts[k];
			hosts[k] = hosts[j];
			hosts[j] = tmp;
			rc = fab_flow_ready(fb,
					    fab_flow_add(fb, hosts[k], dst,
							 w->incast_size, t, 2),
					    NULL);
		}
	}
	free(hosts);
	return rc;
}

int fab_workload_init(struct fab *fb)
{
	const struct sim_config *c = &fb->s->cfg;
	int i;

	for (i = 0; i < c->nflows; i++) {
		const struct sim_flow_cfg *fc = &c->flows[i];
		int k = fab_flow_add(fb, fc->src, fc->dst, fc->size, fc->start,
				     0);

		if (k >= 0)
			fb->flows[k].stop = fc->stop;
		if (fab_flow_ready(fb, k, fc->via))
			return -1;
	}
	if (c->wl.cdf[0] && fab_poisson(fb))
		return -1;
	return fab_incast(fb);
}
