// SPDX-License-Identifier: GPL-2.0
/*
 * cc_fixed.c - `fixed`: every QP sends at one constant rate, the line rate
 * of the parameters (rpg_max_rate, or the port speed when that is 0), and
 * ignores CNPs.  What the simulators researchers use call a fixed sending
 * rate: a baseline against which a reacting algorithm is compared, and a
 * way to offer a known load to a bottleneck.
 *
 * It is also the smallest example of an algorithm that lives outside
 * sroce.ko: kernel/cc_example/ builds it into sroce_cc_fixed.ko, which
 * registers it with sroce_cc_register() (Documentation/cc.rst).
 *
 * The state is active from init on, so the caller paces every data packet;
 * a change of rpg_max_rate applies at the QP's next packet (on_sent and
 * on_timer take the current parameters).
 */
#include "cc.h"

static void sroce_fixed_follow(struct sroce_cc_state *s,
			       const struct sroce_cc_params *p)
{
	if (s->rate != p->line_rate) {
		s->rate = p->line_rate;
		s->reason = SROCE_CC_R_NONE;
	}
}

static void sroce_fixed_init(struct sroce_cc_state *s,
			     const struct sroce_cc_params *p, u64 now)
{
	sroce_cc_init_line_rate(s, p, now);
	s->active = 1; /* always paced */
}

static void sroce_fixed_sent(struct sroce_cc_state *s,
			     const struct sroce_cc_params *p, u64 now,
			     u32 bytes)
{
	sroce_fixed_follow(s, p);
}

static void sroce_fixed_timer(struct sroce_cc_state *s,
			      const struct sroce_cc_params *p, u64 now)
{
	sroce_fixed_follow(s, p);
}

const struct sroce_cc_ops sroce_cc_fixed_ops = {
	.name = "fixed",
	.init = sroce_fixed_init,
	/* no on_cnp: CNPs are ignored (rp_cnp_ignored) */
	.on_sent = sroce_fixed_sent,
	.on_timer = sroce_fixed_timer,
	/* no next_event: only the departure time ends a wait */
};
