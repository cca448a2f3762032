// SPDX-License-Identifier: GPL-2.0
/*
 * port.c - the switch egress port of ccsim: one FIFO served at the port
 * rate, a shared buffer (tail drop when full), RED/ECN marking on enqueue
 * and PFC per ingress port.  With [switch] ports = N there are N such
 * ports, each with its own FIFO, buffer and RED average and a receiver
 * behind it (a flow's dst), as N shaped qdiscs of a Linux bridge; they
 * share the configuration and the one random source.
 *
 * Optionally a random loss (loss_ppm) of packets that found room, for
 * losses that are not congestion.
 *
 * ECN (RED as in the DCQCN paper, on the instantaneous queue q in bytes):
 *   q <= Kmin: no mark;  Kmin < q <= Kmax: mark with Pmax (q-Kmin)/(Kmax-Kmin);
 *   q > Kmax: mark every packet.
 * PFC: each sender has its own ingress port; when the bytes it has queued
 * reach xoff the switch sends it an XOFF (it arrives one link delay later),
 * and an XON when they fall to xon.  A pause is one XOFF.  Packets are
 * store-and-forward: the port serialises the head packet, then hands it
 * to the receiver rx_delay later.  As it leaves, the packet gets the
 * port's INT stamp (for HPCC): the time, the bytes sent so far and the
 * bytes still queued.  Every XOFF and XON goes to pfc.csv
 * with the time the switch sent it.
 */
#include <stdlib.h>

#include "sim.h"

int sim_port_init(struct sim *s)
{
	u32 i;

	for (i = 0; i < s->cfg.nports; i++) {
		struct sim_port *p = &s->ports[i];

		memset(p, 0, sizeof(*p));
		p->cap = 4096;
		p->ring = malloc(p->cap * sizeof(*p->ring));
		if (!p->ring)
			return -1;
	}
	return 0;
}

void sim_port_free(struct sim *s)
{
	u32 i;

	for (i = 0; i < s->cfg.nports; i++) {
		free(s->ports[i].ring);
		s->ports[i].ring = NULL;
	}
}

static int sim_port_push(struct sim_port *p, struct sim_pkt pkt)
{
	if (p->n == p->cap) {
		struct sim_pkt *r = malloc(2 * p->cap * sizeof(*r));
		size_t i;

		if (!r)
			return -1;
		for (i = 0; i < p->n; i++)
			r[i] = p->ring[(p->head + i) % p->cap];
		free(p->ring);
		p->ring = r;
		p->head = 0;
		p->cap *= 2;
	}
	p->ring[(p->head + p->n) % p->cap] = pkt;
	p->n++;
	return 0;
}

/*
 * The queue RED compares with Kmin/Kmax: the instantaneous backlog, or
 * with red_wlog the average of Linux's red qdisc (tc's "burst" sets its
 * Wlog): avg += (backlog - avg) / 2^wlog at each arrival, kept scaled by
 * 2^wlog as Linux keeps it, and after an idle period decayed as if
 * mtu-sized packets of an empty queue had arrived in the meantime.
 */
static u64 sim_port_red_queue(struct sim *s, struct sim_port *p)
{
	u32 w = s->cfg.red_wlog;

	if (!w)
		return p->bytes;
	if (!p->n && p->qavg) {
		u64 m = (s->now - p->idle_since) /
			sim_tx_ps(s->cfg.mtu, s->cfg.port_rate);

		if (m >= 32ULL << w)
			p->qavg = 0;
		while (m-- && p->qavg >> w)
			p->qavg -= p->qavg >> w;
		if (!(p->qavg >> w))
			p->qavg = 0;
	}
	p->qavg += p->bytes - (p->qavg >> w);
	return p->qavg >> w;
}

/* RED: should a packet that finds @q bytes queued be marked? */
static bool sim_port_mark(struct sim *s, u64 q)
{
	const struct sim_config *c = &s->cfg;
	u64 prob;

	if (!c->ecn || q <= c->kmin)
		return false;
	if (q > c->kmax)
		return true;
	prob = (u64)c->pmax_ppm * (q - c->kmin) / (c->kmax - c->kmin);
	return sim_rand(s) % 1000000 < prob;
}

static void sim_port_start_tx(struct sim *s, u32 port)
{
	struct sim_port *p = &s->ports[port];
	struct sim_pkt *pkt = &p->ring[p->head];

	p->busy = true;
	sim_evq_push(&s->q, s->now + sim_tx_ps(pkt->bytes, s->cfg.port_rate),
		     SIM_EV_DEPART, pkt->flow, port);
}

void sim_port_arrive(struct sim *s, u32 flow, u32 bytes, u32 psn)
{
	struct sim_flow *f = &s->flows[flow];
	u32 port = f->cfg.dst;
	struct sim_port *p = &s->ports[port];
	struct sim_pkt pkt = { .flow = flow, .bytes = bytes, .psn = psn };
	u64 q = sim_port_red_queue(s, p);

	if (p->bytes + bytes > s->cfg.buffer) {
		p->drops++;
		f->drops++;
		return;
	}
	/* a loss that is not congestion (a bad link, a host dropping) */
	if (s->cfg.loss_ppm && sim_rand(s) % 1000000 < s->cfg.loss_ppm) {
		p->losses++;
		p->drops++;
		f->drops++;
		return;
	}
	pkt.ce = sim_port_mark(s, q);
	if (pkt.ce) {
		p->marks++;
		f->marks++;
	}
	if (sim_port_push(p, pkt)) {
		p->drops++;
		f->drops++;
		return;
	}
	p->bytes += bytes;
	f->ingress += bytes;
	if (s->cfg.pfc && !f->xoff && f->ingress >= s->cfg.xoff) {
		f->xoff = true;
		p->pauses++;
		f->pauses++;
		sim_out_pfc(s, flow, true);
		sim_evq_push(&s->q, s->now + f->cfg.delay, SIM_EV_PAUSE, flow,
			     1);
	}
	if (!p->busy)
		sim_port_start_tx(s, port);
}

void sim_port_depart(struct sim *s, u32 port)
{
	struct sim_port *p = &s->ports[port];
	struct sim_pkt pkt = p->ring[p->head];
	struct sim_flow *f = &s->flows[pkt.flow];

	p->head = (p->head + 1) % p->cap;
	p->n--;
	p->bytes -= pkt.bytes;
	p->departed += pkt.bytes;
	p->busy = false;
	/* INT, as an HPCC switch stamps it at egress */
	pkt.int_ts = s->now / SIM_PS_PER_NS;
	pkt.int_tx = p->departed;
	pkt.int_qlen = (u32)(p->bytes < U32_MAX ? p->bytes : U32_MAX);
	f->ingress -= pkt.bytes;
	if (f->xoff && f->ingress <= s->cfg.xon) {
		f->xoff = false;
		sim_out_pfc(s, pkt.flow, false);
		sim_evq_push(&s->q, s->now + f->cfg.delay, SIM_EV_PAUSE,
			     pkt.flow, 0);
	}
	sim_np_receive(s, &pkt, s->now);
	if (p->n)
		sim_port_start_tx(s, port);
	else
		p->idle_since = s->now;
}
