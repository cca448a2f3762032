#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/cc.sh - `make bench-cc`: congestion control under incast, in ONE
# guest boot.  N senders and one receiver, each in its own namespace with a
# sroce device, joined by a Linux bridge in init_net; the bridge port
# towards the receiver is the bottleneck: htb at $SROCE_CC_RATE (default
# 100 Mbit/s, well below what sroce pushes in the guest) with RED in ECN
# mode.  Each sender runs ib_write_bw to the receiver for $SROCE_CC_SECS.
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
# goodput, Jain's fairness index, utilisation of the bottleneck, RED marks
# and drops, the CNP counters and `tc -s qdisc` of the bottleneck.
#
#   bench/cc.sh [--quick]   (--quick: 2-to-1 only, 5 s per run)

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

rate=${SROCE_CC_RATE:-100}	# Mbit/s at the bottleneck
secs=${SROCE_CC_SECS:-10}
fans="1 2 4"
if [ "${1:-}" = --quick ]; then
	fans=${SROCE_CC_FANS:-2}
	secs=5
fi
out=${SROCE_RESULTS:-/tmp}
csv=$out/cc.csv
md=$out/cc.md
hosts="r s1 s2 s3 s4"

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
		ip link add "$h-br" type veth peer name eth0 netns "$h" || return 1
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
bottleneck() {
	tc qdisc del dev r-br root 2>/dev/null
	tc qdisc add dev r-br root handle 1: htb default 10 &&
		tc class add dev r-br parent 1: classid 1:10 htb \
			rate "${rate}mbit" ceil "${rate}mbit" &&
		tc qdisc add dev r-br parent 1:10 handle 10: red limit 400000 \
			min 15000 max 45000 avpkt 1100 burst 20 probability 0.1 \
			bandwidth "${rate}mbit" ecn
}

# knobs ALGO FLAVOUR: on every device.  The defaults of both flavours are
# for 40-100 Gb/s fabrics (an additive step of 5-40 Mb/s every 55-300 us
# would refill a 100 Mb/s bottleneck within a millisecond), so the RP is
# scaled to the bench (dcqcn.md: every parameter must be tunable): senders
# are 1 Gb/s NICs (rpg_max_rate), steps of 1 and 5 Mb/s every 300 us, an
# alpha period of 50 us, a CNP for every marked packet at most every 10 us
# per QP, and Rt = Rc on every cut (clamp_tgt_rate: no fast recovery
# straight back to line rate).  $SROCE_CC_DEFAULTS=1 keeps the flavour defaults instead.
knobs() {
	local h d
	for h in $hosts; do
		d=/sys/class/infiniband/sroce_$h/ecn
		echo "$2" >$d/roce_rp/flavour
		echo "$1" >$d/roce_rp/cc_algo
		echo 1000 >$d/roce_rp/rpg_max_rate
		[ "${SROCE_CC_DEFAULTS:-0}" = 1 ] && continue
		echo 1 >$d/roce_rp/rpg_ai_rate
		echo 5 >$d/roce_rp/rpg_hai_rate
		echo 300 >$d/roce_rp/rpg_time_reset
		echo 50 >$d/roce_rp/dce_tcp_rtt
		echo 10 >$d/roce_np/min_time_between_cnps
		echo 1 >$d/roce_rp/clamp_tgt_rate
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

# run ALGO FLAVOUR N: one scenario; appends to the CSV and Markdown.
run() {
	local algo=$1 flav=$2 n=$3 i gr pids=() outs=() gp bws="" sum=0
	local sq=0 jain util m0 c0 h0 d0 marks cnps handled drops
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
			-x "$gr" -p $((18600 + i)) -F -s 4096 -t 32 -D "$secs" \
			>"${outs[i]}.srv" 2>&1 &
	done
	# perftest clients do not retry: start them once the servers listen.
	for i in $(seq 1 "$n"); do
		wait_until 20 port_listening r $((18600 + i))
	done
	for i in $(seq 1 "$n"); do
		ip netns exec "s$i" timeout $((secs + 60)) ib_write_bw \
			-d "sroce_s$i" -x "$(gid_index "sroce_s$i" "$(host_ip "s$i")")" \
			-p $((18600 + i)) -F -s 4096 -t 32 -D "$secs" 10.20.0.1 \
			>"${outs[i]}" 2>&1 &
		pids+=($!)
	done
	sleep $((secs / 2 + 1))
	# The senders' QPs half way through: rate and alpha per QP.
	rdma -dd resource show qp 2>/dev/null | grep -o 'link sroce_s[^ ]* lqpn [0-9]*\|drv_cc_[a-z_0-9]* [a-z0-9]*' |
		paste -sd' ' | sed 's/ link /\n#   link /g; s/^/#   /'
	wait
	for i in $(seq 1 "$n"); do
		# the result line: size iterations peak avg(MB/s) msgrate
		gp=$(awk '$1 == 4096 && NF >= 5 { printf "%.1f", $4 * 8 }' \
			"${outs[i]}")
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
	marks=$(red_stat marked)
	drops=$(red_stat dropped)
	cnps=$(($(cnt r np_cnp_sent) - c0))
	handled=$(($(sum_cnt rp_cnp_handled s1 s2 s3 s4) - h0))
	m0=$(($(cnt r np_ecn_marked_roce_packets) - m0))
	echo "# $algo/$flav $n-to-1: goodput Mb/s [${bws# }] sum $sum" \
		"Jain $jain util $util red_marked ${marks:-?} red_dropped ${drops:-?}" \
		"np_ecn_marked $m0 np_cnp_sent $cnps rp_cnp_handled $handled" \
		"timeouts $(($(sum_cnt local_ack_timeout_err s1 s2 s3 s4) - t0))" \
		"seq_naks $(($(sum_cnt packet_seq_err s1 s2 s3 s4) - x0))" \
		"retry_exceeded $(($(sum_cnt req_transport_retries_exceeded s1 s2 s3 s4) - e0))"
	tc -s qdisc show dev r-br | sed 's/^/#   /'
	echo "$algo,$flav,$n,\"${bws# }\",$sum,$jain,$util,${marks:-},${drops:-},$m0,$cnps,$handled" >>"$csv"
	echo "| $algo | $flav | $n | ${bws# } | $sum | $jain | $util | ${marks:-} | ${drops:-} | $m0 | $cnps | $handled |" >>"$md"
}

load_sroce >/dev/null 2>&1 || { echo "bench-cc: cannot load sroce"; exit 1; }
topo_up || { echo "bench-cc: topology failed"; exit 1; }
echo "algo,flavour,senders,goodput_mbps,sum_mbps,jain,utilisation,red_marked,red_dropped,np_ecn_marked,np_cnp_sent,rp_cnp_handled" >"$csv"
{
	echo "# sroce congestion control, incast through a ${rate} Mbit/s RED/ECN bottleneck (${secs} s per run)"
	echo
	echo "| CC | flavour | senders | goodput Mb/s per flow | sum | Jain | util | RED marked | RED dropped | np_ecn_marked | np_cnp_sent | rp_cnp_handled |"
	echo "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
} >"$md"
for n in $fans; do
	for cfg in none/mlx dcqcn/mlx dcqcn/paper; do
		run "${cfg%/*}" "${cfg#*/}" "$n"
	done
done
cat "$md"
