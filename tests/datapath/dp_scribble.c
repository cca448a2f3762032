// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * dp_scribble.c - a process scribbles over its own mapped rings while its
 * other threads use them, for t-hostile.sh.  KTAP lines on stdout.
 *
 *   dp_scribble -d DEV1 -g GID1 -D DEV2 -G GID2 [-s SEED] [-t SECS]
 *               [-k rc,uc,ud,srq] [-L CPU_MS] [-W WALL_MS] [-C PROD] [-x]
 *   dp_scribble -P
 *
 * Meant to run as an unprivileged user: that is who attacks a uverbs
 * device.  Each pair is one QP of a kind on DEV1 connected to one on DEV2
 * (two devices of one process; the packets cross whatever links the two,
 * two namespaces in t-hostile), with its own CQs (and SRQs for "srq").
 *
 * First, directed cases on each pair, single-threaded, with the outcome
 * checked: a WQE with num_sge or inline_len one past the limit completes
 * with IBV_WC_LOC_LEN_ERR; an SQ prod more than nslots ahead puts the QP
 * in ERR with at most nslots completions; RESET with the SQ prod at PROD
 * (default 2^21), then INIT and ERR, each transition within the limits
 * and at most nslots flush completions; an SQ prod moved back behind WQEs
 * the kernel has fetched but not completed, the same; an RQ (SRQ) prod
 * more than nslots ahead when a SEND arrives gives no successful receive
 * and at most nslots completions.
 *
 * Then for -t seconds (default 30) threads run at once, each with its own
 * PRNG derived from SEED (printed; the same SEED gives each thread the
 * same sequence of choices, not the same interleaving):
 *   scribbler  writes the rings' headers (both indices, far ahead, behind,
 *              wrapping; geometry and flags) and slots (random bytes,
 *              WQEs with num_sge / inline_len at and past the limits, bad
 *              opcodes, SGEs, AHs and Q_Keys), publishes them, rings the
 *              doorbell (two such threads)
 *   poster     posts valid sends, RDMA and atomics both ways, receives
 *   poller     polls every CQ, arms them
 *   resizer    resize_cq, SRQ max_wr and limit changes
 *   stater     modify_qp at random, RESET/ERR loops, reconnects
 *   destroyer  destroys a pair and makes it again
 * The scribbler takes the provider's lock of the ring it writes, so the
 * provider is never in the middle of unmapping it; the destroyer holds the
 * pair's lock for writing (no thread uses a pair while it is remade).
 *
 * Every verb is timed, in wall time and in the calling thread's CPU time
 * (user and system: the kernel's work done for the call).  No call may
 * take more than CPU_MS (default 1000) of both, nor more than WALL_MS
 * (default 3000) of wall time; a verb still running after 10 s is a hang,
 * reported at once.  Why both clocks: wall time also counts the other
 * threads of this process (seven, on a 2-CPU guest) and a loaded host
 * (under TCG with a load average of 11, a lone RTR modify_qp took 1.03 s
 * before any other thread had started), and the guest's per-thread CPU
 * clock jumps (over_limit()); a kernel loop in the caller's context, like
 * the RESET cursor case (an ERR transition walking from 0 to PROD), shows
 * in both.  A slow query, resize_cq or modify_srq, calls that can be
 * made again with the same arguments, is timed again up to twice and is
 * slow only if every try is (TIMED_AGAIN: a loaded host stalls a vCPU for
 * one call, a kernel loop makes every call slow; CI saw resize_cq of at
 * most 4096 CQEs take 1.36 s, 1.16 s of CPU, once in 5026 calls beside
 * two other guests).  resize_cq to max_cqe is timed alone, before the
 * threads start.  Every destroy must succeed.  At
 * the end everything is destroyed, or with -x the process exits with
 * every object alive and in whatever state (the kernel's cleanup of a
 * dead process).  -P prints the plan.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

/* The provider's objects, for the ring pointers (provider/ headers). */
#include "srq.h"
#include "verbs.h"

#include "dp_tool.h"

#define SC_QKEY 0x11111111U
#define SC_DEPTH 32 /* WRs per work queue */
#define SC_CQE 64
#define SC_SGE 4
#define SC_INLINE 64
#define SC_BUF (256 * 1024) /* per device; [0, half) RDMA, rest buffers */
#define SC_HANG_NS (10 * 1000000000LL)
#define SC_NSLOW 8 /* slow calls described in full */

enum sc_kind { SC_RC, SC_UC, SC_UD, SC_SRQ, SC_NKIND };
static const char *const kind_name[SC_NKIND] = { "rc", "uc", "ud", "srq" };

enum sc_verb {
	V_POST_SEND,
	V_POST_RECV,
	V_POST_SRQ_RECV,
	V_DOORBELL,
	V_POLL_CQ,
	V_NOTIFY_CQ,
	V_RESIZE_CQ,
	V_MODIFY_SRQ,
	V_QUERY_SRQ,
	V_MODIFY_QP,
	V_QUERY_QP,
	V_CREATE_CQ,
	V_DESTROY_CQ,
	V_CREATE_SRQ,
	V_DESTROY_SRQ,
	V_CREATE_QP,
	V_DESTROY_QP,
	V_CREATE_AH,
	V_DESTROY_AH,
	V_NVERB
};
static const char *const verb_name[V_NVERB] = {
	"post_send", "post_recv",  "post_srq_recv", "doorbell",	  "poll_cq",
	"notify_cq", "resize_cq",  "modify_srq",    "query_srq",  "modify_qp",
	"query_qp",  "create_cq",  "destroy_cq",    "create_srq", "destroy_srq",
	"create_qp", "destroy_qp", "create_ah",	    "destroy_ah",
};

/* Directed cases per kind (see the top). */
#define SC_NDIRECTED 7

static struct {
	const char *dev[2];
	int gid[2];
	uint64_t seed;
	int secs;
	unsigned int kinds; /* bit per enum sc_kind */
	int64_t limit_ns; /* CPU time of one verb */
	int64_t wall_ns; /* wall time of one verb */
	int abrupt;
	uint32_t cursor; /* SQ prod of the RESET cursor case */
} cfg = { .secs = 30,
	  .kinds = (1U << SC_NKIND) - 1,
	  .limit_ns = 1000000000LL,
	  .wall_ns = 3000000000LL,
	  .cursor = 1U << 21 };

/* ---- time, PRNG ---- */

static int64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* CPU time of the calling thread, user and system (the kernel's work). */
static int64_t cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* splitmix64: one state word per thread. */
static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t rn(uint64_t *s, uint32_t n)
{
	return n ? (uint32_t)(rnd(s) % n) : 0;
}

/* ---- devices and pairs ---- */

struct sc_dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
	int gid_idx;
	enum ibv_mtu mtu;
	struct ibv_device_attr attr;
};

struct sc_side {
	struct ibv_cq *scq, *rcq;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	struct ibv_ah *ah; /* UD: to the other side */
	uint32_t psn;
};

/* What was last done to a pair's rings, for the report of a slow verb. */
#define SC_NLOG 4
#define SC_LOGLEN 100

struct sc_pair {
	enum sc_kind kind;
	int idx;
	/*
	 * Held for writing by the destroyer while it remakes the pair, for
	 * reading by every other thread while it uses the pair's objects.
	 */
	pthread_rwlock_t lock;
	struct sc_side s[2];
	int alive; /* guarded by lock */
	pthread_mutex_t log_lock; /* guards log, nlog */
	char log[SC_NLOG][SC_LOGLEN];
	unsigned int nlog;
};

static struct sc_dev devs[2];
/* Local ACK timeout (IBA exponent) of RC QPs going to RTS. */
static _Atomic int rc_timeout = 8; /* ~1 ms */
static struct sc_pair pairs[SC_NKIND];
static int npairs;

/* ---- timing of verbs ---- */

struct sc_stat {
	uint64_t n;
	int64_t max_ns, max_cpu_ns;
	uint64_t slow; /* calls over a limit */
	uint64_t again; /* slow tries of a repeatable verb timed again */
};

struct sc_thread {
	const char *name;
	void (*step)(struct sc_thread *t);
	pthread_t tid;
	uint64_t rng;
	_Atomic int64_t since; /* start of the verb running, 0 if none */
	int64_t since_cpu; /* the thread's CPU time then */
	_Atomic int verb;
	_Atomic int done;
	struct sc_stat st[V_NVERB];
	uint64_t steps;
	char detail[128]; /* what the verb running does, for a slow one */
};

static pthread_mutex_t slow_lock = PTHREAD_MUTEX_INITIALIZER;
static char slow_desc[SC_NSLOW][640]; /* guarded by slow_lock */
static int slow_verb[SC_NSLOW]; /* guarded by slow_lock */
static int nslow; /* guarded by slow_lock */
static _Atomic int destroy_failures, create_failures;
static _Atomic int stop;
static struct sc_stat prelude_st[V_NVERB];
static struct sc_thread prelude = { .name = "directed" };

static void pair_log(struct sc_pair *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void pair_log(struct sc_pair *p, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&p->log_lock);
	va_start(ap, fmt);
	vsnprintf(p->log[p->nlog++ % SC_NLOG], SC_LOGLEN, fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&p->log_lock);
}

/*
 * Over the limits: more than limit_ns of both wall and CPU time, or more
 * than wall_ns of wall time.  The smaller of the two for the first: wall
 * time alone counts the other threads, and the guest's per-thread CPU
 * clock jumps (TCG, unstable TSC: a 15 ms poll_cq was seen "using" 2.2 s
 * of CPU); a kernel loop in the caller's context shows in both.
 */
static int over_limit(int64_t wall, int64_t cpu)
{
	return (wall > cfg.limit_ns && cpu > cfg.limit_ns) ||
	       wall > cfg.wall_ns;
}

static void verb_begin(struct sc_thread *t, int v)
{
	if (v != V_MODIFY_QP)
		t->detail[0] = 0;
	atomic_store_explicit(&t->verb, v, memory_order_relaxed);
	t->since_cpu = cpu_ns();
	atomic_store_explicit(&t->since, now_ns(), memory_order_release);
}

/*
 * The end of a call.  @again: the call may be made once more with the same
 * arguments (TIMED_AGAIN): a slow try is then counted in ->again, not as
 * slow, and verb_end() returns true so that the caller times it again.
 */
static bool verb_end(struct sc_thread *t, int v, struct sc_pair *p,
		     bool again)
{
	int64_t dt = now_ns() - atomic_load(&t->since);
	int64_t dc = cpu_ns() - t->since_cpu;
	struct sc_stat *s = &t->st[v];
	unsigned int i;
	int len;

	atomic_store_explicit(&t->since, 0, memory_order_release);
	s->n++;
	if (dt > s->max_ns)
		s->max_ns = dt;
	if (dc > s->max_cpu_ns)
		s->max_cpu_ns = dc;
	if (!over_limit(dt, dc))
		return false;
	if (again) {
		s->again++;
		return true;
	}
	s->slow++;
	pthread_mutex_lock(&slow_lock);
	if (nslow < SC_NSLOW) {
		char *d = slow_desc[nslow];

		slow_verb[nslow++] = v;
		len = snprintf(
			d, 640,
			"%s took %.3f s, %.3f s of CPU (thread %s, pair %s%s%s)",
			verb_name[v], dt / 1e9, dc / 1e9, t->name,
			p ? kind_name[p->kind] : "-", t->detail[0] ? ", " : "",
			t->detail);
		if (p) {
			pthread_mutex_lock(&p->log_lock);
			for (i = 0; i < SC_NLOG && i < p->nlog; i++)
				len += snprintf(
					d + len, 640 - len, "; before: %s",
					p->log[(p->nlog - 1 - i) % SC_NLOG]);
			pthread_mutex_unlock(&p->log_lock);
		}
	}
	pthread_mutex_unlock(&slow_lock);
	return false;
}

#define TIMED(t, v, p, expr)                    \
	({                                      \
		verb_begin((t), (v));           \
		__auto_type timed_r_ = (expr);  \
		verb_end((t), (v), (p), false); \
		timed_r_;                       \
	})

/*
 * A call that changes nothing, or that leaves the same state when it is
 * made again with the same arguments (query, resize to a size, an SRQ
 * attribute): a slow try is made again, up to SC_AGAIN more times, and
 * only the last try can count as slow.  A kernel loop bounded by what the
 * process wrote into its rings is slow on every try; a vCPU that a loaded
 * host did not run for a second (TCG: the guest's clocks, the thread's CPU
 * clock too, count that time as the call's) is rarely slow twice running.
 * @expr is evaluated on every try: its arguments must not change.
 */
#define SC_AGAIN 2
#define TIMED_AGAIN(t, v, p, expr)                                   \
	({                                                           \
		int timed_try_ = 0;                                  \
		__typeof__(expr) timed_r_;                           \
		do {                                                 \
			verb_begin((t), (v));                        \
			timed_r_ = (expr);                           \
		} while (verb_end((t), (v), (p),                     \
				  timed_try_++ < SC_AGAIN));         \
		timed_r_;                                            \
	})

/* ---- QP set-up ---- */

static int qp_modify(struct sc_thread *t, struct sc_pair *p, struct ibv_qp *qp,
		     struct ibv_qp_attr *a, int mask)
{
	return TIMED(t, V_MODIFY_QP, p, ibv_modify_qp(qp, a, mask));
}

static int qp_to(struct sc_thread *t, struct sc_pair *p, int side,
		 enum ibv_qp_state st)
{
	struct sc_side *s = &p->s[side], *o = &p->s[!side];
	struct sc_dev *d = &devs[side];
	struct ibv_qp_attr a = { .qp_state = st };
	int mask = IBV_QP_STATE;

	switch (st) {
	case IBV_QPS_INIT:
		a.port_num = 1;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		if (p->kind == SC_UD) {
			a.qkey = SC_QKEY;
			mask |= IBV_QP_QKEY;
		} else {
			a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
					    IBV_ACCESS_REMOTE_READ;
			if (p->kind != SC_UC)
				a.qp_access_flags |= IBV_ACCESS_REMOTE_ATOMIC;
			else
				a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
			mask |= IBV_QP_ACCESS_FLAGS;
		}
		break;
	case IBV_QPS_RTR:
		if (p->kind == SC_UD)
			break;
		a.path_mtu = d->mtu;
		a.dest_qp_num = o->qp->qp_num;
		a.rq_psn = o->psn;
		a.ah_attr.is_global = 1;
		a.ah_attr.port_num = 1;
		a.ah_attr.grh.sgid_index = (uint8_t)d->gid_idx;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.grh.dgid = devs[!side].gid;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
		if (p->kind != SC_UC) {
			a.max_dest_rd_atomic = 4;
			a.min_rnr_timer = 1;
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER;
		}
		break;
	case IBV_QPS_RTS:
		a.sq_psn = s->psn;
		mask |= IBV_QP_SQ_PSN;
		if (p->kind == SC_RC || p->kind == SC_SRQ) {
			a.timeout = (uint8_t)atomic_load(&rc_timeout);
			a.retry_cnt = 1;
			a.rnr_retry = 1;
			a.max_rd_atomic = 4;
			mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
		}
		break;
	default:
		break;
	}
	{
		struct sroce_qp *sqp = to_sqp(s->qp);

		snprintf(
			t->detail, sizeof(t->detail),
			"side %d to state %d, sq prod %#x cons %#x, rq prod %#x cons %#x",
			side, st, sqp->sq.hdr->prod, sqp->sq.hdr->cons,
			sqp->rq.hdr ? sqp->rq.hdr->prod : 0,
			sqp->rq.hdr ? sqp->rq.hdr->cons : 0);
	}
	return qp_modify(t, p, s->qp, &a, mask);
}

/* Both sides RESET -> INIT -> RTR -> RTS; 0 or the first errno. */
static int pair_connect(struct sc_thread *t, struct sc_pair *p)
{
	static const enum ibv_qp_state seq[] = { IBV_QPS_RESET, IBV_QPS_INIT,
						 IBV_QPS_RTR, IBV_QPS_RTS };
	unsigned int i;
	int side, ret;

	for (i = 0; i < sizeof(seq) / sizeof(seq[0]); i++)
		for (side = 0; side < 2; side++) {
			ret = qp_to(t, p, side, seq[i]);
			if (ret)
				return ret;
		}
	return 0;
}

static void side_destroy(struct sc_thread *t, struct sc_pair *p,
			 struct sc_side *s)
{
	int ret;

	if (s->qp) {
		ret = TIMED(t, V_DESTROY_QP, p, ibv_destroy_qp(s->qp));
		if (ret)
			atomic_fetch_add(&destroy_failures, 1);
		s->qp = NULL;
	}
	if (s->ah) {
		ret = TIMED(t, V_DESTROY_AH, p, ibv_destroy_ah(s->ah));
		if (ret)
			atomic_fetch_add(&destroy_failures, 1);
		s->ah = NULL;
	}
	if (s->srq) {
		ret = TIMED(t, V_DESTROY_SRQ, p, ibv_destroy_srq(s->srq));
		if (ret)
			atomic_fetch_add(&destroy_failures, 1);
		s->srq = NULL;
	}
	if (s->scq) {
		ret = TIMED(t, V_DESTROY_CQ, p, ibv_destroy_cq(s->scq));
		if (ret)
			atomic_fetch_add(&destroy_failures, 1);
		s->scq = NULL;
	}
	if (s->rcq) {
		ret = TIMED(t, V_DESTROY_CQ, p, ibv_destroy_cq(s->rcq));
		if (ret)
			atomic_fetch_add(&destroy_failures, 1);
		s->rcq = NULL;
	}
}

static void pair_destroy(struct sc_thread *t, struct sc_pair *p)
{
	side_destroy(t, p, &p->s[0]);
	side_destroy(t, p, &p->s[1]);
	p->alive = 0;
}

static const enum ibv_qp_type qpt[SC_NKIND] = { IBV_QPT_RC, IBV_QPT_UC,
						IBV_QPT_UD, IBV_QPT_RC };

static int side_create(struct sc_thread *t, struct sc_pair *p, int side)
{
	struct sc_side *s = &p->s[side];
	struct sc_dev *d = &devs[side];
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = SC_DEPTH,
			 .max_recv_wr = SC_DEPTH,
			 .max_send_sge = SC_SGE,
			 .max_recv_sge = SC_SGE,
			 .max_inline_data = SC_INLINE },
		.qp_type = qpt[p->kind],
	};

	s->scq = TIMED(t, V_CREATE_CQ, p,
		       ibv_create_cq(d->ctx, SC_CQE, NULL, NULL, 0));
	s->rcq = TIMED(t, V_CREATE_CQ, p,
		       ibv_create_cq(d->ctx, SC_CQE, NULL, NULL, 0));
	if (!s->scq || !s->rcq)
		return -1;
	if (p->kind == SC_SRQ) {
		struct ibv_srq_init_attr sa = {
			.attr = { .max_wr = SC_DEPTH, .max_sge = SC_SGE },
		};

		s->srq = TIMED(t, V_CREATE_SRQ, p, ibv_create_srq(d->pd, &sa));
		if (!s->srq)
			return -1;
		qa.srq = s->srq;
	}
	qa.send_cq = s->scq;
	qa.recv_cq = s->rcq;
	s->qp = TIMED(t, V_CREATE_QP, p, ibv_create_qp(d->pd, &qa));
	if (!s->qp) {
		qa.cap.max_inline_data = 0;
		s->qp = TIMED(t, V_CREATE_QP, p, ibv_create_qp(d->pd, &qa));
	}
	if (!s->qp)
		return -1;
	s->psn = (uint32_t)rnd(&t->rng) & 0xffffff;
	if (p->kind == SC_UD) {
		struct ibv_ah_attr ah = {
			.is_global = 1,
			.port_num = 1,
			.grh = { .dgid = devs[!side].gid,
				 .sgid_index = (uint8_t)d->gid_idx,
				 .hop_limit = 64 },
		};

		s->ah = TIMED(t, V_CREATE_AH, p, ibv_create_ah(d->pd, &ah));
		if (!s->ah)
			return -1;
	}
	return 0;
}

/* Make and connect a pair (caller holds its lock for writing). */
static int pair_create(struct sc_thread *t, struct sc_pair *p)
{
	if (side_create(t, p, 0) || side_create(t, p, 1) ||
	    pair_connect(t, p)) {
		fprintf(stderr, "dp_scribble: pair %s: %s\n",
			kind_name[p->kind], strerror(errno));
		pair_destroy(t, p);
		return -1;
	}
	p->alive = 1;
	return 0;
}

/* ---- ring access through the provider's objects ---- */

/* A ring of a pair and the provider lock that serialises its user side. */
struct sc_ring {
	struct sroce_queue *q;
	pthread_spinlock_t *lock;
	int user_prod; /* user space produces (SQ, RQ, SRQ) or consumes (CQ) */
	int sq; /* the SQ: a doorbell makes the kernel read it */
	struct ibv_qp *qp; /* its QP (SQ, RQ) */
	const char *what;
};

/* The rings of side @side of @p into @r (at most 5); their number. */
static int side_rings(struct sc_pair *p, int side, struct sc_ring *r)
{
	struct sc_side *s = &p->s[side];
	struct sroce_qp *sqp = to_sqp(s->qp);
	int n = 0;

	r[n++] = (struct sc_ring){ &sqp->sq, &sqp->sq_lock, 1, 1, s->qp, "sq" };
	if (sroce_queue_is_mapped(&sqp->rq))
		r[n++] = (struct sc_ring){ &sqp->rq, &sqp->rq_lock, 1,
					   0,	     s->qp,	    "rq" };
	if (s->srq)
		r[n++] = (struct sc_ring){ &to_ssrq(s->srq)->ring,
					   &to_ssrq(s->srq)->lock,
					   1,
					   0,
					   NULL,
					   "srq" };
	r[n++] = (struct sc_ring){
		&to_scq(s->scq)->ring, &to_scq(s->scq)->lock, 0, 0, NULL, "scq"
	};
	r[n++] = (struct sc_ring){
		&to_scq(s->rcq)->ring, &to_scq(s->rcq)->lock, 0, 0, NULL, "rcq"
	};
	return n;
}

static _Atomic uint32_t *idx_ptr(struct sroce_queue *q, int prod)
{
	return prod ? (_Atomic uint32_t *)&q->hdr->prod :
		      (_Atomic uint32_t *)&q->hdr->cons;
}

static int doorbell(struct sc_thread *t, struct sc_pair *p, struct ibv_qp *qp)
{
	return TIMED(t, V_DOORBELL, p, dpt_doorbell(qp));
}

/* ---- the garbage ---- */

static uint32_t pick32(uint64_t *g, const uint32_t *v, unsigned int n)
{
	return rn(g, 5) ? v[rn(g, n)] : (uint32_t)rnd(g);
}

static void garbage_sge(uint64_t *g, int side, struct sroce_sge *sge)
{
	struct sc_dev *d = &devs[side];
	uint64_t base = (uintptr_t)d->buf;
	const uint64_t addrs[] = {
		base + rn(g, SC_BUF),  base + SC_BUF - 1, base - 4096, 0,
		0xffff888000000000ULL, ~0ULL - 7,	  rnd(g)
	};
	const uint32_t lens[] = { 0,	      1,	  rn(g, SC_BUF), SC_BUF,
				  SC_BUF + 1, 0x7fffffff, 0xffffffff,	 4096 };
	const uint32_t keys[] = { d->mr->lkey, d->mr->lkey ^ 1,
				  devs[!side].mr->lkey, 0, d->mr->rkey };

	sge->addr = addrs[rn(g, sizeof(addrs) / sizeof(addrs[0]))];
	sge->length = pick32(g, lens, sizeof(lens) / sizeof(lens[0]));
	sge->lkey = pick32(g, keys, sizeof(keys) / sizeof(keys[0]));
}

/* A send WQE made to hurt, in @slot of @q. */
static void garbage_send(uint64_t *g, struct sc_pair *p, int side,
			 struct sroce_queue *q, uint8_t *slot)
{
	struct sroce_qp *sqp = to_sqp(p->s[side].qp);
	struct sroce_send_wqe *w = (struct sroce_send_wqe *)slot;
	struct sroce_sge *sge = (struct sroce_sge *)(w + 1);
	uint32_t room = (q->slot_size - sizeof(*w)) / sizeof(*sge);
	uint32_t mx = sqp->max_send_sge, mi = sqp->max_inline_data;
	const uint32_t ops[] = { 0, 1, 2, 3,  4,  5,	      6,
				 7, 8, 9, 10, 31, 0x7fffffff, 0xffffffff };
	const uint32_t nsges[] = { 0,	   1,	       mx,
				   mx + 1, room,       room + 1,
				   0xffff, 0x80000000, 0xffffffff };
	const uint32_t inl[] = { 0,
				 1,
				 mi,
				 mi + 1,
				 q->slot_size - 64,
				 q->slot_size - 63,
				 0xffff,
				 0xffffffff };
	struct sc_side *o = &p->s[!side];
	uint32_t i, ah = p->s[side].ah ? to_sah(p->s[side].ah)->ah_num : 0;
	const uint32_t ahs[] = { ah, ah + 1, 0, 0xffffffff,
				 o->ah ? to_sah(o->ah)->ah_num : 7 };
	const uint32_t qpns[] = { o->qp->qp_num, 1, 0, 0xffffff,
				  p->s[side].qp->qp_num };
	const uint32_t qkeys[] = { SC_QKEY, 0x80000000, 0x80010000, 0 };

	if (!rn(g, 8)) {
		for (i = 0; i + 8 <= q->slot_size; i += 8)
			*(uint64_t *)(slot + i) = rnd(g);
		return;
	}
	memset(w, 0, sizeof(*w));
	w->wr_id = 0x5c00000000000000ULL | rn(g, 1U << 30);
	w->opcode = pick32(g, ops, sizeof(ops) / sizeof(ops[0]));
	w->flags = rn(g, 4) ? rn(g, 16) : (uint32_t)rnd(g);
	w->num_sge = pick32(g, nsges, sizeof(nsges) / sizeof(nsges[0]));
	w->inline_len = pick32(g, inl, sizeof(inl) / sizeof(inl[0]));
	w->ex.imm_data = (uint32_t)rnd(g);
	w->bind_access = rn(g, 2) ? (uint32_t)rnd(g) : 0;
	switch (rn(g, 4)) {
	case 0:
		w->wr.ud.ah_num = pick32(g, ahs, sizeof(ahs) / sizeof(ahs[0]));
		w->wr.ud.remote_qpn =
			pick32(g, qpns, sizeof(qpns) / sizeof(qpns[0]));
		w->wr.ud.remote_qkey =
			pick32(g, qkeys, sizeof(qkeys) / sizeof(qkeys[0]));
		break;
	case 1:
		w->wr.rdma.remote_addr =
			rn(g, 2) ? (uintptr_t)devs[!side].buf + rn(g, SC_BUF) :
				   rnd(g);
		w->wr.rdma.rkey = rn(g, 2) ? devs[!side].mr->rkey :
					     (uint32_t)rnd(g);
		break;
	case 2:
		w->wr.atomic.remote_addr =
			(uintptr_t)devs[!side].buf + rn(g, SC_BUF);
		w->wr.atomic.rkey = devs[!side].mr->rkey;
		w->wr.atomic.compare_add = rnd(g);
		w->wr.atomic.swap = rnd(g);
		break;
	default:
		w->wr.bind.addr = rnd(g);
		w->wr.bind.length = rnd(g);
		w->wr.bind.mr_lkey = devs[side].mr->lkey;
		w->wr.bind.mw_rkey = (uint32_t)rnd(g);
		break;
	}
	for (i = 0; i < room; i++)
		garbage_sge(g, side, &sge[i]);
}

/* A receive WQE made to hurt, in @slot of @q. */
static void garbage_recv(uint64_t *g, int side, struct sroce_queue *q,
			 uint8_t *slot, uint32_t max_sge)
{
	struct sroce_recv_wqe *w = (struct sroce_recv_wqe *)slot;
	struct sroce_sge *sge = (struct sroce_sge *)(w + 1);
	uint32_t room = (q->slot_size - sizeof(*w)) / sizeof(*sge);
	const uint32_t nsges[] = { 0,	 1,	   max_sge,    max_sge + 1,
				   room, room + 1, 0x80000000, 0xffffffff };
	uint32_t i;

	w->wr_id = 0x5d00000000000000ULL | rn(g, 1U << 30);
	w->num_sge = pick32(g, nsges, sizeof(nsges) / sizeof(nsges[0]));
	w->reserved = rn(g, 2) ? 0 : (uint32_t)rnd(g);
	for (i = 0; i < room; i++)
		garbage_sge(g, side, &sge[i]);
}

/* A value for an index: relative to @base (the other index) or absolute. */
static uint32_t garbage_index(uint64_t *g, uint32_t base, uint32_t own,
			      uint32_t nslots)
{
	uint32_t v;

	switch (rn(g, 12)) {
	case 0:
		v = base + nslots; /* full: legal */
		break;
	case 1:
		v = base + nslots + 1;
		break;
	case 2:
		v = base + nslots + 1 + rn(g, 1U << 20);
		break;
	case 3:
		v = base - 1;
		break;
	case 4:
		v = base - 1 - rn(g, nslots);
		break;
	case 5:
		v = 1U << 21;
		break;
	case 6:
		v = 0x80000000U + rn(g, 2 * nslots) - nslots;
		break;
	case 7:
		v = 0xffffffffU - rn(g, nslots);
		break;
	case 8:
		v = 0;
		break;
	case 9:
		v = (uint32_t)rnd(g);
		break;
	case 10:
		v = base + rn(g, nslots + 1); /* legal */
		break;
	default:
		v = own + 0x7fffffffU;
		break;
	}
	return v;
}

/* One scribble on one ring of pair @p (read-locked). */
static void scribble_one(struct sc_thread *t, struct sc_pair *p)
{
	uint64_t *g = &t->rng;
	int side = (int)rn(g, 2);
	struct sc_ring rings[5], *r;
	struct sroce_queue *q;
	uint32_t own, other, v = 0, i, n = 0;
	int what, ring_it = 0;
	uint32_t *hw;

	r = &rings[rn(g, (uint32_t)side_rings(p, side, rings))];
	q = r->q;
	what = (int)rn(g, 10);
	pthread_spin_lock(r->lock);
	own = atomic_load(idx_ptr(q, r->user_prod));
	other = atomic_load(idx_ptr(q, !r->user_prod));
	if (what < 3) {
		/* The index user space owns. */
		v = garbage_index(g, other, own, q->nslots);
		atomic_store_explicit(idx_ptr(q, r->user_prod), v,
				      memory_order_release);
		ring_it = r->sq;
	} else if (what == 3) {
		/* The index the kernel owns: it must not care. */
		v = garbage_index(g, own, other, q->nslots);
		atomic_store(idx_ptr(q, !r->user_prod), v);
	} else if (what == 4) {
		/* Geometry, flags, reserved words: the kernel has copies. */
		hw = (uint32_t *)q->hdr;
		i = rn(g, 16);
		v = (uint32_t)rnd(g);
		hw[i] = v;
	} else {
		/* Slots: the next ones, or any; published or not. */
		n = 1 + rn(g, 4);
		for (i = 0; i < n; i++) {
			uint32_t at = rn(g, 4) ? own + i : (uint32_t)rnd(g);
			uint8_t *slot = sroce_queue_slot(q, at);

			if (r->sq)
				garbage_send(g, p, side, q, slot);
			else if (r->user_prod)
				garbage_recv(
					g, side, q, slot,
					r->qp ? to_sqp(r->qp)->max_recv_sge :
						SC_SGE);
			else
				memset(slot, (int)rn(g, 256), q->slot_size);
		}
		if (r->user_prod && rn(g, 4)) {
			v = own + n;
			atomic_store_explicit(idx_ptr(q, 1), v,
					      memory_order_release);
			ring_it = r->sq;
		}
	}
	pthread_spin_unlock(r->lock);
	pair_log(p,
		 "%s side %d %s: kind %d, own %#x other %#x -> %#x (%u slots)",
		 t->name, side, r->what, what, own, other, v, n);
	if (ring_it || (r->sq && !rn(g, 4)))
		doorbell(t, p, r->qp);
}

/* ---- threads' steps ---- */

static void step_scribble(struct sc_thread *t)
{
	struct sc_pair *p = &pairs[rn(&t->rng, (uint32_t)npairs)];

	pthread_rwlock_rdlock(&p->lock);
	if (p->alive)
		scribble_one(t, p);
	pthread_rwlock_unlock(&p->lock);
}

static void post_sends(struct sc_thread *t, struct sc_pair *p, int side)
{
	uint64_t *g = &t->rng;
	struct sc_side *s = &p->s[side];
	struct sc_dev *d = &devs[side], *od = &devs[!side];
	struct ibv_send_wr wr[4], *bad;
	struct ibv_sge sge[4];
	uint32_t i, n = 1 + rn(g, 4);

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		uint32_t len = rn(g, 2) ? rn(g, 64) : rn(g, 4096);

		sge[i].addr = (uintptr_t)d->buf + SC_BUF / 2 +
			      rn(g, SC_BUF / 2 - 4096);
		sge[i].length = len;
		sge[i].lkey = d->mr->lkey;
		wr[i].wr_id = 0x9000 + i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].send_flags = rn(g, 4) ? IBV_SEND_SIGNALED : 0;
		if (len <= to_sqp(s->qp)->max_inline_data && rn(g, 2))
			wr[i].send_flags |= IBV_SEND_INLINE;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		if (p->kind == SC_UD) {
			wr[i].opcode = rn(g, 2) ? IBV_WR_SEND :
						  IBV_WR_SEND_WITH_IMM;
			if (len > 1024)
				sge[i].length = 1024;
			wr[i].wr.ud.ah = s->ah;
			wr[i].wr.ud.remote_qpn = p->s[!side].qp->qp_num;
			wr[i].wr.ud.remote_qkey = SC_QKEY;
			continue;
		}
		wr[i].wr.rdma.remote_addr =
			(uintptr_t)od->buf + (rn(g, SC_BUF / 2 - 4096) & ~7U);
		wr[i].wr.rdma.rkey = od->mr->rkey;
		switch (rn(g, p->kind == SC_UC ? 4 : 7)) {
		case 0:
			wr[i].opcode = IBV_WR_SEND;
			break;
		case 1:
			wr[i].opcode = IBV_WR_SEND_WITH_IMM;
			break;
		case 2:
			wr[i].opcode = IBV_WR_RDMA_WRITE;
			break;
		case 3:
			wr[i].opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
			break;
		case 4:
			wr[i].opcode = IBV_WR_RDMA_READ;
			wr[i].send_flags &= ~IBV_SEND_INLINE;
			break;
		default:
			wr[i].opcode = rn(g, 2) ? IBV_WR_ATOMIC_FETCH_AND_ADD :
						  IBV_WR_ATOMIC_CMP_AND_SWP;
			wr[i].send_flags &= ~IBV_SEND_INLINE;
			sge[i].length = 8;
			sge[i].addr &= ~7ULL;
			wr[i].wr.atomic.remote_addr = wr[i].wr.rdma.remote_addr;
			wr[i].wr.atomic.rkey = od->mr->rkey;
			wr[i].wr.atomic.compare_add = rnd(g);
			wr[i].wr.atomic.swap = rnd(g);
			break;
		}
	}
	TIMED(t, V_POST_SEND, p, ibv_post_send(s->qp, wr, &bad));
}

static void post_recvs(struct sc_thread *t, struct sc_pair *p, int side)
{
	uint64_t *g = &t->rng;
	struct sc_side *s = &p->s[side];
	struct sc_dev *d = &devs[side];
	struct ibv_recv_wr wr[8], *bad;
	struct ibv_sge sge[8];
	uint32_t i, n = 1 + rn(g, 8);

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		sge[i].addr = (uintptr_t)d->buf + SC_BUF / 2 +
			      rn(g, SC_BUF / 2 - 8192);
		sge[i].length = 4096 + 64;
		sge[i].lkey = d->mr->lkey;
		wr[i].wr_id = 0xa000 + i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	if (s->srq)
		TIMED(t, V_POST_SRQ_RECV, p,
		      ibv_post_srq_recv(s->srq, wr, &bad));
	else
		TIMED(t, V_POST_RECV, p, ibv_post_recv(s->qp, wr, &bad));
}

static void step_post(struct sc_thread *t)
{
	struct sc_pair *p = &pairs[rn(&t->rng, (uint32_t)npairs)];
	int side = (int)rn(&t->rng, 2);

	pthread_rwlock_rdlock(&p->lock);
	if (p->alive) {
		if (rn(&t->rng, 2))
			post_sends(t, p, side);
		else
			post_recvs(t, p, side);
	}
	pthread_rwlock_unlock(&p->lock);
}

static void step_poll(struct sc_thread *t)
{
	struct sc_pair *p = &pairs[rn(&t->rng, (uint32_t)npairs)];
	struct ibv_wc wc[16];
	int side, k, n;

	pthread_rwlock_rdlock(&p->lock);
	for (side = 0; p->alive && side < 2; side++) {
		struct ibv_cq *cqs[2] = { p->s[side].scq, p->s[side].rcq };

		for (k = 0; k < 2; k++) {
			n = TIMED(t, V_POLL_CQ, p, ibv_poll_cq(cqs[k], 16, wc));
			if (n > 0 && !rn(&t->rng, 4))
				TIMED(t, V_POLL_CQ, p,
				      ibv_poll_cq(cqs[k], 16, wc));
			if (!rn(&t->rng, 16))
				TIMED(t, V_NOTIFY_CQ, p,
				      ibv_req_notify_cq(cqs[k],
							(int)rn(&t->rng, 2)));
		}
	}
	pthread_rwlock_unlock(&p->lock);
}

static void step_resize(struct sc_thread *t)
{
	uint64_t *g = &t->rng;
	struct sc_pair *p = &pairs[rn(g, (uint32_t)npairs)];
	struct sc_side *s = &p->s[rn(g, 2)];
	/* Up to 4096: the largest ones are timed alone (resize_max()). */
	const uint32_t cqes[] = { 1,	2,    15, SC_CQE, 255,
				  1024, 4096, 0,  65537,  0xffffffff };
	const uint32_t wrs[] = { 1, 2, SC_DEPTH, 100, 1024, 0, 0xffffffff };
	struct ibv_srq_attr sa = {};
	struct ibv_cq *cq;
	int ncqe;

	pthread_rwlock_rdlock(&p->lock);
	if (!p->alive)
		goto out;
	if (s->srq && rn(g, 2)) {
		switch (rn(g, 3)) {
		case 0:
			sa.max_wr =
				pick32(g, wrs, sizeof(wrs) / sizeof(wrs[0]));
			TIMED_AGAIN(t, V_MODIFY_SRQ, p,
				    ibv_modify_srq(s->srq, &sa,
						   IBV_SRQ_MAX_WR));
			break;
		case 1:
			sa.srq_limit = rn(g, 2 * SC_DEPTH);
			TIMED_AGAIN(t, V_MODIFY_SRQ, p,
				    ibv_modify_srq(s->srq, &sa,
						   IBV_SRQ_LIMIT));
			break;
		default:
			TIMED_AGAIN(t, V_QUERY_SRQ, p,
				    ibv_query_srq(s->srq, &sa));
			break;
		}
		goto out;
	}
	cq = rn(g, 2) ? s->scq : s->rcq;
	ncqe = (int)pick32(g, cqes, sizeof(cqes) / sizeof(cqes[0]));
	TIMED_AGAIN(t, V_RESIZE_CQ, p, ibv_resize_cq(cq, ncqe));
out:
	pthread_rwlock_unlock(&p->lock);
}

static void step_state(struct sc_thread *t)
{
	static const enum ibv_qp_state states[] = {
		IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS,
		IBV_QPS_SQD,   IBV_QPS_SQE,  IBV_QPS_ERR,
	};
	uint64_t *g = &t->rng;
	struct sc_pair *p = &pairs[rn(g, (uint32_t)npairs)];
	int side = (int)rn(g, 2), i, n;
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	pthread_rwlock_rdlock(&p->lock);
	if (!p->alive)
		goto out;
	switch (rn(g, 6)) {
	case 0:
	case 1:
		qp_to(t, p, side, states[rn(g, 7)]);
		break;
	case 2:
		pair_connect(t, p);
		break;
	case 3:
		/* RESET/ERR loop */
		n = 1 + (int)rn(g, 8);
		for (i = 0; i < n; i++)
			qp_to(t, p, side, i & 1 ? IBV_QPS_ERR : IBV_QPS_RESET);
		break;
	case 4:
		TIMED_AGAIN(t, V_QUERY_QP, p,
			    ibv_query_qp(p->s[side].qp, &a, IBV_QP_STATE,
					 &ia));
		break;
	default:
		/* RESET with whatever the rings hold, then INIT, ERR. */
		qp_to(t, p, side, IBV_QPS_RESET);
		qp_to(t, p, side, IBV_QPS_INIT);
		if (rn(g, 2))
			qp_to(t, p, side, IBV_QPS_ERR);
		else
			pair_connect(t, p);
		break;
	}
out:
	pthread_rwlock_unlock(&p->lock);
}

static void step_destroy(struct sc_thread *t)
{
	struct sc_pair *p = &pairs[rn(&t->rng, (uint32_t)npairs)];

	pthread_rwlock_wrlock(&p->lock);
	if (p->alive)
		pair_destroy(t, p);
	if (pair_create(t, p))
		atomic_fetch_add(&create_failures, 1);
	pthread_rwlock_unlock(&p->lock);
	/* Let the others use the new pair for a while. */
	usleep(20000 + rn(&t->rng, 200000));
}

static void *thread_main(void *arg)
{
	struct sc_thread *t = arg;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		t->step(t);
		t->steps++;
		/* Leave the guest's CPUs to the kernel's side of the work. */
		if (t->step != step_destroy && !rn(&t->rng, 8))
			usleep(50 + rn(&t->rng, 200));
	}
	atomic_store(&t->done, 1);
	return NULL;
}

static struct sc_thread threads[] = {
	{ .name = "scribbler", .step = step_scribble },
	{ .name = "scribbler2", .step = step_scribble },
	{ .name = "poster", .step = step_post },
	{ .name = "poller", .step = step_poll },
	{ .name = "resizer", .step = step_resize },
	{ .name = "stater", .step = step_state },
	{ .name = "destroyer", .step = step_destroy },
};
#define SC_NTHREAD ((int)(sizeof(threads) / sizeof(threads[0])))

/* ---- directed cases ---- */

/* Poll @cq for up to @ms; count entries, remember the status of @wr_id. */
static int drain(struct sc_thread *t, struct sc_pair *p, struct ibv_cq *cq,
		 int ms, uint64_t wr_id, int *status, int *nsuccess)
{
	int64_t end = now_ns() + (int64_t)ms * 1000000;
	struct ibv_wc wc[16];
	int i, n, total = 0;

	do {
		n = TIMED(t, V_POLL_CQ, p, ibv_poll_cq(cq, 16, wc));
		for (i = 0; i < n; i++) {
			if (status && wc[i].wr_id == wr_id && *status < 0)
				*status = wc[i].status;
			if (nsuccess && wc[i].status == IBV_WC_SUCCESS)
				(*nsuccess)++;
		}
		if (n > 0)
			total += n;
		else
			usleep(1000);
	} while (now_ns() < end);
	return total;
}

static enum ibv_qp_state qp_state(struct sc_thread *t, struct sc_pair *p,
				  struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	if (TIMED_AGAIN(t, V_QUERY_QP, p,
			ibv_query_qp(qp, &a, IBV_QP_STATE, &ia)))
		return (enum ibv_qp_state) - 1;
	return a.qp_state;
}

/*
 * One garbage-free but over-the-limit send WQE at the SQ prod of side 0:
 * num_sge = max + 1 (@inl 0) or INLINE with inline_len = max + 1.
 */
static void directed_overlimit(struct sc_thread *t, struct sc_pair *p, int inl,
			       char *why, size_t wl, int *ok)
{
	struct sroce_qp *sqp = to_sqp(p->s[0].qp);
	struct sroce_send_wqe *w;
	struct sroce_sge *sge;
	uint32_t prod, i;
	int st = -1;

	if (inl && !sqp->max_inline_data) {
		snprintf(why, wl, "no inline data granted");
		*ok = 0;
		return;
	}
	pthread_spin_lock(&sqp->sq_lock);
	prod = atomic_load(idx_ptr(&sqp->sq, 1));
	w = sroce_queue_slot(&sqp->sq, prod);
	memset(w, 0, sqp->sq.slot_size);
	w->wr_id = 0xd1;
	w->opcode = SROCE_WR_SEND;
	w->flags = SROCE_WQE_SIGNALED | (inl ? SROCE_WQE_INLINE : 0);
	if (inl) {
		w->inline_len = sqp->max_inline_data + 1;
	} else {
		w->num_sge = sqp->max_send_sge + 1;
		sge = (struct sroce_sge *)(w + 1);
		for (i = 0;
		     i < sqp->max_send_sge &&
		     sizeof(*w) + (i + 1) * sizeof(*sge) <= sqp->sq.slot_size;
		     i++) {
			sge[i].addr = (uintptr_t)devs[0].buf + SC_BUF / 2;
			sge[i].length = 8;
			sge[i].lkey = devs[0].mr->lkey;
		}
	}
	if (p->kind == SC_UD) {
		w->wr.ud.ah_num = to_sah(p->s[0].ah)->ah_num;
		w->wr.ud.remote_qpn = p->s[1].qp->qp_num;
		w->wr.ud.remote_qkey = SC_QKEY;
	}
	atomic_store_explicit(idx_ptr(&sqp->sq, 1), prod + 1,
			      memory_order_release);
	pthread_spin_unlock(&sqp->sq_lock);
	doorbell(t, p, p->s[0].qp);
	drain(t, p, p->s[0].scq, 1000, 0xd1, &st, NULL);
	*ok = st == IBV_WC_LOC_LEN_ERR;
	snprintf(why, wl, "completion status %d (%s), want LOC_LEN_ERR", st,
		 st < 0 ? "none" : ibv_wc_status_str((enum ibv_wc_status)st));
}

/*
 * Four SENDs the kernel has fetched and not completed (RC: the peer is in
 * RESET and the ACK timeout is ~1 s; UC, UD: whatever is left), then the
 * SQ prod goes back to cons + 1: between what the kernel has given back
 * and what it has read.  The doorbell and an ERR transition must stay
 * within the limits and flush at most nslots WQEs.
 */
static void directed_behind(struct sc_thread *t, struct sc_pair *p, char *why,
			    size_t wl, int *ok)
{
	struct sroce_qp *sqp = to_sqp(p->s[0].qp);
	struct ibv_send_wr wr[4], *bad;
	struct ibv_sge sge = {
		.addr = (uintptr_t)devs[0].buf + SC_BUF / 2,
		.length = 16,
		.lkey = devs[0].mr->lkey,
	};
	int64_t t0, c0, dt[2], dc[2];
	int i, n;

	atomic_store(&rc_timeout, 18); /* ~1.07 s */
	pair_connect(t, p);
	atomic_store(&rc_timeout, 8);
	qp_to(t, p, 1, IBV_QPS_RESET);
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 4; i++) {
		wr[i].wr_id = 0xf0 + i;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].next = i < 3 ? &wr[i + 1] : NULL;
		if (p->kind == SC_UD) {
			wr[i].wr.ud.ah = p->s[0].ah;
			wr[i].wr.ud.remote_qpn = p->s[1].qp->qp_num;
			wr[i].wr.ud.remote_qkey = SC_QKEY;
		}
	}
	TIMED(t, V_POST_SEND, p, ibv_post_send(p->s[0].qp, wr, &bad));
	pthread_spin_lock(&sqp->sq_lock);
	atomic_store_explicit(idx_ptr(&sqp->sq, 1),
			      atomic_load(idx_ptr(&sqp->sq, 0)) + 1,
			      memory_order_release);
	pthread_spin_unlock(&sqp->sq_lock);
	t0 = now_ns();
	c0 = cpu_ns();
	doorbell(t, p, p->s[0].qp);
	dt[0] = now_ns() - t0;
	dc[0] = cpu_ns() - c0;
	t0 = now_ns();
	c0 = cpu_ns();
	qp_to(t, p, 0, IBV_QPS_ERR);
	dt[1] = now_ns() - t0;
	dc[1] = cpu_ns() - c0;
	n = drain(t, p, p->s[0].scq, 300, 0, NULL, NULL);
	*ok = n <= (int)sqp->sq.nslots;
	for (i = 0; i < 2; i++)
		*ok &= !over_limit(dt[i], dc[i]);
	snprintf(
		why, wl,
		"doorbell %.3f s (%.3f s CPU), ERR %.3f s (%.3f), %d completions (%u slots)",
		dt[0] / 1e9, dc[0] / 1e9, dt[1] / 1e9, dc[1] / 1e9, n,
		sqp->sq.nslots);
}

static void directed(struct sc_thread *t, struct sc_pair *p)
{
	struct sroce_qp *sqp = to_sqp(p->s[0].qp);
	const char *k = kind_name[p->kind];
	char name[160], why[256];
	int ok, n, nsucc, i;
	enum ibv_qp_state st;
	int64_t t0, c0, dt[3], dc[3];

	/* f, first: on a fresh pair, nothing at RESET to hide behind */
	directed_behind(t, p, why, sizeof(why), &ok);
	snprintf(
		name, sizeof(name),
		"%s: an SQ prod moved back behind fetched WQEs: doorbell and ERR within the limits, at most nslots completions",
		k);
	dpt_report(ok, name, why);

	/* a, b: over the limits */
	for (i = 0; i < 2; i++) {
		pair_connect(t, p);
		directed_overlimit(t, p, i, why, sizeof(why), &ok);
		snprintf(
			name, sizeof(name),
			"%s: a send WQE with %s one past the limit completes with LOC_LEN_ERR",
			k, i ? "inline_len" : "num_sge");
		dpt_report(ok, name, why);
	}

	/* c: SQ prod more than nslots ahead */
	pair_connect(t, p);
	pthread_spin_lock(&sqp->sq_lock);
	atomic_store_explicit(idx_ptr(&sqp->sq, 1),
			      atomic_load(idx_ptr(&sqp->sq, 0)) +
				      sqp->sq.nslots + 1,
			      memory_order_release);
	pthread_spin_unlock(&sqp->sq_lock);
	doorbell(t, p, p->s[0].qp);
	t0 = now_ns();
	while ((st = qp_state(t, p, p->s[0].qp)) != IBV_QPS_ERR &&
	       now_ns() - t0 < cfg.wall_ns)
		usleep(1000);
	n = drain(t, p, p->s[0].scq, 500, 0, NULL, NULL);
	snprintf(why, sizeof(why), "QP state %d, %d completions (%u slots)", st,
		 n, sqp->sq.nslots);
	snprintf(
		name, sizeof(name),
		"%s: an SQ prod nslots + 1 ahead puts the QP in ERR with at most nslots completions",
		k);
	dpt_report(st == IBV_QPS_ERR && n <= (int)sqp->sq.nslots, name, why);

	/* d: RESET with the SQ prod at PROD, INIT, ERR (the cursor case) */
	{
		qp_to(t, p, 0, IBV_QPS_RESET);
		drain(t, p, p->s[0].scq, 10, 0, NULL, NULL);
		pthread_spin_lock(&sqp->sq_lock);
		atomic_store_explicit(idx_ptr(&sqp->sq, 1), cfg.cursor,
				      memory_order_release);
		pthread_spin_unlock(&sqp->sq_lock);
		for (i = 0; i < 3; i++) {
			static const enum ibv_qp_state seq[] = { IBV_QPS_RESET,
								 IBV_QPS_INIT,
								 IBV_QPS_ERR };

			t0 = now_ns();
			c0 = cpu_ns();
			qp_to(t, p, 0, seq[i]);
			dt[i] = now_ns() - t0;
			dc[i] = cpu_ns() - c0;
		}
		n = drain(t, p, p->s[0].scq, 300, 0, NULL, NULL);
		snprintf(
			why, sizeof(why),
			"prod %#x: RESET %.3f s (%.3f s CPU), INIT %.3f s (%.3f), ERR %.3f s (%.3f)",
			cfg.cursor, dt[0] / 1e9, dc[0] / 1e9, dt[1] / 1e9,
			dc[1] / 1e9, dt[2] / 1e9, dc[2] / 1e9);
		snprintf(
			name, sizeof(name),
			"%s: RESET with SQ prod %#x, INIT, ERR each within the limits",
			k, cfg.cursor);
		ok = 1;
		for (i = 0; i < 3; i++)
			ok &= !over_limit(dt[i], dc[i]);
		dpt_report(ok, name, why);
		snprintf(why, sizeof(why), "%d completions (%u slots)", n,
			 sqp->sq.nslots);
		snprintf(name, sizeof(name),
			 "%s: ... and at most nslots flush completions", k);
		dpt_report(n <= (int)sqp->sq.nslots, name, why);
	}

	/* e: RQ (SRQ) prod more than nslots ahead, then a SEND arrives */
	pair_connect(t, p);
	{
		struct sroce_queue *q;
		pthread_spinlock_t *lock;
		struct ibv_send_wr wr = {}, *bad;
		struct ibv_sge sge = {
			.addr = (uintptr_t)devs[1].buf + SC_BUF / 2,
			.length = 16,
			.lkey = devs[1].mr->lkey,
		};

		if (p->s[0].srq) {
			q = &to_ssrq(p->s[0].srq)->ring;
			lock = &to_ssrq(p->s[0].srq)->lock;
		} else {
			q = &sqp->rq;
			lock = &sqp->rq_lock;
		}
		pthread_spin_lock(lock);
		atomic_store_explicit(idx_ptr(q, 1),
				      atomic_load(idx_ptr(q, 0)) + q->nslots +
					      1,
				      memory_order_release);
		pthread_spin_unlock(lock);
		wr.wr_id = 0xe1;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		if (p->kind == SC_UD) {
			wr.wr.ud.ah = p->s[1].ah;
			wr.wr.ud.remote_qpn = p->s[0].qp->qp_num;
			wr.wr.ud.remote_qkey = SC_QKEY;
		}
		TIMED(t, V_POST_SEND, p, ibv_post_send(p->s[1].qp, &wr, &bad));
		nsucc = 0;
		n = drain(t, p, p->s[0].rcq, 1000, 0, NULL, &nsucc);
		drain(t, p, p->s[1].scq, 10, 0, NULL, NULL);
		snprintf(why, sizeof(why),
			 "%d receive completions, %d successful (%u slots)", n,
			 nsucc, q->nslots);
		snprintf(
			name, sizeof(name),
			"%s: an %s prod nslots + 1 ahead: a SEND gives no successful receive, at most nslots completions",
			k, p->s[0].srq ? "SRQ" : "RQ");
		dpt_report(!nsucc && n <= (int)q->nslots, name, why);
	}
}

/*
 * resize_cq to the device's maximum and back on each pair's CQs, alone:
 * in the random phase the largest resizes would be timed with six other
 * threads in the way (the verb results count these calls too).
 */
static void resize_max(struct sc_thread *t)
{
	int i, side, max = devs[0].attr.max_cqe;

	for (i = 0; i < npairs; i++)
		for (side = 0; side < 2; side++) {
			struct ibv_cq *cq = pairs[i].s[side].rcq;

			TIMED_AGAIN(t, V_RESIZE_CQ, &pairs[i],
				    ibv_resize_cq(cq, max));
			TIMED_AGAIN(t, V_RESIZE_CQ, &pairs[i],
				    ibv_resize_cq(cq, SC_CQE));
		}
}

/* ---- main ---- */

static int dev_open(int i)
{
	struct sc_dev *d = &devs[i];
	struct ibv_port_attr pa;

	d->ctx = dpt_open(cfg.dev[i]);
	if (!d->ctx)
		return -1;
	d->gid_idx = cfg.gid[i];
	if (ibv_query_device(d->ctx, &d->attr) ||
	    ibv_query_port(d->ctx, 1, &pa) ||
	    ibv_query_gid(d->ctx, 1, d->gid_idx, &d->gid))
		return -1;
	d->mtu = pa.active_mtu;
	d->buf = aligned_alloc(4096, SC_BUF);
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->buf || !d->pd)
		return -1;
	memset(d->buf, 0, SC_BUF);
	d->mr = ibv_reg_mr(d->pd, d->buf, SC_BUF,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC);
	return d->mr ? 0 : -1;
}

/* The device is an sroce one (the casts to the provider's objects). */
static int is_sroce(const char *dev)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/%s", dev,
		 SROCE_SYSFS_ABI_ATTR);
	return access(path, R_OK) == 0;
}

static int nkinds(void)
{
	return __builtin_popcount(cfg.kinds);
}

static int plan(void)
{
	return 1 + SC_NDIRECTED * nkinds() + 1 + V_NVERB + 2;
}

static int parse_kinds(const char *s)
{
	unsigned int k = 0;
	int i;

	for (i = 0; i < SC_NKIND; i++)
		if (strstr(s, kind_name[i]))
			k |= 1U << i;
	return k ? (int)k : -1;
}

static void merge(struct sc_stat *to, const struct sc_stat *from)
{
	int v;

	for (v = 0; v < V_NVERB; v++) {
		to[v].n += from[v].n;
		to[v].slow += from[v].slow;
		to[v].again += from[v].again;
		if (from[v].max_ns > to[v].max_ns)
			to[v].max_ns = from[v].max_ns;
		if (from[v].max_cpu_ns > to[v].max_cpu_ns)
			to[v].max_cpu_ns = from[v].max_cpu_ns;
	}
}

/* Verbs a run may legitimately never reach: no random phase, no SRQ, UD. */
static int verb_optional(int v)
{
	if (!cfg.secs)
		return 1;
	if (v == V_CREATE_AH || v == V_DESTROY_AH)
		return !(cfg.kinds & (1U << SC_UD));
	return !(cfg.kinds & (1U << SC_SRQ)) &&
	       (v == V_POST_SRQ_RECV || v == V_MODIFY_SRQ || v == V_QUERY_SRQ ||
		v == V_CREATE_SRQ || v == V_DESTROY_SRQ);
}

static void report_verbs(void)
{
	struct sc_stat all[V_NVERB] = {};
	char name[128], why[128];
	int i, v;

	merge(all, prelude_st);
	for (i = 0; i < SC_NTHREAD; i++)
		merge(all, threads[i].st);
	for (v = 0; v < V_NVERB; v++) {
		pthread_mutex_lock(&slow_lock);
		for (i = 0; i < nslow; i++)
			if (slow_verb[i] == v)
				printf("# slow: %s\n", slow_desc[i]);
		pthread_mutex_unlock(&slow_lock);
		snprintf(
			name, sizeof(name),
			"%s: no call over %lld ms of wall and CPU time, or %lld ms of wall time",
			verb_name[v], (long long)(cfg.limit_ns / 1000000),
			(long long)(cfg.wall_ns / 1000000));
		snprintf(why, sizeof(why),
			 "%" PRIu64 " of %" PRIu64
			 " calls slower, max %.3f s, %.3f s of CPU",
			 all[v].slow, all[v].n, all[v].max_ns / 1e9,
			 all[v].max_cpu_ns / 1e9);
		printf("# %s: %" PRIu64
		       " calls, max %.1f ms, %.1f ms of CPU, %" PRIu64
		       " slow tries timed again\n",
		       verb_name[v], all[v].n, all[v].max_ns / 1e6,
		       all[v].max_cpu_ns / 1e6, all[v].again);
		if (!all[v].n && verb_optional(v))
			snprintf(name + strlen(name),
				 sizeof(name) - strlen(name), " # SKIP no SRQ");
		dpt_report(!all[v].slow && (all[v].n || verb_optional(v)), name,
			   all[v].n ? why : "never called");
	}
}

/*
 * The watchdog: a verb running for more than SC_HANG_NS is a hang.  The
 * stuck thread cannot be joined, so report it, fail the rest of the plan
 * and exit (the process then dies as soon as the verb returns).
 */
static void hang_report(const char *thread, const char *what)
{
	char why[256];

	snprintf(why, sizeof(why), "thread %s: %s (seed %#" PRIx64 ")", thread,
		 what, cfg.seed);
	dpt_report(0, "no verb hangs; every thread stopped", why);
	while (dpt_ntest < plan())
		dpt_report(0, "not run (hang)", NULL);
	fflush(stdout);
	_exit(1);
}

static void *watchdog(void *arg)
{
	char what[128];
	int i;

	(void)arg;
	for (;;) {
		int64_t now = now_ns();

		for (i = -1; i < SC_NTHREAD; i++) {
			struct sc_thread *t = i < 0 ? &prelude : &threads[i];
			int64_t since = atomic_load(&t->since);

			if (!since || now - since <= SC_HANG_NS)
				continue;
			snprintf(what, sizeof(what),
				 "in %s for more than %lld s",
				 verb_name[atomic_load(&t->verb)],
				 SC_HANG_NS / 1000000000LL);
			hang_report(t->name, what);
		}
		usleep(50000);
	}
	return NULL;
}

static void pair_init(struct sc_pair *p, enum sc_kind k)
{
	pthread_rwlockattr_t ra;

	p->kind = k;
	p->idx = npairs;
	pthread_rwlockattr_init(&ra);
	/* The destroyer must get in between the readers. */
	pthread_rwlockattr_setkind_np(
		&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&p->lock, &ra);
	pthread_rwlockattr_destroy(&ra);
	pthread_mutex_init(&p->log_lock, NULL);
}

static int parse_args(int argc, char **argv)
{
	int c, k;

	while ((c = getopt(argc, argv, "d:D:g:G:s:t:k:L:W:C:xP")) != -1) {
		switch (c) {
		case 'd':
			cfg.dev[0] = optarg;
			break;
		case 'D':
			cfg.dev[1] = optarg;
			break;
		case 'g':
			cfg.gid[0] = atoi(optarg);
			break;
		case 'G':
			cfg.gid[1] = atoi(optarg);
			break;
		case 's':
			cfg.seed = strtoull(optarg, NULL, 0);
			break;
		case 't':
			cfg.secs = atoi(optarg);
			break;
		case 'k':
			k = parse_kinds(optarg);
			if (k < 0)
				return 2;
			cfg.kinds = (unsigned int)k;
			break;
		case 'L':
			cfg.limit_ns = atoll(optarg) * 1000000LL;
			break;
		case 'C':
			cfg.cursor = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'W':
			cfg.wall_ns = atoll(optarg) * 1000000LL;
			break;
		case 'x':
			cfg.abrupt = 1;
			break;
		case 'P':
			printf("%d\n", plan());
			exit(0);
		default:
			return 2;
		}
	}
	if (!cfg.dev[0] || !cfg.dev[1] || cfg.secs < 0 || cfg.limit_ns <= 0 ||
	    cfg.wall_ns <= 0)
		return 2;
	return 0;
}

/* Threads run for cfg.secs, then stop; 0 or -1 if one did not stop. */
static int random_phase(void)
{
	struct timespec dl;
	int i;

	for (i = 0; i < SC_NTHREAD; i++) {
		threads[i].rng = cfg.seed ^ (0x1000193ULL * (uint64_t)(i + 1));
		if (pthread_create(&threads[i].tid, NULL, thread_main,
				   &threads[i])) {
			fprintf(stderr, "dp_scribble: pthread_create\n");
			exit(1);
		}
	}
	sleep((unsigned int)cfg.secs);
	atomic_store(&stop, 1);
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 2 * SC_HANG_NS / 1000000000LL;
	for (i = 0; i < SC_NTHREAD; i++)
		if (pthread_timedjoin_np(threads[i].tid, NULL, &dl))
			hang_report(threads[i].name,
				    "did not stop (not in a verb)");
	return 0;
}

int main(int argc, char **argv)
{
	int i, k, ok;
	pthread_t wd;
	char why[256];
	int64_t t0;

	cfg.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
	if (parse_args(argc, argv))
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n1..%d\n", plan());
	printf("# seed %#" PRIx64 " (repeat: -s %#" PRIx64
	       "), %d s, uid %d, limit %lld ms of CPU, %lld ms wall%s\n",
	       cfg.seed, cfg.seed, cfg.secs, (int)getuid(),
	       (long long)(cfg.limit_ns / 1000000),
	       (long long)(cfg.wall_ns / 1000000), cfg.abrupt ? ", -x" : "");
	if (pthread_create(&wd, NULL, watchdog, NULL))
		return 1;

	prelude.rng = cfg.seed;
	ok = is_sroce(cfg.dev[0]) && is_sroce(cfg.dev[1]) && !dev_open(0) &&
	     !dev_open(1);
	snprintf(why, sizeof(why), "devices: %s", strerror(errno));
	for (k = 0; ok && k < SC_NKIND; k++) {
		if (!(cfg.kinds & (1U << k)))
			continue;
		pair_init(&pairs[npairs], (enum sc_kind)k);
		if (pair_create(&prelude, &pairs[npairs++])) {
			snprintf(why, sizeof(why), "pair %s: %s", kind_name[k],
				 strerror(errno));
			ok = 0;
		}
	}
	dpt_report(ok, "sroce devices opened, a connected pair of each kind",
		   ok ? NULL : why);
	if (!ok) {
		while (dpt_ntest < plan())
			dpt_report(0, "not run", NULL);
		return 1;
	}

	for (i = 0; i < npairs; i++) {
		fprintf(stderr, "# dp_scribble: directed cases on %s\n",
			kind_name[pairs[i].kind]);
		directed(&prelude, &pairs[i]);
		/* A fresh pair for the random phase. */
		pair_destroy(&prelude, &pairs[i]);
		if (pair_create(&prelude, &pairs[i]))
			atomic_fetch_add(&create_failures, 1);
	}
	resize_max(&prelude);
	memcpy(prelude_st, prelude.st, sizeof(prelude_st));
	memset(prelude.st, 0, sizeof(prelude.st));

	fprintf(stderr, "# dp_scribble: random phase, %d s\n", cfg.secs);
	t0 = now_ns();
	random_phase();
	fprintf(stderr, "# dp_scribble: random phase done\n");
	dpt_report(1, "no verb hangs; every thread stopped", NULL);
	printf("# random phase %.1f s\n", (now_ns() - t0) / 1e9);
	for (i = 0; i < SC_NTHREAD; i++)
		printf("# thread %s: %" PRIu64 " steps\n", threads[i].name,
		       threads[i].steps);
	report_verbs();
	snprintf(why, sizeof(why), "%d destroys, %d re-creates failed",
		 atomic_load(&destroy_failures), atomic_load(&create_failures));
	dpt_report(!atomic_load(&destroy_failures) &&
			   !atomic_load(&create_failures),
		   "every destroy and re-create during the run succeeded", why);

	if (cfg.abrupt) {
		dpt_report(1, "exit with every object alive (-x)", NULL);
		fflush(stdout);
		_exit(dpt_nfail ? 1 : 0);
	}
	for (i = 0; i < npairs; i++)
		pair_destroy(&prelude, &pairs[i]);
	for (i = 0; i < 2; i++) {
		if (ibv_dereg_mr(devs[i].mr) || ibv_dealloc_pd(devs[i].pd))
			atomic_fetch_add(&destroy_failures, 1);
		ibv_close_device(devs[i].ctx);
	}
	snprintf(why, sizeof(why), "%d destroys failed",
		 atomic_load(&destroy_failures));
	dpt_report(!atomic_load(&destroy_failures),
		   "final teardown: every destroy returned 0", why);
	return dpt_nfail ? 1 : 0;
}
