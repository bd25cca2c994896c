#!/usr/bin/env bash
# Every test of the workshop, in order; ends with "N passed, N failed".
# Each stage leaves its counts in build/results/<stage>.counts.
. "$(dirname "$0")/lib.sh"

start=$(date +%s)
# ^C, SIGTERM or a hangup ends the run: a stage that catches them itself
# (boot.sh, bench.sh) exits normally, and the next stage would start.
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
# Transparent huge pages "always" for the run, then back as they were
# (root only; CHECK_THP=keep, or any value but always, leaves them alone).
# A kernel build's compilers fault in their heaps a 4 KiB page at a time,
# and on a VM whose page faults are dear (the workshop's: PVM, pti=on) a
# build took 11-21 % less time with them (docs/checks.md, Time). No stage
# here decides on a speed it measures (make bench, run alone, keeps the
# machine's setting).
thp=/sys/kernel/mm/transparent_hugepage/enabled
was=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$thp" 2>/dev/null || true)
setthp=0 prebuild=""
# pbkill SIG: the background build's process group gets SIG, while the
# build runs (a stopped one too: with job control off the shell does not
# see the stop); once it has ended, its number may be another group's.
pbkill() {
	local running
	[ -n "$prebuild" ] && [ "$prebuild" != go ] || return 0
	running=$(jobs -rp)
	[[ $'\n'$running$'\n' = *$'\n'$prebuild$'\n'* ]] || return 0
	kill -"$1" -- "-$prebuild" 2>/dev/null || true
}
cleanup() {
	pbkill TERM
	pbkill CONT	# a stopped group gets the TERM once it runs
	[ $setthp = 0 ] || echo "$was" 2>/dev/null >"$thp" ||
		echo "check: could not put back transparent_hugepage/enabled ($was)" >&2
}
trap cleanup EXIT
if [ "${CHECK_THP:-always}" = always ] && [ -n "$was" ] && [ "$was" != always ] &&
	echo always 2>/dev/null >"$thp"; then
	setthp=1
	note "transparent_hugepage/enabled: always for this run (was $was; CHECK_THP=keep leaves it)"
fi
res=$BUILD/results
rm -rf "$res"
mkdir -p "$res"
# The bisect stage builds every patch in turn (in a small config of its
# own; HEAD also in the main build folder), so that the build stage after
# it has nothing left to do; BISECT=0 skips it (the build stage then builds HEAD), and
# "make bisect" runs it alone.
default="checkpatch series-size bisect build matrix harness perf selftests package analysis mmtests sparse builds htmldocs debug"
[ "${BISECT:-1}" = 0 ] && default="checkpatch series-size build matrix harness perf selftests package analysis mmtests sparse builds htmldocs debug"
stages=${CHECK_STAGES:-$default}
# The debug stage's kernel (KASAN and lockdep: the longest build after the
# bisect's) is built in the background at nice 19 from the first stage on,
# in the cores that the stages leave idle (9 % of the bisect's, a fifth to
# nearly half of some later stages': docs/checks.md, Time), when the debug
# stage is in the run and every stage before it is one of the default
# stages (none of them writes a file of the realised tree, which the build
# reads: the bisect checks its commits out in a worktree of its own). It is
# stopped (SIGSTOP) during the stages whose checks depend on timing (the
# harness's stale-read controls) or that reserve the host's huge pages
# (harness, perf, selftests, package, analysis), so that it takes no CPU
# and allocates nothing new then (what it holds, it keeps). The debug
# stage waits for that build, then runs as it would alone (its make finds
# the kernel built, or builds what is left, and fails if it does not
# build). CHECK_PREBUILD=0: not. The build gets a process group of its own
# (set -m), which cleanup ends, in the same session (a new session would
# be a new scheduler autogroup, where nice 19 weighs as much as the
# stages).
quiet="harness perf selftests package analysis"
before=${stages%%debug*}
if [ "${CHECK_PREBUILD:-1}" = 1 ] && [[ " $stages " = *" debug "* ]] && [ -n "${before// /}" ]; then
	prebuild=go
	for s in $before; do
		[[ " $default " = *" $s "* ]] || prebuild=""
	done
fi
for s in $stages; do
	if [ "$prebuild" = go ]; then
		set -m
		nice -n 19 "$TOP/scripts/debug.sh" build >/dev/null 2>&1 </dev/null &
		prebuild=$!
		set +m
		note "the debug kernel builds in the background (nice 19) from here on (log: build/logs/debug-prebuild.log)"
	fi
	if [ "$s" != debug ]; then
		if [[ " $quiet " = *" $s "* ]]; then pbkill STOP; else pbkill CONT; fi
	fi
	echo "=== $s" >&2
	t0=$(date +%s)
	if [ "$s" = debug ] && [ -n "$prebuild" ]; then
		pbkill CONT
		r=0; wait "$prebuild" || r=$?
		prebuild=""
		note "the background build of the debug kernel ended (exit $r) $(( $(date +%s) - t0 ))s into this stage"
	fi
	args=""
	[ "$s" = selftests ] && args=run
	[ "$s" = perf ] && args=check
	if [ "$s" = build ]; then
		# One result: the main build (bzImage of HEAD, no new warning).
		if "$TOP/scripts/build.sh"; then echo "1 0 0"; else echo "0 1 0"; fi >"$res/build.counts"
	else
		"$TOP/scripts/$s.sh" $args || true	# counted from its .counts below
	fi
	echo "=== $s: $(( $(date +%s) - t0 ))s" >&2
	# A stage that died before writing its counts is one failure.
	[ -f "$res/$s.counts" ] || echo "0 1 0" >"$res/$s.counts"
done
pass=0 fail=0 skip=0
for s in $stages; do
	read -r p f k <"$res/$s.counts"
	printf '%-12s %4d passed, %d failed, %d skipped\n' "$s:" "$p" "$f" "$k"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + k))
done
echo "check took $(( $(date +%s) - start ))s"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
