#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-ucx.sh - UCX and Open MPI, unmodified Debian packages, between two
# sroce devices: ucx_info offers rc_verbs and ud_verbs; ucx_perftest
# tag matching over rc_verbs (wired up over ud_verbs) and over ud_verbs
# alone, latency and 64 KiB bandwidth; then bench/mpi's coll over Open
# MPI's UCX PML, MPI_Allreduce, MPI_Alltoall and MPI_Bcast with every
# element of every result checked: 2 ranks (one per device) from 8 B to
# 512 KiB, 4 ranks (two per device) from 8 B to 32 KiB.  A short form
# of `make bench-mpi` (bench/mpi/run.sh, Documentation/mpi.rst).
#
# Topology: make_two_ns; the UCX and MPI processes stay in init_net and
# reach their device through UCX_NET_DEVICES (bench/mpi/ucx-lib.sh):
#
#   ns1: sroce1 on v1 (10.11.0.1) ==veth== v2 (10.11.0.2) sroce2 :ns2
#        ^ rank 0 / client                 ^ rank 1 / server (init_net)

here=$(dirname "${BASH_SOURCE[0]}")
. "$here/lib.sh"
# shellcheck source=../../bench/mpi/ucx-lib.sh
. "$SROCE_TOP/bench/mpi/ucx-lib.sh"

coll=$SROCE_TOP/build/mpi/coll

ktap_begin 11 "UCX and Open MPI (UCX PML) between sroce1 and sroce2"
two_ns_start
ulimit -l unlimited

# offers DEV: ucx_info -d lists rc_verbs and ud_verbs on DEV:1.
offers() {
	local info
	# shellcheck disable=SC2046
	info=$(env $(ucx_env "$1:1" 1 all) ucx_info -d 2>&1)
	if grep -q 'Transport: rc_verbs' <<<"$info" &&
		grep -q 'Transport: ud_verbs' <<<"$info"; then
		return 0
	fi
	grep -E 'Transport|Device' <<<"$info"
	return 1
}
ktap_check "ucx_info: rc_verbs and ud_verbs on sroce1 and sroce2" \
	eval 'offers sroce1 && offers sroce2'

# perf TLS TEST SIZE: one ucx_perftest run sroce1 -> sroce2; a positive
# result (us or MiB/s) logged.
# shellcheck disable=SC2154 # g1, g2: set by two_ns_start
perf() {
	local v
	v=$(ucx_perf sroce2:1 "$g2" sroce1:1 "$g1" "$1" "$2" "$3" "$4") ||
		return 1
	echo "$2 $3 B over ${1%%,*}: $v"
	awk '{ exit !($1 > 0) }' <<<"$v"
}

for args in "rc_verbs,ud_verbs,self tag_lat 8 300" \
	"rc_verbs,ud_verbs,self tag_bw 65536 100" \
	"ud_verbs,self tag_lat 8 300" "ud_verbs,self tag_bw 65536 100"; do
	# shellcheck disable=SC2086 # four words by design
	set -- $args
	out=$(perf "$@" 2>&1)
	st=$?
	[ $st -eq 0 ] && diag "$(tail -n 1 <<<"$out")"
	ktap_result "ucx_perftest $2 -s $3 over ${1%%,*}" $st "$out"
done

# coll_run ARGS...: coll on sroce1 and sroce2; output in /tmp/t-ucx-coll.*
# shellcheck disable=SC2154
coll_run() {
	mpi_coll sroce1:1 "$g1" sroce2:1 "$g2" 300 "$coll" "$@" \
		>/tmp/t-ucx-coll.out 2>/tmp/t-ucx-coll.err
}

# coll_case PER_DEV MAX ROWS WHAT: coll with PER_DEV ranks per device from
# 8 B to MAX (factor 4); ROWS rows (3 ops x sizes) of that many ranks,
# none with a wrong element.
coll_case() {
	local per=$1 max=$2 want=$3 what=$4 n=$(($1 * 2)) st rows
	if [ ! -x "$coll" ]; then
		ktap_skip "coll, $what: exit 0" "$coll not built (make -C bench/mpi)"
		ktap_skip "coll: $want rows of $n ranks, 0 wrong elements" "not built"
		return
	fi
	MPI_PER_DEV=$per coll_run -b 8 -e "$max" -f 4 -n 5 -w 1 -t 0.2 \
		-c /tmp/t-ucx-coll.csv
	st=$?
	diag "$(grep -E '^ *(allreduce|alltoall|bcast) +8 ' /tmp/t-ucx-coll.out)"
	ktap_result "coll, $what: exit 0" $st "exit $st" \
		"$(tail -n 15 /tmp/t-ucx-coll.err)"
	rows=$(awk -F, -v n=$n 'NR > 1 && $4 == n && $9 == 0' \
		/tmp/t-ucx-coll.csv 2>/dev/null | wc -l)
	ktap_result "coll: $want rows of $n ranks, 0 wrong elements" \
		"$([ "$rows" -eq "$want" ] && grep -q '^# coll: ok, 0 wrong elements' \
			/tmp/t-ucx-coll.out; echo $?)" "rows: $rows" \
		"$(tail -n 3 /tmp/t-ucx-coll.out)"
}

# 9 sizes (8, 32, ..., 512 KiB), then 7 (to 32 KiB).
coll_case 1 1M 27 "2 ranks: 8 B .. 512 KiB"
# Ranks 0, 1 on sroce1 and 2, 3 on sroce2: each device also carries RC QPs
# connected to its own GID (no shared-memory transport).
coll_case 2 32K 21 "4 ranks (2 per device): 8 B .. 32 KiB"
ktap_done
