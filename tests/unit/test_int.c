// SPDX-License-Identifier: GPL-2.0
/*
 * test_int.c - the INT block of HPCC (kernel/proto/int.[ch]): the BTH
 * marker bits, the byte layout written out by hand, parse limits, the
 * decode/encode round trip (records newest first on the wire, in path
 * order in struct sroce_cc_int), and the ICRC of a packet with a block:
 * that of the same packet without it; what a response acknowledges
 * (HPCC's ack.seq).
 */
#include "ktest.h"
#include "hdr.h"
#include "icrc.h"
#include "int.h"
#include "vec_ud.h"

static void int_bth_bits(struct ktest *t)
{
	struct sroce_bth bth;

	memset(&bth, 0xa5, sizeof(bth));
	sroce_bth_set_int(&bth, false);
	sroce_bth_set_int_req(&bth, false);
	/* 0xa5 = 1010 0101: bits 5 and 4 of the FECN/BECN byte cleared */
	KTEST_EXPECT_EQ(t, ((u8 *)&bth)[4], 0x85);
	KTEST_EXPECT(t, !sroce_bth_int(&bth) && !sroce_bth_int_req(&bth));
	sroce_bth_set_int(&bth, true);
	KTEST_EXPECT_EQ(t, ((u8 *)&bth)[4], 0x95);
	sroce_bth_set_int_req(&bth, true);
	KTEST_EXPECT_EQ(t, ((u8 *)&bth)[4], 0xb5);
	KTEST_EXPECT(t, sroce_bth_int(&bth) && sroce_bth_int_req(&bth));
	/* the neighbours stay */
	KTEST_EXPECT(t, sroce_bth_fecn(&bth) && !sroce_bth_becn(&bth));
	KTEST_EXPECT_EQ(t, sroce_bth_destqp(&bth), 0xa5a5a5);
	KTEST_EXPECT_EQ(t, sroce_bth_opcode(&bth), 0xa5);
	KTEST_EXPECT_EQ(t, sroce_bth_psn(&bth), 0xa5a5a5);
}

/* A block of two records as a switch pair would leave it, by hand. */
static const u8 two_hops[36] = {
	0x11, 0x02, 0x00, 0x00, /* v1 collect, 2 records */
	/* the second port (newest first) */
	0x00, 0x00, 0x10, 0x00, /* qlen 4096 */
	0x00, 0x01, 0x00, 0x00, /* tx_bytes 65536 */
	0x00, 0x00, 0x03, 0xe8, /* ts 1000 ns */
	0x00, 0x00, 0x27, 0x10, /* 10000 Mb/s */
	/* the first port */
	0x00, 0x00, 0x00, 0x00, /* qlen 0 */
	0xff, 0xff, 0xff, 0xff, /* tx_bytes 2^32 - 1 */
	0x80, 0x00, 0x00, 0x01, /* ts */
	0x00, 0x01, 0x86, 0xa0, /* 100000 Mb/s */
};

static void int_decode_by_hand(struct ktest *t)
{
	struct sroce_cc_int in;
	u8 buf[SROCE_INT_MAX_LEN];

	KTEST_EXPECT_SEQ(t,
			 sroce_int_parse(two_hops, sizeof(two_hops),
					 SROCE_INT_COLLECT),
			 36);
	sroce_int_decode(two_hops, &in);
	KTEST_EXPECT_EQ(t, in.nhops, 2);
	KTEST_EXPECT_EQ(t, in.hop[0].qlen, 0);
	KTEST_EXPECT_EQ(t, in.hop[0].tx_bytes, 0xffffffffULL);
	KTEST_EXPECT_EQ(t, in.hop[0].ts_ns, 0x80000001ULL);
	KTEST_EXPECT_EQ(t, in.hop[0].rate, 100000000ULL); /* kbit/s */
	KTEST_EXPECT_EQ(t, in.hop[1].qlen, 4096);
	KTEST_EXPECT_EQ(t, in.hop[1].tx_bytes, 65536);
	KTEST_EXPECT_EQ(t, in.hop[1].ts_ns, 1000);
	KTEST_EXPECT_EQ(t, in.hop[1].rate, 10000000ULL);
	/* and back, as an echo: only the type differs */
	KTEST_EXPECT_EQ(t, sroce_int_encode(buf, SROCE_INT_ECHO, &in), 36);
	KTEST_EXPECT_EQ(t, buf[0], 0x12);
	KTEST_EXPECT(t, !memcmp(buf + 1, two_hops + 1, 35));
}

static void int_parse_limits(struct ktest *t)
{
	u8 b[SROCE_INT_MAX_LEN + 16] = { 0x11, 0 };
	unsigned int n;

	KTEST_EXPECT_SEQ(t, sroce_int_parse(b, 4, SROCE_INT_COLLECT), 4);
	KTEST_EXPECT_SEQ(t, sroce_int_parse(b, 3, SROCE_INT_COLLECT), -EBADMSG);
	KTEST_EXPECT_SEQ(t, sroce_int_parse(b, 4, SROCE_INT_ECHO), -EBADMSG);
	for (n = 1; n <= 6; n++) {
		b[1] = n;
		KTEST_EXPECT_SEQ(
			t, sroce_int_parse(b, sizeof(b), SROCE_INT_COLLECT),
			n <= 5 ? (int)(4 + 16 * n) : -EBADMSG);
		/* one byte short */
		KTEST_EXPECT_SEQ(t,
				 sroce_int_parse(b, 4 + 16 * n - 1,
						 SROCE_INT_COLLECT),
				 -EBADMSG);
	}
	b[1] = 1;
	b[0] = 0x21; /* version 2 */
	KTEST_EXPECT_SEQ(t, sroce_int_parse(b, sizeof(b), SROCE_INT_COLLECT),
			 -EBADMSG);
	b[0] = 0x11;
	b[3] = 1; /* reserved */
	KTEST_EXPECT_SEQ(t, sroce_int_parse(b, sizeof(b), SROCE_INT_COLLECT),
			 -EBADMSG);
	b[3] = 0;
	b[0] = 0x13; /* unknown type */
	KTEST_EXPECT_SEQ(t, sroce_int_parse(b, sizeof(b), SROCE_INT_COLLECT),
			 -EBADMSG);
}

static void int_round_trip(struct ktest *t)
{
	struct sroce_cc_int in = { 0 }, out;
	u8 buf[SROCE_INT_MAX_LEN];
	unsigned int j;

	in.nhops = SROCE_CC_INT_MAX_HOPS;
	for (j = 0; j < in.nhops; j++) {
		in.hop[j].qlen = 1000 * j + 7;
		in.hop[j].tx_bytes = 0x100000000ULL * j + 0x1234 * j;
		in.hop[j].ts_ns = 0x1ffffffffULL + j;
		in.hop[j].rate = 25000000ULL * (j + 1);
	}
	KTEST_EXPECT_EQ(t, sroce_int_encode(buf, SROCE_INT_ECHO, &in),
			SROCE_INT_MAX_LEN);
	KTEST_EXPECT_SEQ(t, sroce_int_parse(buf, sizeof(buf), SROCE_INT_ECHO),
			 SROCE_INT_MAX_LEN);
	sroce_int_decode(buf, &out);
	KTEST_EXPECT_EQ(t, out.nhops, in.nhops);
	for (j = 0; j < in.nhops; j++) {
		KTEST_EXPECT_EQ(t, out.hop[j].qlen, in.hop[j].qlen);
		/* 32 wire bits */
		KTEST_EXPECT_EQ(t, out.hop[j].tx_bytes,
				in.hop[j].tx_bytes & 0xffffffffULL);
		KTEST_EXPECT_EQ(t, out.hop[j].ts_ns,
				in.hop[j].ts_ns & 0xffffffffULL);
		KTEST_EXPECT_EQ(t, out.hop[j].rate, in.hop[j].rate);
	}
	/* the first port's record is the last on the wire */
	KTEST_EXPECT_EQ(t, buf[4 + 4 * 16 + 3], 7);
	/* more hops than fit: the first five; speed saturates */
	in.nhops = 9;
	in.hop[0].rate = ~0ULL;
	KTEST_EXPECT_EQ(t, sroce_int_encode(buf, SROCE_INT_COLLECT, &in),
			SROCE_INT_MAX_LEN);
	sroce_int_decode(buf, &out);
	KTEST_EXPECT_EQ(t, out.hop[0].rate, 0xffffffffULL * 1000);
}

/*
 * The ICRC of a packet with a block is that of the packet without it:
 * the vector of test_icrc.c (UD SEND, "hello") with a block inserted
 * after the DETH and the IP and UDP lengths grown by it.
 */
static void int_icrc_uncovered(struct ktest *t)
{
	u8 pkt[60 + 36] = { 0 };
	__le32 icrc;

	vec_ud_build(pkt, two_hops, sizeof(two_hops));
	/* masked: no effect on the ICRC */
	sroce_bth_set_int((void *)(pkt + 28), true);
	KTEST_EXPECT_SEQ(t, sroce_icrc_compute_less(pkt, 92, 48, 36, &icrc), 0);
	KTEST_EXPECT(t, !memcmp(&icrc, vec_ud_icrc, 4));
	/* a switch's record changes nothing */
	pkt[48 + 10] ^= 0xff;
	KTEST_EXPECT_SEQ(t, sroce_icrc_compute_less(pkt, 92, 48, 36, &icrc), 0);
	KTEST_EXPECT(t, !memcmp(&icrc, vec_ud_icrc, 4));
	/* the payload does */
	pkt[48 + 36] ^= 1;
	KTEST_EXPECT_SEQ(t, sroce_icrc_compute_less(pkt, 92, 48, 36, &icrc), 0);
	KTEST_EXPECT(t, memcmp(&icrc, vec_ud_icrc, 4));
	/* the block must lie after the BTH and within the packet */
	KTEST_EXPECT_SEQ(t, sroce_icrc_compute_less(pkt, 92, 30, 4, &icrc),
			 -EINVAL);
	KTEST_EXPECT_SEQ(t, sroce_icrc_compute_less(pkt, 92, 80, 36, &icrc),
			 -EINVAL);
}

/*
 * HPCC's ack.seq of a response: an ACK acknowledges its PSN, a NAK of any
 * kind (sequence error, RNR, remote errors) only the PSNs before it.
 */
static void int_ack_seq(struct ktest *t)
{
	u8 ack = sroce_aeth_syn_ack(SROCE_AETH_CREDITS_INVALID);

	KTEST_EXPECT_EQ(t, sroce_int_seq(5), 5ULL << 40);
	KTEST_EXPECT_EQ(t, sroce_int_seq(0x1ffffff), 0xffffffULL << 40);
	KTEST_EXPECT_EQ(t, sroce_int_ack_seq(5, ack), 6ULL << 40);
	KTEST_EXPECT_EQ(t, sroce_int_ack_seq(0xffffff, ack), 0);
	/* no AETH (a READ middle) passes 0, an ACK's syndrome */
	KTEST_EXPECT_EQ(t, sroce_int_ack_seq(5, 0), 6ULL << 40);
	KTEST_EXPECT_EQ(
		t,
		sroce_int_ack_seq(5, sroce_aeth_syn_nak(SROCE_NAK_PSN_SEQ_ERR)),
		5ULL << 40);
	KTEST_EXPECT_EQ(t, sroce_int_ack_seq(5, sroce_aeth_syn_rnr(14)),
			5ULL << 40);
	KTEST_EXPECT_EQ(t,
			sroce_int_ack_seq(0, sroce_aeth_syn_nak(
						     SROCE_NAK_REM_ACCESS_ERR)),
			0);
	KTEST_EXPECT_EQ(
		t,
		sroce_int_ack_seq(5, sroce_aeth_syn_nak(SROCE_NAK_INVALID_REQ)),
		sroce_int_ack_seq(4, ack));
}

static const struct ktest_case int_cases[] = {
	KTEST_CASE(int_bth_bits),	KTEST_CASE(int_decode_by_hand),
	KTEST_CASE(int_parse_limits),	KTEST_CASE(int_round_trip),
	KTEST_CASE(int_icrc_uncovered), KTEST_CASE(int_ack_seq),
};

KTEST_SUITE(int);
