// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mw.c - memory windows, see mw.h.  A failed verb leaves nothing behind.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "mw.h"
#include "post.h"
#include "sroce.h"

struct ibv_mw *sroce_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp = {};
	struct ibv_alloc_mw cmd = {};
	struct ibv_mw *mw;
	int ret;

	if (type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2) {
		errno = EINVAL;
		return NULL;
	}
	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

int sroce_dealloc_mw(struct ibv_mw *mw)
{
	int ret = ibv_cmd_dealloc_mw(mw);

	if (ret)
		return ret;
	free(mw);
	return 0;
}

/*
 * The MR of a type 1 bind, checked before anything is posted: of this
 * device and the window's PD, registered with MW_BIND (IBA 10.6.7.2.1).
 * sroce.ko checks the same when it executes the bind; refusing here gives
 * the caller an error code and leaves the QP usable.  An MR of this
 * context is one of sroce_reg_mr's verbs_mr, which records its access.
 */
static int sroce_bind_mr_check(const struct ibv_qp *qp, const struct ibv_mw *mw,
			       const struct ibv_mr *mr)
{
	const struct verbs_mr *vmr;

	if (mr->context != qp->context || mr->pd != mw->pd)
		return EINVAL;
	vmr = (const struct verbs_mr *)((const char *)mr -
					offsetof(struct verbs_mr, ibv_mr));
	return vmr->access & IBV_ACCESS_MW_BIND ? 0 : EINVAL;
}

/*
 * ibv_bind_mw(3): type 1 only.  The new rkey (key byte + 1) is what the
 * window answers to once the bind completes; mw->rkey is updated when the
 * WQE is posted, as libibverbs documents.
 */
int sroce_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		  struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr = {}, *bad;
	int ret;

	if (!mw || mw->type != IBV_MW_TYPE_1 || mw->pd != qp->pd)
		return EINVAL;
	ret = sroce_bind_check(mw, &mw_bind->bind_info, mw_bind->send_flags);
	if (!ret && mw_bind->bind_info.length)
		ret = sroce_bind_mr_check(qp, mw, mw_bind->bind_info.mr);
	if (ret)
		return ret;
	wr.wr_id = mw_bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	ret = sroce_post_send(qp, &wr, &bad);
	if (!ret)
		mw->rkey = wr.bind_mw.rkey;
	return ret;
}
