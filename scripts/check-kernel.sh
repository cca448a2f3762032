#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-kernel.sh - what `make check-kernel` runs: sroce built against
# Debian's newest kernel of another series (6.12, bookworm-backports),
# fetched and unpacked without installing it (scripts/fetch-kernel.sh),
# and the integration suite in a guest that boots that kernel.  Ends with
# ONE line "N passed, N failed".
#
#   scripts/check-kernel.sh [SERIES] [t-NAME ...]   default 6.12, every file
#   scripts/check-kernel.sh 6.12 t-link t-netdev    these files
#   scripts/check-kernel.sh --build-only [SERIES]   the builds, no guest
#   scripts/check-kernel.sh [SERIES] --ci           the subset CI runs
#
# Builds, each one test (a warning fails it):
#   - sroce.ko and sroce_cc_fixed.ko in build/k<SERIES>/mod/ (a copy of
#     the sources, with the race delays of kernel/testhook.h, as
#     check-debug.sh builds them), and tests/kmod;
#   - sroce.ko against a copy of the same headers with CONFIG_DCB off
#     (build/k<SERIES>/nodcb/), a configuration that has no
#     net_device.dcbnl_ops (kernel/compat/compat.h).
# Then tests/integration/run.sh runs in tests/vm/vm-run --kernel --modules;
# results (console, dmesg) in build/check-kernel-results/.
#
# SROCE_TEST_TIMEOUT (per file, default 2400 s here: the 6.12 guest is
# slower than 6.1's) and SROCE_KERNEL_VM_TIMEOUT (the whole guest, default
# 14400 s) bound the run.

set -u
set -o pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$top" || exit 2
. scripts/summary.sh
. scripts/guests.sh
. scripts/modsrc.sh

build_only=0
if [ "${1:-}" = --build-only ]; then
	build_only=1
	shift
fi
series=6.12
if [[ ${1:-} =~ ^[0-9]+\.[0-9]+$ ]]; then
	series=$1
	shift
fi
# The subset CI runs on this kernel (Documentation/testing.rst), after the
# whole suite on 6.1 and the debug subset: what ib_core offers a driver
# (verbs through the provider, the requester, responder and completer,
# memory registration, netdev events, rdma_cm through NVMe-oF, loss
# recovery), the quickest first, so that a short budget skips the rest.
ci_files=(t-devinfo t-resp t-queues t-kconsumer t-peer t-netdev t-datapath
	t-cc t-nvmeof t-inval t-pingpong t-link t-faults)
if [ "${1:-}" = --ci ]; then
	shift
	set -- "${ci_files[@]}"
fi

pass=0
fail=0
skip=0

fail() {
	echo "check-kernel: $*"
	echo "$pass passed, $((fail + 1)) failed"
	exit 1
}

# result NAME RC: one KTAP-style line, counted.
result() {
	if [ "$2" = 0 ]; then
		echo "ok - $1"
		pass=$((pass + 1))
	else
		echo "not ok - $1"
		fail=$((fail + 1))
	fi
}

# SROCE_DEADLINE (epoch seconds; .ci/run sets it): the guest run must end
# by then; files that could not start in time are reported as skipped by
# name (run.sh, SROCE_TIME_BUDGET, counted from the guest's start of
# run.sh); the file running when the budget runs out is cut then
# (SROCE_TIME_CUT) and reported as skipped with what it passed so far; 4
# minutes are kept for the boot, the teardown after a cut and power-off.
left_s() {
	echo $((SROCE_DEADLINE - $(date +%s)))
}
if [ -n "${SROCE_DEADLINE:-}" ] && [ "$(left_s)" -lt 660 ]; then
	echo "check-kernel: SKIP: $(left_s) s left of the time budget, too few to fetch, build and boot"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi

kvars=$(scripts/fetch-kernel.sh "$series") || fail "cannot fetch kernel $series"
eval "$kvars"
echo "check-kernel: $KVER, headers $KDIR"

out=$top/build/k$series
mod=$out/mod
copy_module_sources "$mod" Kbuild kernel include tests/kmod ||
	fail "cannot copy the module sources"

# kbuild KDIR DIR NAME: build the module(s) of DIR, fail on a warning.
kbuild() {
	local kdir=$1 dir=$2 name=$3 rc=0 w
	make -C "$kdir" M="$dir" SROCE_TEST_HOOKS=1 modules \
		>"$dir/build.log" 2>&1 || rc=1
	if [ $rc != 0 ]; then
		tail -n 30 "$dir/build.log" | sed 's/^/# /'
	elif w=$(grep -E '(warning|error):' "$dir/build.log"); then
		sed 's/^/# /' <<<"$w"
		rc=1
	fi
	result "$name" $rc
}

kbuild "$KDIR" "$mod" "sroce.ko builds against $KVER without warnings"
kbuild "$KDIR" "$mod/kmod" "tests/kmod builds against $KVER without warnings"

# The same headers with CONFIG_DCB off: only the configuration differs,
# which is all a compile test of the DCB-less case needs.  The copy is
# made once per kernel release.
nodcb=$out/nodcb
nd_kdir=$nodcb/kdir
if [ "$(cat "$nd_kdir/.sroce-release" 2>/dev/null)" != "$KVER" ]; then
	rm -rf "$nodcb"
	mkdir -p "$nodcb"
	cp -a "$KDIR" "$nd_kdir" &&
		ln -sfn "$(readlink -f "$KDIR/scripts")" "$nd_kdir/scripts" &&
		ln -sfn "$(readlink -f "$KDIR/tools")" "$nd_kdir/tools" &&
		sed -i '/^#define CONFIG_DCB 1$/d' \
			"$nd_kdir/include/generated/autoconf.h" &&
		sed -i '/^CONFIG_DCB=y$/d' "$nd_kdir/include/config/auto.conf" \
			"$nd_kdir/.config" &&
		echo "$KVER" >"$nd_kdir/.sroce-release" ||
		fail "cannot prepare the CONFIG_DCB=n headers"
fi
copy_module_sources "$nodcb/mod" Kbuild kernel include ||
	fail "cannot copy the module sources"
kbuild "$nd_kdir" "$nodcb/mod" "sroce.ko builds without CONFIG_DCB"

if [ $build_only = 1 ] || [ $fail != 0 ]; then
	[ $fail != 0 ] && echo "check-kernel: a build failed, no guest"
	echo "$pass passed, $fail failed"
	[ $fail = 0 ]
	exit
fi

export SROCE_KO=$mod/kernel/sroce.ko
export SROCE_KCONSUMER_KO=$mod/kmod/sroce_kconsumer.ko
export SROCE_TEST_TIMEOUT=${SROCE_TEST_TIMEOUT:-2400}
vm_timeout=${SROCE_KERNEL_VM_TIMEOUT:-14400}
if [ -n "${SROCE_DEADLINE:-}" ]; then
	if [ "$(left_s)" -lt 600 ]; then
		echo "check-kernel: SKIP: $(left_s) s left of the time budget, too few to boot"
		skip=$((skip + 1))
		echo "$pass passed, $fail failed, $skip skipped"
		[ "$fail" -eq 0 ]
		exit
	fi
	vm_timeout=$(left_s)
	export SROCE_TIME_BUDGET=$((vm_timeout - 240)) SROCE_TIME_CUT=1
	echo "check-kernel: $vm_timeout s left: no file starts after $SROCE_TIME_BUDGET s"
fi
suite_guests check-kernel "$top/build/check-kernel-results" \
	"$vm_timeout" 1800 \
	--kernel "$KIMAGE" --modules "$KMODROOT" -- "$@"
[ "$skip" -gt 0 ] && echo "check-kernel: $skip skipped"
summary_notes
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
