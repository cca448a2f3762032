/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * poll.h - reaping completions from the CQ ring (poll.c).
 *
 * Pure user space: entries are copied out of the mapped ring under
 * sroce_cq.lock; no system call.
 */
#ifndef SROCE_PROVIDER_POLL_H
#define SROCE_PROVIDER_POLL_H

#include <stdint.h>

#include <infiniband/verbs.h>

/* Work-completion fields an extended CQ can report (create_cq_ex). */
#define SROCE_CQ_EX_WC_FLAGS ((uint64_t)IBV_WC_STANDARD_FLAGS)

/* ibv_poll_cq(): entries polled, or a negative value (errno also set). */
int sroce_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc);

/*
 * Fill the poll and read_* callbacks of a new extended CQ for @wc_flags
 * (a subset of SROCE_CQ_EX_WC_FLAGS); libibverbs calls them directly.
 */
void sroce_cq_ex_set_ops(struct ibv_cq_ex *cq, uint64_t wc_flags);

#endif /* SROCE_PROVIDER_POLL_H */
