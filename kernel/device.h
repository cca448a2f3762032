/* SPDX-License-Identifier: GPL-2.0 */
/*
 * device.h - one sroce ib_device bound to one Ethernet netdev.
 *
 * Owned by device.c.  The object files (pd.c, mr.c, cq.c, qp.c, ah.c, ...)
 * use struct sroce_dev for limits, object accounting and QPN/AH lookup.
 */
#ifndef _SROCE_DEVICE_H
#define _SROCE_DEVICE_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "txpool.h"

struct sroce_net;
struct sroce_counters;
struct sroce_cc_dev;
struct sroce_mcast;
struct rdma_link_ops;

/*
 * Limits advertised by query_device and enforced at object creation.
 * Both sides use these names; never hard-code a number elsewhere.
 */
enum sroce_limits {
	SROCE_MAX_QP = 16384,
	SROCE_MAX_QP_WR = 16384, /* power of two */
	SROCE_MAX_SGE = 32,
	SROCE_MAX_INLINE = 512,
	SROCE_MAX_CQ = 16384,
	SROCE_MAX_CQE = 65536, /* power of two */
	SROCE_MAX_MR = 65536,
	SROCE_MAX_MW = 65536,
	SROCE_MAX_PD = 65536,
	SROCE_MAX_AH = 65536,
	SROCE_MAX_SRQ = 4096,
	SROCE_MAX_SRQ_WR = 16384,
	SROCE_MAX_SRQ_SGE = 32,
	SROCE_MAX_RD_ATOM = 128, /* per QP, initiator and responder */
	SROCE_MAX_MCAST_GRP = 8192,
	SROCE_MAX_MCAST_QP_ATTACH = 56,
	/*
	 * Attachments per device, a bound of its own: each one pins an
	 * sroce member, an ib_uverbs entry and an IP group reference, and
	 * max_mcast_grp * max_mcast_qp_attach (458752) would let one user
	 * pin tens of MB.  8 QPs in every one of the 8192 groups.
	 */
	SROCE_MAX_MCAST_TOTAL_ATTACH = 65536,
	SROCE_MAX_PKEYS = 1,
	SROCE_GID_TBL_LEN = 1024,
	SROCE_MIN_QPN = 16, /* 0/1 are special; GSI is QPN 1 */
	SROCE_MAX_QPN = 0xffffff,
};

/* Object kinds accounted per device (index into sroce_dev.res_count). */
enum sroce_res {
	SROCE_RES_PD,
	SROCE_RES_MR,
	SROCE_RES_CQ,
	SROCE_RES_QP,
	SROCE_RES_AH,
	SROCE_RES_SRQ,
	SROCE_RES_MW,
	SROCE_RES_MAX,
};

struct sroce_dev {
	/* Must be first: ib_alloc_device() allocates the container. */
	struct ib_device ib_dev;

	/* Bound netdev; a tracked reference held from newlink to dealloc. */
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;

	/* Per-netns RoCE v2 sockets of ndev's namespace (reference held). */
	struct sroce_net *sn;

	/* Advertised capabilities; written once before registration. */
	struct ib_device_attr attr;

	/*
	 * Protects port_state, phys_state, active_mtu, active_speed and
	 * active_width: written by the netdev notifier (rtnl held), read by
	 * query_port and the data path.  Taken with interrupts disabled.
	 */
	spinlock_t port_lock;
	enum ib_port_state port_state;
	enum ib_port_phys_state phys_state;
	enum ib_mtu active_mtu;
	u16 active_speed; /* enum ib_port_speed */
	u8 active_width; /* enum ib_port_width */

	/* Receive steering on (rxq.h); sysfs rx_steer, read with READ_ONCE. */
	bool rx_steer;
	/*
	 * Truesize of the packets waiting in the receive queues of all QPs
	 * (rxq.c, atomic), and its bound (sysfs rx_queue_max_bytes, written
	 * with WRITE_ONCE, read with READ_ONCE).
	 */
	atomic_long_t rxq_bytes;
	unsigned long rxq_max_bytes;
	/* Unsignaled messages ask for no ACK (req_pkt.c); sysfs ack_coalesce. */
	bool ack_coalesce;
	/* enum sroce_tx_batch (pkt.h); sysfs tx_batch, read with READ_ONCE. */
	u8 tx_batch;
	/* Segment memory of transmit batches (txpool.h has its rules). */
	struct sroce_txpool txpool;

	/* Live objects per kind, checked against attr limits on create. */
	atomic_t res_count[SROCE_RES_MAX];

	/*
	 * QPN -> struct sroce_qp *, for the receive path.  Lookups take a
	 * reference under RCU/xa_lock; XA_FLAGS_ALLOC1, cyclic allocation in
	 * [SROCE_MIN_QPN, SROCE_MAX_QPN] (GSI is stored at index 1).
	 */
	struct xarray qp_xa;
	u32 qpn_next; /* cyclic hint, guarded by qp_xa lock */

	/* ah_num -> struct sroce_ah *, for UD send WQEs (XA_FLAGS_ALLOC1). */
	struct xarray ah_xa;
	u32 ah_next; /* cyclic hint, guarded by ah_xa lock */

	/*
	 * MR index (lkey/rkey >> 8) -> struct sroce_mr * (verbs, mr.c).
	 * Lookups take a reference under RCU; XA_FLAGS_ALLOC1, cyclic
	 * allocation.  Initialised by sroce_verbs_dev_init().
	 */
	struct xarray mr_xa;
	u32 mr_next; /* cyclic hint, guarded by mr_xa lock */

	/* UD multicast groups (mcast.c); from setup to dealloc. */
	struct sroce_mcast *mcast;

	/* PFC state and knobs (pfc.c); from setup to dealloc. */
	struct sroce_pfc *pfc;

	/* Per-cpu statistics exposed as rdma hw stats (counters.c). */
	struct sroce_counters __percpu *stats;

	/* Congestion control knobs (cc.c, cc_sysfs.c); setup to dealloc. */
	struct sroce_cc_dev *cc;

	/* Entry in sroce_dev_list (device.c), guarded by sroce_dev_lock. */
	struct list_head list;

	/*
	 * ndev was unregistered (or left its namespace) while this device
	 * existed; guarded by sroce_dev_lock.  Tells a newlink that is still
	 * registering the device to unregister it again.
	 */
	bool ndev_gone;

	/*
	 * dealloc_driver has started freeing the device's state (PFC,
	 * multicast, congestion control); guarded by sroce_dev_lock.  Set
	 * before anything is freed: the netdev notifier leaves a dying device
	 * alone and newlink adds no sysfs directory to it.
	 */
	bool dying;

	/*
	 * Entry in the receive lookup list of sn (net.c): written under
	 * sroce_net_lock, read under RCU by the encap_rcv handler.
	 */
	struct list_head net_node;
};

static inline struct sroce_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sroce_dev, ib_dev);
}

/*
 * Account one object of @kind against @max.  Returns 0 or -ENOMEM without
 * leaving the count raised.
 */
static inline int sroce_res_get(struct sroce_dev *sdev, enum sroce_res kind,
				int max)
{
	if (atomic_inc_return(&sdev->res_count[kind]) > max) {
		atomic_dec(&sdev->res_count[kind]);
		return -ENOMEM;
	}
	return 0;
}

static inline void sroce_res_put(struct sroce_dev *sdev, enum sroce_res kind)
{
	atomic_dec(&sdev->res_count[kind]);
}

/* Port 1 attributes that change with the netdev (device.c). */
enum ib_mtu sroce_dev_active_mtu(struct sroce_dev *sdev);
enum ib_port_state sroce_dev_port_state(struct sroce_dev *sdev);

/*
 * Module init/exit (device.c): init registers the netdev notifier; exit
 * removes every sroce device (the rdma link type must be unregistered
 * first so that no newlink runs), then unregisters the notifier.
 */
int sroce_device_init(void);
void sroce_device_exit(void);

/* rdma link type "sroce", registered by main.c after sroce_device_init(). */
extern struct rdma_link_ops sroce_link_ops;

#endif /* _SROCE_DEVICE_H */
