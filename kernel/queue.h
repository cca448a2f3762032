/* SPDX-License-Identifier: GPL-2.0 */
/*
 * queue.h - rings shared with user space (SQ, RQ, CQ) and their kernel twins.
 *
 * A ring is one buffer laid out as include/uapi/rdma/sroce-abi.h describes:
 * struct sroce_ring_hdr, then nslots slots of slot_size bytes.  User rings
 * are vmalloc_user()ed and mapped into the process through an
 * rdma_user_mmap_entry; kernel rings (kernel consumers) are kvzalloc()ed and
 * never mapped.  Both use the same layout and the same helpers.
 *
 * Single producer, single consumer
 * --------------------------------
 * Every ring has one producer and one consumer.  prod and cons in the shared
 * header are free-running; the producer publishes a slot by a store-release
 * of prod after writing it, the consumer reads prod with a load-acquire
 * before reading slots and gives a slot back by a store-release of cons.
 *
 * The kernel keeps in struct sroce_queue a private copy of each index.  For
 * the index the kernel owns, the private copy is the truth and the shared
 * header only mirrors it; for the index the peer owns (user space), the
 * private copy is the last value read that passed validation.  A peer index
 * more than nslots away from the kernel's own index is a protocol error
 * (-EPROTO), never an out-of-bounds access: slot addresses are always
 * computed from an index masked with nslots - 1.
 *
 * The helpers take no lock.  Each caller serialises its own side of the ring
 * with the lock of the owning object, named where the helper is used:
 * cq->lock for CQ rings, qp->sq.lock and qp->rq.lock for the work queues.
 */
#ifndef _SROCE_QUEUE_H
#define _SROCE_QUEUE_H

#include <linux/types.h>
#include <linux/build_bug.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

static_assert(sizeof(struct sroce_ring_hdr) == 3 * SROCE_RING_CACHELINE);
static_assert(offsetof(struct sroce_ring_hdr, prod) == SROCE_RING_CACHELINE);
static_assert(offsetof(struct sroce_ring_hdr, cons) ==
	      2 * SROCE_RING_CACHELINE);
static_assert(sizeof(struct sroce_sge) == 16);
static_assert(sizeof(struct sroce_send_wqe) == 64);
static_assert(sizeof(struct sroce_recv_wqe) == 16);
static_assert(sizeof(struct sroce_cqe) == 64);
/* sroce_cqe.wc_flags carries IB_WC_* bits under their ABI names. */
static_assert(SROCE_CQE_F_GRH == IB_WC_GRH);
static_assert(SROCE_CQE_F_WITH_IMM == IB_WC_WITH_IMM);
static_assert(SROCE_CQE_F_WITH_INV == IB_WC_WITH_INVALIDATE);
static_assert(SROCE_CQE_F_IP_CSUM_OK == IB_WC_IP_CSUM_OK);

/* An mmap()able ring buffer; owns @buf once inserted into a ucontext. */
struct sroce_mmap_entry {
	struct rdma_user_mmap_entry rdma; /* offset and refcount (core) */
	void *buf; /* vmalloc_user() memory */
};

struct sroce_queue {
	struct sroce_ring_hdr *hdr; /* start of the buffer */
	void *slots; /* hdr + SROCE_RING_DATA_OFFSET */
	u32 nslots; /* power of two */
	u32 slot_size; /* bytes, multiple of 16 */
	u32 prod; /* private producer index (see top) */
	u32 cons; /* private consumer index (see top) */
	size_t size; /* bytes allocated (page aligned if user) */
	bool user; /* vmalloc_user()ed, for mmap */
	/* Set once published; then the entry owns the buffer (mmap_free). */
	struct sroce_mmap_entry *mentry;
};

/*
 * Geometry: the number of slots granted for @want entries, or 0 when @want
 * exceeds @max (which must be a power of two).  Zero entries still get one
 * slot so that every ring has a valid header and mapping.
 */
static inline u32 sroce_queue_slots_for(u32 want, u32 max)
{
	if (want > max)
		return 0;
	return roundup_pow_of_two(want ? want : 1);
}

/* Bytes of a ring with @nslots slots of @slot_size, header included. */
static inline size_t sroce_queue_bytes(u32 nslots, u32 slot_size)
{
	return SROCE_RING_DATA_OFFSET + (size_t)nslots * slot_size;
}

int sroce_queue_init(struct sroce_queue *q, bool user, u32 nslots,
		     u32 slot_size);
int sroce_queue_publish(struct sroce_queue *q, struct ib_ucontext *uctx,
			u64 *offset, u32 *size);
void sroce_queue_destroy(struct sroce_queue *q);
void sroce_queue_reset(struct sroce_queue *q);
/*
 * Kernel post_recv / post_srq_recv: write the chain @wr as receive WQEs of
 * at most @max_sge SGEs into @q (whose producer is the kernel) and publish
 * each.  Stops at the first WR with too many SGEs (-EINVAL) or without a
 * free slot (-ENOMEM), pointing *@bad_wr at it.  Caller holds the lock
 * that guards @q's kernel side.
 */
int sroce_queue_post_recv(struct sroce_queue *q, u32 max_sge,
			  const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr);
/*
 * Resize: copy the @n entries from @from's consumer index on to the start
 * of the fresh ring @to and publish them (its prod).  Caller holds the
 * lock that guards @from's kernel side and checked @n against both rings.
 */
void sroce_queue_move(struct sroce_queue *to, const struct sroce_queue *from,
		      u32 n);
void sroce_queue_set_flags(struct sroce_queue *q, u32 flags);
void sroce_queue_clear_flags(struct sroce_queue *q, u32 flags);

/* ops.mmap and ops.mmap_free of the device (ring mappings only). */
int sroce_queue_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void sroce_queue_mmap_free(struct rdma_user_mmap_entry *rdma);

/* Slot @idx (any free-running index; it is masked here). */
static inline void *sroce_queue_slot(const struct sroce_queue *q, u32 idx)
{
	return q->slots + (size_t)(idx & (q->nslots - 1)) * q->slot_size;
}

/* Entries between the private indices (both sides kernel, or validated). */
static inline u32 sroce_queue_count(const struct sroce_queue *q)
{
	return q->prod - q->cons;
}

/*
 * Consumer side.  Reads the producer's index (load-acquire: the slots up to
 * it are visible afterwards), validates it against the private cons and
 * stores it in q->prod.  Returns the number of entries ready, or -EPROTO
 * when the producer published an impossible index.
 * Caller holds the lock of the consuming side.
 */
static inline int sroce_queue_peer_prod(struct sroce_queue *q)
{
	/* Pairs with the producer's release: slots up to prod are written. */
	u32 prod = smp_load_acquire(&q->hdr->prod);

	if (unlikely(prod - q->cons > q->nslots))
		return -EPROTO;
	q->prod = prod;
	return prod - q->cons;
}

/* Consumer side: give back @n slots (store-release of cons). */
static inline void sroce_queue_consume(struct sroce_queue *q, u32 n)
{
	q->cons += n;
	/* Our reads of the slots happen before the producer reuses them. */
	smp_store_release(&q->hdr->cons, q->cons);
}

/*
 * Producer side.  Reads the consumer's index (load-acquire: the consumer is
 * done with the slots before it), validates it against the private prod and
 * stores it in q->cons.  Returns the number of free slots, or -EPROTO when
 * the consumer published an impossible index.
 * Caller holds the lock of the producing side.
 */
static inline int sroce_queue_peer_cons(struct sroce_queue *q)
{
	/* Pairs with the consumer's release: it is done with those slots. */
	u32 cons = smp_load_acquire(&q->hdr->cons);

	if (unlikely(q->prod - cons > q->nslots))
		return -EPROTO;
	q->cons = cons;
	return q->nslots - (q->prod - cons);
}

/* Producer side: publish the slot at q->prod (store-release of prod). */
static inline void sroce_queue_produce(struct sroce_queue *q)
{
	q->prod++;
	/* The slot's contents are visible before the new prod. */
	smp_store_release(&q->hdr->prod, q->prod);
}

#endif /* _SROCE_QUEUE_H */
