#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cc-fabric.sh - congestion that degrades smoothly: incast and a
# "reverse" pattern through RED/ECN bottlenecks whose constants nothing in
# sroce was tuned to (cc-lib.sh's testbed is the one the reaction point's
# knobs were scaled for; this file uses none of them).  Every device keeps
# its defaults (DCQCN, mlx flavour), and the flows are perftest's
# defaults: ib_write_bw with 64 KB WRITEs, 128 in flight, ACK timeout
# 4.096 us * 2^14 (67 ms) and 7 retries.
#
# Every device keeps cnp_window_cut 1 too (a handled CNP also halves an
# RC QP's recovery window: Documentation/cc.rst, "The window on a CNP").
#
# Goodput is what arrives at the receivers (an ingress counter per sender
# on each receiver's eth0), in a window in which every flow runs.
#
# Checked per testbed, as correctness (Documentation/cc.rst, "Loss
# recovery under a deep marking queue"): no QP runs out of retries or
# fails (no req_transport_retries_exceeded, no req_cqe_error on the
# senders), every flow moves data, and the flows into one bottleneck
# share it: Jain's index >= 0.8, or within 20 % of each other for two
# flows.  perftest's own result is not used: its clients start seconds
# apart, and they are stopped after the window.  Goodput and the
# counters are logged; `make bench-cc` measures.
#
#   s1 ---+                          +--- r1   (htb RATE + RED/ECN on the
#   s2 ---+                          |          bridge port towards r1:
#   ...   +---- br-fab (init_net) ---+--- r2    every rN-br is shaped)
#   sN ---+                          +--- r3
#
#   testbed            bottleneck  RED min/max/p/limit     flows
#   incast-2 @40       40 Mbit/s   8 KB/40 KB/0.05/150 KB  s1,s2 -> r1
#   incast-4 @200      200 Mbit/s  30/150 KB/0.2/600 KB    s1..s4 -> r1
#   incast-8 @100      100 Mbit/s  15/60 KB/0.1/400 KB     s1..s8 -> r1
#   reverse @60        60 Mbit/s   20/100 KB/0.1/250 KB    s1 -> r1,r2,r3
#                                                          and s2 -> r1
# (incast-8 @100 is the testbed of the report that one of two flows died.)

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/dp-lib.sh"

# Goodput is compared over WINDOW seconds in which every flow runs, which
# begins once every sender has sent 1 MB (within START seconds).
START=${CC_FABRIC_START:-90}
WINDOW=${CC_FABRIC_WINDOW:-8}
MTU=9000
HOSTS="r1 r2 r3 s1 s2 s3 s4 s5 s6 s7 s8"

# fab_ip HOST: rN is 10.21.0.N, sN is 10.21.0.(100 + N).
fab_ip() {
	case $1 in
	r*) echo "10.21.0.${1#r}" ;;
	s*) echo "10.21.0.$((100 + ${1#s}))" ;;
	esac
}

fab_up() {
	# shellcheck disable=SC2086 # a list
	bridge_hosts_up br-fab "$MTU" fab_ip $HOSTS
}

fab_down() {
	# shellcheck disable=SC2086
	bridge_hosts_down br-fab $HOSTS
}

# fab_bottleneck RATE MIN MAX PROB LIMIT: htb at RATE Mbit/s with RED in
# ECN mode on every bridge port towards a receiver (fresh statistics).
# RED's burst is the smallest tc accepts for the thresholds, plus two.
# perftest's TCP exchange goes around it (class 1:20): RED drops what is
# not ECN-capable, and a client whose SYN it dropped gives up.
fab_bottleneck() {
	local rate=$1 min=$2 max=$3 p=$4 limit=$5 r burst
	burst=$(((2 * min + max) / (3 * 4200) + 2))
	for r in r1 r2 r3; do
		tc qdisc del dev "$r-br" root 2>/dev/null
		tc qdisc add dev "$r-br" root handle 1: htb default 10 &&
			tc class add dev "$r-br" parent 1: classid 1:10 htb \
				rate "${rate}mbit" ceil "${rate}mbit" \
				burst 64k cburst 64k &&
			tc qdisc add dev "$r-br" parent 1:10 handle 10: red \
				limit "$limit" min "$min" max "$max" avpkt 4200 \
				burst "$burst" probability "$p" \
				bandwidth "${rate}mbit" ecn &&
			tc class add dev "$r-br" parent 1: classid 1:20 htb \
				rate 10mbit ceil 1000mbit &&
			tc filter add dev "$r-br" parent 1: protocol ip prio 1 \
				u32 match ip protocol 6 0xff flowid 1:20 || return 1
	done
}

# red_stat DEV FIELD: marked or pdrop of the RED qdisc on DEV.
red_stat() {
	tc -s qdisc show dev "$1" | awk -v f="$2" '/qdisc red/ { red = 1 }
		red { for (i = 1; i < NF; i++) if ($i == f) { print $(i + 1); exit } }'
}

# sum_cnt COUNTER HOST...: a counter summed over the hosts' devices.
sum_cnt() {
	local c=$1 h s=0
	shift
	for h in "$@"; do
		s=$((s + $(hw_counter "sroce_$h" "$c")))
	done
	echo $s
}

# fab_count_up: on every receiver's eth0 an ingress filter per sender
# that counts what arrives from it (delivered goodput, resends included).
fab_count_up() {
	local r s
	for r in r1 r2 r3; do
		ip netns exec "$r" tc qdisc add dev eth0 clsact || return 1
		for s in s1 s2 s3 s4 s5 s6 s7 s8; do
			ip netns exec "$r" tc filter add dev eth0 ingress \
				protocol ip prio "${s#s}" u32 \
				match ip src "$(fab_ip "$s")/32" action pass ||
				return 1
		done
	done
}

# fab_snapshot ARRAY: ARRAY[sN>rM] = bytes that arrived at rM from sN so
# far, for every pair (one tc per receiver).
fab_snapshot() {
	local -n snap=$1
	local r p b out
	for r in r1 r2 r3; do
		# (no process substitution: the guest has no /dev/fd)
		out=$(ip netns exec "$r" tc -s filter show dev eth0 ingress |
			awk '$4 == "pref" { p = $5 } /Sent/ { print p, $2 }')
		while read -r p b; do
			# shellcheck disable=SC2034 # a nameref: the caller's
			[ -n "$p" ] && snap["s$p>$r"]=$b
		done <<<"$out"
	done
}

# fab_run FLOWS: one ib_write_bw per flow ("sN>rM" words) at once, with
# perftest's defaults but -D.  The clients start seconds apart in a TCG
# guest (tens of seconds for eight on a loaded host), so goodput is
# measured in a window they all share: from the moment every sender has
# sent 1 MB, for WINDOW seconds, by the bytes that arrived
# (fab_snapshot); then the clients and servers are stopped.  The
# caller's senders (an array) are the devices whose counters it reads
# into exceeded and cqe_err before the stop.  Sets gp
# (Mb/s per flow in the window), started (0 if a client's perftest never
# got to send: its TCP exchange failed, the tool's failure, not a QP's),
# and ok_window (0 when not every sender had sent 1 MB within START).
fab_run() {
	local flows i s r port=$((19100 + RANDOM % 500 * 10)) pids=()
	local o t0 t1 b0=() deadline
	local -A c0=() c1=()
	read -ra flows <<<"$1"
	o=$(mktemp)
	gp=() ok_window=1 started=1
	for i in "${!flows[@]}"; do
		r=${flows[i]#*>}
		ip netns exec "$r" timeout $((START + WINDOW + 60)) ib_write_bw \
			-d "sroce_$r" -x "$(gid_index "sroce_$r" "$(fab_ip "$r")")" \
			-p $((port + i)) -F -D $((START + WINDOW + 30)) \
			>"$o.$i.srv" 2>&1 &
		pids+=($!)
	done
	# perftest clients do not retry: they start once every server
	# listens, back to back, so that they start close together.
	for i in "${!flows[@]}"; do
		wait_until 120 port_listening "${flows[i]#*>}" $((port + i)) ||
			diag "server ${flows[i]#*>}:$((port + i)) not listening"
	done
	for i in "${!flows[@]}"; do
		b0[i]=$(hw_counter "sroce_${flows[i]%>*}" sent_bytes)
	done
	for i in "${!flows[@]}"; do
		s=${flows[i]%>*}
		r=${flows[i]#*>}
		ip netns exec "$s" timeout $((START + WINDOW + 60)) ib_write_bw \
			-d "sroce_$s" -x "$(gid_index "sroce_$s" "$(fab_ip "$s")")" \
			-p $((port + i)) -F -D $((START + WINDOW + 30)) \
			"$(fab_ip "$r")" >"$o.$i" 2>&1 &
		pids+=($!)
	done
	# Every sender on its way (its device sent 1 MB; read without
	# starting a process), then the window.
	deadline=$((SECONDS + START))
	for i in "${!flows[@]}"; do
		s=${flows[i]%>*}
		while [ "$(hw_counter "sroce_$s" sent_bytes)" -lt \
			$((b0[i] + 1000000)) ]; do
			[ $SECONDS -ge $deadline ] && { ok_window=0; break; }
			sleep 0.2
		done
	done
	for i in "${!flows[@]}"; do
		if ! grep -q '#bytes' "$o.$i" &&
			grep -q 'onnect\|exchange' "$o.$i"; then
			started=0
			diag "${flows[i]} did not start: $(tail -n 2 "$o.$i" | tr '\n' ' ')"
		fi
	done
	t0=${EPOCHREALTIME/./}
	fab_snapshot c0
	sleep "$WINDOW"
	t1=${EPOCHREALTIME/./}
	fab_snapshot c1
	for i in "${!flows[@]}"; do
		gp[i]=$(awk -v a="${c0[${flows[i]}]:-0}" -v b="${c1[${flows[i]}]:-0}" \
			-v t="$((t1 - t0))" 'BEGIN { printf "%.1f", (b - a) * 8 / t }')
	done
	# The QPs' fate is read before anything is stopped, and the clients
	# stop before the servers: a client whose server went first would
	# run out of retries while it is torn down.
	exceeded=$(sum_cnt req_transport_retries_exceeded "${senders[@]}")
	cqe_err=$(sum_cnt req_cqe_error "${senders[@]}")
	kill "${pids[@]:${#flows[@]}}" 2>/dev/null
	wait "${pids[@]:${#flows[@]}}" 2>/dev/null
	kill "${pids[@]:0:${#flows[@]}}" 2>/dev/null
	wait "${pids[@]:0:${#flows[@]}}" 2>/dev/null
	rm -f "$o" "$o".*
}

# share_ok X...: Jain's index of the numbers >= 0.8, or for two numbers
# the smaller within 20 % of the larger.
share_ok() {
	echo "$@" | tr ' ' '\n' | awk 'NF { s += $1; q += $1 * $1; v[n++] = $1 }
		END {
			if (n == 2) {
				lo = v[0] < v[1] ? v[0] : v[1]
				hi = v[0] < v[1] ? v[1] : v[0]
				exit !(hi > 0 && lo >= 0.8 * hi)
			}
			exit !(q > 0 && s * s / (n * q) >= 0.8) }'
}

jain() {
	echo "$@" | tr ' ' '\n' | awk 'NF { s += $1; q += $1 * $1; n++ }
		END { printf "%.3f", (q > 0) ? s * s / (n * q) : 0 }'
}

# testbed NAME "RATE MIN MAX PROB LIMIT" FLOWS SHARED: three results:
# no QP out of retries or failed; every flow moved data in the window;
# the flows to r1 (the first SHARED of them) share the bottleneck.
testbed() {
	local name=$1 flows shared=$4 senders i moved=0 t0 d
	local e0 q0 to0 x0 m0 w0 cli="" fair
	read -ra flows <<<"$3"
	read -ra senders <<<"$(for f in "${flows[@]}"; do echo "${f%>*}"; done |
		sort -u | tr '\n' ' ')"
	# shellcheck disable=SC2086 # lists
	if ! fab_bottleneck $2; then
		ktap_skip_rest "tc setup failed ($name)"
		return
	fi
	{
		e0=$(sum_cnt req_transport_retries_exceeded "${senders[@]}")
		q0=$(sum_cnt req_cqe_error "${senders[@]}")
		to0=$(sum_cnt local_ack_timeout_err "${senders[@]}")
		x0=$(sum_cnt packet_seq_err "${senders[@]}")
		m0=$(sum_cnt np_cnp_sent r1 r2 r3)
		w0=$(sum_cnt req_cnp_window_cuts "${senders[@]}")
	}
	t0=$SECONDS
	fab_run "$3"
	if [ "$started" = 0 ]; then
		diag "$name: again"
		fab_run "$3"
	fi
	d=$((SECONDS - t0))
	for i in "${!flows[@]}"; do
		awk -v g="${gp[i]}" 'BEGIN { exit !(g > 0) }' && moved=$((moved + 1))
		cli="$cli ${flows[i]}=${gp[i]}"
	done
	[ "$ok_window" = 1 ] || diag "not every sender sent 1 MB within $START s"
	# shellcheck disable=SC2086
	fair=$(jain "${gp[@]:0:$shared}")
	diag "$name (${d} s): goodput Mb/s in ${WINDOW} s$cli; Jain of the first $shared $fair" \
		"  r1-br RED marked $(red_stat r1-br marked) dropped $(red_stat r1-br pdrop);" \
		"  np_cnp_sent +$(($(sum_cnt np_cnp_sent r1 r2 r3) - m0))," \
		"  req_cnp_window_cuts +$(($(sum_cnt req_cnp_window_cuts "${senders[@]}") - w0))," \
		"  local_ack_timeout_err +$(($(sum_cnt local_ack_timeout_err "${senders[@]}") - to0))," \
		"  packet_seq_err +$(($(sum_cnt packet_seq_err "${senders[@]}") - x0))," \
		"  req_transport_retries_exceeded +$((exceeded - e0)) (+$(($(sum_cnt req_transport_retries_exceeded "${senders[@]}") - e0)) once stopped)"
	# shellcheck disable=SC2086
	ktap_result "$name: no QP ran out of retries or failed" \
		"$([ "$exceeded" -eq "$e0" ] && [ "$cqe_err" -eq "$q0" ]; echo $?)"
	ktap_result "$name: every flow moved data (in the window)" \
		"$([ $moved -eq ${#flows[@]} ] && [ "$ok_window" = 1 ]; echo $?)"
	# shellcheck disable=SC2086
	ktap_result "$name: the flows into r1 share it (Jain >= 0.8, 2 flows within 20 %)" \
		"$(share_ok "${gp[@]:0:$shared}"; echo $?)"
}

ktap_begin 14 "congestion that degrades smoothly: default DCQCN, untuned bottlenecks"

trap fab_down EXIT

if ! ktap_check "load sroce.ko" load_sroce ||
	! ktap_check "bridge, 11 namespaces with sroce devices" fab_up ||
	! fab_count_up; then
	ktap_skip_rest "no topology"
	ktap_done
fi

t_all=$SECONDS
testbed "incast-2 @40" "40 8000 40000 0.05 150000" "s1>r1 s2>r1" 2
testbed "incast-4 @200" "200 30000 150000 0.2 600000" \
	"s1>r1 s2>r1 s3>r1 s4>r1" 4
testbed "incast-8 @100" "100 15000 60000 0.1 400000" \
	"s1>r1 s2>r1 s3>r1 s4>r1 s5>r1 s6>r1 s7>r1 s8>r1" 8
# Reverse: s1 sends to three receivers while s2 also sends to r1; the
# flows into r1 (listed first) share its port, s1's others are not
# congested and must not be held back with them.
testbed "reverse @60" "60 20000 100000 0.1 250000" \
	"s1>r1 s2>r1 s1>r2 s1>r3" 2
diag "all testbeds: $((SECONDS - t_all)) s"

ktap_done
