# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
#
# dp-lib.sh - helpers of the data-path integration tests (t-datapath.sh,
# t-pingpong.sh, t-interop.sh), on top of lib.sh (source that first).
#
#   dp_binary                 path of a built tests/datapath/dp_test
#   dp_tool NAME              path of a built single-device tool (dp_mcast...)
#   need_tool NAME TITLE      dp_tool into $tool, or a failed one-result test
#   relay_tool PFX PLAN RC OUT  relay a tool's KTAP lines, then its exit
#   run_pair TMO SRV_NS SRV_CMD CLI_NS CLI_CMD
#                             start a server, then (once it is ready) its
#                             client; both under timeout; succeed if both
#                             exit 0; output in $pair_out (labelled)
#   relay_ktap                re-emit a child's KTAP results as our own
#   perf_nonzero OUT          does perftest output hold a non-zero result?
#   perf_pair TMO SRV_NS SRV_CMD CLI_NS CLI_CMD
#                             run_pair of a perftest on the next $port,
#                             once more if it printed all zeros

DP_TIMEOUT=${DP_TIMEOUT:-120}

# dp_binary: the dp_test binary, built on the host by `make -C
# tests/datapath`; built into the guest's /tmp if it is missing.
dp_binary() {
	local b=$SROCE_TOP/build/datapath/dp_test
	if [ -x "$b" ]; then
		echo "$b"
		return 0
	fi
	make -s -C "$SROCE_TOP/tests/datapath" O=/tmp/dp-build >/dev/null 2>&1 &&
		echo /tmp/dp-build/dp_test
}

# dp_tool NAME: path of one of the single-device tools built next to
# dp_test (dp_mcast, dp_limits, dp_srqresize, dp_inval); built into the
# guest's /tmp if missing; nothing printed if it cannot be built.
dp_tool() {
	local b=$SROCE_TOP/build/datapath/$1
	if [ ! -x "$b" ]; then
		make -s -C "$SROCE_TOP/tests/datapath" O=/tmp/dp-build \
			>/dev/null 2>&1
		b=/tmp/dp-build/$1
	fi
	[ -x "$b" ] && echo "$b"
}

# need_tool NAME TITLE: set $tool to the path of tool NAME (dp_tool); if
# it cannot be built, the whole test is one failed result titled TITLE.
need_tool() {
	tool=$(dp_tool "$1")
	if [ -z "$tool" ]; then
		ktap_begin 1 "$2"
		ktap_fail "$1 built (make -C tests/datapath)"
		ktap_done
	fi
}

# relay_tool PREFIX PLAN RC OUT: relay a tool's KTAP lines (OUT), fail the
# cases it planned (PLAN) but never reported, then one result for its
# exit status RC.
relay_tool() {
	local prefix=$1 plan=$2 rc=$3 out=$4
	relay_ktap "$prefix" <<<"$out"
	while [ "$relayed" -lt "$plan" ]; do
		ktap_fail "${prefix}case not run" "$(tail -n 20 <<<"$out")"
		relayed=$((relayed + 1))
	done
	ktap_result "${prefix}exits 0" "$rc" "$(tail -n 20 <<<"$out")"
}

# in_ns NS CMD...: run CMD in namespace NS ("" or "-" = init_net).
in_ns() {
	local ns=$1
	shift
	if [ -z "$ns" ] || [ "$ns" = - ]; then
		"$@"
	else
		ip netns exec "$ns" "$@"
	fi
}

# run_pair TIMEOUT SRV_NS "SRV CMD" CLI_NS "CLI CMD"
# Start the server, wait until it is ready, run the client; both under
# timeout; succeed if both exit 0.  Ready means: PAIR_READY, a command,
# succeeds (rdma_cm servers open no TCP port), else the TCP port PAIR_PORT
# shows in /proc/net/tcp* (pingpong clients do not retry their connect),
# else a second passed.  The wait for PAIR_READY or PAIR_PORT lasts while
# the server runs, at most PAIR_READY_S seconds (default: TIMEOUT, the
# server's own life): on a loaded host a server may take many seconds to
# start, and one that ended or never got ready is noted in $pair_out.
# Output of both sides in $pair_out (the last PAIR_TAIL lines of each when
# set), $pair_cout and $pair_sout.  A client that timed out (exit 124)
# adds the QPs' state three seconds before its timeout, while the pair
# was stuck (`rdma -dd res show qp` in both namespaces): what each side
# waited for.
run_pair() {
	local tmo=$1 sns=$2 scmd=$3 cns=$4 ccmd=$5
	local sout cout stuck spid wpid src crc note='' tail=${PAIR_TAIL:-+1}
	sout=$(mktemp) cout=$(mktemp) stuck=$(mktemp)
	in_ns "$sns" timeout "$tmo" bash -c "$scmd" >"$sout" 2>&1 &
	spid=$!
	if [ -n "${PAIR_READY:-}" ]; then
		# shellcheck disable=SC2086 # a command and its arguments
		server_ready "$spid" "${PAIR_READY_S:-$tmo}" $PAIR_READY ||
			note="(server not ready: $PAIR_READY)"
	elif [ -n "${PAIR_PORT:-}" ]; then
		server_ready "$spid" "${PAIR_READY_S:-$tmo}" \
			port_listening "$sns" "$PAIR_PORT" ||
			note="(server not listening on TCP port $PAIR_PORT)"
	else
		sleep 1
	fi
	# The QPs' state shortly before the client's timeout, should it come.
	# The watcher holds none of our output open (a caller's $(run_pair
	# ...) or the pipe run.sh reads a file's output from would wait for
	# its sleep to end: tmo - 3 seconds after the pair is done) and takes
	# its sleep along when it is stopped.
	(
		exec </dev/null >/dev/null 2>&1
		w=
		trap '[ -n "$w" ] && kill $w; exit' TERM
		sleep $((tmo > 6 ? tmo - 3 : tmo)) &
		w=$!
		wait $w && pair_stuck_qps "$cns" "$sns" >"$stuck" 2>&1
	) &
	wpid=$!
	in_ns "$cns" timeout "$tmo" bash -c "$ccmd" >"$cout" 2>&1
	crc=$?
	kill "$wpid" 2>/dev/null
	wait "$wpid" 2>/dev/null
	[ $crc -eq 124 ] && note="${note:+$note
}$(cat "$stuck")"
	# A client that failed leaves the server waiting: stop it.
	if [ $crc -ne 0 ]; then
		sleep 1
		kill "$spid" 2>/dev/null
	fi
	wait "$spid"
	src=$?
	pair_out="--- client (exit $crc): $ccmd
$(tail -n "$tail" "$cout")
--- server (exit $src): $scmd
$(tail -n "$tail" "$sout")${note:+
$note}"
	pair_cout=$(cat "$cout")
	pair_sout=$(cat "$sout")
	rm -f "$sout" "$cout" "$stuck"
	[ $crc -eq 0 ] && [ $src -eq 0 ]
}

# pair_stuck_qps NS...: the RC QPs of each namespace's devices with the
# driver's state (restrack.c): PSNs, WQE indices, READ history.
pair_stuck_qps() {
	local ns
	for ns in "$@"; do
		echo "QPs seen from ${ns:--}:"
		in_ns "$ns" rdma -dd res show qp 2>&1 | grep -v ' type GSI ' |
			head -n 40
	done
}

# server_ready PID SECONDS CMD...: CMD succeeds (retried every 0.1 s)
# while process PID lives, for at most SECONDS; fails once PID has ended
# (checked once more after that: it may have got ready and finished).
server_ready() {
	local pid=$1 deadline=$((SECONDS + $2))
	shift 2
	while :; do
		"$@" >/dev/null 2>&1 && return 0
		if ! kill -0 "$pid" 2>/dev/null; then
			"$@" >/dev/null 2>&1
			return
		fi
		[ $SECONDS -ge $deadline ] && return 1
		sleep 0.1
	done
}

# port_listening NS PORT: a TCP socket listens on PORT in NS.
port_listening() {
	local hex
	hex=$(printf '%04X' "$2")
	in_ns "$1" cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 } END { exit !f }'
}

# relay_ktap PREFIX < KTAP: re-emit each "ok"/"not ok" line of a child
# KTAP stream as our own result (renumbered, PREFIX added), and its
# diagnostics as ours.  Returns the number of results relayed in $relayed.
relay_ktap() {
	local prefix=$1 line name pend=()
	relayed=0
	while IFS= read -r line; do
		case $line in
		"not ok "*)
			name=${line#not ok }
			name=${name#* }
			ktap_fail "$prefix$name" "${pend[@]}"
			pend=()
			relayed=$((relayed + 1))
			;;
		"ok "*"# SKIP"*)
			name=${line#ok }
			name=${name#* }
			ktap_skip "$prefix${name%% # SKIP*}" "${name##*# SKIP }"
			relayed=$((relayed + 1))
			;;
		"ok "*)
			name=${line#ok }
			name=${name#* }
			ktap_pass "$prefix$name"
			pend=()
			relayed=$((relayed + 1))
			;;
		"# "*)
			pend+=("${line#\# }")
			;;
		esac
	done
}

# perf_nonzero OUT: perftest printed a result row with a non-zero figure.
# Rows are "size iterations figures..."; all-zero rows happen under TCG
# when clock calibration fails.
perf_nonzero() {
	awk '$1 ~ /^[0-9]+$/ && NF >= 4 {
		for (i = 3; i <= NF; i++) if ($i + 0 > 0) f = 1
	} END { exit !f }' <<<"$1"
}

# perf_pair TMO SRV_NS SRV_CMD CLI_NS CLI_CMD: run_pair of a perftest
# server and client on the next port (the caller's $port plus one; @PORT@
# in the commands stands for it).  When both succeed with an all-zero row
# (TCG's clock calibration), once more on the next port; only that row is
# worth a second run, a failure is not repeated.  Succeeds when a run
# succeeded with a non-zero row; $pair_out and $pair_cout are the last run's.
# Both runs succeeded with all-zero rows: 2, and $pair_out says so (a caller
# may then check by other means, such as the device's counters, that the
# transfer happened: perftest exits 0 only after every completion).
perf_pair() {
	local rc
	for _ in 1 2; do
		port=$((port + 1))
		PAIR_PORT=$port run_pair "$1" "$2" "${3//@PORT@/$port}" \
			"$4" "${5//@PORT@/$port}"
		rc=$?
		[ $rc -eq 0 ] || return $rc
		perf_nonzero "$pair_cout" && return 0
	done
	pair_out+="
(both runs exited 0 with an all-zero result row)"
	return 2
}

# perf_counted DEV CTR NEED TMO SRV_NS SRV_CMD CLI_NS CLI_CMD: perf_pair;
# when both runs printed all-zero rows (its 2), success if DEV's counter
# CTR moved by at least 2 * NEED over them (perftest exits 0 only after
# every completion: the transfers happened).  $perf_note says which, for
# the log; on failure $pair_out ends with what CTR moved.
perf_counted() {
	local dev=$1 ctr=$2 need=$3 before moved rc
	shift 3
	before=$(hw_counter "$dev" "$ctr")
	perf_pair "$@"
	rc=$?
	moved=$(($(hw_counter "$dev" "$ctr") - before))
	if [ $rc -eq 0 ]; then
		perf_note=$(perf_row "$pair_cout")
		return 0
	fi
	if [ $rc -eq 2 ] && [ $moved -ge $((2 * need)) ]; then
		perf_note="both runs printed all-zero figures; $dev $ctr"
		perf_note+=" +$moved (at least $((2 * need)))"
		return 0
	fi
	pair_out+="
$dev $ctr +$moved (want $need a run)"
	return 1
}

# perf_row OUT: the result row of a perftest run (for the log).
perf_row() {
	awk '$1 ~ /^[0-9]+$/ && NF >= 4' <<<"$1" | tail -n 1
}

# rxe_pair_setup: make_init_veth's topology with rdma_rxe's rxe0 on i1
# (init_net) and sroce3 on i2 (ns3), as six test cases; sets grxe and gsro
# (their IPv4 GID indices).  If a step fails it skips the rest of the file
# and ends it.  rdma_rxe keeps UDP 4791 of init_net open while loaded,
# which later test files (t-netns) must not find: rxe0 is removed and the
# module unloaded on every exit.
rxe_pair_setup() {
	trap rxe_pair_cleanup EXIT
	# rdma_rxe first: it opens UDP 4791 in init_net when it loads.
	if ! ktap_check "modprobe rdma_rxe" modprobe rdma_rxe ||
		! ktap_check "load sroce.ko" load_sroce ||
		! ktap_check "veth i1 (init_net) / i2 (ns3)" make_init_veth ||
		! ktap_check "rdma link add rxe0 on i1" add_link rxe0 rxe i1 ||
		! ktap_check "rdma link add sroce3 on i2 in ns3" \
			add_link sroce3 sroce i2 ns3; then
		ktap_skip_rest "no topology"
		ktap_done
	fi
	if ! wait_gid rxe0 10.12.0.1 20 || ! wait_gid sroce3 10.12.0.2 20; then
		ktap_fail "IPv4 GIDs on rxe0 and sroce3" "$(list_gids rxe0)" \
			"$(list_gids sroce3)"
		ktap_skip_rest "no GID"
		ktap_done
	fi
	ktap_pass "IPv4 GIDs on rxe0 and sroce3"
	grxe=$(gid_index rxe0 10.12.0.1)
	gsro=$(gid_index sroce3 10.12.0.2)
}

# shellcheck disable=SC2317 # run by the EXIT trap
rxe_pair_cleanup() {
	rdma link delete rxe0 >/dev/null 2>&1
	wait_until 10 dev_gone rxe0
	modprobe -r rdma_rxe >/dev/null 2>&1
}
