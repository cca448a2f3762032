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
