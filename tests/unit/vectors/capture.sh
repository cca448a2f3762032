#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# capture.sh - regenerate rxe.txt: ICRC test vectors from packets that the
# kernel's rdma_rxe really sent.
#
#   tests/unit/vectors/capture.sh   (on the host: boots a guest, ~5 min TCG)
#
# In the guest (--guest): two rxe devices on the two ends of a veth pair,
# with policy routing so traffic between the two local addresses leaves
# through the veth instead of lo (rxe short-circuits same-address loopback,
# so a single device would put nothing on the wire).  Then RC and UD
# pingpong over an IPv4 GID and RC pingpong over an IPv6 GID, plus RDMA
# READ and WRITE, all captured on veth0.  pcap2vec.py picks a few packets
# of each kind and writes them as hex.
#
#        rxe0                                   rxe1
#   veth0 10.9.0.1 fd00::1  <=== veth ===>  veth1 10.9.0.2 fd00::2
#            ^ tcpdump
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
top=$(cd "$here/../../.." && pwd -P)

gid_index() { # dev, address prefix of the GID (as in sysfs), type
	local dev=$1 want=$2 type=$3 f i
	for f in /sys/class/infiniband/"$dev"/ports/1/gids/*; do
		i=${f##*/}
		[[ $(cat "$f" 2>/dev/null) == "$want"* ]] || continue
		[[ $(cat /sys/class/infiniband/"$dev"/ports/1/gid_attrs/types/"$i" \
			2>/dev/null) == "$type" ]] || continue
		echo "$i"
		return 0
	done
	return 1
}

wait_gid() { # dev, prefix
	for _ in $(seq 100); do
		gid_index "$1" "$2" "RoCE v2" >/dev/null && return 0
		sleep 0.1
	done
	echo "capture: no GID $2 on $1" >&2
	return 1
}

# Wait until a server listens on TCP port 18515 (0x4853), the default of
# both the pingpong examples and perftest.
wait_listen() {
	local f l
	for _ in $(seq 200); do
		for f in /proc/net/tcp /proc/net/tcp6; do
			while read -r l; do
				[[ $l == *:4853\ *\ 0A\ * ]] && return 0
			done <"$f"
		done
		sleep 0.1
	done
	echo "capture: no server listening" >&2
	return 1
}

pingpong() { # tool, gid idx rxe1, gid idx rxe0, extra args
	local tool=$1 g1=$2 g0=$3
	shift 3
	timeout 60 "$tool" -d rxe1 -g "$g1" -n 2 -s 64 "$@" &
	local srv=$!
	wait_listen
	timeout 60 "$tool" -d rxe0 -g "$g0" -n 2 -s 64 "$@" localhost
	wait "$srv"
}

perf() { # tool, gid idx rxe1, gid idx rxe0
	local tool=$1 g1=$2 g0=$3
	timeout 60 "$tool" -d rxe1 -x "$g1" -n 5 -s 64 &
	local srv=$!
	wait_listen
	timeout 60 "$tool" -d rxe0 -x "$g0" -n 5 -s 64 localhost || true
	wait "$srv" || true
}

guest() {
	local out=$SROCE_RESULTS
	modprobe rdma_rxe
	modprobe veth
	ip link add veth0 type veth peer name veth1
	ip addr add 10.9.0.1/24 dev veth0
	ip addr add 10.9.0.2/24 dev veth1
	ip -6 addr add fd00::1/64 dev veth0 nodad
	ip -6 addr add fd00::2/64 dev veth1 nodad
	ip link set veth0 up
	ip link set veth1 up
	sysctl -qw net.ipv4.conf.all.accept_local=1 \
		net.ipv4.conf.all.rp_filter=0 \
		net.ipv4.conf.veth0.accept_local=1 \
		net.ipv4.conf.veth1.accept_local=1 \
		net.ipv4.conf.veth0.rp_filter=0 net.ipv4.conf.veth1.rp_filter=0
	local m0 m1
	m0=$(cat /sys/class/net/veth0/address)
	m1=$(cat /sys/class/net/veth1/address)
	ip neigh replace 10.9.0.2 lladdr "$m1" dev veth0 nud permanent
	ip neigh replace 10.9.0.1 lladdr "$m0" dev veth1 nud permanent
	ip -6 neigh replace fd00::2 lladdr "$m1" dev veth0 nud permanent
	ip -6 neigh replace fd00::1 lladdr "$m0" dev veth1 nud permanent
	ip rule add pref 100 iif lo to 10.9.0.2 lookup 100
	ip rule add pref 100 iif lo to 10.9.0.1 lookup 101
	ip route add 10.9.0.2/32 dev veth0 src 10.9.0.1 table 100
	ip route add 10.9.0.1/32 dev veth1 src 10.9.0.2 table 101
	ip rule add pref 200 lookup local
	ip rule del pref 0
	ip -6 rule add pref 100 iif lo to fd00::2 lookup 100
	ip -6 rule add pref 100 iif lo to fd00::1 lookup 101
	ip -6 route add fd00::2/128 dev veth0 src fd00::1 table 100
	ip -6 route add fd00::1/128 dev veth1 src fd00::2 table 101
	ip -6 rule add pref 200 lookup local
	ip -6 rule del pref 0

	rdma link add rxe0 type rxe netdev veth0
	rdma link add rxe1 type rxe netdev veth1
	wait_gid rxe0 0000:0000:0000:0000:0000:ffff:0a09:0001
	wait_gid rxe1 0000:0000:0000:0000:0000:ffff:0a09:0002
	wait_gid rxe0 fd00:0000:0000:0000:0000:0000:0000:0001
	wait_gid rxe1 fd00:0000:0000:0000:0000:0000:0000:0002
	local v4_0 v4_1 v6_0 v6_1
	v4_0=$(gid_index rxe0 0000:0000:0000:0000:0000:ffff:0a09 "RoCE v2")
	v4_1=$(gid_index rxe1 0000:0000:0000:0000:0000:ffff:0a09 "RoCE v2")
	v6_0=$(gid_index rxe0 fd00: "RoCE v2")
	v6_1=$(gid_index rxe1 fd00: "RoCE v2")
	echo "capture: IPv4 GIDs $v4_0/$v4_1, IPv6 GIDs $v6_0/$v6_1"

	tcpdump -Z root -U -i veth0 -w "$out/rxe.pcap" udp port 4791 &
	local td=$!
	sleep 2
	pingpong ibv_rc_pingpong "$v4_1" "$v4_0"
	pingpong ibv_ud_pingpong "$v4_1" "$v4_0"
	pingpong ibv_rc_pingpong "$v6_1" "$v6_0"
	perf ib_write_lat "$v4_1" "$v4_0"
	perf ib_read_lat "$v4_1" "$v4_0"
	sleep 1
	kill -INT "$td"
	wait "$td" || true
}

if [ "${1:-}" = --guest ]; then
	guest
	exit 0
fi

res=$top/build/capture
rm -rf "$res"
mkdir -p "$res"
"$top/tests/vm/vm-run" --timeout 600 --results "$res" -- \
	"$here/capture.sh" --guest
python3 "$here/pcap2vec.py" "$res/rxe.pcap" >"$here/rxe.txt"
echo "capture: wrote $here/rxe.txt ($(grep -vc '^#' "$here/rxe.txt") vectors)"
