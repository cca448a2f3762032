// SPDX-License-Identifier: GPL-2.0
/*
 * topo.c - the leaf-spine of ccsim's fabric mode: nodes, ports, links,
 * and each flow's path.
 *
 *   S0 .. S(s-1)          every spine has a link to every leaf
 *   L0 .. L(k-1)          (core_rate_gbps, core_delay_us)
 *   h0 .. h(k*hpl-1)      host h hangs off leaf h / hosts_per_leaf
 *                         (host_rate_gbps, host_delay_us)
 *
 * Node ids: hosts first, then leaves, then spines; port ids: host h has
 * port h, then each leaf's down ports (to its hosts) and up ports (to
 * spine 0, 1, ...), then each spine's down ports (to leaf 0, 1, ...).
 *
 * A flow's path is the list of egress ports its packets leave by, the
 * sender's NIC first, fixed when the flow is added: within a leaf,
 * straight down; across leaves up to the spine a hash of the flow picks
 * (ECMP: the hash stands for the 5-tuple's, the flow's index for its
 * source port), then down.  A flow's via list replaces that with a walk
 * through the named switches (each a neighbour of the one before), which
 * is how a scenario builds paths no routing table of a healthy
 * leaf-spine would: the bounce through a second spine that a failed
 * link's rerouting makes, and the cycle of buffers it closes.
 */
#include <stdlib.h>

#include "fabric.h"

static void fab_link(struct fab *fb, u32 a, u32 b, u64 rate, u64 delay)
{
	struct fab_port *pa = &fb->ports[a], *pb = &fb->ports[b];

	pa->peer = b;
	pb->peer = a;
	pa->rate = rate;
	pb->rate = rate;
	pa->delay = delay;
	pb->delay = delay;
}

static void fab_node_set(struct fab *fb, u32 id, u8 kind, u32 index, u32 port0,
			 u32 nports)
{
	struct fab_node *n = &fb->nodes[id];
	u32 i;

	n->kind = kind;
	n->index = index;
	n->port0 = port0;
	n->nports = nports;
	for (i = 0; i < nports; i++)
		fb->ports[port0 + i].node = id;
}

int fab_topo_init(struct fab *fb)
{
	const struct sim_topo_cfg *t = &fb->s->cfg.topo;
	u32 k = t->leaves, s = t->spines, hpl = t->hosts_per_leaf;
	u32 leaf0, spine0, l, j, h;

	fb->nhosts = k * hpl;
	fb->nnodes = fb->nhosts + k + s;
	fb->nports = fb->nhosts + k * (hpl + s) + s * k;
	fb->nodes = calloc(fb->nnodes, sizeof(*fb->nodes));
	fb->ports = calloc(fb->nports, sizeof(*fb->ports));
	fb->nics = calloc(fb->nhosts, sizeof(*fb->nics));
	if (!fb->nodes || !fb->ports || !fb->nics)
		return -1;
	leaf0 = fb->nhosts;
	spine0 = leaf0 + k * (hpl + s);
	for (h = 0; h < fb->nhosts; h++)
		fab_node_set(fb, h, FAB_HOST, h, h, 1);
	for (l = 0; l < k; l++)
		fab_node_set(fb, fb->nhosts + l, FAB_LEAF, l,
			     leaf0 + l * (hpl + s), hpl + s);
	for (j = 0; j < s; j++)
		fab_node_set(fb, fb->nhosts + k + j, FAB_SPINE, j,
			     spine0 + j * k, k);
	for (h = 0; h < fb->nhosts; h++)
		fab_link(fb, h, leaf0 + (h / hpl) * (hpl + s) + h % hpl,
			 t->host_rate, t->host_delay);
	for (l = 0; l < k; l++)
		for (j = 0; j < s; j++)
			fab_link(fb, leaf0 + l * (hpl + s) + hpl + j,
				 spine0 + j * k + l, t->core_rate,
				 t->core_delay);
	return 0;
}

void fab_topo_free(struct fab *fb)
{
	u32 i;

	for (i = 0; fb->ports && i < fb->nports; i++) {
		free(fb->ports[i].q.ring);
		free(fb->ports[i].ctl.ring);
	}
	for (i = 0; fb->nics && i < fb->nhosts; i++)
		free(fb->nics[i].act);
	free(fb->nodes);
	free(fb->ports);
	free(fb->nics);
}

void fab_node_name(const struct fab *fb, u32 node, char *buf, size_t len)
{
	const struct fab_node *n = &fb->nodes[node];
	static const char prefix[] = { 'h', 'L', 'S' };

	snprintf(buf, len, "%c%u", prefix[n->kind], n->index);
}

/* The node called @name, or U32_MAX. */
static u32 fab_node_find(const struct fab *fb, const char *name)
{
	char buf[16];
	u32 i;

	for (i = 0; i < fb->nnodes; i++) {
		fab_node_name(fb, i, buf, sizeof(buf));
		if (!strcmp(buf, name))
			return i;
	}
	return U32_MAX;
}

/* The port of node @a whose link goes to node @b, or U32_MAX. */
static u32 fab_port_to(const struct fab *fb, u32 a, u32 b)
{
	const struct fab_node *n = &fb->nodes[a];
	u32 i;

	for (i = n->port0; i < n->port0 + n->nports; i++)
		if (fb->ports[fb->ports[i].peer].node == b)
			return i;
	return U32_MAX;
}

/* The ECMP hash of flow @i: splitmix64 of the seed and the flow. */
static u64 fab_ecmp_hash(const struct fab *fb, u32 i)
{
	u64 st = fb->s->cfg.seed * 0x100000001b3ULL + i;

	return fab_rand(&st);
}

/* The switches between src and dst, into @hop; their number or -1. */
static int fab_hops(struct fab *fb, u32 i, const char *via, u32 *hop)
{
	const struct fab_flow *f = &fb->flows[i];
	const struct sim_topo_cfg *t = &fb->s->cfg.topo;
	u32 ls = f->src / t->hosts_per_leaf, ld = f->dst / t->hosts_per_leaf;
	char buf[64], *tok, *save;
	int n = 0;

	if (!via || !*via) {
		hop[n++] = fb->nhosts + ls;
		if (ls == ld)
			return n;
		hop[n++] = fb->nhosts + t->leaves +
			   (u32)(fab_ecmp_hash(fb, i) % t->spines);
		hop[n++] = fb->nhosts + ld;
		return n;
	}
	snprintf(buf, sizeof(buf), "%s", via);
	for (tok = strtok_r(buf, " ,", &save); tok;
	     tok = strtok_r(NULL, " ,", &save)) {
		if (n == FAB_MAX_PATH - 1)
			return -1;
		hop[n] = fab_node_find(fb, tok);
		if (hop[n] == U32_MAX || hop[n] < fb->nhosts)
			return -1;
		n++;
	}
	return n;
}

int fab_route(struct fab *fb, u32 i, const char *via)
{
	struct fab_flow *f = &fb->flows[i];
	u32 hop[FAB_MAX_PATH], at = f->src;
	int n = fab_hops(fb, i, via, hop), k;

	if (n < 1)
		goto bad;
	hop[n++] = f->dst;
	f->npath = 0;
	f->back = 0;
	for (k = 0; k < n; k++) {
		u32 p = fab_port_to(fb, at, hop[k]);

		if (p == U32_MAX)
			goto bad;
		f->path[f->npath++] = p;
		/* an ACK's way back on the idle fabric (fct.c's ideal) */
		f->back += fb->ports[p].delay +
			   sim_tx_ps(FAB_ACK_BYTES, fb->ports[p].rate);
		at = hop[k];
	}
	f->ideal = fab_ideal_fct(fb, f);
	return 0;
bad:
	fprintf(stderr, "ccsim: flow %u: no path h%u -> h%u via \"%s\"\n", i,
		f->src, f->dst, via ? via : "");
	return -1;
}
