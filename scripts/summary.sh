# SPDX-License-Identifier: GPL-2.0
#
# summary.sh - sourced by check.sh, check-debug.sh and check-kernel.sh: read the one
# "N passed, N failed[, N skipped]" line every test runner ends with.
#
# summary_read FILE: sets sum_pass, sum_fail, sum_skip from the last such
# line of FILE; returns 1 (and sets nothing) if FILE has none.

summary_read() {
	local line
	line=$(grep -aE '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
	[ -n "$line" ] || return 1
	sum_pass=$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$line")
	sum_fail=$(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$line")
	sum_skip=$(sed -nE 's/.*, ([0-9]+) skipped.*/\1/p' <<<"$line")
	sum_skip=${sum_skip:-0}
}

# summary_add WHO NAME RC FILE: add FILE's summary line to the caller's
# totals pass, fail and skip (NAME: what ran, RC: its exit status).  No
# summary line, or a non-zero RC with no failure counted, is one failure
# more.
summary_add() {
	local who=$1 name=$2 rc=$3 file=$4
	if ! summary_read "$file"; then
		echo "$who: $name: no summary line (exit $rc): 1 failure"
		fail=$((fail + 1))
		return
	fi
	pass=$((pass + sum_pass))
	fail=$((fail + sum_fail))
	skip=$((skip + sum_skip))
	if [ "$rc" -ne 0 ] && [ "$sum_fail" -eq 0 ]; then
		echo "$who: $name: exit status $rc with no failed test: 1 failure"
		fail=$((fail + 1))
	fi
}
