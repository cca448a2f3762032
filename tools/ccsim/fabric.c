// SPDX-License-Identifier: GPL-2.0
/*
 * fabric.c - ccsim's fabric mode: set up, the event loop, samples and
 * what is written at the end.
 *
 *   queue.csv    time_us, then the queue (KB) of every switch port,
 *                named node-peer ("L0-S1": leaf 0's port to spine 1)
 *   pfc.csv      one row per PFC frame: time_ns, node, port, xoff/xon,
 *                the KB buffered from that ingress
 *   ports.csv    one row per port: its name, rate, MB sent, queue
 *                p50/p99/max (KB, over the samples), marks, drops, XOFFs
 *                sent (as an ingress) and received (as an egress), time
 *                paused (us)
 *   fct.csv, slowdown.csv  (fct.c)
 *   summary      key = value lines (stdout and summary.txt)
 *
 * As in the single mode every number comes from integer state with a
 * fixed format: the same scenario and seed give byte-identical files;
 * the speed of the run goes to stderr only.
 */
#include <stdlib.h>
#include <time.h>

#include "fabric.h"

static const char *const fab_algo_name[] = { "none", "dcqcn",  "dctcp",
					     "hpcc", "timely", "fixed" };

static void fab_port_name(const struct fab *fb, u32 port, char *buf, size_t len)
{
	char a[16], b[16];

	fab_node_name(fb, fb->ports[port].node, a, sizeof(a));
	fab_node_name(fb, fb->ports[fb->ports[port].peer].node, b, sizeof(b));
	snprintf(buf, len, "%s-%s", a, b);
}

static bool fab_is_switch_port(const struct fab *fb, u32 port)
{
	return fb->nodes[fb->ports[port].node].kind != FAB_HOST;
}

static FILE *fab_open(const char *dir, const char *name)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	if (!fp)
		perror(path);
	return fp;
}

static int fab_out_open(struct fab *fb, const char *dir)
{
	char name[40];
	u32 p;

	if (!dir)
		return 0;
	fb->queue_csv = fab_open(dir, "queue.csv");
	fb->pfc_csv = fab_open(dir, "pfc.csv");
	if (!fb->queue_csv || !fb->pfc_csv)
		return -1;
	fprintf(fb->pfc_csv, "time_ns,node,port,frame,ingress_kb\n");
	fprintf(fb->queue_csv, "time_us");
	for (p = 0; p < fb->nports; p++) {
		if (!fab_is_switch_port(fb, p))
			continue;
		fab_port_name(fb, p, name, sizeof(name));
		fprintf(fb->queue_csv, ",%s", name);
	}
	fprintf(fb->queue_csv, "\n");
	return 0;
}

static void fab_sample(struct fab *fb)
{
	struct sim *s = fb->s;
	u32 p;

	/* the percentiles: the samples of the summary's window */
	if (fb->nsamples < fb->samples_cap && s->now >= s->cfg.measure_start &&
	    s->now <= s->cfg.measure_end) {
		for (p = 0; p < fb->nports; p++)
			fb->qs[(size_t)fb->nsamples * fb->nports + p] =
				(u32)fb->ports[p].bytes;
		fb->nsamples++;
	}
	if (fb->queue_csv) {
		fprintf(fb->queue_csv, "%llu",
			(unsigned long long)(s->now / SIM_PS_PER_US));
		for (p = 0; p < fb->nports; p++)
			if (fab_is_switch_port(fb, p))
				fprintf(fb->queue_csv, ",%.3f",
					fb->ports[p].bytes / 1000.0);
		fprintf(fb->queue_csv, "\n");
	}
	sim_evq_push(&s->q, s->now + s->cfg.sample, FAB_EV_SAMPLE, 0, 0);
}

static void fab_dispatch(struct fab *fb, const struct sim_event *ev)
{
	switch (ev->kind) {
	case FAB_EV_FLOW:
		fab_flow_start(fb, ev->flow);
		break;
	case FAB_EV_NIC:
		fab_nic_wake(fb, ev->flow);
		break;
	case FAB_EV_DEPART:
		fab_port_depart(fb, ev->flow);
		break;
	case FAB_EV_ARRIVE:
		if (fb->nodes[fb->ports[ev->flow].node].kind == FAB_HOST)
			fab_host_receive(fb, ev->flow, (u32)ev->data);
		else
			fab_switch_arrive(fb, ev->flow, (u32)ev->data);
		break;
	case FAB_EV_PAUSE:
		fab_port_pause(fb, ev->flow, ev->data);
		break;
	case FAB_EV_SAMPLE:
		fab_sample(fb);
		break;
	case FAB_EV_RTO:
		fab_rc_timeout(fb, ev->flow);
		break;
	}
}

static int fab_init(struct fab *fb, struct sim *s, const char *dir)
{
	const struct sim_config *c = &s->cfg;
	int j;

	fb->s = s;
	fb->free_pkt = U32_MAX;
	fb->rng = c->seed;
	s->ops = sim_cc_ops(c->algo);
	sroce_cc_params_default(&fb->params, c->flavour, c->topo.host_rate);
	fb->params.hpcc_mtu = c->mtu;
	for (j = 0; j < c->ncc_ov; j++)
		if (sim_cc_param_set(&fb->params, c->cc_ov[j].key,
				     c->cc_ov[j].val))
			return -1;
	if (sim_evq_init(&s->q) || fab_topo_init(fb) || fab_out_open(fb, dir))
		return -1;
	fb->samples_cap = (u32)(c->duration / c->sample + 1);
	fb->qs = calloc((size_t)fb->samples_cap * fb->nports, sizeof(*fb->qs));
	if (!fb->qs || fab_workload_init(fb))
		return -1;
	return sim_evq_push(&s->q, c->sample, FAB_EV_SAMPLE, 0, 0);
}

static int fab_u32_cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* Queue percentile @pct (KB) of port @p over the samples; @v scratch. */
static double fab_qpct(const struct fab *fb, u32 p, u32 *v, u32 pct)
{
	u32 i, n = fb->nsamples, r;

	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		v[i] = fb->qs[(size_t)i * fb->nports + p];
	qsort(v, n, sizeof(*v), fab_u32_cmp);
	r = (u32)(((u64)n * pct + 99) / 100);
	return v[r ? r - 1 : 0] / 1000.0;
}

/* ports.csv, and the port figures of the summary. */
static int fab_ports_write(struct fab *fb, const char *dir, FILE *sum)
{
	u32 *v = malloc((fb->nsamples + 1) * sizeof(*v)), p, paused = 0;
	u32 stuck = 0;
	double q99max = 0, qmax = 0;
	FILE *fp = dir ? fab_open(dir, "ports.csv") : NULL;
	char name[40];

	if (!v || (dir && !fp)) {
		free(v);
		return -1;
	}
	if (fp)
		fprintf(fp,
			"port,name,rate_gbps,tx_mb,q_p50_kb,q_p99_kb,q_max_kb,marks,drops,xoff_sent,xoff_rcvd,paused_us\n");
	for (p = 0; p < fb->nports; p++) {
		const struct fab_port *pt = &fb->ports[p];
		double q50 = fab_qpct(fb, p, v, 50);
		double q99 = fab_qpct(fb, p, v, 99);
		u64 pt_paused = pt->paused_time;

		if (pt->paused)
			pt_paused += fb->s->now - pt->paused_since;

		if (fab_is_switch_port(fb, p) && q99 > q99max)
			q99max = q99;
		if (pt->qmax / 1000.0 > qmax)
			qmax = pt->qmax / 1000.0;
		paused += !!pt->xoffs_rcvd;
		/* deadlocked: paused with packets, nothing sent for 1 ms */
		stuck += fab_is_switch_port(fb, p) && pt->paused && pt->q.n &&
			 fb->s->now - pt->last_tx >= SIM_PS_PER_MS;
		if (!fp)
			continue;
		fab_port_name(fb, p, name, sizeof(name));
		fprintf(fp,
			"%u,%s,%.1f,%.3f,%.3f,%.3f,%.3f,%llu,%llu,%llu,%llu,%.3f\n",
			p, name, pt->rate / 1e6, pt->tx_bytes / 1e6, q50, q99,
			pt->qmax / 1000.0, (unsigned long long)pt->marks,
			(unsigned long long)pt->drops,
			(unsigned long long)pt->xoffs_sent,
			(unsigned long long)pt->xoffs_rcvd, pt_paused / 1e6);
	}
	fprintf(sum, "queue_p99_max_kb = %.3f\nqueue_max_kb = %.3f\n", q99max,
		qmax);
	fprintf(sum, "ports_paused = %u\nports_stuck = %u\n", paused, stuck);
	free(v);
	if (fp)
		fclose(fp);
	return 0;
}

/*
 * One line per [flow] of the scenario (tests/sim/run.sh reads them as
 * the single mode's): hosts, bytes sent and received, and once it has
 * finished its FCT and slowdown.
 */
static void fab_flows_write(const struct fab *fb, FILE *fp)
{
	const struct sim_config *c = &fb->s->cfg;
	double win = (c->measure_end - c->measure_start) / 1e12, sum = 0;
	double sq = 0;
	u32 nfair = 0;
	u32 i;

	for (i = 0; i < fb->nflows; i++) {
		const struct fab_flow *f = &fb->flows[i];

		if (f->kind)
			continue;
		fprintf(fp, "flow%u = src %u dst %u sent_b %llu rcvd_b %llu", i,
			f->src, f->dst, (unsigned long long)f->sent,
			(unsigned long long)f->rcvd);
		/* on (and not done) for the whole window: counts for jain */
		if (f->start <= c->measure_start &&
		    (!f->stop || f->stop >= c->measure_end) &&
		    (!f->done_at || f->done_at >= c->measure_end)) {
			double g = f->win_rcvd * 8 / win / 1e9;

			fprintf(fp, " gbps %.4f", g);
			sum += g;
			sq += g * g;
			nfair++;
		}
		if (f->done_at)
			fprintf(fp, " fct_us %.3f slowdown %.3f",
				(f->done_at - f->start) / 1e6,
				fab_slowdown_milli(f) / 1000.0);
		fprintf(fp, "\n");
	}
	fprintf(fp, "fair_flows = %u\njain = %.4f\n", nfair,
		nfair && sq > 0 ? sum * sum / (nfair * sq) : 1.0);
}

static int fab_summary(struct fab *fb, const char *dir, FILE *fp)
{
	const struct sim_config *c = &fb->s->cfg;

	fprintf(fp, "name = %s\nalgo = %s\nflavour = %s\n", c->name,
		fab_algo_name[c->algo],
		c->flavour == SROCE_CC_MLX ? "mlx" : "paper");
	fprintf(fp, "hosts = %u\nleaves = %u\nspines = %u\n", fb->nhosts,
		c->topo.leaves, c->topo.spines);
	fprintf(fp, "duration_ms = %.3f\nflows = %u\n", c->duration / 1e9,
		fb->nflows);
	fprintf(fp, "events = %llu\nmarks = %llu\ncnps = %llu\n",
		(unsigned long long)fb->s->events,
		(unsigned long long)fb->marks, (unsigned long long)fb->cnps);
	fprintf(fp, "xoffs = %llu\ndrops = %llu\n",
		(unsigned long long)fb->xoffs, (unsigned long long)fb->drops);
	if (c->gbn)
		fprintf(fp, "retransmitted_kb = %.3f\ntimeouts = %llu\n",
			fb->retx / 1000.0, (unsigned long long)fb->timeouts);
	if (fab_ports_write(fb, dir, fp))
		return -1;
	fab_flows_write(fb, fp);
	return fab_fct_write(fb, dir, fp);
}

static void fab_free(struct fab *fb)
{
	if (fb->queue_csv)
		fclose(fb->queue_csv);
	if (fb->pfc_csv)
		fclose(fb->pfc_csv);
	fab_topo_free(fb);
	free(fb->flows);
	free(fb->pkts);
	free(fb->qs);
	sim_evq_free(&fb->s->q);
}

static double fab_clock(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int fab_main(struct sim *s, const char *dir, bool quiet)
{
	static struct fab fb;
	struct sim_event ev;
	double c0 = fab_clock(CLOCK_PROCESS_CPUTIME_ID), cpu;
	char path[512];
	FILE *fp = NULL;
	int rc = 0;

	if (fab_init(&fb, s, dir)) {
		fprintf(stderr, "ccsim: cannot set up the fabric\n");
		fab_free(&fb);
		return 1;
	}
	while (sim_evq_pop(&s->q, &ev) && ev.t <= s->cfg.duration) {
		s->now = ev.t;
		s->events++;
		fab_dispatch(&fb, &ev);
	}
	s->now = s->cfg.duration;
	cpu = fab_clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
	if (!quiet && fab_summary(&fb, NULL, stdout))
		rc = 1;
	if (dir) {
		snprintf(path, sizeof(path), "%s/summary.txt", dir);
		fp = fopen(path, "w");
		if (!fp || fab_summary(&fb, dir, fp))
			rc = 1;
		if (fp)
			fclose(fp);
	}
	fprintf(stderr,
		"ccsim: %s: %.3f simulated s in %.3f cpu s (%.4f sim-s/cpu-s, %llu events, %u flows)\n",
		s->cfg.name, s->cfg.duration / 1e12, cpu,
		cpu > 0 ? s->cfg.duration / 1e12 / cpu : 0.0,
		(unsigned long long)s->events, fb.nflows);
	fab_free(&fb);
	return rc;
}
