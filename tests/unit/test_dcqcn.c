// SPDX-License-Identifier: GPL-2.0
/*
 * test_dcqcn.c - the congestion control core (kernel/proto/cc*.c) against
 * sequences computed by hand from the equations in cc_dcqcn.c and
 * dcqcn.md: alpha (Eq. 2, 3 and the periodic mlx update), the cut (Eq. 1
 * with rpg_gd, rpg_min_dec_fac, rpg_min_rate), the increase stages (fast
 * recovery, additive, hyper), the clamp options, the mlx monitor period,
 * the rate floor under a CNP flood, the DCTCP-style algorithm and pacing.
 *
 * Line rate 10 Gb/s = 10,000,000 kbit/s throughout; times in ns.
 */
#include "cc.h"
#include "ktest.h"

#define LINE 10000000ULL
#define US 1000ULL

static struct sroce_cc_params paper(void)
{
	struct sroce_cc_params p;

	sroce_cc_params_default(&p, SROCE_CC_PAPER, LINE);
	return p;
}

static struct sroce_cc_params mlx(void)
{
	struct sroce_cc_params p;

	sroce_cc_params_default(&p, SROCE_CC_MLX, LINE);
	return p;
}

static void cc_defaults(struct ktest *t)
{
	struct sroce_cc_params m = mlx(), p = paper();

	/* NVIDIA firmware defaults (dcqcn.md table), in kbit/s and us. */
	KTEST_EXPECT_EQ(t, m.time_reset_us, 300);
	KTEST_EXPECT_EQ(t, m.byte_reset, 32767);
	KTEST_EXPECT_EQ(t, m.threshold, 1);
	KTEST_EXPECT_EQ(t, m.ai_rate, 5000);
	KTEST_EXPECT_EQ(t, m.hai_rate, 50000);
	KTEST_EXPECT_EQ(t, m.gd, 11);
	KTEST_EXPECT_EQ(t, m.min_dec_fac, 50);
	KTEST_EXPECT_EQ(t, m.min_rate, 1000);
	KTEST_EXPECT_EQ(t, m.first_cnp_rate, 0);
	KTEST_EXPECT_EQ(t, m.g, 1019);
	KTEST_EXPECT_EQ(t, m.alpha_period_us, 1);
	KTEST_EXPECT_EQ(t, m.monitor_period_us, 4);
	KTEST_EXPECT_EQ(t, m.initial_alpha, 1023);
	KTEST_EXPECT_EQ(t, m.clamp_tgt_rate, 0);
	KTEST_EXPECT_EQ(t, m.clamp_tgt_rate_after_time_inc, 1);
	KTEST_EXPECT_EQ(t, m.line_rate, LINE);
	/* SIGCOMM 2015: g 1/256, K = T = 55 us, B 10 MB, F 5, R_AI 40 Mb/s. */
	KTEST_EXPECT_EQ(t, p.g, 1020);
	KTEST_EXPECT_EQ(t, p.alpha_period_us, 55);
	KTEST_EXPECT_EQ(t, p.time_reset_us, 55);
	KTEST_EXPECT_EQ(t, p.byte_reset, 10485760);
	KTEST_EXPECT_EQ(t, p.threshold, 5);
	KTEST_EXPECT_EQ(t, p.ai_rate, 40000);
	KTEST_EXPECT_EQ(t, p.initial_alpha, 1024);
	KTEST_EXPECT_EQ(t, p.clamp_tgt_rate, 1);
}

static void cc_alpha_equations(struct ktest *t)
{
	/* Eq. 2 with alpha = 1 stays 1; from 0 it gains g = 4/1024. */
	KTEST_EXPECT_EQ(t, sroce_cc_alpha_update(SROCE_CC_ONE, 1020, true),
			SROCE_CC_ONE);
	KTEST_EXPECT_EQ(t, sroce_cc_alpha_update(0, 1020, true), 4096);
	/* Eq. 3: 2^20 * 1019 / 1024. */
	KTEST_EXPECT_EQ(t, sroce_cc_alpha_update(SROCE_CC_ONE, 1019, false),
			1043456);
	KTEST_EXPECT_EQ(t, sroce_cc_alpha_decay(SROCE_CC_ONE, 1020, 0),
			SROCE_CC_ONE);
	KTEST_EXPECT_EQ(t, sroce_cc_alpha_decay(SROCE_CC_ONE, 1020, 2),
			1040400);
	/* 1000 periods: 2^20 * (1019/1024)^1000 = 7849.2; squaring: 7847. */
	KTEST_EXPECT_EQ(t, sroce_cc_alpha_decay(SROCE_CC_ONE, 1019, 1000),
			7847);
	/* A very long idle decays to 0 in O(log n). */
	KTEST_EXPECT_EQ(t, sroce_cc_alpha_decay(SROCE_CC_ONE, 1019, ~0ULL), 0);
	KTEST_EXPECT_EQ(t, sroce_cc_alpha_decay(0, 1019, 5), 0);
}

static void cc_cut_equation(struct ktest *t)
{
	struct sroce_cc_params p = mlx();

	/* gd 11: alpha / 2. */
	KTEST_EXPECT_EQ(t, sroce_cc_cut(&p, LINE, SROCE_CC_ONE), 5000000);
	KTEST_EXPECT_EQ(t, sroce_cc_cut(&p, LINE, SROCE_CC_ONE / 2), 7500000);
	KTEST_EXPECT_EQ(t, sroce_cc_cut(&p, LINE, 0), LINE);
	/* gd 12: alpha / 4. */
	p.gd = 12;
	KTEST_EXPECT_EQ(t, sroce_cc_cut(&p, LINE, SROCE_CC_ONE), 7500000);
	/* gd 10: the whole rate, floored by min_dec_fac 50 %. */
	p.gd = 10;
	KTEST_EXPECT_EQ(t, sroce_cc_cut(&p, LINE, SROCE_CC_ONE), 5000000);
	p.min_dec_fac = 80;
	KTEST_EXPECT_EQ(t, sroce_cc_cut(&p, LINE, SROCE_CC_ONE), 8000000);
	/* min_dec_fac 0: down to rpg_min_rate. */
	p.min_dec_fac = 0;
	KTEST_EXPECT_EQ(t, sroce_cc_cut(&p, LINE, SROCE_CC_ONE), 1000);
	p.min_rate = 2500;
	KTEST_EXPECT_EQ(t, sroce_cc_cut(&p, 2000, SROCE_CC_ONE), 2500);
}

/*
 * rpg_min_rate above the line rate (a knob set for a faster port): a cut
 * floors at the line rate, never raising the rate above it (found by
 * tests/fuzz: a CNP took a 1 Gb/s QP to 348 Gb/s).
 */
static void cc_min_rate_above_line(struct ktest *t)
{
	const struct sroce_cc_ops *o = &sroce_cc_dcqcn_ops;
	struct sroce_cc_params p;
	struct sroce_cc_state s;
	u64 edt = 0;

	sroce_cc_params_default(&p, SROCE_CC_PAPER, 1000000);
	p.min_rate = 348117000;
	KTEST_EXPECT_EQ(t, sroce_cc_cut(&p, 1000000, SROCE_CC_ONE), 1000000);
	KTEST_EXPECT_EQ(t, sroce_cc_cut(&p, 600000, SROCE_CC_ONE), 1000000);
	o->init(&s, &p, 0);
	KTEST_EXPECT(t, sroce_cc_cnp(o, &s, &p, &edt, 1000));
	KTEST_EXPECT_EQ(t, s.rate, 1000000);
	/* rate_to_set_on_first_cnp below both: the line rate still wins. */
	sroce_cc_params_default(&p, SROCE_CC_MLX, 1000000);
	p.min_rate = 2000000;
	p.first_cnp_rate = 500000;
	o->init(&s, &p, 0);
	KTEST_EXPECT(t, sroce_cc_cnp(o, &s, &p, &edt, 1000));
	KTEST_EXPECT_EQ(t, s.rate, 1000000);
	KTEST_EXPECT(t, s.rate <= p.line_rate);
}

static void dcqcn_paper_sequence(struct ktest *t)
{
	struct sroce_cc_params p = paper();
	const struct sroce_cc_ops *o = &sroce_cc_dcqcn_ops;
	static const u64 fr[] = { 7500000, 8750000, 9375000, 9687500, 9843750 };
	struct sroce_cc_state s;

	o->init(&s, &p, 0);
	KTEST_EXPECT_EQ(t, s.rate, LINE); /* flows start at line rate */
	KTEST_EXPECT(t, !s.active);
	o->on_timer(&s, &p, 10000 * US); /* inactive: nothing happens */
	KTEST_EXPECT_EQ(t, s.rate, LINE);

	/* First CNP: alpha = 1, Rc halves, Rt = old Rc, alpha stays 1. */
	KTEST_EXPECT(t, o->on_cnp(&s, &p, 1000));
	KTEST_EXPECT_EQ(t, s.rate, 5000000);
	KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_CUT);
	KTEST_EXPECT_EQ(t, o->alpha(&s), SROCE_CC_ONE);
	/* F = 5 timer events of fast recovery towards Rt = 10 G. */
	for (u32 i = 0; i < 5; i++) {
		o->on_timer(&s, &p, 1000 + (i + 1) * 55 * US);
		KTEST_EXPECT_EQ(t, s.rate, fr[i]);
		KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_FAST_RECOVERY);
	}
	/* T = 6: additive increase (Rt clamped to line rate). */
	o->on_timer(&s, &p, 1000 + 6 * 55 * US + 54 * US);
	KTEST_EXPECT_EQ(t, s.rate, 9921875);
	KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_ADDITIVE);
}

static void dcqcn_paper_second_cnp(struct ktest *t)
{
	struct sroce_cc_params p = paper();
	const struct sroce_cc_ops *o = &sroce_cc_dcqcn_ops;
	struct sroce_cc_state s;

	o->init(&s, &p, 0);
	o->on_cnp(&s, &p, 1000);
	/*
	 * At 111.5 us: two timer events happened (7.5 G, 8.75 G) and two K
	 * periods without a CNP decayed alpha twice (Eq. 3): 1040400.  The
	 * cut uses that alpha: 8750000 - (8750000 * 1040400 >> 20 >> 1).
	 */
	o->on_cnp(&s, &p, 111500);
	KTEST_EXPECT_EQ(t, s.rate, 4409113);
	/* Then Eq. 2: 1040400 * 1020 / 1024 + 4096. */
	KTEST_EXPECT_EQ(t, o->alpha(&s), 1040431);
	/* The timer restarted at the cut: no event at 1000 + 3 * 55 us. */
	o->on_timer(&s, &p, 1000 + 3 * 55 * US);
	KTEST_EXPECT_EQ(t, s.rate, 4409113);
	/* Rt = 8.75 G (clamp_tgt_rate): FR to (8750000 + 4409113 + 1) / 2. */
	o->on_timer(&s, &p, 111500 + 55 * US);
	KTEST_EXPECT_EQ(t, s.rate, 6579557);
}

/* Two cuts, then byte and timer stages: FR, AI, hyper (paper and mlx). */
static void dcqcn_stages(struct ktest *t, u8 flavour, u64 last_rt_step)
{
	struct sroce_cc_params p = paper();
	const struct sroce_cc_ops *o = &sroce_cc_dcqcn_ops;
	struct sroce_cc_state s;

	p.flavour = flavour;
	p.threshold = 1;
	p.byte_reset = 1000;
	p.monitor_period_us = 0;
	p.alpha_period_us = 55;
	p.initial_alpha = 1024;
	o->init(&s, &p, 0);
	o->on_cnp(&s, &p, 0); /* Rc 5 G, Rt 10 G */
	o->on_cnp(&s, &p, 100); /* Rt 5 G, Rc 2.5 G */
	KTEST_EXPECT_EQ(t, s.rate, 2500000);
	o->on_sent(&s, &p, 200, 999); /* not a whole stage yet */
	KTEST_EXPECT_EQ(t, s.rate, 2500000);
	o->on_sent(&s, &p, 210, 1); /* BC 1: FR */
	KTEST_EXPECT_EQ(t, s.rate, 3750000);
	KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_FAST_RECOVERY);
	o->on_sent(&s, &p, 300, 1000); /* BC 2, T 0: AI, Rt 5.04 G */
	KTEST_EXPECT_EQ(t, s.rate, 4395000);
	KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_ADDITIVE);
	o->on_timer(&s, &p, 100 + 55 * US); /* T 1: AI, Rt 5.08 G */
	KTEST_EXPECT_EQ(t, s.rate, 4737500);
	o->on_timer(&s, &p, 100 + 110 * US); /* T 2, BC 2: hyper i 1 */
	KTEST_EXPECT_EQ(t, s.rate, 5008750);
	KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_HYPER);
	o->on_sent(&s, &p, 100 + 111 * US, 1000); /* BC 3: hyper i 1 */
	KTEST_EXPECT_EQ(t, s.rate, 5244375);
	/* T 3, BC 3: paper i = 2 (Rt 5.88 G), mlx a constant step (5.68 G). */
	o->on_timer(&s, &p, 100 + 165 * US);
	KTEST_EXPECT_EQ(t, s.rate, (5480000 + last_rt_step + 5244375 + 1) / 2);
	KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_HYPER);
}

static void dcqcn_stages_paper(struct ktest *t)
{
	dcqcn_stages(t, SROCE_CC_PAPER, 400000);
}

static void dcqcn_stages_mlx(struct ktest *t)
{
	dcqcn_stages(t, SROCE_CC_MLX, 200000);
}

static void dcqcn_mlx_sequence(struct ktest *t)
{
	struct sroce_cc_params p = mlx();
	const struct sroce_cc_ops *o = &sroce_cc_dcqcn_ops;
	struct sroce_cc_state s;

	o->init(&s, &p, 0);
	/* First CNP: alpha = 1023/1024, cut at once; Rt = 10 G. */
	o->on_cnp(&s, &p, 1000);
	KTEST_EXPECT_EQ(t, o->alpha(&s), 1047552);
	KTEST_EXPECT_EQ(t, s.rate, 5004883);
	/* Inside the 4 us monitor period: deferred, and many CNPs = one. */
	for (u64 now = 3000; now < 3010; now++)
		o->on_cnp(&s, &p, now);
	KTEST_EXPECT_EQ(t, s.rate, 5004883);
	o->on_timer(&s, &p, 4999);
	KTEST_EXPECT_EQ(t, s.rate, 5004883);
	/*
	 * At 5 us the deferred cut runs with the periodic alpha: periods
	 * [1,2) CNP, [2,3) none, [3,4) CNP, [4,5) none.
	 */
	o->on_timer(&s, &p, 5000);
	KTEST_EXPECT_EQ(t, o->alpha(&s), 1037379);
	KTEST_EXPECT_EQ(t, s.rate, 2529164);
	/* Rt stayed 10 G (no clamp: the timer did not raise the rate). */
	o->on_timer(&s, &p, 5000 + 300 * US); /* T 1 <= F: FR */
	KTEST_EXPECT_EQ(t, s.rate, 6264582);
	o->on_timer(&s, &p, 5000 + 600 * US); /* T 2: AI, Rt stays 10 G */
	KTEST_EXPECT_EQ(t, s.rate, 8132291);
	KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_ADDITIVE);
}

static void dcqcn_clamp_options(struct ktest *t)
{
	const struct sroce_cc_ops *o = &sroce_cc_dcqcn_ops;
	struct sroce_cc_params p = mlx();
	struct sroce_cc_state s;

	p.initial_alpha = 1024;
	p.monitor_period_us = 0;
	p.alpha_period_us = 0; /* alpha stays 1: cuts halve */
	p.byte_reset = 0;

	/* Neither clamp (after the first cut): Rt stays 10 G. */
	p.clamp_tgt_rate_after_time_inc = false;
	o->init(&s, &p, 0);
	o->on_cnp(&s, &p, 0);
	o->on_cnp(&s, &p, 10); /* 2.5 G, Rt 10 G */
	o->on_timer(&s, &p, 10 + 300 * US); /* FR: (10 G + 2.5 G) / 2 */
	KTEST_EXPECT_EQ(t, s.rate, 6250000);

	/* clamp_tgt_rate: every cut sets Rt = Rc (5 G). */
	p.clamp_tgt_rate = true;
	o->init(&s, &p, 0);
	o->on_cnp(&s, &p, 0);
	o->on_cnp(&s, &p, 10);
	o->on_timer(&s, &p, 10 + 300 * US);
	KTEST_EXPECT_EQ(t, s.rate, 3750000);

	/* after_time_inc: clamp only if the timer raised Rc since the cut. */
	p.clamp_tgt_rate = false;
	p.clamp_tgt_rate_after_time_inc = true;
	o->init(&s, &p, 0);
	o->on_cnp(&s, &p, 0); /* 5 G, Rt 10 G (line counts as timer) */
	o->on_cnp(&s, &p, 10); /* no timer event: Rt stays 10 G, 2.5 G */
	o->on_timer(&s, &p, 10 + 300 * US); /* FR 6.25 G, by the timer */
	KTEST_EXPECT_EQ(t, s.rate, 6250000);
	o->on_cnp(&s, &p, 20 + 300 * US); /* Rt = 6.25 G, Rc 3.125 G */
	KTEST_EXPECT_EQ(t, s.rate, 3125000);
	o->on_timer(&s, &p, 20 + 600 * US); /* FR towards 6.25 G */
	KTEST_EXPECT_EQ(t, s.rate, 4687500);
}

static void dcqcn_first_cnp_rate(struct ktest *t)
{
	const struct sroce_cc_ops *o = &sroce_cc_dcqcn_ops;
	struct sroce_cc_params p = mlx();
	struct sroce_cc_state s;

	p.first_cnp_rate = 1000000; /* 1 Gb/s */
	o->init(&s, &p, 0);
	o->on_cnp(&s, &p, 0);
	KTEST_EXPECT_EQ(t, s.rate, 1000000);
	KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_FIRST_CNP);
	/* Only the first: the next one is an alpha cut (alpha 1023/1024). */
	o->on_cnp(&s, &p, 10 * US);
	KTEST_EXPECT(t, s.rate < 1000000 && s.rate >= 500000);
	KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_CUT);
}

static void dcqcn_flood_floor(struct ktest *t)
{
	const struct sroce_cc_ops *o = &sroce_cc_dcqcn_ops;
	struct sroce_cc_params p = paper();
	struct sroce_cc_state s;
	u64 prev = LINE;
	bool ok = true;

	p.min_rate = 7000; /* 7 Mb/s */
	o->init(&s, &p, 0);
	/* A CNP every ns, 100000 of them: never below the floor. */
	for (u64 now = 1; now <= 100000; now++) {
		o->on_cnp(&s, &p, now);
		if (s.rate < p.min_rate || s.rate > prev)
			ok = false;
		prev = s.rate;
	}
	KTEST_EXPECT(t, ok);
	KTEST_EXPECT_EQ(t, s.rate, 7000);
	/* mlx: min_dec_fac 0 and gd 10 would zero it; the floor holds. */
	p = mlx();
	p.min_dec_fac = 0;
	p.gd = 10;
	o->init(&s, &p, 0);
	for (u64 now = 1; now <= 100; now++)
		o->on_cnp(&s, &p, now * 5 * US);
	KTEST_EXPECT_EQ(t, s.rate, 1000);
}

static void dcqcn_recovers(struct ktest *t)
{
	const struct sroce_cc_ops *o = &sroce_cc_dcqcn_ops;
	struct sroce_cc_params p = paper();
	struct sroce_cc_state s;

	o->init(&s, &p, 0);
	o->on_cnp(&s, &p, 0);
	o->on_cnp(&s, &p, 1);
	/* Long enough for Rc to reach Rt = 5 G, then AI and HAI to 10 G. */
	KTEST_EXPECT(t, s.active);
	o->on_timer(&s, &p, 200000 * US);
	KTEST_EXPECT_EQ(t, s.rate, LINE);
	KTEST_EXPECT(t, !s.active);
	/* Inactive again: the next CNP is a first one (alpha 1: half). */
	o->on_cnp(&s, &p, 200001 * US);
	KTEST_EXPECT_EQ(t, s.rate, LINE / 2);
	/*
	 * With R_AI 1 kbit/s and no byte stages, Rt = 2.5 G needs millions
	 * of events: an idle of an hour stops after 4096 and counts the flow
	 * as recovered (bounded work per call).
	 */
	p.ai_rate = 1;
	p.byte_reset = 0;
	o->on_cnp(&s, &p, 200002 * US);
	o->on_timer(&s, &p, 200002 * US + 4096 * 55 * US);
	KTEST_EXPECT(t, s.rate < LINE);
	KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_ADDITIVE);
	o->on_timer(&s, &p, 3600ULL * 1000000000ULL);
	KTEST_EXPECT_EQ(t, s.rate, LINE);
	KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_RECOVERED);
}

static void dctcp_sequence(struct ktest *t)
{
	const struct sroce_cc_ops *o = &sroce_cc_dctcp_ops;
	struct sroce_cc_params p = mlx();
	struct sroce_cc_state s;

	p.g = 960; /* 1 - 1/16 */
	p.alpha_period_us = 10;
	p.initial_alpha = 1024;
	o->init(&s, &p, 0);
	KTEST_EXPECT(t, o->on_cnp(&s, &p, 0));
	KTEST_EXPECT_EQ(t, s.rate, LINE); /* the cut waits for the window */
	o->on_timer(&s, &p, 10 * US); /* alpha 1, cut by half */
	KTEST_EXPECT_EQ(t, s.rate, 5000000);
	KTEST_EXPECT_EQ(t, o->alpha(&s), SROCE_CC_ONE);
	o->on_timer(&s, &p, 20 * US); /* clean window: +5 Mb/s */
	KTEST_EXPECT_EQ(t, s.rate, 5005000);
	KTEST_EXPECT_EQ(t, o->alpha(&s), 983040);
	o->on_timer(&s, &p, 50 * US); /* three clean windows at once */
	KTEST_EXPECT_EQ(t, s.rate, 5020000);
	KTEST_EXPECT_EQ(t, o->alpha(&s), 810000);
	o->on_cnp(&s, &p, 52 * US);
	o->on_cnp(&s, &p, 53 * US); /* one cut per window */
	o->on_timer(&s, &p, 60 * US);
	KTEST_EXPECT_EQ(t, o->alpha(&s), 824911);
	KTEST_EXPECT_EQ(t, s.rate, 3045392);
	KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_CUT);
}

static void cc_none(struct ktest *t)
{
	const struct sroce_cc_ops *o = &sroce_cc_none_ops;
	struct sroce_cc_params p = mlx();
	struct sroce_cc_state s;
	u64 edt = 0;

	o->init(&s, &p, 0);
	KTEST_EXPECT_EQ(t, s.rate, LINE);
	KTEST_EXPECT(t, !sroce_cc_cnp(o, &s, &p, &edt, 5));
	KTEST_EXPECT_EQ(t, s.rate, LINE);
}

static void cc_pacing(struct ktest *t)
{
	/* 1000 bytes at 1 Gb/s: 8 us. */
	KTEST_EXPECT_EQ(t, sroce_cc_tx_time(1000, 1000000), 8000);
	KTEST_EXPECT_EQ(t, sroce_cc_tx_time(1, 0), 8000000);
	KTEST_EXPECT_EQ(t, sroce_cc_pace_sent(0, 10000, 1000, 1000000, 0),
			18000);
	KTEST_EXPECT(t, !sroce_cc_pace_ok(18000, 17999));
	KTEST_EXPECT(t, sroce_cc_pace_ok(18000, 18000));
	/* Back to back: the departure time advances from the last one. */
	KTEST_EXPECT_EQ(t, sroce_cc_pace_sent(18000, 18000, 500, 1000000, 0),
			22000);
	/* After an idle at most @burst ns of credit. */
	KTEST_EXPECT_EQ(t, sroce_cc_pace_sent(5000, 10000, 1000, 1000000, 2000),
			16000);
	KTEST_EXPECT_EQ(t, sroce_cc_pace_sent(9000, 10000, 1000, 1000000, 2000),
			17000);
	/* NP throttle (min_time_between_cnps). */
	KTEST_EXPECT(t, sroce_cc_np_may_send(0, 7, 50000));
	KTEST_EXPECT(t, !sroce_cc_np_may_send(1000, 50999, 50000));
	KTEST_EXPECT(t, sroce_cc_np_may_send(1000, 51000, 50000));
	KTEST_EXPECT(t, sroce_cc_np_may_send(1000, 1001, 0));
}

static void cc_pace_burst(struct ktest *t)
{
	/* 16 KiB at 40 Gb/s is 3276.8 ns: the byte bound. */
	KTEST_EXPECT_EQ(t, sroce_cc_pace_burst(40000000, 250000), 3276);
	/* At 50 Mb/s 16 KiB would take 2.6 ms: the time bound. */
	KTEST_EXPECT_EQ(t, sroce_cc_pace_burst(50000, 250000), 250000);
	/* An idle QP at 40 Gb/s restarts with 3276 ns of credit, not 250 us. */
	KTEST_EXPECT_EQ(
		t,
		sroce_cc_pace_sent(0, 1000000, 4096, 40000000,
				   sroce_cc_pace_burst(40000000, 250000)),
		1000000 - 3276 + 819);
}

static void cc_pace_rerate(struct ktest *t)
{
	/* 6 us left at 1 Gb/s; at 3 Gb/s the rest of the packet takes 2 us. */
	KTEST_EXPECT_EQ(t, sroce_cc_pace_rerate(16000, 10000, 1000000, 3000000),
			12000);
	/* A cut applies from the next packet on; a past edt stays. */
	KTEST_EXPECT_EQ(t, sroce_cc_pace_rerate(16000, 10000, 1000000, 500000),
			16000);
	KTEST_EXPECT_EQ(t, sroce_cc_pace_rerate(9000, 10000, 1000, 1000000),
			9000);
	/* A wait of 10 s (beyond 2^32 ns) at 1 Mb/s, then 1 Gb/s: 10 ms. */
	KTEST_EXPECT_EQ(t,
			sroce_cc_pace_rerate(10000000000ULL, 0, 1000, 1000000),
			10000000);
}

/*
 * A cut to rpg_min_rate (1 Mb/s) and a 1 KB packet: the departure time
 * is 8.192 ms away.  The rate recovers at the first timer stage (300 us,
 * fast recovery to (Rt + Rc) / 2), and the QP must send again then, not
 * 8 ms later (the bug ccsim exposed).
 */
static void cc_pace_recovers_early(struct ktest *t)
{
	const struct sroce_cc_ops *o = &sroce_cc_dcqcn_ops;
	struct sroce_cc_params p = mlx();
	struct sroce_cc_state s;
	u64 edt = 0;

	p.min_dec_fac = 0;
	p.gd = 10; /* cut by alpha = 1: to the floor */
	p.initial_alpha = 1024;
	o->init(&s, &p, 0);
	KTEST_EXPECT_EQ(t, sroce_cc_pace_check(o, &s, &p, &edt, 0), 0);
	o->on_cnp(&s, &p, 0);
	KTEST_EXPECT_EQ(t, s.rate, 1000);
	KTEST_EXPECT_EQ(t, sroce_cc_pace_check(o, &s, &p, &edt, 0), 0);
	o->on_sent(&s, &p, 0, 1024);
	edt = sroce_cc_pace_sent(edt, 0, 1024, s.rate, 250 * US);
	KTEST_EXPECT_EQ(t, edt, 8192000);
	/* Waiting: look again at the next timer stage, not at edt. */
	KTEST_EXPECT_EQ(t, o->next_event(&s, &p), 300 * US);
	KTEST_EXPECT_EQ(t, sroce_cc_pace_check(o, &s, &p, &edt, 1 * US),
			300 * US);
	KTEST_EXPECT_EQ(t, edt, 8192000);
	/* 300 us: Rc = (10 G + 1 M) / 2; 7.892 ms at 1 Mb/s -> 1578 ns. */
	KTEST_EXPECT_EQ(t, sroce_cc_pace_check(o, &s, &p, &edt, 300 * US),
			301578);
	KTEST_EXPECT_EQ(t, s.rate, 5000500);
	KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_FAST_RECOVERY);
	KTEST_EXPECT_EQ(t, edt, 301578);
	KTEST_EXPECT_EQ(t, sroce_cc_pace_check(o, &s, &p, &edt, 301577),
			301578);
	KTEST_EXPECT_EQ(t, sroce_cc_pace_check(o, &s, &p, &edt, 301578), 0);
	/* A CNP (a cut) while waiting leaves the departure time alone. */
	edt = sroce_cc_pace_sent(edt, 301578, 1024, s.rate, 250 * US);
	KTEST_EXPECT_EQ(t, edt, 301578 + 1638);
	o->on_cnp(&s, &p, 302000);
	KTEST_EXPECT(t, s.rate < 5000500);
	KTEST_EXPECT_EQ(t, sroce_cc_pace_check(o, &s, &p, &edt, 302100),
			301578 + 1638);
}

static void cc_pace_wait_bounds(struct ktest *t)
{
	struct sroce_cc_ops o = sroce_cc_dcqcn_ops;
	const struct sroce_cc_ops *d = &sroce_cc_dctcp_ops;
	struct sroce_cc_params p = mlx();
	struct sroce_cc_state s;
	u64 edt;

	/* Without next_event (never): only edt ends the wait. */
	o.next_event = NULL;
	p.min_dec_fac = 0;
	p.gd = 10;
	p.initial_alpha = 1024;
	p.time_reset_us = 0; /* no timer stage */
	o.init(&s, &p, 0);
	o.on_cnp(&s, &p, 0);
	edt = 8192000;
	KTEST_EXPECT_EQ(t, sroce_cc_pace_check(&o, &s, &p, &edt, 10 * US),
			8192000);
	/* dcqcn with no timer stage: the same. */
	KTEST_EXPECT_EQ(t, sroce_cc_dcqcn_ops.next_event(&s, &p), U64_MAX);
	KTEST_EXPECT_EQ(t,
			sroce_cc_pace_check(&sroce_cc_dcqcn_ops, &s, &p, &edt,
					    10 * US),
			8192000);
	/* DCTCP: the end of the window (10 us), at least 1 us ahead. */
	p = mlx();
	p.alpha_period_us = 10;
	d->init(&s, &p, 0);
	KTEST_EXPECT_EQ(t, d->next_event(&s, &p), U64_MAX);
	d->on_cnp(&s, &p, 5 * US);
	KTEST_EXPECT_EQ(t, d->next_event(&s, &p), 15 * US);
	edt = 100 * US;
	KTEST_EXPECT_EQ(t, sroce_cc_pace_check(d, &s, &p, &edt, 6 * US),
			15 * US);
	/* A next event less than 1 us ahead: the wait is 1 us. */
	KTEST_EXPECT_EQ(t, sroce_cc_pace_check(d, &s, &p, &edt, 14900), 15900);
}

/* A 4 KB packet sent at @now as kernel/cc.c paces it (module credit). */
static void sent_4k(const struct sroce_cc_ops *o, struct sroce_cc_state *s,
		    const struct sroce_cc_params *p, u64 *edt, u64 now)
{
	sroce_cc_pace_packet(o, s, p, edt, now, 4096, SROCE_CC_BURST_NS);
}

/*
 * A QP that recovered to line rate while idle starts its next episode at
 * the CNP with no credit, although its state says active until a hook
 * runs.  The module judged by that (published) flag and kept the old
 * departure time: 16 KiB (5 packets of 4 KB) left at once.
 */
static void cc_pace_new_episode(struct ktest *t)
{
	const struct sroce_cc_ops *o = &sroce_cc_dcqcn_ops;
	struct sroce_cc_ops no_cnp = sroce_cc_dcqcn_ops;
	struct sroce_cc_params p = mlx();
	struct sroce_cc_state s;
	u64 edt = 0, now = 100000 * US, rate, old;
	int n = 0;

	o->init(&s, &p, 0);
	KTEST_EXPECT(t, sroce_cc_cnp(o, &s, &p, &edt, 0));
	KTEST_EXPECT(t, s.active);
	KTEST_EXPECT_EQ(t, edt, 0);
	rate = s.rate;
	KTEST_EXPECT(t, rate < LINE);
	sent_4k(o, &s, &p, &edt, 0);
	/* 100 ms idle: recovered after some 7 ms of stages, unseen. */
	KTEST_EXPECT(t, s.active);
	KTEST_EXPECT(t, sroce_cc_cnp(o, &s, &p, &edt, now));
	/* A first CNP again (the same cut from line rate), paced from now. */
	KTEST_EXPECT(t, s.active);
	KTEST_EXPECT_EQ(t, s.rate, rate);
	KTEST_EXPECT_EQ(t, edt, now);
	while (n < 8 && !sroce_cc_pace_check(o, &s, &p, &edt, now)) {
		sent_4k(o, &s, &p, &edt, now);
		n++;
	}
	KTEST_EXPECT_EQ(t, n, 1);
	/* A CNP within the episode (a cut) leaves the departure time. */
	old = edt;
	KTEST_EXPECT(t, sroce_cc_cnp(o, &s, &p, &edt, now + 5 * US));
	KTEST_EXPECT(t, s.rate < rate);
	KTEST_EXPECT_EQ(t, edt, old);
	/* An algorithm without on_cnp: not handled, nothing moves. */
	no_cnp.on_cnp = NULL;
	rate = s.rate;
	KTEST_EXPECT(t, !sroce_cc_cnp(&no_cnp, &s, &p, &edt, now + 6 * US));
	KTEST_EXPECT_EQ(t, s.rate, rate);
	KTEST_EXPECT_EQ(t, edt, old);
}

static void cc_fixed(struct ktest *t)
{
	const struct sroce_cc_ops *o = &sroce_cc_fixed_ops;
	struct sroce_cc_params p = mlx();
	struct sroce_cc_state s;
	u64 edt = 0;

	p.line_rate = 100000; /* rpg_max_rate 100 Mb/s */
	o->init(&s, &p, 0);
	KTEST_EXPECT_EQ(t, s.rate, 100000);
	KTEST_EXPECT(t, s.active); /* paced from the first packet */
	KTEST_EXPECT(t, !sroce_cc_cnp(o, &s, &p, &edt, 10));
	KTEST_EXPECT_EQ(t, s.rate, 100000);
	/* 1250 bytes at 100 Mb/s: 100 us, and nothing ends the wait sooner. */
	KTEST_EXPECT_EQ(t, sroce_cc_pace_check(o, &s, &p, &edt, 0), 0);
	o->on_sent(&s, &p, 0, 1250);
	edt = sroce_cc_pace_sent(edt, 0, 1250, s.rate, 0);
	KTEST_EXPECT_EQ(t, edt, 100 * US);
	KTEST_EXPECT_EQ(t, sroce_cc_pace_check(o, &s, &p, &edt, 1 * US),
			100 * US);
	/* rpg_max_rate raised to 400 Mb/s: the rest of the wait shrinks. */
	p.line_rate = 400000;
	KTEST_EXPECT_EQ(t, sroce_cc_pace_check(o, &s, &p, &edt, 20 * US),
			40 * US);
	KTEST_EXPECT_EQ(t, s.rate, 400000);
	KTEST_EXPECT(t, s.active);
}

static const struct ktest_case dcqcn_cases[] = {
	KTEST_CASE(cc_defaults),
	KTEST_CASE(cc_alpha_equations),
	KTEST_CASE(cc_cut_equation),
	KTEST_CASE(cc_min_rate_above_line),
	KTEST_CASE(dcqcn_paper_sequence),
	KTEST_CASE(dcqcn_paper_second_cnp),
	KTEST_CASE(dcqcn_stages_paper),
	KTEST_CASE(dcqcn_stages_mlx),
	KTEST_CASE(dcqcn_mlx_sequence),
	KTEST_CASE(dcqcn_clamp_options),
	KTEST_CASE(dcqcn_first_cnp_rate),
	KTEST_CASE(dcqcn_flood_floor),
	KTEST_CASE(dcqcn_recovers),
	KTEST_CASE(dctcp_sequence),
	KTEST_CASE(cc_none),
	KTEST_CASE(cc_pacing),
	KTEST_CASE(cc_pace_burst),
	KTEST_CASE(cc_pace_rerate),
	KTEST_CASE(cc_pace_recovers_early),
	KTEST_CASE(cc_pace_wait_bounds),
	KTEST_CASE(cc_pace_new_episode),
	KTEST_CASE(cc_fixed),
};

KTEST_SUITE(dcqcn);
