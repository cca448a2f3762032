#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh - run the sroce integration tests and print one KTAP stream.
#
#   tests/integration/run.sh [t-NAME ...]
#
# Runs every tests/integration/t-*.sh (or the ones named) as a KTAP subtest,
# resetting the topology between files, and ends with the line
# "N passed, N failed, N skipped" counting the test cases of all files.
# Exit 0 only if none failed.  A file that exits non-zero, times out
# (SROCE_TEST_TIMEOUT, default 1500 s) or reports fewer tests than it
# planned counts as one more failure.
#
# It belongs in a guest: started on the host (no SROCE_VM in the
# environment) it re-runs itself under tests/vm/vm-run.

set -u
shopt -s lastpipe

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)

# SROCE_VM_OPTS: more vm-run options for that guest (e.g. --nic-pair hub).
if [ -z "${SROCE_VM:-}" ]; then
	read -ra vm_opts <<<"${SROCE_VM_OPTS:-}"
	exec "$here/../vm/vm-run" --timeout "${SROCE_VM_TIMEOUT:-2400}" \
		"${vm_opts[@]}" -- \
		"$here/run.sh" "$@"
fi

. "$here/lib.sh"

files=()
if [ $# -gt 0 ]; then
	for t in "$@"; do
		t=${t##*/}
		t=${t%.sh}
		files+=("$here/$t.sh")
	done
else
	for t in "$here"/t-*.sh; do
		[ -e "$t" ] && files+=("$t")
	done
fi

tmo=${SROCE_TEST_TIMEOUT:-1500}
# SROCE_TIME_BUDGET (seconds, CI's check-debug and check-kernel): no file
# starts after it ran out; the files left are reported as skipped, by name.
# With SROCE_TIME_CUT=1 as well, the file still running when it runs out
# is stopped then and reported as skipped ("cut"), with what it passed
# and failed so far: the caller keeps only the time to tear down and power
# off after the budget, not the time of a whole file.  A file cut after
# printing nothing for SROCE_CUT_SILENCE seconds (default 600) may have
# hung: that fails.  A file gets at least SROCE_CUT_MIN seconds (default
# 30) or does not start.
budget_end=
[ -n "${SROCE_TIME_BUDGET:-}" ] && budget_end=$(($(date +%s) + SROCE_TIME_BUDGET))
time_cut=${SROCE_TIME_CUT:-0}
cut_silence=${SROCE_CUT_SILENCE:-600}
cut_min=${SROCE_CUT_MIN:-30}
sid_file=$(mktemp /tmp/sroce-run-sid.XXXXXX)

# timed_out RC: the exit status of a command timeout stopped.
timed_out() {
	[ "$1" = 124 ] || [ "$1" = 137 ]
}

# not_started N NAME: the budget ran out before file N could start.
not_started() {
	echo "ok $1 $2 # SKIP not started: SROCE_TIME_BUDGET ran out"
	skip=$((skip + 1))
}

# kmemleak, on the debug kernel of scripts/check-debug.sh: one scan after
# every file; what it reports then is that file's leak.  What the boot
# left (before any test, so not sroce's) is listed and cleared first.
kml=/sys/kernel/debug/kmemleak
kmemleak_report() {
	echo scan >$kml 2>/dev/null || return 1
	grep -c '^unreferenced object' $kml
}
if [ -w $kml ]; then
	n=$(kmemleak_report)
	echo "# kmemleak: $n objects unreferenced after boot, before any test; cleared"
	echo clear >$kml
fi
pass=0
fail=0
skip=0
n=0

echo "KTAP version 1"
echo "1..${#files[@]}"
for t in "${files[@]}"; do
	name=$(basename "$t" .sh)
	n=$((n + 1))
	if [ -n "$budget_end" ] && [ "$(date +%s)" -ge "$budget_end" ]; then
		not_started $n "$name"
		continue
	fi
	topo_reset
	p=0 f=0 s=0 planned='' rc='' t_rc='' t_out=$SECONDS
	t0=$SECONDS
	ftmo=$tmo cut=0
	if [ -n "$budget_end" ] && [ "$time_cut" = 1 ]; then
		left=$((budget_end - $(date +%s)))
		if [ $left -lt "$cut_min" ]; then
			not_started $n "$name"
			continue
		fi
		[ $left -lt "$tmo" ] && ftmo=$left cut=1
	fi
	echo "    # Subtest: $name"
	# Its own session: when its time is up, every process it started is
	# stopped (timeout signals the file's shell; a nested timeout moves
	# its command to a process group of its own), so none holds this pipe.
	: >"$sid_file"
	{
		timeout -k 10 "$ftmo" setsid bash -c \
			'echo $$ >"$1"; exec bash "$2" 2>&1 </dev/null' \
			- "$sid_file" "$t"
		frc=$?
		if timed_out $frc; then
			read -r sid <"$sid_file" &&
				pkill -KILL -s "$sid" 2>/dev/null
		fi
		printf '\n__sroce_rc=%s\n' $frc
	} | while IFS= read -r line; do
		case $line in
		*__sroce_rc=*)
			rc=${line##*__sroce_rc=} t_rc=$SECONDS
			line=${line%__sroce_rc=*}
			[ -z "$line" ] && continue
			;;
		"") continue ;;
		esac
		t_out=$SECONDS
		case $line in
		"ok "*"# SKIP"*) s=$((s + 1)) ;;
		"ok "*) p=$((p + 1)) ;;
		"not ok "*) f=$((f + 1)) ;;
		1..*) planned=${line#1..} ;;
		esac
		if [[ $line =~ ^[0-9]+\ passed,\ [0-9]+\ failed ]]; then
			line="# $line"
		fi
		printf '    %s\n' "$line"
	done
	# A process the file left behind with its output open (a background
	# sleep, a server) holds this pipe open: the next file waits for it.
	held=$((SECONDS - ${t_rc:-$SECONDS}))
	why= cut_skip= was_cut=0
	if [ $cut = 1 ] && timed_out "$rc" &&
		[ "$(date +%s)" -ge $((budget_end - 2)) ]; then
		# Cut by the budget: not a result, unless it had been silent
		# long enough to be a hang.  What it left behind is no leak of
		# a finished test: no kmemleak scan.
		was_cut=1 quiet=$((t_rc - t_out))
		topo_reset
		echo "    # $name: cut at the time budget after $((SECONDS - t0)) s: $p passed, $f failed before, the last output $quiet s before the cut"
		if [ $quiet -ge "$cut_silence" ]; then
			why="nothing printed for $quiet s before the cut: a hang?"
		else
			cut_skip=" # SKIP cut: SROCE_TIME_BUDGET ran out"
		fi
	elif timed_out "$rc"; then
		why="timed out after ${ftmo}s"
	elif [ -z "$planned" ]; then
		why="no KTAP plan"
	elif [ $((p + f + s)) -ne "$planned" ]; then
		why="planned $planned tests, reported $((p + f + s))"
	elif [ "$rc" != 0 ] && [ $f -eq 0 ]; then
		why="exit status $rc without a failed test"
	fi
	if [ -w $kml ] && [ $was_cut = 0 ]; then
		topo_reset
		leaks=$(kmemleak_report)
		if [ "${leaks:-0}" -gt 0 ]; then
			sed -n '1,60s/^/    # /p' $kml
			echo clear >$kml
			why+="${why:+; }kmemleak: $leaks unreferenced objects"
		fi
	fi
	echo "    # $name: $((SECONDS - t0)) s"
	[ $held -gt 5 ] &&
		echo "    # $name: its output stayed open $held s after it exited (a process it left behind)"
	if [ -n "$why" ]; then
		echo "    # $name: $why"
		f=$((f + 1))
	fi
	pass=$((pass + p))
	fail=$((fail + f))
	skip=$((skip + s))
	if [ $f -eq 0 ]; then
		[ -n "$cut_skip" ] && skip=$((skip + 1))
		echo "ok $n $name$cut_skip"
	else
		echo "not ok $n $name"
	fi
done
topo_reset
unload_sroce >/dev/null 2>&1
rm -f "$sid_file"

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
