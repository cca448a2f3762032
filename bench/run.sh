#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/run.sh - `make bench`: perftest on rdma_rxe and on sroce in ONE
# guest boot, same shape of topology (a veth pair each), and a table of
# both with the sroce/rxe ratio.  Each row runs SROCE_BENCH_ROUNDS times
# (default 3) on each driver, the two taking turns, and the median run is
# reported: a noisy host then weighs on both sides alike, and one
# disturbed run does not decide a row.  Results: bench/results/<stamp>.md
# and .csv (the CSV keeps every run), <stamp>-virtio.* over virtio-net.
# Absolute numbers under TCG mean little; the ratio is the point.
#
#   bench/run.sh --table CSV [MTU [LINK]]   table of a saved run (LINK:
#                            veth, the default, or virtio-net)
#   bench/run.sh [--quick]   SROCE_BENCH_MTU=9000 for IB MTU 4096,
#                            SROCE_BENCH_NET=virtio for virtio-net links,
#                            SROCE_BENCH_ONLY=rxe|sroce for one side,
#                            SROCE_BENCH_TOOLS="ib_write_bw ..." and
#                            SROCE_BENCH_SIZES="65536 ..." and
#                            SROCE_BENCH_QPS="1 4" for part of the matrix,
#                            SROCE_BENCH_ROUNDS=N runs per row and driver
#                            (SROCE_BENCH_LAT_ROUNDS, default 7, for the
#                            latency rows)
#
# rdma_rxe (Linux 6.1) only works in init_net, so its two devices sit on a
# veth pair in init_net with policy routing that sends traffic between the
# two local addresses through the veth instead of lo:
#
#   +------------------------- init_net ---------------------------+
#   |  rxe1 on r1 10.13.0.1  ======== veth ========  10.13.0.2 r2 rxe2 |
#   +---------------------------------------------------------------+
#
# sroce devices live in two namespaces (tests/integration/lib.sh):
#
#   ns1: sroce1 on v1 10.11.0.1  ======== veth ========  10.11.0.2 v2 sroce2 :ns2
#
# SROCE_BENCH_NET=virtio: the same two pictures with real NIC drivers
# instead of the veths.  The guest boots with four virtio-net NICs, two
# back-to-back pairs each on a QEMU hub of its own (vm-run --nic-pair
# hub2): the first pair, renamed r1/r2, carries rxe; the second, moved
# into ns1/ns2 as v1/v2, carries sroce.  Receive interrupts, NAPI and
# QEMU's queues then weigh on both, and a packet can be late or (ring
# full) dropped: the table also counts each side's requester
# retransmissions (sroce's req_retransmits, rxe's completer_retry_err).

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
top=$(cd "$here/.." && pwd -P)

# make_table CSV MTU [LINK]: one row per (test, size, qps) with rxe, sroce,
# the ratio, and for the bandwidth rows the kernel CPU time each spent per
# GB moved (system, irq and softirq time of the whole guest during the
# client's run, connection setup included: the driver's work, without
# perftest's busy polling in user space).  LINK (veth) names the links in
# the title.  A CSV with retransmission counts (column 9) gets a column of
# them, the sum over the row's runs on both devices of a side, if the
# link is not veth or a count is not 0.
make_table() {
awk -F, -v mtu="$2" -v link="${3:-veth}" '
NR == 1 { next }
{
	key = $2 "," $3 "," $4
	if (!(key in seen)) { seen[key] = 1; order[n++] = key }
	val[$1, key] = $5
	if ($7 > 0 && $6 != "") cpu[$1, key] = sprintf("%.1f", $6 / 100 / ($7 / 1e9))
	if (NF >= 9 && $9 != "") {
		rt[$1, key] = $9
		if (link != "veth" || $9 > 0) has_rt = 1
	}
}
END {
	printf "# sroce vs rdma_rxe (one guest boot, %s MTU %s)\n\n", link, mtu
	printf "| test | size | QPs | rxe | sroce | sroce/rxe | kernel CPU s/GB rxe / sroce |"
	print has_rt ? " retransmits rxe / sroce |" : ""
	printf "|---|---:|---:|---:|---:|---:|---:|"
	print has_rt ? "---:|" : ""
	for (i = 0; i < n; i++) {
		k = order[i]; split(k, f, ",")
		a = val["rxe", k]; b = val["sroce", k]
		unit = (f[1] ~ /lat/) ? " us" : " MB/s"
		r = "-"
		if (a > 0 && b > 0) r = sprintf("%.2f", (f[1] ~ /lat/) ? a / b : b / a)
		c = "-"
		if ((("rxe", k) in cpu) || (("sroce", k) in cpu))
			c = (("rxe", k) in cpu ? cpu["rxe", k] : "-") " / " \
			    (("sroce", k) in cpu ? cpu["sroce", k] : "-")
		printf "| %s | %s | %s | %s | %s | %s | %s |", f[1], f[2], f[3],
			(a == "" ? "FAIL" : a unit), (b == "" ? "FAIL" : b unit), r, c
		if (has_rt)
			printf " %s / %s |", (("rxe", k) in rt ? rt["rxe", k] : "-"),
				(("sroce", k) in rt ? rt["sroce", k] : "-")
		printf "\n"
	}
	print "\nEach value is the median of the runs listed in the CSV (column runs)."
	print "Ratio: throughput sroce/rxe; latency rxe/sroce (higher is better for sroce)."
	print "Kernel CPU s/GB: lower is better; 2 vCPUs, USER_HZ 100."
	if (has_rt)
		print "Retransmits: requester retransmissions over all runs of the row."
}' "$1"
}

# bench/run.sh --table CSV [MTU [LINK]]: only print the table of a saved CSV.
if [ "${1:-}" = --table ]; then
	make_table "${2:?CSV}" "${3:-1500}" "${4:-veth}"
	exit
fi

net=${SROCE_BENCH_NET:-veth}
case $net in
veth) nic_pair=() suffix='' link=veth ;;
virtio) nic_pair=(--nic-pair hub2) suffix=-virtio link=virtio-net ;;
*) echo "bench: SROCE_BENCH_NET is veth or virtio, not '$net'" >&2; exit 2 ;;
esac

if [ -z "${SROCE_VM:-}" ]; then
	stamp=$(date -u +%Y%m%d-%H%M%S)
	res=$(mktemp -d /tmp/sroce-bench.XXXXXX)
	# A benchmark is not a test: rdma_rxe WARNs under load on 6.1
	# (rxe_completer), so the guest must not panic on a warning.  vm-run
	# still reports any splat (exit 3); the tables are kept and the splat
	# is shown, not hidden.
	"$top/tests/vm/vm-run" --timeout "${SROCE_BENCH_TIMEOUT:-3600}" \
		--results "$res" --append "panic_on_warn=0" "${nic_pair[@]}" \
		-- "$here/run.sh" "$@" 2>"$res.err"
	rc=$?
	if [ $rc -eq 3 ]; then
		echo "bench: a kernel warning was logged during the run:"
		grep -E 'WARNING|RIP:' "$res.err" | head -n 10
		[ -s "$res/bench.md" ] && rc=0
	fi
	rm -f "$res.err"
	mkdir -p "$here/results"
	for f in bench.md bench.csv; do
		[ -s "$res/$f" ] && cp "$res/$f" "$here/results/$stamp$suffix.${f#bench.}"
	done
	[ -s "$res/bench.md" ] && echo "bench: results in bench/results/$stamp$suffix.md"
	rm -rf "$res"
	exit $rc
fi

. "$top/tests/integration/lib.sh"
. "$top/tests/integration/dp-lib.sh"

quick=
[ "${1:-}" = --quick ] && quick=1
mtu=${SROCE_BENCH_MTU:-1500}
rounds=${SROCE_BENCH_ROUNDS:-3}
# Latency rows are short and their runs spread more (10 % between runs of
# one driver in one boot): more of them decide the median.
lat_rounds=${SROCE_BENCH_LAT_ROUNDS:-7}
out=${SROCE_RESULTS:-/tmp}
csv=$out/bench.csv
md=$out/bench.md

# Iterations per message size: enough bytes to average over, bounded time.
# A multiple of 100, perftest's default --cq-mod: with -q 4 and, say, 2048
# iterations, perftest counts each CQE as 100 sends, so the QPs that finish
# first overshoot the total, perftest stops polling while one QP still
# waits for completions to post its last sends, and spins forever.  (That
# is perftest, not the device: whichever QP lags when the others finish.)
iters() {
	local size=$1 n
	n=$((64 * 1024 * 1024 / size))
	[ -n "$quick" ] && n=$((n / 8))
	[ $n -gt 20000 ] && n=20000
	n=$((n / 100 * 100))
	[ $n -lt 100 ] && n=100
	echo $n
}

# Kernel CPU jiffies of the whole guest (system+irq+softirq): the work of
# the driver and the network stack; perftest's polling is user time.
cpu_busy() {
	local _ u n s i irq sirq
	read -r _ u n s i _ irq sirq _ </proc/stat
	echo $((s + irq + sirq))
}

# perf_run NS_SERVER NS_CLIENT DEV_S DEV_C GID_S GID_C SERVER_IP TOOL ARGS...
# Prints the parsed result line of the client, or nothing on failure.
# perftest under TCG sometimes prints all zeros (clock calibration): rerun.
perf_run() {
	local nss=$1 nsc=$2 ds=$3 dc=$4 gs=$5 gc=$6 ip=$7 tool=$8 try line
	shift 8
	local pre_s=() pre_c=()
	[ -n "$nss" ] && pre_s=(ip netns exec "$nss")
	[ -n "$nsc" ] && pre_c=(ip netns exec "$nsc")
	# Latency tests and small-message rows (up to 256 bytes): pin the
	# server to CPU 0 and the client to CPU 1, for rxe and sroce alike.
	# Left to the scheduler, the two processes share one vCPU in some
	# runs and not in others: a latency test then waits a time slice per
	# iteration (4 ms at HZ 250), and a 64-byte row swings by 2x between
	# runs of the same driver (1.44 / 0.72 MB/s for rxe's READ).  Larger
	# rows are left to the scheduler, as users run them: pinned, rxe's
	# 1 MiB WRITE at MTU 1500 fell from about 50 to 31 MB/s.
	local size=0 a prev=
	for a in "$@"; do
		[ "$prev" = -s ] && size=$a
		prev=$a
	done
	if [ "${tool%_lat}" != "$tool" ] || [ "$size" -le 256 ]; then
		pre_s=(taskset -c 0 "${pre_s[@]}")
		pre_c=(taskset -c 1 "${pre_c[@]}")
	fi
	for try in 1 2 3; do
		"${pre_s[@]}" timeout 120 "$tool" -d "$ds" -x "$gs" "$@" \
			>/tmp/bench-srv.log 2>&1 &
		local spid=$!
		# Until the server listens on perftest's TCP port (18515),
		# at most 10 s: a fixed 1.5 s was too short for a latency
		# server started on a busy vCPU, whose client then could not
		# connect.
		wait_until 10 port_listening "$nss" 18515
		local b0 b1
		b0=$(cpu_busy)
		"${pre_c[@]}" timeout 120 "$tool" -d "$dc" -x "$gc" "$@" "$ip" \
			>/tmp/bench-cli.log 2>&1
		b1=$(cpu_busy)
		wait $spid 2>/dev/null
		line=$(awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+/ {l=$0} END {print l}' \
			/tmp/bench-cli.log)
		if [ -n "$line" ] && ! awk '{exit !($4 + 0 == 0)}' <<<"$line"; then
			echo "$line $((b1 - b0))"
			return 0
		fi
		sleep 1
	done
	sed 's/^/# /' /tmp/bench-cli.log | tail -n 5 >&2
	return 1
}

# find_nics: nics=(the virtio-net NICs), waiting up to 10 s for the four
# of --nic-pair hub2.
nics=()
find_nics() {
	modprobe virtio_net 2>/dev/null
	wait_until 10 test -n "$(virtio_nics | sed -n 4p)"
	read -ra nics <<<"$(virtio_nics | xargs)"
	[ ${#nics[@]} -ge 4 ] || {
		echo "# bench: ${#nics[@]} virtio-net NICs, 4 needed (vm-run --nic-pair hub2)"
		return 1
	}
}

# nic_rename NIC NAME: NIC (down) renamed NAME.
nic_rename() {
	ip link set "$1" down && ip link set "$1" name "$2"
}

setup_rxe() {
	if [ "$net" = virtio ]; then
		nic_rename "${nics[0]}" r1 && nic_rename "${nics[1]}" r2 &&
			rxe_pair_up "$mtu"
	else
		rxe_veth_up "$mtu"
	fi
}

teardown_rxe() {
	rxe_veth_down
}

setup_sroce() {
	local i
	load_sroce || return 1
	if [ "$net" = virtio ]; then
		# make_two_ns's picture on NICs 3 and 4
		for i in 1 2; do
			ip netns add ns$i && ip -n ns$i link set lo up &&
				nic_rename "${nics[i + 1]}" v$i &&
				ip link set v$i netns ns$i &&
				ip -n ns$i addr add 10.11.0.$i/24 dev v$i &&
				ip -n ns$i link set v$i up || return 1
		done
	else
		make_two_ns --no-rdma || return 1
	fi
	ip -n ns1 link set v1 mtu "$mtu"
	ip -n ns2 link set v2 mtu "$mtu"
	add_link sroce1 sroce v1 ns1 && add_link sroce2 sroce v2 ns2 || return 1
	wait_gid sroce1 10.11.0.1 && wait_gid sroce2 10.11.0.2
}

# The two sides, as perf_run's first seven arguments: server and client
# namespace, device, address; the server's address last.
# shellcheck disable=SC2034 # used through run_side's nameref
rxe_side=("" "" rxe2 rxe1 10.13.0.2 10.13.0.1 10.13.0.2)
# shellcheck disable=SC2034
sroce_side=(ns2 ns1 sroce2 sroce1 10.11.0.2 10.11.0.1 10.11.0.2)

# retransmits SIDE: the requester retransmissions of both devices of SIDE
# so far (sroce: req_retransmits; rxe: completer_retry_err, its count of
# retries after an ACK timeout or a NAK).
retransmits() {
	local -n s=${1}_side
	local ctr=req_retransmits
	[ "$1" = rxe ] && ctr=completer_retry_err
	echo $(($(hw_counter "${s[2]}" $ctr) + $(hw_counter "${s[3]}" $ctr)))
}

# run_side SIDE TOOL ARGS...: one perftest run on SIDE (rxe or sroce);
# prints "value kernel_jiffies iterations retransmits", or nothing on
# failure.  The value is the average bandwidth (MB/s) or the typical
# latency (us).
run_side() {
	local -n side=${1}_side
	local who=$1 tool=$2 gs gc r rt0
	shift 2
	gs=$(gid_index "${side[2]}" "${side[4]}")
	gc=$(gid_index "${side[3]}" "${side[5]}")
	rt0=$(retransmits "$who")
	r=$(perf_run "${side[0]}" "${side[1]}" "${side[2]}" "${side[3]}" \
		"$gs" "$gc" "${side[6]}" "$tool" "$@") || return 0
	rt0=$(($(retransmits "$who") - rt0))
	set -- $r
	case $tool in
	# bytes iters t_min t_max t_typical t_avg ... busy
	*_lat) echo "$5 ${!#} $2 $rt0" ;;
	# bytes iters bw_peak bw_avg msg_rate busy
	*) echo "$4 $6 $2 $rt0" ;;
	esac
}

# run_row TOOL SIZE QPS ARGS...: $rounds rounds of the row on each side,
# the two sides alternating which goes first, so that a change of load
# on the host during a row weighs on both.  One CSV line per side: the
# median run (by value), with every run's value in the last column.
run_row() {
	local tool=$1 size=$2 q=$3 r side order
	shift 3
	local -A got=() failed=()
	local line
	for ((r = 1; r <= rounds; r++)); do
		order="$sides"
		[ $((r % 2)) -eq 0 ] && order=$(tr ' ' '\n' <<<"$sides" | tac | xargs)
		for side in $order; do
			# A side that failed a row (perf_run already tried three
			# times) is not run again: rxe's READ of 1 MiB with 4 QPs
			# hangs until the timeout every time.
			[ -n "${failed[$side]:-}" ] && continue
			line=$(run_side "$side" "$tool" "$@")
			[ -z "$line" ] && failed[$side]=1
			got[$side]+="$line"$'\n'
		done
	done
	for side in $sides; do
		# value jiffies iters, sorted by value: the middle run (with an
		# even count, the mean of the middle two)
		local med all rt
		med=$(sort -g <<<"${got[$side]}" | awk 'NF { l[n++] = $0 }
			END {
				if (!n) exit
				split(l[int((n - 1) / 2)], a, " ")
				split(l[int(n / 2)], b, " ")
				printf "%.2f %d %d\n", (a[1] + b[1]) / 2,
					(a[2] + b[2]) / 2, (a[3] + b[3]) / 2
			}')
		all=$(awk 'NF { printf "%s%s", s, $1; s = ";" }' <<<"${got[$side]}")
		set -- $med
		rt=$(awk 'NF { n += $4 } END { print n + 0 }' <<<"${got[$side]}")
		if [ "${tool%_lat}" != "$tool" ]; then
			echo "$side,$tool,$size,$q,${1:-},,,$all,$rt" >>"$csv"
		else
			echo "$side,$tool,$size,$q,${1:-},${2:-},$((${3:-0} * size * q)),$all,$rt" >>"$csv"
		fi
		echo "# $side $tool size=$size qps=$q median=${1:-FAIL} runs=$all retransmits=$rt"
	done
}

echo "label,test,size,qps,value,kernel_jiffies,bytes,runs,retransmits" >"$csv"
echo "# bench: $link MTU $mtu, $(nproc) vCPUs, $(uname -r), $rounds rounds ($lat_rounds for latency)"
sides=
if [ "$net" = virtio ] && ! find_nics; then
	echo "# bench: no virtio-net NICs"
	exit 1
fi
only=${SROCE_BENCH_ONLY:-}	# "rxe" or "sroce" to run one side
if [ "$only" != sroce ]; then
	if setup_rxe; then sides="rxe"; else echo "# bench: rdma_rxe setup failed"; fi
fi
if [ "$only" != rxe ]; then
	if setup_sroce; then sides="$sides sroce"; else echo "# bench: sroce setup failed"; fi
fi
sides=$(xargs <<<"$sides")

for tool in ${SROCE_BENCH_TOOLS:-ib_write_bw ib_send_bw ib_read_bw}; do
	case $tool in *_bw) ;; *) continue ;; esac
	for size in ${SROCE_BENCH_SIZES:-64 4096 65536 1048576}; do
		for q in ${SROCE_BENCH_QPS:-1 4}; do
			run_row "$tool" "$size" "$q" -F -s "$size" -q "$q" \
				-n "$(iters "$size")"
		done
	done
done
for tool in ${SROCE_BENCH_TOOLS:-ib_send_lat ib_write_lat}; do
	case $tool in *_lat) ;; *) continue ;; esac
	rounds=$lat_rounds run_row "$tool" 2 1 -F -s 2 \
		-n "$([ -n "$quick" ] && echo 200 || echo 2000)"
done
if [ "$net" = virtio ]; then
	# Where a retransmission's packet was lost, if a NIC saw it.
	for d in r1 r2 ns1:v1 ns2:v2; do
		pre=()
		[ "${d#*:}" != "$d" ] && pre=(-n "${d%%:*}")
		echo "# $d: $(ip "${pre[@]}" -s -s link show "${d#*:}" 2>/dev/null |
			awk '/RX:/ { getline; print "rx packets " $2 " dropped " $4 " missed " $5 }
			/TX:/ { getline; print "tx packets " $2 " dropped " $4 }' | xargs)"
	done
fi
teardown_rxe

make_table "$csv" "$mtu" "$link" >"$md"
cat "$md"
