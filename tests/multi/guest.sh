#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest.sh - the guest side of tests/multi/run.sh: two guests, each with
# one virtio-net NIC joined by a TCP stream between their qemus (vm-run
# --peer-nic, lossless) and one joined by UDP datagrams (--peer-udp-nic,
# lossy), each with its own kernel.
#
#   tests/multi/guest.sh a     guest A: sroce0 on its NIC (10.16.0.1),
#                              then the remote shell of ctl.py until B
#                              says quit
#   tests/multi/guest.sh b     guest B: sroce0 on its NIC (10.16.0.2),
#                              then every case, as KTAP; servers run in
#                              A through ctl.py, clients here
#
#   guest A                                   guest B
#   sroce0 / rxe0                             sroce0 / rxe0
#   eth0 10.16.0.1 --hub--wire==TCP==wire--hub-- eth0 10.16.0.2
#   eth1 10.17.0.1 -----lwire==UDP==lwire------- eth1 10.17.0.2
#   sroce1 (the lossy wire's row only)        sroce1
#   ctl.py serve :7000   <------------------  ctl.py run (one per command)
#   results share                             results share: host-req,
#                                             host-ack (the link cuts,
#                                             done by the host's monitor)
#
# Why a remote shell: the guests share only the read-only host root, and
# a fixed order of servers and clients desynchronises at the first case
# that fails on one side.  Here B alone decides; A runs what it is told,
# and a server whose client gave up is killed with its connection.
#
# The link cuts are the host's (QEMU monitor `set_link wire off`: the
# wire behind the guest's hub, so both NICs keep their carrier).  B asks
# for one by writing host-req into its results share and waits for
# host-ack; run.sh polls for it.
#
# Environment: SROCE_MULTI_MTU (default 9000, both wires),
# SROCE_MULTI_PEER_WAIT (seconds B waits for A, default 600),
# SROCE_MULTI_TMO (per case, 120), SROCE_MULTI_CUT_MS (the short cut,
# 300), SROCE_MULTI_CASES (an extended regex: only the rows with a case
# whose name matches run, the others are skipped case by case; unset,
# all).  A row is the cases that belong together, such as a transfer
# and what is checked of it, or a device swap and the cases on the new
# device; the first two cases (both guests set up) always run.

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
# shellcheck source=tests/multi/lib.sh
. "$here/lib.sh"
# shellcheck source=bench/mpi/ucx-lib.sh
. "$here/../../bench/mpi/ucx-lib.sh"

role=${1:-}
TMO=${SROCE_MULTI_TMO:-120}
res=${SROCE_RESULTS:-/tmp}

if [ "$role" = a ]; then
	echo "# guest A: $(uname -r)"
	if net_up "$A" && dev_up sroce sroce0 "$A"; then
		echo "# guest A: sroce0 on $(nic) ($A)"
	else
		echo "# guest A: set-up failed (B sees it)"
	fi
	exec python3 "$here/ctl.py" serve "$A" "$CTL_PORT" "$here/lib.sh" \
		"$res/quit"
fi
[ "$role" = b ] || { echo "usage: guest.sh a|b" >&2; exit 2; }

# --- guest B: the cases ------------------------------------------------------

# ctl CMD: CMD in guest A (ctl.py run), its output here, its status.
ctl() {
	python3 "$here/ctl.py" run "$A" "$CTL_PORT" "$1"
}

# ctl_num CMD: the last number CMD printed in guest A.
ctl_num() {
	ctl "$1" 2>/dev/null | grep -E '^[0-9]+$' | tail -n 1
}

# host_req REQ: ask the host for REQ ("cut MS", "off", "on": the wire's
# link, run.sh on B's monitor) and wait for its answer; succeed on "ok".
host_req() {
	local ack
	rm -f "$res/host-ack"
	echo "$1" >"$res/host-req.tmp" && mv "$res/host-req.tmp" "$res/host-req"
	wait_until 30 test -e "$res/host-ack" || return 1
	read -r ack <"$res/host-ack"
	rm -f "$res/host-ack"
	[ "$ack" = ok ]
}

# row N NAME...: whether the next N cases, a row, run: without
# SROCE_MULTI_CASES, or when one of the NAMEs (its cases' names, the
# first ones at least) matches it.  A row that does not run is N skips,
# named after NAME... (the plan stays right).  Inside a row that runs
# (row_on set) every case runs.
only=${SROCE_MULTI_CASES:-}
row_on=
# A regex that does not compile would skip every row and pass: refuse it.
if [ -n "$only" ]; then
	[[ "" =~ $only ]]
	if [ $? -eq 2 ]; then
		echo "guest.sh: SROCE_MULTI_CASES='$only' is not an extended regex"
		echo "0 passed, 1 failed"
		exit 1
	fi
fi
row() {
	local n=$1 i name
	shift
	[ -z "$only" ] || [ -n "$row_on" ] && return 0
	for name in "$@"; do
		[[ $name =~ $only ]] && return 0
	done
	for ((i = 1; i <= n; i++)); do
		name=${*:i:1}
		[ -n "$name" ] || name="$1 ($i of $n)"
		ktap_skip "$name" "not in SROCE_MULTI_CASES"
	done
	return 1
}

# the NIC and device of net_diag when a pair fails (net_diag's own
# default, nic sroce0, when empty)
diag_on=

port=18800
READY_TCP='wait_until 20 port_listening - @P@'
READY_CM='wait_until 20 cm_listening'

# xpair READY "SRV" "CLI" [DURING]: SRV in guest A; once READY succeeds
# there, CLI here, and DURING here while CLI runs; both under timeout.
# @P@ in any of them is a fresh port.  Succeeds if both exit 0; output in
# $pair_out (labelled), the client's in $pair_cout.
xpair() {
	local ready=${1//@P@/$((port + 1))} s c so co spid cpid crc src
	port=$((port + 1))
	s=${2//@P@/$port} c=${3//@P@/$port}
	so=$(mktemp) co=$(mktemp)
	# one line: ctl.py sends a command as one.  $spid is ctl.py itself
	# (exec), so that killing it closes the connection and ctl.py in A
	# ends the server (a backgrounded function would be a subshell whose
	# python3 outlives the kill).
	(exec python3 "$here/ctl.py" run "$A" "$CTL_PORT" \
		"timeout $TMO bash -c $(printf %q "$s") & p=\$!; if $ready; then echo __ready; else echo __notready; fi; wait \$p") \
		>"$so" 2>&1 &
	spid=$!
	wait_until 60 grep -qE '^__(not)?ready' "$so"
	timeout "$TMO" bash -c "$c" >"$co" 2>&1 &
	cpid=$!
	crc=
	# DURING may wait for the client itself (and set crc)
	[ -n "${4:-}" ] && eval "$4"
	if [ -z "$crc" ]; then
		wait $cpid
		crc=$?
	fi
	# a client that failed leaves the server waiting: drop it
	[ $crc -ne 0 ] && { sleep 1; kill $spid 2>/dev/null; }
	wait $spid
	src=$?
	pair_cout=$(cat "$co")
	pair_out="--- client here (exit $crc): $c
$(tail -n 15 "$co")
--- server in A (exit $src): $s
$(grep -v '^__' "$so" | tail -n 15)"
	if [ $crc -ne 0 ] || [ $src -ne 0 ]; then
		pair_out+="
--- B: $(net_diag $diag_on)
--- A: $([ -n "$a_gone" ] && echo gone ||
			ctl "net_diag $diag_on" 2>&1 |
			grep -v -e '^__' -e '^$' | tail -n 1)"
	fi
	rm -f "$so" "$co"
	[ $crc -eq 0 ] && [ $src -eq 0 ]
}

# case_pair NAME XPAIR-ARGS...: one xpair as one test case.
case_pair() {
	local name=$1
	shift
	if xpair "$@"; then
		ktap_pass "$name"
	else
		ktap_fail "$name" "$pair_out"
	fi
}

# pp TOOL SIZE ITERS [EXTRA]: a pingpong with --chk, server devA in A,
# client devB here.
pp() {
	local name="$1 -s $2 --chk ($devA in A, $devB in B)"
	row 1 "$name" || return 0
	case_pair "$name" "$READY_TCP" \
		"$1 -d $devA -g $ga -p @P@ -s $2 -n $3 -c ${4:-}" \
		"$1 -d $devB -g $gb -p @P@ -s $2 -n $3 -c ${4:-} $A"
}

# bw TOOL [ARGS]: perftest (1 MiB unless ARGS), server devA in A, client
# devB here; rerun once when TCG's clock calibration printed zeros.
bw() {
	local tool=$1 args=${2:--s 1048576 -n 20} ok
	row 1 "$tool $args ($devA in A, $devB in B)" || return 0
	for _ in 1 2; do
		xpair "$READY_TCP" "$tool -d $devA -x $ga -p @P@ -F $args" \
			"$tool -d $devB -x $gb -p @P@ -F $args $A"
		ok=$?
		[ $ok -ne 0 ] || perf_nonzero "$pair_cout" && break
		ok=1
	done
	if [ $ok -eq 0 ]; then
		diag "$tool $args $devB -> $devA: $(perf_row "$pair_cout")"
		ktap_pass "$tool $args ($devA in A, $devB in B)"
	else
		ktap_fail "$tool $args ($devA in A, $devB in B)" "$pair_out"
	fi
}

# timeouts: local_ack_timeout_err of sroce0 here plus in A.
timeouts() {
	echo $(($(hw_counter sroce0 local_ack_timeout_err) +
		$(ctl_num 'hw_counter sroce0 local_ack_timeout_err')))
}

# started: the client of xpair (output $co, line-buffered with stdbuf)
# has connected its QP.
started() {
	wait_until 60 grep -q 'remote address' "$co"
}

b_up() {
	net_up "$B" && dev_up sroce sroce0 "$B"
}

# (run by ktap_check, in a subshell: it sets nothing)
peer_up() {
	wait_until "${SROCE_MULTI_PEER_WAIT:-600}" ping -c 1 -W 1 "$A" &&
		[ -n "$(ctl_num 'gid_index sroce0 10.16.0.1')" ]
}

ktap_begin 49 "two guests joined by a QEMU socket netdev (lossless) and a dgram netdev (lossy)"
diag "guest B: $(uname -r)"
[ -z "$only" ] || diag "SROCE_MULTI_CASES='$only': the other rows are skipped"
a_gone=
trap '[ -n "$a_gone" ] || ctl __quit >/dev/null 2>&1' EXIT
if ! ktap_check "guest B: sroce0 on its NIC ($B)" b_up ||
	! ktap_check "guest A reachable, sroce0 there ($A)" peer_up; then
	ktap_skip_rest "no pair"
	ktap_done
fi
diag "guest A: $(ctl 'uname -r' | head -n 1)"
ga=$(ctl_num 'gid_index sroce0 10.16.0.1')
gb=$(gid_index sroce0 "$B")
devA=sroce0 devB=sroce0

# 1. pingpongs of every QP type, byte-checked
pp ibv_rc_pingpong 1 200
pp ibv_rc_pingpong 4096 100
pp ibv_rc_pingpong 65536 50
pp ibv_rc_pingpong 1048576 5
pp ibv_uc_pingpong 1 200
pp ibv_uc_pingpong 65536 50
pp ibv_uc_pingpong 1048576 5
pp ibv_ud_pingpong 1 200
pp ibv_ud_pingpong 1024 100
pp ibv_srq_pingpong 1 100 "-q 4"
pp ibv_srq_pingpong 65536 20 "-q 4"

# 2. perftest
for t in ib_write_bw ib_read_bw ib_send_bw; do
	bw $t
done
bw ib_atomic_bw "-n 500"

# 3. rdma_cm
name="rping -V over rdma_cm (A server, B client)"
row 1 "$name" && case_pair "$name" "$READY_CM" \
	"rping -s -a $A -p @P@ -V -C 50 -S 4096" \
	"rping -c -a $A -p @P@ -V -C 50 -S 4096"

# 5. the wire cut at the host.  Short: RC recovers by retransmission
# (ibv_rc_pingpong has timeout 14, 67 ms, and retry_cnt 7: sroce backs
# off to 4 x 67 ms, so about 27 x 67 ms = 1.8 s of silence are survived).
cut_ms=${SROCE_MULTI_CUT_MS:-300}
name="wire cut for $cut_ms ms mid-transfer: ibv_rc_pingpong 1 MiB --chk recovers"
if row 2 "$name" "the cut cost retransmit timeouts (local_ack_timeout_err)"; then
	t0=$(timeouts)
	# 100 MiB each way, so that the cut comes mid-transfer on an idle
	# host too; three times the usual time, since a loaded host took
	# longer than 120 s (the transfer, not the recovery)
	c0=$SECONDS
	TMO=$((TMO * 3)) case_pair "$name" "$READY_TCP" \
		"ibv_rc_pingpong -d sroce0 -g $ga -p @P@ -s 1048576 -n 100 -c" \
		"stdbuf -oL ibv_rc_pingpong -d sroce0 -g $gb -p @P@ -s 1048576 -n 100 -c $A" \
		'started && host_req "cut $cut_ms"'
	diag "the cut's pingpong took $((SECONDS - c0)) s"
	t1=$(timeouts)
	ktap_result "the cut cost retransmit timeouts (local_ack_timeout_err)" \
		"$([ "$t1" -gt "$t0" ]; echo $?)" "local_ack_timeout_err: $t0 -> $t1"
fi

# Long: ib_write_bw (timeout 14: T = 67.1 ms, retry_cnt 7) fails with
# RETRY_EXC_ERR (status 12), no sooner than (retry_cnt + 1) x T after
# the cut (IBA C9-140/141), and not hanging (30 s).
# cut_us: microseconds from the host's "off" to the client's exit.
# cut_and_time REQ: once xpair's client has connected, REQ to the host;
# crc the client's exit status, cut_us the microseconds from the host's
# answer to the client's exit.
cut_and_time() {
	local c0
	started && sleep 1 && host_req "$1" || return
	c0=${EPOCHREALTIME/./}
	wait "$cpid"
	crc=$?
	cut_us=$((${EPOCHREALTIME/./} - c0))
}
long_cut() {
	cut_and_time off && host_req on
}
min=$((8 * 4096 * 16384 / 1000))
name="wire cut for long: ib_write_bw fails with RETRY_EXC_ERR (12)"
if row 2 "$name" \
	"... ms after the cut: no sooner than 8 x 67.1 ms, within 30 s"; then
	cut_us=
	xpair "$READY_TCP" \
		"ib_write_bw -d sroce0 -x $ga -p @P@ -F -u 14 -s 65536 -D 40" \
		"stdbuf -oL ib_write_bw -d sroce0 -x $gb -p @P@ -F -u 14 -s 65536 -D 40 $A" \
		long_cut
	grep -q 'status 12' <<<"$pair_cout"
	ktap_result "$name" $? "$pair_out"
	cut_us=${cut_us:-0}
	ktap_result "... $((cut_us / 1000)) ms after the cut: no sooner than 8 x 67.1 ms, within 30 s" \
		"$([ "$cut_us" -ge $min ] && [ "$cut_us" -le 30000000 ]; echo $?)" \
		"bounds $min us .. 30 s"
fi
name="wire back: ibv_rc_pingpong 64 KiB --chk"
row 1 "$name" && case_pair "$name" "$READY_TCP" \
	"ibv_rc_pingpong -d sroce0 -g $ga -p @P@ -s 65536 -n 20 -c" \
	"ibv_rc_pingpong -d sroce0 -g $gb -p @P@ -s 65536 -n 20 -c $A"

# 6. NVMe-oF RDMA: the target in one guest, the host in the other,
# SROCE_MULTI_NVMF_MIB (64) MiB written, read back and compared, and the
# target's file compared too; then the other way.
mib=${SROCE_MULTI_NVMF_MIB:-64}
nvmf_ab() {
	local out sum
	ctl "nvmf_target_up $A $mib" || return 1
	out=$(nvmf_host_io "$A" "$mib" 2>&1) || { echo "$out"; return 1; }
	sum=$(tail -n 1 <<<"$out")
	[ "$(ctl "md5sum <$NVMF_IMG" | head -n 1 | cut -d' ' -f1)" = "$sum" ]
}
nvmf_ba() {
	local out sum
	nvmf_target_up "$B" "$mib" || return 1
	out=$(ctl "nvmf_host_io $B $mib" 2>&1) || { echo "$out"; return 1; }
	sum=$(grep -E '^[0-9a-f]{32}$' <<<"$out" | tail -n 1)
	[ "$(md5sum <$NVMF_IMG | cut -d' ' -f1)" = "$sum" ]
}
name="NVMe-oF RDMA: target in A, host in B, $mib MiB written, read back, identical on the target"
if row 1 "$name"; then
	ktap_check "$name" nvmf_ab
	ctl nvmf_target_down
fi
name="NVMe-oF RDMA: target in B, host in A, $mib MiB written, read back, identical on the target"
if row 1 "$name"; then
	ktap_check "$name" nvmf_ba
	nvmf_target_down
fi

# 7. Open MPI (UCX PML, as bench/mpi/ucx-lib.sh's mpi_coll) across the
# guests: bench/mpi's coll, every element of every result checked.
# mpirun runs here; its daemon in A starts through ctl.py (mpi-rsh, the
# guests have no ssh) and reaches mpirun over eth0.  Ranks 0..N-1 in B,
# N..2N-1 in A; with two per guest, the two of one guest talk over
# sroce0 too (loopback QPs: no shared memory transport is allowed).
coll=$here/../../build/mpi/coll
mpi_multi() {
	local np=$1
	shift
	# shellcheck disable=SC2046 # ucx_env is words by design
	OMPI_MCA_pml=ucx OMPI_MCA_pml_ucx_devices=any OMPI_MCA_btl=self \
		OMPI_MCA_osc=^ucx,pt2pt OMPI_MCA_plm_rsh_agent="$here/mpi-rsh" \
		OMPI_MCA_oob_tcp_if_include=10.16.0.0/24 \
		timeout -k 30 600 mpirun --allow-run-as-root --oversubscribe \
		--host "$B:$np" -np "$np" \
		env $(ucx_env "sroce0:1" "$gb" rc_verbs,ud_verbs,self) "$coll" "$@" : \
		--host "$A:$np" -np "$np" \
		env $(ucx_env "sroce0:1" "$ga" rc_verbs,ud_verbs,self) "$coll" "$@"
}
# mpi_case PER_GUEST MAX ROWS: coll from 16 B to MAX (factor 4) with
# PER_GUEST ranks in each guest; ROWS rows (3 ops x sizes), none wrong.
mpi_case() {
	local per=$1 max=$2 want=$3 n=$(($1 * 2)) st rows what
	what="Open MPI across the guests, $n ranks, 16 B .. $max"
	row 2 "$what: exit 0" "$what: $want rows, 0 wrong elements" ||
		return 0
	if [ ! -x "$coll" ]; then
		ktap_skip "$what: exit 0" "$coll not built (make -C bench/mpi)"
		ktap_skip "$what: $want rows, 0 wrong elements" "not built"
		return
	fi
	mpi_multi "$per" -b 16 -e "$max" -f 4 -n 5 -w 1 -t 0.2 \
		-c /tmp/multi-coll.csv >/tmp/multi-coll.out 2>/tmp/multi-coll.err
	st=$?
	diag "$(grep -E '^ *(allreduce|alltoall|bcast) +(16|1048576|16777216) ' \
		/tmp/multi-coll.out | tr -s ' ' | paste -sd ';')"
	ktap_result "$what: exit 0" $st "exit $st" \
		"$(tail -n 15 /tmp/multi-coll.err)"
	rows=$(awk -F, -v n=$n 'NR > 1 && $4 == n && $9 == 0' \
		/tmp/multi-coll.csv 2>/dev/null | wc -l)
	ktap_result "$what: $want rows, 0 wrong elements" \
		"$([ "$rows" -eq "$want" ] &&
			grep -q '^# coll: ok, 0 wrong elements' /tmp/multi-coll.out
		echo $?)" "rows: $rows" "$(tail -n 3 /tmp/multi-coll.out)"
}
# 16 B .. 16 MiB: 11 sizes; two ranks per guest, 16 B .. 1 MiB: 9 sizes
mpi_case 1 16M 33
mpi_case 2 1M 27

# 8. DCQCN with the bottleneck on B's own NIC: htb at 50 Mbit/s with a RED
# queue in ECN mode on its egress (B -> A) for RoCE (UDP 4791; the rest,
# perftest's TCP exchange and ctl.py's, goes unshaped: a full queue made
# the tool's exchange fail in a one-guest run), every ecn/ knob at the
# module's default.  RED marks CE, A's notification point answers with
# CNPs, B's reaction point handles them, and both QPs of ib_write_bw
# live to the end of their 8 s.
red_on() {
	local n
	n=$(nic) || return 1
	tc qdisc replace dev "$n" root handle 1: htb default 20 &&
		tc class add dev "$n" parent 1: classid 1:20 htb rate 10gbit &&
		tc class add dev "$n" parent 1: classid 1:10 htb rate 50mbit \
			ceil 50mbit &&
		tc qdisc add dev "$n" parent 1:10 handle 10: red limit 400000 \
			min 30000 max 90000 avpkt 4200 burst 20 probability 0.1 \
			bandwidth 50mbit ecn &&
		tc filter add dev "$n" parent 1: protocol ip prio 1 flower \
			ip_proto udp dst_port 4791 classid 1:10
}
red_marked() {
	tc -s qdisc show dev "$(nic)" | awk '/qdisc red/ { r = 1 }
		r { for (i = 1; i < NF; i++) if ($i == "marked") { print $(i + 1); exit } }'
}
dcqcn() {
	local cnp0 rph0 st marked cnp rph
	cnp0=$(ctl_num 'hw_counter sroce0 np_cnp_sent')
	rph0=$(hw_counter sroce0 rp_cnp_handled)
	if ! ktap_check "htb 50 Mbit/s + RED (ECN) on B's NIC" red_on; then
		tc qdisc del dev "$(nic)" root 2>/dev/null
		ktap_skip "ib_write_bw, 2 QPs, 8 s through the bottleneck: both live to the end" "no qdisc"
		ktap_skip "RED marked, A sent CNPs, B handled them" "no qdisc"
		return
	fi
	xpair "$READY_TCP" \
		"ib_write_bw -d sroce0 -x $ga -p @P@ -F -q 2 -s 65536 -D 8" \
		"ib_write_bw -d sroce0 -x $gb -p @P@ -F -q 2 -s 65536 -D 8 $A"
	st=$?
	[ $st = 0 ] && diag "ib_write_bw -q 2 through the bottleneck: $(perf_row "$pair_cout")"
	ktap_result "ib_write_bw, 2 QPs, 8 s through the bottleneck: both live to the end" \
		$st "$pair_out"
	marked=$(red_marked)
	cnp=$(($(ctl_num 'hw_counter sroce0 np_cnp_sent') - cnp0))
	rph=$(($(hw_counter sroce0 rp_cnp_handled) - rph0))
	diag "RED marked ${marked:-?}, A's np_cnp_sent +$cnp, B's rp_cnp_handled +$rph"
	ktap_result "RED marked, A sent CNPs, B handled them" \
		"$([ "${marked:-0}" -gt 0 ] && [ "$cnp" -gt 0 ] && [ "$rph" -gt 0 ]
		echo $?)" "marked ${marked:-none}, np_cnp_sent +$cnp, rp_cnp_handled +$rph"
	tc qdisc del dev "$(nic)" root
}
row 3 "htb 50 Mbit/s + RED (ECN) on B's NIC" \
	"ib_write_bw, 2 QPs, 8 s through the bottleneck: both live to the end" \
	"RED marked, A sent CNPs, B handled them" && dcqcn

# 10. The lossy wire: the second NIC of each guest (vm-run
# --peer-udp-nic), joined by QEMU's dgram netdev, UDP datagrams between
# two ports of the host's loopback.  Where the socket netdev's TCP stream
# holds the sender back, a datagram that finds the receiving qemu's
# socket buffer full (its guest's receive ring full, so qemu stopped
# reading) is lost, as on a real link.  sroce1 on it in both guests; the
# tools' TCP exchange stays on the lossless wire ($A), their RDMA goes
# between sroce1's GIDs.  Asserted: a 1 MiB pingpong byte-exact and
# ib_write_bw to the end, both without error.  Reported: what the wire
# lost each way (the sender's NIC sent, the receiver's got), the NICs'
# own drops and sroce1's recovery counters in both guests; sroce1 goes
# at the end (rdma_rxe's row unloads sroce).
lossy_both_up() {
	lossy_up "$LB" && ctl "lossy_up $LA" &&
		wait_until 30 ping -c 1 -W 1 "$LA"
}
lossy_both_down() {
	local st=0
	ctl lossy_down || st=1
	lossy_down || st=1
	return $st
}
# lossy_snap: B's lossy_counts, then A's, on one line.
lossy_snap() {
	echo "$(lossy_counts)" \
		"$(ctl lossy_counts | grep -E '^[0-9 ]+$' | tail -n 1)"
}
# lossy_report WHAT BEFORE AFTER: a diag of what WHAT lost on the lossy
# wire and what sroce1 did about it, from two lossy_snaps; sets lost
# (packets lost, both ways together) and retx (go-back-N restarts, both
# sides together).
lossy_report() {
	local -a x y d ctrs
	local i h k line
	read -ra x <<<"$2"
	read -ra y <<<"$3"
	read -ra ctrs <<<"$LOSS_CTRS"
	h=$((3 + ${#ctrs[@]}))
	lost=0 retx=0
	if [ ${#x[@]} != $((2 * h)) ] || [ ${#y[@]} != $((2 * h)) ]; then
		diag "$1: no counters from one of the guests ($2 / $3)"
		return
	fi
	for ((i = 0; i < 2 * h; i++)); do
		d[i]=$((y[i] - x[i]))
	done
	# from 0 B's, from h A's: tx_packets, rx_packets, rx_dropped, ctrs
	lost=$((d[0] - d[h + 1] + d[h] - d[1]))
	retx=$((d[3] + d[h + 3]))
	diag "$1: the wire lost B->A $((d[0] - d[h + 1])) of ${d[0]} packets, A->B $((d[h] - d[1])) of ${d[h]}; lnic rx_dropped B +${d[2]}, A +${d[h + 2]}"
	for i in 0 $h; do
		line="$1: $([ "$i" = 0 ] && echo B || echo A)'s sroce1:"
		for ((k = 0; k < ${#ctrs[@]}; k++)); do
			line+=" ${ctrs[k]} +${d[i + 3 + k]}"
		done
		diag "$line"
	done
}
lossy_cases() {
	local ga1 gb1 s0 s1 c0 st all_lost all_retx
	if ! ktap_check "lossy wire: sroce1 on the second NIC in both guests ($LA in A, $LB in B)" \
		lossy_both_up; then
		ktap_skip "lossy wire: ibv_rc_pingpong -s 1048576 -n 50 --chk" "no sroce1"
		ktap_skip "lossy wire: ib_write_bw -s 1048576 -n 50 to the end" "no sroce1"
		ktap_check "lossy wire: sroce1 deleted in both guests" lossy_both_down
		return
	fi
	ga1=$(ctl_num "gid_index sroce1 $LA")
	gb1=$(gid_index sroce1 "$LB")
	diag_on="lnic sroce1"
	s0=$(lossy_snap)
	c0=$SECONDS
	TMO=$((TMO * 3)) case_pair "lossy wire: ibv_rc_pingpong -s 1048576 -n 50 --chk" \
		"$READY_TCP" \
		"ibv_rc_pingpong -d sroce1 -g $ga1 -p @P@ -s 1048576 -n 50 -c" \
		"ibv_rc_pingpong -d sroce1 -g $gb1 -p @P@ -s 1048576 -n 50 -c $A"
	s1=$(lossy_snap)
	lossy_report "pingpong ($((SECONDS - c0)) s)" "$s0" "$s1"
	all_lost=$lost all_retx=$retx
	c0=$SECONDS
	TMO=$((TMO * 3)) xpair "$READY_TCP" \
		"ib_write_bw -d sroce1 -x $ga1 -p @P@ -F -s 1048576 -n 50" \
		"ib_write_bw -d sroce1 -x $gb1 -p @P@ -F -s 1048576 -n 50 $A"
	st=$?
	s0=$(lossy_snap)
	lossy_report "ib_write_bw ($((SECONDS - c0)) s)" "$s1" "$s0"
	[ $st = 0 ] && diag "ib_write_bw on the lossy wire: $(perf_row "$pair_cout")"
	ktap_result "lossy wire: ib_write_bw -s 1048576 -n 50 to the end" $st \
		"$pair_out"
	diag_on=
	# not asserted: a faster host may drop nothing (say so instead)
	all_lost=$((all_lost + lost)) all_retx=$((all_retx + retx))
	if [ $all_lost -gt 0 ] && [ $all_retx -gt 0 ]; then
		diag "lossy wire: $all_lost packets lost, $all_retx go-back-N restarts in all: the row exercised recovery"
	else
		diag "lossy wire: $all_lost packets lost, $all_retx go-back-N restarts in all: the row did not exercise recovery this time"
	fi
	ktap_check "lossy wire: sroce1 deleted in both guests" lossy_both_down
}
row 4 "lossy wire: sroce1 on the second NIC in both guests ($LA in A, $LB in B)" \
	"lossy wire: ibv_rc_pingpong -s 1048576 -n 50 --chk" \
	"lossy wire: ib_write_bw -s 1048576 -n 50 to the end" \
	"lossy wire: sroce1 deleted in both guests" && lossy_cases

# 4. sroce against rdma_rxe: rxe0 in A, then rxe0 in B
# (run by ktap_check, in a subshell: the GIDs are read after it)
rxe_a() {
	ctl 'dev_swap sroce0 rxe rxe0 10.16.0.1'
}
rxe_b() {
	ctl 'dev_swap rxe0 sroce sroce0 10.16.0.1' &&
		dev_swap sroce0 rxe rxe0 "$B"
}
rxe_cases() {
	local side
	for side in A B; do
		if [ $side = A ]; then
			devA=rxe0 devB=sroce0
			ktap_check "rdma_rxe's rxe0 in A instead of sroce0" rxe_a
		else
			devA=sroce0 devB=rxe0
			ktap_check "sroce0 in A again, rxe0 in B" rxe_b
		fi
		ga=$(ctl_num "gid_index $devA 10.16.0.1")
		gb=$(gid_index $devB "$B")
		pp ibv_rc_pingpong 1048576 5
		bw ib_write_bw
		bw ib_read_bw
	done
}
in_a="(rxe0 in A, sroce0 in B)" in_b="(sroce0 in A, rxe0 in B)"
if row 8 "rdma_rxe's rxe0 in A instead of sroce0" \
	"ibv_rc_pingpong -s 1048576 --chk $in_a" \
	"ib_write_bw -s 1048576 -n 20 $in_a" "ib_read_bw -s 1048576 -n 20 $in_a" \
	"sroce0 in A again, rxe0 in B" \
	"ibv_rc_pingpong -s 1048576 --chk $in_b" \
	"ib_write_bw -s 1048576 -n 20 $in_b" "ib_read_bw -s 1048576 -n 20 $in_b"; then
	row_on=1
	rxe_cases
	row_on=
fi

# 9. The peer guest killed mid-transfer (last: A is gone after it).  B's
# ib_write_bw (timeout 14, retry_cnt 7) fails with RETRY_EXC_ERR, no
# sooner than 8 x 67.1 ms after the kill and within 30 s; then B holds no
# more objects than before it and sroce unloads (nothing leaked, nothing
# hangs).
res_counts() {
	timeout 30 rdma resource show 2>/dev/null | awk '$2 == "sroce0:" {
		for (i = 3; i < NF; i += 2) printf "%s %s ", $i, $(i + 1) }'
}
kill_a() {
	cut_and_time kill-a && a_gone=1
}
back_b() {
	# (nothing to swap back when SROCE_MULTI_CASES left out rdma_rxe's row)
	dev_exists rxe0 || { dev_exists sroce0 && return 0; }
	dev_swap rxe0 sroce sroce0 "$B"
}
kill_cases() {
	local res0 res1
	diag "guest B at $(cut -d' ' -f1 /proc/uptime) s of uptime"
	if ! ktap_check "sroce0 in B again (rxe0 gone)" back_b; then
		ktap_skip_rest "no sroce0 in B"
		return
	fi
	gb=$(gid_index sroce0 "$B")
	res0=$(res_counts)
	cut_us=
	xpair "$READY_TCP" \
		"ib_write_bw -d sroce0 -x $ga -p @P@ -F -u 14 -s 65536 -D 60" \
		"stdbuf -oL ib_write_bw -d sroce0 -x $gb -p @P@ -F -u 14 -s 65536 -D 60 $A" \
		kill_a
	grep -q 'status 12' <<<"$pair_cout"
	ktap_result "guest A killed mid-transfer: B's ib_write_bw fails with RETRY_EXC_ERR (12)" \
		$? "$pair_out"
	cut_us=${cut_us:-0}
	ktap_result "... $((cut_us / 1000)) ms after the kill: no sooner than 8 x 67.1 ms, within 30 s" \
		"$([ "$cut_us" -ge $min ] && [ "$cut_us" -le 30000000 ]; echo $?)" \
		"bounds $min us .. 30 s"
	res1=$(res_counts)
	ktap_result "B holds what it held before (rdma resource: $res1)" \
		"$([ -n "$res0" ] && [ "$res1" = "$res0" ]; echo $?)" \
		"before: $res0" "after: $res1"
	ktap_check "sroce0 deleted and sroce unloaded in B" \
		eval 'rdma link delete sroce0 && wait_until 10 dev_gone sroce0 && unload_sroce'
}
row 5 "sroce0 in B again (rxe0 gone)" \
	"guest A killed mid-transfer: B's ib_write_bw fails with RETRY_EXC_ERR (12)" \
	"... ms after the kill: no sooner than 8 x 67.1 ms, within 30 s" \
	"B holds what it held before (rdma resource)" \
	"sroce0 deleted and sroce unloaded in B" && kill_cases

ktap_done
