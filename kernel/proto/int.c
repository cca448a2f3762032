// SPDX-License-Identifier: GPL-2.0
/*
 * int.c - the INT block codec (int.h; Documentation/cc.rst, "INT on the
 * wire").  Records travel newest first; struct sroce_cc_int holds them in
 * path order, so both directions reverse them.
 */
#include "int.h"

#define SROCE_INT_KBPS_PER_MBPS 1000ULL

int sroce_int_parse(const void *p, size_t avail, enum sroce_int_type type)
{
	const struct sroce_int_hdr *h = p;
	u32 len;

	if (unlikely(avail < SROCE_INT_HDR_LEN))
		return -EBADMSG;
	if (unlikely(h->ver_type !=
			     sroce_int_ver_type(SROCE_INT_VERSION, type) ||
		     h->resv || h->nhops > SROCE_CC_INT_MAX_HOPS))
		return -EBADMSG;
	len = sroce_int_len(h->nhops);
	if (unlikely(len > avail))
		return -EBADMSG;
	return (int)len;
}

void sroce_int_decode(const void *p, struct sroce_cc_int *t)
{
	const struct sroce_int_hdr *h = p;
	const struct sroce_int_rec *r = (const void *)(h + 1);
	unsigned int n = h->nhops, j;

	if (n > SROCE_CC_INT_MAX_HOPS)
		n = SROCE_CC_INT_MAX_HOPS;
	memset(t, 0, sizeof(*t));
	t->nhops = (u8)n;
	for (j = 0; j < n; j++) {
		const struct sroce_int_rec *w = &r[n - 1 - j];
		struct sroce_cc_int_hop *hop = &t->hop[j];

		hop->qlen = be32_to_cpu(w->qlen);
		hop->tx_bytes = be32_to_cpu(w->tx_bytes);
		hop->ts_ns = be32_to_cpu(w->ts);
		hop->rate = be32_to_cpu(w->speed) * SROCE_INT_KBPS_PER_MBPS;
	}
}

u32 sroce_int_encode(void *buf, enum sroce_int_type type,
		     const struct sroce_cc_int *t)
{
	struct sroce_int_hdr *h = buf;
	struct sroce_int_rec *r = (void *)(h + 1);
	unsigned int n = t->nhops, j;

	if (n > SROCE_CC_INT_MAX_HOPS)
		n = SROCE_CC_INT_MAX_HOPS;
	h->ver_type = sroce_int_ver_type(SROCE_INT_VERSION, type);
	h->nhops = (u8)n;
	h->resv = 0;
	for (j = 0; j < n; j++) {
		const struct sroce_cc_int_hop *hop = &t->hop[j];
		struct sroce_int_rec *w = &r[n - 1 - j];
		u64 mbps = hop->rate / SROCE_INT_KBPS_PER_MBPS;

		w->qlen = cpu_to_be32(hop->qlen);
		w->tx_bytes = cpu_to_be32((u32)hop->tx_bytes);
		w->ts = cpu_to_be32((u32)hop->ts_ns);
		w->speed = cpu_to_be32(mbps > U32_MAX ? U32_MAX : (u32)mbps);
	}
	return sroce_int_len(n);
}
