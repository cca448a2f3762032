// SPDX-License-Identifier: GPL-2.0
/*
 * mem.c - copies between memory regions and buffers or packets, and the
 * protection checks that guard them (IBA 10.6: P_Key/PD, access rights,
 * bounds).
 *
 * A user MR keeps the array of its pinned pages (built once at
 * registration from the umem's scatter table), so finding the page of a
 * virtual address is one subtraction and one shift:
 *
 *	off  = va - iova + page_off	(bytes from the start of pages[0])
 *	page = pages[off >> PAGE_SHIFT], offset off & ~PAGE_MASK
 *
 * Every range is checked before use with arithmetic that cannot wrap:
 * va >= iova, len <= length and va - iova <= length - len.
 *
 * The caller holds a reference on the MR for the whole copy, so dereg_mr
 * (which waits for references) cannot unpin the pages underneath.
 */
#include <linux/atomic.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "device.h"
#include "mem.h"
#include "mr.h"
#include "mw.h"

/* Where the bytes of one copy come from or go to. */
struct sroce_mem_io {
	enum sroce_copy_dir dir;
	struct sk_buff *skb; /* NULL: buf */
	u8 *buf;
	u32 off; /* next byte of skb (from skb->data) or of buf */
};

/* Move @n bytes between the MR bytes at @kaddr and the io's cursor. */
static int sroce_mem_chunk(struct sroce_mem_io *io, void *kaddr, u32 n)
{
	int err = 0;

	if (io->skb) {
		if (io->dir == SROCE_TO_MEM)
			err = skb_copy_bits(io->skb, io->off, kaddr, n);
		else
			err = skb_store_bits(io->skb, io->off, kaddr, n);
	} else if (io->dir == SROCE_TO_MEM) {
		memcpy(kaddr, io->buf + io->off, n);
	} else {
		memcpy(io->buf + io->off, kaddr, n);
	}
	io->off += n;
	return err ? -EFAULT : 0;
}

/* True when [va, va + len) lies inside @mr (overflow-safe). */
static bool sroce_mem_in_mr(const struct sroce_mr *mr, u64 va, u64 len)
{
	return va >= mr->iova && len <= mr->length &&
	       va - mr->iova <= mr->length - len;
}

/*
 * Fast-registration MR (fr.c): the kernel virtual address of byte @va and
 * in *@n how many bytes follow it in the same registered page and inside
 * the registration, at most @len.  NULL if the registration does not cover
 * @va.
 *
 * The caller checked the range when it looked the MR up, but REG_MR may
 * have rewritten the MR since (invalidated and registered again while
 * this holder copies): page size, iova, length and the page entry are
 * read as one snapshot under fr_seq and the range is checked again against
 * it, so one chunk lies inside one registration's page, never at an
 * offset of one registration's page size into another's page.
 */
static u8 *sroce_mem_fr_addr(const struct sroce_mr *mr, u64 va, u32 len, u32 *n)
{
	u64 ps, pos, idx, iova, length, page = 0;
	unsigned int seq;
	bool mapped;
	u8 shift;

	do {
		seq = read_seqcount_begin(&mr->fr_seq);
		shift = mr->fr_shift;
		iova = mr->iova;
		length = mr->length;
		ps = 1ULL << shift;
		pos = va - (iova & ~(ps - 1));
		idx = pos >> shift;
		/* fr_npages <= fr_max, the size of fr_pages, in any state. */
		mapped = idx < mr->fr_npages;
		if (mapped)
			page = mr->fr_pages[idx];
	} while (read_seqcount_retry(&mr->fr_seq, seq));

	if (unlikely(!mapped || va < iova || va - iova >= length))
		return NULL;
	*n = min_t(u64, min_t(u64, len, ps - (pos & (ps - 1))),
		   length - (va - iova));
	return (u8 *)(uintptr_t)(page + (pos & (ps - 1)));
}

static int sroce_mem_fr_io(struct sroce_mr *mr, u64 va, u32 len,
			   struct sroce_mem_io *io)
{
	while (len) {
		u32 n;
		u8 *kaddr = sroce_mem_fr_addr(mr, va, len, &n);
		int err;

		if (unlikely(!kaddr))
			return -EFAULT;
		err = sroce_mem_chunk(io, kaddr, n);
		if (unlikely(err))
			return err;
		va += n;
		len -= n;
	}
	return 0;
}

/* Copy @len bytes at @va of @mr (range already checked) through @io. */
static int sroce_mem_mr_io(struct sroce_mr *mr, u64 va, u32 len,
			   struct sroce_mem_io *io)
{
	u64 off;
	int err;

	if (!len)
		return 0;
	if (mr->fr)
		return sroce_mem_fr_io(mr, va, len, io);
	/* DMA MR of a kernel consumer: addresses are kernel virtual. */
	if (!mr->pages)
		return sroce_mem_chunk(io, (void *)(uintptr_t)va, len);

	off = va - mr->iova + mr->page_off;
	while (len) {
		unsigned long idx = off >> PAGE_SHIFT;
		u32 pgoff = off & ~PAGE_MASK;
		u32 n = min_t(u32, len, PAGE_SIZE - pgoff);
		u8 *kaddr;

		if (unlikely(idx >= mr->npages))
			return -EFAULT;
		kaddr = kmap_local_page(mr->pages[idx]);
		err = sroce_mem_chunk(io, kaddr + pgoff, n);
		kunmap_local(kaddr);
		if (unlikely(err))
			return err;
		if (io->dir == SROCE_TO_MEM)
			flush_dcache_page(mr->pages[idx]);
		off += n;
		len -= n;
	}
	return 0;
}

int sroce_mem_mr_copy(struct sroce_mr *mr, u64 va, void *buf, u32 len,
		      enum sroce_copy_dir dir)
{
	struct sroce_mem_io io = { .dir = dir, .buf = buf };

	if (unlikely(!sroce_mem_in_mr(mr, va, len)))
		return -EFAULT;
	return sroce_mem_mr_io(mr, va, len, &io);
}

int sroce_mem_mr_copy_skb(struct sroce_mr *mr, u64 va, struct sk_buff *skb,
			  u32 skb_off, u32 len, enum sroce_copy_dir dir)
{
	struct sroce_mem_io io = { .dir = dir, .skb = skb, .off = skb_off };

	if (unlikely(!sroce_mem_in_mr(mr, va, len)))
		return -EFAULT;
	return sroce_mem_mr_io(mr, va, len, &io);
}

struct sroce_mr *sroce_mem_rkey_get(struct sroce_dev *sdev, struct ib_pd *pd,
				    u32 qpn, u32 rkey, u64 va, u32 len,
				    int access)
{
	struct sroce_mr *mr = sroce_mr_get(sdev, rkey);

	if (unlikely(!mr))
		return ERR_PTR(-EACCES);
	if (mr->mw) {
		/* A memory window's rkey: its checks, then its MR (mw.c). */
		struct sroce_mr *win = mr;

		mr = sroce_mw_resolve(win, pd, qpn, va, len, access);
		sroce_mr_put(win);
		return mr ?: ERR_PTR(-EACCES);
	}
	if (unlikely(mr->ibmr.pd != pd || (mr->access & access) != access)) {
		sroce_mr_put(mr);
		return ERR_PTR(-EACCES);
	}
	if (unlikely(!sroce_mem_in_mr(mr, va, len))) {
		sroce_mr_put(mr);
		return ERR_PTR(-EINVAL);
	}
	return mr;
}

u64 sroce_sge_total(const struct sroce_sge *sge, u32 num_sge)
{
	u64 total = 0;
	u32 i;

	for (i = 0; i < num_sge; i++) {
		if (unlikely(check_add_overflow(total, (u64)sge[i].length,
						&total)))
			return U64_MAX;
	}
	return total;
}

/*
 * The MR of one SGE, checked for @pd, @access and the SGE's whole range;
 * NULL if any check fails.
 */
static struct sroce_mr *sroce_mem_sge_mr(struct sroce_dev *sdev,
					 struct ib_pd *pd,
					 const struct sroce_sge *sge,
					 int access)
{
	struct sroce_mr *mr = sroce_mr_get(sdev, sge->lkey);

	if (unlikely(!mr))
		return NULL;
	/* A window's rkey is no lkey (IBA 10.6.7). */
	if (unlikely(mr->mw || mr->ibmr.pd != pd ||
		     (mr->access & access) != access ||
		     !sroce_mem_in_mr(mr, sge->addr, sge->length))) {
		sroce_mr_put(mr);
		return NULL;
	}
	return mr;
}

/* Copy @len bytes from byte @offset of the SGE list through @io. */
static int sroce_mem_sge_io(struct sroce_dev *sdev, struct ib_pd *pd,
			    const struct sroce_sge *sge, u32 num_sge,
			    u32 offset, u32 len, struct sroce_mem_io *io)
{
	int access = io->dir == SROCE_TO_MEM ? IB_ACCESS_LOCAL_WRITE : 0;
	u32 i;

	for (i = 0; i < num_sge && len; i++) {
		struct sroce_mr *mr;
		u32 n;
		int err;

		if (offset >= sge[i].length) {
			offset -= sge[i].length;
			continue;
		}
		n = min(len, sge[i].length - offset);
		mr = sroce_mem_sge_mr(sdev, pd, &sge[i], access);
		if (unlikely(!mr))
			return -EINVAL;
		err = sroce_mem_mr_io(mr, sge[i].addr + offset, n, io);
		sroce_mr_put(mr);
		if (unlikely(err))
			return err;
		offset = 0;
		len -= n;
	}
	/* The SGEs end before the requested bytes do. */
	return len ? -EINVAL : 0;
}

int sroce_mem_sge_copy(struct sroce_dev *sdev, struct ib_pd *pd,
		       const struct sroce_sge *sge, u32 num_sge, u32 offset,
		       void *buf, u32 len, enum sroce_copy_dir dir)
{
	struct sroce_mem_io io = { .dir = dir, .buf = buf };

	return sroce_mem_sge_io(sdev, pd, sge, num_sge, offset, len, &io);
}

int sroce_mem_sge_copy_skb(struct sroce_dev *sdev, struct ib_pd *pd,
			   const struct sroce_sge *sge, u32 num_sge, u32 offset,
			   struct sk_buff *skb, u32 skb_off, u32 len,
			   enum sroce_copy_dir dir)
{
	struct sroce_mem_io io = { .dir = dir, .skb = skb, .off = skb_off };

	return sroce_mem_sge_io(sdev, pd, sge, num_sge, offset, len, &io);
}

int sroce_mem_atomic(struct sroce_mr *mr, u64 va, bool cmp_swap, u64 compare,
		     u64 swap_add, u64 *orig)
{
	atomic64_t *target;
	u8 *kaddr;
	u64 off;

	/* IBA o9-20: atomics address naturally aligned 8 bytes. */
	if (unlikely(va & 7 || !sroce_mem_in_mr(mr, va, 8)))
		return -EINVAL;

	if (mr->fr) {
		u32 n;

		/*
		 * 8 aligned bytes never straddle a page of >= 512 bytes; n
		 * is short only if a new registration ends inside them.
		 */
		kaddr = NULL;
		target = (atomic64_t *)sroce_mem_fr_addr(mr, va, 8, &n);
		if (unlikely(!target || n < 8))
			return -EINVAL;
	} else if (mr->pages) {
		off = va - mr->iova + mr->page_off;
		if (unlikely((off >> PAGE_SHIFT) >= mr->npages))
			return -EINVAL;
		kaddr = kmap_local_page(mr->pages[off >> PAGE_SHIFT]);
		target = (atomic64_t *)(kaddr + (off & ~PAGE_MASK));
	} else {
		kaddr = NULL;
		target = (atomic64_t *)(uintptr_t)va;
	}

	/* Atomic against every CPU, including user space on this host. */
	if (cmp_swap)
		*orig = atomic64_cmpxchg(target, compare, swap_add);
	else
		*orig = atomic64_fetch_add(swap_add, target);

	if (kaddr)
		kunmap_local(kaddr);
	return 0;
}

int sroce_mem_mr_init(struct sroce_mr *mr)
{
	struct ib_umem *umem = mr->umem;
	struct sg_page_iter iter;
	unsigned long n = 0;

	if (!umem)
		return 0;
	mr->page_off = ib_umem_offset(umem);
	mr->npages = DIV_ROUND_UP((u64)mr->page_off + umem->length, PAGE_SIZE);
	mr->pages = kvcalloc(mr->npages, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages)
		return -ENOMEM;
	for_each_sgtable_page(&umem->sgt_append.sgt, &iter, 0) {
		if (n == mr->npages)
			break;
		mr->pages[n++] = sg_page_iter_page(&iter);
	}
	/* A hole would send a copy to the wrong page: refuse the MR. */
	if (n != mr->npages) {
		sroce_mem_mr_cleanup(mr);
		return -EFAULT;
	}
	return 0;
}

void sroce_mem_mr_cleanup(struct sroce_mr *mr)
{
	kvfree(mr->pages);
	mr->pages = NULL;
	mr->npages = 0;
}
