#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-mcast.sh - UD multicast (kernel/mcast.c): attach/detach semantics and
# limits (tests/datapath/dp_mcast verbs, and total for
# max_total_mcast_qp_attach), delivery of one packet to every
# QP attached to a group over IPv4-mapped and IPv6 multicast GIDs, the IP
# group joined on the netdev only while QPs are attached, Q_Key checked on
# multicast, a process killed and a device removed while QPs are attached,
# rdmacm-utils' mckey over IPv4 and IPv6 (sender in one namespace, receiver
# in the other), multicast between sroce devices bound to VLAN netdevs, and
# unicast and multicast from the GIDs of a VLAN upper of the bound netdev,
# also of one created after the QPs attached (and removed while attached).
#
# Topology: make_two_ns (see lib.sh):
#
#   ns1: sroce1 on v1 (10.11.0.1, fd00::1) ==veth== v2 (10.11.0.2, fd00::2) sroce2 :ns2
#        senders                                        receivers

here=$(dirname "${BASH_SOURCE[0]}")
. "$here/lib.sh"
. "$here/dp-lib.sh"

G4=239.1.2.3
G6=ff0e::1:2:3
NMSG=${MC_NMSG:-10}

need_tool dp_mcast "UD multicast"
mc=$tool
nverbs=$("$mc" -P)
ntotal=$("$mc" -P total)
ktap_begin $((nverbs + ntotal + 46)) "UD multicast"
# On the debug kernel 8192 groups take more than 5 minutes: the devices
# are created with lower limits there (kernel/limits.c), the same paths.
load_sroce && debug_kernel &&
	set_limits max_mcast_grp=512 max_total_mcast_qp_attach=1024
two_ns_start
restore_limits
wait_gid sroce1 fd00::1
wait_gid sroce2 fd00::2
g16=$(gid_index sroce1 fd00::1)
g26=$(gid_index sroce2 fd00::2)

# --- verbs semantics and limits (one device) ----------------------------------

out=$(ip netns exec ns2 timeout 300 "$mc" -d sroce2 -g "$g2" verbs 2>&1)
rc=$?
relay_tool "verbs: " "$nverbs" $rc "$out"

# max_total_mcast_qp_attach: reached, exceeded (ENOMEM), all detached; ~1 min
# under TCG (ib_uverbs and the IP stack scan lists of 8192 groups).
out=$(ip netns exec ns2 timeout 900 "$mc" -d sroce2 -g "$g2" total 2>&1)
rc=$?
relay_tool "total: " "$ntotal" $rc "$out"
left=$(ip -n ns2 maddr show dev v2 | grep -c 'inet 239\.')
ktap_result "no IPv4 group left on v2 after detaching them all" \
	"$([ "$left" -eq 0 ]; echo $?)" "$left groups left"

# --- traffic -------------------------------------------------------------------

# in_group NS DEV ADDR: is ADDR among DEV's IP multicast memberships?
in_group() {
	ip -n "$1" maddr show dev "$2" | grep -qw "$3"
}

# mc_traffic LABEL GROUP GIDX1 GIDX2 NQP QKEY_SEND WANT
# Receiver in ns2 with NQP QPs attached to GROUP, sender in ns1 sending
# NMSG messages with QKEY_SEND; receiver expects WANT messages per QP and
# nothing more until a second after the sender finished (SIGUSR1).
# Sets mc_rout (receiver output) and mc_ok (receiver's verdict, 0 = good),
# mc_joined (0: GROUP was joined on the receiver's netdev while attached),
# mc_sout and mc_sok (the sender's).  The devices are sroce1 -> sroce2 on
# v2 unless MC_SDEV, MC_RDEV and MC_RIF say otherwise.  MC_AFTER_ATTACH, if
# set, is run once the receiver's QPs are attached (before the join check);
# its status is in mc_hook (0 = good).
mc_traffic() {
	local label=$1 grp=$2 gs=$3 gr=$4 nqp=$5 qk=$6 want=$7
	local sdev=${MC_SDEV:-sroce1} rdev=${MC_RDEV:-sroce2} rif=${MC_RIF:-v2}
	local rf pid
	mc_joined=1 mc_sok=1 mc_sout=
	rf=$(mktemp)
	ip netns exec ns2 timeout 120 "$mc" -d "$rdev" -g "$gr" -m "$grp" \
		-q "$nqp" -n "$want" -t 30000 recv >"$rf" 2>&1 &
	pid=$!
	if ! wait_until 30 grep -q '^ready' "$rf"; then
		mc_rout=$(cat "$rf")
		mc_ok=1
		kill "$pid" 2>/dev/null
		wait "$pid"
		rm -f "$rf"
		return
	fi
	mc_hook=0
	if [ -n "${MC_AFTER_ATTACH:-}" ]; then
		eval "$MC_AFTER_ATTACH" || mc_hook=1
	fi
	mc_joined=1
	in_group ns2 "$rif" "$grp" && mc_joined=0
	mc_sout=$(ip netns exec ns1 timeout 60 "$mc" -d "$sdev" -g "$gs" \
		-m "$grp" -n "$NMSG" -k "$qk" send 2>&1)
	mc_sok=$?
	# Anything more (a duplicate, a late packet) would arrive by now.
	sleep 1
	rpid=$(sed -n 's/^ready //p' "$rf")
	[ -n "$rpid" ] && kill -USR1 "$rpid" 2>/dev/null
	wait "$pid"
	mc_ok=$?
	mc_rout=$(cat "$rf")
	rm -f "$rf"
	diag "$label: $(tr '\n' ';' <<<"$mc_rout")"
}

for fam in 4 6; do
	if [ $fam = 4 ]; then
		grp=$G4 gs=$g1 gr=$g2
	else
		grp=$G6 gs=$g16 gr=$g26
	fi
	before=$(hw_counter sroce2 rx_mcast_pkts)
	mc_traffic "IPv$fam" "$grp" "$gs" "$gr" 3 0x11111111 "$NMSG"
	ktap_result "IPv$fam: group $grp joined on v2 while QPs are attached" \
		"$mc_joined" "$(ip -n ns2 maddr show dev v2)"
	ktap_result "IPv$fam: sender posts $NMSG UD SENDs to QPN 0xffffff" \
		"$mc_sok" "$mc_sout"
	ktap_result "IPv$fam: each of 3 attached QPs receives all $NMSG, once" \
		"$mc_ok" "$mc_rout"
	after=$(hw_counter sroce2 rx_mcast_pkts)
	ktap_result "IPv$fam: rx_mcast_pkts grew by 3 x $NMSG" \
		"$([ $((after - before)) -eq $((3 * NMSG)) ]; echo $?)" \
		"before $before after $after"
done

# After the receivers detached, the groups are left again.
st=0
in_group ns2 v2 $G4 && st=1
in_group ns2 v2 $G6 && st=1
ktap_result "groups left on v2 after the last detach" $st \
	"$(ip -n ns2 maddr show dev v2)"

# Wrong Q_Key: nothing delivered, counted.
before=$(hw_counter sroce2 rx_drop_bad_qkey)
mc_traffic "bad qkey" $G4 "$g1" "$g2" 2 0x22222222 0
ktap_result "a Q_Key mismatch delivers nothing" "$mc_ok" "$mc_rout"
after=$(hw_counter sroce2 rx_drop_bad_qkey)
ktap_result "rx_drop_bad_qkey counts one drop per attached QP" \
	"$([ $((after - before)) -eq $((2 * NMSG)) ]; echo $?)" \
	"before $before after $after"

# No QP attached on the receiving device: nothing reaches sroce2, since the
# IP group is not joined there (the IP stack drops it), and nothing fails.
before=$(hw_counter sroce2 rcvd_pkts)
out=$(ip netns exec ns1 timeout 60 "$mc" -d sroce1 -g "$g1" -m $G4 \
	-n "$NMSG" send 2>&1)
ktap_result "sending to a group nobody joined completes" $? "$out"
sleep 0.5
after=$(hw_counter sroce2 rcvd_pkts)
ktap_result "a device not in the group receives nothing" \
	"$([ "$after" -eq "$before" ]; echo $?)" "before $before after $after"

# --- a process killed while its QPs are attached ----------------------------------

rf=$(mktemp)
ip netns exec ns2 timeout 120 "$mc" -d sroce2 -g "$g2" -m $G4 -q 2 -n 100 \
	-t 100 recv >"$rf" 2>&1 &
pid=$!
wait_until 30 grep -q '^ready' "$rf"
st=1
in_group ns2 v2 $G4 && st=0
rpid=$(sed -n 's/^ready //p' "$rf")
[ -n "$rpid" ] && kill -KILL "$rpid"
wait "$pid" 2>/dev/null
wait_until 10 eval "! in_group ns2 v2 $G4" || st=1
ktap_result "a process killed while attached: its IP group is left" $st \
	"$(cat "$rf"; ip -n ns2 maddr show dev v2)"
rm -f "$rf"

# --- a device removed while a QP is attached ------------------------------------

rf=$(mktemp)
ip netns exec ns2 timeout 120 "$mc" -d sroce2 -g "$g2" -m $G4 -q 2 -n 100 \
	-t 100 recv >"$rf" 2>&1 &
pid=$!
wait_until 30 grep -q '^ready' "$rf"
del_link sroce2
ok=1
wait_until 20 dev_gone sroce2 && ok=0
ktap_result "rdma link del with QPs attached removes sroce2" $ok \
	"$(cat "$rf")"
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
rm -f "$rf"
st=0
in_group ns2 v2 $G4 && st=1
ktap_result "its IP group is left" $st "$(ip -n ns2 maddr show dev v2)"

# --- mckey (rdmacm-utils) -----------------------------------------------------

# rxe_mckey_join GROUP: an mckey receiver joins GROUP (IPv6) on rdma_rxe,
# on the veth i1 (fd01::1) in init_net, where 6.1's rxe works; its output.
rxe_mckey_join() {
	if modprobe rdma_rxe && make_init_veth && add_link rxe0 rxe i1 &&
		wait_gid rxe0 fd01::1 "$(rounds 20 120)"; then
		timeout "$(rounds 15 90)" mckey -m "$1" -b fd01::1 -C 1
	else
		echo "no rdma_rxe on i1: $(list_gids rxe0 2>&1)"
	fi
	rdma link delete rxe0 >/dev/null 2>&1
	wait_until 10 dev_gone rxe0
	ip link del i1 >/dev/null 2>&1
	ip netns del ns3 >/dev/null 2>&1
	modprobe -r rdma_rxe >/dev/null 2>&1
}

# mckey_pair LABEL GROUP RECV_ADDR SEND_ADDR: mckey receiver in ns2 bound to
# RECV_ADDR, sender in ns1 bound to SEND_ADDR, NMSG messages to GROUP.
mckey_pair() {
	local label=$1 grp=$2 ra=$3 sa=$4 rf pid sout srx rrx
	rf=$(mktemp)
	ip netns exec ns2 timeout 60 mckey -m "$grp" -b "$ra" -C "$NMSG" \
		>"$rf" 2>&1 &
	pid=$!
	wait_until 30 grep -q 'receiving data transfers' "$rf"
	sleep 0.5
	sout=$(ip netns exec ns1 timeout 60 mckey -m "$grp" -b "$sa" -s \
		-C "$NMSG" 2>&1)
	srx=$?
	wait "$pid"
	rrx=$?
	diag "mckey $label sender: $(tr '\n' ';' <<<"$sout")"
	diag "mckey $label receiver: $(tr '\n' ';' <<<"$(cat "$rf")")"
	# rdma_cm of Linux 6.1 refuses IPv6 groups on RoCE v2 itself, for
	# every driver (cma_iboe_join_multicast: -ENOTSUPP, errno 524); newer
	# rdma_cm accepts them.  A skip only if rdma_rxe, in this boot, is
	# refused the same join.
	if [ $srx -ne 0 ] && [ $rrx -ne 0 ] &&
		grep -q 'failure joining: Unknown error 524' "$rf" &&
		grep -q 'failure joining: Unknown error 524' <<<"$sout"; then
		rxe_out=$(rxe_mckey_join "$grp" 2>&1)
		diag "mckey $label on rdma_rxe: $(tr '\n' ';' <<<"$rxe_out")"
		if grep -q 'failure joining: Unknown error 524' <<<"$rxe_out"; then
			ktap_skip "mckey $label: sender (ns1) and receiver (ns2) exit 0" \
				"rdma_cm of Linux $(uname -r) refuses the join (ENOTSUPP), on rdma_rxe in this boot too"
		else
			ktap_fail "mckey $label: sender (ns1) and receiver (ns2) exit 0" \
				"sroce: ENOTSUPP, but rdma_rxe was not refused" \
				"$rxe_out"
		fi
	else
		ktap_result "mckey $label: sender (ns1) and receiver (ns2) exit 0" \
			"$([ $srx -eq 0 ] && [ $rrx -eq 0 ]; echo $?)" \
			"sender $srx receiver $rrx"
	fi
	rm -f "$rf"
}

if ! ktap_check "sroce2 again on v2" add_link sroce2 sroce v2 ns2 ||
	! wait_gid sroce2 10.11.0.2 || ! wait_gid sroce2 fd00::2; then
	ktap_skip "mckey IPv4" "no sroce2"
	ktap_skip "mckey IPv6" "no sroce2"
else
	mckey_pair IPv4 $G4 10.11.0.2 10.11.0.1
	mckey_pair IPv6 ff0e::1:2:4 fd00::2 fd00::1
fi

# vlan_mc_report LABEL GROUP WIRE_RC WIRE_WHAT WIRE_DIAG: the results of a
# mc_traffic run of 2 QPs onto v2.100: GROUP joined there while attached,
# every QP got all NMSG once, the check of the wire (WIRE_RC 0 = good),
# and GROUP left on v2.100 once the receivers detached.
vlan_mc_report() {
	local label=$1 grp=$2 st=0
	ktap_result "$label: group $grp joined on v2.100 while QPs are attached" \
		"$mc_joined" "$(ip -n ns2 maddr show dev v2.100)"
	ktap_result "$label: each of 2 attached QPs receives all $NMSG, once" \
		"$mc_ok" "$mc_rout" "sender: $mc_sout"
	ktap_result "$label: $4" "$3" "$5"
	in_group ns2 v2.100 "$grp" && st=1
	ktap_result "$label: group left on v2.100 after the last detach" $st \
		"$(ip -n ns2 maddr show dev v2.100)"
}

# --- sroce devices bound to VLAN netdevs --------------------------------------
#
#   ns1: v1.100 on v1 ========== VLAN 100 ========== v2.100 on v2 :ns2
#        sroce3 bound to v1.100                      sroce4 bound to v2.100
#
# ib_core gives an RDMA device the IP addresses of its netdev and of that
# netdev's upper devices, never those of a VLAN it is bound to directly
# (its filter compares the VLAN's real device with the bound netdev): such
# a device has only its default GID, fe80:: from the MAC, at index 0.  So
# the group is an IPv6 one.  Attaching on sroce4 joins the IP group on
# v2.100 itself (the VLAN driver passes the MAC filter down to v2); the
# SENDs from sroce3 cross the veth tagged.

GV=ff0e::1:2:5
st=0
ip -n ns1 link add link v1 name v1.100 type vlan id 100 &&
	ip -n ns2 link add link v2 name v2.100 type vlan id 100 &&
	ip -n ns1 link set v1.100 up && ip -n ns2 link set v2.100 up &&
	add_link sroce3 sroce v1.100 ns1 && add_link sroce4 sroce v2.100 ns2 &&
	wait_until 10 grep -q '^fe80:' /sys/class/infiniband/sroce3/ports/1/gids/0 &&
	wait_until 10 grep -q '^fe80:' /sys/class/infiniband/sroce4/ports/1/gids/0 ||
	st=1
ktap_result "VLAN: sroce3 on v1.100 and sroce4 on v2.100, link-local GIDs" \
	$st "$(list_gids sroce3; list_gids sroce4)"
if [ $st -eq 0 ]; then
	cap=$(mktemp)
	ip netns exec ns2 timeout 60 tcpdump -i v2 -e -n -c "$NMSG" \
		"vlan 100 and dst host $GV and udp dst port 4791" \
		>"$cap" 2>/dev/null &
	td=$!
	sleep 2
	MC_SDEV=sroce3 MC_RDEV=sroce4 MC_RIF=v2.100 \
		mc_traffic VLAN $GV 0 0 2 0x11111111 "$NMSG"
	wait_until 10 eval "[ \$(grep -c 'vlan 100' $cap) -ge $NMSG ]"
	kill "$td" 2>/dev/null
	wait "$td" 2>/dev/null
	ntag=$(grep -c "vlan 100" "$cap")
	rm -f "$cap"
	vlan_mc_report VLAN $GV "$([ "$ntag" -ge "$NMSG" ]; echo $?)" \
		"the SENDs crossed v2 tagged with VLAN 100" \
		"$ntag tagged packets seen"
else
	for st in 1 2 3 4; do
		ktap_skip "VLAN multicast $st" "no VLAN topology"
	done
fi

# --- a VLAN upper of the bound netdev -------------------------------------------
#
#   ns1: sroce1 on v1 <- v1.100 (10.12.0.1) == VLAN 100 == (10.12.0.2) v2.100 -> v2 sroce2 :ns2
#
# ib_core's roce_gid_mgmt gives sroce1 and sroce2 the addresses of the VLAN
# uppers of their netdevs as GIDs, with the VLAN netdev as the GID's netdev.
# Work requests sourced from such a GID leave tagged: counted on the VLAN
# netdevs (the pingpongs' TCP exchange uses 10.11.0.x, untagged).

# vlan_pkts NS DEV DIR: DEV's packet count in direction DIR (rx or tx).
vlan_pkts() {
	ip netns exec "$1" cat "/sys/class/net/$2/statistics/$3_packets"
}

[ -e /sys/class/infiniband/sroce3 ] && del_link sroce3
[ -e /sys/class/infiniband/sroce4 ] && del_link sroce4
st=0
ip -n ns1 addr add 10.12.0.1/24 dev v1.100 &&
	ip -n ns2 addr add 10.12.0.2/24 dev v2.100 &&
	wait_gid sroce1 10.12.0.1 && wait_gid sroce2 10.12.0.2 || st=1
gv1=$(gid_index sroce1 10.12.0.1)
gv2=$(gid_index sroce2 10.12.0.2)
nd1=$(cat "/sys/class/infiniband/sroce1/ports/1/gid_attrs/ndevs/${gv1:-0}" 2>&1)
nd2=$(cat "/sys/class/infiniband/sroce2/ports/1/gid_attrs/ndevs/${gv2:-0}" 2>&1)
ktap_result "VLAN upper: 10.12.0.x of v1.100 / v2.100 are GIDs of sroce1 / sroce2" \
	"$([ $st -eq 0 ] && [ "$nd1" = v1.100 ] && [ "$nd2" = v2.100 ]; echo $?)" \
	"GID $gv1 on $nd1, GID $gv2 on $nd2" "$(list_gids sroce1; list_gids sroce2)"
if [ $st -eq 0 ]; then
	port=18515
	for pp in ibv_rc_pingpong ibv_ud_pingpong; do
		port=$((port + 1))
		tx0=$(vlan_pkts ns1 v1.100 tx) rx0=$(vlan_pkts ns2 v2.100 rx)
		PAIR_PORT=$port run_pair 120 \
			ns2 "$pp -d sroce2 -g $gv2 -p $port -s 1024 -n 100 -c" \
			ns1 "$pp -d sroce1 -g $gv1 -p $port -s 1024 -n 100 -c 10.11.0.2"
		ok=$?
		tx=$(($(vlan_pkts ns1 v1.100 tx) - tx0))
		rx=$(($(vlan_pkts ns2 v2.100 rx) - rx0))
		ktap_result "VLAN upper: $pp -g (VLAN GID) between the namespaces" \
			$ok "$pair_out"
		ktap_result "VLAN upper: $pp went out tagged on v1.100, in on v2.100" \
			"$([ "$tx" -ge 100 ] && [ "$rx" -ge 100 ]; echo $?)" \
			"v1.100 tx +$tx, v2.100 rx +$rx (want >= 100 each)"
	done
	GU=239.1.2.6
	tx0=$(vlan_pkts ns1 v1.100 tx)
	MC_RIF=v2.100 mc_traffic "VLAN upper" $GU "$gv1" "$gv2" 2 0x11111111 \
		"$NMSG"
	tx=$(($(vlan_pkts ns1 v1.100 tx) - tx0))
	vlan_mc_report "VLAN upper" $GU "$([ "$tx" -ge "$NMSG" ]; echo $?)" \
		"the SENDs went out on v1.100" "v1.100 tx +$tx"
else
	for st in 1 2 3 4 5 6 7 8; do
		ktap_skip "VLAN upper $st" "no VLAN GIDs"
	done
fi

# --- a VLAN upper created after the attach ------------------------------------
#
#   ns1: sroce1 on v1 <- v1.200 (10.13.0.1) == VLAN 200 == (10.13.0.2) v2.200 -> v2 sroce2 :ns2
#                                                          created while attached
#
# The receivers attach on sroce2 first; only then is v2.200 created above v2
# (NETDEV_CHANGEUPPER): the group must be joined on it at once, so that the
# SENDs from sroce1's GID on v1.200, which arrive tagged on v2.200, get
# through its IP stack.  Then a new receiver attaches (joining v2 and v2.200)
# and v2.200 is deleted while it is attached: the join is left and its
# netdev reference dropped (the deletion would hang otherwise), and the
# last detach still leaves the group on v2.

GL=239.1.2.7
st=0
ip -n ns1 link add link v1 name v1.200 type vlan id 200 &&
	ip -n ns1 addr add 10.13.0.1/24 dev v1.200 &&
	ip -n ns1 link set v1.200 up && wait_gid sroce1 10.13.0.1 || st=1
gl1=$(gid_index sroce1 10.13.0.1)
ktap_result "late VLAN: 10.13.0.1 of v1.200 is a GID of sroce1" $st \
	"$(list_gids sroce1)"
if [ $st -eq 0 ]; then
	before=$(hw_counter sroce2 mcast_upper_join_err)
	tx0=$(vlan_pkts ns1 v1.200 tx)
	MC_RIF=v2.200 MC_AFTER_ATTACH="ip -n ns2 link add link v2 name v2.200 \
type vlan id 200 && ip -n ns2 addr add 10.13.0.2/24 dev v2.200 && \
ip -n ns2 link set v2.200 up" \
		mc_traffic "late VLAN" $GL "$gl1" "$g2" 2 0x11111111 "$NMSG"
	tx=$(($(vlan_pkts ns1 v1.200 tx) - tx0))
	rx=$(vlan_pkts ns2 v2.200 rx 2>/dev/null || echo 0)
	ktap_result "late VLAN: v2.200 created above v2 while 2 QPs are attached" \
		"$mc_hook" "$(ip -n ns2 -d link show v2.200 2>&1)"
	ktap_result "late VLAN: group $GL joined on v2.200 once it exists" \
		"$mc_joined" "$(ip -n ns2 maddr show dev v2.200 2>&1)"
	ktap_result "late VLAN: each of 2 attached QPs receives all $NMSG, once" \
		"$mc_ok" "$mc_rout" "sender: $mc_sout"
	ktap_result "late VLAN: the SENDs went out on v1.200, in on v2.200" \
		"$([ "$tx" -ge "$NMSG" ] && [ "$rx" -ge "$NMSG" ]; echo $?)" \
		"v1.200 tx +$tx, v2.200 rx $rx"
	after=$(hw_counter sroce2 mcast_upper_join_err)
	ktap_result "late VLAN: no failed upper join counted" \
		"$([ "$after" = "$before" ]; echo $?)" \
		"mcast_upper_join_err $before -> $after"

	# Deleted while attached: a held reference would make `ip link del`
	# wait forever for v2.200 to become free (hence the timeout).
	rf=$(mktemp)
	ip netns exec ns2 timeout 120 "$mc" -d sroce2 -g "$g2" -m $GL -q 1 \
		-n 0 -t 30000 recv >"$rf" 2>&1 &
	pid=$!
	st=1
	if wait_until 30 grep -q '^ready' "$rf"; then
		in_group ns2 v2.200 $GL &&
			timeout 60 ip -n ns2 link del v2.200 &&
			in_group ns2 v2 $GL && st=0
	fi
	rpid=$(sed -n 's/^ready //p' "$rf")
	[ -n "$rpid" ] && kill -USR1 "$rpid" 2>/dev/null
	wait "$pid"
	ktap_result "late VLAN: v2.200 deleted while attached, v2 still joined" \
		$st "$(cat "$rf"; ip -n ns2 maddr show dev v2)"
	rm -f "$rf"
	st=0
	in_group ns2 v2 $GL && st=1
	ktap_result "late VLAN: group left on v2 after the last detach" $st \
		"$(ip -n ns2 maddr show dev v2)"
else
	for st in 1 2 3 4 5 6 7; do
		ktap_skip "late VLAN $st" "no VLAN GID on sroce1"
	done
fi

ktap_done
