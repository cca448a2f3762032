// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_opcode.c - the opcode table and the payload length of a received
 * packet (kernel/proto/opcode.c), parsed as sroce_recv_parse() does.
 *
 * Input: a packet from the BTH through the ICRC, the input's size
 * (libFuzzer's copy is exact-size: AddressSanitizer sees any read past it).  Its last four
 * bytes also serve as a second, arbitrary length for
 * sroce_opcode_payload_len().
 *
 * Invariants:
 *  - sroce_opcode_info() is NULL exactly for opcodes outside the table,
 *    and never for an RD or reserved transport;
 *  - each entry is consistent with IBA Table 36: name prefix = transport,
 *    exactly one message position, START/END from the position, requests
 *    and responses apart, IMM/INV/ATOMIC/ACK/UD/CNP flags <=> the headers
 *    they imply, completion only at a message end;
 *  - extension headers lie in wire order without gap or overlap, from the
 *    end of the BTH to sroce_opcode_hdr_len();
 *  - the payload length is -EINVAL exactly when the packet cannot hold
 *    headers, pad and ICRC or has payload where none may be, and
 *    otherwise headers + payload + pad + ICRC is exactly the packet: the
 *    payload never extends past it (its bytes and every extension
 *    header are read through the accessors to prove it).
 */
#include "fuzz.h"
#include "hdr.h"
#include "opcode.h"

static const unsigned int ext_len[SROCE_EXT_NUM] = {
	[SROCE_EXT_DETH] = 8, [SROCE_EXT_RETH] = 16,  [SROCE_EXT_ATMETH] = 28,
	[SROCE_EXT_AETH] = 4, [SROCE_EXT_ATMACK] = 8, [SROCE_EXT_IMMDT] = 4,
	[SROCE_EXT_IETH] = 4, [SROCE_EXT_CNP] = 16,
};

static bool has(const struct sroce_opcode_info *oi, u32 flag)
{
	return oi->flags & flag;
}

static bool hdr(const struct sroce_opcode_info *oi, enum sroce_ext e)
{
	return sroce_opcode_has(oi, e);
}

static unsigned int popcount(u32 v)
{
	return __builtin_popcount(v);
}

static void check_entry(u8 op, const struct sroce_opcode_info *oi)
{
	static const char *const prefix[8] = {
		[SROCE_TRANSPORT_RC >> 5] = "RC_",
		[SROCE_TRANSPORT_UC >> 5] = "UC_",
		[SROCE_TRANSPORT_UD >> 5] = "UD_",
		[SROCE_TRANSPORT_CNP >> 5] = "CNP",
	};
	const char *want = prefix[sroce_opcode_transport(op) >> 5];
	u32 pos = oi->flags & (SROCE_OPF_FIRST | SROCE_OPF_MIDDLE |
			       SROCE_OPF_LAST | SROCE_OPF_ONLY);
	bool first_or_only = has(oi, SROCE_OPF_FIRST | SROCE_OPF_ONLY);
	bool last_or_only = has(oi, SROCE_OPF_LAST | SROCE_OPF_ONLY);

	FUZZ_ASSERT(oi == &sroce_opcode_table[op]);
	FUZZ_ASSERT(want && oi->name && !strncmp(oi->name, want, 3));
	FUZZ_ASSERT(
		!(oi->mask & ~(SROCE_HDR_PAYLOAD | (BIT(SROCE_EXT_NUM) - 1))));

	/* The CNP is neither request nor response, and only a CNP. */
	FUZZ_ASSERT(has(oi, SROCE_OPF_CNP) == (op == SROCE_OP_CNP));
	FUZZ_ASSERT(hdr(oi, SROCE_EXT_CNP) == (op == SROCE_OP_CNP));
	if (op == SROCE_OP_CNP) {
		FUZZ_ASSERT(oi->mask == SROCE_HDR_CNP);
		FUZZ_ASSERT(oi->flags == (SROCE_OPF_VALID | SROCE_OPF_CNP));
		return;
	}

	FUZZ_ASSERT(has(oi, SROCE_OPF_REQ) != has(oi, SROCE_OPF_RESP));
	FUZZ_ASSERT(popcount(pos) == 1);
	FUZZ_ASSERT(has(oi, SROCE_OPF_START) == first_or_only);
	FUZZ_ASSERT(has(oi, SROCE_OPF_END) == last_or_only);
	FUZZ_ASSERT(popcount(oi->flags & (SROCE_OPF_SEND | SROCE_OPF_WRITE |
					  SROCE_OPF_READ | SROCE_OPF_ACK)) <=
		    2);

	/* Flags <=> the headers they need. */
	FUZZ_ASSERT(has(oi, SROCE_OPF_IMM) == hdr(oi, SROCE_EXT_IMMDT));
	FUZZ_ASSERT(has(oi, SROCE_OPF_INV) == hdr(oi, SROCE_EXT_IETH));
	FUZZ_ASSERT((has(oi, SROCE_OPF_ATOMIC) && has(oi, SROCE_OPF_REQ)) ==
		    hdr(oi, SROCE_EXT_ATMETH));
	FUZZ_ASSERT((has(oi, SROCE_OPF_ATOMIC) && has(oi, SROCE_OPF_RESP)) ==
		    hdr(oi, SROCE_EXT_ATMACK));
	FUZZ_ASSERT((sroce_opcode_transport(op) == SROCE_TRANSPORT_UD) ==
		    hdr(oi, SROCE_EXT_DETH));
	/* RETH: RDMA READ requests and the first packet of a WRITE. */
	FUZZ_ASSERT(hdr(oi, SROCE_EXT_RETH) ==
		    ((has(oi, SROCE_OPF_READ) && has(oi, SROCE_OPF_REQ)) ||
		     (has(oi, SROCE_OPF_WRITE) && first_or_only)));
	/* AETH: every response but the middle of a READ response. */
	FUZZ_ASSERT(hdr(oi, SROCE_EXT_AETH) ==
		    (has(oi, SROCE_OPF_RESP) && !has(oi, SROCE_OPF_MIDDLE)));
	/* Acknowledgments and requests for data carry no payload. */
	FUZZ_ASSERT(!!(oi->mask & SROCE_HDR_PAYLOAD) ==
		    !(has(oi, SROCE_OPF_ACK) || has(oi, SROCE_OPF_NEEDS_RESP)));
	if (has(oi, SROCE_OPF_NEEDS_RESP))
		FUZZ_ASSERT(has(oi, SROCE_OPF_REQ) &&
			    has(oi, SROCE_OPF_READ | SROCE_OPF_ATOMIC) &&
			    has(oi, SROCE_OPF_ONLY));
	/* UC is SEND and WRITE only; UD is SEND only. */
	if (sroce_opcode_transport(op) != SROCE_TRANSPORT_RC)
		FUZZ_ASSERT(has(oi, SROCE_OPF_REQ) &&
			    has(oi, SROCE_OPF_SEND | SROCE_OPF_WRITE));
	if (sroce_opcode_transport(op) == SROCE_TRANSPORT_UD)
		FUZZ_ASSERT(has(oi, SROCE_OPF_SEND) && has(oi, SROCE_OPF_ONLY));

	/* Receive WQEs: every SEND packet, a WRITE with immediate's end. */
	FUZZ_ASSERT(has(oi, SROCE_OPF_RECV_WQE) ==
		    (has(oi, SROCE_OPF_SEND) ||
		     (has(oi, SROCE_OPF_WRITE) && has(oi, SROCE_OPF_IMM))));
	FUZZ_ASSERT(has(oi, SROCE_OPF_COMP) ==
		    (has(oi, SROCE_OPF_RECV_WQE) && last_or_only));
	FUZZ_ASSERT(has(oi, SROCE_OPF_SE_OK) == has(oi, SROCE_OPF_COMP));
	if (has(oi, SROCE_OPF_IMM) && has(oi, SROCE_OPF_WRITE))
		FUZZ_ASSERT(last_or_only);
	if (has(oi, SROCE_OPF_INV))
		FUZZ_ASSERT(has(oi, SROCE_OPF_SEND) && last_or_only);
}

/* Offsets in wire order, contiguous from the BTH to hdr_len. */
static void check_layout(const struct sroce_opcode_info *oi)
{
	unsigned int off = SROCE_BTH_LEN;

	for (unsigned int e = 0; e < SROCE_EXT_NUM; e++) {
		if (!hdr(oi, e)) {
			FUZZ_ASSERT(sroce_opcode_ext_off(oi, e) == 0);
			continue;
		}
		FUZZ_ASSERT(sroce_opcode_ext_off(oi, e) == off);
		off += ext_len[e];
	}
	FUZZ_ASSERT(sroce_opcode_hdr_len(oi) == off);
}

/* Read what the receive path reads of an accepted packet. */
static u64 touch(const struct sroce_opcode_info *oi, u8 *pkt, unsigned int hlen,
		 int paylen)
{
	u64 acc = 0;

	if (hdr(oi, SROCE_EXT_RETH))
		acc += sroce_reth_len(
			sroce_opcode_ext(oi, pkt, SROCE_EXT_RETH));
	if (hdr(oi, SROCE_EXT_AETH))
		acc += sroce_aeth_msn(
			sroce_opcode_ext(oi, pkt, SROCE_EXT_AETH));
	if (hdr(oi, SROCE_EXT_ATMETH))
		acc += sroce_atmeth_compare(
			sroce_opcode_ext(oi, pkt, SROCE_EXT_ATMETH));
	if (hdr(oi, SROCE_EXT_ATMACK))
		acc += sroce_atmack_orig(
			sroce_opcode_ext(oi, pkt, SROCE_EXT_ATMACK));
	if (hdr(oi, SROCE_EXT_DETH))
		acc += sroce_deth_srcqp(
			sroce_opcode_ext(oi, pkt, SROCE_EXT_DETH));
	if (hdr(oi, SROCE_EXT_IMMDT))
		acc += (__force u32)sroce_immdt_imm(
			sroce_opcode_ext(oi, pkt, SROCE_EXT_IMMDT));
	if (hdr(oi, SROCE_EXT_IETH))
		acc += sroce_ieth_rkey(
			sroce_opcode_ext(oi, pkt, SROCE_EXT_IETH));
	if (paylen > 0)
		acc += pkt[hlen] + pkt[hlen + paylen - 1];
	return acc;
}

static void check_payload_len(const struct sroce_opcode_info *oi,
			      const struct sroce_bth *bth, u64 len)
{
	u64 fixed = sroce_opcode_hdr_len(oi) + sroce_bth_padcnt(bth) +
		    SROCE_ICRC_LEN;
	bool bad = len < fixed ||
		   (len > fixed && !(oi->mask & SROCE_HDR_PAYLOAD)) ||
		   len - fixed > INT32_MAX;
	int pl = sroce_opcode_payload_len(oi, bth, (unsigned int)len);

	if (bad) {
		FUZZ_ASSERT(pl == -EINVAL);
		return;
	}
	FUZZ_ASSERT(pl >= 0 && (u64)pl == len - fixed);
	FUZZ_ASSERT((u64)pl <= len);
}

/* Where touch() stores what it read, so that the reads happen. */
volatile u64 fuzz_opcode_sink;

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	const struct sroce_opcode_info *oi;
	struct sroce_bth bth;
	u8 *pkt;
	int pl;

	if (!size)
		return 0;
	oi = sroce_opcode_info(data[0]);
	FUZZ_ASSERT(!oi ==
		    !(sroce_opcode_table[data[0]].flags & SROCE_OPF_VALID));
	if (!oi) {
		FUZZ_ASSERT(sroce_opcode_table[data[0]].flags == 0);
		return 0;
	}
	FUZZ_ASSERT(sroce_opcode_transport(data[0]) != SROCE_TRANSPORT_RD);
	FUZZ_ASSERT(data[0] < 0xa0);
	check_entry(data[0], oi);
	check_layout(oi);

	/* As sroce_recv_parse(): a BTH (and ICRC) first. */
	if (size < SROCE_BTH_LEN + SROCE_ICRC_LEN)
		return 0;
	/* libFuzzer's own exact-size, aligned heap copy of the input. */
	pkt = (u8 *)data;
	memcpy(&bth, pkt, sizeof(bth));

	check_payload_len(oi, &bth, size);
	pl = sroce_opcode_payload_len(oi, &bth, size);
	if (pl >= 0) {
		unsigned int hlen = sroce_opcode_hdr_len(oi);

		FUZZ_ASSERT(hlen + pl + sroce_bth_padcnt(&bth) +
				    SROCE_ICRC_LEN ==
			    size);
		fuzz_opcode_sink = touch(oi, pkt, hlen, pl);
	}
	/* Any length the caller could pass, not only this packet's. */
	if (size >= 16) {
		u32 other;

		memcpy(&other, data + size - 4, sizeof(other));
		check_payload_len(oi, &bth, other);
	}
	return 0;
}
