// SPDX-License-Identifier: GPL-2.0
/*
 * test_pma.c - the Performance Management Agent (kernel/proto/pma.c):
 * which MADs it takes, the status of each answer, and every counter field
 * at its byte offset in the reply, checked on the raw bytes so that a
 * wrong struct layout cannot pass.
 */
#include "ktest.h"
#include "pma.h"

static const struct sroce_pma_counters pma_c = {
	.xmit_bytes = 4000,
	.rcv_bytes = 8003,
	.xmit_pkts = 11,
	.rcv_pkts = 22,
	.rcv_errors = 3,
	.xmit_discards = 5,
};

static void pma_req(struct sroce_pma_mad *m, u8 method, u16 attr, u8 port)
{
	memset(m, 0, sizeof(*m));
	m->hdr.base_version = 1;
	m->hdr.mgmt_class = 0x04;
	m->hdr.class_version = 1;
	m->hdr.method = method;
	m->hdr.tid = cpu_to_be64(0x0102030405060708ULL);
	m->hdr.attr_id = cpu_to_be16(attr);
	m->hdr.attr_mod = cpu_to_be32(0xa5a5a5a5);
	m->data[1] = port; /* PortSelect */
	m->data[2] = 0xf0; /* CounterSelect, echoed */
	m->data[3] = 0x0f;
}

static u64 be_at(const u8 *p, int bytes)
{
	u64 v = 0;

	for (int i = 0; i < bytes; i++)
		v = v << 8 | p[i];
	return v;
}

static u16 reply_status(const struct sroce_pma_mad *m)
{
	return be16_to_cpu(m->hdr.status);
}

static void pma_takes_requests_only(struct ktest *t)
{
	struct sroce_pma_mad m;

	pma_req(&m, 0x01, 0x12, 1);
	KTEST_EXPECT(t, sroce_pma_is_request(&m));
	m.hdr.method = 0x02;
	KTEST_EXPECT(t, sroce_pma_is_request(&m));
	/* Responses, traps and other classes belong to ib_core's agents. */
	for (unsigned int meth = 0; meth < 256; meth++) {
		m.hdr.method = meth;
		KTEST_EXPECT_EQ(t, sroce_pma_is_request(&m),
				meth == 0x01 || meth == 0x02);
	}
	pma_req(&m, 0x01, 0x12, 1);
	m.hdr.mgmt_class = 0x07; /* CM */
	KTEST_EXPECT(t, !sroce_pma_is_request(&m));
	m.hdr.mgmt_class = 0x03; /* SA */
	KTEST_EXPECT(t, !sroce_pma_is_request(&m));
	pma_req(&m, 0x01, 0x12, 1);
	m.hdr.base_version = 0x80; /* OPA */
	KTEST_EXPECT(t, !sroce_pma_is_request(&m));
}

static void pma_class_port_info(struct ktest *t)
{
	struct sroce_pma_mad in, out;
	const u8 *raw = (const u8 *)&out;

	pma_req(&in, 0x01, 0x0001, 0);
	memset(&out, 0x5a, sizeof(out));
	sroce_pma_answer(&in, &out, 1, &pma_c);
	KTEST_EXPECT_EQ(t, out.hdr.method, 0x81);
	KTEST_EXPECT_EQ(t, reply_status(&out), 0);
	KTEST_EXPECT_EQ(t, be_at(raw + 8, 8), 0x0102030405060708ULL);
	KTEST_EXPECT_EQ(t, be_at(raw + 16, 2), 0x0001);
	/* Data at byte 64: versions, then CapabilityMask = bit 10 only. */
	KTEST_EXPECT_EQ(t, raw[64], 1);
	KTEST_EXPECT_EQ(t, raw[65], 1);
	KTEST_EXPECT_EQ(t, be_at(raw + 66, 2), 0x0400);
	KTEST_EXPECT_EQ(t, be_at(raw + 68, 4) & 0x1f, 18);
	/* Nothing else set: no redirect, no trap. */
	for (int i = 72; i < 256; i++)
		KTEST_EXPECT_EQ(t, raw[i], 0);
}

static void pma_port_counters(struct ktest *t)
{
	struct sroce_pma_mad in, out;
	const u8 *raw = (const u8 *)&out;
	const u8 *d = raw + 64;

	pma_req(&in, 0x01, 0x0012, 1);
	memset(&out, 0x5a, sizeof(out));
	sroce_pma_answer(&in, &out, 1, &pma_c);
	KTEST_EXPECT_EQ(t, out.hdr.method, 0x81);
	KTEST_EXPECT_EQ(t, reply_status(&out), 0);
	KTEST_EXPECT_EQ(t, be_at(raw + 20, 4), 0xa5a5a5a5);
	KTEST_EXPECT_EQ(t, d[1], 1);
	KTEST_EXPECT_EQ(t, be_at(d + 2, 2), 0xf00f);
	/* Offsets of ib_core's sysfs table (bit offset / 8). */
	KTEST_EXPECT_EQ(t, be_at(d + 4, 2), 0); /* symbol_error */
	KTEST_EXPECT_EQ(t, be_at(d + 8, 2), 3); /* port_rcv_errors */
	KTEST_EXPECT_EQ(t, be_at(d + 14, 2), 5); /* port_xmit_discards */
	KTEST_EXPECT_EQ(t, be_at(d + 22, 2), 0); /* VL15_dropped */
	KTEST_EXPECT_EQ(t, be_at(d + 24, 4), 1000); /* port_xmit_data */
	KTEST_EXPECT_EQ(t, be_at(d + 28, 4), 2000); /* port_rcv_data */
	KTEST_EXPECT_EQ(t, be_at(d + 32, 4), 11); /* port_xmit_packets */
	KTEST_EXPECT_EQ(t, be_at(d + 36, 4), 22); /* port_rcv_packets */
	KTEST_EXPECT_EQ(t, be_at(d + 40, 4), 0); /* port_xmit_wait */
	for (int i = 44; i < 192; i++)
		KTEST_EXPECT_EQ(t, d[i], 0);
}

static void pma_port_counters_saturate(struct ktest *t)
{
	struct sroce_pma_counters big = {
		.xmit_bytes = 4ULL * U32_MAX + 4,
		.rcv_bytes = 4ULL * U32_MAX + 3,
		.xmit_pkts = (u64)U32_MAX + 1,
		.rcv_pkts = U32_MAX,
		.rcv_errors = 0x10000,
		.xmit_discards = 0xffff,
	};
	struct sroce_pma_mad in, out;
	const u8 *d = (const u8 *)&out + 64;

	pma_req(&in, 0x01, 0x0012, 1);
	sroce_pma_answer(&in, &out, 1, &big);
	KTEST_EXPECT_EQ(t, be_at(d + 8, 2), 0xffff);
	KTEST_EXPECT_EQ(t, be_at(d + 14, 2), 0xffff);
	KTEST_EXPECT_EQ(t, be_at(d + 24, 4), U32_MAX);
	KTEST_EXPECT_EQ(t, be_at(d + 28, 4), U32_MAX);
	KTEST_EXPECT_EQ(t, be_at(d + 32, 4), U32_MAX);
	KTEST_EXPECT_EQ(t, be_at(d + 36, 4), U32_MAX);

	/* The extended counters do not saturate at 32 bits. */
	pma_req(&in, 0x01, 0x001d, 1);
	sroce_pma_answer(&in, &out, 1, &big);
	KTEST_EXPECT_EQ(t, be_at(d + 8, 8), (u64)U32_MAX + 1);
	KTEST_EXPECT_EQ(t, be_at(d + 16, 8), U32_MAX);
	KTEST_EXPECT_EQ(t, be_at(d + 24, 8), (u64)U32_MAX + 1);
	KTEST_EXPECT_EQ(t, be_at(d + 32, 8), U32_MAX);
}

static void pma_port_counters_ext(struct ktest *t)
{
	struct sroce_pma_mad in, out;
	const u8 *d = (const u8 *)&out + 64;

	pma_req(&in, 0x01, 0x001d, 1);
	memset(&out, 0x5a, sizeof(out));
	sroce_pma_answer(&in, &out, 1, &pma_c);
	KTEST_EXPECT_EQ(t, out.hdr.method, 0x81);
	KTEST_EXPECT_EQ(t, reply_status(&out), 0);
	KTEST_EXPECT_EQ(t, d[1], 1);
	KTEST_EXPECT_EQ(t, be_at(d + 2, 2), 0xf00f);
	KTEST_EXPECT_EQ(t, be_at(d + 8, 8), 1000); /* port_xmit_data */
	KTEST_EXPECT_EQ(t, be_at(d + 16, 8), 2000); /* port_rcv_data */
	KTEST_EXPECT_EQ(t, be_at(d + 24, 8), 11); /* port_xmit_packets */
	KTEST_EXPECT_EQ(t, be_at(d + 32, 8), 22); /* port_rcv_packets */
	/* Unicast / multicast: not claimed (NOIETF), left 0. */
	for (int i = 40; i < 192; i++)
		KTEST_EXPECT_EQ(t, d[i], 0);
}

static void pma_errors(struct ktest *t)
{
	struct sroce_pma_mad in, out;

	/* Wrong port: invalid field, data echoed as sent. */
	pma_req(&in, 0x01, 0x0012, 2);
	sroce_pma_answer(&in, &out, 1, &pma_c);
	KTEST_EXPECT_EQ(t, out.hdr.method, 0x81);
	KTEST_EXPECT_EQ(t, reply_status(&out), 0x001c);
	KTEST_EXPECT_EQ(t, out.data[1], 2);
	KTEST_EXPECT_EQ(t, be_at(out.data + 24, 4), 0);
	pma_req(&in, 0x01, 0x001d, 0xff);
	sroce_pma_answer(&in, &out, 1, &pma_c);
	KTEST_EXPECT_EQ(t, reply_status(&out), 0x001c);
	/* Set (clearing the counters) is not supported. */
	pma_req(&in, 0x02, 0x0012, 1);
	sroce_pma_answer(&in, &out, 1, &pma_c);
	KTEST_EXPECT_EQ(t, out.hdr.method, 0x81);
	KTEST_EXPECT_EQ(t, reply_status(&out), 0x000c);
	/* Unknown attribute: PortSamplesControl. */
	pma_req(&in, 0x01, 0x0010, 1);
	sroce_pma_answer(&in, &out, 1, &pma_c);
	KTEST_EXPECT_EQ(t, reply_status(&out), 0x000c);
	/* Class version 2: bad version, even for a known attribute. */
	pma_req(&in, 0x01, 0x0012, 1);
	in.hdr.class_version = 2;
	sroce_pma_answer(&in, &out, 1, &pma_c);
	KTEST_EXPECT_EQ(t, reply_status(&out), 0x0004);
	KTEST_EXPECT_EQ(t, be64_to_cpu(out.hdr.tid), 0x0102030405060708ULL);
}

static const struct ktest_case pma_cases[] = {
	KTEST_CASE(pma_takes_requests_only),
	KTEST_CASE(pma_class_port_info),
	KTEST_CASE(pma_port_counters),
	KTEST_CASE(pma_port_counters_saturate),
	KTEST_CASE(pma_port_counters_ext),
	KTEST_CASE(pma_errors),
};

KTEST_SUITE(pma);
