// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_pfc_state.c - the PFC state machines of kernel/proto/pfc.c over any
 * sequence of events: honouring received pauses (with the storm
 * watchdog) and generating XOFF/XON from a receive backlog, plus the
 * quanta <-> time conversions and the headroom they are built on.
 *
 * Input: a configuration as the knobs allow it (link speed, watchdog
 * detect/restore ms, MTU, XON/headroom knobs, xoff_max ms), then events of
 * 4 bytes: kind and time step (1), argument (3).  Time only goes forward.
 *
 * Invariants after every event at time now:
 *  - a stormed priority is not paused; a paused one has an episode, began
 *    at or before now, ends after now and no later than the longest pause
 *    a frame can ask (65535 quanta at the speed), and has been paused for
 *    less than detect_ns of its episode when the watchdog is on;
 *  - a stormed priority heard an XOFF less than recover_ns ago;
 *  - sroce_pfc_rx_next_poll() is after now, and polling any time before
 *    it changes nothing and reports nothing;
 *  - XON (0) always ends a pause; an XOFF is honoured (until = now + time)
 *    unless the priority is stormed; IGNORED only while stormed; XON
 *    events only for a priority that was paused; EXPIRED comes with XON;
 *  - paused time reported, plus the pause running, never exceeds the time
 *    elapsed;
 *  - generation: XON only after XOFF, a refresh XOFF only while XOFF and
 *    above XON, no XOFF while suppressed, XOFF held less than max_xoff_ns
 *    and refreshed within refresh_ns, ERROR exactly when the bound
 *    releases the peer, WARNING once per episode after max_xoff_ns / 2;
 *  - quanta_to_ns rounds down exactly; ns_to_quanta is the fewest quanta
 *    covering the time (or 65535) and inverts quanta_to_ns; the headroom
 *    grows with MTU, speed and cable, and XOFF lies above XON.
 */
#include "fuzz.h"
#include "pfc.h"

#define NSEC_PER_MSEC 1000000ULL
#define CABLE_M 100 /* kernel/pfc_gen.h */

struct model {
	u64 t0, now;
	u64 rx_now; /* time of the last call of the honouring side */
	u64 reported; /* paused ns reported so far */
	u64 max_pause; /* longest pause a frame can ask */
	/* generation */
	bool told_xoff, suppressed, warned;
	u64 episode, last_xoff, suppressed_since;
};

static void check_rx(const struct sroce_pfc_rx_prio *p,
		     const struct sroce_pfc_wd_cfg *wd, struct model *m)
{
	u64 now = m->now, next;

	FUZZ_ASSERT(!(p->stormed && p->paused));
	if (p->paused) {
		FUZZ_ASSERT(p->episode);
		FUZZ_ASSERT(p->pause_start <= now && now < p->until);
		FUZZ_ASSERT(p->until - now <= m->max_pause);
		FUZZ_ASSERT(p->episode_start <= p->pause_start);
		if (wd->detect_ns)
			FUZZ_ASSERT(now - p->episode_start < wd->detect_ns);
	}
	if (p->stormed)
		FUZZ_ASSERT(now - p->last_xoff < wd->recover_ns);
	FUZZ_ASSERT(m->reported + (p->paused ? now - p->pause_start : 0) <=
		    now - m->t0);

	next = sroce_pfc_rx_next_poll(p, wd);
	FUZZ_ASSERT(next > now);
	if (p->paused)
		FUZZ_ASSERT(next <= p->until);
	if (!p->paused && !p->stormed)
		FUZZ_ASSERT(next == U64_MAX);
}

/* Nothing is due before next_poll: a poll then is a no-op. */
static void check_quiet(const struct sroce_pfc_rx_prio *p,
			const struct sroce_pfc_wd_cfg *wd,
			const struct model *m, u32 arg)
{
	u64 next = sroce_pfc_rx_next_poll(p, wd);
	struct sroce_pfc_rx_prio q = *p;
	struct sroce_pfc_rx_out out = { 0 };
	u64 t = m->rx_now + (next == U64_MAX ? arg : arg % (next - m->rx_now));

	sroce_pfc_rx_poll(&q, wd, t, &out);
	FUZZ_ASSERT(out.events == 0 && out.paused_ns == 0);
	FUZZ_ASSERT(q.paused == p->paused && q.stormed == p->stormed);
	FUZZ_ASSERT(q.until == p->until);
}

static void rx_event(struct sroce_pfc_rx_prio *p,
		     const struct sroce_pfc_wd_cfg *wd, struct model *m,
		     bool pause, u64 ns)
{
	struct sroce_pfc_rx_out out = { 0 };
	bool was = p->paused;

	if (pause)
		sroce_pfc_rx_pause(p, wd, ns, m->now, &out);
	else
		sroce_pfc_rx_poll(p, wd, m->now, &out);
	m->reported += out.paused_ns;
	m->rx_now = m->now;

	if (out.events & SROCE_PFC_EV_EXPIRED)
		FUZZ_ASSERT(out.events & SROCE_PFC_EV_XON);
	if (out.events & SROCE_PFC_EV_XON)
		FUZZ_ASSERT(was || (out.events & SROCE_PFC_EV_XOFF));
	if (out.events & SROCE_PFC_EV_XOFF)
		FUZZ_ASSERT(pause && ns);
	if (out.events & SROCE_PFC_EV_IGNORED)
		FUZZ_ASSERT(pause && ns && p->stormed && !p->paused);
	if ((out.events & SROCE_PFC_EV_STORM) &&
	    !(out.events & SROCE_PFC_EV_RESTORED))
		FUZZ_ASSERT(p->stormed);
	if (!was && !(out.events & SROCE_PFC_EV_XOFF))
		FUZZ_ASSERT(!out.paused_ns);
	if (pause && !ns)
		FUZZ_ASSERT(!p->paused);
	if (pause && ns)
		FUZZ_ASSERT(p->stormed ||
			    (p->paused && p->until == m->now + ns));
	check_rx(p, wd, m);
}

static void gen_event(struct sroce_pfc_gen_prio *g,
		      const struct sroce_pfc_gen_cfg *c, struct model *m,
		      u64 backlog)
{
	u32 ev = 0;
	enum sroce_pfc_gen_action a;
	u64 now = m->now;
	bool quiet;

	/* The suppression the model expects to hold at this step. */
	quiet = m->suppressed && backlog > c->xon_bytes &&
		now - m->suppressed_since < c->max_xoff_ns;
	if (m->suppressed && !quiet)
		m->suppressed = false;

	a = sroce_pfc_gen_step(g, c, backlog, now, &ev);
	FUZZ_ASSERT(
		!(ev & ~(SROCE_PFC_GEN_EV_WARNING | SROCE_PFC_GEN_EV_ERROR)));
	if (quiet)
		FUZZ_ASSERT(a == SROCE_PFC_GEN_NONE && !ev);

	switch (a) {
	case SROCE_PFC_GEN_XOFF:
		if (!m->told_xoff) {
			FUZZ_ASSERT(backlog >= c->xoff_bytes);
			m->told_xoff = true;
			m->warned = false;
			m->episode = now;
		} else {
			FUZZ_ASSERT(backlog > c->xon_bytes);
			FUZZ_ASSERT(now - m->last_xoff >= c->refresh_ns);
		}
		m->last_xoff = now;
		FUZZ_ASSERT(!(ev & SROCE_PFC_GEN_EV_ERROR));
		break;
	case SROCE_PFC_GEN_XON:
		FUZZ_ASSERT(m->told_xoff);
		m->told_xoff = false;
		if (ev & SROCE_PFC_GEN_EV_ERROR) {
			FUZZ_ASSERT(now - m->episode >= c->max_xoff_ns);
			m->suppressed = true;
			m->suppressed_since = now;
		} else {
			FUZZ_ASSERT(backlog <= c->xon_bytes);
		}
		break;
	case SROCE_PFC_GEN_NONE:
		FUZZ_ASSERT(!(ev & SROCE_PFC_GEN_EV_ERROR));
		if (!m->told_xoff)
			FUZZ_ASSERT(quiet || backlog < c->xoff_bytes);
		break;
	default:
		FUZZ_ASSERT(0);
	}
	if (ev & SROCE_PFC_GEN_EV_WARNING) {
		FUZZ_ASSERT(!m->warned &&
			    now - m->episode >= c->max_xoff_ns / 2);
		m->warned = true;
	}
	FUZZ_ASSERT(g->xoff == m->told_xoff);
	if (m->told_xoff) {
		FUZZ_ASSERT(now - m->episode < c->max_xoff_ns);
		FUZZ_ASSERT(backlog > c->xon_bytes);
		if (c->refresh_ns)
			FUZZ_ASSERT(now - m->last_xoff < c->refresh_ns);
		if (now - m->episode >= c->max_xoff_ns / 2)
			FUZZ_ASSERT(m->warned);
	}
}

static void check_conversions(u16 q, u32 speed, u64 ns)
{
	u64 t = sroce_pfc_quanta_to_ns(q, speed);
	u32 r = sroce_pfc_ns_to_quanta(t, speed);
	u32 c = sroce_pfc_ns_to_quanta(ns, speed);

	/* Exactly floor(q * 512 bit times / speed). */
	FUZZ_ASSERT(t * speed <= (u64)q * 512000);
	FUZZ_ASSERT((t + 1) * speed > (u64)q * 512000);
	if (speed <= 512000)
		FUZZ_ASSERT(r == q);
	else
		FUZZ_ASSERT(r == q || r + 1 == q);

	FUZZ_ASSERT(c <= SROCE_PFC_MAX_QUANTA);
	if (c < SROCE_PFC_MAX_QUANTA)
		FUZZ_ASSERT(sroce_pfc_quanta_to_ns(c, speed) >= ns);
	if (c)
		FUZZ_ASSERT(sroce_pfc_quanta_to_ns(c - 1, speed) < ns);
}

static void check_headroom(u32 mtu, u32 speed, u32 cable)
{
	u32 h = sroce_pfc_headroom(mtu, speed, cable);
	u32 xon = sroce_pfc_default_xon(mtu);

	FUZZ_ASSERT(h >= 2 * (mtu + 42) + 84 + 960);
	FUZZ_ASSERT(sroce_pfc_headroom(mtu + 1, speed, cable) > h);
	FUZZ_ASSERT(sroce_pfc_headroom(mtu, speed + 1, cable) >= h);
	FUZZ_ASSERT(sroce_pfc_headroom(mtu, speed, cable + 1) >= h);
	FUZZ_ASSERT(xon == 2 * (mtu + 42));
	FUZZ_ASSERT(sroce_pfc_default_xoff(mtu, speed, cable) == xon + h);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct sroce_pfc_rx_prio p = { 0 };
	struct sroce_pfc_gen_prio g = { 0 };
	struct sroce_pfc_wd_cfg wd;
	struct sroce_pfc_gen_cfg c;
	struct model m = { 0 };
	struct fuzz_in in;
	u32 speed, mtu, xon, headroom;

	fuzz_in_init(&in, data, size);
	speed = fuzz_range(&in, 3, 1, 800000);
	wd.detect_ns = fuzz_range(&in, 2, 0, 60000) * NSEC_PER_MSEC;
	wd.recover_ns = fuzz_range(&in, 2, 1, 60000) * NSEC_PER_MSEC;
	mtu = fuzz_range(&in, 2, 68, 65535);
	xon = fuzz_u8(&in) & 1 ? fuzz_range(&in, 3, 64, 16 << 20) :
				 sroce_pfc_default_xon(mtu);
	headroom = fuzz_u8(&in) & 1 ? fuzz_range(&in, 3, 64, 16 << 20) :
				      sroce_pfc_headroom(mtu, speed, CABLE_M);
	/* As sroce_pfc_gen_update_locked(). */
	c.xon_bytes = xon;
	c.xoff_bytes = (u64)xon + headroom;
	c.refresh_ns = sroce_pfc_quanta_to_ns(SROCE_PFC_MAX_QUANTA, speed) / 2;
	c.max_xoff_ns = fuzz_range(&in, 2, 1, 60000) * NSEC_PER_MSEC;

	check_headroom(mtu, speed, fuzz_range(&in, 2, 0, 10000));
	m.max_pause = sroce_pfc_quanta_to_ns(SROCE_PFC_MAX_QUANTA, speed);
	/* Any monotonic clock. */
	m.t0 = m.now = m.rx_now = fuzz_u32(&in) * 1000ULL;

	while (!fuzz_in_empty(&in)) {
		u8 op = fuzz_u8(&in);
		u32 arg = (u32)fuzz_get(&in, 3);
		/* Steps of ns, us, 64 us or ms. */
		static const unsigned int shift[4] = { 0, 10, 16, 20 };
		u64 step = (u64)(op >> 4) << shift[(op >> 2) & 3];
		u64 next;

		m.now += step * (1 + (arg & 0xff));
		switch (op & 3) {
		case 0: /* a PFC frame for the priority */
			/* and a time of any size to convert */
			check_conversions(arg >> 8, speed,
					  (u64)arg << (op >> 2));
			rx_event(&p, &wd, &m, true,
				 arg & 0x100 ? sroce_pfc_quanta_to_ns(arg >> 8,
								      speed) :
					       0);
			break;
		case 1: /* the timer fires */
			next = sroce_pfc_rx_next_poll(&p, &wd);
			if (next != U64_MAX && next > m.now)
				m.now = next;
			rx_event(&p, &wd, &m, false, 0);
			break;
		case 2: /* a poll in between */
			check_quiet(&p, &wd, &m, arg);
			rx_event(&p, &wd, &m, false, 0);
			break;
		case 3: /* the backlog of the generating side */
			gen_event(&g, &c, &m,
				  (u64)arg * 2 * c.xoff_bytes / 0xffffff);
			break;
		}
	}
	return 0;
}
