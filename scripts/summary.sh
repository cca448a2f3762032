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

# summary_fail WHO WHAT: one failure more, said now and kept for
# summary_notes.
summary_fail() {
	echo "$1: $2: 1 failure"
	fail=$((fail + 1))
	sum_notes+=("$1: $2")
}

# summary_add WHO NAME RC FILE: add FILE's summary line to the caller's
# totals pass, fail and skip (NAME: what ran, RC: its exit status).  No
# summary line, or a non-zero RC with no failure counted, is one failure
# more.  What failed (the "not ok" lines; without a summary line, the last
# file begun and the log's tail) is kept for summary_notes.
summary_add() {
	local who=$1 name=$2 rc=$3 file=$4 line
	if ! summary_read "$file"; then
		summary_fail "$who" "$name: no summary line (exit $rc)"
		line=$(grep -a '# Subtest: ' "$file" | tail -n 1)
		[ -n "$line" ] && sum_notes+=("  the last file begun:${line##*#}")
		line=$(grep -a '^vm-run: ' "$file" | tail -n 1 | cut -c 1-160)
		[ -n "$line" ] && sum_notes+=("  $line")
		while IFS= read -r line; do
			sum_notes+=("  | $line")
		done < <(tail -n 8 "$file" | cut -c 1-160)
		return
	fi
	pass=$((pass + sum_pass))
	fail=$((fail + sum_fail))
	skip=$((skip + sum_skip))
	if [ "$sum_fail" -gt 0 ]; then
		sum_notes+=("$who: $name: $sum_fail failed")
		while IFS= read -r line; do
			sum_notes+=("  $line")
		done < <(grep -aE '^ *not ok ' "$file" | head -n 12 | cut -c 1-160)
	fi
	if [ "$rc" -ne 0 ] && [ "$sum_fail" -eq 0 ]; then
		summary_fail "$who" "$name: exit status $rc with no failed test"
	fi
}

# summary_notes: what failed, again, just before the caller's summary line
# (a CI log is often read from its end only).
sum_notes=()
summary_notes() {
	[ ${#sum_notes[@]} -gt 0 ] || return 0
	echo "what failed, repeated from above:"
	printf '  %s\n' "${sum_notes[@]}"
}
