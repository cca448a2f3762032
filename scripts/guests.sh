# SPDX-License-Identifier: GPL-2.0
#
# guests.sh - sourced by check.sh, check-debug.sh and check-kernel.sh: the
# integration suite in one guest boot, then the files that need a guest of
# their own, on whichever kernel the caller boots.  Uses summary.sh.
#
# suite_guests WHO RESULTS TIMEOUT OWN_TIMEOUT [VM-RUN OPTION...] -- [t-NAME...]
#
# Runs tests/integration/run.sh with the named files (none: every file;
# t-crc and t-virtio, named, only in their own guests) in
# tests/vm/vm-run with the options given, for at most TIMEOUT seconds,
# results (console, dmesg) in RESULTS.  Then, when every file runs or they
# are named, t-crc and t-virtio once more, each for at most OWN_TIMEOUT
# seconds: both skip in the suite's guest, which has a qemu64 CPU and no
# NIC.  Each guest's summary line is added to the caller's pass, fail and
# skip.  With SROCE_DEADLINE (epoch seconds) set, a guest of its own that
# would end after it is skipped, by name.  With SROCE_SUITE_GUESTS=N (N > 1)
# the suite's files run in N guests at once (split_guests).

# own_guest_file FILE: FILE needs a guest of its own (and only skips in
# the suite's).
own_guest_file() {
	[[ $1 == t-crc || $1 == t-virtio ]]
}

# own_guest_wanted FILE [t-NAME...]: FILE runs in its own guest this time.
own_guest_wanted() {
	local f=$1
	shift
	[ $# -eq 0 ] || [[ " $* " == *" $f "* ]]
}

# own_guest WHO OWN_TIMEOUT FILE LOG [VM-RUN OPTION...]: FILE in a guest
# booted with the options.
own_guest() {
	local who=$1 tmo=$2 f=$3 log=$4
	shift 4
	if [ -n "${SROCE_DEADLINE:-}" ] &&
		[ $(($(date +%s) + tmo)) -gt "$SROCE_DEADLINE" ]; then
		echo "$who: SKIP: $f: too little time left for its own guest"
		skip=$((skip + 1))
		return
	fi
	tests/vm/vm-run "$@" --timeout "$tmo" -- \
		tests/integration/run.sh "$f" 2>&1 | tee "$log"
	summary_add "$who" "$f (own guest: $*)" "${PIPESTATUS[0]}" "$log"
}

# split_guests WHO RESULTS TIMEOUT [t-NAME...]: called by suite_guests,
# boots with its vm-run options (its opts).  The files (none: every file
# but t-crc and t-virtio, which need guests of their own) dealt out to
# SROCE_SUITE_GUESTS guests booted at once (each guest's results in
# RESULTS/gN).  For a slow kernel whose files wait more
# than they compute (the debug kernel): on 2 cores two guests end the
# suite sooner than one.  SROCE_SUITE_WEIGHTS ("t-NAME:SECONDS ...", the
# caller's measured file times; 300 for a file not listed) balances
# them: the longest file first, each to the guest with the least time so
# far.  Each guest's summary line is added as suite_guests adds its one.
split_guests() {
	local who=$1 res=$2 tmo=$3 n=$SROCE_SUITE_GUESTS
	local files=() load=() shard=() pids=() f w i min
	local -A weight=()
	shift 3
	if [ $# -gt 0 ]; then
		files=("$@")
	else
		for f in tests/integration/t-*.sh; do
			f=${f##*/}
			f=${f%.sh}
			own_guest_file "$f" || files+=("$f")
		done
	fi
	for w in ${SROCE_SUITE_WEIGHTS:-}; do
		if ! [[ $w =~ ^t-[a-z0-9-]+:[0-9]+$ ]]; then
			summary_fail "$who" "bad SROCE_SUITE_WEIGHTS entry '$w'"
			return
		fi
		weight[${w%%:*}]=${w#*:}
	done
	for ((i = 0; i < n; i++)); do
		load[i]=0
		shard[i]=
	done
	while read -r w f; do
		min=0
		for ((i = 1; i < n; i++)); do
			[ "${load[i]}" -lt "${load[min]}" ] && min=$i
		done
		load[min]=$((load[min] + w))
		shard[min]+=" $f"
	done < <(for f in "${files[@]}"; do
		echo "${weight[$f]:-300} $f"
	done | sort -k1,1nr -k2,2)
	for ((i = 0; i < n; i++)); do
		[ -n "${shard[i]}" ] || continue
		mkdir -p "$res/g$i"
		echo "$who: guest g$i runs${shard[i]} (about ${load[i]} s)"
		# shellcheck disable=SC2086 # shard[i]: file names, no spaces
		tests/vm/vm-run "${opts[@]}" --timeout "$tmo" \
			--results "$res/g$i" --keep-log "$res/g$i/console.log" -- \
			tests/integration/run.sh ${shard[i]} \
			>"$res/g$i/run.log" 2>&1 &
		pids[i]=$!
	done
	for i in "${!pids[@]}"; do
		wait "${pids[i]}"
		summary_add "$who" "integration tests, guest g$i" $? \
			"$res/g$i/run.log"
		sed "s/^/g$i: /" "$res/g$i/run.log"
	done
}

suite_guests() {
	local who=$1 res=$2 tmo=$3 own_tmo=$4
	local opts=() suite=() log start f
	shift 4
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	[ $# -gt 0 ] && shift
	# The named files but those of guests of their own.
	for f in "$@"; do
		own_guest_file "$f" || suite+=("$f")
	done
	log=$(mktemp /tmp/sroce-guests.XXXXXX)
	rm -rf "$res"
	mkdir -p "$res"
	start=$(date +%s)
	# A bad guest count is reported also when no suite guest would boot.
	if ! [[ ${SROCE_SUITE_GUESTS:-1} =~ ^[1-9][0-9]?$ ]]; then
		summary_fail "$who" "bad SROCE_SUITE_GUESTS '$SROCE_SUITE_GUESTS'"
	elif [ $# -gt 0 ] && [ ${#suite[@]} -eq 0 ]; then
		echo "$who: no file for the suite's guest"
	elif [ "${SROCE_SUITE_GUESTS:-1}" -gt 1 ]; then
		split_guests "$who" "$res" "$tmo" "${suite[@]}"
		echo "$who: the suite's guests ran $(($(date +%s) - start)) s"
	else
		tests/vm/vm-run "${opts[@]}" --timeout "$tmo" --results "$res" \
			--keep-log "$res/console.log" -- \
			tests/integration/run.sh "${suite[@]}" 2>&1 | tee "$log"
		summary_add "$who" "integration tests" "${PIPESTATUS[0]}" "$log"
		echo "$who: the suite's guest ran $(($(date +%s) - start)) s"
	fi
	# t-crc: a CPU with PCLMULQDQ (and the SSE4.1 that crc32-pclmul also
	# uses), so that both CRC implementations are compared.
	if own_guest_wanted t-crc "$@"; then
		echo "$who: t-crc on a guest CPU with PCLMULQDQ"
		own_guest "$who" "$own_tmo" t-crc "$log" "${opts[@]}" \
			--cpu qemu64,+ssse3,+sse4.1,+sse4.2,+pclmulqdq
	fi
	# t-virtio: two virtio-net NICs joined on a QEMU hub.
	if own_guest_wanted t-virtio "$@"; then
		echo "$who: t-virtio in a guest with two virtio-net NICs"
		own_guest "$who" "$own_tmo" t-virtio "$log" "${opts[@]}" \
			--nic-pair hub
	fi
	rm -f "$log"
}
