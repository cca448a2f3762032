#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-fabric.sh CCSIM OUTDIR - the fabric part of `make sim` (called by
# run-scenarios.sh): the web search and FB Hadoop workloads at 50 % load
# and web search with incast bursts on the 2-leaf / 2-spine / 16-host
# leaf-spine under every algorithm (none, dcqcn paper and mlx, dctcp,
# timely, hpcc), the PFC pause-spreading scenario, and the cyclic buffer
# dependency with and without its cycle, all into OUTDIR/fabric/: one
# directory per run (fct.csv, slowdown.csv, ports.csv, queue.csv,
# pfc.csv, summary.txt, queue.png, and paused.png: each port's time
# paused), fabric.txt with a row per run, and per workload
# fct-WORKLOAD.csv and slowdown-WORKLOAD-p50/p99.png: the FCT slowdown
# by flow size of each algorithm.  The speed of each run goes to
# OUTDIR/speed.txt.
set -euo pipefail
sim=$1
out=$2/fabric
speed=$2/speed.txt
here=$(cd "$(dirname "$0")" && pwd -P)
sc=$here/scenarios
table=$out/fabric.txt
mkdir -p "$out"
algos=(none dcqcn-paper dcqcn-mlx dctcp timely hpcc)
# arrivals for 50 ms, 30 ms more to finish
long=(-D workload.stop_ms=50 -D sim.duration_ms=80)

# algo_args ALGO: the overrides of one of $algos
algo_args() {
	case $1 in
	dcqcn-paper) echo "-D cc.algo=dcqcn -D cc.flavour=paper" ;;
	dcqcn-mlx)
		echo "-D cc.algo=dcqcn -D cc.flavour=mlx -D cc.min_time_between_cnps_us=4"
		;;
	*) echo "-D cc.algo=$1" ;;
	esac
}

# qplot DIR: queue.png, the queue over time of every switch port that
# ever held more than two packets
qplot() {
	local dir=$1 cols
	command -v gnuplot >/dev/null || return 0
	cols=$(awk -F, 'NR > 1 { for (i = 2; i <= NF; i++) if ($i > m[i]) m[i] = $i }
		END { for (i = 2; i <= NF; i++) if (m[i] > 2.048) printf "%d ", i }' \
		"$dir/queue.csv")
	[ -n "$cols" ] || return 0
	gnuplot <<-GP
		set datafile separator ','
		set terminal pngcairo size 1000,500 noenhanced
		set key outside right font ',8'
		set xlabel 'time (us)'
		set ylabel 'queue (KB)'
		set output '$dir/queue.png'
		plot for [c in "$cols"] '$dir/queue.csv' using 1:(column(c + 0)) with lines title columnhead(c + 0)
	GP
}

printf '%-26s %11s %7s %7s %7s %9s %9s %7s %6s %6s\n' run 'done' sd_p50 \
	sd_p95 sd_p99 small_p99 q99max_kb xoffs paused stuck >"$table"

# pplot DIR: paused.png, the time each port was paused (ports.csv), if
# any was
pplot() {
	local dir=$1
	command -v gnuplot >/dev/null || return 0
	grep -q '^ports_paused = [1-9]' "$dir/summary.txt" || return 0
	gnuplot <<-GP
		set datafile separator ','
		set terminal pngcairo size 1200,500 noenhanced
		set output '$dir/paused.png'
		set ylabel 'paused (us)'
		set style data histogram
		set style fill solid
		set xtics rotate by 90 right font ',8'
		set key off
		plot '$dir/ports.csv' using 12:xtic(2)
	GP
}

# frun NAME SCENARIO [-D ...]: one run into OUTDIR/NAME and its row
frun() {
	local name=$1 file=$2 dir=$out/$1
	shift 2
	mkdir -p "$dir"
	"$sim" -q -o "$dir" -D "sim.name=$name" "$@" "$sc/$file" \
		2>>"$speed"
	qplot "$dir"
	pplot "$dir"
	awk -v name="$name" -F' = ' '
		{ v[$1] = $2 }
		END { printf "%-26s %11s %7s %7s %7s %9s %9s %7s %6s %6s\n", name,
			v["fct_done"] "/" v["fct_flows"], v["sd_all_p50"],
			v["sd_all_p95"], v["sd_all_p99"], v["sd_le100k_p99"],
			v["queue_p99_max_kb"], v["xoffs"], v["ports_paused"],
			v["ports_stuck"] }
	' "$dir/summary.txt" >>"$table"
}

# fct_plot WORKLOAD: fct-WORKLOAD.csv (bucket, then each algorithm's
# p50 and p99) and the two plots
fct_plot() {
	local wl=$1 a csv=$out/fct-$1.csv
	{
		printf 'bucket'
		for a in "${algos[@]}"; do
			printf ',%s_p50,%s_p99' "$a" "$a"
		done
		printf '\n'
		for b in le10k le100k le1m le10m gt10m all; do
			printf '%s' "$b"
			for a in "${algos[@]}"; do
				awk -F, -v b="$b" '$1 == b { printf ",%s,%s", $3, $5 }' \
					"$out/$wl-$a/slowdown.csv"
			done
			printf '\n'
		done
	} >"$csv"
	command -v gnuplot >/dev/null || return 0
	for p in 50 99; do
		gnuplot <<-GP
			set datafile separator ','
			set terminal pngcairo size 900,500 noenhanced
			set output '$out/slowdown-$wl-p$p.png'
			set title '$wl, 50 % load: p$p FCT slowdown by flow size'
			set xlabel 'flow size (bytes)'
			set ylabel 'FCT / ideal FCT'
			set logscale y
			set key outside right
			set style data linespoints
			n = ${#algos[@]}
			off = ($p == 50) ? 0 : 1
			plot for [i=0:n-1] '$csv' using 0:(column(2 + 2 * i + off)):xtic(1) title columnhead(2 + 2 * i + off)
		GP
	done
}

for wl in websearch fb_hadoop; do
	for a in "${algos[@]}"; do
		# shellcheck disable=SC2046
		frun "$wl-$a" fabric-websearch.ini -D "workload.cdf=$wl" \
			"${long[@]}" $(algo_args "$a")
	done
	fct_plot "$wl"
done
for a in "${algos[@]}"; do
	# shellcheck disable=SC2046
	frun "incast-$a" fabric-incast.ini "${long[@]}" $(algo_args "$a")
done
fct_plot incast
for a in none dcqcn-paper hpcc; do
	# shellcheck disable=SC2046
	frun "pfc-spread-$a" fabric-pfc-spread.ini $(algo_args "$a")
done
frun deadlock fabric-deadlock.ini
frun deadlock-nocycle fabric-deadlock-nocycle.ini
cat "$table"
