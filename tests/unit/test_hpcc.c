// SPDX-License-Identifier: GPL-2.0
/*
 * test_hpcc.c - HPCC (kernel/proto/cc_hpcc.c) against steps of Algorithm 1
 * of the paper computed by hand, in the rate form cc_hpcc.c keeps: R_c =
 * W_c / T, R = W / T, R_AI = W_AI / T.
 *
 * The path: ports of B = 100 Gb/s (10^8 kbit/s) unless a case says
 * otherwise, T = 10 us, so B T = 10^6 bits = 125000 bytes (BDP); eta 95 %,
 * maxStage 5, R_AI 50 Mb/s = 50000 kbit/s, a NIC of 100 Gb/s.  U is Q20
 * (1.0 = 2^20 = 1048576).  A port at line rate sends 12500 bytes per us.
 *
 * The ports' clocks and byte counters start just below 2^32, so that the
 * low 32 bits cc_hpcc.c keeps of them wrap during every case.
 */
#include "cc.h"
#include "ktest.h"

#define LINE 100000000ULL /* kbit/s */
#define US 1000ULL /* ns */
#define BDP 125000U /* bytes: B T */
#define PER_US 12500U /* bytes a 100 Gb/s port sends in 1 us */
#define AI 50000ULL /* kbit/s */

static struct sroce_cc_params hpcc_params(void)
{
	struct sroce_cc_params p;

	sroce_cc_params_default(&p, SROCE_CC_MLX, LINE);
	p.min_rate = 1000;
	p.hpcc_base_rtt_us = 10;
	p.hpcc_ai_rate = AI;
	p.hpcc_eta = 95;
	p.hpcc_max_stage = 5;
	p.hpcc_mtu = 0; /* the whole queue counts, but in hpcc_queue_mtu */
	return p;
}

/* @nhops ports of @rate, clocks and counters about to wrap. */
static void path_init(struct sroce_cc_int *t, u8 nhops, u64 rate)
{
	unsigned int j;

	memset(t, 0, sizeof(*t));
	t->nhops = nhops;
	for (j = 0; j < SROCE_CC_INT_MAX_HOPS; j++) {
		t->hop[j].ts_ns = 0xfffff000ULL + 7 * j;
		t->hop[j].tx_bytes = 0xffffff00ULL + 1000 * j;
		t->hop[j].rate = rate;
	}
}

/* Port @j sent @dtx bytes in the @dts ns since the last ACK; @q queued. */
static void hop_step(struct sroce_cc_int *t, unsigned int j, u64 dts, u64 dtx,
		     u32 q)
{
	t->hop[j].ts_ns += dts;
	t->hop[j].tx_bytes += dtx;
	t->hop[j].qlen = q;
}

/*
 * The QP's byte stream, shared by the cases: it starts just below 2^64,
 * so that the sequences wrap too.  ack() acknowledges what was sent up to
 * then (nothing else is in flight) unless a case sets the sequences.
 */
static u64 stream = U64_MAX - 20000;

/* An ACK up to @ack_seq, @snd_nxt sent, telemetry @t, 1 us after the last. */
static void ack_at(struct sroce_cc_state *s, const struct sroce_cc_params *p,
		   u64 *now, u64 ack_seq, u64 snd_nxt,
		   const struct sroce_cc_int *t)
{
	*now += US;
	sroce_cc_hpcc_ops.on_int(s, p, *now, ack_seq, snd_nxt, t);
}

/* An ACK of @bytes more of the stream, all that was sent. */
static void ack(struct sroce_cc_state *s, const struct sroce_cc_params *p,
		u64 *now, u32 bytes, const struct sroce_cc_int *t)
{
	stream += bytes;
	ack_at(s, p, now, stream, stream, t);
}

/* Port 0 at line rate with no queue over T (u = 1.0), then an ACK. */
static void ack_full(struct sroce_cc_state *s, const struct sroce_cc_params *p,
		     u64 *now, u32 bytes, struct sroce_cc_int *t)
{
	hop_step(t, 0, 10 * US, 10 * PER_US, 0);
	ack(s, p, now, bytes, t);
}

/* A state at line rate that has seen one ACK over one port (a reference). */
static void begin(struct sroce_cc_state *s, const struct sroce_cc_params *p,
		  u64 *now, struct sroce_cc_int *t)
{
	sroce_cc_hpcc_ops.init(s, p, 0);
	path_init(t, 1, LINE);
	ack(s, p, now, 1000, t);
}

static void hpcc_start(struct ktest *t)
{
	const struct sroce_cc_ops *o = &sroce_cc_hpcc_ops;
	struct sroce_cc_params p = hpcc_params();
	struct sroce_cc_state s;
	struct sroce_cc_int in;
	u64 now = 0, edt = 0, rate;

	o->init(&s, &p, 0);
	/* W_init = B T: line rate, and paced (a window) from the start */
	KTEST_EXPECT_EQ(t, s.rate, LINE);
	KTEST_EXPECT(t, s.active);
	/* INT, not ECN: CNPs are ignored and change nothing */
	KTEST_EXPECT(t, !o->on_cnp);
	KTEST_EXPECT(t, !sroce_cc_cnp(o, &s, &p, &edt, 0));
	KTEST_EXPECT_EQ(t, s.rate, LINE);
	/* no timer: only ACKs change the rate */
	KTEST_EXPECT(t, !o->on_timer && !o->next_event);

	/* The first ACK, even from a full queue, is only a reference. */
	path_init(&in, 1, LINE);
	hop_step(&in, 0, 0, 0, 10 * BDP);
	ack(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, LINE);

	/*
	 * An ACK without telemetry measures nothing either, nor one that
	 * claims more hops than a record holds, and neither replaces the
	 * reference: the next one-hop ACK measures against it (no queue
	 * now, min(q, q') = 0, a port at line rate: u = 1.0), where a
	 * reference of another hop count would make it a reference again.
	 */
	in.nhops = 0;
	ack(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, LINE);
	in.nhops = 1;
	ack_full(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 95050000);
	in.nhops = SROCE_CC_INT_MAX_HOPS + 1;
	ack(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 95050000);
	in.nhops = 1;
	ack_full(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 90347500);
	rate = s.rate;
	sroce_cc_hpcc_ops.on_int(&s, &p, now, stream, stream, NULL);
	KTEST_EXPECT_EQ(t, s.rate, rate);

	/* on_int came last: the members before it keep their offsets */
	KTEST_EXPECT_EQ(t, offsetof(struct sroce_cc_ops, on_int),
			sizeof(struct sroce_cc_ops) - sizeof(o->on_int));

	/* No other algorithm has on_int: sroce_cc_telemetry() does nothing */
	KTEST_EXPECT(t, !sroce_cc_none_ops.on_int);
	KTEST_EXPECT(t, !sroce_cc_dcqcn_ops.on_int);
	KTEST_EXPECT(t, !sroce_cc_dctcp_ops.on_int);
	KTEST_EXPECT(t, !sroce_cc_fixed_ops.on_int);
	KTEST_EXPECT(t, !sroce_cc_timely_ops.on_int);
	sroce_cc_timely_ops.init(&s, &p, 0);
	in.nhops = 1;
	sroce_cc_telemetry(&sroce_cc_timely_ops, &s, &p, &edt, 5 * US, 1000,
			   1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, LINE);
	KTEST_EXPECT(t, !s.active);
	KTEST_EXPECT_EQ(t, edt, 0);
}

/*
 * One port at line rate with no queue: u = 0 / (B T) + B / B = 1.0 >=
 * eta, a multiplicative step.  tau = T (the ACKs are 10 us apart on the
 * port's clock), so U = u at once.  With nothing in flight every ACK
 * acknowledges beyond lastUpdateSeq, so W_c follows every ACK.
 */
static void hpcc_full_link(struct ktest *t)
{
	struct sroce_cc_params p = hpcc_params();
	struct sroce_cc_state s;
	struct sroce_cc_int in;
	u64 now = 0;

	begin(&s, &p, &now, &in);
	/* R = R_c eta / U + R_AI = 10^8 * 0.95 / 1.0 + 50000 */
	ack_full(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 95050000);
	KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_CUT);
	/* R_c = 95050000: 95050000 * 0.95 + 50000 = 90297500 + 50000 */
	ack_full(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 90347500);
	KTEST_EXPECT(t, s.active);
}

/*
 * W_c moves once per RTT.  5000 bytes sent; the first ACK (of 1000) sets
 * lastUpdateSeq = snd_nxt, 4000 bytes ahead: the next four ACKs of 1000
 * bring ack.seq up to it (not beyond), the fifth passes it.  Until then
 * every ACK computes W from the same W_c = line rate: 95050000 each
 * time, not 95050000 * 0.95 ... (no compounding).
 */
static void hpcc_once_per_rtt(struct ktest *t)
{
	struct sroce_cc_params p = hpcc_params();
	struct sroce_cc_state s;
	struct sroce_cc_int in;
	u64 now = 0, base = stream;
	int i;

	sroce_cc_hpcc_ops.init(&s, &p, 0);
	path_init(&in, 1, LINE);
	ack_at(&s, &p, &now, base + 1000, base + 5000, &in);
	for (i = 2; i <= 6; i++) {
		/* 3000, 2000, 1000, 0 left; the fifth sets W_c = W */
		hop_step(&in, 0, 10 * US, 10 * PER_US, 0);
		ack_at(&s, &p, &now, base + i * 1000, base + 6000, &in);
		KTEST_EXPECT_EQ(t, s.rate, 95050000);
	}
	stream = base + 6000;
	/* W_c = 95050000, nothing in flight: 95050000 * 0.95 + 50000 */
	ack_full(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 90347500);
	/*
	 * That ACK moved W_c to 90347500; ACKs that acknowledge nothing
	 * never move it: 90347500 * 0.95 + 50000 each, no compounding.
	 */
	for (i = 0; i < 3; i++) {
		ack_full(&s, &p, &now, 0, &in);
		KTEST_EXPECT_EQ(t, s.rate, 85880125);
	}
}

/* Port 0 at line rate (u = 1.0), an ACK up to @ack_seq, @snd_nxt sent. */
static void full_at(struct sroce_cc_state *s, const struct sroce_cc_params *p,
		    u64 *now, u64 ack_seq, u64 snd_nxt, struct sroce_cc_int *t)
{
	hop_step(t, 0, 10 * US, 10 * PER_US, 0);
	ack_at(s, p, now, ack_seq, snd_nxt, t);
}

/*
 * Loss and go-back-N: lastUpdateSeq is a sequence (snd_nxt when W_c
 * last moved), so bytes that are lost, or sent again after a rewind,
 * hold W_c back only until the ACKs pass it; counting bytes sent and
 * acknowledged never takes a lost one off, and counts a resent one
 * twice.  U = 1.0 throughout: each W is R_c * 0.95 + 50000.
 */
static void hpcc_lost_bytes(struct ktest *t)
{
	struct sroce_cc_params p = hpcc_params();
	struct sroce_cc_state s;
	struct sroce_cc_int in;
	u64 now = 0, b = stream;
	int i;

	sroce_cc_hpcc_ops.init(&s, &p, 0);
	path_init(&in, 1, LINE);
	/* a reference: lastUpdateSeq = b+4000 */
	ack_at(&s, &p, &now, b + 1000, b + 4000, &in);
	full_at(&s, &p, &now, b + 2000, b + 4000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 95050000);
	/* b+2000..b+3000 lost, never resent: the next ACK skips it */
	full_at(&s, &p, &now, b + 4000, b + 4000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 95050000);
	/* beyond b+4000: W_c = 95050000, lastUpdateSeq = b+8000 */
	full_at(&s, &p, &now, b + 5000, b + 8000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 95050000);
	/* b+5000.. lost: NAKs, the sender goes back to b+5000 */
	for (i = 0; i < 2; i++) {
		full_at(&s, &p, &now, b + 5000, b + 5000, &in);
		KTEST_EXPECT_EQ(t, s.rate, 90347500);
	}
	/* b+5000..b+8000 again, b+8000..b+9000 new: up to b+8000, no move */
	for (i = 6; i <= 8; i++) {
		full_at(&s, &p, &now, b + i * 1000, b + 9000, &in);
		KTEST_EXPECT_EQ(t, s.rate, 90347500);
	}
	/* the first ACK beyond b+8000 moves W_c, and so does the next */
	full_at(&s, &p, &now, b + 9000, b + 9000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 90347500);
	full_at(&s, &p, &now, b + 10000, b + 10000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 85880125);
	stream = b + 10000;
}

/*
 * A standing queue of one BDP behind a port at line rate: u = 125000 *
 * 8 / 10^6 + 1.0 = 2.0, but only once two ACKs in a row saw it (min(q,
 * q')).  Then an idle-ish port (half the line rate, no queue: u = 0.5):
 * additive steps until incStage reaches maxStage, then one
 * multiplicative increase W_c / (U / eta).
 */
static void hpcc_queue_then_idle(struct ktest *t)
{
	struct sroce_cc_params p = hpcc_params();
	struct sroce_cc_state s;
	struct sroce_cc_int in;
	u64 now = 0, r;
	int i;

	begin(&s, &p, &now, &in); /* q' = 0 */
	/* q = BDP, min(q, q') = 0: u = 1.0, R = 95050000 (W_c too) */
	hop_step(&in, 0, 10 * US, 10 * PER_US, BDP);
	ack(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 95050000);
	/* min(q, q') = BDP: u = U = 2.0; 95050000 * 0.95 / 2 + 50000 */
	hop_step(&in, 0, 10 * US, 10 * PER_US, BDP);
	ack(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 45198750);
	KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_CUT);

	/* u = U = 0.5 < eta: five additive steps of 50000 (incStage 1-5) */
	for (i = 1, r = 45198750; i <= 5; i++) {
		hop_step(&in, 0, 10 * US, 5 * PER_US, 0);
		ack(&s, &p, &now, 1000, &in);
		r += AI;
		KTEST_EXPECT_EQ(t, s.rate, r);
		KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_ADDITIVE);
	}
	KTEST_EXPECT_EQ(t, r, 45448750);
	/*
	 * incStage = maxStage: R = R_c eta / U + R_AI = 45448750 * 95 / 100
	 * (= 43176312, rounded down) * 2^20 / 2^19 + 50000 = 86402624, and
	 * incStage starts again: the next is additive.
	 */
	hop_step(&in, 0, 10 * US, 5 * PER_US, 0);
	ack(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 86402624);
	KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_HYPER);
	hop_step(&in, 0, 10 * US, 5 * PER_US, 0);
	ack(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 86452624);
	KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_ADDITIVE);

	/*
	 * An idle port (u = U = 0): four additive steps (incStage 2, 3, 4
	 * and 5 after them), then at maxStage W_c / (0 / eta), the line
	 * rate.
	 */
	for (i = 0; i < 4; i++) {
		hop_step(&in, 0, 10 * US, 0, 0);
		ack(&s, &p, &now, 1000, &in);
	}
	KTEST_EXPECT_EQ(t, s.rate, 86652624);
	hop_step(&in, 0, 10 * US, 0, 0);
	ack(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, LINE);
}

/*
 * The queue term less one packet (hpcc_mtu = 1024): a port at line rate
 * that leaves one packet queued behind each of ours reads u = 1.0, not
 * 1.008; a queue of 1024 + 12500 bytes (kept as 13568, 64-byte units
 * rounded up) counts 12500: u = 0.1 + 1.0, Q20 104857 + 2^20 = 1153433.
 */
static void hpcc_queue_mtu(struct ktest *t)
{
	struct sroce_cc_params p = hpcc_params();
	struct sroce_cc_state s;
	struct sroce_cc_int in;
	u64 now = 0;

	p.hpcc_mtu = 1024;
	sroce_cc_hpcc_ops.init(&s, &p, 0);
	path_init(&in, 1, LINE);
	hop_step(&in, 0, 0, 0, 1024);
	ack(&s, &p, &now, 1000, &in);
	hop_step(&in, 0, 10 * US, 10 * PER_US, 1024);
	ack(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 95050000);
	/* min(q, q') = 1024: nothing, 95050000 * 0.95 + 50000 */
	hop_step(&in, 0, 10 * US, 10 * PER_US, 1024 + 12500);
	ack(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 90347500);
	/* 90347500 * 95 / 100 = 85830125; * 2^20 / 1153433 + 50000 */
	hop_step(&in, 0, 10 * US, 10 * PER_US, 1024 + 12500);
	ack(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 78077426);
	/* the defaults count one packet of RoCE's usual MTU less */
	sroce_cc_params_default(&p, SROCE_CC_PAPER, LINE);
	KTEST_EXPECT_EQ(t, p.hpcc_mtu, 1024);
}

/*
 * Two ports, idle over 10 us first: U = 0 (from 1.0, with tau = T), an
 * additive step.  Then hop 0 at 100 Gb/s half loaded over 10 us (u =
 * 0.5), hop 1 at 40 Gb/s fully loaded over 5 us (25000 bytes: u = 1.0).
 * U follows the maximum, hop 1, with its tau = 5 us, a weight of 1/2:
 *   U = 0.5, 0.75, 0.875, 0.9375 (< eta: additive, clamped at the line
 *   rate), then 0.96875 >= eta: R = 10^8 * 0.95 / 0.96875 + 50000 =
 *   98064516 + 50000.
 * (tau of hop 0 would have made U = 1.0 at once.)
 */
static void hpcc_max_hop(struct ktest *t)
{
	struct sroce_cc_params p = hpcc_params();
	struct sroce_cc_state s;
	struct sroce_cc_int in;
	u64 now = 0;
	int i;

	sroce_cc_hpcc_ops.init(&s, &p, 0);
	path_init(&in, 2, LINE);
	in.hop[1].rate = 40000000;
	ack(&s, &p, &now, 1000, &in);
	hop_step(&in, 0, 10 * US, 0, 0);
	hop_step(&in, 1, 10 * US, 0, 0);
	ack(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_ADDITIVE);
	for (i = 0; i < 4; i++) {
		hop_step(&in, 0, 10 * US, 5 * PER_US, 0);
		hop_step(&in, 1, 5 * US, 25000, 0);
		ack(&s, &p, &now, 1000, &in);
		KTEST_EXPECT_EQ(t, s.rate, LINE);
		KTEST_EXPECT_EQ(t, s.reason, SROCE_CC_R_ADDITIVE);
	}
	hop_step(&in, 0, 10 * US, 5 * PER_US, 0);
	hop_step(&in, 1, 5 * US, 25000, 0);
	ack(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 98114516);

	/*
	 * A short tau moves U by tau / T only.  Hop 0 idle over 10 us (u =
	 * 0), hop 1 fully loaded over 1 us (5000 bytes at 40 Gb/s, u = 1.0,
	 * the maximum): U = 0.96875 * 9/10 + 1.0 * 1/10, in Q20 (1015808 *
	 * 9000 + 1048576 * 1000) / 10000 = 1019084 (rounded down), and R =
	 * R_c * 0.95 / U + 50000 with R_c = 98114516 from the last ACK.
	 */
	hop_step(&in, 0, 10 * US, 0, 0);
	hop_step(&in, 1, 1 * US, 5000, 0);
	ack(&s, &p, &now, 1000, &in);
	/* 98114516 * 95 / 100 = 93208790; * 2^20 / 1019084 = 95906225 */
	KTEST_EXPECT_EQ(t, s.rate, 95906225 + AI);
}

/*
 * Five hops, the last one with a standing queue of one BDP at line rate
 * (u = 2.0), the others idle: the last decides.  R = 10^8 * 0.95 / 2 +
 * 50000.
 */
static void hpcc_five_hops(struct ktest *t)
{
	struct sroce_cc_params p = hpcc_params();
	struct sroce_cc_state s;
	struct sroce_cc_int in;
	u64 now = 0;
	unsigned int j;

	sroce_cc_hpcc_ops.init(&s, &p, 0);
	path_init(&in, SROCE_CC_INT_MAX_HOPS, LINE);
	hop_step(&in, 4, 0, 0, BDP);
	ack(&s, &p, &now, 1000, &in);
	for (j = 0; j < 4; j++)
		hop_step(&in, j, 10 * US, 0, 0);
	hop_step(&in, 4, 10 * US, 10 * PER_US, BDP);
	ack(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 47550000);
}

/*
 * A path change (another hop count): the records are of other ports, so
 * the ACK is a reference again, however loaded it says the ports are; the
 * next ACK on the new path measures against it.
 */
static void hpcc_path_change(struct ktest *t)
{
	struct sroce_cc_params p = hpcc_params();
	struct sroce_cc_state s;
	struct sroce_cc_int in, two;
	u64 now = 0;

	begin(&s, &p, &now, &in);
	ack_full(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 95050000);

	/* new ports, with counters unrelated to the old ones */
	path_init(&two, 2, LINE);
	hop_step(&two, 0, 123456789, 987654321, 50 * BDP);
	hop_step(&two, 1, 5, 7, 50 * BDP);
	ack(&s, &p, &now, 1000, &two);
	KTEST_EXPECT_EQ(t, s.rate, 95050000);
	/*
	 * Measured against the new reference: hop 0 at line rate (u = 1.0),
	 * hop 1 idle, both over T: U = 1.0, 95050000 * 0.95 + 50000.
	 */
	hop_step(&two, 0, 10 * US, 10 * PER_US, 0);
	hop_step(&two, 1, 10 * US, 0, 0);
	ack(&s, &p, &now, 1000, &two);
	KTEST_EXPECT_EQ(t, s.rate, 90347500);
	/* and back to one hop: a reference again */
	hop_step(&in, 0, 10 * US, 0, 100 * BDP);
	ack(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 90347500);
}

/*
 * An ACK on which a port cannot be measured is no sample: U, the rate
 * and W_c stay as they were (R_c = 95050000 after a port at line rate,
 * U = 1.0), and the next ACK with a sample computes W from them.
 */
static void hpcc_no_sample(struct ktest *t)
{
	struct sroce_cc_params p = hpcc_params();
	struct sroce_cc_state s;
	struct sroce_cc_int in;
	u64 now = 0;

	begin(&s, &p, &now, &in);
	ack_full(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 95050000);

	/*
	 * tau = 0: the port's clock did not tick (1000 bytes went in that
	 * tick): no division by zero, no sample.  The kept record stays, so
	 * the next delta counts those bytes: 1000 + 124000 in 10 us is
	 * exactly the line rate (u = 1.0; 124000 alone would give 0.992).
	 */
	hop_step(&in, 0, 0, 1000, 0);
	ack(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 95050000);
	hop_step(&in, 0, 10 * US, 10 * PER_US - 1000, 0);
	ack(&s, &p, &now, 1000, &in);
	/* 95050000 * 0.95 + 50000 */
	KTEST_EXPECT_EQ(t, s.rate, 90347500);

	/* A port of speed 0: no sample (and no division by it). */
	in.hop[0].rate = 0;
	ack_full(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 90347500);
	in.hop[0].rate = LINE;
	/* measured against that ACK's record: 90347500 * 0.95 + 50000 */
	ack_full(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 85880125);

	/* ACKs reordered: a record older than the kept one, no sample */
	hop_step(&in, 0, -5 * US, -5 * (s64)PER_US, 0);
	ack(&s, &p, &now, 0, &in);
	KTEST_EXPECT_EQ(t, s.rate, 85880125);
	/* the port restarted: tx_bytes went back, no sample */
	hop_step(&in, 0, 20 * US, -1000000, 0);
	ack(&s, &p, &now, 0, &in);
	KTEST_EXPECT_EQ(t, s.rate, 85880125);

	/*
	 * 2^32 ns + 10 us without ACKs: the low 32 bits kept of ts say 10
	 * us, and of tx_bytes 0, an idle port (U = 0, R = R_c + R_AI) if
	 * believed; the sender's clock tells that the kept record is too
	 * old (2^31 ns, 2^31 bytes at B): no sample.
	 */
	now += BIT_ULL(32) + 10 * US;
	hop_step(&in, 0, BIT_ULL(32) + 10 * US, 0, 0);
	ack(&s, &p, &now, 0, &in);
	KTEST_EXPECT_EQ(t, s.rate, 85880125);
	/* the next ACK, 1 us later, measures again: idle, U = 0 */
	hop_step(&in, 0, 10 * US, 0, 0);
	ack(&s, &p, &now, 0, &in);
	KTEST_EXPECT_EQ(t, s.rate, 85880125 + AI);
}

/*
 * Two ports, one of which cannot be measured (speed 0): the other's
 * queue of a BDP (u = 2.0) must not count alone, the ACK is no sample.
 */
static void hpcc_partial_sample(struct ktest *t)
{
	struct sroce_cc_params p = hpcc_params();
	struct sroce_cc_state s;
	struct sroce_cc_int in;
	u64 now = 0;

	sroce_cc_hpcc_ops.init(&s, &p, 0);
	path_init(&in, 2, LINE);
	hop_step(&in, 0, 0, 0, BDP);
	ack(&s, &p, &now, 1000, &in);
	in.hop[1].rate = 0;
	hop_step(&in, 0, 10 * US, 10 * PER_US, BDP);
	hop_step(&in, 1, 10 * US, 10 * PER_US, 0);
	ack(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, LINE);
	/* both measured: U = 2.0, 10^8 * 0.95 / 2 + 50000 */
	in.hop[1].rate = LINE;
	hop_step(&in, 0, 10 * US, 10 * PER_US, BDP);
	hop_step(&in, 1, 10 * US, 0, 0);
	ack(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 47550000);
}

/*
 * U starts at 1.0 (ns-3): a first sample over T / 2 of a port at line
 * rate leaves it there, a multiplicative step to 10^8 * 0.95 + 50000
 * (from 0 it would be 0.5, an additive step at the line rate).
 */
static void hpcc_u_start(struct ktest *t)
{
	struct sroce_cc_params p = hpcc_params();
	struct sroce_cc_state s;
	struct sroce_cc_int in;
	u64 now = 0;

	begin(&s, &p, &now, &in);
	hop_step(&in, 0, 5 * US, 5 * PER_US, 0);
	ack(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 95050000);
}

/*
 * The rate stays within [min(rpg_min_rate, line rate), line rate] and
 * never reaches 0.  A full queue of 4 MiB or more counts as the most the
 * kept record holds (65535 units of 64 bytes): u = 4194240 * 8 / 10^6 +
 * 1.0 = 34.55; each ACK divides by 36.4.
 */
static void hpcc_bounds(struct ktest *t)
{
	struct sroce_cc_params p = hpcc_params();
	struct sroce_cc_state s;
	struct sroce_cc_int in;
	u64 now = 0;
	int i;

	p.min_rate = 1000000; /* 1 Gb/s */
	sroce_cc_hpcc_ops.init(&s, &p, 0);
	path_init(&in, 1, LINE);
	hop_step(&in, 0, 0, 0, U32_MAX);
	ack(&s, &p, &now, 1000, &in);
	hop_step(&in, 0, 10 * US, 10 * PER_US, U32_MAX);
	ack(&s, &p, &now, 1000, &in);
	/*
	 * U = (4194240 * 8 << 20) / 10^6 + 2^20 = 35183835 + 1048576 =
	 * 36232411: 10^8 * 95 / 100 * 2^20 / 36232411 = 2749326, + 50000.
	 * The next ACK: 2799326 / 36.4 + 50000 is below 1 Gb/s.
	 */
	KTEST_EXPECT_EQ(t, s.rate, 2799326);
	hop_step(&in, 0, 10 * US, 10 * PER_US, U32_MAX);
	ack(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, p.min_rate);

	/* rpg_min_rate 0 and no additive step: still not 0 */
	p.min_rate = 0;
	p.hpcc_ai_rate = 0;
	for (i = 0; i < 10; i++) {
		hop_step(&in, 0, 10 * US, 10 * PER_US, U32_MAX);
		ack(&s, &p, &now, 1000, &in);
	}
	KTEST_EXPECT_EQ(t, s.rate, 1);

	/* rpg_min_rate above the line rate: every cut stops at the line */
	p.min_rate = 2 * LINE;
	hop_step(&in, 0, 10 * US, 10 * PER_US, U32_MAX);
	ack(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, LINE);
	/* a lower line rate (rpg_max_rate) caps every later step */
	p = hpcc_params();
	p.line_rate = LINE / 2;
	hop_step(&in, 0, 10 * US, 0, 0);
	ack(&s, &p, &now, 1000, &in);
	KTEST_EXPECT_EQ(t, s.rate, LINE / 2);
}

/*
 * As kernel/cc.c would run it: sroce_cc_telemetry() on a state active
 * from init starts no new pacing episode (a departure time in the past
 * stays), the departure after a packet follows the rate after the ACKs,
 * and an ACK that raises the rate shortens the wait left.
 */
static void hpcc_pace(struct ktest *t)
{
	const struct sroce_cc_ops *o = &sroce_cc_hpcc_ops;
	struct sroce_cc_params p = hpcc_params();
	struct sroce_cc_state s;
	struct sroce_cc_int in;
	u64 edt = 7 * US;

	o->init(&s, &p, 0);
	path_init(&in, 1, LINE);
	sroce_cc_telemetry(o, &s, &p, &edt, 10 * US, 1000, 1000, &in);
	hop_step(&in, 0, 10 * US, 10 * PER_US, 8 * BDP);
	sroce_cc_telemetry(o, &s, &p, &edt, 20 * US, 2000, 2000, &in);
	hop_step(&in, 0, 10 * US, 10 * PER_US, 8 * BDP);
	sroce_cc_telemetry(o, &s, &p, &edt, 30 * US, 3000, 3000, &in);
	/* U = 8 + 1: 95050000 * 0.95 / 9 + 50000 = 10033055 + 50000 */
	KTEST_EXPECT_EQ(t, s.rate, 10083055);
	KTEST_EXPECT_EQ(t, edt, 7 * US);
	KTEST_EXPECT_EQ(t, sroce_cc_pace_check(o, &s, &p, &edt, 30 * US), 0);
	/*
	 * A packet just left (no credit): the next may leave after 1000
	 * bytes at 10083055 kbit/s, 8 * 10^9 / 10083055 = 793 ns.
	 */
	edt = 30 * US;
	sroce_cc_pace_packet(o, &s, &p, &edt, 30 * US, 1000, SROCE_CC_BURST_NS);
	KTEST_EXPECT_EQ(t, edt, 30 * US + 793);
	KTEST_EXPECT_EQ(t, sroce_cc_pace_check(o, &s, &p, &edt, 30 * US),
			30 * US + 793);
	/*
	 * 100 ns later an ACK from an idle port (U = 0) raises the rate by
	 * R_AI to 10133055: the 693 ns left shrink to 693 * 10083055 /
	 * 10133055 = 689 (rounded down).  A cut leaves the departure time.
	 */
	hop_step(&in, 0, 10 * US, 0, 0);
	sroce_cc_telemetry(o, &s, &p, &edt, 30 * US + 100, 4000, 4000, &in);
	KTEST_EXPECT_EQ(t, s.rate, 10133055);
	KTEST_EXPECT_EQ(t, edt, 30 * US + 100 + 689);
	hop_step(&in, 0, 10 * US, 10 * PER_US, 8 * BDP);
	sroce_cc_telemetry(o, &s, &p, &edt, 30 * US + 200, 5000, 5000, &in);
	KTEST_EXPECT(t, s.rate < 10133055);
	KTEST_EXPECT_EQ(t, edt, 30 * US + 100 + 689);
}

/*
 * sroce_cc_telemetry() itself, with an algorithm that starts inactive:
 * on_timer first (the state brought up to now), then on_int, and a state
 * that on_int made active is paced from now, without the credit of an
 * old departure time; within the episode the departure time stays.
 */
static int probe_timers;
static struct ktest *probe_test; /* the case that runs the probe */

static void probe_timer(struct sroce_cc_state *s,
			const struct sroce_cc_params *p, u64 now)
{
	probe_timers++;
}

static void probe_int(struct sroce_cc_state *s, const struct sroce_cc_params *p,
		      u64 now, u64 ack_seq, u64 snd_nxt,
		      const struct sroce_cc_int *t)
{
	KTEST_EXPECT_EQ(probe_test, probe_timers, 1);
	s->active = 1;
	s->rate = p->line_rate / 2;
}

static void hpcc_telemetry_episode(struct ktest *t)
{
	static const struct sroce_cc_ops probe = {
		.name = "probe",
		.init = sroce_cc_init_line_rate,
		.on_int = probe_int,
		.on_timer = probe_timer,
	};
	struct sroce_cc_params p = hpcc_params();
	struct sroce_cc_state s;
	struct sroce_cc_int in;
	u64 edt = 5 * US;

	probe_test = t;
	probe.init(&s, &p, 0);
	path_init(&in, 1, LINE);
	probe_timers = 0;
	sroce_cc_telemetry(&probe, &s, &p, &edt, 100 * US, 1000, 1000, &in);
	KTEST_EXPECT(t, s.active);
	KTEST_EXPECT_EQ(t, edt, 100 * US);
	edt = 150 * US;
	probe_timers = 0;
	sroce_cc_telemetry(&probe, &s, &p, &edt, 120 * US, 2000, 2000, &in);
	KTEST_EXPECT_EQ(t, edt, 150 * US);
}

static const struct ktest_case hpcc_cases[] = {
	KTEST_CASE(hpcc_start),
	KTEST_CASE(hpcc_full_link),
	KTEST_CASE(hpcc_once_per_rtt),
	KTEST_CASE(hpcc_lost_bytes),
	KTEST_CASE(hpcc_queue_then_idle),
	KTEST_CASE(hpcc_queue_mtu),
	KTEST_CASE(hpcc_max_hop),
	KTEST_CASE(hpcc_five_hops),
	KTEST_CASE(hpcc_path_change),
	KTEST_CASE(hpcc_no_sample),
	KTEST_CASE(hpcc_partial_sample),
	KTEST_CASE(hpcc_u_start),
	KTEST_CASE(hpcc_bounds),
	KTEST_CASE(hpcc_pace),
	KTEST_CASE(hpcc_telemetry_episode),
};

KTEST_SUITE(hpcc);
