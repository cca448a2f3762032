// SPDX-License-Identifier: GPL-2.0
/*
 * txpool.c - reusable pages for the segments of transmit batches.
 *
 * A batch (pkt.c) puts every RoCE packet in its own page fragment.  Taking
 * them from the page allocator costs a page allocation per few packets,
 * and with init_on_alloc (on by default in Debian's kernels) zeroing each
 * page first: as much work as copying the payload once more.
 *
 * Instead each CPU keeps a small ring of 32 KiB pages per device and
 * carves segments out of the current page.  When it moves on to the next
 * page of the ring, it reuses it only if the pool's own reference is the
 * last one, i.e. every skb that carried a segment of it has been freed
 * (by the receiver's copy, the NIC's completion or a dropped packet);
 * otherwise it lets go of that page, which its last user frees, and
 * allocates a new one.  Every byte of a segment is written by the builder
 * (headers, payload, pad, ICRC), so a reused page never leaks old data.
 *
 * Concurrency: a CPU's ring is touched only by that CPU with BH disabled
 * (the requester runs in process context and in softirq, READ responses
 * in softirq).  References are ordinary page references, so skb clones,
 * captures and segmentation need nothing special.
 */
#include <linux/bottom_half.h>
#include <linux/gfp.h>
#include <linux/mm.h>

#include "txpool.h"

int sroce_txpool_init(struct sroce_txpool *pool)
{
	pool->cpu = alloc_percpu(struct sroce_txpool_cpu);
	return pool->cpu ? 0 : -ENOMEM;
}

void sroce_txpool_fini(struct sroce_txpool *pool)
{
	unsigned int i;
	int cpu;

	if (!pool->cpu)
		return;
	for_each_possible_cpu(cpu) {
		struct sroce_txpool_cpu *c = per_cpu_ptr(pool->cpu, cpu);

		/* Pages still in flight are freed by their last skb. */
		for (i = 0; i < SROCE_TXPOOL_PAGES; i++)
			if (c->page[i])
				put_page(c->page[i]);
	}
	free_percpu(pool->cpu);
	pool->cpu = NULL;
}

/* Make the next page of the ring current: reuse it if it is idle. */
static struct page *sroce_txpool_next(struct sroce_txpool_cpu *c)
{
	struct page *page;

	c->cur = (c->cur + 1) % SROCE_TXPOOL_PAGES;
	c->off = 0;
	page = c->page[c->cur];
	if (page) {
		if (page_ref_count(page) == 1) {
			/* Order the old users' accesses before our writes. */
			smp_acquire__after_ctrl_dep();
			return page;
		}
		put_page(page);
	}
	page = alloc_pages(GFP_ATOMIC | __GFP_COMP | __GFP_NOWARN |
				   __GFP_NORETRY,
			   SROCE_TXPOOL_ORDER);
	c->page[c->cur] = page;
	return page;
}

void *sroce_txpool_alloc(struct sroce_txpool *pool, unsigned int len,
			 struct page **pagep, unsigned int *offp)
{
	struct sroce_txpool_cpu *c;
	struct page *page;
	void *addr = NULL;

	if (WARN_ON_ONCE(len > SROCE_TXPOOL_PAGE_SIZE))
		return NULL;
	local_bh_disable();
	c = this_cpu_ptr(pool->cpu);
	page = c->page[c->cur];
	if (!page || c->off + len > SROCE_TXPOOL_PAGE_SIZE)
		page = sroce_txpool_next(c);
	if (page) {
		get_page(page);
		*pagep = page;
		*offp = c->off;
		addr = page_address(page) + c->off;
		/* Keep segments cache-line aligned. */
		c->off += ALIGN(len, SMP_CACHE_BYTES);
	}
	local_bh_enable();
	return addr;
}
