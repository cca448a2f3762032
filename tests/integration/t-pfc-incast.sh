#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-pfc-incast.sh - PFC and DCQCN together under incast: two senders
# write to one slow receiver through an emulated PFC-propagating switch,
# once with cc_algo none and once with dcqcn.  DCQCN must keep pause frames
# rare: the receiver sends clearly fewer XOFF with dcqcn than without, and
# in both runs nothing is dropped and both transfers are byte-exact.
#
# The bottleneck is the receiver (rx_delay_us: its receive work sleeps
# before each request packet), so the buffer that fills is sroce_r's
# receive backlog.  That backlog is also where congestion is marked: with
# rx_mark_bytes (testing knob) an ECN-capable packet queued above Kmin is
# handled as CE, as a switch buffer marks at Kmin below its XOFF threshold
# (Documentation/pfc.rst, "PFC and DCQCN").  sroce_r sends PFC frames out of
# its eth0; a Linux bridge never forwards them, so a tc filter on the bridge
# port facing the receiver mirrors EtherType 0x8808 to both sender ports:
# the bridge plus that filter is a switch that passes the receiver's pause
# on to the ports the traffic comes from.
#
#   +-- ps1 --+  +-- ps2 --+                      +--- pr ---+
#   |sroce_ps1|  |sroce_ps2|                      | sroce_pr | rx_delay_us
#   |  eth0   |  |  eth0   |                      |  eth0    | rx_mark_bytes
#   +----|----+  +----|----+                      +----|-----+ PFC gen.
#      ps1-br       ps2-br        [br-pfc]           pr-br
#        ^            ^                                |  tc ingress:
#        +------------+------ mirred (0x8808) ---------+  0x8808 -> ps1-br,
#   init_net: bridge br-pfc, MTU 9000                     ps2-br
#
# Traffic: ibv_uc_pingpong --chk from each sender to the receiver at once,
# 50 x 64 KiB messages (16 packets of 4 KiB each way per iteration; a run
# takes 10 s to minutes, as loaded as the host is), priority 3
# (DSCP 0 mapped to 3 on every device, PFC enabled for 3).  Pause frames
# count at 100 Mb/s (an XOFF holds 335 ms, refreshed every 167 ms, ended by
# XON) so that an emulated guest refreshes in time.  UC, not RC: the stock
# RC pingpong's fixed 67 ms ACK timeout is shorter than this receiver's
# queueing delay on a loaded emulated host (retry counter exceeded); UC has
# no retransmission, so any lost packet fails its transfer.

# r_* results are set by eval in run(); functions run through ktap_check.
# shellcheck disable=SC2154,SC2317
here=$(dirname "${BASH_SOURCE[0]}")
. "$here/lib.sh"
. "$here/dp-lib.sh"

hosts="pr ps1 ps2"
SIZE=${PFC_INCAST_SIZE:-65536}
ITERS=${PFC_INCAST_ITERS:-50}
TMO=${PFC_INCAST_TIMEOUT:-600}
DELAY_US=${PFC_INCAST_DELAY_US:-100}
XON=${PFC_INCAST_XON:-16384}
HEADROOM=${PFC_INCAST_HEADROOM:-32768}
KMIN=${PFC_INCAST_KMIN:-8192}

ktap_begin 12 "PFC with DCQCN: incast into a slow receiver, pause counts with cc none and dcqcn"

# shellcheck disable=SC2317 # run by the EXIT trap
incast_cleanup() {
	# shellcheck disable=SC2086 # hosts is a list
	bridge_hosts_down br-pfc $hosts
}
trap incast_cleanup EXIT

host_ip() {
	case $1 in
	pr) echo 10.21.0.1 ;;
	ps*) echo "10.21.0.$((${1#ps} + 1))" ;;
	esac
}

topo() {
	# shellcheck disable=SC2086 # hosts is a list
	bridge_hosts_up br-pfc 9000 host_ip $hosts
}

# The switch's PFC propagation: frames from the receiver go to the senders.
mirror() {
	tc qdisc add dev pr-br clsact &&
		tc filter add dev pr-br ingress protocol 0x8808 prio 1 matchall \
			action mirred egress mirror dev ps1-br \
			action mirred egress redirect dev ps2-br
}

topo_mirror() { topo && mirror; }

if ! ktap_check "load sroce.ko" load_sroce ||
	! ktap_check "bridge, three namespaces, PFC mirror on pr-br" topo_mirror; then
	ktap_skip_rest "no topology"
	ktap_done
fi

sys() { echo "/sys/class/infiniband/sroce_$1/$2"; }
cnt() { hw_counter "sroce_$1" "$2"; }

# Every device: DSCP 0 on priority 3, PFC on 3, quanta at 100 Mb/s, the
# senders' watchdog above one pause episode.  The receiver: slow, marking
# at Kmin, XON/XOFF above it.
for h in $hosts; do
	echo "0 3" >"$(sys "$h" pfc_dscp2prio)"
	echo 0x08 >"$(sys "$h" pfc_enable)"
	echo 100 >"$(sys "$h" pfc_speed_mbps)"
	echo 2000 >"$(sys "$h" pfc_storm_detect_ms)"
done
echo 2000 >"$(sys pr pfc_xoff_max_ms)"
echo "$XON" >"$(sys pr pfc_xon_bytes)"
echo "$HEADROOM" >"$(sys pr pfc_headroom_bytes)"
echo 1 >"$(sys pr rx_steer)"
echo "$DELAY_US" >"$(sys pr rx_delay_us)"
echo "$KMIN" >"$(sys pr rx_mark_bytes)"
diag "receiver: rx_delay_us $DELAY_US, Kmin $KMIN, $(cat "$(sys pr pfc_state)")"

# DCQCN scaled to the bottleneck (dcqcn.md: every parameter is tunable
# and the defaults are for us RTTs on 40-100 Gb/s).  Here the queue is the
# receiver, and the time it takes per packet (TAU, measured in the cc none
# run: some 1-10 ms on an emulated guest, depending on the host's load) is
# the feedback delay.  The timers are set in TAUs so that cuts outpace the
# recovery while marks come (a CNP per QP every 2 TAU or so) and the rate
# creeps up when they stop:
#   rpg_time_reset, dce_tcp_rtt  8 TAU    rate increase / alpha period
#   rate_reduce_monitor_period   TAU / 2  at most one cut per CNP
#   min_time_between_cnps        TAU / 2
#   rpg_ai_rate, rpg_hai_rate    1/20, 1/10 of the drain rate (>= 1 Mb/s)
#   rpg_min_rate 1 Mb/s, rpg_max_rate 1000, clamp_tgt_rate 1 (Rt = Rc
#   on every cut, as in the paper), rpg_byte_reset 0 (timer only)
TAU=1000
DRAIN=32
cc_set() {
	local h d half=$((TAU / 2)) ai=$((DRAIN / 20)) hai=$((DRAIN / 10))
	[ $ai -ge 1 ] || ai=1
	[ $hai -ge 1 ] || hai=1
	[ $half -ge 1 ] || half=1
	for h in $hosts; do
		d=$(sys "$h" ecn)
		echo "$1" >"$d/roce_rp/cc_algo" || return 1
		[ "$1" = none ] && continue
		echo 1000 >"$d/roce_rp/rpg_max_rate"
		echo $((8 * TAU)) >"$d/roce_rp/rpg_time_reset"
		echo 0 >"$d/roce_rp/rpg_byte_reset"
		echo $((8 * TAU)) >"$d/roce_rp/dce_tcp_rtt"
		echo $ai >"$d/roce_rp/rpg_ai_rate"
		echo $hai >"$d/roce_rp/rpg_hai_rate"
		echo 1 >"$d/roce_rp/rpg_min_rate"
		echo $half >"$d/roce_np/min_time_between_cnps"
		echo $half >"$d/roce_rp/rate_reduce_monitor_period"
		echo 1 >"$d/roce_rp/clamp_tgt_rate"
	done
}

veth_drops() {
	local h s=0 v
	for h in $hosts; do
		v=$(ip -s link show "$h-br" | awk '/RX:/{getline; r=$4} /TX:/{getline; t=$4} END{print r + t}')
		s=$((s + v))
		v=$(ip -n "$h" -s link show eth0 | awk '/RX:/{getline; r=$4} /TX:/{getline; t=$4} END{print r + t}')
		s=$((s + v))
	done
	echo $s
}

qdisc_drops() {
	local h
	{
		for h in $hosts; do
			tc -s qdisc show dev "$h-br"
			ip netns exec "$h" tc -s qdisc show dev eth0
		done
	} | awk '/dropped/{gsub(",","",$7); s+=$7} END{print s+0}'
}

# run ALGO: both pingpongs at once; sets r_* variables with the deltas.
port=19000
run() {
	local algo=$1 i gr out pids=() srv=() c t0 t1
	declare -gA d0
	cc_set "$algo"
	for c in pr:tx_prio3_pause pr:tx_prio3_pause_transition \
		pr:tx_prio3_pause_duration pr:np_ecn_marked_roce_packets \
		pr:np_cnp_sent pr:rx_drop_backlog pr:rx_steered_pkts \
		ps1:rx_prio3_pause ps2:rx_prio3_pause \
		ps1:rx_prio3_pause_duration ps2:rx_prio3_pause_duration \
		ps1:rp_cnp_handled ps2:rp_cnp_handled \
		pr:tx_drop ps1:tx_drop ps2:tx_drop \
		ps1:req_retransmits ps2:req_retransmits; do
		d0[$c]=$(cnt "${c%%:*}" "${c#*:}")
	done
	d0[veth]=$(veth_drops)
	d0[qdisc]=$(qdisc_drops)
	gr=$(gid_index sroce_pr 10.21.0.1)
	out=$(mktemp -d)
	for i in 1 2; do
		port=$((port + 1))
		ip netns exec pr timeout "$TMO" ibv_uc_pingpong -d sroce_pr \
			-g "$gr" -p $port -m 4096 -s "$SIZE" -n "$ITERS" -c \
			>"$out/srv$i" 2>&1 &
		srv+=($!)
		wait_until 20 port_listening pr $port
		eval "port$i=$port"
	done
	t0=$(date +%s%N)
	for i in 1 2; do
		eval "p=\$port$i"
		# shellcheck disable=SC2154 # p is set by the eval
		ip netns exec "ps$i" timeout "$TMO" ibv_uc_pingpong \
			-d "sroce_ps$i" -g "$(gid_index "sroce_ps$i" "$(host_ip "ps$i")")" \
			-p "$p" -m 4096 -s "$SIZE" -n "$ITERS" -c 10.21.0.1 \
			>"$out/cli$i" 2>&1 &
		pids+=($!)
	done
	r_ok=0
	for i in 0 1; do
		wait "${pids[$i]}" || r_ok=1
	done
	for i in 0 1; do
		wait "${srv[$i]}" || r_ok=1
	done
	t1=$(date +%s%N)
	r_out=$(for i in 1 2; do
		echo "--- ps$i client:"; tail -n 5 "$out/cli$i"
		echo "--- pr server $i:"; tail -n 5 "$out/srv$i"
	done)
	rm -rf "$out"
	r_ms=$(((t1 - t0) / 1000000))
	for c in "${!d0[@]}"; do
		case $c in
		veth) r_veth=$(($(veth_drops) - d0[veth])) ;;
		qdisc) r_qdisc=$(($(qdisc_drops) - d0[qdisc])) ;;
		*) eval "r_${c//:/_}=$(($(cnt "${c%%:*}" "${c#*:}") - d0[$c]))" ;;
		esac
	done
	# Goodput: both directions of both pairs over the whole run.
	r_gp=$(awk -v b=$((4 * SIZE * ITERS)) -v ms="$r_ms" \
		'BEGIN { printf "%.1f", b * 8 / (ms / 1000) / 1e6 }')
}

# report NAME: one line of the bench-style table.
report() {
	diag "$(printf '%-6s XOFF sent %5d (XON %4d, held %7d us) | rx_prio3_pause ps1 %5d ps2 %5d | marked %6d CNPs %6d handled %6d | %6d ms, %6s Mb/s | drops: backlog %d tx %d veth %d qdisc %d | retrans %d' \
		"$1" "$r_pr_tx_prio3_pause" "$r_pr_tx_prio3_pause_transition" \
		"$r_pr_tx_prio3_pause_duration" "$r_ps1_rx_prio3_pause" \
		"$r_ps2_rx_prio3_pause" "$r_pr_np_ecn_marked_roce_packets" \
		"$r_pr_np_cnp_sent" "$((r_ps1_rp_cnp_handled + r_ps2_rp_cnp_handled))" \
		"$r_ms" "$r_gp" "$r_pr_rx_drop_backlog" \
		"$((r_pr_tx_drop + r_ps1_tx_drop + r_ps2_tx_drop))" "$r_veth" "$r_qdisc" \
		"$((r_ps1_req_retransmits + r_ps2_req_retransmits))")"
}

nodrop() {
	[ "$r_pr_rx_drop_backlog" -eq 0 ] &&
		[ $((r_pr_tx_drop + r_ps1_tx_drop + r_ps2_tx_drop)) -eq 0 ] &&
		[ "$r_veth" -eq 0 ] && [ "$r_qdisc" -eq 0 ]
}

# ---- cc none ----
run none
report none
n_pause=$r_pr_tx_prio3_pause
ktap_result "cc none: both transfers complete byte-exact (--chk)" $r_ok "$r_out"
[ "$r_pr_tx_prio3_pause" -ge 5 ] && [ "$r_pr_rx_steered_pkts" -gt 0 ] &&
	[ "$r_pr_tx_prio3_pause_transition" -ge 1 ]
ktap_result "cc none: the slow receiver sends XOFF/XON ($r_pr_tx_prio3_pause XOFF)" $?
[ "$r_ps1_rx_prio3_pause" -eq "$r_pr_tx_prio3_pause" ] &&
	[ "$r_ps2_rx_prio3_pause" -eq "$r_pr_tx_prio3_pause" ] &&
	[ "$r_ps1_rx_prio3_pause_duration" -gt 0 ] && [ "$r_ps2_rx_prio3_pause_duration" -gt 0 ]
ktap_result "cc none: both senders get every XOFF through the switch's mirror and pause" $?
nodrop
ktap_result "cc none: no packet dropped (receive backlog, tx, veth, qdisc)" $?
# The receiver's pace: request packets it took in per second of the run.
if [ "$r_pr_rx_steered_pkts" -gt 0 ]; then
	TAU=$((r_ms * 1000 / r_pr_rx_steered_pkts))
	DRAIN=$((r_pr_rx_steered_pkts * 4096 * 8 / r_ms / 1000))
fi
diag "receiver drain: $r_pr_rx_steered_pkts packets in $r_ms ms: TAU $TAU us per packet, $DRAIN Mb/s"

# ---- dcqcn ----
run dcqcn
report dcqcn
ktap_result "dcqcn: both transfers complete byte-exact (--chk)" $r_ok "$r_out"
[ "$r_pr_np_ecn_marked_roce_packets" -gt 0 ] && [ "$r_pr_np_cnp_sent" -gt 0 ] &&
	[ "$r_ps1_rp_cnp_handled" -gt 0 ] && [ "$r_ps2_rp_cnp_handled" -gt 0 ]
ktap_result "dcqcn: the receiver marks at Kmin and sends CNPs, both senders handle them" $?
[ "$r_ps1_rx_prio3_pause" -eq "$r_pr_tx_prio3_pause" ] &&
	[ "$r_ps2_rx_prio3_pause" -eq "$r_pr_tx_prio3_pause" ]
ktap_result "dcqcn: senders paused exactly as often as the receiver sent XOFF" $?
nodrop
ktap_result "dcqcn: no packet dropped (receive backlog, tx, veth, qdisc)" $?
# "Clearly fewer": at most a third of the pause frames without CC.
[ $((3 * r_pr_tx_prio3_pause)) -le "$n_pause" ]
ktap_result "dcqcn keeps pause frames rare: $r_pr_tx_prio3_pause XOFF vs $n_pause with cc none (<= 1/3)" $?

# ---- marking off: what the mark adds ----
# Without marks DCQCN has no signal and must pause as CC none does: the
# difference above comes from the marks, not from the second run.
echo 0 >"$(sys pr rx_mark_bytes)"
run dcqcn
report "dcqcn, no marks"
[ $r_ok -eq 0 ] && [ "$r_pr_np_ecn_marked_roce_packets" -eq 0 ] &&
	[ "$r_pr_tx_prio3_pause" -ge 5 ] && nodrop
ktap_result "dcqcn without marks: no CE, pauses as with cc none ($r_pr_tx_prio3_pause XOFF), byte-exact, no drop" $? "$r_out"

echo 0 >"$(sys pr rx_delay_us)"
ktap_done
