/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hdr.h - typed codecs for the InfiniBand transport headers RoCE v2 carries
 * after UDP: BTH and the extension headers (IBA vol. 1, 9.2-9.3).
 *
 * Every wire field is a __be type so sparse catches a missing conversion,
 * and every field has a getter and a setter here.  Setters mask their
 * argument to the width of the field and never touch neighbouring bits:
 * hand-written accessors on void * that overwrote the next field were a
 * recurring bug class in rdma_rxe.  tests/unit/test_hdr.c checks each
 * setter against a patterned struct.
 *
 * Structs are naturally aligned to 4 bytes on the wire (BTH is 12 bytes);
 * those with 64-bit fields at 4-byte offsets are __packed so the compiler
 * emits unaligned-safe loads.
 */
#ifndef _SROCE_PROTO_HDR_H
#define _SROCE_PROTO_HDR_H

#include "env.h"

/* Base Transport Header, IBA 9.2. */
struct sroce_bth {
	u8 opcode;
	u8 flags; /* SE(7) M(6) PadCnt(5:4) TVer(3:0) */
	__be16 pkey;
	__be32 qpn; /* FECN(31) BECN(30) resv6a(29:24) DestQP(23:0) */
	__be32 apsn; /* AckReq(31) resv7(30:24) PSN(23:0) */
};

/* RDMA Extended Transport Header, IBA 9.3.3. */
struct sroce_reth {
	__be64 va;
	__be32 rkey;
	__be32 len;
} __packed;

/* ACK Extended Transport Header, IBA 9.3.5. */
struct sroce_aeth {
	__be32 smsn; /* Syndrome(31:24) MSN(23:0) */
};

/* Atomic Extended Transport Header, IBA 9.3.4. */
struct sroce_atmeth {
	__be64 va;
	__be32 rkey;
	__be64 swap_add;
	__be64 compare;
} __packed;

/* Atomic Acknowledge Extended Transport Header, IBA 9.3.6. */
struct sroce_atmack {
	__be64 orig;
} __packed;

/* Datagram Extended Transport Header, IBA 9.3.2. */
struct sroce_deth {
	__be32 qkey;
	__be32 sqp; /* reserved(31:24) SrcQP(23:0) */
};

/* Immediate Data Extended Transport Header, IBA 9.3.7. */
struct sroce_immdt {
	__be32 imm;
};

/* Invalidate Extended Transport Header, IBA 9.3.8. */
struct sroce_ieth {
	__be32 rkey;
};

/* The 16 reserved bytes after the BTH of a RoCE v2 CNP (Annex A17). */
struct sroce_cnp_pad {
	u8 reserved[16];
};

#define SROCE_BTH_LEN 12
#define SROCE_RETH_LEN 16
#define SROCE_AETH_LEN 4
#define SROCE_ATMETH_LEN 28
#define SROCE_ATMACK_LEN 8
#define SROCE_DETH_LEN 8
#define SROCE_IMMDT_LEN 4
#define SROCE_IETH_LEN 4
#define SROCE_CNP_LEN 16
#define SROCE_ICRC_LEN 4

static_assert(sizeof(struct sroce_bth) == SROCE_BTH_LEN, "BTH size");
static_assert(offsetof(struct sroce_bth, flags) == 1, "BTH flags");
static_assert(offsetof(struct sroce_bth, pkey) == 2, "BTH pkey");
static_assert(offsetof(struct sroce_bth, qpn) == 4, "BTH qpn");
static_assert(offsetof(struct sroce_bth, apsn) == 8, "BTH apsn");
static_assert(sizeof(struct sroce_reth) == SROCE_RETH_LEN, "RETH size");
static_assert(offsetof(struct sroce_reth, rkey) == 8, "RETH rkey");
static_assert(offsetof(struct sroce_reth, len) == 12, "RETH len");
static_assert(sizeof(struct sroce_aeth) == SROCE_AETH_LEN, "AETH size");
static_assert(sizeof(struct sroce_atmeth) == SROCE_ATMETH_LEN, "AtomicETH");
static_assert(offsetof(struct sroce_atmeth, rkey) == 8, "AtomicETH rkey");
static_assert(offsetof(struct sroce_atmeth, swap_add) == 12, "AtomicETH swap");
static_assert(offsetof(struct sroce_atmeth, compare) == 20, "AtomicETH cmp");
static_assert(sizeof(struct sroce_atmack) == SROCE_ATMACK_LEN, "AtomicAckETH");
static_assert(sizeof(struct sroce_deth) == SROCE_DETH_LEN, "DETH size");
static_assert(offsetof(struct sroce_deth, sqp) == 4, "DETH srcqp");
static_assert(sizeof(struct sroce_immdt) == SROCE_IMMDT_LEN, "ImmDt size");
static_assert(sizeof(struct sroce_ieth) == SROCE_IETH_LEN, "IETH size");
static_assert(sizeof(struct sroce_cnp_pad) == SROCE_CNP_LEN, "CNP size");

/* BTH bit layout. */
#define SROCE_BTH_SE 0x80U
#define SROCE_BTH_MIG 0x40U
#define SROCE_BTH_PAD_MASK 0x30U
#define SROCE_BTH_PAD_SHIFT 4
#define SROCE_BTH_TVER_MASK 0x0fU
#define SROCE_BTH_FECN 0x80000000U
#define SROCE_BTH_BECN 0x40000000U
#define SROCE_BTH_RESV6A_MASK 0x3f000000U
#define SROCE_BTH_RESV6A_SHIFT 24
#define SROCE_BTH_ACKREQ 0x80000000U
#define SROCE_BTH_RESV7_MASK 0x7f000000U
#define SROCE_QPN_MASK 0x00ffffffU
#define SROCE_PSN_MASK 0x00ffffffU
#define SROCE_MSN_MASK 0x00ffffffU

/* The P_Key every RoCE v2 packet from sroce carries (default partition). */
#define SROCE_DEFAULT_PKEY 0xffff

/* Read-modify-write of the bits in @mask of a big-endian word. */
static inline void sroce_be32_update(__be32 *w, u32 mask, u32 val)
{
	u32 v = be32_to_cpu(*w);

	*w = cpu_to_be32((v & ~mask) | (val & mask));
}

static inline void sroce_u8_update(u8 *b, u8 mask, u8 val)
{
	*b = (*b & ~mask) | (val & mask);
}

/* ---- BTH ---- */

static inline u8 sroce_bth_opcode(const struct sroce_bth *bth)
{
	return bth->opcode;
}

static inline void sroce_bth_set_opcode(struct sroce_bth *bth, u8 opcode)
{
	bth->opcode = opcode;
}

static inline bool sroce_bth_se(const struct sroce_bth *bth)
{
	return bth->flags & SROCE_BTH_SE;
}

static inline void sroce_bth_set_se(struct sroce_bth *bth, bool se)
{
	sroce_u8_update(&bth->flags, SROCE_BTH_SE, se ? SROCE_BTH_SE : 0);
}

static inline bool sroce_bth_migreq(const struct sroce_bth *bth)
{
	return bth->flags & SROCE_BTH_MIG;
}

static inline void sroce_bth_set_migreq(struct sroce_bth *bth, bool mig)
{
	sroce_u8_update(&bth->flags, SROCE_BTH_MIG, mig ? SROCE_BTH_MIG : 0);
}

static inline u8 sroce_bth_padcnt(const struct sroce_bth *bth)
{
	return (bth->flags & SROCE_BTH_PAD_MASK) >> SROCE_BTH_PAD_SHIFT;
}

static inline void sroce_bth_set_padcnt(struct sroce_bth *bth, u8 pad)
{
	sroce_u8_update(&bth->flags, SROCE_BTH_PAD_MASK,
			pad << SROCE_BTH_PAD_SHIFT);
}

static inline u8 sroce_bth_tver(const struct sroce_bth *bth)
{
	return bth->flags & SROCE_BTH_TVER_MASK;
}

static inline void sroce_bth_set_tver(struct sroce_bth *bth, u8 tver)
{
	sroce_u8_update(&bth->flags, SROCE_BTH_TVER_MASK, tver);
}

static inline u16 sroce_bth_pkey(const struct sroce_bth *bth)
{
	return be16_to_cpu(bth->pkey);
}

static inline void sroce_bth_set_pkey(struct sroce_bth *bth, u16 pkey)
{
	bth->pkey = cpu_to_be16(pkey);
}

static inline bool sroce_bth_fecn(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->qpn) & SROCE_BTH_FECN;
}

static inline void sroce_bth_set_fecn(struct sroce_bth *bth, bool fecn)
{
	sroce_be32_update(&bth->qpn, SROCE_BTH_FECN, fecn ? SROCE_BTH_FECN : 0);
}

static inline bool sroce_bth_becn(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->qpn) & SROCE_BTH_BECN;
}

static inline void sroce_bth_set_becn(struct sroce_bth *bth, bool becn)
{
	sroce_be32_update(&bth->qpn, SROCE_BTH_BECN, becn ? SROCE_BTH_BECN : 0);
}

static inline u8 sroce_bth_resv6a(const struct sroce_bth *bth)
{
	return (be32_to_cpu(bth->qpn) & SROCE_BTH_RESV6A_MASK) >>
	       SROCE_BTH_RESV6A_SHIFT;
}

static inline void sroce_bth_set_resv6a(struct sroce_bth *bth, u8 resv)
{
	sroce_be32_update(&bth->qpn, SROCE_BTH_RESV6A_MASK,
			  (u32)resv << SROCE_BTH_RESV6A_SHIFT);
}

static inline u32 sroce_bth_destqp(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->qpn) & SROCE_QPN_MASK;
}

static inline void sroce_bth_set_destqp(struct sroce_bth *bth, u32 qpn)
{
	sroce_be32_update(&bth->qpn, SROCE_QPN_MASK, qpn);
}

static inline bool sroce_bth_ackreq(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->apsn) & SROCE_BTH_ACKREQ;
}

static inline void sroce_bth_set_ackreq(struct sroce_bth *bth, bool ackreq)
{
	sroce_be32_update(&bth->apsn, SROCE_BTH_ACKREQ,
			  ackreq ? SROCE_BTH_ACKREQ : 0);
}

static inline u32 sroce_bth_psn(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->apsn) & SROCE_PSN_MASK;
}

static inline void sroce_bth_set_psn(struct sroce_bth *bth, u32 psn)
{
	sroce_be32_update(&bth->apsn, SROCE_PSN_MASK, psn);
}

/* PadCnt for @payload_len bytes: pad the payload to a multiple of 4. */
static inline u8 sroce_bth_pad_for(u32 payload_len)
{
	return -payload_len & 3;
}

/*
 * Write a whole BTH at once, as the requester does for every packet:
 * M, TVer, FECN, BECN and the reserved bits are zero.
 */
static inline void sroce_bth_init(struct sroce_bth *bth, u8 opcode, bool se,
				  u8 padcnt, u16 pkey, u32 destqp, bool ackreq,
				  u32 psn)
{
	bth->opcode = opcode;
	bth->flags = (se ? SROCE_BTH_SE : 0) |
		     ((padcnt << SROCE_BTH_PAD_SHIFT) & SROCE_BTH_PAD_MASK);
	bth->pkey = cpu_to_be16(pkey);
	bth->qpn = cpu_to_be32(destqp & SROCE_QPN_MASK);
	bth->apsn = cpu_to_be32((ackreq ? SROCE_BTH_ACKREQ : 0) |
				(psn & SROCE_PSN_MASK));
}

/* ---- RETH ---- */

static inline u64 sroce_reth_va(const struct sroce_reth *reth)
{
	return be64_to_cpu(reth->va);
}

static inline void sroce_reth_set_va(struct sroce_reth *reth, u64 va)
{
	reth->va = cpu_to_be64(va);
}

static inline u32 sroce_reth_rkey(const struct sroce_reth *reth)
{
	return be32_to_cpu(reth->rkey);
}

static inline void sroce_reth_set_rkey(struct sroce_reth *reth, u32 rkey)
{
	reth->rkey = cpu_to_be32(rkey);
}

static inline u32 sroce_reth_len(const struct sroce_reth *reth)
{
	return be32_to_cpu(reth->len);
}

static inline void sroce_reth_set_len(struct sroce_reth *reth, u32 len)
{
	reth->len = cpu_to_be32(len);
}

/* ---- AETH ---- */

static inline u8 sroce_aeth_syndrome(const struct sroce_aeth *aeth)
{
	return be32_to_cpu(aeth->smsn) >> 24;
}

static inline void sroce_aeth_set_syndrome(struct sroce_aeth *aeth, u8 syn)
{
	sroce_be32_update(&aeth->smsn, ~SROCE_MSN_MASK, (u32)syn << 24);
}

static inline u32 sroce_aeth_msn(const struct sroce_aeth *aeth)
{
	return be32_to_cpu(aeth->smsn) & SROCE_MSN_MASK;
}

static inline void sroce_aeth_set_msn(struct sroce_aeth *aeth, u32 msn)
{
	sroce_be32_update(&aeth->smsn, SROCE_MSN_MASK, msn);
}

/* ---- AtomicETH ---- */

static inline u64 sroce_atmeth_va(const struct sroce_atmeth *a)
{
	return be64_to_cpu(a->va);
}

static inline void sroce_atmeth_set_va(struct sroce_atmeth *a, u64 va)
{
	a->va = cpu_to_be64(va);
}

static inline u32 sroce_atmeth_rkey(const struct sroce_atmeth *a)
{
	return be32_to_cpu(a->rkey);
}

static inline void sroce_atmeth_set_rkey(struct sroce_atmeth *a, u32 rkey)
{
	a->rkey = cpu_to_be32(rkey);
}

/* The swap value of CmpSwap, or the addend of FetchAdd. */
static inline u64 sroce_atmeth_swap(const struct sroce_atmeth *a)
{
	return be64_to_cpu(a->swap_add);
}

static inline void sroce_atmeth_set_swap(struct sroce_atmeth *a, u64 swap)
{
	a->swap_add = cpu_to_be64(swap);
}

static inline u64 sroce_atmeth_compare(const struct sroce_atmeth *a)
{
	return be64_to_cpu(a->compare);
}

static inline void sroce_atmeth_set_compare(struct sroce_atmeth *a, u64 cmp)
{
	a->compare = cpu_to_be64(cmp);
}

/* ---- AtomicAckETH ---- */

static inline u64 sroce_atmack_orig(const struct sroce_atmack *a)
{
	return be64_to_cpu(a->orig);
}

static inline void sroce_atmack_set_orig(struct sroce_atmack *a, u64 orig)
{
	a->orig = cpu_to_be64(orig);
}

/* ---- DETH ---- */

static inline u32 sroce_deth_qkey(const struct sroce_deth *deth)
{
	return be32_to_cpu(deth->qkey);
}

static inline void sroce_deth_set_qkey(struct sroce_deth *deth, u32 qkey)
{
	deth->qkey = cpu_to_be32(qkey);
}

static inline u32 sroce_deth_srcqp(const struct sroce_deth *deth)
{
	return be32_to_cpu(deth->sqp) & SROCE_QPN_MASK;
}

static inline void sroce_deth_set_srcqp(struct sroce_deth *deth, u32 qpn)
{
	sroce_be32_update(&deth->sqp, SROCE_QPN_MASK, qpn);
}

/* ---- ImmDt, IETH: opaque 32-bit values, kept in wire order ---- */

static inline __be32 sroce_immdt_imm(const struct sroce_immdt *immdt)
{
	return immdt->imm;
}

static inline void sroce_immdt_set_imm(struct sroce_immdt *immdt, __be32 imm)
{
	immdt->imm = imm;
}

static inline u32 sroce_ieth_rkey(const struct sroce_ieth *ieth)
{
	return be32_to_cpu(ieth->rkey);
}

static inline void sroce_ieth_set_rkey(struct sroce_ieth *ieth, u32 rkey)
{
	ieth->rkey = cpu_to_be32(rkey);
}

/*
 * AETH syndrome, IBA 9.7.5.1 (Tables 43 and 44):
 *   bit 7      reserved, 0
 *   bits 6:5   00 ACK, 01 RNR NAK, 10 reserved, 11 NAK
 *   bits 4:0   ACK: credit count code; RNR NAK: RNR timer code;
 *              NAK: NAK code
 */
enum sroce_aeth_type {
	SROCE_AETH_ACK = 0,
	SROCE_AETH_RNR_NAK = 1,
	SROCE_AETH_RESERVED = 2,
	SROCE_AETH_NAK = 3,
};

enum sroce_nak_code {
	SROCE_NAK_PSN_SEQ_ERR = 0,
	SROCE_NAK_INVALID_REQ = 1,
	SROCE_NAK_REM_ACCESS_ERR = 2,
	SROCE_NAK_REM_OP_ERR = 3,
	SROCE_NAK_INVALID_RD_REQ = 4,
};

#define SROCE_AETH_TYPE_SHIFT 5
#define SROCE_AETH_TYPE_MASK 0x60U
#define SROCE_AETH_VALUE_MASK 0x1fU
#define SROCE_AETH_RESV_BIT 0x80U

/* Credit count code 31: the responder does not use end-to-end credits. */
#define SROCE_AETH_CREDITS_INVALID 31
#define SROCE_CREDITS_UNLIMITED U32_MAX

static inline enum sroce_aeth_type sroce_aeth_syn_type(u8 syn)
{
	return (syn & SROCE_AETH_TYPE_MASK) >> SROCE_AETH_TYPE_SHIFT;
}

static inline u8 sroce_aeth_syn_value(u8 syn)
{
	return syn & SROCE_AETH_VALUE_MASK;
}

static inline u8 sroce_aeth_syn(enum sroce_aeth_type type, u8 value)
{
	return ((u8)type << SROCE_AETH_TYPE_SHIFT) |
	       (value & SROCE_AETH_VALUE_MASK);
}

static inline u8 sroce_aeth_syn_ack(u8 credit_code)
{
	return sroce_aeth_syn(SROCE_AETH_ACK, credit_code);
}

static inline u8 sroce_aeth_syn_rnr(u8 timer_code)
{
	return sroce_aeth_syn(SROCE_AETH_RNR_NAK, timer_code);
}

static inline u8 sroce_aeth_syn_nak(enum sroce_nak_code code)
{
	return sroce_aeth_syn(SROCE_AETH_NAK, code);
}

bool sroce_aeth_syn_valid(u8 syn);
u32 sroce_aeth_credits(u8 code);
u8 sroce_aeth_credit_code(u32 credits);
u32 sroce_rnr_timer_usecs(u8 code);
u8 sroce_rnr_timer_code(u32 usecs);

#endif /* _SROCE_PROTO_HDR_H */
