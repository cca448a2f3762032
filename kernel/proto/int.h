/* SPDX-License-Identifier: GPL-2.0 */
/*
 * int.h - the wire format of in-band network telemetry (INT) for HPCC
 * (Documentation/cc.rst, "INT on the wire"): a block of per-port records
 * that switches insert into the data packets of a QP that asks for it and
 * that the receiver echoes in its ACKs.
 *
 * Two bits of the BTH byte that holds FECN, BECN and resv6a mark it; that
 * byte is a variant field of the ICRC (IBA 7.8.1, Annex A17), so a switch
 * may set them as it sets FECN:
 *
 *   INT_REQ  (resv6a bit 5): the sender asks the ports on the path to
 *            stamp a record (an hpcc requester's request packets).
 *   INT      (resv6a bit 4): an INT block follows the extension headers
 *            of the opcode, before the payload.
 *
 * The block is a 4-byte header and nhops records of 16 bytes, newest
 * first (a port inserts its record right after the header, as INT-MD
 * stacks them, without parsing the others).  Neither the block nor the
 * bytes it adds to the IP and UDP lengths are covered by the ICRC: the
 * ICRC is that of the packet without the block (sroce_icrc_begin_less()),
 * so a switch (a P4 pipeline cannot hash a payload) inserts records and
 * updates the IP/UDP lengths and the IPv4 header checksum only.
 *
 * sroce_int_parse() accepts a block or rejects it (the receive path then
 * lets the ICRC decide whether the packet is a plain one with the bit
 * set, kernel/recv.c); sroce_int_decode() turns an accepted one into the
 * records of struct sroce_cc_int in path order.  Pure: no skb, no lock.
 */
#ifndef _SROCE_PROTO_INT_H
#define _SROCE_PROTO_INT_H

#include "env.h"
#include "cc.h"
#include "hdr.h"
#include "psn.h"

/* The marker bits, in the BTH word of FECN, BECN and DestQP. */
#define SROCE_BTH_INT_REQ 0x20000000U
#define SROCE_BTH_INT 0x10000000U

#define SROCE_INT_VERSION 1

enum sroce_int_type {
	SROCE_INT_COLLECT = 1, /* data packet: the ports on the path stamp */
	SROCE_INT_ECHO = 2, /* ACK: the records of a data packet, sent back */
};

/* The block header. */
struct sroce_int_hdr {
	u8 ver_type; /* version (7:4) = 1, enum sroce_int_type (3:0) */
	u8 nhops; /* records that follow, at most SROCE_CC_INT_MAX_HOPS */
	__be16 resv; /* 0 */
};

/* One port's record, stamped as the packet left the port. */
struct sroce_int_rec {
	__be32 qlen; /* bytes queued at the port (egress queue of the packet) */
	__be32 tx_bytes; /* bytes the port has sent, low 32 bits */
	__be32 ts; /* the port's clock, ns, low 32 bits */
	__be32 speed; /* the port's speed, Mb/s */
};

#define SROCE_INT_HDR_LEN 4
#define SROCE_INT_REC_LEN 16
#define SROCE_INT_MAX_LEN \
	(SROCE_INT_HDR_LEN + SROCE_CC_INT_MAX_HOPS * SROCE_INT_REC_LEN)

static_assert(sizeof(struct sroce_int_hdr) == SROCE_INT_HDR_LEN, "INT hdr");
static_assert(offsetof(struct sroce_int_hdr, nhops) == 1, "INT nhops");
static_assert(offsetof(struct sroce_int_hdr, resv) == 2, "INT resv");
static_assert(sizeof(struct sroce_int_rec) == SROCE_INT_REC_LEN, "INT rec");
static_assert(offsetof(struct sroce_int_rec, tx_bytes) == 4, "INT tx");
static_assert(offsetof(struct sroce_int_rec, ts) == 8, "INT ts");
static_assert(offsetof(struct sroce_int_rec, speed) == 12, "INT speed");

static inline bool sroce_bth_int(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->qpn) & SROCE_BTH_INT;
}

static inline void sroce_bth_set_int(struct sroce_bth *bth, bool on)
{
	sroce_be32_update(&bth->qpn, SROCE_BTH_INT, on ? SROCE_BTH_INT : 0);
}

static inline bool sroce_bth_int_req(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->qpn) & SROCE_BTH_INT_REQ;
}

static inline void sroce_bth_set_int_req(struct sroce_bth *bth, bool on)
{
	sroce_be32_update(&bth->qpn, SROCE_BTH_INT_REQ,
			  on ? SROCE_BTH_INT_REQ : 0);
}

static inline u8 sroce_int_ver_type(u8 version, enum sroce_int_type type)
{
	return (u8)(version << 4) | ((u8)type & 0x0f);
}

/* Bytes of a block of @nhops records. */
static inline u32 sroce_int_len(unsigned int nhops)
{
	return SROCE_INT_HDR_LEN + nhops * SROCE_INT_REC_LEN;
}

/*
 * The block at @p, of which @avail bytes are readable (up to the ICRC):
 * its length if it is a version 1 block of @type with at most
 * SROCE_CC_INT_MAX_HOPS records, its reserved field 0 and all of it
 * within @avail; -EBADMSG otherwise.
 */
int sroce_int_parse(const void *p, size_t avail, enum sroce_int_type type);

/*
 * The records of a block sroce_int_parse() accepted, in path order
 * (hop[0] the first port), speed in kbit/s; ts and tx_bytes keep their 32
 * wire bits (HPCC reads deltas modulo 2^32).
 */
void sroce_int_decode(const void *p, struct sroce_cc_int *t);

/*
 * Write a block of @type holding @t's records (newest first) to @buf
 * (SROCE_INT_MAX_LEN bytes); returns its length.  Values wider than the
 * wire fields keep their low 32 bits (ts, tx_bytes) or saturate (qlen,
 * speed in Mb/s).  @t->nhops beyond SROCE_CC_INT_MAX_HOPS counts as that.
 */
u32 sroce_int_encode(void *buf, enum sroce_int_type type,
		     const struct sroce_cc_int *t);

/*
 * HPCC's sequences (ack.seq, snd_nxt, lastUpdateSeq) are byte offsets
 * compared modulo 2^64: a PSN in the top 24 bits, so that the comparison
 * is the PSN window's, modulo 2^24 (IBA 9.7.1).
 */
static inline u64 sroce_int_seq(u32 psn)
{
	return (u64)sroce_psn_mask(psn) << 40;
}

/*
 * ack.seq of a response with PSN @psn and AETH syndrome @syn (a response
 * without an AETH, a READ middle, passes an ACK's): the sequence of the
 * first request packet it does not acknowledge.  An ACK acknowledges up
 * to @psn (IBA 9.7.5.1); a NAK (PSN sequence error: @psn is the
 * responder's ePSN, to be sent again; or a remote error at @psn) and an
 * RNR NAK (@psn to be retried) acknowledge only up to @psn - 1.
 */
static inline u64 sroce_int_ack_seq(u32 psn, u8 syn)
{
	if (sroce_aeth_syn_type(syn) != SROCE_AETH_ACK)
		return sroce_int_seq(psn);
	return sroce_int_seq(sroce_psn_next(psn));
}

#endif /* _SROCE_PROTO_INT_H */
