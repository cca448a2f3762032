#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh - what `make check` runs after building: the unit tests on the
# host, then the integration tests in one guest boot, then ONE line
# "N passed, N failed" summing both.  Exit non-zero on any failure.
#
#   scripts/check.sh                 everything
#   SROCE_CHECK_SKIP_VM=1 ...        no guest (unit tests, static checks)
#   SROCE_CHECK_SKIP_STATIC=1 ...    no sparse / style checks
#   scripts/check.sh t-link t-netns  only these integration test files
#
# The integration run's results share (dmesg of the guest etc.) is kept in
# build/check-results/.

set -u
set -o pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$top" || exit 2
. scripts/summary.sh
. scripts/guests.sh

pass=0
fail=0
skip=0
log=$(mktemp /tmp/sroce-check.XXXXXX)
trap 'rm -f "$log"' EXIT

# add_counts NAME RC: add the last summary line of $log to the totals
# (summary_add in summary.sh).
add_counts() {
	summary_add check "$1" "$2" "$log"
}

echo "check: unit tests"
if [ -f tests/unit/Makefile ]; then
	make -C tests/unit run 2>&1 | tee "$log"
	add_counts "unit tests" "${PIPESTATUS[0]}"
else
	echo "check: SKIP unit tests: tests/unit/Makefile does not exist yet"
fi

echo "check: simulator tests"
tests/sim/run.sh 2>&1 | tee "$log"
add_counts "simulator tests" "${PIPESTATUS[0]}"

# The MPI collectives benchmark checks what it measures (bench/mpi).
echo "check: MPI collectives benchmark, host self-test"
bench/mpi/selftest.sh 2>&1 | tee "$log"
add_counts "MPI benchmark self-test" "${PIPESTATUS[0]}"

# The integration tests' helpers that run without a guest (run_pair).
echo "check: integration test helpers, host self-test"
tests/integration/selftest.sh 2>&1 | tee "$log"
add_counts "integration helpers self-test" "${PIPESTATUS[0]}"

# A few seconds of each libFuzzer target (tests/fuzz; `make fuzz` runs long).
echo "check: fuzz targets (short runs)"
make -s -C tests/fuzz check 2>&1 | tee "$log"
add_counts "fuzz targets" "${PIPESTATUS[0]}"

# static checks: sparse over the kernel sources (C=2, all files), then
# checkpatch --strict and clang-format (scripts/style.sh).  One test each.
static_check() {
	local name=$1
	shift
	if "$@" >"$log" 2>&1; then
		echo "ok - $name"
		pass=$((pass + 1))
	else
		sed 's/^/# /' "$log" | tail -n 40
		echo "not ok - $name"
		fail=$((fail + 1))
	fi
}

sparse_clean() {
	make -C "$KDIR" M="$top" C=2 modules 2>&1 | tee /dev/stderr |
		{ ! grep -E '(warning|error):' >/dev/null; }
}

if [ -z "${SROCE_CHECK_SKIP_STATIC:-}" ]; then
	echo "check: static checks"
	# As the Makefile: the running kernel's build tree, else the newest
	# Debian headers (what the guest boots).
	if [ -z "${KDIR:-}" ]; then
		KDIR=/lib/modules/$(uname -r)/build
		[ -d "$KDIR" ] ||
			KDIR=$(ls -d /usr/src/linux-headers-*-amd64 | sort -V | tail -n 1)
	fi
	static_check "sparse (make C=2)" sparse_clean
	static_check "style (checkpatch --strict, clang-format)" scripts/style.sh
	static_check "Documentation/counters.rst matches kernel/counters.h" \
		scripts/gen-counters-doc.py --check
	static_check "Documentation/*.rst parse cleanly (docutils)" \
		scripts/check-docs.py
fi

if [ -n "${SROCE_CHECK_SKIP_VM:-}" ]; then
	echo "check: SKIP integration tests (SROCE_CHECK_SKIP_VM set)"
elif [ ! -e kernel/sroce.ko ]; then
	echo "check: integration tests: kernel/sroce.ko not built: 1 failure"
	fail=$((fail + 1))
else
	echo "check: integration tests (guest boot)"
	# The suite's guest: 40 minutes on a quiet host, but past 3600 s
	# beside two other guests and a kernel build (2026-12-06: t-nvmeof,
	# the 21st file, was cut off at 3600 s with every file before it
	# passed); what it takes beyond an hour comes out of CI's debug and
	# 6.12 steps, which run against SROCE_DEADLINE.
	# Under CI's SROCE_DEADLINE the guest ends 2 minutes before it at the
	# latest, so that CI still prints its recap and summary line.
	tmo=5000
	if [ -n "${SROCE_DEADLINE:-}" ]; then
		left=$((SROCE_DEADLINE - $(date +%s) - 120))
		[ $left -lt $tmo ] && tmo=$((left > 60 ? left : 60))
	fi
	suite_guests check build/check-results $tmo 900 -- "$@"
fi

[ "$skip" -gt 0 ] && echo "check: $skip skipped"
summary_notes
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
