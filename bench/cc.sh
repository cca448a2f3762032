#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/cc.sh - `make bench-cc`: congestion control under incast, in ONE
# guest boot, on the testbed of tests/integration/cc-lib.sh (N senders and
# a receiver in namespaces, a bridge, a 50 Mbit/s htb + RED/ECN bottleneck
# on the port towards the receiver; diagram and reasons there).  Each
# sender runs ib_write_bw (4 KB WRITEs) to the receiver for $SROCE_CC_SECS.
#
# Knobs of the run: SROCE_CC_SECS, SROCE_CC_SIZE (perftest -s, 4096),
# SROCE_CC_TXDEPTH (perftest -t),
# SROCE_CC_TIMEOUT (perftest -u), SROCE_CC_FANS (with --quick),
# SROCE_CC_CFGS ("algo/flavour ..."); of the testbed (cc-lib.sh):
# SROCE_CC_RATE, SROCE_CC_MTU, SROCE_CC_QDISC (red, htb alone, none),
# SROCE_CC_RED_MIN/MAX/PROB/BURST/LIMIT, SROCE_CC_HTB_BURST,
# SROCE_CC_KNOBS ("roce_rp/file=value ..." written last),
# SROCE_CC_DEFAULTS=1 (flavour defaults instead of the testbed's scaling).
#
# Scenarios: CC none, dcqcn/mlx, dcqcn/paper for 1-to-1, 2-to-1 and 4-to-1.
# Printed and saved (bench/results/cc-<stamp>.csv and .md, with the host's
# and the guest's load): per-flow goodput (perftest's iterations, which
# leave out 2 s at either end), Jain's fairness index, utilisation of the
# bottleneck by goodput and by bytes on the wire in a window timed by the
# guest's clock, what each sender put on the wire, RED marks and drops,
# the CNP counters, RC ACK timeouts and `tc -s qdisc`.
#
#   bench/cc.sh [--quick]   (--quick: 2-to-1 only, 8 s per run)

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
top=$(cd "$here/.." && pwd -P)

if [ -z "${SROCE_VM:-}" ]; then
	stamp=$(date -u +%Y%m%d-%H%M%S)
	res=$(mktemp -d /tmp/sroce-bench-cc.XXXXXX)
	SROCE_CC_HOST_LOAD=$(cut -d' ' -f1-3 /proc/loadavg) \
		"$top/tests/vm/vm-run" --timeout "${SROCE_BENCH_TIMEOUT:-3600}" \
		--results "$res" -- "$here/cc.sh" "$@"
	rc=$?
	[ -s "$res/cc.md" ] &&
		echo "host load after the runs: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$res/cc.md"
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
cc_hosts="r s1 s2 s3 s4"
. "$top/tests/integration/cc-lib.sh"

secs=${SROCE_CC_SECS:-10}
txd=${SROCE_CC_TXDEPTH:-32}	# perftest -t: messages in flight per flow
tmo_exp=${SROCE_CC_TIMEOUT:-14}	# perftest -u: ACK timeout 4.096 us * 2^N
fans="1 2 4"
if [ "${1:-}" = --quick ]; then
	fans=${SROCE_CC_FANS:-2}
	secs=${SROCE_CC_SECS:-8}
fi
out=${SROCE_RESULTS:-/tmp}
csv=$out/cc.csv
md=$out/cc.md

# run ALGO FLAVOUR N: one scenario; appends to the CSV and Markdown.
run() {
	local algo=$1 flav=$2 n=$3 i gp bws="" sum jain util
	local m0 c0 h0 t0 x0 e0 b0 b1 w0 w1 wire tmo marks drops cnps handled
	local rx0=() tx txs="" o senders b0_pre
	senders=$(seq -s' ' -f 's%g' 1 "$n")
	cc_bottleneck || { echo "# tc setup failed"; return 1; }
	cc_knobs "$algo" "$flav" || { echo "# knobs failed"; return 1; }
	m0=$(cc_cnt r np_ecn_marked_roce_packets)
	c0=$(cc_cnt r np_cnp_sent)
	h0=$(cc_sum_cnt rp_cnp_handled s1 s2 s3 s4)
	t0=$(cc_sum_cnt local_ack_timeout_err s1 s2 s3 s4)
	x0=$(cc_sum_cnt packet_seq_err s1 s2 s3 s4)
	e0=$(cc_sum_cnt req_transport_retries_exceeded s1 s2 s3 s4)
	o=$(mktemp)
	b0_pre=$(cc_dev_bytes r-br tx)
	cc_perf_start "$n" "$secs" 18600 "$txd" "$tmo_exp" "$o"
	# Bytes through the bottleneck and from each sender over a window
	# inside perftest's measurement window, timed by the guest's clock
	# without starting processes (they take seconds to start on a loaded
	# host): from 2 s after the first MB went through (perftest's 2 s
	# margin; its clients take a while to connect) to 3 s before the end.
	local t_end=$((SECONDS + 60)) ts
	while [ "$(cc_dev_bytes r-br tx)" -lt $((b0_pre + 1000000)) ] &&
		[ $SECONDS -lt $t_end ]; do
		cc_sleep_until $(($(cc_now_us) + 100000))
	done
	ts=$(cc_now_us)
	cc_sleep_until $((ts + 2000000))
	w0=$(cc_now_us)
	b0=$(cc_dev_bytes r-br tx)
	for ((i = 1; i <= n; i++)); do
		rx0[i]=$(cc_dev_bytes "s$i-br" rx)
	done
	cc_sleep_until $((ts + (secs - 3) * 1000000))
	b1=$(cc_dev_bytes r-br tx)
	w1=$(cc_now_us)
	for i in $(seq 1 "$n"); do
		tx=$(awk -v a="${rx0[i]}" -v b="$(cc_dev_bytes "s$i-br" rx)" \
			-v t0="$w0" -v t1="$w1" \
			'BEGIN { printf "%.1f", (b - a) * 8 / (t1 - t0) }')
		txs="$txs $tx"
	done
	wire=$(awk -v a="$b0" -v b="$b1" -v t0="$w0" -v t1="$w1" \
		-v r="$cc_rate" 'BEGIN {
			printf "%.2f", (b - a) * 8 / (t1 - t0) / r }')
	# The senders' QPs (perftest is in its last seconds): rate and alpha.
	rdma -dd resource show qp 2>/dev/null |
		grep -o 'link sroce_s[^ ]* lqpn [0-9]*\|drv_cc_[a-z_0-9]* [a-z0-9]*' |
		paste -sd' ' | sed 's/ link /\n#   link /g; s/^/#   /'
	wait "${cc_perf_pids[@]}"
	wait
	for i in $(seq 1 "$n"); do
		gp=$(cc_goodput "$o.$i" "$secs")
		if [ -z "$gp" ] || [ "$gp" = 0.0 ]; then
			gp=${gp:-0}
			echo "#   flow $i:"
			sed 's/^/#   /' "$o.$i" | tail -n 4
		fi
		bws="$bws $gp"
		rm -f "$o.$i" "$o.$i.srv"
	done
	rm -f "$o"
	bws=${bws# }
	txs=${txs# }
	sum=$(tr ' ' '\n' <<<"$bws" | awk 'NF { s += $1 } END { printf "%.1f", s }')
	jain=$(cc_jain "$bws")
	util=$(awk -v s="$sum" -v r="$cc_rate" 'BEGIN { printf "%.2f", s / r }')
	tmo=$(($(cc_sum_cnt local_ack_timeout_err s1 s2 s3 s4) - t0))
	marks=$(cc_red_stat marked)
	drops=$(cc_red_stat dropped)
	cnps=$(($(cc_cnt r np_cnp_sent) - c0))
	handled=$(($(cc_sum_cnt rp_cnp_handled s1 s2 s3 s4) - h0))
	m0=$(($(cc_cnt r np_ecn_marked_roce_packets) - m0))
	echo "# $algo/$flav $n-to-1 ($senders): goodput Mb/s [$bws] sum $sum" \
		"Jain $jain util $util wire_util $wire sent Mb/s [$txs]" \
		"red_marked ${marks:-?} red_dropped ${drops:-?}" \
		"np_ecn_marked $m0 np_cnp_sent $cnps rp_cnp_handled $handled" \
		"timeouts $tmo" \
		"seq_naks $(($(cc_sum_cnt packet_seq_err s1 s2 s3 s4) - x0))" \
		"retry_exceeded $(($(cc_sum_cnt req_transport_retries_exceeded s1 s2 s3 s4) - e0))"
	tc -s qdisc show dev r-br | sed 's/^/#   /'
	echo "$algo,$flav,$n,\"$bws\",$sum,$jain,$util,$wire,\"$txs\",${marks:-},${drops:-},$m0,$cnps,$handled,$tmo" >>"$csv"
	echo "| $algo | $flav | $n | $bws | $sum | $jain | $util | $wire | $txs | ${marks:-} | ${drops:-} | $m0 | $cnps | $handled | $tmo |" >>"$md"
}

# SROCE_CC_LIB=1: only define the functions (for ad-hoc experiments).
[ "${SROCE_CC_LIB:-0}" = 1 ] && return 0

load_sroce >/dev/null 2>&1 || { echo "bench-cc: cannot load sroce"; exit 1; }
cc_topo_up || { echo "bench-cc: topology failed"; exit 1; }
echo "algo,flavour,senders,goodput_mbps,sum_mbps,jain,utilisation,wire_utilisation,sent_mbps,red_marked,red_dropped,np_ecn_marked,np_cnp_sent,rp_cnp_handled,ack_timeouts" >"$csv"
{
	echo "# sroce congestion control, incast through a ${cc_rate} Mbit/s RED/ECN bottleneck (${secs} s per run)"
	echo
	echo "$(date -u '+%F %H:%M') UTC; host load ${SROCE_CC_HOST_LOAD:-?};" \
		"guest load $(cut -d" " -f1-3 /proc/loadavg); MTU $cc_mtu;" \
		"qdisc $cc_qdisc, htb burst $cc_htb_burst, RED min $cc_red_min" \
		"max $cc_red_max p $cc_red_prob burst $cc_red_burst limit $cc_red_limit;" \
		"ib_write_bw $cc_size B x $txd in flight, -u $tmo_exp;" \
		"knobs: ${SROCE_CC_DEFAULTS:+flavour defaults }testbed (cc-lib.sh)${SROCE_CC_KNOBS:+ + $SROCE_CC_KNOBS}"
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
