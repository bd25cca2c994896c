#!/usr/bin/env bash
# Every test of the workshop, in order; ends with "N passed, N failed".
# Each stage leaves its counts in build/results/<stage>.counts.
. "$(dirname "$0")/lib.sh"

start=$(date +%s) cc0=$(ccache_counts)
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
# pbkill SIG: the background build's process group (below) gets SIG while
# the build runs (its leader, debug.sh, waits for the rest, so it ends
# last); once it has ended, its number may be another group's.
pbkill() {
	local running
	[ -n "$prebuild" ] || return 0
	running=$(jobs -rp)
	[[ $'\n'$running$'\n' = *$'\n'$prebuild$'\n'* ]] || return 0
	kill -"$1" -- "-$prebuild" 2>/dev/null || true
}
cleanup() {
	pbkill TERM
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
# bisect's) is built in the background at nice 19 from the mmtests stage
# on, in the cores that it and the stages after it leave idle (a fifth to
# nearly half: docs/checks.md, Time), when the run ends with those stages
# in their usual order (none of them writes a file of the tree that the
# kernel build reads); the debug stage waits for that build, then runs as
# it would alone (its make finds the kernel built, or builds what is left,
# and fails if it does not build). CHECK_PREBUILD=0: not. The build gets a
# process group of its own (set -m), which cleanup ends, in the same
# session (a new session would be a new scheduler autogroup, where nice 19
# weighs as much as the stages).
for s in $stages; do
	if [ "$s" = mmtests ] && [ -z "$prebuild" ] && [ "${CHECK_PREBUILD:-1}" = 1 ] &&
		[[ " $stages " = *" mmtests sparse builds htmldocs debug " ]]; then
		set -m
		nice -n 19 "$TOP/scripts/debug.sh" build >/dev/null 2>&1 </dev/null &
		prebuild=$!
		set +m
		note "the debug kernel builds in the background (nice 19) from here on (log: build/logs/debug-prebuild.log)"
	fi
	echo "=== $s" >&2
	t0=$(date +%s)
	if [ "$s" = debug ] && [ -n "$prebuild" ]; then
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
echo "check took $(( $(date +%s) - start ))s; $(ccache_since "$cc0")"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
