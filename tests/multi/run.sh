#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh - what `make check-multi` runs: sroce between two QEMU guests on
# this host, each with a virtio-net NIC joined by QEMU's socket netdev (a
# TCP stream on 127.0.0.1: lossless, no host privileges) and a second one
# joined by QEMU's dgram netdev (UDP on 127.0.0.1: lossy), each booting
# its own kernel.  Ends with ONE line "N passed, N failed, N skipped".
#
#   tests/multi/run.sh [PAIR ...]      PAIR = KA+KB, K a kernel series:
#                                      the stock one (6.1) or one that
#                                      scripts/fetch-kernel.sh fetches
#                                      (6.12); default 6.1+6.1
#   tests/multi/run.sh 6.1+6.1 6.12+6.12 6.1+6.12
#
# Per pair: guest A boots (vm-run --peer-nic listen:PORT --peer-udp-nic
# P1:P2), and once its qemu runs, guest B (--peer-nic connect:PORT
# --peer-udp-nic P2:P1); A serves, B runs the
# cases of tests/multi/guest.sh and drives A through ctl.py over the
# guests' own network.  While B runs, this script answers B's requests
# for link cuts (B's results share: host-req -> host-ack) on B's QEMU
# monitor (vm-run --monitor): `set_link wire off|on`.
#
#   host: run.sh --- monitor (unix socket) ---> qemu B
#   qemu A [virtio-net - hub - wire] ==TCP 127.0.0.1:PORT== [wire - hub - virtio-net] qemu B
#          [virtio-net - lwire] ==UDP 127.0.0.1:P1 <-> :P2== [lwire - virtio-net]
#
# Results: one KTAP subtest per pair, then "ok"/"not ok" for each guest's
# vm-run status (a kernel splat, a timeout or a guest that died fails);
# consoles, dmesg and the guests' output in build/multi-results/KA+KB/.
#
# Environment: SROCE_GSLOT, a machine's guest-slot limiter (a command
# that runs its arguments once it holds a slot, e.g. /work/bin/gslot):
# run.sh then re-runs itself under it twice, nested, so that it holds two
# slots for all its pairs, one guest in each (the second is waited for
# while the first is held; slots are not given back between pairs, so a
# busy machine's other users cannot take one between A and B);
# SROCE_MULTI_VM_TIMEOUT (per guest, default 3600 s); the SROCE_MULTI_*
# of guest.sh (SROCE_MULTI_CASES: a regex, which cases run).

set -u

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
cd "$top" || exit 2
. scripts/summary.sh

if [ -n "${SROCE_GSLOT:-}" ] && [ -z "${SROCE_MULTI_SLOTS:-}" ]; then
	read -ra gslot <<<"$SROCE_GSLOT"
	export SROCE_MULTI_SLOTS=2
	exec "${gslot[@]}" "${gslot[@]}" "$top/tests/multi/run.sh" "$@"
fi
vm_tmo=${SROCE_MULTI_VM_TIMEOUT:-3600}
out=$top/build/multi-results
pass=0
fail=0
skip=0

# the series of the headers vm-run boots by default (Debian's kernel)
stock=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V |
	tail -n 1 | sed -E 's/.*linux-headers-([0-9]+\.[0-9]+).*/\1/')

# kernel SERIES: sets kopts (vm-run options) and ko (sroce.ko) for it;
# another series than the stock one is fetched and sroce built for it
# as check-kernel.sh does (once per run).
declare -A built=()
kernel() {
	local s=$1 v
	kopts=()
	ko=$top/kernel/sroce.ko
	[ "$s" = "$stock" ] && return 0
	if [ -z "${built[$s]:-}" ]; then
		scripts/check-kernel.sh --build-only "$s" \
			>"$out/build-$s.log" 2>&1 || {
			echo "# building sroce for $s failed:"
			sed 's/^/#   /' "$out/build-$s.log" | tail -n 20
			return 1
		}
		built[$s]=1
	fi
	v=$(scripts/fetch-kernel.sh --path "$s") || return 1
	kopts=(--kernel "$(sed -n 's/^KIMAGE=//p' <<<"$v")"
		--modules "$(sed -n 's/^KMODROOT=//p' <<<"$v")")
	ko=$top/build/k$s/mod/kernel/sroce.ko
}

free_tcp_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# free_udp_ports: two different UDP ports of 127.0.0.1, free when we
# looked (the lossy wire's two ends; something else may take one before
# the qemu that binds it starts: that qemu then fails and says so).
free_udp_ports() {
	python3 -c 'import socket
s = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in (0, 1)]
for x in s:
    x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))'
}

# hmp SOCK CMD...: QEMU human monitor commands, in order; "sleep S"
# pauses between them.  Fails on an error message.
hmp() {
	python3 - "$@" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.settimeout(30)
s.connect(sys.argv[1])
def prompt(eof_ok=False):
    buf = b''
    while not buf.endswith(b'(qemu) '):
        c = s.recv(4096)
        if not c:
            # quit: QEMU closes the monitor instead of answering
            sys.exit(0 if eof_ok else 1)
        buf += c
    return buf.decode(errors='replace')
prompt()
for r in sys.argv[2:]:
    if r.startswith('sleep '):
        time.sleep(float(r[6:]))
        continue
    s.sendall(r.encode() + b'\n')
    o = prompt(r == 'quit')
    if 'not found' in o or 'rror' in o:
        print(o)
        sys.exit(1)
EOF
}

# udp_drops PORT: the drops of the host's UDP socket on 127.0.0.1:PORT,
# one end of the lossy wire (datagrams that came while its qemu was not
# reading and its buffer was full: the wire's loss); nothing once closed.
udp_drops() {
	awk -v a="$(printf '0100007F:%04X' "$1")" '$2 == a { print $NF }' \
		/proc/net/udp
}

# serve_req DIR MON AMON: answer one request of guest B, if there is
# one: the wire cut on B's monitor MON, or guest A killed on its monitor
# AMON (QEMU quits at once: the peer host dies mid-transfer; DIR/a-killed
# then says so to pair()).
serve_req() {
	local req rc=1
	[ -e "$1/host-req" ] || return 0
	req=$(cat "$1/host-req")
	rm -f "$1/host-req"
	case $req in
	"cut "[0-9]*)
		hmp "$2" "set_link wire off" "sleep $(echo "${req#cut }" |
			awk '{ print $1 / 1000 }')" "set_link wire on" && rc=0 ;;
	off|on) hmp "$2" "set_link wire $req" && rc=0 ;;
	kill-a)
		: >"$1/a-killed"
		hmp "$3" quit && rc=0 ;;
	esac
	[ $rc = 0 ] && echo ok >"$1/host-ack.tmp" ||
		echo "failed: $req" >"$1/host-ack.tmp"
	mv "$1/host-ack.tmp" "$1/host-ack"
}

# count NAME RC: one result line of this script.
count() {
	if [ "$2" = 0 ]; then
		echo "ok - $1"
		pass=$((pass + 1))
	else
		echo "not ok - $1"
		fail=$((fail + 1))
	fi
}

# pair KA KB: one pair run.
pair() {
	local ka=$1 kb=$2 d port up1 up2 apid bpid arc brc t0 koa kob
	local n=0 v drop_a='?' drop_b='?'
	local -a oa ob
	d=$out/$ka+$kb
	rm -rf "$d"
	mkdir -p "$d/a" "$d/b"
	kernel "$ka" || { count "$ka+$kb: sroce for $ka" 1; return; }
	oa=("${kopts[@]}") koa=$ko
	kernel "$kb" || { count "$ka+$kb: sroce for $kb" 1; return; }
	ob=("${kopts[@]}") kob=$ko
	port=$(free_tcp_port)
	read -r up1 up2 < <(free_udp_ports)
	t0=$(date +%s)
	echo "# pair $ka+$kb: guest A ($ka) listens on 127.0.0.1:$port, lossy wire UDP $up1 <-> $up2"
	# A outlives B's last case, and starts first
	SROCE_KO=$koa tests/vm/vm-run --timeout $((vm_tmo + 300)) "${oa[@]}" \
		--peer-nic "listen:$port" --peer-udp-nic "$up1:$up2" \
		--monitor "$d/a.mon" --results "$d/a" \
		--keep-log "$d/a/console.log" -- \
		tests/multi/guest.sh a >"$d/a.out" 2>&1 &
	apid=$!
	# B only once A's qemu runs (listens)
	while [ ! -S "$d/a.mon" ] && kill -0 $apid 2>/dev/null; do
		sleep 0.5
	done
	echo "# pair $ka+$kb: guest B ($kb) connects"
	SROCE_KO=$kob tests/vm/vm-run --timeout "$vm_tmo" \
		"${ob[@]}" --peer-nic "connect:$port" --peer-udp-nic "$up2:$up1" \
		--monitor "$d/b.mon" --results "$d/b" \
		--keep-log "$d/b/console.log" -- \
		tests/multi/guest.sh b >"$d/b.out" 2>&1 &
	bpid=$!
	while kill -0 $bpid 2>/dev/null; do
		[ -S "$d/b.mon" ] && serve_req "$d/b" "$d/b.mon" "$d/a.mon"
		# every 2 s, what the lossy wire's sockets dropped so far
		if [ $((n++ % 20)) = 0 ]; then
			v=$(udp_drops "$up1") && [ -n "$v" ] && drop_a=$v
			v=$(udp_drops "$up2") && [ -n "$v" ] && drop_b=$v
		fi
		sleep 0.1
	done
	wait $bpid
	brc=$?
	v=$(udp_drops "$up1") && [ -n "$v" ] && drop_a=$v
	# A's ctl.py ends when this file appears in its results share
	: >"$d/a/quit"
	wait $apid
	arc=$?
	echo "    # Subtest: $ka+$kb"
	sed 's/^/    /' "$d/b.out"
	if summary_read "$d/b.out"; then
		pass=$((pass + sum_pass))
		fail=$((fail + sum_fail))
		skip=$((skip + sum_skip))
	else
		echo "# $ka+$kb: no summary from guest B"
		fail=$((fail + 1))
	fi
	if [ -e "$d/b/a-killed" ]; then
		# killed on B's request: vm-run finds no status (125), or a
		# splat in what the console had until then (3)
		[ "$arc" = 125 ] || sed 's/^/    # A: /' "$d/a.out" | tail -n 40
		count "$ka+$kb: guest A ($ka) killed by B's last case, no splat before (vm-run exit $arc)" \
			"$([ "$arc" = 125 ]; echo $?)"
	else
		[ "$arc" = 0 ] || sed 's/^/    # A: /' "$d/a.out" | tail -n 40
		count "$ka+$kb: guest A ($ka) clean (vm-run exit $arc)" "$arc"
	fi
	count "$ka+$kb: guest B ($kb) clean (vm-run exit $brc)" "$brc"
	echo "# pair $ka+$kb: the lossy wire's sockets on this host dropped $drop_a datagrams for A, $drop_b for B (the last look)"
	echo "# pair $ka+$kb: $(($(date +%s) - t0)) s"
}

[ $# -gt 0 ] || set -- "$stock+$stock"
mkdir -p "$out"
echo "KTAP version 1"
for p in "$@"; do
	[[ $p =~ ^[0-9]+\.[0-9]+\+[0-9]+\.[0-9]+$ ]] || {
		count "pair '$p' (want KA+KB, e.g. 6.1+6.12)" 1
		continue
	}
	pair "${p%+*}" "${p#*+}"
done
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
