// SPDX-License-Identifier: GPL-2.0
/*
 * test_pfc.c - PFC (802.1Qbb) core: frame codec, quanta, the honouring
 * state machine with its storm watchdog, the XOFF/XON generation
 * hysteresis.  Every expected value is computed by hand in the comments.
 */
#include "ktest.h"
#include "pfc.h"

static const u8 smac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };

static void pfc_frame_layout(struct ktest *t)
{
	struct sroce_pfc_req req = { .enable = 0x08 };
	u8 f[SROCE_PFC_FRAME_LEN + 4];
	static const u8 want[32] = {
		0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, /* DA */
		0x02, 0x00, 0x00, 0x00, 0x00, 0x01, /* SA */
		0x88, 0x08, /* MAC control */
		0x01, 0x01, /* PFC */
		0x00, 0x08, /* class-enable: priority 3 */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* time 0..2 */
		0xff, 0xff, /* time 3 */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* time 4..6 (7 follows) */
	};

	req.quanta[3] = 0xffff;
	req.quanta[5] = 0x1234; /* class 5 disabled: must be written as 0 */
	memset(f, 0xaa, sizeof(f));
	sroce_pfc_build(f, smac, &req);
	KTEST_EXPECT(t, !memcmp(f, want, sizeof(want)));
	for (int i = 32; i < SROCE_PFC_FRAME_LEN; i++)
		KTEST_EXPECT_EQ(t, f[i], 0);
	/* Nothing past the 60-byte frame is touched. */
	for (int i = SROCE_PFC_FRAME_LEN; i < (int)sizeof(f); i++)
		KTEST_EXPECT_EQ(t, f[i], 0xaa);
}

static void pfc_parse_valid(struct ktest *t)
{
	struct sroce_pfc_req in = { .enable = 0x81 }, out;
	u8 f[SROCE_PFC_FRAME_LEN];

	in.quanta[0] = 0;
	in.quanta[7] = 0x0102;
	sroce_pfc_build(f, smac, &in);
	/* A disabled class's time is ignored even if the sender set it. */
	f[14 + 4 + 2 * 4 + 1] = 0x55;
	memset(&out, 0xee, sizeof(out));
	KTEST_EXPECT_EQ(t,
			sroce_pfc_parse(f + 14, SROCE_PFC_FRAME_LEN - 14, &out),
			SROCE_PFC_OK);
	KTEST_EXPECT_EQ(t, out.enable, 0x81);
	KTEST_EXPECT_EQ(t, out.quanta[0], 0); /* XON for priority 0 */
	KTEST_EXPECT_EQ(t, out.quanta[7], 0x0102);
	for (int i = 1; i < 7; i++)
		KTEST_EXPECT_EQ(t, out.quanta[i], 0);
	/* Exactly the 20-byte header, no padding, is enough. */
	KTEST_EXPECT_EQ(t, sroce_pfc_parse(f + 14, 20, &out), SROCE_PFC_OK);
	/* All eight classes. */
	f[14 + 3] = 0xff;
	KTEST_EXPECT_EQ(t, sroce_pfc_parse(f + 14, 46, &out), SROCE_PFC_OK);
	KTEST_EXPECT_EQ(t, out.enable, 0xff);
	KTEST_EXPECT_EQ(t, out.quanta[4], 0x0055);
}

static void pfc_parse_malformed(struct ktest *t)
{
	struct sroce_pfc_req in = { .enable = 0x08 }, out = { .enable = 0x42 };
	u8 f[SROCE_PFC_FRAME_LEN];

	in.quanta[3] = 100;
	sroce_pfc_build(f, smac, &in);
	KTEST_EXPECT_EQ(t, sroce_pfc_parse(f + 14, 19, &out),
			SROCE_PFC_BAD_SHORT);
	KTEST_EXPECT_EQ(t, sroce_pfc_parse(f + 14, 0, &out),
			SROCE_PFC_BAD_SHORT);
	f[15] = 0x02; /* opcode 0x0102 */
	KTEST_EXPECT_EQ(t, sroce_pfc_parse(f + 14, 46, &out),
			SROCE_PFC_BAD_OPCODE);
	f[14] = 0x00;
	f[15] = 0x01; /* 802.3x PAUSE */
	KTEST_EXPECT_EQ(t, sroce_pfc_parse(f + 14, 46, &out),
			SROCE_PFC_BAD_OPCODE);
	f[14] = 0x01; /* back to PFC */
	f[16] = 0xff; /* class-enable 0xff08: reserved bits */
	KTEST_EXPECT_EQ(t, sroce_pfc_parse(f + 14, 46, &out),
			SROCE_PFC_BAD_RESERVED);
	f[16] = 0x01;
	f[17] = 0x00;
	KTEST_EXPECT_EQ(t, sroce_pfc_parse(f + 14, 46, &out),
			SROCE_PFC_BAD_RESERVED);
	f[16] = 0x00; /* no class at all */
	KTEST_EXPECT_EQ(t, sroce_pfc_parse(f + 14, 46, &out),
			SROCE_PFC_BAD_EMPTY);
	/* A refused frame leaves the output alone. */
	KTEST_EXPECT_EQ(t, out.enable, 0x42);
}

static void pfc_quanta_time(struct ktest *t)
{
	/* 65535 * 512 bits at 10 Gb/s = 33553920 bits / 1e4 Mb/s = 3355392 ns */
	KTEST_EXPECT_EQ(t, sroce_pfc_quanta_to_ns(0xffff, 10000), 3355392);
	/* 512 bits at 100 Gb/s = 5.12 ns, rounded down */
	KTEST_EXPECT_EQ(t, sroce_pfc_quanta_to_ns(1, 100000), 5);
	/* 512000 bits at 25 Gb/s = 20480 ns */
	KTEST_EXPECT_EQ(t, sroce_pfc_quanta_to_ns(1000, 25000), 20480);
	KTEST_EXPECT_EQ(t, sroce_pfc_quanta_to_ns(0, 10000), 0);
	/* 1 Gb/s: 65535 quanta = 33.55392 ms */
	KTEST_EXPECT_EQ(t, sroce_pfc_quanta_to_ns(0xffff, 1000), 33553920);

	KTEST_EXPECT_EQ(t, sroce_pfc_ns_to_quanta(3355392, 10000), 0xffff);
	KTEST_EXPECT_EQ(t, sroce_pfc_ns_to_quanta(51200, 10000), 1000);
	/* 51201 ns: 512010 bits -> 1000.02 quanta, rounded up */
	KTEST_EXPECT_EQ(t, sroce_pfc_ns_to_quanta(51201, 10000), 1001);
	/* 1 ns at 10 Gb/s = 10 bits: one quantum */
	KTEST_EXPECT_EQ(t, sroce_pfc_ns_to_quanta(1, 10000), 1);
	KTEST_EXPECT_EQ(t, sroce_pfc_ns_to_quanta(0, 10000), 0);
	/* 10 ms at 10 Gb/s = 195312.5 quanta: clamped */
	KTEST_EXPECT_EQ(t, sroce_pfc_ns_to_quanta(10000000, 10000), 0xffff);
	for (u32 q = 1; q < 0xffff; q += 997)
		KTEST_EXPECT_EQ(
			t,
			sroce_pfc_ns_to_quanta(sroce_pfc_quanta_to_ns(q, 40000),
					       40000),
			q);
}

/*
 * Times too long for one frame saturate, however long: ns * speed must not
 * wrap to a short pause (found by tests/fuzz).
 */
static void pfc_ns_to_quanta_huge(struct ktest *t)
{
	/* 2^62 ns at 10 Gb/s: the product wraps to exactly 0. */
	KTEST_EXPECT_EQ(t, sroce_pfc_ns_to_quanta(1ULL << 62, 10000), 0xffff);
	/* 78 hours at 100 Gb/s */
	KTEST_EXPECT_EQ(t, sroce_pfc_ns_to_quanta(1ULL << 48, 100000), 0xffff);
	KTEST_EXPECT_EQ(t, sroce_pfc_ns_to_quanta(U64_MAX, 1), 0xffff);
	KTEST_EXPECT_EQ(t, sroce_pfc_ns_to_quanta(U64_MAX, 800000), 0xffff);
	/* The longest pause itself, and a nanosecond more. */
	KTEST_EXPECT_EQ(t, sroce_pfc_ns_to_quanta(33553920, 1000), 0xffff);
	KTEST_EXPECT_EQ(t, sroce_pfc_ns_to_quanta(33553921, 1000), 0xffff);
	KTEST_EXPECT_EQ(t, sroce_pfc_ns_to_quanta(33553408, 1000), 0xfffe);
}

static void pfc_headroom_defaults(struct ktest *t)
{
	/*
	 * MTU 1500, 10 Gb/s, 100 m: cable 2 * 500 ns = 1000 ns = 1250 bytes;
	 * frames 2 * (1500 + 42) = 3084; PFC frame 84; response 2 * 480 = 960.
	 */
	KTEST_EXPECT_EQ(t, sroce_pfc_headroom(1500, 10000, 100), 5378);
	/* MTU 1024, 100 Gb/s, no cable: 2 * 1066 + 84 + 960 */
	KTEST_EXPECT_EQ(t, sroce_pfc_headroom(1024, 100000, 0), 3176);
	/* 100 Gb/s, 100 m: cable 12500 bytes */
	KTEST_EXPECT_EQ(t, sroce_pfc_headroom(1500, 100000, 100), 16628);
	KTEST_EXPECT_EQ(t, sroce_pfc_default_xon(1500), 3084);
	KTEST_EXPECT_EQ(t, sroce_pfc_default_xoff(1500, 10000, 100), 8462);
	KTEST_EXPECT(t, sroce_pfc_default_xoff(9000, 400000, 1000) >
				sroce_pfc_default_xon(9000));
}

static const struct sroce_pfc_wd_cfg wd_ms = {
	.detect_ns = 100000000,
	.recover_ns = 200000000,
};

static void pfc_rx_xoff_xon(struct ktest *t)
{
	struct sroce_pfc_rx_prio p = {};
	struct sroce_pfc_rx_out o = {};

	sroce_pfc_rx_pause(&p, &wd_ms, 3355392, 1000, &o);
	KTEST_EXPECT_EQ(t, o.events, SROCE_PFC_EV_XOFF);
	KTEST_EXPECT(t, p.paused);
	KTEST_EXPECT_EQ(t, p.until, 3356392);
	KTEST_EXPECT_EQ(t, sroce_pfc_rx_next_poll(&p, &wd_ms), 3356392);

	o = (struct sroce_pfc_rx_out){};
	sroce_pfc_rx_pause(&p, &wd_ms, 0, 2000, &o);
	KTEST_EXPECT_EQ(t, o.events, SROCE_PFC_EV_XON);
	KTEST_EXPECT_EQ(t, o.paused_ns, 1000);
	KTEST_EXPECT(t, !p.paused);
	KTEST_EXPECT_EQ(t, sroce_pfc_rx_next_poll(&p, &wd_ms), U64_MAX);

	/* XON on an unpaused priority does nothing. */
	o = (struct sroce_pfc_rx_out){};
	sroce_pfc_rx_pause(&p, &wd_ms, 0, 3000, &o);
	KTEST_EXPECT_EQ(t, o.events, 0);
	KTEST_EXPECT_EQ(t, o.paused_ns, 0);
	sroce_pfc_rx_poll(&p, &wd_ms, 4000000, &o);
	KTEST_EXPECT_EQ(t, o.events, 0);
}

static void pfc_rx_expiry_refresh(struct ktest *t)
{
	struct sroce_pfc_rx_prio p = {};
	struct sroce_pfc_rx_out o = {};

	sroce_pfc_rx_pause(&p, &wd_ms, 1000, 10, &o);
	KTEST_EXPECT_EQ(t, p.until, 1010);
	o = (struct sroce_pfc_rx_out){};
	sroce_pfc_rx_poll(&p, &wd_ms, 1009, &o);
	KTEST_EXPECT_EQ(t, o.events, 0);
	KTEST_EXPECT(t, p.paused);
	sroce_pfc_rx_poll(&p, &wd_ms, 1010, &o);
	KTEST_EXPECT_EQ(t, o.events, SROCE_PFC_EV_XON | SROCE_PFC_EV_EXPIRED);
	KTEST_EXPECT_EQ(t, o.paused_ns, 1000);
	KTEST_EXPECT_EQ(t, p.last_resume, 1010);

	/* A refresh extends the pause from its arrival, no new transition. */
	p = (struct sroce_pfc_rx_prio){};
	o = (struct sroce_pfc_rx_out){};
	sroce_pfc_rx_pause(&p, &wd_ms, 1000, 0, &o);
	KTEST_EXPECT_EQ(t, o.events, SROCE_PFC_EV_XOFF);
	o = (struct sroce_pfc_rx_out){};
	sroce_pfc_rx_pause(&p, &wd_ms, 1000, 500, &o);
	KTEST_EXPECT_EQ(t, o.events, 0);
	KTEST_EXPECT_EQ(t, p.until, 1500);
	/* A shorter pause time shortens it: the latest frame wins. */
	sroce_pfc_rx_pause(&p, &wd_ms, 100, 600, &o);
	KTEST_EXPECT_EQ(t, p.until, 700);
	sroce_pfc_rx_poll(&p, &wd_ms, 1200, &o);
	/* Ended at 700 (its expiry), not at the late poll: 700 ns paused. */
	KTEST_EXPECT_EQ(t, o.events, SROCE_PFC_EV_XON | SROCE_PFC_EV_EXPIRED);
	KTEST_EXPECT_EQ(t, o.paused_ns, 700);
}

static const struct sroce_pfc_wd_cfg wd_small = {
	.detect_ns = 100,
	.recover_ns = 200,
};

static void pfc_rx_storm_trip_restore(struct ktest *t)
{
	struct sroce_pfc_rx_prio p = {};
	struct sroce_pfc_rx_out o = {};
	u64 now;

	/* XOFF for 15 ns every 10 ns: continuously paused from t=0. */
	sroce_pfc_rx_pause(&p, &wd_small, 15, 0, &o);
	KTEST_EXPECT_EQ(t, o.events, SROCE_PFC_EV_XOFF);
	for (now = 10; now < 100; now += 10) {
		o = (struct sroce_pfc_rx_out){};
		sroce_pfc_rx_pause(&p, &wd_small, 15, now, &o);
		KTEST_EXPECT_EQ(t, o.events, 0);
	}
	/* At 90: until 105, watchdog due at 0 + 100. */
	KTEST_EXPECT_EQ(t, sroce_pfc_rx_next_poll(&p, &wd_small), 100);
	o = (struct sroce_pfc_rx_out){};
	sroce_pfc_rx_poll(&p, &wd_small, 99, &o);
	KTEST_EXPECT_EQ(t, o.events, 0);
	sroce_pfc_rx_poll(&p, &wd_small, 100, &o);
	KTEST_EXPECT_EQ(t, o.events, SROCE_PFC_EV_STORM | SROCE_PFC_EV_XON);
	KTEST_EXPECT_EQ(t, o.paused_ns, 100);
	KTEST_EXPECT(t, p.stormed);
	KTEST_EXPECT(t, !p.paused);

	/* The storm goes on until 300: every XOFF ignored, never paused. */
	for (now = 110; now <= 300; now += 10) {
		o = (struct sroce_pfc_rx_out){};
		sroce_pfc_rx_pause(&p, &wd_small, 15, now, &o);
		KTEST_EXPECT_EQ(t, o.events, SROCE_PFC_EV_IGNORED);
		KTEST_EXPECT(t, !p.paused);
	}
	/* XON while stormed: nothing to resume, nothing counted. */
	o = (struct sroce_pfc_rx_out){};
	sroce_pfc_rx_pause(&p, &wd_small, 0, 305, &o);
	KTEST_EXPECT_EQ(t, o.events, 0);
	/* Restored 200 ns after the last XOFF (300). */
	KTEST_EXPECT_EQ(t, sroce_pfc_rx_next_poll(&p, &wd_small), 500);
	sroce_pfc_rx_poll(&p, &wd_small, 499, &o);
	KTEST_EXPECT_EQ(t, o.events, 0);
	sroce_pfc_rx_poll(&p, &wd_small, 500, &o);
	KTEST_EXPECT_EQ(t, o.events, SROCE_PFC_EV_RESTORED);
	KTEST_EXPECT(t, !p.stormed);
	/* Honoured again, as a new episode. */
	o = (struct sroce_pfc_rx_out){};
	sroce_pfc_rx_pause(&p, &wd_small, 15, 510, &o);
	KTEST_EXPECT_EQ(t, o.events, SROCE_PFC_EV_XOFF);
	KTEST_EXPECT_EQ(t, p.episode_start, 510);
	KTEST_EXPECT_EQ(t, sroce_pfc_rx_next_poll(&p, &wd_small), 525);
}

static void pfc_rx_storm_gaps(struct ktest *t)
{
	struct sroce_pfc_rx_prio p = {};
	struct sroce_pfc_rx_out o = {};
	u32 all = 0;
	u64 now;

	/*
	 * 15 ns pauses every 20 ns: 5 ns gaps (< 100 / 4) do not end the
	 * episode; the XOFF at 100 finds it begun at 0 and trips.
	 */
	for (now = 0; now < 100; now += 20) {
		o = (struct sroce_pfc_rx_out){};
		sroce_pfc_rx_pause(&p, &wd_small, 15, now, &o);
		KTEST_EXPECT(t, o.events & SROCE_PFC_EV_XOFF);
		KTEST_EXPECT(t, !(o.events & SROCE_PFC_EV_STORM));
	}
	o = (struct sroce_pfc_rx_out){};
	sroce_pfc_rx_pause(&p, &wd_small, 15, 100, &o);
	KTEST_EXPECT(t, o.events & SROCE_PFC_EV_STORM);
	KTEST_EXPECT(t, p.stormed && !p.paused);

	/* 10 ns pauses every 40 ns: 30 ns gaps end every episode. */
	p = (struct sroce_pfc_rx_prio){};
	for (now = 0; now <= 1000; now += 40) {
		o = (struct sroce_pfc_rx_out){};
		sroce_pfc_rx_pause(&p, &wd_small, 10, now, &o);
		KTEST_EXPECT_EQ(t, p.episode_start, now);
		all |= o.events;
	}
	KTEST_EXPECT(t, !(all & SROCE_PFC_EV_STORM));
	KTEST_EXPECT(t, !p.stormed);
}

static void pfc_rx_watchdog_off(struct ktest *t)
{
	const struct sroce_pfc_wd_cfg off = { .detect_ns = 0,
					      .recover_ns = 200 };
	struct sroce_pfc_rx_prio p = {};
	struct sroce_pfc_rx_out o = {};
	u32 all = 0;

	for (u64 now = 0; now < 100000; now += 10)
		sroce_pfc_rx_pause(&p, &off, 15, now, &o);
	all = o.events;
	KTEST_EXPECT_EQ(t, all, SROCE_PFC_EV_XOFF);
	KTEST_EXPECT(t, p.paused && !p.stormed);
	KTEST_EXPECT_EQ(t, sroce_pfc_rx_next_poll(&p, &off), 99990 + 15);
}

static const struct sroce_pfc_gen_cfg gen = {
	.xoff_bytes = 8000,
	.xon_bytes = 3000,
	.refresh_ns = 1000,
	.max_xoff_ns = 10000,
};

static void pfc_gen_hysteresis(struct ktest *t)
{
	struct sroce_pfc_gen_prio g = {};
	static const struct {
		u64 now, backlog;
		enum sroce_pfc_gen_action act;
	} seq[] = {
		{ 0, 0, SROCE_PFC_GEN_NONE },
		{ 1, 7999, SROCE_PFC_GEN_NONE }, /* below XOFF */
		{ 2, 8000, SROCE_PFC_GEN_XOFF }, /* crosses XOFF */
		{ 3, 9000, SROCE_PFC_GEN_NONE },
		{ 500, 5000, SROCE_PFC_GEN_NONE }, /* between: hold */
		{ 1001, 5000, SROCE_PFC_GEN_NONE }, /* 999 since XOFF */
		{ 1002, 5000, SROCE_PFC_GEN_XOFF }, /* refresh */
		{ 1500, 3001, SROCE_PFC_GEN_NONE },
		{ 1600, 3000, SROCE_PFC_GEN_XON }, /* drained to XON */
		{ 1700, 7000, SROCE_PFC_GEN_NONE }, /* below XOFF again */
		{ 1800, 3000, SROCE_PFC_GEN_NONE }, /* no second XON */
		{ 1900, 8000, SROCE_PFC_GEN_XOFF },
	};
	u32 ev = 0;

	for (size_t i = 0; i < ARRAY_SIZE(seq); i++) {
		enum sroce_pfc_gen_action a = sroce_pfc_gen_step(
			&g, &gen, seq[i].backlog, seq[i].now, &ev);

		if (a != seq[i].act)
			ktest_fail(t, __FILE__, __LINE__,
				   "step %zu (t=%llu): action %d, want %d", i,
				   (unsigned long long)seq[i].now, a,
				   seq[i].act);
	}
	KTEST_EXPECT_EQ(t, ev, 0);
}

static void pfc_gen_bounded(struct ktest *t)
{
	struct sroce_pfc_gen_prio g = {};
	u32 ev = 0;
	u64 now;

	KTEST_EXPECT_EQ(t, sroce_pfc_gen_step(&g, &gen, 9000, 0, &ev),
			SROCE_PFC_GEN_XOFF);
	/* Refreshed every 1000 ns; warning once held for 5000. */
	for (now = 1000; now < 10000; now += 1000) {
		KTEST_EXPECT_EQ(t, sroce_pfc_gen_step(&g, &gen, 9000, now, &ev),
				SROCE_PFC_GEN_XOFF);
		KTEST_EXPECT_EQ(t, ev,
				now >= 5000 ? SROCE_PFC_GEN_EV_WARNING : 0);
	}
	/* Held for 10000: released with XON although still full. */
	ev = 0;
	KTEST_EXPECT_EQ(t, sroce_pfc_gen_step(&g, &gen, 9000, 10000, &ev),
			SROCE_PFC_GEN_XON);
	KTEST_EXPECT_EQ(t, ev, SROCE_PFC_GEN_EV_ERROR);
	/* Quiet for as long as it held XOFF. */
	ev = 0;
	for (now = 10001; now < 20000; now += 999)
		KTEST_EXPECT_EQ(t, sroce_pfc_gen_step(&g, &gen, 9000, now, &ev),
				SROCE_PFC_GEN_NONE);
	KTEST_EXPECT_EQ(t, sroce_pfc_gen_step(&g, &gen, 9000, 20000, &ev),
			SROCE_PFC_GEN_XOFF);
	KTEST_EXPECT_EQ(t, ev, 0);

	/* Suppression also ends when the backlog drains to XON. */
	g = (struct sroce_pfc_gen_prio){};
	sroce_pfc_gen_step(&g, &gen, 9000, 0, &ev);
	ev = 0;
	KTEST_EXPECT_EQ(t, sroce_pfc_gen_step(&g, &gen, 9000, 10000, &ev),
			SROCE_PFC_GEN_XON);
	KTEST_EXPECT_EQ(t, sroce_pfc_gen_step(&g, &gen, 3000, 10500, &ev),
			SROCE_PFC_GEN_NONE);
	KTEST_EXPECT(t, !g.suppressed);
	KTEST_EXPECT_EQ(t, sroce_pfc_gen_step(&g, &gen, 8500, 10600, &ev),
			SROCE_PFC_GEN_XOFF);
}

static const struct ktest_case pfc_cases[] = {
	KTEST_CASE(pfc_frame_layout),
	KTEST_CASE(pfc_parse_valid),
	KTEST_CASE(pfc_parse_malformed),
	KTEST_CASE(pfc_quanta_time),
	KTEST_CASE(pfc_ns_to_quanta_huge),
	KTEST_CASE(pfc_headroom_defaults),
	KTEST_CASE(pfc_rx_xoff_xon),
	KTEST_CASE(pfc_rx_expiry_refresh),
	KTEST_CASE(pfc_rx_storm_trip_restore),
	KTEST_CASE(pfc_rx_storm_gaps),
	KTEST_CASE(pfc_rx_watchdog_off),
	KTEST_CASE(pfc_gen_hysteresis),
	KTEST_CASE(pfc_gen_bounded),
};

KTEST_SUITE(pfc);
