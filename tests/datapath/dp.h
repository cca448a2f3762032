/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * dp.h - shared pieces of the data-path test (dp_test.c: the client's test
 * cases and main; dp_lib.c: verbs resources, QP connection, control
 * connection, data patterns, completion checks, the server loop and the
 * provider's user-space validation checks).
 */
#ifndef SROCE_TEST_DP_H
#define SROCE_TEST_DP_H

#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define DP_MAX_SGE 16
#define DP_TIMEOUT_MS 15000
#define DP_QKEY 0x11111111U
#define DP_GRH_BYTES 40
#define DP_QP_DEPTH 64
#define DP_CQ_DEPTH 256

/* The CQs of one side: the UD ones are extended CQs (ibv_create_cq_ex). */
enum dp_cq { DP_CQ_SEND, DP_CQ_RECV, DP_CQ_UD_SEND, DP_CQ_UD_RECV, DP_NCQ };

enum dp_qp { DP_QP_RC, DP_QP_UD };

/* Control commands, client -> server; each gets one struct dp_ans. */
enum dp_cmd {
	DP_CMD_POST_RECV = 1, /* post a receive of len on qp over nsge SGEs */
	DP_CMD_EXPECT_RECV, /* wait for it, check the WC and the data */
	DP_CMD_FILL, /* pattern(seed) into [off, off+len) */
	DP_CMD_VERIFY, /* check [off, off+len) holds pattern(seed) */
	DP_CMD_SET64, /* u64 at off = val */
	DP_CMD_GET64, /* answer the u64 at off */
	DP_CMD_ARM, /* req_notify_cq on the RC recv CQ + a receive */
	DP_CMD_WAIT_EVENT, /* wait for the channel event, then the WC */
	DP_CMD_QUIT,
	/* Error cases (dp_err.c), on a fresh RC QP of their own: */
	DP_CMD_E_SETUP, /* new QP + guarded MR (access op), connect (val) */
	DP_CMD_E_POST_RECV, /* post a receive of len on it */
	DP_CMD_E_POLL, /* wait val ms for its receive WC: val=status */
	DP_CMD_E_STATE, /* answer its QP state */
	DP_CMD_E_MODIFY, /* move it to state val (RESET, ERR) */
	DP_CMD_E_GUARD, /* check the bytes around (and in) the MR */
	/* SRQ cases (dp_srq.c), on a fresh RC QP receiving through an SRQ: */
	DP_CMD_S_SETUP, /* new SRQ of len WRs + QP on it, connect */
	DP_CMD_S_POST, /* post val receives on the SRQ */
	DP_CMD_S_EXPECT, /* val receive completions, data of seed */
	DP_CMD_S_LIMIT, /* modify_srq(srq_limit = val): val = its errno */
	DP_CMD_S_EVENT, /* wait val ms for async event op: val = seen */
	DP_CMD_S_MODIFY, /* move the QP to state val */
	DP_CMD_S_QUIET, /* no receive completion in val ms: val = 1 if one */
};

struct dp_msg {
	uint32_t cmd, op, qp, nsge, has_imm, imm, src_qp, len;
	uint64_t off, seed, val;
};

struct dp_ans {
	int32_t status; /* 0 ok, -1 failed (msg says why) */
	uint32_t pad;
	uint64_t val;
	uint64_t addr; /* E_SETUP: the guarded MR */
	uint32_t rkey, len; /* E_SETUP: its rkey; E_POLL: byte_len */
	char msg[240];
};

/* What each side tells the other at start-up. */
struct dp_peer {
	uint32_t rc_qpn, ud_qpn, psn, rkey;
	uint64_t addr, size;
	uint8_t gid[16];
};

/* One side's verbs resources. */
struct dp_res {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint8_t *buf; /* registered; [0, size/2) RDMA target, rest scratch */
	size_t size;
	struct ibv_comp_channel *ch; /* of the RC recv CQ */
	struct ibv_cq *cq[DP_NCQ];
	struct ibv_cq_ex *cqx[DP_NCQ]; /* non-NULL for extended CQs */
	struct ibv_qp *rc_qp, *ud_qp;
	struct ibv_qp *spare_qp; /* RC, kept in INIT (validation checks) */
	struct ibv_ah *ah; /* to the peer, for UD */
	int gid_idx;
	union ibv_gid gid;
	enum ibv_mtu mtu_enum;
	uint32_t mtu; /* bytes */
	uint32_t max_send_sge, max_recv_sge, max_inline, max_recv_wr;
	uint32_t rd_atom;
	uint32_t psn;
	/* Client -X: rc_qp and ud_qp post through the ibv_wr_* API. */
	int use_wr;
	/* Server: the receive being waited for (one at a time). */
	struct ibv_sge rsge[DP_MAX_SGE];
	int rn;
};

/* send_ops_flags of the -X QPs: every operation dp_test sends. */
#define DP_WR_UD_OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)
#define DP_WR_RC_OPS                                                     \
	(DP_WR_UD_OPS | IBV_QP_EX_WITH_RDMA_WRITE |                      \
	 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ | \
	 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |                             \
	 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)

/* dp_res_open() keeps r->use_wr as the caller set it. */
int dp_res_open(struct dp_res *r, const char *dev, int gid_idx,
		uint32_t max_len);
void dp_res_close(struct dp_res *r);
int dp_exchange(struct dp_res *r, int fd, struct dp_peer *peer);
int dp_connect_qps(struct dp_res *r, const struct dp_peer *peer);
int dp_qp_dead(struct ibv_qp *qp);

int dp_ctl_listen(int port);
int dp_ctl_connect(const char *host, int port);
int dp_ctl_send(int fd, const void *p, size_t n);
int dp_ctl_recv(int fd, void *p, size_t n);

/* Data patterns: byte i of a message made from seed. */
static inline uint8_t dp_pat(uint64_t seed, uint64_t i)
{
	return (uint8_t)(((uint32_t)i * 2654435761U + (uint32_t)seed +
			  (uint32_t)(i >> 32)) >>
			 23);
}

void dp_fill(uint8_t *p, uint64_t len, uint64_t seed);
int dp_sge_split(struct dp_res *r, struct ibv_sge *sge, uint32_t maxsge,
		 uint32_t len, uint64_t seed, uint64_t base);
void dp_sge_scatter(const struct ibv_sge *sge, int n, uint32_t len,
		    uint64_t seed);
void dp_sge_poison(const struct ibv_sge *sge, int n);
int dp_sge_verify(const struct ibv_sge *sge, int n, uint32_t len, uint64_t seed,
		  char *err, size_t el);
int dp_sge_verify_at(const struct ibv_sge *sge, int n, uint32_t skip,
		     uint32_t len, uint64_t seed, char *err, size_t el);

int dp_poll_one(struct dp_res *r, enum dp_cq which, struct ibv_wc *wc,
		int timeout_ms);
int dp_check_wc(const struct ibv_wc *wc, uint64_t wr_id, enum ibv_wc_status st,
		enum ibv_wc_opcode op, uint32_t byte_len, uint32_t qpn,
		char *err, size_t el);

int dp_serve(struct dp_res *r, int fd);

typedef void (*dp_report_fn)(int ok, const char *name, const char *err);

/* Error semantics on fresh QP pairs (dp_err.c). */
int dp_err_ntests(void);
/* Error case @i alone (dp_test -e), reported through @report. */
void dp_err_one(struct dp_res *r, int fd, const struct dp_peer *peer,
		dp_report_fn report, int i);
void dp_err_tests(struct dp_res *r, int fd, const struct dp_peer *peer,
		  dp_report_fn report);
int dp_err_serve(struct dp_res *r, const struct dp_msg *m, struct dp_ans *a);

/* Shared receive queues (dp_srq.c). */
int dp_srq_ntests(void);
void dp_srq_tests(struct dp_res *r, int fd, const struct dp_peer *peer,
		  dp_report_fn report);
int dp_srq_serve(struct dp_res *r, const struct dp_msg *m, struct dp_ans *a);

/* The provider's user-space checks (errno, bad_wr), no peer involved. */
int dp_local_ntests(void);
void dp_local_tests(struct dp_res *r, dp_report_fn report);

/*
 * ibv_post_send, or with r->use_wr (and an extended QP) the same chain as
 * one ibv_wr_start .. ibv_wr_complete batch (dp_wr.c); *bad = wr if the
 * batch failed (the wr_* API posts all or nothing).
 */
int dp_post_send(struct dp_res *r, struct ibv_qp *qp, struct ibv_send_wr *wr,
		 struct ibv_send_wr **bad);

/* The ibv_wr_* API's checks and batch semantics (dp_wr.c, -X only). */
int dp_wr_ntests(void);
void dp_wr_tests(struct dp_res *r, const struct dp_peer *peer,
		 dp_report_fn report);

#endif /* SROCE_TEST_DP_H */
