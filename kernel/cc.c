// SPDX-License-Identifier: GPL-2.0
/*
 * cc.c - congestion control glue: the algorithm registry, per-device
 * defaults, per-QP state, the reaction point (CNP receive) and pacing.
 *
 * Pacing is by earliest departure time (sroce_cc_pace_sent()): after each
 * data packet the QP's departure time advances by its size at the current
 * rate; a packet whose time has not come waits for the pacing hrtimer,
 * which runs the requester and the responder's READ work again.  The timer
 * fires at the departure time or at the algorithm's next rate increase,
 * whichever is first, and a rise shortens the wait in proportion
 * (sroce_cc_pace_check()): a QP cut to rpg_min_rate does not sit out the
 * slow departure time of its last packet once its rate recovers.  Only a QP
 * whose algorithm is active (it has seen a CNP and is below line rate) is
 * paced; for the others sroce_cc_may_send() is one branch.
 */
#include <linux/ktime.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <net/netlink.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

#include "cc.h"
#include "comp.h"
#include "counters.h"
#include "device.h"
#include "ecn.h"
#include "proto/hdr.h"
#include "proto/psn.h"
#include "qp.h"
#include "recv.h"
#include "req.h"
#include "resp_rd.h"
#include "trace.h"

/* Serialises writers of sroce_cc_algos and device algorithm selection. */
DEFINE_MUTEX(sroce_cc_algo_lock);
/* Registered algorithms: writers hold sroce_cc_algo_lock, readers RCU. */
static LIST_HEAD(sroce_cc_algos);

static struct sroce_cc_algo sroce_cc_builtin[] = {
	{ .ops = &sroce_cc_none_ops },
	{ .ops = &sroce_cc_dcqcn_ops }, /* the default, [1] */
	{ .ops = &sroce_cc_dctcp_ops },
	{ .ops = &sroce_cc_timely_ops }, /* RTT samples of the completer */
	{ .ops = &sroce_cc_hpcc_ops }, /* INT from switches: kernel/int.c */
};

/* ---- registry ---- */

struct sroce_cc_algo *sroce_cc_find(const char *name)
{
	struct sroce_cc_algo *a;

	list_for_each_entry_rcu(a, &sroce_cc_algos, list,
				lockdep_is_held(&sroce_cc_algo_lock))
		if (!strcmp(a->ops->name, name))
			return a;
	return NULL;
}

struct list_head *sroce_cc_algo_list(void)
{
	return &sroce_cc_algos;
}

int sroce_cc_register(struct sroce_cc_algo *algo)
{
	const struct sroce_cc_ops *ops = algo->ops;
	int err = 0;

	if (!ops || !ops->name || !ops->init ||
	    strlen(ops->name) >= SROCE_CC_NAME_MAX)
		return -EINVAL;
	mutex_lock(&sroce_cc_algo_lock);
	if (sroce_cc_find(ops->name))
		err = -EEXIST;
	else
		list_add_tail_rcu(&algo->list, &sroce_cc_algos);
	mutex_unlock(&sroce_cc_algo_lock);
	return err;
}
EXPORT_SYMBOL_GPL(sroce_cc_register);

/*
 * A QP or a device that uses @algo holds a reference on its module, so an
 * algorithm module is only unregistered when nothing uses it.
 */
void sroce_cc_unregister(struct sroce_cc_algo *algo)
{
	mutex_lock(&sroce_cc_algo_lock);
	list_del_rcu(&algo->list);
	mutex_unlock(&sroce_cc_algo_lock);
	synchronize_rcu();
}
EXPORT_SYMBOL_GPL(sroce_cc_unregister);

int sroce_cc_init(void)
{
	int i, err;

	for (i = 0; i < ARRAY_SIZE(sroce_cc_builtin); i++) {
		sroce_cc_builtin[i].owner = THIS_MODULE;
		err = sroce_cc_register(&sroce_cc_builtin[i]);
		if (err)
			goto err_unregister;
	}
	return 0;

err_unregister:
	while (i--)
		sroce_cc_unregister(&sroce_cc_builtin[i]);
	return err;
}

void sroce_cc_exit(void)
{
	int i = ARRAY_SIZE(sroce_cc_builtin);

	while (i--)
		sroce_cc_unregister(&sroce_cc_builtin[i]);
}

/* ---- device ---- */

/* IB speed enum -> Mb/s per lane. */
static u32 sroce_cc_lane_mbps(u16 speed)
{
	switch (speed) {
	case IB_SPEED_DDR:
		return 5000;
	case IB_SPEED_QDR:
	case IB_SPEED_FDR10:
		return 10000;
	case IB_SPEED_FDR:
		return 14000;
	case IB_SPEED_EDR:
		return 25000;
	case IB_SPEED_HDR:
		return 50000;
	case IB_SPEED_NDR:
		return 100000;
	default:
		return 2500;
	}
}

u64 sroce_cc_port_rate(struct sroce_dev *sdev)
{
	unsigned long flags;
	u16 speed;
	u8 width;

	spin_lock_irqsave(&sdev->port_lock, flags);
	speed = sdev->active_speed;
	width = sdev->active_width;
	spin_unlock_irqrestore(&sdev->port_lock, flags);
	return (u64)sroce_cc_lane_mbps(speed) * ib_width_enum_to_int(width) *
	       SROCE_CC_KBPS_PER_MBPS;
}

int sroce_cc_dev_init(struct sroce_dev *sdev)
{
	struct sroce_cc_dev *cd;
	struct sroce_cc_params *p;
	int i;

	cd = kzalloc(sizeof(*cd), GFP_KERNEL);
	if (!cd)
		return -ENOMEM;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p) {
		kfree(cd);
		return -ENOMEM;
	}
	/* line_rate here is rpg_max_rate: 0 = the port speed. */
	sroce_cc_params_default(p, SROCE_CC_MLX, 0);
	mutex_init(&cd->lock);
	RCU_INIT_POINTER(cd->rp, p);
	/* DCQCN for new QPs; it costs nothing until a CNP arrives. */
	RCU_INIT_POINTER(cd->algo, &sroce_cc_builtin[1]);
	cd->min_time_between_cnps = 50; /* us, per QP (the paper's N) */
	cd->cnp_dscp = 48;
	cd->cnp_802p_prio = 6;
	cd->cnp_ecn = INET_ECN_NOT_ECT;
	cd->np_enable = 0xff;
	cd->rp_enable = 0xff;
	for (i = 0; i < SROCE_CC_PRIOS; i++)
		cd->ect[i] = INET_ECN_ECT_0;
	sdev->cc = cd;
	return 0;
}

void sroce_cc_dev_fini(struct sroce_dev *sdev)
{
	struct sroce_cc_dev *cd = sdev->cc;
	struct sroce_cc_algo *algo;

	if (!cd)
		return;
	/* Built-in algorithms only hold THIS_MODULE, taken per selection. */
	algo = rcu_dereference_protected(cd->algo, true);
	if (algo && algo->owner != THIS_MODULE)
		module_put(algo->owner);
	kfree(rcu_dereference_protected(cd->rp, true));
	mutex_destroy(&cd->lock);
	kfree(cd);
	sdev->cc = NULL;
}

/* ---- QP ---- */

/* The device's parameters for @qp, line rate resolved (RCU inside). */
static void sroce_cc_params_of(struct sroce_qp *qp, struct sroce_cc_params *p)
{
	u64 port = READ_ONCE(qp->cc.line_rate);

	rcu_read_lock();
	*p = *rcu_dereference(qp->sdev->cc->rp);
	rcu_read_unlock();
	if (!p->line_rate || p->line_rate > port)
		p->line_rate = port;
}

/*
 * After a hook ran: trace a rate change, publish active.  (A QP that
 * starts being paced restarts its departure time in sroce_cc_cnp() and
 * sroce_cc_ack(): the published flag can be stale, still set for a QP
 * that recovered while idle.)  cc.lock held.
 */
static void sroce_cc_after(struct sroce_qp *qp, u64 old_rate)
{
	struct sroce_qp_cc *cc = &qp->cc;
	const struct sroce_cc_ops *ops = cc->algo->ops;

	lockdep_assert_held(&cc->lock);
	if (cc->st.rate != old_rate) {
		trace_sroce_cc_rate(qp->ibqp.qp_num, old_rate, cc->st.rate,
				    cc->st.reason);
		if (ops->alpha)
			trace_sroce_cc_alpha(qp->ibqp.qp_num,
					     ops->alpha(&cc->st));
	}
	WRITE_ONCE(cc->active, cc->st.active);
}

static enum hrtimer_restart sroce_cc_pace_timer(struct hrtimer *t)
{
	struct sroce_qp *qp = container_of(t, struct sroce_qp, cc.pace_timer);

	/*
	 * No reference: destroy cancels this timer (sroce_cc_qp_stop())
	 * before it drops the QP's own reference.
	 */
	sroce_req_run(qp);
	sroce_resp_kick(qp);
	return HRTIMER_NORESTART;
}

void sroce_cc_qp_init(struct sroce_qp *qp)
{
	struct sroce_qp_cc *cc = &qp->cc;
	struct sroce_cc_params p;
	struct sroce_cc_algo *algo;

	spin_lock_init(&cc->lock);
	hrtimer_init(&cc->pace_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	cc->pace_timer.function = sroce_cc_pace_timer;
	cc->line_rate = sroce_cc_port_rate(qp->sdev);

	/*
	 * A reference on an algorithm's module, not on our own: ib_core's
	 * GSI QP lives as long as the device, and rmmod must be able to
	 * remove devices (and with them every QP) while it exists.
	 */
	rcu_read_lock();
	algo = rcu_dereference(qp->sdev->cc->algo);
	if (!algo ||
	    (algo->owner != THIS_MODULE && !try_module_get(algo->owner)))
		algo = &sroce_cc_builtin[0];
	rcu_read_unlock();
	cc->algo = algo;
	cc->int_req = algo->ops->on_int && qp->ibqp.qp_type == IB_QPT_RC;
	sroce_cc_params_of(qp, &p);
	cc->edt = ktime_get_ns();
	algo->ops->init(&cc->st, &p, cc->edt);
	/* An algorithm may pace from the start (`fixed`). */
	cc->active = cc->st.active;
}

/*
 * RESET (IBA 10.3.1.1): the QP starts again as a new one, so its
 * congestion state does too: the rate a peer's CNPs cut is not that of
 * the next connection, and an RTT probe sent before the reset would give
 * the first ACK past its PSN after the reconnect a sample that spans the
 * reset.  The algorithm stays, as its module reference does.  req.lock
 * held (the probe); cc.lock taken for the rest.
 */
void sroce_cc_qp_reset(struct sroce_qp *qp)
{
	struct sroce_qp_cc *cc = &qp->cc;
	struct sroce_cc_params p;
	unsigned long flags;
	u64 old;

	lockdep_assert_held(&qp->req.lock);
	cc->probe_ts = 0;
	cc->probe_psn = 0;
	/* Read locklessly by sroce_cc_params_of() (CNP receive). */
	WRITE_ONCE(cc->line_rate, sroce_cc_port_rate(qp->sdev));
	sroce_cc_params_of(qp, &p);
	spin_lock_irqsave(&cc->lock, flags);
	old = cc->st.rate;
	cc->edt = ktime_get_ns();
	cc->last_cnp = 0;
	/* As ib_core hands a new QP over: zeroed, then the algorithm's init. */
	memset(&cc->st, 0, sizeof(cc->st));
	cc->algo->ops->init(&cc->st, &p, cc->edt);
	sroce_cc_after(qp, old);
	spin_unlock_irqrestore(&cc->lock, flags);
}

void sroce_cc_qp_stop(struct sroce_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->cc.lock, flags);
	qp->cc.stopped = true;
	spin_unlock_irqrestore(&qp->cc.lock, flags);
	hrtimer_cancel(&qp->cc.pace_timer);
}

void sroce_cc_qp_cleanup(struct sroce_qp *qp)
{
	if (qp->cc.algo->owner != THIS_MODULE)
		module_put(qp->cc.algo->owner);
}

bool sroce_cc_pace_slow(struct sroce_qp *qp)
{
	struct sroce_qp_cc *cc = &qp->cc;
	struct hrtimer *t = &cc->pace_timer;
	struct sroce_cc_params p;
	unsigned long flags;
	u64 now, old, wake;

	sroce_cc_params_of(qp, &p);
	spin_lock_irqsave(&cc->lock, flags);
	now = ktime_get_ns();
	old = cc->st.rate;
	/*
	 * Not before the departure time, but no later than the algorithm's
	 * next rate increase: a rise shortens the wait (pace_check()).
	 */
	wake = sroce_cc_pace_check(cc->algo->ops, &cc->st, &p, &cc->edt, now);
	sroce_cc_after(qp, old);
	if (wake && !cc->stopped &&
	    (!hrtimer_is_queued(t) ||
	     ktime_to_ns(hrtimer_get_expires(t)) > wake))
		hrtimer_start(t, ns_to_ktime(wake), HRTIMER_MODE_ABS_SOFT);
	spin_unlock_irqrestore(&cc->lock, flags);
	return !wake;
}

void sroce_cc_sent_slow(struct sroce_qp *qp, u32 bytes)
{
	struct sroce_qp_cc *cc = &qp->cc;
	struct sroce_cc_params p;
	unsigned long flags;
	u64 now, old;

	sroce_cc_params_of(qp, &p);
	spin_lock_irqsave(&cc->lock, flags);
	now = ktime_get_ns();
	old = cc->st.rate;
	sroce_cc_pace_packet(cc->algo->ops, &cc->st, &p, &cc->edt, now, bytes,
			     SROCE_CC_BURST_NS);
	sroce_cc_after(qp, old);
	spin_unlock_irqrestore(&cc->lock, flags);
}

/* ---- RTT samples (on_ack) ---- */

void sroce_cc_rtt_sent_slow(struct sroce_qp *qp, u32 psn)
{
	struct sroce_qp_cc *cc = &qp->cc;

	lockdep_assert_held(&qp->req.lock);
	if (cc->probe_ts) {
		/*
		 * A resend of the probe or of a packet before it (go-back-N):
		 * its ACK would not tell which copy it answers (Karn), so
		 * this probe gives no sample.
		 */
		if (!sroce_psn_after(psn, cc->probe_psn))
			cc->probe_ts = 0;
		return;
	}
	cc->probe_psn = psn;
	cc->probe_ts = ktime_get_ns();
}

void sroce_cc_rtt_acked_slow(struct sroce_qp *qp, u32 una_psn)
{
	struct sroce_qp_cc *cc = &qp->cc;
	struct sroce_cc_params p;
	unsigned long flags;
	u64 now, rtt, old;

	lockdep_assert_held(&qp->req.lock);
	if (!sroce_psn_after(una_psn, cc->probe_psn))
		return;
	now = ktime_get_ns();
	rtt = now > cc->probe_ts ? now - cc->probe_ts : 1;
	cc->probe_ts = 0;
	sroce_cc_params_of(qp, &p);
	spin_lock_irqsave(&cc->lock, flags);
	old = cc->st.rate;
	sroce_cc_ack(cc->algo->ops, &cc->st, &p, &cc->edt, now, rtt, 0);
	sroce_cc_after(qp, old);
	spin_unlock_irqrestore(&cc->lock, flags);
}

/* ---- the recovery window (comp.c) ---- */

bool sroce_cc_win_rtt_fair(struct sroce_qp *qp)
{
	bool fair;

	rcu_read_lock();
	fair = rcu_dereference(qp->sdev->cc->rp)->win_rtt_fair;
	rcu_read_unlock();
	return fair;
}

/* ---- telemetry (on_int: HPCC, int.c) ---- */

bool sroce_cc_int_ack(struct sroce_qp *qp, u64 ack_seq, u64 snd_nxt,
		      const struct sroce_cc_int *t)
{
	struct sroce_qp_cc *cc = &qp->cc;
	struct sroce_cc_params p;
	unsigned long flags;
	u64 now, old;

	lockdep_assert_held(&qp->req.lock);
	if (!(READ_ONCE(qp->sdev->cc->rp_enable) & BIT(sroce_ecn_qp_prio(qp))))
		return false;
	sroce_cc_params_of(qp, &p);
	spin_lock_irqsave(&cc->lock, flags);
	now = ktime_get_ns();
	old = cc->st.rate;
	sroce_cc_telemetry(cc->algo->ops, &cc->st, &p, &cc->edt, now, ack_seq,
			   snd_nxt, t);
	sroce_cc_after(qp, old);
	spin_unlock_irqrestore(&cc->lock, flags);
	return true;
}

/* ---- reaction point ---- */

/*
 * The RP handles a CNP for @qp: enabled for its priority, algorithm on.
 * *@win_cut: cnp_window_cut is set, the recovery window is cut too.
 */
static bool sroce_cc_rp_cnp(struct sroce_qp *qp, bool *win_cut)
{
	struct sroce_qp_cc *cc = &qp->cc;
	const struct sroce_cc_ops *ops = cc->algo->ops;
	struct sroce_cc_params p;
	unsigned long flags;
	bool handled;
	u64 old, now;

	if (!(READ_ONCE(qp->sdev->cc->rp_enable) &
	      BIT(sroce_ecn_qp_prio(qp))) ||
	    !ops->on_cnp)
		return false;
	sroce_cc_params_of(qp, &p);
	spin_lock_irqsave(&cc->lock, flags);
	old = cc->st.rate;
	now = ktime_get_ns();
	handled = sroce_cc_cnp(ops, &cc->st, &p, &cc->edt, now);
	sroce_cc_after(qp, old);
	spin_unlock_irqrestore(&cc->lock, flags);
	*win_cut = handled && p.cnp_win_cut;
	return handled;
}

/*
 * A CNP for a connected QP comes from its peer: the NP of the QP at the
 * other end sends it from the address this QP sends to, to this QP's
 * source GID.  UD QPs have no peer; any source may send them one.
 */
static bool sroce_cc_cnp_from_peer(struct sroce_qp *qp, struct sk_buff *skb)
{
	unsigned long flags;
	bool ok;

	if (qp->ibqp.qp_type != IB_QPT_RC && qp->ibqp.qp_type != IB_QPT_UC)
		return true;
	/* modify_qp writes qp->av under qp->lock (and req.lock). */
	spin_lock_irqsave(&qp->lock, flags);
	ok = sroce_recv_from_peer(&qp->av, skb);
	spin_unlock_irqrestore(&qp->lock, flags);
	return ok;
}

void sroce_cc_rx_cnp(struct sroce_dev *sdev, struct sk_buff *skb)
{
	u32 qpn = sroce_bth_destqp(sroce_rx_bth(skb));
	bool handled = false, win_cut = false;
	struct sroce_qp *qp;

	sroce_counter_inc(sdev, SROCE_CNT_RX_CNP);
	/* Annex A17: no PSN or state check; a CNP is never acknowledged. */
	qp = qpn ? sroce_qp_get(sdev, qpn) : NULL;
	if (qp && unlikely(!sroce_cc_cnp_from_peer(qp, skb))) {
		sroce_qp_put(qp);
		trace_sroce_cnp_rcvd(qpn, false);
		sroce_counter_inc(sdev, SROCE_CNT_RX_DROP_BAD_ADDR);
		kfree_skb(skb);
		return;
	}
	if (qp) {
		handled = sroce_cc_rp_cnp(qp, &win_cut);
		if (win_cut && qp->ibqp.qp_type == IB_QPT_RC)
			sroce_comp_cnp(qp);
		sroce_qp_put(qp);
	}
	trace_sroce_cnp_rcvd(qpn, handled);
	sroce_counter_inc(sdev, handled ? SROCE_CNT_RP_CNP_HANDLED :
					  SROCE_CNT_RP_CNP_IGNORED);
	consume_skb(skb);
}

/* ---- rdma resource show qp -dd (restrack.c) ---- */

int sroce_cc_fill_res(struct sk_buff *msg, struct sroce_qp *qp)
{
	struct sroce_qp_cc *cc = &qp->cc;
	unsigned long flags;
	u32 alpha = 0;
	u64 rate;

	spin_lock_irqsave(&cc->lock, flags);
	rate = cc->st.active ? cc->st.rate : cc->line_rate;
	if (cc->algo->ops->alpha)
		alpha = cc->algo->ops->alpha(&cc->st);
	spin_unlock_irqrestore(&cc->lock, flags);

	if (rdma_nl_put_driver_string(msg, "cc_algo", cc->algo->ops->name) ||
	    rdma_nl_put_driver_u64(msg, "cc_rate_kbps", rate) ||
	    rdma_nl_put_driver_u32(msg, "cc_alpha_q20", alpha))
		return -EMSGSIZE;
	return 0;
}
