#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-pyverbs.sh - rdma-core's own pyverbs test suite (control path subset)
# on rdma_rxe, as a baseline, and then on sroce, in the same boot.  The
# sroce run passes with zero failures and zero errors.
#
# Topology: make_init_veth (see lib.sh).  rdma_rxe works only in init_net,
# so both devices sit on i1 in init_net, one after the other: rxe0 first,
# then rxe0 is deleted and rdma_rxe unloaded (it holds UDP 4791 of
# init_net from module load on), then sroce0 takes i1.
#
#   init_net: rxe0 -> (removed) -> sroce0 on i1 ==veth== i2 :ns3

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

suites=${SROCE_PYVERBS_TESTS:-test_device test_pd test_mr test_cq test_cqex test_qpex
	test_qp test_addr test_atomic test_cq_events test_relaxed_ordering}

ktap_begin 7 "pyverbs control path tests: rdma_rxe baseline, then sroce"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r /usr/share/doc/rdma-core/tests "$work/" && gunzip -f "$work"/tests/*.gz
if ! ktap_check "pyverbs tests unpacked" test -e "$work/tests/run_tests.py" ||
	! ktap_check "veth in init_net" make_init_veth; then
	ktap_skip_rest "no test suite or topology"
	ktap_done
fi

# run_suite DEV LABEL: run the subset on DEV with the GID of 10.12.0.1;
# leaves "ran pass skip fail error" in $counts.
run_suite() {
	local dev=$1 gid log
	gid=$(gid_index "$dev" 10.12.0.1)
	log=$work/$dev.log
	(cd "$work/tests" &&
		timeout 1200 /usr/bin/python3 run_tests.py --dev "$dev" \
			--gid "$gid" -v $suites) >"$log" 2>&1
	local ran fail err skip
	ran=$(sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in.*/\1/p' "$log")
	fail=$(sed -n 's/^FAILED (.*failures=\([0-9]*\).*/\1/p' "$log")
	err=$(sed -n 's/^FAILED (.*errors=\([0-9]*\).*/\1/p' "$log")
	skip=$(grep -Eo 'skipped=[0-9]+' "$log" | tail -n 1 | cut -d= -f2)
	ran=${ran:-0} fail=${fail:-0} err=${err:-0} skip=${skip:-0}
	counts="$ran $((ran - fail - err - skip)) $skip $fail $err"
	diag "$2 ($dev, gid $gid): ran $ran, passed $((ran - fail - err - skip)), skipped $skip, failed $fail, errors $err"
	# name every test that did not pass, with its exception's last line
	awk '/^(ERROR|FAIL): / { name = $0; last = ""; getline; next }
		name != "" && /^(====================|--------------------)/ {
			print "#   " name; if (last != "") print "#     " last
			name = ""; next }
		name != "" && NF { last = $0 }' "$log"
	[ -n "${SROCE_RESULTS:-}" ] && cp "$log" "$SROCE_RESULTS/pyverbs-$dev.log"
	if [ "$ran" = 0 ]; then
		diag "no unittest summary; output tail:"
		tail -n 20 "$log" | sed 's/^/#   /'
	fi
}

# --- rdma_rxe baseline --------------------------------------------------------

ok=1
out=$(modprobe rdma_rxe 2>&1 && add_link rxe0 rxe i1 2>&1 &&
	wait_gid rxe0 10.12.0.1 2>&1) && ok=0
ktap_result "rxe0 on i1" $ok "$out"
if [ $ok = 0 ]; then
	run_suite rxe0 rdma_rxe
	read -r ran _ <<<"$counts"
	ktap_result "rdma_rxe suite ran (baseline, failures are rxe's)" \
		"$([ "$ran" -gt 0 ]; echo $?)"
else
	ktap_skip "rdma_rxe suite" "no rxe device"
fi
del_link rxe0 >/dev/null 2>&1
modprobe -r rdma_rxe

# --- sroce -------------------------------------------------------------------------

ok=1
out=$(load_sroce 2>&1 && add_link sroce0 sroce i1 2>&1 &&
	wait_gid sroce0 10.12.0.1 2>&1) && ok=0
ktap_result "sroce0 on i1" $ok "$out" "GIDs: $(list_gids sroce0 2>&1)"
if [ $ok = 0 ]; then
	run_suite sroce0 sroce
	read -r ran _ skip fail err <<<"$counts"
	ktap_result "sroce suite ran" "$([ "$ran" -gt 0 ]; echo $?)"
	ktap_result "sroce: 0 failures, 0 errors" \
		"$([ "$ran" -gt 0 ] && [ "$fail" = 0 ] && [ "$err" = 0 ]; echo $?)"
else
	ktap_skip "sroce suite ran" "no sroce device"
	ktap_skip "sroce: 0 failures, 0 errors" "no sroce device"
fi
del_link sroce0 >/dev/null 2>&1

ktap_done
