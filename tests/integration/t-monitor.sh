#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-monitor.sh - the standard port counters and the monitoring route.
#
# sroce answers ib_core's PerfMgmt Gets (kernel/mad.c, kernel/proto/pma.c),
# so ib_core creates ports/1/counters/ (port_xmit_data & co.).  Checked:
# the files exist and agree with hw_counters/; after an ibv_rc_pingpong of
# known size they moved by at least the payload on both devices, with data
# in 4-byte words; Prometheus' node_exporter (Debian's
# prometheus-node-exporter, infiniband collector only) scrapes them
# without failing, with non-zero series for the sroce devices.  The same
# agent answers a peer's PerfMgmt MADs on QP1 (pma_wire.py crafts them).
#
# Topology: make_two_ns (see lib.sh):
#
#   ns1: sroce1 on v1 (10.11.0.1) ==veth== v2 (10.11.0.2) sroce2 :ns2
#        pingpong client                   pingpong server
#   init_net: node_exporter on 127.0.0.1 (rdma devices are shared).

here=$(dirname "${BASH_SOURCE[0]}")
. "$here/lib.sh"
. "$here/dp-lib.sh"

PP_SIZE=65536
PP_ITERS=100
NE_PORT=19100

ktap_begin 21 "ports/1/counters and node_exporter's infiniband collector"

two_ns_start

# pma DEV NAME: a file of ports/1/counters/, empty when unreadable.
pma() {
	local v
	read -r v 2>/dev/null <"/sys/class/infiniband/$1/ports/1/counters/$2"
	echo "$v"
}

cdir=/sys/class/infiniband/sroce1/ports/1/counters
want="port_xmit_data port_rcv_data port_xmit_packets port_rcv_packets
port_rcv_errors port_xmit_discards symbol_error link_downed VL15_dropped
port_xmit_wait"
missing=
for f in $want; do
	[ -r "$cdir/$f" ] && [[ $(pma sroce1 "$f") =~ ^[0-9]+$ ]] ||
		missing+=" $f"
done
ktap_result "ports/1/counters/ has the PortCounters files, all readable" \
	"$([ -z "$missing" ]; echo $?)" \
	"missing or unreadable:$missing; have: $(cd "$cdir" 2>&1 && echo *)"

# Extended (64-bit) data and packet counters, without the IETF ones that
# sroce does not count (ClassPortInfo claims EXT_WIDTH_NOIETF).
ktap_result "no unicast/multicast files (PortCountersExtended NoIETF)" \
	"$([ ! -e "$cdir/unicast_xmit_packets" ] &&
		[ ! -e "$cdir/multicast_rcv_packets" ]; echo $?)" \
	"$(cd "$cdir" 2>&1 && echo *)"

# snap DEV: "xmit_data rcv_data xmit_pkts rcv_pkts sent_bytes rcvd_bytes
# sent_pkts rcvd_pkts" of DEV, counters/ then hw_counters/.
snap() {
	echo "$(pma "$1" port_xmit_data) $(pma "$1" port_rcv_data)" \
		"$(pma "$1" port_xmit_packets) $(pma "$1" port_rcv_packets)" \
		"$(hw_counter "$1" sent_bytes) $(hw_counter "$1" rcvd_bytes)" \
		"$(hw_counter "$1" sent_pkts) $(hw_counter "$1" rcvd_pkts)"
}

# Idle devices: the two views of the same counters must agree exactly
# (data in words: octets / 4, rounded down).
read -r xd rd xp rp sb rb sp rp2 <<<"$(snap sroce1)"
ktap_result "counters/ agrees with hw_counters/ (words = bytes / 4)" \
	"$([ "$xd" = $((sb / 4)) ] && [ "$rd" = $((rb / 4)) ] &&
		[ "$xp" = "$sp" ] && [ "$rp" = "$rp2" ]; echo $?)" \
	"counters: $xd $rd $xp $rp; hw_counters: $sb $rb $sp $rp2"

payload=$((PP_SIZE * PP_ITERS))
# At MTU 1024 every KiB of payload is one packet at least.
min_pkts=$((payload / 1024))

# check_moved N BEFORE AFTER: the three checks of sroceN over the pingpong,
# BEFORE and AFTER being snap outputs.
check_moved() {
	local d=$1 b a dxd drd dxp drp dsb drb
	read -r -a b <<<"$2"
	read -r -a a <<<"$3"
	dxd=$((a[0] - b[0])) drd=$((a[1] - b[1]))
	dxp=$((a[2] - b[2])) drp=$((a[3] - b[3]))
	dsb=$((a[4] - b[4])) drb=$((a[5] - b[5]))
	ktap_result "sroce$d: port_xmit_data and port_rcv_data moved by the payload" \
		"$([ $((dxd * 4)) -ge $payload ] && [ $((drd * 4)) -ge $payload ]
			echo $?)" \
		"payload $payload B; xmit_data +$dxd words, rcv_data +$drd words"
	ktap_result "sroce$d: packets moved by at least payload / MTU" \
		"$([ $dxp -ge $min_pkts ] && [ $drp -ge $min_pkts ]; echo $?)" \
		"want >= $min_pkts; xmit +$dxp rcv +$drp"
	# Words are bytes / 4 of the same counter: the deltas of the two
	# rounded readings differ by one word at most.
	ktap_result "sroce$d: 4 x data words = sent_bytes / rcvd_bytes deltas" \
		"$([ $((dsb / 4 - dxd)) -ge -1 ] && [ $((dsb / 4 - dxd)) -le 1 ] &&
			[ $((drb / 4 - drd)) -ge -1 ] &&
			[ $((drb / 4 - drd)) -le 1 ]; echo $?)" \
		"xmit: $dxd words vs $dsb B; rcv: $drd words vs $drb B"
}

# Per-QP counters (rdma statistic qp) are not implemented: auto mode is
# accepted but binds nothing, and must not break QP setup (ib_core ignores
# the failed binding at RESET->INIT).  See Documentation/counters.rst.
auto_out=$(rdma statistic qp set link sroce1/1 auto type on 2>&1)
auto_rc=$?
qp_log=$(mktemp)
# An RC QP that stays: a pingpong server waiting for a client that never
# comes has moved its QP to INIT, where auto mode would bind it.
ip netns exec ns1 ibv_rc_pingpong -d sroce1 -g "$g1" -p 18651 >/dev/null 2>&1 &
holder=$!
rc_qp_seen() {
	rdma resource show qp link sroce1/1 type RC 2>/dev/null | grep -q 'type RC'
}
wait_until 20 rc_qp_seen
{
	rdma resource show qp link sroce1/1 type RC
	rdma statistic qp show link sroce1/1
} >"$qp_log" 2>&1

s1=$(snap sroce1)
s2=$(snap sroce2)
PAIR_PORT=18650 run_pair 120 \
	ns2 "ibv_rc_pingpong -d sroce2 -g $g2 -p 18650 -s $PP_SIZE -n $PP_ITERS" \
	ns1 "ibv_rc_pingpong -d sroce1 -g $g1 -p 18650 -s $PP_SIZE -n $PP_ITERS 10.11.0.2"
ktap_result "ibv_rc_pingpong ${PP_SIZE} B x ${PP_ITERS}" $? "$pair_out"
kill $holder 2>/dev/null
wait $holder 2>/dev/null
rdma statistic qp set link sroce1/1 auto off >/dev/null 2>&1
# While the waiting server's RC QP lived, no counter was bound to it.
ktap_result "rdma statistic qp auto mode: accepted, binds no QP (not implemented)" \
	"$([ $auto_rc -eq 0 ] && grep -q 'type RC' "$qp_log" &&
		! grep -q cntn "$qp_log"; echo $?)" \
	"set auto: rc $auto_rc '$auto_out'" "$(sort -u "$qp_log" | head -n 8)"
rm -f "$qp_log"
check_moved 1 "$s1" "$(snap sroce1)"
check_moved 2 "$s2" "$(snap sroce2)"

# ---- the agent answers peers too (what perfquery would send) ----
# wire METHOD ATTR PORT: pma_wire.py's answer line, from ns2 to sroce1.
wire() {
	ip netns exec ns2 env PYTHONPATH="$here" PYTHONDONTWRITEBYTECODE=1 \
		python3 "$here/pma_wire.py" "$@" 2>&1
}
# field LINE NAME: NAME=value of a pma_wire.py line.
field() {
	sed -n "s/.*\<$2=\([^ ]*\).*/\1/p" <<<"$1"
}

x0=$(pma sroce1 port_xmit_data)
ans=$(wire 0x01 0x12 1)
x1=$(pma sroce1 port_xmit_data)
xd=$(field "$ans" xmit_data)
ktap_result "peer Get(PortCounters) on QP1: GetResp from QP1, Q_Key 0x80010000" \
	"$([ "$(field "$ans" method)" = 0x81 ] &&
		[ "$(field "$ans" status)" = 0x0000 ] &&
		[ "$(field "$ans" tid)" = ok ] && [ "$(field "$ans" port)" = 1 ] &&
		[ "$(field "$ans" sqpn)" = 1 ] &&
		[ "$(field "$ans" qkey)" = 0x80010000 ] &&
		[ "$(field "$ans" icrc)" = ok ]; echo $?)" "$ans"
# The answer was built between the two sysfs reads.
ktap_result "peer Get(PortCounters): port_xmit_data as sysfs shows it" \
	"$([ -n "$xd" ] && [ "$xd" -ge "$x0" ] && [ "$xd" -le "$x1" ]
		echo $?)" "sysfs before $x0, answer '$xd', sysfs after $x1"
ans=$(wire 0x01 0x1d 1)
ktap_result "peer Get(PortCountersExtended): status 0, packets counted" \
	"$([ "$(field "$ans" status)" = 0x0000 ] &&
		[ "$(field "$ans" xmit_pkts)" -gt 0 ]; echo $?)" "$ans"
ans=$(wire 0x02 0x12 1)
ans2=$(wire 0x01 0x12 2)
ktap_result "peer Set(PortCounters): unsupported; PortSelect 2: invalid field" \
	"$([ "$(field "$ans" status)" = 0x000c ] &&
		[ "$(field "$ans2" status)" = 0x001c ]; echo $?)" \
	"Set: $ans" "port 2: $ans2"

# ---- node_exporter ----
NE=$(command -v prometheus-node-exporter)
ne_log=$(mktemp)
scrape=
if [ -z "$NE" ]; then
	diag "prometheus-node-exporter is not installed (scripts/deps.sh)"
else
	"$NE" --log.level=debug --collector.disable-defaults \
		--collector.infiniband \
		--web.listen-address=127.0.0.1:$NE_PORT >"$ne_log" 2>&1 &
	ne_pid=$!
	wait_until 30 port_listening "" $NE_PORT
	scrape=$(curl -s --max-time 30 http://127.0.0.1:$NE_PORT/metrics)
	kill "$ne_pid" 2>/dev/null
	wait "$ne_pid" 2>/dev/null
fi

# metric NAME DEV: the value of NAME{device="DEV",port="1"}, empty if none.
metric() {
	awk -v n="$1" -v d="device=\"$2\"" \
		'index($1, n "{") == 1 && index($1, d) && index($1, "port=\"1\"") {
			print $2; exit }' <<<"$scrape"
}

ktap_result "node_exporter: infiniband collector succeeds" \
	"$(grep -q '^node_scrape_collector_success{collector="infiniband"} 1$' \
		<<<"$scrape"; echo $?)" \
	"$(grep -E 'collector_success|infiniband' <<<"$scrape" | head -n 5)" \
	"$(grep -v "level=info" "$ne_log" | tail -n 5)" \
	"$(cd /sys/class/infiniband/sroce1 && for f in fw_ver ports/1/rate \
		ports/1/state ports/1/phys_state; do
		echo "$f: '$(cat $f 2>&1)'"; done)"

ne_ok=0
ne_why=
for d in sroce1 sroce2; do
	for m in node_infiniband_port_data_transmitted_bytes_total \
		node_infiniband_port_data_received_bytes_total \
		node_infiniband_port_packets_transmitted_total \
		node_infiniband_port_packets_received_total; do
		v=$(metric $m $d)
		# Prometheus prints large values in exponent form.
		if ! awk -v v="$v" 'BEGIN { exit !(v + 0 > 0) }'; then
			ne_ok=1
			ne_why+=" $m{$d}='$v'"
		fi
	done
done
ktap_result "node_exporter: non-zero data and packet series for sroce1, sroce2" \
	$ne_ok "zero or absent:$ne_why" \
	"$(grep -E '^node_infiniband_port_(data|packets)' <<<"$scrape")"

ktap_result "node_exporter: node_infiniband_info from board_id and hca_type" \
	"$(grep -q '^node_infiniband_info{.*board_id="sroce software RoCE v2".*device="sroce1".*hca_type="sroce"' \
		<<<"$scrape"; echo $?)" "$(grep '^node_infiniband_info' <<<"$scrape")"

# The exporter turns words back into bytes: at least the payload.
v=$(metric node_infiniband_port_data_transmitted_bytes_total sroce1)
ktap_result "node_exporter: sroce1 transmitted bytes >= pingpong payload" \
	"$(awk -v v="$v" -v p=$payload 'BEGIN { exit !(v + 0 >= p) }'; echo $?)" \
	"bytes '$v', payload $payload"
hw=$(grep -c '^node_infiniband_.*hw\|^node_infiniband_.*out_of_sequence' \
	<<<"$scrape")
diag "node_exporter $("$NE" --version 2>&1 | head -n 1):" \
	"$hw series from hw_counters/"
rm -f "$ne_log"

ktap_done
