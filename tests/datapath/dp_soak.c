// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * dp_soak.c - one session of the soak's RC verbs worker (soak.sh): an
 * RC QP on each of two devices, opened in one process, and a random mix
 * of SEND (with and without immediate), RDMA WRITE, RDMA READ, FETCH_ADD
 * and CMP_SWAP in both directions until the time is up or something
 * fails.  Every successful operation is checked byte for byte on both
 * ends (the process sees both buffers): the target range holds the
 * pattern, the bytes around it are untouched, a receive reports the
 * right length and immediate, an atomic returns the old value and leaves
 * the right new one.
 *
 *   dp_soak -d DEV1 -g GID1 -D DEV2 -G GID2 [-t SECS] [-s SEED] [-m MAX]
 *
 * Output: "tick EPOCH OPS" once a second while operations complete (the
 * soak's recovery check), then "soak-ops send=N write=N read=N fadd=N
 * cswap=N bytes=N" and "soak-end REASON".  Exit status:
 *   0  the time ran out with every operation done and exact;
 *   2  an operation failed the way a fault makes it fail: its completion
 *      status is printed ("soak-end status NAME"), or the device went
 *      away (IBV_EVENT_DEVICE_FATAL, "soak-end device-fatal"), or a verb
 *      failed ("soak-end verb NAME errno");
 *   1  data not byte-exact, or a successful completion with a wrong
 *      opcode, length or immediate: never acceptable;
 *   3  no completion within 20 s while the devices are present (a hang).
 * Whether a status of exit 2 is plausible depends on the fault that hit
 * the session; soak.sh judges that.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dp_tool.h"

#define SK_WAIT_MS 20000
#define SK_ATOM_SLOTS 64

struct sk_side {
	const char *name;
	int gid_idx;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	union ibv_gid gid;
	enum ibv_mtu mtu;
	/* [0, max) RDMA target / receive buffer, [max, 2 max) source,
	 * then the atomic slots and, after them, the atomic results. */
	uint8_t *buf;
	size_t size;
};

static struct sk_side sides[2];
static uint32_t max_len = 65536;
static uint64_t rng;
static volatile sig_atomic_t stop;

enum { OP_SEND, OP_WRITE, OP_READ, OP_FADD, OP_CSWAP, OP_N };
static unsigned long long nops[OP_N], nbytes;

static uint64_t rnd(void)
{
	/* xorshift64*: a session repeats from -s SEED */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static uint8_t pat(uint64_t seed, uint64_t i)
{
	return (uint8_t)((((uint32_t)i * 2654435761U) + (uint32_t)seed) >> 24);
}

static void fill(uint8_t *p, uint32_t len, uint64_t seed, int inv)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = inv ? (uint8_t)~pat(seed, i) : pat(seed, i);
}

static void finish(int rc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

static void finish(int rc, const char *fmt, ...)
{
	va_list ap;

	printf("soak-ops send=%llu write=%llu read=%llu fadd=%llu cswap=%llu bytes=%llu\n",
	       nops[OP_SEND], nops[OP_WRITE], nops[OP_READ], nops[OP_FADD],
	       nops[OP_CSWAP], nbytes);
	printf("soak-end ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	/* Process exit releases the verbs objects, as a killed one would. */
	exit(rc);
}

/* ---- async events: a deleted device ends the session ---- */

static void check_async(void)
{
	struct ibv_async_event ev;
	int i;

	for (i = 0; i < 2; i++) {
		if (!sides[i].ctx || ibv_get_async_event(sides[i].ctx, &ev))
			continue;
		ibv_ack_async_event(&ev);
		if (ev.event_type == IBV_EVENT_DEVICE_FATAL)
			finish(2, "device-fatal %s", sides[i].name);
		/* QP fatal, port down, GID change: the next completion or
		 * verb tells how the operation ended. */
	}
}

/* ---- setup ---- */

static void side_open(struct sk_side *s)
{
	struct ibv_port_attr pa;
	int fl;

	s->ctx = dpt_open(s->name);
	if (!s->ctx)
		finish(2, "verb ibv_open_device(%s) %d", s->name, errno);
	fl = fcntl(s->ctx->async_fd, F_GETFL);
	fcntl(s->ctx->async_fd, F_SETFL, fl | O_NONBLOCK);
	if (ibv_query_port(s->ctx, 1, &pa))
		finish(2, "verb ibv_query_port(%s) %d", s->name, errno);
	s->mtu = pa.active_mtu;
	if (ibv_query_gid(s->ctx, 1, s->gid_idx, &s->gid))
		finish(2, "verb ibv_query_gid(%s) %d", s->name, errno);
	s->size = 2 * (size_t)max_len + 2 * SK_ATOM_SLOTS * 8;
	s->buf = aligned_alloc(4096, (s->size + 4095) & ~(size_t)4095);
	if (!s->buf)
		finish(1, "out of memory");
	memset(s->buf, 0, s->size);
	s->pd = ibv_alloc_pd(s->ctx);
	if (!s->pd)
		finish(2, "verb ibv_alloc_pd(%s) %d", s->name, errno);
	s->mr = ibv_reg_mr(s->pd, s->buf, s->size,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC);
	if (!s->mr)
		finish(2, "verb ibv_reg_mr(%s) %d", s->name, errno);
	s->cq = ibv_create_cq(s->ctx, 64, NULL, NULL, 0);
	if (!s->cq)
		finish(2, "verb ibv_create_cq(%s) %d", s->name, errno);
}

static void qp_create(struct sk_side *s)
{
	struct ibv_qp_init_attr a = {
		.send_cq = s->cq,
		.recv_cq = s->cq,
		.cap = { .max_send_wr = 8,
			 .max_recv_wr = 8,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	s->qp = ibv_create_qp(s->pd, &a);
	if (!s->qp)
		finish(2, "verb ibv_create_qp(%s) %d", s->name, errno);
}

/* RESET -> INIT -> RTR -> RTS towards the other side's QP. */
static void qp_connect(struct sk_side *s, const struct sk_side *o)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	enum ibv_mtu mtu = s->mtu < o->mtu ? s->mtu : o->mtu;

	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	if (ibv_modify_qp(s->qp, &a,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS))
		finish(2, "verb modify_qp(%s, INIT) %d", s->name, errno);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = o->qp->qp_num;
	a.rq_psn = o->qp->qp_num & 0xffffff;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.sgid_index = (uint8_t)s->gid_idx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.dgid = o->gid;
	if (ibv_modify_qp(s->qp, &a,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
		finish(2, "verb modify_qp(%s, RTR) %d", s->name, errno);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = s->qp->qp_num & 0xffffff;
	/* ~67 ms x 7 retries: a dead path ends in RETRY_EXC within seconds. */
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	if (ibv_modify_qp(s->qp, &a,
			  IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				  IBV_QP_MAX_QP_RD_ATOMIC))
		finish(2, "verb modify_qp(%s, RTS) %d", s->name, errno);
}

/* ---- one operation ---- */

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Wait for the completion of @wr_id on @s's CQ; a failed one ends the
 * session with its status. */
static void wait_wc(struct sk_side *s, uint64_t wr_id, struct ibv_wc *wc)
{
	long long end = now_ms() + SK_WAIT_MS;
	int n, idle = 0;

	for (;;) {
		n = ibv_poll_cq(s->cq, 1, wc);
		if (n < 0)
			finish(2, "verb ibv_poll_cq(%s) %d", s->name, n);
		if (n == 1) {
			if (wc->status != IBV_WC_SUCCESS)
				finish(2,
				       "status %s %s wr_id %#llx vendor_err %u",
				       ibv_wc_status_str(wc->status), s->name,
				       (unsigned long long)wc->wr_id,
				       wc->vendor_err);
			if (wc->wr_id != wr_id)
				finish(1,
				       "%s: completion of wr_id %#llx, expected %#llx",
				       s->name, (unsigned long long)wc->wr_id,
				       (unsigned long long)wr_id);
			return;
		}
		check_async();
		/* Spin a little, then yield: five workers share two CPUs. */
		if (++idle > 200)
			usleep(200);
		if (now_ms() > end)
			finish(3,
			       "hang: no completion of wr_id %#llx on %s in %d ms",
			       (unsigned long long)wr_id, s->name, SK_WAIT_MS);
	}
}

static void post(struct sk_side *s, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	int ret;

	wr->send_flags |= IBV_SEND_SIGNALED;
	ret = ibv_post_send(s->qp, wr, &bad);
	if (ret)
		finish(2, "verb ibv_post_send(%s) %d", s->name, ret);
}

/* @len bytes at @p must be the pattern of @seed, with the byte before
 * and the byte after still @g0 and @g1. */
static void verify(const char *what, const uint8_t *p, uint32_t len,
		   uint64_t seed, int before, uint8_t g0, int after, uint8_t g1)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (p[i] != pat(seed, i))
			finish(1, "%s: byte %u of %u is %#x, expected %#x",
			       what, i, len, p[i], pat(seed, i));
	if (before && p[-1] != g0)
		finish(1, "%s: byte before the target changed %#x -> %#x", what,
		       g0, p[-1]);
	if (after && p[len] != g1)
		finish(1, "%s: byte after the target changed %#x -> %#x", what,
		       g1, p[len]);
}

static uint32_t rnd_len(void)
{
	/* log-uniform in [1, max_len]: small and multi-packet ones */
	uint32_t bits = 1 + (uint32_t)(rnd() % 17), len;

	len = (uint32_t)(rnd() & ((1U << bits) - 1));
	if (len > max_len)
		len = max_len;
	return len ? len : 1;
}

static void op_send(struct sk_side *s, struct sk_side *o)
{
	uint32_t len = rnd_len(), off = (uint32_t)(rnd() % (max_len - len + 1));
	uint32_t room = max_len - off, imm = (uint32_t)rnd();
	int with_imm = (int)(rnd() & 1);
	uint64_t seed = rnd();
	uint8_t *dst = o->buf + off, g0 = 0, g1 = 0;
	struct ibv_sge ss = { (uintptr_t)(s->buf + max_len), len, s->mr->lkey };
	struct ibv_sge rs = { (uintptr_t)dst, room, o->mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 0x5ec0,
				   .sg_list = &rs,
				   .num_sge = 1 },
			   *rbad;
	struct ibv_send_wr wr = { .wr_id = 0x5e00,
				  .sg_list = &ss,
				  .num_sge = 1 };
	struct ibv_wc wc;
	int ret;

	fill(s->buf + max_len, len, seed, 0);
	fill(dst, room, seed, 1);
	if (off)
		g0 = dst[-1];
	if (len < room)
		g1 = dst[len];
	ret = ibv_post_recv(o->qp, &rwr, &rbad);
	if (ret)
		finish(2, "verb ibv_post_recv(%s) %d", o->name, ret);
	wr.opcode = with_imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND;
	wr.imm_data = htonl(imm);
	post(s, &wr);
	wait_wc(s, wr.wr_id, &wc);
	if (wc.opcode != IBV_WC_SEND)
		finish(1, "send: requester opcode %d", wc.opcode);
	wait_wc(o, rwr.wr_id, &wc);
	if (wc.opcode != IBV_WC_RECV || wc.byte_len != len ||
	    !!(wc.wc_flags & IBV_WC_WITH_IMM) != with_imm ||
	    (with_imm && ntohl(wc.imm_data) != imm))
		finish(1,
		       "send: receive opcode %d byte_len %u flags %#x imm %#x, expected %u bytes%s %#x",
		       wc.opcode, wc.byte_len, wc.wc_flags, ntohl(wc.imm_data),
		       len, with_imm ? " with imm" : "", imm);
	verify("send", dst, len, seed, off > 0, g0, len < room, g1);
	nops[OP_SEND]++;
	nbytes += len;
}

/* WRITE (@read 0): s's source -> o's target; READ: o's target -> s's
 * receive area, the first max_len bytes of s's buffer. */
static void op_rdma(struct sk_side *s, struct sk_side *o, int read)
{
	uint32_t len = rnd_len(), off = (uint32_t)(rnd() % (max_len - len + 1));
	uint64_t seed = rnd();
	uint8_t *src = read ? o->buf + off : s->buf + max_len;
	uint8_t *dst = read ? s->buf + off : o->buf + off, g0 = 0, g1 = 0;
	struct ibv_sge sge = { (uintptr_t)(read ? dst : src), len,
			       s->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = read ? 0x4ead : 0x3417,
				  .sg_list = &sge,
				  .num_sge = 1 };
	struct ibv_wc wc;

	fill(src, len, seed, 0);
	fill(dst, len, seed, 1);
	if (off)
		g0 = dst[-1];
	if (off + len < max_len)
		g1 = dst[len];
	wr.opcode = read ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)o->buf + off;
	wr.wr.rdma.rkey = o->mr->rkey;
	post(s, &wr);
	wait_wc(s, wr.wr_id, &wc);
	if (wc.opcode != (read ? IBV_WC_RDMA_READ : IBV_WC_RDMA_WRITE) ||
	    (read && wc.byte_len != len))
		finish(1, "%s: opcode %d byte_len %u", read ? "read" : "write",
		       wc.opcode, wc.byte_len);
	verify(read ? "read" : "write", dst, len, seed, off > 0, g0,
	       off + len < max_len, g1);
	nops[read ? OP_READ : OP_WRITE]++;
	nbytes += len;
}

static void op_atomic(struct sk_side *s, struct sk_side *o, int cswap)
{
	uint32_t slot = (uint32_t)(rnd() % SK_ATOM_SLOTS);
	uint64_t *target = (uint64_t *)(o->buf + 2 * max_len) + slot;
	uint64_t *res =
		(uint64_t *)(s->buf + 2 * max_len) + SK_ATOM_SLOTS + slot;
	uint64_t old = rnd(), arg = rnd(), cmp = (rnd() & 1) ? old : old ^ 1;
	uint64_t want = cswap ? (cmp == old ? arg : old) : old + arg;
	struct ibv_sge sge = { (uintptr_t)res, 8, s->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = cswap ? 0xc5 : 0xfa,
				  .sg_list = &sge,
				  .num_sge = 1 };
	struct ibv_wc wc;

	*target = old;
	*res = ~old;
	wr.opcode = cswap ? IBV_WR_ATOMIC_CMP_AND_SWP :
			    IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = (uintptr_t)target;
	wr.wr.atomic.rkey = o->mr->rkey;
	wr.wr.atomic.compare_add = cswap ? cmp : arg;
	wr.wr.atomic.swap = arg;
	post(s, &wr);
	wait_wc(s, wr.wr_id, &wc);
	if (wc.opcode != (cswap ? IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD) ||
	    *res != old || *target != want)
		finish(1,
		       "%s: opcode %d returned %#llx (want %#llx), target %#llx (want %#llx)",
		       cswap ? "cswap" : "fadd", wc.opcode,
		       (unsigned long long)*res, (unsigned long long)old,
		       (unsigned long long)*target, (unsigned long long)want);
	nops[cswap ? OP_CSWAP : OP_FADD]++;
	nbytes += 8;
}

static unsigned long long total_ops(void)
{
	unsigned long long t = 0;
	int i;

	for (i = 0; i < OP_N; i++)
		t += nops[i];
	return t;
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: dp_soak -d DEV1 -g GID1 -D DEV2 -G GID2 [-t SECS] [-s SEED] [-m MAXLEN]\n");
	exit(1);
}

int main(int argc, char **argv)
{
	long long end, tick = 0, t;
	unsigned long long last = 0;
	int c, secs = 10, dir, op;

	rng = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	while ((c = getopt(argc, argv, "d:g:D:G:t:s:m:")) != -1) {
		switch (c) {
		case 'd':
			sides[0].name = optarg;
			break;
		case 'g':
			sides[0].gid_idx = atoi(optarg);
			break;
		case 'D':
			sides[1].name = optarg;
			break;
		case 'G':
			sides[1].gid_idx = atoi(optarg);
			break;
		case 't':
			secs = atoi(optarg);
			break;
		case 's':
			rng = strtoull(optarg, NULL, 0);
			break;
		case 'm':
			max_len = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (!sides[0].name || !sides[1].name || max_len < 16 || !rng)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	side_open(&sides[0]);
	side_open(&sides[1]);
	qp_create(&sides[0]);
	qp_create(&sides[1]);
	qp_connect(&sides[0], &sides[1]);
	qp_connect(&sides[1], &sides[0]);

	end = now_ms() + (long long)secs * 1000;
	while (!stop && (t = now_ms()) < end) {
		if (t >= tick + 1000 && total_ops() != last) {
			last = total_ops();
			printf("tick %lld %llu\n", (long long)time(NULL), last);
			tick = t;
		}
		dir = (int)(rnd() & 1);
		op = (int)(rnd() % OP_N);
		switch (op) {
		case OP_SEND:
			op_send(&sides[dir], &sides[!dir]);
			break;
		case OP_WRITE:
		case OP_READ:
			op_rdma(&sides[dir], &sides[!dir], op == OP_READ);
			break;
		default:
			op_atomic(&sides[dir], &sides[!dir], op == OP_CSWAP);
			break;
		}
	}
	printf("tick %lld %llu\n", (long long)time(NULL), total_ops());
	finish(0, "time %s", stop ? "stopped" : "up");
}
