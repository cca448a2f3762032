// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * dp_srqresize.c - ibv_modify_srq(IBV_SRQ_MAX_WR) on one device, for
 * t-limits.sh.  KTAP lines on stdout; "-P" prints the plan.
 *
 *   dp_srqresize -d DEV -g GIDX
 *
 * An SRQ of 4 WQEs is filled, refused a size below what it holds or
 * beyond max_srq_wr, grown to 64 and filled up; UD SENDs from a second QP
 * of the same device (loopback to its own GID) then consume the receives:
 * the WQEs posted before the resize complete first and in order, every
 * payload lands in its own buffer.  Then it shrinks to 8 and still works.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "dp_tool.h"

#define SZ_QKEY 0x11111111U
#define SZ_GRH 40
#define SZ_LEN 32
#define SZ_SLOT (SZ_GRH + SZ_LEN)
#define SZ_BIG 64
#define SZ_NTEST 12

struct sz {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_srq *srq;
	struct ibv_qp *rq, *sq; /* receiver (on the SRQ), sender */
	struct ibv_ah *ah;
	uint8_t *buf; /* SZ_BIG receive slots, then one send buffer */
};

/* Receive into @slot with wr_id = phase * 256 + slot. */
static int post_recv(struct sz *s, unsigned int slot, unsigned int phase)
{
	uint64_t wr_id = (uint64_t)phase * 256 + slot;
	struct ibv_sge sge = { .addr = (uintptr_t)(s->buf + slot * SZ_SLOT),
			       .length = SZ_SLOT,
			       .lkey = s->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_srq_recv(s->srq, &wr, &bad);
}

static int resize(struct sz *s, uint32_t max_wr, uint32_t limit, int mask)
{
	struct ibv_srq_attr a = { .max_wr = max_wr, .srq_limit = limit };

	return ibv_modify_srq(s->srq, &a, mask);
}

static uint32_t srq_size(struct sz *s)
{
	struct ibv_srq_attr a = { 0 };

	return ibv_query_srq(s->srq, &a) ? 0 : a.max_wr;
}

static struct ibv_qp *ud_qp(struct sz *s, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = s->cq, .recv_cq = s->cq, .srq = srq,
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = SZ_BIG, .max_recv_wr = srq ? 0 : 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(s->pd, &ia);

	return qp && !dpt_ud_up(qp, SZ_QKEY) ? qp : NULL;
}

/* Send message @k (payload byte i = k + i) to the receiver. */
static int send_one(struct sz *s, unsigned int k)
{
	uint8_t *p = s->buf + SZ_BIG * SZ_SLOT;
	struct ibv_sge sge = { .addr = (uintptr_t)p, .length = SZ_LEN,
			       .lkey = s->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1u << 31 | k, .sg_list = &sge,
				  .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	unsigned int i;

	for (i = 0; i < SZ_LEN; i++)
		p[i] = (uint8_t)(k + i);
	wr.wr.ud.ah = s->ah;
	wr.wr.ud.remote_qpn = s->rq->qp_num;
	wr.wr.ud.remote_qkey = SZ_QKEY;
	return ibv_post_send(s->sq, &wr, &bad);
}

/*
 * Send @n messages numbered from @k0 and collect the @n receive
 * completions; wr_ids[] gets their wr_ids in completion order.  Returns
 * the number of receives whose payload matched the message they got.
 */
static int traffic(struct sz *s, unsigned int k0, int n, uint64_t *wr_ids)
{
	struct timespec t0, t;
	int got = 0, good = 0, sent = 0, i;
	struct ibv_wc wc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (got < n) {
		if (sent < n && sent - got < 8 && !send_one(s, k0 + sent))
			sent++;
		if (ibv_poll_cq(s->cq, 1, &wc) != 1) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (t.tv_sec - t0.tv_sec > 20)
				break;
			usleep(100);
			continue;
		}
		if (wc.wr_id & 1u << 31 || wc.opcode != IBV_WC_RECV)
			continue; /* a send completion */
		wr_ids[got++] = wc.wr_id;
		if (wc.status != IBV_WC_SUCCESS || wc.byte_len != SZ_SLOT)
			continue;
		/* wr_id low bits = slot; the payload names its message. */
		{
			const uint8_t *p = s->buf + (wc.wr_id & 0xff) * SZ_SLOT +
					   SZ_GRH;
			int ok = 1;

			for (i = 1; i < SZ_LEN; i++)
				if (p[i] != (uint8_t)(p[0] + i))
					ok = 0;
			good += ok;
		}
	}
	return good;
}

int main(int argc, char **argv)
{
	struct ibv_srq_init_attr si = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_device_attr da;
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	uint64_t ids[SZ_BIG];
	struct sz s = { 0 };
	const char *dev = NULL;
	int gidx = 0, c, i, ok, good;
	char why[160];

	while ((c = getopt(argc, argv, "d:g:P")) != -1) {
		if (c == 'd')
			dev = optarg;
		else if (c == 'g')
			gidx = atoi(optarg);
		else if (c == 'P')
			return printf("%d\n", SZ_NTEST), 0;
		else
			return 2;
	}
	if (!dev)
		return 2;
	s.ctx = dpt_open(dev);
	s.buf = calloc(SZ_BIG + 1, SZ_SLOT);
	if (!s.ctx || !s.buf || ibv_query_device(s.ctx, &da))
		return fprintf(stderr, "cannot open %s\n", dev), 1;
	s.pd = ibv_alloc_pd(s.ctx);
	s.cq = ibv_create_cq(s.ctx, 4 * SZ_BIG, NULL, NULL, 0);
	s.mr = ibv_reg_mr(s.pd, s.buf, (SZ_BIG + 1) * SZ_SLOT,
			  IBV_ACCESS_LOCAL_WRITE);
	s.srq = s.mr ? ibv_create_srq(s.pd, &si) : NULL;
	if (!s.srq)
		return fprintf(stderr, "setup: %s\n", strerror(errno)), 1;
	printf("1..%d\n", SZ_NTEST);

	/* Fill the small SRQ; one more does not fit. */
	for (i = 0, ok = 1; i < 4; i++)
		ok &= !post_recv(&s, i, 1);
	snprintf(why, sizeof(why), "granted max_wr %u", srq_size(&s));
	dpt_report(ok && srq_size(&s) == 4, "SRQ of 4 holds 4 receives", why);
	dpt_expect(post_recv(&s, 4, 1), ENOMEM, "a 5th receive: ENOMEM");
	dpt_expect(resize(&s, 2, 0, IBV_SRQ_MAX_WR), EINVAL,
	       "resize below the 4 posted: EINVAL");
	dpt_expect(resize(&s, (uint32_t)da.max_srq_wr + 1, 0, IBV_SRQ_MAX_WR),
	       EINVAL, "resize beyond max_srq_wr: EINVAL");
	dpt_expect(resize(&s, SZ_BIG, 0, IBV_SRQ_MAX_WR), 0, "resize to 64");
	snprintf(why, sizeof(why), "query_srq max_wr %u", srq_size(&s));
	dpt_report(srq_size(&s) == SZ_BIG, "query_srq reports 64", why);
	for (i = 4, ok = 1; i < SZ_BIG; i++)
		ok &= !post_recv(&s, i, 2);
	dpt_report(ok, "60 more receives fit after the resize", NULL);
	dpt_expect(resize(&s, SZ_BIG, SZ_BIG + 1, IBV_SRQ_LIMIT), EINVAL,
	       "srq_limit above the new size: EINVAL");

	/* Traffic: loopback UD from sq to rq (on the SRQ). */
	s.rq = ud_qp(&s, s.srq);
	s.sq = ud_qp(&s, NULL);
	if (!s.rq || !s.sq || ibv_query_gid(s.ctx, 1, gidx, &aa.grh.dgid))
		return fprintf(stderr, "QPs: %s\n", strerror(errno)), 1;
	aa.grh.sgid_index = gidx;
	aa.grh.hop_limit = 1;
	s.ah = ibv_create_ah(s.pd, &aa);
	if (!s.ah)
		return fprintf(stderr, "AH: %s\n", strerror(errno)), 1;
	good = traffic(&s, 0, SZ_BIG, ids);
	ok = 1;
	for (i = 0; i < SZ_BIG; i++)
		if (ids[i] != (uint64_t)((i < 4 ? 1 : 2) * 256 + i))
			ok = 0;
	snprintf(why, sizeof(why), "first wr_ids %llu %llu %llu %llu %llu",
		 (unsigned long long)ids[0], (unsigned long long)ids[1],
		 (unsigned long long)ids[2], (unsigned long long)ids[3],
		 (unsigned long long)ids[4]);
	dpt_report(ok, "receives complete in posting order across the resize",
	       why);
	snprintf(why, sizeof(why), "%d of %d with their payload", good,
		 SZ_BIG);
	dpt_report(good == SZ_BIG, "every payload in its own buffer", why);

	/* Shrink to 8 with 2 posted, and use it. */
	ok = !post_recv(&s, 0, 3) && !post_recv(&s, 1, 3);
	dpt_expect(resize(&s, 8, 0, IBV_SRQ_MAX_WR), 0, "shrink to 8 (2 posted)");
	for (i = 2; i < 8; i++)
		ok &= !post_recv(&s, i, 3);
	good = traffic(&s, 100, 8, ids);
	snprintf(why, sizeof(why), "size %u, %d of 8 received, first %llu",
		 srq_size(&s), good, (unsigned long long)ids[0]);
	dpt_report(ok && srq_size(&s) == 8 && good == 8 && ids[0] == 3 * 256,
	       "the shrunk SRQ takes 8 and delivers them", why);

	ibv_destroy_qp(s.sq);
	ibv_destroy_qp(s.rq);
	ibv_destroy_ah(s.ah);
	ibv_destroy_srq(s.srq);
	ibv_dereg_mr(s.mr);
	ibv_destroy_cq(s.cq);
	ibv_dealloc_pd(s.pd);
	ibv_close_device(s.ctx);
	return dpt_nfail || dpt_ntest != SZ_NTEST;
}
