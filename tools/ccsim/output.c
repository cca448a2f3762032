// SPDX-License-Identifier: GPL-2.0
/*
 * output.c - what ccsim writes: three CSV time series and a summary.
 *
 *   rate.csv   time_us, then each flow's cc rate in Gb/s (0 = not sending)
 *   tput.csv   time_us, then each flow's delivered Gb/s over the interval
 *   queue.csv  time_us, queue_kb, and the cumulative marks, cnps, pauses,
 *              drops of the port (with [switch] ports = N: the queue of
 *              port 0, the counters of them all)
 *   flows.csv  one row per flow and sample: time_us, flow, rate_gbps,
 *              tput_gbps, alpha, and the flow's cumulative marks, cnps
 *              (received), pauses (XOFF received) and paused (0/1)
 *   pfc.csv    one row per PFC frame the switch sends: time_ns, flow,
 *              xoff/xon, the bytes of that ingress queued (KB)
 *   summary    key = value lines (stdout and summary.txt): Jain fairness
 *              and utilisation over the measurement window, queue
 *              percentiles, convergence time, per-flow figures (with
 *              several ports: the queue is port 0's, marks, pauses and
 *              drops are summed, and a line per port gives its own)
 *
 * Every number is printed with a fixed format from integer state, so the
 * same scenario and seed give byte-identical files.  Wall-clock figures
 * never go into these files (main.c prints them on stderr).
 */
#include <stdlib.h>

#include "sim.h"

static FILE *sim_out_file(const char *dir, const char *name)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	if (!fp)
		perror(path);
	return fp;
}

int sim_out_open(struct sim *s, const char *dir)
{
	int i;

	if (dir) {
		s->rate_csv = sim_out_file(dir, "rate.csv");
		s->tput_csv = sim_out_file(dir, "tput.csv");
		s->queue_csv = sim_out_file(dir, "queue.csv");
		s->flows_csv = sim_out_file(dir, "flows.csv");
		s->pfc_csv = sim_out_file(dir, "pfc.csv");
		if (!s->rate_csv || !s->tput_csv || !s->queue_csv ||
		    !s->flows_csv || !s->pfc_csv)
			return -1;
		fprintf(s->pfc_csv, "time_ns,flow,frame,ingress_kb\n");
		fprintf(s->flows_csv,
			"time_us,flow,rate_gbps,tput_gbps,alpha,marks,cnps,pauses,paused\n");
		fprintf(s->rate_csv, "time_us");
		fprintf(s->tput_csv, "time_us");
		for (i = 0; i < s->nflows; i++) {
			fprintf(s->rate_csv, ",f%d_gbps", i);
			fprintf(s->tput_csv, ",f%d_gbps", i);
		}
		fprintf(s->rate_csv, "\n");
		fprintf(s->tput_csv, "\n");
		fprintf(s->queue_csv,
			"time_us,queue_kb,marks,cnps,pauses,drops\n");
	}
	s->ser.cap = s->cfg.duration / s->cfg.sample + 2;
	s->ser.queue = calloc(s->ser.cap, sizeof(u64));
	s->ser.bytes = calloc(s->ser.cap * s->nflows, sizeof(u64));
	s->ser.rate = calloc(s->ser.cap * s->nflows, sizeof(u64));
	s->ser.on = calloc(s->ser.cap * s->nflows, 1);
	return s->ser.queue && s->ser.bytes && s->ser.rate && s->ser.on ? 0 :
									  -1;
}

/* Gb/s of @bytes over @ps, as a "%.3f" argument. */
static double sim_gbps(u64 bytes, u64 ps)
{
	return ps ? (double)bytes * 8000.0 / (double)ps : 0.0;
}

static void sim_out_flow_row(struct sim *s, int i, u64 us)
{
	const struct sim_flow *f = &s->flows[i];
	u32 alpha;
	u64 rate = sim_flow_rate(s, i, &alpha);

	fprintf(s->flows_csv, "%llu,%d,%.3f,%.3f,%.4f,%llu,%llu,%llu,%d\n",
		(unsigned long long)us, i, (double)rate / 1e6,
		sim_gbps(f->interval, s->cfg.sample),
		(double)alpha / SROCE_CC_ONE, (unsigned long long)f->marks,
		(unsigned long long)f->cnps_rcvd, (unsigned long long)f->pauses,
		f->paused);
}

/* The counters of every port summed (the one port's with one). */
static struct sim_port sim_ports_sum(const struct sim *s)
{
	struct sim_port t = { 0 };
	u32 i;

	for (i = 0; i < s->cfg.nports; i++) {
		t.marks += s->ports[i].marks;
		t.drops += s->ports[i].drops;
		t.pauses += s->ports[i].pauses;
		t.losses += s->ports[i].losses;
		t.departed += s->ports[i].departed;
	}
	return t;
}

void sim_out_sample(struct sim *s)
{
	struct sim_port sum = sim_ports_sum(s);
	struct sim_series *r = &s->ser;
	u64 us = s->now / SIM_PS_PER_US;
	u64 cnps = 0;
	int i;

	if (r->n < r->cap) {
		r->queue[r->n] = s->ports[0].bytes;
		for (i = 0; i < s->nflows; i++) {
			r->bytes[r->n * s->nflows + i] = s->flows[i].interval;
			r->rate[r->n * s->nflows + i] =
				sim_flow_rate(s, i, NULL);
			r->on[r->n * s->nflows + i] = s->flows[i].started &&
						      !s->flows[i].stopped;
		}
		r->n++;
	}
	if (s->rate_csv) {
		fprintf(s->rate_csv, "%llu", (unsigned long long)us);
		fprintf(s->tput_csv, "%llu", (unsigned long long)us);
		for (i = 0; i < s->nflows; i++) {
			fprintf(s->rate_csv, ",%.3f",
				(double)sim_flow_rate(s, i, NULL) / 1e6);
			fprintf(s->tput_csv, ",%.3f",
				sim_gbps(s->flows[i].interval, s->cfg.sample));
		}
		fprintf(s->rate_csv, "\n");
		fprintf(s->tput_csv, "\n");
		for (i = 0; i < s->nflows; i++)
			sim_out_flow_row(s, i, us);
	}
	for (i = 0; i < s->nflows; i++) {
		cnps += s->flows[i].cnps_sent;
		s->flows[i].interval = 0;
	}
	if (s->queue_csv)
		fprintf(s->queue_csv, "%llu,%.3f,%llu,%llu,%llu,%llu\n",
			(unsigned long long)us,
			(double)s->ports[0].bytes / 1000.0,
			(unsigned long long)sum.marks, (unsigned long long)cnps,
			(unsigned long long)sum.pauses,
			(unsigned long long)sum.drops);
}

void sim_out_pfc(struct sim *s, u32 flow, bool xoff)
{
	if (s->pfc_csv)
		fprintf(s->pfc_csv, "%llu,%u,%s,%.3f\n",
			(unsigned long long)(s->now / SIM_PS_PER_NS), flow,
			xoff ? "xoff" : "xon",
			(double)s->flows[flow].ingress / 1000.0);
}

void sim_out_close(struct sim *s)
{
	if (s->rate_csv)
		fclose(s->rate_csv);
	if (s->tput_csv)
		fclose(s->tput_csv);
	if (s->queue_csv)
		fclose(s->queue_csv);
	if (s->flows_csv)
		fclose(s->flows_csv);
	if (s->pfc_csv)
		fclose(s->pfc_csv);
	s->flows_csv = NULL;
	s->pfc_csv = NULL;
	s->rate_csv = NULL;
	s->tput_csv = NULL;
	s->queue_csv = NULL;
	free(s->ser.queue);
	free(s->ser.bytes);
	free(s->ser.rate);
	free(s->ser.on);
}

static double sim_jain(const double *x, int n)
{
	double sum = 0, sq = 0;
	int i;

	for (i = 0; i < n; i++) {
		sum += x[i];
		sq += x[i] * x[i];
	}
	return n && sq > 0 ? sum * sum / (n * sq) : 1.0;
}

static int sim_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Sample j covers (j * sample, (j + 1) * sample]. */
static u64 sim_sample_end(const struct sim *s, size_t j)
{
	return (j + 1) * s->cfg.sample;
}

/*
 * Jain index of the mean cc rates over samples [a, b) of the flows on
 * during all of them (the rate, not the throughput: a shared FIFO splits
 * throughput evenly even when the senders' rates are far apart).
 */
static double sim_window_jain(const struct sim *s, size_t a, size_t b)
{
	double x[SIM_MAX_FLOWS];
	int i, n = 0;
	size_t j;

	for (i = 0; i < s->nflows; i++) {
		u64 sum = 0;
		bool on = true;

		for (j = a; j < b; j++) {
			on = on && s->ser.on[j * s->nflows + i];
			sum += s->ser.rate[j * s->nflows + i];
		}
		if (on)
			x[n++] = (double)sum;
	}
	return sim_jain(x, n);
}

/* Time after the last flow event until the windowed Jain index stays high. */
static void sim_convergence(const struct sim *s, FILE *fp, u64 last)
{
	size_t w = s->cfg.conv_window / s->cfg.sample, a, first = 0, j;
	double thr = s->cfg.conv_jain_ppm / 1e6;
	bool any = false, ok = false;

	if (!w)
		w = 1;
	for (a = 0; a + w <= s->ser.n; a++) {
		if (a * s->cfg.sample < last)
			continue;
		any = true;
		if (sim_window_jain(s, a, a + w) < thr) {
			ok = false;
		} else if (!ok) {
			ok = true;
			first = a;
		}
	}
	fprintf(fp, "last_flow_event_us = %llu\n",
		(unsigned long long)(last / SIM_PS_PER_US));
	if (!any || !ok) {
		fprintf(fp, "convergence_us = %s\n", any ? "never" : "n/a");
		return;
	}
	j = first + w - 1;
	fprintf(fp, "convergence_us = %llu\n",
		(unsigned long long)((sim_sample_end(s, j) - last) /
				     SIM_PS_PER_US));
}

int sim_out_summary(struct sim *s, FILE *fp)
{
	const struct sim_config *c = &s->cfg;
	u64 win = c->measure_end - c->measure_start, last = 0, total = 0;
	struct sim_port sum = sim_ports_sum(s);
	u64 *q, cnps = 0, paused = 0, retx = 0, rtos = 0, naks = 0, wcuts = 0;
	u64 waits = 0, starts = 0, samples = 0;
	double x[SIM_MAX_FLOWS];
	size_t j, nq = 0, in_band = 0;
	int i, nfair = 0;

	q = malloc((s->ser.n + 1) * sizeof(*q));
	if (!q)
		return -1;
	for (j = 0; j < s->ser.n; j++) {
		u64 t = sim_sample_end(s, j);

		if (t <= c->measure_start || t > c->measure_end)
			continue;
		q[nq++] = s->ser.queue[j];
		if (s->ser.queue[j] >= c->kmin && s->ser.queue[j] <= c->kmax)
			in_band++;
	}
	qsort(q, nq, sizeof(*q), sim_cmp_u64);
	fprintf(fp, "scenario = %s\n", c->name);
	fprintf(fp, "algo = %s\n", s->ops->name);
	fprintf(fp, "flavour = %s\n",
		c->flavour == SROCE_CC_MLX ? "mlx" : "paper");
	fprintf(fp, "flows = %d\n", s->nflows);
	fprintf(fp, "window_us = %llu..%llu\n",
		(unsigned long long)(c->measure_start / SIM_PS_PER_US),
		(unsigned long long)(c->measure_end / SIM_PS_PER_US));
	fprintf(fp, "start_window_us = %llu\n",
		(unsigned long long)(c->start_window / SIM_PS_PER_US));
	for (i = 0; i < s->nflows; i++) {
		struct sim_flow *f = &s->flows[i];
		u64 b = 0, fpaused;

		for (j = 0; j < s->ser.n; j++) {
			u64 t = sim_sample_end(s, j);

			if (t > c->measure_start && t <= c->measure_end)
				b += s->ser.bytes[j * s->nflows + i];
		}
		total += b;
		if (f->cfg.start <= c->measure_start &&
		    (!f->cfg.stop || f->cfg.stop >= c->measure_end) &&
		    (!f->done || f->done_at >= c->measure_end))
			x[nfair++] = (double)b;
		if (f->cfg.start > last)
			last = f->cfg.start;
		if (f->cfg.stop && f->cfg.stop < c->duration &&
		    f->cfg.stop > last)
			last = f->cfg.stop;
		if (f->done && f->done_at > last)
			last = f->done_at;
		fpaused = f->paused_time +
			  (f->paused ? s->now - f->paused_since : 0);
		cnps += f->cnps_sent;
		paused += fpaused;
		retx += f->retx;
		rtos += f->timeouts;
		naks += f->naks_rcvd;
		wcuts += f->cnp_cuts;
		waits += f->pace_waits;
		starts += f->cc_starts;
		samples += f->rtt_samples;
		fprintf(fp,
			"flow%d = gbps %.4f sent_kb %llu marks %llu cnps %llu pauses %llu paused_us %llu drops %llu",
			i, sim_gbps(b, win),
			(unsigned long long)(f->sent / 1000),
			(unsigned long long)f->marks,
			(unsigned long long)f->cnps_rcvd,
			(unsigned long long)f->pauses,
			(unsigned long long)(fpaused / SIM_PS_PER_US),
			(unsigned long long)f->drops);
		if (c->gbn)
			fprintf(fp,
				" delivered_b %llu retx_kb %llu timeouts %llu naks %llu",
				(unsigned long long)f->delivered,
				(unsigned long long)(f->retx / 1000),
				(unsigned long long)f->timeouts,
				(unsigned long long)f->naks_rcvd);
		if (f->start_seen)
			fprintf(fp,
				" start_us %llu start_mbps %llu start_b %llu",
				(unsigned long long)(f->start_at /
						     SIM_PS_PER_US),
				(unsigned long long)(f->start_rate / 1000),
				(unsigned long long)f->start_sent);
		sim_flow_xon_close(s, f);
		if (f->xons)
			fprintf(fp, " xons %llu xon_mbps %llu xon_b %llu",
				(unsigned long long)f->xons,
				(unsigned long long)(f->xon_worst_rate / 1000),
				(unsigned long long)f->xon_worst_sent);
		if (f->done)
			fprintf(fp, " fct_us %llu",
				(unsigned long long)((f->done_at -
						      f->cfg.start) /
						     SIM_PS_PER_US));
		fprintf(fp, "\n");
	}
	fprintf(fp, "jain = %.4f\n", nfair ? sim_jain(x, nfair) : 0.0);
	fprintf(fp, "fair_flows = %d\n", nfair);
	fprintf(fp, "utilisation = %.4f\n",
		win ? (double)total * 8e9 /
				((double)c->port_rate * c->nports * win) :
		      0.0);
	fprintf(fp, "queue_p50_kb = %.1f\n", nq ? q[nq / 2] / 1000.0 : 0.0);
	fprintf(fp, "queue_p95_kb = %.1f\n",
		nq ? q[nq * 95 / 100] / 1000.0 : 0.0);
	fprintf(fp, "queue_p99_kb = %.1f\n",
		nq ? q[nq * 99 / 100] / 1000.0 : 0.0);
	fprintf(fp, "queue_max_kb = %.1f\n", nq ? q[nq - 1] / 1000.0 : 0.0);
	fprintf(fp, "queue_in_kmin_kmax = %.4f\n",
		nq ? (double)in_band / nq : 0.0);
	fprintf(fp, "marks = %llu\n", (unsigned long long)sum.marks);
	fprintf(fp, "cnps = %llu\n", (unsigned long long)cnps);
	fprintf(fp, "pauses = %llu\n", (unsigned long long)sum.pauses);
	fprintf(fp, "paused_fraction = %.4f\n",
		(double)paused / ((double)s->nflows * (double)s->now));
	fprintf(fp, "drops = %llu\n", (unsigned long long)sum.drops);
	for (i = 0; c->nports > 1 && i < (int)c->nports; i++)
		fprintf(fp, "port%d = marks %llu drops %llu sent_kb %llu\n", i,
			(unsigned long long)s->ports[i].marks,
			(unsigned long long)s->ports[i].drops,
			(unsigned long long)(s->ports[i].departed / 1000));
	fprintf(fp, "cc_starts = %llu\n", (unsigned long long)starts);
	fprintf(fp, "pace_waits = %llu\n", (unsigned long long)waits);
	if (s->ops->on_ack)
		fprintf(fp, "rtt_samples = %llu\n",
			(unsigned long long)samples);
	if (c->loss_ppm)
		fprintf(fp, "random_losses = %llu\n",
			(unsigned long long)sum.losses);
	if (c->gbn) {
		fprintf(fp, "retransmitted_kb = %llu\n",
			(unsigned long long)(retx / 1000));
		fprintf(fp, "timeouts = %llu\n", (unsigned long long)rtos);
		fprintf(fp, "naks = %llu\n", (unsigned long long)naks);
		if (c->recovery)
			fprintf(fp, "cnp_window_cuts = %llu\n",
				(unsigned long long)wcuts);
	}
	sim_convergence(s, fp, last);
	fprintf(fp, "events = %llu\n", (unsigned long long)s->events);
	free(q);
	return 0;
}
