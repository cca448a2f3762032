#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-datapath.sh - the data-path test program (tests/datapath/dp_test) between
# two sroce devices: every opcode (SEND, SEND_WITH_IMM, inline SEND,
# RDMA_WRITE, WRITE_WITH_IMM, RDMA_READ, CMP_SWAP, FETCH_ADD, UD SEND), random
# sizes (0 .. 4 MiB) and random SGE lists, byte-exact content and every
# completion checked, plus the provider's user-space validation, unsignalled
# completions, the completion channel and a remote access error; then the
# error semantics, each on a fresh QP pair (tests/datapath/dp_err.c): RNR
# retry (infinite, exhausted), transport retry exhaustion against a silent
# responder, remote access violations (rkey, MR bounds, MR access rights,
# misaligned atomic) with the responder's QP state, its flushed receive and
# the memory around the MR checked, local protection / length errors, and
# an unsignaled tail, alone, across SQD -> RTS and before a BIND_MW (ACK
# coalescing: the tail timer, counter req_tail_probes, gets its SQ slots
# back and the bind done; the IPv6 run has coalescing off on the client).
# dp_test's own KTAP results are relayed one by one; the run is repeated
# over IPv6, and once more over IPv4 with the client posting every send
# through the extended API (ibv_create_qp_ex + ibv_wr_*, dp_test -X) plus
# that API's own checks (batch all-or-nothing, wr_abort, invalid setters,
# inline lengths that wrap size_t).
#
# Topology: make_two_ns (see lib.sh):
#
#   ns1: sroce1 on v1 (10.11.0.1, fd00::1) ==veth== v2 (10.11.0.2, fd00::2) sroce2 :ns2
#        dp_test client                                 dp_test server

here=$(dirname "${BASH_SOURCE[0]}")
. "$here/lib.sh"
. "$here/dp-lib.sh"

N4=${DP_ITERS:-3}	# rounds of every opcode over IPv4 (max 4 MiB)
N6=${DP_ITERS6:-2}	# rounds over IPv6 (max 256 KiB)
NX=${DP_ITERSX:-2}	# rounds through ibv_wr_* over IPv4 (max 1 MiB)

dp=$(dp_binary)
if [ -z "$dp" ]; then
	ktap_begin 1 "dp_test between two sroce devices"
	ktap_fail "dp_test built (make -C tests/datapath)"
	ktap_done
fi
p4=$("$dp" -P -n "$N4")
p6=$("$dp" -P -n "$N6")
px=$("$dp" -P -X -n "$NX")
ktap_begin $((3 + p4 + 1 + 1 + p6 + 1 + 1 + px + 1 + 1)) \
	"dp_test between two sroce devices"

ktap_pass "dp_test built ($dp)"
two_ns_start

# run_dp FAMILY PLAN PORT SERVER_ADDR ADDR1 ADDR2 ARGS...
run_dp() {
	local fam=$1 plan=$2 port=$3 saddr=$4 a1=$5 a2=$6 g1 g2 seed
	shift 6
	if ! wait_gid sroce1 "$a1" || ! wait_gid sroce2 "$a2"; then
		ktap_fail "$fam: GIDs of $a1 and $a2" "$(list_gids sroce1)"
		while [ "$plan" -gt 0 ]; do
			ktap_skip "$fam: dp_test case" "no GID"
			plan=$((plan - 1))
		done
		return
	fi
	g1=$(gid_index sroce1 "$a1")
	g2=$(gid_index sroce2 "$a2")
	seed=${DP_SEED:-$RANDOM$RANDOM}
	diag "$fam: sroce1 gid $g1 -> sroce2 gid $g2, seed $seed"
	PAIR_PORT=$port run_pair "$DP_TIMEOUT" \
		ns2 "$dp -d sroce2 -g $g2 -p $port" \
		ns1 "$dp -d sroce1 -g $g1 -p $port -c $saddr -S $seed $*"
	local ok=$?
	relay_ktap "$fam: " <<<"$pair_cout"
	# Cases the client never reached count as failures.
	while [ "$relayed" -lt "$plan" ]; do
		ktap_fail "$fam: dp_test case not run" \
			"$(tail -n 20 <<<"$pair_out")"
		relayed=$((relayed + 1))
	done
	ktap_result "$fam: client and server exit 0" $ok \
		"$(grep -v '^ok ' <<<"$pair_out" | tail -n 30)"
}

probes0=$(hw_counter sroce1 req_tail_probes)
run_dp IPv4 "$p4" 18515 10.11.0.2 10.11.0.1 10.11.0.2 -n "$N4"
probes1=$(hw_counter sroce1 req_tail_probes)
[ "$probes1" -gt "$probes0" ]
ktap_result "IPv4: the unsignaled tail was asked for by the tail timer" $? \
	"req_tail_probes $probes0 -> $probes1"
# The IPv6 run with ACK coalescing off on the client: every message asks.
echo 0 >/sys/class/infiniband/sroce1/ack_coalesce
run_dp IPv6 "$p6" 18516 fd00::2 fd00::1 fd00::2 -n "$N6" -m 262144
echo 1 >/sys/class/infiniband/sroce1/ack_coalesce
probes2=$(hw_counter sroce1 req_tail_probes)
[ "$probes2" -eq "$probes1" ]
ktap_result "IPv6, ack_coalesce 0: no tail to ask for" $? \
	"req_tail_probes $probes1 -> $probes2"
run_dp "IPv4 ibv_wr" "$px" 18517 10.11.0.2 10.11.0.1 10.11.0.2 -n "$NX" \
	-m 1048576 -X

# An unsignaled WRITE behind a READ whose responses the client receives
# slowly (rx_delay_us: each steered packet waits 2 ms): the tail timer
# waits for the READ's last response before it asks, so the server sees
# the WRITE again (the probe) but not the READ (dp_err case 20).
g1=$(gid_index sroce1 10.11.0.1)
g2=$(gid_index sroce2 10.11.0.2)
dup0=$(hw_counter sroce2 duplicate_request)
echo 2000 >/sys/class/infiniband/sroce1/rx_delay_us
PAIR_PORT=18519 run_pair "$DP_TIMEOUT" ns2 "$dp -d sroce2 -g $g2 -p 18519" \
	ns1 "$dp -d sroce1 -g $g1 -p 18519 -c 10.11.0.2 -e 20"
ok=$?
echo 0 >/sys/class/infiniband/sroce1/rx_delay_us
dup1=$(hw_counter sroce2 duplicate_request)
diag "READ + unsignaled WRITE: $(grep -h '^ok\|^not ok' <<<"$pair_cout")"
[ $ok -eq 0 ] && grep -q '^ok 1 ' <<<"$pair_cout" && [ $((dup1 - dup0)) -le 1 ]
ktap_result "unsignaled WRITE behind a slow READ: only the WRITE is asked for again" \
	$? "duplicate_request $dup0 -> $dup1" "$(tail -n 20 <<<"$pair_out")"

ktap_done
