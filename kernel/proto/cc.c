// SPDX-License-Identifier: GPL-2.0
/*
 * cc.c - shared parts of the congestion control core: default parameters,
 * the alpha and cut equations every ECN algorithm uses, and `none`.
 *
 * Equations (Zhu et al., SIGCOMM 2015, section 3.2, and NVIDIA's knobs):
 *   alpha <- g * alpha + (1 - g) * marked          g = dce_tcp_g / 1024
 *   Rc    <- Rc * (1 - alpha / 2^(gd - 10))        gd = 11: alpha / 2
 * with the cut bounded by rpg_min_dec_fac and rpg_min_rate (at most the line
 * rate: sroce_cc_floor()).
 */
#include "cc.h"

/* Exact single updates up to this many periods, squaring beyond. */
#define SROCE_CC_DECAY_EXACT 64

void sroce_cc_params_default(struct sroce_cc_params *p,
			     enum sroce_cc_flavour flavour, u64 line_rate)
{
	memset(p, 0, sizeof(*p));
	p->line_rate = line_rate;
	p->min_rate = 1 * SROCE_CC_KBPS_PER_MBPS;
	p->gd = 11;
	p->min_dec_fac = 50;
	p->cnp_win_cut = true;
	p->win_rtt_fair = false;
	p->flavour = flavour;
	/*
	 * HPCC as the paper evaluates it: eta 95 %, maxStage 5; W_AI =
	 * W_init (1 - eta) / N, here 50 Mb/s (100 Gb/s, N = 100 flows); T a
	 * little above a fabric's base RTT.
	 */
	p->hpcc_ai_rate = 50 * SROCE_CC_KBPS_PER_MBPS;
	p->hpcc_base_rtt_us = 10;
	p->hpcc_eta = 95;
	p->hpcc_max_stage = 5;
	p->hpcc_mtu = 1024; /* RoCE's MTU on a 1500-byte Ethernet */
	if (flavour == SROCE_CC_PAPER) {
		/* SIGCOMM 2015, 40 Gb/s: T 55 us, B 10 MB, F 5, g 1/256. */
		p->ai_rate = 40 * SROCE_CC_KBPS_PER_MBPS;
		p->hai_rate = 200 * SROCE_CC_KBPS_PER_MBPS;
		p->time_reset_us = 55;
		p->byte_reset = 10 * 1024 * 1024;
		p->threshold = 5;
		p->g = SROCE_CC_G_ONE - SROCE_CC_G_ONE / 256;
		p->alpha_period_us = 55; /* K */
		p->monitor_period_us = 0;
		p->initial_alpha = SROCE_CC_G_ONE; /* alpha starts at 1 */
		p->clamp_tgt_rate = true; /* Rt = Rc on every cut */
		p->clamp_tgt_rate_after_time_inc = false;
	} else {
		/* NVIDIA firmware defaults (ecn/roce_rp/). */
		p->ai_rate = 5 * SROCE_CC_KBPS_PER_MBPS;
		p->hai_rate = 50 * SROCE_CC_KBPS_PER_MBPS;
		p->time_reset_us = 300;
		p->byte_reset = 32767;
		p->threshold = 1;
		p->g = 1019;
		p->alpha_period_us = 1;
		p->monitor_period_us = 4;
		p->initial_alpha = 1023;
		p->clamp_tgt_rate = false;
		p->clamp_tgt_rate_after_time_inc = true;
	}
}

static u32 sroce_cc_mul_g(u32 alpha, u32 g)
{
	return (u32)(((u64)alpha * g) / SROCE_CC_G_ONE);
}

u32 sroce_cc_alpha_update(u32 alpha, u32 g, bool marked)
{
	u32 a = sroce_cc_mul_g(alpha, g);

	if (marked)
		a += (u32)(((u64)SROCE_CC_ONE * (SROCE_CC_G_ONE - g)) /
			   SROCE_CC_G_ONE);
	return a > SROCE_CC_ONE ? SROCE_CC_ONE : a;
}

u32 sroce_cc_alpha_decay(u32 alpha, u32 g, u64 n)
{
	u64 f = ((u64)g << 20) / SROCE_CC_G_ONE; /* g in Q20 */
	u64 a = alpha;

	if (n <= SROCE_CC_DECAY_EXACT) {
		for (; n && a; n--)
			a = sroce_cc_mul_g((u32)a, g);
		return (u32)a;
	}
	/* A long idle: a * f^n by squaring, O(log n). */
	while (n && a) {
		if (n & 1)
			a = (a * f) >> 20;
		f = (f * f) >> 20;
		n >>= 1;
	}
	return (u32)a;
}

u64 sroce_cc_cut(const struct sroce_cc_params *p, u64 rate, u32 alpha)
{
	u64 dec = (rate * alpha) >> 20; /* rate * alpha */
	u64 floor;

	if (p->gd >= 10)
		dec >>= p->gd - 10;
	else
		dec <<= 10 - p->gd;
	if (dec > rate)
		dec = rate;
	rate -= dec;
	floor = (rate + dec) * p->min_dec_fac / 100;
	if (rate < floor)
		rate = floor;
	if (rate < sroce_cc_floor(p))
		rate = sroce_cc_floor(p);
	return rate;
}

/* ---- pacing ---- */

u64 sroce_cc_pace_rerate(u64 edt, u64 now, u64 old_rate, u64 new_rate)
{
	u64 wait;

	if (edt <= now || new_rate <= old_rate)
		return edt;
	wait = edt - now;
	/* wait * old_rate is about bytes * 8e6: no overflow below 4 s. */
	if (wait <= U32_MAX)
		wait = wait * old_rate / new_rate;
	else
		wait = wait / new_rate * old_rate;
	return now + wait;
}

u64 sroce_cc_pace_check(const struct sroce_cc_ops *ops,
			struct sroce_cc_state *s,
			const struct sroce_cc_params *p, u64 *edt, u64 now)
{
	u64 old = s->rate, next;

	if (ops->on_timer)
		ops->on_timer(s, p, now);
	if (!s->active)
		return 0;
	*edt = sroce_cc_pace_rerate(*edt, now, old, s->rate);
	if (sroce_cc_pace_ok(*edt, now))
		return 0;
	next = ops->next_event ? ops->next_event(s, p) : U64_MAX;
	if (next < now + SROCE_CC_PACE_MIN_WAIT_NS)
		next = now + SROCE_CC_PACE_MIN_WAIT_NS;
	return next < *edt ? next : *edt;
}

/* The state's timers brought up to @now: is it active then? */
static bool sroce_cc_sync(const struct sroce_cc_ops *ops,
			  struct sroce_cc_state *s,
			  const struct sroce_cc_params *p, u64 now)
{
	if (ops->on_timer)
		ops->on_timer(s, p, now);
	return s->active;
}

/* After an event: a state it made active is paced from @now, no credit. */
static void sroce_cc_pace_begin(bool was_active, const struct sroce_cc_state *s,
				u64 *edt, u64 now)
{
	if (!was_active && s->active)
		*edt = now;
}

bool sroce_cc_cnp(const struct sroce_cc_ops *ops, struct sroce_cc_state *s,
		  const struct sroce_cc_params *p, u64 *edt, u64 now)
{
	bool was_active, handled;

	if (!ops->on_cnp)
		return false;
	was_active = sroce_cc_sync(ops, s, p, now);
	handled = ops->on_cnp(s, p, now);
	sroce_cc_pace_begin(was_active, s, edt, now);
	return handled;
}

void sroce_cc_ack(const struct sroce_cc_ops *ops, struct sroce_cc_state *s,
		  const struct sroce_cc_params *p, u64 *edt, u64 now, u64 rtt,
		  u32 bytes)
{
	u64 old = s->rate;
	bool was_active;

	if (!ops->on_ack)
		return;
	was_active = sroce_cc_sync(ops, s, p, now);
	ops->on_ack(s, p, now, rtt, bytes);
	sroce_cc_pace_begin(was_active, s, edt, now);
	/* TIMELY raises its rate on samples, not timers: as telemetry */
	if (was_active && s->active)
		*edt = sroce_cc_pace_rerate(*edt, now, old, s->rate);
}

void sroce_cc_telemetry(const struct sroce_cc_ops *ops,
			struct sroce_cc_state *s,
			const struct sroce_cc_params *p, u64 *edt, u64 now,
			u64 ack_seq, u64 snd_nxt, const struct sroce_cc_int *t)
{
	u64 old = s->rate;
	bool was_active;

	if (!ops->on_int)
		return;
	was_active = sroce_cc_sync(ops, s, p, now);
	ops->on_int(s, p, now, ack_seq, snd_nxt, t);
	sroce_cc_pace_begin(was_active, s, edt, now);
	/* a rise shortens the wait left in the episode, as in pace_check */
	if (was_active && s->active)
		*edt = sroce_cc_pace_rerate(*edt, now, old, s->rate);
}

void sroce_cc_pace_packet(const struct sroce_cc_ops *ops,
			  struct sroce_cc_state *s,
			  const struct sroce_cc_params *p, u64 *edt, u64 now,
			  u32 bytes, u64 max_credit_ns)
{
	u64 burst;

	if (ops->on_sent)
		ops->on_sent(s, p, now, bytes);
	if (!s->active)
		return;
	burst = sroce_cc_pace_burst(s->rate, max_credit_ns);
	*edt = sroce_cc_pace_sent(*edt, now, bytes, s->rate, burst);
}

/* ---- none: always line rate ---- */

const struct sroce_cc_ops sroce_cc_none_ops = {
	.name = "none",
	.init = sroce_cc_init_line_rate,
	/* no on_cnp: every CNP is ignored */
};
