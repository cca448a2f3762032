/* SPDX-License-Identifier: GPL-2.0 */
/*
 * opcode.h - what each BTH opcode means: which extension headers follow the
 * BTH, where they are, and how the packet takes part in a message.
 *
 * The table (opcode.c) is data: one designated initializer per opcode
 * giving a name, a mask of extension headers and a set of flags.  Offsets
 * and header lengths are derived from the mask by code, in the
 * fixed order of IBA 9.2 (BTH, [RDETH], DETH, RETH, AtomicETH, AETH,
 * AtomicAckETH, ImmDt, IETH), so no number in the table is typed by hand.
 * Opcodes absent from the table (RD, reserved, manufacturer specific except
 * the RoCE v2 CNP) are invalid: sroce_opcode_info() returns NULL and the
 * receive path drops the packet.
 */
#ifndef _SROCE_PROTO_OPCODE_H
#define _SROCE_PROTO_OPCODE_H

#include "env.h"
#include "hdr.h"

/* Extension headers, in wire order (IBA 9.2; RDETH is RD only: unused). */
enum sroce_ext {
	SROCE_EXT_DETH,
	SROCE_EXT_RETH,
	SROCE_EXT_ATMETH,
	SROCE_EXT_AETH,
	SROCE_EXT_ATMACK,
	SROCE_EXT_IMMDT,
	SROCE_EXT_IETH,
	SROCE_EXT_CNP, /* the 16 reserved bytes of a RoCE v2 CNP */
	SROCE_EXT_NUM,
};

/* Bits of sroce_opcode_info.mask. */
#define SROCE_HDR_DETH BIT(SROCE_EXT_DETH)
#define SROCE_HDR_RETH BIT(SROCE_EXT_RETH)
#define SROCE_HDR_ATMETH BIT(SROCE_EXT_ATMETH)
#define SROCE_HDR_AETH BIT(SROCE_EXT_AETH)
#define SROCE_HDR_ATMACK BIT(SROCE_EXT_ATMACK)
#define SROCE_HDR_IMMDT BIT(SROCE_EXT_IMMDT)
#define SROCE_HDR_IETH BIT(SROCE_EXT_IETH)
#define SROCE_HDR_CNP BIT(SROCE_EXT_CNP)
#define SROCE_HDR_PAYLOAD BIT(SROCE_EXT_NUM) /* may carry payload */

/* Bits of sroce_opcode_info.flags. */
enum sroce_opcode_flags {
	SROCE_OPF_VALID = BIT(0), /* in the table */
	SROCE_OPF_REQ = BIT(1), /* requester to responder */
	SROCE_OPF_RESP = BIT(2), /* responder to requester */
	SROCE_OPF_ACK = BIT(3), /* pure acknowledgment (no payload) */
	SROCE_OPF_FIRST = BIT(4), /* first packet of a multi-packet msg */
	SROCE_OPF_MIDDLE = BIT(5),
	SROCE_OPF_LAST = BIT(6),
	SROCE_OPF_ONLY = BIT(7), /* the only packet of its message */
	SROCE_OPF_START = BIT(8), /* FIRST or ONLY: starts a message */
	SROCE_OPF_END = BIT(9), /* LAST or ONLY: ends a message */
	SROCE_OPF_SEND = BIT(10),
	SROCE_OPF_WRITE = BIT(11),
	SROCE_OPF_READ = BIT(12), /* read request or read response */
	SROCE_OPF_ATOMIC = BIT(13), /* atomic request or atomic ACK */
	SROCE_OPF_IMM = BIT(14), /* carries immediate data */
	SROCE_OPF_INV = BIT(15), /* carries an rkey to invalidate */
	SROCE_OPF_SE_OK = BIT(16), /* SE bit meaningful (IBA 9.2.3) */
	SROCE_OPF_NEEDS_RESP = BIT(17), /* responder must answer with data */
	/*
	 * Lands in a receive WQE: every SEND packet (the WQE is taken at
	 * START), and the END of an RDMA WRITE with immediate.
	 */
	SROCE_OPF_RECV_WQE = BIT(18),
	SROCE_OPF_COMP = BIT(19), /* responder completes a receive WQE */
	SROCE_OPF_CNP = BIT(20), /* congestion notification */
};

/* Transport of an opcode: its top three bits (IBA Table 36). */
enum sroce_transport {
	SROCE_TRANSPORT_RC = 0x00,
	SROCE_TRANSPORT_UC = 0x20,
	SROCE_TRANSPORT_RD = 0x40,
	SROCE_TRANSPORT_UD = 0x60,
	SROCE_TRANSPORT_CNP = 0x80,
};

#define SROCE_TRANSPORT_MASK 0xe0U

struct sroce_opcode_info {
	const char *name; /* IBA name, e.g. "RC_SEND_FIRST" */
	u32 flags; /* SROCE_OPF_* */
	u16 mask; /* SROCE_HDR_* */
};

/* RoCE v2 opcodes (IBA Table 36 plus Annex A17 CNP). */
enum sroce_opcode {
	SROCE_OP_RC_SEND_FIRST = 0x00,
	SROCE_OP_RC_SEND_MIDDLE = 0x01,
	SROCE_OP_RC_SEND_LAST = 0x02,
	SROCE_OP_RC_SEND_LAST_IMM = 0x03,
	SROCE_OP_RC_SEND_ONLY = 0x04,
	SROCE_OP_RC_SEND_ONLY_IMM = 0x05,
	SROCE_OP_RC_WRITE_FIRST = 0x06,
	SROCE_OP_RC_WRITE_MIDDLE = 0x07,
	SROCE_OP_RC_WRITE_LAST = 0x08,
	SROCE_OP_RC_WRITE_LAST_IMM = 0x09,
	SROCE_OP_RC_WRITE_ONLY = 0x0a,
	SROCE_OP_RC_WRITE_ONLY_IMM = 0x0b,
	SROCE_OP_RC_READ_REQ = 0x0c,
	SROCE_OP_RC_READ_RESP_FIRST = 0x0d,
	SROCE_OP_RC_READ_RESP_MIDDLE = 0x0e,
	SROCE_OP_RC_READ_RESP_LAST = 0x0f,
	SROCE_OP_RC_READ_RESP_ONLY = 0x10,
	SROCE_OP_RC_ACK = 0x11,
	SROCE_OP_RC_ATOMIC_ACK = 0x12,
	SROCE_OP_RC_CMP_SWAP = 0x13,
	SROCE_OP_RC_FETCH_ADD = 0x14,
	SROCE_OP_RC_SEND_LAST_INV = 0x16,
	SROCE_OP_RC_SEND_ONLY_INV = 0x17,

	SROCE_OP_UC_SEND_FIRST = 0x20,
	SROCE_OP_UC_SEND_MIDDLE = 0x21,
	SROCE_OP_UC_SEND_LAST = 0x22,
	SROCE_OP_UC_SEND_LAST_IMM = 0x23,
	SROCE_OP_UC_SEND_ONLY = 0x24,
	SROCE_OP_UC_SEND_ONLY_IMM = 0x25,
	SROCE_OP_UC_WRITE_FIRST = 0x26,
	SROCE_OP_UC_WRITE_MIDDLE = 0x27,
	SROCE_OP_UC_WRITE_LAST = 0x28,
	SROCE_OP_UC_WRITE_LAST_IMM = 0x29,
	SROCE_OP_UC_WRITE_ONLY = 0x2a,
	SROCE_OP_UC_WRITE_ONLY_IMM = 0x2b,

	SROCE_OP_UD_SEND_ONLY = 0x64,
	SROCE_OP_UD_SEND_ONLY_IMM = 0x65,

	SROCE_OP_CNP = 0x81,
};

/*
 * Indexed by opcode; entries not listed are all zero (invalid).  Exposed
 * for the unit tests; everyone else uses sroce_opcode_info().
 */
extern const struct sroce_opcode_info sroce_opcode_table[256];

/**
 * sroce_opcode_info() - describe a BTH opcode
 * @opcode: the opcode byte of a received or to-be-sent BTH
 *
 * Return: the table entry, or NULL if sroce does not know the opcode.
 */
static inline const struct sroce_opcode_info *sroce_opcode_info(u8 opcode)
{
	const struct sroce_opcode_info *oi = &sroce_opcode_table[opcode];

	return likely(oi->flags & SROCE_OPF_VALID) ? oi : NULL;
}

static inline enum sroce_transport sroce_opcode_transport(u8 opcode)
{
	return opcode & SROCE_TRANSPORT_MASK;
}

static inline bool sroce_opcode_has(const struct sroce_opcode_info *oi,
				    enum sroce_ext ext)
{
	return oi->mask & BIT(ext);
}

unsigned int sroce_opcode_ext_off(const struct sroce_opcode_info *oi,
				  enum sroce_ext ext);
unsigned int sroce_opcode_hdr_len(const struct sroce_opcode_info *oi);
int sroce_opcode_payload_len(const struct sroce_opcode_info *oi,
			     const struct sroce_bth *bth, unsigned int len);

/*
 * Build the transport part of a RoCE v2 CNP (Annex A17): opcode 0x81,
 * P_Key 0xffff, BECN set, DestQP = the QP of the remote sender that caused
 * congestion, PSN 0, then 16 reserved zero bytes.
 */
static inline void sroce_cnp_init(struct sroce_bth *bth,
				  struct sroce_cnp_pad *pad, u32 destqp)
{
	sroce_bth_init(bth, SROCE_OP_CNP, false, 0, SROCE_DEFAULT_PKEY, destqp,
		       false, 0);
	sroce_bth_set_becn(bth, true);
	memset(pad, 0, sizeof(*pad));
}

/*
 * Pointer to extension header @ext of a packet whose BTH is at @bth.  The
 * caller has checked that the opcode carries @ext and that
 * sroce_opcode_hdr_len() bytes are present.
 */
static inline void *sroce_opcode_ext(const struct sroce_opcode_info *oi,
				     void *bth, enum sroce_ext ext)
{
	return (u8 *)bth + sroce_opcode_ext_off(oi, ext);
}

#endif /* _SROCE_PROTO_OPCODE_H */
