// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * dp_test.c - end-to-end data-path test of an RDMA device through
 * libibverbs: every opcode, random sizes and random SGE lists, byte-exact
 * content checks and a check of every completion's status, opcode,
 * byte_len, immediate data and flags.
 *
 *   server:  dp_test -d DEV -g GIDIDX [-p PORT]
 *   client:  dp_test -d DEV -g GIDIDX [-p PORT] -c SERVER_IP [-n N]
 *            [-S SEED] [-m MAXBYTES]
 *   plan:    dp_test -P [-X] [-n N]   (KTAP test cases of a client run)
 *
 * -X (client): the client's RC and UD QPs are made by ibv_create_qp_ex
 * with send_ops_flags and every send goes through the ibv_wr_* API
 * (dp_wr.c), plus that API's own checks.
 *
 * The client drives; the server owns the remote buffer and the receive
 * side and follows the client's commands on a TCP control connection
 * (one request, one answer at a time).  The client prints KTAP
 * and ends with "N passed, N failed"; exit 0 only if nothing failed.
 *
 * Each side has one RC QP (SEND/IMM, WRITE/IMM, READ, atomics), one UD QP
 * (UD SEND with GRH) whose CQs are extended CQs polled with
 * ibv_start_poll/next_poll/end_poll, and one spare RC QP kept in INIT for
 * the user-space validation checks of the provider.  The error cases
 * (dp_err.c) and the shared receive queue cases (dp_srq.c) run last, on
 * fresh QP pairs of their own.
 */
#include "dp.h"

/* ---- the client's test cases ---- */

static struct dp_res R;
static int ctl_fd = -1;
static struct dp_peer peer;
static uint64_t rng_state;
static uint32_t max_len = 4U << 20;

static uint64_t rnd(void)
{
	/* xorshift64*: reproducible from -S SEED */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

/* Log-uniform sizes in [0, max]: small and large messages both show up. */
static uint32_t rnd_size(uint32_t max)
{
	uint32_t bits = 0, v;

	while ((1ULL << bits) <= max)
		bits++;
	v = (uint32_t)(rnd() % (bits + 1));
	if (v == 0)
		return 0;
	v = (uint32_t)(rnd() & ((1ULL << v) - 1));
	return v > max ? max : v;
}

static int ask(const struct dp_msg *m, struct dp_ans *a)
{
	if (dp_ctl_send(ctl_fd, m, sizeof(*m)) ||
	    dp_ctl_recv(ctl_fd, a, sizeof(*a))) {
		snprintf(a->msg, sizeof(a->msg), "control connection lost");
		a->status = -1;
		return -1;
	}
	return a->status;
}

/* Client: post one send WR, wait for its completion and check it. */
static int send_and_wait(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 enum ibv_wc_opcode want_op, uint32_t want_len,
			 char *err, size_t errlen)
{
	struct ibv_send_wr *bad = NULL;
	struct ibv_wc wc;
	int ret;

	ret = dp_post_send(&R, qp, wr, &bad);
	if (ret) {
		snprintf(err, errlen, "ibv_post_send: %s", strerror(ret));
		return -1;
	}
	if (dp_poll_one(&R, qp == R.ud_qp ? DP_CQ_UD_SEND : DP_CQ_SEND, &wc,
			DP_TIMEOUT_MS)) {
		snprintf(err, errlen, "no send completion within %d ms",
			 DP_TIMEOUT_MS);
		return -1;
	}
	return dp_check_wc(&wc, wr->wr_id, IBV_WC_SUCCESS, want_op, want_len,
			   qp->qp_num, err, errlen);
}

static int t_send(int imm, int inl, uint32_t len, char *err, size_t el)
{
	struct dp_msg m = { .cmd = DP_CMD_POST_RECV,
			    .len = len,
			    .seed = rnd(),
			    .qp = DP_QP_RC };
	struct ibv_sge sge[DP_MAX_SGE];
	struct ibv_send_wr wr = {};
	struct dp_ans a;
	uint32_t imm_v = (uint32_t)rnd();
	int n;

	/* The receiver scatters over a random SGE list of its own. */
	m.nsge = 1 + (uint32_t)(rnd() % R.max_recv_sge);
	if (ask(&m, &a))
		goto remote_err;

	n = dp_sge_split(&R, sge, R.max_send_sge, len, rnd(), 0);
	wr.wr_id = 0x5e0d0000 | len;
	wr.sg_list = sge;
	wr.num_sge = n;
	wr.opcode = imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED | (inl ? IBV_SEND_INLINE : 0);
	wr.imm_data = htonl(imm_v);
	/* dp_sge_split() placed the pattern where the SGEs point. */
	dp_sge_scatter(sge, n, len, m.seed);
	if (send_and_wait(R.rc_qp, &wr, IBV_WC_SEND, 0, err, el))
		return -1;

	m.cmd = DP_CMD_EXPECT_RECV;
	m.op = IBV_WC_RECV;
	m.has_imm = imm;
	m.imm = imm_v;
	m.src_qp = R.rc_qp->qp_num;
	if (ask(&m, &a))
		goto remote_err;
	return 0;

remote_err:
	snprintf(err, el, "server: %s", a.msg);
	return -1;
}

static int t_write(int imm, uint32_t len, char *err, size_t el)
{
	struct dp_msg m = { .len = len, .seed = rnd(), .qp = DP_QP_RC };
	struct ibv_sge sge[DP_MAX_SGE];
	struct ibv_send_wr wr = {};
	uint32_t imm_v = (uint32_t)rnd();
	uint64_t off = rnd() % (peer.size / 2 - len + 1);
	struct dp_ans a;
	int n;

	if (imm) {
		/* WRITE with immediate consumes a receive WQE (no data). */
		m.cmd = DP_CMD_POST_RECV;
		m.nsge = 0;
		if (ask(&m, &a))
			goto remote_err;
	}
	n = dp_sge_split(&R, sge, R.max_send_sge, len, rnd(), 0);
	dp_sge_scatter(sge, n, len, m.seed);
	wr.wr_id = 0x3717e000 | len;
	wr.sg_list = sge;
	wr.num_sge = n;
	wr.opcode = imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.imm_data = htonl(imm_v);
	wr.wr.rdma.remote_addr = peer.addr + off;
	wr.wr.rdma.rkey = peer.rkey;
	if (send_and_wait(R.rc_qp, &wr, IBV_WC_RDMA_WRITE, 0, err, el))
		return -1;

	if (imm) {
		m.cmd = DP_CMD_EXPECT_RECV;
		m.op = IBV_WC_RECV_RDMA_WITH_IMM;
		m.has_imm = 1;
		m.imm = imm_v;
		m.src_qp = R.rc_qp->qp_num;
		if (ask(&m, &a))
			goto remote_err;
	}
	m.cmd = DP_CMD_VERIFY;
	m.off = off;
	if (ask(&m, &a))
		goto remote_err;
	return 0;

remote_err:
	snprintf(err, el, "server: %s", a.msg);
	return -1;
}

static int t_read(uint32_t len, char *err, size_t el)
{
	struct dp_msg m = { .cmd = DP_CMD_FILL, .len = len, .seed = rnd() };
	struct ibv_sge sge[DP_MAX_SGE];
	struct ibv_send_wr wr = {};
	uint64_t off = rnd() % (peer.size / 2 - len + 1);
	struct dp_ans a;
	int n;

	m.off = off;
	if (ask(&m, &a)) {
		snprintf(err, el, "server: %s", a.msg);
		return -1;
	}
	n = dp_sge_split(&R, sge, R.max_send_sge, len, rnd(), 0);
	/* Poison the destination so a READ that moves nothing is caught. */
	dp_sge_poison(sge, n);
	wr.wr_id = 0x4ead0000 | len;
	wr.sg_list = sge;
	wr.num_sge = n;
	wr.opcode = IBV_WR_RDMA_READ;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = peer.addr + off;
	wr.wr.rdma.rkey = peer.rkey;
	if (send_and_wait(R.rc_qp, &wr, IBV_WC_RDMA_READ, len, err, el))
		return -1;
	return dp_sge_verify(sge, n, len, m.seed, err, el);
}

/*
 * One atomic on a random 8-byte aligned word of the peer's buffer.
 * CMP_SWAP is tried with a matching and a non-matching compare value.
 */
static int t_atomic(enum ibv_wr_opcode op, int match, char *err, size_t el)
{
	uint64_t off = (rnd() % (peer.size / 2 / 8)) * 8;
	uint64_t old = rnd(), arg = rnd(), swp = rnd(), want, got;
	struct dp_msg m = { .cmd = DP_CMD_SET64, .off = off, .val = old };
	struct ibv_send_wr wr = {};
	struct ibv_sge sge;
	struct dp_ans a;
	uint64_t *res = (uint64_t *)(R.buf + 8 * (rnd() % 64));

	if (ask(&m, &a))
		goto remote_err;
	*res = ~old;
	sge.addr = (uintptr_t)res;
	sge.length = 8;
	sge.lkey = R.mr->lkey;
	wr.wr_id = 0xa70c0000 | (uint64_t)op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.atomic.remote_addr = peer.addr + off;
	wr.wr.atomic.rkey = peer.rkey;
	if (op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.compare_add = match ? old : old ^ 1;
		wr.wr.atomic.swap = swp;
		want = match ? swp : old;
	} else {
		wr.wr.atomic.compare_add = arg;
		want = old + arg;
	}
	if (send_and_wait(R.rc_qp, &wr,
			  op == IBV_WR_ATOMIC_CMP_AND_SWP ? IBV_WC_COMP_SWAP :
							    IBV_WC_FETCH_ADD,
			  8, err, el))
		return -1;
	if (*res != old) {
		snprintf(err, el, "atomic returned %#llx, memory held %#llx",
			 (unsigned long long)*res, (unsigned long long)old);
		return -1;
	}
	m.cmd = DP_CMD_GET64;
	if (ask(&m, &a))
		goto remote_err;
	got = a.val;
	if (got != want) {
		snprintf(err, el, "remote word %#llx after atomic, want %#llx",
			 (unsigned long long)got, (unsigned long long)want);
		return -1;
	}
	return 0;

remote_err:
	snprintf(err, el, "server: %s", a.msg);
	return -1;
}

static int t_ud(int imm, uint32_t len, char *err, size_t el)
{
	struct dp_msg m = { .cmd = DP_CMD_POST_RECV,
			    .len = len,
			    .seed = rnd(),
			    .qp = DP_QP_UD };
	struct ibv_sge sge[DP_MAX_SGE];
	struct ibv_send_wr wr = {};
	uint32_t imm_v = (uint32_t)rnd();
	struct dp_ans a;
	int n;

	m.nsge = 1 + (uint32_t)(rnd() % R.max_recv_sge);
	if (ask(&m, &a))
		goto remote_err;
	n = dp_sge_split(&R, sge, R.max_send_sge, len, rnd(), 0);
	dp_sge_scatter(sge, n, len, m.seed);
	wr.wr_id = 0x0dd00000 | len;
	wr.sg_list = sge;
	wr.num_sge = n;
	wr.opcode = imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.imm_data = htonl(imm_v);
	wr.wr.ud.ah = R.ah;
	wr.wr.ud.remote_qpn = peer.ud_qpn;
	wr.wr.ud.remote_qkey = DP_QKEY;
	if (send_and_wait(R.ud_qp, &wr, IBV_WC_SEND, 0, err, el))
		return -1;

	m.cmd = DP_CMD_EXPECT_RECV;
	m.op = IBV_WC_RECV;
	m.has_imm = imm;
	m.imm = imm_v;
	m.src_qp = R.ud_qp->qp_num;
	if (ask(&m, &a))
		goto remote_err;
	return 0;

remote_err:
	snprintf(err, el, "server: %s", a.msg);
	return -1;
}

/* N unsignalled WRITEs then a signalled one: exactly one completion. */
static int t_unsignaled(char *err, size_t el)
{
	struct ibv_send_wr wr[8] = {}, *bad;
	struct ibv_sge sge[8];
	struct ibv_wc wc;
	int i, ret;

	for (i = 0; i < 8; i++) {
		sge[i].addr = (uintptr_t)R.buf + 64 * i;
		sge[i].length = 64;
		sge[i].lkey = R.mr->lkey;
		wr[i].wr_id = 0x0500 + i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_RDMA_WRITE;
		wr[i].send_flags = i == 7 ? IBV_SEND_SIGNALED : 0;
		wr[i].wr.rdma.remote_addr = peer.addr + 64 * i;
		wr[i].wr.rdma.rkey = peer.rkey;
		wr[i].next = i < 7 ? &wr[i + 1] : NULL;
	}
	ret = dp_post_send(&R, R.rc_qp, wr, &bad);
	if (ret) {
		snprintf(err, el, "ibv_post_send of a chain of 8: %s",
			 strerror(ret));
		return -1;
	}
	if (dp_poll_one(&R, DP_CQ_SEND, &wc, DP_TIMEOUT_MS)) {
		snprintf(err, el, "no completion for the signalled WR");
		return -1;
	}
	if (dp_check_wc(&wc, 0x0507, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 0,
			R.rc_qp->qp_num, err, el))
		return -1;
	/* Give stray completions a moment to show up. */
	if (!dp_poll_one(&R, DP_CQ_SEND, &wc, 200)) {
		snprintf(err, el, "unexpected completion wr_id %#llx",
			 (unsigned long long)wc.wr_id);
		return -1;
	}
	return 0;
}

/* The server waits on its completion channel for our SEND. */
static int t_channel(char *err, size_t el)
{
	struct dp_msg m = { .cmd = DP_CMD_ARM };
	struct ibv_send_wr wr = {};
	struct ibv_sge sge;
	struct dp_ans a;

	if (ask(&m, &a))
		goto remote_err;
	sge.addr = (uintptr_t)R.buf;
	sge.length = 16;
	sge.lkey = R.mr->lkey;
	wr.wr_id = 0xc4a1;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (send_and_wait(R.rc_qp, &wr, IBV_WC_SEND, 0, err, el))
		return -1;
	m.cmd = DP_CMD_WAIT_EVENT;
	if (ask(&m, &a))
		goto remote_err;
	return 0;

remote_err:
	snprintf(err, el, "server: %s", a.msg);
	return -1;
}

/* A WRITE to an rkey the server never registered: REM_ACCESS_ERR, then
 * the QP is in error and a further WR is flushed. */
static int t_bad_rkey(char *err, size_t el)
{
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	int ret;

	sge.addr = (uintptr_t)R.buf;
	sge.length = 32;
	sge.lkey = R.mr->lkey;
	wr.wr_id = 0xbad;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = peer.addr;
	wr.wr.rdma.rkey = peer.rkey ^ 0x5a5a00;
	ret = dp_post_send(&R, R.rc_qp, &wr, &bad);
	if (ret) {
		snprintf(err, el, "ibv_post_send: %s", strerror(ret));
		return -1;
	}
	if (dp_poll_one(&R, DP_CQ_SEND, &wc, DP_TIMEOUT_MS)) {
		snprintf(err, el, "no completion for the bad-rkey WRITE");
		return -1;
	}
	if (wc.status != IBV_WC_REM_ACCESS_ERR) {
		snprintf(err, el, "status %s, want REM_ACCESS_ERR",
			 ibv_wc_status_str(wc.status));
		return -1;
	}
	wr.wr_id = 0xf15;
	wr.wr.rdma.rkey = peer.rkey;
	ret = dp_post_send(&R, R.rc_qp, &wr, &bad);
	if (ret) {
		snprintf(err, el, "post in ERR: %s", strerror(ret));
		return -1;
	}
	if (dp_poll_one(&R, DP_CQ_SEND, &wc, DP_TIMEOUT_MS)) {
		snprintf(err, el, "no flush completion after the error");
		return -1;
	}
	if (wc.wr_id != 0xf15 || wc.status != IBV_WC_WR_FLUSH_ERR) {
		snprintf(err, el,
			 "wr_id %#llx status %s, want 0xf15 WR_FLUSH_ERR",
			 (unsigned long long)wc.wr_id,
			 ibv_wc_status_str(wc.status));
		return -1;
	}
	return 0;
}

/* ---- driver ---- */

enum dp_kind {
	K_SEND,
	K_SEND_IMM,
	K_SEND_INLINE,
	K_WRITE,
	K_WRITE_IMM,
	K_READ,
	K_CMP_SWAP,
	K_CMP_SWAP_MISS,
	K_FETCH_ADD,
	K_UD_SEND,
	K_UD_SEND_IMM,
	K_NKINDS,
};

static const char *const kind_name[K_NKINDS] = {
	"RC SEND",
	"RC SEND_WITH_IMM",
	"RC SEND inline",
	"RC RDMA_WRITE",
	"RC RDMA_WRITE_WITH_IMM",
	"RC RDMA_READ",
	"RC ATOMIC_CMP_AND_SWP",
	"RC ATOMIC_CMP_AND_SWP (no match)",
	"RC ATOMIC_FETCH_AND_ADD",
	"UD SEND",
	"UD SEND_WITH_IMM",
};

static int ktap_n, npass, nfail;

/* Test cases of a client run with @iters rounds (what -P prints). */
static int dp_plan(int iters)
{
	return dp_local_ntests() + (R.use_wr ? dp_wr_ntests() : 0) +
	       K_NKINDS * iters + 3 + dp_err_ntests() + dp_srq_ntests();
}

static void report(int ok, const char *name, const char *err)
{
	ktap_n++;
	if (ok) {
		npass++;
		printf("ok %d %s\n", ktap_n, name);
	} else {
		nfail++;
		printf("# %s\nnot ok %d %s\n", err, ktap_n, name);
	}
	fflush(stdout);
}

static int run_client(int iters)
{
	char name[128], err[256];
	int k, i, ok, stop = 0, timeouts = 0;
	int plan = dp_plan(iters);

	printf("KTAP version 1\n# dp_test on %s, seed %llu, max %u B%s\n1..%d\n",
	       ibv_get_device_name(R.ctx->device),
	       (unsigned long long)rng_state, max_len,
	       R.use_wr ? ", sends through ibv_wr_*" : "", plan);
	dp_local_tests(&R, report);
	if (R.use_wr)
		dp_wr_tests(&R, &peer, report);

	for (i = 0; i < iters; i++) {
		for (k = 0; k < K_NKINDS; k++) {
			uint32_t len = 0;

			err[0] = 0;
			if (stop) {
				snprintf(name, sizeof(name), "%s #%d",
					 kind_name[k], i);
				report(0, name, "skipped after a fatal error");
				continue;
			}
			switch (k) {
			case K_SEND:
			case K_SEND_IMM:
			case K_WRITE:
			case K_WRITE_IMM:
			case K_READ:
				len = i == 0 ? 0 :
				      i == 1 ? max_len :
					       rnd_size(max_len);
				break;
			case K_SEND_INLINE:
				len = rnd_size(R.max_inline);
				break;
			case K_UD_SEND:
			case K_UD_SEND_IMM:
				len = i == 1 ? R.mtu : rnd_size(R.mtu);
				break;
			default:
				len = 8;
			}
			snprintf(name, sizeof(name), "%s %u B #%d",
				 kind_name[k], len, i);
			switch (k) {
			case K_SEND:
				ok = !t_send(0, 0, len, err, sizeof(err));
				break;
			case K_SEND_IMM:
				ok = !t_send(1, 0, len, err, sizeof(err));
				break;
			case K_SEND_INLINE:
				if (!R.max_inline) {
					ok = 1;
					snprintf(name, sizeof(name),
						 "%s # SKIP no inline",
						 kind_name[k]);
					break;
				}
				ok = !t_send(0, 1, len, err, sizeof(err));
				break;
			case K_WRITE:
				ok = !t_write(0, len, err, sizeof(err));
				break;
			case K_WRITE_IMM:
				ok = !t_write(1, len, err, sizeof(err));
				break;
			case K_READ:
				ok = !t_read(len, err, sizeof(err));
				break;
			case K_CMP_SWAP:
				ok = !t_atomic(IBV_WR_ATOMIC_CMP_AND_SWP, 1,
					       err, sizeof(err));
				break;
			case K_CMP_SWAP_MISS:
				ok = !t_atomic(IBV_WR_ATOMIC_CMP_AND_SWP, 0,
					       err, sizeof(err));
				break;
			case K_FETCH_ADD:
				ok = !t_atomic(IBV_WR_ATOMIC_FETCH_AND_ADD, 0,
					       err, sizeof(err));
				break;
			case K_UD_SEND:
				ok = !t_ud(0, len, err, sizeof(err));
				break;
			default:
				ok = !t_ud(1, len, err, sizeof(err));
				break;
			}
			report(ok, name, err);
			/*
			 * A lost control connection, a dead QP or repeated
			 * timeouts (a stuck data path) end the run.
			 */
			if (!ok && strstr(err, "within"))
				timeouts++;
			if (!ok && (strstr(err, "control connection") ||
				    dp_qp_dead(R.rc_qp) || timeouts >= 3))
				stop = 1;
		}
	}
	err[0] = 0;
	report(!stop && !t_unsignaled(err, sizeof(err)),
	       "unsignalled WRs complete silently, the signalled one reports",
	       stop ? "skipped after a fatal error" : err);
	err[0] = 0;
	report(!stop && !t_channel(err, sizeof(err)),
	       "completion channel: event after req_notify_cq",
	       stop ? "skipped after a fatal error" : err);
	err[0] = 0;
	report(!stop && !t_bad_rkey(err, sizeof(err)),
	       "bad rkey: REM_ACCESS_ERR, then WR_FLUSH_ERR",
	       stop ? "skipped after a fatal error" : err);

	if (stop) {
		for (k = 0; k < dp_err_ntests() + dp_srq_ntests(); k++)
			report(0, "error or SRQ case",
			       "skipped after a fatal error");
	} else {
		dp_err_tests(&R, ctl_fd, &peer, report);
		dp_srq_tests(&R, ctl_fd, &peer, report);
	}

	{
		struct dp_msg m = { .cmd = DP_CMD_QUIT };
		struct dp_ans a;

		ask(&m, &a);
	}
	printf("%d passed, %d failed\n", npass, nfail);
	return nfail ? 1 : 0;
}

/* -e CASE: the client runs error case CASE (dp_err.c) alone. */
static int run_err_case(int i)
{
	struct dp_msg m = { .cmd = DP_CMD_QUIT };
	struct dp_ans a;

	printf("KTAP version 1\n1..1\n");
	dp_err_one(&R, ctl_fd, &peer, report, i);
	ask(&m, &a);
	printf("%d passed, %d failed\n", npass, nfail);
	return nfail ? 1 : 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: dp_test -d DEV -g GIDIDX [-p PORT] [-c SERVER] [-n ITERS] [-S SEED] [-m MAXBYTES] [-X] [-e CASE]\n       dp_test -P [-X] [-n ITERS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *server = NULL;
	int gid = -1, port = 18515, iters = 4, c, ret, plan_only = 0;
	int err_case = -1;

	rng_state = (uint64_t)time(NULL) | 1;
	while ((c = getopt(argc, argv, "d:g:p:c:n:S:m:e:PX")) != -1) {
		switch (c) {
		case 'e':
			err_case = atoi(optarg);
			break;
		case 'P':
			plan_only = 1;
			break;
		case 'X':
			R.use_wr = 1;
			break;
		case 'd':
			dev = optarg;
			break;
		case 'g':
			gid = atoi(optarg);
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'c':
			server = optarg;
			break;
		case 'n':
			iters = atoi(optarg);
			break;
		case 'S':
			rng_state = strtoull(optarg, NULL, 0) | 1;
			break;
		case 'm':
			max_len = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (plan_only && iters >= 2) {
		printf("%d\n", dp_plan(iters));
		return 0;
	}
	if (!dev || gid < 0 || iters < 2 || max_len < 8)
		usage();

	if (dp_res_open(&R, dev, gid, max_len))
		return 1;
	ctl_fd = server ? dp_ctl_connect(server, port) : dp_ctl_listen(port);
	if (ctl_fd < 0)
		return 1;
	if (dp_exchange(&R, ctl_fd, &peer) || dp_connect_qps(&R, &peer))
		return 1;

	if (server && err_case >= 0)
		ret = run_err_case(err_case);
	else
		ret = server ? run_client(iters) : dp_serve(&R, ctl_fd);
	dp_res_close(&R);
	return ret;
}
