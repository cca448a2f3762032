/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace.h - tracepoints of sroce (system "sroce"), for perf and trace-cmd:
 *   perf record -e 'sroce:*'   or   trace-cmd record -e sroce
 * Documented in Documentation/cc.rst.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sroce

#if !defined(_SROCE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SROCE_TRACE_H

#include <linux/tracepoint.h>

/* The TRACE_EVENT layout of include/trace/events/, not clang-format's. */
/* clang-format off */

/* A valid packet for @qpn arrived with ECN CE (notification point). */
TRACE_EVENT(sroce_ce_rcvd,
	    TP_PROTO(u32 qpn, u32 psn),
	    TP_ARGS(qpn, psn),
	    TP_STRUCT__entry(__field(u32, qpn) __field(u32, psn)),
	    TP_fast_assign(__entry->qpn = qpn; __entry->psn = psn;),
	    TP_printk("qpn=%u psn=%u", __entry->qpn, __entry->psn));

/* QP @qpn sent a CNP to the remote QP @dqpn. */
TRACE_EVENT(sroce_cnp_sent,
	    TP_PROTO(u32 qpn, u32 dqpn),
	    TP_ARGS(qpn, dqpn),
	    TP_STRUCT__entry(__field(u32, qpn) __field(u32, dqpn)),
	    TP_fast_assign(__entry->qpn = qpn; __entry->dqpn = dqpn;),
	    TP_printk("qpn=%u dqpn=%u", __entry->qpn, __entry->dqpn));

/* A CNP for @qpn arrived; handled by the RP or ignored. */
TRACE_EVENT(sroce_cnp_rcvd,
	    TP_PROTO(u32 qpn, bool handled),
	    TP_ARGS(qpn, handled),
	    TP_STRUCT__entry(__field(u32, qpn) __field(bool, handled)),
	    TP_fast_assign(__entry->qpn = qpn; __entry->handled = handled;),
	    TP_printk("qpn=%u handled=%d", __entry->qpn, __entry->handled));

/* The congestion control rate of @qpn changed (kbit/s, enum sroce_cc_reason). */
TRACE_EVENT(sroce_cc_rate,
	    TP_PROTO(u32 qpn, u64 old_rate, u64 new_rate, u8 reason),
	    TP_ARGS(qpn, old_rate, new_rate, reason),
	    TP_STRUCT__entry(__field(u32, qpn) __field(u64, old_rate)
			     __field(u64, new_rate) __field(u8, reason)),
	    TP_fast_assign(__entry->qpn = qpn; __entry->old_rate = old_rate;
			   __entry->new_rate = new_rate;
			   __entry->reason = reason;),
	    TP_printk("qpn=%u old=%llu new=%llu reason=%s", __entry->qpn,
		      __entry->old_rate, __entry->new_rate,
		      __print_symbolic(__entry->reason, { 0, "none" },
				       { 1, "cut" }, { 2, "first_cnp" },
				       { 3, "fast_recovery" },
				       { 4, "additive" }, { 5, "hyper" },
				       { 6, "recovered" })));

/* The algorithm's alpha of @qpn (Q20: 1048576 = 1.0) after a change. */
TRACE_EVENT(sroce_cc_alpha,
	    TP_PROTO(u32 qpn, u32 alpha),
	    TP_ARGS(qpn, alpha),
	    TP_STRUCT__entry(__field(u32, qpn) __field(u32, alpha)),
	    TP_fast_assign(__entry->qpn = qpn; __entry->alpha = alpha;),
	    TP_printk("qpn=%u alpha=%u", __entry->qpn, __entry->alpha));

/* The requester of @qpn goes back to @psn (go-back-N). */
TRACE_EVENT(sroce_retransmit,
	    TP_PROTO(u32 qpn, u32 psn),
	    TP_ARGS(qpn, psn),
	    TP_STRUCT__entry(__field(u32, qpn) __field(u32, psn)),
	    TP_fast_assign(__entry->qpn = qpn; __entry->psn = psn;),
	    TP_printk("qpn=%u psn=%u", __entry->qpn, __entry->psn));

/* clang-format on */

#endif /* _SROCE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
