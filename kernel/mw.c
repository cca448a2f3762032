// SPDX-License-Identifier: GPL-2.0
/*
 * mw.c - memory windows: alloc/dealloc, BIND_MW, invalidation and the
 * remote-access redirection from a window's rkey to its MR.  States,
 * contexts and locking: mw.h.
 */
#include <linux/slab.h>

#include "device.h"
#include "mr.h"
#include "mw.h"
#include "qp.h"
#include "req.h"

/* Rights a window may grant (IBA 10.6.7.2.1); zero-based is unsupported. */
#define SROCE_MW_ACCESS                                   \
	(IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE | \
	 IB_ACCESS_REMOTE_ATOMIC)

int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibmw->device);
	struct sroce_mw *mw = container_of(ibmw, struct sroce_mw, ibmw);
	struct sroce_mr *win;
	int err;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	win = sroce_mw_entry_alloc(sdev);
	if (IS_ERR(win))
		return PTR_ERR(win);
	win->mw_type = ibmw->type;
	win->ibmr.pd = ibmw->pd;
	err = sroce_mr_publish(win);
	if (err) {
		sroce_mr_free_unpublished(win);
		return err;
	}
	mw->key = win;
	ibmw->rkey = win->ibmr.rkey;
	return 0;
}

/* Drop the binding of @win (its fr_lock held); returns the MR or NULL. */
static struct sroce_mr *sroce_mw_unbind_locked(struct sroce_mr *win)
{
	struct sroce_mr *mr = win->mw_mr;

	lockdep_assert_held(&win->fr_lock);
	WRITE_ONCE(win->mw_bound, false);
	win->mw_mr = NULL;
	win->access = 0;
	win->length = 0;
	return mr;
}

/* The window no longer counts against @mr's dereg_mr. */
static void sroce_mw_release_mr(struct sroce_mr *mr)
{
	unsigned long flags;

	if (!mr)
		return;
	spin_lock_irqsave(&mr->fr_lock, flags);
	mr->mw_count--;
	spin_unlock_irqrestore(&mr->fr_lock, flags);
}

int sroce_dealloc_mw(struct ib_mw *ibmw)
{
	struct sroce_mw *mw = container_of(ibmw, struct sroce_mw, ibmw);
	struct sroce_mr *win = mw->key;
	struct sroce_mr *mr;
	unsigned long flags;

	/*
	 * A bind that looked the window up before dereg_mr unpublishes it
	 * may still take fr_lock after this: dying makes it fail, so no
	 * binding raises an MR's mw_count once the window is unbound.
	 */
	spin_lock_irqsave(&win->fr_lock, flags);
	win->dying = true;
	mr = sroce_mw_unbind_locked(win);
	spin_unlock_irqrestore(&win->fr_lock, flags);
	sroce_mw_release_mr(mr);
	/* Unpublish and wait for users, as dereg_mr does. */
	return sroce_dereg_mr(&win->ibmr, NULL);
}

int sroce_mw_mr_dying(struct sroce_mr *mr)
{
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&mr->fr_lock, flags);
	if (mr->mw_count)
		err = -EBUSY;
	else
		mr->dying = true;
	spin_unlock_irqrestore(&mr->fr_lock, flags);
	return err;
}

/* Count a new binding of @mr unless it is being deregistered. */
static bool sroce_mw_hold_mr(struct sroce_mr *mr)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&mr->fr_lock, flags);
	ok = !mr->dying;
	if (ok)
		mr->mw_count++;
	spin_unlock_irqrestore(&mr->fr_lock, flags);
	return ok;
}

/* The MR of a bind: same PD, MW_BIND right, the range inside it. */
static struct sroce_mr *sroce_mw_bind_mr(struct sroce_qp *qp, u32 lkey,
					 u64 addr, u64 len, u32 access)
{
	struct sroce_mr *mr = sroce_mr_get(qp->sdev, lkey);

	if (!mr)
		return NULL;
	if (mr->mw || mr->fr || mr->ibmr.pd != qp->ibqp.pd ||
	    !(mr->access & IB_ACCESS_MW_BIND) || addr < mr->iova ||
	    len > mr->length || addr - mr->iova > mr->length - len ||
	    /* IBA 10.6.7.2.1: remote write/atomic need local write. */
	    (access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC) &&
	     !(mr->access & IB_ACCESS_LOCAL_WRITE))) {
		sroce_mr_put(mr);
		return NULL;
	}
	return mr;
}

enum ib_wc_status sroce_mw_bind(struct sroce_qp *qp,
				const struct sroce_swqe *swqe)
{
	const struct sroce_send_wqe *w = &swqe->wqe;
	u32 access = w->bind_access & SROCE_MW_ACCESS;
	u32 key = w->ex.bind_rkey;
	struct sroce_mr *win, *mr = NULL, *old;
	enum ib_wc_status st = IB_WC_MW_BIND_ERR;
	unsigned long flags;

	lockdep_assert_held(&qp->req.lock);

	win = sroce_mr_get(qp->sdev, w->wr.bind.mw_rkey);
	if (!win)
		return IB_WC_MW_BIND_ERR;
	if (!win->mw || win->ibmr.pd != qp->ibqp.pd ||
	    key >> SROCE_MR_KEY_SHIFT != win->index ||
	    w->bind_access & ~(SROCE_MW_ACCESS | IB_ACCESS_LOCAL_WRITE))
		goto out;
	if (w->wr.bind.length) {
		mr = sroce_mw_bind_mr(qp, w->wr.bind.mr_lkey, w->wr.bind.addr,
				      w->wr.bind.length, access);
		if (!mr || !sroce_mw_hold_mr(mr))
			goto out;
	}

	spin_lock_irqsave(&win->fr_lock, flags);
	/*
	 * IBA 10.6.7.2.2: a type 2 window is bound only from Free.  A
	 * window being deallocated is never bound again.
	 */
	if (win->dying || (win->mw_type == IB_MW_TYPE_2 && win->mw_bound)) {
		spin_unlock_irqrestore(&win->fr_lock, flags);
		sroce_mw_release_mr(mr);
		goto out;
	}
	old = sroce_mw_unbind_locked(win);
	WRITE_ONCE(win->ibmr.lkey, key);
	WRITE_ONCE(win->ibmr.rkey, key);
	if (mr) {
		win->mw_mr = mr;
		win->iova = w->wr.bind.addr;
		win->length = w->wr.bind.length;
		win->access = access;
		win->mw_qpn = qp->ibqp.qp_num;
		WRITE_ONCE(win->mw_bound, true);
	}
	spin_unlock_irqrestore(&win->fr_lock, flags);
	sroce_mw_release_mr(old);
	st = IB_WC_SUCCESS;
out:
	if (mr)
		sroce_mr_put(mr);
	sroce_mr_put(win);
	return st;
}

int sroce_mw_invalidate(struct sroce_mr *win, struct ib_pd *pd, u32 qpn,
			u32 key)
{
	struct sroce_mr *mr = NULL;
	unsigned long flags;
	int err = -EINVAL;

	spin_lock_irqsave(&win->fr_lock, flags);
	if (win->mw_type == IB_MW_TYPE_2 && win->mw_bound &&
	    win->ibmr.pd == pd && win->mw_qpn == qpn && win->ibmr.rkey == key) {
		mr = sroce_mw_unbind_locked(win);
		err = 0;
	}
	spin_unlock_irqrestore(&win->fr_lock, flags);
	sroce_mw_release_mr(mr);
	return err;
}

struct sroce_mr *sroce_mw_resolve(struct sroce_mr *win, struct ib_pd *pd,
				  u32 qpn, u64 va, u32 len, int access)
{
	struct sroce_mr *mr = NULL;
	unsigned long flags;

	spin_lock_irqsave(&win->fr_lock, flags);
	/* IBA 10.6.7.2.4: a type 2B window serves only the QP it is bound on. */
	if (win->mw_bound && win->ibmr.pd == pd &&
	    (win->mw_type != IB_MW_TYPE_2 || win->mw_qpn == qpn) &&
	    (win->access & access) == access && va >= win->iova &&
	    len <= win->length && va - win->iova <= win->length - len) {
		mr = win->mw_mr;
		/* Alive: dereg_mr refuses while the window is bound. */
		if (!refcount_inc_not_zero(&mr->ref))
			mr = NULL;
	}
	spin_unlock_irqrestore(&win->fr_lock, flags);
	return mr;
}
