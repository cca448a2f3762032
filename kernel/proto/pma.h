/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pma.h - the Performance Management Agent's answers (IBA vol. 1, 16.1):
 * Get(ClassPortInfo), Get(PortCounters) and Get(PortCountersExtended) of
 * the PerfMgmt class, built from sroce's device counters.
 *
 * ib_core asks the driver's process_mad op for these MADs to fill
 * /sys/class/infiniband/<dev>/ports/<n>/counters/ (one Get per file read),
 * and hands it every MAD received on QP1 first, so a remote perfquery is
 * answered by the same code.  The wire layout is typed here with big-endian
 * fields and static_asserts; the glue that reads the counters and talks to
 * ib_core is kernel/mad.c.
 */
#ifndef _SROCE_PROTO_PMA_H
#define _SROCE_PROTO_PMA_H

#include "env.h"

#define SROCE_MAD_BASE_VERSION 1
#define SROCE_MAD_CLASS_PERF_MGMT 0x04
#define SROCE_PMA_CLASS_VERSION 1

/* Methods (IBA vol. 1, 13.4: MAD format). */
#define SROCE_MAD_METHOD_GET 0x01
#define SROCE_MAD_METHOD_SET 0x02
#define SROCE_MAD_METHOD_GET_RESP 0x81

/* MAD status codes, the class-independent bits of Status (IBA 13.4). */
#define SROCE_MAD_STATUS_OK 0x0000
#define SROCE_MAD_STATUS_BAD_VERSION 0x0004
#define SROCE_MAD_STATUS_UNSUPP_METHOD_ATTR 0x000c
#define SROCE_MAD_STATUS_INVALID_FIELD 0x001c

/* PerfMgmt attribute IDs (IBA 16.1). */
#define SROCE_PMA_ATTR_CLASS_PORT_INFO 0x0001
#define SROCE_PMA_ATTR_PORT_COUNTERS 0x0012
#define SROCE_PMA_ATTR_PORT_COUNTERS_EXT 0x001d

/*
 * ClassPortInfo:CapabilityMask bits of the PerfMgmt class (IBA 16.1).
 * EXT_WIDTH_NOIETF: PortCountersExtended holds the data and packet
 * counters but not the unicast/multicast ("IETF") ones.
 */
#define SROCE_PMA_CAP_ALL_PORT_SELECT BIT(8)
#define SROCE_PMA_CAP_EXT_WIDTH BIT(9)
#define SROCE_PMA_CAP_EXT_WIDTH_NOIETF BIT(10)

/* ClassPortInfo:RespTimeValue: 4.096 us * 2^18, about one second. */
#define SROCE_PMA_RESP_TIME 18

/* PortSelect that asks for all ports at once (needs ALL_PORT_SELECT). */
#define SROCE_PMA_ALL_PORTS 0xff

/* MAD common header (IBA 13.4). */
struct sroce_mad_hdr {
	u8 base_version;
	u8 mgmt_class;
	u8 class_version;
	u8 method; /* R(7) Method(6:0) */
	__be16 status;
	__be16 class_specific;
	__be64 tid;
	__be16 attr_id;
	__be16 resv;
	__be32 attr_mod;
};

/* A PerfMgmt MAD (IBA 16.1): 40 reserved bytes, then data. */
struct sroce_pma_mad {
	struct sroce_mad_hdr hdr;
	u8 reserved[40];
	u8 data[192];
};

/* ClassPortInfo, IBA 13.4.8.1. */
struct sroce_class_port_info {
	u8 base_version;
	u8 class_version;
	__be16 capability_mask;
	__be32 cap_mask2_resp_time; /* CapabilityMask2(31:5) RespTime(4:0) */
	u8 redirect_gid[16];
	__be32 redirect_tc_sl_fl;
	__be16 redirect_lid;
	__be16 redirect_pkey;
	__be32 redirect_qp; /* reserved(31:24) QP(23:0) */
	__be32 redirect_qkey;
	u8 trap_gid[16];
	__be32 trap_tc_sl_fl;
	__be16 trap_lid;
	__be16 trap_pkey;
	__be32 trap_hl_qp; /* HopLimit(31:24) QP(23:0) */
	__be32 trap_qkey;
};

/* PortCounters, IBA 16.1.3.5: saturating 4- to 32-bit fields. */
struct sroce_pma_port_counters {
	u8 reserved;
	u8 port_select;
	__be16 counter_select;
	__be16 symbol_error;
	u8 link_error_recovery;
	u8 link_downed;
	__be16 port_rcv_errors;
	__be16 port_rcv_remphys_errors;
	__be16 port_rcv_switch_relay_errors;
	__be16 port_xmit_discards;
	u8 port_xmit_constraint_errors;
	u8 port_rcv_constraint_errors;
	u8 counter_select2;
	u8 link_integrity_overrun; /* LocalLinkIntegrity(7:4) Overrun(3:0) */
	__be16 reserved2;
	__be16 vl15_dropped;
	__be32 port_xmit_data; /* octets / 4 */
	__be32 port_rcv_data; /* octets / 4 */
	__be32 port_xmit_packets;
	__be32 port_rcv_packets;
	__be32 port_xmit_wait;
};

/*
 * PortCountersExtended (IBA 16.1.4): 64-bit fields at 4-byte offsets,
 * hence __packed.
 */
struct sroce_pma_port_counters_ext {
	u8 reserved;
	u8 port_select;
	__be16 counter_select;
	__be32 reserved2;
	__be64 port_xmit_data; /* octets / 4 */
	__be64 port_rcv_data; /* octets / 4 */
	__be64 port_xmit_packets;
	__be64 port_rcv_packets;
	__be64 port_unicast_xmit_packets;
	__be64 port_unicast_rcv_packets;
	__be64 port_multicast_xmit_packets;
	__be64 port_multicast_rcv_packets;
} __packed;

static_assert(sizeof(struct sroce_mad_hdr) == 24);
static_assert(sizeof(struct sroce_pma_mad) == 256);
static_assert(sizeof(struct sroce_class_port_info) == 72);
static_assert(sizeof(struct sroce_pma_port_counters) == 44);
static_assert(offsetof(struct sroce_pma_port_counters, vl15_dropped) == 22);
static_assert(offsetof(struct sroce_pma_port_counters, port_xmit_data) == 24);
static_assert(sizeof(struct sroce_pma_port_counters_ext) == 72);
static_assert(offsetof(struct sroce_pma_port_counters_ext, port_xmit_data) ==
	      8);

/*
 * What the agent reports, read by the caller from the device counters.
 * Byte counts are octets; the agent divides by four as IBA counts data.
 */
struct sroce_pma_counters {
	u64 xmit_bytes;
	u64 rcv_bytes;
	u64 xmit_pkts;
	u64 rcv_pkts;
	u64 rcv_errors;
	u64 xmit_discards;
};

/*
 * True when @in is a request of the PerfMgmt class that the agent answers
 * (Get or Set, any attribute or version): the caller then reads the
 * counters and calls sroce_pma_answer().  Anything else (responses, traps,
 * other classes) is not the agent's and goes on to ib_core's MAD agents.
 */
bool sroce_pma_is_request(const struct sroce_pma_mad *in);

/*
 * Build the GetResp to the request @in into @out (which may not alias
 * @in) for port @port: the counters for Get(PortCounters) and
 * Get(PortCountersExtended), the capabilities for Get(ClassPortInfo), and
 * an error status for anything else (no Set is supported: the counters are
 * never cleared).
 */
void sroce_pma_answer(const struct sroce_pma_mad *in, struct sroce_pma_mad *out,
		      u8 port, const struct sroce_pma_counters *c);

#endif /* _SROCE_PROTO_PMA_H */
