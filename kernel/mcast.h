/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mcast.h - UD multicast: attach/detach of QPs to multicast GIDs and the
 * receive fan-out (IBA 10.5, 11.3.6; RoCE v2 Annex A17.4.7).
 *
 * A RoCE v2 multicast GID is an IP multicast address: IPv4-mapped
 * (::ffff:224.0.0.0/100) or IPv6 (ff00::/8).  Each group joins that IP
 * group on the device's netdev and the devices above it, so the IP stack
 * (and the NIC filter) accepts its packets; a UD SEND to DestQP 0xFFFFFF addressed to the group
 * is given to every QP attached to it.
 */
#ifndef _SROCE_MCAST_H
#define _SROCE_MCAST_H

#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>

#include "counters.h"

struct net_device;
struct sroce_dev;
struct sroce_qp;

/* BTH DestQP of multicast packets (IBA 10.5.2.2). */
#define SROCE_MCAST_QPN 0xffffffU

/* Per-device table: allocated by device setup, freed by dealloc. */
int sroce_mcast_dev_init(struct sroce_dev *sdev);
void sroce_mcast_dev_fini(struct sroce_dev *sdev);

/* ib_device_ops attach_mcast / detach_mcast (process context). */
int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);

/*
 * destroy_qp, before the QP stops being findable: detach whatever the
 * consumer left attached (ib_uverbs and ib_core detach first, so this is
 * normally a no-op).  Process context.
 */
void sroce_mcast_qp_destroy(struct sroce_qp *qp);

/*
 * Netdev notifier (rtnl held; device.c): NETDEV_CHANGEUPPER, _REGISTER or
 * _UNREGISTER of @dev.  Keeps the IP groups of @sdev's multicast groups
 * joined on exactly the devices above its netdev in its namespace.
 */
void sroce_mcast_netdev_event(struct sroce_dev *sdev, unsigned long event,
			      struct net_device *dev);

/*
 * Receive path: a parsed UD packet to DestQP 0xFFFFFF (softirq, RCU read
 * side held).  Hands a copy to the receive queue of every attached QP that
 * receives.  Returns SROCE_CNT_MAX when at least one QP took the packet
 * (the skb is then consumed), otherwise the drop reason; the caller then
 * still owns @skb.
 */
enum sroce_counter sroce_mcast_recv(struct sroce_dev *sdev,
				    struct sk_buff *skb);

#endif /* _SROCE_MCAST_H */
