// SPDX-License-Identifier: GPL-2.0
/*
 * nic.c - the hosts of ccsim's fabric: each is a sender (the reaction
 * point of kernel/proto for each of its flows) and a receiver (the
 * notification point and the ACKs).
 *
 * Sender.  A host's NIC serves the flows it has data for round robin, one
 * mtu-sized packet at a time at its link rate, and not while its link is
 * paused.  Per flow it makes the calls kernel/cc.c makes (as flow.c does
 * on the single bottleneck): init at the flow's start, while the
 * algorithm is active sroce_cc_pace_check() before a packet (a flow held
 * back is skipped; if all are, the NIC looks again at the earliest time
 * one of them gave) and sroce_cc_pace_packet() after it, sroce_cc_cnp()
 * per CNP, sroce_cc_ack() once per round trip for an algorithm with
 * on_ack (timely), as kernel/cc.c does: one packet at a time is the
 * probe, and the ACK that covers it gives the RTT sample (from the time
 * the probe began to leave), sroce_cc_telemetry() per ACK with the INT
 * records of every switch port the packet left (hpcc).
 *
 * Receiver.  The notification point sends a CNP for a CE-marked packet
 * unless one went out for the flow less than min_time_between_cnps ago
 * (sroce_cc_np_may_send()).  Every packet is acknowledged for an
 * algorithm with on_int, otherwise the probes and a flow's last.
 * ACKs and CNPs (64 bytes) go back the same links at the highest
 * priority, never paused (switch.c): each waits at most for the packet
 * on the wire at every hop, the receiver's NIC included.  A flow
 * completes when the ACK of its last byte reaches its sender: its FCT,
 * as HPCC's ns-3 simulator measures it.
 */
#include <stdlib.h>

#include "fabric.h"

u32 fab_pkt_alloc(struct fab *fb)
{
	u32 i = fb->free_pkt;

	if (i != U32_MAX) {
		fb->free_pkt = fb->pkts[i].next_free;
	} else {
		if (fb->npkts == fb->pkts_cap) {
			u32 cap = fb->pkts_cap ? 2 * fb->pkts_cap : 1024;
			struct fab_pkt *p = realloc(fb->pkts, cap * sizeof(*p));

			if (!p)
				return U32_MAX;
			fb->pkts = p;
			fb->pkts_cap = cap;
		}
		i = fb->npkts++;
	}
	fb->pkts[i].kind = FAB_DATA;
	fb->pkts[i].hop = 0;
	fb->pkts[i].ce = 0;
	fb->pkts[i].probe = 0;
	fb->pkts[i].nint = 0;
	return i;
}

void fab_pkt_free(struct fab *fb, u32 pkt)
{
	fb->pkts[pkt].next_free = fb->free_pkt;
	fb->free_pkt = pkt;
}

/* @bytes of @f reached its receiver (gbn: in order) now. */
void fab_flow_rcvd(struct fab *fb, struct fab_flow *f, u32 bytes)
{
	const struct sim *s = fb->s;

	f->rcvd += bytes;
	if (s->now > s->cfg.measure_start && s->now <= s->cfg.measure_end)
		f->win_rcvd += bytes;
}

static int fab_nic_add(struct fab_nic *n, u32 i)
{
	if (n->nact == n->cap) {
		u32 cap = n->cap ? 2 * n->cap : 16;
		u32 *a = realloc(n->act, cap * sizeof(*a));

		if (!a)
			return -1;
		n->act = a;
		n->cap = cap;
	}
	n->act[n->nact++] = i;
	return 0;
}

void fab_flow_start(struct fab *fb, u32 i)
{
	struct fab_flow *f = &fb->flows[i];

	f->started = true;
	if (fb->s->cfg.gbn)
		fab_rc_init(fb, f);
	fb->s->ops->init(&f->cc, &fb->params, fb->s->now / SIM_PS_PER_NS);
	f->edt = 0;
	if (fab_nic_add(&fb->nics[f->src], i))
		return; /* out of memory: the flow never sends */
	f->active = true;
	fab_nic_send(fb, f->src);
}

/* Has flow @f sent all it will? */
static bool fab_flow_sent_all(const struct fab *fb, const struct fab_flow *f)
{
	if (f->stop && fb->s->now >= f->stop)
		return true;
	if (fb->s->cfg.gbn)
		return !fab_rc_has_data(f);
	return f->size && f->sent >= f->size;
}

/* Flow @i sends its next packet; false if out of memory. */
static bool fab_nic_emit(struct fab *fb, u32 i)
{
	struct sim *s = fb->s;
	struct fab_flow *f = &fb->flows[i];
	u64 left = f->size ? f->size - f->sent : s->cfg.mtu;
	u32 bytes = left < s->cfg.mtu ? (u32)left : s->cfg.mtu;
	u32 psn = (u32)(f->sent / s->cfg.mtu);
	u32 pkt = fab_pkt_alloc(fb);
	u64 end = f->sent + bytes; /* the stream offset after it */
	struct fab_pkt *k;

	if (pkt == U32_MAX)
		return false;
	if (s->cfg.gbn) {
		psn = fab_rc_next(fb, f, &bytes);
		end = fab_rc_seq(fb, f, psn) + bytes;
		/* Karn, as kernel/cc.c: a resend up to the probe voids it */
		if (psn < f->snd_max && f->probe_out && end <= f->probe_end)
			f->probe_out = false;
	}
	if (f->cc.active)
		sroce_cc_pace_packet(s->ops, &f->cc, &fb->params, &f->edt,
				     s->now / SIM_PS_PER_NS, bytes,
				     s->cfg.pace_burst);
	k = &fb->pkts[pkt];
	k->flow = i;
	k->bytes = bytes;
	k->psn = psn;
	k->sent = s->now;
	f->sent += bytes;
	if (s->cfg.gbn)
		fab_rc_sent(fb, i, psn, bytes);
	if (s->ops->on_ack && !f->probe_out) {
		/* kernel/cc.c: one probe at a time, one RTT sample each */
		k->probe = 1;
		f->probe_out = true;
		f->probe_end = end;
		f->probe_ts = s->now;
	}
	fab_port_send(fb, f->src, pkt);
	return true;
}

/* Take the flow at act[@idx] off its NIC's list. */
static void fab_nic_remove(struct fab *fb, struct fab_nic *n, u32 idx)
{
	fb->flows[n->act[idx]].active = false;
	memmove(&n->act[idx], &n->act[idx + 1],
		(n->nact - idx - 1) * sizeof(*n->act));
	n->nact--;
	n->rr = n->nact ? idx % n->nact : 0;
}

/* sroce_cc_pace_check(): 0 = @f may send now, else when to look again */
static u64 fab_pace_wait(struct fab *fb, struct fab_flow *f, u64 ns)
{
	return sroce_cc_pace_check(fb->s->ops, &f->cc, &fb->params, &f->edt,
				   ns);
}

void fab_nic_send(struct fab *fb, u32 host)
{
	struct sim *s = fb->s;
	struct fab_nic *n = &fb->nics[host];
	struct fab_port *p = &fb->ports[host];
	u64 ns = s->now / SIM_PS_PER_NS, best = U64_MAX, t;
	u32 k, idx;

	if (p->busy || p->paused)
		return;
	for (k = 0; k < n->nact; k++) {
		struct fab_flow *f;

		idx = (n->rr + k) % n->nact;
		f = &fb->flows[n->act[idx]];
		if (fab_flow_sent_all(fb, f)) {
			/* a stopped flow: look at the one that moved here */
			fab_nic_remove(fb, n, idx);
			fab_nic_send(fb, host);
			return;
		}
		if (f->cc.active) {
			u64 wake = fab_pace_wait(fb, f, ns);

			if (wake) {
				if (wake < best)
					best = wake;
				continue;
			}
		}
		if (!fab_nic_emit(fb, n->act[idx]))
			return;
		if (fab_flow_sent_all(fb, f))
			fab_nic_remove(fb, n, idx);
		else
			n->rr = (idx + 1) % n->nact;
		return;
	}
	if (best == U64_MAX)
		return;
	t = best * SIM_PS_PER_NS;
	if (t < s->now)
		t = s->now;
	if (!n->wake_at || t < n->wake_at) {
		n->wake_at = t;
		sim_evq_push(&s->q, t, FAB_EV_NIC, host, 0);
	}
}

/* A pacing wait the NIC queued is over (or a later one superseded). */
void fab_nic_wake(struct fab *fb, u32 host)
{
	struct fab_nic *n = &fb->nics[host];

	if (n->wake_at == fb->s->now)
		n->wake_at = 0;
	fab_nic_send(fb, host);
}

/* Send a CNP for flow @i back from its receiver @port. */
static void fab_np_cnp(struct fab *fb, u32 port, u32 i)
{
	u32 pkt = fab_pkt_alloc(fb);
	struct fab_pkt *k;

	if (pkt == U32_MAX)
		return;
	k = &fb->pkts[pkt];
	k->kind = FAB_CNP;
	k->flow = i;
	k->bytes = FAB_ACK_BYTES;
	if (fab_ctl_send(fb, port, pkt))
		fab_pkt_free(fb, pkt);
}

void fab_reply(struct fab *fb, u32 port, u32 pkt, u8 kind, u64 ack_seq)
{
	struct fab_pkt *k = &fb->pkts[pkt];

	/* the packet turns into its ACK, INT records and all */
	k->kind = kind;
	k->ack_seq = ack_seq;
	k->bytes = FAB_ACK_BYTES;
	k->hop = 0;
	if (fab_ctl_send(fb, port, pkt))
		fab_pkt_free(fb, pkt);
}

static void fab_data_receive(struct fab *fb, u32 port, u32 pkt)
{
	struct sim *s = fb->s;
	struct fab_pkt *k = &fb->pkts[pkt];
	u32 i = k->flow;
	struct fab_flow *f = &fb->flows[i];
	u64 ns = s->now / SIM_PS_PER_NS;
	bool last, ce = k->ce;

	if (s->cfg.gbn) {
		fab_rc_receive(fb, port, pkt);
		goto np;
	}
	fab_flow_rcvd(fb, f, k->bytes);
	last = f->size && f->rcvd >= f->size;
	if (s->ops->on_int || k->probe || last)
		fab_reply(fb, port, pkt, FAB_ACK, f->rcvd);
	else
		fab_pkt_free(fb, pkt);
np:
	if (!ce)
		return;
	f->marks_rcvd++;
	if (sroce_cc_np_may_send(f->np_last, ns, s->cfg.cnp_gap)) {
		f->np_last = ns ? ns : 1; /* 0 means never */
		fb->cnps++;
		fab_np_cnp(fb, port, i);
	}
}

static void fab_ack(struct fab *fb, u32 pkt)
{
	struct sim *s = fb->s;
	const struct fab_pkt *k = &fb->pkts[pkt];
	struct fab_flow *f = &fb->flows[k->flow];
	u64 ns = s->now / SIM_PS_PER_NS;
	/* the sender's next byte: with go-back-N that of snd_nxt */
	u64 nxt = s->cfg.gbn ? fab_rc_seq(fb, f, f->snd_nxt) : f->sent;
	u32 h;

	if (s->ops->on_int) {
		struct sroce_cc_int t = { .nhops = k->nint };

		for (h = 0; h < k->nint; h++)
			t.hop[h] = (struct sroce_cc_int_hop){
				.ts_ns = k->rec[h].ts,
				.tx_bytes = k->rec[h].tx,
				.rate = fb->ports[k->rec[h].port].rate,
				.qlen = k->rec[h].qlen,
			};
		sroce_cc_telemetry(s->ops, &f->cc, &fb->params, &f->edt, ns,
				   k->ack_seq, nxt, &t);
	}
	if (s->cfg.gbn)
		fab_rc_ack(fb, k->flow, k->psn);
	if (f->probe_out && k->ack_seq >= f->probe_end) {
		/* as kernel/cc.c: the sample, and no bytes */
		f->probe_out = false;
		sroce_cc_ack(s->ops, &f->cc, &fb->params, &f->edt, ns,
			     (s->now - f->probe_ts) / SIM_PS_PER_NS, 0);
	}
	if (f->size && !f->done_at && k->ack_seq >= f->size)
		f->done_at = s->now;
	fab_pkt_free(fb, pkt);
	/* a rate that rose may end the NIC's pacing wait now */
	if (f->active)
		fab_nic_send(fb, f->src);
}

static void fab_cnp(struct fab *fb, u32 pkt)
{
	struct fab_flow *f = &fb->flows[fb->pkts[pkt].flow];

	fab_pkt_free(fb, pkt);
	f->cnps_rcvd++;
	sroce_cc_cnp(fb->s->ops, &f->cc, &fb->params, &f->edt,
		     fb->s->now / SIM_PS_PER_NS);
}

void fab_flow_wake(struct fab *fb, u32 i)
{
	struct fab_flow *f = &fb->flows[i];

	if (!f->active && f->started && !fab_flow_sent_all(fb, f)) {
		if (fab_nic_add(&fb->nics[f->src], i))
			return;
		f->active = true;
	}
	fab_nic_send(fb, f->src);
}

/* A packet reached host port @port: data for the receiver, or feedback. */
void fab_host_receive(struct fab *fb, u32 port, u32 pkt)
{
	switch (fb->pkts[pkt].kind) {
	case FAB_DATA:
		fab_data_receive(fb, port, pkt);
		break;
	case FAB_ACK:
		fab_ack(fb, pkt);
		break;
	case FAB_NAK:
		fab_rc_nak(fb, fb->pkts[pkt].flow, fb->pkts[pkt].psn);
		fab_pkt_free(fb, pkt);
		break;
	default:
		fab_cnp(fb, pkt);
		break;
	}
}
