#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-nvmeof.sh - NVMe over Fabrics (RDMA) on sroce: the kernel's nvmet-rdma
# target and nvme-rdma host, both kernel ULPs that use fast registration
# (ib_alloc_mr, ib_map_mr_sg, IB_WR_REG_MR), SEND with Invalidate and
# local invalidation through ib_core's CQ API.  64 MiB of random data are
# written through the host block device with O_DIRECT, read back, and
# compared with the source and with the target's backing file.  Two
# rounds: the target with a receive queue per QP, then with nvmet-rdma's
# use_srq=Y (kernel shared receive queues, post_srq_recv).  Then, for the
# results table in Documentation/testing.rst, the first round again over
# rdma_rxe on the same veth in the same boot (SROCE_NVMEOF_RXE=0 leaves it
# out); a failure there is reported as a skip naming rdma_rxe, as in
# t-rdmacm, since rxe is the baseline and not under test.
#
# Topology: make_init_veth (see lib.sh).  On Linux 6.1 nvmet-rdma and
# nvme-rdma create their rdma_cm IDs in init_net, so target and host both
# use sroce0 in init_net; the host connects to the device's own address
# (loopback through the device, see Documentation/design.rst).
#
#   init_net: sroce0 on i1 (10.12.0.1) ==veth== i2 :ns3
#             nvmet port 10.12.0.1:4420  <-  nvme connect -t rdma
#             (then rxe0 on i1 instead of sroce0)

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

NQN=nqn.2026-11.org.sroce:t-nvmeof
MIB=${NVMEOF_MIB:-64}
CFG=/sys/kernel/config/nvmet
DEV=sroce0
HW=/sys/class/infiniband/$DEV/ports/1/hw_counters
ROUND_TESTS=6
RXE=${SROCE_NVMEOF_RXE:-1}

ktap_begin $((5 + 3 * ROUND_TESTS + 1)) "NVMe-oF RDMA target and host over sroce (and rdma_rxe)"

work=$(mktemp -d)
dev=

# teardown: host, then target configuration, then the modules.
teardown() {
	[ -n "$dev" ] && nvme disconnect -n "$NQN" >/dev/null 2>&1
	dev=
	rm -f "$CFG/ports/1/subsystems/$NQN" 2>/dev/null
	rmdir "$CFG/ports/1" 2>/dev/null
	[ -d "$CFG/subsystems/$NQN" ] &&
		echo 0 >"$CFG/subsystems/$NQN/namespaces/1/enable" 2>/dev/null
	rmdir "$CFG/subsystems/$NQN/namespaces/1" 2>/dev/null
	rmdir "$CFG/subsystems/$NQN" 2>/dev/null
	modprobe -r nvme-rdma nvmet-rdma 2>/dev/null
}

# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	teardown
	modprobe -r nvmet 2>/dev/null
	del_link sroce0 >/dev/null 2>&1
	del_link rxe0 >/dev/null 2>&1
	modprobe -r rdma_rxe 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# rdma_rxe (left loaded by an earlier test) holds UDP 4791 of init_net.
modprobe -r rdma_rxe 2>/dev/null

if ! ktap_check "load sroce.ko" load_sroce ||
	! ktap_check "veth in init_net" make_init_veth ||
	! ktap_check "sroce0 on i1" add_link sroce0 sroce i1 ||
	! ktap_check "GID of 10.12.0.1" wait_gid sroce0 10.12.0.1 ||
	! ktap_check "nvme-cli and the nvmet, nvmet-rdma, nvme-rdma modules" \
		bash -c 'command -v nvme && modinfo nvmet-rdma nvme-rdma &&
			modprobe nvmet'; then
	ktap_skip_rest "no topology or no NVMe-oF modules"
	ktap_done
fi

# target_setup: a subsystem with one namespace backed by a file (buffered:
# tmpfs has no O_DIRECT), on an RDMA port at 10.12.0.1:4420.
target_setup() {
	mountpoint -q /sys/kernel/config ||
		mount -t configfs none /sys/kernel/config || return 1
	truncate -s "${MIB}M" "$work/backing.img" &&
		mkdir "$CFG/subsystems/$NQN" &&
		echo 1 >"$CFG/subsystems/$NQN/attr_allow_any_host" &&
		mkdir "$CFG/subsystems/$NQN/namespaces/1" &&
		echo "$work/backing.img" >"$CFG/subsystems/$NQN/namespaces/1/device_path" &&
		echo 1 >"$CFG/subsystems/$NQN/namespaces/1/buffered_io" &&
		echo 1 >"$CFG/subsystems/$NQN/namespaces/1/enable" &&
		mkdir "$CFG/ports/1" &&
		echo rdma >"$CFG/ports/1/addr_trtype" &&
		echo ipv4 >"$CFG/ports/1/addr_adrfam" &&
		echo 10.12.0.1 >"$CFG/ports/1/addr_traddr" &&
		echo 4420 >"$CFG/ports/1/addr_trsvcid" &&
		ln -s "$CFG/subsystems/$NQN" "$CFG/ports/1/subsystems/$NQN"
}

# The block device of the connected subsystem, e.g. nvme0n1.
host_dev() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ -e "$c/subsysnqn" ] || continue
		[ "$(cat "$c/subsysnqn")" = "$NQN" ] || continue
		ls "$c" | grep -m1 -E '^nvme[0-9]+c?[0-9]*n[0-9]+$' |
			sed -E 's/^nvme([0-9]+)c[0-9]+n/nvme\1n/'
		return 0
	done
	return 1
}

# nv_result NAME STATUS [DIAG...]: a result of $DEV; on rdma_rxe a
# failure is a skip that names it.
nv_result() {
	if [ "$DEV" = rxe0 ] && [ "$2" != 0 ]; then
		diag "${@:3}"
		ktap_skip "$1" "FAILS on rdma_rxe (baseline)"
	else
		ktap_result "$@"
	fi
}

# round LABEL USE_SRQ: ROUND_TESTS results.
round() {
	local label=$1 srq=$2 out ok reg rinv linv res nsrq what
	rm -f "$work/backing.img"
	out=$(modprobe nvmet-rdma use_srq="$srq" 2>&1 && modprobe nvme-rdma 2>&1 &&
		target_setup 2>&1)
	nv_result "$label: nvmet subsystem with a ${MIB} MiB namespace on rdma 10.12.0.1:4420" \
		$? "$out"

	reg=$(cat "$HW/fast_reg_mr" 2>/dev/null) rinv=$(cat "$HW/remote_invalidate" 2>/dev/null)
	linv=$(cat "$HW/local_invalidate" 2>/dev/null)
	out=$(timeout 120 nvme connect -t rdma -a 10.12.0.1 -s 4420 -n "$NQN" 2>&1) &&
		wait_until 30 host_dev >/dev/null && dev=$(host_dev) &&
		wait_until 30 test -b "/dev/$dev"
	nv_result "$label: nvme connect -t rdma: /dev/${dev:-?} appears" $? \
		"$out" "$(dmesg | grep -E 'nvme|sroce' | tail -n 15)"

	if [ -n "$dev" ] && [ -b "/dev/$dev" ]; then
		head -c "${MIB}M" /dev/urandom >"$work/src"
		out=$(timeout 300 dd if="$work/src" of="/dev/$dev" bs=1M \
			oflag=direct 2>&1 && timeout 300 dd if="/dev/$dev" \
			of="$work/back" bs=1M count="$MIB" iflag=direct 2>&1)
		ok=$?
		diag "$label: $(grep -h copied <<<"$out" | tr '\n' ' ')"
		res=$(rdma resource show $DEV 2>&1)
		nsrq=$(sed -n 's/.* srq \([0-9]*\).*/\1/p' <<<"$res")
		diag "$label: $res"
		# use_srq=Y: nvmet-rdma receives through kernel SRQs.
		what="kernel SRQs"
		[ "$srq" = Y ] || what="no kernel SRQ"
		nv_result "$label: the target uses $what (srq ${nsrq:-?})" \
			"$([ -n "$nsrq" ] && if [ "$srq" = Y ]; then
				[ "$nsrq" -gt 0 ]; else [ "$nsrq" = 0 ]; fi
			echo $?)"
		nv_result "$label: ${MIB} MiB written and read back through /dev/$dev are identical" \
			"$([ $ok = 0 ] && cmp -s "$work/src" "$work/back"; echo $?)" \
			"$out" "$(dmesg | tail -n 15)"
		nv_result "$label: the target's backing file holds the same ${MIB} MiB" \
			"$(cmp -s "$work/src" "$work/backing.img"; echo $?)"
		# The host registered its buffers with REG_MR and the
		# target's responses invalidated them remotely (or the host
		# locally).
		if [ -z "$reg" ]; then
			ktap_skip "$label: I/O went through fast registration and invalidation" \
				"$DEV counts neither"
		else
			reg=$(($(cat "$HW/fast_reg_mr") - reg))
			rinv=$(($(cat "$HW/remote_invalidate") - rinv))
			linv=$(($(cat "$HW/local_invalidate") - linv))
			diag "$label: fast_reg_mr +$reg, remote_invalidate +$rinv, local_invalidate +$linv"
			nv_result "$label: I/O went through fast registration and invalidation" \
				"$([ "$reg" -gt 0 ] && [ $((rinv + linv)) -gt 0 ]; echo $?)"
		fi
	else
		ktap_skip "$label: SRQ use" "not connected"
		ktap_skip "$label: ${MIB} MiB written and read back" "not connected"
		ktap_skip "$label: the target's backing file" "not connected"
		ktap_skip "$label: fast registration and invalidation" "not connected"
	fi
	teardown
}

round "RQ per QP" N
round "use_srq=Y" Y

# The same first round over rdma_rxe, which holds UDP 4791 of init_net once
# sroce0 (the last sroce device there) is gone.
if [ "$RXE" = 0 ]; then
	ktap_skip "rxe0 on i1" "SROCE_NVMEOF_RXE=0"
	for i in $(seq "$ROUND_TESTS"); do
		ktap_skip "rxe: round case $i" "SROCE_NVMEOF_RXE=0"
	done
else
	st=1
	del_link sroce0 && wait_until 10 dev_gone sroce0 &&
		modprobe rdma_rxe && add_link rxe0 rxe i1 &&
		wait_gid rxe0 10.12.0.1 20 && st=0
	ktap_result "rxe0 on i1 in place of sroce0" $st "$(rdma link 2>&1)"
	if [ $st = 0 ]; then
		DEV=rxe0
		HW=/sys/class/infiniband/$DEV/ports/1/hw_counters
		round "rxe: RQ per QP" N
	else
		for i in $(seq "$ROUND_TESTS"); do
			ktap_skip "rxe: round case $i" "no rxe0"
		done
	fi
fi

ktap_done
