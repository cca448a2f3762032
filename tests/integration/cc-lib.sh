# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# cc-lib.sh - the congestion control testbed, defined once: sourced by
# tests/integration/t-cc-incast.sh and bench/cc.sh (`make bench-cc`), after
# lib.sh.  N senders and one receiver, each in its own namespace with a
# sroce device, joined by a Linux bridge in init_net; the bridge port
# towards the receiver is the bottleneck: htb at $cc_rate Mbit/s with RED
# in ECN mode.
#
#   +- s1 -+   +- s2 -+  ...  +- sN -+               +-- r --+
#   |sroce_s1|  |sroce_s2|     |sroce_sN|             |sroce_r|
#   | eth0 |   | eth0 |       | eth0 |                | eth0  |
#   +--|---+   +--|---+       +--|---+                +--|----+
#      s1-br      s2-br          sN-br    [br-cc]   r-br: htb + RED ecn
#   init_net: bridge br-cc with every *-br port; r is 10.20.0.1, sN .N+1
#
# Every value has a SROCE_CC_* override (bench/cc.sh's header lists them);
# the reasons for the defaults are in Documentation/cc.rst, "Testbed".
#
# A TCG guest pushes 130-200 Mbit/s through the bridge unshaped, so the
# bottleneck is 50 Mbit/s.  veth MTU 9000: a 4 KB message is one RoCE
# packet (MTU 4096), not four.  htb burst 64 KB: tc's default (one MTU)
# lets one packet out per watchdog timer and TCG timers fire late.
cc_rate=${SROCE_CC_RATE:-50}
cc_mtu=${SROCE_CC_MTU:-9000}
cc_qdisc=${SROCE_CC_QDISC:-red}	# red (htb + RED/ECN), htb (tail drop), none
cc_htb_burst=${SROCE_CC_HTB_BURST:-64k}
# RED: marking starts at 10 KB (2.5 packets, 1.6 ms) and reaches every
# packet at 80 KB (13 ms, probability 1): marks are set on enqueue and
# reach the sender after the whole queue, so a deep marking band is a long
# feedback delay that lets the senders overshoot, fill the 200 KB limit
# and then cut to the floor while the marked queue drains (the cycle
# tools/ccsim shows with the former 20/100 KB, p 0.1).  A RED burst of 4
# packets makes tc's EWMA weight 1/4 (Wlog 2): the average follows the
# queue within a few packets instead of 32.  The 200 KB limit is below
# two senders' 2 x 128 KB in flight, so CC none overflows it.
cc_red_min=${SROCE_CC_RED_MIN:-10000}
cc_red_max=${SROCE_CC_RED_MAX:-80000}
cc_red_prob=${SROCE_CC_RED_PROB:-1.0}
cc_red_burst=${SROCE_CC_RED_BURST:-4}
cc_red_limit=${SROCE_CC_RED_LIMIT:-200000}
cc_hosts=${cc_hosts:-r s1 s2}
# ib_write_bw's message size (perftest's own default is 64 KB).
cc_size=${SROCE_CC_SIZE:-4096}

# cc_host_ip HOST: r is .1, sN is .(N+1).
cc_host_ip() {
	case $1 in
	r) echo 10.20.0.1 ;;
	s*) echo "10.20.0.$((${1#s} + 1))" ;;
	esac
}

cc_topo_up() {
	# shellcheck disable=SC2086 # cc_hosts is a list
	bridge_hosts_up br-cc "$cc_mtu" cc_host_ip $cc_hosts
}

cc_topo_down() {
	# shellcheck disable=SC2086
	bridge_hosts_down br-cc $cc_hosts
}

# cc_bottleneck: (re)create the qdiscs on r-br, the bridge port's egress
# towards the receiver (fresh statistics for each run).
cc_bottleneck() {
	tc qdisc del dev r-br root 2>/dev/null
	[ "$cc_qdisc" = none ] && return 0
	tc qdisc add dev r-br root handle 1: htb default 10 &&
		tc class add dev r-br parent 1: classid 1:10 htb \
			rate "${cc_rate}mbit" ceil "${cc_rate}mbit" \
			${cc_htb_burst:+burst $cc_htb_burst cburst $cc_htb_burst} ||
		return 1
	[ "$cc_qdisc" = htb ] && return 0
	tc qdisc add dev r-br parent 1:10 handle 10: red \
		limit "$cc_red_limit" min "$cc_red_min" max "$cc_red_max" \
		avpkt 4200 burst "$cc_red_burst" probability "$cc_red_prob" \
		bandwidth "${cc_rate}mbit" ecn
}

# cc_knobs ALGO FLAVOUR: the algorithm and the testbed's reaction point on
# every device.  Both flavours' defaults are made for 40-100 Gb/s fabrics
# with us RTTs; here a flow's packets are 1-2 ms apart (4 KB at 20-25
# Mb/s), so at most one CNP per packet reaches a sender and the queue
# delay is the feedback delay.  The time constants are scaled to that
# (dcqcn.md: every parameter must be tunable), the flavour's other
# defaults stay:
#   rpg_max_rate 1000          senders are 1 Gb/s NICs
#   rpg_time_reset 1500 us     one rate increase per packet or so
#   rpg_byte_reset 256 KB      64 packets (mlx's 32767 = 8 packets would
#                              raise the rate as often as CNPs can cut it)
#   dce_tcp_rtt 2000 us        alpha period (K) longer than a CNP interval
#   rpg_ai_rate 1, hai 10 Mb/s steps sized to a 50 Mbit/s bottleneck
#   rpg_min_rate 10 Mb/s       floor: 4 senders at the floor still leave
#                              room (40 < 49 Mb/s), and a flow cut by
#                              stale marks recovers in a few steps
#   rpg_min_dec_fac 85 %       a cut keeps 85 %: stale marks from the
#                              queue ahead cannot halve a flow each
#   min_time_between_cnps 200 us, rate_reduce_monitor_period 200 us
#   clamp_tgt_rate 1           Rt = Rc on every cut, as in the paper
# $SROCE_CC_DEFAULTS=1 keeps the flavour defaults (rpg_max_rate aside);
# $SROCE_CC_KNOBS ("dir/file=value ...", relative to ecn/) is written last.
cc_testbed_knobs="roce_rp/rpg_time_reset=1500 roce_rp/rpg_byte_reset=262144
	roce_rp/dce_tcp_rtt=2000 roce_rp/rpg_ai_rate=1 roce_rp/rpg_hai_rate=10
	roce_rp/rpg_min_rate=10 roce_rp/rpg_min_dec_fac=85
	roce_np/min_time_between_cnps=200
	roce_rp/rate_reduce_monitor_period=200 roce_rp/clamp_tgt_rate=1"
cc_knobs() {
	local h d kv kvs=$cc_testbed_knobs
	[ "${SROCE_CC_DEFAULTS:-0}" = 1 ] && kvs=
	for h in $cc_hosts; do
		d=/sys/class/infiniband/sroce_$h/ecn
		echo "$2" >"$d/roce_rp/flavour" || return 1
		echo "$1" >"$d/roce_rp/cc_algo" || return 1
		echo 1000 >"$d/roce_rp/rpg_max_rate" || return 1
		for kv in $kvs ${SROCE_CC_KNOBS:-}; do
			echo "${kv#*=}" >"$d/${kv%%=*}" || return 1
		done
	done
}

# cc_cnt HOST COUNTER
cc_cnt() { cat "/sys/class/infiniband/sroce_$1/ports/1/hw_counters/$2"; }

# cc_sum_cnt COUNTER HOST...
cc_sum_cnt() {
	local c=$1 h s=0
	shift
	for h in "$@"; do
		s=$((s + $(cc_cnt "$h" "$c")))
	done
	echo $s
}

# cc_red_stat FIELD: marked / early / pdrop / dropped of the RED qdisc.
cc_red_stat() {
	tc -s qdisc show dev r-br | awk -v f="$1" '
		/qdisc red/ { red = 1 }
		red && f != "dropped" {
			for (i = 1; i < NF; i++) if ($i == f) { print $(i + 1); exit } }
		red && f == "dropped" {
			for (i = 1; i < NF; i++) if ($i == "(dropped") {
				v = $(i + 1); sub(",", "", v); print v; exit } }'
}

# cc_dev_bytes DEV rx|tx: the netdev's byte counter (init_net), read
# without starting a process.
cc_dev_bytes() {
	local v
	read -r v <"/sys/class/net/$1/statistics/$2_bytes"
	echo "$v"
}

# cc_now_us: the guest's clock in microseconds, without a process.
cc_now_us() { echo "${EPOCHREALTIME/./}"; }

# cc_sleep_until T: until cc_now_us reads T, without starting a process
# (sleep(1) alone can take a second to start in a TCG guest on a loaded
# host): read with a timeout on a pipe that never has data.
cc_sleep_until() {
	local fd
	exec {fd}<> <(:)
	while [ "${EPOCHREALTIME/./}" -lt "$1" ]; do
		read -r -t 0.05 -u "$fd" _
	done
	exec {fd}<&-
}

# cc_perf_start N SECS PORT0 DEPTH TIMEOUT_EXP OUTPREFIX: ib_write_bw
# servers in r and clients in s1..sN ($cc_size-byte WRITEs, DEPTH in flight, -D SECS,
# clients once their server listens).  Client i writes OUTPREFIX.i, its
# server OUTPREFIX.i.srv; the clients' pids are in $cc_perf_pids.
cc_perf_start() {
	local n=$1 secs=$2 port=$3 txd=$4 tmo=$5 o=$6 i gr
	gr=$(gid_index sroce_r 10.20.0.1)
	cc_perf_pids=()
	for i in $(seq 1 "$n"); do
		ip netns exec r timeout $((secs + 60)) ib_write_bw -d sroce_r \
			-x "$gr" -p $((port + i)) -F -s "$cc_size" -t "$txd" \
			-u "$tmo" -D "$secs" >"$o.$i.srv" 2>&1 &
	done
	# perftest clients do not retry: start them once the servers listen.
	for i in $(seq 1 "$n"); do
		wait_until 60 port_listening r $((port + i))
	done
	for i in $(seq 1 "$n"); do
		ip netns exec "s$i" timeout $((secs + 60)) ib_write_bw \
			-d "sroce_s$i" \
			-x "$(gid_index "sroce_s$i" "$(cc_host_ip "s$i")")" \
			-p $((port + i)) -F -s "$cc_size" -t "$txd" -u "$tmo" \
			-D "$secs" 10.20.0.1 >"$o.$i" 2>&1 &
		cc_perf_pids+=($!)
	done
}

# cc_goodput FILE SECS: Mb/s of an ib_write_bw -D SECS client from the
# iterations of its measurement window (SECS less perftest's 2 s margin at
# either end); perftest's own MB/s comes from a cycle counter calibrated
# against a TCG guest's clock and reads 0.00 now and then.
cc_goodput() {
	awk -v w=$(($2 - 4)) -v s="$cc_size" '$1 == s && NF >= 5 {
		printf "%.1f", $2 * s * 8 / w / 1e6 }' "$1"
}

# cc_jain X...: Jain's fairness index of the numbers.
cc_jain() {
	echo "$@" | tr ' ' '\n' | awk 'NF { s += $1; q += $1 * $1; n++ }
		END { printf "%.3f", (q > 0) ? s * s / (n * q) : 0 }'
}
