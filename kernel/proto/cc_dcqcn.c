// SPDX-License-Identifier: GPL-2.0
/*
 * cc_dcqcn.c - DCQCN reaction point (Zhu et al., SIGCOMM 2015, section 3.2
 * and Fig. 5), in two flavours selected by params->flavour:
 *
 * paper: on each CNP  Rt = Rc; Rc = Rc (1 - alpha/2); alpha = (1-g) alpha + g
 *        (Eq. 1, 2), and alpha = (1-g) alpha every K us without a CNP (Eq. 3).
 * mlx:   alpha is updated every dce_tcp_rtt us from "was there a CNP in the
 *        period"; a CNP cuts at once if no cut happened in the last
 *        rate_reduce_monitor_period, otherwise the cut waits for the end of
 *        that period; hyper increase adds a constant rpg_hai_rate.
 *
 * Rate increase (both, Fig. 5): every rpg_time_reset us the timer stage T
 * and every rpg_byte_reset bytes sent the byte stage BC count one event.
 * Stages count the events since the last cut including the current one:
 *   max(T, BC) <= F        fast recovery   Rc = (Rt + Rc) / 2
 *   min(T, BC) >  F        hyper increase  Rt += i * R_HAI, i = min(T,BC) - F
 *                                          (mlx: i = 1); Rc = (Rt + Rc) / 2
 *   otherwise              additive        Rt += R_AI; Rc = (Rt + Rc) / 2
 * Rt is clamped to line rate; halves round up so that Rc reaches Rt.  Once
 * Rc and Rt are back at line rate the flow is inactive again: no timer runs
 * and the next CNP is a first CNP (initial_alpha_value, and
 * rate_to_set_on_first_cnp if set).
 *
 * Time is lazy: every hook first brings the timers up to @now, one event at
 * a time (so the result equals a real timer), at most SROCE_DCQCN_CATCHUP
 * increase events per call; a flow idle for longer than that is treated as
 * recovered.
 */
#include "cc.h"

#define SROCE_DCQCN_CATCHUP 4096

struct sroce_dcqcn {
	u64 rt; /* target rate, kbit/s */
	u64 alpha_ts; /* ns: start of the current alpha period */
	u64 inc_ts; /* ns: the last rate increase event (or cut) */
	u64 cut_ts; /* ns: the last cut */
	u32 alpha; /* Q20 */
	u32 t; /* timer stage T */
	u32 bc; /* byte stage BC */
	u32 bytes; /* bytes towards the next byte stage */
	u8 cnp_in_period; /* mlx: a CNP arrived in this alpha period */
	u8 cut_pending; /* mlx: a CNP waits for the monitor period */
	u8 timer_inc; /* the timer raised the rate since the last cut */
};

static_assert(sizeof(struct sroce_dcqcn) <=
	      sizeof_field(struct sroce_cc_state, priv));

static struct sroce_dcqcn *sroce_dcqcn(struct sroce_cc_state *s)
{
	return (struct sroce_dcqcn *)s->priv;
}

static void sroce_dcqcn_init(struct sroce_cc_state *s,
			     const struct sroce_cc_params *p, u64 now)
{
	struct sroce_dcqcn *d = sroce_dcqcn(s);

	sroce_cc_init_line_rate(s, p, now);
	d->rt = p->line_rate;
	/* A flow at line rate counts as raised by the timer (first cut). */
	d->timer_inc = 1;
}

/* One increase event (T or BC was just incremented).  Fig. 5. */
static enum sroce_cc_reason
sroce_dcqcn_increase(struct sroce_cc_state *s, const struct sroce_cc_params *p)
{
	struct sroce_dcqcn *d = sroce_dcqcn(s);
	u32 hi = d->t > d->bc ? d->t : d->bc;
	u32 lo = d->t > d->bc ? d->bc : d->t;
	enum sroce_cc_reason why;

	if (hi <= p->threshold) {
		why = SROCE_CC_R_FAST_RECOVERY;
	} else if (lo > p->threshold) {
		u64 i = p->flavour == SROCE_CC_MLX ? 1 : lo - p->threshold;

		d->rt += i * p->hai_rate;
		why = SROCE_CC_R_HYPER;
	} else {
		d->rt += p->ai_rate;
		why = SROCE_CC_R_ADDITIVE;
	}
	if (d->rt > p->line_rate)
		d->rt = p->line_rate;
	s->rate = (d->rt + s->rate + 1) / 2;
	if (s->rate >= p->line_rate && d->rt >= p->line_rate) {
		s->rate = p->line_rate;
		s->active = 0; /* recovered: back to the initial state */
	}
	s->reason = why;
	return why;
}

/* Alpha up to @now: Eq. 3 (paper) or the periodic update (mlx). */
static void sroce_dcqcn_alpha_sync(struct sroce_dcqcn *d,
				   const struct sroce_cc_params *p, u64 now)
{
	u64 period = (u64)p->alpha_period_us * SROCE_CC_NS_PER_US;
	u64 n;

	if (!period || now < d->alpha_ts + period)
		return;
	n = (now - d->alpha_ts) / period;
	d->alpha_ts += n * period;
	if (p->flavour == SROCE_CC_MLX) {
		d->alpha =
			sroce_cc_alpha_update(d->alpha, p->g, d->cnp_in_period);
		d->cnp_in_period = 0;
		n--;
	}
	d->alpha = sroce_cc_alpha_decay(d->alpha, p->g, n);
}

/* Timer stage events up to @now. */
static enum sroce_cc_reason
sroce_dcqcn_timer_sync(struct sroce_cc_state *s,
		       const struct sroce_cc_params *p, u64 now)
{
	struct sroce_dcqcn *d = sroce_dcqcn(s);
	u64 period = (u64)p->time_reset_us * SROCE_CC_NS_PER_US;
	enum sroce_cc_reason why = SROCE_CC_R_NONE;
	u32 n = 0;

	if (!period)
		return why;
	while (s->active && d->inc_ts + period <= now) {
		if (++n > SROCE_DCQCN_CATCHUP) {
			s->rate = p->line_rate;
			d->rt = p->line_rate;
			s->active = 0;
			s->reason = SROCE_CC_R_RECOVERED;
			return SROCE_CC_R_RECOVERED;
		}
		d->inc_ts += period;
		d->t++;
		d->timer_inc = 1;
		why = sroce_dcqcn_increase(s, p);
	}
	return why;
}

/* Eq. 1 (the cut); Rt per the clamp options; stages reset. */
static enum sroce_cc_reason sroce_dcqcn_cut(struct sroce_cc_state *s,
					    const struct sroce_cc_params *p,
					    u64 now, bool first)
{
	struct sroce_dcqcn *d = sroce_dcqcn(s);
	enum sroce_cc_reason why = SROCE_CC_R_CUT;

	if (p->clamp_tgt_rate ||
	    (p->clamp_tgt_rate_after_time_inc && d->timer_inc))
		d->rt = s->rate;
	if (first && p->first_cnp_rate) {
		s->rate = p->first_cnp_rate;
		if (s->rate > p->line_rate)
			s->rate = p->line_rate;
		if (s->rate < sroce_cc_floor(p))
			s->rate = sroce_cc_floor(p);
		why = SROCE_CC_R_FIRST_CNP;
	} else {
		s->rate = sroce_cc_cut(p, s->rate, d->alpha);
	}
	d->t = 0;
	d->bc = 0;
	d->bytes = 0;
	d->timer_inc = 0;
	d->inc_ts = now;
	d->cut_ts = now;
	d->cut_pending = 0;
	s->reason = why;
	return why;
}

static enum sroce_cc_reason sroce_dcqcn_sync(struct sroce_cc_state *s,
					     const struct sroce_cc_params *p,
					     u64 now)
{
	struct sroce_dcqcn *d = sroce_dcqcn(s);
	enum sroce_cc_reason why = SROCE_CC_R_NONE;

	if (!s->active)
		return why;
	if (d->cut_pending) {
		u64 due = d->cut_ts +
			  (u64)p->monitor_period_us * SROCE_CC_NS_PER_US;

		if (due <= now) {
			sroce_dcqcn_timer_sync(s, p, due);
			sroce_dcqcn_alpha_sync(d, p, due);
			/* a catch-up may have recovered the flow meanwhile */
			if (s->active)
				why = sroce_dcqcn_cut(s, p, due, false);
		}
	}
	if (s->active) {
		enum sroce_cc_reason w = sroce_dcqcn_timer_sync(s, p, now);

		if (w != SROCE_CC_R_NONE)
			why = w;
	}
	sroce_dcqcn_alpha_sync(d, p, now);
	return why;
}

static bool sroce_dcqcn_cnp(struct sroce_cc_state *s,
			    const struct sroce_cc_params *p, u64 now)
{
	struct sroce_dcqcn *d = sroce_dcqcn(s);
	bool first = !s->active;

	sroce_dcqcn_sync(s, p, now);
	if (first || !s->active) {
		first = true;
		s->active = 1;
		d->alpha =
			(u32)(((u64)p->initial_alpha << 20) / SROCE_CC_G_ONE);
		d->alpha_ts = now;
		d->cnp_in_period = 0;
		d->cut_pending = 0;
	}
	if (p->flavour == SROCE_CC_MLX) {
		u64 gap = (u64)p->monitor_period_us * SROCE_CC_NS_PER_US;

		d->cnp_in_period = 1;
		if (!first && now - d->cut_ts < gap) {
			d->cut_pending = 1; /* cut when the period ends */
			return true;
		}
		sroce_dcqcn_cut(s, p, now, first);
		return true;
	}
	/* paper: Eq. 1 with the old alpha, then Eq. 2; K restarts. */
	sroce_dcqcn_cut(s, p, now, first);
	d->alpha = sroce_cc_alpha_update(d->alpha, p->g, true);
	d->alpha_ts = now;
	return true;
}

static void sroce_dcqcn_sent(struct sroce_cc_state *s,
			     const struct sroce_cc_params *p, u64 now,
			     u32 bytes)
{
	struct sroce_dcqcn *d = sroce_dcqcn(s);

	if (!s->active)
		return;
	sroce_dcqcn_sync(s, p, now);
	if (!p->byte_reset)
		return;
	d->bytes += bytes;
	while (s->active && d->bytes >= p->byte_reset) {
		d->bytes -= p->byte_reset;
		d->bc++;
		sroce_dcqcn_increase(s, p);
	}
}

static void sroce_dcqcn_timer(struct sroce_cc_state *s,
			      const struct sroce_cc_params *p, u64 now)
{
	sroce_dcqcn_sync(s, p, now);
}

/* The next timer stage (a deferred cut only lowers the rate). */
static u64 sroce_dcqcn_next(const struct sroce_cc_state *s,
			    const struct sroce_cc_params *p)
{
	const struct sroce_dcqcn *d = (const struct sroce_dcqcn *)s->priv;

	if (!s->active || !p->time_reset_us)
		return U64_MAX;
	return d->inc_ts + (u64)p->time_reset_us * SROCE_CC_NS_PER_US;
}

static u32 sroce_dcqcn_alpha(const struct sroce_cc_state *s)
{
	return sroce_dcqcn((struct sroce_cc_state *)s)->alpha;
}

const struct sroce_cc_ops sroce_cc_dcqcn_ops = {
	.name = "dcqcn",
	.init = sroce_dcqcn_init,
	.on_cnp = sroce_dcqcn_cnp,
	.on_sent = sroce_dcqcn_sent,
	.on_timer = sroce_dcqcn_timer,
	.alpha = sroce_dcqcn_alpha,
	.next_event = sroce_dcqcn_next,
};
