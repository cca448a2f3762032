/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mw.h - memory windows, types 1 and 2 (IBA 10.6.7).
 *
 * A window is allocated unbound (alloc_mw), bound to a range of an MR with
 * MW_BIND access by a BIND_MW send WQE (ibv_bind_mw for type 1, post_send
 * or ibv_wr_bind_mw for type 2), and remote READ/WRITE/atomic requests
 * naming its rkey reach that MR range with the window's access rights.  A
 * type 2 window is unbound by LOCAL_INV or a received SEND with Invalidate
 * naming its rkey; a type 1 window by a zero-length bind.  While windows
 * are bound to an MR, dereg_mr fails with -EBUSY.  sroce's type 2 windows
 * are type 2B (IBA 10.6.7.2.4, what the device advertises): a bound one
 * serves remote access and is invalidated (LOCAL_INV, SEND with
 * Invalidate) only on the QP whose BIND_MW bound it, by QP number.
 *
 * The window's state lives in a struct sroce_mr entry of mr_xa (mr->mw),
 * guarded by its fr_lock; binding takes the MR's fr_lock after the
 * window's (window -> MR), never the reverse.  dealloc_mw marks the window
 * dying under its fr_lock as it unbinds it; a bind that had looked the
 * window up before then fails (IB_WC_MW_BIND_ERR) rather than bind a window
 * that is going away, whose binding nothing would drop.  BIND_MW runs on
 * the SEND side of the posting QP (req.lock), remote access and remote
 * invalidation on the RECEIVE side (resp.lock), dealloc in process
 * context.
 */
#ifndef _SROCE_MW_H
#define _SROCE_MW_H

#include <rdma/ib_verbs.h>

struct sroce_dev;
struct sroce_mr;
struct sroce_qp;
struct sroce_swqe;

/* ib_core allocates it; key is the window's entry of mr_xa. */
struct sroce_mw {
	struct ib_mw ibmw; /* must be first (core-allocated) */
	struct sroce_mr *key;
};

int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int sroce_dealloc_mw(struct ib_mw *ibmw);

/* Requester: execute a BIND_MW WQE; returns the WC status. */
enum ib_wc_status sroce_mw_bind(struct sroce_qp *qp,
				const struct sroce_swqe *swqe);

/*
 * Unbind the type 2 window @win (referenced, key already matched) for an
 * invalidation from @pd on QP @qpn, the QP it was bound through (type 2B,
 * IBA 10.6.7.2.4).  0 or -EINVAL.
 */
int sroce_mw_invalidate(struct sroce_mr *win, struct ib_pd *pd, u32 qpn,
			u32 key);

/*
 * Remote access through the window @win (referenced; its key matched) by
 * a request to QP @qpn: checks it is bound, its PD, that a type 2 window
 * was bound through @qpn (type 2B), its access rights and that
 * [va, va + len) lies in the window, then returns the bound MR referenced
 * (the caller drops @win's reference) or NULL.
 */
struct sroce_mr *sroce_mw_resolve(struct sroce_mr *win, struct ib_pd *pd,
				  u32 qpn, u64 va, u32 len, int access);

/* dereg_mr: mark @mr dying unless windows are bound to it (-EBUSY). */
int sroce_mw_mr_dying(struct sroce_mr *mr);

#endif /* _SROCE_MW_H */
