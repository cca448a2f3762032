// SPDX-License-Identifier: GPL-2.0
/*
 * switch.c - a port of ccsim's fabric: the switch side of a link.
 *
 * Store and forward: a packet that has arrived whole joins the FIFO of
 * the egress port its flow's path names, is serialised at that port's
 * rate and arrives whole at the peer the link delay later.  Data has one
 * priority, one FIFO per port: a paused port stops every flow behind it,
 * which is the head-of-line blocking PFC is known for.  ACKs and CNPs
 * have a FIFO of their own at every port, served first and never paused
 * (the highest priority, as in HPCC's ns-3 simulator); they take no
 * buffer, no mark and no INT, and wait only for the packet on the wire.
 *
 * Buffer: each switch has [switch] buffer_kb shared by its ports; a
 * packet that does not fit is dropped.  With PFC an ingress may further
 * hold at most xoff + headroom (pfc_headroom_kb, or per port what its
 * link carries in a round trip plus two packets: what the peer still
 * sends after the XOFF left), beyond which a packet is dropped too: a
 * headroom too small for the link loses packets even with PFC.
 *
 * ECN: RED on the egress queue an arriving packet finds (port.c's rule,
 * same kmin/kmax/pmax at every port).  INT: as a packet leaves a switch
 * port it gets that port's record (time, bytes sent, queue left behind),
 * up to SROCE_CC_INT_MAX_HOPS of them, for HPCC.
 *
 * PFC (802.1Qbb, one priority): when the bytes buffered that came in by a
 * port reach xoff, that port sends an XOFF to its peer, which stops
 * after the packet it is sending; at xon it sends an XON.  The peer's
 * queue then grows instead, and if it is a switch, its ingresses reach
 * xoff in turn: pause spreads hop by hop towards the senders.
 */
#include <stdlib.h>

#include "fabric.h"

static int fab_fifo_push(struct fab_fifo *q, u32 pkt)
{
	if (q->n == q->cap) {
		u32 cap = q->cap ? 2 * q->cap : 64, i;
		u32 *r = malloc(cap * sizeof(*r));

		if (!r)
			return -1;
		for (i = 0; i < q->n; i++)
			r[i] = q->ring[(q->head + i) % q->cap];
		free(q->ring);
		q->ring = r;
		q->head = 0;
		q->cap = cap;
	}
	q->ring[(q->head + q->n) % q->cap] = pkt;
	q->n++;
	return 0;
}

static u32 fab_fifo_pop(struct fab_fifo *q)
{
	u32 pkt = q->ring[q->head];

	q->head = (q->head + 1) % q->cap;
	q->n--;
	return pkt;
}

static u64 fab_headroom(const struct fab *fb, const struct fab_port *p)
{
	const struct sim_config *c = &fb->s->cfg;

	if (c->topo.headroom)
		return c->topo.headroom;
	return 2 * p->delay / 1000 * p->rate / 8000000 + 2 * c->mtu;
}

static bool fab_red(struct fab *fb, u64 q)
{
	const struct sim_config *c = &fb->s->cfg;
	u64 prob;

	if (!c->ecn || q <= c->kmin)
		return false;
	if (q > c->kmax)
		return true;
	prob = (u64)c->pmax_ppm * (q - c->kmin) / (c->kmax - c->kmin);
	return fab_rand(&fb->rng) % 1000000 < prob;
}

static void fab_pfc_log(struct fab *fb, u32 port, bool xoff)
{
	char name[16];

	if (!fb->pfc_csv)
		return;
	fab_node_name(fb, fb->ports[port].node, name, sizeof(name));
	fprintf(fb->pfc_csv, "%llu,%s,%u,%s,%.3f\n",
		(unsigned long long)(fb->s->now / SIM_PS_PER_NS), name, port,
		xoff ? "xoff" : "xon", fb->ports[port].ingress / 1000.0);
}

static void fab_port_tx(struct fab *fb, u32 port, u32 pkt)
{
	struct fab_port *p = &fb->ports[port];

	p->busy = true;
	p->cur = pkt;
	sim_evq_push(&fb->s->q,
		     fb->s->now + sim_tx_ps(fb->pkts[pkt].bytes, p->rate),
		     FAB_EV_DEPART, port, 0);
}

/*
 * An idle port sends its next packet: an ACK or CNP if it has one, else
 * data unless paused (a host's NIC picks its data itself).
 */
void fab_port_kick(struct fab *fb, u32 port)
{
	struct fab_port *p = &fb->ports[port];

	if (p->busy)
		return;
	if (p->ctl.n)
		fab_port_tx(fb, port, fab_fifo_pop(&p->ctl));
	else if (fb->nodes[p->node].kind == FAB_HOST)
		fab_nic_send(fb, p->node);
	else if (p->q.n && !p->paused)
		fab_port_tx(fb, port, fab_fifo_pop(&p->q));
}

/* A host's NIC puts data packet @pkt on its idle, unpaused link. */
void fab_port_send(struct fab *fb, u32 port, u32 pkt)
{
	fb->ports[port].bytes += fb->pkts[pkt].bytes;
	fab_port_tx(fb, port, pkt);
}

/* An ACK or CNP joins @port's control FIFO. */
int fab_ctl_send(struct fab *fb, u32 port, u32 pkt)
{
	if (fab_fifo_push(&fb->ports[port].ctl, pkt))
		return -1;
	fab_port_kick(fb, port);
	return 0;
}

static void fab_drop(struct fab *fb, struct fab_port *out, u32 pkt)
{
	out->drops++;
	fb->nodes[out->node].drops++;
	fb->drops++;
	fab_pkt_free(fb, pkt);
}

static void fab_switch_ctl(struct fab *fb, u32 pkt)
{
	struct fab_pkt *k = &fb->pkts[pkt];

	k->hop++;
	if (fab_ctl_send(fb, fab_back_port(fb, &fb->flows[k->flow], k->hop),
			 pkt))
		fab_pkt_free(fb, pkt); /* out of memory: lost */
}

void fab_switch_arrive(struct fab *fb, u32 port, u32 pkt)
{
	const struct sim_config *c = &fb->s->cfg;
	struct fab_pkt *k = &fb->pkts[pkt];
	struct fab_port *in = &fb->ports[port];
	struct fab_node *nd = &fb->nodes[in->node];
	struct fab_port *out;
	u32 o;

	if (k->kind != FAB_DATA) {
		fab_switch_ctl(fb, pkt);
		return;
	}
	k->hop++;
	o = fb->flows[k->flow].path[k->hop];
	out = &fb->ports[o];
	if (nd->bytes + k->bytes > c->buffer ||
	    (c->pfc &&
	     in->ingress + k->bytes > c->xoff + fab_headroom(fb, in)) ||
	    fab_fifo_push(&out->q, pkt)) {
		fab_drop(fb, out, pkt);
		return;
	}
	if (fab_red(fb, out->bytes)) {
		k->ce = 1;
		out->marks++;
		fb->marks++;
	}
	k->in = port;
	out->bytes += k->bytes;
	if (out->bytes > out->qmax)
		out->qmax = out->bytes;
	nd->bytes += k->bytes;
	in->ingress += k->bytes;
	if (c->pfc && !in->xoff && in->ingress >= c->xoff) {
		in->xoff = true;
		in->xoffs_sent++;
		fb->xoffs++;
		fab_pfc_log(fb, port, true);
		sim_evq_push(&fb->s->q, fb->s->now + in->delay, FAB_EV_PAUSE,
			     in->peer, 1);
	}
	fab_port_kick(fb, o);
}

/* A switch port's packet left: stamp INT, free its buffer, maybe XON. */
static void fab_switch_leave(struct fab *fb, struct fab_port *p, u32 port,
			     struct fab_pkt *k)
{
	struct fab_port *in = &fb->ports[k->in];

	if (k->nint < SROCE_CC_INT_MAX_HOPS)
		k->rec[k->nint++] = (struct fab_int){
			.port = port,
			.qlen = (u32)(p->bytes < U32_MAX ? p->bytes : U32_MAX),
			.ts = fb->s->now / SIM_PS_PER_NS,
			.tx = p->tx_bytes,
		};
	fb->nodes[p->node].bytes -= k->bytes;
	in->ingress -= k->bytes;
	if (in->xoff && in->ingress <= fb->s->cfg.xon) {
		in->xoff = false;
		fab_pfc_log(fb, k->in, false);
		sim_evq_push(&fb->s->q, fb->s->now + in->delay, FAB_EV_PAUSE,
			     in->peer, 0);
	}
}

void fab_port_depart(struct fab *fb, u32 port)
{
	struct fab_port *p = &fb->ports[port];
	u32 pkt = p->cur;
	struct fab_pkt *k = &fb->pkts[pkt];

	p->busy = false;
	if (k->kind == FAB_DATA) {
		p->bytes -= k->bytes;
		p->tx_bytes += k->bytes;
		p->last_tx = fb->s->now;
		if (fb->nodes[p->node].kind != FAB_HOST)
			fab_switch_leave(fb, p, port, k);
	}
	sim_evq_push(&fb->s->q, fb->s->now + p->delay, FAB_EV_ARRIVE, p->peer,
		     pkt);
	fab_port_kick(fb, port);
}

void fab_port_pause(struct fab *fb, u32 port, bool on)
{
	struct fab_port *p = &fb->ports[port];

	if (on && !p->paused) {
		p->paused = true;
		p->paused_since = fb->s->now;
		p->xoffs_rcvd++;
	} else if (!on && p->paused) {
		p->paused = false;
		p->paused_time += fb->s->now - p->paused_since;
		fab_port_kick(fb, port);
	}
}
