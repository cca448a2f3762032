#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-peer.sh - a QP talks only to its peer: CNPs (reaction point), CE marks
# (notification point), requests and responses of RC/UC QPs are accepted
# only from the QP's destination to its source GID, an AETH with a reserved
# NAK code is dropped.  peer_wire.py plays both the peer (ns2, 10.11.0.2)
# and an attacker on the same segment (ns3, 10.11.0.3, a macvlan of v2)
# with crafted packets, and owns the verbs objects of sroce1.  It pauses
# sroce1's requester with PFC frames on v2 (the pfc_* knobs it sets and
# restores).
#
#   ns1: sroce1 on v1 10.11.0.1 (+ 10.11.0.9) ==veth== v2 10.11.0.2  :ns2
#                                                       \_ m3 10.11.0.3 :ns3

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/dp-lib.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)

attacker_ns() {
	ip netns add ns3 &&
		ip -n ns3 link set lo up &&
		ip -n ns2 link add m3 link v2 type macvlan mode bridge &&
		ip -n ns2 link set m3 netns ns3 &&
		ip -n ns3 addr add 10.11.0.3/24 dev m3 &&
		ip -n ns3 link set m3 up &&
		ip -n ns3 route add 224.0.0.0/4 dev m3 &&
		ip -n ns1 addr add 10.11.0.9/24 dev v1
}

if ! out=$({ load_sroce && make_two_ns && attacker_ns; } 2>&1); then
	ktap_begin 1 "only the peer of a QP talks to it"
	ktap_fail "topology" "load_sroce, make_two_ns or the attacker: $out"
	ktap_done
fi
# dp_mcast holds multicast receivers; without it two results fail.
SROCE_DP_MCAST=$(dp_tool dp_mcast)
export SROCE_DP_MCAST
idx=$(gid_index sroce1 10.11.0.1)
# Packet by packet on the wire (see t-resp.sh).
echo off >/sys/class/infiniband/sroce1/tx_batch
# ip netns exec remounts /sys for ns2: keep init_net's view of the counters.
hwc=/run/sroce-peer-hwc dev=/run/sroce-peer-dev
mkdir -p "$hwc" "$dev" &&
	mount --bind /sys/class/infiniband/sroce1/ports/1/hw_counters "$hwc" &&
	mount --bind /sys/class/infiniband/sroce1 "$dev"
ip netns exec ns2 env PYTHONPATH="$here" PYTHONDONTWRITEBYTECODE=1 \
	SROCE_HWC="$hwc" SROCE_DEV="$dev" python3 "$here/peer_wire.py" "$idx"
rc=$?
umount "$hwc" "$dev"
exit $rc
