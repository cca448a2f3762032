// SPDX-License-Identifier: GPL-2.0
/*
 * pfc.c - Priority-based Flow Control (IEEE 802.1Qbb), pure core.
 *
 * Frame layout (802.1Qbb clause 36, 802.3 Annex 31D): DA 01:80:C2:00:00:01,
 * SA, EtherType 0x8808, opcode 0x0101, a 16-bit class-enable vector (one bit
 * per priority in the low byte), eight 16-bit pause times in quanta of 512
 * bit times, zero padding to the 64-byte minimum frame.
 *
 * The storm watchdog follows the SONiC/NVIDIA PFC watchdog: a priority that
 * stays paused for most of a detection interval is declared stormed, pauses
 * on it are then ignored (and counted), and it is restored once no XOFF has
 * arrived for a recovery interval.  "Most of": a pause episode begins with
 * an XOFF on an unpaused priority and survives gaps (expiry before the next
 * XOFF) shorter than a quarter of the detection interval; a storm is declared
 * when an episode is still paused detect_ns after it began.
 */
#include "pfc.h"

const u8 sroce_pfc_dmac[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

#define SROCE_ETH_HLEN 14

enum sroce_pfc_bad sroce_pfc_parse(const void *buf, u32 len,
				   struct sroce_pfc_req *req)
{
	const struct sroce_pfc_hdr *h = buf;
	u16 enable;
	int i;

	if (len < sizeof(*h))
		return SROCE_PFC_BAD_SHORT;
	if (be16_to_cpu(h->opcode) != SROCE_PFC_OPCODE)
		return SROCE_PFC_BAD_OPCODE;
	enable = be16_to_cpu(h->class_enable);
	if (enable & 0xff00)
		return SROCE_PFC_BAD_RESERVED;
	if (!enable)
		return SROCE_PFC_BAD_EMPTY;
	req->enable = enable;
	for (i = 0; i < SROCE_PFC_NPRIO; i++)
		req->quanta[i] = enable & BIT(i) ? be16_to_cpu(h->time[i]) : 0;
	return SROCE_PFC_OK;
}

void sroce_pfc_build(u8 *frame, const u8 *smac, const struct sroce_pfc_req *req)
{
	struct sroce_pfc_hdr *h = (void *)(frame + SROCE_ETH_HLEN);
	int i;

	memset(frame, 0, SROCE_PFC_FRAME_LEN);
	memcpy(frame, sroce_pfc_dmac, 6);
	memcpy(frame + 6, smac, 6);
	frame[12] = SROCE_PFC_ETHERTYPE >> 8;
	frame[13] = SROCE_PFC_ETHERTYPE & 0xff;
	h->opcode = cpu_to_be16(SROCE_PFC_OPCODE);
	h->class_enable = cpu_to_be16(req->enable);
	for (i = 0; i < SROCE_PFC_NPRIO; i++)
		h->time[i] =
			cpu_to_be16(req->enable & BIT(i) ? req->quanta[i] : 0);
}

/* bits / (Mbit/s) = us; times 1000 = ns. */
u64 sroce_pfc_quanta_to_ns(u32 quanta, u32 speed_mbps)
{
	return div_u64((u64)quanta * SROCE_PFC_QUANTUM_BITS * 1000, speed_mbps);
}

u32 sroce_pfc_ns_to_quanta(u64 ns, u32 speed_mbps)
{
	u64 bits, q;

	/* Longer than any frame can ask: saturate before ns * speed wraps. */
	if (ns > sroce_pfc_quanta_to_ns(SROCE_PFC_MAX_QUANTA, speed_mbps))
		return SROCE_PFC_MAX_QUANTA;
	bits = div_u64(ns * speed_mbps + 999, 1000);
	q = div_u64(bits + SROCE_PFC_QUANTUM_BITS - 1, SROCE_PFC_QUANTUM_BITS);
	return q > SROCE_PFC_MAX_QUANTA ? SROCE_PFC_MAX_QUANTA : (u32)q;
}

/* Preamble 8 + header 14 + VLAN tag 4 + FCS 4 + inter-frame gap 12. */
#define SROCE_PFC_FRAME_OVERHEAD 42
/* The PFC frame on the wire: 64 bytes + preamble + inter-frame gap. */
#define SROCE_PFC_PAUSE_WIRE 84
/*
 * Time a MAC takes to act on a received PFC frame, per end: 802.1Qbb
 * bounds it at a few thousand bit times; 3840 is assumed here.
 */
#define SROCE_PFC_RESPONSE_BITS 3840
#define SROCE_PFC_NS_PER_METRE 5

/* Bytes sent in @ns at @speed_mbps (ns * Mbit/s = millibits). */
static u64 sroce_pfc_bytes_in(u64 ns, u32 speed_mbps)
{
	return div_u64(ns * speed_mbps + 7999, 8000);
}

u32 sroce_pfc_headroom(u32 mtu, u32 speed_mbps, u32 cable_m)
{
	u64 b;

	b = sroce_pfc_bytes_in(2ULL * cable_m * SROCE_PFC_NS_PER_METRE,
			       speed_mbps);
	b += 2ULL * (mtu + SROCE_PFC_FRAME_OVERHEAD);
	b += SROCE_PFC_PAUSE_WIRE;
	b += 2 * SROCE_PFC_RESPONSE_BITS / 8;
	return b > U32_MAX ? U32_MAX : (u32)b;
}

u32 sroce_pfc_default_xon(u32 mtu)
{
	return 2 * (mtu + SROCE_PFC_FRAME_OVERHEAD);
}

u32 sroce_pfc_default_xoff(u32 mtu, u32 speed_mbps, u32 cable_m)
{
	return sroce_pfc_default_xon(mtu) +
	       sroce_pfc_headroom(mtu, speed_mbps, cable_m);
}

/* ---- honouring ---- */

/* Gaps shorter than this do not end a pause episode. */
static u64 sroce_pfc_gap(const struct sroce_pfc_wd_cfg *wd)
{
	return wd->detect_ns / 4;
}

static void sroce_pfc_end_pause(struct sroce_pfc_rx_prio *p, u64 at,
				struct sroce_pfc_rx_out *out)
{
	p->paused = false;
	p->last_resume = at;
	out->events |= SROCE_PFC_EV_XON;
	out->paused_ns += at - p->pause_start;
}

void sroce_pfc_rx_poll(struct sroce_pfc_rx_prio *p,
		       const struct sroce_pfc_wd_cfg *wd, u64 now,
		       struct sroce_pfc_rx_out *out)
{
	if (p->paused && now >= p->until) {
		sroce_pfc_end_pause(p, p->until, out);
		out->events |= SROCE_PFC_EV_EXPIRED;
	}
	if (p->episode && !p->paused &&
	    now - p->last_resume > sroce_pfc_gap(wd))
		p->episode = false;
	if (wd->detect_ns && p->paused && p->episode &&
	    now - p->episode_start >= wd->detect_ns) {
		sroce_pfc_end_pause(p, now, out);
		p->stormed = true;
		p->episode = false;
		out->events |= SROCE_PFC_EV_STORM;
	}
	if (p->stormed && now - p->last_xoff >= wd->recover_ns) {
		p->stormed = false;
		out->events |= SROCE_PFC_EV_RESTORED;
	}
}

void sroce_pfc_rx_pause(struct sroce_pfc_rx_prio *p,
			const struct sroce_pfc_wd_cfg *wd, u64 pause_ns,
			u64 now, struct sroce_pfc_rx_out *out)
{
	sroce_pfc_rx_poll(p, wd, now, out);
	if (!pause_ns) {
		if (p->paused)
			sroce_pfc_end_pause(p, now, out);
		return;
	}
	p->last_xoff = now;
	if (p->stormed) {
		out->events |= SROCE_PFC_EV_IGNORED;
		return;
	}
	if (!p->paused) {
		p->paused = true;
		p->pause_start = now;
		out->events |= SROCE_PFC_EV_XOFF;
		if (!p->episode) {
			p->episode = true;
			p->episode_start = now;
		}
	}
	p->until = now + pause_ns;
	/* A refresh at the end of a long episode trips the watchdog now. */
	sroce_pfc_rx_poll(p, wd, now, out);
}

static u64 sroce_pfc_min(u64 a, u64 b)
{
	return a < b ? a : b;
}

u64 sroce_pfc_rx_next_poll(const struct sroce_pfc_rx_prio *p,
			   const struct sroce_pfc_wd_cfg *wd)
{
	u64 t = U64_MAX;

	if (p->paused) {
		t = p->until;
		if (wd->detect_ns && p->episode)
			t = sroce_pfc_min(t, p->episode_start + wd->detect_ns);
	}
	if (p->stormed)
		t = sroce_pfc_min(t, p->last_xoff + wd->recover_ns);
	return t;
}

/* ---- generating ---- */

enum sroce_pfc_gen_action sroce_pfc_gen_step(struct sroce_pfc_gen_prio *g,
					     const struct sroce_pfc_gen_cfg *c,
					     u64 backlog, u64 now, u32 *events)
{
	u64 held;

	if (g->suppressed) {
		/* Stay quiet until drained, or for as long as XOFF was held. */
		if (backlog > c->xon_bytes &&
		    now - g->suppressed_since < c->max_xoff_ns)
			return SROCE_PFC_GEN_NONE;
		g->suppressed = false;
	}
	if (!g->xoff) {
		if (backlog < c->xoff_bytes)
			return SROCE_PFC_GEN_NONE;
		g->xoff = true;
		g->warned = false;
		g->xoff_since = now;
		g->last_sent = now;
		return SROCE_PFC_GEN_XOFF;
	}
	if (backlog <= c->xon_bytes) {
		g->xoff = false;
		return SROCE_PFC_GEN_XON;
	}
	held = now - g->xoff_since;
	if (held >= c->max_xoff_ns) {
		/* Bounded XOFF: release the peer even though still full. */
		g->xoff = false;
		g->suppressed = true;
		g->suppressed_since = now;
		*events |= SROCE_PFC_GEN_EV_ERROR;
		return SROCE_PFC_GEN_XON;
	}
	if (!g->warned && held >= c->max_xoff_ns / 2) {
		g->warned = true;
		*events |= SROCE_PFC_GEN_EV_WARNING;
	}
	if (now - g->last_sent >= c->refresh_ns) {
		g->last_sent = now;
		return SROCE_PFC_GEN_XOFF;
	}
	return SROCE_PFC_GEN_NONE;
}
