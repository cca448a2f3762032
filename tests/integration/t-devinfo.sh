#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-devinfo.sh - libibverbs finds sroce devices through the provider
# (RDMAV_DRIVERS, see lib.sh) and ibv_devinfo reports sane attributes.
#
# Topology: make_two_ns (see lib.sh): sroce1 on v1 in ns1, sroce2 on v2.

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ktap_begin 21 "ibv_devices / ibv_devinfo on sroce"

two_ns_start

if [ ! -e "$SROCE_PROVIDER-rdmav34.so" ]; then
	diag "$SROCE_PROVIDER-rdmav34.so is not built"
fi

out=$(IBV_SHOW_WARNINGS=1 ibv_devices 2>&1)
ktap_result "ibv_devices lists sroce1 and sroce2" \
	"$(grep -qw sroce1 <<<"$out" && grep -qw sroce2 <<<"$out"; echo $?)" \
	"$out"

info=$(ibv_devinfo -v -d sroce1 2>&1)
st=$?
ktap_result "ibv_devinfo -v -d sroce1 succeeds" $st "$info"
if [ $st -ne 0 ]; then
	ktap_skip_rest "no device info"
	ktap_done
fi

# field NAME: value of "NAME: value" in $info (first occurrence).
field() {
	sed -n "s/^[[:space:]]*$1:[[:space:]]*\\(.*\\)$/\\1/p" <<<"$info" |
		head -n 1
}

# expect NAME WANT: the field must start with WANT.
expect() {
	local v
	v=$(field "$1")
	ktap_result "$1 is $2" "$([[ $v == "$2"* ]]; echo $?)" "$1: '$v'"
}

expect transport "InfiniBand (0)"
expect link_layer Ethernet
expect state PORT_ACTIVE
expect active_mtu "1024 (3)"
expect phys_state LINK_UP

max_qp=$(sed -n 's/^[[:space:]]*SROCE_MAX_QP = \([0-9]*\),.*/\1/p' \
	"$SROCE_TOP/kernel/device.h")
expect max_qp "$max_qp"

ktap_result "GID list shows ::ffff:10.11.0.1 as RoCE v2" \
	"$(grep -Eq 'GID\[ *[0-9]+\]:.*::ffff:10\.11\.0\.1, RoCE v2' <<<"$info"
		echo $?)" "$(grep GID <<<"$info")"
ktap_result "GID list shows fd00::1 as RoCE v2" \
	"$(grep -Eq 'GID\[ *[0-9]+\]:.*fd00::1, RoCE v2' <<<"$info"; echo $?)" \
	"$(grep GID <<<"$info")"

# rx_steer and ack_coalesce (Documentation/ABI): on by default, booleans only.
for sw in rx_steer ack_coalesce; do
	f=/sys/class/infiniband/sroce1/$sw
	ktap_result "$sw defaults to 1" "$([ "$(cat $f)" = 1 ]; echo $?)" \
		"$sw: $(cat $f)"
	echo 0 >$f 2>/dev/null
	v1=$(cat $f)
	echo on >$f 2>/dev/null
	ktap_result "$sw takes 0 and on" \
		"$([ "$v1" = 0 ] && [ "$(cat $f)" = 1 ]; echo $?)" \
		"after 0: $v1, after on: $(cat $f)"
	err=$( (echo maybe >$f) 2>&1)
	rc=$?
	ktap_result "$sw refuses 'maybe' (EINVAL) and stays 1" \
		"$([ $rc -ne 0 ] && grep -q 'Invalid argument' <<<"$err" &&
			[ "$(cat $f)" = 1 ]; echo $?)" \
		"rc=$rc err='$err' now $(cat $f)"
done

# tx_batch (Documentation/ABI): auto by default, active on a veth.
batch=/sys/class/infiniband/sroce1/tx_batch
ktap_result "tx_batch defaults to auto, active on a veth" \
	"$([ "$(cat $batch)" = "auto (active)" ]; echo $?)" "tx_batch: $(cat $batch)"
echo off >$batch 2>/dev/null
v1=$(cat $batch)
echo auto >$batch 2>/dev/null
ktap_result "tx_batch takes off and auto" \
	"$([ "$v1" = "off (inactive)" ] && [ "$(cat $batch)" = "auto (active)" ]
		echo $?)" "after off: $v1, after auto: $(cat $batch)"
err=$( (echo always >$batch) 2>&1)
rc=$?
ktap_result "tx_batch refuses 'always' (EINVAL) and stays auto" \
	"$([ $rc -ne 0 ] && grep -q 'Invalid argument' <<<"$err" &&
		[ "$(cat $batch)" = "auto (active)" ]; echo $?)" \
	"rc=$rc err='$err' now $(cat $batch)"

ktap_done
