// SPDX-License-Identifier: GPL-2.0
/*
 * mad.c - process_mad: answers PerfMgmt Gets from the device counters.
 *
 * ib_core calls process_mad in two places:
 *  - sysfs (get_perf_mad): once when a port is set up, with
 *    Get(ClassPortInfo), to choose the table of ports/<n>/counters/, then
 *    on every read of one of its files, with Get(PortCounters) or
 *    Get(PortCountersExtended) and PortSelect = the port; in_wc is NULL;
 *  - the MAD layer, for every MAD received on QP1 before its agents see
 *    it ("right of first refusal"), in its receive completion handler.
 * Both run in process context and may run concurrently: the agent keeps no
 * state, and the counters are per-cpu sums read without a lock.
 *
 * Everything that is not a PerfMgmt request goes on to ib_core untouched
 * (IB_MAD_RESULT_SUCCESS without REPLY): CM and SA MADs to their agents,
 * and unmatched Gets to ib_core's own "unsupported" response.
 */
#include <rdma/ib_mad.h>

#include "counters.h"
#include "device.h"
#include "mad.h"
#include "proto/pma.h"

static_assert(sizeof(struct ib_mad) == sizeof(struct sroce_pma_mad));

/*
 * PortRcvErrors are packets received and dropped as damaged: too short,
 * bad ICRC or a transport version sroce does not speak.  PortXmitDiscards
 * are packets the IP stack did not take (tx_drop).  Data counts the UDP
 * payload, BTH to ICRC, as sent_bytes / rcvd_bytes do.
 */
static void sroce_mad_read_counters(struct sroce_dev *sdev,
				    struct sroce_pma_counters *c)
{
	c->xmit_bytes = sroce_counter_read(sdev, SROCE_CNT_SENT_BYTES);
	c->rcv_bytes = sroce_counter_read(sdev, SROCE_CNT_RCVD_BYTES);
	c->xmit_pkts = sroce_counter_read(sdev, SROCE_CNT_SENT_PKTS);
	c->rcv_pkts = sroce_counter_read(sdev, SROCE_CNT_RCVD_PKTS);
	c->rcv_errors =
		sroce_counter_read(sdev, SROCE_CNT_RX_DROP_MALFORMED) +
		sroce_counter_read(sdev, SROCE_CNT_RX_ICRC_ENCAPSULATED) +
		sroce_counter_read(sdev, SROCE_CNT_RX_DROP_UNSUPPORTED);
	c->xmit_discards = sroce_counter_read(sdev, SROCE_CNT_TX_DROP);
}

static int sroce_process_mad(struct ib_device *ibdev, int mad_flags,
			     u32 port_num, const struct ib_wc *in_wc,
			     const struct ib_grh *in_grh,
			     const struct ib_mad *in_mad,
			     struct ib_mad *out_mad, size_t *out_mad_size,
			     u16 *out_mad_pkey_index)
{
	const struct sroce_pma_mad *in = (const void *)in_mad;
	struct sroce_pma_counters c;

	if (*out_mad_size < sizeof(struct sroce_pma_mad) ||
	    !sroce_pma_is_request(in))
		return IB_MAD_RESULT_SUCCESS;
	sroce_mad_read_counters(to_sdev(ibdev), &c);
	sroce_pma_answer(in, (struct sroce_pma_mad *)out_mad, port_num, &c);
	*out_mad_size = sizeof(struct sroce_pma_mad);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}

const struct ib_device_ops sroce_mad_ops = {
	.process_mad = sroce_process_mad,
};
