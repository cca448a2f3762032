// SPDX-License-Identifier: GPL-2.0
/*
 * mcast.c - UD multicast groups (IBA 10.5, 11.3.6; RoCE v2 Annex A17.4.7).
 *
 * Each device has a table of groups (multicast GID -> attached QPs).
 * Attach and detach run in process context and serialise on the table's
 * mutex; the receive path (softirq) reads the table and the member lists
 * under RCU only.  Entries are unlinked with the _rcu list helpers and
 * freed with kfree_rcu().
 *
 * A member holds no QP reference but points at the QP's anchor (qp.h),
 * which destroy_qp frees with kfree_rcu() only after it has detached the
 * QP (ib_uverbs and ib_core detach before destroying anyway): a reader
 * that found a member may still try refcount_inc_not_zero() on the
 * anchor, and touches the QP only once that succeeded.
 *
 * IP side: a RoCE v2 multicast GID is an IP multicast address.  Every
 * attachment takes one reference on that IP group (ip_mc_inc_group() /
 * ipv6_dev_mc_inc(), refcounted by the IP stack, which also programs the
 * MAC filter) on the bound netdev and on every device above it (its VLANs,
 * a bond): ib_core makes the addresses of those upper devices GIDs of this
 * device too, and a packet to the group sent from such a GID, tagged,
 * arrives on the upper device, whose IP stack drops groups it has not
 * joined.  The member records which devices it joined (by ifindex), and
 * its detach leaves the group once per join on those that are still
 * above the bound netdev, allocating nothing; a VLAN added after the
 * attach is not joined.  This works in any
 * network namespace and without a socket of our own (a socket's
 * memberships are limited by igmp_max_memberships).  When a netdev goes
 * away its IP state goes with it; the later detaches find no in_device
 * (or no such upper device) and do nothing there.  Lock order: the IP
 * calls run under rtnl, which is never taken with the table's mutex held
 * (and the table's mutex never under rtnl).
 */
#include <linux/inetdevice.h>
#include <linux/igmp.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jhash.h>
#include <linux/rculist.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <rdma/ib_addr.h>

#include "counters.h"
#include "device.h"
#include "mcast.h"
#include "qp.h"
#include "recv.h"
#include "rxq.h"

#define SROCE_MCAST_HASH_BITS 8
#define SROCE_MCAST_BUCKETS BIT(SROCE_MCAST_HASH_BITS)

/* The total limit binds before every group is full (t-mcast tests it). */
static_assert(SROCE_MAX_MCAST_TOTAL_ATTACH <
	      SROCE_MAX_MCAST_GRP * SROCE_MAX_MCAST_QP_ATTACH);

/* One QP attached to a group. */
struct sroce_mcm {
	struct list_head node; /* in sroce_mcg.members (RCU) */
	/* The QP's count: no reference, see the top of the file. */
	struct sroce_qp_anchor *anchor;
	struct rcu_head rcu;
	/*
	 * Constant: the netdevs whose IP group this member joined, one entry
	 * a join; [0] is the bound netdev, the rest devices above it.
	 */
	unsigned int nif;
	int ifindex[]; /* nif of them */
};

/* A multicast group with at least one member. */
struct sroce_mcg {
	struct hlist_node node; /* in sroce_mcast.groups (RCU) */
	union ib_gid mgid; /* constant while the group is listed */
	struct list_head members; /* struct sroce_mcm.node (RCU) */
	unsigned int nmembers; /* guarded by sroce_mcast.lock */
	struct rcu_head rcu;
};

struct sroce_mcast {
	/*
	 * Guards every change to groups, each group's members and the
	 * counts below.  Process context only (attach, detach, destroy_qp,
	 * dealloc); readers in softirq use RCU instead.
	 */
	struct mutex lock;
	unsigned int ngroups; /* listed groups, <= SROCE_MAX_MCAST_GRP */
	unsigned int nattach; /* members of all groups, <= ..._TOTAL_ATTACH */
	struct hlist_head groups[SROCE_MCAST_BUCKETS];
};

/* ---- IP membership of the bound netdev ---- */

static bool sroce_gid_v4(const union ib_gid *gid, __be32 *addr)
{
	if (!ipv6_addr_v4mapped((const struct in6_addr *)gid->raw))
		return false;
	memcpy(addr, &gid->raw[12], sizeof(*addr));
	return true;
}

/* IP group of @gid on @dev: join (@join) or leave.  rtnl held. */
static int sroce_mcast_ip(struct net_device *dev, const union ib_gid *gid,
			  bool join)
{
	struct in_device *in_dev;
	__be32 addr;

	ASSERT_RTNL();

	if (sroce_gid_v4(gid, &addr)) {
		in_dev = __in_dev_get_rtnl(dev);
		/* None: the netdev's IP state is gone (being unregistered). */
		if (!in_dev)
			return -ENODEV;
		if (join)
			ip_mc_inc_group(in_dev, addr);
		else
			ip_mc_dec_group(in_dev, addr);
		return 0;
	}
#if IS_ENABLED(CONFIG_IPV6)
	if (join)
		return ipv6_dev_mc_inc(dev, (const struct in6_addr *)gid->raw);
	/* -ENODEV once the netdev's IPv6 state is gone: nothing to drop. */
	return ipv6_dev_mc_dec(dev, (const struct in6_addr *)gid->raw);
#else
	return -EAFNOSUPPORT;
#endif
}

/*
 * The bound netdev and every device above it in the same namespace, in
 * @devs (NULL: count).  An upper device moved to another namespace is not
 * the device's business: its addresses are not this device's GIDs there.
 */
struct sroce_mcast_ndevs {
	const struct net *net;
	struct net_device **devs;
	unsigned int n;
};

static int sroce_mcast_ndev_add(struct net_device *dev,
				struct netdev_nested_priv *priv)
{
	struct sroce_mcast_ndevs *nd = priv->data;

	if (!net_eq(dev_net(dev), nd->net))
		return 0;
	if (nd->devs)
		nd->devs[nd->n] = dev;
	nd->n++;
	return 0;
}

/*
 * The netdevs whose addresses can be GIDs of @sdev: the bound one first,
 * then its upper devices.  rtnl held (it keeps the list as it is); the
 * array is the caller's to kfree().  NULL when out of memory.
 */
static struct net_device **sroce_mcast_ndevs(struct sroce_dev *sdev,
					     unsigned int *n)
{
	struct sroce_mcast_ndevs nd = { .net = dev_net(sdev->ndev) };
	struct netdev_nested_priv priv = { .data = &nd };

	ASSERT_RTNL();

	rcu_read_lock();
	netdev_walk_all_upper_dev_rcu(sdev->ndev, sroce_mcast_ndev_add, &priv);
	rcu_read_unlock();
	nd.devs = kcalloc(nd.n + 1, sizeof(*nd.devs), GFP_KERNEL);
	if (!nd.devs)
		return NULL;
	nd.devs[0] = sdev->ndev;
	nd.n = 1;
	rcu_read_lock();
	netdev_walk_all_upper_dev_rcu(sdev->ndev, sroce_mcast_ndev_add, &priv);
	rcu_read_unlock();
	*n = nd.n;
	return nd.devs;
}

/*
 * A member for @gid that has joined its IP group on the bound netdev (or
 * an error) and on each upper device that would let it.
 */
static struct sroce_mcm *sroce_mcast_ip_join(struct sroce_dev *sdev,
					     const union ib_gid *gid)
{
	struct sroce_mcm *mcm = ERR_PTR(-ENOMEM);
	struct net_device **devs;
	unsigned int n, i;
	int err;

	rtnl_lock();
	devs = sroce_mcast_ndevs(sdev, &n);
	if (!devs)
		goto out;
	mcm = kzalloc(struct_size(mcm, ifindex, n), GFP_KERNEL);
	if (!mcm) {
		mcm = ERR_PTR(-ENOMEM);
		goto out;
	}
	for (i = 0; i < n; i++) {
		err = sroce_mcast_ip(devs[i], gid, true);
		if (!err)
			mcm->ifindex[mcm->nif++] = devs[i]->ifindex;
		else if (!i)
			break; /* not even on the bound netdev: fail */
	}
	if (!mcm->nif) {
		kfree(mcm);
		mcm = ERR_PTR(err);
	}
out:
	rtnl_unlock();
	kfree(devs);
	return mcm;
}

/* An upper device of the bound netdev, by ifindex. */
struct sroce_mcast_find {
	const struct net *net; /* the bound netdev's; ifindex is per namespace */
	int ifindex;
	struct net_device *dev; /* NULL: not (or no longer) above */
};

static int sroce_mcast_ndev_match(struct net_device *dev,
				  struct netdev_nested_priv *priv)
{
	struct sroce_mcast_find *f = priv->data;

	if (dev->ifindex != f->ifindex || !net_eq(dev_net(dev), f->net))
		return 0;
	f->dev = dev;
	return 1; /* stop the walk */
}

/*
 * Leave the IP group @gid once for each join recorded in @mcm, on the
 * devices still there: ifindex[0] is the bound netdev, the others upper
 * devices, looked for among those still above it.  No allocation: a
 * detach cannot fail.  rtnl keeps a device found under RCU alive.
 */
static void sroce_mcast_ip_leave(struct sroce_dev *sdev,
				 const union ib_gid *gid,
				 const struct sroce_mcm *mcm)
{
	struct sroce_mcast_find f = { .net = dev_net(sdev->ndev) };
	struct netdev_nested_priv priv = { .data = &f };
	unsigned int j;

	rtnl_lock();
	sroce_mcast_ip(sdev->ndev, gid, false);
	for (j = 1; j < mcm->nif; j++) {
		f.ifindex = mcm->ifindex[j];
		f.dev = NULL;
		rcu_read_lock();
		netdev_walk_all_upper_dev_rcu(sdev->ndev,
					      sroce_mcast_ndev_match, &priv);
		rcu_read_unlock();
		if (f.dev)
			sroce_mcast_ip(f.dev, gid, false);
	}
	rtnl_unlock();
}

/* ---- the table ---- */

static struct hlist_head *sroce_mcast_bucket(struct sroce_mcast *m,
					     const union ib_gid *gid)
{
	u32 h = jhash(gid->raw, sizeof(gid->raw), 0);

	return &m->groups[h & (SROCE_MCAST_BUCKETS - 1)];
}

/* Lookup for the receive path: RCU read side held. */
static struct sroce_mcg *sroce_mcg_find_rcu(struct sroce_mcast *m,
					    const union ib_gid *gid)
{
	struct sroce_mcg *g;

	hlist_for_each_entry_rcu(g, sroce_mcast_bucket(m, gid), node)
		if (!memcmp(g->mgid.raw, gid->raw, sizeof(gid->raw)))
			return g;
	return NULL;
}

static struct sroce_mcg *sroce_mcg_find_locked(struct sroce_mcast *m,
					       const union ib_gid *gid)
{
	struct sroce_mcg *g;

	lockdep_assert_held(&m->lock);

	hlist_for_each_entry(g, sroce_mcast_bucket(m, gid), node)
		if (!memcmp(g->mgid.raw, gid->raw, sizeof(gid->raw)))
			return g;
	return NULL;
}

static struct sroce_mcm *sroce_mcm_find_locked(struct sroce_mcast *m,
					       struct sroce_mcg *g,
					       const struct sroce_qp *qp)
{
	struct sroce_mcm *mcm;

	lockdep_assert_held(&m->lock);

	list_for_each_entry(mcm, &g->members, node)
		if (mcm->anchor == qp->anchor)
			return mcm;
	return NULL;
}

/*
 * Unlink a member, and its group when that was the last member.  The
 * caller leaves the member's IP groups and then frees it with kfree_rcu().
 */
static void sroce_mcm_remove_locked(struct sroce_mcast *m, struct sroce_mcg *g,
				    struct sroce_mcm *mcm)
{
	lockdep_assert_held(&m->lock);

	list_del_rcu(&mcm->node);
	g->nmembers--;
	m->nattach--;
	if (g->nmembers)
		return;
	hlist_del_rcu(&g->node);
	kfree_rcu(g, rcu);
	m->ngroups--;
}

/*
 * Room for one more member of @g (NULL: a new group)?  IBA 11.3.6 limits:
 * max_mcast_grp, max_mcast_qp_attach, max_total_mcast_qp_attach.
 */
static int sroce_mcast_room_locked(struct sroce_mcast *m,
				   const struct sroce_mcg *g)
{
	lockdep_assert_held(&m->lock);

	if (m->nattach >= SROCE_MAX_MCAST_TOTAL_ATTACH)
		return -ENOMEM;
	if (!g)
		return m->ngroups < SROCE_MAX_MCAST_GRP ? 0 : -ENOMEM;
	return g->nmembers < SROCE_MAX_MCAST_QP_ATTACH ? 0 : -ENOMEM;
}

/* ---- verbs ---- */

/* Only UD QPs join groups (IBA 10.5.2.2), only multicast GIDs name them. */
static int sroce_mcast_check(struct ib_qp *ibqp, union ib_gid *gid)
{
	if (ibqp->qp_type != IB_QPT_UD)
		return -EINVAL;
	if (!rdma_is_multicast_addr((struct in6_addr *)gid->raw))
		return -EINVAL;
	return 0;
}

/*
 * Attach @qp to the group @gid.  Attaching a QP twice is not an error and
 * changes nothing (ib_uverbs already answers a repeated attach itself).
 */
static int sroce_mcast_add(struct sroce_mcast *m, struct sroce_qp *qp,
			   const union ib_gid *gid, struct sroce_mcm *mcm,
			   struct sroce_mcg **newg)
{
	struct sroce_mcg *g;
	int err;

	mutex_lock(&m->lock);
	g = sroce_mcg_find_locked(m, gid);
	if (g && sroce_mcm_find_locked(m, g, qp)) {
		err = -EEXIST;
		goto out;
	}
	err = sroce_mcast_room_locked(m, g);
	if (err)
		goto out;
	if (!g) {
		/* Complete before readers can see it. */
		g = *newg;
		*newg = NULL;
		g->mgid = *gid;
		INIT_LIST_HEAD(&g->members);
		hlist_add_head_rcu(&g->node, sroce_mcast_bucket(m, gid));
		m->ngroups++;
	}
	mcm->anchor = qp->anchor;
	list_add_tail_rcu(&mcm->node, &g->members);
	g->nmembers++;
	m->nattach++;
out:
	mutex_unlock(&m->lock);
	return err;
}

int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_dev *sdev = qp->sdev;
	struct sroce_mcg *newg;
	struct sroce_mcm *mcm;
	int err;

	/* RoCE has no LIDs: @lid is ignored (ib_core passes 0 or 0xffff). */
	err = sroce_mcast_check(ibqp, gid);
	if (err)
		return err;
	newg = kzalloc(sizeof(*newg), GFP_KERNEL);
	if (!newg)
		return -ENOMEM;
	/* Join the IP group first: every listed member holds its joins. */
	mcm = sroce_mcast_ip_join(sdev, gid);
	if (IS_ERR(mcm)) {
		err = PTR_ERR(mcm);
		goto out_free;
	}
	err = sroce_mcast_add(sdev->mcast, qp, gid, mcm, &newg);
	if (!err) {
		kfree(newg);
		return 0;
	}
	sroce_mcast_ip_leave(sdev, gid, mcm);
	kfree(mcm);
	if (err == -EEXIST)
		err = 0;
out_free:
	kfree(newg);
	return err;
}

int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_dev *sdev = qp->sdev;
	struct sroce_mcast *m = sdev->mcast;
	struct sroce_mcm *mcm = NULL;
	struct sroce_mcg *g;

	if (sroce_mcast_check(ibqp, gid))
		return -EINVAL;

	mutex_lock(&m->lock);
	g = sroce_mcg_find_locked(m, gid);
	if (g)
		mcm = sroce_mcm_find_locked(m, g, qp);
	if (mcm)
		sroce_mcm_remove_locked(m, g, mcm);
	mutex_unlock(&m->lock);
	if (!mcm)
		return -EINVAL; /* not attached */

	sroce_mcast_ip_leave(sdev, gid, mcm);
	kfree_rcu(mcm, rcu);
	return 0;
}

/*
 * Unlink one membership of @qp (any group) and return it; copies the
 * group's GID to @gid.  NULL when @qp is attached nowhere.
 */
static struct sroce_mcm *sroce_mcast_detach_any(struct sroce_mcast *m,
						struct sroce_qp *qp,
						union ib_gid *gid)
{
	struct sroce_mcm *mcm;
	struct sroce_mcg *g;
	unsigned int b;

	lockdep_assert_held(&m->lock);

	if (!m->nattach)
		return NULL;
	for (b = 0; b < SROCE_MCAST_BUCKETS; b++) {
		hlist_for_each_entry(g, &m->groups[b], node) {
			mcm = sroce_mcm_find_locked(m, g, qp);
			if (!mcm)
				continue;
			*gid = g->mgid;
			sroce_mcm_remove_locked(m, g, mcm);
			return mcm;
		}
	}
	return NULL;
}

void sroce_mcast_qp_destroy(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = qp->sdev;
	struct sroce_mcast *m = sdev->mcast;
	struct sroce_mcm *mcm;
	union ib_gid gid;

	if (qp->ibqp.qp_type != IB_QPT_UD)
		return;
	do {
		mutex_lock(&m->lock);
		mcm = sroce_mcast_detach_any(m, qp, &gid);
		mutex_unlock(&m->lock);
		if (mcm) {
			sroce_mcast_ip_leave(sdev, &gid, mcm);
			kfree_rcu(mcm, rcu);
		}
	} while (mcm);
}

/* ---- receive ---- */

/*
 * The multicast GID a packet is addressed to: its IP destination as a
 * RoCE v2 GID.  False when that is not a multicast address.
 */
static bool sroce_mcast_dgid(struct sk_buff *skb, union ib_gid *gid)
{
	if (SROCE_RX_CB(skb)->ntype == RDMA_NETWORK_IPV4) {
		__be32 daddr = ip_hdr(skb)->daddr;

		if (!ipv4_is_multicast(daddr))
			return false;
		ipv6_addr_set_v4mapped(daddr, (struct in6_addr *)gid->raw);
		return true;
	}
	memcpy(gid->raw, &ipv6_hdr(skb)->daddr, sizeof(gid->raw));
	return ipv6_addr_is_multicast((struct in6_addr *)gid->raw);
}

/* Hand a copy of @skb to @qp, whose reference the caller passes on. */
static void sroce_mcast_give(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_dev *sdev = qp->sdev;

	if (likely(skb)) {
		sroce_counter_inc(sdev, SROCE_CNT_RX_MCAST_PKTS);
		sroce_rxq_deliver(qp, skb);
	} else {
		sroce_counter_inc(sdev, SROCE_CNT_RX_DROP_MCAST_NOMEM);
	}
	sroce_qp_put(qp);
}

enum sroce_counter sroce_mcast_recv(struct sroce_dev *sdev, struct sk_buff *skb)
{
	struct sroce_qp *qp, *prev = NULL;
	struct sroce_qp_anchor *a;
	struct sroce_mcm *mcm;
	struct sroce_mcg *g;
	union ib_gid gid;

	/* DestQP 0xFFFFFF to a unicast address names no QP. */
	if (unlikely(!sroce_mcast_dgid(skb, &gid)))
		return SROCE_CNT_RX_DROP_NO_QP;
	g = sroce_mcg_find_rcu(sdev->mcast, &gid);
	if (unlikely(!g))
		return SROCE_CNT_RX_DROP_NO_MCAST_GROUP;

	/* Each receiving member but the last gets a clone. */
	list_for_each_entry_rcu(mcm, &g->members, node) {
		/* The QP may be gone: nothing but the anchor before this. */
		a = mcm->anchor;
		if (!refcount_inc_not_zero(&a->ref))
			continue;
		qp = a->qp;
		if (!sroce_recv_state_ok(READ_ONCE(qp->state))) {
			sroce_qp_put(qp);
			continue;
		}
		if (prev)
			sroce_mcast_give(prev, skb_clone(skb, GFP_ATOMIC));
		prev = qp;
	}
	if (unlikely(!prev))
		return SROCE_CNT_RX_DROP_QP_STATE;
	sroce_mcast_give(prev, skb);
	return SROCE_CNT_MAX;
}

/* ---- device ---- */

int sroce_mcast_dev_init(struct sroce_dev *sdev)
{
	struct sroce_mcast *m;
	unsigned int b;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	mutex_init(&m->lock);
	for (b = 0; b < SROCE_MCAST_BUCKETS; b++)
		INIT_HLIST_HEAD(&m->groups[b]);
	sdev->mcast = m;
	return 0;
}

/*
 * dealloc_driver: every QP is destroyed, so every group is gone; the
 * receive path no longer finds the device (net detach waited for RCU).
 */
void sroce_mcast_dev_fini(struct sroce_dev *sdev)
{
	struct sroce_mcast *m = sdev->mcast;

	if (!m)
		return;
	WARN_ON_ONCE(m->nattach || m->ngroups);
	mutex_destroy(&m->lock);
	kfree(m);
	sdev->mcast = NULL;
}
