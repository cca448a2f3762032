# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# ucx-lib.sh - UCX and Open MPI over RDMA devices in a guest, shared by
# bench/mpi/run.sh (`make bench-mpi`) and tests/integration/t-ucx.sh.
# Sourced after tests/integration/lib.sh.  Provides
#   - ucx_env DEV:PORT GID TLS: the environment of one UCX process;
#   - ucx_perf SRV_DEV SRV_GID CLI_DEV CLI_GID TLS TEST SIZE [ITERS]: one
#     ucx_perftest run, prints the overall latency (us) of a latency test
#     or the overall bandwidth (MiB/s) of a bandwidth test;
#   - mpi_coll DEV1 GID1 DEV2 GID2 TIMEOUT CMD...: an MPI program, one rank
#     (MPI_PER_DEV ranks) per device, over the UCX PML;
#   - ucx_setup_rxe / ucx_teardown_rxe: rxe1 and rxe2 on a veth pair in
#     init_net (rdma_rxe on 6.1 works only there), with the policy routing
#     that sends traffic between the two local addresses through the veth
#     (rxe_veth_up of tests/integration/lib.sh, as bench/run.sh).
# The processes stay in init_net: see bench/mpi/run.sh for why, and
# Documentation/mpi.rst for every setting.

# ucx_env DEV:PORT GID TLS
ucx_env() {
	# UD_VERBS_ETH_DGID_CHECK: UCX 1.13 takes a received datagram's RoCE
	# packet type from the CQE's SL, as mlx5 reports it; a driver that
	# reports the SL (sroce, rdma_rxe) gets every IPv4 datagram dropped.
	echo "UCX_NET_DEVICES=$1 UCX_IB_GID_INDEX=$2 UCX_TLS=$3" \
		"UCX_UD_VERBS_ETH_DGID_CHECK=n"
}

ucx_port=13337

# ucx_listening: ucx_perftest's server listens (0x3419 = 13337).
ucx_listening() {
	grep -q ':3419 00000000:0000 0A' /proc/net/tcp
}

# ucx_perf SRV_DEV SRV_GID CLI_DEV CLI_GID TLS TEST SIZE [ITERS]
ucx_perf() {
	local sd=$1 sg=$2 cd=$3 cg=$4 tls=$5 t=$6 size=$7 n=${8:-}
	local srv st
	if [ -z "$n" ]; then
		case $t in
		*_lat | ucp_get) n=1000 ;;
		*) n=300 ;;
		esac
	fi
	# The server learns the test from the client; pinned apart, as
	# bench/run.sh pins perftest (a shared vCPU costs a time slice per
	# round trip of a polling test).
	# shellcheck disable=SC2046 # ucx_env is words by design
	env $(ucx_env "$sd" "$sg" "$tls") taskset -c 0 timeout 120 \
		ucx_perftest -p $ucx_port >/tmp/ucx-srv.log 2>&1 &
	srv=$!
	wait_until 20 ucx_listening
	# shellcheck disable=SC2046
	env $(ucx_env "$cd" "$cg" "$tls") taskset -c 1 timeout 100 \
		ucx_perftest 127.0.0.1 -p $ucx_port -t "$t" -s "$size" \
		-n "$n" -w $((n / 10)) >/tmp/ucx-cli.log 2>&1
	st=$?
	wait "$srv" 2>/dev/null
	if [ $st -ne 0 ]; then
		{
			echo "# ucx_perftest -t $t -s $size ($tls): exit $st"
			grep -E 'ERROR|Fatal|error' /tmp/ucx-cli.log /tmp/ucx-srv.log |
				head -n 5 | sed 's/^/#   /'
		} >&2
		return 1
	fi
	# Final: iters pct_lat avg_lat overall_lat avg_bw overall_bw mr mr
	awk -v t="$t" -v s="$size" '/^Final:/ {
		if (t ~ /_lat$/ || (t == "ucp_get" && s <= 64)) print $5
		else print $7
	}' /tmp/ucx-cli.log
}

# mpi_coll DEV1 GID1 DEV2 GID2 TIMEOUT CMD...: rank 0 on DEV1, rank 1 on
# DEV2 (an MPMD launch, one app context per device); with MPI_PER_DEV=N,
# ranks 0..N-1 on DEV1 and N..2N-1 on DEV2.  Ranks on one device reach each
# other over rc_verbs too (a QP connected to the device's own GID), since
# no shared-memory transport is allowed.
mpi_coll() {
	local d1=$1 g1=$2 d2=$3 g2=$4 tmo=$5 np=${MPI_PER_DEV:-1}
	shift 5
	# shellcheck disable=SC2046
	OMPI_MCA_pml=ucx OMPI_MCA_pml_ucx_devices=any OMPI_MCA_btl=self \
		OMPI_MCA_osc=^ucx,pt2pt \
		timeout "$tmo" mpirun --allow-run-as-root --oversubscribe \
		-np "$np" env $(ucx_env "$d1" "$g1" rc_verbs,ud_verbs,self) "$@" : \
		-np "$np" env $(ucx_env "$d2" "$g2" rc_verbs,ud_verbs,self) "$@"
}

ucx_setup_rxe() {
	rxe_veth_up
}

ucx_teardown_rxe() {
	rxe_veth_down
}
