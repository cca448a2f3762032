// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_icrc.c - the RoCE v2 ICRC (kernel/proto/icrc.c) and its masking of
 * the IPv4/IPv6, UDP and BTH fields that routers may rewrite.
 *
 * Input: 8 control bytes (where to split the packet for the incremental
 * API: 2; which unmasked byte to change and how: 2 + 1; values for the
 * masked fields: 3), then a packet from the IP header through the pad
 * (no ICRC), at most MAX_PKT bytes.
 *
 * Invariants:
 *  - sroce_icrc_compute() refuses (-EINVAL) exactly the inputs that are
 *    not IPv4 (IHL >= 5, protocol UDP, whole header present) or IPv6
 *    (next header UDP) followed by UDP and a BTH;
 *  - it equals an independent ICRC: this file's own masking and a
 *    bit-serial CRC-32 over 8 bytes of 0xff and the masked packet;
 *  - begin/update/final over any split equals the one-shot result;
 *  - the ICRC does not change when the masked fields change (IPv4 TOS,
 *    TTL, header checksum; IPv6 traffic class, flow label, hop limit;
 *    the UDP checksum; the BTH byte of FECN/BECN/resv6a);
 *  - it does change when any other byte after the first changes (a CRC
 *    detects every error burst of up to 32 bits);
 *  - sroce_icrc_check() accepts the packet with its ICRC appended and
 *    refuses (-EBADMSG) it with any ICRC bit flipped.
 */
#include "fuzz.h"
#include "hdr.h"
#include "icrc.h"

#define MAX_PKT 2048
#define CTRL_LEN 8

/* IP header length if the prefix parses as icrc.c must accept, else 0. */
static size_t ref_iphlen(const u8 *ip, size_t len)
{
	size_t hlen;

	if (len < 1)
		return 0;
	if (ip[0] >> 4 == 4) {
		hlen = (ip[0] & 0xf) * 4;
		if (hlen < 20 || len < hlen || ip[9] != 17)
			return 0;
	} else if (ip[0] >> 4 == 6) {
		hlen = 40;
		if (len < hlen || ip[6] != 17)
			return 0;
	} else {
		return 0;
	}
	return len >= hlen + 8 + SROCE_BTH_LEN ? hlen : 0;
}

/*
 * The masked bits of byte @i of a packet whose IP header (@v6 or not) is
 * @hlen bytes.  (An IPv4 header with options can be 40 bytes too.)
 */
static u8 ref_mask(bool v6, size_t hlen, size_t i)
{
	if (v6) {
		if (i == 0)
			return 0x0f; /* traffic class, high nibble */
		if (i >= 1 && i <= 3)
			return 0xff; /* TC low nibble, flow label */
		if (i == 7)
			return 0xff; /* hop limit */
	} else if (i == 1 || i == 8 || i == 10 || i == 11) {
		return 0xff; /* TOS, TTL, header checksum */
	}
	if (i == hlen + 6 || i == hlen + 7)
		return 0xff; /* UDP checksum */
	if (i == hlen + 8 + 4)
		return 0xff; /* BTH: FECN, BECN, resv6a */
	return 0;
}

static u32 crc_bits(u32 crc, const u8 *p, size_t len)
{
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320U & -(crc & 1));
	}
	return crc;
}

static u32 ref_icrc(const u8 *pkt, size_t len, size_t hlen)
{
	static const u8 lrh[8] = { 0xff, 0xff, 0xff, 0xff,
				   0xff, 0xff, 0xff, 0xff };
	u8 buf[MAX_PKT];

	memcpy(buf, pkt, len);
	for (size_t i = 0; i < hlen + 8 + SROCE_BTH_LEN; i++)
		buf[i] |= ref_mask(pkt[0] >> 4 == 6, hlen, i);
	return ~crc_bits(crc_bits(~0U, lrh, sizeof(lrh)), buf, len);
}

static __le32 icrc_of(const u8 *pkt, size_t len)
{
	__le32 icrc;

	FUZZ_ASSERT(sroce_icrc_compute(pkt, len, &icrc) == 0);
	return icrc;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	u8 pkt[MAX_PKT + SROCE_ICRC_LEN];
	struct sroce_icrc ic;
	struct fuzz_in in;
	u16 split, pos;
	u8 flip, val[3];
	size_t len, hlen, pre, lin;
	__le32 icrc, got;
	bool v6;
	int n;

	fuzz_in_init(&in, data, size);
	split = fuzz_u16(&in);
	pos = fuzz_u16(&in);
	flip = fuzz_u8(&in) | 1; /* a non-zero change */
	fuzz_bytes(&in, val, sizeof(val));
	len = in.n > MAX_PKT ? MAX_PKT : in.n;
	memcpy(pkt, in.p, len);

	hlen = ref_iphlen(pkt, len);
	n = sroce_icrc_compute(pkt, len, &icrc);
	if (!hlen) {
		FUZZ_ASSERT(n == -EINVAL);
		FUZZ_ASSERT(sroce_icrc_begin(&ic, pkt, len) == -EINVAL);
		return 0;
	}
	FUZZ_ASSERT(n == 0);
	pre = hlen + 8 + SROCE_BTH_LEN;
	v6 = pkt[0] >> 4 == 6;
	FUZZ_ASSERT(le32_to_cpu(icrc) == ref_icrc(pkt, len, hlen));

	/* Pieces: begin() over a "linear part" of any length >= prefix. */
	lin = pre + split % (len - pre + 1);
	FUZZ_ASSERT(sroce_icrc_begin(&ic, pkt, pre - 1) == -EINVAL);
	FUZZ_ASSERT(sroce_icrc_begin(&ic, pkt, lin) == (int)pre);
	{
		size_t mid = pre + (split >> 8) % (len - pre + 1);

		sroce_icrc_update(&ic, pkt + pre, mid - pre);
		sroce_icrc_update(&ic, pkt + mid, len - mid);
	}
	FUZZ_ASSERT(sroce_icrc_final(&ic) == icrc);

	/* Check: appended ICRC verifies; any flipped bit of it does not. */
	memcpy(pkt + len, &icrc, sizeof(icrc));
	FUZZ_ASSERT(sroce_icrc_check(pkt, len + SROCE_ICRC_LEN) == 0);
	pkt[len + (pos & 3)] ^= 1 << (flip & 7);
	FUZZ_ASSERT(sroce_icrc_check(pkt, len + SROCE_ICRC_LEN) == -EBADMSG);
	pkt[len + (pos & 3)] ^= 1 << (flip & 7);

	/* Masked fields: rewrite them all; the ICRC stays. */
	{
		u8 orig[SROCE_ICRC_MAX_PREFIX];

		memcpy(orig, pkt, pre);
		for (size_t i = 0; i < pre; i++) {
			u8 m = ref_mask(v6, hlen, i);

			pkt[i] = (pkt[i] & ~m) | ((val[i % 3] ^ (u8)i) & m);
		}
		got = icrc_of(pkt, len);
		FUZZ_ASSERT(got == icrc);
		memcpy(pkt, orig, pre);
	}

	/*
	 * An unmasked byte (not byte 0: version and IHL decide the layout):
	 * change only its unmasked bits; the ICRC must differ, or the
	 * packet no longer parse (a changed protocol number).
	 */
	{
		size_t i = 1 + pos % (len - 1);
		u8 m = ref_mask(v6, hlen, i);

		if (m != 0xff) {
			u8 c = flip & ~m;

			if (!c)
				c = ~m & -(u8)~m; /* the lowest unmasked bit */
			pkt[i] ^= c;
			if (ref_iphlen(pkt, len) == hlen) {
				got = icrc_of(pkt, len);
				FUZZ_ASSERT(got != icrc);
			} else {
				FUZZ_ASSERT(sroce_icrc_compute(
						    pkt, len, &got) == -EINVAL);
			}
			pkt[i] ^= c;
		}
	}
	return 0;
}
