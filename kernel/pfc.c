// SPDX-License-Identifier: GPL-2.0
/*
 * pfc.c - Priority-based Flow Control on a sroce device.
 *
 * Priority: every sroce packet gets skb->priority from the device's DSCP ->
 * priority table (default: priority = DSCP >> 3, the usual "trust DSCP"
 * mapping), so a VLAN egress-qos-map or the NIC's priority queues see it.
 *
 * Honouring: a packet_type handler for ETH_P_PAUSE on the link device
 * decodes 802.1Qbb frames (proto/pfc.c), and for every enabled priority
 * runs the pause state machine with the storm watchdog.  A paused priority
 * has its bit set in pfc->paused; the requester tests that bit before each
 * data packet and stops.  When the pause ends (XON, expiry, storm) the bit
 * is cleared and kick_work resumes the QPs of that priority; QPs of other
 * priorities never stop, so there is no head-of-line blocking across
 * priorities.  One hrtimer per device fires at the next expiry, watchdog
 * or restore instant.
 *
 * DCB: in mode dcb (or both) the enable bitmap is pushed to the netdev's
 * dcbnl ieee_setpfc, so a NIC that implements PFC in its MAC acts on it; a
 * kernel without CONFIG_DCB refuses those modes (no netdev has dcbnl ops).
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/ktime.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <net/dcbnl.h>

#include "compat/compat.h"
#include "comp.h"
#include "counters.h"
#include "device.h"
#include "pfc.h"
#include "qp.h"
#include "req.h"
#include "task.h"

/* Per-priority counters are indexed by priority from their first entry. */
static_assert((SROCE_CNT_RX_PRIO7_PAUSE - SROCE_CNT_RX_PRIO0_PAUSE) == 7);
static_assert((SROCE_CNT_RX_PRIO7_PAUSE_DURATION -
	       SROCE_CNT_RX_PRIO0_PAUSE_DURATION) == 7);
static_assert((SROCE_CNT_RX_PRIO7_PAUSE_TRANSITION -
	       SROCE_CNT_RX_PRIO0_PAUSE_TRANSITION) == 7);

/* ---- priority mapping ---- */

u32 sroce_pfc_skb_priority(struct sroce_dev *sdev, u8 tclass)
{
	return READ_ONCE(sdev->pfc->dscp2prio[tclass >> 2]);
}

bool sroce_pfc_tx_paused(struct sroce_dev *sdev, u8 tclass)
{
	struct sroce_pfc *pfc = sdev->pfc;

	if (likely(!READ_ONCE(pfc->paused)))
		return false;
	return test_bit(READ_ONCE(pfc->dscp2prio[tclass >> 2]), &pfc->paused);
}

/* ---- resuming waiters ---- */

/*
 * The pause of @qp's priority ended: run its requester from the workqueue,
 * and give packets still unacknowledged a whole retransmit timeout from
 * now (the time paused is not the peer's fault, C9-141 counts from when a
 * packet could have been answered).  req.lock held.
 */
static void sroce_pfc_resume_locked(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&req->lock);
	if (req->psn != req->una_psn && !req->rnr_wait)
		sroce_comp_retrans_restart(qp);
	sroce_task_schedule(qp);
}

/*
 * Process context.  Every QP is looked up with a reference, and the
 * requester work is queued under req.lock as task.c requires; the work
 * holds its own reference.  UD QPs choose the path per WQE: always kicked.
 */
static void sroce_pfc_kick_fn(struct work_struct *work)
{
	struct sroce_pfc *pfc = container_of(work, struct sroce_pfc, kick_work);
	struct sroce_dev *sdev = pfc->sdev;
	unsigned long mask = xchg(&pfc->kick, 0);
	struct sroce_qp *qp;
	unsigned long idx;
	void *entry;

	xa_for_each(&sdev->qp_xa, idx, entry) {
		qp = sroce_qp_get(sdev, idx);
		if (!qp)
			continue;
		spin_lock_bh(&qp->req.lock);
		if (qp->init.qp_type == IB_QPT_UD ||
		    qp->init.qp_type == IB_QPT_GSI ||
		    mask & BIT(sroce_pfc_skb_priority(sdev, qp->av.tclass)))
			sroce_pfc_resume_locked(qp);
		sroce_req_unlock(qp);
		sroce_qp_put(qp);
	}
}

/* ---- the pause state ---- */

/* Apply what the state machine of @prio reported.  lock held. */
static void sroce_pfc_apply_locked(struct sroce_pfc *pfc, int prio,
				   const struct sroce_pfc_rx_out *out)
{
	struct sroce_dev *sdev = pfc->sdev;

	lockdep_assert_held(&pfc->lock);

	/*
	 * One call may end a pause and begin the next (an XOFF just after
	 * the expiry, before the timer ran): the gate follows the final state.
	 */
	if (pfc->rx[prio].paused)
		set_bit(prio, &pfc->paused);
	else
		clear_bit(prio, &pfc->paused);
	if (out->events & SROCE_PFC_EV_XON) {
		sroce_counter_inc(sdev,
				  SROCE_CNT_RX_PRIO0_PAUSE_TRANSITION + prio);
		set_bit(prio, &pfc->kick);
		if (!pfc->dying)
			sroce_task_queue(&pfc->kick_work, -1);
	}
	if (out->paused_ns)
		sroce_counter_add(sdev,
				  SROCE_CNT_RX_PRIO0_PAUSE_DURATION + prio,
				  div_u64(out->paused_ns, NSEC_PER_USEC));
	if (out->events & SROCE_PFC_EV_IGNORED)
		sroce_counter_inc(sdev, SROCE_CNT_RX_PAUSE_IGNORED);
	if (out->events & SROCE_PFC_EV_STORM)
		sroce_counter_inc(sdev, SROCE_CNT_PFC_WD_STORM_DETECTED);
	if (out->events & SROCE_PFC_EV_RESTORED)
		sroce_counter_inc(sdev, SROCE_CNT_PFC_WD_STORM_RESTORED);
}

/* Arm the timer for the earliest pending instant, or stop it.  lock held. */
static void sroce_pfc_arm_locked(struct sroce_pfc *pfc)
{
	u64 next = U64_MAX;
	int i;

	lockdep_assert_held(&pfc->lock);

	if (pfc->dying)
		return;
	for (i = 0; i < SROCE_PFC_NPRIO; i++)
		next = min(next, sroce_pfc_rx_next_poll(&pfc->rx[i], &pfc->wd));
	if (next == U64_MAX)
		hrtimer_try_to_cancel(&pfc->timer);
	else
		hrtimer_start(&pfc->timer, ns_to_ktime(next),
			      HRTIMER_MODE_ABS_SOFT);
}

static void sroce_pfc_poll_locked(struct sroce_pfc *pfc, u64 now)
{
	int i;

	for (i = 0; i < SROCE_PFC_NPRIO; i++) {
		struct sroce_pfc_rx_out out = {};

		sroce_pfc_rx_poll(&pfc->rx[i], &pfc->wd, now, &out);
		sroce_pfc_apply_locked(pfc, i, &out);
	}
}

static enum hrtimer_restart sroce_pfc_timer_fn(struct hrtimer *t)
{
	struct sroce_pfc *pfc = container_of(t, struct sroce_pfc, timer);

	spin_lock(&pfc->lock);
	sroce_pfc_poll_locked(pfc, ktime_get_ns());
	sroce_pfc_arm_locked(pfc);
	spin_unlock(&pfc->lock);
	return HRTIMER_NORESTART;
}

/* End every pause and storm (PFC turned off for @mask).  lock held. */
static void sroce_pfc_reset_locked(struct sroce_pfc *pfc, u8 mask)
{
	u64 now = ktime_get_ns();
	int i;

	for (i = 0; i < SROCE_PFC_NPRIO; i++) {
		struct sroce_pfc_rx_out out = {};
		struct sroce_pfc_rx_prio *p = &pfc->rx[i];

		if (!(mask & BIT(i)))
			continue;
		sroce_pfc_rx_pause(p, &pfc->wd, 0, now, &out);
		*p = (struct sroce_pfc_rx_prio){};
		sroce_pfc_apply_locked(pfc, i, &out);
	}
	sroce_pfc_arm_locked(pfc);
}

/* ---- receiving PFC frames ---- */

static void sroce_pfc_rx_frame(struct sroce_pfc *pfc,
			       const struct sroce_pfc_req *req)
{
	struct sroce_dev *sdev = pfc->sdev;
	u64 now = ktime_get_ns();
	int i;

	spin_lock(&pfc->lock);
	for (i = 0; i < SROCE_PFC_NPRIO; i++) {
		struct sroce_pfc_rx_out out = {};
		u64 ns;

		if (!(req->enable & BIT(i)))
			continue;
		ns = sroce_pfc_quanta_to_ns(req->quanta[i], pfc->speed_mbps);
		if (ns)
			sroce_counter_inc(sdev, SROCE_CNT_RX_PRIO0_PAUSE + i);
		if (!sroce_pfc_mode_sw(pfc->mode) || !(pfc->enable & BIT(i))) {
			if (ns)
				sroce_counter_inc(sdev,
						  SROCE_CNT_RX_PAUSE_IGNORED);
			continue;
		}
		sroce_pfc_rx_pause(&pfc->rx[i], &pfc->wd, ns, now, &out);
		sroce_pfc_apply_locked(pfc, i, &out);
	}
	sroce_pfc_arm_locked(pfc);
	spin_unlock(&pfc->lock);
}

/* Softirq, RCU.  @skb->data is past the Ethernet header (eth_type_trans). */
static int sroce_pfc_rcv(struct sk_buff *skb, struct net_device *dev,
			 struct packet_type *pt, struct net_device *orig_dev)
{
	struct sroce_pfc *pfc = container_of(pt, struct sroce_pfc, ptype);
	struct sroce_pfc_hdr buf;
	const struct sroce_pfc_hdr *h;
	struct sroce_pfc_req req;
	u32 len = min_t(u32, skb->len, sizeof(buf));

	/* Frames for us only; PACKET_OTHERHOST comes with promiscuity. */
	if (unlikely(skb->pkt_type == PACKET_OTHERHOST ||
		     !ether_addr_equal(eth_hdr(skb)->h_dest, sroce_pfc_dmac)))
		goto bad;
	h = skb_header_pointer(skb, 0, len, &buf);
	/* Untrusted: the codec checks length, opcode and the vector. */
	if (unlikely(!h || sroce_pfc_parse(h, len, &req) != SROCE_PFC_OK))
		goto bad;
	sroce_pfc_rx_frame(pfc, &req);
	consume_skb(skb);
	return NET_RX_SUCCESS;
bad:
	sroce_counter_inc(pfc->sdev, SROCE_CNT_RX_PAUSE_MALFORMED);
	kfree_skb(skb);
	return NET_RX_DROP;
}

/* ---- configuration ---- */

/* Push the enable bitmap to the NIC.  rtnl held. */
static int sroce_pfc_dcb_push(struct sroce_pfc *pfc, u8 enable)
{
	const struct dcbnl_rtnl_ops *ops = sroce_netdev_dcbnl_ops(pfc->link);
	struct ieee_pfc ieee = {};

	ASSERT_RTNL();
	if (!ops || !ops->ieee_setpfc)
		return -EOPNOTSUPP;
	if (ops->ieee_getpfc)
		ops->ieee_getpfc(pfc->link, &ieee);
	ieee.pfc_en = enable;
	return ops->ieee_setpfc(pfc->link, &ieee);
}

/* Make @mode and @enable current.  rtnl held: it serialises the knobs. */
static int sroce_pfc_apply_cfg(struct sroce_pfc *pfc, enum sroce_pfc_mode mode,
			       u8 enable)
{
	u8 off;
	int err;

	ASSERT_RTNL();
	if (sroce_pfc_mode_dcb(mode)) {
		err = sroce_pfc_dcb_push(pfc, enable);
		if (err)
			return err;
	} else if (sroce_pfc_mode_dcb(pfc->mode)) {
		sroce_pfc_dcb_push(pfc, 0); /* leaving dcb: best effort */
	}
	spin_lock_bh(&pfc->lock);
	/* Priorities no longer honoured in software resume now. */
	off = sroce_pfc_mode_sw(pfc->mode) ? pfc->enable : 0;
	off &= sroce_pfc_mode_sw(mode) ? ~enable : 0xff;
	pfc->mode = mode;
	pfc->enable = enable;
	sroce_pfc_reset_locked(pfc, off);
	spin_unlock_bh(&pfc->lock);
	sroce_pfc_gen_kick(pfc); /* XON for priorities no longer enabled */
	return 0;
}

int sroce_pfc_set_mode(struct sroce_dev *sdev, enum sroce_pfc_mode mode)
{
	int err;

	if (mode >= SROCE_PFC_MODE_MAX)
		return -EINVAL;
	rtnl_lock();
	err = sroce_pfc_apply_cfg(sdev->pfc, mode, sdev->pfc->enable);
	rtnl_unlock();
	return err;
}

int sroce_pfc_set_enable(struct sroce_dev *sdev, u8 enable)
{
	int err;

	rtnl_lock();
	err = sroce_pfc_apply_cfg(sdev->pfc, sdev->pfc->mode, enable);
	rtnl_unlock();
	return err;
}

u64 sroce_pfc_get_wd(struct sroce_dev *sdev, bool detect)
{
	struct sroce_pfc *pfc = sdev->pfc;
	u64 ns;

	spin_lock_bh(&pfc->lock);
	ns = detect ? pfc->wd.detect_ns : pfc->wd.recover_ns;
	spin_unlock_bh(&pfc->lock);
	return ns;
}

void sroce_pfc_set_wd(struct sroce_dev *sdev, bool detect, u64 ns)
{
	struct sroce_pfc *pfc = sdev->pfc;

	spin_lock_bh(&pfc->lock);
	if (detect)
		pfc->wd.detect_ns = ns;
	else
		pfc->wd.recover_ns = ns;
	sroce_pfc_poll_locked(pfc, ktime_get_ns());
	sroce_pfc_arm_locked(pfc);
	spin_unlock_bh(&pfc->lock);
}

void sroce_pfc_set_speed(struct sroce_dev *sdev, u32 mbps, bool knob)
{
	struct sroce_pfc *pfc = sdev->pfc;

	spin_lock_bh(&pfc->lock);
	if (knob) {
		pfc->speed_knob = mbps;
	} else {
		ASSERT_RTNL();
		if (!mbps || mbps == (u32)SPEED_UNKNOWN)
			mbps = SROCE_PFC_DEF_SPEED;
		pfc->speed_link = mbps;
	}
	/* Pauses already running keep their end; new frames use this. */
	WRITE_ONCE(pfc->speed_mbps,
		   pfc->speed_knob ? pfc->speed_knob : pfc->speed_link);
	spin_unlock_bh(&pfc->lock);
	/* Headroom and pause time of generated frames follow the speed. */
	sroce_pfc_gen_kick(pfc);
}

/* ---- setup / teardown ---- */

int sroce_pfc_alloc(struct sroce_dev *sdev)
{
	struct net_device *ndev = sdev->ndev;
	struct sroce_pfc *pfc;
	int i;

	pfc = kzalloc(sizeof(*pfc), GFP_KERNEL);
	if (!pfc)
		return -ENOMEM;
	pfc->sdev = sdev;
	for (i = 0; i < SROCE_PFC_NDSCP; i++)
		pfc->dscp2prio[i] = i >> 3;
	INIT_WORK(&pfc->kick_work, sroce_pfc_kick_fn);
	spin_lock_init(&pfc->lock);
	pfc->mode = SROCE_PFC_MODE_SW;
	pfc->speed_link = SROCE_PFC_DEF_SPEED;
	pfc->speed_mbps = SROCE_PFC_DEF_SPEED;
	pfc->wd.detect_ns = SROCE_PFC_DEF_DETECT_MS * NSEC_PER_MSEC;
	pfc->wd.recover_ns = SROCE_PFC_DEF_RESTORE_MS * NSEC_PER_MSEC;
	hrtimer_init(&pfc->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	pfc->timer.function = sroce_pfc_timer_fn;

	/* A VLAN's real device stays registered while the VLAN exists. */
	pfc->link = is_vlan_dev(ndev) ? vlan_dev_real_dev(ndev) : ndev;
	netdev_hold(pfc->link, &pfc->link_tracker, GFP_KERNEL);
	pfc->ptype.type = htons(ETH_P_PAUSE);
	pfc->ptype.dev = pfc->link;
	pfc->ptype.func = sroce_pfc_rcv;
	sroce_pfc_gen_init(pfc);
	sdev->pfc = pfc;
	dev_add_pack(&pfc->ptype);
	return 0;
}

void sroce_pfc_free(struct sroce_dev *sdev)
{
	struct sroce_pfc *pfc = sdev->pfc;

	if (!pfc)
		return;
	dev_remove_pack(&pfc->ptype); /* waits for running handlers */
	spin_lock_bh(&pfc->lock);
	pfc->dying = true;
	spin_unlock_bh(&pfc->lock);
	hrtimer_cancel(&pfc->timer);
	cancel_work_sync(&pfc->kick_work);
	sroce_pfc_gen_stop(pfc);
	if (sroce_pfc_mode_dcb(pfc->mode) && pfc->enable) {
		rtnl_lock();
		if (pfc->link->reg_state == NETREG_REGISTERED)
			sroce_pfc_dcb_push(pfc, 0);
		rtnl_unlock();
	}
	netdev_put(pfc->link, &pfc->link_tracker);
	sdev->pfc = NULL;
	kfree(pfc);
}
