// SPDX-License-Identifier: GPL-2.0
/*
 * fct.c - flow completion times of ccsim's fabric.
 *
 * A flow's FCT runs from its start to the ACK of its last byte at the
 * sender (nic.c).  Its ideal FCT is the same on the empty fabric: the
 * sender's packets back to back at its link rate, store and forward at
 * every hop (each packet serialised at each port's rate, behind the one
 * before it), the last one's ACK back (the flow's back): exactly what the
 * simulator does for a flow alone, so a flow alone has slowdown 1.  The
 * slowdown is FCT / ideal.
 *
 *   fct.csv       one row per sized flow: flow, src, dst, kind (flow,
 *                 poisson, incast), size_b, start_us, fct_us, ideal_us,
 *                 slowdown (fct_us and slowdown empty if not finished)
 *   slowdown.csv  per flow-size bucket (and all, background = poisson,
 *                 incast): flows finished, p50, p95, p99 and max slowdown
 *                 (empty without a flow)
 *
 * The summary gets fct_flows, fct_done and the same as sd_<bucket>_n,
 * sd_<bucket>_p50 ... keys (no percentile keys for a bucket without a
 * flow).
 */
#include <stdlib.h>

#include "fabric.h"

/* Bucket upper bounds, bytes; the last bucket is everything above. */
static const u64 fab_bucket_hi[] = { 10000, 100000, 1000000, 10000000 };
static const char *const fab_bucket_name[] = { "le10k", "le100k", "le1m",
					       "le10m", "gt10m" };
#define FAB_NBUCKETS ARRAY_SIZE(fab_bucket_name)
static const char *const fab_kind_name[] = { "flow", "poisson", "incast" };

u64 fab_ideal_fct(const struct fab *fb, const struct fab_flow *f)
{
	u32 mtu = fb->s->cfg.mtu;
	u64 fin[FAB_MAX_PATH] = { 0 }, left = f->size;
	u32 i;

	if (!f->size)
		return 0;
	/* fin[i]: when port i of the path finished the packet so far */
	while (left) {
		u32 b = left < mtu ? (u32)left : mtu;

		for (i = 0; i < f->npath; i++) {
			const struct fab_port *p = &fb->ports[f->path[i]];
			u64 at = fin[i]; /* the port is free */

			/* ... and the packet has arrived whole */
			if (i &&
			    fin[i - 1] + fb->ports[f->path[i - 1]].delay > at)
				at = fin[i - 1] +
				     fb->ports[f->path[i - 1]].delay;
			fin[i] = at + sim_tx_ps(b, p->rate);
		}
		left -= b;
	}
	return fin[f->npath - 1] + fb->ports[f->path[f->npath - 1]].delay +
	       f->back;
}

u64 fab_slowdown_milli(const struct fab_flow *f)
{
	return (f->done_at - f->start) * 1000 / f->ideal;
}

static int fab_u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile @pct of the sorted @v[0..n-1]. */
static u64 fab_pct(const u64 *v, u32 n, u32 pct)
{
	u32 r = (u32)(((u64)n * pct + 99) / 100);

	return n ? v[r ? r - 1 : 0] : 0;
}

static u32 fab_bucket(u64 size)
{
	u32 b;

	for (b = 0; b < ARRAY_SIZE(fab_bucket_hi); b++)
		if (size <= fab_bucket_hi[b])
			break;
	return b;
}

/* Slowdowns (x1000) of the finished flows @want selects, sorted. */
static u32 fab_collect(const struct fab *fb, u64 *v, int bucket, int kind)
{
	u32 i, n = 0;

	for (i = 0; i < fb->nflows; i++) {
		const struct fab_flow *f = &fb->flows[i];

		if (!f->done_at || !f->ideal ||
		    (bucket >= 0 && fab_bucket(f->size) != (u32)bucket) ||
		    (kind >= 0 && f->kind != kind))
			continue;
		v[n++] = fab_slowdown_milli(f);
	}
	qsort(v, n, sizeof(*v), fab_u64_cmp);
	return n;
}

static void fab_sd_row(FILE *csv, FILE *sum, const char *name, const u64 *v,
		       u32 n)
{
	double p50 = fab_pct(v, n, 50) / 1000.0;
	double p95 = fab_pct(v, n, 95) / 1000.0;
	double p99 = fab_pct(v, n, 99) / 1000.0;

	/* no flow, no percentile (an empty field, no key) */
	fprintf(sum, "sd_%s_n = %u\n", name, n);
	if (!n) {
		if (csv)
			fprintf(csv, "%s,0,,,,\n", name);
		return;
	}
	if (csv)
		fprintf(csv, "%s,%u,%.3f,%.3f,%.3f,%.3f\n", name, n, p50, p95,
			p99, v[n - 1] / 1000.0);
	fprintf(sum, "sd_%s_p50 = %.3f\nsd_%s_p95 = %.3f\nsd_%s_p99 = %.3f\n",
		name, p50, name, p95, name, p99);
}

static void fab_fct_csv(const struct fab *fb, FILE *fp)
{
	u32 i;

	fprintf(fp,
		"flow,src,dst,kind,size_b,start_us,fct_us,ideal_us,slowdown\n");
	for (i = 0; i < fb->nflows; i++) {
		const struct fab_flow *f = &fb->flows[i];

		if (!f->size)
			continue;
		fprintf(fp, "%u,%u,%u,%s,%llu,%.3f,", i, f->src, f->dst,
			fab_kind_name[f->kind], (unsigned long long)f->size,
			f->start / 1e6);
		if (f->done_at)
			fprintf(fp, "%.3f,%.3f,%.3f\n",
				(f->done_at - f->start) / 1e6, f->ideal / 1e6,
				fab_slowdown_milli(f) / 1000.0);
		else
			fprintf(fp, ",%.3f,\n", f->ideal / 1e6);
	}
}

/* fct.csv and slowdown.csv into @dir (if set), the keys into @sum. */
int fab_fct_write(struct fab *fb, const char *dir, FILE *sum)
{
	u64 *v = malloc((fb->nflows + 1) * sizeof(*v));
	FILE *fct = NULL, *sd = NULL;
	u32 i, sized = 0, done = 0;
	char path[512];

	if (!v)
		return -1;
	if (dir) {
		snprintf(path, sizeof(path), "%s/fct.csv", dir);
		fct = fopen(path, "w");
		snprintf(path, sizeof(path), "%s/slowdown.csv", dir);
		sd = fopen(path, "w");
		if (!fct || !sd)
			goto fail;
		fab_fct_csv(fb, fct);
		fprintf(sd, "bucket,flows,p50,p95,p99,max\n");
	}
	for (i = 0; i < fb->nflows; i++) {
		sized += !!fb->flows[i].size;
		done += !!fb->flows[i].done_at;
	}
	fprintf(sum, "fct_flows = %u\nfct_done = %u\n", sized, done);
	for (i = 0; i < FAB_NBUCKETS; i++)
		fab_sd_row(sd, sum, fab_bucket_name[i], v,
			   fab_collect(fb, v, (int)i, -1));
	fab_sd_row(sd, sum, "all", v, fab_collect(fb, v, -1, -1));
	fab_sd_row(sd, sum, "bg", v, fab_collect(fb, v, -1, 1));
	fab_sd_row(sd, sum, "incast", v, fab_collect(fb, v, -1, 2));
	free(v);
	if (fct)
		fclose(fct);
	if (sd)
		fclose(sd);
	return 0;
fail:
	free(v);
	if (fct)
		fclose(fct);
	if (sd)
		fclose(sd);
	return -1;
}
