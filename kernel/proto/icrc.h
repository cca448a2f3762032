/* SPDX-License-Identifier: GPL-2.0 */
/*
 * icrc.h - the RoCE v2 invariant CRC (IBA Annex A17).
 *
 * The ICRC is a CRC-32 (Ethernet polynomial, reflected) over 8 bytes of
 * 0xff standing in for IB's LRH, then the IP header, UDP header, BTH,
 * extension headers, payload and pad, with the fields routers may rewrite
 * replaced by all-ones first: IPv4 TOS, TTL and header checksum; IPv6
 * traffic class, flow label and hop limit; the UDP checksum; and the BTH
 * byte holding FECN, BECN and resv6a.  So a switch may set ECN CE or
 * decrement TTL without breaking it.  The result is inverted and goes on
 * the wire least significant byte first, like an Ethernet FCS.
 *
 * Incremental use, for packets in pieces (skb frags):
 *
 *	n = sroce_icrc_begin(&ic, iph, linear_len);	IP+UDP+BTH
 *	sroce_icrc_update(&ic, iph + n, ...);		the rest, in order
 *	sroce_icrc_update(&ic, frag, frag_len);
 *	icrc = sroce_icrc_final(&ic);
 */
#ifndef _SROCE_PROTO_ICRC_H
#define _SROCE_PROTO_ICRC_H

#include "env.h"

struct sroce_icrc {
	u32 crc; /* running CRC-32 register, not yet inverted */
};

/* Longest IP + UDP + BTH prefix begin() masks: IPv4 with 40 B of options. */
#define SROCE_ICRC_MAX_PREFIX (60 + 8 + 12)

int sroce_icrc_begin(struct sroce_icrc *ic, const void *iph, size_t len);
/*
 * An INT block (int.h) is not covered: the ICRC is that of the packet
 * without it.  begin_less() hashes the prefix with @less bytes taken off
 * the IP and UDP lengths (the caller then skips the block's bytes);
 * compute_less() does it all for a contiguous packet.
 */
int sroce_icrc_begin_less(struct sroce_icrc *ic, const void *iph, size_t len,
			  u32 less);
int sroce_icrc_compute_less(const void *iph, size_t len, size_t off,
			    size_t skip, __le32 *icrc);

static inline void sroce_icrc_update(struct sroce_icrc *ic, const void *p,
				     size_t len)
{
	ic->crc = sroce_crc32_le(ic->crc, p, len);
}

/* The ICRC as its 4 bytes appear on the wire. */
static inline __le32 sroce_icrc_final(const struct sroce_icrc *ic)
{
	return cpu_to_le32(~ic->crc);
}

int sroce_icrc_compute(const void *iph, size_t len, __le32 *icrc);
int sroce_icrc_check(const void *iph, size_t len);

#endif /* _SROCE_PROTO_ICRC_H */
