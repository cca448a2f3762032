// SPDX-License-Identifier: GPL-2.0
/*
 * rc.c - the reliable transport of ccsim ([sim] transport = gbn): what an
 * RC QP does around the congestion control, reduced to what shapes the
 * traffic at the bottleneck.
 *
 * Sender: packets carry a PSN (their index in the flow); at most
 * [flow] window_kb bytes are unacknowledged (a verbs application's send
 * queue depth times its message size: ib_write_bw -t 32 -s 4096 keeps
 * 128 KB in flight).  An ACK acknowledges every PSN below the one it
 * carries.  A NAK (sequence error) or an expired retransmit timer makes
 * the sender go back to the oldest unacknowledged PSN and resend from
 * there (go-back-N, IBA C9-114/C9-140 style); resent bytes are counted
 * and are paced and seen by the cc like any others (kernel/cc.c does the
 * same: it does not know a resend from a first send).
 *
 * Receiver: accepts the expected PSN only.  A PSN beyond it (a packet
 * before it was dropped) is discarded and answered by one NAK per gap;
 * further out-of-order packets are discarded silently until the expected
 * PSN arrives.  A duplicate (below it) is discarded and acknowledged
 * again.  One ACK per packet; ACKs and NAKs travel back uncongested, as
 * CNPs do (np.c), so the RTT is the links' delays plus the queue.
 *
 * The timer: armed on a send when none is pending, pushed back on every
 * ACK or NAK that moves snd_una; one SIM_EV_RTO event is in the queue at
 * a time and re-queues itself while progress keeps moving the deadline.
 *
 * [sim] recovery = on adds kernel/comp.c's loss recovery (issue 17): a
 * window of packets besides window_kb, which is also its largest size
 * (the kernel's SROCE_REQ_WINDOW, 256 packets), with the kernel's code
 * (kernel/proto/win.h): a sequence NAK halves it to half of what was in
 * flight, once per window of data (until snd_una passes the highest PSN
 * sent at the cut); a timeout leaves one packet and doubles the timeout,
 * up to 4 times; ACKs grow it back and reset the backoff.  With [cc]
 * cnp_window_cut (the default, as the kernel's knob) a CNP the algorithm
 * handled halves the window gradually while packets are in flight, once
 * per window of data.  The kernel's undo of a spurious timeout is not
 * modelled (in the model an ACK is never later than its queue's delay).
 */
#include "sim.h"

#define SIM_RC_BACKOFF_MAX 2 /* SROCE_REQ_BACKOFF_MAX: 4 x rto */

/* The window's largest size in packets (recovery). */
static u32 sim_rc_wmax(const struct sim *s, const struct sim_flow *f)
{
	u64 w = f->cfg.window ? f->cfg.window / s->cfg.mtu : U32_MAX;

	return w < 1 ? 1 : w > U32_MAX ? U32_MAX : (u32)w;
}

void sim_rc_init(struct sim *s, u32 i)
{
	struct sim_flow *f = &s->flows[i];

	f->npkts = f->cfg.size ?
			   (u32)((f->cfg.size + s->cfg.mtu - 1) / s->cfg.mtu) :
			   0;
	sroce_win_init(&f->win, sim_rc_wmax(s, f));
}

/* May @f send its next packet (snd_nxt): data left and room in the window? */
bool sim_rc_may_send(const struct sim *s, const struct sim_flow *f)
{
	u64 inflight;

	if (f->npkts && f->snd_nxt >= f->npkts)
		return false;
	if (f->snd_nxt == f->snd_una)
		return true;
	if (s->cfg.recovery && f->snd_nxt - f->snd_una >= f->win.size)
		return false;
	if (!f->cfg.window)
		return true;
	inflight = (u64)(f->snd_nxt - f->snd_una) * s->cfg.mtu;
	return inflight + s->cfg.mtu <= f->cfg.window;
}

/* In recovery: a loss of what was sent before the last cut cuts no more. */
static bool sim_rc_recovering(const struct sim_flow *f)
{
	return f->in_recovery && f->snd_una < f->recover_psn;
}

/* A cut: the next may come only after everything sent until now. */
static void sim_rc_recovery_start(struct sim_flow *f)
{
	f->recover_psn = f->snd_max;
	f->in_recovery = true;
}

/* A loss (recovery): the window's cut, once per window of data. */
static void sim_rc_cut(struct sim *s, struct sim_flow *f, bool timeout)
{
	u32 flight = f->snd_nxt - f->snd_una;

	if (!s->cfg.recovery)
		return;
	sroce_win_settle(&f->win);
	if (!timeout && sim_rc_recovering(f))
		return;
	sroce_win_cut(&f->win, flight, timeout);
	sim_rc_recovery_start(f);
}

/*
 * What @f has in flight as sroce_win_used() takes it: a flow that pacing
 * or a PFC pause holds back (the network's congestion, not its host's),
 * or that has sent all it had, counts as keeping its window in flight.
 * A packet that waits for the host's NIC is not in flight here; in the
 * kernel it is (comp.c counts what it handed to the qdisc), so the model
 * sees a wait the kernel does not (cc.rst).
 */
static u32 sim_rc_used(const struct sim *s, const struct sim_flow *f)
{
	if (f->paused || (f->npkts && f->snd_nxt >= f->npkts) ||
	    (f->cc.active && !sroce_cc_pace_ok(f->edt, s->now / SIM_PS_PER_NS)))
		return SROCE_WIN_FULL;
	return f->snd_nxt - f->snd_una;
}

/*
 * Progress of @acked packets (recovery), before snd_una moves: the window
 * grows back, by a step that follows how much of it the flow had in
 * flight (window_rtt_fair: packets wait for a NIC that the host's other
 * flows keep busy).
 */
static void sim_rc_grow(struct sim *s, struct sim_flow *f, u32 acked)
{
	f->backoff = 0;
	if (!s->cfg.recovery)
		return;
	if (f->params.win_rtt_fair)
		sroce_win_used(&f->win, acked, sim_rc_used(s, f));
	sroce_win_grow(&f->win, acked, sim_rc_wmax(s, f));
}

/* The timeout now, with the backoff (recovery). */
static u64 sim_rc_rto(const struct sim *s, const struct sim_flow *f)
{
	return s->cfg.rto << (s->cfg.recovery ? f->backoff : 0);
}

/* Bytes of packet @psn: mtu, less for the tail of a sized flow. */
u32 sim_rc_pkt_bytes(const struct sim *s, const struct sim_flow *f, u32 psn)
{
	u64 off = (u64)psn * s->cfg.mtu;

	if (f->cfg.size && off + s->cfg.mtu > f->cfg.size)
		return (u32)(f->cfg.size - off);
	return s->cfg.mtu;
}

/*
 * The byte offset of packet @psn in @f's stream (the bytes before it),
 * the sequence on_int gets: ack.seq is that of the receiver's next
 * expected PSN, snd_nxt that of the sender's.
 */
u64 sim_rc_seq(const struct sim *s, const struct sim_flow *f, u32 psn)
{
	u64 off = (u64)psn * s->cfg.mtu;

	return f->cfg.size && off > f->cfg.size ? f->cfg.size : off;
}

static void sim_rc_arm(struct sim *s, u32 i)
{
	struct sim_flow *f = &s->flows[i];

	f->rto_at = s->now + sim_rc_rto(s, f);
	if (f->rto_pending)
		return;
	f->rto_pending = true;
	sim_evq_push(&s->q, f->rto_at, SIM_EV_RTO, i, 0);
}

void sim_rc_sent(struct sim *s, u32 i, u32 psn, u32 bytes)
{
	struct sim_flow *f = &s->flows[i];

	if (psn < f->snd_max)
		f->retx += bytes;
	else
		f->snd_max = psn + 1;
	f->snd_nxt = psn + 1;
	if (!f->rto_pending)
		sim_rc_arm(s, i);
}

/*
 * The receiver got @pkt (it left the port; it reaches the receiver at
 * @at_rx).  true: in order, new data for the application.
 */
bool sim_rc_receive(struct sim *s, const struct sim_pkt *pkt, u64 at_rx)
{
	struct sim_flow *f = &s->flows[pkt->flow];
	u64 back = at_rx + s->cfg.rx_delay + f->cfg.delay;

	if (pkt->psn == f->rcv_nxt) {
		f->rcv_nxt++;
		f->nak_sent = false;
		sim_evq_push(&s->q, back, SIM_EV_ACK, pkt->flow, f->rcv_nxt);
		return true;
	}
	if (pkt->psn > f->rcv_nxt) {
		f->ooo++;
		if (!f->nak_sent) {
			f->nak_sent = true;
			sim_evq_push(&s->q, back, SIM_EV_NAK, pkt->flow,
				     f->rcv_nxt);
		}
		return false;
	}
	f->dups++;
	sim_evq_push(&s->q, back, SIM_EV_ACK, pkt->flow, f->rcv_nxt);
	return false;
}

/* Everything below @psn is acknowledged. */
void sim_rc_ack(struct sim *s, u32 i, u32 psn)
{
	struct sim_flow *f = &s->flows[i];

	if (psn <= f->snd_una)
		return;
	sim_rc_grow(s, f, psn - f->snd_una);
	f->snd_una = psn;
	/* a go-back-N rewind may have gone below what the receiver has */
	if (f->snd_nxt < psn)
		f->snd_nxt = psn;
	f->rto_at = s->now + sim_rc_rto(s, f);
	sim_flow_ack(s, i, psn);
	sim_flow_kick(s, i);
}

/* Sequence error: the receiver expects @psn; resend from there. */
void sim_rc_nak(struct sim *s, u32 i, u32 psn)
{
	struct sim_flow *f = &s->flows[i];

	f->naks_rcvd++;
	if (psn < f->snd_una)
		return;
	if (psn > f->snd_una)
		sim_rc_grow(s, f, psn - f->snd_una);
	f->snd_una = psn;
	sim_rc_cut(s, f, false);
	f->snd_nxt = psn;
	f->rto_at = s->now + sim_rc_rto(s, f);
	sim_flow_kick(s, i);
}

void sim_rc_timeout(struct sim *s, u32 i)
{
	struct sim_flow *f = &s->flows[i];

	f->rto_pending = false;
	if (f->snd_una >= f->snd_max)
		return; /* nothing outstanding: the next send arms it */
	if (s->now < f->rto_at) {
		f->rto_pending = true;
		sim_evq_push(&s->q, f->rto_at, SIM_EV_RTO, i, 0);
		return;
	}
	f->timeouts++;
	sim_rc_cut(s, f, true);
	if (f->backoff < SIM_RC_BACKOFF_MAX)
		f->backoff++;
	f->snd_nxt = f->snd_una;
	sim_rc_arm(s, i);
	sim_flow_kick(s, i);
}

/*
 * A CNP the algorithm handled (cnp_window_cut): half the window, from the
 * window, reached gradually; while packets are in flight, once per window.
 */
void sim_rc_cnp(struct sim *s, u32 i)
{
	struct sim_flow *f = &s->flows[i];
	u32 flight = f->snd_nxt - f->snd_una;

	if (!s->cfg.recovery || !flight || sim_rc_recovering(f))
		return;
	sroce_win_reduce(&f->win, flight);
	sim_rc_recovery_start(f);
	f->cnp_cuts++;
}
