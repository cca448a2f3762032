#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-crc.sh - the ICRC through the crypto API's accelerated crc32
# (kernel/crc.c).  On a CPU with PCLMULQDQ sroce computes ICRCs with
# crc32-pclmul instead of the table-driven crc32_le.  The guests of the
# other tests use the qemu64 model, which lacks the instruction, so
# scripts/check.sh boots once more with `--cpu qemu64,+pclmulqdq` for this
# file; in the ordinary boot it skips.  Checks: the module chose
# crc32-pclmul (and so passed its self-test against crc32_le), transfers
# between two sroce devices are byte-exact with no ICRC drop, and every
# packet captured on the wire carries the ICRC that an independent Python
# implementation (roce_craft.py) computes.
#
#   ns1: sroce1 on v1 10.11.0.1  ======== veth ========  10.11.0.2 v2 sroce2 :ns2

here=$(dirname "${BASH_SOURCE[0]}")
. "$here/lib.sh"
. "$here/dp-lib.sh"

ktap_begin 5 "ICRC with crc32-pclmul"
if ! grep -qw pclmulqdq /proc/cpuinfo; then
	ktap_skip_rest "no PCLMULQDQ in this guest (check.sh boots one with it)"
	ktap_done
fi
two_ns_start
ktap_result "the module chose crc32-pclmul (self-test against crc32_le)" \
	"$(dmesg | grep -q 'sroce: ICRC with crc32-pclmul'; echo $?)" \
	"$(dmesg | grep -i -e sroce -e crc32 | tail -n 5)"

# Packet by packet on the wire, so that the capture shows each ICRC.
for d in sroce1 sroce2; do
	echo off >/sys/class/infiniband/$d/tx_batch
done
pcap=/tmp/t-crc.pcap
ip netns exec ns2 tcpdump -i v2 -w $pcap -U -c 400 udp port 4791 \
	2>/tmp/t-crc-tcpdump.err &
dump=$!
wait_until 10 grep -q listening /tmp/t-crc-tcpdump.err
icrc0=$(hw_counter sroce1 rx_icrc_encapsulated)
PAIR_PORT=18901 run_pair 90 ns1 \
	"ibv_rc_pingpong -d sroce1 -g $g1 -p 18901 -s 65536 -n 20 -c" ns2 \
	"ibv_rc_pingpong -d sroce2 -g $g2 -p 18901 -s 65536 -n 20 -c 10.11.0.1"
ok=$?
icrc1=$(hw_counter sroce1 rx_icrc_encapsulated)
ktap_result "ibv_rc_pingpong 64 KiB x 20 --chk, no ICRC drop" \
	"$([ $ok -eq 0 ] && [ "$icrc0" = "$icrc1" ]; echo $?)" \
	"icrc drops $icrc0 -> $icrc1" "$(tail -n 10 <<<"$pair_out")"
sleep 1
kill $dump 2>/dev/null
wait $dump 2>/dev/null
py=$(PYTHONPATH="$here" PYTHONDONTWRITEBYTECODE=1 python3 \
	"$here/cc_pcap.py" --all $pcap 2>&1)
n=$(grep -c ' ok$' <<<"$py")
ktap_result "$n captured packets, every ICRC matches roce_craft.py" \
	"$([ "$n" -ge 100 ] && ! grep -qv ' ok$' <<<"$py"; echo $?)" \
	"$(grep -v ' ok$' <<<"$py" | head -n 10)"
ktap_done
