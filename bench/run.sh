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
#                            latency rows); SROCE_BENCH_TOOLS may also
#                            name "mem" (the kernel memory table; by
#                            default over veth) and "copycrc" (the
#                            copy+CRC bound; by default at IB MTU 4096),
#                            e.g. SROCE_BENCH_TOOLS=mem for that table
#                            alone
#
# The memory table: bytes of slab and of other kernel pages per RC QP
# (bench/memqp.c: 256 QPs with perftest's queue sizes, in INIT and in
# RTS) and per device (`rdma link add` of SROCE_BENCH_MEM_DEVS, default
# 4, devices on veths of their own), rxe next to sroce, medians of
# SROCE_BENCH_MEM_ROUNDS (default 5) rounds.  The bound table: the
# memcpy and CRC-32 speed of one vCPU with the guest kernel's
# implementations (bench/copycrc.c), 1 / (1/copy + 1/crc), and sroce's
# one-QP bandwidth rows of 64 KiB and 1 MiB as a share of it.
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
# link is not veth or a count is not 0.  Then the memory table (rows
# mem_*) and the copy+CRC bound (rows of label "cpu"), if the CSV has them.
make_table() {
awk -F, -v mtu="$2" -v link="${3:-veth}" '
NR == 1 { next }
$1 == "cpu" { cpu_row[$2, $3] = $5; if ($2 ~ /^bound[.]/) bound[$3] = $2; next }
$2 ~ /^mem_/ { mem[$1, $2] = $5; mem_n[$2] = $3; next }
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
	printf "# sroce vs rdma_rxe (one guest boot, %s MTU %s)\n", link, mtu
	if (n) perf_table()
	for (k in mem_n) { mem_table(); break }
	for (k in bound) { bound_table(); break }
}

function perf_table(	i, k, f, a, b, unit, r, c) {
	printf "\n| test | size | QPs | rxe | sroce | sroce/rxe | kernel CPU s/GB rxe / sroce |"
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
}

# The kernel memory of one object: slab, pages (vmalloc + other) and
# their sum, or "-" when the side did not measure it.
function mem_cell(side, obj, what,	s, p) {
	if (!((side, obj "_slab") in mem)) return what == "total" ? "" : "- | -"
	s = mem[side, obj "_slab"]
	p = mem[side, obj "_vmalloc"] + mem[side, obj "_other"]
	if (what == "total") return s + p
	return s " | " p
}

function mem_table(	i, obj, name, a, b, r) {
	print "\n## Kernel memory (bytes per object)\n"
	print "| object | rxe slab | rxe pages | sroce slab | sroce pages | sroce/rxe |"
	print "|---|---:|---:|---:|---:|---:|"
	split("mem_qp_init mem_qp_rts mem_dev", obj, " ")
	name["mem_qp_init"] = "RC QP in INIT"
	name["mem_qp_rts"] = "RC QP in RTS"
	name["mem_dev"] = "device"
	for (i = 1; i <= 3; i++) {
		if (!(obj[i] "_slab" in mem_n)) continue
		a = mem_cell("rxe", obj[i], "total")
		b = mem_cell("sroce", obj[i], "total")
		r = (a > 0 && b != "") ? sprintf("%.2f", b / a) : "-"
		printf "| %s (%s at a time) | %s | %s | %s |\n", name[obj[i]],
			mem_n[obj[i] "_slab"], mem_cell("rxe", obj[i]),
			mem_cell("sroce", obj[i]), r
	}
	print "\nMedians of the rounds in the CSV.  QP: one PD and CQ, then the QPs"
	print "with perftest'"'"'s queues (128 send, 512 receive WRs, 1 SGE), moved to the"
	print "state (RTS: connected to themselves), bench/memqp.c.  Device: `rdma"
	print "link add` on veths of their own, next to the devices of the run (what a"
	print "driver sets up once per module or namespace is not in it).  slab:"
	print "SReclaimable + SUnreclaim after shrinking the caches; pages: VmallocUsed"
	print "+ other kernel pages (in use, less slab, vmalloc, user, page cache and"
	print "page tables; CSV: mem_*_vmalloc, mem_*_other, mem_*_ptables apart)."
	print "sroce/rxe: of slab + pages."
}

function bound_table(	sz, nb, sizes, i, j, t, b, cp, cr, v, tests, parts, k) {
	split("ib_write_bw ib_send_bw ib_read_bw", tests, " ")
	nb = 0
	for (sz in bound) sizes[++nb] = sz + 0
	for (i = 2; i <= nb; i++)	# a few sizes: insertion sort
		for (j = i; j > 1 && sizes[j - 1] > sizes[j]; j--) {
			t = sizes[j]; sizes[j] = sizes[j - 1]; sizes[j - 1] = t
		}
	# bound.COPY+CRC: the implementations the guest kernel uses
	split(substr(bound[sizes[1]], 7), parts, "+")
	print "\n## sroce against the copy+CRC bound of one vCPU\n"
	printf "| size | memcpy (%s, warm) | CRC-32 (%s) | bound |", parts[1], parts[2]
	for (k = 1; k <= 3; k++) printf " %s 1 QP |", tests[k]
	printf "\n|---:|---:|---:|---:|---:|---:|---:|\n"
	for (i = 1; i <= nb; i++) {
		sz = sizes[i]
		b = cpu_row[bound[sz], sz]
		cp = cpu_row["copy_warm." parts[1], sz]
		cr = cpu_row["crc." parts[2], sz]
		printf "| %s | %s MB/s | %s MB/s | %s MB/s |", sz, cp, cr, b
		for (k = 1; k <= 3; k++) {
			v = val["sroce", tests[k] "," sz ",1"]
			if (v > 0 && b > 0)
				printf " %s MB/s (%.0f %%) |", v, 100 * v / b
			else
				printf " - |"
		}
		printf "\n"
	}
	print "\nbound = 1 / (1/memcpy + 1/CRC): what one vCPU can move when it copies"
	print "and checksums every byte, as each end of sroce does (bench/copycrc.c,"
	print "pinned, in pieces of the IB MTU, the guest kernel'"'"'s memcpy and CRC-32"
	print "implementations; sb8: crc32_le'"'"'s slice-by-8, pclmul: crc32-pclmul;"
	print "the CSV also has the cold copy, glibc'"'"'s memcpy and the other CRC)."
	print "MB/s: 2^20 bytes per second, as perftest."
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
	local _ s irq sirq
	read -r _ _ _ s _ _ irq sirq _ </proc/stat
	echo $((s + irq + sirq))
}

# perf_run NS_SERVER NS_CLIENT DEV_S DEV_C GID_S GID_C SERVER_IP TOOL ARGS...
# Prints the parsed result line of the client, or nothing on failure.
# perftest under TCG sometimes prints all zeros (clock calibration): rerun.
perf_run() {
	local nss=$1 nsc=$2 ds=$3 dc=$4 gs=$5 gc=$6 ip=$7 tool=$8 line
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
	for _ in 1 2 3; do
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

# wants NAME DEFAULT: is NAME (mem, copycrc) to run?  Named in
# SROCE_BENCH_TOOLS, or that is unset and DEFAULT is 1.
wants() {
	if [ -n "${SROCE_BENCH_TOOLS:-}" ]; then
		[[ " $SROCE_BENCH_TOOLS " == *" $1 "* ]]
	else
		[ "$2" = 1 ]
	fi
}

# bench_tool NAME: path of a tool of bench/Makefile (memqp, copycrc),
# built on the host by make bench; built into the guest's /tmp if it is
# missing; nothing printed if it cannot be built.
bench_tool() {
	local b=$top/build/bench/$1
	if [ ! -x "$b" ]; then
		make -s -C "$here" O=/tmp/bench-build >/dev/null 2>&1
		b=/tmp/bench-build/$1
	fi
	[ -x "$b" ] && echo "$b"
}

mem_rounds=${SROCE_BENCH_MEM_ROUNDS:-5}
mem_qps=${SROCE_BENCH_MEM_QPS:-256}
mem_devs=${SROCE_BENCH_MEM_DEVS:-4}

# mem_rows SIDE TEST COUNT: memqp's lines on stdin ("round N KIND V ..."
# and a last "qp|dev KIND V ..." of medians) as CSV rows TEST_KIND, the
# median the value and every round in column runs.
mem_rows() {
	awk -v side="$1" -v test="$2" -v n="$3" '
	$1 == "round" {
		for (i = 3; i < NF; i += 2)
			runs[$i] = runs[$i] (runs[$i] == "" ? "" : ";") $(i + 1)
	}
	$1 == "qp" || $1 == "dev" {
		for (i = 2; i < NF; i += 2) {
			k = $i
			printf "%s,%s_%s,%s,,%s,,,%s,\n", side, test, k, n,
				$(i + 1), runs[k]
		}
	}' >>"$csv"
}

# mem_qp SIDE STATE: bytes per RC QP in STATE (init, rts) on the side's
# client device, as its perftest client would open it.
mem_qp() {
	local -n side=${1}_side
	local pre=() out
	[ -n "${side[1]}" ] && pre=(ip netns exec "${side[1]}")
	if ! out=$("${pre[@]}" "$memqp" -d "${side[3]}" -n "$mem_qps" \
		-r "$mem_rounds" -s "$2" 2>&1); then
		echo "# bench: $1 memqp -s $2 failed: $(tail -n 3 <<<"$out" | xargs)"
		return 1
	fi
	echo "# $1 $(tail -n 1 <<<"$out")  (bytes per QP in ${2^^})"
	mem_rows "$1" "mem_qp_$2" "$mem_qps" <<<"$out"
}

# mem_medians: "round N KIND V ..." lines on stdin, then a "dev" line of
# each figure's median.
mem_medians() {
	awk '$1 == "round" {
		n++
		for (i = 3; i < NF; i += 2) { name[i] = $i; v[i, n] = $(i + 1) }
		last = NF
	}
	NF { print }
	END {
		if (!n) exit
		printf "dev"
		for (i = 3; i < last; i += 2) {
			for (j = 1; j <= n; j++) s[j] = v[i, j]
			for (j = 2; j <= n; j++)	# insertion sort, a few rounds
				for (m = j; m > 1 && s[m - 1] > s[m]; m--) {
					t = s[m]; s[m] = s[m - 1]; s[m - 1] = t
				}
			printf " %s %d", name[i], (s[int((n + 1) / 2)] + s[int(n / 2) + 1]) / 2
		}
		printf "\n"
	}'
}

port_active() {
	[ "$(port_state "$1")" = ACTIVE ]
}

# mem_dev SIDE: bytes per device of the side's driver: $mem_devs devices
# added with `rdma link add` at once, each on a veth of its own (up, IPv6
# off so that no address arrives late) in the namespace of the side's
# client device.  That device is there already, so what the driver sets
# up once per module or namespace (sroce's UDP socket) is not counted.
mem_dev() {
	local -n side=${1}_side
	local ns=${side[1]} r i s0 s1 out='' rc=0 pre=() ipn=()
	[ -n "$ns" ] && pre=(ip netns exec "$ns") ipn=(-n "$ns")
	for ((i = 1; i <= mem_devs; i++)); do
		ip "${ipn[@]}" link add bm$i type veth peer name bmp$i &&
			"${pre[@]}" sysctl -qw net.ipv6.conf.bm$i.disable_ipv6=1 &&
			"${pre[@]}" sysctl -qw net.ipv6.conf.bmp$i.disable_ipv6=1 &&
			ip "${ipn[@]}" link set bm$i up &&
			ip "${ipn[@]}" link set bmp$i up || { rc=1; break; }
	done
	# A failed step ends the rounds; what was added goes in any case,
	# so that the perftest rows after it find only the run's devices.
	for ((r = 1; rc == 0 && r <= mem_rounds; r++)); do
		s0=$("$memqp" --snap) || { rc=1; break; }
		for ((i = 1; i <= mem_devs; i++)); do
			add_link "bm$1$i" "$1" "bm$i" "$ns" || rc=1
		done
		for ((i = 1; rc == 0 && i <= mem_devs; i++)); do
			wait_until 20 port_active "bm$1$i" || rc=1
		done
		[ $rc = 0 ] && { s1=$("$memqp" --snap) || rc=1; }
		for ((i = 1; i <= mem_devs; i++)); do
			del_link "bm$1$i" 2>/dev/null
		done
		[ $rc = 0 ] || break
		out+=$(printf '%s\n%s\n' "$s0" "$s1" | awk -v r="$r" -v n="$mem_devs" '
			NR == 1 { for (i = 2; i < NF; i += 2) a[i] = $(i + 1); next }
			{
				printf "round %d", r
				for (i = 2; i < NF; i += 2)
					printf " %s %d", $i, ($(i + 1) - a[i]) / n
				printf "\n"
			}')$'\n'
	done
	for ((i = 1; i <= mem_devs; i++)); do
		ip "${ipn[@]}" link del bm$i 2>/dev/null
	done
	[ $rc = 0 ] || return 1
	out=$(mem_medians <<<"$out")
	echo "# $1 $(tail -n 1 <<<"$out")  (bytes per device)"
	mem_rows "$1" mem_dev "$mem_devs" <<<"$out"
}

# mem_table_rows: the memory rows of both sides, QPs first.
mem_table_rows() {
	local side
	memqp=$(bench_tool memqp) || {
		echo "# bench: memqp not built (make -C bench)"
		return 1
	}
	for side in $sides; do
		mem_qp "$side" init
		mem_qp "$side" rts
		mem_dev "$side" || echo "# bench: $side per-device memory failed"
	done
}

# copy_crc_rows: the copy+CRC bound of one vCPU in pieces of sroce's IB
# MTU (bench/copycrc.c) for 64 KiB and 1 MiB, CSV rows of label cpu.
copy_crc_rows() {
	local copycrc out pkt
	copycrc=$(bench_tool copycrc) || {
		echo "# bench: copycrc not built (make -C bench)"
		return 1
	}
	pkt=$(devinfo_field sroce1 active_mtu)
	pkt=${pkt%% *}
	out=$("$copycrc" -p "${pkt:-4096}" 65536 1048576) || {
		echo "# bench: copycrc failed: $out"
		return 1
	}
	sed 's/^[^#]/# &/' <<<"$out"
	awk '!/^#/ {
		printf "cpu,%s,%s,,%s,,,%s,\n", $1, $2, $3, ($4 == "-" ? "" : $4)
	}' <<<"$out" >>"$csv"
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

# Memory first, in a guest that has run nothing yet; once per make bench
# (over veth), since the links do not change it.
if wants mem "$([ "$net" = veth ] && echo 1)"; then
	mem_table_rows
fi
# The bound of the IB MTU 4096 rows, by default only at that MTU.
ibmtu=$(devinfo_field sroce1 active_mtu)
if wants copycrc "$([ "${ibmtu%% *}" = 4096 ] && echo 1)"; then
	copy_crc_rows
fi

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
