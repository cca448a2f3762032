#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/profile.sh - `make bench-profile`: where the kernel time of a
# perftest run goes, for rdma_rxe and for sroce in ONE guest boot, with
# `perf record -a -g` (cpu-clock: TCG has no PMU).  Same two topologies
# as bench/run.sh (rxe on a veth pair in init_net, sroce on a veth pair
# between ns1 and ns2), veth MTU 1500, so IB MTU 1024.
#
#   bench/profile.sh   SROCE_PROF_RUNS="ib_write_bw:65536 ib_write_lat:2"
#                      (tool:size pairs), SROCE_PROF_FREQ (Hz, default 199);
#                      SROCE_KO and SROCE_PROVIDER pick another build
#                      (bench/ab.sh)
#
# Output: bench/results/prof-<stamp>.txt: per driver and run the share of
# every role and the top kernel symbols (self time) inside each role.
# A sample's role is the first of these frames met walking its call chain
# from the leaf outwards (prof_roles below):
#   receive    IP/UDP/veth receive and the driver's receive checks
#   responder  the receiving QP's responder (copy into memory, ACKs out)
#   completer  the sending QP's completer (ACKs in, completions)
#   requester  the sending QP's requester (build, copy, CRC, IP/veth out)
#   verbs      other driver entry points (poll_cq, post_recv, ...)
# The sender's node is requester + completer, the receiver's node is
# responder + receive (ACKs received by the sender count as "receive",
# about one packet in 16 of a bandwidth run).  "user" is perftest's
# polling, "idle" the idle loop.

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
top=$(cd "$here/.." && pwd -P)

if [ -z "${SROCE_VM:-}" ]; then
	stamp=$(date -u +%Y%m%d-%H%M%S)
	res=$(mktemp -d /tmp/sroce-prof.XXXXXX)
	"$top/tests/vm/vm-run" --timeout "${SROCE_PROF_TIMEOUT:-1800}" \
		--results "$res" --append "panic_on_warn=0" \
		-- "$here/profile.sh" "$@"
	rc=$?
	mkdir -p "$here/results"
	if [ -s "$res/profile.txt" ]; then
		cp "$res/profile.txt" "$here/results/prof-$stamp.txt"
		echo "profile: bench/results/prof-$stamp.txt"
	fi
	rm -rf "$res"
	exit $rc
fi

. "$top/tests/integration/lib.sh"

out=${SROCE_RESULTS:-/tmp}/profile.txt
freq=${SROCE_PROF_FREQ:-199}

# prof_roles: perf script output (comm, ip, sym with call chains) in,
# the table of roles and their top symbols out.
prof_roles() {
	awk '
	function role_of(s) {
		if (s ~ /^(sroce_resp_|sroce_rd_|rxe_responder|rxe_resp)/) return "responder"
		if (s ~ /^(sroce_comp_|sroce_req_post_cqes|rxe_completer|rxe_comp)/) return "completer"
		if (s ~ /^(sroce_req_|sroce_post_send|rxe_requester|rxe_post_send|rxe_sched_task)/) return "requester"
		if (s ~ /^(sroce_udp_encap_recv|sroce_recv|sroce_rxq_|rxe_udp_encap_recv|rxe_rcv|net_rx_action|__netif_receive_skb|process_backlog|ip_rcv|ip_local_deliver|udp_rcv|ip6_rcv)/) return "receive"
		if (s ~ /^(default_idle|cpuidle|do_idle|native_safe_halt|pv_native_safe_halt)/) return "idle"
		return ""
	}
	# print the n largest entries of a (symbol -> samples), emptying it
	function top(a, n,    j, b, m, ms) {
		for (j = 0; j < n; j++) {
			m = 0; ms = ""
			for (b in a) if (a[b] > m) { m = a[b]; ms = b }
			if (ms == "") break
			printf " %s %.1f", ms, 100 * m / total
			delete a[ms]
		}
		printf "\n"
	}
	function flush() {
		if (!have) return
		r = role
		if (user) r = "user"
		else if (r == "") r = drv ? "verbs" : "other"
		total++; n[r]++; sym[r SUBSEP leaf]++; allsym[leaf]++
		have = 0
	}
	/^[^ \t]/ { flush(); have = 1; depth = 0; role = ""; drv = 0; leaf = ""; user = 0; lockby = ""; next }
	/^[ \t]+[0-9a-f]+ / {
		s = $2; sub(/\+0x[0-9a-f]+$/, "", s)
		if (depth == 0) {
			leaf = s
			user = ($1 !~ /^ffff/)
		}
		depth++
		# who waited for a contended spinlock: the first frame past
		# the lock functions
		if (leaf ~ /spin_lock_slowpath/ && depth > 0 && !lockby &&
		    s !~ /^(_raw_spin_|native_queued|queued_spin|do_raw_spin|skb_queue_tail|skb_dequeue)/) {
			lockby = s; waiter[s]++
		}
		if (role == "") role = role_of(s)
		if (s ~ /^(sroce_|rxe_|ib_uverbs)/) drv = 1
		next
	}
	END {
		flush()
		if (!total) { print "  (no samples)"; exit }
		printf "  samples %d\n", total
		split("requester completer responder receive verbs other user idle", order, " ")
		for (i = 1; i <= 8; i++) {
			r = order[i]
			if (!n[r]) continue
			printf "  %-10s %5.1f %%  top symbols:", r, 100 * n[r] / total
			delete best
			for (k in sym) {
				split(k, kk, SUBSEP)
				if (kk[1] == r) best[kk[2]] = sym[k]
			}
			top(best, 6)
		}
		printf "  spinlock waiters:"
		top(waiter, 5)
		printf "  top symbols overall:"
		top(allsym, 15)
	}'
}

# prof_one SERVER_NS CLIENT_NS DEV_S DEV_C IP_S IP_C TOOL SIZE
prof_one() {
	local nss=$1 nsc=$2 ds=$3 dc=$4 ips=$5 ipc=$6 tool=$7 size=$8
	local gs gc n args ps=() pc=() line
	gs=$(gid_index "$ds" "$ips") && gc=$(gid_index "$dc" "$ipc") || return 1
	[ -n "$nss" ] && ps=(ip netns exec "$nss")
	[ -n "$nsc" ] && pc=(ip netns exec "$nsc")
	n=5000
	[ "$size" -ge 65536 ] && n=2000
	args=(-F -s "$size" -n "$n")
	# Latency: the two polling processes on different vCPUs (bench/run.sh).
	if [ "${tool%_lat}" != "$tool" ]; then
		ps=(taskset -c 0 "${ps[@]}")
		pc=(taskset -c 1 "${pc[@]}")
	fi
	# One run without perf (what the run does unobserved), then one
	# under perf; perftest's all-zero runs (TCG clock calibration) rerun.
	local mode rec
	for mode in plain perf; do
		rec=()
		[ $mode = perf ] && rec=(perf record -q -a -g -e cpu-clock \
			-F "$freq" -o /tmp/prof.data --)
		for _ in 1 2 3; do
			"${ps[@]}" timeout 120 "$tool" -d "$ds" -x "$gs" \
				"${args[@]}" >/tmp/prof-srv.log 2>&1 &
			sleep 1.5
			"${rec[@]}" "${pc[@]}" timeout 120 "$tool" -d "$dc" -x "$gc" \
				"${args[@]}" "$ips" >/tmp/prof-cli.log 2>/dev/null
			wait
			line=$(awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+/ {l=$0} END {print l}' \
				/tmp/prof-cli.log)
			[ -n "$line" ] && ! awk '{exit !($4 + 0 == 0)}' <<<"$line" && break
			line=
		done
		echo "  perftest ($mode): $line"
		[ -z "$line" ] && tail -n 3 /tmp/prof-cli.log /tmp/prof-srv.log |
			sed 's/^/  # /'
	done
	perf script -i /tmp/prof.data -F comm,ip,sym 2>/dev/null | prof_roles
}

{
	echo "# profile: $(uname -r), $(nproc) vCPUs, veth MTU 1500, cpu-clock $freq Hz"
	echo "# sroce ${SROCE_PROF_REV:-$(git -C "$top" describe --always --dirty 2>/dev/null)} ($SROCE_KO)"
	rxe_veth_up 1500 || echo "# rdma_rxe setup failed"
	{ load_sroce && make_two_ns; } || echo "# sroce setup failed"
	for run in ${SROCE_PROF_RUNS:-ib_write_bw:65536 ib_write_lat:2}; do
		tool=${run%%:*}
		size=${run#*:}
		echo "== rxe $tool -s $size"
		prof_one "" "" rxe2 rxe1 10.13.0.2 10.13.0.1 "$tool" "$size"
		echo "== sroce $tool -s $size"
		prof_one ns2 ns1 sroce2 sroce1 10.11.0.2 10.11.0.1 "$tool" "$size"
	done
	rxe_veth_down
	topo_reset
	unload_sroce
} 2>&1 | tee "$out"
