// SPDX-License-Identifier: GPL-2.0
/*
 * cc_hpcc.c - HPCC, High Precision Congestion Control (Li et al., "HPCC:
 * High Precision Congestion Control", SIGCOMM 2019, Algorithm 1): a window
 * computed from the in-band network telemetry (INT) that ACKs echo.
 *
 * For each port j on the path an ACK carries the port's queue q_j (bytes),
 * the bytes it has sent tx_j, its clock ts_j and its speed B_j
 * (struct sroce_cc_int).  Against the records of the previous ACK (q',
 * tx', ts'):
 *   txRate_j = (tx_j - tx_j') / (ts_j - ts_j')
 *   u_j = min(q_j, q_j') / (B_j T) + txRate_j / B_j       (lines 4-5)
 * (with min(q_j, q_j') less one packet, hpcc_mtu: see below)
 *   u = max_j u_j, tau = ts_j - ts_j' of that port, at most T (6-8)
 *   U <- (1 - tau / T) U + tau / T u                        (line 9)
 * and the window, from the reference window W_c (lines 11-20):
 *   U >= eta or incStage >= maxStage:  W = W_c / (U / eta) + W_AI
 *   otherwise:                         W = W_c + W_AI
 * Every ACK computes W, but only the first ACK that acknowledges beyond
 * what had been sent when W_c last changed (ack.seq > lastUpdateSeq)
 * makes it the new W_c (incStage <- 0, resp. incStage + 1), so that W_c
 * moves once per RTT and the reactions of one RTT's ACKs do not compound
 * (lines 21-26).  The QP sends at W / T (line 27).
 *
 * Units: every window is kept divided by T, as a rate in kbit/s: R_c =
 * W_c / T, R_AI = W_AI / T (hpcc_ai_rate), the rate W / T.  The rate lies
 * in [sroce_cc_floor(), line rate] (and is never 0), and R_c with it.  U
 * is Q20 (SROCE_CC_ONE = 1.0).  W itself (rate x T) as a bound on the
 * bytes in flight is the caller's: the ops have no such output.
 *
 * ack.seq and snd_nxt come from the glue with each ACK (on_int), byte
 * offsets in the QP's stream: lastUpdateSeq is the snd_nxt of the ACK
 * that last moved W_c.  A go-back-N rewind lowers snd_nxt, so bytes lost
 * and sent again hold W_c back only until the resent bytes are
 * acknowledged, as in the paper (counting bytes sent and acknowledged
 * instead would never take lost ones off).  The state is active from
 * init on, so every data packet is paced.  There is no timer: only ACKs
 * change the rate.  HPCC reads no ECN: CNPs are ignored.
 *
 * The queue term less one packet: a port stamps the queue its packet
 * leaves behind, and a flow that sends slower than another finds, as a
 * rule, the other's packet queued behind each of its own (the other's
 * came while its own waited or was sent), while the faster flow rarely
 * finds the slower one's.  So the slower flow reads a queue of about a
 * packet that the faster one does not, 1 KB / (B T) = 4 % of U at 40
 * Gb/s and T = 5 us; near eta the flows' windows settle at about W_AI /
 * (1 - eta / U), and that much more U is several times less window: two
 * flows that start 5 ms apart stayed at 5.2 and 32.1 Gb/s (ccsim), where
 * they are fair if they start together.  The paper and ns-3 count the
 * whole queue (ns-3 in units of 80 bytes); with one packet less the
 * flows converge (Jain 0.9997) and a standing queue of one packet more
 * than before goes unseen, which costs no utilisation.
 *
 * The first ACK, and the first after a path change (another hop count),
 * only records the telemetry (and starts the RTT of W_c).  A port gives no
 * sample when its speed is 0, when its record is not newer than the kept
 * one (the same tick of its clock, ACKs reordered), when its tx_bytes went
 * back (the port restarted) or when the kept record is too old for the
 * compact copies below to tell the deltas.  An ACK on which any port
 * gives no sample is no sample: it only records the telemetry, and U, the
 * rate, W_c and lastUpdateSeq stay (the next ACK with a sample computes
 * W; ns-3 moves lastUpdateSeq on such an ACK, which would skip an RTT's
 * W_c update).  U starts at 1.0, as in ns-3.
 */
#include "cc.h"

/* Hop speeds beyond 2^36 kbit/s (68 Tb/s) count as that much. */
#define SROCE_HPCC_MAX_RATE BIT_ULL(36)
/* T is at most 100 ms; with MAX_RATE, B T stays below 2^63 bits. */
#define SROCE_HPCC_MAX_RTT_US 100000U
/* U is kept in a u32: up to 4096 (a queue of 4095 B T). */
#define SROCE_HPCC_U_MAX U32_MAX
/* The kept ts and tx_bytes are the low 32 bits: deltas below 2^31. */
#define SROCE_HPCC_DELTA_MAX BIT_ULL(31)
/* The kept queue is in 64-byte units, rounded up, at most 4 MiB. */
#define SROCE_HPCC_Q_SHIFT 6
#define SROCE_HPCC_Q_MAX 0xffffU
#define SROCE_HPCC_MBIT_NS 1000000ULL /* kbit/s x ns / this = bits */

/*
 * 80 bytes (priv): the previous ACK's records take 10 bytes a hop, as
 * only their deltas to the next ACK's matter (SROCE_HPCC_DELTA_MAX).
 */
struct sroce_hpcc {
	u64 rc; /* R_c = W_c / T, kbit/s */
	u64 last; /* ns: when the records below arrived */
	u64 seq; /* lastUpdateSeq: W_c moves on an ACK beyond it */
	u32 u; /* U, Q20 */
	u32 ts[SROCE_CC_INT_MAX_HOPS]; /* ts_ns of each hop, low 32 bits */
	u32 tx[SROCE_CC_INT_MAX_HOPS]; /* tx_bytes, low 32 bits */
	u16 q[SROCE_CC_INT_MAX_HOPS]; /* qlen, SROCE_HPCC_Q_SHIFT units */
	u8 nhops; /* records kept; 0 = none yet */
	u8 stage; /* incStage */
};

static_assert(sizeof(struct sroce_hpcc) <=
	      sizeof_field(struct sroce_cc_state, priv));

static struct sroce_hpcc *sroce_hpcc(struct sroce_cc_state *s)
{
	return (struct sroce_hpcc *)s->priv;
}

static u64 sroce_hpcc_rtt_ns(const struct sroce_cc_params *p)
{
	u32 us = p->hpcc_base_rtt_us;

	if (us < 1)
		us = 1;
	if (us > SROCE_HPCC_MAX_RTT_US)
		us = SROCE_HPCC_MAX_RTT_US;
	return us * SROCE_CC_NS_PER_US;
}

/* eta in %, within [1, 100] (0 would make every window W_AI). */
static u32 sroce_hpcc_eta(const struct sroce_cc_params *p)
{
	if (p->hpcc_eta < 1)
		return 1;
	return p->hpcc_eta > 100 ? 100 : p->hpcc_eta;
}

static u64 sroce_hpcc_add(u64 a, u64 b)
{
	return a > U64_MAX - b ? U64_MAX : a + b;
}

/* a * b / c for b, c < 2^32 (c > 0), U64_MAX if it does not fit. */
static u64 sroce_hpcc_muldiv(u64 a, u64 b, u64 c)
{
	u64 q = a / c, r = a % c;

	if (b && q > U64_MAX / b)
		return U64_MAX;
	return sroce_hpcc_add(q * b, r * b / c);
}

/*
 * u_j of line 5 (Q20, at most SROCE_HPCC_U_MAX) of a port of speed @rate
 * that sent @dtx bytes in @dts ns and had @q = min(q, q') bytes queued.
 */
static u64 sroce_hpcc_util(u64 q, u64 dtx, u64 dts, u64 rate, u64 t_ns)
{
	/* B T in bits; at least 1: a slow port with a short T. */
	u64 bt = rate * t_ns / SROCE_HPCC_MBIT_NS;
	/* kbit/s = bits per ns x 1e6 (dtx < 2^31: no overflow) */
	u64 tx_rate = dtx * 8 * SROCE_HPCC_MBIT_NS / dts;
	u64 u;

	if (!bt)
		bt = 1;
	/* 2^43 kbit/s is over 128 B already: keeps the shift in range */
	if (tx_rate > BIT_ULL(43))
		tx_rate = BIT_ULL(43);
	u = ((q * 8) << 20) / bt + (tx_rate << 20) / rate;
	return u > SROCE_HPCC_U_MAX ? SROCE_HPCC_U_MAX : u;
}

/*
 * MeasureInflight (lines 1-10) over the hops of @t, whose count matches
 * the kept records: U moves towards the most loaded port's u_j.  false:
 * a port could not be measured, so the ACK is no sample (the maximum of
 * the others could miss the bottleneck) and U stays.
 */
static bool sroce_hpcc_measure(struct sroce_hpcc *h,
			       const struct sroce_cc_params *p, u64 now,
			       const struct sroce_cc_int *t)
{
	u64 t_ns = sroce_hpcc_rtt_ns(p), age = now - h->last;
	u64 umax = 0, tau = 0;
	unsigned int j;

	for (j = 0; j < t->nhops; j++) {
		const struct sroce_cc_int_hop *hop = &t->hop[j];
		s32 dts = (s32)((u32)hop->ts_ns - h->ts[j]);
		s32 dtx = (s32)((u32)hop->tx_bytes - h->tx[j]);
		u64 rate = hop->rate, q = hop->qlen, kept, u;

		if (unlikely(!rate || dts <= 0 || dtx < 0))
			return false;
		if (rate > SROCE_HPCC_MAX_RATE)
			rate = SROCE_HPCC_MAX_RATE;
		/*
		 * The low 32 bits tell the deltas if they are below 2^31:
		 * judged by the sender's clock, as the port's may have
		 * wrapped, and for tx_bytes at the port's speed.
		 */
		if (unlikely(age >= SROCE_HPCC_DELTA_MAX ||
			     age >= SROCE_HPCC_DELTA_MAX * 8 *
					     SROCE_HPCC_MBIT_NS / rate))
			return false;
		/* min(q, q'): a queue seen by one ACK only is noise */
		kept = (u64)h->q[j] << SROCE_HPCC_Q_SHIFT;
		if (q > kept)
			q = kept;
		/* less a packet: what one flow leaves behind for another */
		q = q > p->hpcc_mtu ? q - p->hpcc_mtu : 0;
		u = sroce_hpcc_util(q, (u64)dtx, (u64)dts, rate, t_ns);
		/*
		 * The first of the most loaded ports gives tau, also when
		 * every u_j is 0: then U decays towards the idle path (ns-3
		 * keeps tau 0 there, its maximum starting at 0, and U stays).
		 */
		if (!j || u > umax) {
			umax = u;
			tau = (u64)dts;
		}
	}
	if (tau > t_ns)
		tau = t_ns;
	h->u = (u32)(((u64)h->u * (t_ns - tau) + umax * tau) / t_ns);
	return true;
}

/*
 * The records of @t become the previous ACK's (L = ack.L, line 28), but
 * for a port whose clock has not moved since the kept record: a coarse
 * clock stamps packets of one tick alike, and the next delta must count
 * the bytes sent in that tick.
 */
static void sroce_hpcc_keep(struct sroce_hpcc *h, const struct sroce_cc_int *t,
			    u64 now)
{
	bool same = t->nhops == h->nhops;
	unsigned int j;

	for (j = 0; j < t->nhops; j++) {
		u64 q;

		if (same && (u32)t->hop[j].ts_ns == h->ts[j])
			continue;
		q = ((u64)t->hop[j].qlen + BIT(SROCE_HPCC_Q_SHIFT) - 1) >>
		    SROCE_HPCC_Q_SHIFT;
		h->ts[j] = (u32)t->hop[j].ts_ns;
		h->tx[j] = (u32)t->hop[j].tx_bytes;
		h->q[j] = q > SROCE_HPCC_Q_MAX ? SROCE_HPCC_Q_MAX : (u16)q;
	}
	h->nhops = t->nhops;
	h->last = now;
}

/* ComputeWind (lines 11-20) and R = W / T (line 27), as rates. */
static void sroce_hpcc_window(struct sroce_cc_state *s,
			      const struct sroce_cc_params *p, bool update)
{
	struct sroce_hpcc *h = sroce_hpcc(s);
	u64 eta = sroce_hpcc_eta(p), lo = sroce_cc_floor(p), r;
	/* U >= eta, exactly: U / 2^20 >= eta / 100 */
	bool mi = (u64)h->u * 100 >= eta * SROCE_CC_ONE ||
		  h->stage >= p->hpcc_max_stage;

	if (mi && !h->u)
		r = U64_MAX; /* an idle path: W_c / 0, the line rate */
	else if (mi) /* R_c / (U / eta): (R_c eta / 100) 2^20 / U */
		r = sroce_hpcc_muldiv(sroce_hpcc_muldiv(h->rc, eta, 100),
				      SROCE_CC_ONE, h->u);
	else
		r = h->rc;
	r = sroce_hpcc_add(r, p->hpcc_ai_rate);
	if (r > p->line_rate)
		r = p->line_rate;
	if (r < lo)
		r = lo;
	if (!r)
		r = 1; /* never W = 0: the QP would never send again */
	if (r < s->rate)
		s->reason = SROCE_CC_R_CUT;
	else
		s->reason = mi ? SROCE_CC_R_HYPER : SROCE_CC_R_ADDITIVE;
	s->rate = r;
	if (!update)
		return;
	h->rc = r;
	if (mi)
		h->stage = 0;
	else if (h->stage < U8_MAX)
		h->stage++;
}

static void sroce_hpcc_init(struct sroce_cc_state *s,
			    const struct sroce_cc_params *p, u64 now)
{
	sroce_cc_init_line_rate(s, p, now);
	/* W_init = B T: the first RTT goes at line rate */
	sroce_hpcc(s)->rc = p->line_rate;
	/* as ns-3: the first sample moves U from a full link, tau / T */
	sroce_hpcc(s)->u = SROCE_CC_ONE;
	s->active = 1; /* a window: every packet is paced and counted */
}

/* NewAck (lines 21-28) for an ACK up to @ack_seq with telemetry @t. */
static void sroce_hpcc_on_int(struct sroce_cc_state *s,
			      const struct sroce_cc_params *p, u64 now,
			      u64 ack_seq, u64 snd_nxt,
			      const struct sroce_cc_int *t)
{
	struct sroce_hpcc *h = sroce_hpcc(s);
	/* ack.seq > lastUpdateSeq, modulo 2^64 */
	bool update = (s64)(ack_seq - h->seq) > 0;

	if (unlikely(!t || !t->nhops || t->nhops > SROCE_CC_INT_MAX_HOPS))
		return; /* nothing to measure */
	if (t->nhops != h->nhops) {
		/* first ACK or a new path: a reference, and a new RTT */
		sroce_hpcc_keep(h, t, now);
		h->seq = snd_nxt;
		return;
	}
	if (!sroce_hpcc_measure(h, p, now, t)) {
		/* no sample: no W; W_c and lastUpdateSeq stay */
		sroce_hpcc_keep(h, t, now);
		return;
	}
	sroce_hpcc_keep(h, t, now);
	sroce_hpcc_window(s, p, update);
	if (update)
		h->seq = snd_nxt; /* W_c waits for all sent so far */
}

const struct sroce_cc_ops sroce_cc_hpcc_ops = {
	.name = "hpcc",
	.init = sroce_hpcc_init,
	/* no on_cnp: INT, not ECN, is its signal (rp_cnp_ignored) */
	.on_int = sroce_hpcc_on_int,
	/* no on_timer, no next_event: only ACKs change the rate */
};
