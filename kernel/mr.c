// SPDX-License-Identifier: GPL-2.0
/*
 * mr.c - memory regions.
 *
 * Lifetime: an MR is published in sdev->mr_xa with one reference owned by
 * the table.  The data path finds it by key under RCU and takes a reference
 * with refcount_inc_not_zero().  dereg_mr unpublishes it, drops the table's
 * reference and waits until every user has dropped theirs, so that the
 * pinned pages (umem) are released only when no copy can touch them; the
 * structure itself is freed after an RCU grace period because a lookup may
 * still be looking at it.
 */
#include <linux/random.h>
#include <linux/slab.h>

#include "device.h"
#include "mem.h"
#include "mr.h"
#include "mw.h"

/* Access bits a user MR may carry; IB_ACCESS_OPTIONAL bits are ignored. */
#define SROCE_MR_ACCESS_KNOWN                                                  \
	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |                      \
	 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_MW_BIND | \
	 IB_ZERO_BASED | IB_ACCESS_ON_DEMAND | IB_ACCESS_HUGETLB |             \
	 IB_ACCESS_OPTIONAL)
#define SROCE_MR_ACCESS_UNSUPPORTED \
	(IB_ZERO_BASED | IB_ACCESS_ON_DEMAND | IB_ACCESS_HUGETLB)

static int sroce_mr_check_access(int access)
{
	if (access & ~SROCE_MR_ACCESS_KNOWN)
		return -EINVAL;
	/* IBA 10.6.3.1 (o10-6.3.1-1.1): remote write/atomic need local write */
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	if (access & SROCE_MR_ACCESS_UNSUPPORTED)
		return -EOPNOTSUPP;
	return 0;
}

/* MRs and memory windows are accounted against their own limits. */
static enum sroce_res sroce_mr_res(const struct sroce_mr *mr)
{
	return mr->mw ? SROCE_RES_MW : SROCE_RES_MR;
}

static struct sroce_mr *sroce_mr_alloc_entry(struct sroce_dev *sdev, int access,
					     bool mw)
{
	struct sroce_mr *mr;
	int err;

	err = mw ? sroce_res_get(sdev, SROCE_RES_MW, sdev->attr.max_mw) :
		   sroce_res_get(sdev, SROCE_RES_MR, sdev->attr.max_mr);
	if (err)
		return ERR_PTR(err);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		sroce_res_put(sdev, mw ? SROCE_RES_MW : SROCE_RES_MR);
		return ERR_PTR(-ENOMEM);
	}
	mr->sdev = sdev;
	mr->access = access;
	mr->mw = mw;
	spin_lock_init(&mr->fr_lock);
	seqcount_spinlock_init(&mr->fr_seq, &mr->fr_lock);
	refcount_set(&mr->ref, 1);
	init_completion(&mr->released);
	return mr;
}

struct sroce_mr *sroce_mr_alloc(struct sroce_dev *sdev, int access)
{
	return sroce_mr_alloc_entry(sdev, access, false);
}

struct sroce_mr *sroce_mw_entry_alloc(struct sroce_dev *sdev)
{
	return sroce_mr_alloc_entry(sdev, 0, true);
}

/* Undo sroce_mr_alloc() for an MR that was never published. */
void sroce_mr_free_unpublished(struct sroce_mr *mr)
{
	struct sroce_dev *sdev = mr->sdev;

	kvfree(mr->fr_map);
	kvfree(mr->fr_pages);
	kfree(mr);
	sroce_res_put(sdev, sroce_mr_res(mr));
}

/*
 * Publish a fully initialised MR: allocate its index, derive the keys.
 * The keys are written before the entry becomes visible (xa_alloc_cyclic
 * stores the pointer with release semantics).
 */
int sroce_mr_publish(struct sroce_mr *mr)
{
	struct sroce_dev *sdev = mr->sdev;
	u32 index;
	u32 key;
	int err;

	err = xa_alloc_cyclic(&sdev->mr_xa, &index, NULL,
			      XA_LIMIT(1, SROCE_MR_MAX_INDEX), &sdev->mr_next,
			      GFP_KERNEL);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;

	key = (index << SROCE_MR_KEY_SHIFT) | get_random_u8();
	mr->index = index;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	/* The slot was reserved with NULL; fill it now that keys are set. */
	xa_store(&sdev->mr_xa, index, mr, GFP_KERNEL);
	return 0;
}

struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct sroce_mr *mr;
	int err;

	if (access & ~SROCE_MR_ACCESS_KNOWN)
		return ERR_PTR(-EINVAL);

	mr = sroce_mr_alloc(sdev, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->iova = 0;
	mr->length = U64_MAX;

	err = sroce_mr_publish(mr);
	if (err) {
		sroce_mr_free_unpublished(mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct ib_umem *umem;
	struct sroce_mr *mr;
	int err;

	err = sroce_mr_check_access(access);
	if (err)
		return ERR_PTR(err);
	if (!length || start + length < start || iova + length < iova)
		return ERR_PTR(-EINVAL);
	if (sdev->attr.max_mr_size && length > sdev->attr.max_mr_size)
		return ERR_PTR(-EINVAL);

	mr = sroce_mr_alloc(sdev, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);

	umem = ib_umem_get(&sdev->ib_dev, start, length, access);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		goto err_free_mr;
	}
	mr->umem = umem;
	mr->iova = iova;
	mr->length = length;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;

	err = sroce_mem_mr_init(mr);
	if (err)
		goto err_release_umem;
	err = sroce_mr_publish(mr);
	if (err)
		goto err_mem_cleanup;
	return &mr->ibmr;

err_mem_cleanup:
	sroce_mem_mr_cleanup(mr);
err_release_umem:
	ib_umem_release(umem);
err_free_mr:
	sroce_mr_free_unpublished(mr);
	return ERR_PTR(err);
}

int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sroce_mr *mr = to_smr(ibmr);
	struct sroce_dev *sdev = mr->sdev;
	int err;

	/* Memory windows bound to it keep it (IBA 10.6.7.1, mw.c). */
	err = sroce_mw_mr_dying(mr);
	if (err)
		return err;

	/* No new lookup finds it; then wait for the users that did. */
	xa_erase(&sdev->mr_xa, mr->index);
	sroce_mr_put(mr);
	wait_for_completion(&mr->released);

	sroce_mem_mr_cleanup(mr);
	ib_umem_release(mr->umem);
	kvfree(mr->fr_map);
	kvfree(mr->fr_pages);
	sroce_res_put(sdev, sroce_mr_res(mr));
	kfree_rcu(mr, rcu);
	return 0;
}

/* Does @key name @mr now?  A fast-registration MR only while Valid. */
static bool sroce_mr_key_ok(struct sroce_mr *mr, u32 key)
{
	/* Pairs with REG_MR's store-release (fr.c): then its fields hold. */
	if (mr->fr && !smp_load_acquire(&mr->fr_valid))
		return false;
	return READ_ONCE(mr->ibmr.lkey) == key;
}

struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, u32 key)
{
	struct sroce_mr *mr;

	rcu_read_lock();
	mr = xa_load(&sdev->mr_xa, key >> SROCE_MR_KEY_SHIFT);
	if (mr &&
	    (!sroce_mr_key_ok(mr, key) || !refcount_inc_not_zero(&mr->ref)))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}

void sroce_mr_put(struct sroce_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		complete(&mr->released);
}
