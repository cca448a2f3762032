#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-queues.sh - work queues against ring indices that user space writes and
# against state changes (tests/datapath/dp_queues): a thread that keeps the
# RQ's prod at cons + nslots while the QP moves to ERR (the modify returns
# within 1 s and takes at most nslots WQEs); an SQ prod moved 2^22 ahead
# before RESET (the ERR modify after it returns within 1 s and flushes
# nothing); a thread that keeps the SQ full and rings while the QP moves
# to ERR does not keep the modify posting flush CQEs (within 1 s; with a
# SROCE_TEST_HOOKS=1 module each CQE posted waits 1 ms, test_cqe_post_ms,
# so that a poster without a bound would loop while the thread feeds, and
# a diagnostic line says which kind of module ran); an RC
# QP RESET with receives and SENDs outstanding and
# connected again behaves as a new one (one SEND, its own wr_id and data,
# nothing old completes; a whole SQ completes in order); WQEs posted while
# another thread loops RTS->RTS modifies all complete (UD, and RC with an
# infinite retransmit timeout), and one posted in SQD after SQD->RTS.
#
# Topology: make_two_ns (see lib.sh); only sroce1 in ns1 is used.

here=$(dirname "${BASH_SOURCE[0]}")
. "$here/lib.sh"
. "$here/dp-lib.sh"

need_tool dp_queues "work queues: user indices, RESET, modify races"
dq=$tool
n=$("$dq" -P)
ktap_begin $((2 + n + 2)) "work queues: user indices, RESET, modify races"
two_ns_start

before=$(rdma resource show sroce1)
out=$(ip netns exec ns1 timeout 300 "$dq" -d sroce1 -g "$g1" 2>&1)
rc=$?
relay_tool "dp_queues: " "$n" $rc "$out"
diag "$(grep '^# ' <<<"$out" | sed 's/^# //' | sort -u)"
after=$(rdma resource show sroce1)
ktap_result "the device holds what it held before" \
	"$([ "$after" = "$before" ]; echo $?)" "before: $before" \
	"after: $after"

ktap_done
