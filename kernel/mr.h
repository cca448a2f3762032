/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mr.h - memory regions and their lookup by key.
 */
#ifndef _SROCE_MR_H
#define _SROCE_MR_H

#include <linux/completion.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/seqlock.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

struct sroce_dev;

/*
 * lkey == rkey == (index << SROCE_MR_KEY_SHIFT) | key byte.  The index
 * names the slot in sdev->mr_xa, the key byte makes a stale key unlikely
 * to match a newer MR in the same slot.
 */
#define SROCE_MR_KEY_SHIFT 8
#define SROCE_MR_MAX_INDEX 0xffffffU

/*
 * A memory region.  Every field but ref is written before the MR is
 * published in mr_xa and never changes afterwards, so holders of a
 * reference read them without a lock -- except for fast-registration MRs
 * (fr.c), whose keys, iova, length, access and page list are rewritten by
 * IB_WR_REG_MR while the MR is invalid (fr_valid false: no lookup finds
 * it) and published again by a store-release of fr_valid.  A holder that
 * found the MR Valid may still be copying when it is invalidated and
 * registered again: mem.c reads the page list, page size, iova and length
 * of each chunk it copies as one snapshot under fr_seq, so a chunk never
 * mixes two registrations (fr.h).
 */
struct sroce_mr {
	struct ib_mr ibmr; /* lkey, rkey, iova, length, pd */
	struct sroce_dev *sdev;
	struct ib_umem *umem; /* pinned user pages; NULL for DMA MR */
	u64 iova; /* first valid address */
	u64 length; /* bytes; U64_MAX for a DMA MR */
	int access; /* IB_ACCESS_* as registered */
	u32 index; /* slot in sdev->mr_xa */
	refcount_t ref; /* one for mr_xa + one per user */
	struct completion released; /* ref dropped to zero */
	struct rcu_head rcu; /* freed after a grace period */
	/* User MR: its pinned pages in order, for va -> page (mem.c). */
	struct page **pages;
	unsigned long npages;
	u32 page_off; /* offset of iova in pages[0] */
	/* Fast-registration MR (ib_alloc_mr, kernel consumers only), fr.c: */
	bool fr; /* constant */
	bool fr_valid; /* IBA 10.6.2: Valid (true) or Free state */
	u8 fr_shift; /* log2 of the registered page size */
	u32 fr_max; /* entries of fr_pages and fr_map; constant */
	u32 fr_nmap; /* entries ib_map_mr_sg() put in fr_map */
	u32 fr_npages; /* entries of fr_pages in use (registered) */
	u64 *fr_map; /* staging: page addresses (kernel virtual) */
	u64 *fr_pages; /* registered page addresses, iova order */
	spinlock_t fr_lock; /* serialises REG_MR and invalidation */
	/* REG_MR's rewrite of fr_pages/fr_npages/fr_shift/iova/length. */
	seqcount_spinlock_t fr_seq;
	/*
	 * Memory windows (mw.c).  A window is an entry of mr_xa too (its
	 * rkey is looked up like an MR's), with mw set.  Guarded by fr_lock:
	 * mw_bound, mw_mr, mw_qpn, dying and the iova/length/access/keys of
	 * a window; mw_count and dying of an MR.
	 */
	bool mw; /* this entry is a window; constant */
	u8 mw_type; /* IB_MW_TYPE_1 or _2; constant */
	bool mw_bound; /* window: bound to mw_mr (IBA 10.6.7.2) */
	bool dying; /* MR: dereg_mr started, no new binds; window: dealloc */
	u32 mw_count; /* MR: windows bound to it (dereg_mr: -EBUSY) */
	struct sroce_mr *mw_mr; /* window: the MR it is bound to */
	u32 mw_qpn; /* type 2 window: the QP it is bound through (2B) */
};

static inline struct sroce_mr *to_smr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sroce_mr, ibmr);
}

struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata);
int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

/* For fr.c: allocate, publish and undo an MR (see mr.c). */
struct sroce_mr *sroce_mr_alloc(struct sroce_dev *sdev, int access);
/* The same for the entry of a memory window (mw set, counted as a MW). */
struct sroce_mr *sroce_mw_entry_alloc(struct sroce_dev *sdev);
int sroce_mr_publish(struct sroce_mr *mr);
void sroce_mr_free_unpublished(struct sroce_mr *mr);

/*
 * Look an MR up by lkey or rkey and take a reference; NULL if no live MR
 * has that key.  Any context (RCU inside).  Release with sroce_mr_put().
 * The caller checks PD, access and range for its operation.
 */
struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, u32 key);
void sroce_mr_put(struct sroce_mr *mr);

#endif /* _SROCE_MR_H */
