#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh - `make demo`: show sroce at work in a guest.  Builds the
# two-namespace topology of tests/integration/lib.sh and walks through what
# an operator would look at.  Started on the host it boots a guest itself.
#
#   ns1: sroce1 on v1 (10.11.0.1) ==veth== v2 (10.11.0.2) sroce2 :ns2

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
if [ -z "${SROCE_VM:-}" ]; then
	exec "$here/vm/vm-run" --timeout 600 -- "$here/demo.sh" "$@"
fi

. "$here/integration/lib.sh"

step() {
	printf '\n=== %s\n' "$*"
}

run() {
	printf '$ %s\n' "$*"
	"$@"
}

step "Load the sroce module (and ib_core, ib_uverbs, udp_tunnel it needs)"
load_sroce || { echo "demo: cannot load $SROCE_KO (make kernel?)"; exit 1; }
echo '$ lsmod'
lsmod | grep -E '^(sroce|ib_core|ib_uverbs) '

step "Two network namespaces joined by a veth pair, one sroce device on each end"
echo "  ns1: v1 10.11.0.1/24 fd00::1/64  <== veth ==>  ns2: v2 10.11.0.2/24 fd00::2/64"
make_two_ns --no-rdma || exit 1
echo "rdma link add runs in the namespace that holds the netdev:"
run ip netns exec ns1 rdma link add sroce1 type sroce netdev v1 || exit 1
run ip netns exec ns2 rdma link add sroce2 type sroce netdev v2 || exit 1
wait_gid sroce1 10.11.0.1
wait_gid sroce2 10.11.0.2

step "The RDMA links, as seen from each namespace (netdev shown where it lives)"
run ip netns exec ns1 rdma link
run ip netns exec ns2 rdma link

step "libibverbs finds them through the sroce provider"
echo "RDMAV_DRIVERS=$RDMAV_DRIVERS"
run ibv_devices

step "Port attributes and the RoCE v2 GIDs derived from v1's addresses"
run ibv_devinfo -v -d sroce1 | grep -E 'hca_id|transport|node_guid|max_qp:|port:|state|mtu|link_layer|GID'

step "The GID table in sysfs (IPv4 addresses are IPv4-mapped)"
list_gids sroce1

step "One UDP 4791 socket per namespace that has a device; none in init_net"
for ns in ns1 ns2; do
	echo "[$ns]"
	run ip netns exec $ns ss -uln
done
echo "[init_net]"
run ss -uln

step "RDMA traffic between the namespaces: ibv_rc_pingpong (RC SEND, 4 KiB x 500)"
g1=$(gid_index sroce1 10.11.0.1)
g2=$(gid_index sroce2 10.11.0.2)
ip netns exec ns2 timeout 60 ibv_rc_pingpong -d sroce2 -g "$g2" -s 4096 -n 500 --chk \
	>/tmp/demo-srv.log 2>&1 &
# ibv_rc_pingpong's server listens on TCP 18515 (0x4853) once it is ready.
wait_until 20 eval 'ip netns exec ns2 grep -q ":4853 00000000:0000 0A" /proc/net/tcp'
run ip netns exec ns1 timeout 60 ibv_rc_pingpong -d sroce1 -g "$g1" -s 4096 -n 500 --chk 10.11.0.2
wait

step "ib_write_bw (perftest, RDMA WRITE, 64 KiB messages)"
ip netns exec ns2 timeout 120 ib_write_bw -d sroce2 -x "$g2" -F -s 65536 -n 1000 \
	>/tmp/demo-srv.log 2>&1 &
# perftest's server listens on TCP 18515 (0x4853) once it is ready.
wait_until 20 eval 'ip netns exec ns2 grep -q ":4853 00000000:0000 0A" /proc/net/tcp'
run ip netns exec ns1 timeout 120 ib_write_bw -d sroce1 -x "$g1" -F -s 65536 -n 1000 10.11.0.2
wait

step "Counters (rdma statistic; mlx5 names where one exists)"
run rdma statistic show link sroce1/1
run rdma statistic show link sroce2/1

step "Link state follows the netdev"
run ip -n ns1 link set v1 down
wait_until 5 eval '[ "$(port_state sroce1)" = DOWN ]'
run rdma link show sroce1/1
run ip -n ns1 link set v1 up
wait_until 5 eval '[ "$(port_state sroce1)" = ACTIVE ]'
run rdma link show sroce1/1

step "Removing the netdev removes the device"
run ip -n ns2 link del v2
wait_until 10 dev_gone sroce1
run rdma link
topo_reset
unload_sroce
echo
echo "demo: done"
