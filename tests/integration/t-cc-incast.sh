#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-cc-incast.sh - DCQCN end to end on the congestion control testbed of
# cc-lib.sh (also bench/cc.sh's): two senders, one receiver, each in its
# own namespace with a sroce device, joined by a bridge whose port towards
# the receiver is the bottleneck (htb 50 Mbit/s, 5 on the debug kernel,
# + RED in ECN mode).  Both senders run ib_write_bw to the receiver at
# once.  Checked: RED marks, the receiver counts the marks and sends CNPs,
# the senders handle exactly the CNPs sent, the tracepoints show rate
# cuts, both flows make progress.
# Goodput, Jain's index and utilisation are logged; `make bench-cc`
# measures them over more scenarios (timing under TCG is too noisy for a
# pass/fail threshold on fairness).

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/dp-lib.sh"
cc_hosts="r s1 s2"
# The debug kernel's two senders reach 7-9 Mbit/s together (sessions 21
# and 23), so a 50 Mbit/s bottleneck never queues: RED marked 2 and 5
# packets, all CNPs went to one sender.  There it is 5 Mbit/s, and the
# testbed's rate floor and hyper increase step (10 Mb/s, cc-lib.sh) are
# scaled with it to 1 Mb/s.
if debug_kernel; then
	: "${SROCE_CC_RATE:=5}"
	: "${SROCE_CC_KNOBS:=roce_rp/rpg_min_rate=1 roce_rp/rpg_hai_rate=1}"
fi
. "$(dirname "${BASH_SOURCE[0]}")/cc-lib.sh"

SECS=${CC_INCAST_SECS:-8}

ktap_begin 9 "DCQCN incast through a RED/ECN bottleneck"

trap cc_topo_down EXIT

cc_testbed_up() {
	cc_topo_up && cc_bottleneck
}

if ! ktap_check "load sroce.ko" load_sroce ||
	! ktap_check "bridge, three namespaces, bottleneck on r-br" \
		cc_testbed_up; then
	ktap_skip_rest "no topology"
	ktap_done
fi

# DCQCN (mlx flavour) with the testbed's knobs, as bench/cc.sh.
cc_knobs dcqcn mlx


tr=/sys/kernel/tracing
[ -d $tr/events ] || mount -t tracefs nodev $tr 2>/dev/null
traced=0
if [ -d $tr/events/sroce ]; then
	echo >$tr/trace
	echo 1 >$tr/events/sroce/sroce_cc_rate/enable && traced=1
fi

m0=$(cc_cnt r np_ecn_marked_roce_packets)
b0=$(cc_sum_cnt tx_batches s1 s2)
c0=$(cc_cnt r np_cnp_sent)
h0=$(cc_sum_cnt rp_cnp_handled s1 s2)
out=$(mktemp)
cc_perf_start 2 "$SECS" 18900 32 14 "$out"
wait
[ $traced -eq 1 ] && echo 0 >$tr/events/sroce/sroce_cc_rate/enable

gp1=$(cc_goodput "$out.1" "$SECS")
gp2=$(cc_goodput "$out.2" "$SECS")
ktap_result "both flows report goodput" \
	"$(awk -v a="${gp1:-0}" -v b="${gp2:-0}" 'BEGIN { exit !(a > 0 && b > 0) }'; echo $?)" \
	"$(tail -n 4 "$out.1")" "$(tail -n 4 "$out.2")"
rm -f "$out" "$out".*
diag "goodput ${gp1:-0} + ${gp2:-0} Mb/s of $cc_rate, Jain $(cc_jain "${gp1:-0}" "${gp2:-0}")"

q=$(tc -s qdisc show dev r-br)
marked=$(cc_red_stat marked)
ktap_result "RED marked packets CE at the bottleneck" \
	"$([ "${marked:-0}" -gt 0 ]; echo $?)" "$q"
dm=$(($(cc_cnt r np_ecn_marked_roce_packets) - m0))
dc=$(($(cc_cnt r np_cnp_sent) - c0))
dh=$(($(cc_sum_cnt rp_cnp_handled s1 s2) - h0))
# RED marks an skb: a batch (tx_batch, sent until the first CNP makes a
# QP rate-limited) is one skb of up to 16 packets, all of which arrive CE.
db=$(($(cc_sum_cnt tx_batches s1 s2) - b0))
diag "RED marked $marked, np_ecn_marked_roce_packets +$dm, np_cnp_sent +$dc, rp_cnp_handled +$dh, tx_batches +$db"
ktap_result "the receiver counted the marks (<= RED's count, 16 per batch)" \
	"$([ "$dm" -gt 0 ] && [ "$dm" -le $((${marked:-0} + 15 * db)) ]; echo $?)"
ktap_result "the receiver sent CNPs (at most one per mark)" \
	"$([ "$dc" -gt 0 ] && [ "$dc" -le "$dm" ]; echo $?)"
ktap_result "the senders handled every CNP sent (rp_cnp_handled)" \
	"$([ "$dh" -eq "$dc" ]; echo $?)"
ktap_result "both senders handled CNPs" \
	"$([ "$(cc_cnt s1 rp_cnp_handled)" -gt 0 ] && [ "$(cc_cnt s2 rp_cnp_handled)" -gt 0 ]; echo $?)"
if [ $traced -eq 1 ]; then
	cuts=$(grep -c 'sroce_cc_rate:.*reason=cut' $tr/trace)
	ktap_result "sroce:sroce_cc_rate shows rate cuts" \
		"$([ "$cuts" -gt 0 ]; echo $?)" "$cuts cuts"
else
	ktap_skip "sroce:sroce_cc_rate shows rate cuts" "no tracefs"
fi

ktap_done
