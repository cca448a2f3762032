#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-netns.sh - sroce is namespace-aware: each namespace with a device has
# its own UDP 4791 socket, init_net has none, and rdma_rxe can own 4791 in
# init_net at the same time.
#
# Topology: make_two_ns + make_init_veth (see lib.sh):
#
#   ns1: sroce1 on v1 ==veth== v2 sroce2 :ns2
#   init_net: rxe0 on i1 ==veth== i2 :ns3

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ktap_begin 16 "sroce devices in network namespaces"

two_ns_start

# ss_4791 NS: does `ss -uln` in NS list a socket on port 4791?
ss_4791() {
	ip netns exec "$1" ss -Huln 2>/dev/null | grep -q ':4791\b'
}

ss_no_4791() {
	! ss_4791 "$1"
}

ktap_result "ns1 has a UDP 4791 socket (ss -uln)" "$(ss_4791 ns1; echo $?)" \
	"$(ip netns exec ns1 ss -uln 2>&1)"
ktap_result "ns2 has a UDP 4791 socket (ss -uln)" "$(ss_4791 ns2; echo $?)" \
	"$(ip netns exec ns2 ss -uln 2>&1)"
out=$(udp4791_in)
ktap_result "init_net has no UDP 4791 socket" "$([ -z "$out" ]; echo $?)" \
	"$out"
ktap_result "sroce1 is bound to v1 of ns1" \
	"$(ip netns exec ns1 rdma link show sroce1/1 | grep -q 'netdev v1'
		echo $?)" "$(ip netns exec ns1 rdma link show 2>&1)"

# --- rdma_rxe next to sroce ----------------------------------------------------

if ! ktap_check "veth in init_net" make_init_veth ||
	! ktap_check "modprobe rdma_rxe" modprobe rdma_rxe; then
	ktap_skip_rest "no rxe"
	ktap_done
fi
ktap_check "rdma link add rxe0 type rxe netdev i1 (init_net)" \
	add_link rxe0 rxe i1
wait_gid rxe0 10.12.0.1
ktap_result "rxe0, sroce1 and sroce2 all present" \
	"$(dev_exists rxe0 && dev_exists sroce1 && dev_exists sroce2
		echo $?)" "$(rdma dev 2>&1)"
for d in rxe0 sroce1; do
	s=$(devinfo_field $d state)
	ktap_result "ibv_devinfo -d $d: PORT_ACTIVE" \
		"$([ "${s%% *}" = PORT_ACTIVE ]; echo $?)" \
		"$(ibv_devinfo -d $d 2>&1)"
done
ktap_result "sockets stay per namespace with rxe in init_net" \
	"$(ss_4791 ns1 && ss_4791 ns2; echo $?)"

# --- lifetime of the per-namespace socket ------------------------------------------

del_link sroce1
ok=1
wait_until 10 ss_no_4791 ns1 && ok=0
ktap_result "ns1's 4791 socket closes with its last device" $ok \
	"$(ip netns exec ns1 ss -uln 2>&1)"
ktap_result "ns2's socket stays while sroce2 lives" "$(ss_4791 ns2; echo $?)"

# Deleting the namespace destroys v2 (and its peer v1) and with it sroce2.
ip netns del ns2
ok=1
wait_until 20 dev_gone sroce2 && ok=0
ktap_result "ip netns del ns2 removes sroce2" $ok \
	"devices: $(ls /sys/class/infiniband)"

ktap_done
