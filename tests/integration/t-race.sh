#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-race.sh - races found by reading, made certain with the test hooks of
# kernel/testhook.h.  Only a module built with SROCE_TEST_HOOKS=1 has them
# (scripts/check-debug.sh builds it so for the debug kernel, whose KASAN
# and lockdep see what a lost race does); with any other module every
# case is skipped.  Each hook sleeps inside a race window, and the hook's
# hit count tells the test when the racing operation is inside it.
#
# Topology: make_two_ns --no-rdma (see lib.sh); devices are added by hand.

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/dp-lib.sh"

ktap_begin $((3 + 2 + 1 + 1)) "race windows held open by test hooks"

if ! ktap_check "load sroce.ko" load_sroce; then
	ktap_skip_rest "sroce.ko does not load"
	ktap_done
fi
if ! ktap_check "two namespaces with a veth pair" make_two_ns --no-rdma; then
	ktap_skip_rest "no topology"
	ktap_done
fi

# --- defect 9: newlink's ecn/ directories against NETDEV_UNREGISTER ---------

# newlink sleeps 8 s between its check of ndev_gone and adding ecn/, and
# the veth is deleted only once the hook's hit count shows newlink inside
# that window.  Before defect 9's fix newlink dropped sroce_dev_lock before
# the window, so the deletion's dealloc_driver freed sdev->cc while newlink
# then added ecn/ for it (KASAN: use-after-free).  Fixed, the window is
# under the lock: the notifier waits for it, newlink succeeds and then the
# device goes.
hook=/sys/module/sroce/parameters/test_newlink_sysfs_ms
hits=/sys/module/sroce/parameters/test_newlink_sysfs_hits
# hook_hit N: has the hook started more than N sleeps?  (builtins only)
hook_hit() {
	local h
	read -r h <$hits && [ "$h" -gt "$1" ]
}
if [ -w $hook ] && [ -r $hits ]; then
	ref0=$(cat /sys/module/sroce/refcnt)
	ip -n ns1 link add vr1 type veth peer name vr2 &&
		ip -n ns1 link set vr1 up && ip -n ns1 link set vr2 up
	read -r h0 <$hits
	echo 8000 >$hook
	ip netns exec ns1 rdma link add sroce7 type sroce netdev vr1 &
	addpid=$!
	wait_until 300 hook_hit "$h0"
	inside=$?
	# newlink is asleep inside the window (if it still runs).
	kill -0 $addpid 2>/dev/null
	running=$?
	ip -n ns1 link del vr1
	wait $addpid
	addrc=$?
	echo 0 >$hook
	ok=1
	wait_until 120 dev_gone sroce7 && ok=0
	ktap_result "netdev deleted while newlink waits to add ecn/: add succeeds, the device goes" \
		"$([ $inside = 0 ] && [ $running = 0 ] && [ $addrc = 0 ] &&
			[ $ok = 0 ] &&
			[ "$(cat /sys/module/sroce/refcnt)" = "$ref0" ]; echo $?)" \
		"in the window: $inside, add running then: $running, add exit $addrc, devices: $(ls /sys/class/infiniband)"
else
	ktap_skip "netdev deleted while newlink waits to add ecn/: add succeeds, the device goes" \
		"sroce.ko built without SROCE_TEST_HOOKS=1"
fi

# --- a reset overtaking the flush of a move to ERR (SRQ last WQE) ----------

# sroce_kconsumer.ko race=1 on a device of its own: modify_qp to ERR sleeps
# 3 s before its flush (test_qp_flush_ms) and the module resets the QP
# meanwhile (it waits for the QP to show ERR first).  The late flush finds
# a reset QP and flushes nothing; before the fix it still raised
# IB_EVENT_QP_LAST_WQE_REACHED for a QP attached to an SRQ.
hook=/sys/module/sroce/parameters/test_qp_flush_ms
hits=/sys/module/sroce/parameters/test_qp_flush_hits
kc=${SROCE_KCONSUMER_KO:-$SROCE_TOP/tests/kmod/sroce_kconsumer.ko}
if [ -w $hook ] && [ -r $hits ] && [ -e "$kc" ]; then
	ip -n ns1 link add vq1 type veth peer name vq2 &&
		ip -n ns1 link set vq1 up && ip -n ns1 link set vq2 up &&
		ip netns exec ns1 rdma link add sroce8 type sroce netdev vq1
	read -r h0 <$hits
	mark="sroce_kconsumer-$$-$RANDOM"
	echo "$mark" >/dev/kmsg
	echo 3000 >$hook
	timeout 120 insmod "$kc" dev=sroce8 race=1
	rc=$?
	echo 0 >$hook
	read -r h1 <$hits
	[ -e /sys/module/sroce_kconsumer ] && rmmod sroce_kconsumer
	out=$(dmesg | sed -n "/$mark/,\$p" | sed -n 's/.*sroce_kconsumer: //p')
	relay_tool "last WQE: " 2 $rc "$out"
	ktap_result "last WQE: both moves to ERR slept in the hook" \
		"$([ $((h1 - h0)) = 2 ]; echo $?)" "hits $h0 -> $h1"
	ip netns exec ns1 rdma link delete sroce8
	ip -n ns1 link del vq1
else
	for c in "SRQ QP to ERR: one last-WQE event" \
		"SRQ QP reset while its move to ERR flushes: no last-WQE event" \
		"exits 0" "both moves to ERR slept in the hook"; do
		ktap_skip "last WQE: $c" \
			"sroce.ko built without SROCE_TEST_HOOKS=1, or no sroce_kconsumer.ko"
	done
fi

ktap_done
