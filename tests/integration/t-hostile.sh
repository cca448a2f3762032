#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-hostile.sh - an unprivileged process attacks sroce through its own
# mapped rings (tests/datapath/dp_scribble): it scribbles over the headers
# and slots of its SQs, RQs, SRQs and CQs (indices far ahead, behind and
# wrapping; geometry; garbage WQEs; num_sge and inline_len at and past the
# limits) while its other threads post, poll, resize, change QP states
# (RESET/ERR loops) and destroy and re-create the objects, on RC, UC and
# UD QPs and an RC QP on an SRQ, each connected from sroce1 (ns1) to
# sroce2 (ns2).  dp_scribble's directed cases check the outcome of the
# simplest attacks; no verb may take more than 1 s of both wall time and
# its thread's CPU time (the kernel's work for the caller), nor more than
# 3 s of wall time (dp_scribble.c says why two clocks, and why a slow
# query, resize_cq or modify_srq is timed again); a verb running for
# 10 s is a hang.  Run twice: once
# tearing everything down, once exiting with every object alive (-x, the
# kernel's cleanup of a dead process).
#
# After each run the devices must hold what they held before (`rdma
# resource show`).  Memory: no sroce-owned slab cache exists (objects come
# from kmalloc), so the check is SUnreclaim in /proc/meminfo after
# shrinking every cache, within 4 MiB of before; that catches a steady
# per-object leak over the run's thousands of creates (hundreds of bytes
# each), not a handful of lost objects.  VmallocUsed catches leaked rings
# (each ring is its own vmalloc_user() area of at least a page) within
# 512 KiB.  The kernel may log a few lines, not one per bad index or WQE
# (at most 20 in all; what a splat would print fails the run anyway).
# Then a legitimate dp_test run between the same devices must
# pass byte-exact.  The harness fails the run on any kernel splat.
#
# SROCE_HOSTILE_SECS (default 30) is the first run's random phase, the
# second runs a third of it; SROCE_HOSTILE_SEED repeats a run's choices
# (the second run uses SEED + 1); SROCE_HOSTILE_ARGS adds dp_scribble
# options (e.g. "-k rc -C 0xffffffff": RC only, and that SQ prod in the
# RESET cursor case).
#
# The device files: without udev, devtmpfs creates /dev/infiniband/uverbs*
# with the mode ib_uverbs asks for; the script sets 0666, what the rdma
# udev rules of distributions set, and checks that the user can open them.
#
# Topology: make_two_ns (see lib.sh).

here=$(dirname "${BASH_SOURCE[0]}")
. "$here/lib.sh"
. "$here/dp-lib.sh"

SECS=${SROCE_HOSTILE_SECS:-30}
SECS2=$((SECS / 3 > 0 ? SECS / 3 : 1))
SEED=${SROCE_HOSTILE_SEED:-$((RANDOM * 32768 + RANDOM))}
ARGS=${SROCE_HOSTILE_ARGS:-}
USER_NAME=sroce-hostile

sc=$(dp_tool dp_scribble)
dp=$(dp_binary)
if [ -z "$sc" ] || [ -z "$dp" ]; then
	ktap_begin 1 "an unprivileged process scribbling over its rings"
	ktap_fail "dp_scribble and dp_test built (make -C tests/datapath)"
	ktap_done
fi
# shellcheck disable=SC2086 # options
p1=$("$sc" -P $ARGS)
# shellcheck disable=SC2086
p2=$("$sc" -P -x $ARGS)
ktap_begin $((2 + 2 + p1 + 2 + p2 + 2 + 3 + 1)) \
	"an unprivileged process scribbling over its rings"

two_ns_start

# --- the attacker: an ordinary user -------------------------------------------

# /etc is an overlay in the guest: adding a user changes nothing on the host.
if ! id -u "$USER_NAME" >/dev/null 2>&1; then
	useradd -M -N -d /nonexistent -s /bin/false "$USER_NAME" 2>/dev/null ||
		echo "$USER_NAME:x:64123:100::/nonexistent:/bin/false" \
			>>/etc/passwd
fi
uid=$(id -u "$USER_NAME" 2>/dev/null)
gid=$(id -g "$USER_NAME" 2>/dev/null)

# as_user CMD...: CMD as the user, no capabilities, environment kept (the
# provider is found through RDMAV_DRIVERS).
as_user() {
	setpriv --reuid="$uid" --regid="$gid" --clear-groups --no-new-privs \
		-- "$@"
}

caps=$(as_user sed -n 's/^CapEff:\t*//p' /proc/self/status 2>&1)
ktap_result "user $USER_NAME (uid ${uid:-?}) runs with no capabilities" \
	"$([ -n "$uid" ] && [ "$uid" != 0 ] &&
		[ "$caps" = 0000000000000000 ]; echo $?)" "CapEff: $caps"

chmod 0666 /dev/infiniband/uverbs* 2>/dev/null
ktap_result "the user can open /dev/infiniband/uverbs* (mode 0666)" \
	"$(for f in /dev/infiniband/uverbs*; do
		as_user test -r "$f" -a -w "$f" || exit 1
	done; echo $?)" "$(ls -l /dev/infiniband/ 2>&1)"

# --- leak accounting ------------------------------------------------------------

resources() {
	rdma resource show sroce1
	rdma resource show sroce2
}

# shellcheck disable=SC2317 # run by wait_until
res_back() {
	[ "$(resources)" = "$res0" ]
}

res0=$(resources)
log0=$(dmesg | wc -l)
shrink_caches
slab0=$(meminfo_kb SUnreclaim)
vm0=$(meminfo_kb VmallocUsed)
diag "before: SUnreclaim $slab0 kB, VmallocUsed $vm0 kB" "$res0"

# run_scribble TITLE PLAN SECS SEED ARGS...: one dp_scribble run as the
# user in ns1, its results relayed, then "the devices hold what they held
# before".
run_scribble() {
	local title=$1 plan=$2 secs=$3 seed=$4 out rc res
	shift 4
	diag "$title: dp_scribble -t $secs -s $seed $* (as $USER_NAME)"
	# Progress ("# " lines on stderr) shows as it happens, for a run the
	# kernel cuts short.
	out=$(ip netns exec ns1 timeout $((secs + 600)) \
		setpriv --reuid="$uid" --regid="$gid" --clear-groups \
		--no-new-privs -- "$sc" -d sroce1 -g "$g1" -D sroce2 -G "$g2" \
		-t "$secs" -s "$seed" "$@")
	rc=$?
	diag "$(grep '^# ' <<<"$out" | grep -v '^# slow' | sed 's/^# //' |
		head -n 60)"
	relay_tool "$title: " "$plan" "$rc" "$out"
	# The kernel's cleanup of the process ran when its file closed.
	wait_until 10 res_back
	res=$(resources)
	ktap_result "$title: the devices hold what they held before" \
		"$([ "$res" = "$res0" ]; echo $?)" "before:" "$res0" "after:" \
		"$res"
}

# shellcheck disable=SC2086 # options
run_scribble "teardown" "$p1" "$SECS" "$SEED" $ARGS
# shellcheck disable=SC2086
run_scribble "exit alive" "$p2" "$SECS2" "$((SEED + 1))" -x $ARGS

log1=$(dmesg | wc -l)
ktap_result "the kernel logged at most 20 lines during the attacks" \
	"$([ $((log1 - log0)) -le 20 ]; echo $?)" \
	"$((log1 - log0)) lines, the first:" \
	"$(dmesg | tail -n +$((log0 + 1)) | head -n 10)"
shrink_caches
slab1=$(meminfo_kb SUnreclaim)
vm1=$(meminfo_kb VmallocUsed)
diag "after: SUnreclaim $slab1 kB, VmallocUsed $vm1 kB"
ktap_result "SUnreclaim within 4 MiB of before" \
	"$([ $((slab1 - slab0)) -lt 4096 ]; echo $?)" \
	"SUnreclaim $slab0 -> $slab1 kB"
ktap_result "VmallocUsed within 512 KiB of before (no ring leaked)" \
	"$([ $((vm1 - vm0)) -lt 512 ]; echo $?)" \
	"VmallocUsed $vm0 -> $vm1 kB"

# --- and the devices still work ------------------------------------------------

PAIR_PORT=18530 run_pair "$DP_TIMEOUT" \
	ns2 "$dp -d sroce2 -g $g2 -p 18530 -n 2 -m 65536" \
	ns1 "$dp -d sroce1 -g $g1 -p 18530 -c 10.11.0.2 -n 2 -m 65536"
ok=$?
ktap_result "afterwards dp_test passes byte-exact ($(grep -c '^ok ' \
	<<<"$pair_cout") cases)" $ok \
	"$(grep -v '^ok ' <<<"$pair_out" | tail -n 30)"

ktap_done
