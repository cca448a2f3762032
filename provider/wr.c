// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * wr.c - the extended send API: ibv_wr_start, the WR builders
 * (ibv_wr_send, ibv_wr_rdma_write, ...), the setters (ibv_wr_set_sge,
 * ibv_wr_set_inline_data, ibv_wr_set_ud_addr, ...) and ibv_wr_complete /
 * ibv_wr_abort, for QPs made by ibv_create_qp_ex with
 * IBV_QP_INIT_ATTR_SEND_OPS_FLAGS.
 *
 * The WQEs are the same struct sroce_send_wqe post.c writes, so the kernel
 * cannot tell which API produced them.  wr_start takes sq_lock and keeps
 * it until wr_complete or wr_abort (ibv_wr_post(3): the pair is a per-QP
 * critical section).  Every builder begins a WQE in the next unpublished
 * slot; the setters fill the WQE most recently begun.  Nothing is visible
 * to the kernel until wr_complete publishes the batch with one
 * store-release of prod and rings one doorbell; wr_abort simply forgets
 * the slots.
 *
 * The builders and setters return void, so an invalid argument is
 * remembered (the first one wins) and returned by wr_complete, which then
 * publishes nothing: a batch is posted whole or not at all.  Lengths from
 * the application are size_t and are summed against the QP's limits with
 * subtractions that cannot wrap (the overflow rdma_rxe's provider had in
 * its inline-data list).
 */
#include <errno.h>
#include <string.h>

#include "post.h"
#include "verbs.h"
#include "wr.h"

/* Send-op flag n is 1 << IBV_WR_<n>; sroce relies on that mapping. */
static_assert(IBV_QP_EX_WITH_RDMA_WRITE == 1ULL << IBV_WR_RDMA_WRITE,
	      "send ops: RDMA_WRITE");
static_assert(IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM ==
		      1ULL << IBV_WR_RDMA_WRITE_WITH_IMM,
	      "send ops: RDMA_WRITE_WITH_IMM");
static_assert(IBV_QP_EX_WITH_SEND == 1ULL << IBV_WR_SEND, "send ops: SEND");
static_assert(IBV_QP_EX_WITH_SEND_WITH_IMM == 1ULL << IBV_WR_SEND_WITH_IMM,
	      "send ops: SEND_WITH_IMM");
static_assert(IBV_QP_EX_WITH_RDMA_READ == 1ULL << IBV_WR_RDMA_READ,
	      "send ops: RDMA_READ");
static_assert(IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP ==
		      1ULL << IBV_WR_ATOMIC_CMP_AND_SWP,
	      "send ops: CMP_AND_SWP");
static_assert(IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD ==
		      1ULL << IBV_WR_ATOMIC_FETCH_AND_ADD,
	      "send ops: FETCH_AND_ADD");
static_assert(IBV_QP_EX_WITH_SEND_WITH_INV == 1ULL << IBV_WR_SEND_WITH_INV,
	      "send ops: SEND_WITH_INV");
static_assert(IBV_QP_EX_WITH_BIND_MW == 1ULL << IBV_WR_BIND_MW,
	      "send ops: BIND_MW");
static_assert(IBV_QP_EX_WITH_LOCAL_INV == 1ULL << IBV_WR_LOCAL_INV,
	      "send ops: LOCAL_INV");

#define SROCE_OPS_UD (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)
#define SROCE_OPS_UC                                                   \
	(SROCE_OPS_UD | IBV_QP_EX_WITH_RDMA_WRITE |                    \
	 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_BIND_MW | \
	 IBV_QP_EX_WITH_LOCAL_INV)
/* The kernel's requester executes SEND_WITH_INV on RC only. */
#define SROCE_OPS_RC                               \
	(SROCE_OPS_UC | IBV_QP_EX_WITH_RDMA_READ | \
	 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |       \
	 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_SEND_WITH_INV)

/* wr_flags the builders accept; INLINE is chosen by the data setter. */
#define SROCE_WR_FLAGS                                             \
	(IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | \
	 IBV_SEND_INLINE)

/* Atomic operands and results are one 64-bit word (IBA 9.4.5). */
#define SROCE_WR_ATOMIC_LEN 8

static uint64_t sroce_wr_type_ops(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return SROCE_OPS_RC;
	case IBV_QPT_UC:
		return SROCE_OPS_UC;
	case IBV_QPT_UD:
		return SROCE_OPS_UD;
	default:
		return 0;
	}
}

int sroce_wr_check_send_ops(enum ibv_qp_type type, uint64_t send_ops)
{
	if (send_ops & ~(uint64_t)SROCE_OPS_RC)
		return EOPNOTSUPP;
	if (!sroce_wr_type_ops(type))
		return EOPNOTSUPP;
	if (send_ops & ~sroce_wr_type_ops(type))
		return EINVAL;
	return 0;
}

static struct sroce_qp *qpx_to_sqp(struct ibv_qp_ex *qpx)
{
	return (struct sroce_qp *)qpx;
}

/* Remember the first invalid argument of the batch.  Caller holds sq_lock. */
static void sroce_wr_fail(struct sroce_qp *sqp, int err)
{
	if (!sqp->wr.err)
		sqp->wr.err = err;
	sqp->wr.cur = NULL;
}

static uint8_t *sroce_wr_data(struct sroce_send_wqe *w)
{
	return (uint8_t *)(w + 1);
}

/*
 * Checks that need the whole WQE (its setters may come in any order), run
 * when the next builder starts and at wr_complete.  Caller holds sq_lock.
 */
static void sroce_wr_finish(struct sroce_qp *sqp)
{
	struct sroce_send_wqe *w = sqp->wr.cur;
	const struct sroce_sge *sge;

	if (!w)
		return;
	if (sqp->vqp.qp.qp_type == IBV_QPT_UD && !sqp->wr.has_ud_addr) {
		sroce_wr_fail(sqp, EINVAL);
		return;
	}
	if (w->opcode == SROCE_WR_ATOMIC_CMP_AND_SWP ||
	    w->opcode == SROCE_WR_ATOMIC_FETCH_AND_ADD) {
		sge = (const struct sroce_sge *)sroce_wr_data(w);
		if (w->num_sge != 1 || sge->length != SROCE_WR_ATOMIC_LEN) {
			sroce_wr_fail(sqp, EINVAL);
			return;
		}
	}
	sqp->wr.cur = NULL;
}

/*
 * Begin a WQE of @opcode in the next free slot and return it, or NULL when
 * the batch already failed or this WQE is invalid (then recorded).  The
 * header is zeroed so no byte of an earlier WQE survives in the slot.
 * Caller holds sq_lock (between wr_start and wr_complete/wr_abort).
 */
static struct sroce_send_wqe *sroce_wr_begin(struct ibv_qp_ex *qpx,
					     enum ibv_wr_opcode opcode)
{
	struct sroce_qp *sqp = qpx_to_sqp(qpx);
	struct sroce_send_wqe *w;
	uint32_t flags;

	sroce_wr_finish(sqp);
	if (sqp->wr.err)
		return NULL;
	if (!(sqp->send_ops & (1ULL << opcode)) ||
	    qpx->wr_flags & ~SROCE_WR_FLAGS) {
		sroce_wr_fail(sqp, EINVAL);
		return NULL;
	}
	if (sqp->wr.count == sqp->wr.space) {
		sroce_wr_fail(sqp, ENOMEM);
		return NULL;
	}

	w = sroce_queue_slot(&sqp->sq, sqp->wr.prod + sqp->wr.count);
	memset(w, 0, sizeof(*w));
	flags = qpx->wr_flags & ~IBV_SEND_INLINE;
	if (sqp->sq_sig_all)
		flags |= SROCE_WQE_SIGNALED;
	w->wr_id = qpx->wr_id;
	w->opcode = opcode;
	w->flags = flags;
	sqp->wr.count++;
	sqp->wr.cur = w;
	sqp->wr.has_ud_addr = false;
	return w;
}

/* ---- builders ---- */

static void sroce_wr_send(struct ibv_qp_ex *qpx)
{
	sroce_wr_begin(qpx, IBV_WR_SEND);
}

static void sroce_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	struct sroce_send_wqe *w = sroce_wr_begin(qpx, IBV_WR_SEND_WITH_IMM);

	if (w)
		w->ex.imm_data = imm_data;
}

static void sroce_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct sroce_send_wqe *w = sroce_wr_begin(qpx, IBV_WR_SEND_WITH_INV);

	if (w)
		w->ex.invalidate_rkey = invalidate_rkey;
}

static void sroce_wr_rdma(struct ibv_qp_ex *qpx, enum ibv_wr_opcode opcode,
			  uint32_t rkey, uint64_t remote_addr)
{
	struct sroce_send_wqe *w = sroce_wr_begin(qpx, opcode);

	if (!w)
		return;
	w->wr.rdma.remote_addr = remote_addr;
	w->wr.rdma.rkey = rkey;
}

static void sroce_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				uint64_t remote_addr)
{
	sroce_wr_rdma(qpx, IBV_WR_RDMA_WRITE, rkey, remote_addr);
}

static void sroce_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, __be32 imm_data)
{
	struct sroce_qp *sqp = qpx_to_sqp(qpx);

	sroce_wr_rdma(qpx, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, remote_addr);
	if (sqp->wr.cur)
		sqp->wr.cur->ex.imm_data = imm_data;
}

static void sroce_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			       uint64_t remote_addr)
{
	sroce_wr_rdma(qpx, IBV_WR_RDMA_READ, rkey, remote_addr);
}

static void sroce_wr_atomic(struct ibv_qp_ex *qpx, enum ibv_wr_opcode opcode,
			    uint32_t rkey, uint64_t remote_addr,
			    uint64_t compare_add, uint64_t swap)
{
	struct sroce_send_wqe *w = sroce_wr_begin(qpx, opcode);

	if (!w)
		return;
	w->wr.atomic.remote_addr = remote_addr;
	w->wr.atomic.compare_add = compare_add;
	w->wr.atomic.swap = swap;
	w->wr.atomic.rkey = rkey;
}

static void sroce_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, uint64_t compare,
				    uint64_t swap)
{
	sroce_wr_atomic(qpx, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr,
			compare, swap);
}

static void sroce_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				      uint64_t remote_addr, uint64_t add)
{
	sroce_wr_atomic(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr,
			add, 0);
}

/* Memory windows (IBA 10.6.7): no data setter applies to these. */
static void sroce_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw,
			     uint32_t rkey,
			     const struct ibv_mw_bind_info *bind_info)
{
	struct sroce_qp *sqp = qpx_to_sqp(qpx);
	struct sroce_send_wqe *w = sroce_wr_begin(qpx, IBV_WR_BIND_MW);

	if (!w)
		return;
	if (!bind_info || sroce_bind_check(mw, bind_info, qpx->wr_flags) ||
	    mw->type != IBV_MW_TYPE_2) {
		sroce_wr_fail(sqp, EINVAL);
		return;
	}
	sroce_bind_wqe(w, mw, rkey, bind_info);
}

static void sroce_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct sroce_send_wqe *w = sroce_wr_begin(qpx, IBV_WR_LOCAL_INV);

	if (w)
		w->ex.invalidate_rkey = invalidate_rkey;
}

/*
 * Operations sroce does not execute (TSO, XRC, atomic write):
 * create_qp_ex refuses them in send_ops_flags,
 * but libibverbs' inline wrappers call through the pointers regardless, so
 * they are filled with these, which fail the batch instead of crashing.
 */
static void sroce_wr_unsupported(struct ibv_qp_ex *qpx)
{
	struct sroce_qp *sqp = qpx_to_sqp(qpx);

	sroce_wr_finish(sqp);
	sroce_wr_fail(sqp, EOPNOTSUPP);
}

static void sroce_wr_send_tso(struct ibv_qp_ex *qpx, void *hdr, uint16_t hdr_sz,
			      uint16_t mss)
{
	(void)hdr;
	(void)hdr_sz;
	(void)mss;
	sroce_wr_unsupported(qpx);
}

static void sroce_wr_set_xrc_srqn(struct ibv_qp_ex *qpx, uint32_t remote_srqn)
{
	(void)remote_srqn;
	sroce_wr_unsupported(qpx);
}

static void sroce_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				  uint64_t remote_addr, const void *atomic_wr)
{
	(void)rkey;
	(void)remote_addr;
	(void)atomic_wr;
	sroce_wr_unsupported(qpx);
}

/* ---- setters (apply to the WQE most recently begun) ---- */

/*
 * The WQE a setter fills, or NULL (batch failed: nothing to do).  A setter
 * with no WQE begun is itself an invalid call.  Caller holds sq_lock.
 */
static struct sroce_send_wqe *sroce_wr_cur(struct sroce_qp *sqp)
{
	if (sqp->wr.err)
		return NULL;
	if (!sqp->wr.cur)
		sroce_wr_fail(sqp, EINVAL);
	return sqp->wr.cur;
}

static void sroce_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
				 uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct sroce_qp *sqp = qpx_to_sqp(qpx);
	struct sroce_send_wqe *w = sroce_wr_cur(sqp);

	if (!w)
		return;
	if (!ah || sqp->vqp.qp.qp_type != IBV_QPT_UD) {
		sroce_wr_fail(sqp, EINVAL);
		return;
	}
	w->wr.ud.ah_num = to_sah(ah)->ah_num;
	w->wr.ud.remote_qpn = remote_qpn;
	w->wr.ud.remote_qkey = remote_qkey;
	sqp->wr.has_ud_addr = true;
}

static void sroce_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
				  const struct ibv_sge *sg_list)
{
	struct sroce_qp *sqp = qpx_to_sqp(qpx);
	struct sroce_send_wqe *w = sroce_wr_cur(sqp);

	if (!w)
		return;
	if (num_sge > sqp->max_send_sge || (num_sge && !sg_list) ||
	    w->opcode == SROCE_WR_BIND_MW || w->opcode == SROCE_WR_LOCAL_INV) {
		sroce_wr_fail(sqp, EINVAL);
		return;
	}
	/* The slot holds max_send_sge SGEs (checked at map time). */
	if (num_sge)
		memcpy(sroce_wr_data(w), sg_list,
		       num_sge * sizeof(struct sroce_sge));
	w->num_sge = (uint32_t)num_sge;
	w->flags &= ~SROCE_WQE_INLINE;
	w->inline_len = 0;
}

static void sroce_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey,
			     uint64_t addr, uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	sroce_wr_set_sge_list(qpx, 1, &sge);
}

/*
 * Total bytes of @n buffers if it is at most @max, else SIZE_MAX.  Each
 * length is compared with what is left, so no sum can wrap whatever the
 * application passes.
 */
static size_t sroce_wr_inline_total(const struct ibv_data_buf *bufs, size_t n,
				    size_t max)
{
	size_t total = 0, i;

	for (i = 0; i < n; i++) {
		if (bufs[i].length > max - total)
			return SIZE_MAX;
		total += bufs[i].length;
	}
	return total;
}

static void sroce_wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t num_buf,
					  const struct ibv_data_buf *buf_list)
{
	struct sroce_qp *sqp = qpx_to_sqp(qpx);
	struct sroce_send_wqe *w = sroce_wr_cur(sqp);
	size_t total, off = 0, i;

	if (!w)
		return;
	/* Inline carries outgoing data only. */
	if (w->opcode == SROCE_WR_RDMA_READ || w->opcode == SROCE_WR_BIND_MW ||
	    w->opcode == SROCE_WR_LOCAL_INV ||
	    w->opcode == SROCE_WR_ATOMIC_CMP_AND_SWP ||
	    w->opcode == SROCE_WR_ATOMIC_FETCH_AND_ADD ||
	    (num_buf && !buf_list)) {
		sroce_wr_fail(sqp, EINVAL);
		return;
	}
	total = sroce_wr_inline_total(buf_list, num_buf, sqp->max_inline_data);
	if (total == SIZE_MAX) {
		sroce_wr_fail(sqp, EINVAL);
		return;
	}
	/* The slot holds max_inline_data bytes (checked at map time). */
	for (i = 0; i < num_buf; i++) {
		if (!buf_list[i].length)
			continue;
		memcpy(sroce_wr_data(w) + off, buf_list[i].addr,
		       buf_list[i].length);
		off += buf_list[i].length;
	}
	w->flags |= SROCE_WQE_INLINE;
	w->inline_len = (uint32_t)total;
	w->num_sge = 0;
}

static void sroce_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
				     size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	sroce_wr_set_inline_data_list(qpx, 1, &buf);
}

/* ---- batch ---- */

static void sroce_wr_start(struct ibv_qp_ex *qpx)
{
	struct sroce_qp *sqp = qpx_to_sqp(qpx);

	pthread_spin_lock(&sqp->sq_lock);
	memset(&sqp->wr, 0, sizeof(sqp->wr));
	sqp->wr.prod = atomic_load_explicit(sroce_queue_prod_ptr(&sqp->sq),
					    memory_order_relaxed);
	sqp->wr.space = sroce_queue_prod_space(&sqp->sq);
	/* libibverbs keeps qp->state from modify_qp. */
	if (!sroce_sq_state_ok(sqp->vqp.qp.state))
		sqp->wr.err = EINVAL;
}

static int sroce_wr_complete(struct ibv_qp_ex *qpx)
{
	struct sroce_qp *sqp = qpx_to_sqp(qpx);
	uint32_t count;
	int err;

	sroce_wr_finish(sqp);
	err = sqp->wr.err;
	count = err ? 0 : sqp->wr.count;
	if (count)
		sroce_queue_prod_advance(&sqp->sq, count);
	memset(&sqp->wr, 0, sizeof(sqp->wr));
	pthread_spin_unlock(&sqp->sq_lock);

	if (err)
		return err;
	/* As in post_send: the doorbell is rung outside the lock. */
	return count ? sroce_sq_doorbell(&sqp->vqp.qp) : 0;
}

static void sroce_wr_abort(struct ibv_qp_ex *qpx)
{
	struct sroce_qp *sqp = qpx_to_sqp(qpx);

	memset(&sqp->wr, 0, sizeof(sqp->wr));
	pthread_spin_unlock(&sqp->sq_lock);
}

/*
 * Every builder sroce knows is filled, also those not asked for in
 * send_ops_flags: calling one fails the batch with EINVAL (a NULL pointer
 * would crash the application instead).
 */
void sroce_wr_set_ops(struct sroce_qp *sqp, uint64_t send_ops)
{
	struct ibv_qp_ex *qpx = &sqp->vqp.qp_ex;

	sqp->send_ops = send_ops;
	qpx->wr_start = sroce_wr_start;
	qpx->wr_complete = sroce_wr_complete;
	qpx->wr_abort = sroce_wr_abort;

	qpx->wr_send = sroce_wr_send;
	qpx->wr_send_imm = sroce_wr_send_imm;
	qpx->wr_send_inv = sroce_wr_send_inv;
	qpx->wr_rdma_write = sroce_wr_rdma_write;
	qpx->wr_rdma_write_imm = sroce_wr_rdma_write_imm;
	qpx->wr_rdma_read = sroce_wr_rdma_read;
	qpx->wr_atomic_cmp_swp = sroce_wr_atomic_cmp_swp;
	qpx->wr_atomic_fetch_add = sroce_wr_atomic_fetch_add;

	qpx->wr_bind_mw = sroce_wr_bind_mw;
	qpx->wr_local_inv = sroce_wr_local_inv;
	qpx->wr_send_tso = sroce_wr_send_tso;
	qpx->wr_set_xrc_srqn = sroce_wr_set_xrc_srqn;
	qpx->wr_atomic_write = sroce_wr_atomic_write;

	qpx->wr_set_sge = sroce_wr_set_sge;
	qpx->wr_set_sge_list = sroce_wr_set_sge_list;
	qpx->wr_set_inline_data = sroce_wr_set_inline_data;
	qpx->wr_set_inline_data_list = sroce_wr_set_inline_data_list;
	qpx->wr_set_ud_addr = sroce_wr_set_ud_addr;
}
