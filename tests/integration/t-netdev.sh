#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-netdev.sh - the sroce device follows its netdev: carrier/admin state,
# MTU, and removal of the netdev (also while a process holds the device).
#
# Topology: make_two_ns (see lib.sh): sroce1 on v1 in ns1, sroce2 on v2.

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ktap_begin 15 "sroce device follows its netdev"

two_ns_start

# expect_state DEV RDMA_STATE DEVINFO_STATE: wait for rdma link to show
# the state, then check ibv_devinfo's port state agrees.
expect_state() {
	local name="$1 port $2" s d
	wait_until 10 state_is "$1" "$2"
	s=$(port_state "$1")
	d=$(devinfo_field "$1" state)
	ktap_result "$name" \
		"$([ "$s" = "$2" ] && [ "${d%% *}" = "$3" ]; echo $?)" \
		"rdma link: '$s', ibv_devinfo state: '$d'"
}

state_is() {
	[ "$(port_state "$1")" = "$2" ]
}

expect_state sroce1 ACTIVE PORT_ACTIVE
ip -n ns1 link set v1 down
expect_state sroce1 DOWN PORT_DOWN
ip -n ns1 link set v1 up
expect_state sroce1 ACTIVE PORT_ACTIVE
# Carrier loss on the peer side also takes the port down.
ip -n ns2 link set v2 down
expect_state sroce1 DOWN PORT_DOWN
ip -n ns2 link set v2 up
expect_state sroce1 ACTIVE PORT_ACTIVE

# --- MTU -------------------------------------------------------------------------

# expect_mtu NETDEV_MTU IB_MTU: active_mtu is the largest IB MTU whose
# packets (with RoCE v2 headers) fit into the netdev MTU.
expect_mtu() {
	local m
	ip -n ns1 link set v1 mtu "$1"
	wait_until 5 mtu_is "$2"
	m=$(devinfo_field sroce1 active_mtu)
	ktap_result "netdev MTU $1 -> active_mtu $2" \
		"$([ "${m%% *}" = "$2" ]; echo $?)" "active_mtu: '$m'"
}

mtu_is() {
	local m
	m=$(devinfo_field sroce1 active_mtu)
	[ "${m%% *}" = "$1" ]
}

expect_mtu 9000 4096
expect_mtu 1100 512
expect_mtu 1500 1024

# --- netdev removal ----------------------------------------------------------------

ip -n ns2 link del v2	# deletes both ends of the pair
ok=1
wait_until 10 dev_gone sroce1 && wait_until 10 dev_gone sroce2 && ok=0
ktap_result "deleting the veth removes sroce1 and sroce2" $ok \
	"devices left: $(ls /sys/class/infiniband)"

# Again, with a process holding sroce1 open (context, PD, CQ).
ip link add v1 netns ns1 type veth peer name v2 netns ns2 &&
	ip -n ns1 addr add 10.11.0.1/24 dev v1 && ip -n ns1 link set v1 up &&
	ip -n ns2 link set v2 up && add_link sroce1 sroce v1 ns1
holder_out=$(mktemp)
ip netns exec ns1 /usr/bin/python3 "$SROCE_TOP/tests/integration/hold-device.py" \
	sroce1 60 >"$holder_out" 2>&1 &
holder=$!
if ! wait_until 30 grep -q '^ready' "$holder_out"; then
	diag "holder did not get ready:" "$(cat "$holder_out")"
	kill "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
	ktap_skip_rest "no process could open sroce1"
	ktap_done
fi

t0=$SECONDS
timeout 60 ip -n ns1 link del v1 &
deleter=$!
ok=1
wait_until 20 dev_gone sroce1 && ok=0
ktap_result "netdev removal with the device open removes it" $ok \
	"after $((SECONDS - t0)) s sroce1 still exists (driver without" \
	"disassociate_ucontext waits for the process to close)"

# The holder must get IBV_EVENT_DEVICE_FATAL and be able to close.
wait_until 30 proc_gone "$holder"
hst=0
if kill -0 "$holder" 2>/dev/null; then
	kill "$holder" 2>/dev/null
	hst=1
fi
wait "$holder" 2>/dev/null
diag "holder output:" "$(cat "$holder_out")"
ktap_result "process gets IBV_EVENT_DEVICE_FATAL" \
	"$(grep -q '^event .* DEVICE_FATAL' "$holder_out"; echo $?)"
ktap_result "process closes its objects and exits (no hang)" \
	"$([ $hst = 0 ] && grep -q '^closed' "$holder_out"; echo $?)"
wait "$deleter"
ktap_result "ip link del returns" $? "ip link del v1 hung or failed"
rm -f "$holder_out"

ktap_done
