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
#define SROCE_PFC_DEF_CNP_PRIO 6 /* mlx5's cnp_802p_prio default */
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
	u8 cnp_prio; /* skb->priority of CNPs (READ_ONCE) */

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
};

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
/* skb->priority of a CNP (for the congestion-control code). */
u32 sroce_pfc_cnp_priority(struct sroce_dev *sdev);

/*
 * Transmit gate (req.c): true while the priority of @tclass is paused by
 * the peer.  The requester then stops; it is kicked when the pause ends.
 */
bool sroce_pfc_tx_paused(struct sroce_dev *sdev, u8 tclass);

/* Knob helpers for pfc_sysfs.c (process context). */
int sroce_pfc_set_mode(struct sroce_dev *sdev, enum sroce_pfc_mode mode);
int sroce_pfc_set_enable(struct sroce_dev *sdev, u8 enable);
/* Storm detection (@detect) or restore interval; 0 detect = off. */
void sroce_pfc_set_wd(struct sroce_dev *sdev, bool detect, u64 ns);

/* The pfc_* attributes (pfc_sysfs.c), listed in sroce_dev_attr_group. */
extern struct device_attribute sroce_pfc_attr_mode;
extern struct device_attribute sroce_pfc_attr_enable;
extern struct device_attribute sroce_pfc_attr_dscp2prio;
extern struct device_attribute sroce_pfc_attr_cnp_prio;
extern struct device_attribute sroce_pfc_attr_storm_detect_ms;
extern struct device_attribute sroce_pfc_attr_storm_restore_ms;
extern struct device_attribute sroce_pfc_attr_speed_mbps;
extern struct device_attribute sroce_pfc_attr_state;

#endif /* _SROCE_PFC_H */
