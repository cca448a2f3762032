// SPDX-License-Identifier: GPL-2.0
/*
 * queue.c - allocation, mapping and lifetime of ring buffers.
 *
 * Lifetime of a user ring: sroce_queue_init() allocates the buffer with
 * vmalloc_user(); sroce_queue_publish() hands it to a new mmap entry of the
 * ucontext, which owns it from then on.  sroce_queue_destroy() only removes
 * the entry; ib_core calls sroce_queue_mmap_free() when the last reference
 * to the entry is gone, and that frees the buffer.  Pages already mapped into
 * a process hold their own page references (vm_insert_page), so a process
 * that keeps a ring mapped after destroying its object never sees memory
 * returned to the allocator.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "queue.h"

static struct sroce_mmap_entry *to_mentry(struct rdma_user_mmap_entry *rdma)
{
	return container_of(rdma, struct sroce_mmap_entry, rdma);
}

/**
 * sroce_queue_init - allocate an empty ring
 * @q: ring to set up (zeroed by the caller or not; every field is written)
 * @user: allocate for mapping into user space
 * @nslots: number of slots, a power of two
 * @slot_size: bytes per slot, a non-zero multiple of 16
 *
 * Return: 0 or -ENOMEM; on failure nothing is left allocated.
 */
int sroce_queue_init(struct sroce_queue *q, bool user, u32 nslots,
		     u32 slot_size)
{
	size_t size = sroce_queue_bytes(nslots, slot_size);

	if (WARN_ON_ONCE(!is_power_of_2(nslots) || !slot_size ||
			 slot_size % 16))
		return -EINVAL;

	if (user) {
		size = PAGE_ALIGN(size);
		q->hdr = vmalloc_user(size);
	} else {
		q->hdr = kvzalloc(size, GFP_KERNEL);
	}
	if (!q->hdr)
		return -ENOMEM;

	q->slots = (void *)q->hdr + SROCE_RING_DATA_OFFSET;
	q->nslots = nslots;
	q->slot_size = slot_size;
	q->prod = 0;
	q->cons = 0;
	q->size = size;
	q->user = user;
	q->mentry = NULL;

	q->hdr->log2_slots = ilog2(nslots);
	q->hdr->slot_size = slot_size;
	q->hdr->flags = 0;
	q->hdr->prod = 0;
	q->hdr->cons = 0;
	return 0;
}

/**
 * sroce_queue_publish - make a user ring mappable
 * @q: ring from sroce_queue_init(@user = true), not yet published
 * @uctx: the ucontext whose uverbs file may map it
 * @offset: mmap offset for user space
 * @size: bytes to map
 *
 * On success the mmap entry owns the buffer.  On failure the caller still
 * owns it and releases it with sroce_queue_destroy().
 */
int sroce_queue_publish(struct sroce_queue *q, struct ib_ucontext *uctx,
			u64 *offset, u32 *size)
{
	struct sroce_mmap_entry *me;
	int err;

	if (WARN_ON_ONCE(!q->user || q->mentry))
		return -EINVAL;

	me = kzalloc(sizeof(*me), GFP_KERNEL);
	if (!me)
		return -ENOMEM;
	me->buf = q->hdr;

	err = rdma_user_mmap_entry_insert(uctx, &me->rdma, q->size);
	if (err) {
		kfree(me);
		return err;
	}
	q->mentry = me;
	*offset = rdma_user_mmap_get_offset(&me->rdma);
	*size = q->size;
	return 0;
}

/**
 * sroce_queue_destroy - release a ring
 * @q: ring from sroce_queue_init(), or a zeroed struct (then nothing to do)
 *
 * A published ring is only unlinked from the ucontext here; its buffer is
 * freed by sroce_queue_mmap_free() once no mmap() is in progress on it.
 * The caller must make sure no one uses @q any more.
 */
void sroce_queue_destroy(struct sroce_queue *q)
{
	if (!q->hdr)
		return;
	if (q->mentry)
		rdma_user_mmap_entry_remove(&q->mentry->rdma);
	else if (q->user)
		vfree(q->hdr);
	else
		kvfree(q->hdr);
	q->hdr = NULL;
	q->slots = NULL;
	q->mentry = NULL;
}

void sroce_queue_move(struct sroce_queue *to, const struct sroce_queue *from,
		      u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		memcpy(sroce_queue_slot(to, i),
		       sroce_queue_slot(from, from->cons + i), from->slot_size);
	to->prod = n;
	/* The copied entries are visible before the fresh ring's prod. */
	smp_store_release(&to->hdr->prod, to->prod);
}

int sroce_queue_post_recv(struct sroce_queue *q, u32 max_sge,
			  const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr)
{
	struct sroce_recv_wqe *wqe;
	struct sroce_sge *sge;
	int i, err;

	for (; wr; wr = wr->next) {
		err = 0;
		if (wr->num_sge < 0 || (u32)wr->num_sge > max_sge)
			err = -EINVAL;
		else if (sroce_queue_peer_cons(q) <= 0)
			err = -ENOMEM;
		if (err) {
			*bad_wr = wr;
			return err;
		}
		wqe = sroce_queue_slot(q, q->prod);
		wqe->wr_id = wr->wr_id;
		wqe->num_sge = wr->num_sge;
		wqe->reserved = 0;
		sge = (struct sroce_sge *)(wqe + 1);
		for (i = 0; i < wr->num_sge; i++) {
			sge[i].addr = wr->sg_list[i].addr;
			sge[i].length = wr->sg_list[i].length;
			sge[i].lkey = wr->sg_list[i].lkey;
		}
		sroce_queue_produce(q);
	}
	return 0;
}

/**
 * sroce_queue_reset - drop every entry (QP or CQ back to its initial state)
 * @q: ring
 *
 * Kernel rings restart at index 0.  For a user ring the kernel cannot move
 * the user's index, so it catches up with it: the kernel's own index jumps
 * to the peer's, whatever that is, which empties the ring without reading
 * any slot.  The value is not validated (any index is a valid start), so
 * whatever the caller keeps about the ring besides its indices (the
 * requester's cursors) must restart at the new q->cons too.  Caller holds
 * the locks of both sides of the ring.
 */
void sroce_queue_reset(struct sroce_queue *q)
{
	if (!q->user) {
		q->prod = 0;
		q->cons = 0;
		WRITE_ONCE(q->hdr->prod, 0);
		WRITE_ONCE(q->hdr->cons, 0);
		return;
	}
	/*
	 * Either index may be the user's; take the producer's (SQ/RQ) as
	 * the consumer.  For a CQ the kernel produces and keeps its index:
	 * the user consumes what is left or resets its own ring view.
	 */
	q->prod = READ_ONCE(q->hdr->prod);
	q->cons = q->prod;
	/* Same ordering as sroce_queue_consume(): the slots are free. */
	smp_store_release(&q->hdr->cons, q->cons);
}

/* Set ring flags (SROCE_RING_F_*) seen by the user side. */
void sroce_queue_set_flags(struct sroce_queue *q, u32 flags)
{
	WRITE_ONCE(q->hdr->flags, READ_ONCE(q->hdr->flags) | flags);
}

void sroce_queue_clear_flags(struct sroce_queue *q, u32 flags)
{
	WRITE_ONCE(q->hdr->flags, READ_ONCE(q->hdr->flags) & ~flags);
}

/**
 * sroce_queue_mmap - ops.mmap: map one ring buffer
 * @uctx: ucontext of the uverbs file
 * @vma: the mapping; its offset names the entry, its size must be the
 *	 entry's whole size, it must be shared and not executable
 */
int sroce_queue_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma;
	int err;

	if (vma->vm_flags & VM_EXEC)
		return -EPERM;

	/* Checks VM_SHARED and that the size equals the entry's. */
	rdma = rdma_user_mmap_entry_get(uctx, vma);
	if (!rdma)
		return -EINVAL;

	err = remap_vmalloc_range(vma, to_mentry(rdma)->buf, 0);
	rdma_user_mmap_entry_put(rdma);
	return err;
}

/* ops.mmap_free: the last reference to an entry is gone. */
void sroce_queue_mmap_free(struct rdma_user_mmap_entry *rdma)
{
	struct sroce_mmap_entry *me = to_mentry(rdma);

	vfree(me->buf);
	kfree(me);
}
