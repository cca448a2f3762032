// SPDX-License-Identifier: GPL-2.0
/*
 * pma.c - Performance Management Agent answers (IBA vol. 1, 16.1): the
 * decisions and the encoding, without locks or allocation (pma.h).
 */
#include "pma.h"

/* PortCounters fields stop at their maximum instead of wrapping. */
static u32 sroce_pma_sat32(u64 v)
{
	return v > U32_MAX ? U32_MAX : (u32)v;
}

static u16 sroce_pma_sat16(u64 v)
{
	return v > 0xffff ? 0xffff : (u16)v;
}

bool sroce_pma_is_request(const struct sroce_pma_mad *in)
{
	return in->hdr.base_version == SROCE_MAD_BASE_VERSION &&
	       in->hdr.mgmt_class == SROCE_MAD_CLASS_PERF_MGMT &&
	       (in->hdr.method == SROCE_MAD_METHOD_GET ||
		in->hdr.method == SROCE_MAD_METHOD_SET);
}

static void sroce_pma_class_port_info(struct sroce_pma_mad *out)
{
	struct sroce_class_port_info *cpi = (void *)out->data;

	cpi->base_version = SROCE_MAD_BASE_VERSION;
	cpi->class_version = SROCE_PMA_CLASS_VERSION;
	cpi->capability_mask = cpu_to_be16(SROCE_PMA_CAP_EXT_WIDTH_NOIETF);
	cpi->cap_mask2_resp_time = cpu_to_be32(SROCE_PMA_RESP_TIME);
}

/*
 * The error counters sroce has no cause for (symbol errors, link
 * recovery, VL15, constraint errors) stay 0, as does PortXmitWait: the
 * ClassPortInfo reply does not claim XmitWait (CapabilityMask bit 12).
 */
static void sroce_pma_port_counters(const struct sroce_pma_mad *in,
				    struct sroce_pma_mad *out,
				    const struct sroce_pma_counters *c)
{
	const struct sroce_pma_port_counters *req = (const void *)in->data;
	struct sroce_pma_port_counters *pc = (void *)out->data;

	pc->port_select = req->port_select;
	pc->counter_select = req->counter_select;
	pc->port_rcv_errors = cpu_to_be16(sroce_pma_sat16(c->rcv_errors));
	pc->port_xmit_discards = cpu_to_be16(sroce_pma_sat16(c->xmit_discards));
	pc->port_xmit_data = cpu_to_be32(sroce_pma_sat32(c->xmit_bytes / 4));
	pc->port_rcv_data = cpu_to_be32(sroce_pma_sat32(c->rcv_bytes / 4));
	pc->port_xmit_packets = cpu_to_be32(sroce_pma_sat32(c->xmit_pkts));
	pc->port_rcv_packets = cpu_to_be32(sroce_pma_sat32(c->rcv_pkts));
}

/* The unicast/multicast counters are absent (EXT_WIDTH_NOIETF): 0. */
static void sroce_pma_port_counters_ext(const struct sroce_pma_mad *in,
					struct sroce_pma_mad *out,
					const struct sroce_pma_counters *c)
{
	const struct sroce_pma_port_counters_ext *req = (const void *)in->data;
	struct sroce_pma_port_counters_ext *pc = (void *)out->data;

	pc->port_select = req->port_select;
	pc->counter_select = req->counter_select;
	pc->port_xmit_data = cpu_to_be64(c->xmit_bytes / 4);
	pc->port_rcv_data = cpu_to_be64(c->rcv_bytes / 4);
	pc->port_xmit_packets = cpu_to_be64(c->xmit_pkts);
	pc->port_rcv_packets = cpu_to_be64(c->rcv_pkts);
}

/*
 * Status of the reply to @in (IBA 13.4): a class version other than 1 is
 * a bad version, Set and unknown attributes are unsupported, and a
 * PortSelect other than @port (AllPortSelect is not claimed) is an
 * invalid field.  PortSelect is byte 1 of both counter attributes.
 */
static u16 sroce_pma_status(const struct sroce_pma_mad *in, u8 port)
{
	u16 attr = be16_to_cpu(in->hdr.attr_id);

	if (in->hdr.class_version != SROCE_PMA_CLASS_VERSION)
		return SROCE_MAD_STATUS_BAD_VERSION;
	if (in->hdr.method != SROCE_MAD_METHOD_GET)
		return SROCE_MAD_STATUS_UNSUPP_METHOD_ATTR;
	switch (attr) {
	case SROCE_PMA_ATTR_CLASS_PORT_INFO:
		return SROCE_MAD_STATUS_OK;
	case SROCE_PMA_ATTR_PORT_COUNTERS:
	case SROCE_PMA_ATTR_PORT_COUNTERS_EXT:
		return in->data[1] == port ? SROCE_MAD_STATUS_OK :
					     SROCE_MAD_STATUS_INVALID_FIELD;
	default:
		return SROCE_MAD_STATUS_UNSUPP_METHOD_ATTR;
	}
}

void sroce_pma_answer(const struct sroce_pma_mad *in, struct sroce_pma_mad *out,
		      u8 port, const struct sroce_pma_counters *c)
{
	u16 status = sroce_pma_status(in, port);

	/* The reply echoes the header (TID, attribute, modifier). */
	*out = *in;
	out->hdr.method = SROCE_MAD_METHOD_GET_RESP;
	out->hdr.status = cpu_to_be16(status);
	if (status != SROCE_MAD_STATUS_OK)
		return;
	memset(out->data, 0, sizeof(out->data));
	switch (be16_to_cpu(in->hdr.attr_id)) {
	case SROCE_PMA_ATTR_CLASS_PORT_INFO:
		sroce_pma_class_port_info(out);
		break;
	case SROCE_PMA_ATTR_PORT_COUNTERS:
		sroce_pma_port_counters(in, out, c);
		break;
	case SROCE_PMA_ATTR_PORT_COUNTERS_EXT:
		sroce_pma_port_counters_ext(in, out, c);
		break;
	}
}
