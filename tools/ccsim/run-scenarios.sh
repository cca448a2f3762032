#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-scenarios.sh CCSIM OUTDIR - `make sim`: run the standard scenarios
# (two flows, incast N = 2..64, joining/leaving flows, PFC only; DCQCN
# paper and NVIDIA flavours, DCTCP, HPCC (incast), TIMELY, none; the guest
# testbed of bench/cc.sh) into OUTDIR/<run>/ and plot rate and queue vs
# time with gnuplot (if installed).  OUTDIR/table.txt collects the
# headline figures of every run, and of the episodes that flows joining
# open.  Then the leaf-spine fabric's runs (run-fabric.sh, into
# OUTDIR/fabric/).
set -euo pipefail
sim=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd -P)
sc=$here/scenarios
mkdir -p "$out"
table=$out/table.txt
printf '%-22s %6s %6s %6s %8s %8s %8s %7s %8s %7s\n' run jain util \
	inband q50_kb q95_kb q99_kb pauses paused conv_us >"$table"

# plot DIR NFLOWS START_US END_US: rate.png and queue.png, and the same
# over the first tenth of the summary's window START..END (rate-zoom.png,
# queue-zoom.png) where the cycles of a long run can be told apart.
plot() {
	local dir=$1 n=$2 from=$3 to=$(($3 + ($4 - $3) / 10))
	command -v gnuplot >/dev/null || return 0
	gnuplot <<-GP
		set datafile separator ','
		set terminal pngcairo size 1000,500 noenhanced
		set key outside right
		set xlabel 'time (us)'
		do for [z in "0 1"] {
			suffix = (z eq "1") ? '-zoom' : ''
			if (z eq "1") { set xrange [$from:$to] } else { set autoscale x }
			set output '$dir/rate'.suffix.'.png'
			set ylabel 'cc rate (Gb/s)'
			plot for [i=2:$((n + 1))] '$dir/rate.csv' using 1:i with lines title columnhead(i)
			set output '$dir/queue'.suffix.'.png'
			set ylabel 'queue (KB)'
			plot '$dir/queue.csv' using 1:2 with lines title 'queue_kb'
		}
	GP
}

# run NAME SCENARIO [-D ...] [noline]: noline = no row in the first table
run() {
	local name=$1 file=$2 dir=$out/$1 n win args=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != noline ]; do
		args+=("$1")
		shift
	done
	mkdir -p "$dir"
	"$sim" -q -o "$dir" -D "sim.name=$name" "${args[@]}" "$sc/$file" \
		2>>"$out/speed.txt"
	n=$(sed -n 's/^flows = //p' "$dir/summary.txt")
	win=$(sed -n 's/^window_us = //p' "$dir/summary.txt")
	plot "$dir" "$n" "${win%..*}" "${win#*..}"
	[ $# -eq 0 ] || return 0
	awk -v name="$name" -F' = ' '
		{ v[$1] = $2 }
		END { printf "%-22s %6s %6s %6s %8s %8s %8s %7s %8s %7s\n", name,
			v["jain"], v["utilisation"], v["queue_in_kmin_kmax"],
			v["queue_p50_kb"], v["queue_p95_kb"], v["queue_p99_kb"],
			v["pauses"], v["paused_fraction"], v["convergence_us"] }
	' "$dir/summary.txt" >>"$table"
}

: >"$out/speed.txt"
mlx=(-D cc.flavour=mlx -D cc.min_time_between_cnps_us=4)
run two-flow-paper two-flow.ini
run two-flow-mlx two-flow.ini "${mlx[@]}"
run two-flow-dctcp two-flow.ini -D cc.algo=dctcp
run two-flow-none two-flow.ini -D cc.algo=none
run two-flow-timely two-flow.ini -D cc.algo=timely
for n in 2 4 8 16 32 64; do
	run "incast-$n-paper" incast.ini -D "flow.count=$n"
done
for n in 2 16 64; do
	run "incast-$n-mlx" incast.ini -D "flow.count=$n" "${mlx[@]}"
	run "incast-$n-dctcp" incast.ini -D "flow.count=$n" -D cc.algo=dctcp
	run "incast-$n-hpcc" hpcc.ini -D "flow.count=$n"
	run "incast-$n-timely" incast.ini -D "flow.count=$n" -D cc.algo=timely
done
run join-leave-paper join-leave.ini
run join-leave-mlx join-leave.ini "${mlx[@]}"
run pfc-only pfc-only.ini
run pfc-only-64 pfc-only.ini -D flow.count=64
# The guest testbed of bench/cc.sh (htb + RED, RC go-back-N, 128 KB in
# flight per QP): its three cc settings for 1, 2 and 4 senders;
# testbed.ini is the 100 Mbit/s bench of the first kernel cross-check,
# testbed-50.ini the bench as it is now (50 Mbit/s, RoCE MTU 4096, knobs
# for millisecond RTTs): testbed50-* rows.
printf '\n%-22s %6s %6s %8s %8s %8s %7s %9s %8s\n' testbed jain util \
	q50_kb q99_kb marks drops retx_kb timeouts >>"$table"
# testbed_run SCENARIO ALGO/FLAVOUR N: one testbed run and its table row
testbed_run() {
	local name="${1/-/}-${2%/*}-${2#*/}-$3"
	run "$name" "$1.ini" -D "cc.algo=${2%/*}" -D "cc.flavour=${2#*/}" \
		-D "flow.count=$3" noline
	awk -v name="$name" -F' = ' '
		{ v[$1] = $2 }
		END { printf "%-22s %6s %6s %8s %8s %8s %7s %9s %8s\n",
			name, v["jain"], v["utilisation"],
			v["queue_p50_kb"], v["queue_p99_kb"], v["marks"],
			v["drops"], v["retransmitted_kb"], v["timeouts"] }
	' "$out/$name/summary.txt" >>"$table"
}
for tb in testbed testbed-50; do
	for n in 1 2 4; do
		for cfg in none/mlx dcqcn/mlx dcqcn/paper; do
			testbed_run "$tb" "$cfg" "$n"
		done
	done
done
# The untuned testbeds of tests/integration/cc-fabric.sh (cc-fabric.ini,
# cc-fabric-reverse.ini), with the kernel's loss recovery and defaults
# (-rec: a CNP cuts the window too), with the rate alone reacting to CNPs
# (-rate: cnp_window_cut 0) and with plain go-back-N (-gbn, the kernel
# before issue 17): ccfab-* rows.
# ccfab_run NAME SCENARIO [-D ...]
ccfab_run() {
	local name=$1 ini=$2
	shift 2
	run "$name-rec" "$ini" -D sim.recovery=on "$@" noline
	run "$name-rate" "$ini" -D sim.recovery=on -D cc.cnp_window_cut=0 \
		"$@" noline
	run "$name-gbn" "$ini" "$@" noline
	for v in rec rate gbn; do
		awk -v name="$name-$v" -F' = ' '
			{ v[$1] = $2 }
			END { printf "%-22s %6s %6s %8s %8s %8s %7s %9s %8s\n",
				name, v["jain"], v["utilisation"],
				v["queue_p50_kb"], v["queue_p99_kb"], v["marks"],
				v["drops"], v["retransmitted_kb"], v["timeouts"] }
		' "$out/$name-$v/summary.txt" >>"$table"
	done
}
ccfab_run ccfab-2at40 cc-fabric.ini
ccfab_run ccfab-4at200 cc-fabric.ini -D switch.rate_gbps=0.1965 -D switch.kmin_kb=30 \
	-D switch.kmax_kb=150 -D switch.pmax=0.2 -D switch.buffer_kb=600 \
	-D switch.red_wlog=5 -D flow.count=4
ccfab_run ccfab-8at100 cc-fabric.ini -D switch.rate_gbps=0.0982 -D switch.kmin_kb=15 \
	-D switch.kmax_kb=60 -D switch.pmax=0.1 -D switch.buffer_kb=400 \
	-D switch.red_wlog=4 -D flow.count=8
# reverse @60: s1's three QPs on one NIC; -qp: each QP a NIC of its own
ccfab_run ccfab-rev60 cc-fabric-reverse.ini
ccfab_run ccfab-rev60qp cc-fabric-reverse.ini -D flow.nic=0

# episode NAME JOIN_MS PORT_GBPS [NEXT_MS]: the episode a flow's start at JOIN_MS
# opens in run NAME (rate.csv, sampled every 10 us; pfc.csv): how often
# the joining flow's rate fell in the 2 ms after (samples lower than the
# one before; in these scenarios the joiner is the highest-numbered flow
# on), the lowest rate of any flow on in the 5 ms after, how long until
# every flow on had at least 0.9 of the fair share (PORT_GBPS over the
# flows on) again after some had less, before the next flow event
# NEXT_MS ("never" if not), and the pauses (XOFFs) in the 5 ms after.
printf '\n%-22s %8s %6s %9s %9s %7s\n' episode join_ms cuts min_gbps \
	recov_ms pauses >>"$table"
episode() {
	awk -F, -v j="$(($2 * 1000))" -v port="$3" -v name="$1" \
		-v end="$((${4:-1000000} * 1000))" '
		FNR == 1 { file++; next }
		file == 1 && ($1 <= j || $1 > end) { next }
		file == 1 {
			on = 0
			ok = 1
			for (i = 2; i <= NF; i++)
				if ($i > 0) {
					on++
					joiner = i
				}
			for (i = 2; i <= NF; i++)
				if ($i > 0 && $i < 0.9 * port / on)
					ok = 0
			if (!ok)
				cut = 1
			if (ok && cut && rec == "")
				rec = sprintf("%.2f", ($1 - j) / 1000)
			if ($1 > j + 5000)
				next
			for (i = 2; i <= NF; i++)
				if ($i > 0 && (min == "" || $i < min))
					min = $i
			if ($1 > j + 2000)
				next
			if (prev != "" && $joiner < prev)
				cuts++
			prev = $joiner
		}
		file == 2 && $3 == "xoff" && $1 > j * 1000 &&
			$1 <= (j + 5000) * 1000 { pauses++ }
		END {
			printf "%-22s %8d %6d %9.2f %9s %7d\n", name, j / 1000,
				cuts, min, rec == "" ? "never" : rec, pauses
		}' "$out/$1/rate.csv" "$out/$1/pfc.csv" >>"$table"
}
episode two-flow-paper 10 40
episode two-flow-mlx 10 40
episode two-flow-dctcp 10 40
episode join-leave-paper 20 40 40
episode join-leave-paper 40 40 60
episode join-leave-paper 60 40 100
episode join-leave-mlx 20 40 40

cat "$table"
# the leaf-spine fabric: workloads, FCT, PFC spreading, deadlock
"$here/run-fabric.sh" "$sim" "$out"
echo "speed:"
cat "$out/speed.txt"
