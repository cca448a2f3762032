/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fr.h - fast registration (IB_WR_REG_MR), local invalidation
 * (IB_WR_LOCAL_INV) and remote invalidation (SEND with Invalidate) of the
 * memory regions kernel consumers allocate with ib_alloc_mr()
 * (IBA 10.6.2 and 10.7: "Fast Registration", "Invalidation").
 *
 * States (IBA 10.6.2.3): an MR from alloc_mr starts Free; REG_MR makes it
 * Valid with the key, iova, length, access and pages ib_map_mr_sg() staged;
 * LOCAL_INV or a SEND with Invalidate naming its key makes it Free again.
 * REG_MR on a Valid MR fails (the consumer invalidates first).
 *
 * Contexts: REG_MR and LOCAL_INV execute on the SEND side of the posting
 * QP (req.lock held, softirq or process); remote invalidation on the
 * RECEIVE side of the receiving QP (resp.lock held, softirq).  They
 * serialise on mr->fr_lock (irqsave).  Lookups (mr.c, any context) read
 * fr_valid with load-acquire and find the MR only while it is Valid.
 *
 * An invalidation does not wait for holders that found the MR Valid: one
 * may still be copying when the owner registers the MR again.  REG_MR
 * rewrites the page list, page size, iova and length inside mr->fr_seq
 * (a seqcount of fr_lock), and mem.c reads them as one snapshot for every
 * chunk it copies and checks the chunk against that snapshot, so a holder
 * never combines one registration's page size with another's pages (which
 * would reach past a registered page).  Such a late holder's bytes land in
 * the current registration, inside it.
 */
#ifndef _SROCE_FR_H
#define _SROCE_FR_H

#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

struct sroce_dev;
struct sroce_mr;
struct sroce_qp;
struct sroce_swqe;

/*
 * Kernel-only send WQE opcode for IB_WR_REG_MR (never accepted from a
 * user ring): wr.rdma.remote_addr holds the struct ib_mr pointer,
 * wr.rdma.rkey the new key, wr.rdma.reserved the access flags.
 */
#define SROCE_WR_K_REG_MR 0x80

/* Largest page list of one fast-registration MR. */
#define SROCE_FR_MAX_PAGES 512

struct ib_mr *sroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg);
int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);

/* Is @op a local operation the requester executes without a packet? */
static inline bool sroce_fr_local_op(u32 op)
{
	return op == SROCE_WR_K_REG_MR || op == SROCE_WR_LOCAL_INV ||
	       op == SROCE_WR_BIND_MW;
}

/*
 * Requester: execute the local operation of @swqe for @qp.  Returns the
 * work completion status (IB_WC_SUCCESS or the error to complete with).
 * Caller holds qp->req.lock.
 */
enum ib_wc_status sroce_fr_execute(struct sroce_qp *qp,
				   const struct sroce_swqe *swqe);

/*
 * Invalidate the fast-registration MR or type 2 window of @key, which must
 * belong to @pd (SEND with Invalidate, LOCAL_INV, on QP @qpn; a window
 * only on the QP it was bound through).  0, or -EINVAL when no Valid
 * fast-registration MR or bound window of @pd has that key.
 */
int sroce_fr_invalidate(struct sroce_dev *sdev, struct ib_pd *pd, u32 qpn,
			u32 key);

#endif /* _SROCE_FR_H */
