// SPDX-License-Identifier: GPL-2.0
/*
 * counters.c - per-cpu device statistics exported as rdma hw stats.
 *
 * The values are per-cpu u64s in sdev->stats (counters.h); get_hw_stats
 * sums them.  rx_drop_no_dev is the exception: a packet whose ingress
 * netdev has no sroce device cannot be charged to a device, so it is
 * counted per namespace (net.c) and every device of that namespace
 * reports the namespace's total.
 */
#include <linux/build_bug.h>
#include <linux/cpumask.h>
#include <linux/percpu.h>
#include <rdma/ib_verbs.h>

#include "counters.h"
#include "device.h"
#include "net.h"

/*
 * Names as `rdma statistic` and hw_counters/ show them: the port counters
 * [0, SROCE_CNT_PORT_MAX), then the device ones (counters.h).
 */
static const struct rdma_stat_desc sroce_stat_descs[] = {
	[SROCE_CNT_RCVD_PKTS] = { .name = "rcvd_pkts" },
	[SROCE_CNT_RCVD_BYTES] = { .name = "rcvd_bytes" },
	[SROCE_CNT_RX_DROP_MALFORMED] = { .name = "rx_drop_malformed" },
	[SROCE_CNT_RX_DROP_UNSUPPORTED] = { .name = "rx_drop_unsupported" },
	[SROCE_CNT_RX_DROP_NO_QP] = { .name = "rx_drop_no_qp" },
	[SROCE_CNT_SENT_PKTS] = { .name = "sent_pkts" },
	[SROCE_CNT_SENT_BYTES] = { .name = "sent_bytes" },
	[SROCE_CNT_TX_DROP] = { .name = "tx_drop" },
	[SROCE_CNT_REQ_RETRANS] = { .name = "req_retransmits" },
	[SROCE_CNT_LOCAL_ACK_TIMEOUT_ERR] = { .name = "local_ack_timeout_err" },
	[SROCE_CNT_PACKET_SEQ_ERR] = { .name = "packet_seq_err" },
	[SROCE_CNT_IMPLIED_NAK_SEQ_ERR] = { .name = "implied_nak_seq_err" },
	[SROCE_CNT_RNR_NAK_RCVD] = { .name = "rnr_nak_retry_err" },
	[SROCE_CNT_REQ_RETRIES_EXCEEDED] = { .name = "req_transport_retries_exceeded" },
	[SROCE_CNT_REQ_RNR_RETRIES_EXCEEDED] = { .name = "req_rnr_retries_exceeded" },
	[SROCE_CNT_REQ_CQE_ERROR] = { .name = "req_cqe_error" },
	[SROCE_CNT_REQ_CQE_FLUSH] = { .name = "req_cqe_flush_error" },
	[SROCE_CNT_COMP_DROP_DUP] = { .name = "comp_duplicate_response" },
	[SROCE_CNT_COMP_DROP_BAD] = { .name = "comp_drop_invalid" },
	[SROCE_CNT_REQ_WORK_RUNS] = { .name = "req_work_runs" },
	[SROCE_CNT_REQ_TX_CPU_WAIT] = { .name = "req_tx_cpu_wait" },
	[SROCE_CNT_RX_ICRC_ENCAPSULATED] = { .name = "rx_icrc_encapsulated" },
	[SROCE_CNT_RX_DROP_BAD_PKEY] = { .name = "rx_drop_bad_pkey" },
	[SROCE_CNT_RX_DROP_QP_TYPE] = { .name = "rx_drop_qp_type" },
	[SROCE_CNT_RX_DROP_QP_STATE] = { .name = "rx_drop_qp_state" },
	[SROCE_CNT_RX_DROP_BAD_QKEY] = { .name = "rx_drop_bad_qkey" },
	[SROCE_CNT_RX_DROP_BAD_MAD] = { .name = "rx_drop_bad_mad" },
	[SROCE_CNT_RX_DROP_BAD_ADDR] = { .name = "rx_drop_bad_addr" },
	[SROCE_CNT_RX_DROP_BAD_AETH] = { .name = "rx_drop_bad_aeth" },
	[SROCE_CNT_RX_CNP] = { .name = "rx_cnp" },
	[SROCE_CNT_NP_ECN_MARKED] = { .name = "np_ecn_marked_roce_packets" },
	[SROCE_CNT_NP_CNP_SENT] = { .name = "np_cnp_sent" },
	[SROCE_CNT_RP_CNP_HANDLED] = { .name = "rp_cnp_handled" },
	[SROCE_CNT_RP_CNP_IGNORED] = { .name = "rp_cnp_ignored" },
	[SROCE_CNT_RX_INT] = { .name = "rx_int_pkts" },
	[SROCE_CNT_RX_INT_MALFORMED] = { .name = "rx_int_malformed" },
	[SROCE_CNT_RX_INT_IGNORED] = { .name = "rx_int_ignored" },
	[SROCE_CNT_TX_INT_ECHO] = { .name = "tx_int_echoed" },
	[SROCE_CNT_DUPLICATE_REQUEST] = { .name = "duplicate_request" },
	[SROCE_CNT_OUT_OF_SEQUENCE] = { .name = "out_of_sequence" },
	[SROCE_CNT_OUT_OF_BUFFER] = { .name = "out_of_buffer" },
	[SROCE_CNT_RESP_CQE_ERROR] = { .name = "resp_cqe_error" },
	[SROCE_CNT_RESP_CQE_FLUSH] = { .name = "resp_cqe_flush_error" },
	[SROCE_CNT_RESP_REMOTE_ACCESS_ERR] = { .name = "resp_remote_access_errors" },
	[SROCE_CNT_RESP_LOCAL_LENGTH_ERR] = { .name = "resp_local_length_error" },
	[SROCE_CNT_RESP_INVALID_REQ] = { .name = "resp_invalid_request" },
	[SROCE_CNT_RESP_UC_DROP] = { .name = "rx_drop_uc_msg" },
	[SROCE_CNT_RESP_RD_REPLAY_SKIPPED] = { .name = "resp_rd_replay_skipped" },
	[SROCE_CNT_RESP_ACKS] = { .name = "resp_acks_sent" },
	[SROCE_CNT_RESP_DELAYED_ACKS] = { .name = "resp_delayed_acks" },
	[SROCE_CNT_RX_STEERED] = { .name = "rx_steered_pkts" },
	[SROCE_CNT_RX_DROP_BACKLOG] = { .name = "rx_drop_backlog" },
	[SROCE_CNT_RX_DROP_DEV_BACKLOG] = { .name = "rx_drop_dev_backlog" },
	[SROCE_CNT_TX_BATCHES] = { .name = "tx_batches" },
	[SROCE_CNT_REQ_TIMEOUT_DEFERRED] = { .name = "req_timeout_deferred" },
	[SROCE_CNT_REQ_TAIL_PROBES] = { .name = "req_tail_probes" },
	[SROCE_CNT_REQ_TX_HELD] = { .name = "req_tx_held" },
	[SROCE_CNT_REQ_CNP_WIN_CUTS] = { .name = "req_cnp_window_cuts" },
	[SROCE_CNT_RX_MCAST_PKTS] = { .name = "rx_mcast_pkts" },
	[SROCE_CNT_RX_DROP_NO_MCAST_GROUP] = { .name = "rx_drop_no_mcast_group" },
	[SROCE_CNT_RX_DROP_MCAST_NOMEM] = { .name = "rx_drop_mcast_nomem" },
	[SROCE_CNT_MCAST_UPPER_JOIN_ERR] = { .name = "mcast_upper_join_err" },
	[SROCE_CNT_FR_REG] = { .name = "fast_reg_mr" },
	[SROCE_CNT_FR_LOCAL_INV] = { .name = "local_invalidate" },
	[SROCE_CNT_FR_REMOTE_INV] = { .name = "remote_invalidate" },
	[SROCE_CNT_RX_DROP_NO_DEV] = { .name = "rx_drop_no_dev" },
	[SROCE_CNT_RX_PRIO0_PAUSE] = { .name = "rx_prio0_pause" },
	[SROCE_CNT_RX_PRIO1_PAUSE] = { .name = "rx_prio1_pause" },
	[SROCE_CNT_RX_PRIO2_PAUSE] = { .name = "rx_prio2_pause" },
	[SROCE_CNT_RX_PRIO3_PAUSE] = { .name = "rx_prio3_pause" },
	[SROCE_CNT_RX_PRIO4_PAUSE] = { .name = "rx_prio4_pause" },
	[SROCE_CNT_RX_PRIO5_PAUSE] = { .name = "rx_prio5_pause" },
	[SROCE_CNT_RX_PRIO6_PAUSE] = { .name = "rx_prio6_pause" },
	[SROCE_CNT_RX_PRIO7_PAUSE] = { .name = "rx_prio7_pause" },
	[SROCE_CNT_RX_PRIO0_PAUSE_DURATION] = { .name = "rx_prio0_pause_duration" },
	[SROCE_CNT_RX_PRIO1_PAUSE_DURATION] = { .name = "rx_prio1_pause_duration" },
	[SROCE_CNT_RX_PRIO2_PAUSE_DURATION] = { .name = "rx_prio2_pause_duration" },
	[SROCE_CNT_RX_PRIO3_PAUSE_DURATION] = { .name = "rx_prio3_pause_duration" },
	[SROCE_CNT_RX_PRIO4_PAUSE_DURATION] = { .name = "rx_prio4_pause_duration" },
	[SROCE_CNT_RX_PRIO5_PAUSE_DURATION] = { .name = "rx_prio5_pause_duration" },
	[SROCE_CNT_RX_PRIO6_PAUSE_DURATION] = { .name = "rx_prio6_pause_duration" },
	[SROCE_CNT_RX_PRIO7_PAUSE_DURATION] = { .name = "rx_prio7_pause_duration" },
	[SROCE_CNT_RX_PRIO0_PAUSE_TRANSITION] = { .name = "rx_prio0_pause_transition" },
	[SROCE_CNT_RX_PRIO1_PAUSE_TRANSITION] = { .name = "rx_prio1_pause_transition" },
	[SROCE_CNT_RX_PRIO2_PAUSE_TRANSITION] = { .name = "rx_prio2_pause_transition" },
	[SROCE_CNT_RX_PRIO3_PAUSE_TRANSITION] = { .name = "rx_prio3_pause_transition" },
	[SROCE_CNT_RX_PRIO4_PAUSE_TRANSITION] = { .name = "rx_prio4_pause_transition" },
	[SROCE_CNT_RX_PRIO5_PAUSE_TRANSITION] = { .name = "rx_prio5_pause_transition" },
	[SROCE_CNT_RX_PRIO6_PAUSE_TRANSITION] = { .name = "rx_prio6_pause_transition" },
	[SROCE_CNT_RX_PRIO7_PAUSE_TRANSITION] = { .name = "rx_prio7_pause_transition" },
	[SROCE_CNT_TX_PRIO0_PAUSE] = { .name = "tx_prio0_pause" },
	[SROCE_CNT_TX_PRIO1_PAUSE] = { .name = "tx_prio1_pause" },
	[SROCE_CNT_TX_PRIO2_PAUSE] = { .name = "tx_prio2_pause" },
	[SROCE_CNT_TX_PRIO3_PAUSE] = { .name = "tx_prio3_pause" },
	[SROCE_CNT_TX_PRIO4_PAUSE] = { .name = "tx_prio4_pause" },
	[SROCE_CNT_TX_PRIO5_PAUSE] = { .name = "tx_prio5_pause" },
	[SROCE_CNT_TX_PRIO6_PAUSE] = { .name = "tx_prio6_pause" },
	[SROCE_CNT_TX_PRIO7_PAUSE] = { .name = "tx_prio7_pause" },
	[SROCE_CNT_TX_PRIO0_PAUSE_DURATION] = { .name = "tx_prio0_pause_duration" },
	[SROCE_CNT_TX_PRIO1_PAUSE_DURATION] = { .name = "tx_prio1_pause_duration" },
	[SROCE_CNT_TX_PRIO2_PAUSE_DURATION] = { .name = "tx_prio2_pause_duration" },
	[SROCE_CNT_TX_PRIO3_PAUSE_DURATION] = { .name = "tx_prio3_pause_duration" },
	[SROCE_CNT_TX_PRIO4_PAUSE_DURATION] = { .name = "tx_prio4_pause_duration" },
	[SROCE_CNT_TX_PRIO5_PAUSE_DURATION] = { .name = "tx_prio5_pause_duration" },
	[SROCE_CNT_TX_PRIO6_PAUSE_DURATION] = { .name = "tx_prio6_pause_duration" },
	[SROCE_CNT_TX_PRIO7_PAUSE_DURATION] = { .name = "tx_prio7_pause_duration" },
	[SROCE_CNT_TX_PRIO0_PAUSE_TRANSITION] = { .name = "tx_prio0_pause_transition" },
	[SROCE_CNT_TX_PRIO1_PAUSE_TRANSITION] = { .name = "tx_prio1_pause_transition" },
	[SROCE_CNT_TX_PRIO2_PAUSE_TRANSITION] = { .name = "tx_prio2_pause_transition" },
	[SROCE_CNT_TX_PRIO3_PAUSE_TRANSITION] = { .name = "tx_prio3_pause_transition" },
	[SROCE_CNT_TX_PRIO4_PAUSE_TRANSITION] = { .name = "tx_prio4_pause_transition" },
	[SROCE_CNT_TX_PRIO5_PAUSE_TRANSITION] = { .name = "tx_prio5_pause_transition" },
	[SROCE_CNT_TX_PRIO6_PAUSE_TRANSITION] = { .name = "tx_prio6_pause_transition" },
	[SROCE_CNT_TX_PRIO7_PAUSE_TRANSITION] = { .name = "tx_prio7_pause_transition" },
	[SROCE_CNT_TX_PAUSE_STORM_WARNING] = { .name = "tx_pause_storm_warning_events" },
	[SROCE_CNT_TX_PAUSE_STORM_ERROR] = { .name = "tx_pause_storm_error_events" },
	[SROCE_CNT_RX_PAUSE_MALFORMED] = { .name = "rx_pause_malformed" },
	[SROCE_CNT_RX_PAUSE_IGNORED] = { .name = "rx_pause_ignored" },
	[SROCE_CNT_PFC_WD_STORM_DETECTED] = { .name = "pfc_wd_storm_detected" },
	[SROCE_CNT_PFC_WD_STORM_RESTORED] = { .name = "pfc_wd_storm_restored" },
};

static_assert(ARRAY_SIZE(sroce_stat_descs) == SROCE_CNT_MAX);

int sroce_counters_alloc(struct sroce_dev *sdev)
{
	sdev->stats = alloc_percpu(struct sroce_counters);
	return sdev->stats ? 0 : -ENOMEM;
}

void sroce_counters_free(struct sroce_dev *sdev)
{
	free_percpu(sdev->stats);
	sdev->stats = NULL;
}

u64 sroce_counter_read(struct sroce_dev *sdev, enum sroce_counter c)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(sdev->stats, cpu)->val[c]);
	return sum;
}

static struct rdma_hw_stats *sroce_alloc_port_stats(struct ib_device *ibdev,
						    u32 port)
{
	return rdma_alloc_hw_stats_struct(sroce_stat_descs, SROCE_CNT_PORT_MAX,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static struct rdma_hw_stats *sroce_alloc_dev_stats(struct ib_device *ibdev)
{
	return rdma_alloc_hw_stats_struct(&sroce_stat_descs[SROCE_CNT_PORT_MAX],
					  SROCE_CNT_MAX - SROCE_CNT_PORT_MAX,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/*
 * ib_core serialises calls per stats struct (stats->lock).  Port 0 is the
 * device's set.
 */
static int sroce_get_hw_stats(struct ib_device *ibdev,
			      struct rdma_hw_stats *stats, u32 port, int index)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	int first = port ? 0 : SROCE_CNT_PORT_MAX;
	int end = port ? SROCE_CNT_PORT_MAX : SROCE_CNT_MAX;
	int i;

	if (stats->num_counters != end - first)
		return -EINVAL;
	for (i = first; i < end; i++)
		stats->value[i - first] = sroce_counter_read(sdev, i);
	/* sdev->sn is set for the whole registered life of the device. */
	if (port)
		stats->value[SROCE_CNT_RX_DROP_NO_DEV] =
			sdev->sn ? sroce_net_rx_drop_no_dev(sdev->sn) : 0;
	return stats->num_counters;
}

const struct ib_device_ops sroce_counters_ops = {
	.alloc_hw_port_stats = sroce_alloc_port_stats,
	.alloc_hw_device_stats = sroce_alloc_dev_stats,
	.get_hw_stats = sroce_get_hw_stats,
};
