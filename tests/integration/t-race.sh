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

ktap_begin 3 "race windows held open by test hooks"

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

ktap_done
