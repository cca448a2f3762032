/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mem.h - copying between memory regions and packet buffers, with every
 * protection check (PD, access rights, bounds) in one place.
 *
 * Local accesses name memory by SGEs (lkey, address, length), remote ones
 * by rkey and virtual address.  Either way the MR is looked up and
 * referenced, its PD and access rights are checked and the range is
 * checked with overflow-safe arithmetic before a single byte moves.
 *
 * User MRs are copied page by page through the page array built at
 * registration (sroce_mem_mr_init()); a DMA MR of a kernel consumer
 * (ib_uses_virt_dma(): addresses are kernel virtual) is memcpy'd.
 *
 * None of these functions sleeps or takes a lock of its own: they run in
 * softirq (responder, completer) and under qp->req.lock or qp->resp.lock.
 */
#ifndef _SROCE_MEM_H
#define _SROCE_MEM_H

#include <linux/skbuff.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

struct sroce_dev;
struct sroce_mr;

enum sroce_copy_dir {
	SROCE_TO_MEM, /* buffer/packet -> memory region */
	SROCE_FROM_MEM, /* memory region -> buffer/packet */
};

/*
 * Walk an SGE list (already copied into kernel memory) and copy @len bytes
 * starting at byte @offset of the message between it and @buf.  Each SGE's
 * lkey is looked up, checked against @pd, @access (IB_ACCESS_LOCAL_WRITE
 * when writing into the SGEs) and bounds (overflow-safe); a kernel DMA MR
 * (ib_uses_virt_dma: addresses are kernel virtual) is memcpy'd.
 * Returns 0 or -EINVAL (bad lkey/pd/bounds -> IB_WC_LOC_PROT_ERR) /
 * -EFAULT.
 */
int sroce_mem_sge_copy(struct sroce_dev *sdev, struct ib_pd *pd,
		       const struct sroce_sge *sge, u32 num_sge, u32 offset,
		       void *buf, u32 len, enum sroce_copy_dir dir);

/* Sum of the SGE lengths; U64_MAX on overflow (cannot happen with u32s). */
u64 sroce_sge_total(const struct sroce_sge *sge, u32 num_sge);

/*
 * Remote access by rkey for a request to QP @qpn: checks PD, access bits,
 * and [va, va+len) within the MR with overflow-safe arithmetic (a window's
 * rkey: also that a type 2 window is bound through @qpn); returns a referenced MR or
 * ERR_PTR(-EACCES/-EINVAL).  Release with sroce_mr_put().
 */
struct sroce_mr *sroce_mem_rkey_get(struct sroce_dev *sdev, struct ib_pd *pd,
				    u32 qpn, u32 rkey, u64 va, u32 len,
				    int access);

/*
 * Copy @len bytes between @buf and the MR at @va.  The caller has checked
 * the range (sroce_mem_rkey_get() or an SGE check).  0 or -EFAULT.
 */
int sroce_mem_mr_copy(struct sroce_mr *mr, u64 va, void *buf, u32 len,
		      enum sroce_copy_dir dir);

/*
 * skb payload <-> MR without linearising (for the responder and the
 * completer's READ responses).  @skb_off is relative to skb->data.
 */
int sroce_mem_mr_copy_skb(struct sroce_mr *mr, u64 va, struct sk_buff *skb,
			  u32 skb_off, u32 len, enum sroce_copy_dir dir);
int sroce_mem_sge_copy_skb(struct sroce_dev *sdev, struct ib_pd *pd,
			   const struct sroce_sge *sge, u32 num_sge, u32 offset,
			   struct sk_buff *skb, u32 skb_off, u32 len,
			   enum sroce_copy_dir dir);

/*
 * Atomic operation on 8 aligned bytes at @va of @mr (already checked with
 * sroce_mem_rkey_get()): compare-and-swap when @cmp_swap, else fetch-and-
 * add.  Stores the original value in @orig.  0 or -EINVAL (misaligned).
 */
int sroce_mem_atomic(struct sroce_mr *mr, u64 va, bool cmp_swap, u64 compare,
		     u64 swap_add, u64 *orig);

/*
 * Registration-time setup of a user MR (mr.c): the page array for the
 * va -> page lookup of the copies above.  Process context.
 */
int sroce_mem_mr_init(struct sroce_mr *mr);
void sroce_mem_mr_cleanup(struct sroce_mr *mr);

#endif /* _SROCE_MEM_H */
