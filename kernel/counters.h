/* SPDX-License-Identifier: GPL-2.0 */
/*
 * counters.h - per-device statistics, exported as rdma hw stats of port 1
 * (`rdma statistic show link <dev>/1`, /sys/class/infiniband/<dev>/ports/1/
 * hw_counters/).
 *
 * Counters are per-cpu u64s: sroce_counter_add() is one this_cpu_add(), safe
 * from any context (process, softirq, hardirq) without a lock.  Readers sum
 * all possible CPUs; a sum is not a snapshot across counters.
 */
#ifndef _SROCE_COUNTERS_H
#define _SROCE_COUNTERS_H

#include <linux/percpu.h>
#include <rdma/ib_verbs.h>

#include "device.h"

/*
 * Only counters that some code increments are listed.  Keep the order in
 * sync with the name table in counters.c (a static_assert checks the size).
 */
enum sroce_counter {
	/* RoCE v2 packets received on the 4791 socket for this device. */
	SROCE_CNT_RCVD_PKTS,
	/* UDP payload bytes (BTH to ICRC inclusive) of those packets. */
	SROCE_CNT_RCVD_BYTES,
	/* Dropped: too short for a BTH and ICRC. */
	SROCE_CNT_RX_DROP_MALFORMED,
	/* Dropped: transport version or opcode sroce does not implement. */
	SROCE_CNT_RX_DROP_UNSUPPORTED,
	/* Dropped: destination QP does not exist (or is QP0). */
	SROCE_CNT_RX_DROP_NO_QP,
	/* ---- data path, SEND side (T) ---- */
	/* RoCE v2 packets handed to the IP stack. */
	SROCE_CNT_SENT_PKTS,
	/* UDP payload bytes (BTH to ICRC) of those packets. */
	SROCE_CNT_SENT_BYTES,
	/* Not sent: no route, no memory or the IP stack refused. */
	SROCE_CNT_TX_DROP,
	/* Requester: go-back-N restarts (any cause). */
	SROCE_CNT_REQ_RETRANS,
	/* Retransmit timer expiries (mlx5 name). */
	SROCE_CNT_LOCAL_ACK_TIMEOUT_ERR,
	/* PSN sequence error NAKs received (mlx5 name). */
	SROCE_CNT_PACKET_SEQ_ERR,
	/* ACK/response beyond an unanswered READ/atomic (mlx5). */
	SROCE_CNT_IMPLIED_NAK_SEQ_ERR,
	/* RNR NAKs received (mlx5 name). */
	SROCE_CNT_RNR_NAK_RCVD,
	/* Send WQEs failed with RETRY_EXC_ERR. */
	SROCE_CNT_REQ_RETRIES_EXCEEDED,
	/* Send WQEs failed with RNR_RETRY_EXC_ERR. */
	SROCE_CNT_REQ_RNR_RETRIES_EXCEEDED,
	/* Send completions with an error status other than flush. */
	SROCE_CNT_REQ_CQE_ERROR,
	/* Send WQEs flushed (WR_FLUSH_ERR). */
	SROCE_CNT_REQ_CQE_FLUSH,
	/* Completer: stale ACK or response dropped. */
	SROCE_CNT_COMP_DROP_DUP,
	/* Completer: response that fits no outstanding request. */
	SROCE_CNT_COMP_DROP_BAD,
	/* Requester: work item runs (budget, allocation, deferral). */
	SROCE_CNT_REQ_WORK_RUNS,
	/* Requester: a CPU left sending to the QP's transmit CPU. */
	SROCE_CNT_REQ_TX_CPU_WAIT,
	/* ---- data path, RECEIVE side (R) ---- */
	/* Dropped: bad ICRC (mlx5 name). */
	SROCE_CNT_RX_ICRC_ENCAPSULATED,
	/* Dropped: P_Key not the default partition. */
	SROCE_CNT_RX_DROP_BAD_PKEY,
	/* Dropped: opcode transport does not match the QP type. */
	SROCE_CNT_RX_DROP_QP_TYPE,
	/* Dropped: QP not in a state that receives. */
	SROCE_CNT_RX_DROP_QP_STATE,
	/* Dropped: UD/GSI Q_Key mismatch. */
	SROCE_CNT_RX_DROP_BAD_QKEY,
	/* Dropped: QP1 packet longer than a MAD or of an unknown version. */
	SROCE_CNT_RX_DROP_BAD_MAD,
	/* Dropped: RC/UC packet or CNP not between the QP's two addresses. */
	SROCE_CNT_RX_DROP_BAD_ADDR,
	/* Dropped: AETH with a reserved bit, type or NAK code. */
	SROCE_CNT_RX_DROP_BAD_AETH,
	/* RoCE v2 CNPs received. */
	SROCE_CNT_RX_CNP,
	/* Valid packets received with ECN CE (mlx5 name). */
	SROCE_CNT_NP_ECN_MARKED,
	/* CNPs sent by the notification point (mlx5 name). */
	SROCE_CNT_NP_CNP_SENT,
	/* CNPs the reaction point acted on (mlx5 name). */
	SROCE_CNT_RP_CNP_HANDLED,
	/* CNPs ignored: unknown QP, RP disabled or CC none (mlx5 name). */
	SROCE_CNT_RP_CNP_IGNORED,
	/* INT (HPCC, int.c) from the peer: to the algorithm, or to echo. */
	SROCE_CNT_RX_INT,
	/* Dropped: INT bit on RC, no valid block, not plain by its ICRC. */
	SROCE_CNT_RX_INT_MALFORMED,
	/*
	 * INT unused: no on_int or RP off, request not accepted, or no block
	 * (a plain packet with the bit, counted on receipt, before the QP
	 * checks, so also when the packet is then dropped).
	 */
	SROCE_CNT_RX_INT_IGNORED,
	/* ACKs that echoed a request's INT block. */
	SROCE_CNT_TX_INT_ECHO,
	/* Responder: duplicate requests (mlx5 name). */
	SROCE_CNT_DUPLICATE_REQUEST,
	/* Responder: requests after a PSN gap (mlx5 name). */
	SROCE_CNT_OUT_OF_SEQUENCE,
	/* Responder: no receive WQE (RNR NAK or UD drop, mlx5). */
	SROCE_CNT_OUT_OF_BUFFER,
	/* Receive completions with an error other than flush. */
	SROCE_CNT_RESP_CQE_ERROR,
	/* Receive WQEs flushed (WR_FLUSH_ERR). */
	SROCE_CNT_RESP_CQE_FLUSH,
	/* Responder: remote access error NAKs sent. */
	SROCE_CNT_RESP_REMOTE_ACCESS_ERR,
	/* Responder: message longer than the receive WQE. */
	SROCE_CNT_RESP_LOCAL_LENGTH_ERR,
	/* Responder: invalid request NAKs sent (or UC/UD drops). */
	SROCE_CNT_RESP_INVALID_REQ,
	/* Responder: UC packets of a message with a gap. */
	SROCE_CNT_RESP_UC_DROP,
	/*
	 * Responder: READ/atomic responses not sent again after all: a new
	 * request showed the requester had them (resp_rd.c).
	 */
	SROCE_CNT_RESP_RD_REPLAY_SKIPPED,
	/* Responder: ACKs and NAKs sent. */
	SROCE_CNT_RESP_ACKS,
	/* ACKs of message ends that asked for none, sent by the ack timer. */
	SROCE_CNT_RESP_DELAYED_ACKS,
	/* Packets handed to another CPU for processing (rxq.h). */
	SROCE_CNT_RX_STEERED,
	/* Dropped: too many packets of the QP waiting for that CPU. */
	SROCE_CNT_RX_DROP_BACKLOG,
	/*
	 * Dropped: the receive queues of all the device's QPs together held
	 * rx_queue_max_bytes (rxq.h).
	 */
	SROCE_CNT_RX_DROP_DEV_BACKLOG,
	/* Request packet batches sent as one UDP GSO skb (tx_batch). */
	SROCE_CNT_TX_BATCHES,
	/* Retransmit timeouts postponed once: responses waited locally. */
	SROCE_CNT_REQ_TIMEOUT_DEFERRED,
	/* Tail timer: an unrequested ACK was asked for by a go-back-N. */
	SROCE_CNT_REQ_TAIL_PROBES,
	/* Local queue refusals of RC packets or batches, held (also tx_drop). */
	SROCE_CNT_REQ_TX_HELD,
	/* Recovery window cuts by a CNP (RC, cnp_window_cut; comp.c). */
	SROCE_CNT_REQ_CNP_WIN_CUTS,
	/* ---- UD multicast (mcast.c) ---- */
	/* Copies of multicast packets handed to attached QPs. */
	SROCE_CNT_RX_MCAST_PKTS,
	/* Dropped: multicast packet to a group no QP is attached to. */
	SROCE_CNT_RX_DROP_NO_MCAST_GROUP,
	/* Multicast copies not made: no memory for the clone. */
	SROCE_CNT_RX_DROP_MCAST_NOMEM,
	/* IP group of a multicast group not joined on an upper device. */
	SROCE_CNT_MCAST_UPPER_JOIN_ERR,
	/* ---- memory registration of kernel consumers (fr.c) ---- */
	/* IB_WR_REG_MR executed successfully (MR made Valid). */
	SROCE_CNT_FR_REG,
	/* IB_WR_LOCAL_INV executed successfully. */
	SROCE_CNT_FR_LOCAL_INV,
	/* MRs invalidated by a received SEND with Invalidate. */
	SROCE_CNT_FR_REMOTE_INV,
	/* XOFF held for half of pfc_xoff_max_ms in one episode (mlx5). */
	SROCE_CNT_TX_PAUSE_STORM_WARNING,
	/* XOFF held for pfc_xoff_max_ms: XON sent, XOFF stopped (mlx5). */
	SROCE_CNT_TX_PAUSE_STORM_ERROR,
	/* MAC control frames dropped: short, not PFC, reserved bits, no class. */
	SROCE_CNT_RX_PAUSE_MALFORMED,
	/* XOFF not honoured: PFC off, priority disabled or stormed. */
	SROCE_CNT_RX_PAUSE_IGNORED,
	/* Storm watchdog declared a priority stormed (SONiC). */
	SROCE_CNT_PFC_WD_STORM_DETECTED,
	/* Storm watchdog restored a stormed priority (SONiC). */
	SROCE_CNT_PFC_WD_STORM_RESTORED,
	/*
	 * Namespace-wide: RoCE v2 datagrams whose ingress netdev has no
	 * sroce device (shown on every device of the namespace).
	 */
	SROCE_CNT_RX_DROP_NO_DEV,
	/* ---- PFC per priority (pfc.c), mlx5 ethtool names; device ---- */
	/* PFC frames received asking priority 0 to pause (XOFF, mlx5). */
	SROCE_CNT_RX_PRIO0_PAUSE,
	/* PFC frames received asking priority 1 to pause (XOFF, mlx5). */
	SROCE_CNT_RX_PRIO1_PAUSE,
	/* PFC frames received asking priority 2 to pause (XOFF, mlx5). */
	SROCE_CNT_RX_PRIO2_PAUSE,
	/* PFC frames received asking priority 3 to pause (XOFF, mlx5). */
	SROCE_CNT_RX_PRIO3_PAUSE,
	/* PFC frames received asking priority 4 to pause (XOFF, mlx5). */
	SROCE_CNT_RX_PRIO4_PAUSE,
	/* PFC frames received asking priority 5 to pause (XOFF, mlx5). */
	SROCE_CNT_RX_PRIO5_PAUSE,
	/* PFC frames received asking priority 6 to pause (XOFF, mlx5). */
	SROCE_CNT_RX_PRIO6_PAUSE,
	/* PFC frames received asking priority 7 to pause (XOFF, mlx5). */
	SROCE_CNT_RX_PRIO7_PAUSE,
	/* Microseconds priority 0 was held by received PFC (mlx5). */
	SROCE_CNT_RX_PRIO0_PAUSE_DURATION,
	/* Microseconds priority 1 was held by received PFC (mlx5). */
	SROCE_CNT_RX_PRIO1_PAUSE_DURATION,
	/* Microseconds priority 2 was held by received PFC (mlx5). */
	SROCE_CNT_RX_PRIO2_PAUSE_DURATION,
	/* Microseconds priority 3 was held by received PFC (mlx5). */
	SROCE_CNT_RX_PRIO3_PAUSE_DURATION,
	/* Microseconds priority 4 was held by received PFC (mlx5). */
	SROCE_CNT_RX_PRIO4_PAUSE_DURATION,
	/* Microseconds priority 5 was held by received PFC (mlx5). */
	SROCE_CNT_RX_PRIO5_PAUSE_DURATION,
	/* Microseconds priority 6 was held by received PFC (mlx5). */
	SROCE_CNT_RX_PRIO6_PAUSE_DURATION,
	/* Microseconds priority 7 was held by received PFC (mlx5). */
	SROCE_CNT_RX_PRIO7_PAUSE_DURATION,
	/* Priority 0 resumed after a pause: XOFF to XON (mlx5). */
	SROCE_CNT_RX_PRIO0_PAUSE_TRANSITION,
	/* Priority 1 resumed after a pause: XOFF to XON (mlx5). */
	SROCE_CNT_RX_PRIO1_PAUSE_TRANSITION,
	/* Priority 2 resumed after a pause: XOFF to XON (mlx5). */
	SROCE_CNT_RX_PRIO2_PAUSE_TRANSITION,
	/* Priority 3 resumed after a pause: XOFF to XON (mlx5). */
	SROCE_CNT_RX_PRIO3_PAUSE_TRANSITION,
	/* Priority 4 resumed after a pause: XOFF to XON (mlx5). */
	SROCE_CNT_RX_PRIO4_PAUSE_TRANSITION,
	/* Priority 5 resumed after a pause: XOFF to XON (mlx5). */
	SROCE_CNT_RX_PRIO5_PAUSE_TRANSITION,
	/* Priority 6 resumed after a pause: XOFF to XON (mlx5). */
	SROCE_CNT_RX_PRIO6_PAUSE_TRANSITION,
	/* Priority 7 resumed after a pause: XOFF to XON (mlx5). */
	SROCE_CNT_RX_PRIO7_PAUSE_TRANSITION,
	/* PFC frames sent with an XOFF for priority 0, refreshes too (mlx5). */
	SROCE_CNT_TX_PRIO0_PAUSE,
	/* PFC frames sent with an XOFF for priority 1, refreshes too (mlx5). */
	SROCE_CNT_TX_PRIO1_PAUSE,
	/* PFC frames sent with an XOFF for priority 2, refreshes too (mlx5). */
	SROCE_CNT_TX_PRIO2_PAUSE,
	/* PFC frames sent with an XOFF for priority 3, refreshes too (mlx5). */
	SROCE_CNT_TX_PRIO3_PAUSE,
	/* PFC frames sent with an XOFF for priority 4, refreshes too (mlx5). */
	SROCE_CNT_TX_PRIO4_PAUSE,
	/* PFC frames sent with an XOFF for priority 5, refreshes too (mlx5). */
	SROCE_CNT_TX_PRIO5_PAUSE,
	/* PFC frames sent with an XOFF for priority 6, refreshes too (mlx5). */
	SROCE_CNT_TX_PRIO6_PAUSE,
	/* PFC frames sent with an XOFF for priority 7, refreshes too (mlx5). */
	SROCE_CNT_TX_PRIO7_PAUSE,
	/* Microseconds sroce held its peer on priority 0 by XOFF (mlx5). */
	SROCE_CNT_TX_PRIO0_PAUSE_DURATION,
	/* Microseconds sroce held its peer on priority 1 by XOFF (mlx5). */
	SROCE_CNT_TX_PRIO1_PAUSE_DURATION,
	/* Microseconds sroce held its peer on priority 2 by XOFF (mlx5). */
	SROCE_CNT_TX_PRIO2_PAUSE_DURATION,
	/* Microseconds sroce held its peer on priority 3 by XOFF (mlx5). */
	SROCE_CNT_TX_PRIO3_PAUSE_DURATION,
	/* Microseconds sroce held its peer on priority 4 by XOFF (mlx5). */
	SROCE_CNT_TX_PRIO4_PAUSE_DURATION,
	/* Microseconds sroce held its peer on priority 5 by XOFF (mlx5). */
	SROCE_CNT_TX_PRIO5_PAUSE_DURATION,
	/* Microseconds sroce held its peer on priority 6 by XOFF (mlx5). */
	SROCE_CNT_TX_PRIO6_PAUSE_DURATION,
	/* Microseconds sroce held its peer on priority 7 by XOFF (mlx5). */
	SROCE_CNT_TX_PRIO7_PAUSE_DURATION,
	/* XON sent for priority 0 after an XOFF: transitions (mlx5). */
	SROCE_CNT_TX_PRIO0_PAUSE_TRANSITION,
	/* XON sent for priority 1 after an XOFF: transitions (mlx5). */
	SROCE_CNT_TX_PRIO1_PAUSE_TRANSITION,
	/* XON sent for priority 2 after an XOFF: transitions (mlx5). */
	SROCE_CNT_TX_PRIO2_PAUSE_TRANSITION,
	/* XON sent for priority 3 after an XOFF: transitions (mlx5). */
	SROCE_CNT_TX_PRIO3_PAUSE_TRANSITION,
	/* XON sent for priority 4 after an XOFF: transitions (mlx5). */
	SROCE_CNT_TX_PRIO4_PAUSE_TRANSITION,
	/* XON sent for priority 5 after an XOFF: transitions (mlx5). */
	SROCE_CNT_TX_PRIO5_PAUSE_TRANSITION,
	/* XON sent for priority 6 after an XOFF: transitions (mlx5). */
	SROCE_CNT_TX_PRIO6_PAUSE_TRANSITION,
	/* XON sent for priority 7 after an XOFF: transitions (mlx5). */
	SROCE_CNT_TX_PRIO7_PAUSE_TRANSITION,
	SROCE_CNT_MAX,
};

/*
 * Counters before this one are port counters (`rdma statistic`,
 * ports/1/hw_counters/); the per-priority PFC ones from here on are device
 * counters (hw_counters/ of the device): with them, the one netlink
 * message `rdma statistic` gets would not hold every counter.
 */
#define SROCE_CNT_PORT_MAX SROCE_CNT_RX_PRIO0_PAUSE

struct sroce_counters {
	u64 val[SROCE_CNT_MAX];
};

static inline void sroce_counter_add(struct sroce_dev *sdev,
				     enum sroce_counter c, u64 n)
{
	this_cpu_add(sdev->stats->val[c], n);
}

static inline void sroce_counter_inc(struct sroce_dev *sdev,
				     enum sroce_counter c)
{
	this_cpu_inc(sdev->stats->val[c]);
}

/* Allocate / free sdev->stats (zeroed).  Free tolerates a NULL stats. */
int sroce_counters_alloc(struct sroce_dev *sdev);
void sroce_counters_free(struct sroce_dev *sdev);

/* Sum of one counter over all CPUs. */
u64 sroce_counter_read(struct sroce_dev *sdev, enum sroce_counter c);

/* alloc_hw_port_stats and get_hw_stats, merged by device.c. */
extern const struct ib_device_ops sroce_counters_ops;

#endif /* _SROCE_COUNTERS_H */
