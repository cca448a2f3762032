// SPDX-License-Identifier: GPL-2.0
/*
 * test_opcode.c - the opcode table against expectations written by hand
 * from IBA 9.2-9.3: for every opcode, which headers follow the BTH, at
 * which offsets, and the total header length.  Everything else must be
 * invalid.
 */
#include "ktest.h"
#include "opcode.h"

#define NONE 0xff

struct expect {
	u8 op;
	const char *name;
	u8 hdr_len;
	/* offset from BTH, NONE when absent */
	u8 deth, reth, atmeth, aeth, atmack, immdt, ieth, cnp;
	bool payload;
	u32 pos; /* the one of FIRST/MIDDLE/LAST/ONLY, 0 for CNP */
};

#define F SROCE_OPF_FIRST
#define M SROCE_OPF_MIDDLE
#define L SROCE_OPF_LAST
#define O SROCE_OPF_ONLY
#define N NONE

/* clang-format off */
static const struct expect expected[] = {
	/* op    name                  len  deth reth atm aeth ack imm ieth cnp pay pos */
	{ 0x00, "RC_SEND_FIRST",        12, N, N,  N,  N,  N,  N,  N,  N, 1, F },
	{ 0x01, "RC_SEND_MIDDLE",       12, N, N,  N,  N,  N,  N,  N,  N, 1, M },
	{ 0x02, "RC_SEND_LAST",         12, N, N,  N,  N,  N,  N,  N,  N, 1, L },
	{ 0x03, "RC_SEND_LAST_IMM",     16, N, N,  N,  N,  N,  12, N,  N, 1, L },
	{ 0x04, "RC_SEND_ONLY",         12, N, N,  N,  N,  N,  N,  N,  N, 1, O },
	{ 0x05, "RC_SEND_ONLY_IMM",     16, N, N,  N,  N,  N,  12, N,  N, 1, O },
	{ 0x06, "RC_WRITE_FIRST",       28, N, 12, N,  N,  N,  N,  N,  N, 1, F },
	{ 0x07, "RC_WRITE_MIDDLE",      12, N, N,  N,  N,  N,  N,  N,  N, 1, M },
	{ 0x08, "RC_WRITE_LAST",        12, N, N,  N,  N,  N,  N,  N,  N, 1, L },
	{ 0x09, "RC_WRITE_LAST_IMM",    16, N, N,  N,  N,  N,  12, N,  N, 1, L },
	{ 0x0a, "RC_WRITE_ONLY",        28, N, 12, N,  N,  N,  N,  N,  N, 1, O },
	{ 0x0b, "RC_WRITE_ONLY_IMM",    32, N, 12, N,  N,  N,  28, N,  N, 1, O },
	{ 0x0c, "RC_READ_REQ",          28, N, 12, N,  N,  N,  N,  N,  N, 0, O },
	{ 0x0d, "RC_READ_RESP_FIRST",   16, N, N,  N,  12, N,  N,  N,  N, 1, F },
	{ 0x0e, "RC_READ_RESP_MIDDLE",  12, N, N,  N,  N,  N,  N,  N,  N, 1, M },
	{ 0x0f, "RC_READ_RESP_LAST",    16, N, N,  N,  12, N,  N,  N,  N, 1, L },
	{ 0x10, "RC_READ_RESP_ONLY",    16, N, N,  N,  12, N,  N,  N,  N, 1, O },
	{ 0x11, "RC_ACK",               16, N, N,  N,  12, N,  N,  N,  N, 0, O },
	{ 0x12, "RC_ATOMIC_ACK",        24, N, N,  N,  12, 16, N,  N,  N, 0, O },
	{ 0x13, "RC_CMP_SWAP",          40, N, N,  12, N,  N,  N,  N,  N, 0, O },
	{ 0x14, "RC_FETCH_ADD",         40, N, N,  12, N,  N,  N,  N,  N, 0, O },
	{ 0x16, "RC_SEND_LAST_INV",     16, N, N,  N,  N,  N,  N,  12, N, 1, L },
	{ 0x17, "RC_SEND_ONLY_INV",     16, N, N,  N,  N,  N,  N,  12, N, 1, O },
	{ 0x20, "UC_SEND_FIRST",        12, N, N,  N,  N,  N,  N,  N,  N, 1, F },
	{ 0x21, "UC_SEND_MIDDLE",       12, N, N,  N,  N,  N,  N,  N,  N, 1, M },
	{ 0x22, "UC_SEND_LAST",         12, N, N,  N,  N,  N,  N,  N,  N, 1, L },
	{ 0x23, "UC_SEND_LAST_IMM",     16, N, N,  N,  N,  N,  12, N,  N, 1, L },
	{ 0x24, "UC_SEND_ONLY",         12, N, N,  N,  N,  N,  N,  N,  N, 1, O },
	{ 0x25, "UC_SEND_ONLY_IMM",     16, N, N,  N,  N,  N,  12, N,  N, 1, O },
	{ 0x26, "UC_WRITE_FIRST",       28, N, 12, N,  N,  N,  N,  N,  N, 1, F },
	{ 0x27, "UC_WRITE_MIDDLE",      12, N, N,  N,  N,  N,  N,  N,  N, 1, M },
	{ 0x28, "UC_WRITE_LAST",        12, N, N,  N,  N,  N,  N,  N,  N, 1, L },
	{ 0x29, "UC_WRITE_LAST_IMM",    16, N, N,  N,  N,  N,  12, N,  N, 1, L },
	{ 0x2a, "UC_WRITE_ONLY",        28, N, 12, N,  N,  N,  N,  N,  N, 1, O },
	{ 0x2b, "UC_WRITE_ONLY_IMM",    32, N, 12, N,  N,  N,  28, N,  N, 1, O },
	{ 0x64, "UD_SEND_ONLY",         20, 12, N, N,  N,  N,  N,  N,  N, 1, O },
	{ 0x65, "UD_SEND_ONLY_IMM",     24, 12, N, N,  N,  N,  20, N,  N, 1, O },
	{ 0x81, "CNP",                  28, N, N,  N,  N,  N,  N,  N,  12, 0, 0 },
};

/* clang-format on */

static const struct expect *find_expect(unsigned int op)
{
	for (size_t i = 0; i < ARRAY_SIZE(expected); i++)
		if (expected[i].op == op)
			return &expected[i];
	return NULL;
}

static void check_off(struct ktest *t, const struct expect *e,
		      const struct sroce_opcode_info *oi, enum sroce_ext ext,
		      u8 want)
{
	bool has = sroce_opcode_has(oi, ext);
	unsigned int off = sroce_opcode_ext_off(oi, ext);
	bool want_has = want != NONE;

	if (has != want_has || (has && off != want) || (!has && off != 0))
		ktest_fail(t, __FILE__, __LINE__,
			   "%s ext %d: has %d off %u, want %s%u", e->name, ext,
			   has, off, want_has ? "" : "none ",
			   want_has ? want : 0);
}

static void opcode_offsets(struct ktest *t)
{
	for (size_t i = 0; i < ARRAY_SIZE(expected); i++) {
		const struct expect *e = &expected[i];
		const struct sroce_opcode_info *oi = sroce_opcode_info(e->op);

		if (!oi) {
			ktest_fail(t, __FILE__, __LINE__, "0x%02x missing",
				   e->op);
			continue;
		}
		KTEST_EXPECT(t, !strcmp(oi->name, e->name));
		KTEST_EXPECT_EQ(t, sroce_opcode_hdr_len(oi), e->hdr_len);
		check_off(t, e, oi, SROCE_EXT_DETH, e->deth);
		check_off(t, e, oi, SROCE_EXT_RETH, e->reth);
		check_off(t, e, oi, SROCE_EXT_ATMETH, e->atmeth);
		check_off(t, e, oi, SROCE_EXT_AETH, e->aeth);
		check_off(t, e, oi, SROCE_EXT_ATMACK, e->atmack);
		check_off(t, e, oi, SROCE_EXT_IMMDT, e->immdt);
		check_off(t, e, oi, SROCE_EXT_IETH, e->ieth);
		check_off(t, e, oi, SROCE_EXT_CNP, e->cnp);
		KTEST_EXPECT_EQ(t, !!(oi->mask & SROCE_HDR_PAYLOAD),
				e->payload);
		KTEST_EXPECT_EQ(t, oi->flags & (F | M | L | O), e->pos);
	}
}

/* Every opcode not listed above is invalid, including RD and 0x80. */
static void opcode_unknown_invalid(struct ktest *t)
{
	unsigned int nvalid = 0;

	for (unsigned int op = 0; op < 256; op++) {
		const struct sroce_opcode_info *oi = sroce_opcode_info(op);

		if (!!oi != !!find_expect(op))
			ktest_fail(t, __FILE__, __LINE__,
				   "opcode 0x%02x valid %d", op, !!oi);
		nvalid += !!oi;
	}
	KTEST_EXPECT_EQ(t, nvalid, ARRAY_SIZE(expected));
	KTEST_EXPECT(t, !sroce_opcode_info(0x15));
	KTEST_EXPECT(t, !sroce_opcode_info(0x40));
	KTEST_EXPECT(t, !sroce_opcode_info(0x80));
	KTEST_EXPECT(t, !sroce_opcode_info(0xff));
}

/* Flags that follow from others must agree, for every valid opcode. */
static void opcode_flags_consistent(struct ktest *t)
{
	for (size_t i = 0; i < ARRAY_SIZE(expected); i++) {
		const struct sroce_opcode_info *oi =
			sroce_opcode_info(expected[i].op);
		u32 f;

		if (!oi)
			continue;
		f = oi->flags;
		KTEST_EXPECT_EQ(t, !!(f & SROCE_OPF_START),
				!!(f & (SROCE_OPF_FIRST | SROCE_OPF_ONLY)));
		KTEST_EXPECT_EQ(t, !!(f & SROCE_OPF_END),
				!!(f & (SROCE_OPF_LAST | SROCE_OPF_ONLY)));
		if (f & SROCE_OPF_CNP) {
			KTEST_EXPECT(t,
				     !(f & (SROCE_OPF_REQ | SROCE_OPF_RESP)));
			continue;
		}
		/* Exactly one of request / response. */
		KTEST_EXPECT(t, !(f & SROCE_OPF_REQ) != !(f & SROCE_OPF_RESP));
		/* SE only on the packet that completes a receive. */
		if (f & SROCE_OPF_SE_OK) {
			KTEST_EXPECT(t, f & SROCE_OPF_END);
			KTEST_EXPECT(t, f & SROCE_OPF_COMP);
		}
		KTEST_EXPECT_EQ(t, !!(f & SROCE_OPF_IMM),
				sroce_opcode_has(oi, SROCE_EXT_IMMDT));
		KTEST_EXPECT_EQ(t, !!(f & SROCE_OPF_INV),
				sroce_opcode_has(oi, SROCE_EXT_IETH));
		/* Pure ACKs carry an AETH and no payload. */
		if (f & SROCE_OPF_ACK)
			KTEST_EXPECT(t,
				     sroce_opcode_has(oi, SROCE_EXT_AETH) &&
					     !(oi->mask & SROCE_HDR_PAYLOAD));
		/* UD carries a DETH, connected transports never do. */
		KTEST_EXPECT_EQ(t, sroce_opcode_has(oi, SROCE_EXT_DETH),
				sroce_opcode_transport(expected[i].op) ==
					SROCE_TRANSPORT_UD);
	}
	KTEST_EXPECT(t, sroce_opcode_info(0x0c)->flags & SROCE_OPF_NEEDS_RESP);
	KTEST_EXPECT(t, sroce_opcode_info(0x13)->flags & SROCE_OPF_NEEDS_RESP);
	KTEST_EXPECT(t,
		     !(sroce_opcode_info(0x04)->flags & SROCE_OPF_NEEDS_RESP));
	KTEST_EXPECT(t, sroce_opcode_info(0x0b)->flags & SROCE_OPF_RECV_WQE);
	KTEST_EXPECT(t, !(sroce_opcode_info(0x0a)->flags & SROCE_OPF_RECV_WQE));
	KTEST_EXPECT(t, !(sroce_opcode_info(0x08)->flags & SROCE_OPF_SE_OK));
	KTEST_EXPECT(t, sroce_opcode_info(0x09)->flags & SROCE_OPF_SE_OK);
}

static void opcode_payload_len(struct ktest *t)
{
	struct sroce_bth bth = { 0 };
	const struct sroce_opcode_info *send = sroce_opcode_info(0x04);
	const struct sroce_opcode_info *ack = sroce_opcode_info(0x11);

	/* BTH + 5 bytes + pad 3 + ICRC */
	sroce_bth_set_padcnt(&bth, 3);
	KTEST_EXPECT_SEQ(t, sroce_opcode_payload_len(send, &bth, 12 + 8 + 4),
			 5);
	KTEST_EXPECT_SEQ(t, sroce_opcode_payload_len(send, &bth, 12 + 3 + 4),
			 0);
	KTEST_EXPECT_SEQ(t, sroce_opcode_payload_len(send, &bth, 12 + 2 + 4),
			 -EINVAL);
	sroce_bth_set_padcnt(&bth, 0);
	KTEST_EXPECT_SEQ(t, sroce_opcode_payload_len(ack, &bth, 16 + 4), 0);
	KTEST_EXPECT_SEQ(t, sroce_opcode_payload_len(ack, &bth, 16 + 8),
			 -EINVAL);
	KTEST_EXPECT_SEQ(t, sroce_opcode_payload_len(ack, &bth, 15), -EINVAL);
}

/*
 * A length whose payload would not fit the int result is -EINVAL, not a
 * negative payload length of another value (found by tests/fuzz).
 */
static void opcode_payload_len_huge(struct ktest *t)
{
	struct sroce_bth bth = { 0 };
	const struct sroce_opcode_info *send = sroce_opcode_info(0x04);

	/* BTH + ICRC + INT_MAX bytes of payload still fit the result. */
	KTEST_EXPECT_SEQ(
		t, sroce_opcode_payload_len(send, &bth, 12 + 4 + 0x7fffffffU),
		0x7fffffff);
	KTEST_EXPECT_SEQ(
		t, sroce_opcode_payload_len(send, &bth, 12 + 4 + 0x80000000U),
		-EINVAL);
	KTEST_EXPECT_SEQ(t, sroce_opcode_payload_len(send, &bth, 0xb2b2b2b2U),
			 -EINVAL);
	/* Was -17: a negative "length" that is not an errno at all. */
	KTEST_EXPECT_SEQ(t, sroce_opcode_payload_len(send, &bth, U32_MAX),
			 -EINVAL);
}

/* sroce_opcode_ext() points at the header the offsets describe. */
static void opcode_ext_pointer(struct ktest *t)
{
	u8 pkt[64] = { 0 };
	const struct sroce_opcode_info *oi = sroce_opcode_info(0x0b);
	struct sroce_reth *reth;
	struct sroce_immdt *imm;

	reth = sroce_opcode_ext(oi, pkt, SROCE_EXT_RETH);
	imm = sroce_opcode_ext(oi, pkt, SROCE_EXT_IMMDT);
	KTEST_EXPECT_EQ(t, (u8 *)reth - pkt, 12);
	KTEST_EXPECT_EQ(t, (u8 *)imm - pkt, 28);
	sroce_reth_set_len(reth, 0x01020304);
	sroce_immdt_set_imm(imm, cpu_to_be32(0xcafef00d));
	KTEST_EXPECT_EQ(t, pkt[27], 0x04);
	KTEST_EXPECT_EQ(t, pkt[28], 0xca);
}

/* The CNP of wire.md: BTH 81 00 ff ff 40 00 00 d2 00 00 00 00 + 16 zeros. */
static void opcode_cnp_bytes(struct ktest *t)
{
	static const u8 want[SROCE_BTH_LEN + SROCE_CNP_LEN] = {
		0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x00, 0xd2,
	};
	u8 pkt[SROCE_BTH_LEN + SROCE_CNP_LEN];
	const struct sroce_opcode_info *oi;

	memset(pkt, 0x5a, sizeof(pkt));
	oi = sroce_opcode_info(SROCE_OP_CNP);
	KTEST_EXPECT(t, oi && (oi->flags & SROCE_OPF_CNP));
	if (!oi)
		return;
	sroce_cnp_init((struct sroce_bth *)pkt,
		       sroce_opcode_ext(oi, pkt, SROCE_EXT_CNP), 0xd2);
	KTEST_EXPECT(t, !memcmp(pkt, want, sizeof(want)));
	KTEST_EXPECT_EQ(t, sroce_opcode_hdr_len(oi), sizeof(want));
}

static const struct ktest_case opcode_cases[] = {
	KTEST_CASE(opcode_offsets),	     KTEST_CASE(opcode_unknown_invalid),
	KTEST_CASE(opcode_flags_consistent), KTEST_CASE(opcode_payload_len),
	KTEST_CASE(opcode_ext_pointer),	     KTEST_CASE(opcode_cnp_bytes),
	KTEST_CASE(opcode_payload_len_huge),
};

KTEST_SUITE(opcode);
