/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * queue.h - the provider's view of one ring shared with sroce.ko.
 *
 * The ring layout and the ownership of its indices are defined once, in
 * include/uapi/rdma/sroce-abi.h: a struct sroce_ring_hdr, then 2^log2_slots
 * slots; prod and cons are free-running u32 counters; exactly one producer
 * and one consumer per ring.
 *
 *   ring   producer                   consumer
 *   SQ     user space: post_send      kernel
 *   RQ     user space: post_recv      kernel
 *   CQ     kernel                     user space: poll_cq
 *
 * The only cross-side ordering needed is the one in that header: the
 * producer fills a slot, then publishes it with a store-release of prod; the
 * consumer load-acquires prod before reading slots, and gives slots back with
 * a store-release of cons, which the producer load-acquires before reusing a
 * slot.  Each helper below says which side calls it and which provider lock
 * the caller must hold; that lock is what makes "one producer" or "one
 * consumer" true when the application posts or polls from several threads.
 *
 * An index this side owns is only ever written by this side, so reading it
 * back needs no ordering (relaxed).  An index the kernel owns is read with
 * acquire.  The kernel may also be buggy or a ring may be torn down under
 * us: helpers never index outside the mapping whatever the counters say
 * (slot index = counter & mask).
 */
#ifndef SROCE_PROVIDER_QUEUE_H
#define SROCE_PROVIDER_QUEUE_H

#include <assert.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/sroce-abi.h>

/*
 * The index fields are plain __u32 in the uapi header: check they can be
 * accessed as C11 atomics of the same size and alignment.
 */
static_assert(sizeof(_Atomic uint32_t) == sizeof(__u32),
	      "ring index atomic size");
static_assert(_Alignof(_Atomic uint32_t) == _Alignof(__u32),
	      "ring index atomic alignment");
/* The header layout the helpers rely on (three cache lines). */
static_assert(offsetof(struct sroce_ring_hdr, log2_slots) == 0,
	      "sroce_ring_hdr.log2_slots");
static_assert(offsetof(struct sroce_ring_hdr, slot_size) == 4,
	      "sroce_ring_hdr.slot_size");
static_assert(offsetof(struct sroce_ring_hdr, flags) == 8,
	      "sroce_ring_hdr.flags");
static_assert(offsetof(struct sroce_ring_hdr, prod) == SROCE_RING_CACHELINE,
	      "sroce_ring_hdr.prod");
static_assert(offsetof(struct sroce_ring_hdr, cons) == 2 * SROCE_RING_CACHELINE,
	      "sroce_ring_hdr.cons");
static_assert(sizeof(struct sroce_ring_hdr) == 3 * SROCE_RING_CACHELINE,
	      "sroce_ring_hdr size");

/*
 * One mapped ring.  Geometry is copied out of the header once, at map time,
 * after it was checked against the create response (queue.c): the kernel
 * writes it once before mapping, and a private copy means a later scribble
 * cannot make us index out of bounds.
 */
struct sroce_queue {
	struct sroce_ring_hdr *hdr; /* start of the mapping, NULL if none */
	uint8_t *slots; /* slot 0 (hdr + SROCE_RING_DATA_OFFSET) */
	size_t map_size; /* bytes mapped, for munmap */
	uint32_t nslots; /* 1 << log2_slots */
	uint32_t mask; /* nslots - 1 */
	uint32_t slot_size; /* bytes per slot */
};

/* Map a ring and check its geometry (queue.c).  0 or a positive errno. */
int sroce_queue_map(struct sroce_queue *q, int cmd_fd, uint64_t offset,
		    uint32_t size, uint32_t min_slots, uint32_t min_slot_size);
/* Unmap a ring; a no-op on one that was never mapped. */
void sroce_queue_unmap(struct sroce_queue *q);
/*
 * Take @q out of use while a lockless reader may still be reading its
 * header (sroce_queue_cons_maybe_ready()): the header's page becomes an
 * anonymous zero page (prod == cons: an empty ring), the rest is unmapped.
 * Returns the bytes left mapped at the old header address, for the
 * caller to munmap() once no reader can be there (destroy).
 */
size_t sroce_queue_retire(struct sroce_queue *q);

static inline bool sroce_queue_is_mapped(const struct sroce_queue *q)
{
	return q->hdr != NULL;
}

static inline _Atomic uint32_t *sroce_queue_prod_ptr(struct sroce_queue *q)
{
	return (_Atomic uint32_t *)&q->hdr->prod;
}

static inline _Atomic uint32_t *sroce_queue_cons_ptr(struct sroce_queue *q)
{
	return (_Atomic uint32_t *)&q->hdr->cons;
}

static inline void *sroce_queue_slot(struct sroce_queue *q, uint32_t index)
{
	return q->slots + (size_t)(index & q->mask) * q->slot_size;
}

/*
 * True once the kernel flagged the owning object as in error (e.g. a QP
 * moved to the error state and flushed).  Any side, no lock: the flag is
 * advisory and re-read on every call.  Acquire so that CQEs the kernel
 * wrote before setting it are visible.
 */
static inline bool sroce_queue_in_error(struct sroce_queue *q)
{
	return atomic_load_explicit((_Atomic uint32_t *)&q->hdr->flags,
				    memory_order_acquire) &
	       SROCE_RING_F_ERROR;
}

/* ---- Producer side (SQ: caller holds qp->sq_lock; RQ: qp->rq_lock) ---- */

/*
 * Number of free slots.  Reads our own prod (relaxed: only we write it,
 * under the lock we hold) and the kernel's cons (acquire: the kernel is
 * done with every slot before cons, so they may be overwritten).  A cons
 * that claims more was consumed than we produced is a kernel bug; report
 * the ring as full rather than let the producer run over live slots.
 */
static inline uint32_t sroce_queue_prod_space(struct sroce_queue *q)
{
	uint32_t prod = atomic_load_explicit(sroce_queue_prod_ptr(q),
					     memory_order_relaxed);
	uint32_t cons = atomic_load_explicit(sroce_queue_cons_ptr(q),
					     memory_order_acquire);
	uint32_t used = prod - cons;

	return used > q->nslots ? 0 : q->nslots - used;
}

/*
 * The slot the next work request goes into.  Only valid after
 * sroce_queue_prod_space() returned non-zero under the same lock hold.
 */
static inline void *sroce_queue_prod_slot(struct sroce_queue *q)
{
	return sroce_queue_slot(q, atomic_load_explicit(sroce_queue_prod_ptr(q),
							memory_order_relaxed));
}

/*
 * Publish @count filled slots to the kernel.  Release: every byte written
 * into those slots is visible to the kernel before the new prod is.
 */
static inline void sroce_queue_prod_advance(struct sroce_queue *q,
					    uint32_t count)
{
	uint32_t prod = atomic_load_explicit(sroce_queue_prod_ptr(q),
					     memory_order_relaxed);

	atomic_store_explicit(sroce_queue_prod_ptr(q), prod + count,
			      memory_order_release);
}

/* ---- Consumer side (CQ: caller holds cq->lock) ---- */

/*
 * Number of entries ready to consume.  Acquire on the kernel's prod pairs
 * with the kernel's store-release after it wrote the slots, so the slots
 * below prod can be read.  A prod more than nslots ahead of our cons is a
 * kernel bug: report nothing rather than read slots being rewritten.
 */
static inline uint32_t sroce_queue_cons_ready(struct sroce_queue *q)
{
	uint32_t prod = atomic_load_explicit(sroce_queue_prod_ptr(q),
					     memory_order_acquire);
	uint32_t cons = atomic_load_explicit(sroce_queue_cons_ptr(q),
					     memory_order_relaxed);
	uint32_t ready = prod - cons;

	return ready > q->nslots ? 0 : ready;
}

/*
 * Without the consumer's lock: might a slot be ready?  False only when
 * prod equalled cons at one moment, so an empty poll can return at once
 * (what a busy-polling application does nearly every time); anything
 * else is decided again under the lock by sroce_queue_cons_ready().
 * resize_cq leaves a replaced ring's header mapped, as an empty ring,
 * until destroy (sroce_queue_retire()): a racing check reads no hole.
 */
static inline bool sroce_queue_cons_maybe_ready(struct sroce_queue *q)
{
	return atomic_load_explicit(sroce_queue_prod_ptr(q),
				    memory_order_relaxed) !=
	       atomic_load_explicit(sroce_queue_cons_ptr(q),
				    memory_order_relaxed);
}

/*
 * The oldest unconsumed slot.  Only valid after sroce_queue_cons_ready()
 * returned non-zero under the same lock hold.  Copy the entry out before
 * sroce_queue_cons_advance(): after it the kernel may overwrite the slot.
 */
static inline void *sroce_queue_cons_slot(struct sroce_queue *q)
{
	return sroce_queue_slot(q, atomic_load_explicit(sroce_queue_cons_ptr(q),
							memory_order_relaxed));
}

/*
 * Give @count consumed slots back to the kernel.  Release: our reads of
 * those slots complete before the kernel can see them as free.
 */
static inline void sroce_queue_cons_advance(struct sroce_queue *q,
					    uint32_t count)
{
	uint32_t cons = atomic_load_explicit(sroce_queue_cons_ptr(q),
					     memory_order_relaxed);

	atomic_store_explicit(sroce_queue_cons_ptr(q), cons + count,
			      memory_order_release);
}

#endif /* SROCE_PROVIDER_QUEUE_H */
