/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vec_ud.h - the first hand-made ICRC vector (a UD SEND of "hello",
 * Documentation/testing.rst), built with the codecs, for the tests that
 * use it (test_icrc.c, and test_int.c with an INT block inserted).
 */
#ifndef SROCE_TEST_VEC_UD_H
#define SROCE_TEST_VEC_UD_H

#include <string.h>

#include "hdr.h"

/* Its ICRC, which an INT block (left out of it) does not change. */
static const u8 vec_ud_icrc[4] = { 0x0c, 0x50, 0x4d, 0x84 };

/*
 * Write the vector into @pkt (60 + @blen bytes, zeroed): IPv4, UDP, BTH,
 * DETH, then @blen bytes of @block, then "hello" and its pad; the IP and
 * UDP lengths include the block.  The ICRC's 4 bytes are left to the test.
 */
static inline void vec_ud_build(u8 *pkt, const void *block, u32 blen)
{
	static const u8 ip_udp[28] = {
		0x45, 0x02, 0x00, 0x3c, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11,
		0x99, 0x27, 0xc0, 0xa8, 0x07, 0x01, 0xc0, 0xa8, 0x07, 0x02,
		0xc1, 0x23, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00,
	};
	struct sroce_bth *bth = (void *)(pkt + 28);

	memcpy(pkt, ip_udp, sizeof(ip_udp));
	pkt[3] += blen; /* IP total length */
	pkt[25] += blen; /* UDP length */
	sroce_bth_set_opcode(bth, 0x64);
	sroce_bth_set_se(bth, true);
	sroce_bth_set_padcnt(bth, 3);
	sroce_bth_set_pkey(bth, SROCE_DEFAULT_PKEY);
	sroce_bth_set_destqp(bth, 0x456);
	sroce_bth_set_psn(bth, 0x10);
	sroce_deth_set_qkey((void *)(pkt + 40), 0x11111111);
	sroce_deth_set_srcqp((void *)(pkt + 40), 0x123);
	if (blen)
		memcpy(pkt + 48, block, blen);
	memcpy(pkt + 48 + blen, "hello", 5);
}

#endif
