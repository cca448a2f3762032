// SPDX-License-Identifier: GPL-2.0
/*
 * icrc.c - compute and check the RoCE v2 ICRC without linearising.
 *
 * Only the IP + UDP + BTH prefix needs masking, so begin() copies that
 * prefix (at most SROCE_ICRC_MAX_PREFIX bytes) to the stack, masks the
 * variant fields and hashes it; everything after the BTH is hashed in
 * place by sroce_icrc_update(), piece by piece.
 */
#include "icrc.h"
#include "hdr.h"

#define IPV4_MIN_HLEN 20
#define IPV6_HLEN 40
#define UDP_HLEN 8
#define IPPROTO_UDP_NR 17

static_assert(SROCE_ICRC_MAX_PREFIX == 15 * 4 + UDP_HLEN + SROCE_BTH_LEN,
	      "prefix buffer holds the longest IPv4 header");

/*
 * Length of the IP header at @ip (version 4 or 6 carrying UDP directly),
 * or 0 if it is neither or does not fit in @len.
 */
static size_t sroce_icrc_iphlen(const u8 *ip, size_t len)
{
	size_t hlen;

	if (unlikely(len < 1))
		return 0;
	switch (ip[0] >> 4) {
	case 4:
		hlen = (ip[0] & 0x0f) * 4;
		if (unlikely(hlen < IPV4_MIN_HLEN || len < hlen ||
			     ip[9] != IPPROTO_UDP_NR))
			return 0;
		return hlen;
	case 6:
		if (unlikely(len < IPV6_HLEN || ip[6] != IPPROTO_UDP_NR))
			return 0;
		return IPV6_HLEN;
	default:
		return 0;
	}
}

/*
 * Replace the variant fields of the prefix in @buf by all-ones.  The IP
 * version decides which: an IPv4 header with 20 bytes of options is as
 * long as an IPv6 one.
 */
static void sroce_icrc_mask(u8 *buf, size_t iphlen)
{
	u8 *udp = buf + iphlen;
	u8 *bth = udp + UDP_HLEN;

	if (buf[0] >> 4 == 6) {
		buf[0] |= 0x0f; /* traffic class, high nibble */
		memset(buf + 1, 0xff, 3); /* TC low nibble, flow label */
		buf[7] = 0xff; /* hop limit */
	} else {
		buf[1] = 0xff; /* TOS: DSCP and ECN */
		buf[8] = 0xff; /* TTL */
		buf[10] = 0xff; /* header checksum */
		buf[11] = 0xff;
	}
	udp[6] = 0xff; /* UDP checksum */
	udp[7] = 0xff;
	bth[4] = 0xff; /* FECN, BECN, resv6a */
}

/* Take @less from a 16-bit big-endian length at @p (INT: int.h). */
static void sroce_icrc_len_less(u8 *p, u32 less)
{
	u16 v = (u16)((p[0] << 8) | p[1]) - (u16)less;

	p[0] = v >> 8;
	p[1] = v & 0xff;
}

/**
 * sroce_icrc_begin_less() - sroce_icrc_begin() of a packet that carries
 * @less bytes the ICRC does not cover (an INT block, int.h)
 * @ic: state to initialise
 * @iph: first byte of the IP header
 * @len: bytes readable at @iph (at least the IP, UDP and BT headers)
 * @less: bytes taken off the IPv4 total length (IPv6 payload length) and
 *	the UDP length before they are hashed; the caller skips the bytes
 *
 * Return: as sroce_icrc_begin().
 */
int sroce_icrc_begin_less(struct sroce_icrc *ic, const void *iph, size_t len,
			  u32 less)
{
	static const u8 lrh_ones[8] = { 0xff, 0xff, 0xff, 0xff,
					0xff, 0xff, 0xff, 0xff };
	u8 buf[SROCE_ICRC_MAX_PREFIX];
	size_t iphlen = sroce_icrc_iphlen(iph, len);
	size_t n = iphlen + UDP_HLEN + SROCE_BTH_LEN;

	if (unlikely(!iphlen || len < n))
		return -EINVAL;
	memcpy(buf, iph, n);
	if (less) {
		sroce_icrc_len_less(buf + (buf[0] >> 4 == 6 ? 4 : 2), less);
		sroce_icrc_len_less(buf + iphlen + 4, less);
	}
	sroce_icrc_mask(buf, iphlen);
	ic->crc = sroce_crc32_le(~0U, lrh_ones, sizeof(lrh_ones));
	ic->crc = sroce_crc32_le(ic->crc, buf, n);
	return n;
}

/**
 * sroce_icrc_begin() - start an ICRC over the IP, UDP and BT headers
 * @ic: state to initialise
 * @iph: first byte of the IP header
 * @len: bytes readable at @iph (at least the IP, UDP and BT headers)
 *
 * Return: the number of bytes consumed from @iph (IP + UDP + BTH), from
 * where the caller continues with sroce_icrc_update(); or -EINVAL if @iph
 * is not an IPv4/IPv6 header followed by UDP and a BTH within @len.
 */
int sroce_icrc_begin(struct sroce_icrc *ic, const void *iph, size_t len)
{
	return sroce_icrc_begin_less(ic, iph, len, 0);
}

/**
 * sroce_icrc_compute_less() - ICRC of a contiguous packet that carries
 * @skip bytes at @off the ICRC does not cover (an INT block)
 * @iph: first byte of the IP header
 * @len: bytes from the IP header through the pad, without the ICRC
 * @off: offset of the uncovered bytes from @iph, after the BTH
 * @skip: their number
 * @icrc: where to store the ICRC as it goes on the wire
 *
 * Return: 0, or -EINVAL if the headers do not parse within @len or the
 * uncovered bytes do not lie after the BTH within @len.
 */
int sroce_icrc_compute_less(const void *iph, size_t len, size_t off,
			    size_t skip, __le32 *icrc)
{
	const u8 *b = iph;
	struct sroce_icrc ic;
	int n = sroce_icrc_begin_less(&ic, iph, len, (u32)skip);

	if (unlikely(n < 0))
		return n;
	if (unlikely(off < (size_t)n || off > len || skip > len - off))
		return -EINVAL;
	sroce_icrc_update(&ic, b + n, off - n);
	sroce_icrc_update(&ic, b + off + skip, len - off - skip);
	*icrc = sroce_icrc_final(&ic);
	return 0;
}

/**
 * sroce_icrc_compute() - ICRC of a contiguous RoCE v2 packet
 * @iph: first byte of the IP header
 * @len: bytes from the IP header through the pad, without the ICRC
 * @icrc: where to store the ICRC as it goes on the wire
 *
 * Return: 0, or -EINVAL if the headers do not parse within @len.
 */
int sroce_icrc_compute(const void *iph, size_t len, __le32 *icrc)
{
	struct sroce_icrc ic;
	int n = sroce_icrc_begin(&ic, iph, len);

	if (unlikely(n < 0))
		return n;
	sroce_icrc_update(&ic, (const u8 *)iph + n, len - n);
	*icrc = sroce_icrc_final(&ic);
	return 0;
}

/**
 * sroce_icrc_check() - verify the ICRC at the end of a contiguous packet
 * @iph: first byte of the IP header
 * @len: bytes from the IP header through the ICRC
 *
 * Return: 0 if it matches, -EBADMSG if not, -EINVAL if the packet does not
 * parse.
 */
int sroce_icrc_check(const void *iph, size_t len)
{
	__le32 want, got;
	int err;

	if (unlikely(len < SROCE_ICRC_LEN))
		return -EINVAL;
	err = sroce_icrc_compute(iph, len - SROCE_ICRC_LEN, &want);
	if (unlikely(err))
		return err;
	memcpy(&got, (const u8 *)iph + len - SROCE_ICRC_LEN, sizeof(got));
	return want == got ? 0 : -EBADMSG;
}
