// SPDX-License-Identifier: GPL-2.0
/*
 * mcast.c - UD multicast groups (IBA 10.5, 11.3.6; RoCE v2 Annex A17.4.7).
 *
 * Each device has a table of groups (multicast GID -> attached QPs).
 * Attach, detach, destroy_qp and the netdev notifier run in process
 * context and serialise on rtnl and then the table's mutex; the receive
 * path (softirq) reads the table and the member lists under RCU only.
 * Entries are unlinked with the _rcu list helpers and freed with
 * kfree_rcu().
 *
 * A member holds no QP reference but points at the QP's anchor (qp.h),
 * which destroy_qp frees with kfree_rcu() only after it has detached the
 * QP (ib_uverbs and ib_core detach before destroying anyway): a reader
 * that found a member may still try refcount_inc_not_zero() on the
 * anchor, and touches the QP only once that succeeded.
 *
 * IP side: a RoCE v2 multicast GID is an IP multicast address.  Every
 * group takes one reference on that IP group (ip_mc_inc_group() /
 * ipv6_dev_mc_inc(), refcounted by the IP stack, which also programs the
 * MAC filter) on the bound netdev and on every device above it in its
 * namespace (its VLANs, a bond): ib_core makes the addresses of those
 * upper devices GIDs of this device too, and a packet to the group sent
 * from such a GID, tagged, arrives on the upper device, whose IP stack
 * drops groups it has not joined.  The join on the bound netdev must
 * succeed for the attach to; a failed join on an upper device is counted
 * (mcast_upper_join_err) and the attach goes on.  The group records each
 * upper device it joined (struct sroce_mcj, holding a netdev reference)
 * and the netdev notifier keeps that set equal to the devices above the
 * bound netdev (sroce_mcast_netdev_event()): a device that becomes an
 * upper (a VLAN created, a bond enslaving the netdev, a device moved into
 * the namespace) is joined, one that stops being one (unlinked,
 * unregistered, moved out) is left and its reference dropped, so no
 * reference of ours ever holds up an unregistration.  When the bound
 * netdev goes away its IP state goes with it; the later detaches find no
 * in_device and do nothing there.  This works in any network namespace
 * and without a socket of our own (a socket's memberships are limited by
 * igmp_max_memberships).
 *
 * Lock order: rtnl -> sroce_dev_lock (device.c, the notifier) -> the
 * table's mutex.  Every change to the table takes rtnl first, since
 * groups join and leave IP groups as they appear and go.
 */
#include <linux/inetdevice.h>
#include <linux/igmp.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jhash.h>
#include <linux/netdevice.h>
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
};

/* The IP group of a group joined on one device above the bound netdev. */
struct sroce_mcj {
	struct list_head node; /* in sroce_mcg.joins */
	struct net_device *dev; /* held until the join is left */
	netdevice_tracker tracker;
};

/* A multicast group with at least one member. */
struct sroce_mcg {
	struct hlist_node node; /* in sroce_mcast.groups (RCU) */
	union ib_gid mgid; /* constant while the group is listed */
	struct list_head members; /* struct sroce_mcm.node (RCU) */
	unsigned int nmembers; /* guarded by sroce_mcast.lock */
	/*
	 * struct sroce_mcj.node: the upper devices whose IP group this group
	 * joined (the bound netdev's is implied); guarded by sroce_mcast.lock
	 * and changed with rtnl held too.  Never read by the receive path.
	 */
	struct list_head joins;
	struct rcu_head rcu;
};

struct sroce_mcast {
	/*
	 * Guards every change to groups, each group's members and joins and
	 * the counts below.  Process context only, always taken under rtnl
	 * (attach, detach, destroy_qp, the netdev notifier); readers in
	 * softirq use RCU instead.
	 */
	struct mutex lock;
	unsigned int ngroups; /* listed groups, <= attr.max_mcast_grp */
	unsigned int nattach; /* members of all groups, <= attr.max_total_... */
	struct hlist_head groups[SROCE_MCAST_BUCKETS];
};

/* ---- IP membership of the bound netdev and its upper devices ---- */

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
 * The devices above the bound netdev in its namespace, but @gone and any
 * being unregistered, in @devs (NULL: count).  An upper device in another namespace is not the
 * device's business: its addresses are not this device's GIDs there.
 */
struct sroce_mcast_ndevs {
	const struct net *net;
	const struct net_device *gone;
	struct net_device **devs;
	unsigned int n;
	unsigned int max;
};

static int sroce_mcast_ndev_add(struct net_device *dev,
				struct netdev_nested_priv *priv)
{
	struct sroce_mcast_ndevs *nd = priv->data;

	/* Never hold a reference on a device on its way out. */
	if (dev == nd->gone || dev->reg_state != NETREG_REGISTERED ||
	    !net_eq(dev_net(dev), nd->net))
		return 0;
	if (nd->devs && nd->n < nd->max)
		nd->devs[nd->n] = dev;
	nd->n++;
	return 0;
}

/*
 * The upper devices of @sdev's netdev but @gone, as an array for the
 * caller to kfree() (ZERO_SIZE_PTR when there are none), NULL when out of
 * memory.  rtnl held: it keeps the set as it is.
 */
static struct net_device **sroce_mcast_uppers(struct sroce_dev *sdev,
					      const struct net_device *gone,
					      unsigned int *n)
{
	struct sroce_mcast_ndevs nd = { .net = dev_net(sdev->ndev),
					.gone = gone };
	struct netdev_nested_priv priv = { .data = &nd };

	ASSERT_RTNL();

	rcu_read_lock();
	netdev_walk_all_upper_dev_rcu(sdev->ndev, sroce_mcast_ndev_add, &priv);
	rcu_read_unlock();
	nd.devs = kcalloc(nd.n, sizeof(*nd.devs), GFP_KERNEL);
	if (!nd.devs)
		return NULL;
	nd.max = nd.n;
	nd.n = 0;
	rcu_read_lock();
	netdev_walk_all_upper_dev_rcu(sdev->ndev, sroce_mcast_ndev_add, &priv);
	rcu_read_unlock();
	*n = min(nd.n, nd.max);
	return nd.devs;
}

/* Join @g's IP group on the upper device @dev; failures are counted. */
static void sroce_mcg_join(struct sroce_dev *sdev, struct sroce_mcg *g,
			   struct net_device *dev)
{
	struct sroce_mcj *j;

	lockdep_assert_held(&sdev->mcast->lock);

	j = kzalloc(sizeof(*j), GFP_KERNEL);
	if (!j || sroce_mcast_ip(dev, &g->mgid, true)) {
		kfree(j);
		sroce_counter_inc(sdev, SROCE_CNT_MCAST_UPPER_JOIN_ERR);
		return;
	}
	j->dev = dev;
	netdev_hold(dev, &j->tracker, GFP_KERNEL);
	list_add_tail(&j->node, &g->joins);
}

/* Leave the IP group of one join (if @dev still has IP state). */
static void sroce_mcg_leave(struct sroce_dev *sdev, struct sroce_mcg *g,
			    struct sroce_mcj *j)
{
	lockdep_assert_held(&sdev->mcast->lock);

	sroce_mcast_ip(j->dev, &g->mgid, false);
	list_del(&j->node);
	netdev_put(j->dev, &j->tracker);
	kfree(j);
}

static bool sroce_mcast_in(struct net_device *const *devs, unsigned int n,
			   const struct net_device *dev)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (devs[i] == dev)
			return true;
	return false;
}

/*
 * Make @g's joins those of @devs (n of them; NULL: only leave @gone):
 * leave the devices no longer above the bound netdev, join the new ones.
 */
static void sroce_mcg_sync(struct sroce_dev *sdev, struct sroce_mcg *g,
			   struct net_device *const *devs, unsigned int n,
			   const struct net_device *gone)
{
	struct sroce_mcj *j, *tmp;
	unsigned int i;
	bool found;

	lockdep_assert_held(&sdev->mcast->lock);

	list_for_each_entry_safe(j, tmp, &g->joins, node)
		if (j->dev == gone ||
		    (devs && !sroce_mcast_in(devs, n, j->dev)))
			sroce_mcg_leave(sdev, g, j);
	if (!devs)
		return;
	for (i = 0; i < n; i++) {
		found = false;
		list_for_each_entry(j, &g->joins, node)
			found |= j->dev == devs[i];
		if (!found)
			sroce_mcg_join(sdev, g, devs[i]);
	}
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
 * Unlink a member, and its group when that was the last member: the group
 * then leaves its IP groups.  The caller frees the member with kfree_rcu().
 */
static void sroce_mcm_remove_locked(struct sroce_dev *sdev, struct sroce_mcg *g,
				    struct sroce_mcm *mcm)
{
	struct sroce_mcast *m = sdev->mcast;

	lockdep_assert_held(&m->lock);
	ASSERT_RTNL();

	list_del_rcu(&mcm->node);
	g->nmembers--;
	WRITE_ONCE(m->nattach, m->nattach - 1);
	if (g->nmembers)
		return;
	hlist_del_rcu(&g->node);
	m->ngroups--;
	/* An empty set of upper devices: leave every join. */
	sroce_mcg_sync(sdev, g, ZERO_SIZE_PTR, 0, NULL);
	sroce_mcast_ip(sdev->ndev, &g->mgid, false);
	kfree_rcu(g, rcu);
}

/*
 * Room for one more member of @g (NULL: a new group)?  IBA 11.3.6 limits:
 * max_mcast_grp, max_mcast_qp_attach, max_total_mcast_qp_attach.
 */
static int sroce_mcast_room_locked(const struct sroce_dev *sdev,
				   const struct sroce_mcg *g)
{
	const struct ib_device_attr *a = &sdev->attr;
	const struct sroce_mcast *m = sdev->mcast;

	lockdep_assert_held(&m->lock);

	if (m->nattach >= a->max_total_mcast_qp_attach)
		return -ENOMEM;
	if (!g)
		return m->ngroups < a->max_mcast_grp ? 0 : -ENOMEM;
	return g->nmembers < a->max_mcast_qp_attach ? 0 : -ENOMEM;
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
 * A new group for @gid in @g (allocated by the caller): its IP group
 * joined on the bound netdev (or an error) and on the upper devices, then
 * listed, complete before readers can see it.
 */
static int sroce_mcg_open_locked(struct sroce_dev *sdev, struct sroce_mcg *g,
				 const union ib_gid *gid)
{
	struct sroce_mcast *m = sdev->mcast;
	struct net_device **devs;
	unsigned int n = 0;
	int err;

	lockdep_assert_held(&m->lock);

	err = sroce_mcast_ip(sdev->ndev, gid, true);
	if (err)
		return err;
	g->mgid = *gid;
	INIT_LIST_HEAD(&g->members);
	INIT_LIST_HEAD(&g->joins);
	devs = sroce_mcast_uppers(sdev, NULL, &n);
	if (devs)
		sroce_mcg_sync(sdev, g, devs, n, NULL);
	else
		sroce_counter_inc(sdev, SROCE_CNT_MCAST_UPPER_JOIN_ERR);
	kfree(devs);
	hlist_add_head_rcu(&g->node, sroce_mcast_bucket(m, gid));
	m->ngroups++;
	return 0;
}

/*
 * Attach @qp to the group @gid.  Attaching a QP twice is not an error and
 * changes nothing (ib_uverbs already answers a repeated attach itself).
 */
static int sroce_mcast_add(struct sroce_dev *sdev, struct sroce_qp *qp,
			   const union ib_gid *gid, struct sroce_mcm *mcm,
			   struct sroce_mcg **newg)
{
	struct sroce_mcast *m = sdev->mcast;
	struct sroce_mcg *g;
	int err;

	lockdep_assert_held(&m->lock);

	g = sroce_mcg_find_locked(m, gid);
	if (g && sroce_mcm_find_locked(m, g, qp))
		return -EEXIST;
	err = sroce_mcast_room_locked(sdev, g);
	if (err)
		return err;
	if (!g) {
		err = sroce_mcg_open_locked(sdev, *newg, gid);
		if (err)
			return err;
		g = *newg;
		*newg = NULL;
	}
	mcm->anchor = qp->anchor;
	list_add_tail_rcu(&mcm->node, &g->members);
	g->nmembers++;
	WRITE_ONCE(m->nattach, m->nattach + 1);
	return 0;
}

int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_dev *sdev = qp->sdev;
	struct sroce_mcast *m = sdev->mcast;
	struct sroce_mcg *newg;
	struct sroce_mcm *mcm;
	int err;

	/* RoCE has no LIDs: @lid is ignored (ib_core passes 0 or 0xffff). */
	err = sroce_mcast_check(ibqp, gid);
	if (err)
		return err;
	newg = kzalloc(sizeof(*newg), GFP_KERNEL);
	mcm = kzalloc(sizeof(*mcm), GFP_KERNEL);
	if (!newg || !mcm) {
		err = -ENOMEM;
		goto out_free;
	}
	rtnl_lock();
	mutex_lock(&m->lock);
	err = sroce_mcast_add(sdev, qp, gid, mcm, &newg);
	mutex_unlock(&m->lock);
	rtnl_unlock();
	if (!err)
		mcm = NULL;
	else if (err == -EEXIST)
		err = 0;
out_free:
	kfree(mcm);
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

	rtnl_lock();
	mutex_lock(&m->lock);
	g = sroce_mcg_find_locked(m, gid);
	if (g)
		mcm = sroce_mcm_find_locked(m, g, qp);
	if (mcm)
		sroce_mcm_remove_locked(sdev, g, mcm);
	mutex_unlock(&m->lock);
	rtnl_unlock();
	if (!mcm)
		return -EINVAL; /* not attached */
	kfree_rcu(mcm, rcu);
	return 0;
}

/* Unlink one membership of @qp (any group) and return it; NULL if none. */
static struct sroce_mcm *sroce_mcast_detach_any(struct sroce_dev *sdev,
						struct sroce_qp *qp)
{
	struct sroce_mcast *m = sdev->mcast;
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
			sroce_mcm_remove_locked(sdev, g, mcm);
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

	/*
	 * The QP's own members cannot change now (ib_core serialises
	 * attach and detach with destroy): if there were any, nattach
	 * shows it, and no destroy takes rtnl for nothing.
	 */
	if (qp->ibqp.qp_type != IB_QPT_UD || !READ_ONCE(m->nattach))
		return;
	rtnl_lock();
	mutex_lock(&m->lock);
	while ((mcm = sroce_mcast_detach_any(sdev, qp)))
		kfree_rcu(mcm, rcu);
	mutex_unlock(&m->lock);
	rtnl_unlock();
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
 * The notifier may still find the device listed: it sees NULL (rtnl).
 */
void sroce_mcast_dev_fini(struct sroce_dev *sdev)
{
	struct sroce_mcast *m = sdev->mcast;

	if (!m)
		return;
	WARN_ON_ONCE(m->nattach || m->ngroups);
	rtnl_lock();
	sdev->mcast = NULL;
	rtnl_unlock();
	mutex_destroy(&m->lock);
	kfree(m);
}

/* Does any group of @m hold a join on @dev? */
static bool sroce_mcast_holds_locked(struct sroce_mcast *m,
				     const struct net_device *dev)
{
	struct sroce_mcg *g;
	struct sroce_mcj *j;
	unsigned int b;

	lockdep_assert_held(&m->lock);

	for (b = 0; b < SROCE_MCAST_BUCKETS; b++)
		hlist_for_each_entry(g, &m->groups[b], node)
			list_for_each_entry(j, &g->joins, node)
				if (j->dev == dev)
					return true;
	return false;
}

/* Could @event on @dev change the set of devices above @sdev's netdev? */
static bool sroce_mcast_event_matters(struct sroce_dev *sdev,
				      unsigned long event,
				      struct net_device *dev)
{
	bool above;

	lockdep_assert_held(&sdev->mcast->lock);

	if (event == NETDEV_UNREGISTER)
		return sroce_mcast_holds_locked(sdev->mcast, dev);
	/*
	 * CHANGEUPPER names the lower device: a link or unlink at or
	 * above the bound netdev changes what is above it.  REGISTER: a
	 * device (re)appears in a namespace with its links, e.g. a VLAN
	 * moved back in.
	 */
	if (event == NETDEV_CHANGEUPPER && dev == sdev->ndev)
		return true;
	rcu_read_lock();
	above = netdev_has_upper_dev_all_rcu(sdev->ndev, dev);
	rcu_read_unlock();
	return above;
}

void sroce_mcast_netdev_event(struct sroce_dev *sdev, unsigned long event,
			      struct net_device *dev)
{
	struct sroce_mcast *m = sdev->mcast;
	struct net_device *gone = NULL;
	struct net_device **devs;
	struct sroce_mcg *g;
	unsigned int n = 0;
	unsigned int b;

	ASSERT_RTNL();

	if (!m || (dev == sdev->ndev && event != NETDEV_CHANGEUPPER))
		return;
	mutex_lock(&m->lock);
	if (!m->ngroups || !sroce_mcast_event_matters(sdev, event, dev))
		goto out;
	/* Unregistering (or leaving the namespace): drop it even if linked. */
	if (event == NETDEV_UNREGISTER)
		gone = dev;
	devs = sroce_mcast_uppers(sdev, gone, &n);
	if (!devs)
		sroce_counter_inc(sdev, SROCE_CNT_MCAST_UPPER_JOIN_ERR);
	for (b = 0; b < SROCE_MCAST_BUCKETS; b++)
		hlist_for_each_entry(g, &m->groups[b], node)
			sroce_mcg_sync(sdev, g, devs, n, gone);
	kfree(devs);
out:
	mutex_unlock(&m->lock);
}
