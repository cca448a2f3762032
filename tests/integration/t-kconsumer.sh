#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-kconsumer.sh - a kernel verbs consumer with its own CQ handler
# (tests/kmod/sroce_kconsumer.ko, loaded against sroce1): a receive posted
# with interrupts off on a QP in ERR is flushed (from the driver's
# workqueue), and a completion handler that posts a receive on the QP in
# ERR that its flush completion came from works (both flushed, the handler
# ran once) instead of deadlocking on the responder's lock, and a handler
# that re-arms, polls and reposts every flushed receive is never entered
# from inside itself (one frame deeper per repost).  A send CQ's handler
# never runs inside an ib_post_send, neither for a QP in ERR (flush) nor
# for a UD QP in RTS (completion at transmit), whose handler posts again
# for each completion.  The module prints its cases to the kernel log;
# they are relayed here.
#
# Topology: make_two_ns (see lib.sh); only sroce1 is used.

here=$(dirname "${BASH_SOURCE[0]}")
. "$here/lib.sh"
. "$here/dp-lib.sh"

# kc_module: path of a built sroce_kconsumer.ko (built into /tmp if not);
# SROCE_KCONSUMER_KO names one built for another kernel (check-debug).
kc_module() {
	local m=${SROCE_KCONSUMER_KO:-$SROCE_TOP/tests/kmod/sroce_kconsumer.ko}
	if [ ! -e "$m" ]; then
		rm -rf /tmp/kc-build
		cp -r "$SROCE_TOP/tests/kmod" /tmp/kc-build &&
			make -s -C /tmp/kc-build >/dev/null 2>&1
		m=/tmp/kc-build/sroce_kconsumer.ko
	fi
	[ -e "$m" ] && echo "$m"
}

n=5
ktap_begin $((2 + 1 + n + 2)) "a kernel verbs consumer"
two_ns_start
kc=$(kc_module)
ktap_result "sroce_kconsumer.ko built (make -C tests/kmod)" \
	"$([ -n "$kc" ]; echo $?)"
[ -n "$kc" ] || {
	ktap_skip_rest "no module"
	ktap_done
}

before=$(rdma resource show sroce1)
mark="sroce_kconsumer-$$-$RANDOM"
echo "$mark" >/dev/kmsg
timeout 120 insmod "$kc" dev=sroce1 gid="$g1"
rc=$?
[ -e /sys/module/sroce_kconsumer ] && rmmod sroce_kconsumer
out=$(dmesg | sed -n "/$mark/,\$p" | sed -n 's/.*sroce_kconsumer: //p')
relay_tool "kconsumer: " "$n" $rc "$out"
after=$(rdma resource show sroce1)
ktap_result "the device holds what it held before" \
	"$([ "$after" = "$before" ]; echo $?)" "before: $before" \
	"after: $after"

ktap_done
