# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# lib.sh - shared helpers of the sroce integration tests (guest side).
#
# Sourced by tests/integration/t-*.sh, run.sh and tests/demo.sh.  Provides
#   - KTAP output: ktap_begin, ktap_pass, ktap_fail, ktap_skip, ktap_check,
#     diag, ktap_done (prints "N passed, N failed, N skipped" and exits);
#   - module handling: load_sroce, unload_sroce, set_limits, restore_limits;
#   - topologies built from network namespaces, WireGuard netns.sh style
#     (each with its diagram below): make_two_ns, make_init_veth, topo_reset;
#   - two_ns_start, the usual first two results of a test on make_two_ns;
#   - waiting helpers: wait_gid, wait_until, gid_index, ip_to_gid;
#   - memory: shrink_caches, meminfo_kb (leak checks);
#   - hw_counter, one of a device's port counters;
#   - the debug kernel: debug_kernel, rounds, $slow (time limits' factor);
#   - the provider environment: RDMAV_DRIVERS points at the built provider.
#
# Every helper is meant for a throw-away guest (tests/vm/vm-run): it changes
# the network configuration and loads modules without asking.

SROCE_TOP=${SROCE_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)}
SROCE_KO=${SROCE_KO:-$SROCE_TOP/kernel/sroce.ko}
SROCE_PROVIDER=${SROCE_PROVIDER:-$SROCE_TOP/provider/libsroce}

# libibverbs appends -rdmav34.so to an absolute path prefix.
export RDMAV_DRIVERS=$SROCE_PROVIDER
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# ---------------------------------------------------------------------------
# KTAP
# ---------------------------------------------------------------------------

ktap_n=0	# number of the last reported test
ktap_plan=0	# planned number of tests
ktap_npass=0
ktap_nfail=0
ktap_nskip=0

# ktap_begin PLAN [DESCRIPTION]
ktap_begin() {
	ktap_plan=$1
	echo "KTAP version 1"
	[ -n "${2:-}" ] && echo "# $2"
	echo "1..$ktap_plan"
}

# diag LINE...: each argument, and each line within one, as a "# " line.
diag() {
	local a l
	for a in "$@"; do
		while IFS= read -r l; do
			printf '# %s\n' "$l"
		done <<<"$a"
	done
}

# Indent a command's captured output as KTAP diagnostic lines.
diag_output() {
	sed 's/^/#   /' <<<"$1"
}

ktap_pass() {
	ktap_n=$((ktap_n + 1))
	ktap_npass=$((ktap_npass + 1))
	echo "ok $ktap_n $1"
}

# ktap_fail NAME [REASON...]
ktap_fail() {
	local name=$1
	shift
	ktap_n=$((ktap_n + 1))
	ktap_nfail=$((ktap_nfail + 1))
	[ $# -gt 0 ] && diag "$@"
	echo "not ok $ktap_n $name"
}

# ktap_skip NAME REASON
ktap_skip() {
	ktap_n=$((ktap_n + 1))
	ktap_nskip=$((ktap_nskip + 1))
	echo "ok $ktap_n $1 # SKIP ${2:-}"
}

# ktap_result NAME STATUS [REASON...]: pass when STATUS is 0.
ktap_result() {
	local name=$1 st=$2
	shift 2
	if [ "$st" -eq 0 ]; then
		ktap_pass "$name"
	else
		ktap_fail "$name" "$@"
	fi
}

# ktap_check NAME CMD [ARGS...]: run CMD, pass on exit 0; on failure the
# command line and its output become diagnostics.
ktap_check() {
	local name=$1 out st
	shift
	out=$("$@" 2>&1)
	st=$?
	if [ $st -eq 0 ]; then
		ktap_pass "$name"
	else
		diag "command failed (exit $st): $*"
		[ -n "$out" ] && diag_output "$out"
		ktap_fail "$name"
	fi
	return $st
}

# ktap_skip_rest REASON: report every remaining planned test as skipped.
ktap_skip_rest() {
	while [ $ktap_n -lt $ktap_plan ]; do
		ktap_skip "not run" "$1"
	done
}

# Print the summary line and exit: 0 only if nothing failed and every
# planned test reported.
ktap_done() {
	local rc=0
	# A file that exits early must not leave lowered limits behind.
	[ ${#limits_saved[@]} -gt 0 ] && restore_limits
	if [ $ktap_n -ne $ktap_plan ]; then
		diag "planned $ktap_plan tests but ran $ktap_n"
		while [ $ktap_n -lt $ktap_plan ]; do
			ktap_fail "missing test"
		done
	fi
	[ $ktap_nfail -eq 0 ] || rc=1
	echo "$ktap_npass passed, $ktap_nfail failed, $ktap_nskip skipped"
	exit $rc
}

# two_ns_start: the common start of a test on make_two_ns: "load sroce.ko"
# and "two namespaces with sroce1 and sroce2" as two results; if either
# fails, skip the rest of the plan and exit.  Sets g1 and g2, the indexes
# of the IPv4 GIDs of sroce1 (10.11.0.1) and sroce2 (10.11.0.2).
two_ns_start() {
	if ! ktap_check "load sroce.ko" load_sroce ||
		! ktap_check "two namespaces with sroce1 and sroce2" make_two_ns
	then
		ktap_skip_rest "no topology"
		ktap_done
	fi
	# shellcheck disable=SC2034 # for the test that sources this file
	g1=$(gid_index sroce1 10.11.0.1)
	# shellcheck disable=SC2034
	g2=$(gid_index sroce2 10.11.0.2)
}

# ---------------------------------------------------------------------------
# waiting
# ---------------------------------------------------------------------------

# wait_until TIMEOUT_S CMD [ARGS...]: poll CMD every 0.1 s.
wait_until() {
	local deadline=$((SECONDS + $1))
	shift
	while :; do
		"$@" >/dev/null 2>&1 && return 0
		[ $SECONDS -ge $deadline ] && return 1
		sleep 0.1
	done
}

# debug_kernel: true on the debug kernel of scripts/check-debug.sh
# (SROCE_DEBUG_KERNEL), for what a test must do differently there.
debug_kernel() {
	[ -n "${SROCE_DEBUG_KERNEL:-}" ]
}

# rounds N DEBUG_N: how many rounds a loop runs, N, or DEBUG_N on the debug
# kernel, where starting a program takes about a second and an `rdma link
# add` or delete 7-10 s: there the detectors need the paths, not the
# repetitions.
rounds() {
	if debug_kernel; then
		echo "$2"
	else
		echo "$1"
	fi
}

# $slow: the factor of a time limit, 5 on the debug kernel (rping's 1000 x
# 64 KiB take about 200 s there, five times the stock kernel's), else 1.
# shellcheck disable=SC2034 # for the test files
slow=$(rounds 1 5)

# ip_to_gid ADDR: the RoCE v2 GID of an IPv4 or IPv6 address, spelled the
# way sysfs prints it (8 groups of 4 hex digits).  IPv4 is IPv4-mapped.
ip_to_gid() {
	local a=$1 o1 o2 o3 o4
	if [[ $a =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)\.([0-9]+)$ ]]; then
		o1=${BASH_REMATCH[1]} o2=${BASH_REMATCH[2]}
		o3=${BASH_REMATCH[3]} o4=${BASH_REMATCH[4]}
		printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' \
			"$o1" "$o2" "$o3" "$o4"
		return
	fi
	# IPv6: expand "::" and pad every group.
	local head=${a%%::*} tail='' groups=() g n out=''
	[[ $a == *::* ]] && tail=${a#*::}
	IFS=: read -ra hg <<<"$head"
	IFS=: read -ra tg <<<"$tail"
	groups=("${hg[@]}")
	if [[ $a == *::* ]]; then
		n=$((8 - ${#hg[@]} - ${#tg[@]}))
		while [ $n -gt 0 ]; do
			groups+=(0)
			n=$((n - 1))
		done
		groups+=("${tg[@]}")
	fi
	for g in "${groups[@]}"; do
		out+=$(printf '%04x:' "0x${g:-0}")
	done
	echo "${out%:}"
}

# gid_index DEV ADDR: index of ADDR's RoCE v2 GID on port 1 of DEV.
gid_index() {
	local want f g i
	want=$(ip_to_gid "$2")
	for f in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		read -r g 2>/dev/null <"$f" || continue
		[ "$g" = "$want" ] || continue
		i=${f##*/}
		read -r g 2>/dev/null \
			<"/sys/class/infiniband/$1/ports/1/gid_attrs/types/$i" ||
			continue
		[ "$g" = "RoCE v2" ] || continue
		echo "$i"
		return 0
	done
	return 1
}

# wait_gid DEV ADDR [TIMEOUT_S]: wait until ADDR's RoCE v2 GID is in DEV's
# GID table (the table fills asynchronously after rdma link add).
wait_gid() {
	wait_until "${3:-10}" gid_index "$1" "$2"
}

gid_absent() {
	! gid_index "$1" "$2"
}

# All non-zero GIDs of port 1 of DEV, one "index gid type" per line.
list_gids() {
	local f g t i
	for f in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		read -r g 2>/dev/null <"$f" || continue
		[ "$g" = "0000:0000:0000:0000:0000:0000:0000:0000" ] && continue
		i=${f##*/}
		read -r t 2>/dev/null \
			<"/sys/class/infiniband/$1/ports/1/gid_attrs/types/$i" ||
			t='?'
		echo "$i $g $t"
	done
}

proc_gone() {
	! kill -0 "$1" 2>/dev/null
}

dev_exists() {
	[ -e "/sys/class/infiniband/$1" ]
}

dev_gone() {
	[ ! -e "/sys/class/infiniband/$1" ]
}

# Is DEV an sroce device (the sysfs ABI attribute only sroce has)?
is_sroce() {
	[ -e "/sys/class/infiniband/$1/sroce_abi_version" ]
}

# ---------------------------------------------------------------------------
# modules
# ---------------------------------------------------------------------------

# Load sroce.ko and what it needs.  insmod does not resolve dependencies,
# so load the ones modinfo names (ib_core, ib_uverbs, udp_tunnel, ...).
load_sroce() {
	local deps d
	[ -e /sys/module/sroce ] && return 0
	if [ ! -e "$SROCE_KO" ]; then
		echo "load_sroce: $SROCE_KO not built" >&2
		return 1
	fi
	deps=$(modinfo -F depends "$SROCE_KO" 2>/dev/null | tr , ' ')
	modprobe -a ib_core ib_uverbs $deps || return 1
	insmod "$SROCE_KO"
}

unload_sroce() {
	[ -e /sys/module/sroce ] || return 0
	rmmod sroce
}

# set_limits NAME=VALUE...: the object limits (kernel/limits.c, module
# parameters max_qp, max_pd, ...) of the devices created from now on; the
# old values are kept for restore_limits.  A test lowers them around the
# creation of its devices only, since a device keeps what it was created
# with.
limits_saved=()
set_limits() {
	local kv p
	for kv; do
		p=/sys/module/sroce/parameters/${kv%%=*}
		limits_saved+=("${kv%%=*}=$(cat "$p")") || return 1
		echo "${kv#*=}" >"$p" || return 1
	done
}

restore_limits() {
	local kv i
	# Newest first, so a name set twice gets its original value back.
	for ((i = ${#limits_saved[@]} - 1; i >= 0; i--)); do
		kv=${limits_saved[i]}
		echo "${kv#*=}" >"/sys/module/sroce/parameters/${kv%%=*}"
	done
	limits_saved=()
}

# ---------------------------------------------------------------------------
# topologies
# ---------------------------------------------------------------------------

# rdma links only appear once the netdev exists; rdma link add must run in
# the namespace that holds the netdev.
#
# add_link NAME TYPE NETDEV [NS]
add_link() {
	local pre=()
	[ -n "${4:-}" ] && pre=(ip netns exec "$4")
	"${pre[@]}" rdma link add "$1" type "$2" netdev "$3"
}

del_link() {
	rdma link delete "$1"
}

# make_two_ns [--no-rdma]
#
#   +------------- ns1 --------------+      +------------- ns2 --------------+
#   |  sroce1 (rdma link, port 1)    |      |    (rdma link, port 1) sroce2  |
#   |     |                          |      |                          |     |
#   |    v1  10.11.0.1/24            | veth |            10.11.0.2/24  v2    |
#   |        fd00::1/64          ========================= fd00::2/64        |
#   +--------------------------------+      +--------------------------------+
#
#   init_net holds no sroce device and no UDP 4791 socket of sroce.  rdma
#   devices are visible from every namespace (ib_core "shared" netns mode).
#   IPv6 addresses are added with nodad so that their GIDs appear at once.
make_two_ns() {
	local i
	for i in 1 2; do
		ip netns add ns$i || return 1
		ip -n ns$i link set lo up
	done
	two_ns_veth || return 1
	[ "${1:-}" = --no-rdma ] && return 0
	for i in 1 2; do
		add_link sroce$i sroce v$i ns$i || return 1
	done
	for i in 1 2; do
		wait_gid sroce$i 10.11.0.$i || {
			echo "make_two_ns: no IPv4 GID on sroce$i" >&2
			return 1
		}
	done
}

# two_ns_veth: make_two_ns's veth v1/v2 with its addresses, up, in the
# namespaces ns1 and ns2 that exist already (soak.sh rebuilds it).
two_ns_veth() {
	local i
	ip link add v1 netns ns1 type veth peer name v2 netns ns2 || return 1
	for i in 1 2; do
		ip -n ns$i addr add 10.11.0.$i/24 dev v$i &&
			ip -n ns$i -6 addr add fd00::$i/64 dev v$i nodad &&
			ip -n ns$i link set v$i up || return 1
	done
}

# make_init_veth: a veth end in init_net, e.g. for rdma_rxe, which works
# only there.  The peer sits in ns3 only to give i1 a carrier.
#
#   +---------- init_net ----------+      +------------ ns3 ------------+
#   |  (rxe0 / sroce0 added by     |      |                             |
#   |   the test)                  |      |                             |
#   |    i1  10.12.0.1/24          | veth |          10.12.0.2/24  i2   |
#   |        fd01::1/64        ======================== fd01::2/64      |
#   +------------------------------+      +-----------------------------+
make_init_veth() {
	ip netns add ns3 || return 1
	ip -n ns3 link set lo up
	ip link add i1 type veth peer name i2 netns ns3 || return 1
	ip addr add 10.12.0.1/24 dev i1 &&
		ip -6 addr add fd01::1/64 dev i1 nodad &&
		ip link set i1 up &&
		ip -n ns3 addr add 10.12.0.2/24 dev i2 &&
		ip -n ns3 -6 addr add fd01::2/64 dev i2 nodad &&
		ip -n ns3 link set i2 up
}

# topo_reset: remove every rdma link, namespace and veth the helpers make,
# so that the next test file starts from a clean guest.
topo_reset() {
	local d ns
	for d in /sys/class/infiniband/*; do
		[ -e "$d" ] || continue
		rdma link delete "${d##*/}" >/dev/null 2>&1
	done
	for ns in ns1 ns2 ns3; do
		ip netns del $ns >/dev/null 2>&1
	done
	ip link del i1 >/dev/null 2>&1
	ip link del v1 >/dev/null 2>&1
	# A file killed inside a race window leaves its hook's delay set.
	for d in /sys/module/sroce/parameters/test_*_ms; do
		[ -w "$d" ] && echo 0 >"$d"
	done
	return 0
}

# shrink_caches: free what the page cache and the slab caches hold
# without owning it, so that what SUnreclaim shows is in use.
shrink_caches() {
	local f
	sync
	echo 3 >/proc/sys/vm/drop_caches
	for f in /sys/kernel/slab/*/shrink; do
		echo 1 >"$f" 2>/dev/null
	done
}

# meminfo_kb FIELD: a /proc/meminfo figure in kB (SUnreclaim, ...).
meminfo_kb() {
	sed -n "s/^$1: *\([0-9]*\) kB/\1/p" /proc/meminfo
}

# Number of rdma devices (as `rdma dev` lists them).
rdma_dev_count() {
	local d n=0
	for d in /sys/class/infiniband/*; do
		[ -e "$d" ] && n=$((n + 1))
	done
	echo $n
}

# port_state DEV: ACTIVE, DOWN, ... as rdma link reports it.
port_state() {
	rdma link show "$1/1" 2>/dev/null |
		sed -n 's/.* state \([A-Z_]*\) .*/\1/p'
}

# devinfo_field DEV FIELD: a field of `ibv_devinfo -d DEV`, e.g. state.
devinfo_field() {
	ibv_devinfo -d "$1" 2>/dev/null |
		sed -n "s/^[[:space:]]*$2:[[:space:]]*\\(.*\\)$/\\1/p" | head -n 1
}

# udp4791_in [NS]: print the UDP 4791 sockets of a namespace (init_net
# without an argument) from /proc/net/udp{,6}; succeed if there is one.
# 4791 = 0x12B7.
udp4791_in() {
	local pre=() out
	[ -n "${1:-}" ] && pre=(ip netns exec "$1")
	out=$("${pre[@]}" cat /proc/net/udp /proc/net/udp6 2>/dev/null |
		awk '$2 ~ /:12B7$/')
	[ -n "$out" ] && echo "$out"
	[ -n "$out" ]
}

# hw_counter DEV NAME: a hw counter of port 1, or of the device (the
# per-priority PFC counters live there); 0 if there is none.  Read from
# init_net: rdma devices are shared, and ip netns exec would remount /sys.
hw_counter() {
	local v d=/sys/class/infiniband/$1
	read -r v 2>/dev/null <"$d/ports/1/hw_counters/$2" ||
		read -r v 2>/dev/null <"$d/hw_counters/$2" || v=0
	echo "${v:-0}"
}

# counters_set DEV: DEV's port counters that are not 0, "name=value" on
# one line (for a failure's diagnostics).
counters_set() {
	local f v out=
	for f in /sys/class/infiniband/"$1"/ports/1/hw_counters/*; do
		[ "${f##*/}" = lifespan ] && continue # ib_core's, not a count
		read -r v 2>/dev/null <"$f" || continue
		[ "${v:-0}" != 0 ] && out+=" ${f##*/}=$v"
	done
	echo "$1:${out:- none}"
}

# bridge_hosts_up BRIDGE MTU IPFN HOST...: a Linux bridge BRIDGE in init_net
# and per HOST a namespace of that name, joined by a veth of MTU (HOST-br on
# the bridge, eth0 inside) with the address `IPFN HOST`/24 and a sroce
# device sroce_HOST on eth0; waits for each device's IPv4 GID.
bridge_hosts_up() {
	local br=$1 mtu=$2 ipfn=$3 h
	shift 3
	ip link add "$br" type bridge && ip link set "$br" up || return 1
	for h in "$@"; do
		ip netns add "$h" && ip -n "$h" link set lo up &&
			ip link add "$h-br" mtu "$mtu" type veth peer name eth0 \
				netns "$h" mtu "$mtu" &&
			ip link set "$h-br" master "$br" up &&
			ip -n "$h" addr add "$("$ipfn" "$h")/24" dev eth0 &&
			ip -n "$h" link set eth0 up &&
			add_link "sroce_$h" sroce eth0 "$h" || return 1
	done
	for h in "$@"; do
		wait_gid "sroce_$h" "$("$ipfn" "$h")" || return 1
	done
}

# bridge_hosts_down BRIDGE HOST...: undo bridge_hosts_up, quietly.
bridge_hosts_down() {
	local br=$1 h
	shift
	for h in "$@"; do
		rdma link delete "sroce_$h" >/dev/null 2>&1
		ip netns del "$h" >/dev/null 2>&1
	done
	ip link del "$br" >/dev/null 2>&1
}

# virtio_nics: the names of the virtio-net netdevs, in PCI order (by the
# PCI address of the virtio device: enp0s10 comes after enp0s9), one a
# line (t-virtio.sh, bench/run.sh over virtio-net).
virtio_nics() {
	local d drv dev
	for d in /sys/class/net/*; do
		drv=$(readlink "$d/device/driver" 2>/dev/null) || continue
		[ "${drv##*/}" = virtio_net ] || continue
		dev=$(readlink -f "$d/device/..")
		echo "${dev##*/} ${d##*/}"
	done | sort | cut -d' ' -f2
}

# rxe_veth_up [MTU]: rdma_rxe's rxe1 (10.13.0.1) and rxe2 (10.13.0.2) on a
# veth pair r1/r2 in init_net, where rdma_rxe works; policy routing makes
# traffic between the two local addresses leave through the veth instead
# of lo.  rxe_veth_down undoes it.  For bench/run.sh and bench/mpi.
rxe_veth_up() {
	ip link add r1 type veth peer name r2 || return 1
	rxe_pair_up "$@"
}

# rxe_pair_up [MTU]: rxe_veth_up on two existing netdevs of init_net
# already named r1 and r2 and joined by a link of their own (a veth, or
# two NICs back to back: bench/run.sh over virtio-net).  rxe_veth_down
# undoes it, all but the netdevs themselves when they are NICs.
rxe_pair_up() {
	local f
	modprobe rdma_rxe || return 1
	if [ -n "${1:-}" ]; then
		ip link set r1 mtu "$1"
		ip link set r2 mtu "$1"
	fi
	ip addr add 10.13.0.1/24 dev r1
	ip addr add 10.13.0.2/24 dev r2
	ip link set r1 up
	ip link set r2 up
	for f in all r1 r2; do
		sysctl -qw net.ipv4.conf.$f.accept_local=1
		sysctl -qw net.ipv4.conf.$f.rp_filter=0
	done
	# Locally generated traffic to the other address leaves by r1/r2.
	ip rule add pref 100 iif lo to 10.13.0.2 lookup 101
	ip rule add pref 100 iif lo to 10.13.0.1 lookup 102
	ip route add 10.13.0.2/32 dev r1 src 10.13.0.1 table 101
	ip route add 10.13.0.1/32 dev r2 src 10.13.0.2 table 102
	ip rule add pref 200 lookup local
	ip rule del pref 0
	rdma link add rxe1 type rxe netdev r1 || return 1
	rdma link add rxe2 type rxe netdev r2 || return 1
	wait_gid rxe1 10.13.0.1 && wait_gid rxe2 10.13.0.2
}

rxe_veth_down() {
	rdma link delete rxe1 2>/dev/null
	rdma link delete rxe2 2>/dev/null
	ip link del r1 2>/dev/null
	ip rule add pref 0 lookup local 2>/dev/null
	ip rule del pref 200 2>/dev/null
	ip rule del pref 100 2>/dev/null
	ip rule del pref 100 2>/dev/null
	modprobe -r rdma_rxe 2>/dev/null
}
