// SPDX-License-Identifier: GPL-2.0
/*
 * test_timely.c - TIMELY (kernel/proto/cc_timely.c) against a sequence of
 * RTT samples computed by hand from Algorithm 1 of the paper as written
 * in cc_timely.c: T_low 50 us, T_high 500 us, min_rtt 20 us, b = 4/5,
 * EWMA a = 7/8 (rtt_diff = (rtt_diff + 7 diff) / 8, truncated), delta =
 * rpg_ai_rate 10 Mb/s, hyper increase (5 delta) from the fifth g <= 0 in
 * a row, each sample's cut to no less than rpg_min_dec_fac % (50) of the
 * rate.  Line rate 10 Gb/s = 10,000,000 kbit/s; times in ns.
 */
#include "cc.h"
#include "ktest.h"

#define LINE 10000000ULL
#define US 1000ULL

static struct sroce_cc_params timely_params(void)
{
	struct sroce_cc_params p;

	sroce_cc_params_default(&p, SROCE_CC_MLX, LINE);
	p.ai_rate = 10000; /* delta: 10 Mb/s */
	p.min_rate = 1000;
	return p;
}

static void timely_sequence(struct ktest *t)
{
	const struct sroce_cc_ops *o = &sroce_cc_timely_ops;
	struct sroce_cc_params p = timely_params();
	struct sroce_cc_state s;
	u64 now = 0, edt = 0;

	o->init(&s, &p, 0);
	KTEST_EXPECT_EQ(t, s.rate, LINE);
	KTEST_EXPECT(t, !s.active);
	/* ECN is not its signal */
	KTEST_EXPECT(t, !sroce_cc_cnp(o, &s, &p, &edt, 0));
	o->on_ack(&s, &p, ++now, 0, 4096); /* no sample: nothing */
	KTEST_EXPECT_EQ(t, s.rate, LINE);

	/* 30 us < T_low, first sample: + delta, clamped to line rate. */
	o->on_ack(&s, &p, ++now, 30 * US, 4096);
	KTEST_EXPECT_EQ(t, s.rate, LINE);
	KTEST_EXPECT(t, !s.active);

	/*
	 * 600 us > T_high: rtt_diff = 7 * 570000 / 8 = 498750;
	 * Rc = 10^7 - 10^7 * 4 * 100000 / (5 * 600000) = 8666667.
	 */
	o->on_ack(&s, &p, ++now, 600 * US, 4096);
	KTEST_EXPECT_EQ(t, s.rate, 8666667);
	KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_CUT);
	KTEST_EXPECT(t, s.active);

	/* 300 us: rtt_diff = (498750 - 2100000) / 8 = -200156: + delta. */
	o->on_ack(&s, &p, ++now, 300 * US, 4096);
	KTEST_EXPECT_EQ(t, s.rate, 8676667);
	KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_ADDITIVE);

	/*
	 * 250, 200, 150 us: rtt_diff -68769, -52346, -50293 (2nd-4th g <= 0
	 * in a row): + delta each; 100 us: -50036, the fifth: + 5 delta.
	 */
	o->on_ack(&s, &p, ++now, 250 * US, 4096);
	o->on_ack(&s, &p, ++now, 200 * US, 4096);
	o->on_ack(&s, &p, ++now, 150 * US, 4096);
	KTEST_EXPECT_EQ(t, s.rate, 8706667);
	KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_ADDITIVE);
	o->on_ack(&s, &p, ++now, 100 * US, 4096);
	KTEST_EXPECT_EQ(t, s.rate, 8756667);
	KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_HYPER);

	/*
	 * 110 us: rtt_diff = (-50036 + 70000) / 8 = 2495, g > 0:
	 * Rc = 8756667 - 8756667 * 4 * 2495 / (5 * 20000) = 7882752.
	 */
	o->on_ack(&s, &p, ++now, 110 * US, 4096);
	KTEST_EXPECT_EQ(t, s.rate, 7882752);
	KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_CUT);

	/* 40 us < T_low: + delta whatever the gradient (-60938). */
	o->on_ack(&s, &p, ++now, 40 * US, 4096);
	KTEST_EXPECT_EQ(t, s.rate, 7892752);
}

static void timely_bounds(struct ktest *t)
{
	const struct sroce_cc_ops *o = &sroce_cc_timely_ops;
	struct sroce_cc_params p = timely_params();
	struct sroce_cc_state s;

	/*
	 * +400 us: rtt_diff = 350000, g = 17.5, b g = 14 > 1: Algorithm 1
	 * would go below 0; rpg_min_dec_fac (50) keeps half.
	 */
	o->init(&s, &p, 0);
	o->on_ack(&s, &p, 1, 100 * US, 4096);
	o->on_ack(&s, &p, 2, 500 * US, 4096);
	KTEST_EXPECT_EQ(t, s.rate, LINE / 2);
	KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_CUT);
	KTEST_EXPECT(t, s.active);
	/*
	 * A sample of 10 s counts as 1 s: a cut by b (1 - 0.5 / 1000), to
	 * 5000000 - 3998000 = 1002000, held at half: 2500000.
	 */
	o->on_ack(&s, &p, 3, 10000000 * US, 4096);
	KTEST_EXPECT_EQ(t, s.rate, LINE / 4);

	/* rpg_min_dec_fac 0: no bound, b g = 14 goes to the floor. */
	p.min_dec_fac = 0;
	o->init(&s, &p, 0);
	o->on_ack(&s, &p, 1, 100 * US, 4096);
	o->on_ack(&s, &p, 2, 500 * US, 4096);
	KTEST_EXPECT_EQ(t, s.rate, p.min_rate);
	KTEST_EXPECT(t, s.active);
	o->on_ack(&s, &p, 3, 10000000 * US, 4096);
	KTEST_EXPECT_EQ(t, s.rate, p.min_rate);
	p.min_rate = 100000;
	o->on_ack(&s, &p, 4, 10000000 * US, 4096);
	KTEST_EXPECT_EQ(t, s.rate, 100000);
	/* Back to line rate by steps below T_low: inactive again. */
	p.ai_rate = 5000000;
	o->on_ack(&s, &p, 5, 10 * US, 4096);
	KTEST_EXPECT_EQ(t, s.rate, 5100000);
	KTEST_EXPECT(t, s.active);
	o->on_ack(&s, &p, 6, 10 * US, 4096);
	KTEST_EXPECT_EQ(t, s.rate, LINE);
	KTEST_EXPECT(t, !s.active);
	/* No timer of its own: no next_event (never). */
	KTEST_EXPECT(t, !o->next_event);
}

/*
 * sroce_cc_ack(), as kernel/cc.c runs on_ack: the sample that makes the
 * state active starts its pacing then (no credit from an older departure
 * time); a sample within the episode leaves the departure time alone.
 */
static void timely_pace_episode(struct ktest *t)
{
	const struct sroce_cc_ops *o = &sroce_cc_timely_ops;
	struct sroce_cc_params p = timely_params();
	struct sroce_cc_state s;
	u64 edt = 5 * US;

	o->init(&s, &p, 0);
	sroce_cc_ack(o, &s, &p, &edt, 100 * US, 10 * US, 0);
	KTEST_EXPECT(t, !s.active); /* below T_low at line rate */
	KTEST_EXPECT_EQ(t, edt, 5 * US);
	sroce_cc_ack(o, &s, &p, &edt, 200 * US, 1000 * US, 0);
	KTEST_EXPECT(t, s.active); /* above T_high: a cut */
	KTEST_EXPECT_EQ(t, edt, 200 * US);
	edt = 250 * US;
	sroce_cc_ack(o, &s, &p, &edt, 300 * US, 1000 * US, 0);
	KTEST_EXPECT_EQ(t, edt, 250 * US);
}

/*
 * A sample that raises the rate within an episode shortens the wait its
 * last packet set, as a timer's rise does in sroce_cc_pace_check(): the
 * QP does not sit out the 8.2 ms of a 1 KB packet sent at 1 Mb/s (before
 * the fix sroce_cc_ack() left edt at 20 us + 8192 us).
 */
static void timely_rise_shortens_wait(struct ktest *t)
{
	const struct sroce_cc_ops *o = &sroce_cc_timely_ops;
	struct sroce_cc_params p = timely_params();
	struct sroce_cc_state s;
	u64 edt = 0;

	p.min_dec_fac = 0; /* Algorithm 1 unbounded: straight to the floor */
	o->init(&s, &p, 0);
	sroce_cc_ack(o, &s, &p, &edt, 10 * US, 100 * US, 0);
	sroce_cc_ack(o, &s, &p, &edt, 20 * US, 500 * US, 0);
	KTEST_EXPECT_EQ(t, s.rate, p.min_rate);
	KTEST_EXPECT_EQ(t, edt, 20 * US);
	/* 1 KB at 1 Mb/s: the next packet may leave 8192 us later. */
	sroce_cc_pace_packet(o, &s, &p, &edt, 20 * US, 1024, SROCE_CC_BURST_NS);
	KTEST_EXPECT_EQ(t, edt, 20 * US + 8192 * US);
	/*
	 * 10 us later a sample below T_low: Rc = 11 Mb/s, and the 8182 us
	 * left shrink to 8182000 * 1000 / 11000 = 743818 ns.
	 */
	sroce_cc_ack(o, &s, &p, &edt, 30 * US, 10 * US, 0);
	KTEST_EXPECT_EQ(t, s.rate, 11000);
	KTEST_EXPECT_EQ(t, edt, 30 * US + 743818);
	KTEST_EXPECT_EQ(t, sroce_cc_pace_check(o, &s, &p, &edt, 31 * US),
			30 * US + 743818);
	/* A cut (1000 us: by b (1 - 1/2) to 6600) leaves it alone. */
	sroce_cc_ack(o, &s, &p, &edt, 40 * US, 1000 * US, 0);
	KTEST_EXPECT_EQ(t, s.rate, 6600);
	KTEST_EXPECT_EQ(t, edt, 30 * US + 743818);
	/* No sample (rtt 0): nothing moves. */
	sroce_cc_ack(o, &s, &p, &edt, 50 * US, 0, 0);
	KTEST_EXPECT_EQ(t, edt, 30 * US + 743818);
}

/* rpg_min_rate above the line rate: a cut stops at the line rate. */
static void timely_min_rate_above_line(struct ktest *t)
{
	const struct sroce_cc_ops *o = &sroce_cc_timely_ops;
	struct sroce_cc_params p = timely_params();
	struct sroce_cc_state s;

	p.min_rate = 2 * LINE;
	o->init(&s, &p, 0);
	o->on_ack(&s, &p, 1, 600 * US, 4096); /* > T_high: a cut */
	KTEST_EXPECT_EQ(t, s.rate, LINE);
	KTEST_EXPECT(t, !s.active);
}

static const struct ktest_case timely_cases[] = {
	KTEST_CASE(timely_sequence),
	KTEST_CASE(timely_bounds),
	KTEST_CASE(timely_pace_episode),
	KTEST_CASE(timely_rise_shortens_wait),
	KTEST_CASE(timely_min_rate_above_line),
};

KTEST_SUITE(timely);
