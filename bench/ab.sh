#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/ab.sh - before/after in ONE guest boot: bench/run.sh for a base
# build of sroce, then for this tree's build, then the base once more, each
# next to rdma_rxe as usual.  A noisy host weighs on all three alike, and
# two base runs show how far one build's figures move on their own.
#
#   bench/ab.sh REV     builds REV (git archive of Kbuild, kernel, include,
#                       provider) into build/ab-base/, then boots the guest;
#                       SROCE_BENCH_* select rows as for bench/run.sh;
#                       SROCE_AB_PROFILE=1 first runs bench/profile.sh for
#                       each build too; SROCE_AB_RUNS="base new" leaves
#                       the second base run out; SROCE_AB_TESTS="t-..."
#                       runs those integration test files first, in the
#                       same boot (with SROCE_AB_TEST_KO, default the
#                       tree's module), so one guest slot does both.
#
# Results: bench/results/<stamp>-{base,new,base2}.{md,csv} (and prof-*.txt),
# each headed by the commit it measured.

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
top=$(cd "$here/.." && pwd -P)

if [ -z "${SROCE_VM:-}" ]; then
	rev=${1:?usage: bench/ab.sh REV}
	base=$top/build/ab-base
	KDIR=${KDIR:-$(ls -d /usr/src/linux-headers-*-amd64 | sort -V | tail -n 1)}
	rm -rf "$base" && mkdir -p "$base" || exit 2
	git -C "$top" archive "$rev" Kbuild kernel include provider |
		tar -x -C "$base" || exit 2
	if ! make -C "$KDIR" M="$base" modules >"$base/build.log" 2>&1 ||
		! make -C "$base/provider" >>"$base/build.log" 2>&1; then
		tail -n 20 "$base/build.log"
		exit 2
	fi
	stamp=$(date -u +%Y%m%d-%H%M%S)
	res=$(mktemp -d /tmp/sroce-ab.XXXXXX)
	SROCE_AB_BASE=$base SROCE_AB_BASE_REV=$(git -C "$top" rev-parse --short "$rev") \
		SROCE_AB_NEW_REV=$(git -C "$top" describe --always --dirty) \
		"$top/tests/vm/vm-run" --timeout "${SROCE_BENCH_TIMEOUT:-5400}" \
		--results "$res" --append "panic_on_warn=0" -- "$here/ab.sh"
	rc=$?
	mkdir -p "$here/results"
	for run in base new base2; do
		for f in md csv; do
			[ -s "$res/$run/bench.$f" ] &&
				cp "$res/$run/bench.$f" "$here/results/$stamp-$run.$f"
		done
		[ -s "$res/$run/profile.txt" ] &&
			cp "$res/$run/profile.txt" "$here/results/prof-$stamp-$run.txt"
	done
	ls "$here/results/$stamp"-* 2>/dev/null
	rm -rf "$res"
	exit $rc
fi

. "$top/tests/integration/lib.sh"

# run_build NAME KO PROVIDER REV: one bench/run.sh, then a clean guest.
run_build() {
	local out=${SROCE_RESULTS:-/tmp}/$1
	mkdir -p "$out"
	echo "# ab: $1 = $4"
	[ "${SROCE_AB_PROFILE:-}" = 1 ] && [ "$1" != base2 ] &&
		SROCE_KO=$2 SROCE_PROVIDER=$3 SROCE_RESULTS=$out \
			SROCE_PROF_REV=$4 "$here/profile.sh"
	SROCE_KO=$2 SROCE_PROVIDER=$3 SROCE_RESULTS=$out "$here/run.sh"
	[ -s "$out/bench.md" ] && sed -i "1a\\
\\
Measured: sroce $4 ($1 of bench/ab.sh)." "$out/bench.md"
	topo_reset
	unload_sroce
}

if [ -n "${SROCE_AB_TESTS:-}" ]; then
	# shellcheck disable=SC2086 # a list of file names
	SROCE_KO=${SROCE_AB_TEST_KO:-$top/kernel/sroce.ko} \
		"$top/tests/integration/run.sh" $SROCE_AB_TESTS
	echo "# ab: tests exit $?"
	topo_reset
	unload_sroce
fi
b=$SROCE_AB_BASE
for run in ${SROCE_AB_RUNS:-base new base2}; do
	case $run in
	new) run_build new "$top/kernel/sroce.ko" "$top/provider/libsroce" \
		"$SROCE_AB_NEW_REV" ;;
	*) run_build "$run" "$b/kernel/sroce.ko" "$b/provider/libsroce" \
		"$SROCE_AB_BASE_REV" ;;
	esac
done
