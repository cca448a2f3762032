#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/mpi/run.sh - `make bench-mpi`: UCX (ucx_perftest), Open MPI
# (coll, bench/mpi/coll.c, over the UCX PML; 2 and 4 ranks) and libfabric
# (fi_pingpong) on sroce and on rdma_rxe in ONE guest boot, and qperf's RC
# tests with completion events and with polling.  Prints the tables side by side; results in
# bench/results/mpi-<stamp>.md and .csv.
#
#   bench/mpi/run.sh        SROCE_MPI_ONLY=sroce|rxe for one side,
#                           SROCE_MPI_ARGS="..." coll's options
#                           (default -e 16M -w 1 -t 0.3),
#                           SROCE_MPI_UCX_TESTS="tag_lat ..." the UCX rows,
#                           SROCE_MPI_PARTS="ucx qperf mpi mpi4 fabric"
#                           what to run (mpi4: coll with 4 ranks, two per
#                           device; fabric: libfabric's fi_pingpong)
#   bench/mpi/run.sh --table CSV    the table of a saved run
#
# Topologies (the same as bench/run.sh):
#
#   +-------- ns1 --------+      +-------- ns2 --------+
#   | sroce1 on v1        | veth | v2 on sroce2        |
#   |   10.11.0.1     =============     10.11.0.2      |
#   +---------------------+      +---------------------+
#   +------------------------- init_net ---------------------------+
#   |  rxe1 on r1 10.13.0.1  ======== veth ========  10.13.0.2 r2 rxe2 |
#   +---------------------------------------------------------------+
#
# The UCX and MPI processes of both drivers stay in init_net.  Open MPI
# 4.1 / PMIx 4.2 ranks reach their local server at tcp4://127.0.0.1, which
# a rank behind `ip netns exec` (another loopback) cannot; ucx_perftest's
# two sides meet over TCP on 127.0.0.1 as well.  Each process gets its
# device through UCX_NET_DEVICES; the kernel resolves a GID's route in the
# namespace of the GID's netdev (drivers/infiniband/core/addr.c), so
# sroce1's traffic leaves through v1 and crosses to ns2.
#
# Each setting has a reason (Documentation/mpi.rst):
#   UCX_UD_VERBS_ETH_DGID_CHECK=n  UCX 1.13's UD transport reads the RoCE
#                               packet type (IPv4 or IPv6) of a received
#                               datagram from the CQE's SL field, the way
#                               mlx5 hardware reports it.  A driver that
#                               reports the SL (0), sroce and rdma_rxe
#                               alike, makes UCX compare 16 bytes of the
#                               IPv4 header with its GID and drop every
#                               wire-up datagram: "UD endpoint ...
#                               unhandled timeout error", abort.
#   --mca pml ucx               Debian's openmpi-mca-params.conf says
#                               pml = ^ucx.
#   --mca pml_ucx_devices any   the default, mlx*, is matched against the
#                               driver of /sys/class/infiniband/DEV/device,
#                               which a software device does not have.
#   --mca btl self              no vader or TCP path for anything.
#   UCX_TLS=rc_verbs,ud_verbs,self   every byte between ranks over RDMA.
#   UCX_NET_DEVICES per rank    every device is visible to every rank.
#   UCX_IB_GID_INDEX            the IPv4 RoCE v2 GID, not UCX's choice.
#   ulimit -l unlimited         UCX registers its receive rings up front.
#   FI_UNIVERSE_SIZE=64 (RxM)   RxM's one verbs CQ holds (128 + 128) x
#                               the universe size (default 1024) entries,
#                               262144: more than max_cqe (sroce 65536,
#                               rxe 32767), fi_enable() fails with EINVAL.

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
top=$(cd "$here/../.." && pwd -P)

# make_table CSV: one row per measurement, sroce and rxe side by side.
make_table() {
	awk -F, '
	$1 == "ucx" || $1 == "qperf" || $1 == "fabric" {
		k = $1 " " $3 " " $4 ($1 != "qperf" ? " " $5 " B" : "")
		if (!(k in seen)) { seen[k] = 1; ord[n++] = k }
		v[$2, k] = $6 " " $7
	}
	$1 == "mpi" {
		k = "mpi " $3 " " $4 " ranks " $5 " B"
		if (!(k in seen)) { seen[k] = 1; ord[n++] = k }
		v[$2, k] = sprintf("%.1f us, busbw %.2f MB/s%s", $6, $8 * 1000,
				   $9 > 0 ? ", " $9 " WRONG" : "")
	}
	END {
		print "| what | sroce | rxe |"
		print "|---|---:|---:|"
		for (i = 0; i < n; i++) {
			k = ord[i]
			a = (("sroce", k) in v) ? v["sroce", k] : "-"
			b = (("rxe", k) in v) ? v["rxe", k] : "-"
			printf "| %s | %s | %s |\n", k, a, b
		}
	}' "$1"
}

# bench/mpi/run.sh --table CSV: only print the table of a saved run.
if [ "${1:-}" = --table ]; then
	make_table "${2:?CSV}"
	exit
fi

if [ -z "${SROCE_VM:-}" ]; then
	stamp=$(date -u +%Y%m%d-%H%M%S)
	res=$(mktemp -d /tmp/sroce-bench-mpi.XXXXXX)
	# A benchmark, not a test: rdma_rxe WARNs under load on 6.1, so the
	# guest must not panic on a warning; vm-run still reports it (exit 3).
	"$top/tests/vm/vm-run" --timeout "${SROCE_BENCH_TIMEOUT:-3000}" \
		--results "$res" --append "panic_on_warn=0" \
		-- "$here/run.sh" "$@"
	rc=$?
	[ $rc -eq 3 ] && [ -s "$res/mpi.md" ] &&
		echo "bench-mpi: a kernel warning was logged (see above)" && rc=0
	mkdir -p "$top/bench/results"
	for f in mpi.md mpi.csv; do
		[ -s "$res/$f" ] && cp "$res/$f" "$top/bench/results/mpi-$stamp.${f#mpi.}"
	done
	[ -s "$res/mpi.md" ] && echo "bench-mpi: results in bench/results/mpi-$stamp.md"
	rm -rf "$res"
	exit $rc
fi

# shellcheck source=../../tests/integration/lib.sh
. "$top/tests/integration/lib.sh"
# shellcheck source=ucx-lib.sh
. "$here/ucx-lib.sh"
# shellcheck source=../../tests/integration/dp-lib.sh
. "$top/tests/integration/dp-lib.sh"

coll=$top/build/mpi/coll
read -r -a coll_args <<<"${SROCE_MPI_ARGS:--e 16M -w 1 -t 0.3}"
out=${SROCE_RESULTS:-/tmp}
csv=$out/mpi.csv
md=$out/mpi.md
ucx_tests=${SROCE_MPI_UCX_TESTS:-tag_lat tag_bw stream_lat stream_bw \
ucp_put_lat ucp_put_bw ucp_get ucp_am_lat ucp_am_bw}

ulimit -l unlimited

# side NAME: dev1 gid1 dev2 gid2 ns1 ns2 ip2 of a driver's pair.
side() {
	case $1 in
	sroce) echo "sroce1 $(gid_index sroce1 10.11.0.1) sroce2" \
		"$(gid_index sroce2 10.11.0.2) ns1 ns2 10.11.0.2" ;;
	rxe) echo "rxe1 $(gid_index rxe1 10.13.0.1) rxe2" \
		"$(gid_index rxe2 10.13.0.2) - - 10.13.0.2" ;;
	esac
}

# ucx_rows DRV: ucx_perftest over rc_verbs (with ud_verbs for wire-up)
# and over ud_verbs alone; CSV rows "ucx,DRV,TLS,TEST,SIZE,VALUE,UNIT".
ucx_rows() {
	local drv=$1 d1 g1 d2 g2 tls t size v unit
	read -r d1 g1 d2 g2 _ <<<"$(side "$drv")"
	for tls in rc_verbs,ud_verbs,self ud_verbs,self; do
		for t in $ucx_tests; do
			for size in 8 65536; do
				case $t in *_lat) [ $size = 8 ] || continue ;; esac
				case $t in *_bw) [ $size = 8 ] && continue ;; esac
				v=$(ucx_perf "$d2:1" "$g2" "$d1:1" "$g1" "$tls" "$t" \
					"$size")
				unit=us
				case $t in *_bw | ucp_get) unit=MiB/s ;; esac
				if [ "$t" = ucp_get ]; then
					# ucp_get prints latency and bandwidth.
					[ $size = 8 ] && unit=us
				fi
				echo "ucx,$drv,${tls%%,*},$t,$size,${v:-FAIL},$unit" >>"$csv"
			done
		done
	done
}

# mpi_rows DRV [PER_DEV]: coll with PER_DEV ranks (default 1) per device.
mpi_rows() {
	local drv=$1 n=${2:-1} d1 g1 d2 g2 st tag
	read -r d1 g1 d2 g2 _ <<<"$(side "$drv")"
	tag=$drv-$((2 * n))
	MPI_PER_DEV=$n mpi_coll "$d1:1" "$g1" "$d2:1" "$g2" 900 "$coll" \
		"${coll_args[@]}" -c "/tmp/coll-$tag.csv" >"/tmp/coll-$tag.txt" \
		2>"/tmp/coll-$tag.err"
	st=$?
	echo "# coll on $drv, $((2 * n)) ranks: exit $st"
	tail -n 3 "/tmp/coll-$tag.txt"
	[ $st -eq 0 ] || tail -n 20 "/tmp/coll-$tag.err"
	awk -F, -v d="$drv" 'NR > 1 {
		printf "mpi,%s,%s,%s,%s,%s,us,%s,%s\n", d, $1, $4, $2, $6, $8, $9
	}' "/tmp/coll-$tag.csv" >>"$csv" 2>/dev/null
}

# fabric_rows DRV: libfabric's fi_pingpong (data checked, -c) on the verbs
# provider's FI_EP_MSG and on RxM (FI_EP_RDM) per size; CSV rows
# "fabric,DRV,msg|rdm,fi_pingpong,SIZE,USEC,us" (usec per transfer).
fabric_rows() {
	local drv=$1 d1 d2 n1 n2 ip ep prov size v s univ
	read -r d1 _ d2 _ n1 n2 ip <<<"$(side "$drv")"
	for ep in msg rdm; do
		prov=verbs univ=1024
		# RxM's CQ size: see FI_UNIVERSE_SIZE at the top.
		[ $ep = rdm ] && prov='verbs;ofi_rxm' univ=64
		for size in 64 4096 65536; do
			in_ns "$n2" timeout 120 env FI_UNIVERSE_SIZE=$univ \
				fi_pingpong -p "$prov" -e $ep \
				-d "$d2" -I 200 -S $size -c >/tmp/fi-srv.log 2>&1 &
			s=$!
			wait_until 20 port_listening "$n2" 47592
			v=$(in_ns "$n1" timeout 100 env FI_UNIVERSE_SIZE=$univ \
				fi_pingpong -p "$prov" -e $ep \
				-d "$d1" -I 200 -S $size -c "$ip" 2>&1 |
				awk '$2 == 200 && $7 ~ /^[0-9.]+$/ { print $7 }')
			wait "$s" || v=
			echo "fabric,$drv,$ep,fi_pingpong,$size,${v:-FAIL},us" >>"$csv"
		done
	done
}

# qperf_rows DRV: rc_lat with completion events (qperf's default) and
# with polling (-cp1), rc_bw and rc_rdma_write_bw; rdma_cm (-cm1).
qperf_rows() {
	local drv=$1 n1 n2 ip t mode v s
	read -r _ _ _ _ n1 n2 ip <<<"$(side "$drv")"
	local pre_s=() pre_c=()
	[ "$n2" != - ] && pre_s=(ip netns exec "$n2")
	[ "$n1" != - ] && pre_c=(ip netns exec "$n1")
	"${pre_s[@]}" timeout 300 qperf >/dev/null 2>&1 &
	s=$!
	sleep 1
	for t in rc_lat rc_bw rc_rdma_write_bw; do
		for mode in 0 1; do
			[ $t != rc_lat ] && [ $mode = 1 ] && continue
			v=$("${pre_c[@]}" timeout 60 qperf "$ip" -cm1 -cp "$mode" \
				-lca 1 -rca 0 -t 3 $t 2>&1 |
				awk '$2 == "=" { print $3, $4 }')
			echo "qperf,$drv,rc,$t-cp$mode,default,${v:-FAIL}" |
				tr ' ' , >>"$csv"
		done
	done
	kill "$s" 2>/dev/null
	wait "$s" 2>/dev/null
}


echo "kind,driver,tl,test,size,value,unit,busbw,errors" >"$csv"
only=${SROCE_MPI_ONLY:-}
sides=
if [ "$only" != rxe ]; then
	if load_sroce && make_two_ns; then sides+=" sroce"; else echo "# sroce setup failed"; fi
fi
if [ "$only" != sroce ]; then
	if ucx_setup_rxe; then sides+=" rxe"; else echo "# rxe setup failed"; fi
fi
echo "# $(ucx_info -v | head -n 1); $(mpirun --version 2>&1 | head -n 1)"
parts=${SROCE_MPI_PARTS:-ucx qperf mpi mpi4 fabric}
for drv in $sides; do
	for p in $parts; do
		case $p in
		ucx) ucx_rows "$drv" ;;
		qperf) qperf_rows "$drv" ;;
		mpi) mpi_rows "$drv" 1 ;;
		mpi4) mpi_rows "$drv" 2 ;;
		fabric) fabric_rows "$drv" ;;
		esac
	done
done
{
	echo "# UCX, MPI and qperf: sroce and rdma_rxe, one guest boot"
	echo
	make_table "$csv"
	echo
	echo "ucx: ucx_perftest overall latency (us, half round trip) or"
	echo "bandwidth (MB/s); tl is UCX_TLS (rc_verbs rows wire up over"
	echo "ud_verbs).  mpi: coll, 2 ranks (one per device) or 4 (two per"
	echo "device), avg latency and busbw per size.  fabric: fi_pingpong"
	echo "with its data check, usec per transfer, verbs FI_EP_MSG or RxM."
	echo "qperf: -cp0 waits for completion events, -cp1 polls."
} >"$md"
cat "$md"
ucx_teardown_rxe
