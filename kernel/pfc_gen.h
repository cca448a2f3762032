/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfc_gen.h - generating PFC frames (802.1Qbb) from sroce's receive
 * backlog: per-priority byte accounting of the packets waiting in the QPs'
 * receive queues (rxq.c), the XOFF/XON hysteresis of proto/pfc.c run by a
 * work item, and the frames it sends out of the link device.
 *
 * Contexts: the accounting hooks run in softirq (enqueue, under the QP's
 * rxq lock) and in the receive work (dequeue); they touch only atomics and
 * queue the work.  The work (process context) owns the hysteresis under
 * gen->lock and transmits after dropping it, never under a QP lock.  A soft
 * hrtimer queues the work to refresh an XOFF before it expires.
 */
#ifndef _SROCE_PFC_GEN_H
#define _SROCE_PFC_GEN_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

#include "proto/pfc.h"

struct sk_buff;
struct sroce_dev;
struct sroce_pfc;

/* Defaults and ranges of the generation knobs (Documentation/pfc.rst). */
#define SROCE_PFC_CABLE_M 100 /* cable length assumed by the headroom */
#define SROCE_PFC_DEF_XOFF_MAX_MS 100 /* mlx5's pfc-prevention-tout auto */
#define SROCE_PFC_MAX_THRESH (16 << 20) /* xon/headroom bytes, at most */
#define SROCE_PFC_MIN_THRESH 64
#define SROCE_PFC_MAX_RX_DELAY_US 100000

struct sroce_pfc_gen {
	struct sroce_pfc *pfc;
	/*
	 * Bytes of packets waiting in the receive queues of the device's QPs,
	 * per priority of the packet (its DSCP through dscp2prio).  Added
	 * before a packet is queued, subtracted after it left the queue.
	 */
	atomic_long_t backlog[SROCE_PFC_NPRIO];
	/*
	 * Priorities the work is responsible for (XOFF sent, or the bounded
	 * XOFF rule holding it back): the dequeue hook kicks the work for
	 * them, the enqueue hook only for the others.  Atomic bitops.
	 */
	unsigned long active;
	/* Thresholds in effect, cached for the hooks (READ_ONCE). */
	u32 xoff_bytes;
	u32 xon_bytes;
	/* Testing: receive work sleeps this long before each packet. */
	u32 rx_delay_us;
	/* Testing: CE on ECT packets queued above this backlog; 0 = off. */
	u32 rx_mark_bytes;
	/* Runs the hysteresis and sends frames; needs no reference. */
	struct work_struct work;
	/* Queues the work to refresh an XOFF; soft, never under a lock. */
	struct hrtimer timer;
	/* Device going away: nothing re-arms the timer or queues the work. */
	bool dying;

	/* Guards everything below; process context only. */
	struct mutex lock;
	u32 xon_knob; /* pfc_xon_bytes; 0 = two maximum frames */
	u32 headroom_knob; /* pfc_headroom_bytes; 0 = from MTU and speed */
	u32 xoff_max_ms; /* pfc_xoff_max_ms: bound of one XOFF episode */
	struct sroce_pfc_gen_cfg cfg; /* computed from the above */
	u32 quanta; /* pause time sent in an XOFF */
	struct sroce_pfc_gen_prio st[SROCE_PFC_NPRIO];
};

/* pfc.c: from alloc; stop sends XON for priorities still held. */
void sroce_pfc_gen_init(struct sroce_pfc *pfc);
void sroce_pfc_gen_stop(struct sroce_pfc *pfc);
/* Mode, enable bitmap, speed or a threshold changed: re-evaluate. */
void sroce_pfc_gen_kick(struct sroce_pfc *pfc);

/*
 * rxq.c hooks.  Queued: softirq, before @skb is put on a QP's receive
 * queue (records the packet's priority in skb->priority; the testing knob
 * rx_mark_bytes marks it CE above that backlog).  Dequeued: after
 * @skb left the queue, with @work true in the receive work (which may
 * sleep there: the testing knob rx_delay_us), false when it is purged.
 */
void sroce_pfc_rx_queued(struct sroce_dev *sdev, struct sk_buff *skb);
void sroce_pfc_rx_dequeued(struct sroce_dev *sdev, struct sk_buff *skb,
			   bool work);

/* Knobs (pfc_sysfs.c); process context.  Values are range-checked. */
enum sroce_pfc_gen_knob {
	SROCE_PFC_GK_XON,
	SROCE_PFC_GK_HEADROOM,
	SROCE_PFC_GK_XOFF_MAX_MS,
	SROCE_PFC_GK_RX_DELAY_US,
	SROCE_PFC_GK_RX_MARK_BYTES,
};

u32 sroce_pfc_gen_get(struct sroce_dev *sdev, enum sroce_pfc_gen_knob k);
void sroce_pfc_gen_set(struct sroce_dev *sdev, enum sroce_pfc_gen_knob k,
		       u32 val);
/* Priorities held by XOFF now (for pfc_state). */
u8 sroce_pfc_gen_xoff(struct sroce_pfc *pfc);

#endif /* _SROCE_PFC_GEN_H */
