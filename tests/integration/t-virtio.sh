#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-virtio.sh - sroce over a real NIC driver: the guest's two virtio-net
# NICs joined back to back (tests/vm/vm-run --nic-pair), one in each of two
# namespaces.  Checked: pingpongs of every QP type with --chk, perftest
# WRITE/READ/SEND, and rdma_rxe (init_net, first NIC) against sroce
# (second NIC), both ways byte-exact.  Logged, for comparison in the same
# boot: ib_write_bw of 1 MiB sroce-sroce and rxe-sroce with the
# retransmissions it took, and TCP over the same NICs (qperf tcp_bw).
#
# Without two virtio-net NICs (the main guest of `make check` has none)
# every case after the first is skipped; scripts/check.sh boots a guest
# with --nic-pair hub for this file.
#
#   ns1: sroce1 on nic A (10.15.0.1)  ==virtio/QEMU==  nic B (10.15.0.2)
#        sroce2 :ns2
#   rxe part: nic A back in init_net with rxe0, sroce2 stays on nic B.

here=$(dirname "${BASH_SOURCE[0]}")
. "$here/lib.sh"
. "$here/dp-lib.sh"

TMO=${VIRTIO_TIMEOUT:-120}

ktap_begin 16 "sroce over two virtio-net NICs"

cleanup() {
	rdma link delete rxe0 >/dev/null 2>&1
	rdma link delete sroce1 >/dev/null 2>&1
	rdma link delete sroce2 >/dev/null 2>&1
	modprobe -r rdma_rxe >/dev/null 2>&1
	ip netns del ns1 >/dev/null 2>&1
	ip netns del ns2 >/dev/null 2>&1
}
trap cleanup EXIT

modprobe virtio_net 2>/dev/null
wait_until 10 test -n "$(virtio_nics | sed -n 2p)"
read -ra nics <<<"$(virtio_nics | tr "\n" " ")"
if ! ktap_check "load sroce.ko" load_sroce; then
	ktap_skip_rest "no module"
	ktap_done
fi
if [ ${#nics[@]} -lt 2 ]; then
	ktap_skip "two virtio-net NICs" "this guest has ${#nics[@]}" \
		"(tests/vm/vm-run --nic-pair)"
	ktap_skip_rest "no virtio-net pair"
	ktap_done
fi
ktap_pass "two virtio-net NICs"
nic_a=${nics[0]} nic_b=${nics[1]}
diag "NICs: $nic_a $nic_b; offloads of $nic_a:" \
	"$(ethtool -k "$nic_a" 2>/dev/null | grep -E \
		'^(scatter-gather|tx-checksumming|generic-segmentation|generic-receive)' |
		tr -s ' \n' ' ')"

# nic_to NIC NS ADDR: NIC into namespace NS (- for init_net), addressed.
nic_to() {
	local pre=()
	if [ "$2" = - ]; then
		ip -n ns1 link set "$1" netns 1 || return 1
	else
		ip link set "$1" netns "$2" || return 1
		pre=(-n "$2")
	fi
	ip "${pre[@]}" addr flush dev "$1" &&
		ip "${pre[@]}" addr add "$3/24" dev "$1" &&
		ip "${pre[@]}" link set "$1" up
}

topo() {
	ip netns add ns1 && ip netns add ns2 &&
		ip -n ns1 link set lo up && ip -n ns2 link set lo up &&
		nic_to "$nic_a" ns1 10.15.0.1 && nic_to "$nic_b" ns2 10.15.0.2 &&
		add_link sroce1 sroce "$nic_a" ns1 &&
		add_link sroce2 sroce "$nic_b" ns2 &&
		wait_gid sroce1 10.15.0.1 && wait_gid sroce2 10.15.0.2
}
if ! ktap_check "namespaces with sroce1 on $nic_a and sroce2 on $nic_b" \
	topo; then
	ktap_skip_rest "no topology"
	ktap_done
fi
g1=$(gid_index sroce1 10.15.0.1)
g2=$(gid_index sroce2 10.15.0.2)
port=18700

# pair NAME SNS "SRV" CNS "CLI": one client/server run as a test case.
pair() {
	local name=$1
	shift
	port=$((port + 1))
	if PAIR_PORT=$port run_pair "$TMO" "$1" "${2//@P@/$port}" \
		"$3" "${4//@P@/$port}"; then
		ktap_pass "$name"
	else
		ktap_fail "$name" "$(tail -n 20 <<<"$pair_out")"
	fi
}

# pp TOOL SIZE ITERS [EXTRA]: a pingpong sroce1 -> sroce2 with --chk.
pp() {
	pair "$1 -s $2 --chk" \
		ns2 "$1 -d sroce2 -g $g2 -p @P@ -s $2 -n $3 -c ${4:-}" \
		ns1 "$1 -d sroce1 -g $g1 -p @P@ -s $2 -n $3 -c ${4:-} 10.15.0.2"
}
pp ibv_rc_pingpong 1 200
pp ibv_rc_pingpong 65536 50
pp ibv_rc_pingpong 1048576 5
pp ibv_uc_pingpong 4096 100
pp ibv_ud_pingpong 1024 100
pp ibv_srq_pingpong 4096 20 "-q 4"

# bw TOOL SRV_DEV SRV_GID SRV_NS CLI_DEV CLI_GID CLI_NS ADDR: perftest
# with 1 MiB messages (BW_SIZE bytes when set); logs the row and the
# requester's retransmissions.  Rerun once when TCG clock calibration
# makes it print all-zero results, then passed if the sroce device that
# received the data counted both runs' bytes (perf_counted; on the debug
# kernel perftest's calibration failed twice in a row even on a quiet
# host).
bw() {
	local tool=$1 size=${BW_SIZE:-1048576} r0 r1 ctr=req_retransmits
	local rx=$2
	[[ $5 == rxe* ]] && ctr=completer_retry_err
	[ "$tool" = ib_read_bw ] && rx=$5
	r0=$(hw_counter "$5" $ctr)
	if perf_counted "$rx" rcvd_bytes $((size * 20)) "$TMO" "$4" \
		"$tool -d $2 -x $3 -p @PORT@ -F -s $size -n 20" \
		"$7" "$tool -d $5 -x $6 -p @PORT@ -F -s $size -n 20 $8"; then
		r1=$(hw_counter "$5" $ctr)
		diag "$tool 1 MiB $5 -> $2: $perf_note" \
			"($ctr of $5: +$((r1 - r0)))"
		ktap_pass "$tool 1 MiB, $5 -> $2"
	else
		ktap_fail "$tool 1 MiB, $5 -> $2" "$(tail -n 20 <<<"$pair_out")"
	fi
}
for t in ib_write_bw ib_read_bw ib_send_bw; do
	bw $t sroce2 "$g2" ns2 sroce1 "$g1" ns1 10.15.0.2
done

# The NICs themselves, for the comparison: TCP through the same path.
PAIR_PORT=19765 run_pair 30 ns2 "qperf -lp 19765" \
	ns1 "qperf -lp 19765 -t 3 10.15.0.2 tcp_bw; qperf -lp 19765 10.15.0.2 quit" ||
	true
diag "TCP over the same NICs: $(grep -h bw <<<"$pair_cout" | tr -s ' ')"

# rdma_rxe on nic A in init_net (where rxe works) against sroce2.
rxe_up() {
	rdma link delete sroce1 && wait_until 10 dev_gone sroce1 &&
		nic_to "$nic_a" - 10.15.0.1 && modprobe rdma_rxe &&
		add_link rxe0 rxe "$nic_a" && wait_gid rxe0 10.15.0.1 20
}
if ! ktap_check "rdma_rxe on $nic_a (init_net)" rxe_up; then
	ktap_skip_rest "no rxe"
	ktap_done
fi
gr=$(gid_index rxe0 10.15.0.1)
# On the debug kernel 1 MiB less a page: 6.1's rdma_rxe reads past its
# page map when a copy ends at the end of a full 256-page map (KASAN;
# t-interop.sh has the details).
big=1048576
debug_kernel && big=$((1048576 - 4096))
pair "ibv_rc_pingpong 1 MiB --chk, rxe0 -> sroce2" \
	ns2 "ibv_rc_pingpong -d sroce2 -g $g2 -p @P@ -s $big -n 5 -c" \
	- "ibv_rc_pingpong -d rxe0 -g $gr -p @P@ -s $big -n 5 -c 10.15.0.2"
pair "ibv_rc_pingpong 1 MiB --chk, sroce2 -> rxe0" \
	- "ibv_rc_pingpong -d rxe0 -g $gr -p @P@ -s $big -n 5 -c" \
	ns2 "ibv_rc_pingpong -d sroce2 -g $g2 -p @P@ -s $big -n 5 -c 10.15.0.1"
BW_SIZE=$big bw ib_write_bw sroce2 "$g2" ns2 rxe0 "$gr" - 10.15.0.2

ktap_done
