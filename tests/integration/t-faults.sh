#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-faults.sh - RC transfers over a lossy, reordering, duplicating and
# corrupting wire.  tc netem on the veth ends perturbs the RoCE v2 traffic
# between sroce1 and sroce2; ibv_rc_pingpong --chk must still move every
# byte intact (go-back-N on sequence NAKs and on the retransmit timer,
# duplicate detection on the responder, ICRC check on receive).  Under loss
# the retransmission counters must move; under corruption the receiving
# device must count ICRC failures (rx_icrc_encapsulated).
#
# RDMA READ is exercised under loss with ib_read_bw (completions only).
#
# Topology: make_two_ns (see lib.sh), with netem as the root qdisc of v1
# (and of v2 where both directions are perturbed):
#
#   ns1: sroce1 on v1 (10.11.0.1) ==[netem]==veth==[netem]== v2 (10.11.0.2) sroce2 :ns2
#        ibv_rc_pingpong client                              ibv_rc_pingpong server

here=$(dirname "${BASH_SOURCE[0]}")
. "$here/lib.sh"
. "$here/dp-lib.sh"

# per pair; times $slow on the debug kernel, where a 1 % loss run of 200
# x 64 KiB (READ or pingpong) took more than 90 s beside other guests
FT_TMO=${FT_TIMEOUT:-$((90 * slow))}
SIZE=65536
ITERS=50

ktap_begin 14 "RC transfers under netem loss, reordering, duplication and corruption"
two_ns_start
port=18700

# Sum of counter NAME over both devices.
cnt2() {
	echo $(($(hw_counter sroce1 "$1") + $(hw_counter sroce2 "$1")))
}

# netem NS DEV ARGS...: make netem DEV's root qdisc (replacing any).
netem() {
	local ns=$1 dev=$2
	shift 2
	ip netns exec "$ns" tc qdisc replace dev "$dev" root netem "$@"
}

netem_clear() {
	ip netns exec ns1 tc qdisc del dev v1 root >/dev/null 2>&1
	ip netns exec ns2 tc qdisc del dev v2 root >/dev/null 2>&1
	return 0
}

# rc_chk NAME: ibv_rc_pingpong -s SIZE -n ITERS --chk between sroce1 (client,
# ns1) and sroce2 (server, ns2) under the netem set up by the caller.
# ibv_rc_pingpong has no linger: when the ACK of the client's last SEND is
# lost, the server has already seen everything and exits, and the client's
# retransmissions find no QP (retry exceeded).  That race of the tool, and
# only that (server done, client's last send failing), gets one rerun.
rc_chk() {
	local name=$1 try
	for try in 1 2; do
		port=$((port + 1))
		if PAIR_PORT=$port run_pair "$FT_TMO" \
			ns2 "ibv_rc_pingpong -d sroce2 -g $g2 -p $port -s $SIZE -n $ITERS -c" \
			ns1 "ibv_rc_pingpong -d sroce1 -g $g1 -p $port -s $SIZE -n $ITERS -c 10.11.0.2"; then
			diag "$name: $(grep -h 'iters in' <<<"$pair_cout")"
			ktap_pass "$name"
			return 0
		fi
		grep -q "$ITERS iters in" <<<"$pair_out" &&
			grep -q 'retry counter exceeded.*wr_id 2' <<<"$pair_out" ||
			break
		diag "$name: server done, client's last SEND unacknowledged: rerun"
	done
	ktap_fail "$name" "$(tail -n 20 <<<"$pair_out")" \
		"$(ip netns exec ns1 tc -s qdisc show dev v1)" \
		"$(ip netns exec ns2 tc -s qdisc show dev v2)"
	return 1
}

# counters_moved NAME BEFORE AFTER WHAT: pass if AFTER > BEFORE.
counters_moved() {
	diag "$4: $2 -> $3"
	[ "$3" -gt "$2" ]
	ktap_result "$1" $? "$4 did not increase ($2 -> $3)"
}

# retrans: req_retransmits + packet_seq_err + local_ack_timeout_err of
# both devices (each side of a pingpong is a requester).
retrans() {
	echo $(($(cnt2 req_retransmits) + $(cnt2 packet_seq_err) + \
		$(cnt2 local_ack_timeout_err)))
}

# 1 % loss in both directions: requests and ACKs/NAKs go missing.
if ktap_check "netem loss 1% on v1 and v2" sh -c \
	"ip netns exec ns1 tc qdisc replace dev v1 root netem loss 1% &&
	 ip netns exec ns2 tc qdisc replace dev v2 root netem loss 1%"; then
	r0=$(retrans)
	# Four times the iterations: requests leave in batches (tx_batch),
	# 16 packets to one skb, so 50 iterations give netem only ~850
	# skbs to drop one in a hundred of.
	ITERS=$((ITERS * 4)) rc_chk \
		"loss 1%: ibv_rc_pingpong -s $SIZE -n $((ITERS * 4)) --chk"
	counters_moved "loss 1%: retransmission counters moved" "$r0" \
		"$(retrans)" "req_retransmits+packet_seq_err+local_ack_timeout_err"
else
	ktap_skip "loss 1%: ibv_rc_pingpong" "no netem"
	ktap_skip "loss 1%: retransmission counters moved" "no netem"
fi
netem_clear

# RDMA READ under 1 % loss both ways: lost requests end in the retransmit
# timer, lost READ responses in a sequence NAK or an implied NAK on the
# requester.  perftest does not check content: completion without error
# and a clean exit are what is checked here.
# The QPs' retransmit timeout is perftest's 67 ms, or check-debug.sh's
# SROCE_DP_QP_TIMEOUT on the debug kernel (as dp_test's): 7 retries of
# 67 ms with their backoff last under 2 s, less than a debug guest's
# vCPU may stall, and this case is about recovery from loss, not stalls.
netem ns1 v1 loss 1%
netem ns2 v2 loss 1%
r0=$(retrans)
port=$((port + 1))
rd="ib_read_bw -u ${SROCE_DP_QP_TIMEOUT:-14} -p $port -F -s $SIZE -n 200"
PAIR_PORT=$port run_pair "$FT_TMO" \
	ns2 "$rd -d sroce2 -x $g2" \
	ns1 "$rd -d sroce1 -x $g1 10.11.0.2"
ok=$?
diag "ib_read_bw: $(perf_row "$pair_cout")" \
	"ib_read_bw: retransmission counters $r0 -> $(retrans)"
# On a failure both devices' counters, the server's end, and the
# client's last, where a report that keeps only the end of a long output
# still shows why the client stopped.
ktap_result "loss 1%: ib_read_bw -s $SIZE -n 200" $ok \
	"$(counters_set sroce1)" "$(counters_set sroce2)" \
	"$(sed -n '/^--- server/,$p' <<<"$pair_out" | tail -n 30)" \
	"$(sed -n '/^--- server/q;p' <<<"$pair_out" | tail -n 40)"
netem_clear

# 10 % loss of what sroce1 sends.
r0=$(($(hw_counter sroce1 req_retransmits) + $(hw_counter sroce1 packet_seq_err) + \
	$(hw_counter sroce1 local_ack_timeout_err)))
netem ns1 v1 loss 10%
rc_chk "loss 10%: ibv_rc_pingpong -s $SIZE -n $ITERS --chk"
counters_moved "loss 10%: sroce1 retransmission counters moved" "$r0" \
	"$(($(hw_counter sroce1 req_retransmits) + $(hw_counter sroce1 packet_seq_err) + \
		$(hw_counter sroce1 local_ack_timeout_err)))" \
	"sroce1 req_retransmits+packet_seq_err+local_ack_timeout_err"
netem_clear

# Reordering: 25 % of the packets (correlation 50 %) overtake the others,
# which wait 1 ms; in both directions.
netem ns1 v1 delay 1ms reorder 25% 50%
netem ns2 v2 delay 1ms reorder 25% 50%
o0=$(cnt2 out_of_sequence)
rc_chk "reorder 25%: ibv_rc_pingpong -s $SIZE -n $ITERS --chk"
diag "reorder: out_of_sequence $o0 -> $(cnt2 out_of_sequence)"
netem_clear

# Duplication in both directions: duplicate requests and responses.
netem ns1 v1 duplicate 5%
netem ns2 v2 duplicate 5%
d0=$(($(cnt2 duplicate_request) + $(cnt2 comp_duplicate_response)))
rc_chk "duplicate 5%: ibv_rc_pingpong -s $SIZE -n $ITERS --chk"
counters_moved "duplicate 5%: duplicates counted" "$d0" \
	"$(($(cnt2 duplicate_request) + $(cnt2 comp_duplicate_response)))" \
	"duplicate_request+comp_duplicate_response"
netem_clear

# Bit corruption of what sroce1 sends: UDP checksum 0 (Annex A17) lets
# the damaged datagrams through to sroce2, whose ICRC check must drop them.
# Batches (tx_batch) carry a UDP checksum, which the receiving UDP stack
# checks first, so they are off here: this is the ICRC's test.
echo off >/sys/class/infiniband/sroce1/tx_batch
i0=$(hw_counter sroce2 rx_icrc_encapsulated)
netem ns1 v1 corrupt 1%
rc_chk "corrupt 1%: ibv_rc_pingpong -s $SIZE -n $ITERS --chk"
counters_moved "corrupt 1%: sroce2 rx_icrc_encapsulated increased" "$i0" \
	"$(hw_counter sroce2 rx_icrc_encapsulated)" "sroce2 rx_icrc_encapsulated"
netem_clear
echo auto >/sys/class/infiniband/sroce1/tx_batch

# The wire is clean again: a last transfer must go through untouched.
rc_chk "after faults: ibv_rc_pingpong -s $SIZE -n $ITERS --chk"

ktap_done
