// SPDX-License-Identifier: GPL-2.0
/*
 * cc_dctcp.c - a DCTCP-style rate algorithm driven by CNPs (Alizadeh et
 * al., SIGCOMM 2010, adapted to a rate like DCQCN's reaction point).
 *
 * Time is cut into windows of dce_tcp_rtt us (the RTT estimate).  At the
 * end of each window:
 *   alpha <- g alpha + (1 - g) F      F = 1 if a CNP arrived in the window
 *   F = 1:  Rc <- Rc (1 - alpha / 2^(gd - 10))   (at most one cut per RTT)
 *   F = 0:  Rc <- Rc + R_AI                       (one step per RTT)
 * with the cut bounded by rpg_min_dec_fac and rpg_min_rate and Rc by line
 * rate.  A flow is inactive (no state advances) until its first CNP, which
 * sets alpha to initial_alpha_value; back at line rate it is inactive again.
 * Windows without traffic are evaluated lazily in O(1).
 */
#include "cc.h"

struct sroce_dctcp {
	u64 win_ts; /* ns: start of the current window */
	u32 alpha; /* Q20 */
	u8 marked; /* a CNP arrived in the current window */
};

static_assert(sizeof(struct sroce_dctcp) <=
	      sizeof_field(struct sroce_cc_state, priv));

static struct sroce_dctcp *sroce_dctcp(struct sroce_cc_state *s)
{
	return (struct sroce_dctcp *)s->priv;
}

static void sroce_dctcp_raise(struct sroce_cc_state *s,
			      const struct sroce_cc_params *p, u64 steps)
{
	u64 room = p->line_rate - s->rate;

	if (!steps)
		return;
	if (!p->ai_rate || steps >= room / p->ai_rate + 1)
		s->rate = p->line_rate;
	else
		s->rate += steps * p->ai_rate;
	if (s->rate >= p->line_rate) {
		s->rate = p->line_rate;
		s->active = 0;
	}
	s->reason = SROCE_CC_R_ADDITIVE;
}

static void sroce_dctcp_sync(struct sroce_cc_state *s,
			     const struct sroce_cc_params *p, u64 now)
{
	struct sroce_dctcp *d = sroce_dctcp(s);
	u64 win = (u64)(p->alpha_period_us ? p->alpha_period_us : 1) *
		  SROCE_CC_NS_PER_US;
	u64 n;

	if (!s->active || now < d->win_ts + win)
		return;
	n = (now - d->win_ts) / win;
	d->win_ts += n * win;
	/* The window that just ended ... */
	d->alpha = sroce_cc_alpha_update(d->alpha, p->g, d->marked);
	if (d->marked) {
		s->rate = sroce_cc_cut(p, s->rate, d->alpha);
		s->reason = SROCE_CC_R_CUT;
	} else {
		sroce_dctcp_raise(s, p, 1);
	}
	d->marked = 0;
	/* ... and the n - 1 after it, all without CNPs. */
	d->alpha = sroce_cc_alpha_decay(d->alpha, p->g, n - 1);
	if (s->active)
		sroce_dctcp_raise(s, p, n - 1);
}

static bool sroce_dctcp_cnp(struct sroce_cc_state *s,
			    const struct sroce_cc_params *p, u64 now)
{
	struct sroce_dctcp *d = sroce_dctcp(s);

	sroce_dctcp_sync(s, p, now);
	if (!s->active) {
		s->active = 1;
		d->alpha =
			(u32)(((u64)p->initial_alpha << 20) / SROCE_CC_G_ONE);
		d->win_ts = now;
	}
	d->marked = 1;
	return true;
}

static void sroce_dctcp_sent(struct sroce_cc_state *s,
			     const struct sroce_cc_params *p, u64 now,
			     u32 bytes)
{
	sroce_dctcp_sync(s, p, now);
}

static void sroce_dctcp_timer(struct sroce_cc_state *s,
			      const struct sroce_cc_params *p, u64 now)
{
	sroce_dctcp_sync(s, p, now);
}

/* The end of the current window: a cut or a step. */
static u64 sroce_dctcp_next(const struct sroce_cc_state *s,
			    const struct sroce_cc_params *p)
{
	const struct sroce_dctcp *d = (const struct sroce_dctcp *)s->priv;
	u64 win = (u64)(p->alpha_period_us ? p->alpha_period_us : 1) *
		  SROCE_CC_NS_PER_US;

	return s->active ? d->win_ts + win : U64_MAX;
}

static u32 sroce_dctcp_alpha(const struct sroce_cc_state *s)
{
	return sroce_dctcp((struct sroce_cc_state *)s)->alpha;
}

const struct sroce_cc_ops sroce_cc_dctcp_ops = {
	.name = "dctcp",
	.init = sroce_cc_init_line_rate,
	.on_cnp = sroce_dctcp_cnp,
	.on_sent = sroce_dctcp_sent,
	.on_timer = sroce_dctcp_timer,
	.alpha = sroce_dctcp_alpha,
	.next_event = sroce_dctcp_next,
};
