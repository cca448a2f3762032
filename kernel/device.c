// SPDX-License-Identifier: GPL-2.0
/*
 * device.c - one sroce ib_device bound to one Ethernet netdev.
 *
 * Lifetime of a device:
 *
 *   rdma link add (newlink)  -> allocated, listed, attached to the 4791
 *                               sockets of its namespace, registered
 *   rdma link del, NETDEV_UNREGISTER, module unload
 *                            -> ib_unregister_device*() -> dealloc_driver
 *   dealloc_driver           -> detached, unlisted, references dropped;
 *                               ib_core frees the memory
 *
 * Contexts: newlink runs in the nldev netlink handler without rtnl (it
 * takes rtnl itself to bind the netdev); the netdev notifier runs with rtnl
 * held; dealloc_driver runs in process context without rtnl (nldev dellink,
 * ib_core's unregistration work or module unload).
 *
 * Lock order: rtnl -> sroce_dev_lock -> sroce_net_lock (net.c) and
 * port_lock innermost; ib_core's unregistration_lock (held around
 * dealloc_driver) -> sroce_dev_lock; newlink holds sroce_dev_lock while it
 * creates the ecn/ kobjects.
 */
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/if_arp.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/ib_mad.h>
#include <rdma/rdma_netlink.h>
#include <rdma/sroce-abi.h>

#include "compat/compat.h"
#include "cc.h"
#include "cc_sysfs.h"
#include "counters.h"
#include "device.h"
#include "limits.h"
#include "mad.h"
#include "restrack.h"
#include "testhook.h"
#include "pkt.h"
#include "fr.h"
#include "mcast.h"
#include "net.h"
#include "pfc.h"
#include "req.h"
#include "rxq.h"
#include "sysfs.h"
#include "verbs.h"

/* Every sroce device from newlink until the end of its dealloc_driver. */
static LIST_HEAD(sroce_dev_list);
/* Guards sroce_dev_list and sroce_dev.ndev_gone.  Taken after rtnl. */
static DEFINE_MUTEX(sroce_dev_lock);

/*
 * Bytes of a RoCE v2 packet around the RDMA payload in the worst case:
 * IPv6 header (40), UDP header (8), BTH (12), the largest extension header
 * (AtomicETH, 28) and the ICRC (4).  The path MTU must fit in the netdev
 * MTU less this (RoCE v2, IBA Annex A17).
 */
#define SROCE_ROCE_OVERHEAD (40 + 8 + 12 + 28 + 4)

/* Vendor OUI: none (0xffffff is not an assignable OUI). */
#define SROCE_VENDOR_ID 0xffffff

/* ---- port attributes ---- */

static enum ib_mtu sroce_mtu_of(const struct net_device *ndev)
{
	return ib_mtu_int_to_enum((int)ndev->mtu - SROCE_ROCE_OVERHEAD);
}

/* IB speed and width closest below an Ethernet speed in Mb/s. */
static void sroce_speed_of(u32 mbps, u16 *speed, u8 *width)
{
	static const struct {
		u32 mbps;
		u16 speed;
		u8 width;
	} map[] = {
		{ 200000, IB_SPEED_HDR, IB_WIDTH_4X },
		{ 100000, IB_SPEED_EDR, IB_WIDTH_4X },
		{ 50000, IB_SPEED_HDR, IB_WIDTH_1X },
		{ 40000, IB_SPEED_QDR, IB_WIDTH_4X },
		{ 25000, IB_SPEED_EDR, IB_WIDTH_1X },
		{ 14000, IB_SPEED_FDR, IB_WIDTH_1X },
		{ 10000, IB_SPEED_QDR, IB_WIDTH_1X },
		{ 5000, IB_SPEED_DDR, IB_WIDTH_1X },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(map); i++) {
		if (mbps != (u32)SPEED_UNKNOWN && mbps >= map[i].mbps) {
			*speed = map[i].speed;
			*width = map[i].width;
			return;
		}
	}
	*speed = IB_SPEED_SDR;
	*width = IB_WIDTH_1X;
}

/*
 * Recompute the port attributes from the netdev.  Returns true when the
 * logical state changed.  rtnl keeps the netdev state stable and is needed
 * by the ethtool query.
 */
static bool sroce_port_update(struct sroce_dev *sdev)
{
	struct net_device *ndev = sdev->ndev;
	struct ethtool_link_ksettings ks;
	enum ib_port_phys_state phys;
	enum ib_port_state state;
	unsigned long flags;
	u32 mbps = SPEED_UNKNOWN;
	bool changed;
	u16 speed;
	u8 width;

	ASSERT_RTNL();

	if (!netif_running(ndev)) {
		state = IB_PORT_DOWN;
		phys = IB_PORT_PHYS_STATE_DISABLED;
	} else if (!netif_carrier_ok(ndev)) {
		state = IB_PORT_DOWN;
		phys = IB_PORT_PHYS_STATE_POLLING;
	} else {
		state = IB_PORT_ACTIVE;
		phys = IB_PORT_PHYS_STATE_LINK_UP;
	}
	if (!__ethtool_get_link_ksettings(ndev, &ks))
		mbps = ks.base.speed;
	sroce_speed_of(mbps, &speed, &width);
	sroce_pfc_set_speed(sdev, mbps, false);

	spin_lock_irqsave(&sdev->port_lock, flags);
	changed = sdev->port_state != state;
	sdev->port_state = state;
	sdev->phys_state = phys;
	sdev->active_mtu = sroce_mtu_of(ndev);
	sdev->active_speed = speed;
	sdev->active_width = width;
	spin_unlock_irqrestore(&sdev->port_lock, flags);

	return changed;
}

enum ib_mtu sroce_dev_active_mtu(struct sroce_dev *sdev)
{
	unsigned long flags;
	enum ib_mtu mtu;

	spin_lock_irqsave(&sdev->port_lock, flags);
	mtu = sdev->active_mtu;
	spin_unlock_irqrestore(&sdev->port_lock, flags);
	return mtu;
}

enum ib_port_state sroce_dev_port_state(struct sroce_dev *sdev)
{
	unsigned long flags;
	enum ib_port_state state;

	spin_lock_irqsave(&sdev->port_lock, flags);
	state = sdev->port_state;
	spin_unlock_irqrestore(&sdev->port_lock, flags);
	return state;
}

/* ---- device ops ---- */

static int sroce_query_device(struct ib_device *ibdev,
			      struct ib_device_attr *attr,
			      struct ib_udata *udata)
{
	/*
	 * sroce defines no driver data for query_device: accept an input
	 * that is absent or all zero (a newer provider may send a larger,
	 * zeroed struct) and return nothing.
	 */
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;

	*attr = to_sdev(ibdev)->attr;
	return 0;
}

static int sroce_query_port(struct ib_device *ibdev, u32 port,
			    struct ib_port_attr *attr)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	unsigned long flags;

	/* ib_query_port() has checked port and zeroed *attr. */
	spin_lock_irqsave(&sdev->port_lock, flags);
	attr->state = sdev->port_state;
	attr->phys_state = sdev->phys_state;
	attr->active_mtu = sdev->active_mtu;
	attr->active_speed = sdev->active_speed;
	attr->active_width = sdev->active_width;
	spin_unlock_irqrestore(&sdev->port_lock, flags);

	attr->max_mtu = IB_MTU_4096;
	attr->gid_tbl_len = SROCE_GID_TBL_LEN;
	attr->pkey_tbl_len = SROCE_MAX_PKEYS;
	/* IP-based GIDs are reported through ip_gids (uverbs maps it). */
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = SROCE_MAX_MSG;
	attr->max_vl_num = 1;
	attr->ip_gids = true;
	return 0;
}

static int sroce_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			    u16 *pkey)
{
	if (index >= SROCE_MAX_PKEYS)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static int sroce_get_port_immutable(struct ib_device *ibdev, u32 port,
				    struct ib_port_immutable *immutable)
{
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->gid_tbl_len = SROCE_GID_TBL_LEN;
	immutable->pkey_tbl_len = SROCE_MAX_PKEYS;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer sroce_get_link_layer(struct ib_device *ibdev,
						 u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static void sroce_dev_release_resources(struct sroce_dev *sdev)
{
	sroce_pfc_free(sdev);
	sroce_txpool_fini(&sdev->txpool);
	sroce_net_detach(sdev);
	sroce_cc_sysfs_del(sdev);
	sroce_cc_dev_fini(sdev);
	sroce_counters_free(sdev);
	sroce_mcast_dev_fini(sdev);
	xa_destroy(&sdev->ah_xa);
	xa_destroy(&sdev->qp_xa);
	netdev_put(sdev->ndev, &sdev->ndev_tracker);
}

/*
 * Called by ib_dealloc_device(), after unregistration or when
 * ib_register_device() failed.  Leaving sroce_dev_list is the last step:
 * module unload waits for the list to empty.
 */
static void sroce_dealloc_driver(struct ib_device *ibdev)
{
	struct sroce_dev *sdev = to_sdev(ibdev);

	/*
	 * First take the device out of the notifier's view: a carrier flap
	 * or MTU change would otherwise reach the PFC state freed below
	 * (sroce_port_update()).  A notifier call running now holds the lock,
	 * and so does a newlink adding the ecn/ directories: both finish
	 * before anything is freed, and neither touches the device after.
	 */
	mutex_lock(&sroce_dev_lock);
	sdev->dying = true;
	mutex_unlock(&sroce_dev_lock);

	sroce_verbs_dev_fini(sdev);
	sroce_dev_release_resources(sdev);

	mutex_lock(&sroce_dev_lock);
	list_del(&sdev->list);
	mutex_unlock(&sroce_dev_lock);
}

static const struct ib_device_ops sroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = SROCE_ABI_VERSION,
	.device_group = &sroce_dev_attr_group,

	.dealloc_driver = sroce_dealloc_driver,
	.get_link_layer = sroce_get_link_layer,
	.get_port_immutable = sroce_get_port_immutable,
	.query_device = sroce_query_device,
	.query_pkey = sroce_query_pkey,
	.query_port = sroce_query_port,
};

/* ---- creation ---- */

static void sroce_fill_attr(struct sroce_dev *sdev)
{
	struct ib_device_attr *a = &sdev->attr;

	a->sys_image_guid = sdev->ib_dev.node_guid;
	a->max_mr_size = U64_MAX;
	a->page_size_cap = PAGE_SIZE;
	a->vendor_id = SROCE_VENDOR_ID;
	a->max_qp_wr = SROCE_MAX_QP_WR;
	a->device_cap_flags =
		IB_DEVICE_PORT_ACTIVE_EVENT | IB_DEVICE_SYS_IMAGE_GUID |
		IB_DEVICE_RC_RNR_NAK_GEN | IB_DEVICE_MEM_MGT_EXTENSIONS |
		IB_DEVICE_MEM_WINDOW | IB_DEVICE_MEM_WINDOW_TYPE_2B;
	a->max_fast_reg_page_list_len = SROCE_FR_MAX_PAGES;
	a->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	a->max_send_sge = SROCE_MAX_SGE;
	a->max_recv_sge = SROCE_MAX_SGE;
	a->max_sge_rd = SROCE_MAX_SGE;
	a->max_cqe = SROCE_MAX_CQE;
	a->max_qp_rd_atom = SROCE_MAX_RD_ATOM;
	a->max_qp_init_rd_atom = SROCE_MAX_RD_ATOM;
	a->atomic_cap = IB_ATOMIC_HCA;
	a->max_mcast_qp_attach = SROCE_MAX_MCAST_QP_ATTACH;
	a->max_srq_wr = SROCE_MAX_SRQ_WR;
	a->max_srq_sge = SROCE_MAX_SRQ_SGE;
	a->max_pkeys = SROCE_MAX_PKEYS;
	a->local_ca_ack_delay = 15; /* 4.096 us * 2^15 = 134 ms */
	sroce_limits_fill(a); /* object counts: module parameters */
}

/* Everything that needs neither rtnl nor a name. */
static int sroce_dev_setup(struct sroce_dev *sdev, struct net_device *ndev)
{
	struct ib_device *ibdev = &sdev->ib_dev;
	int i, err;

	INIT_LIST_HEAD(&sdev->list);
	INIT_LIST_HEAD(&sdev->net_node);
	spin_lock_init(&sdev->port_lock);
	sdev->rx_steer = true; /* rxq.h */
	atomic_long_set(&sdev->rxq_bytes, 0);
	sdev->rxq_max_bytes = SROCE_RXQ_DEV_MAX_BYTES;
	sdev->ack_coalesce = true; /* req_pkt.c */
	sdev->tx_batch = SROCE_TX_BATCH_AUTO;
	sdev->port_state = IB_PORT_DOWN;
	sdev->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	sdev->active_mtu = IB_MTU_256;
	sdev->active_speed = IB_SPEED_SDR;
	sdev->active_width = IB_WIDTH_1X;
	for (i = 0; i < SROCE_RES_MAX; i++)
		atomic_set(&sdev->res_count[i], 0);
	xa_init_flags(&sdev->qp_xa, XA_FLAGS_ALLOC1);
	sdev->qpn_next = SROCE_MIN_QPN;
	xa_init_flags(&sdev->ah_xa, XA_FLAGS_ALLOC1);
	sdev->ah_next = 1;

	sdev->ndev = ndev;
	netdev_hold(ndev, &sdev->ndev_tracker, GFP_KERNEL);

	strscpy(ibdev->node_desc, "sroce", sizeof(ibdev->node_desc));
	addrconf_addr_eui48((u8 *)&ibdev->node_guid, ndev->dev_addr);
	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = num_online_cpus();
	ibdev->local_dma_lkey = 0;
	/* Write commands beyond ib_core's default set that sroce serves. */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_RECV) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_SRQ_RECV) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
	sroce_fill_attr(sdev);

	err = sroce_cc_dev_init(sdev);
	if (err)
		return err;
	err = sroce_mcast_dev_init(sdev);
	if (err)
		return err;
	if (sroce_counters_alloc(sdev))
		return -ENOMEM;
	err = sroce_txpool_init(&sdev->txpool);
	if (err)
		return err;
	return sroce_pfc_alloc(sdev);
}

static struct sroce_dev *sroce_dev_find_locked(const struct net_device *ndev)
{
	struct sroce_dev *sdev;

	lockdep_assert_held(&sroce_dev_lock);

	/* A device whose netdev is gone is only waiting for dealloc. */
	list_for_each_entry(sdev, &sroce_dev_list, list)
		if (sdev->ndev == ndev && !sdev->ndev_gone)
			return sdev;
	return NULL;
}

/*
 * Bind @sdev to its netdev: check the netdev is still registered and not
 * bound, open the namespace's sockets and list the device, all under rtnl
 * so that the notifier sees the device for any later event of the netdev.
 */
static int sroce_dev_bind(struct sroce_dev *sdev)
{
	struct net_device *ndev = sdev->ndev;
	int err;

	rtnl_lock();
	mutex_lock(&sroce_dev_lock);
	if (ndev->reg_state != NETREG_REGISTERED) {
		pr_info_ratelimited("sroce: %s is going away\n",
				    netdev_name(ndev));
		err = -ENODEV;
		goto out;
	}
	if (sroce_dev_find_locked(ndev)) {
		pr_info_ratelimited("sroce: %s already has a sroce device\n",
				    netdev_name(ndev));
		err = -EEXIST;
		goto out;
	}
	err = sroce_net_attach(sdev, dev_net(ndev));
	if (err == -EADDRINUSE) /* e.g. rdma_rxe owns it */
		pr_info_ratelimited("sroce: UDP %u in use in %s's netns\n",
				    SROCE_UDP_PORT, netdev_name(ndev));
	if (err)
		goto out;
	list_add_tail(&sdev->list, &sroce_dev_list);
	sroce_port_update(sdev);
out:
	mutex_unlock(&sroce_dev_lock);
	rtnl_unlock();
	return err;
}

static void sroce_dev_unbind(struct sroce_dev *sdev)
{
	mutex_lock(&sroce_dev_lock);
	list_del(&sdev->list);
	mutex_unlock(&sroce_dev_lock);
}

static int sroce_newlink(const char *ibdev_name, struct net_device *ndev)
{
	struct sroce_dev *sdev;
	bool gone;
	int err;

	if (ndev->type != ARPHRD_ETHER) {
		pr_info_ratelimited("sroce: %s is not an Ethernet device\n",
				    netdev_name(ndev));
		return -EOPNOTSUPP;
	}

	sdev = ib_alloc_device(sroce_dev, ib_dev);
	if (!sdev)
		return -ENOMEM;

	err = sroce_dev_setup(sdev, ndev);
	if (err)
		goto err_release;
	err = sroce_dev_bind(sdev);
	if (err)
		goto err_release;
	err = ib_device_set_netdev(&sdev->ib_dev, ndev, 1);
	if (err)
		goto err_unbind;
	err = sroce_verbs_dev_init(sdev);
	if (err)
		goto err_unbind;

	/*
	 * From here dealloc_driver undoes everything.  The order of
	 * ib_set_device_ops() makes sroce_dev_ops win where both define an
	 * op.  Hold the struct device: a parallel NETDEV_UNREGISTER may
	 * unregister and free the device as soon as it is registered.
	 */
	ib_set_device_ops(&sdev->ib_dev, &sroce_dev_ops);
	ib_set_device_ops(&sdev->ib_dev, &sroce_counters_ops);
	ib_set_device_ops(&sdev->ib_dev, &sroce_mad_ops);
	ib_set_device_ops(&sdev->ib_dev, &sroce_verbs_ops);
	ib_set_device_ops(&sdev->ib_dev, &sroce_restrack_dev_ops);
	get_device(&sdev->ib_dev.dev);
	err = ib_register_device(&sdev->ib_dev, ibdev_name, NULL);
	if (err) {
		put_device(&sdev->ib_dev.dev);
		ib_dealloc_device(&sdev->ib_dev);
		return err;
	}

	/*
	 * The notifier saw the netdev go while registration was running, or
	 * an unregistration already reached dealloc_driver.  The ecn/
	 * directories are added under the lock, so a dealloc_driver (which
	 * sets dying under it first) either removes them or finds none.
	 */
	mutex_lock(&sroce_dev_lock);
	gone = sdev->ndev_gone || sdev->dying;
	sroce_test_delay(SROCE_TEST_NEWLINK_SYSFS); /* t-link's race */
	if (!gone)
		err = sroce_cc_sysfs_add(sdev);
	mutex_unlock(&sroce_dev_lock);
	if (gone || err) {
		ib_unregister_device(&sdev->ib_dev);
		err = err ?: -ENODEV;
	}
	put_device(&sdev->ib_dev.dev);
	return err;

err_unbind:
	sroce_dev_unbind(sdev);
err_release:
	sroce_dev_release_resources(sdev);
	ib_dealloc_device(&sdev->ib_dev);
	return err;
}

struct rdma_link_ops sroce_link_ops = {
	.type = "sroce",
	.newlink = sroce_newlink,
};

/* ---- netdev events ---- */

/* Remove a device whose netdev is going away.  rtnl held. */
static void sroce_dev_netdev_gone(struct sroce_dev *sdev)
{
	lockdep_assert_held(&sroce_dev_lock);

	sdev->ndev_gone = true;
	/*
	 * Only a device past enable holds a reference; before that newlink
	 * sees ndev_gone, after disable another unregistration is running.
	 */
	if (ib_device_try_get(&sdev->ib_dev)) {
		ib_unregister_device_queued(&sdev->ib_dev);
		ib_device_put(&sdev->ib_dev);
	}
}

static void sroce_dev_port_event(struct sroce_dev *sdev)
{
	struct ib_event ev = {};

	lockdep_assert_held(&sroce_dev_lock);

	if (!sroce_port_update(sdev))
		return;
	if (!ib_device_try_get(&sdev->ib_dev))
		return; /* not yet or no longer registered */
	ev.device = &sdev->ib_dev;
	ev.element.port_num = 1;
	ev.event = sroce_dev_port_state(sdev) == IB_PORT_ACTIVE ?
			   IB_EVENT_PORT_ACTIVE :
			   IB_EVENT_PORT_ERR;
	ib_dispatch_event(&ev);
	ib_device_put(&sdev->ib_dev);
}

/*
 * Devices above a bound netdev appear and go: every listed device (also
 * one whose netdev is gone, whose groups may still hold joins) keeps its
 * multicast groups joined on them (mcast.c).  rtnl held.
 */
static void sroce_dev_upper_event(unsigned long event, struct net_device *dev)
{
	struct sroce_dev *sdev;

	lockdep_assert_held(&sroce_dev_lock);

	list_for_each_entry(sdev, &sroce_dev_list, list)
		sroce_mcast_netdev_event(sdev, event, dev);
}

static int sroce_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct sroce_dev *sdev;

	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
	case NETDEV_UNREGISTER:
		break;
	case NETDEV_REGISTER:
	case NETDEV_CHANGEUPPER:
		mutex_lock(&sroce_dev_lock);
		sroce_dev_upper_event(event, ndev);
		mutex_unlock(&sroce_dev_lock);
		return NOTIFY_DONE;
	default:
		return NOTIFY_DONE;
	}

	mutex_lock(&sroce_dev_lock);
	if (event == NETDEV_UNREGISTER)
		sroce_dev_upper_event(event, ndev);
	sdev = sroce_dev_find_locked(ndev);
	/* A dying device's state is being freed (dealloc_driver). */
	if (sdev && !sdev->dying) {
		if (event == NETDEV_UNREGISTER)
			sroce_dev_netdev_gone(sdev);
		else
			sroce_dev_port_event(sdev);
	}
	mutex_unlock(&sroce_dev_lock);
	return NOTIFY_DONE;
}

static struct notifier_block sroce_netdev_notifier = {
	.notifier_call = sroce_netdev_event,
};

/* ---- module init/exit ---- */

int sroce_device_init(void)
{
	return register_netdevice_notifier(&sroce_netdev_notifier);
}

/*
 * Unregister every device.  ib_unregister_device() is fenced against any
 * other unregistration of the same device (ib_core's unregistration_lock),
 * so when it returns that device's dealloc_driver has completed.
 */
static void sroce_device_remove_all(void)
{
	struct sroce_dev *sdev;

	for (;;) {
		mutex_lock(&sroce_dev_lock);
		sdev = list_first_entry_or_null(&sroce_dev_list,
						struct sroce_dev, list);
		if (sdev)
			get_device(&sdev->ib_dev.dev);
		mutex_unlock(&sroce_dev_lock);
		if (!sdev)
			return;

		ib_unregister_device(&sdev->ib_dev);
		put_device(&sdev->ib_dev.dev);
		cond_resched();
	}
}

void sroce_device_exit(void)
{
	sroce_device_remove_all();
	unregister_netdevice_notifier(&sroce_netdev_notifier);
}
