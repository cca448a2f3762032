/* SPDX-License-Identifier: GPL-2.0 */
/*
 * net.h - per-network-namespace RoCE v2 UDP sockets (port 4791).
 *
 * Each namespace that holds at least one sroce device has one UDP socket
 * per address family bound to port 4791 (the IPv6 one IPV6_V6ONLY).  The
 * sockets are opened when the first device of the namespace attaches and
 * closed when the last one detaches, so that another RoCE v2 driver (e.g.
 * rdma_rxe in init_net) may own 4791 in namespaces without sroce devices.
 *
 * Received datagrams arrive in softirq context in the encap_rcv handler,
 * which finds the sroce device of the ingress netdev under RCU.
 */
#ifndef _SROCE_NET_H
#define _SROCE_NET_H

#include <linux/net.h>
#include <linux/socket.h>
#include <linux/types.h>
#include <net/net_namespace.h>

struct sroce_dev;
struct sroce_net;

/* IANA port of RoCE v2 (IBA Annex A17). */
#define SROCE_UDP_PORT 4791

/* pernet registration, from module init/exit. */
int sroce_net_init(void);
void sroce_net_exit(void);

/*
 * Attach @sdev (whose ->ndev is set) to the sockets of @net, opening them
 * if it is the first device there, and make it visible to the receive
 * path.  Sets sdev->sn.  Caller holds rtnl and has checked that sdev->ndev
 * is registered in @net (which keeps @net alive).
 * Returns 0, -EADDRINUSE when another socket owns 4791 in @net, or another
 * -errno; on error nothing is left attached.
 */
int sroce_net_attach(struct sroce_dev *sdev, struct net *net);

/*
 * Undo sroce_net_attach(): hide @sdev from the receive path (waiting for
 * RCU readers, so sdev->stats may be freed afterwards) and drop its
 * reference on the sockets, closing them after the last device.
 * Process context; no-op when sdev->sn is NULL.
 */
void sroce_net_detach(struct sroce_dev *sdev);

/*
 * For the data path: the namespace and the socket of @family (AF_INET or
 * AF_INET6) a device transmits through.  Valid while the device is
 * attached.  The AF_INET6 socket is NULL when IPv6 is unavailable.
 */
struct net *sroce_net_ns(const struct sroce_net *sn);
struct socket *sroce_net_sock(const struct sroce_net *sn, sa_family_t family);

/*
 * Datagrams received on the namespace's sockets whose ingress netdev has
 * no sroce device (reported next to each device's counters).
 */
u64 sroce_net_rx_drop_no_dev(const struct sroce_net *sn);

#endif /* _SROCE_NET_H */
