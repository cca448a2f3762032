// SPDX-License-Identifier: GPL-2.0
/*
 * np.c - the receiver of ccsim and its notification point.
 *
 * A packet that left the switch port at @t reaches the receiver rx_delay
 * later.  Its bytes count as delivered at @t (the bottleneck's departure,
 * which is what the throughput series and the utilisation measure).  If
 * it carries CE, the notification point sends a CNP for its flow unless
 * one left less than min_time_between_cnps ago (sroce_cc_np_may_send(),
 * the kernel's throttle).  CNPs travel back uncongested (high priority in
 * real fabrics): rx_delay + the sender's link delay.  With [sim]
 * transport = gbn, rc.c decides first whether the packet is new data and
 * answers it with an ACK or a NAK.  For an algorithm with on_int every
 * packet is also answered by an ACK that echoes its INT stamp and
 * carries a cumulative sequence (HPCC's per-packet ACK), on the same way
 * back.  For an algorithm with on_ack (timely) without gbn the RTT probe
 * is answered by an ACK (flow.c).
 */
#include "sim.h"

void sim_np_receive(struct sim *s, const struct sim_pkt *pkt, u64 t)
{
	u32 flow = pkt->flow;
	struct sim_flow *f = &s->flows[flow];
	u64 at_rx = t + s->cfg.rx_delay;
	u64 ns = at_rx / SIM_PS_PER_NS;

	u64 ack_seq;

	/* with gbn only in-order packets are data for the application */
	if (!s->cfg.gbn || sim_rc_receive(s, pkt, at_rx)) {
		f->delivered += pkt->bytes;
		f->interval += pkt->bytes;
	}
	/*
	 * The INT echo's ACK: with gbn the receiver's cumulative sequence;
	 * without, nothing is resent and each packet is acknowledged up to
	 * its end (a lost one is skipped).
	 */
	ack_seq = sim_rc_seq(s, f, s->cfg.gbn ? f->rcv_nxt : pkt->psn + 1);
	if (f->cfg.size && !f->done && f->delivered >= f->cfg.size) {
		f->done = true;
		f->done_at = at_rx;
	}
	/*
	 * Without gbn nothing else acknowledges: the probe (or the first
	 * packet past it, if it was lost) is answered once.
	 */
	if (s->ops->on_ack && !s->cfg.gbn && f->probe_out && !f->probe_acked &&
	    pkt->psn >= f->probe_psn) {
		f->probe_acked = true;
		sim_evq_push(&s->q, at_rx + s->cfg.rx_delay + f->cfg.delay,
			     SIM_EV_ACK, flow, pkt->psn + 1);
	}
	if (s->ops->on_int && !sim_flow_echo_push(s, flow, pkt, ack_seq))
		sim_evq_push(&s->q, at_rx + s->cfg.rx_delay + f->cfg.delay,
			     SIM_EV_INT, flow, 0);
	/* the NP looks at every packet's CE, in order or not */
	if (!pkt->ce)
		return;
	if (!sroce_cc_np_may_send(f->np_last, ns, s->cfg.cnp_gap))
		return;
	f->np_last = ns ? ns : 1; /* 0 means never */
	f->cnps_sent++;
	sim_evq_push(&s->q, at_rx + s->cfg.rx_delay + f->cfg.delay, SIM_EV_CNP,
		     flow, 0);
}
