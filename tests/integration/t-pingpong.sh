#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-pingpong.sh - stock clients over the sroce data path: ibv_rc_pingpong,
# ibv_uc_pingpong (1 B .. 1 MiB, content checked with --chk, RC also with
# completion events), ibv_ud_pingpong (up to the path MTU), ibv_srq_pingpong
# (RC QPs receiving through one shared receive queue), and perftest
# smoke runs (ib_write_bw, ib_send_bw, ib_read_bw, ib_write_lat,
# ib_send_lat) with small iteration counts.  Every run has a timeout; the
# throughput/latency figures are logged as diagnostics.
#
# Topology: make_two_ns (see lib.sh):
#
#   ns1: sroce1 on v1 (10.11.0.1) ==veth== v2 (10.11.0.2) sroce2 :ns2
#        clients                                   servers

here=$(dirname "${BASH_SOURCE[0]}")
. "$here/lib.sh"
. "$here/dp-lib.sh"

PP_TMO=${PP_TIMEOUT:-90}
# size:iterations
RC_RUNS="1:200 4096:200 65536:50 1048576:5"
UC_RUNS="1:200 4096:200 65536:50 1048576:5"
UD_SIZES="1 512 1024"
PERF="ib_write_bw ib_send_bw ib_read_bw ib_write_lat ib_send_lat"

ktap_begin 21 "ibv_*_pingpong and perftest between two sroce devices"

two_ns_start
port=18600

# pingpong NAME TOOL SIZE ITERS [EXTRA...]
pingpong() {
	local name=$1 tool=$2 size=$3 iters=$4 ok
	shift 4
	port=$((port + 1))
	PAIR_PORT=$port run_pair "$PP_TMO" \
		ns2 "$tool -d sroce2 -g $g2 -p $port -s $size -n $iters $*" \
		ns1 "$tool -d sroce1 -g $g1 -p $port -s $size -n $iters $* 10.11.0.2"
	ok=$?
	if [ $ok -eq 0 ]; then
		diag "$name: $(grep -h 'iters in' <<<"$pair_cout")"
		ktap_pass "$name"
	else
		ktap_fail "$name" "$(tail -n 20 <<<"$pair_out")"
	fi
}

for r in $RC_RUNS; do
	pingpong "ibv_rc_pingpong -s ${r%%:*} --chk" ibv_rc_pingpong \
		"${r%%:*}" "${r##*:}" -c
done
pingpong "ibv_rc_pingpong -s 4096 --chk --events" ibv_rc_pingpong 4096 100 \
	-c -e
for r in $UC_RUNS; do
	pingpong "ibv_uc_pingpong -s ${r%%:*} --chk" ibv_uc_pingpong \
		"${r%%:*}" "${r##*:}" -c
done
for s in $UD_SIZES; do
	pingpong "ibv_ud_pingpong -s $s --chk" ibv_ud_pingpong "$s" 200 -c
done
# 16 QPs on one SRQ of 500 receives (ibv_srq_pingpong's defaults), then 4
# QPs with an SRQ small enough to run dry and exercise RNR.
pingpong "ibv_srq_pingpong -q 16 -s 4096 --chk" ibv_srq_pingpong 4096 20 \
	-c -q 16
pingpong "ibv_srq_pingpong -q 4 -r 8 -s 65536 --chk" ibv_srq_pingpong \
	65536 20 -c -q 4 -r 8

# perftest TOOL: one smoke run (perf_pair: rerun once when TCG clock
# calibration makes it print all-zero results).  When both runs print
# only zeros (ib_read_bw, under load on the debug kernel: every READ
# completed, no retransmission), the client's device counters must show
# both whole transfers instead: the data bytes of -n messages of -s bytes
# (bw) or a packet per iteration (lat), twice.
perftest() {
	local tool=$1 args ctr need
	case $tool in
	*_lat)
		args="-s 2 -n 200"
		ctr=sent_pkts need=200
		;;
	ib_read_bw)
		args="-s 65536 -n 100"
		ctr=rcvd_bytes need=$((65536 * 100))
		;;
	*)
		args="-s 65536 -n 100"
		ctr=sent_bytes need=$((65536 * 100))
		;;
	esac
	# Both sides' last lines on failure (the client's say why).
	if PAIR_TAIL=12 perf_counted sroce1 $ctr $need "$PP_TMO" \
		ns2 "$tool -d sroce2 -x $g2 -p @PORT@ -F $args" \
		ns1 "$tool -d sroce1 -x $g1 -p @PORT@ -F $args 10.11.0.2"; then
		diag "$tool $args: $perf_note"
		ktap_pass "$tool $args"
	else
		ktap_fail "$tool $args" "$pair_out" \
			"$(counters_set sroce1)" "$(counters_set sroce2)"
	fi
}

for t in $PERF; do
	perftest "$t"
done

ktap_done
