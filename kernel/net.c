// SPDX-License-Identifier: GPL-2.0
/*
 * net.c - per-network-namespace RoCE v2 sockets and the receive entry.
 *
 * State per namespace lives in net_generic storage (struct sroce_net): the
 * two UDP sockets bound to port 4791 and the list of the namespace's sroce
 * devices that the receive handler searches.
 *
 * Namespace teardown: the pernet operations are registered as a subsystem,
 * so their exit runs after every netdev of the dying namespace has been
 * unregistered (or moved to init_net).  The netdev notifier has then queued
 * the unregistration of every device of the namespace; the exit waits for
 * them to detach, so the sockets are always closed before the namespace
 * (which a kernel socket does not pin) is freed.
 *
 * Contexts: attach runs under rtnl (newlink), detach in process context
 * (dealloc_driver), sroce_udp_encap_recv in softirq.
 */
#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/rculist.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <linux/wait.h>
#include <net/addrconf.h>
#include <net/inet_sock.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>

#include "compat/compat.h"
#include "counters.h"
#include "device.h"
#include "net.h"
#include "recv.h"

struct sroce_net {
	/* The namespace this storage belongs to. */
	struct net *net;

	/* Devices attached; sockets are open iff users > 0.  sroce_net_lock. */
	unsigned int users;
	/* 4791 sockets; written under sroce_net_lock, stable while users > 0. */
	struct socket *sock4;
	struct socket *sock6; /* NULL when IPv6 is unavailable */

	/* sroce_dev.net_node: written under sroce_net_lock, read under RCU. */
	struct list_head devs;

	/* Received datagrams whose ingress netdev has no sroce device. */
	atomic64_t rx_drop_no_dev;
};

/*
 * Guards users, sockets and device lists of every namespace.  Global (not
 * per namespace) so that pernet exit can take it after a detach without the
 * lock living in the storage being freed.
 */
static DEFINE_MUTEX(sroce_net_lock);
/* Woken when a namespace's users drops to zero (pernet exit waits). */
static DECLARE_WAIT_QUEUE_HEAD(sroce_net_idle_wq);

static unsigned int sroce_net_id __read_mostly;

/* ---- receive ---- */

static struct sroce_dev *sroce_rx_find_dev(struct sroce_net *sn,
					   const struct net_device *ndev)
{
	struct sroce_dev *sdev;

	list_for_each_entry_rcu(sdev, &sn->devs, net_node)
		if (sdev->ndev == ndev)
			return sdev;
	return NULL;
}

/*
 * Classify a RoCE v2 datagram (skb->data at the UDP header, length checked
 * by UDP): recv.c validates and dispatches it and owns the skb from here.
 */
static void sroce_rx_classify(struct sroce_dev *sdev, struct sk_buff *skb)
{
	sroce_recv(sdev, skb);
}

/*
 * A namespace's packets to one of its own addresses (loopback to a local
 * GID) arrive on lo: their device is the one whose netdev holds the
 * destination address.  RCU read side held.
 */
static struct net_device *sroce_rx_local_dev(struct net *net,
					     const struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return __ip_dev_find(net, ip_hdr(skb)->daddr, false);
#if IS_ENABLED(CONFIG_IPV6)
	if (skb->protocol == htons(ETH_P_IPV6))
		return ipv6_dev_find(net, &ipv6_hdr(skb)->daddr, NULL);
#endif
	return NULL;
}

static struct sroce_dev *sroce_rx_dev(struct sroce_net *sn,
				      const struct sk_buff *skb)
{
	struct net_device *ndev = skb->dev;
	struct sroce_dev *sdev;

	if (unlikely(!ndev))
		return NULL;
	if (ndev->flags & IFF_LOOPBACK) {
		ndev = sroce_rx_local_dev(sn->net, skb);
		if (!ndev)
			return NULL;
	}
	sdev = sroce_rx_find_dev(sn, ndev);
	if (!sdev && is_vlan_dev(ndev))
		sdev = sroce_rx_find_dev(sn, vlan_dev_real_dev(ndev));
	return sdev;
}

/* encap_rcv of both sockets: softirq, RCU read side held by UDP. */
static int sroce_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct sroce_dev *sdev;
	struct sroce_net *sn;

	sn = rcu_dereference_sk_user_data(sk);
	if (unlikely(!sn))
		goto out; /* socket being released */

	sdev = sroce_rx_dev(sn, skb);
	if (unlikely(!sdev)) {
		atomic64_inc(&sn->rx_drop_no_dev);
		goto out;
	}
	sroce_rx_classify(sdev, skb); /* takes ownership */
	return 0;
out:
	consume_skb(skb);
	return 0;
}

/* ---- sockets ---- */

static struct socket *sroce_sock_open(struct net *net, sa_family_t family,
				      struct sroce_net *sn)
{
	struct udp_tunnel_sock_cfg tcfg = {};
	struct udp_port_cfg pcfg = {};
	struct socket *sock;
	int err;

	pcfg.family = family;
	pcfg.local_udp_port = htons(SROCE_UDP_PORT);
	if (family == AF_INET6) {
		pcfg.ipv6_v6only = 1;
		/* RoCE v2 sends UDP checksum 0, also over IPv6 (Annex A17). */
		pcfg.use_udp6_rx_checksums = 0;
		pcfg.use_udp6_tx_checksums = 0;
	}
	err = udp_sock_create(net, &pcfg, &sock);
	if (err)
		return ERR_PTR(err);

	tcfg.sk_user_data = sn;
	tcfg.encap_type = 1;
	tcfg.encap_rcv = sroce_udp_encap_recv;
	setup_udp_tunnel_sock(net, sock, &tcfg);
	/*
	 * The tunnel setup asks for checksum conversion, which makes UDP
	 * checksum every segment when it splits a received GSO batch
	 * (udp_rcv_segment).  RoCE carries UDP checksum 0 and the ICRC
	 * guards the payload: no checksum is needed.
	 */
	inet_dec_convert_csum(sock->sk);
	return sock;
}

static void sroce_net_close_locked(struct sroce_net *sn)
{
	lockdep_assert_held(&sroce_net_lock);

	/* Each release clears sk_user_data and waits for RCU readers. */
	if (sn->sock6)
		udp_tunnel_sock_release(sn->sock6);
	if (sn->sock4)
		udp_tunnel_sock_release(sn->sock4);
	sn->sock6 = NULL;
	sn->sock4 = NULL;
}

static int sroce_net_open_locked(struct sroce_net *sn)
{
	struct socket *sock;

	lockdep_assert_held(&sroce_net_lock);

	sock = sroce_sock_open(sn->net, AF_INET, sn);
	if (IS_ERR(sock))
		return PTR_ERR(sock);
	sn->sock4 = sock;

	sock = sroce_sock_open(sn->net, AF_INET6, sn);
	if (IS_ERR(sock)) {
		/* A kernel without IPv6 (ipv6.disable=1) is fine. */
		if (PTR_ERR(sock) == -EAFNOSUPPORT)
			return 0;
		sroce_net_close_locked(sn);
		return PTR_ERR(sock);
	}
	sn->sock6 = sock;
	return 0;
}

int sroce_net_attach(struct sroce_dev *sdev, struct net *net)
{
	struct sroce_net *sn = net_generic(net, sroce_net_id);
	int err = 0;

	ASSERT_RTNL();

	mutex_lock(&sroce_net_lock);
	if (!sn->users)
		err = sroce_net_open_locked(sn);
	if (!err) {
		sn->users++;
		sdev->sn = sn;
		list_add_tail_rcu(&sdev->net_node, &sn->devs);
	}
	mutex_unlock(&sroce_net_lock);
	return err;
}

void sroce_net_detach(struct sroce_dev *sdev)
{
	struct sroce_net *sn = sdev->sn;

	if (!sn)
		return;

	mutex_lock(&sroce_net_lock);
	list_del_rcu(&sdev->net_node);
	if (sn->users == 1)
		sroce_net_close_locked(sn); /* includes synchronize_rcu() */
	else
		synchronize_rcu();
	sn->users--;
	sdev->sn = NULL;
	wake_up(&sroce_net_idle_wq);
	mutex_unlock(&sroce_net_lock);
}

struct net *sroce_net_ns(const struct sroce_net *sn)
{
	return sn->net;
}

struct socket *sroce_net_sock(const struct sroce_net *sn, sa_family_t family)
{
	return family == AF_INET6 ? sn->sock6 : sn->sock4;
}

u64 sroce_net_rx_drop_no_dev(const struct sroce_net *sn)
{
	return atomic64_read(&sn->rx_drop_no_dev);
}

/* ---- pernet ---- */

static int __net_init sroce_net_pernet_init(struct net *net)
{
	struct sroce_net *sn = net_generic(net, sroce_net_id);

	sn->net = net;
	INIT_LIST_HEAD(&sn->devs);
	atomic64_set(&sn->rx_drop_no_dev, 0);
	return 0;
}

static bool sroce_net_idle(struct sroce_net *sn)
{
	return !READ_ONCE(sn->users);
}

static void __net_exit sroce_net_pernet_exit(struct net *net)
{
	struct sroce_net *sn = net_generic(net, sroce_net_id);

	/*
	 * The namespace's netdevs are gone and the unregistration of their
	 * devices is queued: wait for the last detach.  Taking the lock
	 * afterwards waits for that detach to leave its critical section.
	 */
	wait_event(sroce_net_idle_wq, sroce_net_idle(sn));
	mutex_lock(&sroce_net_lock);
	WARN_ON_ONCE(sn->sock4 || sn->sock6 || !list_empty(&sn->devs));
	mutex_unlock(&sroce_net_lock);
}

static struct pernet_operations sroce_net_ops = {
	.init = sroce_net_pernet_init,
	.exit = sroce_net_pernet_exit,
	.id = &sroce_net_id,
	.size = sizeof(struct sroce_net),
};

int sroce_net_init(void)
{
	/* A subsystem: its exit runs after the netdevs are unregistered. */
	return register_pernet_subsys(&sroce_net_ops);
}

void sroce_net_exit(void)
{
	unregister_pernet_subsys(&sroce_net_ops);
}
