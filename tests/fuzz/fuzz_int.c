// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_int.c - the INT block of HPCC (kernel/proto/int.c) and the ICRC of
 * a packet that carries one (kernel/proto/icrc.c, *_less()).
 *
 * Input: 1 control byte (bit 0: the type to parse for; the rest: where
 * after the BTH to insert the block), a 1-byte length L of the block
 * bytes, L bytes handed to the parser as the block (its avail), then a
 * packet from the IP header through the pad (no ICRC).
 *
 * Invariants:
 *  - sroce_int_parse() accepts exactly: at least 4 bytes, first byte
 *    0x11 (collect) or 0x12 (echo) as asked, nhops <= 5, reserved 0,
 *    4 + 16 nhops <= avail; and then returns 4 + 16 nhops;
 *  - an accepted block decodes to nhops records and encodes back to the
 *    same bytes (no field is lost or widened on the way);
 *  - the ICRC of the packet with the accepted block inserted after its
 *    BTH (IP and UDP lengths grown by it) by sroce_icrc_compute_less()
 *    equals sroce_icrc_compute() of the packet, whatever the block holds.
 */
#include "fuzz.h"
#include "hdr.h"
#include "icrc.h"
#include "int.h"

#define MAX_PKT 2048

static int ref_parse(const u8 *b, size_t n, enum sroce_int_type type)
{
	if (n < 4 || b[0] != (0x10 | type) || b[1] > 5 || b[2] || b[3] ||
	    4 + 16 * (size_t)b[1] > n)
		return -EBADMSG;
	return 4 + 16 * b[1];
}

static size_t iphlen(const u8 *p)
{
	return p[0] >> 4 == 6 ? 40 : (size_t)(p[0] & 0x0f) * 4;
}

static void add16(u8 *p, u32 n)
{
	u16 v = (u16)((p[0] << 8) | p[1]) + (u16)n;

	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static void check_icrc(const u8 *blk, size_t blen, const u8 *pkt, size_t len,
		       size_t where)
{
	static u8 with[MAX_PKT + SROCE_INT_MAX_LEN];
	__le32 want, got;
	size_t hl, off;

	if (sroce_icrc_compute(pkt, len, &want))
		return;
	hl = iphlen(pkt);
	off = hl + 8 + SROCE_BTH_LEN;
	off += where % (len - off + 1);
	memcpy(with, pkt, off);
	memcpy(with + off, blk, blen);
	memcpy(with + off + blen, pkt + off, len - off);
	add16(with + (pkt[0] >> 4 == 6 ? 4 : 2), (u32)blen);
	add16(with + hl + 4, (u32)blen);
	FUZZ_ASSERT(
		!sroce_icrc_compute_less(with, len + blen, off, blen, &got));
	FUZZ_ASSERT(got == want);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	u8 blk[256], back[SROCE_INT_MAX_LEN];
	enum sroce_int_type type;
	struct sroce_cc_int t;
	struct fuzz_in in;
	size_t blen, plen;
	u8 ctrl;
	int n;

	fuzz_in_init(&in, data, size);
	ctrl = fuzz_u8(&in);
	blen = fuzz_u8(&in);
	memset(blk, 0, sizeof(blk));
	fuzz_bytes(&in, blk, blen);
	type = ctrl & 1 ? SROCE_INT_ECHO : SROCE_INT_COLLECT;

	n = sroce_int_parse(blk, blen, type);
	FUZZ_ASSERT(n == ref_parse(blk, blen, type));
	if (n < 0)
		return 0;
	sroce_int_decode(blk, &t);
	FUZZ_ASSERT(t.nhops == blk[1]);
	FUZZ_ASSERT(sroce_int_encode(back, type, &t) == (u32)n);
	FUZZ_ASSERT(!memcmp(back, blk, n));

	plen = in.n < MAX_PKT ? in.n : MAX_PKT;
	check_icrc(blk, n, in.p, plen, ctrl >> 1);
	return 0;
}
