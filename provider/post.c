// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * post.c - posting work requests to the SQ and RQ rings.
 *
 * post_send validates each request in user space (errno as libibverbs
 * documents: EINVAL for what the QP cannot do, ENOMEM when the ring is full;
 * *bad_wr points at the first request not posted), encodes it as a struct
 * sroce_send_wqe followed by its SGEs or its inline data straight into the
 * mapped slot, publishes every request of the call with ONE store-release
 * of prod and then rings ONE doorbell: an ib_uverbs POST_SEND write() with
 * no work request in it, which makes the kernel's post_send (wr == NULL for
 * a user QP) run the requester over the new slots.
 *
 * post_recv only writes slots and publishes them: the responder reads the
 * RQ when a request arrives, so no system call is needed.
 *
 * Locks: sq_lock serialises the producers of the SQ, rq_lock those of the
 * RQ (queue.h).  The doorbell is rung after sq_lock is released: the kernel
 * reads prod itself, so a doorbell covers whatever was published before it,
 * and a thread never spins on the lock while another is in a system call.
 *
 * The kernel copies every slot out before trusting it (sroce-abi.h); the
 * checks here exist to give the application the errno verbs promise, not
 * to protect the kernel.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>

#include "post.h"
#include "verbs.h"

/* ibv_sge and sroce_sge are the same three fields: SGEs are copied as is. */
static_assert(sizeof(struct ibv_sge) == sizeof(struct sroce_sge),
	      "ibv_sge size");
static_assert(offsetof(struct ibv_sge, addr) ==
		      offsetof(struct sroce_sge, addr),
	      "ibv_sge.addr");
static_assert(offsetof(struct ibv_sge, length) ==
		      offsetof(struct sroce_sge, length),
	      "ibv_sge.length");
static_assert(offsetof(struct ibv_sge, lkey) ==
		      offsetof(struct sroce_sge, lkey),
	      "ibv_sge.lkey");

/* The WQE flag and opcode values are libibverbs' own. */
static_assert(SROCE_WQE_FENCE == IBV_SEND_FENCE, "fence flag");
static_assert(SROCE_WQE_SIGNALED == IBV_SEND_SIGNALED, "signaled flag");
static_assert(SROCE_WQE_SOLICITED == IBV_SEND_SOLICITED, "solicited flag");
static_assert(SROCE_WQE_INLINE == IBV_SEND_INLINE, "inline flag");
static_assert(SROCE_WR_SEND_WITH_INV == (int)IBV_WR_SEND_WITH_INV,
	      "send with invalidate opcode");
static_assert(SROCE_WR_ATOMIC_FETCH_AND_ADD == (int)IBV_WR_ATOMIC_FETCH_AND_ADD,
	      "fetch and add opcode");

/* Rights a window may grant (IBA 10.6.7.2.1); LOCAL_WRITE is ignored. */
#define SROCE_MW_BIND_ACCESS                                \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

#define SROCE_SEND_FLAGS                                           \
	(IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | \
	 IBV_SEND_INLINE)

/* Atomic operands and results are one 64-bit word (IBA 9.4.5). */
#define SROCE_ATOMIC_LEN 8

/* ---- doorbell ---- */

/*
 * An empty POST_SEND command.  ib_uverbs requires wqe_size to be at least
 * struct ib_uverbs_send_wr even with no WR, and a response buffer for the
 * bad_wr count it always writes.
 */
struct sroce_post_send_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_post_send core;
};
static_assert(sizeof(struct sroce_post_send_cmd) % 4 == 0,
	      "POST_SEND is counted in 4-byte words");

int sroce_sq_doorbell(struct ibv_qp *ibqp)
{
	struct ib_uverbs_post_send_resp resp;
	struct sroce_post_send_cmd cmd = {
		.hdr = {
			.command = IB_USER_VERBS_CMD_POST_SEND,
			.in_words = sizeof(cmd) / 4,
			.out_words = sizeof(resp) / 4,
		},
		.core = {
			.response = (uintptr_t)&resp,
			.qp_handle = ibqp->handle,
			.wr_count = 0,
			.sge_count = 0,
			.wqe_size = sizeof(struct ib_uverbs_send_wr),
		},
	};
	ssize_t n;

	n = write(ibqp->context->cmd_fd, &cmd, sizeof(cmd));
	if (n == (ssize_t)sizeof(cmd))
		return 0;
	return n < 0 ? errno : EIO;
}

/* ---- send ---- */

/* Is @opcode something a QP of @type can send (IBA Table 28)? */
static bool sroce_send_opcode_ok(enum ibv_qp_type type,
				 enum ibv_wr_opcode opcode)
{
	switch (opcode) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		return type == IBV_QPT_RC || type == IBV_QPT_UC ||
		       type == IBV_QPT_UD;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return type == IBV_QPT_RC || type == IBV_QPT_UC;
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
	case IBV_WR_SEND_WITH_INV:
		return type == IBV_QPT_RC;
	case IBV_WR_LOCAL_INV:
	case IBV_WR_BIND_MW:
		/* Memory windows (IBA 10.6.7): RC and UC. */
		return type == IBV_QPT_RC || type == IBV_QPT_UC;
	default:
		/* TSO, driver opcodes: not supported. */
		return false;
	}
}

static bool sroce_opcode_is_atomic(enum ibv_wr_opcode opcode)
{
	return opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	       opcode == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

/*
 * Total bytes of @wr's SGEs when sent inline, or -1 if they do not fit in
 * @max (checked while summing, so huge lengths cannot wrap).
 */
static int64_t sroce_inline_len(const struct ibv_send_wr *wr, uint32_t max)
{
	uint64_t total = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		total += wr->sg_list[i].length;
		if (total > max)
			return -1;
	}
	return (int64_t)total;
}

int sroce_bind_check(const struct ibv_mw *mw, const struct ibv_mw_bind_info *bi,
		     unsigned int flags)
{
	if (!mw || flags & ~SROCE_SEND_FLAGS || flags & IBV_SEND_INLINE)
		return EINVAL;
	if (bi->mw_access_flags & ~SROCE_MW_BIND_ACCESS)
		return EINVAL;
	if (bi->length) {
		/* The window lies inside an MR created with MW_BIND. */
		if (!bi->mr || bi->addr < (uintptr_t)bi->mr->addr ||
		    bi->length > bi->mr->length ||
		    bi->addr - (uintptr_t)bi->mr->addr >
			    bi->mr->length - bi->length)
			return EINVAL;
	}
	return 0;
}

/* Every check that does not need the ring; 0 or a positive errno. */
static int sroce_send_check(const struct sroce_qp *sqp,
			    const struct ibv_send_wr *wr)
{
	enum ibv_qp_type type = sqp->vqp.qp.qp_type;

	if (!sroce_send_opcode_ok(type, wr->opcode))
		return EINVAL;
	if (wr->opcode == IBV_WR_BIND_MW)
		return sroce_bind_check(wr->bind_mw.mw, &wr->bind_mw.bind_info,
					wr->send_flags);
	if (wr->opcode == IBV_WR_LOCAL_INV)
		return wr->send_flags & ~SROCE_SEND_FLAGS ||
				       wr->send_flags & IBV_SEND_INLINE ?
			       EINVAL :
			       0;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > sqp->max_send_sge)
		return EINVAL;
	if (wr->send_flags & ~SROCE_SEND_FLAGS)
		return EINVAL;
	if (wr->send_flags & IBV_SEND_INLINE) {
		/* Inline carries outgoing data only. */
		if (wr->opcode == IBV_WR_RDMA_READ ||
		    sroce_opcode_is_atomic(wr->opcode))
			return EINVAL;
		if (sroce_inline_len(wr, sqp->max_inline_data) < 0)
			return EINVAL;
	}
	if (sroce_opcode_is_atomic(wr->opcode) &&
	    (wr->num_sge != 1 || wr->sg_list[0].length != SROCE_ATOMIC_LEN))
		return EINVAL;
	if (type == IBV_QPT_UD && !wr->wr.ud.ah)
		return EINVAL;
	return 0;
}

/* The opcode-specific part of the WQE header. */
static void sroce_send_wqe_wr(struct sroce_send_wqe *w,
			      const struct ibv_send_wr *wr,
			      enum ibv_qp_type type)
{
	if (type == IBV_QPT_UD) {
		w->wr.ud.ah_num = to_sah(wr->wr.ud.ah)->ah_num;
		w->wr.ud.remote_qpn = wr->wr.ud.remote_qpn;
		w->wr.ud.remote_qkey = wr->wr.ud.remote_qkey;
		return;
	}
	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		w->wr.rdma.remote_addr = wr->wr.rdma.remote_addr;
		w->wr.rdma.rkey = wr->wr.rdma.rkey;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		w->wr.atomic.remote_addr = wr->wr.atomic.remote_addr;
		w->wr.atomic.compare_add = wr->wr.atomic.compare_add;
		w->wr.atomic.swap = wr->wr.atomic.swap;
		w->wr.atomic.rkey = wr->wr.atomic.rkey;
		break;
	default:
		break;
	}
}

/*
 * Encode @wr into @slot.  The header is built on the stack and copied in
 * one go so that every reserved byte of the slot is written (zero).
 * Caller holds sq_lock and checked @wr with sroce_send_check().
 */
static void sroce_send_wqe_fill(const struct sroce_qp *sqp, void *slot,
				const struct ibv_send_wr *wr)
{
	struct sroce_send_wqe w;
	uint8_t *data = (uint8_t *)slot + sizeof(w);
	uint32_t flags = wr->send_flags & SROCE_SEND_FLAGS;
	int i;

	memset(&w, 0, sizeof(w));
	if (sqp->sq_sig_all)
		flags |= SROCE_WQE_SIGNALED;
	w.wr_id = wr->wr_id;
	w.opcode = wr->opcode;
	w.flags = flags;
	if (wr->opcode == IBV_WR_BIND_MW) {
		sroce_bind_wqe(&w, wr->bind_mw.mw, wr->bind_mw.rkey,
			       &wr->bind_mw.bind_info);
		memcpy(slot, &w, sizeof(w));
		return;
	}
	if (wr->opcode == IBV_WR_LOCAL_INV) {
		w.ex.invalidate_rkey = wr->invalidate_rkey;
		memcpy(slot, &w, sizeof(w));
		return;
	}
	if (wr->opcode == IBV_WR_SEND_WITH_INV)
		w.ex.invalidate_rkey = wr->invalidate_rkey;
	else if (wr->opcode == IBV_WR_SEND_WITH_IMM ||
		 wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM)
		w.ex.imm_data = wr->imm_data;
	sroce_send_wqe_wr(&w, wr, sqp->vqp.qp.qp_type);

	if (flags & SROCE_WQE_INLINE) {
		uint32_t off = 0;

		for (i = 0; i < wr->num_sge; i++) {
			const struct ibv_sge *sge = &wr->sg_list[i];

			memcpy(data + off, (const void *)(uintptr_t)sge->addr,
			       sge->length);
			off += sge->length;
		}
		w.inline_len = off;
	} else {
		w.num_sge = wr->num_sge;
		if (wr->num_sge)
			memcpy(data, wr->sg_list,
			       (size_t)wr->num_sge * sizeof(struct sroce_sge));
	}
	memcpy(slot, &w, sizeof(w));
}

void sroce_bind_wqe(struct sroce_send_wqe *w, const struct ibv_mw *mw,
		    uint32_t rkey, const struct ibv_mw_bind_info *bi)
{
	w->ex.bind_rkey = rkey;
	w->bind_access = bi->mw_access_flags;
	w->wr.bind.mw_rkey = mw->rkey;
	w->wr.bind.addr = bi->addr;
	w->wr.bind.length = bi->length;
	w->wr.bind.mr_lkey = bi->length ? bi->mr->lkey : 0;
}

/*
 * Send WRs are accepted in RTS, SQD, SQE and ERR (IBA 10.3.1: in ERR they
 * complete with a flush error); RESET, INIT and RTR refuse them.
 */
bool sroce_sq_state_ok(enum ibv_qp_state state)
{
	return state == IBV_QPS_RTS || state == IBV_QPS_SQD ||
	       state == IBV_QPS_SQE || state == IBV_QPS_ERR;
}

int sroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr)
{
	struct sroce_qp *sqp = to_sqp(ibqp);
	struct sroce_queue *sq = &sqp->sq;
	struct ibv_send_wr *first = wr;
	uint32_t space, posted = 0, prod;
	int ret = 0, db;

	*bad_wr = NULL;
	if (!wr)
		return 0;
	/* libibverbs keeps ibqp->state from modify_qp. */
	if (!sroce_sq_state_ok(ibqp->state)) {
		*bad_wr = wr;
		return EINVAL;
	}

	pthread_spin_lock(&sqp->sq_lock);
	space = sroce_queue_prod_space(sq);
	prod = atomic_load_explicit(sroce_queue_prod_ptr(sq),
				    memory_order_relaxed);
	for (; wr; wr = wr->next) {
		ret = sroce_send_check(sqp, wr);
		if (!ret && posted == space)
			ret = ENOMEM;
		if (ret) {
			*bad_wr = wr;
			break;
		}
		sroce_send_wqe_fill(sqp, sroce_queue_slot(sq, prod + posted),
				    wr);
		posted++;
	}
	if (posted)
		sroce_queue_prod_advance(sq, posted);
	pthread_spin_unlock(&sqp->sq_lock);

	if (!posted)
		return ret;
	db = sroce_sq_doorbell(ibqp);
	if (db && !ret) {
		/*
		 * The WQEs are published and the kernel will find them at
		 * the next doorbell; report that this one failed.
		 */
		*bad_wr = first;
		ret = db;
	}
	return ret;
}

/* ---- receive ---- */

void sroce_recv_wqe_fill(void *slot, const struct ibv_recv_wr *wr)
{
	struct sroce_recv_wqe w = {
		.wr_id = wr->wr_id,
		.num_sge = (uint32_t)wr->num_sge,
	};

	if (wr->num_sge)
		memcpy((uint8_t *)slot + sizeof(w), wr->sg_list,
		       (size_t)wr->num_sge * sizeof(struct sroce_sge));
	memcpy(slot, &w, sizeof(w));
}

int sroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr)
{
	struct sroce_qp *sqp = to_sqp(ibqp);
	struct sroce_queue *rq = &sqp->rq;
	uint32_t space, posted = 0, prod;
	int ret = 0;

	*bad_wr = NULL;
	if (!wr)
		return 0;
	/* No receive ring (SRQ) or RESET: nothing can be posted (C10-42). */
	if (!sroce_queue_is_mapped(rq) || ibqp->state == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}

	pthread_spin_lock(&sqp->rq_lock);
	space = sroce_queue_prod_space(rq);
	prod = atomic_load_explicit(sroce_queue_prod_ptr(rq),
				    memory_order_relaxed);
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 ||
		    (uint32_t)wr->num_sge > sqp->max_recv_sge)
			ret = EINVAL;
		else if (posted == space)
			ret = ENOMEM;
		if (ret) {
			*bad_wr = wr;
			break;
		}
		sroce_recv_wqe_fill(sroce_queue_slot(rq, prod + posted), wr);
		posted++;
	}
	if (posted)
		sroce_queue_prod_advance(rq, posted);
	pthread_spin_unlock(&sqp->rq_lock);
	return ret;
}
