/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cc.h - the pure core of congestion control: parameters, per-QP state and
 * the algorithm interface (in the spirit of tcp_congestion_ops).
 *
 * An algorithm is a set of functions over a struct sroce_cc_state; every
 * function gets the time (ns, any monotonic clock) and the parameters as
 * arguments, takes no lock and allocates nothing.  The kernel glue
 * (kernel/cc.c) serialises the calls of one QP, reads the clock and
 * enforces cc->rate by pacing.  The same sources build into the unit tests.
 *
 * Units: rates in kbit/s, times in ns (parameters in us, as the knobs),
 * alpha in Q20 fixed point (SROCE_CC_ONE is 1.0), g-like factors in 1/1024.
 *
 * Time is evaluated lazily: an algorithm brings its timers up to date
 * whenever it is called (sroce_cc_*() below), so an idle QP needs no timer.
 */
#ifndef _SROCE_PROTO_CC_H
#define _SROCE_PROTO_CC_H

#include "env.h"

#define SROCE_CC_ONE ((u32)BIT(20)) /* alpha = 1.0 */
#define SROCE_CC_G_ONE 1024U /* dce_tcp_g = 1.0 */
#define SROCE_CC_NS_PER_US 1000ULL
#define SROCE_CC_KBPS_PER_MBPS 1000ULL

/* DCQCN flavour (the `flavour` knob). */
enum sroce_cc_flavour {
	/* SIGCOMM 2015: alpha updated on each CNP and decayed every K us. */
	SROCE_CC_PAPER,
	/* NVIDIA firmware: periodic alpha, cuts deferred to a monitor period. */
	SROCE_CC_MLX,
};

/*
 * Reaction point parameters, one set per device, named after NVIDIA's
 * ecn/roce_rp/ files (rates in Mb/s and times in us there; converted here).
 */
struct sroce_cc_params {
	u64 line_rate; /* kbit/s: port speed, or rpg_max_rate if lower */
	u64 min_rate; /* rpg_min_rate, kbit/s: the floor of every cut */
	/* (but never above line_rate: sroce_cc_floor()) */
	u64 ai_rate; /* rpg_ai_rate, kbit/s: additive increase step */
	u64 hai_rate; /* rpg_hai_rate, kbit/s: hyper increase step */
	u64 first_cnp_rate; /* rate_to_set_on_first_cnp, kbit/s; 0 = off */
	u32 time_reset_us; /* rpg_time_reset: rate increase timer */
	u32 byte_reset; /* rpg_byte_reset: bytes per stage; 0 = off */
	u32 threshold; /* rpg_threshold: F, stages of fast recovery */
	u32 gd; /* rpg_gd: cut = alpha / 2^(gd - 10) of the rate */
	u32 min_dec_fac; /* rpg_min_dec_fac: a cut keeps >= this % */
	u32 g; /* dce_tcp_g: alpha = g/1024 * alpha + (1 - g/1024) * x */
	u32 alpha_period_us; /* dce_tcp_rtt: alpha update period (K) */
	u32 monitor_period_us; /* rate_reduce_monitor_period (mlx) */
	u32 initial_alpha; /* initial_alpha_value, 1/1024 (mlx) */
	bool clamp_tgt_rate; /* on a cut always Rt = Rc */
	bool clamp_tgt_rate_after_time_inc; /* Rt = Rc if timer raised Rc */
	/*
	 * cnp_window_cut (not NVIDIA's): a CNP that the algorithm handles
	 * also halves an RC requester's recovery window, as ECN does TCP's
	 * (kernel/comp.c, sroce_comp_cnp()); the rate alone reacts if false.
	 */
	bool cnp_win_cut;
	/*
	 * window_rtt_fair (not NVIDIA's): above ssthresh an RC requester's
	 * recovery window grows by (window / flight)^2 packets per window's
	 * worth of ACKs, so that a QP whose packets wait in its host climbs
	 * in rate as fast as the others (kernel/proto/win.h,
	 * sroce_win_used()); one packet, TCP's step, if false.
	 */
	bool win_rtt_fair;
	u8 flavour; /* enum sroce_cc_flavour */
	/*
	 * HPCC (cc_hpcc.c), Li et al. SIGCOMM 2019; the paper's window W is
	 * kept as the rate W / T, so W_AI is given as the rate W_AI / T.
	 */
	u64 hpcc_ai_rate; /* kbit/s: W_AI / T, the additive step */
	u32 hpcc_base_rtt_us; /* T: the base RTT of the path, us */
	u32 hpcc_eta; /* eta: target utilisation, % of each link */
	u32 hpcc_max_stage; /* maxStage: additive steps per multiplicative */
	/*
	 * Bytes of one packet: the queue term counts min(q, q') less this
	 * much, the packet of another flow that the sampled one left behind
	 * (cc_hpcc.c); 0 counts the whole queue, as the paper.
	 */
	u32 hpcc_mtu;
};

/* Per-QP state: the current rate plus the algorithm's private words. */
struct sroce_cc_state {
	u64 rate; /* kbit/s the QP may send at now; line_rate = unpaced */
	u8 reason; /* enum sroce_cc_reason of the last rate change */
	/*
	 * The algorithm runs (a CNP was seen and it has not recovered): the
	 * caller must pace at rate and call on_sent/on_timer.  0 = idle at
	 * line rate, where the hooks cost nothing.
	 */
	u8 active;
	u64 priv[10]; /* algorithm state (see each algorithm's .c) */
};

/* Why a rate changed (tracepoint argument). */
enum sroce_cc_reason {
	SROCE_CC_R_NONE,
	SROCE_CC_R_CUT, /* a CNP (or a window with one) */
	SROCE_CC_R_FIRST_CNP, /* rate_to_set_on_first_cnp */
	SROCE_CC_R_FAST_RECOVERY,
	SROCE_CC_R_ADDITIVE,
	SROCE_CC_R_HYPER,
	SROCE_CC_R_RECOVERED, /* back to line rate after a long idle */
};

/*
 * In-band network telemetry (INT) of one ACK, as HPCC uses it: each switch
 * port on the data packet's path appended one record as the packet left
 * it, and the receiver echoed the records in the ACK.  hop[0] is the
 * first port.  The counters are the port's own (ts on its clock); a glue
 * that decodes narrower wire fields widens them so that they only ever
 * grow, except when the port restarts.
 */
#define SROCE_CC_INT_MAX_HOPS 5

struct sroce_cc_int_hop {
	u64 ts_ns; /* the port's clock when the packet left, ns */
	u64 tx_bytes; /* bytes the port had sent then, cumulative */
	u64 rate; /* the port's speed B, kbit/s */
	u32 qlen; /* bytes queued at the port then */
};

struct sroce_cc_int {
	u8 nhops; /* records in hop[]; 0 = the ACK carried none */
	struct sroce_cc_int_hop hop[SROCE_CC_INT_MAX_HOPS];
};

/*
 * An algorithm.  All hooks may be NULL except init.  @now is in ns and
 * never goes backwards for one state.  A hook that changes s->rate sets
 * s->reason.  The QP is paced while s->active is set.
 */
struct sroce_cc_ops {
	const char *name;
	/*
	 * Start (no allocation: the state is embedded).  Most algorithms
	 * start where sroce_cc_init_line_rate() does, and use it as init
	 * or call it first.
	 */
	void (*init)(struct sroce_cc_state *s, const struct sroce_cc_params *p,
		     u64 now);
	/*
	 * A CNP for this QP arrived.  false: ignored (counted
	 * rp_cnp_ignored); NULL: every CNP is.
	 */
	bool (*on_cnp)(struct sroce_cc_state *s,
		       const struct sroce_cc_params *p, u64 now);
	/* An ACK with an RTT sample (ns; 0 = none) for @bytes acknowledged. */
	void (*on_ack)(struct sroce_cc_state *s,
		       const struct sroce_cc_params *p, u64 now, u64 rtt,
		       u32 bytes);
	/* @bytes of payload-carrying packet were sent. */
	void (*on_sent)(struct sroce_cc_state *s,
			const struct sroce_cc_params *p, u64 now, u32 bytes);
	/* Bring the timers up to @now (rate increases, deferred cuts). */
	void (*on_timer)(struct sroce_cc_state *s,
			 const struct sroce_cc_params *p, u64 now);
	/* Alpha (Q20) for tracing and debugging; NULL if the algorithm has none. */
	u32 (*alpha)(const struct sroce_cc_state *s);
	/*
	 * When (ns) on_timer may next raise the rate of an active state
	 * brought up to date, U64_MAX if never.  A QP waiting to be paced
	 * looks again then.  NULL is never: only the departure time of its
	 * last packet ends a QP's wait, so an algorithm whose on_timer
	 * raises the rate as time passes must have it.
	 */
	u64 (*next_event)(const struct sroce_cc_state *s,
			  const struct sroce_cc_params *p);
	/*
	 * Hooks added later go last, so that an algorithm built out of
	 * tree (kernel/cc_example/) against an older cc.h keeps the
	 * members it knows at their offsets.
	 *
	 * An ACK arrived with the telemetry @t of the packet it answers
	 * (t->nhops may be 0).  @ack_seq is the ACK's cumulative sequence
	 * (every byte below it acknowledged) and @snd_nxt the sender's
	 * next byte to send now, after any go-back-N rewind: byte offsets
	 * in the QP's stream, widened by the glue to 64 bits (they may
	 * start anywhere; compared modulo 2^64).
	 */
	void (*on_int)(struct sroce_cc_state *s,
		       const struct sroce_cc_params *p, u64 now, u64 ack_seq,
		       u64 snd_nxt, const struct sroce_cc_int *t);
};

/*
 * The common init: the state cleared (no reason, private words 0) at line
 * rate and inactive, so not paced until a hook makes it active.
 */
static inline void sroce_cc_init_line_rate(struct sroce_cc_state *s,
					   const struct sroce_cc_params *p,
					   u64 now)
{
	memset(s, 0, sizeof(*s));
	s->rate = p->line_rate;
}

extern const struct sroce_cc_ops sroce_cc_none_ops;
extern const struct sroce_cc_ops sroce_cc_dcqcn_ops;
extern const struct sroce_cc_ops sroce_cc_dctcp_ops;
/* Not in sroce.ko: kernel/cc_example/ builds it into its own module. */
extern const struct sroce_cc_ops sroce_cc_fixed_ops;
/* RTT-based (on_ack); in sroce.ko once the requester feeds RTT samples. */
extern const struct sroce_cc_ops sroce_cc_timely_ops;
/*
 * INT-based (on_int): in sroce.ko, fed by the completer with the INT that
 * ACKs echo (kernel/int.c; it needs switches that stamp it), in tools/ccsim
 * by its simulated switches.
 */
extern const struct sroce_cc_ops sroce_cc_hpcc_ops;

/* Defaults of each flavour (dcqcn.md): mlx firmware and SIGCOMM 2015. */
void sroce_cc_params_default(struct sroce_cc_params *p,
			     enum sroce_cc_flavour flavour, u64 line_rate);

/*
 * alpha * (g/1024)^n, rounded down at each step as n single updates would
 * be for n <= 64, by squaring beyond (O(log n): a long idle is cheap).
 */
u32 sroce_cc_alpha_decay(u32 alpha, u32 g, u64 n);

/* One alpha update: g/1024 * alpha + (1 - g/1024) * (@marked ? 1 : 0). */
u32 sroce_cc_alpha_update(u32 alpha, u32 g, bool marked);

/*
 * The floor of every rate: rpg_min_rate, or the line rate when the knob is
 * above it (set for a faster port), so that no cut raises a QP beyond the
 * line rate.
 */
static inline u64 sroce_cc_floor(const struct sroce_cc_params *p)
{
	return p->min_rate < p->line_rate ? p->min_rate : p->line_rate;
}

/*
 * The rate after a cut of @rate by alpha: rate * (1 - alpha / 2^(gd-10)),
 * at least min_dec_fac % of @rate and at least sroce_cc_floor().
 */
u64 sroce_cc_cut(const struct sroce_cc_params *p, u64 rate, u32 alpha);

/*
 * Notification point throttle: may a CNP go out at @now when the last one
 * for the QP left at @last (0 = never)?  @min_gap_ns 0 = every packet.
 */
static inline bool sroce_cc_np_may_send(u64 last, u64 now, u64 min_gap_ns)
{
	return !last || !min_gap_ns || now - last >= min_gap_ns;
}

/* ns it takes to send @bytes at @rate kbit/s (rate 0 is treated as 1). */
static inline u64 sroce_cc_tx_time(u32 bytes, u64 rate)
{
	return (u64)bytes * 8 * 1000000ULL / (rate ? rate : 1);
}

/*
 * Pacing by earliest departure time.  @edt is when the QP's next packet may
 * leave; a QP that was idle restarts from @now with at most @burst ns of
 * credit.  Returns the departure time after a packet of @bytes sent at
 * @now (call only when sroce_cc_pace_ok()).
 */
static inline u64 sroce_cc_pace_sent(u64 edt, u64 now, u32 bytes, u64 rate,
				     u64 burst)
{
	if (edt + burst < now)
		edt = now - burst;
	return edt + sroce_cc_tx_time(bytes, rate);
}

/*
 * The credit (sroce_cc_pace_sent()'s @burst) of a QP paced at @rate: the
 * lateness of its pacing timer that does not cost rate, at most @max_ns
 * and at most SROCE_CC_BURST_BYTES' worth at @rate, so that a QP that was
 * idle or paused by PFC does not refill at once the queue that made it
 * wait.  A QP that starts being paced starts with no credit at all
 * (sroce_cc_cnp()).
 */
#define SROCE_CC_BURST_NS 250000ULL
#define SROCE_CC_BURST_BYTES (4 * 4096)

static inline u64 sroce_cc_pace_burst(u64 rate, u64 max_ns)
{
	u64 t = sroce_cc_tx_time(SROCE_CC_BURST_BYTES, rate);

	return t < max_ns ? t : max_ns;
}

/*
 * Pacing episodes.  A QP is paced from the event that makes its state
 * active (a CNP, an RTT sample) until it is inactive again, and each
 * episode's pacing starts at that event with no credit: the departure
 * time left from the last episode would give the QP up to
 * SROCE_CC_BURST_BYTES at once, into the queue whose marks began the
 * episode.  Whether the state was inactive is judged with its timers
 * brought up to the event: a QP that recovered to line rate while it sent
 * nothing has s->active still set until a hook runs, and the hook's own
 * catch-up would end the old episode and begin the new one unseen.
 *
 * sroce_cc_cnp() and sroce_cc_ack() run on_cnp and on_ack so: on_timer
 * first, then the hook, then *@edt = @now if the state became active.
 * sroce_cc_cnp() returns on_cnp's result (false without on_cnp).  Only
 * init, on_cnp, on_ack and on_int (sroce_cc_telemetry()) may make a state
 * active.  Within an episode, a rate that on_ack raised shortens the wait
 * left in *@edt (sroce_cc_pace_rerate()), as a timer's rise does in
 * sroce_cc_pace_check(): TIMELY raises its rate on RTT samples only, and
 * without it a QP whose last packet left at rpg_min_rate (1 KB at 1 Mb/s:
 * 8.2 ms) sat out that packet's time after its rate had recovered.
 */
bool sroce_cc_cnp(const struct sroce_cc_ops *ops, struct sroce_cc_state *s,
		  const struct sroce_cc_params *p, u64 *edt, u64 now);
void sroce_cc_ack(const struct sroce_cc_ops *ops, struct sroce_cc_state *s,
		  const struct sroce_cc_params *p, u64 *edt, u64 now, u64 rtt,
		  u32 bytes);

/*
 * An ACK with telemetry, run as sroce_cc_ack() runs on_ack: on_timer,
 * on_int, then a state that became active is paced from @now.  Within an
 * episode, a rate that rose (on_timer or on_int) shortens the wait left
 * in *@edt as sroce_cc_pace_check() does (sroce_cc_pace_rerate()): HPCC
 * raises its rate on ACKs, not timers.  Nothing runs without on_int.
 */
void sroce_cc_telemetry(const struct sroce_cc_ops *ops,
			struct sroce_cc_state *s,
			const struct sroce_cc_params *p, u64 *edt, u64 now,
			u64 ack_seq, u64 snd_nxt, const struct sroce_cc_int *t);

/*
 * A data packet of @bytes left at @now, as the glue records it while the
 * state is active: on_sent, then (if the state is still active) the
 * departure time at the rate after it, with the credit of
 * sroce_cc_pace_burst(rate, @max_credit_ns).
 */
void sroce_cc_pace_packet(const struct sroce_cc_ops *ops,
			  struct sroce_cc_state *s,
			  const struct sroce_cc_params *p, u64 *edt, u64 now,
			  u32 bytes, u64 max_credit_ns);

/* May a packet leave at @now?  (It may if @edt is not in the future.) */
static inline bool sroce_cc_pace_ok(u64 edt, u64 now)
{
	return edt <= now;
}

/*
 * Shortest pacing wait between two looks at the algorithm, so that a next
 * event already due cannot spin the pacing timer.
 */
#define SROCE_CC_PACE_MIN_WAIT_NS (1 * SROCE_CC_NS_PER_US)

/*
 * The departure time @edt, set when the last packet left at @old_rate,
 * after the rate rose to @new_rate at @now: the wait left shrinks to what
 * the rest of that packet takes at the new rate.  A cut leaves it alone
 * (it applies from the next packet on).
 */
u64 sroce_cc_pace_rerate(u64 edt, u64 now, u64 old_rate, u64 new_rate);

/*
 * The pacing check before a data packet, as kernel/cc.c does it: brings
 * the algorithm's timers up to @now (on_timer), rescales *@edt if that
 * raised the rate, and returns 0 when a packet may leave now (the state
 * is inactive or *@edt has come), otherwise when to check again: *@edt or
 * the algorithm's next rate increase event, whichever comes first.  So a
 * QP that waits after a packet sent at rpg_min_rate sends again as soon
 * as its rate has recovered, not when the slow packet's time is up.
 */
u64 sroce_cc_pace_check(const struct sroce_cc_ops *ops,
			struct sroce_cc_state *s,
			const struct sroce_cc_params *p, u64 *edt, u64 now);

#endif /* _SROCE_PROTO_CC_H */
