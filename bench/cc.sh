#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/cc.sh - `make bench-cc`: congestion control under incast, in ONE
# guest boot.  N senders and one receiver, each in its own namespace with a
# sroce device, joined by a Linux bridge in init_net; the bridge port
# towards the receiver is the bottleneck: htb at $SROCE_CC_RATE (default
# 50 Mbit/s; unshaped, sroce pushes 130-200 Mbit/s through the bridge in a
# TCG guest) with RED in ECN mode.  Each sender runs ib_write_bw to the
# receiver for $SROCE_CC_SECS.
#
# Made for a slow guest (measured, Documentation/cc.rst): veth MTU 9000,
# so a 4 KB message is one RoCE packet (MTU 4096), not four; an htb burst
# of 64 KB, because tc's default (one MTU at psched's 1 GHz clock) lets
# one packet out per watchdog timer, and TCG timers fire late: htb alone
# at 100 Mbit/s passed 21 Mbit/s with no drop; RED limit 200 KB (32 ms,
# below the 67 ms RC ACK timeout perftest asks for).
#
# Knobs of the run: SROCE_CC_RATE, SROCE_CC_SECS, SROCE_CC_MTU,
# SROCE_CC_QDISC (red, htb alone, none), SROCE_CC_RED_MIN/MAX/LIMIT/PROB,
# SROCE_CC_HTB_BURST, SROCE_CC_FANS (with --quick), SROCE_CC_CFGS
# ("algo/flavour ..."), SROCE_CC_KNOBS ("roce_rp/file=value ..." written
# last), SROCE_CC_DEFAULTS=1 (flavour defaults).
#
#   +- s1 -+  +- s2 -+  ... +- sN -+              +-- r --+
#   |sroce_s1| |sroce_s2|   |sroce_sN|            |sroce_r|
#   | eth0 | | eth0 |      | eth0 |               | eth0  |
#   +--|---+ +--|---+      +--|---+               +--|----+
#      s1-br    s2-br         sN-br    [br-cc]   r-br: htb + RED ecn
#   init_net: bridge br-cc with every *-br port
#
# Scenarios: CC none, dcqcn/mlx, dcqcn/paper for 1-to-1, 2-to-1 and 4-to-1.
# Printed and saved (bench/results/cc-<stamp>.csv and .md): per-flow
# goodput (perftest, which leaves out 2 s at either end), Jain's fairness
# index, utilisation of the bottleneck by goodput and by bytes on the wire
# in the same window, what each sender put on the wire, RED marks and
# drops, the CNP counters, RC ACK timeouts and `tc -s qdisc`.
#
#   bench/cc.sh [--quick]   (--quick: 2-to-1 only, 8 s per run)

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
top=$(cd "$here/.." && pwd -P)

if [ -z "${SROCE_VM:-}" ]; then
	stamp=$(date -u +%Y%m%d-%H%M%S)
	res=$(mktemp -d /tmp/sroce-bench-cc.XXXXXX)
	"$top/tests/vm/vm-run" --timeout "${SROCE_BENCH_TIMEOUT:-3600}" \
		--results "$res" -- "$here/cc.sh" "$@"
	rc=$?
	mkdir -p "$here/results"
	for f in cc.md cc.csv; do
		[ -s "$res/$f" ] && cp "$res/$f" "$here/results/cc-$stamp.${f#cc.}"
	done
	[ -s "$res/cc.md" ] && echo "bench-cc: results in bench/results/cc-$stamp.md"
	rm -rf "$res"
	exit $rc
fi

. "$top/tests/integration/lib.sh"
. "$top/tests/integration/dp-lib.sh"

rate=${SROCE_CC_RATE:-50}	# Mbit/s at the bottleneck
secs=${SROCE_CC_SECS:-10}
txd=${SROCE_CC_TXDEPTH:-32}	# perftest -t: messages in flight per flow
tmo_exp=${SROCE_CC_TIMEOUT:-14}	# perftest -u: ACK timeout 4.096 us * 2^N
fans="1 2 4"
if [ "${1:-}" = --quick ]; then
	fans=${SROCE_CC_FANS:-2}
	secs=8
fi
out=${SROCE_RESULTS:-/tmp}
csv=$out/cc.csv
md=$out/cc.md
hosts="r s1 s2 s3 s4"
# veth MTU: 9000 gives RoCE MTU 4096 (one packet per 4 KB message).
mtu=${SROCE_CC_MTU:-9000}

# host_ip HOST: r is .1, sN is .(N+1).
host_ip() {
	case $1 in
	r) echo 10.20.0.1 ;;
	s*) echo "10.20.0.$((${1#s} + 1))" ;;
	esac
}

topo_up() {
	local h
	ip link add br-cc type bridge || return 1
	ip link set br-cc up
	for h in $hosts; do
		ip netns add "$h" || return 1
		ip -n "$h" link set lo up
		ip link add "$h-br" mtu "$mtu" type veth peer name eth0 \
			netns "$h" mtu "$mtu" || return 1
		ip link set "$h-br" master br-cc up
		ip -n "$h" addr add "$(host_ip "$h")/24" dev eth0
		ip -n "$h" link set eth0 up
		add_link "sroce_$h" sroce eth0 "$h" || return 1
	done
	for h in $hosts; do
		wait_gid "sroce_$h" "$(host_ip "$h")" || return 1
	done
}

# bottleneck: the bridge port towards the receiver (its egress).
# $qdisc: red (htb + RED/ECN, the default), htb (htb alone, tail drop) or
# none (no shaping: what the guest pushes through the bridge).
qdisc=${SROCE_CC_QDISC:-red}
red_min=${SROCE_CC_RED_MIN:-20000}
red_max=${SROCE_CC_RED_MAX:-100000}
red_prob=${SROCE_CC_RED_PROB:-0.1}
red_limit=${SROCE_CC_RED_LIMIT:-200000}
htb_burst=${SROCE_CC_HTB_BURST:-64k}
bottleneck() {
	tc qdisc del dev r-br root 2>/dev/null
	[ "$qdisc" = none ] && return 0
	tc qdisc add dev r-br root handle 1: htb default 10 &&
		tc class add dev r-br parent 1: classid 1:10 htb \
			rate "${rate}mbit" ceil "${rate}mbit" \
			${htb_burst:+burst $htb_burst cburst $htb_burst} || return 1
	[ "$qdisc" = htb ] && return 0
	# tc wants burst >= (2 min + max) / (3 avpkt) packets.
	tc qdisc add dev r-br parent 1:10 handle 10: red limit "$red_limit" \
		min "$red_min" max "$red_max" avpkt 4200 \
		burst $(((2 * red_min + red_max) / 12600 + 1)) \
		probability "$red_prob" bandwidth "${rate}mbit" ecn
}

# knobs ALGO FLAVOUR: on every device.  The defaults of both flavours are
# for 40-100 Gb/s fabrics and us RTTs (an additive step of 5-40 Mb/s every
# 55-300 us would refill a 50 Mb/s bottleneck within a millisecond), so
# the RP is scaled to the bench (dcqcn.md: every parameter must be
# tunable) and to guest RTTs of 1-10 ms: senders are 1 Gb/s NICs
# (rpg_max_rate), steps of 1 and 5 Mb/s every ms, an alpha period of
# 100 us, at most one CNP per QP every 200 us and one cut per 200 us (so
# a burst of marks does not cut a flow down to rpg_min_rate before the
# first cut has had an effect), and Rt = Rc on every cut as in the paper
# (clamp_tgt_rate).  $SROCE_CC_DEFAULTS=1 keeps the flavour defaults.
knobs() {
	local h d kv
	for h in $hosts; do
		d=/sys/class/infiniband/sroce_$h/ecn
		echo "$2" >$d/roce_rp/flavour
		echo "$1" >$d/roce_rp/cc_algo
		echo 1000 >$d/roce_rp/rpg_max_rate
		if [ "${SROCE_CC_DEFAULTS:-0}" != 1 ]; then
			echo 1 >$d/roce_rp/rpg_ai_rate
			echo 5 >$d/roce_rp/rpg_hai_rate
			echo 1000 >$d/roce_rp/rpg_time_reset
			echo 100 >$d/roce_rp/dce_tcp_rtt
			echo 200 >$d/roce_np/min_time_between_cnps
			echo 200 >$d/roce_rp/rate_reduce_monitor_period
			echo 1 >$d/roce_rp/clamp_tgt_rate
		fi
		# $SROCE_CC_KNOBS: more "file=value" under ecn/, last wins.
		for kv in ${SROCE_CC_KNOBS:-}; do
			echo "${kv#*=}" >"$d/${kv%%=*}"
		done
	done
}

cnt() { cat "/sys/class/infiniband/sroce_$1/ports/1/hw_counters/$2"; }

# sum_cnt COUNTER HOST...
sum_cnt() {
	local c=$1 h s=0
	shift
	for h in "$@"; do
		s=$((s + $(cnt "$h" "$c")))
	done
	echo $s
}

# red_stat FIELD: marked / early / pdrop / dropped of the RED qdisc.
red_stat() {
	tc -s qdisc show dev r-br | awk -v f="$1" '
		/qdisc red/ { red = 1 }
		red { for (i = 1; i < NF; i++) if ($i == f) { print $(i + 1); exit } }
		red && /dropped/ && f == "dropped" {
			for (i = 1; i < NF; i++) if ($i == "(dropped") {
				v = $(i + 1); sub(",", "", v); print v; exit } }'
}

# qdisc_bytes: bytes sent by the root qdisc of the bottleneck.
qdisc_bytes() {
	tc -s qdisc show dev r-br | awk '/Sent/ { print $2; exit }'
}

# run ALGO FLAVOUR N: one scenario; appends to the CSV and Markdown.
run() {
	local algo=$1 flav=$2 n=$3 i gr pids=() outs=() gp bws="" sum=0
	local sq=0 jain util m0 c0 h0 d0 marks cnps handled drops b0 wire tmo
	local rx0=() tx txs=""
	bottleneck || { echo "# tc setup failed"; return 1; }
	knobs "$algo" "$flav"
	gr=$(gid_index sroce_r 10.20.0.1)
	m0=$(cnt r np_ecn_marked_roce_packets)
	c0=$(cnt r np_cnp_sent)
	h0=$(sum_cnt rp_cnp_handled s1 s2 s3 s4)
	local t0 x0 e0
	t0=$(sum_cnt local_ack_timeout_err s1 s2 s3 s4)
	x0=$(sum_cnt packet_seq_err s1 s2 s3 s4)
	e0=$(sum_cnt req_transport_retries_exceeded s1 s2 s3 s4)
	for i in $(seq 1 "$n"); do
		outs[i]=$(mktemp)
		ip netns exec r timeout $((secs + 60)) ib_write_bw -d sroce_r \
			-x "$gr" -p $((18600 + i)) -F -s 4096 -t "$txd" -u "$tmo_exp" -D "$secs" \
			>"${outs[i]}.srv" 2>&1 &
	done
	# perftest clients do not retry: start them once the servers listen.
	for i in $(seq 1 "$n"); do
		wait_until 60 port_listening r $((18600 + i))
	done
	for i in $(seq 1 "$n"); do
		ip netns exec "s$i" timeout $((secs + 60)) ib_write_bw \
			-d "sroce_s$i" -x "$(gid_index "sroce_s$i" "$(host_ip "s$i")")" \
			-p $((18600 + i)) -F -s 4096 -t "$txd" -u "$tmo_exp" -D "$secs" 10.20.0.1 \
			>"${outs[i]}" 2>&1 &
		pids+=($!)
	done
	# Bytes through the bottleneck within perftest's measurement window
	# (it leaves out 2 s at either end of -D): the wire utilisation.
	sleep 2
	b0=$(qdisc_bytes)
	for i in $(seq 1 "$n"); do
		rx0[i]=$(cat "/sys/class/net/s$i-br/statistics/rx_bytes")
	done
	sleep $(((secs - 4) / 2))
	# The senders' QPs half way through: rate and alpha per QP.
	rdma -dd resource show qp 2>/dev/null | grep -o 'link sroce_s[^ ]* lqpn [0-9]*\|drv_cc_[a-z_0-9]* [a-z0-9]*' |
		paste -sd' ' | sed 's/ link /\n#   link /g; s/^/#   /'
	sleep $((secs - 4 - (secs - 4) / 2))
	wire=$(awk -v a="$b0" -v b="$(qdisc_bytes)" -v s=$((secs - 4)) \
		-v r="$rate" 'BEGIN { printf "%.2f", (b - a) * 8 / s / (r * 1e6) }')
	# What each sender put on the wire in the window (with resends).
	for i in $(seq 1 "$n"); do
		tx=$(awk -v a="${rx0[i]}" -v s=$((secs - 4)) \
			-v b="$(cat "/sys/class/net/s$i-br/statistics/rx_bytes")" \
			'BEGIN { printf "%.1f", (b - a) * 8 / s / 1e6 }')
		txs="$txs $tx"
	done
	wait
	for i in $(seq 1 "$n"); do
		# The result line: size iterations peak avg(MB/s) msgrate.  The
		# iterations are those of the window (-D less 2 s at either
		# end); perftest's MB/s comes from a cycle counter calibrated
		# against a TCG guest's clock and reads 0.00 now and then.
		gp=$(awk -v w=$((secs - 4)) '$1 == 4096 && NF >= 5 {
			printf "%.1f", $2 * 4096 * 8 / w / 1e6 }' "${outs[i]}")
		if [ -z "$gp" ] || [ "$gp" = 0.0 ]; then
			gp=${gp:-0}
			echo "#   flow $i:"
			sed 's/^/#   /' "${outs[i]}" | tail -n 4
		fi
		bws="$bws $gp"
		rm -f "${outs[i]}" "${outs[i]}.srv"
	done
	read -r sum sq <<<"$(tr ' ' '\n' <<<"$bws" | awk 'NF {
		s += $1; q += $1 * $1 } END { printf "%.1f %.1f", s, q }')"
	jain=$(awk -v s="$sum" -v q="$sq" -v n="$n" \
		'BEGIN { printf "%.3f", (q > 0) ? s * s / (n * q) : 0 }')
	util=$(awk -v s="$sum" -v r="$rate" 'BEGIN { printf "%.2f", s / r }')
	tmo=$(($(sum_cnt local_ack_timeout_err s1 s2 s3 s4) - t0))
	marks=$(red_stat marked)
	drops=$(red_stat dropped)
	cnps=$(($(cnt r np_cnp_sent) - c0))
	handled=$(($(sum_cnt rp_cnp_handled s1 s2 s3 s4) - h0))
	m0=$(($(cnt r np_ecn_marked_roce_packets) - m0))
	echo "# $algo/$flav $n-to-1: goodput Mb/s [${bws# }] sum $sum" \
		"Jain $jain util $util wire_util $wire sent Mb/s [${txs# }] red_marked ${marks:-?} red_dropped ${drops:-?}" \
		"np_ecn_marked $m0 np_cnp_sent $cnps rp_cnp_handled $handled" \
		"timeouts $tmo" \
		"seq_naks $(($(sum_cnt packet_seq_err s1 s2 s3 s4) - x0))" \
		"retry_exceeded $(($(sum_cnt req_transport_retries_exceeded s1 s2 s3 s4) - e0))"
	tc -s qdisc show dev r-br | sed 's/^/#   /'
	echo "$algo,$flav,$n,\"${bws# }\",$sum,$jain,$util,$wire,\"${txs# }\",${marks:-},${drops:-},$m0,$cnps,$handled,$tmo" >>"$csv"
	echo "| $algo | $flav | $n | ${bws# } | $sum | $jain | $util | $wire | ${txs# } | ${marks:-} | ${drops:-} | $m0 | $cnps | $handled | $tmo |" >>"$md"
}

# SROCE_CC_LIB=1: only define the functions (for ad-hoc experiments).
[ "${SROCE_CC_LIB:-0}" = 1 ] && return 0

load_sroce >/dev/null 2>&1 || { echo "bench-cc: cannot load sroce"; exit 1; }
topo_up || { echo "bench-cc: topology failed"; exit 1; }
echo "algo,flavour,senders,goodput_mbps,sum_mbps,jain,utilisation,wire_utilisation,sent_mbps,red_marked,red_dropped,np_ecn_marked,np_cnp_sent,rp_cnp_handled,ack_timeouts" >"$csv"
{
	echo "# sroce congestion control, incast through a ${rate} Mbit/s RED/ECN bottleneck (${secs} s per run)"
	echo
	echo "$(date -u '+%F %H:%M') UTC; guest load $(cut -d" " -f1-3 /proc/loadavg); MTU $mtu;" \
		"qdisc $qdisc, htb burst $htb_burst, RED min $red_min max $red_max limit $red_limit" \
		"p $red_prob; ib_write_bw 4 KB x $txd in flight, -u $tmo_exp;" \
		"knobs: ${SROCE_CC_DEFAULTS:+flavour defaults }${SROCE_CC_KNOBS:-bench scaling}"
	echo
	echo "| CC | flavour | senders | goodput Mb/s per flow | sum | Jain | util | wire util | sent Mb/s per flow | RED marked | RED dropped | np_ecn_marked | np_cnp_sent | rp_cnp_handled | ACK timeouts |"
	echo "|---|---|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|"
} >"$md"
for n in $fans; do
	for cfg in ${SROCE_CC_CFGS:-none/mlx dcqcn/mlx dcqcn/paper}; do
		run "${cfg%/*}" "${cfg#*/}" "$n"
	done
done
cat "$md"
