#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-inval.sh - verbs with invalid arguments (tests/datapath/dp_inval): bad
# access flags, counts and lengths beyond the advertised limits, wrong QP
# states and attributes, bad address vectors and objects of another PD
# (lkeys, AHs, an SRQ, memory window binds with an MR or a QP of another
# PD or an MR without MW_BIND) each fail with a clear error, and a valid
# call afterwards works; at the end the device holds exactly what it held
# before (`rdma resource`), so no failed call left anything behind.
# The data-path error cases of RC (remote access, lengths, MW binds) are
# in t-datapath (dp_err.c); this file covers the control path.
# dp_mwrace then deallocates type 1 windows while another thread binds
# them, in a loop: no dead window may stay bound, the MR deregisters.
#
# Topology: make_two_ns (see lib.sh); only sroce1 in ns1 is used.

here=$(dirname "${BASH_SOURCE[0]}")
. "$here/lib.sh"
. "$here/dp-lib.sh"

need_tool dp_inval "verbs with invalid arguments"
iv=$tool
need_tool dp_mwrace "verbs with invalid arguments"
mwr=$tool
n=$("$iv" -P)
nr=$("$mwr" -P)
ktap_begin $((2 + n + 2 + nr + 1)) "verbs with invalid arguments"
two_ns_start

before=$(rdma resource show sroce1)
out=$(ip netns exec ns1 timeout 120 "$iv" -d sroce1 -g "$g1" 2>&1)
rc=$?
relay_tool "dp_inval: " "$n" $rc "$out"
after=$(rdma resource show sroce1)
ktap_result "the device holds what it held before" \
	"$([ "$after" = "$before" ]; echo $?)" "before: $before" \
	"after: $after"

out=$(ip netns exec ns1 timeout 150 "$mwr" -d sroce1 -g "$g1" -n 20000 \
	-t 90 2>&1)
rc=$?
diag "$(grep '^# .* rounds' <<<"$out")"
relay_tool "dp_mwrace: " "$nr" $rc "$out"

ktap_done
