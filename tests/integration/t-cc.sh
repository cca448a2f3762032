#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-cc.sh - congestion control: the ecn/ knobs (defaults, validation),
# ECN marking on transmit, CE -> CNP on the wire (notification point),
# CNPs handled/ignored and READ responses paced at the cut rate (reaction
# point), RESET giving a QP the congestion state of a new one (rate and
# RTT probe), a CNP halving an RC QP's window (cnp_window_cut), the
# counters and the sroce: tracepoints.  The wire part is
# cc_wire.py, which plays the remote peer with crafted packets.
#
# Topology: make_two_ns (see lib.sh); cc_wire.py runs in ns2 and uses the
# verbs objects of sroce1 (ns1):
#
#   ns1: sroce1 on v1 10.11.0.1 ==veth== v2 10.11.0.2 cc_wire.py :ns2

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)

ktap_begin 52 "sroce congestion control"

if ! ktap_check "load sroce.ko" load_sroce ||
	! ktap_check "two namespaces with sroce1 and sroce2" make_two_ns; then
	ktap_skip_rest "no topology"
	ktap_done
fi

ecn=/sys/class/infiniband/sroce1/ecn
np=$ecn/roce_np
rp=$ecn/roce_rp

# expect_knob FILE WANT
expect_knob() {
	local v
	v=$(cat "$1" 2>&1)
	[ "$v" = "$2" ] || { echo "$1: '$v', want '$2'"; return 1; }
}

defaults() {
	expect_knob $np/min_time_between_cnps 50 &&
		expect_knob $np/cnp_dscp 48 &&
		expect_knob $np/cnp_802p_prio 6 &&
		expect_knob $np/enable/3 1 &&
		expect_knob $rp/enable/7 1 &&
		expect_knob $ecn/roce_tx/ect/0 2 &&
		expect_knob $rp/flavour mlx &&
		expect_knob $rp/cc_algo dcqcn &&
		expect_knob $rp/rpg_time_reset 300 &&
		expect_knob $rp/rpg_byte_reset 32767 &&
		expect_knob $rp/rpg_threshold 1 &&
		expect_knob $rp/rpg_max_rate 0 &&
		expect_knob $rp/rpg_ai_rate 5 &&
		expect_knob $rp/rpg_hai_rate 50 &&
		expect_knob $rp/rpg_gd 11 &&
		expect_knob $rp/rpg_min_dec_fac 50 &&
		expect_knob $rp/rpg_min_rate 1 &&
		expect_knob $rp/rate_to_set_on_first_cnp 0 &&
		expect_knob $rp/dce_tcp_g 1019 &&
		expect_knob $rp/dce_tcp_rtt 1 &&
		expect_knob $rp/rate_reduce_monitor_period 4 &&
		expect_knob $rp/initial_alpha_value 1023 &&
		expect_knob $rp/clamp_tgt_rate 0 &&
		expect_knob $rp/clamp_tgt_rate_after_time_inc 1 &&
		expect_knob $rp/cnp_window_cut 1 &&
		expect_knob $rp/window_rtt_fair 0
}
ktap_check "ecn/ knobs exist with the NVIDIA defaults" defaults

# refuse FILE VALUE: the write fails with EINVAL and the value stays.
refuse() {
	local before after err
	before=$(cat "$1")
	if err=$(echo "$2" 2>&1 >"$1"); then
		echo "$1: '$2' accepted"
		return 1
	fi
	after=$(cat "$1")
	[[ $err == *"Invalid argument"* ]] || { echo "$1: $err"; return 1; }
	[ "$before" = "$after" ] || { echo "$1 changed to $after"; return 1; }
}

bad_writes() {
	refuse $np/cnp_dscp 64 && refuse $np/cnp_802p_prio 8 &&
		refuse $np/min_time_between_cnps -1 &&
		refuse $np/enable/2 2 && refuse $ecn/roce_tx/ect/0 3 &&
		refuse $ecn/roce_tx/default_dscp 64 &&
		refuse $rp/rpg_gd 16 && refuse $rp/rpg_min_dec_fac 101 &&
		refuse $rp/dce_tcp_g 1025 && refuse $rp/rpg_threshold 0 &&
		refuse $rp/rpg_min_rate 0 && refuse $rp/dce_tcp_rtt 0 &&
		refuse $rp/initial_alpha_value 1025 &&
		refuse $rp/clamp_tgt_rate 2 && refuse $rp/rpg_ai_rate abc &&
		refuse $rp/cnp_window_cut 2 && refuse $rp/window_rtt_fair 2 &&
		refuse $rp/rpg_max_rate 400001 &&
		refuse $rp/flavour fancy && refuse $rp/cc_algo bogus
}
ktap_check "out-of-range writes: EINVAL, value unchanged" bad_writes

good_writes() {
	echo 7 >$rp/rpg_ai_rate && expect_knob $rp/rpg_ai_rate 7 &&
		echo 0 >$np/enable/5 && expect_knob $np/enable/5 0 &&
		expect_knob $np/enable/4 1 && echo 1 >$np/enable/5 &&
		echo paper >$rp/flavour && expect_knob $rp/flavour paper &&
		expect_knob $rp/rpg_time_reset 55 &&
		expect_knob $rp/dce_tcp_g 1020 &&
		expect_knob $rp/rpg_threshold 5 &&
		expect_knob $rp/rpg_byte_reset 10485760 &&
		echo 0 >$rp/cnp_window_cut &&
		expect_knob $rp/cnp_window_cut 0 &&
		echo 1 >$rp/window_rtt_fair &&
		expect_knob $rp/window_rtt_fair 1 &&
		echo mlx >$rp/flavour && expect_knob $rp/rpg_time_reset 300 &&
		expect_knob $rp/rpg_ai_rate 5 &&
		expect_knob $rp/cnp_window_cut 1 &&
		expect_knob $rp/window_rtt_fair 0
}
ktap_check "writes in range read back; flavour loads its defaults" good_writes

algos() {
	expect_knob $rp/available_cc_algos "none dcqcn dctcp timely hpcc" &&
		echo dctcp >$rp/cc_algo && expect_knob $rp/cc_algo dctcp &&
		echo timely >$rp/cc_algo && expect_knob $rp/cc_algo timely &&
		echo none >$rp/cc_algo && expect_knob $rp/cc_algo none &&
		echo dcqcn >$rp/cc_algo && expect_knob $rp/cc_algo dcqcn
}
ktap_check "cc_algo selects none, dcqcn, dctcp, timely" algos

stats=$(rdma statistic show link sroce1/1 2>&1)
ktap_result "rdma statistic lists the four congestion counters" \
	"$(for c in np_ecn_marked_roce_packets np_cnp_sent rp_cnp_handled \
		rp_cnp_ignored; do grep -qw "$c" <<<"$stats" || exit 1; done)$?" \
	"$stats"

# Tracepoints for the wire part.
tr=/sys/kernel/tracing
[ -d $tr/events ] || mount -t tracefs nodev $tr 2>/dev/null
traced=0
if [ -d $tr/events/sroce ]; then
	echo >$tr/trace
	echo 1 >$tr/events/sroce/enable && traced=1
fi

# An algorithm in its own module (kernel/cc_example/): cc_wire.py uses it.
fixed_ko=$(dirname "$SROCE_KO")/sroce_cc_fixed.ko
fixed_load() {
	insmod "$fixed_ko" &&
		grep -qw fixed $rp/available_cc_algos &&
		echo fixed >$rp/cc_algo && expect_knob $rp/cc_algo fixed &&
		echo dcqcn >$rp/cc_algo
}
ktap_check "sroce_cc_fixed.ko registers fixed, selectable" fixed_load

idx=$(gid_index sroce1 10.11.0.1)
# cc_wire.py counts packets on the wire: no batches (tx_batch), which
# AF_PACKET on the veth would see as one GSO skb.
echo off >/sys/class/infiniband/sroce1/tx_batch
# ip netns exec remounts /sys for ns2: keep init_net's view.
hwc=/run/sroce-cc-hwc
knobs=/run/sroce-cc-knobs
mkdir -p "$hwc" "$knobs"
mount --bind /sys/class/infiniband/sroce1/ports/1/hw_counters "$hwc"
mount --bind $ecn "$knobs"
# tcpdump records the CNPs reaching ns2 (UDP payload byte 0 = BTH opcode).
pcap=/tmp/t-cc-cnp.pcap
ip netns exec ns2 tcpdump -i v2 -U -w $pcap 'udp dst port 4791 and udp[8] = 0x81' \
	2>/tmp/t-cc-tcpdump.err &
dump=$!
wait_until 10 grep -q listening /tmp/t-cc-tcpdump.err
out=$(ip netns exec ns2 env PYTHONPATH="$here" PYTHONDONTWRITEBYTECODE=1 \
	SROCE_HWC="$hwc" timeout 300 python3 "$here/cc_wire.py" "$idx" \
	"$knobs" 2>&1)
rc=$?
umount "$knobs" "$hwc"
# Relay the child's results as ours (its plan is 40).
while IFS= read -r line; do
	case $line in
	"ok "*) ktap_pass "${line#ok [0-9]* }" ;;
	"not ok "*) ktap_fail "${line#not ok [0-9]* }" ;;
	"# "*) diag "${line#\# }" ;;
	esac
done <<<"$out"
[ $rc -eq 0 ] || diag "cc_wire.py exited $rc" "$(tail -n 5 <<<"$out")"

sleep 1
kill $dump
wait $dump 2>/dev/null

# The capture dissected by tshark (opcode, DestQP, DSCP) and by cc_pcap.py
# (the same fields and the ICRC, which tshark does not check).
ts=$(tshark -r $pcap -Y 'infiniband.bth.opcode == 0x81' -T fields \
	-e infiniband.bth.destqp -e ip.dsfield.dscp 2>/dev/null | tr '\t' ' ')
py=$(PYTHONPATH="$here" PYTHONDONTWRITEBYTECODE=1 python3 "$here/cc_pcap.py" \
	$pcap 2>&1)
# cc_wire.py's peer QP is 0xabc; cnp_dscp 48 (default), then 26.
ktap_result "tshark: CNPs with opcode 0x81 to DestQP 0xabc, DSCP 48 then 26" \
	"$(grep -qx '0x000abc 48' <<<"$ts" && grep -qx '0x000abc 26' <<<"$ts"; echo $?)" \
	"$(tcpdump -r $pcap -c 5 -nv 2>&1; echo "tshark:"; echo "$ts" | head -n 20)"
ktap_result "tcpdump capture: every CNP has a valid ICRC (tshark agrees)" \
	"$([ -n "$py" ] && ! grep -qv ' ok$' <<<"$py" &&
		[ "$(sed 's/ ok$//' <<<"$py")" = "$ts" ]; echo $?)" \
	"$(echo "cc_pcap.py:"; echo "$py" | head -n 20)"

# cc_wire.py's QPs are gone: nothing holds the module any more.
fixed_unload() {
	rmmod sroce_cc_fixed && ! grep -qw fixed $rp/available_cc_algos
}
ktap_check "rmmod sroce_cc_fixed once no device or QP uses it" fixed_unload

if [ $traced -eq 1 ]; then
	echo 0 >$tr/events/sroce/enable
	t=$(cat $tr/trace)
	ok=0
	for ev in "sroce_ce_rcvd:" "sroce_cnp_sent: qpn=[0-9]* dqpn=2748" \
		"sroce_cnp_rcvd: qpn=[0-9]* handled=1" \
		"sroce_cnp_rcvd: qpn=8388352 handled=0" \
		"reason=first_cnp" "reason=cut"; do
		grep -q "$ev" <<<"$t" || { ok=1; diag "no '$ev' in the trace"; }
	done
	ktap_result "tracepoints: CE, CNP sent/received, rate first_cnp and cut" \
		$ok "$(grep -c sroce_ <<<"$t") sroce events"
else
	ktap_skip "tracepoints" "no tracefs"
fi

ktap_done
