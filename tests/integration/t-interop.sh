#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-interop.sh - sroce talks to rdma_rxe on the wire: ibv_rc_pingpong and
# ibv_ud_pingpong in both directions (rxe server / sroce client and the
# reverse), content checked with --chk, ib_write_bw both ways and one
# ib_send_lat run whose figures are logged, and an unsignaled WRITE tail of
# sroce's with rdma_rxe as the responder (ACK coalescing's tail timer).
#
# Topology: make_init_veth (see lib.sh).  rdma_rxe works only in init_net
# and owns UDP 4791 there, so sroce sits on the other veth end in ns3 and no
# sroce device lives in init_net.  rdma_rxe is unloaded again on exit.
#
#   +---------- init_net ----------+      +------------ ns3 ------------+
#   |  rxe0 (rdma_rxe)             |      |            (sroce) sroce3   |
#   |    i1  10.12.0.1/24          | veth |          10.12.0.2/24  i2   |
#   +------------------------------+      +-----------------------------+

here=$(dirname "${BASH_SOURCE[0]}")
. "$here/lib.sh"
. "$here/dp-lib.sh"

PP_TMO=${PP_TIMEOUT:-90}

ktap_begin 18 "sroce <-> rdma_rxe interoperability"

rxe_pair_setup
diag "rxe0 gid $grxe (init_net), sroce3 gid $gsro (ns3)"
port=18700

# pp NAME TOOL SRV(rxe|sroce) SIZE ITERS [EXTRA...]
pp() {
	local name=$1 tool=$2 srv=$3 size=$4 iters=$5 ok
	shift 5
	port=$((port + 1))
	local rxe="-d rxe0 -g $grxe -p $port -s $size -n $iters $*"
	local sro="-d sroce3 -g $gsro -p $port -s $size -n $iters $*"
	if [ "$srv" = rxe ]; then
		PAIR_PORT=$port run_pair "$PP_TMO" - "$tool $rxe" \
			ns3 "$tool $sro 10.12.0.1"
	else
		PAIR_PORT=$port run_pair "$PP_TMO" ns3 "$tool $sro" \
			- "$tool $rxe 10.12.0.2"
	fi
	ok=$?
	if [ $ok -eq 0 ]; then
		diag "$name: $(grep -h 'iters in' <<<"$pair_cout")"
		ktap_pass "$name"
	else
		ktap_fail "$name" "$(tail -n 20 <<<"$pair_out")"
	fi
}

pp "RC 4096 B: rxe server, sroce client" ibv_rc_pingpong rxe 4096 100 -c
pp "RC 4096 B: sroce server, rxe client" ibv_rc_pingpong sroce 4096 100 -c
batches() {
	cat /sys/class/infiniband/sroce3/ports/1/hw_counters/tx_batches
}
# 6.1's rdma_rxe reads one pointer past its MR's page map when a copy
# ends exactly at the end of a full map (256 pages: a page-aligned 1 MiB
# buffer), which KASAN reports (rxe_mr_copy, seen as the responder of the
# case below on the debug kernel; rxe against rxe does the same).  There
# the messages are one page short of 1 MiB; still many GSO batches.
big=1048576
debug_kernel && big=$((1048576 - 4096))
b0=$(batches)
pp "RC 1 MiB: rxe server, sroce client" ibv_rc_pingpong rxe $big 5 -c
# The 1 MiB messages left sroce in UDP GSO batches (tx_batch, auto on a
# veth) and rdma_rxe verified every packet's ICRC: the pingpong passing
# (--chk) with batches counted is the proof that the ICRCs predicted for
# the segmented packets are right.
b1=$(batches)
if [ "$(cat /sys/class/infiniband/sroce3/tx_batch)" = "auto (active)" ] &&
	[ "$b1" -gt "$b0" ]; then
	ktap_pass "sroce sent the 1 MiB messages in batches ($((b1 - b0)))"
else
	ktap_fail "sroce sent the 1 MiB messages in batches" \
		"tx_batch $(cat /sys/class/infiniband/sroce3/tx_batch)" \
		"tx_batches $b0 -> $b1"
fi
pp "RC 1 MiB: sroce server, rxe client" ibv_rc_pingpong sroce $big 5 -c
pp "UD 512 B: rxe server, sroce client" ibv_ud_pingpong rxe 512 100 -c
pp "UD 512 B: sroce server, rxe client" ibv_ud_pingpong sroce 512 100 -c
pp "UC 4096 B: rxe server, sroce client" ibv_uc_pingpong rxe 4096 100 -c

# perf NAME TOOL SRV(rxe|sroce) ARGS CTR NEED: rerun once on all-zero
# (perf_pair), then passed if sroce3's counter CTR shows both runs' NEED
# (perf_counted: perftest's figures under TCG can be all zero).
perf() {
	local name=$1 tool=$2 srv=$3 args=$4 ctr=$5 need=$6 ok
	local sro="$tool -d sroce3 -x $gsro -F $args -p @PORT@"
	local rxe="$tool -d rxe0 -x $grxe -F $args -p @PORT@"
	if [ "$srv" = sroce ]; then
		PAIR_TAIL=12 perf_counted sroce3 "$ctr" "$need" "$PP_TMO" \
			ns3 "$sro" - "$rxe 10.12.0.2"
	else
		PAIR_TAIL=12 perf_counted sroce3 "$ctr" "$need" "$PP_TMO" \
			- "$rxe" ns3 "$sro 10.12.0.1"
	fi
	ok=$?
	if [ $ok -eq 0 ]; then
		diag "$name: $perf_note"
		ktap_pass "$name"
	else
		ktap_fail "$name" "$pair_out" "$(counters_set sroce3)"
	fi
}

perf "ib_write_bw 64 KiB, rxe client -> sroce server" ib_write_bw sroce \
	"-s 65536 -n 100" rcvd_bytes $((65536 * 100))
perf "ib_send_lat 2 B, rxe client <-> sroce server" ib_send_lat sroce \
	"-s 2 -n 200" sent_pkts 200
# sroce's requester coalesces ACKs (ack_coalesce): its unsignaled WRITEs ask
# for none, and rdma_rxe's responder ACKs only what is asked for.
perf "ib_write_bw 64 B, sroce client -> rxe server" ib_write_bw rxe \
	"-s 64 -n 5000" sent_bytes $((64 * 5000))

# ... and an unsignaled tail with nothing after it is asked for by sroce's
# tail timer (dp_test error case 18, dp_err.c), rxe0 as the responder.
dp=$(dp_binary)
t0=$(hw_counter sroce3 req_tail_probes)
port=$((port + 1))
PAIR_PORT=$port run_pair "$PP_TMO" - "$dp -d rxe0 -g $grxe -p $port" \
	ns3 "$dp -d sroce3 -g $gsro -p $port -c 10.12.0.1 -e 18"
ok=$?
t1=$(hw_counter sroce3 req_tail_probes)
diag "tail case: $(grep -h '^ok\|^not ok' <<<"$pair_cout")"
[ $ok -eq 0 ] && grep -q '^ok 1 unsignaled WRITE tail' <<<"$pair_cout" &&
	[ "$t1" -gt "$t0" ]
ktap_result "unsignaled WRITE tail, rxe responder: asked for, SQ slots back" \
	$? "req_tail_probes $t0 -> $t1" "$(tail -n 20 <<<"$pair_out")"

ktap_done
