// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_cc.c - the congestion control algorithms of kernel/proto/cc*.c
 * (none, dcqcn in both flavours, dctcp, fixed, timely, hpcc) and the
 * pacing they drive, over any parameters the ecn/roce_rp knobs accept and
 * any sequence of CNPs, RTT samples (for hpcc: ACKs with in-band
 * telemetry), packets and timer runs.
 *
 * Input: algorithm and flavour (1 byte), port speed (3), which knobs to
 * override (2) and their values, then events of 4 bytes: kind and time
 * step (1), argument (3).  For an algorithm with on_int (hpcc) the clock
 * is followed by a flag (1) and, if its bit 0 is set, the hpcc knobs (T
 * 4, eta 1, maxStage 1, W_AI / T 8 and a shift 1, mtu 4), then where the ports'
 * counters and the byte stream start (8); an ACK event (its argument:
 * bytes acknowledged, at most what is in flight, and a go-back-N rewind
 * flag) reads its telemetry next: a hop count (1; 0 and 6 are invalid
 * ones) and per hop the step of its clock (2, backwards if the top bit
 * is set), of its tx_bytes (3, likewise), its queue (3) and a byte of
 * scales and speed (0, 1 kbit/s ... U64_MAX).
 * Calls go through the same entry points as kernel/cc.c
 * (sroce_cc_cnp/ack/telemetry/pace_check/pace_packet, on_timer), time
 * never goes back, the parameters stay fixed (hpcc's knobs among them).
 *
 * Invariants after every event:
 *  - the rate lies in [min(rpg_min_rate, line rate), line rate];
 *  - an inactive state sends at line rate; alpha is at most 1.0;
 *  - fixed is always active at line rate, none never active, hpcc
 *    always active;
 *  - a CNP never raises the rate, and dcqcn/dctcp are active after one;
 *    timely never cuts on an RTT below T_low nor raises above T_high,
 *    and one sample keeps at least rpg_min_dec_fac % of the rate;
 *  - a state that a CNP or an RTT sample makes active starts pacing now,
 *    without credit (edt = now); an RTT sample or an ACK with telemetry
 *    that raises the rate shortens a wait still ahead, to no earlier
 *    than now, and otherwise leaves the departure time alone;
 *  - sroce_cc_pace_check() returns 0 (send now) or a time after now, never
 *    later than the departure time; after a packet the departure time is
 *    within [now - credit + tx, now + tx] of the packet's transmit time;
 *  - next_event of an active state brought up to date is after now;
 *  - the shared equations: a cut stays within [floor, rate], alpha
 *    updates stay within [0, 1.0] and decay never grows alpha and, up to
 *    64 periods, equals that many single updates.
 */
#include "fuzz.h"
#include "cc.h"

#define KBPS(mbps) ((u64)(mbps)*SROCE_CC_KBPS_PER_MBPS)
#define MAX_MBPS 400000 /* kernel/cc_sysfs.c */

static const struct sroce_cc_ops *const algos[] = {
	&sroce_cc_none_ops,  &sroce_cc_dcqcn_ops,  &sroce_cc_dctcp_ops,
	&sroce_cc_fixed_ops, &sroce_cc_timely_ops, &sroce_cc_hpcc_ops,
};

struct run {
	const struct sroce_cc_ops *ops;
	struct sroce_cc_params p;
	struct sroce_cc_state s;
	u64 edt, now, lo;
	struct sroce_cc_int path; /* hpcc: the ports' counters so far */
	u64 snd_nxt, ack_seq; /* hpcc: the QP's byte stream */
};

/* The knobs in kernel/cc_sysfs.c order, each overridden if its bit is set. */
static void read_params(struct fuzz_in *in, struct sroce_cc_params *p, u64 port)
{
	u16 which = fuzz_u16(in);
	u64 max_rate;

#define KNOB(bit, field, bytes, lo, hi, scale)                              \
	do {                                                                \
		if (which & BIT(bit))                                       \
			p->field = fuzz_range(in, bytes, lo, hi) * (scale); \
	} while (0)
	KNOB(0, time_reset_us, 3, 0, 1000000, 1);
	KNOB(1, byte_reset, 4, 0, 0x7fffffff, 1);
	KNOB(2, threshold, 1, 1, 31, 1);
	KNOB(3, ai_rate, 3, 1, MAX_MBPS, SROCE_CC_KBPS_PER_MBPS);
	KNOB(4, hai_rate, 3, 1, MAX_MBPS, SROCE_CC_KBPS_PER_MBPS);
	KNOB(5, gd, 1, 0, 15, 1);
	KNOB(6, min_dec_fac, 1, 0, 100, 1);
	KNOB(7, min_rate, 3, 1, MAX_MBPS, SROCE_CC_KBPS_PER_MBPS);
	KNOB(8, first_cnp_rate, 3, 0, MAX_MBPS, SROCE_CC_KBPS_PER_MBPS);
	KNOB(9, g, 2, 0, 1024, 1);
	KNOB(10, alpha_period_us, 3, 1, 1000000, 1);
	KNOB(11, monitor_period_us, 3, 0, 1000000, 1);
	KNOB(12, initial_alpha, 2, 0, 1024, 1);
#undef KNOB
	if (which & BIT(13))
		p->clamp_tgt_rate = fuzz_u8(in) & 1;
	if (which & BIT(14))
		p->clamp_tgt_rate_after_time_inc = fuzz_u8(in) & 1;
	/* rpg_max_rate, resolved as sroce_cc_params_of(): 0 = the port. */
	max_rate = which & BIT(15) ? KBPS(fuzz_range(in, 3, 0, MAX_MBPS)) : 0;
	p->line_rate = !max_rate || max_rate > port ? port : max_rate;
}

/*
 * For algorithms with on_int: its knobs (if the first byte says so, with
 * any value the fields hold) and where the ports' counters start.
 */
static void read_int_start(struct fuzz_in *in, struct run *r)
{
	struct sroce_cc_params *p = &r->p;
	u64 base, ai;
	unsigned int j;
	u8 shift;

	if (fuzz_u8(in) & 1) {
		p->hpcc_base_rtt_us = fuzz_u32(in);
		p->hpcc_eta = fuzz_u8(in);
		p->hpcc_max_stage = fuzz_u8(in);
		/* in input order: the operands' order of evaluation is not */
		ai = fuzz_u64(in);
		shift = fuzz_u8(in) & 63;
		p->hpcc_ai_rate = ai >> shift;
		p->hpcc_mtu = fuzz_u32(in);
	}
	base = fuzz_u64(in);
	r->snd_nxt = base * 0x2545f4914f6cdd1dULL; /* anywhere, may wrap */
	r->ack_seq = r->snd_nxt;
	for (j = 0; j < SROCE_CC_INT_MAX_HOPS; j++) {
		r->path.hop[j].ts_ns = base + j * 0x9e3779b97f4a7c15ULL;
		r->path.hop[j].tx_bytes = ~base - j * 0x51afd7ed558ccd1dULL;
	}
}

static void check_state(const struct run *r)
{
	const struct sroce_cc_state *s = &r->s;

	FUZZ_ASSERT(s->rate >= r->lo && s->rate <= r->p.line_rate);
	if (!s->active)
		FUZZ_ASSERT(s->rate == r->p.line_rate);
	if (r->ops->alpha)
		FUZZ_ASSERT(r->ops->alpha(s) <= SROCE_CC_ONE);
	if (r->ops == &sroce_cc_fixed_ops)
		FUZZ_ASSERT(s->active && s->rate == r->p.line_rate);
	if (r->ops == &sroce_cc_none_ops)
		FUZZ_ASSERT(!s->active && s->rate == r->p.line_rate);
	if (r->ops == &sroce_cc_hpcc_ops)
		FUZZ_ASSERT(s->active && s->rate);
}

/* The state with its timers brought up to now, without touching it. */
static struct sroce_cc_state synced(const struct run *r)
{
	struct sroce_cc_state s = r->s;

	if (r->ops->on_timer)
		r->ops->on_timer(&s, &r->p, r->now);
	return s;
}

static void ev_cnp(struct run *r)
{
	struct sroce_cc_state before = synced(r);
	bool handled = sroce_cc_cnp(r->ops, &r->s, &r->p, &r->edt, r->now);

	FUZZ_ASSERT(handled == !!r->ops->on_cnp);
	if (!r->ops->on_cnp) /* nothing ran, not even on_timer */
		return;
	FUZZ_ASSERT(r->s.rate <= before.rate);
	if (r->ops == &sroce_cc_dcqcn_ops || r->ops == &sroce_cc_dctcp_ops)
		FUZZ_ASSERT(r->s.active);
	if (!before.active && r->s.active)
		FUZZ_ASSERT(r->edt == r->now);
}

static void ev_ack(struct run *r, u64 rtt)
{
	struct sroce_cc_state before = synced(r);
	u64 edt = r->edt;

	sroce_cc_ack(r->ops, &r->s, &r->p, &r->edt, r->now, rtt, 4096);
	if (!r->ops->on_ack) /* nothing ran, not even on_timer */
		return;
	if (r->ops == &sroce_cc_timely_ops && rtt) {
		if (rtt < 50 * SROCE_CC_NS_PER_US)
			FUZZ_ASSERT(r->s.rate >= before.rate);
		if (rtt > 500 * SROCE_CC_NS_PER_US)
			FUZZ_ASSERT(r->s.rate <= before.rate);
		/* one sample cuts to no less than rpg_min_dec_fac % */
		FUZZ_ASSERT(r->s.rate >= before.rate * r->p.min_dec_fac / 100);
	}
	/* as ev_int: a rise within an episode shortens a wait ahead */
	if (!before.active && r->s.active)
		FUZZ_ASSERT(r->edt == r->now);
	else if (r->s.active && r->s.rate > before.rate && edt > r->now)
		FUZZ_ASSERT(r->edt <= edt && r->edt >= r->now);
	else
		FUZZ_ASSERT(r->edt == edt);
}

/*
 * An ACK of up to @bytes more (never beyond snd_nxt) with the telemetry
 * the input describes next; with @rewind the sender then goes back to
 * the ACK's sequence (go-back-N).
 */
static void ev_int(struct run *r, struct fuzz_in *in, u32 bytes, bool rewind)
{
	static const u64 speeds[8] = { 0,
				       1,
				       KBPS(10000),
				       KBPS(40000),
				       KBPS(100000),
				       KBPS(400000),
				       KBPS(1200000),
				       U64_MAX };
	struct sroce_cc_int *t = &r->path;
	struct sroce_cc_state before = synced(r);
	u64 edt = r->edt, rate = r->s.rate;
	unsigned int j;

	t->nhops = fuzz_u8(in) % (SROCE_CC_INT_MAX_HOPS + 2);
	for (j = 0; j < t->nhops && j < SROCE_CC_INT_MAX_HOPS; j++) {
		struct sroce_cc_int_hop *h = &t->hop[j];
		u16 dts = fuzz_u16(in);
		u32 dtx = (u32)fuzz_get(in, 3);
		u32 q = (u32)fuzz_get(in, 3);
		u8 sel = fuzz_u8(in);

		/*
		 * sel: bit 0 scales the queue, bits 1-3 pick the speed, bits
		 * 4-6 scale the clock step (up to 2^29 ns), bit 7 tx_bytes'.
		 */
		if (dts & 0x8000)
			h->ts_ns -= (u64)(dts & 0x7fff) << 2 * (sel >> 4 & 7);
		else
			h->ts_ns += (u64)dts << 2 * (sel >> 4 & 7);
		if (dtx & 0x800000)
			h->tx_bytes -= dtx & 0x7fffff;
		else
			h->tx_bytes += (u64)dtx << (sel >> 7 ? 8 : 0);
		h->qlen = q << (sel & 1 ? 8 : 0);
		h->rate = speeds[sel >> 1 & 7];
	}
	r->ack_seq += bytes < r->snd_nxt - r->ack_seq ? bytes :
							r->snd_nxt - r->ack_seq;
	if (rewind)
		r->snd_nxt = r->ack_seq;
	sroce_cc_telemetry(r->ops, &r->s, &r->p, &r->edt, r->now, r->ack_seq,
			   r->snd_nxt, t);
	/*
	 * An episode starts now, no credit; within one, edt stays, but for
	 * a wait still ahead that a rise shortens (never to before now).
	 */
	if (!before.active && r->s.active)
		FUZZ_ASSERT(r->edt == r->now);
	else if (r->s.active && r->s.rate > rate && edt > r->now)
		FUZZ_ASSERT(r->edt <= edt && r->edt >= r->now);
	else
		FUZZ_ASSERT(r->edt == edt);
}

static void ev_send(struct run *r, u32 bytes)
{
	u64 wait = sroce_cc_pace_check(r->ops, &r->s, &r->p, &r->edt, r->now);
	u64 burst, tx;

	if (wait) {
		FUZZ_ASSERT(r->s.active);
		FUZZ_ASSERT(wait > r->now && wait <= r->edt);
		return;
	}
	FUZZ_ASSERT(!r->s.active || r->edt <= r->now);
	sroce_cc_pace_packet(r->ops, &r->s, &r->p, &r->edt, r->now, bytes,
			     SROCE_CC_BURST_NS);
	r->snd_nxt += bytes;
	if (!r->s.active)
		return;
	burst = sroce_cc_pace_burst(r->s.rate, SROCE_CC_BURST_NS);
	tx = sroce_cc_tx_time(bytes, r->s.rate);
	FUZZ_ASSERT(burst <= SROCE_CC_BURST_NS);
	FUZZ_ASSERT(r->edt + burst >= r->now + tx);
	FUZZ_ASSERT(r->edt <= r->now + tx);
}

static void ev_timer(struct run *r, u32 arg)
{
	if (r->ops->on_timer)
		r->ops->on_timer(&r->s, &r->p, r->now);
	if (r->s.active && r->ops->next_event)
		FUZZ_ASSERT(r->ops->next_event(&r->s, &r->p) > r->now);
	if (!r->s.active && r->ops->next_event)
		FUZZ_ASSERT(r->ops->next_event(&r->s, &r->p) == U64_MAX);

	/* A rise shortens a wait, a cut leaves it. */
	{
		u64 edt = r->now + (arg & 0xffff) * 1000ULL;
		u64 old = r->s.rate, new = old + (arg >> 16) * 1000ULL;
		u64 e = sroce_cc_pace_rerate(edt, r->now, old, new);

		FUZZ_ASSERT(e <= edt && e >= r->now);
		FUZZ_ASSERT(sroce_cc_pace_rerate(edt, r->now, new, old) == edt);
	}
}

/* The shared equations of cc.c, on values taken from the run. */
static void check_equations(const struct run *r, u32 arg)
{
	u32 alpha = arg % (SROCE_CC_ONE + 1);
	u64 rate = r->s.rate;
	u64 cut = sroce_cc_cut(&r->p, rate, alpha);
	u32 up = sroce_cc_alpha_update(alpha, r->p.g, true);
	u32 down = sroce_cc_alpha_update(alpha, r->p.g, false);
	u32 a = alpha;
	unsigned int n = arg >> 24;

	FUZZ_ASSERT(cut >= r->lo);
	FUZZ_ASSERT(cut >= rate * r->p.min_dec_fac / 100);
	FUZZ_ASSERT(cut <= (rate > r->lo ? rate : r->lo));
	FUZZ_ASSERT(up <= SROCE_CC_ONE && down <= up && down <= alpha);
	FUZZ_ASSERT(sroce_cc_alpha_decay(alpha, r->p.g, (u64)n << 20) <= alpha);
	if (n <= 64) {
		for (unsigned int i = 0; i < n; i++)
			a = sroce_cc_alpha_update(a, r->p.g, false);
		FUZZ_ASSERT(sroce_cc_alpha_decay(alpha, r->p.g, n) == a);
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static const unsigned int shift[4] = { 0, 10, 16, 20 };
	struct fuzz_in in;
	struct run r;
	u8 sel;
	u64 port;

	fuzz_in_init(&in, data, size);
	sel = fuzz_u8(&in);
	r.ops = algos[(sel & 0x7f) % ARRAY_SIZE(algos)];
	/* Port speeds of ib_core: 2.5 Gb/s x1 up to 100 Gb/s x12. */
	port = KBPS(fuzz_range(&in, 3, 1000, 1200000));
	sroce_cc_params_default(&r.p,
				sel & 0x80 ? SROCE_CC_MLX : SROCE_CC_PAPER, 0);
	read_params(&in, &r.p, port);
	r.lo = r.p.min_rate < r.p.line_rate ? r.p.min_rate : r.p.line_rate;

	r.now = fuzz_u32(&in) * 1000ULL; /* any monotonic clock */
	r.edt = r.now;
	memset(&r.path, 0, sizeof(r.path));
	if (r.ops->on_int)
		read_int_start(&in, &r);
	r.ops->init(&r.s, &r.p, r.now);
	check_state(&r);

	while (!fuzz_in_empty(&in)) {
		u8 op = fuzz_u8(&in);
		u32 arg = (u32)fuzz_get(&in, 3);
		u64 step = (u64)(op >> 4) << shift[(op >> 2) & 3];

		r.now += step * (1 + (arg & 0xff));
		switch (op & 3) {
		case 0:
			ev_cnp(&r);
			break;
		case 1: /* RTT up to 2^31 ns, or telemetry */
			if (r.ops->on_int)
				ev_int(&r, &in, arg >> 8, arg & 1);
			else
				ev_ack(&r, (u64)(arg >> 8) << (op >> 4));
			break;
		case 2:
			ev_send(&r, arg >> 8);
			break;
		case 3:
			ev_timer(&r, arg);
			check_equations(&r, arg);
			break;
		}
		check_state(&r);
	}
	return 0;
}
