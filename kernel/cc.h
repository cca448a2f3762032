/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cc.h - congestion control glue: algorithm registration, per-device
 * knobs, per-QP state and pacing (Documentation/cc.rst).
 *
 * The algorithms are pure (kernel/proto/cc.h); this file gives them a
 * clock, a lock and a rate limiter.  A QP picks the device's algorithm when
 * it is created and keeps it (and a reference on its module) until it is
 * destroyed.  While the algorithm is idle (rate = line rate) the data path
 * pays one predictable branch per packet: qp->cc.active is false.
 *
 * Contexts: CNP receive (softirq), the requester (req.lock held: process,
 * softirq, timers, work) and READ responses (resp.lock held) call in; each
 * takes qp->cc.lock, the innermost lock of a QP (req.lock -> cc.lock,
 * resp.lock -> cc.lock).  The pacing hrtimer (softirq) takes no QP lock
 * while it kicks the requester and the responder.
 */
#ifndef _SROCE_CC_H
#define _SROCE_CC_H

#include <linux/hrtimer.h>
#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "proto/cc.h"

struct sroce_dev;
struct sroce_qp;
struct sk_buff;

#define SROCE_CC_PRIOS 8
#define SROCE_CC_NAME_MAX 16

/* A registered algorithm (built in, or from another module). */
struct sroce_cc_algo {
	const struct sroce_cc_ops *ops;
	struct module *owner;
	struct list_head list; /* in sroce_cc_algos, under sroce_cc_algo_lock */
};

/* Register @algo (unique ops->name); 0, -EEXIST or -EINVAL. */
int sroce_cc_register(struct sroce_cc_algo *algo);
void sroce_cc_unregister(struct sroce_cc_algo *algo);

/* Per-device knobs (sysfs ecn/, cc_sysfs.c). */
struct sroce_cc_dev {
	/* Serialises knob writers (sysfs); readers need no lock. */
	struct mutex lock;
	/* RP parameters: replaced whole under lock, read under RCU. */
	struct sroce_cc_params __rcu *rp;
	/* Algorithm for new QPs; written under lock and algo lock, read RCU. */
	struct sroce_cc_algo __rcu *algo;
	/* NP, RP and ECT per priority; single bytes, READ_ONCE/WRITE_ONCE. */
	u32 min_time_between_cnps; /* us */
	u8 cnp_dscp;
	u8 cnp_802p_prio;
	u8 cnp_ecn; /* ECN bits of CNPs: 0 not-ECT (default) */
	u8 np_enable; /* bit per priority */
	u8 rp_enable; /* bit per priority */
	u8 ect[SROCE_CC_PRIOS]; /* ECN bits of other packets: 2 = ECT(0) */
	u8 default_dscp; /* DSCP when the traffic class has none */
	/* sysfs: ecn/ and its children; created after registration. */
	struct kobject *kobj_ecn, *kobj_np, *kobj_rp, *kobj_tx;
};

/* Per-QP state, embedded in struct sroce_qp. */
struct sroce_qp_cc {
	/*
	 * Guards st, edt, last_cnp and stopped.  Innermost lock of the QP,
	 * interrupts disabled.
	 */
	spinlock_t lock;
	struct sroce_cc_algo *algo; /* constant from create to destroy */
	/*
	 * RC and the algorithm reads INT (on_int): the requester asks for
	 * it, the completer hands it over (int.h).  Set with algo, before
	 * the QP is published; the data path reads it per packet.
	 */
	bool int_req;
	struct sroce_cc_state st;
	/* kbit/s, port speed at create and RESET; READ_ONCE without lock */
	u64 line_rate;
	u64 edt; /* ns: earliest departure time of the next data packet */
	u64 last_cnp; /* ns: last CNP this QP (as NP) sent; 0 = never */
	/* st.active, read without the lock by the data path. */
	bool active;
	bool stopped; /* destroy: the timer is not armed again */
	struct hrtimer pace_timer; /* wakes the sender at edt */
	/*
	 * RTT probe of an algorithm with on_ack (one request packet at a
	 * time, as TCP's RTT sampling): guarded by the QP's req.lock.
	 */
	u64 probe_ts; /* ns: when probe_psn left; 0 = no probe out */
	u32 probe_psn;
};

/* Module init/exit: the built-in algorithms. */
int sroce_cc_init(void);
void sroce_cc_exit(void);

/* Device: knobs with defaults; sysfs after registration. */
int sroce_cc_dev_init(struct sroce_dev *sdev);
void sroce_cc_dev_fini(struct sroce_dev *sdev);

/* QP create / destroy (stop before the QP's timers, cleanup at the end). */
void sroce_cc_qp_init(struct sroce_qp *qp);
void sroce_cc_qp_stop(struct sroce_qp *qp);
void sroce_cc_qp_cleanup(struct sroce_qp *qp);
/* modify to RESET (req.lock held): the state of a new QP (cc.c). */
void sroce_cc_qp_reset(struct sroce_qp *qp);

/* Slow paths of the inline hooks below (cc.c). */
bool sroce_cc_pace_slow(struct sroce_qp *qp);
void sroce_cc_sent_slow(struct sroce_qp *qp, u32 bytes);
void sroce_cc_rtt_sent_slow(struct sroce_qp *qp, u32 psn);
void sroce_cc_rtt_acked_slow(struct sroce_qp *qp, u32 una_psn);

/* roce_rp/window_rtt_fair of @qp's device (RCU inside). */
bool sroce_cc_win_rtt_fair(struct sroce_qp *qp);

/*
 * Pacing: may the QP send a data packet now?  If not, the pacing timer
 * runs the requester and the responder at the departure time.  Caller
 * holds req.lock or resp.lock; @cc is &qp->cc.
 */
static inline bool sroce_cc_may_send(struct sroce_qp *qp,
				     struct sroce_qp_cc *cc)
{
	return likely(!READ_ONCE(cc->active)) || sroce_cc_pace_slow(qp);
}

/* A data packet of @bytes (BTH to ICRC) left: byte counter, pacing. */
static inline void sroce_cc_sent(struct sroce_qp *qp, struct sroce_qp_cc *cc,
				 u32 bytes)
{
	if (unlikely(READ_ONCE(cc->active)))
		sroce_cc_sent_slow(qp, bytes);
}

/*
 * RTT samples for an algorithm with on_ack (TIMELY): the requester sent
 * the RC request packet @psn; req.lock held.
 */
static inline void sroce_cc_rtt_sent(struct sroce_qp *qp,
				     struct sroce_qp_cc *cc, u32 psn)
{
	if (unlikely(cc->algo->ops->on_ack))
		sroce_cc_rtt_sent_slow(qp, psn);
}

/* The completer: every PSN before @una_psn is acknowledged; req.lock held. */
static inline void sroce_cc_rtt_acked(struct sroce_qp *qp,
				      struct sroce_qp_cc *cc, u32 una_psn)
{
	if (unlikely(cc->probe_ts))
		sroce_cc_rtt_acked_slow(qp, una_psn);
}

/*
 * The completer: a response from the peer carried INT @t (int.c), for an
 * algorithm with on_int; @ack_seq and @snd_nxt as on_int wants them.
 * false if the RP is disabled for the QP's priority.  req.lock held.
 */
bool sroce_cc_int_ack(struct sroce_qp *qp, u64 ack_seq, u64 snd_nxt,
		      const struct sroce_cc_int *t);

/* Receive path: a CNP (recv.c; softirq, RCU held).  Consumes @skb. */
void sroce_cc_rx_cnp(struct sroce_dev *sdev, struct sk_buff *skb);

/*
 * rdma resource show qp -dd: appends cc_algo, cc_rate_kbps and cc_alpha_q20
 * to an open driver-attribute nest (restrack.c); -EMSGSIZE if full.
 */
int sroce_cc_fill_res(struct sk_buff *msg, struct sroce_qp *qp);

/* Line rate of the device's port in kbit/s. */
u64 sroce_cc_port_rate(struct sroce_dev *sdev);

/* The list of registered algorithms (walk under sroce_cc_algo_lock). */
struct list_head *sroce_cc_algo_list(void);

/* The registered algorithm named @name, or NULL (RCU or algo lock held). */
struct sroce_cc_algo *sroce_cc_find(const char *name);
/* Serialises the algorithm list (writers); readers use RCU. */
extern struct mutex sroce_cc_algo_lock;

#endif /* _SROCE_CC_H */
