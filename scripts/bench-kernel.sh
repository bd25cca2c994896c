#!/usr/bin/env bash
# make bench-kernel: the in-kernel measurement, as root on a machine booted
# into a kernel of the series (make deb). Builds perf from the realised
# tree, runs guest/bench-kernel (the part that runs on the target: a plain
# sh script, which the package stage also runs in a busybox guest), then
# scripts/ntbench.py kernel: the table, the decision by make bench's rule
# and the populate set for this CPU.
#   ROUNDS (5), RUNS (3: best of, per round), MIB (1024: the 2 MiB rows'
#   size), GPAGES (4: 1 GiB pages per measurement),
#   REPORT=docs/measurements/<name>.md: also write a page ("bare metal" or
#   "VM", from the CPU's hypervisor flag).
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || die "run as root: it sets the hugetlb pools and the debugfs knobs"
[ -d "$SRC/.git" ] || die "no realised tree at $SRC (make realise)"
out=$BUILD/bench-kernel
mkdir -p "$out"
if [ -n "${REPORT:-}" ]; then
	case $REPORT in *.md) ;; *) die "REPORT=$REPORT: want a .md page" ;; esac
	[ ! -e "$REPORT" ] || die "REPORT=$REPORT exists: a page is never overwritten"
fi

# perf from the perf series: what measures
perf=$BUILD/perf/perf
"$TOP/scripts/perf.sh" >/dev/null 2>&1 || die "perf did not build here (log: $BUILD/logs/perf-build.log)"

raw=$out/bench-kernel.out
: >"$raw"
note "measuring: ${ROUNDS:-5} rounds; $(uname -r) on $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
start=$(date +%s)
rc=0
sh "$TOP/guest/bench-kernel" -r "${ROUNDS:-5}" -n "${RUNS:-3}" -s "${MIB:-1024}" -g "${GPAGES:-4}" \
	-p "$perf" -o "$raw" >/dev/null || rc=$?
case $rc in
0) ;;
2) die "refused (see above); nothing was changed" ;;
3) die "not root" ;;
*) [ -s "$raw" ] || die "bench-kernel failed ($rc) before measuring anything"
   note "bench-kernel failed ($rc) part way; the table below has what it measured" ;;
esac
note "took $(($(date +%s) - start)) s; raw lines: $raw"
python3 "$TOP/scripts/ntbench.py" kernel "$raw" ${REPORT:+--report "$REPORT"} | tee "$out/bench-kernel.txt"
exit "${PIPESTATUS[0]}"
