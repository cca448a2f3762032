// SPDX-License-Identifier: GPL-2.0
/*
 * cc_timely.c - TIMELY, the RTT-gradient rate algorithm (Mittal et al.,
 * "TIMELY: RTT-based Congestion Control for the Datacenter", SIGCOMM 2015,
 * Algorithm 1), driven by on_ack with an RTT sample; CNPs are ignored.
 *
 * For each RTT sample r (ns), with the previous sample r':
 *   rtt_diff <- (1 - a) rtt_diff + a (r - r')           a = 7/8 (EWMA)
 *   g = rtt_diff / min_rtt                               normalised gradient
 *   r < T_low:   Rc <- Rc + delta                        additive
 *   r > T_high:  Rc <- Rc (1 - b (1 - T_high / r))       multiplicative
 *   g <= 0:      Rc <- Rc + N delta, N = 5 once g was <= 0 for 5
 *                samples in a row (hyper increase), else 1
 *   g > 0:       Rc <- Rc (1 - b g)                      b = 0.8
 * with Rc within [sroce_cc_floor(), line rate]; delta is rpg_ai_rate.  The
 * paper's constants for a 10 Gb/s fabric: T_low 50 us, T_high 500 us,
 * min_rtt 20 us.  The first sample has no gradient (r' unknown): only the
 * T_low / T_high rules and the additive step apply.  A flow is paced
 * (active) while Rc is below line rate.  No timer: the rate changes only
 * when a sample arrives.
 *
 * One sample cuts Rc to no less than rpg_min_dec_fac % of it (50: a
 * half), as the TIMELY authors' published code snippet bounds every
 * update (at least half the rate before; eRPC, NSDI 2019, uses it).
 * Algorithm 1 as printed has no bound: b g > 1 once g > 1.25, a
 * gradient of 25 us per sample, which a queue building within one round
 * trip gives, and 1 - b g < 0 took Rc to rpg_min_rate at once.  There
 * the flow is stuck: a sample needs a packet sent, and at 1 Mb/s a 1 KB
 * packet leaves every 8.2 ms.  With the bound a run of such samples
 * halves Rc once per round trip, while the queue they see drains.  (A
 * sample that raises Rc shortens the wait its last packet set:
 * sroce_cc_ack().)
 */
#include "cc.h"

#define SROCE_TIMELY_T_LOW_NS (50 * SROCE_CC_NS_PER_US)
#define SROCE_TIMELY_T_HIGH_NS (500 * SROCE_CC_NS_PER_US)
#define SROCE_TIMELY_MIN_RTT_NS (20 * SROCE_CC_NS_PER_US)
/* b = 0.8 = 4/5; the EWMA weight a = 7/8; hyper increase after 5. */
#define SROCE_TIMELY_BETA_NUM 4
#define SROCE_TIMELY_BETA_DEN 5
#define SROCE_TIMELY_HAI_AFTER 5
#define SROCE_TIMELY_HAI_STEPS 5
/* Samples beyond 1 s are clamped (and keep the products below 2^63). */
#define SROCE_TIMELY_MAX_RTT_NS (1000000 * SROCE_CC_NS_PER_US)

struct sroce_timely {
	u64 prev_rtt; /* ns; 0 = no sample yet */
	s64 rtt_diff; /* ns, EWMA of the differences of samples */
	u32 neg; /* samples in a row with g <= 0 */
};

static_assert(sizeof(struct sroce_timely) <=
	      sizeof_field(struct sroce_cc_state, priv));

static struct sroce_timely *sroce_timely(struct sroce_cc_state *s)
{
	return (struct sroce_timely *)s->priv;
}

/*
 * Rc - Rc * num / den, at least rpg_min_dec_fac % of Rc and at least the
 * floor (num / den may exceed 1).
 */
static void sroce_timely_cut(struct sroce_cc_state *s,
			     const struct sroce_cc_params *p, u64 num, u64 den)
{
	u64 keep = s->rate * p->min_dec_fac / 100;
	u64 dec = s->rate * num / den;

	s->rate = dec >= s->rate ? 0 : s->rate - dec;
	if (s->rate < keep)
		s->rate = keep;
	if (s->rate < sroce_cc_floor(p))
		s->rate = sroce_cc_floor(p);
	s->reason = SROCE_CC_R_CUT;
}

static void sroce_timely_raise(struct sroce_cc_state *s,
			       const struct sroce_cc_params *p, u32 steps)
{
	s->rate += steps * p->ai_rate;
	if (s->rate > p->line_rate)
		s->rate = p->line_rate;
	s->reason = steps > 1 ? SROCE_CC_R_HYPER : SROCE_CC_R_ADDITIVE;
}

static void sroce_timely_ack(struct sroce_cc_state *s,
			     const struct sroce_cc_params *p, u64 now, u64 rtt,
			     u32 bytes)
{
	struct sroce_timely *d = sroce_timely(s);
	bool first = !d->prev_rtt;

	if (!rtt)
		return;
	if (rtt > SROCE_TIMELY_MAX_RTT_NS)
		rtt = SROCE_TIMELY_MAX_RTT_NS;
	if (!first)
		d->rtt_diff =
			(d->rtt_diff + 7 * ((s64)rtt - (s64)d->prev_rtt)) / 8;
	d->prev_rtt = rtt;

	if (rtt < SROCE_TIMELY_T_LOW_NS) {
		sroce_timely_raise(s, p, 1);
	} else if (rtt > SROCE_TIMELY_T_HIGH_NS) {
		d->neg = 0;
		/* b (1 - T_high / r) = 4 (r - T_high) / (5 r) */
		sroce_timely_cut(s, p,
				 SROCE_TIMELY_BETA_NUM *
					 (rtt - SROCE_TIMELY_T_HIGH_NS),
				 SROCE_TIMELY_BETA_DEN * rtt);
	} else if (first || d->rtt_diff <= 0) {
		d->neg++;
		sroce_timely_raise(s, p,
				   d->neg >= SROCE_TIMELY_HAI_AFTER ?
					   SROCE_TIMELY_HAI_STEPS :
					   1);
	} else {
		d->neg = 0;
		/* b g = 4 rtt_diff / (5 min_rtt) */
		sroce_timely_cut(s, p, SROCE_TIMELY_BETA_NUM * (u64)d->rtt_diff,
				 SROCE_TIMELY_BETA_DEN *
					 SROCE_TIMELY_MIN_RTT_NS);
	}
	s->active = s->rate < p->line_rate;
}

const struct sroce_cc_ops sroce_cc_timely_ops = {
	.name = "timely",
	.init = sroce_cc_init_line_rate,
	/* no on_cnp: delay-based, CNPs are ignored (rp_cnp_ignored) */
	.on_ack = sroce_timely_ack,
	/* no next_event: only RTT samples change the rate */
};
