// SPDX-License-Identifier: GPL-2.0
/*
 * fr.c - fast-registration memory regions for kernel consumers: ib_alloc_mr,
 * ib_map_mr_sg, IB_WR_REG_MR, IB_WR_LOCAL_INV and the responder's remote
 * invalidation.  States, contexts and locking: fr.h.
 *
 * sroce has no DMA device (ib_uses_virt_dma()), so the "DMA addresses"
 * ib_map_mr_sg() hands us are kernel virtual addresses; the registered
 * page list is copied by mem.c through them.  Byte va of a Valid MR lives
 * at fr_pages[i] + (pos & (page size - 1)) with
 *
 *	pos = va - (iova & ~(page size - 1)),  i = pos >> fr_shift
 *
 * because ib_sg_to_pages() lists page-aligned blocks that tile the iova
 * range from the block holding iova on.
 */
#include <linux/log2.h>
#include <linux/slab.h>

#include "counters.h"
#include "device.h"
#include "fr.h"
#include "mr.h"
#include "mw.h"
#include "qp.h"
#include "req.h"

/* Access rights REG_MR may grant (IBA 10.6.3.1 applies as for reg_mr). */
#define SROCE_FR_ACCESS                                   \
	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
	 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)

struct ib_mr *sroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct sroce_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > SROCE_FR_MAX_PAGES)
		return ERR_PTR(-EINVAL);

	mr = sroce_mr_alloc(sdev, 0);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->fr = true;
	mr->fr_max = max_num_sg;
	mr->fr_map = kvcalloc(max_num_sg, sizeof(u64), GFP_KERNEL);
	mr->fr_pages = kvcalloc(max_num_sg, sizeof(u64), GFP_KERNEL);
	if (!mr->fr_map || !mr->fr_pages) {
		err = -ENOMEM;
		goto err_free;
	}
	err = sroce_mr_publish(mr);
	if (err)
		goto err_free;
	return &mr->ibmr;

err_free:
	sroce_mr_free_unpublished(mr);
	return ERR_PTR(err);
}

static int sroce_fr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct sroce_mr *mr = to_smr(ibmr);

	if (unlikely(mr->fr_nmap == mr->fr_max))
		return -ENOMEM;
	mr->fr_map[mr->fr_nmap++] = addr;
	return 0;
}

/*
 * Stage a page list for the next REG_MR.  Process context, by the MR's
 * owner, which must not have a REG_MR of this MR outstanding (IBA: the
 * consumer owns the page list until the WR completes).
 */
int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset)
{
	struct sroce_mr *mr = to_smr(ibmr);

	mr->fr_nmap = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, sroce_fr_set_page);
}

static enum ib_wc_status
sroce_fr_register(struct sroce_qp *qp, struct sroce_mr *mr, u32 key, int access)
{
	const int rw = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC;
	unsigned long flags;
	u32 ps = mr->ibmr.page_size;

	if (unlikely(!mr->fr || mr->ibmr.pd != qp->ibqp.pd))
		return IB_WC_LOC_PROT_ERR;
	/* The index part of the key names the MR; only the key byte moves. */
	if (unlikely(key >> SROCE_MR_KEY_SHIFT != mr->index ||
		     access & ~SROCE_FR_ACCESS ||
		     (access & rw && !(access & IB_ACCESS_LOCAL_WRITE))))
		return IB_WC_LOC_QP_OP_ERR;
	if (unlikely(!is_power_of_2(ps) || ps < 512 ||
		     mr->ibmr.length > (u64)mr->fr_nmap * ps))
		return IB_WC_LOC_LEN_ERR;

	spin_lock_irqsave(&mr->fr_lock, flags);
	if (unlikely(mr->fr_valid)) {
		spin_unlock_irqrestore(&mr->fr_lock, flags);
		return IB_WC_LOC_QP_OP_ERR;
	}
	/*
	 * A holder of the previous registration may still be copying (a
	 * remote SEND with Invalidate does not wait for it): it reads
	 * these as one snapshot per chunk (mem.c), never a torn mix.
	 */
	write_seqcount_begin(&mr->fr_seq);
	memcpy(mr->fr_pages, mr->fr_map, mr->fr_nmap * sizeof(u64));
	mr->fr_npages = mr->fr_nmap;
	mr->fr_shift = ilog2(ps);
	mr->iova = mr->ibmr.iova;
	mr->length = mr->ibmr.length;
	write_seqcount_end(&mr->fr_seq);
	mr->access = access;
	WRITE_ONCE(mr->ibmr.lkey, key);
	WRITE_ONCE(mr->ibmr.rkey, key);
	/* Lookups see the fields above once they see Valid. */
	smp_store_release(&mr->fr_valid, true);
	spin_unlock_irqrestore(&mr->fr_lock, flags);
	sroce_counter_inc(qp->sdev, SROCE_CNT_FR_REG);
	return IB_WC_SUCCESS;
}

int sroce_fr_invalidate(struct sroce_dev *sdev, struct ib_pd *pd, u32 qpn,
			u32 key)
{
	struct sroce_mr *mr = sroce_mr_get(sdev, key);
	unsigned long flags;
	int err = 0;

	if (!mr)
		return -EINVAL;
	if (mr->mw) {
		err = sroce_mw_invalidate(mr, pd, qpn, key);
		sroce_mr_put(mr);
		return err;
	}
	spin_lock_irqsave(&mr->fr_lock, flags);
	if (!mr->fr || mr->ibmr.pd != pd || !mr->fr_valid ||
	    mr->ibmr.rkey != key)
		err = -EINVAL;
	else
		WRITE_ONCE(mr->fr_valid, false);
	spin_unlock_irqrestore(&mr->fr_lock, flags);
	sroce_mr_put(mr);
	return err;
}

enum ib_wc_status sroce_fr_execute(struct sroce_qp *qp,
				   const struct sroce_swqe *swqe)
{
	const struct sroce_send_wqe *w = &swqe->wqe;
	struct sroce_mr *mr;

	lockdep_assert_held(&qp->req.lock);

	if (w->opcode == SROCE_WR_BIND_MW)
		return sroce_mw_bind(qp, swqe);
	if (w->opcode == SROCE_WR_LOCAL_INV) {
		if (sroce_fr_invalidate(qp->sdev, qp->ibqp.pd, qp->ibqp.qp_num,
					w->ex.invalidate_rkey))
			return IB_WC_LOC_QP_OP_ERR;
		sroce_counter_inc(qp->sdev, SROCE_CNT_FR_LOCAL_INV);
		return IB_WC_SUCCESS;
	}
	/* Kernel rings only: user space cannot name a kernel pointer. */
	if (unlikely(qp->user))
		return IB_WC_LOC_QP_OP_ERR;
	mr = to_smr((struct ib_mr *)(uintptr_t)w->wr.rdma.remote_addr);
	return sroce_fr_register(qp, mr, w->wr.rdma.rkey,
				 (int)w->wr.rdma.reserved);
}
