#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-scenarios.sh CCSIM OUTDIR - `make sim`: run the standard scenarios
# (two flows, incast N = 2..64, joining/leaving flows, PFC only; DCQCN
# paper and NVIDIA flavours, DCTCP, none; the guest testbed of
# bench/cc.sh) into OUTDIR/<run>/ and plot rate and queue vs time with
# gnuplot (if installed).  OUTDIR/table.txt collects the headline figures
# of every run.
set -euo pipefail
sim=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd -P)
sc=$here/scenarios
mkdir -p "$out"
table=$out/table.txt
printf '%-22s %6s %6s %6s %8s %8s %8s %7s %8s %7s\n' run jain util \
	inband q50_kb q95_kb q99_kb pauses paused conv_us >"$table"

# plot DIR NFLOWS END_US: rate.png and queue.png, and the same over the
# first tenth of the run (rate-zoom.png, queue-zoom.png) where the cycles
# of a long run can be told apart.
plot() {
	local dir=$1 n=$2 zoom=$(($3 / 10))
	command -v gnuplot >/dev/null || return 0
	gnuplot <<-GP
		set datafile separator ','
		set terminal pngcairo size 1000,500 noenhanced
		set key outside right
		set xlabel 'time (us)'
		do for [z in "0 1"] {
			suffix = (z eq "1") ? '-zoom' : ''
			if (z eq "1") { set xrange [0:$zoom] } else { set autoscale x }
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
	local name=$1 file=$2 dir=$out/$1 n args=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != noline ]; do
		args+=("$1")
		shift
	done
	mkdir -p "$dir"
	"$sim" -q -o "$dir" -D "sim.name=$name" "${args[@]}" "$sc/$file" \
		2>>"$out/speed.txt"
	n=$(sed -n 's/^flows = //p' "$dir/summary.txt")
	plot "$dir" "$n" "$(sed -n 's/^window_us = .*\.\.//p' "$dir/summary.txt")"
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
for n in 2 4 8 16 32 64; do
	run "incast-$n-paper" incast.ini -D "flow.count=$n"
done
for n in 2 16 64; do
	run "incast-$n-mlx" incast.ini -D "flow.count=$n" "${mlx[@]}"
	run "incast-$n-dctcp" incast.ini -D "flow.count=$n" -D cc.algo=dctcp
done
run join-leave-paper join-leave.ini
run join-leave-mlx join-leave.ini "${mlx[@]}"
run pfc-only pfc-only.ini
run pfc-only-64 pfc-only.ini -D flow.count=64
# The guest testbed of bench/cc.sh (tests/integration/cc-lib.sh: 50 Mbit/s
# htb + RED, RC go-back-N, 128 KB in flight per QP): its three cc settings
# for 1, 2 and 4 senders.
printf '\n%-22s %6s %6s %8s %8s %8s %7s %9s %8s\n' testbed jain util \
	q50_kb q99_kb marks drops retx_kb timeouts >>"$table"
for n in 1 2 4; do
	for cfg in none/mlx dcqcn/mlx dcqcn/paper; do
		name="testbed-${cfg%/*}-${cfg#*/}-$n"
		run "$name" testbed-50.ini -D "cc.algo=${cfg%/*}" \
			-D "cc.flavour=${cfg#*/}" -D "flow.count=$n" noline
		awk -v name="$name" -F' = ' '
			{ v[$1] = $2 }
			END { printf "%-22s %6s %6s %8s %8s %8s %7s %9s %8s\n",
				name, v["jain"], v["utilisation"],
				v["queue_p50_kb"], v["queue_p99_kb"], v["marks"],
				v["drops"], v["retransmitted_kb"], v["timeouts"] }
		' "$out/$name/summary.txt" >>"$table"
	done
done
cat "$table"
echo "speed:"
cat "$out/speed.txt"
