#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-config.sh - sroce-config (tools/sroce-config, Documentation/config.rst):
# show one device's configuration, apply it to another, show again.
#
# Topology: make_two_ns (see lib.sh): sroce1 on v1 in ns1, sroce2 on v2 in
# ns2; each namespace is one "host".  Several knobs of sroce1 and of ns1
# change (sysfs, ecn/, the netdev MTU, sysctls, rdma_cm's
# default_roce_tos); the file of ns1 is then applied in ns2.  What changed
# is known independently of the tool: every writable file of the device is
# read with cat before and after.

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ktap_begin 22 "sroce-config show / apply / diff"

TOOL=$SROCE_TOP/tools/sroce-config
T=$(mktemp -d /tmp/t-config.XXXXXX)
S1=/sys/class/infiniband/sroce1
CFG=/sys/kernel/config/rdma_cm

two_ns_start

cm_ready() {
	modprobe rdma_cm || return 1
	mountpoint -q /sys/kernel/config ||
		mount -t configfs configfs /sys/kernel/config || return 1
	[ -d $CFG ]
}
ktap_check "rdma_cm loaded, its configfs mounted" cm_ready

# cfg NS ARGS...: sroce-config in namespace NS.
cfg() {
	local ns=$1
	shift
	ip netns exec "$ns" "$TOOL" "$@"
}

# knobs: every writable file of sroce1 (and of ecn/), "PATH = VALUE".
knobs() {
	local f
	# $S1 is a symlink: find starts below it only with the slash.
	find $S1/ -maxdepth 1 -type f -perm -u+w | sort | while read -r f; do
		echo "${f#"$S1"/} = $(cat "$f")"
	done
	find $S1/ecn -type f -perm -u+w | sort | while read -r f; do
		echo "${f#"$S1"/} = $(cat "$f")"
	done
}

# The configuration with identity lines and device names taken out.
portable() {
	grep -v -e '^identity ' -e '^\[device ' "$1"
}

# Keys of diff lines "WHERE: KEY: A -> B" (dscp entries as KEY[N]).
diff_keys() {
	sed -E 's/^[^:]+: ([^:]+): .*/\1/' | sort
}

ok=0
cfg ns1 show >$T/base1 && cfg ns2 show >$T/base2 || ok=1
out=$(cfg ns1 diff $T/base1 $T/base2 2>&1)
rc=$?
ktap_result "show in both namespaces; two fresh devices differ in nothing" \
	"$([ $ok = 0 ] && [ $rc = 0 ] && [ -z "$out" ]; echo $?)" \
	"rc=$rc" "$out"

st=0
for want in '^\[device sroce1\]$' '^identity netdev = v1$' \
	'^identity gid/[0-9]+ = ::ffff:10\.11\.0\.1 RoCE_v2 v1$' \
	'^identity netdev/address = ' '^state port/active_mtu = 1024$' \
	'^state ecn/roce_rp/available_cc_algos = .*dcqcn' \
	'^pfc_enable = ' '^pfc_dscp2prio = 0 0 ' '^pfc_storm_detect_ms = ' \
	'^ecn/roce_np/enable/3 = ' '^ecn/roce_rp/cc_algo = ' \
	'^ecn/roce_tx/ect/7 = ' '^netdev/mtu = 1500$' \
	'^netdev/sysctl/rp_filter = ' '^rdma_cm/default_roce_tos = 0$' \
	'^net\.ipv4\.conf\.all\.accept_local = ' '^sroce\.max_qp = '; do
	grep -Eq "$want" $T/base1 || {
		st=1
		diag "no line matching $want"
	}
done
ktap_result "show lists identity, state and every kind of knob" $st \
	"$(grep -Ev '^pfc_dscp2prio' $T/base1)"
ktap_result "show of sroce2 only, in ns2, names no device of ns1" \
	"$(grep -q sroce1 $T/base2; [ $? = 1 ] &&
		grep -q '^\[device sroce2\]$' $T/base2; echo $?)"

# ---- change knobs of sroce1 and ns1 ----
knobs >$T/knobs.before
np3=$(cat $S1/ecn/roce_np/enable/3)
algo=dctcp
grep -qw $algo $S1/ecn/roce_rp/available_cc_algos || algo=none
change() {
	echo 0x08 >$S1/pfc_enable &&
		echo "26 5" >$S1/pfc_dscp2prio &&
		echo 250 >$S1/pfc_storm_detect_ms &&
		echo 40 >$S1/ecn/roce_np/cnp_dscp &&
		echo $((1 - np3)) >$S1/ecn/roce_np/enable/3 &&
		echo paper >$S1/ecn/roce_rp/flavour &&
		echo 7 >$S1/ecn/roce_rp/rpg_ai_rate &&
		echo $algo >$S1/ecn/roce_rp/cc_algo &&
		echo 1 >$S1/ecn/roce_tx/ect/3 &&
		echo off >$S1/tx_batch &&
		echo 33554432 >$S1/rx_queue_max_bytes &&
		ip -n ns1 link set v1 mtu 9000 &&
		ip netns exec ns1 sysctl -qw net.ipv4.conf.v1.rp_filter=2 &&
		ip netns exec ns1 sysctl -qw net.ipv4.conf.all.accept_local=1 &&
		mkdir -p $CFG/sroce1 && echo 106 >$CFG/sroce1/ports/1/default_roce_tos
}
ktap_check "change 15 knobs of sroce1 and ns1" change
knobs >$T/knobs.after

cfg ns1 show >$T/cfg1
st=0
for want in '^pfc_enable = 0x08$' "^ecn/roce_rp/cc_algo = $algo\$" \
	'^ecn/roce_rp/flavour = paper$' '^ecn/roce_rp/rpg_ai_rate = 7$' \
	'^state port/active_mtu = 4096$' '^rdma_cm/default_roce_tos = 106$' \
	'^netdev/sysctl/rp_filter = 2$' '^tx_batch = off$' \
	'^pfc_dscp2prio = (\S+ ){26}5 '; do
	grep -Eq "$want" $T/cfg1 || {
		st=1
		diag "no line matching $want"
	}
done
ktap_result "show of sroce1 has the new values" $st

# What diff must report: the sysfs files that changed (pfc_dscp2prio as
# its one entry; tx_batch also changes its state), and the rest by name.
{
	diff $T/knobs.before $T/knobs.after | sed -n 's/^> \([^ ]*\) = .*/\1/p' |
		sed -e 's/^pfc_dscp2prio$/pfc_dscp2prio[26]/'
	printf '%s\n' netdev/mtu netdev/sysctl/rp_filter \
		net.ipv4.conf.all.accept_local rdma_cm/default_roce_tos \
		"state port/active_mtu" "state tx_batch/active"
} | sort >$T/want.keys
cfg ns2 diff $T/base2 $T/cfg1 >$T/diff.out 2>&1
rc=$?
diff_keys <$T/diff.out >$T/got.keys
ktap_result "diff reports exactly the $(wc -l <$T/want.keys) changed knobs" \
	"$([ $rc = 1 ] && cmp -s $T/want.keys $T/got.keys; echo $?)" \
	"rc=$rc" "$(diff $T/want.keys $T/got.keys)" "$(cat $T/diff.out)"

# unchanged: ns2's configuration is still byte for byte base2.
unchanged() {
	cfg ns2 show >$T/now2 && cmp -s $T/base2 $T/now2
}

out=$(cfg ns2 apply $T/cfg1 --dry-run 2>&1)
rc=$?
n=$(grep -c '^would change ' <<<"$out")
nwant=$(grep -vc '^state ' $T/want.keys)
ktap_result "apply --dry-run lists the $nwant changes and writes nothing" \
	"$([ $rc = 0 ] && [ "$n" = "$nwant" ] && unchanged; echo $?)" \
	"rc=$rc would=$n" "$out" "$(diff $T/base2 $T/now2)"

# refused NAME FILE PATTERN [ARGS...]: apply fails, says PATTERN, and
# changes nothing.
refused() {
	local name=$1 file=$2 pat=$3 out rc
	shift 3
	out=$(cfg ns2 apply "$file" "$@" 2>&1)
	rc=$?
	ktap_result "$name" \
		"$([ $rc != 0 ] && grep -Eq "$pat" <<<"$out" && unchanged
			echo $?)" "rc=$rc" "$out" "$(diff $T/base2 $T/now2)"
}

# rx_queue_max_bytes is written after most other knobs: they are undone.
sed 's/^rx_queue_max_bytes = .*/rx_queue_max_bytes = 1/' $T/cfg1 >$T/bad
refused "a value the kernel refuses: nothing changed, earlier writes undone" \
	$T/bad 'rx_queue_max_bytes = 1 refused by the kernel: .*range'
{ cat $T/cfg1; echo "no_such_knob = 1"; } >$T/unknown
refused "an unknown knob is refused, nothing changed" $T/unknown \
	'unknown knob no_such_knob'
sed 's/^ecn\/roce_rp\/cc_algo = .*/ecn\/roce_rp\/cc_algo = nosuchcc/' \
	$T/cfg1 >$T/noalgo
refused "a cc algorithm that is not loaded is refused, nothing changed" \
	$T/noalgo 'cc algorithm nosuchcc is not loaded'
refused "a missing device is refused, nothing changed" $T/cfg1 \
	'sroce9: no such sroce device' --map sroce1=sroce9
sed 's/^tx_batch = .*/tx_batch = sometimes/' $T/cfg1 >$T/word
refused "a word the knob does not take is refused, nothing changed" \
	$T/word 'tx_batch = sometimes: not one of off on auto'

out=$(cfg ns2 apply $T/cfg1 2>&1)
rc=$?
n=$(grep -c '^changed ' <<<"$out")
# flavour first: the roce_rp values it reloads are then set again, so
# rpg_ai_rate changes from the paper default, not from mlx's.
fl=$(grep -n 'changed sroce2: ecn/roce_rp/flavour: mlx -> paper' <<<"$out")
ai=$(grep -En 'changed sroce2: ecn/roce_rp/rpg_ai_rate: [0-9]+ -> 7$' <<<"$out")
ktap_result "apply in ns2 succeeds, says what it changed, flavour first" \
	"$([ $rc = 0 ] && grep -q "^$n knob(s) changed\$" <<<"$out" &&
		grep -q 'changed sroce2: pfc_enable: 0x00 -> 0x08' <<<"$out" &&
		[ -n "$fl" ] && [ -n "$ai" ] && [ "${fl%%:*}" -lt "${ai%%:*}" ]
		echo $?)" "rc=$rc changed=$n" "$out"

cfg ns2 show >$T/cfg2
portable $T/cfg1 >$T/p1
portable $T/cfg2 >$T/p2
ktap_result "show of sroce2 equals sroce1's apart from identity lines" \
	"$(cmp -s $T/p1 $T/p2; echo $?)" "$(diff $T/p1 $T/p2)"
ktap_result "identity lines still name ns2's own netdev and address" \
	"$(grep -q '^identity netdev = v2$' $T/cfg2 &&
		grep -Eq '^identity gid/[0-9]+ = ::ffff:10\.11\.0\.2 ' $T/cfg2
		echo $?)"
out=$(cfg ns2 diff $T/cfg1 - 2>&1)
rc=$?
ktap_result "diff of the file and the live ns2 reports nothing" \
	"$([ $rc = 0 ] && [ -z "$out" ]; echo $?)" "rc=$rc" "$out"
out=$(cfg ns2 diff --identity $T/cfg1 - 2>&1)
ktap_result "diff --identity shows the netdev names" \
	"$(grep -q '^sroce1|sroce2: identity netdev: v1 -> v2$' <<<"$out"
		echo $?)" "$out"

out=$(cfg ns2 apply $T/cfg1 2>&1)
ktap_result "a second apply changes nothing" \
	"$(grep -q '^0 knob(s) changed$' <<<"$out"; echo $?)" "$out"

# The baseline back: flavour mlx reloads the RP defaults first.
out=$(cfg ns2 apply $T/base2 2>&1)
rc=$?
ktap_result "applying the saved baseline restores sroce2" \
	"$([ $rc = 0 ] && unchanged; echo $?)" "rc=$rc" "$out" \
	"$(diff $T/base2 $T/now2)"

rmdir $CFG/sroce1 $CFG/sroce2 2>/dev/null
rm -rf "$T"
ktap_done
