#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/mpi/run.sh - guest side of the coming `make bench-mpi`: coll
# (bench/mpi/coll.c) between two sroce devices over Open MPI's UCX PML.
#
# NOT YET RUN IN A GUEST.  Checked on the host only: bash -n, shellcheck,
# and the launch line's per-rank environment (MPMD with env, tried with
# ob1).  No make target runs it yet and there is no host side (the
# tests/vm/vm-run wrapper bench/run.sh has); expect the first guest run to
# need fixes.  Run it in a throw-away guest only: it loads sroce.ko and
# builds namespaces (tests/integration/lib.sh).
#
#   bench/mpi/run.sh        SROCE_MPI_PER_SIDE=N ranks per device (1),
#                           SROCE_MPI_ARGS="..." coll's options
#                           (default -e 1M -t 2), SROCE_RESULTS=DIR for
#                           mpi.csv and mpi.txt (/tmp)
#
# Topology: make_two_ns; the ranks stay in init_net.
#
#   +-------- ns1 --------+      +-------- ns2 --------+
#   | sroce1 on v1        | veth | v2 on sroce2        |
#   |   10.11.0.1     =============     10.11.0.2      |
#   +---------------------+      +---------------------+
#        ^ UCX_NET_DEVICES=sroce1:1      ^ UCX_NET_DEVICES=sroce2:1
#   rank 0 (init_net)                rank 1 (init_net)
#
# Why init_net: Open MPI 4.1 / PMIx 4.2 ranks reach their local server at
# PMIX_SERVER_URI=tcp4://127.0.0.1:PORT, which a rank behind `ip netns
# exec` (another loopback) cannot.  The ranks need no IP of their own:
# UCX exchanges addresses through PMIx and wires up over ud_verbs, and the
# kernel resolves a GID's route in the namespace of the GID's netdev
# (drivers/infiniband/core/addr.c, set_addr_netns_by_gid_rcu()), so verbs
# from init_net on sroce1 leave through v1.  rdma devices are visible in
# every namespace (ib_core shared mode).
#
# Each setting has a reason:
#   --mca pml ucx               Debian's openmpi-mca-params.conf says
#                               pml = ^ucx.
#   --mca pml_ucx_devices any   the default, mlx*, is matched against the
#                               driver of /sys/class/infiniband/DEV/device,
#                               which a software device does not have.
#   --mca btl self              no vader or TCP path for anything.
#   UCX_TLS=rc_verbs,ud_verbs,self   every byte between ranks over sroce.
#   UCX_NET_DEVICES per rank    both devices are visible to every rank.
#   UCX_IB_GID_INDEX            the IPv4 RoCE v2 GID, not UCX's choice.
#   ulimit -l unlimited         UCX registers its receive rings (4095 x
#                               8 KiB for rc_verbs' SRQ) up front.

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
top=$(cd "$here/../.." && pwd -P)
# shellcheck source=../../tests/integration/lib.sh
. "$top/tests/integration/lib.sh"

coll=$top/build/mpi/coll
per_side=${SROCE_MPI_PER_SIDE:-1}
read -r -a coll_args <<<"${SROCE_MPI_ARGS:--e 1M -t 2}"
out=${SROCE_RESULTS:-/tmp}

export UCX_TLS=rc_verbs,ud_verbs,self
export OMPI_MCA_pml=ucx
export OMPI_MCA_pml_ucx_devices=any
export OMPI_MCA_btl=self
export OMPI_MCA_osc=^ucx,pt2pt

# side DEV GID_INDEX: the environment of the ranks on DEV.
side() {
	echo "UCX_NET_DEVICES=$1:1 UCX_IB_GID_INDEX=$2"
}

# ucx_tls DEV GID_INDEX: UCX offers rc_verbs and ud_verbs on DEV.
ucx_tls() {
	local info
	# shellcheck disable=SC2046 # side() is words by design
	info=$(env $(side "$1" "$2") ucx_info -d 2>&1)
	diag_output "$(grep -E 'Transport|Device|max inline|atomic' <<<"$info")"
	grep -q 'Transport: rc_verbs' <<<"$info" &&
		grep -q 'Transport: ud_verbs' <<<"$info"
}

# perftest: UCX alone (tag matching, sroce1 -> sroce2), before MPI; the
# two processes meet over TCP on init_net's loopback.
# shellcheck disable=SC2317 # run through ktap_check
perftest() {
	local srv st
	# shellcheck disable=SC2046
	env $(side sroce2 "$g2") timeout 120 ucx_perftest -t tag_lat \
		>/tmp/mpi-perftest-srv.log 2>&1 &
	srv=$!
	sleep 2
	# shellcheck disable=SC2046
	env $(side sroce1 "$g1") timeout 100 ucx_perftest 127.0.0.1 \
		-t tag_lat -n 1000 >/tmp/mpi-perftest-cli.log 2>&1
	st=$?
	wait "$srv" 2>/dev/null
	[ "$st" -eq 0 ] || tail -n 20 /tmp/mpi-perftest-cli.log
	return "$st"
}

# mpi_run: coll with $per_side ranks on each device (MPMD, one app context
# per device).  More than one per side sends between ranks of the same
# device, which sroce must then loop back: not known to work yet.
mpi_run() {
	# shellcheck disable=SC2046
	timeout 1800 mpirun --allow-run-as-root --oversubscribe \
		-np "$per_side" env $(side sroce1 "$g1") \
		"$coll" "${coll_args[@]}" -c "$out/mpi.csv" : \
		-np "$per_side" env $(side sroce2 "$g2") \
		"$coll" "${coll_args[@]}" >"$out/mpi.txt" 2>/tmp/mpi-coll.err
}

ktap_begin 7 "coll over Open MPI's UCX PML on sroce1 and sroce2 (NOT YET RUN IN A GUEST)"
two_ns_start
ulimit -l unlimited || diag "ulimit -l unlimited failed"
diag "ulimit -l $(ulimit -l); $(df -h /dev/shm | tail -n 1)"
diag "$(ucx_info -v | head -n 1)"
ucx_tls sroce1 "$g1"
ktap_result "ucx_info: rc_verbs and ud_verbs on sroce1" $?
ucx_tls sroce2 "$g2"
ktap_result "ucx_info: rc_verbs and ud_verbs on sroce2" $?
ktap_check "ucx_perftest tag_lat sroce1 -> sroce2" perftest
ktap_result "coll built" "$([ -x "$coll" ]; echo $?)" "$coll missing: make -C bench/mpi"
mpi_run
st=$?
cat "$out/mpi.txt"
ktap_result "coll, $((2 * per_side)) ranks, exit 0" $st "exit $st" \
	"$(tail -n 20 /tmp/mpi-coll.err)"
ktap_done
