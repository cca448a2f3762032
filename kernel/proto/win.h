/* SPDX-License-Identifier: GPL-2.0 */
/*
 * win.h - the recovery window of an RC requester: how many PSNs it may
 * have unacknowledged (kernel/comp.c; tools/ccsim/rc.c models it with
 * the same code, in packets).
 *
 * sroce is RoCE on Ethernet that may drop: a queue that overflows (a
 * tail-drop queue, or RED with ECN, which marks instead of dropping up to
 * its hard limit) loses a batch of packets of every flow that sends into
 * it.  Go-back-N then resends the whole window at once, into the same
 * queue, and a QP that lost everything in flight keeps losing its resends
 * to flows that refill the queue as it drains: each lost resend of the
 * oldest packet costs a retry, and after retry_cnt + 1 timeouts in a row
 * the QP is dead (IB_WC_RETRY_EXC_ERR), while the other flows go on.
 * NVIDIA's NICs restart slowly after a retransmission for the same reason
 * ("slow restart").  So, as TCP does (RFC 5681), sroce_win_cut(): a loss
 * (a sequence NAK, a gap in READ responses) halves the window to half of
 * what was in flight, at least SROCE_WIN_LOSS_MIN; a retransmit timeout
 * leaves SROCE_WIN_MIN, the oldest unacknowledged packet alone (slow
 * start after a retransmission timeout, RFC 5681 3.1).  sroce_win_grow():
 * ACKs let it grow by what they acknowledge up to ssthresh, then by one
 * per window's worth, up to the caller's largest window.  A QP that loses
 * nothing keeps its largest window.
 *
 * Congestion without a loss (a CNP, a refusal of the local queue),
 * sroce_win_reduce(): half the window, reached gradually, as TCP's
 * proportional rate reduction (RFC 6937) does.  Nothing was lost and
 * nothing goes back, so the cut starts from the window, not from what is
 * in flight; at once it goes only down to what is in flight plus one
 * packet, then by one packet for every two that ACKs acknowledge (shrink).
 * At once below the flight, the QP could send nothing, and the packets in
 * flight may have asked for no ACK: it would wait for its retransmit
 * timeout.  A loss ends the shrink at its target first, sroce_win_settle():
 * the go-back-N that follows empties the flight, and the whole window
 * would otherwise go again in one burst.
 *
 * Above ssthresh the step is one packet per window's worth of ACKs, one
 * per round trip: a window of W packets sends W per round, the rate
 * W / T, and the step raises it by 1 / T per T, d(rate)/dt = 1 / T^2.
 * Of two QPs that the same queue cuts alike, the one whose round T is
 * longer climbs slower and gets less (the RTT unfairness of TCP's AIMD,
 * Lakshman and Madhow 1997).  T is the window's round, not the path's:
 * a packet the window lets go may wait in its own host first, for the
 * CPU or a NIC its other QPs keep busy, and while it waits it holds a
 * place in the window without being in flight.  sroce_win_used() sees
 * that from the caller's flight at each ACK: over a window's worth of
 * ACKs above ssthresh, the window over what was in flight is T over the
 * path's round trip, and the step becomes its square, ai (at least one
 * packet, at most SROCE_WIN_AI_MAX, smoothed over rounds), so that the
 * rate of a QP that waits in its host climbs as fast as that of a QP on
 * the same path that does not, d(rate)/dt = ai / T^2 = 1 / RTT^2 (the
 * "constant rate" increase of Floyd 1991, TCP Hybla's (RTT / RTT0)^2,
 * with the QP's own path as the reference).  A QP that keeps its window
 * in flight keeps TCP's one packet.
 *
 * The caller keeps the rest: what is in flight, whether a cut is due (at
 * most once per window of data: not before everything sent at the last
 * cut is acknowledged, in 24-bit PSNs in the kernel, packet indices in
 * ccsim) and when a timeout was spurious (sroce_win_undo()).  Pure: no
 * locks, no clock; the caller serialises.
 */
#ifndef _SROCE_PROTO_WIN_H
#define _SROCE_PROTO_WIN_H

#include "env.h"

/* The window right after a retransmit timeout: one packet goes alone. */
#define SROCE_WIN_MIN 1
/* The smallest window (ssthresh) a loss or a reduction halves it to. */
#define SROCE_WIN_LOSS_MIN 2
/* One packet in the fixed point of acc and ai (1/256 packet). */
#define SROCE_WIN_ONE 256
/* sroce_win_used()'s largest step: 8 packets per window's worth of ACKs. */
#define SROCE_WIN_AI_MAX (8 * SROCE_WIN_ONE)
/* sroce_win_used() looks at windows up to this size (its sums fit). */
#define SROCE_WIN_USED_MAXW 32768
/* sroce_win_used()'s @flight when the window counts as used: TCP's step. */
#define SROCE_WIN_FULL U32_MAX

struct sroce_win {
	u32 size; /* PSNs that may be unacknowledged now */
	u32 ssthresh; /* slow start below, ai per window's worth above */
	/*
	 * PSNs acknowledged towards the next step up (or down, shrink), in
	 * 1/SROCE_WIN_ONE PSN, times ai/SROCE_WIN_ONE above ssthresh
	 */
	u64 acc;
	/*
	 * The step above ssthresh: packets per window's worth of ACKs, in
	 * 1/SROCE_WIN_ONE packet (SROCE_WIN_ONE, TCP's one, unless
	 * sroce_win_used() saw the window wait in its host)
	 */
	u32 ai;
	/*
	 * sroce_win_used()'s round: PSNs acknowledged (at most a window's
	 * worth per ACK), and their sum times what was in flight at each
	 * (at most the window), and times the window
	 */
	u32 rnd_acked;
	u32 rnd_used;
	u64 rnd_offered;
	/*
	 * A reduction left size above ssthresh: ACKs shrink it.  Only
	 * sroce_win_reduce() sets it, and only with size > ssthresh; every
	 * other change of either clears it (size - ssthresh never wraps).
	 */
	bool shrink;
};

/* The window of a new connection: @max, what nothing has cut. */
void sroce_win_init(struct sroce_win *w, u32 max);

/* A go-back-N follows: a shrinking window is at its target at once. */
void sroce_win_settle(struct sroce_win *w);

/*
 * A loss with @flight PSNs in flight (@timeout: nothing came back for a
 * retransmit timeout): ssthresh half the flight, the window ssthresh
 * (SROCE_WIN_MIN after a timeout).
 */
void sroce_win_cut(struct sroce_win *w, u32 flight, bool timeout);

/*
 * Congestion without a loss, @flight PSNs in flight: ssthresh half the
 * window, the window at once down to @flight + 1 but not below ssthresh,
 * then shrinking with ACKs (sroce_win_grow()).
 */
void sroce_win_reduce(struct sroce_win *w, u32 flight);

/*
 * An ACK of @acked PSNs: a shrinking window goes down by one for each two,
 * otherwise it grows, up to @max.
 */
void sroce_win_grow(struct sroce_win *w, u32 acked, u32 max);

/*
 * An ACK of @acked PSNs came with @flight PSNs in flight (before it; or
 * SROCE_WIN_FULL): above ssthresh, after a window's worth, the step is
 * (window / flight)^2 of the round, smoothed.  Before sroce_win_grow().
 */
void sroce_win_used(struct sroce_win *w, u32 acked, u32 flight);

/* The step back to one packet, TCP's, at once (window_rtt_fair off). */
void sroce_win_step_reset(struct sroce_win *w);

/*
 * A timeout's cut was spurious (RFC 4015): back to at least the window and
 * ssthresh of @saved, a copy of @w taken before the cut.
 */
void sroce_win_undo(struct sroce_win *w, const struct sroce_win *saved);

#endif /* _SROCE_PROTO_WIN_H */
