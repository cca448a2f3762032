// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_aeth.c - the AETH of a received ACK (kernel/proto/hdr.[ch]): the
 * syndrome's decoding and validity, the credit count and RNR timer
 * tables and their inverses (IBA 9.7.5.1, Tables 43-45).
 *
 * Input: an AETH as on the wire (4 bytes), a credit count (4 bytes), an
 * RNR delay in microseconds (4 bytes), then two more codes (1 byte each).
 *
 * Invariants:
 *  - sroce_aeth_syn_valid() accepts exactly: reserved bit clear, type not
 *    the reserved one, a NAK code of Table 43 (0..4);
 *  - type and value decode and re-encode to the syndrome (bit 7 aside);
 *  - credit codes: 31 is "unlimited", 0..30 strictly increasing;
 *    sroce_aeth_credit_code(n) never advertises more than n and is the
 *    largest code that does not; code -> credits -> code is the identity;
 *  - RNR timer: codes 1..31 strictly increasing, code 0 the longest;
 *    sroce_rnr_timer_code(us) is the shortest delay of at least us, or 0
 *    when none of 1..31 is long enough; code -> usecs -> code identity;
 *  - only the low five bits of a code matter.
 */
#include "fuzz.h"
#include "hdr.h"

static void check_syndrome(u8 syn)
{
	enum sroce_aeth_type type = sroce_aeth_syn_type(syn);
	u8 value = sroce_aeth_syn_value(syn);
	bool valid = !(syn & 0x80) && ((syn >> 5) & 3) != 2 &&
		     (((syn >> 5) & 3) != 3 || (syn & 0x1f) <= 4);

	FUZZ_ASSERT(type == ((syn >> 5) & 3) && value == (syn & 0x1f));
	FUZZ_ASSERT(sroce_aeth_syn(type, value) == (syn & 0x7f));
	FUZZ_ASSERT(sroce_aeth_syn_valid(syn) == valid);
	if (type == SROCE_AETH_ACK)
		FUZZ_ASSERT(sroce_aeth_syn_ack(value) == (syn & 0x7f));
	if (type == SROCE_AETH_RNR_NAK)
		FUZZ_ASSERT(sroce_aeth_syn_rnr(value) == (syn & 0x7f));
	if (type == SROCE_AETH_NAK && value <= SROCE_NAK_INVALID_RD_REQ)
		FUZZ_ASSERT(sroce_aeth_syn_nak(value) == (syn & 0x7f));
}

static void check_credits(u32 n, u8 code)
{
	u8 c = sroce_aeth_credit_code(n);
	u8 k = code & 0x1f;

	FUZZ_ASSERT(c <= 30);
	FUZZ_ASSERT(sroce_aeth_credits(c) <= n); /* never over-advertise */
	if (c < 30)
		FUZZ_ASSERT(sroce_aeth_credits(c + 1) > n); /* the largest */
	FUZZ_ASSERT(sroce_aeth_credits(code) == sroce_aeth_credits(k));
	if (k == SROCE_AETH_CREDITS_INVALID) {
		FUZZ_ASSERT(sroce_aeth_credits(k) == SROCE_CREDITS_UNLIMITED);
		return;
	}
	FUZZ_ASSERT(sroce_aeth_credit_code(sroce_aeth_credits(k)) == k);
	if (k < 30)
		FUZZ_ASSERT(sroce_aeth_credits(k) < sroce_aeth_credits(k + 1));
}

static void check_rnr(u32 us, u8 code)
{
	u8 c = sroce_rnr_timer_code(us);
	u8 k = code & 0x1f;

	FUZZ_ASSERT(c <= 31);
	FUZZ_ASSERT(sroce_rnr_timer_usecs(code) == sroce_rnr_timer_usecs(k));
	if (c) {
		FUZZ_ASSERT(sroce_rnr_timer_usecs(c) >= us);
		if (c > 1)
			FUZZ_ASSERT(sroce_rnr_timer_usecs(c - 1) < us);
	} else {
		FUZZ_ASSERT(sroce_rnr_timer_usecs(31) < us);
	}
	if (k >= 1 && k < 31)
		FUZZ_ASSERT(sroce_rnr_timer_usecs(k) <
			    sroce_rnr_timer_usecs(k + 1));
	FUZZ_ASSERT(sroce_rnr_timer_usecs(0) > sroce_rnr_timer_usecs(31));
	if (k)
		FUZZ_ASSERT(sroce_rnr_timer_code(sroce_rnr_timer_usecs(k)) ==
			    k);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct sroce_aeth aeth, back = { 0 };
	struct fuzz_in in;
	u32 credits, us;
	u8 code1, code2;

	fuzz_in_init(&in, data, size);
	fuzz_bytes(&in, &aeth, sizeof(aeth));
	credits = fuzz_u32(&in);
	us = fuzz_u32(&in);
	code1 = fuzz_u8(&in);
	code2 = fuzz_u8(&in);

	check_syndrome(sroce_aeth_syndrome(&aeth));
	sroce_aeth_set_syndrome(&back, sroce_aeth_syndrome(&aeth));
	sroce_aeth_set_msn(&back, sroce_aeth_msn(&aeth));
	FUZZ_ASSERT(!memcmp(&back, &aeth, sizeof(aeth)));

	/* The code of an ACK's syndrome, and arbitrary ones. */
	check_credits(credits,
		      sroce_aeth_syn_value(sroce_aeth_syndrome(&aeth)));
	check_credits(credits, code1);
	check_rnr(us, sroce_aeth_syn_value(sroce_aeth_syndrome(&aeth)));
	check_rnr(us, code2);
	return 0;
}
