#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-txq.sh - RC over a sender whose own transmit queue is full.  A qdisc on
# the sender's netdev (here htb at 50 Mbit/s with a byte-limited fifo or a
# RED/ECN queue, as an operator's shaper would be) refuses what does not
# fit (NET_XMIT_DROP).  Such a packet never left the host: the requester
# takes it back and sends it again after a hold (req_tx_held) instead of
# paying for it with a sequence NAK or a retransmit timeout, and no QP may
# run out of retries.  With one skb in ten refused (a tc filter) no gap
# may reach the responder.  A queue that refuses every RoCE packet (a tc
# drop filter) must still end in IB_WC_RETRY_EXC_ERR, as a dead link does,
# within the retransmit timeout's bounds: the hold must not hide it.
#
# Topology: make_two_ns (see lib.sh), the qdiscs on v1's egress:
#
#   ns1: sroce1 on v1 ==[htb 50 Mbit/s + bfifo | RED]==veth== v2 sroce2 :ns2
#        clients                                              servers

here=$(dirname "${BASH_SOURCE[0]}")
. "$here/lib.sh"
. "$here/dp-lib.sh"

TMO=$((120 * slow))
# The leaf queues' byte limits.  The debug kernel sends far below
# 50 Mbit/s (7 WRITEs of 64 KiB in 8 s beside other guests) and never
# fills a queue by rate; there the limits are below a batch's size (16
# packets, about 17.5 KB at IB MTU 1024), so every batch is refused and
# the packets that follow a refusal go one at a time (req_pkt.c).
if debug_kernel; then
	FIFO=12000 RED="limit 12000 min 3000 max 9000 avpkt 1000 burst 5"
else
	FIFO=200000 RED="limit 400000 min 30000 max 90000 avpkt 4200 burst 20"
fi

ktap_begin 18 "RC with the sender's own transmit queue full"
two_ns_start
port=18950

# qdisc_on CHILD...: htb as v1's root; RoCE (UDP 4791) goes to a class at
# 50 Mbit/s with CHILD as its leaf qdisc, the rest (the tools' TCP
# exchange of QP numbers and results, which a full queue made fail) to an
# unshaped one.
qdisc_on() {
	local t=(ip netns exec ns1 tc)
	"${t[@]}" qdisc del dev v1 root >/dev/null 2>&1
	"${t[@]}" qdisc add dev v1 root handle 1: htb default 20 &&
		"${t[@]}" class add dev v1 parent 1: classid 1:20 htb rate 10gbit &&
		"${t[@]}" class add dev v1 parent 1: classid 1:10 \
			htb rate 50mbit ceil 50mbit &&
		"${t[@]}" qdisc add dev v1 parent 1:10 handle 10: "$@" &&
		"${t[@]}" filter add dev v1 parent 1: protocol ip prio 1 flower \
			ip_proto udp dst_port 4791 classid 1:10
}

qdisc_off() {
	ip netns exec ns1 tc qdisc del dev v1 root >/dev/null 2>&1
	ip netns exec ns1 tc qdisc del dev v1 clsact >/dev/null 2>&1
	return 0
}

# the leaf's "dropped N" (what it refused)
leaf_drops() {
	ip netns exec ns1 tc -s qdisc show dev v1 |
		awk '/qdisc (bfifo|red) 10:/ { l = 1 }
			l && /dropped/ { sub(",", "", $7); print $7; exit }'
}

declare -A base
snap() {
	local c
	for c in req_tx_held tx_drop req_transport_retries_exceeded \
		local_ack_timeout_err packet_seq_err; do
		base[$c]=$(hw_counter sroce1 $c)
	done
}
delta() {
	echo $(($(hw_counter sroce1 "$1") - ${base[$1]}))
}

# refusals NAME: the leaf refused packets, and sroce1 took them back.
refusals() {
	local held drops tx
	held=$(delta req_tx_held) tx=$(delta tx_drop) drops=$(leaf_drops)
	diag "$1: leaf dropped ${drops:-?}, sroce1 tx_drop +$tx, req_tx_held +$held," \
		"local_ack_timeout_err +$(delta local_ack_timeout_err)"
	ktap_result "$1: the queue refused packets and sroce1 held them" \
		"$([ "${drops:-0}" -gt 0 ] && [ "$held" -gt 0 ]; echo $?)" \
		"leaf dropped ${drops:-none}, req_tx_held +$held, tx_drop +$tx"
	ktap_result "$1: no QP ran out of retries" \
		"$([ "$(delta req_transport_retries_exceeded)" = 0 ]; echo $?)" \
		"req_transport_retries_exceeded +$(delta req_transport_retries_exceeded)"
}

# xfer NAME TOOL GIDOPT ARGS: TOOL between sroce2 (server, ns2) and sroce1
# (client, ns1) with ARGS, GIDOPT the tool's GID index option; one result.
xfer() {
	local name=$1 tool=$2 gid=$3 args=$4 st
	port=$((port + 1))
	PAIR_PORT=$port run_pair "$TMO" \
		ns2 "$tool -d sroce2 $gid $g2 -p $port $args" \
		ns1 "$tool -d sroce1 $gid $g1 -p $port $args 10.11.0.2"
	st=$?
	[ $st = 0 ] && [ "$gid" = -x ] && diag "$name: $(perf_row "$pair_cout")"
	ktap_result "$name: $tool $args" $st "$(tail -n 20 <<<"$pair_out")"
}

# writebw NAME: two QPs of 64 KiB WRITEs for 8 s: both must live to the end.
writebw() {
	xfer "$1" ib_write_bw -x "-F -q 2 -s 65536 -D 8"
}

# 1. A byte-limited fifo of 200 KB behind the shaper.
snap
if ktap_check "htb 50 Mbit/s + bfifo limit $FIFO on v1" qdisc_on bfifo limit $FIFO
then
	# each message is five times the fifo: every burst overfills it
	xfer "bfifo" ibv_rc_pingpong -g "-s 1048576 -n 20 -c"
	writebw "bfifo"
	refusals "bfifo"
else
	ktap_skip_rest "no qdisc"
	ktap_done
fi

# 2. RED in ECN mode, as the multi-guest DCQCN case has it on a NIC: it
# marks up to its hard limit, where its fifo refuses.
snap
# shellcheck disable=SC2086 # RED's limits are words
if ktap_check "htb 50 Mbit/s + RED (ECN, $RED) on v1" qdisc_on \
	red $RED probability 0.1 bandwidth 50mbit ecn; then
	writebw "red"
	refusals "red"
else
	ktap_skip "red: ib_write_bw -F -q 2 -s 65536 -D 8" "no RED"
	ktap_skip "red: the queue refused packets and sroce1 held them" "no RED"
	ktap_skip "red: no QP ran out of retries" "no RED"
fi
qdisc_off

# 3. Every tenth RoCE skb refused, deterministically (gact's "random
# determ": a flower filter on the egress hook that passes nine and drops
# the tenth packet to UDP 4791; perftest's TCP exchange passes).  sroce1
# only sends requests here (ib_write_bw's client; its responder sends
# nothing), so every refusal is of a request packet or batch: each is
# taken back and sent again before anything after it, and the responder
# never sees a gap, where before every tenth skb was a loss (a sequence
# NAK, or a timeout at a tail).
snap
o0=$(hw_counter sroce2 out_of_sequence)
ip netns exec ns1 tc qdisc add dev v1 clsact
gact_prob() {
	ip netns exec ns1 tc filter add dev v1 egress protocol ip flower \
		ip_proto udp dst_port 4791 action pass random determ drop 10
}
if gact_prob >/dev/null 2>&1; then
	ktap_pass "a tc filter refusing every tenth skb to UDP 4791 on v1"
	xfer "one in ten" ib_write_bw -x "-F -s 65536 -n 300"
	oos=$(($(hw_counter sroce2 out_of_sequence) - o0))
	seq=$(delta packet_seq_err)
	held=$(delta req_tx_held)
	diag "one in ten: req_tx_held +$held, sroce2 out_of_sequence +$oos," \
		"sroce1 packet_seq_err +$seq, local_ack_timeout_err +$(delta local_ack_timeout_err)"
	ktap_result "one in ten: refusals held, and no gap reached the responder" \
		"$([ "$held" -gt 0 ] && [ "$oos" = 0 ] && [ "$seq" = 0 ]; echo $?)" \
		"req_tx_held +$held, sroce2 out_of_sequence +$oos, packet_seq_err +$seq"
else
	# a kernel without CONFIG_GACT_PROB (the debug kernel's config)
	ktap_skip "a tc filter refusing every tenth skb to UDP 4791 on v1" \
		"no gact random (CONFIG_GACT_PROB)"
	ktap_skip "one in ten: ib_write_bw -F -s 65536 -n 300" "no gact random"
	ktap_skip "one in ten: refusals held, and no gap reached the responder" "no gact random"
fi
qdisc_off

# 4. Every RoCE packet refused (a flower filter on the egress hook drops
# UDP port 4791; the pingpong's TCP exchange still passes): ibv_rc_pingpong
# (timeout 14: 67.1 ms, retry_cnt 7) fails with RETRY_EXC_ERR (12), its
# timeouts backed off (comp.c) to at most 27 periods, 1.8 s, and one more
# period after a refusal; 60 s bounds it here (the tool's start and TCP
# exchange included: 7-10 s at host load 6, 18 s at load 7 beside three
# other guests).
snap
if ktap_check "a tc filter dropping UDP 4791 on v1's egress" sh -c \
	"ip netns exec ns1 tc qdisc add dev v1 clsact &&
	 ip netns exec ns1 tc filter add dev v1 egress protocol ip flower \
		ip_proto udp dst_port 4791 action drop"; then
	port=$((port + 1))
	t0=$SECONDS
	PAIR_PORT=$port run_pair $((60 * slow)) \
		ns2 "ibv_rc_pingpong -d sroce2 -g $g2 -p $port -s 4096 -n 5" \
		ns1 "ibv_rc_pingpong -d sroce1 -g $g1 -p $port -s 4096 -n 5 10.11.0.2"
	el=$((SECONDS - t0))
	diag "drop all: client done after $el s; req_tx_held +$(delta req_tx_held)"
	ktap_result "drop all: the client fails with status 12 (retry exceeded), not a hang" \
		"$(grep -q 'retry counter exceeded (12)' <<<"$pair_cout"; echo $?)" \
		"$(tail -n 20 <<<"$pair_out")"
	ktap_result "drop all: the refused packets were held, and the QP ran out of retries" \
		"$([ "$(delta req_tx_held)" -gt 0 ] &&
		[ "$(delta req_transport_retries_exceeded)" = 1 ]; echo $?)" \
		"req_tx_held +$(delta req_tx_held), req_transport_retries_exceeded +$(delta req_transport_retries_exceeded)"
else
	ktap_skip "drop all: the client fails with status 12 (retry exceeded), not a hang" "no flower"
	ktap_skip "drop all: the refused packets were held, and the QP ran out of retries" "no flower"
fi
qdisc_off

# The queue is gone: a last transfer goes through untouched.
xfer "after" ibv_rc_pingpong -g "-s 65536 -n 50 -c"

ktap_done
