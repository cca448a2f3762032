#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-hpcc.sh - HPCC in sroce.ko (Documentation/cc.rst, "hpcc" and "INT on
# the wire").  hpcc needs switches that stamp in-band telemetry (INT) into
# data packets; there are none here, so hpcc_wire.py plays the peer of an
# sroce1 RC QP and injects the records a path would have stamped into its
# ACKs (a congested hop cuts the rate, an idle one raises it again,
# malformed INT and INT from a third host are dropped and counted and
# change nothing, a dcqcn QP neither asks for INT nor reads it, the
# responder echoes an accepted WRITE's records and no others, a plain
# packet with the INT bit is plain, a NAK's INT does not move W_c).  Then
# sroce1 <-> sroce2 with hpcc on both: ibv_rc_pingpong with its content
# checked; no switch stamps anything, so no INT comes back and both QPs
# stay at line rate, within 4x of dcqcn's time.
#
#   ns1: sroce1 on v1 10.11.0.1 ==veth== v2 10.11.0.2 sroce2, hpcc_wire.py :ns2
#                                         \_ m3 10.11.0.3 third host :ns3

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/dp-lib.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
WIRE_PLAN=24

ktap_begin $((3 + WIRE_PLAN + 4)) "HPCC with injected INT"
two_ns_start

third_host() {
	ip netns add ns3 &&
		ip -n ns3 link set lo up &&
		ip -n ns2 link add m3 link v2 type macvlan mode bridge &&
		ip -n ns2 link set m3 netns ns3 &&
		ip -n ns3 addr add 10.11.0.3/24 dev m3 &&
		ip -n ns3 link set m3 up
}
ktap_check "a third host in ns3 (10.11.0.3)" third_host

ecn=/sys/class/infiniband/sroce1/ecn
idx=$(gid_index sroce1 10.11.0.1)
# Packet by packet on the wire (see t-cc.sh).
echo off >/sys/class/infiniband/sroce1/tx_batch
hwc=/run/sroce-hpcc-hwc
knobs=/run/sroce-hpcc-knobs
mkdir -p "$hwc" "$knobs"
mount --bind /sys/class/infiniband/sroce1/ports/1/hw_counters "$hwc"
mount --bind $ecn "$knobs"
out=$(ip netns exec ns2 env PYTHONPATH="$here" PYTHONDONTWRITEBYTECODE=1 \
	SROCE_HWC="$hwc" timeout 120 python3 "$here/hpcc_wire.py" "$idx" \
	"$knobs" 2>&1)
rc=$?
umount "$knobs" "$hwc"
n=0
while IFS= read -r line; do
	case $line in
	"ok "*) ktap_pass "${line#ok [0-9]* }"; n=$((n + 1)) ;;
	"not ok "*) ktap_fail "${line#not ok [0-9]* }"; n=$((n + 1)) ;;
	"# "*) diag "${line#\# }" ;;
	esac
done <<<"$out"
[ $rc -eq 0 ] || diag "hpcc_wire.py exited $rc" "$(tail -n 5 <<<"$out")"
while [ $n -lt $WIRE_PLAN ]; do
	ktap_fail "hpcc_wire.py result $((n + 1))" "missing"
	n=$((n + 1))
done
echo on >/sys/class/infiniband/sroce1/tx_batch

# sroce <-> sroce with hpcc on both ends, no switch to stamp INT.
for d in sroce1 sroce2; do echo hpcc >/sys/class/infiniband/$d/ecn/roce_rp/cc_algo; done
int0=$(( $(hw_counter sroce1 rx_int_pkts) + $(hw_counter sroce2 rx_int_pkts) ))
echo0=$(( $(hw_counter sroce1 tx_int_echoed) + $(hw_counter sroce2 tx_int_echoed) ))
port=18790
# BTH byte 4 is udp[12]: INT_REQ 0x20, INT 0x10 (kernel/proto/int.h).
pcap=/tmp/t-hpcc.pcap
ip netns exec ns2 tcpdump -i v2 -U -w $pcap 'udp dst port 4791' \
	2>/tmp/t-hpcc-tcpdump.err &
dump=$!
wait_until 10 grep -q listening /tmp/t-hpcc-tcpdump.err
PAIR_PORT=$port run_pair 120 \
	ns2 "ibv_rc_pingpong -d sroce2 -g $g2 -p $port -s 65536 -n 50 --chk" \
	ns1 "ibv_rc_pingpong -d sroce1 -g $g1 -p $port -s 65536 -n 50 --chk 10.11.0.2"
ok=$?
if [ $ok -eq 0 ]; then
	diag "hpcc both ends: $(grep -h 'iters in' <<<"$pair_cout")"
	ktap_pass "sroce <-> sroce, hpcc on both: ibv_rc_pingpong 64 KiB x 50, content checked"
else
	ktap_fail "sroce <-> sroce, hpcc on both: ibv_rc_pingpong 64 KiB x 50, content checked" \
		"$(tail -n 20 <<<"$pair_out")"
fi
sleep 1
kill $dump
wait $dump 2>/dev/null
req=$(tcpdump -r $pcap 'udp[8] < 0x0d and udp[12] & 0x20 != 0' 2>/dev/null | wc -l)
bare=$(tcpdump -r $pcap 'udp[8] < 0x0d and udp[12] & 0x20 = 0' 2>/dev/null | wc -l)
blocks=$(tcpdump -r $pcap 'udp[12] & 0x10 != 0' 2>/dev/null | wc -l)
ktap_result "on the wire: requests of both ask for INT, nothing carries a block" \
	"$([ "$req" -gt 0 ] && [ "$bare" -eq 0 ] && [ "$blocks" -eq 0 ]; echo $?)" \
	"requests with INT_REQ $req, without $bare, packets with a block $blocks"
int1=$(( $(hw_counter sroce1 rx_int_pkts) + $(hw_counter sroce2 rx_int_pkts) ))
echo1=$(( $(hw_counter sroce1 tx_int_echoed) + $(hw_counter sroce2 tx_int_echoed) ))
ktap_result "no switch, no INT: nothing echoed or received (line rate kept)" \
	"$([ -e /sys/class/infiniband/sroce1/ports/1/hw_counters/rx_int_pkts ] &&
		[ $int1 -eq $int0 ] && [ $echo1 -eq $echo0 ]; echo $?)" \
	"rx_int_pkts +$((int1 - int0)), tx_int_echoed +$((echo1 - echo0))"

# hpcc against dcqcn, both at line rate (no bottleneck, no INT), same boot
# and no capture: hpcc paces every packet from init (so sends packet by
# packet, no tx batches), dcqcn sends unpaced batches.  Best of five runs
# each, alternating, against TCG's noise: single runs spread 3-6x, and on
# a loaded host (2026-12-07, load 5-6) the best of three once came to
# 4.36x (hpcc 7740-10761, dcqcn 1775-5986 usec).
pp_usec() { # ALGO PORT
	local algo=$1 port=$2 d
	for d in sroce1 sroce2; do echo "$algo" >/sys/class/infiniband/$d/ecn/roce_rp/cc_algo; done
	PAIR_PORT=$port run_pair 120 \
		ns2 "ibv_rc_pingpong -d sroce2 -g $g2 -p $port -s 65536 -n 50 --chk" \
		ns1 "ibv_rc_pingpong -d sroce1 -g $g1 -p $port -s 65536 -n 50 --chk 10.11.0.2" ||
		return 1
	sed -n 's/.* = \([0-9]*\)\.[0-9]* usec\/iter.*/\1/p' <<<"$pair_cout"
}
best() { # best of the usec figures on stdin ("" if any run failed)
	awk '!/^[0-9]+$/ { bad = 1 } $1 < m || !m { m = $1 }
	     END { if (!bad && m) print m }'
}
pp=()
for algo in dcqcn hpcc dcqcn hpcc dcqcn hpcc dcqcn hpcc dcqcn hpcc; do
	port=$((port + 1))
	pp+=("$algo $(pp_usec $algo $port || echo failed)")
done
diag "ibv_rc_pingpong -s 65536 -n 50, usec/iter: ${pp[*]}"
dc=$(printf '%s\n' "${pp[@]}" | sed -n 's/^dcqcn //p' | best)
hp=$(printf '%s\n' "${pp[@]}" | sed -n 's/^hpcc //p' | best)
# A bound, not a ratio to keep: best of each, hpcc took 0.95-2.3x of
# dcqcn's time in five boots under varying host load (Documentation/
# cc.rst, "hpcc"); 4x still catches a pacer that waits for its timer at
# line rate (8x was reported once).
ktap_result "hpcc at line rate within 4x of dcqcn's time (best of five each)" \
	"$([ -n "$dc" ] && [ -n "$hp" ] && [ "$hp" -le $((4 * dc)) ]; echo $?)" \
	"hpcc ${hp:-?} usec/iter, dcqcn ${dc:-?}"
for d in sroce1 sroce2; do echo dcqcn >/sys/class/infiniband/$d/ecn/roce_rp/cc_algo; done

ktap_done
