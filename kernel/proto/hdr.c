// SPDX-License-Identifier: GPL-2.0
/*
 * hdr.c - the AETH tables: credit counts and RNR timer values.
 *
 * The getters and setters of the headers are static inlines in hdr.h; this
 * file holds what is data: the two 5-bit code tables of IBA 9.7.5.1 and
 * their inverses.
 */
#include "hdr.h"

/*
 * Credit count encoding, IBA 9.7.5.1 Table 44: codes 0..30 stand for
 * receive WQE counts growing by factors of about sqrt(2); code 31 says the
 * responder does not use end-to-end flow control.
 */
static const u32 sroce_credit_table[31] = {
	[0] = 0,      [1] = 1,	   [2] = 2,	 [3] = 3,      [4] = 4,
	[5] = 6,      [6] = 8,	   [7] = 12,	 [8] = 16,     [9] = 24,
	[10] = 32,    [11] = 48,   [12] = 64,	 [13] = 96,    [14] = 128,
	[15] = 192,   [16] = 256,  [17] = 384,	 [18] = 512,   [19] = 768,
	[20] = 1024,  [21] = 1536, [22] = 2048,	 [23] = 3072,  [24] = 4096,
	[25] = 6144,  [26] = 8192, [27] = 12288, [28] = 16384, [29] = 24576,
	[30] = 32768,
};

/*
 * RNR NAK timer field, IBA 9.7.5.1 Table 45, in microseconds.  Code 0 is
 * the longest delay (655.36 ms); codes 1..31 grow from 0.01 ms to 491.52 ms.
 */
static const u32 sroce_rnr_table[32] = {
	[0] = 655360,  [1] = 10,      [2] = 20,	     [3] = 30,
	[4] = 40,      [5] = 60,      [6] = 80,	     [7] = 120,
	[8] = 160,     [9] = 240,     [10] = 320,    [11] = 480,
	[12] = 640,    [13] = 960,    [14] = 1280,   [15] = 1920,
	[16] = 2560,   [17] = 3840,   [18] = 5120,   [19] = 7680,
	[20] = 10240,  [21] = 15360,  [22] = 20480,  [23] = 30720,
	[24] = 40960,  [25] = 61440,  [26] = 81920,  [27] = 122880,
	[28] = 163840, [29] = 245760, [30] = 327680, [31] = 491520,
};

/**
 * sroce_aeth_syn_valid() - whether a received AETH syndrome is well formed
 * @syn: the syndrome byte
 *
 * The reserved bit must be clear, the type must not be the reserved one,
 * and a NAK must carry one of the codes of Table 43 (the others are
 * reserved).
 */
bool sroce_aeth_syn_valid(u8 syn)
{
	if (syn & SROCE_AETH_RESV_BIT)
		return false;
	switch (sroce_aeth_syn_type(syn)) {
	case SROCE_AETH_ACK:
	case SROCE_AETH_RNR_NAK:
		return true;
	case SROCE_AETH_NAK:
		return sroce_aeth_syn_value(syn) <= SROCE_NAK_INVALID_RD_REQ;
	default:
		return false;
	}
}

/**
 * sroce_aeth_credits() - receive WQEs a credit count code stands for
 * @code: 5-bit code from an ACK syndrome (higher bits are ignored)
 *
 * Return: the credit count, or SROCE_CREDITS_UNLIMITED for code 31.
 */
u32 sroce_aeth_credits(u8 code)
{
	code &= SROCE_AETH_VALUE_MASK;
	if (code == SROCE_AETH_CREDITS_INVALID)
		return SROCE_CREDITS_UNLIMITED;
	return sroce_credit_table[code];
}

/**
 * sroce_aeth_credit_code() - encode a number of available receive WQEs
 * @credits: receive WQEs posted and not yet consumed
 *
 * A responder must never advertise more credits than it has, so the count
 * is rounded down to the largest encodable value.
 *
 * Return: the 5-bit code, 0..30.
 */
u8 sroce_aeth_credit_code(u32 credits)
{
	unsigned int code = 0;

	while (code + 1 < ARRAY_SIZE(sroce_credit_table) &&
	       sroce_credit_table[code + 1] <= credits)
		code++;
	return code;
}

/**
 * sroce_rnr_timer_usecs() - delay an RNR NAK timer code asks for
 * @code: 5-bit code (higher bits are ignored)
 *
 * Return: the minimum delay before retrying, in microseconds.
 */
u32 sroce_rnr_timer_usecs(u8 code)
{
	return sroce_rnr_table[code & SROCE_AETH_VALUE_MASK];
}

/**
 * sroce_rnr_timer_code() - smallest RNR timer code whose delay covers @usecs
 * @usecs: wanted minimum delay in microseconds
 *
 * Return: the code of the shortest delay >= @usecs, or 0 (the longest,
 * 655.36 ms) when nothing shorter is long enough.
 */
u8 sroce_rnr_timer_code(u32 usecs)
{
	unsigned int code;

	for (code = 1; code < ARRAY_SIZE(sroce_rnr_table); code++)
		if (sroce_rnr_table[code] >= usecs)
			return code;
	return 0;
}
