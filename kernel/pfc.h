/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfc.h - Priority-based Flow Control (802.1Qbb) on a sroce device: the
 * DSCP -> priority table that sets skb->priority, the honouring of PFC
 * frames received on the bound netdev (transmit gate of the requester),
 * the storm watchdog, and the optional push of the enable bitmap to a NIC
 * that implements DCB.  The pure state machines are in proto/pfc.c.
 *
 * Contexts: the PFC frame handler and the pause timer run in softirq, the
 * kick work and the sysfs knobs in process context; pfc->lock (_bh) guards
 * the pause state and the configuration they share.  The transmit gate
 * (sroce_pfc_tx_paused()) is lockless: one table load and one bit test.
 */
#ifndef _SROCE_PFC_H
#define _SROCE_PFC_H

#include <linux/hrtimer.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>

#include "pfc_gen.h"
#include "proto/pfc.h"

struct sroce_dev;

#define SROCE_PFC_NDSCP 64

/* Who acts on PFC (the pfc_mode knob). */
enum sroce_pfc_mode {
	SROCE_PFC_MODE_OFF, /* nothing: PFC frames are ignored (counted) */
	SROCE_PFC_MODE_SW, /* sroce honours PFC frames itself */
	SROCE_PFC_MODE_DCB, /* the NIC does, through dcbnl ieee_setpfc */
	SROCE_PFC_MODE_BOTH, /* both */
	SROCE_PFC_MODE_MAX,
};

/* Defaults of the knobs (Documentation/pfc.rst). */
#define SROCE_PFC_DEF_DETECT_MS 100
#define SROCE_PFC_DEF_RESTORE_MS 200
#define SROCE_PFC_MAX_INTERVAL_MS 60000
#define SROCE_PFC_DEF_SPEED 10000 /* Mb/s when ethtool reports none */
#define SROCE_PFC_MIN_SPEED 10 /* range of pfc_speed_mbps */
#define SROCE_PFC_MAX_SPEED 800000

struct sroce_pfc {
	struct sroce_dev *sdev;
	/*
	 * Where PFC frames arrive and leave: the bound netdev, or the real
	 * device under a VLAN (MAC control frames are never tagged).
	 * A tracked reference held from alloc to free.
	 */
	struct net_device *link;
	netdevice_tracker link_tracker;
	struct packet_type ptype; /* ETH_P_PAUSE on link */

	/*
	 * DSCP -> priority, written by sysfs (WRITE_ONCE), read locklessly
	 * on every transmit; one byte per entry, so readers see old or new.
	 */
	u8 dscp2prio[SROCE_PFC_NDSCP];

	/*
	 * Bit n set: priority n is paused, requesters of that priority wait.
	 * Changed under lock with set_bit/clear_bit, tested locklessly.
	 */
	unsigned long paused;
	/* Priorities whose waiters kick_work must resume (atomic bitops). */
	unsigned long kick;
	/* Resumes the QPs of the priorities in kick; holds QP references. */
	struct work_struct kick_work;

	/*
	 * Guards everything below.  Taken with _bh from process context;
	 * the frame handler and the timer run in softirq.
	 */
	spinlock_t lock;
	/* mode and enable are written with rtnl and lock held (either reads). */
	enum sroce_pfc_mode mode;
	u8 enable; /* priorities PFC applies to */
	u32 speed_link; /* Mb/s from ethtool, or the default */
	u32 speed_knob; /* Mb/s set in pfc_speed_mbps; 0 = speed_link */
	u32 speed_mbps; /* in effect: length of a pause quantum */
	struct sroce_pfc_wd_cfg wd; /* storm watchdog */
	struct sroce_pfc_rx_prio rx[SROCE_PFC_NPRIO]; /* honouring state */
	bool dying; /* free: nothing re-arms the timer or queues work */
	/* Fires at the next expiry, watchdog or restore instant. */
	struct hrtimer timer;

	/* Generating PFC frames from the receive backlog (pfc_gen.c). */
	struct sroce_pfc_gen gen;
};

static inline bool sroce_pfc_mode_sw(enum sroce_pfc_mode mode)
{
	return mode == SROCE_PFC_MODE_SW || mode == SROCE_PFC_MODE_BOTH;
}

static inline bool sroce_pfc_mode_dcb(enum sroce_pfc_mode mode)
{
	return mode == SROCE_PFC_MODE_DCB || mode == SROCE_PFC_MODE_BOTH;
}

/* Device setup/teardown (device.c); free tolerates a device without pfc. */
int sroce_pfc_alloc(struct sroce_dev *sdev);
void sroce_pfc_free(struct sroce_dev *sdev);
/*
 * Link speed from ethtool (@knob false, rtnl held; 0 or SPEED_UNKNOWN: the
 * default), or the pfc_speed_mbps override (@knob true; 0 = ethtool's).
 */
void sroce_pfc_set_speed(struct sroce_dev *sdev, u32 mbps, bool knob);

/* skb->priority of a RoCE packet with traffic class @tclass (pkt.c). */
u32 sroce_pfc_skb_priority(struct sroce_dev *sdev, u8 tclass);

/*
 * Transmit gate (req.c): true while the priority of @tclass is paused by
 * the peer.  The requester then stops; it is kicked when the pause ends.
 */
bool sroce_pfc_tx_paused(struct sroce_dev *sdev, u8 tclass);

/* Knob helpers for pfc_sysfs.c (process context). */
int sroce_pfc_set_mode(struct sroce_dev *sdev, enum sroce_pfc_mode mode);
int sroce_pfc_set_enable(struct sroce_dev *sdev, u8 enable);
/* Storm detection (@detect) or restore interval; 0 detect = off. */
u64 sroce_pfc_get_wd(struct sroce_dev *sdev, bool detect);
void sroce_pfc_set_wd(struct sroce_dev *sdev, bool detect, u64 ns);

/*
 * A numeric knob of pfc_sysfs.c: one show and one store for all of them,
 * range-checked (0 is also accepted when @zero_ok), applied by @set.
 */
struct sroce_pfc_knob {
	struct device_attribute attr;
	u32 min, max;
	bool zero_ok; /* 0 means "default" or "off" */
	bool hex; /* shown as 0xNN (bitmaps) */
	u32 (*get)(struct sroce_dev *sdev);
	int (*set)(struct sroce_dev *sdev, u32 val);
};

enum sroce_pfc_knob_id {
	SROCE_PFC_KNOB_ENABLE,
	SROCE_PFC_KNOB_CNP_PRIO,
	SROCE_PFC_KNOB_STORM_DETECT_MS,
	SROCE_PFC_KNOB_STORM_RESTORE_MS,
	SROCE_PFC_KNOB_SPEED_MBPS,
	SROCE_PFC_KNOB_XON_BYTES,
	SROCE_PFC_KNOB_HEADROOM_BYTES,
	SROCE_PFC_KNOB_XOFF_MAX_MS,
	SROCE_PFC_KNOB_RX_DELAY_US,
	SROCE_PFC_KNOB_RX_MARK_BYTES,
	SROCE_PFC_KNOB_MAX,
};

/* The pfc_* attributes (pfc_sysfs.c), listed in sroce_dev_attr_group. */
extern struct sroce_pfc_knob sroce_pfc_knobs[SROCE_PFC_KNOB_MAX];
extern struct device_attribute sroce_pfc_attr_mode;
extern struct device_attribute sroce_pfc_attr_dscp2prio;
extern struct device_attribute sroce_pfc_attr_state;

/* The attribute of knob @id, for the attribute list of sysfs.c. */
#define SROCE_PFC_KNOB_ATTR(id) \
	(&sroce_pfc_knobs[SROCE_PFC_KNOB_##id].attr.attr)

#endif /* _SROCE_PFC_H */
