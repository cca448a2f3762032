#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-deb.sh - the Debian packages of `make deb` as a user gets them: apt
# installs them, DKMS builds sroce.ko for the running kernel, `rdma link
# add` autoloads it, verbs programs find the provider with no RDMAV_DRIVERS,
# sroce-config (sroce-tools) reads the devices, and apt purge leaves
# nothing behind.
#
# Guest only, with writable /usr (and /lib/modules under --kernel): run it
# through scripts/check-deb.sh (make check-deb), which boots the guest with
# tests/vm/vm-run --overlay.  Reads the .debs from SROCE_DEBS (default
# build/deb/).  Topology: make_two_ns (see tests/integration/lib.sh).

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
# shellcheck source=SCRIPTDIR/../integration/lib.sh
. "$here/../integration/lib.sh"
# shellcheck source=SCRIPTDIR/../integration/dp-lib.sh
. "$here/../integration/dp-lib.sh"

# The provider must come from the package, not from the build tree.
unset RDMAV_DRIVERS IBV_DRIVERS

debs=${SROCE_DEBS:-$SROCE_TOP/build/deb}
krel=$(uname -r)
mods=/lib/modules/$krel
provider=/usr/lib/$(gcc -print-multiarch)/libibverbs/libsroce-rdmav34.so
pkgs="sroce-dkms ibverbs-providers-sroce sroce-tools"
export DEBIAN_FRONTEND=noninteractive

ktap_begin 14 "Debian packages: install, DKMS build, autoload, verbs, purge"

# leftovers: every file of the packages' that is on the system, and every
# file with sroce in its name that the guest wrote (the overlays' upper
# layers of /etc, /var, /usr, /lib/modules: purged files vanish there).
leftovers() {
	local f
	for f in /usr/src/sroce-* /var/lib/dkms/sroce "$provider" \
		/etc/libibverbs.d/sroce.driver /usr/sbin/sroce-config \
		/usr/share/man/man8/sroce-config.8.gz /usr/sbin/sroce-top \
		/usr/share/man/man8/sroce-top.8.gz; do
		[ -e "$f" ] && echo "$f"
	done
	find "$mods" /run/sroce-overlay/*/upper -iname '*sroce*' 2>/dev/null
	for f in $pkgs; do
		dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' "$f" 2>/dev/null |
			grep -v '^un '
	done
}

writable() {
	[ -d /run/sroce-overlay/usr/upper ] && touch /usr/src/.sroce-w &&
		rm /usr/src/.sroce-w && touch "$mods/.sroce-w" && rm "$mods/.sroce-w"
}

if ! ktap_check "/usr and $mods are writable (vm-run --overlay)" writable; then
	ktap_skip_rest "run through scripts/check-deb.sh"
	ktap_done
fi
left=$(leftovers)
modinfo sroce >/dev/null 2>&1 && left+=" modinfo finds sroce"
[ -e /sys/module/sroce ] && left+=" sroce loaded"
ktap_result "no sroce module, provider or package before" \
	"$([ -z "$left" ]; echo $?)" "found: $left"

files=$(ls "$debs"/sroce-dkms_*_all.deb "$debs"/ibverbs-providers-sroce_*_amd64.deb \
	"$debs"/sroce-tools_*_all.deb 2>/dev/null)
if [ "$(wc -w <<<"$files")" != 3 ]; then
	ktap_fail "the three .debs in $debs (make deb)" "$(ls -l "$debs" 2>&1)"
	ktap_skip_rest "no packages"
	ktap_done
fi
ktap_pass "the three .debs in $debs (make deb)"

# The guest has no network: every dependency is already installed, as it
# is on a host that ran scripts/deps.sh.
t0=$SECONDS
# shellcheck disable=SC2086 # three file names
out=$(apt-get install -y --no-install-recommends $files 2>&1)
rc=$?
diag "apt-get install: $((SECONDS - t0)) s"
ktap_result "apt-get install ./sroce-dkms ./ibverbs-providers-sroce ./sroce-tools" $rc \
	"$(tail -n 40 <<<"$out")"

st=$(dkms status sroce 2>&1)
diag "dkms status: $st"
ko=$(find "$mods/updates/dkms" -name 'sroce.ko*' 2>/dev/null)
ok=1
grep -q "^sroce/[^,]*, $krel, [^:]*: installed" <<<"$st" && [ -n "$ko" ] &&
	[ "$(modinfo -n sroce 2>/dev/null)" = "$ko" ] && ok=0
ktap_result "DKMS built and installed sroce.ko for $krel" $ok \
	"module: ${ko:-none}; modinfo -n: $(modinfo -n sroce 2>&1)" \
	"$(tail -n 30 /var/lib/dkms/sroce/*/build/make.log 2>/dev/null)"

# rdma link add asks for module rdma-link-sroce (MODULE_ALIAS_RDMA_LINK).
ok=1
make_two_ns >/dev/null 2>&1 && [ -e /sys/module/sroce ] &&
	[ "$(cat /sys/module/sroce/srcversion 2>/dev/null)" = \
		"$(modinfo -F srcversion "$ko" 2>/dev/null)" ] && ok=0
ktap_result "rdma link add autoloads the DKMS-built sroce" $ok \
	"$(rdma link 2>&1)" "$(lsmod | grep sroce)"
g1=$(gid_index sroce1 10.11.0.1)
g2=$(gid_index sroce2 10.11.0.2)

out=$(ibv_devinfo -d sroce1 2>&1)
ok=1
grep -q 'hca_id:[[:space:]]*sroce1' <<<"$out" &&
	grep -q 'state:[[:space:]]*PORT_ACTIVE' <<<"$out" && ok=0
ktap_result "ibv_devinfo -d sroce1, no RDMAV_DRIVERS" $ok "$out" \
	"$(IBV_SHOW_WARNINGS=1 ibv_devices 2>&1)"

PAIR_PORT=18700 run_pair 90 \
	ns2 "ibv_rc_pingpong -d sroce2 -g $g2 -p 18700 -n 100 -c" \
	ns1 "ibv_rc_pingpong -d sroce1 -g $g1 -p 18700 -n 100 -c 10.11.0.2"
ktap_result "ibv_rc_pingpong -c between two namespaces" $? "$pair_out"

# The packaged sroce-config, in ns1: sroce1 and its netdev, with the
# active MTU that ibv_devinfo reports through the packaged provider.
out=$(ip netns exec ns1 /usr/sbin/sroce-config show 2>&1)
ok=1
grep -q '^\[device sroce1\]' <<<"$out" && grep -q 'active_mtu = [0-9]' <<<"$out" &&
	[ -e /usr/share/man/man8/sroce-config.8.gz ] && ok=0
ktap_result "sroce-config show (sroce-tools) reads sroce1, its manual installed" \
	$ok "$(head -n 40 <<<"$out")"

topo_reset
modprobe -r sroce_cc_fixed sroce 2>/dev/null
ktap_result "sroce unloads" "$([ ! -e /sys/module/sroce ]; echo $?)"

# shellcheck disable=SC2086 # package names
out=$(apt-get purge -y $pkgs 2>&1)
ktap_result "apt-get purge" $? "$(tail -n 30 <<<"$out")"

left=$(leftovers)
ktap_result "purge leaves no module, provider, driver file, DKMS tree" \
	"$([ -z "$left" ]; echo $?)" "left: $left"

ok=0
modinfo sroce >/dev/null 2>&1 && ok=1
ktap_result "modinfo sroce finds nothing (depmod ran)" $ok \
	"$(modinfo -n sroce 2>&1)"

out=$(ibv_devices 2>&1; cat /etc/libibverbs.d/*.driver)
ktap_result "libibverbs lists no sroce driver" \
	"$(! grep -q sroce <<<"$out"; echo $?)" "$out"

ktap_done
