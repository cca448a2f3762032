#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-debug.sh - what `make check-debug` runs: the integration suite on a
# debug kernel (KASAN, lockdep, UBSAN, DEBUG_OBJECTS, kmemleak, lockup and
# hung-task detectors; tests/vm/debug.config), built once and cached by
# scripts/debug-kernel.sh.  Ends with ONE line "N passed, N failed".
#
#   scripts/check-debug.sh               every integration file (in two
#                                        guests at once)
#   scripts/check-debug.sh --ci          the subset CI runs (below)
#   scripts/check-debug.sh t-link ...    these files
#
# SROCE_DEADLINE (epoch seconds; .ci/run sets it): the guest run must end
# by then.  Files that could not start in time are reported as skipped by
# name (tests/integration/run.sh, SROCE_TIME_BUDGET); the file running
# when the budget runs out is cut then (SROCE_TIME_CUT) and reported as
# skipped with what it passed so far.  8 minutes are kept for the boot,
# the teardown after a cut and power-off.
#
# sroce.ko is built against the debug kernel in build/debug/mod/ (a copy of
# the module's sources, with the race delays of kernel/testhook.h:
# SROCE_TEST_HOOKS=1), so the tree's own kernel/sroce.ko stays the one
# for Debian's kernel.  Any detector report fails the run: tests/vm/vm-run
# scans the console and dmesg, tests/integration/run.sh reads kmemleak
# after every file.  Results: build/check-debug-results/.  t-crc and
# t-virtio run in guests of their own, as in check.sh (scripts/guests.sh).

set -u
set -o pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$top" || exit 2
. scripts/summary.sh
. scripts/guests.sh
. scripts/modsrc.sh

# The subset CI runs on the debug kernel (Documentation/testing.rst): the
# files of the issue's list that passed on it, first, so that a short time
# budget skips the others; then the rest that passed.  `make check-debug`
# runs every file.
ci_files=(t-race t-resp t-inval t-netdev t-limits t-datapath t-faults
	t-nvmeof t-mcast t-link t-queues t-kconsumer t-hostile t-peer t-pktfuzz)

# Every file (no names given) runs in two guests at once
# (SROCE_SUITE_GUESTS, scripts/guests.sh; set it to 1 for one guest),
# balanced by the files' times measured on the debug kernel (seconds,
# rounded; 300 for one not listed; all from the two-guest run of session
# 21 on 2d6dea1, Documentation/testing.rst).
# Named files and --ci run in one guest, in the order given (the CI
# subset's order is its priority).
if [ "${1:-}" = --ci ]; then
	shift
	set -- "${ci_files[@]}"
	export SROCE_SUITE_GUESTS=1
elif [ $# -eq 0 ]; then
	export SROCE_SUITE_GUESTS=${SROCE_SUITE_GUESTS:-2}
else
	export SROCE_SUITE_GUESTS=1
fi
export SROCE_SUITE_WEIGHTS="t-rdmacm:1200 t-config:1140 t-soak:1080
	t-pfc:800 t-mcast:730 t-pingpong:680 t-link:640 t-nvmeof:630 t-top:580
	t-hpcc:550 t-ucx:470 t-txq:450 t-faults:430 t-pfc-incast:410
	t-interop:390 t-limits:340 t-pyverbs:340 t-pktfuzz:340 t-cc:330
	t-datapath:310 t-hostile:260 t-monitor:210 t-netdev:210 t-inval:200
	t-cc-incast:200 t-cc-interop:190 t-libfabric:180 t-netns:160
	t-devinfo:150 t-peer:150 t-kconsumer:150 t-queues:140 t-resp:110
	t-race:110 t-rxq:80"

fail() {
	echo "check-debug: $*"
	echo "0 passed, 1 failed"
	exit 1
}

if [ -n "${SROCE_DEADLINE:-}" ]; then
	# The build must leave 15 minutes for the guest.
	left=$((SROCE_DEADLINE - $(date +%s) - 900))
	rc=124
	[ $left -gt 0 ] && { dk=$(timeout $left scripts/debug-kernel.sh); rc=$?; }
	if [ $rc = 124 ]; then
		echo "check-debug: SKIP: the debug kernel was not built within the time budget"
		echo "0 passed, 0 failed, 1 skipped"
		exit 0
	fi
	[ $rc = 0 ] || fail "no debug kernel"
else
	dk=$(scripts/debug-kernel.sh) || fail "no debug kernel"
fi
echo "check-debug: debug kernel $(cat "$dk/release") from $dk" \
	"(built in $(cat "$dk/build-seconds") s)"

mod=$top/build/debug/mod
copy_module_sources "$mod" Kbuild kernel include tests/kmod ||
	fail "cannot copy the module sources"
for m in "$mod" "$mod/kmod"; do
	make -C "$dk/obj" M="$m" SROCE_TEST_HOOKS=1 modules >"$m/build.log" 2>&1 ||
		{ tail -n 30 "$m/build.log"; fail "$m does not build against the debug kernel"; }
	if grep -E '(warning|error):' "$m/build.log"; then
		fail "$m builds with warnings against the debug kernel"
	fi
done

# The debug kernel is several times slower: scale the per-file timeout.
export SROCE_KO=$mod/kernel/sroce.ko
export SROCE_KCONSUMER_KO=$mod/kmod/sroce_kconsumer.ko
# 6000 s beside a second guest: t-rdmacm alone took about 3500 s there.
if [ "$SROCE_SUITE_GUESTS" -gt 1 ]; then
	export SROCE_TEST_TIMEOUT=${SROCE_TEST_TIMEOUT:-6000}
else
	export SROCE_TEST_TIMEOUT=${SROCE_TEST_TIMEOUT:-4500}
fi
export SROCE_DEBUG_KERNEL=1
# dp_test's RC retransmit timeout: 1 s instead of 67 ms (a 4 MiB SEND ran
# out of retries on the debug kernel with 67 ms)
export SROCE_DP_QP_TIMEOUT=${SROCE_DP_QP_TIMEOUT:-18}
vm_timeout=${SROCE_DEBUG_VM_TIMEOUT:-14400}
if [ -n "${SROCE_DEADLINE:-}" ]; then
	left=$((SROCE_DEADLINE - $(date +%s)))
	if [ $left -lt 900 ]; then
		echo "check-debug: SKIP: $left s left of the time budget, too few to boot"
		echo "0 passed, 0 failed, 1 skipped"
		exit 0
	fi
	export SROCE_TIME_BUDGET=$((left - 480)) SROCE_TIME_CUT=1
	vm_timeout=$left
	echo "check-debug: $left s left: no file starts after $SROCE_TIME_BUDGET s"
fi
pass=0
fail=0
skip=0
# pci=noacpi: the debug kernel's ACPI interpreter, under TCG, runs the
# PCI routing method (_PRT) of QEMU's DSDT into ACPICA's 30 s loop
# timeout once per PCI device, 3.5 minutes of boot in all; the BIOS's
# routing table gives the same routing at once.  The files with a guest
# of their own get 5 times check.sh's 15 minutes.
suite_guests check-debug "$top/build/check-debug-results" "$vm_timeout" 4500 \
	--kernel "$dk/bzImage" --modules "$dk/modroot" --mem 3G \
	--append pci=noacpi -- "$@"
[ "$skip" -gt 0 ] && echo "check-debug: $skip skipped"
summary_notes
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
