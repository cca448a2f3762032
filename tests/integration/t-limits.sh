#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-limits.sh - the object limits ibv_query_device advertises are real
# (tests/datapath/dp_limits): objects of each kind are created until the
# device refuses one; the refusal must be ENOMEM exactly at the advertised
# maximum (less what the kernel itself holds, from `rdma resource`), the
# create after one free must succeed, and afterwards the device holds what
# it held before (nothing leaked, no partial state).  Then SRQ resizing
# (tests/datapath/dp_srqresize): refused below the posted WQEs or beyond
# max_srq_wr, grown and shrunk with receives posted, which complete in
# posting order with their data (UD loopback on sroce1).  Then CQ resizing
# while another thread polls the CQ (tests/datapath/dp_cqresize): the
# provider's lockless empty check must never read an unmapped ring.
#
# Every kind runs, QP (16384) and AH (65536) included: about 6 s and 14 s
# under TCG since destroy no longer waits for an RCU grace period per
# object (a normal one took 23 ms each, an expedited one IPIs every CPU;
# see ah.c and qp.c).  On the debug kernel an object costs milliseconds
# (65534 PDs: 73 s to create, 135 s to destroy), so there sroce1 is created
# with lower limits (module parameters, kernel/limits.c): the same paths at
# a size that fits.  The parameters themselves are checked first: a value
# out of range is refused and changes nothing, and a device created after
# a change advertises and enforces the new limit while older devices keep
# theirs.  The multicast limits are checked by t-mcast.
#
# Topology: make_two_ns (see lib.sh); only sroce1 in ns1 is used.

here=$(dirname "${BASH_SOURCE[0]}")
. "$here/lib.sh"

. "$here/dp-lib.sh"

lim=$(dp_tool dp_limits)
sz=$(dp_tool dp_srqresize)
nsz=$("$sz" -P 2>/dev/null || echo 1)
cr=$(dp_tool dp_cqresize)
ncr=$("$cr" -P 2>/dev/null || echo 1)
kinds=(pd mr mw cq srq qp ah)
ktap_begin $((3 + 5 + 2 * ${#kinds[@]} + 1 + nsz + 1 + ncr + 1)) \
	"advertised object limits, SRQ and CQ resize"

ktap_result "dp_limits and dp_srqresize built (make -C tests/datapath)" \
	"$([ -n "$lim" ] && [ -n "$sz" ]; echo $?)"
load_sroce && debug_kernel &&
	set_limits max_pd=2048 max_mr=2048 max_mw=2048 max_cq=2048 \
		max_srq=512 max_qp=1024 max_ah=2048
two_ns_start
restore_limits
if [ -z "$lim" ] || [ -z "$sz" ]; then
	ktap_skip_rest "dp_limits or dp_srqresize not built"
	ktap_done
fi
g=$g1

# res_count DEV KIND: objects of KIND the device holds (`rdma resource`).
res_count() {
	rdma resource show "$1" | sed -n "s/.* $2 \([0-9]*\).*/\1/p"
}

# adv DEV ATTR: what ibv_devinfo -v says of ATTR.
adv() {
	ibv_devinfo -v -d "$1" | sed -n "s/^[[:space:]]*$2:[[:space:]]*\([0-9]*\).*/\1/p"
}

# --- the limit parameters ------------------------------------------------------

par=/sys/module/sroce/parameters
old_qp=$(cat $par/max_qp)
bad=0
for v in 0 15 16385 -1 x; do
	echo "$v" 2>/dev/null >$par/max_qp && bad=$((bad + 1))
done
ktap_result "max_qp refuses 0, 15, 16385, -1 and x and keeps $old_qp" \
	"$([ $bad = 0 ] && [ "$(cat $par/max_qp)" = "$old_qp" ]; echo $?)" \
	"$bad writes accepted, now $(cat $par/max_qp)"

old_pd=$(cat $par/max_pd)
old_mcg=$(cat $par/max_mcast_grp)
s1_pd=$(adv sroce1 max_pd)
echo 40 >$par/max_pd
echo 2 >$par/max_mcast_grp
ip -n ns1 link add v9 type veth peer name v10 &&
	ip -n ns1 addr add 10.99.0.1/24 dev v9 &&
	ip -n ns1 link set v9 up && ip -n ns1 link set v10 up &&
	add_link sroce9 sroce v9 ns1 && wait_gid sroce9 10.99.0.1
rc=$?
echo "$old_pd" >$par/max_pd
echo "$old_mcg" >$par/max_mcast_grp
ktap_result "sroce9, created with max_pd=40, advertises 40; sroce1 keeps $s1_pd" \
	"$([ $rc = 0 ] && [ "$(adv sroce9 max_pd)" = 40 ] &&
		[ "$(adv sroce1 max_pd)" = "$s1_pd" ]; echo $?)" \
	"sroce9 $(adv sroce9 max_pd 2>&1)"
# Two groups hold at most 2 x 56 attachments: the total is advertised so.
ktap_result "sroce9, created with max_mcast_grp=2, advertises 2 groups and 112 attachments" \
	"$([ "$(adv sroce9 max_mcast_grp)" = 2 ] &&
		[ "$(adv sroce9 max_total_mcast_qp_attach)" = 112 ]; echo $?)" \
	"sroce9 $(adv sroce9 max_mcast_grp 2>&1) $(adv sroce9 max_total_mcast_qp_attach 2>&1)"
held=$(($(res_count sroce9 pd) + 1))
out=$(ip netns exec ns1 timeout 120 "$lim" -d sroce9 \
	-g "$(gid_index sroce9 10.99.0.1)" pd 2>&1)
read -r _ _ max made err _ <<<"$(grep "^LIMIT pd " <<<"$out")"
ktap_result "sroce9 refuses PD $((40 - held + 1)) with ENOMEM ($held held)" \
	"$([ "${max:-}" = 40 ] && [ "${made:-}" = $((40 - held)) ] &&
		[ "${err:-}" = 12 ]; echo $?)" "$out"
del_link sroce9
ip -n ns1 link del v9
ktap_result "sroce9 deleted, max_pd back to $old_pd" \
	"$([ ! -e /sys/class/infiniband/sroce9 ] &&
		[ "$(cat $par/max_pd)" = "$old_pd" ]; echo $?)"

# --- each kind up to its limit ---------------------------------------------------

before=$(rdma resource show sroce1)
diag "before: $before"
for k in "${kinds[@]}"; do
	# What the kernel holds: ib_mad's PD, CQ and GSI QP, and one internal
	# DMA MR per kernel PD (ib_alloc_pd on a device without a local DMA
	# lkey); dp_limits holds one PD and one CQ of its own.
	case $k in
	pd | cq) held=$(($(res_count sroce1 "$k") + 1)) ;;
	mr) held=$(res_count sroce1 pd) ;;
	qp | srq) held=$(res_count sroce1 "$k") ;;
	*) held=0 ;;
	esac
	out=$(ip netns exec ns1 timeout 1800 "$lim" -d sroce1 -g "$g" "$k" 2>&1)
	read -r _ _ max made err reuse <<<"$(grep "^LIMIT $k " <<<"$out")"
	want=$((${max:-0} - held))
	ktap_result "$k: $want created (max $max, $held held), then ENOMEM" \
		"$([ "${made:-x}" = "$want" ] && [ "${err:-x}" = 12 ]; echo $?)" \
		"created ${made:-?}, refusal errno ${err:-?}; $out"
	ktap_result "$k: one freed, one created again" \
		"$([ "${reuse:-0}" = 1 ]; echo $?)" "$out"
	diag "$(grep '^# ' <<<"$out" | sed 's/^# //')"
done

# --- SRQ resize (ibv_modify_srq with IBV_SRQ_MAX_WR) ---------------------------

out=$(ip netns exec ns1 timeout 120 "$sz" -d sroce1 -g "$g" 2>&1)
relay_tool "srq resize: " "$nsz" $? "$out"

# --- CQ resize while another thread polls (dp_cqresize) -----------------------

out=$(ip netns exec ns1 timeout 300 "${cr:-false}" -d sroce1 2>&1)
relay_tool "cq resize: " "$ncr" $? "$out"

after=$(rdma resource show sroce1)
ktap_result "the device holds what it held before" \
	"$([ "$after" = "$before" ]; echo $?)" "before: $before" \
	"after: $after"

ktap_done
