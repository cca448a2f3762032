// SPDX-License-Identifier: GPL-2.0
/*
 * ah.c - address handles.
 *
 * User AHs are published in sdev->ah_xa so that a UD send WQE, which lives
 * in a user ring, can name one (struct sroce_create_ah_resp.ah_num).  The
 * table holds each AH's anchor (ah.h), which carries its reference count.
 * The data path looks an anchor up under RCU and takes a reference;
 * destroy_ah (always sleepable for user AHs) unpublishes it, waits for the
 * last reference, normally at once, and leaves the anchor to kfree_rcu():
 * a lookup that loaded it before the erase still finds valid memory and a
 * zero count.  An earlier version waited for a grace period in every
 * destroy: about 23 ms under TCG, which made 65536 AHs a matter of 25
 * minutes (and a user freeing many AHs wait as long on real hardware).
 */
#include <linux/slab.h>

#include "ah.h"
#include "device.h"
#include "verbs.h"

int sroce_av_check(const struct rdma_ah_attr *attr)
{
	const struct ib_gid_attr *sgid_attr = attr->grh.sgid_attr;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return -EINVAL;
	if (rdma_ah_get_port_num(attr) != 1)
		return -EINVAL;
	/* Annex A17: RoCE v2 GIDs only, IPv4-mapped or IPv6. */
	if (!sgid_attr || sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;
	switch (rdma_gid_attr_network_type(sgid_attr)) {
	case RDMA_NETWORK_IPV4:
	case RDMA_NETWORK_IPV6:
		return 0;
	default:
		return -EINVAL;
	}
}

static int sroce_ah_publish(struct sroce_dev *sdev, struct sroce_ah *ah,
			    gfp_t gfp)
{
	struct sroce_ah_anchor *a;
	int err;

	a = kmalloc(sizeof(*a), gfp);
	if (!a)
		return -ENOMEM;
	refcount_set(&a->ref, 1);
	init_completion(&a->released);
	a->ah = ah;
	ah->anchor = a;
	err = xa_alloc_cyclic(&sdev->ah_xa, &ah->ah_num, a,
			      XA_LIMIT(1, U32_MAX), &sdev->ah_next, gfp);
	if (err < 0) {
		ah->anchor = NULL;
		kfree(a);
		return err == -EBUSY ? -ENOMEM : err;
	}
	return 0;
}

/* Unpublish a user AH; return once no one holds a reference on it. */
static void sroce_ah_unpublish(struct sroce_dev *sdev, struct sroce_ah *ah)
{
	struct sroce_ah_anchor *a = ah->anchor;

	xa_erase(&sdev->ah_xa, ah->ah_num);
	sroce_ah_put(ah);
	wait_for_completion(&a->released);
	kfree_rcu(a, rcu);
}

int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibah->device);
	gfp_t gfp = init->flags & RDMA_CREATE_AH_SLEEPABLE ? GFP_KERNEL :
							     GFP_ATOMIC;
	struct sroce_create_ah_resp resp = {};
	struct sroce_ah *ah = to_sah(ibah);
	int err;

	err = sroce_av_check(init->ah_attr);
	if (err)
		return err;
	err = sroce_res_get(sdev, SROCE_RES_AH, sdev->attr.max_ah);
	if (err)
		return err;

	ah->attr = *init->ah_attr;
	ah->attr.grh.sgid_attr = ibah->sgid_attr;
	ah->ntype = rdma_gid_attr_network_type(ibah->sgid_attr);
	if (!udata)
		return 0;

	err = sroce_ah_publish(sdev, ah, gfp);
	if (err)
		goto err_put_res;
	resp.ah_num = ah->ah_num;
	err = sroce_copy_resp(udata, &resp, sizeof(resp));
	if (err)
		goto err_unpublish;
	return 0;

err_unpublish:
	sroce_ah_unpublish(sdev, ah);
err_put_res:
	sroce_res_put(sdev, SROCE_RES_AH);
	return err;
}

int sroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct sroce_dev *sdev = to_sdev(ibah->device);
	struct sroce_ah *ah = to_sah(ibah);

	if (ah->anchor) {
		/* Only user AHs are published; their destroy may sleep. */
		might_sleep();
		sroce_ah_unpublish(sdev, ah);
	}
	sroce_res_put(sdev, SROCE_RES_AH);
	return 0;
}

int sroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	*attr = to_sah(ibah)->attr;
	/* rdma_query_ah() hands out no sgid_attr reference. */
	attr->grh.sgid_attr = NULL;
	return 0;
}

struct sroce_ah *sroce_ah_get(struct sroce_dev *sdev, u32 ah_num)
{
	struct sroce_ah_anchor *a;
	struct sroce_ah *ah = NULL;

	rcu_read_lock();
	a = xa_load(&sdev->ah_xa, ah_num);
	if (a && refcount_inc_not_zero(&a->ref))
		ah = a->ah;
	rcu_read_unlock();
	return ah;
}

void sroce_ah_put(struct sroce_ah *ah)
{
	struct sroce_ah_anchor *a = ah->anchor;

	/* complete() is done with a before wait_for_completion() returns. */
	if (refcount_dec_and_test(&a->ref))
		complete(&a->released);
}
