#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-rxq.sh - the device-wide bound on receive queue memory
# (rx_queue_max_bytes, rxq.h): the knob's default and range; then a slow
# receiver (sroce2 with the testing knob rx_delay_us) flooded by eight RC
# QPs of ib_write_bw, with the bound lowered to 256 KiB.  Each lane alone
# may queue 2048 packets, so without the device bound the QPs together
# queue megabytes; with it the backlog (sampled from pfc_state, payload
# bytes, which are less than the truesize the bound counts) stays within
# the bound, the excess is dropped and counted in rx_drop_dev_backlog,
# and once the knobs are back a transfer completes byte-exact.
#
# Topology: make_two_ns (see lib.sh).
#
#   ns1: sroce1 on v1 (10.11.0.1) ====veth==== v2 (10.11.0.2) sroce2 :ns2
#        ib_write_bw -q 8 client                  ib_write_bw server (slow)

here=$(dirname "${BASH_SOURCE[0]}")
. "$here/lib.sh"
. "$here/dp-lib.sh"

S2=/sys/class/infiniband/sroce2
LIMIT=262144
SECS=8
port=18950

ktap_begin 8 "device-wide bound on receive queue memory"
two_ns_start

# --- the knob --------------------------------------------------------------------

st=0
v=$(cat "$S2/rx_queue_max_bytes" 2>/dev/null)
[ "$v" = 67108864 ] || st=1
for w in 65535 17179869185 x -1; do
	if (echo "$w" >"$S2/rx_queue_max_bytes") 2>/dev/null; then
		diag "rx_queue_max_bytes $w accepted"
		st=1
	fi
done
[ "$(cat "$S2/rx_queue_max_bytes" 2>/dev/null)" = 67108864 ] || st=1
ktap_result "rx_queue_max_bytes: default 64 MiB, out of range refused" $st \
	"read '${v:-<missing>}'"

ktap_result "rx_queue_max_bytes: set to $LIMIT" \
	"$( (echo $LIMIT >"$S2/rx_queue_max_bytes") 2>/dev/null &&
		[ "$(cat "$S2/rx_queue_max_bytes")" = $LIMIT ]; echo $?)"

# --- a flood into a slow receiver --------------------------------------------------

# backlog_sum: bytes waiting in sroce2's receive queues, all priorities,
# into $bsum; bash builtins only, so that the sampling loop is dense.
backlog_sum() {
	local l v
	bsum=0
	while IFS= read -r l; do
		[[ $l == *" backlog "* ]] || continue
		for v in ${l##* backlog }; do
			bsum=$((bsum + v))
		done
	done <"$S2/pfc_state"
}

drops0=$(hw_counter sroce2 rx_drop_dev_backlog)
lane0=$(hw_counter sroce2 rx_drop_backlog)
echo 1 >"$S2/rx_steer"
echo 2000 >"$S2/rx_delay_us"
out=$(mktemp)
ip netns exec ns2 timeout $((SECS + 60)) ib_write_bw -d sroce2 -x "$g2" \
	-p $port -F -s 65536 -q 8 -D $SECS >"$out.srv" 2>&1 &
srv=$!
wait_until 60 port_listening ns2 $port
ip netns exec ns1 timeout $((SECS + 60)) ib_write_bw -d sroce1 -x "$g1" \
	-p $port -F -s 65536 -q 8 -D $SECS 10.11.0.2 >"$out" 2>&1 &
cli=$!
max=0
samples=0
t0=$SECONDS
while kill -0 "$cli" 2>/dev/null && [ $((SECONDS - t0)) -lt $((SECS + 60)) ]; do
	backlog_sum
	[ "$bsum" -gt "$max" ] && max=$bsum
	samples=$((samples + 1))
	sleep 0.02
done
kill "$cli" "$srv" 2>/dev/null
wait "$cli" "$srv" 2>/dev/null
echo 0 >"$S2/rx_delay_us"
drops=$(($(hw_counter sroce2 rx_drop_dev_backlog) - drops0))
lane=$(($(hw_counter sroce2 rx_drop_backlog) - lane0))
diag "flood: $samples samples, backlog at most $max bytes;" \
	"rx_drop_dev_backlog +$drops, rx_drop_backlog +$lane"
ktap_result "the flood queued packets on the slow receiver" \
	"$([ "$max" -gt 0 ]; echo $?)" "$(tail -n 5 "$out")" \
	"$(tail -n 5 "$out.srv")"
ktap_result "the receive backlog stayed within rx_queue_max_bytes" \
	"$([ "$max" -le $LIMIT ]; echo $?)" "max backlog $max > $LIMIT"
ktap_result "packets beyond the bound are counted in rx_drop_dev_backlog" \
	"$([ "$drops" -gt 0 ]; echo $?)"
rm -f "$out" "$out.srv"

# --- back to normal -------------------------------------------------------------------

(echo 67108864 >"$S2/rx_queue_max_bytes") 2>/dev/null
wait_until 30 sh -c "[ \"\$(sed -n 's/.* backlog //p' $S2/pfc_state)\" = '0 0 0 0 0 0 0 0' ]"
ok=1
ip netns exec ns2 timeout 60 ibv_rc_pingpong -d sroce2 -g "$g2" -p $((port + 1)) \
	-s 65536 -n 20 -c >/dev/null 2>&1 &
srv=$!
wait_until 30 port_listening ns2 $((port + 1))
ip netns exec ns1 timeout 60 ibv_rc_pingpong -d sroce1 -g "$g1" \
	-p $((port + 1)) -s 65536 -n 20 -c 10.11.0.2 >/dev/null 2>&1 &&
	wait "$srv" && ok=0
ktap_result "afterwards a 20 x 64 KiB ping-pong completes byte-exact" $ok

ktap_done
