#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/mpi/selftest.sh - host test of coll (bench/mpi/coll.c) over shared
# memory, no RDMA device and no guest.  Builds coll and runs it with
# 2 and 4 ranks over Open MPI's ob1 PML (self, vader and TCP on lo), then
# asserts: exit 0; one CSV row per op and size with no wrong element; busbw
# = algbw x the nccl-tests factor of the op; algbw x time = bytes; the
# float variant; a corruption injected with the hidden -X option is found
# and named (op, size, rank, index); bad options are refused.
#
#   bench/mpi/selftest.sh [COLL]     COLL: a built binary (default: build it)
#
# Prints KTAP and "N passed, N failed, N skipped"; exits 1 on any failure.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
top=$(cd "$here/../.." && pwd -P)
# Only the KTAP helpers are used; nothing of the guest set-up runs.
. "$top/tests/integration/lib.sh"

coll=${1:-$top/build/mpi/coll}
tmp=$(mktemp -d /tmp/sroce-mpi.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# Shared memory and loopback TCP only.  Debian's openmpi-mca-params.conf
# already keeps UCX, openib and OFI out; saying so here keeps a host with
# another configuration from probing (and warning about) RDMA devices.
export OMPI_MCA_pml=ob1
export OMPI_MCA_btl=self,vader,tcp
export OMPI_MCA_btl_tcp_if_include=lo
export OMPI_MCA_osc=^ucx,pt2pt
export OMPI_MCA_mtl=^ofi,psm,psm2

# mpi NP ARGS...: coll on NP ranks; stdout and stderr in $tmp/out, $tmp/err.
mpi() {
	local np=$1
	shift
	timeout 300 mpirun --allow-run-as-root --oversubscribe -np "$np" \
		"$coll" "$@" >"$tmp/out" 2>"$tmp/err"
}

# Sizes of the main run: 8 B .. 32 KiB in steps of 4.
sizes="8 32 128 512 2048 8192 32768"
run_args=(-b 8 -e 32K -f 4 -n 50 -w 2 -t 0.2)

# rows_present CSV NP: every op and size has a row from NP ranks.
rows_present() {
	local op s miss=
	for op in allreduce alltoall bcast; do
		for s in $sizes; do
			grep -q "^$op,$s,[0-9]*,$2," "$1" || miss+=" $op/$s"
		done
	done
	[ -z "$miss" ] || { echo "missing rows:$miss"; return 1; }
}

# busbw_ok CSV: busbw = algbw * 2(n-1)/n, (n-1)/n or 1, and algbw (GB/s)
# = bytes / avg_us / 1e3, each to 1e-6 (the CSV prints 9 digits).
busbw_ok() {
	awk -F, 'NR > 1 {
		n = $4
		f = $1 == "allreduce" ? 2 * (n - 1) / n : \
		    $1 == "alltoall" ? (n - 1) / n : 1
		d = $8 - $7 * f
		if (d < 0) d = -d
		if (d > 1e-6 * $7 * f + 1e-12) {
			print "busbw " $0; bad = 1
		}
		a = $3 / $6 / 1e3
		d = $7 - a
		if (d < 0) d = -d
		if (d > 1e-6 * a) { print "algbw " $0; bad = 1 }
	}
	END { exit bad }' "$1"
}

no_errors() {
	awk -F, 'NR > 1 && $9 != 0 { print; bad = 1 } END { exit bad }' "$1" &&
		grep -q '^# coll: ok, 0 wrong elements' "$tmp/out"
}

# corruption_named NP: -X damaged element 8 (count / 2) of the 64-byte
# buffer on the last rank in iteration 0 of each op; each report names it.
corruption_named() {
	local op r=$(($1 - 1)) miss=
	for op in allreduce alltoall bcast; do
		grep -q "FAIL op=$op bytes=64 rank=$r iter=0 index=8 " "$tmp/err" ||
			miss+=" $op"
	done
	[ -z "$miss" ] || { echo "not reported:$miss"; return 1; }
	grep -q '^# coll: FAIL, 3 wrong elements' "$tmp/out"
}

ktap_begin 17 "coll (bench/mpi) on the host: ob1 over self, vader, tcp"
if [ $# -eq 0 ]; then
	ktap_check "build coll" nice -n 19 make -s -C "$here" || {
		ktap_skip_rest "no binary"
		ktap_done
	}
else
	ktap_result "coll given: $coll" "$([ -x "$coll" ]; echo $?)"
fi

for np in 2 4; do
	mpi "$np" "${run_args[@]}" -c "$tmp/c$np.csv"
	st=$?
	ktap_result "np=$np: exit 0" $st "exit $st" "$(tail -n 5 "$tmp/err")"
	out=$(rows_present "$tmp/c$np.csv" "$np" 2>&1)
	ktap_result "np=$np: a row for every op and size" $? "$out"
	out=$(no_errors "$tmp/c$np.csv" 2>&1)
	ktap_result "np=$np: no wrong element" $? "$out"
	out=$(busbw_ok "$tmp/c$np.csv" 2>&1)
	ktap_result "np=$np: busbw and algbw as defined" $? "$out"

	mpi "$np" -d float -b 8 -e 4K -f 4 -n 20 -w 1 -t 0.1
	st=$?
	ktap_result "np=$np: float exit 0" $st "exit $st" "$(tail -n 5 "$tmp/err")"

	mpi "$np" -X -b 64 -e 64 -n 5 -w 1
	st=$?
	ktap_result "np=$np: -X corruption fails the run" \
		"$([ $st -ne 0 ]; echo $?)" "exit $st"
	out=$(corruption_named "$np" 2>&1)
	ktap_result "np=$np: -X corruption named" $? "$out" \
		"$(grep FAIL "$tmp/err")"
done

mpi 1 -f 3
st=$?
ktap_result "-f 3 refused (exit 2)" "$([ $st -eq 2 ]; echo $?)" "exit $st"
mpi 1 -h
st=$?
ktap_result "-h prints usage, exit 0" \
	"$([ $st -eq 0 ] && grep -q '^usage: coll' "$tmp/out"; echo $?)" \
	"exit $st"
ktap_done
