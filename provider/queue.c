// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * queue.c - mapping the rings sroce.ko shares with the process.
 *
 * The create response says where a ring is (mmap offset on the uverbs fd)
 * and how many bytes it spans; the ring header says how it is cut into
 * slots.  Both come from the kernel, but they are written by different code
 * paths, so they are cross-checked here once: a ring whose header does not
 * fit its mapping, or that is smaller than what the create response granted,
 * is a kernel/provider mismatch and the object creation fails with EPROTO
 * instead of letting the data path index outside the mapping later.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "queue.h"

/* Slots are a power of two counted by u32 free-running indices. */
#define SROCE_QUEUE_MAX_LOG2_SLOTS 31

/* Slot sizes are a multiple of 16 bytes (sroce-abi.h). */
#define SROCE_QUEUE_SLOT_ALIGN 16

static int sroce_queue_check(uint32_t log2_slots, uint32_t slot_size,
			     uint32_t size, uint32_t min_slots,
			     uint32_t min_slot_size)
{
	uint64_t need;

	if (log2_slots > SROCE_QUEUE_MAX_LOG2_SLOTS || slot_size == 0 ||
	    slot_size % SROCE_QUEUE_SLOT_ALIGN)
		goto mismatch;
	if ((1ULL << log2_slots) < min_slots || slot_size < min_slot_size)
		goto mismatch;
	need = SROCE_RING_DATA_OFFSET + ((uint64_t)slot_size << log2_slots);
	if (need > size)
		goto mismatch;
	return 0;

mismatch:
	/* A kernel/provider disagreement, never a user error: say so once. */
	fprintf(stderr,
		"libsroce: ring geometry mismatch (2^%u slots of %u bytes in %u bytes; need >= %u slots of >= %u bytes): kernel module and provider out of step\n",
		log2_slots, slot_size, size, min_slots, min_slot_size);
	return EPROTO;
}

int sroce_queue_map(struct sroce_queue *q, int cmd_fd, uint64_t offset,
		    uint32_t size, uint32_t min_slots, uint32_t min_slot_size)
{
	uint32_t log2_slots, slot_size;
	struct sroce_ring_hdr *hdr;
	void *map;
	int ret;

	memset(q, 0, sizeof(*q));
	/* off_t is signed: an offset above its range cannot be a real one. */
	if (size < SROCE_RING_DATA_OFFSET || offset > (uint64_t)INT64_MAX)
		return EPROTO;

	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, cmd_fd,
		   (off_t)offset);
	if (map == MAP_FAILED)
		return errno;

	/*
	 * Read the geometry once (atomically, so the compiler cannot re-read
	 * it): what was checked is what is used, whatever is written into the
	 * shared header later.
	 */
	hdr = map;
	log2_slots = atomic_load_explicit((_Atomic uint32_t *)&hdr->log2_slots,
					  memory_order_relaxed);
	slot_size = atomic_load_explicit((_Atomic uint32_t *)&hdr->slot_size,
					 memory_order_relaxed);
	ret = sroce_queue_check(log2_slots, slot_size, size, min_slots,
				min_slot_size);
	if (ret) {
		munmap(map, size);
		return ret;
	}

	q->hdr = hdr;
	q->slots = (uint8_t *)map + SROCE_RING_DATA_OFFSET;
	q->map_size = size;
	q->nslots = 1U << log2_slots;
	q->mask = q->nslots - 1;
	q->slot_size = slot_size;
	return 0;
}

size_t sroce_queue_retire(struct sroce_queue *q)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t size = q->map_size;
	void *hdr = q->hdr;

	/* If the zero page cannot replace it, the whole ring stays mapped. */
	if (size >= page &&
	    mmap(hdr, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) == hdr) {
		if (size > page)
			munmap((uint8_t *)hdr + page, size - page);
		size = page;
	}
	memset(q, 0, sizeof(*q));
	return size;
}

void sroce_queue_unmap(struct sroce_queue *q)
{
	if (!q->hdr)
		return;
	munmap(q->hdr, q->map_size);
	memset(q, 0, sizeof(*q));
}
