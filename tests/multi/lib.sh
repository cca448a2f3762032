# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
#
# lib.sh - helpers of both guests of tests/multi (guest.sh), and what every
# command guest B runs in guest A through ctl.py finds defined (ctl.py
# sources this file first): the integration helpers (lib.sh, dp-lib.sh)
# and
#   nic                  the guest's one virtio-net netdev
#   net_up ADDR          that NIC addressed and up, MTU $MTU
#   dev_up TYPE DEV ADDR rdma link DEV (sroce or rxe) on it, with its GID
#   dev_swap OLD TYPE NEW ADDR   rdma link OLD (and its module) replaced
#                        by NEW of TYPE
#   cm_listening         an rdma_cm ID listens (rping's server is ready)

multi_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
# shellcheck source=tests/integration/lib.sh
. "$multi_dir/../integration/lib.sh"
# shellcheck source=tests/integration/dp-lib.sh
. "$multi_dir/../integration/dp-lib.sh"

A=10.16.0.1
B=10.16.0.2
CTL_PORT=7000
MTU=${SROCE_MULTI_MTU:-9000}

nic() {
	local d drv
	for d in /sys/class/net/*; do
		drv=$(readlink "$d/device/driver" 2>/dev/null) || continue
		[ "${drv##*/}" = virtio_net ] && { echo "${d##*/}"; return 0; }
	done
	return 1
}

net_up() {
	local n
	modprobe virtio_net 2>/dev/null
	wait_until 10 nic || return 1
	n=$(nic)
	ip link set "$n" mtu "$MTU" &&
		ip addr add "$1/24" dev "$n" && ip link set "$n" up
}

dev_up() {
	case $1 in
	rxe) modprobe rdma_rxe || return 1 ;;
	sroce) load_sroce || return 1 ;;
	esac
	rdma link add "$2" type "$1" netdev "$(nic)" && wait_gid "$2" "$3" 20
}

dev_swap() {
	rdma link delete "$1" && wait_until 10 dev_gone "$1" || return 1
	# the old driver's UDP 4791 socket of init_net goes with its module
	case $1 in
	rxe*) modprobe -r rdma_rxe ;;
	*) unload_sroce ;;
	esac
	dev_up "$2" "$3" "$4"
}

cm_listening() {
	rdma resource show cm_id 2>/dev/null | grep -q LISTEN
}
