// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * dp_lib.c - verbs resources, QP connection, control connection, data
 * patterns and completion checks of the data-path test.  See dp.h.
 */
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "dp.h"

/* ---- resources ---- */

static uint32_t mtu_bytes(enum ibv_mtu m)
{
	return 128U << m;
}

/*
 * ibv_create_qp, or with @send_ops the same QP through ibv_create_qp_ex
 * with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS (the ibv_wr_* API, dp_test -X).
 */
static struct ibv_qp *create_qp(struct dp_res *r, struct ibv_qp_init_attr *a,
				uint64_t send_ops)
{
	struct ibv_qp_init_attr_ex x = {};
	struct ibv_qp *qp;

	if (!send_ops)
		return ibv_create_qp(r->pd, a);
	x.qp_context = a->qp_context;
	x.send_cq = a->send_cq;
	x.recv_cq = a->recv_cq;
	x.srq = a->srq;
	x.cap = a->cap;
	x.qp_type = a->qp_type;
	x.sq_sig_all = a->sq_sig_all;
	x.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	x.pd = r->pd;
	x.send_ops_flags = send_ops;
	qp = ibv_create_qp_ex(r->ctx, &x);
	if (qp && !ibv_qp_to_qp_ex(qp)) {
		fprintf(stderr, "dp_test: ibv_qp_to_qp_ex returned NULL\n");
		ibv_destroy_qp(qp);
		errno = EPROTO;
		return NULL;
	}
	if (qp)
		a->cap = x.cap;
	return qp;
}

static struct ibv_qp *make_qp(struct dp_res *r, enum ibv_qp_type type,
			      struct ibv_cq *scq, struct ibv_cq *rcq,
			      uint64_t send_ops)
{
	struct ibv_qp_init_attr a = {
		.send_cq = scq,
		.recv_cq = rcq,
		.cap = {
			.max_send_wr = DP_QP_DEPTH,
			.max_recv_wr = DP_QP_DEPTH,
			.max_send_sge = r->max_send_sge,
			.max_recv_sge = r->max_recv_sge,
			.max_inline_data = 64,
		},
		.qp_type = type,
	};
	struct ibv_qp *qp;

	qp = create_qp(r, &a, send_ops);
	if (!qp) {
		/* A device without inline support refuses the request. */
		a.cap.max_inline_data = 0;
		qp = create_qp(r, &a, send_ops);
	}
	if (!qp) {
		fprintf(stderr, "dp_test: ibv_create_qp(%d): %s\n", type,
			strerror(errno));
		return NULL;
	}
	if (type == IBV_QPT_RC && !r->max_recv_wr) {
		r->max_inline = a.cap.max_inline_data;
		r->max_recv_wr = a.cap.max_recv_wr;
	}
	return qp;
}

static struct ibv_cq *make_cq(struct dp_res *r, int idx, int ex,
			      struct ibv_comp_channel *ch)
{
	if (ex) {
		struct ibv_cq_init_attr_ex a = {
			.cqe = DP_CQ_DEPTH,
			.channel = ch,
			.wc_flags = IBV_WC_STANDARD_FLAGS,
		};

		r->cqx[idx] = ibv_create_cq_ex(r->ctx, &a);
		return r->cqx[idx] ? ibv_cq_ex_to_cq(r->cqx[idx]) : NULL;
	}
	return ibv_create_cq(r->ctx, DP_CQ_DEPTH, NULL, ch, 0);
}

int dp_res_open(struct dp_res *r, const char *dev, int gid_idx,
		uint32_t max_len)
{
	struct ibv_device **list;
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	int i, n, use_wr = r->use_wr;

	memset(r, 0, sizeof(*r));
	r->use_wr = use_wr;
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev))
			r->ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!r->ctx) {
		fprintf(stderr, "dp_test: cannot open %s\n", dev);
		return -1;
	}
	if (ibv_query_device(r->ctx, &da) || ibv_query_port(r->ctx, 1, &pa) ||
	    ibv_query_gid(r->ctx, 1, gid_idx, &r->gid)) {
		fprintf(stderr, "dp_test: query device/port/gid failed\n");
		return -1;
	}
	r->gid_idx = gid_idx;
	r->mtu_enum = pa.active_mtu;
	r->mtu = mtu_bytes(pa.active_mtu);
	r->max_send_sge = da.max_sge < 8 ? (uint32_t)da.max_sge : 8;
	r->max_recv_sge = r->max_send_sge;
	r->rd_atom = da.max_qp_rd_atom < 16 ? (uint32_t)da.max_qp_rd_atom : 16;
	r->psn = (uint32_t)(lrand48() & 0xffffff);

	/* Room for a max-size message and its SGE gaps, in each half. */
	r->size = 2 * ((size_t)max_len + (1 << 16));
	r->buf = aligned_alloc(4096, r->size);
	r->pd = ibv_alloc_pd(r->ctx);
	if (!r->buf || !r->pd)
		return -1;
	memset(r->buf, 0, r->size);
	r->mr = ibv_reg_mr(r->pd, r->buf, r->size,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC);
	if (!r->mr) {
		fprintf(stderr, "dp_test: ibv_reg_mr: %s\n", strerror(errno));
		return -1;
	}
	r->ch = ibv_create_comp_channel(r->ctx);
	if (!r->ch)
		return -1;
	for (i = 0; i < DP_NCQ; i++) {
		r->cq[i] = make_cq(r, i, i >= DP_CQ_UD_SEND,
				   i == DP_CQ_RECV ? r->ch : NULL);
		if (!r->cq[i]) {
			fprintf(stderr, "dp_test: create cq %d: %s\n", i,
				strerror(errno));
			return -1;
		}
	}
	r->rc_qp = make_qp(r, IBV_QPT_RC, r->cq[DP_CQ_SEND], r->cq[DP_CQ_RECV],
			   r->use_wr ? DP_WR_RC_OPS : 0);
	r->ud_qp = make_qp(r, IBV_QPT_UD, r->cq[DP_CQ_UD_SEND],
			   r->cq[DP_CQ_UD_RECV], r->use_wr ? DP_WR_UD_OPS : 0);
	r->spare_qp =
		make_qp(r, IBV_QPT_RC, r->cq[DP_CQ_SEND], r->cq[DP_CQ_RECV], 0);
	if (!r->rc_qp || !r->ud_qp || !r->spare_qp)
		return -1;
	return 0;
}

void dp_res_close(struct dp_res *r)
{
	int i;

	if (r->ah)
		ibv_destroy_ah(r->ah);
	if (r->spare_qp)
		ibv_destroy_qp(r->spare_qp);
	if (r->ud_qp)
		ibv_destroy_qp(r->ud_qp);
	if (r->rc_qp)
		ibv_destroy_qp(r->rc_qp);
	for (i = 0; i < DP_NCQ; i++)
		if (r->cq[i])
			ibv_destroy_cq(r->cq[i]);
	if (r->ch)
		ibv_destroy_comp_channel(r->ch);
	if (r->mr)
		ibv_dereg_mr(r->mr);
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (r->ctx)
		ibv_close_device(r->ctx);
	free(r->buf);
}

int dp_qp_dead(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return 1;
	return a.qp_state == IBV_QPS_ERR;
}

static int modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
		  const char *what)
{
	int ret = ibv_modify_qp(qp, a, mask);

	if (ret)
		fprintf(stderr, "dp_test: modify_qp %s: %s\n", what,
			strerror(ret));
	return ret;
}

static int to_init(struct dp_res *r, struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags =
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
		.qkey = DP_QKEY,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	(void)r;
	mask |= qp->qp_type == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS;
	return modify(qp, &a, mask, "INIT");
}

/*
 * The RC retransmit timeout exponent: 14 (67 ms), or SROCE_DP_QP_TIMEOUT
 * (check-debug raises it: the debug kernel is several times slower).
 */
static uint8_t qp_timeout(void)
{
	const char *e = getenv("SROCE_DP_QP_TIMEOUT");
	int t = e ? atoi(e) : 14;

	return t > 0 && t < 32 ? (uint8_t)t : 14;
}

int dp_connect_qps(struct dp_res *r, const struct dp_peer *peer)
{
	struct ibv_ah_attr ah = {
		.is_global = 1,
		.port_num = 1,
		.grh = { .sgid_index = (uint8_t)r->gid_idx, .hop_limit = 64 },
	};
	struct ibv_qp_attr a;

	memcpy(ah.grh.dgid.raw, peer->gid, 16);
	if (to_init(r, r->rc_qp) || to_init(r, r->ud_qp) ||
	    to_init(r, r->spare_qp))
		return -1;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = r->mtu_enum;
	a.dest_qp_num = peer->rc_qpn;
	a.rq_psn = peer->psn;
	a.max_dest_rd_atomic = (uint8_t)r->rd_atom;
	a.min_rnr_timer = 12;
	a.ah_attr = ah;
	if (modify(r->rc_qp, &a,
		   IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
		   "RC RTR"))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = qp_timeout();
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = r->psn;
	a.max_rd_atomic = (uint8_t)r->rd_atom;
	if (modify(r->rc_qp, &a,
		   IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			   IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			   IBV_QP_MAX_QP_RD_ATOMIC,
		   "RC RTS"))
		return -1;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	if (modify(r->ud_qp, &a, IBV_QP_STATE, "UD RTR"))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = r->psn;
	if (modify(r->ud_qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN, "UD RTS"))
		return -1;

	r->ah = ibv_create_ah(r->pd, &ah);
	if (!r->ah) {
		fprintf(stderr, "dp_test: ibv_create_ah: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- control connection ---- */

int dp_ctl_send(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t k = send(fd, c, n, MSG_NOSIGNAL);

		if (k <= 0) {
			if (k < 0 && errno == EINTR)
				continue;
			return -1;
		}
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

int dp_ctl_recv(int fd, void *p, size_t n)
{
	char *c = p;

	while (n) {
		ssize_t k = recv(fd, c, n, 0);

		if (k <= 0) {
			if (k < 0 && errno == EINTR)
				continue;
			return -1;
		}
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

static void nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int dp_ctl_listen(int port)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6,
				   .sin6_port = htons((uint16_t)port) };
	int one = 1, ls, fd;

	ls = socket(AF_INET6, SOCK_STREAM, 0);
	if (ls < 0)
		return -1;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, 1)) {
		perror("dp_test: listen");
		close(ls);
		return -1;
	}
	fd = accept(ls, NULL, NULL);
	close(ls);
	if (fd >= 0)
		nodelay(fd);
	return fd;
}

int dp_ctl_connect(const char *host, int port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai, *p;
	char ps[16];
	int fd = -1, tries;

	snprintf(ps, sizeof(ps), "%d", port);
	if (getaddrinfo(host, ps, &hints, &ai)) {
		fprintf(stderr, "dp_test: cannot resolve %s\n", host);
		return -1;
	}
	/* The server may still be starting: retry for a while. */
	for (tries = 0; tries < 100 && fd < 0; tries++) {
		for (p = ai; p; p = p->ai_next) {
			fd = socket(p->ai_family, p->ai_socktype, 0);
			if (fd < 0)
				continue;
			if (!connect(fd, p->ai_addr, p->ai_addrlen))
				break;
			close(fd);
			fd = -1;
		}
		if (fd < 0)
			usleep(100000);
	}
	freeaddrinfo(ai);
	if (fd < 0)
		fprintf(stderr, "dp_test: cannot connect to %s:%d\n", host,
			port);
	else
		nodelay(fd);
	return fd;
}

int dp_exchange(struct dp_res *r, int fd, struct dp_peer *peer)
{
	struct dp_peer me = {
		.rc_qpn = r->rc_qp->qp_num,
		.ud_qpn = r->ud_qp->qp_num,
		.psn = r->psn,
		.rkey = r->mr->rkey,
		.addr = (uintptr_t)r->buf,
		.size = r->size,
	};

	memcpy(me.gid, r->gid.raw, 16);
	if (dp_ctl_send(fd, &me, sizeof(me)) ||
	    dp_ctl_recv(fd, peer, sizeof(*peer)))
		return -1;
	return 0;
}

/* ---- data patterns and SGE lists ---- */

void dp_fill(uint8_t *p, uint64_t len, uint64_t seed)
{
	uint64_t i;

	for (i = 0; i < len; i++)
		p[i] = dp_pat(seed, i);
}

/*
 * Cut @len bytes into 1..@maxsge pieces (0 pieces sometimes for len 0) at
 * random points and lay them out in r->buf from @base with random gaps.
 * Returns the number of SGEs.
 */
int dp_sge_split(struct dp_res *r, struct ibv_sge *sge, uint32_t maxsge,
		 uint32_t len, uint64_t seed, uint64_t base)
{
	uint32_t n, i, left = len, cut;
	uint64_t pos = base;

	if (maxsge > DP_MAX_SGE)
		maxsge = DP_MAX_SGE;
	n = 1 + (uint32_t)(seed % maxsge);
	if (len == 0 && (seed >> 8) % 2)
		n = 0;
	for (i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		pos += (seed >> 33) % 64;
		cut = i == n - 1 ? left : (uint32_t)((seed >> 20) % (left + 1));
		sge[i].addr = (uintptr_t)(r->buf + pos);
		sge[i].length = cut;
		sge[i].lkey = r->mr->lkey;
		pos += cut;
		left -= cut;
	}
	return (int)n;
}

/* Write pattern(seed) bytes 0..len-1 across the SGEs, in order. */
void dp_sge_scatter(const struct ibv_sge *sge, int n, uint32_t len,
		    uint64_t seed)
{
	uint64_t off = 0;
	uint32_t k;
	int i;

	for (i = 0; i < n && off < len; i++) {
		uint8_t *p = (uint8_t *)(uintptr_t)sge[i].addr;

		for (k = 0; k < sge[i].length && off < len; k++, off++)
			p[k] = dp_pat(seed, off);
	}
}

void dp_sge_poison(const struct ibv_sge *sge, int n)
{
	int i;

	for (i = 0; i < n; i++)
		memset((void *)(uintptr_t)sge[i].addr, 0xa5, sge[i].length);
}

/*
 * Check that the byte stream of the SGEs holds pattern(seed) bytes 0..len-1
 * starting at stream offset @skip.
 */
int dp_sge_verify_at(const struct ibv_sge *sge, int n, uint32_t skip,
		     uint32_t len, uint64_t seed, char *err, size_t el)
{
	uint64_t pos = 0, end = (uint64_t)skip + len;
	uint32_t k;
	int i;

	for (i = 0; i < n && pos < end; i++) {
		const uint8_t *p = (const uint8_t *)(uintptr_t)sge[i].addr;

		for (k = 0; k < sge[i].length && pos < end; k++, pos++) {
			if (pos < skip)
				continue;
			if (p[k] != dp_pat(seed, pos - skip)) {
				snprintf(
					err, el,
					"data mismatch at byte %llu of %u (sge %d +%u): %#x, want %#x",
					(unsigned long long)(pos - skip), len,
					i, k, p[k], dp_pat(seed, pos - skip));
				return -1;
			}
		}
	}
	if (pos < end) {
		snprintf(err, el, "SGE list shorter than %u bytes", len);
		return -1;
	}
	return 0;
}

int dp_sge_verify(const struct ibv_sge *sge, int n, uint32_t len, uint64_t seed,
		  char *err, size_t el)
{
	return dp_sge_verify_at(sge, n, 0, len, seed, err, el);
}

/* ---- completions ---- */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One entry of an extended CQ, read field by field into @wc. */
static int poll_ex(struct ibv_cq_ex *cq, struct ibv_wc *wc)
{
	struct ibv_poll_cq_attr attr = {};
	int ret;

	ret = ibv_start_poll(cq, &attr);
	if (ret == ENOENT)
		return 0;
	if (ret)
		return -1;
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cq->wr_id;
	wc->status = cq->status;
	wc->opcode = ibv_wc_read_opcode(cq);
	wc->vendor_err = ibv_wc_read_vendor_err(cq);
	wc->byte_len = ibv_wc_read_byte_len(cq);
	wc->wc_flags = ibv_wc_read_wc_flags(cq);
	wc->imm_data = ibv_wc_read_imm_data(cq);
	wc->qp_num = ibv_wc_read_qp_num(cq);
	wc->src_qp = ibv_wc_read_src_qp(cq);
	wc->slid = (uint16_t)ibv_wc_read_slid(cq);
	wc->sl = ibv_wc_read_sl(cq);
	wc->dlid_path_bits = ibv_wc_read_dlid_path_bits(cq);
	ibv_end_poll(cq);
	return 1;
}

/* Wait up to @timeout_ms for one completion: 0 got one, -1 none/error. */
int dp_poll_one(struct dp_res *r, enum dp_cq which, struct ibv_wc *wc,
		int timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms;
	unsigned int spins = 0;
	int n;

	for (;;) {
		if (r->cqx[which])
			n = poll_ex(r->cqx[which], wc);
		else
			n = ibv_poll_cq(r->cq[which], 1, wc);
		if (n < 0)
			return -1;
		if (n == 1)
			return 0;
		if (++spins % 256 == 0) {
			if (now_ms() > deadline)
				return -1;
			usleep(20);
		}
	}
}

int dp_check_wc(const struct ibv_wc *wc, uint64_t wr_id, enum ibv_wc_status st,
		enum ibv_wc_opcode op, uint32_t byte_len, uint32_t qpn,
		char *err, size_t el)
{
	if (wc->status != st) {
		snprintf(err, el,
			 "wr_id %#llx: status %s (vendor_err %u), want %s",
			 (unsigned long long)wc->wr_id,
			 ibv_wc_status_str(wc->status), wc->vendor_err,
			 ibv_wc_status_str(st));
		return -1;
	}
	if (wc->wr_id != wr_id) {
		snprintf(err, el, "wr_id %#llx, want %#llx",
			 (unsigned long long)wc->wr_id,
			 (unsigned long long)wr_id);
		return -1;
	}
	if (wc->opcode != op) {
		snprintf(err, el, "opcode %d, want %d", wc->opcode, op);
		return -1;
	}
	/* byte_len is only defined for receives, READ and atomics. */
	if ((op & IBV_WC_RECV || op == IBV_WC_RDMA_READ ||
	     op == IBV_WC_COMP_SWAP || op == IBV_WC_FETCH_ADD) &&
	    wc->byte_len != byte_len) {
		snprintf(err, el, "byte_len %u, want %u", wc->byte_len,
			 byte_len);
		return -1;
	}
	if (wc->qp_num != qpn) {
		snprintf(err, el, "qp_num %u, want %u", wc->qp_num, qpn);
		return -1;
	}
	return 0;
}
