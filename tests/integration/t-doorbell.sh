#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-doorbell.sh - doorbell elision (include/uapi/rdma/sroce-abi.h,
# SROCE_SQ_BUSY): a post_send that finds the SQ's sq_busy set skips its
# system call, and the kernel context that set it must find the WQEs when
# it ends its turn.  A WQE lost in that hand-over never leaves: the client
# that posted it waits for its completion until its timeout, so every case
# below fails on a lost WQE, and the --chk cases on a WQE sent with the
# wrong content.
#
# The window is open while the holder posts its send CQEs (sq_busy still
# set): streams that post as they poll completions (perftest) skip many
# doorbells; ping-pongs, at many sizes, RC, UC and UD, mostly ring (their
# one WQE completes at the end of the turn) and check the content.
# req_db_elided counts the kernel's runs for WQEs found at the end of a
# turn; it must grow, or nothing was elided and the cases proved nothing.
# SROCE_DB_ELISION=0 (provider) must still work.  dp_test (every opcode,
# byte-exact) runs with elision in t-datapath.  With a module built with
# SROCE_TEST_HOOKS=1 every send CQE posting spins 2 ms (test_cqe_post_ms),
# which holds the window open while perftest polls and posts.
#
# Topology: make_two_ns (see lib.sh):
#
#   ns1: sroce1 on v1 (10.11.0.1) ==veth== v2 (10.11.0.2) sroce2 :ns2
#        clients                                   servers

here=$(dirname "${BASH_SOURCE[0]}")
. "$here/lib.sh"
. "$here/dp-lib.sh"

TMO=${DB_TIMEOUT:-90}
PP_RUNS="1:1000 64:1000 1000:500 4096:500 65536:50 1048576:5"

ktap_begin 18 "doorbell elision: WQEs posted while sq_busy is set"

two_ns_start
port=18700

elided() {
	echo $(($(hw_counter sroce1 req_db_elided) + $(hw_counter sroce2 req_db_elided)))
}

# pair NAME SERVER_CMD CLIENT_CMD: one client/server run, pass or fail.
pair() {
	local name=$1
	port=$((port + 1))
	if PAIR_PORT=$port run_pair "$TMO" ns2 "$2 -p $port" \
		ns1 "$3 -p $port 10.11.0.2"; then
		ktap_pass "$name"
	else
		ktap_fail "$name" "$(tail -n 20 <<<"$pair_out")"
	fi
}

# pingpong TOOL SIZE ITERS [ENV]: content checked (--chk).
pingpong() {
	local tool=$1 size=$2 n=$3 env=${4:-}
	pair "$tool -s $size -n $n --chk${env:+ ($env)}" \
		"$tool -d sroce2 -g $g2 -s $size -n $n -c" \
		"${env:+env $env }$tool -d sroce1 -g $g1 -s $size -n $n -c"
}

e0=$(elided)
for r in $PP_RUNS; do
	pingpong ibv_rc_pingpong "${r%%:*}" "${r##*:}"
done
pingpong ibv_uc_pingpong 4096 1000
pingpong ibv_ud_pingpong 512 1000
# Streams that post after every completion: a lost WQE leaves perftest
# waiting for it (one signalled WR in 100, -n a multiple of 100).
for s in 64 65536; do
	pair "ib_write_bw -s $s (posts after completions)" \
		"ib_write_bw -d sroce2 -x $g2 -F -s $s -n 2000" \
		"ib_write_bw -d sroce1 -x $g1 -F -s $s -n 2000"
done
pair "ib_send_bw -s 4096 -q 4" \
	"ib_send_bw -d sroce2 -x $g2 -F -s 4096 -q 4 -n 1000" \
	"ib_send_bw -d sroce1 -x $g1 -F -s 4096 -q 4 -n 1000"
e1=$(elided)
diag "req_db_elided: $e0 -> $e1"
ktap_result "req_db_elided grew: doorbells were skipped" $((e1 > e0 ? 0 : 1)) \
	"req_db_elided $e0 -> $e1"

# The provider's switch: every post rings.  The counter may still grow
# (a doorbell that found req.lock held leaves WQEs to the holder too), so
# only the transfer is checked here.
pingpong ibv_rc_pingpong 4096 500 SROCE_DB_ELISION=0

# The window held open: each send CQE posting spins 2 ms with sq_busy set,
# after the WQE's slot was given back.  Every WR signalled (-Q 1), so one
# ACK completes several WQEs and perftest, polling the first CQEs, posts
# while the holder still spins over the later ones.  (A ping-pong has one
# WQE outstanding: its post comes after the turn ended, so it rings.)
hook=/sys/module/sroce/parameters/test_cqe_post_ms
if [ -w "$hook" ]; then
	e0=$(elided)
	echo 2 >"$hook"
	pair "hooked: ib_write_bw -s 4096 -Q 1" \
		"ib_write_bw -d sroce2 -x $g2 -F -s 4096 -Q 1 -n 500" \
		"ib_write_bw -d sroce1 -x $g1 -F -s 4096 -Q 1 -n 500"
	pair "hooked: ib_send_bw -c UC -s 64 -Q 1" \
		"ib_send_bw -d sroce2 -x $g2 -F -c UC -s 64 -Q 1 -n 500" \
		"ib_send_bw -d sroce1 -x $g1 -F -c UC -s 64 -Q 1 -n 500"
	echo 0 >"$hook"
	e1=$(elided)
	diag "req_db_elided with the hook: $e0 -> $e1"
	ktap_result "hooked: req_db_elided grew" $((e1 > e0 ? 0 : 1)) \
		"req_db_elided $e0 -> $e1"
else
	for t in "hooked: ib_write_bw" "hooked: ib_send_bw UC" "hooked counter"; do
		ktap_skip "$t" "sroce.ko built without SROCE_TEST_HOOKS=1"
	done
fi

ktap_done
