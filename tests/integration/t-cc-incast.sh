#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-cc-incast.sh - DCQCN end to end: two senders, one receiver, each in its
# own namespace with a sroce device, joined by a bridge whose port towards
# the receiver is the bottleneck (htb 100 Mbit/s + RED in ECN mode).  Both
# senders run ib_write_bw to the receiver at once.  Checked: RED marks, the
# receiver counts the marks and sends CNPs, the senders handle exactly the
# CNPs sent, the tracepoints show rate cuts, both flows make progress.
# Goodput, Jain's index and utilisation are logged; `make bench-cc`
# measures them over more scenarios (timing under TCG is too noisy for a
# pass/fail threshold on fairness).
#
#   +-- s1 --+  +-- s2 --+              +--- r ---+
#   |sroce_s1|  |sroce_s2|              | sroce_r |
#   |  eth0  |  |  eth0  |              |  eth0   |
#   +---|----+  +---|----+              +----|----+
#     s1-br       s2-br      [br-cc]       r-br: htb 100mbit + RED ecn
#   init_net: bridge br-cc with s1-br, s2-br, r-br

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/dp-lib.sh"

SECS=${CC_INCAST_SECS:-6}
hosts="r s1 s2"

ktap_begin 9 "DCQCN incast through a RED/ECN bottleneck"

# shellcheck disable=SC2317 # run by the EXIT trap
incast_cleanup() {
	local h
	for h in $hosts; do
		rdma link delete "sroce_$h" >/dev/null 2>&1
		ip netns del "$h" >/dev/null 2>&1
	done
	ip link del br-cc >/dev/null 2>&1
}
trap incast_cleanup EXIT

host_ip() {
	case $1 in
	r) echo 10.20.0.1 ;;
	s*) echo "10.20.0.$((${1#s} + 1))" ;;
	esac
}

topo() {
	local h
	ip link add br-cc type bridge && ip link set br-cc up || return 1
	for h in $hosts; do
		ip netns add "$h" && ip -n "$h" link set lo up &&
			ip link add "$h-br" type veth peer name eth0 netns "$h" &&
			ip link set "$h-br" master br-cc up &&
			ip -n "$h" addr add "$(host_ip "$h")/24" dev eth0 &&
			ip -n "$h" link set eth0 up &&
			add_link "sroce_$h" sroce eth0 "$h" || return 1
	done
	for h in $hosts; do
		wait_gid "sroce_$h" "$(host_ip "$h")" || return 1
	done
	tc qdisc add dev r-br root handle 1: htb default 10 &&
		tc class add dev r-br parent 1: classid 1:10 htb rate 100mbit \
			ceil 100mbit &&
		tc qdisc add dev r-br parent 1:10 handle 10: red limit 400000 \
			min 15000 max 45000 avpkt 1100 burst 20 probability 0.1 \
			bandwidth 100mbit ecn
}

if ! ktap_check "load sroce.ko" load_sroce ||
	! ktap_check "bridge, three namespaces, bottleneck on r-br" topo; then
	ktap_skip_rest "no topology"
	ktap_done
fi

# DCQCN (mlx flavour) scaled to the 100 Mbit/s bench as bench/cc.sh does.
for h in $hosts; do
	d=/sys/class/infiniband/sroce_$h/ecn
	echo dcqcn >$d/roce_rp/cc_algo
	echo 1000 >$d/roce_rp/rpg_max_rate
	echo 1 >$d/roce_rp/rpg_ai_rate
	echo 5 >$d/roce_rp/rpg_hai_rate
	echo 50 >$d/roce_rp/dce_tcp_rtt
	echo 10 >$d/roce_np/min_time_between_cnps
	echo 1 >$d/roce_rp/clamp_tgt_rate
done

cnt() { cat "/sys/class/infiniband/sroce_$1/ports/1/hw_counters/$2"; }

tr=/sys/kernel/tracing
[ -d $tr/events ] || mount -t tracefs nodev $tr 2>/dev/null
traced=0
if [ -d $tr/events/sroce ]; then
	echo >$tr/trace
	echo 1 >$tr/events/sroce/sroce_cc_rate/enable && traced=1
fi

m0=$(cnt r np_ecn_marked_roce_packets)
b0=$(($(cnt s1 tx_batches) + $(cnt s2 tx_batches)))
c0=$(cnt r np_cnp_sent)
h0=$(($(cnt s1 rp_cnp_handled) + $(cnt s2 rp_cnp_handled)))
gr=$(gid_index sroce_r 10.20.0.1)
out1=$(mktemp)
out2=$(mktemp)
for i in 1 2; do
	ip netns exec r timeout $((SECS + 60)) ib_write_bw -d sroce_r -x "$gr" \
		-p $((18900 + i)) -F -s 4096 -t 32 -D "$SECS" >/dev/null 2>&1 &
done
# perftest clients do not retry: start them once the servers listen.
for i in 1 2; do
	wait_until 20 port_listening r $((18900 + i))
done
for i in 1 2; do
	o=$out1
	[ $i -eq 2 ] && o=$out2
	ip netns exec "s$i" timeout $((SECS + 60)) ib_write_bw -d "sroce_s$i" \
		-x "$(gid_index "sroce_s$i" "$(host_ip "s$i")")" \
		-p $((18900 + i)) -F -s 4096 -t 32 -D "$SECS" 10.20.0.1 \
		>"$o" 2>&1 &
done
wait
[ $traced -eq 1 ] && echo 0 >$tr/events/sroce/sroce_cc_rate/enable

# Goodput from the iterations done in SECS: perftest's own MB/s figure
# is sometimes 0.00 under TCG (its clock calibration).
gp() {
	awk -v secs="$SECS" '$1 == 4096 && NF >= 5 {
		printf "%.1f", $2 * 4096 * 8 / secs / 1e6 }' "$1"
}
gp1=$(gp "$out1")
gp2=$(gp "$out2")
ktap_result "both flows report goodput" \
	"$(awk -v a="${gp1:-0}" -v b="${gp2:-0}" 'BEGIN { exit !(a > 0 && b > 0) }'; echo $?)" \
	"$(tail -n 4 "$out1")" "$(tail -n 4 "$out2")"
rm -f "$out1" "$out2"
awk -v a="${gp1:-0}" -v b="${gp2:-0}" 'BEGIN {
	s = a + b; q = a * a + b * b
	printf "goodput %.1f + %.1f Mb/s, sum %.1f (%.0f %% of 100), Jain %.3f\n",
		a, b, s, s, (q > 0) ? s * s / (2 * q) : 0 }' | diag "$(cat)"

q=$(tc -s qdisc show dev r-br)
marked=$(awk '/qdisc red/ { r = 1 } r && $1 == "marked" { print $2; exit }' <<<"$q")
ktap_result "RED marked packets CE at the bottleneck" \
	"$([ "${marked:-0}" -gt 0 ]; echo $?)" "$q"
dm=$(($(cnt r np_ecn_marked_roce_packets) - m0))
dc=$(($(cnt r np_cnp_sent) - c0))
dh=$(($(cnt s1 rp_cnp_handled) + $(cnt s2 rp_cnp_handled) - h0))
# RED marks an skb: a batch (tx_batch, sent until the first CNP makes a
# QP rate-limited) is one skb of up to 16 packets, all of which arrive CE.
db=$(($(cnt s1 tx_batches) + $(cnt s2 tx_batches) - b0))
diag "RED marked $marked, np_ecn_marked_roce_packets +$dm, np_cnp_sent +$dc, rp_cnp_handled +$dh, tx_batches +$db"
ktap_result "the receiver counted the marks (<= RED's count, 16 per batch)" \
	"$([ "$dm" -gt 0 ] && [ "$dm" -le $((${marked:-0} + 15 * db)) ]; echo $?)"
ktap_result "the receiver sent CNPs (at most one per mark)" \
	"$([ "$dc" -gt 0 ] && [ "$dc" -le "$dm" ]; echo $?)"
ktap_result "the senders handled every CNP sent (rp_cnp_handled)" \
	"$([ "$dh" -eq "$dc" ]; echo $?)"
ktap_result "both senders handled CNPs" \
	"$([ "$(cnt s1 rp_cnp_handled)" -gt 0 ] && [ "$(cnt s2 rp_cnp_handled)" -gt 0 ]; echo $?)"
if [ $traced -eq 1 ]; then
	cuts=$(grep -c 'sroce_cc_rate:.*reason=cut' $tr/trace)
	ktap_result "sroce:sroce_cc_rate shows rate cuts" \
		"$([ "$cuts" -gt 0 ]; echo $?)" "$cuts cuts"
else
	ktap_skip "sroce:sroce_cc_rate shows rate cuts" "no tracefs"
fi

ktap_done
