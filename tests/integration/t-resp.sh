#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-resp.sh - the receive path (recv.c) and the responder (resp.c,
# resp_rd.c) of sroce against a requester played by hand: resp_wire.py
# crafts RoCE v2 packets (raw IPv4 socket, ICRC computed in Python) and
# reads sroce1's answers off the wire (AF_PACKET).
#
# Topology: make_two_ns (see lib.sh); the test runs in ns2 and uses the
# verbs objects of sroce1 (ns1):
#
#   ns1: sroce1 on v1 10.11.0.1 ==veth== v2 10.11.0.2 resp_wire.py :ns2

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)

if ! load_sroce >/dev/null 2>&1 || ! make_two_ns >/dev/null 2>&1; then
	ktap_begin 1 "sroce responder on the wire"
	ktap_fail "topology" "load_sroce or make_two_ns failed"
	ktap_done
fi
idx=$(gid_index sroce1 10.11.0.1)
# Packet by packet on the wire: a batch (tx_batch) is one GSO skb where
# AF_PACKET on the veth looks, and is split only by the receiving stack.
echo off >/sys/class/infiniband/sroce1/tx_batch
# ip netns exec remounts /sys for ns2: keep init_net's view of the counters.
hwc=/run/sroce-resp-hwc
mkdir -p "$hwc" && mount --bind /sys/class/infiniband/sroce1/ports/1/hw_counters "$hwc"
ip netns exec ns2 env PYTHONPATH="$here" PYTHONDONTWRITEBYTECODE=1 \
	SROCE_HWC="$hwc" python3 "$here/resp_wire.py" "$idx"
rc=$?
umount "$hwc"
exit $rc
