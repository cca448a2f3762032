// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - ccsim's command line and event loop.
 *
 *   ccsim [-o DIR] [-D section.key=value]... [-q] SCENARIO
 *
 * Runs SCENARIO (see scenario.c) for its duration, writes rate.csv,
 * tput.csv, queue.csv, flows.csv, pfc.csv and summary.txt into DIR (if
 * given) and prints the summary on stdout (unless -q); a scenario with a
 * [topo] section runs on a leaf-spine fabric instead, with outputs of
 * its own (fabric.c).  The speed of the run (simulated seconds per
 * wall-clock and per CPU second) goes to stderr: it is the only output
 * that differs between two runs of the same scenario and seed.
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "fabric.h"

static void sim_usage(void)
{
	fprintf(stderr,
		"usage: ccsim [-o DIR] [-D section.key=value]... [-q] SCENARIO\n");
	exit(2);
}

static void sim_dispatch(struct sim *s, const struct sim_event *ev)
{
	switch (ev->kind) {
	case SIM_EV_START:
		sim_flow_start(s, ev->flow);
		break;
	case SIM_EV_STOP:
		sim_flow_stop(s, ev->flow);
		break;
	case SIM_EV_SEND:
		sim_flow_send(s, ev->flow);
		break;
	case SIM_EV_ARRIVE:
		sim_port_arrive(s, ev->flow, (u32)ev->data,
				(u32)(ev->data >> 32));
		break;
	case SIM_EV_DEPART:
		sim_port_depart(s, (u32)ev->data);
		break;
	case SIM_EV_CNP:
		sim_flow_cnp(s, ev->flow);
		break;
	case SIM_EV_PAUSE:
		sim_flow_pause(s, ev->flow, ev->data);
		break;
	case SIM_EV_ACK:
		if (s->cfg.gbn)
			sim_rc_ack(s, ev->flow, (u32)ev->data);
		else
			sim_flow_ack(s, ev->flow, (u32)ev->data);
		break;
	case SIM_EV_NAK:
		sim_rc_nak(s, ev->flow, (u32)ev->data);
		break;
	case SIM_EV_RTO:
		sim_rc_timeout(s, ev->flow);
		break;
	case SIM_EV_INT:
		sim_flow_int(s, ev->flow);
		break;
	case SIM_EV_NIC:
		sim_nic_free(s, ev->flow);
		break;
	case SIM_EV_SAMPLE:
		sim_out_sample(s);
		sim_evq_push(&s->q, s->now + s->cfg.sample, SIM_EV_SAMPLE, 0,
			     0);
		break;
	}
}

static int sim_run(struct sim *s, const char *dir)
{
	struct sim_event ev;

	s->ops = sim_cc_ops(s->cfg.algo);
	s->rng = s->cfg.seed;
	if (sim_evq_init(&s->q) || sim_port_init(s) || sim_flows_init(s) ||
	    sim_out_open(s, dir))
		return -1;
	sim_evq_push(&s->q, s->cfg.sample, SIM_EV_SAMPLE, 0, 0);
	while (sim_evq_pop(&s->q, &ev)) {
		if (ev.t > s->cfg.duration)
			break;
		s->now = ev.t;
		s->events++;
		sim_dispatch(s, &ev);
	}
	s->now = s->cfg.duration;
	return 0;
}

static double sim_clock(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static struct sim s;
	const char *dir = NULL, *ov[64];
	bool quiet = false;
	int nov = 0, i;
	double t0, c0, wall, cpu;
	int opt, rc = 0;

	sim_config_default(&s.cfg);
	while ((opt = getopt(argc, argv, "o:D:q")) != -1) {
		switch (opt) {
		case 'o':
			dir = optarg;
			break;
		case 'D':
			/* applied on top of the file, in order */
			if (nov == ARRAY_SIZE(ov))
				sim_usage();
			ov[nov++] = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		default:
			sim_usage();
		}
	}
	if (optind != argc - 1)
		sim_usage();
	if (sim_config_load(&s.cfg, argv[optind]))
		return 1;
	for (i = 0; i < nov; i++)
		if (sim_config_override(&s.cfg, ov[i]))
			return 1;
	if (sim_config_finish(&s.cfg))
		return 1;
	if (fab_enabled(&s.cfg))
		return fab_main(&s, dir, quiet);
	t0 = sim_clock(CLOCK_MONOTONIC);
	c0 = sim_clock(CLOCK_PROCESS_CPUTIME_ID);
	if (sim_run(&s, dir)) {
		fprintf(stderr, "ccsim: out of memory or cannot write %s\n",
			dir ? dir : "");
		return 1;
	}
	wall = sim_clock(CLOCK_MONOTONIC) - t0;
	cpu = sim_clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
	if (!quiet)
		sim_out_summary(&s, stdout);
	if (dir) {
		char path[512];
		FILE *fp;

		snprintf(path, sizeof(path), "%s/summary.txt", dir);
		fp = fopen(path, "w");
		if (!fp || sim_out_summary(&s, fp))
			rc = 1;
		if (fp)
			fclose(fp);
	}
	/* CPU time too: on a shared machine the wall clock says little */
	fprintf(stderr,
		"ccsim: %s: %.3f simulated s in %.3f wall s, %.3f cpu s (%.2f sim-s/wall-s, %.2f sim-s/cpu-s, %llu events)\n",
		s.cfg.name, s.cfg.duration / 1e12, wall, cpu,
		wall > 0 ? s.cfg.duration / 1e12 / wall : 0.0,
		cpu > 0 ? s.cfg.duration / 1e12 / cpu : 0.0,
		(unsigned long long)s.events);
	sim_out_close(&s);
	sim_evq_free(&s.q);
	sim_port_free(&s);
	sim_flows_free(&s);
	return rc;
}
