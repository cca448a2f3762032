/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ah.h - address handles and RoCE v2 address vectors.
 */
#ifndef _SROCE_AH_H
#define _SROCE_AH_H

#include <linux/completion.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <rdma/ib_verbs.h>

struct sroce_dev;
struct sroce_ah;

/*
 * What sdev->ah_xa holds for a user AH: its reference count, in memory of
 * its own.  ib_core frees the AH as soon as destroy_ah returns, but a
 * lookup may have loaded the entry just before destroy unpublished it and
 * still be about to try the count; the anchor is therefore freed one RCU
 * grace period later (kfree_rcu), while the AH only waits for the holders
 * of a reference, normally none.  No destroy waits for a grace period.
 */
struct sroce_ah_anchor {
	refcount_t ref; /* ah_xa + one per sroce_ah_get() */
	struct completion released; /* ref dropped to zero */
	struct sroce_ah *ah; /* constant; valid while a reference is held */
	struct rcu_head rcu;
};

/*
 * An address handle.  attr and ntype are written before the AH is
 * published and never change, so reference holders read them unlocked.
 * attr.grh.sgid_attr is borrowed from ibah.sgid_attr, which ib_core holds
 * for the AH's lifetime.
 */
struct sroce_ah {
	struct ib_ah ibah; /* must be first (core-allocated) */
	struct rdma_ah_attr attr; /* resolved address vector */
	enum rdma_network_type ntype; /* RDMA_NETWORK_IPV4 or _IPV6 */
	/*
	 * User AHs only: their number in sdev->ah_xa (0 for kernel AHs,
	 * which kernel consumers pass by pointer in the work request and
	 * may destroy in atomic context, where no one can be waited for).
	 */
	u32 ah_num;
	struct sroce_ah_anchor *anchor; /* user AHs only, NULL otherwise */
};

static inline struct sroce_ah *to_sah(struct ib_ah *ibah)
{
	return container_of(ibah, struct sroce_ah, ibah);
}

int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata);
int sroce_destroy_ah(struct ib_ah *ibah, u32 flags);
int sroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);

/*
 * Check an address vector (AH or QP primary path): RoCE v2 only, so a GRH
 * on port 1 whose source GID is a RoCE v2 (UDP-encapsulated) GID.
 * Return: 0 or -EINVAL.
 */
int sroce_av_check(const struct rdma_ah_attr *attr);

/*
 * A user AH by number, with a reference (any context; RCU inside); NULL
 * if none.  The caller checks that its PD is the QP's.  destroy_ah waits
 * for sroce_ah_put().
 */
struct sroce_ah *sroce_ah_get(struct sroce_dev *sdev, u32 ah_num);
void sroce_ah_put(struct sroce_ah *ah);

#endif /* _SROCE_AH_H */
