#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/sim/run.sh - host tests of ccsim (tools/ccsim), run by
# scripts/check.sh next to the unit tests.  Builds the simulator, runs
# small scenarios and asserts properties of the DCQCN paper (convergence,
# fairness, queue between Kmin and Kmax, PFC-only pauses and their log),
# the go-back-N transport on the guest testbed's parameters (window,
# loss recovery, DCQCN cut/recovery cycles), determinism (two runs
# byte-identical, another seed differs) and the parser's errors.
# Prints TAP and "N passed, N failed"; exits 1 on any failure.
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
sc=$top/tools/ccsim/scenarios
sim=$top/build/ccsim/ccsim
tmp=$(mktemp -d /tmp/sroce-sim.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0
npass=0
nfail=0

ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
		npass=$((npass + 1))
	else
		echo "not ok $n - $2"
		nfail=$((nfail + 1))
	fi
}

# val FILE KEY: a summary value
val() {
	sed -n "s/^$2 = //p" "$1"
}

# check FILE EXPR...: awk over the summary's values, e.g. 'jain >= 0.95'
check() {
	local f=$1 expr=$2
	awk -F' = ' -v expr="$expr" '
		{ gsub(/[^a-z0-9_]/, "_", $1); v[$1] = $2 }
		END {
			n = split(expr, w, " ")
			a = v[w[1]] + 0; b = w[3] + 0
			if (w[2] == ">=") r = a >= b
			else if (w[2] == "<=") r = a <= b
			else if (w[2] == ">") r = a > b
			else if (w[2] == "<") r = a < b
			if (!r) printf "# %s: %s = %s\n", expr, w[1], v[w[1]]
			exit !r
		}' "$f"
}

# run NAME SCENARIO [-D ...]: summary and CSVs into $tmp/NAME
run() {
	local name=$1 file=$2
	shift 2
	mkdir -p "$tmp/$name"
	"$sim" -q -o "$tmp/$name" "$@" "$sc/$file" 2>"$tmp/$name.err"
}

echo "TAP version 13"
echo "1..20"
make -s -C "$top/tools/ccsim" >"$tmp/build.log" 2>&1
rc=$?
sed 's/^/# /' "$tmp/build.log"
ok $rc "ccsim builds from kernel/proto/cc*.c"

short=(-D sim.duration_ms=40 -D sim.measure_start_ms=25)

# Determinism: same scenario and seed, byte-identical files; seed matters.
run det1 two-flow.ini "${short[@]}"
run det2 two-flow.ini "${short[@]}"
run det3 two-flow.ini "${short[@]}" -D sim.seed=2
same=0
for f in rate.csv tput.csv queue.csv flows.csv summary.txt; do
	cmp -s "$tmp/det1/$f" "$tmp/det2/$f" || same=1
done
[ -s "$tmp/det1/rate.csv" ] || same=1
ok $same "same scenario and seed: byte-identical CSV and summary"
cmp -s "$tmp/det1/queue.csv" "$tmp/det3/queue.csv"
ok $((!$?)) "another seed gives other ECN marks (the seed is used)"

# Two flows, paper parameters: equal shares, full link, converged.
run two two-flow.ini
r=0
check "$tmp/two/summary.txt" "jain >= 0.95" || r=1
check "$tmp/two/summary.txt" "utilisation >= 0.90" || r=1
[ "$(val "$tmp/two/summary.txt" convergence_us)" != never ] || r=1
ok $r "2 flows (dcqcn paper) converge to equal shares of the link"

# The second flow cuts: it receives CNPs, and both are near 20 Gb/s.
r=0
for i in 0 1; do
	g=$(val "$tmp/two/summary.txt" "flow$i" | awk '{ print $2 }')
	awk -v g="$g" 'BEGIN { exit !(g > 16 && g < 24) }' || r=1
	echo "# flow$i: $g Gb/s"
done
check "$tmp/two/summary.txt" "cnps > 10" || r=1
ok $r "2 flows each get 20 +- 4 Gb/s and CNPs flow"

# 8-to-1 incast: queue between Kmin and Kmax, fair, no pause storm.
run inc incast.ini "${short[@]}" -D flow.count=8
r=0
check "$tmp/inc/summary.txt" "queue_p50_kb >= 5" || r=1
check "$tmp/inc/summary.txt" "queue_p50_kb <= 200" || r=1
check "$tmp/inc/summary.txt" "queue_in_kmin_kmax >= 0.5" || r=1
check "$tmp/inc/summary.txt" "jain >= 0.95" || r=1
check "$tmp/inc/summary.txt" "paused_fraction < 0.01" || r=1
check "$tmp/inc/summary.txt" "drops <= 0" || r=1
ok $r "8-to-1 incast (dcqcn paper): queue in [Kmin, Kmax], fair, few pauses"

# PFC only (no CC): the queue sits at the threshold and pauses dominate.
run pfc pfc-only.ini -D sim.duration_ms=20 -D sim.measure_start_ms=10
r=0
check "$tmp/pfc/summary.txt" "pauses > 100" || r=1
check "$tmp/pfc/summary.txt" "paused_fraction > 0.5" || r=1
check "$tmp/pfc/summary.txt" "queue_p50_kb >= 1000" || r=1
check "$tmp/pfc/summary.txt" "marks <= 0" || r=1
ok $r "8-to-1 without CC: PFC pauses dominate, queue at the thresholds"

# The same incast with DCQCN keeps the queue far below PFC-only's.
q_cc=$(val "$tmp/inc/summary.txt" queue_p99_kb)
q_none=$(val "$tmp/pfc/summary.txt" queue_p50_kb)
awk -v a="$q_cc" -v b="$q_none" 'BEGIN { exit !(a * 4 < b) }'
ok $? "dcqcn p99 queue ($q_cc KB) < 1/4 of PFC-only median ($q_none KB)"

# DCTCP-style algorithm: two flows share fairly too.
run dctcp two-flow.ini -D cc.algo=dctcp
r=0
check "$tmp/dctcp/summary.txt" "jain >= 0.95" || r=1
check "$tmp/dctcp/summary.txt" "utilisation >= 0.90" || r=1
ok $r "2 flows (dctcp) share fairly at full utilisation"

# Flows leaving: after two of four leave, the two left share the link.
run jl join-leave.ini
r=0
check "$tmp/jl/summary.txt" "fair_flows >= 2" || r=1
check "$tmp/jl/summary.txt" "fair_flows <= 2" || r=1
check "$tmp/jl/summary.txt" "jain >= 0.95" || r=1
check "$tmp/jl/summary.txt" "utilisation >= 0.90" || r=1
ok $r "join/leave (dcqcn paper): the remaining flows take the link fairly"

# Two sized flows at once: all bytes sent; sharing the link the later
# one cannot finish before 40 MB / 40 Gb/s = 8 ms, and a stall would
# take it past 4 times that.
run size two-flow.ini "${short[@]}" -D flow.size_kb=20000 -D flow.start_ms=0
r=0
last=0
for i in 0 1; do
	line=$(val "$tmp/size/summary.txt" "flow$i")
	echo "# flow$i: $line"
	grep -q "sent_kb 20000 .*fct_us [0-9]" <<<"$line" || r=1
	f=$(sed -n 's/.*fct_us \([0-9]*\).*/\1/p' <<<"$line")
	[ "${f:-0}" -gt "$last" ] && last=$f
done
[ "$last" -ge 8000 ] && [ "$last" -le 32000 ] || r=1
ok $r "2 sized flows (20 MB) complete; the last within 8-32 ms ($last us)"

# NVIDIA flavour runs through the same core: CNPs cut the rate.
run mlx two-flow.ini "${short[@]}" -D cc.flavour=mlx \
	-D cc.min_time_between_cnps_us=4
r=0
check "$tmp/mlx/summary.txt" "cnps > 10" || r=1
awk -F, 'NR > 1 && $2 < 39 { low = 1 } END { exit !low }' \
	"$tmp/mlx/rate.csv" || r=1
ok $r "mlx flavour: CNPs reduce the rate below line rate"

# PFC timing: pfc.csv has one row per XOFF (as many as the summary's
# pauses) and per XON, and each ingress alternates XOFF, XON, XOFF ...
r=0
xoffs=$(grep -c ',xoff,' "$tmp/pfc/pfc.csv")
[ "$xoffs" -eq "$(val "$tmp/pfc/summary.txt" pauses)" ] || r=1
awk -F, 'NR > 1 {
		want = ($2 in last && last[$2] == "xoff") ? "xon" : "xoff"
		if ($3 != want || $1 < t) bad = 1
		last[$2] = $3; t = $1
	} END { exit bad }' "$tmp/pfc/pfc.csv" || r=1
ok $r "pfc.csv: $xoffs XOFF, each ingress alternating XOFF/XON in time order"

# The guest testbed (bench/cc.sh scaled): RC go-back-N, 128 KB windows.
# One flow without cc: the window, not the buffer, bounds the queue.
tb=(-D sim.duration_ms=2000 -D sim.measure_start_ms=500)
run tb1 testbed.ini "${tb[@]}" -D cc.algo=none -D flow.count=1
r=0
check "$tmp/tb1/summary.txt" "queue_max_kb <= 131.1" || r=1
check "$tmp/tb1/summary.txt" "queue_max_kb >= 100" || r=1
check "$tmp/tb1/summary.txt" "utilisation >= 0.95" || r=1
check "$tmp/tb1/summary.txt" "drops <= 0" || r=1
ok $r "gbn window: one flow keeps <= 128 KB queued, link full, no drop"

# Four 2 MB flows without cc overflow the 400 KB buffer: every byte still
# arrives once, in order, by NAKs and timeouts (go-back-N).
run tb4 testbed.ini -D sim.duration_ms=3000 -D sim.measure_start_ms=0 \
	-D cc.algo=none -D flow.count=4 -D flow.size_kb=2000
r=0
check "$tmp/tb4/summary.txt" "drops > 100" || r=1
check "$tmp/tb4/summary.txt" "naks > 0" || r=1
check "$tmp/tb4/summary.txt" "retransmitted_kb > 0" || r=1
for i in 0 1 2 3; do
	grep -q "delivered_b 2000000 .*fct_us [0-9]" \
		<<<"$(val "$tmp/tb4/summary.txt" "flow$i")" || r=1
done
ok $r "gbn: 4 flows recover $(val "$tmp/tb4/summary.txt" drops) drops; each delivers 2 MB once"

# Random (non-congestion) loss on one window-limited flow: NAKs repair it
# without a timeout, and the queue never holds more than two windows
# (the stale copies of one window and its resend).
run tbl testbed.ini "${tb[@]}" -D cc.algo=none -D flow.count=1 \
	-D switch.loss=0.001 -D flow.size_kb=15000
r=0
check "$tmp/tbl/summary.txt" "random_losses > 5" || r=1
check "$tmp/tbl/summary.txt" "naks > 5" || r=1
check "$tmp/tbl/summary.txt" "timeouts <= 0" || r=1
check "$tmp/tbl/summary.txt" "queue_max_kb <= 262.2" || r=1
grep -q "delivered_b 15000000 .*fct_us [0-9]" \
	<<<"$(val "$tmp/tbl/summary.txt" flow0)" || r=1
ok $r "gbn: random loss 0.1 % repaired by NAKs, no timeout, <= 2 windows queued"

# DCQCN (bench/cc.sh's knobs) on the testbed, 2 flows: fair, marks and
# CNPs, and the rate goes through repeated cut/recovery cycles.
run tbd testbed.ini "${tb[@]}" -D flow.count=2
r=0
check "$tmp/tbd/summary.txt" "jain >= 0.95" || r=1
check "$tmp/tbd/summary.txt" "marks > 1000" || r=1
check "$tmp/tbd/summary.txt" "cnps > 1000" || r=1
cycles=$(awk -F, 'NR > 1 {
		if (!low && $2 < 0.005) { low = 1; n++ }
		if (low && $2 > 0.05) low = 0
	} END { print n + 0 }' "$tmp/tbd/rate.csv")
[ "$cycles" -ge 5 ] || r=1
ok $r "testbed dcqcn 2 flows: fair, marked, $cycles cut (<5 Mb/s)/recovery (>50) cycles in 2 s"

# The testbed of tests/integration/cc-lib.sh with its knobs, 2 flows: the
# model keeps the queue below the 200 KB limit after the start (its
# parameters were chosen with this model, Documentation/cc.rst).
run tb50 testbed-50.ini -D sim.duration_ms=4000 -D sim.measure_start_ms=1000
r=0
check "$tmp/tb50/summary.txt" "jain >= 0.95" || r=1
check "$tmp/tb50/summary.txt" "utilisation >= 0.8" || r=1
check "$tmp/tb50/summary.txt" "queue_p99_kb <= 150" || r=1
check "$tmp/tb50/summary.txt" "timeouts <= 0" || r=1
run tb50n testbed-50.ini -D sim.duration_ms=4000 -D sim.measure_start_ms=1000 \
	-D cc.algo=none
check "$tmp/tb50n/summary.txt" "drops > 1000" || r=1
ok $r "testbed-50: dcqcn 2 flows fair, link >= 80 %, queue below the limit; none overflows it"

# Under ASan/UBSan (another build, -O1): no report, and the same output.
san="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all"
r=0
make -s -C "$top/tools/ccsim" O="$top/build/ccsim-san" CFLAGS="$san" \
	LDFLAGS="$san" >"$tmp/san.log" 2>&1 || r=1
sed 's/^/# /' "$tmp/san.log"
if [ $r -eq 0 ]; then
	mkdir -p "$tmp/san"
	"$top/build/ccsim-san/ccsim" -q -o "$tmp/san" "${short[@]}" \
		-D flow.count=8 "$sc/incast.ini" 2>"$tmp/san.err" || r=1
	grep -E 'runtime error|AddressSanitizer' "$tmp/san.err" && r=1
	cmp "$tmp/san/summary.txt" "$tmp/inc/summary.txt" || r=1
	cmp "$tmp/san/flows.csv" "$tmp/inc/flows.csv" || r=1
	# and the transport: drops, NAKs, timeouts
	mkdir -p "$tmp/san4"
	"$top/build/ccsim-san/ccsim" -q -o "$tmp/san4" -D sim.duration_ms=3000 \
		-D sim.measure_start_ms=0 -D cc.algo=none -D flow.count=4 \
		-D flow.size_kb=2000 "$sc/testbed.ini" 2>"$tmp/san4.err" || r=1
	grep -E 'runtime error|AddressSanitizer' "$tmp/san4.err" && r=1
	cmp "$tmp/san4/summary.txt" "$tmp/tb4/summary.txt" || r=1
fi
ok $r "sanitizer build runs incast and gbn clean with byte-identical output"

# The parser: an unknown key is an error naming the line.
printf '[sim]\nduration_ms = 1\n[switch]\nbogus = 3\n[flow]\n' >"$tmp/bad.ini"
"$sim" -q "$tmp/bad.ini" >/dev/null 2>"$tmp/bad.err"
rc=$?
r=0
grep -q "bad.ini:4: bad key" "$tmp/bad.err" && [ $rc -ne 0 ] || r=1
# ... and values that would overflow or shift out of range.
for d in sim.duration_ms=nan sim.duration_ms=1e30 flow.delay_us=-1 \
	cc.rpg_gd=-1 cc.dce_tcp_g=2000 switch.pmax=2 sim.transport=tcp \
	switch.red_wlog=40 switch.loss=1.5; do
	if "$sim" -q -D "$d" "$sc/two-flow.ini" >/dev/null 2>&1; then
		echo "# accepted $d"
		r=1
	fi
done
if "$sim" -q -D sim.rto_us=0 "$sc/testbed.ini" >/dev/null 2>&1; then
	echo "# accepted gbn with rto_us=0"
	r=1
fi
ok $r "scenario parser rejects unknown keys (file:line) and bad values"

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
