// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * poll.c - reaping completions from the CQ ring.
 *
 * The kernel produces struct sroce_cqe entries into the mapped CQ ring;
 * polling is pure user space.  The consumer side is serialised by
 * sroce_cq.lock (queue.h): ibv_poll_cq takes it per call, the extended-CQ
 * API holds it from a successful start_poll to end_poll.
 *
 * Every entry is copied out of its slot before the slot is given back
 * (store-release of cons): after that the kernel may overwrite it.  The
 * extended API does the same, one entry at a time, into sroce_cq.cur, so
 * the consumer index advances exactly once per entry handed out whatever
 * sequence of start/next/end the application makes; there is no "advance
 * later" state that could run past the producer.
 *
 * wc_flags: the kernel fills one CQE format for its own CQs and for user
 * CQs, with the kernel's IB_WC_* bits (cq.c decodes them for kernel CQs).
 * Two of those bits differ from libibverbs' IBV_WC_*, so they are
 * translated here.
 */
#include <errno.h>
#include <string.h>

#include "poll.h"
#include "verbs.h"

static_assert(IBV_WC_GRH == SROCE_CQE_F_GRH, "GRH flag");
static_assert(IBV_WC_WITH_IMM == SROCE_CQE_F_WITH_IMM, "IMM flag");

static unsigned int sroce_cqe_wc_flags(const struct sroce_cqe *e)
{
	unsigned int f = e->wc_flags;
	unsigned int out = f & (SROCE_CQE_F_GRH | SROCE_CQE_F_WITH_IMM);

	if (f & SROCE_CQE_F_WITH_INV)
		out |= IBV_WC_WITH_INV;
	if (f & SROCE_CQE_F_IP_CSUM_OK)
		out |= IBV_WC_IP_CSUM_OK;
	return out;
}

/*
 * Copy the oldest entry out of the ring and give its slot back.
 * Caller holds cq->lock and saw sroce_queue_cons_ready() > 0.
 */
static void sroce_cq_take(struct sroce_cq *scq, struct sroce_cqe *e)
{
	memcpy(e, sroce_queue_cons_slot(&scq->ring), sizeof(*e));
	sroce_queue_cons_advance(&scq->ring, 1);
}

static void sroce_cqe_to_wc(const struct sroce_cqe *e, struct ibv_wc *wc)
{
	wc->wr_id = e->wr_id;
	wc->status = (enum ibv_wc_status)e->status;
	wc->opcode = (enum ibv_wc_opcode)e->opcode;
	wc->vendor_err = e->vendor_err;
	wc->byte_len = e->byte_len;
	wc->wc_flags = sroce_cqe_wc_flags(e);
	if (wc->wc_flags & IBV_WC_WITH_INV)
		wc->invalidated_rkey = e->ex.invalidate_rkey;
	else
		wc->imm_data = e->ex.imm_data;
	wc->qp_num = e->qp_num;
	wc->src_qp = e->src_qp;
	wc->pkey_index = e->pkey_index;
	wc->slid = e->slid;
	wc->sl = e->sl;
	wc->dlid_path_bits = e->dlid_path_bits;
}

int sroce_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct sroce_cq *scq = to_scq(ibcq);
	struct sroce_cqe e;
	uint32_t ready;
	int n = 0;

	if (num_entries <= 0 || !sroce_queue_cons_maybe_ready(&scq->ring))
		return 0;

	pthread_spin_lock(&scq->lock);
	ready = sroce_queue_cons_ready(&scq->ring);
	while (ready && n < num_entries) {
		sroce_cq_take(scq, &e);
		sroce_cqe_to_wc(&e, &wc[n]);
		ready--;
		n++;
	}
	pthread_spin_unlock(&scq->lock);
	return n;
}

/* ---- extended CQ (ibv_create_cq_ex) ---- */

/* Load the next entry into cur and the public wr_id/status; 0 or ENOENT. */
static int sroce_cq_ex_load(struct sroce_cq *scq)
{
	if (!sroce_queue_cons_ready(&scq->ring))
		return ENOENT;
	sroce_cq_take(scq, &scq->cur);
	scq->vcq.cq_ex.wr_id = scq->cur.wr_id;
	scq->vcq.cq_ex.status = (enum ibv_wc_status)scq->cur.status;
	return 0;
}

/*
 * ibv_start_poll(): 0 with cq->lock held until end_poll, or ENOENT (lock
 * released: the application must not call end_poll then).
 */
static int sroce_cq_ex_start_poll(struct ibv_cq_ex *cq,
				  struct ibv_poll_cq_attr *attr)
{
	struct sroce_cq *scq = ex_to_scq(cq);
	int ret;

	if (attr->comp_mask)
		return EINVAL;
	if (!sroce_queue_cons_maybe_ready(&scq->ring))
		return ENOENT;
	pthread_spin_lock(&scq->lock);
	ret = sroce_cq_ex_load(scq);
	if (ret)
		pthread_spin_unlock(&scq->lock);
	return ret;
}

/* Caller holds cq->lock (between start_poll and end_poll). */
static int sroce_cq_ex_next_poll(struct ibv_cq_ex *cq)
{
	return sroce_cq_ex_load(ex_to_scq(cq));
}

static void sroce_cq_ex_end_poll(struct ibv_cq_ex *cq)
{
	pthread_spin_unlock(&ex_to_scq(cq)->lock);
}

/* The read_* calls below run between start_poll and end_poll (lock held). */

static enum ibv_wc_opcode sroce_cq_ex_read_opcode(struct ibv_cq_ex *cq)
{
	return (enum ibv_wc_opcode)ex_to_scq(cq)->cur.opcode;
}

static uint32_t sroce_cq_ex_read_vendor_err(struct ibv_cq_ex *cq)
{
	return ex_to_scq(cq)->cur.vendor_err;
}

static unsigned int sroce_cq_ex_read_wc_flags(struct ibv_cq_ex *cq)
{
	return sroce_cqe_wc_flags(&ex_to_scq(cq)->cur);
}

static uint32_t sroce_cq_ex_read_byte_len(struct ibv_cq_ex *cq)
{
	return ex_to_scq(cq)->cur.byte_len;
}

/* Immediate data, or the invalidated rkey (as libibverbs documents). */
static __be32 sroce_cq_ex_read_imm_data(struct ibv_cq_ex *cq)
{
	const struct sroce_cqe *e = &ex_to_scq(cq)->cur;

	if (e->wc_flags & SROCE_CQE_F_WITH_INV)
		return (__be32)e->ex.invalidate_rkey;
	return e->ex.imm_data;
}

static uint32_t sroce_cq_ex_read_qp_num(struct ibv_cq_ex *cq)
{
	return ex_to_scq(cq)->cur.qp_num;
}

static uint32_t sroce_cq_ex_read_src_qp(struct ibv_cq_ex *cq)
{
	return ex_to_scq(cq)->cur.src_qp;
}

static uint32_t sroce_cq_ex_read_slid(struct ibv_cq_ex *cq)
{
	return ex_to_scq(cq)->cur.slid;
}

static uint8_t sroce_cq_ex_read_sl(struct ibv_cq_ex *cq)
{
	return ex_to_scq(cq)->cur.sl;
}

static uint8_t sroce_cq_ex_read_dlid_path_bits(struct ibv_cq_ex *cq)
{
	return ex_to_scq(cq)->cur.dlid_path_bits;
}

void sroce_cq_ex_set_ops(struct ibv_cq_ex *cq, uint64_t wc_flags)
{
	cq->start_poll = sroce_cq_ex_start_poll;
	cq->next_poll = sroce_cq_ex_next_poll;
	cq->end_poll = sroce_cq_ex_end_poll;
	cq->read_opcode = sroce_cq_ex_read_opcode;
	cq->read_vendor_err = sroce_cq_ex_read_vendor_err;
	cq->read_wc_flags = sroce_cq_ex_read_wc_flags;

	if (wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		cq->read_byte_len = sroce_cq_ex_read_byte_len;
	if (wc_flags & IBV_WC_EX_WITH_IMM)
		cq->read_imm_data = sroce_cq_ex_read_imm_data;
	if (wc_flags & IBV_WC_EX_WITH_QP_NUM)
		cq->read_qp_num = sroce_cq_ex_read_qp_num;
	if (wc_flags & IBV_WC_EX_WITH_SRC_QP)
		cq->read_src_qp = sroce_cq_ex_read_src_qp;
	if (wc_flags & IBV_WC_EX_WITH_SLID)
		cq->read_slid = sroce_cq_ex_read_slid;
	if (wc_flags & IBV_WC_EX_WITH_SL)
		cq->read_sl = sroce_cq_ex_read_sl;
	if (wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		cq->read_dlid_path_bits = sroce_cq_ex_read_dlid_path_bits;
}
