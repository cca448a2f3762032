// SPDX-License-Identifier: GPL-2.0
/*
 * fab_scenario.c - the scenario keys of the fabric mode (fabric.h).
 *
 *   [topo]      leaves, spines, hosts_per_leaf (a leaf-spine; any key of
 *               the section turns the fabric on), host_rate_gbps,
 *               core_rate_gbps (leaf-spine links), host_delay_us,
 *               core_delay_us (one way, per link)
 *   [workload]  cdf (a file: "websearch" or "fb_hadoop" name one of
 *               tools/ccsim/cdf/, a path is relative to the scenario),
 *               load (offered load per host, fraction of its link),
 *               start_ms, stop_ms (Poisson arrivals in between; stop 0 =
 *               the whole run), incast_start_ms, incast_interval_us (0 =
 *               no incast), incast_fanin, incast_size_kb, incast_dst (a
 *               host; -1 = a random one per burst)
 *   [switch]    pfc_headroom_kb (in scenario.c: 0 = per port, what the
 *               link holds in a round trip and two packets)
 *   [flow]      src, dst (hosts), src_step (with count: each copy's
 *               src this much above the one before), via (switch names between them, e.g.
 *               "L0 S1 L1 S0 L0"; default ECMP), start_ms, stop_ms,
 *               size_kb, count, stagger_us as in the single mode
 */
#include <stdlib.h>

#include "fabric.h"

bool fab_enabled(const struct sim_config *c)
{
	return c->topo.leaves > 0;
}

static int fab_num(const char *val, double *out, double max)
{
	char *end;

	*out = strtod(val, &end);
	return end == val || *end || !(*out >= 0 && *out <= max) ? -1 : 0;
}

static u64 fab_round(double v)
{
	return (u64)(v + 0.5);
}

int fab_set_topo(struct sim_config *c, const char *key, const char *val)
{
	struct sim_topo_cfg *t = &c->topo;
	double v;

	if (fab_num(val, &v, 1e6))
		return -1;
	if (!t->leaves)
		t->leaves = 2;
	if (!strcmp(key, "leaves") && v >= 1 && v <= 64)
		t->leaves = (u32)v;
	else if (!strcmp(key, "spines") && v >= 1 && v <= 64)
		t->spines = (u32)v;
	else if (!strcmp(key, "hosts_per_leaf") && v >= 1 && v <= 256)
		t->hosts_per_leaf = (u32)v;
	else if (!strcmp(key, "host_rate_gbps") && v > 0 && v <= 1000)
		t->host_rate = fab_round(v * 1000000);
	else if (!strcmp(key, "core_rate_gbps") && v > 0 && v <= 1000)
		t->core_rate = fab_round(v * 1000000);
	else if (!strcmp(key, "host_delay_us"))
		t->host_delay = fab_round(v * SIM_PS_PER_US);
	else if (!strcmp(key, "core_delay_us"))
		t->core_delay = fab_round(v * SIM_PS_PER_US);
	else
		return -1;
	return 0;
}

int fab_set_workload(struct sim_config *c, const char *key, const char *val)
{
	struct sim_wl_cfg *w = &c->wl;
	double v;

	if (!strcmp(key, "cdf")) {
		if (strlen(val) >= sizeof(w->cdf))
			return -1;
		strcpy(w->cdf, val);
		return 0;
	}
	if (!strcmp(key, "incast_dst") && !strcmp(val, "-1")) {
		w->incast_dst = U32_MAX;
		return 0;
	}
	if (fab_num(val, &v, 1e9))
		return -1;
	if (!strcmp(key, "load") && v <= 1)
		w->load_ppm = (u32)fab_round(v * 1000000);
	else if (!strcmp(key, "start_ms"))
		w->start = fab_round(v * SIM_PS_PER_MS);
	else if (!strcmp(key, "stop_ms"))
		w->stop = fab_round(v * SIM_PS_PER_MS);
	else if (!strcmp(key, "incast_start_ms"))
		w->incast_start = fab_round(v * SIM_PS_PER_MS);
	else if (!strcmp(key, "incast_interval_us"))
		w->incast_interval = fab_round(v * SIM_PS_PER_US);
	else if (!strcmp(key, "incast_fanin") && v >= 1)
		w->incast_fanin = (u32)v;
	else if (!strcmp(key, "incast_size_kb") && v > 0)
		w->incast_size = fab_round(v * 1000);
	else if (!strcmp(key, "incast_dst"))
		w->incast_dst = (u32)v;
	else
		return -1;
	return 0;
}

/* Checks after the overrides: 0, or -1 with a message. */
int fab_config_finish(struct sim_config *c)
{
	struct sim_topo_cfg *t = &c->topo;
	u32 hosts = t->leaves * t->hosts_per_leaf;
	int i;

	if (c->red_wlog || c->loss_ppm) {
		fprintf(stderr,
			"scenario: the fabric has no red_wlog or loss\n");
		return -1;
	}
	if (!c->wl.stop || c->wl.stop > c->duration)
		c->wl.stop = c->duration;
	if (c->wl.incast_fanin >= hosts ||
	    (c->wl.incast_dst != U32_MAX && c->wl.incast_dst >= hosts)) {
		fprintf(stderr, "scenario: incast needs fanin < hosts (%u)\n",
			hosts);
		return -1;
	}
	for (i = 0; i < c->nflows; i++) {
		if (c->flows[i].src >= hosts || c->flows[i].dst >= hosts ||
		    c->flows[i].src == c->flows[i].dst) {
			fprintf(stderr,
				"scenario: flow %d: src and dst must be two of the %u hosts\n",
				i, hosts);
			return -1;
		}
	}
	if (!c->nflows && !c->wl.cdf[0] && !c->wl.incast_interval) {
		fprintf(stderr, "scenario: the fabric needs flows\n");
		return -1;
	}
	return 0;
}
