#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/integration/selftest.sh - host test of the integration tests'
# helpers that need no guest: run_pair (dp-lib.sh) with plain commands in
# place of RDMA programs.
#
#   - run_pair read through $(...) or a pipe (as run.sh reads a file's
#     output) returns when the pair is done, not when its watcher's sleep
#     (the client's timeout less 3 s) would have ended;
#   - a client that times out still gets the watcher's record of the QPs
#     (pair_stuck_qps, stubbed here) in $pair_out.
#
# Prints KTAP and "N passed, N failed, N skipped"; exits 1 on any failure.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
. "$here/lib.sh"
. "$here/dp-lib.sh"

# The QPs' state of a stuck pair, without rdma or namespaces.
pair_stuck_qps() {
	echo "stuck-qps-of $*"
}

ktap_begin 3 "run_pair on the host"

# Each pair below is done within a second or two; the watcher sleeps
# TMO - 3 = 57 s.
TMO=60

t0=$SECONDS
out=$(run_pair $TMO - "true" - "echo client-ran"; echo "rc=$?")
dt=$((SECONDS - t0))
ktap_result "\$(run_pair ...) returns when the pair is done" \
	"$([ $dt -lt 20 ] && [ "$out" = "rc=0" ]; echo $?)" \
	"$dt s (the watcher sleeps $((TMO - 3)) s), output '$out'"

t0=$SECONDS
run_pair $TMO - "true" - "true" | cat
dt=$((SECONDS - t0))
ktap_result "run_pair ... | cat: the pipe closes when the pair is done" \
	"$([ $dt -lt 20 ]; echo $?)" "$dt s"

# A client that times out: the watcher ran 3 s before its timeout.
run_pair 8 - "sleep 30" - "sleep 30"
rc=$?
ktap_result "a client that times out: run_pair fails, \$pair_out has the QPs' state" \
	"$([ $rc -ne 0 ] && grep -q '^stuck-qps-of - -$' <<<"$pair_out"
		echo $?)" "rc=$rc" "$pair_out"

ktap_done
