#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2317 # functions run through ktap_check and traps
#
# t-rdmacm.sh - rdma_cm clients nobody on the team wrote, over IPv4 and
# IPv6: rping (-v -V, 1000 pings at three sizes, every ping's data checked
# in order and at full length), ucmatose (RC, 4 connections), udaddy (UD,
# 4 connections), rdma_server / rdma_client (librdmacm's rdma_create_ep
# examples), perftest over rdma_cm (ib_write_bw -R, ib_read_bw -R,
# ib_send_lat -R; IPv4 only: perftest 4.5 resolves no IPv6 there), and
# the type of service: rdma_cm's configfs default_roce_tos and ucmatose -t
# must show as the DSCP of every packet of the connection on the wire, in
# both directions (tcpdump, tos_check.py).
#
# The same matrix runs first on sroce, then on rdma_rxe in the same boot,
# as the baseline for Documentation/testing.rst's results table; for that
# table the stock verbs clients run on rdma_rxe too (run_verbs: ibv_rc,
# uc, ud and srq_pingpong with --chk, and perftest's write, read, send and
# atomic tests, bandwidth and latency); on sroce only the three t-pingpong
# does not run (ib_atomic_bw, ib_read_lat, ib_atomic_lat).
# SROCE_RDMACM_RXE=0 leaves rdma_rxe out (the default on the debug kernel);
# RPING_COUNT changes the pings (1000, 200 on the debug kernel).  A
# failure on rdma_rxe is reported as a skip naming it (it is rxe's, not
# ours); every sroce case must pass.
#
# Topology: make_two_ns for sroce (servers in ns2, clients in ns1), and a
# second veth pair r1/r2 in init_net for rdma_rxe, which on 6.1 works only
# there; policy routing makes traffic between the two local addresses
# leave through the veth (see vm-harness notes).  sroce never opens UDP
# 4791 in init_net, so both drivers coexist.
#
#   ns1: sroce1 v1 10.11.0.1 fd00::1 ==veth== v2 10.11.0.2 fd00::2 sroce2 :ns2
#   init_net: rxe1 r1 10.13.0.1 fd02::1 ==veth== r2 10.13.0.2 fd02::2 rxe2
#             clients                                      servers

here=$(dirname "${BASH_SOURCE[0]}")
. "$here/lib.sh"
. "$here/dp-lib.sh"

# Five times the stock limits on the debug kernel ($slow, lib.sh).
CM_TMO=${CM_TIMEOUT:-$((180 * slow))}
# 200 pings on the debug kernel: there 1000 x 64 KiB take about 200 s, and
# the detectors need the paths, not the repetitions.
RPING_COUNT=${RPING_COUNT:-$(rounds 1000 200)}
RPING_SIZES="64 4096 65535"
CFG=/sys/kernel/config/rdma_cm
# DSCP 26 (AF31) with ECT(0): the value RoCE deployments commonly use.
TOS=106
UCMA_TOS=72	# DSCP 18

# Cases (keep in step with run_matrix and run_verbs): the rdma_cm matrix
# per device, the verbs clients on rdma_rxe (12) and on sroce the three
# t-pingpong does not run.  SROCE_RDMACM_RXE=0 leaves out rdma_rxe.
PER_DEV=$((2 * 3 + 2 + 2 + 2 + 3 + 3))
# rdma_rxe's half is a baseline, not a test of sroce: on the debug kernel
# it took half an hour and reaches no sroce code, so it is left out there.
RXE=${SROCE_RDMACM_RXE:-$(rounds 1 0)}
PP_TMO=${PP_TIMEOUT:-$((120 * slow))}

if [ "$RXE" = 1 ]; then
	ktap_begin $((3 + PER_DEV + 3 + 1 + PER_DEV + 12)) \
		"rdma_cm clients on sroce and rdma_rxe"
else
	ktap_begin $((3 + PER_DEV + 3)) "rdma_cm clients on sroce"
fi

work=$(mktemp -d)
cfg_dirs=()
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	local d
	for d in "${cfg_dirs[@]}"; do
		rmdir "$d" 2>/dev/null
	done
	teardown_rxe
	rm -rf "$work"
}
trap cleanup EXIT

# make_rxe_pair: rxe1 on r1 and rxe2 on r2, both in init_net.
make_rxe_pair() {
	local f m1 m2
	modprobe rdma_rxe || return 1
	ip link add r1 type veth peer name r2 || return 1
	ip addr add 10.13.0.1/24 dev r1 &&
		ip addr add 10.13.0.2/24 dev r2 &&
		ip -6 addr add fd02::1/64 dev r1 nodad &&
		ip -6 addr add fd02::2/64 dev r2 nodad &&
		ip link set r1 up && ip link set r2 up || return 1
	for f in all r1 r2; do
		sysctl -qw net.ipv4.conf.$f.accept_local=1 \
			net.ipv4.conf.$f.rp_filter=0 || return 1
	done
	m1=$(cat /sys/class/net/r1/address)
	m2=$(cat /sys/class/net/r2/address)
	ip neigh replace 10.13.0.2 lladdr "$m2" dev r1 nud permanent &&
		ip neigh replace 10.13.0.1 lladdr "$m1" dev r2 nud permanent &&
		ip -6 neigh replace fd02::2 lladdr "$m2" dev r1 nud permanent &&
		ip -6 neigh replace fd02::1 lladdr "$m1" dev r2 nud permanent ||
		return 1
	# Locally generated traffic to the other address leaves by the veth.
	ip rule add pref 100 iif lo to 10.13.0.2 lookup 101 &&
		ip rule add pref 100 iif lo to 10.13.0.1 lookup 102 &&
		ip route add 10.13.0.2/32 dev r1 src 10.13.0.1 table 101 &&
		ip route add 10.13.0.1/32 dev r2 src 10.13.0.2 table 102 &&
		ip rule add pref 200 lookup local &&
		ip rule del pref 0 || return 1
	# rdma_cm checks an incoming REQ with rt6_lookup(peer, oif = the
	# receiving netdev) and no iif: that lookup must leave by the veth too.
	ip -6 rule add pref 90 oif r1 to fd02::2 lookup 101 &&
		ip -6 rule add pref 90 oif r2 to fd02::1 lookup 102 &&
		ip -6 rule add pref 100 iif lo to fd02::2 lookup 101 &&
		ip -6 rule add pref 100 iif lo to fd02::1 lookup 102 &&
		ip -6 route add fd02::2/128 dev r1 src fd02::1 table 101 &&
		ip -6 route add fd02::1/128 dev r2 src fd02::2 table 102 &&
		ip -6 rule add pref 200 lookup local &&
		ip -6 rule del pref 0 || return 1
	add_link rxe1 rxe r1 && add_link rxe2 rxe r2 || return 1
	wait_gid rxe1 10.13.0.1 20 && wait_gid rxe2 10.13.0.2 20 &&
		wait_gid rxe1 fd02::1 20 && wait_gid rxe2 fd02::2 20
}

# shellcheck disable=SC2317 # run by cleanup
teardown_rxe() {
	[ -e /sys/class/net/r1 ] || return 0
	rdma link delete rxe1 >/dev/null 2>&1
	rdma link delete rxe2 >/dev/null 2>&1
	ip link del r1 >/dev/null 2>&1
	ip rule add pref 0 lookup local 2>/dev/null
	ip rule del pref 200 2>/dev/null
	ip rule del pref 100 2>/dev/null
	ip rule del pref 100 2>/dev/null
	ip -6 rule add pref 0 lookup local 2>/dev/null
	ip -6 rule del pref 200 2>/dev/null
	ip -6 rule del pref 100 2>/dev/null
	ip -6 rule del pref 100 2>/dev/null
	ip -6 rule del pref 90 2>/dev/null
	ip -6 rule del pref 90 2>/dev/null
	wait_until 10 dev_gone rxe1
	modprobe -r rdma_rxe >/dev/null 2>&1
}

# cm_listening PORT: an rdma_cm ID listens on PORT (rdma resource sees the
# IDs of every namespace).
cm_listening() {
	rdma resource show cm_id 2>/dev/null |
		grep -q "state LISTEN .*src-addr .*:$1 "
}

# cm_pair SRV_NS "SRV CMD" PORT CLI_NS "CLI CMD": run_pair (dp-lib.sh)
# once the server's rdma_cm ID listens on PORT.
cm_pair() {
	PAIR_READY="cm_listening $3" PAIR_TAIL=15 \
		run_pair "$CM_TMO" "$1" "$2" "$4" "$5"
}

# result DEV NAME OK: pass; or fail (sroce) / skip naming the failure
# (rdma_rxe, the baseline) with $pair_out as diagnostics.
result() {
	local dev=$1 name=$2 ok=$3
	shift 3
	diag "$dev: $name: $((SECONDS - case_t0)) s"
	case_t0=$SECONDS
	if [ "$ok" -eq 0 ]; then
		ktap_pass "$dev: $name"
	elif [ "$dev" = sroce ]; then
		ktap_fail "$dev: $name" "$@"
	else
		diag "$@"
		ktap_skip "$dev: $name" "FAILS on rdma_rxe (baseline)"
	fi
}

port=19000
case_t0=$SECONDS

# rping_case DEV SNS CNS ADDR SIZE: RPING_COUNT pings of SIZE bytes, each
# validated by rping (-V) and printed (-v); awk counts the printed pings
# that have the expected sequence number and the full length (SIZE - 1
# characters after "ping data: ").
rping_case() {
	local dev=$1 sns=$2 cns=$3 addr=$4 size=$5 ok n
	port=$((port + 1))
	cm_pair "$sns" "rping -s -a $addr -p $port -S $size -C $RPING_COUNT -V" \
		"$port" "$cns" \
		"rping -c -a $addr -p $port -S $size -C $RPING_COUNT -v -V |
		 awk -v len=$((11 + size - 1)) '
			\$0 ~ \"^ping data: rdma-ping-\" (n + 0) \": \" &&
				length(\$0) == len { n++; next }
			{ bad++; if (bad < 4) print substr(\$0, 1, 80) }
			END { print \"verified\", n + 0; exit bad > 0 }'
		 exit \$((PIPESTATUS[0] | PIPESTATUS[1]))"
	ok=$?
	n=$(sed -n 's/^verified \([0-9]*\)$/\1/p' <<<"$pair_cout")
	[ "${n:-0}" -eq "$RPING_COUNT" ] || ok=1
	[ $ok -eq 0 ] && diag "$dev rping $addr -S $size: ${n} pings verified"
	result "$dev" "rping -v -V -C $RPING_COUNT -S $size $addr" $ok \
		"$pair_out"
}

# simple_case DEV NAME SNS "SRV" CNS "CLI" PORT GREP: both exit 0 and the
# client printed GREP.
simple_case() {
	local dev=$1 name=$2 ok
	cm_pair "$3" "$4" "$7" "$5" "$6"
	ok=$?
	[ $ok -eq 0 ] && ! grep -q "$8" <<<"$pair_cout" && ok=1
	result "$dev" "$name" $ok "$pair_out"
}

# perf_case DEV TOOL ARGS SNS CNS SDEV CDEV ADDR [EXTRA]: perftest over
# rdma_cm; rerun (up to three runs) while TCG clock calibration gives
# all-zero figures.  On the debug kernel three all-zero runs that ended
# well pass (every iteration completed; ib_read_bw printed zeros three
# times running there): the figures are not what that kernel checks.
perf_case() {
	local dev=$1 tool=$2 args=$3 sns=$4 cns=$5 sdev=$6 cdev=$7 addr=$8
	local extra=${9:-} ok
	for _ in 1 2 3; do
		port=$((port + 1))
		cm_pair "$sns" "$tool -R -d $sdev -p $port -F $args $extra" \
			"$port" "$cns" \
			"$tool -R -d $cdev -p $port -F $args $extra $addr"
		ok=$?
		[ $ok -eq 0 ] && perf_nonzero "$pair_cout" && break
		[ $ok -eq 0 ] && ok=3
	done
	if [ $ok -eq 3 ] && debug_kernel; then
		diag "$dev $tool -R $args $addr: all-zero figures three times, exit 0 (debug kernel)"
		ok=0
	fi
	[ $ok -eq 3 ] && ok=1
	[ $ok -eq 0 ] && diag "$dev $tool -R $args $addr: $(perf_row "$pair_cout")"
	result "$dev" "$tool -R $args $extra $addr" $ok "$pair_out"
}

# tos_case DEV NAME CAPNS CAPDEV DSCP A B "SRV" "CLI" PORT SNS CNS: run the
# pair while tcpdump captures on CAPDEV in CAPNS; every packet of the
# connection (QPs other than QP1) in both directions must carry DSCP.
tos_case() {
	local dev=$1 name=$2 capns=$3 capdev=$4 dscp=$5 a=$6 b=$7
	local pcap=$work/tos.pcap tpid ok out pre=()
	[ "$capns" != - ] && pre=(ip netns exec "$capns")
	rm -f "$pcap"
	# --immediate-mode: a short connection's packets would otherwise wait
	# in a capture block that the INT below discards (seen: 245 packets
	# "received by filter", 0 captured).
	"${pre[@]}" tcpdump -Z root -U --immediate-mode -n -i "$capdev" \
		-w "$pcap" udp port 4791 >"$work/tcpdump.err" 2>&1 &
	tpid=$!
	wait_until 20 grep -q "listening on" "$work/tcpdump.err"
	cm_pair "${11}" "$8" "${10}" "${12}" "$9"
	ok=$?
	sleep 0.5
	kill -INT "$tpid" 2>/dev/null
	wait "$tpid"
	out=$(python3 "$here/tos_check.py" "$pcap" "$dscp" "$a" "$b" 2>&1) ||
		{ [ $ok -eq 0 ] && ok=1; }
	diag "$dev $name:" "$out"
	result "$dev" "$name" $ok "$pair_out" "$(cat "$work/tcpdump.err")"
}

# Client pairs of run_matrix, each run to the IPv4 and the IPv6 address:
# NAME|SERVER|CLIENT|EXPECT, both exit 0 and the client prints EXPECT; @A
# is the server's address, @P a fresh port.
SIMPLE_CASES=(
	"ucmatose -c 4 -C 100|ucmatose -b @A -p @P -c 4 -C 100|ucmatose -s @A -p @P -c 4 -C 100|data transfers complete"
	"udaddy -c 4 -C 100|udaddy -b @A -c 4 -C 100|udaddy -s @A -c 4 -C 100|data transfers complete"
	"rdma_server / rdma_client|rdma_server -s @A -p @P|rdma_client -s @A -p @P|rdma_client: end 0"
)
# perftest over rdma_cm (-R), IPv4: TOOL|ARGS.
PERF_CASES=(
	"ib_write_bw|-s 65536 -n 200"
	"ib_read_bw|-s 65536 -n 200"
	"ib_send_lat|-s 2 -n 500"
)

# run_matrix DEV SNS CNS SDEV CDEV SRV4 SRV6 CLI4 CLI6 CAPNS CAPDEV
run_matrix() {
	local dev=$1 sns=$2 cns=$3 sdev=$4 cdev=$5 s4=$6 s6=$7 c4=$8 c6=$9
	local capns=${10} capdev=${11} a b size d c p name srv cli want s cl
	case_t0=$SECONDS
	for a in "$s4" "$s6"; do
		for size in $RPING_SIZES; do
			rping_case "$dev" "$sns" "$cns" "$a" "$size"
		done
	done
	for c in "${SIMPLE_CASES[@]}"; do
		IFS='|' read -r name srv cli want <<<"$c"
		for a in "$s4" "$s6"; do
			port=$((port + 1))
			p=$port
			# udaddy has no port option: it always uses 7174.
			[[ $srv == *@P* ]] || p=7174
			s=${srv//@P/$p} s=${s//@A/$a}
			cl=${cli//@P/$p} cl=${cl//@A/$a}
			simple_case "$dev" "$name $a" "$sns" "$s" "$cns" "$cl" \
				"$p" "$want"
		done
	done
	# perftest 4.5 resolves rdma_cm addresses as IPv4 only.
	for c in "${PERF_CASES[@]}"; do
		perf_case "$dev" "${c%%|*}" "${c#*|}" "$sns" "$cns" \
			"$sdev" "$cdev" "$s4"
	done

	# default_roce_tos of the client's device (the server's side follows
	# the traffic class of the CM REQ).
	d=$CFG/$cdev
	if mkdir "$d" 2>/dev/null || [ -d "$d" ]; then
		cfg_dirs+=("$d")
		echo $TOS >"$d/ports/1/default_roce_tos"
	fi
	for a in "$s4" "$s6"; do
		port=$((port + 1))
		if [ "$a" = "$s4" ]; then b=$c4; else b=$c6; fi
		tos_case "$dev" "default_roce_tos $TOS on the wire, $a" \
			"$capns" "$capdev" $((TOS >> 2)) "$b" "$a" \
			"rping -s -a $a -p $port -C 20 -V" \
			"rping -c -a $a -p $port -C 20 -V" "$port" "$sns" "$cns"
	done
	[ -d "$d" ] && echo 0 >"$d/ports/1/default_roce_tos"
	port=$((port + 1))
	tos_case "$dev" "ucmatose -t $UCMA_TOS on the wire, $s4" \
		"$capns" "$capdev" $((UCMA_TOS >> 2)) "$c4" "$s4" \
		"ucmatose -b $s4 -p $port -c 2 -C 20" \
		"ucmatose -s $s4 -p $port -c 2 -C 20 -t $UCMA_TOS" "$port" \
		"$sns" "$cns"
}

# vpair DEV NAME SNS "SRV" CNS "CLI": a verbs client pair that meets over
# TCP on $port; perftest output (if any) is logged.  Returns 2 when
# perftest printed only zeros (TCG clock calibration failed).
vpair() {
	local dev=$1 name=$2 ok
	PAIR_PORT=$port run_pair "$PP_TMO" "$3" "$4" "$5" "$6"
	ok=$?
	if [ $ok -eq 0 ] && grep -q '^ *#bytes' <<<"$pair_cout"; then
		if ! perf_nonzero "$pair_cout"; then
			pair_out="all-zero perftest figures
$pair_out"
			ok=2
		fi
	fi
	if [ $ok -eq 0 ]; then
		diag "$dev $name: $(grep -h 'iters in' <<<"$pair_cout")$(
			perf_row "$pair_cout")"
	fi
	return $ok
}

# run_verbs DEV SNS CNS SDEV CDEV SRV4 CLI4 all|extra: the stock verbs
# clients; "extra" runs only the ones t-pingpong does not (sroce).
run_verbs() {
	local dev=$1 sns=$2 cns=$3 sdev=$4 cdev=$5 s4=$6 c4=$7 which=$8
	local gs gc t a ok pp perf
	gs=$(gid_index "$sdev" "$s4")
	gc=$(gid_index "$cdev" "$c4")
	pp=("ibv_rc_pingpong -s 4096 -n 200 -c"
		"ibv_uc_pingpong -s 4096 -n 200 -c"
		"ibv_ud_pingpong -s 512 -n 200 -c"
		"ibv_srq_pingpong -q 4 -s 4096 -n 50 -c")
	perf="ib_write_bw ib_read_bw ib_send_bw ib_atomic_bw ib_write_lat
		ib_read_lat ib_send_lat ib_atomic_lat"
	if [ "$which" = extra ]; then
		pp=()
		perf="ib_atomic_bw ib_read_lat ib_atomic_lat"
	fi
	for t in "${pp[@]}"; do
		port=$((port + 1))
		vpair "$dev" "$t" \
			"$sns" "$t -d $sdev -g $gs -p $port" \
			"$cns" "$t -d $cdev -g $gc -p $port $s4"
		result "$dev" "$t" $? "$pair_out"
	done
	for t in $perf; do
		case $t in
		ib_atomic_*) a="-n 200" ;;
		*_lat) a="-s 2 -n 200" ;;
		*) a="-s 65536 -n 100" ;;
		esac
		# rerun while TCG clock calibration gives all-zero figures
		for _ in 1 2 3; do
			port=$((port + 1))
			vpair "$dev" "$t $a" \
				"$sns" "$t -d $sdev -x $gs -p $port -F $a" \
				"$cns" "$t -d $cdev -x $gc -p $port -F $a $s4"
			ok=$?
			[ $ok -eq 2 ] || break
		done
		result "$dev" "$t $a" $ok "$pair_out"
	done
}

if ! ktap_check "load sroce.ko and rdma_ucm" \
	eval 'load_sroce && modprobe rdma_ucm' ||
	! ktap_check "two namespaces with sroce1 and sroce2" make_two_ns; then
	ktap_skip_rest "no topology"
	ktap_done
fi
ktap_check "IPv6 GIDs on sroce1 and sroce2" \
	eval 'wait_gid sroce1 fd00::1 && wait_gid sroce2 fd00::2'
if ! [ -d $CFG ]; then
	mountpoint -q /sys/kernel/config ||
		mount -t configfs configfs /sys/kernel/config
fi

run_matrix sroce ns2 ns1 sroce2 sroce1 10.11.0.2 fd00::2 10.11.0.1 fd00::1 \
	ns1 v1
run_verbs sroce ns2 ns1 sroce2 sroce1 10.11.0.2 10.11.0.1 extra

if [ "$RXE" != 1 ]; then
	:
elif ktap_check "rxe1 and rxe2 on r1/r2 in init_net" make_rxe_pair; then
	run_matrix rxe - - rxe2 rxe1 10.13.0.2 fd02::2 10.13.0.1 fd02::1 \
		- r1
	run_verbs rxe - - rxe2 rxe1 10.13.0.2 10.13.0.1 all
else
	while [ "$ktap_n" -lt "$ktap_plan" ]; do
		ktap_skip "rxe: not run" "no rdma_rxe pair"
	done
fi

ktap_done
