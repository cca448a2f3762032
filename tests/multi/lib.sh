# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
#
# lib.sh - helpers of both guests of tests/multi (guest.sh), and what every
# command guest B runs in guest A through ctl.py finds defined (ctl.py
# sources this file first): the integration helpers (lib.sh, dp-lib.sh)
# and
#   nic                  the guest's netdev on the lossless wire (vm-run
#                        --peer-nic), found by its MAC
#   lnic                 the one on the lossy wire (--peer-udp-nic)
#   net_up ADDR [NIC]    NIC (nic or lnic, default nic) addressed and up,
#                        MTU $MTU
#   dev_up TYPE DEV ADDR [NIC]   rdma link DEV (sroce or rxe) on it, with
#                        its GID
#   dev_swap OLD TYPE NEW ADDR   rdma link OLD (and its module) replaced
#                        by NEW of TYPE
#   cm_listening         an rdma_cm ID listens (rping's server is ready)
#   lossy_up ADDR, lossy_down    sroce1 on lnic, and gone again
#   nic_count NIC NAME   a statistic of a NIC (tx_packets, rx_dropped, ...)
#   lossy_counts         the lossy wire's packets and sroce1's LOSS_CTRS

multi_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
# shellcheck source=tests/integration/lib.sh
. "$multi_dir/../integration/lib.sh"
# shellcheck source=tests/integration/dp-lib.sh
. "$multi_dir/../integration/dp-lib.sh"

A=10.16.0.1
B=10.16.0.2
# the lossy wire
LA=10.17.0.1
LB=10.17.0.2
CTL_PORT=7000
MTU=${SROCE_MULTI_MTU:-9000}

# nic_by_mac PREFIX: the netdev whose MAC begins with PREFIX (vm-run's:
# 52:54:00:5e:01:0N on --peer-nic, 52:54:00:5e:02:0N on --peer-udp-nic;
# the PCI order of the NICs is QEMU's command line order, not a contract).
nic_by_mac() {
	local d m
	for d in /sys/class/net/*; do
		read -r m 2>/dev/null <"$d/address" || continue
		[[ $m == "$1"* ]] || continue
		echo "${d##*/}"
		return 0
	done
	return 1
}

nic() {
	nic_by_mac 52:54:00:5e:01:
}

lnic() {
	nic_by_mac 52:54:00:5e:02:
}

net_up() {
	local n w=${2:-nic}
	modprobe virtio_net 2>/dev/null
	wait_until 10 "$w" || return 1
	n=$($w)
	ip link set "$n" mtu "$MTU" &&
		ip addr add "$1/24" dev "$n" && ip link set "$n" up
}

dev_up() {
	case $1 in
	rxe) modprobe rdma_rxe || return 1 ;;
	sroce) load_sroce || return 1 ;;
	esac
	rdma link add "$2" type "$1" netdev "$(${4:-nic})" &&
		wait_gid "$2" "$3" 20
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

# lossy_up ADDR: the lossy wire's NIC at ADDR and sroce1 on it (sroce's
# second device in the namespace: one UDP 4791 socket serves both, and a
# packet goes to the device of the netdev it came in on).
lossy_up() {
	net_up "$1" lnic && dev_up sroce sroce1 "$1" lnic
}

# lossy_down: sroce1 deleted and the address gone (rdma_rxe's cases
# unload sroce, which a device left behind would stop).
lossy_down() {
	local n
	if dev_exists sroce1; then
		rdma link delete sroce1 && wait_until 10 dev_gone sroce1 ||
			return 1
	fi
	n=$(lnic) && ip addr flush dev "$n"
}

# nic_count NIC NAME: the statistic NAME of NIC (nic or lnic), 0 if none.
nic_count() {
	local n v=0
	n=$($1) && read -r v 2>/dev/null <"/sys/class/net/$n/statistics/$2"
	echo "${v:-0}"
}

# sroce's counters of loss and recovery that the lossy wire's row reports
LOSS_CTRS="req_retransmits local_ack_timeout_err packet_seq_err"
LOSS_CTRS+=" out_of_sequence duplicate_request"

# lossy_counts: this guest's side of the lossy wire on one line: lnic's
# tx_packets, rx_packets and rx_dropped, then sroce1's LOSS_CTRS.
lossy_counts() {
	local c out
	out="$(nic_count lnic tx_packets) $(nic_count lnic rx_packets)"
	out+=" $(nic_count lnic rx_dropped)"
	for c in $LOSS_CTRS; do
		out+=" $(hw_counter sroce1 "$c")"
	done
	echo "$out"
}

# net_diag [NIC DEV]: one line on where packets went in this guest, for
# a failed case: the NIC's (nic) drops and errors, then DEV's (sroce0)
# non-zero counters of loss and recovery (a UC or UD message lost to a
# drop is gone for good, so a hung pingpong says which layer lost it).
net_diag() {
	local n f v out="" c
	n=$(${1:-nic}) || return 0
	for f in rx_packets rx_dropped rx_errors rx_missed_errors \
		tx_packets tx_dropped tx_errors; do
		read -r v <"/sys/class/net/$n/statistics/$f" || continue
		out+=" $f=$v"
	done
	for c in /sys/class/infiniband/"${2:-sroce0}"/ports/1/hw_counters/*; do
		[ -e "$c" ] || continue
		case ${c##*/} in
		*drop* | *err* | *seq* | *retrans* | *timeout* | *rnr* | \
			*discard* | *duplicate*) ;;
		*) continue ;;
		esac
		read -r v <"$c" && [ "$v" != 0 ] && out+=" ${c##*/}=$v"
	done
	echo "$n:$out"
}

# NVMe-oF RDMA across the guests (as t-nvmeof.sh, one guest the target,
# the other the host).  The namespace is a buffered file in the target's
# /tmp.
NVMF_NQN=nqn.2026-12.org.sroce:multi
NVMF_CFG=/sys/kernel/config/nvmet
NVMF_IMG=/tmp/nvmf.img

# nvmf_target_up ADDR MIB: subsystem, namespace, RDMA port ADDR:4420.
nvmf_target_up() {
	local s=$NVMF_CFG/subsystems/$NVMF_NQN p=$NVMF_CFG/ports/1
	modprobe -a nvmet nvmet-rdma || return 1
	mountpoint -q /sys/kernel/config ||
		mount -t configfs none /sys/kernel/config || return 1
	truncate -s "$2M" $NVMF_IMG && mkdir "$s" &&
		echo 1 >"$s/attr_allow_any_host" && mkdir "$s/namespaces/1" &&
		echo $NVMF_IMG >"$s/namespaces/1/device_path" &&
		echo 1 >"$s/namespaces/1/buffered_io" &&
		echo 1 >"$s/namespaces/1/enable" && mkdir "$p" &&
		echo rdma >"$p/addr_trtype" && echo ipv4 >"$p/addr_adrfam" &&
		echo "$1" >"$p/addr_traddr" && echo 4420 >"$p/addr_trsvcid" &&
		ln -s "$s" "$p/subsystems/$NVMF_NQN"
}

nvmf_target_down() {
	local s=$NVMF_CFG/subsystems/$NVMF_NQN
	rm -f "$NVMF_CFG/ports/1/subsystems/$NVMF_NQN"
	rmdir "$NVMF_CFG/ports/1"
	echo 0 >"$s/namespaces/1/enable"
	rmdir "$s/namespaces/1" "$s"
	rm -f $NVMF_IMG
	modprobe -r nvmet-rdma nvmet
} >/dev/null 2>&1

# nvmf_dev: the block device of the connected subsystem (nvme0n1).
nvmf_dev() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NVMF_NQN" ] || continue
		find "$c/" -maxdepth 1 -name 'nvme*n*' -printf '%f\n' |
			head -n 1 | sed -E 's/^nvme([0-9]+)c[0-9]+n/nvme\1n/'
		return 0
	done
	return 1
}

# nvmf_host_io ADDR MIB: connect to ADDR:4420, write MIB MiB of random
# data with O_DIRECT, read them back, compare, disconnect; the last line
# printed is the data's md5sum.
nvmf_host_io() {
	local d w rc=1
	w=$(mktemp -d)
	modprobe nvme-rdma || return 1
	timeout 120 nvme connect -t rdma -a "$1" -s 4420 -n $NVMF_NQN &&
		wait_until 30 nvmf_dev && d=/dev/$(nvmf_dev) &&
		wait_until 30 test -b "$d" &&
		head -c "$2M" /dev/urandom >"$w/src" &&
		timeout 300 dd if="$w/src" of="$d" bs=1M oflag=direct &&
		timeout 300 dd if="$d" of="$w/back" bs=1M count="$2" \
			iflag=direct && cmp "$w/src" "$w/back" && rc=0
	nvme disconnect -n $NVMF_NQN
	modprobe -r nvme-rdma
	md5sum <"$w/src" | cut -d' ' -f1
	rm -rf "$w"
	return $rc
}
