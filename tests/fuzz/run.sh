#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh - run libFuzzer targets built by tests/fuzz/Makefile, each for a
# bounded time, and report executions.
#
#   run.sh -t SECONDS -o BUILD_DIR [--tap] TARGET...
#
# Each target fuzzes BUILD_DIR/corpus/TARGET (kept between runs, new inputs
# go there) plus the seeds in BUILD_DIR/seeds/TARGET, and prints its total
# executions and executions per second, and the executions summed over all
# runs that found nothing (BUILD_DIR/stats/TARGET; a finding resets it).
# A finding (broken invariant, sanitizer report, crash, timeout, leak) is
# kept in BUILD_DIR/artifacts/ and fails the run.  --tap: TAP lines
# "ok - fuzz TARGET", then "N passed, N failed" (scripts/check.sh counts
# them).  Exit status 1 if any target found something.
set -u

secs=60
out=
tap=
while [ $# -gt 0 ]; do
	case $1 in
	-t) secs=$2; shift 2 ;;
	-o) out=$2; shift 2 ;;
	--tap) tap=1; shift ;;
	*) break ;;
	esac
done
if [ -z "$out" ] || [ $# -eq 0 ]; then
	echo "usage: $0 -t SECONDS -o DIR [--tap] TARGET..." >&2
	exit 2
fi

# Longest input per target: enough for what it parses, short enough to
# keep executions fast (packets up to a 1024-byte MTU's worth).
max_len() {
	case $1 in
	aeth) echo 32 ;;
	bth) echo 384 ;;
	pfc_frame) echo 128 ;;
	pma) echo 305 ;; # MAD 256, port 1, counters 6 x 8
	cc | pfc_state) echo 512 ;;
	*) echo 1100 ;;
	esac
}

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
pass=0
fail=0
mkdir -p "$out/artifacts" "$out/stats"
for t in "$@"; do
	bin=$out/fuzz_$t
	corpus=$out/corpus/$t
	log=$out/fuzz_$t.log
	mkdir -p "$corpus"
	"$bin" -max_total_time="$secs" -print_final_stats=1 \
		-max_len="$(max_len "$t")" -timeout=10 -rss_limit_mb=1536 \
		-artifact_prefix="$out/artifacts/$t-" \
		"$corpus" "$out/seeds/$t" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	execs=${execs:-0}
	rate=${rate:-0}
	total=$(cat "$out/stats/$t" 2>/dev/null || echo 0)
	if [ "$rc" -eq 0 ]; then
		total=$((total + execs))
		echo "$total" >"$out/stats/$t"
		msg="fuzz $t: $execs execs in ${secs} s, $rate exec/s, $total since the last finding"
		pass=$((pass + 1))
		if [ -n "$tap" ]; then echo "ok - $msg"; else echo "$msg"; fi
	else
		echo 0 >"$out/stats/$t"
		grep -aE 'invariant broken|ERROR:|runtime error|SUMMARY|Test unit written' "$log" |
			head -n 12 | sed 's/^/# /'
		msg="fuzz $t: FINDING after $execs execs (exit $rc), log $log"
		fail=$((fail + 1))
		if [ -n "$tap" ]; then echo "not ok - $msg"; else echo "$msg"; fi
	fi
done
[ -n "$tap" ] && echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
