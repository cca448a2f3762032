#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-pktfuzz.sh - a seeded packet fuzzer and a remote flood against live
# sroce QPs (pkt_fuzz.py, target tests/datapath/dp_fuzzt).
#
#   fuzz:  SROCE_FZ_SECS (default 60) seconds of crafted RoCE v2 packets with a
#          correct ICRC, every header field, length, pad count, PSN, QPN,
#          rkey, VA and opcode sequence mutated, at RC, SRQ, UC, UD and
#          multicast QPs of sroce_fz1, from the peer's address and from a
#          third namespace's; SROCE_FZ_SEED (default: from the clock,
#          printed; the same seed sends the same packets).
#   gsi:   UD packets to QP1 that ib_core's MAD layer cannot take (an
#          unknown base version: it logs each; longer than a MAD: it never
#          reposts a receive that completed in error; shorter: it would
#          answer with the rest of an earlier MAD) are dropped, counted.
#   flood: SROCE_FZ_FLOOD_SECS (default 20) seconds of READ requests and
#          out-of-window packets at SROCE_FZ_FLOOD_NRC (default 128) RC
#          QPs; the packets queued must stay under SROCE_FZ_BOUND_MB
#          (default 2) MiB, written to rx_queue_max_bytes of both devices
#          when they have it.
#
# e.g. SROCE_FZ_SEED=42 SROCE_FZ_SECS=600 tests/integration/run.sh t-pktfuzz
#
# Topology: a bridge in init_net and three namespaces on it:
#
#   fz1 10.14.0.1 sroce_fz1 (the target)   fz2 10.14.0.2 sroce_fz2 (peer,
#   runs pkt_fuzz.py)   fz3 10.14.0.3 (no RDMA device: the third party)

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
top=$(cd "$here/../.." && pwd -P)
target=$top/build/datapath/dp_fuzzt
br=brfz

fz_down() {
	local h
	for h in fz1 fz2; do
		rdma link delete sroce_$h >/dev/null 2>&1
	done
	for h in fz1 fz2 fz3; do
		ip netns del $h >/dev/null 2>&1
	done
	ip link del $br >/dev/null 2>&1
}

fz_up() {
	local i
	ip link add $br type bridge mcast_snooping 0 &&
		ip link set $br up || return 1
	for i in 1 2 3; do
		ip netns add fz$i && ip -n fz$i link set lo up &&
			ip link add fz$i-br type veth peer name eth0 netns fz$i &&
			ip link set fz$i-br master $br up &&
			ip -n fz$i addr add 10.14.0.$i/24 dev eth0 &&
			ip -n fz$i link set eth0 up &&
			ip -n fz$i route add 224.0.0.0/4 dev eth0 || return 1
	done
	for i in 1 2; do
		add_link sroce_fz$i sroce eth0 fz$i || return 1
	done
	wait_gid sroce_fz1 10.14.0.1 && wait_gid sroce_fz2 10.14.0.2
}

seed=${SROCE_FZ_SEED:-$(date +%s)}
secs=${SROCE_FZ_SECS:-60}
fsecs=${SROCE_FZ_FLOOD_SECS:-20}
fnrc=${SROCE_FZ_FLOOD_NRC:-128}
sysd=/run/sroce-fz-dev
py() {
	PYTHONPATH="$here" PYTHONDONTWRITEBYTECODE=1 python3 "$here/pkt_fuzz.py" "$@"
}

ktap_begin $(($(py plan gsi 0) + $(py plan fuzz 4) + $(py plan flood "$fnrc"))) \
	"packet fuzzer and flood (seed $seed)"
if [ ! -x "$target" ] || [ ! -x "$top/build/datapath/dp_blast" ]; then
	ktap_fail "dp_fuzzt, dp_blast" \
		"build tests/datapath first (make -C tests/datapath)"
	ktap_done
fi
if ! load_sroce >/dev/null 2>&1 || ! fz_up; then
	ktap_fail "topology" "load_sroce or the bridge topology failed"
	fz_down
	ktap_done
fi
# ip netns exec remounts /sys for fz2: keep init_net's view of sroce_fz1.
mkdir -p "$sysd" && mount --bind /sys/class/infiniband/sroce_fz1 "$sysd"
# One packet per skb on the wire (as t-resp.sh).
echo off >/sys/class/infiniband/sroce_fz1/tx_batch
echo off >/sys/class/infiniband/sroce_fz2/tx_batch
# The flood's READ responses queue on sroce_fz2: the same bound there, so
# the memory the flood may take is known (pkt_fuzz.py's memory check).
echo $((${SROCE_FZ_BOUND_MB:-2} << 20)) \
	>/sys/class/infiniband/sroce_fz2/rx_queue_max_bytes

# fz_run MODE SECS NRC: pkt_fuzz.py in fz2; its results count here.
fz_run() {
	local line
	ip netns exec fz2 env PYTHONPATH="$here" PYTHONDONTWRITEBYTECODE=1 \
		SROCE_HWC="$sysd/ports/1/hw_counters" FZ_SYSFS="$sysd" \
		FZ_BOUND_MB="${SROCE_FZ_BOUND_MB:-2}" FZ_TARGET="$target" \
		FZ_PEER_BOUND="$(cat /sys/class/infiniband/sroce_fz2/rx_queue_max_bytes)" \
		FZ_BLAST="$top/build/datapath/dp_blast" FZ_NS3=/run/netns/fz3 \
		FZ_NRC="$3" FZ_BASE="$ktap_n" \
		FZ_GIDX="$(gid_index sroce_fz1 10.14.0.1)" \
		FZ_PGIDX="$(gid_index sroce_fz2 10.14.0.2)" \
		python3 "$here/pkt_fuzz.py" "$1" "$seed" "$2" 2>&1 |
		while IFS= read -r line; do
			echo "$line"
			case $line in
			"not ok "*) echo fail ;;
			"ok "*) echo pass ;;
			esac >&3
		done 3>"$tally"
	while read -r line; do
		ktap_n=$((ktap_n + 1))
		if [ "$line" = pass ]; then
			ktap_npass=$((ktap_npass + 1))
		else
			ktap_nfail=$((ktap_nfail + 1))
		fi
	done <"$tally"
}

tally=$(mktemp)
fz_run gsi 0 2
fz_run fuzz "$secs" 4
fz_run flood "$fsecs" "$fnrc"
rm -f "$tally"
umount "$sysd"
fz_down
ktap_done
