#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-deb.sh - what `make check-deb` runs after `make deb`: the packages
# of build/deb/ installed, used and purged in a guest
# (tests/pkg/t-deb.sh), on Debian's 6.1 kernel, or on another series
# fetched by scripts/fetch-kernel.sh.  Ends with "N passed, N failed".
#
#   scripts/check-deb.sh          the stock kernel (the one vm-run boots)
#   scripts/check-deb.sh 6.12     Debian's newest 6.12 (bookworm-backports)
#
# The guest's /usr (and, with another kernel, its /lib/modules share) gets
# a tmpfs-backed overlay (vm-run --overlay): dpkg and DKMS write there and
# in the /etc and /var overlays every guest has; the host's root is never
# written.  DKMS compiles the module inside the guest (TCG): several
# minutes.  Console and dmesg in build/check-deb-results/.

set -u
set -o pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$top" || exit 2

vm=(tests/vm/vm-run --timeout "${SROCE_DEB_VM_TIMEOUT:-3600}" --mem 3G
	--overlay /usr)
if [ -n "${1:-}" ]; then
	kvars=$(scripts/fetch-kernel.sh "$1") || {
		echo "check-deb: cannot fetch kernel $1"
		echo "0 passed, 1 failed"
		exit 1
	}
	eval "$kvars"
	vm+=(--kernel "$KIMAGE" --modules "$KMODROOT" --overlay /lib/modules)
	echo "check-deb: kernel $KVER"
fi
res=$top/build/check-deb-results
rm -rf "$res"
mkdir -p "$res"
. scripts/summary.sh
log=$res/output.txt
start=$(date +%s)
"${vm[@]}" --results "$res" --keep-log "$res/console.log" -- \
	tests/pkg/t-deb.sh 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
echo "check-deb: the guest ran $(($(date +%s) - start)) s (vm-run exit $rc)"
summary_read "$log" || { sum_pass=0; sum_fail=0; sum_skip=0; }
# a splat, a timeout or a guest that died is one more failure
[ "$rc" -ne 0 ] && [ "$sum_fail" -eq 0 ] && sum_fail=1
echo "$sum_pass passed, $sum_fail failed, $sum_skip skipped"
[ "$sum_fail" -eq 0 ]
