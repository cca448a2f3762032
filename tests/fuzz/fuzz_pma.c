// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_pma.c - the Performance Management Agent (kernel/proto/pma.[ch]):
 * the MADs a remote peer sends to QP1, which kernel/mad.c hands to
 * sroce_pma_is_request() and then to sroce_pma_answer().
 *
 * Input: a MAD as on the wire (256 bytes), the port it arrived on (1
 * byte), then the device counters (transmitted and received bytes and
 * packets, receive errors, transmit discards: 8 bytes each).
 *
 * Invariants, checked on the raw bytes against an independent reading of
 * IBA 13.4 and 16.1 (so that a wrong struct layout cannot pass):
 *  - sroce_pma_is_request() takes exactly base version 1, class PerfMgmt,
 *    method Get or Set;
 *  - sroce_pma_answer() writes the 256-byte reply and nothing outside it,
 *    never writes its input, and its reply depends only on the request,
 *    the port and the counters (not on what the reply buffer held);
 *  - for a request: the reply is a GetResp echoing the header (TID,
 *    attribute, modifier) and the 40 reserved bytes; the status is bad
 *    version for a class version other than 1, else unsupported for a
 *    method other than Get or an attribute other than ClassPortInfo,
 *    PortCounters and PortCountersExtended, else invalid field for a
 *    PortSelect other than the port, else OK;
 *  - an error reply echoes the request's data; an OK one holds exactly
 *    the attribute: ClassPortInfo with EXT_WIDTH_NOIETF and the response
 *    time, PortCounters saturating at the width of each field (data in
 *    octets / 4), PortCountersExtended in 64 bits; everything else zero.
 */
#include "fuzz.h"
#include "pma.h"

#define MAD_LEN 256
#define DATA_OFF 64
/* Bytes on each side of the reply that must stay untouched. */
#define GUARD 64

/* The reply buffer, with guards that catch a write outside the MAD. */
struct pma_out {
	u8 before[GUARD];
	struct sroce_pma_mad mad;
	u8 after[GUARD];
};

static_assert(sizeof(struct pma_out) == 2 * GUARD + MAD_LEN);

static u64 be_at(const u8 *p, int bytes)
{
	u64 v = 0;

	for (int i = 0; i < bytes; i++)
		v = v << 8 | p[i];
	return v;
}

static void put_be(u8 *p, int bytes, u64 v)
{
	for (int i = bytes - 1; i >= 0; i--, v >>= 8)
		p[i] = (u8)v;
}

static u64 sat(u64 v, int bytes)
{
	u64 max = bytes == 8 ? U64_MAX : (1ULL << (8 * bytes)) - 1;

	return v > max ? max : v;
}

/* IBA 13.4.7 status of the answer to request @m on @port. */
static u16 ref_status(const u8 *m, u8 port)
{
	u16 attr = be_at(m + 16, 2);

	if (m[2] != 1)
		return 0x0004; /* bad class version */
	if (m[3] != 0x01)
		return 0x000c; /* method not supported */
	if (attr == 0x0001)
		return 0;
	if (attr != 0x0012 && attr != 0x001d)
		return 0x000c; /* attribute not supported */
	return m[DATA_OFF + 1] == port ? 0 : 0x001c; /* PortSelect */
}

/* The data of an OK reply to @attr, from request data @req. */
static void ref_data(u8 *d, u16 attr, const u8 *req,
		     const struct sroce_pma_counters *c)
{
	memset(d, 0, MAD_LEN - DATA_OFF);
	switch (attr) {
	case 0x0001: /* ClassPortInfo, IBA 13.4.8.1 */
		d[0] = 1; /* BaseVersion */
		d[1] = 1; /* ClassVersion */
		put_be(d + 2, 2, 1 << 10); /* CapabilityMask: NOIETF */
		put_be(d + 4, 4, 18); /* RespTimeValue */
		break;
	case 0x0012: /* PortCounters, IBA 16.1.3.5 */
		memcpy(d + 1, req + 1, 3); /* PortSelect, CounterSelect */
		put_be(d + 8, 2, sat(c->rcv_errors, 2));
		put_be(d + 14, 2, sat(c->xmit_discards, 2));
		put_be(d + 24, 4, sat(c->xmit_bytes / 4, 4));
		put_be(d + 28, 4, sat(c->rcv_bytes / 4, 4));
		put_be(d + 32, 4, sat(c->xmit_pkts, 4));
		put_be(d + 36, 4, sat(c->rcv_pkts, 4));
		break;
	case 0x001d: /* PortCountersExtended, IBA 16.1.4 */
		memcpy(d + 1, req + 1, 3);
		put_be(d + 8, 8, c->xmit_bytes / 4);
		put_be(d + 16, 8, c->rcv_bytes / 4);
		put_be(d + 24, 8, c->xmit_pkts);
		put_be(d + 32, 8, c->rcv_pkts);
		break;
	}
}

static void check_guards(const struct pma_out *o, u8 fill)
{
	for (int i = 0; i < GUARD; i++)
		FUZZ_ASSERT(o->before[i] == fill && o->after[i] == fill);
}

static void check_reply(const u8 *in, const u8 *out, u8 port,
			const struct sroce_pma_counters *c)
{
	u8 want[MAD_LEN - DATA_OFF];
	u16 status = ref_status(in, port);

	FUZZ_ASSERT(!memcmp(out, in, 3)); /* versions, class */
	FUZZ_ASSERT(out[3] == 0x81); /* GetResp */
	FUZZ_ASSERT(be_at(out + 4, 2) == status);
	/* ClassSpecific, TID, attribute, reserved, modifier, reserved. */
	FUZZ_ASSERT(!memcmp(out + 6, in + 6, DATA_OFF - 6));
	if (status) {
		FUZZ_ASSERT(!memcmp(out + DATA_OFF, in + DATA_OFF,
				    MAD_LEN - DATA_OFF));
		return;
	}
	ref_data(want, be_at(in + 16, 2), in + DATA_OFF, c);
	FUZZ_ASSERT(!memcmp(out + DATA_OFF, want, sizeof(want)));
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct sroce_pma_counters c;
	struct sroce_pma_mad *in;
	struct pma_out *o1, *o2;
	struct fuzz_in fin;
	u8 copy[MAD_LEN];
	bool req;
	u8 port;

	/* On the heap, exactly sized: AddressSanitizer sees any overrun. */
	in = malloc(sizeof(*in));
	o1 = malloc(sizeof(*o1));
	o2 = malloc(sizeof(*o2));
	FUZZ_ASSERT(in && o1 && o2);
	fuzz_in_init(&fin, data, size);
	fuzz_bytes(&fin, in, sizeof(*in));
	port = fuzz_u8(&fin);
	c.xmit_bytes = fuzz_u64(&fin);
	c.rcv_bytes = fuzz_u64(&fin);
	c.xmit_pkts = fuzz_u64(&fin);
	c.rcv_pkts = fuzz_u64(&fin);
	c.rcv_errors = fuzz_u64(&fin);
	c.xmit_discards = fuzz_u64(&fin);
	memcpy(copy, in, sizeof(copy));

	req = sroce_pma_is_request(in);
	FUZZ_ASSERT(req == (copy[0] == 1 && copy[1] == 0x04 &&
			    (copy[3] == 0x01 || copy[3] == 0x02)));

	/* Twice, into buffers holding different garbage. */
	memset(o1, 0xa5, sizeof(*o1));
	memset(o2, 0x5a, sizeof(*o2));
	sroce_pma_answer(in, &o1->mad, port, &c);
	sroce_pma_answer(in, &o2->mad, port, &c);
	FUZZ_ASSERT(!memcmp(in, copy, sizeof(copy)));
	check_guards(o1, 0xa5);
	check_guards(o2, 0x5a);
	FUZZ_ASSERT(!memcmp(&o1->mad, &o2->mad, sizeof(o1->mad)));

	/* kernel/mad.c answers requests only; the rest just must be safe. */
	if (req)
		check_reply(copy, (const u8 *)&o1->mad, port, &c);
	free(in);
	free(o1);
	free(o2);
	return 0;
}
