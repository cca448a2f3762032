// SPDX-License-Identifier: GPL-2.0
/*
 * flow.c - the senders of ccsim and the glue to the congestion control
 * core.  The calls into kernel/proto/cc*.c are the ones kernel/cc.c makes:
 * init at start, sroce_cc_cnp() per CNP, and while the algorithm is active
 * sroce_cc_pace_check() before and sroce_cc_pace_packet() after each packet
 * (pacing by earliest departure time).
 *
 * A sender transmits mtu-byte packets back to back at its NIC rate,
 * further limited by the cc rate (pacing), while it is started, not
 * stopped, not finished (size) and not paused by PFC.  Flows with the
 * same [flow] nic are one host's QPs: its NIC sends one packet at a time,
 * to the flows with something to send in turn (struct sim_nic).  A packet reaches
 * the switch one serialisation time plus the link delay after it starts.
 * With [sim] transport = gbn, rc.c decides which PSN goes next and the
 * window may hold the sender back (ACKs kick it again).
 *
 * An algorithm with on_int (hpcc) gets every packet's INT back: the
 * bottleneck port stamps each packet as it leaves (port.c), the receiver
 * echoes the stamp in an ACK of that packet (np.c), and the sender hands
 * it to sroce_cc_telemetry() as a one-hop struct sroce_cc_int whose speed
 * is the port rate, with the ACK's cumulative sequence and the sender's
 * snd_nxt in bytes (sim_rc_seq()).
 *
 * An algorithm with on_ack (timely) gets one RTT sample per round trip,
 * as kernel/cc.c takes them: one packet at a time is the probe, and the
 * ACK that covers it gives the sample (sim_flow_ack()).  Without gbn the
 * receiver answers the probe, or the first packet after it if it was
 * lost (np.c); with gbn rc.c's cumulative ACKs do, and a resend up to
 * the probe voids it (Karn).
 */
#include <stdlib.h>

#include "sim.h"

const struct sroce_cc_ops *sim_cc_ops(u32 algo)
{
	switch (algo) {
	case SIM_CC_DCQCN:
		return &sroce_cc_dcqcn_ops;
	case SIM_CC_DCTCP:
		return &sroce_cc_dctcp_ops;
	case SIM_CC_HPCC:
		return &sroce_cc_hpcc_ops;
	case SIM_CC_TIMELY:
		return &sroce_cc_timely_ops;
	case SIM_CC_FIXED:
		return &sroce_cc_fixed_ops;
	default:
		return &sroce_cc_none_ops;
	}
}

/*
 * [cc] keys that override one reaction point parameter, in the knob units
 * of dcqcn.md (Mb/s, us, counts; dce_tcp_g and initial_alpha in 1/1024).
 * Applied after the flavour's defaults, as writing the sysfs knobs after
 * `flavour` does.  HPCC's (no sysfs knobs yet): hpcc_eta (%),
 * hpcc_max_stage, hpcc_ai_rate (Mb/s: W_AI / T), hpcc_base_rtt (us: T),
 * hpcc_mtu (bytes; [sim] mtu unless set).
 */
int sim_cc_param_set(struct sroce_cc_params *p, const char *key,
		     const char *val)
{
	char *end;
	unsigned long long v = strtoull(val, &end, 0);

	/* no sign, and within the core's ranges (no shift overflow) */
	if (end == val || *end || *val == '-' || v > 1000000000ULL)
		return -1;
	if ((!strcmp(key, "rpg_gd") && v > 31) ||
	    (!strcmp(key, "rpg_min_dec_fac") && v > 100) ||
	    ((!strcmp(key, "dce_tcp_g") ||
	      !strcmp(key, "initial_alpha_value")) &&
	     v > SROCE_CC_G_ONE) ||
	    (!strcmp(key, "hpcc_eta") && (v < 1 || v > 100)))
		return -1;
	if (!strcmp(key, "rpg_max_rate")) {
		/* as kernel/cc.c: 0 = the device speed, else the lower */
		if (v && v * SROCE_CC_KBPS_PER_MBPS < p->line_rate)
			p->line_rate = v * SROCE_CC_KBPS_PER_MBPS;
		return 0;
	}
	if (!strcmp(key, "rpg_min_rate"))
		p->min_rate = v * SROCE_CC_KBPS_PER_MBPS;
	else if (!strcmp(key, "rpg_ai_rate"))
		p->ai_rate = v * SROCE_CC_KBPS_PER_MBPS;
	else if (!strcmp(key, "rpg_hai_rate"))
		p->hai_rate = v * SROCE_CC_KBPS_PER_MBPS;
	else if (!strcmp(key, "rate_to_set_on_first_cnp"))
		p->first_cnp_rate = v * SROCE_CC_KBPS_PER_MBPS;
	else if (!strcmp(key, "rpg_time_reset"))
		p->time_reset_us = (u32)v;
	else if (!strcmp(key, "rpg_byte_reset"))
		p->byte_reset = (u32)v;
	else if (!strcmp(key, "rpg_threshold"))
		p->threshold = (u32)v;
	else if (!strcmp(key, "rpg_gd"))
		p->gd = (u32)v;
	else if (!strcmp(key, "rpg_min_dec_fac"))
		p->min_dec_fac = (u32)v;
	else if (!strcmp(key, "dce_tcp_g"))
		p->g = (u32)v;
	else if (!strcmp(key, "dce_tcp_rtt"))
		p->alpha_period_us = (u32)v;
	else if (!strcmp(key, "rate_reduce_monitor_period"))
		p->monitor_period_us = (u32)v;
	else if (!strcmp(key, "initial_alpha_value"))
		p->initial_alpha = (u32)v;
	else if (!strcmp(key, "clamp_tgt_rate"))
		p->clamp_tgt_rate = !!v;
	else if (!strcmp(key, "clamp_tgt_rate_after_time_inc"))
		p->clamp_tgt_rate_after_time_inc = !!v;
	else if (!strcmp(key, "cnp_window_cut"))
		p->cnp_win_cut = !!v;
	else if (!strcmp(key, "window_rtt_fair"))
		p->win_rtt_fair = !!v;
	else if (!strcmp(key, "hpcc_eta"))
		p->hpcc_eta = (u32)v;
	else if (!strcmp(key, "hpcc_max_stage"))
		p->hpcc_max_stage = (u32)v;
	else if (!strcmp(key, "hpcc_ai_rate"))
		p->hpcc_ai_rate = v * SROCE_CC_KBPS_PER_MBPS;
	else if (!strcmp(key, "hpcc_base_rtt"))
		p->hpcc_base_rtt_us = (u32)v;
	else if (!strcmp(key, "hpcc_mtu"))
		p->hpcc_mtu = (u32)v;
	else
		return -1;
	return 0;
}

int sim_flows_init(struct sim *s)
{
	int i, j;

	s->nflows = s->cfg.nflows;
	s->flows = calloc(s->nflows, sizeof(*s->flows));
	if (!s->flows)
		return -1;
	for (i = 0; i < s->nflows; i++) {
		struct sim_flow *f = &s->flows[i];

		f->cfg = s->cfg.flows[i];
		sroce_cc_params_default(&f->params, s->cfg.flavour,
					f->cfg.speed);
		/* a packet, as the glue would set it from the path MTU */
		f->params.hpcc_mtu = s->cfg.mtu;
		for (j = 0; j < s->cfg.ncc_ov; j++)
			if (sim_cc_param_set(&f->params, s->cfg.cc_ov[j].key,
					     s->cfg.cc_ov[j].val))
				return -1;
		s->ops->init(&f->cc, &f->params, 0);
		sim_rc_init(s, i);
		sim_evq_push(&s->q, f->cfg.start, SIM_EV_START, i, 0);
		if (f->cfg.stop)
			sim_evq_push(&s->q, f->cfg.stop, SIM_EV_STOP, i, 0);
	}
	return 0;
}

bool sim_flow_on(const struct sim_flow *f)
{
	return f->started && !f->stopped && !f->done;
}

/* Has @f a packet to send (data left, and with gbn room in its window)? */
static bool sim_flow_has_data(const struct sim *s, const struct sim_flow *f)
{
	if (s->cfg.gbn)
		return sim_rc_may_send(s, f);
	return !f->cfg.size || f->sent < f->cfg.size;
}

/*
 * Queue a SIM_EV_SEND for @i when it has something to send: now, or when
 * its NIC is free.  Pacing is not looked at here but in sim_flow_send(),
 * as the kernel's requester asks sroce_cc_may_send() when it runs; a QP
 * held back by pacing is run again at the time sroce_cc_pace_check()
 * returned (the kernel's pacing hrtimer).
 */
static void sim_flow_kick_at(struct sim *s, u32 i, u64 t)
{
	struct sim_flow *f = &s->flows[i];
	struct sim_nic *nic = &s->nics[f->cfg.nic];

	if (f->send_pending || !sim_flow_on(f) || f->paused ||
	    !sim_flow_has_data(s, f))
		return;
	/* a shared NIC busy beyond @t: wait for it, with the others */
	if (f->cfg.nic && nic->free > t) {
		f->nic_wait = true;
		if (!nic->pending) {
			nic->pending = true;
			sim_evq_push(&s->q, nic->free, SIM_EV_NIC, f->cfg.nic,
				     0);
		}
		return;
	}
	if (f->nic_free > t)
		t = f->nic_free;
	f->send_pending = true;
	sim_evq_push(&s->q, t, SIM_EV_SEND, i, 0);
}

void sim_flow_kick(struct sim *s, u32 i)
{
	sim_flow_kick_at(s, i, s->now);
}

/*
 * Shared NIC @nic is free: run its waiting flows, the one after the last
 * sender first.  The first that may send takes the NIC; the others find
 * it busy and wait again (same-time events run in the order queued).
 */
void sim_nic_free(struct sim *s, u32 nic)
{
	struct sim_nic *n = &s->nics[nic];
	int k;

	n->pending = false;
	for (k = 1; k <= s->nflows; k++) {
		u32 j = (n->last + k) % s->nflows;
		struct sim_flow *f = &s->flows[j];

		if (f->cfg.nic != nic || !f->nic_wait)
			continue;
		f->nic_wait = false;
		sim_flow_kick(s, j);
	}
}

void sim_flow_start(struct sim *s, u32 i)
{
	struct sim_flow *f = &s->flows[i];
	u64 ns = s->now / SIM_PS_PER_NS;

	f->started = true;
	s->ops->init(&f->cc, &f->params, ns);
	f->edt = 0;
	sim_flow_kick(s, i);
}

void sim_flow_stop(struct sim *s, u32 i)
{
	s->flows[i].stopped = true;
}

/*
 * The cc rate now (kbit/s) with the timers brought up to date, 0 if not
 * sending; @alpha (may be NULL) gets the alpha (Q20, 0 if inactive).
 * Looks at a copy: sampling must not change what the flow does (an
 * on_timer call before sroce_cc_pace_check() would hide a rate rise
 * from its rescaling of the departure time).
 */
u64 sim_flow_rate(struct sim *s, u32 i, u32 *alpha)
{
	struct sim_flow *f = &s->flows[i];
	struct sroce_cc_state st = f->cc;

	if (alpha)
		*alpha = 0;
	if (!sim_flow_on(f))
		return 0;
	if (s->ops->on_timer)
		s->ops->on_timer(&st, &f->params, s->now / SIM_PS_PER_NS);
	if (alpha && st.active && s->ops->alpha)
		*alpha = s->ops->alpha(&st);
	return st.rate;
}

void sim_flow_send(struct sim *s, u32 i)
{
	struct sim_flow *f = &s->flows[i];
	u64 ns = s->now / SIM_PS_PER_NS;
	u64 left = f->cfg.size ? f->cfg.size - f->sent : s->cfg.mtu;
	u32 bytes = left < s->cfg.mtu ? (u32)left : s->cfg.mtu;
	/* without gbn: the packet's index, every one but a sized tail mtu */
	u32 psn = (u32)(f->sent / s->cfg.mtu);
	u64 tx;

	f->send_pending = false;
	if (s->cfg.gbn) {
		/* a NAK or timeout may have moved snd_nxt since the kick */
		if (!sim_rc_may_send(s, f))
			return;
		psn = f->snd_nxt;
		bytes = sim_rc_pkt_bytes(s, f, psn);
	}
	if (!sim_flow_on(f) || f->paused || !bytes)
		return;
	if (f->nic_free > s->now ||
	    (f->cfg.nic && s->nics[f->cfg.nic].free > s->now)) {
		sim_flow_kick(s, i);
		return;
	}
	/*
	 * sroce_cc_may_send(): an inactive algorithm does not pace; an
	 * active one asks sroce_cc_pace_check(), which returns 0 or when to
	 * look again (the kernel arms its pacing hrtimer for that time).
	 */
	if (f->cc.active) {
		u64 wake = sroce_cc_pace_check(s->ops, &f->cc, &f->params,
					       &f->edt, ns);

		if (wake) {
			f->pace_waits++;
			sim_flow_kick_at(s, i, wake * SIM_PS_PER_NS);
			return;
		}
	}
	/* kernel/cc.h sroce_cc_sent(): only while active */
	if (f->cc.active)
		sroce_cc_pace_packet(s->ops, &f->cc, &f->params, &f->edt, ns,
				     bytes, s->cfg.pace_burst);
	if (f->start_seen && s->now < f->start_at + s->cfg.start_window) {
		f->start_sent += bytes;
		if (f->cc.rate > f->start_rate)
			f->start_rate = f->cc.rate;
	}
	if (f->xon_open && s->now < f->xon_at + s->cfg.start_window) {
		f->xon_sent += bytes;
		if (f->cc.rate > f->xon_rate)
			f->xon_rate = f->cc.rate;
	}
	tx = sim_tx_ps(bytes, f->cfg.rate);
	f->nic_free = s->now + tx;
	if (f->cfg.nic) {
		s->nics[f->cfg.nic].free = f->nic_free;
		s->nics[f->cfg.nic].last = i;
	}
	f->sent += bytes;
	if (s->ops->on_ack) {
		/* Karn, as kernel/cc.c: a resend up to the probe voids it */
		if (f->probe_out && s->cfg.gbn && psn < f->snd_max &&
		    psn <= f->probe_psn)
			f->probe_out = false;
		if (!f->probe_out) {
			f->probe_out = true;
			f->probe_acked = false;
			f->probe_psn = psn;
			f->probe_ts = s->now;
		}
	}
	if (s->cfg.gbn)
		sim_rc_sent(s, i, psn, bytes);
	sim_evq_push(&s->q, s->now + tx + f->cfg.delay, SIM_EV_ARRIVE, i,
		     (u64)psn << 32 | bytes);
	sim_flow_kick(s, i);
}

void sim_flow_cnp(struct sim *s, u32 i)
{
	struct sim_flow *f = &s->flows[i];
	struct sroce_cc_state st = f->cc;
	u64 ns = s->now / SIM_PS_PER_NS;

	/* inactive, or would be once its timers are up to date */
	if (s->ops->on_timer)
		s->ops->on_timer(&st, &f->params, ns);
	if (!st.active)
		f->cc_starts++;
	f->cnps_rcvd++;
	/* as kernel/cc.c: a new episode's pacing starts now, no credit */
	if (!sroce_cc_cnp(s->ops, &f->cc, &f->params, &f->edt, ns))
		f->cnps_ignored++;
	else if (s->cfg.gbn && f->params.cnp_win_cut)
		sim_rc_cnp(s, i);
	if (!st.active && f->cc.active && !f->start_seen) {
		f->start_seen = true;
		f->start_at = s->now;
		f->start_rate = f->cc.rate;
	}
}

/*
 * Close flow @f's watch of the time after an XON: keep it if the flow
 * sent more beyond its rate in it than in any before (bytes sent x 8e9
 * against kbit/s x ps: bits x 1e9 both).
 */
void sim_flow_xon_close(struct sim *s, struct sim_flow *f)
{
	u64 w = s->cfg.start_window;

	if (!f->xon_open)
		return;
	f->xon_open = false;
	f->xons++;
	if (f->xons == 1 ||
	    (s64)(f->xon_sent * 8000000000ULL - f->xon_rate * w) >
		    (s64)(f->xon_worst_sent * 8000000000ULL -
			  f->xon_worst_rate * w)) {
		f->xon_worst_sent = f->xon_sent;
		f->xon_worst_rate = f->xon_rate;
	}
}

void sim_flow_pause(struct sim *s, u32 i, bool on)
{
	struct sim_flow *f = &s->flows[i];

	if (on && !f->paused) {
		f->paused = true;
		f->paused_since = s->now;
	} else if (!on && f->paused) {
		f->paused = false;
		f->paused_time += s->now - f->paused_since;
		sim_flow_xon_close(s, f);
		if (f->cc.active) {
			f->xon_open = true;
			f->xon_at = s->now;
			f->xon_rate = f->cc.rate;
			f->xon_sent = 0;
		}
		sim_flow_kick(s, i);
	}
}

/* Queue @pkt's stamp for the ACK (up to @ack_seq) that carries it back. */
int sim_flow_echo_push(struct sim *s, u32 i, const struct sim_pkt *pkt,
		       u64 ack_seq)
{
	struct sim_echoq *q = &s->flows[i].echoes;

	if (q->n == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 64;
		struct sim_echo *r = realloc(q->ring, cap * sizeof(*r));

		if (!r)
			return -1;
		/* the part that wrapped to the front now follows the rest */
		memcpy(r + q->cap, r, q->head * sizeof(*r));
		q->ring = r;
		q->cap = cap;
	}
	q->ring[(q->head + q->n) % q->cap] = (struct sim_echo){
		.ts = pkt->int_ts,
		.tx = pkt->int_tx,
		.qlen = pkt->int_qlen,
		.ack_seq = ack_seq,
	};
	q->n++;
	return 0;
}

/* The ACK with the oldest echo of flow @i arrived: on_int. */
void sim_flow_int(struct sim *s, u32 i)
{
	struct sim_flow *f = &s->flows[i];
	struct sim_echoq *q = &f->echoes;
	struct sroce_cc_int t = { .nhops = 1 };
	struct sim_echo e;
	u64 snd_nxt;

	if (!q->n)
		return;
	e = q->ring[q->head];
	q->head = (q->head + 1) % q->cap;
	q->n--;
	f->int_acks++;
	t.hop[0] = (struct sroce_cc_int_hop){
		.ts_ns = e.ts,
		.tx_bytes = e.tx,
		.rate = s->cfg.port_rate,
		.qlen = e.qlen,
	};
	/* without gbn every packet is sent once: snd_nxt is what was sent */
	snd_nxt = s->cfg.gbn ? sim_rc_seq(s, f, f->snd_nxt) : f->sent;
	sroce_cc_telemetry(s->ops, &f->cc, &f->params, &f->edt,
			   s->now / SIM_PS_PER_NS, e.ack_seq, snd_nxt, &t);
	sim_flow_kick(s, i);
}

/*
 * An ACK: every PSN below @psn was received.  If that covers the probe,
 * its RTT (from the time it began to leave) is one sample for
 * sroce_cc_ack(), as kernel/cc.c takes it, and the next packet is the
 * next probe.
 */
void sim_flow_ack(struct sim *s, u32 i, u32 psn)
{
	struct sim_flow *f = &s->flows[i];

	if (!s->ops->on_ack || !f->probe_out || psn <= f->probe_psn)
		return;
	f->probe_out = false;
	f->rtt_samples++;
	sroce_cc_ack(s->ops, &f->cc, &f->params, &f->edt,
		     s->now / SIM_PS_PER_NS,
		     (s->now - f->probe_ts) / SIM_PS_PER_NS, 0);
	sim_flow_kick(s, i);
}

void sim_flows_free(struct sim *s)
{
	int i;

	for (i = 0; i < s->nflows; i++)
		free(s->flows[i].echoes.ring);
	free(s->flows);
	s->flows = NULL;
}
