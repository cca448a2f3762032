// SPDX-License-Identifier: GPL-2.0
/*
 * opcode.c - the RoCE v2 opcode table (IBA vol. 1 Table 36, 9.2-9.3;
 * Annex A17 for the CNP).
 *
 * Each entry states only facts from the spec: which extension headers the
 * opcode carries and what role the packet plays.  Offsets and lengths are
 * derived from the mask by the functions at the end of this file, in the
 * one wire order of extension headers, so they cannot disagree with it.
 */
#include "opcode.h"

#define OP(op, m, f)                            \
	[SROCE_OP_##op] = {                     \
		.name = #op,                    \
		.flags = SROCE_OPF_VALID | (f), \
		.mask = (m),                    \
	}

/* Position of a packet in its message. */
#define POS_FIRST (SROCE_OPF_FIRST | SROCE_OPF_START)
#define POS_MIDDLE SROCE_OPF_MIDDLE
#define POS_LAST (SROCE_OPF_LAST | SROCE_OPF_END)
#define POS_ONLY (SROCE_OPF_ONLY | SROCE_OPF_START | SROCE_OPF_END)

/*
 * Roles.  A SEND consumes a receive WQE and completes it with its last
 * packet; an RDMA WRITE with immediate consumes and completes one with its
 * last packet.  SE is meaningful only on those completing packets
 * (IBA 9.2.3).
 */
#define R_SEND (SROCE_OPF_REQ | SROCE_OPF_SEND | SROCE_OPF_RECV_WQE)
#define R_SEND_END (R_SEND | SROCE_OPF_COMP | SROCE_OPF_SE_OK)
#define R_WRITE (SROCE_OPF_REQ | SROCE_OPF_WRITE)
#define R_WRITE_IMM_END                                                  \
	(R_WRITE | SROCE_OPF_IMM | SROCE_OPF_RECV_WQE | SROCE_OPF_COMP | \
	 SROCE_OPF_SE_OK)
#define R_READ_RESP (SROCE_OPF_RESP | SROCE_OPF_READ)
#define R_ATOMIC_REQ \
	(SROCE_OPF_REQ | SROCE_OPF_ATOMIC | SROCE_OPF_NEEDS_RESP | POS_ONLY)

/* Header masks. */
#define H_PAY SROCE_HDR_PAYLOAD
#define H_RETH SROCE_HDR_RETH
#define H_AETH SROCE_HDR_AETH
#define H_IMM SROCE_HDR_IMMDT
#define H_DETH SROCE_HDR_DETH

const struct sroce_opcode_info sroce_opcode_table[256] = {
	/* Reliable Connection */
	OP(RC_SEND_FIRST, H_PAY, R_SEND | POS_FIRST),
	OP(RC_SEND_MIDDLE, H_PAY, R_SEND | POS_MIDDLE),
	OP(RC_SEND_LAST, H_PAY, R_SEND_END | POS_LAST),
	OP(RC_SEND_LAST_IMM, H_PAY | H_IMM,
	   R_SEND_END | SROCE_OPF_IMM | POS_LAST),
	OP(RC_SEND_ONLY, H_PAY, R_SEND_END | POS_ONLY),
	OP(RC_SEND_ONLY_IMM, H_PAY | H_IMM,
	   R_SEND_END | SROCE_OPF_IMM | POS_ONLY),
	OP(RC_WRITE_FIRST, H_PAY | H_RETH, R_WRITE | POS_FIRST),
	OP(RC_WRITE_MIDDLE, H_PAY, R_WRITE | POS_MIDDLE),
	OP(RC_WRITE_LAST, H_PAY, R_WRITE | POS_LAST),
	OP(RC_WRITE_LAST_IMM, H_PAY | H_IMM, R_WRITE_IMM_END | POS_LAST),
	OP(RC_WRITE_ONLY, H_PAY | H_RETH, R_WRITE | POS_ONLY),
	OP(RC_WRITE_ONLY_IMM, H_PAY | H_RETH | H_IMM,
	   R_WRITE_IMM_END | POS_ONLY),
	OP(RC_READ_REQ, H_RETH,
	   SROCE_OPF_REQ | SROCE_OPF_READ | SROCE_OPF_NEEDS_RESP | POS_ONLY),
	OP(RC_READ_RESP_FIRST, H_PAY | H_AETH, R_READ_RESP | POS_FIRST),
	OP(RC_READ_RESP_MIDDLE, H_PAY, R_READ_RESP | POS_MIDDLE),
	OP(RC_READ_RESP_LAST, H_PAY | H_AETH, R_READ_RESP | POS_LAST),
	OP(RC_READ_RESP_ONLY, H_PAY | H_AETH, R_READ_RESP | POS_ONLY),
	OP(RC_ACK, H_AETH, SROCE_OPF_RESP | SROCE_OPF_ACK | POS_ONLY),
	OP(RC_ATOMIC_ACK, H_AETH | SROCE_HDR_ATMACK,
	   SROCE_OPF_RESP | SROCE_OPF_ACK | SROCE_OPF_ATOMIC | POS_ONLY),
	OP(RC_CMP_SWAP, SROCE_HDR_ATMETH, R_ATOMIC_REQ),
	OP(RC_FETCH_ADD, SROCE_HDR_ATMETH, R_ATOMIC_REQ),
	OP(RC_SEND_LAST_INV, H_PAY | SROCE_HDR_IETH,
	   R_SEND_END | SROCE_OPF_INV | POS_LAST),
	OP(RC_SEND_ONLY_INV, H_PAY | SROCE_HDR_IETH,
	   R_SEND_END | SROCE_OPF_INV | POS_ONLY),

	/* Unreliable Connection: the SEND and WRITE subset of RC */
	OP(UC_SEND_FIRST, H_PAY, R_SEND | POS_FIRST),
	OP(UC_SEND_MIDDLE, H_PAY, R_SEND | POS_MIDDLE),
	OP(UC_SEND_LAST, H_PAY, R_SEND_END | POS_LAST),
	OP(UC_SEND_LAST_IMM, H_PAY | H_IMM,
	   R_SEND_END | SROCE_OPF_IMM | POS_LAST),
	OP(UC_SEND_ONLY, H_PAY, R_SEND_END | POS_ONLY),
	OP(UC_SEND_ONLY_IMM, H_PAY | H_IMM,
	   R_SEND_END | SROCE_OPF_IMM | POS_ONLY),
	OP(UC_WRITE_FIRST, H_PAY | H_RETH, R_WRITE | POS_FIRST),
	OP(UC_WRITE_MIDDLE, H_PAY, R_WRITE | POS_MIDDLE),
	OP(UC_WRITE_LAST, H_PAY, R_WRITE | POS_LAST),
	OP(UC_WRITE_LAST_IMM, H_PAY | H_IMM, R_WRITE_IMM_END | POS_LAST),
	OP(UC_WRITE_ONLY, H_PAY | H_RETH, R_WRITE | POS_ONLY),
	OP(UC_WRITE_ONLY_IMM, H_PAY | H_RETH | H_IMM,
	   R_WRITE_IMM_END | POS_ONLY),

	/* Unreliable Datagram */
	OP(UD_SEND_ONLY, H_PAY | H_DETH, R_SEND_END | POS_ONLY),
	OP(UD_SEND_ONLY_IMM, H_PAY | H_DETH | H_IMM,
	   R_SEND_END | SROCE_OPF_IMM | POS_ONLY),

	/* RoCE v2 congestion notification (Annex A17) */
	OP(CNP, SROCE_HDR_CNP, SROCE_OPF_CNP),
};

/* Length of each extension header, indexed by enum sroce_ext. */
static const u8 sroce_ext_len[SROCE_EXT_NUM] = {
	[SROCE_EXT_DETH] = SROCE_DETH_LEN,
	[SROCE_EXT_RETH] = SROCE_RETH_LEN,
	[SROCE_EXT_ATMETH] = SROCE_ATMETH_LEN,
	[SROCE_EXT_AETH] = SROCE_AETH_LEN,
	[SROCE_EXT_ATMACK] = SROCE_ATMACK_LEN,
	[SROCE_EXT_IMMDT] = SROCE_IMMDT_LEN,
	[SROCE_EXT_IETH] = SROCE_IETH_LEN,
	[SROCE_EXT_CNP] = SROCE_CNP_LEN,
};

/* BTH plus the headers of @mask that come before @upto on the wire. */
static unsigned int sroce_ext_prefix(u16 mask, enum sroce_ext upto)
{
	unsigned int len = SROCE_BTH_LEN;
	unsigned int e;

	for (e = 0; e < upto; e++)
		if (mask & BIT(e))
			len += sroce_ext_len[e];
	return len;
}

/**
 * sroce_opcode_ext_off() - where an extension header starts
 * @oi: opcode description
 * @ext: the extension header
 *
 * Return: the offset of @ext from the start of the BTH, or 0 if the opcode
 * does not carry it.
 */
unsigned int sroce_opcode_ext_off(const struct sroce_opcode_info *oi,
				  enum sroce_ext ext)
{
	if (!(oi->mask & BIT(ext)))
		return 0;
	return sroce_ext_prefix(oi->mask, ext);
}

/**
 * sroce_opcode_hdr_len() - bytes of BTH and extension headers
 * @oi: opcode description
 *
 * Return: the length of the transport headers, where the payload starts.
 */
unsigned int sroce_opcode_hdr_len(const struct sroce_opcode_info *oi)
{
	return sroce_ext_prefix(oi->mask, SROCE_EXT_NUM);
}

/**
 * sroce_opcode_payload_len() - payload bytes of a received packet
 * @oi: opcode description of the packet's BTH opcode
 * @bth: the packet's BTH (for PadCnt)
 * @len: bytes from the BTH through the ICRC
 *
 * Return: the payload length without pad, or -EINVAL if @len cannot hold
 * the headers, pad and ICRC, if the opcode carries no payload and there
 * is some, or if the payload would be longer than INT_MAX.
 */
int sroce_opcode_payload_len(const struct sroce_opcode_info *oi,
			     const struct sroce_bth *bth, unsigned int len)
{
	unsigned int fixed = sroce_opcode_hdr_len(oi) + sroce_bth_padcnt(bth) +
			     SROCE_ICRC_LEN;

	if (unlikely(len < fixed || len - fixed > INT_MAX))
		return -EINVAL;
	if (unlikely(len > fixed && !(oi->mask & SROCE_HDR_PAYLOAD)))
		return -EINVAL;
	return len - fixed;
}
