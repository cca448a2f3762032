#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# soak.sh - a soak with faults: mixed RDMA traffic between sroce1 and
# sroce2 for SROCE_SOAK_SECONDS (default 120) while a fault injector hits
# the fabric every SROCE_SOAK_FAULT_EVERY seconds (default 6).
#
# Workers, each a loop of short runs until the time is up:
#   verbs  tests/datapath/dp_soak (init_net, both devices in one process):
#          RC SEND/SEND_IMM, WRITE, READ, FETCH_ADD, CMP_SWAP in both
#          directions, every byte and every atomic result checked
#   rcpp   ibv_rc_pingpong --chk (server ns2, client ns1), random sizes
#   ud     ibv_ud_pingpong --chk
#   cm     rdma_cm: rping -V (data validated) and ucmatose, alternating
#   bw     ib_write_bw, ib_read_bw, ib_atomic_bw, in turn
# Faults, one at a time in a shuffled round (each kind once per round):
#   link   a veth end down for 1-3 s, then up
#   loss   netem loss 30-100 % on a veth end for 1-3 s
#   mtu    both veth ends to another MTU (1500, 2100, 4200, 9000)
#   kill   kill -9 of one running worker process (a peer of a pair)
#   devdel rdma link delete of sroce1 or sroce2, then add it again
#   nsdel  every process in ns1 or ns2 killed, the namespace deleted
#          (taking the veth and both devices with it), then rebuilt
# No fault starts in the last SROCE_SOAK_QUIET seconds (default 30), and
# the last fault ends at least that long before the end: when a fault
# ends later (a slow host), or when the first round of six kinds is not
# complete by then, the soak is longer than SROCE_SOAK_SECONDS ($W/t_end
# holds its end, the injector moves it).  After the end it waits, at most
# QUIET + 2 x RUN_TMO (30 s) after the last fault, until every worker has
# done work that started after the last fault (a run the fault hit may
# first run into its timeout).
#
# A fault is "active" from its start until the fabric is whole again
# (devices back, GIDs present).  Each run of a worker is judged by the
# faults that overlapped it:
#   - data not byte-exact, or a success with wrong fields, fails always;
#   - a failure in a run no fault touched fails;
#   - a failure in a faulted run must name a plausible status (retry
#     exceeded, flushed, RNR retry exceeded; a remote error only when a
#     device was re-created under the run, whose stale QP number may now
#     be another QP's), or be a setup error or an rdma_cm error of a run
#     whose device or namespace went away, or a run killed or timed out
#     after a fault (a pingpong waits forever for a UD datagram or a peer
#     that the fault took);
#   - dp_soak's "no completion in 20 s with the devices present" (a hang)
#     fails always.
# At the end: every worker completed work after the last fault ended
# (recovery), every worker stopped within RUN_TMO + 30 s (60 s) of the
# end (nothing hung), no worker process is left, `rdma resource show`
# holds what it held before (device indexes and order aside), sroce's
# module reference count is back at its start value and SUnreclaim (after
# shrinking the caches) is within SROCE_SOAK_SLAB_KB (8192) of before.
# The harness checks dmesg.
# Operations per kind and faults per kind are printed as diagnostics.
#
# SROCE_SOAK_SEED seeds the choices of the injector and of each worker
# (timing still differs from run to run).
#
# Topology: make_two_ns (see lib.sh); faults act on it.
#
#   ns1: sroce1 on v1 (10.11.0.1) ==veth== v2 (10.11.0.2) sroce2 :ns2
#        clients                                    servers
#   init_net: dp_soak, the fault injector

here=$(dirname "${BASH_SOURCE[0]}")
. "$here/lib.sh"
. "$here/dp-lib.sh"

DUR=${SROCE_SOAK_SECONDS:-120}
EVERY=${SROCE_SOAK_FAULT_EVERY:-6}
QUIET=${SROCE_SOAK_QUIET:-30}
SLAB_KB=${SROCE_SOAK_SLAB_KB:-8192}
SEED=${SROCE_SOAK_SEED:-$((RANDOM * 32768 + RANDOM))}
# One run of a pair tool (a loaded host starts them slowly; the debug
# kernel, $slow, five times more so).
RUN_TMO=$((30 * slow))
# The soak waits at most this long after the last fault for every worker
# to complete a run that started after it: a run that the last fault hit
# may run into its timeout first (a UD pingpong waits forever for a lost
# datagram).
RECOVER_S=$((QUIET + 2 * RUN_TMO))
WORKERS="verbs rcpp ud cm bw"
KINDS="link loss mtu kill devdel nsdel"
TOOLS="dp_soak ibv_rc_pingpong ibv_ud_pingpong rping ucmatose ib_write_bw ib_read_bw ib_atomic_bw"
W=/tmp/soak
# A soak of at least 12 fault intervals before the quiet end has every
# kind once (the injector goes on until it has, moving the end); a
# shorter one at least one fault.
need=$((DUR - QUIET >= 12 * EVERY ? 6 : 1))

ktap_begin 18 "soak with faults: ${DUR} s, a fault every ${EVERY} s, seed $SEED"
RANDOM=$SEED
soak=$(dp_tool dp_soak)
if [ -z "$soak" ]; then
	ktap_fail "dp_soak built (make -C tests/datapath)"
	ktap_skip_rest "no dp_soak"
	ktap_done
fi
two_ns_start
rm -rf $W
mkdir -p $W
echo 0 >$W/fseq

# --- the fabric -------------------------------------------------------------------

# fabric_whole: both devices present with their IPv4 GIDs.
fabric_whole() {
	gid_index sroce1 10.11.0.1 >/dev/null && gid_index sroce2 10.11.0.2 >/dev/null
}

# dev_up I: sroce$I on v$I again (after a delete), and its GID.
dev_up() {
	dev_exists sroce$1 || add_link sroce$1 sroce v$1 ns$1 || return 1
	wait_gid sroce$1 10.11.0.$1 20
}

# veth_gone: neither veth end nor device is left (the old namespace's
# cleanup runs after its last process has gone).
veth_gone() {
	! ip -n ns1 link show v1 && ! ip -n ns2 link show v2 &&
		dev_gone sroce1 && dev_gone sroce2
}

# ns_rebuild: ns1/ns2, the veth, the addresses and both devices as
# make_two_ns made them, whichever of them the namespace deletion took.
ns_rebuild() {
	local i
	for i in 1 2; do
		[ -e /run/netns/ns$i ] && continue
		ip netns add ns$i && ip -n ns$i link set lo up || return 1
	done
	# The veth goes with the namespace cleanup, the devices with it.
	wait_until 30 veth_gone || return 1
	two_ns_veth && dev_up 1 && dev_up 2
}

# put FILE VALUE: write VALUE to FILE at once (a rename), so that no reader
# sees it empty.
put() {
	echo "$2" >"$1.$BASHPID" && mv -f "$1.$BASHPID" "$1"
}

# tools_left: the worker tools running, "PID NAME" each, from
# /proc/*/comm read by the shell itself (pgrep reads five files of every
# process: on a loaded guest eight pgreps took 40-60 s).
tools_left() {
	local f c
	for f in /proc/[0-9]*/comm; do
		read -r c 2>/dev/null <"$f" || continue
		[[ " $TOOLS " == *" $c "* ]] || continue
		f=${f#/proc/}
		echo "${f%/comm} $c"
	done
}

tools_running() {
	[ -n "$(tools_left)" ]
}

# --- the fault injector -------------------------------------------------------------

# fseq: even while the fabric is whole, odd while a fault is active; fault
# number n is active while fseq = 2n - 1, and $W/fault.n names its kind.
fseq=0
fault_begin() {
	fseq=$((fseq + 1))
	echo "$1" >$W/fault.$(((fseq + 1) / 2))
	put $W/fseq $fseq
}

fault_end() {
	fseq=$((fseq + 1))
	put $W/fseq $fseq
}

# One fault of KIND; succeeds once the fabric is whole again.
fault_do() {
	local side=$((1 + RANDOM % 2)) s=$((1 + RANDOM % 3)) mtu mtus
	local pids p n
	case $1 in
	link)
		ip -n ns$side link set v$side down
		sleep "$s"
		ip -n ns$side link set v$side up
		;;
	loss)
		ip netns exec ns$side tc qdisc replace dev v$side root netem \
			loss $((30 + RANDOM % 71))%
		sleep "$s"
		ip netns exec ns$side tc qdisc del dev v$side root
		;;
	mtu)
		mtus=(1500 2100 4200 9000)
		mtu=$cur_mtu
		while [ "$mtu" = "$cur_mtu" ]; do
			mtu=${mtus[RANDOM % 4]}
		done
		ip -n ns1 link set v1 mtu "$mtu" &&
			ip -n ns2 link set v2 mtu "$mtu" && cur_mtu=$mtu
		;;
	kill)
		# Right after a fault every worker may be between runs: wait
		# for one to run.
		wait_until 20 tools_running
		pids=()
		while read -r p _; do
			pids+=("$p")
		done < <(tools_left)
		if [ ${#pids[@]} -gt 0 ]; then
			p=${pids[RANDOM % ${#pids[@]}]}
			echo "kill -9 $p ($(cat /proc/"$p"/comm 2>/dev/null))" >>$W/faults.log
			kill -9 "$p" 2>/dev/null
		else
			echo "kill: no worker process ran for 20 s" >>$W/faults.log
		fi
		;;
	devdel)
		rdma link delete sroce$side
		wait_until 20 dev_gone sroce$side
		sleep 1
		;;
	nsdel)
		# A node dies: its processes first (they would keep the
		# namespace and so its veth alive), then the namespace.
		for p in $(ip netns pids ns$side); do
			kill -9 "$p" 2>/dev/null
		done
		ip netns del ns$side
		cur_mtu=1500
		ns_rebuild || return 1
		;;
	esac
	echo "$EPOCHSECONDS $1 done, waiting for the devices" >>$W/phases
	dev_up 1 && dev_up 2
}

# shuffle_kinds: $order = the fault kinds in a random order.
shuffle_kinds() {
	local i j t
	read -ra order <<<"$KINDS"
	for ((i = ${#order[@]} - 1; i > 0; i--)); do
		j=$((RANDOM % (i + 1)))
		t=${order[i]} order[i]=${order[j]} order[j]=$t
	done
}

injector() {
	RANDOM=$((SEED + 1))
	local order=() k t0 st end round=0
	cur_mtu=1500
	sleep 3
	# Faults until QUIET seconds before the end, but when the soak is
	# long enough for a round ($need), one of each kind at least (the
	# first round is done once its last kind has started).
	while read -r end <$W/t_end && [ ! -e $W/stop ] &&
		{ [ $EPOCHSECONDS -lt $((end - QUIET)) ] ||
			{ [ "$need" -gt 1 ] && { [ $round -eq 0 ] ||
				{ [ $round -eq 1 ] && [ ${#order[@]} -gt 0 ]; }; }; }; }; do
		[ ${#order[@]} -eq 0 ] && { shuffle_kinds; round=$((round + 1)); }
		k=${order[0]}
		order=("${order[@]:1}")
		t0=$EPOCHSECONDS
		echo "$t0 $k begins" >>$W/phases
		# The soak ends QUIET seconds after this fault's start at the
		# earliest; the main loop decides to stop under the same lock.
		{
			flock 9
			[ -e $W/stop ] && break
			read -r end <$W/t_end
			[ $((t0 + QUIET)) -gt "$end" ] && put $W/t_end $((t0 + QUIET))
			fault_begin "$k"
		} 9>$W/lock
		fault_do "$k"
		st=$?
		# Whatever happened, try to make the fabric whole.
		fabric_whole || ns_rebuild >/dev/null 2>&1 || { dev_up 1; dev_up 2; } >/dev/null 2>&1
		fabric_whole || st=1
		# QUIET seconds without a fault before the end.
		read -r end <$W/t_end
		[ $((EPOCHSECONDS + QUIET)) -gt "$end" ] &&
			put $W/t_end $((EPOCHSECONDS + QUIET))
		fault_end
		echo "$t0 $EPOCHSECONDS $k $st" >>$W/faults
		sleep $((EVERY - (EPOCHSECONDS - t0) > 1 ? EVERY - (EPOCHSECONDS - t0) : 1))
	done
	echo "$EPOCHSECONDS" >$W/injector.done
}

# --- judging a run ------------------------------------------------------------------

# Always wrong: data not as sent, a completion that belongs to nothing
# (and dp_soak's exit 1, wrong data, or 3, a hang: see judge).
BAD_RE='invalid data in page|data mismatch|data verification failed|Received bogus data|Completion for unknown wr_id'
# Plausible completion statuses: retry exceeded (12), flushed (5), RNR
# retry exceeded (13), by name (pingpong, dp_soak) or number (rping,
# perftest).
OK_STATUS_RE='transport retry counter exceeded|Work Request Flushed Error|RNR retry counter exceeded|status 12|status 5[^0-9]|status 5$|status 13'
# Any status named or numbered.
# ("return status 8" of ucmatose is its exit code, not a completion.)
ANY_STATUS_RE='Failed status|soak-end status|[Ff]ailed status [0-9]+'
# Remote errors (9 invalid request, 10 access, 11 operation): plausible
# only when a device was re-created under the run.
REMOTE_RE='remote invalid request|remote access error|remote operation error|status (9|10|11)([^0-9]|$)'

# kinds_between S0 S1: the kinds of the faults active at some point
# between fseq S0 and S1.
kinds_between() {
	local n k out=''
	for ((n = (($1 + 1) / 2); n <= (($2 + 1) / 2); n++)); do
		[ $n -ge 1 ] || continue
		read -r k <$W/fault.$n 2>/dev/null && out+=" $k"
	done
	echo "$out"
}

# judge KIND RC S0 S1 FILE...: the class of a run of tool KIND, on
# stdout: ok, fault (a plausible failure), or bad:<why>.
judge() {
	local kind=$1 rc=$2 s0=$3 s1=$4 out kinds
	shift 4
	out=$(cat "$@" 2>/dev/null)
	if [ "$kind" = dp_soak ] && { [ "$rc" = 1 ] || [ "$rc" = 3 ]; }; then
		echo "bad:$(grep -m1 '^soak-end' <<<"$out" | tr ' ' _)"
		return
	fi
	if grep -Eq "$BAD_RE" <<<"$out"; then
		echo "bad:data-or-hang"
		return
	fi
	[ "$rc" -eq 0 ] && { echo ok; return; }
	if [ "$s0" = "$s1" ] && [ $((s0 % 2)) -eq 0 ]; then
		echo "bad:failed-without-fault"
		return
	fi
	kinds=$(kinds_between "$s0" "$s1")
	if grep -Eq "$ANY_STATUS_RE" <<<"$out"; then
		if grep -Eq "$REMOTE_RE" <<<"$out" && [[ $kinds == *del* ]]; then
			echo fault
		elif grep -E "$ANY_STATUS_RE" <<<"$out" |
			grep -Evq "$OK_STATUS_RE"; then
			echo "bad:status-not-plausible"
		else
			echo fault
		fi
		return
	fi
	# No status: setup, rdma_cm or control-connection error, or killed
	# or timed out: all a fault can cause.
	echo fault
}

# record WORKER KIND T0 RC S0 S1 OPS FILE...: judge a run, keep its
# result line, count its operations if it succeeded, keep the output of
# the first failures.
record() {
	local w=$1 kind=$2 t0=$3 rc=$4 s0=$5 s1=$6 ops=$7 cls n
	shift 7
	cls=$(judge "$kind" "$rc" "$s0" "$s1" "$@")
	echo "$t0 $EPOCHSECONDS $rc $cls $s0 $s1 $kind $([ "$cls" = ok ] && echo "$ops" || echo 0)" >>$W/$w.runs
	if [ "$cls" != ok ]; then
		n=$(wc -l <$W/$w.runs)
		if [[ $cls == bad* ]] || [ "$n" -lt 400 ]; then
			{
				echo "--- $w $kind rc $rc $cls faults:$(kinds_between "$s0" "$s1") at $t0"
				tail -n 8 "$@" 2>/dev/null
			} >>$W/$w.fails
		fi
	fi
}

# --- workers ------------------------------------------------------------------------

# pair WORKER KIND OPS READY PORT SRV_CMD CLI_CMD: one client/server run
# (server in ns2, client in ns1; run_pair of dp-lib.sh), judged.  READY:
# tcp (TCP PORT listens in ns2) or cm (an rdma_cm ID listens on PORT).
pair() {
	local w=$1 kind=$2 ops=$3 port=$5 s0 s1 t0 rc=0 f=$W/$1.out
	read -r s0 <$W/fseq
	t0=$EPOCHSECONDS
	if [ "$4" = cm ]; then
		PAIR_READY="cm_listening $port" \
			run_pair $RUN_TMO ns2 "$6" ns1 "$7" || rc=1
	else
		PAIR_PORT=$port run_pair $RUN_TMO ns2 "$6" ns1 "$7" || rc=1
	fi
	read -r s1 <$W/fseq
	echo "$pair_out" >"$f"
	record "$w" "$kind" "$t0" "$rc" "$s0" "$s1" "$ops" "$f"
}

cm_listening() {
	rdma resource show cm_id 2>/dev/null |
		grep -q "state LISTEN .*src-addr .*:$1 "
}

stopped() {
	[ -e $W/stop ]
}

gids() {
	g1=$(gid_index sroce1 10.11.0.1) && g2=$(gid_index sroce2 10.11.0.2)
}

# A worker whose devices are missing waits for the injector to restore
# them instead of spinning through failing runs.
wait_fabric() {
	until gids || stopped; do
		sleep 0.5
	done
}

w_verbs() {
	RANDOM=$((SEED + 2))
	local s0 s1 t0 rc f=$W/verbs.out left
	until stopped; do
		wait_fabric
		# Until the end, 10 s at least: past the end while the soak
		# waits for the workers to recover (see the main loop).
		read -r left <$W/t_end
		left=$((left - EPOCHSECONDS))
		[ $left -ge 10 ] || left=10
		read -r s0 <$W/fseq
		t0=$EPOCHSECONDS
		"$soak" -d sroce1 -g "$g1" -D sroce2 -G "$g2" -t $left \
			-s $((SEED + t0)) >"$f" 2>&1
		rc=$?
		read -r s1 <$W/fseq
		# dp_soak's own hang verdict is exit 3; 1 is a data error.
		record verbs dp_soak "$t0" "$rc" "$s0" "$s1" 0 "$f"
		grep '^soak-ops' "$f" >>$W/verbs.ops
		grep '^tick' "$f" | tail -n 1 >>$W/verbs.ticks
	done
}

# w_pingpong WORKER RC|UD PORT0 MAXSHIFT: ibv_rc_pingpong or
# ibv_ud_pingpong --chk runs of random sizes (UD: at most the smallest
# active MTU's payload, 1024).
w_pingpong() {
	local w=$1 t=ibv_${2,,}_pingpong port0=$3 port=$3 n size
	until stopped; do
		wait_fabric
		port=$((port0 + (port + 1 - port0) % 1000))
		size=$((1 << (4 + RANDOM % ($4 - 3))))
		n=$((20 + RANDOM % 100))
		pair "$w" "${t#ibv_}" "$n" tcp $port \
			"$t -d sroce2 -g $g2 -p $port -s $size -n $n -c" \
			"$t -d sroce1 -g $g1 -p $port -s $size -n $n -c 10.11.0.2"
	done
}

w_rcpp() {
	RANDOM=$((SEED + 3))
	w_pingpong rcpp RC 20000 16
}

w_ud() {
	RANDOM=$((SEED + 4))
	w_pingpong ud UD 21000 10
}

w_cm() {
	RANDOM=$((SEED + 5))
	local port=22000 n size i=0
	until stopped; do
		wait_fabric
		port=$((22000 + (port - 21999) % 1000))
		n=$((10 + RANDOM % 40))
		if [ $((i++ % 2)) -eq 0 ]; then
			size=$((64 + RANDOM % 4000))
			pair cm rping "$n" cm $port \
				"rping -s -a 10.11.0.2 -p $port -C $n -S $size -V" \
				"rping -c -a 10.11.0.2 -p $port -C $n -S $size -V"
		else
			pair cm ucmatose_connection 2 cm $port \
				"ucmatose -b 10.11.0.2 -p $port -c 2 -C $n" \
				"ucmatose -s 10.11.0.2 -p $port -c 2 -C $n"
		fi
	done
}

w_bw() {
	RANDOM=$((SEED + 6))
	local port=23000 n t i=0 size opt
	until stopped; do
		wait_fabric
		port=$((23000 + (port - 22999) % 1000))
		n=$((50 + RANDOM % 150))
		size=$((1 << (6 + RANDOM % 11)))
		case $((i++ % 3)) in
		0) t=ib_write_bw opt="-s $size" ;;
		1) t=ib_read_bw opt="-s $size" ;;
		*) t=ib_atomic_bw opt="" ;;
		esac
		pair bw "$t" "$n" tcp $port \
			"$t -d sroce2 -x $g2 -p $port -F -n $n $opt" \
			"$t -d sroce1 -x $g1 -p $port -F -n $n $opt 10.11.0.2"
	done
}

# --- leak accounting ----------------------------------------------------------------

# rdma resource show without the device indexes, which grow with every
# re-created device, sorted (a re-created sroce1 comes after sroce2).
resources() {
	rdma resource show | sed 's/^[0-9]*: //' | sort
}

# Warm-up: one short run of each kind of object, so that caches the
# kernel fills once (ib_uverbs, rdma_cm, the netns machinery) are not
# counted as the soak's growth.
"$soak" -d sroce1 -g "$g1" -D sroce2 -G "$g2" -t 1 >/dev/null 2>&1
res0=$(resources)
ref0=$(cat /sys/module/sroce/refcnt)
shrink_caches
slab0=$(meminfo_kb SUnreclaim)
diag "before: module refcnt $ref0, SUnreclaim $slab0 kB" "$res0"

# --- the soak -----------------------------------------------------------------------

t_start=$EPOCHSECONDS
put $W/t_end $((t_start + DUR))
wpids=()
for w in $WORKERS; do
	: >$W/$w.runs
	"w_$w" &
	wpids+=($!)
done
injector &
ipid=$!

# last_fault_end: when the last fault ended (epoch seconds, 0 if none).
last_fault_end() {
	awk 'END { print $2 + 0 }' $W/faults 2>/dev/null
}

# recovered: every worker completed work that started after the last
# fault ended (a tick of dp_soak after it, a successful run of the others
# started after it).
recovered() {
	local e w
	e=$(last_fault_end)
	awk -v e="$e" '$2 > e { f = 1 } END { exit !f }' $W/verbs.ticks 2>/dev/null ||
		return 1
	for w in $WORKERS; do
		[ $w = verbs ] && continue
		awk -v e="$e" '$4 == "ok" && $1 >= e { f = 1 } END { exit !f }' \
			$W/$w.runs || return 1
	done
}

# Until the end, which the injector may move, and not while a fault is
# active (the injector moves the end before a fault ends); then until
# every worker recovered, RECOVER_S after the last fault at most.  The
# stop and the start of a fault exclude each other ($W/lock).
until [ -e $W/stop ]; do
	sleep 1
	{
		flock 9
		read -r t_end <$W/t_end
		read -r s <$W/fseq
		e=$(last_fault_end)
		if [ $EPOCHSECONDS -ge "$t_end" ] && [ $((s % 2)) -eq 0 ] &&
			{ [ $EPOCHSECONDS -ge $((e + RECOVER_S)) ] || recovered; }; then
			touch $W/stop
		fi
	} 9>$W/lock
done
t_ran=$((EPOCHSECONDS - t_start))
# dp_soak stops itself at the end; the pair tools end within RUN_TMO.
t_stop=$SECONDS
hung=()
for p in "${wpids[@]}" $ipid; do
	while kill -0 "$p" 2>/dev/null && [ $((SECONDS - t_stop)) -lt $((RUN_TMO + 30)) ]; do
		sleep 0.5
	done
	kill -0 "$p" 2>/dev/null && hung+=("$p")
done
stop_s=$((SECONDS - t_stop))
diag "the soak ran $t_ran s (${DUR} s asked)"

# --- results ------------------------------------------------------------------------

# Faults.
nf=0
ffail=0
fdiag=''
for k in $KINDS; do
	c=$(awk -v k="$k" '$3 == k { n++ } END { print n + 0 }' $W/faults 2>/dev/null)
	nf=$((nf + c))
	fdiag+=" $k=$c"
	# The longest time a fault of the kind took to repair.
	[ "$c" -gt 0 ] && fdiag+="($(awk -v k="$k" '$3 == k && $2 - $1 > m { m = $2 - $1 }
		END { print m + 0 }' $W/faults) s)"
done
ffail=$(awk '$4 != 0 { n++ } END { print n + 0 }' $W/faults 2>/dev/null)
last_end=$(last_fault_end)
diag "faults survived:$fdiag (total $nf, $ffail left the fabric broken)"
[ -s $W/faults.log ] && diag "$(tail -n 5 $W/faults.log)"
ktap_result "faults injected ($nf, at least $need kinds), every one repaired" \
	"$([ "$nf" -ge "$need" ] && [ "$ffail" -eq 0 ] &&
		[ "$(awk '{ print $3 }' $W/faults | sort -u | wc -l)" -ge "$need" ]
	echo $?)" "$(cat $W/faults 2>/dev/null | tail -n 20)"

# Operations.
ops=$(awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); s[kv[1]] += kv[2] } }
	END { printf "rc_send=%d rc_write=%d rc_read=%d fetch_add=%d cmp_swap=%d bytes=%d",
		s["send"], s["write"], s["read"], s["fadd"], s["cswap"], s["bytes"] }' \
	$W/verbs.ops 2>/dev/null)
diag "dp_soak operations (each checked): $ops"
for w in $WORKERS; do
	diag "$w: $(awk '{ ops[$7] += $8; n[$4]++ }
		END { for (k in ops) printf "%s=%d ", k, ops[k];
		      printf "| runs:"; for (c in n) printf " %s=%d", c, n[c] }' $W/$w.runs)"
done

# Per worker: no bad run; progress after the last fault.
for w in $WORKERS; do
	nbad=$(grep -c ' bad:' $W/$w.runs)
	ktap_result "$w: data exact, every failure plausible ($(wc -l <$W/$w.runs) runs)" \
		"$([ "$nbad" -eq 0 ]; echo $?)" \
		"$nbad bad runs:" "$(grep ' bad:' $W/$w.runs | head -n 5)" \
		"$(grep -A8 -- '--- .* bad:' $W/$w.fails 2>/dev/null | head -n 40)"
done
for w in $WORKERS; do
	if [ $w = verbs ]; then
		# A tick is written while operations complete.
		last=$(awk '{ if ($2 > m) m = $2 } END { print m + 0 }' $W/verbs.ticks 2>/dev/null)
		ok=$([ "$last" -gt "$last_end" ]; echo $?)
		why="last completed operation at $last, last fault ended at $last_end"
	else
		ok=$(awk -v e="$last_end" '$4 == "ok" && $1 >= e { f = 1 } END { exit !f }' \
			$W/$w.runs; echo $?)
		why="no successful run started after $last_end: $(tail -n 3 $W/$w.runs)"
	fi
	ktap_result "$w: made progress after the last fault" "$ok" "$why" \
		"$(tail -n 16 $W/$w.fails 2>/dev/null)"
done

ktap_result "every worker stopped within $((RUN_TMO + 30)) s of the end ($stop_s s)" \
	"${#hung[@]}" "still running: ${hung[*]}" \
	"$(ps -eo pid,stat,wchan:30,args | grep -E "$(tr ' ' '|' <<<"$TOOLS")" | grep -v grep)"

# A server whose client failed may outlive its worker by its timeout.
tools_gone() {
	[ -z "$(tools_left)" ]
}
wait_until $((RUN_TMO + 5)) tools_gone
left=$(tools_left)
ktap_result "no worker process left" "$([ -z "$left" ]; echo $?)" "$left"

# shellcheck disable=SC2317 # run by wait_until
res_back() {
	[ "$(resources)" = "$res0" ]
}
wait_until 20 res_back
res1=$(resources)
ktap_result "rdma resource show holds what it held before" \
	"$([ "$res1" = "$res0" ]; echo $?)" "before:" "$res0" "after:" "$res1"

ref1=$(cat /sys/module/sroce/refcnt)
ktap_result "sroce module refcnt back to $ref0" "$([ "$ref1" = "$ref0" ]; echo $?)" \
	"refcnt $ref0 -> $ref1"

shrink_caches
sleep 2
shrink_caches
slab1=$(meminfo_kb SUnreclaim)
ktap_result "SUnreclaim within $SLAB_KB kB of before ($((slab1 - slab0)) kB)" \
	"$([ $((slab1 - slab0)) -lt "$SLAB_KB" ]; echo $?)" \
	"SUnreclaim $slab0 -> $slab1 kB"

# The soak's records for a reader (vm-run's results share).
if [ -n "${SROCE_RESULTS:-}" ]; then
	mkdir -p "$SROCE_RESULTS/soak" && cp $W/*.runs $W/*.fails $W/faults* \
		$W/phases $W/verbs.ops "$SROCE_RESULTS/soak/" 2>/dev/null
fi

ktap_done
