/* SPDX-License-Identifier: GPL-2.0 */
/*
 * txpool.h - memory for the segments of transmit batches (pkt.h).
 */
#ifndef _SROCE_TXPOOL_H
#define _SROCE_TXPOOL_H

#include <linux/mm_types.h>
#include <linux/percpu.h>

/* Pages of 32 KiB: seven 4 KiB-MTU segments, or a whole 1 KiB-MTU batch. */
#define SROCE_TXPOOL_ORDER 3
#define SROCE_TXPOOL_PAGE_SIZE (PAGE_SIZE << SROCE_TXPOOL_ORDER)
/*
 * Pages each CPU keeps for reuse, filled on first use only: 2 MiB, more
 * than a QP's window of 256 packets of 4 KiB (SROCE_REQ_WINDOW,
 * req.h) keeps in flight.
 */
#define SROCE_TXPOOL_PAGES 64

/*
 * One CPU's pages.  Only that CPU touches it, with BH disabled.  Each page
 * in the ring holds one reference of the pool's own; a segment handed out
 * takes one more, which the skb drops when it is freed.
 */
struct sroce_txpool_cpu {
	struct page *page[SROCE_TXPOOL_PAGES];
	unsigned int cur; /* the page being carved */
	unsigned int off; /* its first free byte */
};

struct sroce_txpool {
	struct sroce_txpool_cpu __percpu *cpu;
};

int sroce_txpool_init(struct sroce_txpool *pool);
void sroce_txpool_fini(struct sroce_txpool *pool);
/*
 * @len bytes (at most SROCE_TXPOOL_PAGE_SIZE) for one segment: returns its
 * address and sets *@page and *@off for skb_fill_page_desc(); the caller
 * owns one page reference.  NULL when no memory.
 */
void *sroce_txpool_alloc(struct sroce_txpool *pool, unsigned int len,
			 struct page **page, unsigned int *off);

#endif /* _SROCE_TXPOOL_H */
