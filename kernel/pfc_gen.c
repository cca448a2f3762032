// SPDX-License-Identifier: GPL-2.0
/*
 * pfc_gen.c - sending PFC frames when sroce's receive backlog of a
 * lossless priority is too large (802.1Qbb; Documentation/pfc.rst).
 *
 * The backlog is what waits in the QPs' receive queues (rxq.c) for the
 * responder and completer: packets the IP stack has delivered and sroce
 * has not consumed yet.  rxq.c calls two hooks, one before a packet is
 * queued and one after it left the queue; they keep one byte count per
 * priority (atomics, no lock) and queue the work when a count crosses the
 * XOFF threshold, or falls to the XON threshold of a priority in XOFF.
 *
 * The work runs the hysteresis of proto/pfc.c for the enabled priorities
 * and sends one frame with the class-enable vector of every priority that
 * changed: XOFF with the longest pause time (0xffff quanta at the link
 * speed), XON with time 0.  While a priority is held, a soft hrtimer
 * queues the work again at half the pause time, so the peer gets a fresh
 * XOFF before the last one expires, and at a tenth of pfc_xoff_max_ms, so
 * that the bound on one XOFF episode (then an explicit XON, counted in
 * tx_pause_storm_error_events) is kept.  Frames leave through
 * dev_queue_xmit() on the link device from process context, with no lock
 * and BH enabled.
 */
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/ktime.h>
#include <linux/netdevice.h>
#include <linux/pkt_sched.h>
#include <linux/skbuff.h>
#include <net/dsfield.h>
#include <net/inet_ecn.h>

#include "counters.h"
#include "device.h"
#include "pfc.h"
#include "pfc_gen.h"
#include "recv.h"
#include "task.h"

static_assert((SROCE_CNT_TX_PRIO7_PAUSE - SROCE_CNT_TX_PRIO0_PAUSE) == 7);
static_assert((SROCE_CNT_TX_PRIO7_PAUSE_DURATION -
	       SROCE_CNT_TX_PRIO0_PAUSE_DURATION) == 7);
static_assert((SROCE_CNT_TX_PRIO7_PAUSE_TRANSITION -
	       SROCE_CNT_TX_PRIO0_PAUSE_TRANSITION) == 7);

/* ---- the hooks (rxq.c) ---- */

/* Is software generation on for @prio?  Lockless: single-word reads. */
static bool sroce_pfc_gen_on(struct sroce_pfc *pfc, int prio)
{
	return sroce_pfc_mode_sw(READ_ONCE(pfc->mode)) &&
	       READ_ONCE(pfc->enable) & BIT(prio);
}

static void sroce_pfc_gen_queue(struct sroce_pfc_gen *gen)
{
	if (!READ_ONCE(gen->dying))
		sroce_task_queue(&gen->work, -1);
}

/* DSCP and ECN of a packet sroce_recv() parsed (skb->data at UDP). */
static u8 sroce_pfc_rx_dsfield(struct sk_buff *skb)
{
	if (SROCE_RX_CB(skb)->ntype == RDMA_NETWORK_IPV4)
		return ip_hdr(skb)->tos;
	return ipv6_get_dsfield(ipv6_hdr(skb));
}

void sroce_pfc_rx_queued(struct sroce_dev *sdev, struct sk_buff *skb)
{
	struct sroce_pfc *pfc = sdev->pfc;
	struct sroce_pfc_gen *gen = &pfc->gen;
	u8 ds = sroce_pfc_rx_dsfield(skb);
	u32 prio = READ_ONCE(pfc->dscp2prio[ds >> 2]);
	u32 mark = READ_ONCE(gen->rx_mark_bytes);
	long b;

	/*
	 * The queued packet is sroce's: skb->priority carries its priority
	 * to the dequeue hook, even if the table changes meanwhile.
	 */
	skb->priority = prio;
	b = atomic_long_add_return(skb->len, &gen->backlog[prio]);
	/*
	 * Testing (rx_mark_bytes): the backlog plays a switch buffer that
	 * marks ECN-capable packets CE above Kmin, below XOFF.  The mark
	 * is taken where a CE from the wire is (sroce_recv_finish()).
	 */
	if (unlikely(mark) && b > mark && INET_ECN_is_capable(ds))
		SROCE_RX_CB(skb)->ce = true;
	if (unlikely(b >= READ_ONCE(gen->xoff_bytes)) &&
	    !test_bit(prio, &gen->active) && sroce_pfc_gen_on(pfc, prio))
		sroce_pfc_gen_queue(gen);
}

void sroce_pfc_rx_dequeued(struct sroce_dev *sdev, struct sk_buff *skb,
			   bool work)
{
	struct sroce_pfc_gen *gen = &sdev->pfc->gen;
	u32 prio = skb->priority & (SROCE_PFC_NPRIO - 1);
	u32 delay;
	long b;

	if (work) {
		delay = READ_ONCE(gen->rx_delay_us);
		if (unlikely(delay))
			fsleep(delay); /* testing only: a slow consumer */
	}
	b = atomic_long_sub_return(skb->len, &gen->backlog[prio]);
	if (unlikely(test_bit(prio, &gen->active)) &&
	    b <= READ_ONCE(gen->xon_bytes))
		sroce_pfc_gen_queue(gen);
}

/* ---- thresholds ---- */

/* Recompute the configuration from the knobs, MTU and speed. */
static void sroce_pfc_gen_update_locked(struct sroce_pfc_gen *gen)
{
	struct sroce_pfc *pfc = gen->pfc;
	u32 mtu = READ_ONCE(pfc->sdev->ndev->mtu);
	u32 speed = READ_ONCE(pfc->speed_mbps);
	struct sroce_pfc_gen_cfg *c = &gen->cfg;
	u32 xon, headroom;

	lockdep_assert_held(&gen->lock);
	xon = gen->xon_knob ?: sroce_pfc_default_xon(mtu);
	headroom = gen->headroom_knob ?:
			   sroce_pfc_headroom(mtu, speed, SROCE_PFC_CABLE_M);
	c->xon_bytes = xon;
	c->xoff_bytes = (u64)xon + headroom;
	gen->quanta = SROCE_PFC_MAX_QUANTA;
	c->refresh_ns = sroce_pfc_quanta_to_ns(gen->quanta, speed) / 2;
	c->max_xoff_ns = (u64)gen->xoff_max_ms * NSEC_PER_MSEC;
	WRITE_ONCE(gen->xon_bytes, xon);
	WRITE_ONCE(gen->xoff_bytes, min_t(u64, c->xoff_bytes, U32_MAX));
}

/* ---- the work ---- */

static void sroce_pfc_gen_xmit(struct sroce_pfc *pfc,
			       const struct sroce_pfc_req *req)
{
	struct net_device *dev = pfc->link;
	unsigned int hr = LL_RESERVED_SPACE(dev);
	struct sk_buff *skb;
	int rc;

	if (!netif_running(dev))
		goto drop;
	skb = alloc_skb(hr + SROCE_PFC_FRAME_LEN + dev->needed_tailroom,
			GFP_KERNEL);
	if (!skb)
		goto drop;
	skb_reserve(skb, hr);
	sroce_pfc_build(skb_put(skb, SROCE_PFC_FRAME_LEN), dev->dev_addr, req);
	skb_reset_mac_header(skb);
	skb_reset_network_header(skb);
	skb->dev = dev;
	skb->protocol = htons(ETH_P_PAUSE);
	skb->priority = TC_PRIO_CONTROL;
	/*
	 * dev_queue_xmit() disables BH itself and may be called from process
	 * context (as packet sockets do).  Its result goes through a variable:
	 * net_xmit_eval() evaluates its argument twice, and
	 * net_xmit_eval(dev_queue_xmit(skb)) sent the skb a second time after
	 * veth had queued it on the peer's backlog (an oops in
	 * dev_hard_start_xmit(), skb->next being that backlog's list head).
	 */
	rc = dev_queue_xmit(skb);
	if (net_xmit_eval(rc))
		goto drop;
	return;
drop:
	sroce_counter_inc(pfc->sdev, SROCE_CNT_TX_DROP);
}

/* Count what happened to @prio and put it in @req. */
static void sroce_pfc_gen_note(struct sroce_pfc_gen *gen, int prio,
			       enum sroce_pfc_gen_action a, u64 held_ns,
			       struct sroce_pfc_req *req)
{
	struct sroce_dev *sdev = gen->pfc->sdev;

	if (a == SROCE_PFC_GEN_NONE)
		return;
	req->enable |= BIT(prio);
	if (a == SROCE_PFC_GEN_XOFF) {
		req->quanta[prio] = gen->quanta;
		sroce_counter_inc(sdev, SROCE_CNT_TX_PRIO0_PAUSE + prio);
		return;
	}
	req->quanta[prio] = 0;
	sroce_counter_inc(sdev, SROCE_CNT_TX_PRIO0_PAUSE_TRANSITION + prio);
	sroce_counter_add(sdev, SROCE_CNT_TX_PRIO0_PAUSE_DURATION + prio,
			  div_u64(held_ns, NSEC_PER_USEC));
}

/* One step for @prio at @now; @on: generation enabled for it. */
static void sroce_pfc_gen_prio_locked(struct sroce_pfc_gen *gen, int prio,
				      bool on, u64 now,
				      struct sroce_pfc_req *req)
{
	struct sroce_pfc_gen_prio *g = &gen->st[prio];
	struct sroce_dev *sdev = gen->pfc->sdev;
	enum sroce_pfc_gen_action a = SROCE_PFC_GEN_NONE;
	u64 since = g->xoff_since;
	u32 ev = 0;

	lockdep_assert_held(&gen->lock);
	if (on) {
		a = sroce_pfc_gen_step(g, &gen->cfg,
				       atomic_long_read(&gen->backlog[prio]),
				       now, &ev);
	} else {
		/* Disabled while held: release the peer now. */
		if (g->xoff)
			a = SROCE_PFC_GEN_XON;
		*g = (struct sroce_pfc_gen_prio){};
	}
	sroce_pfc_gen_note(gen, prio, a, now - since, req);
	if (ev & SROCE_PFC_GEN_EV_WARNING)
		sroce_counter_inc(sdev, SROCE_CNT_TX_PAUSE_STORM_WARNING);
	if (ev & SROCE_PFC_GEN_EV_ERROR)
		sroce_counter_inc(sdev, SROCE_CNT_TX_PAUSE_STORM_ERROR);
	if (g->xoff || g->suppressed)
		set_bit(prio, &gen->active);
	else
		clear_bit(prio, &gen->active);
}

/* While a priority is held: refresh the XOFF, and keep the bound. */
static void sroce_pfc_gen_arm(struct sroce_pfc_gen *gen, u64 refresh_ns,
			      u64 max_xoff_ns)
{
	u64 ns = min(refresh_ns, div_u64(max_xoff_ns, 10));

	if (!READ_ONCE(gen->dying))
		hrtimer_start(&gen->timer, ns_to_ktime(max_t(u64, ns, 1)),
			      HRTIMER_MODE_REL_SOFT);
}

static void sroce_pfc_gen_fn(struct work_struct *work)
{
	struct sroce_pfc_gen *gen =
		container_of(work, struct sroce_pfc_gen, work);
	struct sroce_pfc *pfc = gen->pfc;
	struct sroce_pfc_req req = {};
	u64 refresh_ns, max_ns;
	u64 now;
	int i;

	mutex_lock(&gen->lock);
	sroce_pfc_gen_update_locked(gen);
	now = ktime_get_ns();
	for (i = 0; i < SROCE_PFC_NPRIO; i++)
		sroce_pfc_gen_prio_locked(gen, i, sroce_pfc_gen_on(pfc, i), now,
					  &req);
	refresh_ns = gen->cfg.refresh_ns;
	max_ns = gen->cfg.max_xoff_ns;
	mutex_unlock(&gen->lock);

	if (req.enable)
		sroce_pfc_gen_xmit(pfc, &req);
	if (READ_ONCE(gen->active))
		sroce_pfc_gen_arm(gen, refresh_ns, max_ns);
}

static enum hrtimer_restart sroce_pfc_gen_timer_fn(struct hrtimer *t)
{
	sroce_pfc_gen_queue(container_of(t, struct sroce_pfc_gen, timer));
	return HRTIMER_NORESTART;
}

/* ---- setup, knobs ---- */

void sroce_pfc_gen_init(struct sroce_pfc *pfc)
{
	struct sroce_pfc_gen *gen = &pfc->gen;
	int i;

	gen->pfc = pfc;
	for (i = 0; i < SROCE_PFC_NPRIO; i++)
		atomic_long_set(&gen->backlog[i], 0);
	INIT_WORK(&gen->work, sroce_pfc_gen_fn);
	hrtimer_init(&gen->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	gen->timer.function = sroce_pfc_gen_timer_fn;
	mutex_init(&gen->lock);
	gen->xoff_max_ms = SROCE_PFC_DEF_XOFF_MAX_MS;
	mutex_lock(&gen->lock);
	sroce_pfc_gen_update_locked(gen);
	mutex_unlock(&gen->lock);
}

void sroce_pfc_gen_stop(struct sroce_pfc *pfc)
{
	struct sroce_pfc_gen *gen = &pfc->gen;
	struct sroce_pfc_req req = {};
	int i;

	WRITE_ONCE(gen->dying, true);
	/* The work may arm the timer, the timer may queue the work. */
	cancel_work_sync(&gen->work);
	hrtimer_cancel(&gen->timer);
	cancel_work_sync(&gen->work);

	/* Do not leave the peer paused until its timer runs out. */
	mutex_lock(&gen->lock);
	for (i = 0; i < SROCE_PFC_NPRIO; i++)
		sroce_pfc_gen_prio_locked(gen, i, false, ktime_get_ns(), &req);
	mutex_unlock(&gen->lock);
	if (req.enable)
		sroce_pfc_gen_xmit(pfc, &req);
	mutex_destroy(&gen->lock);
}

void sroce_pfc_gen_kick(struct sroce_pfc *pfc)
{
	sroce_pfc_gen_queue(&pfc->gen);
}

u32 sroce_pfc_gen_get(struct sroce_dev *sdev, enum sroce_pfc_gen_knob k)
{
	struct sroce_pfc_gen *gen = &sdev->pfc->gen;
	u32 v;

	mutex_lock(&gen->lock);
	switch (k) {
	case SROCE_PFC_GK_XON:
		v = gen->xon_knob;
		break;
	case SROCE_PFC_GK_HEADROOM:
		v = gen->headroom_knob;
		break;
	case SROCE_PFC_GK_XOFF_MAX_MS:
		v = gen->xoff_max_ms;
		break;
	case SROCE_PFC_GK_RX_MARK_BYTES:
		v = READ_ONCE(gen->rx_mark_bytes);
		break;
	default:
		v = READ_ONCE(gen->rx_delay_us);
		break;
	}
	mutex_unlock(&gen->lock);
	return v;
}

void sroce_pfc_gen_set(struct sroce_dev *sdev, enum sroce_pfc_gen_knob k,
		       u32 val)
{
	struct sroce_pfc_gen *gen = &sdev->pfc->gen;

	mutex_lock(&gen->lock);
	switch (k) {
	case SROCE_PFC_GK_XON:
		gen->xon_knob = val;
		break;
	case SROCE_PFC_GK_HEADROOM:
		gen->headroom_knob = val;
		break;
	case SROCE_PFC_GK_XOFF_MAX_MS:
		gen->xoff_max_ms = val;
		break;
	case SROCE_PFC_GK_RX_MARK_BYTES:
		WRITE_ONCE(gen->rx_mark_bytes, val);
		break;
	default:
		WRITE_ONCE(gen->rx_delay_us, val);
		break;
	}
	sroce_pfc_gen_update_locked(gen);
	mutex_unlock(&gen->lock);
	sroce_pfc_gen_kick(sdev->pfc);
}

u8 sroce_pfc_gen_xoff(struct sroce_pfc *pfc)
{
	struct sroce_pfc_gen *gen = &pfc->gen;
	u8 held = 0;
	int i;

	mutex_lock(&gen->lock);
	for (i = 0; i < SROCE_PFC_NPRIO; i++)
		if (gen->st[i].xoff)
			held |= BIT(i);
	mutex_unlock(&gen->lock);
	return held;
}
