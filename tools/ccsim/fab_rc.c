// SPDX-License-Identifier: GPL-2.0
/*
 * fab_rc.c - go-back-N on ccsim's fabric ([sim] transport = gbn), what
 * rc.c is on the single bottleneck: a fabric without PFC drops packets,
 * and without a transport a flow that lost one never finishes.
 *
 * Sender: packets carry a PSN (their index in the flow), no window (the
 * NIC and the cc pace).  An ACK acknowledges every PSN below the one it
 * carries; a NAK (sequence error) or an expired retransmit timer
 * ([sim] rto_us, pushed back by every ACK or NAK that moves snd_una)
 * makes the sender go back to the oldest unacknowledged PSN and resend
 * from there.  Resent bytes are paced and seen by the cc like any others.
 *
 * Receiver: accepts the expected PSN only and acknowledges every packet
 * (a duplicate again); the first packet beyond a gap gets one NAK, the
 * rest are discarded silently until the gap is filled.  ACKs and NAKs go
 * back as the fabric's ACKs do (nic.c): hop by hop at the highest
 * priority.
 */
#include "fabric.h"

void fab_rc_init(struct fab *fb, struct fab_flow *f)
{
	u32 mtu = fb->s->cfg.mtu;

	f->npkts = f->size ? (u32)((f->size + mtu - 1) / mtu) : 0;
}

bool fab_rc_has_data(const struct fab_flow *f)
{
	return !f->npkts || f->snd_nxt < f->npkts;
}

u64 fab_rc_seq(const struct fab *fb, const struct fab_flow *f, u32 psn)
{
	u64 off = (u64)psn * fb->s->cfg.mtu;

	return f->size && off > f->size ? f->size : off;
}

u32 fab_rc_next(const struct fab *fb, const struct fab_flow *f, u32 *bytes)
{
	u64 off = fab_rc_seq(fb, f, f->snd_nxt);
	u32 mtu = fb->s->cfg.mtu;

	*bytes = f->size && f->size - off < mtu ? (u32)(f->size - off) : mtu;
	return f->snd_nxt;
}

static void fab_rc_arm(struct fab *fb, u32 i)
{
	struct fab_flow *f = &fb->flows[i];

	f->rto_at = fb->s->now + fb->s->cfg.rto;
	if (f->rto_pending)
		return;
	f->rto_pending = true;
	sim_evq_push(&fb->s->q, f->rto_at, FAB_EV_RTO, i, 0);
}

void fab_rc_sent(struct fab *fb, u32 i, u32 psn, u32 bytes)
{
	struct fab_flow *f = &fb->flows[i];

	if (psn < f->snd_max) {
		f->retx += bytes;
		fb->retx += bytes;
	} else {
		f->snd_max = psn + 1;
	}
	f->snd_nxt = psn + 1;
	if (!f->rto_pending)
		fab_rc_arm(fb, i);
}

bool fab_rc_receive(struct fab *fb, u32 port, u32 pkt)
{
	struct fab_pkt *k = &fb->pkts[pkt];
	struct fab_flow *f = &fb->flows[k->flow];

	if (k->psn == f->rcv_nxt) {
		f->rcv_nxt++;
		f->nak_sent = false;
		fab_flow_rcvd(fb, f, k->bytes);
		k->psn = f->rcv_nxt;
		fab_reply(fb, port, pkt, FAB_ACK, fab_rc_seq(fb, f, k->psn));
		return true;
	}
	if (k->psn < f->rcv_nxt) {
		/* a duplicate: acknowledged again */
		k->psn = f->rcv_nxt;
		fab_reply(fb, port, pkt, FAB_ACK, fab_rc_seq(fb, f, k->psn));
		return false;
	}
	/* beyond a gap: one NAK, then silence until the gap is filled */
	if (f->nak_sent) {
		fab_pkt_free(fb, pkt);
		return false;
	}
	f->nak_sent = true;
	k->psn = f->rcv_nxt;
	fab_reply(fb, port, pkt, FAB_NAK, fab_rc_seq(fb, f, k->psn));
	return false;
}

void fab_rc_ack(struct fab *fb, u32 i, u32 psn)
{
	struct fab_flow *f = &fb->flows[i];

	if (psn <= f->snd_una)
		return;
	f->snd_una = psn;
	/* a go-back-N rewind may have gone below what the receiver has */
	if (f->snd_nxt < psn)
		f->snd_nxt = psn;
	f->rto_at = fb->s->now + fb->s->cfg.rto;
}

void fab_rc_nak(struct fab *fb, u32 i, u32 psn)
{
	struct fab_flow *f = &fb->flows[i];

	f->naks++;
	if (psn < f->snd_una)
		return;
	f->snd_una = psn;
	f->snd_nxt = psn;
	f->rto_at = fb->s->now + fb->s->cfg.rto;
	fab_flow_wake(fb, i);
}

void fab_rc_timeout(struct fab *fb, u32 i)
{
	struct fab_flow *f = &fb->flows[i];

	f->rto_pending = false;
	if (f->snd_una >= f->snd_max)
		return; /* nothing outstanding: the next send arms it */
	if (fb->s->now < f->rto_at) {
		f->rto_pending = true;
		sim_evq_push(&fb->s->q, f->rto_at, FAB_EV_RTO, i, 0);
		return;
	}
	f->timeouts++;
	fb->timeouts++;
	f->snd_nxt = f->snd_una;
	fab_rc_arm(fb, i);
	fab_flow_wake(fb, i);
}
