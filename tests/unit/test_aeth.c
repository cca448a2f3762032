// SPDX-License-Identifier: GPL-2.0
/*
 * test_aeth.c - AETH syndromes and the credit / RNR timer tables against
 * the values of IBA 9.7.5.1 Tables 43-45, written out by hand.
 */
#include "ktest.h"
#include "hdr.h"

static void aeth_syndrome_bytes(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, sroce_aeth_syn_ack(0), 0x00);
	KTEST_EXPECT_EQ(t, sroce_aeth_syn_ack(31), 0x1f);
	KTEST_EXPECT_EQ(t, sroce_aeth_syn_ack(0xff), 0x1f);
	KTEST_EXPECT_EQ(t, sroce_aeth_syn_rnr(0), 0x20);
	KTEST_EXPECT_EQ(t, sroce_aeth_syn_rnr(14), 0x2e);
	KTEST_EXPECT_EQ(t, sroce_aeth_syn_rnr(31), 0x3f);
	KTEST_EXPECT_EQ(t, sroce_aeth_syn_nak(SROCE_NAK_PSN_SEQ_ERR), 0x60);
	KTEST_EXPECT_EQ(t, sroce_aeth_syn_nak(SROCE_NAK_INVALID_REQ), 0x61);
	KTEST_EXPECT_EQ(t, sroce_aeth_syn_nak(SROCE_NAK_REM_ACCESS_ERR), 0x62);
	KTEST_EXPECT_EQ(t, sroce_aeth_syn_nak(SROCE_NAK_REM_OP_ERR), 0x63);
	KTEST_EXPECT_EQ(t, sroce_aeth_syn_nak(SROCE_NAK_INVALID_RD_REQ), 0x64);
}

static void aeth_syndrome_decode(struct ktest *t)
{
	for (unsigned int s = 0; s < 256; s++) {
		enum sroce_aeth_type type = sroce_aeth_syn_type(s);
		u8 val = sroce_aeth_syn_value(s);
		bool want_valid;

		KTEST_EXPECT_EQ(t, type, (s >> 5) & 3);
		KTEST_EXPECT_EQ(t, val, s & 0x1f);
		KTEST_EXPECT_EQ(t, sroce_aeth_syn(type, val), s & 0x7f);
		/* Valid: bit 7 clear; ACK or RNR any value; NAK codes 0-4. */
		want_valid = s < 0x40 || (s >= 0x60 && s <= 0x64);
		if (sroce_aeth_syn_valid(s) != want_valid)
			ktest_fail(t, __FILE__, __LINE__,
				   "syndrome 0x%02x valid %d, want %d", s,
				   sroce_aeth_syn_valid(s), want_valid);
	}
}

static void aeth_credit_table(struct ktest *t)
{
	static const u32 want[31] = {
		0,    1,    2,	  3,	 4,	6,     8,     12,
		16,   24,   32,	  48,	 64,	96,    128,   192,
		256,  384,  512,  768,	 1024,	1536,  2048,  3072,
		4096, 6144, 8192, 12288, 16384, 24576, 32768,
	};

	for (u8 c = 0; c < 31; c++)
		KTEST_EXPECT_EQ(t, sroce_aeth_credits(c), want[c]);
	KTEST_EXPECT_EQ(t, sroce_aeth_credits(31), SROCE_CREDITS_UNLIMITED);
	KTEST_EXPECT_EQ(t, sroce_aeth_credits(0x20 | 5), 6);

	/* Encoding rounds down: never advertise more than is posted. */
	KTEST_EXPECT_EQ(t, sroce_aeth_credit_code(0), 0);
	KTEST_EXPECT_EQ(t, sroce_aeth_credit_code(1), 1);
	KTEST_EXPECT_EQ(t, sroce_aeth_credit_code(5), 4);
	KTEST_EXPECT_EQ(t, sroce_aeth_credit_code(6), 5);
	KTEST_EXPECT_EQ(t, sroce_aeth_credit_code(7), 5);
	KTEST_EXPECT_EQ(t, sroce_aeth_credit_code(32767), 29);
	KTEST_EXPECT_EQ(t, sroce_aeth_credit_code(32768), 30);
	KTEST_EXPECT_EQ(t, sroce_aeth_credit_code(U32_MAX), 30);
	for (u32 n = 0; n < 40000; n += 7)
		KTEST_EXPECT(t, sroce_aeth_credits(sroce_aeth_credit_code(n)) <=
					n);
}

static void aeth_rnr_table(struct ktest *t)
{
	/* IBA Table 45, in microseconds. */
	static const u32 want[32] = {
		655360, 10,    20,    30,     40,     60,     80,     120,
		160,	240,   320,   480,    640,    960,    1280,   1920,
		2560,	3840,  5120,  7680,   10240,  15360,  20480,  30720,
		40960,	61440, 81920, 122880, 163840, 245760, 327680, 491520,
	};

	for (u8 c = 0; c < 32; c++)
		KTEST_EXPECT_EQ(t, sroce_rnr_timer_usecs(c), want[c]);
	KTEST_EXPECT_EQ(t, sroce_rnr_timer_usecs(0x20 | 14), 1280);

	KTEST_EXPECT_EQ(t, sroce_rnr_timer_code(0), 1);
	KTEST_EXPECT_EQ(t, sroce_rnr_timer_code(10), 1);
	KTEST_EXPECT_EQ(t, sroce_rnr_timer_code(11), 2);
	KTEST_EXPECT_EQ(t, sroce_rnr_timer_code(1280), 14);
	KTEST_EXPECT_EQ(t, sroce_rnr_timer_code(491520), 31);
	KTEST_EXPECT_EQ(t, sroce_rnr_timer_code(491521), 0);
	KTEST_EXPECT_EQ(t, sroce_rnr_timer_code(U32_MAX), 0);
}

static void aeth_msn_syndrome_independent(struct ktest *t)
{
	struct sroce_aeth a;

	a.smsn = cpu_to_be32(0);
	sroce_aeth_set_syndrome(&a, sroce_aeth_syn_nak(SROCE_NAK_REM_OP_ERR));
	sroce_aeth_set_msn(&a, 0xabcdef);
	KTEST_EXPECT_EQ(t, be32_to_cpu(a.smsn), 0x63abcdef);
	sroce_aeth_set_msn(&a, 0xffffffff);
	KTEST_EXPECT_EQ(t, sroce_aeth_syndrome(&a), 0x63);
}

static const struct ktest_case aeth_cases[] = {
	KTEST_CASE(aeth_syndrome_bytes),
	KTEST_CASE(aeth_syndrome_decode),
	KTEST_CASE(aeth_credit_table),
	KTEST_CASE(aeth_rnr_table),
	KTEST_CASE(aeth_msn_syndrome_independent),
};

KTEST_SUITE(aeth);
